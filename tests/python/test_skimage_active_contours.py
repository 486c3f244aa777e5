"""fovea.skimage.segmentation active contours against scikit-image 0.26:
morphological_chan_vese, morphological_geodesic_active_contour (level sets
must be EQUAL: they are binary), their helpers, and chan_vese (segmentation
equal, phi within rel 1e-6, energies within rel 1e-9).

The morphological snakes' SIoIS / ISoSI alternation is a process-wide cycle in
both libraries; every test starts both cycles afresh (fixture `fresh_cycles`).
CuPy cases run where fovea sees a GPU and are skipped elsewhere."""

import numpy as np
import pytest
import scipy.ndimage as sndi
from skimage import data as skdata
from skimage import segmentation as sks
from skimage.segmentation import morphsnakes as skms

from fovea.skimage import segmentation as fs
from fovea.skimage.segmentation import _morphsnakes as fms
from xpcase import NumpyCase, xp_fixture  # noqa: E402 (tests/python/xpcase.py)


xp = xp_fixture()


@pytest.fixture(autouse=True)
def fresh_cycles():
    def reset():
        skms._curvop = skms._fcycle(
            [lambda u: skms.sup_inf(skms.inf_sup(u)), lambda u: skms.inf_sup(skms.sup_inf(u))]
        )
        fms._curvature_phase[0] = 0

    reset()
    yield reset
    reset()


def blobs(rng, shape, sigma=3.0):
    x = sndi.gaussian_filter(rng.random(shape), sigma)
    return (x - x.min()) / np.ptp(x)


def as_dtype(x01, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return x01.astype(dt)
    return np.round(x01 * np.iinfo(dt).max).astype(dt)


CAMERA = skdata.camera()[::8, ::8]  # 64 x 64
COINS = skdata.coins()[::5, ::6]  # 61 x 64


def same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


# ---- level-set helpers ------------------------------------------------------

@pytest.mark.parametrize("shape", [(7, 9), (64, 50), (5, 6, 7), (12, 8, 9)])
@pytest.mark.parametrize("square", [1, 3, 5])
def test_checkerboard_level_set(shape, square):
    same(fs.checkerboard_level_set(shape, square), sks.checkerboard_level_set(shape, square))


@pytest.mark.parametrize("shape", [(7, 9), (64, 50), (5, 6, 7), (12, 8, 9)])
@pytest.mark.parametrize("center,radius", [(None, None), ("first", 3.5), ("first", None), (None, 2)])
def test_disk_level_set(shape, center, radius):
    c = tuple(range(1, len(shape) + 1)) if center == "first" else None
    same(fs.disk_level_set(shape, center=c, radius=radius), sks.disk_level_set(shape, center=c, radius=radius))


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("alpha,sigma", [(100.0, 5.0), (20.0, 1.5)])
def test_inverse_gaussian_gradient(xp, dtype, alpha, sigma):
    img = as_dtype(CAMERA / 255.0, dtype)
    want = sks.inverse_gaussian_gradient(img, alpha=alpha, sigma=sigma)
    got = xp.get(fs.inverse_gaussian_gradient(xp.put(img), alpha=alpha, sigma=sigma))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# ---- morphological Chan-Vese ------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32", "float64"])
@pytest.mark.parametrize("image", ["camera", "coins", "blobs"])
@pytest.mark.parametrize("kw", [
    dict(),
    dict(init_level_set="disk", smoothing=2),
    dict(smoothing=3, lambda1=1.5, lambda2=1, init_level_set="disk"),
    dict(smoothing=0, lambda1=1, lambda2=2),
])
def test_morphological_chan_vese_2d(rng, xp, dtype, image, kw):
    x01 = {"camera": CAMERA / 255.0, "coins": COINS / 255.0, "blobs": blobs(rng, (60, 64))}[image]
    img = as_dtype(x01, dtype)
    want = sks.morphological_chan_vese(img, 12, **kw)
    got = xp.get(fs.morphological_chan_vese(xp.put(img), 12, **kw))
    same(got, want)
    assert 0 < want.sum() < want.size  # a real segmentation, not a collapsed one


@pytest.mark.parametrize("dtype", ["uint8", "float64"])
@pytest.mark.parametrize("init", ["checkerboard", "disk", "array"])
def test_morphological_chan_vese_3d(rng, xp, dtype, init):
    img = as_dtype(blobs(rng, (20, 24, 22), 2.5), dtype)
    level = (blobs(rng, img.shape, 3) > 0.5).astype(np.float32) - 0.2 if init == "array" else init
    want = sks.morphological_chan_vese(img, 5, init_level_set=level, smoothing=2)
    got = xp.get(fs.morphological_chan_vese(xp.put(img), 5, init_level_set=xp.put(level) if init == "array"
                                            else level, smoothing=2))
    same(got, want)


def test_morphological_chan_vese_callback_and_cycle(rng, fresh_cycles):
    img = CAMERA.astype(np.float64)
    seen_sk, seen_fv = [], []
    want = sks.morphological_chan_vese(img, 6, smoothing=1, iter_callback=lambda u: seen_sk.append(u.copy()))
    got = fs.morphological_chan_vese(img, 6, smoothing=1, iter_callback=lambda u: seen_fv.append(u.copy()))
    same(got, want)
    assert len(seen_fv) == len(seen_sk) == 7
    for a, b in zip(seen_fv, seen_sk):
        same(a, b)
    # the alternation carries over to the next call (odd number of smoothing steps so far)
    want = sks.morphological_chan_vese(img, 3, init_level_set="disk", smoothing=1)
    got = fs.morphological_chan_vese(img, 3, init_level_set="disk", smoothing=1)
    same(got, want)


def test_morphological_chan_vese_zero_iterations():
    level = sks.disk_level_set(CAMERA.shape)
    same(fs.morphological_chan_vese(CAMERA, 0, init_level_set=level * 3),
         sks.morphological_chan_vese(CAMERA, 0, init_level_set=level * 3))


# ---- morphological geodesic active contours ----------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [
    dict(),
    dict(balloon=1, threshold=0.69, smoothing=1),
    dict(balloon=-1, threshold="auto", smoothing=2),
    dict(balloon=0.5, threshold=0.3, init_level_set="checkerboard"),
    dict(smoothing=0, threshold=0.5),
])
def test_morphological_gac_2d(xp, dtype, kw):
    g = sks.inverse_gaussian_gradient(COINS.astype(np.float64) / 255, alpha=200, sigma=1.5).astype(dtype)
    want = sks.morphological_geodesic_active_contour(g, 15, **kw)
    got = xp.get(fs.morphological_geodesic_active_contour(xp.put(g), 15, **kw))
    same(got, want)


