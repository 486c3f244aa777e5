"""skimage.measure.regionprops / regionprops_table (scikit-image 0.26 API) with
the statistics of every label computed in one batch.

One call of the C op fv_region_stats (CPU thread pool, or CUDA for CuPy input)
reads the label image (and intensity image) once and fills a table with, per
label: pixel count, bounding box, the raw moments up to order 3 per axis about
the box start, and per intensity channel min, max and the intensity-weighted
raw moments. Every property that follows from those (area, bbox, centroid*,
moments*, inertia tensor and its eigenvalues, axis lengths, eccentricity,
orientation, extent, equivalent_diameter_area, intensity mean/min/max/std)
is derived for all labels at once with NumPy (CuPy for CuPy input) the first
time one of them is asked for. intensity_std takes one more vectorised pass
(a bincount of squared deviations from the batch means).

Properties of a region's own pixels (image, coords, image_convex,
image_filled, image_intensity, feret_diameter_max, perimeter*,
euler_number, intensity_median, extra_properties) are computed per region,
lazily, from the region's slice of the label image.

CuPy input: the table is computed on the GPU; regionprops_table returns CuPy
arrays for the numeric columns (as cuCIM does) and NumPy object arrays for
object columns; RegionProperties gives NumPy scalars / tuples for the batch
properties and CuPy arrays for image-like ones.
"""

import inspect
import itertools
import warnings
from functools import wraps
from math import atan2, pi, sqrt

import numpy as np

from ... import _fovea
from ... import _interop as ix
from . import _regionprops_docs as _docs
from . import _moments as _mom
from . import _regionprops_batch as _rpb
from ._regionprops_utils import euler_number, perimeter, perimeter_crofton

__all__ = ["regionprops", "regionprops_table", "euler_number", "perimeter", "perimeter_crofton"]

# deprecated name -> current name (scikit-image 0.26's table)
PROPS = {
    "Area": "area", "BoundingBox": "bbox", "BoundingBoxArea": "area_bbox", "bbox_area": "area_bbox",
    "CentralMoments": "moments_central", "Centroid": "centroid", "ConvexArea": "area_convex",
    "convex_area": "area_convex", "ConvexImage": "image_convex", "convex_image": "image_convex",
    "Coordinates": "coords", "Eccentricity": "eccentricity", "EquivDiameter": "equivalent_diameter_area",
    "equivalent_diameter": "equivalent_diameter_area", "EulerNumber": "euler_number", "Extent": "extent",
    "FeretDiameter": "feret_diameter_max", "FeretDiameterMax": "feret_diameter_max", "FilledArea": "area_filled",
    "filled_area": "area_filled", "FilledImage": "image_filled", "filled_image": "image_filled",
    "HuMoments": "moments_hu", "Image": "image", "InertiaTensor": "inertia_tensor",
    "InertiaTensorEigvals": "inertia_tensor_eigvals", "IntensityImage": "image_intensity",
    "intensity_image": "image_intensity", "Label": "label", "LocalCentroid": "centroid_local",
    "local_centroid": "centroid_local", "MajorAxisLength": "axis_major_length",
    "major_axis_length": "axis_major_length", "MaxIntensity": "intensity_max", "max_intensity": "intensity_max",
    "MeanIntensity": "intensity_mean", "mean_intensity": "intensity_mean", "MinIntensity": "intensity_min",
    "min_intensity": "intensity_min", "std_intensity": "intensity_std", "MinorAxisLength": "axis_minor_length",
    "minor_axis_length": "axis_minor_length", "Moments": "moments", "NormalizedMoments": "moments_normalized",
    "Orientation": "orientation", "Perimeter": "perimeter", "CroftonPerimeter": "perimeter_crofton",
    "Slice": "slice", "Solidity": "solidity", "WeightedCentralMoments": "moments_weighted_central",
    "weighted_moments_central": "moments_weighted_central", "WeightedCentroid": "centroid_weighted",
    "weighted_centroid": "centroid_weighted", "WeightedHuMoments": "moments_weighted_hu",
    "weighted_moments_hu": "moments_weighted_hu", "WeightedLocalCentroid": "centroid_weighted_local",
    "weighted_local_centroid": "centroid_weighted_local", "WeightedMoments": "moments_weighted",
    "weighted_moments": "moments_weighted", "WeightedNormalizedMoments": "moments_weighted_normalized",
    "weighted_moments_normalized": "moments_weighted_normalized",
}

