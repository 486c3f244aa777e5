"""Grayscale morphology (skimage.morphology.gray of scikit-image 0.26) on the
scipy.ndimage layer of fovea: NumPy data on the CPU, CuPy / PyTorch CUDA data
on the GPU, the result in the input's array type."""

import numpy as np

from ... import ndimage as ndi
from ... import _interop as ix
from ._util import default_footprint, host_footprint
from .footprints import _footprint_is_sequence, mirror_footprint, pad_footprint

__all__ = ["erosion", "dilation", "opening", "closing", "white_tophat", "black_tophat"]

_SUPPORTED_MODES = {"reflect", "constant", "nearest", "mirror", "wrap", "max", "min", "ignore"}


def _iterate_gray_func(gray_func, image, footprints, out, mode, cval):
    """Apply gray_func for every (footprint, repetitions) pair in turn, into out."""
    first = True
    for fp, num_iter in footprints:
        for _ in range(num_iter):
            src = image if first else out.copy()
            gray_func(src, footprint=fp, output=out, mode=mode, cval=cval)
            first = False
    return out


def _min_max_to_constant_mode(dtype, mode, cval):
    """'max' / 'min' padding as 'constant' with the dtype's largest / smallest value."""
    if mode not in ("max", "min"):
        return mode, cval
    top = mode == "max"
    if np.issubdtype(dtype, np.bool_):
        cval = top
    elif np.issubdtype(dtype, np.integer):
        cval = np.iinfo(dtype).max if top else np.iinfo(dtype).min
    else:
        cval = np.inf if top else -np.inf
    return "constant", cval


def _as_sequence(footprint):
    return footprint if _footprint_is_sequence(footprint) else [(footprint, 1)]


def _gray(func, image, footprint, out, mode, cval, ignore, mirror):
    img, _, back = ix.prepare(image)
    out_in = ix.inner(out, img)
    xp = ix.xp_of(img)
    if out_in is None:
        out_in = xp.empty_like(img)
    if mode not in _SUPPORTED_MODES:
        raise ValueError(f"unsupported mode, got {mode!r}")
    if mode == "ignore":
        mode = ignore
    mode, cval = _min_max_to_constant_mode(img.dtype, mode, cval)
    footprint = pad_footprint(host_footprint(footprint), pad_end=False)
    if mirror:
        footprint = mirror_footprint(footprint)
    _iterate_gray_func(func, img, _as_sequence(footprint), out_in, mode, cval)
    return out if out is not None else back(out_in)


@default_footprint
def erosion(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """Grayscale erosion: the minimum over the footprint at every pixel.

    footprint: array or sequence of (array, repetitions) (default: the
    connectivity-1 cross); even extents are padded at the start. mode: 'reflect',
    'constant' (with cval), 'nearest', 'mirror', 'wrap', 'max', 'min' or 'ignore'
    (pixels outside count as the dtype's maximum). out: optional output array.
    """
    return _gray(ndi.grey_erosion, image, footprint, out, mode, cval, "max", False)


@default_footprint
def dilation(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """Grayscale dilation: the maximum over the (mirrored) footprint at every pixel.

    Arguments as for erosion; 'ignore' counts outside pixels as the dtype's minimum.
    """
    return _gray(ndi.grey_dilation, image, footprint, out, mode, cval, "min", True)


@default_footprint
def opening(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """Erosion followed by dilation with the mirrored footprint."""
    footprint = pad_footprint(host_footprint(footprint), pad_end=False)
    eroded = erosion(image, footprint, mode=mode, cval=cval)
    return dilation(eroded, mirror_footprint(footprint), out=out, mode=mode, cval=cval)


@default_footprint
def closing(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """Dilation followed by erosion with the mirrored footprint."""
    footprint = pad_footprint(host_footprint(footprint), pad_end=False)
    dilated = dilation(image, footprint, mode=mode, cval=cval)
    return erosion(dilated, mirror_footprint(footprint), out=out, mode=mode, cval=cval)


def _tophat(image, footprint, out, mode, cval, white):
    img, _, back = ix.prepare(image)
    xp = ix.xp_of(img)
    if out is image:   # in place: keep the input until the end
        smooth = (opening if white else closing)(img, footprint, mode=mode, cval=cval)
        if np.issubdtype(smooth.dtype, np.bool_):
            xp.logical_xor(img, smooth, out=img)
        elif white:
            img -= smooth
        else:
            xp.subtract(smooth, img, out=img)
        return out
    out_in = ix.inner(out, img)
    res = (opening if white else closing)(img, footprint, out=out_in, mode=mode, cval=cval)
    if np.issubdtype(res.dtype, np.bool_):
        xp.logical_xor(img, res, out=res)
    elif white:
        xp.subtract(img, res, out=res)
    else:
        res -= img
    return out if out is not None else back(res)


@default_footprint
def white_tophat(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """image minus its opening (bool images: exclusive or)."""
    return _tophat(image, footprint, out, mode, cval, True)


@default_footprint
def black_tophat(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """The closing of image minus image (bool images: exclusive or)."""
    return _tophat(image, footprint, out, mode, cval, False)
