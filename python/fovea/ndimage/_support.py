"""Argument handling and array plumbing shared by fovea.ndimage.

The normalisation helpers behave as scipy.ndimage._ni_support's (same checks,
same exception types and messages), so code written against scipy fails the same
way here.

Arrays: every public function makes a :class:`Call` for its input. The call
holds a *working* view of the input without copying: a NumPy array for host
data, a CuPy array for device data when CuPy imports (a ``fovea.Array``
otherwise). The compositions (sums of squares, differences, logical ops) run on
the working arrays with NumPy or CuPy, mirroring scipy's own NumPy calls, and
the heavy work runs in the C library on the working arrays in place. At the end
:meth:`Call.result` hands back the caller's array type (NumPy, CuPy, torch,
fovea.Array) or, when the caller passed ``output=``, that very object.
"""

import functools
import numbers
import operator
import os
import sys
import threading
import warnings
from collections.abc import Iterable

import numpy as np

from .. import _fovea
from .._arrays import _cupy, _kind, _wrap
from .._fovea import Array

_PLAIN_GET = os.environ.get("FOVEA_PLAIN_GET") == "1"

try:  # NumPy >= 2
    from numpy.lib.array_utils import normalize_axis_index
except ImportError:  # pragma: no cover - NumPy 1.x
    from numpy.core.multiarray import normalize_axis_index

__all__ = [
    "Call",
    "public",
    "mode_code",
    "normalize_sequence",
    "check_axes",
    "expand_origin",
    "expand_footprint",
    "expand_mode",
    "host",
    "is_array",
    "normalize_axis_index",
]

# fv_mode values (include/fovea/filters.h). For filters scipy treats the grid-*
# names as synonyms of reflect, constant and wrap.
MODE_REFLECT, MODE_CONSTANT, MODE_NEAREST, MODE_MIRROR, MODE_WRAP = range(5)
_MODES = {
    "reflect": MODE_REFLECT,
    "grid-mirror": MODE_REFLECT,
    "constant": MODE_CONSTANT,
    "grid-constant": MODE_CONSTANT,
    "nearest": MODE_NEAREST,
    "mirror": MODE_MIRROR,
    "wrap": MODE_WRAP,
    "grid-wrap": MODE_WRAP,
}

# dtypes the C library computes on (scipy's C code takes these too, plus float16
# and complex, which it refuses or handles per function).
_DTYPES = frozenset(
    np.dtype(d)
    for d in ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float32",
              "float64")
)


def mode_code(mode):
    """The fv_mode value of a scipy mode name; RuntimeError as scipy for anything else."""
    if isinstance(mode, str) and mode in _MODES:
        return _MODES[mode]
    raise RuntimeError("boundary mode not supported")


def normalize_sequence(value, rank):
    """value repeated rank times, or value as a list when it is a sequence of length rank."""
    if not isinstance(value, str) and np.iterable(value):
        out = list(value)
        if len(out) != rank:
            raise RuntimeError("sequence argument must have length equal to input rank")
        return out
    return [value] * rank


def check_axes(axes, ndim):
    """axes as a tuple of distinct non-negative ints (None: all of them)."""
    if axes is None:
        return tuple(range(ndim))
    if np.isscalar(axes):
        # as scipy: a scalar axis is neither range-checked nor made non-negative here
        axes = (operator.index(axes),)
    elif isinstance(axes, Iterable):
        axes = tuple(axes)
        out = []
        for ax in axes:
            ax = operator.index(ax)
            if ax < -ndim or ax > ndim - 1:
                raise ValueError(f"specified axis: {ax} is out of range")
            out.append(ax % ndim if ax < 0 else ax)
        axes = tuple(out)
    else:
        raise ValueError("axes must be an integer, iterable of integers, or None")
    if len(set(axes)) != len(axes):
        raise ValueError("axes must be unique")
    return axes


def expand_origin(ndim, axes, origin):
    """Per-axis origins for all ndim axes (0 on the axes not filtered)."""
    origins = normalize_sequence(origin, len(axes))
    if len(axes) < ndim:
        full = [0] * ndim
        for o, ax in zip(origins, axes):
            full[ax] = o
        origins = full
    return origins


