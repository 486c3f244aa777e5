"""Array plumbing for fovea.skimage.morphology: the same array type out.

Every public function works internally on NumPy arrays (host data) or CuPy
arrays (CUDA data) and gives its result back as the caller's type:

=====================  =====================  ==================
input                  worked on as           result
=====================  =====================  ==================
numpy.ndarray, lists   numpy.ndarray          numpy.ndarray
cupy.ndarray           cupy.ndarray           cupy.ndarray
torch.Tensor (CPU)     numpy (zero copy)      torch.Tensor
torch.Tensor (CUDA)    cupy (zero copy)       torch.Tensor
fovea.Array            numpy / cupy           fovea.Array
=====================  =====================  ==================

CUDA data never moves to the host unless a function's documentation says so.
"""

import sys

import numpy as np

from ... import _fovea
from ..._arrays import _cupy as _import_cupy
from .._shared import _fovea_back, _identity, _torch_back


def _cupy(required_for=None):
    """CuPy, or None when it cannot be imported (TypeError naming the need when
    required_for is given)."""
    cp = _import_cupy()
    if cp is None and required_for is not None:
        raise TypeError(
            "fovea.skimage.morphology works on CUDA data through CuPy, which is not "
            f"installed (needed for {required_for})"
        )
    return cp


def _kind(x):
    if isinstance(x, _fovea.Array):
        return "fovea"
    top = type(x).__module__.partition(".")[0]
    if top == "cupy":
        return "cupy"
    if top == "torch":
        return "torch"
    if isinstance(x, (np.ndarray, np.generic)):
        return "numpy"
    if hasattr(x, "__cuda_array_interface__"):
        return "cai"
    return "numpy"


def take(x):
    """(x as a NumPy or CuPy array, a function turning results back into x's type)."""
    k = _kind(x)
    if k == "numpy":
        return np.asarray(x), _identity
    if k == "cupy":
        return x, _identity
    if k == "torch":
        if x.device.type == "cpu":
            return np.from_dlpack(x.detach()), _torch_back
        return _cupy("torch CUDA tensors").from_dlpack(x.detach()), _torch_back
    if k == "fovea":
        if x.device == "cpu":
            return np.asarray(x), _fovea_back
        return _cupy("fovea.Array on CUDA").asarray(x), _fovea_back
    return _cupy("__cuda_array_interface__ objects").asarray(x), _identity


def inner(x):
    """x (an optional out= argument) as a NumPy or CuPy array viewing the same memory."""
    if x is None:
        return None
    return take(x)[0]


def xp_of(a):
    """numpy or cupy, whichever a (an internal array) belongs to."""
    if isinstance(a, np.ndarray):
        return np
    return sys.modules["cupy"]


def on_gpu(a):
    return not isinstance(a, (np.ndarray, np.generic))


def host(x):
    """x in host memory as NumPy (footprints, offsets): an explicit copy for device data."""
    if x is None:
        return None
    k = _kind(x)
    if k == "cupy":
        return x.get()
    if k == "torch":
        return x.detach().cpu().numpy()
    if k == "fovea":
        return np.asarray(_fovea.to_device(x, "cpu"))
    if k == "cai":
        return _cupy("__cuda_array_interface__ objects").asarray(x).get()
    return np.asarray(x)


_KERNEL_DTYPES = frozenset("bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 float32 float64".split())


def kernel_dtype_ok(a):
    """True when the C kernels take a's dtype as it is."""
    return a.dtype.name in _KERNEL_DTYPES


def stream_of(a):
    """The CUDA stream to run on for the internal array a (CuPy's current), or None."""
    if on_gpu(a):
        return sys.modules["cupy"].cuda.get_current_stream().ptr
    return None


def wrap(res, like):
    """The fovea.Array res from the C extension as like's internal type."""
    if on_gpu(like):
        cp = sys.modules["cupy"]
        with cp.cuda.Device(int(res.device.partition(":")[2])):
            return cp.asarray(res)
    return np.asarray(res)


def to_host(a):
    """The internal array a in host memory (an explicit copy for CuPy)."""
    if on_gpu(a):
        return a.get()
    return a


def like_device(a, ref):
    """The NumPy array a on ref's device (an explicit copy to the GPU for CuPy ref)."""
    if on_gpu(ref):
        cp = sys.modules["cupy"]
        with cp.cuda.Device(ref.device.id):
            return cp.asarray(a)
    return a
