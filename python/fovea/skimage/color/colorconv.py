"""skimage.color's colour-space conversions on fovea.

Every per-pixel conversion runs in C (fv_color_convert): on all CPU cores for
host data, in a CUDA kernel for device data. The channel axis is moved last as
a view (no copy); integer images are scaled as ``img_as_float`` does, float16
becomes float32, float32 and float64 stay as they are (scikit-image's
``_supported_float_type``).
"""

import warnings

import numpy as np

from ... import _fovea
from ..._interop import host, like_input, prepare
from .._shared import cucim_rules, img_as_float, supported_float_type
from ... import _interop as ix
from . import _tables
from ._tables import *  # noqa: F401,F403  the conversion matrices
from ._tables import _illuminants

__all__ = [
    "convert_colorspace",
    "xyz_tristimulus_values",
    "rgba2rgb",
    "rgb2hsv",
    "hsv2rgb",
    "rgb2xyz",
    "xyz2rgb",
    "rgb2rgbcie",
    "rgbcie2rgb",
    "rgb2gray",
    "gray2rgb",
    "gray2rgba",
    "xyz2lab",
    "lab2xyz",
    "lab2rgb",
    "rgb2lab",
    "xyz2luv",
    "luv2xyz",
    "luv2rgb",
    "rgb2luv",
    "rgb2hed",
    "hed2rgb",
    "lab2lch",
    "lch2lab",
    "rgb2yuv",
    "yuv2rgb",
    "rgb2yiq",
    "yiq2rgb",
    "rgb2ypbpr",
    "ypbpr2rgb",
    "rgb2ycbcr",
    "ycbcr2rgb",
    "rgb2ydbdr",
    "ydbdr2rgb",
    "separate_stains",
    "combine_stains",
] + [n for n in dir(_tables) if "_from_" in n]

# fv_color_conv, fv_color_pre, fv_color_post (include/fovea/color.h)
MATRIX, RGB2HSV, HSV2RGB, XYZ2LAB, LAB2XYZ, XYZ2LUV, LUV2XYZ, LAB2LCH, LCH2LAB, RGBA2RGB = range(10)
DELTAE_CIE76, DELTAE_CIEDE94, DELTAE_CIEDE2000, DELTAE_CMC = range(10, 14)
PRE_NONE, PRE_SRGB_LINEAR, PRE_STAIN_LOG, PRE_STAIN_EXP = range(4)
POST_NONE, POST_SRGB_GAMMA, POST_NONNEG, POST_EXP_CLIP, POST_CLIP01 = range(5)

try:
    from numpy.exceptions import AxisError
except ImportError:  # numpy < 1.25
    from numpy import AxisError


# ---- plumbing -------------------------------------------------------------------


def _run(arr, conv, out_dtype=None, out_channels=3, **kw):
    """The C conversion of the channels-last float array arr (NumPy or CuPy)."""
    if out_dtype is None:   # uint8 input (a matrix conversion on the host): float64, as img_as_float64
        out_dtype = np.float64 if arr.dtype == np.uint8 else arr.dtype
    out_dtype = np.dtype(out_dtype)
    res = _fovea.color_convert(arr, conv, out_dtype.name, out_channels, stream=ix.stream_of(arr), **kw)
    return ix.wrap(res, arr)


def _matrix(m):
    return [float(v) for v in np.asarray(m, dtype=np.float64).ravel()]


def _axis(channel_axis):
    """channel_axis as one int (scikit-image accepts a 1-tuple too)."""
    if not np.isscalar(channel_axis):
        channel_axis = tuple(channel_axis)
        if len(channel_axis) > 1:
            raise ValueError("only a single channel axis is currently supported")
        channel_axis = channel_axis[0]
    return channel_axis


def _to_float(arr, xp):
    """scikit-image's img_as_float32 / img_as_float64 choice: floats to their
    supported float type (no rescaling), other types through img_as_float."""
    if arr.dtype.kind == "f":
        return arr.astype(supported_float_type(arr), copy=False)
    supported_float_type(arr)  # complex: ValueError as scikit-image
    return img_as_float(arr, xp)


