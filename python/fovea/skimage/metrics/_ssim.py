"""structural_similarity (skimage.metrics.structural_similarity).

The five local moments (means, second moments, cross moment) are fovea.ndimage
uniform or Gaussian filters, so they run on every CPU core for host data and
in CUDA for CuPy data; the pointwise formula is evaluated in place with the
same operations in the same order as scikit-image, so the results agree with
it to rounding of the filters. The mean SSIM is the float64 mean over the
image less a border of (win_size - 1) // 2 pixels."""

import numpy as np

from ... import _fovea
from ... import ndimage as fndi
from .._shared import slice_at_axis, supported_float_type
from ._common import check_same_shape, dtype_range, two, warn

__all__ = ["structural_similarity"]


def _fovea_astype(v, dt):
    if v.dtype == np.float16:   # no float16 in fovea: NumPy's cast (exact, to float32)
        return v.astype(dt)
    from ... import astype

    return astype(v, dt)


def _fovea_multiply(u, v):
    from ... import multiply

    return multiply(u, v)

_WIN_MSG = ("win_size exceeds image extent. Either ensure that your images are at least 7x7; or pass win_size "
            "explicitly in the function call, with an odd value less than or equal to the smaller side of your "
            "images. If your images are multichannel (with color channels), set channel_axis to the axis number "
            "corresponding to the channels.")


def structural_similarity(im1, im2, *, win_size=None, gradient=False, data_range=None, channel_axis=None,
                          gaussian_weights=False, full=False, **kwargs):
    """Mean structural similarity index of two images of one shape (Wang et
    al. 2004), with optionally its gradient with respect to im2 (Avanaki 2009)
    and the full SSIM image. Other keywords: K1 (0.01), K2 (0.03), sigma (1.5,
    for gaussian_weights), use_sample_covariance (True)."""
    a, b, xp, back = two(im1, im2, "im2")
    check_same_shape(a, b)
    res = _ssim(a, b, xp, win_size, gradient, data_range, channel_axis, gaussian_weights, full, kwargs)
    if isinstance(res, tuple):
        return (res[0],) + tuple(back(r) for r in res[1:])
    return res


