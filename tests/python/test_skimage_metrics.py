"""fovea.skimage.metrics against scikit-image 0.26 on random data: SSIM (with
gradient and full images), MSE / NRMSE / PSNR, NMI, the contingency table,
adapted Rand error, variation of information and the Hausdorff distances.
Every test runs on NumPy and, where fovea sees a GPU and CuPy imports, on
CuPy (the ``xp`` fixture)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from skimage import metrics as skm

from fovea.skimage import metrics as fm
from xpcase import xp_fixture  # noqa: E402 (tests/python/xpcase.py)

DTYPES = ["uint8", "uint16", "int16", "float32", "float64"]


xp = xp_fixture(scalars=True)


def pair(rng, shape, dtype, noise=0.2):
    """Two correlated random images of dtype (values spread over a good part of
    the type's range; signed types include negatives)."""
    dt = np.dtype(dtype)
    base = rng.random(shape)
    other = np.clip(base + noise * rng.standard_normal(shape), 0, 1)
    if dt.kind == "f":
        return base.astype(dt), other.astype(dt)
    info = np.iinfo(dt)
    lo, hi = (info.min // 2, info.max // 2) if dt.kind == "i" else (0, info.max)
    return ((lo + base * (hi - lo)).astype(dt), (lo + other * (hi - lo)).astype(dt))


def close(got, want, rtol=1e-6, atol=0.0):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- SSIM

def data_range_for(dtype):
    return 1.0 if np.dtype(dtype).kind == "f" else None


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(33, 41), (11, 13, 12)])
@pytest.mark.parametrize("gaussian_weights", [False, True])
def test_ssim_full_and_gradient(xp, rng, dtype, shape, gaussian_weights):
    a, b = pair(rng, shape, dtype)
    kw = dict(gaussian_weights=gaussian_weights, gradient=True, full=True, data_range=data_range_for(dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skm.structural_similarity(a, b, **kw)
        got = fm.structural_similarity(xp.put(a), xp.put(b), **kw)
    close(xp.get(got[0]), np.float64(want[0]), rtol=1e-6)
    scale = np.abs(want[1]).max()
    close(xp.get(got[1]), want[1], rtol=1e-6, atol=1e-6 * scale)
    close(xp.get(got[2]), want[2], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("opts", [
    dict(win_size=3), dict(win_size=9), dict(use_sample_covariance=False), dict(K1=0.05, K2=0.1),
    dict(gaussian_weights=True, sigma=0.8), dict(gaussian_weights=True, sigma=2.5, use_sample_covariance=False),
    dict(gaussian_weights=True, win_size=5), dict(data_range=100.0), dict(full=True), dict(gradient=True),
])
def test_ssim_options(xp, rng, opts):
    a, b = pair(rng, (40, 37), "float64")
    kw = dict(data_range=2.0)
    kw.update(opts)
    want = skm.structural_similarity(a, b, **kw)
    got = fm.structural_similarity(xp.put(a), xp.put(b), **kw)
    if isinstance(want, tuple):
        close(xp.get(got[0]), np.float64(want[0]))
        close(xp.get(got[1]), want[1], atol=1e-6 * np.abs(want[1]).max())
    else:
        close(xp.get(got), np.float64(want))


@pytest.mark.parametrize("channel_axis", [0, -1, 2])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_ssim_channel_axis(xp, rng, channel_axis, dtype):
    shape = [20, 23, 24]
    shape[channel_axis] = 3
    a, b = pair(rng, tuple(shape), dtype)
    kw = dict(channel_axis=channel_axis, gradient=True, full=True, data_range=data_range_for(dtype))
    want = skm.structural_similarity(a, b, **kw)
    got = fm.structural_similarity(xp.put(a), xp.put(b), **kw)
    close(xp.get(got[0]), want[0])
    close(xp.get(got[1]), want[1], atol=1e-6 * np.abs(want[1]).max())
    close(xp.get(got[2]), want[2], atol=1e-6)
    want = skm.structural_similarity(a, b, channel_axis=channel_axis, data_range=255)
    close(xp.get(fm.structural_similarity(xp.put(a), xp.put(b), channel_axis=channel_axis, data_range=255)), want)


def test_ssim_default_data_range_warnings(xp, rng):
    a, b = pair(rng, (16, 16), "uint16")
    with pytest.warns(UserWarning, match="data_range = 65535"):
        got = fm.structural_similarity(xp.put(a), xp.put(b))
    with pytest.warns(UserWarning):
        want = skm.structural_similarity(a, b)
    close(xp.get(got), np.float64(want))
    with pytest.warns(UserWarning, match="mismatched dtypes"):
        fm.structural_similarity(xp.put(a.astype(np.uint8)), xp.put(b))


@pytest.mark.parametrize("args,kw,match", [
    ((np.zeros((5, 5)), np.zeros((5, 6))), {}, "same dimensions"),
    ((np.zeros((5, 5)), np.zeros((5, 5))), dict(data_range=1), "win_size exceeds"),
    ((np.zeros((9, 9)), np.zeros((9, 9))), dict(data_range=1, win_size=4), "must be odd"),
    ((np.zeros((9, 9)), np.zeros((9, 9))), {}, "data_range parameter"),
    ((np.zeros((9, 9)), np.zeros((9, 9))), dict(data_range=1, K1=-1), "K1 must be positive"),
    ((np.zeros((9, 9)), np.zeros((9, 9))), dict(data_range=1, K2=-1), "K2 must be positive"),
    ((np.zeros((9, 9)), np.zeros((9, 9))), dict(data_range=1, sigma=-1), "sigma must be positive"),
])
def test_ssim_errors(xp, args, kw, match):
    with pytest.raises(ValueError, match=match):
        skm.structural_similarity(*args, **kw)
    with pytest.raises(ValueError, match=match):
        fm.structural_similarity(*(xp.put(a) for a in args), **kw)


# ---------------------------------------------------------------- MSE, NRMSE, PSNR, NMI

@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
@pytest.mark.parametrize("shape", [(31, 17), (5, 6, 7)])
def test_mse_nrmse(xp, rng, dtype, shape):
    if dtype == "bool":
        a, b = rng.random(shape) > 0.5, rng.random(shape) > 0.5
    else:
        a, b = pair(rng, shape, dtype)
    close(xp.get(fm.mean_squared_error(xp.put(a), xp.put(b))), np.float64(skm.mean_squared_error(a, b)), rtol=1e-12)
    for norm in ["euclidean", "min-max", "mean", "Euclidean"]:
        want = skm.normalized_root_mse(a, b, normalization=norm)
        got = fm.normalized_root_mse(xp.put(a), xp.put(b), normalization=norm)
        close(xp.get(got), np.asarray(want), rtol=1e-6)


def test_mse_mixed_dtypes(xp, rng):
    a, _ = pair(rng, (20, 20), "uint8")
    _, b = pair(rng, (20, 20), "float32")
    close(xp.get(fm.mean_squared_error(xp.put(a), xp.put(b))), np.float64(skm.mean_squared_error(a, b)), rtol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_psnr(xp, rng, dtype):
    a, b = pair(rng, (30, 20), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = skm.peak_signal_noise_ratio(a, b)
        got = fm.peak_signal_noise_ratio(xp.put(a), xp.put(b))
    close(xp.get(got), np.asarray(want), rtol=1e-12)
    for dr in [1, 255, 3.5]:
        close(xp.get(fm.peak_signal_noise_ratio(xp.put(a), xp.put(b), data_range=dr)),
              np.asarray(skm.peak_signal_noise_ratio(a, b, data_range=dr)), rtol=1e-12)


def test_psnr_nonnegative_signed_and_errors(xp, rng):
    a = rng.integers(0, 100, (10, 10)).astype(np.int16)
    b = rng.integers(0, 100, (10, 10)).astype(np.int16)
    close(xp.get(fm.peak_signal_noise_ratio(xp.put(a), xp.put(b))), np.asarray(skm.peak_signal_noise_ratio(a, b)),
          rtol=1e-12)
    f = rng.random((10, 10)) * 3
    with pytest.raises(ValueError, match="outside the range"):
        skm.peak_signal_noise_ratio(f, f)
    with pytest.raises(ValueError, match="outside the range"):
        fm.peak_signal_noise_ratio(xp.put(f), xp.put(f))
    with pytest.warns(UserWarning, match="mismatched dtype"):
        fm.peak_signal_noise_ratio(xp.put(a.astype(np.uint8)), xp.put(b))
    with pytest.raises(ValueError, match="same dimensions"):
        fm.peak_signal_noise_ratio(xp.put(a), xp.put(b[:5]))
    with pytest.raises(ValueError, match="Unsupported norm_type"):
        fm.normalized_root_mse(xp.put(a), xp.put(b), normalization="max")


@pytest.mark.parametrize("bins", [100, 10, (7, 13)])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "int16"])
def test_nmi(xp, rng, bins, dtype):
    a, b = pair(rng, (25, 30), dtype)
    close(xp.get(fm.normalized_mutual_information(xp.put(a), xp.put(b), bins=bins)),
          np.asarray(skm.normalized_mutual_information(a, b, bins=bins)), rtol=1e-10)
    # different shapes are zero-padded
    c = b[:20, 5:]
    close(xp.get(fm.normalized_mutual_information(xp.put(a), xp.put(c), bins=bins)),
          np.asarray(skm.normalized_mutual_information(a, c, bins=bins)), rtol=1e-10)


def test_nmi_errors(xp):
    with pytest.raises(ValueError, match="same number of dimensions"):
        fm.normalized_mutual_information(xp.put(np.ones((3, 3))), xp.put(np.ones(3)))


# ---------------------------------------------------------------- segmentation metrics

def seg_pair(rng, shape, nt, ns, dtype=np.int64):
    t = rng.integers(0, nt, shape).astype(dtype)
    s = np.where(rng.random(shape) < 0.7, t % ns, rng.integers(0, ns, shape)).astype(dtype)
    return t, s


def table_equal(got, want, xp):
    if xp.name == "cupy":
        got = got.get()
    assert type(got) is type(want) or xp.name == "cupy", (type(got), type(want))
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_allclose(got.data, want.data, rtol=1e-12)


@pytest.mark.parametrize("shape,nt,ns", [((40, 50), 5, 7), ((9, 10, 11), 300, 40), ((3000,), 4000, 3)])
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "int64"])
@pytest.mark.parametrize("ignore", [None, [0], [0, 2, 3]])
def test_contingency_table(xp, rng, shape, nt, ns, dtype, ignore):
    if dtype == "uint8":
        nt, ns = min(nt, 255), min(ns, 255)
    t, s = seg_pair(rng, shape, nt, ns, dtype)
    for normalize in (False, True):
        for st in ("matrix", "array"):
            want = skm.contingency_table(t, s, ignore_labels=ignore, normalize=normalize, sparse_type=st)
            got = fm.contingency_table(xp.put(t), xp.put(s), ignore_labels=ignore, normalize=normalize,
                                       sparse_type=st)
            table_equal(got, want, xp)


def test_contingency_table_errors(xp, rng):
    t, s = seg_pair(rng, (5, 5), 3, 3)
    with pytest.raises(ValueError, match="sparse_type"):
        fm.contingency_table(xp.put(t), xp.put(s), sparse_type="coo")
    with pytest.raises(ValueError, match="non-negative"):
        fm.contingency_table(xp.put(t - 1), xp.put(s))
    with pytest.raises(TypeError, match="integer labels"):
        fm.contingency_table(xp.put(t * 0.5), xp.put(s))


@pytest.mark.parametrize("shape,nt,ns", [((40, 50), 5, 7), ((9, 10, 11), 300, 40)])
@pytest.mark.parametrize("ignore", [(0,), (), (1, 2)])
@pytest.mark.parametrize("alpha", [0.5, 0.0, 0.3, 1.0])
def test_adapted_rand_error(xp, rng, shape, nt, ns, ignore, alpha):
    t, s = seg_pair(rng, shape, nt, ns)
    want = skm.adapted_rand_error(t, s, ignore_labels=ignore, alpha=alpha)
    got = fm.adapted_rand_error(xp.put(t), xp.put(s), ignore_labels=ignore, alpha=alpha)
    for g, w in zip(got, want):
        close(xp.get(g), np.asarray(w), rtol=1e-10)
    table = skm.contingency_table(t, s, ignore_labels=ignore, sparse_type="array")
    if xp.name == "numpy":
        got = fm.adapted_rand_error(table=table, alpha=alpha)
        for g, w in zip(got, want):
            close(g, np.asarray(w), rtol=1e-10)


def test_adapted_rand_error_alpha(xp, rng):
    t, s = seg_pair(rng, (5, 5), 3, 3)
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        fm.adapted_rand_error(xp.put(t), xp.put(s), alpha=1.5)
    with pytest.raises(ValueError, match="same dimensions"):
        fm.adapted_rand_error(xp.put(t), xp.put(s[:4]))


@pytest.mark.parametrize("shape,nt,ns", [((40, 50), 5, 7), ((9, 10, 11), 300, 40), ((100,), 1, 1)])
@pytest.mark.parametrize("ignore", [(), (0,), (1, 4)])
def test_variation_of_information(xp, rng, shape, nt, ns, ignore):
    t, s = seg_pair(rng, shape, nt, ns)
    want = skm.variation_of_information(t, s, ignore_labels=ignore)
    got = fm.variation_of_information(xp.put(t), xp.put(s), ignore_labels=ignore)
    close(xp.get(got), want, rtol=1e-9, atol=1e-12)
    if xp.name == "numpy":
        table = skm.contingency_table(t, s, ignore_labels=ignore, normalize=True)
        close(fm.variation_of_information(t, s, table=table), want, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- Hausdorff

def points(rng, shape, density):
    return rng.random(shape) < density


@pytest.mark.parametrize("shape", [(30, 40), (8, 9, 10), (50,)])
@pytest.mark.parametrize("density", [0.002, 0.01, 0.05, 0.5])
@pytest.mark.parametrize("method", ["standard", "modified"])
def test_hausdorff_distance(xp, rng, shape, density, method):
    a, b = points(rng, shape, density), points(rng, shape, density)
    a.flat[0] = b.flat[-1] = True
    want = skm.hausdorff_distance(a, b, method=method)
    got = fm.hausdorff_distance(xp.put(a), xp.put(b), method=method)
    if method == "modified" and xp.name == "cupy":
        # a mean of distances: the GPU's reduction order rounds differently from
        # NumPy's pairwise sum (seen on an H200: ulp-level differences)
        assert got == pytest.approx(want, rel=1e-12), (got, want)
    else:
        assert got == want, (got, want)


def test_hausdorff_distance_values_and_shapes(xp, rng):
    a = np.zeros((10, 10), np.uint8)
    b = np.zeros((13, 7), np.float32)
    a[2, 3] = 5
    b[12, 0] = 0.5
    b[1, 1] = 1
    for m in ["standard", "modified"]:
        assert fm.hausdorff_distance(xp.put(a), xp.put(b), method=m) == skm.hausdorff_distance(a, b, method=m)
    empty = np.zeros((4, 4))
    assert fm.hausdorff_distance(xp.put(empty), xp.put(empty)) == 0
    assert fm.hausdorff_distance(xp.put(a), xp.put(np.zeros((10, 10)))) == np.inf
    assert fm.hausdorff_distance(xp.put(np.zeros((10, 10))), xp.put(a)) == np.inf
    with pytest.raises(ValueError, match="unrecognized method"):
        fm.hausdorff_distance(xp.put(a), xp.put(a), method="mean")


@pytest.mark.parametrize("shape", [(30, 40), (8, 9, 10)])
@pytest.mark.parametrize("density", [0.003, 0.01, 0.05, 0.3])
def test_hausdorff_pair(xp, rng, shape, density):
    a, b = points(rng, shape, density), points(rng, shape, density)
    a.flat[0] = b.flat[-1] = True
    want = skm.hausdorff_pair(a, b)
    got = [xp.get(p) for p in fm.hausdorff_pair(xp.put(a), xp.put(b))]
    # the pair is at the Hausdorff distance, and its points belong to the two sets
    dist = np.sqrt(((got[0] - got[1]) ** 2).sum())
    assert dist == np.sqrt(((want[0] - want[1]) ** 2).sum()) == skm.hausdorff_distance(a, b)
    assert a[tuple(got[0])] and b[tuple(got[1])]
    # the far point (the one whose nearest neighbour is farthest) is the same one
    assert got[0].dtype == want[0].dtype
    far_a = np.sqrt(((np.argwhere(b) - want[0]) ** 2).sum(1)).min() == dist
    if far_a:
        np.testing.assert_array_equal(got[0], want[0])
    else:
        np.testing.assert_array_equal(got[1], want[1])


def test_hausdorff_pair_empty(xp):
    a = np.zeros((5, 5), bool)
    b = a.copy()
    b[1, 1] = True
    with pytest.warns(UserWarning, match="empty"):
        assert fm.hausdorff_pair(xp.put(a), xp.put(b)) == ((), ())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(30, 41), (9, 10, 11)])
