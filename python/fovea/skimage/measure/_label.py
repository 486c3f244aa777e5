"""skimage.measure.label on fovea's connected-component kernel (fv_label).

Same results as scikit-image 0.26: labels numbered in raster order of each
component's first pixel, int64 labels for integer images and int32 for bool
images (skimage labels those through scipy.ndimage.label), the same
background and connectivity rules. Beyond skimage: integer images of more
than 3 dimensions (skimage raises NotImplementedError for those)."""

import operator

import numpy as np

from ... import _fovea
from ... import _interop as ix

__all__ = ["label"]


def _check_connectivity(connectivity, ndim):
    if connectivity is None:
        connectivity = ndim
    if not 1 <= connectivity <= ndim:
        raise ValueError(f"Connectivity for {ndim}D image should be in [1, ..., {ndim}]. Got {connectivity}.")
    return int(connectivity)


def _background_int(background):
    """skimage passes background to its Cython code as a C integer."""
    if isinstance(background, (float, np.floating)):
        return int(background)
    return operator.index(background)


def label_array(x, background=None, connectivity=None):
    """(labels, num) for the internal (NumPy or CuPy) array x, as skimage's label."""
    if x.dtype == bool:
        conn = _check_connectivity(connectivity, x.ndim)
        bg = 1 if background is not None and background == 1 else 0
        res, num = _fovea.measure_label(x, conn, None, bg, False, False, ix.stream_of(x))
        return ix.wrap(res, x), num
    if x.ndim == 0:
        raise NotImplementedError("Only for images of dimension 1-3 are supported, got a 0D one")
    conn = _check_connectivity(connectivity, x.ndim)
    if x.dtype.kind not in "iu":
        x = x.astype(np.intp)   # skimage's conversion (floats truncate)
    bg = 0 if background is None else _background_int(background)
    res, num = _fovea.measure_label(x, conn, None, bg, False, True, ix.stream_of(x))
    return ix.wrap(res, x), num


def label(label_image, background=None, return_num=False, connectivity=None):
    """Label connected regions of an integer (or bool) array.

    Two pixels are connected when they are neighbours and have the same value;
    neighbours are within ``connectivity`` orthogonal hops (1..ndim, None:
    ndim). Pixels equal to ``background`` (default 0) get label 0.
    Returns the labels (int64; int32 for bool images) numbered 1.. in raster
    order of first appearance, and with return_num the number of labels.
    """
    x, _, back = ix.prepare(label_image)
    labels, num = label_array(x, background, connectivity)
    labels = back(labels)
    return (labels, num) if return_num else labels
