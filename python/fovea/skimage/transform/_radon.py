"""radon, iradon, iradon_sart, order_angles_golden_ratio
(skimage.transform.radon_transform, scikit-image 0.26).

radon's projections are fovea's C op fv_radon (scikit-image's bilinear warp of
the cropped or padded image, summed down the columns in row order: CPU pool
over angles, CUDA one thread per sinogram element), and iradon_sart's update is
fv_sart_projection_update (scikit-image's rays, in its order on the CPU;
atomics on the GPU). iradon filters the sinogram in fovea.fft and back-projects
each angle by linear, nearest or cubic interpolation (NumPy / CuPy array maths;
cubic through SciPy's interp1d on the host); the linear back projection is the
C op fv_iradon_backproject (numpy.interp's arithmetic, angles added in order:
CPU pool over rows, CUDA one thread per pixel).
"""

import math
from warnings import warn

import numpy as np

from ... import _fovea
from ... import fft as _fft
from ... import _interop as ix
from ..._interop import prepare
from .._shared import convert_to_float

__all__ = ["radon", "order_angles_golden_ratio", "iradon", "iradon_sart"]

_GOLDEN_RATIO = (1 + math.sqrt(5)) / 2


def radon(image, theta=None, circle=True, *, preserve_range=False):
    """Radon transform (sinogram) of a 2-d image at angles theta (degrees,
    default 0..179), as skimage.transform.radon: shape (side, len(theta)),
    the image's float dtype; circle=True assumes zero outside the inscribed
    circle (UserWarning otherwise) and crops the image to a square."""
    img, xp, back = prepare(image)
    if img.ndim != 2:
        raise ValueError("The input image must be 2-D")
    theta = np.arange(180) if theta is None else ix.host(theta)
    img = convert_to_float(img, preserve_range, xp)
    shape = np.array(img.shape)
    if circle:
        side = int(min(img.shape))
        radius = side // 2
        rr = (np.arange(img.shape[0]) - shape[0] // 2) ** 2
        cc = (np.arange(img.shape[1]) - shape[1] // 2) ** 2
        outside = ix.like_device(rr[:, None] + cc[None, :] > radius ** 2, img)
        if bool(xp.any(img[outside])):
            warn("Radon transform: image must be zero outside the reconstruction circle")
        slices = tuple(slice(int(np.ceil(e / 2)), int(np.ceil(e / 2)) + side) if e > 0 else slice(None)
                       for e in shape - side)
        padded = img[slices]
    else:
        diagonal = np.sqrt(2) * max(img.shape)
        pad = [int(np.ceil(diagonal - s)) for s in img.shape]
        before = [(s + p) // 2 - s // 2 for s, p in zip(img.shape, pad)]
        padded = xp.pad(img, [(b, p - b) for b, p in zip(before, pad)], mode="constant", constant_values=0)
    if padded.shape[0] != padded.shape[1]:
        raise ValueError("padded_image must be a square")
    center = padded.shape[0] // 2
    mats = np.empty((len(theta), 6))
    for i, angle in enumerate(np.deg2rad(theta)):
        c, s = np.cos(angle), np.sin(angle)
        # scikit-image's inverse map of the rotation about the centre, (col, row) -> (x, y)
        mats[i] = (c, s, -center * (c + s - 1), -s, c, -center * (c - s - 1))
    sino = xp.empty((padded.shape[0], len(theta)), dtype=img.dtype)
    _fovea.tf_radon(xp.ascontiguousarray(padded), sino, mats.tobytes(), ix.stream_of(img))
    return back(sino)


def _sinogram_circle_to_square(sinogram, xp):
    diagonal = int(np.ceil(np.sqrt(2) * sinogram.shape[0]))
    pad = diagonal - sinogram.shape[0]
    before = diagonal // 2 - sinogram.shape[0] // 2
    return xp.pad(sinogram, ((before, pad - before), (0, 0)), mode="constant", constant_values=0)


def _fourier_filter(size, filter_name):
    """scikit-image's _get_fourier_filter: (size, 1) float64, on the host."""
    n = np.concatenate((np.arange(1, size / 2 + 1, 2, dtype=int), np.arange(size / 2 - 1, 0, -2, dtype=int)))
    f = np.zeros(size)
    f[0] = 0.25
    f[1::2] = -1 / (np.pi * n) ** 2
    filt = 2 * np.real(_fft.fft(f))   # the ramp, from its spatial form (Kak & Slaney, eq. 61)
    if filter_name == "shepp-logan":
        omega = np.pi * np.fft.fftfreq(size)[1:]
        filt[1:] *= np.sin(omega) / omega
    elif filter_name == "cosine":
        filt *= np.fft.fftshift(np.sin(np.linspace(0, np.pi, size, endpoint=False)))
    elif filter_name == "hamming":
        filt *= np.fft.fftshift(np.hamming(size))
    elif filter_name == "hann":
        filt *= np.fft.fftshift(np.hanning(size))
    elif filter_name is None:
        filt[:] = 1
    return filt[:, np.newaxis]


def _nearest(t, x, col, xp):
    """scipy's interp1d(x, col, kind='nearest', bounds_error=False, fill_value=0)(t)
    for increasing x: halfway points go to the lower neighbour."""
    bounds = x / 2.0
    bounds = bounds[1:] + bounds[:-1]
    idx = xp.clip(xp.searchsorted(bounds, t, side="left"), 0, len(x) - 1)
    return xp.where((t < x[0]) | (t > x[-1]), 0.0, col[idx])


def iradon(radon_image, theta=None, output_size=None, filter_name="ramp", interpolation="linear", circle=True,
           preserve_range=True):
    """Filtered back projection (skimage.transform.iradon): the
    (output_size, output_size) image whose Radon transform at theta (degrees;
    default evenly over [0, 180)) is radon_image."""
    sino, xp, back = prepare(radon_image)
    if sino.ndim != 2:
        raise ValueError("The input image must be 2-D")
    theta = np.linspace(0, 180, sino.shape[1], endpoint=False) if theta is None else ix.host(theta)
    angles_count = len(theta)
    if angles_count != sino.shape[1]:
        raise ValueError("The given ``theta`` does not match the number of projections in ``radon_image``.")
    if interpolation not in ("linear", "nearest", "cubic"):
        raise ValueError(f"Unknown interpolation: {interpolation}")
    if filter_name not in ("ramp", "shepp-logan", "cosine", "hamming", "hann", None):
        raise ValueError(f"Unknown filter: {filter_name}")
    sino = convert_to_float(sino, preserve_range, xp)
    dtype = sino.dtype
    img_shape = sino.shape[0]
    if output_size is None:
        output_size = img_shape if circle else int(np.floor(np.sqrt(img_shape ** 2 / 2.0)))
    if circle:
        sino = _sinogram_circle_to_square(sino, xp)
        img_shape = sino.shape[0]
    padded_size = max(64, int(2 ** np.ceil(np.log2(2 * img_shape))))
    img = xp.pad(sino, ((0, padded_size - img_shape), (0, 0)), mode="constant", constant_values=0)
    filt = ix.like_device(_fourier_filter(padded_size, filter_name), img)
    projection = _fft.fft(img, axis=0) * filt
    filtered = xp.real(_fft.ifft(projection, axis=0)[:img_shape, :])

    radius = output_size // 2
    grid = np.arange(output_size) - radius
    rad = np.deg2rad(theta)
    cos = np.array([np.cos(a) for a in rad], dtype=np.float64)   # the scalars scikit-image's loop uses
    sin = np.array([np.sin(a) for a in rad], dtype=np.float64)
    if interpolation == "linear":   # fovea's back-projection op: numpy.interp's arithmetic, angles in order
        recon = xp.empty((output_size, output_size), dtype=dtype)
        _fovea.tf_backproject(xp.ascontiguousarray(filtered.T.astype(np.float64, copy=False)), recon, cos.tobytes(),
                              sin.tobytes(), ix.stream_of(img))
    else:
        recon = xp.zeros((output_size, output_size), dtype=dtype)
        xpr = ix.like_device(grid[:, None], img)
        ypr = ix.like_device(grid[None, :], img)
        x = np.arange(img_shape) - img_shape // 2
        x_dev = ix.like_device(x, img)
        if interpolation == "cubic":
            from scipy.interpolate import interp1d
        for i in range(len(rad)):
            col = filtered[:, i]
            t = ypr * cos[i] - xpr * sin[i]
            if interpolation == "nearest":
                recon += _nearest(t, x_dev, col, xp)
            else:
                f = interp1d(x, ix.to_host(col), kind="cubic", bounds_error=False, fill_value=0)
                recon += ix.like_device(f(ix.to_host(t)), img)
    if circle:
        recon[ix.like_device(grid[:, None] ** 2 + grid[None, :] ** 2 > radius ** 2, img)] = 0.0
    return back(recon * np.pi / (2 * angles_count))


def order_angles_golden_ratio(theta):
    """Indices into theta (degrees, no duplicates) in Kohler's golden-ratio
    order (skimage.transform.order_angles_golden_ratio): a generator yielding
    each of 0..len(theta)-1 once, each next angle about 180 / phi^2 degrees on
    from the previous one."""
    theta = ix.host(theta)
    interval = 180
    remaining = list(np.argsort(theta))
    angle = theta[remaining[0]]
    yield remaining.pop(0)
    step = interval / _GOLDEN_RATIO ** 2
    while remaining:
        angles = theta[remaining]
        angle = (angle + step) % interval
        above = np.searchsorted(angles, angle)
        below = above - 1
        above %= len(remaining)
        d_below = abs(angle - angles[below])
        d_below = min(d_below % interval, d_below % -interval)
        d_above = abs(angle - angles[above])
        d_above = min(d_above % interval, d_above % -interval)
        yield remaining.pop(below if d_below < d_above else above)


def iradon_sart(radon_image, theta=None, image=None, projection_shifts=None, clip=None, relaxation=0.15,
                dtype=None):
    """One iteration of the Simultaneous Algebraic Reconstruction Technique
    (skimage.transform.iradon_sart): the (M, M) reconstruction of the (M, N)
    sinogram at theta (degrees), starting from image (default zeros), the
    projections visited in golden-ratio order."""
    sino, xp, back = prepare(radon_image)
    if sino.ndim != 2:
        raise ValueError("radon_image must be two dimensional")
    if dtype is None:
        if sino.dtype.char in "fd":
            dtype = sino.dtype
        else:
            warn("Only floating point data type are valid for SART inverse radon transform. Input data is cast to "
                 "float. To disable this warning, please cast image_radon to float.")
            dtype = np.dtype(float)
    elif np.dtype(dtype).char not in "fd":
        raise ValueError("Only floating point data type are valid for inverse radon transform.")
    dtype = np.dtype(dtype)
    sino = sino.astype(dtype, copy=False)
    shape = (sino.shape[0], sino.shape[0])
    if theta is None:
        theta = np.linspace(0, 180, sino.shape[1], endpoint=False, dtype=dtype)
    elif len(theta) != sino.shape[1]:
        raise ValueError(f"Shape of theta ({len(theta)}) does not match the number of projections "
                         f"({sino.shape[1]})")
    else:
        theta = ix.host(theta, dtype)
    if image is None:
        image = xp.zeros(shape, dtype=dtype)
    else:
        image = ix.like_input(image, sino, "image")
        if image.shape != shape:
            raise ValueError(f"Shape of image ({image.shape}) does not match first dimension of radon_image "
                             f"({shape})")
        if image.dtype != dtype:
            warn(f"image dtype does not match output dtype: image is cast to {dtype}")
    image = xp.asarray(image, dtype=dtype)   # as scikit-image: updated in place when already dtype
    if projection_shifts is None:
        projection_shifts = np.zeros((sino.shape[1],), dtype=dtype)
    elif len(projection_shifts) != sino.shape[1]:
        raise ValueError(f"Shape of projection_shifts ({len(projection_shifts)}) does not match the number of "
                         f"projections ({sino.shape[1]})")
    else:
        projection_shifts = ix.host(projection_shifts, dtype)
    if clip is not None:
        if len(clip) != 2:
            raise ValueError("clip must be a length-2 sequence")
        clip = np.asarray(clip, dtype=dtype)
    update = xp.empty(shape, dtype=dtype)
    stream = ix.stream_of(sino)
    for a in order_angles_golden_ratio(theta):
        _fovea.tf_sart(xp.ascontiguousarray(image), xp.ascontiguousarray(sino[:, a]), update, float(theta[a]),
                       float(projection_shifts[a]), stream)
        image += relaxation * update
        if clip is not None:
            image = xp.clip(image, clip[0], clip[1])
    return back(image)
