"""scikit-image's ``skimage.filters`` on fovea (scikit-image 0.26 signatures).

Every filter runs through fovea.ndimage (C on all CPU cores for NumPy input,
CUDA for CuPy / CUDA torch input); the light elementwise steps run in NumPy or
CuPy on the same device. Results have the input's array type and match
scikit-image's (see docs/skimage.md for the few differences).
"""

from ._gabor import gabor, gabor_kernel
from ._gaussian import difference_of_gaussians, gaussian
from ._median import median
from ._rank_order import rank_order
from ._sparse import correlate_sparse
from ._unsharp_mask import unsharp_mask
from ._fft_based import butterworth
from .lpi_filter import LPIFilter2D, filter_forward, filter_inverse, wiener
from ._window import window
from .edges import (
    farid,
    farid_h,
    farid_v,
    laplace,
    prewitt,
    prewitt_h,
    prewitt_v,
    roberts,
    roberts_neg_diag,
    roberts_pos_diag,
    scharr,
    scharr_h,
    scharr_v,
    sobel,
    sobel_h,
    sobel_v,
)
from .ridges import frangi, hessian, meijering, sato
from .thresholding import (
    apply_hysteresis_threshold,
    threshold_isodata,
    threshold_li,
    threshold_local,
    threshold_mean,
    threshold_minimum,
    threshold_multiotsu,
    threshold_niblack,
    threshold_otsu,
    threshold_sauvola,
    threshold_triangle,
    threshold_yen,
)

__all__ = [
    "LPIFilter2D",
    "butterworth",
    "filter_forward",
    "filter_inverse",
    "wiener",
    "apply_hysteresis_threshold",
    "threshold_isodata",
    "threshold_li",
    "threshold_local",
    "threshold_mean",
    "threshold_minimum",
    "threshold_multiotsu",
    "threshold_niblack",
    "threshold_otsu",
    "threshold_sauvola",
    "threshold_triangle",
    "threshold_yen",
    "correlate_sparse",
    "difference_of_gaussians",
    "farid",
    "farid_h",
    "farid_v",
    "frangi",
    "gabor",
    "gabor_kernel",
    "gaussian",
    "hessian",
    "laplace",
    "median",
    "meijering",
    "prewitt",
    "prewitt_h",
    "prewitt_v",
    "rank_order",
    "roberts",
    "roberts_neg_diag",
    "roberts_pos_diag",
    "sato",
    "scharr",
    "scharr_h",
    "scharr_v",
    "sobel",
    "sobel_h",
    "sobel_v",
    "unsharp_mask",
    "window",
]

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
