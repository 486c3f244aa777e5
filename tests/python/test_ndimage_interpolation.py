"""fovea.ndimage's interpolation against scipy.ndimage 1.17: every mode and
order, every dtype, 1-5-d, strided inputs, output= rules, complex data, errors;
GPU variants (marked gpu) against scipy on the host copy."""

import numpy as np
import pytest
import scipy.ndimage as sndi

import fovea.ndimage as fndi
from conftest import layouts, random_array

MODES = ["constant", "grid-constant", "nearest", "reflect", "grid-mirror", "mirror", "wrap", "grid-wrap"]
ORDERS = [0, 1, 2, 3, 4, 5]
DTYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float32", "float64"]
SHAPES = {1: (9,), 2: (6, 7), 3: (4, 5, 6), 4: (3, 4, 2, 5), 5: (3, 2, 4, 2, 3)}


def check(got, want, order, dtype=None):
    """orders 0 and 1: equal to float rounding (here: bit for bit); higher: 1e-9
    (float64) / 1e-5 (float32) relative, integers within one step of rounding."""
    assert type(got) is type(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    if order <= 1 or want.dtype == np.bool_:
        np.testing.assert_array_equal(got, want)
    elif want.dtype.kind in "iu":
        assert np.abs(got.astype(np.float64) - want.astype(np.float64)).max(initial=0) <= 1
    else:
        rtol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-9
        scale = max(np.abs(want).max(initial=0), 1.0)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale)


def _calls(x, ndim, rng):
    """(name, fovea call, scipy call) for each function on x."""
    m = np.eye(ndim) * 0.8 + rng.uniform(-0.2, 0.2, (ndim, ndim))
    off = rng.uniform(-1.5, 1.5, ndim)
    coords = rng.uniform(-2, np.array(x.shape) + 1, (5, 4, ndim)).T.copy()
    sh = rng.uniform(-2, 2, ndim)
    return [
        ("shift", lambda f, **k: f.shift(x, sh, **k)),
        ("zoom", lambda f, **k: f.zoom(x, 1.6, **k)),
        ("zoom_grid", lambda f, **k: f.zoom(x, (0.7,) * ndim, grid_mode=True, **k)),
        ("affine", lambda f, **k: f.affine_transform(x, m, off, **k)),
        ("affine_diag", lambda f, **k: f.affine_transform(x, np.diag(m), off, output_shape=tuple(
            n + 1 for n in x.shape), **k)),
        ("map_coordinates", lambda f, **k: f.map_coordinates(x, coords, **k)),
    ]


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("order", ORDERS)
def test_every_mode_and_order(rng, ndim, order):
    x = rng.standard_normal(SHAPES[ndim])
    with np.errstate(all="ignore"):
        for name, call in _calls(x, ndim, rng):
            for mode in MODES:
                for prefilter in (True, False) if order > 1 else (True,):
                    kw = dict(order=order, mode=mode, cval=0.75, prefilter=prefilter)
                    with pytest.warns(UserWarning) if (name == "zoom_grid" and mode in ("constant", "wrap")) \
                            else _nowarn():
                        got = call(fndi, **kw)
                    with pytest.warns(UserWarning) if (name == "zoom_grid" and mode in ("constant", "wrap")) \
                            else _nowarn():
                        want = call(sndi, **kw)
                    check(got, want, order)


class _nowarn:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", [0, 1, 3])
def test_every_dtype(rng, dtype, order):
    x = random_array(rng, (7, 8), dtype, lo=-100 if dtype != "bool" else None, hi=100 if dtype != "bool" else None)
    for name, call in _calls(x, 2, rng):
        for mode in ("constant", "nearest", "mirror"):
            check(call(fndi, order=order, mode=mode), call(sndi, order=order, mode=mode), order)
    # output dtypes other than the input's
    for out in (np.float32, np.float64, np.int16, np.uint8):
        check(fndi.zoom(x, 1.3, order=order, output=out), sndi.zoom(x, 1.3, order=order, output=out), order)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64"])
