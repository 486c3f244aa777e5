"""Array-type plumbing for the Python API: "the same array type out".

Every function here hands its inputs to the C extension (which views them
without copying) and converts the ``fovea.Array`` it gets back into the type of
the first array-like input:

=====================  ==============================================
first array-like in    result
=====================  ==============================================
numpy.ndarray          numpy.ndarray (``np.asarray``, zero copy)
cupy.ndarray           cupy.ndarray (``__cuda_array_interface__``)
torch.Tensor           torch.Tensor (``torch.from_dlpack``)
fovea.Array            fovea.Array
other ``__dlpack__``   its top-level module's ``from_dlpack`` if any, else fovea.Array
scalars, lists         numpy.ndarray
=====================  ==============================================

Python scalars mixed with arrays follow NumPy 2's rules (NEP 50): the scalar
takes the array's dtype kind where it fits (``uint8 array + 1`` stays uint8).
CuPy and PyTorch are never imported here unless an input comes from them (or a
result has to be made on a GPU for a NumPy input, when CuPy is installed).
"""

import sys

from . import _fovea
from ._fovea import Array

__all__ = ["asarray", "astype", "add", "multiply", "to_device", "copy"]

_SCALARS = (bool, int, float, complex)


def _np():
    import numpy

    return numpy


def _cupy():
    """CuPy if it can be imported, else None (imported only when a GPU result is needed)."""
    cp = sys.modules.get("cupy")
    if cp is not None:
        return cp
    try:
        import cupy
    except Exception:  # ImportError, or a broken CUDA install
        return None
    return cupy


def _kind(x):
    """Which family an input belongs to: fovea, numpy, cupy, torch, dlpack, scalar, list or other."""
    if isinstance(x, Array):
        return "fovea"
    top = type(x).__module__.partition(".")[0]
    if top == "cupy":
        cp = sys.modules.get("cupy")
        if cp is not None and isinstance(x, cp.ndarray):
            return "cupy"
    elif top == "torch":
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(x, torch.Tensor):
            return "torch"
    if isinstance(x, _SCALARS):
        return "scalar"
    if isinstance(x, (list, tuple)):
        return "list"
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, (np.ndarray, np.generic)):
        return "numpy"
    if hasattr(type(x), "__dlpack__"):
        return "dlpack"
    return "other"


def _stream_of(x, kind):
    """The current CUDA stream of the library x comes from (an int), or None."""
    if kind == "cupy":
        return sys.modules["cupy"].cuda.get_current_stream().ptr
    if kind == "torch" and x.is_cuda:
        return sys.modules["torch"].cuda.current_stream(x.device).cuda_stream
    return None


def _pick_stream(xs, kinds, stream):
    if stream is not None:
        return stream
    for x, k in zip(xs, kinds):
        s = _stream_of(x, k)
        if s is not None:
            return s
    return None


def _like(xs, kinds):
    """The input whose type the result takes: the first that is not a Python scalar."""
    for x, k in zip(xs, kinds):
        if k != "scalar":
            return x, k
    return xs[0], kinds[0]


def _operands(xs, kinds, stream):
    """Objects the C extension can import: lists via NumPy, scalars as 0-d arrays of
    the dtype NumPy 2 would give them, placed on the device of the array operand."""
    out = list(xs)
    np = None
    for i, k in enumerate(kinds):
        if k == "list":
            np = np or _np()
            out[i] = np.asarray(out[i])
    if "scalar" not in kinds:
        return out
    np = np or _np()
    ref = next((i for i, k in enumerate(kinds) if k != "scalar"), None)
    if ref is None:
        return [np.asarray(x) for x in out]
    ref_arr = _fovea.asarray(out[ref], stream)  # imported once, reused below
    out[ref] = ref_arr
    for i, k in enumerate(kinds):
        if k != "scalar":
            continue
        s = np.asarray(out[i], dtype=np.result_type(ref_arr.dtype, out[i]))
        if ref_arr.device != "cpu":
            s = _fovea.to_device(s, ref_arr.device, stream)
        out[i] = s
    return out


def _wrap(res, like, kind):
    """Convert the fovea.Array res to the type of like (see the module docstring)."""
    if kind == "fovea" or kind == "other":
        return res
    on_gpu = res.device != "cpu"
    if kind == "torch":
        return sys.modules["torch"].from_dlpack(res)
    if kind == "cupy" or (on_gpu and kind in ("numpy", "scalar", "list")):
        if not on_gpu:
            return _np().asarray(res)
        cp = sys.modules.get("cupy") if kind == "cupy" else _cupy()
        if cp is None:
            return res
        with cp.cuda.Device(int(res.device.partition(":")[2])):
            return cp.asarray(res)
    if kind in ("numpy", "scalar", "list"):
        return _np().asarray(res)
    # any other DLPack producer: its own from_dlpack when its top-level module has one
    mod = sys.modules.get(type(like).__module__.partition(".")[0])
    from_dlpack = getattr(mod, "from_dlpack", None)
    if from_dlpack is None:
        return res
    try:
        return from_dlpack(res)
    except Exception:
        return res


