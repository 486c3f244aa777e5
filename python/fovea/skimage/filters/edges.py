"""Edge filters (skimage.filters.edges): sobel, scharr, prewitt, farid (+ _h/_v),
roberts (+ diagonals) and laplace.

Each builds the same small n-d kernel scikit-image builds (an edge profile along
one axis times a smoothing profile along every other) and runs it through
fovea.ndimage.convolve, so results match scikit-image's, quirks included (a
negative ``axis`` smooths along the edge axis too, as there).
"""

import operator
import sys

import numpy as np

from ... import _fovea
from ... import ndimage as ndi
from ..._interop import like_input, prepare
from .._shared import as_float_image, check_nD

__all__ = [
    "sobel", "sobel_h", "sobel_v",
    "scharr", "scharr_h", "scharr_v",
    "prewitt", "prewitt_h", "prewitt_v",
    "farid", "farid_h", "farid_v",
    "roberts", "roberts_pos_diag", "roberts_neg_diag",
    "laplace",
]  # fmt: skip

# 1-D profiles: a central difference and the smoothing of each operator
_EDGE = np.array([1.0, 0.0, -1.0])
_SOBEL_SMOOTH = np.array([1.0, 2.0, 1.0]) / 4
_SCHARR_SMOOTH = np.array([3.0, 10.0, 3.0]) / 16
_PREWITT_SMOOTH = np.full(3, 1.0 / 3.0)
# Farid & Simoncelli's 5-tap derivative / interpolator pair
_FARID_SMOOTH = np.array([0.0376593171958126, 0.249153396177344, 0.426374573253687, 0.249153396177344,
                          0.0376593171958126])  # fmt: skip
_FARID_EDGE = np.array([0.109603762960254, 0.276690988455557, 0.0, -0.276690988455557, -0.109603762960254])
_FARID_H = _FARID_EDGE[:, None] * _FARID_SMOOTH[None, :]
_FARID_V = np.ascontiguousarray(_FARID_H.T)
# Roberts' cross
_ROBERTS_PD = np.array([[1.0, 0.0], [0.0, -1.0]])
_ROBERTS_ND = np.array([[0.0, 1.0], [-1.0, 0.0]])


