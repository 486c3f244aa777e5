"""The non-matrix transforms of skimage.transform._geometric (scikit-image
0.26): PolynomialTransform, PiecewiseAffineTransform, and estimate_transform.

Estimation is host NumPy maths (SVDs of small systems; the mesh is
scipy.spatial.Delaunay's, as scikit-image's). Applying them is vectorised: the
polynomial on NumPy or CuPy arrays alike (warp evaluates it on the data's
device); the piecewise-affine map looks every point's triangle up at once
(Delaunay.find_simplex) and applies the per-triangle matrices gathered into
one array, where scikit-image loops over the triangles.
"""

import math
from copy import copy

import numpy as np

from .._shared import safe_as_int
from ._epipolar import EssentialMatrixTransform, FundamentalMatrixTransform
from ._geometric import (AffineTransform, EuclideanTransform, ProjectiveTransform,
                         SimilarityTransform, _GeometricTransform, _host_points, _like_points, _warn_estimate)

__all__ = ["PolynomialTransform", "PiecewiseAffineTransform", "estimate_transform"]


class PolynomialTransform(_GeometricTransform):
    """2-d polynomial transform: X = sum_j sum_i a_ji x^(j-i) y^i, Y likewise
    with b_ji; params (2, N), N = (order + 1)(order + 2) / 2, a in row 0, b in
    row 1 (None: the identity, order 1)."""

    def __init__(self, params=None, *, dimensionality=None):
        if dimensionality is None:
            dimensionality = 2
        elif dimensionality != 2:
            raise NotImplementedError("Polynomial transforms are only implemented for 2D.")
        self.params = np.array([[0, 1, 0], [0, 0, 1]] if params is None else params)
        if self.params.shape == () or self.params.shape[0] != 2:
            raise ValueError("Transformation parameters must be shape (2, N)")

    @classmethod
    def identity(cls, dimensionality=None):
        """The identity (order 1; dimensionality: None or 2)."""
        return cls(params=None, dimensionality=dimensionality)

    @classmethod
    def from_estimate(cls, src, dst, order=2, weights=None):
        """The polynomial of the given order fitted to the point pairs (total
        least squares, rows weighted by sqrt(weights / max(weights)))."""
        return cls._from_estimate(src, dst, order, weights)

    def estimate(self, src, dst, order=2, weights=None):
        """Estimate in place; True (deprecated in scikit-image 0.26, as here: a
        FutureWarning; use from_estimate)."""
        _warn_estimate(self)
        return self._estimate(_host_points(src), _host_points(dst), order, weights) is None

    def _estimate(self, src, dst, order=2, weights=None):
        src = np.asarray(src)
        dst = np.asarray(dst)
        xs, ys = src[:, 0], src[:, 1]
        rows = src.shape[0]
        order = safe_as_int(order)
        u = (order + 1) * (order + 2)
        A = np.zeros((rows * 2, u + 1))
        pidx = 0
        for j in range(order + 1):
            for i in range(j + 1):
                A[:rows, pidx] = xs ** (j - i) * ys ** i
                A[rows:, pidx + u // 2] = xs ** (j - i) * ys ** i
                pidx += 1
        A[:rows, -1] = dst[:, 0]
        A[rows:, -1] = dst[:, 1]
        if weights is None:
            _, _, V = np.linalg.svd(A)
        else:
            weights = np.asarray(weights)
            W = np.diag(np.tile(np.sqrt(weights / np.max(weights)), 2))
            _, _, V = np.linalg.svd(W @ A)
        self.params = (-V[-1, :-1] / V[-1, -1]).reshape((2, u // 2))
        return None

    def _map_xy(self, xp, x, y):
        """The polynomial at arrays x, y of any shape (NumPy or CuPy): (X, Y), in
        scikit-image's order of terms."""
        u = len(self.params.ravel())
        order = int((-3 + math.sqrt(9 - 4 * (2 - u))) / 2)
        X = xp.zeros(x.shape)
        Y = xp.zeros(x.shape)
        pidx = 0
        for j in range(order + 1):
            for i in range(j + 1):
                X += self.params[0, pidx] * x ** (j - i) * y ** i
                Y += self.params[1, pidx] * x ** (j - i) * y ** i
                pidx += 1
        return X, Y

    def __call__(self, coords):
        """The transformed (N, 2) points (NumPy or CuPy, evaluated where they are)."""
        if isinstance(coords, np.ndarray) or getattr(coords, "get", None) is None:
            xp, c = np, np.asarray(coords)
        else:
            import cupy as xp

            c = coords
        X, Y = self._map_xy(xp, c[:, 0], c[:, 1])
        return xp.stack((X, Y), axis=1).reshape(c.shape)

    @property
    def inverse(self):
        raise NotImplementedError(
            "There is no explicit way to do the inverse polynomial transformation. Instead, estimate the inverse "
            "transformation parameters by exchanging source and destination coordinates,then apply the forward "
            "transformation.")


class PiecewiseAffineTransform(_GeometricTransform):
    """Piecewise affine transform: a Delaunay mesh of the control points, one
    affine transform per triangle (affines; inverse_affines on the mesh of the
    destination points). Points outside the mesh map to -1."""

    def __init__(self):
        self._tesselation = None
        self._inverse_tesselation = None
        self.affines = None
        self.inverse_affines = None

    @classmethod
    def identity(cls, dimensionality=None):
        """An empty transform (dimensionality is ignored)."""
        return cls()

    @classmethod
    def from_estimate(cls, src, dst):
        """The mesh of src and the affine of every triangle onto dst (and the
        inverse mesh), or a FailedEstimation naming the failed simplices."""
        return cls._from_estimate(src, dst)

    def estimate(self, src, dst):
        """Estimate in place; True when every piece succeeds (deprecated in
        scikit-image 0.26, as here: a FutureWarning; use from_estimate)."""
        _warn_estimate(self)
        return self._estimate(_host_points(src), _host_points(dst)) is None

    def _estimate(self, src, dst):
        from scipy import spatial

        src = np.asarray(src)
        dst = np.asarray(dst)
        D = src.shape[1]
        fail = np.full((D + 1, D + 1), np.nan)
        messages = []
        self._tesselation = spatial.Delaunay(src)
        self.affines = self._fit(self._tesselation, src, dst, "forward", fail, messages)
        self._inverse_tesselation = spatial.Delaunay(dst)
        self.inverse_affines = self._fit(self._inverse_tesselation, dst, src, "inverse", fail, messages)
        return "; ".join(messages) if messages else None

    @staticmethod
    def _fit(tess, src, dst, what, fail, messages):
        affines = []
        for i, tri in enumerate(tess.simplices):
            affine = AffineTransform.from_estimate(src[tri, :], dst[tri, :])
            if not affine:
                messages.append(f"Failure at {what} simplex {i}: {affine}")
                affine = AffineTransform(fail.copy())
            affines.append(affine)
        return affines

    def __call__(self, coords):
        """The transformed (N, D) points: each point's triangle's affine map
        (one gather and one batched product for all points); -1 outside the mesh."""
        pts = np.asarray(_host_points(coords), dtype=np.float64)
        out = np.empty_like(pts, np.float64)
        simplex = self._tesselation.find_simplex(pts)
        out[simplex == -1, :] = -1
        inside = simplex >= 0
        if self.affines and inside.any():
            mats = np.stack([a.params for a in self.affines])[simplex[inside]]          # (n, D+1, D+1)
            p = pts[inside]
            ph = np.concatenate((p, np.ones((len(p), 1))), axis=1)
            new_h = np.einsum("nj,nkj->nk", ph, mats)
            divs = new_h[:, -1]
            divs = np.where(divs == 0, np.finfo(float).eps, divs)
            out[inside] = new_h[:, :-1] / divs[:, None]
        return _like_points(out, coords)

    @property
    def inverse(self):
        """The transform with the forward and inverse meshes swapped."""
        tform = type(self)()
        tform._tesselation = copy(self._inverse_tesselation)
        tform._inverse_tesselation = copy(self._tesselation)
        tform.affines = copy(self.inverse_affines)
        tform.inverse_affines = copy(self.affines)
        return tform


TRANSFORMS = {
    "euclidean": EuclideanTransform,
    "similarity": SimilarityTransform,
    "affine": AffineTransform,
    "piecewise-affine": PiecewiseAffineTransform,
    "projective": ProjectiveTransform,
    "fundamental": FundamentalMatrixTransform,
    "essential": EssentialMatrixTransform,
    "polynomial": PolynomialTransform,
}


def estimate_transform(ttype, src, dst, *args, **kwargs):
    """The transform of type ttype ('euclidean', 'similarity', 'affine',
    'piecewise-affine', 'projective', 'fundamental', 'essential', 'polynomial')
    estimated from src to dst (further arguments to its from_estimate: the
    polynomial's order, weights), or a FailedEstimation
    (skimage.transform.estimate_transform)."""
    ttype = ttype.lower()
    if ttype not in TRANSFORMS:
        raise ValueError(f"the transformation type '{ttype}' is not implemented")
    return TRANSFORMS[ttype].from_estimate(src, dst, *args, **kwargs)

