"""scikit-image 0.26's biharmonic inpainting on fovea: the sparse system of
the biharmonic stencil (laplace of laplace, computed on the stencil's box
clipped to the image, as scikit-image does) over the masked pixels, built with
vectorised NumPy per clipping class and solved with scipy.sparse (host) or
cupyx.scipy.sparse (CuPy input, when CuPy has it)."""

import numpy as np
import scipy.ndimage as sndi
from scipy import sparse
from scipy.sparse.linalg import spsolve

from ... import _interop as ix
from .._shared import img_as_float, supported_float_type

__all__ = ["inpaint_biharmonic"]

_RADIUS = 2


def _stencil(shape, center, dtype):
    d = np.zeros(shape, dtype=dtype)
    d[tuple(center)] = 1
    return sndi.laplace(sndi.laplace(d))


def _system(out, mask):
    """(A, rhs, masked flat indices): A x = rhs for the masked pixels of out
    (spatial..., channels) given the unmasked ones."""
    shape = mask.shape
    nd = mask.ndim
    flat_out = out.reshape(-1, out.shape[-1])
    pts = np.stack(np.nonzero(mask), axis=1)          # (n, nd), C order
    n = len(pts)
    col_of = np.full(mask.size, -1, dtype=np.int64)
    mflat = np.flatnonzero(mask)
    col_of[mflat] = np.arange(n)
    lo = np.maximum(pts - _RADIUS, 0)
    hi = np.minimum(pts + _RADIUS + 1, np.asarray(shape))
    keys = np.concatenate([hi - lo, pts - lo], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    rows, cols, vals = [], [], []
    rhs = np.zeros((n, out.shape[-1]), dtype=out.dtype)
    for k, key in enumerate(uniq):
        members = np.flatnonzero(inverse.ravel() == k)
        st = _stencil(tuple(key[:nd]), tuple(key[nd:]), out.dtype)
        sidx = np.stack(np.nonzero(st), axis=1)        # (m, nd) box offsets
        coef = st[tuple(sidx.T)]
        nb = lo[members][:, None, :] + sidx[None, :, :]   # (members, m, nd)
        nbf = np.ravel_multi_index(tuple(np.moveaxis(nb, -1, 0)), shape)
        c = col_of[nbf]
        r = np.broadcast_to(members[:, None], c.shape)
        cf = np.broadcast_to(coef[None, :], c.shape)
        unknown = c >= 0
        rows.append(r[unknown])
        cols.append(c[unknown])
        vals.append(cf[unknown])
        known = ~unknown
        contrib = np.zeros((len(members), out.shape[-1]), dtype=out.dtype)
        for j in range(c.shape[1]):
            kj = known[:, j]
            if kj.any():
                contrib[kj] -= coef[j] * flat_out[nbf[kj, j]]
        rhs[members] += contrib
    A = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    return A, rhs, mflat


def _solve_region(out, mask, gpu):
    if not mask.any():
        return
    A, rhs, mflat = _system(out, mask)
    if gpu is not None:
        import cupyx.scipy.sparse as csp
        from cupyx.scipy.sparse.linalg import spsolve as cspsolve
        cp = gpu
        # cuSPARSE's spsolve takes 32-bit indices only
        Ah = sparse.csr_matrix(A)
        if Ah.nnz >= 2**31 or Ah.shape[0] >= 2**31:
            raise ValueError("inpaint_biharmonic on the GPU: the system is too large for cuSPARSE's "
                             "32-bit indices; inpaint a NumPy array instead")
        Ah.indices = Ah.indices.astype(np.int32)
        Ah.indptr = Ah.indptr.astype(np.int32)
        Ag = csp.csr_matrix(Ah)
        res = np.stack([cp.asnumpy(cspsolve(Ag, cp.asarray(rhs[:, c]))) for c in range(rhs.shape[1])], axis=1)
    else:
        res = spsolve(A, rhs, use_umfpack=False, permc_spec="MMD_ATA")
        res = res[:, None] if res.ndim == 1 else res
    out.reshape(-1, out.shape[-1])[mflat] = res


def inpaint_biharmonic(image, mask, *, split_into_regions=False, channel_axis=None):
    """Fill the masked pixels by solving the biharmonic equation from the
    known ones (skimage.restoration.inpaint_biharmonic), n-d."""
    if np.ma.isMaskedArray(image):
        raise TypeError("Masked arrays are not supported")
    img, xp, back = ix.prepare(image, "inpaint_biharmonic")
    float_dtype = supported_float_type(img)   # by the input's library (cuCIM's rules for CuPy)
    gpu = None
    if ix.on_gpu(img):
        try:
            import cupyx.scipy.sparse.linalg  # noqa: F401
            gpu = xp
        except ImportError:
            gpu = None
        img = ix.to_host(img)
    m = ix.prepare(mask)[0]
    m = ix.to_host(m) if ix.on_gpu(m) else np.asarray(m)
    if img.ndim < 1:
        raise ValueError("Input array has to be at least 1D")
    multichannel = channel_axis is not None
    if multichannel:
        img = np.moveaxis(img, channel_axis % img.ndim, -1)
    base = img.shape[:-1] if multichannel else img.shape
    if base != m.shape:
        raise ValueError("Input arrays have to be the same shape")
    img = img_as_float(img, np).astype(float_dtype, copy=False)
    m = m.astype(bool, copy=False)
    if not multichannel:
        img = img[..., None]
    out = np.copy(img, order="C")
    known = img[~m]
    limits = (known.min(axis=0), known.max(axis=0))
    if split_into_regions:
        dil = sndi.binary_dilation(m, structure=sndi.generate_binary_structure(m.ndim, 1))
        lab = sndi.label(dil, structure=np.ones((3,) * m.ndim, dtype=bool))[0] * m
        for idx, bb in enumerate(sndi.find_objects(lab), 1):
            if bb is None:
                continue
            roi = tuple(slice(max(s.start - _RADIUS, 0), min(s.stop + _RADIUS, size))
                        for s, size in zip(bb, lab.shape))
            tmp = out[roi].copy()
            _solve_region(tmp, lab[roi] == idx, gpu)
            out[roi] = tmp
    else:
        _solve_region(out, m, gpu)
    np.clip(out, limits[0], limits[1], out=out)
    if not multichannel:
        out = out[..., 0]
    else:
        out = np.moveaxis(out, -1, channel_axis % out.ndim)
    if gpu is not None:
        return back(gpu.asarray(out))
    return back(out)
