"""skimage.segmentation.chan_vese (0.26 API): the Chan-Vese level-set
segmentation of a 2-d grey image, on NumPy (host) or CuPy (GPU) arrays.

Each iteration is one semi-implicit step of the Chan-Vese PDE (the scheme of
Getreuer, "Chan-Vese Segmentation", IPOL 2012, as scikit-image implements it):
edge-replicated one-sided and central differences of phi give the four
curvature coefficients, the region averages c1 / c2 come from H(phi) = phi > 0,
and phi is updated with the regularised delta 1 / (1 + phi**2). The arithmetic
is done in the image's float type (float32 for float16 / float32 images,
float64 otherwise), in the same order as scikit-image, so the level set agrees
to rounding. The energy (needed only for extended_output) is computed only
when asked for.
"""

import math

import numpy as np

from ..._interop import like_input, prepare
from .._shared import cucim_rules, supported_float_type

__all__ = ["chan_vese"]


def _shifts(phi, xp):
    """phi's neighbours with edge replication: (right, left, down, up), i.e.
    phi[i, j+1], phi[i, j-1], phi[i+1, j], phi[i-1, j] clamped to the image,
    as views of one edge-padded copy."""
    n, m = phi.shape
    pad = xp.empty((n + 2, m + 2), dtype=phi.dtype)
    pad[1:-1, 1:-1] = phi
    pad[0, 1:-1] = phi[0]
    pad[-1, 1:-1] = phi[-1]
    pad[:, 0] = pad[:, 1]
    pad[:, -1] = pad[:, -2]
    return pad[1:-1, 2:], pad[1:-1, :-2], pad[2:, 1:-1], pad[:-2, 1:-1]


def _region_means(image, h, xp):
    """(mean of image weighted by h, mean weighted by 1 - h); a sum of weights
    of 0 leaves the weighted sum as it is (scikit-image's convention)."""
    hinv = 1.0 - h
    hsum = xp.sum(h)
    hinvsum = xp.sum(hinv)
    inside = xp.sum(image * h)
    outside = xp.sum(image * hinv)
    if hsum != 0:
        inside /= hsum
    if hinvsum != 0:
        outside /= hinvsum
    return inside, outside


def _delta(phi):
    return 1.0 / (1.0 + phi**2)


def _step(image, phi, mu, lambda1, lambda2, dt, xp):
    eta = 1e-16
    right, left, down, up = _shifts(phi, xp)
    dx0 = (right - left) / 2.0
    dy0 = (down - up) / 2.0
    dx02 = dx0**2
    dy02 = dy0**2
    c_right = 1.0 / xp.sqrt(eta + (right - phi) ** 2 + dy02)
    c_left = 1.0 / xp.sqrt(eta + (phi - left) ** 2 + dy02)
    c_down = 1.0 / xp.sqrt(eta + dx02 + (down - phi) ** 2)
    c_up = 1.0 / xp.sqrt(eta + dx02 + (phi - up) ** 2)
    curv = right * c_right + left * c_left + down * c_down + up * c_up
    c1, c2 = _region_means(image, (phi > 0).astype(image.dtype), xp)
    force = -lambda1 * (image - c1) ** 2 + lambda2 * (image - c2) ** 2
    delta = _delta(phi)
    new_phi = phi + (dt * delta) * (mu * curv + force)
    return new_phi / (1 + mu * dt * delta * (c_right + c_left + c_down + c_up))


def _energy(image, phi, mu, lambda1, lambda2, xp):
    h = 0.5 * (1.0 + (2.0 / np.pi) * xp.arctan(phi / 1.0))
    c1, c2 = _region_means(image, h, xp)
    region = lambda1 * (image - c1) ** 2 * h + lambda2 * (image - c2) ** 2 * (1.0 - h)
    right, left, down, up = _shifts(phi, xp)
    fy = (down - up) / 2.0
    fx = (right - left) / 2.0
    length = mu * _delta(phi) * xp.sqrt(fx**2 + fy**2)
    return xp.sum(region) + xp.sum(length)


def _init_phi(init_level_set, shape, dtype, xp):
    if isinstance(init_level_set, str):
        if init_level_set == "checkerboard":
            rows = xp.arange(shape[0], dtype=dtype).reshape(shape[0], 1)
            cols = xp.arange(shape[1], dtype=dtype)
            scale = np.pi / 5
            rows *= scale
            cols *= scale
            return xp.sin(rows) * xp.sin(cols)
        if init_level_set in ("disk", "small disk"):
            cy = int((shape[0] - 1) / 2)
            cx = int((shape[1] - 1) / 2)
            radius = float(min(cx, cy))
            dist = xp.sqrt(
                ((xp.arange(shape[0]) - cy) ** 2).reshape(-1, 1).astype(np.float64)
                + ((xp.arange(shape[1]) - cx) ** 2).reshape(1, -1)
            )
            if init_level_set == "disk":
                res = (radius - dist) / radius
            else:
                radius /= 2.0
                res = (radius - dist) / (radius * 3)
            return res.astype(dtype, copy=False)
        raise ValueError("Incorrect name for starting level set preset.")
    return like_input(init_level_set, xp, "init_level_set").astype(dtype, copy=False)


def chan_vese(image, mu=0.25, lambda1=1.0, lambda2=1.0, tol=1e-3, max_num_iter=500, dt=0.5,
              init_level_set="checkerboard", extended_output=False):
    """Chan-Vese segmentation of a 2-d grey image (skimage.segmentation.chan_vese).

    Evolves the level set phi until the RMS change of phi in one step is at most
    `tol` or after `max_num_iter` steps. Returns the segmentation (phi > 0, bool)
    or, with extended_output, (segmentation, phi, energies) where energies[i] is
    the energy before step i. init_level_set: 'checkerboard', 'disk',
    'small disk' or an array of the image's shape."""
    x, xp, back = prepare(image)
    if x.ndim != 2:
        raise ValueError("Input image should be a 2D array.")
    float_dtype = supported_float_type(x)
    phi = _init_phi(init_level_set, tuple(x.shape), float_dtype, xp)
    if tuple(phi.shape) != tuple(x.shape):
        raise ValueError("The dimensions of initial level set do not match the dimensions of image.")
    for name, v in (("tol", tol), ("dt", dt), ("mu", mu), ("lambda1", lambda1), ("lambda2", lambda2)):
        if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool):
            raise TypeError(f"`{name}` must be a real number, got {v!r}")
        if math.isnan(v):
            raise ValueError(f"`{name}` must not be NaN")

    img = x.astype(float_dtype, copy=False)
    img = img - xp.min(img)
    top = xp.max(img)
    if top != 0:
        img = img / top

    energies = []
    old_energy = _energy(img, phi, mu, lambda1, lambda2, xp) if extended_output else None
    change = tol + 1
    segmentation = phi > 0
    i = 0
    while change > tol and i < max_num_iter:
        previous = phi
        phi = _step(img, phi, mu, lambda1, lambda2, dt, xp)
        change = xp.sqrt(((phi - previous) ** 2).mean())
        segmentation = phi > 0
        if extended_output:
            energies.append(old_energy)
            old_energy = _energy(img, phi, mu, lambda1, lambda2, xp)
        i += 1

    if extended_output:
        if cucim_rules(x):   # cuCIM: 0-d arrays of the float type on the device
            energies = back([xp.asarray(e, dtype=float_dtype) for e in energies])
        elif xp is not np:   # scikit-image's rules for device data: host numbers
            energies = [float(e) for e in energies]
        return back(segmentation), back(phi), energies
    return back(segmentation)
