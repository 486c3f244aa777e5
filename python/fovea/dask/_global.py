"""The global ops of fovea.dask: label across chunks (equal to the whole-array
labelling, numbering included), regionprops_table aggregated across chunks, and the
histogram thresholds on the whole array."""

import functools
import itertools

import numpy as np

import dask
import dask.array as da

from . import _core
from ._core import host as _host, xp_of as _xp

# ---- label -------------------------------------------------------------------------------------


def _first_pixels(lab, n):
    """The flat index of each label's first pixel (C order) in a block labelled by
    fovea.ndimage.label, whose labels 1..n are numbered in the raster order of their
    first appearance: the first pixel of a label is where the label exceeds every
    label before it (one pass, no sort). Computed with the block's own module
    (on the GPU for CuPy blocks); only the n indices come back to the host."""
    xp = _xp(lab)
    flat = lab.ravel()
    if xp is np:
        seen = np.maximum.accumulate(flat)
        first = np.flatnonzero(flat[1:] > seen[:-1]) + 1
        if flat.size and flat[0] > 0:
            first = np.concatenate([[0], first])
    else:
        # CuPy: a sort on the device (radix), then the n first indices to the host
        u, idx = xp.unique(flat, return_index=True)
        first = idx[u > 0]
    first = _host(first).astype(np.int64, copy=False)
    if first.size != n:
        raise RuntimeError(f"fovea.dask.label: a block's labels are not numbered in raster order "
                           f"({first.size} first pixels for {n} labels)")
    return first


def _block_label_meta(block, structure, origin, shape):
    """One block's part of the labelling: its number of labels, each label's first
    pixel as a flat index of the whole array, and its labels on its faces (only the
    first indices and the faces leave the block's device)."""
    from .. import ndimage as fndi

    lab, n = fndi.label(block, structure)
    n = int(n)
    coords = np.unravel_index(_first_pixels(lab, n), lab.shape)
    glob = np.ravel_multi_index(tuple(c + o for c, o in zip(coords, origin)), shape)
    xp = _xp(lab)
    faces = [tuple(_host(xp.take(lab, i, axis=k)).astype(np.int64, copy=False) for i in (0, -1))
             for k in range(lab.ndim)]
    return n, glob, faces


def _plane(metas, grid, k, c, side, offsets):
    """The global labels of one face plane: side 1 (last) of block index c, or side 0
    (first) of block c + 1, along axis k, over the whole extent of the other axes."""
    others = [d for d in range(len(grid)) if d != k]

    def build(idx_other, depth):
        if depth == len(others):
            idx = [0] * len(grid)
            idx[k] = c
            for d, i in zip(others, idx_other):
                idx[d] = i
            idx = tuple(idx)
            face = metas[idx][2][k][side]
            return np.where(face > 0, face + offsets[idx], 0)
        parts = [build(idx_other + [i], depth + 1) for i in range(grid[others[depth]])]
        return np.concatenate(parts, axis=depth)

    return build([], 0)


def _pairs(a, b, structure, k):
    """Label pairs joined across the face between planes a (before) and b (after)
    along axis k under the connectivity structure."""
    out = []
    nd = structure.ndim
    for s in itertools.product((-1, 0, 1), repeat=nd - 1):
        idx = [1 + v for v in s]
        idx.insert(k, 2)
        if not structure[tuple(idx)]:
            continue
        sa, sb = [], []
        for v, n in zip(s, a.shape):
            sa.append(slice(max(0, -v), n - max(0, v)))
            sb.append(slice(max(0, v), n - max(0, -v)))
        pa, pb = a[tuple(sa)], b[tuple(sb)]
        m = (pa > 0) & (pb > 0)
        if m.any():
            out.append(np.stack([pa[m], pb[m]], axis=1))
    return out


