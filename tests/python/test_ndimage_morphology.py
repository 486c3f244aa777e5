"""fovea.ndimage morphology and distance transforms against scipy.ndimage.

Same scheme as test_ndimage_filters: sampled grids (dtype x structure x
iterations x mask x border x origin x axes, ...), one run per array backend
(NumPy; CuPy where a GPU and CuPy exist), exact comparisons for binary and
integer results, rtol 1e-12 for float64 distances, and invalid arguments raising
scipy's exception types (checked by calling scipy).
"""

import inspect
import warnings

import numpy as np
import pytest
import scipy.ndimage as sn

from fovea import ndimage as ndi
from conftest import random_array
from test_ndimage_filters import (  # noqa: F401  (backend fixtures are used by name)
    MODES,
    SHAPES,
    any_backend,
    assert_close,
    backend,
    compare,
    sample_grid,
)

BIN_DTYPES = ["bool", "uint8", "int16", "float32", "float64"]
GREY_DTYPES = ["uint8", "int16", "int32", "uint16", "float32", "float64"]
BIN_SHAPES = {1: (17,), 2: (9, 10), 3: (5, 6, 7), 4: (4, 3, 5, 4)}


def binary_data(rng, shape, dtype, density=0.65):
    """Random 0/1 (as dtype) with the given density of ones; floats get other nonzero
    values too (read as True)."""
    a = rng.random(shape) < density
    if np.dtype(dtype).kind == "f":
        return np.where(a, rng.uniform(0.5, 3.0, shape) * rng.choice([-1, 1], shape), 0).astype(dtype)
    return a.astype(dtype)


def structure_for(rng, kind, n):
    if kind == "default":
        return None
    if kind == "conn1":
        return sn.generate_binary_structure(n, 1)
    if kind == "full":
        return sn.generate_binary_structure(n, n)
    shape = tuple(int(v) for v in rng.integers(1, 4, n))
    s = rng.random(shape) < 0.6
    s.flat[int(rng.integers(0, s.size))] = True
    return s


