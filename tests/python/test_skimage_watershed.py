"""fovea.skimage.segmentation.watershed against scikit-image 0.26.

Host data (NumPy): labels must EQUAL skimage's (values and dtype), plateaus
and ties of integer images included, for every markers form, connectivity,
footprint, offset, mask, compactness and watershed line.

CUDA data (CuPy; skipped without a GPU): the GPU kernel's guarantee
(include/fovea/segmentation.h) is tested as stated: exact equality on images
without ties, and on images with plateaus a valid watershed (every pixel that
a seed reaches is labelled, with the label of a seed it reaches at the lowest
possible flood level through pixels of that label). The compact watershed and
watershed lines run on the host for CUDA data and must equal skimage."""

import heapq
import itertools

import numpy as np
import pytest
import scipy.ndimage as sndi
from skimage import segmentation as sks
from skimage.feature import peak_local_max

from fovea import _fovea
from fovea.skimage import segmentation as fs
from xpcase import CupyCase, xp_fixture  # noqa: E402 (tests/python/xpcase.py)


xp = xp_fixture()


@pytest.fixture
def gpu(cp):
    return CupyCase(cp)


def same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


# ---- inputs -----------------------------------------------------------------

def plateau_image(rng, shape, levels, dtype):
    """Smoothed noise quantised to a few levels: wide plateaus and many ties."""
    x = sndi.gaussian_filter(rng.random(shape), 1.5)
    x = (x - x.min()) / (np.ptp(x) + 1e-12)
    q = np.floor(x * (levels - 0.001)).astype(np.int64)
    if np.dtype(dtype).kind == "f":
        return (q * 0.5).astype(dtype)
    return (q * 3).astype(dtype)


def random_markers(rng, shape, k, dtype=np.int32, negative=False):
    m = np.zeros(shape, dtype)
    pos = rng.choice(int(np.prod(shape)), size=k, replace=False)
    lo = -3 if negative else 1
    vals = rng.integers(lo, 7, size=k)
    vals[vals == 0] = 1
    m.flat[pos] = vals.astype(dtype)
    return m


def blobs(rng, shape, n):
    """Touching discs / balls and the distance transform inside them."""
    grid = np.indices(shape)
    img = np.zeros(shape, bool)
    for _ in range(n):
        c = [rng.uniform(0.2 * s, 0.8 * s) for s in shape]
        r = rng.uniform(0.12, 0.22) * min(shape)
        img |= sum((g - cc) ** 2 for g, cc in zip(grid, c)) < r * r
    return img, sndi.distance_transform_edt(img)


def peak_markers(dist, img):
    coords = peak_local_max(dist, labels=img.astype(int), footprint=np.ones((3,) * img.ndim), exclude_border=False)
    peaks = np.zeros(img.shape, bool)
    peaks[tuple(coords.T)] = True
    return sndi.label(peaks)[0]


# ---- the CPU: exactly skimage -------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "float32", "float64"])
@pytest.mark.parametrize("shape", [(40, 37), (11, 13, 9)])
@pytest.mark.parametrize("use_mask", [False, True])
def test_plateaus_exact(rng, dtype, shape, use_mask):
    img = plateau_image(rng, shape, 5, dtype)
    mask = rng.random(shape) > 0.15 if use_mask else None
    for conn in range(1, len(shape) + 1):
        markers = random_markers(rng, shape, 9, negative=True)
        want = sks.watershed(img, markers, connectivity=conn, mask=mask)
        same(fs.watershed(img, markers, connectivity=conn, mask=mask), want)


@pytest.mark.parametrize("shape", [(220, 190), (30, 28, 26)])
def test_tie_free_exact(rng, shape):
    """Continuous values, seeds of distinct values (fovea's faster queue)."""
    img = sndi.gaussian_filter(rng.random(shape), 1.0)
    mask = rng.random(shape) > 0.1
    for conn in (1, len(shape)):
        markers = random_markers(rng, shape, 300, negative=True)
        for kw in (dict(), dict(mask=mask)):
            same(fs.watershed(img, markers, connectivity=conn, **kw),
                 sks.watershed(img, markers, connectivity=conn, **kw))


