"""cuCIM's small types and helpers around ``CuImage`` (``cucim.clara.io.Device`` /
``DeviceType``, ``cucim.clara.cache.CacheType`` / ``preferred_memory_capacity``,
``CuImage.save``'s PPM, and ``read_region``'s ``buf`` / ``shm_name``), used by
``fovea._slide`` and exported again by ``fovea.clara``. docs/cuimage.md says what
each does and how it differs from cuCIM."""

import enum
import operator
import re

__all__ = ["CacheType", "Device", "DeviceType", "preferred_memory_capacity"]


# ---- devices ----------------------------------------------------------------------------------


class DeviceType(enum.IntEnum):
    """cuCIM's ``cucim.clara.io.DeviceType`` (values as in DLPack)."""

    CPU = 1
    CUDA = 2
    CUDAHost = 3
    CUDAManaged = 13
    CPUShared = 101
    CUDAShared = 102

    def __str__(self):   # as pybind11 writes cuCIM's enums
        return f"{type(self).__name__}.{self.name}"


_TYPE_NAMES = {
    "cpu": DeviceType.CPU,
    "cuda": DeviceType.CUDA,
    "cuda_host": DeviceType.CUDAHost,
    "cuda_managed": DeviceType.CUDAManaged,
    "cpu_shared": DeviceType.CPUShared,
    "cuda_shared": DeviceType.CUDAShared,
}
_NAME_OF = {v: k for k, v in _TYPE_NAMES.items()}
# cuCIM's device-name grammar: 'cuda', 'cuda:0', 'cpu[shm0]', 'cuda:0[cuda_shm0]'
_DEVICE_RE = re.compile(r"([a-z_]+)(?::(0|[1-9]\d*))?(?:\[([a-zA-Z0-9_\-][a-zA-Z0-9_\-.]*)\])?")


def _device_type(name):
    if isinstance(name, DeviceType):
        return name
    t = _TYPE_NAMES.get(str(name).lower())
    if t is None:
        raise ValueError(f"unknown device type {name!r}: expected one of {', '.join(_TYPE_NAMES)}")
    return t


class Device:
    """cuCIM's ``cucim.clara.io.Device``: a device type, an index (-1: none given)
    and, in brackets, a shared-memory name.

    ``Device()`` is the CPU; ``Device("cuda:0")``, ``Device("cpu[shm0]")`` parse
    cuCIM's device names; ``Device(DeviceType.CUDA, 0)`` and ``Device("cuda", 0)``
    build one. ``str()`` / ``repr()`` give the name back as cuCIM writes it ('cpu',
    'cuda:0', 'cuda:0[shm0]'); a Device equals another of the same fields and the
    string of its name."""

    __slots__ = ("_type", "_index", "_shm_name")

    def __init__(self, device_name="cpu", index=None, shm_name=""):
        if isinstance(device_name, Device):
            t, i, shm = device_name._type, device_name._index, device_name._shm_name
        elif isinstance(device_name, DeviceType) or index is not None:
            t, i, shm = _device_type(device_name), -1, ""
        elif isinstance(device_name, str):
            m = _DEVICE_RE.fullmatch(device_name)
            if not m:
                raise ValueError(f"device name {device_name!r} does not match 'type[:index][[shm_name]]' "
                                 "(e.g. 'cpu', 'cuda:0', 'cpu[shm0]')")
            t = _device_type("cuda" if m[1] == "gpu" else m[1])
            i = int(m[2]) if m[2] is not None else -1
            shm = m[3] or ""
        else:
            raise TypeError(f"Device() takes a device name or a DeviceType, not {type(device_name).__name__}")
        if index is not None:
            i = operator.index(index)
            if not -1 <= i < (1 << 15):
                raise ValueError(f"device index {i} is out of range")
        if shm_name:
            shm = str(shm_name)
        self._type, self._index, self._shm_name = t, i, shm

    @staticmethod
    def parse_type(device_name):
        """The DeviceType of a device type name ('cpu', 'cuda', 'cuda_host', ...)."""
        return _device_type(device_name)

    @property
    def type(self):
        return self._type

    @property
    def index(self):
        return self._index

    @property
    def shm_name(self):
        """The shared-memory name given in brackets ('' when none)."""
        return self._shm_name

    def __str__(self):
        name = _NAME_OF[self._type]
        if self._shm_name:
            return f"{name}:{self._index}[{self._shm_name}]"
        return name if self._index == -1 else f"{name}:{self._index}"

    __repr__ = __str__

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = Device(other)
            except ValueError:
                return False
        if not isinstance(other, Device):
            return NotImplemented
        return (self._type, self._index, self._shm_name) == (other._type, other._index, other._shm_name)

    def __hash__(self):
        return hash(str(self))

    def __reduce__(self):
        return (Device, (self._type, self._index, self._shm_name))


