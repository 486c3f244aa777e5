"""Histogram plumbing shared by fovea.skimage.exposure and the thresholds of
fovea.skimage.filters: min / max and histograms through fovea's C kernels
(CPU thread pool or CUDA, by where the data lives), with scikit-image 0.26's
binning - one bin per integer value for integer images, numpy.histogram's
uniform bins (bit for bit, see fv_histogram_spec) for float images.

Results stay on the input's device (NumPy in, NumPy out; CuPy in, CuPy out);
only scalars (min, max) and the bin edges cross to the host."""

import warnings

import numpy as np

from ... import _fovea
from ... import _interop as ix
from .._shared import supported_float_type

__all__ = ["xp_of", "minmax", "dtype_limits", "DTYPE_RANGE", "supported_float_type", "histogram_core"]

_KERNEL = frozenset("bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 float32 float64".split())
_KERNEL_DT = frozenset(np.dtype(n) for n in _KERNEL)   # set lookups: dtype.name costs ~3 us

# scikit-image's dtype_range (util.dtype)
_dtype_range = {bool: (False, True), np.bool_: (False, True), float: (-1, 1), np.float16: (-1, 1),
                np.float32: (-1, 1), np.float64: (-1, 1), int: (np.iinfo(np.int64).min, np.iinfo(np.int64).max)}
for _t in (np.int8, np.int16, np.int32, np.int64, np.longlong, np.uint8, np.uint16, np.uint32, np.uint64,
           np.ulonglong):
    _dtype_range[_t] = (int(np.iinfo(_t).min), int(np.iinfo(_t).max))

# skimage.exposure's DTYPE_RANGE: the types, their names and a few bit depths
DTYPE_RANGE = dict(_dtype_range)
DTYPE_RANGE.update((d.__name__, lim) for d, lim in _dtype_range.items())
DTYPE_RANGE.update({"uint10": (0, 2**10 - 1), "uint12": (0, 2**12 - 1), "uint14": (0, 2**14 - 1),
                    "bool": _dtype_range[bool], "float": _dtype_range[np.float64]})


def xp_of(a):
    return ix.xp_of(a)


def dtype_limits(image, clip_negative=False):
    imin, imax = _dtype_range[image.dtype.type]
    if clip_negative:
        imin = 0
    return imin, imax


def _kernel_input(a):
    """a as a dtype the C kernels take (float16 -> float32, exact)."""
    if a.dtype in _KERNEL_DT or a.dtype.name in _KERNEL:
        return a
    if a.dtype == np.float16:
        return a.astype(np.float32)
    raise TypeError(f"fovea.skimage.exposure: dtype {a.dtype} is not supported")


def minmax(a, mask=None):
    """(min, max, count) of a (where mask) as NumPy scalars of a's dtype
    (count 0: (None, None, 0)). NaN when a NaN is among them."""
    k = _kernel_input(a)
    lo, hi, n = _fovea.exp_minmax(k, mask, ix.stream_of(k))
    if n == 0:
        return None, None, 0
    t = a.dtype.type
    if a.dtype.kind in "iu" and a.dtype.itemsize == 8 and max(abs(lo), abs(hi)) >= 2.0**53:
        # beyond double precision: exact values from the array library
        xp = xp_of(a)
        sel = a if mask is None else a[mask]
        return t(sel.min()), t(sel.max()), n
    return t(lo), t(hi), n


def _counts_int(a, lo, nbins, mask=None):
    k = _kernel_input(a)
    res = _fovea.exp_histogram(k, mask, int(nbins), True, int(lo), stream=ix.stream_of(k))
    return ix.wrap(res, a)


def _unsigned_subtract(a, b):
    # numpy.histogram's helper, for float edges only (integers never get here)
    dt = np.result_type(a, b)
    return np.subtract(a, b, dtype=dt)


def outer_edges(a, hist_range, mask=None):
    """numpy.histogram's _get_outer_edges with the min / max from the C kernel."""
    if hist_range is not None:
        first, last = hist_range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    else:
        lo, hi, n = minmax(a, mask)
        if n == 0:
            first, last = 0, 1
        else:
            first, last = lo, hi
            if not (np.isfinite(first) and np.isfinite(last)):
                raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first = first - 0.5
        last = last + 0.5
    return first, last


