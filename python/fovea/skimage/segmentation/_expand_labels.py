"""skimage.segmentation.expand_labels on fovea.ndimage.distance_transform_edt."""

import numpy as np

from ... import ndimage as fndi
from ... import _interop as ix

__all__ = ["expand_labels"]


def expand_labels(label_image, distance=1, spacing=1):
    """Grow each label into the background by up to `distance` (in units of
    spacing) without overlapping others: each background pixel within
    distance of a label takes the label of its nearest labelled pixel.
    Where two labelled pixels are exactly as near, the one chosen may differ
    from scikit-image's (fovea's feature transform breaks ties its own way)."""
    x, _, back = ix.prepare(label_image)
    xp = ix.xp_of(x)
    distances, nearest = fndi.distance_transform_edt(x == 0, sampling=spacing, return_indices=True)
    labels_out = xp.zeros_like(x)
    dilate_mask = distances <= distance
    coords = tuple(nearest[d][dilate_mask] for d in range(x.ndim))
    labels_out[dilate_mask] = x[coords]
    return back(labels_out)
