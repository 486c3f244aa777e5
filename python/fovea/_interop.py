"""The Python array rules of fovea, in one place: "the same array type out".

Every public function (``fovea.add``, ``fovea.ndimage.*``, ``fovea.skimage.*``)
decides here what kind of array came in, where it lives, which CUDA stream the
work runs on, what an ``out=``/``output=`` array may be and what goes out. The
C extension views inputs without copying; results come back as the type of the
first array-like input:

=========================================  ============  ==========================
first array-like in                        worked on as  result
=========================================  ============  ==========================
numpy.ndarray (subclasses: the base class)  NumPy         numpy.ndarray
cupy.ndarray                               CuPy          cupy.ndarray
torch.Tensor (CPU, CUDA; detached)         NumPy / CuPy  torch.Tensor (same device)
fovea.Array                                NumPy / CuPy  fovea.Array
other ``__dlpack__`` producer              NumPy / CuPy  its top-level module's
                                                         ``from_dlpack`` if any,
                                                         else fovea.Array
``__cuda_array_interface__`` only          CuPy          cupy.ndarray (as cuCIM);
                                                         fovea.Array without CuPy
other host array-likes (buffer protocol,   NumPy         numpy.ndarray (as
``__array_interface__``, ``__array__``)                  scikit-image)
Python scalars, lists, tuples              NumPy         numpy.ndarray
=========================================  ============  ==========================

Rules shared by every function:

- Nothing moves between host and device unless ``to_device``/``copy`` is asked
  to: a second array (mask, markers, ``out=``) on another device than the
  first one is a ``fovea.DeviceError`` naming both devices.
- Streams: an explicit ``stream=`` wins; else the current stream of the library
  the first GPU input comes from (CuPy's current stream, or torch's current
  stream of the tensor's device). In fovea.ndimage and fovea.skimage a torch
  input's CuPy element-wise steps and C kernels run on torch's current stream
  too (:func:`public`, one rule for both).
- Python scalars mixed with arrays follow NumPy 2's rules (NEP 50): the scalar
  takes the array's dtype kind where it fits (``uint8 array + 1`` stays uint8).
- Byte-swapped (non-native) NumPy data is worked on as a native copy (as scipy).
- Output arrays: on the input's device, writeable (``ValueError`` "...: output
  is read-only" otherwise), of the shape the function documents.
- GPU data needs CuPy for element-wise steps: ``ImportError`` naming the
  function and the package when it is missing (the C-only paths work without).
- CuPy and PyTorch are never imported here unless an input comes from them (or
  a result has to be made on a GPU for a host input, when CuPy is installed);
  NumPy is imported on first use.
"""

import contextlib
import functools
import sys
import threading
import types
import warnings

from . import _fovea
from ._fovea import Array

__all__ = ["asarray", "astype", "add", "multiply", "to_device", "copy"]

_SCALARS = (bool, int, float, complex)
_HOST_KINDS = ("numpy", "scalar", "list", "other")

# dtypes the C kernels compute on
KERNEL_DTYPES = frozenset(
    "bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 float32 float64".split())


def _np():
    import numpy

    return numpy


# ---- what came in -------------------------------------------------------------------------


def cupy():
    """CuPy if it can be imported, else None (imported only when a GPU result is needed)."""
    cp = sys.modules.get("cupy")
    if cp is not None:
        return cp
    try:
        import cupy
    except Exception:  # ImportError, or a broken CUDA install
        return None
    return cupy


def need_cupy(what, device="a GPU"):
    """CuPy, or ImportError saying that `what` needs it for data on device."""
    cp = cupy()
    if cp is None:
        raise ImportError(
            f"{what}: the element-wise steps on GPU data ({device}) run in CuPy, which is not "
            "installed (pip install cupy-cuda13x)")
    return cp


_NDARRAY = None   # numpy.ndarray once kind() has seen NumPy (kind does not import it)


def kind(x):
    """The family of x: fovea, numpy, cupy, torch, dlpack (another DLPack producer),
    cuda (``__cuda_array_interface__`` only), scalar, list (lists and tuples) or other."""
    global _NDARRAY
    if type(x) is _NDARRAY:   # the common case first (set below once NumPy is seen)
        return "numpy"
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
        _NDARRAY = np.ndarray
        return "numpy"
    if hasattr(type(x), "__dlpack__"):
        return "dlpack"
    if hasattr(x, "__cuda_array_interface__"):
        return "cuda"
    return "other"


