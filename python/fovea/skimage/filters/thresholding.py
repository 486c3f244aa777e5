"""The thresholds of skimage.filters (scikit-image 0.26): Otsu, multi-Otsu,
Li, Yen, ISODATA, mean, minimum, triangle, local, Niblack, Sauvola and
hysteresis. Histograms and min / max run in fovea's C kernels (CPU or CUDA),
local means through fovea.ndimage and integral images, hysteresis through
fovea.ndimage.binary_propagation; the small per-histogram arithmetic follows
scikit-image's expressions and dtypes so the thresholds agree exactly.
Sequential searches over a histogram (minimum, triangle, multi-Otsu) copy
that histogram (nbins values) to the host; images never leave their device."""

import itertools
import math
from collections.abc import Iterable
import warnings

import numpy as np

from ... import ndimage as fndi
from ..exposure._exposure import _histogram_xp
from ..exposure._hist import dtype_limits, minmax, supported_float_type, xp_of
from ... import _interop as ix

__all__ = ["threshold_otsu", "threshold_multiotsu", "threshold_li", "threshold_yen", "threshold_isodata",
           "threshold_mean", "threshold_minimum", "threshold_triangle", "threshold_local", "threshold_niblack",
           "threshold_sauvola", "apply_hysteresis_threshold"]


def _host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else a


def _scalar(x):
    """A NumPy scalar for a 0-d NumPy / CuPy result."""
    x = _host(x)
    return x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x


def _validate_image_histogram(image, hist, nbins=None, normalize=False):
    if image is None and hist is None:
        raise Exception("Either image or hist must be provided.")
    if hist is not None:
        if isinstance(hist, (tuple, list)):
            counts, centers = hist
            counts = ix.prepare(counts)[0]
            centers = ix.prepare(centers)[0]
        else:
            counts = ix.prepare(hist)[0]
            centers = xp_of(counts).arange(counts.size)
        if counts[0] == 0 or counts[-1] == 0:
            xp = xp_of(counts)
            cond = counts > 0
            start = int(xp.argmax(cond))
            end = cond.size - int(xp.argmax(cond[::-1]))
            counts, centers = counts[start:end], centers[start:end]
    else:
        counts, centers = _histogram_xp(image.reshape(-1), nbins, "image", normalize)
    return counts.astype("float32", copy=False), centers


def _all_equal_first(image):
    lo, hi, n = minmax(image)
    return n > 0 and lo == hi


def threshold_otsu(image=None, nbins=256, *, hist=None):
    """Otsu's threshold of image (or of a histogram, hist=counts or (counts, centers))."""
    if image is not None:
        image = ix.prepare(image)[0]
        if image.ndim > 2 and image.shape[-1] in (3, 4):
            warnings.warn(f"threshold_otsu is expected to work correctly only for grayscale images; image shape "
                          f"{image.shape} looks like that of an RGB image.", UserWarning, stacklevel=2)
        if _all_equal_first(image):
            return _scalar(image.reshape(-1)[0])
    counts, centers = _validate_image_histogram(image, hist, nbins)
    xp = xp_of(counts)
    w1 = xp.cumsum(counts)
    w2 = xp.cumsum(counts[::-1])[::-1]
    m1 = xp.cumsum(counts * centers) / w1
    m2 = (xp.cumsum((counts * centers)[::-1]) / w2[::-1])[::-1]
    var12 = w1[:-1] * w2[1:] * (m1[:-1] - m2[1:]) ** 2
    return _scalar(centers[int(xp.argmax(var12))])


def threshold_yen(image=None, nbins=256, *, hist=None):
    """Yen's threshold (maximum correlation criterion)."""
    if image is not None:
        image = ix.prepare(image)[0]
    counts, centers = _validate_image_histogram(image, hist, nbins)
    if centers.size == 1:
        return _scalar(centers[0])
    xp = xp_of(counts)
    pmf = counts.astype("float32", copy=False) / counts.sum()
    p1 = xp.cumsum(pmf)
    p1_sq = xp.cumsum(pmf**2)
    p2_sq = xp.cumsum(pmf[::-1] ** 2)[::-1]
    crit = xp.log((p1_sq[:-1] * p2_sq[1:]) ** (-1) * (p1[:-1] * (1.0 - p1[:-1])) ** 2)
    return _scalar(centers[int(crit.argmax())])


