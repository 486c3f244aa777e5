"""Connected-component labelling and label clean-up against scikit-image 0.26
and SciPy 1.17, exactly: fovea.skimage.measure.label, fovea.ndimage.label,
fovea.skimage.segmentation and morphology.remove_small_objects / holes.

Labels must be EQUAL to the reference (same numbering, dtype and count), not
just equal up to a permutation. Every test runs on NumPy and, where fovea sees
a GPU and CuPy imports, on CuPy (the ``xp`` fixture)."""

import warnings

import numpy as np
import pytest
import scipy.ndimage as sndi
from skimage import measure as skm
from skimage import morphology as skmo
from skimage import segmentation as sks

from fovea import ndimage as fndi
from fovea.skimage import measure as fm
from fovea.skimage import morphology as fmo
from fovea.skimage import segmentation as fs
from xpcase import same, xp_fixture  # noqa: E402 (tests/python/xpcase.py)

pytestmark = [
    pytest.mark.filterwarnings("ignore:Only one label was provided:UserWarning"),
    pytest.mark.filterwarnings("ignore:Any labeled images will be returned:UserWarning"),
]

INT_DTYPES = ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64"]
SHAPES = {1: [(1,), (2,), (37,)], 2: [(1, 1), (1, 9), (9, 1), (17, 23)], 3: [(5, 7, 9), (1, 6, 5)],
          4: [(3, 4, 5, 6)]}


xp = xp_fixture()


def ref_label(img, background, connectivity):
    """skimage.measure.label for any ndim: skimage itself up to 3-d; beyond,
    scipy.ndimage.label per value, merged and numbered in raster order."""
    if img.dtype == bool or 1 <= img.ndim <= 3:
        return skm.label(img, background=background, return_num=True, connectivity=connectivity)
    bg = 0 if background is None else background
    x = img.astype(np.intp)
    st = sndi.generate_binary_structure(img.ndim, connectivity or img.ndim)
    comp = np.zeros(img.shape, np.int64)
    nxt = 0
    for v in np.unique(x):
        if v == bg:
            continue
        lab, n = sndi.label(x == v, st)
        comp[lab > 0] = lab[lab > 0] + nxt
        nxt += n
    flat = comp.ravel()
    uniq, first = np.unique(flat, return_index=True)
    order = np.argsort(first[uniq > 0])
    remap = np.zeros(nxt + 1, np.int64)
    remap[uniq[uniq > 0][order]] = np.arange(1, len(order) + 1)
    return remap[comp], len(order)


def images(rng, shape, dtype, density, nvalues):
    fg = rng.random(shape) < density
    vals = rng.integers(1, nvalues + 1, size=shape)
    a = np.where(fg, vals, 0)
    if dtype == "bool":
        return a.astype(bool)
    return a.astype(dtype)


# ---- skimage.measure.label ------------------------------------------------------------


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("density", [0.1, 0.5, 0.9])
def test_label_random(xp, rng, ndim, density):
    for shape in SHAPES[ndim]:
        for nvalues in (1, 3):
            img = images(rng, shape, "uint8", density, nvalues)
            for conn in range(1, ndim + 1):
                want, wn = ref_label(img, None, conn)
                got, gn = fm.label(xp.put(img), return_num=True, connectivity=conn)
                same(xp.get(got), want)
                assert gn == wn and isinstance(gn, int)


@pytest.mark.parametrize("dtype", INT_DTYPES + ["bool"])
def test_label_dtypes(xp, rng, dtype):
    img = images(rng, (19, 21), dtype, 0.6, 4)
    if dtype != "bool" and np.dtype(dtype).kind == "i":
        img = img - np.array(2, dtype)   # negative values too
    for conn in (None, 1, 2):
        for bg in (None, 0, 1, -2, 3):
            want = skm.label(img, background=bg, connectivity=conn)
            got = fm.label(xp.put(img), background=bg, connectivity=conn)
            same(xp.get(got), want)


def test_label_extreme_values(xp):
    for dtype in INT_DTYPES:
        info = np.iinfo(dtype)
        img = np.array([[info.max, info.max, info.min], [info.min, 0, info.max]], dtype)
        for bg in (None, int(info.max), int(info.min), -1):
            if dtype == "uint64" and bg is not None and bg > np.iinfo(np.int64).max:
                continue   # skimage's Cython background is an intp
            same(xp.get(fm.label(xp.put(img), background=bg)), skm.label(img, background=bg))
    big = np.array([2**63 + 5, 2**63 + 5, 5, 2**63 + 5], np.uint64)
    same(xp.get(fm.label(xp.put(big), background=-(2**63) + 5)), skm.label(big, background=-(2**63) + 5))


