"""fovea.skimage.transform's resize_local_mean, swirl, warp_polar, the
epipolar / polynomial / piecewise-affine transforms, estimate_transform and
matrix_transform against scikit-image 0.26 on random data (dtypes, 1-d to 4-d,
channel_axis, grid modes), plus argument errors and deprecation warnings.
Image tests run on NumPy and, with a GPU and CuPy, on CuPy (the ``xp`` fixture)."""

import warnings

import numpy as np
import pytest
from skimage import transform as skt

from fovea.skimage import transform as ft
from test_skimage_transform import close, image as _image
from xpcase import xp_fixture  # noqa: E402 (tests/python/xpcase.py)

xp = xp_fixture()


def image(rng, shape, dtype):
    if dtype == "uint64":
        return rng.integers(0, 2 ** 64 - 1, shape, dtype=np.uint64, endpoint=True)
    return _image(rng, shape, dtype)

# ---- resize_local_mean ------------------------------------------------------------------------

RLM_DTYPES = ["uint8", "uint16", "uint64", "int8", "int16", "int64", "bool", "float16", "float32", "float64"]
RLM_SHAPES = [((23, 31), (10, 7)), ((5, 5), (10, 10)), ((8, 9), (8, 3)), ((20, 17, 3), (9, 25, 3)),
              ((6, 7, 5), (3, 9, 2)), ((30,), (7,)), ((50,), (1,)), ((4, 5, 3, 2), (2, 7, 3, 5)), ((3, 1), (1, 4))]