@pytest.mark.parametrize("balloon", [0, 1, -1])
def test_morphological_gac_3d(rng, xp, balloon):
    v = blobs(rng, (22, 20, 24), 2.0)
    g = sks.inverse_gaussian_gradient(v, alpha=300, sigma=1.0)
    init = sks.disk_level_set(v.shape, radius=6)
    want = sks.morphological_geodesic_active_contour(g, 6, init_level_set=init, balloon=balloon, threshold=0.6)
    got = xp.get(fs.morphological_geodesic_active_contour(xp.put(g), 6, init_level_set=xp.put(init),
                                                          balloon=balloon, threshold=0.6))
    same(got, want)


def test_morphological_gac_callback():
    g = sks.inverse_gaussian_gradient(CAMERA.astype(np.float64))
    seen_sk, seen_fv = [], []
    want = sks.morphological_geodesic_active_contour(g, 4, balloon=1, iter_callback=lambda u: seen_sk.append(u.sum()))
    got = fs.morphological_geodesic_active_contour(g, 4, balloon=1, iter_callback=lambda u: seen_fv.append(u.sum()))
    same(got, want)
    assert seen_fv == seen_sk and len(seen_fv) == 5


# ---- errors -------------------------------------------------------------------

def _raises_like(fn_sk, fn_fv, *args, **kw):
    with pytest.raises(Exception) as e_sk:
        fn_sk(*args, **kw)
    with pytest.raises(type(e_sk.value)):
        fn_fv(*args, **kw)


@pytest.mark.parametrize("name", ["morphological_chan_vese", "morphological_geodesic_active_contour"])
def test_morphsnakes_errors(name):
    sk, fv = getattr(sks, name), getattr(fs, name)
    img = CAMERA.astype(np.float64)
    _raises_like(sk, fv, img[0], 2, init_level_set=np.ones(64))  # 1-d
    _raises_like(sk, fv, np.zeros((3, 4, 5, 6)), 2, init_level_set=np.ones((3, 4, 5, 6)))  # 4-d
    _raises_like(sk, fv, img, 2, init_level_set="star")
    _raises_like(sk, fv, img, 2, init_level_set=np.ones((4, 4, 4)))
    _raises_like(sk, fv, img[:, :1], 2, init_level_set=np.ones((64, 1)))  # too thin for a gradient
    with pytest.raises(ValueError, match="shape"):
        fv(img, 2, init_level_set=np.ones((60, 64)))
    with pytest.raises(TypeError):
        fv(img, 2.5)


