"""Discrete Fourier transforms: numpy.fft / cupy.fft's interface on fovea's FFT
engine (docs/fft.md).

NumPy arrays are transformed on the CPU (fovea's mixed-radix / Bluestein engine
over the thread pool), CuPy arrays on their GPU (cuFFT, loaded at run time);
results are arrays of the input's kind on its device.

Differences from numpy.fft, all as in scipy.fft and cupy.fft:

- single precision stays single: float32 / complex64 (and float16) inputs give
  complex64 (and float32 from ``irfft*``); numpy.fft always computes in double;
- repeated axes are a ``ValueError`` ("All axes must be unique");
- other input dtypes (bool, integers, float64, complex128, long double) are
  computed in double precision;
- ``workers=`` (keyword-only) and ``set_workers`` / ``get_workers``, scipy.fft's:
  the CPU threads of a call (default: fovea's pool, not scipy's one thread).
"""

import contextlib
import itertools
import operator
import os
import threading

from . import _fovea
from . import _interop

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "fftshift", "ifftshift", "fftfreq", "rfftfreq", "set_workers",
           "get_workers"]

_C2C, _R2C, _C2R = 0, 1, 2


def _np():
    return _interop._np()


_config = threading.local()   # set_workers' default, per thread as scipy.fft's


def _workers(workers):
    """scipy.fft's rule for workers: None the default (set_workers', else 0: fovea's
    pool), negative counts from os.cpu_count() + 1, zero a ValueError."""
    if workers is None:
        return getattr(_config, "default_workers", 0)
    workers = operator.index(workers)
    if workers < 0:
        ncpu = os.cpu_count() or 1
        if workers < -ncpu:
            raise ValueError(f"workers value out of range; got {workers}, must not be less than {-ncpu}")
        workers += 1 + ncpu
    elif workers == 0:
        raise ValueError("workers must not be zero")
    return workers


@contextlib.contextmanager
def set_workers(workers):
    """Context manager for the default number of workers of fovea.fft in this thread
    (scipy.fft.set_workers)."""
    old = getattr(_config, "default_workers", 0)
    _config.default_workers = _workers(operator.index(workers))
    try:
        yield
    finally:
        _config.default_workers = old


def get_workers():
    """The default number of workers in the current context (scipy.fft.get_workers):
    set_workers', else the size of fovea's CPU thread pool."""
    return getattr(_config, "default_workers", 0) or _fovea.num_threads()


def _norm_scale(norm, n, forward):
    if norm is None or norm == "backward":
        return 1.0 if forward else 1.0 / n
    if norm == "ortho":
        return 1.0 / (n ** 0.5)
    if norm == "forward":
        return 1.0 / n if forward else 1.0
    raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')


def _pairs(a, xp):
    """A complex array as a float array with a trailing (real, imaginary) axis, no copy."""
    f = a.real.dtype
    try:
        return a[..., None].view(f)
    except (ValueError, TypeError):  # a layout view() refuses: a contiguous copy
        return xp.ascontiguousarray(a)[..., None].view(f)


def _work_dtypes(dtype, want_real_input):
    """(real dtype, complex dtype) the transform computes in, scipy.fft's rule."""
    np = _np()
    dt = np.dtype(dtype)
    if dt.kind == "c":
        if want_real_input:
            raise TypeError("x must be a real sequence")
        single = dt == np.complex64
    elif dt.kind in "biuf":
        single = dt in (np.float32, np.float16)
    else:
        raise TypeError(f"unsupported dtype {dt}")
    return (np.dtype(np.float32), np.dtype(np.complex64)) if single else \
        (np.dtype(np.float64), np.dtype(np.complex128))


def _axes_shape(a, s, axes, fname):
    """numpy's _cook_nd_args: the axes (normalised) and the lengths along them."""
    nd = a.ndim
    if axes is None:
        if s is None:
            axes = list(range(nd))
        else:
            axes = list(range(nd - len(s), nd))
    else:
        axes = [operator.index(x) for x in axes]
    if s is None:
        s = [None] * len(axes)
    else:
        s = list(s)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    out_axes = []
    for ax in axes:
        if not -nd <= ax < nd:
            raise _np().exceptions.AxisError(ax, nd)
        out_axes.append(ax % nd)
    if len(set(out_axes)) != len(out_axes):
        raise ValueError("All axes must be unique.")
    lens = []
    for ax, n in zip(out_axes, s):
        n = a.shape[ax] if n is None or n == -1 else operator.index(n)
        if n < 1:
            raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
        lens.append(n)
    return out_axes, lens


