"""Image moments (skimage.measure.moments* , centroid, inertia_tensor*), 0.26 API.

The standalone functions work on NumPy or CuPy arrays (the result has the
input's array type). The batch helpers at the bottom (``_shift_moments``,
``_normalize_batch``, ``_hu_batch``, ``_inertia_batch``) work on stacks of
moment arrays, one per region, and are what regionprops derives its
moment properties from for all labels at once."""

import itertools

import numpy as np

from ... import _interop as ix
from .._shared import cucim_rules, supported_float_type

__all__ = [
    "centroid",
    "inertia_tensor",
    "inertia_tensor_eigvals",
    "moments",
    "moments_central",
    "moments_coords",
    "moments_coords_central",
    "moments_hu",
    "moments_normalized",
]


def _xp_for(a):
    x, _, back = ix.prepare(a)
    return x, ix.xp_of(x), back


def moments_coords(coords, order=3):
    """Raw moments of a (N, D) coordinate list (or tuple of D coordinate arrays)."""
    return moments_coords_central(coords, 0, order=order)


def moments_coords_central(coords, center=None, order=3):
    """Central moments of a (N, D) coordinate list up to ``order`` per axis:
    an array of shape (order + 1,) * D."""
    if isinstance(coords, tuple):
        coords = np.stack([np.asarray(c) for c in coords], axis=-1)
    c, xp, back = _xp_for(coords)
    if c.ndim != 2:
        raise ValueError(f"The parameter `coords` must be a 2-dimensional array, got {c.ndim}")
    ndim = c.shape[1]
    ft = supported_float_type(c)
    if center is None:
        center = xp.mean(c, axis=0, dtype=float)
    elif not np.isscalar(center):
        center = xp.asarray(ix.host(center) if xp is not np else center)
    if cucim_rules(c):   # cuCIM: in the coordinates' float type throughout
        center = xp.asarray(center, dtype=ft)
    d = c.astype(ft, copy=False) - center   # scikit-image: a float64 centre gives float64
    out = None
    for axis in range(ndim):
        p = xp.stack([d[:, axis] ** k for k in range(order + 1)], axis=-1)   # (N, order+1)
        shape = [p.shape[0]] + [1] * ndim
        shape[1 + axis] = order + 1
        p = p.reshape(shape)
        out = p if out is None else out * p
    return back(xp.sum(out, axis=0))


def moments(image, order=3, *, spacing=None):
    """Raw image moments up to ``order`` per axis: (order + 1,) * ndim array."""
    return moments_central(image, (0,) * ix.ndim_of(image), order=order, spacing=spacing)


def moments_central(image, center=None, order=3, *, spacing=None, **kwargs):
    """Central image moments about ``center`` (default: the centroid)."""
    x, xp, back = _xp_for(image)
    if center is None:   # skimage: from the raw moments, only orders sum(p) <= order kept
        m = moments(x, order=1, spacing=spacing)
        m0 = m[(0,) * x.ndim]
        center = [float(m[tuple(np.eye(x.ndim, dtype=int)[d])] / m0) for d in range(x.ndim)]
        mu = ix.prepare(moments_central(x, center, order, spacing=spacing))[0]
        total = sum(np.ix_(*[np.arange(order + 1)] * x.ndim))
        mu[xp.asarray(total > order)] = 0
        return back(mu)
    ft = supported_float_type(x)
    if spacing is None:
        spacing = np.ones(x.ndim)
    calc = x.astype(ft, copy=False)
    orders = xp.arange(order + 1, dtype=ft)
    for dim, n in enumerate(x.shape):
        delta = xp.arange(n, dtype=ft) * ft(spacing[dim]) - ft(center[dim])
        powers = delta[:, None] ** orders                 # (n, order + 1)
        calc = xp.moveaxis(xp.tensordot(calc, powers, axes=([dim], [0])), -1, dim)
    return back(calc)


def moments_normalized(mu, order=3, spacing=None):
    """Normalised moments nu = mu / mu0^(|p| / ndim + 1) (scaled by min(spacing)^|p|);
    NaN where |p| < 2."""
    m, xp, back = _xp_for(mu)
    if any(s <= order for s in m.shape):
        raise ValueError("Shape of image moments must be >= `order`")
    if spacing is None:
        spacing = np.ones(m.ndim)
    scale = float(min(spacing))
    nu = xp.zeros_like(m)
    mu0 = m.ravel()[0]
    for powers in itertools.product(range(order + 1), repeat=m.ndim):
        s = sum(powers)
        if s < 2:
            nu[powers] = np.nan
        else:
            nu[powers] = (m[powers] / scale**s) / (mu0 ** (s / m.ndim + 1))
    return back(nu)


