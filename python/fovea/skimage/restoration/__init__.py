"""scikit-image's ``skimage.restoration`` on fovea (scikit-image 0.26 signatures):
denoising (total variation, bilateral, non-local means, wavelets), noise
estimation, J-invariant calibration, rolling-ball background, phase unwrapping
and biharmonic inpainting. NumPy in, NumPy out; CuPy in, CuPy out (docs/denoise.md
says which run in C / CUDA kernels and which in NumPy / CuPy array maths)."""

from ._denoise import denoise_bilateral, denoise_tv_bregman, denoise_tv_chambolle
from ._rolling_ball import ball_kernel, ellipsoid_kernel, rolling_ball
from ._wavelet import denoise_wavelet, estimate_sigma
from ._nl_means import denoise_nl_means
from ._unwrap import unwrap_phase
from ._inpaint import inpaint_biharmonic
from ._j_invariant import calibrate_denoiser, denoise_invariant

__all__ = [
    "inpaint_biharmonic",
    "calibrate_denoiser",
    "denoise_invariant",
    "denoise_nl_means",
    "unwrap_phase",
    "ball_kernel",
    "ellipsoid_kernel",
    "rolling_ball",
    "denoise_wavelet",
    "estimate_sigma",
    "denoise_bilateral",
    "denoise_tv_bregman",
    "denoise_tv_chambolle",
]
