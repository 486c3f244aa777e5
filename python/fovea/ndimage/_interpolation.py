"""Interpolation with scipy.ndimage's signatures and results (scipy 1.17).

Each function follows scipy's Python layer (argument checks, output rules,
complex data as real and imaginary parts, the prefilter's padding); the work
runs in the C library (include/fovea/interpolation.h: the prefilter and the
interpolation) on the data's device. docs/transform.md.
"""

import itertools
import math
import numbers
import warnings

import numpy as np

from .. import _fovea
from .. import _interop as ix
from . import _support as S
from .._interop import Call, public

__all__ = [
    "spline_filter1d",
    "spline_filter",
    "geometric_transform",
    "map_coordinates",
    "affine_transform",
    "shift",
    "zoom",
    "rotate",
]

# scipy's interpolation mode codes (fv_interp_mode)
_MODES = {
    "nearest": 0,
    "wrap": 1,
    "reflect": 2,
    "grid-mirror": 2,
    "mirror": 3,
    "constant": 4,
    "grid-wrap": 5,
    "grid-constant": 6,
}


def _mode_code(mode):
    if isinstance(mode, str) and mode in _MODES:
        return _MODES[mode]
    raise RuntimeError("boundary mode not supported")


def _check_order(order):
    if order < 0 or order > 5:
        raise RuntimeError("spline order not supported")


def _is_complex(a):
    return np.dtype(a.dtype).kind == "c"


def _source(c, x, output):
    """x, or a copy of it when output shares memory with it (scipy works from a copy then)."""
    xp = c.xp
    if xp is not None and output is not None and xp.may_share_memory(x, output):
        return x.copy()
    return x


def _run_into(c, fn, x, output, *args, **kw):
    """c.run(fn, x, output, ...); a byte-swapped output is written through a native
    temporary (scipy writes such outputs too)."""
    dt = np.dtype(output.dtype)
    if dt.isnative:
        c.run(fn, x, output, *args, **kw)
        return output
    tmp = c.empty(output.shape, dt.newbyteorder("="))
    c.run(fn, x, tmp, *args, **kw)
    output[...] = tmp
    return output


def _interpolate(c, x, output, order, mode, cval, prefilter, **kw):
    mode = _mode_code(mode)
    x = _source(c, x, output)
    return _run_into(c, _fovea.ndi_interpolate, x, output, int(order), mode, cval, bool(prefilter), **kw)


# ---- the prefilter ------------------------------------------------------------------------


@public
def spline_filter1d(input, order=3, axis=-1, output=np.float64, mode="mirror"):
    """1-D B-spline prefilter along `axis` (scipy.ndimage.spline_filter1d)."""
    _check_order(order)
    c = Call("spline_filter1d", input)
    return c.result(_spline_filter1d(c, c.input, order, axis, output, mode))


def _spline_filter1d(c, x, order, axis, output, mode):
    cx = _is_complex(x)
    output = c.get_output(output, x, complex_output=cx)
    if cx:
        _spline_filter1d(c, x.real, order, axis, output.real, mode)
        _spline_filter1d(c, x.imag, order, axis, output.imag, mode)
        return output
    if order in (0, 1):
        c.assign(output, x)
    else:
        mode = _mode_code(mode)
        axis = S.normalize_axis_index(axis, x.ndim)
        _run_into(c, _fovea.ndi_spline_filter1d, x, output, int(order), axis, mode)
    return output


@public
def spline_filter(input, order=3, output=np.float64, mode="mirror"):
    """Multidimensional B-spline prefilter (scipy.ndimage.spline_filter)."""
    if order < 2 or order > 5:
        raise RuntimeError("spline order not supported")
    c = Call("spline_filter", input)
    return c.result(_spline_filter(c, c.input, order, output, mode))


