"""fovea.skimage.restoration's deconvolutions (richardson_lucy, wiener,
unsupervised_wiener), fovea.skimage.registration.phase_cross_correlation and the
FFT filters of fovea.skimage.filters against scikit-image 0.26 on random data,
and richardson_lucy against the FFT workflow it implements (written here in
NumPy). CuPy cases run on a GPU only."""

import numpy as np
import pytest
import scipy.ndimage as ndi
import scipy.signal
from skimage import filters as sk_filters
from skimage import registration as sk_reg
from skimage import restoration as sk_rest

from fovea.skimage import filters as fv_filters
from fovea.skimage import registration as fv_reg
from fovea.skimage import restoration as fv_rest
from fovea.skimage.registration._masked_phase_cross_correlation import next_fast_len
from xpcase import xp_fixture

xp = xp_fixture(scalars=True)
RNG = np.random.default_rng(29)


def _rel(a, b):
    a, b = np.asarray(a, np.complex128), np.asarray(b, np.complex128)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))


def _psf(shape, dtype=np.float64):
    p = RNG.random(shape) + 0.1
    return (p / p.sum()).astype(dtype)


# ---- Richardson-Lucy: the FFT workflow --------------------------------------------------------


def deconvolve_reference(image, psf, iterations, grid=None):
    """Richardson-Lucy by FFT in NumPy: pad the PSF to the grid, roll its centre
    to the origin, rfftn it once, then iterate with rfftn / irfftn. grid=None:
    the image's own shape (circular convolution); else the estimate lives in the
    corner of a zero grid of that shape (linear convolution when it is large
    enough)."""
    dt = image.dtype
    shape = image.shape if grid is None else tuple(grid)
    inside = tuple(slice(0, n) for n in image.shape)

    def spectrum(kernel):
        pad = np.zeros(shape, dt)
        pad[tuple(slice(0, n) for n in kernel.shape)] = kernel
        pad = np.roll(pad, [-((n - 1) // 2) for n in kernel.shape], axis=tuple(range(pad.ndim)))
        return np.fft.rfftn(pad)

    axes = tuple(range(image.ndim))
    otf, otf_mirror = spectrum(psf), spectrum(np.flip(psf))
    est = np.zeros(shape, dt)
    est[inside] = 0.5
    img = np.zeros(shape, dt)
    img[inside] = image
    for _ in range(iterations):
        conv = np.fft.irfftn(np.fft.rfftn(est) * otf, s=shape, axes=axes).astype(dt)
        rel = np.zeros(shape, dt)
        rel[inside] = img[inside] / (conv[inside] + dt.type(1e-12))
        est[inside] *= np.fft.irfftn(np.fft.rfftn(rel) * otf_mirror, s=shape, axes=axes).astype(dt)[inside]
    return est[inside]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,pshape", [((48, 41), (5, 5)), ((48, 41), (6, 4)), ((18, 20, 17), (5, 4, 3))])
def test_rl_equals_fft_workflow_linear(dtype, shape, pshape):
    image = RNG.random(shape).astype(dtype)
    psf = _psf(pshape, dtype)
    grid = [next_fast_len(n + p) for n, p in zip(shape, pshape)]
    want = deconvolve_reference(image, psf, 30, grid)
    got = fv_rest.richardson_lucy(image, psf, 30, clip=False)
    assert got.dtype == dtype
    assert _rel(got, want) < (1e-4 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rl_equals_circular_workflow_on_framed_data(dtype):
    """With a zero frame wider than the PSF, the circular workflow (no padding of the
    image: the seed's) and fovea's linear convolution agree."""
    image = np.zeros((64, 60), dtype)
    image[12:-12, 12:-12] = RNG.random((40, 36))
    psf = _psf((7, 7), dtype)
    want = deconvolve_reference(image, psf, 30)
    got = fv_rest.richardson_lucy(image, psf, 30, clip=False)
    assert _rel(got, want) < (1e-4 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,pshape", [
    ((40, 37), (5, 5)), ((40, 37), (4, 6)), ((21, 18, 17), (3, 4, 5)), ((50,), (7,)),
    ((9, 10), (15, 3)), ((1, 30), (1, 5)), ((12, 13), (1, 1))])
def test_rl_matches_skimage(xp, dtype, shape, pshape):
    image = RNG.random(shape).astype(dtype)
    psf = _psf(pshape, dtype)
    want = sk_rest.richardson_lucy(image, psf, num_iter=10)
    got = xp.get(fv_rest.richardson_lucy(xp.put(image), xp.put(psf), num_iter=10))
    assert got.dtype == want.dtype
    assert _rel(got, want) < (1e-4 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("fe", [None, 0, 0.4, -1.0])
def test_rl_filter_epsilon_clip(xp, fe):
    image = (RNG.random((33, 30)) * 2 - 0.2)
    psf = _psf((5, 5))
    for clip in (True, False):
        want = sk_rest.richardson_lucy(image, psf, 8, clip=clip, filter_epsilon=fe)
        got = xp.get(fv_rest.richardson_lucy(xp.put(image), xp.put(psf), 8, clip=clip, filter_epsilon=fe))
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float16, bool])
def test_rl_dtypes(dtype):
    image = (RNG.random((20, 22)) * 3).astype(dtype)
    psf = _psf((3, 3))
    want = sk_rest.richardson_lucy(image, psf, 5)
    got = fv_rest.richardson_lucy(image, psf, 5)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-6)


def test_rl_strided_and_zero_iterations():
    image = RNG.random((40, 50))[::2, ::-3]
    psf = _psf((3, 5))[:, ::-1]
    np.testing.assert_allclose(fv_rest.richardson_lucy(image, psf, 6), sk_rest.richardson_lucy(image, psf, 6),
                               rtol=1e-10)
    np.testing.assert_array_equal(fv_rest.richardson_lucy(image, psf, 0), np.full(image.shape, 0.5))


def test_rl_errors():
    image = RNG.random((10, 10))
    with pytest.raises(ValueError, match="same dimensionality"):
        fv_rest.richardson_lucy(image, _psf((3,)))
    with pytest.raises(ValueError, match="complex"):
        fv_rest.richardson_lucy(image + 1j, _psf((3, 3)))
    with pytest.raises(TypeError):
        fv_rest.richardson_lucy(image, _psf((3, 3)), num_iter=2.5)


# ---- Wiener -----------------------------------------------------------------------------------


def _blurred(shape=(48, 44), dtype=np.float64):
    img = RNG.random(shape)
    psf = np.ones((5, 5)) / 25
    blur = scipy.signal.convolve(img, psf, "same") + 0.02 * RNG.standard_normal(shape)
    return blur.astype(dtype), psf


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("is_real", [True, False])
def test_wiener(xp, dtype, is_real):
    blur, psf = _blurred(dtype=dtype)
    want = sk_rest.wiener(blur, psf, 0.1, is_real=is_real)
    got = xp.get(fv_rest.wiener(xp.put(blur), xp.put(psf), 0.1, is_real=is_real))
    assert got.dtype == want.dtype
    assert _rel(got, want) < (1e-5 if dtype == np.float32 else 1e-12)


def test_wiener_reg_and_transfer_function(xp):
    blur, psf = _blurred()
    reg = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], float)
    np.testing.assert_allclose(xp.get(fv_rest.wiener(xp.put(blur), psf, 0.05, reg=reg, clip=False)),
                               sk_rest.wiener(blur, psf, 0.05, reg=reg, clip=False), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unsupervised_wiener_same_seed(xp, dtype):
    blur, psf = _blurred((40, 36), dtype)
    want, wc = sk_rest.unsupervised_wiener(blur, psf, rng=7)
    got, gc = fv_rest.unsupervised_wiener(xp.put(blur), psf, rng=7)
    got = xp.get(got)
    assert got.dtype == want.dtype
    assert len(gc["noise"]) == len(wc["noise"])
    assert _rel(got, want) < (1e-4 if dtype == np.float32 else 1e-9)
    np.testing.assert_allclose(gc["prior"], wc["prior"], rtol=1e-3 if dtype == np.float32 else 1e-8)


# ---- registration -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [{}, {"upsample_factor": 20}, {"normalization": None},
                                {"disambiguate": True}, {"upsample_factor": 8, "disambiguate": True}])
