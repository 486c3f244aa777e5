"""scikit-image 0.26's linear position-invariant filters (``filters.LPIFilter2D``,
``filter_forward``, ``filter_inverse``, ``wiener``) on fovea: the transforms in
fovea.fft, the element-wise maths in NumPy or CuPy on the data's device (the
impulse response is called with coordinate arrays of that module)."""

import numpy as np

from ... import _interop
from ... import fft as _fft
from .._shared import check_nD, supported_float_type

__all__ = ["LPIFilter2D", "filter_forward", "filter_inverse", "wiener"]


def _min_limit(x, xp, val=np.finfo(float).eps):
    mask = xp.abs(x) < val
    x[mask] = xp.sign(x[mask]) * val


def _center(x, oshape):
    start = (np.array(x.shape) - np.array(oshape)) // 2
    return x[tuple(slice(s, s + n) for s, n in zip(start, oshape))]


def _pad(data, shape, xp):
    out = xp.zeros(shape, dtype=data.dtype)
    out[tuple(slice(0, n) for n in data.shape)] = data
    return out


class LPIFilter2D:
    """Linear position-invariant filter (2-D) (skimage.filters.LPIFilter2D).

    impulse_response: a callable ``f(r, c, **filter_params)`` taking coordinate
    arrays (NumPy, or CuPy for data on a GPU)."""

    def __init__(self, impulse_response, **filter_params):
        if not callable(impulse_response):
            raise ValueError("Impulse response must be a callable.")
        self.impulse_response = impulse_response
        self.filter_params = filter_params
        self._cache = None

    def _prepare(self, data, xp=np):
        """(filter spectrum, data spectrum) over the padded shape 2 * shape - 1."""
        dshape = np.array(data.shape)
        even_offset = (dshape % 2 == 0).astype(int)
        dshape += even_offset
        oshape = np.array(data.shape) * 2 - 1
        float_dtype = supported_float_type(data)
        data = data.astype(float_dtype, copy=False)
        cache_ok = (self._cache is not None and _interop.xp_of(self._cache) is xp
                    and not np.any(np.array(self._cache.shape) != oshape))
        if not cache_ok:
            coords = np.mgrid[[slice(0 + offset, float(n + offset)) for n, offset in zip(dshape, even_offset)]]
            for k, coord in enumerate(coords):
                coord -= (dshape[k] - 1) / 2.0
            coords = coords.reshape(2, -1).T
            coords = coords.astype(float_dtype, copy=False)
            if xp is not np:
                coords = xp.asarray(coords)
            f = self.impulse_response(coords[:, 0], coords[:, 1], **self.filter_params).reshape(tuple(dshape))
            f = _pad(f, tuple(oshape), xp)
            F = _fft.fftn(f)
            self._cache = F
        else:
            F = self._cache
        data = _pad(data, tuple(oshape), xp)
        G = _fft.fftn(data)
        return F, G

    def __call__(self, data):
        """Apply the filter to the 2-D data."""
        d, xp, back = _interop.prepare(data, "fovea.skimage.filters.LPIFilter2D")
        check_nD(d, 2, "data")
        F, G = self._prepare(d, xp)
        out = _fft.ifftn(F * G)
        return back(xp.abs(_center(out, d.shape)))


def filter_forward(data, impulse_response=None, filter_params=None, predefined_filter=None):
    """Apply the given filter to data (skimage.filters.filter_forward)."""
    if filter_params is None:
        filter_params = {}
    d, _, _ = _interop.prepare(data, "fovea.skimage.filters.filter_forward")
    check_nD(d, 2, "data")
    if predefined_filter is None:
        predefined_filter = LPIFilter2D(impulse_response, **filter_params)
    return predefined_filter(data)


def _restore(data, impulse_response, filter_params, predefined_filter, what, gain):
    """The shared body of filter_inverse and wiener: gain(F, xp) maps the clamped
    filter spectrum to the restoring one."""
    if filter_params is None:
        filter_params = {}
    d, xp, back = _interop.prepare(data, what)
    check_nD(d, 2, "data")
    filt = predefined_filter if predefined_filter is not None else LPIFilter2D(impulse_response, **filter_params)
    # scikit-image's own LPIFilter2D (a predefined_filter) prepares NumPy arrays
    F, G = filt._prepare(d, xp) if isinstance(filt, LPIFilter2D) else filt._prepare(d)
    _min_limit(F, xp, val=np.finfo(F.real.dtype).eps)
    F = gain(F, xp)
    return back(_center(xp.abs(_fft.ifftshift(_fft.ifftn(G * F))), d.shape))


def filter_inverse(data, impulse_response=None, filter_params=None, max_gain=2, predefined_filter=None):
    """Apply the filter in reverse to data, its gain capped at max_gain
    (skimage.filters.filter_inverse)."""

    def gain(F, xp):
        F = 1 / F
        mask = xp.abs(F) > max_gain
        F[mask] = xp.sign(F[mask]) * max_gain
        return F

    return _restore(data, impulse_response, filter_params, predefined_filter,
                    "fovea.skimage.filters.filter_inverse", gain)


def wiener(data, impulse_response=None, filter_params=None, K=0.25, predefined_filter=None):
    """Minimum mean square error (Wiener) inverse filter (skimage.filters.wiener)."""
    what = "fovea.skimage.filters.wiener"
    d = _interop.prepare(data, what)[0]
    check_nD(d, 2, "data")
    if not isinstance(K, float):
        check_nD(K, 2, "K")
        K = _interop.like_input(K, d, "K", what)

    def gain(F, xp):
        H_mag_sqr = xp.abs(F) ** 2
        return 1 / F * H_mag_sqr / (H_mag_sqr + K)

    return _restore(data, impulse_response, filter_params, predefined_filter, "fovea.skimage.filters.wiener",
                    gain)
