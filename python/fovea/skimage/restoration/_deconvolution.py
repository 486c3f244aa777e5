"""scikit-image 0.26's deconvolutions on fovea: ``richardson_lucy`` (one C call:
FFTs and element-wise steps in C on the CPU thread pool, cuFFT and CUDA kernels
on a GPU), ``wiener`` and ``unsupervised_wiener`` (fovea.fft transforms, the
element-wise maths in NumPy or CuPy on the data's device). docs/restoration.md."""

import operator

import numpy as np

from ... import _fovea, _interop
from .._shared import supported_float_type
from . import _uft

__all__ = ["richardson_lucy", "wiener", "unsupervised_wiener"]


def _small_like(a, ref, dtype=None):
    """A small parameter array (PSF, regulariser) on ref's device: host arrays go to
    the GPU for a GPU ref and device arrays come back for a host ref (they are tiny);
    an image-sized array on the same device is used in place."""
    if _interop.on_gpu(ref) and _interop.kind(a) == "cupy":
        return a if dtype is None else a.astype(dtype, copy=False)
    a = _interop.host(a)
    if dtype is not None:
        a = a.astype(dtype, copy=False)
    return _interop.like_device(a, ref)


def richardson_lucy(image, psf, num_iter=50, clip=True, filter_epsilon=None):
    """Richardson-Lucy deconvolution (skimage.restoration.richardson_lucy).

    scikit-image's algorithm and results: estimate 0.5 everywhere, then ``num_iter``
    times ``estimate *= convolve(image / (convolve(estimate, psf) + 1e-12),
    flip(psf))`` with scipy.signal.convolve's ``'same'`` (zeros outside the image),
    the ratio set to 0 where the convolution is below ``filter_epsilon`` (when
    given), clipped to [-1, 1] when ``clip``. fovea computes the convolutions by real
    FFTs over a padded grid (the PSF transformed once), the whole loop in C: NumPy
    images on all CPU cores, CuPy / CUDA torch images on their GPU. float16 is
    computed as float32, float32 stays float32, other dtypes give float64.
    """
    what = "fovea.skimage.restoration.richardson_lucy"
    img, xp, back = _interop.prepare(image, what)
    float_type = supported_float_type(img)
    img = img.astype(float_type, copy=False)
    ker = _small_like(psf, img, float_type)
    if ker.ndim != img.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    num_iter = max(operator.index(num_iter), 0)
    out = xp.empty(img.shape, float_type)
    if img.size == 0 or ker.size == 0:
        out.fill(0.5)
        return back(out)
    fe = float(filter_epsilon) if filter_epsilon else None
    _fovea.richardson_lucy(img, ker, out, num_iter, bool(clip), fe, stream=_interop.stream_of(img))
    return back(out)


def _transfer_functions(img, psf, reg, is_real, xp):
    """skimage's preamble of wiener / unsupervised_wiener: (image, transfer function,
    regulariser's transfer function), real parts as skimage keeps them."""
    if reg is None:
        reg, _ = _uft.laplacian(img.ndim, img.shape, xp, is_real=is_real)
    else:
        reg = _small_like(reg, img)
    if not xp.iscomplexobj(reg):
        reg = _uft.ir2tf(reg, img.shape, xp, is_real=is_real)
    float_type = supported_float_type(img)
    img = img.astype(float_type, copy=False)
    psf = _small_like(psf, img)
    psf = psf.real.astype(float_type, copy=False)
    reg = reg.real.astype(float_type, copy=False)
    if psf.shape != reg.shape:
        trans = _uft.ir2tf(psf, img.shape, xp, is_real=is_real)
    else:
        trans = psf
    return img, trans, reg, float_type


def _clip(a, clip):
    if clip:
        a[a > 1] = 1
        a[a < -1] = -1
    return a


