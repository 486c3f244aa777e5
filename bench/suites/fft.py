"""fovea.fft against numpy.fft and scipy.fft on the CPU and cupy.fft on the GPU:
lengths with large prime factors (fftn 1009^2, each axis prime: Bluestein; rfftn
512 x 2*4099, the real axis a complex 4099-point transform) beside powers of two
(fftn 1024^2, rfftn 512 x 8192). scipy.fft runs with workers= fovea's thread count
(FOVEA_NUM_THREADS, else every core); numpy.fft has one thread and computes in double
(float32 inputs too). Every case checks fovea's result against each peer's."""
import os

import numpy as np

from . import Case, Suite

PEERS = {"cpu": ["numpy", "scipy"], "gpu": ["cupy"]}


def _threads():
    return int(os.environ.get("FOVEA_NUM_THREADS") or os.cpu_count() or 1)


class FftInputs:
    """A random real array of the dtype and a complex one of its precision."""

    def __init__(self, xp, shape, dtype, params):
        rng = np.random.default_rng(0)
        x = rng.standard_normal(shape).astype(dtype)
        xc = (x + 1j * rng.standard_normal(shape)).astype(np.complex64 if dtype == "float32" else np.complex128)
        self.x, self.xc = xp.asarray(x), xp.asarray(xc)


def same_transform(ours, theirs):
    """Relative to the norm: float32 transforms against numpy's float64 ones too."""
    a = ours.get() if hasattr(ours, "get") else np.asarray(ours)
    b = theirs.get() if hasattr(theirs, "get") else np.asarray(theirs)
    if a.shape != b.shape:
        return False
    tol = 1e-4 if a.dtype in (np.complex64, np.float32) or b.dtype in (np.complex64, np.float32) else 1e-10
    a, b = a.astype(np.complex128), b.astype(np.complex128)
    return bool(np.linalg.norm(a - b) <= tol * np.linalg.norm(b))


SUITE = Suite("fft", "fovea.fft: fftn and rfftn, prime lengths beside powers of two", [
    Case("fftn", lambda m, d: m.fft.fftn(d.xc), PEERS,
         calls={"scipy": lambda m, d: m.fft.fftn(d.xc, workers=_threads())},
         shapes={"cpu": {"default": ["1009^2", "1k"], "quick": ["1009^2"]},
                 "gpu": {"default": ["1009^2", "1k"], "quick": ["1009^2"]}}, check=same_transform),
    Case("rfftn", lambda m, d: m.fft.rfftn(d.x), PEERS,
         calls={"scipy": lambda m, d: m.fft.rfftn(d.x, workers=_threads())},
         shapes={"cpu": {"default": ["512x8198", "512x8192"], "quick": ["512x8198"]},
                 "gpu": {"default": ["512x8198", "512x8192"], "quick": ["512x8198"]}}, check=same_transform),
], inputs=FftInputs, dtypes=("float32", "float64"),
    shapes={"cpu": {"default": ["1k"]}, "gpu": {"default": ["1k"]}},
    note="fftn 1009^2: each axis a prime length (fovea: Bluestein's algorithm); rfftn 512 x 8198: "
         "the real axis 2 x 4099; scipy.fft with workers = fovea's threads; numpy.fft single-threaded, "
         "in double")