def ndim_of(x):
    """The number of dimensions of any input (without copying or importing CuPy/torch)."""
    n = getattr(x, "ndim", None)
    if isinstance(n, int):
        return n
    k = kind(x)
    if k in ("dlpack", "cuda", "other") and not hasattr(x, "__array__"):
        return _fovea.asarray(x).ndim
    return _np().ndim(x)


def _is_dtype_like(obj):
    np = _np()
    if obj is None or isinstance(obj, (str, type, np.dtype)):
        return True
    return type(obj).__module__ == "torch" and type(obj).__name__ == "dtype"


def is_dask(obj):
    """Whether obj is a dask array (functions that take them route to fovea.dask)."""
    return type(obj).__module__.startswith("dask.array")


def is_array(obj):
    """True for an array passed as ``output=`` (not None, not a dtype, not a scalar or list)."""
    return not _is_dtype_like(obj) and kind(obj) not in ("scalar", "list")


def dtype_arg(dtype):
    """Accept torch dtypes too (``torch.float32`` -> ``"float32"``); the C layer takes
    strings, NumPy dtypes and type objects."""
    if type(dtype).__module__ == "torch":
        return str(dtype).rpartition(".")[2]
    return dtype


def device_of(x, k=None):
    """"cpu" or "cuda:N" for an input of a known family (None: unknown without importing it)."""
    k = k or kind(x)
    if k in ("numpy", "scalar", "list"):
        return "cpu"
    if k == "cupy":
        return "cuda:%d" % x.device.id
    if k == "torch":
        return "cpu" if x.device.type == "cpu" else "cuda:%d" % (x.device.index or 0)
    if k == "fovea":
        return x.device
    return None


def _device_id(dev):
    return int(dev.partition(":")[2] or 0)


def _where(dev):
    return "in host memory" if dev == "cpu" else "on " + dev


def device_error(fn, what, have, want):
    """The DeviceError for an argument `what` of fn on device have when the input is on want."""
    return _fovea.DeviceError(
        f"{fn}: {what} is {_where(have)} but the input is {_where(want)}; move one of them with "
        "fovea.to_device")


# ---- internal switches ----------------------------------------------------------------------

# Python-level choices between two ways of doing the same work, for tests and timing
# comparisons: per thread, like _fovea._force_variant for the kernels' variants, and never
# read from the environment (docs/configuration.md). "ridge_arrays": the ridge filters
# (frangi, sato, meijering, hessian) compute their eigenvalue maths as NumPy / CuPy array
# operations instead of the C op; "plain_get": small CuPy parameter arrays are read back
# with ndarray.get() instead of the pinned-buffer copy; "skimage_dtypes": fovea.skimage's
# results for CuPy data follow scikit-image's dtype rules instead of cuCIM's (the tests and
# the conformance job that check the CUDA paths against scikit-image's own results).
SWITCHES = ("ridge_arrays", "plain_get", "skimage_dtypes")
_switches = threading.local()


def switch(name):
    """Whether this thread has the internal switch name on."""
    return getattr(_switches, name, False)


@contextlib.contextmanager
def switched(name, on=True):
    """Turns the internal switch name on (or off) for this thread inside the block."""
    if name not in SWITCHES:
        raise ValueError(f"no internal switch {name!r}; one of {SWITCHES}")
    old = switch(name)
    setattr(_switches, name, bool(on))
    try:
        yield
    finally:
        setattr(_switches, name, old)


# ---- streams ------------------------------------------------------------------------------


def current_stream(x, k=None):
    """The current CUDA stream (an int) of the library x comes from, or None."""
    k = k or kind(x)
    if k == "cupy":
        return sys.modules["cupy"].cuda.get_current_stream().ptr
    if k == "torch" and x.is_cuda:
        return sys.modules["torch"].cuda.current_stream(x.device).cuda_stream
    return None


def pick_stream(xs, kinds, stream=None):
    """stream when given, else the current stream of the first GPU input's library."""
    if stream is not None:
        return stream
    for x, k in zip(xs, kinds):
        s = current_stream(x, k)
        if s is not None:
            return s
    return None


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