_F, _I, _O = float, int, object
COL_DTYPES = {
    "area": _F, "area_bbox": _F, "area_convex": _F, "area_filled": _F, "axis_major_length": _F,
    "axis_minor_length": _F, "bbox": _I, "centroid": _F, "centroid_local": _F, "centroid_weighted": _F,
    "centroid_weighted_local": _F, "coords": _O, "coords_scaled": _O, "eccentricity": _F,
    "equivalent_diameter_area": _F, "euler_number": _I, "extent": _F, "feret_diameter_max": _F, "image": _O,
    "image_convex": _O, "image_filled": _O, "image_intensity": _O, "inertia_tensor": _F,
    "inertia_tensor_eigvals": _F, "intensity_max": _F, "intensity_mean": _F, "intensity_median": _F,
    "intensity_min": _F, "intensity_std": _F, "label": _I, "moments": _F, "moments_central": _F,
    "moments_hu": _F, "moments_normalized": _F, "moments_weighted": _F, "moments_weighted_central": _F,
    "moments_weighted_hu": _F, "moments_weighted_normalized": _F, "num_pixels": _I, "orientation": _F,
    "perimeter": _F, "perimeter_crofton": _F, "slice": _O, "solidity": _F,
}
OBJECT_COLUMNS = [c for c, t in COL_DTYPES.items() if t is object]
PROP_VALS = set(PROPS.values())

_require_intensity_image = (
    "image_intensity", "intensity_max", "intensity_mean", "intensity_median", "intensity_min", "intensity_std",
    "moments_weighted", "moments_weighted_central", "centroid_weighted", "centroid_weighted_local",
    "moments_weighted_hu", "moments_weighted_normalized",
)

_ONLY_2D = ("eccentricity", "moments_hu", "orientation", "perimeter", "perimeter_crofton", "moments_weighted_hu")

# properties derived from the batch table for every label at once
_BATCH = frozenset(
    "label num_pixels area bbox area_bbox centroid centroid_local moments moments_central moments_normalized "
    "moments_hu inertia_tensor inertia_tensor_eigvals eccentricity orientation axis_major_length "
    "axis_minor_length equivalent_diameter_area extent intensity_mean intensity_min intensity_max intensity_std "
    "moments_weighted moments_weighted_central moments_weighted_normalized moments_weighted_hu "
    "centroid_weighted centroid_weighted_local perimeter perimeter_crofton euler_number".split()
)


def _normalize_spacing(spacing, ndim):
    from numbers import Real

    spacing = np.array(spacing)
    if spacing.shape == ():
        spacing = np.broadcast_to(spacing, shape=(ndim,))
    elif spacing.shape != (ndim,):
        raise ValueError(f"spacing isn't a scalar nor a sequence of shape {(ndim,)}, got {spacing}.")
    if not all(isinstance(s, Real) for s in spacing):
        raise TypeError(f"Element of spacing isn't float or integer type, got {spacing}.")
    if not all(np.isfinite(spacing)):
        raise ValueError(f"Invalid spacing parameter. All elements must be finite, got {spacing}.")
    return spacing


def _check_hu_spacing(spacing):
    """Hu moments (plain and weighted) are defined for unit spacing only (scikit-image)."""
    if any(s != 1.0 for s in spacing):
        raise NotImplementedError("`moments_hu` supports spacing = (1, 1) only")


def _check_only2d(prop, ndim):
    if ndim > 2 and prop in _ONLY_2D:
        raise NotImplementedError(f"Property {prop} is not implemented for 3D images")


