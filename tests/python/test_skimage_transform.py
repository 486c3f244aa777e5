"""fovea.skimage.transform against scikit-image 0.26's skimage.transform on
random data: resize / rescale / rotate / warp (orders 0, 1, 3 and 5, every
mode, several dtypes, gray, RGB with channel_axis and a 3-d volume),
warp_coords, integral images, downscale_local_mean, the pyramids and the
matrix transform classes, plus argument errors. Every image test runs on NumPy
and, where fovea sees a GPU and CuPy imports, on CuPy (the ``xp`` fixture)."""

import warnings

import numpy as np
import pytest
from skimage import transform as skt

from fovea.skimage import transform as ft
from xpcase import xp_fixture  # noqa: E402 (tests/python/xpcase.py)

xp = xp_fixture()

MODES = ["constant", "edge", "symmetric", "reflect", "wrap"]


def image(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) > 0.5
    if dt.kind == "f":
        return (rng.standard_normal(shape) * 2).astype(dt)
    info = np.iinfo(dt)
    lo, hi = (info.min // 2, info.max // 2) if dt.kind == "i" else (0, info.max)
    return rng.integers(lo, hi, shape, endpoint=True).astype(dt)


def close(got, want, f32=False):
    """Same shape and dtype; values to float rounding (float32 work: 1e-5 relative
    to the data's size)."""
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    scale = max(1.0, float(np.abs(want.astype(np.float64)).max(initial=0)))
    tol = (1e-5 if f32 or want.dtype == np.float32 else 1e-12) * scale
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=tol)


CASES = [((23, 31), "uint8"), ((23, 31), "float32"), ((23, 31), "float64"), ((19, 22), "int16"),
         ((20, 17, 3), "float64"), ((9, 10, 11), "float32")]


@pytest.mark.parametrize("shape,dtype", CASES)
@pytest.mark.parametrize("order", [0, 1, 3])
@pytest.mark.parametrize("mode", MODES)
def test_resize(xp, rng, shape, dtype, order, mode):
    a = image(rng, shape, dtype)
    for out_shape in [(11, 40), (40, 13, 5)[:len(shape)]]:
        want = skt.resize(a, out_shape, order=order, mode=mode, cval=0.3)
        close(xp.get(ft.resize(xp.put(a), out_shape, order=order, mode=mode, cval=0.3)), want)


@pytest.mark.parametrize("kw", [dict(anti_aliasing=True, anti_aliasing_sigma=(1.5, 0.5)), dict(anti_aliasing=False),
                                dict(preserve_range=True), dict(clip=False, order=3), dict(order=5)])
def test_resize_options(xp, rng, kw):
    a = image(rng, (30, 26), "uint16")
    want = skt.resize(a, (13, 9), **kw)
    close(xp.get(ft.resize(xp.put(a), (13, 9), **kw)), want)
    b = image(rng, (12, 10), "float16")   # float16 -> float32; output_shape without the last axis
    close(xp.get(ft.resize(xp.put(b[..., None]), (20, 7))), skt.resize(b[..., None], (20, 7)))


def test_resize_bool_and_errors(xp, rng):
    a = image(rng, (15, 16), "bool")
    close(xp.get(ft.resize(xp.put(a), (7, 30))), skt.resize(a, (7, 30)))
    with pytest.raises(ValueError, match="anti_aliasing must be False"):
        ft.resize(xp.put(a), (7, 8), anti_aliasing=True)
    with pytest.raises(ValueError, match="Interpolation is not defined with bool"):
        ft.resize(xp.put(a), (7, 8), order=1)
    with pytest.raises(ValueError, match="range 0-5"):
        ft.resize(xp.put(a.astype(float)), (7, 8), order=6)
    with pytest.raises(ValueError, match="Unknown mode"):
        ft.resize(xp.put(a.astype(float)), (7, 8), mode="nearest")
    with pytest.raises(ValueError, match="cannot be smaller"):
        ft.resize(xp.put(np.zeros((2, 3, 4))), (7,))
    with pytest.raises(ValueError, match="greater than or equal to zero"):
        ft.resize(xp.put(a.astype(float)), (7, 8), anti_aliasing=True, anti_aliasing_sigma=-1)


