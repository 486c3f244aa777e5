"""skimage.segmentation.watershed on fovea's watershed kernel (fv_watershed).

On host data the labels equal scikit-image 0.26's exactly: the C kernel runs
skimage's priority flood (a binary heap ordered by value, then age) with its
padding, neighbour order, compactness and watershed-line rules.

On CUDA data (CuPy, CUDA tensors, fovea.Array on a GPU) the plain watershed
(compactness 0, no watershed line) runs on the GPU as a parallel minimax
flood (see include/fovea/segmentation.h): every pixel gets the label of a
seed that it reaches at the lowest possible flood level through pixels of
that label, exactly like the CPU; where several labels reach a pixel at the
same level (plateaus, ties of integer images) the split may differ from
skimage's. Images without such ties get skimage's labels. The compact
watershed and watershed lines depend on the flood's exact order: for CUDA
data they copy image, markers and mask to the host, run the CPU kernel and
copy the labels back (documented exception to "CUDA data stays on the GPU").
"""

import numbers

import numpy as np

from ... import _fovea
from ... import ndimage as fndi
from ... import _interop as ix
from .._shared import regular_grid
from ..morphology.extrema import local_minima

__all__ = ["watershed"]


def _regular_seeds(xp, shape, n_points):
    """skimage.util.regular_seeds(shape, n_points): labels 1.. on a regular grid."""
    seeds = xp.zeros(tuple(shape), dtype=int)
    grid = regular_grid(shape, n_points)
    sub = seeds[grid]
    seeds[grid] = 1 + xp.arange(sub.size).reshape(sub.shape)
    return seeds


def _is_arraylike(m):
    if isinstance(m, np.generic):   # a NumPy scalar is a count, as in skimage
        return False
    return isinstance(m, (np.ndarray, list, tuple)) or hasattr(m, "__array_interface__") or \
        hasattr(m, "__cuda_array_interface__") or hasattr(m, "__dlpack__")


def watershed(image, markers=None, connectivity=1, offset=None, mask=None, compactness=0, watershed_line=False):
    """Find watershed basins in image flooded from markers (scikit-image 0.26).

    markers: None (the local minima of image, labelled with the same
    connectivity), an int (about that many seeds on a regular grid within the
    mask), or an array of labels (bool or integer; 0 = no seed) of image's
    shape; the result has the markers' dtype (int32 for None, int64 for an
    int). connectivity: 1..ndim or a footprint array; offset: the footprint's
    origin (default its centre). mask: only pixels where it is nonzero are
    labelled. compactness > 0: compact watershed. watershed_line: a one-pixel
    line of 0 between basins.
    """
    img, _, back = ix.prepare(image)
    xp = ix.xp_of(img)
    if img.dtype.kind == "c":
        raise TypeError(f"watershed: complex images are not supported (got {img.dtype})")
    if img.dtype.kind not in "biuf":
        raise TypeError(f"watershed: unsupported image dtype {img.dtype}")
    if img.dtype == np.float16:
        img = img.astype(np.float32)
    if img.ndim < 1:
        raise ValueError("watershed: image must have at least one dimension")

    n_pixels = img.size
    msk = None
    if mask is not None:
        msk = ix.like_input(mask, img, "mask")
        if msk.dtype.kind == "c":
            raise TypeError("watershed: complex masks are not supported")
        msk = msk.astype(bool)
        if msk.shape != img.shape:
            raise ValueError(f"`mask` (shape {msk.shape}) must have same shape as `image` (shape {img.shape})")
        n_pixels = int(msk.sum())

    if markers is None:
        minima = local_minima(img, connectivity=connectivity)
        if msk is not None:
            minima = minima * msk
        structure = fndi.generate_binary_structure(img.ndim, connectivity)
        mk = fndi.label(minima, structure=structure)[0]
        mk = ix.prepare(mk)[0]
    elif not _is_arraylike(markers):
        if not isinstance(markers, numbers.Real):
            raise TypeError(f"watershed: markers must be None, an int or an array, got {type(markers).__name__}")
        mk = _regular_seeds(xp, img.shape, int(markers / (n_pixels / img.size)))
        if msk is not None:
            mk = mk * msk
    else:
        if isinstance(markers, (list, tuple)):
            markers = xp.asarray(markers)
        mk = ix.like_input(markers, img, "markers")
        if mk.shape != img.shape:
            raise ValueError(f"`markers` (shape {mk.shape}) must have same shape as `image` (shape {img.shape})")
        if mk.dtype.kind not in "biu":
            raise TypeError(f"watershed: markers must be an array of integers or bools, got {mk.dtype}")
    if ix.xp_of(mk) is not xp:
        raise ValueError("watershed: image and markers must be on the same device")

    fp = fshape = None
    if isinstance(connectivity, numbers.Integral) or np.isscalar(connectivity):
        conn = int(connectivity)
        if not 1 <= conn <= img.ndim:
            # skimage (scipy's generate_binary_structure) clamps: <1 -> no neighbours, >ndim -> all
            conn_fp = fndi.generate_binary_structure(img.ndim, conn)
            fp, fshape = np.ascontiguousarray(conn_fp, dtype=np.uint8), conn_fp.shape
    else:
        footprint = np.asarray(ix.host(connectivity), dtype=bool)
        if footprint.ndim != img.ndim:
            raise ValueError("Connectivity dimension must be same as image")
        fp, fshape = np.ascontiguousarray(footprint, dtype=np.uint8), footprint.shape
        conn = 1
    if offset is not None:
        offset = tuple(int(o) for o in np.asarray(ix.host(offset)).ravel())
        if len(offset) != img.ndim:
            raise ValueError(f"offset must have {img.ndim} entries, got {len(offset)}")
        if any(o < 0 for o in offset):
            raise ValueError("offset entries must be >= 0")
    elif fshape is not None and any(s % 2 == 0 for s in fshape):
        raise ValueError("Connectivity array must have an unambiguous center")
    compactness = float(compactness)

    on_gpu = ix.on_gpu(img)
    if on_gpu and (compactness > 0 or watershed_line):
        # order-dependent variants: the CPU kernel on host copies (see the module doc)
        cp = ix.xp_of(img)
        res = watershed(cp.asnumpy(img), cp.asnumpy(mk), connectivity, offset,
                        None if msk is None else cp.asnumpy(msk), compactness, watershed_line)
        return back(cp.asarray(res))
    res = _fovea.segmentation_watershed(
        img, mk, msk, conn,
        None if fp is None else fp.tobytes(), fshape, offset, compactness, bool(watershed_line),
        ix.stream_of(img),
    )
    return back(ix.wrap(res, img))