def _first_torch_cuda(args, kw):
    """The device of the first array argument when it is a CUDA torch tensor, else None."""
    if "torch" not in sys.modules:   # no tensor can exist: skip the scan (~1 us a call)
        return None
    for x in (*args, *kw.values()):
        top = type(x).__module__.partition(".")[0]
        if top == "cupy" or isinstance(x, Array):
            return None
        if top == "torch":
            torch = sys.modules.get("torch")
            if torch is not None and isinstance(x, torch.Tensor):
                return x.device if x.is_cuda else None
    return None


def _on_torch_stream(fn, args, kw):
    """Public's route: when the first array argument is a CUDA torch tensor (and CuPy is
    there), fn runs here with torch's current stream (and device) as CuPy's, so its CuPy
    work and the C kernels (which take CuPy's current stream) are ordered with torch's
    work; else NotImplemented: Public calls fn itself."""
    kw = kw or {}
    dev = _first_torch_cuda(args, kw)
    cp = None if dev is None else cupy()
    if cp is None:
        return NotImplemented
    torch = sys.modules["torch"]
    with cp.cuda.Device(dev.index or 0):
        with _external_stream(cp, torch.cuda.current_stream(dev).cuda_stream):
            return fn(*args, **kw)


class _Public(_fovea.Public):
    """A public function of fovea.ndimage / fovea.skimage (see public)."""

    def __reduce__(self):   # pickled by name, as the function it wraps
        return self.__qualname__

    def __repr__(self):
        return f"<function {self.__module__}.{self.__qualname__}>"


def public(fn):
    """Decorator of the public functions of fovea.ndimage and fovea.skimage, one rule for
    both: torch input -> torch's current stream. When the first array argument is a CUDA
    torch tensor, the function (its CuPy work and its C kernels) runs on torch's current
    stream and device. The wrapper is a C callable (_fovea.Public): for every other input
    it calls fn without a Python frame of its own, so the stacklevel of fn's warnings is
    unchanged (scikit-image's tests check where they point)."""
    if isinstance(fn, _Public):
        return fn
    return functools.update_wrapper(_Public(fn, _on_torch_stream), fn)


def publish(namespace, names):
    """Wraps the plain functions among names in namespace (a package's globals()) with
    public, in place, and in the modules that define them (so that they pickle, and
    are one object under both names); classes and other objects stay."""
    for name in names:
        obj = namespace.get(name)
        if isinstance(obj, types.FunctionType):
            wrapped = namespace[name] = public(obj)
            home = sys.modules.get(obj.__module__)
            if home is not None and getattr(home, obj.__name__, None) is obj:
                setattr(home, obj.__name__, wrapped)


# ---- working arrays: NumPy on the host, CuPy on a GPU -----------------------------------------


def _native(a):
    """a, or a native-byte-order copy of byte-swapped data (the kernels read native values)."""
    if not a.dtype.isnative:
        return a.astype(a.dtype.newbyteorder("="))
    return a


def _host_view(x, k):
    np = _np()
    if k == "numpy" and type(x) is np.ndarray:
        return _native(x)
    return _native(np.asarray(x))


def _import(x, k, stream):
    """x as a fovea.Array (no copy); torch tensors are detached first (no autograd)."""
    if k == "fovea":
        return x
    if k == "torch":
        x = x.detach()
    return _fovea.asarray(x, stream)


def working(x, k=None, what=None, stream=None):
    """(array, device, xp, stream, readonly) for x: a NumPy view for host data, a CuPy view
    for device data (a fovea.Array with xp None when CuPy is missing; ImportError instead
    when `what` names the function that needs CuPy). stream: the CUDA stream to run on."""
    k = k or kind(x)
    np = _np()
    if k in _HOST_KINDS:
        a = _host_view(x, k)
        return a, "cpu", np, None, not a.flags.writeable
    if k == "cupy":
        return x, "cuda:%d" % x.device.id, sys.modules["cupy"], \
            sys.modules["cupy"].cuda.get_current_stream().ptr, False
    if stream is None and k == "torch" and x.is_cuda:
        stream = sys.modules["torch"].cuda.current_stream(x.device).cuda_stream
    a = _import(x, k, stream)
    dev, ro = a.device, a.readonly
    if dev == "cpu":
        return np.asarray(a), dev, np, None, ro
    cp = cupy() if what is None else need_cupy(what, dev)
    if cp is None:
        return a, dev, None, stream, ro
    with cp.cuda.Device(_device_id(dev)):
        return cp.asarray(a), dev, cp, cp.cuda.get_current_stream().ptr, ro


