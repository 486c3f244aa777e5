"""Ridge (tube, vessel, neurite) filters from the eigenvalues of the Hessian
(skimage.filters.ridges): meijering, sato, frangi and hessian.

Each scale's Hessian comes from Gaussian-derivative passes in fovea.ndimage.
For 2-d and 3-d float images the rest of a scale (eigenvalues, the filter's
response, the running maximum over scales, the max reductions) is one C op,
fovea._fovea.hessian_ridge (src/ops/filters/ridge.c: the thread pool on the
host, one CUDA kernel on the GPU). Elsewhere, or with the internal switch
"ridge_arrays" on (fovea._interop.switched, tests), the eigenvalue maths runs in
NumPy on the host or CuPy on the GPU as array operations.
"""

import math
import numbers
import sys
from warnings import warn

import numpy as np

from ... import _fovea
from ..._interop import prepare, switch
from .._shared import check_nD, supported_float_type
from ._hessian import hessian_matrix_gaussian, symmetric_eigvals

# filter codes of _fovea.hessian_ridge (fv_ridge_filter)
_FRANGI, _SATO, _MEIJERING, _NORM_MAX = 0, 1, 2, 3

__all__ = ["meijering", "sato", "frangi", "hessian"]


def _float_image(arr, black_ridges):
    image = arr.astype(supported_float_type(arr), copy=False)
    return image if black_ridges else -image


def _eigvals(image, xp, sigma, mode, cval):
    return symmetric_eigvals(hessian_matrix_gaussian(image, xp, sigma, mode=mode, cval=cval), xp)


