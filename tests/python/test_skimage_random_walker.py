"""fovea.skimage.segmentation.random_walker against scikit-image 0.26.

Labels must EQUAL scikit-image's (values and dtype); probabilities
(return_full_prob) agree to well within the solver tolerance (both solve the
same linear systems with the same CG). CuPy cases run where fovea sees a GPU
and are skipped elsewhere (cupyx's CG may take other steps: probabilities
there are compared to 1e-2, labels away from ties)."""

import warnings

import numpy as np
import pytest
import scipy.ndimage as sndi
from skimage import data as skdata
from skimage import segmentation as sks

from fovea.skimage import segmentation as fs
from xpcase import xp_fixture  # noqa: E402 (tests/python/xpcase.py)


xp = xp_fixture(numpy={"prob_atol": 1e-6}, cupy={"prob_atol": 1e-2})


def blobs(rng, shape, sigma=3.0):
    x = sndi.gaussian_filter(rng.random(shape), sigma)
    return (x - x.min()) / np.ptp(x)


def as_dtype(x01, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return x01.astype(dt)
    return np.round(x01 * np.iinfo(dt).max).astype(dt)


def seeds_from(rng, x01, levels=(0.3, 0.7), keep=0.15, dtype=np.int32):
    """Seeds where x01 is clearly low (1) / high (2) / (with 3 levels) middling (3),
    a random `keep` fraction of them."""
    lab = np.zeros(x01.shape, dtype)
    lab[x01 < levels[0]] = 1
    lab[x01 > levels[-1]] = 2
    if len(levels) == 3:
        lab[np.abs(x01 - levels[1]) < 0.02] = 3
    lab[rng.random(x01.shape) > keep] = 0
    return lab


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def compare(xp, data, labels, **kw):
    want = quiet(sks.random_walker, data, labels.copy(), **kw)
    got = xp.get(quiet(fs.random_walker, xp.put(data), xp.put(labels.copy()), **kw))
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if kw.get("return_full_prob"):
        np.testing.assert_allclose(got, want, rtol=0, atol=xp.prob_atol)
    else:
        np.testing.assert_array_equal(got, want)
    return want


CAMERA = skdata.camera()[::8, ::8]


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32", "float64"])
@pytest.mark.parametrize("mode", ["cg", "cg_j", "bf", None])
@pytest.mark.parametrize("full", [False, True])
def test_random_walker_2d(rng, xp, dtype, mode, full):
    if xp.name == "cupy" and mode == "bf":
        pytest.skip("bf on CuPy: covered by test_random_walker_bf_gpu")
    x01 = blobs(rng, (48, 56))
    lab = seeds_from(rng, x01, levels=(0.3, 0.5, 0.7))
    want = compare(xp, as_dtype(x01, dtype), lab, mode=mode, return_full_prob=full)
    if not full:
        assert set(np.unique(want)) == {1, 2, 3}


@pytest.mark.parametrize("beta,tol", [(130, 1e-3), (20, 1e-5), (500, 1e-4)])
def test_random_walker_camera(rng, xp, beta, tol):
    lab = np.zeros(CAMERA.shape, np.uint8)
    lab[CAMERA < 40] = 1
    lab[CAMERA > 180] = 2
    lab[rng.random(CAMERA.shape) > 0.2] = 0
    compare(xp, CAMERA, lab, beta=beta, tol=tol)
    compare(xp, CAMERA, lab, beta=beta, tol=tol, return_full_prob=True)


@pytest.mark.parametrize("spacing", [(1, 1), (2.0, 0.5), np.array([1, 3])])
def test_random_walker_spacing_2d(rng, xp, spacing):
    x01 = blobs(rng, (40, 44))
    lab = seeds_from(rng, x01)
    compare(xp, x01, lab, spacing=spacing, return_full_prob=True)
    compare(xp, x01, lab, spacing=spacing)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("spacing", [None, (2, 1, 1), (1.0, 0.5, 2.0)])
def test_random_walker_3d(rng, xp, dtype, spacing):
    x01 = blobs(rng, (16, 20, 24), 2.0)
    lab = seeds_from(rng, x01, keep=0.2)
    compare(xp, as_dtype(x01, dtype), lab, spacing=spacing)
    compare(xp, as_dtype(x01, dtype), lab, spacing=spacing, return_full_prob=True)


@pytest.mark.parametrize("channel_axis", [-1, 0, 2])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_random_walker_multichannel_2d(rng, xp, channel_axis, dtype):
    x01 = blobs(rng, (40, 48))
    rgb = np.stack([x01, x01**2, 1 - x01], axis=-1)
    rgb = np.moveaxis(as_dtype(rgb, dtype), -1, channel_axis)
    lab = seeds_from(rng, x01)
    compare(xp, rgb, lab, channel_axis=channel_axis)
    compare(xp, rgb, lab, channel_axis=channel_axis, return_full_prob=True)


def test_random_walker_multichannel_3d(rng, xp):
    x01 = blobs(rng, (12, 16, 18), 2.0)
    data = np.stack([x01, np.sqrt(x01)], axis=0)
    lab = seeds_from(rng, x01, keep=0.25)
    compare(xp, data, lab, channel_axis=0, spacing=(1, 2, 1))
    compare(xp, data, lab, channel_axis=0, return_full_prob=True)


def test_random_walker_label_values_and_inactive(rng, xp):
    x01 = blobs(rng, (50, 50))
    lab = seeds_from(rng, x01, keep=0.2).astype(np.int16)
    lab[lab == 1] = 7
    lab[lab == 2] = 3
    lab[:4] = -1
    lab[20:26, 20:26] = -5  # an inactive block with
    lab[22:24, 22:24] = 0  # an unreachable unlabelled hole
    lab[40, :10] = 9
    want = compare(xp, x01, lab)
    assert set(np.unique(want)) == {-2, -1, 0, 1, 2, 3}
    assert (want[22:24, 22:24] == 0).all()
    compare(xp, x01, lab, return_full_prob=True)


def test_random_walker_isolated_seed(rng, xp):
    # a seed walled in by the image border and unlabelled-free seeds
    x01 = blobs(rng, (40, 40))
    lab = seeds_from(rng, x01)
    lab[0, 0] = 1
    lab[0, 1] = lab[1, 0] = 2
    lab[1, 1] = 1
    compare(xp, x01, lab)
    compare(xp, x01, lab, return_full_prob=True)


def test_random_walker_seed_inside_inactive_region(rng):
    """A seed with no active neighbour: scikit-image renumbers the graph wrongly
    (NaN probabilities); fovea leaves it out of the graph, which equals
    scikit-image's answer with that pixel inactive, the seed kept."""
    x01 = blobs(rng, (40, 40))
    lab = seeds_from(rng, x01)
    lab[:2] = -1
    lab[20:23, 20:23] = -1
    ref_lab = lab.copy()
    lab[21, 21] = 2
    want = quiet(sks.random_walker, x01, ref_lab, return_full_prob=True)
    want[1][21, 21] = 1
    got = quiet(fs.random_walker, x01, lab, return_full_prob=True)
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert fs.random_walker(x01, lab)[21, 21] == 2


def test_random_walker_copy_false(rng):
    x01 = blobs(rng, (30, 30))
    lab = seeds_from(rng, x01)
    lab[:3] = -1
    lab[10:14, 10:14] = -1
    lab[11:13, 11:13] = 0
    a, b = lab.copy(), lab.copy()
    want = quiet(sks.random_walker, x01, a, copy=False)
    got = quiet(fs.random_walker, x01, b, copy=False)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(b, a)  # the isolated hole marked -1 in place, as scikit-image
    assert (b[11:13, 11:13] == -1).all()


def test_random_walker_nothing_to_solve(xp):
    x = CAMERA.astype(np.float64)
    full = np.ones(x.shape, np.int32)
    full[:, 30:] = 4
    for kw in [dict(), dict(return_full_prob=True)]:
        with pytest.warns(UserWarning, match="No zero valued"):
            want = sks.random_walker(x, full.copy(), **kw)
        with pytest.warns(UserWarning, match="No zero valued"):
            got = xp.get(fs.random_walker(xp.put(x), xp.put(full.copy()), **kw))
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    lonely = full.copy()
    lonely[:] = -1
    lonely[5, 5] = 1
    lonely[20:23, 20:23] = 0
    for kw in [dict(), dict(return_full_prob=True)]:
        with pytest.warns(UserWarning, match="isolated"):
            want = sks.random_walker(x, lonely.copy(), **kw)
        with pytest.warns(UserWarning, match="isolated"):
            got = xp.get(fs.random_walker(xp.put(x), xp.put(lonely.copy()), **kw))
        np.testing.assert_array_equal(got, want)


def test_random_walker_warnings(rng):
    x01 = blobs(rng, (40, 40))
    lab = seeds_from(rng, x01)
    with pytest.warns(UserWarning, match="cg_mg"):
        got = fs.random_walker(x01, lab, mode="cg_mg", prob_tol=1)
    np.testing.assert_array_equal(got, quiet(sks.random_walker, x01, lab, mode="cg_j"))
    with pytest.warns(UserWarning, match="Conjugate gradient convergence"):
        fs.random_walker(x01, lab, beta=1e5, tol=1e-12, prob_tol=1e9)


def test_random_walker_errors(rng):
    x01 = blobs(rng, (20, 24))
    lab = seeds_from(rng, x01)

    def both(exc, *args, **kw):
        with pytest.raises(exc) as e_sk:
            quiet(sks.random_walker, *args, **kw)
        with pytest.raises(exc) as e_fv:
            quiet(fs.random_walker, *args, **kw)
        return e_sk.value, e_fv.value

    a, b = both(ValueError, x01, lab, mode="fast")
    assert str(a) == str(b)
    a, b = both(ValueError, x01, lab, spacing=(1, 2, 3))
    assert str(a) == str(b)
    a, b = both(ValueError, x01[0], lab[0])
    assert str(a) == str(b)
    a, b = both(ValueError, np.zeros((3, 4, 5, 6)), np.zeros((3, 4, 5, 6), int))
    assert str(a) == str(b)
    a, b = both(ValueError, x01, lab[:10])
    assert str(a) == str(b)
    a, b = both(ValueError, x01, lab, channel_axis=-1)  # 2-d data as multichannel
    assert str(a) == str(b)
    a, b = both(ValueError, np.stack([x01] * 2, -1), lab[:10], channel_axis=-1)
    assert str(a) == str(b)
    a, b = both(ValueError, x01, np.zeros_like(lab))  # no seeds
    assert str(a) == str(b)
    a, b = both(ValueError, x01, -np.ones_like(lab))
    assert str(a) == str(b)


def test_fovea_array_round_trip(rng):
    import fovea

    x01 = blobs(rng, (30, 34))
    lab = seeds_from(rng, x01)
    out = quiet(fs.random_walker, fovea.asarray(x01), fovea.asarray(lab))
    assert isinstance(out, fovea.Array)
    np.testing.assert_array_equal(np.asarray(out), quiet(sks.random_walker, x01, lab))


@pytest.mark.parametrize("prob_tol", [1e-3, 1e-2, 1e-1])
def test_random_walker_prob_tol_warning(rng, prob_tol):
    x01 = blobs(rng, (40, 40))
    lab = seeds_from(rng, x01, levels=(0.3, 0.5, 0.7))

    def range_warned(fn):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fn(x01, lab.copy(), prob_tol=prob_tol)
        return any("probability range" in str(w.message) for w in seen)

    assert range_warned(fs.random_walker) == range_warned(sks.random_walker)


def test_random_walker_constant_data():
    """std(data) == 0 makes every weight NaN: scikit-image iterates CG 10 n times
    and gets NaN probabilities; fovea stops at once with the same answer."""
    const = np.full((12, 14), 0.5)
    lab = np.zeros(const.shape, int)
    lab[0, 0], lab[-1, -1] = 1, 2
    with pytest.warns(UserWarning, match="Conjugate gradient"):
        got = fs.random_walker(const, lab, return_full_prob=True)
    want = quiet(sks.random_walker, const, lab, return_full_prob=True)
    np.testing.assert_array_equal(got, want)  # NaN where scikit-image has NaN
    np.testing.assert_array_equal(quiet(fs.random_walker, const, lab), quiet(sks.random_walker, const, lab))


@pytest.mark.parametrize("mode", ["cg", "cg_j"])
def test_block_cg_meets_its_tolerance(rng, mode):
    """The block CG's columns satisfy scipy's stopping rule ||b - A x|| < tol ||b||,
    and agree with the direct solve."""
    import scipy.sparse as sparse
    import scipy.sparse.linalg as linalg

    from fovea.skimage.segmentation import _random_walker as rw

    x01 = blobs(rng, (30, 36))
    lab = np.atleast_3d(seeds_from(rng, x01, levels=(0.3, 0.5, 0.7)))
    data = np.atleast_3d(x01)[..., np.newaxis]
    lap, rhs, _ = rw._linear_system(data, np.ones(3), lab, 3, None, 130, False, np, sparse)
    for tol in (1e-2, 1e-4, 1e-8):
        x, converged = rw._block_pcg(lap, rhs, tol, 1.0 / lap.diagonal() if mode == "cg_j" else None, np)
        assert converged.all()
        res = np.linalg.norm(rhs - lap @ x, axis=0)
        assert (res < tol * np.linalg.norm(rhs, axis=0)).all()
        direct = linalg.spsolve(lap.tocsc(), rhs)
        assert np.abs(x - direct).max() < 1e4 * tol


@pytest.mark.parametrize("case", ["3d", "3d-spacing", "multispectral-2d", "multispectral-3d"])
def test_random_walker_3d_multispectral_spacing(rng, case):
    # the labels of scikit-image's own 3-D / multispectral / spacing tests (which also
    # demand its UMFPACK warning for mode='cg': docs/compatibility.md)
    n = 16
    z, y, x = np.mgrid[:n, :n, :n]
    ball = ((z - n // 2) ** 2 + (y - n // 2) ** 2 + (x - n // 2) ** 2) < (n // 4) ** 2
    data = ball.astype(float) + rng.normal(0, 0.3, ball.shape)
    labels = np.zeros(ball.shape, np.int32)
    labels[n // 2, n // 2, n // 2] = 2
    labels[0, 0, 0] = labels[-1, -1, -1] = 1
    kw = {"mode": "cg", "tol": 1e-4}
    if case == "3d-spacing":
        kw["spacing"] = (1.0, 2.0, 0.5)
    if case == "multispectral-2d":
        data, labels = np.stack([data[n // 2], 1 - data[n // 2]], -1), labels[n // 2]
        kw["channel_axis"] = -1
    if case == "multispectral-3d":
        data = np.stack([data, data ** 2], -1)
        kw["channel_axis"] = -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sks.random_walker(data, labels, **kw)
    got = fs.random_walker(data, labels, **kw)
    np.testing.assert_array_equal(got, want)
