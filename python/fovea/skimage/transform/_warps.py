"""resize, rescale, rotate, warp, warp_coords, downscale_local_mean, swirl,
warp_polar, resize_local_mean (skimage.transform._warps, scikit-image 0.26).

The pixel work runs in fovea.ndimage (zoom, gaussian_filter, map_coordinates:
C on all CPU cores for NumPy input, CUDA for CuPy input). scikit-image's
bilinear / bicubic path for a 3x3 matrix (its Cython ``_warp_fast``, whose
bicubic is Catmull-Rom cubic convolution, not a B-spline, and whose modes
work per tap) is written here in NumPy / CuPy array maths on the input's device.
"""

import numpy as np

from ... import _fovea, ndimage as ndi
from ... import _interop as ix
from ..._interop import prepare
from .._shared import convert_to_float, safe_as_int as _safe_as_int, supported_float_type
from ..measure import block_reduce
from ._geometric import AffineTransform, ProjectiveTransform, SimilarityTransform, _GeometricTransform

__all__ = ["resize", "rescale", "rotate", "warp", "warp_coords", "downscale_local_mean", "swirl", "warp_polar",
           "resize_local_mean"]

HOMOGRAPHY_TRANSFORMS = (SimilarityTransform, AffineTransform, ProjectiveTransform)

_NDI_MODES = {"constant": "grid-constant", "edge": "nearest", "symmetric": "reflect", "reflect": "mirror",
              "wrap": "grid-wrap"}


def _to_ndimage_mode(mode):
    if mode not in _NDI_MODES:
        raise ValueError(
            f"Unknown mode: '{mode}', or cannot translate mode. The mode should be one of 'constant', 'edge', "
            f"'symmetric', 'reflect', or 'wrap'. See the documentation of numpy.pad for more info.")
    return _NDI_MODES[mode]


def _validate_interpolation_order(image_dtype, order):
    if order is None:
        return 0 if image_dtype == bool else 1
    if order < 0 or order > 5:
        raise ValueError("Spline interpolation order has to be in the range 0-5.")
    if image_dtype == bool and order != 0:
        raise ValueError(
            "Input image dtype is bool. Interpolation is not defined with bool data type. Please set order to 0 or "
            "explicitly cast input image to another data type.")
    return order


def _clip_warp_output(input_image, output_image, mode, cval, clip, xp):
    """scikit-image's clipping to the input's value range (and cval, where
    mode='constant' put it in the output although it lies outside)."""
    if not clip:
        return
    min_val = float(xp.min(input_image))
    if np.isnan(min_val):
        min_func, max_func = xp.nanmin, xp.nanmax
        min_val = float(min_func(input_image))
    else:
        min_func, max_func = xp.min, xp.max
    max_val = float(max_func(input_image))
    dt = input_image.dtype.type
    min_val, max_val = dt(min_val), dt(max_val)
    preserve_cval = (mode == "constant" and not min_val <= cval <= max_val
                     and float(min_func(output_image)) <= cval <= float(max_func(output_image)))
    if preserve_cval:
        cval = dt(cval)
        min_val = min(min_val, cval)
        max_val = max(max_val, cval)
    xp.clip(output_image, xp.asarray(np.asarray(min_val)), xp.asarray(np.asarray(max_val)), out=output_image)


def _preprocess_resize_output_shape(image, output_shape):
    output_shape = tuple(output_shape)
    output_ndim = len(output_shape)
    input_shape = image.shape
    if output_ndim > image.ndim:
        input_shape += (1,) * (output_ndim - image.ndim)
        image = image.reshape(input_shape)
    elif output_ndim == image.ndim - 1:
        output_shape = output_shape + (image.shape[-1],)
    elif output_ndim < image.ndim:
        raise ValueError("output_shape length cannot be smaller than the image number of dimensions")
    return image, output_shape


