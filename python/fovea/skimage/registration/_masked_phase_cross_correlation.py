"""scikit-image 0.26's masked normalized cross-correlation (Padfield 2012) on
fovea.fft, the element-wise maths in NumPy or CuPy on the images' device."""

from functools import partial

import numpy as np

from ... import _interop
from ... import fft as _fft
from .._shared import supported_float_type


def next_fast_len(n):
    """The smallest 2-3-5-7-smooth length >= n (fast for fovea's FFT engine and cuFFT)."""
    k = max(int(n), 1)
    while True:
        r = k
        for p in (2, 3, 5, 7):
            while r % p == 0:
                r //= p
        if r == 1:
            return k
        k += 1


def _masked_phase_cross_correlation(reference_image, moving_image, reference_mask, moving_mask=None,
                                    overlap_ratio=0.3):
    """The shift registering moving_image with reference_image (working arrays: NumPy
    or CuPy), by masked normalized cross-correlation (a host NumPy array)."""
    if moving_mask is None:
        if reference_image.shape != moving_image.shape:
            raise ValueError("Input images have different shapes, moving_mask must be explicitly set.")
        moving_mask = reference_mask.astype(bool)
    for im, mask in [(reference_image, reference_mask), (moving_image, moving_mask)]:
        if im.shape != mask.shape:
            raise ValueError("Image sizes must match their respective mask sizes.")
    xp = _interop.xp_of(reference_image)
    xcorr = _cross_correlate(moving_image, reference_image, moving_mask, reference_mask, xp, "full",
                             tuple(range(moving_image.ndim)), overlap_ratio)
    xcorr = _interop.to_host(xcorr)
    maxima = np.stack(np.nonzero(xcorr == xcorr.max()), axis=1)
    center = np.mean(maxima, axis=0)
    shifts = center - np.array(reference_image.shape) + 1
    size_mismatch = np.array(moving_image.shape) - np.array(reference_image.shape)
    return -shifts + (size_mismatch / 2)


def cross_correlate_masked(arr1, arr2, m1, m2, mode="full", axes=(-2, -1), overlap_ratio=0.3):
    """Masked normalized cross-correlation between arrays (scikit-image's
    ``registration._masked_phase_cross_correlation.cross_correlate_masked``); the
    result is an array of arr1's kind."""
    if mode not in {"full", "same"}:
        raise ValueError(f"Correlation mode '{mode}' is not valid.")
    what = "fovea.skimage.registration.cross_correlate_masked"
    fixed_image, xp, back = _interop.prepare(arr1, what)
    moving_image = _interop.like_input(arr2, fixed_image, "arr2", what)
    m1 = _interop.like_input(m1, fixed_image, "m1", what)
    m2 = _interop.like_input(m2, fixed_image, "m2", what)
    return back(_cross_correlate(fixed_image, moving_image, m1, m2, xp, mode, axes, overlap_ratio))


