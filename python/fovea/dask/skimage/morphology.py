"""fovea.skimage.morphology's local ops on dask arrays (fovea.dask.skimage):
footprints as arrays or as sequences of (footprint, repeats). (The binary_*
functions, deprecated in scikit-image 0.26, are not repeated here: erosion and the
others take boolean images.)"""

from .._wrap import blockwise_op
from . import _rules as R

_M = "fovea.skimage.morphology"
__all__ = []

_RULES = {
    "erosion": 1, "dilation": 1, "opening": 2, "closing": 2, "white_tophat": 2, "black_tophat": 2,
}

for _name, _k in _RULES.items():
    globals()[_name] = blockwise_op(_M, _name, R.footprint_depth(_k), default_mode="reflect")
    __all__.append(_name)
del _name, _k