def device_arg(device):
    """(fovea's device string 'cpu' / 'cuda' / 'cuda:N', the shared-memory name or '')
    of what cuCIM takes as a device: a Device, a DeviceType, a device name (also
    'gpu'), or None (the CPU)."""
    if device is None:
        return "cpu", ""
    try:
        if isinstance(device, (Device, DeviceType)):
            d = Device(device)
        else:
            try:
                d = Device(str(device))
            except ValueError:   # fovea took 'CPU', 'CUDA:0' before; shared-memory names keep their case
                d = Device(str(device).lower())
    except (TypeError, ValueError):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N' (or a fovea.clara.io.Device), "
                         f"not {device!r}") from None
    if d.type not in (DeviceType.CPU, DeviceType.CUDA):
        raise ValueError(f"device {str(d)!r}: fovea reads into 'cpu' or 'cuda' memory only")
    name = "cpu" if d.type == DeviceType.CPU else ("cuda" if d.index < 0 else f"cuda:{d.index}")
    return name, d.shm_name


# ---- the cache --------------------------------------------------------------------------------


class CacheType(enum.IntEnum):
    """cuCIM's ``cucim.clara.cache.CacheType``."""

    NoCache = 0
    PerProcess = 1
    SharedMemory = 2

    __str__ = DeviceType.__str__


class CacheTypeName(str):
    """The cache type's name ('nocache', 'per_process', 'shared_memory') that is also
    cuCIM's CacheType number: ``int(cache.type) == 1`` as in cuCIM."""

    __slots__ = ()

    def __int__(self):
        return int(_CACHE_TYPE_OF[str(self)])

    __index__ = __int__


_CACHE_TYPE_OF = {"nocache": CacheType.NoCache, "per_process": CacheType.PerProcess,
                  "shared_memory": CacheType.SharedMemory}


def cache_type_name(type):
    """'nocache', 'per_process' or 'shared_memory' of a name or a CacheType
    ('no_cache' too, which cuCIM's tests use: cuCIM takes any unknown name as
    'nocache'; fovea takes only that one)."""
    if isinstance(type, CacheType):
        return {v: k for k, v in _CACHE_TYPE_OF.items()}[type]
    t = str(type).lower()
    if t == "no_cache":
        t = "nocache"
    if t not in _CACHE_TYPE_OF:
        raise ValueError(f"cache type must be 'per_process', 'nocache' or 'shared_memory', not {type!r}")
    return t


def _u32(v, what, lo=0):
    try:
        n = operator.index(v)
    except TypeError:
        raise TypeError(f"preferred_memory_capacity: {what} values must be integers, not {v!r}") from None
    if not lo <= n < (1 << 32):
        raise ValueError(f"preferred_memory_capacity: {what} value {n} is out of range [{lo}, 2**32)")
    return n


def _size2(v, what, lo):
    """A (width, height) pair, or None when v is not given or is not a pair (cuCIM's
    default then applies)."""
    if v is None:
        return None
    v = list(v)
    if len(v) != 2:
        return None
    return tuple(_u32(x, what, lo) for x in v)


