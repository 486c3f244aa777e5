"""rank_order (skimage.filters._rank_order)."""

import numpy as np

from ..._interop import prepare

__all__ = ["rank_order"]


def rank_order(image):
    """(labels, original_values): each pixel replaced by the rank of its value
    among the image's distinct values (0 for the smallest; unsigned, of the
    smallest type that holds image.size), and the distinct values in increasing
    order, so that ``original_values[labels] == image``."""
    arr, xp, back = prepare(image)
    flat = arr.reshape(-1)
    rank_dtype = np.min_scalar_type(flat.size)
    order = flat.argsort().astype(rank_dtype, copy=False)
    flat = flat[order]
    sort_rank = xp.zeros_like(order)
    is_different = flat[:-1] != flat[1:]
    xp.cumsum(is_different, out=sort_rank[1:], dtype=sort_rank.dtype)
    values = xp.zeros((int(sort_rank[-1]) + 1,), arr.dtype)
    values[0] = flat[0]
    values[1:] = flat[1:][is_different]
    labels = xp.zeros_like(order)
    labels[order] = sort_rank
    return back((labels.reshape(arr.shape), values))