def origin_for_shape(rng, kind, shape):
    if kind == "0":
        return 0
    return tuple(int(rng.integers(-(k // 2), (k - 1) // 2 + 1)) for k in shape)


def _axes(kind, ndim):
    return {None: None, "last": (-1,), "pair": (0, -1) if ndim > 1 else (0,)}[kind]


# ---- binary morphology ---------------------------------------------------------------------

BIN_GRID = sample_grid(60, seed=11, dtype=BIN_DTYPES, ndim=[1, 2, 3, 4], structure=["default", "conn1", "full",
                                                                                     "random"],
                       iterations=[1, 2, 3, 0, -1], mask=[False, True], border=[0, 1], origin=["0", "rand"],
                       axes=[None, "last", "pair"], brute_force=[False, True])


def _bin_args(rng, p):
    x = binary_data(rng, BIN_SHAPES[p["ndim"]], p["dtype"])
    axes = _axes(p["axes"], x.ndim)
    n = x.ndim if axes is None else len(axes)
    st = structure_for(rng, p["structure"], n)
    sshape = st.shape if st is not None else (3,) * n
    origin = origin_for_shape(rng, p["origin"], sshape)
    if p["iterations"] < 1:
        # repeating until nothing changes: scipy loops forever when the passes cycle,
        # which needs a structure whose (origin-shifted) centre is off; keep it on
        st = (sn.generate_binary_structure(n, 1) if st is None else st).copy()
        o = (origin,) * n if np.isscalar(origin) else origin
        st[tuple(oi + k // 2 for oi, k in zip(o, st.shape))] = True
    mask = binary_data(rng, x.shape, "bool", 0.7) if p["mask"] else None
    return x, dict(structure=st, iterations=p["iterations"], mask=mask, border_value=p["border"], origin=origin,
                   brute_force=p["brute_force"], axes=axes)


@pytest.mark.parametrize("p", BIN_GRID)
def test_binary_erosion_dilation(backend, rng, p):
    x, kw = _bin_args(rng, p)
    if kw["mask"] is not None:
        kw["mask"] = backend.asarray(kw["mask"])
        ref_kw = dict(kw, mask=backend.asnumpy(kw["mask"]))
    else:
        ref_kw = kw
    for name in ("binary_erosion", "binary_dilation"):
        expected = getattr(sn, name)(x, **ref_kw)
        got = getattr(ndi, name)(backend.asarray(x), **kw)
        assert isinstance(got, backend.type)
        assert_close(backend.asnumpy(got), expected, err_msg=f"{name} {p}")


@pytest.mark.parametrize("p", sample_grid(30, seed=12, dtype=BIN_DTYPES, ndim=[1, 2, 3, 4],
                                          structure=["default", "conn1", "full", "random"], iterations=[1, 2],
                                          mask=[False, True], border=[0, 1], origin=["0", "rand"],
                                          axes=[None, "last", "pair"], brute_force=[False, True]))
def test_binary_opening_closing(backend, rng, p):
    x, kw = _bin_args(rng, p)
    if kw["mask"] is not None:
        kw["mask"] = backend.asarray(kw["mask"])
    ref_kw = dict(kw, mask=None if kw["mask"] is None else backend.asnumpy(kw["mask"]))
    for name in ("binary_opening", "binary_closing"):
        expected = getattr(sn, name)(x, **ref_kw)
        got = getattr(ndi, name)(backend.asarray(x), **kw)
        assert isinstance(got, backend.type)
        assert_close(backend.asnumpy(got), expected, err_msg=f"{name} {p}")


@pytest.mark.parametrize("p", sample_grid(20, seed=13, dtype=BIN_DTYPES, ndim=[1, 2, 3, 4],
                                          structure=["default", "conn1", "full", "random"],
                                          origin=["0", "rand"], axes=[None, "last"]))
def test_binary_propagation_fill_holes_hit_or_miss(backend, rng, p):
    x = binary_data(rng, BIN_SHAPES[p["ndim"]], p["dtype"], 0.55)
    axes = _axes(p["axes"], x.ndim)
    n = x.ndim if axes is None else len(axes)
    st = structure_for(rng, p["structure"], n)
    sshape = st.shape if st is not None else (3,) * n
    origin = origin_for_shape(rng, p["origin"], sshape)
    seed = binary_data(rng, x.shape, "bool", 0.1)
    expected = sn.binary_propagation(seed, st, mask=x, origin=origin, axes=axes)
    got = ndi.binary_propagation(backend.asarray(seed), st, mask=backend.asarray(x), origin=origin, axes=axes)
    assert_close(backend.asnumpy(got), expected, "binary_propagation")
    compare(backend, "binary_fill_holes", x, st, origin=origin, axes=axes)
    st2 = structure_for(rng, "random", n)
    compare(backend, "binary_hit_or_miss", x, st, axes=axes)
    o1 = origin_for_shape(rng, p["origin"], sshape)
    o2 = origin_for_shape(rng, "rand", st2.shape)
    compare(backend, "binary_hit_or_miss", x, st, st2, origin1=o1, origin2=o2, axes=axes)


FLOOD_SHAPES = {1: (300,), 2: (61, 70), 3: (13, 17, 19), 4: (6, 7, 5, 8)}


def _sym_structure(rng, n):
    """A random point-symmetric 3 x ... x 3 structure holding its centre."""
    s = rng.random((3,) * n) < 0.5
    s = s | s[(slice(None, None, -1),) * n]
    s[(1,) * n] = True
    return s


@pytest.mark.parametrize("p", sample_grid(40, seed=21, dtype=BIN_DTYPES, ndim=[1, 2, 3, 4],
                                          structure=["default", "conn1", "full", "sym"],
                                          mask=["none", "bool", "uint8", "int8", "float64"], border=[0, 1],
                                          op=["binary_dilation", "binary_erosion"], iterations=[-1, 0]))
def test_binary_until_convergence_by_labels(backend, rng, p):
    """Passes to convergence, which run as one labelling for symmetric 3^n structures:
    maze-like data (long paths), masks that leave seeds outside them, both border
    values, every mask dtype (float masks take the pass-by-pass path: scipy reads them
    as int8 after the first pass)."""
    shape = FLOOD_SHAPES[p["ndim"]]
    n = len(shape)
    x = binary_data(rng, shape, p["dtype"], 0.03)
    st = {"default": None, "conn1": sn.generate_binary_structure(n, 1),
          "full": sn.generate_binary_structure(n, n), "sym": _sym_structure(rng, n)}[p["structure"]]
    mask = None
    if p["mask"] != "none":
        m = rng.random(shape) < 0.6
        mask = (m * rng.choice([1, 3], shape)).astype(p["mask"]) if p["mask"] != "float64" else \
            np.where(m, rng.choice([0.5, 1.0, 256.0], shape), 0.0)
    kw = dict(structure=st, iterations=p["iterations"], border_value=p["border"])
    # scipy's passes after the first write into an int8 mask it was given (np.asarray
    # without a copy): it gets a copy, and fovea must leave the caller's mask alone
    expected = getattr(sn, p["op"])(x, mask=None if mask is None else mask.copy(), **kw)
    dm = None if mask is None else backend.asarray(mask)
    got = getattr(ndi, p["op"])(backend.asarray(x), mask=dm, **kw)
    assert isinstance(got, backend.type)
    if mask is not None:
        np.testing.assert_array_equal(backend.asnumpy(dm), mask)
    assert_close(backend.asnumpy(got), expected, err_msg=f"{p}")


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("conn", [1, 3])
def test_fill_holes_and_propagation_on_blobs(backend, rng, ndim, conn):
    """Blobs with holes, holes inside holes and objects touching the border."""
    shape = {1: (500,), 2: (120, 131), 3: (24, 27, 30)}[ndim]
    x = sn.gaussian_filter(rng.random(shape), 2.0)
    x = (x > np.median(x)) ^ (sn.gaussian_filter(rng.random(shape), 1.0) > 0.56)
    st = sn.generate_binary_structure(ndim, min(conn, ndim))
    compare(backend, "binary_fill_holes", x, st)
    compare(backend, "binary_fill_holes", x)
    seed = rng.random(shape) < 0.002
    expected = sn.binary_propagation(seed, st, mask=x)
    got = ndi.binary_propagation(backend.asarray(seed), st, mask=backend.asarray(x))
    assert_close(backend.asnumpy(got), expected, "binary_propagation")
    for out in ("uint8", "float32"):   # output arrays are filled in place
        exp = np.zeros(shape, out)
        sn.binary_fill_holes(x, st, output=exp)
        o = backend.asarray(np.zeros(shape, out))
        assert ndi.binary_fill_holes(backend.asarray(x), st, output=o) is None
        assert_close(backend.asnumpy(o), exp, f"fill_holes -> {out}")


@pytest.mark.parametrize("out", ["bool", "uint8", "int32", "float32", "float64"])
def test_binary_outputs(backend, rng, out):
    x = binary_data(rng, (7, 8), "uint8")
    for name, kw in (("binary_erosion", {}), ("binary_dilation", dict(iterations=2)),
                     ("binary_opening", {}), ("binary_closing", {}), ("binary_propagation", dict(mask=x)),
                     ("binary_hit_or_miss", {}), ("binary_fill_holes", {})):
        expected = np.zeros(x.shape, out)
        ref_kw = dict(kw)
        ret = getattr(sn, name)(x, output=expected, **ref_kw)
        if "mask" in kw:
            kw = dict(kw, mask=backend.asarray(kw["mask"]))
        o = backend.asarray(np.zeros(x.shape, out))
        got = getattr(ndi, name)(backend.asarray(x), output=o, **kw)
        assert (got is o) if ret is expected else (got is None), name
        assert_close(backend.asnumpy(o), expected, err_msg=f"{name} -> {out}")
        # a dtype as output: scipy's binary functions ignore it and return bool
        expected = getattr(sn, name)(x, output=np.float32, **ref_kw)
        got = getattr(ndi, name)(backend.asarray(x), output=np.float32, **kw)
        assert_close(backend.asnumpy(got), expected, err_msg=f"{name} dtype")


def test_binary_in_place_and_views(backend, rng):
    base = binary_data(rng, (10, 12), "bool")
    for x in (base[::2], base[:, ::-1], base.T, base[1:, ::3]):
        compare(backend, "binary_erosion", x, iterations=2)
        compare(backend, "binary_dilation", x, structure=np.ones((2, 3)))
    exp = base.copy()
    sn.binary_dilation(exp, output=exp)
    d = backend.asarray(base.copy())
    assert ndi.binary_dilation(d, output=d) is d
    assert_close(backend.asnumpy(d), exp)


def test_generate_and_iterate_structure(rng):
    for rank in range(0, 5):
        for conn in range(-1, rank + 2):
            got = ndi.generate_binary_structure(rank, conn)
            assert type(got) is np.ndarray
            assert_close(got, sn.generate_binary_structure(rank, conn))
    for st in (sn.generate_binary_structure(2, 1), np.array([[0, 1, 1], [1, 1, 0]]),
               sn.generate_binary_structure(3, 2), np.array([1, 0, 1, 1])):
        for it in (0, 1, 2, 3):
            assert_close(ndi.iterate_structure(st, it), sn.iterate_structure(st, it), f"{st} {it}")
        got, org = ndi.iterate_structure(st, 3, origin=1)
        exp, exp_org = sn.iterate_structure(st, 3, origin=1)
        assert_close(got, exp)
        assert org == exp_org


# ---- grey morphology -----------------------------------------------------------------------

GREY_GRID = sample_grid(50, seed=14, dtype=GREY_DTYPES, mode=MODES, ndim=[1, 2, 3, 4],
                        window=["size", "footprint", "structure", "both"], origin=["0", "rand"],
                        axes=[None, "last", "pair"])


def _grey_args(rng, p):
    x = random_array(rng, SHAPES[p["ndim"]], p["dtype"])
    if x.dtype == np.int32:
        x = (x // 1024).astype(np.int32)
    axes = _axes(p["axes"], x.ndim)
    n = x.ndim if axes is None else len(axes)
    shape = tuple(int(v) for v in rng.integers(1, 5, n))
    kw = dict(mode=p["mode"], cval=-2.0, axes=axes)
    if p["window"] == "size":
        kw["size"] = shape
    if p["window"] in ("footprint", "both"):
        fp = rng.random(shape) < 0.6
        fp.flat[0] = True
        kw["footprint"] = fp
    if p["window"] in ("structure", "both"):
        # integer heights: scipy adds them in the input's type after the first element
        kw["structure"] = rng.integers(-3, 4, shape).astype(np.float64)
    kw["origin"] = origin_for_shape(rng, p["origin"], shape)
    return x, kw


@pytest.mark.parametrize("p", GREY_GRID)
def test_grey_erosion_dilation_opening_closing(backend, rng, p):
    x, kw = _grey_args(rng, p)
    for name in ("grey_erosion", "grey_dilation", "grey_opening", "grey_closing"):
        compare(backend, name, x, **kw)


@pytest.mark.parametrize("p", sample_grid(30, seed=15, dtype=GREY_DTYPES + ["bool"], mode=MODES,
                                          ndim=[1, 2, 3, 4], window=["size", "footprint", "structure", "both"],
                                          origin=["0", "rand"], axes=[None, "last"]))
def test_gradient_laplace_tophats(backend, rng, p):
    if p["dtype"] == "bool":
        x = binary_data(rng, SHAPES[p["ndim"]], "bool")
        p = dict(p, window="size" if p["window"] in ("structure", "both") else p["window"])
    else:
        x = None
    x2, kw = _grey_args(rng, dict(p, dtype="int16" if p["dtype"] == "bool" else p["dtype"]))
    x = x2 if x is None else x
    if x.dtype.kind in "iu" and x.dtype.itemsize >= 2:
        x = (x // 8).astype(x.dtype)  # sums of dilation and erosion must not overflow differently
    names = ["white_tophat", "black_tophat"]
    if x.dtype != np.bool_:  # scipy subtracts with NumPy, which refuses bool
        names += ["morphological_gradient", "morphological_laplace"]
    for name in names:
        compare(backend, name, x, **kw)
        expected = np.zeros(x.shape, x.dtype)
        ret = getattr(sn, name)(x, output=expected, **kw)
        out = backend.asarray(np.zeros(x.shape, x.dtype))
        got = getattr(ndi, name)(backend.asarray(x), output=out, **kw)
        assert (got is out) if ret is expected else (ret is None and got is None)
        assert_close(backend.asnumpy(out), expected, name)


# ---- distance transforms --------------------------------------------------------------------

EDT_GRID = sample_grid(24, seed=16, dtype=BIN_DTYPES, ndim=[1, 2, 3, 4], sampling=[None, "scalar", "per-axis"],
                       density=[0.3, 0.7, 0.95])


def _check_feature_indices(x, ind, dist, sampling=None):
    """ind points at a zero element of x that lies at the reported distance."""
    ind = np.asarray(ind)
    assert ind.dtype == np.int32 and ind.shape == (x.ndim,) + x.shape
    if not (x == 0).any():
        return
    assert (x[tuple(ind)] == 0).all()
    grid = np.indices(x.shape)
    samp = np.ones(x.ndim) if sampling is None else np.broadcast_to(np.asarray(sampling, float), (x.ndim,))
    d = np.sqrt(sum(((ind[i] - grid[i]) * samp[i]) ** 2 for i in range(x.ndim)))
    np.testing.assert_allclose(d, dist, rtol=1e-12)


@pytest.mark.parametrize("p", EDT_GRID)
def test_distance_transform_edt(backend, rng, p):
    x = binary_data(rng, BIN_SHAPES[p["ndim"]], p["dtype"], p["density"])
    sampling = {None: None, "scalar": 1.7, "per-axis": tuple(rng.uniform(0.5, 2.0, x.ndim))}[p["sampling"]]
    expected = sn.distance_transform_edt(x, sampling)
    got = ndi.distance_transform_edt(backend.asarray(x), sampling)
    assert isinstance(got, backend.type)
    assert_close(backend.asnumpy(got), expected)
    dist, ind = ndi.distance_transform_edt(backend.asarray(x), sampling, return_indices=True)
    assert_close(backend.asnumpy(dist), expected)
    _check_feature_indices(x, backend.asnumpy(ind), expected, sampling)
    ind_only = ndi.distance_transform_edt(backend.asarray(x), sampling, return_distances=False,
                                          return_indices=True)
    _check_feature_indices(x, backend.asnumpy(ind_only), expected, sampling)
    # in place
    d_out = backend.asarray(np.zeros(x.shape, np.float64))
    i_out = backend.asarray(np.zeros((x.ndim,) + x.shape, np.int32))
    assert ndi.distance_transform_edt(backend.asarray(x), sampling, return_indices=True, distances=d_out,
                                      indices=i_out) is None
    assert_close(backend.asnumpy(d_out), expected)
    _check_feature_indices(x, backend.asnumpy(i_out), expected, sampling)
    got = ndi.distance_transform_edt(backend.asarray(x), sampling, return_indices=True, distances=d_out)
    _check_feature_indices(x, backend.asnumpy(got), expected, sampling)


def test_distance_transform_edt_without_zeros_and_0d():
    for x in (np.ones((3, 4)), np.ones(5, bool)):
        assert_close(ndi.distance_transform_edt(x), sn.distance_transform_edt(x))
        got = ndi.distance_transform_edt(x, return_indices=True)
        exp = sn.distance_transform_edt(x, return_indices=True)
        assert_close(got[0], exp[0])
        assert_close(got[1], exp[1])
    assert_close(ndi.distance_transform_edt(np.float64(0.0)), sn.distance_transform_edt(np.float64(0.0)))


CDT_GRID = sample_grid(24, seed=17, dtype=BIN_DTYPES, ndim=[1, 2, 3, 4],
                       metric=["chessboard", "taxicab", "cityblock", "manhattan", "custom"],
                       density=[0.3, 0.7, 0.97])


@pytest.mark.parametrize("p", CDT_GRID)
def test_distance_transform_cdt(backend, rng, p):
    x = binary_data(rng, BIN_SHAPES[p["ndim"]], p["dtype"], p["density"])
    metric = p["metric"]
    if metric == "custom":
        metric = rng.random((3,) * x.ndim) < 0.5
        metric.flat[metric.size // 2] = True
    expected = sn.distance_transform_cdt(x, metric)
    got = ndi.distance_transform_cdt(backend.asarray(x), metric)
    assert isinstance(got, backend.type)
    assert_close(backend.asnumpy(got), expected)
    exp_d, exp_i = sn.distance_transform_cdt(x, metric, return_indices=True)
    dist, ind = ndi.distance_transform_cdt(backend.asarray(x), metric, return_indices=True)
    assert_close(backend.asnumpy(dist), exp_d)
    assert_close(backend.asnumpy(ind), exp_i)
    d_out = backend.asarray(np.zeros(x.shape, np.int32))
    i_out = backend.asarray(np.zeros((x.ndim,) + x.shape, np.int32))
    assert ndi.distance_transform_cdt(backend.asarray(x), metric, return_indices=True, distances=d_out,
                                      indices=i_out) is None
    assert_close(backend.asnumpy(d_out), exp_d)
    assert_close(backend.asnumpy(i_out), exp_i)
    got = ndi.distance_transform_cdt(backend.asarray(x), metric, return_distances=False, return_indices=True)
    assert_close(backend.asnumpy(got), exp_i)


def test_same_type_out(any_backend, rng):
    x = binary_data(rng, (8, 9), "bool")
    g = random_array(rng, (8, 9), "float32")
    for name, arg, kw in (("binary_erosion", x, {}), ("binary_fill_holes", x, {}),
                          ("grey_closing", g, dict(size=3)), ("white_tophat", g, dict(size=(2, 3))),
                          ("distance_transform_edt", x, {}), ("distance_transform_cdt", x, {})):
        got = getattr(ndi, name)(any_backend.asarray(arg), **kw)
        assert isinstance(got, any_backend.type), name
        assert_close(any_backend.asnumpy(got), getattr(sn, name)(arg, **kw), name)


# ---- API surface and errors -------------------------------------------------------------------

MORPH_NAMES = ["binary_erosion", "binary_dilation", "binary_opening", "binary_closing", "binary_fill_holes",
               "binary_hit_or_miss", "binary_propagation", "grey_erosion", "grey_dilation", "grey_opening",
               "grey_closing", "morphological_gradient", "morphological_laplace", "white_tophat",
               "black_tophat", "generate_binary_structure", "iterate_structure", "distance_transform_edt",
               "distance_transform_cdt"]


@pytest.mark.parametrize("name", MORPH_NAMES)
def test_signature_matches_scipy(name):
    assert inspect.signature(getattr(ndi, name)) == inspect.signature(getattr(sn, name))


B2 = np.arange(30).reshape(5, 6) % 3 != 0

ERRORS = [
    ("binary_erosion", (B2,), dict(iterations=1.5)),
    ("binary_erosion", (B2,), dict(structure=np.ones((0, 3)))),
    ("binary_erosion", (B2,), dict(structure=np.ones(3))),
    ("binary_erosion", (B2,), dict(mask=np.ones(3))),
    ("binary_erosion", (B2,), dict(output=np.zeros((5, 6), np.complex64))),
    ("binary_erosion", (B2.astype(complex),), {}),
    ("binary_erosion", (B2,), dict(origin=2)),
    ("binary_erosion", (B2,), dict(origin=(0, 1, 2))),
    ("binary_erosion", (B2,), dict(axes=(0, 0))),
    ("binary_erosion", (B2,), dict(output=np.zeros((5, 5), bool))),
    ("binary_dilation", (B2,), dict(structure=np.ones((3, 3, 3)))),
    ("binary_opening", (B2,), dict(iterations="2")),
    ("binary_hit_or_miss", (B2,), dict(origin1=(0, 5))),
    ("grey_erosion", (B2.astype(np.uint8),), {}),
    ("grey_dilation", (B2.astype(np.uint8),), dict(size=3, origin=2)),
    ("grey_dilation", (B2.astype(np.uint8),), dict(structure=np.ones((3,)))),
    ("grey_opening", (B2.astype(np.uint8),), dict(size=3, mode="nope")),
    ("grey_closing", (B2.astype(np.uint8),), dict(footprint=np.zeros((3, 3)))),
    ("morphological_gradient", (B2,), dict(size=3)),
    ("distance_transform_edt", (B2,), dict(return_distances=False)),
    ("distance_transform_edt", (B2,), dict(sampling=[1, 2, 3])),
    ("distance_transform_edt", (B2,), dict(distances=np.zeros((5, 6)), return_distances=False,
                                           return_indices=True)),
    ("distance_transform_edt", (B2,), dict(indices=np.zeros((2, 5, 6), np.int32))),
    ("distance_transform_edt", (B2,), dict(return_indices=True, indices=np.zeros((2, 5, 6), np.int64))),
    ("distance_transform_edt", (B2,), dict(return_indices=True, indices=np.zeros((2, 5, 5), np.int32))),
    ("distance_transform_edt", (B2,), dict(distances=np.zeros((5, 6), np.float32))),
    ("distance_transform_edt", (B2,), dict(distances=np.zeros((5, 5)))),
    ("distance_transform_cdt", (B2,), dict(metric="euclidean")),
    ("distance_transform_cdt", (B2,), dict(metric=np.ones((3, 2)))),
    ("distance_transform_cdt", (B2,), dict(return_distances=False)),
    ("distance_transform_cdt", (B2,), dict(distances=np.zeros((5, 6), np.int64))),
    ("distance_transform_cdt", (B2,), dict(distances=np.zeros((5, 5), np.int32))),
    ("distance_transform_cdt", (B2,), dict(return_indices=True, indices=np.zeros((2, 5, 6), np.int64))),
    ("distance_transform_cdt", (B2,), dict(return_indices=True, indices=np.zeros((2, 5, 5), np.int32))),
]


@pytest.mark.parametrize("name,args,kw", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_invalid_arguments_raise_like_scipy(name, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as ref:
            getattr(sn, name)(*args, **kw)
        with pytest.raises(type(ref.value)):
            getattr(ndi, name)(*args, **kw)


def test_binary_iterations_that_cycle_raise():
    """scipy never returns here (the passes alternate forever); fovea says so."""
    x = np.zeros((1, 7), bool)
    x[0, ::2] = True
    with pytest.raises(ValueError, match="cycle"):
        ndi.binary_erosion(x, structure=[[1, 0, 1]], iterations=0, border_value=1)


def test_binary_erosion_far_origin_is_an_error_not_a_crash():
    """scipy crashes (segfault) for some out-of-range origins; fovea raises."""
    with pytest.raises(ValueError):
        ndi.binary_erosion(B2, origin=-2)
    with pytest.raises(ValueError):
        ndi.binary_dilation(B2, origin=(0, 2))


@pytest.mark.gpu
def test_torch_cuda_without_cupy(torch_cuda, rng, monkeypatch):
    from fovea import _interop

    monkeypatch.setattr(_interop, "cupy", lambda: None)
    x = binary_data(rng, (7, 8), "bool")
    t = torch_cuda.from_numpy(x).cuda()
    for name, kw in (("binary_erosion", {}), ("binary_opening", dict(iterations=2)),
                     ("distance_transform_edt", {}), ("grey_dilation", dict(size=3))):
        got = getattr(ndi, name)(t, **kw)
        assert isinstance(got, torch_cuda.Tensor) and got.is_cuda
        assert_close(got.cpu().numpy(), getattr(sn, name)(x, **kw), name)
    with pytest.raises(ImportError, match="binary_fill_holes"):
        ndi.binary_fill_holes(t)


@pytest.mark.parametrize("value", [0, 1, 2.5])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32", "float64"])
@pytest.mark.parametrize("fn", ["binary_erosion", "binary_dilation", "binary_propagation", "binary_opening",
                                "binary_closing", "binary_fill_holes"])
def test_binary_zero_dim(fn, dtype, value):
    # a 0-d array is one element with no neighbours, as in scipy
    x = np.array(value).astype(dtype)
    got, want = getattr(ndi, fn)(x), getattr(sn, fn)(x)
    assert got.shape == () and got.dtype == want.dtype
    assert got == want
    if fn in ("binary_erosion", "binary_dilation"):
        for kw in ({"border_value": 1}, {"iterations": 3}, {"mask": np.array(False)}):
            np.testing.assert_array_equal(getattr(ndi, fn)(x, **kw), getattr(sn, fn)(x, **kw))
        with pytest.raises(RuntimeError, match="same dimensionality"):
            getattr(ndi, fn)(x, structure=np.ones(3, bool))


@pytest.mark.parametrize("fn", ["grey_erosion", "grey_dilation"])
def test_grey_bool_nonflat_structure_canonical(rng, fn):
    # scipy stores raw sums (bytes 255, 2) in these bool outputs; fovea the same truth
    # values as canonical 0 / 1 bytes (docs/compatibility.md: the tophat03 cases)
    a = rng.random((9, 11)) < 0.5
    st = np.ones((3, 3), bool)
    got, want = getattr(ndi, fn)(a, structure=st), getattr(sn, fn)(a, structure=st)
    assert got.dtype == want.dtype == np.bool_
    np.testing.assert_array_equal(got, want)
    assert set(np.unique(got.view(np.uint8))) <= {0, 1}


def test_cdt_metric_values_not_bytes():
    # scipy reads a float metric's raw bytes as bools (docs/compatibility.md); fovea its
    # values; given the structure scipy ends up with, both agree
    data = np.zeros((9, 9), np.int32)
    data[2, 3:6] = 1
    data[3:6, 2:7] = 1
    data[6, 3:6] = 1
    m = np.ones((3, 3))
    np.testing.assert_array_equal(ndi.distance_transform_cdt(data, metric=m),
                                  sn.distance_transform_cdt(data, metric=m.astype(bool)))
    as_scipy_reads = np.frombuffer(m.tobytes()[:m.size], np.uint8).reshape(3, 3) != 0
    np.testing.assert_array_equal(ndi.distance_transform_cdt(data, metric=as_scipy_reads),
                                  sn.distance_transform_cdt(data, metric=m))