def test_integer_rounding_and_clamping(rng, dtype):
    x = random_array(rng, (9, 10), dtype)   # the whole range: results clamp at the type's limits
    for order in (0, 1, 3, 5):
        for out in (np.uint8, np.int8, np.uint16, np.int32, np.int64):
            with np.errstate(all="ignore"):
                check(fndi.shift(x, (0.5, -0.5), order=order, output=out, mode="reflect"),
                      sndi.shift(x, (0.5, -0.5), order=order, output=out, mode="reflect"), order)


@pytest.mark.parametrize("ndim", [4, 5])
def test_high_ndim(rng, ndim):
    x = rng.standard_normal(SHAPES[ndim]).astype(np.float32)
    for name, call in _calls(x, ndim, rng):
        for order in (0, 1, 3):
            for mode in ("constant", "grid-wrap", "nearest"):
                check(call(fndi, order=order, mode=mode), call(sndi, order=order, mode=mode), order)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_strided_inputs_outputs(rng, ndim):
    base = rng.standard_normal(tuple(2 * n + 1 for n in SHAPES[ndim]))
    for lname, x in layouts(base):
        for order in (1, 3):
            check(fndi.shift(x, 0.7, order=order, mode="mirror"), sndi.shift(x, 0.7, order=order, mode="mirror"),
                  order)
            coords = rng.uniform(0, min(x.shape), (x.ndim, 6, 5))[..., ::-1]
            check(fndi.map_coordinates(x, coords, order=order), sndi.map_coordinates(x, coords, order=order),
                  order)
            out_f = np.zeros((2,) + x.shape)[1, ...][..., ::-1]
            out_s = np.zeros((2,) + x.shape)[1, ...][..., ::-1]
            r = fndi.shift(x, -0.3, order=order, output=out_f)
            sndi.shift(x, -0.3, order=order, output=out_s)
            assert r is out_f
            check(out_f, out_s, order)


def test_output_argument_and_complex(rng):
    x = rng.standard_normal((6, 7)) + 1j * rng.standard_normal((6, 7))
    for order in (0, 1, 3):
        for fn in ("shift", "zoom", "affine_transform", "map_coordinates", "rotate"):
            args = {"shift": (1.3,), "zoom": (1.4,), "affine_transform": (np.array([[1.0, 0.2], [0.1, 0.9]]),),
                    "map_coordinates": (rng.uniform(0, 6, (2, 3, 4)),), "rotate": (33,)}[fn]
            check(getattr(fndi, fn)(x, *args, order=order, cval=1 + 2j),
                  getattr(sndi, fn)(x, *args, order=order, cval=1 + 2j), order)
        check(fndi.spline_filter(x, order=max(order, 2)), sndi.spline_filter(x, order=max(order, 2)), 3)
    # output as dtype, as str, as array; an output that is the input
    y = rng.standard_normal((6, 7))
    for out in (np.float32, "float32", np.dtype("int32")):
        check(fndi.zoom(y, 1.5, output=out, order=1), sndi.zoom(y, 1.5, output=out, order=1), 1)
    a1, a2 = y.copy(), y.copy()
    assert fndi.shift(a1, 1.5, output=a1, order=3) is a1
    sndi.shift(a2, 1.5, output=a2, order=3)
    check(a1, a2, 3)
    with pytest.raises(RuntimeError):
        fndi.zoom(y, 2, output=np.zeros((3, 3)))
    with pytest.raises(RuntimeError, match="complex"):
        fndi.shift(x, 1, output=np.zeros((6, 7)))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
