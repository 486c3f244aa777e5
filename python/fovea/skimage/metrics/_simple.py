"""mean_squared_error, normalized_root_mse, peak_signal_noise_ratio and
normalized_mutual_information (skimage.metrics.simple_metrics): reductions in
NumPy on the host, CuPy on a GPU. Scalars come back as NumPy float64 (host) or
0-d CuPy arrays (GPU), as scikit-image and cuCIM return them."""

import numpy as np

from .._shared import supported_float_type
from ._common import as_floats, check_same_shape, dtype_range, two, warn

__all__ = ["mean_squared_error", "normalized_root_mse", "peak_signal_noise_ratio", "normalized_mutual_information"]


def _mse(a, b, xp):
    """Mean of (a - b)**2 in float64. a, b: their common float type already
    (float32 squares stay float32, as scikit-image's). Host float64: one
    subtraction and a sum of products instead of a squared copy and a mean,
    equal to rounding. np.einsum, not np.dot: BLAS's ddot runs on OpenBLAS's
    own threads, whatever fovea's thread count, and on a busy machine waited
    for them up to 8 ms for a 512^2 image (einsum: 0.1 ms, one thread)."""
    if xp is np and a.dtype == np.float64 and b.dtype == np.float64 and a.size:
        d = np.subtract(a, b).reshape(-1)
        return np.float64(np.einsum("i,i->", d, d) / d.size)
    d = a - b
    xp.multiply(d, d, out=d)
    return xp.mean(d, dtype=np.float64)


def _mse_images(a, b, xp):
    """MSE of two images as scikit-image computes it (both in the supported
    float type of their dtypes), converting integers on the fly in the
    subtraction instead of in two float copies."""
    ft = supported_float_type((a, b))
    if xp is np and ft == np.float64 and a.size:
        d = np.subtract(a, b, dtype=np.float64).reshape(-1)
        return np.float64(np.einsum("i,i->", d, d) / d.size)
    return _mse(a.astype(ft, copy=False), b.astype(ft, copy=False), xp)


def mean_squared_error(image0, image1):
    """Mean of the squared differences, in float64, of the two images taken in
    the supported float type of their dtypes."""
    a, b, xp, _ = two(image0, image1)
    check_same_shape(a, b)
    return _mse_images(a, b, xp)


def normalized_root_mse(image_true, image_test, *, normalization="euclidean"):
    """sqrt(MSE) divided by sqrt(mean(image_true**2)) ('euclidean'),
    max - min of image_true ('min-max') or its mean ('mean')."""
    a, b, xp, _ = two(image_true, image_test, "image_test")
    check_same_shape(a, b)
    a, b = as_floats(a, b, xp)
    normalization = normalization.lower()
    if normalization == "euclidean":
        denom = xp.sqrt(xp.mean(a * a, dtype=np.float64))
    elif normalization == "min-max":
        denom = a.max() - a.min()
    elif normalization == "mean":
        denom = a.mean()
    else:
        raise ValueError("Unsupported norm_type")
    return xp.sqrt(_mse(a, b, xp)) / denom


def peak_signal_noise_ratio(image_true, image_test, *, data_range=None):
    """10 log10(data_range**2 / MSE). Without data_range: the dtype's maximum
    when image_true has no negative values, else max - min of the dtype
    (floats: -1..1); ValueError when image_true lies outside that range."""
    a, b, xp, _ = two(image_true, image_test, "image_test")
    check_same_shape(a, b)
    if data_range is None:
        if a.dtype != b.dtype:
            warn("Inputs have mismatched dtype.  Setting data_range based on image_true.")
        dmin, dmax = dtype_range(a.dtype)
        tmin, tmax = a.min(), a.max()
        if xp is not np:
            tmin, tmax = tmin.item(), tmax.item()
        if tmax > dmax or tmin < dmin:
            raise ValueError(
                "image_true has intensity values outside the range expected "
                "for its data type. Please manually specify the data_range."
            )
        data_range = dmax if tmin >= 0 else dmax - dmin
    err = _mse_images(a, b, xp)
    data_range = float(data_range)
    with np.errstate(divide="ignore"):
        return 10 * xp.log10(data_range**2 / err)


def _pad_to(arr, shape, xp):
    if not all(s >= i for s, i in zip(shape, arr.shape)):
        raise ValueError(f"Target shape {shape} cannot be smaller than inputshape {arr.shape} along any axis.")
    return xp.pad(arr, [(0, s - i) for s, i in zip(shape, arr.shape)], mode="constant", constant_values=0)


def _entropy(p, xp):
    """Shannon entropy (natural log) of the distribution proportional to p."""
    p = p / p.sum()
    nz = p[p > 0]
    return -(nz * xp.log(nz)).sum()


def normalized_mutual_information(image0, image1, *, bins=100):
    """(H(image0) + H(image1)) / H(image0, image1) from a joint histogram with
    `bins` bins per image; images of different shapes are zero-padded to a
    common one (same ndim required)."""
    a, b, xp, _ = two(image0, image1)
    if a.ndim != b.ndim:
        raise ValueError(
            f"NMI requires images of same number of dimensions. Got {a.ndim}D for `image0` and "
            f"{b.ndim}D for `image1`."
        )
    if a.shape != b.shape:
        shape = tuple(max(s, t) for s, t in zip(a.shape, b.shape))
        a, b = _pad_to(a, shape, xp), _pad_to(b, shape, xp)
    hist, _ = xp.histogramdd([a.reshape(-1), b.reshape(-1)], bins=bins, density=True)
    h0 = _entropy(hist.sum(axis=0), xp)
    h1 = _entropy(hist.sum(axis=1), xp)
    h01 = _entropy(hist.reshape(-1), xp)
    return (h0 + h1) / h01