def _identity(x):
    return x


def _each(fn):
    """fn applied to an array result, or to each array of a tuple/list result."""

    def back(res):
        if isinstance(res, (tuple, list)):
            return type(res)(back(r) for r in res)
        np = _np()
        if res is None or isinstance(res, (int, float, complex, np.generic)):
            return res
        return fn(res)

    return back


def _torch_back(res):
    torch = sys.modules["torch"]
    if isinstance(res, Array):
        return torch.from_dlpack(res)
    np = _np()
    if isinstance(res, np.ndarray):
        if any(s < 0 for s in res.strides) or not res.flags.writeable:
            res = np.ascontiguousarray(res) if res.flags.writeable else res.copy()
        return torch.from_numpy(res)
    if any(s < 0 for s in res.strides):  # CuPy: torch takes no negative strides
        res = res.copy()
    return torch.from_dlpack(res)


def _back_for(like, k, stream):
    """The function that turns a working array (NumPy / CuPy / fovea.Array) into like's type."""
    if k in _HOST_KINDS or k == "cupy":
        return _identity
    if k == "torch":
        return _each(_torch_back)
    if k == "fovea":
        return _each(lambda r: _fovea.asarray(r, stream))
    if k == "cuda":
        return _each(lambda r: r if cupy() is not None else _fovea.asarray(r, stream))
    return _each(lambda r: to_user(_fovea.asarray(r, stream), like, k))


def prepare(x, what="fovea.skimage"):
    """(array, xp, back): x as a NumPy or CuPy array (a view, never a copy between
    devices), the module for element-wise math, and the function that turns results
    (arrays, or tuples/lists of them; scalars pass) back into x's array type."""
    k = kind(x)
    a, _, xp, stream, _ = working(x, k, what)
    return a, xp, _back_for(x, k, stream)


def like_input(x, ref, name, what="fovea.skimage", out=False):
    """x (a mask, labels, an out= array) as a working array on ref's device, without
    moving it: DeviceError when it lives elsewhere. ref: the working array of the
    first input (or the xp module doing the work). out: x is written to, so it must be writeable. None stays None."""
    if x is None:
        return None
    a, dev, xp, _, ro = working(x)
    want = _ref_device(ref)
    if dev != want:
        raise device_error(what, f"`{name}`", dev, want)
    if xp is None:
        need_cupy(what, dev)
    if out and ro:
        raise ValueError(f"{what}: `{name}` is read-only")
    return a


def _ref_device(ref):
    """The device of a working array, or of the module doing the work (CuPy: its current device)."""
    if ref is sys.modules.get("numpy"):
        return "cpu"
    if ref is sys.modules.get("cupy"):
        return "cuda:%d" % ref.cuda.Device().id
    return device_of_working(ref)


def inner(out, ref, what="fovea.skimage", name="out"):
    """An out= argument as a writeable working array on ref's device (None stays None)."""
    return like_input(out, ref, name, what, out=True)


def device_of_working(a):
    """"cpu" or "cuda:N" for a working array (NumPy, CuPy or fovea.Array)."""
    if isinstance(a, Array):
        return a.device
    if on_gpu(a):
        return "cuda:%d" % a.device.id
    return "cpu"


def xp_of(a):
    """numpy or cupy, whichever the working array a belongs to."""
    np = _np()
    if isinstance(a, (np.ndarray, np.generic)):
        return np
    return sys.modules["cupy"]


def on_gpu(a):
    np = _np()
    return not isinstance(a, (np.ndarray, np.generic))


def stream_of(a):
    """The CUDA stream to run on for the working array a (CuPy's current), or None."""
    if on_gpu(a):
        return sys.modules["cupy"].cuda.get_current_stream().ptr
    return None


_KERNEL_NATIVE = None   # the native dtype objects of KERNEL_DTYPES, made on first use


def kernel_dtype_ok(a):
    """True when the C kernels take a's dtype as it is (native byte order included)."""
    global _KERNEL_NATIVE
    if _KERNEL_NATIVE is None:
        _KERNEL_NATIVE = frozenset(_np().dtype(n) for n in KERNEL_DTYPES)
    try:
        if a.dtype in _KERNEL_NATIVE:   # a set lookup: dtype.name alone costs ~3 us
            return True
    except TypeError:
        pass
    dt = _np().dtype(a.dtype)
    return dt.name in KERNEL_DTYPES and dt.isnative


