"""scikit-image's ``skimage.transform`` on fovea (scikit-image 0.26 signatures):
resizing, rotation, warps, pyramids, integral images and the homogeneous-matrix
transform classes.

The resampling runs through fovea.ndimage (zoom, gaussian_filter,
map_coordinates: C on all CPU cores for NumPy input, CUDA for CuPy / CUDA torch
input); the transform classes are small NumPy matrix maths on the host.
"""

from ._geometric import AffineTransform, EuclideanTransform, ProjectiveTransform, SimilarityTransform
from ._warps import downscale_local_mean, rescale, resize, rotate, warp, warp_coords
from .integral import integral_image, integrate
from .pyramids import pyramid_expand, pyramid_gaussian, pyramid_laplacian, pyramid_reduce


__all__ = [
    "AffineTransform",
    "EuclideanTransform",
    "ProjectiveTransform",
    "SimilarityTransform",
    "downscale_local_mean",
    "integral_image",
    "integrate",
    "pyramid_expand",
    "pyramid_gaussian",
    "pyramid_laplacian",
    "pyramid_reduce",
    "rescale",
    "resize",
    "rotate",
    "warp",
    "warp_coords",
]

# Hough and Radon transforms (issue 28)
from ._hough import hough_circle, hough_circle_peaks, hough_line, hough_line_peaks, probabilistic_hough_line
from ._radon import iradon, iradon_sart, order_angles_golden_ratio, radon

__all__ += [
    "hough_circle",
    "hough_circle_peaks",
    "hough_line",
    "hough_line_peaks",
    "iradon",
    "iradon_sart",
    "order_angles_golden_ratio",
    "probabilistic_hough_line",
    "radon",
]
