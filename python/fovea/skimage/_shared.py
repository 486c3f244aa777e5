"""Conventions shared by the fovea.skimage modules (the array rules -- which
library an input belongs to, devices, result types -- are fovea._interop's):

- The float conventions, decided by the array's library (docs/skimage.md, "Result
  dtypes"): NumPy data follows scikit-image 0.26, CuPy data cuCIM.
  ``supported_float_type``: float16 -> float32, float32/float64 kept, everything
  else float64 -- except that for CuPy data (cuCIM's table) bool and the 8- and
  16-bit integers, which float32 holds exactly, become float32 too.
  ``img_as_float``: integers scaled to [0, 1] or [-1, 1] in that float type (NumPy:
  float64, as scikit-image), floats untouched (CuPy: float16 -> float32, as cuCIM).
  On the host the results agree with scikit-image bit for bit.
- Small argument checks with scikit-image's messages and exception types.

The heavy work (every filter) goes through fovea.ndimage, which runs in C on
the CPU thread pool or in CUDA kernels, chosen by where the data lives.
"""

import sys

import numpy as np

from .._interop import switch

__all__ = [
    "cucim_rules",
    "supported_float_type",
    "scalar_result",
    "img_as_float",
    "convert_to_float",
    "as_float_image",
    "check_nD",
    "slice_at_axis",
    "dtype_range",
    "regular_grid",
]

# scikit-image's table of float types for a dtype character (others: float64).
_FLOAT_FOR_CHAR = {
    "e": np.float32,
    "f": np.float32,
    "d": np.float64,
    "g": np.float64,
    "F": np.complex64,
    "D": np.complex128,
    "G": np.complex128,
}
# cuCIM's table (_shared.utils.new_float_type): also the types float32 holds exactly
_CUCIM_FLOAT_FOR_CHAR = dict(_FLOAT_FOR_CHAR, b=np.float32, B=np.float32, h=np.float32, H=np.float32)
_CUCIM_FLOAT_FOR_CHAR["?"] = np.float32


def _is_cupy(obj):
    """Whether obj is CuPy's: the cupy module, or an array (or scalar) of it."""
    if obj is None or isinstance(obj, (np.ndarray, np.generic, np.dtype, type, str)):
        return False
    if obj is sys.modules.get("cupy"):
        return True
    return type(obj).__module__.partition(".")[0] == "cupy"


def cucim_rules(*objs):
    """Whether results follow cuCIM's dtype rules rather than scikit-image's: the
    array's library decides -- the first array among objs (working arrays, or the xp
    module doing the work; tuples and lists are looked into; dtypes, scalars and None
    are skipped) being CuPy's. One rule for every fovea.skimage function. The internal
    switch "skimage_dtypes" (fovea._interop.switched) keeps scikit-image's rules for
    CuPy data too."""
    if switch("skimage_dtypes"):
        return False
    for obj in objs:
        if isinstance(obj, (tuple, list)):
            if cucim_rules(*obj):
                return True
            continue
        if _is_cupy(obj):
            return True
        if isinstance(obj, np.ndarray) or obj is np:
            return False
    return False


def _dtype_of(x):
    if isinstance(x, (np.dtype, type, str)):
        return np.dtype(x)
    dt = getattr(x, "dtype", None)
    return np.dtype(x if dt is None else dt)


def _float_type(dtype, allow_complex, gpu):
    dtype = _dtype_of(dtype)
    if not allow_complex and dtype.kind == "c":
        raise ValueError("complex valued input is not supported")
    return (_CUCIM_FLOAT_FOR_CHAR if gpu else _FLOAT_FOR_CHAR).get(dtype.char, np.float64)


def supported_float_type(input_dtype, allow_complex=False, xp=None):
    """``_supported_float_type`` of the array's library: float16 -> float32; float32,
    float64 and complex kept; everything else float64 (scikit-image) -- and, with
    cuCIM's rules (xp is CuPy, or input_dtype is a CuPy array), bool and 8- and 16-bit
    integers float32. input_dtype: a dtype, an array (its dtype and library), or a
    tuple of those (NumPy's result type of theirs). Complex raises unless allowed."""
    gpu = cucim_rules(xp, input_dtype)
    if isinstance(input_dtype, (tuple, list)):
        return np.result_type(*(_float_type(d, allow_complex, gpu) for d in input_dtype))
    return _float_type(input_dtype, allow_complex, gpu)


def scalar_result(value, dtype, like):
    """A scalar result (a perimeter, an energy) as the array's library gives it: a
    NumPy scalar of dtype for NumPy data (scikit-image), a 0-d CuPy array of dtype
    for CuPy data (cuCIM). like: the input (or its working array)."""
    if cucim_rules(like):
        return sys.modules["cupy"].asarray(value, dtype=dtype)
    return np.dtype(dtype).type(value)


