"""The blockwise machinery of fovea.dask: overlap depths and boundaries from each
op's parameters, so that a blockwise call equals the whole-array call.

How exactness is reached: a local op's output pixel depends on the input within a
fixed reach (a filter's radius, a footprint's half size times the repeats). Blocks are
extended by that reach with their neighbours' pixels (dask's ``map_overlap``), the op
runs on each extended block, and the extension is cut off again. At the array's own
edges nothing is added (``boundary="none"``): the op itself sees the true edge and
applies its ``mode`` there exactly as on the whole array. Only the wrapping modes
(``wrap``, ``grid-wrap``) take their pixels from the far side, which dask's
``boundary="periodic"`` supplies. Every output pixel is then computed from the same
input pixels in the same order as in the whole-array call: equal bit for bit. The
exception is the uniform (box) filters, which keep running sums along a line: their
sums start at the block's edge, so they equal the whole-array result to float
rounding (a few units in the last place). Chunks smaller than the depth are merged by dask first (``allow_rechunk``).
"""

import numbers
import threading

import numpy as np

import dask.array as da

_WRAP = ("wrap", "grid-wrap")


def is_cupy(a):
    """Whether a (a block, or a dask array's _meta) is a CuPy array."""
    return type(a).__module__.split(".")[0] == "cupy"


def xp_of(a):
    """The array module of a block: cupy for CuPy arrays, else numpy."""
    if is_cupy(a):
        import cupy
        return cupy
    return np


def host(a):
    """a as a NumPy array (CuPy arrays copied explicitly: CuPy forbids np.asarray)."""
    return a.get() if is_cupy(a) else np.asarray(a)


def shape_of(a):
    """The shape of an array-like (a CuPy footprint or weights too, without copying it)."""
    return tuple(a.shape) if hasattr(a, "shape") else np.shape(a)


def as_dask(x, what="input"):
    """x as a dask array (NumPy / CuPy arrays become one-chunk dask arrays)."""
    if isinstance(x, da.Array):
        return x
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return da.from_array(x, chunks=x.shape or (), asarray=False)
    raise TypeError(f"{what} must be a dask array or an array (NumPy, CuPy), not {type(x).__name__}")


def per_axis(value, ndim, what, axes=None):
    """A scalar or a sequence of one value per axis in `axes` (default: all), as a
    list of ndim values (0 for the axes not in `axes`)."""
    axes = tuple(range(ndim)) if axes is None else tuple(a % ndim for a in axes)
    if isinstance(value, (numbers.Number, np.generic)) or np.ndim(value) == 0:
        vals = [value] * len(axes)
    else:
        vals = list(value)
        if len(vals) != len(axes):
            raise RuntimeError(f"{what}: a sequence of length {len(vals)} for {len(axes)} axes")
    out = [0] * ndim
    for a, v in zip(axes, vals):
        out[a] = v
    return out


def reach(size, origin=0):
    """How far a window of `size` points with scipy's `origin` reaches from its
    output pixel, on the farther side."""
    size, origin = int(size), int(origin)
    left = size // 2 + origin
    right = size - 1 - size // 2 - origin
    return max(left, right, 0)


def footprint_reach(ndim, size=None, footprint=None, origin=0, axes=None):
    """Per-axis reach of a filter given by size or footprint (scipy's rules)."""
    axes_t = tuple(range(ndim)) if axes is None else tuple(a % ndim for a in axes)
    if footprint is not None:
        fshape = list(shape_of(footprint))
        shape = fshape if len(fshape) == len(axes_t) else fshape[-len(axes_t):]
    elif size is not None:
        shape = per_axis(size, len(axes_t), "size")
    else:
        raise RuntimeError("no footprint or filter size provided")
    origins = per_axis(origin, len(axes_t), "origin")
    out = [0] * ndim
    for a, s, o in zip(axes_t, shape, origins):
        out[a] = reach(s, o)
    return out


def _boundary(mode, ndim):
    modes = per_axis(mode, ndim, "mode") if not isinstance(mode, str) else [mode] * ndim
    return {a: ("periodic" if m in _WRAP else "none") for a, m in enumerate(modes)}


def _probe_shape(x, depth):
    """A small sample shape for finding the output type: each axis as long as its
    chunks allow, at most 2 * depth + 3; short axes (channels) whole."""
    return tuple(n if n <= 8 else max(1, min(n, 2 * int(d) + 3)) for n, d in zip(x.shape, depth))


