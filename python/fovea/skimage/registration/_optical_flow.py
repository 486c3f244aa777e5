"""scikit-image 0.26's coarse-to-fine optical flow on fovea: TV-L1 and
iterative Lucas-Kanade. Array maths in NumPy or CuPy (whichever holds the
images); the warps (fovea.skimage.transform.warp: map_coordinates), pyramids,
median / uniform / Gaussian filters and zooms run in fovea's C or CUDA kernels."""

from functools import partial
from itertools import combinations_with_replacement

import numpy as np

from ... import _interop as ix
from ... import ndimage as ndi
from .._shared import img_as_float, supported_float_type
from ..transform import pyramid_reduce, warp

__all__ = ["optical_flow_ilk", "optical_flow_tvl1"]


def _warp_points(grid, flow):
    out = flow.copy()
    for i, g in enumerate(grid):
        out[i, ...] += g
    return out


def _resize_flow(flow, shape, xp):
    scale = [n / o for n, o in zip(shape, flow.shape[1:])]
    factor = xp.asarray(np.array(scale, dtype=flow.dtype).reshape((-1,) + (1,) * len(shape)))
    return factor * ndi.zoom(flow, [1] + scale, order=0, mode="nearest", prefilter=False)


def _pyramid(img, downscale=2.0, nlevel=10, min_size=16):
    pyr = [img]
    size = min(img.shape)
    count = 1
    while count < nlevel and size > downscale * min_size:
        J = pyramid_reduce(pyr[-1], downscale, channel_axis=None)
        pyr.append(J)
        size = min(J.shape)
        count += 1
    return pyr[::-1]


def _convert(image, dtype, xp):
    return img_as_float(image, xp).astype(dtype, copy=False)


def _coarse_to_fine(I0, I1, solver, dtype, downscale=2, nlevel=10, min_size=16):
    a, xp, back = ix.prepare(I0, "optical_flow")
    b = ix.like_input(I1, a, "moving_image", "optical_flow")
    if a.shape != b.shape:
        raise ValueError("Input images should have the same shape")
    if np.dtype(dtype).char not in "efdg":
        raise ValueError("Only floating point data type are valid for optical flow")
    pyr = list(zip(_pyramid(_convert(a, dtype, xp), downscale, nlevel, min_size),
                   _pyramid(_convert(b, dtype, xp), downscale, nlevel, min_size)))
    flow = xp.zeros((pyr[0][0].ndim,) + pyr[0][0].shape, dtype=dtype)
    flow = solver(pyr[0][0], pyr[0][1], flow, xp=xp)
    for J0, J1 in pyr[1:]:
        flow = solver(J0, J1, _resize_flow(flow, J0.shape, xp), xp=xp)
    return back(flow)


def _grid(shape, dtype, xp):
    return xp.meshgrid(*[xp.arange(n, dtype=dtype) for n in shape], indexing="ij", sparse=True)


def _tvl1(ref, moving, flow0, attachment, tightness, num_warp, num_iter, tol, prefilter, xp):
    dtype = ref.dtype
    nd = ref.ndim
    grid = _grid(ref.shape, dtype, xp)
    dt = 0.5 / nd
    reg_num_iter = 2
    f0 = attachment * tightness
    f1 = dt / tightness
    tol *= ref.size
    flow_current = flow_previous = flow0
    g = xp.zeros((nd,) + ref.shape, dtype=dtype)
    proj = xp.zeros((nd, nd) + ref.shape, dtype=dtype)
    s_g = [slice(None)] * g.ndim
    s_p = [slice(None)] * proj.ndim
    s_d = [slice(None)] * (proj.ndim - 2)
    for _ in range(num_warp):
        if prefilter:
            flow_current = ndi.median_filter(flow_current, [1] + nd * [3])
        warped = warp(moving, _warp_points(grid, flow_current), mode="edge")
        grad = xp.stack(xp.gradient(warped))
        NI = (grad * grad).sum(0)
        NI[NI == 0] = 1
        rho_0 = warped - ref - (grad * flow_current).sum(0)
        for _ in range(num_iter):
            rho = rho_0 + (grad * flow_current).sum(0)
            idx = abs(rho) <= f0 * NI
            aux = flow_current
            aux[:, idx] -= rho[idx] * grad[:, idx] / NI[idx]
            idx = ~idx
            srho = f0 * xp.sign(rho[idx])
            aux[:, idx] -= srho * grad[:, idx]
            flow_current = aux.copy()
            for i in range(nd):
                s_p[0] = i
                for _ in range(reg_num_iter):
                    for ax in range(nd):
                        s_g[0] = ax
                        s_g[ax + 1] = slice(0, -1)
                        g[tuple(s_g)] = xp.diff(flow_current[i], axis=ax)
                        s_g[ax + 1] = slice(None)
                    norm = xp.sqrt((g**2).sum(0))[None, ...]
                    norm *= f1
                    norm += 1.0
                    proj[i] -= dt * g
                    proj[i] /= norm
                    d = -proj[i].sum(0)
                    for ax in range(nd):
                        s_p[1] = ax
                        s_p[ax + 2] = slice(0, -1)
                        s_d[ax] = slice(1, None)
                        d[tuple(s_d)] += proj[tuple(s_p)]
                        s_p[ax + 2] = slice(None)
                        s_d[ax] = slice(None)
                    flow_current[i] = aux[i] + d
        flow_previous -= flow_current
        if float((flow_previous * flow_previous).sum()) < tol:
            break
        flow_previous = flow_current
    return flow_current