def _resize(image, xp, output_shape, order=None, mode="reflect", cval=0, clip=True, preserve_range=False,
            anti_aliasing=None, anti_aliasing_sigma=None):
    image, output_shape = _preprocess_resize_output_shape(image, output_shape)
    output_shape = tuple(int(s) for s in output_shape)
    input_shape = image.shape
    input_type = image.dtype
    if input_type == np.float16:
        image = image.astype(np.float32)
    if anti_aliasing is None:
        anti_aliasing = (input_type != bool and not (np.issubdtype(input_type, np.integer) and order == 0)
                         and any(x < y for x, y in zip(output_shape, input_shape)))
    if input_type == bool and anti_aliasing:
        raise ValueError("anti_aliasing must be False for boolean images")
    factors = np.divide(input_shape, output_shape)
    order = _validate_interpolation_order(input_type, order)
    if order > 0:
        image = convert_to_float(image, preserve_range, xp)
    ndi_mode = _to_ndimage_mode(mode)
    if anti_aliasing:
        if anti_aliasing_sigma is None:
            anti_aliasing_sigma = np.maximum(0, (factors - 1) / 2)
        else:
            anti_aliasing_sigma = np.atleast_1d(anti_aliasing_sigma) * np.ones_like(factors)
            if np.any(anti_aliasing_sigma < 0):
                raise ValueError("Anti-aliasing standard deviation must be greater than or equal to zero")
            elif np.any((anti_aliasing_sigma > 0) & (factors <= 1)):
                import warnings

                warnings.warn("Anti-aliasing standard deviation greater than zero but not down-sampling along all "
                              "axes", stacklevel=3)
        filtered = ndi.gaussian_filter(image, anti_aliasing_sigma, cval=cval, mode=ndi_mode)
    else:
        filtered = image
    zoom_factors = [1 / f for f in factors]
    out = ndi.zoom(filtered, zoom_factors, order=order, mode=ndi_mode, cval=cval, grid_mode=True)
    _clip_warp_output(image, out, mode, cval, clip, xp)
    return out


def resize(image, output_shape, order=None, mode="reflect", cval=0, clip=True, preserve_range=False,
           anti_aliasing=None, anti_aliasing_sigma=None):
    """Resize image to output_shape (skimage.transform.resize).

    output_shape: one size per axis (or per axis but the last, which is then
    kept). order: spline order 0-5 (default 0 for bool, else 1). mode:
    'constant', 'edge', 'symmetric', 'reflect' or 'wrap' (numpy.pad names).
    anti_aliasing: Gaussian smoothing before down-sampling (default: on when
    down-sampling, except bool input and integer input at order 0), with
    sigma anti_aliasing_sigma (default max(0, (factor - 1) / 2)). Output dtype:
    the input's for order 0, float32 for float16/float32, else float64 (CuPy
    data: float32 for 8-/16-bit integers too, as cuCIM); values clipped to the
    input's range when clip. Same array type as image.
    """
    arr, xp, back = prepare(image)
    return back(_resize(arr, xp, output_shape, order, mode, cval, clip, preserve_range, anti_aliasing,
                        anti_aliasing_sigma))


def rescale(image, scale, order=None, mode="reflect", cval=0, clip=True, preserve_range=False, anti_aliasing=None,
            anti_aliasing_sigma=None, *, channel_axis=None):
    """Scale image by scale, one factor or one per spatial axis
    (skimage.transform.rescale); the output size is round(scale * size), at
    least 1. channel_axis: an axis that is not scaled. Other arguments as resize."""
    arr, xp, back = prepare(image)
    if channel_axis is not None:
        channel_axis = channel_axis % arr.ndim
        arr = xp.moveaxis(arr, channel_axis, -1)
    scale = np.atleast_1d(scale)
    multichannel = channel_axis is not None
    if len(scale) > 1:
        if (not multichannel and len(scale) != arr.ndim) or (multichannel and len(scale) != arr.ndim - 1):
            raise ValueError("Supply a single scale, or one value per spatial axis")
        if multichannel:
            scale = np.concatenate((scale, [1]))
    orig_shape = np.asarray(arr.shape)
    output_shape = np.maximum(np.round(scale * orig_shape), 1)
    if multichannel:
        output_shape[-1] = orig_shape[-1]
    out = _resize(arr, xp, output_shape, order, mode, cval, clip, preserve_range, anti_aliasing,
                  anti_aliasing_sigma)
    if channel_axis is not None:
        out = xp.moveaxis(out, -1, channel_axis)
    return back(out)