def _spline_filter(c, x, order, output, mode):
    cx = _is_complex(x)
    output = c.get_output(output, x, complex_output=cx)
    if cx:
        _spline_filter(c, x.real, order, output.real, mode)
        _spline_filter(c, x.imag, order, output.imag, mode)
        return output
    if x.ndim > 0:
        for axis in range(x.ndim):
            _spline_filter1d(c, x, order, axis, output, mode)
            x = output
    else:
        c.assign(output, x)
    return output


# ---- map_coordinates, geometric_transform ----------------------------------------------------


def _coordinates(c, coordinates):
    """The coordinate array as a working array on the input's device (lists and
    scalars are plain data: made there)."""
    k = ix.kind(coordinates)
    if k in ("list", "scalar"):
        a = np.asarray(coordinates)
        if c.device != "cpu":
            xp = c.need_xp()
            with xp.cuda.Device(int(c.device.partition(":")[2] or 0)):
                a = xp.asarray(a)
        return a
    return c.view(coordinates, "coordinates")


@public
def map_coordinates(input, coordinates, output=None, order=3, mode="constant", cval=0.0, prefilter=True):
    """The input's spline at the given coordinates (scipy.ndimage.map_coordinates)."""
    _check_order(order)
    c = Call("map_coordinates", input)
    coords = _coordinates(c, coordinates)
    return c.result(_map_coordinates(c, c.input, coords, output, order, mode, cval, prefilter))


def _map_coordinates(c, x, coords, output, order, mode, cval, prefilter):
    if _is_complex(coords):
        raise TypeError("Complex type not supported")
    output_shape = tuple(coords.shape[1:])
    if x.ndim < 1 or len(output_shape) < 1:
        raise RuntimeError("input and output rank must be > 0")
    if coords.shape[0] != x.ndim:
        raise RuntimeError("invalid shape for coordinate array")
    cx = _is_complex(x)
    output = c.get_output(output, x, shape=output_shape, complex_output=cx)
    if cx:
        _map_coordinates(c, x.real, coords, output.real, order, mode, np.real(cval), prefilter)
        _map_coordinates(c, x.imag, coords, output.imag, order, mode, np.imag(cval), prefilter)
        return output
    if not ix.kernel_dtype_ok(coords):
        raise RuntimeError("coordinate array data type not supported")
    if c.xp is not None and c.xp.may_share_memory(coords, output):
        coords = coords.copy()
    return _interpolate(c, x, output, order, mode, cval, prefilter, coordinates=coords)


@public
def geometric_transform(input, mapping, output_shape=None, output=None, order=3, mode="constant", cval=0.0,
                        prefilter=True, extra_arguments=(), extra_keywords=None):
    """Interpolation at coordinates given by a Python mapping of the output
    coordinates (scipy.ndimage.geometric_transform). Host data only: the mapping
    is called once per output element, in C order; on GPU data compute the
    coordinates as an array and use map_coordinates."""
    if extra_keywords is None:
        extra_keywords = {}
    _check_order(order)
    c = Call("geometric_transform", input)
    if c.device != "cpu":
        raise TypeError(
            "fovea.ndimage.geometric_transform: a Python mapping cannot run on GPU data "
            f"({c.device}); compute the coordinates as an array on the device and call "
            "fovea.ndimage.map_coordinates(input, coordinates, ...) instead")
    x = c.input
    if output_shape is None:
        output_shape = x.shape
    output_shape = tuple(output_shape)
    if x.ndim < 1 or len(output_shape) < 1:
        raise RuntimeError("input and output rank must be > 0")
    if not callable(mapping):
        raise TypeError("fovea.ndimage.geometric_transform: mapping must be a Python callable "
                        "(LowLevelCallable mappings are not supported)")
    if not isinstance(extra_arguments, tuple):
        raise RuntimeError("extra_arguments must be a tuple")
    if not isinstance(extra_keywords, dict):
        raise RuntimeError("extra_keywords must be a dictionary")
    cx = _is_complex(x)
    output = c.get_output(output, x, shape=output_shape, complex_output=cx)
    coords = _mapped_coordinates(mapping, output_shape, x.ndim, extra_arguments, extra_keywords)
    if cx:
        _map_coordinates(c, x.real, coords, output.real, order, mode, np.real(cval), prefilter)
        _map_coordinates(c, x.imag, coords, output.imag, order, mode, np.imag(cval), prefilter)
        return c.result(output)
    _mode_code(mode)
    return c.result(_interpolate(c, x, output, order, mode, cval, prefilter, coordinates=coords))


