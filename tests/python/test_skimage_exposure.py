"""fovea.skimage.exposure against scikit-image 0.26 on random and bundled
images (camera, moon, coins, binary_blobs), 2-d and 3-d, every dtype. Each
case runs with NumPy and (marker gpu) with CuPy inputs; results must keep the
input's array type.

Tolerances: histograms, centres, CLAHE and every integer result exact;
float results within 1e-5 relative (float32) / 1e-12 (float64) on the host.
On the GPU the elementwise steps run in CuPy, whose exp / log / pow / interp
may differ from NumPy's by an ulp or two: float results there are checked to
1e-5 (float32) / 1e-9 (float64), and integer outputs of the adjust_*
functions (a float result truncated to an integer) to within 1."""
import warnings

import numpy as np
import pytest

ske = pytest.importorskip("skimage.exposure")
import skimage.data as skdata  # noqa: E402

import fovea  # noqa: E402
from fovea.skimage import exposure as fe  # noqa: E402

DTYPES = ["bool", "uint8", "uint16", "uint32", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request):
    if request.param == "numpy":
        return np
    return request.getfixturevalue("cp")


def host(x):
    if isinstance(x, (tuple, list)):
        return type(x)(host(v) for v in x)
    return x.get() if hasattr(x, "get") and not isinstance(x, np.ndarray) else x


def random_image(dtype, shape, seed=0):
    r = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == bool:
        return r.random(shape) > 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -3000), min(info.max, 3000)
        return r.integers(lo, hi, size=shape, endpoint=True).astype(dt)
    return r.random(shape).astype(dt)


def check(ours, ref, xp, exact=False, int_slack=0):
    if xp is not np:
        assert not isinstance(ours, np.ndarray) or np.ndim(ours) == 0
    o, r = np.asarray(host(ours)), np.asarray(ref)
    assert o.shape == r.shape
    assert o.dtype == r.dtype, (o.dtype, r.dtype)
    if exact or r.dtype.kind in "biu":
        if int_slack and xp is not np:
            assert np.max(np.abs(o.astype(np.int64) - r.astype(np.int64)), initial=0) <= int_slack
        else:
            np.testing.assert_array_equal(o, r)
        return
    if r.dtype == np.float32:
        rtol = 1e-5
    else:
        rtol = 1e-12 if xp is np else 1e-9
    np.testing.assert_allclose(o, r, rtol=rtol, atol=rtol * max(1.0, float(np.nanmax(np.abs(r), initial=0))))


# ---- histogram --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "bool"])
@pytest.mark.parametrize("shape", [(37, 41), (9, 10, 11)])
@pytest.mark.parametrize("source_range", ["image", "dtype"])
def test_histogram_random(xp, dtype, shape, source_range):
    img = random_image(dtype, shape, seed=3)
    if source_range == "dtype" and np.dtype(dtype).itemsize >= 4 and dtype.startswith(("int", "uint")):
        pytest.skip("one bin per value of a 32/64-bit dtype: too many bins")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ske.histogram(img, nbins=100, source_range=source_range)
        ours = fe.histogram(xp.asarray(img), nbins=100, source_range=source_range)
    check(ours[0], ref[0], xp, exact=True)
    check(ours[1], ref[1], xp, exact=True)


