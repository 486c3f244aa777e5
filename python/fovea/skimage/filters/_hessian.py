"""The Hessian matrix by Gaussian derivatives and its eigenvalues, as
skimage.feature.hessian_matrix(..., use_gaussian_derivatives=True) and
hessian_matrix_eigvals compute them (the ridge filters' building blocks)."""

import math
from itertools import combinations_with_replacement

import numpy as np

from ... import ndimage as ndi
from .._shared import img_as_float, supported_float_type


def hessian_matrix_gaussian(image, xp, sigma, mode="reflect", cval=0):
    """The upper triangle of the Hessian (row-major: H00, H01, ..., H11, ...) of
    image smoothed at sigma: two first-order Gaussian derivative passes at
    sigma / sqrt(2) each, truncated at 8 sigma (100 when any sigma <= 1)."""
    image = img_as_float(image, xp)
    image = image.astype(supported_float_type(image), copy=False)
    ndim = image.ndim
    if np.isscalar(sigma):
        sigma = (sigma,) * ndim
    truncate = 8 if all(s > 1 for s in sigma) else 100
    half = 1 / math.sqrt(2)
    scaled = tuple(half * s for s in sigma)
    orders = [[0] * d + [1] + [0] * (ndim - d - 1) for d in range(ndim)]

    def derivative(x, d):
        return ndi.gaussian_filter(x, sigma=scaled, order=orders[d], mode=mode, cval=cval, truncate=truncate)

    gradients = [derivative(image, d) for d in range(ndim)]
    return [derivative(gradients[a0], a1) for a0, a1 in combinations_with_replacement(range(ndim), 2)]


def symmetric_eigvals(elems, xp):
    """Eigenvalues, in decreasing order along a new first axis, of the symmetric
    matrices whose upper triangles are elems: closed form in 2-d, a batched
    symmetric eigensolver otherwise."""
    if len(elems) == 3:
        m00, m01, m11 = elems
        eigs = xp.empty((2,) + m00.shape, m00.dtype)
        eigs[:] = (m00 + m11) / 2
        hsqrtdet = xp.sqrt(m01**2 + ((m00 - m11) / 2) ** 2)
        eigs[0] += hsqrtdet
        eigs[1] -= hsqrtdet
        return eigs
    first = elems[0]
    ndim = first.ndim
    mats = xp.zeros(first.shape + (ndim, ndim), dtype=first.dtype)
    for idx, (row, col) in enumerate(combinations_with_replacement(range(ndim), 2)):
        mats[..., row, col] = elems[idx]
        mats[..., col, row] = elems[idx]
    eigs = xp.linalg.eigvalsh(mats)[..., ::-1]
    return xp.moveaxis(eigs, -1, 0)
