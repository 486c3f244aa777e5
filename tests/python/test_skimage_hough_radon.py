"""fovea.skimage.transform's Hough and Radon transforms against scikit-image 0.26:
hough_line / hough_circle accumulators exactly (integer votes, every dtype and
backend), the peak pickers and probabilistic_hough_line exactly (same rng, same
lines), radon / iradon / iradon_sart to rounding; errors and warnings as
scikit-image's. CuPy cases run on a GPU (the ``cp`` fixture), else skip."""
import warnings

import numpy as np
import pytest

skt = pytest.importorskip("skimage.transform")
from skimage.draw import circle_perimeter, line  # noqa: E402

from fovea.skimage import transform as ft  # noqa: E402
from xpcase import xp_fixture  # noqa: E402

xp = xp_fixture()

DTYPES = [bool, np.uint8, np.int16, np.uint32, np.int64, np.float32, np.float64, np.float16]


def _edges(shape, dtype, density=0.08, seed=0):
    rng = np.random.default_rng(seed)
    img = (rng.random(shape) < density).astype(dtype)
    if dtype not in (bool,):
        img = img * rng.integers(1, 5, shape).astype(dtype)   # any nonzero value votes
    return img


def _lines_image():
    img = np.zeros((100, 150), dtype=bool)
    img[30, :] = 1
    img[:, 65] = 1
    img[35:45, 35:50] = 1
    rr, cc = line(5, 10, 90, 130)
    img[rr, cc] = 1
    img |= np.random.default_rng(1).random(img.shape) > 0.97
    return img


def _circles_image():
    img = np.zeros((90, 110), dtype=np.uint8)
    for r, c, rad in ((30, 40, 12), (60, 70, 20), (20, 95, 9)):
        rr, cc = circle_perimeter(r, c, rad, shape=img.shape)
        img[rr, cc] = 1
    return img


# ---- hough_line ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (7, 1), (40, 57), (96, 64)])
def test_hough_line_exact(xp, dtype, shape):
    img = _edges(shape, dtype)
    h0, a0, d0 = skt.hough_line(img)
    h1, a1, d1 = ft.hough_line(xp.put(img))
    h1 = xp.get(h1)
    assert h1.dtype == np.uint64 and h1.shape == h0.shape
    np.testing.assert_array_equal(h1, h0)
    np.testing.assert_array_equal(xp.get(a1), a0)
    np.testing.assert_array_equal(xp.get(d1), d0)


def test_hough_line_theta_and_views(xp):
    rng = np.random.default_rng(3)
    img = _edges((80, 90), np.float64)[::2, 1::3]   # strided view
    theta = rng.uniform(-4, 4, 53)
    h0, _, d0 = skt.hough_line(img, theta)
    h1, a1, d1 = ft.hough_line(xp.put(img), theta)
    np.testing.assert_array_equal(xp.get(h1), h0)
    assert a1 is theta
    # an edge exactly on a .5 boundary: round half away from zero, as scikit-image
    img = np.zeros((9, 9), bool)
    img[4, 3] = img[1, 7] = 1
    th = np.array([np.pi / 3, np.pi / 6, 0.0, np.pi / 2, -np.pi / 4])
    np.testing.assert_array_equal(xp.get(ft.hough_line(xp.put(img), th)[0]), skt.hough_line(img, th)[0])


def test_hough_line_errors():
    with pytest.raises(ValueError, match="2D"):
        ft.hough_line(np.zeros((3, 3, 3)))
    with pytest.raises(ValueError):
        ft.hough_line(np.zeros((3, 3)), theta=np.zeros((2, 2)))


# ---- hough_circle -------------------------------------------------------------------------

@pytest.mark.parametrize("full_output", [False, True])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("dtype", [bool, np.uint8, np.float32, np.int32])
def test_hough_circle_exact(xp, dtype, normalize, full_output):
    img = _edges((45, 60), dtype, density=0.05)
    radii = [0, 1, 2, 5, 9, 17, 30]
    a = skt.hough_circle(img, radii, normalize=normalize, full_output=full_output)
    b = xp.get(ft.hough_circle(xp.put(img), radii, normalize=normalize, full_output=full_output))
    assert b.dtype == a.dtype and b.shape == a.shape
    np.testing.assert_array_equal(b, a)


