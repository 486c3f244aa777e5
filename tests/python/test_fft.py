"""fovea.fft against numpy.fft / scipy.fft: many shapes (primes, 1-4-d), both
precisions, every norm, s / axes / n cases and the errors."""

import numpy as np
import pytest
import scipy.fft as sfft

import fovea
import fovea.fft as F

RNG = np.random.default_rng(29)


def _rand(shape, dtype):
    dt = np.dtype(dtype)
    x = RNG.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dt)


def _close(got, want, single):
    want = np.asarray(want)
    scale = max(1.0, float(np.abs(want).max()) if want.size else 1.0)
    tol = 2e-5 if single else 1e-12
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * scale)


SHAPES_1D = [1, 2, 3, 5, 7, 8, 12, 17, 31, 37, 60, 64, 97, 101, 128, 210, 243, 257, 1009, 1024, 4099]


@pytest.mark.parametrize("n", SHAPES_1D)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_fft_ifft_1d(n, dtype):
    x = _rand((3, n), dtype)
    single = dtype == "complex64"
    r = F.fft(x)
    assert r.dtype == np.dtype(dtype)
    _close(r, np.fft.fft(x.astype(np.complex128)), single)
    _close(F.ifft(x), np.fft.ifft(x.astype(np.complex128)), single)