def test_ssim_map_c_kernel_equals_array_path(rng, dtype, shape):
    """The host C kernel (metrics_ssim_map) and the array-operations path that
    GPU data takes (run here with NumPy) give the same map, mean and gradient
    terms, bit for bit."""
    from fovea import _fovea
    from fovea.skimage.metrics import _ssim

    mom = [rng.random(shape).astype(dtype) for _ in range(5)]
    mom[2] += mom[0] ** 2   # plausible second moments
    mom[3] += mom[1] ** 2
    args = (0.9, 1e-4, 9e-4)
    ref = [m.copy() for m in mom]
    S_ref, mean_ref, g1, g2, g3 = _ssim._ssim_map_xp(np, *ref, *args, True, 3)
    got = [m.copy() for m in mom]
    S = np.empty_like(got[0])
    mean = _fovea.metrics_ssim_map(*got, *args, S=S, gradient=True, pad=3)
    np.testing.assert_array_equal(S, S_ref)
    np.testing.assert_array_equal(got[2], g1)
    np.testing.assert_array_equal(got[3], g2)
    np.testing.assert_array_equal(got[4], g3)
    np.testing.assert_allclose(mean, mean_ref, rtol=1e-12)


def test_ssim_map_errors():
    from fovea import _fovea

    a = np.zeros((5, 5))
    with pytest.raises(TypeError, match="float32 or float64"):
        _fovea.metrics_ssim_map(*[a.astype(np.int32)] * 5, 1.0, 0.0, 0.0)
    with pytest.raises(TypeError, match="uy is float32 but ux is float64"):
        _fovea.metrics_ssim_map(a, a.astype(np.float32), a, a, a, 1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="shape"):
        _fovea.metrics_ssim_map(a, a, a, a, np.zeros((5, 4)), 1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="contiguous"):
        _fovea.metrics_ssim_map(a, a, a, a, np.zeros((5, 10))[:, ::2], 1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="must not overlap"):
        b = np.zeros((5, 5))
        _fovea.metrics_ssim_map(a, a, b, b, np.zeros((5, 5)), 1.0, 0.0, 0.0, gradient=True)


