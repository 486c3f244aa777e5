"""Binary and grey morphology and distance transforms with scipy.ndimage's
signatures and results (scipy 1.17).

Binary erosion (and dilation as erosion of the inverse with the reflected
structure), the distance transforms and the min/max filters behind grey
morphology run in the C library (include/fovea/morphology.h, filters.h); the
compositions (opening, hit-or-miss, top-hats, ...) follow scipy's own.
"""

import operator
import warnings

import numpy as np

from .. import _fovea
from .. import _interop as ix
from . import _support as S
from ._filters import _min_or_max_filter
from .._interop import Call, public

__all__ = [
    "iterate_structure",
    "generate_binary_structure",
    "binary_erosion",
    "binary_dilation",
    "binary_opening",
    "binary_closing",
    "binary_hit_or_miss",
    "binary_propagation",
    "binary_fill_holes",
    "grey_erosion",
    "grey_dilation",
    "grey_opening",
    "grey_closing",
    "morphological_gradient",
    "morphological_laplace",
    "white_tophat",
    "black_tophat",
    "distance_transform_cdt",
    "distance_transform_edt",
]


def _reflect(a):
    return a[(slice(None, None, -1),) * a.ndim]


def _reflect_origin(origin, shape):
    """Origins of the reflected structure (scipy: negated, minus one on even axes)."""
    out = list(origin)
    for i in range(len(out)):
        out[i] = -out[i]
        if not shape[i] & 1:
            out[i] -= 1
    return out