def _last(image, channel_axis):
    """(array with the channel axis last (a view), xp, back, channel_axis)."""
    arr, xp, back = prepare(image)
    channel_axis = _axis(channel_axis)
    if channel_axis != -1:
        arr = xp.moveaxis(arr, channel_axis, -1)
    return arr, xp, back, channel_axis


def _restore(res, xp, channel_axis):
    if channel_axis != -1:
        res = xp.moveaxis(res, -1, channel_axis)
    return res


def _prepare_colorarray(arr, xp, nch=3):
    if arr.ndim == 0 or arr.shape[-1] != nch:
        raise ValueError(f"the input array must have size {nch} along `channel_axis`, got {arr.shape}")
    return _to_float(arr, xp)


def _prepare_matrix_input(arr, xp):
    """As _prepare_colorarray, but uint8 host data stays uint8: the C matrix
    conversion reads it as img_as_float64 would (v / 255) and evaluates the
    per-channel pre-function (sRGB linearisation, stain log) once per value."""
    if xp is np and arr.dtype == np.uint8 and arr.ndim > 0 and arr.shape[-1] == 3:
        return arr
    return _prepare_colorarray(arr, xp)


def _simple(conv, **kw):
    """A 3 -> 3 conversion as a scikit-image function of (image, *, channel_axis)."""

    def fn(image, *, channel_axis=-1):
        arr, xp, back, ax = _last(image, channel_axis)
        arr = _prepare_matrix_input(arr, xp) if conv == MATRIX else _prepare_colorarray(arr, xp)
        return back(_restore(_run(arr, conv, **kw), xp, ax))

    return fn


def _matrix_fn(m, name, doc, **kw):
    fn = _simple(MATRIX, matrix=_matrix(m), **kw)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


# ---- linear conversions ----------------------------------------------------------

rgb2xyz = _matrix_fn(
    xyz_from_rgb, "rgb2xyz", "RGB (sRGB, gamma-encoded) to CIE XYZ (D65), as skimage.color.rgb2xyz.",  # noqa: F405
    pre=PRE_SRGB_LINEAR,
)
xyz2rgb = _matrix_fn(
    rgb_from_xyz, "xyz2rgb", "CIE XYZ to sRGB clipped to [0, 1], as skimage.color.xyz2rgb.",  # noqa: F405
    post=POST_SRGB_GAMMA,
)
rgb2rgbcie = _matrix_fn(rgbcie_from_rgb, "rgb2rgbcie", "RGB to RGB CIE, as skimage.color.rgb2rgbcie.")  # noqa: F405
rgbcie2rgb = _matrix_fn(rgb_from_rgbcie, "rgbcie2rgb", "RGB CIE to RGB, as skimage.color.rgbcie2rgb.")  # noqa: F405
rgb2yuv = _matrix_fn(yuv_from_rgb, "rgb2yuv", "RGB to YUV, as skimage.color.rgb2yuv.")  # noqa: F405
yuv2rgb = _matrix_fn(rgb_from_yuv, "yuv2rgb", "YUV to RGB, as skimage.color.yuv2rgb.")  # noqa: F405
rgb2yiq = _matrix_fn(yiq_from_rgb, "rgb2yiq", "RGB to YIQ, as skimage.color.rgb2yiq.")  # noqa: F405
yiq2rgb = _matrix_fn(rgb_from_yiq, "yiq2rgb", "YIQ to RGB, as skimage.color.yiq2rgb.")  # noqa: F405
rgb2ypbpr = _matrix_fn(ypbpr_from_rgb, "rgb2ypbpr", "RGB to YPbPr, as skimage.color.rgb2ypbpr.")  # noqa: F405
ypbpr2rgb = _matrix_fn(rgb_from_ypbpr, "ypbpr2rgb", "YPbPr to RGB, as skimage.color.ypbpr2rgb.")  # noqa: F405
rgb2ydbdr = _matrix_fn(ydbdr_from_rgb, "rgb2ydbdr", "RGB to YDbDr, as skimage.color.rgb2ydbdr.")  # noqa: F405
ydbdr2rgb = _matrix_fn(rgb_from_ydbdr, "ydbdr2rgb", "YDbDr to RGB, as skimage.color.ydbdr2rgb.")  # noqa: F405
rgb2ycbcr = _matrix_fn(
    ycbcr_from_rgb, "rgb2ycbcr", "RGB to YCbCr (Y in [16, 235]), as skimage.color.rgb2ycbcr.",  # noqa: F405
    post_offset=(16.0, 128.0, 128.0),
)
rgb2hsv = _simple(RGB2HSV)
rgb2hsv.__name__ = rgb2hsv.__qualname__ = "rgb2hsv"
rgb2hsv.__doc__ = "RGB to HSV, as skimage.color.rgb2hsv (hue in [0, 1))."
hsv2rgb = _simple(HSV2RGB)
hsv2rgb.__name__ = hsv2rgb.__qualname__ = "hsv2rgb"
hsv2rgb.__doc__ = "HSV to RGB, as skimage.color.hsv2rgb."


