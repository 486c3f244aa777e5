"""Deconvolution and registration: restoration.richardson_lucy (3-D, a 15^3 PSF, 20
iterations: 128^3 on the CPU against scikit-image, 256^3 on the GPU against cuCIM)
and registration.phase_cross_correlation (2048^2, whole-pixel and subpixel). Every case
checks fovea's result against each peer's."""
import numpy as np

from . import Case, Suite

SK = {"cpu": ["skimage"], "gpu": ["cucim"]}


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


class RestInputs:
    """A blurred, noisy volume or image of random spots, its 15^3 (or 15^2) Gaussian PSF,
    and a copy shifted by (12.4, -7.7) for registration."""

    def __init__(self, xp, shape, dtype, params):
        import scipy.ndimage as ndi   # noqa: PLC0415
        rng = np.random.default_rng(0)
        spots = (rng.random(shape, dtype=np.float32) > 0.995).astype(np.float32)
        psf = np.zeros((15,) * len(shape), np.float32)
        psf[(7,) * len(shape)] = 1
        psf = ndi.gaussian_filter(psf, 2.0)
        psf /= psf.sum()
        if len(shape) == 3:
            img = ndi.convolve(spots, psf, mode="constant") + 0.01 * rng.random(shape, dtype=np.float32)
            self.img = xp.asarray(img.astype(np.float32))
        else:
            img = ndi.gaussian_filter(rng.random(shape, dtype=np.float32), 2.0)
            self.ref = xp.asarray(img)
            self.mov = xp.asarray(ndi.shift(img, (12.4, -7.7), mode="wrap").astype(np.float32))
        self.psf = xp.asarray(psf)


def same_shift(o, p):
    return bool(np.allclose(_host(o[0]), _host(p[0]), atol=1e-6))


SUITE = Suite("restoration", "restoration.richardson_lucy, registration.phase_cross_correlation", [
    Case("richardson_lucy psf 15^3 20 iter", lambda m, d: m.restoration.richardson_lucy(d.img, d.psf, 20,
                                                                                          clip=False),
         SK, lo=3, hi=3, check="close", rtol=2e-3, slow_peer_runs=1),
    Case("phase_cross_correlation", lambda m, d: m.registration.phase_cross_correlation(d.ref, d.mov), SK,
         lo=2, hi=2, check=same_shift),
    Case("phase_cross_correlation upsample 20",
         lambda m, d: m.registration.phase_cross_correlation(d.ref, d.mov, upsample_factor=20), SK,
         lo=2, hi=2, check=same_shift),
], inputs=RestInputs, dtypes=("float32",),
    shapes={"cpu": {"default": ["128^3", "2k"], "quick": ["64^3", "512"]},
            "gpu": {"default": ["256^3", "2k"], "quick": ["64^3", "512"]}},
    note="richardson_lucy: fovea by FFT over a padded grid, scikit-image by scipy.signal.convolve "
         "(results agree to float32 rounding); cuCIM by its FFT convolution")
