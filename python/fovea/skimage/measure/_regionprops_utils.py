"""perimeter, perimeter_crofton and euler_number (skimage.measure, 0.26 API),
in NumPy on the host (CuPy / CUDA inputs are copied to the host first: these
are per-region measures of small binary images).

perimeter follows skimage's definition: border pixels (the region minus its
erosion by the 4- or 8-neighbourhood, nothing outside the image) are
classified by their border neighbours, straight runs counting 1, diagonal
steps sqrt(2) and corners (1 + sqrt(2)) / 2. perimeter_crofton counts the
2 x 2 configurations of the padded image and weighs them with the Crofton
formula in 2 or 4 directions. euler_number is the Euler characteristic of a
cubical complex: for the largest connectivity the union of closed pixels /
voxels, for connectivity 1 the complex whose vertices are the foreground
pixels (edges between face neighbours, squares and cubes where all corners
are foreground); both counted from windows of the padded image."""

import itertools
from math import pi, sqrt

import numpy as np

from ... import _interop as ix
from .._shared import scalar_result

__all__ = ["euler_number", "perimeter", "perimeter_crofton"]


def _host_image(image):
    return np.asarray(ix.host(image))


def _shifted(a, offsets):
    """a shifted so that out[i] = a[i + offset] with zeros outside."""
    out = np.zeros_like(a)
    src, dst = [], []
    for o, n in zip(offsets, a.shape):
        if o >= 0:
            src.append(slice(o, n))
            dst.append(slice(0, n - o))
        else:
            src.append(slice(0, n + o))
            dst.append(slice(-o, n))
    out[tuple(dst)] = a[tuple(src)]
    return out


_PERIMETER_WEIGHTS = np.zeros(50)
_PERIMETER_WEIGHTS[[5, 7, 15, 17, 25, 27]] = 1
_PERIMETER_WEIGHTS[[21, 33]] = sqrt(2)
_PERIMETER_WEIGHTS[[13, 23]] = (1 + sqrt(2)) / 2


def perimeter(image, neighborhood=4):
    """Perimeter of the objects in a 2-d binary image (float)."""
    img = _host_image(image)
    if img.ndim != 2:
        raise NotImplementedError("`perimeter` supports 2D images only")
    fg = img.astype(np.uint8).astype(bool) if img.dtype != bool else img
    nbrs = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    if neighborhood != 4:
        nbrs += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    eroded = fg.copy()
    for o in nbrs:
        eroded &= _shifted(fg, o)
    border = (fg & ~eroded).astype(np.int64)
    code = border.copy()
    for o in [(-1, 0), (1, 0), (0, -1), (0, 1)]:
        code += 2 * _shifted(border, o)
    for o in [(-1, -1), (-1, 1), (1, -1), (1, 1)]:
        code += 10 * _shifted(border, o)
    hist = np.bincount(code.ravel(), minlength=50)
    return scalar_result(hist[:50] @ _PERIMETER_WEIGHTS, np.float64, image)


def _quad_codes(fg):
    """Codes x + 2 up + 4 left + 8 up-left of every position of the padded
    image (zeros beyond it), and their histogram over 16 bins."""
    p = np.pad(fg.astype(np.int64), 1)
    code = p + 2 * _shifted(p, (-1, 0)) + 4 * _shifted(p, (0, -1)) + 8 * _shifted(p, (-1, -1))
    return np.bincount(code.ravel(), minlength=16)


def perimeter_crofton(image, directions=4):
    """Crofton perimeter of the objects in a 2-d binary image (2 or 4 directions)."""
    img = _host_image(image)
    if img.ndim != 2:
        raise NotImplementedError("`perimeter_crofton` supports 2D images only")
    h = _quad_codes(img > 0)
    return scalar_result(np.asarray(_crofton_coefs(directions)) @ h, np.float64, image)


def _crofton_coefs(directions):
    """Crofton weight of each 2 x 2 code (x + 2 up + 4 left + 8 up-left)."""
    if directions == 2:
        a, b = pi / 2, pi
        return [0, a, 0, 0, 0, a, 0, 0, a, b, 0, 0, a, b, 0, 0]
    a = pi / 4 * (1 + 1 / sqrt(2))
    b = pi / (4 * sqrt(2))
    c = pi / (2 * sqrt(2))
    return [0, a, b, c, 0, a, 0, b, pi / 4, pi / 2, b, b, pi / 4, pi / 2, 0, 0]


def _window_count(fg, span, mode):
    """Number of windows (size 2 along the axes in span, 1 elsewhere) of the
    zero-padded fg whose pixels are any (mode 'any') or all ('all') foreground."""
    p = np.pad(fg, 1)
    acc = p.copy()
    for ax in span:
        sh = [0] * p.ndim
        sh[ax] = 1
        acc = (acc | _shifted(acc, sh)) if mode == "any" else (acc & _shifted(acc, sh))
    return int(np.count_nonzero(acc))


def euler_number(image, connectivity=None):
    """Euler characteristic of the foreground of a 2-d or 3-d image."""
    img = _host_image(image)
    fg = img > 0
    nd = fg.ndim
    if nd not in (2, 3):
        raise NotImplementedError("Euler number is implemented for 2D and 3D images only")
    if connectivity is None:
        connectivity = nd
    if nd == 3 and connectivity == 2:
        raise NotImplementedError("For 3D images, Euler number is implemented for connectivities 1 and 3 only")
    chi = 0
    for k in range(nd + 1):
        for axes in itertools.combinations(range(nd), k):
            if connectivity == 1:
                # cells spanning the axes in `axes`: all 2^k corner pixels foreground
                chi += (-1) ** k * _window_count(fg, axes, "all")
            else:
                # closed pixels: a k-cell lies in the union when any of the
                # 2^(nd - k) pixels around it is foreground
                rest = tuple(a for a in range(nd) if a not in axes)
                chi += (-1) ** k * _window_count(fg, rest, "any")
    return scalar_result(chi, np.int64, image) if nd == 2 else int(chi)   # as scikit-image / cuCIM
