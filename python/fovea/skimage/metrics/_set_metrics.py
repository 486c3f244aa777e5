"""hausdorff_distance and hausdorff_pair (skimage.metrics.set_metrics) by
exact Euclidean distance transforms (fovea.ndimage.distance_transform_edt, on
every CPU core or on the GPU) instead of KD-trees: the distance from each
nonzero pixel of one image to the nearest nonzero pixel of the other is the
EDT of the other's complement sampled there. Both images are zero-padded to
a common shape (the nearest point always lies inside the bounding box of the
two point sets, so the padding changes nothing). Distances are the square
roots of the same integer sums as the KD-tree's, so they are equal; the mean
of 'modified' is taken in the same (raster) order.

Sparse point sets: on the host, where it is estimated cheaper than two
transforms of the whole image, an exact sweep in C (fv_nearest_points:
points sorted along their longest axis, each query walking outwards from its
place until the gap along that axis exceeds the best distance); on the GPU,
for na * nb at most the pixel count, pairwise integer squared distances in
chunks. Both give the same integer squared distances, hence equal values."""

import warnings

import numpy as np

from ... import _fovea
from ... import ndimage as fndi
from ._common import two

__all__ = ["hausdorff_distance", "hausdorff_pair"]


def _check_ndim(a, b):
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("image0 and image1 must have at least one dimension")
    if a.ndim != b.ndim:
        raise ValueError("image0 and image1 must have the same number of dimensions")


def _common_shape(a, b, xp):
    if a.ndim != b.ndim:
        raise ValueError("image0 and image1 must have the same number of dimensions")
    a = a.astype(bool, copy=False)   # nonzero (NaN too), no copy for bool input
    b = b.astype(bool, copy=False)
    if a.shape != b.shape:
        shape = tuple(max(s, t) for s, t in zip(a.shape, b.shape))
        a = xp.pad(a, [(0, s - i) for s, i in zip(shape, a.shape)])
        b = xp.pad(b, [(0, s - i) for s, i in zip(shape, b.shape)])
    return a, b


_CHUNK = 1 << 22   # pairs per chunk of the brute-force path