class _Batch:
    """The fv_region_stats table of a label image and everything derived from
    it, for all present labels (rows in label order). Pickles with its array
    module by name (RegionProperties pickle, as scikit-image's do)."""

    def __getstate__(self):
        state = dict(self.__dict__)
        state["xp"] = state["xp"].__name__
        return state

    def __setstate__(self, state):
        import importlib
        state = dict(state)
        state["xp"] = importlib.import_module(state["xp"])
        self.__dict__.update(state)

    def __init__(self, label_image, intensity_image, spacing, offset):
        x = label_image
        self.xp = xp = ix.xp_of(x)
        self.gpu = ix.on_gpu(x)
        self.label_image = x
        self.intensity_image = intensity_image
        self.nd = nd = x.ndim
        self.spacing = spacing
        self.pixel_area = float(np.prod(spacing))
        self.offset = offset
        self.multichannel = intensity_image is not None and intensity_image.ndim == nd + 1
        self.nch = 0 if intensity_image is None else (intensity_image.shape[nd] if self.multichannel else 1)
        max_label = max(int(xp.max(x)) if x.size else 0, 0)
        compact = None
        if max_label > 2 * x.size + 65536:
            # sparse huge labels: the table would have max_label rows; number them 1..k first
            uniq, inv = xp.unique(x, return_inverse=True)
            first = int(xp.searchsorted(uniq, 1))
            inv = inv.reshape(x.shape).astype(np.int64) - (first - 1)
            x_tab = xp.where(inv > 0, inv, 0)
            compact = uniq[first:].astype(np.int64)
            max_label = int(compact.shape[0])
        else:
            x_tab = x
        self.table_labels = x_tab   # labels as numbered in the table (for intensity_std)
        self.max_label = max_label
        inten = intensity_image
        if inten is not None and not ix.kernel_dtype_ok(inten):
            inten = inten.astype(np.float64)   # float16 and the like
        if inten is not None and inten.dtype == bool:
            inten = inten.astype(np.uint8)
        if max_label > 0:
            tab = ix.wrap(_fovea.measure_region_stats(x_tab, inten, max_label, ix.stream_of(x)), x)
        else:   # no labels: no table to compute (and no zero-size device allocation)
            tab = xp.zeros((0, 1 + 2 * nd + 4**nd + self.nch * (2 + 4**nd)))
        present = xp.flatnonzero(tab[:, 0] > 0)
        rows = tab[present]
        self.rows_index = present + 1   # table label of each region
        self.labels = (present + 1).astype(np.int64) if compact is None else compact[present]
        self.n = n = int(rows.shape[0])
        self.count = rows[:, 0]
        self.start = rows[:, 1 : 1 + nd].astype(np.int64)
        self.stop = rows[:, 1 + nd : 1 + 2 * nd].astype(np.int64)
        nm = 4**nd
        c0 = 1 + 2 * nd
        scale = self._spacing_powers()
        self.M = rows[:, c0 : c0 + nm].reshape((n,) + (4,) * nd) * scale
        if self.nch:
            ch = rows[:, c0 + nm :].reshape(n, self.nch, 2 + nm)
            self.imin = ch[:, :, 0]
            self.imax = ch[:, :, 1]
            self.W = ch[:, :, 2:].reshape((n * self.nch,) + (4,) * nd) * scale   # (n * C, 4, ...)
        self._cache = {}
        self._host = {}

    def _spacing_powers(self):
        xp = self.xp
        f = np.ones((4,) * self.nd)
        for d in range(self.nd):
            shape = [1] * self.nd
            shape[d] = 4
            f = f * (float(self.spacing[d]) ** np.arange(4)).reshape(shape)
        return xp.asarray(f)

    def _chan(self, a):
        """(n * C, ...) -> per-region shape: (n,) + rest + (C,) when multichannel, else (n,) + rest."""
        xp = self.xp
        a = a.reshape((self.n, self.nch) + a.shape[1:])
        if self.multichannel:
            return xp.moveaxis(a, 1, -1)
        return a[:, 0]

    def get(self, prop):
        """(n,) + per-region shape array of a batch property."""
        if prop in self._cache:
            return self._cache[prop]
        v = getattr(self, "_p_" + prop)()
        self._cache[prop] = v
        return v

    def host(self, prop):
        if prop not in self._host:
            v = self.get(prop)
            self._host[prop] = v.get() if self.gpu else v
        return self._host[prop]

    # ---- geometry -----------------------------------------------------------
    def _p_label(self):
        return self.labels

    def _p_num_pixels(self):
        return self.count.astype(np.int64)

    def _p_area(self):
        return self.count * self.pixel_area

    def _p_bbox(self):
        return self.xp.concatenate([self.start, self.stop], axis=1)

    def _p_area_bbox(self):
        return self.xp.prod(self.stop - self.start, axis=1).astype(np.float64) * self.pixel_area

    def _p_extent(self):
        return self.get("area") / self.get("area_bbox")

    def _p_equivalent_diameter_area(self):
        return (2 * self.nd * self.get("area") / pi) ** (1 / self.nd)

    def _centroid_of(self, M, nd):
        eye = np.eye(nd, dtype=int)
        m0 = M[(slice(None),) + (0,) * nd]
        return self.xp.stack([M[(slice(None),) + tuple(eye[d])] / m0 for d in range(nd)], axis=1)

    def _p_centroid_local(self):
        return self._centroid_of(self.M, self.nd)

    def _p_centroid(self):
        sp = self.xp.asarray(np.asarray(self.spacing, dtype=float))
        return self.start * sp + self.get("centroid_local") + self.xp.asarray(self.offset)

    def _p_moments(self):
        return self.M

    def _p_moments_central(self):
        return _mom._shift_moments(self.M, self.get("centroid_local"), self.nd, self.xp)

    def _p_moments_normalized(self):
        return _mom._normalize_batch(self.get("moments_central"), self.nd, self.spacing, self.xp)

    def _p_moments_hu(self):
        _check_hu_spacing(self.spacing)
        return _mom._hu_batch(self.get("moments_normalized"), self.xp)

    def _p_inertia_tensor(self):
        return _mom._inertia_batch(self.get("moments_central"), self.nd, self.xp)

    def _p_inertia_tensor_eigvals(self):
        xp = self.xp
        ev = xp.clip(xp.linalg.eigvalsh(self.get("inertia_tensor")), 0, None)
        return ev[:, ::-1]

    def _p_eccentricity(self):
        xp = self.xp
        ev = self.get("inertia_tensor_eigvals")
        l1, l2 = ev[:, 0], ev[:, 1]
        safe = xp.where(l1 == 0, 1.0, l1)
        return xp.where(l1 == 0, 0.0, xp.sqrt(xp.clip(1 - l2 / safe, 0, None)))

    def _p_orientation(self):
        xp = self.xp
        t = self.get("inertia_tensor")
        a, b, c = t[:, 0, 0], t[:, 0, 1], t[:, 1, 1]
        general = 0.5 * xp.arctan2(-2 * b, c - a)
        return xp.where(a - c == 0, xp.where(b < 0, pi / 4.0, -pi / 4.0), general)

    def _p_axis_major_length(self):
        xp = self.xp
        ev = self.get("inertia_tensor_eigvals")
        if self.nd == 2:
            return 4 * xp.sqrt(ev[:, 0])
        if self.nd == 3:
            return xp.sqrt(xp.clip(10 * (ev[:, 0] + ev[:, 1] - ev[:, 2]), 0, None))
        raise ValueError("axis_major_length only available in 2D and 3D")

    def _p_axis_minor_length(self):
        xp = self.xp
        ev = self.get("inertia_tensor_eigvals")
        if self.nd == 2:
            return 4 * xp.sqrt(ev[:, -1])
        if self.nd == 3:
            return xp.sqrt(xp.clip(10 * (-ev[:, 0] + ev[:, 1] + ev[:, 2]), 0, None))
        raise ValueError("axis_minor_length only available in 2D and 3D")

    # ---- per-label pixel neighbourhoods, all labels at once (_regionprops_batch) -----
    def _per_label(self, fn):
        t = self.table_labels
        if t.dtype.kind == "i" and bool((t < 0).any()):   # negative labels are no region
            t = self.xp.where(t > 0, t, 0)
        return fn(t, self.max_label, self.xp)[self.rows_index]

    def _isotropic(self):
        if len(np.unique(self.spacing)) != 1:
            raise NotImplementedError("`perimeter` supports isotropic spacings only")
        return float(self.spacing[0])

    def _p_perimeter(self):
        return self._per_label(_rpb.perimeters) * self._isotropic()

    def _p_perimeter_crofton(self):
        return self._per_label(_rpb.crofton_perimeters) * self._isotropic()

    def _p_euler_number(self):
        if self.nd not in (2, 3):
            raise NotImplementedError("Euler number is implemented for 2D and 3D images only")
        return self._per_label(_rpb.euler_numbers)

    # ---- intensity ----------------------------------------------------------
    def _w0(self):
        return self.W.reshape(self.W.shape[0], -1)[:, 0].reshape(self.n, self.nch)

    def _per_channel(self, a):   # (n, C) -> (n, C) or (n,)
        return a if self.multichannel else a[:, 0]

    def _p_intensity_mean(self):
        return self._per_channel(self._w0() / self.count[:, None])

    def _p_intensity_min(self):
        return self._per_channel(self.imin)

    def _p_intensity_max(self):
        return self._per_channel(self.imax)

    def _pixels(self):
        """The labelled pixels once more, for the properties summed directly: their flat
        indices, table labels and intensities (float64, (K, C))."""
        if "_pixels" not in self._cache:
            xp = self.xp
            lab = self.table_labels.reshape(-1)
            sel = xp.flatnonzero((lab > 0) & (lab <= self.max_label))
            idx = lab[sel].astype(np.int64)
            vals = self.intensity_image.reshape(lab.shape[0], self.nch)[sel].astype(np.float64)
            self._cache["_pixels"] = (sel, idx, vals)
        return self._cache["_pixels"]

    def _p_intensity_std(self):
        xp = self.xp
        sel, idx, vals = self._pixels()
        mean_full = xp.zeros((self.max_label + 1, self.nch))
        mean_full[self.rows_index] = self._w0() / self.count[:, None]
        dev = vals - mean_full[idx]
        var = xp.stack([xp.bincount(idx, weights=dev[:, c] ** 2, minlength=self.max_label + 1)
                        for c in range(self.nch)], axis=1)[self.rows_index]
        return self._per_channel(xp.sqrt(var / self.count[:, None]))

    def _cwl(self):
        if "_cwl" not in self._cache:
            self._cache["_cwl"] = self._centroid_of(self.W, self.nd)   # (n * C, nd)
        return self._cache["_cwl"]

    def _p_moments_weighted(self):
        return self._chan(self.W)

    def _p_centroid_weighted_local(self):
        return self._chan(self._cwl())

    def _p_centroid_weighted(self):
        xp = self.xp
        sp = xp.asarray(np.asarray(self.spacing, dtype=float))
        start = xp.repeat(self.start * sp, self.nch, axis=0)
        return self._chan(self._cwl() + start)

    def _wmu(self):
        """Weighted central moments summed directly about each region's weighted
        centroid, as scikit-image does: shifting the raw sums (binomially) cancels
        large terms and loses about 1e-12 relatively."""
        if "_wmu" not in self._cache:
            xp, nd, C = self.xp, self.nd, self.nch
            sel, idx, vals = self._pixels()
            row_of = xp.zeros(self.max_label + 1, np.int64)
            row_of[self.rows_index] = xp.arange(self.n)
            r = row_of[idx]
            coords = xp.unravel_index(sel, self.table_labels.shape)
            local = [(coords[k] - self.start[r, k]) * float(self.spacing[k]) for k in range(nd)]
            cwl = self._cwl().reshape(self.n, C, nd)
            out = xp.zeros((self.n, C) + (4,) * nd)
            for c in range(C):
                pw = []
                for k in range(nd):
                    dk = local[k] - cwl[r, c, k]
                    pw.append([None, dk, dk * dk, dk * dk * dk])
                for powers in itertools.product(range(4), repeat=nd):
                    v = vals[:, c]
                    for k, q in enumerate(powers):
                        if q:
                            v = v * pw[k][q]
                    out[(slice(None), c) + powers] = xp.bincount(r, weights=v, minlength=self.n)
            self._cache["_wmu"] = out.reshape((self.n * C,) + (4,) * nd)
        return self._cache["_wmu"]

    def _wnu(self):
        if "_wnu" not in self._cache:
            self._cache["_wnu"] = _mom._normalize_batch(self._wmu(), self.nd, self.spacing, self.xp)
        return self._cache["_wnu"]

    def _p_moments_weighted_central(self):
        return self._chan(self._wmu())

    def _p_moments_weighted_normalized(self):
        return self._chan(self._wnu())

    def _p_moments_weighted_hu(self):
        _check_hu_spacing(self.spacing)
        return self._chan(_mom._hu_batch(self._wnu(), self.xp))