def _mapped_coordinates(mapping, output_shape, irank, args, kwargs):
    """mapping(index, *args, **kwargs) for every output index (C order) as a
    float64 array (irank, *output_shape), read as scipy's C code reads the
    returned tuple."""
    coords = np.empty((irank,) + tuple(output_shape), dtype=np.float64)
    flat = coords.reshape(irank, -1)
    for i, idx in enumerate(itertools.product(*[range(int(n)) for n in output_shape])):
        r = mapping(idx, *args, **kwargs)
        if not isinstance(r, tuple) or len(r) < irank:
            # scipy reads the items with PyTuple_GetItem: anything else ends as this TypeError
            raise TypeError("bad argument type for built-in operation")
        for d in range(irank):
            flat[d, i] = _as_double(r[d])
    return coords


def _as_double(v):
    if isinstance(v, float):
        return v
    try:
        return float(v.__float__()) if not isinstance(v, numbers.Integral) else float(v)
    except AttributeError:
        raise TypeError(f"must be real number, not {type(v).__name__}") from None


# ---- affine_transform, shift, zoom, rotate ----------------------------------------------------


@public
def affine_transform(input, matrix, offset=0.0, output_shape=None, output=None, order=3, mode="constant",
                     cval=0.0, prefilter=True):
    """Affine transform by a matrix and offset (scipy.ndimage.affine_transform):
    the output element at o takes the input's spline at matrix @ o + offset."""
    _check_order(order)
    c = Call("affine_transform", input)
    return c.result(_affine_transform(c, c.input, matrix, offset, output_shape, output, order, mode, cval,
                                      prefilter))


def _affine_transform(c, x, matrix, offset, output_shape, output, order, mode, cval, prefilter):
    if output_shape is None:
        output_shape = output.shape if ix.is_array(output) else x.shape
    output_shape = tuple(output_shape)
    if x.ndim < 1 or len(output_shape) < 1:
        raise RuntimeError("input and output rank must be > 0")
    cx = _is_complex(x)
    output = c.get_output(output, x, shape=output_shape, complex_output=cx)
    if cx:
        for part, cv in ((lambda a: a.real, np.real(cval)), (lambda a: a.imag, np.imag(cval))):
            _affine_transform(c, part(x), matrix, offset, output_shape, part(output), order, mode, cv,
                              prefilter)
        return output
    if prefilter and order > 1:
        _mode_code(mode)   # scipy's prefilter raises for an unknown mode before the matrix checks
    mode_ok = _mode_code(mode)
    del mode_ok
    matrix = ix.host(matrix, np.float64)
    if matrix.ndim not in (1, 2) or matrix.shape[0] < 1:
        raise RuntimeError("no proper affine matrix provided")
    if (matrix.ndim == 2 and matrix.shape[1] == x.ndim + 1 and matrix.shape[0] in (x.ndim, x.ndim + 1)):
        if matrix.shape[0] == x.ndim + 1:
            exptd = [0] * x.ndim + [1]
            if not np.all(matrix[x.ndim] == exptd):
                raise ValueError(f"Expected homogeneous transformation matrix with shape {matrix.shape} for "
                                 f"image shape {x.shape}, but bottom row was not equal to {exptd}")
        offset = matrix[:x.ndim, x.ndim]
        matrix = matrix[:x.ndim, :x.ndim]
    if matrix.shape[0] != x.ndim:
        raise RuntimeError("affine matrix has wrong number of rows")
    if matrix.ndim == 2 and matrix.shape[1] != output.ndim:
        raise RuntimeError("affine matrix has wrong number of columns")
    offset = S.normalize_sequence(ix.host(offset) if ix.kind(offset) not in ("scalar", "list") else offset,
                                  x.ndim)
    offset = np.asarray(offset, dtype=np.float64)
    if offset.ndim != 1 or offset.shape[0] < 1:
        raise RuntimeError("no proper offset provided")
    if matrix.ndim == 1:
        return _interpolate(c, x, output, order, mode, cval, prefilter, zoom=matrix.tolist(),
                            shift=(offset / matrix).tolist())
    return _interpolate(c, x, output, order, mode, cval, prefilter, matrix=matrix.ravel().tolist(),
                        offset=offset.tolist())


