"""Result dtypes of fovea.skimage: the array's library decides (docs/skimage.md,
"Result dtypes").

- NumPy in: scikit-image 0.26's types -- checked against scikit-image itself, for
  every function below and bool / uint8 / uint16 / int16 / float32 / float64 input
  (the array types and dtypes of every part of the result: arrays, 0-d arrays,
  NumPy scalars, Python numbers, tuples and lists of them).
- CuPy in: cuCIM's types, as cuCIM's source gives them (python/cucim/src/cucim/
  skimage, 26.x): ``_supported_float_type`` and ``img_as_float`` take bool and 8-
  and 16-bit integers to float32, and the functions listed in CUPY below keep
  their own rules. Skipped without a GPU and CuPy.

The module is marked cucim_dtypes: it runs without the skimage_dtypes switch that
conftest.py turns on for the other tests.
"""

import sys
import types

import numpy as np
import pytest

import fovea.skimage as fsk  # noqa: F401  (loads the submodules below)
from fovea.skimage import _shared

pytestmark = pytest.mark.cucim_dtypes

DTYPES = ["bool", "uint8", "uint16", "int16", "float32", "float64"]
SMALL = ("bool", "uint8", "uint16", "int8", "int16", "float16", "float32")


def cucim_float(dt):
    """cuCIM's _supported_float_type (complex left out)."""
    return "float32" if np.dtype(dt).name in SMALL else "float64"


# ---- inputs -------------------------------------------------------------------------------------

def _img(dt, shape=(16, 16), seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dt)
    if dt.kind == "b":
        a = rng.random(shape) > 0.5
        a.flat[0], a.flat[1] = True, False
        return a
    if dt.kind in "ui":
        info = np.iinfo(dt)
        lo, hi = (info.min, info.max) if dt.itemsize == 1 else (max(info.min, -900), 900)
        return rng.integers(lo, hi, size=shape, endpoint=True).astype(dt)
    return rng.random(shape).astype(dt)


def _rgb(dt):
    return _img(dt, (10, 10, 3))


def _coords(dt):
    return _img(dt, (9, 2))