def _cached(f):
    name = f.__name__

    @wraps(f)
    def wrapper(self):
        if not self._cache_active:
            return f(self)
        if name not in self._cache:
            self._cache[name] = f(self)
        return self._cache[name]

    return wrapper


def _n_required_args(func):
    spec = inspect.getfullargspec(func)
    n = len(spec.args)
    if spec.defaults is not None:
        n -= len(spec.defaults)
    return n


def _feret_points(img, spacing):
    """Midpoints of the axis edges between foreground and background pixels
    of img (already padded): the vertices of its 0.5 iso-contour (skimage's
    find_contours / marching_cubes of a binary image), scaled by spacing."""
    pts = []
    for d in range(img.ndim):
        n = img.shape[d]
        diff = img.take(range(n - 1), axis=d) != img.take(range(1, n), axis=d)
        idx = np.argwhere(diff).astype(float)
        idx[:, d] += 0.5
        pts.append(idx)
    return np.concatenate(pts) * np.asarray(spacing, dtype=float)


def _max_distance(pts):
    if len(pts) < 2:
        return 0.0
    nd = pts.shape[1]
    cand = pts
    if nd == 2:
        from ..morphology.convex_hull import _hull_2d

        h = _hull_2d(np.unique(pts, axis=0))
        cand = h if len(h) >= 2 else pts
    elif len(pts) > 64:
        try:
            from scipy.spatial import ConvexHull

            cand = pts[ConvexHull(pts).vertices]
        except Exception:   # flat sets: Qhull fails; all points then
            cand = pts
    best = 0.0
    for i in range(0, len(cand), 512):
        d = ((cand[i : i + 512, None, :] - cand[None, :, :]) ** 2).sum(-1)
        best = max(best, float(d.max()))
    return sqrt(best)


