"""The scikit-image morphology names of issue 30: skeletonize (Zhang on CPU / GPU,
Lee 3-D), the max-tree attribute filters, flood and remove_objects_by_distance.
Peers: scikit-image (on the GPU rows, on host copies: cuCIM has none of these but
thinning). Every case checks fovea's result equal to the peer's."""
import numpy as np

from . import Case, Suite

PEERS = {"cpu": ["skimage"], "gpu": ["skimage"]}


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


class Inputs:
    """Built lazily, host (h_*) and device (the plain names) copies."""

    def __init__(self, xp, shape, dtype, params):
        self.xp, self.shape = xp, shape

    def __getattr__(self, key):
        if key.startswith("h_"):
            return _host(getattr(self, key[2:]))
        import scipy.ndimage as ndi   # noqa: PLC0415
        rng = np.random.default_rng(0)
        g = ndi.gaussian_filter(rng.random(self.shape), 4 if len(self.shape) == 2 else 3)
        if key == "binary":
            v = g > np.median(g)
        elif key == "img8":
            v = (g * 255 / g.max()).astype(np.uint8)
        elif key == "labels":
            from skimage.measure import label   # noqa: PLC0415
            v = label(ndi.gaussian_filter(rng.random(self.shape), 2) > 0.52).astype(np.int32)
        else:
            raise AttributeError(key)
        v = self.xp.asarray(v)
        setattr(self, key, v)
        return v


def case(name, fn, arg, lo=2, hi=2, **kw):
    run = lambda m, d: fn(m.morph, getattr(d, arg))   # noqa: E731
    host = lambda m, d: fn(m.morph, getattr(d, "h_" + arg))   # noqa: E731
    return Case(name, run, PEERS, calls={"skimage": host}, check="equal", lo=lo, hi=hi, slow_peer_runs=1, **kw)


SUITE = Suite("skmorph_names", "morphology: skeletonize, max-tree filters, flood, remove_objects_by_distance", [
    case("skeletonize (zhang)", lambda mo, x: mo.skeletonize(x), "binary"),
    case("skeletonize (lee) 3-D", lambda mo, x: mo.skeletonize(x), "binary", lo=3, hi=3,
         shapes={"cpu": {"default": ["128^3"], "quick": ["64^3"]}, "gpu": {"default": ["128^3"]}}),
    case("max_tree", lambda mo, x: mo.max_tree(x)[0], "img8"),
    case("area_opening 100", lambda mo, x: mo.area_opening(x, 100), "img8"),
    case("diameter_closing 10", lambda mo, x: mo.diameter_closing(x, 10), "img8"),
    case("flood tolerance 40", lambda mo, x: mo.flood(x, (100, 100), tolerance=40), "img8"),
    case("remove_objects_by_distance 5", lambda mo, x: mo.remove_objects_by_distance(x, 5), "labels"),
], inputs=Inputs, shapes={"cpu": {"default": ["1k"], "quick": ["256"]}, "gpu": {"default": ["1k"]}},
    note="the GPU rows' skimage peer runs on host copies; fovea's Lee skeleton, max-tree, flood and "
         "remove_objects_by_distance are host kernels (the GPU rows include the copies)")