def ycbcr2rgb(ycbcr, *, channel_axis=-1):
    """YCbCr to RGB, as skimage.color.ycbcr2rgb. As scikit-image, the offsets
    16 / 128 / 128 are subtracted in the input's own dtype (integers wrap)."""
    arr, xp, back, ax = _last(ycbcr, channel_axis)
    if arr.dtype in (np.float32, np.float64):
        kw = {"pre_offset": (-16.0, -128.0, -128.0)}
    else:
        arr = arr.copy()
        arr[..., 0] -= 16
        arr[..., 1] -= 128
        arr[..., 2] -= 128
        kw = {}
    arr = _prepare_matrix_input(arr, xp)
    return back(_restore(_run(arr, MATRIX, matrix=_matrix(rgb_from_ycbcr), **kw), xp, ax))  # noqa: F405


def rgb2gray(rgb, *, channel_axis=-1):
    """Luminance Y = 0.2125 R + 0.7154 G + 0.0721 B, as skimage.color.rgb2gray
    (the channel axis is removed)."""
    arr, xp, back, _ = _last(rgb, channel_axis)
    arr = _prepare_matrix_input(arr, xp)
    return back(_run(arr, MATRIX, out_channels=-1, matrix=[0.2125, 0.7154, 0.0721]))


# ---- stains -------------------------------------------------------------------------


def _stains(image, conv_matrix, channel_axis, prepare, pre, post):
    """separate_stains / combine_stains: the 3 x 3 conv_matrix applied between the
    pre and post steps, float64 out (CuPy data: the input's float type, as cuCIM)."""
    arr, xp, back, ax = _last(image, channel_axis)
    arr = prepare(arr, xp)
    m = np.asarray(ix.host(conv_matrix), dtype=np.float64)
    if m.shape != (3, 3):
        raise ValueError(f"conv_matrix must be 3 x 3, got shape {m.shape}")
    out = arr.dtype if cucim_rules(arr) else np.float64   # cuCIM keeps the float type
    res = _run(arr, MATRIX, out, matrix=_matrix(m.T), pre=pre, post=post)
    return back(_restore(res, xp, ax))


def separate_stains(rgb, conv_matrix, *, channel_axis=-1):
    """Stain concentrations from RGB by colour deconvolution (Ruifrok & Johnston),
    as skimage.color.separate_stains: max(log(max(rgb, 1e-6)) / log(1e-6) @ conv_matrix, 0).
    The result is float64, as scikit-image's."""
    return _stains(rgb, conv_matrix, channel_axis, _prepare_matrix_input, PRE_STAIN_LOG, POST_NONNEG)  # noqa: F405


def combine_stains(stains, conv_matrix, *, channel_axis=-1):
    """RGB from stain concentrations, as skimage.color.combine_stains:
    clip(exp(-(stains * -log(1e-6)) @ conv_matrix), 0, 1). The result is float64."""
    return _stains(stains, conv_matrix, channel_axis, _prepare_colorarray, PRE_STAIN_EXP, POST_EXP_CLIP)  # noqa: F405


