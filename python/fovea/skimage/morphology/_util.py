"""Small helpers shared by the fovea.skimage.morphology modules."""

import functools

import numpy as np

from ... import _interop as ix
from .footprints import _footprint_is_sequence


def binary_structure(ndim, connectivity):
    """scipy.ndimage.generate_binary_structure(ndim, connectivity) as NumPy bool."""
    if ndim < 1:
        return np.array(True, dtype=bool)
    dist = np.abs(np.indices((3,) * ndim) - 1).sum(axis=0)
    return dist <= connectivity


def host_footprint(footprint):
    """footprint (an array or a sequence of (array, n) pairs, possibly on the
    device) with every array in host memory."""
    if footprint is None:
        return None
    if _footprint_is_sequence(footprint):
        return tuple((ix.host(fp), n) for fp, n in footprint)
    return ix.host(footprint)


def default_footprint(func):
    """Fill footprint=None with the connectivity-1 cross of the image's ndim."""

    @functools.wraps(func)
    def wrapper(image, footprint=None, *args, **kwargs):
        if footprint is None:
            footprint = binary_structure(ix.ndim_of(image), 1)
        return func(image, footprint=footprint, *args, **kwargs)

    return wrapper