@pytest.mark.parametrize("scale,channel_axis", [(0.55, -1), ((1.5, 0.7), 0), (0.3, None), ((2, 0.5, 1), None)])
def test_rescale(xp, rng, scale, channel_axis):
    a = image(rng, (20, 17, 3) if channel_axis != 0 else (3, 20, 17), "uint8")
    want = skt.rescale(a, scale, channel_axis=channel_axis)
    close(xp.get(ft.rescale(xp.put(a), scale, channel_axis=channel_axis)), want)
    with pytest.raises(ValueError, match="one value per spatial axis"):
        ft.rescale(xp.put(a), (1, 2, 3, 4), channel_axis=channel_axis)


@pytest.mark.parametrize("shape,dtype", [((23, 31), "uint8"), ((23, 31), "float32"), ((20, 17, 3), "float64")])
@pytest.mark.parametrize("order", [0, 1, 3])
@pytest.mark.parametrize("mode", MODES)
def test_rotate(xp, rng, shape, dtype, order, mode):
    a = image(rng, shape, dtype)
    for angle, resize, center in [(17.0, False, None), (-95.5, True, None), (30, False, (4, 9))]:
        want = skt.rotate(a, angle, resize=resize, center=center, order=order, mode=mode, cval=0.2)
        got = ft.rotate(xp.put(a), angle, resize=resize, center=center, order=order, mode=mode, cval=0.2)
        close(xp.get(got), want)


@pytest.mark.parametrize("shape,dtype", [((23, 31), "uint8"), ((23, 31), "float32"), ((20, 17, 3), "float64")])
@pytest.mark.parametrize("order", [0, 1, 3, 5])
@pytest.mark.parametrize("mode", MODES)
def test_warp_matrix_and_transforms(xp, rng, shape, dtype, order, mode):
    a = image(rng, shape, dtype)
    m = np.array([[0.9, 0.2, 3.1], [-0.15, 1.1, -2.3], [0.001, -0.002, 1.0]])
    sk_aff = skt.AffineTransform(rotation=0.3, shear=0.1, translation=(2, -1))
    f_aff = ft.AffineTransform(rotation=0.3, shear=0.1, translation=(2, -1))
    for want_map, got_map in [(m, m), (sk_aff, f_aff), (sk_aff.inverse, f_aff.inverse), (sk_aff, sk_aff)]:
        kw = dict(order=order, mode=mode, cval=0.1, output_shape=(25, 27))
        close(xp.get(ft.warp(xp.put(a), got_map, **kw)), skt.warp(a, want_map, **kw))
    kw = dict(order=order, mode=mode, preserve_range=True, clip=False)
    close(xp.get(ft.warp(xp.put(a), m, **kw)), skt.warp(a, m, **kw))


def _shift_scale(xy, a=1.0):
    return xy * np.array([1.1, 0.9]) * a + 0.5


@pytest.mark.parametrize("order", [0, 1, 3])
def test_warp_callable_coords(rng, order):
    a = image(rng, (20, 17, 3), "uint8")
    want = skt.warp(a, _shift_scale, map_args={"a": 0.9}, order=order, mode="edge")
    close(ft.warp(a, _shift_scale, map_args={"a": 0.9}, order=order, mode="edge"), want)
    coords = rng.random((2, 8, 9)) * 20
    close(ft.warp(a[..., 0], coords, order=order), skt.warp(a[..., 0], coords, order=order))
    close(ft.warp_coords(_shift_scale, (10, 12, 3)), skt.warp_coords(_shift_scale, (10, 12, 3)))
    close(ft.warp_coords(_shift_scale, (10, 12)), skt.warp_coords(_shift_scale, (10, 12)))


def test_warp_errors(xp, rng):
    a = xp.put(image(rng, (9, 8), "float64"))
    with pytest.raises(ValueError, match="Cannot warp empty image"):
        ft.warp(xp.put(np.zeros((0, 3))), np.eye(3))
    with pytest.raises(ValueError, match="range 0-5"):
        ft.warp(a, np.eye(3), order=-1)
    with pytest.raises(ValueError, match="Unknown mode"):
        ft.warp(a, np.eye(3), mode="mirror")
    with pytest.raises(ValueError, match="Only 2-D images"):
        ft.warp(np.zeros((3, 4, 5, 6)), _shift_scale)
    with pytest.warns(UserWarning, match="Bi-quadratic"):
        ft.warp(a, np.eye(3), order=2)


@pytest.mark.gpu
def test_warp_callable_gpu_is_type_error(cp):
    with pytest.raises(TypeError, match="callable inverse_map"):
        ft.warp(cp.zeros((5, 6)), _shift_scale)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
