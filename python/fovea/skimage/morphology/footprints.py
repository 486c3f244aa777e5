"""Footprint (structuring element) generators, as skimage.morphology 0.26's.

Footprints are small host arrays: every generator returns NumPy arrays (or
sequences of ``(ndarray, repetitions)`` pairs with ``decomposition=``), equal
element for element to scikit-image's. The morphology functions accept them,
and CuPy / PyTorch footprints too (copied to the host: they are tiny).
"""

import warnings
from collections.abc import Sequence
from numbers import Integral

import numpy as np


__all__ = [
    "ball",
    "cube",
    "diamond",
    "disk",
    "ellipse",
    "footprint_from_sequence",
    "footprint_rectangle",
    "mirror_footprint",
    "octagon",
    "octahedron",
    "pad_footprint",
    "rectangle",
    "square",
    "star",
]


def _is_array(x):
    return hasattr(x, "__array_interface__") or hasattr(x, "__cuda_array_interface__") or (
        type(x).__module__.partition(".")[0] == "torch" and hasattr(x, "shape")
    )


def _footprint_is_sequence(footprint):
    """True for a sequence of (array, repetitions) pairs, False for an array."""
    if _is_array(footprint):
        return False

    def valid(t):
        return isinstance(t, Sequence) and len(t) == 2 and _is_array(t[0]) and isinstance(t[1], Integral)

    if isinstance(footprint, Sequence):
        if not all(valid(t) for t in footprint):
            raise ValueError(
                "All elements of footprint sequence must be a 2-tuple where the first element of "
                "the tuple is an ndarray and the second is an integer indicating the number of "
                "iterations."
            )
        return True
    raise ValueError("footprint must be either an ndarray or Sequence")


def _deprecated(name):
    warnings.warn(
        f"`{name}` is deprecated since version 0.25 and will be removed in version 0.27. "
        "Use `skimage.morphology.footprint_rectangle` instead.",
        category=FutureWarning,
        stacklevel=3,
    )


def _shape_from_sequence(footprints, require_odd_size=False):
    """Shape of the single footprint equivalent to a sequence."""
    if not _footprint_is_sequence(footprints):
        raise ValueError("expected a sequence of footprints")
    ndim = footprints[0][0].ndim
    shape = []
    for d in range(ndim):
        total = 1
        for fp, nreps in footprints:
            if require_odd_size and fp.shape[d] % 2 == 0:
                raise ValueError("expected all footprint elements to have odd size")
            total += nreps * (fp.shape[d] - 1)
        shape.append(total)
    return tuple(shape)


