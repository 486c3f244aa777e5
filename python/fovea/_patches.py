"""Patch bookkeeping for training loaders, without torch: grids and location lists per
slide, tissue masks (Otsu in NumPy) and the per-process slide handles behind
``fovea.torch.PatchDataset`` and ``fovea.torch.PatchLoader``.

Locations are always level-0 (x, y) of a patch's top-left corner (what read_region
takes); a patch is ``patch_size`` x ``patch_size`` pixels of its level.
"""

import math
import os

import numpy as np

from . import _slide

__all__ = [
    "PatchSet",
    "grid_locations",
    "mask_fractions",
    "otsu_threshold",
    "otsu_tissue_mask",
    "read_thumbnail",
    "rgb_to_gray",
    "tissue_level",
]


# ---- tissue masks ---------------------------------------------------------------------------------


def rgb_to_gray(rgb):
    """Luma (ITU-R 601: 0.299 R + 0.587 G + 0.114 B) of an (H, W, 3+) image, as float32."""
    a = np.asarray(rgb)
    if a.ndim == 2:
        return a.astype(np.float32)
    if a.ndim != 3 or a.shape[2] < 3:
        raise ValueError(f"expected an (H, W, 3) image, got shape {a.shape}")
    a = a[..., :3].astype(np.float32)
    return a[..., 0] * 0.299 + a[..., 1] * 0.587 + a[..., 2] * 0.114


