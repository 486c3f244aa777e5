"""fovea: GPU-accelerated n-dimensional image processing and whole-slide image I/O.

The array functions take NumPy, CuPy, PyTorch or any DLPack/array-interface
object without copying and return the type of their first array-like input.
Data on the GPU is processed on the GPU, data in host memory on all CPU cores;
nothing moves between them unless you call ``to_device``.
"""

from . import _fovea
from ._fovea import (
    Array,
    CudaError,
    DeviceError,
    FormatError,
    config,
    empty,
    gpu_available,
    num_threads,
)
from ._arrays import add, asarray, astype, copy, multiply, to_device

__version__ = _fovea.version()

__all__ = [
    "Array",
    "CudaError",
    "DeviceError",
    "FormatError",
    "__version__",
    "add",
    "asarray",
    "astype",
    "config",
    "copy",
    "empty",
    "gpu_available",
    "multiply",
    "num_threads",
    "to_device",
]
