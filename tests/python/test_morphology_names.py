"""The scikit-image 0.26 morphology names added in issue 30 (skeletonize, the
max-tree filters, flood / flood_fill, remove_objects_by_distance, label)
against scikit-image, exactly: values, dtypes and exceptions.

Every comparison runs on NumPy arrays and, with a GPU and CuPy, on CuPy arrays
(the ``xp`` fixture; skipped otherwise): the result must be a CuPy array equal
to scikit-image's.
"""

import numpy as np
import pytest
import scipy.ndimage as sndi
from skimage import measure as skmeasure
from skimage import morphology as sk

from fovea.skimage import measure as fmeasure
from fovea.skimage import morphology as fm
from fovea.skimage import segmentation as fseg

from xpcase import xp_fixture  # noqa: E402 (tests/python/xpcase.py)

xp = xp_fixture()


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def blobs(shape, seed, fraction=0.45, sigma=1.5):
    """Smooth random binary shapes (thick objects with holes, as skeletons need)."""
    rng = np.random.default_rng(seed)
    g = sndi.gaussian_filter(rng.random(shape), sigma)
    return g > np.quantile(g, 1 - fraction)


def levels(shape, seed, dtype, n=6):
    """A piecewise-flat random image (plateaus, as max-trees and floods need)."""
    rng = np.random.default_rng(seed)
    g = sndi.gaussian_filter(rng.random(shape), 1.0)
    q = np.digitize(g, np.quantile(g, np.linspace(0, 1, n + 1)[1:-1]))
    if np.dtype(dtype) == bool:
        return q > n // 2
    if np.dtype(dtype).kind == "f":
        return (q * 0.75 - 1).astype(dtype)
    if np.dtype(dtype).kind == "i":
        return (q - 3).astype(dtype)
    return q.astype(dtype)


# ---- skeletonize ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(40, 53), (1, 30), (17, 1), (64, 64)])
@pytest.mark.parametrize("method", [None, "zhang", "lee"])
def test_skeletonize_2d(xp, dtype, shape, method):
    img = blobs(shape, sum(shape), sigma=1.2)
    data = (img * np.array(3, dtype=dtype)).astype(dtype) if dtype != bool else img
    if np.dtype(dtype).kind == "i":
        data = np.where(img, -2, 0).astype(dtype)   # negative = foreground too
    got = fm.skeletonize(xp.put(data), method=method)
    same(xp.get(got), sk.skeletonize(data, method=method))


@pytest.mark.parametrize("shape", [(12, 20, 25), (1, 20, 30), (9, 9, 9)])
@pytest.mark.parametrize("method", [None, "lee"])
def test_skeletonize_3d(xp, shape, method):
    img = blobs(shape, 7 + shape[0], fraction=0.5)
    same(xp.get(fm.skeletonize(xp.put(img), method=method)), sk.skeletonize(img, method=method))


def test_skeletonize_shapes():
    img = np.zeros((30, 30), bool)
    img[5:25, 8:22] = True      # a rectangle: the classic ridge
    img[12:16, 12:16] = False   # with a hole: a loop survives
    for m in (None, "lee"):
        same(fm.skeletonize(img, method=m), sk.skeletonize(img, method=m))
    same(fm.skeletonize(np.zeros((0, 4), bool)), sk.skeletonize(np.zeros((0, 4), bool)))
    same(fm.skeletonize(np.ones((5, 5), np.complex64)), sk.skeletonize(np.ones((5, 5), np.complex64)))


@pytest.mark.parametrize("args", [
    (np.zeros((5, 5)), {"method": "foo"}),
    (np.zeros((5, 5, 5)), {"method": "zhang"}),
    (np.zeros(5), {}),
    (np.zeros((3, 3, 3, 3)), {}),
    (np.zeros((3, 3, 3, 3)), {"method": "lee"}),
])
def test_skeletonize_errors(args):
    img, kw = args
    with pytest.raises(ValueError) as want:
        sk.skeletonize(img, **kw)
    with pytest.raises(ValueError) as got:
        fm.skeletonize(img, **kw)
    assert str(got.value) == str(want.value)


# ---- max-tree -------------------------------------------------------------------------------------

DTYPES = [bool, np.uint8, np.uint16, np.int8, np.int32, np.uint64, np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,conn", [((50,), 1), ((23, 31), 1), ((23, 31), 2), ((8, 9, 10), 1),
                                        ((8, 9, 10), 3)])
