"""scikit-image 0.26's rolling-ball background on fovea: the background is a
grey erosion of the image by the ball's (or kernel's) height profile, run by
fovea.ndimage.grey_erosion (C on the CPU thread pool, CUDA for CuPy input)
with the image padded by +inf as scikit-image pads it."""

import numpy as np

from ... import _interop as ix
from ... import ndimage as ndi
from .._shared import supported_float_type

__all__ = ["rolling_ball", "ball_kernel", "ellipsoid_kernel"]

_UNSET = object()


def rolling_ball(image, *, radius=100, kernel=None, nansafe=False, num_threads=_UNSET, workers=None):
    """Background intensity by rolling a ball (or `kernel`) under the image
    landscape (skimage.restoration.rolling_ball), n-d. `workers` /
    `num_threads` are accepted and ignored (fovea's thread pool decides)."""
    if num_threads is not _UNSET:
        import warnings
        warnings.warn("`num_threads` is deprecated since 0.26; use `workers`", FutureWarning, stacklevel=2)
    img, xp, back = ix.prepare(image, "rolling_ball")
    float_type = supported_float_type(img)
    work = img.astype(float_type, copy=False)
    if kernel is None:
        kernel = ball_kernel(radius, img.ndim)
    kernel = np.asarray(ix.host(kernel)).astype(float_type)
    if kernel.ndim != img.ndim:
        raise ValueError("the kernel must have as many dimensions as the image")
    center = tuple(s // 2 for s in kernel.shape)
    diff = kernel[center] - kernel
    finite = kernel != np.inf
    diff = np.where(finite, diff, 0).astype(float_type)
    # scikit-image's loop skips NaN sums (min_value > NaN is false); with
    # nansafe any NaN in the kernel's box makes the result NaN
    nan = xp.isnan(work)
    work = xp.where(nan, xp.asarray(np.inf, dtype=float_type), work)
    bg = ndi.grey_erosion(work, footprint=finite, structure=-diff, mode="constant", cval=np.inf)
    if nansafe:
        near = ndi.maximum_filter(nan.view(np.uint8), size=kernel.shape, mode="constant", cval=0)
        bg = xp.where(near.astype(bool), xp.asarray(np.nan, dtype=float_type), bg)
    return back(bg.astype(img.dtype, copy=False))


def ball_kernel(radius, ndim):
    """Height profile of the upper half of an ndim-ball of `radius`, +inf
    outside it (skimage.restoration.ball_kernel)."""
    r = np.ceil(radius)
    coords = np.stack(np.meshgrid(*[np.arange(-r, r + 1)] * ndim, indexing="ij"), axis=-1)
    sq = np.sum(coords**2, axis=-1)
    kernel = np.sqrt(np.clip(radius**2 - sq, 0, None))
    kernel[np.sqrt(sq) > radius] = np.inf
    return kernel


def ellipsoid_kernel(shape, intensity):
    """Height profile (intensity along the value axis) of the upper half of an
    ellipsoid with principal axes `shape`, +inf outside it
    (skimage.restoration.ellipsoid_kernel)."""
    semi = np.clip(np.asarray(shape) // 2, 1, None)
    coords = np.stack(np.meshgrid(*[np.arange(-x, x + 1) for x in semi], indexing="ij"), axis=-1)
    scaling = 1 - np.sum((coords / semi) ** 2, axis=-1)
    kernel = intensity * np.sqrt(np.clip(scaling, 0, None))
    kernel[scaling < 0] = np.inf
    return kernel