def test_integral(xp, rng, dtype):
    a = image(rng, (9, 8, 3), dtype)
    want = skt.integral_image(a)
    got = xp.get(ft.integral_image(xp.put(a)))
    close(got, want)
    close(xp.get(ft.integral_image(xp.put(a), dtype=np.float32)), skt.integral_image(a, dtype=np.float32))
    ii = want[..., 0]
    start, end = [(1, 2), (0, 0), (-3, 1)], [(5, 6), (8, 7), (-1, -1)]
    got = ft.integrate(xp.put(np.ascontiguousarray(ii)), start, end)
    assert isinstance(got, np.ndarray)
    close(got, skt.integrate(ii, start, end))
    with pytest.raises(IndexError, match="greater or equal"):
        ft.integrate(xp.put(np.ascontiguousarray(ii)), (3, 3), (1, 1))


@pytest.mark.parametrize("dtype,factors,cval", [("uint8", (3, 4, 1), 0), ("float32", (2, 3, 2), 1.5),
                                               ("float64", 2, 0)])
def test_downscale_local_mean(xp, rng, dtype, factors, cval):
    a = image(rng, (13, 17, 3), dtype)
    close(xp.get(ft.downscale_local_mean(xp.put(a), factors, cval)), skt.downscale_local_mean(a, factors, cval))


@pytest.mark.parametrize("dtype,channel_axis,kw", [
    ("uint8", -1, {}), ("float32", None, dict(downscale=3, order=3, mode="constant", cval=0.4)),
    ("float64", 0, dict(sigma=1.3, preserve_range=True))])
def test_pyramids(xp, rng, dtype, channel_axis, kw):
    a = image(rng, (3, 20, 17) if channel_axis == 0 else (20, 17, 3), dtype)
    up = {k.replace("downscale", "upscale"): v for k, v in kw.items()}
    close(xp.get(ft.pyramid_reduce(xp.put(a), channel_axis=channel_axis, **kw)),
          skt.pyramid_reduce(a, channel_axis=channel_axis, **kw))
    close(xp.get(ft.pyramid_expand(xp.put(a), channel_axis=channel_axis, **up)),
          skt.pyramid_expand(a, channel_axis=channel_axis, **up))
    for name in ["pyramid_gaussian", "pyramid_laplacian"]:
        for max_layer in (-1, 2):
            want = list(getattr(skt, name)(a, max_layer=max_layer, channel_axis=channel_axis, **kw))
            got = list(getattr(ft, name)(xp.put(a), max_layer=max_layer, channel_axis=channel_axis, **kw))
            assert len(got) == len(want)
            for g, w in zip(got, want):
                close(xp.get(g), w)
    with pytest.raises(ValueError, match="greater than 1"):
        ft.pyramid_reduce(xp.put(a), downscale=1)


CLASSES = ["EuclideanTransform", "SimilarityTransform", "AffineTransform", "ProjectiveTransform"]


@pytest.mark.parametrize("name", CLASSES)
def test_transform_classes(rng, name):
    src = rng.random((12, 2)) * 50
    true = skt.ProjectiveTransform(np.array([[1.1, 0.1, 4], [-0.2, 0.9, -2], [1e-3, 2e-3, 1]]))
    dst = true(src) + rng.normal(0, 0.1, src.shape)
    want = getattr(skt, name).from_estimate(src, dst)
    got = getattr(ft, name).from_estimate(src, dst)
    assert type(got) is getattr(ft, name)
    np.testing.assert_allclose(got.params, want.params, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got(src), want(src), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got.inverse(dst), want.inverse(dst), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got.residuals(src, dst), want.residuals(src, dst), rtol=1e-8, atol=1e-10)
    old = getattr(ft, name)()
    with pytest.warns(FutureWarning, match=f"Please use `{name}.from_estimate`"):
        assert old.estimate(src, dst)
    np.testing.assert_allclose(old.params, want.params, rtol=1e-10, atol=1e-10)
    both = got + got
    assert type(both) is getattr(ft, name)
    np.testing.assert_allclose(both.params, (want + want).params, rtol=1e-10)
    mixed = got + ft.AffineTransform(scale=2)
    assert type(mixed).__name__ == type(want + skt.AffineTransform(scale=2)).__name__
    with pytest.raises(TypeError, match="differing types"):
        got + 1
    failed = getattr(ft, name).from_estimate(np.zeros((4, 2)), np.zeros((4, 2)))
    assert not failed and name in str(failed)
    with pytest.raises(AttributeError):
        failed.params


