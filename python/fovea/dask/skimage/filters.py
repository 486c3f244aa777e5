"""fovea.skimage.filters' local filters on dask arrays (fovea.dask.skimage).
Not here: unsharp_mask (it clips to a range chosen from the whole image), the
ridge filters (normalised by the whole image's maximum) and the thresholds (see
fovea.dask.threshold_otsu and the other histogram thresholds)."""

from .._wrap import blockwise_op
from . import _rules as R

_M = "fovea.skimage.filters"
__all__ = []


def _dog(ndim, a):
    hi = a.get("high_sigma")
    if hi is None:
        lo = a["low_sigma"]
        import numpy as np
        hi = np.asarray(lo, dtype=float) * 1.6
    return R.gauss_depth(ndim, {**a, "sigma": hi})


def _local(ndim, a):
    bs = int(a["block_size"])
    return [max(bs // 2, int(4.0 * (bs - 1) / 6.0 + 0.5)) + 1] * ndim


_RULES = {
    "gaussian": (R.gauss_depth, "nearest"),
    "difference_of_gaussians": (_dog, "nearest"),
    "median": (R.footprint_depth(), "nearest"),
    "sobel": (R.const(1), "reflect"), "sobel_h": (R.const(1), "reflect"), "sobel_v": (R.const(1), "reflect"),
    "scharr": (R.const(1), "reflect"), "scharr_h": (R.const(1), "reflect"), "scharr_v": (R.const(1), "reflect"),
    "prewitt": (R.const(1), "reflect"), "prewitt_h": (R.const(1), "reflect"),
    "prewitt_v": (R.const(1), "reflect"),
    "farid": (R.const(2), "reflect"), "farid_h": (R.const(2), "reflect"), "farid_v": (R.const(2), "reflect"),
    "roberts": (R.const(1), "reflect"), "roberts_pos_diag": (R.const(1), "reflect"),
    "roberts_neg_diag": (R.const(1), "reflect"),
    "laplace": (lambda ndim, a: [int(a.get("ksize", 3)) // 2] * ndim, "reflect"),
    "threshold_local": (_local, "reflect"),
}

for _name, (_rule, _mode) in _RULES.items():
    globals()[_name] = blockwise_op(_M, _name, _rule, arrays=("mask",), default_mode=_mode,
                                    channel_axis_arg="channel_axis")
    __all__.append(_name)
del _name, _rule, _mode