def test_max_tree(xp, dtype, shape, conn):
    img = levels(shape, len(shape) * 10 + conn, dtype)
    p_got, t_got = fm.max_tree(xp.put(img), connectivity=conn)
    p_want, t_want = sk.max_tree(img, connectivity=conn)
    same(xp.get(p_got), p_want)
    same(xp.get(t_got), t_want)


@pytest.mark.parametrize("name", ["area_opening", "area_closing", "diameter_opening", "diameter_closing"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("conn", [1, 2])
def test_attribute_filters(xp, name, dtype, conn):
    img = levels((31, 37), conn, dtype, n=8)
    thr = 20 if name.startswith("area") else 5
    got = getattr(fm, name)(xp.put(img), thr, connectivity=conn)
    same(xp.get(got), getattr(sk, name)(img, thr, connectivity=conn))


@pytest.mark.parametrize("dtype", DTYPES)
def test_max_tree_local_maxima(xp, dtype):
    img = levels((25, 28), 5, dtype, n=7)
    for conn in (1, 2):
        same(xp.get(fm.max_tree_local_maxima(xp.put(img), connectivity=conn)),
             sk.max_tree_local_maxima(img, connectivity=conn))


def test_filters_3d_and_footprint_connectivity():
    img = levels((9, 11, 12), 3, np.uint8)
    fp = np.zeros((3, 3, 3), bool)
    fp[1] = True   # in-plane neighbours only
    for name, thr in [("area_opening", 15), ("diameter_closing", 4)]:
        same(getattr(fm, name)(img, thr, connectivity=fp), getattr(sk, name)(img, thr, connectivity=fp))
        same(getattr(fm, name)(img, thr, connectivity=3), getattr(sk, name)(img, thr, connectivity=3))


def test_filters_given_tree():
    img = levels((20, 21), 9, np.int16)
    parent, trav = sk.max_tree(img, 2)
    same(fm.area_opening(img, 12, parent=parent, tree_traverser=trav), sk.area_opening(img, 12, parent=parent,
                                                                                     tree_traverser=trav))
    same(fm.max_tree_local_maxima(img, parent=parent, tree_traverser=trav),
         sk.max_tree_local_maxima(img, parent=parent, tree_traverser=trav))
    bad = parent.copy()
    bad.flat[3] = img.size   # not a pixel: a clear error (scikit-image reads out of bounds)
    with pytest.raises(ValueError):
        fm.area_opening(img, 12, parent=bad, tree_traverser=trav)


@pytest.mark.parametrize("dtype", [np.float16, np.complex64])
def test_max_tree_bad_dtype(dtype):
    img = np.zeros((4, 4), dtype)
    for name in ("max_tree", "area_opening", "diameter_closing", "max_tree_local_maxima"):
        with pytest.raises(TypeError):
            getattr(sk, name)(img)
        with pytest.raises(TypeError):
            getattr(fm, name)(img)


@pytest.mark.parametrize("shape", [(5, 2), (3,), (4, 3), (3, 3, 3), (1, 30), (2, 5), (2,), (2, 1, 5)])
def test_max_tree_small_images(shape):
    """scikit-image unravels its neighbour offsets around the image's centre pixel:
    images with an extent below 3 raise its ValueError or get its neighbours."""
    img = (np.random.default_rng(len(shape)).random(shape) * 4).astype(np.uint8)
    for conn in (1, 2):
        try:
            want = sk.max_tree(img, conn)
        except ValueError as e:
            with pytest.raises(ValueError) as got:
                fm.max_tree(img, conn)
            assert str(got.value) == str(e)
            continue
        for g, w in zip(fm.max_tree(img, conn), want):
            same(g, w)
        same(fm.area_opening(img, 3, conn), sk.area_opening(img, 3, conn))


def test_max_tree_footprint_without_centre():
    """scikit-image drops the first shortest offset, taking it for the centre."""
    fp = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], bool)
    img = levels((10, 12), 2, np.uint8)
    same(fm.max_tree(img, fp)[0], sk.max_tree(img, fp)[0])
    same(fm.area_opening(img, 5, fp), sk.area_opening(img, 5, fp))


def test_max_tree_bad_connectivity():
    img = np.zeros((4, 4), np.uint8)
    for conn in (np.ones((3, 3, 3)), np.ones((2, 3))):
        with pytest.raises(ValueError) as want:
            sk.max_tree(img, conn)
        with pytest.raises(ValueError) as got:
            fm.max_tree(img, conn)
        assert str(got.value) == str(want.value)


