"""astype / add / multiply against NumPy on random data, on every layout we can
make (contiguous, stepped, transposed, negative strides), 0-d to 4-d, with the
same tests on CuPy arrays where a GPU exists."""

import math
import threading

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import fovea
from conftest import DTYPES, FLOAT_DTYPES, INT_DTYPES, SHAPES_ND, layouts, random_array

PAIRS = [(a, b) for a in DTYPES for b in DTYPES]


def astype_source(rng, shape, src, dst):
    """Random src data whose conversion to dst NumPy defines: float -> int only in
    range (NumPy's out-of-range result is platform-defined)."""
    if np.dtype(src).kind == "f" and np.dtype(dst).kind in "iu":
        info = np.iinfo(dst)
        return random_array(rng, shape, src, lo=max(info.min, -1e6), hi=min(info.max, 1e6))
    return random_array(rng, shape, src)


# ---- astype ---------------------------------------------------------------------------


@pytest.mark.parametrize("ndim", sorted(SHAPES_ND))
@pytest.mark.parametrize("src,dst", PAIRS)
def test_astype_matches_numpy(rng, src, dst, ndim):
    base = astype_source(rng, SHAPES_ND[ndim], src, dst)
    for name, x in layouts(base):
        got = fovea.astype(x, dst)
        assert type(got) is np.ndarray, name
        assert got.dtype == np.dtype(dst), name
        assert got.shape == x.shape, name
        assert_array_equal(got, x.astype(dst), err_msg=f"{src}->{dst} {name}")


@pytest.mark.parametrize("src,dst", [("float64", "int32"), ("uint16", "float32"), ("int64", "bool")])
def test_astype_0d_and_empty(rng, src, dst):
    for shape in [(), (0,), (3, 0, 2)]:
        x = astype_source(rng, shape, src, dst)
        got = fovea.astype(x, dst)
        assert got.shape == shape and got.dtype == np.dtype(dst)
        assert_array_equal(got, x.astype(dst))


def saturating_cast(x, dst):
    """fovea's float -> int rule element by element (on the values after rounding
    to x's dtype): truncate, saturate, NaN -> 0."""
    info = np.iinfo(dst)
    out = []
    for v in x.astype(np.float64).tolist():
        if math.isnan(v):
            out.append(0)
        elif math.isinf(v):
            out.append(info.max if v > 0 else info.min)
        else:
            out.append(min(max(math.trunc(v), info.min), info.max))
    return out


@pytest.mark.parametrize("dst", INT_DTYPES)
@pytest.mark.parametrize("src", FLOAT_DTYPES)
def test_astype_float_to_int_saturates(src, dst):
    """Documented where NumPy is not: float -> int saturates at the limits, NaN -> 0."""
    info = np.iinfo(dst)
    vals = [math.nan, math.inf, -math.inf, 1e30, -1e30, float(info.max) * 2 + 10.0,
            float(info.min) * 2 - 10.0, float(info.max), float(info.min), 3.7, -3.7, 0.9, -0.9, 100.5]
    x = np.array(vals, dtype=src)
    got = fovea.astype(x, dst)
    assert got.dtype == np.dtype(dst)
    assert [int(g) for g in got] == saturating_cast(x, dst)


@pytest.mark.parametrize("dst", INT_DTYPES)
@pytest.mark.parametrize("src", FLOAT_DTYPES)
def test_astype_float_to_int_saturates_long(rng, src, dst):
    """Edge values and their float neighbours in arrays long enough for the vector
    paths (32 lanes and more), at every offset and with a scalar tail."""
    info = np.iinfo(dst)
    edges = [math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, -0.5, 1e-40, -1e-40, 1e30, -1e30,
             float(info.max), float(info.max) + 0.5, float(info.max) + 1.0, float(info.min),
             float(info.min) - 0.5, float(info.min) - 1.0, 255.5, 256.0, -128.5, -129.0, 127.5, 128.0,
             32767.5, 32768.0, -32768.5, -32769.0, 65535.5, 65536.0, 2.0**31, -(2.0**31), 2.0**32, 2.0**63]
    e = np.array(edges, dtype=src)
    e = np.concatenate([e, np.nextafter(e, np.inf), np.nextafter(e, -np.inf)])
    x = np.concatenate([e, random_array(rng, (200,), src, lo=-3e5, hi=3e5) * 1e3, e[::-1]]).astype(src)
    for start in range(0, 9):
        sub = x[start:len(x) - start]
        assert [int(g) for g in fovea.astype(sub, dst)] == saturating_cast(sub, dst), (src, dst, start)
    two = np.stack([x, x[::-1]])
    assert_array_equal(fovea.astype(two[:, ::2], dst), np.array([saturating_cast(r, dst) for r in two[:, ::2]]))


