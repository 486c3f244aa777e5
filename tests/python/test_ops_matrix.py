"""The op matrix: the public fovea.ndimage functions (filters, morphology, distance
transforms, interpolation) and the skimage ops with kernel variants, over dtypes x
modes x shapes (1-d to 3-d, odd and thin extents) x layouts (contiguous, stepped,
reversed, transposed) x kernel variants, against scipy.ndimage / scikit-image.

Each op of OPS names the variant tables (src/core/plan.h, docs/configuration.md)
its calls reach. A case runs the op with the planner's own choice, then once per
variant of each of those tables that the backend plans (forced through
fovea._fovea._force_variant, never the environment): every run must match the
reference (assert_close of test_ndimage_filters: integers exact, float32 rtol
1e-5, float64 1e-12 of the data's scale; order statistics, morphology and
distances exact), the variant the planner reports (_last_variant) must be the
forced one where it applies, and every variant must give the default's bits. Each op's "reach" cases (the shapes its tiled / vector / threaded
variants need, always run) make every variant of every table run at least once,
and some of them check which variant the planner picks by itself.

NumPy inputs run here; CuPy inputs (the gpu marker: skipped without a GPU and
CuPy) add the cuda.* tables. The default run takes a fixed, seeded sample of the
grid (every value of every axis appears); ``--ops-matrix-full`` runs the whole
grid (the GPU machine). The planner's hooks themselves (unknown names, a
declined variant falling to the next, per-thread forcing, FOVEA_VARIANT) are
tested at the end."""

import itertools
import os
import random
import subprocess
import sys
import threading
import zlib

import numpy as np
import pytest
import scipy.ndimage as sn
import skimage.morphology as skm
import skimage.segmentation as sks

import fovea
import fovea.ndimage as fnd
from fovea import _fovea
from fovea.skimage import morphology as fsm
from fovea.skimage import segmentation as fss
from conftest import random_array
from test_ndimage_filters import assert_close, multipass_output

# ---- the grid ------------------------------------------------------------------------------

FILTER_MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]
INTERP_MODES = ["constant", "nearest", "reflect", "mirror", "wrap", "grid-wrap", "grid-constant", "grid-mirror"]
ALL = ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64"]
NUMERIC = [d for d in ALL if d != "bool"]
SHAPES = [(37,), (13, 37), (1, 29), (30, 1), (2, 2), (5, 7, 9), (3, 1, 8)]
SHAPES_2D = [s for s in SHAPES if len(s) == 2] + [(17, 12)]
BIG_2D = [(13, 37), (17, 12)]
LAYOUTS = ["contiguous", "stepped", "reversed", "transposed"]

W5 = np.array([0.1, 0.3, 0.2, 0.3, 0.1])
W4 = np.array([1.0, 2.0, -1.0, 0.5])
W3 = np.array([[1, 2, 1], [0, 3, -1], [2, -2, 1]], np.float64)
W333 = np.arange(27, dtype=np.float64).reshape(3, 3, 3) / 27 - 0.4
FP35 = np.ones((3, 5), bool)   # corners off: min / max / rank run the n-d filter
FP35[0, 0] = FP35[0, -1] = FP35[-1, 0] = FP35[-1, -1] = False


EDT_SAMPLING = [1.5, 1.0, 2.0]


def _nd_weights(nd, base2=W3, base3=W333):
    return {1: base2[1], 2: base2, 3: base3}[nd]


def _footprint(nd):
    if nd == 2:
        return FP35
    fp = np.ones((3,) * nd, bool)
    if nd > 1:
        fp[(0,) * nd] = False
    return fp


