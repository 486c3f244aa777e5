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
from ._interop import add, asarray, astype, copy, multiply, to_device
from ._slide import *  # noqa: F403  (the OpenSlide PROPERTY_NAME_* constants among them)
from ._slide import __all__ as _slide_all
from ._slide import (
    CacheInfo,
    CacheType,
    CuImage,
    Device,
    DeviceType,
    ImageCache,
    OpenSlide,
    OpenSlideCache,
    cache,
    cache_info,
    gpu_cache,
    open,
    open_slide,
    preferred_memory_capacity,
)

__version__ = _fovea.version()

# fovea.open is left out of __all__ so that `from fovea import *` keeps the builtin open.
__all__ = [
    "Array",
    "CacheInfo",
    "CacheType",
    "CuImage",
    "CudaError",
    "Device",
    "DeviceError",
    "DeviceType",
    "FormatError",
    "ImageCache",
    "OpenSlide",
    "OpenSlideCache",
    *[n for n in _slide_all if n.startswith("PROPERTY_NAME_")],
    "__version__",
    "add",
    "asarray",
    "astype",
    "cache",
    "cache_info",
    "gpu_cache",
    "config",
    "copy",
    "empty",
    "gpu_available",
    "multiply",
    "num_threads",
    "open_slide",
    "preferred_memory_capacity",
    "to_device",
]