def _cross_correlate(fixed_image, moving_image, m1, m2, xp, mode, axes, overlap_ratio):
    """cross_correlate_masked on working arrays of one device (module xp)."""
    float_dtype = supported_float_type((fixed_image, moving_image), allow_complex=True)
    if np.dtype(float_dtype).kind == "c":
        raise ValueError("complex-valued arr1, arr2 are not supported")
    fixed_image = fixed_image.astype(float_dtype)
    fixed_mask = xp.array(m1, dtype=bool)
    moving_image = moving_image.astype(float_dtype)
    moving_mask = xp.array(m2, dtype=bool)
    eps = np.finfo(float_dtype).eps

    all_axes = set(range(fixed_image.ndim))
    for axis in all_axes - set(axes):
        if fixed_image.shape[axis] != moving_image.shape[axis]:
            raise ValueError(f"Array shapes along non-transformation axes should be equal, but dimensions "
                             f"along axis {axis} are not.")

    final_shape = list(fixed_image.shape)
    for axis in axes:
        final_shape[axis] = fixed_image.shape[axis] + moving_image.shape[axis] - 1
    final_shape = tuple(final_shape)
    final_slice = tuple(slice(0, int(sz)) for sz in final_shape)
    fast_shape = tuple(next_fast_len(final_shape[ax]) for ax in axes)
    fft = partial(_fft.fftn, s=fast_shape, axes=axes)

    def ifft(x):
        return _fft.ifftn(x, s=fast_shape, axes=axes).real

    fixed_image[xp.logical_not(fixed_mask)] = 0.0
    moving_image[xp.logical_not(moving_mask)] = 0.0
    rotated_moving_image = _flip(moving_image, axes=axes)
    rotated_moving_mask = _flip(moving_mask, axes=axes)

    fixed_fft = fft(fixed_image)
    rotated_moving_fft = fft(rotated_moving_image)
    fixed_mask_fft = fft(fixed_mask.astype(float_dtype))
    rotated_moving_mask_fft = fft(rotated_moving_mask.astype(float_dtype))

    number_overlap_masked_px = ifft(rotated_moving_mask_fft * fixed_mask_fft)
    number_overlap_masked_px[:] = xp.round(number_overlap_masked_px)
    number_overlap_masked_px[:] = xp.fmax(number_overlap_masked_px, eps)
    masked_correlated_fixed_fft = ifft(rotated_moving_mask_fft * fixed_fft)
    masked_correlated_rotated_moving_fft = ifft(fixed_mask_fft * rotated_moving_fft)

    numerator = ifft(rotated_moving_fft * fixed_fft)
    numerator -= masked_correlated_fixed_fft * masked_correlated_rotated_moving_fft / number_overlap_masked_px

    fixed_squared_fft = fft(xp.square(fixed_image))
    fixed_denom = ifft(rotated_moving_mask_fft * fixed_squared_fft)
    fixed_denom -= xp.square(masked_correlated_fixed_fft) / number_overlap_masked_px
    fixed_denom[:] = xp.fmax(fixed_denom, 0.0)

    rotated_moving_squared_fft = fft(xp.square(rotated_moving_image))
    moving_denom = ifft(fixed_mask_fft * rotated_moving_squared_fft)
    moving_denom -= xp.square(masked_correlated_rotated_moving_fft) / number_overlap_masked_px
    moving_denom[:] = xp.fmax(moving_denom, 0.0)

    denom = xp.sqrt(fixed_denom * moving_denom)
    numerator = numerator[final_slice]
    denom = denom[final_slice]
    number_overlap_masked_px = number_overlap_masked_px[final_slice]

    if mode == "same":
        _centering = partial(_centered, newshape=fixed_image.shape, axes=axes)
        denom = _centering(denom)
        numerator = _centering(numerator)
        number_overlap_masked_px = _centering(number_overlap_masked_px)

    tol = 1e3 * eps * xp.max(xp.abs(denom), axis=axes, keepdims=True)
    nonzero_indices = denom > tol
    out = xp.zeros_like(denom, dtype=float_dtype)
    out[nonzero_indices] = numerator[nonzero_indices] / denom[nonzero_indices]
    xp.clip(out, -1, 1, out=out)
    number_px_threshold = overlap_ratio * xp.max(number_overlap_masked_px, axis=axes, keepdims=True)
    out[number_overlap_masked_px < number_px_threshold] = 0.0
    return out


def _centered(arr, newshape, axes):
    newshape = np.asarray(newshape)
    currshape = np.array(arr.shape)
    slices = [slice(None, None)] * arr.ndim
    for ax in axes:
        startind = (currshape[ax] - newshape[ax]) // 2
        slices[ax] = slice(startind, startind + newshape[ax])
    return arr[tuple(slices)]


def _flip(arr, axes=None):
    if axes is None:
        reverse = [slice(None, None, -1)] * arr.ndim
    else:
        reverse = [slice(None, None, None)] * arr.ndim
        for axis in axes:
            reverse[axis] = slice(None, None, -1)
    return arr[tuple(reverse)]