def wrap(res, like):
    """The fovea.Array res from the C extension as the working type of like."""
    if on_gpu(like):
        cp = sys.modules["cupy"]
        with cp.cuda.Device(_device_id(res.device)):
            return cp.asarray(res)
    return _np().asarray(res)


def to_host(a):
    """The working array a in host memory (an explicit copy for CuPy)."""
    if on_gpu(a):
        return a.get()
    return a


def like_device(a, ref):
    """The NumPy array a on ref's device (an explicit copy to the GPU for a CuPy ref)."""
    if on_gpu(ref):
        cp = sys.modules["cupy"]
        with cp.cuda.Device(ref.device.id):
            return cp.asarray(a)
    return a


# ---- small parameter arrays (weights, footprints, sampling) --------------------------------

_SMALL_GET = 1 << 16   # bytes: CuPy parameter arrays up to this size take _cupy_get_small
_pinned = threading.local()   # per thread: {device id: pinned buffer}


def _cupy_get_small(a):
    """A small CuPy array on the host by one asynchronous copy into a pinned buffer
    (kept per thread and device) on the current stream, and a wait on that stream:
    the same order as ndarray.get(), without its pageable staging (a call's weights
    are read this way before every kernel launch). The switch "plain_get": ndarray.get()."""
    n = a.nbytes
    if n == 0 or n > _SMALL_GET or not a.flags.c_contiguous or switch("plain_get"):
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
    return _np().frombuffer(buf, dtype=a.dtype, count=a.size).reshape(a.shape).copy()


def host(obj, dtype=None):
    """A small parameter array (weights, footprint, structure, sampling) as NumPy:
    device arrays of any kind are copied to the host (they are tiny; never use this
    for images). None stays None."""
    if obj is None:
        return None
    np = _np()
    k = kind(obj)
    if k == "cupy":
        obj = _cupy_get_small(obj)
    elif k == "torch":
        obj = obj.detach().cpu().numpy()
    elif k == "fovea" or k == "cuda" or (k == "dlpack" and not hasattr(obj, "__array__")):
        obj = np.asarray(_fovea.to_device(obj, "cpu"))
    return np.asarray(obj) if dtype is None else np.asarray(obj, dtype=dtype)


# ---- fovea.Array results as the caller's type ---------------------------------------------


def to_user(res, like, k):
    """The fovea.Array res as like's array type (see the module docstring)."""
    if k == "fovea":
        return res
    on_gpu_ = res.device != "cpu"
    if k == "torch":
        return sys.modules["torch"].from_dlpack(res)
    if k in ("cupy", "cuda") or (on_gpu_ and k in _HOST_KINDS):
        if not on_gpu_:
            return _np().asarray(res)
        cp = sys.modules.get("cupy") if k == "cupy" else cupy()
        if cp is None:
            return res
        with cp.cuda.Device(_device_id(res.device)):
            return cp.asarray(res)
    if k in _HOST_KINDS:
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


def _like(xs, kinds):
    """The input whose type the result takes: the first that is not a Python scalar."""
    for x, k in zip(xs, kinds):
        if k != "scalar":
            return x, k
    return xs[0], kinds[0]


def _operands(xs, kinds, stream):
    """Objects the C extension can import: lists via NumPy, torch detached, scalars as
    0-d arrays of the dtype NumPy 2 would give them, on the device of the array operand."""
    out = list(xs)
    np = None
    for i, k in enumerate(kinds):
        if k == "list":
            np = np or _np()
            out[i] = np.asarray(out[i])
        elif k == "numpy":
            out[i] = _native(out[i])
        elif k == "torch":
            out[i] = out[i].detach()
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


# ---- the public array functions -------------------------------------------------------------


def asarray(x, stream=None):
    """View x as a fovea.Array without copying (lists and scalars go through NumPy;
    torch tensors are detached)."""
    k = kind(x)
    if k in ("scalar", "list"):
        x = _np().asarray(x)
    elif k == "torch":
        x = x.detach()
    return _fovea.asarray(x, stream)


