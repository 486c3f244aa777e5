"""The homogeneous-matrix transforms of skimage.transform._geometric (scikit-image
0.26): EuclideanTransform, SimilarityTransform, AffineTransform,
ProjectiveTransform, and matrix_transform. Plain NumPy matrix maths on the host
(parameters and point sets are small: CuPy point sets are copied to the host and
the results handed back as CuPy); the classes are fovea's own, written after
scikit-image's. The other transforms: _epipolar.py, _nonlinear.py.
"""

import math
import textwrap
import warnings

import numpy as np

__all__ = ["FailedEstimation", "ProjectiveTransform", "AffineTransform", "EuclideanTransform",
           "SimilarityTransform", "matrix_transform"]


class FailedEstimationAccessError(AttributeError):
    """Use of a FailedEstimation as if it were a transform."""


class FailedEstimation:
    """What ``from_estimate`` returns when the estimation fails: false in a truth
    test, with the reason in ``message``; any other use raises
    FailedEstimationAccessError (as scikit-image's, with its messages)."""

    error_cls = FailedEstimationAccessError
    hint = ("You can check for a failed estimation by truth testing the returned object. For failed estimations, "
            "`bool(estimation_result)` will be `False`. E.g.\n\n"
            "    if not estimation_result:\n"
            "        raise RuntimeError(f'Failed estimation: {estimation_result}')")

    def __init__(self, message):
        self.message = message

    def __bool__(self):
        return False

    def __repr__(self):
        return f"{type(self).__name__}({self.message!r})"

    def __str__(self):
        return self.message

    def __call__(self, *args, **kwargs):
        raise self.error_cls(f"{type(self).__name__} is not callable. {self.message}\n\nHint: {self.hint}")

    def __getattr__(self, name):
        raise self.error_cls(f"{type(self).__name__} has no attribute {name!r}. {self.message}\n\nHint: {self.hint}")


def _warn_estimate(obj):
    warnings.warn(f"`estimate` is deprecated since version 0.26 and will be removed in version 2.2. Please use "
                  f"`{type(obj).__name__}.from_estimate` class constructor instead.", FutureWarning, stacklevel=3)


def _host_points(points):
    get = getattr(points, "get", None)   # CuPy point sets come to the host
    if get is not None and not isinstance(points, np.ndarray):
        points = get()
    return np.array(points, ndmin=2, copy=None)


def _like_points(result, points):
    """result (a NumPy array) as CuPy when points were CuPy."""
    if not isinstance(points, np.ndarray) and getattr(points, "get", None) is not None:
        import cupy

        return cupy.asarray(result)
    return result


def _append_homogeneous_dim(points):
    return np.hstack((points, np.ones((len(points), 1))))


def _apply_homogeneous(matrix, points):
    points = _host_points(points)
    points_h = np.hstack((points, np.ones((len(points), 1))))
    new_points_h = points_h @ matrix.T
    divs = new_points_h[:, -1]
    divs = np.where(divs == 0, np.finfo(float).eps, divs)
    return new_points_h[:, :-1] / divs[:, None]


def _calc_center_normalize(points, scaling="rms"):
    """The matrix centring points on their centroid and scaling them to an RMS
    coordinate of 1 ('rms'), a mean distance of sqrt(D) ('mrs'), or the identity
    ('raw'); all NaN when the points coincide."""
    n, d = points.shape
    scaling = scaling.lower()
    matrix = np.eye(d + 1)
    if scaling == "raw":
        return matrix
    centroid = np.mean(points, axis=0)
    centered = points - centroid
    if scaling == "rms":
        divisor = np.sqrt(np.mean(centered ** 2))
    elif scaling == "mrs":
        divisor = np.mean(np.sqrt(np.sum(centered ** 2, axis=1))) / np.sqrt(d)
    else:
        raise ValueError(f'Unexpected "scaling" of "{scaling}"')
    if divisor == 0:
        return matrix + np.nan
    matrix[:d, d] = -centroid
    matrix[:d, :] /= divisor
    return matrix


