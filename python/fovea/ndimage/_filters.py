"""Filters with scipy.ndimage's signatures and results (scipy 1.17).

Each function follows scipy's own composition (which 1-D passes, in which order,
into which array) so that results, dtypes and rounding match; the passes run in
the C library (include/fovea/filters.h) on the data's device.
"""

import functools
import numbers
import operator
import sys
import warnings
from collections.abc import Iterable

import numpy as np

from .. import _fovea
from .. import _interop as ix
from . import _support as S
from .._interop import Call, public

__all__ = [
    "correlate1d",
    "convolve1d",
    "gaussian_filter1d",
    "gaussian_filter",
    "prewitt",
    "sobel",
    "generic_laplace",
    "laplace",
    "gaussian_laplace",
    "generic_gradient_magnitude",
    "gaussian_gradient_magnitude",
    "correlate",
    "convolve",
    "uniform_filter1d",
    "uniform_filter",
    "minimum_filter1d",
    "maximum_filter1d",
    "minimum_filter",
    "maximum_filter",
    "rank_filter",
    "median_filter",
    "percentile_filter",
]

_F1D_UNIFORM, _F1D_MINIMUM, _F1D_MAXIMUM = 0, 1, 2
_PASS_CORRELATE, _PASS_UNIFORM, _PASS_MINIMUM, _PASS_MAXIMUM = 0, 1, 2, 3   # fv_pass_kind


def _real_pair(x, output):
    return np.dtype(x.dtype).kind != "c" and np.dtype(output.dtype).kind != "c"


def _run_passes(c, x, output, passes):
    """scipy's chain of 1-D passes (each reads what the one before wrote into
    output) as one C call, fv_separable_filter, which keeps the intermediate
    results itself (no copy of output for the passes that read it; two passes
    may run as one fused kernel on the GPU) with the same bits as the passes
    called one by one. passes: (kind, axis, size, weights or None, mode, cval,
    origin), every argument already checked except the origins."""
    chain = []
    for kind, ax, size, w, md, cv, og in passes:
        ax = S.normalize_axis_index(ax, x.ndim)   # numpy's AxisError, as the 1-D functions raise
        if size // 2 + og < 0 or size // 2 + og >= size:
            raise ValueError("invalid origin")
        chain.append((kind, ax, int(size), w, S.mode_code(md), cv, og))
    c.run(_fovea.ndi_separable, x, output, tuple(chain))
    return output


def _complex_via_real_components(c, func, x, weights, output, cval, **kwargs):
    """scipy's complex support: the real filters applied to the real and imaginary
    parts (views) of input, weights and output."""
    c.need_xp()
    cx = np.dtype(x.dtype).kind == "c"
    cw = weights.dtype.kind == "c"
    if cx and cw:
        func(x.real, weights.real, output=output.real, cval=np.real(cval), **kwargs)
        output.real -= func(x.imag, weights.imag, output=None, cval=np.imag(cval), **kwargs)
        func(x.real, weights.imag, output=output.imag, cval=np.real(cval), **kwargs)
        output.imag += func(x.imag, weights.real, output=None, cval=np.imag(cval), **kwargs)
    elif cx:
        func(x.real, weights, output=output.real, cval=np.real(cval), **kwargs)
        func(x.imag, weights, output=output.imag, cval=np.imag(cval), **kwargs)
    else:
        if np.iscomplexobj(cval):
            raise ValueError("Cannot provide a complex-valued cval when the input is real.")
        func(x, weights.real, output=output.real, cval=cval, **kwargs)
        func(x, weights.imag, output=output.imag, cval=cval, **kwargs)
    return output


# ---- correlation and convolution -------------------------------------------------------


@public
def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """1-D correlation along `axis` (scipy.ndimage.correlate1d)."""
    c = Call("correlate1d", input)
    return c.result(_correlate1d(c, c.input, weights, axis, output, mode, cval, origin))


def _device_weights(c, x, weights):
    """Real CuPy weights on the GPU of real data, as the float64 array that correlate1d
    reads there (fv_correlate1d_array, any stride: never copied to the host, so the call
    does not wait for the GPU; convolve1d's reversed view is read as it is); None for
    any other weights."""
    if (c.device == "cpu" or ix.kind(weights) != "cupy" or c.xp is not sys.modules.get("cupy")
            or np.dtype(x.dtype).kind == "c" or weights.dtype.kind == "c"
            or "cuda:%d" % weights.device.id != c.device):
        return None
    if weights.dtype == np.float64 and weights.strides and weights.strides[0] % 8 == 0:
        return weights
    return weights.astype(c.xp.float64)


