"""scikit-image's segmentation clean-up functions (0.26 API) on fovea:
clear_border, relabel_sequential, find_boundaries, mark_boundaries,
expand_labels, join_segmentations and watershed (fovea's C / CUDA
kernel, fv_watershed). Labelling runs in fovea's C / CUDA
kernel (fovea.skimage.measure.label), the morphology through
fovea.skimage.morphology, distances through fovea.ndimage; the rest is
NumPy or CuPy array code on the data's own device."""

from ._clear_border import clear_border
from ._expand_labels import expand_labels
from ._join import ArrayMap, join_segmentations, relabel_sequential
from .boundaries import find_boundaries, mark_boundaries
from ._watershed import watershed

__all__ = [
    "ArrayMap",
    "clear_border",
    "expand_labels",
    "find_boundaries",
    "join_segmentations",
    "mark_boundaries",
    "relabel_sequential",
    "watershed",
]
