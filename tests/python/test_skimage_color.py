"""fovea.skimage.color against scikit-image 0.26 on random data.

Every case runs on each array backend (NumPy; CuPy where a GPU and CuPy exist)
and compares with skimage.color on the same data as NumPy: same dtype and
shape; float32 to rtol 1e-5 and float64 to rtol 1e-12, each with an atol of
rtol times the result's largest magnitude (values near zero come out of sums
with cancellation, where a relative bound means nothing). Exceptions, with the
reason, are listed in TOL_EXCEPTIONS. Bad arguments raise scikit-image's
exception types.
"""

import warnings

import numpy as np
import pytest

skc = pytest.importorskip("skimage.color")

from conftest import random_array  # noqa: E402
from fovea.skimage import color as fc  # noqa: E402
import fovea  # noqa: E402

DTYPES = ["uint8", "uint16", "int32", "float32", "float64"]
SHAPES = {"1px": (3,), "2d": (6, 7, 3), "3d": (3, 4, 5, 3)}

# Where 1e-12 (float64) / 1e-5 (float32) cannot hold, and why.
TOL_EXCEPTIONS = {
    # separate_stains of float32 data takes the logarithm in float32 (as
    # scikit-image does) and then works in float64: NumPy's SIMD float32 log and
    # the C library's logf may differ by an ulp of float32 (6e-8 relative), which
    # the float64 result keeps.
    ("separate_stains", "float32"): 1e-6,
    ("rgb2hed", "float32"): 1e-6,
}


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request):
    if request.param == "numpy":
        return np
    return request.getfixturevalue("cp")


def to_host(x):
    if hasattr(x, "get"):
        return x.get()
    return np.asarray(x)


def assert_matches(ours, ref, xp=np, name=None, rtol=None, atol=0.0):
    if xp is not np:
        assert isinstance(ours, xp.ndarray), type(ours)
    got = to_host(ours)
    ref = np.asarray(ref)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref)
        return
    if rtol is None:
        rtol = 1e-5 if ref.dtype == np.float32 else 1e-12
    finite = np.isfinite(ref)
    scale = float(np.max(np.abs(ref[finite]))) if finite.any() else 1.0
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=max(atol, rtol * max(scale, 1e-30)), equal_nan=True)


# deltaE's hue term 2 (C1 C2 - (a1 a2 + b1 b2)) cancels for (nearly) equal chromaticities:
# its value is a rounding residue of a few ulps of C^2 that sqrt lifts to ~sqrt(eps) * C,
# and CUDA's hypot/sqrt may round it differently from glibc's by an ulp. The CPU backend
# matches scikit-image to the bit; on the GPU such pixels may differ by this much (Lab C <= 182).
DELTA_E_GPU_ATOL = 4 * np.sqrt(np.finfo(np.float64).eps) * 182


def delta_atol(xp):
    return 0.0 if xp is np else DELTA_E_GPU_ATOL


# value ranges of each function's input space (float inputs); integer inputs
# cover their whole range (scaled by img_as_float as scikit-image does)
RANGES = {
    "rgb": [(0, 1)] * 3,
    "hsv": [(0, 1)] * 3,
    "xyz": [(0, 1), (0, 1), (0, 1.1)],
    "lab": [(0, 100), (-128, 127), (-128, 127)],
    "lch": [(0, 100), (0, 150), (0, 2 * np.pi)],
    "luv": [(0, 100), (-100, 100), (-100, 100)],
    "yuv": [(0, 1), (-0.44, 0.44), (-0.61, 0.61)],
    "ycbcr": [(16, 235), (16, 240), (16, 240)],
    "stain": [(0, 1)] * 3,
}

