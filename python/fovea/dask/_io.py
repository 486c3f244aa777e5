"""Sources and sinks of fovea.dask: slides (every level, through the shared tile
cache), TIFF / OME-TIFF / zarr stacks, zarr and OME-Zarr (NGFF 0.4) output."""

import functools
import glob
import math
import os
import threading

import numpy as np

import dask
import dask.array as da

from .. import _fovea
from . import _core
from .._slide import _device_arg, _from_gpu

# ---- slides ----------------------------------------------------------------------------------

_handles = {}
_handles_lock = threading.Lock()


def _open(path):
    """This process's handle of path (one per process: the tile cache is shared by all
    of a process's reads; a handle reads from many threads at once)."""
    with _handles_lock:
        h = _handles.get(path)
        if h is None:
            h = _handles[path] = _fovea.Slide(path)
        return h


def _level0(lx, ds):
    """The level-0 coordinate whose level origin floor(x / ds) is lx (as the reader
    computes it)."""
    x = math.ceil(lx * ds)
    while x > 0 and math.floor((x - 1) / ds) >= lx:
        x -= 1
    while math.floor(x / ds) < lx:
        x += 1
    return x


def _read_block(path, level, ds, pixel_format, device, block_info=None):
    (y0, y1), (x0, x1) = block_info[None]["array-location"][:2]
    h = _open(path)
    arr = h.read_region(_level0(x0, ds), _level0(y0, ds), level, x1 - x0, y1 - y0, pixel_format, 0, False,
                        device)
    return arr if device == "cpu" else _from_gpu(arr)


def _chunks2(chunks, shape):
    if isinstance(chunks, int):
        chunks = (chunks, chunks)
    if len(chunks) != 2:
        raise ValueError(f"chunks must be an int or a (height, width) pair, got {chunks!r}")
    for c in chunks:
        if not isinstance(c, (int, np.integer)) or c < 1:
            raise ValueError(f"chunks must be positive integers, got {chunks!r}")
    return da.core.normalize_chunks(tuple(int(c) for c in chunks), shape[:2])


def slide_to_dask(slide, level=0, chunks=4096, pixel_format="rgb", device="cpu"):
    """One level of a slide as a lazy (H, W, C) dask array read with read_region.

    slide: a fovea.CuImage / fovea.OpenSlide or a path. chunks: the block size in
    pixels (int or (height, width)); blocks are read through this process's handle
    and tile cache, so the graph pickles as the path and runs on distributed workers.
    pixel_format: 'rgb' (uint8, 3 channels), 'rgba' or 'native' (the file's samples).
    device: 'cpu' (NumPy blocks) or 'cuda' / 'cuda:N' (CuPy blocks, nvJPEG decoding), also a
    fovea.Device.
    """
    path = slide if isinstance(slide, (str, os.PathLike)) else slide._slide.path
    path = os.fspath(path)
    h = _open(path)
    levels = h.levels
    if not isinstance(level, (int, np.integer)) or not 0 <= level < len(levels):
        raise ValueError(f"level {level!r} is out of range (the slide has {len(levels)} levels)")
    w, hgt, ds = levels[level][:3]
    device = _device_arg(device)   # also cuCIM's Device objects
    probe = h.read_region(0, 0, level, 1, 1, pixel_format, 0, False, "cpu")
    shape = (hgt, w, probe.shape[2])
    chunks = _chunks2(chunks, shape) + ((shape[2],),)
    if device == "cpu":
        meta = np.empty((0, 0, 0), probe.dtype)
    else:
        import cupy
        meta = cupy.empty((0, 0, 0), probe.dtype)
    fn = functools.partial(_read_block, path, int(level), float(ds), pixel_format, str(device))
    name = f"fovea-slide-{dask.base.tokenize(path, os.stat(path).st_mtime_ns, level, pixel_format, device, chunks)}"
    return da.map_blocks(fn, chunks=chunks, dtype=probe.dtype, meta=meta, name=name)


def slide_to_dask_pyramid(slide, chunks=4096, pixel_format="rgb", device="cpu"):
    """Every level of a slide as a list of dask arrays (level 0 first), for napari's
    multiscale images or a pyramid written to OME-Zarr."""
    path = slide if isinstance(slide, (str, os.PathLike)) else slide._slide.path
    return [slide_to_dask(path, lv, chunks, pixel_format, device) for lv in range(len(_open(os.fspath(path)).levels))]


# ---- stacks ----------------------------------------------------------------------------------

def _tiff_page(path, key):
    import tifffile
    return tifffile.imread(path, key=key)


def imread(path, chunks=None):
    """A TIFF / OME-TIFF stack, a zarr array or a list or glob of TIFF files as a dask array.

    path: a TIFF file (read lazily through tifffile's zarr view, series 0, level 0),
    a zarr store (a directory or an OME-Zarr group: its first multiscale level), or a
    glob pattern / list of 2-D or n-D TIFF files stacked along a new first axis (one
    chunk per file). chunks: rechunk to this (default: the file's own tiling).
    """
    if isinstance(path, (list, tuple)) or (isinstance(path, str) and any(c in path for c in "*?[")):
        files = sorted(glob.glob(path)) if isinstance(path, str) else [os.fspath(p) for p in path]
        if not files:
            raise FileNotFoundError(f"no files match {path!r}")
        import tifffile
        with tifffile.TiffFile(files[0]) as t:
            s = t.series[0]
            shape, dtype = tuple(s.shape), s.dtype
        parts = [da.from_delayed(dask.delayed(_tiff_page)(f, None), shape, dtype) for f in files]
        arr = da.stack(parts)
    else:
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(path)
        arr = _open_zarr_or_tiff(path)
    return arr.rechunk(chunks) if chunks is not None else arr


