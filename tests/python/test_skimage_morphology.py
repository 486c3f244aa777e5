"""fovea.skimage.morphology against scikit-image 0.26, exactly.

Every test runs on NumPy arrays and, where fovea sees a GPU and CuPy imports, on
CuPy arrays (the ``xp`` fixture); results must equal scikit-image's on the same
data, value for value and dtype for dtype.
"""

import warnings

import numpy as np
import pytest
import scipy.ndimage as sndi
from skimage import morphology as sk

from fovea.skimage import morphology as fm

from conftest import layouts, random_array
from xpcase import same, xp_fixture  # noqa: E402 (tests/python/xpcase.py)

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore:decomposition='sequence' is only supported:UserWarning"),
]


xp = xp_fixture()


def same_sequence(got, want):
    assert isinstance(got, tuple) == isinstance(want, tuple)
    assert len(got) == len(want)
    for (ga, gn), (wa, wn) in zip(got, want):
        same(ga, wa)
        assert gn == wn


def blobs(rng, shape, fraction=0.5, size=3):
    """A random binary image of smooth blobs (thinning and skeletons need shapes)."""
    noise = sndi.uniform_filter(rng.random(shape), size=size)
    return noise > np.quantile(noise, 1 - fraction)


# ---- footprints -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint8, np.float64, bool])
def test_footprint_generators(dtype):
    for r in range(0, 9):
        same(fm.diamond(r, dtype), sk.diamond(r, dtype))
        same(fm.disk(r, dtype), sk.disk(r, dtype))
        same(fm.disk(r, dtype, strict_radius=False), sk.disk(r, dtype, strict_radius=False))
    for r in (0, 1, 2, 3, 5, 2.5):
        same(fm.ball(r, dtype), sk.ball(r, dtype))
        same(fm.ball(r, dtype, strict_radius=False), sk.ball(r, dtype, strict_radius=False))
        same(fm.octahedron(r, dtype), sk.octahedron(r, dtype))
    for m in range(0, 9):
        for n in range(0, 9):
            if m or n:
                same(fm.octagon(m, n, dtype), sk.octagon(m, n, dtype))
    for a in range(1, 14):
        same(fm.star(a, dtype), sk.star(a, dtype))
    for w in range(0, 9):
        for h in range(0, 7):
            same(fm.ellipse(w, h, dtype), sk.ellipse(w, h, dtype))
    for shape in [(1,), (3, 5), (4, 4), (2, 3, 4), (3,) * 5]:
        same(fm.footprint_rectangle(shape, dtype=dtype), sk.footprint_rectangle(shape, dtype=dtype))


def test_footprint_deprecated_generators():
    with pytest.warns(FutureWarning, match="footprint_rectangle"):
        same(fm.square(4), sk.square(4))
    with pytest.warns(FutureWarning):
        same(fm.rectangle(3, 5), sk.rectangle(3, 5))
    with pytest.warns(FutureWarning):
        same(fm.cube(3), sk.cube(3))


