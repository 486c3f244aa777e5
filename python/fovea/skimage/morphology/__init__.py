"""scikit-image's morphology module (0.26 API) on fovea's CPU and CUDA kernels.

Replace ``from skimage import morphology`` (or ``cucim.skimage.morphology``) by
``from fovea.skimage import morphology``: the same functions and signatures,
the same results, for NumPy arrays (CPU) and CuPy arrays or PyTorch CUDA
tensors (GPU); the result has the input's array type. Footprint generators
return NumPy arrays as scikit-image's do.
"""

from .convex_hull import convex_hull_image, convex_hull_object
from .binary import binary_closing, binary_dilation, binary_erosion, binary_opening
from .extrema import h_maxima, h_minima, local_maxima, local_minima
from .footprints import (
    ball,
    cube,
    diamond,
    disk,
    ellipse,
    footprint_from_sequence,
    footprint_rectangle,
    mirror_footprint,
    octagon,
    octahedron,
    pad_footprint,
    rectangle,
    square,
    star,
)
from .gray import black_tophat, closing, dilation, erosion, opening, white_tophat
from .grayreconstruct import reconstruction
from .misc import remove_objects_by_distance, remove_small_holes, remove_small_objects
from .isotropic import isotropic_closing, isotropic_dilation, isotropic_erosion, isotropic_opening
from ._skeletonize import medial_axis, skeletonize, thin
from ._flood_fill import flood, flood_fill
from .max_tree import (
    area_closing,
    area_opening,
    diameter_closing,
    diameter_opening,
    max_tree,
    max_tree_local_maxima,
)
from ..measure._label import label

__all__ = [
    "area_closing",
    "area_opening",
    "ball",
    "binary_closing",
    "binary_dilation",
    "binary_erosion",
    "binary_opening",
    "black_tophat",
    "closing",
    "convex_hull_image",
    "convex_hull_object",
    "cube",
    "diameter_closing",
    "diameter_opening",
    "diamond",
    "dilation",
    "disk",
    "ellipse",
    "erosion",
    "flood",
    "flood_fill",
    "footprint_from_sequence",
    "footprint_rectangle",
    "h_maxima",
    "h_minima",
    "isotropic_closing",
    "isotropic_dilation",
    "isotropic_erosion",
    "isotropic_opening",
    "label",
    "local_maxima",
    "local_minima",
    "max_tree",
    "max_tree_local_maxima",
    "medial_axis",
    "mirror_footprint",
    "octagon",
    "octahedron",
    "opening",
    "pad_footprint",
    "reconstruction",
    "rectangle",
    "remove_objects_by_distance",
    "remove_small_holes",
    "remove_small_objects",
    "skeletonize",
    "square",
    "star",
    "thin",
    "white_tophat",
]

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
