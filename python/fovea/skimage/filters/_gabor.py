"""gabor_kernel and gabor (skimage.filters._gabor)."""

import math

import numpy as np

from ... import ndimage as ndi
from ..._interop import prepare
from .._shared import check_nD, supported_float_type

__all__ = ["gabor_kernel", "gabor"]


def _sigma_prefactor(bandwidth):
    # sigma * frequency for a half-magnitude bandwidth of `bandwidth` octaves
    b = bandwidth
    return 1.0 / np.pi * math.sqrt(math.log(2) / 2.0) * (2.0**b + 1) / (2.0**b - 1)


def gabor_kernel(frequency, theta=0, bandwidth=1, sigma_x=None, sigma_y=None, n_stds=3, offset=0,
                 dtype=np.complex128, *, float_dtype=None):
    """Complex 2-d Gabor kernel: a Gaussian envelope (sigma_x, sigma_y, default
    from bandwidth) times a complex harmonic of `frequency` along direction theta,
    cut at n_stds standard deviations. A NumPy array of dtype (must be complex),
    as scikit-image returns. float_dtype (cuCIM's): the real precision, giving
    complex64 for float32; it must agree with dtype when both are given."""
    if float_dtype is not None:
        fd = np.dtype(float_dtype)
        if fd.kind != "f":
            raise ValueError(f"float_dtype must be a floating-point dtype, not {fd}")
        want = np.result_type(fd, np.complex64)
        if np.dtype(dtype) != np.complex128 and np.dtype(dtype) != want:
            raise ValueError(f"dtype {np.dtype(dtype)} does not match float_dtype {fd}")
        dtype = want
    if sigma_x is None:
        sigma_x = _sigma_prefactor(bandwidth) / frequency
    if sigma_y is None:
        sigma_y = _sigma_prefactor(bandwidth) / frequency
    if np.dtype(dtype).kind != "c":
        raise ValueError("dtype must be complex")
    ct = math.cos(theta)
    st = math.sin(theta)
    x0 = math.ceil(max(abs(n_stds * sigma_x * ct), abs(n_stds * sigma_y * st), 1))
    y0 = math.ceil(max(abs(n_stds * sigma_y * ct), abs(n_stds * sigma_x * st), 1))
    y = np.arange(-y0, y0 + 1)[:, None]
    x = np.arange(-x0, x0 + 1)[None, :]
    rotx = x * ct + y * st
    roty = -x * st + y * ct
    g = np.empty(roty.shape, dtype=dtype)
    envelope = -0.5 * (rotx**2 / sigma_x**2 + roty**2 / sigma_y**2)
    np.exp(envelope + 1j * (2 * np.pi * frequency * rotx + offset), out=g)
    g *= 1 / (2 * np.pi * sigma_x * sigma_y)
    return g


def gabor(image, frequency, theta=0, bandwidth=1, sigma_x=None, sigma_y=None, n_stds=3, offset=0, mode="reflect",
          cval=0):
    """(real, imaginary) responses of a 2-d image to gabor_kernel(...), each
    through fovea.ndimage.convolve. Float images give float32/float64 results;
    integer images keep their dtype (the responses are truncated, as in
    scikit-image)."""
    arr, xp, back = prepare(image)
    check_nD(arr, 2)
    if arr.dtype.kind == "f":
        arr = arr.astype(supported_float_type(arr), copy=False)
        kernel_dtype = np.promote_types(arr.dtype, np.complex64)
    else:
        kernel_dtype = np.complex128
    g = gabor_kernel(frequency, theta, bandwidth, sigma_x, sigma_y, n_stds, offset, dtype=kernel_dtype)
    real = ndi.convolve(arr, np.real(g), mode=mode, cval=cval)
    imag = ndi.convolve(arr, np.imag(g), mode=mode, cval=cval)
    return back((real, imag))