def test_footprint_decompositions():
    for shape in [(3, 3), (5, 7), (9, 9), (3, 5, 7), (4, 5), (2, 2)]:
        for deco in ("separable", "sequence"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = fm.footprint_rectangle(shape, decomposition=deco)
                want = sk.footprint_rectangle(shape, decomposition=deco)
            same_sequence(got, want)
    for r in range(1, 8):
        same_sequence(fm.diamond(r, decomposition="sequence"), sk.diamond(r, decomposition="sequence"))
        same_sequence(fm.octahedron(r, decomposition="sequence"), sk.octahedron(r, decomposition="sequence"))
    for r in list(range(1, 30)) + [77, 160, 250]:
        same_sequence(fm.disk(r, decomposition="sequence"), sk.disk(r, decomposition="sequence"))
    for r in list(range(1, 20)) + [64, 100]:
        same_sequence(fm.ball(r, decomposition="sequence"), sk.ball(r, decomposition="sequence"))
    for r in range(1, 15):
        for strict in (True, False):
            same_sequence(
                fm.disk(r, strict_radius=strict, decomposition="crosses"),
                sk.disk(r, strict_radius=strict, decomposition="crosses"),
            )
    for w, h in [(1, 1), (3, 2), (5, 3), (8, 4), (2, 9)]:
        same_sequence(fm.ellipse(w, h, decomposition="crosses"), sk.ellipse(w, h, decomposition="crosses"))
    for m, n in [(1, 1), (2, 2), (0, 3), (3, 0), (5, 2), (4, 6), (7, 3)]:
        same_sequence(fm.octagon(m, n, decomposition="sequence"), sk.octagon(m, n, decomposition="sequence"))
    with pytest.raises(ValueError, match="radius > 250"):
        fm.disk(251, decomposition="sequence")
    with pytest.raises(ValueError, match="Unrecognized"):
        fm.diamond(2, decomposition="bogus")
    with pytest.raises(ValueError, match="both be zero"):
        fm.octagon(0, 0)


def test_footprint_from_sequence_and_helpers():
    seqs = [
        sk.disk(4, decomposition="sequence"),
        sk.ball(3, decomposition="sequence"),
        sk.footprint_rectangle((5, 7), decomposition="sequence"),
        sk.octagon(5, 2, decomposition="sequence"),
        sk.disk(5, decomposition="crosses"),
    ]
    for seq in seqs:
        same(fm.footprint_from_sequence(seq), sk.footprint_from_sequence(seq))
    fp = np.array([[0, 0], [1, 1], [1, 0]], np.uint8)
    same(fm.mirror_footprint(fp), sk.mirror_footprint(fp))
    for pad_end in (True, False):
        same(fm.pad_footprint(fp, pad_end=pad_end), sk.pad_footprint(fp, pad_end=pad_end))
    same_sequence(fm.mirror_footprint(((fp, 2),)), sk.mirror_footprint(((fp, 2),)))
    with pytest.raises(ValueError, match="2-tuple"):
        fm.mirror_footprint([(fp, 1.5)])


# ---- grayscale ------------------------------------------------------------------------------

GRAY = ["erosion", "dilation", "opening", "closing", "white_tophat", "black_tophat"]
GRAY_FOOTPRINTS = {
    "default": None,
    "disk2": sk.disk(2),
    "even": np.ones((2, 4), np.uint8),
    "asym": np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1]], np.uint8),
    "rect-seq": sk.footprint_rectangle((5, 5), decomposition="sequence"),
    "disk-seq": sk.disk(3, decomposition="sequence"),
    "diamond-seq": sk.diamond(2, decomposition="sequence"),
}


@pytest.mark.parametrize("func", GRAY)
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "float32", "float64", "bool"])
@pytest.mark.parametrize("fp", list(GRAY_FOOTPRINTS))
def test_gray_2d(xp, rng, func, dtype, fp):
    image = random_array(rng, (13, 16), dtype)
    footprint = GRAY_FOOTPRINTS[fp]
    want = getattr(sk, func)(image, footprint)
    got = getattr(fm, func)(xp.put(image), footprint)
    same(xp.get(got), want)


@pytest.mark.parametrize("func", GRAY)
@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap", "max", "min", "ignore"])
@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32"])
def test_gray_modes(xp, rng, func, mode, dtype):
    image = random_array(rng, (9, 12), dtype, lo=-50, hi=200)
    fp = np.array([[1, 1, 0], [0, 1, 1], [0, 1, 0]], np.uint8)
    want = getattr(sk, func)(image, fp, mode=mode, cval=7.0)
    got = getattr(fm, func)(xp.put(image), fp, mode=mode, cval=7.0)
    same(xp.get(got), want)


@pytest.mark.parametrize("func", GRAY)
@pytest.mark.parametrize("dtype", ["uint8", "float64", "bool"])
def test_gray_3d(xp, rng, func, dtype):
    image = random_array(rng, (6, 7, 8), dtype)
    for fp in (None, sk.ball(1), sk.footprint_rectangle((3, 3, 3), decomposition="separable")):
        same(xp.get(getattr(fm, func)(xp.put(image), fp)), getattr(sk, func)(image, fp))


