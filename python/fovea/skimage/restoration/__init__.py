"""scikit-image's ``skimage.restoration`` on fovea (scikit-image 0.26 signatures).
NumPy in, NumPy out; CuPy in, CuPy out (docs/restoration.md)."""

# deconvolution (docs/restoration.md)
from ._deconvolution import richardson_lucy, unsupervised_wiener, wiener

__all__ = [
    # deconvolution
    "richardson_lucy",
    "unsupervised_wiener",
    "wiener",
]
