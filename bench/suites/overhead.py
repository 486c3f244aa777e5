"""Fixed cost of one call: fovea.ndimage on tiny arrays (64 x 64 float32), where the
kernels take almost nothing and what is left is the Python layer, the C dispatch and
the launches (the former bench/bench_overhead.py). Timed as back-to-back calls ended
by one synchronisation (kind "percall"), against scipy.ndimage / cupyx.scipy.ndimage."""
import numpy as np

from . import Case, Suite


class Inputs:
    def __init__(self, xp, shape, dtype, params):
        host = np.random.default_rng(1).random(shape, dtype=np.float32)
        self.x = xp.asarray(host)
        self.b = self.x > 0.5
        self.w3 = xp.asarray([1.0, 2.0, 1.0])


PEERS = {"cpu": ["scipy"], "gpu": ["cupy"]}


def case(name, fn):
    return Case(name, fn, PEERS, kind="percall")


SUITE = Suite("overhead", "per-call cost (64 x 64 float32)", [
    case("median_filter(3)", lambda m, d: m.ndi.median_filter(d.x, 3)),
    case("gaussian_filter", lambda m, d: m.ndi.gaussian_filter(d.x, 2.0)),
    case("uniform_filter", lambda m, d: m.ndi.uniform_filter(d.x, 5)),
    case("sobel", lambda m, d: m.ndi.sobel(d.x)),
    case("correlate1d", lambda m, d: m.ndi.correlate1d(d.x, d.w3)),
    case("maximum_filter", lambda m, d: m.ndi.maximum_filter(d.x, 5)),
    case("grey_opening", lambda m, d: m.ndi.grey_opening(d.x, size=5)),
    case("binary_erosion", lambda m, d: m.ndi.binary_erosion(d.b)),
    case("binary_opening", lambda m, d: m.ndi.binary_opening(d.b)),
    case("distance_transform_edt", lambda m, d: m.ndi.distance_transform_edt(d.b)),
    case("gaussian_gradient_magnitude", lambda m, d: m.ndi.gaussian_gradient_magnitude(d.x, 2.0)),
], inputs=Inputs, shapes={"cpu": {"default": ["64"]}, "gpu": {"default": ["64"]}})