def _correlate1d(c, x, weights, axis, output, mode, cval, origin, reverse=False):
    """correlate1d; reverse: convolve1d's weights, read backwards (origin mirrored already)."""
    wd = _device_weights(c, x, weights)
    if wd is None:
        weights = ix.host(weights)
        if reverse:
            weights = weights[::-1]
            if weights.dtype.kind == "c":
                weights = weights.conj()   # undone below
            reverse = False
        if np.dtype(x.dtype).kind == "c" or weights.dtype.kind == "c":
            if weights.dtype.kind == "c":
                weights = weights.conj().astype(np.complex128, copy=False)
            output = c.get_output(output, x, complex_output=True)
            return _complex_via_real_components(
                c, correlate1d, x, weights, output, cval, axis=axis, mode=mode, origin=origin)
    output = c.get_output(output, x)
    weights = np.asarray(weights, dtype=np.float64) if wd is None else wd
    if weights.ndim != 1 or weights.shape[0] < 1:
        raise RuntimeError("no filter weights given")
    if wd is None:
        weights = np.ascontiguousarray(weights)
    axis = S.normalize_axis_index(axis, x.ndim)
    if S.invalid_origin(origin, len(weights)):
        raise ValueError("Invalid origin; origin must satisfy -(len(weights) // 2) <= origin <= "
                         "(len(weights)-1) // 2")
    mode = S.mode_code(mode)
    c.run(_fovea.ndi_correlate1d, x, output, weights, axis, mode, cval, origin, reverse=reverse)
    return output


@public
def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """1-D convolution along `axis` (scipy.ndimage.convolve1d)."""
    if ix.kind(weights) == "cupy" and weights.ndim == 1:
        # CuPy weights stay on the GPU, read backwards there (the host reverses others)
        origin = -origin
        if not weights.shape[0] & 1:
            origin -= 1
        c = Call("correlate1d", input)
        return c.result(_correlate1d(c, c.input, weights, axis, output, mode, cval, origin, reverse=True))
    weights = ix.host(weights)[::-1]
    origin = -origin
    if not weights.shape[0] & 1:
        origin -= 1
    if weights.dtype.kind == "c":
        weights = weights.conj()  # undone by correlate1d's conjugation
    return correlate1d(input, weights, axis, output, mode, cval, origin)


def _gaussian_kernel1d(sigma, order, radius):
    """The taps of a sampled Gaussian (or its order-th derivative) over
    [-radius, radius], normalised to sum 1, in scipy's arithmetic."""
    if order < 0:
        raise ValueError("order must be non-negative")
    powers = np.arange(order + 1)
    s2 = sigma * sigma
    x = np.arange(-radius, radius + 1)
    phi = np.exp(-0.5 / s2 * x ** 2)
    phi = phi / phi.sum()
    if order == 0:
        return phi
    # the derivative is q(x) * phi(x) with a polynomial q; d/dx maps the
    # coefficients of q by (D + P): D differentiates, P multiplies by -x / s2
    q = np.zeros(order + 1)
    q[0] = 1
    step = np.diag(powers[1:], 1) + np.diag(np.ones(order) / -s2, -1)
    for _ in range(order):
        q = step.dot(q)
    q = (x[:, None] ** powers).dot(q)
    return q * phi


@public
def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0,
                      truncate=4.0, *, radius=None):
    """1-D Gaussian filter (scipy.ndimage.gaussian_filter1d)."""
    return correlate1d(input, _gaussian_weights(sigma, order, truncate, radius), axis, output, mode, cval, 0)


def _gaussian_weights(sigma, order, truncate, radius):
    """gaussian_filter1d's correlation weights: the kernel over
    int(truncate * sigma + 0.5) taps each side (or radius), reversed."""
    lw = int(truncate * float(sigma) + 0.5)
    if radius is not None:
        lw = radius
    if not isinstance(lw, numbers.Integral) or lw < 0:
        raise ValueError("Radius must be a nonnegative integer.")
    if type(sigma) in (float, int) and type(order) is int and type(lw) is int:
        return _gaussian_weights_cached(sigma, order, lw)
    return _gaussian_kernel1d(sigma, order, lw)[::-1]