def preferred_memory_capacity(img=None, image_size=None, tile_size=None, patch_size=None, bytes_per_pixel=3):
    """cuCIM's ``cucim.clara.cache.preferred_memory_capacity``: a tile-cache capacity
    in MiB that holds a patch's band of tiles across the whole image width, for
    ``CuImage.cache(type, memory_capacity=...)``.

    img: a ``CuImage`` (its level-0 size and tile size and 3 bytes per pixel are used;
    only patch_size is taken from the arguments). Otherwise image_size (width, height)
    is required; tile_size and patch_size default to (256, 256) (also when not a
    pair); bytes_per_pixel to 3. The value is cuCIM's formula: ceil(tiles across x
    tile width x tile height x (min(image height, patch height + tile height - 1) //
    tile height + 1) x bytes per pixel / 1 MiB)."""
    if img is not None:
        from ._slide import CuImage

        if not isinstance(img, CuImage):
            raise TypeError(f"preferred_memory_capacity: img must be a CuImage, not {type(img).__name__}")
        image = tuple(int(v) for v in img.size("XY"))
        tile = tuple(int(v) for v in img.resolutions["level_tile_sizes"][0])
        bpp = 3
    else:
        image = _size2(image_size, "image_size", 0) if image_size is not None else None
        if image is None:
            raise ValueError("Please specify 'image_size' parameter (e.g., 'image_size=(100000, 100000)')!")
        tile = _size2(tile_size, "tile_size", 1) or (256, 256)
        bpp = _u32(bytes_per_pixel, "bytes_per_pixel")
    patch = _size2(patch_size, "patch_size", 0) or (256, 256)
    if min(tile) < 1:
        raise ValueError(f"preferred_memory_capacity: tile_size {tile} must be positive")
    # cuCIM's arithmetic (uint32 counts, uint64 bytes)
    across = ((image[0] + tile[0] - 1) // tile[0]) & 0xFFFFFFFF
    down = (min(image[1] + tile[1] - 1, patch[1] + tile[1] - 1) // tile[1] + 1) & 0xFFFFFFFF
    need = (across * tile[0] * tile[1] * down * bpp) & ((1 << 64) - 1)
    return (need // (1 << 20) + (1 if need % (1 << 20) else 0)) & 0xFFFFFFFF


# ---- regions: save, buf, shm_name --------------------------------------------------------------


def _host(region):
    """A NumPy view or copy (device memory: copied) of an array-like."""
    import numpy as np

    if hasattr(region, "__cuda_array_interface__"):
        from ._interop import to_device

        region = to_device(region, "cpu")
    return np.asarray(region)


def save_ppm(region, file_path):
    """Writes an (H, W, 3) or (H, W, 4) uint8 region (alpha dropped) as a binary PPM,
    byte for byte what cuCIM's ``CuImage.save`` writes ('P6\\nW\\nH\\n255\\n' then the
    RGB rows)."""
    import numpy as np

    arr = _host(region)
    if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] not in (3, 4):
        raise ValueError(f"save: a region is an (H, W, 3) or (H, W, 4) uint8 array, not {arr.dtype} "
                         f"{arr.shape} (PPM holds 8-bit RGB)")
    rgb = np.ascontiguousarray(arr[:, :, :3])
    with open(file_path, "wb") as f:
        f.write(b"P6\n%d\n%d\n255\n" % (rgb.shape[1], rgb.shape[0]))
        f.write(rgb.tobytes())


def shm_region(read, shape, dtype, shm_name):
    """A new POSIX shared-memory segment named shm_name holding the region that
    read(out) writes into out (an ndarray over the segment); returns an ndarray of
    shape and dtype mapped onto the segment, which stays valid after the segment is
    unlinked. The segment is the caller's: it is registered with Python's resource
    tracker as multiprocessing.shared_memory does, and removed with
    ``SharedMemory(shm_name).unlink()``. FileExistsError when the name is taken."""
    import mmap
    import numpy as np
    from multiprocessing import shared_memory

    if not isinstance(shm_name, str):
        raise TypeError(f"shm_name must be a str, not {type(shm_name).__name__}")
    if "/" in shm_name.lstrip("/") or not shm_name.strip("/"):
        raise ValueError(f"shm_name {shm_name!r} is not a valid shared-memory name")
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    shm = shared_memory.SharedMemory(name=shm_name, create=True, size=max(nbytes, 1))
    try:
        view = np.ndarray(shape, dtype, buffer=shm.buf)
        try:
            read(view)
        finally:
            del view
        # a mapping of our own (POSIX: the segment's descriptor), so that the array
        # outlives the SharedMemory object, whose close() refuses while an array
        # exports its buffer
        mm = mmap.mmap(shm._fd, max(nbytes, 1))
    except BaseException:
        shm.close()
        shm.unlink()
        raise
    shm.close()
    return np.frombuffer(mm, dtype, count=int(np.prod(shape))).reshape(shape)