def output_meta(fn, arrays, depth):
    """The op's result on a small zero sample of the inputs' kind (NumPy or CuPy):
    its dtype and ndim give dask the output's type."""
    samples = []
    for a in arrays:
        meta = a._meta
        xp = type(meta).__module__.split(".")[0]
        shape = _probe_shape(a, depth)
        if xp == "cupy":
            import cupy
            samples.append(cupy.zeros(shape, a.dtype))
        else:
            samples.append(np.zeros(shape, a.dtype))
    r = fn(*samples)
    return r[(slice(0, 0),) * r.ndim] if hasattr(r, "ndim") else r


class OwnStream:
    """fn run, for CuPy blocks, on a non-blocking CUDA stream of the worker thread's
    own (ordered after the work already queued on the caller's stream, and waited for
    before returning). On dask-cuda workers the blocks that other workers ask for
    are copied out on the default stream: with the op on its own stream those copies
    no longer queue behind a long op (a Richardson-Lucy chunk takes a third of a
    second), so neighbours get their overlaps at once. NumPy blocks: fn as is."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *blocks):
        if not any(is_cupy(b) for b in blocks):
            return self.fn(*blocks)
        import cupy
        stream = _thread_stream(cupy)
        stream.wait_event(cupy.cuda.get_current_stream().record())
        with stream:
            out = self.fn(*blocks)
        stream.synchronize()
        return out


_STREAMS = threading.local()


def _thread_stream(cupy):
    dev = cupy.cuda.runtime.getDevice()
    streams = getattr(_STREAMS, "by_device", None)
    if streams is None:
        streams = _STREAMS.by_device = {}
    if dev not in streams:
        streams[dev] = cupy.cuda.Stream(non_blocking=True)
    return streams[dev]


# fovea.dask's own overlap (_halo) where it applies; False: dask's map_overlap always
# (bench/multigpu.py --overlap dask compares the two)
OWN_OVERLAP = True


def _distributed():
    """Whether dask computes on a distributed client of several workers now (chunks
    on different machines or GPUs)."""
    try:
        from distributed import default_client
        return len(default_client().scheduler_info().get("workers", ())) > 1
    except (ImportError, ValueError):
        return False


def map_overlap(fn, arrays, depth, mode="reflect", boundary=None):
    """fn over the blocks of arrays (dask arrays of one shape and chunking), each
    extended by depth (per axis) and trimmed back; boundary from mode, unless a dask
    boundary (one for every axis) is given."""
    x = arrays[0]
    ndim = x.ndim
    fn = OwnStream(fn)
    depth = [int(d) for d in depth]
    arrays = [x] + [a.rechunk(x.chunks) if a.chunks != x.chunks else a for a in arrays[1:]]
    arrays, depth = whole_short_axes(arrays, depth)
    meta = output_meta(fn, arrays, depth)
    if meta.ndim != ndim:
        raise ValueError("an op that changes the number of dimensions cannot run blockwise with overlap")
    if not any(depth):
        return da.map_blocks(fn, *arrays, dtype=meta.dtype, meta=meta)
    bnd = _boundary(mode, ndim) if boundary is None else {a: boundary for a in range(ndim)}
    if OWN_OVERLAP and all(bnd[k] in ("none", "periodic") and min(x.chunks[k]) >= depth[k] for k in range(ndim)):
        from . import _halo   # three tasks a chunk (dask's own: about thirteen in 2-d)
        return _halo.map_overlap(fn, arrays, depth, [bnd[k] for k in range(ndim)], meta,
                                 split=_distributed())
    return da.map_overlap(fn, *arrays, depth={a: d for a, d in enumerate(depth)}, boundary=bnd, trim=True,
                          allow_rechunk=True, dtype=meta.dtype, meta=meta)


def whole_short_axes(arrays, depth):
    """Axes no longer than their overlap are kept in one chunk with no overlap: the op
    then sees the whole axis (and its own mode at both ends), which is exact; dask
    cannot overlap by more than an axis's length."""
    x = arrays[0]
    short = {a: -1 for a, d in enumerate(depth) if d and d >= x.shape[a]}
    if not short:
        return arrays, depth
    depth = [0 if a in short else d for a, d in enumerate(depth)]
    return [a.rechunk(short) for a in arrays], depth


def no_output_array(output, name):
    if output is not None and not isinstance(output, (str, type, np.dtype)):
        raise TypeError(f"{name}: output= an array is not supported on dask arrays (give a dtype, "
                        f"or store the result with .store / .to_zarr)")
