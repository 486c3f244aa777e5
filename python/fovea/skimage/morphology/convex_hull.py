"""convex_hull_image and convex_hull_object (skimage.morphology, 0.26 API).

2-d: every foreground pixel stands for the four points half a pixel away
along the axes (skimage's offset_coordinates); only the first and last
pixel of each row can be hull vertices, so those are kept. Their hull comes
from Andrew's monotone chain, and a pixel centre belongs to the hull image
when it lies inside the polygon or on its border (skimage's
grid_points_in_poly labels >= 1), with a tolerance of ``tolerance`` for
rounding. n-d (3-d and more): the hull of the voxel centres, then of the
offset points of its vertices, from Qhull (scipy.spatial.ConvexHull), and
the grid points whose every facet inequality holds within ``tolerance``.
Computed on the host; CuPy / CUDA inputs come back on their device."""

import warnings

import numpy as np

from ... import _interop as ix

__all__ = ["convex_hull_image", "convex_hull_object"]


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _prefilter(points):
    """Drop the points strictly inside the octagon of the extreme points
    along the axes and diagonals (Akl-Toussaint): they are no hull vertices."""
    if len(points) < 16:
        return points
    x, y = points[:, 0], points[:, 1]
    ext = [np.argmin(x), np.argmin(x + y), np.argmin(y), np.argmin(y - x), np.argmax(x), np.argmax(x + y),
           np.argmax(y), np.argmax(y - x)]
    # the extremes in angular (counter-clockwise) order around the centre, duplicates removed
    poly = []
    for i in ext:
        p = (points[i, 0], points[i, 1])
        if not poly or poly[-1] != p:
            poly.append(p)
    if len(poly) > 1 and poly[0] == poly[-1]:
        poly.pop()
    if len(poly) < 3:
        return points
    poly = np.asarray(poly)
    a = poly
    b = np.roll(poly, -1, axis=0)
    cr = (b[:, 0] - a[:, 0])[:, None] * (y[None, :] - a[:, 1][:, None]) - \
         (b[:, 1] - a[:, 1])[:, None] * (x[None, :] - a[:, 0][:, None])
    # the octagon is ordered x-min, x+y-min, y-min, ... which is clockwise in (x, y): inside is cr < 0
    inside = (cr < 0).all(axis=0) if (cr <= 0).sum() >= (cr >= 0).sum() else (cr > 0).all(axis=0)
    return points[~inside]


def _hull_2d(points):
    """Vertices (counter-clockwise in (row, col) axes) of the convex hull of
    unique points (k, 2), by the monotone chain; collinear points dropped."""
    pts = sorted(map(tuple, _prefilter(np.asarray(points, dtype=float)).tolist()))
    if len(pts) <= 2:
        return np.asarray(pts, dtype=float)
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.asarray(lower[:-1] + upper[:-1], dtype=float)


def _row_extremes(img):
    """(row, col) of the first and last foreground pixel of every row."""
    rows = np.flatnonzero(img.any(axis=1))
    sub = img[rows]
    first = np.argmax(sub, axis=1)
    last = img.shape[1] - 1 - np.argmax(sub[:, ::-1], axis=1)
    return np.concatenate([np.stack([rows, first], 1), np.stack([rows, last], 1)])


def _diamond(coords):
    nd = coords.shape[1]
    off = np.zeros((2 * nd, nd))
    for ax in range(nd):
        off[2 * ax, ax] = -0.5
        off[2 * ax + 1, ax] = 0.5
    return (coords[:, None, :] + off).reshape(-1, nd)


def _inside_polygon(shape, verts, tolerance):
    """Grid points (pixel centres) inside or on the convex polygon verts."""
    lo = np.floor(verts.min(axis=0)).astype(int)
    hi = np.ceil(verts.max(axis=0)).astype(int) + 1
    mask = np.zeros(shape, dtype=bool)
    r0, r1 = max(lo[0], 0), min(hi[0], shape[0])
    c0, c1 = max(lo[1], 0), min(hi[1], shape[1])
    if r0 >= r1 or c0 >= c1:
        return mask
    rr = np.arange(r0, r1, dtype=float)[None, :, None]
    cc = np.arange(c0, c1, dtype=float)[None, None, :]
    a = verts
    b = np.roll(verts, -1, axis=0)
    dr = (b[:, 0] - a[:, 0])[:, None, None]
    dc = (b[:, 1] - a[:, 1])[:, None, None]
    # counter-clockwise in (row, col): inside is where the cross product >= 0
    cr = dr * (cc - a[:, 1][:, None, None]) - dc * (rr - a[:, 0][:, None, None])
    scale = np.maximum(np.maximum(np.abs(dr), np.abs(dc)), 1.0)
    mask[r0:r1, c0:c1] = (cr >= -tolerance * scale).all(axis=0)
    return mask


