"""skimage.morphology.flood and flood_fill (scikit-image 0.26) on fovea's C
kernel: a queue walk from the seed through the footprint's neighbours. The
walk is a host kernel: CUDA data is copied to the host and the mask back to
the device (flood_fill then writes on the device)."""

import numpy as np

from ... import _fovea
from ... import _interop as ix
from ...ndimage import generate_binary_structure
from ._util import skimage_neighbours

__all__ = ["flood", "flood_fill"]


def _resolve_neighborhood(footprint, connectivity, ndim):
    """skimage.morphology._util._resolve_neighborhood(enforce_adjacency=False)."""
    if footprint is None:
        if connectivity is None:
            connectivity = ndim
        return np.asarray(generate_binary_structure(ndim, connectivity), dtype=bool)
    footprint = np.asarray(ix.host(footprint), dtype=bool)
    if footprint.ndim != ndim:
        raise ValueError("number of dimensions in image and footprint do notmatch")
    if any(s % 2 != 1 for s in footprint.shape):
        raise ValueError("footprint size must be odd along all dimensions")
    return footprint


def _bound(value, dtype):
    """value (a Python number) as the image's dtype, as Cython converts it: integers
    truncated toward zero, OverflowError outside the dtype's range (a float bound
    that rounded past it)."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        v = int(value)
        if not int(info.min) <= v <= int(info.max):
            raise OverflowError(f"Python int too large to convert to {dtype}")
        return v
    return value


def flood(image, seed_point, *, footprint=None, connectivity=None, tolerance=None):
    """Mask (bool) of the pixels connected to seed_point (a tuple of coordinates,
    or an int for 1-d; negative indices count from the end) whose values equal
    the seed's (tolerance None) or lie within seed +- |tolerance| (clipped to the
    dtype's range). Neighbours: footprint (any odd extents) or connectivity
    (default: full)."""
    img, xp, back = ix.prepare(image)
    if 0 in img.shape:
        return back(xp.zeros(img.shape, dtype=bool))
    h = np.ascontiguousarray(ix.to_host(img))
    try:
        iter(seed_point)
    except TypeError:
        seed_point = (seed_point,)
    seed_value = h[seed_point]
    if np.ndim(seed_value) != 0:
        raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
    seed = tuple(int(s) for s in np.asarray(seed_point) % h.shape)
    fp = _resolve_neighborhood(footprint, connectivity, h.ndim)
    if h.dtype == np.float16:
        raise TypeError("dtype of `image` is float16 which is not supported, try upcasting to float32")
    if h.dtype != bool and h.dtype.kind not in "uif":
        raise TypeError("No matching signature found")
    if h.dtype == bool:
        h, seed_value = h.view(np.uint8), np.uint8(seed_value)
    bounds = None
    if tolerance is not None:
        tolerance = abs(tolerance)
        if h.dtype.kind == "f":
            info = np.finfo(h.dtype)
        else:
            info = np.iinfo(h.dtype)
        low = max(info.min.item() if hasattr(info.min, "item") else info.min, seed_value.item() - tolerance)
        high = min(info.max.item() if hasattr(info.max, "item") else info.max, seed_value.item() + tolerance)
        bounds = np.array([_bound(low, h.dtype), _bound(high, h.dtype)], dtype=h.dtype)
    mask = _fovea.skmorph_flood(h, seed, bounds, *skimage_neighbours(fp))
    return back(ix.like_device(np.asarray(mask), img))


def flood_fill(image, seed_point, new_value, *, footprint=None, connectivity=None, tolerance=None,
               in_place=False):
    """image with the flood of seed_point (see flood) set to new_value; a copy
    unless in_place (then image itself, changed, is returned)."""
    img, _, back = ix.prepare(image)
    mask = ix.prepare(flood(img, seed_point, footprint=footprint, connectivity=connectivity,
                            tolerance=tolerance))[0]
    if not in_place:
        img = img.copy()
    img[mask] = new_value
    return image if in_place else back(img)