@public
def shift(input, shift, output=None, order=3, mode="constant", cval=0.0, prefilter=True):
    """Shift by spline interpolation (scipy.ndimage.shift): output[o] = input's
    spline at o - shift."""
    _check_order(order)
    c = Call("shift", input)
    return c.result(_shift(c, c.input, shift, output, order, mode, cval, prefilter))


def _shift(c, x, shift, output, order, mode, cval, prefilter):
    if x.ndim < 1:
        raise RuntimeError("input and output rank must be > 0")
    cx = _is_complex(x)
    output = c.get_output(output, x, complex_output=cx)
    if cx:
        _shift(c, x.real, shift, output.real, order, mode, np.real(cval), prefilter)
        _shift(c, x.imag, shift, output.imag, order, mode, np.imag(cval), prefilter)
        return output
    _mode_code(mode)
    if ix.kind(shift) not in ("scalar", "list"):
        shift = ix.host(shift)
        if shift.ndim == 0:
            shift = shift.item()
    shift = S.normalize_sequence(shift, x.ndim)
    shift = [float(-s) for s in shift]
    return _interpolate(c, x, output, order, mode, cval, prefilter, shift=shift)


@public
def zoom(input, zoom, output=None, order=3, mode="constant", cval=0.0, prefilter=True, *, grid_mode=False):
    """Zoom by spline interpolation (scipy.ndimage.zoom); output shape
    round(input.shape * zoom)."""
    _check_order(order)
    c = Call("zoom", input)
    return c.result(_zoom(c, c.input, zoom, output, order, mode, cval, prefilter, grid_mode))


def _zoom(c, x, zoom, output, order, mode, cval, prefilter, grid_mode):
    if x.ndim < 1:
        raise RuntimeError("input and output rank must be > 0")
    if ix.kind(zoom) not in ("scalar", "list"):
        zoom = ix.host(zoom)
        if zoom.ndim == 0:
            zoom = zoom.item()
    zoom = S.normalize_sequence(zoom, x.ndim)
    output_shape = tuple(int(round(ii * jj)) for ii, jj in zip(x.shape, zoom))
    cx = _is_complex(x)
    output = c.get_output(output, x, shape=output_shape, complex_output=cx)
    if all(z == 1 for z in zoom) and prefilter:   # scipy's early exit: a copy
        c.assign(output, x)
        return output
    if cx:
        _zoom(c, x.real, zoom, output.real, order, mode, np.real(cval), prefilter, grid_mode)
        _zoom(c, x.imag, zoom, output.imag, order, mode, np.imag(cval), prefilter, grid_mode)
        return output
    if prefilter and order > 1:
        _mode_code(mode)
    if grid_mode:
        suggest = {"constant": "grid-constant", "wrap": "grid-wrap"}.get(mode) if isinstance(mode, str) else None
        if suggest is not None:
            warnings.warn(f"It is recommended to use mode = {suggest} instead of {mode} when grid_mode is True.",
                          stacklevel=4)
    _mode_code(mode)
    zoom_div = np.array(output_shape)
    zoom_nominator = np.array(x.shape)
    if not grid_mode:
        zoom_div -= 1
        zoom_nominator -= 1
    factors = np.divide(zoom_nominator, zoom_div, out=np.ones_like(x.shape, dtype=np.float64),
                        where=zoom_div != 0)
    return _interpolate(c, x, output, order, mode, cval, prefilter, zoom=factors.tolist(),
                        grid_mode=bool(grid_mode))


