"""fovea.skimage.restoration's denoisers, noise estimate, rolling ball, phase
unwrapping, inpainting and J-invariant calibration against scikit-image 0.26
on random 2-d / 3-d data of several dtypes, with and without channel_axis.
Each case runs with NumPy and (marker gpu) with CuPy inputs; results must keep
the input's array type.

Tolerances: on the host most results equal scikit-image's bit for bit
(bilateral, rolling ball, nl_means, tv_bregman, inpainting, float64
tv_chambolle); tv_chambolle sums its stop-rule energy in float64 where NumPy
sums float32 pairwise, so a float32 image may stop one iteration apart
(checked to 1e-3). The wavelet functions use fovea's own DWT: compared with
PyWavelets' published values here, and with scikit-image when PyWavelets is
installed. On the GPU CuPy's exp / sqrt may differ by ulps: 1e-5 / 1e-9."""
import warnings

import numpy as np
import pytest

R = pytest.importorskip("skimage.restoration")

from fovea.skimage import restoration as F  # noqa: E402
from fovea.skimage.restoration import _dwt  # noqa: E402
from xpcase import xp_fixture  # noqa: E402

xp = xp_fixture()


def rand(shape, dtype, seed=0, lo=0.0):
    r = np.random.default_rng(seed).random(shape) + lo
    if np.dtype(dtype).kind in "ui":
        return (r * 200).astype(dtype)
    return r.astype(dtype)


def close(ours, ref, xp, tol=None):
    ours = xp.get(ours)
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    if tol is None:
        tol = 0 if xp.name == "numpy" else (1e-5 if ref.dtype == np.float32 else 1e-9)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=tol)


CASES = [((33, 40), None), ((12, 13, 14), None), ((30, 31, 3), -1), ((3, 20, 21), 0)]