def dtype_range(dtype, other=None):
    """scikit-image's dtype_range[dtype.type]: (min, max) of the type; floats up to
    float64 (-1, 1), bool (False, True). Other types: other when given, else KeyError."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return False, True
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return info.min, info.max
    if dt.kind == "f" and dt.itemsize <= 8:
        return -1, 1
    if other is not None:
        return other
    raise KeyError(dt.type)


def img_as_float(image, xp):
    """``img_as_float`` of the array's library: unsigned integers become value *
    (1 / max), signed ones max(value * (1 / max), -1), bool 0.0 / 1.0. scikit-image
    (NumPy): in float64, floats (float16 too) returned as they are. cuCIM (CuPy): in
    supported_float_type's type (float32 for bool and 8- and 16-bit integers), float16
    to float32."""
    dt = image.dtype
    gpu = cucim_rules(xp, image)
    if dt.kind == "f":
        return image.astype(np.float32) if gpu and dt == np.float16 else image
    ft = _float_type(dt, False, True) if gpu else np.float64
    if dt.kind == "b":
        return image.astype(ft)
    if dt.kind not in "ui":
        raise ValueError(f"Cannot convert from {dt} to float64.")
    info = np.iinfo(dt)
    out = xp.multiply(image, 1.0 / info.max, dtype=ft)
    if dt.kind == "i":
        xp.maximum(out, -1.0, out=out)
    return out


def convert_to_float(image, preserve_range, xp):
    """``convert_to_float`` of the array's library: float16 -> float32; with
    preserve_range non-floats become their supported_float_type (scikit-image:
    float64), else ``img_as_float``."""
    if image.dtype == np.float16:
        return image.astype(np.float32)
    if preserve_range:
        if image.dtype.char not in "df":
            image = image.astype(supported_float_type(image, xp=xp))
        return image
    return img_as_float(image, xp)


def as_float_image(image, xp):
    """The conversion at the top of the edge filters: floats go to their supported
    float type (no rescaling), everything else through ``img_as_float``."""
    if image.dtype.kind == "f":
        return image.astype(supported_float_type(image, xp=xp), copy=False)
    return img_as_float(image, xp)


def check_nD(array, ndim, arg_name="image"):
    """scikit-image's ``check_nD``: ValueError for an empty array or a wrong ndim."""
    if isinstance(ndim, int):
        ndim = [ndim]
    if array.size == 0:
        raise ValueError(f"The parameter `{arg_name}` cannot be an empty array")
    if array.ndim not in ndim:
        raise ValueError(
            f"The parameter `{arg_name}` must be a {'-or-'.join(str(n) for n in ndim)}-dimensional array"
        )


def slice_at_axis(sl, axis):
    """Index selecting sl along axis (non-negative) and everything elsewhere."""
    return (slice(None),) * axis + (sl,) + (Ellipsis,)


def safe_as_int(val, atol=1e-3):
    """skimage's _shared.utils.safe_as_int: val (scalar or array) rounded to int64
    when every value is within atol of an integer, else ValueError."""
    mod = np.asarray(val) % 1
    if mod.ndim == 0:
        if mod > 0.5:
            mod = 1 - mod
    else:
        mod[mod > 0.5] = 1 - mod[mod > 0.5]
    if not np.allclose(mod, 0, atol=atol):
        raise ValueError(f"Integer argument required but received {val}, check inputs.")
    return np.round(val).astype(np.int64)


def regular_grid(ar_shape, n_points):
    """skimage.util.regular_grid: slices picking about n_points points spaced as
    evenly as the shape allows (axes too short for the step get a step of their
    full extent and the rest is spread over the others)."""
    shape = np.asanyarray(ar_shape)
    ndim = len(shape)
    space_size = float(np.prod(shape))
    if space_size <= n_points:
        return (slice(None),) * ndim
    order = np.argsort(np.argsort(shape))
    dims = np.sort(shape)
    step = np.full(ndim, (space_size / n_points) ** (1.0 / ndim), dtype="float64")
    if (dims < step).any():
        for dim in range(ndim):
            step[dim] = dims[dim]
            rest = float(np.prod(dims[dim + 1 :]))
            step[dim + 1 :] = (rest / n_points) ** (1.0 / (ndim - dim - 1))
            if (dims >= step).all():
                break
    starts = (step // 2).astype(int)
    step = np.round(step).astype(int)
    slices = [slice(int(a), None, int(b)) for a, b in zip(starts, step)]
    return tuple(slices[i] for i in order)