class RegionProperties:
    """Properties of one labelled region (scikit-image's RegionProperties)."""

    def __init__(self, batch, index, cache_active, extra_properties=None):
        self._batch = batch
        self._index = index
        self._cache_active = cache_active
        self._cache = {}
        self._ndim = batch.nd
        self._spacing = batch.spacing
        self._pixel_area = batch.pixel_area
        self._offset = np.asarray(batch.offset)
        self._intensity_image = batch.intensity_image
        self._multichannel = batch.multichannel
        self.label = int(batch.host("label")[index])
        b = batch.host("bbox")[index]
        self.slice = tuple(slice(int(b[d]), int(b[d + batch.nd])) for d in range(batch.nd))
        self._extra_properties = {}
        if extra_properties is not None:
            for func in extra_properties:
                name = func.__name__
                if hasattr(type(self), name):
                    warnings.warn(f"Extra property '{name}' is shadowed by existing property and will be "
                                  f"inaccessible. Consider renaming it.", stacklevel=3)
            self._extra_properties = {func.__name__: func for func in extra_properties}

    # ---- plumbing -------------------------------------------------------------
    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("_batch", "_extra_properties", "_intensity_image"):
            raise AttributeError(attr)
        if self._intensity_image is None and attr in _require_intensity_image:
            raise AttributeError(f"Attribute '{attr}' unavailable when `intensity_image` has not been specified.")
        if attr in self._extra_properties:
            func = self._extra_properties[attr]
            n = _n_required_args(func)
            if n == 2:
                if self._intensity_image is None:
                    raise AttributeError(f"intensity image required to calculate {attr}")
                if self._multichannel:
                    ii = self.image_intensity
                    return np.stack([func(self.image, ii[..., i]) for i in range(ii.shape[-1])], axis=-1)
                return func(self.image, self.image_intensity)
            if n == 1:
                return func(self.image)
            raise AttributeError(f"Custom regionprop function's number of arguments must be 1 or 2, but "
                                 f"{attr} takes {n} arguments.")
        if attr in PROPS and attr.lower() == attr:
            if self._intensity_image is None and PROPS[attr] in _require_intensity_image:
                raise AttributeError(f"Attribute '{attr}' unavailable when `intensity_image` has not been "
                                     f"specified.")
            warnings.warn(f"`RegionProperties.{attr}` is deprecated starting in version 0.26 and will be "
                          f"removed in version 2.0. Use `RegionProperties.{PROPS[attr]}` instead. ",
                          category=FutureWarning, stacklevel=2)
            return getattr(self, PROPS[attr])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def __setattr__(self, name, value):
        super().__setattr__(PROPS.get(name, name), value)

    def __iter__(self):
        props = PROP_VALS
        if self._intensity_image is None:
            props = props.difference(_require_intensity_image)
        return iter(sorted(props))

    def __getitem__(self, key):
        if key in PROPS:
            warnings.warn(f"`RegionProperties[{key!r}]` is deprecated starting in version 0.26 and will be "
                          f"removed in version 2.0. Use `RegionProperties[{PROPS[key]!r}]` instead. ",
                          category=FutureWarning, stacklevel=2)
            key = PROPS[key]
        return getattr(self, key)

    def __eq__(self, other):
        if not isinstance(other, RegionProperties):
            return False
        for key in PROP_VALS:
            a, b = getattr(self, key, None), getattr(other, key, None)
            try:
                np.testing.assert_equal(ix.to_host(a) if _is_cupy(a) else a, ix.to_host(b) if _is_cupy(b) else b)
            except AssertionError:
                return False
        return True

    __hash__ = object.__hash__

    def __repr__(self):
        return f"<{type(self).__qualname__}: label={self.label!r}, bbox={self.bbox}>"

    def _b(self, prop):
        _check_only2d(prop, self._ndim)
        return self._batch.host(prop)[self._index]

    def _need_intensity(self, prop):
        if self._intensity_image is None:
            raise AttributeError(f"Attribute '{prop}' unavailable when `intensity_image` has not been specified.")

    # ---- batch properties -------------------------------------------------------
    num_pixels = property(lambda self: self._b("num_pixels"))
    area = property(lambda self: self._b("area"))
    area_bbox = property(lambda self: self._b("area_bbox"))
    extent = property(lambda self: self._b("extent"))
    equivalent_diameter_area = property(lambda self: self._b("equivalent_diameter_area"))
    bbox = property(lambda self: tuple(int(v) for v in self._b("bbox")))
    centroid = property(lambda self: tuple(self._b("centroid")))
    centroid_local = property(lambda self: np.array(self._b("centroid_local")))
    moments = property(lambda self: np.array(self._b("moments")))
    moments_central = property(lambda self: np.array(self._b("moments_central")))
    moments_normalized = property(lambda self: np.array(self._b("moments_normalized")))
    moments_hu = property(lambda self: np.array(self._b("moments_hu")))
    inertia_tensor = property(lambda self: np.array(self._b("inertia_tensor")))
    inertia_tensor_eigvals = property(lambda self: [np.float64(v) for v in self._b("inertia_tensor_eigvals")])
    eccentricity = property(lambda self: self._b("eccentricity"))
    orientation = property(lambda self: self._b("orientation"))
    axis_major_length = property(lambda self: self._b("axis_major_length"))
    axis_minor_length = property(lambda self: self._b("axis_minor_length"))

    def _bi(self, prop):
        self._need_intensity(prop)
        v = self._b(prop)
        return np.array(v) if np.ndim(v) else v

    intensity_mean = property(lambda self: self._bi("intensity_mean"))
    intensity_min = property(lambda self: self._bi("intensity_min"))
    intensity_max = property(lambda self: self._bi("intensity_max"))
    intensity_std = property(lambda self: self._bi("intensity_std"))
    moments_weighted = property(lambda self: self._bi("moments_weighted"))
    moments_weighted_central = property(lambda self: self._bi("moments_weighted_central"))
    moments_weighted_normalized = property(lambda self: self._bi("moments_weighted_normalized"))
    @property
    def moments_weighted_hu(self):
        # scikit-image's order: 2-D only, then spacing (1, 1) only, then the intensity image
        _check_only2d("moments_weighted_hu", self._ndim)
        _check_hu_spacing(self._spacing)
        return self._bi("moments_weighted_hu")
    centroid_weighted_local = property(lambda self: self._bi("centroid_weighted_local"))
    centroid_weighted = property(lambda self: tuple(self._bi("centroid_weighted")))

    # ---- per-region properties --------------------------------------------------
    @property
    @_cached
    def image(self):
        return self._batch.label_image[self.slice] == self.label

    @property
    def _label_image(self):
        """The label image the regions were measured on (scikit-image's attribute):
        with the cache off, properties computed from the pixels see changes to it."""
        return self._batch.label_image

    def _host_image(self):
        return ix.to_host(self.image)

    @property
    def coords(self):
        xp = self._batch.xp
        start = xp.asarray([s.start for s in self.slice])
        return xp.argwhere(self.image) + start + xp.asarray(self._offset)

    @property
    def coords_scaled(self):
        xp = self._batch.xp
        start = xp.asarray([s.start for s in self.slice])
        sp = xp.asarray(np.asarray(self._spacing, dtype=float))
        return (xp.argwhere(self.image) + start) * sp + xp.asarray(self._offset)

    @property
    @_cached
    def image_intensity(self):
        if self._intensity_image is None:
            raise AttributeError("No intensity image specified.")
        img = self.image[..., None] if self._multichannel else self.image
        return self._intensity_image[self.slice] * img

    @property
    def intensity_median(self):
        self._need_intensity("intensity_median")
        xp = self._batch.xp
        return xp.median(self.image_intensity[self.image], axis=0)

    @property
    @_cached
    def image_convex(self):
        from ..morphology.convex_hull import convex_hull_image

        return convex_hull_image(self.image)

    @property
    @_cached
    def area_convex(self):
        return np.float64(int(self._batch.xp.sum(self.image_convex))) * self._pixel_area

    @property
    def solidity(self):
        return self.area / self.area_convex

    @property
    @_cached
    def image_filled(self):
        from ... import ndimage as fndi

        return fndi.binary_fill_holes(self.image, np.ones((3,) * self._ndim, dtype=bool))

    @property
    def area_filled(self):
        return np.float64(int(self._batch.xp.sum(self.image_filled))) * self._pixel_area

    euler_number = property(lambda self: int(self._b("euler_number")))
    perimeter = property(lambda self: self._b("perimeter"))
    perimeter_crofton = property(lambda self: self._b("perimeter_crofton"))

    @property
    def feret_diameter_max(self):
        if self._ndim not in (2, 3):
            raise NotImplementedError("feret_diameter_max is implemented for 2D and 3D images only")
        hull = np.pad(np.asarray(ix.to_host(self.image_convex)), 2)
        pts = _feret_points(hull, self._spacing)
        if len(pts) == 0:
            # an empty hull image (Qhull failed on a flat region): skimage's marching_cubes / find_contours error
            raise ValueError("Surface level must be within volume data range.")
        return _max_distance(pts)


