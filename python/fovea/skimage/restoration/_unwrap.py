"""scikit-image 0.26's phase unwrapping on fovea: Herraez et al.'s
reliability-sorted, non-continuous-path unwrapper (2-d) and its 3-d
extension by Abdul-Rahman et al., n-d in one implementation.

Reliabilities (sums of squared wrapped second differences over every
neighbour direction) and edges are NumPy array maths; the edges are sorted by
reliability and the pixels gathered into groups in that order by a union-find
in C (fv_unwrap_gather: the smaller group joins the larger, its 2 pi
increment carried by the root). Pixels whose neighbourhood leaves the image (without wrap_around) or
touches the mask get scikit-image's large random reliability, drawn from rng.
The result can differ from scikit-image's by a multiple of 2 pi per connected
region, and where the phase has residues (paths disagree) it follows the same
rule with possibly another order of equally reliable edges."""

import itertools
import warnings

import numpy as np

from ... import _fovea
from ... import _interop as ix

__all__ = ["unwrap_phase"]

_TWOPI = 2 * np.pi


def _wrap(v):
    return np.where(v > np.pi, v - _TWOPI, np.where(v < -np.pi, v + _TWOPI, v))


def _shift(a, v, wrap_around, fill):
    """b[p] = a[p + v] (periodic along wrap_around axes, else fill outside)."""
    out = a
    for ax, s in enumerate(v):
        if s == 0:
            continue
        out = np.roll(out, -s, axis=ax)
        if not wrap_around[ax]:
            idx = [slice(None)] * a.ndim
            idx[ax] = slice(a.shape[ax] - s, None) if s > 0 else slice(0, -s)
            out = out.copy() if out is a else out
            out[tuple(idx)] = fill
    return out


def _unwrap_1d(x):
    d = np.diff(x)
    periods = np.cumsum(np.where(d > np.pi, -1, np.where(d < -np.pi, 1, 0)))
    out = np.empty_like(x)
    out[0] = x[0]
    out[1:] = x[1:] + _TWOPI * periods
    return out


def _unwrap_nd(x, mask, wrap_around, rng):
    nd = x.ndim
    valid = ~mask
    # the extended mask: the pixel and every neighbour unmasked and inside
    dirs = [v for v in itertools.product((-1, 0, 1), repeat=nd) if v > (0,) * nd]
    ext = valid.copy()
    for v in dirs:
        for sgn in (1, -1):
            ext &= _shift(valid, tuple(sgn * c for c in v), wrap_around, False)
    rel = np.zeros(x.shape)
    for v in dirs:
        fwd = _shift(x, v, wrap_around, 0.0)
        back = _shift(x, tuple(-c for c in v), wrap_around, 0.0)
        t = _wrap(back - x) - _wrap(x - fwd)
        rel += t * t
    rng = np.random.default_rng(rng)
    noise = 9999999.0 + rng.integers(0, 2**31 - 1, size=x.shape).astype(np.float64)
    rel = np.where(ext, rel, noise)
    flat = np.arange(x.size).reshape(x.shape)
    e1, e2, er, ei = [], [], [], []
    for ax in range(nd):
        v = tuple(1 if k == ax else 0 for k in range(nd))
        nb = _shift(flat, v, wrap_around, -1)
        ok = valid & (nb >= 0)
        ok &= valid.ravel()[np.where(nb >= 0, nb, 0)].reshape(x.shape)
        if not wrap_around[ax] or x.shape[ax] < 2:
            pass
        a = flat[ok]
        b = nb[ok]
        e1.append(a)
        e2.append(b)
        er.append(rel.ravel()[a] + rel.ravel()[b])
        d = x.ravel()[a] - x.ravel()[b]
        ei.append(np.where(d > np.pi, -1, np.where(d < -np.pi, 1, 0)))
    e1, e2, er, ei = (np.concatenate(z) for z in (e1, e2, er, ei))
    order = np.argsort(er, kind="stable")
    edges = np.ascontiguousarray(np.stack([e1[order], e2[order], ei[order].astype(np.int64)], axis=1),
                                 dtype=np.int64)
    inc = np.empty(x.size, dtype=np.int64)
    _fovea.rst_unwrap_gather(edges, inc)
    out = x + _TWOPI * inc.reshape(x.shape)
    if mask.any():
        lo = out[valid].min() if valid.any() else 99999999.0
        out = np.where(mask, lo, out)
    return out


def unwrap_phase(image, wrap_around=False, rng=None):
    """Unwrap a phase image wrapped to [-pi, pi) (skimage.restoration.unwrap_phase),
    1-d, 2-d or 3-d; masked arrays keep their mask (masked values become the
    unwrapped minimum). Runs on the host (CuPy input is copied there and back)."""
    masked = np.ma.isMaskedArray(image)
    if masked:
        xp, back = np, (lambda r: r)
        data = np.ma.getdata(image)
        mask = np.ma.getmaskarray(image)
    else:
        data, xp, back = ix.prepare(image, "unwrap_phase")
        data = ix.to_host(data) if ix.on_gpu(data) else data
        mask = np.zeros(data.shape, dtype=bool)
    if data.ndim not in (1, 2, 3):
        raise ValueError("Image must be 1, 2, or 3 dimensional")
    if isinstance(wrap_around, bool):
        wrap_around = [wrap_around] * data.ndim
    elif hasattr(wrap_around, "__getitem__") and not isinstance(wrap_around, str):
        if len(wrap_around) != data.ndim:
            raise ValueError("Length of `wrap_around` must equal the dimensionality of image")
        wrap_around = [bool(w) for w in wrap_around]
    else:
        raise ValueError("`wrap_around` must be a bool or a sequence with length equal to the dimensionality of "
                         "image")
    if data.ndim == 1:
        if masked:
            raise ValueError("1D masked images cannot be unwrapped")
        if wrap_around[0]:
            raise ValueError("`wrap_around` is not supported for 1D images")
    if data.ndim in (2, 3) and 1 in data.shape:
        warnings.warn("Image has a length 1 dimension. Consider using an array of lower dimensionality to use a "
                      "more efficient algorithm", UserWarning, stacklevel=2)
    x = np.asarray(data, dtype=np.float64)
    out = _unwrap_1d(x) if x.ndim == 1 else _unwrap_nd(x, mask, wrap_around, rng)
    if masked:
        return np.ma.array(out, mask=mask, fill_value=image.fill_value)
    if ix.on_gpu(ix.prepare(image)[0]):
        return back(xp.asarray(out))
    return back(out)
