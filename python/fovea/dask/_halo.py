"""fovea.dask's own overlap: three tasks per chunk where dask's map_overlap makes
about thirteen (2-d) or more.

dask's map_overlap cuts every neighbour's slab out in a task of its own, joins the
pieces in another and trims in a third; with chunks that a GPU filters in a
millisecond, those tasks are most of the time (bench/multigpu.py: 100,000^2
gaussian, the GPUs busy for under 1 s of 2.5 s). Here each chunk gives, in one
task, the slabs all its neighbours need from it (thin: only they travel between
workers); a second task joins a chunk with its neighbours' slabs, runs the op and
trims. The pixels each chunk sees are exactly dask's for boundary "none" (no
padding at the array's edges) and "periodic" (the far side's pixels), the two
boundaries fovea.dask's blockwise ops use; others go to dask's map_overlap.

With split=True (a distributed cluster of several workers, where chunks live on
different machines or GPUs) the slabs are exchanged axis by axis instead: a chunk
cuts its two slabs along axis k from itself extended along the axes before k, so
the corners travel inside the edges; 2 tasks per axis and chunk, each slab a key of
its own, and only what a neighbour needs travels to it (2*ndim+1 tasks a chunk,
where one key per direction would take 3^ndim)."""

import itertools

import numpy as np

import dask.array as da
from dask.highlevelgraph import HighLevelGraph
from dask.base import tokenize

from ._core import xp_of


def _directions(depth):
    """The directions s (a tuple of -1, 0, 1 per axis, not all 0) that have
    neighbours' pixels to add: no step along an axis without overlap."""
    return [s for s in itertools.product((-1, 0, 1), repeat=len(depth))
            if any(s) and all(d or not k for d, k in zip(depth, s))]


def _slabs(block, depth):
    """The parts of block that its neighbours need: for each direction s, the
    neighbour at index + s gets block[...] with the last depth[k] elements along
    axis k where s[k] = 1, the first where -1."""
    return {s: block[tuple(slice(n - d, n) if k == 1 else slice(0, d) if k == -1 else slice(None)
                           for k, d, n in zip(s, depth, block.shape))]
            for s in _directions(depth)}


def _assemble(fn, depth, sides, nin, *args):
    """args: for each input, its block then its neighbours' slabs in the order of
    _directions(depth) (None where no neighbour is); the op on the extended blocks,
    trimmed by what was added."""
    blocks = []
    per = len(args) // nin
    dirs = _directions(depth)
    for i in range(nin):
        own, *nbrs = args[i * per:(i + 1) * per]
        xp = xp_of(own)
        ndim = own.ndim
        pieces = dict(zip(dirs, nbrs))
        pieces[(0,) * ndim] = own

        def join(prefix):
            k = len(prefix)
            if k == ndim:
                return pieces.get(prefix)
            parts = [join(prefix + (v,)) for v in (-1, 0, 1)]
            parts = [p for p in parts if p is not None]
            if not parts:
                return None
            return xp.concatenate(parts, axis=k) if len(parts) > 1 else parts[0]
        blocks.append(join(()))
    return _trim(fn(*blocks), sides)


def _trim(r, sides):
    """r without what was added at each side of each axis."""
    return r[tuple(slice(lo, r.shape[k] - hi) for k, (lo, hi) in enumerate(sides))]


def _neighbour(idx, step, grid, boundary):
    """The index of the chunk at idx + step (one step per axis): wrapped along
    periodic axes, None past a non-periodic edge."""
    nb = []
    for k, (i, s) in enumerate(zip(idx, step)):
        j = i + s
        if not 0 <= j < grid[k]:
            if boundary[k] != "periodic":
                return None
            j %= grid[k]
        nb.append(j)
    return tuple(nb)


def map_overlap(fn, arrays, depth, boundary, meta, split=False):
    """fn over the chunks of arrays (one shape, one chunking, every chunk at least as
    long as its axis's depth) extended by depth per axis; boundary per axis "none"
    or "periodic". Equal to dask's map_overlap with trim=True. split: one key per
    slab (see the module's note)."""
    x = arrays[0]
    token = tokenize(fn, [a.name for a in arrays], depth, boundary)
    name = f"fovea-overlap-{token}"
    dsk = (_staged if split else _one_task_slabs)(fn, arrays, depth, boundary, name, token)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=arrays)
    return da.Array(graph, name, chunks=x.chunks, meta=meta)


