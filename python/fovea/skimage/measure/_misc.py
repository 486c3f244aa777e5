"""skimage.measure's block_reduce, shannon_entropy, blur_effect and
profile_line on NumPy (host) or CuPy (GPU) data, results in the input's
array type.

- block_reduce: the (padded) image viewed as a grid of blocks without
  copying, func reducing the block axes (func must accept ``axis``; NumPy
  functions dispatch to CuPy for GPU data).
- shannon_entropy: value counts by bincount for 8/16-bit images, by unique
  otherwise.
- blur_effect: fovea.ndimage.uniform_filter1d and fovea.skimage.filters.sobel
  (C on all CPU cores, CUDA for GPU data).
- profile_line: fovea has no map_coordinates yet, so the sampling uses
  scipy.ndimage.map_coordinates for host data and
  cupyx.scipy.ndimage.map_coordinates for GPU data."""

import numpy as np

from ... import ndimage as fndi
from ..._interop import prepare
from .._shared import cucim_rules, img_as_float

__all__ = ["block_reduce", "shannon_entropy", "blur_effect", "profile_line"]


def block_reduce(image, block_size=2, func=np.sum, cval=0, func_kwargs=None):
    """Down-sample image by applying func to each block of block_size
    (a scalar or one size per axis); edges that do not fill a block are padded
    with cval. func_kwargs: more keyword arguments for func."""
    x, xp, back = prepare(image)
    if np.isscalar(block_size):
        block_size = (block_size,) * x.ndim
    elif len(block_size) != x.ndim:
        raise ValueError("`block_size` must be a scalar or have the same length as `image.shape`")
    if func_kwargs is None:
        func_kwargs = {}
    pad = []
    for n, b in zip(x.shape, block_size):
        if b < 1:
            raise ValueError("Down-sampling factors must be >= 1. Use `skimage.transform.resize` to up-sample an "
                             "image.")
        if int(b) != b:
            raise TypeError("`block_size` must be integers")
        pad.append((0, (-n) % int(b)))
    block_size = tuple(int(b) for b in block_size)
    if any(p for _, p in pad):
        x = xp.pad(x, pad, mode="constant", constant_values=cval)
    x = xp.ascontiguousarray(x)
    nd = x.ndim
    split = []
    for n, b in zip(x.shape, block_size):
        split += [n // b, b]
    # (g0, b0, g1, b1, ...) -> (g0, g1, ..., b0, b1, ...): a strided view
    blocked = x.reshape(split).transpose(tuple(range(0, 2 * nd, 2)) + tuple(range(1, 2 * nd, 2)))
    return back(func(blocked, axis=tuple(range(nd, 2 * nd)), **func_kwargs))


def shannon_entropy(image, base=2):
    """Shannon entropy -sum(p log p) of the image's value histogram, in units
    of `base` (2: bits)."""
    x, xp, _ = prepare(image)
    x = x.reshape(-1)
    if x.dtype.kind in "biu" and x.dtype.itemsize <= 2:
        if x.dtype.kind == "b":
            x = x.view(np.uint8)
        elif x.dtype.kind == "i":
            x = x.astype(np.int32) - np.iinfo(x.dtype).min
        counts = xp.bincount(x)
        counts = counts[counts > 0]
    else:
        _, counts = xp.unique(x, return_counts=True)
    p = counts / counts.sum()
    h = -(p * xp.log(p)).sum()
    if base is not None:
        h = h / np.log(base)
    return h


_EPS = np.spacing(np.float64(1))


def blur_effect(image, h_size=11, channel_axis=None, reduce_func=np.max):
    """Blur metric of Crete et al. (2007), 0 (sharp) .. 1 (blurred): per axis,
    how much of the Sobel gradient survives an h_size running mean. Colour
    images (channel_axis) are converted to gray first. reduce_func combines
    the per-axis values (None: the list)."""
    from ..filters import sobel

    x, xp, _ = prepare(image)
    if channel_axis is not None:
        if isinstance(channel_axis, bool) or not isinstance(channel_axis, (int, np.integer)):
            raise TypeError("channel_axis must be an integer")
        try:
            x = xp.moveaxis(x, channel_axis, -1)
        except Exception as e:
            raise np.exceptions.AxisError(
                f"channel_axis {channel_axis} is out of bounds for array of dimension {x.ndim}") from e
        from ..color import rgb2gray

        # fovea's rgb2gray, so that blur_effect(rgb, channel_axis) == blur_effect(rgb2gray(rgb))
        # (scikit-image's test); it rounds the weighted sum in C, scikit-image's by a matmul,
        # so the two can differ in the last bits
        x = rgb2gray(x)
    x = img_as_float(x, xp)
    slices = tuple(slice(2, s - 1) for s in x.shape)
    B = []
    for ax in range(x.ndim):
        blurred = fndi.uniform_filter1d(x, h_size, axis=ax)
        # scikit-image's np.maximum with a float64 scalar makes these float64
        sharp = xp.maximum(xp.abs(sobel(x, axis=ax)).astype(np.float64, copy=False), _EPS)
        soft = xp.maximum(xp.abs(sobel(blurred, axis=ax)).astype(np.float64, copy=False), _EPS)
        T = xp.maximum(0, sharp - soft)
        M1 = xp.sum(sharp[slices])
        M2 = xp.sum(T[slices])
        B.append(xp.abs(M1 - M2) / M1)
    if cucim_rules(x):   # cuCIM: host scalars (Python floats; np.max of them a numpy.float64)
        B = [float(b) for b in B]
    if reduce_func is None:
        return B
    if xp is not np and not cucim_rules(x):
        B = xp.stack(B)
    return reduce_func(B)


def _line_coordinates(src, dst, linewidth):
    """(2, length, linewidth) sample coordinates: `length` points from src to
    dst (both included, one per pixel of distance), each with `linewidth`
    points spread across the line."""
    src = np.asarray(src, dtype=float)
    dst = np.asarray(dst, dtype=float)
    (r0, c0), (r1, c1) = src, dst
    dr, dc = r1 - r0, c1 - c0
    theta = np.arctan2(dr, dc)
    length = int(np.ceil(np.hypot(dr, dc) + 1))
    rows = np.linspace(r0, r1, length)
    cols = np.linspace(c0, c1, length)
    half_c = (linewidth - 1) * np.sin(-theta) / 2
    half_r = (linewidth - 1) * np.cos(theta) / 2
    perp_r = np.stack([np.linspace(r - half_r, r + half_r, linewidth) for r in rows])
    perp_c = np.stack([np.linspace(c - half_c, c + half_c, linewidth) for c in cols])
    return np.stack([perp_r, perp_c])


def _order(dtype, order):
    if order is None:
        return 0 if dtype == bool else 1
    if order < 0 or order > 5:
        raise ValueError("Spline interpolation order has to be in the range 0-5.")
    if dtype == bool and order != 0:
        raise ValueError("Input image dtype is bool. Interpolation is not defined with bool data type. Please set "
                         "order to 0 or explicitly cast input image to another data type.")
    return order


def profile_line(image, src, dst, linewidth=1, order=None, mode="reflect", cval=0.0, *, reduce_func=np.mean):
    """Intensities sampled along the line from src to dst (both (row, col),
    both included), averaged (reduce_func) over `linewidth` parallel lines.
    A 3-d image is taken as rows x cols x channels. order: spline order
    (None: 0 for bool images, else 1); mode / cval: outside the image, as
    scipy.ndimage ('constant' and 'wrap' mean their grid- variants)."""
    x, xp, back = prepare(image)
    order = _order(x.dtype, order)
    mode = {"constant": "grid-constant", "wrap": "grid-wrap"}.get(mode, mode)
    if xp is np:
        from scipy.ndimage import map_coordinates
    else:
        from cupyx.scipy.ndimage import map_coordinates as cupy_map

        def map_coordinates(a, c, **kw):
            # scipy interpolates in float64 and rounds integer outputs half away from
            # zero; CuPy works in the input's float precision and rounds half to even
            t = cupy_map(a, c, output=np.float64, **kw)
            if a.dtype.kind in "iu":
                t = xp.where(t > 0, t + 0.5, t - 0.5) if a.dtype.kind == "i" else t + 0.5
            return t.astype(a.dtype)
    coords = xp.asarray(_line_coordinates(src, dst, linewidth))
    kw = dict(prefilter=order > 1, order=order, mode=mode, cval=cval)
    if x.ndim == 3:
        pixels = xp.stack([map_coordinates(x[..., i], coords, **kw) for i in range(x.shape[2])], axis=-1)
    else:
        pixels = map_coordinates(x, coords, **kw)
    pixels = xp.flip(pixels, axis=1)
    if reduce_func is None:
        return back(pixels)
    try:
        out = reduce_func(pixels, axis=1)
    except TypeError:
        host = pixels if xp is np else pixels.get()
        out = xp.asarray(np.apply_along_axis(reduce_func, arr=host, axis=1))
    return back(out)