def label(input, structure=None, output=None):
    """Connected components of a dask array (scipy.ndimage.label semantics), equal to
    fovea.ndimage.label on the whole array, label numbers included.

    Each block is labelled on its own; the labels that touch across block faces are
    joined (connected components of the face pairs) and numbered in the order of
    their first pixel in C order, as the whole-array labelling does. This computes
    the blocks' labels once for the bookkeeping (faces and first pixels, small);
    the returned array labels each block again when computed.
    Returns (labels as a dask array, number of labels as an int).
    """
    from .. import ndimage as fndi

    x = _core.as_dask(input)
    _core.no_output_array(output, "label")
    if structure is None:
        structure = fndi.generate_binary_structure(x.ndim, 1)
    structure = np.asarray(_host(structure), dtype=bool)
    if structure.ndim != x.ndim:
        raise RuntimeError("structure and input must have equal rank")
    if any(s != 3 for s in structure.shape):
        raise ValueError("structure dimensions must be equal to 3")
    dtype = np.dtype(output) if output is not None else np.dtype(np.intp if x.size >= 2**31 - 2 else np.int32)
    grid = x.numblocks
    starts = [np.concatenate([[0], np.cumsum(c)[:-1]]).astype(int) for c in x.chunks]
    blocks = x.to_delayed()
    metas_d = {}
    for idx in np.ndindex(*grid):
        origin = tuple(int(starts[d][i]) for d, i in enumerate(idx))
        metas_d[idx] = dask.delayed(_block_label_meta)(blocks[idx], structure, origin, x.shape)
    keys = list(metas_d)
    vals = dask.compute(*[metas_d[k] for k in keys])
    metas = dict(zip(keys, vals))
    offsets, total = {}, 0
    for idx in keys:
        offsets[idx] = total
        total += metas[idx][0]
    pairs = []
    for k in range(x.ndim):
        for c in range(grid[k] - 1):
            a = _plane(metas, grid, k, c, 1, offsets)
            b = _plane(metas, grid, k, c + 1, 0, offsets)
            pairs += _pairs(a, b, structure, k)
    first = np.empty(total + 1, np.int64)
    first[0] = -1
    for idx in keys:
        n, glob, _ = metas[idx]
        first[offsets[idx] + 1:offsets[idx] + n + 1] = glob
    comp = np.arange(total + 1)
    if pairs:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components
        p = np.concatenate(pairs)
        g = coo_matrix((np.ones(len(p), np.int8), (p[:, 0], p[:, 1])), shape=(total + 1, total + 1))
        _, comp = connected_components(g, directed=False)
        comp = comp.astype(np.int64)
    # number the components by their first pixel, as the whole-array labelling does
    ncomp = int(comp.max()) + 1 if total else 1
    cfirst = np.full(ncomp, np.iinfo(np.int64).max)
    np.minimum.at(cfirst, comp[1:], first[1:])
    cfirst[comp[0]] = -1
    order = np.argsort(cfirst, kind="stable")
    rank = np.empty(ncomp, np.int64)
    rank[order] = np.arange(ncomp)
    lut = rank[comp]
    n_labels = ncomp - 1
    if n_labels and np.iinfo(dtype).max < n_labels:
        raise RuntimeError("insufficient bit-depth in requested output type")
    out_blocks = np.empty(grid, dtype=object)
    meta = x._meta
    for idx in keys:
        # each block gets only its own labels' slice of the table (0 stays 0): the
        # graph grows with the number of labels once, not once per block
        part = lut[offsets[idx]:offsets[idx] + metas[idx][0] + 1].astype(dtype)
        part[0] = 0
        out_blocks[idx] = da.from_delayed(
            dask.delayed(_relabel)(blocks[idx], structure, part),
            shape=tuple(x.chunks[d][i] for d, i in enumerate(idx)), dtype=dtype,
            meta=meta.astype(dtype) if hasattr(meta, "astype") else None)
    return da.block(out_blocks.tolist()), n_labels


def _relabel(block, structure, part):
    """The block labelled again, its labels 0..n mapped through part (its slice of
    the global numbering, on the block's device)."""
    from .. import ndimage as fndi

    lab, _ = fndi.label(block, structure)
    xp = _xp(lab)
    return xp.asarray(part)[lab]