@pytest.mark.parametrize("n", SHAPES_1D)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rfft_irfft_1d(n, dtype):
    x = _rand((2, n), dtype)
    single = dtype == "float32"
    r = F.rfft(x)
    assert r.dtype == (np.complex64 if single else np.complex128)
    want = np.fft.rfft(x.astype(np.float64))
    _close(r, want, single)
    back = F.irfft(want.astype(r.dtype), n)
    assert back.dtype == np.dtype(dtype)
    _close(back, np.fft.irfft(want, n), single)
    # irfft ignores the imaginary parts of the zero and Nyquist terms, as numpy
    spec = _rand((2, n // 2 + 1), "complex128")
    _close(F.irfft(spec, n), np.fft.irfft(spec, n), False)


NDSHAPES = [(5,), (4, 6), (7, 5), (3, 4, 5), (2, 3, 4, 5), (16, 9), (11, 13, 2), (1, 8), (8, 1, 3)]


@pytest.mark.parametrize("shape", NDSHAPES)
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_fftn_family(shape, norm):
    for dtype, single in (("float32", True), ("float64", False)):
        x = _rand(shape, dtype)
        xc = _rand(shape, "complex64" if single else "complex128")
        _close(F.fftn(xc, norm=norm), sfft.fftn(xc, norm=norm), single)
        _close(F.ifftn(xc, norm=norm), sfft.ifftn(xc, norm=norm), single)
        _close(F.fftn(x, norm=norm), sfft.fftn(x, norm=norm), single)
        r = F.rfftn(x, norm=norm)
        assert r.dtype == (np.complex64 if single else np.complex128)
        _close(r, sfft.rfftn(x, norm=norm), single)
        spec = sfft.rfftn(x)
        s = shape
        got = F.irfftn(spec.astype(r.dtype), s=s, norm=norm)
        assert got.dtype == np.dtype(dtype)
        _close(got, sfft.irfftn(spec, s=s, norm=norm), single)


@pytest.mark.parametrize("shape,axes,s", [
    ((64, 48), None, None), ((7, 9, 5), None, None), ((6, 8), (0,), None), ((5, 6, 7), (2, 0), None),
    ((5, 6, 7), (0, 2), (8, 3)), ((4, 1, 5), None, None), ((3, 4), None, (5, 7)), ((4, 5, 6, 7), None, None),
    ((4, 5, 6), (1,), None), ((6, 4, 3), (1, 0), None), ((5, 2), None, None)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, bool])
def test_fftn_of_real_input(shape, axes, s, dtype):
    """A real input's complex transform on the CPU: the real half plus Hermitian
    symmetry, equal to scipy.fft's to float rounding, including the s / axes cases
    and a strided input."""
    rng = np.random.default_rng(3)
    a = (rng.random(shape) * 10).astype(dtype)
    for x in (a, a[..., ::-1]):
        for norm in (None, "ortho", "forward"):
            got, want = F.fftn(x, s=s, axes=axes, norm=norm), sfft.fftn(x, s=s, axes=axes, norm=norm)
            assert got.dtype == want.dtype and got.shape == want.shape
            tol = 1e-4 if want.dtype == np.complex64 else 1e-12
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


def test_float32_is_kept_and_other_dtypes_promote():
    assert F.fft(np.ones(4, np.float32)).dtype == np.complex64
    assert F.fft(np.ones(4, np.float16)).dtype == np.complex64
    assert F.fft(np.ones(4, np.int16)).dtype == np.complex128
    assert F.fft(np.ones(4, bool)).dtype == np.complex128
    assert F.rfft(np.arange(6, dtype=np.int64)).dtype == np.complex128
    assert F.irfft(np.ones(4, np.complex64)).dtype == np.float32
    _close(F.fft(np.arange(6, dtype=np.uint8)), np.fft.fft(np.arange(6.0)), False)
    _close(F.fft([1, 2, 3]), np.fft.fft([1, 2, 3]), False)


@pytest.mark.parametrize("case", [
    dict(s=(6, 8)), dict(s=(3, 2)), dict(s=(5,), axes=(0,)), dict(axes=(0,)), dict(axes=(2, 0)),
    dict(axes=(-1, 1)), dict(s=(7, 4), axes=(2, 0)), dict(s=(None, 9), axes=(0, 1)), dict(axes=()),
])
def test_s_and_axes(case):
    x = _rand((4, 5, 6), "complex128")
    xr = _rand((4, 5, 6), "float64")
    ref = np.fft if None in case.get("s", ()) else sfft   # scipy.fft takes no None in s
    _close(F.fftn(x, **case), ref.fftn(x, **case), False)
    _close(F.ifftn(x, **case), ref.ifftn(x, **case), False)
    if case.get("axes") != ():
        _close(F.rfftn(xr, **case), ref.rfftn(xr, **case), False)
        _close(F.irfftn(x, **case), ref.irfftn(x, **case), False)


def test_2d_and_n_axis():
    x = _rand((6, 7, 8), "complex128")
    xr = x.real.copy()
    _close(F.fft2(x), np.fft.fft2(x), False)
    _close(F.ifft2(x, s=(4, 10)), np.fft.ifft2(x, s=(4, 10)), False)
    _close(F.rfft2(xr, axes=(0, 2)), np.fft.rfft2(xr, axes=(0, 2)), False)
    _close(F.irfft2(x), np.fft.irfft2(x), False)
    _close(F.irfft2(x, s=(5, 9)), np.fft.irfft2(x, s=(5, 9)), False)
    for n in (3, 7, 8, 20):
        for axis in (0, 1, -1):
            _close(F.fft(x, n=n, axis=axis), np.fft.fft(x, n=n, axis=axis), False)
            _close(F.rfft(xr, n=n, axis=axis, norm="ortho"), np.fft.rfft(xr, n=n, axis=axis, norm="ortho"), False)
            _close(F.irfft(x, n=n, axis=axis, norm="forward"), np.fft.irfft(x, n=n, axis=axis, norm="forward"),
                   False)


def test_strided_and_readonly_inputs():
    x = _rand((10, 12), "complex128")[::2, 1::3]
    _close(F.fftn(x), np.fft.fftn(x), False)
    xt = _rand((9, 8), "float32").T
    _close(F.rfftn(xt), np.fft.rfftn(xt.astype(np.float64)), True)
    ro = _rand((5, 6), "complex64")
    ro.flags.writeable = False
    _close(F.fft(ro), np.fft.fft(ro.astype(np.complex128)), True)
    assert F.fftn(np.zeros((0, 4), np.complex128), axes=(1,)).shape == (0, 4)


def test_roundtrip_large_3d():
    x = _rand((40, 33, 50), "float32")
    y = F.irfftn(F.rfftn(x), s=x.shape)
    np.testing.assert_allclose(y, x, atol=2e-5)


def test_helpers():
    x = np.arange(10.0).reshape(2, 5)
    np.testing.assert_array_equal(F.fftshift(x), np.fft.fftshift(x))
    np.testing.assert_array_equal(F.ifftshift(x, axes=1), np.fft.ifftshift(x, axes=1))
    np.testing.assert_array_equal(F.fftfreq(7, 0.5), np.fft.fftfreq(7, 0.5))
    np.testing.assert_array_equal(F.rfftfreq(8), np.fft.rfftfreq(8))


def test_errors():
    x = np.ones((4, 4), np.complex128)
    with pytest.raises(ValueError, match="Invalid norm"):
        F.fft(x, norm="bogus")
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        F.fft(x, n=0)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        F.fft(np.ones((3, 0)))
    with pytest.raises(ValueError, match="different lengths"):
        F.fftn(x, s=(4, 4), axes=(0,))
    with pytest.raises(ValueError, match="unique"):
        F.fftn(x, axes=(0, 0))
    with pytest.raises(np.exceptions.AxisError):
        F.fft(x, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        F.fft(np.float64(1.0))
    with pytest.raises(TypeError):
        F.rfft(x)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        F.irfft(np.ones(1, np.complex128))
    with pytest.raises(TypeError):
        F.fft(np.array(["a", "b"]))


def test_c_api_errors():
    """fv_fft's own checks, through the binding."""
    a = np.zeros((4, 2), np.float32)   # a complex64[4] view
    with pytest.raises(Exception, match="overlap"):
        fovea._fovea.fft_exec(a, a, 0, [0], False, 1.0)
    with pytest.raises(Exception, match="one precision"):
        fovea._fovea.fft_exec(a, np.zeros((4, 2)), 0, [0], False, 1.0)
    with pytest.raises(Exception, match="trailing axis of length 2"):
        fovea._fovea.fft_exec(np.zeros((4, 3), np.float32), np.zeros((4, 3), np.float32), 0, [0], False, 1.0)
    with pytest.raises(Exception, match="R2C"):
        fovea._fovea.fft_exec(np.zeros(8, np.float32), np.zeros((4, 2), np.float32), 1, [0], False, 1.0)
    with pytest.raises(Exception, match="repeated"):
        fovea._fovea.fft_exec(np.zeros((3, 3, 2)), np.zeros((3, 3, 2)), 0, [0, 0], False, 1.0)
    with pytest.raises(Exception, match="out of range"):
        fovea._fovea.fft_exec(a, np.zeros((4, 2), np.float32), 0, [1], False, 1.0)
    with pytest.raises(Exception, match="float32 or float64"):
        fovea._fovea.fft_exec(np.zeros((4, 2), np.int32), np.zeros((4, 2), np.int32), 0, [0], False, 1.0)


def test_many_lines_over_the_pool():
    """Enough lines on every axis that the pool splits each pass into chunks."""
    x = _rand((64, 48, 20), "complex128")
    _close(F.fftn(x), np.fft.fftn(x), False)
    xr = _rand((96, 40, 30), "float32")
    _close(F.rfftn(xr), np.fft.rfftn(xr.astype(np.float64)), True)


# ---- CuPy ----------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(17,), (64, 48), (6, 7, 8), (2, 3, 4, 5), (31, 1)])
def test_gpu_matches_cupy(cp, shape):
    for dtype, single in (("float32", True), ("float64", False)):
        x = _rand(shape, dtype)
        xc = _rand(shape, "complex64" if single else "complex128")
        gx, gxc = cp.asarray(x), cp.asarray(xc)
        for norm in (None, "ortho", "forward"):
            r = F.fftn(gxc, norm=norm)
            assert isinstance(r, cp.ndarray) and r.dtype == gxc.dtype
            _close(r.get(), sfft.fftn(xc, norm=norm), single)
            _close(F.ifftn(gxc, norm=norm).get(), sfft.ifftn(xc, norm=norm), single)
            rr = F.rfftn(gx, norm=norm)
            _close(rr.get(), sfft.rfftn(x, norm=norm), single)
            back = F.irfftn(rr, s=shape, norm=norm)
            assert back.dtype == gx.dtype
            _close(back.get(), x, single)


@pytest.mark.gpu
def test_gpu_axes_and_strides(cp):
    x = _rand((6, 10, 12), "complex128")
    gx = cp.asarray(x)
    for axes in ((0,), (1,), (0, 2), (2, 0), (1, 2), (0, 1, 2)):
        _close(F.fftn(gx, axes=axes).get(), np.fft.fftn(x, axes=axes), False)
        _close(F.rfftn(gx.real, axes=axes).get(), np.fft.rfftn(x.real, axes=axes), False)
        _close(F.irfftn(gx, axes=axes).get(), np.fft.irfftn(x, axes=axes), False)
    _close(F.fft(gx[:, ::2, 1:]).get(), np.fft.fft(x[:, ::2, 1:]), False)
    _close(F.fftn(gx, s=(3, 16, 5)).get(), np.fft.fftn(x, s=(3, 16, 5)), False)
