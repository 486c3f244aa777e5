"""Gaussian and Laplacian pyramids (skimage.transform.pyramids): smoothing by
fovea.skimage.filters' gaussian, resampling by this package's resize."""

import math

from ..._interop import prepare
from .._shared import convert_to_float
from ..filters._gaussian import _gaussian
from ._warps import _resize

__all__ = ["pyramid_reduce", "pyramid_expand", "pyramid_gaussian", "pyramid_laplacian"]


def _smooth(image, xp, sigma, mode, cval, channel_axis):
    smoothed = xp.empty_like(image)
    if channel_axis is not None:
        channel_axis = channel_axis % image.ndim
        sigma = (sigma,) * (image.ndim - 1)
    _gaussian(image, xp, sigma=sigma, out=smoothed, mode=mode, cval=cval, channel_axis=channel_axis)
    return smoothed


def _check_factor(factor):
    if factor <= 1:
        raise ValueError("scale factor must be greater than 1")


def _shape(shape, f, channel_axis):
    return tuple(f(d) if ax != channel_axis else d for ax, d in enumerate(shape))


def _reduce(image, xp, downscale, sigma, order, mode, cval, preserve_range, channel_axis):
    _check_factor(downscale)
    image = convert_to_float(image, preserve_range, xp)
    if channel_axis is not None:
        channel_axis = channel_axis % image.ndim
    out_shape = _shape(image.shape, lambda d: math.ceil(d / float(downscale)), channel_axis)
    if sigma is None:
        sigma = 2 * downscale / 6.0
    smoothed = _smooth(image, xp, sigma, mode, cval, channel_axis)
    return _resize(smoothed, xp, out_shape, order=order, mode=mode, cval=cval, anti_aliasing=False)


def pyramid_reduce(image, downscale=2, sigma=None, order=1, mode="reflect", cval=0, preserve_range=False, *,
                   channel_axis=None):
    """Smooth, then shrink by downscale (size ceil(n / downscale)); sigma
    defaults to 2 * downscale / 6 (skimage.transform.pyramid_reduce)."""
    arr, xp, back = prepare(image)
    return back(_reduce(arr, xp, downscale, sigma, order, mode, cval, preserve_range, channel_axis))


def pyramid_expand(image, upscale=2, sigma=None, order=1, mode="reflect", cval=0, preserve_range=False, *,
                   channel_axis=None):
    """Grow by upscale (size ceil(upscale * n)), then smooth; sigma defaults to
    2 * upscale / 6 (skimage.transform.pyramid_expand)."""
    arr, xp, back = prepare(image)
    _check_factor(upscale)
    arr = convert_to_float(arr, preserve_range, xp)
    if channel_axis is not None:
        channel_axis = channel_axis % arr.ndim
    out_shape = _shape(arr.shape, lambda d: math.ceil(upscale * d), channel_axis)
    if sigma is None:
        sigma = 2 * upscale / 6.0
    resized = _resize(arr, xp, out_shape, order=order, mode=mode, cval=cval, anti_aliasing=False)
    return back(_smooth(resized, xp, sigma, mode, cval, channel_axis))


def pyramid_gaussian(image, max_layer=-1, downscale=2, sigma=None, order=1, mode="reflect", cval=0,
                     preserve_range=False, *, channel_axis=None):
    """Generator of the Gaussian pyramid: the (float) image, then successive
    pyramid_reduce layers until max_layer or until the shape stops changing."""
    arr, xp, back = prepare(image)
    _check_factor(downscale)
    arr = convert_to_float(arr, preserve_range, xp)

    def layers():
        layer = 0
        current_shape = arr.shape
        prev = arr
        yield back(arr)
        while layer != max_layer:
            layer += 1
            layer_image = _reduce(prev, xp, downscale, sigma, order, mode, cval, False, channel_axis)
            prev_shape = current_shape
            prev = layer_image
            current_shape = layer_image.shape
            if current_shape == prev_shape:
                break
            yield back(layer_image)

    return layers()


def pyramid_laplacian(image, max_layer=-1, downscale=2, sigma=None, order=1, mode="reflect", cval=0,
                      preserve_range=False, *, channel_axis=None):
    """Generator of the Laplacian pyramid: each layer is a (resized) image minus
    its smoothed version (skimage.transform.pyramid_laplacian)."""
    arr, xp, back = prepare(image)
    _check_factor(downscale)
    arr = convert_to_float(arr, preserve_range, xp)
    if sigma is None:
        sigma = 2 * downscale / 6.0

    def layers(max_layer=max_layer, channel_axis=channel_axis):
        current_shape = arr.shape
        smoothed = _smooth(arr, xp, sigma, mode, cval, channel_axis)
        yield back(arr - smoothed)
        if channel_axis is not None:
            channel_axis = channel_axis % arr.ndim
            spatial = list(current_shape)
            spatial.pop(channel_axis)
        else:
            spatial = current_shape
        if max_layer == -1:
            max_layer = math.ceil(math.log(max(spatial), downscale))
        for _ in range(max_layer):
            out_shape = _shape(current_shape, lambda d: math.ceil(d / float(downscale)), channel_axis)
            resized = _resize(smoothed, xp, out_shape, order=order, mode=mode, cval=cval, anti_aliasing=False)
            smoothed = _smooth(resized, xp, sigma, mode, cval, channel_axis)
            current_shape = resized.shape
            yield back(resized - smoothed)

    return layers()