@pytest.mark.parametrize("func", GRAY)
def test_gray_out(xp, rng, func):
    image = random_array(rng, (10, 11), "int32", lo=-100, hi=100)
    fp = sk.disk(1)
    want = getattr(sk, func)(image, fp)
    out = xp.put(np.zeros_like(image))
    res = getattr(fm, func)(xp.put(image), fp, out=out)
    assert res is out
    same(xp.get(out), want)
    # in place (out is image), which the top-hats handle specially
    img = xp.put(image.copy())
    res = getattr(fm, func)(img, fp, out=img)
    same(xp.get(img), want)


def test_gray_errors():
    with pytest.raises(ValueError, match="unsupported mode"):
        fm.erosion(np.zeros((3, 3)), mode="bogus")
    with pytest.raises(ValueError, match="2-tuple"):
        fm.dilation(np.zeros((3, 3)), [(np.ones((3, 3)), "x")])


# ---- binary ---------------------------------------------------------------------------------

BINARY = ["binary_erosion", "binary_dilation", "binary_opening", "binary_closing"]


@pytest.mark.parametrize("func", BINARY)
@pytest.mark.parametrize("mode", ["ignore", "min", "max"])
@pytest.mark.parametrize("fp", ["default", "disk2", "even", "asym", "rect-seq", "disk-seq"])
def test_binary(xp, rng, func, mode, fp):
    image = blobs(rng, (14, 17))
    footprint = GRAY_FOOTPRINTS[fp]
    want = getattr(sk, func)(image, footprint, mode=mode)
    got = getattr(fm, func)(xp.put(image), footprint, mode=mode)
    same(xp.get(got), want)


@pytest.mark.parametrize("func", BINARY)
def test_binary_3d_out_and_warning(xp, rng, func):
    image = blobs(rng, (7, 8, 9))
    fp = sk.octahedron(1)
    want = getattr(sk, func)(image, fp)
    out = xp.put(np.zeros(image.shape, bool))
    with pytest.warns(FutureWarning, match="deprecated since version 0.26"):
        res = getattr(fm, func)(xp.put(image.astype(np.uint8)), fp, out=out)
    assert res is out
    same(xp.get(out), want)
    with pytest.raises(ValueError, match="unsupported mode"):
        getattr(fm, func)(xp.put(image), fp, mode="reflect")


# ---- isotropic ------------------------------------------------------------------------------


@pytest.mark.parametrize("func", ["isotropic_erosion", "isotropic_dilation", "isotropic_opening", "isotropic_closing"])
@pytest.mark.parametrize("shape", [(17, 19), (7, 8, 9)])
def test_isotropic(xp, rng, func, shape):
    image = blobs(rng, shape)
    for radius in (0, 1, 2.5):
        for spacing in (None, [1.5] + [0.75] * (len(shape) - 1)):
            want = getattr(sk, func)(image, radius, spacing=spacing)
            same(xp.get(getattr(fm, func)(xp.put(image), radius, spacing=spacing)), want)
    out = xp.put(np.zeros(shape, bool))
    res = getattr(fm, func)(xp.put(image), 2, out=out)
    assert res is out
    same(xp.get(out), getattr(sk, func)(image, 2))


# ---- reconstruction -------------------------------------------------------------------------


def _seed_mask(rng, shape, dtype, method):
    mask = random_array(rng, shape, dtype, lo=0, hi=200)
    return _sparse_seed(rng, mask, method, 40), mask


def _sparse_seed(rng, mask, method, every):
    """The mask's minimum (dilation; erosion: maximum) but for one pixel in `every`,
    which keeps the mask's value."""
    seed = np.full_like(mask, mask.min() if method == "dilation" else mask.max())
    idx = rng.integers(0, mask.size, max(1, mask.size // every))
    seed.flat[idx] = mask.flat[idx]
    return seed


@pytest.mark.parametrize("method", ["dilation", "erosion"])
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "float32", "float64"])
@pytest.mark.parametrize("shape", [(40,), (23, 31), (7, 9, 11), (3, 4, 5, 6)])
def test_reconstruction(xp, rng, method, dtype, shape):
    seed, mask = _seed_mask(rng, shape, dtype, method)
    want = sk.reconstruction(seed, mask, method=method)
    same(xp.get(fm.reconstruction(xp.put(seed), xp.put(mask), method=method)), want)
    # an h-dome style seed (mask shifted everywhere) and a cross footprint
    h = mask.astype(np.float64)
    seed2 = (h - 20 if method == "dilation" else h + 20).astype(np.float64)
    cross = sndi.generate_binary_structure(len(shape), 1)
    want = sk.reconstruction(seed2, h, method=method, footprint=cross)
    same(xp.get(fm.reconstruction(xp.put(seed2), xp.put(h), method=method, footprint=cross)), want)


