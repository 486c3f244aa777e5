"""skimage.segmentation's superpixels (scikit-image 0.26) on fovea's C kernels:
slic (fv_slic, CPU and CUDA), felzenszwalb (fv_felzenszwalb) and quickshift
(fv_quickshift), both CPU.

slic: the preprocessing (float conversion, rescaling to [0, 1], Lab, Gaussian
smoothing, seeds) runs on the data's device with fovea's colour and filter
functions; the seeds of a mask (k-means of the mask's coordinates, SciPy's
kmeans2 as scikit-image) on the host. On host data the labels equal
scikit-image's (the k-means step sums every centre in scikit-image's raster
order); on CUDA data the centre sums are atomic reductions whose rounding may
move a few pixels on ties (see docs/skimage-segmentation.md).

felzenszwalb and quickshift have no GPU kernel: CUDA data makes a host round
trip (the result comes back as the input's array type).
"""

import math
import numbers
import warnings
from collections.abc import Iterable

import numpy as np

from ... import _fovea
from ... import _interop as ix
from ... import ndimage as fndi
from .._shared import img_as_float, regular_grid, supported_float_type
from ..color import rgb2lab

__all__ = ["slic", "felzenszwalb", "quickshift"]


def _channel_last(img, xp, channel_axis):
    """scikit-image's channel_as_last_axis decorator: (image, channel_axis)."""
    if channel_axis is None:
        return img, None
    axes = (channel_axis,) if np.isscalar(channel_axis) else tuple(channel_axis)
    if len(axes) > 1:
        raise ValueError("only a single channel axis is currently supported")
    if axes == (-1,) or channel_axis == -1:
        return img, channel_axis
    return xp.moveaxis(img, axes[0], -1), -1


def _gaussian(image, sigma):
    """skimage._shared.filters.gaussian(image, sigma, mode='reflect') of a float image."""
    if np.any(np.asarray(sigma) < 0.0):
        raise ValueError("Sigma values less than zero are not valid")
    image = image.astype(supported_float_type(image.dtype), copy=False)
    return fndi.gaussian_filter(image, [float(s) for s in sigma], mode="reflect", truncate=4.0)


def _mask_centroids(mask, n_centroids, multichannel):
    """scikit-image's _get_mask_centroids (host): k-means of the mask's coordinates
    from seeds drawn by RandomState(123), and the mean distance to the nearest one."""
    from scipy.cluster.vq import kmeans2
    from scipy.spatial.distance import pdist, squareform

    coord = np.array(np.nonzero(mask), dtype=float).T
    rng = np.random.RandomState(123)
    idx_full = np.arange(len(coord), dtype=int)
    idx = np.sort(rng.choice(idx_full, min(n_centroids, len(coord)), replace=False))
    ndim_spatial = mask.ndim - 1 if multichannel else mask.ndim
    n_dense = int((10**ndim_spatial) * n_centroids)
    idx_dense = np.sort(rng.choice(idx_full, n_dense, replace=False)) if len(coord) > n_dense else Ellipsis
    centroids, _ = kmeans2(coord[idx_dense], coord[idx], iter=5)
    dist = squareform(pdist(centroids))
    np.fill_diagonal(dist, np.inf)
    closest = dist.argmin(-1)
    steps = abs(centroids - centroids[closest, :]).mean(0)
    return centroids, steps


def _grid_centroids(shape3, n_centroids):
    """scikit-image's _get_grid_centroids: the regular_grid points (z, y, x) in C order."""
    slices = regular_grid(shape3, n_centroids)
    axes = [np.arange(n)[s] for n, s in zip(shape3, slices)]
    grid = np.meshgrid(*axes, indexing="ij")
    centroids = np.stack([g.ravel() for g in grid], axis=-1)
    steps = np.asarray([float(s.step) if s.step is not None else 1.0 for s in slices])
    return centroids, steps


def _per_axis(value, name, dtype, is_2d, spacing_size):
    """spacing / sigma given as a sequence: scikit-image's checks and 2-D padding."""
    arr = np.asarray(value, dtype=dtype)
    if is_2d:
        if arr.size != 2:
            if spacing_size == 3:
                warnings.warn(f"Input image is 2D: {name} number of elements must be 2. In the future, a "
                              "ValueError will be raised.", FutureWarning, stacklevel=4)
            else:
                raise ValueError(f"Input image is 2D, but {name} has {arr.size} elements (expected 2).")
            # (scikit-image tests the size of spacing for sigma too: passed as spacing_size)
        else:
            arr = np.insert(arr, 0, 1 if name == "spacing" else 0)
    elif arr.size != 3:
        raise ValueError(f"Input image is 3D, but {name} has {arr.size} elements (expected 3).")
    return arr


