"""Thinning and the medial axis (skimage.morphology.thin / medial_axis of
scikit-image 0.26) on fovea's C kernels."""

import numpy as np

from ... import _fovea
from ... import ndimage as ndi
from . import _xp

__all__ = ["thin", "medial_axis"]


def _check_2d(image):
    if image.size == 0:
        raise ValueError("The parameter `image` cannot be an empty array")
    if image.ndim != 2:
        raise ValueError("The parameter `image` must be a 2-dimensional array")


def thin(image, max_num_iter=None):
    """Morphological thinning of a binary 2-d image (Guo and Hall's
    two-subiteration algorithm with the conditions of Lam, Lee and Suen).

    image: nonzero = foreground. max_num_iter: at most this many iterations
    (None or 0: until nothing changes). Returns a bool array. Runs on the GPU
    for CUDA data (one flag read per iteration).
    """
    img, back = _xp.take(image)
    _check_2d(img)
    if not _xp.kernel_dtype_ok(img):   # float16, complex: only != 0 matters
        img = img.astype(bool)
    limit = 0 if not max_num_iter or max_num_iter == np.inf else int(max_num_iter)
    res = _fovea.skmorph_thin(img, limit, _xp.stream_of(img))
    return back(_xp.wrap(res, img))


def _cornerness(binary):
    """9 minus the number of set pixels in each 3 x 3 window (outside = 0)."""
    padded = np.pad(binary.astype(np.uint8), 1)
    rows, cols = binary.shape
    count = np.zeros(binary.shape, dtype=np.intp)
    for dr in range(3):
        for dc in range(3):
            count += padded[dr : dr + rows, dc : dc + cols]
    return 9 - count


def medial_axis(image, mask=None, return_distance=False, *, rng=None):
    """Medial axis transform of a binary 2-d image.

    Pixels are visited by increasing distance to the background (Euclidean
    distance transform), then by cornerness, ties broken by a random permutation
    drawn from ``numpy.random.default_rng(rng)``; each is removed unless that
    would change the 8-connectivity of its neighbourhood or make it an end point.
    mask: only pixels where mask is set are processed (the others keep image's
    value). return_distance: also return the distance transform.

    For CUDA data the masking and the distance transform run on the GPU; the
    ordered pass is sequential by nature and runs on the host: the foreground
    and the distances are copied to the host explicitly, the result is copied
    back to the device.
    """
    img, back = _xp.take(image)
    xp = _xp.xp_of(img)
    msk = _xp.inner(mask)
    if msk is None:
        masked = img.astype(bool)
    else:
        masked = img.astype(bool).copy()
        masked[~msk] = False
    distance = ndi.distance_transform_edt(masked)
    if return_distance:
        store_distance = distance.copy()
    # the ordered pass, on the host
    h_masked = np.ascontiguousarray(_xp.to_host(masked))
    h_distance = _xp.to_host(distance)
    fg = h_masked.ravel()
    flat = np.flatnonzero(fg)
    generator = np.random.default_rng(rng)
    tiebreaker = generator.permutation(np.arange(h_masked.sum()))
    order = np.lexsort((tiebreaker, _cornerness(h_masked).ravel()[flat], h_distance.ravel()[flat]))
    result = np.asarray(_fovea.skmorph_medial_axis(h_masked, np.ascontiguousarray(flat[order], dtype=np.int64)))
    result = _xp.like_device(result, img)
    if msk is not None:
        result[~msk] = img[~msk]
    if return_distance:
        return back(result), back(store_distance)
    return back(result)
