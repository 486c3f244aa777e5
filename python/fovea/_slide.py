"""Whole-slide images: three faces over one C handle (``fovea._fovea.Slide``).

* ``fovea.open(path)`` / ``fovea.CuImage(path)``: cuCIM's ``CuImage`` (shape,
  size(), spacing(), metadata, resolutions, associated_images, read_region ...),
  except that ``read_region`` returns a NumPy array (what cuCIM users get with
  ``np.asarray(region)``), or an array on the GPU for ``device="cuda"``.
* ``fovea.OpenSlide(path)``: openslide-python's ``OpenSlide`` (level_count,
  dimensions, properties, associated_images, read_region -> PIL RGBA,
  get_best_level_for_downsample, get_thumbnail, PROPERTY_NAME_* ...).
* ``fovea.cache(...)`` / ``CuImage.cache(...)``: the process-wide decoded-tile
  cache that every handle shares, with cuCIM-like statistics.

Handles pickle as their path and re-open on load, so they cross into DataLoader
worker processes. A handle is safe to use from many threads at once (reads run
without the GIL). Errors: a missing file is ``FileNotFoundError`` (``OSError``),
content that is not a slide fovea can read is ``fovea.FormatError``, bad
arguments (negative sizes, levels out of range, absurd coordinates) are
``ValueError``. The first error caused by the file sticks to the handle: every
later read fails with it, and a failed read never returns partial pixels.
"""

import collections
import collections.abc
import json
import math
import operator
import os
import threading

from . import _cucim, _fovea
from ._cucim import CacheType, Device, DeviceType, preferred_memory_capacity
from ._fovea import DeviceError

__all__ = [
    "CacheInfo",
    "CacheType",
    "CuImage",
    "Device",
    "DeviceType",
    "ImageCache",
    "OpenSlide",
    "OpenSlideCache",
    "cache",
    "cache_info",
    "open",
    "open_slide",
    "preferred_memory_capacity",
    "PROPERTY_NAME_BACKGROUND_COLOR",
    "PROPERTY_NAME_BARCODE",
    "PROPERTY_NAME_BOUNDS_HEIGHT",
    "PROPERTY_NAME_BOUNDS_WIDTH",
    "PROPERTY_NAME_BOUNDS_X",
    "PROPERTY_NAME_BOUNDS_Y",
    "PROPERTY_NAME_COMMENT",
    "PROPERTY_NAME_MPP_X",
    "PROPERTY_NAME_MPP_Y",
    "PROPERTY_NAME_OBJECTIVE_POWER",
    "PROPERTY_NAME_QUICKHASH1",
    "PROPERTY_NAME_VENDOR",
]

# openslide-python's property names
PROPERTY_NAME_BACKGROUND_COLOR = "openslide.background-color"
PROPERTY_NAME_BARCODE = "openslide.barcode"
PROPERTY_NAME_BOUNDS_HEIGHT = "openslide.bounds-height"
PROPERTY_NAME_BOUNDS_WIDTH = "openslide.bounds-width"
PROPERTY_NAME_BOUNDS_X = "openslide.bounds-x"
PROPERTY_NAME_BOUNDS_Y = "openslide.bounds-y"
PROPERTY_NAME_COMMENT = "openslide.comment"
PROPERTY_NAME_MPP_X = "openslide.mpp-x"
PROPERTY_NAME_MPP_Y = "openslide.mpp-y"
PROPERTY_NAME_OBJECTIVE_POWER = "openslide.objective-power"
PROPERTY_NAME_QUICKHASH1 = "openslide.quickhash-1"
PROPERTY_NAME_VENDOR = "openslide.vendor"

_MiB = 1 << 20


# ---- argument helpers ------------------------------------------------------------------------


def _int(v, what):
    """An int from an integer or a finite real number (floored): location and size
    values computed as floats (``x * downsample``) are common in user code."""
    try:
        return operator.index(v)
    except TypeError:
        pass
    if isinstance(v, (str, bytes, bytearray)):
        raise TypeError(f"{what} must be a number, not {type(v).__name__}")
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number, not {type(v).__name__}") from None
    if not math.isfinite(f):
        raise ValueError(f"{what} = {v!r} is not a finite number")
    if abs(f) >= 2.0**63:
        raise ValueError(f"{what} = {v!r} is out of range")
    return int(math.floor(f))


def _pair(v, what):
    try:
        a, b = v
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a pair of numbers, got {v!r}") from None
    return _int(a, f"{what}[0]"), _int(b, f"{what}[1]")


def _device_arg(device):
    """'cpu' or 'cuda'/'cuda:N' of a device name (also 'gpu'), a fovea.clara.io.Device or
    DeviceType, None, or an object whose str() is a device name (torch.device)."""
    return _cucim.device_arg(device)[0]


def _gpu_check(device, what):
    """DeviceError (saying why) unless fovea can use a GPU."""
    if not _fovea.gpu_available():
        reason = _fovea.config().get("cuda", {}).get("reason", "") or "CUDA is unavailable"
        raise DeviceError(f"{what}: device={device!r} needs a usable GPU: {reason}")