def rgb2hed(rgb, *, channel_axis=-1):
    """RGB to Haematoxylin-Eosin-DAB, as skimage.color.rgb2hed."""
    return separate_stains(rgb, hed_from_rgb, channel_axis=channel_axis)  # noqa: F405


def hed2rgb(hed, *, channel_axis=-1):
    """Haematoxylin-Eosin-DAB to RGB, as skimage.color.hed2rgb."""
    return combine_stains(hed, rgb_from_hed, channel_axis=channel_axis)  # noqa: F405


# ---- CIE Lab / Luv / LCh -------------------------------------------------------------


def xyz_tristimulus_values(*, illuminant, observer, dtype=float):
    """Reference white (X, Y, Z) of an illuminant ('A', 'B', 'C', 'D50', 'D55',
    'D65', 'D75', 'E') and observer ('2', '10', 'R'), as scikit-image's."""
    illuminant = illuminant.upper()
    observer = observer.upper()
    try:
        return np.asarray(_illuminants[illuminant][observer], dtype=dtype)
    except KeyError:
        raise ValueError(f"Unknown illuminant/observer combination (`{illuminant}`, `{observer}`)") from None


def _white(illuminant, observer):
    return [float(v) for v in xyz_tristimulus_values(illuminant=illuminant, observer=observer)]


def xyz2lab(xyz, illuminant="D65", observer="2", *, channel_axis=-1):
    """CIE XYZ to CIE L*a*b*, as skimage.color.xyz2lab."""
    arr, xp, back, ax = _last(xyz, channel_axis)
    arr = _prepare_colorarray(arr, xp)
    white = _white(illuminant, observer)
    return back(_restore(_run(arr, XYZ2LAB, white=white), xp, ax))


def _lab2xyz(arr, xp, illuminant, observer):
    """(xyz, number of pixels whose z went negative and was clipped)."""
    white = _white(illuminant, observer)
    y = (arr[..., 0] + 16.0) / 116.0
    n_invalid = int(xp.count_nonzero(y - arr[..., 2] / 200.0 < 0))
    return _run(arr, LAB2XYZ, white=white), n_invalid


def _lab_to_xyz(lab, illuminant, observer, channel_axis, what):
    """(xyz, xp, back, axis) of lab2xyz / lab2rgb: negative z clipped to 0 with a
    warning (at the caller of the public function) naming the conversion."""
    arr, xp, back, ax = _last(lab, channel_axis)
    xyz, n_invalid = _lab2xyz(_prepare_colorarray(arr, xp), xp, illuminant, observer)
    if n_invalid != 0:
        sep = ", " if what.startswith("via") else " "
        warnings.warn(
            f"Conversion from CIE-LAB{sep}{what} resulted in {n_invalid} negative Z values that have been clipped "
            "to zero",
            stacklevel=3,
        )
    return xyz, xp, back, ax


def lab2xyz(lab, illuminant="D65", observer="2", *, channel_axis=-1):
    """CIE L*a*b* to CIE XYZ, as skimage.color.lab2xyz (negative z clipped to 0
    with a warning giving their number; counting them reads one number back
    from the device for CuPy inputs)."""
    xyz, xp, back, ax = _lab_to_xyz(lab, illuminant, observer, channel_axis, "to XYZ color space")
    return back(_restore(xyz, xp, ax))


def rgb2lab(rgb, illuminant="D65", observer="2", *, channel_axis=-1):
    """sRGB to CIE L*a*b*, as skimage.color.rgb2lab (through XYZ)."""
    arr, xp, back, ax = _last(rgb, channel_axis)
    arr = _prepare_matrix_input(arr, xp)
    xyz = _run(arr, MATRIX, matrix=_matrix(xyz_from_rgb), pre=PRE_SRGB_LINEAR)  # noqa: F405
    return back(_restore(_run(xyz, XYZ2LAB, white=_white(illuminant, observer)), xp, ax))


