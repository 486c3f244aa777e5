"""skimage.segmentation.find_boundaries and mark_boundaries on fovea's
grey dilation / erosion (fovea.skimage.morphology), NumPy or CuPy for the
rest."""

import numpy as np

from .. import _shared
from ... import _interop as ix
from ..morphology import dilation, erosion, footprint_rectangle

__all__ = ["find_boundaries", "mark_boundaries"]


def _binary_structure(ndim, connectivity):
    from ...ndimage import generate_binary_structure

    return generate_binary_structure(ndim, connectivity)


def _find_boundaries_subpixel(x, xp):
    ndim = x.ndim
    max_label = np.iinfo(x.dtype).max
    exp = xp.zeros([(2 * s - 1) for s in x.shape], x.dtype)
    pixels = (slice(None, None, 2),) * ndim
    exp[pixels] = x
    edges = xp.ones(exp.shape, dtype=bool)
    edges[pixels] = False
    exp[edges] = max_label
    padded = xp.pad(exp, 1, mode="edge")
    # the number of distinct values in each 3 x ... x 3 window, by sorting the
    # stack of shifted copies
    shifts = []
    for off in np.ndindex(*(3,) * ndim):
        shifts.append(padded[tuple(slice(o, o + s) for o, s in zip(off, exp.shape))])
    stack = xp.sort(xp.stack(shifts), axis=0)
    distinct = 1 + xp.count_nonzero(stack[1:] != stack[:-1], axis=0)
    return edges & (distinct > 2)


def _find(x, xp, connectivity, mode, background):
    if x.dtype == bool:
        x = x.astype(np.uint8)
    ndim = x.ndim
    footprint = _binary_structure(ndim, connectivity)
    if mode == "subpixel":
        return _find_boundaries_subpixel(x, xp)
    boundaries = dilation(x, footprint) != erosion(x, footprint)
    if mode == "inner":
        boundaries &= x != background
    elif mode == "outer":
        max_label = np.iinfo(x.dtype).max
        background_image = x == background
        footprint = _binary_structure(ndim, ndim)
        inverted = x.copy()
        inverted[background_image] = max_label
        adjacent = (dilation(x, footprint) != erosion(inverted, footprint)) & ~background_image
        boundaries &= background_image | adjacent
    return boundaries


def find_boundaries(label_img, connectivity=1, mode="thick", background=0):
    """Boolean array, True on the boundaries between labelled regions
    (skimage.segmentation.find_boundaries; modes 'thick', 'inner', 'outer',
    'subpixel')."""
    x, _, back = ix.prepare(label_img)
    return back(_find(x, ix.xp_of(x), connectivity, mode, background))


def mark_boundaries(image, label_img, color=(1, 1, 0), outline_color=None, mode="outer", background_label=0, *,
                    order=3):
    """image (as float RGB) with the label boundaries painted in color
    (skimage.segmentation.mark_boundaries). order (cuCIM's): the spline order of
    mode='subpixel''s zoom (scikit-image's is 3)."""
    img, _, back = ix.prepare(image)
    lab = ix.like_input(label_img, img, "label_img")
    xp = ix.xp_of(img)
    float_dtype = _shared.supported_float_type(img)
    marked = _shared.img_as_float(img, xp)
    marked = marked.astype(float_dtype, copy=True)
    if marked.ndim == 2:
        marked = xp.stack([marked] * 3, axis=-1)
    if mode == "subpixel":
        if xp is np:
            from scipy import ndimage as zndi
        else:
            from cupyx.scipy import ndimage as zndi
        marked = zndi.zoom(marked, [2 - 1 / s for s in marked.shape[:-1]] + [1], order=order, mode="mirror")
    boundaries = _find(lab, ix.xp_of(lab), 1, mode, background_label)
    # painted with where() over a trailing channel axis: the same on NumPy and CuPy
    if outline_color is not None:
        outlines = dilation(boundaries, footprint_rectangle((3, 3)))
        marked = xp.where(outlines[..., None], xp.asarray(outline_color, dtype=marked.dtype), marked)
    marked = xp.where(boundaries[..., None], xp.asarray(color, dtype=marked.dtype), marked)
    return back(marked)