def astype(x, dtype, stream=None):
    """x converted to dtype, as ``x.astype(dtype)`` in NumPy; the result has x's array type.

    Casts follow NumPy (integers wrap, float -> int truncates toward zero) except where
    NumPy's result is platform-defined: float -> int saturates at the target's limits
    and NaN becomes 0. dtype: a NumPy dtype, a type object (``np.float32``, ``float``)
    or a name (``"uint8"``).
    """
    if stream is None and type(x) is _NDARRAY and x.dtype.isnative:   # what the general route does for it
        return _np().asarray(_fovea.astype(x, dtype_arg(dtype), None))
    kinds = [kind(x)]
    stream = pick_stream([x], kinds, stream)
    (xo,) = _operands([x], kinds, stream)
    return to_user(_fovea.astype(xo, dtype_arg(dtype), stream), x, kinds[0])


def _binop(fn, a, b, dtype, stream):
    if stream is None and type(a) is _NDARRAY and type(b) is _NDARRAY and a.dtype.isnative and b.dtype.isnative:
        # two native NumPy arrays: what the general route below does for them, ~2 us sooner
        return _np().asarray(fn(a, b, dtype=None if dtype is None else dtype_arg(dtype), stream=None))
    xs = [a, b]
    kinds = [kind(a), kind(b)]
    stream = pick_stream(xs, kinds, stream)
    like, like_kind = _like(xs, kinds)
    ao, bo = _operands(xs, kinds, stream)
    res = fn(ao, bo, dtype=None if dtype is None else dtype_arg(dtype), stream=stream)
    return to_user(res, like, like_kind)


def add(a, b, dtype=None, stream=None):
    """a + b with NumPy broadcasting; result dtype ``numpy.result_type(a, b)`` unless given."""
    return _binop(_fovea.add, a, b, dtype, stream)


def multiply(a, b, dtype=None, stream=None):
    """a * b with NumPy broadcasting; result dtype ``numpy.result_type(a, b)`` unless given."""
    return _binop(_fovea.multiply, a, b, dtype, stream)


def _same_place(have, want):
    if have is None:
        return False
    if want == "cuda":
        return have.startswith("cuda")
    return have == want


def _gpu_result(res, x, k):
    """A device result of to_device/copy for a host-or-CuPy input: CuPy when installed."""
    if k in _HOST_KINDS or k in ("cupy", "cuda"):
        return to_user(res, x, "cupy" if cupy() is not None else "fovea")
    return to_user(res, x, k)


def to_device(x, device, stream=None):
    """x on device ("cpu", "cuda" or "cuda:N").

    NumPy -> "cuda" gives a CuPy array when CuPy is installed (a fovea.Array
    otherwise); CuPy -> "cpu" gives NumPy; PyTorch tensors stay PyTorch tensors;
    fovea.Array stays fovea.Array. Returns x itself when it is already there.
    Raises fovea.DeviceError (saying why) when CUDA is unavailable.
    """
    k = kind(x)
    if k in ("scalar", "list"):
        x, k = _np().asarray(x), "numpy"
    if isinstance(device, str) and device == "gpu":
        device = "cuda"
    if _same_place(device_of(x, k), device):
        return x
    if stream is None:
        stream = current_stream(x, k)
        if stream is None and device != "cpu" and _fovea.gpu_available():
            # host -> device: copy on the current stream of the library the result goes to
            if k == "torch":
                torch = sys.modules["torch"]
                stream = torch.cuda.current_stream(torch.device(device)).cuda_stream
            elif k in ("numpy", "dlpack", "other"):
                cp = cupy()
                if cp is not None:
                    stream = cp.cuda.get_current_stream().ptr
    res = _fovea.to_device(x.detach() if k == "torch" else x, device, stream)
    if k == "torch":
        return sys.modules["torch"].from_dlpack(res)
    if k == "fovea":
        return res
    if res.device == "cpu":
        return _np().asarray(res)
    return _gpu_result(res, x, k)


def copy(x, device=None, stream=None):
    """A C-contiguous copy of x (on device, default x's own), as x's array type."""
    k = kind(x)
    if k in ("scalar", "list"):
        x, k = _np().asarray(x), "numpy"
    if stream is None:
        stream = current_stream(x, k)
    res = _fovea.copy(x.detach() if k == "torch" else x, device, stream)
    if res.device == "cpu" and k in ("cupy", "cuda"):
        return _np().asarray(res)
    if res.device != "cpu" and k in _HOST_KINDS:
        return _gpu_result(res, x, k)
    return to_user(res, x, k)


