"""scikit-image 0.26's wavelet denoising and wavelet noise estimate on fovea,
on fovea's own discrete wavelet transform (_dwt: no PyWavelets), NumPy or CuPy
array maths."""

import functools
import numbers
import warnings

import numpy as np

from ... import _interop as ix
from .._shared import img_as_float, slice_at_axis
from . import _dwt

__all__ = ["denoise_wavelet", "estimate_sigma"]

_NORM_PPF_075 = 0.6744897501960817   # scipy.stats.norm.ppf(0.75)


def _bayes_thresh(details, var, xp):
    dvar = float(xp.mean(details * details))
    eps = np.finfo(details.dtype).eps
    return var / np.sqrt(max(dvar - var, eps))


def _sigma_est_dwt(detail_coeffs, xp, distribution="Gaussian"):
    """Donoho & Johnstone's median absolute deviation estimate of the noise."""
    if distribution.lower() != "gaussian":
        raise ValueError("Only Gaussian noise estimation is currently supported")
    d = detail_coeffs[xp.nonzero(detail_coeffs)]
    return float(xp.median(xp.abs(d))) / _NORM_PPF_075


def _wavelet_threshold(image, wavelet, xp, method=None, threshold=None, sigma=None, mode="soft",
                       wavelet_levels=None):
    w = _dwt.Wavelet(wavelet)
    if not w.orthogonal:
        warnings.warn(f"Wavelet thresholding was designed for use with orthogonal wavelets. For nonorthogonal "
                      f"wavelets such as {w.name},results are likely to be suboptimal.", UserWarning, stacklevel=4)
    extent = tuple(slice(s) for s in image.shape)
    if wavelet_levels is None:
        wavelet_levels = max(_dwt.dwtn_max_level(image.shape, w) - 3, 1)
    coeffs = _dwt.wavedecn(image, w, level=wavelet_levels, xp=xp)
    dcoeffs = coeffs[1:]
    if sigma is None:
        sigma = _sigma_est_dwt(dcoeffs[-1]["d" * image.ndim], xp)
    if method is not None and threshold is not None:
        warnings.warn(f"Thresholding method {method} selected. The user-specified threshold will be ignored.",
                      UserWarning, stacklevel=4)
    if threshold is None:
        var = sigma**2
        if method is None:
            raise ValueError("If method is None, a threshold must be provided.")
        if method == "BayesShrink":
            threshold = [{k: _bayes_thresh(lv[k], var, xp) for k in lv} for lv in dcoeffs]
        elif method == "VisuShrink":
            threshold = sigma * np.sqrt(2 * np.log(image.size))
        else:
            raise ValueError(f"Unrecognized method: {method}")
    if np.isscalar(threshold):
        detail = [{k: _dwt.threshold(lv[k], threshold, mode, xp) for k in lv} for lv in dcoeffs]
    else:
        detail = [{k: _dwt.threshold(lv[k], t[k], mode, xp) for k in lv} for t, lv in zip(threshold, dcoeffs)]
    out = _dwt.waverecn([coeffs[0]] + detail, w, xp=xp)[extent]
    return out.astype(image.dtype)


def _scale_sigma_and_image(image, sigma, multichannel, rescale_sigma, xp):
    if multichannel:
        if isinstance(sigma, numbers.Number) or sigma is None:
            sigma = [sigma] * image.shape[-1]
        elif len(sigma) != image.shape[-1]:
            raise ValueError("When channel_axis is not None, sigma must be a scalar or have length equal to the "
                             "number of channels")
    if image.dtype.kind != "f":
        if rescale_sigma:
            range_pre = float(image.max()) - float(image.min())
        image = img_as_float(image, xp)
        if rescale_sigma:
            scale = (float(image.max()) - float(image.min())) / range_pre
            if multichannel:
                sigma = [s * scale if s is not None else s for s in sigma]
            elif sigma is not None:
                sigma *= scale
    elif image.dtype == np.float16:
        image = image.astype(np.float32)
    return image, sigma


