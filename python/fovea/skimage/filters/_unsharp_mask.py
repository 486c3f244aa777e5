"""unsharp_mask (skimage.filters._unsharp_mask)."""

from ..._interop import prepare
from .._shared import img_as_float, slice_at_axis, supported_float_type
from ._gaussian import _gaussian

__all__ = ["unsharp_mask"]


def _unsharp_one(image, xp, radius, amount, vrange):
    blurred = _gaussian(image, xp, sigma=radius, mode="reflect")
    result = image + (image - blurred) * amount
    if vrange is not None:
        return xp.clip(result, vrange[0], vrange[1], out=result)
    return result


def unsharp_mask(image, radius=1.0, amount=1.0, preserve_range=False, *, channel_axis=None):
    """Sharpen: image + amount * (image - gaussian(image, radius)), per channel when
    channel_axis is given. Without preserve_range the image goes through
    img_as_float and the result is clipped to [0, 1] ([-1, 1] when it has negative
    values). Returns float32 for float16/float32 input, float64 otherwise (CuPy data:
    float32 for bool and 8-/16-bit integers too, as cuCIM).

    Unlike scikit-image 0.26, a negative channel_axis counts from the end.
    """
    arr, xp, back = prepare(image)
    vrange = None
    float_dtype = supported_float_type(arr)
    if preserve_range:
        fimg = arr.astype(float_dtype, copy=False)
    else:
        fimg = img_as_float(arr, xp).astype(float_dtype, copy=False)
        vrange = [-1.0, 1.0] if bool(xp.any(fimg < 0)) else [0.0, 1.0]
    if channel_axis is None:
        return back(_unsharp_one(fimg, xp, radius, amount, vrange))
    axis = channel_axis % arr.ndim if -arr.ndim <= channel_axis < arr.ndim else channel_axis
    result = xp.empty(fimg.shape, dtype=float_dtype)
    for channel in range(arr.shape[axis]):
        sl = slice_at_axis(channel, axis)
        result[sl] = _unsharp_one(fimg[sl], xp, radius, amount, vrange)
    return back(result)