def test_label_float_input(xp):
    f = np.array([0.5, 0.7, 0.5, -0.0, 0.0, 1.2, 1.9, -1.5, -1.2, 3.0])
    for dt in ("float32", "float64"):
        same(xp.get(fm.label(xp.put(f.astype(dt)))), skm.label(f.astype(dt)))


def test_label_background_float_and_bool(xp, rng):
    img = images(rng, (9, 11), "int32", 0.7, 3)
    same(xp.get(fm.label(xp.put(img), background=1.5)), skm.label(img, background=1.5))
    b = img > 0
    for bg in (True, 1, 1.0, 0, 2, -1, None):
        same(xp.get(fm.label(xp.put(b), background=bg)), skm.label(b, background=bg))


def test_label_special_images(xp):
    # single pixels, empty, all foreground, checkerboards, spirals, combs
    cases = [np.zeros((5, 6), np.int32), np.ones((5, 6), np.int32), np.ones((1,), np.uint8),
             np.zeros((0, 3), np.uint8), np.zeros((4, 0, 2), np.int16),
             (np.indices((15, 16)).sum(0) % 2).astype(np.uint8)]
    n = 41
    spiral = np.zeros((n, n), np.uint8)
    r0, r1, c0, c1 = 0, n - 1, 0, n - 1
    while r0 <= r1 and c0 <= c1:
        spiral[r0, c0:c1 + 1] = 1
        spiral[r0:r1 + 1, c1] = 1
        if r0 + 2 <= r1:
            spiral[r1, c0:c1 + 1] = 1
        if c0 + 2 <= c1:
            spiral[r0 + 2:r1 + 1, c0] = 1
        r0, r1, c0, c1 = r0 + 2, r1 - 2, c0 + 2, c1 - 2
        if r0 <= r1:
            spiral[r0 - 1, c0 - 2] = 1 if c0 - 2 >= 0 else 0
    cases.append(spiral)
    comb = np.zeros((30, 40), np.uint8)   # teeth joined only at the last row: late merges
    comb[:, ::2] = 1
    comb[-1, :] = 1
    cases += [comb, comb[::-1].copy(), comb[:, ::-1].copy(), comb.T.copy()]
    stair = np.zeros((25, 25), np.uint8)
    for i in range(25):
        stair[i, 24 - i] = 1   # anti-diagonal: joins only with diagonal connectivity
    cases.append(stair)
    for img in cases:
        for conn in range(1, max(img.ndim, 1) + 1):
            want, wn = skm.label(img, return_num=True, connectivity=conn)
            got, gn = fm.label(xp.put(img), return_num=True, connectivity=conn)
            same(xp.get(got), want)
            assert gn == wn


def test_label_large_parallel(xp, rng):
    # big enough for many CPU blocks (block borders merged in parallel)
    for shape, conn in [((300, 257), 2), ((300, 257), 1), ((40, 41, 43), 3), ((40, 41, 43), 1), ((3, 50000), 2)]:
        img = (rng.random(shape) < 0.55).astype(np.uint8)
        want, wn = skm.label(img, return_num=True, connectivity=conn)
        got, gn = fm.label(xp.put(img), return_num=True, connectivity=conn)
        same(xp.get(got), want)
        assert gn == wn


def test_label_layouts(xp, rng):
    img = images(rng, (20, 22, 6), "int16", 0.6, 2)
    for view in (img[::2], img[:, ::-1], img.transpose(2, 0, 1), img[..., ::3]):
        same(xp.get(fm.label(xp.put(view))), skm.label(view))


def test_label_errors(xp, rng):
    img = images(rng, (4, 5), "uint8", 0.5, 2)
    for conn in (0, 3, -1):
        with pytest.raises(ValueError, match="Connectivity for 2D image"):
            fm.label(xp.put(img), connectivity=conn)
        with pytest.raises(ValueError, match="Connectivity for 2D image"):
            fm.label(xp.put(img > 0), connectivity=conn)
    with pytest.raises(NotImplementedError):
        fm.label(xp.put(np.array(5)))
    with pytest.raises(ValueError):
        fm.label(xp.put(np.array(True)))
    with pytest.raises(TypeError):
        fm.label(xp.put(img), background="a")


