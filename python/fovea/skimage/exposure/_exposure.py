"""skimage.exposure (scikit-image 0.26): histogram, cumulative_distribution,
equalize_hist, rescale_intensity, adjust_gamma / log / sigmoid,
is_low_contrast. Histograms and min / max run in fovea's C kernels; the
elementwise parts are array code on the input's own library (NumPy on the
host, CuPy on the GPU), in scikit-image's order of operations."""

import numpy as np

from ... import _interop as ix
from .._shared import cucim_rules
from ._hist import (DTYPE_RANGE, dtype_limits, histogram_core, integer_centers, float_bin_edges, outer_edges,
                    minmax, supported_float_type, warn, xp_of)

__all__ = ["histogram", "cumulative_distribution", "equalize_hist", "rescale_intensity", "adjust_gamma",
           "adjust_log", "adjust_sigmoid", "is_low_contrast", "intensity_range"]


def _histogram_xp(image, nbins=256, source_range="image", normalize=False, channel_axis=None):
    """histogram on an internal (NumPy / CuPy) array: (hist, bin_centers)."""
    xp = xp_of(image)
    sh = image.shape
    if len(sh) == 3 and sh[-1] < 4 and channel_axis is None:
        warn("This might be a color image. The histogram will be computed on the flattened image. You can "
             "instead apply this function to each color channel, or set channel_axis.")
    if channel_axis is not None:
        image = xp.moveaxis(image, channel_axis, -1)
        if np.issubdtype(image.dtype, np.integer):
            bins = integer_centers(image, source_range)
        else:
            if source_range not in ("image", "dtype"):
                raise ValueError(f"Incorrect value for `source_range` argument: {source_range}")
            rng = None if source_range == "image" else dtype_limits(image, clip_negative=False)
            first, last = outer_edges(image, rng)
            bins = float_bin_edges(image.dtype, nbins, first, last)
        hists = []
        for c in range(image.shape[-1]):
            h, bc = histogram_core(image[..., c], bins, source_range)
            if normalize:
                h = h / xp.sum(h)
            hists.append(h)
        return xp.stack(hists, axis=0), xp.asarray(bc)
    hist, centers = histogram_core(image, nbins, source_range)
    if normalize:
        hist = hist / xp.sum(hist)
    return hist, xp.asarray(centers)


def histogram(image, nbins=256, source_range="image", normalize=False, *, channel_axis=None):
    """Histogram of image: (hist, bin_centers), as skimage.exposure.histogram.
    Integer images get one bin per integer value (nbins ignored); float images
    nbins bins over the image's range ('image') or the dtype's ('dtype').
    A dask array (as scikit-image takes) gives the counts as a dask array, computed
    blockwise by fovea.dask.histogram."""
    if ix.is_dask(image):
        return _dask_histogram(image, nbins, source_range, normalize, channel_axis)
    img, _, back = ix.prepare(image)
    return back(_histogram_xp(img, nbins, source_range, normalize, channel_axis))


def _dask_histogram(image, nbins, source_range, normalize, channel_axis):
    import dask.array as da

    import fovea.dask as fd

    if source_range == "image" and channel_axis is None:
        hist, centers = fd.histogram(image, nbins)
        if normalize:
            hist = hist / np.sum(hist)
    else:
        hist, centers = _histogram_xp(np.asarray(image), nbins, source_range, normalize, channel_axis)
    return da.from_array(hist, chunks=hist.shape), centers


def _cdf_xp(image, nbins=256, mask=None):
    xp = xp_of(image)
    if mask is None:
        hist, centers = histogram_core(image, nbins, "image")
    else:
        hist, centers = histogram_core(image, nbins, "image", mask)
    cdf = xp.cumsum(hist)
    cdf = cdf / float(cdf[-1])
    if cucim_rules(image):   # cuCIM leaves the cdf in float64
        return cdf, xp.asarray(centers)
    return cdf.astype(supported_float_type(image), copy=False), xp.asarray(centers)


def cumulative_distribution(image, nbins=256):
    """(cdf, bin_centers) of image, as skimage.exposure.cumulative_distribution."""
    img, _, back = ix.prepare(image)
    return back(_cdf_xp(img, nbins))


