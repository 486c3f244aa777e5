"""fovea.skimage.measure's find_contours, block_reduce, profile_line,
shannon_entropy, blur_effect, approximate_polygon and subdivide_polygon
against scikit-image 0.26 on random data. find_contours must give EXACTLY
scikit-image's contours (same count, order, points and orientation). Every
test runs on NumPy and, where fovea sees a GPU and CuPy imports, on CuPy (the
``xp`` fixture); find_contours gives NumPy arrays for CuPy input (documented)."""

import numpy as np
import pytest
import scipy.ndimage as sndi
from skimage import measure as skm

from fovea.skimage import measure as fm
from xpcase import xp_fixture  # noqa: E402 (tests/python/xpcase.py)

DTYPES = ["uint8", "uint16", "int16", "float32", "float64"]


xp = xp_fixture(scalars=True)


def rand_image(rng, shape, dtype):
    dt = np.dtype(dtype)
    u = rng.random(shape)
    if dt.kind == "f":
        return u.astype(dt)
    if dt.kind == "b":
        return u > 0.5
    info = np.iinfo(dt)
    lo = info.min // 2 if dt.kind == "i" else 0
    return (lo + u * (info.max // 2 - lo)).astype(dt)


def same(got, want, exact=True, rtol=1e-12):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol)


def same_contours(got, want):
    assert isinstance(got, list)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, np.ndarray)
        same(g, w)


# ---------------------------------------------------------------- find_contours

def smooth_field(rng, shape, sigma, quantize=None):
    img = sndi.gaussian_filter(rng.random(shape), sigma)
    if quantize:   # many values exactly at the level: degenerate cells
        img = np.round(img * quantize) / quantize
    return img


@pytest.mark.parametrize("shape", [(2, 2), (3, 7), (64, 80), (201, 150)])
@pytest.mark.parametrize("quantize", [None, 40])
@pytest.mark.parametrize("fully_connected", ["low", "high"])
@pytest.mark.parametrize("positive_orientation", ["low", "high"])
def test_find_contours_exact(xp, rng, shape, quantize, fully_connected, positive_orientation):
    img = smooth_field(rng, shape, 1.5, quantize)
    for level in [None, float(np.median(img)), float(img.min()), float(img.max())]:
        want = skm.find_contours(img, level, fully_connected, positive_orientation)
        got = fm.find_contours(xp.put(img), level, fully_connected, positive_orientation)
        same_contours(got, want)


@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
def test_find_contours_dtypes_and_strides(xp, rng, dtype):
    img = rand_image(rng, (40, 35), dtype)
    want = skm.find_contours(img)
    same_contours(fm.find_contours(xp.put(img)), want)
    # a strided, transposed view
    view = img[::2, ::-1].T
    same_contours(fm.find_contours(xp.put(view)), skm.find_contours(view))


def test_find_contours_saddles_and_plateaus(xp):
    checker = np.indices((9, 9)).sum(0) % 2 * 1.0      # saddles everywhere
    for fc in ["low", "high"]:
        same_contours(fm.find_contours(xp.put(checker), 0.5, fc), skm.find_contours(checker, 0.5, fc))
    plateau = np.zeros((10, 12))
    plateau[3:7, 2:9] = 1.0
    plateau[5, 5] = 0.5                                  # values at the level
    for level in [0.5, 0.0, 1.0, 0.25]:
        same_contours(fm.find_contours(xp.put(plateau), level), skm.find_contours(plateau, level))
    flat = np.ones((5, 5))
    assert fm.find_contours(xp.put(flat), 1.0) == skm.find_contours(flat, 1.0) == []


@pytest.mark.parametrize("density", [0.3, 0.9])
def test_find_contours_mask_and_nan(xp, rng, density):
    img = smooth_field(rng, (60, 70), 2.0)
    mask = rng.random(img.shape) < density
    mask[20:40, 20:50] = True
    want = skm.find_contours(img, float(np.median(img)), mask=mask)
    same_contours(fm.find_contours(xp.put(img), float(np.median(img)), mask=xp.put(mask)), want)
    nimg = img.copy()
    nimg[rng.random(img.shape) > density] = np.nan
    want = skm.find_contours(nimg)                       # level from nanmin / nanmax
    same_contours(fm.find_contours(xp.put(nimg)), want)


