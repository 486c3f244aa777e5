"""scikit-image's ``restoration.uft`` helpers (unitary Fourier transforms, transfer
functions) on fovea.fft, for NumPy or CuPy working arrays (``xp``). Internal: the
public functions are ``wiener`` and ``unsupervised_wiener``."""

import numpy as np

from ... import fft as _fft
from .._shared import supported_float_type


def urfftn(a, dim=None):
    dim = a.ndim if dim is None else dim
    return _fft.rfftn(a, axes=range(-dim, 0), norm="ortho")


def uirfftn(a, dim=None, shape=None):
    dim = a.ndim if dim is None else dim
    return _fft.irfftn(a, shape, axes=range(-dim, 0), norm="ortho")


def ufftn(a, dim=None):
    dim = a.ndim if dim is None else dim
    return _fft.fftn(a, axes=range(-dim, 0), norm="ortho")


def uifftn(a, dim=None):
    dim = a.ndim if dim is None else dim
    return _fft.ifftn(a, axes=range(-dim, 0), norm="ortho")


def image_quad_norm(a, xp):
    """The quadratic norm of images in Fourier space (the last two axes; a half
    spectrum when they differ in length, as skimage decides)."""
    sq = xp.abs(a) ** 2
    if a.shape[-1] != a.shape[-2]:
        return 2 * xp.sum(xp.sum(sq, axis=-1), axis=-1) - xp.sum(xp.abs(a[..., 0]) ** 2, axis=-1)
    return xp.sum(xp.sum(sq, axis=-1), axis=-1)


def ir2tf(imp_resp, shape, xp, dim=None, is_real=True):
    """The transfer function of an impulse response (zero-padded to shape, its
    centre rolled to the origin)."""
    if not dim:
        dim = imp_resp.ndim
    dtype = supported_float_type(imp_resp)
    padded = xp.zeros(shape, dtype=dtype)
    padded[tuple(slice(0, s) for s in imp_resp.shape)] = imp_resp
    for axis, size in enumerate(imp_resp.shape):
        if axis >= imp_resp.ndim - dim:
            padded = xp.roll(padded, shift=-int(np.floor(size / 2)), axis=axis)
    axes = range(-dim, 0)
    out = _fft.rfftn(padded, axes=axes) if is_real else _fft.fftn(padded, axes=axes)
    return out.astype(np.promote_types(dtype, np.complex64), copy=False)


def laplacian(ndim, shape, xp, is_real=True):
    """(transfer function, impulse response) of the Laplacian."""
    impr = np.zeros([3] * ndim)
    for dim in range(ndim):
        idx = tuple([slice(1, 2)] * dim + [slice(None)] + [slice(1, 2)] * (ndim - dim - 1))
        impr[idx] = np.array([-1.0, 0.0, -1.0]).reshape([-1 if i == dim else 1 for i in range(ndim)])
    impr[(slice(1, 2),) * ndim] = 2.0 * ndim
    if xp is not np:
        impr = xp.asarray(impr)
    return ir2tf(impr, shape, xp, is_real=is_real), impr