def expand_footprint(ndim, axes, footprint, name="footprint"):
    """A footprint over len(axes) axes with size-1 axes inserted for the others."""
    if len(axes) < ndim:
        if footprint.ndim != len(axes):
            raise RuntimeError(f"{name}.ndim ({footprint.ndim}) must match len(axes) ({len(axes)})")
        footprint = np.expand_dims(footprint, tuple(ax for ax in range(ndim) if ax not in axes))
    return footprint


def expand_mode(ndim, axes, mode):
    """A sequence of modes for len(axes) axes widened to ndim ('constant' elsewhere)."""
    if not isinstance(mode, str) and isinstance(mode, Iterable):
        modes = normalize_sequence(mode, len(axes))
        full = ["constant"] * ndim
        for m, ax in zip(modes, axes):
            full[ax] = m
        mode = full
    return mode


def invalid_origin(origin, size):
    return origin < -(size // 2) or origin > (size - 1) // 2


def _is_dtype_like(obj):
    if obj is None or isinstance(obj, (str, type, np.dtype)):
        return True
    return type(obj).__module__ == "torch" and type(obj).__name__ == "dtype"


def is_array(obj):
    """True for an array-like passed as ``output=`` (scipy: ``isinstance(output, np.ndarray)``)."""
    return not _is_dtype_like(obj) and _kind(obj) not in ("scalar", "list", "other")


_SMALL_GET = 1 << 16   # bytes: CuPy parameter arrays up to this size take _cupy_get_small
_pinned = threading.local()   # per thread: {device id: (pinned buffer, its size)}


def _cupy_get_small(a):
    """A small CuPy array on the host by one asynchronous copy into a pinned buffer
    (kept per thread and device) on the current stream, and a wait on that stream:
    the same order as ndarray.get(), without its pageable staging (a call's weights
    are read this way before every kernel launch). FOVEA_PLAIN_GET=1: ndarray.get()."""
    n = a.nbytes
    if _PLAIN_GET or n == 0 or n > _SMALL_GET or not a.flags.c_contiguous:
        return a.get()
    cp = sys.modules["cupy"]
    dev = a.device.id
    bufs = getattr(_pinned, "bufs", None)
    if bufs is None:
        bufs = _pinned.bufs = {}
    buf = bufs.get(dev)
    with cp.cuda.Device(dev):
        if buf is None:
            buf = bufs[dev] = cp.cuda.alloc_pinned_memory(_SMALL_GET)
        stream = cp.cuda.get_current_stream()
        cp.cuda.runtime.memcpyAsync(buf.ptr, a.data.ptr, n, cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
        stream.synchronize()
    return np.frombuffer(buf, dtype=a.dtype, count=a.size).reshape(a.shape).copy()


def host(obj, dtype=None):
    """A small parameter array (weights, footprint, structure, sampling) as NumPy:
    CuPy, torch and device fovea arrays are copied to the host (they are tiny)."""
    k = _kind(obj)
    if k == "cupy":
        obj = _cupy_get_small(obj)
    elif k == "torch":
        obj = obj.detach().cpu().numpy()
    elif k == "fovea":
        obj = np.asarray(_fovea.to_device(obj, "cpu"))
    elif k == "dlpack" and not hasattr(obj, "__array__"):
        obj = np.asarray(_fovea.to_device(obj, "cpu"))
    return np.asarray(obj) if dtype is None else np.asarray(obj, dtype=dtype)


def _device_id(dev):
    return int(dev.partition(":")[2] or 0)


def _torch_cuda_device(x):
    mod = type(x).__module__
    if not mod.startswith("torch"):
        return None
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(x, torch.Tensor) or not x.is_cuda:
        return None
    return x.device


def public(fn):
    """Decorator of the public functions: CuPy work for a torch CUDA input runs on
    torch's current stream (and device), so it is ordered with the C kernels,
    which run there too."""

    @functools.wraps(fn)
    def run(*args, **kw):
        x = args[0] if args else kw.get("input", kw.get("structure"))
        dev = _torch_cuda_device(x)
        if dev is None:
            return fn(*args, **kw)
        cp = _cupy()
        if cp is None:
            return fn(*args, **kw)
        torch = sys.modules["torch"]
        with cp.cuda.Device(dev.index or 0):
            with _external_stream(cp, torch.cuda.current_stream(dev).cuda_stream):
                return fn(*args, **kw)

    return run


class _StreamRef:
    """A cudaStream_t by the CUDA stream protocol (for CuPy's Stream.from_external)."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __cuda_stream__(self):
        return (0, self.ptr)


def _external_stream(cp, ptr):
    """A CuPy stream object over the cudaStream_t ptr, usable as a context manager."""
    from_external = getattr(cp.cuda.Stream, "from_external", None)
    if from_external is not None:  # CuPy >= 14
        try:
            return from_external(_StreamRef(ptr))
        except Exception:  # an older protocol handshake: fall back to ExternalStream
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return cp.cuda.ExternalStream(ptr)


class Call:
    """One public call: the working view of its input and how results go back."""

    __slots__ = ("name", "kind", "like", "input", "device", "xp", "stream", "_users")

    def __init__(self, name, x):
        self.name = name
        k = _kind(x)
        self.kind, self.like = k, x
        self._users = {}
        self.xp = np
        self.stream = None
        if k in ("numpy", "cupy"):
            w = x if k == "cupy" or type(x) is np.ndarray else np.asarray(x)
        elif k in ("scalar", "list", "other"):
            w = np.asarray(x)
        else:  # torch, fovea.Array, any other DLPack producer
            w = None
        if w is not None and k != "cupy" and not w.dtype.isnative:
            # byte-swapped (big-endian) data: the kernels read native values, so a native
            # copy is worked on (scipy does the same; its results are native too)
            w = w.astype(w.dtype.newbyteorder("="))
        if w is None or k == "cupy":
            self.device, w = self._view(x, k)
        else:
            self.device = "cpu"
        self.input = w

    # -- arrays -------------------------------------------------------------------------

    def _view(self, x, k):
        """(device, working view) of an array-like that is not NumPy."""
        if k == "cupy":
            dev = "cuda:%d" % x.device.id
            cp = sys.modules["cupy"]
            self.xp = cp
            self.stream = cp.cuda.get_current_stream().ptr
            return dev, x
        if k == "torch" and x.is_cuda:
            torch = sys.modules["torch"]
            self.stream = torch.cuda.current_stream(x.device).cuda_stream
        a = x if isinstance(x, Array) else _fovea.asarray(x, self.stream)
        dev = a.device
        if dev == "cpu":
            return dev, np.asarray(a)
        cp = _cupy()
        if cp is None:
            self.xp = None
            return dev, a
        self.xp = cp
        with cp.cuda.Device(_device_id(dev)):
            self.stream = cp.cuda.get_current_stream().ptr
            return dev, cp.asarray(a)

    def view(self, obj, what):
        """A working view of another image-sized array (output, mask) on the input's device."""
        k = _kind(obj)
        if self.device == "cpu":
            if k == "numpy":
                return obj
            if k in ("scalar", "list", "other"):
                return np.asarray(obj)
            a = obj if isinstance(obj, Array) else _fovea.asarray(obj, self.stream)
            if a.device != "cpu":
                raise _fovea.DeviceError(
                    f"{self.name}: {what} is on {a.device} but the input is in host memory; move one "
                    "with fovea.to_device")
            return np.asarray(a)
        if k in ("scalar", "list", "other", "numpy"):
            raise _fovea.DeviceError(
                f"{self.name}: {what} is in host memory but the input is on {self.device}; move one "
                "with fovea.to_device")
        if k == "cupy":
            dev = "cuda:%d" % obj.device.id
            a = obj
        else:
            a = obj if isinstance(obj, Array) else _fovea.asarray(obj, self.stream)
            dev = a.device
            if dev != "cpu" and self.xp is not None:
                with self.xp.cuda.Device(_device_id(dev)):
                    a = self.xp.asarray(a)
        if dev != self.device:
            raise _fovea.DeviceError(
                f"{self.name}: {what} is on {dev} but the input is on {self.device}; move one with "
                "fovea.to_device")
        return a

    def empty(self, shape, dtype):
        dtype = np.dtype(dtype)
        if self.device == "cpu":
            return np.empty(shape, dtype)
        if self.xp is None:
            return _fovea.empty(tuple(shape), dtype.name, self.device, self.stream)
        with self.xp.cuda.Device(_device_id(self.device)):
            return self.xp.empty(shape, dtype)

    def zeros(self, shape, dtype):
        if self.device == "cpu":
            return np.zeros(shape, dtype)
        return self.need_xp().zeros(shape, dtype)

    def get_output(self, output, input, shape=None, complex_output=False):
        """scipy's _get_output: None -> a new array of input's dtype; a dtype (type,
        np.dtype, name, torch dtype) -> a new array of it; an array -> that array,
        written in place (its shape must be right)."""
        if shape is None:
            shape = input.shape
        if output is None:
            dtype = np.dtype(input.dtype)
            if complex_output:
                dtype = np.promote_types(dtype, np.complex64)
            return self.empty(shape, dtype)
        if isinstance(output, (type, np.dtype)):
            dtype = np.dtype(output)
            if complex_output and dtype.kind != "c":
                warnings.warn("promoting specified output dtype to complex", stacklevel=4)
                dtype = np.promote_types(dtype, np.complex64)
            return self.empty(shape, dtype)
        if isinstance(output, str):
            dtype = np.dtype(output)
            if complex_output and dtype.kind != "c":
                raise RuntimeError("output must have complex dtype")
            if not issubclass(dtype.type, np.number):
                raise RuntimeError("output must have numeric dtype")
            return self.empty(shape, dtype)
        if _is_dtype_like(output):  # a torch dtype
            return self.empty(shape, np.dtype(str(output).rpartition(".")[2]))
        out = self.view(output, "output")
        if tuple(out.shape) != tuple(shape):
            raise RuntimeError("output shape not correct")
        if complex_output and np.dtype(out.dtype).kind != "c":
            raise RuntimeError("output must have complex dtype")
        self._users[id(out)] = (out, output)   # the view stays alive, so its id stays unique
        return out

    def pass_output(self, output):
        """output for a nested public call: an array becomes its working view (so that
        result() can map it back to the caller's object); None and dtypes pass as they are."""
        if not is_array(output):
            return output
        out = self.view(output, "output")
        self._users[id(out)] = (out, output)   # the view stays alive, so its id stays unique
        return out

    def need_xp(self):
        """NumPy or CuPy for the elementwise steps; a clear error on a GPU without CuPy."""
        if self.xp is None:
            raise ImportError(
                f"fovea.ndimage.{self.name}: this function does elementwise steps with CuPy on GPU "
                f"arrays ({self.device}) and CuPy is not installed (pip install cupy-cuda13x); the "
                "single-pass filters work without it")
        return self.xp

    def assign(self, dst, src):
        """dst[...] = src (NumPy's unsafe cast), on the data's device."""
        if self.xp is not None:
            dst[...] = src
        else:
            _fovea.ndi_assign(src, dst, self.stream)

    # -- running the C library -------------------------------------------------------------

    def run(self, fn, input, output, *args, **kw):
        """fn(input, output, *args) in C on this call's stream, after the dtype check
        scipy's C code makes (RuntimeError for dtypes it cannot process)."""
        for a in (input, output):
            if a is not None:
                dt = np.dtype(a.dtype)
                if dt not in _DTYPES:
                    raise RuntimeError(f"array type {dt!r} not supported")
        return fn(input, output, *args, stream=self.stream, **kw)

    def run_in(self, fn, input, *args):
        """fn(input, *args) in C on this call's stream (outputs among args, checked by C)."""
        dt = np.dtype(input.dtype)
        if dt not in _DTYPES:
            raise RuntimeError(f"array type {dt!r} not supported")
        return fn(input, *args, stream=self.stream)

    def as_binary(self, x):
        """x, or x != 0 where the C library does not read x's dtype (complex, float16)."""
        if np.dtype(x.dtype) in _DTYPES:
            return x
        return self.need_xp().not_equal(x, 0)

    def result(self, arr):
        """arr (a working array of this call) as the caller's array type; the caller's
        own object when arr is the view of what they passed as output."""
        if arr is None:
            return None
        user = self._users.get(id(arr))
        if user is not None:
            return user[1]
        k = self.kind
        if k in ("numpy", "scalar", "list", "other"):
            if self.device == "cpu" or k == "other":
                return arr
        if k == "cupy" and _kind(arr) == "cupy":
            return arr
        if k == "fovea":
            return _fovea.asarray(arr, self.stream)
        return _wrap(_fovea.asarray(arr, self.stream), self.like, k)


def check_real(x):
    if np.dtype(x.dtype).kind == "c":
        raise TypeError("Complex type not supported")


def is_integral(v):
    return isinstance(v, numbers.Integral)
