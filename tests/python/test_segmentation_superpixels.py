"""fovea.skimage.segmentation's superpixels against scikit-image 0.26: slic,
felzenszwalb, quickshift, active_contour.

Host data (NumPy): results EQUAL scikit-image's (values and dtype) on random
images: gray, RGB (Lab and not), 3-D, masks, channel_axis, start_label,
spacing, sigma, SLIC-zero; felzenszwalb and quickshift likewise; bad input
raises scikit-image's exception types and messages.

CUDA data (CuPy; skipped without a GPU): slic runs on the GPU, whose centre
sums are atomic reductions (include/fovea/segmentation.h): labels agree with
scikit-image's on more than 99 % of the pixels with the same number of
segments; felzenszwalb, quickshift and active_contour take a host round trip
and must equal scikit-image's, returning CuPy arrays."""

import warnings

import numpy as np
import pytest
import scipy.ndimage as sndi
from skimage import segmentation as sks

from fovea.skimage import segmentation as fs
from xpcase import CupyCase, same  # noqa: E402 (tests/python/xpcase.py)


@pytest.fixture
def gpu(cp):
    return CupyCase(cp)


def smooth_image(rng, shape, dtype=np.float64, s=3):
    """Random blobs: smoothed noise rescaled to [0, 1] (superpixels with structure)."""
    sig = [s] * min(len(shape), 2) + [0] * (len(shape) - 2) if len(shape) == 3 and shape[-1] == 3 else s
    x = sndi.gaussian_filter(rng.random(shape), sig)
    x = (x - x.min()) / (x.max() - x.min())
    if np.dtype(dtype).kind == "u":
        return (x * 255).astype(dtype)
    return x.astype(dtype)


def both(fn, *args, **kw):
    """(scikit-image's result, fovea's), warnings silenced on both sides."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sks, fn)(*args, **kw), getattr(fs, fn)(*args, **kw)


# ---- slic -------------------------------------------------------------------

SLIC_CASES = [
    ((48, 64), dict(channel_axis=None)),
    ((48, 64), dict(channel_axis=None, start_label=0, enforce_connectivity=False)),
    ((40, 56, 3), dict(compactness=1)),
    ((40, 56, 3), dict(convert2lab=False, compactness=0.3, slic_zero=True)),
    ((40, 56, 3), dict(convert2lab=False, spacing=[2, 1], sigma=1)),
    ((40, 56, 3), dict(convert2lab=False, sigma=[1, 0.5], max_num_iter=3)),
    ((12, 20, 24), dict(channel_axis=None, spacing=(1, 2, 1))),
    ((12, 20, 24), dict(channel_axis=None, start_label=0, min_size_factor=0.1, max_size_factor=1)),
    ((10, 16, 18, 2), dict(compactness=0.5)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8])
@pytest.mark.parametrize("shape, kw", SLIC_CASES)
def test_slic_equal(rng, shape, kw, dtype):
    x = smooth_image(rng, shape, dtype)
    want, got = both("slic", x, n_segments=30, **kw)
    same(got, want)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_slic_noise_and_many_segments(rng, dtype):
    x = rng.random((50, 60, 3)).astype(dtype)
    for kw in (dict(n_segments=900, convert2lab=False), dict(n_segments=40, compactness=100)):
        want, got = both("slic", x, **kw)
        same(got, want)


@pytest.mark.parametrize("shape, channel_axis", [((40, 50, 3), -1), ((3, 40, 50), 0), ((40, 3, 50), 1),
                                                 ((40, 50), None), ((10, 30, 40), None)])
@pytest.mark.parametrize("slic_zero", [False, True])
def test_slic_mask(rng, shape, channel_axis, slic_zero):
    x = smooth_image(rng, shape)
    spatial = tuple(s for i, s in enumerate(shape) if channel_axis is None or i != channel_axis % len(shape))
    mask = np.zeros(spatial, bool)
    mask[tuple(slice(2, n - 3) for n in spatial)] = True
    mask[tuple(slice(n // 3, n // 2) for n in spatial)] = False
    want, got = both("slic", x, n_segments=12, mask=mask, channel_axis=channel_axis, slic_zero=slic_zero,
                     compactness=1, start_label=1)
    same(got, want)
    want, got = both("slic", x, n_segments=12, mask=mask, channel_axis=channel_axis, start_label=0)
    same(got, want)


def test_slic_float16_and_list_input(rng):
    x = smooth_image(rng, (30, 40, 3)).astype(np.float16)
    want, got = both("slic", x, n_segments=20)
    same(got, want)
    same(fs.slic(x.astype(np.float64).tolist(), n_segments=20, convert2lab=False),
         sks.slic(x.astype(np.float64), n_segments=20, convert2lab=False))   # lists too (scikit-image: arrays)


def test_slic_2d_spacing_sigma_of_three(rng):
    x = smooth_image(rng, (30, 40))
    want, got = both("slic", x, n_segments=10, channel_axis=None, spacing=[1, 1, 2], sigma=[1, 1, 1])
    same(got, want)
    with pytest.warns(FutureWarning):
        fs.slic(x, n_segments=10, channel_axis=None, spacing=[1, 1, 2])


def _raises_like(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            getattr(sks, fn)(*args, **kw)
        with pytest.raises(type(want.value)) as got:
            getattr(fs, fn)(*args, **kw)
    assert str(got.value) == str(want.value)


def test_slic_bad_input(rng):
    x = rng.random((20, 24, 3))
    g = x[..., 0]
    _raises_like("slic", g)   # 2-D with a channel axis
    _raises_like("slic", x, start_label=2)
    _raises_like("slic", x[..., :2], convert2lab=True)
    _raises_like("slic", np.full((8, 8), np.nan), channel_axis=None)
    _raises_like("slic", np.full((8, 8), np.inf), channel_axis=None)
    _raises_like("slic", x, spacing=[1, 2, 3, 4])
    _raises_like("slic", rng.random((6, 8, 9)), channel_axis=None, spacing=[1, 2])
    _raises_like("slic", x, spacing=3)
    _raises_like("slic", rng.random((6, 8, 9)), channel_axis=None, sigma=[1, 2])
    _raises_like("slic", g, channel_axis=None, sigma=[1, -1])
    _raises_like("slic", g, channel_axis=None, mask=np.zeros((4, 4), bool)[None].repeat(2, 0))
    _raises_like("slic", x, mask=np.zeros((20, 24), bool))   # nothing unmasked
    _raises_like("slic", x, channel_axis=(0, 1))


# ---- felzenszwalb --------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8])
@pytest.mark.parametrize("shape", [(40, 50), (40, 50, 3), (30, 36, 1)])
@pytest.mark.parametrize("kw", [dict(), dict(scale=100, sigma=0.5, min_size=5), dict(scale=10, sigma=0, min_size=1)])
def test_felzenszwalb_equal(rng, shape, dtype, kw):
    x = rng.random(shape)
    x = (x * 255).astype(dtype) if dtype == np.uint8 else x.astype(dtype)
    want, got = both("felzenszwalb", x, **kw)
    same(got, want)


@pytest.mark.parametrize("levels", [4, 16])
def test_felzenszwalb_ties(rng, levels):
    """Few grey levels, no smoothing: many equal edge weights, taken in NumPy's argsort order as there."""
    for shape in ((30, 40), (24, 30, 3)):
        x = rng.integers(0, levels, shape).astype(np.uint8)
        for kw in (dict(sigma=0, scale=50, min_size=5), dict(sigma=0, scale=300, min_size=20)):
            want, got = both("felzenszwalb", x, **kw)
            same(got, want)


