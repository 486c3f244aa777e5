"""scikit-image's measure module (0.26 API) on fovea's kernels: ``label``
(connected components in C on all CPU cores or in CUDA), ``find_contours``
(marching squares in C), ``block_reduce``, ``profile_line``,
``shannon_entropy``, ``blur_effect``, ``approximate_polygon`` and
``subdivide_polygon``."""

from ._find_contours import find_contours
from ._label import label
from ._misc import block_reduce, blur_effect, profile_line, shannon_entropy
from ._polygon import approximate_polygon, subdivide_polygon

__all__ = ["label", "find_contours", "block_reduce", "blur_effect", "profile_line", "shannon_entropy",
           "approximate_polygon", "subdivide_polygon"]
