"""correlate_sparse (skimage.filters._sparse)."""

import numpy as np

from ... import ndimage as ndi
from ..._interop import host, prepare
from .._shared import supported_float_type

__all__ = ["correlate_sparse"]

# the names correlate_sparse accepts (scipy.ndimage's, or numpy.pad's) -> the
# scipy.ndimage mode that pads the same way
_NDIMAGE_MODE = {
    "reflect": "reflect",
    "symmetric": "reflect",
    "mirror": "mirror",
    "nearest": "nearest",
    "edge": "nearest",
    "wrap": "wrap",
    "constant": "constant",
}


def _check_odd(shape):
    for size in shape:
        if size % 2 == 0:
            raise ValueError(
                "Window size for `threshold_sauvola` or `threshold_niblack` must not be even on any "
                f"dimension. Got {shape}"
            )


def _shifted_sum(padded, kernel, dtype, xp):
    """scikit-image's own algorithm: the sum of shifted views of the padded image,
    one per nonzero kernel value (used for numpy.pad modes ndimage lacks)."""
    out_shape = tuple(s - k + 1 for s, k in zip(padded.shape, kernel.shape))
    out = xp.zeros(out_shape, dtype=dtype)
    for idx in zip(*np.nonzero(kernel)):
        view = padded[tuple(slice(i, i + n) for i, n in zip(idx, out_shape))]
        val = kernel[idx].astype(dtype)
        out += view if val == 1 else val * view
    return out


def correlate_sparse(image, kernel, mode="reflect"):
    """Correlation of image with a (mostly zero) kernel, as
    scipy.ndimage.correlate with the image padded by mode: 'valid' (no padding:
    the result is smaller by kernel.shape - 1), an ndimage mode ('reflect',
    'mirror', 'nearest', 'wrap', 'constant' with 0) or a numpy.pad mode. Outside
    'valid' the kernel's sides must be odd. The result is float32 for
    float16/float32 images, float64 otherwise (CuPy data: float32 for bool and
    8-/16-bit integers too, as cuCIM)."""
    arr, xp, back = prepare(image)
    kernel = host(kernel)
    float_dtype = supported_float_type(arr)
    arr = arr.astype(float_dtype, copy=False)
    weights = kernel.astype(np.float64)
    if mode == "valid":
        origin = [-(k // 2) for k in kernel.shape]  # window starts at the output pixel
        out_shape = tuple(s - k + 1 for s, k in zip(arr.shape, kernel.shape))
        if any(n <= 0 for n in out_shape):
            return back(xp.zeros(tuple(max(n, 0) for n in out_shape), dtype=float_dtype))
        full = ndi.correlate(arr, weights, mode="constant", cval=0.0, origin=origin)
        return back(full[tuple(slice(0, n) for n in out_shape)])
    _check_odd(kernel.shape)
    nd_mode = _NDIMAGE_MODE.get(mode)
    if nd_mode is not None:
        return back(ndi.correlate(arr, weights, mode=nd_mode, cval=0.0))
    pad = [(k // 2, k // 2) for k in kernel.shape]
    return back(_shifted_sum(xp.pad(arr, pad, mode=mode), kernel, float_dtype, xp))
