"""perimeter, perimeter_crofton and euler_number of every label at once.

The per-region definitions (_regionprops_utils.py, scikit-image's) look at a
region's binary image only, so each can be evaluated on the whole label image
by asking, at every pixel or window, which label it belongs to:

- perimeter: a pixel of label l is a border pixel when one of its 4
  neighbours is not l (outside the image counts as not l); its code is
  1 + 2 (border 4-neighbours of label l) + 10 (border diagonal neighbours
  of label l), weighed as in scikit-image and summed per label (bincount).
- perimeter_crofton: every 2 x 2 window of the zero-padded image, for every
  distinct label l in it, has the configuration code of the cells equal to
  l; the Crofton weights of those codes are summed per label.
- euler_number (connectivity ndim, as regionprops uses it): the Euler
  characteristic of label l's closed pixels / voxels is the alternating sum,
  over the window shapes (2 along some axes, 1 along the others), of the
  number of windows that contain a pixel of l; each window counts once for
  each distinct label in it.

Everything is array code on the label image's device (NumPy or CuPy)."""

import itertools

import numpy as np

from ._regionprops_utils import _PERIMETER_WEIGHTS, _crofton_coefs


def _window_cells(P, axes):
    """The cells of every window of P spanning 2 along `axes` (1 elsewhere),
    as flat arrays (one per corner offset)."""
    cells = []
    for offs in itertools.product((0, 1), repeat=len(axes)):
        sl = [slice(None)] * P.ndim
        for ax, o in zip(axes, offs):
            sl[ax] = slice(o, P.shape[ax] - 1 + o)
        cells.append(P[tuple(sl)].reshape(-1))
    return cells


def _first_mask(cells, k, xp):
    """Where cell k holds a label (nonzero) that no earlier cell of the window holds."""
    c = cells[k]
    m = c != 0
    for j in range(k):
        m &= c != cells[j]
    return m


def euler_numbers(labels, nlab, xp):
    """(nlab + 1,) Euler numbers (connectivity ndim) of labels 1..nlab of a 2-d or 3-d label image."""
    P = xp.pad(labels, 1)
    nd = P.ndim
    chi = xp.zeros(nlab + 1, dtype=np.int64)
    for k in range(nd + 1):
        for fixed in itertools.combinations(range(nd), k):
            span = tuple(a for a in range(nd) if a not in fixed)
            cells = _window_cells(P, span)
            got = xp.concatenate([cells[i][_first_mask(cells, i, xp)] for i in range(len(cells))])
            cnt = xp.bincount(got.astype(np.int64), minlength=nlab + 1)
            chi += cnt if k % 2 == 0 else -cnt
    return chi


def perimeters(labels, nlab, xp):
    """(nlab + 1,) perimeters (4-neighbourhood) of labels 1..nlab of a 2-d label image."""
    P = xp.pad(labels, 1)
    core = P[1:-1, 1:-1]
    n0, n1 = core.shape

    def at(dr, dc, a):
        return a[1 + dr : 1 + dr + n0, 1 + dc : 1 + dc + n1]

    inner = core != 0
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        inner &= at(dr, dc, P) == core
    border = (core != 0) & ~inner
    B = xp.pad(border, 1)
    code = xp.ones(core.shape, dtype=np.int64)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        code += 2 * (at(dr, dc, B) & (at(dr, dc, P) == core))
    for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
        code += 10 * (at(dr, dc, B) & (at(dr, dc, P) == core))
    w = xp.asarray(_PERIMETER_WEIGHTS)[code[border]]
    return xp.bincount(core[border].astype(np.int64), weights=w, minlength=nlab + 1)


def crofton_perimeters(labels, nlab, xp, directions=4):
    """(nlab + 1,) Crofton perimeters of labels 1..nlab of a 2-d label image."""
    P = xp.pad(labels, 1)
    # cells of each 2 x 2 window: x (bottom right), up, left, up-left with weights 1, 2, 4, 8
    x = P[1:, 1:].reshape(-1)
    up = P[:-1, 1:].reshape(-1)
    left = P[1:, :-1].reshape(-1)
    ul = P[:-1, :-1].reshape(-1)
    cells = [x, up, left, ul]
    coefs = xp.asarray(np.asarray(_crofton_coefs(directions), dtype=np.float64))
    tot = xp.zeros(nlab + 1, dtype=np.float64)
    for k in range(4):
        m = _first_mask(cells, k, xp)
        lab = cells[k][m]
        code = (x[m] == lab) * 1 + (up[m] == lab) * 2 + (left[m] == lab) * 4 + (ul[m] == lab) * 8
        tot += xp.bincount(lab.astype(np.int64), weights=coefs[code], minlength=nlab + 1)
    return tot
