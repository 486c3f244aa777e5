"""fovea.skimage.exposure on dask arrays: the point-wise adjustments blockwise,
rescale_intensity with the whole array's range when it is asked for."""

import dask

from .._wrap import blockwise_op
from .. import _core

_M = "fovea.skimage.exposure"
__all__ = ["adjust_gamma", "adjust_log", "adjust_sigmoid", "rescale_intensity"]

_zero = (lambda ndim, a: [0] * ndim)
adjust_gamma = blockwise_op(_M, "adjust_gamma", _zero, mode_arg=None)
adjust_log = blockwise_op(_M, "adjust_log", _zero, mode_arg=None)
adjust_sigmoid = blockwise_op(_M, "adjust_sigmoid", _zero, mode_arg=None)
_rescale = blockwise_op(_M, "rescale_intensity", _zero, mode_arg=None)


def rescale_intensity(image, in_range="image", out_range="dtype"):
    """skimage.exposure.rescale_intensity of a dask array: 'image' ranges are the
    whole array's minimum and maximum (computed first), then the rescaling runs
    blockwise. Equal to the whole-array call."""
    x = _core.as_dask(image)
    if (isinstance(in_range, str) and in_range == "image") or (isinstance(out_range, str) and out_range == "image"):
        lo, hi = dask.compute(x.min(), x.max())
        lo, hi = _num(lo), _num(hi)
        if isinstance(in_range, str) and in_range == "image":
            in_range = (lo, hi)
        if isinstance(out_range, str) and out_range == "image":
            out_range = (lo, hi)
    return _rescale(x, in_range=in_range, out_range=out_range)


def _num(v):
    return _core.host(v)[()]