def footprint_from_sequence(footprints):
    """The single array equivalent to applying a footprint sequence (a dilation
    of a lone centre pixel by every element in turn)."""
    from .gray import dilation

    shape = _shape_from_sequence(footprints)
    image = np.zeros(shape, dtype=bool)
    image[tuple(s // 2 for s in shape)] = 1
    return dilation(image, footprints)


def _decompose_size(size, kernel_size=3):
    """Repetitions of a width-kernel_size element equivalent to one of width size."""
    if kernel_size % 2 != 1:
        raise ValueError("only odd length kernel_size is supported")
    return 1 + (size - kernel_size) // (kernel_size - 1)


def footprint_rectangle(shape, *, dtype=np.uint8, decomposition=None):
    """A (hyper-)rectangle of ones with the given extents.

    decomposition: None (one array), 'separable' (one 1-d element per axis) or
    'sequence' (a 3 x ... x 3 element repeated, plus 1-d elements for the longer
    axes; odd extents only, else falls back to 'separable' with a warning).
    """
    if decomposition == "sequence" and any(w % 2 == 0 for w in shape):
        warnings.warn(
            "decomposition='sequence' is only supported for uneven footprints, falling back to "
            "decomposition='separable'",
            stacklevel=2,
        )
        decomposition = "separable"

    def along(axis, width):
        s = [1] * len(shape)
        s[axis] = width
        return (np.ones(tuple(s), dtype=dtype), 1)

    if decomposition is None:
        return np.ones(shape, dtype=dtype)
    if decomposition == "separable":
        return tuple(along(axis, width) for axis, width in enumerate(shape))
    if decomposition == "sequence":
        shortest = min(shape)
        seq = [(np.ones((3,) * len(shape), dtype=dtype), _decompose_size(shortest, 3))]
        seq += [along(axis, width - shortest + 1) for axis, width in enumerate(shape) if width > shortest]
        return tuple(seq)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def square(width, dtype=np.uint8, *, decomposition=None):
    """Deprecated (0.25): ``footprint_rectangle((width, width))``."""
    _deprecated("square")
    return footprint_rectangle((width, width), dtype=dtype, decomposition=decomposition)


def rectangle(nrows, ncols, dtype=np.uint8, *, decomposition=None):
    """Deprecated (0.25): ``footprint_rectangle((nrows, ncols))``."""
    _deprecated("rectangle")
    return footprint_rectangle((nrows, ncols), dtype=dtype, decomposition=decomposition)


def cube(width, dtype=np.uint8, *, decomposition=None):
    """Deprecated (0.25): ``footprint_rectangle((width, width, width))``."""
    _deprecated("cube")
    return footprint_rectangle((width,) * 3, dtype=dtype, decomposition=decomposition)


def diamond(radius, dtype=np.uint8, *, decomposition=None):
    """Pixels within city-block distance radius of the centre.

    decomposition 'sequence': the 3 x 3 diamond repeated radius times.
    """
    if decomposition is None:
        pos = np.arange(0, radius * 2 + 1)
        rows, cols = np.meshgrid(pos, pos)
        return np.array(np.abs(rows - radius) + np.abs(cols - radius) <= radius, dtype=dtype)
    if decomposition == "sequence":
        fp = diamond(1, dtype=dtype)
        return ((fp, _decompose_size(2 * radius + 1, fp.shape[0])),)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def octahedron(radius, dtype=np.uint8, *, decomposition=None):
    """The 3-d diamond: city-block distance <= radius (radius may be fractional)."""
    if decomposition is None:
        n = 2 * radius + 1
        z, y, x = np.mgrid[-radius : radius : n * 1j, -radius : radius : n * 1j, -radius : radius : n * 1j]
        return np.array(np.abs(x) + np.abs(y) + np.abs(z) <= radius, dtype=dtype)
    if decomposition == "sequence":
        fp = octahedron(1, dtype=dtype)
        return ((fp, _decompose_size(2 * radius + 1, fp.shape[0])),)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def _t_shaped_elements(ndim, dtype):
    """The 2 * ndim 'T' elements of extent 3: one face of the cube plus the centre
    line across it (2-d: a T and its turns by 90, 180 and 270 degrees)."""
    if ndim == 2:
        t0 = np.array([[1, 1, 1], [0, 1, 0], [0, 1, 0]], dtype=dtype)
        return tuple(np.rot90(t0, k) for k in range(4))
    out = []
    for axis in range(ndim):
        for side in (0, 2):
            t = np.zeros((3,) * ndim, dtype=dtype)
            face = [slice(None)] * ndim
            face[axis] = slice(side, side + 1)
            t[tuple(face)] = 1
            line = [slice(1, 2)] * ndim
            line[axis] = slice(None)
            t[tuple(line)] = 1
            out.append(t)
    return tuple(out)


_NSPHERE_TABLES = {}


def _nsphere_table(ndim):
    """scikit-image's repetition counts of (T-shaped, cross, square/cube) elements per radius
    (disk_decompositions.npy / ball_decompositions.npy, found there by a brute-force search).
    They are data fovea does not ship: they are read from the installed scikit-image, so that
    the sequences, and results with them, equal scikit-image's."""
    if ndim not in _NSPHERE_TABLES:
        import os

        try:
            import skimage.morphology as skm
        except ImportError as e:
            raise ImportError(
                "decomposition='sequence' for disk and ball uses scikit-image's precomputed "
                "decomposition tables; install scikit-image or use decomposition='crosses' / None") from e
        name = "disk_decompositions.npy" if ndim == 2 else "ball_decompositions.npy"
        _NSPHERE_TABLES[ndim] = np.load(os.path.join(os.path.dirname(skm.__file__), name))
    return _NSPHERE_TABLES[ndim]


def _nsphere_series_decomposition(radius, ndim, dtype=np.uint8):
    """A sequence of extent-3 elements approximating a disk (2-d) or ball (3-d)."""
    if radius == 1:
        if ndim == 2:
            return ((disk(1, dtype=dtype, strict_radius=False), 1),)
        if ndim == 3:
            return ((ball(1, dtype=dtype, strict_radius=False), 1),)
    if ndim not in (2, 3):
        raise ValueError("sequence decompositions are only currently available for 2d disks or 3d balls")
    table = _nsphere_table(ndim)
    if radius >= table.shape[0]:
        raise ValueError(f"precomputed {ndim}D decomposition unavailable for radius > {table.shape[0] - 1}")
    n_t, n_cross, n_cube = table[radius]
    seq = []
    if n_t > 0:
        seq += [(t, n_t) for t in _t_shaped_elements(ndim, dtype)]
    if n_cross > 0:
        cross = np.zeros((3,) * ndim, dtype=dtype)
        for axis in range(ndim):
            line = [slice(1, 2)] * ndim
            line[axis] = slice(None)
            cross[tuple(line)] = 1
        seq.append((cross, n_cross))
    if n_cube > 0:
        seq.append((np.ones((3,) * ndim, dtype=dtype), n_cube))
    return tuple(seq)


def disk(radius, dtype=np.uint8, *, strict_radius=True, decomposition=None):
    """Pixels within Euclidean distance radius of the centre (strict_radius=False:
    radius + 0.5). decomposition: 'sequence' (extent-3 elements, approximate) or
    'crosses' (cross-shaped elements, usually exact)."""
    if decomposition is None:
        pos = np.arange(-radius, radius + 1)
        x, y = np.meshgrid(pos, pos)
        if not strict_radius:
            radius += 0.5
        return np.array((x**2 + y**2) <= radius**2, dtype=dtype)
    if decomposition == "sequence":
        return _nsphere_series_decomposition(radius, ndim=2, dtype=dtype)
    if decomposition == "crosses":
        return _cross_decomposition(disk(radius, dtype, strict_radius=strict_radius))
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def ball(radius, dtype=np.uint8, *, strict_radius=True, decomposition=None):
    """The 3-d disk: Euclidean distance <= radius (strict_radius=False: + 0.5).
    decomposition 'sequence': extent-3 elements (approximate)."""
    if decomposition is None:
        n = 2 * radius + 1
        z, y, x = np.mgrid[-radius : radius : n * 1j, -radius : radius : n * 1j, -radius : radius : n * 1j]
        if not strict_radius:
            radius += 0.5
        return np.array(x**2 + y**2 + z**2 <= radius * radius, dtype=dtype)
    if decomposition == "sequence":
        return _nsphere_series_decomposition(radius, ndim=3, dtype=dtype)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def _cross(r0, r1, dtype=np.uint8):
    """A (2 r0 + 1, 2 r1 + 1) array whose centre row and column are ones."""
    c = np.zeros((int(2 * r0 + 1), int(2 * r1 + 1)), dtype=dtype)
    if r1 != 0:
        c[r0, :] = 1
    if r0 != 0:
        c[:, r1] = 1
    return c


def _cross_decomposition(footprint, dtype=np.uint8):
    """Cross-shaped elements whose successive dilations give a symmetric convex
    2-d footprint (Li and Ritter 1990, algorithm 1, as scikit-image adapts it)."""
    quadrant = footprint[footprint.shape[0] // 2 :, footprint.shape[1] // 2 :]
    heights = np.concatenate((quadrant.sum(0, dtype=int), np.zeros(1, dtype=int)))
    counts = {}
    prev = 0
    used = 0
    for i in range(heights.size - 1):
        if heights[i] > heights[i + 1] and i != 0:
            key = (heights[prev] - heights[i], i - prev)
            used += key[0]
            counts[key] = counts.get(key, 0) + 1
            prev = i
    rest = quadrant.shape[0] - 1 - used
    if rest > 0:
        counts[(rest, 0)] = counts.get((rest, 0), 0) + 1
    return tuple((_cross(r0, r1, dtype), n) for (r0, r1), n in counts.items())


def ellipse(width, height, dtype=np.uint8, *, decomposition=None):
    """An ellipse of half-axes width (columns) and height (rows) in a
    (2 height + 1, 2 width + 1) array. decomposition 'crosses': cross-shaped
    elements."""
    if decomposition is None:
        fp = np.zeros((2 * height + 1, 2 * width + 1), dtype=dtype)
        # pixel centres strictly inside the ellipse of radii (height + 1, width + 1)
        rows, cols = np.ogrid[0.0 : float(2 * height + 1), 0.0 : float(2 * width + 1)]
        rr = height + 1
        cr = width + 1
        inside = ((rows - height) / rr) ** 2 + ((cols - width) / cr) ** 2 < 1
        fp[inside] = 1
        return fp
    if decomposition == "crosses":
        return _cross_decomposition(ellipse(width, height, dtype))
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def octagon(m, n, dtype=np.uint8, *, decomposition=None):
    """An octagon with horizontal/vertical sides of m pixels and 45 degree sides
    of n pixels (extent m + 2 n). decomposition 'sequence': a square element and
    n 3 x 3 diamonds."""
    if m == n == 0:
        raise ValueError("m and n cannot both be zero")
    if decomposition is None:
        size = m + 2 * n
        cut = min(n, m + n - 1)   # the pixels cut from each corner, along both axes
        r, c = np.ogrid[:size, :size]
        far_r, far_c = size - 1 - r, size - 1 - c
        inside = (r + c >= cut) & (r + far_c >= cut) & (far_r + c >= cut) & (far_r + far_c >= cut)
        return inside.astype(dtype)
    if decomposition == "sequence":
        if m <= 2 and n <= 2:
            return ((octagon(m, n, dtype=dtype, decomposition=None), 1),)
        if m == 0:
            m = 2
            n -= 1
        seq = []
        if m > 1:
            seq += list(footprint_rectangle((m, m), dtype=dtype, decomposition="sequence"))
        if n > 0:
            seq.append((diamond(1, dtype=dtype), n))
        return tuple(seq)
    raise ValueError(f"Unrecognized decomposition: {decomposition}")


def star(a, dtype=np.uint8):
    """The union of a (2 a + 1)-wide square and its 45 degree turn, in a square
    array of side 2 a + 1 + 2 (a // 2)."""
    if a == 1:
        return np.ones((3, 3), dtype)
    m = 2 * a + 1
    n = a // 2
    size = m + 2 * n
    c = (size - 1) // 2
    r, col = np.ogrid[:size, :size]
    square_part = (r >= n) & (r < m + n) & (col >= n) & (col < m + n)
    turned = np.abs(r - c) + np.abs(col - c) <= c
    return (square_part | turned).astype(dtype)


def mirror_footprint(footprint):
    """The footprint (or each of a sequence) reversed along every axis."""
    if _footprint_is_sequence(footprint):
        return tuple((mirror_footprint(fp), n) for fp, n in footprint)
    footprint = np.asarray(footprint)
    return footprint[(slice(None, None, -1),) * footprint.ndim]


def pad_footprint(footprint, *, pad_end=True):
    """The footprint (or each of a sequence) padded with zeros to odd extents, at
    the end (pad_end) or the start of each even axis."""
    if _footprint_is_sequence(footprint):
        return tuple((pad_footprint(fp, pad_end=pad_end), n) for fp, n in footprint)
    footprint = np.asarray(footprint)
    widths = [((0, 1) if pad_end else (1, 0)) if s % 2 == 0 else (0, 0) for s in footprint.shape]
    return np.pad(footprint, widths)