def test_random_small_exact(rng):
    """Many small cases: ties everywhere (2 levels), seeds of equal value."""
    for t in range(500):
        nd = 1 + (t % 7 != 0) + (t % 4 == 0)
        shape = tuple(int(s) for s in rng.integers(2, 14 if nd < 3 else 8, nd))
        img = rng.integers(0, 2 + t % 3, shape).astype(np.uint8)
        markers = random_markers(rng, shape, int(rng.integers(1, min(6, img.size) + 1)))
        mask = rng.random(shape) > 0.2 if t % 2 else None
        kw = dict(connectivity=int(rng.integers(1, nd + 1)), mask=mask,
                  compactness=[0, 0, 0.3][t % 3], watershed_line=t % 5 == 0)
        same(fs.watershed(img, markers, **kw), sks.watershed(img, markers, **kw))


@pytest.mark.parametrize("mdtype", ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_marker_dtypes(rng, mdtype):
    img = plateau_image(rng, (30, 31), 4, "uint8")
    markers = random_markers(rng, img.shape, 6, dtype=np.int64) % 5
    markers = markers.astype(mdtype)
    if mdtype == "uint64":
        markers[markers == 3] = np.uint64(2**63 + 5)   # labels are copied, never computed with
    same(fs.watershed(img, markers), sks.watershed(img, markers))


@pytest.mark.parametrize("shape", [(33, 29), (9, 10, 11)])
@pytest.mark.parametrize("use_mask", [False, True])
def test_markers_none_and_int(rng, shape, use_mask):
    mask = rng.random(shape) > 0.3 if use_mask else None
    img = plateau_image(rng, shape, 6, "float64")
    for conn in range(1, len(shape) + 1):
        same(fs.watershed(img, connectivity=conn, mask=mask), sks.watershed(img, connectivity=conn, mask=mask))
    img2 = sndi.gaussian_filter(rng.random(shape), 1)
    same(fs.watershed(img2, mask=mask), sks.watershed(img2, mask=mask))
    for k in (1, 5, 17, 10**6, np.int64(9), 7.6):
        same(fs.watershed(img, k, mask=mask), sks.watershed(img, k, mask=mask))


@pytest.mark.parametrize("case", ["corners", "disk5", "ring", "even_offset", "line_offset", "3d"])
def test_footprints_and_offset(rng, case):
    if case == "3d":
        shape = (12, 11, 10)
        fp = np.zeros((3, 3, 3), bool)
        fp[1, 1, :] = fp[1, :, 1] = fp[0, 0, 0] = fp[2, 2, 2] = True
        offset = None
    else:
        shape = (35, 33)
        offset = None
        if case == "corners":
            fp = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]], bool)
        elif case == "disk5":
            fp = np.add.outer(np.arange(-2, 3) ** 2, np.arange(-2, 3) ** 2) <= 4
        elif case == "ring":   # centre not in the footprint: skimage drops the nearest offset
            fp = np.ones((3, 3), bool)
            fp[1, 1] = False
        elif case == "even_offset":
            fp = np.ones((2, 2), bool)
            offset = (1, 1)
        else:
            fp = np.ones((1, 3), bool)
            offset = (0, 1)
    img = plateau_image(rng, shape, 5, "uint8")
    markers = random_markers(rng, shape, 8)
    kw = dict(connectivity=fp, offset=offset)
    same(fs.watershed(img, markers, **kw), sks.watershed(img, markers, **kw))
    kw["watershed_line"] = True
    same(fs.watershed(img, markers, **kw), sks.watershed(img, markers, **kw))