def _real(x):
    """x is a real scalar that float() takes as NumPy would (not NaN)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and not math.isnan(float(x))


def _use_op(image, xp):
    """The C op serves this float image (2-d or 3-d, NumPy or CuPy, not empty)."""
    if switch("ridge_arrays"):
        return False
    if image.ndim not in (2, 3) or image.size == 0 or image.dtype not in (np.float32, np.float64):
        return False
    return xp is np or xp is sys.modules.get("cupy")


def _stream(xp):
    return None if xp is np else xp.cuda.get_current_stream().ptr


def _planes(image, xp, sigma, mode, cval):
    """The Hessian element planes of one scale, C-contiguous."""
    return [xp.ascontiguousarray(e) for e in hessian_matrix_gaussian(image, xp, sigma, mode=mode, cval=cval)]


def _like_image(acc, image, xp):
    """acc (C order) in the memory order zeros_like(image) gives, as before."""
    if image.flags.c_contiguous:
        return acc
    res = xp.empty_like(image)
    res[...] = acc
    return res


def meijering(image, sigmas=range(1, 10, 2), alpha=None, black_ridges=True, mode="reflect", cval=0):
    """Meijering neuriteness: per scale, the eigenvalue combination of largest
    magnitude (each eigenvalue plus alpha times the others), kept where positive
    and scaled to a maximum of 1; the maximum over scales. Any ndim.
    black_ridges: detect dark ridges (True) or bright ones."""
    arr, xp, back = prepare(image)
    image = _float_image(arr, black_ridges)
    ndim = image.ndim
    if alpha is None:
        alpha = 1 / (ndim + 1)
    if _use_op(image, xp) and _real(alpha):
        acc = xp.zeros(image.shape, image.dtype)
        scal = xp.zeros(1, image.dtype)
        stream = _stream(xp)
        for sigma in sigmas:
            h = _planes(image, xp, sigma, mode, cval)
            _fovea.hessian_ridge(h, acc, _MEIJERING, alpha=float(alpha), work=h[0], scal=scal, stream=stream)
        return back(_like_image(acc, image, xp))
    # circulant matrix of [1, alpha, ..., alpha]: 1 on the diagonal, alpha elsewhere
    first = np.array([1, *[alpha] * (ndim - 1)])
    mtx = np.array([[first[(i - j) % ndim] for j in range(ndim)] for i in range(ndim)]).astype(image.dtype)
    mtx = xp.asarray(mtx)
    filtered_max = xp.zeros_like(image)
    for sigma in sigmas:
        eigvals = _eigvals(image, xp, sigma, mode, cval)
        vals = xp.tensordot(mtx, eigvals, 1)
        vals = xp.take_along_axis(vals, abs(vals).argmax(0)[None], 0).squeeze(0)
        vals = xp.maximum(vals, 0)
        max_val = vals.max()
        if max_val > 0:
            vals /= max_val
        filtered_max = xp.maximum(filtered_max, vals)
    return back(filtered_max)


def sato(image, sigmas=range(1, 10, 2), black_ridges=True, mode="reflect", cval=0):
    """Sato tubeness of a 2-d or 3-d image: per scale, sigma**2 times the geometric
    mean of the positive parts of all but the smallest eigenvalue; the maximum
    over scales."""
    arr, xp, back = prepare(image)
    check_nD(arr, [2, 3])
    image = _float_image(arr, black_ridges)
    sigmas = list(sigmas)
    # sigma**2 * (the image type) must stay the image type (a NumPy float64
    # sigma makes a float32 result float64 on the array path)
    if _use_op(image, xp) and all(_real(s) and np.result_type(s**2, image.dtype) == image.dtype for s in sigmas):
        acc = xp.zeros(image.shape, image.dtype)
        stream = _stream(xp)
        for sigma in sigmas:
            _fovea.hessian_ridge(_planes(image, xp, sigma, mode, cval), acc, _SATO, sigma=float(sigma), stream=stream)
        return back(_like_image(acc, image, xp))
    filtered_max = xp.zeros_like(image)
    for sigma in sigmas:
        eigvals = _eigvals(image, xp, sigma, mode, cval)[:-1]
        vals = sigma**2 * xp.prod(xp.maximum(eigvals, 0), 0) ** (1 / len(eigvals))
        filtered_max = xp.maximum(filtered_max, vals)
    return back(filtered_max)


def _frangi(arr, xp, sigmas, scale_range, scale_step, alpha, beta, gamma, black_ridges, mode, cval):
    if scale_range is not None and scale_step is not None:
        warn(
            "Use keyword parameter `sigmas` instead of `scale_range` and `scale_range` which will be "
            "removed in version 0.17.",
            stacklevel=3,
        )
        sigmas = np.arange(scale_range[0], scale_range[1], scale_step)
    check_nD(arr, [2, 3])
    image = _float_image(arr, black_ridges)
    dtype = image.dtype
    if _use_op(image, xp) and _real(alpha) and _real(beta) and (gamma is None or _real(gamma)):
        acc = xp.zeros(image.shape, dtype)
        scal = xp.zeros(1, dtype) if gamma is None else None
        stream = _stream(xp)
        for k, sigma in enumerate(sigmas):
            h = _planes(image, xp, sigma, mode, cval)
            if k == 0 and gamma is None:
                _fovea.hessian_ridge(h, None, _NORM_MAX, scal=scal, stream=stream)
            _fovea.hessian_ridge(h, acc, _FRANGI, alpha=float(alpha), beta=float(beta),
                                 gamma=math.nan if gamma is None else float(gamma), scal=scal, stream=stream)
        return _like_image(acc, image, xp)
    filtered_max = xp.zeros_like(image)
    for sigma in sigmas:
        eigvals = _eigvals(image, xp, sigma, mode, cval)
        # sort by magnitude: |lambda1| <= |lambda2| (<= |lambda3|)
        eigvals = xp.take_along_axis(eigvals, abs(eigvals).argsort(0), 0)
        lambda1 = eigvals[0]
        if image.ndim == 2:
            (lambda2,) = xp.maximum(eigvals[1:], 1e-10)
            r_a = None  # infinite: the blob term is 1
            r_b = abs(lambda1) / lambda2
        else:
            lambda2, lambda3 = xp.maximum(eigvals[1:], 1e-10)
            r_a = lambda2 / lambda3
            r_b = abs(lambda1) / xp.sqrt(lambda2 * lambda3)
        s = xp.sqrt((eigvals**2).sum(0))
        if gamma is None:
            gamma = s.max() / 2
            if gamma == 0:
                gamma = 1
        vals = xp.exp(-(r_b**2) / (2 * beta**2), dtype=dtype)
        if r_a is not None:
            vals *= 1.0 - xp.exp(-(r_a**2) / (2 * alpha**2), dtype=dtype)
        vals *= 1.0 - xp.exp(-(s**2) / (2 * gamma**2), dtype=dtype)
        filtered_max = xp.maximum(filtered_max, vals)
    return filtered_max


def frangi(image, sigmas=range(1, 10, 2), scale_range=None, scale_step=None, alpha=0.5, beta=0.5, gamma=None,
           black_ridges=True, mode="reflect", cval=0):
    """Frangi vesselness of a 2-d or 3-d image, the maximum over scales. alpha,
    beta: sensitivity to the plate-vs-line and blob-vs-line ratios; gamma: to
    structure (None: half the largest Hessian norm at the first scale)."""
    arr, xp, back = prepare(image)
    return back(_frangi(arr, xp, sigmas, scale_range, scale_step, alpha, beta, gamma, black_ridges, mode, cval))


def hessian(image, sigmas=range(1, 10, 2), scale_range=None, scale_step=None, alpha=0.5, beta=0.5, gamma=15,
            black_ridges=True, mode="reflect", cval=0):
    """Hybrid Hessian filter: frangi with gamma=15 whose non-positive values are
    set to 1 (for whole-vessel segmentation)."""
    arr, xp, back = prepare(image)
    filtered = _frangi(arr, xp, sigmas, scale_range, scale_step, alpha, beta, gamma, black_ridges, mode, cval)
    filtered[filtered <= 0] = 1
    return back(filtered)
