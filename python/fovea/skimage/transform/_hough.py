"""hough_line, hough_line_peaks, hough_circle, hough_circle_peaks,
probabilistic_hough_line (skimage.transform.hough_transform, scikit-image 0.26).

The accumulators are fovea's C ops (fv_hough_line, fv_hough_circle: the CPU
thread pool for NumPy input, CUDA for CuPy input), which count votes in
integers and so equal scikit-image's exactly; hough_circle's normalisation maps
the counts (in C) through the running sums scikit-image's repeated
``+= 1 / n`` produces. The
progressive probabilistic transform runs scikit-image's algorithm in C on the
host with the same shuffle of the edge pixels (numpy.random.Generator.shuffle),
so a given ``rng`` gives scikit-image's lines. The peak pickers work on the
host (NumPy) on the accumulator, which is small next to the image.
"""

import math

import numpy as np

from ... import _fovea
from ... import _interop as ix
from ..._interop import prepare

__all__ = ["hough_line", "hough_line_peaks", "hough_circle", "hough_circle_peaks", "probabilistic_hough_line"]

_MAX_LINES = 2 ** 15   # scikit-image's cutoff of probabilistic_hough_line


def _edges(img):
    """img as the C kernels take it (any of their dtypes; others as img != 0)."""
    if not ix.kernel_dtype_ok(img):
        img = img != 0
    return img


def _angles(theta):
    """(theta as given or the default, host float64 angles, their cos and sin as bytes)."""
    if theta is None:
        theta = np.linspace(-np.pi / 2, np.pi / 2, 180, endpoint=False)
    th = ix.host(theta, np.float64)
    if th.ndim != 1:
        raise ValueError(f"Buffer has wrong number of dimensions (expected 1, got {th.ndim})")
    return theta, th, np.cos(th).tobytes(), np.sin(th).tobytes()


def hough_line(image, theta=None):
    """Straight-line Hough transform (skimage.transform.hough_line).

    Returns (hspace, angles, distances): hspace uint64 of shape
    (2 * ceil(hypot(*image.shape)) + 1, len(angles)) on the image's device,
    angles as given (default: 180 angles in [-pi/2, pi/2)), distances the
    float64 bins from -ceil(hypot) to ceil(hypot). theta is taken as float64
    (scikit-image wants a float64 array)."""
    img, xp, back = prepare(image)
    if img.ndim != 2:
        raise ValueError("The input image `image` must be 2D.")
    given = theta is not None
    theta, th, c, s = _angles(theta)
    offset = math.ceil(math.sqrt(img.shape[0] * img.shape[0] + img.shape[1] * img.shape[1]))
    hspace = xp.empty((2 * offset + 1, th.size), dtype=np.uint64)
    _fovea.tf_hough_line(_edges(img), hspace, c, s, ix.stream_of(img))
    bins = np.linspace(-offset, offset, 2 * offset + 1)
    if not given:
        theta = back(ix.like_device(theta, img))
    return back(hspace), theta, back(ix.like_device(bins, img))


def hough_circle(image, radius, normalize=True, full_output=False):
    """Circle Hough transform (skimage.transform.hough_circle): float64
    accumulator of shape (len(radius), M + 2R, N + 2R) (R = max(radius) when
    full_output, else 0) on the image's device; radii truncated to integers."""
    img, xp, back = prepare(image)
    radius = np.atleast_1d(ix.host(radius)).astype(np.intp)
    if img.ndim != 2:
        raise ValueError("The input image must be 2D.")
    offset = int(radius.max()) if full_output else 0
    shape = (radius.size, img.shape[0] + 2 * offset, img.shape[1] + 2 * offset)
    if min(shape) < 0:
        raise ValueError("negative dimensions are not allowed")
    if offset < 0:   # every radius negative: no circle drawn
        return back(xp.zeros(shape, dtype=np.float64))
    acc = xp.empty(shape, dtype=np.float64)
    _fovea.tf_hough_circle(_edges(img), acc, radius.astype(np.int64).tobytes(), offset, bool(normalize),
                           ix.stream_of(img))
    return back(acc)


def _prominent_peaks(image, min_xdistance=1, min_ydistance=1, threshold=None, num_peaks=np.inf):
    """scikit-image's feature.peak._prominent_peaks on a host array: the peaks
    of the (min_ydistance, min_xdistance) maximum filter, strongest first,
    with their neighbourhoods suppressed (columns wrapping with rows mirrored,
    as Hough angles do). (intensities, x indices, y indices)."""
    from ... import ndimage as ndi
    from ..measure import label

    img = np.array(image, copy=True)
    rows, cols = img.shape
    if threshold is None:
        threshold = 0.5 * np.max(img)
    img_max = ndi.maximum_filter1d(img, size=2 * min_ydistance + 1, axis=0, mode="constant", cval=0)
    img_max = ndi.maximum_filter1d(img_max, size=2 * min_xdistance + 1, axis=1, mode="constant", cval=0)
    img *= img == img_max
    labels = label(img > threshold)
    nlab = int(labels.max()) if labels.size else 0
    coords = np.zeros((0, 2), dtype=int)
    if nlab:
        flat = labels.ravel()
        inside = flat > 0
        lab = flat[inside] - 1
        rr, cc = np.divmod(np.flatnonzero(inside), cols)
        count = np.bincount(lab, minlength=nlab)
        cen = np.stack([np.bincount(lab, rr, nlab), np.bincount(lab, cc, nlab)], axis=1) / count[:, None]
        peak = np.full(nlab, -np.inf)
        np.maximum.at(peak, lab, img_max.ravel()[inside].astype(np.float64))
        # scikit-image: sorted(props, key=intensity_max)[::-1] (stable, then reversed)
        order = np.argsort(peak, kind="stable")[::-1]
        coords = np.round(cen[order]).astype(int)
    peaks, ys, xs = [], [], []
    ext_y, ext_x = np.mgrid[-min_ydistance:min_ydistance + 1, -min_xdistance:min_xdistance + 1]
    for yi, xi in coords:
        accum = img_max[yi, xi]
        if accum > threshold:
            ny = yi + ext_y
            nx = xi + ext_x
            keep = np.logical_and(ny > 0, ny < rows)
            ny = ny[keep]
            nx = nx[keep]
            low = nx < 0
            ny[low] = rows - ny[low]
            nx[low] += cols
            high = nx >= cols
            ny[high] = rows - ny[high]
            nx[high] -= cols
            img_max[ny, nx] = 0
            peaks.append(accum)
            ys.append(yi)
            xs.append(xi)
    peaks, ys, xs = np.array(peaks), np.array(ys), np.array(xs)
    if num_peaks < len(peaks):
        best = np.argsort(peaks)[::-1][:num_peaks]
        peaks, ys, xs = peaks[best], ys[best], xs[best]
    return peaks, xs, ys


