"""skimage.measure.find_contours on fovea's marching-squares kernel
(fv_find_contours, fovea/contours.h): the cell segments are found in C on
all CPU cores and joined in C with scikit-image 0.26's joining rules, so the
contours (points, order, starting points, orientation) are equal to
scikit-image's.

CuPy / CUDA input: the image (and mask) are copied to the host, the contours
found there and returned as a list of NumPy arrays (contours are ragged,
host-side data; the joining is sequential)."""

import numpy as np

from ... import _fovea
from ..._interop import host, prepare

__all__ = ["find_contours"]

_OPTIONS = ("high", "low")


def find_contours(image, level=None, fully_connected="low", positive_orientation="low", *, mask=None):
    """Iso-valued contours of a 2-d image at `level` (default: halfway
    between the image's NaN-ignoring min and max), by marching squares with
    linear interpolation. Returns a list of (n, 2) float64 arrays of (row,
    column) points; closed contours repeat their first point at the end.

    fully_connected: 'low' or 'high', which side's diagonal neighbours count
    as connected at saddle cells. positive_orientation: 'low' (contours wind
    counter-clockwise around values below level) or 'high' (around values
    above it: each contour reversed). mask: bool array of the
    image's shape; cells with a False corner are left out. Cells with a NaN
    corner are left out too."""
    if fully_connected not in _OPTIONS:
        raise ValueError('Parameters "fully_connected" must be either "high" or "low".')
    if positive_orientation not in _OPTIONS:
        raise ValueError('Parameters "positive_orientation" must be either "high" or "low".')
    x, xp, _ = prepare(image)
    if xp is not np:
        x = host(x)
    if x.ndim < 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError("Input array must be at least 2x2.")
    if x.ndim != 2:
        raise ValueError("Only 2D arrays are supported.")
    if mask is not None:
        m = host(mask)   # device masks are copied with the image
        if m.shape != x.shape:
            raise ValueError('Parameters "array" and "mask" must have same shape.')
        if not np.can_cast(m.dtype, bool, casting="safe"):
            raise TypeError('Parameter "mask" must be a binary array.')
        mask = m
    if x.dtype.kind == "c":
        raise TypeError("complex images are not supported")
    if level is None:
        level = (np.nanmin(x) + np.nanmax(x)) / 2.0
    x = x.astype(np.float64, copy=False)
    points, offsets = _fovea.measure_find_contours(x, float(level), fully_connected == "high", mask)
    points = np.asarray(points)
    offsets = np.asarray(offsets)
    contours = [points[offsets[k]:offsets[k + 1]] for k in range(len(offsets) - 1)]
    if positive_orientation == "high":
        contours = [c[::-1] for c in contours]
    return contours

