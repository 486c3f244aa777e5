"""Batched reads of JPEG slides: the paths that decode uncached tiles straight into the
batch (tile-aligned grids: whole tiles with no copy; other patches: the needed iMCU rows
and columns through a small buffer) and the reuse of dropped batch buffers give the
pixels of single read_region calls (cached whole-tile decodes) and of tifffile's
decode, with edge tiles, partial last tile rows and columns, levels > 0, every pixel
format and batch_size / drop_last / shuffle / worker combinations."""
import itertools
import math

import numpy as np
import pytest

import fovea

tifffile = pytest.importorskip("tifffile")
pytest.importorskip("imagecodecs")

import slides  # noqa: E402

TILE = 64
W0, H0 = 601, 455           # partial last tile column and row at both levels


@pytest.fixture(scope="module", params=["ycbcr420", "rgb444"])
def jpeg_slide(request, tmp_path_factory):
    rng = np.random.default_rng(17)
    base = slides.tissue(rng, H0, W0)
    levels = slides.pyramid(base, 2)
    path = str(tmp_path_factory.mktemp("bj") / f"{request.param}.tif")
    extra = {} if request.param == "ycbcr420" else {
        "compressionargs": {"outcolorspace": "rgb"}, "subsampling": (1, 1)}
    slides.write_pyramid(path, levels, tile=TILE, compression="jpeg", **extra)
    return path, slides.tifffile_levels(path)


def _level0(v, ds):
    """The smallest level-0 coordinate whose level origin floor(x / ds) is v."""
    x = math.ceil(v * ds)
    assert math.floor(x / ds) == v
    return x


def _grid(w, h, ds, step=TILE):
    """Tile-aligned patch origins (level-0 coordinates) covering the level, edges included."""
    return np.array([(_level0(x, ds), _level0(y, ds)) for y in range(0, h, step) for x in range(0, w, step)],
                    np.int64)


def _random(n, w, h, ds, seed):
    rng = np.random.default_rng(seed)
    return np.stack([rng.integers(-40, w + 10, n) * ds, rng.integers(-40, h + 10, n) * ds], 1).astype(np.int64)


def _items(im, locs, size, level, **kw):
    return [item for b in im.read_region(locs, size, level, **kw) for item in b]


@pytest.mark.parametrize("level", [0, 1])
@pytest.mark.parametrize("kind", ["grid", "grid2", "random"])
def test_jpeg_batches_equal_single_reads_and_tifffile(jpeg_slide, level, kind):
    path, ref = jpeg_slide
    im = fovea.open(path)
    w, h = im.resolutions["level_dimensions"][level]
    dsf = im.resolutions["level_downsamples"][level]
    ds = round(dsf)
    if kind == "grid":        # one tile per patch (the fast path), last row/column partial
        locs, size = _grid(w, h, dsf), (TILE, TILE)
    elif kind == "grid2":     # tile-aligned patches of 2 x 2 tiles
        locs, size = _grid(w, h, dsf, 2 * TILE), (2 * TILE, 2 * TILE)
    else:                     # anywhere: parts of tiles, outside the image too
        locs, size = _random(40, w, h, ds, level), (50, 37)
    for nocache in (False, True):
        fovea.cache().clear()
        got = _items(im, locs, size, level, num_workers=2, batch_size=7, nocache=nocache)
        assert len(got) == len(locs)
        fovea.cache().clear()
        for (x, y), item in zip(locs, got):
            single = im.read_region((int(x), int(y)), size, level)   # through the cache: whole tiles
            np.testing.assert_array_equal(item, single)
            lx, ly = slides.level_origin(int(x), int(y), dsf, level)
            want = slides.region(slides.as_rgb(ref[level]), lx, ly, size[0], size[1], 255)
            np.testing.assert_array_equal(item, want)


@pytest.mark.parametrize("batch_size,num_workers,shuffle,drop_last",
                         list(itertools.product([1, 5, 16], [0, 1, 3], [False, True], [False, True])))
def test_jpeg_grid_options(jpeg_slide, batch_size, num_workers, shuffle, drop_last):
    path, ref = jpeg_slide
    im = fovea.open(path)
    locs = _grid(W0, H0, 1)
    singles = {im.read_region(tuple(map(int, l)), (TILE, TILE)).tobytes(): tuple(l) for l in locs}
    assert len(singles) == len(locs)
    fovea.cache().clear()
    seen = []
    batches = im.read_region(locs, (TILE, TILE), 0, num_workers=num_workers, batch_size=batch_size,
                             shuffle=shuffle, seed=3, drop_last=drop_last, prefetch_factor=2)
    for k, b in enumerate(batches):   # each batch dropped before the next: buffers are reused
        if batch_size == 1:   # cuCIM: batch_size 1 yields (H, W, C) regions
            assert b.shape == (TILE, TILE, 3)
            b = b[None]
        assert b.shape[1:] == (TILE, TILE, 3)
        seen.extend(singles[item.tobytes()] for item in b)
        del b
    want = len(locs) // batch_size * batch_size if drop_last else len(locs)
    assert len(seen) == want and len(set(seen)) == want
    if not shuffle:
        assert seen == [tuple(l) for l in locs[:want]]


def test_jpeg_kept_batches_are_not_reused(jpeg_slide):
    path, _ = jpeg_slide
    im = fovea.open(path)
    locs = _grid(W0, H0, 1)
    kept = list(im.read_region(locs, (TILE, TILE), 0, num_workers=2, batch_size=4, prefetch_factor=1))
    copies = [b.copy() for b in kept]
    # a second epoch dropping every batch at once reuses buffers; the kept ones stay intact
    again = [b.copy() for b in im.read_region(locs, (TILE, TILE), 0, num_workers=2, batch_size=4,
                                              prefetch_factor=1)]
    for a, b, c in zip(kept, copies, again):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("fmt", ["rgba", "native"])
def test_jpeg_grid_formats(jpeg_slide, fmt):
    path, _ = jpeg_slide
    im = fovea.open(path)
    locs = np.concatenate([_grid(W0, H0, 1), _random(20, W0, H0, 1, 5)])
    for nocache in (False, True):
        got = _items(im, locs, (TILE, TILE), 0, num_workers=2, batch_size=6, pixel_format=fmt, nocache=nocache)
        for (x, y), item in zip(locs, got):
            np.testing.assert_array_equal(item, im.read_region((int(x), int(y)), (TILE, TILE), 0,
                                                               pixel_format=fmt))
