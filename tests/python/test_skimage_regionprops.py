"""regionprops / regionprops_table, the moment functions, perimeter,
perimeter_crofton, euler_number and convex_hull_image / convex_hull_object
against scikit-image 0.26 on random label images (thresholded smoothed noise
labelled by skimage, and random blobs), 2-d and 3-d, every label dtype,
intensity images of several dtypes with and without channels, spacing.

Floats agree to rtol 1e-6; the absolute tolerance of a column is 1e-6 times
the largest magnitude of that property (central moments that are 0 in exact
arithmetic come out as rounding noise in both libraries). Every test runs on
NumPy and, with a GPU and CuPy, on CuPy (the ``xp`` fixture); CuPy results
come back as CuPy arrays and are compared on the host."""

import warnings

import numpy as np
import pytest
import scipy.ndimage as sndi
from skimage import measure as skm
from skimage import morphology as skmo

from fovea.skimage import measure as fm
from fovea.skimage import morphology as fmo
from fovea.skimage.measure._regionprops import COL_DTYPES

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"), pytest.mark.filterwarnings("ignore::FutureWarning")]

LABEL_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
ONLY_2D = {"eccentricity", "moments_hu", "orientation", "perimeter", "perimeter_crofton", "moments_weighted_hu"}
NEED_UNIT_SPACING = {"moments_hu", "moments_weighted_hu"}
NEED_ISOTROPIC = {"perimeter", "perimeter_crofton"}
ALL_PROPS = list(COL_DTYPES)


class _Numpy:
    name = "numpy"

    @staticmethod
    def put(a):
        return a

    @staticmethod
    def get(a):
        return a


class _Cupy:
    name = "cupy"

    def __init__(self, cp):
        self.cp = cp

    def put(self, a):
        return None if a is None else self.cp.asarray(a)

    def get(self, a):
        return a.get() if isinstance(a, self.cp.ndarray) else a


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request):
    if request.param == "numpy":
        return _Numpy()
    return _Cupy(request.getfixturevalue("cp"))


def smooth_labels(rng, shape, sigma=1.5, level=0.5, dtype="int32"):
    lab = skm.label(sndi.gaussian_filter(rng.random(shape), sigma) > level)
    return lab.astype(dtype)


def blob_labels(rng, shape, n=12, dtype="int32"):
    """Random non-consecutive labels painted as overlapping boxes (gaps in the numbering)."""
    lab = np.zeros(shape, dtype=np.int64)
    for k in range(n):
        lo = [rng.integers(0, s) for s in shape]
        hi = [min(s, a + rng.integers(1, 7)) for a, s in zip(lo, shape)]
        lab[tuple(slice(a, b) for a, b in zip(lo, hi))] = 3 * k + 2
    return lab.astype(dtype)


def intensity(rng, shape, dtype, channels):
    shp = shape + ((channels,) if channels else ())
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shp) * 50 + 20).astype(dtype)
    return rng.integers(0, np.iinfo(dtype).max, shp, endpoint=True).astype(dtype)


def props_for(nd, spacing, with_intensity):
    out = []
    for p in ALL_PROPS:
        if nd == 3 and p in ONLY_2D:
            continue
        if spacing is not None and p in NEED_UNIT_SPACING | NEED_ISOTROPIC:
            continue
        if nd == 3 and p == "feret_diameter_max":
            continue   # skimage's marching_cubes fails on flat regions; tested separately
        if not with_intensity and p in ("image_intensity", "intensity_max", "intensity_mean", "intensity_median",
                                        "intensity_min", "intensity_std") or (not with_intensity and "weighted" in p):
            continue
        out.append(p)
    return out


def _close(got, want, atol):
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=atol, equal_nan=True)


