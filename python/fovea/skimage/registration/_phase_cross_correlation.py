"""scikit-image 0.26's phase_cross_correlation on fovea: the transforms in
fovea.fft (fovea's engine on the CPU, cuFFT on a GPU), the products in NumPy or
CuPy on the images' device, the subpixel refinement by matrix-multiply DFT
(Guizar-Sicairos et al. 2008) with the DFT kernels made on the host as
scikit-image makes them. The shift comes back as a NumPy array (as
scikit-image's), error and phase difference as NumPy scalars."""

import itertools
import warnings

import numpy as np

from ... import _interop
from ... import fft as _fft
from ... import ndimage as _ndi
from ._masked_phase_cross_correlation import _masked_phase_cross_correlation

__all__ = ["phase_cross_correlation"]


def _host_scalar(v):
    return np.asarray(_interop.to_host(v))[()]


def _upsampled_dft(data, upsampled_region_size, upsample_factor=1, axis_offsets=None):
    """The upsampled DFT of data (a working array) around axis_offsets, by matrix
    multiplication."""
    if not hasattr(upsampled_region_size, "__iter__"):
        upsampled_region_size = [upsampled_region_size] * data.ndim
    elif len(upsampled_region_size) != data.ndim:
        raise ValueError("shape of upsampled region sizes must be equal to input data's number of dimensions.")
    if axis_offsets is None:
        axis_offsets = [0] * data.ndim
    elif len(axis_offsets) != data.ndim:
        raise ValueError("number of axis offsets must be equal to input data's number of dimensions.")
    xp = _interop.xp_of(data)
    im2pi = 1j * 2 * np.pi
    dim_properties = list(zip(data.shape, upsampled_region_size, axis_offsets))
    for n_items, ups_size, ax_offset in dim_properties[::-1]:
        kernel = (np.arange(ups_size) - ax_offset)[:, None] * np.fft.fftfreq(n_items, upsample_factor)
        kernel = np.exp(-im2pi * kernel).astype(data.dtype, copy=False)
        data = xp.tensordot(_interop.like_device(kernel, data), data, axes=(1, -1))
    return data


def _compute_phasediff(cross_correlation_max):
    return np.arctan2(cross_correlation_max.imag, cross_correlation_max.real)


def _compute_error(cross_correlation_max, src_amp, target_amp):
    amp = src_amp * target_amp
    if amp == 0:
        warnings.warn(
            "Could not determine RMS error between images with the normalized average intensities "
            f"{src_amp!r} and {target_amp!r}. Either the reference or moving image may be empty.",
            UserWarning, stacklevel=3)
    with np.errstate(invalid="ignore"):
        error = 1.0 - cross_correlation_max * cross_correlation_max.conj() / amp
    return np.sqrt(np.abs(error))


def _disambiguate_shift(reference_image, moving_image, shift):
    """The real-space shift among the 2^ndim periodic candidates with the highest
    cross-correlation of the overlapping quadrants (working arrays)."""
    xp = _interop.xp_of(reference_image)
    shape = reference_image.shape
    positive_shift = [shift_i % s for shift_i, s in zip(shift, shape)]
    negative_shift = [shift_i - s for shift_i, s in zip(positive_shift, shape)]
    subpixel = np.any(np.array(shift) % 1 != 0)
    interp_order = 3 if subpixel else 0
    shifted = _ndi.shift(moving_image, shift, mode="grid-wrap", order=interp_order)
    indices = np.round(positive_shift).astype(int)
    splits_per_dim = [(slice(0, i), slice(i, None)) for i in indices]
    max_corr = -1.0
    max_slice = None
    for test_slice in itertools.product(*splits_per_dim):
        reference_tile = xp.reshape(reference_image[test_slice], -1)
        moving_tile = xp.reshape(shifted[test_slice], -1)
        corr = -1.0
        if reference_tile.size > 2:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", category=RuntimeWarning)
                with np.errstate(all="ignore"):
                    corr = _host_scalar(xp.corrcoef(reference_tile, moving_tile)[0, 1])
        if corr > max_corr:
            max_corr = corr
            max_slice = test_slice
    if max_slice is None:
        warnings.warn(
            f"Could not determine real-space shift for periodic shift {shift!r} as requested by "
            "`disambiguate=True` (disambiguation is degenerate).", stacklevel=3)
        return shift
    real_shift_acc = []
    for sl, pos_shift, neg_shift in zip(max_slice, positive_shift, negative_shift):
        real_shift_acc.append(pos_shift if sl.stop is None else neg_shift)
    return np.array(real_shift_acc)