# ---- flood ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES + [np.int64])
@pytest.mark.parametrize("tolerance", [None, 0, 0.6, 1, 2.5])
def test_flood(xp, dtype, tolerance):
    img = levels((30, 41), 4, dtype, n=7)
    for seed in [(0, 0), (15, 20), (-1, -3)]:
        for conn in (None, 1):
            got = fm.flood(xp.put(img), seed, connectivity=conn, tolerance=tolerance)
            same(xp.get(got), sk.flood(img, seed, connectivity=conn, tolerance=tolerance))


@pytest.mark.parametrize("shape", [(40,), (7, 8, 9), (3, 4, 5, 6)])
def test_flood_nd(xp, shape):
    img = levels(shape, 2, np.int32, n=4)
    seed = tuple(s // 2 for s in shape) if len(shape) > 1 else 5
    for conn in (1, len(shape)):
        same(xp.get(fm.flood(xp.put(img), seed, connectivity=conn)), sk.flood(img, seed, connectivity=conn))


def test_flood_footprints_and_extremes():
    img = levels((25, 30), 8, np.uint8)
    fp = np.zeros((5, 5), bool)
    fp[0, 2] = fp[4, 2] = fp[2, 0] = fp[2, 4] = True   # jumps of two pixels, no direct neighbours
    same(fm.flood(img, (12, 14), footprint=fp), sk.flood(img, (12, 14), footprint=fp))
    asym = np.zeros((3, 3), bool)
    asym[2, 1] = asym[1, 2] = True   # one-way: down and right
    same(fm.flood(img, (3, 3), footprint=asym), sk.flood(img, (3, 3), footprint=asym))
    big = np.array([[0, 2**64 - 1, 2**64 - 2], [5, 2**64 - 1, 7]], np.uint64)
    for tol in (None, 1, 2**63):
        same(fm.flood(big, (0, 1), tolerance=tol), sk.flood(big, (0, 1), tolerance=tol))
    with pytest.raises(OverflowError):   # seed - 3.5 rounds to 2**64 as a float
        sk.flood(big, (0, 1), tolerance=3.5)
    with pytest.raises(OverflowError):
        fm.flood(big, (0, 1), tolerance=3.5)
    f = np.array([[np.nan, 1.0, 1.0], [np.inf, -0.0, 0.0]])
    for seed in [(0, 0), (1, 1), (1, 0)]:
        same(fm.flood(f, seed, tolerance=0.5), sk.flood(f, seed, tolerance=0.5))
        same(fm.flood(f, seed), sk.flood(f, seed))
    fortran = np.asfortranarray(img)
    same(fm.flood(fortran, (4, 5), connectivity=1), sk.flood(fortran, (4, 5), connectivity=1))
    same(fm.flood(np.zeros((0, 3)), (0, 0)), sk.flood(np.zeros((0, 3)), (0, 0)))


@pytest.mark.parametrize("args,exc", [
    ((np.zeros((3, 3), np.float16), (0, 0)), TypeError),
    ((np.zeros((3, 3), np.complex128), (0, 0)), TypeError),
    ((np.zeros((3, 3)), (0, 5)), IndexError),
    ((np.zeros((3, 3)), (0,)), TypeError),
    ((np.zeros((3, 3)), (0, 0), {"footprint": np.ones((2, 3))}), ValueError),
    ((np.zeros((3, 3)), (0, 0), {"footprint": np.ones(3)}), ValueError),
])
def test_flood_errors(args, exc):
    kw = args[2] if len(args) > 2 else {}
    with pytest.raises(exc) as want:
        sk.flood(args[0], args[1], **kw)
    with pytest.raises(exc) as got:
        fm.flood(args[0], args[1], **kw)
    if exc is not IndexError:
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32])
def test_flood_fill(xp, dtype):
    img = levels((20, 26), 6, dtype)
    for kw in [{}, {"connectivity": 1}, {"tolerance": 1}]:
        same(xp.get(fm.flood_fill(xp.put(img), (10, 10), 9, **kw)), sk.flood_fill(img, (10, 10), 9, **kw))
    a, b = img.copy(), img.copy()
    work = xp.put(a)
    res = fm.flood_fill(work, (2, 3), 7, in_place=True)
    sk.flood_fill(b, (2, 3), 7, in_place=True)
    assert res is work
    same(xp.get(work), b)


def test_segmentation_names():
    assert fseg.flood is fm.flood and fseg.flood_fill is fm.flood_fill
    assert "flood" in fseg.__all__ and "flood_fill" in fseg.__all__
    assert fm.label is fmeasure.label
    lab = blobs((30, 30), 1)
    for conn in (1, 2):
        same(fm.label(lab, connectivity=conn), skmeasure.label(lab, connectivity=conn))


