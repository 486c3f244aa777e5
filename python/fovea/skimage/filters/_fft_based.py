"""scikit-image 0.26's ``filters.butterworth`` on fovea: the transforms in
fovea.fft (fovea's engine on the CPU, cuFFT on a GPU), the filter built and
applied in NumPy or CuPy on the image's device."""

import functools

import numpy as np

from ... import _interop
from ... import fft as _fft
from .._shared import supported_float_type

__all__ = ["butterworth"]


def _get_nd_butterworth_filter(shape, factor, order, high_pass, real, xp, dtype=np.float64,
                               squared_butterworth=True):
    """The n-d Butterworth filter in the frequency domain (a half spectrum along the
    last axis when real), made on xp's device."""
    ranges = []
    for d in shape:
        axis = np.arange(-(d - 1) // 2, (d - 1) // 2 + 1) / (d * factor)
        ranges.append(np.fft.ifftshift(axis**2))
    if real:
        limit = shape[-1] // 2 + 1
        ranges[-1] = ranges[-1][:limit]
    if xp is not np:
        ranges = [xp.asarray(r) for r in ranges]
    q2 = functools.reduce(xp.add, xp.meshgrid(*ranges, indexing="ij", sparse=True))
    q2 = q2.astype(dtype)
    q2 = xp.power(q2, order)
    wfilt = 1 / (1 + q2)
    if high_pass:
        wfilt *= q2
    if not squared_butterworth:
        xp.sqrt(wfilt, out=wfilt)
    return wfilt


def butterworth(image, cutoff_frequency_ratio=0.005, high_pass=True, order=2.0, channel_axis=None, *,
                squared_butterworth=True, npad=0):
    """Apply a Butterworth filter to enhance high or low frequency features
    (skimage.filters.butterworth); real images give real results, complex ones
    complex results."""
    img, xp, back = _interop.prepare(image, "fovea.skimage.filters.butterworth")
    if npad < 0:
        raise ValueError("npad must be >= 0")
    elif npad > 0:
        center_slice = tuple(slice(npad, s + npad) for s in img.shape)
        img = xp.pad(img, npad, mode="edge")
    fft_shape = img.shape if channel_axis is None else tuple(np.delete(img.shape, channel_axis))
    is_real = not xp.iscomplexobj(img)
    float_dtype = supported_float_type(img, allow_complex=True)
    img = img.astype(float_dtype, copy=False)   # as scikit-image / cuCIM (float32 for CuPy uint8)
    if cutoff_frequency_ratio < 0 or cutoff_frequency_ratio > 0.5:
        raise ValueError("cutoff_frequency_ratio should be in the range [0, 0.5]")
    wfilt = _get_nd_butterworth_filter(fft_shape, cutoff_frequency_ratio, order, high_pass, is_real, xp,
                                       float_dtype, squared_butterworth)
    axes = list(range(img.ndim))
    if channel_axis is not None:
        axes = list(np.delete(np.arange(img.ndim), channel_axis))
        abs_channel = channel_axis % img.ndim
        post = img.ndim - abs_channel - 1
        sl = (slice(None),) * abs_channel + (None,) + (slice(None),) * post
        wfilt = wfilt[sl]
    if is_real:
        out = _fft.irfftn(wfilt * _fft.rfftn(img, axes=axes), s=fft_shape, axes=axes)
    else:
        out = _fft.ifftn(wfilt * _fft.fftn(img, axes=axes), s=fft_shape, axes=axes)
    if npad > 0:
        out = out[center_slice]
    return back(out)
