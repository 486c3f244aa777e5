"""fovea.skimage.color's conversions on dask arrays: point-wise over the channel
axis, which is kept in one chunk; conversions that drop or add the channel axis
(rgb2gray, gray2rgb) drop or add it in the dask array too."""

import functools
import importlib

from .. import _core
from .._wrap import bind_image, signature_of

_M = "fovea.skimage.color"
_NAMES = ("rgb2gray", "rgb2hsv", "hsv2rgb", "rgb2hed", "hed2rgb", "rgb2xyz", "xyz2rgb", "rgb2lab", "lab2rgb",
          "xyz2lab", "lab2xyz", "rgb2luv", "luv2rgb", "xyz2luv", "luv2xyz", "lab2lch", "lch2lab",
          "rgb2rgbcie", "rgbcie2rgb", "rgb2yuv", "yuv2rgb", "rgb2yiq", "yiq2rgb", "rgb2ypbpr", "ypbpr2rgb",
          "rgb2ycbcr", "ycbcr2rgb", "rgb2ydbdr", "ydbdr2rgb", "rgba2rgb", "gray2rgb", "gray2rgba",
          "separate_stains", "combine_stains", "convert_colorspace")
__all__ = list(_NAMES)


def _apply(name, kw, block):
    return getattr(importlib.import_module(_M), name)(block, **kw)


def _pointwise(name):
    fn, sig, first = signature_of(_M, name)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        x, a = bind_image(sig, first, args, kwargs)
        ca = a.get("channel_axis", -1)
        adds = name in ("gray2rgb", "gray2rgba")
        if not adds:
            x = x.rechunk({ca % x.ndim: -1})
        block = functools.partial(_apply, name, a)
        meta = _core.output_meta(block, [x], [0] * x.ndim)
        if meta.ndim == x.ndim:
            return x.map_blocks(block, dtype=meta.dtype, meta=meta)
        if meta.ndim == x.ndim - 1:
            return x.map_blocks(block, drop_axis=ca % x.ndim, dtype=meta.dtype, meta=meta)
        n = 3 if name == "gray2rgb" else 4
        pos = ca % (x.ndim + 1)
        return x.map_blocks(block, new_axis=pos, chunks=x.chunks[:pos] + ((n,),) + x.chunks[pos:],
                            dtype=meta.dtype, meta=meta)

    wrapper.__doc__ = f"{name} on a dask array, point-wise per block (the channel axis in one chunk)."
    return wrapper


for _name in _NAMES:
    globals()[_name] = _pointwise(_name)
del _name
__all__ = sorted(__all__)
