"""Conventions shared by the fovea.skimage modules (the array rules -- which
library an input belongs to, devices, result types -- are fovea._interop's):

- scikit-image's float conventions: ``supported_float_type`` (float16 -> float32,
  float32/float64 kept, everything else -> float64) and ``img_as_float`` (integers
  scaled to [0, 1] or [-1, 1], floats untouched), computed as scikit-image does so
  the results agree bit for bit on the host.
- Small argument checks with scikit-image's messages and exception types.

The heavy work (every filter) goes through fovea.ndimage, which runs in C on
the CPU thread pool or in CUDA kernels, chosen by where the data lives.
"""

import numpy as np

__all__ = [
    "supported_float_type",
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


def supported_float_type(input_dtype, allow_complex=False):
    """scikit-image's ``_supported_float_type``: float16 -> float32; float32, float64
    and complex kept; everything else float64. Complex raises unless allowed."""
    if isinstance(input_dtype, tuple):
        return np.result_type(*(supported_float_type(d) for d in input_dtype))
    input_dtype = np.dtype(input_dtype)
    if not allow_complex and input_dtype.kind == "c":
        raise ValueError("complex valued input is not supported")
    return _FLOAT_FOR_CHAR.get(input_dtype.char, np.float64)


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
    """scikit-image's ``img_as_float``: floats (float16 too) are returned as they
    are; unsigned integers become value * (1 / max), signed ones
    max(value * (1 / max), -1), in float64; bool becomes 0.0 / 1.0."""
    dt = image.dtype
    if dt.kind == "f":
        return image
    if dt.kind == "b":
        return image.astype(np.float64)
    if dt.kind not in "ui":
        raise ValueError(f"Cannot convert from {dt} to float64.")
    info = np.iinfo(dt)
    out = xp.multiply(image, 1.0 / info.max, dtype=np.float64)
    if dt.kind == "i":
        xp.maximum(out, -1.0, out=out)
    return out


def convert_to_float(image, preserve_range, xp):
    """scikit-image's ``convert_to_float``: float16 -> float32; with preserve_range
    non-floats become float64, else ``img_as_float``."""
    if image.dtype == np.float16:
        return image.astype(np.float32)
    if preserve_range:
        if image.dtype.char not in "df":
            image = image.astype(np.float64)
        return image
    return img_as_float(image, xp)


def as_float_image(image, xp):
    """The conversion at the top of the edge filters: floats go to their supported
    float type (no rescaling), everything else through ``img_as_float``."""
    if image.dtype.kind == "f":
        return image.astype(supported_float_type(image.dtype), copy=False)
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
