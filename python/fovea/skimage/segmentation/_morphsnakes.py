"""scikit-image's morphological snakes (0.26 API): morphological_chan_vese
(MorphACWE), morphological_geodesic_active_contour (MorphGAC) and their helpers
inverse_gaussian_gradient, checkerboard_level_set and disk_level_set.

The level set is binary (int8 0 / 1, as scikit-image returns it). The
curvature step alternates the SI o IS and IS o SI operators, where SI is the
union of the binary erosions and IS the intersection of the binary dilations
along the line footprints through the centre of a 3**ndim cube (4 lines in
2-d, 9 planes-of-lines in 3-d as the paper defines them); the erosions and
dilations run in fovea's C / CUDA binary morphology (fovea.ndimage), on the
data's own device. The data terms are computed with the same array operations
scikit-image uses, in the same dtypes, so the results are identical.

As in scikit-image, the SIoIS / ISoSI alternation is one cycle shared by every
call in the process (the next smoothing step of a call continues where the
previous call left it); it starts with SIoIS.
"""

import numbers

import numpy as np

from ... import ndimage as fndi
from ..._interop import like_input, prepare
from .._shared import check_nD

__all__ = [
    "morphological_chan_vese",
    "morphological_geodesic_active_contour",
    "inverse_gaussian_gradient",
    "disk_level_set",
    "checkerboard_level_set",
]


def _line_footprints(ndim):
    """The line footprints of the SI / IS operators (bool, 3**ndim)."""
    if ndim == 2:
        fps = [np.eye(3, dtype=bool), np.zeros((3, 3), bool), np.fliplr(np.eye(3, dtype=bool)),
               np.zeros((3, 3), bool)]
        fps[1][:, 1] = True
        fps[3][1, :] = True
        return [np.ascontiguousarray(f) for f in fps]
    fps = [np.zeros((3, 3, 3), bool) for _ in range(9)]
    r, f = [0, 1, 2], [2, 1, 0]
    fps[0][:, :, 1] = True
    fps[1][:, 1, :] = True
    fps[2][1, :, :] = True
    fps[3][:, r, r] = True
    fps[4][:, r, f] = True
    fps[5][r, :, r] = True
    fps[6][r, :, f] = True
    fps[7][r, r, :] = True
    fps[8][r, f, :] = True
    return fps


_FOOTPRINTS = {2: _line_footprints(2), 3: _line_footprints(3)}

# the shared SIoIS / ISoSI phase (see the module docstring)
_curvature_phase = [0]


def _over_lines(u, morph, combine):
    """combine (logical or / and, in place) of morph(u) along each line footprint (bool out)."""
    out = None
    for fp in _FOOTPRINTS[u.ndim]:
        e = morph(u, fp)
        out = e if out is None else combine(out, e, out=out)
    return out


def _sup_inf(u, xp):
    """SI: union of the binary erosions along each line footprint (bool out)."""
    return _over_lines(u, fndi.binary_erosion, xp.logical_or)


def _inf_sup(u, xp):
    """IS: intersection of the binary dilations along each line footprint (bool out)."""
    return _over_lines(u, fndi.binary_dilation, xp.logical_and)


def _curvature(u, xp):
    """One smoothing step (SIoIS or ISoSI, by the shared phase); int8 0 / 1 out."""
    if _curvature_phase[0] == 0:
        r = _sup_inf(_inf_sup(u, xp), xp)
    else:
        r = _inf_sup(_sup_inf(u, xp), xp)
    _curvature_phase[0] ^= 1
    return r.view(np.int8)


def _grid_axes(shape, xp):
    """Open index grids, one per axis (broadcastable)."""
    return [xp.arange(n).reshape((-1,) + (1,) * (len(shape) - i - 1)) for i, n in enumerate(shape)]