def lab2rgb(lab, illuminant="D65", observer="2", *, channel_axis=-1):
    """CIE L*a*b* to sRGB, as skimage.color.lab2rgb (through XYZ; warns about
    negative z as lab2xyz)."""
    xyz, xp, back, ax = _lab_to_xyz(lab, illuminant, observer, channel_axis, "via XYZ to sRGB color space")
    res = _run(xyz, MATRIX, matrix=_matrix(rgb_from_xyz), post=POST_SRGB_GAMMA)  # noqa: F405
    return back(_restore(res, xp, ax))


def xyz2luv(xyz, illuminant="D65", observer="2", *, channel_axis=-1):
    """CIE XYZ to CIE L*u*v*, as skimage.color.xyz2luv."""
    arr, xp, back, ax = _last(xyz, channel_axis)
    arr = _prepare_colorarray(arr, xp)
    return back(_restore(_run(arr, XYZ2LUV, white=_white(illuminant, observer)), xp, ax))


def luv2xyz(luv, illuminant="D65", observer="2", *, channel_axis=-1):
    """CIE L*u*v* to CIE XYZ, as skimage.color.luv2xyz."""
    arr, xp, back, ax = _last(luv, channel_axis)
    arr = _prepare_colorarray(arr, xp)
    return back(_restore(_run(arr, LUV2XYZ, white=_white(illuminant, observer)), xp, ax))


def rgb2luv(rgb, *, channel_axis=-1):
    """sRGB to CIE L*u*v* (D65, 2 degrees), as skimage.color.rgb2luv."""
    arr, xp, back, ax = _last(rgb, channel_axis)
    arr = _prepare_matrix_input(arr, xp)
    xyz = _run(arr, MATRIX, matrix=_matrix(xyz_from_rgb), pre=PRE_SRGB_LINEAR)  # noqa: F405
    return back(_restore(_run(xyz, XYZ2LUV, white=_white("D65", "2")), xp, ax))


def luv2rgb(luv, *, channel_axis=-1):
    """CIE L*u*v* (D65, 2 degrees) to sRGB, as skimage.color.luv2rgb."""
    arr, xp, back, ax = _last(luv, channel_axis)
    arr = _prepare_colorarray(arr, xp)
    xyz = _run(arr, LUV2XYZ, white=_white("D65", "2"))
    res = _run(xyz, MATRIX, matrix=_matrix(rgb_from_xyz), post=POST_SRGB_GAMMA)  # noqa: F405
    return back(_restore(res, xp, ax))


def _lch(conv, image, channel_axis):
    arr, xp, back, ax = _last(image, channel_axis)
    if arr.ndim == 0 or arr.shape[-1] < 3:
        raise ValueError("Input image has less than 3 channels.")
    arr = _to_float(arr, xp)
    return back(_restore(_run(arr, conv, out_channels=arr.shape[-1]), xp, ax))


def lab2lch(lab, *, channel_axis=-1):
    """CIE L*a*b* to CIE LCh (hue in [0, 2 pi)), as skimage.color.lab2lch;
    channels past the third are kept."""
    return _lch(LAB2LCH, lab, channel_axis)


def lch2lab(lch, *, channel_axis=-1):
    """CIE LCh to CIE L*a*b*, as skimage.color.lch2lab."""
    return _lch(LCH2LAB, lch, channel_axis)


# ---- alpha and gray ---------------------------------------------------------------------


def rgba2rgb(rgba, background=(1, 1, 1), *, channel_axis=-1):
    """RGBA to RGB blended onto `background`, as skimage.color.rgba2rgb."""
    arr, xp, back = prepare(rgba)
    if not isinstance(channel_axis, (int, np.integer)):
        raise TypeError("channel_axis must be an integer")
    if channel_axis < -arr.ndim or channel_axis >= arr.ndim:
        raise AxisError("channel_axis exceeds array dimensions")
    channel_axis = channel_axis % arr.ndim
    if arr.shape[channel_axis] != 4:
        raise ValueError(f"the input array must have size 4 along `channel_axis`, got {arr.shape}")
    arr = _to_float(arr, xp)
    bg = np.ravel(ix.host(background)).astype(arr.dtype)
    if len(bg) != 3:
        raise ValueError(f"background must be an array-like containing 3 RGB values. Got {len(bg)} items")
    if np.any(bg < 0) or np.any(bg > 1):
        raise ValueError("background RGB values must be floats between 0 and 1.")
    arr = xp.moveaxis(arr, channel_axis, -1)
    res = _run(arr, RGBA2RGB, background=[float(v) for v in bg])
    return back(xp.moveaxis(res, -1, channel_axis))