def test_find_contours_errors(xp):
    img = np.zeros((5, 5))
    with pytest.raises(ValueError, match="fully_connected"):
        fm.find_contours(xp.put(img), 0.5, fully_connected="mid")
    with pytest.raises(ValueError, match="positive_orientation"):
        fm.find_contours(xp.put(img), 0.5, positive_orientation="up")
    with pytest.raises(ValueError, match="at least 2x2"):
        fm.find_contours(xp.put(np.zeros((1, 5))), 0.5)
    with pytest.raises(ValueError, match="Only 2D"):
        fm.find_contours(xp.put(np.zeros((3, 3, 3))), 0.5)
    with pytest.raises(ValueError, match="same shape"):
        fm.find_contours(xp.put(img), 0.5, mask=xp.put(np.ones((4, 5), bool)))
    with pytest.raises(TypeError, match="binary array"):
        fm.find_contours(xp.put(img), 0.5, mask=xp.put(np.ones((5, 5), np.uint8)))


# ---------------------------------------------------------------- block_reduce

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,block", [((30, 41), 2), ((30, 41), (3, 5)), ((7, 9, 10), (2, 3, 1)), ((17,), 4)])
@pytest.mark.parametrize("func", [np.sum, np.mean, np.max, np.min, np.median])
def test_block_reduce(xp, rng, dtype, shape, block, func):
    img = rand_image(rng, shape, dtype)
    for cval in [0, 3]:
        want = skm.block_reduce(img, block, func, cval=cval)
        got = fm.block_reduce(xp.put(img), block, func, cval=cval)
        same(xp.get(got), want, exact=np.dtype(dtype).kind != "f" or func in (np.max, np.min),
             rtol=1e-6 if dtype == "float32" else 1e-12)


def test_block_reduce_func_kwargs_and_errors(xp, rng):
    img = rand_image(rng, (12, 10), "uint8")
    want = skm.block_reduce(img, (3, 2), np.mean, func_kwargs={"dtype": np.float32})
    same(xp.get(fm.block_reduce(xp.put(img), (3, 2), np.mean, func_kwargs={"dtype": np.float32})), want,
         exact=False, rtol=1e-6)
    with pytest.raises(ValueError, match="same length"):
        fm.block_reduce(xp.put(img), (2, 2, 2))
    with pytest.raises(ValueError, match="must be >= 1"):
        fm.block_reduce(xp.put(img), (0, 2))


# ---------------------------------------------------------------- shannon_entropy

@pytest.mark.parametrize("dtype", DTYPES + ["bool", "int8", "int32"])
@pytest.mark.parametrize("base", [2, np.e, 10])
def test_shannon_entropy(xp, rng, dtype, base):
    img = rand_image(rng, (40, 30), dtype)
    if np.dtype(dtype).kind == "f":
        img = np.round(img * 50).astype(dtype)   # repeated values
    want = skm.shannon_entropy(img, base=base)
    same(xp.get(fm.shannon_entropy(xp.put(img), base=base)), np.asarray(want), exact=False)


# ---------------------------------------------------------------- blur_effect

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(40, 50), (12, 14, 16)])
@pytest.mark.parametrize("h_size", [11, 3])
def test_blur_effect(xp, rng, dtype, shape, h_size):
    img = rand_image(rng, shape, dtype)
    if np.dtype(dtype).kind == "f":
        img = sndi.gaussian_filter(img, 1).astype(dtype)
    want = skm.blur_effect(img, h_size=h_size)
    rtol = 1e-5 if dtype == "float32" else 1e-10
    same(xp.get(fm.blur_effect(xp.put(img), h_size=h_size)), np.asarray(want), exact=False, rtol=rtol)
    want = skm.blur_effect(img, h_size=h_size, reduce_func=None)
    got = fm.blur_effect(xp.put(img), h_size=h_size, reduce_func=None)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(xp.get(g), w, rtol=rtol)


@pytest.mark.parametrize("channel_axis", [-1, 0])
def test_blur_effect_channels(xp, rng, channel_axis):
    img = rand_image(rng, (30, 32, 3), "float64")
    img = np.moveaxis(img, -1, channel_axis).copy()
    want = skm.blur_effect(img, channel_axis=channel_axis, reduce_func=np.mean)
    got = fm.blur_effect(xp.put(img), channel_axis=channel_axis, reduce_func=np.mean)
    same(xp.get(got), np.asarray(want), exact=False, rtol=1e-10)
    with pytest.raises(np.exceptions.AxisError):
        fm.blur_effect(xp.put(img), channel_axis=5)
    with pytest.raises(TypeError):
        fm.blur_effect(xp.put(img), channel_axis=1.5)