def test_gac_integer_image_fails_like_skimage():
    with pytest.raises(TypeError):
        sks.morphological_geodesic_active_contour(CAMERA, 2)
    with pytest.raises(TypeError, match="floating-point"):
        fs.morphological_geodesic_active_contour(CAMERA, 2)


# ---- chan_vese ----------------------------------------------------------------

def check_chan_vese(img, xp=NumpyCase(), iters=40, **kw):
    want = sks.chan_vese(img, max_num_iter=iters, extended_output=True, **kw)
    init = kw.pop("init_level_set", "checkerboard")
    got = fs.chan_vese(xp.put(img), max_num_iter=iters, extended_output=True,
                       init_level_set=init if isinstance(init, str) else xp.put(init), **kw)
    same(xp.get(got[0]), want[0])
    phi = xp.get(got[1])
    assert phi.dtype == want[1].dtype
    # float32 on the GPU: CuPy's kernels contract to FMAs, and 40 float32 iterations
    # carry the last-bit differences to ~2e-4 of phi's range (the segmentation is
    # still exact: checked above)
    gpu32 = xp.name == "cupy" and phi.dtype == np.float32
    np.testing.assert_allclose(phi, want[1], rtol=1e-6, atol=(5e-4 if gpu32 else 1e-6) * np.abs(want[1]).max())
    assert len(got[2]) == len(want[2])
    np.testing.assert_allclose(np.array(got[2], dtype=np.float64), np.array(want[2], dtype=np.float64),
                               rtol=1e-9 if phi.dtype == np.float64 else 1e-5)
    plain = xp.get(fs.chan_vese(xp.put(img), max_num_iter=iters, init_level_set=init if isinstance(init, str)
                                else xp.put(init), **kw))
    same(plain, want[0])


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32", "float64"])
@pytest.mark.parametrize("image", ["camera", "coins", "blobs"])
def test_chan_vese_images(rng, xp, dtype, image):
    x01 = {"camera": CAMERA / 255.0, "coins": COINS / 255.0, "blobs": blobs(rng, (48, 64))}[image]
    check_chan_vese(as_dtype(x01, dtype), xp)


@pytest.mark.parametrize("init", ["checkerboard", "disk", "small disk", "array"])
@pytest.mark.parametrize("kw", [dict(), dict(mu=0.1, lambda1=2.0, lambda2=0.5, dt=0.25), dict(tol=5e-3)])
def test_chan_vese_options(rng, xp, init, kw):
    img = blobs(rng, (40, 52))
    if init == "array":
        init = rng.standard_normal(img.shape)
    check_chan_vese(img, xp, iters=30, init_level_set=init, **dict(kw))


def test_chan_vese_converges_and_flat_image():
    img = COINS / 255.0
    a = sks.chan_vese(img, tol=1e-2, extended_output=True)
    b = fs.chan_vese(img, tol=1e-2, extended_output=True)
    assert len(a[2]) == len(b[2]) < 500
    same(b[0], a[0])
    flat = np.full((10, 12), 7, np.uint8)
    same(fs.chan_vese(flat, max_num_iter=5), sks.chan_vese(flat, max_num_iter=5))


def test_chan_vese_errors():
    _raises_like(sks.chan_vese, fs.chan_vese, np.zeros((4, 5, 6)))
    _raises_like(sks.chan_vese, fs.chan_vese, np.zeros(6))
    _raises_like(sks.chan_vese, fs.chan_vese, CAMERA, init_level_set="square")
    _raises_like(sks.chan_vese, fs.chan_vese, CAMERA, init_level_set=np.zeros((6, 6)))
    _raises_like(sks.chan_vese, fs.chan_vese, CAMERA.astype(np.complex64))
    with pytest.raises(ValueError, match="2D"):
        fs.chan_vese(np.zeros((4, 5, 6)))
    with pytest.raises(TypeError, match="tol"):
        fs.chan_vese(CAMERA, tol="small")


def test_fovea_array_round_trip(fresh_cycles):
    import fovea

    img = CAMERA.astype(np.float64)
    out = fs.morphological_chan_vese(fovea.asarray(img), 4, init_level_set=fovea.asarray(sks.disk_level_set(img.shape)))
    assert isinstance(out, fovea.Array)
    same(np.asarray(out), sks.morphological_chan_vese(img, 4, init_level_set="disk"))
    seg, phi, energies = fs.chan_vese(fovea.asarray(img), max_num_iter=5, extended_output=True)
    assert isinstance(seg, fovea.Array) and isinstance(phi, fovea.Array) and len(energies) == 5
    same(np.asarray(seg), sks.chan_vese(img, max_num_iter=5))
    g = fs.inverse_gaussian_gradient(fovea.asarray(img))
    assert isinstance(g, fovea.Array)