@pytest.mark.parametrize("name", ["camera", "moon", "coins"])
@pytest.mark.parametrize("kind", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("nbins", [256, 7, 1000])
def test_histogram_data(xp, name, kind, nbins):
    img = getattr(skdata, name)()
    if kind != "uint8":
        img = (img / 255.0).astype(kind)
        img[0, 0] = 0.3  # a value on no grid
    for normalize in (False, True):
        ref = ske.histogram(img, nbins=nbins, normalize=normalize)
        ours = fe.histogram(xp.asarray(img), nbins=nbins, normalize=normalize)
        check(ours[0], ref[0], xp, exact=not normalize)
        check(ours[1], ref[1], xp, exact=True)


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_histogram_bytes_long(xp, dtype):
    """8-bit images by value (the per-byte tables of the CPU kernel): lengths past
    one thread-pool chunk, odd tails, offsets, both source ranges, every value."""
    rng = np.random.default_rng(11)
    info = np.iinfo(dtype)
    img = rng.integers(info.min, int(info.max) + 1, 300003, dtype=dtype)
    for sub in (img, img[1:], img[5:131074], np.full(7, info.max, dtype), img[:1000].clip(-3, 3)):
        for source_range in ("image", "dtype"):
            ref = ske.histogram(sub, source_range=source_range)
            ours = fe.histogram(xp.asarray(sub), source_range=source_range)
            check(ours[0], ref[0], xp, exact=True)
            check(ours[1], ref[1], xp, exact=True)


def test_histogram_edge_values(xp):
    # values on and next to the bin edges, where numpy's index correction matters
    for dt in (np.float32, np.float64):
        edges = np.linspace(-1.3, 2.7, 51, dtype=dt)
        img = np.concatenate([edges, np.nextafter(edges, dt(-10)), np.nextafter(edges, dt(10))]).astype(dt)
        img = np.clip(img, edges[0], edges[-1])
        for nb in (3, 50, 255, 256):
            ref = ske.histogram(img, nbins=nb)
            ours = fe.histogram(xp.asarray(img), nbins=nb)
            check(ours[0], ref[0], xp, exact=True)
            ref = ske.histogram(img, nbins=nb, source_range="dtype")
            ours = fe.histogram(xp.asarray(img), nbins=nb, source_range="dtype")
            check(ours[0], ref[0], xp, exact=True)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
def test_histogram_channel_axis(xp, dtype):
    img = random_image(dtype, (20, 3, 17), seed=5)
    ref = ske.histogram(np.moveaxis(img, 1, -1), nbins=64, channel_axis=-1)
    ours = fe.histogram(xp.asarray(img), nbins=64, channel_axis=1)
    check(ours[0], ref[0], xp, exact=True)
    check(ours[1], ref[1], xp, exact=True)


def test_histogram_constant_and_errors(xp):
    for img in (np.full((5, 6), 7, np.uint8), np.full((5, 6), 0.25, np.float32)):
        ref = ske.histogram(img, nbins=10)
        ours = fe.histogram(xp.asarray(img), nbins=10)
        check(ours[0], ref[0], xp, exact=True)
        check(ours[1], ref[1], xp, exact=True)
    bad = np.array([0.0, np.nan, 1.0])
    with pytest.raises(ValueError):
        ske.histogram(bad)
    with pytest.raises(ValueError):
        fe.histogram(xp.asarray(bad))
    with pytest.raises(ValueError):
        fe.histogram(xp.asarray(np.zeros(3, np.uint8)), source_range="bogus")
    with pytest.raises(ValueError):
        fe.histogram(xp.asarray(np.zeros(3, np.float32)), source_range="bogus")
    with pytest.warns(UserWarning):
        fe.histogram(xp.asarray(np.zeros((4, 4, 3), np.uint8)))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
def test_cumulative_distribution(xp, dtype):
    img = random_image(dtype, (30, 31), seed=7)
    ref = ske.cumulative_distribution(img, nbins=50)
    ours = fe.cumulative_distribution(xp.asarray(img), nbins=50)
    check(ours[0], ref[0], xp)
    check(ours[1], ref[1], xp, exact=True)


# ---- equalisation -------------------------------------------------------------------------------



@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int16"])
def test_equalize_hist_table_path(dtype):
    """8-/16-bit images large enough for the lookup table (every dtype value through
    np.interp once): bit for bit scikit-image's interp of every pixel."""
    rng = np.random.default_rng(4)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -5000), min(int(info.max), 5000)
    img = rng.integers(lo, hi + 1, (300, 480), dtype=dtype)
    for x in (img, img[:, ::-1].T, img[3:-4].reshape(-1, 3, 40)):
        np.testing.assert_array_equal(fe.equalize_hist(x), ske.equalize_hist(x))

@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int16", "int32", "float32", "float64"])
@pytest.mark.parametrize("shape", [(40, 33), (8, 9, 10)])
def test_equalize_hist(xp, dtype, shape):
    img = random_image(dtype, shape, seed=11)
    ref = ske.equalize_hist(img, nbins=64)
    ours = fe.equalize_hist(xp.asarray(img), nbins=64)
    check(ours, ref, xp)
    mask = random_image("bool", shape, seed=12)
    ref = ske.equalize_hist(img, nbins=64, mask=mask)
    ours = fe.equalize_hist(xp.asarray(img), nbins=64, mask=xp.asarray(mask))
    check(ours, ref, xp)