@pytest.mark.parametrize("variant", ["avx2", "sse2"])
def test_astype_float32_to_int_lines_variants(rng, variant):
    """Both entries of the planner's "cpu.lines" table for the float32 -> integer
    casts (avx2: the vector loop where the CPU has AVX2; sse2: the scalar cast)."""
    from fovea import _fovea
    e = np.array([math.nan, -math.nan, math.inf, -math.inf, -0.0, 0.5, -0.5, 255.5, 256.0, -128.5, -129.0,
                  32767.5, 32768.0, -32768.5, 65535.5, 65536.0, 2.0**31, -(2.0**31), 3e9, -3e9], np.float32)
    x = np.concatenate([e, random_array(rng, (100,), "float32", lo=-7e4, hi=7e4), e[::-1]]).astype(np.float32)
    _fovea._force_variant("cpu.lines", variant)
    try:
        for dst in ["uint8", "int8", "uint16", "int16", "int32"]:
            _fovea._last_variant(None)
            got = fovea.astype(x[3:], dst)
            ran = _fovea._last_variant("cpu.lines")
            assert [int(g) for g in got] == saturating_cast(x[3:], dst), (variant, dst, ran)
            assert ran in (variant, "sse2"), ran   # avx2 only where the CPU has it
    finally:
        _fovea._force_variant("cpu.lines", None)


def test_astype_integers_wrap_like_numpy():
    x = np.array([300, -1, 65537, -129, 2**40 + 5, -(2**40) - 3], dtype=np.int64)
    for dst in INT_DTYPES:
        assert_array_equal(fovea.astype(x, dst), x.astype(dst), err_msg=dst)
    u = np.array([2**64 - 1, 2**63, 255, 256], dtype=np.uint64)
    for dst in INT_DTYPES:
        assert_array_equal(fovea.astype(u, dst), u.astype(dst), err_msg=dst)


def test_astype_to_bool_is_nonzero():
    x = np.array([0.0, -0.0, 0.5, -2.0, np.nan, np.inf], dtype=np.float64)
    assert fovea.astype(x, "bool").tolist() == [False, False, True, True, True, True]
    assert fovea.astype(np.array([0, 2, 256], np.int32), bool).tolist() == [False, True, True]


@pytest.mark.parametrize(
    "spelling", [np.float32, np.dtype("float32"), "float32", "f4", "<f4", "single"]
)
def test_astype_dtype_spellings(rng, spelling):
    x = random_array(rng, (4, 3), "int16")
    got = fovea.astype(x, spelling)
    assert got.dtype == np.float32
    assert_array_equal(got, x.astype(np.float32))


def test_astype_dtype_objects_repeated(rng):
    """Dtype objects and types are remembered after their first parse (a cache in
    the extension): repeated calls, and refusals that stay refusals."""
    x = random_array(rng, (4,), "int16")
    for _ in range(3):
        for dt in [np.float32, np.dtype("uint8"), np.dtype("=i4"), np.int64, np.dtype("bool")]:
            assert fovea.astype(x, dt).dtype == np.dtype(dt)
        with pytest.raises(TypeError, match="byte-swapped"):
            fovea.astype(x, np.dtype(">f4" if np.little_endian else "<f4"))
        with pytest.raises(TypeError):
            fovea.astype(x, np.complex64)