def test_hough_circle_radius_forms(xp):
    img = _circles_image()
    for radius in (12, 12.7, np.arange(5, 25, 4), [20.0, -3, 9]):
        np.testing.assert_array_equal(xp.get(ft.hough_circle(xp.put(img), radius)), skt.hough_circle(img, radius))
    np.testing.assert_array_equal(xp.get(ft.hough_circle(xp.put(img), [-2, -5], full_output=False)),
                                  skt.hough_circle(img, [-2, -5], full_output=False))
    np.testing.assert_array_equal(xp.get(ft.hough_circle(xp.put(img[:0]), [3])), skt.hough_circle(img[:0], [3]))


def test_hough_circle_errors():
    with pytest.raises(ValueError, match="2D"):
        ft.hough_circle(np.zeros((3, 3, 3)), 2)
    with pytest.raises(ValueError):
        ft.hough_circle(np.zeros((3, 3)), [], full_output=True)


# ---- peaks -------------------------------------------------------------------------------

def _same(res0, res1, xp):
    assert len(res0) == len(res1)
    for a, b in zip(res0, res1):
        b = xp.get(b)
        assert b.dtype == a.dtype, (a.dtype, b.dtype)
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("kw", [{}, dict(min_distance=3, min_angle=3), dict(threshold=15, num_peaks=3),
                                dict(min_distance=30, min_angle=200), dict(threshold=10 ** 6)])
def test_hough_line_peaks(xp, kw):
    h, a, d = skt.hough_line(_lines_image())
    ref = skt.hough_line_peaks(h, a, d, **kw)
    _same(ref, ft.hough_line_peaks(xp.put(h), xp.put(a), xp.put(d), **kw), xp)


@pytest.mark.parametrize("kw", [{}, dict(min_xdistance=5, min_ydistance=5), dict(total_num_peaks=3),
                                dict(num_peaks=1, normalize=True), dict(min_xdistance=4, total_num_peaks=2),
                                dict(threshold=10.0)])
def test_hough_circle_peaks(xp, kw):
    radii = np.arange(8, 23)
    hs = skt.hough_circle(_circles_image(), radii)
    ref = skt.hough_circle_peaks(hs, radii, **kw)
    _same(ref, ft.hough_circle_peaks(xp.put(hs), radii, **kw), xp)


# ---- probabilistic_hough_line --------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize("kw", [dict(), dict(threshold=5, line_length=8, line_gap=2),
                                dict(threshold=20, line_length=20, line_gap=0, theta=np.linspace(0, np.pi, 45))])
def test_probabilistic_hough_line_same_lines(xp, seed, kw):
    img = _lines_image()
    ref = skt.probabilistic_hough_line(img, rng=seed, **kw)
    got = ft.probabilistic_hough_line(xp.put(img), rng=seed, **kw)
    assert got == ref
    assert all(type(v) is int for ln in got for p in ln for v in p)


def test_probabilistic_hough_line_generator_and_dtypes():
    img = _lines_image().astype(np.float32) * 3
    ref = skt.probabilistic_hough_line(img, line_length=10, rng=np.random.default_rng(5))
    assert ft.probabilistic_hough_line(img, line_length=10, rng=np.random.default_rng(5)) == ref
    assert ft.probabilistic_hough_line(np.zeros((5, 5))) == []
    with pytest.raises(ValueError, match="2D"):
        ft.probabilistic_hough_line(np.zeros((3, 3, 3)))


# ---- radon / iradon / iradon_sart ---------------------------------------------------------

def _phantom(n=48, cols=None, dtype=np.float64):
    cols = n if cols is None else cols
    yy, xx = np.mgrid[:n, :cols]
    img = ((yy - n / 2) ** 2 + (xx - cols / 2) ** 2 < (min(n, cols) / 3) ** 2) * 1.0
    img += ((yy - n / 2.5) ** 2 + (xx - cols / 1.8) ** 2 < (min(n, cols) / 8) ** 2) * 0.5
    return img.astype(dtype)


@pytest.mark.parametrize("circle", [True, False])
@pytest.mark.parametrize("dtype,shape", [(np.float64, (48, 48)), (np.float32, (48, 48)), (np.float64, (40, 52)),
                                         (np.uint8, (31, 31))])
def test_radon(xp, dtype, shape, circle):
    img = _phantom(*shape) if dtype != np.uint8 else (_phantom(*shape) * 100).astype(np.uint8)
    theta = np.linspace(0, 180, 23, endpoint=False)
    a = skt.radon(img, theta, circle=circle)
    b = xp.get(ft.radon(xp.put(img), theta, circle=circle))
    assert b.dtype == a.dtype and b.shape == a.shape
    if xp.name == "numpy":   # scikit-image's arithmetic and order of sums: equal
        np.testing.assert_array_equal(b, a)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(b, a, rtol=tol, atol=tol * np.abs(a).max())


