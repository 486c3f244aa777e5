"""scikit-image's measure module (0.26 API) on fovea's kernels: ``label``
(connected-component labelling in C on all CPU cores or in CUDA),
``regionprops`` / ``regionprops_table`` (every label's statistics in one pass
of the fv_region_stats kernel, the properties derived in batch), the moment
functions, ``perimeter``, ``perimeter_crofton`` and ``euler_number``,
``find_contours`` (marching squares in C), ``block_reduce``, ``profile_line``,
``shannon_entropy``, ``blur_effect``, ``approximate_polygon`` and
``subdivide_polygon``."""

from ._find_contours import find_contours
from ._label import label
from ._misc import block_reduce, blur_effect, profile_line, shannon_entropy
from ._polygon import approximate_polygon, subdivide_polygon
from ._moments import *  # noqa: F403  (centroid, inertia_tensor*, moments*)
from ._moments import __all__ as _moments_all
from ._regionprops import regionprops, regionprops_table
from ._regionprops_utils import euler_number, perimeter, perimeter_crofton

__all__ = [
    *_moments_all,
    "approximate_polygon",
    "block_reduce",
    "blur_effect",
    "euler_number",
    "find_contours",
    "label",
    "perimeter",
    "perimeter_crofton",
    "profile_line",
    "regionprops",
    "regionprops_table",
    "shannon_entropy",
    "subdivide_polygon",
]

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
