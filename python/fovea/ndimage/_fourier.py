"""scipy.ndimage's Fourier-domain filters (fourier_gaussian, fourier_uniform,
fourier_ellipsoid, fourier_shift) as one C op on the CPU and the GPU
(fv_fourier_filter, docs/fft.md). Output dtypes, errors and the meaning of `n`
and `axis` follow scipy.ndimage 1.17."""

import operator

from .. import _fovea
from .. import _interop
from ._support import normalize_sequence as _normalize_sequence

__all__ = ["fourier_gaussian", "fourier_uniform", "fourier_ellipsoid", "fourier_shift"]

_GAUSSIAN, _UNIFORM, _ELLIPSOID, _SHIFT = 0, 1, 2, 3


def _output(c, output, x, complex_only):
    np = _interop._np()
    if output is None:
        if complex_only:
            dt = x.dtype if x.dtype in (np.complex64, np.complex128) else np.complex128
        else:
            dt = x.dtype if x.dtype in (np.complex64, np.complex128, np.float32) else np.float64
        return c.empty(x.shape, dt)
    if type(output) is type:
        ok = (np.complex64, np.complex128) if complex_only else \
            (np.complex64, np.complex128, np.float32, np.float64)
        if output not in ok:
            raise RuntimeError("output type not supported")
        return c.empty(x.shape, output)
    out = c._user_output(output)
    if tuple(out.shape) != tuple(x.shape):
        raise RuntimeError("output shape not correct")
    return out


def _pairs(a):
    return a[..., None].view(a.real.dtype)


def _filter(name, kind, input, param, n, axis, output):
    np = _interop._np()
    c = _interop.Call(name, input)
    x = c.input
    if kind == _ELLIPSOID and x.ndim > 3:
        raise NotImplementedError("Only 1d, 2d and 3d inputs are supported")
    out = _output(c, output, x, kind == _SHIFT)
    if kind == _ELLIPSOID and out.size == 0:
        return c.result(out)
    axis = np.lib.array_utils.normalize_axis_index(operator.index(axis), x.ndim)
    params = [float(v) for v in _normalize_sequence(param, x.ndim)]
    in_c = np.dtype(x.dtype).kind == "c"
    out_dt = np.dtype(out.dtype)
    if np.dtype(x.dtype).name not in _interop.KERNEL_DTYPES and not in_c or \
            in_c and np.dtype(x.dtype) not in (np.complex64, np.complex128) or \
            out_dt not in (np.float32, np.float64, np.complex64, np.complex128) or \
            in_c and out_dt.kind != "c" or kind == _SHIFT and out_dt.kind != "c":
        raise RuntimeError("data type not supported")
    if out.size == 0:
        return c.result(out)
    out_c = out_dt.kind == "c"
    fi = _pairs(x) if in_c else x
    fo = _pairs(out) if out_c else out
    _fovea.fourier_filter(fi, in_c, fo, out_c, kind, params, int(n), axis, stream=c.stream)
    return c.result(out)


@_interop.public
def fourier_gaussian(input, sigma, n=-1, axis=-1, output=None):
    """Multidimensional Gaussian Fourier filter (scipy.ndimage.fourier_gaussian)."""
    return _filter("fourier_gaussian", _GAUSSIAN, input, sigma, n, axis, output)


@_interop.public
def fourier_uniform(input, size, n=-1, axis=-1, output=None):
    """Multidimensional uniform Fourier filter (scipy.ndimage.fourier_uniform)."""
    return _filter("fourier_uniform", _UNIFORM, input, size, n, axis, output)


@_interop.public
def fourier_ellipsoid(input, size, n=-1, axis=-1, output=None):
    """Multidimensional ellipsoid Fourier filter, 1-d to 3-d (scipy.ndimage.fourier_ellipsoid)."""
    return _filter("fourier_ellipsoid", _ELLIPSOID, input, size, n, axis, output)


@_interop.public
def fourier_shift(input, shift, n=-1, axis=-1, output=None):
    """Multidimensional Fourier shift filter (scipy.ndimage.fourier_shift); complex output."""
    return _filter("fourier_shift", _SHIFT, input, shift, n, axis, output)
