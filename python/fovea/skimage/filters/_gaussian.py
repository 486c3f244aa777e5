"""gaussian and difference_of_gaussians (skimage.filters._gaussian)."""

from collections.abc import Iterable

import numpy as np

from ... import ndimage as ndi
from ..._interop import inner, prepare
from .._shared import convert_to_float, img_as_float, supported_float_type

__all__ = ["gaussian", "difference_of_gaussians"]


def _gaussian(image, xp, sigma=1.0, *, mode="nearest", cval=0, preserve_range=False, truncate=4.0,
              channel_axis=None, out=None):
    """gaussian on a NumPy/CuPy array (out, if any, already of the same library)."""
    if np.any(np.asarray(sigma) < 0.0):
        raise ValueError("Sigma values less than zero are not valid")
    if channel_axis is not None:
        # no blurring across channels: sigma 0 on the channel axis
        if not isinstance(sigma, Iterable):
            sigma = [sigma] * (image.ndim - 1)
        if len(sigma) == image.ndim - 1:
            sigma = list(sigma)
            sigma.insert(channel_axis % image.ndim, 0)
    image = convert_to_float(image, preserve_range, xp)
    image = image.astype(supported_float_type(image), copy=False)
    if out is not None and not np.issubdtype(out.dtype, np.floating):
        raise ValueError(f"dtype of `out` must be float; got {out.dtype!r}.")
    return ndi.gaussian_filter(image, sigma, output=out, mode=mode, cval=cval, truncate=truncate)


def gaussian(image, sigma=1.0, *, mode="nearest", cval=0, preserve_range=False, truncate=4.0, channel_axis=None,
             out=None):
    """Multi-dimensional Gaussian filter (skimage.filters.gaussian).

    image: array of any real dtype; integers are scaled by ``img_as_float`` unless
    preserve_range. sigma: scalar or one per axis (per spatial axis with
    channel_axis, which is then not blurred). mode, cval, truncate: as
    scipy.ndimage.gaussian_filter. out: optional float array of image's shape
    and array type to write into. Returns a float32 array for float16/float32
    input, float64 otherwise (CuPy data: float32 for bool and 8-/16-bit integers too,
    as cuCIM), of image's array type.
    """
    arr, xp, back = prepare(image)
    out_arr = inner(out, arr)
    res = _gaussian(arr, xp, sigma, mode=mode, cval=cval, preserve_range=preserve_range, truncate=truncate,
                    channel_axis=channel_axis, out=out_arr)
    if out is not None and res is out_arr:
        return out
    return back(res)


def difference_of_gaussians(image, low_sigma, high_sigma=None, *, mode="nearest", cval=0, channel_axis=None,
                            truncate=4.0):
    """Band-pass filter: gaussian(low_sigma) - gaussian(high_sigma)
    (skimage.filters.difference_of_gaussians). high_sigma defaults to 1.6 * low_sigma
    and must not be smaller than low_sigma on any axis."""
    arr, xp, back = prepare(image)
    arr = img_as_float(arr, xp)
    low_sigma = np.array(low_sigma, dtype="float", ndmin=1)
    if high_sigma is None:
        high_sigma = low_sigma * 1.6
    else:
        high_sigma = np.array(high_sigma, dtype="float", ndmin=1)
    spatial_dims = arr.ndim - 1 if channel_axis is not None else arr.ndim
    if len(low_sigma) != 1 and len(low_sigma) != spatial_dims:
        raise ValueError("low_sigma must have length equal to number of spatial dimensions of input")
    if len(high_sigma) != 1 and len(high_sigma) != spatial_dims:
        raise ValueError("high_sigma must have length equal to number of spatial dimensions of input")
    low_sigma = low_sigma * np.ones(spatial_dims)
    high_sigma = high_sigma * np.ones(spatial_dims)
    if any(high_sigma < low_sigma):
        raise ValueError("high_sigma must be equal to or larger than low_sigma for all axes")
    kw = dict(mode=mode, cval=cval, channel_axis=channel_axis, truncate=truncate, preserve_range=False)
    im1 = _gaussian(arr, xp, sigma=low_sigma, **kw)
    im2 = _gaussian(arr, xp, sigma=high_sigma, **kw)
    im1 -= im2
    return back(im1)