def _resize(a, axes, lens, xp):
    """a cropped / zero-padded to lens along axes (a view when only cropping)."""
    idx = [slice(None)] * a.ndim
    shape = list(a.shape)
    pad = False
    for ax, n in zip(axes, lens):
        if a.shape[ax] >= n:
            idx[ax] = slice(0, n)
        else:
            pad = True
        shape[ax] = n
    a = a[tuple(idx)]
    if not pad:
        return a
    z = xp.zeros(shape, a.dtype)
    z[tuple(slice(0, k) for k in a.shape)] = a
    return z


def _run(kind, a, axes, lens, norm, forward, name, workers):
    """The transform of input a (any array) along axes; lens: the logical lengths of the
    transform (for real ones: the real lengths); workers: scipy.fft's (CPU threads)."""
    threads = _workers(workers)
    c = _interop.Call(name, a)
    x, xp = c.input, c.xp
    if xp is None:
        xp = _interop.need_cupy(f"fovea.fft.{name}", c.device)
    if x.ndim == 0:
        raise _np().exceptions.AxisError(axes[0] if axes else -1, 0)
    rdt, cdt = _work_dtypes(x.dtype, kind == _R2C)
    ax, lens = _axes_shape(x, lens, axes, name)
    if not ax:
        # no axes: numpy returns a (converted) copy
        return c.result(xp.array(x, dtype=(rdt if kind == _C2R else cdt), copy=True))
    total = 1
    for n in lens:
        total *= n
    scale = _norm_scale(norm, total, forward)
    last = ax[-1]
    if kind == _C2C and forward and c.device == "cpu" and x.dtype.kind in "biuf" and lens[-1] > 2:
        # a real input on the CPU: the half spectrum by a real transform, the rest by
        # Hermitian symmetry (as scipy.fft does), not a complex copy and a complex
        # transform (512^2 float32: 2.5 -> ~1.3 ms)
        x = _resize(x.astype(rdt, copy=False), ax, lens, xp)
        return c.result(_real_forward(x, ax, lens, cdt, scale, threads, xp))
    if kind == _C2C:
        x = _resize(x.astype(cdt, copy=False), ax, lens, xp)
        out = xp.empty(x.shape, cdt)
        fi, fo = _pairs(x, xp), _pairs(out, xp)
    elif kind == _R2C:
        x = _resize(x.astype(rdt, copy=False), ax, lens, xp)
        shape = list(x.shape)
        shape[last] = lens[-1] // 2 + 1
        out = xp.empty(shape, cdt)
        fi, fo = x, _pairs(out, xp)
    else:
        inl = list(lens)
        inl[-1] = lens[-1] // 2 + 1
        x = _resize(x.astype(cdt, copy=False), ax, inl, xp)
        shape = list(x.shape)
        shape[last] = lens[-1]
        out = xp.empty(shape, rdt)
        fi, fo = _pairs(x, xp), out
    if out.size:
        _fovea.fft_exec(fi, fo, kind, ax, not forward, scale, stream=c.stream, threads=threads)
    return c.result(out)


def _real_forward(x, ax, lens, cdt, scale, threads, xp):
    """The complex transform of real x along ax (lengths lens, x already resized):
    rfftn's half along ax[-1] written into the output's first n // 2 + 1 entries,
    then the rest from X[k] = conj(X[-k]) (indices mod each length), in place:
    no temporaries (fresh pages per call are what costs at these sizes)."""
    last, n = ax[-1], lens[-1]
    nh = n // 2 + 1
    out = xp.empty(x.shape, cdt)
    lo = [slice(None)] * x.ndim
    lo[last] = slice(0, nh)
    _fovea.fft_exec(x, _pairs(out[tuple(lo)], xp), _R2C, ax, False, scale, threads=threads)
    # out[..., k] for k in [nh, n) is conj(out[-i..., n - k]); along each other
    # transformed axis index 0 maps to itself and 1.. to n-1.. (a reversal)
    others = [a for a in ax[:-1] if x.shape[a] > 1]
    for pick in itertools.product((0, 1), repeat=len(others)):
        dst = [slice(None)] * x.ndim
        src = [slice(None)] * x.ndim
        dst[last] = slice(nh, n)
        src[last] = slice(n - nh, 0, -1)
        for a, p in zip(others, pick):
            dst[a] = slice(0, 1) if p == 0 else slice(1, None)
            src[a] = slice(0, 1) if p == 0 else slice(None, 0, -1)
        xp.conjugate(out[tuple(src)], out=out[tuple(dst)])
    return out


def _one(n, axis):
    return (None if n is None else [n]), [axis]


@_interop.public
def fft(a, n=None, axis=-1, norm=None, *, workers=None):
    """The 1-D discrete Fourier transform (numpy.fft.fft; single precision kept)."""
    s, axes = _one(n, axis)
    return _run(_C2C, a, axes, s, norm, True, "fft", workers)


@_interop.public
def ifft(a, n=None, axis=-1, norm=None, *, workers=None):
    """The 1-D inverse discrete Fourier transform (numpy.fft.ifft)."""
    s, axes = _one(n, axis)
    return _run(_C2C, a, axes, s, norm, False, "ifft", workers)


