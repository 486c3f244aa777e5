"""Richardson-Lucy deconvolution of dask arrays, chunk by chunk (fovea.dask)."""

import functools

import numpy as np

from . import _core

_BOUNDARIES = ("periodic", "reflect", "nearest", "constant", "none")


def _rl_block(psf, num_iter, clip, filter_epsilon, dtype, block):
    from ..skimage.restoration import richardson_lucy

    if dtype is not None:
        block = block.astype(dtype, copy=False)
    return richardson_lucy(block, psf, num_iter=num_iter, clip=clip, filter_epsilon=filter_epsilon)


def richardson_lucy(image, psf, num_iter=50, clip=True, filter_epsilon=None, *, depth=None,
                    boundary="periodic", dtype=None):
    """skimage.restoration.richardson_lucy on a dask array, each chunk deconvolved with
    its neighbours' pixels around it (dask's map_overlap; fovea's C op per chunk, on the
    GPU when the chunks are CuPy arrays).

    depth: the overlap per axis. None (the default) is the PSF's half size, the usual
    workflow's choice: fast, and close to the whole-array result away from chunk
    borders (each iteration spreads information by twice the PSF's half size, so pixels near
    a border differ slightly). "exact": 2 x num_iter times the PSF's half size (each iteration convolves
    and correlates once), for which
    every chunk sees all the pixels its result depends on and, with boundary="none",
    the result equals richardson_lucy on the whole array to float rounding.
    boundary: what pads the array's outer edges (dask's map_overlap boundary):
    "periodic" (the usual workflow's), "reflect", "nearest", "constant" (zeros) or
    "none" (no padding: the whole-array function's own edge handling). An axis no
    longer than its overlap is kept in one chunk, without overlap.
    dtype: the float type each chunk is deconvolved in (float32 or float64), after its
    overlap is added; None: scikit-image's rule for the input's dtype (float64 for
    integer images). With an integer stack, dtype=float32 exchanges the overlaps in
    the stack's own, smaller type and deconvolves in single precision.
    """
    x = _core.as_dask(image)
    psf_h = np.asarray(psf.get() if hasattr(psf, "get") else psf)
    if psf_h.ndim != x.ndim:
        raise ValueError(f"psf has {psf_h.ndim} dimensions, the image {x.ndim}")
    if boundary not in _BOUNDARIES:
        raise ValueError(f"boundary must be one of {', '.join(_BOUNDARIES)}, not {boundary!r}")
    if dtype is not None:
        dtype = np.dtype(dtype)
        if dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype must be float32 or float64, not {dtype}")
    half = [s // 2 for s in psf_h.shape]
    if depth is None:
        depth = half
    elif isinstance(depth, str):
        if depth != "exact":
            raise ValueError(f"depth must be None, 'exact' or per-axis integers, not {depth!r}")
        depth = [2 * int(num_iter) * h for h in half]
    else:
        depth = _core.per_axis(depth, x.ndim, "depth")
    fn = functools.partial(_rl_block, psf, int(num_iter), clip, filter_epsilon, dtype)
    return _core.map_overlap(fn, [x], depth, boundary=0 if boundary == "constant" else boundary)
