"""Every kernel variant of every op is reachable through the planner's internal
call (fovea._fovea._force_variant, never the environment) and gives the default's
result bit for bit; a variant whose `supports` declines makes the planner fall to
the next one; FOVEA_VARIANT, the one debug override, forces from the environment.

CASES maps each op's variant table (src/core/plan.h, docs/configuration.md) to
calls that reach its variants: (make(xp, rng) -> args, run(xp, *args) -> array,
the variants the call reaches). The CPU tables run here; the cuda.* tables run on
the GPU machine (CuPy inputs)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import fovea
import fovea.ndimage as fnd
from fovea import _fovea
from fovea.skimage import morphology as fsm
from fovea.skimage import segmentation as fss


def _u8(xp, rng, shape):
    return xp.asarray(rng.integers(0, 256, shape, dtype=np.uint8))


def _f32(xp, rng, shape):
    return xp.asarray(rng.standard_normal(shape).astype(np.float32))


def _f64(xp, rng, shape):
    return xp.asarray(rng.standard_normal(shape))


def _mask(xp, rng, shape, p=0.6):
    return xp.asarray(rng.random(shape) < p)


def _blobs(xp, rng, shape):
    m = rng.random(shape) < 0.55
    m[tuple(slice(s // 3, 2 * s // 3) for s in shape)] = False   # a hole to fill
    return xp.asarray(m)


_W3 = np.array([[1, 2, 1], [0, 3, -1], [2, -2, 1]], np.float32)
_W333 = np.arange(27, dtype=np.float32).reshape(3, 3, 3) / 27 - 0.4
# a 3 x 5 footprint with its corners off: min / max over it are not separable, so the
# call reaches the n-d filter (a size, or an all-true footprint, runs 1-D passes)
_FP35 = np.ones((3, 5), bool)
_FP35[0, 0] = _FP35[0, -1] = _FP35[-1, 0] = _FP35[-1, -1] = False
_NB_W5 = np.array([0.1, 0.3, 0.2, 0.3, 0.1])

CASES = {
    # ---- CPU ----
    "cpu.lines": [
        (lambda xp, r: (_f64(xp, r, (50, 700)),), lambda xp, a: fnd.correlate1d(a, _NB_W5, axis=1),
         ("avx2", "sse2")),
        (lambda xp, r: (_f64(xp, r, (40, 300)),), lambda xp, a: fnd.correlate(a, _W3.astype(np.float64)),
         ("avx2", "sse2")),
    ],
    "cpu.distance_transform_cdt": [
        (lambda xp, r: (_blobs(xp, r, (60, 70)),), lambda xp, a: fnd.distance_transform_cdt(a, metric="taxicab"),
         ("axes", "passes")),
        (lambda xp, r: (_blobs(xp, r, (20, 30, 25)),),
         lambda xp, a: fnd.distance_transform_cdt(a, metric="chessboard"), ("axes", "passes")),
    ],
    "cpu.local_maxima": [
        (lambda xp, r: (xp.asarray(r.integers(0, 6, (700, 400), dtype=np.uint8)),),
         lambda xp, a: fsm.local_maxima(a), ("blocks", "serial")),
    ],
    "binary_erosion": [
        (lambda xp, r: (_blobs(xp, r, (80, 90)),), lambda xp, a: fnd.binary_fill_holes(a), ("flood", "iterate")),
        (lambda xp, r: (_blobs(xp, r, (30, 40)), _mask(xp, r, (30, 40), 0.2)),
         lambda xp, a, m: fnd.binary_propagation(m, mask=a), ("flood", "iterate")),
    ],
    # ---- CUDA (only on the GPU machine) ----
    "separable": [
        (lambda xp, r: (_f32(xp, r, (300, 257)),), lambda xp, a: fnd.gaussian_filter(a, 1.5), ("fused", "passes")),
    ],
    "cuda.sep2": [
        (lambda xp, r: (_f32(xp, r, (300, 257)),), lambda xp, a: fnd.uniform_filter(a, 5),
         ("strip", "sized", "general")),
    ],
    "cuda.sep2.loads": [
        (lambda xp, r: (_u8(xp, r, (300, 256)),), lambda xp, a: fnd.uniform_filter(a, 7), ("vector", "scalar")),
    ],
    "cuda.filter1d": [
        (lambda xp, r: (_f32(xp, r, (200, 512)),), lambda xp, a: fnd.correlate1d(a, _NB_W5, axis=1),
         ("row", "tile")),
        (lambda xp, r: (_f32(xp, r, (200, 512)),), lambda xp, a: fnd.correlate1d(a, _NB_W5, axis=0),
         ("strip", "tile")),
    ],
    "cuda.filter1d.loads": [
        (lambda xp, r: (_f32(xp, r, (64, 1024)),), lambda xp, a: fnd.correlate1d(a, np.ones(7) / 7.0, axis=1),
         ("vector", "scalar")),
    ],
    "cuda.filter1d.acc": [
        (lambda xp, r: (_u8(xp, r, (64, 500)),), lambda xp, a: fnd.uniform_filter1d(a, 6, axis=0),
         ("float_exact", "double")),
        (lambda xp, r: (_u8(xp, r, (64, 500)),), lambda xp, a: fnd.correlate1d(a, _NB_W5, axis=0),
         ("float_checked", "double")),
    ],
    "cuda.filter1d.row_u8_chunk": [
        (lambda xp, r: (_u8(xp, r, (64, 1024)),), lambda xp, a: fnd.correlate1d(a, _NB_W5, axis=1),
         ("vb8", "vb4", "vb16")),
    ],
    "cuda.filternd": [
        (lambda xp, r: (_f32(xp, r, (130, 150)),), lambda xp, a: fnd.correlate(a, _W3), ("corr_tiled2d", "generic")),
        (lambda xp, r: (_f32(xp, r, (30, 40, 50)),), lambda xp, a: fnd.correlate(a, _W333),
         ("corr_tiled3d", "generic")),
        (lambda xp, r: (_u8(xp, r, (130, 150)),), lambda xp, a: fnd.minimum_filter(a, footprint=_FP35),
         ("minmax_tiled2d", "generic")),
        (lambda xp, r: (_u8(xp, r, (130, 150)),), lambda xp, a: fnd.median_filter(a, size=3),
         ("rank_tiled", "generic")),
    ],
    "cuda.binary_erosion": [
        (lambda xp, r: (_mask(xp, r, (130, 150), 0.8),), lambda xp, a: fnd.binary_erosion(a), ("tiled", "generic")),
    ],
    "cuda.binary_flood": [
        (lambda xp, r: (_blobs(xp, r, (130, 150)),), lambda xp, a: fnd.binary_fill_holes(a), ("halving", "plain")),
    ],
    "cuda.distance_transform_edt": [
        (lambda xp, r: (_blobs(xp, r, (90, 110)),), lambda xp, a: fnd.distance_transform_edt(a),
         ("dist_local", "dist_local2", "dist_envelope", "banded_tr", "banded", "unbanded", "lines")),
        (lambda xp, r: (_blobs(xp, r, (40, 50)),),
         lambda xp, a: fnd.distance_transform_edt(a, return_indices=True)[1], ("banded_tr", "banded", "lines")),
    ],
    "cuda.reconstruction": [
        (lambda xp, r: (_f64(xp, r, (120, 130)),),
         lambda xp, a: fsm.reconstruction(a - 1.0, a, method="dilation"), ("tile2d", "sweep")),
    ],
    "cuda.watershed": [
        (lambda xp, r: (_f64(xp, r, (70, 75)), xp.asarray(_markers(r, (70, 75)))),
         lambda xp, a, m: fss.watershed(a, m), ("tiled", "jacobi")),
    ],
    "cuda.laplace": [
        (lambda xp, r: (_f32(xp, r, (100, 1030)),), lambda xp, a: fnd.laplace(a), ("rows", "generic")),
    ],
    "cuda.gradient_norm": [
        (lambda xp, r: (_f32(xp, r, (100, 1030)),), lambda xp, a: fnd.gaussian_gradient_magnitude(a, 1.0),
         ("vector", "strided")),
    ],
}


def _markers(rng, shape):
    m = np.zeros(shape, np.int32)
    for k in range(1, 20):
        m[tuple(rng.integers(0, s) for s in shape)] = k
    return m


@pytest.fixture(autouse=True)
def _unforced():
    _fovea._force_variant(None, None)
    yield
    _fovea._force_variant(None, None)


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _same(a, b):
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


def _check_op(op, xp, rng):
    names = _fovea._variants(op)
    reached = set()
    for make, run, expect in CASES[op]:
        args = make(xp, rng)
        _fovea._last_variant(None)
        want = run(xp, *args)
        default = _fovea._last_variant(op)
        assert default == expect[0] or (op == "cpu.lines" and not _has_avx2()), (op, default)
        for name in expect:
            assert name in names, (op, name)
            _fovea._force_variant(op, name)
            _fovea._last_variant(None)
            got = run(xp, *args)
            ran = _fovea._last_variant(op)
            _fovea._force_variant(op, None)
            if name == "avx2" and not _has_avx2():
                assert ran == "sse2"   # supports declined: the next one
                continue
            assert ran == name, (op, name, ran)
            reached.add(name)
            _same(got, want)
    missing = set(names) - reached
    if op == "cpu.lines" and not _has_avx2():
        missing.discard("avx2")
    assert not missing, f"{op}: no case reaches {sorted(missing)}"


def test_every_table_has_cases():
    tables = _fovea._variants()
    assert tables, "no variant tables registered"
    assert set(tables) - set(CASES) == set(), "add cases for the new tables to CASES"
    for op, names in tables.items():
        assert len(names) >= 2 and len(set(names)) == len(names), op
        assert _fovea._variants(op) == names


CPU_OPS = [op for op in CASES if not op.startswith("cuda.") and op != "separable"]


@pytest.mark.parametrize("op", CPU_OPS)
def test_cpu_variants_reachable_and_equal(op, rng):
    _check_op(op, np, rng)


@pytest.mark.gpu
@pytest.mark.parametrize("op", [op for op in CASES if op not in CPU_OPS])
def test_gpu_variants_reachable_and_equal(op, cp, rng):
    if op not in _fovea._variants():
        pytest.fail(f"{op}: the CUDA build registers no such table")
    _check_op(op, cp, rng)


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["cpu.lines", "binary_erosion"])
def test_gpu_ops_with_cpu_tables(op, cp, rng):
    if op == "binary_erosion":   # the ops-level table also plans CUDA data
        _check_op(op, cp, rng)


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
        _same(g, w)
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
    import threading
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