# ---- fovea.ndimage calls: scipy's output= rules on the working arrays -------------------------


class Call:
    """One public fovea.ndimage call: the working view of its input and how results go back.

    The working view is a NumPy array for host data and a CuPy array for device data (a
    fovea.Array when CuPy is missing: the C-only paths still run). The compositions run
    on the working arrays with NumPy or CuPy, the heavy work in C on them in place;
    :meth:`result` hands back the caller's array type or, when the caller passed
    ``output=``, that very object."""

    __slots__ = ("name", "kind", "like", "input", "device", "xp", "stream", "_users")

    def __init__(self, name, x):
        self.name = name
        self.kind = kind(x)
        self.like = x
        self._users = {}
        self.input, self.device, self.xp, self.stream, _ = working(x, self.kind)

    def _view(self, obj, what):
        """(working view, read-only) of another image-sized array (output, mask) on the
        input's device."""
        if self.device == "cpu" and kind(obj) == "numpy":
            return obj, not obj.flags.writeable
        a, dev, _, _, ro = working(obj, None, None, self.stream if self.device != "cpu" else None)
        if dev != self.device:
            raise device_error(self.name, what, dev, self.device)
        return a, ro

    def view(self, obj, what):
        """A working view of another image-sized array (output, mask) on the input's device."""
        return self._view(obj, what)[0]

    def empty(self, shape, dtype):
        dtype = _np().dtype(dtype)
        if self.device == "cpu":
            return _np().empty(shape, dtype)
        if self.xp is None:
            return _fovea.empty(tuple(shape), dtype.name, self.device, self.stream)
        with self.xp.cuda.Device(_device_id(self.device)):
            return self.xp.empty(shape, dtype)

    def zeros(self, shape, dtype):
        if self.device == "cpu":
            return _np().zeros(shape, dtype)
        return self.need_xp().zeros(shape, dtype)

    def _user_output(self, output):
        out, ro = self._view(output, "output")
        if ro:
            raise ValueError(f"{self.name}: output is read-only")
        self._users[id(out)] = (out, output)   # the view stays alive, so its id stays unique
        return out

    def get_output(self, output, input, shape=None, complex_output=False):
        """scipy's _get_output: None -> a new array of input's dtype; a dtype (type,
        np.dtype, name, torch dtype) -> a new array of it; an array -> that array,
        written in place (its shape must be right)."""
        np = _np()
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
                warnings.warn("promoting specified output dtype to complex", stacklevel=3)
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
            return self.empty(shape, np.dtype(dtype_arg(output)))
        out = self._user_output(output)
        if tuple(out.shape) != tuple(shape):
            raise RuntimeError("output shape not correct")
        if complex_output and np.dtype(out.dtype).kind != "c":
            raise RuntimeError("output must have complex dtype")
        return out

    def pass_output(self, output):
        """output for a nested public call: an array becomes its working view (so that
        result() can map it back to the caller's object); None and dtypes pass as they are."""
        if not is_array(output):
            return output
        return self._user_output(output)

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

    def _check_dtype(self, a):
        if not kernel_dtype_ok(a):
            raise RuntimeError(f"array type {_np().dtype(a.dtype)!r} not supported")

    def run(self, fn, input, output, *args, **kw):
        """fn(input, output, *args) in C on this call's stream, after the dtype check
        scipy's C code makes (RuntimeError for dtypes it cannot process)."""
        for a in (input, output):
            if a is not None:
                self._check_dtype(a)
        return fn(input, output, *args, stream=self.stream, **kw)

    def run_in(self, fn, input, *args):
        """fn(input, *args) in C on this call's stream (outputs among args, checked by C)."""
        self._check_dtype(input)
        return fn(input, *args, stream=self.stream)

    def as_binary(self, x):
        """x, or x != 0 where the C library does not read x's dtype (complex, float16)."""
        if kernel_dtype_ok(x):
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
        if k in _HOST_KINDS:
            return arr
        if k in ("cupy", "cuda") and kind(arr) == "cupy":
            return arr
        if k == "fovea":
            return _fovea.asarray(arr, self.stream)
        return to_user(_fovea.asarray(arr, self.stream), self.like, k)