CONVERSIONS = [
    ("rgb2hsv", "rgb"),
    ("hsv2rgb", "hsv"),
    ("rgb2xyz", "rgb"),
    ("xyz2rgb", "xyz"),
    ("rgb2lab", "rgb"),
    ("lab2rgb", "lab"),
    ("xyz2lab", "xyz"),
    ("lab2xyz", "lab"),
    ("lab2lch", "lab"),
    ("lch2lab", "lch"),
    ("rgb2luv", "rgb"),
    ("luv2rgb", "luv"),
    ("xyz2luv", "xyz"),
    ("luv2xyz", "luv"),
    ("rgb2hed", "rgb"),
    ("hed2rgb", "stain"),
    ("rgb2yuv", "rgb"),
    ("yuv2rgb", "yuv"),
    ("rgb2yiq", "rgb"),
    ("yiq2rgb", "yuv"),
    ("rgb2ypbpr", "rgb"),
    ("ypbpr2rgb", "yuv"),
    ("rgb2ycbcr", "rgb"),
    ("ycbcr2rgb", "ycbcr"),
    ("rgb2ydbdr", "rgb"),
    ("ydbdr2rgb", "yuv"),
    ("rgb2rgbcie", "rgb"),
    ("rgbcie2rgb", "rgb"),
    ("rgb2gray", "rgb"),
]


def make(rng, shape, dtype, space):
    """Random data of shape (channels last) in space's range (floats) or over
    the dtype's range (integers)."""
    dt = np.dtype(dtype)
    if dt.kind in "ui":
        return random_array(rng, shape, dt)
    a = np.empty(shape, dtype=np.float64)
    for c, (lo, hi) in enumerate(RANGES[space]):
        a[..., c] = rng.uniform(lo, hi, size=shape[:-1])
    return a.astype(dt)


