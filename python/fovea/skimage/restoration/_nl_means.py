"""scikit-image 0.26's non-local means on fovea.

fast_mode=True (Darbon et al. / Froment's algorithm, 2-d to 4-d, up to 64
channels): the outer loop runs over the search shifts; on the host in fovea's C
kernel (fv_denoise_nl_means_fast: groups of shifts over the thread pool), on
the GPU as a few whole-array CuPy operations per shift (squared differences,
box sums by cumulative sums, weights, symmetric accumulation); float64 as
scikit-image computes it.
fast_mode=False (the per-pixel Gaussian-weighted patch distances, 2-d with
channels or 3-d grayscale): fovea's C kernel on the CPU thread pool."""

import numpy as np

from ... import _fovea
from ... import _interop as ix
from .._shared import convert_to_float

__all__ = ["denoise_nl_means"]

_EXP_A = 1512775.3951951856938
_EXP_BC = 1072632447
_CUTOFF = 5.0


def _fast_exp(y, xp):
    """scikit-image's fast_exp (Schraudolph): the high word of a double set to
    (int)(EXP_A y) + EXP_BC, the low word 0."""
    hi = xp.trunc(_EXP_A * y).astype(np.int64) + _EXP_BC
    return (hi << 32).view(np.float64)


def _fast_nlm(image, s, d, h, var, xp):
    """image: (spatial..., channels) float; returns the same shape, float64."""
    nd = image.ndim - 1
    nc = image.shape[-1]
    o = s // 2
    pad = o + d + 1
    P = xp.pad(image.astype(np.float64), [(pad, pad)] * nd + [(0, 0)], mode="reflect")
    S = P.shape[:nd]
    result = xp.zeros(P.shape, dtype=np.float64)
    weights = xp.zeros(S, dtype=np.float64)
    norm = nc * h * h * float(s) ** nd
    var2 = 2 * var
    ranges = [range(-d, d + 1)] * (nd - 1) + [range(0, d + 1)]
    for t in np.ndindex(*[len(r) for r in ranges]):
        t = [ranges[k][t[k]] for k in range(nd)]
        alpha = 0.5 if t[-1] == 0 else 1.0
        lo = [max(0, -tk) for tk in t]
        hi = [min(n, n - tk) for n, tk in zip(S, t)]
        lo[-1] = 0
        hi[-1] = S[-1] - t[-1]
        ref = tuple(slice(a, b) for a, b in zip(lo, hi))
        mov = tuple(slice(a + tk, b + tk) for a, b, tk in zip(lo, hi, t))
        diff = P[ref] - P[mov]
        D = (diff * diff).sum(axis=-1) - nc * var2
        # scikit-image's integral starts at index 1 on every axis
        for k in range(nd):
            if lo[k] == 0:
                idx = [slice(None)] * nd
                idx[k] = 0
                D[tuple(idx)] = 0
        cen_lo = [max(o, o - tk) for tk in t]
        cen_hi = [min(n - o, n - o - tk) for n, tk in zip(S, t)]
        cen_lo[-1] = o
        cen_hi[-1] = S[-1] - o - t[-1]
        if any(b <= a for a, b in zip(cen_lo, cen_hi)):
            continue
        C = D
        for k in range(nd):
            C = xp.cumsum(C, axis=k)
            zero = xp.zeros(C.shape[:k] + (1,) + C.shape[k + 1:], dtype=C.dtype)
            Cz = xp.concatenate([zero, C], axis=k)
            a = [slice(None)] * nd
            b = [slice(None)] * nd
            a[k] = slice(cen_lo[k] + o - lo[k] + 1, cen_hi[k] + o - lo[k] + 1)
            b[k] = slice(cen_lo[k] - o - lo[k] + 1, cen_hi[k] - o - lo[k] + 1)
            C = Cz[tuple(a)] - Cz[tuple(b)]
        dist = xp.maximum(C, 0.0) / norm
        W = xp.where(dist > _CUTOFF, 0.0, alpha * _fast_exp(-xp.minimum(dist, _CUTOFF + 1), xp))
        cen = tuple(slice(a, b) for a, b in zip(cen_lo, cen_hi))
        sh = tuple(slice(a + tk, b + tk) for a, b, tk in zip(cen_lo, cen_hi, t))
        weights[cen] += W
        weights[sh] += W
        Wc = W[..., None]
        result[cen] += Wc * P[sh]
        result[sh] += Wc * P[cen]
    inner = tuple(slice(pad, n - pad) for n in S)
    return result[inner] / weights[inner][..., None]