def test_segmentation_metrics_need_images_or_table(xp, rng):
    t, s = seg_pair(rng, (6, 7), 3, 4)
    with pytest.raises(ValueError, match="or a table"):
        fm.adapted_rand_error(xp.put(t))
    with pytest.raises(ValueError, match="or a table"):
        fm.variation_of_information(xp.put(t))
    if xp.name == "numpy":   # a table alone is enough
        table = skm.contingency_table(t, s, normalize=True)
        close(fm.variation_of_information(table=table), skm.variation_of_information(t, s), rtol=1e-9)
        with pytest.raises(ValueError, match="same dimensions"):
            fm.variation_of_information(t, s[:3])


@pytest.mark.parametrize("shape", [(300, 200), (20, 30, 40), (5000,)])
@pytest.mark.parametrize("density", [0.002, 0.05])
def test_nearest_point_paths_agree(rng, shape, density):
    """The three exact nearest-point paths (C sweep for sparse host sets, pairwise
    distances for small GPU sets, distance transforms otherwise), run here on
    host data, give the same distances and, without ties, the same points."""
    from scipy.spatial import cKDTree

    from fovea.skimage.metrics import _set_metrics as sm

    a, b = points(rng, shape, density), points(rng, shape, density)
    a.flat[0] = b.flat[-1] = True
    pa, pb = np.argwhere(a), np.argwhere(b)
    want_d, want_i = cKDTree(pa).query(pb, k=1)
    d_sweep, i_sweep = sm._sweep(pa, pb, True)
    d_brute, _, i_brute, _ = sm._brute(pa, pb, np, want_index=True)
    from fovea import ndimage as fndi
    d_edt = fndi.distance_transform_edt(~a)[b]
    for d in (d_sweep, d_brute, d_edt):
        np.testing.assert_array_equal(d, want_d)
    d2 = ((pa[:, None, :] - pb[None, :, :]) ** 2).sum(-1)
    unique = (d2 == d2.min(0)).sum(0) == 1          # queries without ties
    np.testing.assert_array_equal(i_sweep[unique], want_i[unique])
    np.testing.assert_array_equal(i_brute[unique], want_i[unique])


