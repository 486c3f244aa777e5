"""integral_image and integrate (skimage.transform.integral)."""

import numpy as np

from ..._interop import prepare

__all__ = ["integral_image", "integrate"]


def integral_image(image, *, dtype=None):
    """Summed-area table: cumulative sums along every axis
    (skimage.transform.integral_image). Floats accumulate in at least float64
    unless dtype is given; integers in NumPy's cumsum type."""
    arr, xp, back = prepare(image)
    if dtype is None and arr.real.dtype.kind == "f":
        dtype = np.promote_types(arr.dtype, np.float64)
    s = arr
    for i in range(arr.ndim):
        s = s.cumsum(axis=i, dtype=dtype)
    return back(s)


def integrate(ii, start, end):
    """Sums over the boxes [start, end] (inclusive; negative indices count from
    the end) of an integral image ii; one float64 per box, as a NumPy array
    (skimage.transform.integrate)."""
    arr, xp, _ = prepare(ii)
    start = np.atleast_2d(np.array(start))
    end = np.atleast_2d(np.array(end))
    rows = start.shape[0]
    total_shape = np.tile(arr.shape, [rows, 1])
    start_neg = start < 0
    end_neg = end < 0
    start = (start + total_shape) * start_neg + start * ~start_neg
    end = (end + total_shape) * end_neg + end * ~end_neg
    if np.any(end - start < 0):
        raise IndexError("end coordinates must be greater or equal to start")
    S = np.zeros(rows)
    nd = arr.ndim
    for i in range(2 ** nd):
        mask = np.array([(i >> (nd - 1 - k)) & 1 == 1 for k in range(nd)])
        sign = (-1) ** int(mask.sum())
        corners = end * ~mask + (start - 1) * mask
        for r in range(rows):
            if np.any((start[r] - 1) * mask < 0):
                continue
            S[r] += sign * float(arr[tuple(int(v) for v in corners[r])])
    return S
