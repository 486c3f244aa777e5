"""fovea.ndimage: scipy.ndimage's filters, morphology and interpolation on the CPU and the GPU.

    from fovea import ndimage as ndi      # instead of: from scipy import ndimage as ndi
    smooth = ndi.gaussian_filter(image, sigma=2)

Signatures, defaults, results, dtypes and exception types follow scipy.ndimage
1.17. NumPy arrays are processed on all CPU cores; CuPy arrays and torch CUDA
tensors on their GPU (nothing moves between host and device); the result has the
input's array type (NumPy, CuPy, torch, fovea.Array), or is the ``output`` array
you passed. Functions that do elementwise steps between passes (gradient
magnitudes, Laplacians, hit-or-miss, hole filling, top-hats, ...) use CuPy for
GPU data. See docs/ndimage.md for what is supported and how it differs.
"""

from ._filters import (
    convolve,
    convolve1d,
    correlate,
    correlate1d,
    gaussian_filter,
    gaussian_filter1d,
    gaussian_gradient_magnitude,
    gaussian_laplace,
    generic_gradient_magnitude,
    generic_laplace,
    laplace,
    maximum_filter,
    maximum_filter1d,
    median_filter,
    minimum_filter,
    minimum_filter1d,
    percentile_filter,
    prewitt,
    rank_filter,
    sobel,
    uniform_filter,
    uniform_filter1d,
)
from ._fourier import fourier_ellipsoid, fourier_gaussian, fourier_shift, fourier_uniform
from ._interpolation import (
    affine_transform,
    geometric_transform,
    map_coordinates,
    rotate,
    shift,
    spline_filter,
    spline_filter1d,
    zoom,
)
from ._measurements import label
from ._morphology import (
    binary_closing,
    binary_dilation,
    binary_erosion,
    binary_fill_holes,
    binary_hit_or_miss,
    binary_opening,
    binary_propagation,
    black_tophat,
    distance_transform_cdt,
    distance_transform_edt,
    generate_binary_structure,
    grey_closing,
    grey_dilation,
    grey_erosion,
    grey_opening,
    iterate_structure,
    morphological_gradient,
    morphological_laplace,
    white_tophat,
)

__all__ = [
    "affine_transform",
    "binary_closing",
    "binary_dilation",
    "binary_erosion",
    "binary_fill_holes",
    "binary_hit_or_miss",
    "binary_opening",
    "binary_propagation",
    "black_tophat",
    "convolve",
    "convolve1d",
    "correlate",
    "correlate1d",
    "distance_transform_cdt",
    "distance_transform_edt",
    "fourier_ellipsoid",
    "fourier_gaussian",
    "fourier_shift",
    "fourier_uniform",
    "gaussian_filter",
    "gaussian_filter1d",
    "gaussian_gradient_magnitude",
    "gaussian_laplace",
    "generate_binary_structure",
    "generic_gradient_magnitude",
    "generic_laplace",
    "geometric_transform",
    "grey_closing",
    "grey_dilation",
    "grey_erosion",
    "grey_opening",
    "iterate_structure",
    "label",
    "laplace",
    "map_coordinates",
    "maximum_filter",
    "maximum_filter1d",
    "median_filter",
    "minimum_filter",
    "minimum_filter1d",
    "morphological_gradient",
    "morphological_laplace",
    "percentile_filter",
    "prewitt",
    "rank_filter",
    "rotate",
    "shift",
    "sobel",
    "spline_filter",
    "spline_filter1d",
    "uniform_filter",
    "uniform_filter1d",
    "white_tophat",
    "zoom",
]