def wiener(image, psf, balance, reg=None, is_real=True, clip=True):
    """Wiener-Hunt deconvolution (skimage.restoration.wiener): the transforms in
    fovea.fft, the filter in NumPy / CuPy on the image's device."""
    img, xp, back = _interop.prepare(image, "fovea.skimage.restoration.wiener")
    img, trans, reg, _ = _transfer_functions(img, psf, reg, is_real, xp)
    wf = xp.conj(trans) / (xp.abs(trans) ** 2 + balance * xp.abs(reg) ** 2)
    if is_real:
        deconv = _uft.uirfftn(wf * _uft.urfftn(img), shape=img.shape)
    else:
        deconv = _uft.uifftn(wf * _uft.ufftn(img))
    return back(_clip(deconv, clip))


def _host_scalar(v):
    """A 0-d result of the working module as a NumPy scalar of its dtype."""
    return np.asarray(_interop.to_host(v))[()]


def unsupervised_wiener(image, psf, reg=None, user_params=None, is_real=True, clip=True, *, rng=None):
    """Unsupervised Wiener-Hunt deconvolution (skimage.restoration.unsupervised_wiener):
    the Gibbs sampler of scikit-image with its random draws from NumPy's generator
    (``numpy.random.default_rng(rng)``, in scikit-image's order) on the host, so a
    seed gives scikit-image's chains; on a GPU the draws are copied to the device.
    Returns (deconvolved image, {"noise": [...], "prior": [...]})."""
    params = {"threshold": 1e-4, "max_num_iter": 200, "min_num_iter": 30, "burnin": 15, "callback": None}
    params.update(user_params or {})
    img, xp, back = _interop.prepare(image, "fovea.skimage.restoration.unsupervised_wiener")
    img, trans, reg, float_type = _transfer_functions(img, psf, reg, is_real, xp)

    x_postmean = xp.zeros(trans.shape, dtype=float_type)
    prev_x_postmean = xp.zeros(trans.shape, dtype=float_type)
    delta = np.nan
    gn_chain, gx_chain = [1], [1]
    areg2 = xp.abs(reg) ** 2
    atf2 = xp.abs(trans) ** 2
    data_spectrum = _uft.urfftn(img, 2) if is_real else _uft.ufftn(img, 2)
    rng = np.random.default_rng(rng)

    for iteration in range(params["max_num_iter"]):
        precision = gn_chain[-1] * atf2 + gx_chain[-1] * areg2
        r1 = _interop.like_device(rng.standard_normal(data_spectrum.shape).astype(float_type, copy=False), img)
        r2 = _interop.like_device(rng.standard_normal(data_spectrum.shape).astype(float_type, copy=False), img)
        excursion = xp.sqrt(0.5 / precision) * (r1 + 1j * r2)
        wiener_filter = gn_chain[-1] * xp.conj(trans) / precision
        x_sample = wiener_filter * data_spectrum + excursion
        if params["callback"]:
            params["callback"](x_sample)
        q_noise = _host_scalar(_uft.image_quad_norm(data_spectrum - x_sample * trans, xp))
        gn_chain.append(rng.gamma(img.size / 2, 2 / q_noise))
        q_prior = _host_scalar(_uft.image_quad_norm(x_sample * reg, xp))
        gx_chain.append(rng.gamma((img.size - 1) / 2, 2 / q_prior))
        if iteration > params["burnin"]:
            x_postmean = prev_x_postmean + x_sample
        if iteration > params["burnin"] + 1:
            current = x_postmean / (iteration - params["burnin"])
            previous = prev_x_postmean / (iteration - params["burnin"] - 1)
            delta = _host_scalar(
                xp.sum(xp.abs(current - previous)) / xp.sum(xp.abs(x_postmean)) / (iteration - params["burnin"]))
        prev_x_postmean = x_postmean
        if iteration > params["min_num_iter"] and delta < params["threshold"]:
            break

    x_postmean = x_postmean / (iteration - params["burnin"])
    if is_real:
        x_postmean = _uft.uirfftn(x_postmean, 2, shape=img.shape)
    else:
        x_postmean = _uft.uifftn(x_postmean, 2)
    return back(_clip(x_postmean, clip)), {"noise": gn_chain, "prior": gx_chain}