def test_phase_cross_correlation(xp, dtype, kw):
    ref = ndi.gaussian_filter(RNG.random((64, 70)), 2).astype(dtype)
    mov = ndi.shift(ref, (-5.3, 9.6), mode="wrap").astype(dtype)
    want = sk_reg.phase_cross_correlation(ref, mov, **kw)
    got = fv_reg.phase_cross_correlation(xp.put(ref), xp.put(mov), **kw)
    np.testing.assert_allclose(got[0], want[0], atol=1e-6)
    assert got[0].dtype == want[0].dtype
    np.testing.assert_allclose(got[1], want[1], rtol=1e-3, atol=1e-5)


def test_phase_cross_correlation_3d_fourier_and_masked(xp):
    ref = ndi.gaussian_filter(RNG.random((20, 24, 22)), 1.5)
    mov = np.roll(ref, (3, -4, 2), axis=(0, 1, 2))
    f_ref, f_mov = np.fft.fftn(ref), np.fft.fftn(mov)
    want = sk_reg.phase_cross_correlation(f_ref, f_mov, space="fourier", upsample_factor=4)
    got = fv_reg.phase_cross_correlation(xp.put(f_ref), xp.put(f_mov), space="fourier", upsample_factor=4)
    np.testing.assert_allclose(got[0], want[0])
    mask = RNG.random(ref.shape) > 0.1
    want = sk_reg.phase_cross_correlation(ref, mov, reference_mask=mask)
    got = fv_reg.phase_cross_correlation(xp.put(ref), xp.put(mov), reference_mask=xp.put(mask))
    np.testing.assert_allclose(got[0], want[0])
    assert np.isnan(got[1]) and np.isnan(got[2])


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_phase_cross_correlation_errors():
    a = RNG.random((8, 8))
    with pytest.raises(ValueError, match="same shape"):
        fv_reg.phase_cross_correlation(a, a[:4])
    with pytest.raises(ValueError, match="space argument"):
        fv_reg.phase_cross_correlation(a, a, space="other")
    with pytest.raises(ValueError, match="normalization"):
        fv_reg.phase_cross_correlation(a, a, normalization="x")
    b = a.copy()
    b[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fv_reg.phase_cross_correlation(a, b)
    with pytest.raises(ValueError, match="mask sizes"):
        fv_reg.phase_cross_correlation(a, a, reference_mask=np.ones((4, 4), bool))


# ---- FFT filters --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.complex64])
@pytest.mark.parametrize("kw", [{}, {"high_pass": False, "order": 3.0}, {"npad": 4},
                                {"squared_butterworth": False}])
def test_butterworth(xp, dtype, kw):
    image = (RNG.random((40, 37)) * 200).astype(dtype)
    want = sk_filters.butterworth(image, 0.05, **kw)
    got = xp.get(fv_filters.butterworth(xp.put(image), 0.05, **kw))
    assert got.dtype == want.dtype
    assert _rel(got, want) < (1e-5 if np.dtype(dtype).itemsize <= 8 and dtype != np.float64 else 1e-12)


def test_butterworth_channels_and_errors(xp):
    image = RNG.random((20, 21, 3))
    want = sk_filters.butterworth(image, 0.1, channel_axis=-1)
    np.testing.assert_allclose(xp.get(fv_filters.butterworth(xp.put(image), 0.1, channel_axis=-1)), want,
                               rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="cutoff"):
        fv_filters.butterworth(image, 0.7)
    with pytest.raises(ValueError, match="npad"):
        fv_filters.butterworth(image, 0.1, npad=-1)


def _ir(r, c, sigma=3.0):
    return np.exp(-np.hypot(r, c) / sigma)


@pytest.mark.parametrize("fn", ["filter_forward", "filter_inverse", "wiener"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lpi_filters(fn, dtype):
    image = RNG.random((31, 40)).astype(dtype)
    want = getattr(sk_filters, fn)(image, _ir)
    got = getattr(fv_filters, fn)(image, _ir)
    assert got.dtype == want.dtype
    assert _rel(got, want) < (1e-5 if dtype == np.float32 else 1e-12)
    f1, f2 = sk_filters.LPIFilter2D(_ir, sigma=2.0), fv_filters.LPIFilter2D(_ir, sigma=2.0)
    np.testing.assert_allclose(f2(image), f1(image), rtol=1e-4)


def test_lpi_errors():
    with pytest.raises(ValueError, match="callable"):
        fv_filters.LPIFilter2D(None)
    with pytest.raises(ValueError, match="2-dimensional"):
        fv_filters.filter_forward(np.ones((3, 3, 3)), _ir)
