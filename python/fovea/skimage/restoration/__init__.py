"""scikit-image's ``skimage.restoration`` on fovea (scikit-image 0.26 signatures):
deconvolution (Richardson-Lucy, Wiener, unsupervised Wiener; docs/restoration.md),
denoising (total variation, bilateral, non-local means, wavelets), noise estimation,
J-invariant calibration, rolling-ball background, phase unwrapping and biharmonic
inpainting (docs/denoise.md says which run in C / CUDA kernels and which in NumPy /
CuPy array maths). NumPy in, NumPy out; CuPy in, CuPy out."""

from ._deconvolution import richardson_lucy, unsupervised_wiener, wiener
from ._denoise import denoise_bilateral, denoise_tv_bregman, denoise_tv_chambolle
from ._inpaint import inpaint_biharmonic
from ._j_invariant import calibrate_denoiser, denoise_invariant
from ._nl_means import denoise_nl_means
from ._rolling_ball import ball_kernel, ellipsoid_kernel, rolling_ball
from ._unwrap import unwrap_phase
from ._wavelet import denoise_wavelet, estimate_sigma

__all__ = [
    "ball_kernel", "calibrate_denoiser", "denoise_bilateral", "denoise_invariant", "denoise_nl_means",
    "denoise_tv_bregman", "denoise_tv_chambolle", "denoise_wavelet", "ellipsoid_kernel", "estimate_sigma",
    "inpaint_biharmonic", "richardson_lucy", "rolling_ball", "unsupervised_wiener", "unwrap_phase", "wiener",
]

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
