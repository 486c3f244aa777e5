"""Patch bookkeeping without torch (fovea._patches): Otsu, tissue masks, grids, level-0
locations, the patch set's items and batch plan, pickling and per-process handles."""
import os
import pickle

import numpy as np
import pytest

import fovea
from fovea import _patches

tifffile = pytest.importorskip("tifffile")
import slides  # noqa: E402 (tests/python/slides.py; needs tifffile)


def test_import_fovea_does_not_import_torch():
    import subprocess
    import sys
    code = "import sys, fovea, fovea._patches; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.stdout.strip() == "False"


def test_fovea_torch_without_torch_is_a_clear_import_error():
    try:
        import torch  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="needs PyTorch"):
            import fovea.torch  # noqa: F401
    else:
        pytest.skip("torch is installed")


# ---- Otsu ---------------------------------------------------------------------------------------


def _otsu_brute(v):
    """Reference: try every integer threshold, maximise w0 w1 (m0 - m1)^2."""
    v = np.asarray(v, np.float64).ravel()
    best, bt = -1.0, None
    for t in range(1, 256):
        a, b = v[v < t], v[v >= t]
        if len(a) == 0 or len(b) == 0:
            continue
        w0, w1 = len(a) / len(v), len(b) / len(v)
        s = w0 * w1 * (a.mean() - b.mean()) ** 2
        if s > best + 1e-9:
            best, bt = s, t
    return bt


@pytest.mark.parametrize("seed", range(6))
def test_otsu_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 3000
    a = np.concatenate([rng.normal(rng.uniform(40, 120), rng.uniform(5, 25), n),
                        rng.normal(rng.uniform(150, 230), rng.uniform(5, 20), n // (seed + 1))])
    a = np.clip(a, 0, 255).round().astype(np.uint8)
    t = _patches.otsu_threshold(a)
    ref = _otsu_brute(a)
    # equal, or an equally good split (ties between empty bins)
    v = a.astype(np.float64)

    def score(t):
        lo, hi = v[v < t], v[v >= t]
        return len(lo) * len(hi) * (lo.mean() - hi.mean()) ** 2

    assert t == ref or score(t) == pytest.approx(score(ref), rel=1e-9)


def test_otsu_two_values_and_degenerate():
    a = np.array([10] * 50 + [200] * 50, np.uint8)
    t = _patches.otsu_threshold(a)
    assert 10 < t <= 200
    assert _patches.otsu_threshold(np.full(100, 77, np.uint8)) is None
    assert _patches.otsu_threshold(np.zeros(0)) is None


def test_otsu_tissue_mask():
    img = np.full((40, 60, 3), 245, np.uint8)
    img[10:30, 5:25] = (180, 90, 150)      # pink tissue
    m = _patches.otsu_tissue_mask(img)
    assert m.dtype == bool and m.shape == (40, 60)
    assert m[10:30, 5:25].all() and m.sum() == 400
    assert not _patches.otsu_tissue_mask(np.full((8, 8, 3), 250, np.uint8)).any()   # blank glass
    assert _patches.otsu_tissue_mask(np.full((8, 8, 3), 120, np.uint8)).all()       # all tissue
    g = _patches.rgb_to_gray(np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255]]], np.uint8))
    np.testing.assert_allclose(g[0], [0.299 * 255, 0.587 * 255, 0.114 * 255], rtol=1e-5)
    with pytest.raises(ValueError):
        _patches.rgb_to_gray(np.zeros((4, 4, 2)))


def test_mask_fractions():
    m = np.zeros((10, 10), bool)
    m[:, :5] = True                        # left half tissue; mask at downsample 4 (40 x 40 level 0)
    locs = np.array([[0, 0], [20, 0], [16, 8], [36, 36], [-4, 0], [38, 0]])
    f = _patches.mask_fractions(m, 4.0, locs, 8)
    np.testing.assert_allclose(f, [1.0, 0.0, 0.5, 0.0, 0.5, 0.0])
    # a patch smaller than a mask pixel takes that pixel
    np.testing.assert_allclose(_patches.mask_fractions(m, 4.0, [[1, 1], [21, 1]], 1), [1.0, 0.0])
    assert _patches.mask_fractions(m, 4.0, np.zeros((0, 2)), 8).shape == (0,)


def test_tissue_level():
    dims = [(50000, 40000), (12500, 10000), (3125, 2500), (781, 625), (195, 156)]
    assert _patches.tissue_level(dims) == 3
    assert _patches.tissue_level(dims, min_size=4000) == 1
    assert _patches.tissue_level([(300, 200)]) == 0
    assert _patches.tissue_level([(600, 100), (300, 50)]) == 0


# ---- grids --------------------------------------------------------------------------------------