def _along(profile, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return np.reshape(profile, shape)


def _mask_result(result, mask, xp):
    """Zero the result outside mask eroded by one pixel (full connectivity), as
    scikit-image does to hide the values that used pixels outside the mask."""
    if mask is not None:
        mask = like_input(mask, result, "mask")
        structure = ndi.generate_binary_structure(mask.ndim, mask.ndim)
        mask = ndi.binary_erosion(mask, structure, border_value=0)
        result *= mask
    return result


def _fused_norm(parts, xp):
    """The parts' magnitude tail runs as one C op (fovea._fovea.gradient_norm) on
    these arrays: NumPy or CuPy, float32 / float64, one dtype and shape, at most 8."""
    dt = parts[0].dtype
    return (
        (xp is np or xp is sys.modules.get("cupy"))
        and dt in (np.float32, np.float64)
        and len(parts) <= 8
        and all(type(p) is type(parts[0]) and p.dtype == dt and p.shape == parts[0].shape for p in parts)
    )


def _edge_filter(image, xp, smooth, edge=_EDGE, axis=None, mode="reflect", cval=0.0):
    """The gradient along axis (one axis or several: then the root mean square of
    the per-axis gradients) with edge along it and smooth along the others.

    The magnitude is scikit-image's chain (square each gradient, add them in axis
    order, sqrt, divide by sqrt(ndim) in the image's float type), run as one pass
    over the gradients by fovea._fovea.gradient_norm, which rounds every step as
    NumPy does: the result is the chain's bit for bit."""
    ndim = image.ndim
    if axis is None:
        axes = list(range(ndim))
    elif np.isscalar(axis):
        axes = [axis]
    else:
        axes = axis
    magnitude = len(axes) > 1
    image = as_float_image(image, xp)
    parts = []
    for edge_axis in axes:
        kernel = _along(edge, ndim, edge_axis)
        for smooth_axis in sorted(set(range(ndim)) - {edge_axis}):
            kernel = kernel * _along(smooth, ndim, smooth_axis)
        parts.append(ndi.convolve(image, kernel, mode=mode, cval=cval))
    if not parts:
        return xp.zeros(image.shape, dtype=image.dtype)
    if not magnitude:
        return parts[0]
    dtype = parts[0].dtype
    div = np.sqrt(ndim, dtype=dtype)
    if _fused_norm(parts, xp):
        stream = None if xp is np else xp.cuda.get_current_stream().ptr
        _fovea.gradient_norm(parts, parts[0], float(div), stream=stream)
        return parts[0]
    output = parts[0]
    output *= output
    for res in parts[1:]:
        res *= res
        output += res
    return xp.sqrt(output) / div


def _edge(smooth, edge, image, mask, axis, mode, cval):
    arr, xp, back = prepare(image)
    out = _edge_filter(arr, xp, smooth, edge, axis=axis, mode=mode, cval=cval)
    return back(_mask_result(out, mask, xp))


def _edge_2d(smooth, image, mask, axis):
    arr, xp, back = prepare(image)
    check_nD(arr, 2)
    out = _edge_filter(arr, xp, smooth, axis=axis)
    return back(_mask_result(out, mask, xp))


def sobel(image, mask=None, *, axis=None, mode="reflect", cval=0.0):
    """Sobel edge magnitude (axis None or several axes) or directional gradient
    (one axis) of an n-d image. Integer images are scaled by img_as_float; the
    result is float32 for float32/float16 input, float64 otherwise (CuPy data:
    float32 for bool and 8-/16-bit integers too, as cuCIM). mask: values are
    zeroed outside mask eroded by one pixel."""
    return _edge(_SOBEL_SMOOTH, _EDGE, image, mask, axis, mode, cval)


def sobel_h(image, mask=None):
    """Horizontal edges of a 2-d image (Sobel gradient along axis 0)."""
    return _edge_2d(_SOBEL_SMOOTH, image, mask, 0)


def sobel_v(image, mask=None):
    """Vertical edges of a 2-d image (Sobel gradient along axis 1)."""
    return _edge_2d(_SOBEL_SMOOTH, image, mask, 1)


def scharr(image, mask=None, *, axis=None, mode="reflect", cval=0.0):
    """Scharr edge magnitude or directional gradient (as sobel, Scharr's weights)."""
    return _edge(_SCHARR_SMOOTH, _EDGE, image, mask, axis, mode, cval)


def scharr_h(image, mask=None):
    """Horizontal edges of a 2-d image (Scharr gradient along axis 0)."""
    return _edge_2d(_SCHARR_SMOOTH, image, mask, 0)


def scharr_v(image, mask=None):
    """Vertical edges of a 2-d image (Scharr gradient along axis 1)."""
    return _edge_2d(_SCHARR_SMOOTH, image, mask, 1)


def prewitt(image, mask=None, *, axis=None, mode="reflect", cval=0.0):
    """Prewitt edge magnitude or directional gradient (as sobel, Prewitt's weights)."""
    return _edge(_PREWITT_SMOOTH, _EDGE, image, mask, axis, mode, cval)


def prewitt_h(image, mask=None):
    """Horizontal edges of a 2-d image (Prewitt gradient along axis 0)."""
    return _edge_2d(_PREWITT_SMOOTH, image, mask, 0)


def prewitt_v(image, mask=None):
    """Vertical edges of a 2-d image (Prewitt gradient along axis 1)."""
    return _edge_2d(_PREWITT_SMOOTH, image, mask, 1)


def farid(image, mask=None, *, axis=None, mode="reflect", cval=0.0):
    """Farid edge magnitude or directional gradient (5-tap kernels)."""
    return _edge(_FARID_SMOOTH, _FARID_EDGE, image, mask, axis, mode, cval)


def _convolve_2d(image, weights, mask):
    arr, xp, back = prepare(image)
    check_nD(arr, 2)
    arr = as_float_image(arr, xp)
    out = ndi.convolve(arr, weights)
    return back(_mask_result(out, mask, xp))


def farid_h(image, *, mask=None):
    """Horizontal edges of a 2-d image (Farid's 5x5 kernel, mode 'reflect')."""
    return _convolve_2d(image, _FARID_H, mask)


def farid_v(image, *, mask=None):
    """Vertical edges of a 2-d image (Farid's 5x5 kernel, mode 'reflect')."""
    return _convolve_2d(image, _FARID_V, mask)


def roberts_pos_diag(image, mask=None):
    """Roberts' cross along the positive diagonal of a 2-d image."""
    return _convolve_2d(image, _ROBERTS_PD, mask)


def roberts_neg_diag(image, mask=None):
    """Roberts' cross along the negative diagonal of a 2-d image."""
    return _convolve_2d(image, _ROBERTS_ND, mask)


def roberts(image, mask=None):
    """Roberts' cross edge magnitude of a 2-d image: the root mean square of both
    diagonals."""
    arr, xp, back = prepare(image)
    check_nD(arr, 2)
    pd = roberts_pos_diag(arr, mask)
    nd = roberts_neg_diag(arr, mask)
    out = xp.sqrt(pd**2 + nd**2)
    out /= np.sqrt(2)
    return back(out)


def _laplace_kernel(ndim, ksize):
    # scikit-image builds the kernel through its transfer function on a
    # ksize**ndim grid (which raises for sizes below 3); the kernel itself is the
    # 3**ndim discrete Laplacian whatever ksize is.
    size = operator.index(ksize)
    if size < 0:
        raise ValueError("negative dimensions are not allowed")
    if size < 3:
        raise ValueError(f"could not broadcast input array from shape {(3,) * ndim} into shape {(size,) * ndim}")
    k = np.zeros((3,) * ndim)
    centre = (1,) * ndim
    for ax in range(ndim):
        for pos in (0, 2):
            idx = list(centre)
            idx[ax] = pos
            k[tuple(idx)] = -1.0
    k[centre] = 2.0 * ndim
    return k


def laplace(image, ksize=3, mask=None):
    """Edges by the discrete Laplace operator (2 * ndim at the centre, -1 at each
    face neighbour) of an n-d image; ksize is kept for compatibility (>= 3)."""
    arr, xp, back = prepare(image)
    arr = as_float_image(arr, xp)
    out = ndi.convolve(arr, _laplace_kernel(arr.ndim, ksize))
    return back(_mask_result(out, mask, xp))