def _center_and_normalize_points(points, scaling="rms"):
    matrix = _calc_center_normalize(points, scaling)
    if not np.all(np.isfinite(matrix)):
        return matrix + np.nan, np.full_like(points, np.nan)
    return matrix, _apply_homogeneous(matrix, points)


def _umeyama(src, dst, estimate_scale):
    """Least-squares rigid (or similarity) transform of src onto dst (Umeyama 1991)."""
    num, dim = src.shape
    src_mean = src.mean(axis=0)
    dst_mean = dst.mean(axis=0)
    src_demean = src - src_mean
    dst_demean = dst - dst_mean
    A = dst_demean.T @ src_demean / num
    d = np.ones((dim,), dtype=np.float64)
    if np.linalg.det(A) < 0:
        d[dim - 1] = -1
    T = np.eye(dim + 1, dtype=np.float64)
    U, S, V = np.linalg.svd(A)
    tol = S.max() * np.max(A.shape) * np.finfo(float).eps
    rank = np.count_nonzero(S > tol)
    if rank == 0:
        return np.nan * T
    elif rank == dim - 1:
        if np.linalg.det(U) * np.linalg.det(V) > 0:
            T[:dim, :dim] = U @ V
        else:
            s = d[dim - 1]
            d[dim - 1] = -1
            T[:dim, :dim] = U @ np.diag(d) @ V
            d[dim - 1] = s
    else:
        T[:dim, :dim] = U @ np.diag(d) @ V
    scale = 1.0 / src_demean.var(axis=0).sum() * (S @ d) if estimate_scale else 1.0
    T[:dim, dim] = dst_mean - scale * (T[:dim, :dim] @ src_mean.T)
    T[:dim, :dim] *= scale
    return T


def _euler_xyz(angles):
    """Rotation matrix of intrinsic X-Y-Z Euler angles (radians)."""
    a, b, c = angles
    rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    rz = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
    return rx @ ry @ rz


class _GeometricTransform:
    """What every transform has: residuals, from_estimate (through the
    class's _estimate, which returns None or the failure's message)."""

    def residuals(self, src, dst):
        """Euclidean distance of each transformed src point to its dst point."""
        res = np.sqrt(np.sum((_host_points(self(_host_points(src))) - _host_points(dst)) ** 2, axis=1))
        return _like_points(res, src)

    @classmethod
    def from_estimate(cls, src, dst, *args, **kwargs):
        """The transform estimated from point pairs, or a FailedEstimation (false
        in a truth test, its message in str())."""
        return cls._from_estimate(src, dst, *args, **kwargs)

    @classmethod
    def _from_estimate(cls, src, dst, *args, **kwargs):
        src = _host_points(src)
        dst = _host_points(dst)
        tf = cls.identity(src.shape[1])
        msg = tf._estimate(src, dst, *args, **kwargs)
        return tf if msg is None else FailedEstimation(f"{cls.__name__}: {msg}")


class _HMatrixTransform(_GeometricTransform):
    """A transform held as a square homogeneous matrix ``params`` (matrix=None:
    the identity of the dimensionality, default 2); 2-d only unless a subclass
    widens _check_dims."""

    def __init__(self, matrix=None, *, dimensionality=None):
        if matrix is None:
            d = 2 if dimensionality is None else dimensionality
            matrix = np.eye(d + 1)
        else:
            matrix = np.asarray(matrix)
        if dimensionality is not None and dimensionality != matrix.shape[0] - 1:
            raise ValueError(f"Dimensionality {dimensionality} does not match matrix {matrix}")
        m = matrix.shape[0]
        if matrix.shape != (m, m):
            raise ValueError("Invalid shape of transformation matrix")
        self._check_dims(m - 1)
        self.params = matrix

    def _check_dims(self, d):
        if d != 2:
            raise NotImplementedError(f"Input for {type(self)} should result in 2D transform")

    @property
    def dimensionality(self):
        return self.params.shape[0] - 1

    @classmethod
    def identity(cls, dimensionality=None):
        d = 2 if dimensionality is None else dimensionality
        return cls(matrix=np.eye(d + 1))