def _cos_sin_deg(angle):
    """cos and sin of an angle in degrees, as scipy.special.cosdg / sindg (exact at
    multiples of 90 degrees); scipy.special's own when scipy is installed."""
    try:
        from scipy import special
    except ImportError:  # pragma: no cover - scipy is there in the tests
        special = None
    if special is not None:
        return special.cosdg(angle), special.sindg(angle)
    a = math.fmod(float(angle), 360.0)
    if a % 90 == 0:
        k = int(a // 90) % 4
        return (1.0, 0.0, -1.0, 0.0)[k], (0.0, 1.0, 0.0, -1.0)[k]
    r = math.radians(a)
    return math.cos(r), math.sin(r)


@public
def rotate(input, angle, axes=(1, 0), reshape=True, output=None, order=3, mode="constant", cval=0.0,
           prefilter=True):
    """Rotation by `angle` degrees in the plane of `axes` (scipy.ndimage.rotate)."""
    c = Call("rotate", input)
    x = c.input
    ndim = x.ndim
    if ndim < 2:
        raise ValueError("input array should be at least 2D")
    axes = list(axes)
    if len(axes) != 2:
        raise ValueError("axes should contain exactly two values")
    if not all([float(ax).is_integer() for ax in axes]):
        raise ValueError("axes should contain only integer values")
    if axes[0] < 0:
        axes[0] += ndim
    if axes[1] < 0:
        axes[1] += ndim
    if axes[0] < 0 or axes[1] < 0 or axes[0] >= ndim or axes[1] >= ndim:
        raise ValueError("invalid rotation plane specified")
    axes.sort()
    cs, sn = _cos_sin_deg(angle)
    rot_matrix = np.array([[cs, sn], [-sn, cs]])
    img_shape = np.asarray(x.shape)
    in_plane_shape = img_shape[axes]
    if reshape:
        iy, ixx = in_plane_shape
        out_bounds = rot_matrix @ [[0, 0, iy, iy], [0, ixx, 0, ixx]]
        out_plane_shape = (np.ptp(out_bounds, axis=1) + 0.5).astype(int)
    else:
        out_plane_shape = img_shape[axes]
    out_center = rot_matrix @ ((out_plane_shape - 1) / 2)
    in_center = (in_plane_shape - 1) / 2
    offset = in_center - out_center
    output_shape = img_shape
    output_shape[axes] = out_plane_shape
    output_shape = tuple(int(n) for n in output_shape)
    output = c.get_output(output, x, shape=output_shape, complex_output=_is_complex(x))
    _check_order(order)
    if ndim <= 2:
        _affine_transform(c, x, rot_matrix, offset, output_shape, output, order, mode, cval, prefilter)
    else:
        # every plane parallel to axes, as scipy does, in one call: the other axes
        # first (they index the planes), the plane's last
        perm = [ax for ax in range(ndim) if ax not in axes] + axes
        _affine_planes(c, x.transpose(perm), rot_matrix, offset, output.transpose(perm), order, mode, cval,
                       prefilter, ndim - 2)
    return c.result(output)


def _affine_planes(c, x, matrix, offset, output, order, mode, cval, prefilter, batch):
    """The affine map of the trailing axes on every plane that the first `batch` axes
    index (fv_affine_transform_planes): scipy's loop of affine_transform over the
    planes, with one prefilter of the whole array."""
    if _is_complex(x):
        for part, cv in ((lambda a: a.real, np.real(cval)), (lambda a: a.imag, np.imag(cval))):
            _affine_planes(c, part(x), matrix, offset, part(output), order, mode, cv, prefilter, batch)
        return output
    x = _source(c, x, output)
    return _run_into(c, _fovea.ndi_interpolate, x, output, int(order), _mode_code(mode), cval, bool(prefilter),
                     matrix=np.asarray(matrix, np.float64).ravel().tolist(),
                     offset=np.asarray(offset, np.float64).tolist(), batch=batch)