def test_nearest_points_errors():
    from fovea import _fovea

    p = np.array([[3, 0], [1, 0]], np.int64)
    q = np.zeros((1, 2), np.int64)
    with pytest.raises(ValueError, match="not sorted"):
        _fovea.metrics_nearest_points(p, 0, q)
    with pytest.raises(ValueError, match="coordinates"):
        _fovea.metrics_nearest_points(p[::-1].copy(), 0, np.zeros((1, 3), np.int64))
    with pytest.raises(ValueError, match="axis"):
        _fovea.metrics_nearest_points(p[::-1].copy(), 2, q)
    with pytest.raises(ValueError, match="2\\^28"):
        _fovea.metrics_nearest_points(np.array([[0, 1 << 29]], np.int64), 0, q)
    with pytest.raises(TypeError, match="int64"):
        _fovea.metrics_nearest_points(p.astype(np.int32), 0, q)
    with pytest.raises(ValueError, match="no points"):
        _fovea.metrics_nearest_points(np.zeros((0, 2), np.int64), 0, q)


def test_hausdorff_dimension_errors(xp):
    with pytest.raises(ValueError, match="same number of dimensions"):
        fm.hausdorff_distance(xp.put(np.ones((3, 3))), xp.put(np.ones(3)))
    with pytest.raises(ValueError, match="at least one dimension"):
        fm.hausdorff_pair(xp.put(np.ones(())), xp.put(np.ones(())))


@pytest.mark.parametrize("gradient,full", [(False, False), (True, False), (False, True)])
def test_structural_similarity_float16(rng, gradient, full):
    # float16 is computed in float32, as scikit-image's supported float type
    a = rng.random((33, 41)).astype(np.float16)
    b = np.clip(a + rng.normal(0, 0.05, a.shape), 0, 1).astype(np.float16)
    kw = dict(data_range=1.0, gradient=gradient, full=full)
    got, want = fm.structural_similarity(a, b, **kw), skm.structural_similarity(a, b, **kw)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