@functools.lru_cache(maxsize=64, typed=True)
def _gaussian_weights_cached(sigma, order, lw):
    """The same for Python numbers, computed once (a read-only contiguous array):
    the kernel's NumPy arithmetic costs tens of microseconds a call, as much as a
    small image's filter."""
    w = np.ascontiguousarray(_gaussian_kernel1d(sigma, order, lw)[::-1])
    w.setflags(write=False)
    return w


@public
def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *,
                    radius=None, axes=None):
    """Multidimensional Gaussian filter as 1-D passes (scipy.ndimage.gaussian_filter)."""
    c = Call("gaussian_filter", input)
    x = c.input
    output = c.get_output(output, x)
    axes = S.check_axes(axes, x.ndim)
    n = len(axes)
    orders = S.normalize_sequence(order, n)
    sigmas = S.normalize_sequence(sigma, n)
    modes = S.normalize_sequence(mode, n)
    radii = S.normalize_sequence(radius, n)
    passes = [(axes[i], sigmas[i], orders[i], modes[i], radii[i]) for i in range(n) if sigmas[i] > 1e-15]
    if passes and _real_pair(x, output):
        chain = []
        for ax, sg, od, md, rd in passes:
            w = np.ascontiguousarray(_gaussian_weights(sg, od, truncate, rd), dtype=np.float64)
            chain.append((_PASS_CORRELATE, ax, len(w), w, md, cval, 0))
        _run_passes(c, x, output, chain)
    elif passes:
        for ax, sg, od, md, rd in passes:
            gaussian_filter1d(x, sg, ax, od, output, md, cval, truncate, radius=rd)
            x = output
    else:
        c.assign(output, x)
    return c.result(output)


@public
def prewitt(input, axis=-1, output=None, mode="reflect", cval=0.0):
    """Prewitt filter (scipy.ndimage.prewitt)."""
    return _edge("prewitt", [1, 1, 1], input, axis, output, mode, cval)


@public
def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0):
    """Sobel filter (scipy.ndimage.sobel)."""
    return _edge("sobel", [1, 2, 1], input, axis, output, mode, cval)


def _edge(name, smooth, input, axis, output, mode, cval):
    c = Call(name, input)
    x = c.input
    axis = S.normalize_axis_index(axis, x.ndim)
    output = c.get_output(output, x)
    modes = S.normalize_sequence(mode, x.ndim)
    if _real_pair(x, output):
        d, sm = np.array([-1.0, 0.0, 1.0]), np.array(smooth, dtype=np.float64)
        chain = [(_PASS_CORRELATE, axis, 3, d, modes[axis], cval, 0)]
        chain += [(_PASS_CORRELATE, ax, 3, sm, modes[ax], cval, 0) for ax in range(x.ndim) if ax != axis]
        return c.result(_run_passes(c, x, output, chain))
    correlate1d(x, [-1, 0, 1], axis, output, modes[axis], cval, 0)
    for ax in range(x.ndim):
        if ax != axis:
            correlate1d(output, smooth, ax, output, modes[ax], cval, 0)
    return c.result(output)


@public
def generic_laplace(input, derivative2, output=None, mode="reflect", cval=0.0, extra_arguments=(),
                    extra_keywords=None, *, axes=None):
    """Laplace filter from a second-derivative callable (scipy.ndimage.generic_laplace).

    derivative2 is called as scipy calls it, with the working arrays: NumPy for
    host data, CuPy for GPU data."""
    c = Call("generic_laplace", input)
    return c.result(_generic_laplace(c, derivative2, output, mode, cval, extra_arguments, extra_keywords,
                                     axes))


def _generic_laplace(c, derivative2, output, mode, cval, extra_arguments, extra_keywords, axes):
    x = c.input
    output = c.get_output(output, x)
    axes = S.check_axes(axes, x.ndim)
    if len(axes) > 0:
        modes = S.normalize_sequence(mode, len(axes))
        _laplace_chain(c, derivative2, x, output, axes, modes, cval, extra_arguments, extra_keywords)
    else:
        c.assign(output, x)
    return output