def test_spline_filter(rng, dtype):
    x = random_array(rng, (5, 6, 4), dtype, lo=-50, hi=50)
    for order in ORDERS:
        for mode in MODES:
            for out in (np.float64, np.float32):
                check(fndi.spline_filter1d(x, order, axis=1, mode=mode, output=out),
                      sndi.spline_filter1d(x, order, axis=1, mode=mode, output=out), order)
                if order >= 2:
                    check(fndi.spline_filter(x, order, mode=mode, output=out),
                          sndi.spline_filter(x, order, mode=mode, output=out), order)
    # short lines (reflect's start is scipy 1.17's) and integer outputs (truncated)
    for n in (1, 2, 3):
        y = rng.standard_normal((3, n))
        for mode in MODES:
            check(fndi.spline_filter(y, 5, mode=mode), sndi.spline_filter(y, 5, mode=mode), 5)
    check(fndi.spline_filter(x, 3, output=np.int32), sndi.spline_filter(x, 3, output=np.int32), 3)


def test_rotate(rng):
    x = rng.standard_normal((9, 12)).astype(np.float32)
    for angle in (0, 30, -45, 90, 180, 270, 123.4):
        for reshape in (True, False):
            for order in (0, 1, 3):
                check(fndi.rotate(x, angle, reshape=reshape, order=order),
                      sndi.rotate(x, angle, reshape=reshape, order=order), order)
    y = rng.standard_normal((4, 6, 5))
    for axes in ((1, 0), (0, 2), (-1, -2)):
        check(fndi.rotate(y, 17, axes=axes, order=1, mode="nearest"),
              sndi.rotate(y, 17, axes=axes, order=1, mode="nearest"), 1)


@pytest.mark.parametrize("order", [0, 1, 2, 3, 5])
def test_rotate_nd_all_planes_in_one_call(rng, order):
    """n-d rotate runs every plane in one call (fv_affine_transform_planes: one
    prefilter of the whole array): equal to scipy's loop over the planes, bit for
    bit, in every mode, for strided inputs, complex values and given outputs."""
    for shape, axes in (((5, 17, 13), (1, 2)), ((6, 7, 8), (0, 2)), ((4, 9, 10, 3), (1, 2)), ((3, 5, 7, 6), (3, 0))):
        for dt in (np.float32, np.uint8, np.complex128):
            a = (rng.random(shape) * 200).astype(dt)
            for mode in MODES:
                for reshape in (True, False):
                    kw = dict(axes=axes, reshape=reshape, order=order, mode=mode, cval=0.3)
                    np.testing.assert_array_equal(fndi.rotate(a, 27, **kw), sndi.rotate(a, 27, **kw))
    a = rng.standard_normal((7, 12, 10))[:, ::-1, ::2]
    out = np.zeros((7, 12, 5), np.float32)
    want = sndi.rotate(a, -40, axes=(1, 2), reshape=False, order=order, output=np.zeros_like(out))
    fndi.rotate(a, -40, axes=(1, 2), reshape=False, order=order, output=out)
    np.testing.assert_array_equal(out, want)


def test_interpolate_batch_is_checked():
    from fovea import _fovea
    x = np.zeros((3, 4, 5))
    for batch in (-1, 3):
        with pytest.raises(ValueError, match="batch"):
            _fovea.ndi_interpolate(x, np.zeros_like(x), 1, 4, 0.0, False, matrix=[1.0, 0, 0, 1], batch=batch)
    with pytest.raises(ValueError, match="extents"):
        _fovea.ndi_interpolate(x, np.zeros((2, 4, 5)), 1, 4, 0.0, False, matrix=[1.0, 0, 0, 1], batch=1)


def test_geometric_transform(rng):
    x = rng.standard_normal((6, 7))

    def mapping(o, a, b=0.0):
        return (o[0] * 0.9 + a, o[1] * 1.1 - b)

    for order in (0, 1, 3):
        for mode in ("constant", "reflect", "grid-wrap"):
            kw = dict(order=order, mode=mode, extra_arguments=(0.3,), extra_keywords={"b": 0.2})
            check(fndi.geometric_transform(x, mapping, **kw), sndi.geometric_transform(x, mapping, **kw), order)
    check(fndi.geometric_transform(x[0], lambda o: (o[0] / 2.0,), output_shape=(11,)),
          sndi.geometric_transform(x[0], lambda o: (o[0] / 2.0,), output_shape=(11,)), 3)