class Op:
    """One public function: call(mod, a, mode, cval) with mod fovea.ndimage or the
    reference module; kind "exact" (order statistics, morphology, distances:
    every value) or "close" (sums: assert_close)."""

    def __init__(self, name, call, dtypes, modes=(None,), shapes=SHAPES, tables=(), kind="close", ref=sn,
                 data="full", reach=(), gpu_rtol64=None):
        self.name, self.call, self.dtypes, self.modes, self.shapes = name, call, dtypes, modes, shapes
        self.tables, self.kind, self.ref, self.data, self.reach = tables, kind, ref, data, reach
        self.gpu_rtol64 = gpu_rtol64   # float64 on the GPU (spline orders > 1: 1e-9, as test_ndimage_interpolation)


F1D = ("cpu.lines", "cuda.filter1d", "cuda.filter1d.loads", "cuda.filter1d.acc", "cuda.filter1d.row_u8_chunk")
SEP = ("cpu.lines", "separable", "cuda.sep2", "cuda.sep2.loads", "cuda.filter1d")
ND = ("cpu.lines", "cuda.filternd")


def _mo(mode, cval):
    return {} if mode is None else {"mode": mode, "cval": cval}


def _sep(f):
    """a separable filter: bool data into float64 (scipy's multi-pass bool outputs differ by design)"""
    return lambda m, a, mode, cval: f(m, a, output=multipass_output(a.dtype), **_mo(mode, cval))