@pytest.mark.parametrize("spelling,expected", [(float, "float64"), (int, "int64"), (bool, "bool"),
                                               (np.uint16, "uint16"), ("uint64", "uint64")])
def test_astype_python_types(rng, spelling, expected):
    x = random_array(rng, (5,), "uint8")
    got = fovea.astype(x, spelling)
    assert got.dtype == np.dtype(expected)
    assert_array_equal(got, x.astype(expected))


def test_astype_keeps_input_untouched(rng):
    x = random_array(rng, (8, 9), "float32")
    keep = x.copy()
    fovea.astype(x[::2, ::-1], "int16")
    assert_array_equal(x, keep)


# ---- add / multiply -----------------------------------------------------------------------


@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("da,db", PAIRS)
def test_binop_dtype_pairs(rng, op, da, db):
    a = random_array(rng, (3, 4, 5), da)
    b = random_array(rng, (4, 5), db)
    got = getattr(fovea, op)(a, b)
    expected = getattr(np, op)(a, b)
    assert type(got) is np.ndarray
    assert got.dtype == np.result_type(a, b) == expected.dtype
    assert_array_equal(got, expected)


BROADCASTS = [
    ((3, 1, 5), (4, 5)),
    ((1,), (2, 3)),
    ((), (3,)),
    ((2, 3), ()),
    ((), ()),
    ((4, 1), (1, 6)),
    ((2, 1, 3, 1), (5, 1, 4)),
    ((1, 1, 1, 1, 1, 1, 1, 2), (2,)),
    ((0,), (0,)),
    ((2, 0), (1,)),
    ((0, 3), (1, 3)),
    ((1, 0), (3, 1)),
]


@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("da,db", [("float32", "int16"), ("uint8", "uint8"), ("int64", "float64"),
                                   ("bool", "int8"), ("uint32", "int32")])
@pytest.mark.parametrize("sa,sb", BROADCASTS)
def test_binop_broadcasting(rng, op, da, db, sa, sb):
    a = random_array(rng, sa, da)
    b = random_array(rng, sb, db)
    got = getattr(fovea, op)(a, b)
    expected = getattr(np, op)(a, b)
    assert got.shape == np.broadcast_shapes(sa, sb)
    assert got.dtype == expected.dtype
    assert_array_equal(got, expected)


@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("da,db", [("float32", "float32"), ("int16", "uint16"), ("float64", "int8"),
                                   ("uint64", "uint64")])
@pytest.mark.parametrize("ndim", [2, 3])
def test_binop_non_contiguous(rng, op, da, db, ndim):
    shape = (6,) * ndim
    a_base = random_array(rng, shape, da)
    b_base = random_array(rng, shape, db)
    n = 0
    for na, a in layouts(a_base):
        for nb, b in layouts(b_base):
            try:
                np.broadcast_shapes(a.shape, b.shape)
            except ValueError:
                continue
            n += 1
            assert_array_equal(getattr(fovea, op)(a, b), getattr(np, op)(a, b), err_msg=f"{na} x {nb}")
    assert n >= 10


@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("da,db", [("int16", "float32"), ("float32", "uint8"), ("uint8", "int8"),
                                   ("bool", "float64"), ("int32", "float64")])
def test_binop_mixed_long_lines(rng, op, da, db):
    """Inputs of another dtype than the result's are cast block by block (1024
    elements): lines longer than a block, broadcast rows, columns and scalars, strides."""
    a = random_array(rng, (3, 2500), da)
    b = random_array(rng, (3, 2500), db)
    f, g = getattr(fovea, op), getattr(np, op)
    for x, y in [(a, b), (a, b[1]), (a[:, :1], b), (a[1, 5], b), (a[:, ::3], b[:, ::-3]), (a[::-1, ::-2], b[:, ::2]),
                 (a.T, b.T[::-1])]:
        assert_array_equal(f(x, y), g(x, y), err_msg=f"{x.shape} {y.shape}")


