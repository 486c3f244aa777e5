"""skimage.segmentation.clear_border on fovea's labelling kernel."""

import numpy as np

from ..measure._label import label_array
from ... import _interop as ix

__all__ = ["clear_border"]


class _ShapeMismatch(ValueError, TypeError):
    """skimage 0.26 means to raise ValueError here but raises a tuple, which
    Python turns into a TypeError: this is both."""


def clear_border(labels, buffer_size=0, bgval=0, mask=None, *, out=None):
    """Clear objects connected to the label image border (or touching the
    outside of mask), as skimage.segmentation.clear_border: every pixel of a
    component (of equal, nonzero values, full connectivity) that reaches
    within buffer_size of the border is set to bgval."""
    x, _, back = ix.prepare(labels)
    xp = ix.xp_of(x)
    if any(buffer_size >= s for s in x.shape) and mask is None:
        raise ValueError("buffer size may not be greater than labels size")
    if out is None:
        res = x.copy()
        user_out = None
    else:
        user_out = out
        res = ix.inner(out, x)
        if res is not x:
            res[...] = x
    if mask is not None:
        m = ix.like_input(mask, x, "mask")
        if tuple(res.shape) != tuple(m.shape):
            raise _ShapeMismatch(
                f"labels and mask should have the same shape but are {res.shape} and {m.shape}"
            )
        if m.dtype != bool:
            raise TypeError("mask should be of type bool.")
        borders = ~m
    else:
        borders = xp.zeros(res.shape, dtype=bool)
        ext = buffer_size + 1
        slices = [slice(None)] * res.ndim
        for d in range(res.ndim):
            for sl in (slice(ext), slice(-ext, None)):
                slices[d] = sl
                borders[tuple(slices)] = True
            slices[d] = slice(None)
    lab, number = label_array(res, background=0)
    on_border = xp.zeros(number + 1, dtype=bool)
    on_border[lab[borders]] = True
    res[on_border[lab]] = bgval
    return user_out if user_out is not None else back(res)