def call_both(name, img, xp, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = getattr(skc, name)(img, *args, **kw)
        ours = getattr(fc, name)(xp.asarray(img), *args, **kw)
    return ours, ref


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,space", CONVERSIONS)
def test_conversion(xp, rng, name, space, dtype):
    for sname, shape in SHAPES.items():
        img = make(rng, shape, dtype, space)
        ours, ref = call_both(name, img, xp)
        assert_matches(ours, ref, xp, rtol=TOL_EXCEPTIONS.get((name, dtype)))


@pytest.mark.parametrize("name,space", CONVERSIONS)
@pytest.mark.parametrize("channel_axis", [0, 1, -2])
def test_channel_axis(xp, rng, name, space, channel_axis):
    img = np.moveaxis(make(rng, (5, 6, 3), "float64", space), -1, channel_axis)
    ours, ref = call_both(name, img, xp, channel_axis=channel_axis)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("name,space", [("rgb2lab", "rgb"), ("rgb2hsv", "rgb"), ("lab2rgb", "lab")])
def test_strided_layouts(xp, rng, name, space):
    base = make(rng, (9, 10, 3), "float32", space)
    for view in (base[::2, ::-1], base.transpose(1, 0, 2), np.asfortranarray(base)):
        ours, ref = call_both(name, view, xp)
        assert_matches(ours, ref, xp)


def test_float16_and_bool(xp, rng):
    img = rng.random((4, 5, 3)).astype(np.float16)
    for name in ("rgb2hsv", "rgb2lab", "rgb2gray", "rgb2ycbcr", "rgb2hed"):
        ours, ref = call_both(name, img, xp)
        assert_matches(ours, ref, xp, rtol=TOL_EXCEPTIONS.get((name, "float32")))  # float16 works as float32
    b = rng.random((4, 5, 3)) < 0.5
    for name in ("rgb2hsv", "rgb2xyz", "rgb2gray"):
        ours, ref = call_both(name, b, xp)
        assert_matches(ours, ref, xp)


EDGE_RGB = np.array(
    [
        [0, 0, 0],
        [1, 1, 1],
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
        [0.5, 0.5, 0.5],
        [0.04045, 0.0031308, 1],
        [1, 1, 0],
        [0, 1, 1],
        [1, 0, 1],
        [0.2, 0.2, 0.7],
        [0.3, 0.9, 0.9],
    ]
)
EDGE_LAB = np.array(
    [
        [0, 0, 0],
        [100, 0, 0],
        [50, 127, -128],
        [50, -128, 127],
        [8, 0, 0],
        [7.9996, 0, 0],
        [20, 0, 200],  # negative z: clipped with a warning
        [100, 100, 100],
        [0, -50, 50],
    ]
)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_edge_values(xp, dtype):
    rgb = EDGE_RGB.astype(dtype)
    lab = EDGE_LAB.astype(dtype)
    for name in ("rgb2hsv", "rgb2xyz", "rgb2lab", "rgb2luv", "rgb2hed", "rgb2gray", "rgb2ycbcr"):
        ours, ref = call_both(name, rgb, xp)
        assert_matches(ours, ref, xp, rtol=TOL_EXCEPTIONS.get((name, dtype)))
    hsv = np.array([[0, 0, 0], [1, 1, 1], [1 / 6, 1, 1], [0.5, 0.5, 0.5], [5 / 6, 1, 0.3], [0.999, 0, 1]], dtype=dtype)
    ours, ref = call_both("hsv2rgb", hsv, xp)
    assert_matches(ours, ref, xp)
    for name in ("lab2rgb", "lab2xyz", "lab2lch", "luv2xyz", "luv2rgb"):
        ours, ref = call_both(name, lab, xp)
        assert_matches(ours, ref, xp)


def test_lab_negative_z_warns(xp):
    lab = EDGE_LAB.copy()
    with pytest.warns(UserWarning, match="resulted in 3 negative Z values"):
        fc.lab2xyz(xp.asarray(lab))
    with pytest.warns(UserWarning, match="via XYZ to sRGB"):
        fc.lab2rgb(xp.asarray(lab))


@pytest.mark.parametrize("illuminant", ["A", "B", "C", "D50", "D55", "D65", "D75", "E"])
@pytest.mark.parametrize("observer", ["2", "10", "R"])
def test_illuminants(xp, rng, illuminant, observer):
    xyz = make(rng, (4, 5, 3), "float64", "xyz")
    lab = make(rng, (4, 5, 3), "float64", "lab")
    for name, img in (("xyz2lab", xyz), ("lab2xyz", lab), ("rgb2lab", xyz), ("lab2rgb", lab), ("xyz2luv", xyz)):
        ours, ref = call_both(name, img, xp, illuminant, observer)
        assert_matches(ours, ref, xp)
    np.testing.assert_array_equal(
        fc.xyz_tristimulus_values(illuminant=illuminant, observer=observer),
        skc.xyz_tristimulus_values(illuminant=illuminant, observer=observer),
    )


def test_lch_extra_channels(xp, rng):
    lab = np.concatenate([make(rng, (4, 5, 3), "float64", "lab"), rng.random((4, 5, 2))], axis=-1)
    for name in ("lab2lch", "lch2lab"):
        ours, ref = call_both(name, lab, xp)
        assert_matches(ours, ref, xp)


STAINS = ["hed", "hdx", "fgx", "bex", "rbd", "gdx", "hax", "bro", "bpx", "ahx", "hpx"]


@pytest.mark.parametrize("stain", STAINS)
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_stains(xp, rng, stain, dtype):
    fwd, inv = f"{stain}_from_rgb", f"rgb_from_{stain}"
    # scikit-image inverts its stain matrices with scipy.linalg.inv at import: the last
    # bits depend on the LAPACK kernels the CPU selects (seen 1 ulp apart between
    # machines); fovea's tables hold one machine's bits
    np.testing.assert_allclose(getattr(fc, fwd), getattr(skc, fwd), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(getattr(fc, inv), getattr(skc, inv), rtol=1e-14, atol=1e-15)
    rgb = make(rng, (6, 7, 3), dtype, "rgb")
    ours, ref = call_both("separate_stains", rgb, xp, getattr(skc, fwd))
    assert_matches(ours, ref, xp, rtol=TOL_EXCEPTIONS.get(("separate_stains", dtype)))
    st = make(rng, (6, 7, 3), dtype, "stain")
    ours, ref = call_both("combine_stains", st, xp, getattr(skc, inv))
    assert_matches(ours, ref, xp)
    ours, ref = call_both("combine_stains", np.moveaxis(st, -1, 0), xp, getattr(skc, inv), channel_axis=0)
    assert_matches(ours, ref, xp)


def test_exports_match_skimage():
    for name in skc.__all__:
        assert hasattr(fc, name), name


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "float32", "float64"])
def test_rgba2rgb(xp, rng, dtype):
    img = make(rng, (5, 6, 4), dtype, "rgb") if dtype[0] in "ui" else rng.random((5, 6, 4)).astype(dtype)
    for bg in ((1, 1, 1), (0, 0.5, 0.2)):
        ours, ref = call_both("rgba2rgb", img, xp, bg)
        assert_matches(ours, ref, xp)
    ours, ref = call_both("rgba2rgb", np.moveaxis(img, -1, 0), xp, channel_axis=0)
    assert_matches(ours, ref, xp)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("channel_axis", [-1, 0, 1])
