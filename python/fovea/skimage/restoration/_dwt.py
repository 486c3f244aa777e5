"""fovea's own n-d discrete wavelet transform (the part of PyWavelets that
scikit-image's wavelet denoising and noise estimation use), vectorised over
the array with NumPy or CuPy: one multiply-add of a strided slice per filter
tap along each axis.

dwt / idwt follow PyWavelets' conventions: with a signal extension mode
('symmetric', 'reflect', 'periodic', 'zero', 'constant') a length-N axis gives
(N + F - 1) // 2 coefficients, c[k] = sum_j h[j] x[2k + 1 - j] over the
extended signal, and the inverse keeps the 2N - F + 2 samples of the
upsampled convolution that need no extension; 'periodization' gives
ceil(N / 2) coefficients of the periodic signal (an odd N extended by its
last sample) and inverts exactly. Filter banks: _wavelets.BANKS."""

import numpy as np

from ..transform._warps import _map_index
from ._wavelets import BANKS

__all__ = ["Wavelet", "dwtn", "idwtn", "wavedecn", "waverecn", "dwtn_max_level", "threshold"]

MODES = ("symmetric", "reflect", "periodic", "zero", "constant", "periodization")


class Wavelet:
    """A named discrete wavelet: its four filters as PyWavelets orders them."""

    def __init__(self, name):
        if isinstance(name, Wavelet):
            name = name.name
        if name not in BANKS:
            raise ValueError(f"Unknown wavelet name '{name}', check wavelist() for the list of available builtin "
                             "wavelets.")
        orth, dec_lo, rec_lo = BANKS[name]
        self.name = name
        self.orthogonal = orth
        self.dec_lo = np.asarray(dec_lo, dtype=np.float64)
        self.rec_lo = self.dec_lo[::-1].copy() if rec_lo is None else np.asarray(rec_lo, dtype=np.float64)
        s = (-1.0) ** np.arange(self.dec_lo.size)
        self.dec_hi = -s * self.rec_lo
        self.rec_hi = s * self.dec_lo
        self.dec_len = self.dec_lo.size

    @property
    def filter_bank(self):
        return self.dec_lo, self.dec_hi, self.rec_lo, self.rec_hi


def wavelist():
    return list(BANKS)


_AS_SKIMAGE = {"symmetric": "symmetric", "reflect": "reflect", "periodic": "wrap", "constant": "edge"}


def _ext_index(idx, n, mode):
    """Source index of the extended signal at positions idx (-1: zero)."""
    if mode in _AS_SKIMAGE:
        return _map_index(idx, n, _AS_SKIMAGE[mode], np)
    return np.where((idx < 0) | (idx >= n), -1, idx)   # zero


def _take(x, idx, axis, xp):
    """x gathered at idx along axis; -1 entries give 0."""
    neg = idx < 0
    out = xp.take(x, xp.asarray(np.where(neg, 0, idx)), axis=axis)
    if neg.any():
        shape = [1] * x.ndim
        shape[axis] = idx.size
        out = out * xp.asarray((~neg).astype(x.dtype).reshape(shape))
    return out


def _sl(axis, ndim, s):
    return (slice(None),) * axis + (s,) + (slice(None),) * (ndim - axis - 1)


def _float_dtype(x):
    dt = np.dtype(x.dtype)
    if dt.kind == "c":
        raise ValueError("complex input is not supported")
    return np.float32 if dt in (np.float16, np.float32) else np.float64


def _dwt_axis(x, w, mode, axis, xp):
    """(approximation, detail) of x along axis."""
    n = x.shape[axis]
    F = w.dec_len
    if mode == "periodization":
        if n % 2:
            x = xp.concatenate([x, x[_sl(axis, x.ndim, slice(n - 1, n))]], axis=axis)
            n += 1
        nout = n // 2
        # c[k] = sum_j h[j] x[(2k + 1 - j + F // 2 - 1) mod n]
        idx = np.arange(-(F - 1), 2 * nout + F) + F // 2 - 1
        ext = _take(x, idx % n, axis, xp)
        base = F - 1
    else:
        nout = (n + F - 1) // 2
        idx = np.arange(-(F - 1), n + F - 1)
        ext = _take(x, _ext_index(idx, n, mode), axis, xp)
        base = F - 1
    outs = []
    for h in (w.dec_lo, w.dec_hi):
        acc = None
        for j in range(F):
            start = base + 1 - j
            seg = ext[_sl(axis, x.ndim, slice(start, start + 2 * nout - 1, 2))]
            term = seg * x.dtype.type(h[j])
            acc = term if acc is None else acc + term
        outs.append(acc)
    return outs[0], outs[1]