def test_binop_mixed_explicit_dtype_saturates(rng):
    """dtype= narrower than the inputs: each input cast as fovea.astype casts it."""
    a = np.concatenate([random_array(rng, (2000,), "float64", lo=-1e6, hi=1e6), [np.nan, np.inf, -np.inf]])
    b = random_array(rng, (2003,), "int32", lo=-100000, hi=100000)
    for dt in ["uint8", "int16", "int32"]:
        expected = np.add(fovea.astype(a, dt), fovea.astype(b, dt))
        assert_array_equal(fovea.add(a, b, dtype=dt), expected, err_msg=dt)


@pytest.mark.parametrize("op", ["add", "multiply"])
def test_binop_integers_wrap(op):
    a = np.array([250, 128, 255], dtype=np.uint8)
    b = np.array([10, 2, 255], dtype=np.uint8)
    assert_array_equal(getattr(fovea, op)(a, b), getattr(np, op)(a, b))
    a = np.array([2**62, -(2**63), 2**63 - 1], dtype=np.int64)
    assert_array_equal(getattr(fovea, op)(a, a), getattr(np, op)(a, a))


def test_bool_add_is_or_multiply_is_and():
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    assert fovea.add(a, b).tolist() == [False, True, True, True]
    assert fovea.multiply(a, b).tolist() == [False, False, False, True]


@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8", "float64"])
def test_binop_explicit_dtype(rng, op, dtype):
    a = random_array(rng, (5, 4), "int32", lo=-100, hi=100)
    b = random_array(rng, (4,), "float64", lo=0, hi=100)  # float -> uint: in range
    got = getattr(fovea, op)(a, b, dtype=dtype)
    expected = getattr(np, op)(a.astype(dtype), b.astype(dtype))
    assert got.dtype == np.dtype(dtype)
    assert_array_equal(got, expected)


@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("dtype,scalar", [("uint8", 3), ("int16", -7), ("int16", 2.5), ("float32", 1.25),
                                          ("bool", True), ("int64", 1.5), ("float32", 3)])
def test_binop_python_scalars_follow_numpy(rng, op, dtype, scalar):
    x = random_array(rng, (3, 4), dtype, lo=-50, hi=50)
    expected = getattr(np, op)(x, scalar)
    for got in (getattr(fovea, op)(x, scalar), getattr(fovea, op)(scalar, x)):
        assert type(got) is np.ndarray
        assert got.dtype == expected.dtype
        assert_array_equal(got, expected)


def test_binop_scalars_and_lists_give_numpy():
    got = fovea.add(2, 3)
    assert isinstance(got, np.ndarray) and got.shape == () and int(got) == 5
    got = fovea.multiply([1, 2, 3], [[2], [3]])
    assert_array_equal(got, np.multiply([1, 2, 3], [[2], [3]]))
    assert isinstance(got, np.ndarray)
    got = fovea.astype([1.5, -2.5], "int8")
    assert isinstance(got, np.ndarray) and got.tolist() == [1, -2]


def test_fovea_array_in_gives_fovea_array_out(rng):
    x = random_array(rng, (4, 5), "float32")
    a = fovea.asarray(x)
    for got in (fovea.add(a, x), fovea.multiply(a, 2.0), fovea.astype(a, "int32")):
        assert isinstance(got, fovea.Array)
        assert got.device == "cpu"
    assert_array_equal(np.asarray(fovea.add(a, x)), x + x)
    # the first array-like decides: numpy first -> numpy
    assert isinstance(fovea.add(x, a), np.ndarray)


def test_readonly_input_is_fine(rng):
    x = random_array(rng, (6, 3), "int32")
    x.flags.writeable = False
    assert_array_equal(fovea.add(x, x), x + x)
    assert_array_equal(fovea.astype(x, "float64"), x.astype("float64"))


def test_empty():
    a = fovea.empty((2, 3), "uint16")
    assert isinstance(a, fovea.Array)
    assert a.shape == (2, 3) and a.dtype == np.uint16 and a.device == "cpu" and a.strides == (6, 2)
    assert fovea.empty(4).shape == (4,) and fovea.empty(4).dtype == np.float64
    assert fovea.empty((), "bool").shape == ()