@public
def iterate_structure(structure, iterations, origin=None):
    """A structure dilated by itself iterations - 1 times (scipy.ndimage.iterate_structure)."""
    c = Call("iterate_structure", structure)
    st = c.input
    if iterations < 2:
        return c.result(st.copy())
    ni = iterations - 1
    shape = [k + ni * (k - 1) for k in st.shape]
    pos = [ni * (st.shape[i] // 2) for i in range(len(shape))]
    slc = tuple(slice(pos[i], pos[i] + st.shape[i], None) for i in range(len(shape)))
    out = c.zeros(shape, bool)
    out[slc] = st != 0
    out = binary_dilation(out, ix.host(st), iterations=ni)
    if origin is None:
        return c.result(out)
    origin = S.normalize_sequence(origin, st.ndim)
    return c.result(out), [iterations * o for o in origin]


def generate_binary_structure(rank, connectivity):
    """The rank-dimensional 3 x ... x 3 structure of elements within `connectivity`
    unit steps of the centre (scipy.ndimage.generate_binary_structure); NumPy."""
    if connectivity < 1:
        connectivity = 1
    if rank < 1:
        return np.array(True, dtype=bool)
    steps = np.fabs(np.indices([3] * rank) - 1)
    return np.add.reduce(steps, 0) <= connectivity


def _binary_erosion(name, input, structure, iterations, mask, output, border_value, origin, invert,
                    brute_force, axes):
    """scipy's _binary_erosion on the C library: returns (call, working output)."""
    try:
        iterations = operator.index(iterations)
    except TypeError as e:
        raise TypeError("iterations parameter should be an integer") from e
    c = Call(name, input)
    x = c.input
    ndim = x.ndim
    S.check_real(x)
    axes = S.check_axes(axes, ndim)
    n = len(axes)
    if structure is None:
        structure = generate_binary_structure(n, 1)
    else:
        structure = ix.host(structure, bool)
    if ndim > n:
        structure = S.expand_footprint(ndim, axes, structure, "structure")
    if structure.ndim != ndim:
        raise RuntimeError("structure and input must have same dimensionality")
    if structure.size < 1:
        raise RuntimeError("structure must not be empty")
    if mask is not None:
        mask = c.view(mask, "mask")
        if tuple(mask.shape) != tuple(x.shape):
            raise RuntimeError("mask and input must have equal sizes")
    origin = S.normalize_sequence(origin, n)
    origin = S.expand_origin(ndim, axes, origin)
    # scipy reads the centre element here (IndexError for origins past the end)
    cit = bool(structure[tuple(o + k // 2 for k, o in zip(structure.shape, origin))])
    for o, k in zip(origin, structure.shape):
        if S.invalid_origin(o, k):
            raise ValueError("invalid origin")
    if ix.is_array(output):
        out = c.get_output(output, x)
        if np.dtype(out.dtype).kind == "c":
            raise TypeError("Complex output type not supported")
    else:
        out = c.get_output(bool, x)
    target = out
    if np.dtype(out.dtype).kind not in "biu":  # the C library writes 0/1 into bool and integers
        target = c.empty(x.shape, bool)
    if ndim == 0:
        # one element, no neighbours: the structure's centre alone decides, and it is
        # set (cit), so every pass keeps the element as it is, masked or not (scipy);
        # the kernels take ndim >= 1
        c.assign(out, c.need_xp().asarray(x != 0))
        return c, out
    st = np.ascontiguousarray(structure, dtype=np.uint8)
    args = (bool(border_value), tuple(int(o) for o in origin), bool(invert))
    if (mask is not None and iterations != 1 and cit and not brute_force
            and np.dtype(mask.dtype) not in (np.bool_, np.int8, np.uint8)):
        # scipy's fast path for repeated passes reads the mask as int8 after the first
        # pass (np.asarray(mask, dtype=np.int8): 0.5 and 256 count as 0 from then on)
        c.run(_fovea.ndi_binary_erosion, x, target, st, 1, mask, *args)
        mask8 = c.need_xp().asarray(mask).astype(np.int8)
        c.run(_fovea.ndi_binary_erosion, target, target, st, iterations - 1 if iterations > 1 else iterations,
              mask8, *args)
    else:
        c.run(_fovea.ndi_binary_erosion, x, target, st, iterations, mask, *args)
    if target is not out:
        c.assign(out, target)
    return c, out


@public
def binary_erosion(input, structure=None, iterations=1, mask=None, output=None, border_value=0, origin=0,
                   brute_force=False, *, axes=None):
    """Binary erosion (scipy.ndimage.binary_erosion)."""
    c, out = _binary_erosion("binary_erosion", input, structure, iterations, mask, output, border_value, origin,
                             0, brute_force, axes)
    return c.result(out)


def _dilation_args(x, structure, origin, axes):
    axes = S.check_axes(axes, x.ndim)
    n = len(axes)
    if structure is None:
        structure = generate_binary_structure(n, 1)
    origin = S.normalize_sequence(origin, n)
    structure = _reflect(ix.host(structure))
    return structure, _reflect_origin(origin, structure.shape)


@public
def binary_dilation(input, structure=None, iterations=1, mask=None, output=None, border_value=0, origin=0,
                    brute_force=False, *, axes=None):
    """Binary dilation (scipy.ndimage.binary_dilation): erosion of the complement
    with the reflected structure."""
    c0 = Call("binary_dilation", input)
    structure, origin = _dilation_args(c0.input, structure, origin, axes)
    c, out = _binary_erosion("binary_dilation", input, structure, iterations, mask, output, border_value,
                             origin, 1, brute_force, axes)
    return c.result(out)


def _binary_pair(name, first, second, input, structure, iterations, output, origin, mask, border_value,
                 brute_force, axes):
    """second(first(input)) with one structure: binary opening / closing."""
    c = Call(name, input)
    axes = S.check_axes(axes, c.input.ndim)
    if structure is None:
        structure = generate_binary_structure(len(axes), 1)
    tmp = first(c.input, structure, iterations, mask, None, border_value, origin, brute_force, axes=axes)
    return c.result(second(tmp, structure, iterations, mask, c.pass_output(output), border_value, origin,
                           brute_force, axes=axes))


@public
def binary_opening(input, structure=None, iterations=1, output=None, origin=0, mask=None, border_value=0,
                   brute_force=False, *, axes=None):
    """Binary opening: erosion then dilation (scipy.ndimage.binary_opening)."""
    return _binary_pair("binary_opening", binary_erosion, binary_dilation, input, structure, iterations, output,
                        origin, mask, border_value, brute_force, axes)


@public
def binary_closing(input, structure=None, iterations=1, output=None, origin=0, mask=None, border_value=0,
                   brute_force=False, *, axes=None):
    """Binary closing: dilation then erosion (scipy.ndimage.binary_closing)."""
    return _binary_pair("binary_closing", binary_dilation, binary_erosion, input, structure, iterations, output,
                        origin, mask, border_value, brute_force, axes)


@public
def binary_hit_or_miss(input, structure1=None, structure2=None, output=None, origin1=0, origin2=None, *,
                       axes=None):
    """Hit-or-miss transform (scipy.ndimage.binary_hit_or_miss); with an output
    array it is filled and None is returned, as scipy does."""
    c = Call("binary_hit_or_miss", input)
    x = c.input
    axes = S.check_axes(axes, x.ndim)
    n = len(axes)
    if structure1 is None:
        structure1 = generate_binary_structure(n, 1)
    else:
        structure1 = ix.host(structure1)
    if structure2 is None:
        structure2 = np.logical_not(structure1)
    origin1 = S.normalize_sequence(origin1, n)
    origin2 = origin1 if origin2 is None else S.normalize_sequence(origin2, n)
    _, tmp1 = _binary_erosion("binary_hit_or_miss", x, structure1, 1, None, None, 0, origin1, 0, False, axes)
    inplace = ix.is_array(output)
    _, result = _binary_erosion("binary_hit_or_miss", x, structure2, 1, None, c.pass_output(output), 0,
                                origin2, 1, False, axes)
    xp = c.need_xp()
    # scipy: logical_not(result, result); logical_and(tmp1, result[, result]). On bool
    # data that is tmp1 > result: one elementwise pass instead of two, same bits
    if np.dtype(result.dtype) == np.bool_:
        if inplace:
            xp.greater(tmp1, result, result)
            return None
        return c.result(xp.greater(tmp1, result))
    if inplace:
        xp.logical_not(result, result)
        xp.logical_and(tmp1, result, result)
        return None
    xp.logical_not(result, result)
    return c.result(xp.logical_and(tmp1, result))


@public
def binary_propagation(input, structure=None, mask=None, output=None, border_value=0, origin=0, *, axes=None):
    """Dilation repeated until nothing changes, within mask (scipy.ndimage.binary_propagation)."""
    return binary_dilation(input, structure, -1, mask, output, border_value, origin, axes=axes)


@public
def binary_fill_holes(input, structure=None, output=None, origin=0, *, axes=None):
    """Fill the holes of binary objects (scipy.ndimage.binary_fill_holes); with an
    output array it is filled and None is returned, as scipy does."""
    c = Call("binary_fill_holes", input)
    xp = c.need_xp()
    mask = xp.logical_not(c.input)
    tmp = c.zeros(mask.shape, bool)
    if ix.is_array(output):
        out = c.pass_output(output)
        binary_dilation(tmp, structure, -1, mask, out, 1, origin, axes=axes)
        xp.logical_not(out, out)
        return None
    out = binary_dilation(tmp, structure, -1, mask, None, 1, origin, axes=axes)
    xp.logical_not(out, out)
    return c.result(out)


# ---- grey morphology -----------------------------------------------------------------------


@public
def grey_erosion(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0, *, axes=None):
    """Grey erosion: minimum over footprint of input - structure (scipy.ndimage.grey_erosion)."""
    if size is None and footprint is None and structure is None:
        raise ValueError("size, footprint, or structure must be specified")
    return _min_or_max_filter("grey_erosion", input, size, footprint, structure, output, mode, cval, origin, 1,
                              axes=axes, stacklevel=3)


@public
def grey_dilation(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                  origin=0, *, axes=None):
    """Grey dilation: maximum over the reflected footprint of input + structure
    (scipy.ndimage.grey_dilation)."""
    if size is None and footprint is None and structure is None:
        raise ValueError("size, footprint, or structure must be specified")
    if structure is not None:
        structure = _reflect(ix.host(structure))
    if footprint is not None:
        footprint = _reflect(ix.host(footprint))
    ndim = Call("grey_dilation", input).input.ndim
    axes = S.check_axes(axes, ndim)
    origin = S.normalize_sequence(origin, len(axes))
    for i in range(len(origin)):
        origin[i] = -origin[i]
        if footprint is not None:
            sz = footprint.shape[i]
        elif structure is not None:
            sz = structure.shape[i]
        elif np.isscalar(size):
            sz = size
        else:
            sz = size[i]
        if not sz & 1:
            origin[i] -= 1
    return _min_or_max_filter("grey_dilation", input, size, footprint, structure, output, mode, cval, origin, 0,
                              axes=axes, stacklevel=3)


def _warn_size_footprint(size, footprint):
    if size is not None and footprint is not None:   # warns at the caller of grey_opening / grey_closing
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=4)


def _grey_pair(name, first, second, input, size, footprint, structure, output, mode, cval, origin, axes):
    """second(first(input)) with one footprint: grey opening / closing."""
    _warn_size_footprint(size, footprint)
    c = Call(name, input)
    tmp = first(c.input, size, footprint, structure, None, mode, cval, origin, axes=axes)
    return c.result(second(tmp, size, footprint, structure, c.pass_output(output), mode, cval, origin, axes=axes))


@public
def grey_opening(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0, *, axes=None):
    """Grey opening: erosion then dilation (scipy.ndimage.grey_opening)."""
    return _grey_pair("grey_opening", grey_erosion, grey_dilation, input, size, footprint, structure, output, mode,
                      cval, origin, axes)


@public
def grey_closing(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0, *, axes=None):
    """Grey closing: dilation then erosion (scipy.ndimage.grey_closing)."""
    return _grey_pair("grey_closing", grey_dilation, grey_erosion, input, size, footprint, structure, output, mode,
                      cval, origin, axes)


def _dilation_erosion(name, input, size, footprint, structure, output, mode, cval, origin, axes):
    """(c, x, dilation, erosion, xp, into): the grey dilation and erosion of the input,
    the erosion written into output when it is an array (into)."""
    c = Call(name, input)
    x = c.input
    dil = grey_dilation(x, size, footprint, structure, None, mode, cval, origin, axes=axes)
    xp = c.need_xp()
    into = ix.is_array(output)
    ero = grey_erosion(x, size, footprint, structure, c.pass_output(output) if into else None, mode, cval, origin,
                       axes=axes)
    return c, x, dil, ero, xp, into


@public
def morphological_gradient(input, size=None, footprint=None, structure=None, output=None, mode="reflect",
                           cval=0.0, origin=0, *, axes=None):
    """Dilation minus erosion (scipy.ndimage.morphological_gradient)."""
    c, _, dil, ero, xp, into = _dilation_erosion("morphological_gradient", input, size, footprint, structure,
                                                 output, mode, cval, origin, axes)
    return c.result(xp.subtract(dil, ero, ero) if into else dil - ero)


@public
def morphological_laplace(input, size=None, footprint=None, structure=None, output=None, mode="reflect",
                          cval=0.0, origin=0, *, axes=None):
    """Dilation plus erosion minus twice the input (scipy.ndimage.morphological_laplace)."""
    c, x, dil, ero, xp, _ = _dilation_erosion("morphological_laplace", input, size, footprint, structure, output,
                                              mode, cval, origin, axes)
    xp.add(dil, ero, ero)
    xp.subtract(ero, x, ero)
    return c.result(xp.subtract(ero, x, ero))


def _tophat(name, white, input, size, footprint, structure, output, mode, cval, origin, axes):
    _warn_size_footprint(size, footprint)
    c = Call(name, input)
    x = c.input
    first, second = (grey_erosion, grey_dilation) if white else (grey_dilation, grey_erosion)
    tmp = first(x, size, footprint, structure, None, mode, cval, origin, axes=axes)
    tmp = second(tmp, size, footprint, structure, c.pass_output(output), mode, cval, origin, axes=axes)
    xp = c.need_xp()
    a, b = (x, tmp) if white else (tmp, x)
    if np.dtype(x.dtype) == np.bool_ and np.dtype(tmp.dtype) == np.bool_:
        xp.bitwise_xor(a, b, out=tmp)
    else:
        xp.subtract(a, b, out=tmp)
    return c.result(tmp)


@public
def white_tophat(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0, *, axes=None):
    """Input minus its grey opening (scipy.ndimage.white_tophat)."""
    return _tophat("white_tophat", True, input, size, footprint, structure, output, mode, cval, origin, axes)


@public
def black_tophat(input, size=None, footprint=None, structure=None, output=None, mode="reflect", cval=0.0,
                 origin=0, *, axes=None):
    """Grey closing minus the input (scipy.ndimage.black_tophat)."""
    return _tophat("black_tophat", False, input, size, footprint, structure, output, mode, cval, origin, axes)


# ---- distance transforms ------------------------------------------------------------------------


def _distance_arg_check(distances_out, indices_out, return_distances, return_indices):
    msgs = []
    if not return_distances and not return_indices:
        msgs.append("at least one of return_distances/return_indices must be True")
    if distances_out and not return_distances:
        msgs.append("return_distances must be True if distances is supplied")
    if indices_out and not return_indices:
        msgs.append("return_indices must be True if indices is supplied")
    if msgs:
        raise RuntimeError(", ".join(msgs))


def _distance_results(c, return_distances, return_indices, dt, dt_inplace, ft, ft_inplace):
    result = []
    if return_distances and not dt_inplace:
        result.append(c.result(dt))
    if return_indices and not ft_inplace:
        result.append(c.result(ft))
    if len(result) == 2:
        return tuple(result)
    if len(result) == 1:
        return result[0]
    return None


@public
def distance_transform_edt(input, sampling=None, return_distances=True, return_indices=False, distances=None,
                           indices=None):
    """Exact Euclidean distance transform (scipy.ndimage.distance_transform_edt).

    indices: where several zero elements are nearest, the one reported may differ
    from scipy's (the distance is the same)."""
    ft_inplace = ix.is_array(indices)
    dt_inplace = ix.is_array(distances)
    _distance_arg_check(dt_inplace, ft_inplace, return_distances, return_indices)
    c = Call("distance_transform_edt", input)
    x = c.input
    if x.ndim == 0:
        x = c.need_xp().reshape(x, (1,))
    x = c.as_binary(x)
    if sampling is not None:
        sampling = np.ascontiguousarray(S.normalize_sequence(sampling, x.ndim), dtype=np.float64)
    ft = None
    if ft_inplace:
        ft = c.view(indices, "indices")
        if tuple(ft.shape) != (x.ndim,) + tuple(x.shape):
            raise RuntimeError("indices array has wrong shape")
        if np.dtype(ft.dtype) != np.int32:
            raise RuntimeError("indices array must be int32")
    elif return_indices:
        ft = c.empty((x.ndim,) + tuple(x.shape), np.int32)
    dt = None
    if return_distances:
        if dt_inplace:
            dt = c.view(distances, "distances")
            if tuple(dt.shape) != tuple(x.shape):
                raise RuntimeError("distances array has wrong shape")
            if np.dtype(dt.dtype) != np.float64:
                raise RuntimeError("distances array must be float64")
        else:
            dt = c.empty(x.shape, np.float64)
    c.run_in(_fovea.ndi_distance_transform_edt, x, sampling, dt, ft)
    if dt_inplace:
        c._users[id(dt)] = (dt, distances)
    if ft_inplace:
        c._users[id(ft)] = (ft, indices)
    return _distance_results(c, return_distances, return_indices, dt, dt_inplace, ft, ft_inplace)


@public
def distance_transform_cdt(input, metric="chessboard", return_distances=True, return_indices=False,
                           distances=None, indices=None):
    """Chamfer distance transform (scipy.ndimage.distance_transform_cdt)."""
    ft_inplace = ix.is_array(indices)
    dt_inplace = ix.is_array(distances)
    _distance_arg_check(dt_inplace, ft_inplace, return_distances, return_indices)
    c = Call("distance_transform_cdt", input)
    x = c.input
    if isinstance(metric, str):
        if metric in ("taxicab", "cityblock", "manhattan"):
            metric = generate_binary_structure(x.ndim, 1)
        elif metric == "chessboard":
            metric = generate_binary_structure(x.ndim, x.ndim)
        else:
            raise ValueError("invalid metric provided")
    else:
        try:
            metric = ix.host(metric)
        except Exception as e:
            raise ValueError("invalid metric provided") from e
        for k in metric.shape:
            if k != 3:
                raise ValueError("metric sizes must be equal to 3")
    if metric.ndim != x.ndim:
        raise RuntimeError(f"metric.ndim ({metric.ndim}) must match input.ndim ({x.ndim})")
    x = c.as_binary(x)
    dt = None
    if dt_inplace:
        dt = c.view(distances, "distances")
        if np.dtype(dt.dtype) != np.int32:
            raise ValueError("distances must be of int32 type")
        if tuple(dt.shape) != tuple(x.shape):
            raise ValueError("distances has wrong shape")
    elif return_distances:
        dt = c.empty(x.shape, np.int32)
    ft = None
    if ft_inplace:
        ft = c.view(indices, "indices")
        if np.dtype(ft.dtype) != np.int32:
            raise ValueError("indices array must be int32")
        if tuple(ft.shape) != (x.ndim,) + tuple(x.shape):
            raise ValueError("indices array has wrong shape")
    elif return_indices:
        ft = c.empty((x.ndim,) + tuple(x.shape), np.int32)
    c.run_in(_fovea.ndi_distance_transform_cdt, x, np.ascontiguousarray(metric != 0, dtype=np.uint8), dt, ft)
    if dt_inplace:
        c._users[id(dt)] = (dt, distances)
    if ft_inplace:
        c._users[id(ft)] = (ft, indices)
    return _distance_results(c, return_distances, return_indices, dt, dt_inplace, ft, ft_inplace)