class ProjectiveTransform(_HMatrixTransform):
    """Projective transform (homography) of any dimensionality >= 2, a
    (d+1)x(d+1) matrix ``params`` acting on homogeneous (x, y[, z...]) points."""

    scaling = "rms"

    def _check_dims(self, d):
        if d < 2:
            raise NotImplementedError(f"Input for {type(self)} should result in transform of >=2D")

    @property
    def _coeff_inds(self):
        return range(self.params.size - 1)

    def __array__(self, dtype=None, copy=None):
        return self.params if dtype is None else self.params.astype(dtype)

    def __call__(self, coords):
        """Apply the transform to (N, d) points."""
        return _like_points(_apply_homogeneous(self.params, coords), coords)

    @property
    def inverse(self):
        """The inverse transform (same class)."""
        return type(self)(matrix=np.linalg.inv(self.params))

    @classmethod
    def from_estimate(cls, src, dst, weights=None):
        """The transform estimated from point pairs (least squares, total least
        squares for projective/affine), or a FailedEstimation (false in a truth test)."""
        return cls._from_estimate(src, dst, weights)

    def estimate(self, src, dst, weights=None):
        """Estimate in place from point pairs; True on success (deprecated in
        scikit-image 0.26, as here: a FutureWarning; use from_estimate)."""
        _warn_estimate(self)
        return self._estimate(_host_points(src), _host_points(dst), weights) is None

    def _estimate(self, src, dst, weights=None):
        n, d = src.shape
        fail_matrix = np.full((d + 1, d + 1), np.nan)
        src_matrix, src = _center_and_normalize_points(src)
        dst_matrix, dst = _center_and_normalize_points(dst)
        if not np.all(np.isfinite(src_matrix + dst_matrix)):
            self.params = fail_matrix
            return "Scaling generated NaN values"
        A = np.zeros((n * d, (d + 1) ** 2))
        for ddim in range(d):
            rows = slice(ddim * n, (ddim + 1) * n)
            A[rows, ddim * (d + 1):ddim * (d + 1) + d] = src
            A[rows, ddim * (d + 1) + d] = 1
            A[rows, -d - 1:-1] = src
            A[rows, -1] = -1
            A[rows, -d - 1:] *= -dst[:, ddim:ddim + 1]
        A = A[:, list(self._coeff_inds) + [-1]]
        if weights is None:
            _, _, V = np.linalg.svd(A)
        else:
            weights = np.asarray(weights)
            W = np.diag(np.tile(np.sqrt(weights / np.max(weights)), d))
            _, _, V = np.linalg.svd(W @ A)
        if np.isclose(V[-1, -1], 0):
            self.params = fail_matrix
            return "Right singular vector has 0 final element"
        H = np.zeros((d + 1, d + 1))
        H.flat[list(self._coeff_inds) + [-1]] = -V[-1, :-1] / V[-1, -1]
        H[d, d] = 1
        H = np.linalg.inv(dst_matrix) @ H @ src_matrix
        H /= H[-1, -1]
        self.params = H
        return None

    def __add__(self, other):
        """self followed by other: the same class when both are, else projective."""
        if isinstance(other, ProjectiveTransform):
            tform = self.__class__ if type(self) is type(other) else ProjectiveTransform
            return tform(other.params @ self.params)
        raise TypeError("Cannot combine transformations of differing types.")

    def __nice__(self):
        npstring = np.array2string(self.params, separator=", ")
        return "matrix=\n" + textwrap.indent(npstring, "    ")

    def __repr__(self):
        return f"<{type(self).__name__}({self.__nice__()}) at {hex(id(self))}>"

    def __str__(self):
        return f"<{type(self).__name__}({self.__nice__()})>"