def _same_error(f, s):
    try:
        s()
    except Exception as e:
        want = type(e)
    else:
        raise AssertionError("scipy did not raise")
    with pytest.raises(want):
        f()


def test_errors_match_scipy(rng):
    x = rng.standard_normal((5, 6))
    c = np.zeros((2, 3))
    cases = [
        lambda m: m.shift(x, 1, order=6),
        lambda m: m.shift(x, 1, order=-1),
        lambda m: m.zoom(x, 2, mode="bogus"),
        lambda m: m.zoom(x, (1, 2, 3)),
        lambda m: m.shift(x, (1, 2, 3)),
        lambda m: m.affine_transform(x, np.eye(3)[:, :2]),
        lambda m: m.affine_transform(x, np.eye(2)[:1]),
        lambda m: m.affine_transform(x, np.eye(2), output_shape=(4, 4, 4)),
        lambda m: m.affine_transform(x, np.ones((3, 3))),
        lambda m: m.affine_transform(x, np.ones((2, 2, 2))),
        lambda m: m.affine_transform(x, np.eye(2), offset=(1, 2, 3)),
        lambda m: m.map_coordinates(x, np.zeros((3, 4))),
        lambda m: m.map_coordinates(x, c.astype(complex)),
        lambda m: m.map_coordinates(x, np.zeros(2)),
        lambda m: m.map_coordinates(x, c, mode="bogus"),
        lambda m: m.rotate(x[0], 10),
        lambda m: m.rotate(x, 10, axes=(0,)),
        lambda m: m.rotate(x, 10, axes=(0, 5)),
        lambda m: m.rotate(x, 10, axes=(0.5, 1)),
        lambda m: m.spline_filter(x, 1),
        lambda m: m.spline_filter1d(x, 6),
        lambda m: m.spline_filter1d(x, 3, axis=2),
        lambda m: m.geometric_transform(x, lambda o: (1.0,)),
        lambda m: m.geometric_transform(x, lambda o: [1.0, 2.0]),
        lambda m: m.geometric_transform(x, lambda o: ("a", 1.0)),
        lambda m: m.shift(np.float64(3.0), 1),
    ]
    for case in cases:
        _same_error(lambda: case(fndi), lambda: case(sndi))
    with pytest.warns(UserWarning, match="grid-constant"):
        fndi.zoom(x, 2, grid_mode=True, mode="constant")


def test_nonfinite_coordinates(rng):
    x = rng.standard_normal(8)
    coords = np.array([[np.nan, np.inf, -np.inf, 2.5]])
    for mode in ("constant", "mirror", "reflect", "wrap"):
        got = fndi.map_coordinates(x, coords, order=1, mode=mode, cval=-7.0)
        np.testing.assert_array_equal(got[:3], -7.0)
        assert got[3] == sndi.map_coordinates(x, coords[:, 3:], order=1, mode=mode)[0]
    got = fndi.map_coordinates(x, coords, order=1, mode="nearest")
    assert np.isnan(got[:3]).all()


# ---- GPU ---------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("order", [0, 1, 3, 5])
def test_gpu_matches_scipy(cp, rng, order):
    for ndim in (1, 2, 3):
        x = rng.standard_normal(SHAPES[ndim]).astype(np.float32)
        xd = cp.asarray(x)
        for name in ("shift", "zoom", "affine", "map_coordinates"):
            for mode in MODES:
                got, want = _device_call(cp, name, x, xd, ndim, order, mode, rng)
                assert isinstance(got, cp.ndarray)
                check(cp.asnumpy(got), want, order)