# ---- regionprops_table ---------------------------------------------------------------------------

_PROPS = ("label", "area", "num_pixels", "bbox", "centroid", "intensity_mean", "intensity_min", "intensity_max")


def _block_stats(lab, inten, origin):
    lab = _host(lab).astype(np.int64, copy=False)
    nd = lab.ndim
    flat = lab.ravel()
    sel = flat > 0
    lbl = flat[sel]
    if not lbl.size:
        return {}
    u, inv = np.unique(lbl, return_inverse=True)
    st = {"label": u, "count": np.bincount(inv).astype(np.int64)}
    coords = np.unravel_index(np.flatnonzero(sel), lab.shape)
    order = np.argsort(inv, kind="stable")
    starts = np.concatenate([[0], np.cumsum(st["count"])[:-1]])
    for d in range(nd):
        c = coords[d] + origin[d]
        st[f"sum{d}"] = np.bincount(inv, weights=c, minlength=len(u))
        cs = c[order]
        st[f"min{d}"] = np.minimum.reduceat(cs, starts)
        st[f"max{d}"] = np.maximum.reduceat(cs, starts)
    if inten is not None:
        v = _host(inten).reshape(-1)[sel].astype(np.float64)
        st["isum"] = np.bincount(inv, weights=v, minlength=len(u))
        vs = v[order]
        st["imin"] = np.minimum.reduceat(vs, starts)
        st["imax"] = np.maximum.reduceat(vs, starts)
    return st


def regionprops_table(label_image, intensity_image=None, properties=("label", "bbox")):
    """skimage.measure.regionprops_table over a labelled dask array, aggregated across
    chunks (one pass; partial sums, minima and maxima per block). properties: any of
    label, area, num_pixels, bbox, centroid, intensity_mean, intensity_min,
    intensity_max (the others need a region's pixels together: use
    fovea.skimage.measure.regionprops_table on the whole array). Returns a dict of
    NumPy columns as scikit-image does; sums are accumulated per block, so centroids
    and means equal the whole-array ones to float rounding."""
    props = list(properties)
    bad = [p for p in props if p not in _PROPS]
    if bad:
        raise ValueError(f"fovea.dask.regionprops_table: property {bad[0]!r} is not aggregated across chunks; "
                         f"supported: {', '.join(_PROPS)}")
    lab = _core.as_dask(label_image, "label_image")
    if not np.issubdtype(lab.dtype, np.integer):
        raise TypeError("Non-integer image types are ambiguous")
    need_i = any(p.startswith("intensity") for p in props)
    inten = None
    if need_i:
        if intensity_image is None:
            raise AttributeError("intensity_image is required for intensity properties")
        inten = _core.as_dask(intensity_image, "intensity_image")
        if inten.shape[:lab.ndim] != lab.shape or inten.ndim != lab.ndim:
            raise ValueError("Label and intensity image shapes must match")
        inten = inten.rechunk(lab.chunks)
    starts = [np.concatenate([[0], np.cumsum(c)[:-1]]).astype(int) for c in lab.chunks]
    lb = lab.to_delayed()
    ib = inten.to_delayed() if inten is not None else None
    parts = []
    for idx in np.ndindex(*lab.numblocks):
        origin = tuple(int(starts[d][i]) for d, i in enumerate(idx))
        parts.append(dask.delayed(_block_stats)(lb[idx], ib[idx] if ib is not None else None, origin))
    parts = [p for p in dask.compute(*parts) if p]
    nd = lab.ndim
    if not parts:
        labels = np.zeros(0, np.int64)
        agg = {}
    else:
        labels = np.unique(np.concatenate([p["label"] for p in parts]))
        agg = {}
        for key, op, init in [("count", np.add, 0)] + \
                [(f"sum{d}", np.add, 0.0) for d in range(nd)] + \
                [(f"min{d}", np.minimum, np.iinfo(np.int64).max) for d in range(nd)] + \
                [(f"max{d}", np.maximum, -1) for d in range(nd)] + \
                ([("isum", np.add, 0.0), ("imin", np.minimum, np.inf), ("imax", np.maximum, -np.inf)]
                 if inten is not None else []):
            acc = np.full(len(labels), init, dtype=np.float64 if isinstance(init, float) else np.int64)
            for p in parts:
                op.at(acc, np.searchsorted(labels, p["label"]), p[key])
            agg[key] = acc
    out = {}
    cnt = agg.get("count", np.zeros(0, np.int64))
    for p in props:
        if p == "label":
            out["label"] = labels.astype(np.int64)
        elif p in ("area", "num_pixels"):
            out[p] = cnt.astype(np.float64) if p == "area" else cnt.astype(np.int64)
        elif p == "bbox":
            for d in range(nd):
                out[f"bbox-{d}"] = agg.get(f"min{d}", np.zeros(0, np.int64))
            for d in range(nd):
                out[f"bbox-{d + nd}"] = agg.get(f"max{d}", np.zeros(0, np.int64)) + 1
        elif p == "centroid":
            for d in range(nd):
                out[f"centroid-{d}"] = agg.get(f"sum{d}", np.zeros(0)) / np.maximum(cnt, 1)
        elif p == "intensity_mean":
            out[p] = agg["isum"] / cnt if len(cnt) else np.zeros(0)
        elif p == "intensity_min":
            out[p] = agg["imin"] if len(cnt) else np.zeros(0)
        elif p == "intensity_max":
            out[p] = agg["imax"] if len(cnt) else np.zeros(0)
    return out