def otsu_threshold(values, bins=256, value_range=(0, 256)):
    """Otsu's threshold of values: the t that maximises the between-class variance of
    {v < t} and {v >= t} over a histogram of `bins` bins in value_range (uint8 data:
    bin edges are the integers). Returns the threshold (a float bin edge), or None
    when every value falls in one bin (no split exists)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    v = v[np.isfinite(v)]
    hist, edges = np.histogram(v, bins=bins, range=value_range)
    total = hist.sum()
    if total == 0 or np.count_nonzero(hist) < 2:
        return None
    p = hist.astype(np.float64) / total
    centers = (edges[:-1] + edges[1:]) / 2
    w0 = np.cumsum(p)                      # weight of bins [0..k]
    m = np.cumsum(p * centers)             # first moment of bins [0..k]
    mt = m[-1]
    w1 = 1.0 - w0
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mt * w0 - m) ** 2 / (w0 * w1)
    between[~np.isfinite(between)] = -1.0
    between[-1] = -1.0                     # the split must leave both classes non-empty
    k = int(np.argmax(between))
    return float(edges[k + 1])             # class 0: bins 0..k, i.e. v < edges[k + 1]


def otsu_tissue_mask(rgb, downsample=1.0, background=220.0):
    """Tissue (True) vs background glass (False) of an RGB thumbnail: pixels darker than
    Otsu's threshold on the grayscale image. A thumbnail of one gray level has no Otsu
    split: it is tissue where darker than `background`. downsample is unused (the
    signature of a tissue_mask callable)."""
    gray = rgb_to_gray(rgb)
    t = otsu_threshold(gray)
    if t is None:
        return gray < background
    return gray < t


def tissue_level(level_dimensions, min_size=512):
    """The level for a tissue mask: the smallest level whose larger side is at least
    min_size pixels (level 0 when none is)."""
    best = 0
    for i, (w, h) in enumerate(level_dimensions):
        if max(w, h) >= min_size and w * h <= level_dimensions[best][0] * level_dimensions[best][1]:
            best = i
    return best


def read_thumbnail(image, level, max_pixels=1 << 24, strip_rows=1024):
    """The whole of `level` as an RGB (H, W, 3) uint8 array and its downsample relative
    to level 0. A level of more than max_pixels pixels is read in strips and
    block-averaged by an integer factor so that the result stays near max_pixels
    (a pyramid-less slide still gets a mask without decoding it all into memory)."""
    w, h = image.resolutions["level_dimensions"][level]
    ds = float(image.resolutions["level_downsamples"][level])
    if w * h <= max_pixels:
        return image.read_region((0, 0), (w, h), level), ds
    f = math.ceil(math.sqrt(w * h / max_pixels))
    ow, oh = -(-w // f), -(-h // f)
    out = np.empty((oh, ow, 3), np.uint8)
    rows = max(f, strip_rows // f * f)
    for y in range(0, oh * f, rows):
        n = min(rows, oh * f - y)
        # level coordinates -> level-0 location (exact: see _level0)
        x0, y0 = _level0(np.array([0]), ds)[0], _level0(np.array([y]), ds)[0]
        strip = image.read_region((int(x0), int(y0)), (ow * f, n), level)   # white past the edge
        blocks = strip.reshape(n // f, f, ow, f, 3).astype(np.float32).mean(axis=(1, 3))
        out[y // f:y // f + n // f] = np.round(blocks).astype(np.uint8)
    return out, ds * f


def mask_fractions(mask, mask_downsample, locations, extent):
    """Fraction of tissue (mask True) under each patch: mask covers level 0 at
    mask_downsample; locations are level-0 (x, y) (n, 2); extent is the patch's side
    in level-0 pixels. Mask pixels the patch touches count whole; outside the mask
    counts as background. Returns float64 (n,)."""
    m = np.asarray(mask, dtype=bool)
    if m.ndim != 2:
        raise ValueError(f"a tissue mask must be 2-D, got shape {m.shape}")
    locs = np.asarray(locations, dtype=np.float64).reshape(-1, 2)
    if len(locs) == 0:
        return np.zeros(0)
    mh, mw = m.shape
    sat = np.zeros((mh + 1, mw + 1), np.int64)
    sat[1:, 1:] = np.cumsum(np.cumsum(m, axis=0, dtype=np.int64), axis=1)
    x0 = np.floor(locs[:, 0] / mask_downsample).astype(np.int64)
    y0 = np.floor(locs[:, 1] / mask_downsample).astype(np.int64)
    x1 = np.maximum(np.ceil((locs[:, 0] + extent) / mask_downsample).astype(np.int64), x0 + 1)
    y1 = np.maximum(np.ceil((locs[:, 1] + extent) / mask_downsample).astype(np.int64), y0 + 1)
    area = (x1 - x0) * (y1 - y0)
    cx0, cx1 = np.clip(x0, 0, mw), np.clip(x1, 0, mw)
    cy0, cy1 = np.clip(y0, 0, mh), np.clip(y1, 0, mh)
    inside = sat[cy1, cx1] - sat[cy0, cx1] - sat[cy1, cx0] + sat[cy0, cx0]
    return inside / area


# ---- grids -------------------------------------------------------------------------------------


def _level0(level_coords, downsample):
    """Smallest level-0 coordinates whose level origin (floor(x / downsample), as the
    reader computes it) is level_coords."""
    c = np.asarray(level_coords, dtype=np.int64)
    if downsample == 1.0:
        return c.copy()
    x = np.ceil(c * float(downsample)).astype(np.int64)
    x -= np.floor((x - 1) / downsample).astype(np.int64) >= c      # one too far
    x += np.floor(x / downsample).astype(np.int64) < c             # float rounding
    return x


def grid_locations(level_size, downsample, patch_size, stride=None):
    """Level-0 (x, y) of a grid of patches over a level of level_size (width, height):
    level positions 0, stride, 2 * stride ... for patches wholly inside the level (a
    level narrower than one patch gets the position 0, padded white by the reader).
    Row-major (y, then x). Returns int64 (n, 2)."""
    w, h = (int(v) for v in level_size)
    ps = int(patch_size)
    st = ps if stride is None else int(stride)
    if ps < 1 or st < 1:
        raise ValueError(f"patch_size ({ps}) and stride ({st}) must be >= 1")
    nx = max(0, (w - ps) // st) + 1 if w > 0 else 0
    ny = max(0, (h - ps) // st) + 1 if h > 0 else 0
    xs = _level0(np.arange(nx, dtype=np.int64) * st, downsample)
    ys = _level0(np.arange(ny, dtype=np.int64) * st, downsample)
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    return np.stack([gx.ravel(), gy.ravel()], axis=1).astype(np.int64)


def _as_locations(locs):
    a = np.asarray(locs)
    if a.size == 0:
        return np.zeros((0, 2), np.int64)
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(np.isfinite(a)):
            a = np.floor(a)
        else:
            raise TypeError(f"locations must be numbers, not {a.dtype}")
    if a.size % 2:
        raise ValueError(f"locations hold {a.size} values: expected (x, y) pairs")
    return a.astype(np.int64).reshape(-1, 2)


# ---- the patch set ----------------------------------------------------------------------------

# Handles opened by a process that later forked: never closed or freed in the child
# (their locks may have been held at fork time); the child opens its own.
_inherited = []


class PatchSet:
    """Patches over one or many slides: the torch-free core of fovea.torch.PatchDataset.

    slides: a path or a list of paths. Per slide, either a grid over `level`
    (patch_size, stride; default stride = patch_size) or, with locations, an explicit
    list of level-0 (x, y) (for one slide an (n, 2) array-like; for several a list
    with one array-like, or None for a grid, per slide). tissue_mask: None, 'otsu'
    or a callable (thumbnail_rgb, downsample) -> boolean mask of the thumbnail's shape;
    the thumbnail is the whole of mask_level (default: the smallest level at least
    512 px, see tissue_level) and downsample its factor relative to level 0. A patch
    is kept when the fraction of tissue under it is >= min_tissue.

    Slides are opened lazily, once per process (the set pickles as paths), so the set
    crosses into DataLoader workers by fork or spawn. cache: None (leave the process's
    tile cache as it is), a type string or a dict of fovea.cache() arguments. A
    'shared_memory' cache is created here, in the constructing process, and shared with
    workers (fork children inherit it; spawned ones join through FOVEA_CACHE_SHM); any
    other cache configuration is applied in every process before its first read.
    """

    def __init__(self, slides, level=0, patch_size=256, stride=None, locations=None, tissue_mask=None,
                 mask_level=None, min_tissue=0.5, pixel_format="rgb", cache=None):
        single = isinstance(slides, (str, bytes, os.PathLike))
        paths = [slides] if single else list(slides)
        if not paths:
            raise ValueError("no slides given")
        self.paths = [os.fspath(p) for p in paths]
        self.level = _slide._int(level, "level")
        self.patch_size = _slide._int(patch_size, "patch_size")
        if self.patch_size < 1:
            raise ValueError(f"patch_size = {self.patch_size} must be >= 1")
        self.stride = None if stride is None else _slide._int(stride, "stride")
        if self.stride is not None and self.stride < 1:
            raise ValueError(f"stride = {self.stride} must be >= 1")
        if pixel_format not in ("rgb", "rgba", "native"):
            raise ValueError(f"pixel_format must be 'rgb', 'rgba' or 'native', not {pixel_format!r}")
        self.pixel_format = pixel_format
        if not (tissue_mask is None or tissue_mask == "otsu" or callable(tissue_mask)):
            raise ValueError(f"tissue_mask must be None, 'otsu' or a callable, not {tissue_mask!r}")
        self.min_tissue = float(min_tissue)
        self._cache = _cache_config(cache)
        if self._cache is not None and self._cache.get("type") == "shared_memory":
            _slide.cache(**self._cache)
            self._cache = None            # workers join it; they must not make their own
        self._pid = None
        self._handles = {}
        self._cache_applied = False

        if locations is None:
            per_slide = [None] * len(self.paths)
        elif single:
            per_slide = [locations]
        else:
            per_slide = list(locations)
            if len(per_slide) != len(self.paths):
                raise ValueError(f"locations: {len(per_slide)} entries for {len(self.paths)} slides")

        self.slide_locations = []          # per slide: int64 (n, 2) level-0 (x, y)
        self.level_dimensions = []
        for s, locs in enumerate(per_slide):
            im = self.handle(s)
            res = im.resolutions
            if not 0 <= self.level < res["level_count"]:
                raise ValueError(f"level {self.level} is out of range ({self.paths[s]!r} has "
                                 f"{res['level_count']} levels)")
            ds = float(res["level_downsamples"][self.level])
            self.level_dimensions.append(tuple(res["level_dimensions"][self.level]))
            if locs is None:
                a = grid_locations(res["level_dimensions"][self.level], ds, self.patch_size, self.stride)
            else:
                a = _as_locations(locs)
            if tissue_mask is not None and len(a):
                ml = tissue_level(res["level_dimensions"]) if mask_level is None else _slide._int(
                    mask_level, "mask_level")
                if not 0 <= ml < res["level_count"]:
                    raise ValueError(f"mask_level {ml} is out of range")
                thumb, mds = read_thumbnail(im, ml)
                fn = otsu_tissue_mask if tissue_mask == "otsu" else tissue_mask
                m = np.asarray(fn(thumb, mds))
                if m.shape != thumb.shape[:2]:
                    raise ValueError(f"tissue_mask returned shape {m.shape}; the thumbnail is "
                                     f"{thumb.shape[:2]}")
                a = a[mask_fractions(m, mds, a, self.patch_size * ds) >= self.min_tissue]
            self.slide_locations.append(np.ascontiguousarray(a, dtype=np.int64))
        counts = np.array([len(a) for a in self.slide_locations], np.int64)
        self._starts = np.concatenate([[0], np.cumsum(counts)])

    # -- per-process handles --

    def __getstate__(self):
        d = self.__dict__.copy()
        d["_handles"] = {}
        d["_pid"] = None
        d["_cache_applied"] = False
        return d

    def handle(self, s):
        """The CuImage of slide s, opened once per process (after the cache is set)."""
        pid = os.getpid()
        if self._pid != pid:
            if self._handles:
                _inherited.extend(self._handles.values())
            self._handles = {}
            self._cache_applied = False
            self._pid = pid
        if not self._cache_applied:
            if self._cache is not None:
                _slide.cache(**self._cache)
            self._cache_applied = True
        h = self._handles.get(s)
        if h is None:
            h = self._handles[s] = _slide.CuImage(self.paths[s])
        return h

    # -- items --

    def __len__(self):
        return int(self._starts[-1])

    def locate(self, i):
        """(slide index, x, y) of item i (negative i counts from the end)."""
        n = len(self)
        i = _slide._int(i, "index")
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"patch index {i} is out of range ({n} patches)")
        s = int(np.searchsorted(self._starts, i, side="right") - 1)
        x, y = self.slide_locations[s][i - self._starts[s]]
        return s, int(x), int(y)

    def meta(self, s, x, y):
        return {"slide": s, "path": self.paths[s], "x": x, "y": y, "level": self.level}

    def read(self, i):
        """(patch (H, W, C) ndarray, meta dict) of item i."""
        s, x, y = self.locate(i)
        arr = self.handle(s).read_region((x, y), (self.patch_size, self.patch_size), self.level,
                                         pixel_format=self.pixel_format)
        return arr, self.meta(s, x, y)

    def batch_plan(self, batch_size, shuffle=False, seed=0, drop_last=False, interleave=4):
        """The order a batch loader reads in: a list of groups, each a list of
        (slide index, locations (n, 2) in reading order). Slides of one group are read
        at the same time and their batches interleaved. Without shuffle: one slide per
        group, in order. With shuffle: the slides in a seeded random order, each slide's
        locations shuffled, `interleave` slides per group."""
        rng = np.random.default_rng(seed) if shuffle else None
        order = list(range(len(self.paths)))
        if shuffle:
            order = [int(v) for v in rng.permutation(len(self.paths))]
        jobs = []
        for s in order:
            locs = self.slide_locations[s]
            if shuffle:
                locs = locs[rng.permutation(len(locs))]
            n = len(locs) // batch_size * batch_size if drop_last else len(locs)
            if n:
                jobs.append((s, locs[:n]))
        k = max(1, int(interleave)) if shuffle else 1
        return [jobs[i:i + k] for i in range(0, len(jobs), k)]

    def num_batches(self, batch_size, drop_last=False):
        """Batches per epoch when each slide's patches are cut into batches separately."""
        if drop_last:
            return int(sum(len(a) // batch_size for a in self.slide_locations))
        return int(sum(-(-len(a) // batch_size) for a in self.slide_locations))


def _cache_config(cache):
    if cache is None:
        return None
    if isinstance(cache, str):
        return {"type": cache}
    if isinstance(cache, dict):
        return dict(cache)
    raise TypeError(f"cache must be None, a cache type or a dict of fovea.cache() arguments, not {cache!r}")