LABELS = (np.arange(16 * 16).reshape(16, 16) // 37 % 4).astype(np.int32)
PSF = np.ones((3, 3)) / 9


# ---- the cases: id -> (module, function, input maker, call, dtypes) --------------------------------
# call(f, x, put): put() moves a NumPy parameter array to the input's library

def _plain(f, x, put):
    return f(x)


CASES = {}


def case(cid, mod, name, make=_img, call=_plain, dtypes=DTYPES):
    CASES[cid] = (mod, name, make, call, dtypes)


for _n in ["rgb2hsv", "hsv2rgb", "rgb2xyz", "xyz2rgb", "rgb2lab", "lab2rgb", "rgb2luv", "luv2rgb", "rgb2yuv",
           "rgb2ycbcr", "rgb2gray", "rgb2hed", "hed2rgb", "lab2lch"]:
    case(_n, "color", _n, _rgb)
case("gray2rgb", "color", "gray2rgb")
case("rgba2rgb", "color", "rgba2rgb", lambda d: _img(d, (8, 8, 4)))
case("label2rgb", "color", "label2rgb", call=lambda f, x, put: f(put(LABELS), x))
case("label2rgb-noimage", "color", "label2rgb", call=lambda f, x, put: f(x.astype(np.int32)), dtypes=["uint8"])
case("label2rgb-avg", "color", "label2rgb", call=lambda f, x, put: f(put(LABELS), x, kind="avg"))
case("deltaE_cie76", "color", "deltaE_cie76", _rgb, lambda f, x, put: f(x, x[::-1]))
case("deltaE_ciede2000", "color", "deltaE_ciede2000", _rgb, lambda f, x, put: f(x, x[::-1]),
     ["uint8", "float32", "float64"])
case("separate_stains", "color", "separate_stains", _rgb,
     lambda f, x, put: f(x, put(__import__("skimage.color").color.hed_from_rgb)))

case("histogram", "exposure", "histogram")
case("cumulative_distribution", "exposure", "cumulative_distribution")
case("equalize_hist", "exposure", "equalize_hist")
case("equalize_adapthist", "exposure", "equalize_adapthist", dtypes=["uint8", "uint16", "float32", "float64"])
case("rescale_intensity", "exposure", "rescale_intensity")
case("rescale_intensity-range", "exposure", "rescale_intensity",
     call=lambda f, x, put: f(x, out_range=(0.0, 1.0)))
case("rescale_intensity-float32", "exposure", "rescale_intensity",
     call=lambda f, x, put: f(x, out_range=np.float32))
case("adjust_gamma", "exposure", "adjust_gamma", dtypes=["uint8", "uint16", "float32", "float64"])
case("is_low_contrast", "exposure", "is_low_contrast")
case("match_histograms", "exposure", "match_histograms", call=lambda f, x, put: f(x, x[::-1]))

for _n in ["sobel", "scharr_h", "prewitt_v", "roberts", "farid", "laplace", "gaussian", "unsharp_mask", "median",
           "frangi", "hessian", "sato", "butterworth", "threshold_niblack", "threshold_sauvola"]:
    case(_n, "filters", _n)
case("gaussian-preserve", "filters", "gaussian", call=lambda f, x, put: f(x, preserve_range=True))
case("unsharp_mask-preserve", "filters", "unsharp_mask", call=lambda f, x, put: f(x, preserve_range=True))
case("difference_of_gaussians", "filters", "difference_of_gaussians", call=lambda f, x, put: f(x, 1))
case("correlate_sparse", "filters", "correlate_sparse", call=lambda f, x, put: f(x, put(np.ones((3, 3)))))
case("threshold_local", "filters", "threshold_local", call=lambda f, x, put: f(x, 5))
case("gabor", "filters", "gabor", call=lambda f, x, put: f(x, 0.2))
for _n in ["threshold_otsu", "threshold_li", "threshold_mean", "threshold_yen", "threshold_isodata"]:
    case(_n, "filters", _n, dtypes=["bool", "uint8", "uint16", "float32", "float64"])

for _n in ["moments", "moments_central", "centroid", "inertia_tensor", "shannon_entropy", "blur_effect",
           "perimeter", "perimeter_crofton", "euler_number"]:
    case(_n, "measure", _n, dtypes=["bool", "float32", "float64"] if _n.startswith("perim") else DTYPES)
case("blur_effect-channels", "measure", "blur_effect", _rgb, lambda f, x, put: f(x, channel_axis=-1))
case("moments_coords", "measure", "moments_coords", _coords)
case("moments_coords_central", "measure", "moments_coords_central", _coords)
case("moments_coords_central-0", "measure", "moments_coords_central", _coords, lambda f, x, put: f(x, 0))
case("subdivide_polygon", "measure", "subdivide_polygon", _coords, dtypes=["uint8", "int16", "float32", "float64"])
case("profile_line", "measure", "profile_line", call=lambda f, x, put: f(x, (1, 1), (12, 10)))

case("mean_squared_error", "metrics", "mean_squared_error", call=lambda f, x, put: f(x, x[::-1]))
case("structural_similarity", "metrics", "structural_similarity",
     call=lambda f, x, put: f(x, x[::-1], data_range=1, full=True, gradient=True))

case("reconstruction", "morphology", "reconstruction",
     call=lambda f, x, put: f(x * 0 + x.min(), x),
     dtypes=["uint8", "uint16", "int16", "float32", "float64"])
case("reconstruction-erosion", "morphology", "reconstruction",
     call=lambda f, x, put: f(x.max() + (x * 0), x, method="erosion"), dtypes=["uint8", "int16", "float32"])

case("denoise_tv_chambolle", "restoration", "denoise_tv_chambolle")
case("denoise_tv_bregman", "restoration", "denoise_tv_bregman",
     call=lambda f, x, put: f(x, weight=0.1, max_num_iter=2), dtypes=["uint8", "float32", "float64"])
case("richardson_lucy", "restoration", "richardson_lucy", call=lambda f, x, put: f(x, put(PSF), num_iter=2))
case("wiener", "restoration", "wiener", call=lambda f, x, put: f(x, put(PSF), 0.1))
case("inpaint_biharmonic", "restoration", "inpaint_biharmonic", call=lambda f, x, put: f(x, put(LABELS == 1)),
     dtypes=["uint8", "float32", "float64"])

case("chan_vese", "segmentation", "chan_vese", call=lambda f, x, put: f(x, max_num_iter=2, extended_output=True),
     dtypes=["uint8", "uint16", "float32", "float64"])
case("mark_boundaries", "segmentation", "mark_boundaries", call=lambda f, x, put: f(x, put(LABELS)))

for _n, _c in [("resize", lambda f, x, put: f(x, (8, 8))), ("rescale", lambda f, x, put: f(x, 0.5)),
               ("rotate", lambda f, x, put: f(x, 30)), ("swirl", _plain), ("warp_polar", _plain),
               ("pyramid_reduce", _plain), ("pyramid_expand", _plain),
               ("resize_local_mean", lambda f, x, put: f(x, (8, 8))),
               ("downscale_local_mean", lambda f, x, put: f(x, (2, 2))),
               ("radon", _plain), ("integral_image", _plain)]:
    case(_n, "transform", _n, call=_c, dtypes=[d for d in DTYPES if d != "bool"])
case("resize-preserve", "transform", "resize", call=lambda f, x, put: f(x, (8, 8), preserve_range=True),
     dtypes=["uint8", "uint16", "int16", "float32"])
case("resize_local_mean-preserve", "transform", "resize_local_mean",
     call=lambda f, x, put: f(x, (8, 8), preserve_range=True), dtypes=["uint8", "int16", "float32"])


# ---- what cuCIM returns for CuPy input (from its source), per case and input dtype --------------

def _arr(dt):
    return ("cupy", cucim_float(dt))


def _same(dt):
    return ("cupy", np.dtype(dt).name)


CUPY = {
    # color: _prepare_colorarray -> img_as_float32 / 64 by _supported_float_type; stains in
    # elementwise kernels of that type; label2rgb: float32 without an image
    **{n: _arr for n in ["rgb2hsv", "hsv2rgb", "rgb2xyz", "xyz2rgb", "rgb2lab", "lab2rgb", "rgb2luv", "luv2rgb",
                         "rgb2yuv", "rgb2ycbcr", "rgb2gray", "rgb2hed", "hed2rgb", "lab2lch", "rgba2rgb",
                         "separate_stains", "label2rgb", "deltaE_cie76", "deltaE_ciede2000"]},
    "gray2rgb": _same,
    "label2rgb-noimage": lambda dt: ("cupy", "float32"),
    "label2rgb-avg": _same,
    # exposure: equalize_hist / rescale_intensity(range) cast to _supported_float_type;
    # cumulative_distribution keeps the float64 cdf; is_low_contrast: a 0-d array
    "equalize_hist": _arr,
    "equalize_adapthist": _arr,
    "cumulative_distribution": lambda dt: (("cupy", "float64"), None),
    "rescale_intensity": _same,
    "rescale_intensity-range": _arr,
    "rescale_intensity-float32": lambda dt: ("cupy", "float32"),
    "adjust_gamma": _same,
    "is_low_contrast": lambda dt: "bool" if dt == "bool" else ("cupy0", "bool"),
    "match_histograms": _arr,
    # filters: img_as_float / convert_to_float / _supported_float_type of the input
    **{n: _arr for n in ["sobel", "scharr_h", "prewitt_v", "roberts", "farid", "laplace", "gaussian",
                         "unsharp_mask", "frangi", "hessian", "sato", "butterworth", "threshold_niblack",
                         "threshold_sauvola", "gaussian-preserve", "unsharp_mask-preserve",
                         "difference_of_gaussians", "correlate_sparse", "threshold_local"]},
    "median": _same,
    # measure: moments in _supported_float_type; perimeters 0-d float64 arrays, the 2-d Euler
    # number a 0-d int64 array; blur_effect: np.max of host floats; polygons in the
    # coordinates' float type (float64 for integers)
    **{n: _arr for n in ["moments", "moments_central", "centroid", "inertia_tensor", "moments_coords",
                         "moments_coords_central", "moments_coords_central-0"]},
    "perimeter": lambda dt: ("cupy0", "float64"),
    "perimeter_crofton": lambda dt: ("cupy0", "float64"),
    "euler_number": lambda dt: ("cupy0", "int64"),
    "blur_effect": lambda dt: ("np", "float64"),
    "blur_effect-channels": lambda dt: ("np", "float64"),
    "subdivide_polygon": lambda dt: ("cupy", dt if np.dtype(dt).kind == "f" else "float64"),
    # morphology: reconstruction in the inputs' dtype (signed for an unsigned erosion)
    "reconstruction": _same,
    "reconstruction-erosion": lambda dt: ("cupy", np.promote_types(dt, np.int8).name if dt == "uint8" else dt),
    # restoration, segmentation, transform: the float rule (cuCIM's, or fovea's applying
    # it where cuCIM has no such function: bregman, inpaint, radon)
    **{n: _arr for n in ["denoise_tv_chambolle", "denoise_tv_bregman", "richardson_lucy", "wiener",
                         "inpaint_biharmonic", "mark_boundaries", "resize", "rescale", "rotate", "swirl",
                         "warp_polar", "pyramid_reduce", "pyramid_expand", "resize_local_mean", "radon",
                         "resize-preserve", "resize_local_mean-preserve"]},
    # chan_vese: (segmentation, phi in the float type, energies as 0-d arrays of it)
    "chan_vese": lambda dt: (("cupy", "bool"), ("cupy", cucim_float(dt)), [("cupy0", cucim_float(dt))]),
}


# ---- result signatures --------------------------------------------------------------------------

def sig(r, cp=None):
    """The array types and dtypes of a result: ("np"|"np0"|"cupy"|"cupy0", dtype) for
    arrays (0: 0-d) and NumPy scalars ("np"), the type name for Python numbers, tuples
    and lists of those (a list: its distinct element signatures)."""
    if cp is not None and isinstance(r, cp.ndarray):
        return ("cupy" if r.ndim else "cupy0", r.dtype.name)
    if isinstance(r, np.ndarray):
        return ("np" if r.ndim else "np0", r.dtype.name)
    if isinstance(r, np.generic):
        return ("np", r.dtype.name)
    if isinstance(r, tuple):
        return tuple(sig(x, cp) for x in r)
    if isinstance(r, list):
        return [s for i, s in enumerate(sig(x, cp) for x in r) if s not in [sig(y, cp) for y in r[:i]]]
    if isinstance(r, dict):
        return "dict"
    return type(r).__name__


def _fn(pkg, mod, name):
    return getattr(__import__(f"{pkg}.{mod}", fromlist=[name]), name)


def _ids():
    return [pytest.param(cid, dt, id=f"{cid}-{dt}") for cid, (_, _, _, _, dts) in CASES.items() for dt in dts]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("cid,dt", _ids())
def test_numpy_as_skimage(cid, dt):
    mod, name, make, call, _ = CASES[cid]
    x = make(dt)
    try:
        want = call(_fn("skimage", mod, name), x.copy(), lambda a: a)
    except Exception as e:   # then fovea raises the same exception type
        with pytest.raises(type(e)):
            call(_fn("fovea.skimage", mod, name), x.copy(), lambda a: a)
        return
    got = call(_fn("fovea.skimage", mod, name), x.copy(), lambda a: a)
    assert sig(got) == sig(want)


def _cupy_ids():
    return [pytest.param(cid, dt, id=f"{cid}-{dt}", marks=pytest.mark.gpu)
            for cid, (_, _, _, _, dts) in CASES.items() if cid in CUPY for dt in dts]


def _matches(s, want):
    """s (sig of a CuPy result) against the expectation (None: anything)."""
    if want is None:
        return True
    if isinstance(want, tuple) and want and isinstance(want[0], (tuple, list)):
        return isinstance(s, tuple) and len(s) == len(want) and all(_matches(a, b) for a, b in zip(s, want))
    if isinstance(want, list):
        return isinstance(s, list) and all(a in want for a in s)
    return s == want


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("cid,dt", _cupy_ids())
def test_cupy_as_cucim(cp, cid, dt):
    mod, name, make, call, _ = CASES[cid]
    got = call(_fn("fovea.skimage", mod, name), cp.asarray(make(dt)), cp.asarray)
    want = CUPY[cid](dt)
    assert _matches(sig(got, cp), want), (sig(got, cp), want)


@pytest.mark.gpu
@pytest.mark.parametrize("dt", DTYPES)
def test_cupy_values_close_to_skimage(cp, dt):
    """cuCIM's float32 is a precision, not another result: a CuPy gaussian / sobel of
    integer data equals scikit-image's float64 result to float32 rounding."""
    import skimage.filters as sf

    import fovea.skimage.filters as ff

    x = _img(dt, (32, 32))
    for f, g in [(ff.gaussian, sf.gaussian), (ff.sobel, sf.sobel)]:
        got = f(cp.asarray(x))
        assert got.dtype == cucim_float(dt)
        np.testing.assert_allclose(got.get(), g(x), rtol=2e-6, atol=2e-6)


# ---- the shared helpers' two tables (no GPU needed: a stand-in "cupy" module) ----------------------

@pytest.fixture
def fake_cupy(monkeypatch):
    """A module named cupy whose array functions are NumPy's: enough for the dtype
    helpers, which look at the xp module they are given."""
    fake = types.ModuleType("cupy")
    for n in ("multiply", "maximum", "asarray"):
        setattr(fake, n, getattr(np, n))
    real = sys.modules.get("cupy")
    monkeypatch.setitem(sys.modules, "cupy", real if real is not None else fake)
    return sys.modules["cupy"]


@pytest.mark.parametrize("dt", ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "int64",
                                "float16", "float32", "float64"])