def test_equalize_hist_data(xp):
    for img in (skdata.camera(), skdata.moon(), skdata.coins() / 255.0):
        check(fe.equalize_hist(xp.asarray(img)), ske.equalize_hist(img), xp)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32", "float64"])
@pytest.mark.parametrize("shape,kernel_size", [((64, 57), None), ((50, 50), 13), ((31, 40), (8, 5)),
                                               ((12, 14, 16), (4, 5, 6)), ((9,), 4), ((7, 3), (10, 2))])
@pytest.mark.parametrize("clip_limit", [0.01, 0.0, 0.3])
def test_equalize_adapthist(xp, dtype, shape, kernel_size, clip_limit):
    img = random_image(dtype, shape, seed=13)
    if np.dtype(dtype).kind == "f":
        img = img ** 2  # not uniform
    ref = ske.equalize_adapthist(img, kernel_size=kernel_size, clip_limit=clip_limit, nbins=128)
    ours = fe.equalize_adapthist(xp.asarray(img), kernel_size=kernel_size, clip_limit=clip_limit, nbins=128)
    check(ours, ref, xp)


@pytest.mark.parametrize("name", ["camera", "moon", "coins"])
def test_equalize_adapthist_data(xp, name):
    img = getattr(skdata, name)()
    for kw in ({}, {"clip_limit": 0.03, "nbins": 256, "kernel_size": 32}):
        check(fe.equalize_adapthist(xp.asarray(img), **kw), ske.equalize_adapthist(img, **kw), xp)
    f = (img / 255.0).astype(np.float32)
    check(fe.equalize_adapthist(xp.asarray(f)), ske.equalize_adapthist(f), xp)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32", "float64"])
@pytest.mark.parametrize("channels,kernel_size", [(3, None), (4, 9), (3, (7, 12))])
def test_equalize_adapthist_rgb(xp, dtype, channels, kernel_size):
    """RGB(A)-like images are equalized on their HSV value, as scikit-image's adapt_rgb(hsv_value)."""
    img = random_image(dtype, (45, 38, channels), seed=17)
    ref = ske.equalize_adapthist(img, kernel_size=kernel_size)
    check(fe.equalize_adapthist(xp.asarray(img), kernel_size=kernel_size), ref, xp)
    if channels == 3 and dtype == "uint8":
        a = skdata.astronaut()[::4, ::4]
        check(fe.equalize_adapthist(xp.asarray(a), clip_limit=0.02), ske.equalize_adapthist(a, clip_limit=0.02), xp)


def test_equalize_adapthist_errors(xp):
    img = np.zeros((10, 10), np.uint8)
    img[3] = 9
    with pytest.raises(ValueError):
        ske.equalize_adapthist(img, kernel_size=(3, 3, 3))
    with pytest.raises(ValueError):
        fe.equalize_adapthist(xp.asarray(img), kernel_size=(3, 3, 3))
    with pytest.raises(ValueError):
        fe.equalize_adapthist(xp.asarray(np.array([[0.0, 2.0]])))


# ---- rescale / adjust -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("in_range,out_range", [("image", "dtype"), ("dtype", "image"), ((10, 200), "dtype"),
                                                ("image", (0, 127)), ("image", "uint10"), ("uint12", "float"),
                                                ((0.1, 0.7), (-1.0, 1.0)), ("image", "uint8")])
def test_rescale_intensity(xp, dtype, in_range, out_range):
    img = random_image(dtype, (17, 19), seed=17)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = ske.rescale_intensity(img, in_range=in_range, out_range=out_range)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            fe.rescale_intensity(xp.asarray(img), in_range=in_range, out_range=out_range)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = fe.rescale_intensity(xp.asarray(img), in_range=in_range, out_range=out_range)
    check(ours, ref, xp, int_slack=1)


def test_rescale_intensity_errors_and_constant(xp):
    img = np.array([130, 130, 130], dtype=np.int32)
    check(fe.rescale_intensity(xp.asarray(img), out_range=(0, 127)), ske.rescale_intensity(img, out_range=(0, 127)),
          xp)
    with pytest.raises(ValueError):
        fe.rescale_intensity(xp.asarray(img), out_range="bogus")


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int16", "float32", "float64"])
def test_adjust(xp, dtype):
    img = np.abs(random_image(dtype, (21, 22), seed=19))
    for gamma, gain in ((1, 1), (0.5, 1), (2.2, 0.8)):
        check(fe.adjust_gamma(xp.asarray(img), gamma, gain), ske.adjust_gamma(img, gamma, gain), xp, int_slack=1)
    for inv in (False, True):
        check(fe.adjust_log(xp.asarray(img), 1.3, inv), ske.adjust_log(img, 1.3, inv), xp, int_slack=1)
        check(fe.adjust_sigmoid(xp.asarray(img), 0.4, 7, inv), ske.adjust_sigmoid(img, 0.4, 7, inv), xp,
              int_slack=1)