def equalize_hist(image, nbins=256, mask=None):
    """Histogram equalisation (skimage.exposure.equalize_hist); mask: the pixels
    whose histogram is used. Returns float32 for float16/32 input, else float64 (CuPy data: float32 for
    bool and 8-/16-bit integers too, as cuCIM)."""
    img, _, back = ix.prepare(image)
    xp = xp_of(img)
    m = None
    if mask is not None:
        m = ix.like_input(mask, img, "mask")
        m = xp.asarray(m).astype(bool, copy=False)
        if m.shape != img.shape:
            raise IndexError("boolean index did not match indexed array")
        m = xp.ascontiguousarray(m)
    cdf, centers = _cdf_xp(img, nbins, m)
    x = img.ravel()
    if xp is not np:
        x = x.astype(np.float64)
        out = xp.interp(x, centers.astype(np.float64), cdf.astype(np.float64))
    elif img.dtype.kind in "iu" and img.dtype.itemsize <= 2 and x.size > 2 << (8 * img.dtype.itemsize):
        # 8-/16-bit integers: every value of the dtype through np.interp once, then a
        # table lookup (element-wise the same numbers; 512^2 uint8 8.6 -> 0.6 ms)
        u = np.dtype(f"u{img.dtype.itemsize}")
        lut = np.interp(np.arange(1 << (8 * u.itemsize), dtype=u).view(img.dtype), centers, cdf)
        out = lut[x.view(u)]
    else:
        out = np.interp(x, centers, cdf)
    out = out.reshape(img.shape)
    return back(out.astype(supported_float_type(img), copy=False))


def intensity_range(image, range_values="image", clip_negative=False):
    """(min, max) of image ('image'), of its dtype ('dtype' or a dtype name) or
    range_values itself, as skimage.exposure.intensity_range."""
    img = ix.prepare(image)[0]
    return _intensity_range(img, range_values, clip_negative)


def _intensity_range(image, range_values="image", clip_negative=False):
    if isinstance(range_values, str) and range_values == "dtype":
        range_values = image.dtype.type
    if isinstance(range_values, str) and range_values == "image":
        lo, hi, n = minmax(image)
        if n == 0:
            raise ValueError("zero-size array to reduction operation minimum which has no identity")
        return lo, hi
    if not isinstance(range_values, (tuple, list, np.ndarray)) and range_values in DTYPE_RANGE:
        i_min, i_max = DTYPE_RANGE[range_values]
        if clip_negative:
            i_min = 0
        return i_min, i_max
    i_min, i_max = range_values
    return i_min, i_max


def _output_dtype(dtype_or_range, image):
    if type(dtype_or_range) in (list, tuple, np.ndarray):   # the array's library's float type
        return supported_float_type(image)
    if type(dtype_or_range) is type:
        return dtype_or_range
    if dtype_or_range in DTYPE_RANGE:
        try:
            return np.dtype(dtype_or_range).type
        except TypeError:
            return np.uint16
    raise ValueError("Incorrect value for out_range, should be a valid image data type or a pair of values, "
                     f"got {dtype_or_range}.")


def _rescale_xp(image, in_range="image", out_range="dtype"):
    xp = xp_of(image)
    if isinstance(out_range, str) and out_range in ("dtype", "image"):
        out_dtype = _output_dtype(image.dtype.type, image)
    else:
        out_dtype = _output_dtype(out_range, image)
    imin, imax = map(float, _intensity_range(image, in_range))
    omin, omax = map(float, _intensity_range(image, out_range, clip_negative=(imin >= 0)))
    if np.any(np.isnan([imin, imax, omin, omax])):
        warn("One or more intensity levels are NaN. Rescaling will broadcast NaN to the full image. Provide "
             "intensity levels yourself to avoid this. E.g. with np.nanmin(image), np.nanmax(image).")
    image = xp.clip(image, imin, imax)
    if imin != imax:
        image = (image - imin) / (imax - imin)
        return (image * (omax - omin) + omin).astype(out_dtype)
    return xp.clip(image, omin, omax).astype(out_dtype)


def rescale_intensity(image, in_range="image", out_range="dtype"):
    """Stretch or shrink intensities (skimage.exposure.rescale_intensity).
    in_range / out_range: 'image', 'dtype', a dtype name ('uint10', ...) or a
    (min, max) pair. A dask array gives a lazy dask array (fovea.dask.skimage.exposure)."""
    if ix.is_dask(image):
        from fovea.dask.skimage.exposure import rescale_intensity as dask_rescale

        return dask_rescale(image, in_range, out_range)
    img, _, back = ix.prepare(image)
    return back(_rescale_xp(img, in_range, out_range))


