"""scikit-image's restoration denoisers and optical flow: fovea against
scikit-image on the CPU and cuCIM on the GPU (a function cuCIM lacks shows as a
missing peer). The headline case is denoise_tv_chambolle on 2048^2 float32
(issue 29's target: >= 1.3x cuCIM on the GPU). Results are checked against each
peer: tv_chambolle to 1e-3 (a float32 stop rule summed in another order may
stop an iteration apart), the others to 1e-5."""
import numpy as np

from . import Case, Suite

SK = {"cpu": ["skimage"], "gpu": ["cucim"]}


def _host(x):
    if hasattr(x, "get"):
        return x.get()
    return np.asarray(x)


def within(tol):
    def check(ours, theirs):
        a, b = _host(ours), _host(theirs)
        return a.shape == b.shape and float(np.max(np.abs(a.astype(np.float64) - b))) <= tol
    return check


class DenoiseInputs:
    """noisy: a smooth field plus Gaussian noise (float32, side n); small: its
    top-left quarter side; phase: a wrapped smooth phase (side n / 2); a pair of
    images shifted by a known flow for the optical flow cases (side n / 2)."""

    def __init__(self, xp, shape, dtype, params):
        from fovea import ndimage as ndi   # noqa: PLC0415
        rng = np.random.default_rng(0)
        n = shape[0]
        clean = ndi.gaussian_filter(rng.random(shape, dtype=np.float32), 8)
        clean = (clean - clean.min()) / (clean.max() - clean.min())
        noisy = clean + 0.1 * rng.standard_normal(shape, dtype=np.float32)
        h = n // 4
        c0, c1 = np.ogrid[-1:1:(n // 2) * 1j, -1:1:(n // 2) * 1j]
        phase = np.angle(np.exp(1j * 12 * np.pi * np.exp(-(c0**2 + c1**2))))
        ref = ndi.gaussian_filter(rng.random((n // 2, n // 2)), 2)
        mov = np.roll(ref, (1, -2), axis=(0, 1))
        for k, v in dict(noisy=noisy, small=np.ascontiguousarray(noisy[:h, :h]), phase=phase, ref=ref,
                         mov=mov).items():
            setattr(self, k, xp.asarray(v))


SUITE = Suite("denoise", "skimage.restoration denoisers and registration optical flow", [
    Case("denoise_tv_chambolle float32", lambda m, d: m.restoration.denoise_tv_chambolle(d.noisy, weight=0.1), SK,
         check=within(1e-3)),
    Case("denoise_tv_bregman float32 (side/4)", lambda m, d: m.restoration.denoise_tv_bregman(d.small, weight=5.0),
         SK, check=within(1e-5), devices=("cpu",)),
    Case("denoise_bilateral float32 (side/4)", lambda m, d: m.restoration.denoise_bilateral(d.small), SK,
         check=within(1e-5)),
    Case("denoise_nl_means fast (side/4)", lambda m, d: m.restoration.denoise_nl_means(d.small, h=0.1), SK,
         check=within(1e-5), slow_peer_runs=1),
    Case("denoise_wavelet float32", lambda m, d: m.restoration.denoise_wavelet(d.noisy), SK, check=within(1e-5)),
    Case("estimate_sigma float32", lambda m, d: m.restoration.estimate_sigma(d.noisy), SK,
         check=lambda a, b: abs(float(a) - float(b)) <= 1e-5 * abs(float(b))),
    Case("rolling_ball r=10 (side/4)", lambda m, d: m.restoration.rolling_ball(d.small, radius=10), SK,
         check=within(1e-5), slow_peer_runs=1),
    Case("unwrap_phase (side/2)", lambda m, d: m.restoration.unwrap_phase(d.phase), SK,
         check=lambda a, b: float(np.std(_host(a) - _host(b))) < 1e-6, devices=("cpu",), slow_peer_runs=1),
    Case("optical_flow_tvl1 (side/2)", lambda m, d: m.registration.optical_flow_tvl1(d.ref, d.mov), SK,
         check=within(1e-3)),
    Case("optical_flow_ilk (side/2)", lambda m, d: m.registration.optical_flow_ilk(d.ref, d.mov), SK,
         check=within(1e-3)),
], inputs=DenoiseInputs, dtypes=("float32",),
    shapes={"cpu": {"default": ["2k"], "quick": ["512"]}, "gpu": {"default": ["2k"], "quick": ["512"]}})
