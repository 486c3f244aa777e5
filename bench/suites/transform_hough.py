"""skimage.transform's Hough and Radon transforms (issue 28): the accumulators
(hough_line, hough_circle), the peak pickers, probabilistic_hough_line, radon,
iradon and iradon_sart. Peers: scikit-image on the CPU; cuCIM has none of these,
so the GPU rows time scikit-image and fovea's CPU backend on host copies beside
fovea on the device. Every case checks fovea's result against each peer's
(accumulators, peaks and lines equal; radon and the reconstructions close)."""
import importlib

import numpy as np

from . import Case, Suite

_TRANSFORM = {"fovea": "fovea.skimage.transform", "skimage": "skimage.transform"}


def _tf(m):
    """The transform module of library m (fovea, fovea:cpu, skimage)."""
    return importlib.import_module(_TRANSFORM[m.name.split(":")[0]])


def _host(x):
    return x.get() if hasattr(x, "get") else x


class HoughInputs:
    """Edge images (lines and circles over sparse noise), a phantom and its sinogram,
    on the device (d) and on the host (h)."""

    def __init__(self, xp, shape, dtype, params):
        from skimage.draw import circle_perimeter, line   # noqa: PLC0415
        n = shape[0]
        rng = np.random.default_rng(0)
        edges = rng.random((n, n)) > 0.99
        for k in range(6):
            rr, cc = line(int(rng.integers(n)), 0, int(rng.integers(n)), n - 1)
            edges[rr, cc] = True
        for k in range(8):
            r = int(rng.integers(n // 32, n // 8))
            rr, cc = circle_perimeter(int(rng.integers(r, n - r)), int(rng.integers(r, n - r)), r, shape=edges.shape)
            edges[rr, cc] = True
        side = min(n, 256)   # the Radon cases run on at most 256 x 256 (scikit-image's loops)
        yy, xx = np.mgrid[:side, :side] - side / 2
        phantom = ((yy ** 2 + xx ** 2 < (side / 3) ** 2) * 1.0 + ((yy - side / 8) ** 2 + xx ** 2 < (side / 10) ** 2))
        from skimage.transform import radon   # noqa: PLC0415
        theta = np.linspace(0, 180, 180, endpoint=False)
        sino = radon(phantom, theta)
        radii = np.arange(n // 32, n // 8, max(1, n // 128))
        import skimage.transform as skt   # noqa: PLC0415
        hspace, angles, dists = skt.hough_line(edges)
        self.h = dict(edges=edges, phantom=phantom, sino=sino, hspace=hspace, angles=angles, dists=dists,
                      radii=radii, theta=theta)
        self.d = {k: (xp.asarray(v) if k not in ("radii", "theta", "angles", "dists") else v)
                  for k, v in self.h.items()}


def _case(name, fn, check, rtol=1e-5, **kw):
    """fn(transform module, arrays) on the device for fovea, on host copies for the others."""
    dev = lambda m, d: fn(_tf(m), d.d)            # noqa: E731
    host = lambda m, d: fn(_tf(m), d.h)           # noqa: E731
    return Case(name, dev, {"cpu": ["skimage"], "gpu": ["skimage", "fovea:cpu"]},
                calls={"skimage": host, "fovea:cpu": host}, check=check, rtol=rtol, **kw)


def _same(o, p):
    if isinstance(o, list):
        return o == p
    if isinstance(o, tuple):
        return all(np.array_equal(_host(a), _host(b)) for a, b in zip(o, p))
    return np.array_equal(_host(o), _host(p))


SUITE = Suite("hough_radon", "transform: Hough and Radon transforms", [
    _case("hough_line 180 angles", lambda t, a: t.hough_line(a["edges"])[0], _same),
    _case("hough_circle radii n/32..n/8", lambda t, a: t.hough_circle(a["edges"], a["radii"]), _same),
    _case("hough_circle full_output", lambda t, a: t.hough_circle(a["edges"], a["radii"][:4], full_output=True),
          _same),
    _case("hough_line_peaks", lambda t, a: t.hough_line_peaks(a["hspace"], a["angles"], a["dists"]), _same),
    _case("probabilistic_hough_line rng=0", lambda t, a: t.probabilistic_hough_line(
        a["edges"], threshold=10, line_length=20, line_gap=3, rng=0), _same),
    _case("radon 180 angles (<=256^2)", lambda t, a: t.radon(a["phantom"], a["theta"]), "close"),
    _case("iradon ramp linear (<=256^2)", lambda t, a: t.iradon(a["sino"], a["theta"]), "close", rtol=1e-6),
    _case("iradon_sart (<=256^2)", lambda t, a: t.iradon_sart(a["sino"], a["theta"]), "close", rtol=1e-6,
          slow_peer_runs=1),
], inputs=HoughInputs, shapes={"cpu": {"default": ["1k"], "quick": ["256"], "big": ["4096"]},
                               "gpu": {"default": ["4096", "1k"], "quick": ["256"]}},
    note="cuCIM has no Hough or Radon transforms: the GPU rows' skimage and fovea:cpu peers run on host copies")