def _assert_non_negative(image):
    lo, _, n = minmax(image)
    if n and lo < 0:
        raise ValueError("Image Correction methods work correctly only on images with non-negative values. "
                         "Use skimage.exposure.rescale_intensity.")


def adjust_gamma(image, gamma=1, gain=1):
    """Gamma correction O = I**gamma * gain over [0, 1]-scaled intensities."""
    img, _, back = ix.prepare(image)
    xp = xp_of(img)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    dtype = img.dtype.type
    if dtype is np.uint8:
        lut = 255 * gain * np.linspace(0, 1, 256) ** gamma
        lut = xp.asarray(np.minimum(np.rint(lut), 255).astype("uint8"))
        return back(lut[img])
    _assert_non_negative(img)
    limits = dtype_limits(img, clip_negative=True)
    scale = float(limits[1] - limits[0])
    return back(((img / scale) ** gamma * scale * gain).astype(dtype))


def _correct(image, inv, curve, gain=None):
    """adjust_log / adjust_sigmoid: curve(I / scale, xp) * scale (* gain) in the
    image's dtype, scale the range of non-negative values of the dtype (a 0-d
    result of the inverse: a scalar of the dtype)."""
    img, _, back = ix.prepare(image)
    xp = xp_of(img)
    _assert_non_negative(img)
    dtype = img.dtype.type
    lim = dtype_limits(img, True)
    scale = float(lim[1] - lim[0])
    out = curve(img / scale, xp) * scale
    if gain is not None:
        out = out * gain
    return back(out.astype(dtype) if out.ndim or not inv else dtype(out))


def adjust_log(image, gain=1, inv=False):
    """Logarithmic correction O = gain * log2(1 + I) (inv: gain * (2**I - 1))."""
    return _correct(image, inv, lambda x, xp: 2**x - 1 if inv else xp.log2(1 + x), gain)


def adjust_sigmoid(image, cutoff=0.5, gain=10, inv=False):
    """Sigmoid correction O = 1 / (1 + exp(gain * (cutoff - I)))."""
    return _correct(image, inv, lambda x, xp: 1 - 1 / (1 + xp.exp(gain * (cutoff - x))) if inv
                    else 1 / (1 + xp.exp(gain * (cutoff - x))))


def _img_as_float(image, xp):
    if image.dtype.kind == "f":
        return image
    if image.dtype == bool:
        return image.astype(np.float64)
    if image.dtype.kind == "u":
        return image.astype(np.float64) / float(np.iinfo(image.dtype).max)
    info = np.iinfo(image.dtype)
    return (image.astype(np.float64) - info.min) / float(info.max - info.min) * 2 - 1


def _rgb2gray(image, xp):
    rgb = _img_as_float(image, xp)
    coeffs = xp.asarray(np.array([0.2125, 0.7154, 0.0721], dtype=rgb.dtype))
    return rgb @ coeffs


def _rgba2rgb(image, xp, background=(1, 1, 1)):
    rgba = _img_as_float(image, xp)
    alpha = rgba[..., -1]
    channels = rgba[..., :-1]
    out = xp.empty_like(channels)
    for i, b in enumerate(background):
        out[..., i] = channels[..., i] * alpha + b * (1 - alpha)
    return xp.clip(out, 0, 1)


def is_low_contrast(image, fraction_threshold=0.05, lower_percentile=1, upper_percentile=99, method="linear"):
    """True when image's intensities between the two percentiles span less than
    fraction_threshold of its dtype's range (skimage.exposure.is_low_contrast)."""
    img = ix.prepare(image)[0]
    xp = xp_of(img)
    if img.dtype == bool:
        lo, hi, _n = minmax(img)
        return not (bool(hi == 1) and bool(lo == 0))
    if img.ndim == 3:
        if img.shape[2] == 4:
            img = _rgba2rgb(img, xp)
        if img.shape[2] == 3:
            img = _rgb2gray(img, xp)
    dlimits = dtype_limits(img, clip_negative=False)
    limits = xp.percentile(img, xp.asarray([lower_percentile, upper_percentile]))
    ratio = (limits[1] - limits[0]) / (dlimits[1] - dlimits[0])
    low = ratio < fraction_threshold   # NumPy: numpy.bool (scikit-image); CuPy: a 0-d array (cuCIM)
    return low if xp is np or cucim_rules(img) else np.bool_(bool(low))
