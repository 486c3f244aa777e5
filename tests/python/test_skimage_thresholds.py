"""The thresholds of fovea.skimage.filters against scikit-image 0.26 on
random and bundled images (camera, moon, coins, binary_blobs), 2-d and 3-d,
with NumPy and (marker gpu) CuPy inputs.

Thresholds: integer images exact, float images within 1e-6 relative.
Threshold images (local, Niblack, Sauvola): float32 1e-5, float64 1e-12
relative on the host; on the GPU CuPy's cumulative sums (a parallel scan,
not NumPy's running sum) change the integral images' rounding: 1e-4 / 1e-9
there, with an absolute floor scaled to the image (the mean-square minus
squared-mean difference of Niblack / Sauvola cancels)."""
import warnings

import numpy as np
import pytest

skf = pytest.importorskip("skimage.filters")
import skimage.data as skdata  # noqa: E402

from fovea.skimage import filters as ff  # noqa: E402


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request):
    if request.param == "numpy":
        return np
    return request.getfixturevalue("cp")


def host(x):
    return x.get() if hasattr(x, "get") and not isinstance(x, np.ndarray) else x


def images():
    r = np.random.default_rng(1)
    cam = skdata.camera()
    out = {
        "camera": cam,
        "moon": skdata.moon(),
        "coins": skdata.coins(),
        "camera_f64": cam / 255.0,
        "camera_f32": (cam / 255.0).astype(np.float32),
        "blobs3d_f": skdata.binary_blobs(32, n_dim=3, rng=2).astype(np.float64) * 0.6 + r.random((32,) * 3) * 0.4,
        "rand_u16": r.integers(0, 4000, (40, 50)).astype(np.uint16),
        "rand_i16": r.integers(-500, 800, (30, 31)).astype(np.int16),
        "bimodal_f32": np.concatenate([r.normal(0.3, 0.05, 900), r.normal(0.7, 0.08, 700)]).astype(
            np.float32).reshape(40, 40),
    }
    return out


IMAGES = images()


def same(ours, ref):
    o, r = np.asarray(host(ours)), np.asarray(ref)
    assert o.shape == r.shape
    if r.dtype.kind in "biu":
        np.testing.assert_array_equal(o, r)
    else:
        np.testing.assert_allclose(o, r, rtol=1e-6, atol=0)


@pytest.mark.parametrize("name", sorted(IMAGES))
@pytest.mark.parametrize("func", ["otsu", "yen", "isodata", "mean", "triangle", "li"])
def test_global_thresholds(xp, name, func):
    img = IMAGES[name]
    f, g = getattr(skf, f"threshold_{func}"), getattr(ff, f"threshold_{func}")
    same(g(xp.asarray(img)), f(img))
    if func in ("otsu", "yen", "isodata", "triangle"):
        same(g(xp.asarray(img), nbins=37), f(img, nbins=37))


@pytest.mark.parametrize("name", ["camera", "bimodal_f32", "coins", "moon"])
def test_hist_inputs(xp, name):
    img = IMAGES[name]
    from skimage.exposure import histogram
    h = histogram(img, nbins=64)
    for func in ("otsu", "yen", "isodata", "minimum", "multiotsu"):
        f, g = getattr(skf, f"threshold_{func}"), getattr(ff, f"threshold_{func}")
        try:
            ref = f(hist=h)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                g(hist=(xp.asarray(h[0]), xp.asarray(h[1])))
            continue
        same(g(hist=(xp.asarray(h[0]), xp.asarray(h[1]))), ref)
    same(ff.threshold_otsu(hist=xp.asarray(h[0])), skf.threshold_otsu(hist=h[0]))


def test_isodata_return_all(xp):
    for img in (IMAGES["camera"], IMAGES["bimodal_f32"]):
        same(ff.threshold_isodata(xp.asarray(img), return_all=True), skf.threshold_isodata(img, return_all=True))


