"""scikit-image's ``skimage.transform`` on fovea (scikit-image 0.26 signatures):
resizing (spline and local-mean), rotation, warps (swirl, polar), pyramids,
integral images and the geometric transform classes.

The resampling runs through fovea.ndimage (zoom, gaussian_filter,
map_coordinates) and the op RESIZE_MEAN (C on all CPU cores for NumPy input,
CUDA for CuPy / CUDA torch input); the transform classes are small NumPy
matrix maths on the host.
"""

from ._geometric import (AffineTransform, EuclideanTransform, ProjectiveTransform, SimilarityTransform,
                         matrix_transform)
from ._epipolar import EssentialMatrixTransform, FundamentalMatrixTransform
from ._nonlinear import PiecewiseAffineTransform, PolynomialTransform, estimate_transform
from ._thin_plate_splines import ThinPlateSplineTransform
from ._warps import (downscale_local_mean, rescale, resize, resize_local_mean, rotate, swirl, warp, warp_coords,
                     warp_polar)
from .integral import integral_image, integrate
from .pyramids import pyramid_expand, pyramid_gaussian, pyramid_laplacian, pyramid_reduce


__all__ = [
    "AffineTransform",
    "EssentialMatrixTransform",
    "EuclideanTransform",
    "FundamentalMatrixTransform",
    "PiecewiseAffineTransform",
    "PolynomialTransform",
    "ProjectiveTransform",
    "SimilarityTransform",
    "ThinPlateSplineTransform",
    "downscale_local_mean",
    "estimate_transform",
    "integral_image",
    "integrate",
    "matrix_transform",
    "pyramid_expand",
    "pyramid_gaussian",
    "pyramid_laplacian",
    "pyramid_reduce",
    "rescale",
    "resize",
    "resize_local_mean",
    "rotate",
    "swirl",
    "warp",
    "warp_coords",
    "warp_polar",
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

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
