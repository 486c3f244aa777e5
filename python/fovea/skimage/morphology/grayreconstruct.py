"""Morphological reconstruction (skimage.morphology.reconstruction of
scikit-image 0.26) on fovea's C kernel: CPU, a sequential hybrid raster /
anti-raster scan with a FIFO queue; CUDA, parallel propagation sweeps until
stable. Same result as scikit-image (the reconstruction is unique), same
float dtype."""

import numpy as np

from ... import _fovea
from ... import _interop as ix
from .._shared import cucim_rules, supported_float_type

__all__ = ["reconstruction"]


def reconstruction(seed, mask, method="dilation", footprint=None, offset=None, *, reconstruct_on_cpu=False):
    """Morphological reconstruction of seed under mask by dilation or erosion.

    seed, mask: arrays of one shape (seed <= mask for 'dilation', >= for
    'erosion'). footprint: neighbourhood (default: 3 x ... x 3 ones); offset:
    its centre (default: the middle; every extent must then be odd).
    Returns the reconstruction as float32 (float16/float32 mask) or float64 for
    NumPy data (scikit-image); for CuPy data in the inputs' promoted dtype, signed
    for an erosion of unsigned data (cuCIM; computed in the float type, exact up to
    2**53 for 64-bit integers). reconstruct_on_cpu (cuCIM's): accepted; fovea reconstructs GPU data on the GPU.
    """
    s, _, back = ix.prepare(seed)
    m = ix.like_input(mask, s, "mask")
    xp = ix.xp_of(s)
    if tuple(s.shape) != tuple(m.shape):
        raise AssertionError("seed and mask must have the same shape")
    if method == "dilation" and bool(xp.any(s > m)):
        raise ValueError(
            "Intensity of seed image must be less than that of the mask image for reconstruction by dilation."
        )
    if method == "erosion" and bool(xp.any(s < m)):
        raise ValueError(
            "Intensity of seed image must be greater than that of the mask image for reconstruction by erosion."
        )
    if footprint is None:
        fp = np.ones([3] * s.ndim, dtype=bool)
    else:
        fp = np.array(ix.host(footprint), dtype=bool)
    if offset is None:
        if not all(d % 2 == 1 for d in fp.shape):
            raise ValueError("Footprint dimensions must all be odd")
        offset = np.array([d // 2 for d in fp.shape])
    else:
        offset = np.asarray(ix.host(offset))
        if offset.ndim != fp.ndim:
            raise ValueError("Offset and footprint ndims must be equal.")
        if not all(0 <= o < d for o, d in zip(offset, fp.shape)):
            raise ValueError("Offset must be included inside footprint")
    if method not in ("dilation", "erosion"):
        raise ValueError(f"Reconstruction method can be one of 'erosion' or 'dilation'. Got '{method}'.")
    if fp.ndim != s.ndim:
        raise ValueError("footprint must have the image's number of dimensions")
    ftype = supported_float_type(m)
    out_dtype = np.promote_types(s.dtype, m.dtype)
    if method == "erosion" and out_dtype.kind == "u":
        out_dtype = np.promote_types(out_dtype, np.int8)
    s = s.astype(ftype, copy=False)
    m = m.astype(ftype, copy=False)
    res = _fovea.skmorph_reconstruction(
        s,
        m,
        0 if method == "dilation" else 1,
        np.ascontiguousarray(fp, dtype=np.uint8).tobytes(),
        tuple(int(d) for d in fp.shape),
        tuple(int(o) for o in np.broadcast_to(offset, (fp.ndim,))),
        ix.stream_of(s),
    )
    res = ix.wrap(res, s)
    if cucim_rules(res):   # cuCIM: the inputs' dtype
        res = res.astype(out_dtype, copy=False)
    return back(res)