def compare_tables(got, want, xp):
    assert list(got) == list(want)
    scale = {}
    for k, v in want.items():
        base = k.split("-")[0] if v.dtype != object else k
        if v.dtype != object and v.size:
            scale[base] = max(scale.get(base, 0.0), float(np.nan_to_num(np.abs(v.astype(float))).max()))
    for k, w in want.items():
        g = got[k]
        if w.dtype == object:
            assert isinstance(g, np.ndarray) and g.dtype == object, (k, type(g))
            assert len(g) == len(w)
            for a, b in zip(g, w):
                a = xp.get(a)
                if isinstance(b, tuple):
                    assert a == b, k
                else:
                    assert np.shape(a) == np.shape(b), k
                    if np.asarray(b).dtype == bool or np.asarray(b).dtype.kind in "iu":
                        np.testing.assert_array_equal(a, b, err_msg=k)
                    else:
                        _close(a, b, 1e-9)
            continue
        g = xp.get(g)
        assert isinstance(g, np.ndarray), (k, type(g))
        assert g.dtype == w.dtype, (k, g.dtype, w.dtype)
        assert g.shape == w.shape, (k, g.shape, w.shape)
        if w.dtype.kind in "iu":
            np.testing.assert_array_equal(g, w, err_msg=k)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6 * scale.get(k.split("-")[0], 1.0) + 1e-12,
                                       equal_nan=True, err_msg=k)


# ---- regionprops_table, every property ------------------------------------------

@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("maker", ["smooth", "blobs"])
@pytest.mark.parametrize("spacing", [None, "aniso"])
def test_table_all_properties(xp, nd, maker, spacing):
    rng = np.random.default_rng(10 * nd + (maker == "blobs") + 100 * (spacing is not None))
    shape = (40, 56) if nd == 2 else (12, 14, 16)
    lab = smooth_labels(rng, shape, 2.0 if nd == 2 else 1.2) if maker == "smooth" else blob_labels(rng, shape)
    inten = intensity(rng, shape, "float64", 0)
    sp = None if spacing is None else (1.5, 0.75, 2.0)[:nd]
    props = props_for(nd, sp, True)
    want = skm.regionprops_table(lab, inten, props, spacing=sp)
    got = fm.regionprops_table(xp.put(lab), xp.put(inten), props, spacing=sp)
    compare_tables(got, want, xp)


@pytest.mark.parametrize("ldt", LABEL_DTYPES)
def test_table_label_dtypes(xp, ldt):
    rng = np.random.default_rng(LABEL_DTYPES.index(ldt))
    lab = blob_labels(rng, (30, 33), n=20, dtype=ldt)
    if ldt.startswith("int"):
        lab[rng.random(lab.shape) < 0.05] = -1   # negative labels are ignored, as skimage's find_objects does
    props = ["label", "area", "bbox", "centroid", "moments", "moments_central", "inertia_tensor", "eccentricity",
             "orientation", "coords", "image", "euler_number", "perimeter"]
    want = skm.regionprops_table(lab, properties=props)
    got = fm.regionprops_table(xp.put(lab), properties=props)
    compare_tables(got, want, xp)


@pytest.mark.parametrize("idt", ["uint8", "uint16", "float32", "float64"])
@pytest.mark.parametrize("channels", [0, 1, 3])
@pytest.mark.parametrize("nd", [2, 3])
def test_table_intensity(xp, idt, channels, nd):
    rng = np.random.default_rng(7 + channels + 3 * nd)
    shape = (31, 37) if nd == 2 else (9, 11, 13)
    lab = smooth_labels(rng, shape, 1.5 if nd == 2 else 1.0, dtype="uint16")
    inten = intensity(rng, shape, idt, channels)
    props = ["label", "intensity_mean", "intensity_min", "intensity_max", "intensity_std", "moments_weighted",
             "moments_weighted_central", "moments_weighted_normalized", "centroid_weighted",
             "centroid_weighted_local", "image_intensity", "intensity_median"]
    if nd == 2:
        props.append("moments_weighted_hu")
    want = skm.regionprops_table(lab, inten, props)
    got = fm.regionprops_table(xp.put(lab), xp.put(inten), props)
    compare_tables(got, want, xp)


def test_table_separator_deprecated_names_and_extra(xp):
    rng = np.random.default_rng(3)
    lab = smooth_labels(rng, (30, 40))
    inten = intensity(rng, (30, 40), "float64", 2)

    def pixelcount(regionmask):
        return np.sum(regionmask)

    def quartiles(regionmask, image):
        return np.percentile(image[regionmask], q=(25, 50, 75))

    def ragged(regionmask):
        return np.argwhere(regionmask)

    props = ["label", "bbox_area", "centroid", "mean_intensity", "Area", "inertia_tensor"]
    kw = dict(separator="/", extra_properties=(pixelcount, quartiles, ragged))
    want = skm.regionprops_table(lab, inten, props, **kw)
    got = fm.regionprops_table(xp.put(lab), xp.put(inten), props, **kw)
    compare_tables(got, want, xp)
    assert "centroid/1" in got and "quartiles/2/1" in got


