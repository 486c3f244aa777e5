"""scikit-image 0.26's total-variation and bilateral denoising on fovea:
denoise_tv_chambolle (fovea's C op: CPU threads or one fused CUDA kernel per
iteration), denoise_bilateral (vectorised over the window's offsets, NumPy or
CuPy) and denoise_tv_bregman (Gauss-Seidel sweeps in C on the host)."""

import math

import numpy as np

from ... import _fovea
from ... import _interop as ix
from .._shared import cucim_rules, img_as_float, supported_float_type
from ..transform._warps import _map_index

__all__ = ["denoise_tv_chambolle", "denoise_bilateral", "denoise_tv_bregman"]


def _float_image(image, xp):
    """img_as_float, then float16 -> float32 (scikit-image's order)."""
    image = img_as_float(image, xp)
    return image.astype(supported_float_type(image), copy=False)


def denoise_tv_chambolle(image, weight=0.1, eps=2.0e-4, max_num_iter=200, *, channel_axis=None):
    """Total-variation denoising by Chambolle's projection algorithm, n-d
    (skimage.restoration.denoise_tv_chambolle). Each channel (channel_axis)
    is denoised on its own and stops on its own."""
    img, xp, back = ix.prepare(image, "denoise_tv_chambolle")
    img = _float_image(img, xp)
    if max_num_iter < 1:
        raise ValueError("max_num_iter must be >= 1")
    if img.ndim == 0:
        raise ValueError("the image needs at least one dimension")
    channels = channel_axis is not None
    if channels:
        channel_axis = channel_axis % img.ndim
        if img.ndim < 2:
            raise ValueError("an image with channels needs at least one spatial dimension")
        work = xp.ascontiguousarray(xp.moveaxis(img, channel_axis, 0))
    else:
        work = xp.ascontiguousarray(img)
    out = xp.empty_like(work)
    if work.size:
        _fovea.rst_tv_chambolle(work, out, float(weight), float(eps), int(max_num_iter), channels, ix.stream_of(work))
    if channels:
        out = xp.moveaxis(out, 0, channel_axis)
    return back(out)


def _pad_index(n, before, after, mode):
    """Source indices of an axis of n padded by before / after as numpy.pad's
    mode (constant: -1 marks the padding)."""
    i = np.arange(-before, n + after)
    if mode == "constant":
        return np.where((i < 0) | (i >= n), -1, i)
    return _map_index(i, n, mode, np)


def _gaussian_lut(values, sigma, dtype, xp):
    """scikit-image's _gaussian_weight: exp(-0.5 v^2 / sigma^2) in float64, the
    exponential in dtype."""
    return xp.asarray(np.exp(-0.5 * (values**2 / sigma**2), dtype=dtype))


