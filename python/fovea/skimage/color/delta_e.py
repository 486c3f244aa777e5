"""skimage.color's colour differences on fovea: one C pass per call
(fv_color_delta_e), computed in float64 and returned in the inputs' common
float type (float32 stays float32, as scikit-image)."""

import numpy as np

from ... import _fovea
from ..._interop import like_input, prepare
from .._shared import supported_float_type
from ... import _interop as ix
from .colorconv import DELTAE_CIE76, DELTAE_CIEDE94, DELTAE_CIEDE2000, DELTAE_CMC

__all__ = ["deltaE_cie76", "deltaE_ciede94", "deltaE_ciede2000", "deltaE_cmc"]


def _delta_e(conv, lab1, lab2, k, channel_axis, unroll=False, one_pixel_f64=False):
    a, xp, back = prepare(lab1)
    if isinstance(lab2, (list, tuple, int, float)):  # a colour given as numbers
        b = xp.asarray(lab2)
    else:
        b = xp.asarray(like_input(lab2, a, "lab2"))
    dt = supported_float_type((a, b))
    a = a.astype(dt, copy=False)
    b = b.astype(dt, copy=False)
    one_pixel = unroll and a.ndim == 1 and b.ndim == 1
    if unroll:  # scikit-image's ciede2000 normalises the axis with lab1's ndim for both
        channel_axis = channel_axis % a.ndim
    a = xp.moveaxis(a, channel_axis, -1)
    b = xp.moveaxis(b, channel_axis, -1)
    if a.shape[-1] < 3 or b.shape[-1] < 3:
        raise ValueError(f"not enough values to unpack (expected 3, got {min(a.shape[-1], b.shape[-1])})")
    shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    a = xp.broadcast_to(a[..., :3], shape + (3,))
    b = xp.broadcast_to(b[..., :3], shape + (3,))
    out_dt = np.dtype(dt)
    if one_pixel_f64 and len(shape) == 0:
        out_dt = np.dtype(np.float64)  # scikit-image's deltaE_cmc promotes a single pixel to float64
    res = _fovea.color_convert(a, conv, out_dt.name, -1, input2=b, k=k, stream=ix.stream_of(a))
    res = ix.wrap(res, a)
    if res.ndim == 0 and xp is np:
        res = res[()]
    elif one_pixel:
        res = res[()]
    return back(res)


def deltaE_cie76(lab1, lab2, channel_axis=-1):
    """Euclidean distance between two Lab colours, as skimage.color.deltaE_cie76."""
    return _delta_e(DELTAE_CIE76, lab1, lab2, None, channel_axis)


def deltaE_ciede94(lab1, lab2, kH=1, kC=1, kL=1, k1=0.045, k2=0.015, *, channel_axis=-1):
    """CIE 1994 colour difference (lab1 the reference), as skimage.color.deltaE_ciede94."""
    return _delta_e(DELTAE_CIEDE94, lab1, lab2, (kH, kC, kL, k1, k2), channel_axis)


def deltaE_ciede2000(lab1, lab2, kL=1, kC=1, kH=1, *, channel_axis=-1):
    """CIEDE 2000 colour difference, as skimage.color.deltaE_ciede2000."""
    return _delta_e(DELTAE_CIEDE2000, lab1, lab2, (kL, kC, kH), channel_axis, unroll=True)


def deltaE_cmc(lab1, lab2, kL=1, kC=1, *, channel_axis=-1):
    """CMC l:c colour difference, as skimage.color.deltaE_cmc."""
    return _delta_e(DELTAE_CMC, lab1, lab2, (kL, kC), channel_axis, one_pixel_f64=True)