def test_supported_float_type_tables(fake_cupy, dt):
    assert np.dtype(_shared.supported_float_type(dt, xp=fake_cupy)) == cucim_float(dt)
    assert np.dtype(_shared.supported_float_type(dt, xp=np)) == (
        "float32" if dt in ("float16", "float32") else "float64")
    with pytest.raises(ValueError):
        _shared.supported_float_type("complex64", xp=fake_cupy)
    assert _shared.supported_float_type(("uint8", "float32"), xp=fake_cupy) == np.float32
    assert _shared.supported_float_type(("uint8", "float32")) == np.float64


@pytest.mark.parametrize("dt", ["bool", "uint8", "int8", "uint16", "int16", "int32", "float16", "float32"])
def test_img_as_float_tables(fake_cupy, dt):
    x = _img(dt, (5, 7))
    if np.dtype(dt).kind == "i":
        x.flat[0] = np.iinfo(dt).min   # clipped at -1
    ours = _shared.img_as_float(x, fake_cupy)
    assert ours.dtype == cucim_float(dt)
    host = _shared.img_as_float(x, np)
    assert host.dtype == (dt if np.dtype(dt).kind == "f" else "float64")
    if np.dtype(dt).kind in "iu":
        # cuCIM: cp.multiply(image, 1 / imax, dtype=float32 or float64) (then max(-1))
        want = np.multiply(x, 1.0 / np.iinfo(dt).max, dtype=cucim_float(dt))
        if np.dtype(dt).kind == "i":
            want = np.maximum(want, -1.0)
        np.testing.assert_array_equal(ours, want)
    assert _shared.convert_to_float(x, True, fake_cupy).dtype == cucim_float(dt)
    assert _shared.convert_to_float(x, True, np).dtype == (
        "float32" if dt in ("float16", "float32") else "float64")


def test_switch_keeps_skimage_rules(fake_cupy):
    from fovea import _interop

    assert _shared.supported_float_type("uint8", xp=fake_cupy) == np.float32
    with _interop.switched("skimage_dtypes"):
        assert _shared.supported_float_type("uint8", xp=fake_cupy) == np.float64
        assert not _shared.cucim_rules(fake_cupy)
    assert _shared.cucim_rules(fake_cupy)
    assert not _shared.cucim_rules(np, fake_cupy)
    assert not _shared.cucim_rules(np.zeros(2))


def test_scalar_result_numpy():
    r = _shared.scalar_result(3.0, np.float64, np.zeros(2))
    assert type(r) is np.float64