def denoise_bilateral(image, win_size=None, sigma_color=None, sigma_spatial=1, bins=10000, mode="constant",
                      cval=0, *, channel_axis=None):
    """Edge-preserving bilateral filter of a 2-d grayscale or colour image
    (skimage.restoration.denoise_bilateral), with scikit-image's window, lookup
    tables and weight binning."""
    img, xp, back = ix.prepare(image, "denoise_bilateral")
    if channel_axis is not None:
        if img.ndim != 3:
            raise ValueError(
                "Use ``channel_axis=None`` for 2D grayscale images. The last axis of the input image must be "
                "multiple color channels not another spatial dimension."
            )
        img = xp.moveaxis(img, channel_axis % img.ndim, -1)
        if img.shape[2] not in (3, 4):
            import warnings
            if img.shape[2] > 4:
                msg = (f"The last axis of the input image is interpreted as channels. Input image with shape "
                       f"{img.shape} has {img.shape[2]} channels in last axis. ``denoise_bilateral``is "
                       f"implemented for 2D grayscale and color images only.")
            else:
                msg = f"Input image must be grayscale, RGB, or RGBA; but has shape {img.shape}."
            warnings.warn(msg, UserWarning, stacklevel=2)
    elif img.ndim > 2:
        raise ValueError(
            f"Bilateral filter is not implemented for grayscale images of 3 or more dimensions, but input image "
            f"has {img.shape} shape. Use ``channel_axis=-1`` for 2D RGB images."
        )
    if mode not in ("constant", "wrap", "symmetric", "reflect", "edge"):
        raise ValueError("Invalid mode specified.  Please use `constant`, `edge`, `wrap`, `symmetric` or `reflect`.")
    if win_size is None:
        win_size = max(5, 2 * int(math.ceil(3 * sigma_spatial)) + 1)
    min_value = float(img.min())
    max_value = float(img.max())
    if min_value == max_value:
        return back(xp.moveaxis(img, -1, channel_axis) if channel_axis is not None else img)
    f = img_as_float(img, xp)
    f = f.reshape(f.shape + (1,)) if f.ndim == 2 else f
    dt = f.dtype
    sigma_color = sigma_color or dt.type(float(f.std()))   # squared in the dtype, as NumPy does
    # linspace to the image's own max scalar: float32 images get float32 values
    top = np.asarray(max_value, dtype=img.dtype)[()]
    color_lut = _gaussian_lut(np.linspace(0, top, bins, endpoint=False), sigma_color, dt, xp)
    grid = np.arange(-win_size // 2, win_size // 2 + 1)
    rr, cc = np.meshgrid(grid, grid, indexing="ij")
    range_lut = np.exp(-0.5 * (np.hypot(rr, cc) ** 2 / float(sigma_spatial) ** 2), dtype=dt).ravel()
    if min_value < 0:
        f = f - dt.type(min_value)
        # scikit-image subtracts in the image's own dtype
        max_value = float(np.asarray(max_value, img.dtype) - np.asarray(min_value, img.dtype))
    rows, cols, dims = f.shape
    ext = (win_size - 1) // 2
    ri, ci = _pad_index(rows, ext, ext, mode), _pad_index(cols, ext, ext, mode)
    padded = f[np.maximum(ri, 0)][:, np.maximum(ci, 0)]
    if mode == "constant":
        outside = xp.asarray((ri < 0)[:, None] | (ci < 0)[None, :])
        padded = xp.where(outside[..., None], dt.type(cval), padded)
    dist_scale = dt.type(bins // dims) / dt.type(max_value)   # Cython: C integer bins / dims, then the dtype
    total = xp.zeros_like(f)
    wsum = xp.zeros(f.shape[:2], dtype=dt)
    for wr in range(win_size):
        for wc in range(win_size):
            v = padded[wr:wr + rows, wc:wc + cols]
            t = f - v
            dist = xp.sqrt((t * t).sum(axis=-1) if dims > 1 else (t * t)[..., 0])
            b = xp.clip((dist * dist_scale).astype(np.int64), 0, bins - 1)   # NaN: clipped, result NaN
            w = color_lut[b] * range_lut[wr * win_size + wc]
            total += v * w[..., None]
            wsum += w
    out = total / wsum[..., None]
    if min_value < 0:
        out += dt.type(min_value)
    out = out[..., 0] if dims == 1 else out
    if channel_axis is not None:
        out = xp.moveaxis(out, -1, channel_axis)
    return back(out)


def _bregman(image, weight, max_num_iter, eps, isotropic, out=None):
    if out is None:
        out = np.zeros((image.shape[0] + 2, image.shape[1] + 2, image.shape[2]), dtype=image.dtype)
    _fovea.rst_tv_bregman(np.ascontiguousarray(image), out, float(weight), int(max_num_iter), float(eps),
                          bool(isotropic))
    return out


def denoise_tv_bregman(image, weight=5.0, max_num_iter=100, eps=1e-3, isotropic=True, *, channel_axis=None):
    """Total-variation denoising by split-Bregman optimisation
    (skimage.restoration.denoise_tv_bregman): Gauss-Seidel sweeps in C on the
    host (CuPy input is copied there and the result back). Without
    channel_axis a 3-d image's last axis is swept jointly, as scikit-image does."""
    img, xp, back = ix.prepare(image, "denoise_tv_bregman")
    cucim_type = supported_float_type(img) if cucim_rules(img) else None   # CuPy data: cuCIM's float rule
    host = ix.to_host(img) if ix.on_gpu(img) else img
    if channel_axis is not None:
        host = np.moveaxis(host, channel_axis % host.ndim, -1)
    host = img_as_float(host, np)
    if cucim_type is not None:
        host = host.astype(cucim_type, copy=False)
    host = host.reshape(host.shape + (1,) * (3 - host.ndim)) if host.ndim < 3 else host
    if host.dtype == np.float16:
        raise ValueError("float16 images are not supported")
    if channel_axis is not None:
        out = np.zeros((host.shape[0] + 2, host.shape[1] + 2, host.shape[2]), dtype=host.dtype)
        chan = np.zeros(out.shape[:2] + (1,), dtype=host.dtype)   # reused, as scikit-image does
        for c in range(host.shape[-1]):
            out[..., c] = _bregman(host[..., c:c + 1], weight, max_num_iter, eps, isotropic, chan)[..., 0]
    else:
        out = _bregman(host, weight, max_num_iter, eps, isotropic)
    out = np.squeeze(out[1:-1, 1:-1])
    if channel_axis is not None and out.ndim == 3:
        out = np.moveaxis(out, -1, channel_axis % out.ndim)
    return back(xp.asarray(out) if ix.on_gpu(img) else out)