def _ssim(a, b, xp, win_size, gradient, data_range, channel_axis, gaussian_weights, full, kwargs):
    float_type = supported_float_type(a)
    if channel_axis is not None:
        nch = a.shape[channel_axis]
        channel_axis = channel_axis % a.ndim
        mssim = np.empty(nch, dtype=float_type)
        G = xp.empty(a.shape, dtype=float_type) if gradient else None
        S = xp.empty(a.shape, dtype=float_type) if full else None
        for ch in range(nch):
            at = slice_at_axis(ch, channel_axis)
            r = _ssim(a[at], b[at], xp, win_size, gradient, data_range, None, gaussian_weights, full,
                      dict(kwargs))
            if not isinstance(r, tuple):
                r = (r,)
            mssim[ch] = float(r[0])
            k = 1
            if gradient:
                G[at] = r[k]
                k += 1
            if full:
                S[at] = r[k]
        out = mssim.mean()
        if xp is not np:
            out = xp.asarray(out)
        return _pack(out, G, S, gradient, full)

    K1 = kwargs.pop("K1", 0.01)
    K2 = kwargs.pop("K2", 0.03)
    sigma = kwargs.pop("sigma", 1.5)
    if K1 < 0:
        raise ValueError("K1 must be positive")
    if K2 < 0:
        raise ValueError("K2 must be positive")
    if sigma < 0:
        raise ValueError("sigma must be positive")
    use_sample_covariance = kwargs.pop("use_sample_covariance", True)
    truncate = 3.5   # an 11-tap Gaussian for sigma 1.5, as Wang et al.
    if win_size is None:
        win_size = 2 * int(truncate * sigma + 0.5) + 1 if gaussian_weights else 7
    if any(s - win_size < 0 for s in a.shape):
        raise ValueError(_WIN_MSG)
    if win_size % 2 != 1:
        raise ValueError("Window size must be odd.")
    if data_range is None:
        if a.dtype.kind == "f" or b.dtype.kind == "f":
            raise ValueError(
                "Since image dtype is floating point, you must specify the data_range parameter. Please read "
                "the documentation carefully (including the note). It is recommended that you always specify "
                "the data_range anyway."
            )
        if a.dtype != b.dtype:
            warn("Inputs have mismatched dtypes. Setting data_range based on im1.dtype.", 4)
        dmin, dmax = dtype_range(a.dtype)
        data_range = dmax - dmin
        if a.dtype.kind in "iu" and a.dtype != np.uint8:
            warn(f"Setting data_range based on im1.dtype. data_range = {data_range:.0f}. "
                 "Please specify data_range explicitly to avoid mistakes.", 4)

    if gaussian_weights:
        def filt(x):
            return fndi.gaussian_filter(x, sigma, mode="reflect", truncate=truncate)
    else:
        def filt(x):
            return fndi.uniform_filter(x, size=win_size)

    if xp is np:
        # fovea's multi-threaded casts and products (exact, as NumPy's)
        cast, mul = _fovea_astype, _fovea_multiply
    else:
        cast, mul = (lambda v, dt: v.astype(dt, copy=False)), xp.multiply
    x = a if a.dtype == float_type else cast(a, float_type)
    y = b if b.dtype == float_type else cast(b, float_type)
    NP = win_size ** a.ndim
    cov_norm = NP / (NP - 1) if use_sample_covariance else 1.0

    ux = filt(x)
    uy = filt(y)
    uxx = filt(mul(x, x))
    uyy = filt(mul(y, y))
    uxy = filt(mul(x, y))
    C1 = (K1 * data_range) ** 2
    C2 = (K2 * data_range) ** 2
    pad = (win_size - 1) // 2
    if xp is np:
        # one multi-threaded C pass: S (into ux's memory), its interior mean and
        # the gradient's three terms (into uxx, uyy, uxy)
        S = ux if full else None
        mssim = np.float64(_fovea.metrics_ssim_map(ux, uy, uxx, uyy, uxy, cov_norm, C1, C2, S=S,
                                                   gradient=bool(gradient), pad=pad))
        g1, g2, g3 = uxx, uyy, uxy
    else:
        S, mssim, g1, g2, g3 = _ssim_map_xp(xp, ux, uy, uxx, uyy, uxy, cov_norm, C1, C2, gradient, pad)
    grad = None
    if gradient:
        grad = filt(g1)
        grad *= x
        g2 = filt(g2)
        g2 *= y
        grad += g2
        grad += filt(g3)
        grad *= 2 / x.size
    return _pack(mssim, grad, S, gradient, full)


def _ssim_map_xp(xp, ux, uy, vx, vy, vxy, cov_norm, C1, C2, gradient, pad):
    """The SSIM map with array operations (GPU data), in place where it can,
    in scikit-image's order of operations. vx, vy, vxy enter holding uxx,
    uyy, uxy. Returns (S, mean, A1 / D, -S / B2, third gradient term)."""
    t = xp.empty_like(ux)
    for v, p, q in ((vx, ux, ux), (vy, uy, uy), (vxy, ux, uy)):
        xp.multiply(p, q, out=t)
        xp.subtract(v, t, out=v)
        xp.multiply(v, cov_norm, out=v)
    A1 = 2 * ux
    A1 *= uy
    A1 += C1
    A2 = vxy                           # 2 * vxy + C2
    A2 *= 2
    A2 += C2
    B1 = xp.multiply(ux, ux)           # ux**2 + uy**2 + C1
    xp.multiply(uy, uy, out=t)
    B1 += t
    B1 += C1
    B2 = vx                            # vx + vy + C2
    B2 += vy
    B2 += C2
    D = xp.multiply(B1, B2)
    S = xp.multiply(A1, A2)
    S /= D
    inner = tuple(slice(pad, s - pad) for s in S.shape)
    mssim = S[inner].mean(dtype=np.float64)
    if not gradient:
        return S, mssim, None, None, None
    g1 = A1 / D
    g2 = xp.negative(S)
    g2 /= B2
    # (ux * (A2 - A1) - uy * (B2 - B1) * S) / D
    g3 = xp.subtract(A2, A1)
    g3 *= ux
    xp.subtract(B2, B1, out=t)
    t *= uy
    t *= S
    g3 -= t
    g3 /= D
    return S, mssim, g1, g2, g3


def _pack(mssim, grad, S, gradient, full):
    if gradient and full:
        return mssim, grad, S
    if gradient:
        return mssim, grad
    if full:
        return mssim, S
    return mssim