OPS = [
    # ---- 1-D filters
    Op("correlate1d", lambda m, a, mode, cval: m.correlate1d(a, W5, axis=-1, **_mo(mode, cval)), ALL, FILTER_MODES,
       tables=F1D, reach=[((64, 1030), "float32"), ((64, 1024), "uint8"), ((200, 512), "float32")]),
    Op("correlate1d.axis0", lambda m, a, mode, cval: m.correlate1d(a, W4, axis=0, origin=-1, **_mo(mode, cval)),
       ALL, FILTER_MODES, tables=F1D, reach=[((200, 512), "float32"), ((64, 500), "uint8")]),
    Op("convolve1d", lambda m, a, mode, cval: m.convolve1d(a, W5[::-1] * 3, axis=-1, **_mo(mode, cval)), NUMERIC,
       FILTER_MODES, tables=F1D),
    Op("uniform_filter1d", lambda m, a, mode, cval: m.uniform_filter1d(a, 6, axis=0, **_mo(mode, cval)), ALL,
       FILTER_MODES, tables=F1D, reach=[((64, 500), "uint8")]),
    Op("minimum_filter1d", lambda m, a, mode, cval: m.minimum_filter1d(a, 4, axis=-1, **_mo(mode, cval)), ALL,
       FILTER_MODES, tables=F1D, kind="exact"),
    Op("maximum_filter1d", lambda m, a, mode, cval: m.maximum_filter1d(a, 3, axis=0, origin=1, **_mo(mode, cval)),
       ALL, FILTER_MODES, tables=F1D, kind="exact"),
    Op("gaussian_filter1d", lambda m, a, mode, cval: m.gaussian_filter1d(a, 1.5, axis=-1, **_mo(mode, cval)),
       NUMERIC, FILTER_MODES, tables=F1D),
    # ---- n-d filters over weights / footprints
    Op("correlate", lambda m, a, mode, cval: m.correlate(a, _nd_weights(a.ndim), **_mo(mode, cval)), ALL,
       FILTER_MODES, tables=ND, reach=[((130, 150), "float32"), ((30, 40, 50), "float32"), ((40, 300), "float64", {"cpu.lines": "avx2"})]),
    Op("convolve", lambda m, a, mode, cval: m.convolve(a, _nd_weights(a.ndim), **_mo(mode, cval)), NUMERIC,
       FILTER_MODES, tables=ND),
    Op("minimum_filter.footprint",
       lambda m, a, mode, cval: m.minimum_filter(a, footprint=_footprint(a.ndim), **_mo(mode, cval)), ALL,
       FILTER_MODES, tables=ND, kind="exact", reach=[((130, 150), "uint8")]),
    Op("maximum_filter.size", lambda m, a, mode, cval: m.maximum_filter(a, size=3, **_mo(mode, cval)), ALL,
       FILTER_MODES, tables=SEP, kind="exact"),
    Op("median_filter", lambda m, a, mode, cval: m.median_filter(a, size=3, **_mo(mode, cval)), NUMERIC,
       FILTER_MODES, tables=ND, kind="exact", reach=[((130, 150), "uint8"), ((20, 24, 40), "float32")]),
    Op("rank_filter", lambda m, a, mode, cval: m.rank_filter(a, 1, footprint=_footprint(a.ndim), **_mo(mode, cval)),
       NUMERIC, FILTER_MODES, tables=ND, kind="exact"),
    Op("percentile_filter", lambda m, a, mode, cval: m.percentile_filter(a, 70, size=(3,) * a.ndim,
                                                                          **_mo(mode, cval)),
       NUMERIC, FILTER_MODES, tables=ND, kind="exact"),
    # ---- separable compositions
    Op("uniform_filter", _sep(lambda m, a, **k: m.uniform_filter(a, 5, **k)), ALL, FILTER_MODES, tables=SEP,
       reach=[((300, 257), "float32", {"cuda.sep2": "strip"}), ((300, 256), "uint8")]),
    Op("gaussian_filter", _sep(lambda m, a, **k: m.gaussian_filter(a, 1.5, **k)), ALL, FILTER_MODES, tables=SEP,
       reach=[((300, 257), "float32", {"separable": "fused"})]),
    Op("gaussian_filter.order1", _sep(lambda m, a, **k: m.gaussian_filter(a, 1.0, order=1, **k)), NUMERIC,
       FILTER_MODES, tables=SEP),
    Op("sobel", lambda m, a, mode, cval: m.sobel(a, axis=0, **_mo(mode, cval)), NUMERIC, FILTER_MODES, tables=SEP),
    Op("prewitt", lambda m, a, mode, cval: m.prewitt(a, axis=-1, **_mo(mode, cval)), NUMERIC, FILTER_MODES,
       tables=SEP),
    Op("laplace", lambda m, a, mode, cval: m.laplace(a, **_mo(mode, cval)), ALL, FILTER_MODES,
       tables=("cuda.laplace",), reach=[((100, 1030), "float32")]),
    Op("gaussian_laplace", lambda m, a, mode, cval: m.gaussian_laplace(a, 1.2, **_mo(mode, cval)),
       ["float32", "float64"], FILTER_MODES, tables=SEP),
    Op("gaussian_gradient_magnitude",
       lambda m, a, mode, cval: m.gaussian_gradient_magnitude(a, 1.0, **_mo(mode, cval)), ["float32", "float64"],
       FILTER_MODES, tables=SEP + ("cuda.gradient_norm",), reach=[((100, 1030), "float32")]),
    # ---- morphology
    Op("binary_erosion", lambda m, a, mode, cval: m.binary_erosion(a), ALL, kind="exact",
       tables=("binary_erosion", "cuda.binary_erosion"), reach=[((130, 150), "bool")]),
    Op("binary_dilation.iter2",
       lambda m, a, mode, cval: m.binary_dilation(a, structure=np.ones((3,) * a.ndim, bool), iterations=2), ALL,
       kind="exact", tables=("binary_erosion", "cuda.binary_erosion")),
    Op("binary_opening", lambda m, a, mode, cval: m.binary_opening(a), ["bool", "uint8"], kind="exact",
       tables=("binary_erosion", "cuda.binary_erosion")),
    Op("binary_closing", lambda m, a, mode, cval: m.binary_closing(a), ["bool", "int16"], kind="exact",
       tables=("binary_erosion", "cuda.binary_erosion")),
    Op("binary_fill_holes", lambda m, a, mode, cval: m.binary_fill_holes(a), ["bool", "uint8"], kind="exact",
       data="blobs", tables=("binary_erosion", "cuda.binary_flood", "cuda.binary_erosion"),
       reach=[((80, 90), "bool", {"binary_erosion": "flood"}), ((130, 150), "bool")]),
    Op("binary_propagation", lambda m, a, mode, cval: m.binary_propagation(a[..., ::-1] & ~a, mask=a),
       ["bool"], kind="exact", data="blobs", tables=("binary_erosion", "cuda.binary_flood", "cuda.binary_erosion"),
       reach=[((30, 40), "bool", {"binary_erosion": "flood"})]),
    Op("grey_erosion", lambda m, a, mode, cval: m.grey_erosion(a, footprint=_footprint(a.ndim), **_mo(mode, cval)),
       NUMERIC, FILTER_MODES, kind="exact", tables=ND),
    Op("grey_dilation.size", lambda m, a, mode, cval: m.grey_dilation(a, size=(3,) * a.ndim, **_mo(mode, cval)),
       NUMERIC, FILTER_MODES, kind="exact", tables=SEP),
    Op("grey_opening", lambda m, a, mode, cval: m.grey_opening(a, size=(2,) * a.ndim, **_mo(mode, cval)), NUMERIC,
       FILTER_MODES, kind="exact", tables=SEP),
    Op("morphological_gradient",
       lambda m, a, mode, cval: m.morphological_gradient(a, size=(3,) * a.ndim, **_mo(mode, cval)),
       ["uint8", "int16", "float32", "float64"], FILTER_MODES, kind="exact", tables=SEP),
    Op("white_tophat", lambda m, a, mode, cval: m.white_tophat(a, footprint=_footprint(a.ndim), **_mo(mode, cval)),
       ["uint8", "int32", "float64"], FILTER_MODES, kind="exact", tables=ND),
    # ---- distance transforms
    Op("distance_transform_edt", lambda m, a, mode, cval: m.distance_transform_edt(a), ALL, kind="exact",
       data="blobs", tables=("cuda.distance_transform_edt",), reach=[((90, 110), "bool")]),
    Op("distance_transform_edt.indices",
       lambda m, a, mode, cval: m.distance_transform_edt(a, sampling=EDT_SAMPLING[:a.ndim], return_indices=True)[1],
       ["bool", "uint8"], kind="exact", data="blobs", tables=("cuda.distance_transform_edt",),
       reach=[((40, 50), "bool")]),
    Op("distance_transform_cdt.taxicab", lambda m, a, mode, cval: m.distance_transform_cdt(a, metric="taxicab"),
       ["bool", "uint8", "float32"], kind="exact", data="blobs", tables=("cpu.distance_transform_cdt",),
       reach=[((60, 70), "bool", {"cpu.distance_transform_cdt": "axes"})]),
    Op("distance_transform_cdt.chessboard",
       lambda m, a, mode, cval: m.distance_transform_cdt(a, metric="chessboard"), ["bool", "int8"], kind="exact",
       data="blobs", tables=("cpu.distance_transform_cdt",), reach=[((20, 30, 25), "bool", {"cpu.distance_transform_cdt": "axes"})]),
    # ---- interpolation
    Op("shift.order1", lambda m, a, mode, cval: m.shift(a, 1.3, order=1, **_mo(mode, cval)), NUMERIC,
       INTERP_MODES),
    Op("shift.order3", lambda m, a, mode, cval: m.shift(a, -0.7, order=3, **_mo(mode, cval)),
       ["float32", "float64", "uint8", "int16"], INTERP_MODES, gpu_rtol64=1e-9),
    Op("zoom", lambda m, a, mode, cval: m.zoom(a, 1.7, order=1, **_mo(mode, cval)), NUMERIC, INTERP_MODES),
    Op("zoom.order0.grid", lambda m, a, mode, cval: m.zoom(a, 0.6, order=0, grid_mode=True,
                                                           **_mo("grid-constant" if mode == "constant" else mode,
                                                                 cval)),
       ALL, ["constant", "nearest", "reflect", "wrap"], kind="exact"),
    Op("rotate", lambda m, a, mode, cval: m.rotate(a, 30, order=1, reshape=False, **_mo(mode, cval)),
       ["float32", "float64", "uint8"], INTERP_MODES, shapes=SHAPES_2D),
    Op("affine_transform",
       lambda m, a, mode, cval: m.affine_transform(a, np.eye(a.ndim) * 0.8 + 0.05, offset=0.5, order=2,
                                                   **_mo(mode, cval)),
       ["float32", "float64", "int32"], INTERP_MODES, gpu_rtol64=1e-9),
    Op("map_coordinates",
       lambda m, a, mode, cval: m.map_coordinates(a, _coords(m, a), order=1, **_mo(mode, cval)),
       NUMERIC, INTERP_MODES),
    Op("spline_filter", lambda m, a, mode, cval: m.spline_filter(a, order=3, output=np.float64, mode=mode),
       ["float32", "float64", "uint8"], ["mirror", "reflect", "wrap", "grid-constant", "nearest"], gpu_rtol64=1e-9),
    # ---- scikit-image ops with variant tables
    Op("skimage.local_maxima", lambda m, a, mode, cval: m.local_maxima(a), ["uint8", "int16", "float64"],
       shapes=SHAPES_2D + [(5, 7, 9)], kind="exact", data="levels", ref=skm, tables=("cpu.local_maxima",),
       reach=[((700, 400), "uint8", {"cpu.local_maxima": "blocks"})]),
    Op("skimage.reconstruction",
       lambda m, a, mode, cval: m.reconstruction(a - 1.0, a, method="dilation"), ["float64"], shapes=BIG_2D,
       kind="exact", ref=skm, data="finite", tables=("cuda.reconstruction",), reach=[((120, 130), "float64")]),
    # (float data without ties: on plateaus the GPU may split basins otherwise, docs/skimage.md)
    Op("skimage.watershed", lambda m, a, mode, cval: m.watershed(a, _markers(a.shape, a)), ["float64", "float32"],
       shapes=SHAPES_2D, kind="exact", ref=sks, data="finite", tables=("cuda.watershed",), reach=[((70, 75), "float64")]),
]
OPS_BY_NAME = {op.name: op for op in OPS}
FOVEA_MODULES = {sn: fnd, skm: fsm, sks: fss}