class AffineTransform(ProjectiveTransform):
    """Affine transform: a matrix, or (2-d) scale, rotation (radians), shear
    (radians, one angle for x or (x, y)) and translation."""

    def __init__(self, matrix=None, *, scale=None, shear=None, rotation=None, translation=None,
                 dimensionality=None):
        if any(p is not None for p in (scale, rotation, shear, translation)):
            if matrix is not None:
                raise ValueError("Do not specify any implicit parameters when matrix is specified.")
            if dimensionality is not None and dimensionality > 2:
                raise ValueError("Implicit parameters only valid for 2D transforms")
            matrix = self._srst2matrix(scale, rotation, shear, translation)
            if matrix.shape[0] != 3:
                raise ValueError("Implicit parameters must give 2D transforms")
        super().__init__(matrix=matrix, dimensionality=dimensionality)

    @property
    def _coeff_inds(self):
        return range(self.dimensionality * (self.dimensionality + 1))

    @staticmethod
    def _srst2matrix(scale, rotation, shear, translation):
        scale = (1, 1) if scale is None else scale
        sx, sy = (scale, scale) if np.isscalar(scale) else scale
        rotation = 0 if rotation is None else rotation
        if not np.isscalar(rotation):
            raise ValueError("rotation must be scalar (2D rotation)")
        shear = 0 if shear is None else shear
        shear_x, shear_y = (shear, 0) if np.isscalar(shear) else shear
        translation = (0, 0) if translation is None else translation
        if np.isscalar(translation):
            raise ValueError("translation must be length 2")
        a2, b2 = translation
        a0 = sx * (math.cos(rotation) + math.tan(shear_y) * math.sin(rotation))
        a1 = -sy * (math.tan(shear_x) * math.cos(rotation) + math.sin(rotation))
        b0 = sx * (math.sin(rotation) - math.tan(shear_y) * math.cos(rotation))
        b1 = -sy * (math.tan(shear_x) * math.sin(rotation) - math.cos(rotation))
        return np.array([[a0, a1, a2], [b0, b1, b2], [0, 0, 1]])

    @property
    def scale(self):
        if self.dimensionality != 2:
            return np.sqrt(np.sum(self.params ** 2, axis=0))[:self.dimensionality]
        ss = np.sum(self.params ** 2, axis=0)
        ss[1] = ss[1] / (math.tan(self.shear) ** 2 + 1)
        return np.sqrt(ss)[:self.dimensionality]

    @property
    def rotation(self):
        if self.dimensionality != 2:
            raise NotImplementedError("The rotation property is only implemented for 2D transforms.")
        return math.atan2(self.params[1, 0], self.params[0, 0])

    @property
    def shear(self):
        if self.dimensionality != 2:
            raise NotImplementedError("The shear property is only implemented for 2D transforms.")
        beta = math.atan2(-self.params[0, 1], self.params[1, 1])
        return beta - self.rotation

    @property
    def translation(self):
        return self.params[0:self.dimensionality, self.dimensionality]


