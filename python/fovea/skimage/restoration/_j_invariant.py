"""scikit-image 0.26's J-invariant denoising and denoiser calibration on
fovea: the interpolation is fovea.ndimage.convolve, the denoiser whatever is
passed (fovea's denoisers keep CuPy input on the GPU)."""

import functools
import itertools

import numpy as np

from ... import _interop as ix
from ... import ndimage as ndi
from .._shared import img_as_float, supported_float_type

__all__ = ["denoise_invariant", "calibrate_denoiser"]


def _interpolate_image(image, xp, *, multichannel=False):
    """Each pixel replaced by the mean of its face neighbours (mirror border)."""
    nd = image.ndim - 1 if multichannel else image.ndim
    k = np.zeros((3,) * nd, dtype=image.dtype)
    for ax in range(nd):
        for s in (0, 2):
            idx = [1] * nd
            idx[ax] = s
            k[tuple(idx)] = 1
    k /= k.sum()
    if multichannel:
        interp = xp.zeros_like(image)
        for i in range(image.shape[-1]):
            interp[..., i] = ndi.convolve(image[..., i], k, mode="mirror")
        return interp
    return ndi.convolve(image, k, mode="mirror")


def _grid_slice(shape, *, offset, stride=3):
    phases = np.unravel_index(offset, (stride,) * len(shape))
    return tuple(slice(p, None, stride) for p in phases)


def _as_float(image, xp):
    image = img_as_float(image, xp)
    return image.astype(supported_float_type(image), copy=False)


def denoise_invariant(image, denoise_function, *, stride=4, masks=None, denoiser_kwargs=None):
    """The J-invariant version of denoise_function: each grid of masked pixels
    (stride^ndim of them) is denoised from an image where it was replaced by
    its neighbours' mean (skimage.restoration.denoise_invariant)."""
    img, xp, back = ix.prepare(image, "denoise_invariant")
    img = _as_float(img, xp)
    denoiser_kwargs = {} if denoiser_kwargs is None else denoiser_kwargs
    multichannel = denoiser_kwargs.get("channel_axis", None) is not None
    interp = _interpolate_image(img, xp, multichannel=multichannel)
    output = xp.zeros_like(img)
    if masks is None:
        nd = img.ndim - 1 if multichannel else img.ndim
        masks = (_grid_slice(img.shape[:nd], offset=i, stride=stride) for i in range(stride**nd))
    for mask in masks:
        work = img.copy()
        work[mask] = interp[mask]
        res = denoise_function(back(work), **denoiser_kwargs)
        output[mask] = ix.prepare(res)[0][mask]
    return back(output)


def _product_from_dict(d):
    keys = d.keys()
    for element in itertools.product(*d.values()):
        yield dict(zip(keys, element))


def _mse(a, b, xp):
    return float(xp.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))


def _calibrate_denoiser_search(image, denoise_function, denoise_parameters, *, stride=4, approximate_loss=True):
    img, xp, back = ix.prepare(image, "calibrate_denoiser")
    img = img_as_float(img, xp)
    tested = list(_product_from_dict(denoise_parameters))
    losses = []
    for kw in tested:
        multichannel = kw.get("channel_axis", None) is not None
        if not approximate_loss:
            den = ix.prepare(denoise_invariant(back(img), denoise_function, stride=stride, denoiser_kwargs=kw))[0]
            loss = _mse(img, den, xp)
        else:
            nd = img.ndim - 1 if multichannel else img.ndim
            mask = _grid_slice(img.shape[:nd], offset=stride**nd // 2, stride=stride)
            den = ix.prepare(denoise_invariant(back(img), denoise_function, masks=[mask], denoiser_kwargs=kw))[0]
            loss = _mse(img[mask], den[mask], xp)
        losses.append(loss)
    return tested, losses


def calibrate_denoiser(image, denoise_function, denoise_parameters, *, stride=4, approximate_loss=True,
                       extra_output=False):
    """The parameters of denoise_function (from the grid denoise_parameters)
    with the least J-invariant self-supervised loss, as a ready denoiser
    (skimage.restoration.calibrate_denoiser)."""
    tested, losses = _calibrate_denoiser_search(image, denoise_function, denoise_parameters, stride=stride,
                                                approximate_loss=approximate_loss)
    best = tested[int(np.argmin(losses))]
    fn = functools.partial(denoise_invariant, denoise_function=denoise_function, stride=stride,
                           denoiser_kwargs=best)
    if extra_output:
        return fn, (tested, losses)
    return fn