def rotate(image, angle, resize=False, center=None, order=None, mode="constant", cval=0, clip=True,
           preserve_range=False):
    """Rotate image by angle degrees counter-clockwise about center ((col, row);
    default the image centre) (skimage.transform.rotate). resize: grow the
    output to hold the whole rotated image. Other arguments as warp."""
    arr, xp, back = prepare(image)
    rows, cols = arr.shape[0], arr.shape[1]
    if arr.dtype == np.float16:
        arr = arr.astype(np.float32)
    if center is None:
        center = np.array((cols, rows)) / 2.0 - 0.5
    else:
        center = np.asarray(center)
    tform1 = SimilarityTransform(translation=center)
    tform2 = SimilarityTransform(rotation=np.deg2rad(angle))
    tform3 = SimilarityTransform(translation=-center)
    tform = tform3 + tform2 + tform1
    output_shape = None
    if resize:
        corners = np.array([[0, 0], [0, rows - 1], [cols - 1, rows - 1], [cols - 1, 0]])
        corners = tform.inverse(corners)
        minc = corners[:, 0].min()
        minr = corners[:, 1].min()
        maxc = corners[:, 0].max()
        maxr = corners[:, 1].max()
        output_shape = np.around((maxr - minr + 1, maxc - minc + 1))
        tform4 = SimilarityTransform(translation=(minc, minr))
        tform = tform4 + tform
    tform.params[2] = (0, 0, 1)
    return back(_warp(arr, xp, tform, output_shape=output_shape, order=order, mode=mode, cval=cval, clip=clip,
                      preserve_range=preserve_range))


def downscale_local_mean(image, factors, cval=0, clip=True):
    """Down-sample image by the mean over blocks of size factors (one integer
    per axis), padding partial blocks with cval (skimage.transform.downscale_local_mean).
    clip is accepted for compatibility and unused, as in scikit-image."""
    return block_reduce(image, factors, np.mean, cval)


def _stackcopy(a, b):
    if a.ndim == 3:
        a[:] = b[:, :, np.newaxis]
    else:
        a[:] = b


def warp_coords(coord_map, shape, dtype=np.float64):
    """Coordinates (ndim, rows, cols[, channels]) for warping an image of the given
    output shape with coord_map, a function of an (N, 2) array of (col, row)
    output coordinates returning input (col, row) coordinates
    (skimage.transform.warp_coords). Host (NumPy) maths."""
    shape = _safe_as_int(shape)
    rows, cols = shape[0], shape[1]
    coords_shape = [len(shape), rows, cols]
    if len(shape) == 3:
        coords_shape.append(shape[2])
    coords = np.empty(coords_shape, dtype=dtype)
    tf_coords = np.indices((cols, rows), dtype=dtype).reshape(2, -1).T
    tf_coords = coord_map(tf_coords)
    tf_coords = tf_coords.T.reshape((-1, cols, rows)).swapaxes(1, 2)
    _stackcopy(coords[1, ...], tf_coords[0, ...])
    _stackcopy(coords[0, ...], tf_coords[1, ...])
    if len(shape) == 3:
        coords[2, ...] = range(shape[2])
    return coords


# ---- scikit-image's _warp_fast (bilinear and bicubic for a 3x3 matrix) -----------------------

def _map_index(idx, n, mode, xp):
    """Integer tap positions folded into [0, n) by scikit-image's per-tap modes
    ('constant' leaves them, the caller masks them)."""
    if mode == "edge":
        return xp.clip(idx, 0, n - 1)
    if mode == "wrap":
        return idx % n
    if mode == "symmetric":
        m = idx % (2 * n)
        return xp.where(m >= n, 2 * n - 1 - m, m)
    if mode == "reflect":
        if n == 1:
            return xp.zeros_like(idx)
        m = idx % (2 * n - 2)
        return xp.where(m >= n, 2 * n - 2 - m, m)
    return idx