def hough_line_peaks(hspace, angles, dists, min_distance=9, min_angle=10, threshold=None, num_peaks=np.inf):
    """Peaks of a straight-line Hough transform (skimage.transform.hough_line_peaks):
    (accumulator values, angles, distances) of the most prominent lines, as
    arrays of hspace's kind (the search runs on the host)."""
    hs, _, back = prepare(hspace)
    min_angle = min(min_angle, hs.shape[1])
    h, a, d = _prominent_peaks(ix.to_host(hs), min_xdistance=min_angle, min_ydistance=min_distance,
                               threshold=threshold, num_peaks=num_peaks)
    if a.size > 0:
        ang = ix.host(angles)[a]
        dis = ix.host(dists)[d]
    else:
        ang, dis = np.array([]), np.array([])
    return tuple(back(ix.like_device(r, hs)) for r in (h, ang, dis))


def _distant_points(xs, ys, min_xdistance, min_ydistance, max_points):
    """scikit-image's label_distant_points: which of the points (strongest first)
    to keep so that each kept one lies farther than (min_xdistance,
    min_ydistance) in x or y from every stronger kept one; at most max_points."""
    n = len(xs)
    neighbour = np.zeros(n, dtype=bool)
    kept = 0
    for i in range(n):
        if kept >= max_points:
            neighbour[i] = True
        elif not neighbour[i]:
            later = slice(i + 1, None)
            close = (np.abs(xs[later] - xs[i]) <= min_xdistance) & (np.abs(ys[later] - ys[i]) <= min_ydistance)
            neighbour[later] |= close
            kept += 1
    return ~neighbour


def hough_circle_peaks(hspaces, radii, min_xdistance=1, min_ydistance=1, threshold=None, num_peaks=np.inf,
                       total_num_peaks=np.inf, normalize=False):
    """Peaks of a circle Hough transform (skimage.transform.hough_circle_peaks):
    (accumulator values, x centres, y centres, radii), strongest first, as
    arrays of hspaces' kind (the search runs on the host)."""
    hs, _, back = prepare(hspaces)
    host = ix.to_host(hs)
    r, cx, cy, accum = [], [], [], []
    for rad, hp in zip(ix.host(radii), host):
        h_p, x_p, y_p = _prominent_peaks(hp, min_xdistance=min_xdistance, min_ydistance=min_ydistance,
                                         threshold=threshold, num_peaks=num_peaks)
        r.extend((rad,) * len(h_p))
        cx.extend(x_p)
        cy.extend(y_p)
        accum.extend(h_p)
    r, cx, cy, accum = np.array(r), np.array(cx), np.array(cy), np.array(accum)
    s = np.argsort(accum / r) if normalize else np.argsort(accum)
    res = accum[s][::-1], cx[s][::-1], cy[s][::-1], r[s][::-1]
    tnp = len(res[0]) if total_num_peaks == np.inf else total_num_peaks
    if (min_xdistance == 1 and min_ydistance == 1) or len(res[0]) == 0:
        res = tuple(a[:tnp] for a in res)
    else:
        keep = _distant_points(res[1], res[2], min_xdistance, min_ydistance, tnp)
        res = tuple(a[keep] for a in res)
    return tuple(back(ix.like_device(a, hs)) for a in res)


def probabilistic_hough_line(image, threshold=10, line_length=50, line_gap=10, theta=None, rng=None):
    """Progressive probabilistic line Hough transform
    (skimage.transform.probabilistic_hough_line): a list of lines ((x0, y0),
    (x1, y1)). The edge pixels are visited in the order of
    ``numpy.random.default_rng(rng).shuffle``, as scikit-image does, so the
    same rng gives the same lines. Runs on the host (GPU images are copied)."""
    img, _, _ = prepare(image)
    if img.ndim != 2:
        raise ValueError("The input image `image` must be 2D.")
    _, _, c, s = _angles(theta)
    img = np.ascontiguousarray(_edges(ix.to_host(img)))
    count = int(np.count_nonzero(img))
    order = np.arange(count, dtype=np.intp)
    np.random.default_rng(rng).shuffle(order)
    lines = np.zeros((_MAX_LINES, 4), dtype=np.int64)
    n = _fovea.tf_probabilistic_hough_line(img, order.astype(np.int64, copy=False), lines, int(threshold),
                                           int(line_length), int(line_gap), c, s)
    return [((int(a), int(b)), (int(c_), int(d))) for a, b, c_, d in lines[:n].tolist()]