def test_adjust_errors(xp):
    neg = np.array([[-1.0, 0.5]])
    for f in (fe.adjust_log, fe.adjust_sigmoid):
        with pytest.raises(ValueError):
            f(xp.asarray(neg))
    with pytest.raises(ValueError):
        fe.adjust_gamma(xp.asarray(neg), 2)
    with pytest.raises(ValueError):
        fe.adjust_gamma(xp.asarray(np.ones((2, 2))), -1)


def test_is_low_contrast(xp):
    cases = [np.linspace(0, 0.04, 100), skdata.camera(), (skdata.camera() // 30).astype(np.uint8),
             np.zeros((5, 5), bool), random_image("bool", (5, 5)), random_image("uint8", (6, 7, 3)),
             random_image("float32", (6, 7, 4))]
    for img in cases:
        assert fe.is_low_contrast(xp.asarray(img)) == ske.is_low_contrast(img)
        assert fe.is_low_contrast(xp.asarray(img), upper_percentile=100) == ske.is_low_contrast(
            img, upper_percentile=100)


# ---- match_histograms ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int16", "float32", "float64"])
def test_match_histograms(xp, dtype):
    img = random_image(dtype, (25, 26), seed=23)
    ref_img = random_image(dtype, (20, 21), seed=24)
    if np.dtype(dtype).kind == "f":
        ref_img = ref_img ** 3
    check(fe.match_histograms(xp.asarray(img), xp.asarray(ref_img)), ske.match_histograms(img, ref_img), xp)
    img3 = random_image(dtype, (12, 3, 13), seed=25)
    ref3 = random_image(dtype, (9, 3, 8), seed=26)
    check(fe.match_histograms(xp.asarray(img3), xp.asarray(ref3), channel_axis=1),
          ske.match_histograms(img3, ref3, channel_axis=1), xp)
    with pytest.raises(ValueError):
        fe.match_histograms(xp.asarray(img), xp.asarray(img3))


def test_types_round_trip():
    img = skdata.camera()[:64, :64]
    out = fe.equalize_hist(fovea.asarray(img))
    assert isinstance(out, fovea.Array)
    np.testing.assert_allclose(np.asarray(out), ske.equalize_hist(img), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "int64",
                                   "float32", "float64"])
def test_minmax_kernel(xp, dtype):
    """exp_minmax (the min / max under rescale_intensity, h_maxima's range) against
    NumPy: sizes around the 16-byte vector loads, views off the 16-byte alignment
    (the element-wise kernel), masks, NaN and inf."""
    from fovea import _fovea
    rng = np.random.default_rng(3)
    stream = xp.cuda.get_current_stream().ptr if xp is not np else None
    for n in (1, 5, 15, 16, 17, 750, 4097, 100003):
        h = random_image(dtype, (n,), seed=n)
        x = xp.asarray(h)
        for off in (0, 1) if n > 1 else (0,):
            lo, hi, c = _fovea.exp_minmax(x[off:], None, stream)
            assert (lo, hi, c) == (float(h[off:].min()), float(h[off:].max()), n - off)
        if n > 1:
            m = rng.random(n) > 0.5
            m[0] = True
            lo, hi, c = _fovea.exp_minmax(x, xp.asarray(m), stream)
            assert (lo, hi, c) == (float(h[m].min()), float(h[m].max()), int(m.sum()))
    if np.dtype(dtype).kind == "f":
        h = random_image(dtype, (1000,))
        h[7] = np.inf
        h[8] = -np.inf
        assert _fovea.exp_minmax(xp.asarray(h), None, stream)[:2] == (-np.inf, np.inf)
        h[500] = np.nan
        lo, hi, _ = _fovea.exp_minmax(xp.asarray(h), None, stream)
        assert np.isnan(lo) and np.isnan(hi)
