"""skimage.segmentation.watershed across the chunks of a dask array (fovea.dask).

Each chunk is flooded together with a margin of its neighbours' pixels (its
"extended block" E, the chunk grown by `depth` per axis), and its own pixels (its
core) are kept. The markers are one labelled array for the whole image, so a basin
has the same label in every chunk.

Which pixels are certainly right (the certificate, docs/dask.md). The flood is
skimage's priority flood: a queue ordered by (level, age), a pixel queued at its own
value raised to the level of the pixel that queues it, so levels never go down; a
pixel is labelled when queued (with watershed lines: when popped). In the whole-array
flood the pixels of E are queued, popped and labelled as in E's own flood until a
pixel r outside E queues a pixel q of E's edge (or, with watershed lines, is labelled
next to q before q is popped). r is popped at a level >= image[r]; E's flood queues q
at nu(q), the lowest flood level d of q's neighbours (with lines, pops it at d(q)),
d being the minimax path level from the seeds within E and the mask (a reconstruction
by erosion). So every edge pair with nu(q) >= image[r] (lines: d(q) >= image[r], or
r a seed) is a source of possible differences, starting at level max(image[q],
image[r]); so are seeds of E sharing a value (they share age 0, and their order then
comes from the binary heap's layout, which the rest of the array changes). With more
places to flood from, nothing is flooded later, so a difference only enters pixels
that E's flood reaches no earlier than the difference can: along a path, pixels whose
own level is at least the running maximum of the image from the source. _spread
computes where that is possible (reconstructions by erosion, with walls at the
pixels flooded earlier); every other pixel of E is certified equal to the
whole-array watershed. Proven for the CPU flood; conservative, and tight on smooth
float images with markers at their minima.

Chunks whose faces disagree with a neighbour's labels (or, until="exact", that have
uncertain pixels) are flooded again with twice the margin, up to max_rounds times.
A margin that covers the whole array is the whole-array flood.
"""

import numbers

import numpy as np

import dask.array as da
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

from . import _core
from ._core import host as _host, xp_of as _xp