def test_sparse_huge_labels(xp):
    """Labels up to 2^40 (a table of max_label rows would not fit): numbered compactly first."""
    rng = np.random.default_rng(11)
    lab = blob_labels(rng, (30, 40), n=15, dtype="int64")
    big = np.where(lab > 0, lab + (1 << 40) - 100, 0)
    inten = intensity(rng, (30, 40), "float16", 0)
    props = ["label", "area", "bbox", "centroid", "moments_central", "intensity_mean", "intensity_std", "image"]
    # skimage itself cannot (find_objects allocates max_label entries): compare with the small labels,
    # float16 intensity as float64 (skimage averages in float16)
    want = skm.regionprops_table(lab, inten.astype(np.float64), props)
    want["label"] = want["label"] + (1 << 40) - 100
    got = fm.regionprops_table(xp.put(big), xp.put(inten), props)
    compare_tables(got, want, xp)
    for g, w in zip(fm.regionprops(xp.put(big)), skm.regionprops(lab)):
        assert g.label == w.label + (1 << 40) - 100 and g.bbox == w.bbox
        np.testing.assert_array_equal(xp.get(g.image), w.image)


def test_empty_image(xp):
    lab = np.zeros((8, 9), dtype=np.int32)
    inten = np.ones((8, 9, 2), np.float32)
    props = ["label", "area", "bbox", "centroid", "intensity_mean", "moments_hu", "image", "perimeter"]
    want = skm.regionprops_table(lab, inten, props)
    got = fm.regionprops_table(xp.put(lab), xp.put(inten), props)
    compare_tables(got, want, xp)
    assert all(len(v) == 0 for v in got.values())
    assert fm.regionprops(xp.put(lab)) == []


@pytest.mark.parametrize("nd", [2, 3])
def test_single_pixel_regions(xp, nd):
    shape = (7, 8) if nd == 2 else (5, 6, 7)
    lab = np.zeros(shape, dtype=np.int64)
    lab[(0,) * nd] = 4
    lab[tuple(s - 1 for s in shape)] = 9
    lab[(2,) * nd] = 1
    inten = np.arange(lab.size, dtype=np.float64).reshape(shape)
    props = [p for p in props_for(nd, None, True) if p not in ("image_convex", "area_convex", "solidity")]
    want = skm.regionprops_table(lab, inten, props)
    got = fm.regionprops_table(xp.put(lab), xp.put(inten), props)
    compare_tables(got, want, xp)


# ---- regionprops objects ----------------------------------------------------------

def _value_close(a, b, prop):
    if isinstance(b, tuple) and b and isinstance(b[0], slice):
        assert a == b, prop
        return
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.shape == b.shape, (prop, a.shape, b.shape)
    if b.dtype == bool or b.dtype.kind in "iu":
        np.testing.assert_array_equal(a, b, err_msg=prop)
    else:
        scale = float(np.nan_to_num(np.abs(b.astype(float))).max()) if b.size else 1.0
        np.testing.assert_allclose(a.astype(float), b.astype(float), rtol=1e-6, atol=1e-6 * scale + 1e-12,
                                   equal_nan=True, err_msg=prop)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("cache", [True, False])
def test_regionprops_objects(xp, nd, cache):
    rng = np.random.default_rng(21 + nd)
    shape = (36, 41) if nd == 2 else (10, 12, 14)
    lab = smooth_labels(rng, shape, 1.8 if nd == 2 else 1.1)
    inten = intensity(rng, shape, "uint16", 2)
    sp = (1.0, 2.0, 0.5)[:nd]
    want = skm.regionprops(lab, inten, cache=cache, spacing=sp, offset=(3,) * nd)
    got = fm.regionprops(xp.put(lab), xp.put(inten), cache=cache, spacing=sp, offset=(3,) * nd)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.label == w.label and g.bbox == w.bbox and g.slice == w.slice
        assert sorted(g) == sorted(w)
        for prop in w:
            try:
                wv = w[prop]
            except (NotImplementedError, ValueError) as e:
                with pytest.raises(type(e)):
                    g[prop]
                continue
            _value_close(xp.get(g[prop]), wv, prop)