def test_felzenszwalb_c_order(rng):
    """The C kernel's own stable sort (order None) on tie-free weights equals scikit-image."""
    from fovea import _fovea
    x = rng.random((30, 40, 3))
    smooth = np.ascontiguousarray(sndi.gaussian_filter(x, [0.8, 0.8, 0], mode="reflect"))
    got = np.asarray(_fovea.segmentation_felzenszwalb(smooth, None, 100.0, 10))
    same(got, sks.felzenszwalb(x, scale=100, min_size=10))
    with pytest.raises(ValueError, match="edges"):
        _fovea.segmentation_felzenszwalb(smooth, np.arange(5, dtype=np.int64), 1.0, 1)
    bad = np.full(30 * 39 + 29 * (40 + 2 * 39), 10**9, dtype=np.int64)
    with pytest.raises(ValueError, match="edge index"):
        _fovea.segmentation_felzenszwalb(smooth, bad, 1.0, 1)


def test_felzenszwalb_channel_axis_and_warning(rng):
    x = rng.random((3, 30, 40))
    want, got = both("felzenszwalb", x, channel_axis=0, scale=50)
    same(got, want)
    want, got = both("felzenszwalb", rng.random((30, 40)), channel_axis=None)
    same(got, want)
    x4 = rng.random((20, 24, 4))
    with pytest.warns(RuntimeWarning, match="third dimension of 4"):
        got = fs.felzenszwalb(x4)
    same(got, both("felzenszwalb", x4)[0])
    want, got = both("felzenszwalb", smooth_image(rng, (40, 50, 3), np.uint8), scale=500, min_size=30)
    same(got, want)
    _raises_like("felzenszwalb", rng.random((5, 6, 7)), channel_axis=None)
    _raises_like("felzenszwalb", rng.random((20, 24)), sigma=-1)


# ---- quickshift ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8])
@pytest.mark.parametrize("kw", [dict(), dict(convert2lab=False, kernel_size=2), dict(kernel_size=2, max_dist=5,
                                ratio=0.5, sigma=1), dict(rng=7, convert2lab=False, max_dist=3)])