def test_footprint_wider_than_padded_image(rng):
    """An origin at the footprint's edge: skimage's raveled offsets wrap into
    the next row and duplicates are dropped; the mask keeps skimage in bounds."""
    fp = np.ones((1, 5), bool)
    mask = np.zeros((4, 2), bool)
    mask[0] = mask[1, 0] = True
    for t in range(20):
        img = rng.integers(0, 3, (4, 2)).astype(float)
        mk = np.zeros((4, 2), np.int32)
        mk[0, 0], mk[0, 1] = 1, 2 * (t % 2)
        kw = dict(connectivity=fp, offset=(0, 0), mask=mask)
        same(fs.watershed(img, mk, **kw), sks.watershed(img, mk, **kw))


@pytest.mark.parametrize("compactness", [0.001, 0.1, 1.0, 50.0])
@pytest.mark.parametrize("shape", [(41, 38), (10, 12, 9)])
def test_compactness(rng, compactness, shape):
    img = sndi.gaussian_filter(rng.random(shape), 1)
    markers = random_markers(rng, shape, 7)
    mask = rng.random(shape) > 0.1
    for kw in (dict(), dict(mask=mask), dict(watershed_line=True), dict(connectivity=2, mask=mask)):
        same(fs.watershed(img, markers, compactness=compactness, **kw),
             sks.watershed(img, markers, compactness=compactness, **kw))
    q = plateau_image(rng, shape, 4, "uint16")
    same(fs.watershed(q, markers, compactness=compactness), sks.watershed(q, markers, compactness=compactness))


@pytest.mark.parametrize("shape", [(64, 70), (24, 26, 22)])
def test_nuclei_split(rng, shape):
    """The classic split of touching nuclei: -distance from peak markers."""
    img, dist = blobs(rng, shape, 6)
    markers = peak_markers(dist, img)
    for kw in (dict(mask=img), dict(mask=img, watershed_line=True), dict(mask=img, connectivity=img.ndim),
               dict(mask=img, compactness=0.5)):
        want = sks.watershed(-dist, markers, **kw)
        same(fs.watershed(-dist, markers, **kw), want)


def test_offset_and_inputs(rng):
    img = plateau_image(rng, (20, 21), 4, "uint8")
    markers = random_markers(rng, img.shape, 5)
    same(fs.watershed(img, markers, offset=(1, 1)), sks.watershed(img, markers, offset=(1, 1)))
    for conn in (0, 3, 1.5):   # scipy's generate_binary_structure clamps these
        same(fs.watershed(img, markers, connectivity=conn), sks.watershed(img, markers, connectivity=conn))
    same(fs.watershed(img.tolist(), markers.tolist()), sks.watershed(img, np.asarray(markers.tolist())))
    one = np.array([3.0, 1, 2, 2, 0, 5, 4, 4, 1])
    m1 = np.array([1, 0, 0, 0, 0, 0, 0, 0, 2])
    same(fs.watershed(one, m1), sks.watershed(one, m1))
    same(fs.watershed(img.astype(bool), markers), sks.watershed(img.astype(bool), markers))
    same(fs.watershed(img.astype(np.float16), markers), sks.watershed(img.astype(np.float16), markers))
    # in-place safety: the inputs are not modified
    before = markers.copy()
    fs.watershed(img, markers, watershed_line=True)
    np.testing.assert_array_equal(markers, before)
    # nothing to flood
    z = np.zeros(img.shape, np.int32)
    same(fs.watershed(img, z), sks.watershed(img, z))
    same(fs.watershed(np.zeros((0, 4)), np.zeros((0, 4), np.int32)), np.zeros((0, 4), np.int32))


def test_nonfinite_values(rng):
    """inf and NaN pixels: the CPU follows skimage's float comparisons exactly."""
    img = sndi.gaussian_filter(rng.random((30, 32)), 1)
    img.flat[rng.choice(img.size, 20, replace=False)] = np.inf
    img.flat[rng.choice(img.size, 5, replace=False)] = -np.inf
    markers = random_markers(rng, img.shape, 6)
    for kw in (dict(), dict(watershed_line=True), dict(compactness=0.2)):
        same(fs.watershed(img, markers, **kw), sks.watershed(img, markers, **kw))
    img.flat[rng.choice(img.size, 10, replace=False)] = np.nan
    for kw in (dict(), dict(watershed_line=True), dict(compactness=0.2)):
        same(fs.watershed(img, markers, **kw), sks.watershed(img, markers, **kw))


