"""window (skimage.filters._window)."""

import functools

import numpy as np

from .._shared import safe_as_int as _safe_as_int

__all__ = ["window"]

# warp_kwargs handled here; any other goes to skimage.transform.warp
_LOCAL_WARP_KWARGS = {"order", "clip", "preserve_range"}


def _interp_radial(w, pos, clip):
    """Linear interpolation of the 1-d profile w at positions pos, zero outside
    (scipy.ndimage.map_coordinates, order 1, 'grid-constant'), clipped to w's
    range as skimage.transform.warp clips."""
    n = w.shape[0]
    base = np.floor(pos)
    frac = pos - base
    i = base.astype(np.int64)
    padded = np.concatenate([w, [0.0, 0.0]])  # index n (and beyond, clamped) reads 0
    lo_idx = np.clip(i, -1, n)
    hi_idx = np.clip(i + 1, -1, n)
    lo = np.where(lo_idx >= 0, padded[lo_idx], 0.0)
    hi = np.where(hi_idx >= 0, padded[hi_idx], 0.0)
    out = lo * (1.0 - frac) + hi * frac
    if clip:
        wmin, wmax = np.min(w), np.max(w)
        if not wmin <= 0.0 <= wmax and np.min(out) <= 0.0 <= np.max(out):
            wmin, wmax = min(wmin, 0.0), max(wmax, 0.0)
        np.clip(out, wmin, wmax, out=out)
    return out


def window(window_type, shape, warp_kwargs=None, *, device=None):
    """An n-d window of the given shape made by rotating a 1-d window
    (scipy.signal.get_window(window_type, max(shape), fftbins=False)) about the
    centre, as scikit-image does. Returns float64 NumPy (scikit-image's type);
    device='cuda' or 'cuda:N' (a fovea extension) returns it on that GPU, as CuPy
    when installed. scipy is needed for get_window; warp_kwargs other than
    order=1, clip and preserve_range are handed to skimage.transform.warp.
    """
    if np.isscalar(shape):
        shape = (_safe_as_int(shape),)
    else:
        shape = tuple(_safe_as_int(shape))
    if any(s < 0 for s in shape):
        raise ValueError("invalid shape")
    ndim = len(shape)
    if ndim <= 0:
        raise ValueError("Number of dimensions must be greater than zero")
    try:
        from scipy.signal import get_window
    except ImportError as e:  # pragma: no cover - scipy is there in the tests
        raise ImportError("fovea.skimage.filters.window needs scipy (scipy.signal.get_window)") from e

    max_size = functools.reduce(max, shape)
    w = get_window(window_type, max_size, fftbins=False)
    axes = [np.arange(s, dtype=np.float32) * (max_size / s) for s in shape]
    center = max_size / 2 - 0.5
    dist = 0
    for g in np.meshgrid(*axes, sparse=True, indexing="ij"):
        g -= center
        dist = dist + g * g
    dist = np.sqrt(dist)
    # the sample positions along w, in float32 as scikit-image computes them
    pos = np.zeros((ndim,) + dist.shape, dtype=np.float32)
    pos[0] = dist + center

    kwargs = dict(warp_kwargs or {})
    if set(kwargs) - _LOCAL_WARP_KWARGS or kwargs.get("order", 1) not in (None, 1):
        try:
            from skimage.transform import warp
        except ImportError as e:
            raise ImportError(
                f"fovea.skimage.filters.window: warp_kwargs {sorted(kwargs)} need scikit-image's warp"
            ) from e
        w = np.reshape(w, (-1,) + (1,) * (ndim - 1))
        out = warp(w, pos, mode="constant", cval=0.0, **kwargs)
    else:
        if w.size == 0:
            raise ValueError("Cannot warp empty image with dimensions", w.shape + (1,) * (ndim - 1))
        out = _interp_radial(w, pos[0].astype(np.float64), kwargs.get("clip", True))
    if device is None or device == "cpu":
        return out
    from ... import to_device

    return to_device(out, device)
