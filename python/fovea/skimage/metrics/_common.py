"""Helpers shared by the metrics: two inputs on one device, scikit-image's
dtype ranges and shape check."""

import warnings

import numpy as np

from ..._interop import like_input, prepare
from .._shared import dtype_range, supported_float_type

__all__ = ["two", "check_same_shape", "dtype_range", "as_floats", "warn"]


def two(a, b, name_b="image1"):
    """(a, b, xp, back): both inputs as arrays of one library (NumPy or CuPy);
    DeviceError when they live on different devices."""
    a, xp, back = prepare(a)
    b = like_input(b, a, name_b)
    if xp is np:
        b = np.asarray(b)
    return a, b, xp, back


def check_same_shape(a, b):
    if a.shape != b.shape:
        raise ValueError("Input images must have the same dimensions.")


def as_floats(a, b, xp):
    """Both images in the supported float type of their two dtypes."""
    ft = supported_float_type((a, b))
    return a.astype(ft, copy=False), b.astype(ft, copy=False)


def warn(msg, stacklevel=3):
    warnings.warn(msg, UserWarning, stacklevel=stacklevel)