def _checkerboard(shape, square_size, xp):
    res = xp.zeros(shape, dtype=np.int8)
    for g in _grid_axes(shape, xp):
        res ^= ((g // square_size) & 1).astype(np.int8)
    return res


def _disk(shape, center, radius, xp):
    if center is None:
        center = tuple(i // 2 for i in shape)
    if radius is None:
        radius = min(shape) * 3.0 / 8.0
    if len(center) != len(shape):
        raise ValueError(f"`center` has {len(center)} coordinates for a {len(shape)}-dimensional shape")
    d2 = 0
    for g, c in zip(_grid_axes(shape, xp), center):
        d2 = d2 + (g - c) ** 2
    phi = radius - xp.sqrt(d2)
    return (phi > 0).astype(np.int8)


def _shape_tuple(image_shape):
    try:
        shape = tuple(int(n) for n in image_shape)
    except TypeError as e:
        raise TypeError("`image_shape` must be a tuple of positive integers") from e
    return shape


def disk_level_set(image_shape, *, center=None, radius=None):
    """Binary (int8) level set of a disk (ball): 1 where the distance to
    `center` (default: the image centre, i // 2 per axis) is below `radius`
    (default: 3/8 of the smallest dimension) (skimage.segmentation.disk_level_set)."""
    return _disk(_shape_tuple(image_shape), center, radius, np)


def checkerboard_level_set(image_shape, square_size=5):
    """Binary (int8) checkerboard level set with squares (cubes) of side
    `square_size` (skimage.segmentation.checkerboard_level_set)."""
    return _checkerboard(_shape_tuple(image_shape), square_size, np)


def inverse_gaussian_gradient(image, alpha=100.0, sigma=5.0):
    """1 / sqrt(1 + alpha * |grad(gaussian(image, sigma))|), the usual
    preprocessing for morphological_geodesic_active_contour
    (skimage.segmentation.inverse_gaussian_gradient). The Gaussian gradient
    magnitude runs in fovea.ndimage (mode 'nearest')."""
    x, xp, back = prepare(image)
    gradnorm = fndi.gaussian_gradient_magnitude(x, sigma, mode="nearest")
    return back(1.0 / xp.sqrt(1.0 + alpha * gradnorm))


def _init_level_set(init_level_set, shape, xp):
    if isinstance(init_level_set, str):
        if init_level_set == "checkerboard":
            return _checkerboard(shape, 5, xp)
        if init_level_set == "disk":
            return _disk(shape, None, None, xp)
        raise ValueError("`init_level_set` not in ['checkerboard', 'disk']")
    return like_input(init_level_set, xp, "init_level_set")


def _check_input(image, level_set):
    check_nD(image, [2, 3])
    if image.ndim != level_set.ndim:
        raise ValueError("The dimensions of the initial level set do not match the dimensions of the image.")
    if tuple(image.shape) != tuple(level_set.shape):
        raise ValueError(
            f"The shape of the initial level set {tuple(level_set.shape)} does not match the shape "
            f"of the image {tuple(image.shape)}."
        )


def _check_count(value, name):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"`{name}` must be an integer, got {value!r}")
    return int(value)


def _gradient_support(u, xp):
    """Where np.gradient(u) has a non-zero component (u: 0 / 1 values), as a bool
    array: on each axis the central difference u[i+1] - u[i-1] (one-sided at the
    ends, as np.gradient)."""
    nz = xp.zeros(u.shape, dtype=bool)
    for ax in range(u.ndim):
        n = u.shape[ax]
        if n < 2:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, at least "
                "(edge_order + 1) elements are required."
            )
        sl = [slice(None)] * u.ndim

        def at(s):
            sl[ax] = s
            return tuple(sl)

        nz[at(slice(1, -1))] |= u[at(slice(2, None))] != u[at(slice(None, -2))]
        nz[at(slice(0, 1))] |= u[at(slice(1, 2))] != u[at(slice(0, 1))]
        nz[at(slice(n - 1, n))] |= u[at(slice(n - 1, n))] != u[at(slice(n - 2, n - 1))]
    return nz


def morphological_chan_vese(image, num_iter, init_level_set="checkerboard", smoothing=1, lambda1=1, lambda2=1,
                            iter_callback=lambda x: None):
    """Morphological active contours without edges (MorphACWE), 2-d or 3-d
    (skimage.segmentation.morphological_chan_vese). Returns the final level set
    (int8, 0 / 1); iter_callback gets the level set before the first and after
    every iteration."""
    x, xp, back = prepare(image)
    num_iter = _check_count(num_iter, "num_iter")
    smoothing = _check_count(smoothing, "smoothing")
    level = _init_level_set(init_level_set, tuple(x.shape), xp)
    _check_input(x, level)
    u = (level > 0).astype(np.int8)
    iter_callback(back(u))
    for _ in range(num_iter):
        inside = 1 - u
        c0 = (x * inside).sum() / float((inside).sum() + 1e-8)
        c1 = (x * u).sum() / float(u.sum() + 1e-8)
        edge = _gradient_support(u, xp)
        term = lambda1 * (x - c1) ** 2 - lambda2 * (x - c0) ** 2
        u[edge & (term < 0)] = 1
        u[edge & (term > 0)] = 0
        for _ in range(smoothing):
            u = _curvature(u, xp)
        iter_callback(back(u))
    return back(u)


def morphological_geodesic_active_contour(gimage, num_iter, init_level_set="disk", smoothing=1, threshold="auto",
                                          balloon=0, iter_callback=lambda x: None):
    """Morphological geodesic active contours (MorphGAC), 2-d or 3-d
    (skimage.segmentation.morphological_geodesic_active_contour). gimage is a
    float edge-stopping image (see inverse_gaussian_gradient); the contour
    stops where it is small. Returns the final level set (int8, 0 / 1)."""
    x, xp, back = prepare(gimage)
    num_iter = _check_count(num_iter, "num_iter")
    smoothing = _check_count(smoothing, "smoothing")
    level = _init_level_set(init_level_set, tuple(x.shape), xp)
    _check_input(x, level)
    if isinstance(threshold, str) and threshold == "auto":
        threshold = xp.percentile(x, 40)
    structure = np.ones((3,) * x.ndim, dtype=bool)
    dimage = xp.gradient(x)
    if balloon != 0:
        balloon_mask = x > threshold / abs(balloon)
    u = (level > 0).astype(np.int8)
    iter_callback(back(u))
    if num_iter > 0 and x.dtype.kind not in "fc":
        # scikit-image accumulates the data term in gimage's dtype, which fails the same way
        raise TypeError(
            f"Cannot cast ufunc 'add' output from dtype('float64') to dtype('{x.dtype}') with casting rule "
            "'same_kind': gimage must be a floating-point image (see inverse_gaussian_gradient)"
        )
    for _ in range(num_iter):
        if balloon != 0:
            if balloon > 0:
                moved = fndi.binary_dilation(u, structure)
            else:
                moved = fndi.binary_erosion(u, structure)
            u[balloon_mask] = moved[balloon_mask]
        acc = xp.zeros_like(x)
        for gi, gu in zip(dimage, xp.gradient(u)):
            acc += gi * gu
        u[acc > 0] = 1
        u[acc < 0] = 0
        for _ in range(smoothing):
            u = _curvature(u, xp)
        iter_callback(back(u))
    return back(u)