# ---- thresholds ------------------------------------------------------------------------------------


def _block_hist(block, lo, hi, edges):
    b = _host(block).ravel()
    if edges is None:
        return np.bincount((b.astype(np.int64) - lo), minlength=hi - lo + 1)
    return np.histogram(b, bins=edges, range=(edges[0], edges[-1]))[0]


def histogram(image, nbins=256):
    """scikit-image's histogram (source_range='image') of a whole dask array: (counts,
    bin centers), equal to skimage.exposure.histogram on the whole array (integers: one
    bin per value from the minimum to the maximum; floats: nbins bins)."""
    x = _core.as_dask(image)
    return _histogram(x, nbins, *_range(x))


def _range(x):
    """The whole array's minimum and maximum, as NumPy scalars of its dtype."""
    return tuple(_host(v)[()] for v in dask.compute(x.min(), x.max()))


def _histogram(x, nbins, lo, hi):
    integer = np.issubdtype(x.dtype, np.integer)
    if integer:
        lo, hi = int(lo), int(hi)
        edges = None
        centers = np.arange(lo, hi + 1)
    else:
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise ValueError(f"autodetected hist_range of [{lo}, {hi}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.histogram_bin_edges(np.array([lo, hi], dtype=x.dtype), bins=nbins, range=(lo, hi))
        centers = (edges[:-1] + edges[1:]) / 2.0
    parts = [dask.delayed(_block_hist)(b, lo, hi, edges) for b in x.to_delayed().ravel()]
    counts = functools.reduce(np.add, dask.compute(*parts))
    return counts, centers


def _hist_threshold(name):
    def threshold(image, nbins=256, **kwargs):
        from ..skimage import filters

        x = _core.as_dask(image)
        lo, hi = _range(x)
        if lo == hi:
            return lo.item()
        return getattr(filters, name)(hist=_histogram(x, nbins, lo, hi), **kwargs)

    threshold.__name__ = name
    threshold.__doc__ = (f"skimage.filters.{name} of a whole dask array, from its histogram computed "
                         f"blockwise (fovea.dask.histogram): equal to the whole-array call.")
    return threshold


threshold_otsu = _hist_threshold("threshold_otsu")
threshold_yen = _hist_threshold("threshold_yen")
threshold_isodata = _hist_threshold("threshold_isodata")
threshold_minimum = _hist_threshold("threshold_minimum")
threshold_multiotsu = _hist_threshold("threshold_multiotsu")
