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



def skimage_neighbours(footprint, shape=None):
    """(bytes, fshape): the neighbours scikit-image's max_tree / flood use for a
    footprint (bool, odd extents, centre at fshape // 2), as a uint8 footprint for
    the C kernels (which leave its centre out and skip neighbours outside the image).

    skimage's _offsets_to_raveled_neighbors sorts the offsets by length (stable, C
    order), drops duplicate raveled offsets when the image is smaller than the
    footprint, and drops the first offset, assuming it is the centre (a footprint
    without its centre loses its first shortest offset). shape: max_tree's image
    shape; then, as its unravel_offsets does, each raveled offset is unravelled
    around the centre pixel of the image, raising its ValueError where that falls
    outside (images with an extent below 3) and giving its neighbours otherwise."""
    fp = np.asarray(footprint, dtype=bool)
    centre = tuple(s // 2 for s in fp.shape)
    idx = np.nonzero(fp)
    off = np.stack([i - c for i, c in zip(idx, centre)], axis=-1).reshape(-1, fp.ndim)
    off = off[np.argsort(np.sqrt(np.sum(off.astype(float) ** 2, axis=1)), kind="stable")]
    if shape is None:
        off = off[1:]
    else:
        factors = np.cumprod((tuple(shape[1:]) + (1,))[::-1])[::-1]
        flat = (off * factors).sum(axis=1)
        if any(x < y for x, y in zip(shape, fp.shape)):
            first = np.sort(np.unique(flat, return_index=True)[1], kind="stable")
            flat = flat[first]
        flat = flat[1:]
        shift = np.ravel_multi_index(centre, shape)
        off = np.stack(np.unravel_index(flat + shift, shape), axis=-1).reshape(-1, fp.ndim) - np.array(centre)
    half = np.abs(off).max(axis=0) if off.size else np.zeros(fp.ndim, int)
    out = np.zeros(tuple(2 * int(h) + 1 for h in half), np.uint8)
    out[tuple((off + half).T)] = 1
    return out.tobytes(), out.shape