def _open_zarr_or_tiff(path):
    import zarr
    if os.path.isdir(path):
        node = zarr.open(path, mode="r")
        if isinstance(node, zarr.Group):
            ms = node.attrs.get("multiscales") or node.attrs.get("ome", {}).get("multiscales")
            if not ms:
                raise ValueError(f"{path}: a zarr group without OME-Zarr multiscales metadata")
            node = node[ms[0]["datasets"][0]["path"]]
        return da.from_zarr(node)
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic[:2] not in (b"II", b"MM"):
        raise ValueError(f"{path}: not a TIFF file or zarr store")
    node = _tiff_zarr(path)
    fn = functools.partial(_read_tiff_block, path)
    name = f"fovea-tiff-{dask.base.tokenize(path, os.stat(path).st_mtime_ns)}"
    return da.map_blocks(fn, chunks=da.core.normalize_chunks(node.chunks, node.shape), dtype=node.dtype,
                         meta=np.empty((0,) * len(node.shape), node.dtype), name=name)


_tiffs = {}


def _tiff_zarr(path):
    """This process's zarr view of a TIFF's first series at full resolution (tifffile's
    store holds an open file: it is opened in each process, never pickled)."""
    import tifffile
    import zarr
    with _handles_lock:
        node = _tiffs.get(path)
        if node is None:
            node = zarr.open(tifffile.imread(path, aszarr=True), mode="r")
            if isinstance(node, zarr.Group):
                node = node[sorted(node.array_keys())[0]]
            _tiffs[path] = node
        return node


def _read_tiff_block(path, block_info=None):
    loc = block_info[None]["array-location"]
    return np.asarray(_tiff_zarr(path)[tuple(slice(a, b) for a, b in loc)])


# ---- sinks -----------------------------------------------------------------------------------

def to_zarr(arr, store, *, component=None, overwrite=False, compute=True):
    """Writes a dask array to a zarr (v3) store; CuPy blocks are copied to the host."""
    arr = _host(arr)
    return da.to_zarr(arr, store, component=component, overwrite=overwrite, compute=compute)


def _host(arr):
    if _core.is_cupy(arr._meta):
        import cupy
        return arr.map_blocks(cupy.asnumpy, dtype=arr.dtype, meta=np.empty((0,) * arr.ndim, arr.dtype))
    return arr


def _halve(x, spatial):
    """One pyramid step: 2 x 2 (x 2) area mean over the spatial axes, rounded back to
    an integer dtype as the level 0 has (edges: the partial windows' mean)."""
    axes = {a: 2 for a in spatial}
    pad = {a: (0, x.shape[a] % 2) for a in spatial}
    if any(p[1] for p in pad.values()):
        x = da.pad(x, [pad.get(a, (0, 0)) for a in range(x.ndim)], mode="edge")
    m = da.coarsen(np.mean, x.astype(np.float64), axes, trim_excess=True)
    if np.issubdtype(x.dtype, np.integer):
        m = da.round(m)
    return m.astype(x.dtype)


def to_ome_zarr(arr, store, *, axes=None, levels=None, scale=None, chunks=None, overwrite=False):
    """Writes a dask array as an OME-Zarr (NGFF 0.4) multiscale image: level 0 and
    `levels` halvings (default: until the largest spatial side is <= 256) of the
    spatial axes by 2 x 2 area means. axes: NGFF axis names, e.g. 'yxc' or 'zyx'
    (default: 'yx', 'zyx', 'yxc' for 3 channels last, 'czyx' ...). scale: the
    physical pixel size per spatial axis at level 0 (default 1)."""
    import zarr
    arr = _host(_as_dask(arr))
    axes = axes or _default_axes(arr)
    if len(axes) != arr.ndim:
        raise ValueError(f"axes {axes!r} do not match an array of {arr.ndim} dimensions")
    types = {"c": "channel", "t": "time", "x": "space", "y": "space", "z": "space"}
    if any(a not in types for a in axes):
        raise ValueError(f"axes must be letters of 'tczyx', got {axes!r}")
    spatial = [i for i, a in enumerate(axes) if types[a] == "space"]
    if levels is None:
        levels = 0
        side = max(arr.shape[i] for i in spatial)
        while side > 256:
            side = (side + 1) // 2
            levels += 1
    scale = [1.0] * len(spatial) if scale is None else [float(s) for s in scale]
    root = zarr.open_group(store, mode="w" if overwrite else "w-", zarr_format=2)
    datasets = []
    cur = arr if chunks is None else arr.rechunk(chunks)
    for lv in range(levels + 1):
        if lv:
            cur = _halve(cur, spatial)
        f = 2.0 ** lv
        sc = [1.0] * arr.ndim
        for i, s in zip(spatial, scale):
            sc[i] = s * f
        da.to_zarr(cur, store, component=str(lv), overwrite=overwrite, zarr_format=2)
        cur = da.from_zarr(store, component=str(lv))
        datasets.append({"path": str(lv), "coordinateTransformations": [{"type": "scale", "scale": sc}]})
    root.attrs["multiscales"] = [{
        "version": "0.4",
        "axes": [{"name": a, "type": types[a], **({"unit": "micrometer"} if types[a] == "space" else {})}
                 for a in axes],
        "datasets": datasets,
    }]
    return root


def _default_axes(arr):
    n = arr.ndim
    if n >= 3 and arr.shape[-1] in (3, 4):
        return "zyxc"[-n:] if n <= 4 else None
    return "tczyx"[-n:]


def _as_dask(x):
    from ._core import as_dask
    return as_dask(x)
