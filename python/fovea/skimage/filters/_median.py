"""median (skimage.filters._median)."""

from ... import ndimage as ndi
from ..._interop import host, inner, prepare

__all__ = ["median"]


def median(image, footprint=None, out=None, mode="nearest", cval=0.0, behavior="ndimage"):
    """Local median over footprint (default: the 3**ndim box), as
    scipy.ndimage.median_filter; the result has image's dtype. out: optional
    array of image's shape and array type to write into.

    behavior='rank' (scikit-image's 8/16-bit 2-d rank filter) is not provided:
    NotImplementedError.
    """
    if behavior == "rank":
        raise NotImplementedError(
            "fovea.skimage.filters.median: behavior='rank' (skimage.filters.rank.median) is not "
            "implemented; use behavior='ndimage' (the default)"
        )
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
