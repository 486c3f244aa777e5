"""Plumbing shared by the fovea.skimage modules.

- Which array library an input belongs to: NumPy for data in host memory, CuPy
  for data on a GPU. torch tensors and ``fovea.Array`` are viewed (no copy) as
  one of the two and the results are handed back as the input's type.
  Nothing is moved between host and device.
- scikit-image's float conventions: ``supported_float_type`` (float16 -> float32,
  float32/float64 kept, everything else -> float64) and ``img_as_float`` (integers
  scaled to [0, 1] or [-1, 1], floats untouched), computed as scikit-image does so
  the results agree bit for bit on the host.
- Small argument checks with scikit-image's messages and exception types.

The heavy work (every filter) goes through fovea.ndimage, which runs in C on
the CPU thread pool or in CUDA kernels, chosen by where the data lives.
"""

import sys

import numpy as np

from .._arrays import _cupy, _kind
from .._fovea import DeviceError

__all__ = [
    "prepare",
    "like_input",
    "supported_float_type",
    "img_as_float",
    "convert_to_float",
    "as_float_image",
    "check_nD",
    "slice_at_axis",
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


def _identity(x):
    return x


def _wrap_each(fn):
    """fn applied to an array result, or to each array of a tuple/list result."""

    def wrap(res):
        if isinstance(res, (tuple, list)):
            return type(res)(wrap(r) for r in res)
        if res is None or isinstance(res, (int, float, complex, np.generic)):
            return res
        return fn(res)

    return wrap


def _torch_back(res):
    torch = sys.modules["torch"]
    if isinstance(res, np.ndarray):
        if any(s < 0 for s in res.strides):
            res = np.ascontiguousarray(res)
        return torch.from_numpy(res)
    return torch.from_dlpack(res)


def _fovea_back(res):
    from .. import _fovea

    return _fovea.asarray(res, None)


def _need_cupy():
    cp = _cupy()
    if cp is None:
        raise ImportError(
            "fovea.skimage: this input lives on a GPU; CuPy is needed to work on it (pip install cupy-cuda13x)"
        )
    return cp


def prepare(image):
    """(array, xp, back): image as a NumPy or CuPy array (a view, never a copy
    between devices), the module to do elementwise math with, and the function
    that turns results back into image's array type."""
    kind = _kind(image)
    if kind == "numpy":
        return np.asarray(image), np, _identity
    if kind == "cupy":
        return image, sys.modules["cupy"], _identity
    if kind == "torch":
        t = image.detach()
        if t.device.type == "cpu":
            return t.numpy(), np, _wrap_each(_torch_back)
        cp = _need_cupy()
        return cp.from_dlpack(t), cp, _wrap_each(_torch_back)
    if kind == "fovea":
        if image.device == "cpu":
            return np.asarray(image), np, _wrap_each(_fovea_back)
        cp = _need_cupy()
        return cp.from_dlpack(image), cp, _wrap_each(_fovea_back)
    # lists, scalars, anything with the array interface: NumPy in, NumPy out
    return np.asarray(image), np, _identity


def like_input(x, xp, name):
    """x (a mask, an out array) as an array of xp without moving it between host
    and device: DeviceError when x lives elsewhere. None stays None."""
    if x is None:
        return None
    kind = _kind(x)
    if kind == "torch":
        t = x.detach()
        on_gpu = t.device.type != "cpu"
        arr = _need_cupy().from_dlpack(t) if on_gpu else t.numpy()
    elif kind == "cupy":
        on_gpu, arr = True, x
    elif kind == "fovea":
        on_gpu = x.device != "cpu"
        arr = _need_cupy().from_dlpack(x) if on_gpu else np.asarray(x)
    else:
        on_gpu, arr = False, x if kind == "numpy" else np.asarray(x)
    if on_gpu != (xp is not np):
        where = "a GPU" if on_gpu else "host memory"
        other = "host memory" if on_gpu else "a GPU"
        raise DeviceError(
            f"fovea.skimage: `{name}` lives in {where} but the image in {other}; "
            "move one of them first (fovea.to_device)"
        )
    return arr


def host(x):
    """A small parameter array (footprint, kernel) as a NumPy array; device arrays
    are copied to the host, which is fine for parameters (never for images)."""
    if _kind(x) == "cupy":
        return x.get()
    if _kind(x) == "torch":
        return x.detach().cpu().numpy()
    return np.asarray(x)


def supported_float_type(input_dtype, allow_complex=False):
    """scikit-image's ``_supported_float_type``: float16 -> float32; float32, float64
    and complex kept; everything else float64. Complex raises unless allowed."""
    if isinstance(input_dtype, tuple):
        return np.result_type(*(supported_float_type(d) for d in input_dtype))
    input_dtype = np.dtype(input_dtype)
    if not allow_complex and input_dtype.kind == "c":
        raise ValueError("complex valued input is not supported")
    return _FLOAT_FOR_CHAR.get(input_dtype.char, np.float64)


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