@pytest.mark.parametrize("method", ["dilation", "erosion"])
def test_reconstruction_footprints(xp, rng, method):
    seed, mask = _seed_mask(rng, (30, 33), "float64", method)
    for fp in (sk.disk(2), np.array([[0, 0, 0], [1, 1, 0], [0, 1, 1]]), np.ones((1, 5)), np.ones((5, 1))):
        want = sk.reconstruction(seed, mask, method=method, footprint=fp)
        same(xp.get(fm.reconstruction(xp.put(seed), xp.put(mask), method=method, footprint=fp)), want)
    # 1-d with an offset (scikit-image accepts offsets only for 1-d footprints)
    seed, mask = _seed_mask(rng, (60,), "float32", method)
    for fp, off in [(np.ones(4), np.array([1])), (np.ones(3), np.array([0])), (np.ones(5), np.array([4]))]:
        want = sk.reconstruction(seed, mask, method=method, footprint=fp, offset=off)
        got = fm.reconstruction(xp.put(seed), xp.put(mask), method=method, footprint=fp, offset=off)
        same(xp.get(got), want)


def _maze_seed_mask(rng, shape, dtype, method, smooth):
    """Masks whose level sets wind across many 32 x 32 tiles (the CUDA tile pass):
    thin random walls on a smooth ramp (smooth) or white noise, with sparse seeds."""
    if smooth:
        base = sndi.gaussian_filter(rng.random(shape), 4.0)
        base = (base - base.min()) / (np.ptp(base) + 1e-12) * 150 + 20
        walls = rng.random(shape) < 0.35
        mask = np.where(walls, 5.0, base)
    else:
        mask = rng.random(shape) * 200
    mask = mask.astype(dtype)
    return _sparse_seed(rng, mask, method, 500), mask


@pytest.mark.parametrize("method", ["dilation", "erosion"])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("shape", [(150, 97), (33, 400), (257, 64)])
@pytest.mark.parametrize("smooth", [False, True])
def test_reconstruction_across_tiles(xp, rng, method, dtype, shape, smooth):
    """2-D images of several 32 x 32 tiles (partial ones at the edges) with paths that
    wind from tile to tile, every 3 x 3 footprint kind (full, cross, a random
    point-asymmetric one) and one beyond the box (the sweep), against scikit-image."""
    seed, mask = _maze_seed_mask(rng, shape, dtype, method, smooth)
    asym = rng.random((3, 3)) < 0.5
    asym[1, 1] = True
    for fp in (None, sndi.generate_binary_structure(2, 1), asym, sk.disk(2)):
        want = sk.reconstruction(seed, mask, method=method, footprint=fp)
        got = fm.reconstruction(xp.put(seed), xp.put(mask), method=method, footprint=fp)
        same(xp.get(got), want)