def test_regionprops_attributes_and_errors():
    rng = np.random.default_rng(5)
    lab = smooth_labels(rng, (20, 25))
    r = fm.regionprops(lab)[0]
    with pytest.warns(FutureWarning):
        assert r.bbox_area == r.area_bbox
    with pytest.warns(FutureWarning):
        assert r["Area"] == r.area
    with pytest.raises(AttributeError, match="intensity_image"):
        r.intensity_mean
    with pytest.raises(AttributeError):
        r.no_such_property
    assert repr(r) == f"<RegionProperties: label={r.label}, bbox={r.bbox}>"
    again = fm.regionprops(lab)
    assert again[0] == r and again[1] != r and r != "r"
    with pytest.raises(AttributeError, match="number of arguments"):
        def two_many(a, b, c):
            return 0
        getattr(fm.regionprops(lab, extra_properties=(two_many,))[0], "two_many")
    r3 = fm.regionprops(smooth_labels(rng, (6, 7, 8), 1.0))[0]
    with pytest.raises(NotImplementedError):
        r3.eccentricity
    rs = fm.regionprops(lab, spacing=(1, 2))[0]
    with pytest.raises(NotImplementedError):
        rs.moments_hu
    with pytest.raises(NotImplementedError):
        rs.perimeter


def test_bad_input():
    lab = np.zeros((5, 6), dtype=np.int32)
    lab[1:3, 2:4] = 1
    with pytest.raises(TypeError, match="Non-integer label_image"):
        fm.regionprops(lab.astype(float))
    with pytest.raises(TypeError, match="Non-integer image types are ambiguous"):
        fm.regionprops(lab.astype(bool))
    with pytest.raises(TypeError, match="Only 2-D and 3-D"):
        fm.regionprops(np.zeros(5, np.int32))
    with pytest.raises(ValueError, match="shapes must match"):
        fm.regionprops(lab, np.zeros((5, 7)))
    with pytest.raises(ValueError, match="shapes must match"):
        fm.regionprops_table(lab, np.zeros((5, 6, 2, 2)), ["intensity_mean"])
    with pytest.raises(AttributeError):
        fm.regionprops_table(lab, properties=["label", "no_such_property"])
    with pytest.raises(AttributeError, match="intensity_image"):
        fm.regionprops_table(lab, properties=["intensity_mean"])
    with pytest.raises(ValueError, match="spacing"):
        fm.regionprops(lab, spacing=(1, 2, 3))
    with pytest.raises(ValueError, match="Offset"):
        fm.regionprops(lab, offset=(1, 2, 3))


def test_region_stats_table_directly():
    """The C table: counts, boxes and moments about the box start, far from the origin."""
    from fovea import _fovea

    lab = np.zeros((3000, 40), dtype=np.int32)
    lab[2990:2995, 30:37] = 2
    lab[0, 0] = 1
    t = np.asarray(_fovea.measure_region_stats(lab, None, 3))
    assert t.shape == (3, 1 + 4 + 16)
    assert t[2, 0] == 0 and not t[2].any()
    np.testing.assert_array_equal(t[1, :5], [35, 2990, 30, 2995, 37])
    want = skm.moments(lab[2990:2995, 30:37] == 2)
    np.testing.assert_allclose(t[1, 5:].reshape(4, 4), want, rtol=1e-15)
    with pytest.raises(ValueError, match="1 to 4 dimensions"):
        _fovea.measure_region_stats(np.zeros((2,) * 5, np.int32), None, 1)
    with pytest.raises(TypeError):
        _fovea.measure_region_stats(np.zeros((2, 2), np.float32), None, 1)


# ---- measure functions ---------------------------------------------------------------