def _laplace_chain(c, derivative2, x, output, axes, modes, cval, extra_arguments=(), extra_keywords=None):
    """scipy's generic_laplace chain: derivative2 along axes[0] into output, then
    each further derivative (in output's dtype) added with ``output += tmp``."""
    if extra_keywords is None:
        extra_keywords = {}
    derivative2(x, axes[0], output, modes[0], cval, *extra_arguments, **extra_keywords)
    if len(axes) > 1:
        c.need_xp()
    for i in range(1, len(axes)):
        tmp = derivative2(x, axes[i], np.dtype(output.dtype), modes[i], cval, *extra_arguments, **extra_keywords)
        output += tmp
    return output


def _byte_extent(a):
    """[lo, hi) addresses of a fovea.Array's elements, None when it is empty."""
    if 0 in tuple(a.shape):
        return None
    ai = a.__array_interface__ if a.device == "cpu" else a.__cuda_array_interface__
    lo = hi = int(ai["data"][0])
    for n, st in zip(a.shape, a.strides):
        span = (n - 1) * st
        if span < 0:
            lo += span
        else:
            hi += span
    return lo, hi + np.dtype(a.dtype).itemsize


def _shares_memory(c, a, b):
    """True when the working arrays a and b may share memory: NumPy's or CuPy's
    may_share_memory, or (fovea.Array working arrays: a GPU without CuPy) when
    their byte extents intersect."""
    if c.xp is not None:
        return _may_share(c.xp, a, b)
    ea, eb = _byte_extent(a), _byte_extent(b)
    return ea is not None and eb is not None and ea[0] < eb[1] and eb[0] < ea[1]


def _laplace_d2(x, axis, output, mode, cval):
    return correlate1d(x, [1, -2, 1], axis, output, mode, cval, 0)


@public
def laplace(input, output=None, mode="reflect", cval=0.0, *, axes=None):
    """Laplace filter from second differences (scipy.ndimage.laplace).

    One fused pass in C (fv_laplace: every output element computed once, each
    term rounded and stored as scipy's correlate1d stores it, the terms added in
    the output's dtype as scipy's ``output += tmp`` adds them: the same bits).
    Complex input, and an output sharing memory with the input over more than
    one axis (scipy's later terms then read the partly written output), run
    scipy's chain of correlate1d passes instead."""
    c = Call("laplace", input)
    x = c.input
    output = c.get_output(output, x)
    axes = S.check_axes(axes, x.ndim)
    if len(axes) == 0:
        c.assign(output, x)
        return c.result(output)
    modes = S.normalize_sequence(mode, len(axes))
    if np.dtype(x.dtype).kind == "c" or (len(axes) > 1 and _shares_memory(c, output, x)):
        return c.result(_laplace_chain(c, _laplace_d2, x, output, axes, modes, cval))
    # correlate1d's checks, in its order: the axis (numpy's AxisError for a scalar axis out
    # of range, which check_axes lets through as scipy does), then the mode
    axes = tuple(S.normalize_axis_index(ax, x.ndim) for ax in axes)
    codes = tuple(S.mode_code(m) for m in modes)
    c.run(_fovea.ndi_laplace, x, output, axes, codes, cval)
    return c.result(output)


@public
def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, *, axes=None, **kwargs):
    """Laplace filter with Gaussian second derivatives (scipy.ndimage.gaussian_laplace)."""
    c = Call("gaussian_laplace", input)
    x = c.input

    def derivative2(x, axis, output, mode, cval, sigma, **kwargs):
        order = [0] * x.ndim
        order[axis] = 2
        return gaussian_filter(x, sigma, order, output, mode, cval, **kwargs)

    axes = S.check_axes(axes, x.ndim)
    n = len(axes)
    sigma = S.normalize_sequence(sigma, n)
    if n < x.ndim:
        full = [0] * x.ndim
        for s, ax in zip(sigma, axes):
            full[ax] = s
        sigma = full
    return c.result(_generic_laplace(c, derivative2, output, mode, cval, (sigma,), kwargs, axes))