def slic(image, n_segments=100, compactness=10.0, max_num_iter=10, sigma=0, spacing=None, convert2lab=None,
         enforce_connectivity=True, min_size_factor=0.5, max_size_factor=3, slic_zero=False, start_label=1,
         mask=None, *, channel_axis=-1):
    """Segment image using k-means clustering in Color-(x,y,z) space (SLIC; scikit-image 0.26).

    image: (M, N[, P][, C]); channel_axis: the colour axis or None (grayscale).
    Returns int64 labels of the spatial shape: superpixels start_label.., pixels
    outside mask start_label - 1. Every parameter as scikit-image's.
    """
    img, xp, back = ix.prepare(image)
    img, channel_axis = _channel_last(img, xp, channel_axis)
    if img.ndim == 2 and channel_axis is not None:
        raise ValueError(
            f"channel_axis={channel_axis} indicates multichannel, which is not supported for a two-dimensional "
            "image; use channel_axis=None if the image is grayscale")
    img = img_as_float(img, xp)
    dtype = np.dtype(supported_float_type(img.dtype))
    img = img.astype(dtype, copy=True)

    use_mask = mask is not None
    if use_mask:
        mask = xp.ascontiguousarray(ix.like_input(mask, img, "mask"), dtype=bool)
        if channel_axis is not None:
            mask_ = xp.broadcast_to(xp.expand_dims(mask, axis=channel_axis), img.shape)
        else:
            mask_ = mask
        values = img[mask_]
    else:
        values = img
    imin, imax = values.min(), values.max()
    fmin, fmax = float(imin), float(imax)
    if math.isnan(fmin):
        raise ValueError("unmasked NaN values in image are not supported")
    if math.isinf(fmin) or math.isinf(fmax):
        raise ValueError("unmasked infinite values in image are not supported")
    img -= imin
    if fmax != fmin:
        img /= imax - imin

    multichannel = channel_axis is not None
    is_2d = False
    if img.ndim == 2:
        img = img[None, ..., None]
        is_2d = True
    elif img.ndim == 3 and multichannel:
        img = img[None, ...]
        is_2d = True
    elif img.ndim == 3:
        img = img[..., None]
    if multichannel and (convert2lab or convert2lab is None):
        if img.shape[channel_axis] != 3 and convert2lab:
            raise ValueError("Lab colorspace conversion requires a RGB image.")
        elif img.shape[channel_axis] == 3:
            img = rgb2lab(img)
    if start_label not in [0, 1]:
        raise ValueError("start_label should be 0 or 1.")

    if use_mask:
        if mask.ndim == 2:
            mask = mask[None, ...]
        if mask.shape != img.shape[:3]:
            raise ValueError("image and mask should have the same shape.")
        mask = xp.ascontiguousarray(mask)
        centroids, steps = _mask_centroids(ix.to_host(mask).view(np.uint8), n_segments, multichannel)
    else:
        centroids, steps = _grid_centroids(img.shape[:3], n_segments)

    if spacing is None:
        spacing = np.ones(3, dtype=dtype)
    elif isinstance(spacing, Iterable):
        spacing = _per_axis(ix.host(spacing), "spacing", dtype, is_2d, np.size(ix.host(spacing)))
        spacing = np.ascontiguousarray(spacing, dtype=dtype)
    else:
        raise TypeError("spacing must be None or iterable.")
    if np.isscalar(sigma):
        sigma = np.array([sigma, sigma, sigma], dtype=dtype)
        sigma /= spacing
    elif isinstance(sigma, Iterable):
        sigma = _per_axis(ix.host(sigma), "sigma", dtype, is_2d, spacing.size)
    if (sigma > 0).any():
        img = _gaussian(img, list(sigma) + [0])

    n_centroids = centroids.shape[0]
    segments = np.ascontiguousarray(
        np.concatenate([centroids, np.zeros((n_centroids, img.shape[3]))], axis=-1), dtype=dtype)
    segments = ix.like_device(segments, img)
    step = max(steps)
    ratio = 1.0 / compactness
    img = xp.ascontiguousarray(img * ratio, dtype=dtype)
    grid = regular_grid(img.shape[:3], n_centroids)
    kstep = [int(s.step if s.step is not None else 1) for s in grid]
    sp = [float(v) for v in spacing.ravel()[:3]]
    stream = ix.stream_of(img)
    kmask = mask if use_mask else None
    iters = int(max_num_iter)
    if use_mask:   # scikit-image's step 2 of maskSLIC: the seeds move on the mask alone first
        _fovea.segmentation_slic(img, kmask, segments, kstep, float(step), iters, sp, bool(slic_zero), True,
                                 int(start_label), stream)
    labels = _fovea.segmentation_slic(img, kmask, segments, kstep, float(step), iters, sp, bool(slic_zero), False,
                                      int(start_label), stream)
    if enforce_connectivity:
        if use_mask:
            segment_size = float(ix.to_host(mask).sum()) / n_centroids
        else:
            segment_size = math.prod(img.shape[:3]) / n_centroids
        labels = _fovea.segmentation_slic_connect(labels, int(min_size_factor * segment_size),
                                                  int(max_size_factor * segment_size), int(start_label), stream)
    labels = ix.wrap(labels, img)
    if is_2d:
        labels = labels[0]
    return back(labels)


