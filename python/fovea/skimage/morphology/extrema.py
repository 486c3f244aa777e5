"""Extrema (skimage.morphology.extrema of scikit-image 0.26): h-maxima and
h-minima through reconstruction, plateau-aware local maxima and minima on
fovea's C kernel (CPU: scikit-image's scan and flood fill; CUDA: iterative
propagation, which needs a point-symmetric footprint - an asymmetric one on CUDA
data runs on the host, with an explicit copy each way)."""

import warnings

import numpy as np

from ... import _fovea
from ... import _interop as ix
from .._shared import dtype_range
from ._util import binary_structure
from .grayreconstruct import reconstruction

__all__ = ["h_maxima", "h_minima", "local_maxima", "local_minima"]


def _dtype_limits(dtype):
    return dtype_range(dtype, other=(-1, 1))


def _add_constant_clip(image, const_value):
    lo, hi = _dtype_limits(image.dtype)
    if const_value > hi - lo:
        raise ValueError("The added constant is not compatiblewith the image data type.")
    result = image + const_value
    result[image > hi - const_value] = hi
    return result


def _subtract_constant_clip(image, const_value):
    lo, hi = _dtype_limits(image.dtype)
    if const_value > hi - lo:
        raise ValueError("The subtracted constant is not compatiblewith the image data type.")
    result = image - const_value
    result[image < const_value + lo] = lo
    return result


def _ptp(img, xp):
    """xp.ptp(img) (max - min in img's dtype); on the GPU one pass of fovea's min/max
    kernel for the dtypes it reads exactly (integers of up to 32 bits, float32/64)."""
    dt = np.dtype(img.dtype)
    if (not ix.on_gpu(img) or img.size == 0 or not (dt.kind in "iu" and dt.itemsize <= 4 or
                                                      dt in (np.float32, np.float64))):
        return xp.ptp(img)
    lo, hi, _ = _fovea.exp_minmax(img, None, ix.stream_of(img))
    with np.errstate(all="ignore"):   # the dtype's arithmetic, quiet as CuPy's: wraps as ptp does
        return (np.array([hi], dt) - np.array([lo], dt))[0]


def _h_extrema(image, h, footprint, maxima):
    img, _, back = ix.prepare(image)
    xp = ix.xp_of(img)
    if h > _ptp(img, xp):
        return back(xp.zeros(img.shape, dtype=np.uint8))
    if np.issubdtype(type(h), np.floating) and np.issubdtype(img.dtype, np.integer):
        if h % 1 != 0:
            warnings.warn(
                "possible precision loss converting image to floating point. To silence this warning, "
                "ensure image and h have same data type.",
                stacklevel=3,
            )
            img = img.astype(float)
        else:
            h = img.dtype.type(h)
    if h == 0:
        raise ValueError(
            "h = 0 is ambiguous, use local_maxima() instead?"
            if maxima
            else "h = 0 is ambiguous, use local_minima() instead?"
        )
    if np.issubdtype(img.dtype, np.floating):
        resolution = 2 * xp.finfo(img.dtype).resolution * xp.abs(img)
        shifted = img - h - resolution if maxima else img + h + resolution
    else:
        shifted = _subtract_constant_clip(img, h) if maxima else _add_constant_clip(img, h)
    rec = reconstruction(shifted, img, method="dilation" if maxima else "erosion", footprint=footprint)
    residue = img - rec if maxima else rec - img
    return back((residue >= h).astype(np.uint8))


def h_maxima(image, h, footprint=None, *, reconstruct_on_cpu=False):
    """The maxima of image with height >= h (uint8, 1 on them). reconstruct_on_cpu
    (cuCIM's): accepted; GPU data stays on the GPU."""
    return _h_extrema(image, h, footprint, True)


def h_minima(image, h, footprint=None, *, reconstruct_on_cpu=False):
    """The minima of image with depth >= h (uint8, 1 on them). reconstruct_on_cpu
    (cuCIM's): accepted; GPU data stays on the GPU."""
    return _h_extrema(image, h, footprint, False)


def _resolve_neighborhood(footprint, connectivity, ndim):
    if footprint is None:
        if connectivity is None:
            connectivity = ndim
        return binary_structure(ndim, connectivity)
    footprint = np.asarray(ix.host(footprint), dtype=bool)
    if footprint.ndim != ndim:
        raise ValueError("number of dimensions in image and footprint do notmatch")
    if any(s != 3 for s in footprint.shape):
        raise ValueError("dimension size in footprint is not 3")
    return footprint


def _local_extrema(image, footprint, connectivity, indices, allow_borders, minima):
    img, _, back = ix.prepare(image)
    xp = ix.xp_of(img)
    if img.dtype == np.float16:
        raise TypeError("dtype of `image` is float16 which is not supported, try upcasting to float32")
    if img.size == 0:
        if indices:
            return tuple(back(i) for i in xp.nonzero(img))
        return back(xp.zeros(img.shape, dtype=bool))
    if allow_borders:   # a frame of the minimum (minima: maximum): the borders become inner pixels
        pad = img.max() if minima else img.min()
        if ix.on_gpu(img):
            pad = pad.item()
        img = xp.pad(img, 1, mode="constant", constant_values=pad)
    if any(s < 3 for s in img.shape):
        warnings.warn(
            "maxima can't exist for an image with any dimension smaller 3 if borders aren't allowed",
            stacklevel=4,
        )
        flags = xp.zeros(img.shape, dtype=bool)
    else:
        fp = _resolve_neighborhood(footprint, connectivity, img.ndim)
        fpb = np.ascontiguousarray(fp, dtype=np.uint8)
        symmetric = bool(np.array_equal(fp, fp[(slice(None, None, -1),) * fp.ndim]))
        src = img
        if ix.on_gpu(img) and not symmetric:
            src = ix.to_host(img)   # documented: asymmetric footprints run on the host
        flags = ix.wrap(_fovea.skmorph_local_maxima(src, fpb.tobytes(), minima, ix.stream_of(src)), src)
        flags = ix.like_device(flags, img)
    if allow_borders:
        flags = flags[(slice(1, -1),) * flags.ndim]
    if indices:
        return tuple(back(i) for i in xp.nonzero(flags))
    return back(flags)


def local_maxima(image, footprint=None, connectivity=None, indices=False, allow_borders=True):
    """Local maxima: plateaus of equal values (connected through the footprint,
    default: full connectivity) with no larger neighbour. Returns a bool array,
    or with indices=True the tuple of their coordinates. allow_borders=False
    excludes maxima that touch the image border."""
    return _local_extrema(image, footprint, connectivity, indices, allow_borders, False)


def local_minima(image, footprint=None, connectivity=None, indices=False, allow_borders=True):
    """Local minima: as local_maxima with the order reversed."""
    return _local_extrema(image, footprint, connectivity, indices, allow_borders, True)