# ---------------------------------------------------------------- profile_line

@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
@pytest.mark.parametrize("linewidth", [1, 3, 4])
def test_profile_line(xp, rng, dtype, linewidth):
    img = rand_image(rng, (30, 40), dtype)
    orders = [None, 0] if dtype == "bool" else [None, 0, 1, 3]
    for order in orders:
        for mode, cval in [("reflect", 0.0), ("constant", 2.5), ("nearest", 0.0), ("wrap", 0.0), ("mirror", 0.0)]:
            for src, dst in [((2, 3), (25, 31)), ((-3, 5.5), (35, 12)), ((10, 10), (10, 10))]:
                want = skm.profile_line(img, src, dst, linewidth, order, mode, cval)
                got = fm.profile_line(xp.put(img), src, dst, linewidth, order, mode, cval)
                got = xp.get(got)
                if xp.name == "cupy" and dtype != "bool":
                    # CuPy's interpolation contracts to FMAs: samples that land on a
                    # rounding tie of an integer output may round the other way (1 unit
                    # per sample, averaged over the line width), float32 in the last bits
                    int_out = np.dtype(dtype).kind in "iu"
                    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1.0 if int_out else 0)
                    continue
                same(got, want, exact=False, rtol=1e-6 if dtype == "float32" else 1e-12)


def test_profile_line_rgb_reduce_and_errors(xp, rng):
    img = rand_image(rng, (20, 25, 3), "uint8")
    for rf in [None, np.max, np.median, lambda v: v[0]]:
        want = skm.profile_line(img, (1, 1), (18, 20), linewidth=3, reduce_func=rf)
        got = fm.profile_line(xp.put(img), (1, 1), (18, 20), linewidth=3, reduce_func=rf)
        same(xp.get(got), want, exact=False)
    with pytest.raises(ValueError, match="range 0-5"):
        fm.profile_line(xp.put(img), (1, 1), (5, 5), order=6)
    with pytest.raises(ValueError, match="bool"):
        fm.profile_line(xp.put(img > 100), (1, 1), (5, 5), order=1)


# ---------------------------------------------------------------- polygons

@pytest.mark.parametrize("tolerance", [0, 0.5, 2.0, 10.0])
@pytest.mark.parametrize("closed", [False, True])
def test_approximate_polygon(xp, rng, tolerance, closed):
    c = np.cumsum(rng.standard_normal((300, 2)), axis=0)
    if closed:
        c = np.vstack([c, c[:1]])
    want = skm.approximate_polygon(c, tolerance)
    same(xp.get(fm.approximate_polygon(xp.put(c), tolerance)), want)


def test_approximate_polygon_contour(xp, rng):
    img = smooth_field(rng, (80, 80), 3.0)
    for contour in skm.find_contours(img):
        same(xp.get(fm.approximate_polygon(xp.put(contour), 0.8)), skm.approximate_polygon(contour, 0.8))


@pytest.mark.parametrize("degree", range(1, 8))
@pytest.mark.parametrize("closed", [False, True])
@pytest.mark.parametrize("preserve_ends", [False, True])
def test_subdivide_polygon(xp, rng, degree, closed, preserve_ends):
    c = np.cumsum(rng.standard_normal((25, 2)), axis=0)
    if closed:
        c = np.vstack([c, c[:1]])
    want = skm.subdivide_polygon(c, degree, preserve_ends)
    same(xp.get(fm.subdivide_polygon(xp.put(c), degree, preserve_ends)), want, exact=False, rtol=1e-12)


def test_subdivide_polygon_errors(xp):
    with pytest.raises(ValueError, match="degree"):
        fm.subdivide_polygon(xp.put(np.zeros((5, 2))), 8)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "uint8"])
@pytest.mark.parametrize("ndim", [2, 3])
def test_inertia_tensor_eigvals_types(rng, dtype, ndim):
    # NumPy scalars of the tensor's dtype, decreasing, as scikit-image returns them
    image = np.zeros((24,) * ndim, dtype)
    image[(slice(6, 14),) + (slice(3, 21),) * (ndim - 1)] = 1
    T = fm.inertia_tensor(image)
    want = skm.inertia_tensor_eigvals(image, T=skm.inertia_tensor(image))
    got = fm.inertia_tensor_eigvals(image, T=T)
    assert T.dtype == skm.inertia_tensor(image).dtype
    assert [type(v) for v in got] == [type(v) for v in want]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert list(got) == sorted(got, reverse=True)
