"""fovea.skimage.exposure: scikit-image 0.26's skimage.exposure on fovea's
histogram / min-max / CLAHE kernels (CPU thread pool or CUDA, chosen by where
the data lives). NumPy, CuPy, torch and fovea.Array inputs; results in the
input's type, on its device."""

from ._adapthist import equalize_adapthist
from ._exposure import (adjust_gamma, adjust_log, adjust_sigmoid, cumulative_distribution, equalize_hist,
                        histogram, intensity_range, is_low_contrast, rescale_intensity)
from ._match import match_histograms

__all__ = ["histogram", "cumulative_distribution", "equalize_hist", "equalize_adapthist", "rescale_intensity",
           "adjust_gamma", "adjust_log", "adjust_sigmoid", "is_low_contrast", "match_histograms",
           "intensity_range"]

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