def _one_task_slabs(fn, arrays, depth, boundary, name, token):
    """The graph with one task of all slabs per chunk (split=False)."""
    grid = arrays[0].numblocks
    slab_names = [f"fovea-slabs-{i}-{token}" for i in range(len(arrays))]
    dsk = {}
    for i, a in enumerate(arrays):
        for idx in np.ndindex(*grid):
            dsk[(slab_names[i],) + idx] = (_slabs, (a.name,) + idx, list(depth))
    dirs = _directions(depth)
    for idx in np.ndindex(*grid):
        args = []
        for i, a in enumerate(arrays):
            args.append((a.name,) + idx)
            for s in dirs:
                nb = _neighbour(idx, s, grid, boundary)
                # the neighbour at idx + s gives what lies towards us: its slab for -s
                args.append(None if nb is None else (dict.__getitem__, (slab_names[i],) + nb, tuple(-v for v in s)))
        dsk[(name,) + idx] = (_assemble, fn, list(depth), _sides(idx, grid, depth, boundary), len(arrays), *args)
    return dsk


def _sides(idx, grid, depth, boundary):
    """What the chunk at idx is extended by, (before, after) per axis."""
    out = []
    for k in range(len(grid)):
        wrap = boundary[k] == "periodic"
        out.append(((depth[k] if (idx[k] > 0 or wrap) else 0), (depth[k] if (idx[k] < grid[k] - 1 or wrap) else 0)))
    return out


def _extend(own, axes, received):
    """own joined, axis after axis (axes in order), with the slabs received along
    each: received[2*j], received[2*j + 1] before and after along axes[j] (None where
    nothing is)."""
    xp = xp_of(own)
    e = own
    for j, k in enumerate(axes):
        lo, hi = received[2 * j], received[2 * j + 1]
        parts = [p for p in (lo, e, hi) if p is not None]
        if len(parts) > 1:
            e = xp.concatenate(parts, axis=k)
    return e


def _axis_slab(k, side, d, axes, own, *received):
    """The slab along axis k that a neighbour gets: the first (side -1) or last (+1)
    d elements of own extended along the axes before k (axes)."""
    e = _extend(own, axes, received)
    sl = [slice(None)] * e.ndim
    sl[k] = slice(e.shape[k] - d, e.shape[k]) if side > 0 else slice(0, d)
    return e[tuple(sl)]


def _staged_assemble(fn, axes, sides, nin, *args):
    per = len(args) // nin
    blocks = [_extend(args[i * per], axes, args[i * per + 1:(i + 1) * per]) for i in range(nin)]
    return _trim(fn(*blocks), sides)


def _staged(fn, arrays, depth, boundary, name, token):
    """The graph of an exchange along one axis after the other (split=True)."""
    grid = arrays[0].numblocks
    ndim = len(grid)
    axes = [k for k in range(ndim) if depth[k]]
    unit = [tuple(int(j == k) for j in range(ndim)) for k in range(ndim)]

    def received(sname, idx, upto):
        """The keys of the slabs the chunk at idx gets along axes[:upto]: from the
        neighbour before it, its slab for side +1; from the one after, for -1."""
        out = []
        for k in axes[:upto]:
            lo = _neighbour(idx, tuple(-v for v in unit[k]), grid, boundary)
            hi = _neighbour(idx, unit[k], grid, boundary)
            out.append(None if lo is None else (sname, k, +1) + lo)
            out.append(None if hi is None else (sname, k, -1) + hi)
        return out

    snames = [f"fovea-halo-{i}-{token}" for i in range(len(arrays))]
    dsk = {}
    for a, sname in zip(arrays, snames):
        for idx in np.ndindex(*grid):
            for j, k in enumerate(axes):
                for side in (-1, +1):
                    dsk[(sname, k, side) + idx] = (_axis_slab, k, side, depth[k], axes[:j], (a.name,) + idx,
                                                 *received(sname, idx, j))
    for idx in np.ndindex(*grid):
        args = []
        for a, sname in zip(arrays, snames):
            args += [(a.name,) + idx] + received(sname, idx, len(axes))
        dsk[(name,) + idx] = (_staged_assemble, fn, axes, _sides(idx, grid, depth, boundary), len(arrays), *args)
    return dsk