def _hu_from(nu):
    """Hu's seven invariants from the normalised moments nu[p, q] (last axes
    (4, 4); leading axes are a batch)."""
    n20, n02, n11 = nu[..., 2, 0], nu[..., 0, 2], nu[..., 1, 1]
    n30, n03, n21, n12 = nu[..., 3, 0], nu[..., 0, 3], nu[..., 2, 1], nu[..., 1, 2]
    a = n30 + n12
    b = n21 + n03
    a2, b2 = a * a, b * b
    u = n30 - 3 * n12
    v = 3 * n21 - n03
    d = n20 - n02
    return [
        n20 + n02,
        d * d + 4 * n11 * n11,
        u * u + v * v,
        a2 + b2,
        u * a * (a2 - 3 * b2) + v * b * (3 * a2 - b2),
        d * (a2 - b2) + 4 * n11 * a * b,
        v * a * (a2 - 3 * b2) - u * b * (3 * a2 - b2),
    ]


def moments_hu(nu):
    """Hu's seven moment invariants of 2-d normalised moments nu (float32 stays float32)."""
    m, xp, back = _xp_for(nu)
    dt = np.float32 if m.dtype == np.float32 else np.float64
    m = m.astype(dt, copy=False)
    return back(xp.stack(_hu_from(m)).astype(dt, copy=False))


def centroid(image, *, spacing=None):
    """The intensity-weighted centroid of image (in spacing units)."""
    x, xp, back = _xp_for(image)
    m = moments_central(x, center=(0,) * x.ndim, order=1, spacing=spacing)
    eye = np.eye(x.ndim, dtype=int)
    return back(xp.stack([m[tuple(eye[d])] for d in range(x.ndim)]) / m[(0,) * x.ndim])


def inertia_tensor(image, mu=None, *, spacing=None):
    """Inertia tensor of image (from its central moments mu when given)."""
    x, xp, back = _xp_for(image)
    if mu is None:
        mu = moments_central(x, order=2, spacing=spacing)
    else:
        mu = ix.like_input(mu, x, "mu")
    return back(_inertia_batch(mu[None], x.ndim, xp)[0])


def inertia_tensor_eigvals(image, mu=None, T=None, *, spacing=None):
    """Eigenvalues of the inertia tensor, clipped at 0, in decreasing order (a list)."""
    if T is None:
        T = inertia_tensor(image, mu, spacing=spacing)
    t, xp, _ = _xp_for(T)
    ev = xp.clip(xp.linalg.eigvalsh(t), 0, None)
    if xp is np:   # NumPy scalars of T's dtype, as scikit-image returns
        return sorted(ev, reverse=True)
    return sorted(ev.tolist(), reverse=True)


# ---- batches: one moment array per region, stacked on axis 0 -------------------

_BINOM = ((1,), (1, 1), (1, 2, 1), (1, 3, 3, 1))


def _shift_moments(m, t, nd, xp):
    """Moments about a point moved by -t: m has shape (n,) + (4,) * nd, t (n, nd);
    returns sum (x - t)^p from the sums of x^k (per axis, the binomial
    expansion; k <= p <= 3)."""
    out = m
    for d in range(nd):
        mv = xp.moveaxis(out, 1 + d, 1)
        s = -t[:, d].reshape((-1,) + (1,) * nd)
        new = xp.empty_like(mv)
        for p in range(4):
            acc = mv[:, p]
            for k in range(p):
                acc = acc + _BINOM[p][k] * s[:, 0] ** (p - k) * mv[:, k]
            new[:, p] = acc
        out = xp.moveaxis(new, 1, 1 + d)
    return out


def _normalize_batch(mu, nd, spacing, xp):
    """moments_normalized for a stack (n,) + (4,) * nd."""
    scale = float(min(spacing))
    mu0 = mu.reshape(mu.shape[0], -1)[:, 0].reshape((-1,) + (1,) * nd)
    nu = xp.empty_like(mu)
    for powers in itertools.product(range(4), repeat=nd):
        s = sum(powers)
        idx = (slice(None),) + powers
        if s < 2:
            nu[idx] = np.nan
        else:
            nu[idx] = (mu[idx] / scale**s) / (mu0[(slice(None),) + (0,) * nd] ** (s / nd + 1))
    return nu


def _hu_batch(nu, xp):
    """(n, 7) Hu invariants of a (n, 4, 4) stack."""
    return xp.stack(_hu_from(nu), axis=-1)


def _inertia_batch(mu, nd, xp):
    """(n, nd, nd) inertia tensors of a stack of central moments (n,) + (k,) * nd."""
    n = mu.shape[0]
    mu0 = mu.reshape(n, -1)[:, 0]
    eye = np.eye(nd, dtype=int)
    second = [mu[(slice(None),) + tuple(2 * eye[d])] for d in range(nd)]
    tot = sum(second)
    res = xp.zeros((n, nd, nd), dtype=mu.dtype)
    for d in range(nd):
        res[:, d, d] = (tot - second[d]) / mu0
    for i, j in itertools.combinations(range(nd), 2):
        v = -mu[(slice(None),) + tuple(eye[i] + eye[j])] / mu0
        res[:, i, j] = v
        res[:, j, i] = v
    return res