@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
def test_moment_functions(nd, dtype):
    rng = np.random.default_rng(nd)
    img = (rng.random((13, 17, 9)[:nd]) * 100).astype(dtype)
    sp = (1.5, 0.5, 2.0)[:nd]
    rtol = 1e-4 if dtype == "float32" else 1e-9
    for f in ("moments", "moments_central"):
        for kw in ({}, {"spacing": sp}):
            w = getattr(skm, f)(img, **kw)
            g = getattr(fm, f)(img, **kw)
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * np.abs(w).max())
    c = skm.centroid(img)
    w = skm.moments_central(img, c, order=2)
    np.testing.assert_allclose(fm.moments_central(img, c, order=2), w, rtol=rtol, atol=rtol * np.abs(w).max())
    mu = skm.moments_central(img)
    np.testing.assert_allclose(fm.moments_normalized(mu), skm.moments_normalized(mu), rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(fm.moments_normalized(mu, 2, spacing=sp), skm.moments_normalized(mu, 2, spacing=sp),
                               rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(fm.centroid(img, spacing=sp), skm.centroid(img, spacing=sp), rtol=rtol)
    np.testing.assert_allclose(fm.inertia_tensor(img), skm.inertia_tensor(img), rtol=rtol, atol=1e-9)
    np.testing.assert_allclose(fm.inertia_tensor_eigvals(img), skm.inertia_tensor_eigvals(img), rtol=rtol)
    if nd == 2:
        nu = skm.moments_normalized(mu)
        g = fm.moments_hu(nu)
        assert g.dtype == skm.moments_hu(nu).dtype
        np.testing.assert_allclose(g, skm.moments_hu(nu), rtol=1e-6, atol=1e-12)
    coords = rng.random((40, nd)) * 10
    np.testing.assert_allclose(fm.moments_coords(coords), skm.moments_coords(coords), rtol=1e-12)
    np.testing.assert_allclose(fm.moments_coords_central(coords), skm.moments_coords_central(coords), rtol=1e-9,
                               atol=1e-9)
    with pytest.raises(ValueError):
        fm.moments_normalized(np.zeros((2, 2)), 3)


@pytest.mark.parametrize("seed", range(4))
def test_perimeter_euler(seed):
    rng = np.random.default_rng(seed)
    for _ in range(5):
        img = sndi.gaussian_filter(rng.random((23, 29)), 1.5) > 0.5
        for n in (4, 8):
            assert fm.perimeter(img, n) == pytest.approx(skm.perimeter(img, n), rel=1e-12)
        for d in (2, 4):
            assert fm.perimeter_crofton(img, d) == pytest.approx(skm.perimeter_crofton(img, d), rel=1e-12)
        for c in (1, 2):
            assert fm.euler_number(img, c) == skm.euler_number(img, c)
        vol = sndi.gaussian_filter(rng.random((9, 10, 11)), 1.0) > 0.5
        for c in (1, 3):
            assert fm.euler_number(vol, c) == skm.euler_number(vol, c)
    with pytest.raises(NotImplementedError):
        fm.perimeter(np.zeros((3, 3, 3)))
    with pytest.raises(NotImplementedError):
        fm.euler_number(np.zeros((3, 3, 3)), 2)


@pytest.mark.parametrize("seed", range(3))
def test_convex_hull(xp, seed):
    rng = np.random.default_rng(seed)
    for k in range(6):
        img = sndi.gaussian_filter(rng.random((27, 31)), 2.0) > 0.52
        got = xp.get(fmo.convex_hull_image(xp.put(img)))
        np.testing.assert_array_equal(got, skmo.convex_hull_image(img))
        np.testing.assert_array_equal(xp.get(fmo.convex_hull_object(xp.put(img))), skmo.convex_hull_object(img))
        np.testing.assert_array_equal(xp.get(fmo.convex_hull_object(xp.put(img), connectivity=1)),
                                      skmo.convex_hull_object(img, connectivity=1))
    vol = sndi.gaussian_filter(rng.random((9, 10, 11)), 1.5) > 0.5
    np.testing.assert_array_equal(xp.get(fmo.convex_hull_image(xp.put(vol))), skmo.convex_hull_image(vol))
    line = np.zeros((6, 7), bool)
    line[2, 1:5] = True
    np.testing.assert_array_equal(fmo.convex_hull_image(line), skmo.convex_hull_image(line))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not fmo.convex_hull_image(np.zeros((4, 4))).any()
    with pytest.raises(ValueError):
        fmo.convex_hull_object(vol)


def test_feret_3d():
    rng = np.random.default_rng(9)
    lab = smooth_labels(rng, (14, 15, 16), 1.3)
    for g, w in zip(fm.regionprops(lab, spacing=(1, 2, 0.5)), skm.regionprops(lab, spacing=(1, 2, 0.5))):
        try:
            wv = w.feret_diameter_max
        except ValueError:
            with pytest.raises(ValueError):
                g.feret_diameter_max
            continue
        assert g.feret_diameter_max == pytest.approx(wv, rel=1e-9)


def test_moments_weighted_hu_checks_in_skimage_order():
    # 2-D only, then spacing (1, 1) only, then the intensity image, as scikit-image
    lab = np.zeros((6, 7), np.int32)
    lab[1:4, 2:6] = 1
    for mod in (fm, skm):
        with pytest.raises(NotImplementedError, match="spacing"):
            mod.regionprops(lab, spacing=(2, 1))[0].moments_weighted_hu
        with pytest.raises(AttributeError, match="intensity_image"):
            mod.regionprops(lab)[0].moments_weighted_hu
        with pytest.raises(NotImplementedError):
            mod.regionprops(lab[None].repeat(2, 0))[0].moments_weighted_hu


def test_region_properties_pickle(xp):
    """RegionProperties pickle and compare equal after (scikit-image gh-6465); the array
    module travels by name."""
    import pickle
    lab = np.zeros((12, 10), np.int32)
    lab[2:9, 1:6] = 1
    lab[3:5, 7:9] = 2
    img = np.random.default_rng(2).random(lab.shape)
    regions = fm.regionprops(xp.put(lab), xp.put(img))
    for r in regions:
        u = pickle.loads(pickle.dumps(r))
        assert u == r
        assert u.area == r.area and u.label == r.label
        np.testing.assert_allclose(float(u.intensity_mean), float(r.intensity_mean))


def test_label_image_and_cache_switch():
    """scikit-image's _label_image and _cache_active: cached properties keep their
    values after the label image changes; with the cache off they see the change."""
    lab = np.zeros((12, 12), np.int32)
    lab[2:10, 2:10] = 1
    lab[4:6, 4:6] = 0
    region = fm.regionprops(lab)[0]
    assert region._label_image is region._batch.label_image
    f0 = region.image_filled
    region._label_image[2:4, 2:10] = 0
    np.testing.assert_array_equal(region.image_filled, f0)
    region._cache_active = False
    assert np.any(region.image_filled != f0)


@pytest.mark.parametrize("spacing", [(1.0, 1.0), (3.2, 1.2)])
@pytest.mark.parametrize("channels", [None, 2])
def test_weighted_central_moments_summed_directly(xp, spacing, channels):
    # scikit-image's test_orientation_continuity: wmu against the direct sums to 7
    # decimals, on values up to ~1e10; shifting raw sums to the centroid missed that
    rng = np.random.default_rng(5)
    lab = np.zeros((60, 50), int)
    lab[5:40, 3:45] = 1
    lab[42:58, 10:30] = 2
    inten = rng.random(lab.shape + ((channels,) if channels else ())) * 1000
    got = fm.regionprops(xp.put(lab), intensity_image=xp.put(inten), spacing=spacing)
    for g in got:
        wmu = np.asarray(xp.get(g.moments_weighted_central))
        rows, cols = np.nonzero(np.asarray(xp.get(g.image)))
        w = np.asarray(xp.get(g.image_intensity))[rows, cols]
        cw = np.asarray(xp.get(g.centroid_weighted_local)).reshape(2, -1)
        for c in range(channels or 1):
            wc = w[:, c] if channels else w
            dr, dc = rows * spacing[0] - cw[0, c], cols * spacing[1] - cw[1, c]
            for p in range(4):
                for q in range(4):
                    direct = np.sum(wc * dr**p * dc**q)
                    have = wmu[p, q, c] if channels else wmu[p, q]
                    assert abs(have - direct) <= 1e-7 + 1e-11 * abs(direct), (p, q, have, direct)


def test_property_docs_in_scikit_images_layout():
    import skimage.measure._regionprops as skr
    region = fm.regionprops(np.ones((3, 3), int))[0]
    props = [m for m in dir(region) if not m.startswith("_")]
    saved = skr.regionprops
    try:
        skr.regionprops = fm.regionprops   # scikit-image's parser reads regionprops.__doc__
        docs = skr._parse_docs()
    finally:
        skr.regionprops = saved
    assert sorted(docs) == sorted(props)
    assert type(region).moments_weighted_normalized.__doc__.count("\n") > 3