def _coords(m, a):
    """coordinates of a slightly shifted and scaled grid, as the module's array kind"""
    grid = np.indices(a.shape, dtype=np.float64) * 0.9 + 0.35
    xp = sys.modules["cupy"] if type(a).__module__.startswith("cupy") else np
    return xp.asarray(grid)


def _markers(shape, like=None):
    """Five seeded markers, on the image's device (like: the image)."""
    m = np.zeros(shape, np.int32)
    r = np.random.default_rng(7)
    for k in range(1, 6):
        m[tuple(r.integers(0, s) for s in shape)] = k
    if like is not None and type(like).__module__.startswith("cupy"):
        return sys.modules["cupy"].asarray(m)
    return m


# ---- cases -----------------------------------------------------------------------------------


def _data(op, rng, shape, dtype):
    if op.data == "blobs":
        a = rng.random(shape) < 0.6
        if a.ndim and min(shape) > 2:
            a[tuple(slice(s // 3, max(s // 3 + 1, 2 * s // 3)) for s in shape)] = False   # a hole to fill
        return a.astype(dtype)
    if op.data == "levels":
        return rng.integers(0, 5, shape).astype(dtype)
    if np.dtype(dtype) == np.int32 and op.kind == "close":
        return random_array(rng, shape, dtype, lo=-(2 ** 20), hi=2 ** 20)
    if np.dtype(dtype).kind in "iu" and np.dtype(dtype).itemsize == 8:
        return random_array(rng, shape, dtype, lo=-(2 ** 40), hi=2 ** 40)   # exact in double
    a = random_array(rng, shape, dtype)
    if np.dtype(dtype).kind == "f" and op.kind == "exact" and a.size > 4 and op.data != "finite" and \
            not (len(shape) == 1 and op.name.split("_")[0] in ("median", "rank", "percentile")):
        # (scipy's 1-d rank filters of float data take another algorithm, whose
        # results around NaN differ from its n-d quickselect, which fovea follows)
        a.flat[rng.integers(0, a.size, 2)] = [np.nan, -np.inf]   # order statistics of specials
    return a


def _layout(a, layout):
    """a view of a's data in the layout (a copy of a with other strides)"""
    if layout == "stepped":
        big = np.zeros(tuple(2 * s for s in a.shape), a.dtype)
        v = big[tuple(slice(None, None, 2) for _ in a.shape)]
    elif layout == "reversed":
        v = np.empty_like(a)[::-1] if a.ndim else np.empty_like(a)
    elif layout == "transposed":
        v = np.empty(a.shape[::-1], a.dtype).T
    else:
        return a
    v[...] = a
    return v


def _grid(op):
    return list(itertools.product(op.dtypes, op.modes, op.shapes, LAYOUTS))


def _sample(op, n=12, seed=0):
    """n cases of op's grid: every value of every axis appears, the rest drawn with a
    fixed seed (the same cases every run)."""
    grid = _grid(op)
    rnd = random.Random(f"{op.name}:{seed}")
    axes = [list(dict.fromkeys(c[i] for c in grid)) for i in range(4)]
    for ax in axes:
        rnd.shuffle(ax)
    picked = [tuple(ax[i % len(ax)] for ax in axes) for i in range(max(len(ax) for ax in axes))]
    rest = [c for c in grid if c not in picked]
    picked += rnd.sample(rest, max(0, min(len(rest), n - len(picked))))
    return picked


@pytest.fixture
def full(request):
    return request.config.getoption("--ops-matrix-full")


@pytest.fixture(autouse=True)
def _unforced():
    _fovea._force_variant(None, None)
    yield
    _fovea._force_variant(None, None)


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _same_bits(a, b):
    a, b = _host(a), _host(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype.kind == "f":
        assert np.array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}")) or \
            np.array_equal(a, b, equal_nan=True)
    else:
        assert np.array_equal(a, b)


def _has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx2" in f.read()
    except OSError:
        return False


def _implied_distances(indices):
    """the squared distances the feature indices (nd, *shape) of an EDT imply"""
    grid = np.indices(indices.shape[1:])
    w = np.asarray(EDT_SAMPLING[:indices.shape[0]]).reshape((-1,) + (1,) * (indices.ndim - 1))
    return (((indices - grid) * w) ** 2).sum(axis=0)


def _check(op, got, want, what, gpu):
    got = _host(got)
    if gpu and op.name == "distance_transform_edt.indices":
        # where several zeros are nearest the GPU may report another one (docs/ndimage.md)
        assert got.dtype == want.dtype and got.shape == want.shape, what
        got, want = _implied_distances(got), _implied_distances(want)
    if gpu and op.gpu_rtol64 and want.dtype == np.float64:
        scale = max(float(np.nanmax(np.abs(np.where(np.isfinite(want), want, 0)), initial=0)), 1.0)
        np.testing.assert_allclose(got, want, rtol=op.gpu_rtol64, atol=op.gpu_rtol64 * scale, err_msg=what)
        return
    if op.kind == "exact":
        assert got.dtype == want.dtype and got.shape == want.shape, what
        np.testing.assert_array_equal(got, want, err_msg=what)   # NaN == NaN, -0 == 0
        return
    if gpu and want.dtype.kind in "iu" and op.name not in ("zoom.order0.grid",):
        # the GPU may sum float32 / 8- and 16-bit data in float: a truncated integer
        # output one apart
        assert got.dtype == want.dtype and got.shape == want.shape, what
        d = got.astype(np.int64) - want.astype(np.int64)
        wrap = 1 << (8 * want.dtype.itemsize) if want.dtype.itemsize < 8 else 0
        assert np.all((np.abs(d) <= 1) | (wrap and np.abs(d) == wrap - 1)), what
        return
    if want.dtype.kind == "f":
        # the data's scale (NaN / inf positions must agree exactly)
        assert np.array_equal(np.isnan(got), np.isnan(want)), what
        fin = np.isfinite(want)
        assert np.array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)]), what
        got, want = np.where(fin, got, 0), np.where(fin, want, 0)
    assert_close(got, want, err_msg=what)