def _device_call(cp, name, x, xd, ndim, order, mode, rng):
    """(fovea result on the device, scipy result on the host) for one function."""
    assert name in ("shift", "zoom", "affine", "map_coordinates")
    m = np.eye(ndim) * 0.9 + 0.05
    kw = dict(order=order, mode=mode, cval=0.5)
    if name == "shift":
        return fndi.shift(xd, 0.7, **kw), sndi.shift(x, 0.7, **kw)
    if name == "zoom":
        return fndi.zoom(xd, 1.6, **kw), sndi.zoom(x, 1.6, **kw)
    if name == "affine":
        return fndi.affine_transform(xd, m, 0.3, **kw), sndi.affine_transform(x, m, 0.3, **kw)
    coords = rng.uniform(-2, max(x.shape) + 1, (ndim, 4, 5))
    return fndi.map_coordinates(xd, cp.asarray(coords), **kw), sndi.map_coordinates(x, coords, **kw)


@pytest.mark.gpu
@pytest.mark.parametrize("order", [0, 1, 3])
def test_gpu_rotate_nd(cp, rng, order):
    """n-d rotate of a CuPy array: every plane in one call, equal to scipy."""
    a = rng.standard_normal((6, 19, 23)).astype(np.float32)
    for mode in MODES:
        for axes in ((1, 2), (0, 2)):
            kw = dict(axes=axes, reshape=False, order=order, mode=mode, cval=0.3)
            np.testing.assert_array_equal(cp.asnumpy(fndi.rotate(cp.asarray(a), 33, **kw)), sndi.rotate(a, 33, **kw))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_gpu_dtypes_and_layouts(cp, rng, dtype):
    x = random_array(rng, (9, 8), dtype, lo=-100 if dtype != "bool" else None, hi=100 if dtype != "bool" else None)
    for lname, v in layouts(x):
        for order in (0, 1, 3):
            got = fndi.zoom(cp.asarray(v), 1.4, order=order, mode="reflect")
            check(cp.asnumpy(got), sndi.zoom(v, 1.4, order=order, mode="reflect"), order)
            got = fndi.rotate(cp.asarray(v), 21, order=order)
            check(cp.asnumpy(got), sndi.rotate(v, 21, order=order), order)
    for order in (2, 3, 4, 5):
        for mode in MODES:
            got = fndi.spline_filter1d(cp.asarray(x), order, axis=0, mode=mode, output=np.float32)
            check(cp.asnumpy(got), sndi.spline_filter1d(x, order, axis=0, mode=mode, output=np.float32), order)


@pytest.mark.gpu
def test_gpu_geometric_transform_is_a_type_error(cp):
    with pytest.raises(TypeError, match="map_coordinates"):
        fndi.geometric_transform(cp.zeros((4, 4)), lambda o: o)


@pytest.mark.gpu
def test_gpu_device_mismatch(cp):
    import fovea

    with pytest.raises(fovea.DeviceError):
        fndi.map_coordinates(cp.zeros((4, 4)), np.zeros((2, 3)))


# ---- the CPU kernel's fast paths (row records, per-axis tables, lock-step prefilter) -----------