@public
def generic_gradient_magnitude(input, derivative, output=None, mode="reflect", cval=0.0,
                               extra_arguments=(), extra_keywords=None, *, axes=None):
    """Gradient magnitude from a first-derivative callable
    (scipy.ndimage.generic_gradient_magnitude); derivative gets the working arrays
    (NumPy on the host, CuPy on a GPU)."""
    c = Call("generic_gradient_magnitude", input)
    return c.result(_generic_gradient_magnitude(c, derivative, output, mode, cval, extra_arguments,
                                                extra_keywords, axes))


def _may_share(xp, a, b):
    return isinstance(a, xp.ndarray) and isinstance(b, xp.ndarray) and bool(xp.may_share_memory(a, b))


def _gradient_parts(c, xp, derivative, output, modes, cval, extra_arguments, extra_keywords, axes):
    """The per-axis derivatives, output holding the first: scipy's chain squares
    each as it comes; deferring that to one fused pass gives the same values as
    long as no derivative writes over an earlier one. None when one did (a
    derivative that returns one scratch buffer each time): the caller reruns
    scipy's chain."""
    x = c.input
    derivative(x, axes[0], output, modes[0], cval, *extra_arguments, **extra_keywords)
    parts = [output]
    for i in range(1, len(axes)):
        tmp = derivative(x, axes[i], np.dtype(output.dtype), modes[i], cval, *extra_arguments, **extra_keywords)
        if any(_may_share(xp, tmp, p) for p in (x, *parts)):
            return None
        parts.append(tmp)
    return parts


def _generic_gradient_magnitude(c, derivative, output, mode, cval, extra_arguments, extra_keywords, axes):
    """scipy's chain (derivative along axes[0] into output, squared; each further
    derivative squared and added in order; sqrt in place). For float32 / float64
    outputs the squares, sums and sqrt run as one pass over the derivatives
    (fovea._fovea.gradient_norm), rounded step by step as NumPy's chain: the same
    bits. Other outputs keep the chain and its casting rules."""
    if extra_keywords is None:
        extra_keywords = {}
    x = c.input
    output = c.get_output(output, x)
    axes = S.check_axes(axes, x.ndim)
    if len(axes) > 0:
        xp = c.need_xp()
        modes = S.normalize_sequence(mode, len(axes))
        dt = np.dtype(output.dtype)
        if (dt in (np.float32, np.float64) and len(axes) <= 8 and isinstance(output, xp.ndarray)
                and not _may_share(xp, output, x)):
            parts = _gradient_parts(c, xp, derivative, output, modes, cval, extra_arguments, extra_keywords, axes)
            if parts is not None:
                if all(isinstance(p, xp.ndarray) and p.dtype == dt and p.shape == output.shape for p in parts):
                    _fovea.gradient_norm(parts, output, stream=c.stream)
                else:   # a derivative returned another dtype or shape: scipy's casts
                    xp.multiply(output, output, output)
                    for tmp in parts[1:]:
                        xp.multiply(tmp, tmp, tmp)
                        output += tmp
                    xp.sqrt(output, output, casting="unsafe")
                return output
        derivative(x, axes[0], output, modes[0], cval, *extra_arguments, **extra_keywords)
        xp.multiply(output, output, output)
        for i in range(1, len(axes)):
            tmp = derivative(x, axes[i], np.dtype(output.dtype), modes[i], cval, *extra_arguments,
                             **extra_keywords)
            xp.multiply(tmp, tmp, tmp)
            output += tmp
        xp.sqrt(output, output, casting="unsafe")
    else:
        c.assign(output, x)
    return output


@public
def gaussian_gradient_magnitude(input, sigma, output=None, mode="reflect", cval=0.0, *, axes=None,
                                **kwargs):
    """Gradient magnitude with Gaussian derivatives (scipy.ndimage.gaussian_gradient_magnitude)."""
    c = Call("gaussian_gradient_magnitude", input)

    def derivative(x, axis, output, mode, cval, sigma, **kwargs):
        order = [0] * x.ndim
        order[axis] = 1
        return gaussian_filter(x, sigma, order, output, mode, cval, **kwargs)

    return c.result(_generic_gradient_magnitude(c, derivative, output, mode, cval, (sigma,), kwargs, axes))


def _correlate_or_convolve(name, input, weights, output, mode, cval, origin, convolution, axes):
    c = Call(name, input)
    return c.result(_correlate_nd(c, weights, output, mode, cval, origin, convolution, axes))