# ---- scipy.ndimage.label ------------------------------------------------------------------


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_ndimage_label_structures(xp, rng, ndim):
    shape = SHAPES[ndim][-1]
    for density in (0.2, 0.5, 0.8):
        img = rng.random(shape) < density
        structs = [None] + [sndi.generate_binary_structure(ndim, c) for c in range(1, ndim + 1)]
        for _ in range(3):   # random point-symmetric structures
            s = rng.random((3,) * ndim) < 0.4
            structs.append(s | s[(slice(None, None, -1),) * ndim])
        for st in structs:
            want = sndi.label(img, st)
            got = fndi.label(xp.put(img), st)
            same(xp.get(got[0]), want[0])
            assert got[1] == want[1]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "int64", "float32", "float64", "float16"])
def test_ndimage_label_dtypes(xp, rng, dtype):
    img = (rng.random((13, 14)) < 0.5) * rng.integers(-3, 4, (13, 14))
    img = img.astype(dtype)
    if dtype.startswith("float"):
        img[0, 0] = np.nan
    if dtype == "float16":   # not in scipy's fused signature
        with pytest.raises(TypeError):
            sndi.label(img)
        with pytest.raises(TypeError):
            fndi.label(xp.put(img))
        return
    want = sndi.label(img)
    got = fndi.label(xp.put(img))
    same(xp.get(got[0]), want[0])
    assert got[1] == want[1]


def test_ndimage_label_output(xp, rng):
    img = rng.random((12, 13)) < 0.5
    for out_dt in (np.uint8, np.int16, np.int64, np.float32, "uint16"):
        want = sndi.label(img, output=out_dt)
        got = fndi.label(xp.put(img), output=out_dt)
        same(xp.get(got[0]), want[0])
        assert got[1] == want[1]
    for out_dt in (np.int32, np.uint16):
        o_ref = np.zeros(img.shape, out_dt)
        o = xp.put(np.zeros(img.shape, out_dt))
        assert fndi.label(xp.put(img), output=o) == sndi.label(img, output=o_ref)
        same(xp.get(o), o_ref)
    many = np.zeros((1, 600), bool)
    many[0, ::2] = True   # 300 labels do not fit uint8
    with pytest.raises(RuntimeError, match="insufficient bit-depth"):
        fndi.label(xp.put(many), output=np.uint8)
    same(xp.get(fndi.label(xp.put(np.array(3.0)))[0]), sndi.label(np.array(3.0))[0])
    assert fndi.label(xp.put(np.zeros((0, 2))))[1] == 0


def test_ndimage_label_errors(xp):
    a = xp.put(np.array([1, 1, 0, 1]))
    with pytest.raises(RuntimeError, match="equal rank"):
        fndi.label(a, np.ones((3, 3)))
    with pytest.raises(ValueError, match="equal to 3"):
        fndi.label(a, np.ones(5))
    with pytest.raises(ValueError, match="output shape"):
        fndi.label(a, output=xp.put(np.zeros(3, np.int32)))
    with pytest.raises(AssertionError):
        fndi.label(a, [1, 1, 0])
    with pytest.raises(TypeError):
        fndi.label(xp.put(np.ones(3, complex)))


# ---- segmentation ---------------------------------------------------------------------------


def labels_image(rng, shape, n=6, density=0.5):
    lab = rng.integers(1, n, shape)
    lab[rng.random(shape) > density] = 0
    return lab


def test_clear_border(xp, rng):
    for shape in [(20, 23), (9, 10, 11)]:
        lab = skm.label(labels_image(rng, shape, 3, 0.4))
        for kw in ({}, {"buffer_size": 2}, {"bgval": 7}, {"buffer_size": 1, "bgval": -1}):
            same(xp.get(fs.clear_border(xp.put(lab), **kw)), sks.clear_border(lab, **kw))
        mask = np.zeros(shape, bool)
        mask[(slice(2, -2),) * len(shape)] = True
        same(xp.get(fs.clear_border(xp.put(lab), mask=xp.put(mask))), sks.clear_border(lab, mask=mask))
        b = lab > 0
        same(xp.get(fs.clear_border(xp.put(b))), sks.clear_border(b))
        out = xp.put(np.zeros_like(lab))
        res = fs.clear_border(xp.put(lab), out=out)
        assert res is out
        same(xp.get(out), sks.clear_border(lab))
    with pytest.raises(ValueError):
        fs.clear_border(xp.put(np.ones((3, 4), int)), buffer_size=3)
    with pytest.raises(TypeError):
        fs.clear_border(xp.put(np.ones((3, 4), int)), mask=xp.put(np.ones((3, 4), int)))
    with pytest.raises(TypeError):   # skimage raises a tuple here, which Python makes a TypeError
        fs.clear_border(xp.put(np.ones((3, 4), int)), mask=xp.put(np.ones((3, 5), bool)))