def denoise_nl_means(image, patch_size=7, patch_distance=11, h=0.1, fast_mode=True, sigma=0.0, *,
                     preserve_range=False, channel_axis=None):
    """Non-local means denoising of 2-d to 4-d grayscale or multichannel images
    (skimage.restoration.denoise_nl_means)."""
    img, xp, back = ix.prepare(image, "denoise_nl_means")
    if channel_axis is None:
        img = img[..., None]
        multichannel = False
    else:
        img = xp.moveaxis(img, channel_axis % img.ndim, -1)
        multichannel = True
    nd = img.ndim - 1
    if nd < 2 or nd > 4:
        raise NotImplementedError("Non-local means denoising is only implemented for 2D, 3D or 4D grayscale or "
                                  "multichannel images.")
    img = convert_to_float(img, preserve_range, xp)
    dtype = img.dtype
    s = int(patch_size)
    s = s + 1 if s % 2 == 0 else s
    d = int(patch_distance)
    var = float(sigma) * float(sigma)
    if nd == 3 and multichannel and not fast_mode:
        raise NotImplementedError("Multichannel 3D requires fast_mode to be True.")
    if nd == 4 and not fast_mode:
        raise NotImplementedError("4D requires fast_mode to be True.")
    if fast_mode and not ix.on_gpu(img):
        out = _fast_nlm_host(img, s, d, float(h), var).astype(dtype)
    elif fast_mode:
        out = _fast_nlm(img, s, d, float(h), var, xp).astype(dtype)
    else:
        if ix.on_gpu(img):
            host = ix.to_host(img)
            out = xp.asarray(_slow_nlm(host, s, d, float(h), var))
        else:
            out = _slow_nlm(img, s, d, float(h), var)
    if multichannel:
        out = xp.moveaxis(out, -1, channel_axis % (nd + 1))
    else:
        out = out[..., 0]
    return back(out)


def _fast_nlm_host(image, s, d, h, var):
    """fast mode in fovea's C kernel (threads over groups of shifts)."""
    nd = image.ndim - 1
    pad = s // 2 + d + 1
    P = np.ascontiguousarray(np.pad(image.astype(np.float64), [(pad, pad)] * nd + [(0, 0)], mode="reflect"))
    out = np.empty_like(P)
    _fovea.rst_nl_means_fast(P, out, s, d, h, var)
    return out[tuple(slice(pad, n - pad) for n in P.shape[:nd])]


def _slow_nlm(img, s, d, h, var):
    """img: (spatial..., channels) float32 / float64 on the host."""
    o = s // 2
    nd = img.ndim - 1
    dt = img.dtype.type
    A = dt((s - 1.0) / 4.0)
    rv = np.arange(-o, o + 1, dtype=img.dtype)
    grids = np.meshgrid(*([rv] * nd), indexing="ij")
    sq = grids[0] * grids[0]
    for g in grids[1:]:
        sq = sq + g * g
    w = np.exp(-sq / (2 * A * A))
    if nd == 2:
        w *= 1.0 / (img.shape[-1] * np.sum(w) * h * h)
    else:
        w *= 1.0 / (np.sum(w) * h * h)
    padded = np.ascontiguousarray(np.pad(img, [(o, o)] * nd + [(0, 0)], mode="reflect"))
    out = np.empty(img.shape, dtype=img.dtype)
    _fovea.rst_nl_means(padded, np.ascontiguousarray(w), out, s, d, var)
    return out