def threshold_isodata(image=None, nbins=256, return_all=False, *, hist=None):
    """ISODATA (Ridler-Calvard) threshold; return_all: every threshold that
    satisfies the criterion."""
    if image is not None:
        image = ix.prepare(image)[0]
    counts, centers = _validate_image_histogram(image, hist, nbins)
    if len(centers) == 1:
        return _host(centers) if return_all else _scalar(centers[0])
    xp = xp_of(counts)
    counts = counts.astype("float32", copy=False)
    csuml = xp.cumsum(counts)
    csumh = csuml[-1] - csuml
    csum_int = xp.cumsum(counts * centers)
    lower = csum_int[:-1] / csuml[:-1]
    higher = (csum_int[-1] - csum_int[:-1]) / csumh[:-1]
    all_mean = (lower + higher) / 2.0
    bin_width = centers[1] - centers[0]
    dist = all_mean - centers[:-1]
    thr = centers[:-1][(dist >= 0) & (dist < bin_width)]
    if return_all:
        return _host(thr)
    return _scalar(thr[0])


def threshold_mean(image):
    """The mean intensity."""
    img = ix.prepare(image)[0]
    return _scalar(xp_of(img).mean(img))


def threshold_li(image, *, tolerance=None, initial_guess=None, iter_callback=None):
    """Li's iterative minimum cross entropy threshold."""
    img = ix.prepare(image)[0]
    xp = xp_of(img)
    img = img[~xp.isnan(img)] if img.dtype.kind == "f" else img.reshape(-1).copy()
    if img.size == 0:
        return np.nan
    lo, hi, _ = minmax(img)
    if lo == hi:
        return _scalar(img.reshape(-1)[0])
    img = img[xp.isfinite(img)] if img.dtype.kind == "f" else img
    if img.size == 0:
        return 0.0
    image_min = minmax(img)[0]
    img -= image_min
    if img.dtype.kind in "iu":
        tolerance = tolerance or 0.5
    else:
        tolerance = tolerance or _scalar(xp.min(xp.diff(xp.unique(img)))) / 2
    if initial_guess is None:
        t_next = _scalar(xp.mean(img))
    elif callable(initial_guess):
        t_next = initial_guess(img)
    elif np.isscalar(initial_guess):
        t_next = initial_guess - float(image_min)
        img_max = minmax(img)[1]
        if not 0 < t_next < img_max:
            raise ValueError(f"The initial guess for threshold_li must be within the range of the image. Got "
                             f"{initial_guess} for image min {image_min} and max {img_max + image_min}.")
        t_next = img.dtype.type(t_next)
    else:
        raise TypeError("Incorrect type for `initial_guess`; should be a floating point value, or a function "
                        "mapping an array to a floating point value.")
    t_curr = -2 * tolerance
    if iter_callback is not None:
        iter_callback(t_next + image_min)
    if img.dtype.kind in "iu":
        hist, centers = _histogram_xp(img.reshape(-1), 256, "image")
        hist = _host(hist).astype("float32", copy=False)
        centers = _host(centers)
        while abs(t_next - t_curr) > tolerance:
            t_curr = t_next
            fg = centers > t_curr
            bg = ~fg
            mean_fore = np.average(centers[fg], weights=hist[fg])
            mean_back = np.average(centers[bg], weights=hist[bg])
            if mean_back == 0:
                break
            t_next = (mean_back - mean_fore) / (np.log(mean_back) - np.log(mean_fore))
            if iter_callback is not None:
                iter_callback(t_next + image_min)
    else:
        while abs(t_next - t_curr) > tolerance:
            t_curr = t_next
            fg = img > t_curr
            mean_fore = _scalar(xp.mean(img[fg]))
            mean_back = _scalar(xp.mean(img[~fg]))
            if mean_back == 0.0:
                break
            t_next = (mean_back - mean_fore) / (np.log(mean_back) - np.log(mean_fore))
            if iter_callback is not None:
                iter_callback(t_next + image_min)
    return t_next + image_min


def _local_maxima_idx(h):
    idx = []
    direction = 1
    for i in range(h.shape[0] - 1):
        if direction > 0:
            if h[i + 1] < h[i]:
                direction = -1
                idx.append(i)
        elif h[i + 1] > h[i]:
            direction = 1
    return idx


def threshold_minimum(image=None, nbins=256, max_num_iter=10000, *, hist=None):
    """The minimum between the two maxima of the histogram smoothed until it
    has exactly two (RuntimeError when it never does)."""
    if image is not None:
        image = ix.prepare(image)[0]
    counts, centers = _validate_image_histogram(image, hist, nbins)
    smooth = np.ascontiguousarray(_host(counts).astype("float32", copy=False))
    centers = _host(centers)
    maxima = []
    counter = 0
    for counter in range(max_num_iter):
        smooth = fndi.uniform_filter1d(smooth, 3)
        maxima = _local_maxima_idx(smooth)
        if len(maxima) < 3:
            break
    if len(maxima) != 2:
        raise RuntimeError("Unable to find two maxima in histogram")
    elif counter == max_num_iter - 1:
        raise RuntimeError("Maximum iteration reached for histogramsmoothing")
    t = np.argmin(smooth[maxima[0]:maxima[1] + 1])
    return centers[maxima[0] + t]


