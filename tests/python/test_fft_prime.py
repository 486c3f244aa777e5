"""fovea.fft on lengths with large prime factors (the engine's generic odd radix and
Bluestein's algorithm, docs/fft.md) against numpy.fft: sweeps of every length,
primes, prime powers, products with large primes, real and complex, forward and
inverse, both precisions, along inner and strided axes; and scipy.fft's workers=,
set_workers and get_workers."""

import os
import threading

import numpy as np
import pytest

import fovea.fft as F
from test_fft import _rand  # noqa: E402 (tests/python/test_fft.py)


def _relerr(got, want):
    """Error relative to the norm (float64 about 1e-15, float32 about 1e-7)."""
    return np.linalg.norm(np.asarray(got) - want) / max(np.linalg.norm(want), 1e-300)


TOL = {np.dtype("complex64"): 1e-5, np.dtype("complex128"): 1e-12,
       np.dtype("float32"): 1e-5, np.dtype("float64"): 1e-12}

PRIMES = [37, 61, 127, 251, 509, 1009, 2039, 4099, 8191, 10007, 65537]
POWERS = [7 ** 4, 11 ** 3, 13 ** 3, 29 ** 2, 31 ** 3, 37 ** 2, 127 ** 2]
PRODUCTS = [2 * 3 * 4099, 2 * 4099, 127 * 64, 251 * 64, 509 * 64, 61 * 1024, 1031 * 64,
            5 * 7 * 11 * 13, 4 * 1021, 17 * 19 * 23, 2 ** 6 * 3 ** 3 * 7]


def _check_1d(n, cdt):
    rdt = np.float32 if cdt == np.complex64 else np.float64
    tol = TOL[np.dtype(cdt)]
    x = _rand(n, cdt)
    xd = x.astype(np.complex128)
    assert _relerr(F.fft(x), np.fft.fft(xd)) < tol, n
    assert _relerr(F.ifft(x), np.fft.ifft(xd)) < tol, n
    xr = x.real.astype(rdt)
    want = np.fft.rfft(xr.astype(np.float64))
    assert _relerr(F.rfft(xr), want) < tol, n
    assert _relerr(F.irfft(want.astype(cdt), n), np.fft.irfft(want, n)) < tol, n


@pytest.mark.parametrize("cdt", [np.complex64, np.complex128])
def test_every_length_to_1500(cdt):
    for n in range(1, 1501):
        _check_1d(n, cdt)


@pytest.mark.parametrize("cdt", [np.complex64, np.complex128])
def test_lengths_to_5000_sampled(cdt):
    for n in list(range(1501, 5001, 37)) + [4093, 4096, 4097, 4999]:
        _check_1d(n, cdt)


@pytest.mark.parametrize("n", PRIMES + POWERS + PRODUCTS)
@pytest.mark.parametrize("cdt", [np.complex64, np.complex128])
def test_primes_powers_products(n, cdt):
    _check_1d(n, cdt)


@pytest.mark.parametrize("n", [61, 127, 1009, 2 * 4099, 127 * 64])
@pytest.mark.parametrize("dt", ["complex64", "complex128", "float32", "float64"])
def test_many_lines_both_axes(n, dt):
    """Lines in the engine's SIMD lanes (neighbours along the other axis) and alone."""
    x = _rand((n, 9), dt) if n < 5000 else _rand((n, 3), dt)
    xd = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    tol = TOL[np.dtype(dt)]
    for axis in (0, 1):
        if x.dtype.kind == "c":
            assert _relerr(F.fft(x, axis=axis), np.fft.fft(xd, axis=axis)) < tol
            assert _relerr(F.ifft(x, axis=axis), np.fft.ifft(xd, axis=axis)) < tol
        else:
            want = np.fft.rfft(xd, axis=axis)
            assert _relerr(F.rfft(x, axis=axis), want) < tol
            m = x.shape[axis]
            assert _relerr(F.irfft(want, m, axis=axis), np.fft.irfft(want, m, axis=axis)) < tol


def test_nd_prime_shapes():
    x = _rand((211, 257), "complex128")
    assert _relerr(F.fftn(x), np.fft.fftn(x)) < 1e-12
    assert _relerr(F.ifftn(x), np.fft.ifftn(x)) < 1e-12
    xf = _rand((2, 2 * 4099), "float32")
    assert _relerr(F.rfftn(xf), np.fft.rfftn(xf.astype(np.float64))) < 1e-5
    x3 = _rand((37, 5, 61), "float64")
    spec = np.fft.rfftn(x3)
    assert _relerr(F.irfftn(spec, s=x3.shape), x3) < 1e-12
    for norm in ("ortho", "forward"):
        assert _relerr(F.fft2(x, norm=norm), np.fft.fft2(x, norm=norm)) < 1e-12


# ---- workers (scipy.fft's) -------------------------------------------------------------------


def test_workers_values():
    x = _rand((64, 1009), "complex128")
    want = F.fftn(x)
    ncpu = os.cpu_count()
    for w in (None, 1, 2, 3, ncpu + 4, -1, -ncpu):
        np.testing.assert_array_equal(F.fftn(x, workers=w), want)
    xr = x.real.copy()
    for f in (F.fft, F.ifft, F.fft2, F.ifft2, F.ifftn, F.rfft, F.rfftn, F.rfft2, F.irfft, F.irfftn,
              F.irfft2):
        np.testing.assert_array_equal(f(xr, workers=1), f(xr, workers=-1))


def test_workers_errors():
    x = np.ones(8)
    with pytest.raises(ValueError, match="workers must not be zero"):
        F.fft(x, workers=0)
    with pytest.raises(ValueError, match="workers value out of range"):
        F.rfftn(x, workers=-os.cpu_count() - 1)
    with pytest.raises(TypeError):
        F.fft(x, workers=1.5)
    with pytest.raises(TypeError):   # keyword-only (numpy.fft's positional arguments)
        F.fft(x, None, -1, None, 2)
    with pytest.raises(ValueError, match="workers must not be zero"):
        with F.set_workers(0):
            pass


def test_set_get_workers():
    default = F.get_workers()
    assert default == F._fovea.num_threads()
    with F.set_workers(1):
        assert F.get_workers() == 1
        with F.set_workers(-1):
            assert F.get_workers() == os.cpu_count()
        assert F.get_workers() == 1
        np.testing.assert_allclose(F.fft(np.arange(7.0)), np.fft.fft(np.arange(7.0)), atol=1e-13)
        seen = []
        t = threading.Thread(target=lambda: seen.append(F.get_workers()))   # per thread
        t.start()
        t.join()
        assert seen == [default]
    assert F.get_workers() == default


# ---- CuPy (cuFFT handles every length itself; workers= is accepted and ignored) -------------


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1009,), (3, 2 * 4099), (211, 257)])
def test_gpu_prime_lengths_and_workers(cp, shape):
    for dt in ("complex64", "complex128"):
        x = _rand(shape, dt)
        gx = cp.asarray(x)
        want = np.fft.fftn(x.astype(np.complex128))
        for w in (None, 1, -1):
            r = F.fftn(gx, workers=w)
            assert isinstance(r, cp.ndarray) and r.dtype == gx.dtype
            assert _relerr(r.get(), want) < TOL[np.dtype(dt)]
        xr = x.real.copy()
        assert _relerr(F.rfftn(cp.asarray(xr), workers=2).get(), np.fft.rfftn(xr.astype(np.float64))) < \
            TOL[np.dtype(dt)]
    with pytest.raises(ValueError, match="workers must not be zero"):
        F.fft(cp.ones(8), workers=0)
