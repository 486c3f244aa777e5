"""skimage.exposure.match_histograms (scikit-image 0.26): unsigned images
count values with fovea's histogram kernel (np.bincount's counts), others go
through the array library's unique; the quantile interpolation is array code."""

import numpy as np

from ... import _interop as ix
from ._hist import _counts_int, minmax, supported_float_type, xp_of

__all__ = ["match_histograms"]


def _bincount(a):
    _, hi, n = minmax(a)
    return _counts_int(a, 0, int(hi) + 1 if n else 1)


def _match_cdf(source, template):
    xp = xp_of(source)
    if source.dtype.kind == "u":
        src_lookup = source.reshape(-1)
        src_counts = _bincount(source)
        tmpl_counts = _bincount(template)
        tmpl_values = xp.nonzero(tmpl_counts)[0]
        tmpl_counts = tmpl_counts[tmpl_values]
    else:
        _, src_lookup, src_counts = xp.unique(source.reshape(-1), return_inverse=True, return_counts=True)
        tmpl_values, tmpl_counts = xp.unique(template.reshape(-1), return_counts=True)
    src_q = xp.cumsum(src_counts) / source.size
    tmpl_q = xp.cumsum(tmpl_counts) / template.size
    vals = xp.interp(src_q, tmpl_q, tmpl_values.astype(np.float64) if xp is not np else tmpl_values)
    return vals[src_lookup.reshape(-1)].reshape(source.shape)


def match_histograms(image, reference, *, channel_axis=None):
    """image with its cumulative histogram matched to reference's (per channel
    with channel_axis)."""
    img, _, back = ix.prepare(image)
    ref = ix.like_input(reference, img, "reference")
    xp = xp_of(img)
    if img.ndim != ref.ndim:
        raise ValueError("Image and reference must have the same number of channels.")
    if channel_axis is not None:
        img = xp.moveaxis(img, channel_axis, -1)
        ref = xp.moveaxis(ref, channel_axis, -1)
        if img.shape[-1] != ref.shape[-1]:
            raise ValueError("Number of channels in the input image and reference image must match!")
        matched = xp.empty(img.shape, dtype=img.dtype)
        for c in range(img.shape[-1]):
            matched[..., c] = _match_cdf(xp.ascontiguousarray(img[..., c]), xp.ascontiguousarray(ref[..., c]))
        matched = xp.moveaxis(matched, -1, channel_axis)
    else:
        matched = _match_cdf(img, ref)
    if matched.dtype.kind == "f":
        matched = matched.astype(supported_float_type(img), copy=False)
    return back(matched)