def threshold_triangle(image, nbins=256):
    """The triangle (Zack) threshold."""
    img = ix.prepare(image)[0]
    hist, centers = _histogram_xp(img.reshape(-1), nbins, "image")
    hist, centers = _host(hist), _host(centers)
    nbins = len(hist)
    arg_peak = np.argmax(hist)
    peak_height = hist[arg_peak]
    arg_low, arg_high = np.flatnonzero(hist)[[0, -1]]
    if arg_low == arg_high:
        return _scalar(img.ravel()[0])
    flip = arg_peak - arg_low < arg_high - arg_peak
    if flip:
        hist = hist[::-1]
        arg_low = nbins - arg_high - 1
        arg_peak = nbins - arg_peak - 1
    width = arg_peak - arg_low
    x1 = np.arange(width)
    y1 = hist[x1 + arg_low]
    norm = np.sqrt(peak_height**2 + width**2)
    peak_height = peak_height / norm
    width = width / norm
    length = peak_height * x1 - width * y1
    arg_level = np.argmax(length) + arg_low
    if flip:
        arg_level = nbins - arg_level - 1
    return centers[arg_level]


def threshold_local(image, block_size=3, method="gaussian", offset=0, mode="reflect", param=None, cval=0):
    """A threshold per pixel from its neighbourhood of block_size (odd):
    weighted mean ('gaussian', sigma = (block_size - 1) / 6 unless param),
    'mean', 'median' or 'generic' (param: a function of the neighbourhood),
    minus offset.

    method='generic' calls the Python function `param` once per pixel, which
    only the host can do: for a device image, the image is copied to the host,
    filtered there with scipy.ndimage.generic_filter and the result copied back
    (cupyx's generic_filter takes only CuPy kernels, not Python callables)."""
    img, _, back = ix.prepare(image)
    xp = xp_of(img)
    if np.isscalar(block_size):
        block_size = (block_size,) * img.ndim
    elif len(block_size) != img.ndim:
        raise ValueError("len(block_size) must equal image.ndim.")
    block_size = tuple(block_size)
    if any(b % 2 == 0 for b in block_size):
        raise ValueError(f"block_size must be odd! Given block_size {block_size} contains even values.")
    fdt = supported_float_type(img)
    img = img.astype(fdt, copy=False)
    thresh = xp.zeros(img.shape, dtype=fdt)
    if method == "generic":
        import scipy.ndimage as sndi

        if xp is np:
            sndi.generic_filter(img, param, block_size, output=thresh, mode=mode, cval=cval)
        else:   # a Python callable runs on the host (see the docstring): explicit copies
            h = sndi.generic_filter(ix.host(img), param, block_size, mode=mode, cval=cval)
            thresh = xp.asarray(h.astype(fdt, copy=False))
    elif method == "gaussian":
        sigma = tuple((b - 1) / 6.0 for b in block_size) if param is None else param
        fndi.gaussian_filter(img, sigma, output=thresh, mode=mode, cval=cval, truncate=4.0)
    elif method == "mean":
        fndi.uniform_filter(img, block_size, output=thresh, mode=mode, cval=cval)
    elif method == "median":
        fndi.median_filter(img, block_size, output=thresh, mode=mode, cval=cval)
    else:
        raise ValueError("Invalid method specified. Please use `generic`, `gaussian`, `mean`, or `median`.")
    return back(thresh - offset)