def _run_case(op, xp, rng, case, tables, reached, expect=None):
    """expect: {table: the variant the planner picks by itself} (reach cases)"""
    dtype, mode, shape, layout = case
    a = _data(op, rng, shape, dtype)
    cval = -2.5 if mode in ("constant", "grid-constant") else 0.0
    what = f"{op.name} {dtype} {mode} {shape} {layout}"
    with np.errstate(all="ignore"):
        want = np.asarray(op.call(op.ref, a, mode, cval))
    x = _layout(a, layout)
    if xp is not np:
        x = xp.asarray(x)
    fmod = FOVEA_MODULES[op.ref]
    gpu = xp is not np
    _fovea._last_variant(None)
    default = op.call(fmod, x, mode, cval)
    for table, name in (expect or {}).items():
        # device data runs the cuda.* tables (and "separable"), host data the cpu.* ones
        if table in tables and (not table.startswith("cpu.") if gpu else
                                not table.startswith("cuda.") and table != "separable"):
            if table == "cpu.lines" and not _has_avx2():
                name = "sse2"
            assert _fovea._last_variant(table) == name, (what, table)
    _check(op, default, want, what, gpu)
    for table in tables:
        for name in _fovea._variants(table):
            _fovea._force_variant(table, name)
            _fovea._last_variant(None)
            try:
                got = op.call(fmod, x, mode, cval)
            finally:
                ran = _fovea._last_variant(table)
                _fovea._force_variant(table, None)
            if ran is None:
                continue   # the table is not consulted for this case
            reached[table].add(ran)
            _check(op, got, want, f"{what} [{table}:{name} ran {ran}]", gpu)
            _same_bits(got, default)   # every variant: the default's bits


