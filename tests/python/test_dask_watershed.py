"""fovea.dask.watershed: chunked watershed against fovea.skimage.segmentation.watershed
on the whole array (which equals scikit-image's), on random chunkings. Certified
pixels must always equal the whole-array labels; results the certificate calls exact
must be equal everywhere; the rest is checked for a high agreement."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import fovea.dask as fd  # noqa: E402
import fovea.dask._watershed as W  # noqa: E402
import fovea.ndimage as fndi  # noqa: E402
from fovea.skimage.segmentation import watershed  # noqa: E402

SYNC = {"scheduler": "synchronous"}


def smooth(rng, shape, sigma):
    return fndi.gaussian_filter(rng.random(shape), sigma)


def minima_markers(img):
    return fndi.label(img == fndi.minimum_filter(img, 3))[0].astype(np.int32)


def random_markers(rng, shape, n):
    mk = np.zeros(shape, np.int32)
    mk[tuple(rng.integers(0, s, n) for s in shape)] = np.arange(1, n + 1)
    return mk


def chunked(x, rng):
    return tuple(int(rng.integers(max(4, s // 4), max(5, s // 2))) for s in x.shape)


def run(img, mk, chunks, **kw):
    lab, info = fd.watershed(da.from_array(img, chunks=chunks), da.from_array(mk, chunks=chunks),
                             return_info=True, **kw)
    return lab.compute(**SYNC), info


@pytest.mark.parametrize("lines", [False, True])
def test_margin_over_the_whole_array_is_exact(rng, lines):
    img = smooth(rng, (40, 50), 2)
    mk = random_markers(rng, img.shape, 12)
    want = watershed(img, mk, watershed_line=lines)
    got, info = run(img, mk, (13, 17), depth=50, watershed_line=lines)
    assert info["exact"] and info["rounds"] == 0
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_separated_objects_are_certified_exact(rng):
    # nuclei-like: disjoint blobs, one marker each, the mask their union; every blob
    # is smaller than the margin, so each chunk's flood is certified
    shape = (90, 110)
    yy, xx = np.mgrid[:shape[0], :shape[1]]
    mask = np.zeros(shape, bool)
    for cy, cx in zip(range(8, 90, 18), range(8, 110, 21)):
        for dy in (0, 36, 72):
            mask |= (yy - (cy + dy) % 90) ** 2 + (xx - cx) ** 2 < 36
    dist = fndi.distance_transform_edt(mask)
    img = -dist + rng.random(shape) * 1e-3
    mk = fndi.label(mask & (dist == fndi.maximum_filter(dist, 5)))[0].astype(np.int32)
    want = watershed(img, mk, mask=mask)
    for ch in ((30, 30), (23, 41)):
        got, info = run(img, mk, ch, mask=mask, depth=16)
        assert info["exact"], info["uncertain"]
        np.testing.assert_array_equal(got, want)


CASES = [
    dict(shape=(70, 80), sigma=3.0, markers="minima"),
    dict(shape=(70, 80), sigma=2.0, markers="random", watershed_line=True),
    dict(shape=(60, 70), sigma=2.5, markers="random", connectivity=2, mask=True),
    dict(shape=(20, 24, 26), sigma=1.5, markers="minima"),
    dict(shape=(64, 64), sigma=2.0, markers="minima", dtype="uint8"),
]


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_random_chunkings_agree(rng, case):
    case = dict(case)
    shape, sigma, kind = case.pop("shape"), case.pop("sigma"), case.pop("markers")
    img = smooth(rng, shape, sigma)
    if case.pop("dtype", None) == "uint8":
        img = (img * 400 % 256).astype(np.uint8)
    mk = minima_markers(img) if kind == "minima" else random_markers(rng, shape, 15)
    if case.pop("mask", False):
        case["mask"] = img > np.quantile(img, 0.2)
    want = watershed(img, mk, **case)
    for _ in range(2):
        got, info = run(img, mk, chunked(img, rng), **case)
        if info["exact"]:
            np.testing.assert_array_equal(got, want)
        assert (got == want).mean() >= 0.97


@pytest.mark.parametrize("lines", [False, True])
def test_certified_pixels_equal_whole_array(rng, lines):
    # the certificate itself on random sub-boxes: a pixel it certifies is never wrong
    checked = 0
    for it in range(12):
        nd = 2 if it % 3 else 3
        shape = tuple(rng.integers(24, 60, nd)) if nd == 2 else tuple(rng.integers(10, 18, nd))
        img = smooth(rng, shape, rng.uniform(1.0, 3.0))
        if it % 4 == 3:
            img = (img * 300 % 256).astype(np.uint8)
        mk = minima_markers(img) if it % 2 else random_markers(rng, shape, 10)
        m = img > np.quantile(img, 0.3) if it % 5 == 1 else np.ones(shape, bool)
        fp, _ = W._footprint(1 if lines else int(rng.integers(1, nd + 1)), nd)
        want = watershed(img, mk, connectivity=fp, mask=m, watershed_line=lines)
        for _ in range(3):
            e = [(int(rng.integers(0, n // 3)), n - int(rng.integers(0, n // 3))) for n in shape]
            e2 = [(max(0, a - 1), min(n, b + 1)) for (a, b), n in zip(e, shape)]
            big = tuple(slice(a, b) for a, b in e2)
            e_sl = tuple(slice(a - a2, b - a2) for (a, b), (a2, _) in zip(e, e2))
            in_e = np.zeros(img[big].shape, bool)
            in_e[e_sl] = True
            whole_e = tuple(slice(0, b - a) for a, b in e)
            lab = W._ws_block(img[big], mk[big], m[big], (slice(None),) * nd, e_sl, whole_e, fp, fp, lines, "labels")
            un = W._uncertain(img[big], (mk[big] != 0) & m[big], m[big], in_e, e_sl, fp, lines)
            ref = want[tuple(slice(a, b) for a, b in e)]
            assert not ((lab != ref) & ~un).any()
            checked += int((~un).sum())
    assert checked > 1000


def test_until_exact_and_numpy_inputs(rng):
    img = smooth(rng, (48, 56), 2.5)
    mk = minima_markers(img)
    want = watershed(img, mk)
    lab, info = fd.watershed(img, mk, depth=4, until="exact", return_info=True)   # one chunk
    assert info["exact"]
    np.testing.assert_array_equal(lab.compute(**SYNC), want)
    lab, info = fd.watershed(da.from_array(img, chunks=12), mk, depth=3, until="exact", max_rounds=6,
                             return_info=True)
    assert info["exact"]
    np.testing.assert_array_equal(lab.compute(**SYNC), want)
    lab = fd.watershed(da.from_array(img, chunks=16), mk.astype(bool))
    assert lab.dtype == np.bool_


def test_1d_and_mask_chunked_differently(rng):
    x = np.cumsum(rng.normal(size=300))
    mk = np.zeros(300, np.int32)
    mk[[10, 100, 200, 290]] = [1, 2, 3, 4]
    lab, info = fd.watershed(da.from_array(x, chunks=40), mk, return_info=True)
    if info["exact"]:
        np.testing.assert_array_equal(lab.compute(**SYNC), watershed(x, mk))
    img = smooth(rng, (40, 44), 2.0)
    mk2 = minima_markers(img)
    m = img < np.quantile(img, 0.8)
    got, info = run(img, mk2, (10, 11), mask=da.from_array(m, chunks=(13, 7)))
    want = watershed(img, mk2, mask=m)
    assert not got[~m].any()
    if info["exact"]:
        np.testing.assert_array_equal(got, want)
    assert (got == want).mean() >= 0.97


def test_errors():
    img = da.zeros((20, 20), chunks=10)
    mk = np.zeros((20, 20), np.int32)
    with pytest.raises(ValueError, match="labelled array"):
        fd.watershed(img)
    with pytest.raises(ValueError, match="labelled array"):
        fd.watershed(img, 5)
    with pytest.raises(ValueError, match="compactness"):
        fd.watershed(img, mk, compactness=0.1)
    with pytest.raises(ValueError, match="offset"):
        fd.watershed(img, mk, offset=(1, 1))
    with pytest.raises(ValueError, match="same shape"):
        fd.watershed(img, np.zeros((20, 21), np.int32))
    with pytest.raises(ValueError, match="same shape"):
        fd.watershed(img, mk, mask=np.ones((3, 3), bool))
    with pytest.raises(TypeError, match="integers or bools"):
        fd.watershed(img, mk.astype(np.float32))
    with pytest.raises(ValueError, match="point-symmetric"):
        fd.watershed(img, mk, connectivity=np.array([[0, 1, 0], [1, 1, 0], [0, 0, 0]], bool))
    with pytest.raises(ValueError, match="until"):
        fd.watershed(img, mk, until="never")