def test_relabel_sequential(xp, rng):
    for dtype in ("uint8", "int32", "uint64", "int64"):
        lab = (labels_image(rng, (15, 16), 8) * 7 + np.where(rng.random((15, 16)) < 0.5, 3, 0)).astype(dtype)
        for offset in (1, 5, 250):
            got = fs.relabel_sequential(xp.put(lab), offset=offset)
            want = sks.relabel_sequential(lab, offset=offset)
            same(xp.get(got[0]), want[0])
            for g, w in zip(got[1:], want[1:]):
                same(np.asarray(g), np.asarray(w))
                same(xp.get(g.in_values), w.in_values)
                same(xp.get(g.out_values), w.out_values)
                assert len(g) == len(w)
                assert g.dtype == w.dtype
                same(xp.get(g(xp.put(lab))), w(lab))
                k = int(w.in_values[-1])
                assert int(g[k]) == int(w[k])
                same(xp.get(g[1:k:2]), w[1:k:2])
            assert str(got[1]).startswith("ArrayMap:")
    with pytest.raises(ValueError):
        fs.relabel_sequential(xp.put(np.array([1, 2])), offset=0)
    with pytest.raises(ValueError):
        fs.relabel_sequential(xp.put(np.array([-1, 2])))
    with pytest.raises(TypeError):
        fs.relabel_sequential(xp.put(np.array([1.0, 2.0])))


def test_join_segmentations(xp, rng):
    s1 = labels_image(rng, (14, 15), 4)
    s2 = labels_image(rng, (14, 15), 5) * 3
    same(xp.get(fs.join_segmentations(xp.put(s1), xp.put(s2))), sks.join_segmentations(s1, s2))
    got = fs.join_segmentations(xp.put(s1), xp.put(s2), return_mapping=True)
    want = sks.join_segmentations(s1, s2, return_mapping=True)
    same(xp.get(got[0]), want[0])
    for g, w in zip(got[1:], want[1:]):
        same(np.asarray(g), np.asarray(w))
    with pytest.raises(ValueError):
        fs.join_segmentations(xp.put(s1), xp.put(s2[:3]))


@pytest.mark.parametrize("mode", ["thick", "inner", "outer", "subpixel"])
def test_find_boundaries(xp, rng, mode):
    for shape in [(16, 17), (6, 7, 8)]:
        for dtype in ("uint8", "int32", "int64", "bool"):
            lab = labels_image(rng, shape, 4).astype(dtype)
            for conn in range(1, len(shape) + 1):
                for bg in (0, 1):
                    same(xp.get(fs.find_boundaries(xp.put(lab), conn, mode, bg)),
                         sks.find_boundaries(lab, conn, mode, bg))


def test_mark_boundaries(xp, rng):
    lab = labels_image(rng, (16, 17), 4)
    for img in (rng.random((16, 17)), rng.random((16, 17, 3)).astype(np.float32),
                rng.integers(0, 255, (16, 17), dtype=np.uint8)):
        for kw in ({}, {"color": (1, 0, 0), "outline_color": (0, 0, 1)}, {"mode": "inner"},
                   {"mode": "thick", "background_label": 1}):
            got = xp.get(fs.mark_boundaries(xp.put(img), xp.put(lab), **kw))
            want = sks.mark_boundaries(img, lab, **kw)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    got = xp.get(fs.mark_boundaries(xp.put(rng.random((8, 9))), xp.put(lab[:8, :9]), mode="subpixel"))
    want = sks.mark_boundaries(rng.random((8, 9)) * 0, lab[:8, :9], mode="subpixel")
    assert got.shape == want.shape


