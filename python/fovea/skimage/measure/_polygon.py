"""skimage.measure.approximate_polygon (Douglas-Peucker) and
subdivide_polygon (B-spline subdivision). Host (NumPy) algorithms: polygons
are small; CuPy coordinates are copied to the host and the result returned as
CuPy."""

import numpy as np

from ..._interop import host, prepare
from .._shared import cucim_rules

__all__ = ["approximate_polygon", "subdivide_polygon"]


def approximate_polygon(coords, tolerance):
    """Polygonal chain coords (n, 2) simplified by Douglas-Peucker: the kept
    points are a subset such that every dropped point lies within tolerance
    of the simplified chain. tolerance <= 0: coords returned as they are."""
    c, xp, back = prepare(coords)
    if tolerance <= 0:
        return coords
    pts = host(c)
    n = pts.shape[0]
    keep = np.zeros(n, dtype=bool)
    keep[0] = keep[-1] = True
    dist = np.zeros(n)
    todo = [(0, n - 1)]
    while todo:
        i, j = todo.pop()
        (r0, c0), (r1, c1) = pts[i], pts[j]
        dr, dc = r1 - r0, c1 - c0
        ang = -np.arctan2(dr, dc)
        line = c0 * np.sin(ang) + r0 * np.cos(ang)
        inner = pts[i + 1:j]
        d = dist[i + 1:j]
        a_r, a_c = inner[:, 0] - r0, inner[:, 1] - c0
        b_r, b_c = inner[:, 0] - r1, inner[:, 1] - c1
        # points projecting strictly inside the segment: distance to the line;
        # the others: distance to the nearer end
        inside = ((a_r * dr + a_c * dc) > 0) & ((-b_r * dr - b_c * dc) > 0)
        d[inside] = np.abs(inner[inside, 0] * np.cos(ang) + inner[inside, 1] * np.sin(ang) - line)
        out = ~inside
        d[out] = np.minimum(np.sqrt(a_c[out] ** 2 + a_r[out] ** 2), np.sqrt(b_c[out] ** 2 + b_r[out] ** 2))
        if np.any(d > tolerance):
            k = i + int(np.argmax(d)) + 1
            todo.append((k, j))
            todo.append((i, k))
            keep[k] = True
    res = pts[keep, :]
    return back(res if xp is np else xp.asarray(res))


# Lane-Riesenfeld subdivision weights (x 2**degree) of the uniform B-spline of
# each degree: (even points, odd points).
_WEIGHTS = {
    1: ([1, 1], [1, 1]),
    2: ([3, 1], [1, 3]),
    3: ([1, 6, 1], [0, 4, 4]),
    4: ([5, 10, 1], [1, 10, 5]),
    5: ([1, 15, 15, 1], [0, 6, 20, 6]),
    6: ([7, 35, 21, 1], [1, 21, 35, 7]),
    7: ([1, 28, 70, 28, 1], [0, 8, 56, 56, 8]),
}


def _conv(x, w, circular):
    """1-d convolution of each column of x (n, 2) with w: 'valid' (n - m + 1
    rows), or circular with the output centred like scipy's 'same'."""
    n, m = x.shape[0], len(w)
    if circular:
        idx = (np.arange(n)[:, None] + (m - 1) // 2 - np.arange(m)[None, :]) % n
    else:
        idx = np.arange(n - m + 1)[:, None] + (m - 1) - np.arange(m)[None, :]
    return np.einsum("ikc,k->ic", x[idx], w)


def subdivide_polygon(coords, degree=2, preserve_ends=False):
    """One step of B-spline subdivision (degree 1..7) of a polygonal chain
    (n, 2); a closed chain (first point == last) stays closed. preserve_ends:
    keep the end points of an open chain."""
    c, xp, back = prepare(coords)
    if degree not in _WEIGHTS:
        raise ValueError("Invalid B-Spline degree. Only degree 1 - 7 is supported.")
    pts = np.asarray(host(c), dtype=float)
    circular = bool(np.all(pts[0, :] == pts[-1, :]))
    if circular:
        pts = pts[:-1, :]
    w_even, w_odd = (np.array(w, float) / 2**degree for w in _WEIGHTS[degree])
    even = _conv(pts, w_even, circular)
    odd = _conv(pts, w_odd, circular)
    out = np.zeros((even.shape[0] + odd.shape[0], 2))
    out[1::2] = even
    out[::2] = odd
    if circular:
        out = np.vstack([out, out[0, :]])
    if preserve_ends and not circular:
        out = np.vstack([pts[0, :], out, pts[-1, :]])
    if cucim_rules(c):   # cuCIM: in the coordinates' float type (float64 for integers)
        return back(xp.asarray(out, dtype=c.dtype if c.dtype.kind == "f" else np.float64))
    return back(out)
