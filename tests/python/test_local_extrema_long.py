"""local_maxima / local_minima on lines longer than one warp's 32-element chunk
and on wide plateaus: the CUDA path scans each line with ballots carried from
chunk to chunk and joins plateaus by union-find (src/cuda/morphology/extrema.cu);
NumPy inputs check the CPU path on the same data. Results equal scikit-image's."""

import numpy as np
import pytest
from skimage import morphology as sk

from fovea.skimage import morphology as fm

from conftest import random_array
from xpcase import xp_fixture  # noqa: E402 (tests/python/xpcase.py)

xp = xp_fixture()


def same(got, want):
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


@pytest.mark.parametrize("func", ["local_maxima", "local_minima"])
@pytest.mark.parametrize("shape", [(7, 300), (3, 1000), (40, 97), (5, 6, 130), (257,)])
@pytest.mark.parametrize("levels", [2, 4, 40])
def test_long_lines(xp, rng, func, shape, levels):
    # few levels: runs and plateaus that cross 32-element chunk edges
    image = random_array(rng, shape, "float64", lo=0, hi=levels).round().astype(np.int16)
    for connectivity in range(1, len(shape) + 1):
        for ab in (True, False):
            want = getattr(sk, func)(image, connectivity=connectivity, allow_borders=ab)
            same(xp.get(getattr(fm, func)(xp.put(image), connectivity=connectivity, allow_borders=ab)), want)


@pytest.mark.parametrize("func", ["local_maxima", "local_minima"])
def test_runs_of_exact_lengths(xp, func):
    # runs ending and starting exactly at chunk edges (31, 32, 33, 64, ...)
    parts = []
    for k, n in enumerate([1, 31, 32, 33, 1, 64, 2, 63, 65, 5]):
        parts.append(np.full(n, (k * 7) % 5, np.uint8))
    line = np.concatenate(parts)
    image = np.stack([np.roll(line, s) for s in range(6)])
    for ab in (True, False):
        want = getattr(sk, func)(image, allow_borders=ab)
        same(xp.get(getattr(fm, func)(xp.put(image), allow_borders=ab)), want)


@pytest.mark.parametrize("func", ["local_maxima", "local_minima"])
def test_float_specials(xp, rng, func):
    # NaN never joins a run or plateau; -0.0 equals 0.0
    image = random_array(rng, (9, 200), "float32", lo=-1, hi=1).round()
    image[rng.random(image.shape) < 0.05] = np.nan
    image[rng.random(image.shape) < 0.2] = -0.0
    for ab in (True, False):
        want = getattr(sk, func)(image, allow_borders=ab)
        same(xp.get(getattr(fm, func)(xp.put(image), allow_borders=ab)), want)


def test_wide_plateau(xp, rng):
    # one plateau across most of a 300x300 image, with bumps and dents
    image = np.full((300, 300), 10, np.uint8)
    image[rng.random(image.shape) < 0.01] = 11
    image[rng.random(image.shape) < 0.01] = 9
    for func in ("local_maxima", "local_minima"):
        for connectivity in (1, 2):
            want = getattr(sk, func)(image, connectivity=connectivity)
            same(xp.get(getattr(fm, func)(xp.put(image), connectivity=connectivity)), want)


@pytest.mark.parametrize("func", ["local_maxima", "local_minima"])
@pytest.mark.parametrize("shape", [(600, 1100), (40, 120, 150)])
@pytest.mark.parametrize("levels", [2, 5, 200])
def test_blocks(xp, rng, func, shape, levels):
    # large enough for the CPU path's row blocks (about 64 Ki pixels each, several
    # per thread): plateaus crossing block edges are deferred and flooded after
    image = random_array(rng, shape, "float64", lo=0, hi=levels).round().astype(np.uint8)
    image[tuple(slice(s // 3, s // 3 + 40) for s in shape)] = levels + 1   # a plateau over block edges
    for connectivity in (1, len(shape)):
        want = getattr(sk, func)(image, connectivity=connectivity)
        same(xp.get(getattr(fm, func)(xp.put(image), connectivity=connectivity)), want)
    # an asymmetric footprint keeps the sequential flood
    if len(shape) == 2:
        asym = np.array([[1, 1, 0], [0, 1, 0], [0, 1, 1]], bool)
        want = getattr(sk, func)(image, footprint=asym)
        same(xp.get(getattr(fm, func)(xp.put(image), footprint=asym)), want)