def _correlate_nd(c, weights, output, mode, cval, origin, convolution, axes):
    x = c.input
    weights = ix.host(weights)
    if np.dtype(x.dtype).kind == "c" or weights.dtype.kind == "c":
        if weights.dtype.kind == "c" and not convolution:
            weights = weights.conj()  # as np.correlate: conjugate the weights
        output = c.get_output(output, x, complex_output=True)
        func = convolve if convolution else correlate
        return _complex_via_real_components(c, func, x, weights, output, cval, mode=mode, origin=origin,
                                            axes=axes)
    axes = S.check_axes(axes, x.ndim)
    weights = np.asarray(weights, dtype=np.float64)
    weights = S.expand_footprint(x.ndim, axes, weights, "weights")
    origins = S.expand_origin(x.ndim, axes, origin)
    wshape = [n for n in weights.shape if n > 0]
    if len(wshape) != x.ndim:
        raise RuntimeError(f"weights.ndim ({len(wshape)}) must match len(axes) ({len(axes)})")
    if convolution:
        weights = weights[(slice(None, None, -1),) * weights.ndim]
        for i in range(len(origins)):
            origins[i] = -origins[i]
            if not weights.shape[i] & 1:
                origins[i] -= 1
    for o, n in zip(origins, wshape):
        if S.invalid_origin(o, n):
            raise ValueError("Invalid origin; origin must satisfy -(weights.shape[k] // 2) <= origin[k] <= "
                             "(weights.shape[k]-1) // 2")
    weights = np.ascontiguousarray(weights)
    output = c.get_output(output, x)
    if not isinstance(mode, str) and isinstance(mode, Iterable):
        raise RuntimeError("A sequence of modes is not supported")
    mode = S.mode_code(mode)
    c.run(_fovea.ndi_correlate, x, output, weights, mode, cval, tuple(origins))
    return output


@public
def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    """Multidimensional correlation (scipy.ndimage.correlate)."""
    return _correlate_or_convolve("correlate", input, weights, output, mode, cval, origin, False, axes)


@public
def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    """Multidimensional convolution (scipy.ndimage.convolve)."""
    return _correlate_or_convolve("convolve", input, weights, output, mode, cval, origin, True, axes)


# ---- uniform, minimum and maximum --------------------------------------------------------


@public
def uniform_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """1-D running mean (scipy.ndimage.uniform_filter1d)."""
    c = Call("uniform_filter1d", input)
    x = c.input
    axis = S.normalize_axis_index(axis, x.ndim)
    if size < 1:
        raise RuntimeError("incorrect filter size")
    cplx = np.dtype(x.dtype).kind == "c"
    output = c.get_output(output, x, complex_output=cplx)
    if size // 2 + origin < 0 or size // 2 + origin >= size:
        raise ValueError("invalid origin")
    mode = S.mode_code(mode)
    if not cplx:
        c.run(_fovea.ndi_filter1d, x, output, _F1D_UNIFORM, size, axis, mode, cval, origin)
    else:
        c.need_xp()
        c.run(_fovea.ndi_filter1d, x.real, output.real, _F1D_UNIFORM, size, axis, mode, np.real(cval), origin)
        c.run(_fovea.ndi_filter1d, x.imag, output.imag, _F1D_UNIFORM, size, axis, mode, np.imag(cval), origin)
    return c.result(output)


def _footprint_origins(x, axes, footprint, origin):
    """footprint and origin over all of x's axes (scipy's checks: one footprint
    dimension per axis, each origin inside its extent)."""
    footprint = S.expand_footprint(x.ndim, axes, footprint)
    origins = S.expand_origin(x.ndim, axes, origin)
    fshape = [k for k in footprint.shape if k > 0]
    if len(fshape) != x.ndim:
        raise RuntimeError(f"footprint.ndim ({footprint.ndim}) must match len(axes) ({len(axes)})")
    for o, k in zip(origins, fshape):
        if k // 2 + o < 0 or k // 2 + o >= k:
            raise ValueError("invalid origin")
    return footprint, origins