_REACHED = {}   # (op name, backend) -> {table: variants its reach cases ran}


def _run_op(op, xp, cases):
    registered = _fovea._variants()
    cuda = xp is not np
    tables = [t for t in op.tables if t in registered and (cuda or not t.startswith("cuda."))]
    reached = {t: set() for t in tables}
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))   # the same data every run
    for case in cases:
        _run_case(op, xp, rng, case, tables, reached)
    if (op.name, cuda) not in _REACHED:
        r = {t: set() for t in tables}
        for shape, dtype, *expect in op.reach:
            _run_case(op, xp, rng, (dtype, op.modes[0], shape, "contiguous"), tables, r, *expect)
        _REACHED[op.name, cuda] = r
    for t, seen in _REACHED[op.name, cuda].items():
        reached[t] |= seen
    return reached


def _cases(op, full):
    return _grid(op) if full else _sample(op)


def _unreachable(table, cuda):
    """variants no case can run on this machine / backend"""
    out = set()
    if table == "cpu.lines" and not _has_avx2():
        out.add("avx2")
    if table == "separable" and not cuda:
        out.update(("fused", "passes"))   # plans device data only
    return out


@pytest.mark.parametrize("name", [op.name for op in OPS])
def test_ops_matrix_numpy(name, full):
    op = OPS_BY_NAME[name]
    _run_op(op, np, _cases(op, full))