def test_bad_input():
    img = np.zeros((8, 9))
    mk = np.zeros((8, 9), np.int32)
    mk[0, 0] = 1
    with pytest.raises(ValueError, match="markers"):
        fs.watershed(img, np.zeros((8, 8), np.int32))
    with pytest.raises(ValueError, match="mask"):
        fs.watershed(img, mk, mask=np.ones((9, 8), bool))
    with pytest.raises(ValueError, match="dimension"):
        fs.watershed(img, mk, connectivity=np.ones((3, 3, 3), bool))
    with pytest.raises(ValueError, match="center"):
        fs.watershed(img, mk, connectivity=np.ones((2, 3), bool))
    with pytest.raises(ValueError, match="offset"):
        fs.watershed(img, mk, offset=(1, 1, 1))
    with pytest.raises(ValueError, match="offset"):
        fs.watershed(img, mk, offset=(-1, 1))
    with pytest.raises(TypeError, match="complex"):
        fs.watershed(img.astype(np.complex128), mk)
    with pytest.raises(TypeError, match="markers"):
        fs.watershed(img, mk.astype(np.float64))
    with pytest.raises(TypeError, match="markers"):
        fs.watershed(img, "seeds")
    with pytest.raises(ValueError, match="NaN"):
        fs.watershed(img, mk, compactness=float("nan"))


# ---- the GPU: its stated guarantee ---------------------------------------------

def _neighbours(shape, conn):
    offs = [o for o in itertools.product((-1, 0, 1), repeat=len(shape)) if 0 < sum(map(abs, o)) <= conn]
    return offs


def _minimax(img, seeds, allowed, conn):
    """Lowest flood level at which each allowed pixel is reached from `seeds`
    (a seed's level is its own value); inf where unreachable."""
    shape = img.shape
    offs = _neighbours(shape, conn)
    level = np.full(shape, np.inf)
    heap = []
    for p in zip(*np.nonzero(seeds & allowed)):
        level[p] = img[p]
        heap.append((img[p], p))
    heapq.heapify(heap)
    while heap:
        c, p = heapq.heappop(heap)
        if c > level[p]:
            continue
        for o in offs:
            q = tuple(a + b for a, b in zip(p, o))
            if all(0 <= x < s for x, s in zip(q, shape)) and allowed[q] and not seeds[q]:
                cq = max(c, img[q])
                if cq < level[q]:
                    level[q] = cq
                    heapq.heappush(heap, (cq, q))
    return level


def check_valid_watershed(img, markers, mask, conn, labels):
    img = img.astype(np.float64)
    inside = np.ones(img.shape, bool) if mask is None else mask.astype(bool)
    seeds = (markers != 0) & inside
    level = _minimax(img, seeds, inside, conn)
    reached = np.isfinite(level)
    np.testing.assert_array_equal(labels != 0, reached)           # everything reachable, nothing else
    np.testing.assert_array_equal(labels[seeds], markers[seeds])  # seeds keep their labels
    for lab in np.unique(labels[labels != 0]):
        own = labels == lab
        lv = _minimax(img, seeds & (markers == lab), own, conn)
        np.testing.assert_array_equal(lv[own], level[own])        # reached at the lowest level


@pytest.mark.parametrize("dtype", ["uint8", "float64"])
@pytest.mark.parametrize("shape", [(30, 33), (9, 10, 8)])
def test_valid_watershed_property(xp, rng, dtype, shape):
    """The property the GPU guarantees; the CPU (skimage's flood) has it too."""
    img = plateau_image(rng, shape, 4, dtype)
    mask = rng.random(shape) > 0.2
    for conn in (1, len(shape)):
        markers = random_markers(rng, shape, 7)
        got = xp.get(fs.watershed(xp.put(img), xp.put(markers), connectivity=conn, mask=xp.put(mask)))
        assert got.dtype == markers.dtype
        check_valid_watershed(img, markers, mask, conn, got)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(50, 47), (13, 11, 12)])