def _from_gpu(arr):
    """A fovea.Array in device memory as a CuPy array (zero-copy), or itself without CuPy."""
    from ._interop import cupy as _cupy

    cp = _cupy()
    return cp.asarray(arr) if cp is not None else arr


def _to_device(arr, device, what):
    """arr (a host NumPy array) on device: decoded on the CPU, copied to the GPU."""
    if device == "cpu":
        return arr
    _gpu_check(device, what)
    from ._interop import to_device

    return to_device(arr, device)


# ---- the tile cache ---------------------------------------------------------------------------

CacheInfo = collections.namedtuple(
    "CacheInfo",
    ["type", "hits", "misses", "evictions", "size", "memory_size", "capacity", "memory_capacity"],
)
CacheInfo.__doc__ = """Statistics of the process-wide tile cache.

type: 'per_process', 'nocache' or 'shared_memory' (then the counts are the segment's,
over all its processes). hits, misses, evictions: tile lookups that found,
did not find, and tiles dropped to make room (counted while record_stat is on).
size: tiles held; memory_size: their bytes. capacity, memory_capacity: the byte
limit (fovea's cache is bounded by bytes only; both fields hold it)."""


class _CacheState:
    """Python-side settings of the C cache: the capacity to use when the type changes
    (and to restore after 'nocache'), and the record_stat emulation (counts that
    accrue while recording is off are hidden)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.capacity = None  # bytes for 'per_process' / 'shared_memory' (None: the library's)
        self.record = True
        self.hidden = (0, 0, 0)  # hits, misses, evictions counted while not recording
        self.off_at = None  # raw counts when recording was switched off
        self.shm_env = None  # the FOVEA_CACHE_SHM value we exported for spawned processes

    def counts(self, raw):
        c = (raw["hits"], raw["misses"], raw["evictions"])
        if not self.record and self.off_at is not None:
            c = self.off_at
        return tuple(max(0, a - b) for a, b in zip(c, self.hidden))

    def set_record(self, on, raw):
        c = (raw["hits"], raw["misses"], raw["evictions"])
        if on and not self.record:
            if self.off_at is not None:
                self.hidden = tuple(h + (a - b) for h, a, b in zip(self.hidden, c, self.off_at))
            self.off_at = None
        elif not on and self.record:
            self.off_at = c
        self.record = bool(on)

    def reset(self):
        """The C counters went back to zero (reset_stats, or a new cache)."""
        self.hidden = (0, 0, 0)
        self.off_at = (0, 0, 0) if not self.record else None


_cache_state = _CacheState()


class ImageCache:
    """A view of the process-wide decoded-tile cache (cuCIM's ``ImageCache``).

    Every slide handle of the process shares one cache, bounded by bytes. The
    attributes read the live state; ``fovea.cache(...)`` changes it.
    """

    __slots__ = ()

    def _info(self):
        return cache_info()

    preferred_memory_capacity = staticmethod(preferred_memory_capacity)

    @property
    def type(self):
        """'per_process', 'nocache' or 'shared_memory'; ``int()`` of it is cuCIM's CacheType."""
        return _cucim.CacheTypeName(_fovea.cache_type())

    @property
    def shm_name(self):
        """The shared-memory segment's name ('' unless the type is 'shared_memory')."""
        return _fovea.cache_shm_name()

    @property
    def hit_count(self):
        return self._info().hits

    @property
    def miss_count(self):
        return self._info().misses

    @property
    def evict_count(self):
        return self._info().evictions

    hits = hit_count
    misses = miss_count
    evictions = evict_count

    @property
    def size(self):
        """Tiles in the cache."""
        return self._info().size

    @property
    def memory_size(self):
        """Bytes of the tiles in the cache."""
        return self._info().memory_size

    @property
    def capacity(self):
        """The cache's limit in bytes (there is no separate limit on the number of tiles)."""
        return self._info().capacity

    @property
    def memory_capacity(self):
        """The cache's limit in bytes."""
        return self._info().memory_capacity

    @property
    def free_memory(self):
        i = self._info()
        return max(0, i.memory_capacity - i.memory_size)

    @property
    def config(self):
        i = self._info()
        return {
            "type": i.type,
            "memory_capacity": i.memory_capacity // _MiB,
            "record_stat": _cache_state.record,
        }

    def record(self, value=None):
        """record() -> whether statistics are recorded; record(bool) switches it."""
        if value is None:
            return _cache_state.record
        with _cache_state.lock:
            _cache_state.set_record(bool(value), _fovea.cache_stats())
        return None

    def reserve(self, memory_capacity=None, **config):
        """Grow the cache to memory_capacity MiB (never shrinks, as in cuCIM)."""
        if "config" in config:
            config = dict(config.pop("config"), **config)
        mc = memory_capacity if memory_capacity is not None else config.get("memory_capacity")
        if mc is not None and int(mc) * _MiB > self.memory_capacity:
            cache(memory_capacity=mc)

    def clear(self):
        """Drop every cached tile (the capacity stays)."""
        _fovea.cache_clear()

    def reset_stats(self):
        """Zero the hit, miss and eviction counters."""
        with _cache_state.lock:
            _fovea.cache_reset_stats()
            _cache_state.reset()

    def info(self):
        return self._info()

    def __repr__(self):
        i = self._info()
        return (
            f"<fovea.ImageCache type={i.type!r} size={i.size} memory_size={i.memory_size} "
            f"memory_capacity={i.memory_capacity} hits={i.hits} misses={i.misses} "
            f"evictions={i.evictions}>"
        )


_CUCIM_CACHE_KNOBS = ("capacity", "mutex_pool_capacity", "list_padding", "extra_shared_memory_size")


def cache(type=None, memory_capacity=None, record_stat=None, **kwargs):
    """Configure the process-wide decoded-tile cache and return a view of it.

    type: 'per_process' (the default: one LRU in this process, shared by every
    handle), 'nocache' (every read decodes; nothing is kept) or 'shared_memory' (one
    LRU in a POSIX shared-memory segment shared by this process and its DataLoader
    workers: fork children inherit it; spawned ones join through the FOVEA_CACHE_SHM
    environment variable, which is set here). Giving a type makes a new, empty cache
    with zeroed statistics (as cuCIM's CuImage.cache(type, ...) does).
    memory_capacity: the limit in MiB (cuCIM's unit); alone it resizes the current
    cache (shrinking evicts at once; a shared segment cannot grow past its size at
    creation). record_stat: count hits, misses and evictions (on by default in
    fovea). cuCIM's tuning knobs (capacity, mutex_pool_capacity, list_padding,
    extra_shared_memory_size) are accepted and ignored: fovea's cache is bounded by
    bytes only. Called without arguments it changes nothing. type may also be a
    CacheType or 'no_cache' (cuCIM's tests write it so).
    ``cache.preferred_memory_capacity(...)`` is cuCIM's capacity rule (MiB).
    """
    for k in kwargs:
        if k not in _CUCIM_CACHE_KNOBS:
            raise TypeError(f"cache() got an unexpected keyword argument {k!r}")
    if type is not None:
        type = _cucim.cache_type_name(type)
    if memory_capacity is not None:
        mc = _int(memory_capacity, "memory_capacity")
        if mc < 0:
            raise ValueError(f"memory_capacity = {memory_capacity!r} MiB must be >= 0")
        if mc > (1 << 43):
            raise ValueError(f"memory_capacity = {memory_capacity!r} MiB is out of range")
    with _cache_state.lock:
        current = _fovea.cache_type()
        if _cache_state.capacity is None:
            raw = _fovea.cache_stats()["capacity"]
            _cache_state.capacity = raw if current != "nocache" else 256 * _MiB
        cap = mc * _MiB if memory_capacity is not None else _cache_state.capacity
        if type is not None:
            _fovea.cache_configure(type, cap)
            _cache_state.reset()
            _export_shm_name(type)
        elif memory_capacity is not None and current != "nocache":
            _fovea.cache_set_capacity(cap)
        _cache_state.capacity = cap   # only once the library took it
        if record_stat is not None:
            _cache_state.set_record(bool(record_stat), _fovea.cache_stats())
    return ImageCache()


cache.preferred_memory_capacity = preferred_memory_capacity


def _export_shm_name(type):
    """Spawned processes (DataLoader workers with the spawn start method) join a
    shared cache through FOVEA_CACHE_SHM; fork children inherit the mapping."""
    if _cache_state.shm_env is not None and os.environ.get("FOVEA_CACHE_SHM") == _cache_state.shm_env:
        del os.environ["FOVEA_CACHE_SHM"]
    _cache_state.shm_env = None
    if type == "shared_memory":
        name = _fovea.cache_shm_name()
        if name:
            os.environ["FOVEA_CACHE_SHM"] = name
            _cache_state.shm_env = name


def cache_info():
    """A snapshot of the tile cache's statistics (a ``CacheInfo`` named tuple)."""
    with _cache_state.lock:
        raw = _fovea.cache_stats()
        hits, misses, evictions = _cache_state.counts(raw)
        t = _fovea.cache_type()
    return CacheInfo(t, hits, misses, evictions, raw["entries"], raw["bytes"], raw["capacity"], raw["capacity"])


def gpu_cache(memory_capacity=None, *, clear=False):
    """The GPU reads' device tile cache: decoded tiles kept in GPU memory (one cache
    per GPU, least recently used evicted first), so ``read_region(...,
    device="cuda")`` of tiles read before neither reads nor decodes them again.
    memory_capacity: the limit per GPU in MiB (0 turns it off; default 1 GiB, or
    FOVEA_GPU_CACHE_BYTES in bytes); shrinking evicts at once. clear: drop every
    cached tile. Returns the statistics (dict: hits, misses, evictions, bytes,
    capacity, entries). Reads with ``nocache=True`` bypass it; without a GPU it holds
    nothing."""
    if memory_capacity is not None:
        mc = _int(memory_capacity, "memory_capacity")
        if not 0 <= mc <= (1 << 43):
            raise ValueError(f"memory_capacity = {memory_capacity!r} MiB is out of range")
        _fovea.gpu_cache_set_capacity(mc * _MiB)
    if clear:
        _fovea.gpu_cache_clear()
    return _fovea.gpu_cache_stats()


class _CacheInfoAttr:
    """``CuImage.cache_info`` on the class or on an instance: a fresh ``CacheInfo``."""

    def __get__(self, obj, objtype=None):
        return cache_info()


# ---- CuImage (cuCIM's face) ------------------------------------------------------------------


class CuImage:
    """A whole-slide image with cuCIM's ``CuImage`` interface.

    ``read_region`` returns a NumPy array (H, W, 3) uint8 (cuCIM returns a CuImage
    that users convert with ``np.asarray``), or a CuPy array for ``device="cuda"``
    (JPEG tiles decoded on the GPU with nvJPEG). Pickles as its path.
    """

    cache = staticmethod(cache)
    cache_info = _CacheInfoAttr()
    preferred_memory_capacity = staticmethod(preferred_memory_capacity)

    def __init__(self, path):
        self._slide = _fovea.Slide(path)
        self._path = self._slide.path
        self._levels = self._slide.levels
        self._props = None
        self._meta = None

    # -- identity, pickling, lifetime --

    def __reduce__(self):
        return (type(self), (self._path,))

    def __repr__(self):
        return f"{type(self).__name__}({self._path!r})"

    def to_dask(self, level=0, chunks=4096, pixel_format="rgb", device="cpu"):
        """One level as a lazy dask array (fovea.dask.slide_to_dask; needs fovea[dask])."""
        from .dask import slide_to_dask

        return slide_to_dask(self, level, chunks, pixel_format, device)

    def to_dask_pyramid(self, chunks=4096, pixel_format="rgb", device="cpu"):
        """Every level as a list of dask arrays, level 0 first (fovea.dask)."""
        from .dask import slide_to_dask_pyramid

        return slide_to_dask_pyramid(self, chunks, pixel_format, device)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """Release the file (reads afterwards raise ValueError)."""
        self._slide.close()

    @property
    def closed(self):
        return self._slide.closed

    @property
    def path(self):
        return self._path

    @property
    def is_loaded(self):
        """True, as cuCIM's for an image it opened (its metadata is parsed; read_region
        decodes pixels on demand)."""
        return True

    @property
    def device(self):
        """Device('cpu'): where the handle's data lives (equal to the string 'cpu')."""
        return Device("cpu")

    def __bool__(self):
        """False, as cuCIM's ``CuImage.__bool__`` (``image_format && !is_loaded``) is for
        every image it opens and every region it reads."""
        return False

    def __iter__(self):
        """cuCIM's: a handle holds no region data to iterate (IndexError); iterate what
        read_region returns for many locations instead."""
        raise IndexError("Batch index out of range! (a CuImage opened from a file holds no region data; "
                         "iterate the result of read_region with many locations or batch_size > 1)")

    def save(self, file_path):
        """cuCIM's ``save``: a region as a binary PPM (P6, 8-bit RGB; cuCIM's only format).

        ``fovea.CuImage.save(region, path)`` writes a region that read_region or
        associated_image returned ((H, W, 3) or (H, W, 4) uint8, NumPy or on the GPU;
        alpha is dropped), byte for byte as cuCIM's ``region.save(path)``. On a slide
        handle (``img.save(path)``) it writes nothing, as cuCIM's does for an image
        opened from a file (it holds no region data).
        """
        if isinstance(self, CuImage):
            os.fspath(file_path)
            return None
        _cucim.save_ppm(self, file_path)
        return None

    # -- geometry --

    @property
    def ndim(self):
        return 3

    @property
    def dims(self):
        return "YXC"

    @property
    def shape(self):
        """[height, width, 3] of level 0 (what read_region returns)."""
        w, h = self._levels[0][:2]
        return [h, w, 3]

    def size(self, dim_order=""):
        """Extents in dim_order (default 'YXC'): size('XY') == [width, height]."""
        return self._by_dims(self.shape, dim_order, "size")

    @property
    def dtype(self):
        import numpy

        return numpy.dtype(numpy.uint8)

    @property
    def typestr(self):
        return "|u1"

    @property
    def channel_names(self):
        return ["R", "G", "B"]

    def _mpp(self):
        p = self._properties()
        out = []
        for k in (PROPERTY_NAME_MPP_Y, PROPERTY_NAME_MPP_X):
            try:
                v = float(p[k])
            except (KeyError, ValueError):
                v = 0.0
            out.append(v if v > 0 else None)
        return out

    def spacing(self, dim_order=""):
        """Pixel spacing in dim_order (default 'YXC'): micrometres per pixel for Y and X
        when the slide says (1.0 when it does not), 1.0 for C."""
        y, x = self._mpp()
        return self._by_dims([y or 1.0, x or 1.0, 1.0], dim_order, "spacing")

    def spacing_units(self, dim_order=""):
        y, x = self._mpp()
        return self._by_dims(
            ["micrometer" if y else "", "micrometer" if x else "", "color"], dim_order, "spacing_units"
        )

    @property
    def origin(self):
        return [0.0, 0.0]

    @property
    def direction(self):
        return [[1.0, 0.0], [0.0, 1.0]]

    @property
    def coord_sys(self):
        return "LPS"

    def _by_dims(self, values, dim_order, what):
        if not dim_order:
            return list(values)
        out = []
        for ch in str(dim_order):
            i = "YXC".find(ch.upper())
            if i < 0:
                raise ValueError(f"{what}: dim_order {dim_order!r} may only hold Y, X and C")
            out.append(values[i])
        return out

    @property
    def resolutions(self):
        """level_count, level_dimensions ((w, h) ...), level_downsamples, level_tile_sizes."""
        return {
            "level_count": len(self._levels),
            "level_dimensions": tuple((w, h) for w, h, *_ in self._levels),
            "level_downsamples": tuple(ds for _, _, ds, _, _ in self._levels),
            "level_tile_sizes": tuple((tw, th) for *_, tw, th in self._levels),
        }

    # -- metadata --

    def _properties(self):
        if self._props is None:
            self._props = self._slide.properties()
        return self._props

    @property
    def properties(self):
        """The slide's properties with OpenSlide's names (a dict copy)."""
        return dict(self._properties())

    @property
    def vendor(self):
        return self._slide.vendor

    @property
    def raw_metadata(self):
        """The first directory's ImageDescription ('' when it has none)."""
        return self._properties().get("tiff.ImageDescription", "")

    @property
    def metadata(self):
        """{'cucim': cuCIM's summary, 'fovea': the library's description, and one dict per
        property prefix ('openslide', 'tiff', 'aperio', 'ome', ...) without the prefix}."""
        if self._meta is None:
            self._meta = json.loads(self._slide.metadata_json)
        out = {
            "cucim": {
                "path": self._path,
                "shape": self.shape,
                "ndim": 3,
                "dims": "YXC",
                "coord_sys": "LPS",
                "spacing": self.spacing(),
                "spacing_units": self.spacing_units(),
                "origin": self.origin,
                "direction": self.direction,
                "typestr": "|u1",
                "dtype": {"code": 1, "bits": 8, "lanes": 1},
                "channel_names": self.channel_names,
                "resolutions": json.loads(json.dumps(self.resolutions)),
                "associated_images": sorted(self.associated_images),
            },
            "fovea": json.loads(json.dumps(self._meta)),
        }
        for k, v in self._properties().items():
            prefix, dot, rest = k.partition(".")
            if dot and prefix not in ("cucim", "fovea"):
                out.setdefault(prefix, {})[rest] = v
        return out

    @property
    def associated_images(self):
        """Names of the associated images ('thumbnail', 'label', 'macro' ...), a set."""
        return set(self._slide.associated_names())

    def associated_image(self, name="", device="cpu"):
        """An associated image as a uint8 (H, W, 3) array (KeyError for an unknown name);
        device as read_region's."""
        device = _device_arg(device)
        return _to_device(self._slide.read_associated(name, "rgb"), device, "associated_image")

    # -- pixels --

    def read_region(self, location=None, size=None, level=0, num_workers=0, batch_size=1, drop_last=False,
                    prefetch_factor=2, shuffle=False, seed=0, device="cpu", buf=None, shm_name="", *,
                    pixel_format="rgb", nocache=False, **dims):
        """Pixels of a region as an (H, W, 3) uint8 array, or an iterator of regions.

        cuCIM's parameters in cuCIM's order. location: (x, y) of the top-left pixel in
        level-0 coordinates (None: (0, 0)); the level's origin is floor(x / downsample),
        floor(y / downsample). size: (width, height) in pixels of `level`; None reads the
        whole level. Pixels outside the image are white. device: 'cpu' (NumPy) or
        'cuda' / 'cuda:N' (a CuPy array, or a fovea.Array without CuPy: JPEG tiles are
        decoded on the GPU with nvJPEG, other codecs on the CPU and copied, and the
        region is assembled on the GPU), also a fovea.clara.io.Device; 'cpu[name]' is
        shm_name=name. num_workers: threads reading (and CPU-decoding) the tiles (0: the
        library's pool).

        Many locations (cuCIM's batch loading): a list, tuple, iterator or integer array
        of (x, y) pairs, flattened as cuCIM does ([0, 0, 100, 0] is two locations). With
        more than one location or batch_size > 1 the result is an iterator (len() is
        the number of batches) of (N, H, W, 3) batches (N = batch_size but for a short
        last batch, dropped when drop_last), or of (H, W, 3) regions when batch_size is
        1, in order, or in the seeded shuffled order with shuffle=True; num_workers
        threads read prefetch_factor batches ahead (0 workers: read in the calling
        thread). Each item is a fresh array. Closing or dropping the iterator stops the
        workers.

        buf: an array-like to read one region into (NumPy, CuPy, torch, anything with
        the buffer protocol, __array_interface__, __cuda_array_interface__ or DLPack):
        writable, C-contiguous, holding exactly the region's values of its dtype (any
        shape), on `device`. The pixels are decoded straight into it and buf itself is
        returned. shm_name: create the POSIX shared-memory segment of that name
        (multiprocessing.shared_memory; FileExistsError when it exists), read the region
        into it and return an array over it; the segment is the caller's to unlink.
        cuCIM accepts both but ignores them ("not supported yet"); these are what its
        documentation says they will do.

        Single-letter keywords (cuCIM's dimension indices such as C=0) are checked as
        cuCIM checks them and ignored, as cuCIM does. Extensions: pixel_format 'rgba'
        (H, W, 4; outside the image all zero) or 'native' (the file's samples and dtype,
        e.g. uint16 gray, background 0); nocache=True bypasses the tile cache.
        """
        device, dev_shm = _cucim.device_arg(device)
        _check_dims(dims)
        if shm_name is None:
            shm_name = ""
        if dev_shm and shm_name and dev_shm != shm_name:
            raise ValueError(f"shm_name {shm_name!r} differs from the device's {dev_shm!r}")
        shm_name = shm_name or dev_shm
        if device != "cpu":
            _gpu_check(device, "read_region")
        lv = self._level_arg(level)
        w, h = self._levels[lv][:2] if size is None else _pair(size, "size")
        if isinstance(num_workers, (str, Device, DeviceType)):   # fovea's old order had device 4th
            raise TypeError(f"read_region: num_workers must be an integer, not {num_workers!r} (cuCIM's order: "
                            "location, size, level, num_workers, ...; give the device as device=)")
        nw = _int(num_workers, "num_workers")
        if nw < 0:
            raise ValueError(f"num_workers = {nw} must be >= 0")
        bs = _int(batch_size, "batch_size")
        if bs < 1:
            raise ValueError(f"batch_size = {bs} must be >= 1")
        if location is None or (isinstance(location, (tuple, list)) and not location):
            location = (0, 0)   # cuCIM's default (an empty tuple)
        locs = _locations(location)
        if bs > 1 and locs is None:
            locs = _locations([_pair(location, "location")])
        if locs is not None and (bs > 1 or len(locs) > 1):
            if buf is not None or shm_name:
                raise ValueError("read_region: buf and shm_name take one region, not an iterator of them "
                                 "(many locations or batch_size > 1)")
            return self._batches(locs, (w, h), lv, nw, bs, drop_last, prefetch_factor, shuffle, seed, device,
                                 pixel_format=pixel_format, nocache=nocache, squeeze=bs == 1)
        x, y = _pair(location if locs is None else locs[0], "location")
        nw, nc = min(nw, 1 << 16), bool(nocache)

        def read(out=None):
            return self._slide.read_region(x, y, lv, w, h, pixel_format, nw, nc, device, out)

        if buf is not None and shm_name:
            raise ValueError("read_region: give buf or shm_name, not both")
        if buf is not None:
            try:
                read(buf)
            except TypeError as e:
                raise TypeError(f"read_region: buf must be an array-like: {e}") from None
            return buf
        if shm_name:
            if device != "cpu":
                raise ValueError(f"read_region: shm_name needs device='cpu' (POSIX shared memory is host "
                                 f"memory), not {device!r}")
            shape, dtype = self._region_layout(w, h, pixel_format)
            return _cucim.shm_region(read, shape, dtype, shm_name)
        arr = read()
        return arr if device == "cpu" else _from_gpu(arr)

    def _level_arg(self, level):
        lv, n = _int(level, "level"), len(self._levels)
        if not 0 <= lv < n:   # cuCIM's message first
            raise ValueError(f"'level' should be less than {n}: level {lv} is out of range (the slide has {n} levels)")
        return lv

    def _region_layout(self, w, h, pixel_format):
        """(shape, dtype) of a region read as (w, h) in pixel_format (a 0 x 0 read)."""
        probe = self._slide.read_region(0, 0, 0, 0, 0, pixel_format, 0, False, "cpu")
        return (h, w, probe.shape[2]), probe.dtype

    def _batches(self, locations, size, level=0, num_workers=0, batch_size=1, drop_last=False,
                 prefetch_factor=2, shuffle=False, seed=0, device="cpu", *, pixel_format="rgb", nocache=False,
                 squeeze=False):
        """The batch iterator of read_region for an (n, 2) int64 array of locations:
        (N, H, W, C) batches always (squeeze: (H, W, C) items of batch_size 1), for
        fovea's own loaders (fovea.torch, the demo)."""
        w, h = _pair(size, "size")
        bs, pf = _int(batch_size, "batch_size"), _int(prefetch_factor, "prefetch_factor")
        nw = _int(num_workers, "num_workers")
        if bs < 1:
            raise ValueError(f"batch_size = {bs} must be >= 1")
        if pf < 1:
            raise ValueError(f"prefetch_factor = {pf} must be >= 1")
        if nw < 0:
            raise ValueError(f"num_workers = {nw} must be >= 0")
        device = _device_arg(device)
        it = self._slide.batches(locations, self._level_arg(level), w, h, pixel_format, bs, min(nw, 1024), pf,
                                 bool(shuffle), _int(seed, "seed") & ((1 << 64) - 1), bool(drop_last),
                                 bool(nocache), device, bool(squeeze))
        return _Batches(it, device, it.__length_hint__())


def _check_dims(dims):
    """cuCIM's checks of read_region's dimension keywords (which it then ignores)."""
    for key, value in dims.items():
        if len(key) != 1:
            raise ValueError(f"Argument name for Dimension should be a single character but '{key}' is used.")
        if not key.isascii() or not key.isalpha():
            raise ValueError(f"Dimension character should be an alphabet but '{key}' is used.")
        try:
            operator.index(value)
        except TypeError:
            raise TypeError(f"read_region: dimension index {key}={value!r} must be an integer") from None


def _locations(location):
    """None for one (x, y) location; else an (n, 2) int64 array of many (cuCIM's
    flattening)."""
    if isinstance(location, (tuple, list)) and len(location) == 2 and not any(
            isinstance(v, (tuple, list)) or (hasattr(v, "__len__") and not isinstance(v, (str, bytes)))
            for v in location):
        return None
    import numpy as np
    if not isinstance(location, (tuple, list, np.ndarray)):
        location = list(location)   # an iterator or generator
    a = np.asarray(location)
    if a.dtype.kind not in "iu" and a.size:
        raise TypeError(f"locations must be integers, not {a.dtype}")
    if a.size % 2 or not a.size:
        raise ValueError(f"locations hold {a.size} values: expected (x, y) pairs")
    return a.astype(np.int64, copy=False).reshape(-1, 2)


class _Batches:
    """cuCIM's CuImageIterator: an iterator of batches (or regions) from the C loader;
    len() is the number of batches; close() (or dropping it) stops the workers."""

    def __init__(self, it, device, total):
        self._it = it
        self._device = device
        self._total = total
        self._index = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self._it is None:
            raise StopIteration
        try:
            batch = next(self._it)
        except BaseException:
            self._it = None
            raise
        self._index += 1
        return batch if self._device == "cpu" else _from_gpu(batch)

    def __len__(self):
        return self._total

    def __repr__(self):
        return f"<fovea.CuImageIterator index:{self._index}>"

    def close(self):
        if self._it is not None:
            self._it.close()
            self._it = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def open(path):  # noqa: A001 (fovea.open, as cucim's CuImage(path))
    """Open a whole-slide image: a ``CuImage``."""
    return CuImage(path)


# ---- OpenSlide (openslide-python's face) ------------------------------------------------------


class _PropertyMap(collections.abc.Mapping):
    def __init__(self, props):
        self._p = props

    def __getitem__(self, key):
        return self._p[key]

    def __iter__(self):
        return iter(self._p)

    def __len__(self):
        return len(self._p)

    def __repr__(self):
        return f"<_PropertyMap {self._p!r}>"


class _AssociatedImageMap(collections.abc.Mapping):
    """name -> PIL.Image (RGBA), decoded when looked up."""

    def __init__(self, slide):
        self._slide = slide

    def _keys(self):
        return list(self._slide.associated_names())

    def __getitem__(self, key):
        if key not in self._keys():
            raise KeyError(key)
        from PIL import Image

        return Image.fromarray(self._slide.read_associated(key, "rgba"))

    def __iter__(self):
        return iter(self._keys())

    def __len__(self):
        return len(self._keys())

    def __repr__(self):
        return f"<_AssociatedImageMap {self._keys()!r}>"


class OpenSlideCache:
    """openslide-python's ``OpenSlideCache(capacity)``. fovea has one tile cache per
    process: ``OpenSlide.set_cache`` sets its capacity (bytes) for every handle."""

    def __init__(self, capacity):
        c = _int(capacity, "capacity")
        if c < 0:
            raise ValueError(f"capacity = {capacity!r} must be >= 0")
        self._capacity = c

    def __repr__(self):
        return f"{type(self).__name__}({self._capacity!r})"


class OpenSlide:
    """A whole-slide image with openslide-python's ``OpenSlide`` interface.

    read_region and associated images return PIL images in RGBA (not
    premultiplied; outside the image fully transparent). Errors stick, as in
    OpenSlide: once a read fails because of the file, every later read fails.
    """

    def __init__(self, filename):
        self._filename = filename
        self._slide = _fovea.Slide(filename)
        self._levels = self._slide.levels
        self._props = None

    def __reduce__(self):
        return (type(self), (self._filename,))

    def __repr__(self):
        return f"{type(self).__name__}({self._filename!r})"

    def to_dask(self, level=0, chunks=4096, pixel_format="rgb", device="cpu"):
        """One level as a lazy dask array (fovea.dask.slide_to_dask; needs fovea[dask])."""
        from .dask import slide_to_dask

        return slide_to_dask(self, level, chunks, pixel_format, device)

    def to_dask_pyramid(self, chunks=4096, pixel_format="rgb", device="cpu"):
        """Every level as a list of dask arrays, level 0 first (fovea.dask)."""
        from .dask import slide_to_dask_pyramid

        return slide_to_dask_pyramid(self, chunks, pixel_format, device)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @classmethod
    def detect_format(cls, filename):
        """The format vendor of the file ('aperio', 'generic-tiff', ...), or None when
        fovea cannot read it."""
        return _fovea.slide_detect_vendor(filename)

    def close(self):
        """Close the slide (later reads raise ValueError)."""
        self._slide.close()

    @property
    def level_count(self):
        return len(self._levels)

    @property
    def level_dimensions(self):
        return tuple((w, h) for w, h, *_ in self._levels)

    @property
    def dimensions(self):
        return self.level_dimensions[0]

    @property
    def level_downsamples(self):
        return tuple(ds for _, _, ds, _, _ in self._levels)

    @property
    def properties(self):
        if self._props is None:
            self._props = self._slide.properties()
        return _PropertyMap(self._props)

    @property
    def associated_images(self):
        return _AssociatedImageMap(self._slide)

    @property
    def color_profile(self):
        """None: fovea does not read ICC profiles yet."""
        return None

    def get_best_level_for_downsample(self, downsample):
        """OpenSlide's rule: the last level whose downsample is <= downsample
        (level 0 below the first downsample)."""
        ds = self.level_downsamples
        if downsample < ds[0]:
            return 0
        for i in range(1, len(ds)):
            if downsample < ds[i]:
                return i - 1
        return len(ds) - 1

    def read_region(self, location, level, size):
        """A PIL.Image (RGBA) of the region: location (x, y) in level-0 pixels, size
        (width, height) in pixels of level."""
        from PIL import Image

        x, y = _pair(location, "location")
        lv = _int(level, "level")
        w, h = _pair(size, "size")
        if w < 0 or h < 0:
            raise ValueError(f"negative width ({w}) or negative height ({h}) not allowed")
        if not 0 <= lv < len(self._levels):
            raise ValueError(f"level {lv} is out of range (the slide has {len(self._levels)} levels)")
        arr = self._slide.read_region(x, y, lv, w, h, "rgba")
        if w == 0 or h == 0:
            return Image.new("RGBA", (w, h))
        return Image.fromarray(arr)

    def get_thumbnail(self, size):
        """An RGB PIL.Image no larger than size (width, height), sized as PIL's
        Image.thumbnail sizes it (the aspect ratio kept; never enlarged): the best
        level for the downsample, composed on the background colour (as
        openslide-python), then resized by the area mean
        (fovea.skimage.transform.resize_local_mean: each thumbnail pixel the mean
        of the level pixels it covers, weighted by the overlap; rounded to uint8).
        openslide-python resizes with PIL's Lanczos filter instead: the two differ
        by about one grey level on average (docs/transform.md measures it)."""
        from PIL import Image

        downsample = max(dim / thumb for dim, thumb in zip(self.dimensions, size, strict=True))
        level = self.get_best_level_for_downsample(downsample)
        tile = self.read_region((0, 0), level, self.level_dimensions[level])
        bg_color = "#" + self.properties.get(PROPERTY_NAME_BACKGROUND_COLOR, "ffffff")
        thumb = Image.new("RGB", tile.size, bg_color)
        thumb.paste(tile, None, tile)
        final = _thumbnail_size(thumb.size, size)
        if final is None or final == thumb.size:
            return thumb
        return Image.fromarray(_area_resize_u8(thumb, final))

    def set_cache(self, cache):
        """Use an OpenSlideCache: sets the capacity of fovea's process-wide tile cache."""
        try:
            cap = cache._capacity
        except AttributeError as exc:
            raise TypeError("Not a cache object") from exc
        with _cache_state.lock:
            _cache_state.capacity = cap
            if _fovea.cache_type() == "nocache":
                _fovea.cache_configure("per_process", cap)
                _cache_state.reset()
                _export_shm_name("per_process")
            else:
                _fovea.cache_set_capacity(cap)


def _thumbnail_size(have, size):
    """PIL's Image.thumbnail size: (width, height) within size with have's aspect
    ratio (the integer nearest in aspect of floor / ceil, at least 1), or None when
    have fits already."""
    x, y = (math.floor(v) for v in size)
    width, height = have
    if x >= width and y >= height:
        return None
    aspect = width / height

    def pick(number, key):
        return max(min(math.floor(number), math.ceil(number), key=key), 1)

    if x / y >= aspect:
        x = pick(y * aspect, key=lambda n: abs(aspect - n / y))
    else:
        y = pick(x / aspect, key=lambda n: 0 if n == 0 else abs(aspect - x / n))
    return x, y


def _area_resize_u8(image, size):
    """An RGB uint8 image (anything NumPy reads, (H, W, 3)) resized to size
    (width, height) by the area mean, rounded half to even."""
    import numpy as np

    from .skimage.transform import resize_local_mean

    arr = np.asarray(image)
    out = resize_local_mean(arr, (size[1], size[0]), preserve_range=True, channel_axis=-1)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def open_slide(filename):
    """openslide.open_slide: an OpenSlide for the file."""
    return OpenSlide(filename)