@pytest.mark.parametrize("shape,ca", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
def test_tv_chambolle(xp, shape, ca, dtype):
    x = rand(shape, dtype)
    ref = R.denoise_tv_chambolle(x, weight=0.2, channel_axis=ca)
    tol = 1e-3 if ref.dtype == np.float32 else None
    close(F.denoise_tv_chambolle(xp.put(x), weight=0.2, channel_axis=ca), ref, xp, tol)


def test_tv_chambolle_args(xp):
    x = rand((20, 21), "float64")
    for kw in (dict(eps=1e-6, max_num_iter=7), dict(weight=1.0, max_num_iter=1), dict(eps=0.0, max_num_iter=30)):
        close(F.denoise_tv_chambolle(xp.put(x), **kw), R.denoise_tv_chambolle(x, **kw), xp)
    close(F.denoise_tv_chambolle(xp.put(rand((50,), "float64"))), R.denoise_tv_chambolle(rand((50,), "float64")), xp)
    with pytest.raises(ValueError):
        F.denoise_tv_chambolle(xp.put(x), max_num_iter=0)


@pytest.mark.parametrize("shape,ca", [((25, 27), None), ((20, 21, 3), -1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
@pytest.mark.parametrize("mode", ["constant", "reflect", "symmetric", "wrap", "edge"])
def test_bilateral(xp, shape, ca, dtype, mode):
    x = rand(shape, dtype, lo=-0.3 if dtype != "uint8" else 0.0)
    kw = dict(sigma_spatial=1.2, mode=mode, cval=0.3, channel_axis=ca)
    close(F.denoise_bilateral(xp.put(x), **kw), R.denoise_bilateral(x, **kw), xp)


def test_bilateral_errors(xp):
    with pytest.raises(ValueError):
        F.denoise_bilateral(xp.put(rand((5, 6, 7), "float64")))
    with pytest.raises(ValueError):
        F.denoise_bilateral(xp.put(rand((5, 6), "float64")), mode="foo")


@pytest.mark.parametrize("shape,ca", [((30, 33), None), ((96, 97), None), ((20, 21, 3), -1), ((3, 20, 21), 0),
                                      ((15, 16, 4), None)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
@pytest.mark.parametrize("iso", [True, False])
def test_tv_bregman(xp, shape, ca, dtype, iso):
    x = rand(shape, dtype)
    kw = dict(weight=4, isotropic=iso, channel_axis=ca)
    close(F.denoise_tv_bregman(xp.put(x), **kw), R.denoise_tv_bregman(x, **kw), xp)


@pytest.mark.parametrize("shape,ca,kw", [
    ((24, 27), None, {}),
    ((20, 21, 3), -1, {}),
    ((9, 10, 11), None, dict(patch_size=3, patch_distance=3)),
    ((24, 27), None, dict(sigma=0.1, patch_size=6, patch_distance=4)),
])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
@pytest.mark.parametrize("fast", [True, False])
def test_nl_means(xp, shape, ca, kw, dtype, fast):
    x = rand(shape, dtype)
    ref = R.denoise_nl_means(x, h=0.2, fast_mode=fast, channel_axis=ca, **kw)
    tol = 1e-12 if (xp.name == "numpy" and ref.dtype == np.float64) else None
    close(F.denoise_nl_means(xp.put(x), h=0.2, fast_mode=fast, channel_axis=ca, **kw), ref, xp, tol)


def test_nl_means_4d_and_errors(xp):
    x = rand((6, 7, 8, 9), "float64")
    kw = dict(patch_size=3, patch_distance=2, h=0.2)
    close(F.denoise_nl_means(xp.put(x), **kw), R.denoise_nl_means(x, **kw), xp, 1e-9)
    with pytest.raises(NotImplementedError):
        F.denoise_nl_means(xp.put(x), fast_mode=False)
    with pytest.raises(NotImplementedError):
        F.denoise_nl_means(xp.put(rand((30,), "float64")))
    with pytest.raises(NotImplementedError):
        F.denoise_nl_means(xp.put(rand((5, 6, 7, 3), "float64")), fast_mode=False, channel_axis=-1)


@pytest.mark.parametrize("shape", [(40, 43), (15, 16, 17)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8", "int16"])
@pytest.mark.parametrize("kernel", ["r5", "r3.5", "ellipsoid"])
def test_rolling_ball(xp, shape, dtype, kernel):
    x = rand(shape, dtype)
    if kernel == "ellipsoid":
        kw = dict(kernel=R.ellipsoid_kernel((6,) * len(shape), 30))
    else:
        kw = dict(radius=float(kernel[1:]))
    close(F.rolling_ball(xp.put(x), **kw), R.rolling_ball(x, **kw), xp, 0)


def test_rolling_ball_nan_and_kernels(xp):
    x = rand((30, 30), "float64")
    x[3, 4] = np.nan
    for nansafe in (False, True):
        ref = R.rolling_ball(x, radius=4, nansafe=nansafe)
        ours = xp.get(F.rolling_ball(xp.put(x), radius=4, nansafe=nansafe))
        np.testing.assert_array_equal(ours, ref)
    np.testing.assert_array_equal(F.ball_kernel(3.5, 3), R.ball_kernel(3.5, 3))
    np.testing.assert_array_equal(F.ellipsoid_kernel((5, 8), 3), R.ellipsoid_kernel((5, 8), 3))


# pywt.dwt of X, as PyWavelets 1.9 computes it
X = np.array([0.3, -1.2, 2.5, 0.7, 1.1, -0.4, 0.9])
PYWT_DWT = [
    ('db2', 'symmetric', [-0.106066017178, -0.389157686223, 2.091290759345, 0.281913593906, 0.955523273171],
     [0.918558653544, 1.983366505028, 0.632928585362, 0.265505123944, -1.184063777488]),
    ('sym4', 'periodization', [0.151299949978, 1.942590270078, 0.26497186661, 1.035250463027],
     [0.110064752592, -2.37210501447, -0.421627912522, -0.710444375298]),
    ('coif1', 'reflect', [1.823081804457, -0.986165512381, 1.899794872322, 0.779383032119, 0.307239041839,
                          0.843571517476],
     [2.033030229448, 1.907784404361, 0.615980222056, 1.051168501362, 1.063693083871, 0.540832727005]),
    ('bior2.2', 'zero', [-0.053033008589, -0.54800775542, 2.227386360738, 0.671751442127, 0.618718433538,
                         -0.159099025767],
     [0.106066017178, 1.838477631085, 0.777817459305, 0.989949493661, 0.318198051534, 0.0]),
    ('haar', 'periodic', [-0.636396103068, 2.262741699797, 0.494974746831, 0.848528137424],
     [1.06066017178, 1.272792206136, 1.06066017178, 0.424264068712]),
]


@pytest.mark.parametrize("name,mode,ca,cd", PYWT_DWT)
def test_dwt_published_values(name, mode, ca, cd):
    c = _dwt.dwtn(X, name, mode)
    np.testing.assert_allclose(c["a"], ca, atol=1e-11)
    np.testing.assert_allclose(c["d"], cd, atol=1e-11)


@pytest.mark.parametrize("name", ["haar", "db1", "db3", "db8", "sym5", "coif2", "bior3.5", "rbio2.4"])
@pytest.mark.parametrize("mode", ["symmetric", "periodization", "reflect", "periodic", "zero", "constant"])
def test_dwt_roundtrip(name, mode):
    x = np.random.default_rng(1).standard_normal((17, 20))
    c = _dwt.wavedecn(x, name, mode, level=2)
    r = _dwt.waverecn(c, name, mode)[:17, :20]
    if mode in ("symmetric", "periodization", "reflect", "periodic") or name in ("haar", "db1"):
        np.testing.assert_allclose(r, x, atol=1e-9)


def test_dwt_against_pywt():
    pywt = pytest.importorskip("pywt")
    x = np.random.default_rng(2).standard_normal((9, 10, 11)).astype(np.float32)
    for name in ("db2", "sym4", "coif1", "bior2.2"):
        a, b = pywt.wavedecn(x, name, level=1), _dwt.wavedecn(x, name, level=1)
        np.testing.assert_allclose(b[0], a[0], atol=1e-5)
        for k in a[1]:
            np.testing.assert_allclose(b[1][k], a[1][k], atol=1e-5)
        np.testing.assert_allclose(_dwt.waverecn(b, name), pywt.waverecn(a, name), atol=1e-5)


WAVELET_KW = [dict(), dict(method="VisuShrink", sigma=0.1), dict(wavelet="db4", mode="hard"),
              dict(wavelet="sym3", wavelet_levels=2, rescale_sigma=False)]


@pytest.mark.parametrize("shape,ca", [((40, 43), None), ((15, 16, 17), None), ((32, 33, 3), -1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
def test_wavelet_vs_skimage(xp, shape, ca, dtype):
    pytest.importorskip("pywt")
    x = rand(shape, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in WAVELET_KW + ([dict(convert2ycbcr=True)] if ca is not None else []):
            ref = R.denoise_wavelet(x, channel_axis=ca, **kw)
            close(F.denoise_wavelet(xp.put(x), channel_axis=ca, **kw), ref, xp, 1e-5)
        np.testing.assert_allclose(F.estimate_sigma(xp.put(x), channel_axis=ca),
                                   R.estimate_sigma(x, channel_axis=ca), rtol=1e-5)


def test_wavelet_self(xp):
    rng = np.random.default_rng(3)
    clean = np.zeros((64, 64))
    clean[16:48, 16:48] = 1
    noisy = clean + 0.1 * rng.standard_normal(clean.shape)
    s = F.estimate_sigma(xp.put(noisy))
    assert isinstance(s, float) and abs(s - 0.1) < 0.02
    den = xp.get(F.denoise_wavelet(xp.put(noisy)))
    assert den.dtype == np.float64 and np.abs(den - clean).mean() < np.abs(noisy - clean).mean() / 2
    sig = F.estimate_sigma(xp.put(np.stack([noisy, noisy], -1)), channel_axis=-1, average_sigmas=True)
    assert abs(sig - s) < 1e-12
    with pytest.raises(ValueError):
        F.denoise_wavelet(xp.put(noisy), method="foo")
    with pytest.raises(ValueError):
        F.denoise_wavelet(xp.put(noisy), convert2ycbcr=True)


def _phase():
    c0, c1 = np.ogrid[-1:1:96j, -1:1:96j]
    image = 12 * np.pi * np.exp(-(c0**2 + c1**2))
    return image, np.angle(np.exp(1j * image))


@pytest.mark.parametrize("wrap", [False, True, (False, True)])
def test_unwrap_2d(xp, wrap):
    image, w = _phase()
    ours = xp.get(F.unwrap_phase(xp.put(w), wrap_around=wrap, rng=0))
    ref = R.unwrap_phase(w, wrap_around=wrap, rng=0)
    d = ours - ref
    assert np.std(d) < 1e-9 and abs(d.flat[0] / (2 * np.pi) - round(d.flat[0] / (2 * np.pi))) < 1e-9


def test_unwrap_3d_1d_masked():
    x, y, z = np.ogrid[:14, :15, :16]
    im3 = 0.3 * x + 0.2 * y + 0.4 * z
    assert np.std(F.unwrap_phase(np.angle(np.exp(1j * im3))) - im3) < 1e-9
    x1 = np.linspace(0, 20, 100)
    w1 = np.angle(np.exp(1j * x1))
    np.testing.assert_allclose(F.unwrap_phase(w1), R.unwrap_phase(w1))
    image, w = _phase()
    m = np.zeros(w.shape, bool)
    m[40:60, 40:60] = True
    ours, ref = F.unwrap_phase(np.ma.array(w, mask=m)), R.unwrap_phase(np.ma.array(w, mask=m))
    assert isinstance(ours, np.ma.MaskedArray)
    np.testing.assert_array_equal(ours.mask, ref.mask)
    assert np.std((ours - ref)[~m]) < 1e-9
    with pytest.raises(ValueError):
        F.unwrap_phase(np.ma.array(w1, mask=w1 > 0))
    with pytest.raises(ValueError):
        F.unwrap_phase(w1, wrap_around=True)
    with pytest.raises(ValueError):
        F.unwrap_phase(w, wrap_around=[True])


@pytest.mark.parametrize("shape,ca", [((30, 33), None), ((30, 31, 3), -1), ((12, 13, 14), None), ((40,), None)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
@pytest.mark.parametrize("split", [False, True])
def test_inpaint(xp, shape, ca, dtype, split):
    x = rand(shape, dtype)
    ms = shape[:-1] if ca is not None else shape
    m = np.zeros(ms, bool)
    for a, b in ((2, 6), (0, 2), (8, 10)):
        m[tuple(slice(a, b) for _ in ms)] = True
    ref = R.inpaint_biharmonic(x, m, channel_axis=ca, split_into_regions=split)
    tol = None if xp.name == "numpy" else 1e-4
    close(F.inpaint_biharmonic(xp.put(x), xp.put(m), channel_axis=ca, split_into_regions=split), ref, xp, tol)


def test_inpaint_errors():
    with pytest.raises(ValueError):
        F.inpaint_biharmonic(np.zeros((5, 6)), np.zeros((5, 7), bool))
    with pytest.raises(TypeError):
        F.inpaint_biharmonic(np.ma.array(np.zeros((5, 6))), np.zeros((5, 6), bool))


def test_j_invariant(xp):
    x = rand((40, 41), "float64")
    close(F.denoise_invariant(xp.put(x), F.denoise_tv_chambolle), R.denoise_invariant(x, R.denoise_tv_chambolle), xp)
    p = {"weight": [0.05, 0.1, 0.2]}
    for approx in (True, False):
        fa, (ta, la) = R.calibrate_denoiser(x, R.denoise_tv_chambolle, p, extra_output=True, approximate_loss=approx)
        fb, (tb, lb) = F.calibrate_denoiser(xp.put(x), F.denoise_tv_chambolle, p, extra_output=True,
                                            approximate_loss=approx)
        assert ta == tb
        np.testing.assert_allclose(lb, la, rtol=1e-9)
    close(fb(xp.put(x)), fa(x), xp)
