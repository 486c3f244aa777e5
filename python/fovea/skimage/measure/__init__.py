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
from ._moments import (
    centroid,
    inertia_tensor,
    inertia_tensor_eigvals,
    moments,
    moments_central,
    moments_coords,
    moments_coords_central,
    moments_hu,
    moments_normalized,
)
from ._regionprops import regionprops, regionprops_table
from ._regionprops_utils import euler_number, perimeter, perimeter_crofton

__all__ = [
    "approximate_polygon",
    "block_reduce",
    "blur_effect",
    "centroid",
    "euler_number",
    "find_contours",
    "inertia_tensor",
    "inertia_tensor_eigvals",
    "label",
    "moments",
    "moments_central",
    "moments_coords",
    "moments_coords_central",
    "moments_hu",
    "moments_normalized",
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