def _prepare(label_image, intensity_image, spacing, offset):
    x = ix.prepare(label_image)[0]
    if x.ndim not in (2, 3):
        raise TypeError("Only 2-D and 3-D images supported.")
    if x.dtype == bool:
        raise TypeError("Non-integer image types are ambiguous: use skimage.measure.label to label the connected "
                        "components of label_image, or label_image.astype(np.uint8) to interpret the True values "
                        "as a single label.")
    if x.dtype.kind not in "iu":
        raise TypeError("Non-integer label_image types are ambiguous")
    inten = None
    if intensity_image is not None:
        inten = ix.like_input(intensity_image, x, "intensity_image")
        nd = x.ndim
        if not (inten.shape[:nd] == x.shape and inten.ndim in (nd, nd + 1)):
            raise ValueError("Label and intensity image shapes must match, except for channel (last) axis.")
        if inten.dtype.kind not in "biuf":
            raise TypeError(f"unsupported intensity_image dtype {inten.dtype}")
    spacing = _normalize_spacing(np.ones(x.ndim) if spacing is None else spacing, x.ndim)
    if offset is None:
        offset = np.zeros((x.ndim,), dtype=int)
    else:
        offset = np.asarray(offset)
        if offset.ndim != 1 or offset.size != x.ndim:
            raise ValueError(f"Offset should be an array-like of integers of shape (label_image.ndim,); {offset} "
                             "was provided.")
    return _Batch(x, inten, spacing, offset)


