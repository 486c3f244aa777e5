"""scipy.ndimage.label on fovea's connected-component kernel (fv_label):
block-parallel union-find on the CPU, Playne-Hawick union-find on the GPU.
Labels are numbered in raster order of each component's first pixel, as
scipy's, so results are equal."""

import numpy as np

from .. import _fovea
from .. import _interop as ix
from . import _support as S
from .._interop import Call, public
from ._morphology import generate_binary_structure

__all__ = ["label"]


def _working(c, res):
    """The fovea.Array res from the C extension as a working array of call c."""
    if c.device == "cpu":
        return np.asarray(res)
    if c.xp is None:
        return res
    with c.xp.cuda.Device(int(c.device.partition(":")[2] or 0)):
        return c.xp.asarray(res)


def _kernel_input(x):
    """x as the kernel takes it in nonzero mode: bool, integers, float32/64, the
    dtypes of scipy's fused Cython signature (TypeError otherwise, as scipy's)."""
    dt = np.dtype(x.dtype)
    if dt.kind in "biu" or dt.name in ("float32", "float64"):
        return x
    raise TypeError("No matching signature found")


@public
def label(input, structure=None, output=None):
    """Label the connected nonzero regions of input (scipy.ndimage.label).

    structure: 3 x ... x 3 point-symmetric connectivity (default: the
    cross, generate_binary_structure(ndim, 1)). output: None (int32, or int64
    when the image has 2**31 - 2 elements or more), a dtype, or an array to
    fill (then only the number of labels is returned).
    Returns (labels, number of labels), or the number when output is an array.
    """
    c = Call("label", input)
    x = c.input
    S.check_real(x)
    if structure is None:
        structure = generate_binary_structure(x.ndim, 1)
    structure = ix.host(structure, dtype=bool)
    if structure.ndim != x.ndim:
        raise RuntimeError("structure and input must have equal rank")
    for ii in structure.shape:
        if ii != 3:
            raise ValueError("structure dimensions must be equal to 3")
    need_64bits = x.size >= (2**31 - 2)
    caller_output = ix.is_array(output)
    if caller_output:
        out = c.view(output, "output")
        if tuple(out.shape) != tuple(x.shape):
            raise ValueError("output shape not correct")
        c._users[id(out)] = (out, output)
    else:
        dtype = np.dtype(np.intp if need_64bits else np.int32) if output is None else np.dtype(output)
        out = None
    want = np.dtype(out.dtype) if out is not None else dtype
    if x.ndim == 0 or x.size == 0:
        maxlabel = (1 if bool(x != 0) else 0) if x.ndim == 0 else 0
        if out is None:
            out = c.empty(x.shape, want)
        out[...] = maxlabel
        return maxlabel if caller_output else (c.result(out), maxlabel)
    if not np.array_equal(structure, structure[(slice(None, None, -1),) * x.ndim]):
        raise AssertionError("Structuring element is not symmetric")
    wide = need_64bits or want == np.int64
    res, num = _fovea.measure_label(
        _kernel_input(x),
        0,
        np.ascontiguousarray(structure, dtype=np.uint8).tobytes(),
        None,
        True,
        wide,
        c.stream,
    )
    lab = _working(c, res)
    if out is None and want == np.dtype(lab.dtype):
        return c.result(lab), num
    if out is None:
        out = c.empty(x.shape, want)
    xp = c.need_xp()
    out[...] = lab
    if not bool(xp.all(out == lab)):
        raise RuntimeError("insufficient bit-depth in requested output type")
    return num if caller_output else (c.result(out), num)
