"""skimage.segmentation.active_contour (scikit-image 0.26): the snake's explicit
time steps are small dense NumPy / SciPy work (a K x K inverse, a quadratic
spline of the image), run on the host as scikit-image does; the edge map uses
fovea's sobel. CUDA inputs go through the host and the snake comes back as the
input's array type."""

import numpy as np

from ... import _interop as ix
from .._shared import img_as_float, supported_float_type
from ..filters import sobel

__all__ = ["active_contour"]

_BCS = ("periodic", "free", "fixed", "free-fixed", "fixed-free", "fixed-fixed", "free-free")


def _shape_matrix(n, alpha, beta, gamma, bc):
    """(inverse of A + gamma I, sfixed, efixed, sfree, efree): the snake's implicit
    internal-energy step with scikit-image's boundary rows, inverted in double."""
    eye = np.eye(n, dtype=float)
    a = np.roll(eye, -1, axis=0) + np.roll(eye, -1, axis=1) - 2 * eye
    b = (np.roll(eye, -2, axis=0) + np.roll(eye, -2, axis=1) - 4 * np.roll(eye, -1, axis=0)
         - 4 * np.roll(eye, -1, axis=1) + 6 * eye)
    A = -alpha * a + beta * b
    sfixed, efixed = bc.startswith("fixed"), bc.endswith("fixed")
    sfree, efree = bc.startswith("free"), bc.endswith("free")
    if sfixed:
        A[0, :] = 0
        A[1, :] = 0
        A[1, :3] = [1, -2, 1]
    if efixed:
        A[-1, :] = 0
        A[-2, :] = 0
        A[-2, -3:] = [1, -2, 1]
    if sfree:
        A[0, :] = 0
        A[0, :3] = [1, -2, 1]
        A[1, :] = 0
        A[1, :4] = [-1, 3, -3, 1]
    if efree:
        A[-1, :] = 0
        A[-1, -3:] = [1, -2, 1]
        A[-2, :] = 0
        A[-2, -4:] = [-1, 3, -3, 1]
    return np.linalg.inv(A + gamma * eye), sfixed, efixed, sfree, efree


def active_contour(image, snake, alpha=0.01, beta=0.1, w_line=0.0, w_edge=1, gamma=0.01, max_px_move=1.0,
                   max_num_iter=2500, convergence=0.1, *, boundary_condition="periodic"):
    """Active contour model (scikit-image 0.26): fit the (K, 2) snake (row, col) to
    the features of the (M, N) or (M, N, 3) image. Returns the optimised (K, 2)
    snake in the image's float type."""
    from scipy.interpolate import RectBivariateSpline

    img, xp, back = ix.prepare(image)
    dev = img
    img = ix.to_host(img)
    snake = np.asarray(ix.host(snake))
    max_num_iter = int(max_num_iter)
    if max_num_iter <= 0:
        raise ValueError("max_num_iter should be >0.")
    if boundary_condition not in _BCS:
        raise ValueError("Invalid boundary condition.\nShould be one of: " + ", ".join(_BCS) + ".")
    float_dtype = supported_float_type(img.dtype)
    img = img_as_float(img, np).astype(float_dtype, copy=False)
    rgb = img.ndim == 3
    if w_edge != 0:
        edge = [sobel(img[:, :, c]) for c in range(3)] if rgb else [sobel(img)]
    else:
        edge = [0]
    if rgb:
        img = w_line * np.sum(img, axis=2) + w_edge * sum(edge)
    else:
        img = w_line * img + w_edge * edge[0]
    intp = RectBivariateSpline(np.arange(img.shape[1]), np.arange(img.shape[0]), img.T, kx=2, ky=2, s=0)

    x = snake[:, ::-1][:, 0].astype(float_dtype)
    y = snake[:, ::-1][:, 1].astype(float_dtype)
    n = len(x)
    order = 10   # convergence looks back over this many snakes (oscillations)
    xsave = np.empty((order, n), dtype=float_dtype)
    ysave = np.empty((order, n), dtype=float_dtype)
    inv, sfixed, efixed, sfree, efree = _shape_matrix(n, alpha, beta, gamma, boundary_condition)
    inv = inv.astype(float_dtype, copy=False)
    for i in range(max_num_iter):
        fx = intp(x, y, dx=1, grid=False).astype(float_dtype, copy=False)
        fy = intp(x, y, dy=1, grid=False).astype(float_dtype, copy=False)
        if sfixed:
            fx[0] = fy[0] = 0
        if efixed:
            fx[-1] = fy[-1] = 0
        if sfree:
            fx[0] *= 2
            fy[0] *= 2
        if efree:
            fx[-1] *= 2
            fy[-1] *= 2
        xn = inv @ (gamma * x + fx)
        yn = inv @ (gamma * y + fy)
        dx = max_px_move * np.tanh(xn - x)
        dy = max_px_move * np.tanh(yn - y)
        if sfixed:
            dx[0] = dy[0] = 0
        if efixed:
            dx[-1] = dy[-1] = 0
        x += dx
        y += dy
        j = i % (order + 1)
        if j < order:
            xsave[j, :] = x
            ysave[j, :] = y
        elif np.min(np.max(np.abs(xsave - x[None, :]) + np.abs(ysave - y[None, :]), 1)) < convergence:
            break
    res = np.stack([y, x], axis=1)
    return back(ix.like_device(res, dev))
