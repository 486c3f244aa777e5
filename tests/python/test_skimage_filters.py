"""fovea.skimage.filters against scikit-image 0.26 on random data.

Every case runs on each array backend (NumPy; CuPy where a GPU and CuPy exist)
and compares with skimage.filters on the same data as NumPy: same dtype and
shape, integers exact, floats to rtol 1e-5 (float32) / 1e-10 (float64) with an
atol scaled to the result's magnitude. Bad arguments must raise the exception
type scikit-image raises.
"""

import inspect
import warnings

import numpy as np
import pytest

skf = pytest.importorskip("skimage.filters")

import fovea  # noqa: E402
from conftest import random_array  # noqa: E402
from fovea._interop import switched  # noqa: E402
from fovea.skimage import filters as ff  # noqa: E402

DTYPES = ["uint8", "uint16", "int16", "float32", "float64"]
SHAPES = {1: (15,), 2: (13, 16), 3: (7, 8, 9), 4: (4, 5, 3, 6)}
MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]
SMALL_SIGMAS = (1, 2.5)  # ridge filters: two scales, one under and one over the truncate switch


# ---- backends and comparison -------------------------------------------------


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request):
    if request.param == "numpy":
        return np
    return request.getfixturevalue("cp")


def to_host(x):
    if hasattr(x, "get"):
        return x.get()
    return np.asarray(x)


def check_type(ours, xp):
    if isinstance(ours, tuple):
        for o in ours:
            check_type(o, xp)
        return
    assert isinstance(ours, xp.ndarray), f"expected {xp.__name__}.ndarray, got {type(ours)}"


def assert_matches(ours, ref, xp=np, scale=None):
    """ours (any backend) equals ref (NumPy): dtype, shape and values."""
    if isinstance(ref, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(ref)
        for o, r in zip(ours, ref):
            assert_matches(o, r, xp, scale)
        return
    check_type(ours, xp)
    got = to_host(ours)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref)
        return
    rtol = 1e-5 if ref.dtype == np.float32 else 1e-10
    if scale is None:
        scale = float(np.max(np.abs(ref))) if ref.size else 1.0
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * max(scale, 1e-30))


def image(rng, shape, dtype):
    return random_array(rng, shape, dtype)


def run_both(fn_name, img, xp, *args, **kwargs):
    """(ours on xp, skimage's on NumPy) for filters.<fn_name>(img, *args, **kwargs)."""
    ours = getattr(ff, fn_name)(xp.asarray(img), *args, **kwargs)
    ref = getattr(skf, fn_name)(img, *args, **kwargs)
    return ours, ref


# ---- API surface -------------------------------------------------------------