def test_transform_parameters():
    kw = dict(scale=(1.1, 0.9), rotation=0.3, shear=(0.1, 0.2), translation=(4, -2))
    a, b = ft.AffineTransform(**kw), skt.AffineTransform(**kw)
    for p in ["params", "scale", "rotation", "shear", "translation"]:
        np.testing.assert_allclose(getattr(a, p), getattr(b, p), rtol=1e-12)
    s, t = ft.SimilarityTransform(scale=1.3, rotation=-0.4, translation=(1, 2)), \
        skt.SimilarityTransform(scale=1.3, rotation=-0.4, translation=(1, 2))
    for p in ["params", "scale", "rotation", "translation"]:
        np.testing.assert_allclose(getattr(s, p), getattr(t, p), rtol=1e-12)
    e3 = ft.EuclideanTransform(rotation=(0.1, 0.2, 0.3), translation=(1, 2, 3))
    np.testing.assert_allclose(e3.params, skt.EuclideanTransform(rotation=(0.1, 0.2, 0.3), translation=(1, 2, 3)).params,
                               atol=1e-15)
    src = np.random.default_rng(3).random((10, 3))
    np.testing.assert_allclose(ft.SimilarityTransform.from_estimate(src, e3(src) * 2).params,
                               skt.SimilarityTransform.from_estimate(src, e3(src) * 2).params, atol=1e-12)
    with pytest.raises(ValueError, match="Do not specify any implicit"):
        ft.AffineTransform(np.eye(3), scale=2)
    with pytest.raises(ValueError, match="Invalid shape"):
        ft.ProjectiveTransform(np.eye(3)[:2])
    with pytest.raises(ValueError, match="translation must be length 2"):
        ft.AffineTransform(translation=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("order", [1, 3])
def test_warp_kernel_equals_array_maths(xp, rng, dtype, order):
    """The C kernels (fv_warp_homography: CPU for NumPy, CUDA for CuPy images)
    compute what the array maths computes, bit for bit: affine and projective
    matrices, every mode, NaN / far coordinates, gray, channels and strides."""
    from fovea.skimage.transform import _warps as w

    mod = getattr(xp, "cp", np)
    img = (rng.standard_normal((23, 31, 3)) * 2).astype(dtype)
    mats = [np.array([[0.9, 0.3, 2.2], [-0.25, 1.05, -3.1], [0.0, 0.0, 1.0]]),
            np.array([[1.1, 0.0, -4.5], [0.0, 0.8, 3.0], [0.0, 0.0, 1.0]]),
            np.array([[0.9, 0.1, 1.0], [-0.1, 1.0, 2.0], [0.004, -0.003, 1.0]]),
            np.array([[0.0, 0.0, np.nan], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
            np.array([[1e12, 0.0, 0.0], [0.0, 1.0, -1e12], [0.0, 0.0, 1.0]])]
    for m in mats:
        for mode in MODES:
            for x in (img[..., 0], img, img[::-1, ::2]):
                x = xp.put(x)
                with np.errstate(all="ignore"):
                    got = w._warp_fast_c(x, m, (19, 27), order, mode, 0.5, mod)
                    if x.ndim == 2:
                        want = w._warp_fast(x, m, (19, 27), order, mode, 0.5, mod)
                    else:
                        want = mod.stack([w._warp_fast(x[..., d], m, (19, 27), order, mode, 0.5, mod)
                                          for d in range(x.shape[2])], axis=-1)
                np.testing.assert_array_equal(xp.get(got), xp.get(want))


def test_warp_host_kernel_against_skimage(rng):
    img = rng.random((40, 50, 3)).astype(np.float32)
    tf = skt.AffineTransform(rotation=0.3, scale=(0.9, 1.1), translation=(5, -3))
    for order in (1, 3):
        for mode in MODES:
            np.testing.assert_allclose(ft.warp(img, tf, order=order, mode=mode),
                                       skt.warp(img, tf, order=order, mode=mode), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(ft.rotate(img[..., 1], 25, order=order, mode=mode),
                                       skt.rotate(img[..., 1], 25, order=order, mode=mode), rtol=1e-5, atol=1e-5)
