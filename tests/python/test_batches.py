"""Batched patch loading (cuCIM's multi-location read_region): each batch item equals the
single read of its location, no loss and no duplicate for every option combination,
seeded shuffles, cuCIM's flattening, errors, and early close."""
import itertools
import threading

import numpy as np
import pytest

import fovea

tifffile = pytest.importorskip("tifffile")


@pytest.fixture(scope="module")
def slide_path(tmp_path_factory):
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (700, 900, 3), dtype=np.uint8)
    path = str(tmp_path_factory.mktemp("batches") / "b.tif")
    tifffile.imwrite(path, img, tile=(128, 128), compression="zlib", photometric="rgb")
    return path


def locations(n, seed=0):
    rng = np.random.default_rng(seed)
    return np.stack([rng.integers(-30, 900, n), rng.integers(-30, 700, n)], 1)


@pytest.mark.parametrize("batch_size,num_workers,shuffle,drop_last,prefetch",
                         list(itertools.product([1, 3, 8], [0, 1, 4], [False, True], [False, True], [1, 3])))
def test_batches_equal_single_reads(slide_path, batch_size, num_workers, shuffle, drop_last, prefetch):
    im = fovea.open(slide_path)
    locs = locations(19)
    singles = {im.read_region(tuple(l), (24, 16)).tobytes(): tuple(l) for l in locs}
    assert len(singles) == len(locs)   # distinct patches, so each identifies its location
    seen = []
    batches = list(im.read_region(locs, (24, 16), 0, num_workers=num_workers, batch_size=batch_size,
                                  prefetch_factor=prefetch, shuffle=shuffle, seed=11, drop_last=drop_last))
    for k, b in enumerate(batches):
        if batch_size == 1:   # cuCIM: batch_size 1 yields (H, W, C) regions
            assert b.shape == (16, 24, 3)
            b = b[None]
        assert b.dtype == np.uint8 and b.shape[1:] == (16, 24, 3)
        assert b.shape[0] == batch_size or (k == len(batches) - 1 and not drop_last and b.shape[0] < batch_size)
        for item in b:
            seen.append(singles[item.tobytes()])
    want = len(locs) // batch_size * batch_size if drop_last else len(locs)
    assert len(seen) == want and len(set(seen)) == want
    if not shuffle:
        assert seen == [tuple(l) for l in locs[:want]]


def test_shuffle_is_reproducible_by_seed(slide_path):
    im = fovea.open(slide_path)
    locs = locations(40, 1)

    def order(seed, workers):
        return [b.tobytes() for b in im.read_region(locs, (8, 8), 0, num_workers=workers, batch_size=1,
                                                     shuffle=True, seed=seed)]

    assert order(3, 0) == order(3, 4)
    assert order(3, 2) != order(4, 2)
    assert sorted(order(3, 2)) == sorted(order(4, 2))


def test_cucim_flattening_and_single(slide_path):
    im = fovea.open(slide_path)
    a = list(im.read_region([0, 0, 100, 0], (32, 32), 0, batch_size=2))
    assert len(a) == 1 and a[0].shape == (2, 32, 32, 3)
    np.testing.assert_array_equal(a[0][1], im.read_region((100, 0), (32, 32)))
    gen = ((x, 0) for x in range(0, 300, 100))
    b = list(im.read_region(gen, (32, 32), 0))
    assert [x.shape for x in b] == [(32, 32, 3)] * 3   # batch_size 1: regions, as cuCIM's
    single = im.read_region((100, 0), (32, 32))
    assert single.shape == (32, 32, 3)
    # cuCIM: one location in a list is one region; batch_size > 1 is an iterator even for one
    np.testing.assert_array_equal(im.read_region([(100, 0)], (32, 32)), single)
    one = im.read_region((100, 0), (32, 32), 0, batch_size=4)
    assert len(one) == 1 and [x.shape for x in one] == [(1, 32, 32, 3)]
    it = im.read_region(np.array([[0, 0], [1, 1], [2, 2]]), (4, 4), 0, batch_size=2)
    assert len(it) == 2


def test_batches_are_fresh_arrays(slide_path):
    im = fovea.open(slide_path)
    it = im.read_region(locations(12, 2), (16, 16), 0, num_workers=3, batch_size=2, prefetch_factor=1)
    first = next(it)
    keep = first.copy()
    rest = list(it)
    assert len(rest) == 5
    np.testing.assert_array_equal(first, keep)   # not overwritten by later batches


def test_bad_input(slide_path):
    im = fovea.open(slide_path)
    with pytest.raises(ValueError, match="pairs"):
        im.read_region([0, 0, 5], (8, 8), 0)
    with pytest.raises(TypeError, match="integers"):
        im.read_region(np.array([[0.5, 1.0], [2.0, 3.0]]), (8, 8), 0)
    with pytest.raises(ValueError, match="batch_size"):
        im.read_region([(0, 0), (1, 1)], (8, 8), 0, batch_size=0)
    with pytest.raises(ValueError, match="batch_size"):
        im.read_region([(0, 0), (1, 1)], (8, 8), 0, batch_size=-3)
    with pytest.raises(ValueError, match="num_workers"):
        im.read_region([(0, 0), (1, 1)], (8, 8), 0, num_workers=-1)
    with pytest.raises(ValueError):
        im.read_region([(0, 0), (1, 1)], (-8, 8), 0)
    with pytest.raises(ValueError, match="level"):
        im.read_region([(0, 0), (1, 1)], (8, 8), 7)
    # zero workers with many locations: served in the calling thread
    assert sum(b.shape[0] for b in im.read_region(locations(50, 3), (8, 8), 0, num_workers=0, batch_size=7)) == 50


def test_close_early_stops_workers(slide_path):
    im = fovea.open(slide_path)
    before = threading.active_count()
    for _ in range(20):
        it = im.read_region(locations(200, 4), (64, 64), 0, num_workers=4, batch_size=8)
        next(it)
        it.close()
        it2 = im.read_region(locations(200, 5), (64, 64), 0, num_workers=4, batch_size=8)
        next(it2)
        del it2   # dropping it stops the workers too
    assert threading.active_count() == before
    with pytest.raises(StopIteration):
        next(it)


def test_failure_mid_iteration_raises_once(tmp_path):
    rng = np.random.default_rng(6)
    img = rng.integers(0, 256, (1024, 1024, 3), dtype=np.uint8)
    path = tmp_path / "f.tif"
    tifffile.imwrite(path, img, tile=(128, 128), compression="zlib", photometric="rgb")
    with tifffile.TiffFile(path) as tf:
        offsets = tf.pages[0].dataoffsets
    im = fovea.open(str(path))
    data = bytearray(path.read_bytes())
    for i in range(offsets[40], offsets[40] + 64):   # corrupt tile 40 (x 0, y 5 * 128)
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    locs = [(0, 0), (128, 0), (0, 5 * 128 + 1), (256, 0)]
    it = im.read_region(locs, (16, 16), 0, num_workers=2, batch_size=1, nocache=True)
    assert next(it).shape == (16, 16, 3)
    assert next(it).shape == (16, 16, 3)
    with pytest.raises((fovea.FormatError, OSError)):
        next(it)
    with pytest.raises(StopIteration):
        next(it)
