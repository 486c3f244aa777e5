"""skimage.exposure.equalize_adapthist (CLAHE, scikit-image 0.26): the
conversion to 14-bit levels here, the contextual-region histograms, clipping,
mapping and interpolation in fovea's C kernel (fv_clahe, CPU or CUDA), the
final rescale here. n-d."""

import numbers

import numpy as np

from ... import _fovea
from ... import _interop as ix
from ._exposure import _rescale_xp
from ._hist import supported_float_type, xp_of

__all__ = ["equalize_adapthist"]

NR_OF_GRAY = 2**14


def _img_as_uint(image, xp):
    """skimage.util.img_as_uint for the dtypes whose conversion is a plain
    scaling (float, bool, uint8, uint16); other integers keep their order
    through a monotone scaling, which the min / max rescale that follows
    undoes up to rounding."""
    dt = image.dtype
    if dt == np.uint16:
        return image
    if dt == bool:
        return image.astype(np.uint16) * np.uint16(65535)
    if dt.kind == "f":
        lo, hi = float(image.min()), float(image.max())
        if lo < -1.0 or hi > 1.0:
            raise ValueError("Images of type float must be between -1 and 1.")
        out = xp.multiply(image, 65535, dtype=dt if dt.itemsize >= 2 else np.float32)
        xp.rint(out, out=out)
        xp.clip(out, 0, 65535, out=out)
        return out.astype(np.uint16)
    if dt == np.uint8:
        return image.astype(np.uint16) * np.uint16(257)
    if dt.kind == "i":
        image = xp.maximum(image, 0)
    return image.astype(np.float64)


def equalize_adapthist(image, kernel_size=None, clip_limit=0.01, nbins=256):
    """Contrast Limited Adaptive Histogram Equalization over contextual regions
    of kernel_size (default: 1/8 of each extent), clip_limit in [0, 1], nbins
    grey bins. Returns float32 for float16/32 input, else float64 (CuPy data: float32 for
    8-/16-bit integers too, as cuCIM), in [0, 1].

    An RGB(A)-like image (3-d with 3 or 4 samples last, scikit-image's
    ``adapt_rgb(hsv_value)``) is equalized on its HSV value: rgb2hsv of the
    first three channels, CLAHE of V, hsv2rgb."""
    img, _, back = ix.prepare(image)
    if img.ndim == 3 and img.shape[-1] in (3, 4):
        from ..color import hsv2rgb, rgb2hsv
        hsv = rgb2hsv(img[:, :, :3])
        value = _equalize_adapthist(hsv[:, :, 2].copy(), kernel_size, clip_limit, nbins)
        hsv[:, :, 2] = value.astype(hsv.dtype, copy=False)
        return back(hsv2rgb(hsv))
    return back(_equalize_adapthist(img, kernel_size, clip_limit, nbins))


def _equalize_adapthist(image, kernel_size, clip_limit, nbins):
    img, _, back = ix.prepare(image)
    xp = xp_of(img)
    float_dtype = supported_float_type(img)
    u = _img_as_uint(img, xp)
    u = xp.round(_rescale_xp(u, out_range=(0, NR_OF_GRAY - 1))).astype(np.uint16)
    if kernel_size is None:
        kernel_size = tuple(max(s // 8, 1) for s in u.shape)
    elif isinstance(kernel_size, numbers.Number):
        kernel_size = (kernel_size,) * u.ndim
    elif len(kernel_size) != u.ndim:
        raise ValueError(f"Incorrect value of `kernel_size`: {kernel_size}")
    kernel_size = [int(k) for k in kernel_size]
    u = xp.ascontiguousarray(u)
    res = _fovea.exp_clahe(u, kernel_size, float(clip_limit), int(nbins), ix.stream_of(u))
    out = ix.wrap(res, u).astype(float_dtype, copy=False)
    return back(_rescale_xp(out))
