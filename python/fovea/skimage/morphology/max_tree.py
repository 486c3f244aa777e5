"""Max-trees and the attribute filters built on them (skimage.morphology.max_tree,
area_opening, area_closing, diameter_opening, diameter_closing,
max_tree_local_maxima of scikit-image 0.26) on fovea's C kernels.

The union-find and the filters are sequential host kernels: CUDA data is copied
to the host, the result copied back to the device (its array type kept). The
sort of the pixels (tree_traverser) is NumPy's stable argsort, as scikit-image's.
"""

import numpy as np

from ... import _fovea
from ... import _interop as ix
from ...ndimage import generate_binary_structure
from ._util import skimage_neighbours

__all__ = [
    "max_tree",
    "area_opening",
    "area_closing",
    "diameter_opening",
    "diameter_closing",
    "max_tree_local_maxima",
]

_AREA, _DIAMETER, _LOCAL_MAXIMA = 0, 1, 2


def _host_image(image):
    """(host C-contiguous image, working image, back) with scikit-image's dtype rule:
    real numeric dtypes and bool; others raise TypeError as its fused Cython does."""
    img, _, back = ix.prepare(image)
    h = np.ascontiguousarray(ix.to_host(img))
    if h.dtype != bool and (h.dtype.kind not in "uif" or h.dtype == np.float16):
        raise TypeError("No matching signature found")
    return h, img, back


def _validate_connectivity(ndim, connectivity):
    """The footprint of connectivity (an int as scipy's generate_binary_structure, or
    an array with odd extents), as skimage.morphology._util._validate_connectivity."""
    if connectivity is None:
        connectivity = 1
    if np.isscalar(connectivity):
        return np.asarray(generate_binary_structure(ndim, connectivity), dtype=bool)
    fp = np.array(ix.host(connectivity), bool)
    if fp.ndim != ndim:
        raise ValueError("Connectivity dimension must be same as image")
    if any(s % 2 == 0 for s in fp.shape):
        raise ValueError("Connectivity array must have an unambiguous center")
    return fp


def _tree(h, connectivity):
    if 0 in h.shape:
        axis = h.shape.index(0)
        raise IndexError(f"index 0 is out of bounds for axis {axis} with size 0")
    fp = _validate_connectivity(h.ndim, connectivity)
    order = np.argsort(h.ravel(), kind="stable").astype(np.int64)
    parent = np.asarray(_fovea.skmorph_max_tree(h, order, *skimage_neighbours(fp, h.shape)))
    return parent, order


def max_tree(image, connectivity=1):
    """The max-tree of image: (parent, tree_traverser), both int64. parent[p]: the
    parent pixel of p (flat index) in the canonized tree, parent's shape is the
    image's; tree_traverser: the pixels sorted so that a parent comes before its
    children (the stable argsort of the image). connectivity: an int (orthogonal
    steps, as scipy's generate_binary_structure) or a footprint array."""
    h, img, back = _host_image(image)
    parent, order = _tree(h, connectivity)
    return back(ix.like_device(parent, img)), back(ix.like_device(order, img))


def _index_array(a, name):
    a = np.asarray(ix.host(a))
    if a.dtype != np.int64:
        raise ValueError(f"Buffer dtype mismatch, expected 'DTYPE_INT64_t' but got '{a.dtype}' ({name})")
    return np.ascontiguousarray(a).ravel()


def _invert(x):
    """skimage.util.invert on a host array."""
    if x.dtype == bool:
        return ~x
    if x.dtype.kind == "u":
        return np.subtract(np.iinfo(x.dtype).max, x, dtype=x.dtype)
    if x.dtype.kind == "i":
        return np.subtract(-1, x, dtype=x.dtype)
    return np.subtract(1, x, dtype=x.dtype)   # floats: signed_float=False


def _filter(image, attr, threshold, connectivity, parent, tree_traverser, closing):
    h, img, back = _host_image(image)
    if closing:
        h = _invert(h)
    if parent is None or tree_traverser is None:
        par, order = _tree(h, connectivity)
    else:
        par, order = _index_array(parent, "parent"), _index_array(tree_traverser, "tree_traverser")
    res = np.asarray(_fovea.skmorph_max_tree(h, order, parent=par, attr=attr, threshold=float(threshold)))
    if closing:
        res = _invert(res)
    return back(ix.like_device(res, img))


def area_opening(image, area_threshold=64, connectivity=1, parent=None, tree_traverser=None):
    """Area opening: every bright component (of every upper level set) with fewer
    than area_threshold pixels is lowered to the level of its parent. parent and
    tree_traverser: a max-tree of image computed before (max_tree)."""
    return _filter(image, _AREA, area_threshold, connectivity, parent, tree_traverser, False)


def diameter_opening(image, diameter_threshold=8, connectivity=1, parent=None, tree_traverser=None):
    """Diameter opening: as area_opening with the largest extent of a component's
    bounding box (along one axis) in place of its area."""
    return _filter(image, _DIAMETER, diameter_threshold, connectivity, parent, tree_traverser, False)


def area_closing(image, area_threshold=64, connectivity=1, parent=None, tree_traverser=None):
    """Area closing: the dual of area_opening (dark components), on the inverted
    image (skimage.util.invert's rule); parent and tree_traverser: a max-tree of
    the inverted image."""
    return _filter(image, _AREA, area_threshold, connectivity, parent, tree_traverser, True)


def diameter_closing(image, diameter_threshold=8, connectivity=1, parent=None, tree_traverser=None):
    """Diameter closing: the dual of diameter_opening."""
    return _filter(image, _DIAMETER, diameter_threshold, connectivity, parent, tree_traverser, True)


def max_tree_local_maxima(image, connectivity=1, parent=None, tree_traverser=None):
    """The local maxima of image found from its max-tree, labelled 1, 2, ...
    (uint64; 0 elsewhere) in scikit-image's order."""
    return _filter(image, _LOCAL_MAXIMA, 0.0, connectivity, parent, tree_traverser, False)