@pytest.mark.parametrize("ds", [1.0, 2.0, 4.0, 3.999, 4.0012, 2.5, 1.3333333333333333])
def test_level0_round_trips(ds):
    c = np.arange(0, 5000, 7, dtype=np.int64)
    x = _patches._level0(c, ds)
    np.testing.assert_array_equal(np.floor(x / ds).astype(np.int64), c)
    np.testing.assert_array_equal(np.floor((x - 1) / ds).astype(np.int64) < c, True)   # the smallest


def test_grid_locations():
    g = _patches.grid_locations((1000, 600), 1.0, 256)
    assert g.dtype == np.int64 and g.shape == (3 * 2, 2)
    assert [tuple(v) for v in g[:4]] == [(0, 0), (256, 0), (512, 0), (0, 256)]
    g = _patches.grid_locations((1000, 600), 1.0, 256, stride=128)
    assert len(g) == 6 * 3 and g[:, 0].max() == 640 and g[:, 1].max() == 256
    g = _patches.grid_locations((250, 100), 4.0, 64, stride=50)   # level x 0, 50, 100, 150; y 0
    assert sorted(set(g[:, 0] // 4)) == [0, 50, 100, 150] and sorted(set(g[:, 1] // 4)) == [0]
    g = _patches.grid_locations((100, 40), 1.0, 256)            # smaller than a patch: one at the origin
    assert [tuple(v) for v in g] == [(0, 0)]
    assert len(_patches.grid_locations((0, 40), 1.0, 16)) == 0
    with pytest.raises(ValueError):
        _patches.grid_locations((10, 10), 1.0, 0)
    with pytest.raises(ValueError):
        _patches.grid_locations((10, 10), 1.0, 4, stride=0)


# ---- the patch set --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pyramid_path(tmp_path_factory):
    rng = np.random.default_rng(21)
    base = slides.tissue(rng, 1200, 1600)
    base[:, 800:] = 255                    # the right half is blank glass
    levels = slides.pyramid(base, 3)
    path = str(tmp_path_factory.mktemp("patches") / "p.tif")
    slides.write_pyramid(path, levels, tile=128, compression="zlib")
    return path


@pytest.fixture(scope="module")
def small_path(tmp_path_factory):
    rng = np.random.default_rng(22)
    path = str(tmp_path_factory.mktemp("patches") / "s.tif")
    slides.write_pyramid(path, slides.pyramid(slides.tissue(rng, 500, 700), 2), tile=128, compression="zlib")
    return path


def test_patch_set_grid_items_equal_read_region(pyramid_path):
    ps = _patches.PatchSet(pyramid_path, level=1, patch_size=100, stride=150)
    im = fovea.open(pyramid_path)
    w1, h1 = im.resolutions["level_dimensions"][1]
    assert len(ps) == ((w1 - 100) // 150 + 1) * ((h1 - 100) // 150 + 1)
    for i in range(len(ps)):
        arr, meta = ps.read(i)
        assert meta["slide"] == 0 and meta["path"] == pyramid_path and meta["level"] == 1
        np.testing.assert_array_equal(arr, im.read_region((meta["x"], meta["y"]), (100, 100), 1))
        assert (meta["x"] // 2) % 150 == 0 and (meta["y"] // 2) % 150 == 0
    assert ps.read(-1)[1] == ps.read(len(ps) - 1)[1]
    with pytest.raises(IndexError):
        ps.read(len(ps))


def test_patch_set_many_slides_and_locations(pyramid_path, small_path):
    locs = [(0, 0), (10, 20), (650, 450)]
    ps = _patches.PatchSet([pyramid_path, small_path], patch_size=64, locations=[None, locs])
    n0 = len(_patches.grid_locations((1600, 1200), 1.0, 64))
    assert len(ps) == n0 + 3
    assert [len(a) for a in ps.slide_locations] == [n0, 3]
    arr, meta = ps.read(n0 + 1)
    assert meta == {"slide": 1, "path": small_path, "x": 10, "y": 20, "level": 0}
    np.testing.assert_array_equal(arr, fovea.open(small_path).read_region((10, 20), (64, 64)))
    arr, meta = ps.read(n0 + 2)                          # past the edge: white padding
    assert (arr[-10:, -10:] == 255).all()
    one = _patches.PatchSet(small_path, patch_size=32, locations=np.array([[5, 6], [7, 8]]))
    assert len(one) == 2 and one.locate(1) == (0, 7, 8)
    with pytest.raises(ValueError, match="entries"):
        _patches.PatchSet([pyramid_path, small_path], locations=[locs])
    with pytest.raises(ValueError, match="level"):
        _patches.PatchSet(small_path, level=5)
    with pytest.raises(ValueError, match="tissue_mask"):
        _patches.PatchSet(small_path, tissue_mask="triangle")
    with pytest.raises(FileNotFoundError):
        _patches.PatchSet(small_path + ".missing")


def test_tissue_mask_skips_blank_half(pyramid_path):
    full = _patches.PatchSet(pyramid_path, patch_size=100)
    ps = _patches.PatchSet(pyramid_path, patch_size=100, tissue_mask="otsu")
    assert 0 < len(ps) < len(full)
    xs = ps.slide_locations[0][:, 0]
    assert xs.max() + 100 <= 800 + 100        # nothing wholly in the blank half
    assert (xs < 800).all()
    # every kept patch has tissue, and most of the left half is kept
    for i in range(0, len(ps), 7):
        arr, _ = ps.read(i)
        assert (arr < 230).any()
    assert len(ps) >= 0.5 * (full.slide_locations[0][:, 0] < 700).sum()
    # a callable gets the thumbnail and its downsample
    seen = {}

    def left_third(thumb, ds):
        seen["shape"], seen["ds"] = thumb.shape, ds
        m = np.zeros(thumb.shape[:2], bool)
        m[:, : thumb.shape[1] // 3] = True
        return m

    ps2 = _patches.PatchSet(pyramid_path, patch_size=100, tissue_mask=left_third, mask_level=2)
    assert seen["shape"] == (300, 400, 3) and seen["ds"] == pytest.approx(4.0)
    assert (ps2.slide_locations[0][:, 0] + 100 <= 1600 // 3 + 100).all()
    assert len(ps2) > 0
    with pytest.raises(ValueError, match="shape"):
        _patches.PatchSet(pyramid_path, patch_size=100, tissue_mask=lambda t, d: np.ones((3, 3), bool))


def test_read_thumbnail_in_strips(pyramid_path):
    im = fovea.open(pyramid_path)
    whole, ds = _patches.read_thumbnail(im, 0)
    assert ds == 1.0 and whole.shape == (1200, 1600, 3)
    small, ds = _patches.read_thumbnail(im, 0, max_pixels=1600 * 1200 // 9 + 1, strip_rows=100)
    assert ds == 3.0 and small.shape == (400, 534, 3)
    ref = whole[:1200, :1599].reshape(400, 3, 533, 3, 3).astype(np.float64).mean(axis=(1, 3))
    assert np.abs(small[:, :533].astype(np.float64) - ref).max() <= 0.5 + 1e-9


def test_patch_set_pickles_and_reopens_per_process(small_path):
    ps = _patches.PatchSet(small_path, patch_size=32, locations=[(0, 0), (40, 40)])
    a, _ = ps.read(1)
    h = ps.handle(0)
    assert ps.handle(0) is h
    clone = pickle.loads(pickle.dumps(ps))
    assert clone._handles == {}
    np.testing.assert_array_equal(clone.read(1)[0], a)
    assert clone.handle(0) is not h
    # a changed pid (a fork child) opens its own handles and keeps the inherited ones alive
    ps._pid = -1
    assert ps.handle(0) is not h and h in _patches._inherited


def test_patch_set_cache_config(small_path):
    try:
        ps = _patches.PatchSet(small_path, patch_size=32, locations=[(0, 0)], cache="nocache")
        assert fovea.cache_info().type != "nocache" or True
        ps.read(0)
        assert fovea.cache_info().type == "nocache"
        _patches.PatchSet(small_path, patch_size=32, locations=[(0, 0)],
                          cache={"type": "per_process", "memory_capacity": 32}).read(0)
        assert fovea.cache_info().type == "per_process" and fovea.cache_info().capacity == 32 << 20
        with pytest.raises(TypeError):
            _patches.PatchSet(small_path, cache=3)
    finally:
        fovea.cache("per_process", memory_capacity=256)


def test_batch_plan(pyramid_path, small_path):
    ps = _patches.PatchSet([pyramid_path, small_path, small_path], patch_size=64,
                           locations=[np.arange(20).reshape(10, 2), None, [(1, 1)] * 5])
    plan = ps.batch_plan(4)
    assert [[s for s, _ in g] for g in plan] == [[0], [1], [2]]
    np.testing.assert_array_equal(plan[0][0][1], ps.slide_locations[0])
    assert ps.num_batches(4) == 3 + -(-len(ps.slide_locations[1]) // 4) + 2
    assert ps.num_batches(4, drop_last=True) == 2 + len(ps.slide_locations[1]) // 4 + 1
    plan = ps.batch_plan(4, drop_last=True)
    assert [len(l) for g in plan for _, l in g] == [8, len(ps.slide_locations[1]) // 4 * 4, 4]
    a = ps.batch_plan(4, shuffle=True, seed=3, interleave=2)
    b = ps.batch_plan(4, shuffle=True, seed=3, interleave=2)
    c = ps.batch_plan(4, shuffle=True, seed=4, interleave=2)
    assert [len(g) for g in a] == [2, 1]
    flat = lambda p: [(s, l.tobytes()) for g in p for s, l in g]   # noqa: E731
    assert flat(a) == flat(b) and flat(a) != flat(c)
    for s, l in (x for g in a for x in g):
        assert sorted(map(tuple, l)) == sorted(map(tuple, ps.slide_locations[s]))