def _rescale_sigma_rgb2ycbcr(sigmas):
    from ..color._tables import ycbcr_from_rgb
    if sigmas[0] is None:
        return sigmas
    sigmas = np.asarray(sigmas)
    var = sigmas * sigmas
    for i in range(3):
        sc = ycbcr_from_rgb[i, :]
        sigmas[i] = np.sqrt(np.sum(sc * sc * var))
    return sigmas


def denoise_wavelet(image, sigma=None, wavelet="db1", mode="soft", wavelet_levels=None, convert2ycbcr=False,
                    method="BayesShrink", rescale_sigma=True, *, channel_axis=None):
    """Wavelet shrinkage denoising, n-d (skimage.restoration.denoise_wavelet),
    with fovea's DWT ('symmetric' extension) in place of PyWavelets."""
    img, xp, back = ix.prepare(image, "denoise_wavelet")
    multichannel = channel_axis is not None
    if method not in ["BayesShrink", "VisuShrink"]:
        raise ValueError(f'Invalid method: {method}. The currently supported methods are "BayesShrink" and '
                         f'"VisuShrink".')
    if multichannel:
        channel_axis = channel_axis % img.ndim
        img = xp.moveaxis(img, channel_axis, -1)
    clip_output = img.dtype.kind != "f"
    if convert2ycbcr and not multichannel:
        raise ValueError("convert2ycbcr requires channel_axis to be set")
    img, sigma = _scale_sigma_and_image(img, sigma, multichannel, rescale_sigma, xp)
    kw = dict(method=method, mode=mode, wavelet_levels=wavelet_levels)
    if multichannel:
        if convert2ycbcr:
            from .. import color
            out = color.rgb2ycbcr(img)
            if rescale_sigma:
                sigma = _rescale_sigma_rgb2ycbcr(sigma)
            for i in range(3):
                lo, hi = float(out[..., i].min()), float(out[..., i].max())
                scale = hi - lo
                if scale == 0:
                    continue
                channel = (out[..., i] - lo) / scale
                s = sigma[i] / scale if sigma[i] is not None else None
                res = denoise_wavelet(channel, wavelet=wavelet, sigma=s, rescale_sigma=rescale_sigma, **kw)
                out[..., i] = res * scale + lo
            out = color.ycbcr2rgb(out)
        else:
            out = xp.empty_like(img)
            for c in range(img.shape[-1]):
                out[..., c] = _wavelet_threshold(img[..., c], wavelet, xp, sigma=sigma[c], **kw)
    else:
        out = _wavelet_threshold(img, wavelet, xp, sigma=sigma, **kw)
    if clip_output:
        lo = -1 if float(img.min()) < 0 else 0
        out = xp.clip(out, lo, 1)
    if multichannel:
        out = xp.moveaxis(out, -1, channel_axis)
    return back(out)


def estimate_sigma(image, average_sigmas=False, *, channel_axis=None):
    """Robust (median absolute deviation) estimate of the Gaussian noise's
    standard deviation from the finest 'db2' detail coefficients
    (skimage.restoration.estimate_sigma). Returns Python floats."""
    img, xp, _ = ix.prepare(image, "estimate_sigma")
    if channel_axis is not None:
        channel_axis = channel_axis % img.ndim
        at = functools.partial(slice_at_axis, axis=channel_axis)
        sigmas = [estimate_sigma(img[at(c)], channel_axis=None) for c in range(img.shape[channel_axis])]
        if average_sigmas:
            sigmas = np.mean(sigmas)
        return sigmas
    if img.shape[-1] <= 4:
        warnings.warn(f"image is size {img.shape[-1]} on the last axis, but channel_axis is None. If this is a "
                      f"color image, please set channel_axis=-1 for proper noise estimation.", UserWarning,
                      stacklevel=2)
    coeffs = _dwt.dwtn(img, "db2", xp=xp)
    return _sigma_est_dwt(coeffs["d" * img.ndim], xp)
