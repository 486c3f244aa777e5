"""The epipolar transforms of skimage.transform._geometric (scikit-image 0.26):
FundamentalMatrixTransform and EssentialMatrixTransform, estimated by the
normalised 8-point algorithm. Host NumPy maths (3x3 matrices, small point
sets; CuPy points are copied to the host and results handed back as CuPy).
"""

import numpy as np

from ._geometric import (_HMatrixTransform, _append_homogeneous_dim, _apply_homogeneous, _calc_center_normalize,
                         _host_points, _like_points, _warn_estimate)

__all__ = ["FundamentalMatrixTransform", "EssentialMatrixTransform"]


class FundamentalMatrixTransform(_HMatrixTransform):
    """The fundamental matrix of two uncalibrated views: maps (N, 2) points of
    one image to their epipolar lines (N, 3: a, b, c of ax + by + c = 0) in the
    other. params: the 3x3 matrix (matrix=None: the identity)."""

    scaling = "rms"

    def __call__(self, coords):
        """The epipolar lines (N, 3) of (N, 2) points."""
        return _like_points(_append_homogeneous_dim(_host_points(coords)) @ self.params.T, coords)

    @property
    def inverse(self):
        """The transform of the transposed matrix (the other image's lines)."""
        return type(self)(matrix=self.params.T)

    def _setup_constraint_matrix(self, src, dst):
        """The normalised least-squares solution of dst' F src = 0 and the two
        normalising matrices (all NaN when the points of one side coincide)."""
        src = np.asarray(src)
        dst = np.asarray(dst)
        if src.shape != dst.shape:
            raise ValueError("src and dst shapes must be identical.")
        if src.shape[0] < 8:
            raise ValueError("src.shape[0] must be equal or larger than 8.")
        src_matrix = _calc_center_normalize(src, self.scaling)
        dst_matrix = _calc_center_normalize(dst, self.scaling)
        if np.any(np.isnan(src_matrix + dst_matrix)):
            self.params = np.full((3, 3), np.nan)
            return 3 * [np.full((3, 3), np.nan)]
        src_h = _append_homogeneous_dim(_apply_homogeneous(src_matrix, src))
        dst_h = _append_homogeneous_dim(_apply_homogeneous(dst_matrix, dst))
        # columns u u', v u', u', u v', v v', v', u, v, 1 (Hartley's notation)
        A = np.stack([d_v * s_v for d_v in dst_h.T for s_v in src_h.T], axis=1)
        _, _, V = np.linalg.svd(A)
        return V[-1, :].reshape(3, 3), src_matrix, dst_matrix

    def _constrain(self, S):
        """The singular values of a fundamental matrix: rank 2."""
        S[2] = 0

    def _estimate(self, src, dst):
        F_normalized, src_matrix, dst_matrix = self._setup_constraint_matrix(src, dst)
        if np.any(np.isnan(F_normalized + src_matrix + dst_matrix)):
            return "Scaling failed for input points"
        U, S, V = np.linalg.svd(F_normalized)
        self._constrain(S)
        F = U @ np.diag(S) @ V
        self.params = dst_matrix.T @ F @ src_matrix
        return None

    @classmethod
    def from_estimate(cls, src, dst):
        """The matrix estimated by the 8-point algorithm from at least 8 point
        pairs (ValueError with fewer), or a FailedEstimation."""
        return cls._from_estimate(src, dst)

    def estimate(self, src, dst):
        """Estimate in place; True on success (deprecated in scikit-image 0.26,
        as here: a FutureWarning; use from_estimate)."""
        _warn_estimate(self)
        return self._estimate(_host_points(src), _host_points(dst)) is None

    def residuals(self, src, dst):
        """The Sampson distance of each point pair (the first-order geometric error)."""
        src_h = _append_homogeneous_dim(_host_points(src))
        dst_h = _append_homogeneous_dim(_host_points(dst))
        F_src = self.params @ src_h.T
        Ft_dst = self.params.T @ dst_h.T
        dst_F_src = np.sum(dst_h * F_src.T, axis=1)
        res = np.abs(dst_F_src) / np.sqrt(F_src[0] ** 2 + F_src[1] ** 2 + Ft_dst[0] ** 2 + Ft_dst[1] ** 2)
        return _like_points(res, src)


class EssentialMatrixTransform(FundamentalMatrixTransform):
    """The essential matrix of two calibrated views: from a 3x3 rotation
    (determinant 1) and a unit translation (the matrix [t]x R), a matrix, or
    estimated (two equal singular values, one zero)."""

    _rot_det_tol = 1e-6
    _trans_len_tol = 1e-6

    def __init__(self, *, rotation=None, translation=None, matrix=None, dimensionality=None):
        n_none = sum(p is None for p in (rotation, translation))
        if n_none == 1:
            raise ValueError("Both rotation and translation required when one is specified.")
        if n_none == 0:
            if matrix is not None:
                raise ValueError("Do not specify rotation or translation when matrix is specified.")
            matrix = self._rt2matrix(rotation, translation)
        super().__init__(matrix=matrix, dimensionality=dimensionality)

    def _rt2matrix(self, rotation, translation):
        rotation = np.asarray(rotation)
        translation = np.asarray(translation)
        if rotation.shape != (3, 3):
            raise ValueError("Invalid shape of rotation matrix")
        if abs(np.linalg.det(rotation) - 1) > self._rot_det_tol:
            raise ValueError("Rotation matrix must have unit determinant")
        if translation.size != 3:
            raise ValueError("Invalid shape of translation vector")
        if abs(np.linalg.norm(translation) - 1) > self._trans_len_tol:
            raise ValueError("Translation vector must have unit length")
        t0, t1, t2 = translation
        cross = np.array([[0, -t2, t1], [t2, 0, -t0], [-t1, t0, 0]], dtype=float)
        return cross @ rotation

    def _constrain(self, S):
        S[0] = (S[0] + S[1]) / 2.0
        S[1] = S[0]
        S[2] = 0