class EuclideanTransform(ProjectiveTransform):
    """Rotation and translation (2-d: an angle in radians; 3-d: XYZ Euler angles)."""

    _estimate_scale = False

    def __init__(self, matrix=None, *, rotation=None, translation=None, dimensionality=None):
        if rotation is not None or translation is not None:
            if matrix is not None:
                raise ValueError("Do not specify any implicit parameters when matrix is specified.")
            n_dims, msg = self._rt2ndims_msg(rotation, translation)
            if msg is not None:
                raise ValueError(msg)
            matrix = self._rt2matrix(rotation, translation, n_dims)
        super().__init__(matrix=matrix, dimensionality=dimensionality)

    @staticmethod
    def _rt2ndims_msg(rotation, translation):
        if rotation is not None:
            n = 1 if np.isscalar(rotation) else len(rotation)
            msg = "``rotations`` must be scalar (3D) or length 3 (3D)" if n not in (1, 3) else None
            return (2 if n == 1 else n), msg
        if translation is not None:
            return (2 if np.isscalar(translation) else len(translation)), None
        return None, None

    @staticmethod
    def _rt2matrix(rotation, translation, n_dims):
        if translation is None:
            translation = (0,) * n_dims
        if rotation is None:
            rotation = 0 if n_dims == 2 else np.zeros(3)
        matrix = np.eye(n_dims + 1)
        if n_dims == 2:
            cos_r, sin_r = math.cos(rotation), math.sin(rotation)
            matrix[:2, :2] = [[cos_r, -sin_r], [sin_r, cos_r]]
        elif n_dims == 3:
            matrix[:3, :3] = _euler_xyz(rotation)
        matrix[0:n_dims, n_dims] = translation
        return matrix

    @classmethod
    def from_estimate(cls, src, dst):
        """The transform estimated from point pairs (Umeyama), or a FailedEstimation."""
        return cls._from_estimate(src, dst)

    def estimate(self, src, dst):
        """Estimate in place from point pairs; True on success (deprecated: a
        FutureWarning; use from_estimate)."""
        _warn_estimate(self)
        return self._estimate(_host_points(src), _host_points(dst)) is None

    def _estimate(self, src, dst):
        self.params = _umeyama(src, dst, self._estimate_scale)
        return "Poor conditioning for estimation" if np.any(np.isnan(self.params)) else None

    @property
    def rotation(self):
        if self.dimensionality == 2:
            return math.atan2(self.params[1, 0], self.params[1, 1])
        elif self.dimensionality == 3:
            return self.params[:3, :3]
        raise NotImplementedError("Rotation only implemented for 2D and 3D transforms.")

    @property
    def translation(self):
        return self.params[0:self.dimensionality, self.dimensionality]


class SimilarityTransform(EuclideanTransform):
    """Uniform scale, rotation and translation."""

    _estimate_scale = True

    def __init__(self, matrix=None, *, scale=None, rotation=None, translation=None, dimensionality=None):
        if any(p is not None for p in (scale, rotation, translation)):
            if matrix is not None:
                raise ValueError("Do not specify any implicit parameters when matrix is specified.")
            if (dimensionality not in (None, 2) and scale is not None and np.isscalar(scale)
                    and rotation is None and translation is None):
                warnings.warn("In the future, it will be a ValueError to pass a scalar `scale` value with a "
                              "``dimensionality`` > 2\n,and without other implicit parameters to indicate the "
                              "dimensionality of the transform.\nPlease indicate dimensionality by passing a "
                              "vector of suitable length to `scale`.", FutureWarning, stacklevel=2)
            if scale is not None and not np.isscalar(scale):
                n_dims, msg = len(scale), None
            else:
                n_dims, msg = self._rt2ndims_msg(rotation, translation)
            if msg is not None:
                raise ValueError(msg)
            n_dims = n_dims if n_dims is not None else (dimensionality if dimensionality is not None else 2)
            matrix = self._rt2matrix(rotation, translation, n_dims)
            if scale is not None and not (np.isscalar(scale) and scale == 1):
                matrix[:n_dims, :n_dims] *= scale
        ProjectiveTransform.__init__(self, matrix=matrix, dimensionality=dimensionality)

    @property
    def scale(self):
        if self.dimensionality == 2:
            return np.sqrt(np.linalg.det(self.params))
        elif self.dimensionality == 3:
            return np.cbrt(np.linalg.det(self.params))
        raise NotImplementedError("Scale is only implemented for 2D and 3D.")


def matrix_transform(coords, matrix):
    """(N, 2) x, y coordinates transformed by a (3, 3) homogeneous matrix
    (skimage.transform.matrix_transform)."""
    return ProjectiveTransform(matrix)(coords)