def _mean_std(image, w):
    xp = xp_of(image)
    if not isinstance(w, Iterable):
        w = (w,) * image.ndim
    for s in w:
        if s % 2 == 0:
            raise ValueError("Window size for `threshold_sauvola` or `threshold_niblack` must not be even on any "
                             f"dimension. Got {w}")
    fdt = supported_float_type(image)
    pad = tuple((k // 2 + 1, k // 2) for k in w)
    padded = xp.pad(image.astype(fdt, copy=False), pad, mode="reflect")

    def integral(a):
        s = a
        for ax in range(a.ndim):
            s = s.cumsum(axis=ax, dtype=np.float64)
        return s

    ii = integral(padded)
    padded = padded * padded
    ii_sq = integral(padded)
    corners = list(itertools.product(*[(0, k) for k in w]))
    signs = [(-1) ** (image.ndim % 2 != sum(c) % 2) for c in corners]
    kshape = tuple(k + 1 for k in w)
    total = math.prod(w)

    def corr(a):
        out = None
        for c, v in zip(corners, signs):
            view = a[tuple(slice(ci, s - (kw - 1 - ci)) for ci, kw, s in zip(c, kshape, a.shape))]
            if v != 1:
                view = v * view
            out = view.copy() if out is None else out.__iadd__(view)
        return out

    m = corr(ii).astype(fdt, copy=False)
    m /= total
    g2 = corr(ii_sq).astype(fdt, copy=False)
    g2 /= total
    s = xp.sqrt(xp.clip(g2 - m * m, 0, None))
    return m, s


def threshold_niblack(image, window_size=15, k=0.2):
    """Niblack's local threshold m - k * s over window_size (odd)."""
    img, _, back = ix.prepare(image)
    m, s = _mean_std(img, window_size)
    return back(m - k * s)


def threshold_sauvola(image, window_size=15, k=0.2, r=None):
    """Sauvola's local threshold m * (1 + k * (s / r - 1)); r defaults to half
    the dtype's range."""
    img, _, back = ix.prepare(image)
    if r is None:
        imin, imax = dtype_limits(img, clip_negative=False)
        r = 0.5 * (imax - imin)
    m, s = _mean_std(img, window_size)
    return back(m * (1 + k * (s / r - 1)))


def apply_hysteresis_threshold(image, low, high):
    """Pixels above low that are connected (faces: connectivity 1) to a pixel
    above high."""
    img, _, back = ix.prepare(image)
    xp = xp_of(img)
    low = xp.asarray(ix.like_input(low, img, "low")) if not np.isscalar(low) else low
    high = xp.asarray(ix.like_input(high, img, "high")) if not np.isscalar(high) else high
    low = xp.clip(low, None, high) if not (np.isscalar(low) and np.isscalar(high)) else min(low, high)
    mask_low = img > low
    mask_high = img > high
    return back(fndi.binary_propagation(mask_high, mask=mask_low))


def _multiotsu_lut_indices(prob, k):
    """scikit-image's LUT search (Liao et al.) in float32 and its order of
    operations: the first threshold set (lexicographically) of maximal sigma."""
    n = prob.shape[0]
    prob = prob.astype(np.float32)
    zm = np.cumsum(prob, dtype=np.float32)
    fm_terms = np.arange(n, dtype=np.float32) * prob
    fm_terms[0] = prob[0]
    fm = np.cumsum(fm_terms, dtype=np.float32)
    H = np.zeros((n, n), dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        j = np.arange(1, n)
        ok = zm[j] > 0
        H[0, j[ok]] = (fm[j[ok]] ** 2) / zm[j[ok]]
        for i in range(1, n):
            z = zm[i:] - zm[i - 1]
            f = fm[i:] - fm[i - 1]
            row = np.zeros(n - i, dtype=np.float32)
            pos = z > 0
            row[pos] = (f[pos] ** 2) / z[pos]
            H[i, i:] = row
    best, best_idx = np.float32(0), None
    combos_iter = itertools.combinations(range(n - 1), k)
    while True:
        chunk = np.array(list(itertools.islice(combos_iter, 1 << 20)), dtype=np.intp)
        if chunk.size == 0:
            break
        chunk = chunk.reshape(-1, k)
        sigma = H[0, chunk[:, 0]] + H[chunk[:, k - 1] + 1, n - 1]
        for t in range(k - 1):
            sigma = sigma + H[chunk[:, t] + 1, chunk[:, t + 1]]
        a = int(np.argmax(sigma))
        if sigma[a] > best:
            best, best_idx = sigma[a], chunk[a].copy()
    if best_idx is None:
        best_idx = np.zeros(k, dtype=np.intp)
    return best_idx


def threshold_multiotsu(image=None, classes=3, nbins=256, *, hist=None):
    """classes - 1 thresholds maximising the between-class variance (multi-Otsu)."""
    if image is not None:
        image = ix.prepare(image)[0]
        if image.ndim > 2 and image.shape[-1] in (3, 4):
            warnings.warn(f"threshold_multiotsu is expected to work correctly only for grayscale images; image "
                          f"shape {image.shape} looks like that of an RGB image.", UserWarning, stacklevel=2)
    prob, centers = _validate_image_histogram(image, hist, nbins, normalize=True)
    prob = _host(prob).astype("float32", copy=False)
    centers = _host(centers)
    nvalues = np.count_nonzero(prob)
    if nvalues < classes:
        raise ValueError(f"After discretization into bins, the input image has only {nvalues} different values. "
                         f"It cannot be thresholded in {classes} classes. If there are more unique values before "
                         "discretization, try increasing the number of bins (`nbins`).")
    elif nvalues == classes:
        idx = np.flatnonzero(prob)[:-1]
    else:
        idx = _multiotsu_lut_indices(prob, classes - 1)
    return centers[idx]