def _idwt_axis(a, d, w, mode, axis, xp):
    """The inverse of _dwt_axis from a and d (either may be None)."""
    ref = a if a is not None else d
    n = ref.shape[axis]
    F = w.dec_len
    ndim = ref.ndim
    shape = list(ref.shape)
    full = 2 * n + F - 2
    shape[axis] = full
    z = xp.zeros(shape, dtype=ref.dtype)
    for c, g in ((a, w.rec_lo), (d, w.rec_hi)):
        if c is None:
            continue
        for j in range(F):
            z[_sl(axis, ndim, slice(j, j + 2 * n - 1, 2))] += c * ref.dtype.type(g[j])
    if mode == "periodization":
        # fold the circular convolution of length 2n back, then align
        out = z[_sl(axis, ndim, slice(0, 2 * n))].copy()
        rest = z[_sl(axis, ndim, slice(2 * n, full))]
        for s in range(0, full - 2 * n, 2 * n):
            chunk = rest[_sl(axis, ndim, slice(s, s + 2 * n))]
            out[_sl(axis, ndim, slice(0, chunk.shape[axis]))] += chunk
        shift = (F // 2 - 1) % (2 * n) if F > 1 else 0
        return xp.roll(out, -shift, axis=axis) if shift else out
    return z[_sl(axis, ndim, slice(F - 2, 2 * n))] if F >= 2 else z


def _prep(data, xp):
    data = xp.asarray(data)
    if data.dtype.kind == "c":
        raise ValueError("complex input is not supported")
    return data.astype(_float_dtype(data), copy=False)


def dwtn(data, wavelet, mode="symmetric", axes=None, xp=np):
    """Single-level n-d DWT: {'aa..', 'ad..', ...: coefficients} (pywt.dwtn)."""
    w = Wavelet(wavelet)
    if mode not in MODES:
        raise ValueError(f"Unknown mode name '{mode}'.")
    data = _prep(data, xp)
    if data.ndim < 1:
        raise ValueError("Input data must be at least 1D")
    axes = range(data.ndim) if axes is None else [a % data.ndim for a in axes]
    coeffs = [("", data)]
    for axis in axes:
        new = []
        for key, x in coeffs:
            lo, hi = _dwt_axis(x, w, mode, axis, xp)
            new += [(key + "a", lo), (key + "d", hi)]
        coeffs = new
    return dict(coeffs)


def idwtn(coeffs, wavelet, mode="symmetric", axes=None, xp=np):
    """Single-level n-d inverse DWT (pywt.idwtn); missing or None keys are zeros."""
    w = Wavelet(wavelet)
    coeffs = {k: v for k, v in coeffs.items() if v is not None}
    if not coeffs:
        raise ValueError("Coefficients dictionary may not be empty")
    ndim = len(next(iter(coeffs)))
    axes = list(range(ndim)) if axes is None else [a % ndim for a in axes]
    for key_len, axis in reversed(list(enumerate(axes))):
        new = {}
        for key in {k[:key_len] for k in coeffs}:
            a, d = coeffs.get(key + "a"), coeffs.get(key + "d")
            new[key] = _idwt_axis(a, d, w, mode, axis, xp)
        coeffs = new
    return coeffs[""]


def dwt_max_level(data_len, filter_len):
    if filter_len <= 1 or data_len < filter_len - 1:
        return 0
    return (data_len // (filter_len - 1)).bit_length() - 1


def dwtn_max_level(shape, wavelet, axes=None):
    w = Wavelet(wavelet)
    axes = range(len(shape)) if axes is None else axes
    return min(dwt_max_level(shape[a], w.dec_len) for a in axes)


def wavedecn(data, wavelet, mode="symmetric", level=None, xp=np):
    """Multilevel n-d DWT: [cA_n, {details n}, ..., {details 1}] (pywt.wavedecn)."""
    data = _prep(data, xp)
    max_level = dwtn_max_level(data.shape, wavelet)
    if level is None:
        level = max_level
    elif level < 0:
        raise ValueError(f"Level value of {level} is too low : minimum level is 0.")
    coeffs_list = []
    a = data
    for _ in range(level):
        c = dwtn(a, wavelet, mode, xp=xp)
        a = c.pop("a" * data.ndim)
        coeffs_list.append(c)
    coeffs_list.append(a)
    coeffs_list.reverse()
    return coeffs_list


def waverecn(coeffs, wavelet, mode="symmetric", xp=np):
    """Multilevel n-d inverse DWT (pywt.waverecn)."""
    if len(coeffs) < 1:
        raise ValueError("Coefficient list too short (minimum 1 array required).")
    a, details = coeffs[0], coeffs[1:]
    if not details:
        return a
    for d in details:
        d_shape = next(v.shape for v in d.values() if v is not None)
        if a is not None and a.shape != d_shape:
            a = a[tuple(slice(s) for s in d_shape)]
        a = idwtn({**d, "a" * len(d_shape): a}, wavelet, mode, xp=xp)
    return a


def threshold(data, value, mode="soft", xp=np):
    """pywt.threshold's soft and hard modes."""
    if mode == "soft":
        mag = xp.abs(data)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = 1 - value / mag
        return data * xp.clip(t, 0, None)
    if mode == "hard":
        return xp.where(xp.abs(data) < value, data.dtype.type(0), data)
    raise ValueError(f"The threshold mode '{mode}' is not recognized.")