@_interop.public
def fftn(a, s=None, axes=None, norm=None, *, workers=None):
    """The n-d discrete Fourier transform (numpy.fft.fftn)."""
    return _run(_C2C, a, axes, s, norm, True, "fftn", workers)


@_interop.public
def ifftn(a, s=None, axes=None, norm=None, *, workers=None):
    """The n-d inverse discrete Fourier transform (numpy.fft.ifftn)."""
    return _run(_C2C, a, axes, s, norm, False, "ifftn", workers)


@_interop.public
def fft2(a, s=None, axes=(-2, -1), norm=None, *, workers=None):
    """The 2-d discrete Fourier transform (numpy.fft.fft2)."""
    return _run(_C2C, a, axes, s, norm, True, "fft2", workers)


@_interop.public
def ifft2(a, s=None, axes=(-2, -1), norm=None, *, workers=None):
    """The 2-d inverse discrete Fourier transform (numpy.fft.ifft2)."""
    return _run(_C2C, a, axes, s, norm, False, "ifft2", workers)


@_interop.public
def rfft(a, n=None, axis=-1, norm=None, *, workers=None):
    """The 1-D transform of real input, the n//2 + 1 non-negative frequencies (numpy.fft.rfft)."""
    s, axes = _one(n, axis)
    return _run(_R2C, a, axes, s, norm, True, "rfft", workers)


@_interop.public
def irfft(a, n=None, axis=-1, norm=None, *, workers=None):
    """The inverse of rfft: real output of length n (default 2 * (m - 1)) (numpy.fft.irfft)."""
    c = _interop.Call("irfft", a)
    if n is None:
        n = 2 * (c.input.shape[axis] - 1) if c.input.ndim else 0
    return _run(_C2R, a, [axis], [n], norm, False, "irfft", workers)


@_interop.public
def rfftn(a, s=None, axes=None, norm=None, *, workers=None):
    """The n-d transform of real input, the last axis halved (numpy.fft.rfftn)."""
    return _run(_R2C, a, axes, s, norm, True, "rfftn", workers)


def _irfft_lens(a, s, axes):
    c = _interop.Call("irfftn", a)
    x = c.input
    if s is not None:
        return s, axes
    ax, lens = _axes_shape(x, None, axes, "irfftn")
    if lens:
        lens[-1] = 2 * (x.shape[ax[-1]] - 1)
    return lens, ax


@_interop.public
def irfftn(a, s=None, axes=None, norm=None, *, workers=None):
    """The inverse of rfftn (numpy.fft.irfftn)."""
    s, axes = _irfft_lens(a, s, axes)
    return _run(_C2R, a, axes, s, norm, False, "irfftn", workers)


@_interop.public
def rfft2(a, s=None, axes=(-2, -1), norm=None, *, workers=None):
    """The 2-d transform of real input (numpy.fft.rfft2)."""
    return _run(_R2C, a, axes, s, norm, True, "rfft2", workers)


@_interop.public
def irfft2(a, s=None, axes=(-2, -1), norm=None, *, workers=None):
    """The inverse of rfft2 (numpy.fft.irfft2)."""
    s, axes = _irfft_lens(a, s, axes)
    return _run(_C2R, a, axes, s, norm, False, "irfft2", workers)


# ---- helpers (NumPy / CuPy's own, on the input's array module) -------------------------------


@_interop.public
def fftshift(x, axes=None):
    """Shift the zero frequency to the centre (numpy.fft.fftshift)."""
    c = _interop.Call("fftshift", x)
    xp = c.need_xp()
    return c.result(xp.fft.fftshift(c.input, axes=axes))


@_interop.public
def ifftshift(x, axes=None):
    """The inverse of fftshift (numpy.fft.ifftshift)."""
    c = _interop.Call("ifftshift", x)
    xp = c.need_xp()
    return c.result(xp.fft.ifftshift(c.input, axes=axes))


def fftfreq(n, d=1.0, device=None, dtype=None):
    """The sample frequencies of fft (numpy.fft.fftfreq); device "cuda[:N]" gives CuPy."""
    xp = _np() if device in (None, "cpu") else _interop.need_cupy("fovea.fft.fftfreq", device)
    r = xp.fft.fftfreq(n, d)
    return r if dtype is None else r.astype(dtype)


def rfftfreq(n, d=1.0, device=None, dtype=None):
    """The sample frequencies of rfft (numpy.fft.rfftfreq); device "cuda[:N]" gives CuPy."""
    xp = _np() if device in (None, "cpu") else _interop.need_cupy("fovea.fft.rfftfreq", device)
    r = xp.fft.rfftfreq(n, d)
    return r if dtype is None else r.astype(dtype)