def test_gray2rgb_rgba(xp, rng, dtype, channel_axis):
    img = random_array(rng, (5, 6), dtype)
    ours, ref = call_both("gray2rgb", img, xp, channel_axis=channel_axis)
    assert_matches(ours, ref, xp)
    ours, ref = call_both("gray2rgba", img, xp, channel_axis=channel_axis)
    assert_matches(ours, ref, xp)
    if dtype != "bool":
        ours, ref = call_both("gray2rgba", img, xp, 0, channel_axis=channel_axis)
        assert_matches(ours, ref, xp)


def test_gray2rgba_alpha(xp, rng):
    img = random_array(rng, (5, 6), "uint8")
    with pytest.warns(UserWarning, match="alpha cannot be safely cast"):
        fc.gray2rgba(xp.asarray(img), alpha=300)
    with pytest.raises(ValueError, match="alpha.shape must match"):
        fc.gray2rgba(xp.asarray(img), alpha=xp.zeros((2, 2), np.uint8))
    # a 0-d alpha is a parameter, taken from wherever it lives
    ours = fc.gray2rgba(xp.asarray(img), alpha=np.array(7, np.uint8))
    assert_matches(ours, skc.gray2rgba(img, alpha=np.array(7, np.uint8)), xp)
    if xp is not np:
        # an alpha array must live with the image: nothing moves between host and device silently
        with pytest.raises(fovea.DeviceError):
            fc.gray2rgba(xp.asarray(img), alpha=np.zeros((5, 6), np.uint8))


SPACES = ["RGB", "HSV", "RGB CIE", "XYZ", "YUV", "YIQ", "YPbPr", "YCbCr", "YDbDr"]


@pytest.mark.parametrize("fromspace", SPACES)
def test_convert_colorspace(xp, rng, fromspace):
    img = make(rng, (5, 6, 3), "float64", "rgb")
    for tospace in SPACES:
        ours, ref = call_both("convert_colorspace", img, xp, fromspace, tospace)
        assert_matches(ours, ref, xp)
    with pytest.raises(ValueError):
        fc.convert_colorspace(xp.asarray(img), fromspace, "nope")
    with pytest.raises(ValueError):
        fc.convert_colorspace(xp.asarray(img), "nope", fromspace)


# ---- colour differences -------------------------------------------------------------