def _brute(a_pts, b_pts, xp, want_index=False):
    """(d_from_b, d_from_a[, nearest a per b, nearest b per a]): for each point
    of b the distance to the nearest point of a and vice versa, from integer
    squared distances; nearest indices are the first at the minimum."""
    a_pts = a_pts.astype(np.int64)
    b_pts = b_pts.astype(np.int64)
    na, nb = len(a_pts), len(b_pts)
    best_b = xp.full(nb, np.iinfo(np.int64).max, dtype=np.int64)
    arg_b = xp.zeros(nb, dtype=np.int64)
    best_a = xp.empty(na, dtype=np.int64)
    arg_a = xp.empty(na, dtype=np.int64)
    step = max(1, _CHUNK // max(nb, 1))
    for i in range(0, na, step):
        d2 = ((a_pts[i:i + step, None, :] - b_pts[None, :, :]) ** 2).sum(-1)
        k = d2.argmin(1)
        arg_a[i:i + step] = k
        best_a[i:i + step] = xp.take_along_axis(d2, k[:, None], 1)[:, 0]
        k = d2.argmin(0)
        m = xp.take_along_axis(d2, k[None, :], 0)[0]
        better = m < best_b
        best_b = xp.where(better, m, best_b)
        arg_b = xp.where(better, k + i, arg_b)
    d_b, d_a = xp.sqrt(best_b.astype(np.float64)), xp.sqrt(best_a.astype(np.float64))
    return (d_b, d_a, arg_b, arg_a) if want_index else (d_b, d_a)


def _use_brute(na, nb, size):
    return na * nb <= size


def _sweep_cost(n_src, n_q, shape):
    """Rough operation count of the sweep for n_q queries against n_src
    points in an image of shape: the points within the nearest-neighbour gap
    of the query along the longest axis."""
    size = float(np.prod(shape))
    n_src = max(n_src, 1)
    per_slab = max(1.0, n_src / max(shape))
    gap = (size / n_src) ** (1.0 / len(shape))
    return n_q * per_slab * (2 * gap + 1)


def _use_sweep(na, nb, shape):
    """The host sweep (fv_nearest_points) where it costs less than two exact
    distance transforms of the whole image (about 25 operations a pixel)."""
    if len(shape) > 8 or max(shape) >= 1 << 28:
        return False
    return _sweep_cost(na, nb, shape) + _sweep_cost(nb, na, shape) <= 25 * float(np.prod(shape))


def _sweep(src, queries, want_index=False):
    """(distance from each query to the nearest src point, its row in src or
    None), exactly, by fovea's C sweep along src's longest axis."""
    src = np.ascontiguousarray(src, dtype=np.int64)
    queries = np.ascontiguousarray(queries, dtype=np.int64)
    ax = int(np.argmax(src.max(0) - src.min(0)))
    order = None
    if ax != 0:   # argwhere's rows are sorted by axis 0 only
        order = np.argsort(src[:, ax], kind="stable")
        src = np.ascontiguousarray(src[order])
    d2, idx = _fovea.metrics_nearest_points(src, ax, queries, want_index)
    d = np.sqrt(np.asarray(d2).astype(np.float64))
    if want_index:
        idx = np.asarray(idx)
        if order is not None:
            idx = order[idx]
    return d, idx


def hausdorff_distance(image0, image1, method="standard"):
    """Hausdorff distance between the sets of nonzero pixels of the two images
    ('standard': the largest nearest-point distance either way; 'modified':
    the larger of the two mean nearest-point distances, Dubuisson and Jain
    1994). 0 when both sets are empty, inf when one is."""
    if method not in ("standard", "modified"):
        raise ValueError(f"unrecognized method {method}")
    a, b, xp, _ = two(image0, image1)
    _check_ndim(a, b)
    if xp is np:   # the points first: the sweep needs no common shape
        a_pts, b_pts = np.argwhere(a), np.argwhere(b)
        na, nb = len(a_pts), len(b_pts)
        shape = tuple(max(s, t) for s, t in zip(a.shape, b.shape))
        if na and nb and _use_sweep(na, nb, shape):
            fwd, _ = _sweep(a_pts, b_pts)
            bwd, _ = _sweep(b_pts, a_pts)
            return _combine(fwd, bwd, method)
    a, b = _common_shape(a, b, xp)
    na, nb = int(xp.count_nonzero(a)), int(xp.count_nonzero(b))
    if na == 0:
        return 0 if nb == 0 else np.inf
    if nb == 0:
        return np.inf
    if xp is not np and _use_brute(na, nb, a.size):
        fwd, bwd = _brute(xp.argwhere(a), xp.argwhere(b), xp)
    else:
        fwd = fndi.distance_transform_edt(~a)[b]   # from each point of b to the nearest of a
        bwd = fndi.distance_transform_edt(~b)[a]
    return _combine(fwd, bwd, method)


def _combine(fwd, bwd, method):
    if method == "standard":
        return float(max(fwd.max(), bwd.max()))
    return float(max(fwd.mean(), bwd.mean()))


def hausdorff_pair(image0, image1):
    """(point of image0, point of image1) separated by the Hausdorff distance,
    as NumPy index arrays (CuPy for GPU input); ((), ()) with a warning when a
    set is empty. Where several points of one set are nearest, the one chosen
    may differ from scikit-image's KD-tree choice (the distance is the same)."""
    a, b, xp, _ = two(image0, image1)
    _check_ndim(a, b)
    a, b = _common_shape(a, b, xp)
    a_pts = xp.argwhere(a)
    b_pts = xp.argwhere(b)
    if len(a_pts) == 0 or len(b_pts) == 0:
        warnings.warn("One or both of the images is empty.", stacklevel=2)
        return (), ()
    if xp is np and _use_sweep(len(a_pts), len(b_pts), a.shape):
        d_from_b, near_a = _sweep(a_pts, b_pts, True)
        d_from_a, near_b = _sweep(b_pts, a_pts, True)
        ia = int(d_from_b.argmax())
        ib = int(d_from_a.argmax())
        if float(d_from_a[ib]) > float(d_from_b[ia]):
            return a_pts[ib], b_pts[int(near_b[ib])]
        return a_pts[int(near_a[ia])], b_pts[ia]
    if xp is not np and _use_brute(len(a_pts), len(b_pts), a.size):
        d_from_b, d_from_a, near_a, near_b = _brute(a_pts, b_pts, xp, want_index=True)
        ia = int(d_from_b.argmax())
        ib = int(d_from_a.argmax())
        if float(d_from_a[ib]) > float(d_from_b[ia]):
            return a_pts[ib], b_pts[int(near_b[ib])]
        return a_pts[int(near_a[ia])], b_pts[ia]
    dt_a, ind_a = fndi.distance_transform_edt(~a, return_indices=True)
    dt_b, ind_b = fndi.distance_transform_edt(~b, return_indices=True)
    d_from_b = dt_a[b]             # per point of b: distance to the nearest a
    d_from_a = dt_b[a]
    ia = int(d_from_b.argmax())    # index into b_pts
    ib = int(d_from_a.argmax())    # index into a_pts
    if float(d_from_a[ib]) > float(d_from_b[ia]):
        p = a_pts[ib]
        q = ind_b[(slice(None),) + tuple(int(v) for v in p)].astype(p.dtype)
        return p, q
    q = b_pts[ia]
    p = ind_a[(slice(None),) + tuple(int(v) for v in q)].astype(q.dtype)
    return p, q
