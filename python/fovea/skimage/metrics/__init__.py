"""fovea.skimage.metrics: scikit-image 0.26's skimage.metrics.

Image comparison (mean_squared_error, normalized_root_mse,
peak_signal_noise_ratio, structural_similarity, normalized_mutual_information),
segmentation comparison (contingency_table, adapted_rand_error,
variation_of_information) and set distances (hausdorff_distance,
hausdorff_pair). NumPy inputs run on the host (SSIM's filters on every CPU core
through fovea.ndimage); CuPy / CUDA torch inputs run on their GPU. See
docs/skimage-metrics.md."""

from ._segmentation import adapted_rand_error, contingency_table, variation_of_information
from ._set_metrics import hausdorff_distance, hausdorff_pair
from ._simple import mean_squared_error, normalized_mutual_information, normalized_root_mse, peak_signal_noise_ratio
from ._ssim import structural_similarity

__all__ = ["adapted_rand_error", "contingency_table", "hausdorff_distance", "hausdorff_pair", "mean_squared_error",
           "normalized_mutual_information", "normalized_root_mse", "peak_signal_noise_ratio",
           "structural_similarity", "variation_of_information"]

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