def test_concurrent_calls_release_the_gil(rng):
    xs = [random_array(rng, (64, 64), "float32") for _ in range(4)]
    errors = []

    def work(x):
        try:
            for _ in range(20):
                assert_array_equal(fovea.add(x, x), x + x)
                assert_array_equal(fovea.astype(x, "int16"), x.astype("int16"))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(x,)) for x in xs]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


# ---- the same on the GPU (CuPy in -> CuPy out) ------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("src,dst", PAIRS)
def test_cupy_astype_matches_numpy(cp, rng, src, dst):
    base = astype_source(rng, SHAPES_ND[3], src, dst)
    d_base = cp.asarray(base)
    for (name, x), (_, dx) in zip(layouts(base), layouts(d_base)):
        got = fovea.astype(dx, dst)
        assert isinstance(got, cp.ndarray), name
        assert got.dtype == np.dtype(dst)
        assert_array_equal(cp.asnumpy(got), x.astype(dst), err_msg=f"{src}->{dst} {name}")


@pytest.mark.gpu
@pytest.mark.parametrize("dst", INT_DTYPES)
def test_cupy_astype_saturates(cp, dst):
    info = np.iinfo(dst)
    x = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, -3.7, 3.7], dtype=np.float32)
    got = cp.asnumpy(fovea.astype(cp.asarray(x), dst))
    assert [int(v) for v in got] == [0, info.max, info.min, info.max, info.min, max(-3, info.min), 3]


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("da,db", PAIRS)
def test_cupy_binop_dtype_pairs(cp, rng, op, da, db):
    a = random_array(rng, (3, 4, 5), da)
    b = random_array(rng, (4, 5), db)
    got = getattr(fovea, op)(cp.asarray(a), cp.asarray(b))
    assert isinstance(got, cp.ndarray)
    assert got.dtype == np.result_type(a, b)
    assert_array_equal(cp.asnumpy(got), getattr(np, op)(a, b))


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("sa,sb", BROADCASTS)
def test_cupy_binop_broadcasting(cp, rng, op, sa, sb):
    a = random_array(rng, sa, "float32")
    b = random_array(rng, sb, "int16")
    got = getattr(fovea, op)(cp.asarray(a), cp.asarray(b))
    assert isinstance(got, cp.ndarray)
    assert_array_equal(cp.asnumpy(got), getattr(np, op)(a, b))


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["add", "multiply"])
def test_cupy_binop_non_contiguous(cp, rng, op):
    a_base = random_array(rng, (6, 6, 6), "int32")
    b_base = random_array(rng, (6, 6, 6), "float64")
    da, db = cp.asarray(a_base), cp.asarray(b_base)
    for (na, a), (_, dxa) in zip(layouts(a_base), layouts(da)):
        for (nb, b), (_, dxb) in zip(layouts(b_base), layouts(db)):
            if a.shape != b.shape:
                continue
            got = getattr(fovea, op)(dxa, dxb)
            assert_array_equal(cp.asnumpy(got), getattr(np, op)(a, b), err_msg=f"{na} x {nb}")


@pytest.mark.gpu
def test_cupy_scalars_stay_on_device(cp, rng):
    x = random_array(rng, (4, 4), "uint8")
    got = fovea.add(cp.asarray(x), 3)
    assert isinstance(got, cp.ndarray) and got.dtype == np.uint8
    assert_array_equal(cp.asnumpy(got), x + np.uint8(3))


@pytest.mark.gpu
def test_cupy_on_a_non_default_stream(cp, rng):
    x = random_array(rng, (256, 256), "float32")
    with cp.cuda.Stream(non_blocking=True) as s:
        dx = cp.asarray(x)
        got = fovea.multiply(fovea.add(dx, dx), dx)
        s.synchronize()
    assert_array_equal(cp.asnumpy(got), (x + x) * x)