def test_quickshift_equal(rng, dtype, kw):
    x = rng.random((28, 34, 3))
    x = (x * 255).astype(dtype) if dtype == np.uint8 else x.astype(dtype)
    want, got = both("quickshift", x, **kw)
    same(got, want)


def test_quickshift_tree_channel_axis_gray(rng):
    x = rng.random((24, 30, 3))
    want, got = both("quickshift", x, return_tree=True, convert2lab=False, kernel_size=2)
    assert len(got) == 3
    for g, w in zip(got, want):
        same(g, np.asarray(w))
    want, got = both("quickshift", np.moveaxis(x, -1, 0), channel_axis=0, kernel_size=2)
    same(got, want)
    want, got = both("quickshift", rng.random((24, 30)), convert2lab=False, kernel_size=1.5, max_dist=2)
    same(got, want)
    _raises_like("quickshift", x, kernel_size=0.5)
    _raises_like("quickshift", x[..., :2])
    _raises_like("quickshift", rng.random((4, 5, 6, 3)))
    _raises_like("quickshift", x, rng=np.random.default_rng(0), kernel_size=1)
    want, got = both("quickshift", x, rng=np.int64(3) + 0.5, kernel_size=1)   # Cython's int(): truncated
    same(got, want)


# ---- active_contour ------------------------------------------------------------

def _circle_image():
    yy, xx = np.mgrid[:80, :80]
    r = np.hypot(yy - 38, xx - 42)
    return sndi.gaussian_filter((np.abs(r - 20) < 1).astype(float), 2)


@pytest.mark.parametrize("bc", ["periodic", "free", "fixed", "free-fixed", "fixed-free"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_active_contour_equal(bc, dtype):
    img = _circle_image().astype(dtype)
    s = np.linspace(0, 2 * np.pi, 60)
    init = 30 * np.array([np.sin(s), np.cos(s)]).T + 40
    want, got = both("active_contour", img, init, w_edge=0, w_line=1, boundary_condition=bc, max_num_iter=150)
    same(got, want)


def test_active_contour_rgb_and_errors(rng):
    rgb = rng.random((40, 40, 3))
    s = np.linspace(0, 2 * np.pi, 30)
    init = 10 * np.array([np.sin(s), np.cos(s)]).T + 20
    want, got = both("active_contour", rgb, init, max_num_iter=40)
    same(got, want)
    _raises_like("active_contour", rgb, init, max_num_iter=0)
    _raises_like("active_contour", rgb, init, boundary_condition="wrong")


# ---- CUDA data (skipped without a GPU) ------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("shape, kw", SLIC_CASES + [((256, 320, 3), dict(n_segments=400, compactness=5))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gpu_slic_agrees(gpu, rng, shape, kw, dtype):
    x = smooth_image(rng, shape, dtype)
    kw = dict(kw)
    kw.setdefault("n_segments", 30)
    want = sks.slic(x, **kw)
    got = gpu.get(fs.slic(gpu.put(x), **kw))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert (got == want).mean() > 0.99
    assert len(np.unique(got)) == len(np.unique(want))


@pytest.mark.gpu
def test_gpu_slic_mask_and_first_iteration(gpu, rng):
    x = smooth_image(rng, (60, 70, 3))
    mask = np.zeros((60, 70), bool)
    mask[5:55, 8:60] = True
    want = sks.slic(x, n_segments=20, mask=mask, compactness=1)
    got = gpu.get(fs.slic(gpu.put(x), n_segments=20, mask=gpu.put(mask), compactness=1))
    assert (got == want).mean() > 0.99 and len(np.unique(got)) == len(np.unique(want))
    # one iteration: no centre update used yet, the assignment is the CPU's, exactly
    for dtype in (np.float64, np.float32):
        xd = x.astype(dtype)
        kw = dict(n_segments=50, max_num_iter=1, convert2lab=False, compactness=0.5)
        same(gpu.get(fs.slic(gpu.put(xd), **kw)), sks.slic(xd, **kw))
        kw = dict(n_segments=50, max_num_iter=1, channel_axis=None, slic_zero=True, enforce_connectivity=False)
        same(gpu.get(fs.slic(gpu.put(xd[..., 0]), **kw)), sks.slic(xd[..., 0], **kw))


@pytest.mark.gpu
def test_gpu_host_round_trips(gpu, rng):
    x = rng.random((30, 36, 3))
    same(gpu.get(fs.felzenszwalb(gpu.put(x), scale=50)), sks.felzenszwalb(x, scale=50))
    same(gpu.get(fs.quickshift(gpu.put(x), kernel_size=2)), sks.quickshift(x, kernel_size=2))
    img = _circle_image()
    s = np.linspace(0, 2 * np.pi, 40)
    init = 30 * np.array([np.sin(s), np.cos(s)]).T + 40
    same(gpu.get(fs.active_contour(gpu.put(img), init, max_num_iter=30)),
         sks.active_contour(img, init, max_num_iter=30))
