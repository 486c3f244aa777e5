"""Thinning, skeletonization and the medial axis (skimage.morphology.thin,
skeletonize, medial_axis of
scikit-image 0.26) on fovea's C kernels."""

import numpy as np

from ... import _fovea
from ... import ndimage as ndi
from ... import _interop as ix

__all__ = ["thin", "medial_axis", "skeletonize"]


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
    img, _, back = ix.prepare(image)
    _check_2d(img)
    if not ix.kernel_dtype_ok(img):   # float16, complex: only != 0 matters
        img = img.astype(bool)
    limit = 0 if not max_num_iter or max_num_iter == np.inf else int(max_num_iter)
    res = _fovea.skmorph_thin(img, limit, ix.stream_of(img))
    return back(ix.wrap(res, img))


def _cornerness(binary):
    """9 minus the number of set pixels in each 3 x 3 window (outside = 0), in
    binary's array library (a 3 x 3 correlation of uint8: exact)."""
    xp = ix.xp_of(binary)
    count = ndi.correlate(binary.astype(np.uint8), xp.ones((3, 3), np.uint8), mode="constant")
    return 9 - count


def _visit_order(xp, masked, distance, tiebreaker):
    """The foreground's flat indices in skimage's visiting order: by distance, then
    cornerness, then tiebreaker (host NumPy, a permutation of the foreground's
    ranks), as a host int64 array.

    The EDT's distances are square roots of integers, so distance order is the
    order of the integer squares; with the cornerness (< 16) and the tiebreaker
    the three keys pack into one uint64, sorted by value (CuPy: a radix sort on
    the GPU), and the tiebreaker in the low bits names the element (it is a
    permutation). np.lexsort of the three keys where the packing does not fit."""
    flat = xp.flatnonzero(masked.ravel())
    n = int(flat.size)
    dist = distance.ravel()[flat]
    corner = _cornerness(masked).ravel()[flat]
    tbits = max(1, (n - 1).bit_length())
    if n:
        d2 = xp.rint(dist * dist)
        top = float(d2.max())
        exact = top < 2.0**52 and bool(xp.all(xp.sqrt(d2) == dist))
        dbits = int(top).bit_length() if exact else 64
        if exact and dbits + 4 + tbits <= 64:
            u = np.uint64
            tb = xp.asarray(tiebreaker)   # one copy to the device
            key = (d2.astype(u) << u(4 + tbits)) | (corner.astype(u) << u(tbits)) | tb.astype(u)
            key = xp.sort(key)
            inv = xp.empty(n, np.int64)
            inv[tb] = xp.arange(n, dtype=np.int64)
            return np.ascontiguousarray(ix.to_host(flat[inv[(key & u((1 << tbits) - 1)).astype(np.int64)]]),
                                        dtype=np.int64)
    h_flat = ix.to_host(flat)
    order = np.lexsort((tiebreaker, ix.to_host(corner), ix.to_host(dist)))
    return np.ascontiguousarray(h_flat[order], dtype=np.int64)


def medial_axis(image, mask=None, return_distance=False, *, rng=None):
    """Medial axis transform of a binary 2-d image.

    Pixels are visited by increasing distance to the background (Euclidean
    distance transform), then by cornerness, ties broken by a random permutation
    drawn from ``numpy.random.default_rng(rng)``; each is removed unless that
    would change the 8-connectivity of its neighbourhood or make it an end point.
    mask: only pixels where mask is set are processed (the others keep image's
    value). return_distance: also return the distance transform.

    For CUDA data the masking, the distance transform and the sort that makes
    the visiting order run on the GPU; the ordered pass is sequential by nature
    and runs on the host: the foreground and the order are copied to the host
    explicitly, the result is copied back to the device.
    """
    img, _, back = ix.prepare(image)
    xp = ix.xp_of(img)
    msk = ix.like_input(mask, img, "mask")
    if msk is None:
        masked = img.astype(bool)
    else:
        masked = img.astype(bool).copy()
        masked[~msk] = False
    distance = ndi.distance_transform_edt(masked)
    if return_distance:
        store_distance = distance.copy()
    # the visiting order (on the data's device), then the ordered pass on the host
    generator = np.random.default_rng(rng)
    tiebreaker = generator.permutation(np.arange(int(masked.sum())))
    order = _visit_order(xp, masked, distance, tiebreaker)
    h_masked = np.ascontiguousarray(ix.to_host(masked))
    result = np.asarray(_fovea.skmorph_medial_axis(h_masked, order))
    result = ix.like_device(result, img)
    if msk is not None:
        result[~msk] = img[~msk]
    if return_distance:
        return back(result), back(store_distance)
    return back(result)


def skeletonize(image, *, method=None):
    """Skeleton of a binary 2-d or 3-d image by thinning
    (skimage.morphology.skeletonize): nonzero = foreground; returns bool.

    method: "zhang" (2-d only, the default for 2-d: Zhang and Suen's parallel
    thinning with scikit-image's table; fovea's thinning kernel, on the GPU for
    CUDA data) or "lee" (2-d or 3-d, the default for 3-d: Lee, Kashyap and
    Chu's sequential thinning, a host kernel: CUDA data is copied to the host
    and the result back to the device).
    """
    img, _, back = ix.prepare(image)
    if method not in {"zhang", "lee", None}:
        raise ValueError(f'skeletonize method should be either "lee" or "zhang", got {method}.')
    if img.ndim == 2 and method in (None, "zhang"):
        code = 0
    elif img.ndim == 3 and method == "zhang":
        raise ValueError('skeletonize method "zhang" only works for 2D images.')
    elif img.ndim in (2, 3):
        code = 1
    else:
        raise ValueError(f"skeletonize requires a 2D or 3D image as input, got {img.ndim}D.")
    if not ix.kernel_dtype_ok(img):   # float16, complex: only != 0 matters
        img = img.astype(bool)
    src = ix.to_host(img) if code == 1 else img   # Lee: a host kernel
    res = ix.wrap(_fovea.skmorph_thin(src, 0, ix.stream_of(src), code), src)
    return back(ix.like_device(res, img))
