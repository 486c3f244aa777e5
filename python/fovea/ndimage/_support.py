"""Argument handling shared by fovea.ndimage.

The normalisation helpers behave as scipy.ndimage._ni_support's (same checks,
same exception types and messages), so code written against scipy fails the same
way here. The array rules (working views, output=, streams, result types) are
fovea._interop's :class:`~fovea._interop.Call`.
"""

import numbers
import operator
from collections.abc import Iterable

import numpy as np

try:  # NumPy >= 2
    from numpy.lib.array_utils import normalize_axis_index
except ImportError:  # pragma: no cover - NumPy 1.x
    from numpy.core.multiarray import normalize_axis_index

__all__ = [
    "mode_code",
    "normalize_sequence",
    "check_axes",
    "expand_origin",
    "expand_footprint",
    "expand_mode",
    "normalize_axis_index",
]

# fv_mode values (include/fovea/filters.h). For filters scipy treats the grid-*
# names as synonyms of reflect, constant and wrap.
MODE_REFLECT, MODE_CONSTANT, MODE_NEAREST, MODE_MIRROR, MODE_WRAP = range(5)
_MODES = {
    "reflect": MODE_REFLECT,
    "grid-mirror": MODE_REFLECT,
    "constant": MODE_CONSTANT,
    "grid-constant": MODE_CONSTANT,
    "nearest": MODE_NEAREST,
    "mirror": MODE_MIRROR,
    "wrap": MODE_WRAP,
    "grid-wrap": MODE_WRAP,
}


def mode_code(mode):
    """The fv_mode value of a scipy mode name; RuntimeError as scipy for anything else."""
    if isinstance(mode, str) and mode in _MODES:
        return _MODES[mode]
    raise RuntimeError("boundary mode not supported")


def normalize_sequence(value, rank):
    """value repeated rank times, or value as a list when it is a sequence of length rank."""
    if not isinstance(value, str) and np.iterable(value):
        out = list(value)
        if len(out) != rank:
            raise RuntimeError("sequence argument must have length equal to input rank")
        return out
    return [value] * rank


def check_axes(axes, ndim):
    """axes as a tuple of distinct non-negative ints (None: all of them)."""
    if axes is None:
        return tuple(range(ndim))
    if np.isscalar(axes):
        # as scipy: a scalar axis is neither range-checked nor made non-negative here
        axes = (operator.index(axes),)
    elif isinstance(axes, Iterable):
        axes = tuple(axes)
        out = []
        for ax in axes:
            ax = operator.index(ax)
            if ax < -ndim or ax > ndim - 1:
                raise ValueError(f"specified axis: {ax} is out of range")
            out.append(ax % ndim if ax < 0 else ax)
        axes = tuple(out)
    else:
        raise ValueError("axes must be an integer, iterable of integers, or None")
    if len(set(axes)) != len(axes):
        raise ValueError("axes must be unique")
    return axes


def expand_origin(ndim, axes, origin):
    """Per-axis origins for all ndim axes (0 on the axes not filtered)."""
    origins = normalize_sequence(origin, len(axes))
    if len(axes) < ndim:
        full = [0] * ndim
        for o, ax in zip(origins, axes):
            full[ax] = o
        origins = full
    return origins


def expand_footprint(ndim, axes, footprint, name="footprint"):
    """A footprint over len(axes) axes with size-1 axes inserted for the others."""
    if len(axes) < ndim:
        if footprint.ndim != len(axes):
            raise RuntimeError(f"{name}.ndim ({footprint.ndim}) must match len(axes) ({len(axes)})")
        footprint = np.expand_dims(footprint, tuple(ax for ax in range(ndim) if ax not in axes))
    return footprint


def expand_mode(ndim, axes, mode):
    """A sequence of modes for len(axes) axes widened to ndim ('constant' elsewhere)."""
    if not isinstance(mode, str) and isinstance(mode, Iterable):
        modes = normalize_sequence(mode, len(axes))
        full = ["constant"] * ndim
        for m, ax in zip(modes, axes):
            full[ax] = m
        mode = full
    return mode


def invalid_origin(origin, size):
    return origin < -(size // 2) or origin > (size - 1) // 2


def check_real(x):
    if np.dtype(x.dtype).kind == "c":
        raise TypeError("Complex type not supported")


def is_integral(v):
    return isinstance(v, numbers.Integral)