def _hull_image_host(img, offset_coordinates, tolerance, include_borders):
    nd = img.ndim
    if np.count_nonzero(img) == 0:
        warnings.warn("Input image is entirely zero, no valid convex hull. Returning empty image", UserWarning,
                      stacklevel=3)
        return np.zeros(img.shape, dtype=bool)
    if nd == 2:
        coords = _row_extremes(img).astype(float)
        if offset_coordinates:
            coords = _diamond(coords)
        verts = _hull_2d(coords)   # duplicates fall out of the chain (zero cross products)
        if len(verts) < 3:
            # degenerate (collinear) input: skimage's Qhull call fails the same way
            warnings.warn("Failed to get convex hull image. Returning empty image (the points are collinear)",
                          stacklevel=3)
            return np.zeros(img.shape, dtype=bool)
        # verts from the chain are counter-clockwise in (x=row, y=col); the
        # inside test above expects the orientation of _cross > 0
        mask = _inside_polygon(img.shape, verts, tolerance if include_borders else -tolerance)
        if not include_borders:
            mask &= ~_on_polygon(img.shape, verts, tolerance)
        return mask
    from scipy.spatial import ConvexHull, QhullError

    coords = np.transpose(np.nonzero(img)).astype(float)
    try:
        if offset_coordinates:
            h0 = ConvexHull(coords)
            coords = _diamond(h0.points[h0.vertices])
        coords = np.unique(coords, axis=0)
        hull = ConvexHull(coords)
    except QhullError as err:
        warnings.warn(f"Failed to get convex hull image. Returning empty image, see error message below:\n{err}",
                      stacklevel=3)
        return np.zeros(img.shape, dtype=bool)
    grid = np.reshape(np.mgrid[tuple(map(slice, img.shape))], (nd, -1)).astype(float)
    ok = np.ones(grid.shape[1], dtype=bool)
    for eq in hull.equations:
        ok &= eq[:nd] @ grid + eq[nd] < tolerance
    return ok.reshape(img.shape)


def _on_polygon(shape, verts, tolerance):
    r = np.arange(shape[0], dtype=float)[:, None]
    c = np.arange(shape[1], dtype=float)[None, :]
    on = np.zeros(shape, dtype=bool)
    k = len(verts)
    for i in range(k):
        a, b = verts[i], verts[(i + 1) % k]
        cr = (b[0] - a[0]) * (c - a[1]) - (b[1] - a[1]) * (r - a[0])
        t_r = (r - a[0]) * (b[0] - a[0]) + (c - a[1]) * (b[1] - a[1])
        L2 = (b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2
        on |= (np.abs(cr) <= tolerance) & (t_r >= 0) & (t_r <= L2)
    return on


def convex_hull_image(image, offset_coordinates=True, tolerance=1e-10, include_borders=True, *,
                      omit_empty_coords_check=False, float64_computation=True, cpu_fallback_threshold=None):
    """The pixels inside the convex hull of the nonzero pixels of image (bool).
    omit_empty_coords_check, float64_computation, cpu_fallback_threshold: cuCIM's
    tuning switches, accepted (fovea computes the hull on the host in float64)."""
    x, _, back = ix.prepare(image)
    img = np.asarray(ix.to_host(x)).astype(bool)
    mask = _hull_image_host(img, offset_coordinates, tolerance, include_borders)
    return back(ix.like_device(mask, x))


def convex_hull_object(image, *, connectivity=2, float64_computation=True, cpu_fallback_threshold=None):
    """The union of the convex hulls of the connected objects of a 2-d binary image.
    float64_computation, cpu_fallback_threshold: cuCIM's switches, accepted."""
    x, _, back = ix.prepare(image)
    if x.ndim > 2:
        raise ValueError("Input must be a 2D image")
    if connectivity not in (1, 2):
        raise ValueError("`connectivity` must be either 1 or 2.")
    from ..measure import label

    img = np.asarray(ix.to_host(x))
    labels = label(img, connectivity=connectivity, background=0)
    out = np.zeros(img.shape, dtype=bool)
    from scipy import ndimage as sndi   # bounding boxes only

    for i, sl in enumerate(sndi.find_objects(labels)):
        if sl is None:
            continue
        # the hull lies within the object's box; compute it there
        out[sl] |= _hull_image_host(labels[sl] == i + 1, True, 1e-10, True)
    return back(ix.like_device(out, x))
