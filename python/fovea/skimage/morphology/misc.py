"""skimage.morphology.remove_small_objects and remove_small_holes (0.26 API,
with its `max_size` keyword and the deprecated `min_size` /
`area_threshold`, which - as skimage's deprecation decorator does - are
passed on as max_size, an inclusive threshold) on fovea's labelling kernel; component sizes by bincount
on the data's device (NumPy or CuPy)."""

import warnings

import numpy as np

from ... import _fovea
from ... import _interop as ix

__all__ = ["remove_small_objects", "remove_small_holes", "remove_objects_by_distance"]


class _Deprecated:
    def __repr__(self):
        return "<DEPRECATED>"


DEPRECATED = _Deprecated()


class _DefaultMaxSize(int):
    """64, the default of max_size, told apart from an explicit 64."""


_MAX_SIZE = _DefaultMaxSize(64)

_NOTE = (
    " Note that the new threshold removes objects smaller than **or equal to** its value, while the "
    "previous parameter only removed smaller ones."
)


def _deprecated(old, func, max_size):
    # skimage's decorator warns first, then refuses both names at once
    warnings.warn(
        f"Parameter `{old}` is deprecated since version 0.26.0 and will be removed in 2.0.0 (or later). To "
        f"avoid this warning, please use the parameter `max_size` instead. For more details, see the "
        f"documentation of `{func}`." + _NOTE,
        FutureWarning,
        stacklevel=3,
    )
    if max_size is not _MAX_SIZE:
        raise ValueError(
            f"Both deprecated parameter `{old}` and new parameter `max_size` are used. Use only the latter "
            "to avoid conflicting values."
        )


def _check_dtype_supported(ar):
    if not (ar.dtype == bool or np.issubdtype(ar.dtype, np.integer)):
        raise TypeError(f"Only bool or integer image types are supported. Got {ar.dtype}.")


def _remove_small(x, out, connectivity, min_size, max_size):
    """The body of skimage's remove_small_objects on internal arrays; writes out."""
    from ..measure._label import label_array   # late: measure imports this package

    xp = ix.xp_of(x)
    if out is not x:
        out[...] = x
    if max_size == 0 and min_size is DEPRECATED:
        return out
    if out.dtype == bool:
        if not 1 <= connectivity <= max(x.ndim, 1):
            from ...ndimage import generate_binary_structure

            generate_binary_structure(x.ndim, connectivity)   # scipy's behaviour for odd values
        conn = min(max(int(connectivity), 1), max(x.ndim, 1))
        if x.ndim == 0:
            ccs = xp.asarray(out, dtype=np.int32)
        else:
            ccs = label_array(out, background=0, connectivity=conn)[0]
    else:
        ccs = out
    if ccs.size and bool(ccs.min() < 0):
        raise ValueError(
            "Negative value labels are not supported. Try relabeling the input with `scipy.ndimage.label` "
            "or `skimage.morphology.label`."
        )
    flat = ccs.ravel()
    sizes = xp.bincount(flat) if flat.size else xp.zeros(1, dtype=np.int64)
    if len(sizes) == 2 and out.dtype != bool:
        warnings.warn(
            "Only one label was provided to `remove_small_objects`. Did you mean to use a boolean array?",
            UserWarning,
            stacklevel=3,
        )
    if isinstance(max_size, _DefaultMaxSize):
        max_size = int(max_size)   # a plain int: CuPy's ufuncs reject int subclasses
    too_small = sizes < min_size if min_size is not DEPRECATED else sizes <= max_size
    out[too_small[ccs]] = 0
    return out


def remove_small_objects(ar, min_size=DEPRECATED, connectivity=1, *, max_size=_MAX_SIZE, out=None):
    """Remove connected components of max_size pixels or fewer
    (skimage.morphology.remove_small_objects). ar: bool (components labelled
    with `connectivity`) or a non-negative integer label image. The
    deprecated min_size acts as max_size (as in skimage 0.26)."""
    if min_size is not DEPRECATED:
        # skimage's decorator passes the old value on as max_size (inclusive)
        _deprecated("min_size", "remove_small_objects", max_size)
        min_size, max_size = DEPRECATED, min_size
    x, _, back = ix.prepare(ar)
    _check_dtype_supported(x)
    res = x.copy() if out is None else ix.inner(out, x)
    res = _remove_small(x, res, connectivity, min_size, max_size)
    return out if out is not None else back(res)