def _size_passes(c, x, output, axes, size, origin, mode, cval, kind, filter1d):
    """A filter by size along axes, separable: the 1-D passes (kind) in one fused run
    when the arrays allow it, else filter1d along each axis in turn; axes of size 1
    are skipped. The result (output) through c."""
    n = len(axes)
    sizes = S.normalize_sequence(size, n)
    origins = S.normalize_sequence(origin, n)
    modes = S.normalize_sequence(mode, n)
    passes = [(axes[i], sizes[i], origins[i], modes[i]) for i in range(n) if sizes[i] > 1]
    if passes and _real_pair(x, output):
        _run_passes(c, x, output, [(kind, ax, int(sz), None, md, cval, og) for ax, sz, og, md in passes])
    elif passes:
        for ax, sz, og, md in passes:
            filter1d(x, int(sz), ax, output, md, cval, og)
            x = output
    else:
        c.assign(output, x)
    return c.result(output)


@public
def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    """Multidimensional running mean as 1-D passes (scipy.ndimage.uniform_filter)."""
    c = Call("uniform_filter", input)
    x = c.input
    output = c.get_output(output, x, complex_output=np.dtype(x.dtype).kind == "c")
    axes = S.check_axes(axes, x.ndim)
    return _size_passes(c, x, output, axes, size, origin, mode, cval, _PASS_UNIFORM, uniform_filter1d)


def _min_or_max_1d(name, kind, input, size, axis, output, mode, cval, origin):
    c = Call(name, input)
    x = c.input
    S.check_real(x)
    axis = S.normalize_axis_index(axis, x.ndim)
    if size < 1:
        raise RuntimeError("incorrect filter size")
    output = c.get_output(output, x)
    if size // 2 + origin < 0 or size // 2 + origin >= size:
        raise ValueError("invalid origin")
    mode = S.mode_code(mode)
    c.run(_fovea.ndi_filter1d, x, output, kind, size, axis, mode, cval, origin)
    return c.result(output)


@public
def minimum_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """1-D minimum filter (scipy.ndimage.minimum_filter1d)."""
    return _min_or_max_1d("minimum_filter1d", _F1D_MINIMUM, input, size, axis, output, mode, cval, origin)


@public
def maximum_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """1-D maximum filter (scipy.ndimage.maximum_filter1d)."""
    return _min_or_max_1d("maximum_filter1d", _F1D_MAXIMUM, input, size, axis, output, mode, cval, origin)


def _min_or_max_filter(name, input, size, footprint, structure, output, mode, cval, origin, minimum,
                       axes=None, stacklevel=3):
    """scipy's _min_or_max_filter: separable 1-D passes for a size or an all-true
    footprint, else the n-D filter over footprint (and structure, for grey morphology)."""
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=stacklevel)
    if structure is None:
        if footprint is None:
            if size is None:
                raise RuntimeError("no footprint provided")
            separable = True
        else:
            footprint = ix.host(footprint, bool)
            if not footprint.any():
                raise ValueError("All-zero footprint is not supported.")
            if footprint.all():
                size = footprint.shape
                footprint = None
                separable = True
            else:
                separable = False
    else:
        structure = ix.host(structure, np.float64)
        separable = False
        if footprint is None:
            footprint = np.ones(structure.shape, bool)
        else:
            footprint = ix.host(footprint, bool)
    c = Call(name, input)
    x = c.input
    S.check_real(x)
    output = c.get_output(output, x)
    axes = S.check_axes(axes, x.ndim)
    n = len(axes)
    if separable:
        return _size_passes(c, x, output, axes, size, origin, mode, cval,
                            _PASS_MINIMUM if minimum else _PASS_MAXIMUM,
                            minimum_filter1d if minimum else maximum_filter1d)
    footprint, origins = _footprint_origins(x, axes, footprint, origin)
    if structure is not None:
        if len(structure.shape) != n:
            raise RuntimeError("structure array has incorrect shape")
        structure = np.ascontiguousarray(structure.reshape(footprint.shape))
    if not isinstance(mode, str) and isinstance(mode, Iterable):
        raise RuntimeError("A sequence of modes is not supported for non-separable footprints")
    mode = S.mode_code(mode)
    c.run(_fovea.ndi_min_or_max_filter, x, output, np.ascontiguousarray(footprint, dtype=np.uint8), structure,
          mode, cval, tuple(origins), bool(minimum))
    return c.result(output)


