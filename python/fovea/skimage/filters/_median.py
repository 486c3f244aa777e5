"""median (skimage.filters._median)."""

import warnings

import numpy as np

from ... import ndimage as ndi
from ..._interop import host, inner, prepare

__all__ = ["median"]


def median(image, footprint=None, out=None, mode="nearest", cval=0.0, behavior="ndimage", *, algorithm="auto",
           algorithm_kwargs=None):
    """Local median over footprint (default: the 3**ndim box), as
    scipy.ndimage.median_filter; the result has image's dtype. out: optional
    array of image's shape and array type to write into.

    behavior='rank': scikit-image's rank median (skimage.filters.rank.median) of 2-d
    and 3-d uint8 / uint16 images: the median of the footprint's pixels inside the
    image (none outside), the upper one of an even count; other dtypes are converted
    with img_as_ubyte and a warning, as scikit-image does; mode and cval are ignored
    (with scikit-image's warning when given).

    algorithm, algorithm_kwargs: cuCIM's choice of GPU kernel ('auto', 'histogram',
    'sorting'), accepted so that cuCIM code runs; fovea's planner picks its own kernel.
    """
    if algorithm not in ("auto", "histogram", "sorting"):
        raise ValueError(f"unknown algorithm: {algorithm!r} (cuCIM's 'auto', 'histogram' or 'sorting')")
    if algorithm_kwargs is not None and not isinstance(algorithm_kwargs, dict):
        raise TypeError("algorithm_kwargs must be a dict")
    if behavior == "rank":
        if mode != "nearest" or not np.isclose(cval, 0.0):
            warnings.warn("Change 'behavior' to 'ndimage' if you want to use the parameters 'mode' or 'cval'. "
                          "They will be discarded otherwise.", stacklevel=2)
        return _rank_median(image, footprint, out)
    arr, xp, back = prepare(image)
    out_arr = inner(out, arr)
    if footprint is None and arr.ndim > 0:
        # the 3**ndim box scikit-image builds (generate_binary_structure(ndim, ndim)) is size=3
        res = ndi.median_filter(arr, size=3, output=out_arr, mode=mode, cval=cval)
    else:
        footprint = ndi.generate_binary_structure(arr.ndim, arr.ndim) if footprint is None else host(footprint)
        res = ndi.median_filter(arr, footprint=footprint, output=out_arr, mode=mode, cval=cval)
    if out is not None and res is out_arr:
        return out
    return back(res)


def _rank_median(image, footprint, out):
    """skimage.filters.rank.median without a mask: each pixel's neighbourhood is
    the footprint's True elements around it (centre shape // 2, no flip) that fall
    inside the image; its median is the value where the running count first passes
    half of them. Computed by sorting the shifted planes, in row blocks."""
    arr, xp, back = prepare(image)
    a = host(arr)
    if a.ndim not in (2, 3):
        raise ValueError(f"`image` must have 2 or 3 dimensions, got {a.ndim}.")
    if a.dtype == np.bool_:
        raise ValueError("dtype cannot be bool.")
    if a.dtype not in (np.uint8, np.uint16):
        if a.dtype.kind != "f":
            raise TypeError(f"median(behavior='rank') takes uint8, uint16 or float images, not {a.dtype}: "
                            f"convert with img_as_ubyte, or use behavior='ndimage'")
        warnings.warn(f"Possible precision loss converting image of type {a.dtype} to uint8 as required by "
                      f"rank filters. Convert manually using skimage.util.img_as_ubyte to silence this warning.",
                      stacklevel=3)
        if np.min(a) < -1.0 or np.max(a) > 1.0:
            raise ValueError("Images of type float must be between -1 and 1.")
        # img_as_ubyte of floats: x * 255 in the input's precision, rounded, clipped
        a = np.clip(np.rint(np.multiply(a, 255, dtype=a.dtype if a.itemsize >= 4 else np.float32)), 0, 255)
        a = a.astype(np.uint8)
    fp = np.ones((3,) * a.ndim, bool) if footprint is None else np.asarray(host(footprint)) > 0
    if fp.ndim != a.ndim:
        raise ValueError("Image dimensions and neighborhood dimensionsdo not match")
    offs = np.argwhere(fp) - np.array(fp.shape) // 2
    res = np.zeros(a.shape, a.dtype)
    rows = max(1, (1 << 24) // max(1, len(offs) * int(np.prod(a.shape[1:]))))
    big = np.iinfo(np.int32).max
    for r0 in range(0, a.shape[0], rows):
        r1 = min(a.shape[0], r0 + rows)
        planes = np.full((len(offs), r1 - r0) + a.shape[1:], big, np.int32)
        for k, o in enumerate(offs):
            dst, src = [], []
            for d, (lo, hi, n) in enumerate(zip((r0,) + (0,) * (a.ndim - 1), (r1,) + a.shape[1:], a.shape)):
                s0, s1 = max(lo, lo + o[d], 0) - o[d], min(hi, hi + o[d], n) - o[d]
                if s1 <= s0:
                    break
                dst.append(slice(s0 - lo, s1 - lo))
                src.append(slice(s0 + o[d], s1 + o[d]))
            else:
                planes[(k, *dst)] = a[tuple(src)]
        pop = (planes != big).sum(axis=0)
        planes.sort(axis=0)
        pick = np.take_along_axis(planes, (pop // 2)[None], axis=0)[0]
        res[r0:r1] = np.where(pop > 0, pick, 0).astype(a.dtype)
    if out is not None:
        out[...] = xp.asarray(res) if xp is not np else res
        return out
    return back(xp.asarray(res) if xp is not np else res)