# ---- remove_objects_by_distance ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int64, np.uint16])
@pytest.mark.parametrize("kw", [{}, {"p_norm": 1}, {"p_norm": np.inf}, {"spacing": (1.0, 2.5)},
                                {"p_norm": 3, "spacing": (2, 2)}])
def test_remove_objects_by_distance(xp, dtype, kw):
    lab = skmeasure.label(blobs((60, 70), 3, fraction=0.2, sigma=1.0)).astype(dtype)
    for dist in (0, 3, 7.5):
        got = fm.remove_objects_by_distance(xp.put(lab), dist, **kw)
        same(xp.get(got), sk.remove_objects_by_distance(lab, dist, **kw))


def test_remove_objects_by_distance_options():
    lab = skmeasure.label(blobs((15, 40, 30), 5, fraction=0.15, sigma=1.0)).astype(np.int32)
    same(fm.remove_objects_by_distance(lab, 4), sk.remove_objects_by_distance(lab, 4))
    prio = np.random.default_rng(1).random(lab.max() + 1)
    same(fm.remove_objects_by_distance(lab, 5, priority=prio), sk.remove_objects_by_distance(lab, 5, priority=prio))
    out = np.empty_like(lab)
    res = fm.remove_objects_by_distance(lab, 5, out=out)
    assert res is out
    same(out, sk.remove_objects_by_distance(lab, 5))
    inplace = lab.copy()
    assert fm.remove_objects_by_distance(inplace, 5, out=inplace) is inplace
    same(inplace, sk.remove_objects_by_distance(lab, 5))
    same(fm.remove_objects_by_distance(np.zeros((4, 4), np.int8), 3), sk.remove_objects_by_distance(
        np.zeros((4, 4), np.int8), 3))


def test_remove_objects_by_distance_extremes():
    """p_norm below 1 and at or below 0 (no norm: scikit-image's tree search, run by
    SciPy), infinite and NaN distances and norms, 3-d with spacing, a large radius."""
    lab = skmeasure.label(blobs((40, 50), 8, fraction=0.15, sigma=1.0)).astype(np.int64)
    for kw in [{"p_norm": 0.5}, {"p_norm": -1}, {"p_norm": np.nan}, {"p_norm": 1.5, "spacing": (0.5, 3)}]:
        for dist in (2, 6):
            same(fm.remove_objects_by_distance(lab, dist, **kw), sk.remove_objects_by_distance(lab, dist, **kw))
    for dist in (np.inf, np.nan, 0, 1e6, 1e-300):
        same(fm.remove_objects_by_distance(lab, dist), sk.remove_objects_by_distance(lab, dist))
    vol = skmeasure.label(blobs((12, 20, 22), 4, fraction=0.12, sigma=1.0)).astype(np.uint32)
    for kw in [{}, {"spacing": (3, 1, 1)}, {"p_norm": np.inf}]:
        same(fm.remove_objects_by_distance(vol, 3.5, **kw), sk.remove_objects_by_distance(vol, 3.5, **kw))


@pytest.mark.parametrize("args", [
    (np.zeros((4, 4), np.int32), -1, {}),
    (np.zeros((4, 4), np.float32), 2, {}),
    (np.eye(4, dtype=np.int32), 2, {"spacing": (1, 0)}),
    (np.eye(4, dtype=np.int32), 2, {"spacing": (1, 1, 1)}),
    (np.array([[1, 0, 2]], np.int32), 2, {"priority": np.ones(2)}),
    (np.array([[-1, 0, 2]], np.int32), 2, {}),
])
def test_remove_objects_by_distance_errors(args):
    img, dist, kw = args
    with pytest.raises(ValueError) as want:
        sk.remove_objects_by_distance(img, dist, **kw)
    with pytest.raises(ValueError) as got:
        fm.remove_objects_by_distance(img, dist, **kw)
    assert str(got.value) == str(want.value)


NAMES = ["skeletonize", "max_tree", "area_opening", "area_closing", "diameter_opening", "diameter_closing",
         "max_tree_local_maxima", "flood", "flood_fill", "remove_objects_by_distance", "label"]


@pytest.mark.parametrize("name", NAMES)
def test_signatures(name):
    import inspect

    assert name in fm.__all__
    got, want = inspect.signature(getattr(fm, name)), inspect.signature(getattr(sk, name))
    assert [(p.name, p.kind, p.default) for p in got.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in want.parameters.values()]