def _taps(image, r_idx, c_idx, mode, cval, xp):
    rows, cols = image.shape
    rr = _map_index(r_idx, rows, mode, xp)
    cc = _map_index(c_idx, cols, mode, xp)
    if mode == "constant":
        inside = (rr >= 0) & (rr < rows) & (cc >= 0) & (cc < cols)
        vals = image[xp.clip(rr, 0, rows - 1), xp.clip(cc, 0, cols - 1)]
        return xp.where(inside, vals, image.dtype.type(cval))
    return image[rr, cc]


def _cubic(x, f0, f1, f2, f3):
    # Catmull-Rom cubic convolution, as scikit-image's cubic_interpolation
    return f1 + 0.5 * x * (f2 - f0 + x * (2.0 * f0 - 5.0 * f1 + 4.0 * f2 - f3 + x * (3.0 * (f1 - f2) + f3 - f0)))


def _warp_fast(image, matrix, output_shape, order, mode, cval, xp):
    """One 2-d plane (float32 or float64) warped by a 3x3 inverse matrix, in the
    image's float type as scikit-image computes it."""
    dt = image.dtype.type
    out_r, out_c = int(output_shape[0]), int(output_shape[1])
    m = [[dt(v) for v in row] for row in np.asarray(matrix, dtype=image.dtype)]
    tr = xp.arange(out_r, dtype=image.dtype)[:, None]
    tc = xp.arange(out_c, dtype=image.dtype)[None, :]
    x = m[0][0] * tc + m[0][1] * tr + m[0][2]
    y = m[1][0] * tc + m[1][1] * tr + m[1][2]
    z = m[2][0] * tc + m[2][1] * tr + m[2][2]
    c = x / z
    r = y / z
    if order == 1:
        minr = xp.floor(r)
        minc = xp.floor(c)
        maxr = xp.ceil(r)
        maxc = xp.ceil(c)
        dr = r - minr
        dc = c - minc
        minr, minc, maxr, maxc = (a.astype(np.int64) for a in (minr, minc, maxr, maxc))
        top = (1 - dc) * _taps(image, minr, minc, mode, cval, xp) + dc * _taps(image, minr, maxc, mode, cval, xp)
        bottom = (1 - dc) * _taps(image, maxr, minc, mode, cval, xp) + dc * _taps(image, maxr, maxc, mode, cval, xp)
        return ((1 - dr) * top + dr * bottom).astype(image.dtype, copy=False)
    r0f = xp.floor(r)
    c0f = xp.floor(c)
    xr = r - r0f
    xc = c - c0f
    r0 = r0f.astype(np.int64) - 1
    c0 = c0f.astype(np.int64) - 1
    fr = []
    for pr in range(4):
        fc = [_taps(image, r0 + pr, c0 + pc, mode, cval, xp) for pc in range(4)]
        fr.append(_cubic(xc, *fc))
    return _cubic(xr, *fr).astype(image.dtype, copy=False)


_WARP_MODES = {"constant": 0, "edge": 1, "symmetric": 2, "reflect": 3, "wrap": 4}   # fv_warp_mode


def _warp_fast_c(image, matrix, output_shape, order, mode, cval, xp):
    """_warp_fast of an image (2-d, or channels last) in C, on all CPU cores or on the
    GPU for CuPy data (fv_warp_homography): the same arithmetic as _warp_fast's array
    maths, step by step."""
    out = xp.empty((int(output_shape[0]), int(output_shape[1])) + image.shape[2:], dtype=image.dtype)
    _fovea.sk_warp_homography(image, out, np.asarray(matrix, dtype=np.float64).ravel().tolist(), order,
                              _WARP_MODES[mode], float(cval), ix.stream_of(image))
    return out