def _dtype_arg(dtype):
    """Accept torch dtypes too (``torch.float32`` -> ``"float32"``); the C layer takes
    strings, NumPy dtypes and type objects."""
    if type(dtype).__module__ == "torch":
        return str(dtype).rpartition(".")[2]
    return dtype


def asarray(x, stream=None):
    """View x as a fovea.Array without copying (lists and scalars go through NumPy)."""
    k = _kind(x)
    if k in ("scalar", "list"):
        x = _np().asarray(x)
    return _fovea.asarray(x, stream)


def astype(x, dtype, stream=None):
    """x converted to dtype, as ``x.astype(dtype)`` in NumPy; the result has x's array type.

    Casts follow NumPy (integers wrap, float -> int truncates toward zero) except where
    NumPy's result is platform-defined: float -> int saturates at the target's limits
    and NaN becomes 0. dtype: a NumPy dtype, a type object (``np.float32``, ``float``)
    or a name (``"uint8"``).
    """
    kinds = [_kind(x)]
    stream = _pick_stream([x], kinds, stream)
    (xo,) = _operands([x], kinds, stream)
    return _wrap(_fovea.astype(xo, _dtype_arg(dtype), stream), x, kinds[0])


def _binop(fn, a, b, dtype, stream):
    xs = [a, b]
    kinds = [_kind(a), _kind(b)]
    stream = _pick_stream(xs, kinds, stream)
    like, like_kind = _like(xs, kinds)
    ao, bo = _operands(xs, kinds, stream)
    res = fn(ao, bo, dtype=None if dtype is None else _dtype_arg(dtype), stream=stream)
    return _wrap(res, like, like_kind)


def add(a, b, dtype=None, stream=None):
    """a + b with NumPy broadcasting; result dtype ``numpy.result_type(a, b)`` unless given."""
    return _binop(_fovea.add, a, b, dtype, stream)


def multiply(a, b, dtype=None, stream=None):
    """a * b with NumPy broadcasting; result dtype ``numpy.result_type(a, b)`` unless given."""
    return _binop(_fovea.multiply, a, b, dtype, stream)


def _device_of(x, kind):
    if kind == "numpy":
        return "cpu"
    if kind == "cupy":
        return "cuda:%d" % x.device.id
    if kind == "torch":
        return "cpu" if x.device.type == "cpu" else "cuda:%d" % (x.device.index or 0)
    if kind == "fovea":
        return x.device
    return None


def _same_place(have, want):
    if have is None:
        return False
    if want == "cuda":
        return have.startswith("cuda")
    return have == want


def to_device(x, device, stream=None):
    """x on device ("cpu", "cuda" or "cuda:N").

    NumPy -> "cuda" gives a CuPy array when CuPy is installed (a fovea.Array
    otherwise); CuPy -> "cpu" gives NumPy; PyTorch tensors stay PyTorch tensors;
    fovea.Array stays fovea.Array. Returns x itself when it is already there.
    Raises fovea.DeviceError (saying why) when CUDA is unavailable.
    """
    k = _kind(x)
    if k in ("scalar", "list"):
        x, k = _np().asarray(x), "numpy"
    if isinstance(device, str) and device == "gpu":
        device = "cuda"
    if _same_place(_device_of(x, k), device):
        return x
    if stream is None:
        stream = _stream_of(x, k)
        if stream is None and device != "cpu" and _fovea.gpu_available():
            # host -> device: copy on the current stream of the library the result goes to
            if k == "torch":
                torch = sys.modules["torch"]
                stream = torch.cuda.current_stream(torch.device(device)).cuda_stream
            elif k in ("numpy", "dlpack", "other"):
                cp = _cupy()
                if cp is not None:
                    stream = cp.cuda.get_current_stream().ptr
    res = _fovea.to_device(x, device, stream)
    if k == "torch":
        return sys.modules["torch"].from_dlpack(res)
    if k == "fovea":
        return res
    if res.device == "cpu":
        return _np().asarray(res)
    if k in ("numpy", "cupy"):
        return _wrap(res, x, "cupy" if _cupy() is not None else "fovea")
    return _wrap(res, x, k)


def copy(x, device=None, stream=None):
    """A C-contiguous copy of x (on device, default x's own), as x's array type."""
    k = _kind(x)
    if k in ("scalar", "list"):
        x, k = _np().asarray(x), "numpy"
    if stream is None:
        stream = _stream_of(x, k)
    res = _fovea.copy(x, device, stream)
    if res.device == "cpu" and k in ("cupy",):
        return _np().asarray(res)
    if res.device != "cpu" and k == "numpy":
        return _wrap(res, x, "cupy" if _cupy() is not None else "fovea")
    return _wrap(res, x, k)