def gray2rgb(image, *, channel_axis=-1):
    """The gray image repeated into 3 channels (dtype kept), as skimage.color.gray2rgb."""
    arr, xp, back = prepare(image)
    return back(xp.stack(3 * (arr,), axis=channel_axis))


def _alpha_max(dtype):
    if dtype.kind == "b":
        return True
    if dtype.kind in "ui":
        return np.iinfo(dtype).max
    return 1


def gray2rgba(image, alpha=None, *, channel_axis=-1, check_alpha=True):
    """The gray image repeated into RGB plus an alpha channel (default: the
    dtype's maximum), as skimage.color.gray2rgba. check_alpha (cuCIM's): False
    skips the check (and its UserWarning) that alpha is exact in the image's dtype."""
    arr, xp, back = prepare(image)
    if alpha is None:
        alpha = _alpha_max(arr.dtype)
    # A scalar (or 0-d array, wherever it lives) is a parameter and goes with the
    # image; an alpha array must live where the image does (nothing is copied
    # between host and device silently: DeviceError otherwise).
    if np.isscalar(alpha) or np.ndim(alpha) == 0:
        alpha_src = host(alpha)[()] if not np.isscalar(alpha) else alpha
    else:
        alpha_src = like_input(alpha, arr, "alpha")
    with np.errstate(over="ignore", under="ignore"):
        alpha_arr = xp.asarray(alpha_src).astype(arr.dtype)
    if check_alpha and not bool(xp.array_equal(alpha_arr, xp.asarray(alpha_src))):
        warnings.warn(f"alpha cannot be safely cast to image dtype {arr.dtype.name}", stacklevel=2)
    try:
        alpha_arr = xp.broadcast_to(alpha_arr, arr.shape)
    except ValueError as e:
        raise ValueError("alpha.shape must match image.shape") from e
    return back(xp.stack((arr,) * 3 + (alpha_arr,), axis=channel_axis))


# ---- by name ---------------------------------------------------------------------------------


def _identity(image, *, channel_axis=-1):
    return image


def convert_colorspace(arr, fromspace, tospace, *, channel_axis=-1):
    """Convert between the colour spaces 'RGB', 'HSV', 'RGB CIE', 'XYZ', 'YUV',
    'YIQ', 'YPbPr', 'YCbCr' and 'YDbDr' (case-insensitive), through RGB, as
    skimage.color.convert_colorspace."""
    fromdict = {
        "rgb": _identity,
        "hsv": hsv2rgb,
        "rgb cie": rgbcie2rgb,
        "xyz": xyz2rgb,
        "yuv": yuv2rgb,
        "yiq": yiq2rgb,
        "ypbpr": ypbpr2rgb,
        "ycbcr": ycbcr2rgb,
        "ydbdr": ydbdr2rgb,
    }
    todict = {
        "rgb": _identity,
        "hsv": rgb2hsv,
        "rgb cie": rgb2rgbcie,
        "xyz": rgb2xyz,
        "yuv": rgb2yuv,
        "yiq": rgb2yiq,
        "ypbpr": rgb2ypbpr,
        "ycbcr": rgb2ycbcr,
        "ydbdr": rgb2ydbdr,
    }
    fromspace = fromspace.lower()
    tospace = tospace.lower()
    if fromspace not in fromdict:
        raise ValueError(f"`fromspace` has to be one of {fromdict.keys()}")
    if tospace not in todict:
        raise ValueError(f"`tospace` has to be one of {todict.keys()}")
    return todict[tospace](fromdict[fromspace](arr, channel_axis=channel_axis), channel_axis=channel_axis)