def regionprops(label_image, intensity_image=None, cache=True, *, extra_properties=None, spacing=None,
                offset=None):
    """Measure the labelled regions of a 2-d or 3-d label image (a list of
    RegionProperties, one per present label, in label order). See
    scikit-image's documentation for the properties."""
    return list(_LazyRegions(label_image, intensity_image, cache, extra_properties, spacing, offset))


class _LazyRegions:
    """The regions of one batch, each RegionProperties made when first asked
    for (regionprops_table reads batch columns without making any)."""

    def __init__(self, label_image, intensity_image, cache, extra_properties, spacing, offset=None):
        self._batch = _prepare(label_image, intensity_image, spacing, offset)
        self._cache = cache
        self._extra_properties = extra_properties
        self._made = {}

    def __len__(self):
        return self._batch.n

    def __getitem__(self, i):
        if not -self._batch.n <= i < self._batch.n:
            raise IndexError(i)
        i %= self._batch.n
        r = self._made.get(i)
        if r is None:
            r = self._made[i] = RegionProperties(self._batch, i, self._cache, self._extra_properties)
        return r

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def _infer_dtype(func, intensity, ndim):
    m1 = np.pad(np.ones((1,) * ndim, dtype=bool), (0, 1), constant_values=False)
    m2 = np.pad(np.ones((2,) * ndim, dtype=bool), (1, 0), constant_values=False)
    rng = np.random.default_rng()
    if intensity and _n_required_args(func) == 2:
        def f(mask):
            return func(mask, rng.random(mask.shape))
    else:
        f = func
    p1, p2 = f(m1), f(m2)
    if (np.isscalar(p1) and np.isscalar(p2)) or np.array(p1).shape == np.array(p2).shape:
        return np.array(p1).dtype.type
    return np.object_