NAMES = [
    "gaussian", "difference_of_gaussians", "median", "unsharp_mask",
    "sobel", "sobel_h", "sobel_v", "prewitt", "prewitt_h", "prewitt_v",
    "scharr", "scharr_h", "scharr_v", "farid", "farid_h", "farid_v",
    "roberts", "roberts_pos_diag", "roberts_neg_diag", "laplace",
    "gabor", "gabor_kernel", "hessian", "frangi", "sato", "meijering",
    "rank_order", "window", "correlate_sparse",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_signature(name):
    ours = inspect.signature(getattr(ff, name))
    ref = inspect.signature(getattr(skf, name))
    # keyword-only extras: fovea's device= (window), cuCIM's (median, gabor_kernel)
    extras = {"window": {"device"}, "median": {"algorithm", "algorithm_kwargs"},
              "gabor_kernel": {"float_dtype"}}.get(name, set())
    for e in extras:
        assert ours.parameters[e].kind is inspect.Parameter.KEYWORD_ONLY
    ours = ours.replace(parameters=[p for p in ours.parameters.values() if p.name not in extras])
    assert str(ours) == str(ref)


def test_lazy_package():
    import fovea.skimage as fs

    assert "filters" in dir(fs) and "morphology" in dir(fs)
    assert fs.filters is ff
    with pytest.raises(AttributeError):
        fs.nonexistent  # noqa: B018


# ---- gaussian, difference_of_gaussians, unsharp_mask -------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("preserve_range", [False, True])
def test_gaussian_dtypes(xp, rng, dtype, ndim, preserve_range):
    img = image(rng, SHAPES[ndim], dtype)
    mode = MODES[(ndim + DTYPES.index(dtype)) % len(MODES)]
    ours, ref = run_both("gaussian", img, xp, sigma=1.3, mode=mode, cval=0.25, preserve_range=preserve_range)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("mode", MODES + ["grid-wrap", "grid-mirror", "grid-constant"])
@pytest.mark.parametrize("ndim", [1, 2, 4])
def test_gaussian_modes(xp, rng, mode, ndim):
    img = image(rng, SHAPES[ndim], "float64")
    sigma = tuple(0.6 + 0.5 * i for i in range(ndim))
    ours, ref = run_both("gaussian", img, xp, sigma=sigma, mode=mode, cval=-3.5, truncate=2.5)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("channel_axis", [0, 1, 2, -1])
@pytest.mark.parametrize("sigma", [2.0, (1.0, 3.0), (1.0, 0.0, 2.0)])
def test_gaussian_channel_axis(xp, rng, channel_axis, sigma):
    img = image(rng, (9, 10, 3), "uint8")
    ours, ref = run_both("gaussian", img, xp, sigma=sigma, channel_axis=channel_axis)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gaussian_out(xp, rng, dtype):
    img = image(rng, (11, 12), "uint16")
    out = xp.zeros(img.shape, dtype=dtype)
    ours = ff.gaussian(xp.asarray(img), 2.0, out=out)
    ref = skf.gaussian(img, 2.0, out=np.zeros(img.shape, dtype=dtype))
    assert ours is out
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("channel_axis", [None, 2])
def test_difference_of_gaussians(xp, rng, dtype, channel_axis):
    img = image(rng, (12, 13, 3), dtype)
    low, high = ((1.0, 1.5), (2.0, 3.0)) if channel_axis is not None else (0.8, None)
    ours, ref = run_both("difference_of_gaussians", img, xp, low, high, channel_axis=channel_axis, mode="reflect")
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("dtype", DTYPES + ["int8", "bool"])
@pytest.mark.parametrize("preserve_range", [False, True])
def test_unsharp_mask(xp, rng, dtype, preserve_range):
    img = image(rng, (12, 14), dtype)
    if dtype.startswith("float") and not preserve_range:
        img = img / 2000.0  # scikit-image's float images live in [-1, 1]
    ours, ref = run_both("unsharp_mask", img, xp, radius=1.5, amount=2.0, preserve_range=preserve_range)
    assert_matches(ours, ref, xp, scale=1.0 if not preserve_range else None)


@pytest.mark.parametrize("channel_axis", [0, 2])
@pytest.mark.parametrize("radius", [0.0, 1.0, (1.0, 2.0)])
def test_unsharp_mask_channels(xp, rng, channel_axis, radius):
    img = image(rng, (10, 11, 3), "uint8")
    ours, ref = run_both("unsharp_mask", img, xp, radius=radius, amount=0.7, channel_axis=channel_axis)
    assert_matches(ours, ref, xp)
    # a negative channel_axis counts from the end here (scikit-image 0.26 mishandles it)
    neg = ff.unsharp_mask(xp.asarray(img), radius=radius, amount=0.7, channel_axis=channel_axis - 3)
    assert_matches(neg, ref, xp)


# ---- edge filters ------------------------------------------------------------


@pytest.mark.parametrize("name", ["sobel", "prewitt", "scharr", "farid"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndim", [2, 3])
def test_edges_nd(xp, rng, name, dtype, ndim):
    img = image(rng, SHAPES[ndim], dtype)
    ours, ref = run_both(name, img, xp)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("name", ["sobel", "prewitt", "scharr", "farid"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, (0, 2), [1, 2]])
@pytest.mark.parametrize("mode", ["constant", "nearest", "wrap"])
def test_edges_axis_mode(xp, rng, name, axis, mode):
    img = image(rng, SHAPES[3], "float32")
    ours, ref = run_both(name, img, xp, axis=axis, mode=mode, cval=12.5)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("ndim", [1, 4])
def test_edges_other_ndim(xp, rng, ndim):
    img = image(rng, SHAPES[ndim], "float64")
    for name in ("sobel", "farid"):
        ours, ref = run_both(name, img, xp)
        assert_matches(ours, ref, xp)


def _mask(rng, shape):
    m = rng.random(shape) < 0.8
    m[0, 0] = True
    return m


@pytest.mark.parametrize(
    "name",
    ["sobel_h", "sobel_v", "prewitt_h", "prewitt_v", "scharr_h", "scharr_v", "farid_h", "farid_v",
     "roberts", "roberts_pos_diag", "roberts_neg_diag"],
)  # fmt: skip
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("masked", [False, True])
def test_edges_2d(xp, rng, name, dtype, masked):
    img = image(rng, (14, 17), dtype)
    kw = {}
    if masked:
        m = _mask(rng, img.shape)
        ours = getattr(ff, name)(xp.asarray(img), mask=xp.asarray(m))
        ref = getattr(skf, name)(img, mask=m)
    else:
        ours, ref = run_both(name, img, xp, **kw)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("name", ["sobel", "scharr", "prewitt", "farid", "laplace"])
@pytest.mark.parametrize("ndim", [2, 3])
def test_edges_mask_nd(xp, rng, name, ndim):
    img = image(rng, SHAPES[ndim], "uint8")
    m = rng.random(img.shape) < 0.7
    ours = getattr(ff, name)(xp.asarray(img), mask=xp.asarray(m))
    ref = getattr(skf, name)(img, mask=m)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_laplace(xp, rng, dtype, ndim):
    img = image(rng, SHAPES[ndim], dtype)
    ours, ref = run_both("laplace", img, xp, ksize=3 + ndim)
    assert_matches(ours, ref, xp)


# ---- median ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndim", [2, 3])
def test_median(xp, rng, dtype, ndim):
    img = image(rng, SHAPES[ndim], dtype)
    ours, ref = run_both("median", img, xp)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("mode", MODES)
def test_median_footprint_modes(xp, rng, mode):
    img = image(rng, (15, 16), "int16")
    fp = np.array([[0, 1, 0, 0], [1, 1, 1, 1], [0, 1, 1, 0]], dtype=bool)
    ours, ref = run_both("median", img, xp, fp, mode=mode, cval=7)
    assert_matches(ours, ref, xp)


def test_median_out(xp, rng):
    img = image(rng, (9, 10, 4), "uint16")
    out = xp.empty(img.shape, dtype=img.dtype)
    ours = ff.median(xp.asarray(img), out=out)
    assert ours is out
    assert_matches(ours, skf.median(img), xp)


# ---- gabor -------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        dict(frequency=0.2),
        dict(frequency=0.1, theta=np.pi / 3, bandwidth=1.5, offset=0.4),
        dict(frequency=0.3, theta=2.0, sigma_x=1.5, sigma_y=4.0, n_stds=2),
        dict(frequency=0.25, dtype=np.complex64),
    ],
)
def test_gabor_kernel(kw):
    ours = ff.gabor_kernel(**kw)
    ref = skf.gabor_kernel(**kw)
    assert isinstance(ours, np.ndarray) and ours.dtype == ref.dtype and ours.shape == ref.shape
    np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("dtype", DTYPES + ["int8"])
@pytest.mark.parametrize("theta,mode", [(0.0, "reflect"), (0.7, "constant"), (2.0, "wrap")])
def test_gabor(xp, rng, dtype, theta, mode):
    img = image(rng, (20, 23), dtype)
    ours, ref = run_both("gabor", img, xp, 0.15, theta=theta, mode=mode, cval=3)
    assert isinstance(ours, tuple)
    assert_matches(ours, ref, xp)


# ---- ridge filters -----------------------------------------------------------


@pytest.mark.parametrize("name", ["frangi", "sato", "meijering", "hessian"])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("ndim", [2, 3])
def test_ridges(xp, rng, name, dtype, ndim):
    shape = (17, 19) if ndim == 2 else (8, 9, 10)
    img = image(rng, shape, dtype)
    black = DTYPES.index(dtype) % 2 == 0
    ours, ref = run_both(name, img, xp, sigmas=SMALL_SIGMAS, black_ridges=black)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("name", ["frangi", "sato", "meijering", "hessian"])
def test_ridges_params(xp, rng, name):
    img = image(rng, (16, 18), "float64")
    kw = dict(sigmas=[1.5], mode="constant", cval=0.5)
    if name in ("frangi", "hessian"):
        kw.update(alpha=0.3, beta=0.8, gamma=5.0)
    if name == "meijering":
        kw.update(alpha=-0.2)
    ours, ref = run_both(name, img, xp, **kw)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("name", ["frangi", "sato", "meijering", "hessian"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("black", [True, False])
@pytest.mark.parametrize("sigmas", [(0.8, 1.7, 3), (2,)], ids=["3scales", "1scale"])
def test_ridges_op(xp, rng, name, dtype, ndim, black, sigmas):
    # 2-d / 3-d float images take the C op (fovea._fovea.hessian_ridge)
    shape = (23, 20) if ndim == 2 else (9, 8, 11)
    img = image(rng, shape, dtype)
    ours, ref = run_both(name, img, xp, sigmas=sigmas, black_ridges=black)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("name", ["frangi", "sato", "meijering", "hessian"])
def test_ridges_python_path(xp, rng, name):
    # the internal switch "ridge_arrays": the array-operation path, same results
    img = image(rng, (8, 9, 7), "float32")
    op = getattr(ff, name)(xp.asarray(img), sigmas=(1, 2))
    with switched("ridge_arrays"):
        old = getattr(ff, name)(xp.asarray(img), sigmas=(1, 2))
    assert_matches(op, to_host(old), xp)


@pytest.mark.parametrize("name", ["frangi", "sato", "meijering"])
def test_ridges_fortran_order(xp, rng, name):
    img = np.asfortranarray(image(rng, (15, 12), "float64"))
    ours, ref = run_both(name, img, xp, sigmas=(1.5,))
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("ndim", [1, 4])
def test_meijering_nd(xp, rng, ndim):
    img = image(rng, SHAPES[ndim], "float64")
    ours, ref = run_both("meijering", img, xp, sigmas=[1.2])
    assert_matches(ours, ref, xp)


def test_frangi_scale_range(rng):
    img = image(rng, (12, 12), "float64")
    with pytest.warns(UserWarning):
        ours = ff.frangi(img, scale_range=(1, 3), scale_step=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = skf.frangi(img, scale_range=(1, 3), scale_step=1)
    assert_matches(ours, ref)


# ---- rank_order, window, correlate_sparse -----------------------------------


@pytest.mark.parametrize("dtype", DTYPES + ["int64", "bool"])
@pytest.mark.parametrize("shape", [(1,), (7,), (9, 11), (4, 5, 6)])
def test_rank_order(xp, rng, dtype, shape):
    img = random_array(rng, shape, dtype, lo=0, hi=9)  # repeated values
    ours, ref = run_both("rank_order", img, xp)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("wtype", ["hann", "hamming", ("tukey", 0.3), "flattop", ("gaussian", 5)])
@pytest.mark.parametrize("shape", [9, (8,), (8, 11), (5, 6, 7)])
def test_window(wtype, shape):
    ours = ff.window(wtype, shape)
    ref = skf.window(wtype, shape)
    assert isinstance(ours, np.ndarray)
    assert_matches(ours, ref)


def test_window_warp_kwargs():
    ref = skf.window("hann", (9, 12), warp_kwargs={"order": 3})
    assert_matches(ff.window("hann", (9, 12), warp_kwargs={"order": 3}), ref)
    assert_matches(ff.window("hann", (9, 12), warp_kwargs={"clip": False}), skf.window("hann", (9, 12)))


@pytest.mark.gpu
def test_window_device(cp):
    w = ff.window("hann", (6, 7), device="cuda")
    assert isinstance(w, cp.ndarray)
    assert_matches(w, skf.window("hann", (6, 7)), cp)


def _sparse_kernel(rng, shape):
    k = np.where(rng.random(shape) < 0.4, rng.standard_normal(shape), 0.0)
    k.flat[k.size // 2] = 1.0
    return k


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("mode", ["reflect", "mirror", "nearest", "wrap", "constant", "edge", "symmetric",
                                  "valid", "linear_ramp"])  # fmt: skip
def test_correlate_sparse(xp, rng, dtype, mode):
    img = image(rng, (14, 15), dtype)
    kshape = (3, 5) if mode != "valid" else (4, 5)
    kernel = _sparse_kernel(rng, kshape)
    ours = ff.correlate_sparse(xp.asarray(img), kernel, mode=mode)
    ref = skf.correlate_sparse(img, kernel, mode=mode)
    # scikit-image adds in the image's float type, fovea.ndimage in float64
    scale = float(np.max(np.abs(img.astype(np.float64)))) * np.abs(kernel).sum()
    assert_matches(ours, ref, xp, scale=scale)


def test_correlate_sparse_3d(xp, rng):
    img = image(rng, (6, 7, 8), "float64")
    kernel = _sparse_kernel(rng, (3, 1, 5))
    ours, ref = run_both("correlate_sparse", img, xp, kernel)
    assert_matches(ours, ref, xp)


# ---- layouts and other dtypes ------------------------------------------------

LAYOUT_CASES = [
    ("gaussian", dict(sigma=1.2)),
    ("sobel", {}),
    ("farid", dict(mode="wrap")),
    ("laplace", {}),
    ("median", {}),
    ("unsharp_mask", dict(radius=2.0)),
    ("sato", dict(sigmas=[1.5])),
    ("rank_order", {}),
    ("correlate_sparse", dict(kernel=np.array([[0.0, 1.0, 0.0], [2.0, 0.0, -1.0], [0.0, 0.5, 0.0]]))),
]


@pytest.mark.parametrize("name,kw", LAYOUT_CASES, ids=[c[0] for c in LAYOUT_CASES])
def test_layouts(xp, rng, name, kw):
    base = image(rng, (18, 21), "uint16")
    for view in (base[::2, 1::3], base.T, base[::-1, ::-2]):
        ours = getattr(ff, name)(xp.asarray(view), **kw)
        ref = getattr(skf, name)(view, **kw)
        assert_matches(ours, ref, xp)


@pytest.mark.parametrize("dtype", ["float16", "bool", "int8", "uint32", "int64"])
@pytest.mark.parametrize("name", ["gaussian", "sobel", "laplace", "difference_of_gaussians", "median"])
def test_other_dtypes(xp, rng, dtype, name):
    img = image(rng, (11, 13), dtype)
    if dtype == "float16":
        img = (img / 1000).astype(np.float16)
    args = (1.0,) if name == "difference_of_gaussians" else ()
    raised = _raised(getattr(skf, name), (img,) + args, {})
    if raised is not None:  # scipy.ndimage has no float16 median
        with pytest.raises(raised):
            getattr(ff, name)(xp.asarray(img), *args)
        return
    ours, ref = run_both(name, img, xp, *args)
    assert_matches(ours, ref, xp)


# ---- array types -------------------------------------------------------------


def test_fovea_array_and_list_inputs(rng):
    img = image(rng, (10, 11), "float32")
    res = ff.sobel(fovea.asarray(img))
    assert isinstance(res, fovea.Array)
    assert_matches(np.asarray(res), skf.sobel(img))
    res = ff.gaussian(img.tolist(), 1.0)
    assert_matches(res, skf.gaussian(img.astype(np.float64), 1.0))


def test_torch_cpu(rng):
    torch = pytest.importorskip("torch")
    img = image(rng, (10, 11), "float32")
    res = ff.sobel(torch.from_numpy(img))
    assert isinstance(res, torch.Tensor)
    assert_matches(res.numpy(), skf.sobel(img))
    real, imag = ff.gabor(torch.from_numpy(img), 0.2)
    assert isinstance(real, torch.Tensor) and isinstance(imag, torch.Tensor)


@pytest.mark.gpu
def test_torch_cuda(torch_cuda, cp, rng):
    torch = torch_cuda
    img = image(rng, (10, 11), "float32")
    t = torch.from_numpy(img).cuda()
    res = ff.gaussian(t, 1.5)
    assert isinstance(res, torch.Tensor) and res.is_cuda
    assert_matches(res.cpu().numpy(), skf.gaussian(img, 1.5))
    labels, values = ff.rank_order(t)
    assert labels.is_cuda and values.is_cuda


@pytest.mark.gpu
def test_mask_on_other_device(cp):
    with pytest.raises(fovea.DeviceError):
        ff.sobel(cp.ones((5, 5)), mask=np.ones((5, 5), bool))
    with pytest.raises(fovea.DeviceError):
        ff.sobel(np.ones((5, 5)), mask=cp.ones((5, 5), bool))


# ---- bad arguments: the exception scikit-image raises -----------------------

_IMG2 = np.arange(30, dtype=np.float64).reshape(5, 6) / 30
_IMG3 = np.arange(60, dtype=np.float64).reshape(3, 4, 5) / 60
_IMG4 = np.ones((3, 3, 3, 3))

BAD = [
    ("gaussian", (_IMG2,), dict(sigma=-1)),
    ("gaussian", (_IMG2,), dict(sigma=(1, -0.5))),
    ("gaussian", (_IMG2,), dict(out=np.zeros((5, 6), np.uint8))),
    ("gaussian", (_IMG2,), dict(mode="bogus")),
    ("gaussian", (_IMG2,), dict(sigma=(1, 2, 3))),
    ("gaussian", (np.ones((3, 3), complex),), {}),
    ("difference_of_gaussians", (_IMG2, 2, 1), {}),
    ("difference_of_gaussians", (_IMG2, (1, 2, 3)), {}),
    ("difference_of_gaussians", (_IMG2, 1, (2, 3, 4)), {}),
    ("sobel_h", (_IMG3,), {}),
    ("prewitt_v", (np.ones(5),), {}),
    ("scharr_h", (np.ones((0, 4)),), {}),
    ("farid_v", (_IMG3,), {}),
    ("roberts", (_IMG3,), {}),
    ("roberts_pos_diag", (np.ones((0, 0)),), {}),
    ("sobel", (_IMG2,), dict(mode="bogus")),
    ("sobel", (_IMG2,), dict(mask=np.ones((4, 4), bool))),
    ("laplace", (_IMG2,), dict(ksize=2)),
    ("laplace", (_IMG2,), dict(ksize=2.5)),
    ("median", (_IMG2,), dict(footprint=np.ones((3, 3, 3)))),
    ("median", (_IMG2,), dict(mode="bogus")),
    ("unsharp_mask", (_IMG2,), dict(radius=-1)),
    ("gabor", (_IMG3, 0.1), {}),
    ("gabor_kernel", (0.1,), dict(dtype=np.float64)),
    ("frangi", (_IMG4,), {}),
    ("sato", (np.ones(9),), {}),
    ("hessian", (_IMG4,), {}),
    ("window", ("hann", (5, -2)), {}),
    ("window", ("hann", ()), {}),
    ("window", ("hann", 4.5), {}),
    ("window", ("nonexistent-window", 8), {}),
    ("correlate_sparse", (_IMG2, np.ones((2, 3))), {}),
]


def _raised(fn, args, kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)
    return None


@pytest.mark.parametrize("name,args,kwargs", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_bad_arguments(name, args, kwargs):
    expected = _raised(getattr(skf, name), args, kwargs)
    assert expected is not None, "scikit-image accepts this case"
    with pytest.raises(expected):
        getattr(ff, name)(*args, **kwargs)


# ---- median(behavior='rank'): scikit-image's rank median ---------------------------------------


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(13, 16), (3, 3), (6, 7, 8)])
def test_median_rank_behaviour(xp, dtype, shape):
    from skimage.morphology import ball, diamond, disk
    rng = np.random.default_rng(3)
    x = rng.random(shape)
    x = (x * (200 if dtype == "uint8" else 3000)).astype(dtype) if dtype.startswith("uint") else x.astype(dtype)
    fps = [None, np.ones((3,) * len(shape), np.uint8)]
    fps += [disk(2), diamond(1), np.ones((2, 4), np.uint8)] if len(shape) == 2 else [ball(1)]
    for fp in fps:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)   # precision loss / many bins, both libraries
            want = skf.median(x, fp, behavior="rank")
            got = ff.median(xp.asarray(x), fp, behavior="rank")
        check_type(got, xp)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(to_host(got), want)


def test_median_rank_errors_and_warnings():
    img = np.zeros((5, 5), np.uint8)
    with pytest.warns(UserWarning, match="behavior"):
        ff.median(img, mode="constant", behavior="rank")
    with pytest.raises(ValueError, match="2 or 3 dimensions"):
        ff.median(np.zeros((3, 3, 3, 3), np.uint8), behavior="rank")
    with pytest.raises(ValueError, match="bool"):
        ff.median(np.zeros((4, 4), bool), behavior="rank")
    with pytest.raises(TypeError, match="uint8, uint16 or float"):
        ff.median(np.zeros((4, 4), np.int16), behavior="rank")
    with pytest.raises(ValueError, match="between -1 and 1"):
        ff.median(np.full((4, 4), 3.0), behavior="rank")
    out = np.empty((5, 5), np.uint8)
    assert ff.median(img, behavior="rank", out=out) is out