def _warp(image, xp, inverse_map, map_args=None, output_shape=None, order=None, mode="constant", cval=0.0, clip=True,
          preserve_range=False):
    if map_args is None:
        map_args = {}
    if image.size == 0:
        raise ValueError("Cannot warp empty image with dimensions", image.shape)
    order = _validate_interpolation_order(image.dtype, order)
    if order > 0:
        image = convert_to_float(image, preserve_range, xp)
        if image.dtype == np.float16:
            image = image.astype(np.float32)
    input_shape = np.array(image.shape)
    if output_shape is None:
        output_shape = input_shape
    else:
        output_shape = _safe_as_int(output_shape)
    if mode not in _NDI_MODES:
        _to_ndimage_mode(mode)
    if order == 2:
        import warnings

        warnings.warn("Bi-quadratic interpolation behavior has changed due to a bug in the implementation of "
                      "scikit-image. The new version now serves as a wrapper around SciPy's interpolation "
                      "functions, which itself is not verified to be a correct implementation. Until skimage's "
                      "implementation is fixed, we recommend to use bi-linear or bi-cubic interpolation instead.",
                      stacklevel=3)
    host_matrix = _as_host_matrix(inverse_map)
    warped = None
    if order in (1, 3) and not map_args:
        matrix = None
        if host_matrix is not None and host_matrix.shape == (3, 3):
            matrix = host_matrix
        elif _is_homography(inverse_map):
            matrix = inverse_map.params
        elif getattr(inverse_map, "__name__", None) == "inverse" and _is_homography(
                getattr(inverse_map, "__self__", None)):
            matrix = np.linalg.inv(inverse_map.__self__.params)
        if matrix is not None:
            if (image.ndim in (2, 3) and image.dtype in (np.float32, np.float64) and image.dtype.isnative
                    and mode in _WARP_MODES):
                warped = _warp_fast_c(image, matrix, output_shape, order, mode, cval, xp)
            elif image.ndim == 2:
                warped = _warp_fast(image, matrix, output_shape, order, mode, cval, xp)
            elif image.ndim == 3:
                warped = xp.stack([_warp_fast(image[..., d], matrix, output_shape, order, mode, cval, xp)
                                   for d in range(image.shape[2])], axis=-1)
    if warped is None:
        if host_matrix is not None and host_matrix.shape == (3, 3):
            inverse_map = ProjectiveTransform(matrix=host_matrix)
        if _is_array(inverse_map):
            coords = inverse_map
        else:
            if image.ndim < 2 or image.ndim > 3:
                raise ValueError("Only 2-D images (grayscale or color) are supported, when providing a callable "
                                 "`inverse_map`.")
            if xp is not np and not (_is_homography(inverse_map) or isinstance(inverse_map, _GeometricTransform)):
                raise TypeError("fovea.skimage.transform.warp: a callable inverse_map runs on the host and cannot "
                                "be used with GPU data; pass a 3x3 matrix, a transform object or a coordinate "
                                "array instead")

            def coord_map(*args):
                return inverse_map(*args, **map_args)

            if len(input_shape) == 3 and len(output_shape) == 2:
                output_shape = (output_shape[0], output_shape[1], input_shape[2])
            if xp is not np and hasattr(inverse_map, "_map_xy") and not map_args:   # polynomial, TPS: on the GPU
                coords = _mapped_coords(xp, lambda x, y: inverse_map._map_xy(xp, x, y), output_shape,
                                        input_shape[2] if len(input_shape) == 3 else None)
            elif xp is not np and _is_homography(inverse_map) and not map_args:
                # orders 0, 2, 4, 5 of a matrix on the GPU: the coordinates made there (they
                # were computed on the host, 1.5 s for a 4096^2 rotation), as the matrix's
                # __call__ computes them: (M @ [x, y, 1]) with x, y divided by the third row
                m = np.asarray(ix.to_host(inverse_map.params), dtype=np.float64)
                coords = _mapped_coords(xp, lambda x, y: _project(m, x, y), output_shape,
                                        input_shape[2] if len(input_shape) == 3 else None)
            else:
                coords = warp_coords(coord_map, output_shape)
                if xp is not np:
                    coords = xp.asarray(coords)
        prefilter = order > 1
        warped = ndi.map_coordinates(image, coords, prefilter=prefilter, mode=_to_ndimage_mode(mode), order=order,
                                     cval=cval)
    _clip_warp_output(image, warped, mode, cval, clip, xp)
    return warped