@public
def minimum_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0, *,
                   axes=None):
    """Multidimensional minimum filter (scipy.ndimage.minimum_filter)."""
    return _min_or_max_filter("minimum_filter", input, size, footprint, None, output, mode, cval, origin, 1,
                              axes)


@public
def maximum_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0, *,
                   axes=None):
    """Multidimensional maximum filter (scipy.ndimage.maximum_filter)."""
    return _min_or_max_filter("maximum_filter", input, size, footprint, None, output, mode, cval, origin, 0,
                              axes)


# ---- rank filters ------------------------------------------------------------------------


def _rank_filter(name, input, rank, size, footprint, output, mode, cval, origin, operation, axes):
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=3)
    c = Call(name, input)
    x = c.input
    S.check_real(x)
    axes = S.check_axes(axes, x.ndim)
    n = len(axes)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint or filter size provided")
        footprint = np.ones(S.normalize_sequence(size, n), dtype=bool)
    else:
        footprint = ix.host(footprint, bool)
    mode = S.expand_mode(x.ndim, axes, mode)
    footprint, origins = _footprint_origins(x, axes, footprint, origin)
    count = int(np.count_nonzero(footprint))
    if operation == "median":
        rank = count // 2
    elif operation == "percentile":
        percentile = rank
        if percentile < 0.0:
            percentile += 100.0
        if percentile < 0 or percentile > 100:
            raise RuntimeError("invalid percentile")
        if percentile == 100.0:
            rank = count - 1
        else:
            rank = int(float(count) * percentile / 100.0)
    if rank < 0:
        rank += count
    if rank < 0 or rank >= count:
        raise RuntimeError("rank not within filter footprint size")
    if rank == 0:
        return c.result(minimum_filter(x, None, footprint, c.pass_output(output), mode, cval, origins, axes=None))
    if rank == count - 1:
        return c.result(maximum_filter(x, None, footprint, c.pass_output(output), mode, cval, origins, axes=None))
    output = c.get_output(output, x)
    if not isinstance(mode, str) and isinstance(mode, Iterable):
        raise RuntimeError("A sequence of modes is not supported by non-separable rank filters")
    mode = S.mode_code(mode)
    if x.ndim == 1 and (x.size - ((footprint.size - 1) // 2 - origins[-1]) >= 0 or x.size == 1):
        # scipy 1.17 sends these 1-D cases to its fast 1-D rank filter, which takes only
        # footprint.size: the window is footprint.size taps, holes in the footprint ignored
        footprint = np.ones(footprint.size, bool)
        dt = np.dtype(x.dtype)
        # float16 it also takes, through float32; other integers than int64 through
        # int64, with cval cast to int64 (not to the input type as the n-d filter
        # does: a cval outside the type's range stays as it is)
        wide = np.float32 if dt == np.float16 else None
        if dt.kind in "biu" and dt != np.int64 and mode == S.mode_code("constant"):
            wide, cval = np.int64, float(np.int64(cval))
        if wide is not None:
            tmp = c.empty(x.shape, wide)
            c.run(_fovea.ndi_rank_filter, c.need_xp().asarray(x).astype(wide), tmp,
                  np.ones(footprint.size, np.uint8), rank, mode, cval, tuple(origins))
            c.assign(output, tmp)
            return c.result(output)
    c.run(_fovea.ndi_rank_filter, x, output, np.ascontiguousarray(footprint, dtype=np.uint8), rank, mode, cval,
          tuple(origins))
    return c.result(output)


@public
def rank_filter(input, rank, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0, *,
                axes=None):
    """Multidimensional rank filter (scipy.ndimage.rank_filter)."""
    rank = operator.index(rank)
    return _rank_filter("rank_filter", input, rank, size, footprint, output, mode, cval, origin, "rank", axes)


@public
def median_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0, *,
                  axes=None):
    """Multidimensional median filter (scipy.ndimage.median_filter)."""
    return _rank_filter("median_filter", input, 0, size, footprint, output, mode, cval, origin, "median", axes)


@public
def percentile_filter(input, percentile, size=None, footprint=None, output=None, mode="reflect", cval=0.0,
                      origin=0, *, axes=None):
    """Multidimensional percentile filter (scipy.ndimage.percentile_filter)."""
    return _rank_filter("percentile_filter", input, percentile, size, footprint, output, mode, cval, origin,
                        "percentile", axes)
