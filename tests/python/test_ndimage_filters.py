"""fovea.ndimage filters against scipy.ndimage on random data.

Every comparison runs on a sampled grid of dtype x mode x ndim x size x origin x
axes (each value of each axis appears, the rest of the grid is drawn with a fixed
seed), once per array backend: NumPy always, CuPy where a GPU and CuPy exist
(the same tests run on the GPU machine). Integer and bool results must be exact;
float32 agrees to rtol 1e-5 and float64 to rtol 1e-12 (atol scaled to the data).
Invalid arguments must raise the exception type scipy raises (checked by
calling scipy in the test).
"""

import inspect
import random
import warnings

import numpy as np
import pytest
import scipy.ndimage as sn

from fovea import ndimage as ndi
from conftest import random_array

MODES = ["reflect", "constant", "nearest", "mirror", "wrap", "grid-wrap", "grid-constant", "grid-mirror"]
DTYPES = ["uint8", "int16", "int32", "uint16", "float32", "float64", "bool"]
SHAPES = {1: (13,), 2: (7, 8), 3: (4, 5, 6), 4: (3, 4, 2, 5)}


# ---- helpers shared with test_ndimage_morphology ----------------------------------------


def sample_grid(n, seed=0, **axes):
    """n parameter dicts over the given axes: every value of every axis appears at
    least once; the remaining combinations are drawn with a fixed seed."""
    names = list(axes)
    rnd = random.Random(seed)
    perms = [rnd.sample(list(axes[k]), len(axes[k])) for k in names]
    combos = [tuple(p[i % len(p)] for p in perms) for i in range(max(len(p) for p in perms))]
    while len(combos) < n:
        combos.append(tuple(rnd.choice(list(axes[k])) for k in names))
    return [pytest.param(dict(zip(names, c)), id="-".join(str(v) for v in c)) for c in combos]


class Backend:
    """How to move test data to an array library and back."""

    def __init__(self, name, asarray, asnumpy, array_type):
        self.name, self.asarray, self.asnumpy, self.type = name, asarray, asnumpy, array_type


def _torch_backend(torch):
    def to(a):
        return torch.from_numpy(np.ascontiguousarray(a)).cuda()

    return Backend("torch", to, lambda t: t.cpu().numpy(), torch.Tensor)


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def backend(request):
    if request.param == "numpy":
        return Backend("numpy", np.asarray, np.asarray, np.ndarray)
    cp = request.getfixturevalue("cp")
    return Backend("cupy", cp.asarray, cp.asnumpy, cp.ndarray)


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu),
                        pytest.param("torch", marks=pytest.mark.gpu)])
def any_backend(request):
    """NumPy, CuPy and torch CUDA tensors: for the same-type-out tests."""
    if request.param == "numpy":
        return Backend("numpy", np.asarray, np.asarray, np.ndarray)
    if request.param == "cupy":
        cp = request.getfixturevalue("cp")
        return Backend("cupy", cp.asarray, cp.asnumpy, cp.ndarray)
    return _torch_backend(request.getfixturevalue("torch_cuda"))


def assert_close(got, expected, err_msg=""):
    """Same dtype and shape; exact for bool/integers, rtol 1e-5 (float32) or 1e-12
    (float64) with atol scaled to the magnitude of the data."""
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, f"{err_msg}: dtype {got.dtype} != {expected.dtype}"
    assert got.shape == expected.shape, f"{err_msg}: shape {got.shape} != {expected.shape}"
    if expected.dtype == np.bool_:
        # scipy stores the raw low byte of a float result into bool outputs (2.5 -> 2);
        # fovea stores 0/1 with the same truth value
        expected = expected.view(np.uint8) != 0
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected, err_msg=err_msg)
        return
    rtol = 1e-5 if expected.dtype in (np.float32, np.complex64) else 1e-12
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * max(scale, 1.0), err_msg=err_msg)


def data(rng, shape, dtype):
    """Random data over the dtype's range; int32 within +-2^20 so that sums stay in
    range (out-of-range stores have their own test)."""
    if np.dtype(dtype) == np.int32:
        return random_array(rng, shape, dtype, lo=-(2 ** 20), hi=2 ** 20)
    return random_array(rng, shape, dtype)


def weights_for(rng, n, dtype):
    """Dyadic weights for integer data (so any summation order gives the same exact
    sums and truncation is tested, not rounding order); Gaussian weights for floats."""
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n)
    return rng.integers(-4, 5, size=n) / 4.0


def multipass_output(dtype):
    """Output for separable (multi-pass) filters: bool data goes to float64. scipy
    stores the low byte of a float result in a bool output (2.5 -> 2, -1.0 -> 255)
    and its next pass reads that byte back; fovea's bool outputs hold 0/1 (see
    docs/ndimage.md), so multi-pass results into bool differ by design."""
    return np.float64 if np.dtype(dtype) == np.bool_ else None