def test_radon_warning_and_errors(xp):
    img = np.ones((20, 20))
    with pytest.warns(UserWarning, match="reconstruction circle"):
        ft.radon(xp.put(img), [0, 45])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ft.radon(xp.put(_phantom(20)), [0, 45])
    with pytest.raises(ValueError, match="2-D"):
        ft.radon(xp.put(np.zeros((3, 3, 3))))
    np.testing.assert_allclose(xp.get(ft.radon(xp.put(img), preserve_range=True, circle=False)),
                               skt.radon(img, preserve_range=True, circle=False), rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("interpolation", ["linear", "nearest", "cubic"])
@pytest.mark.parametrize("filter_name", ["ramp", "shepp-logan", "cosine", "hamming", "hann", None])
def test_iradon(xp, interpolation, filter_name):
    sino = skt.radon(_phantom(40), np.linspace(0, 180, 30, endpoint=False))
    for circle in (True, False):
        a = skt.iradon(sino, interpolation=interpolation, filter_name=filter_name, circle=circle)
        b = xp.get(ft.iradon(xp.put(sino), interpolation=interpolation, filter_name=filter_name, circle=circle))
        assert b.dtype == a.dtype and b.shape == a.shape
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9)


def test_iradon_options_and_errors(xp):
    sino = skt.radon(_phantom(32), np.arange(0, 180, 10)).astype(np.float32)
    theta = np.arange(0, 180, 10)
    a = skt.iradon(sino, theta, output_size=20)
    b = xp.get(ft.iradon(xp.put(sino), theta, output_size=20))
    assert b.dtype == a.dtype == np.float32
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="match the number of projections"):
        ft.iradon(xp.put(sino), theta[:-1])
    with pytest.raises(ValueError, match="Unknown interpolation"):
        ft.iradon(xp.put(sino), interpolation="quadratic")
    with pytest.raises(ValueError, match="Unknown filter"):
        ft.iradon(xp.put(sino), filter_name="box")
    with pytest.raises(ValueError, match="2-D"):
        ft.iradon(xp.put(np.zeros(5)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_iradon_sart(xp, dtype):
    theta = np.linspace(0, 180, 24, endpoint=False)
    sino = skt.radon(_phantom(32), theta).astype(dtype)
    a = skt.iradon_sart(sino, theta)
    b = xp.get(ft.iradon_sart(xp.put(sino), theta))
    assert b.dtype == a.dtype
    if xp.name == "numpy" and dtype == np.float64:   # the CPU adds in scikit-image's order
        np.testing.assert_array_equal(b, a)
    tol = 1e-10 if dtype == np.float64 else 2e-4
    np.testing.assert_allclose(b, a, rtol=tol, atol=tol)
    shifts = np.random.default_rng(2).uniform(-1.5, 1.5, theta.size)
    a2 = skt.iradon_sart(sino, theta, image=a.copy(), projection_shifts=shifts, clip=(0, 1), relaxation=0.3)
    b2 = xp.get(ft.iradon_sart(xp.put(sino), theta, image=xp.put(a.copy()), projection_shifts=shifts, clip=(0, 1),
                               relaxation=0.3))
    np.testing.assert_allclose(b2, a2, rtol=tol, atol=tol)


def test_iradon_sart_dtypes_and_errors():
    sino = skt.radon(_phantom(24), np.arange(0, 180, 15))
    with pytest.warns(UserWarning, match="cast to float"):
        ft.iradon_sart(sino.astype(np.int32))
    assert ft.iradon_sart(sino, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="floating point"):
        ft.iradon_sart(sino, dtype=np.int32)
    with pytest.raises(ValueError, match="Shape of theta"):
        ft.iradon_sart(sino, theta=[0, 1])
    with pytest.raises(ValueError, match="Shape of image"):
        ft.iradon_sart(sino, image=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="projection_shifts"):
        ft.iradon_sart(sino, projection_shifts=[0.0])
    with pytest.raises(ValueError, match="clip"):
        ft.iradon_sart(sino, clip=(0, 1, 2))
    with pytest.warns(UserWarning, match="image dtype"):
        ft.iradon_sart(sino, image=np.zeros((sino.shape[0],) * 2, np.float32))
    with pytest.raises(ValueError, match="two dimensional"):
        ft.iradon_sart(np.zeros(4))


def test_order_angles_golden_ratio():
    rng = np.random.default_rng(4)
    for theta in (rng.permutation(np.linspace(0, 180, 40, endpoint=False)), np.array([5.0]), rng.uniform(0, 360, 17)):
        assert list(ft.order_angles_golden_ratio(theta)) == list(skt.order_angles_golden_ratio(theta))