@pytest.mark.parametrize("dtype", RLM_DTYPES)
@pytest.mark.parametrize("grid_mode", [True, False])
@pytest.mark.parametrize("preserve_range", [False, True])
def test_resize_local_mean(xp, rng, dtype, grid_mode, preserve_range):
    for shape, out_shape in RLM_SHAPES:
        a = image(rng, shape, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # scikit-image's 0 / 0 (one-pixel axes, centre mode)
            want = skt.resize_local_mean(a, out_shape, grid_mode=grid_mode, preserve_range=preserve_range)
        got = xp.get(ft.resize_local_mean(xp.put(a), out_shape, grid_mode=grid_mode, preserve_range=preserve_range))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        close(np.nan_to_num(got), np.nan_to_num(want))


@pytest.mark.parametrize("channel_axis", [0, 1, 2, -1, -2, -3])
def test_resize_local_mean_channel_axis(xp, rng, channel_axis):
    a = np.moveaxis(image(rng, (13, 11, 3), "float64"), -1, channel_axis)
    want = skt.resize_local_mean(a, (5, 17), channel_axis=channel_axis)
    got = xp.get(ft.resize_local_mean(xp.put(a), (5, 17), channel_axis=channel_axis))
    close(got, want)
    # the channel axis may stay in output_shape (scikit-image resizes the wrong axes there unless it is last)
    ax = channel_axis % 3
    full = (5, 17)[:ax] + (3,) + (5, 17)[ax:]
    close(xp.get(ft.resize_local_mean(xp.put(a), full, channel_axis=channel_axis)), want)
    if ax == 2:
        close(xp.get(ft.resize_local_mean(xp.put(a), full, channel_axis=channel_axis)),
              skt.resize_local_mean(a, full, channel_axis=channel_axis))


def test_resize_local_mean_shapes_and_layouts(xp, rng):
    a = image(rng, (12, 14), "float64")
    for out_shape in [(6,), (6, 14), (5, 9, 1)]:     # last axis kept; a singleton axis appended
        close(xp.get(ft.resize_local_mean(xp.put(a), out_shape)), skt.resize_local_mean(a, out_shape))
    big = image(rng, (30, 40, 3), "uint8")
    view = big[::-2, 3::3]                               # negative and non-unit strides
    close(xp.get(ft.resize_local_mean(xp.put(view), (7, 5, 3))), skt.resize_local_mean(view, (7, 5, 3)))
    swapped = image(rng, (9, 10), "float64").astype(">f8")
    close(ft.resize_local_mean(swapped, (4, 4)), skt.resize_local_mean(swapped, (4, 4)))
    # an integer factor: the block mean
    b = image(rng, (12, 15), "float64")
    close(xp.get(ft.resize_local_mean(xp.put(b), (4, 5))), skt.downscale_local_mean(b, (3, 3)))


def test_resize_local_mean_errors(xp, rng):
    a = xp.put(image(rng, (5, 6, 3), "float64"))
    with pytest.raises(ValueError, match="invalid channel_axis"):
        ft.resize_local_mean(a, (2, 2), channel_axis=3)
    with pytest.raises(ValueError, match="channel_axis"):
        ft.resize_local_mean(a, (2, 2, 4), channel_axis=-1)
    with pytest.raises(ValueError, match="len\\(output_shape\\)"):
        ft.resize_local_mean(a, (2,), channel_axis=-1)
    with pytest.raises(ValueError, match="smaller"):
        ft.resize_local_mean(a, (2,))
    with pytest.raises(ValueError):
        ft.resize_local_mean(a, (2, -1, 3))


# ---- swirl, warp_polar ------------------------------------------------------------------------

@pytest.mark.parametrize("shape,dtype", [((23, 31), "uint8"), ((23, 31), "float32"), ((20, 17, 3), "float64"),
                                         ((16, 18), "bool")])
@pytest.mark.parametrize("kw", [{}, dict(strength=5, radius=20, order=3, mode="edge"),
                                dict(center=(4, 9), rotation=0.4, mode="constant", cval=0.25),
                                dict(output_shape=(12, 40), order=0, mode="wrap")])
def test_swirl(xp, rng, shape, dtype, kw):
    a = image(rng, shape, dtype)
    if dtype == "bool":
        kw = {**kw, "order": 0}
    want = skt.swirl(a, **kw)
    close(xp.get(ft.swirl(xp.put(a), **kw)), want)


@pytest.mark.parametrize("kw", [{}, dict(radius=12), dict(scaling="log"),
                                dict(center=(10, 5), radius=30, output_shape=(90, 40), scaling="log", order=3),
                                dict(order=0, mode="symmetric"), dict(preserve_range=True, clip=False, order=5)])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_warp_polar(xp, rng, kw, dtype):
    a = image(rng, (21, 26), dtype)
    close(xp.get(ft.warp_polar(xp.put(a), **kw)), skt.warp_polar(a, **kw))
    rgb = image(rng, (17, 15, 3), dtype)
    for ca in (-1, 2, 0, 1):
        c = np.moveaxis(rgb, -1, ca)
        close(xp.get(ft.warp_polar(xp.put(c), channel_axis=ca, **kw)), skt.warp_polar(c, channel_axis=ca, **kw))


def test_warp_polar_errors(xp):
    z = xp.put(np.zeros((10, 10)))
    for scaling in ("invalid", None):
        with pytest.raises(ValueError, match="Scaling value"):
            ft.warp_polar(z, (5, 5), scaling=scaling)
    with pytest.raises(ValueError, match="2-dimensional"):
        ft.warp_polar(xp.put(np.zeros((10, 10, 3))), (5, 5))
    with pytest.raises(ValueError, match="3-dimensional"):
        ft.warp_polar(z, (5, 5), channel_axis=-1)
    with pytest.raises(ValueError, match="3-dimensional"):
        ft.warp_polar(xp.put(np.zeros((10, 10, 10, 3))), (5, 5), channel_axis=-1)
    with pytest.raises(TypeError):
        ft.warp_polar(z, bogus=1)


# ---- the transform classes --------------------------------------------------------------------

def _pairs(rng, n=14):
    src = rng.random((n, 2)) * 100
    m = np.array([[1.1, 0.1, 4.0], [-0.05, 0.9, -2.0], [1e-4, -2e-4, 1.0]])
    dst = ft.ProjectiveTransform(m)(src) + rng.standard_normal((n, 2)) * 0.5
    return src, dst


NEW = ["FundamentalMatrixTransform", "EssentialMatrixTransform", "PolynomialTransform", "PiecewiseAffineTransform"]
ALL_TYPES = ["euclidean", "similarity", "affine", "piecewise-affine", "projective", "fundamental", "essential",
             "polynomial"]


@pytest.mark.parametrize("name", NEW)
def test_new_transform_classes(rng, name):
    src, dst = _pairs(rng)
    F, S = getattr(ft, name), getattr(skt, name)
    a, b = F.from_estimate(src, dst), S.from_estimate(src, dst)
    assert a and type(a) is F
    q = rng.random((200, 2)) * 110 - 5
    np.testing.assert_allclose(a(q), b(q), rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(a.residuals(src, dst), b.residuals(src, dst), rtol=1e-10, atol=1e-12)
    if name == "PolynomialTransform":
        with pytest.raises(NotImplementedError, match="inverse"):
            a.inverse
        np.testing.assert_allclose(a.params, b.params, rtol=1e-10)
    else:
        np.testing.assert_allclose(a.inverse(q), b.inverse(q), rtol=1e-12, atol=1e-10)
    if name != "PiecewiseAffineTransform":
        np.testing.assert_allclose(a.params, b.params, rtol=1e-10, atol=1e-13)
        np.testing.assert_array_equal(F.identity().params, S.identity().params)
    # estimate: deprecated, True on success, the same warning as scikit-image
    t = F()
    with pytest.warns(FutureWarning, match=f"`{name}.from_estimate`"):
        assert t.estimate(src, dst) is True
    np.testing.assert_allclose(t(q), a(q))


def test_transform_options_and_failures(rng):
    src, dst = _pairs(rng)
    w = rng.random(len(src)) + 0.1
    for order in (1, 2, 3):
        a = ft.PolynomialTransform.from_estimate(src, dst, order=order, weights=w)
        np.testing.assert_allclose(a.params, skt.PolynomialTransform.from_estimate(src, dst, order, w).params,
                                   rtol=1e-9)
    np.testing.assert_array_equal(ft.PolynomialTransform()(src), src)
    bad = np.ones((8, 2))
    for name in ("FundamentalMatrixTransform", "EssentialMatrixTransform"):
        f, s = getattr(ft, name).from_estimate(bad, dst[:8]), getattr(skt, name).from_estimate(bad, dst[:8])
        assert not f and str(f) == str(s)
        with pytest.raises(AttributeError):
            f.params
        with pytest.raises(ValueError, match="equal or larger than 8"):
            getattr(ft, name).from_estimate(src[:7], dst[:7])
        with pytest.raises(ValueError, match="identical"):
            getattr(ft, name).from_estimate(src[:9], dst[:8])
    # coincident source points (scikit-image's example): the failure names the simplices
    s2 = [[-12.37, -10.51], [-10.79, 15.43], [8.7, 10.87], [11.5, -9.57], [7.84, 7.48], [-5.33, 6.5], [6.79, -6.38],
          [-6.17, -0.82]]
    d2 = [[0, 0], [0, 5800], [4900, 5800], [4900, 0], [4479, 4580], [1176, 3660], [3754, 790], [1024, 1931]]
    s2 = [[1, 1]] * 6 + s2[6:]
    f, s = ft.PiecewiseAffineTransform.from_estimate(s2, d2), skt.PiecewiseAffineTransform.from_estimate(s2, d2)
    assert not f and not s and str(f) == str(s)
    # the mesh's outside maps to -1
    pw = ft.PiecewiseAffineTransform.from_estimate(src, dst)
    np.testing.assert_array_equal(pw(np.array([[-50.0, -50.0], [500.0, 1.0]])), -1)
    assert ft.PiecewiseAffineTransform.identity().affines is None


def test_transform_constructors():
    R = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    t = np.array([0.6, 0.0, 0.8])
    np.testing.assert_allclose(ft.EssentialMatrixTransform(rotation=R, translation=t).params,
                               skt.EssentialMatrixTransform(rotation=R, translation=t).params)
    for kw, match in [(dict(rotation=R), "Both"), (dict(rotation=R, translation=t, matrix=np.eye(3)), "Do not"),
                      (dict(rotation=np.eye(2), translation=t), "shape of rotation"),
                      (dict(rotation=2 * R, translation=t), "unit determinant"),
                      (dict(rotation=R, translation=[1, 0]), "shape of translation"),
                      (dict(rotation=R, translation=[1, 1, 0]), "unit length")]:
        with pytest.raises(ValueError, match=match):
            ft.EssentialMatrixTransform(**kw)
    with pytest.raises(NotImplementedError):
        ft.FundamentalMatrixTransform(dimensionality=3)
    with pytest.raises(ValueError, match="Invalid shape"):
        ft.FundamentalMatrixTransform(np.zeros((3, 4)))
    with pytest.raises(NotImplementedError):
        ft.PolynomialTransform(dimensionality=3)
    with pytest.raises(ValueError, match="shape \\(2, N\\)"):
        ft.PolynomialTransform(np.zeros((3, 3)))
    f = ft.FundamentalMatrixTransform(R)
    np.testing.assert_array_equal(f.inverse.params, R.T)
    assert f.dimensionality == 2
    assert f(np.array([[1.0, 2.0]])).shape == (1, 3)


@pytest.mark.parametrize("ttype", ALL_TYPES)
def test_estimate_transform(rng, ttype):
    src, dst = _pairs(rng)
    a, b = ft.estimate_transform(ttype.upper(), src, dst), skt.estimate_transform(ttype, src, dst)
    q = rng.random((50, 2)) * 90 + 5
    np.testing.assert_allclose(a(q), b(q), rtol=1e-10, atol=1e-10)


def test_estimate_and_matrix_transform_misc(rng):
    with pytest.raises(ValueError, match="not implemented"):
        ft.estimate_transform("bogus", np.zeros((3, 2)), np.zeros((3, 2)))
    src, dst = _pairs(rng)
    a = ft.estimate_transform("polynomial", src, dst, 3)
    np.testing.assert_allclose(a.params, skt.estimate_transform("polynomial", src, dst, 3).params, rtol=1e-9)
    m = [[1.0, 0.2, 3.0], [-0.1, 0.9, 1.0], [1e-3, 0.0, 1.0]]
    np.testing.assert_array_equal(ft.matrix_transform(src, m), skt.matrix_transform(src, m))


@pytest.mark.parametrize("name", ["PolynomialTransform", "PiecewiseAffineTransform"])
@pytest.mark.parametrize("order", [0, 1, 3])
def test_warp_with_new_transforms(xp, rng, name, order):
    src = np.array([[0, 0], [0, 40], [50, 40], [50, 0], [20, 15], [33, 28], [10, 30]], float)
    dst = src + rng.standard_normal(src.shape) * 2
    a = image(rng, (40, 50, 3), "float64")
    F, S = getattr(ft, name), getattr(skt, name)
    tf, ts = F.from_estimate(dst, src), S.from_estimate(dst, src)
    close(xp.get(ft.warp(xp.put(a), tf, order=order, mode="edge")), skt.warp(a, ts, order=order, mode="edge"))


@pytest.mark.gpu
def test_cupy_points(cp, rng):
    src, dst = _pairs(rng)
    for ttype in ALL_TYPES:
        t = ft.estimate_transform(ttype, cp.asarray(src), cp.asarray(dst))
        r = t(cp.asarray(src))
        assert isinstance(r, cp.ndarray)
        np.testing.assert_allclose(r.get(), t(src), rtol=1e-12, atol=1e-10)
        assert isinstance(t.residuals(cp.asarray(src), cp.asarray(dst)), cp.ndarray)


def test_thin_plate_spline(xp, rng):
    src = rng.random((12, 2)) * 40
    dst = src + rng.standard_normal(src.shape) * 2
    a, b = ft.ThinPlateSplineTransform.from_estimate(src, dst), skt.ThinPlateSplineTransform.from_estimate(src, dst)
    q = rng.random((300, 2)) * 45
    np.testing.assert_array_equal(a(q), b(q))
    np.testing.assert_allclose(a(src), dst, atol=1e-3)
    img = image(rng, (30, 42, 3), "float64")
    for order in (0, 1, 3):
        got, want = xp.get(ft.warp(xp.put(img), a, order=order)), skt.warp(img, b, order=order)
        if xp.name == "numpy":
            close(got, want)
        else:   # the spline summed on the device in another order: coordinates to ~1e-13
            np.testing.assert_allclose(got, want, atol=1e-9)
    with pytest.raises(NotImplementedError):
        a.inverse
    with pytest.raises(ValueError, match="undefined"):
        ft.ThinPlateSplineTransform()(q)
    with pytest.raises(ValueError, match="shape \\(N, 2\\)"):
        a(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="at least 3 points"):
        ft.ThinPlateSplineTransform.from_estimate(src[:2], dst[:2])
    with pytest.raises(ValueError, match="didn't match"):
        ft.ThinPlateSplineTransform.from_estimate(src, dst[:5])
    with pytest.raises(ValueError, match="`src` must be a 2-dimensional"):
        ft.ThinPlateSplineTransform.from_estimate(np.arange(4), dst)
    bad = ft.ThinPlateSplineTransform.from_estimate(np.ones((4, 2)), dst[:4])
    assert not bad and str(bad) == str(skt.ThinPlateSplineTransform.from_estimate(np.ones((4, 2)), dst[:4]))
    t = ft.ThinPlateSplineTransform()
    with pytest.warns(FutureWarning, match="ThinPlateSplineTransform.from_estimate"):
        assert t.estimate(src, dst) is True