def _batch_column(batch, prop):
    _check_only2d(prop, batch.nd)
    if batch.intensity_image is None and prop in _require_intensity_image:
        raise AttributeError(f"Attribute '{prop}' unavailable when `intensity_image` has not been specified.")
    return batch.get(prop)


def _is_cupy(v):
    return type(v).__module__.partition(".")[0] == "cupy"


def _props_to_dict(regions, properties, separator):
    batch = regions._batch
    xp = batch.xp
    out = {}
    n = len(regions)
    for orig in properties:
        prop = PROPS.get(orig, orig)
        if prop in _BATCH:   # a whole column of the batch (extra properties of these names are shadowed)
            col = _batch_column(batch, prop)
            dtype = np.int64 if COL_DTYPES[prop] is int else np.float64
            col = col.astype(dtype, copy=False)
            per = col.shape[1:]
            if per == ():
                out[orig] = col.copy()
            else:
                for ind in np.ndindex(per):
                    out[separator.join(map(str, (orig,) + ind))] = col[(slice(None),) + ind].copy()
            continue
        r = regions[0]
        rp = getattr(r, prop)
        if _is_cupy(rp) and rp.ndim == 0:   # a CuPy 0-d result is a scalar column, as NumPy's scalars
            rp = rp.item()
        if prop in COL_DTYPES:
            dtype = COL_DTYPES[prop]
        else:
            dtype = _infer_dtype(r._extra_properties[prop], r._intensity_image is not None, r.image.ndim)
        if np.isscalar(rp) or prop in OBJECT_COLUMNS or dtype is np.object_:
            buf = np.empty(n, dtype=dtype)
            for i in range(n):
                v = regions[i][prop]
                if dtype is not object and dtype is not np.object_ and _is_cupy(v):
                    v = v.item()
                buf[i] = v
            out[orig] = xp.asarray(buf) if batch.gpu and buf.dtype != object else np.copy(buf)
        else:
            shape = np.shape(rp.get() if _is_cupy(rp) else rp)
            locs = [ind if len(ind) > 1 else ind[0] for ind in np.ndindex(shape)]
            names = [separator.join(map(str, (orig,) + ind)) for ind in np.ndindex(shape)]
            data = np.empty((n, len(locs)), dtype=dtype)
            for k in range(n):
                v = regions[k][prop]
                v = np.asarray(v.get() if _is_cupy(v) else v)
                for i, loc in enumerate(locs):
                    data[k, i] = v[loc]
            for i, name in enumerate(names):
                out[name] = xp.asarray(data[:, i]) if batch.gpu else data[:, i]
    return out


def regionprops_table(label_image, intensity_image=None, properties=("label", "bbox"), *, cache=True,
                      separator="-", extra_properties=None, spacing=None, batch_processing=True):
    """Region properties as a dict of columns (scikit-image's names and dtypes).
    Batch properties are whole columns of the one-pass table; the others are
    computed region by region. batch_processing: cuCIM's switch, accepted (fovea
    always computes the batch properties for all regions at once)."""
    regions = _LazyRegions(label_image, intensity_image, cache, extra_properties, spacing)
    if extra_properties is not None:
        properties = list(properties) + [f.__name__ for f in extra_properties]
    if len(regions) == 0:
        lab = regions._batch.label_image
        xp = regions._batch.xp
        nd = lab.ndim
        dummy = xp.zeros((3,) * nd, dtype=np.int64)
        dummy[(1,) * nd] = 1
        inten = regions._batch.intensity_image
        if inten is not None:
            inten = xp.zeros(dummy.shape + inten.shape[nd:], dtype=inten.dtype)
        regions = _LazyRegions(dummy, inten, cache, extra_properties, spacing)
        d = _props_to_dict(regions, properties, separator)
        return {k: v[:0] for k, v in d.items()}
    return _props_to_dict(regions, properties, separator)


_docs.install(regionprops, RegionProperties)