@pytest.mark.gpu
@pytest.mark.parametrize("name", [op.name for op in OPS])
def test_ops_matrix_cupy(name, cp, full):
    op = OPS_BY_NAME[name]
    _run_op(op, cp, _cases(op, full))


def test_every_variant_reached():
    """the union of the ops' reach cases runs every variant of every CPU table (the
    CUDA ones: test_every_cuda_variant_reached)"""
    _every_variant_reached(np)


@pytest.mark.gpu
def test_every_cuda_variant_reached(cp):
    _every_variant_reached(cp)


def _every_variant_reached(xp):
    tables = _fovea._variants()
    cuda = xp is not np
    reached = {t: set() for t in tables}
    for op in OPS:
        if not op.reach:
            continue
        r = _run_op(op, xp, [])
        for t, seen in r.items():
            reached[t] |= seen
    # device data reaches the cuda.* tables (and "separable"), host data the cpu.* ones
    missing = {t: set(names) - reached[t] - _unreachable(t, cuda) for t, names in tables.items()
               if (not t.startswith("cpu.") if cuda else not t.startswith("cuda."))}
    missing = {t: m for t, m in missing.items() if m}
    assert not missing, f"variants no op's reach case runs: {missing}"


# ---- the planner's hooks (formerly test_variants.py) -----------------------------------------