def test_reconstruction_mixed_dtypes_and_errors(xp, rng):
    mask = random_array(rng, (12, 13), "uint8")
    seed = np.minimum(mask, 100).astype(np.int64)
    same(xp.get(fm.reconstruction(xp.put(seed), xp.put(mask))), sk.reconstruction(seed, mask))
    seed16 = np.minimum(mask, 50).astype(np.float16)
    maskf = mask.astype(np.float32)
    same(xp.get(fm.reconstruction(xp.put(seed16), xp.put(maskf))), sk.reconstruction(seed16, maskf))
    with pytest.raises(ValueError, match="less than"):
        fm.reconstruction(xp.put(mask + 1), xp.put(mask))
    with pytest.raises(ValueError, match="greater than"):
        fm.reconstruction(xp.put(mask // 2), xp.put(mask), method="erosion")
    with pytest.raises(ValueError, match="odd"):
        fm.reconstruction(xp.put(mask // 2), xp.put(mask), footprint=np.ones((2, 3)))
    with pytest.raises(ValueError, match="ndims must be equal"):
        fm.reconstruction(xp.put(mask // 2), xp.put(mask), offset=np.array([1, 1]))
    with pytest.raises(ValueError, match="inside footprint"):
        fm.reconstruction(xp.put(mask[0] // 2), xp.put(mask[0]), footprint=np.ones(3), offset=np.array([3]))
    with pytest.raises(ValueError, match="Got 'bogus'"):
        fm.reconstruction(xp.put(mask // 2), xp.put(mask), method="bogus")
    with pytest.raises(AssertionError):
        fm.reconstruction(xp.put(mask[:5] // 2), xp.put(mask))


# ---- extrema --------------------------------------------------------------------------------


@pytest.mark.parametrize("func", ["h_maxima", "h_minima"])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "float32", "float64"])
@pytest.mark.parametrize("shape", [(25, 30), (8, 9, 10)])
def test_h_extrema(xp, rng, func, dtype, shape):
    image = sndi.uniform_filter(random_array(rng, shape, "float64", lo=0, hi=100), 3).astype(dtype)
    for h in (1, 5, 17, 1000):
        want = getattr(sk, func)(image, h)
        same(xp.get(getattr(fm, func)(xp.put(image), h)), want)
    fp = sndi.generate_binary_structure(len(shape), 1)
    same(xp.get(getattr(fm, func)(xp.put(image), 5, footprint=fp)), getattr(sk, func)(image, 5, footprint=fp))


def test_h_extrema_float_h(xp, rng):
    image = sndi.uniform_filter(random_array(rng, (20, 20), "float64", lo=0, hi=60), 3).astype(np.uint8)
    same(xp.get(fm.h_maxima(xp.put(image), 4.0)), sk.h_maxima(image, 4.0))
    with pytest.warns(UserWarning, match="precision loss"):
        got = fm.h_minima(xp.put(image), 3.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(xp.get(got), sk.h_minima(image, 3.5))
    with pytest.raises(ValueError, match="h = 0 is ambiguous"):
        fm.h_maxima(xp.put(image), 0)


@pytest.mark.parametrize("func", ["local_maxima", "local_minima"])
@pytest.mark.parametrize(
    "dtype", ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float32", "float64"]
)
@pytest.mark.parametrize("allow_borders", [True, False])
def test_local_extrema(xp, rng, func, dtype, allow_borders):
    # few distinct values: many plateaus, some touching the border
    image = random_array(rng, (19, 23), "float64", lo=0, hi=4).round().astype(dtype)
    for connectivity in (None, 1, 2):
        want = getattr(sk, func)(image, connectivity=connectivity, allow_borders=allow_borders)
        got = getattr(fm, func)(xp.put(image), connectivity=connectivity, allow_borders=allow_borders)
        same(xp.get(got), want)


@pytest.mark.parametrize("func", ["local_maxima", "local_minima"])
@pytest.mark.parametrize("shape", [(50,), (9, 10, 11), (4, 5, 4, 6)])
def test_local_extrema_nd(xp, rng, func, shape):
    image = random_array(rng, shape, "int32", lo=0, hi=5)
    for connectivity in range(1, len(shape) + 1):
        for allow_borders in (True, False):
            want = getattr(sk, func)(image, connectivity=connectivity, allow_borders=allow_borders)
            got = getattr(fm, func)(xp.put(image), connectivity=connectivity, allow_borders=allow_borders)
            same(xp.get(got), want)


@pytest.mark.parametrize("func", ["local_maxima", "local_minima"])
def test_local_extrema_footprints_and_indices(xp, rng, func):
    image = random_array(rng, (21, 24), "uint8", lo=0, hi=3)
    sym = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]], bool)
    asym = np.array([[1, 1, 0], [0, 1, 0], [0, 1, 1]], bool)
    for fp in (sym, asym, np.ones((3, 3))):
        for ab in (True, False):
            want = getattr(sk, func)(image, footprint=fp, allow_borders=ab)
            same(xp.get(getattr(fm, func)(xp.put(image), footprint=fp, allow_borders=ab)), want)
    want = getattr(sk, func)(image, indices=True)
    got = getattr(fm, func)(xp.put(image), indices=True)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(xp.get(g), w)
    # float with NaN: never a plateau member
    f = random_array(rng, (12, 13), "float32", lo=0, hi=3).round()
    f[rng.random(f.shape) < 0.1] = np.nan
    same(xp.get(getattr(fm, func)(xp.put(f))), getattr(sk, func)(f))
    same(xp.get(getattr(fm, func)(xp.put(f), allow_borders=False)), getattr(sk, func)(f, allow_borders=False))


def test_local_extrema_edge_cases(xp):
    with pytest.warns(UserWarning, match="smaller 3"):
        got = fm.local_maxima(xp.put(np.array([[1, 2, 1], [0, 5, 0]], np.uint8)), allow_borders=False)
    same(xp.get(got), np.zeros((2, 3), bool))
    same(xp.get(fm.local_maxima(xp.put(np.zeros((0, 4))))), np.zeros((0, 4), bool))
    same(xp.get(fm.local_minima(xp.put(np.full((5, 5), 7, np.int16)))), np.zeros((5, 5), bool))
    image = np.array([[1, 2, 1], [0, 5, 0]], np.uint8)
    same(xp.get(fm.local_maxima(xp.put(image))), sk.local_maxima(image))
    with pytest.raises(ValueError, match="not 3"):
        fm.local_maxima(xp.put(np.zeros((4, 4))), footprint=np.ones((5, 5)))
    with pytest.raises(ValueError, match="do notmatch"):
        fm.local_maxima(xp.put(np.zeros((4, 4))), footprint=np.ones((3, 3, 3)))


# ---- thin and medial axis -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float64"])
@pytest.mark.parametrize("shape", [(1, 7), (3, 3), (32, 41), (60, 45)])
def test_thin(xp, rng, dtype, shape):
    image = blobs(rng, shape, fraction=0.6, size=5).astype(dtype)
    for max_num_iter in (None, 0, 1, 2, 5):
        want = sk.thin(image, max_num_iter)
        same(xp.get(fm.thin(xp.put(image), max_num_iter)), want)


def test_thin_errors(xp):
    with pytest.raises(ValueError, match="2-dimensional"):
        fm.thin(xp.put(np.ones((3, 3, 3), bool)))
    with pytest.raises(ValueError, match="empty"):
        fm.thin(xp.put(np.ones((0, 3), bool)))


@pytest.mark.parametrize("shape", [(1, 9), (2, 2), (24, 31), (50, 43)])
def test_medial_axis(xp, rng, shape):
    image = blobs(rng, shape, fraction=0.6, size=5)
    image[0, : shape[1] // 2] = True   # foreground on the border too
    for seed in (None, 0, 7):
        want = sk.medial_axis(image, rng=0 if seed is None else seed)
        same(xp.get(fm.medial_axis(xp.put(image), rng=0 if seed is None else seed)), want)
    mask = rng.random(shape) < 0.8
    skel, dist = fm.medial_axis(xp.put(image.astype(np.uint8)), mask=xp.put(mask), return_distance=True, rng=3)
    wskel, wdist = sk.medial_axis(image.astype(np.uint8), mask=mask, return_distance=True, rng=3)
    same(xp.get(skel), wskel)
    same(xp.get(dist), wdist)


def test_medial_axis_visit_order_packed_and_lexsort(xp, rng):
    # the packed-key sort and np.lexsort give the same order: distances that are
    # square roots of integers pack; others (not an EDT's) take np.lexsort
    from fovea.skimage.morphology._skeletonize import _visit_order

    for trial in range(4):
        shape = (int(rng.integers(1, 40)), int(rng.integers(1, 40)))
        masked = rng.random(shape) < 0.7
        d2 = rng.integers(0, 6, shape).astype(np.float64)
        dist = np.sqrt(d2) if trial % 2 == 0 else d2 + rng.random(shape) * 0.5
        n = int(masked.sum())
        tb = np.random.default_rng(trial).permutation(np.arange(n))
        flat = np.flatnonzero(masked)
        corner = 9 - sndi.correlate(masked.astype(np.uint8), np.ones((3, 3), np.uint8), mode="constant")
        want = flat[np.lexsort((tb, corner.ravel()[flat], dist.ravel()[flat]))]
        got = _visit_order(getattr(xp, "cp", np), xp.put(masked), xp.put(dist), tb)
        same(got, want)


def test_medial_axis_default_rng_is_deterministic_for_unique_order(rng):
    # a shape with no ties decides the same whatever the random tie-breaker
    image = np.zeros((9, 15), bool)
    image[2:7, 2:13] = True
    same(fm.medial_axis(image), sk.medial_axis(image))


# ---- other array types ----------------------------------------------------------------------


def _array_type_cases(rng):
    image = random_array(rng, (12, 14), "uint8", lo=0, hi=6)
    binary = blobs(rng, (12, 14))
    return [
        ("erosion", (image, sk.disk(1)), {}),
        ("white_tophat", (image,), {}),
        ("reconstruction", (np.minimum(image, 2), image), {}),
        ("local_maxima", (image,), {}),
        ("h_minima", (image, 2), {}),
        ("thin", (binary,), {}),
        ("isotropic_erosion", (binary, 1.5), {}),
    ]


def test_fovea_array_in_fovea_array_out(rng):
    import fovea

    for name, args, kw in _array_type_cases(rng):
        want = getattr(sk, name)(*args, **kw)
        got = getattr(fm, name)(*(fovea.asarray(a) if isinstance(a, np.ndarray) else a for a in args), **kw)
        assert isinstance(got, fovea.Array), name
        same(np.asarray(got), want)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_torch_in_torch_out(rng, torch, device):
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    pytest.importorskip("cupy") if device == "cuda" else None
    for name, args, kw in _array_type_cases(rng):
        want = getattr(sk, name)(*args, **kw)
        targs = [torch.from_numpy(a.copy()).to(device) if isinstance(a, np.ndarray) else a for a in args]
        got = getattr(fm, name)(*targs, **kw)
        assert isinstance(got, torch.Tensor), name
        assert got.device.type == device
        same(got.cpu().numpy(), want)


def test_other_dtypes(xp, rng):
    image = blobs(rng, (20, 22))
    same(xp.get(fm.thin(xp.put(image.astype(np.float16)))), sk.thin(image.astype(np.float16)))
    same(xp.get(fm.medial_axis(xp.put(image.astype(np.float16)), rng=1)), sk.medial_axis(image.astype(np.float16), rng=1))
    with pytest.raises(TypeError, match="float16"):
        fm.local_maxima(xp.put(image.astype(np.float16)))
    f16 = random_array(rng, (9, 10), "float32", lo=0, hi=50).astype(np.float16)
    same(xp.get(fm.reconstruction(xp.put(f16 - 5), xp.put(f16))), sk.reconstruction(f16 - 5, f16))
    same(xp.get(fm.h_maxima(xp.put(f16), 3)), sk.h_maxima(f16, 3))


def test_strided_inputs(xp, rng):
    base = random_array(rng, (30, 40), "float64", lo=0, hi=50).round()
    for name, view in layouts(base):
        v = xp.put(view)
        seed = np.minimum(view, 10.0)
        same(xp.get(fm.reconstruction(xp.put(seed), v)), sk.reconstruction(seed, view))
        same(xp.get(fm.local_maxima(v)), sk.local_maxima(view))
        same(xp.get(fm.h_minima(v, 5)), sk.h_minima(view, 5))
        binary = view > 25
        same(xp.get(fm.thin(xp.put(binary))), sk.thin(binary))
        same(xp.get(fm.medial_axis(xp.put(binary), rng=2)), sk.medial_axis(binary, rng=2))


@pytest.mark.parametrize("func,old", [("remove_small_objects", "min_size"), ("remove_small_holes", "area_threshold")])
def test_deprecated_threshold_warns_before_refusing_both(func, old):
    # skimage 0.26's decorator: the FutureWarning comes first, then the ValueError for both names
    img = np.zeros((6, 7), bool)
    img[1, 1:4] = True
    fn = getattr(fm, func)
    with pytest.warns(FutureWarning, match=f"Parameter `{old}` is deprecated"):
        with pytest.raises(ValueError, match="avoid conflicting values"):
            fn(img, **{old: 3}, max_size=3)
    with pytest.warns(FutureWarning, match=f"Parameter `{old}` is deprecated"):
        with pytest.raises(ValueError, match="avoid conflicting values"):
            fn(img, 3, max_size=3)