def _is_homography(obj):
    """fovea's matrix transforms, or another library's of the same family (a class
    named ProjectiveTransform among its bases, as scikit-image's), with .params."""
    if isinstance(obj, HOMOGRAPHY_TRANSFORMS):
        return True
    return hasattr(obj, "params") and any(c.__name__ == "ProjectiveTransform" for c in type(obj).__mro__)


def _is_array(obj):
    return hasattr(obj, "shape") and hasattr(obj, "dtype") and not callable(obj)


def _as_host_matrix(inverse_map):
    """inverse_map as a host NumPy array when it is a (3, 3) array (NumPy or CuPy)."""
    if _is_array(inverse_map) and tuple(inverse_map.shape) == (3, 3):
        if isinstance(inverse_map, np.ndarray):
            return inverse_map
        get = getattr(inverse_map, "get", None)
        return np.asarray(get() if get is not None else inverse_map)
    return None


def warp(image, inverse_map, map_args=None, output_shape=None, order=None, mode="constant", cval=0.0, clip=True,
         preserve_range=False):
    """Warp image by an inverse coordinate map (skimage.transform.warp).

    inverse_map: a 3x3 homogeneous matrix mapping output (col, row) to input
    (col, row); a transform object (EuclideanTransform, SimilarityTransform,
    AffineTransform, ProjectiveTransform or their ``.inverse``); a coordinate
    array of shape (image.ndim, *output_shape) as map_coordinates takes; or a
    callable of an (N, 2) array of (col, row) coordinates (with map_args; NumPy
    input only -- GPU data raises TypeError). Orders 1 and 3 with a matrix use
    scikit-image's bilinear / Catmull-Rom bicubic; other cases B-splines of
    fovea.ndimage.map_coordinates. Dtype, clip and preserve_range as resize.
    """
    arr, xp, back = prepare(image)
    if _is_array(inverse_map) and tuple(inverse_map.shape) != (3, 3) and xp is not np \
            and isinstance(inverse_map, np.ndarray):
        inverse_map = xp.asarray(inverse_map)
    return back(_warp(arr, xp, inverse_map, map_args, output_shape, order, mode, cval, clip, preserve_range))


# ---- swirl, warp_polar: their inverse maps computed as coordinate arrays on the data's device ----