def test_every_table_is_named_by_an_op():
    tables = _fovea._variants()
    assert tables, "no variant tables registered"
    named = {t for op in OPS for t in op.tables}
    assert set(tables) - named == set(), "add the new tables to an op of OPS (with reach cases)"
    for op, names in tables.items():
        assert len(names) >= 2 and len(set(names)) == len(names), op
        assert _fovea._variants(op) == names


def test_declined_variant_falls_to_the_next():
    # features asked for: "axes" (distances alone) declines, the passes run
    img = np.ones((40, 50), bool)
    img[5, 7] = img[30, 31] = False
    want = fnd.distance_transform_cdt(img, metric="taxicab", return_indices=True)
    assert _fovea._last_variant("cpu.distance_transform_cdt") == "passes"
    _fovea._force_variant("cpu.distance_transform_cdt", "axes")
    got = fnd.distance_transform_cdt(img, metric="taxicab", return_indices=True)
    assert _fovea._last_variant("cpu.distance_transform_cdt") == "passes"
    for g, w in zip(got, want):
        _same_bits(g, w)
    # a structure the flood does not take (5 x 5): "flood" declines, the passes iterate
    st = np.ones((5, 5), bool)
    _fovea._force_variant("binary_erosion", "flood")
    fnd.binary_erosion(img, structure=st, iterations=0)
    assert _fovea._last_variant("binary_erosion") == "iterate"
    # the forced "serial" variant is last: a table with nothing after it runs it
    _fovea._force_variant("cpu.local_maxima", "serial")
    fsm.local_maxima(np.arange(200 * 300, dtype=np.float64).reshape(200, 300) % 7)
    assert _fovea._last_variant("cpu.local_maxima") == "serial"


def test_force_errors():
    with pytest.raises(ValueError, match="no op"):
        _fovea._force_variant("cpu.nope", "x")
    with pytest.raises(ValueError, match="no variant"):
        _fovea._force_variant("cpu.local_maxima", "nope")
    with pytest.raises(ValueError):
        _fovea._variants("cpu.nope")
    _fovea._force_variant("cpu.local_maxima", None)   # clearing an unforced op is fine


def test_force_is_per_thread():
    img = np.arange(200 * 300, dtype=np.float64).reshape(200, 300) % 7
    _fovea._force_variant("cpu.local_maxima", "serial")
    seen = []

    def other():
        fsm.local_maxima(img)
        seen.append(_fovea._last_variant("cpu.local_maxima"))

    t = threading.Thread(target=other)
    t.start()
    t.join()
    expect = "blocks" if fovea.num_threads() > 1 else "serial"
    assert seen == [expect]


def test_environment_override():
    code = ("import numpy as np, fovea.skimage.morphology as m; from fovea import _fovea; "
            "m.local_maxima(np.arange(60000.0).reshape(200, 300) % 7); "
            "print(_fovea._last_variant('cpu.local_maxima'))")
    env = dict(os.environ, FOVEA_VARIANT="cpu.nope:x,cpu.local_maxima:serial,cpu.lines:zzz")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "serial"