def phase_cross_correlation(reference_image, moving_image, *, upsample_factor=1, space="real",
                            disambiguate=False, reference_mask=None, moving_mask=None, overlap_ratio=0.3,
                            normalization="phase"):
    """Subpixel image translation registration by cross-correlation
    (skimage.registration.phase_cross_correlation): returns (shift, error, phasediff).

    With ``reference_mask`` / ``moving_mask``: the masked normalized
    cross-correlation (error and phasediff NaN). NumPy images run on the CPU (fovea's
    FFT engine), CuPy / CUDA torch images on their GPU.
    """
    what = "fovea.skimage.registration.phase_cross_correlation"
    ref, xp, _ = _interop.prepare(reference_image, what)
    mov = _interop.like_input(moving_image, ref, "moving_image", what)
    if (reference_mask is not None) or (moving_mask is not None):
        rmask = _interop.like_input(reference_mask, ref, "reference_mask", what)
        mmask = _interop.like_input(moving_mask, ref, "moving_mask", what)
        shift = _masked_phase_cross_correlation(ref, mov, rmask, mmask, overlap_ratio)
        return shift, np.nan, np.nan

    if ref.shape != mov.shape:
        raise ValueError("images must be same shape")
    if space.lower() == "fourier":
        src_freq, target_freq = ref, mov
    elif space.lower() == "real":
        src_freq, target_freq = _fft.fftn(ref), _fft.fftn(mov)
    else:
        raise ValueError('space argument must be "real" of "fourier"')

    shape = src_freq.shape
    image_product = src_freq * target_freq.conj()
    if normalization == "phase":
        eps = np.finfo(image_product.real.dtype).eps
        image_product /= xp.maximum(xp.abs(image_product), 100 * eps)
    elif normalization is not None:
        raise ValueError("normalization must be either phase or None")
    cross_correlation = _fft.ifftn(image_product)

    maxima = np.unravel_index(int(xp.argmax(xp.abs(cross_correlation))), cross_correlation.shape)
    midpoint = np.array([np.trunc(axis_size / 2) for axis_size in shape])
    float_dtype = image_product.real.dtype
    shift = np.stack(maxima).astype(float_dtype, copy=False)
    shift[shift > midpoint] -= np.array(shape)[shift > midpoint]

    if upsample_factor == 1:
        src_amp = _host_scalar(xp.sum(xp.real(src_freq * src_freq.conj()))) / src_freq.size
        target_amp = _host_scalar(xp.sum(xp.real(target_freq * target_freq.conj()))) / target_freq.size
        CCmax = _host_scalar(cross_correlation[maxima])
    else:
        upsample_factor = np.array(upsample_factor, dtype=float_dtype)
        shift = np.round(shift * upsample_factor) / upsample_factor
        upsampled_region_size = np.ceil(upsample_factor * 1.5)
        dftshift = np.trunc(upsampled_region_size / 2.0)
        sample_region_offset = dftshift - shift * upsample_factor
        cross_correlation = _upsampled_dft(image_product.conj(), upsampled_region_size, upsample_factor,
                                           sample_region_offset).conj()
        maxima = np.unravel_index(int(xp.argmax(xp.abs(cross_correlation))), cross_correlation.shape)
        CCmax = _host_scalar(cross_correlation[maxima])
        maxima = np.stack(maxima).astype(float_dtype, copy=False)
        maxima -= dftshift
        shift += maxima / upsample_factor
        src_amp = _host_scalar(xp.sum(xp.real(src_freq * src_freq.conj())))
        target_amp = _host_scalar(xp.sum(xp.real(target_freq * target_freq.conj())))

    for dim in range(src_freq.ndim):
        if shape[dim] == 1:
            shift[dim] = 0

    if disambiguate:
        if space.lower() != "real":
            ref = _fft.ifftn(ref)
            mov = _fft.ifftn(mov)
        shift = _disambiguate_shift(ref, mov, shift)

    if np.isnan(CCmax) or np.isnan(src_amp) or np.isnan(target_amp):
        raise ValueError(
            "NaN values found, please remove NaNs from your input data or use the "
            "`reference_mask`/`moving_mask` keywords, eg: phase_cross_correlation(reference_image, "
            "moving_image, reference_mask=~np.isnan(reference_image), moving_mask=~np.isnan(moving_image))")

    return shift, _compute_error(CCmax, src_amp, target_amp), _compute_phasediff(CCmax)