DELTAS = [
    ("deltaE_cie76", {}),
    ("deltaE_ciede94", {}),
    ("deltaE_ciede94", {"kH": 2, "kC": 0.5, "kL": 1.5, "k1": 0.048, "k2": 0.014}),
    ("deltaE_ciede2000", {}),
    ("deltaE_ciede2000", {"kL": 2, "kC": 1.5, "kH": 0.7}),
    ("deltaE_cmc", {}),
    ("deltaE_cmc", {"kL": 2, "kC": 1}),
]


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("name,kw", DELTAS)
def test_delta_e(xp, rng, name, kw, dtype):
    for shape in ((3,), (6, 7, 3), (3, 4, 5, 3)):
        if dtype == "uint8":
            a, b = random_array(rng, shape, dtype), random_array(rng, shape, dtype)
        else:
            a, b = make(rng, shape, dtype, "lab"), make(rng, shape, dtype, "lab")
            b[..., :1] = a[..., :1]  # some equal lightness
        b.reshape(-1, 3)[:1] = a.reshape(-1, 3)[:1]  # one identical pair
        ref = getattr(skc, name)(a, b, **kw)
        ours = getattr(fc, name)(xp.asarray(a), xp.asarray(b), **kw)
        assert_matches(ours, ref, xp, atol=delta_atol(xp))
    # channel axis first, a broadcast second argument, mixed float types
    a = make(rng, (3, 5, 6), "float64", "lab")
    b = make(rng, (3, 1, 6), "float32", "lab")
    ref = getattr(skc, name)(a, b, channel_axis=0, **kw)
    ours = getattr(fc, name)(xp.asarray(a), xp.asarray(b), channel_axis=0, **kw)
    assert_matches(ours, ref, xp, atol=delta_atol(xp))


def test_delta_e_against_one_colour(xp, rng):
    lab = make(rng, (5, 6, 3), "float64", "lab")
    for name, kw in DELTAS:
        err = skimage_error(getattr(skc, name), lab, [50, 10, -20], **kw)
        if err is not None:  # ciede2000 normalises channel_axis with lab1.ndim only
            with pytest.raises(err):
                getattr(fc, name)(xp.asarray(lab), [50, 10, -20], **kw)
            continue
        ref = getattr(skc, name)(lab, [50, 10, -20], **kw)
        assert_matches(getattr(fc, name)(xp.asarray(lab), [50, 10, -20], **kw), ref, xp, atol=delta_atol(xp))


def test_delta_e_hue_edges(xp):
    # zero chroma, opposite hues and the hue wrap-around of CIEDE2000
    a = np.array([[50, 0, 0], [50, 10, 0], [50, 10, 0.01], [50, -10, 1e-9], [60, 0, 20], [40, 5, -5]], float)
    b = np.array([[50, 0, 0], [50, -10, 0], [50, 10, -0.01], [50, -10, -1e-9], [60, 0, -20], [30, -5, 5]], float)
    for name, kw in DELTAS:
        assert_matches(getattr(fc, name)(xp.asarray(a), xp.asarray(b), **kw), getattr(skc, name)(a, b, **kw), xp,
                       atol=delta_atol(xp))


# ---- label2rgb -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["overlay", "avg"])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_label2rgb(xp, rng, kind, dtype):
    label = rng.integers(-1, 6, size=(12, 13))
    image = make(rng, (12, 13, 3), dtype, "rgb")
    cases = [
        {},
        {"bg_label": -1},
        {"bg_label": 3, "bg_color": (0.1, 0.2, 0.3)},
        {"bg_label": 10},
    ]
    if kind == "overlay":
        cases += [
            {"alpha": 0.6, "image_alpha": 0.5, "saturation": 0.4},
            {"colors": ["red", (0.1, 0.9, 0.2), "aliceblue"], "bg_color": None},
            {"bg_color": None, "bg_label": 2},
        ]
    for kw in cases:
        ref = skc.label2rgb(label, image, kind=kind, **kw)
        ours = fc.label2rgb(xp.asarray(label), xp.asarray(image), kind=kind, **kw)
        assert_matches(ours, ref, xp)
    ref = skc.label2rgb(label, np.moveaxis(image, -1, 0), kind=kind, channel_axis=0)
    ours = fc.label2rgb(xp.asarray(label), xp.asarray(np.moveaxis(image, -1, 0)), kind=kind, channel_axis=0)
    assert_matches(ours, ref, xp)


