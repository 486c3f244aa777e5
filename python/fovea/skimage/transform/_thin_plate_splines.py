"""ThinPlateSplineTransform (skimage.transform._thin_plate_splines, scikit-image
0.26): the spline is solved on the host (a small (n + 3) x (n + 3) system);
applying it is array maths, on the host as scikit-image's (scipy's distance
matrix), or on the GPU for warp on CuPy data (one control point at a time, so
memory stays at a few arrays of the output's size).
"""

import numpy as np

from .._shared import check_nD
from ._geometric import FailedEstimation, _GeometricTransform, _like_points, _warn_estimate

__all__ = ["ThinPlateSplineTransform"]

_SMALL = 1e-8   # scikit-image's guard in log(r^2 + small)


def _host_array(a):
    """a as a NumPy array (CuPy copied to the host), its ndim kept."""
    get = getattr(a, "get", None)
    return np.asarray(get() if get is not None and not isinstance(a, np.ndarray) else a)


def _kernel(xp, r):
    """The radial basis U(r) = r^2 log(r^2 + 1e-8), 0 at r = 0."""
    r_sq = r ** 2
    return xp.where(r == 0.0, 0.0, r_sq * xp.log(r_sq + _SMALL))


class ThinPlateSplineTransform(_GeometricTransform):
    """Thin-plate spline through control point pairs: src (the control points,
    an attribute) maps onto dst exactly, smoothly in between. No inverse."""

    def __init__(self):
        self._estimated = False
        self._spline_mappings = None
        self.src = None

    @classmethod
    def from_estimate(cls, src, dst):
        """The spline through the (N, 2) pairs (N >= 3; ValueError for fewer or
        for shapes that differ), or a FailedEstimation when its system is singular."""
        tf = cls()
        msg = tf._estimate(_host_array(src), _host_array(dst))
        return tf if msg is None else FailedEstimation(f"{cls.__name__}: {msg}")

    def estimate(self, src, dst):
        """Estimate in place; True on success (deprecated in scikit-image 0.26, as
        here: a FutureWarning; use from_estimate)."""
        _warn_estimate(self)
        return self._estimate(_host_array(src), _host_array(dst)) is None

    def _estimate(self, src, dst):
        check_nD(src, 2, arg_name="src")
        check_nD(dst, 2, arg_name="dst")
        if src.shape[0] < 3 or dst.shape[0] < 3:
            raise ValueError("Need at least 3 points in in `src` and `dst`")
        if src.shape != dst.shape:
            raise ValueError(f"Shape of `src` and `dst` didn't match, {src.shape} != {dst.shape}")
        from scipy.spatial import distance_matrix

        self.src = src
        n, d = src.shape
        P = np.hstack([np.ones((n, 1)), src])
        L = np.zeros((n + 3, n + 3), dtype=np.float32)   # float32, as scikit-image 0.26 builds it
        L[:n, :n] = _kernel(np, distance_matrix(src, src))
        L[:n, -3:] = P
        L[-3:, :n] = P.T
        V = np.vstack([dst, np.zeros((d + 1, d))])
        try:
            self._spline_mappings = np.linalg.solve(L, V)
        except np.linalg.LinAlgError:
            return "Unable to solve for spline mappings"
        return None

    def _check_ready(self):
        if self._spline_mappings is None:
            raise ValueError("Transformation is undefined, define it by calling `estimate` before applying it")

    def __call__(self, coords):
        """The transformed (N, 2) points (scikit-image's arithmetic, on the host)."""
        self._check_ready()
        pts = np.array(_host_array(coords))
        if pts.ndim != 2 or pts.shape[1] != 2:
            raise ValueError("Input `coords` must have shape (N, 2)")
        from scipy.spatial import distance_matrix

        n = self.src.shape[0]
        w, a = self._spline_mappings[:n], self._spline_mappings[n:]
        radial = _kernel(np, distance_matrix(pts, self.src))
        return _like_points(a[0] + np.dot(pts, a[1:]) + np.dot(radial, w), coords)

    def _map_xy(self, xp, x, y):
        """The spline at arrays x, y of any shape on xp's device: (X, Y)."""
        self._check_ready()
        n = self.src.shape[0]
        w, a = self._spline_mappings[:n], self._spline_mappings[n:]
        X = a[0, 0] + x * a[1, 0] + y * a[2, 0]
        Y = a[0, 1] + x * a[1, 1] + y * a[2, 1]
        for k in range(n):
            U = _kernel(xp, xp.sqrt((x - self.src[k, 0]) ** 2 + (y - self.src[k, 1]) ** 2))
            X += U * w[k, 0]
            Y += U * w[k, 1]
        return X, Y

    @property
    def inverse(self):
        raise NotImplementedError("Not supported")