def origin_for(size, pick):
    return {"lo": -(size // 2), "0": 0, "hi": (size - 1) // 2}[pick]


def axis_for(ndim, pick):
    return pick if -ndim <= pick < ndim else -1


def compare(backend, name, x, *args, **kw):
    """scipy's result vs ours (on the backend) for ndimage.<name>(x, *args, **kw)."""
    expected = getattr(sn, name)(x, *args, **kw)
    got = getattr(ndi, name)(backend.asarray(x), *args, **kw)
    assert isinstance(got, backend.type), f"{name} returned {type(got)}"
    assert_close(backend.asnumpy(got), expected, err_msg=f"{name} {x.dtype} {x.shape} {args} {kw}")
    return got


# ---- 1-D filters ---------------------------------------------------------------------------

GRID_1D = sample_grid(70, seed=1, dtype=DTYPES, mode=MODES, ndim=[1, 2, 3, 4], size=[1, 2, 3, 4, 5, 7],
                      origin=["lo", "0", "hi"], axis=[0, 1, -1, 2, 3], cval=[0.0, 1.5, -7.25])


@pytest.mark.parametrize("p", GRID_1D)
def test_correlate1d_convolve1d(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    w = weights_for(rng, p["size"], p["dtype"])
    kw = dict(axis=axis_for(x.ndim, p["axis"]), mode=p["mode"], cval=p["cval"],
              origin=origin_for(p["size"], p["origin"]))
    compare(backend, "correlate1d", x, w, **kw)
    compare(backend, "convolve1d", x, w, **kw)


@pytest.mark.parametrize("p", GRID_1D)
def test_uniform_minimum_maximum_filter1d(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    kw = dict(axis=axis_for(x.ndim, p["axis"]), mode=p["mode"], cval=p["cval"],
              origin=origin_for(p["size"], p["origin"]))
    for name in ("uniform_filter1d", "minimum_filter1d", "maximum_filter1d"):
        compare(backend, name, x, p["size"], **kw)


@pytest.mark.parametrize("p", sample_grid(24, seed=2, dtype=DTYPES, mode=MODES, ndim=[1, 2, 3, 4],
                                          sigma=[0.5, 1.0, 2.3], order=[0, 1, 2, 3], axis=[0, -1, 1],
                                          radius=[None, 0, 2]))
def test_gaussian_filter1d(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    compare(backend, "gaussian_filter1d", x, p["sigma"], axis=axis_for(x.ndim, p["axis"]), order=p["order"],
            mode=p["mode"], cval=2.5, radius=p["radius"])


# ---- separable n-D filters -------------------------------------------------------------------


def _per_axis(rng, kind, n, choices):
    if kind == "scalar":
        return choices[0]
    return tuple(choices[int(i)] for i in rng.integers(0, len(choices), n))


@pytest.mark.parametrize("p", sample_grid(40, seed=3, dtype=DTYPES, mode=MODES + ["per-axis"],
                                          ndim=[1, 2, 3, 4], sigma=["scalar", "per-axis"],
                                          order=["scalar", "per-axis"], truncate=[4.0, 2.0, 0.3],
                                          radius=[None, "scalar", "per-axis"], axes=[None, "last", "pair"]))
def test_gaussian_filter(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    axes = {None: None, "last": (-1,), "pair": (0, -1) if x.ndim > 1 else 0}[p["axes"]]
    n = x.ndim if axes is None else (1 if np.isscalar(axes) else len(axes))
    sigma = 1.3 if p["sigma"] == "scalar" else _per_axis(rng, "v", n, [0.0, 0.7, 1.0, 1.8])
    order = 0 if p["order"] == "scalar" else _per_axis(rng, "v", n, [0, 1, 2])
    mode = p["mode"] if p["mode"] != "per-axis" else _per_axis(rng, "v", n, MODES)
    radius = {None: None, "scalar": 2, "per-axis": _per_axis(rng, "v", n, [0, 1, 3])}[p["radius"]]
    compare(backend, "gaussian_filter", x, sigma, order=order, mode=mode, cval=-1.25, truncate=p["truncate"],
            radius=radius, axes=axes, output=multipass_output(x.dtype))


@pytest.mark.parametrize("p", sample_grid(40, seed=4, dtype=DTYPES, mode=MODES + ["per-axis"],
                                          ndim=[1, 2, 3, 4], size=["scalar", "per-axis"],
                                          origin=["0", "scalar", "per-axis"], axes=[None, "last", "pair"]))
def test_uniform_filter(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    axes = {None: None, "last": (-1,), "pair": (0, -1) if x.ndim > 1 else 0}[p["axes"]]
    n = x.ndim if axes is None else (1 if np.isscalar(axes) else len(axes))
    size = 4 if p["size"] == "scalar" else _per_axis(rng, "v", n, [0, 1, 2, 3, 5])
    sizes = [size] * n if np.isscalar(size) else list(size)
    if p["origin"] == "0":
        origin = 0
    elif p["origin"] == "scalar":
        origin = min((s - 1) // 2 for s in sizes) if min(sizes) > 0 else 0
    else:
        origin = tuple(int(rng.integers(-(max(s, 1) // 2), (max(s, 1) - 1) // 2 + 1)) for s in sizes)
    mode = p["mode"] if p["mode"] != "per-axis" else _per_axis(rng, "v", n, MODES)
    compare(backend, "uniform_filter", x, size, mode=mode, cval=3.5, origin=origin, axes=axes,
            output=multipass_output(x.dtype))


@pytest.mark.parametrize("p", sample_grid(30, seed=5, dtype=DTYPES, mode=MODES, ndim=[1, 2, 3, 4],
                                          axis=[0, -1, 1]))
def test_sobel_prewitt_laplace(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    axis = axis_for(x.ndim, p["axis"])
    out = multipass_output(x.dtype)
    compare(backend, "sobel", x, axis=axis, mode=p["mode"], cval=1.0, output=out)
    compare(backend, "prewitt", x, axis=axis, mode=p["mode"], cval=1.0, output=out)
    compare(backend, "laplace", x, mode=p["mode"], cval=-2.0)
    compare(backend, "laplace", x, mode=p["mode"], axes=axis)


@pytest.mark.parametrize("p", sample_grid(24, seed=6, dtype=[d for d in DTYPES if d != "bool"],
                                          mode=MODES + ["per-axis"], ndim=[1, 2, 3, 4],
                                          sigma=["scalar", "per-axis"], axes=[None, "last"]))
def test_gaussian_laplace_and_gradient_magnitude(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    axes = None if p["axes"] is None else (-1,)
    n = x.ndim if axes is None else 1
    sigma = 1.1 if p["sigma"] == "scalar" else _per_axis(rng, "v", n, [0.6, 1.0, 1.5])
    mode = p["mode"] if p["mode"] != "per-axis" else _per_axis(rng, "v", n, MODES)
    compare(backend, "gaussian_laplace", x, sigma, mode=mode, cval=0.5, axes=axes, truncate=3.0)
    # scipy's gaussian_gradient_magnitude passes a per-axis sigma of len(axes) on to
    # gaussian_filter over all axes, which refuses it: only a scalar sigma with axes
    compare(backend, "gaussian_gradient_magnitude", x, sigma if axes is None else 0.9, mode=mode, axes=axes,
            radius=2)


def test_generic_laplace_and_gradient_magnitude_callbacks(backend, rng):
    x = data(rng, (6, 7), "float64")

    def d2(inp, axis, output, mode, cval, scale):
        return ndi.correlate1d(inp, [scale, -2 * scale, scale], axis, output, mode, cval, 0)

    def d2_ref(inp, axis, output, mode, cval, scale):
        return sn.correlate1d(inp, [scale, -2 * scale, scale], axis, output, mode, cval, 0)

    got = ndi.generic_laplace(backend.asarray(x), d2, extra_arguments=(0.5,), mode="nearest")
    assert_close(backend.asnumpy(got), sn.generic_laplace(x, d2_ref, extra_arguments=(0.5,), mode="nearest"))
    got = ndi.generic_gradient_magnitude(backend.asarray(x), ndi.sobel, mode="wrap")
    assert_close(backend.asnumpy(got), sn.generic_gradient_magnitude(x, sn.sobel, mode="wrap"))


# ---- laplace: the fused op (fv_laplace), bit for bit ----------------------------------------

ALL_DTYPES = ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32",
              "float64"]
LAPLACE_SHAPES = {1: [(13,), (1,), (2,)], 2: [(7, 8), (1, 5), (6, 2)], 3: [(4, 5, 6), (3, 1, 4), (2, 3, 2)],
                  4: [(3, 4, 2, 5), (2, 1, 3, 2)]}


def assert_same_bits(got, expected, err_msg=""):
    """Same dtype, shape and bits (bool: the truth of scipy's raw byte; floats: NaN
    where scipy has NaN, every other value with its sign and last bit)."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, f"{err_msg}: dtype {got.dtype} != {expected.dtype}"
    assert got.shape == expected.shape, f"{err_msg}: shape {got.shape} != {expected.shape}"
    if expected.dtype == np.bool_:
        np.testing.assert_array_equal(got, expected.view(np.uint8) != 0, err_msg=err_msg)
        return
    if expected.dtype.kind == "f":
        nan = np.isnan(expected)
        np.testing.assert_array_equal(np.isnan(got), nan, err_msg=err_msg)
        got, expected = got[~nan], expected[~nan]
    u = f"u{expected.dtype.itemsize}"
    np.testing.assert_array_equal(got.view(u), expected.view(u), err_msg=err_msg)


def laplace_data(rng, shape, dtype, special):
    """Full-range data (ints over the whole dtype, so terms wrap and leave the int32
    range); with `special` floats also get inf, -inf, NaN, -0.0 and huge values."""
    x = random_array(rng, shape, dtype)
    if special and np.dtype(dtype).kind == "f" and x.size:
        big = np.finfo(dtype).max / 2
        vals = np.array([np.inf, -np.inf, np.nan, -0.0, big, -big, 3e9, -5e18], dtype=dtype)
        pick = rng.random(x.shape) < 0.2
        x[pick] = rng.choice(vals, size=int(pick.sum()))
    return x


def laplace_axes(rng, ndim, kind):
    if kind is None:
        return None
    if kind == "last":
        return (-1,)
    if kind == "reversed":
        return tuple(range(ndim))[::-1]
    if kind == "scalar":
        return -1 if ndim > 1 else 0
    n = int(rng.integers(1, ndim + 1))  # "subset": a random subset in random order, some negative
    return tuple(int(a) - (ndim if rng.random() < 0.5 else 0) for a in rng.permutation(ndim)[:n])


@pytest.mark.parametrize("p", sample_grid(90, seed=11, dtype=ALL_DTYPES,
                                          out=[None, "float32", "float64", "uint8", "int8", "bool", "int32",
                                               "uint32", "int64", "uint64", "uint16"],
                                          mode=MODES + ["per-axis"], ndim=[1, 2, 3, 4],
                                          axes=[None, "last", "reversed", "subset", "scalar"],
                                          cval=[0.0, -2.5, 300.75, 7e9], special=[False, True]))
def test_laplace_bits(backend, rng, p):
    """ndimage.laplace: every dtype into the same or another output dtype, every mode
    (per axis too), axes subsets and orders, extents 1 and 2, cval: scipy's bits."""
    shapes = LAPLACE_SHAPES[p["ndim"]]
    x = laplace_data(rng, shapes[int(rng.integers(len(shapes)))], p["dtype"], p["special"])
    axes = laplace_axes(rng, x.ndim, p["axes"])
    n = x.ndim if axes is None else (1 if np.isscalar(axes) else len(axes))
    mode = p["mode"] if p["mode"] != "per-axis" else _per_axis(rng, "v", n, MODES)
    out = np.bool_ if p["out"] == "bool" else p["out"]  # scipy refuses the name "bool" (not numeric)
    kw = dict(output=out, mode=mode, cval=p["cval"], axes=axes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # inf - inf in scipy's output += tmp
        expected = sn.laplace(x, **kw)
    got = ndi.laplace(backend.asarray(x), **kw)
    assert isinstance(got, backend.type)
    assert_same_bits(backend.asnumpy(got), expected, f"laplace {x.dtype} {x.shape} {kw}")


def test_laplace_layouts_and_outputs(backend, rng):
    """Strided, reversed and transposed inputs; an output array (views too) returned as is."""
    base = laplace_data(rng, (9, 10, 4), "float32", True)
    for x in (base[::2], base[:, ::-1], base.transpose(2, 0, 1), base[1:, 2:, ::3], base[..., 0]):
        assert_same_bits(backend.asnumpy(ndi.laplace(backend.asarray(x), mode="wrap")), sn.laplace(x, mode="wrap"))
    ib = data(rng, (9, 10, 4), "int16")
    for out_dtype in ("int16", "float64", "uint8"):
        exp_full = np.zeros((15, 10, 4), out_dtype)
        sn.laplace(ib[::2], output=exp_full[::3, ::-1], mode="constant", cval=1.5)
        full = backend.asarray(np.zeros((15, 10, 4), out_dtype))
        out = full[::3, ::-1]
        assert ndi.laplace(backend.asarray(ib[::2]), output=out, mode="constant", cval=1.5) is out
        assert_same_bits(backend.asnumpy(full), exp_full)


@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8", "float64"])
def test_laplace_in_place_and_overlapping_output(backend, rng, dtype):
    """output = input (or a view of its buffer): scipy's later terms read the partly
    written output; fovea runs scipy's chain then (one axis: the fused op). The
    chain's correlate1d sums float32 outputs in float on the GPU: within rounding
    there (assert_close), bit for bit elsewhere."""
    x = data(rng, (6, 7, 5), dtype)
    for axes in (None, (1,), (2, 0)):
        chain = axes is None or len(axes) > 1
        check = assert_close if chain and dtype == "float32" and backend.name != "numpy" else assert_same_bits
        exp = x.copy()
        sn.laplace(exp, output=exp, axes=axes, mode="nearest")
        d = backend.asarray(x.copy())
        assert ndi.laplace(d, output=d, axes=axes, mode="nearest") is d
        check(backend.asnumpy(d), exp, f"in place {axes}")
        exp = x.copy()
        sn.laplace(exp, output=exp[::-1], axes=axes)
        d = backend.asarray(x.copy())
        ndi.laplace(d, output=d[::-1], axes=axes)
        check(backend.asnumpy(d), exp, f"reversed view {axes}")
    # a separate output leaves the input alone
    keep = x.copy()
    ndi.laplace(x, output=np.float64)
    np.testing.assert_array_equal(x, keep)


def test_laplace_overlap_test_of_fovea_arrays():
    """The overlap test used for fovea.Array working arrays (a GPU without CuPy)
    agrees with NumPy's bounds test, here on host fovea.Arrays over NumPy views."""
    import fovea
    from fovea.ndimage import _filters

    class NoXp:
        xp = None

    base = np.zeros((6, 8), np.float32)
    other = np.zeros((6, 8), np.float32)
    views = [base, base[::2], base[1::2], base[:, ::-1], base[:3], base[3:], base.T, base[:, :4], base[:, 4:],
             base[2:4, 3], base[:0], other]
    for a in views:
        fa = fovea.asarray(a)
        assert fa.__array_interface__["data"][0] == a.__array_interface__["data"][0]
        for b in views:
            assert _filters._shares_memory(NoXp, fa, fovea.asarray(b)) == np.may_share_memory(a, b)


# ---- n-D filters over footprints ------------------------------------------------------------


def _fshape(rng, n, big=False):
    return tuple(int(v) for v in rng.integers(1, 6 if big else 4, n))


@pytest.mark.parametrize("p", sample_grid(40, seed=7, dtype=DTYPES, mode=MODES, ndim=[1, 2, 3, 4],
                                          origin=["0", "scalar", "per-axis"], axes=[None, "last", "pair"],
                                          zeros=[False, True]))
def test_correlate_convolve(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    axes = {None: None, "last": (-1,), "pair": (0, -1) if x.ndim > 1 else 0}[p["axes"]]
    n = x.ndim if axes is None else (1 if np.isscalar(axes) else len(axes))
    fs = _fshape(rng, n, big=True)
    w = weights_for(rng, int(np.prod(fs)), p["dtype"]).reshape(fs)
    if p["zeros"]:
        w[rng.random(fs) < 0.4] = 0  # zero weights are skipped: results must not change
    if p["origin"] == "0":
        origin = 0
    elif p["origin"] == "scalar":
        origin = min((s - 1) // 2 for s in fs)
    else:
        origin = tuple(int(rng.integers(-(s // 2), (s - 1) // 2 + 1)) for s in fs)
    for name in ("correlate", "convolve"):
        compare(backend, name, x, w, mode=p["mode"], cval=-0.75, origin=origin, axes=axes)


def _footprint(rng, fs, kind):
    if kind == "full":
        return np.ones(fs, bool)
    fp = rng.random(fs) < 0.6
    fp.flat[int(rng.integers(0, fp.size))] = True
    return fp


@pytest.mark.parametrize("p", sample_grid(50, seed=8, dtype=DTYPES, mode=MODES + ["per-axis"],
                                          ndim=[1, 2, 3, 4], window=["size", "full", "random"],
                                          origin=["0", "scalar", "per-axis"], axes=[None, "last", "pair"]))
def test_minimum_maximum_filter(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    axes = {None: None, "last": (-1,), "pair": (0, -1) if x.ndim > 1 else 0}[p["axes"]]
    n = x.ndim if axes is None else (1 if np.isscalar(axes) else len(axes))
    fs = _fshape(rng, n, big=True)
    if p["window"] == "size":
        kw = dict(size=fs)
    else:
        kw = dict(footprint=_footprint(rng, fs, p["window"]))
    mode = p["mode"]
    if mode == "per-axis":
        if p["window"] == "random":
            mode = "reflect"  # scipy refuses a sequence of modes for non-separable footprints
        else:
            mode = _per_axis(rng, "v", n, MODES)
    if p["origin"] == "0":
        origin = 0
    elif p["origin"] == "scalar":
        origin = min((s - 1) // 2 for s in fs)
    else:
        origin = tuple(int(rng.integers(-(s // 2), (s - 1) // 2 + 1)) for s in fs)
    for name in ("minimum_filter", "maximum_filter"):
        compare(backend, name, x, mode=mode, cval=-3.0, origin=origin, axes=axes, **kw)


@pytest.mark.parametrize("p", sample_grid(50, seed=9, dtype=DTYPES, mode=MODES, ndim=[1, 2, 3, 4],
                                          window=["size", "random"], rank=["low", "mid", "high", "neg"],
                                          origin=["0", "per-axis"], axes=[None, "last"]))
def test_rank_median_percentile(backend, rng, p):
    x = data(rng, SHAPES[p["ndim"]], p["dtype"])
    axes = None if p["axes"] is None else (-1,)
    n = x.ndim if axes is None else 1
    fs = _fshape(rng, n, big=True)
    if p["window"] == "size":
        kw = dict(size=fs)
        count = int(np.prod(fs))
    else:
        fp = _footprint(rng, fs, "random")
        kw = dict(footprint=fp)
        count = int(fp.sum())
    rank = {"low": min(1, count - 1), "mid": count // 2, "high": count - 1, "neg": -1}[p["rank"]]
    origin = 0 if p["origin"] == "0" else tuple(int(rng.integers(-(s // 2), (s - 1) // 2 + 1)) for s in fs)
    common = dict(mode=p["mode"], cval=2.0, origin=origin, axes=axes, **kw)
    compare(backend, "rank_filter", x, rank, **common)
    compare(backend, "median_filter", x, **common)
    for pct in (0, 25.5, 50, -20, 100):
        compare(backend, "percentile_filter", x, pct, **common)


def test_rank_filter_1d_float16(backend, rng):
    """scipy's 1-D rank path takes float16 (through float32); its n-D path refuses it."""
    x = rng.standard_normal(15).astype(np.float16)
    compare(backend, "median_filter", x, size=4, mode="wrap")
    compare(backend, "percentile_filter", x, 50, footprint=[1, 0, 1, 1], origin=-1)
    with pytest.raises(RuntimeError):
        ndi.median_filter(backend.asarray(x.reshape(3, 5)), size=3)
    with pytest.raises(RuntimeError):
        sn.median_filter(x.reshape(3, 5), size=3)


def test_median_filter_sizes_past_the_edge(backend, rng):
    """Windows longer than the axis, on every mode (the extension repeats)."""
    for mode in MODES:
        x = data(rng, (3, 4), "int16")
        compare(backend, "median_filter", x, size=(7, 9), mode=mode, cval=5)
        compare(backend, "uniform_filter", x.astype(np.float64), size=(8, 11), mode=mode)
        compare(backend, "minimum_filter", x, size=(5, 10), mode=mode, cval=-4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rank_filters_signed_zeros_bit_for_bit(rng, dtype):
    """Windows holding both zeros: +0.0 == -0.0, so which one a selection returns
    depends on its order; the CPU backend returns scipy's (its quickselect's) bits.
    (NumPy only: the GPU kernels on main do not promise the zero's sign yet.)"""
    vals = np.array([0.0, -0.0, 1.0, -1.0, 0.0, -0.0], dtype)
    for t in range(40):
        x = rng.choice(vals, (11 + t % 5, 13 + t % 7))
        size = 3 + 2 * (t % 2)
        for name, args, kw in (("median_filter", (), dict(size=size)),
                               ("rank_filter", (int(rng.integers(0, size * size)),), dict(size=size)),
                               ("percentile_filter", (float(rng.uniform(0, 100)),), dict(size=size)),
                               ("median_filter", (), dict(footprint=rng.random((3, 4)) < 0.7, mode="constant",
                                                         cval=-0.0)),
                               ("rank_filter", (1,), dict(size=(1, size), mode="wrap"))):
            if "footprint" in kw and not kw["footprint"].any():
                continue
            expected = getattr(sn, name)(x, *args, **kw)
            got = getattr(ndi, name)(x, *args, **kw)
            np.testing.assert_array_equal(got.view(f"u{x.itemsize}"), expected.view(f"u{x.itemsize}"),
                                          err_msg=f"{name} {args} {kw}")


# ---- outputs, layouts, dtypes ------------------------------------------------------------------


@pytest.mark.parametrize("out_dtype", [np.float32, "float64", float, np.dtype("int16"), "uint8", bool, np.int32])
@pytest.mark.parametrize("name", ["gaussian_filter", "uniform_filter", "correlate", "median_filter",
                                  "minimum_filter1d", "sobel", "laplace", "gaussian_gradient_magnitude"])
def test_output_dtype(backend, rng, name, out_dtype):
    x = data(rng, (6, 7), "float64")
    x = x / 100  # keep integer outputs of float data in range
    args = {"gaussian_filter": (1.0,), "uniform_filter": (3,), "correlate": (rng.standard_normal((2, 3)),),
            "median_filter": (), "minimum_filter1d": (3,), "sobel": (), "laplace": (),
            "gaussian_gradient_magnitude": (1.0,)}[name]
    kw = {"median_filter": dict(size=3)}.get(name, {})
    if out_dtype is bool and name not in ("correlate", "median_filter", "minimum_filter1d", "laplace"):
        pytest.skip("multi-pass filters into bool differ by design (see multipass_output)")
    try:
        expected = getattr(sn, name)(x, *args, output=out_dtype, **kw)
    except Exception as e:  # e.g. sqrt into int16, unsafe casts scipy refuses
        with pytest.raises(type(e)):
            getattr(ndi, name)(backend.asarray(x), *args, output=out_dtype, **kw)
        return
    got = getattr(ndi, name)(backend.asarray(x), *args, output=out_dtype, **kw)
    assert isinstance(got, backend.type)
    assert_close(backend.asnumpy(got), expected)


@pytest.mark.parametrize("name", ["gaussian_filter", "uniform_filter", "correlate1d", "correlate", "sobel",
                                  "maximum_filter", "rank_filter", "gaussian_laplace",
                                  "gaussian_gradient_magnitude", "percentile_filter"])
@pytest.mark.parametrize("out_dtype", ["float32", "int32", "uint8"])
def test_output_array_in_place(backend, rng, name, out_dtype):
    x = data(rng, (5, 6, 4), "int16")
    args = {"gaussian_filter": (0.8,), "uniform_filter": (2,), "correlate1d": ([0.25, 0.5, -0.25],),
            "correlate": (np.full((2, 2, 3), 0.5),), "sobel": (), "maximum_filter": (), "rank_filter": (2,),
            "gaussian_laplace": (1.0,), "gaussian_gradient_magnitude": (1.0,),
            "percentile_filter": (30,)}[name]
    kw = {"maximum_filter": dict(size=(2, 3, 1)), "rank_filter": dict(size=3),
          "percentile_filter": dict(footprint=np.eye(3, dtype=bool)[:, :, None])}.get(name, {})
    expected = np.zeros(x.shape, out_dtype)
    ret = getattr(sn, name)(x, *args, output=expected, **kw)
    out = backend.asarray(np.zeros(x.shape, out_dtype))
    got = getattr(ndi, name)(backend.asarray(x), *args, output=out, **kw)
    assert got is out if ret is expected else got is None
    assert_close(backend.asnumpy(out), expected)


def test_output_views_and_aliasing(backend, rng):
    """Strided, reversed and transposed inputs and outputs; output == input (in place)."""
    base = data(rng, (9, 10, 4), "float32")
    for x in (base[::2], base[:, ::-1], base.transpose(2, 0, 1), base[1:, 2:, ::3]):
        compare(backend, "gaussian_filter", x, 1.0)
        compare(backend, "median_filter", x, size=3)
        compare(backend, "correlate", x, np.arange(8.0).reshape(2, 2, 2) - 3)
    exp_base = base.copy()
    sn.uniform_filter(exp_base, 3, output=exp_base)
    d = backend.asarray(base.copy())
    ret = ndi.uniform_filter(d, 3, output=d)
    assert ret is d
    assert_close(backend.asnumpy(d), exp_base)
    exp_base = base.copy()
    sn.median_filter(exp_base, footprint=np.eye(3, dtype=bool)[None], output=exp_base)
    d = backend.asarray(base.copy())
    ndi.median_filter(d, footprint=np.eye(3, dtype=bool)[None], output=d)
    assert_close(backend.asnumpy(d), exp_base)
    # output a strided view
    exp_full = np.zeros((10, 10, 4), np.float64)
    sn.sobel(base[::2, ::1], output=exp_full[::2])
    full = backend.asarray(np.zeros((10, 10, 4), np.float64))
    ndi.sobel(backend.asarray(base[::2, ::1]), output=full[::2])
    assert_close(backend.asnumpy(full), exp_full)


def test_same_type_out(any_backend, rng):
    x = data(rng, (8, 9), "float32")
    for fn, args in ((ndi.gaussian_filter, (1.0,)), (ndi.median_filter, ()), (ndi.sobel, ()),
                     (ndi.gaussian_gradient_magnitude, (1.0,)), (ndi.uniform_filter1d, (3,)), (ndi.laplace, ())):
        kw = {"median_filter": dict(size=3)}.get(fn.__name__, {})
        got = fn(any_backend.asarray(x), *args, **kw)
        assert isinstance(got, any_backend.type), fn.__name__
        assert_close(any_backend.asnumpy(got), getattr(sn, fn.__name__)(x, *args, **kw))


def test_lists_and_scalars_take_numpy_path():
    x = [[1, 2, 3], [4, 5, 6]]
    got = ndi.uniform_filter(x, 2)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, sn.uniform_filter(x, 2))
    assert_close(ndi.gaussian_filter(np.float64(3.5), 1.0), sn.gaussian_filter(np.float64(3.5), 1.0))


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4, 2)])
def test_empty_arrays(rng, shape):
    x = np.zeros(shape, np.float32)
    fp = np.ones((2,) * len(shape), bool)
    fp.flat[0] = False
    for name, args, kw in (("gaussian_filter", (1.0,), {}), ("uniform_filter", (3,), {}),
                           ("median_filter", (), dict(size=3)), ("correlate1d", ([1.0, 2.0],), {}),
                           ("maximum_filter", (), dict(footprint=fp)), ("median_filter", (), dict(footprint=fp)),
                           ("laplace", (), {}), ("laplace", (), dict(output=np.int8, axes=(-1,)))):
        assert_close(getattr(ndi, name)(x, *args, **kw), getattr(sn, name)(x, *args, **kw), name)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_via_real_components(rng, dtype):
    x = (rng.standard_normal((6, 7)) + 1j * rng.standard_normal((6, 7))).astype(dtype)
    w = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    wr = rng.standard_normal((2, 3))
    for name, args in (("correlate1d", (w,)), ("convolve1d", (w,)), ("correlate", (wr,)), ("convolve", (wr,)),
                       ("uniform_filter1d", (3,)), ("uniform_filter", (2,)), ("gaussian_filter", (1.0,)),
                       ("laplace", ())):
        assert_close(getattr(ndi, name)(x, *args, mode="wrap"), getattr(sn, name)(x, *args, mode="wrap"), name)
    xr = rng.standard_normal((6, 7))
    assert_close(ndi.correlate1d(xr, w), sn.correlate1d(xr, w))
    assert_close(ndi.convolve(xr, wr + 1j * wr), sn.convolve(xr, wr + 1j * wr))


STORE_VALUES = [300.7, -3.0, 0.5, -0.5, 2.5, 70000.5, -70000.5, 3e9, -3e9, 5e9, 2.0 ** 31 + 5, -(2.0 ** 31) - 5,
                2.0 ** 63 + 4096, 1e19, 2e19, -1e19, float("nan"), float("inf"), -float("inf")]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                   "uint64"])
def test_out_of_range_stores_match_scipy(backend, dtype):
    """Float results stored into integer outputs: scipy's C casts on x86-64 (32-bit
    truncation for the narrow types, 64-bit for uint32/int64, uint64's split)."""
    x = np.array(STORE_VALUES)
    out = np.bool_ if dtype == "bool" else np.dtype(dtype)
    for name, args in (("correlate1d", ([1.0],)), ("uniform_filter1d", (1,)), ("correlate", (np.ones(1),)),
                       ("minimum_filter1d", (1,))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = getattr(sn, name)(x, *args, output=out)
        got = getattr(ndi, name)(backend.asarray(x), *args, output=out)
        assert_close(backend.asnumpy(got), expected, err_msg=f"{name} -> {dtype}")


def test_int64_and_uint64_full_range(rng):
    """Huge sums stored into 64-bit outputs follow scipy's x86-64 cast."""
    for dt in ("int64", "uint64", "int8", "uint32"):
        x = data(rng, (20,), dt)
        assert_close(ndi.uniform_filter1d(x, 3), sn.uniform_filter1d(x, 3), dt)
        assert_close(ndi.minimum_filter1d(x, 4), sn.minimum_filter1d(x, 4), dt)
        # 2-D: scipy's 1-D fast rank path compares int64 exactly (and uint64 as int64);
        # its n-D path and fovea compare as double (see docs/ndimage.md)
        assert_close(ndi.median_filter(x.reshape(4, 5), 3), sn.median_filter(x.reshape(4, 5), 3), dt)
        assert_close(ndi.correlate1d(x, [0.5, -0.5]), sn.correlate1d(x, [0.5, -0.5]), dt)


# ---- API surface and errors ---------------------------------------------------------------------

FILTER_NAMES = ["correlate", "convolve", "correlate1d", "convolve1d", "gaussian_filter", "gaussian_filter1d",
                "gaussian_gradient_magnitude", "gaussian_laplace", "generic_gradient_magnitude",
                "generic_laplace", "laplace", "sobel", "prewitt", "uniform_filter", "uniform_filter1d",
                "minimum_filter", "minimum_filter1d", "maximum_filter", "maximum_filter1d", "median_filter",
                "rank_filter", "percentile_filter"]


@pytest.mark.parametrize("name", FILTER_NAMES)
def test_signature_matches_scipy(name):
    assert inspect.signature(getattr(ndi, name)) == inspect.signature(getattr(sn, name))


X2 = np.arange(30, dtype=np.float64).reshape(5, 6)

ERRORS = [
    ("correlate1d", (X2, []), {}),
    ("correlate1d", (X2, [[1, 2]]), {}),
    ("correlate1d", (X2, [1, 2, 3]), dict(axis=2)),
    ("correlate1d", (X2, [1, 2, 3]), dict(axis=1.0)),
    ("correlate1d", (X2, [1, 2, 3]), dict(origin=2)),
    ("correlate1d", (X2, [1, 2, 3]), dict(origin=0.5)),
    ("correlate1d", (X2, [1, 2, 3]), dict(mode="foo")),
    ("correlate1d", (X2, [1, 2, 3]), dict(mode=["reflect", "wrap"])),
    ("correlate1d", (X2, [1, 2, 3]), dict(cval="1")),
    ("correlate1d", (X2, [1, 2, 3]), dict(output=np.zeros((5, 5)))),
    ("correlate1d", (X2, [1, 2, 3]), dict(output="bool")),
    ("correlate1d", (X2, [1, 2, 3]), dict(output=np.float16)),
    ("correlate1d", (X2.astype(np.float16), [1, 2, 3]), {}),
    ("correlate1d", (np.float64(1.0), [1, 2, 3]), {}),
    ("convolve1d", (X2, [1, 2, 3]), dict(origin=-2)),
    ("correlate", (X2, np.ones((3,))), {}),
    ("correlate", (X2, np.ones((3, 3))), dict(origin=(2, 0))),
    ("correlate", (X2, np.ones((3, 3))), dict(mode=["reflect", "wrap"])),
    ("correlate", (X2, np.ones((3, 3))), dict(axes=(0, 0))),
    ("correlate", (X2, np.ones((3, 3))), dict(axes=(0, 2))),
    ("correlate", (X2, np.ones((3,))), dict(axes=(0, 1))),
    ("convolve", (X2, np.ones((3, 3))), dict(origin=(0, -2))),
    ("gaussian_filter", (X2, [1, 2, 3]), {}),
    ("gaussian_filter", (X2, 1), dict(order=-1)),
    ("gaussian_filter", (X2, 1), dict(radius=1.5)),
    ("gaussian_filter", (X2, 1), dict(mode="nope")),
    ("gaussian_filter1d", (X2, -1), {}),
    ("gaussian_filter1d", (X2, 0), {}),
    ("gaussian_filter1d", (X2, 1), dict(radius=-1)),
    ("uniform_filter1d", (X2, 0), {}),
    ("uniform_filter1d", (X2, 2.5), {}),
    ("uniform_filter1d", (X2, 3), dict(origin=2)),
    ("uniform_filter", (X2, (3, 3, 3)), {}),
    ("uniform_filter", (X2, 3), dict(axes=(3,))),
    ("minimum_filter1d", (X2, 0), {}),
    ("minimum_filter1d", (X2, 3), dict(origin=-2)),
    ("maximum_filter1d", (X2.astype(np.complex128), 3), {}),
    ("minimum_filter", (X2,), {}),
    ("minimum_filter", (X2,), dict(footprint=np.zeros((3, 3)))),
    ("minimum_filter", (X2,), dict(size=3, origin=2)),
    ("maximum_filter", (X2,), dict(footprint=np.eye(3), origin=(0, 2))),
    ("maximum_filter", (X2,), dict(footprint=np.eye(3), mode=["wrap", "reflect"])),
    ("maximum_filter", (X2,), dict(footprint=np.eye(3)[0], axes=(0, 1))),
    ("median_filter", (X2,), {}),
    ("median_filter", (X2,), dict(size=3, origin=(2, 0))),
    ("rank_filter", (X2, 9), dict(size=3)),
    ("rank_filter", (X2, -10), dict(size=3)),
    ("rank_filter", (X2, 1.5), dict(size=3)),
    ("percentile_filter", (X2, 101), dict(size=3)),
    ("percentile_filter", (X2, -101), dict(size=3)),
    ("median_filter", (X2.astype(np.complex64),), dict(size=3)),
    ("rank_filter", (X2, 2), dict(footprint=np.eye(3), mode=["wrap", "reflect"])),
    ("sobel", (X2,), dict(axis=2)),
    ("correlate", (X2, np.ones((3,))), dict(axes=-1)),  # scipy does not normalise a scalar axis here
    ("uniform_filter", (X2, 3), dict(axes=5)),
    ("generic_laplace", (X2, None), {}),
    ("laplace", (X2,), dict(axes=(0, 0))),
    ("laplace", (X2,), dict(axes=(1, -1))),
    ("laplace", (X2,), dict(axes=(0, 2))),
    ("laplace", (X2,), dict(axes=(-3,))),
    ("laplace", (X2,), dict(axes=2)),  # a scalar axis: numpy's AxisError from correlate1d
    ("laplace", (X2,), dict(axes=1.5)),
    ("laplace", (X2,), dict(mode=["reflect"])),
    ("laplace", (X2,), dict(mode="foo")),
    ("laplace", (X2,), dict(mode=["reflect", "foo"])),
    ("laplace", (X2,), dict(cval="1")),
    ("laplace", (X2,), dict(cval=1j)),
    ("laplace", (X2,), dict(output=np.zeros((5, 5)))),
    ("laplace", (X2,), dict(output=np.float16)),
    ("laplace", (X2,), dict(output="bool")),
    ("laplace", (X2,), dict(output=np.complex128)),
    ("laplace", (X2.astype(np.float16),), {}),
]


@pytest.mark.parametrize("name,args,kw", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_invalid_arguments_raise_like_scipy(name, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as ref:
            getattr(sn, name)(*args, **kw)
        with pytest.raises(type(ref.value)):
            getattr(ndi, name)(*args, **kw)


def test_size_and_footprint_warns():
    with pytest.warns(UserWarning, match="ignoring size"):
        got = ndi.minimum_filter(X2, size=2, footprint=np.eye(3, dtype=bool))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sn.minimum_filter(X2, size=2, footprint=np.eye(3, dtype=bool))
    assert_close(got, expected)
    with pytest.warns(UserWarning, match="ignoring size"):
        ndi.median_filter(X2, size=2, footprint=np.eye(3, dtype=bool))


def test_input_untouched(rng):
    x = data(rng, (6, 7), "uint8")
    keep = x.copy()
    for fn in (lambda a: ndi.gaussian_filter(a, 1), lambda a: ndi.median_filter(a, 3),
               lambda a: ndi.sobel(a), lambda a: ndi.maximum_filter(a, footprint=np.eye(3))):
        fn(x)
        np.testing.assert_array_equal(x, keep)


def test_readonly_output_refused(rng):
    x = data(rng, (6, 7), "float64")
    out = np.zeros_like(x)
    out.flags.writeable = False
    with pytest.raises(ValueError):
        ndi.gaussian_filter(x, 1, output=out)


@pytest.mark.gpu
def test_device_mismatch_raises(cp, rng):
    import fovea

    x = data(rng, (6, 7), "float32")
    with pytest.raises(fovea.DeviceError):
        ndi.gaussian_filter(cp.asarray(x), 1.0, output=np.zeros_like(x))
    with pytest.raises(fovea.DeviceError):
        ndi.gaussian_filter(x, 1.0, output=cp.zeros(x.shape, cp.float32))


def test_fovea_array_in_and_out(rng):
    import fovea

    x = data(rng, (6, 7), "int16")
    got = ndi.gaussian_filter(fovea.asarray(x), 1.0)
    assert isinstance(got, fovea.Array)
    assert_close(np.asarray(got), sn.gaussian_filter(x, 1.0))
    out = fovea.empty((6, 7), "float32")
    assert ndi.sobel(fovea.asarray(x), output=out) is out
    assert_close(np.asarray(out), sn.sobel(x, output=np.float32))
    xf = x.astype(np.float32)
    got = ndi.gaussian_gradient_magnitude(fovea.asarray(xf), 1.0)
    assert isinstance(got, fovea.Array)
    assert_close(np.asarray(got), sn.gaussian_gradient_magnitude(xf, 1.0))


@pytest.mark.gpu
def test_torch_cuda_without_cupy(torch_cuda, rng, monkeypatch):
    """Single-pass filters work on torch CUDA tensors without CuPy; compositions say
    that they need it."""
    from fovea import _interop

    monkeypatch.setattr(_interop, "cupy", lambda: None)
    x = data(rng, (6, 7), "float32")
    t = torch_cuda.from_numpy(x).cuda()
    for name, args, kw in (("gaussian_filter", (1.0,), {}), ("median_filter", (), dict(size=3)),
                           ("sobel", (), {}), ("uniform_filter", (0,), {}), ("laplace", (), {})):
        got = getattr(ndi, name)(t, *args, **kw)
        assert isinstance(got, torch_cuda.Tensor) and got.is_cuda
        assert_close(got.cpu().numpy(), getattr(sn, name)(x, *args, **kw), name)
    out = torch_cuda.zeros((6, 7), dtype=torch_cuda.float64, device="cuda")
    assert ndi.correlate(t, np.ones((2, 2)), output=out) is out
    assert_close(out.cpu().numpy(), sn.correlate(x, np.ones((2, 2)), output=np.float64))
    with pytest.raises(ImportError, match="gaussian_gradient_magnitude"):
        ndi.gaussian_gradient_magnitude(t, 1.0)


@pytest.mark.gpu
def test_side_streams(cp, torch_cuda, rng):
    """Work on a CuPy side stream and on a torch side stream stays on that stream,
    the CuPy steps of compositions included."""
    x = data(rng, (64, 80), "float32")
    expected = sn.gaussian_gradient_magnitude(x, 1.5)
    with cp.cuda.Stream(non_blocking=True) as s:
        d = cp.asarray(x)
        got = ndi.gaussian_gradient_magnitude(d, 1.5)
        med = ndi.median_filter(d, size=3)
        s.synchronize()
    assert_close(cp.asnumpy(got), expected)
    assert_close(cp.asnumpy(med), sn.median_filter(x, size=3))
    s2 = torch_cuda.cuda.Stream()
    with torch_cuda.cuda.stream(s2):
        t = torch_cuda.from_numpy(x).cuda()
        got = ndi.gaussian_gradient_magnitude(t, 1.5)
        lap = ndi.gaussian_laplace(t, 1.0)
    s2.synchronize()
    assert_close(got.cpu().numpy(), expected)
    assert_close(lap.cpu().numpy(), sn.gaussian_laplace(x, 1.0))


# ---- parameter arrays on the device (weights read back through a pinned buffer) -------------

@pytest.mark.gpu
@pytest.mark.parametrize("wdtype", ["float64", "float32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "large"])
def test_device_weights_match_host_weights(cp, rng, wdtype, layout):
    """CuPy weights (small: one pinned copy; strided or over 64 KiB: ndarray.get()) give
    the results of the same weights as NumPy, and host() returns them unchanged."""
    from fovea import _interop

    n = {"contiguous": 9, "strided": 18, "large": 70001}[layout]
    w = (rng.random(n) * 4 - 2).astype(wdtype) if wdtype != "bool" else rng.random(n) < 0.5
    wd = cp.asarray(w)
    if layout == "strided":
        w, wd = w[::2], wd[::2]
    got = _interop.host(wd)
    assert got.dtype == w.dtype and got.shape == w.shape
    np.testing.assert_array_equal(got, w)
    if layout == "large":
        return
    x = cp.asarray(data(rng, (37, 41), "float32"))
    for name in ("correlate1d", "convolve1d"):
        a = getattr(ndi, name)(x, wd, axis=0)
        b = getattr(ndi, name)(x, w, axis=0)
        np.testing.assert_array_equal(cp.asnumpy(a), cp.asnumpy(b))
    w2 = cp.asarray(rng.random((3, 5)).astype(wdtype))
    np.testing.assert_array_equal(cp.asnumpy(ndi.correlate(x, w2)), cp.asnumpy(ndi.correlate(x, w2.get())))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("wkind", ["random", "symmetric", "antisymmetric", "large", "long"])
@pytest.mark.parametrize("axis", [0, -1])
def test_correlate1d_weights_stay_on_device(cp, rng, monkeypatch, dtype, wkind, axis):
    """CuPy weights for CuPy data are read on the GPU (fv_correlate1d_array: never copied
    to the host) and give the bytes of the same weights from NumPy, and scipy's values."""
    from fovea import _interop

    n = {"long": 151, "large": 5}.get(wkind, 9)
    w = rng.random(n) * 2 - 1
    if wkind == "symmetric":
        w = (w + w[::-1]) / 2
    elif wkind == "antisymmetric":
        w = (w - w[::-1]) / 2
    elif wkind == "large":
        w = w * 3e6   # past the checked float path's bound: every 8-bit output summed in double
    x = data(rng, (53, 70), dtype)
    xd, wd = cp.asarray(x), cp.asarray(w)
    for name, mode in (("correlate1d", "reflect"), ("convolve1d", "constant")):
        fn = getattr(ndi, name)
        want = getattr(sn, name)(x, w, axis=axis, mode=mode, cval=2.0)
        host = cp.asnumpy(fn(xd, w, axis=axis, mode=mode, cval=2.0))

        def no_read_back(*a, **k):
            raise AssertionError("weights read back to the host")

        with monkeypatch.context() as m:
            m.setattr(_interop, "host", no_read_back)
            got = fn(xd, wd, axis=axis, mode=mode, cval=2.0)
        assert isinstance(got, cp.ndarray)
        np.testing.assert_array_equal(cp.asnumpy(got), host)
        if np.dtype(dtype).kind == "f":
            assert_close(host, want)
        else:
            np.testing.assert_array_equal(host, want)
        # other weights dtypes convert on the device
        np.testing.assert_array_equal(cp.asnumpy(fn(xd, wd.astype(cp.float32), axis=axis)),
                                      cp.asnumpy(fn(xd, w.astype(np.float32), axis=axis)))
    with pytest.raises(RuntimeError, match="no filter weights"):
        ndi.correlate1d(xd, cp.zeros((0,)))
    with pytest.raises(RuntimeError, match="no filter weights"):
        ndi.correlate1d(xd, cp.zeros((2, 2)))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [4, 5])
def test_convolve1d_device_weights_complex_and_origins(cp, rng, n):
    """convolve1d reads CuPy weights backwards on the GPU (origins mirrored as scipy does,
    even lengths included); complex weights take the host path: NumPy weights' results."""
    x = data(rng, (33, 47), "float32")
    xd = cp.asarray(x)
    w = rng.random(n) - 0.5
    for origin in range(-(n // 2), (n - 1) // 2 + 1):
        for axis in (0, 1):
            got = cp.asnumpy(ndi.convolve1d(xd, cp.asarray(w), axis=axis, origin=origin, mode="wrap"))
            np.testing.assert_array_equal(got, cp.asnumpy(ndi.convolve1d(xd, w, axis=axis, origin=origin, mode="wrap")))
    wc = w + 1j * (rng.random(n) - 0.5)
    got = cp.asnumpy(ndi.convolve1d(xd, cp.asarray(wc), axis=1))
    assert_close(got, sn.convolve1d(x.astype(np.complex64), wc, axis=1))
    with pytest.raises(ValueError, match="origin"):
        ndi.convolve1d(xd, cp.asarray(w), origin=n)


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">i2", ">u2", ">i4", ">u8"])
@pytest.mark.parametrize("fn,args", [("median_filter", (3,)), ("gaussian_filter", (1.5,)),
                                     ("uniform_filter", (4,)), ("maximum_filter", (3,)),
                                     ("sobel", ()), ("grey_dilation", ((3, 3),))])
def test_byte_swapped_input(rng, dtype, fn, args):
    # big-endian data is worked on as a native copy, as scipy does (its results are native)
    native = random_array(rng, (13, 17), np.dtype(dtype).newbyteorder("="), lo=0, hi=1000)
    swapped = native.astype(dtype)
    got = getattr(ndi, fn)(swapped, *args)
    want = getattr(sn, fn)(swapped, *args)
    assert got.dtype == want.dtype and got.dtype.isnative
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, getattr(ndi, fn)(native, *args))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int32", "uint64", "bool"])
@pytest.mark.parametrize("cval", [-2.5, 300.0, 7.9])
def test_rank_filters_1d_cval_outside_the_type(backend, dtype, cval):
    # scipy's 1-D fast path runs integer data as int64 with cval cast to int64
    x = np.array([20, 57, 99, 3, 26, 1, 0, 100, 5]).astype(dtype)
    for name, args in (("median_filter", (5,)), ("rank_filter", (1, 4)), ("percentile_filter", (30, 5))):
        compare(backend, name, x, *args, mode="constant", cval=cval)