def test_label2rgb_no_image_and_gray(xp, rng):
    label = rng.integers(0, 15, size=(7, 8, 3))
    assert_matches(fc.label2rgb(xp.asarray(label)), skc.label2rgb(label), xp)
    gray = rng.random((7, 8, 3))
    assert_matches(fc.label2rgb(xp.asarray(label), xp.asarray(gray)), skc.label2rgb(label, gray), xp)
    with pytest.raises(ValueError):
        fc.label2rgb(xp.asarray(label), xp.asarray(gray), kind="nope")
    with pytest.raises(ValueError):
        fc.label2rgb(xp.asarray(label), xp.asarray(gray[:3]))


# ---- errors --------------------------------------------------------------------------------


def skimage_error(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*args, **kw)
        except Exception as e:  # noqa: BLE001
            return type(e)
    return None


@pytest.mark.parametrize(
    "name,args,kw",
    [
        ("rgb2hsv", (np.zeros((4, 5, 4)),), {}),
        ("rgb2lab", (np.zeros((4, 5, 2)),), {}),
        ("rgb2gray", (np.zeros((4, 5)),), {}),
        ("xyz2lab", (np.zeros((4, 5, 3)), "Z9"), {}),
        ("lab2xyz", (np.zeros((4, 5, 3)), "D65", "7"), {}),
        ("lab2lch", (np.zeros((4, 5, 2)),), {}),
        ("rgb2hsv", (np.zeros((4, 5, 3)),), {"channel_axis": 3}),
        ("rgba2rgb", (np.zeros((4, 5, 3)),), {}),
        ("rgba2rgb", (np.zeros((4, 5, 4)),), {"channel_axis": 5}),
        ("rgba2rgb", (np.zeros((4, 5, 4)),), {"channel_axis": 1.5}),
        ("rgba2rgb", (np.zeros((4, 5, 4)), (1, 1)), {}),
        ("rgba2rgb", (np.zeros((4, 5, 4)), (1, 2, 1)), {}),
        ("rgb2hsv", (np.zeros((4, 5, 3), complex),), {}),
        ("separate_stains", (np.zeros((4, 5, 4)), np.eye(3)), {}),
        ("deltaE_cie76", (np.zeros((4, 2)), np.zeros((4, 2))), {}),
        ("deltaE_ciede2000", (np.zeros((4, 3)), np.zeros((5, 3))), {}),
    ],
)
def test_errors(xp, name, args, kw):
    expected = skimage_error(getattr(skc, name), *args, **kw)
    assert expected is not None
    dev_args = tuple(xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    with pytest.raises(expected):
        getattr(fc, name)(*dev_args, **kw)


def test_same_array_type_out(rng):
    torch = pytest.importorskip("torch")
    img = torch.from_numpy(rng.random((4, 5, 3)))
    out = fc.rgb2lab(img)
    assert isinstance(out, torch.Tensor)
    np.testing.assert_allclose(out.numpy(), skc.rgb2lab(img.numpy()), rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("name", ["rgb2hed", "rgb2xyz", "rgb2lab", "rgb2luv", "rgb2gray", "rgb2yuv", "rgb2ycbcr",
                                  "rgb2yiq", "rgb2ypbpr", "rgb2ydbdr"])
def test_uint8_host_fast_path_bits(name):
    """uint8 NumPy input goes to the C matrix conversion as uint8 (its per-channel
    pre-function evaluated once per value): the same bits as img_as_float64 input,
    also for strided views and another channel axis."""
    from skimage.util import img_as_float
    rng = np.random.default_rng(5)
    x = rng.integers(0, 256, (41, 37, 3), dtype=np.uint8)
    fn = getattr(fc, name)
    for img in (x, x[::2, ::3]):
        got = fn(img)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, fn(img_as_float(img)))
    xt = np.moveaxis(x, -1, 0)
    np.testing.assert_array_equal(fn(xt, channel_axis=0), fn(img_as_float(xt), channel_axis=0))