def optical_flow_tvl1(reference_image, moving_image, *, attachment=15, tightness=0.3, num_warp=5, num_iter=10,
                      tol=1e-4, prefilter=False, dtype=np.float32):
    """Coarse-to-fine TV-L1 optical flow (skimage.registration.optical_flow_tvl1):
    flow of shape (ndim, *shape) in dtype."""
    solver = partial(_tvl1, attachment=attachment, tightness=tightness, num_warp=num_warp, num_iter=num_iter,
                     tol=tol, prefilter=prefilter)
    if np.dtype(dtype) != supported_float_type(dtype):
        raise ValueError(f"dtype={dtype} is not supported. Try 'float32' or 'float64.'")
    return _coarse_to_fine(reference_image, moving_image, solver, dtype=dtype)


def _ilk(ref, moving, flow0, radius, num_warp, gaussian, prefilter, xp):
    dtype = ref.dtype
    nd = ref.ndim
    size = 2 * radius + 1
    if gaussian:
        filt = partial(ndi.gaussian_filter, sigma=nd * (size / 4,), mode="mirror")
    else:
        filt = partial(ndi.uniform_filter, size=nd * (size,), mode="mirror")
    flow = flow0
    A = xp.zeros(ref.shape + (nd, nd), dtype=dtype)
    b = xp.zeros(ref.shape + (nd, 1), dtype=dtype)
    grid = _grid(ref.shape, dtype, xp)
    for _ in range(num_warp):
        if prefilter:
            flow = ndi.median_filter(flow, (1,) + nd * (3,))
        warped = warp(moving, _warp_points(grid, flow), mode="edge")
        grad = xp.stack(xp.gradient(warped), axis=0)
        err = (grad * flow).sum(axis=0) + ref - warped
        for i, j in combinations_with_replacement(range(nd), 2):
            A[..., i, j] = A[..., j, i] = filt(grad[i] * grad[j])
        for i in range(nd):
            b[..., i, 0] = filt(grad[i] * err)
        idx = abs(xp.linalg.det(A)) < 1e-14
        A[idx] = xp.eye(nd, dtype=dtype)
        b[idx] = 0
        flow = xp.moveaxis(xp.linalg.solve(A, b)[..., 0], nd, 0)
    return flow


def optical_flow_ilk(reference_image, moving_image, *, radius=7, num_warp=10, gaussian=False, prefilter=False,
                     dtype=np.float32):
    """Coarse-to-fine iterative Lucas-Kanade optical flow
    (skimage.registration.optical_flow_ilk): flow of shape (ndim, *shape)."""
    solver = partial(_ilk, radius=radius, num_warp=num_warp, gaussian=gaussian, prefilter=prefilter)
    if np.dtype(dtype) != supported_float_type(dtype):
        raise ValueError(f"dtype={dtype} is not supported. Try 'float32' or 'float64.'")
    return _coarse_to_fine(reference_image, moving_image, solver, dtype=dtype)