def _host_input(image):
    """(host NumPy array, back, on_gpu): CPU-only kernels take CUDA data through the host."""
    img, xp, back = ix.prepare(image)
    def home(res):
        if isinstance(res, tuple):
            return back(tuple(ix.like_device(r, img) for r in res))
        return back(ix.like_device(res, img))

    return ix.to_host(img), home, ix.on_gpu(img)


def felzenszwalb(image, scale=1, sigma=0.8, min_size=20, *, channel_axis=-1):
    """Felzenszwalb's efficient graph based image segmentation (scikit-image 0.26).

    image: (M, N[, C]); returns (M, N) int64 labels 0.. Parameters as scikit-image's.
    """
    img, back, _ = _host_input(image)
    img, channel_axis = _channel_last(img, np, channel_axis)
    if channel_axis is None and img.ndim > 2:
        raise ValueError("This algorithm works only on single or multi-channel 2d images. ")
    img = np.atleast_3d(img)
    if img.shape[2] > 3:
        warnings.warn(RuntimeWarning(
            f"Got image with third dimension of {img.shape[2]}. This image will be interpreted as a multichannel 2d "
            "image, which may not be intended."), stacklevel=3)
    img = img_as_float(img, np).astype(np.float64, copy=False)
    scale = float(scale)
    img = np.ascontiguousarray(_gaussian(img, [sigma, sigma, 0]), dtype=np.float64)
    if not isinstance(min_size, numbers.Integral):
        min_size = _as_index(min_size)
    return back(np.asarray(_fovea.segmentation_felzenszwalb(img, _edge_order(img), scale, int(min_size))))


def _edge_order(img):
    """NumPy's argsort of the edge weights, in scikit-image's edge order (right, down,
    down-right, up-right): equal weights then fall in scikit-image's order (NumPy's
    quicksort is not stable); the C kernel computes the same weights itself."""
    def weight(a, b):
        d = a - b
        return np.sqrt(np.sum(d * d, axis=-1)).ravel()

    costs = np.hstack([weight(img[:, 1:], img[:, :-1]), weight(img[1:], img[:-1]),
                       weight(img[1:, 1:], img[:-1, :-1]), weight(img[1:, :-1], img[:-1, 1:])])
    return np.ascontiguousarray(np.argsort(costs), dtype=np.int64)


def _as_index(v):
    """Cython's conversion of an argument typed as a C integer (__index__, else __int__,
    which truncates floats)."""
    import operator

    try:
        return operator.index(v)
    except TypeError:
        if hasattr(type(v), "__int__"):
            return int(v)
        raise TypeError("an integer is required") from None


def quickshift(image, ratio=1.0, kernel_size=5, max_dist=10, return_tree=False, sigma=0, convert2lab=True, rng=42,
               *, channel_axis=-1):
    """Segment image using quickshift clustering in Color-(x,y) space (scikit-image 0.26).

    image: (M, N, C); returns (M, N) int64 labels 0.. (with return_tree, also the
    parent links and their lengths as (M, N) arrays). rng: an int seed of NumPy's
    default_rng for the tie-breaking noise (scikit-image 0.26 accepts ints only).
    """
    img, back, _ = _host_input(image)
    img = img_as_float(np.atleast_3d(img), np)
    img = img.astype(supported_float_type(img.dtype), copy=False)
    if img.ndim > 3:
        raise ValueError("Only 2D color images are supported")
    img = np.moveaxis(img, source=channel_axis, destination=-1)
    if convert2lab:
        if img.shape[-1] != 3:
            raise ValueError("Only RGB images can be converted to Lab space.")
        img = rgb2lab(img)
    if kernel_size < 1:
        raise ValueError("`kernel_size` should be >= 1.")
    img = _gaussian(img, [sigma, sigma, 0])
    img = np.ascontiguousarray(img * ratio)
    if img.dtype not in (np.float32, np.float64):
        img = img.astype(np.float64)
    seed = _as_index(rng)
    if not -(2**31) <= seed < 2**31:
        raise OverflowError("value too large to convert to int")
    h, w = img.shape[:2]
    noise = np.random.default_rng(seed).normal(scale=0.00001, size=(h, w)).astype(img.dtype, copy=False)
    densities = np.zeros((h, w), dtype=img.dtype)
    densities += noise
    if return_tree:
        parent = np.empty((h, w), dtype=np.intp)
        dist = np.empty((h, w), dtype=img.dtype)
        labels = np.asarray(_fovea.segmentation_quickshift(img, densities, float(kernel_size), float(max_dist),
                                                           parent, dist))
        return back((labels, parent, dist))
    return back(np.asarray(_fovea.segmentation_quickshift(img, densities, float(kernel_size), float(max_dist))))
