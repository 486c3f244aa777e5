"""fovea.ndimage.fourier_* against scipy.ndimage 1.17: real and complex input,
n / axis, output dtypes and arrays, the errors."""

import numpy as np
import pytest
from scipy import ndimage as sndi

from fovea import ndimage as ndi

RNG = np.random.default_rng(7)
FUNCS = ["fourier_gaussian", "fourier_uniform", "fourier_ellipsoid", "fourier_shift"]


def _rand(shape, dtype):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def _check(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    single = want.dtype in (np.float32, np.complex64)
    np.testing.assert_allclose(got, want, rtol=2e-5 if single else 1e-12, atol=1e-6 if single else 1e-13)


SHAPES = [(9,), (8,), (1,), (6, 7), (5, 1), (1, 4), (4, 5, 6), (3, 1, 4), (2, 3, 4, 5)]


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("shape", SHAPES)
def test_matches_scipy(name, shape):
    if name == "fourier_ellipsoid" and len(shape) > 3:   # scipy: 1-3 d only
        with pytest.raises(NotImplementedError):
            ndi.fourier_ellipsoid(np.ones(shape), 1)
        return
    param = [1.5, 2.0, 0.7, 3.0][: len(shape)]
    for dtype in ("float32", "float64", "complex64", "complex128", "int16", "uint8", "bool"):
        x = _rand(shape, dtype) if dtype != "bool" else RNG.random(shape) > 0.5
        if dtype in ("int16", "uint8"):
            x = (np.abs(x) * 10).astype(dtype)
        for n, axis in ((-1, -1), (11, -1), (10, 0), (7, len(shape) - 1)):
            want = getattr(sndi, name)(x, param, n=n, axis=axis)
            got = getattr(ndi, name)(x, param, n=n, axis=axis)
            _check(got, want)
        _check(getattr(ndi, name)(x, 2.5), getattr(sndi, name)(x, 2.5))


@pytest.mark.parametrize("name", FUNCS)
def test_outputs(name):
    x = _rand((6, 8), "float64")
    xc = _rand((6, 8), "complex128")
    types = (np.complex64, np.complex128) if name == "fourier_shift" else \
        (np.float32, np.float64, np.complex64, np.complex128)
    for t in types:
        _check(getattr(ndi, name)(x, 2, output=t), getattr(sndi, name)(x, 2, output=t))
    out = np.zeros((6, 8), np.complex64)
    res = getattr(ndi, name)(xc, 2, output=out)
    assert res is out
    _check(out, getattr(sndi, name)(xc, 2, output=np.complex64))
    # in place, as scipy allows
    y = xc.copy()
    getattr(ndi, name)(y, [1, 2], output=y)
    _check(y, getattr(sndi, name)(xc, [1, 2]))


def test_strided_and_large():
    x = _rand((40, 60), "complex128")[::2, 1::3]
    for name in FUNCS:
        _check(getattr(ndi, name)(x, [3, 1.5], n=30, axis=0), getattr(sndi, name)(x, [3, 1.5], n=30, axis=0))
    big = _rand((64, 64, 33), "complex64")
    _check(ndi.fourier_gaussian(big, 2, n=64), sndi.fourier_gaussian(big, 2, n=64))


def test_roundtrip_with_fovea_fft():
    from fovea import fft as F
    img = _rand((32, 48), "float32")
    got = F.irfftn(ndi.fourier_gaussian(F.rfftn(img), 2, n=48), s=img.shape)
    want = np.fft.irfftn(sndi.fourier_gaussian(np.fft.rfftn(img), 2, n=48), s=img.shape, axes=(0, 1))
    np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("name", FUNCS)
def test_errors(name):
    f, g = getattr(ndi, name), getattr(sndi, name)
    x = np.ones((4, 5))
    for bad in (dict(output=np.int32), dict(output=np.zeros((3, 5))), dict(axis=2)):
        with pytest.raises(Exception) as want:
            g(x, 1, **bad)
        with pytest.raises(type(want.value)):
            f(x, 1, **bad)
    with pytest.raises(RuntimeError):
        g(x, [1, 2, 3])
    with pytest.raises(RuntimeError):
        f(x, [1, 2, 3])
    with pytest.raises(RuntimeError):
        f(np.ones(4, np.complex128), 1, output=np.zeros(4))
    with pytest.raises(RuntimeError):
        f(np.ones(4, np.float16), 1)
    if name == "fourier_ellipsoid":
        with pytest.raises(NotImplementedError):
            f(np.ones((2, 2, 2, 2)), 1)
        assert f(np.ones((0, 3)), 1).shape == (0, 3)


@pytest.mark.gpu
@pytest.mark.parametrize("name", FUNCS)
def test_gpu_matches_scipy(cp, name):
    for shape in ((9,), (6, 7), (4, 5, 6)):
        for dtype in ("float32", "float64", "complex64", "complex128", "int16"):
            x = _rand(shape, dtype) if dtype != "int16" else (np.abs(_rand(shape, "float64")) * 9).astype(dtype)
            for n, axis in ((-1, -1), (11, -1), (10, 0)):
                want = getattr(sndi, name)(x, 1.7, n=n, axis=axis)
                got = getattr(ndi, name)(cp.asarray(x), 1.7, n=n, axis=axis)
                assert isinstance(got, cp.ndarray)
                _check(got.get(), want)