def test_gpu_tie_free_equal(gpu, rng, shape):
    img = rng.random(shape)   # continuous values: no ties
    for conn in range(1, len(shape) + 1):
        for mask in (None, rng.random(shape) > 0.2):
            markers = random_markers(rng, shape, 9, negative=True)
            want = sks.watershed(img, markers, connectivity=conn, mask=mask)
            same(gpu.get(fs.watershed(gpu.put(img), gpu.put(markers), connectivity=conn, mask=gpu.put(mask))), want)
    img_inf = img.copy()
    img_inf.flat[img.size // 2] = np.inf   # one infinite pixel is still reached (and tie-free)
    markers = random_markers(rng, shape, 6)
    same(gpu.get(fs.watershed(gpu.put(img_inf), gpu.put(markers))), sks.watershed(img_inf, markers))
    img32 = img.astype(np.float32)
    markers = random_markers(rng, shape, 5, dtype=np.uint16)
    same(gpu.get(fs.watershed(gpu.put(img32), gpu.put(markers))), sks.watershed(img32, markers))


@pytest.mark.gpu
def test_gpu_nuclei_and_host_variants(gpu, rng):
    img, dist = blobs(rng, (96, 90), 7)
    dist = dist + rng.random(dist.shape) * 1e-6   # break the distance transform's ties
    markers = peak_markers(dist, img)
    same(gpu.get(fs.watershed(gpu.put(-dist), gpu.put(markers), mask=gpu.put(img))),
         sks.watershed(-dist, markers, mask=img))
    for kw in (dict(compactness=0.3), dict(watershed_line=True)):   # host path for CUDA data
        same(gpu.get(fs.watershed(gpu.put(-dist), gpu.put(markers), mask=gpu.put(img), **kw)),
             sks.watershed(-dist, markers, mask=img, **kw))
    q = plateau_image(rng, (40, 41), 5, "uint8")
    got = gpu.get(fs.watershed(gpu.put(q)))   # markers from the local minima, on the GPU
    check_valid_watershed(q, _minima_labels(q), None, 1, got)


@pytest.mark.gpu
def test_gpu_tiled_equals_jacobi(gpu, rng):
    """The GPU's tiled relaxation (2- and 3-d footprints of reach 1) reaches the keys
    of its Jacobi rounds over the whole image (variant "jacobi" of "cuda.watershed",
    forced through _fovea._force_variant), so the labels are
    identical, plateaus included; across many tiles, with the demo's footprint (the
    cross of a 3 x 3 x 3 footprint's middle plane) among the others. Tie-free: skimage's."""
    cross = np.zeros((3, 3, 3), bool)
    cross[1] = [[0, 1, 0], [1, 1, 1], [0, 1, 0]]
    for shape, conn in [((4, 70, 75), cross), ((70, 75), 1), ((70, 75), 2), ((12, 20, 37), 1),
                        ((12, 20, 37), 3)]:
        for img in (plateau_image(rng, shape, 4, "uint8"), rng.random(shape)):
            mask = rng.random(shape) > 0.15
            markers = random_markers(rng, shape, 25)
            args = (gpu.put(img), gpu.put(markers))
            tiled = gpu.get(fs.watershed(*args, connectivity=conn, mask=gpu.put(mask)))
            assert _fovea._last_variant("cuda.watershed") == "tiled"
            _fovea._force_variant("cuda.watershed", "jacobi")
            try:
                same(gpu.get(fs.watershed(*args, connectivity=conn, mask=gpu.put(mask))), tiled)
                assert _fovea._last_variant("cuda.watershed") == "jacobi"
            finally:
                _fovea._force_variant("cuda.watershed", None)
            if img.dtype.kind == "f":
                same(tiled, sks.watershed(img, markers, connectivity=conn, mask=mask))


def _minima_labels(img):
    from skimage.morphology import local_minima
    return sndi.label(local_minima(img, connectivity=1))[0]
