"""relabel_sequential, join_segmentations and the ArrayMap they return, for
NumPy and CuPy arrays (as skimage.segmentation / skimage.util 0.26)."""

import numpy as np

from ... import _interop as ix

__all__ = ["ArrayMap", "map_array", "relabel_sequential", "join_segmentations"]


def _xp_of(a):
    return np if isinstance(a, (np.ndarray, np.generic)) else ix.xp_of(a)


def map_array(input_arr, input_vals, output_vals, out=None):
    """skimage.util.map_array: each value of input_arr found in input_vals
    becomes the matching output_vals entry, every other value 0."""
    xp = _xp_of(input_arr)
    if input_arr.dtype.kind not in "iu":
        raise TypeError("The dtype of an array to be remapped should be integer.")
    if out is not None and tuple(out.shape) != tuple(input_arr.shape):
        raise ValueError(
            "If out array is provided, it should have the same shape as the input array. Input array has "
            f"shape {input_arr.shape}, provided output array has shape {out.shape}."
        )
    dtype = out.dtype if out is not None else output_vals.dtype
    # keys in the input's dtype (wrapping as skimage's cast does); among equal
    # keys the last one wins, as in skimage's hash map
    keys = input_vals.astype(input_arr.dtype, copy=False)
    order = xp.argsort(keys, kind="stable")
    keys = keys[order]
    vals = output_vals[order].astype(dtype, copy=False)
    res = xp.zeros(input_arr.shape, dtype=dtype)
    if keys.size:
        idx = xp.searchsorted(keys, input_arr, side="right") - 1
        xp.clip(idx, 0, keys.size - 1, out=idx)
        hit = keys[idx] == input_arr
        res = xp.where(hit, vals[idx], xp.zeros((), dtype=dtype))
    if out is None:
        return res
    out[...] = res
    return out


class ArrayMap:
    """A map from in_values to out_values (skimage.util._map_array.ArrayMap):
    index it with a scalar, an array, a slice or a boolean mask, or call it
    on an array; values that are not keys map to 0. np.asarray(m) gives the
    dense lookup table. Works on NumPy and CuPy value arrays."""

    def __init__(self, in_values, out_values):
        self.in_values = in_values
        self.out_values = out_values
        self._max_str_lines = 4
        self._array = None

    def __len__(self):
        return int(self.in_values.max()) + 1

    def _dense(self, dtype=None):
        xp = _xp_of(self.in_values)
        if dtype is None:
            dtype = self.out_values.dtype
        output = xp.zeros(int(self.in_values.max()) + 1, dtype=dtype)
        output[self.in_values] = self.out_values
        return output

    def __array__(self, dtype=None, copy=None):
        return np.asarray(ix.to_host(self._dense(dtype)))

    @property
    def dtype(self):
        return self.out_values.dtype

    def __repr__(self):
        return f"ArrayMap({self.in_values!r}, {self.out_values!r})"

    def __str__(self):
        n = len(self.in_values)
        if n <= self._max_str_lines + 1:
            rows = list(range(n))
        else:
            rows = list(range(0, self._max_str_lines // 2)) + [None] + list(range(-self._max_str_lines // 2, 0))
        lines = ["ArrayMap:"]
        for i in rows:
            lines.append("  ..." if i is None else f"  {self.in_values[i]} → {self.out_values[i]}")
        return "\n".join(lines)

    def __call__(self, arr):
        return self.__getitem__(arr)

    def __getitem__(self, index):
        xp = _xp_of(self.in_values)
        scalar = np.isscalar(index) or (getattr(index, "ndim", None) == 0 and not hasattr(index, "__len__"))
        if np.isscalar(index):
            index = xp.asarray([index])
        elif isinstance(index, slice):
            start = index.start or 0
            stop = index.stop if index.stop is not None else len(self)
            index = xp.arange(start, stop, index.step)
        else:
            index = xp.asarray(index)
            scalar = False
        if index.dtype == bool:
            index = xp.flatnonzero(index)
        out = map_array(index, self.in_values.astype(index.dtype, copy=False), self.out_values)
        if scalar:
            out = out[0]
        return out

    def __setitem__(self, indices, values):
        xp = _xp_of(self.in_values)
        if self._array is None:
            self._array = self._dense()
        self._array[indices] = values
        self.in_values = xp.flatnonzero(self._array)
        self.out_values = self._array[self.in_values]


def _relabel(x, offset):
    xp = _xp_of(x)
    if offset <= 0:
        raise ValueError("Offset must be strictly positive.")
    if x.size and bool(x.min() < 0):
        raise ValueError("Cannot relabel array that contains negative values.")
    if x.size == 0:
        x.min()   # numpy's ValueError for an empty reduction, as skimage's np.min
    offset = int(offset)
    in_vals = xp.unique(x)
    zero = bool(in_vals[0] == 0)
    count = len(in_vals) - zero
    # integer labels of the type that holds the last one (an arange of Python ints past
    # the int64 maximum would be float64, and the labels would collapse)
    dt = np.dtype(np.int64) if offset + count - 1 <= np.iinfo(np.int64).max else np.dtype(np.uint64)
    out_vals = xp.arange(count, dtype=dt) + dt.type(offset)
    if zero:
        out_vals = xp.concatenate([xp.zeros(1, dtype=dt), out_vals])
    input_type = x.dtype
    if input_type.kind not in "iu":
        raise TypeError("label_field must have an integer dtype")
    last = int(out_vals[-1])
    required_type = np.min_scalar_type(last)
    if input_type.itemsize < required_type.itemsize:
        output_type = required_type
    elif last < np.iinfo(input_type).max:
        output_type = input_type
    else:
        output_type = required_type
    out_vals = out_vals.astype(output_type)
    out = out_vals[xp.searchsorted(in_vals, x)]   # every value is a key
    return out, ArrayMap(in_vals, out_vals), ArrayMap(out_vals, in_vals)


def relabel_sequential(label_field, offset=1):
    """Relabel arbitrary labels to {offset, ... offset + number_of_labels},
    0 staying 0 (skimage.segmentation.relabel_sequential).

    Returns (relabeled, forward_map, inverse_map); the maps are ArrayMap
    objects (index or call them with labels; np.asarray gives the table).
    """
    x, _, back = ix.prepare(label_field)
    out, fw, inv = _relabel(x, offset)
    return back(out), fw, inv


def join_segmentations(s1, s2, return_mapping: bool = False):
    """The join of two segmentations: a region for each distinct pair of
    labels (skimage.segmentation.join_segmentations). With return_mapping,
    also ArrayMaps from the joined labels to s1's and s2's."""
    a, _, back = ix.prepare(s1)
    b = ix.like_input(s2, a, "s2")
    if a.shape != b.shape:
        raise ValueError(
            f"Cannot join segmentations of different shape. s1.shape: {a.shape}, s2.shape: {b.shape}"
        )
    xp = _xp_of(a)
    a_rel, _, back1 = _relabel(a, 1)
    b_rel, _, back2 = _relabel(b, 1)
    factor = b.max() + np.uint8(1)
    j_initial = factor * a_rel + b_rel
    j, _, map_j = _relabel(j_initial, 1)
    if not return_mapping:
        return back(j)
    labels_j = xp.unique(j_initial)
    l1, l2 = xp.divmod(labels_j, factor)
    m1 = ArrayMap(map_j.in_values, back1[l1])
    m2 = ArrayMap(map_j.in_values, back2[l2])
    return back(j), m1, m2