@pytest.mark.parametrize("order", ORDERS)
def test_fast_paths_bit_exact(rng, order):
    """Bit for bit equal to scipy at every order: zoom / shift tables, affine rows
    with axes constant along the row, output rank != input rank, coordinate
    arrays of other dtypes and strides, interiors and borders of larger arrays,
    and prefilter line counts that are not multiples of the lanes."""
    x2 = rng.standard_normal((37, 45)).astype(np.float32)
    x3 = rng.integers(0, 255, (11, 13, 17), dtype=np.uint8)
    rgb = rng.integers(0, 255, (19, 29, 3), dtype=np.uint8)   # rows along the longest axis
    m3 = np.array([[0.9, 0.3, 0.0], [-0.3, 0.9, 0.0], [0.0, 0.0, 1.0]])   # axis 2 constant along rows
    m32 = np.array([[0.9, 0.4], [0.1, 0.0], [-0.3, 1.1]])                  # 2-d output of a 3-d input
    coords = rng.uniform(-3, 40, (2, 19, 23))
    cases = [
        lambda f, **k: f.zoom(x2, (1.7, 0.6), **k),
        lambda f, **k: f.zoom(x3, 1.3, grid_mode=True, **k),
        lambda f, **k: f.zoom(rgb, (1.4, 0.7, 1), **k),
        lambda f, **k: f.shift(rgb[:, ::-1], (0.5, -1.75, 0), **k),
        lambda f, **k: f.map_coordinates(rgb, np.stack(np.broadcast_arrays(
            coords[0, :, :, None] * 0.5, coords[1, :, :, None] * 0.7, np.array([0.0, 1.0, 2.0]))), **k),
        lambda f, **k: f.shift(x3, (1.5, -2.25, 0.5), **k),
        lambda f, **k: f.rotate(x2, 33, **k),
        lambda f, **k: f.rotate(x3, 21, axes=(2, 1), reshape=False, **k),
        lambda f, **k: f.affine_transform(x3, m3, (1.0, -2.0, 0.5), **k),
        lambda f, **k: f.affine_transform(x3, m32, (1.0, -2.0, 0.5), output_shape=(12, 9), **k),
        lambda f, **k: f.map_coordinates(x2, coords, **k),
        lambda f, **k: f.map_coordinates(x2, coords.astype(np.float32)[:, ::2, ::-1], **k),
        lambda f, **k: f.map_coordinates(x3, np.stack([coords[0], coords[1] * 0.3, coords[0] * 0.4]), **k),
    ]
    modes = MODES if order in (0, 1, 3) else ["constant", "nearest", "grid-constant", "wrap"]
    for call in cases:
        for mode in modes:
            kw = dict(order=order, mode=mode, cval=-1.5)
            with np.errstate(all="ignore"):
                np.testing.assert_array_equal(call(fndi, **kw), call(sndi, **kw))


@pytest.mark.parametrize("order", [2, 3, 4, 5])
def test_spline_filter_lanes_bit_exact(rng, order):
    for shape in [(2, 3), (13, 2), (9, 31), (5, 3, 19)]:
        x = rng.standard_normal(shape)
        for mode in ["mirror", "reflect", "grid-wrap", "nearest", "constant"]:
            for axis in range(len(shape)):
                np.testing.assert_array_equal(fndi.spline_filter1d(x, order, axis=axis, mode=mode),
                                              sndi.spline_filter1d(x, order, axis=axis, mode=mode))
            np.testing.assert_array_equal(fndi.spline_filter(x, order, mode=mode),
                                          sndi.spline_filter(x, order, mode=mode))


def test_nonfinite_coordinates_in_rows(rng):
    """Non-finite coordinates among finite ones in a row: cval there (NaN in
    nearest and grid-constant modes), scipy's values elsewhere."""
    x = rng.standard_normal((8, 9))
    coords = rng.uniform(-2, 10, (2, 6, 7))
    coords[0, 1, 2] = np.nan
    coords[1, 3, 4] = np.inf
    bad = ~np.isfinite(coords).all(axis=0)
    for order in (0, 1, 3):
        for mode in ("constant", "nearest", "grid-constant", "mirror"):
            got = fndi.map_coordinates(x, coords, order=order, mode=mode, cval=2.0)
            with np.errstate(all="ignore"):
                want = sndi.map_coordinates(x, coords, order=order, mode=mode, cval=2.0)
            np.testing.assert_array_equal(got[~bad], want[~bad])
            if mode in ("nearest", "grid-constant"):
                assert np.isnan(got[bad]).all()
            else:
                np.testing.assert_array_equal(got[bad], 2.0)