def test_expand_labels(xp, rng):
    for shape, spacing in [((20, 21), 1), ((20, 21), (1.0, 2.5)), ((8, 9, 10), 1)]:
        lab = skm.label(labels_image(rng, shape, 3, 0.05))
        for distance in (0, 1, 2.5, 10):
            got = xp.get(fs.expand_labels(xp.put(lab), distance, spacing))
            want = sks.expand_labels(lab, distance, spacing)
            assert got.dtype == want.dtype
            diff = got != want
            if diff.any():
                # only where two labelled pixels are exactly as near (ties broken otherwise)
                d = np.asarray(sndi.distance_transform_edt(lab == 0, sampling=spacing))
                for idx in zip(*np.nonzero(diff)):
                    for lbl in (got[idx], want[idx]):
                        dl = sndi.distance_transform_edt(lab != lbl, sampling=spacing)[idx]
                        assert abs(dl - d[idx]) < 1e-9


# ---- remove_small_objects / remove_small_holes ----------------------------------------------


def test_remove_small_objects(xp, rng):
    for shape in [(30, 31), (9, 10, 11)]:
        b = rng.random(shape) < 0.45
        lab = skm.label(b)
        for conn in range(1, len(shape) + 1):
            for max_size in (0, 1, 3, 10):
                same(xp.get(fmo.remove_small_objects(xp.put(b), connectivity=conn, max_size=max_size)),
                     skmo.remove_small_objects(b, connectivity=conn, max_size=max_size))
                same(xp.get(fmo.remove_small_holes(xp.put(b), connectivity=conn, max_size=max_size)),
                     skmo.remove_small_holes(b, connectivity=conn, max_size=max_size))
        same(xp.get(fmo.remove_small_objects(xp.put(lab), max_size=4)), skmo.remove_small_objects(lab, max_size=4))
        same(xp.get(fmo.remove_small_objects(xp.put(b))), skmo.remove_small_objects(b))
        out = xp.put(np.zeros(shape, bool))
        assert fmo.remove_small_objects(xp.put(b), max_size=2, out=out) is out
        same(xp.get(out), skmo.remove_small_objects(b, max_size=2))
        out = xp.put(np.zeros(shape, bool))
        assert fmo.remove_small_holes(xp.put(b), max_size=2, out=out) is out
        same(xp.get(out), skmo.remove_small_holes(b, max_size=2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(xp.get(fmo.remove_small_objects(xp.put(b), 3)), skmo.remove_small_objects(b, 3))
        same(xp.get(fmo.remove_small_holes(xp.put(b), 3)), skmo.remove_small_holes(b, 3))
        lab3 = lab.astype(np.int32)
        same(xp.get(fmo.remove_small_holes(xp.put(lab3), max_size=5)), skmo.remove_small_holes(lab3, max_size=5))
    with pytest.warns(FutureWarning, match="min_size"):
        fmo.remove_small_objects(xp.put(b), 3)
    with pytest.warns(FutureWarning, match="area_threshold"):
        fmo.remove_small_holes(xp.put(b), 3)
    with pytest.raises(ValueError, match="Both"):
        fmo.remove_small_objects(xp.put(b), 3, max_size=4)
    with pytest.warns(UserWarning, match="Only one label"):
        fmo.remove_small_objects(xp.put(b.astype(np.uint8)))
    with pytest.raises(TypeError):
        fmo.remove_small_objects(xp.put(b.astype(float)))
    with pytest.raises(ValueError, match="Negative"):
        fmo.remove_small_objects(xp.put(np.array([[-1, 2], [2, 3]])))
    with pytest.raises(TypeError, match="out dtype"):
        fmo.remove_small_holes(xp.put(b), out=xp.put(np.zeros(b.shape, np.uint8)))


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_relabel_sequential_past_the_int64_maximum(dtype):
    # offsets near the int64 maximum: distinct uint64 labels in order (an arange of Python
    # ints past int64 is float64, which made every label the same)
    from fovea.skimage.segmentation import relabel_sequential, join_segmentations

    imax = np.iinfo(np.int64).max
    labels = np.array([0, 1, imax, 42, 42, 7], dtype=dtype)
    out, fw, inv = relabel_sequential(labels, offset=imax)
    assert out.dtype == np.uint64
    want = {0: 0, 1: imax, 7: imax + 1, 42: imax + 2, imax: imax + 3}
    assert [int(v) for v in out] == [want[int(v)] for v in labels]
    np.testing.assert_array_equal(inv(out), labels)
    assert int(out.max()) == imax + 3
    # the join keeps working on such labels
    s2 = np.array([0, 0, 1, 1, 2, 2], dtype=dtype)
    np.testing.assert_array_equal(join_segmentations(labels, s2), sks.join_segmentations(labels, s2))