@pytest.mark.parametrize("name", ["camera", "moon", "bimodal_f32", "camera_f64", "coins"])
def test_minimum(xp, name):
    img = IMAGES[name]
    try:
        ref = skf.threshold_minimum(img)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            ff.threshold_minimum(xp.asarray(img))
        return
    same(ff.threshold_minimum(xp.asarray(img)), ref)


def test_minimum_errors(xp):
    img = IMAGES["camera"]
    with pytest.raises(RuntimeError):
        skf.threshold_minimum(img, max_num_iter=1)
    with pytest.raises(RuntimeError):
        ff.threshold_minimum(xp.asarray(img), max_num_iter=1)
    flat = np.full((5, 5), 3, np.uint8)
    flat[0, 0] = 4
    with pytest.raises(RuntimeError):
        ff.threshold_minimum(xp.asarray(flat))


@pytest.mark.parametrize("name", ["camera", "coins", "camera_f32", "blobs3d_f", "bimodal_f32"])
@pytest.mark.parametrize("classes", [2, 3, 4])
def test_multiotsu(xp, name, classes):
    img = IMAGES[name]
    if classes == 4 and img.dtype.kind in "iu":
        img = (img // 4).astype(img.dtype)  # one bin per value: keep the 3-threshold search small
    nbins = 64 if classes == 4 else 256
    same(ff.threshold_multiotsu(xp.asarray(img), classes=classes, nbins=nbins),
         skf.threshold_multiotsu(img, classes=classes, nbins=nbins))


def test_multiotsu_errors(xp):
    img = np.array([[0, 0, 5, 5]], np.uint8)
    with pytest.raises(ValueError):
        ff.threshold_multiotsu(xp.asarray(img), classes=3)
    img = np.array([[0, 1, 5, 5]], np.uint8)
    same(ff.threshold_multiotsu(xp.asarray(img), classes=3), skf.threshold_multiotsu(img, classes=3))
    with pytest.raises(Exception):
        ff.threshold_otsu()


def test_li_options(xp):
    img = IMAGES["camera_f64"]
    seen_ref, seen = [], []
    ref = skf.threshold_li(img, tolerance=1e-4, initial_guess=0.3, iter_callback=seen_ref.append)
    ours = ff.threshold_li(xp.asarray(img), tolerance=1e-4, initial_guess=0.3, iter_callback=seen.append)
    same(ours, ref)
    np.testing.assert_allclose(np.array([float(host(v)) for v in seen]), np.array(seen_ref, float), rtol=1e-6)
    same(ff.threshold_li(xp.asarray(IMAGES["camera"]), initial_guess=100), skf.threshold_li(IMAGES["camera"],
                                                                                           initial_guess=100))
    with pytest.raises(ValueError):
        ff.threshold_li(xp.asarray(img), initial_guess=5.0)
    with pytest.raises(TypeError):
        ff.threshold_li(xp.asarray(img), initial_guess="x")
    nanimg = img.copy()
    nanimg[3, 3] = np.nan
    same(ff.threshold_li(xp.asarray(nanimg)), skf.threshold_li(nanimg))


def test_constant_images(xp):
    for img in (np.full((4, 5), 7, np.uint8), np.full((4, 5), 0.5)):
        for func in ("otsu", "li", "triangle"):
            same(getattr(ff, f"threshold_{func}")(xp.asarray(img)), getattr(skf, f"threshold_{func}")(img))


def field(ours, ref, xp, img, local_std=False):
    o, r = np.asarray(host(ours)), np.asarray(ref)
    assert o.dtype == r.dtype and o.shape == r.shape
    if xp is np:
        rtol = 1e-5 if r.dtype == np.float32 else 1e-12
    else:
        rtol = 1e-4 if r.dtype == np.float32 else 1e-9
    atol = rtol * float(np.max(np.abs(img)))
    if local_std and xp is not np:
        # niblack / sauvola: s = sqrt(E[x^2] - E[x]^2) from integral images. CuPy's
        # cumsum is a parallel scan (another summation order than NumPy's sequential
        # one), so the integral images differ by ~eps * (their magnitude, up to
        # size * max^2); in flat windows E[x^2] - E[x]^2 cancels to that residue
        # and the sqrt lifts it to ~sqrt(eps * size) * max, in skimage's result too.
        eps = np.finfo(np.float64).eps
        atol = max(atol, float(np.sqrt(eps * img.size)) * float(np.max(np.abs(img))))
    np.testing.assert_allclose(o, r, rtol=rtol, atol=atol)


@pytest.mark.parametrize("method", ["gaussian", "mean", "median", "generic"])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest"])
def test_threshold_local(xp, method, dtype, mode):
    step = 12 if method == "generic" else 4  # generic: a Python call per pixel in the reference too
    img = IMAGES["camera"][::step, ::step].astype(dtype)
    param = np.mean if method == "generic" else None
    ref = skf.threshold_local(img, 7, method, offset=3, mode=mode, param=param, cval=2)
    ours = ff.threshold_local(xp.asarray(img), 7, method, offset=3, mode=mode, param=param, cval=2)
    field(ours, ref, xp, img)


def test_threshold_local_3d_and_errors(xp):
    img = IMAGES["blobs3d_f"]
    field(ff.threshold_local(xp.asarray(img), (3, 5, 7)), skf.threshold_local(img, (3, 5, 7)), xp, img)
    field(ff.threshold_local(xp.asarray(img), 5, param=1.5), skf.threshold_local(img, 5, param=1.5), xp, img)
    with pytest.raises(ValueError):
        ff.threshold_local(xp.asarray(img), 4)
    with pytest.raises(ValueError):
        ff.threshold_local(xp.asarray(img), (3, 3))
    with pytest.raises(ValueError):
        ff.threshold_local(xp.asarray(img), 3, method="bogus")


@pytest.mark.parametrize("name", ["camera", "camera_f32", "camera_f64", "blobs3d_f", "rand_i16"])
@pytest.mark.parametrize("window", [15, 5, (3, 7)])
def test_niblack_sauvola(xp, name, window):
    img = IMAGES[name]
    if not np.isscalar(window) and len(window) != img.ndim:
        window = window + (3,) * (img.ndim - len(window))
    field(ff.threshold_niblack(xp.asarray(img), window, 0.3), skf.threshold_niblack(img, window, 0.3), xp, img, True)
    field(ff.threshold_sauvola(xp.asarray(img), window, 0.25), skf.threshold_sauvola(img, window, 0.25), xp, img, True)
    field(ff.threshold_sauvola(xp.asarray(img), window, r=64), skf.threshold_sauvola(img, window, r=64), xp, img, True)


def test_window_errors(xp):
    with pytest.raises(ValueError):
        ff.threshold_niblack(xp.asarray(IMAGES["camera"]), 4)
    with pytest.raises(ValueError):
        ff.threshold_sauvola(xp.asarray(IMAGES["camera"]), (3, 6))


@pytest.mark.parametrize("name", ["camera", "camera_f64", "blobs3d_f", "coins"])
def test_hysteresis(xp, name):
    img = IMAGES[name]
    hi = float(np.percentile(img, 90))
    lo = float(np.percentile(img, 60))
    ref = skf.apply_hysteresis_threshold(img, lo, hi)
    ours = ff.apply_hysteresis_threshold(xp.asarray(img), lo, hi)
    np.testing.assert_array_equal(np.asarray(host(ours)), ref)
    # low above high is clipped to high
    np.testing.assert_array_equal(np.asarray(host(ff.apply_hysteresis_threshold(xp.asarray(img), hi, lo))),
                                  skf.apply_hysteresis_threshold(img, hi, lo))


def test_rgb_warning(xp):
    img = np.random.default_rng(0).integers(0, 255, (10, 10, 3)).astype(np.uint8)
    with pytest.warns(UserWarning):
        ff.threshold_otsu(xp.asarray(img))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(ff.threshold_multiotsu(xp.asarray(img)), skf.threshold_multiotsu(img))