def _footprint(connectivity, ndim):
    """The connectivity as a point-symmetric boolean footprint (host) and its reach."""
    from .. import ndimage as fndi

    if isinstance(connectivity, (numbers.Integral, np.integer)):
        fp = fndi.generate_binary_structure(ndim, int(connectivity))
    else:
        fp = np.asarray(_host(connectivity), dtype=bool)
        if fp.ndim != ndim:
            raise ValueError("Connectivity dimension must be same as image")
        if any(s % 2 == 0 for s in fp.shape):
            raise ValueError("Connectivity array must have an unambiguous center")
        if not np.array_equal(fp, fp[(slice(None, None, -1),) * ndim]):
            raise ValueError("fovea.dask.watershed: the connectivity footprint must be point-symmetric "
                             "(an asymmetric one is not supported across chunks)")
    return fp, [s // 2 for s in fp.shape]


def _offsets(fp):
    c = np.array(fp.shape) // 2
    return [tuple(int(v) for v in np.array(o) - c) for o in zip(*np.nonzero(fp)) if any(np.array(o) != c)]


def _shifted(shape, o):
    """Slices of the pixels q and of their neighbours q + o, both inside shape."""
    a = tuple(slice(max(0, -v), n - max(0, v)) for v, n in zip(o, shape))
    b = tuple(slice(max(0, v), n - max(0, -v)) for v, n in zip(o, shape))
    return a, b


def _uncertain(img, seeds, msk, in_e, e_sl, fp, lines):
    """The pixels of E = e_sl whose labels in E's own flood are not certified equal
    to the whole-array flood's (see the module doc), as a boolean array of E's shape.
    img, seeds, msk: the block extended by one footprint reach around E; in_e: E's
    pixels in it."""
    xp = _xp(img)
    from .. import ndimage as fndi
    from ..skimage.morphology import reconstruction

    f = img.astype(xp.float64)
    fe, me, se = f[e_sl], msk[e_sl], seeds[e_sl]
    if bool(xp.isnan(f[msk]).any()):
        return me.copy()
    # the flood levels within E: d, the level a pixel is popped at (minimax from the
    # seeds); nu, the level it is queued (labelled) at: its lowest neighbour's d
    d = reconstruction(xp.where(se, fe, xp.inf), xp.where(me, fe, xp.inf), method="erosion", footprint=fp)
    ring = fp.copy()
    ring[tuple(s // 2 for s in fp.shape)] = False
    if lines:
        lvl = d
    else:
        lvl = xp.where(se, -xp.inf, fndi.grey_erosion(d, footprint=ring, mode="constant", cval=np.inf))
    level = xp.full(f.shape, xp.inf)
    level[e_sl] = lvl
    # sources: pixels of E's edge that a pixel outside E may reach first, and the
    # lowest level they can be queued at then; seeds of E that share a value
    start = xp.full(f.shape, xp.inf)
    for o in _offsets(fp):
        a, b = _shifted(f.shape, o)
        pair = in_e[a] & ~in_e[b] & msk[a] & msk[b]
        if lines:
            bad = pair & ((level[a] >= f[b]) | seeds[b])
            at = xp.where(seeds[b], xp.minimum(f[b], level[a]), f[b])
        else:
            bad = pair & ~seeds[a] & (level[a] >= f[b])
            at = f[b]
        start[a] = xp.where(bad, xp.minimum(start[a], xp.maximum(f[a], at)), start[a])
    start = start[e_sl]
    sv = fe[se]
    u, cnt = xp.unique(sv, return_counts=True)
    if bool((cnt > 1).any()):
        start = xp.where(se & xp.isin(fe, u[cnt > 1]), xp.minimum(start, fe), start)
    src = start < xp.inf
    if not bool(src.any()):
        return src
    return _spread(start, src, fe, me, lvl, fp, ring)


def _spread(start, src, fe, me, lvl, fp, ring, rounds=32):
    """Where a difference from the sources can go: k, the least running maximum of
    the image along a path from a source (started at its level), over the pixels a
    difference can enter, those whose own flood level is at least their predecessor's
    k (a pixel flooded earlier is labelled before the difference arrives). Walls only
    ever grow, each from lower bounds of k, so stopping early is safe."""
    xp = _xp(fe)
    from .. import ndimage as fndi
    from ..skimage.morphology import reconstruction

    allowed = me | src
    for _ in range(rounds):
        k = reconstruction(start, xp.where(allowed, fe, xp.inf), method="erosion", footprint=fp)
        pred = fndi.grey_erosion(k, footprint=ring, mode="constant", cval=np.inf)
        wall = allowed & ~src & (lvl < pred)
        if not bool(wall.any()):
            break
        allowed &= ~wall
    return allowed & (k < xp.inf)


def _on(a, xp):
    """a with xp's arrays (an explicit copy between host and GPU when they differ)."""
    if _xp(a) is xp:
        return a
    return xp.asarray(a) if xp is not np else _host(a)


def _keys(name, lo, hi, idx=()):
    """The keys of chunks lo..hi-1 of array `name`, as a nested list."""
    k = len(idx)
    if k == len(lo):
        return (name,) + idx
    return [_keys(name, lo, hi, idx + (i,)) for i in range(lo[k], hi[k])]


def _assemble(nested):
    """One array from a nested list of chunks (as np.block, for NumPy or CuPy)."""
    if not isinstance(nested, list):
        return nested
    parts = [_assemble(p) for p in nested]
    xp = _xp(parts[0])
    return parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=parts[0].ndim - _depth(nested))


def _depth(nested):
    d = 0
    while isinstance(nested, list):
        nested, d = nested[0], d + 1
    return d


def _ws_block(img, mk, msk, big, e_sl, core_sl, fp, conn, lines, want):
    """Flood the extended block e_sl of E' (the chunks img, mk, msk: nested lists,
    assembled and cut to big); want "labels": the core's labels; "check": (the number
    of the core's pixels not certified, the labels on both sides of each core face)."""
    from ..skimage.segmentation import watershed

    img = _assemble(img)[big]
    xp = _xp(img)
    # markers and mask on the image's device (a host array next to CuPy chunks)
    mk = _on(_assemble(mk)[big], xp)
    msk = None if msk is None else _on(_assemble(msk)[big], xp)
    if msk is None:
        msk = xp.ones(img.shape, bool)
    else:
        msk = msk.astype(bool)
    lab = watershed(img[e_sl], mk[e_sl], connectivity=conn, mask=msk[e_sl], watershed_line=lines)
    if want == "labels":
        return lab[core_sl]
    in_e = xp.zeros(img.shape, bool)
    in_e[e_sl] = True
    seeds = (mk != 0) & msk
    unsure = int(_uncertain(img, seeds, msk, in_e, e_sl, fp, lines)[core_sl].sum())
    faces = []
    for k, s in enumerate(core_sl):
        w = fp.shape[k] // 2
        if not w:              # no neighbours across this axis's faces
            faces.append(None)
            continue
        lo = (s.start - w, s.start), (s.start, s.start + w)      # outside, inside the core (low face)
        hi = (s.stop, s.stop + w), (s.stop - w, s.stop)          # outside, inside (high face)
        sides = []
        for pair in (lo, hi):
            got = []
            for a, b in pair:
                if a < 0 or b > lab.shape[k] or b - a <= 0:
                    got.append(None)
                else:
                    sl = list(core_sl)
                    sl[k] = slice(a, b)
                    got.append(_host(lab[tuple(sl)]))
            sides.append(got)
        faces.append(sides)
    return unsure, faces


def watershed(image, markers=None, connectivity=1, offset=None, mask=None, compactness=0,
              watershed_line=False, *, depth=None, max_rounds=4, until="consistent", return_info=False):
    """skimage.segmentation.watershed of a dask array, chunk by chunk with overlap
    (docs/dask.md). markers: one labelled array of the whole image's shape (a dask,
    NumPy or CuPy array); None or a number of markers is not supported across
    chunks. connectivity: 1..ndim or a point-symmetric footprint; mask as in
    scikit-image; compactness must be 0; watershed_line as in scikit-image.

    depth: each chunk's margin per axis (an int or one per axis; default a quarter of
    the largest chunk, at least the footprint's reach). max_rounds: how many times
    chunks whose labels disagree with a neighbour's along their face are flooded
    again with twice the margin. Computes every chunk's flood once (or more, for the
    rounds) to check it, and returns a lazy dask array that floods each chunk again
    with its final margin. return_info=True: also a dict with each chunk's margin
    ("depth"), which chunks are certified exact ("certified"), "exact" (all are: the
    labels equal the whole-array watershed), "consistent" (no face disagreements
    left) and "rounds".
    """
    if markers is None or isinstance(markers, (numbers.Number, np.generic)):
        raise ValueError("fovea.dask.watershed needs markers as one labelled array of the image's shape "
                         "(markers=None or a number of markers is not supported across chunks: label "
                         "the markers of the whole array first, e.g. with fovea.dask.label)")
    if compactness:
        raise ValueError("fovea.dask.watershed: compactness > 0 is not supported across chunks")
    if offset is not None:
        raise ValueError("fovea.dask.watershed: offset is not supported across chunks (use a centred footprint)")
    if until not in ("consistent", "exact"):
        raise ValueError(f"until must be 'consistent' or 'exact', not {until!r}")
    x = _core.as_dask(image, "image")
    if x.dtype.kind not in "biuf":
        raise TypeError(f"watershed: unsupported image dtype {x.dtype}")
    mk = _core.as_dask(markers, "markers")
    if mk.shape != x.shape:
        raise ValueError(f"`markers` (shape {mk.shape}) must have same shape as `image` (shape {x.shape})")
    if mk.dtype.kind not in "biu":
        raise TypeError(f"watershed: markers must be an array of integers or bools, got {mk.dtype}")
    msk = None
    if mask is not None:
        msk = _core.as_dask(mask, "mask")
        if msk.shape != x.shape:
            raise ValueError(f"`mask` (shape {msk.shape}) must have same shape as `image` (shape {x.shape})")
    fp, reach = _footprint(connectivity, x.ndim)
    if depth is None:
        depth = [max(r, max(c) // 4) for r, c in zip(reach, x.chunks)]
    else:
        depth = [max(int(d), r) for d, r in zip(_core.per_axis(depth, x.ndim, "depth"), reach)]
    starts = [np.concatenate([[0], np.cumsum(c)]).astype(int) for c in x.chunks]
    grid = x.numblocks
    lines = bool(watershed_line)

    arrays = [None if a is None else (a if a.chunks == x.chunks else a.rechunk(x.chunks)) for a in (x, mk, msk)]
    deps = [a for a in arrays if a is not None]
    conn = int(connectivity) if isinstance(connectivity, (numbers.Integral, np.integer)) else fp
    token = tokenize(*deps, fp, conn, lines, reach)

    def task(idx, dep, want):
        """The task flooding block idx with margin dep: (function, args) with the
        input chunks as keys (nested lists of them, assembled in the task)."""
        core = [(int(starts[k][i]), int(starts[k][i + 1])) for k, i in enumerate(idx)]
        e = [(max(0, a - d), min(n, b + d)) for (a, b), d, n in zip(core, dep, x.shape)]
        e2 = [(max(0, a - r), min(n, b + r)) for (a, b), r, n in zip(e, reach, x.shape)]
        # the chunks that E and its ring touch, and where E' lies in them
        lo = [int(np.searchsorted(st, a, side="right")) - 1 for st, (a, _) in zip(starts, e2)]
        hi = [int(np.searchsorted(st, b, side="left")) for st, (_, b) in zip(starts, e2)]
        big = tuple(slice(a - int(st[i]), b - int(st[i])) for (a, b), st, i in zip(e2, starts, lo))
        e_sl = tuple(slice(a - a2, b - a2) for (a, b), (a2, _) in zip(e, e2))
        core_sl = tuple(slice(a - a1, b - a1) for (a, b), (a1, _) in zip(core, e))
        chunks = [None if a is None else _keys(a.name, lo, hi) for a in arrays]
        return (_ws_block, *chunks, big, e_sl, core_sl, fp, conn, lines, want)

    def graph(name, tasks):
        return HighLevelGraph.from_collections(name, tasks, dependencies=deps)

    keys = list(np.ndindex(*grid))
    dep = {idx: list(depth) for idx in keys}
    unsure, todo, rounds, consistent = {}, set(keys), 0, False
    checks = {}
    while True:
        name = f"fovea-watershed-check-{token}-{rounds}"
        tasks = {(name,) + idx: task(idx, dep[idx], "check") for idx in sorted(todo)}
        tasks[name] = (list, list(tasks))
        got = Delayed(name, graph(name, tasks)).compute()
        for idx, r in zip(sorted(todo), got):
            checks[idx] = r
            unsure[idx] = r[0]
        # faces where both chunks are certified may differ in the margins (which the
        # certificate does not cover): only the others count
        differ = {i for i in _disagreeing(checks, grid) if unsure[i]}
        consistent = not differ
        if rounds >= max_rounds:
            break
        todo = set()
        for idx in (keys if until == "exact" else differ):
            if not unsure[idx]:
                continue
            new = [min(2 * d, n) for d, n in zip(dep[idx], x.shape)]
            if new != dep[idx]:
                dep[idx] = new
                todo.add(idx)
        if not todo:
            break
        rounds += 1
    meta = _result_meta(x, mk, msk, conn, lines)
    name = f"fovea-watershed-{tokenize(token, sorted(dep.items()))}"
    tasks = {(name,) + idx: task(idx, dep[idx], "labels") for idx in keys}
    labels = da.Array(graph(name, tasks), name, chunks=x.chunks, dtype=meta.dtype, meta=meta)
    if not return_info:
        return labels
    info = {"depth": {i: tuple(dep[i]) for i in keys}, "uncertain": {i: unsure[i] for i in keys},
            "exact": not any(unsure.values()), "consistent": consistent, "rounds": rounds}
    return labels, info


def _disagreeing(checks, grid):
    """The blocks whose labels along a face differ from their neighbour's there."""
    bad = set()
    for idx, (_, faces) in checks.items():
        for k in range(len(grid)):
            if idx[k] + 1 >= grid[k] or faces[k] is None:
                continue
            nb = tuple(i + (d == k) for d, i in enumerate(idx))
            out_b, in_b = faces[k][1]          # idx's labels beyond / inside its high face
            out_c, in_c = checks[nb][1][k][0]  # the neighbour's beyond / inside its low face
            if out_b is None or out_c is None or not (np.array_equal(out_b, in_c) and np.array_equal(out_c, in_b)):
                bad.update((idx, nb))
    return bad


def _result_meta(x, mk, msk, conn, lines):
    """An empty array of the result's kind and dtype (the markers' dtype, as scikit-image)."""
    from ..skimage.segmentation import watershed

    shape = (1,) * x.ndim
    xp = _xp(x._meta)
    r = watershed(xp.zeros(shape, x.dtype), xp.zeros(shape, mk.dtype), connectivity=conn,
                  mask=None if msk is None else xp.ones(shape, bool), watershed_line=lines)
    return r[(slice(0, 0),) * r.ndim]
