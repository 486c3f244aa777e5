"""fovea.ndimage's local ops on dask arrays (docs/dask.md).

Each function takes a dask array (or a NumPy / CuPy array, as one chunk) and the
parameters of its fovea.ndimage namesake, and returns a lazy dask array equal to the
whole-array call bit for bit for every chunking: the overlap comes from the
parameters (sigma x truncate or radius, size or footprint with origin, structure
times iterations), the boundary from `mode` (see fovea.dask._core). Blocks may be
NumPy or CuPy arrays; the result keeps their kind. `output` may be a dtype, not an
array. Ops that are not local (label, distance transforms, fill holes, propagation,
Fourier filters, spline interpolation) are not here: see fovea.dask.label and
docs/dask.md.
"""


from . import _core
from ._wrap import blockwise_op

_M = "fovea.ndimage"
__all__ = []


def _gauss(ndim, a):
    axes = a.get("axes")
    sig = _core.per_axis(a["sigma"], ndim, "sigma", axes)
    rad = a.get("radius")
    if rad is not None:
        return _core.per_axis(rad, ndim, "radius", axes)
    return [int(float(a.get("truncate", 4.0)) * float(s) + 0.5) for s in sig]


def _gauss1d(ndim, a):
    d = [0] * ndim
    r = a.get("radius")
    d[a.get("axis", -1) % ndim] = int(r) if r is not None else int(float(a["truncate"]) * float(a["sigma"]) + 0.5)
    return d


def _window(ndim, a):
    fp = a.get("footprint")
    if fp is None and a.get("structure") is not None:
        fp = a["structure"]
    return _core.footprint_reach(ndim, a.get("size"), fp, a.get("origin", 0) or 0, a.get("axes"))


def _weights(ndim, a):
    return _core.footprint_reach(ndim, None, a["weights"], a.get("origin", 0) or 0, a.get("axes"))


def _line(key):
    def rule(ndim, a):
        d = [0] * ndim
        n = _core.shape_of(a[key])[0] if key == "weights" else int(a[key])
        d[a.get("axis", -1) % ndim] = _core.reach(n, a.get("origin", 0) or 0)
        return d
    return rule


def _ones(ndim, a):
    return [1] * ndim


def _times(rule, k):
    return lambda ndim, a: [k * d for d in rule(ndim, a)]


def _binary(k):
    """binary_* with a structure (default: the cross, reach 1) repeated `iterations`
    times; iterations < 1 (until nothing changes) is not local."""
    def rule(ndim, a):
        it = int(a.get("iterations", 1))
        if it < 1:
            raise ValueError("iterations < 1 (repeat until nothing changes) is not a local operation: "
                             "compute it on the whole array")
        st = a.get("structure")
        r = [1] * ndim if st is None else _core.footprint_reach(ndim, None, st, a.get("origin", 0) or 0)
        return [k * it * d for d in r]
    return rule


def _hit_or_miss(ndim, a):
    r = [1] * ndim
    for key in ("structure1", "structure2"):
        if a.get(key) is not None:
            o = a.get("origin1" if key == "structure1" else "origin2") or 0
            r = [max(p, q) for p, q in zip(r, _core.footprint_reach(ndim, None, a[key], o))]
    return r


_RULES = {
    "gaussian_filter": _gauss, "gaussian_laplace": _gauss, "gaussian_gradient_magnitude": _gauss,
    "gaussian_filter1d": _gauss1d,
    "uniform_filter": _window, "minimum_filter": _window, "maximum_filter": _window,
    "median_filter": _window, "rank_filter": _window, "percentile_filter": _window,
    "uniform_filter1d": _line("size"), "minimum_filter1d": _line("size"), "maximum_filter1d": _line("size"),
    "correlate": _weights, "convolve": _weights,
    "correlate1d": _line("weights"), "convolve1d": _line("weights"),
    "sobel": _ones, "prewitt": _ones, "laplace": _ones,
    "grey_erosion": _window, "grey_dilation": _window,
    "morphological_gradient": _window, "morphological_laplace": _window,
    "grey_opening": _times(_window, 2), "grey_closing": _times(_window, 2),
    "white_tophat": _times(_window, 2), "black_tophat": _times(_window, 2),
    "binary_erosion": _binary(1), "binary_dilation": _binary(1),
    "binary_opening": _binary(2), "binary_closing": _binary(2),
    "binary_hit_or_miss": _hit_or_miss,
}

for _name, _rule in _RULES.items():
    globals()[_name] = blockwise_op(_M, _name, _rule, arrays=("mask",),
                                    default_mode="constant" if _name.startswith("binary_") else "reflect")
    __all__.append(_name)
del _name, _rule
