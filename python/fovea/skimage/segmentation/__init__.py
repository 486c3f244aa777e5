"""scikit-image's segmentation clean-up functions (0.26 API) on fovea:
clear_border, relabel_sequential, find_boundaries, mark_boundaries,
expand_labels, join_segmentations and watershed (fovea's C / CUDA
kernel, fv_watershed); the active contours chan_vese,
morphological_chan_vese, morphological_geodesic_active_contour (with
inverse_gaussian_gradient, checkerboard_level_set, disk_level_set) and
random_walker; the superpixels slic (fovea's C / CUDA kernel, fv_slic),
felzenszwalb and quickshift (C kernels on the CPU) and the snake
active_contour (NumPy / SciPy on the host). Labelling runs in fovea's C / CUDA
kernel (fovea.skimage.measure.label), the morphology through
fovea.skimage.morphology, distances through fovea.ndimage; the rest is
NumPy or CuPy array code on the data's own device."""

from ._chan_vese import chan_vese
from ._clear_border import clear_border
from ._expand_labels import expand_labels
from ._join import ArrayMap, join_segmentations, relabel_sequential
from .boundaries import find_boundaries, mark_boundaries
from ._random_walker import random_walker
from ._watershed import watershed
from ..morphology import flood, flood_fill
from ._superpixels import felzenszwalb, quickshift, slic
from ._active_contour import active_contour
from ._morphsnakes import (
    checkerboard_level_set,
    disk_level_set,
    inverse_gaussian_gradient,
    morphological_chan_vese,
    morphological_geodesic_active_contour,
)

__all__ = [
    "ArrayMap",
    "active_contour",
    "chan_vese",
    "checkerboard_level_set",
    "clear_border",
    "disk_level_set",
    "inverse_gaussian_gradient",
    "morphological_chan_vese",
    "morphological_geodesic_active_contour",
    "expand_labels",
    "felzenszwalb",
    "find_boundaries",
    "flood",
    "flood_fill",
    "join_segmentations",
    "mark_boundaries",
    "quickshift",
    "random_walker",
    "relabel_sequential",
    "slic",
    "watershed",
]

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