def _project(m, x, y):
    """(x, y) mapped by the 3x3 homography m, element-wise (any array module)."""
    z = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    return (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / z, (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / z


def _mapped_coords(xp, mapping, output_shape, nchannels):
    """What warp builds from a callable (warp_coords): the input (row, col[,
    channel]) coordinates of every output pixel, with the map applied to the
    output (col, row) grids as xp arrays (element-wise, so on the GPU for CuPy data)."""
    rows, cols = int(output_shape[0]), int(output_shape[1])
    x = xp.broadcast_to(xp.arange(cols, dtype=np.float64)[None, :], (rows, cols))
    y = xp.broadcast_to(xp.arange(rows, dtype=np.float64)[:, None], (rows, cols))
    cc, rr = mapping(x, y)
    if nchannels is None:
        return xp.stack((rr, cc))
    coords = xp.empty((3, rows, cols, nchannels), dtype=np.float64)
    coords[0] = rr[..., None]
    coords[1] = cc[..., None]
    coords[2] = xp.arange(nchannels, dtype=np.float64)
    return coords


def _warp_mapped(image, xp, mapping, output_shape, order=None, mode="constant", cval=0.0, clip=True,
                 preserve_range=False):
    if image.size == 0:
        raise ValueError("Cannot warp empty image with dimensions", image.shape)
    if image.ndim < 2 or image.ndim > 3:
        raise ValueError("Only 2-D images (grayscale or color) are supported, when providing a callable "
                         "`inverse_map`.")
    shape = image.shape if output_shape is None else tuple(_safe_as_int(output_shape))
    coords = _mapped_coords(xp, mapping, shape, image.shape[2] if image.ndim == 3 else None)
    return _warp(image, xp, coords, None, None, order, mode, cval, clip, preserve_range)


def swirl(image, center=None, strength=1, radius=100, rotation=0, output_shape=None, order=None, mode="reflect",
          cval=0, clip=True, preserve_range=False):
    """Swirl image about center ((col, row); default the image centre) by
    strength, decaying over radius pixels, plus rotation radians
    (skimage.transform.swirl). Other arguments as warp (mode default 'reflect')."""
    arr, xp, back = prepare(image)
    if center is None:
        center = np.array(arr.shape)[:2][::-1] / 2
    x0, y0 = center
    decay = radius / 5 * np.log(2)

    def mapping(x, y):
        rho = xp.sqrt((x - x0) ** 2 + (y - y0) ** 2)
        theta = rotation + strength * xp.exp(-rho / decay) + xp.arctan2(y - y0, x - x0)
        return x0 + rho * xp.cos(theta), y0 + rho * xp.sin(theta)

    return back(_warp_mapped(arr, xp, mapping, output_shape, order, mode, cval, clip, preserve_range))


def _warp_kwargs(order=None, mode="constant", cval=0.0, clip=True, preserve_range=False):
    return {"order": order, "mode": mode, "cval": cval, "clip": clip, "preserve_range": preserve_range}


def warp_polar(image, center=None, *, radius=None, output_shape=None, scaling="linear", channel_axis=None,
               **kwargs):
    """Remap image to polar (scaling 'linear') or log-polar ('log') coordinates
    about center ((row, col); default the image centre) out to radius (default
    the half-diagonal) (skimage.transform.warp_polar). Output rows are angles
    (360 by default), columns radii (ceil(radius) by default). channel_axis:
    the channels of a 3-d image. kwargs: warp's order, mode, cval, clip,
    preserve_range."""
    arr, xp, back = prepare(image)
    kw = _warp_kwargs(**kwargs)
    moved = channel_axis is not None and not (channel_axis == -1 or channel_axis == (-1,))
    if channel_axis is not None:
        axis = channel_axis if np.isscalar(channel_axis) else tuple(channel_axis)
        if not np.isscalar(axis):
            if len(axis) > 1:
                raise ValueError("only a single channel axis is currently supported")
            axis = axis[0]
        if moved:
            arr = xp.moveaxis(arr, axis, -1)
    if arr.ndim != 2 and channel_axis is None:
        raise ValueError(f"Input array must be 2-dimensional when `channel_axis=None`, got {arr.ndim}")
    if arr.ndim != 3 and channel_axis is not None:
        raise ValueError(f"Input array must be 3-dimensional when `channel_axis` is specified, got {arr.ndim}")
    if center is None:
        center = (np.array(arr.shape)[:2] / 2) - 0.5
    if radius is None:
        w, h = np.array(arr.shape)[:2] / 2
        radius = np.sqrt(w ** 2 + h ** 2)
    if output_shape is None:
        height, width = 360, int(np.ceil(radius))
        output_shape = (height, width)
    else:
        output_shape = _safe_as_int(output_shape)
        height, width = output_shape[0], output_shape[1]
    if scaling == "linear":
        k_radius = width / radius
        scale = lambda x: x / k_radius  # noqa: E731
    elif scaling == "log":
        k_radius = width / np.log(radius)
        scale = lambda x: xp.exp(x / k_radius)  # noqa: E731
    else:
        raise ValueError("Scaling value must be in {'linear', 'log'}")
    k_angle = height / (2 * np.pi)

    def mapping(x, y):
        angle = y / k_angle
        r = scale(x)
        return r * xp.cos(angle) + center[1], r * xp.sin(angle) + center[0]

    out = _warp_mapped(arr, xp, mapping, output_shape, **kw)
    if moved:
        out = xp.moveaxis(out, -1, axis)
    return back(out)


# ---- resize_local_mean: the C op RESIZE_MEAN (src/ops/interpolation/resize-mean.h) ----

def _local_mean(image, xp, output_shape, grid_mode, preserve_range):
    """image resampled to output_shape (same ndim) by area-weighted means, in the
    float type convert_to_float gives (the op reads any dtype and writes float)."""
    output_shape = tuple(int(s) for s in output_shape)
    if any(s < 0 for s in output_shape):
        raise ValueError(f"negative dimensions are not allowed: {output_shape}")
    dt = np.dtype(image.dtype)
    scale = None
    if dt.kind == "f":
        if dt.itemsize < 4 or not dt.isnative or dt.itemsize > 8:
            image = image.astype(np.float32 if dt.itemsize < 4 else np.float64)
    elif preserve_range or dt.kind in "ub":
        if not dt.isnative:
            image = image.astype(dt.newbyteorder("="))
        if not preserve_range and dt.kind == "u":
            scale = 1.0 / np.iinfo(dt).max   # img_as_float of unsigned integers is linear
    else:
        image = convert_to_float(image, preserve_range, xp)   # signed: img_as_float clips at -1 first
    if np.dtype(image.dtype).kind == "c" or np.dtype(image.dtype).kind not in "biuf":
        raise TypeError(f"resize_local_mean: unsupported dtype {dt}")
    out_dt = supported_float_type(image, xp=xp)   # integers left as they are: their float type
    out = xp.empty(output_shape, dtype=out_dt)
    if image.ndim == 0 or out.size == 0:
        out[...] = image.astype(out_dt) if out.size else out
    else:
        _fovea.resize_local_mean(image, out, bool(grid_mode), ix.stream_of(image))
    if scale is not None:
        out *= scale
    return out


def resize_local_mean(image, output_shape, grid_mode=True, preserve_range=False, *, channel_axis=None):
    """Resize image to output_shape by the local (area-weighted) mean
    (skimage.transform.resize_local_mean): each output pixel is the mean of the
    input pixels it covers, weighted by the overlap (pixel mixing; grid_mode:
    pixels are cells, as OpenCV's INTER_AREA, else points at the cell centres).
    output_shape: one size per axis (the last may be left out: kept; longer:
    singleton axes appended); with channel_axis, that axis is kept and may be
    left out of output_shape. Output float32 for float16/float32 input, else
    float64, integers scaled as img_as_float unless preserve_range. Runs the C
    op RESIZE_MEAN on the data's device (CPU cores or CUDA)."""
    arr, xp, back = prepare(image)
    output_shape = tuple(output_shape)
    if channel_axis is not None:
        if channel_axis < -arr.ndim or channel_axis >= arr.ndim:
            raise ValueError("invalid channel_axis")
        axis = channel_axis % arr.ndim
        arr = xp.moveaxis(arr, axis, -1)
        nc = arr.shape[-1]
        if len(output_shape) == arr.ndim - 1:
            output_shape = output_shape + (nc,)
        elif len(output_shape) == arr.ndim:
            if output_shape[channel_axis] != nc:
                raise ValueError("Cannot reshape along the channel_axis. Use channel_axis=None to reshape along "
                                 "all axes.")
            output_shape = output_shape[:axis] + output_shape[axis + 1:] + (nc,)
        else:
            raise ValueError("len(output_shape) must be image.ndim or (image.ndim - 1) when a channel_axis is "
                             "specified.")
    else:
        arr, output_shape = _preprocess_resize_output_shape(arr, output_shape)
    out = _local_mean(arr, xp, output_shape, grid_mode, preserve_range)
    if channel_axis is not None:
        out = xp.moveaxis(out, -1, axis)
    return back(out)