def float_bin_edges(dtype, nbins, first, last):
    """numpy.histogram's bin edges for an array of dtype over [first, last]."""
    probe = np.zeros(1, dtype)
    bin_type = np.result_type(first, last, probe)
    if np.issubdtype(bin_type, np.integer):
        bin_type = np.result_type(bin_type, float)
    edges = np.linspace(first, last, nbins + 1, endpoint=True, dtype=bin_type)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {nbins} finite-sized bins.")
    return edges


def _counts_float(a, edges, first, last, mask=None):
    """numpy.histogram(a[mask], bins=edges (uniform, from float_bin_edges), range)
    counts, on a's device."""
    nb = edges.size - 1
    bin_type = edges.dtype
    k = _kernel_input(a)
    if a.dtype == np.float16 or bin_type not in (np.float32, np.float64):
        # bins in float16 (or another odd type): the array library's histogram
        xp = xp_of(a)
        sel = a.ravel() if mask is None else a[mask]
        return xp.histogram(sel, bins=xp.asarray(edges))[0].astype(np.int64)
    probe = np.zeros(1, bin_type)
    diff_dt = np.result_type(probe, first)
    denom = _unsigned_subtract(last, first)
    div_dt = (np.zeros(1, diff_dt) / denom).dtype
    res = _fovea.exp_histogram(
        k, mask, int(nb), False, 0, float(first), float(last), float(denom),
        bin_type == np.float32, diff_dt == np.float32, div_dt == np.float32,
        np.ascontiguousarray(edges, dtype=np.float64).tobytes(), ix.stream_of(k))
    return ix.wrap(res, a)


def histogram_core(image, bins, source_range, mask=None):
    """scikit-image's _histogram without normalisation: (hist, bin_centers) of
    image (where mask). bins: an int, or for integer images the bin centres,
    for float images the edges (as from float_bin_edges)."""
    if source_range not in ("image", "dtype"):
        raise ValueError(f"Incorrect value for `source_range` argument: {source_range}")
    if np.issubdtype(image.dtype, np.integer):
        if isinstance(bins, np.ndarray):
            centers = bins
        else:
            centers = integer_centers(image, source_range, mask)
        lo, hi = int(centers[0]), int(centers[-1])
        return _counts_int(image, lo, hi - lo + 1, mask), centers
    if image.dtype == bool:   # numpy.histogram counts bool as uint8 (float bins), as it warns
        warnings.warn("Converting input from bool to <class 'numpy.uint8'> for compatibility.", RuntimeWarning,
                      stacklevel=4)
        image = image.view(np.uint8)
    if isinstance(bins, np.ndarray):
        edges = bins
        first, last = edges[0], edges[-1]
        if source_range == "dtype":
            first, last = outer_edges(image, dtype_limits(image, clip_negative=False), mask)
    else:
        hist_range = None if source_range == "image" else dtype_limits(image, clip_negative=False)
        first, last = outer_edges(image, hist_range, mask)
        edges = float_bin_edges(image.dtype, int(bins), first, last)
    hist = _counts_float(image, edges, first, last, mask)
    return hist, (edges[:-1] + edges[1:]) / 2.0


def integer_centers(image, source_range, mask=None):
    if source_range not in ("image", "dtype"):
        raise ValueError(f"Incorrect value for `source_range` argument: {source_range}")
    if source_range == "image":
        lo, hi, n = minmax(image, mask)
        if n == 0:
            raise ValueError("zero-size array to reduction operation minimum which has no identity")
        lo, hi = int(lo), int(hi)
    else:
        lo, hi = dtype_limits(image, clip_negative=False)
    if hi - lo + 1 > (1 << 31):
        raise MemoryError(f"a histogram of {hi - lo + 1} bins (one per integer value) is too large")
    return np.arange(lo, hi + 1)


def warn(msg, stacklevel=3):
    warnings.warn(msg, UserWarning, stacklevel=stacklevel)