def remove_small_holes(ar, area_threshold=DEPRECATED, connectivity=1, *, max_size=_MAX_SIZE, out=None):
    """Fill holes (background components) of max_size pixels or fewer
    (skimage.morphology.remove_small_holes); returns a bool array. The
    deprecated area_threshold acts as max_size (as in skimage 0.26)."""
    if area_threshold is not DEPRECATED:
        _deprecated("area_threshold", "remove_small_holes", max_size)
        area_threshold, max_size = DEPRECATED, area_threshold
    x, _, back = ix.prepare(ar)
    xp = ix.xp_of(x)
    _check_dtype_supported(x)
    if x.dtype != bool:
        warnings.warn(
            "Any labeled images will be returned as a boolean array. Did you mean to use a boolean array?",
            UserWarning,
            stacklevel=2,
        )
    if out is not None:
        res = ix.inner(out, x)
        if res.dtype != bool:
            raise TypeError("out dtype must be bool")
    else:
        res = x.astype(bool, copy=True)
    xp.logical_not(x, out=res)
    res = _remove_small(res, res, connectivity, area_threshold, max_size)
    xp.logical_not(res, out=res)
    return out if out is not None else back(res)


def _removed_objects(coords, labels, min_distance, p_norm):
    """The labels of the objects to remove: scikit-image's greedy pass over the
    border points (coords, labels: one row per point, in visiting order): a point
    of an object still present removes every other present object with a point
    within min_distance (Minkowski p_norm). fovea's C kernel (a grid of cells of
    side min_distance) for p_norm > 0 or NaN; SciPy's cKDTree, as scikit-image,
    for p_norm <= 0 (no norm: the result is that of its tree search)."""
    uniq, objects = np.unique(labels, return_inverse=True)
    if p_norm > 0 or p_norm != p_norm:
        removed = np.asarray(_fovea.skmorph_objects_by_distance(
            np.ascontiguousarray(coords, dtype=np.float64), objects.astype(np.int64), len(uniq),
            float(min_distance), float(p_norm)))
        return uniq[removed]
    from scipy.spatial import cKDTree

    tree = cKDTree(coords)
    gone = np.zeros(len(uniq), bool)
    for i in range(len(coords)):
        if gone[objects[i]]:
            continue
        near = objects[np.asarray(tree.query_ball_point(coords[i], r=min_distance, p=p_norm), dtype=np.intp)]
        gone[near[near != objects[i]]] = True
    return uniq[gone]


def remove_objects_by_distance(label_image, min_distance, *, priority=None, p_norm=2, spacing=None, out=None):
    """Remove objects (labels; 0 = background) until the remaining ones are more
    than min_distance apart (skimage.morphology.remove_objects_by_distance).
    Objects are visited by decreasing priority (default: their size; ties by
    decreasing label); each one kept removes the others within min_distance of
    its border (Minkowski p_norm distance between pixel centres, scaled by
    spacing). Returns out (default: a new array).

    The greedy pass runs in fovea's C kernel (fv_objects_by_distance; SciPy's
    cKDTree for p_norm <= 0); CUDA data is worked on in host memory and the
    result copied back to the device.
    """
    from ...ndimage import maximum_filter, minimum_filter

    if min_distance < 0:
        raise ValueError(f"min_distance must be >= 0, was {min_distance}")
    x, xp, back = ix.prepare(label_image)
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"`label_image` must be of integer dtype, got {x.dtype}")
    res = ix.inner(out, x) if out is not None else None
    h = np.array(ix.to_host(x), order="C")
    if spacing is not None:
        spacing = np.array(ix.host(spacing))
        if spacing.shape != (h.ndim,) or spacing.min() <= 0:
            raise ValueError(
                "`spacing` must contain exactly one positive factor for each dimension of `label_image`")
    flat = h.ravel()
    indices = np.flatnonzero(flat)
    if (spacing is None or np.all(spacing[0] == spacing)) and p_norm <= 2:
        conn = 1
    else:
        conn = h.ndim
    from ...ndimage import generate_binary_structure

    fp = generate_binary_structure(h.ndim, conn)
    border = (maximum_filter(h, footprint=fp) != minimum_filter(h, footprint=fp)).ravel()[indices]
    border_idx = indices[border]
    if border_idx.size:
        border_idx = border_idx[np.argsort(flat[border_idx])]
        if priority is None:
            priority = np.bincount(flat.astype(np.intp, copy=False))
        else:
            priority = np.asarray(ix.host(priority))
        smallest = flat[border_idx[0]]
        if smallest < 0:
            raise ValueError(f"found object with negative ID {smallest!r}")
        try:
            border_idx = border_idx[np.argsort(priority[flat[border_idx]], kind="stable")[::-1]]
        except IndexError as error:
            expected = (np.amax(flat) + 1,)
            if priority.shape != expected:
                raise ValueError(
                    "shape of `priority` must be (np.amax(label_image) + 1,), "
                    f"expected {expected}, got {priority.shape} instead") from error
            raise
        coords = np.asarray(np.unravel_index(border_idx, h.shape), dtype=np.float64).T
        if spacing is not None:
            coords = coords * spacing
        removed = _removed_objects(coords, flat[border_idx], min_distance, p_norm)
        if removed.size:
            flat[np.isin(flat, removed)] = 0
    result = ix.like_device(h, x)
    if res is None:
        return back(result)
    res[...] = result
    return out
