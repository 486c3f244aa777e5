"""scikit-image workflows: segmentation kernels, watershed, regionprops_table, metrics
and find_contours, active contours, superpixels (the cases of the former bench_segmentation.py,
bench_watershed.py, bench_regionprops.py, bench_metrics.py, bench_active_contours.py,
same calls and inputs). Peers: scikit-image on the CPU, cuCIM on the GPU; where cuCIM
has no such function (watershed) the GPU rows also time scikit-image and fovea's CPU
backend on host copies. Every case checks fovea's result against each peer's."""
import math

import numpy as np

from . import Case, Suite

SK = {"cpu": ["skimage"], "gpu": ["cucim"]}


def _host(x):
    if hasattr(x, "get"):
        return x.get()
    return np.asarray(x)


def _xp_of(x):
    import sys   # noqa: PLC0415
    cp = sys.modules.get("cupy")
    return cp if cp is not None and isinstance(x, cp.ndarray) else np


# ---- segmentation -------------------------------------------------------------------------


def blobs(shape, fraction, seed):
    """Smoothed noise above a quantile (fovea's own Gaussian: all cores)."""
    from fovea import ndimage as ndi   # noqa: PLC0415
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(shape, dtype=np.float32)
    sm = ndi.gaussian_filter(noise, sigma=min(max(shape) * fraction / 4, 8.0))
    return sm > np.quantile(sm[::7].ravel() if sm.ndim == 2 else sm[::4, ::4].ravel(), 0.55)


def rgb_image(n, seed):
    from skimage import data   # noqa: PLC0415
    ihc = data.immunohistochemistry()
    reps = (n + ihc.shape[0] - 1) // ihc.shape[0]
    img = np.tile(ihc, (reps, reps, 1))[:n, :n]
    rng = np.random.default_rng(seed)
    return np.clip(img.astype(np.int16) + rng.integers(-3, 4, img.shape), 0, 255).astype(np.uint8)


class SegInputs:
    """Built lazily: only what the cases that run need."""

    def __init__(self, xp, shape, dtype, params):
        self.xp, self.shape = xp, shape

    def __getattr__(self, key):
        n = self.shape[0]
        from skimage import color   # noqa: PLC0415
        if key == "blobs":
            v = blobs(self.shape, 0.01 if len(self.shape) == 2 else 0.03, 1 if len(self.shape) == 2 else 2)
        elif key == "rgb":
            v = rgb_image(n, 3)
        elif key == "gray":
            v = color.rgb2gray(_host(self.rgb)).astype(np.float32)
        elif key == "gray8":
            v = (_host(self.gray) * 255).astype(np.uint8)
        elif key == "rgb_half":   # the CLAHE case ran on half the side (4096^2 beside 8192^2)
            v = _host(self.rgb)[:n // 2, :n // 2].copy()
        else:
            raise AttributeError(key)
        v = self.xp.asarray(v)
        setattr(self, key, v)
        return v


def same_labels(a, b):
    a, b = _host(a), _host(b)
    if a.shape != b.shape or not np.array_equal(a > 0, b > 0):
        return False
    fg = a > 0
    pairs = np.unique(np.stack([a[fg].astype(np.int64), b[fg].astype(np.int64)]), axis=1)
    return pairs.shape[1] == len(np.unique(a[fg])) == len(np.unique(b[fg]))


def _label_tuple(r):
    return r[0] if isinstance(r, tuple) else r


SEG_2D = {"cpu": {"default": ["2k"], "quick": ["512"], "big": ["8k"]},
          "gpu": {"default": ["4096", "512"], "quick": ["512"], "big": ["8k"]}}
SEG_3D = {"cpu": {"default": ["128^3"], "quick": ["64^3"], "big": ["400^3"]},
          "gpu": {"default": ["256^3", "128^3"], "quick": ["64^3"], "big": ["400^3"]}}

SEGMENTATION = Suite("segmentation", "label, thresholds, colour, exposure, small objects", [
    Case("label blobs conn 2", lambda m, d: m.measure.label(d.blobs, connectivity=2), SK, check=same_labels,
         lo=2, hi=2),
    Case("label blobs conn 3", lambda m, d: m.measure.label(d.blobs, connectivity=3), SK, check=same_labels,
         shapes=SEG_3D),
    Case("ndimage.label blobs", lambda m, d: m.ndi.label(d.blobs)[0], {"cpu": ["scipy"], "gpu": ["cupy"]},
         check=same_labels, lo=2, hi=2),
    Case("threshold_otsu float32", lambda m, d: m.filters.threshold_otsu(d.gray), SK, check="close", lo=2, hi=2),
    Case("threshold_otsu uint8", lambda m, d: m.filters.threshold_otsu(d.gray8), SK, check="close", lo=2, hi=2),
    Case("rgb2gray uint8", lambda m, d: m.color.rgb2gray(d.rgb), SK, check="close", lo=2, hi=2),
    Case("rgb2hed uint8", lambda m, d: m.color.rgb2hed(d.rgb), SK, check="close", lo=2, hi=2, rtol=1e-4),
    Case("rgb2lab uint8", lambda m, d: m.color.rgb2lab(d.rgb), SK, check="close", lo=2, hi=2, rtol=1e-4,
         slow_peer_runs=1),
    Case("equalize_hist uint8", lambda m, d: m.exposure.equalize_hist(d.gray8), SK, check="close", lo=2, hi=2),
    Case("equalize_adapthist x3 uint8 (side/2)", lambda m, d: m.exposure.equalize_adapthist(d.rgb_half), SK,
         check="close", lo=2, hi=2, rtol=1e-4, slow_peer_runs=1),
    Case("remove_small_objects(64)", lambda m, d: m.morph.remove_small_objects(d.blobs, max_size=64), SK,
         check="equal", lo=2, hi=2),
], inputs=SegInputs, shapes=SEG_2D)




# ---- watershed ----------------------------------------------------------------------------


def nuclei(n, rng):
    """Touching discs, their distance transform and peak markers."""
    import scipy.ndimage as ndi   # noqa: PLC0415
    from skimage.feature import peak_local_max   # noqa: PLC0415
    img = np.zeros((n, n), bool)
    yy, xx = np.indices((n, n))
    count = max(4, (n // 40) ** 2 // 2)
    for _ in range(count):
        cy, cx = rng.uniform(0, n, 2)
        r = rng.uniform(n / 160, n / 60)
        y0, y1 = int(max(cy - r, 0)), int(min(cy + r + 1, n))
        x0, x1 = int(max(cx - r, 0)), int(min(cx + r + 1, n))
        sub = (yy[y0:y1, x0:x1] - cy) ** 2 + (xx[y0:y1, x0:x1] - cx) ** 2 < r * r
        img[y0:y1, x0:x1] |= sub
    dist = ndi.distance_transform_edt(img)
    coords = peak_local_max(dist, labels=img.astype(np.int32), footprint=np.ones((3, 3)), exclude_border=False)
    peaks = np.zeros(img.shape, bool)
    peaks[tuple(coords.T)] = True
    markers = ndi.label(peaks)[0]
    return img, dist, markers


class WsInputs:
    """The watershed cases' images on the host (h) and in xp (the device's arrays)."""

    def __init__(self, xp, shape, dtype, params):
        import scipy.ndimage as ndi   # noqa: PLC0415
        n = shape[0]
        rng = np.random.default_rng(0)
        img, dist, markers = nuclei(n, rng)
        grad = ndi.gaussian_gradient_magnitude(rng.random((n, n)), 3)
        grad = (grad / grad.max() * 40).astype(np.uint8)   # quantised: plateaus and ties
        seeds = np.zeros((n, n), np.int32)
        pos = rng.choice(n * n, size=n, replace=False)
        seeds.flat[pos] = np.arange(1, n + 1)
        fl = ndi.gaussian_filter(rng.random((n, n)), 2)    # continuous: no ties
        ps = 512 if n >= 1024 else 128                     # the demo's batch as one volume
        patches = [nuclei(ps, rng) for _ in range(16)]
        pmask, pdist, pmk = (np.stack([p[k] for p in patches]) for k in range(3))
        cross = np.zeros((3, 3, 3), bool)
        cross[1] = [[0, 1, 0], [1, 1, 1], [0, 1, 0]]
        self.h = dict(ndist=-dist, nmk=markers, nmask=img, grad=grad, seeds=seeds, fl=fl, pdist=-pdist, pmk=pmk,
                      pmask=pmask)
        self.d = {k: xp.asarray(v) for k, v in self.h.items()}
        self.cross = cross
        self.ps = ps


def _ws(image, markers, **kw):
    """A watershed call on the device arrays (m = fovea / cuCIM) or on host copies."""
    def run(m, d, host=False):
        a = d.h if host else d.d
        k = {key: (a[v] if isinstance(v, str) and v in a else (d.cross if v == "cross" else v)) for key, v in kw.items()}
        return m.segmentation.watershed(a[image], a[markers], **k)
    return run


def ws_case(name, image, markers, **kw):
    run = _ws(image, markers, **kw)
    host = lambda m, d: run(m, d, host=True)   # noqa: E731
    return Case(name, run, {"cpu": ["skimage"], "gpu": ["cucim", "skimage", "fovea:cpu"]},
                calls={"skimage": host, "fovea:cpu": host}, check="equal")


WATERSHED = Suite("watershed", "segmentation.watershed", [
    ws_case("nuclei -dist, peaks, mask", "ndist", "nmk", mask="nmask"),
    ws_case("nuclei + watershed_line", "ndist", "nmk", mask="nmask", watershed_line=True),
    ws_case("uint8 gradient, seeds", "grad", "seeds"),
    ws_case("uint8 gradient, conn=2", "grad", "seeds", connectivity=2),
    ws_case("float noise, seeds (tie-free)", "fl", "seeds"),
    ws_case("float noise, compactness=0.01", "fl", "seeds", compactness=0.01),
    ws_case("16 nuclei patches, plane cross", "pdist", "pmk", mask="pmask", connectivity="cross"),
], inputs=WsInputs, shapes={"cpu": {"default": ["2k"], "quick": ["256"]},
                            "gpu": {"default": ["2k"], "quick": ["256"]}},
    note="the GPU rows' skimage and fovea:cpu peers run on host copies (cuCIM has no watershed); "
         "labels are checked equal to scikit-image's (the GPU flood differs at plateau borders)")


# ---- regionprops_table --------------------------------------------------------------------

BATCH = ["label", "area", "bbox", "centroid", "intensity_mean", "intensity_max", "moments_hu", "eccentricity",
         "orientation", "axis_major_length", "axis_minor_length", "inertia_tensor_eigvals"]
PROPS = {"batch": BATCH, "+region": BATCH + ["perimeter", "solidity", "euler_number"],
         "issue32": ["label", "area", "centroid", "bbox", "intensity_mean"]}


class RpInputs:
    """A grid of 10 x 10 cells, one random blob (0.75 fill of the 8 x 8 interior) per label,
    float32 intensity; params["labels"] labels."""

    def __init__(self, xp, shape, dtype, params, cell=10):
        n = params["labels"]
        rng = np.random.default_rng(0)
        side = math.ceil(math.sqrt(n))
        lab = np.zeros((side * cell, side * cell), dtype=np.int32)
        ids = np.arange(1, side * side + 1, dtype=np.int32).reshape(side, side)
        ids[ids > n] = 0
        inner = rng.random((side, side, cell - 2, cell - 2)) < 0.75
        blocks = np.where(inner, ids[:, :, None, None], 0)
        view = lab.reshape(side, cell, side, cell).transpose(0, 2, 1, 3)
        view[:, :, 1:-1, 1:-1] = blocks
        inten = rng.random(lab.shape, dtype=np.float32) * 255
        self.lab, self.inten = xp.asarray(lab), xp.asarray(inten)


def same_table(got, want):
    if list(got) != list(want):
        return False
    for k in want:
        g, w = _host(got[k]).astype(np.float64), _host(want[k]).astype(np.float64)
        if k == "orientation":   # +-pi/2 name one axis (the sign of a rounding-noise mu11)
            g, w = np.cos(2 * g), np.cos(2 * w)
        if g.shape != w.shape or not np.allclose(g, w, rtol=1e-5, atol=1e-8, equal_nan=True):
            return False
    return True


def rp_case(labels, pset, big=False):
    return Case(f"regionprops_table {labels} labels {pset}",
                lambda m, d: m.measure.regionprops_table(d.lab, d.inten, PROPS[pset]), SK,
                params={"labels": labels}, check=same_table, big=big, quick=labels <= 100, slow_peer_runs=1 if pset == "+region" else None)


REGIONPROPS = Suite("regionprops", "measure.regionprops_table", [
    rp_case(100, "batch"), rp_case(100, "+region"), rp_case(10000, "batch"), rp_case(10000, "+region"),
    rp_case(10000, "issue32"), rp_case(100000, "batch", big=True), rp_case(100000, "+region", big=True),
], inputs=RpInputs, note="batch: label, area, bbox, centroid, intensity_mean, intensity_max, moments_hu, "
                         "eccentricity, orientation, axis lengths, inertia_tensor_eigvals; +region adds perimeter, "
                         "solidity, euler_number; issue32: label, area, centroid, bbox, intensity_mean")


# ---- metrics and find_contours ------------------------------------------------------------


def smooth_field(shape, seed=0):
    """A smooth random image (many contours): sums of cosines."""
    rng = np.random.default_rng(seed)
    r = np.arange(shape[0], dtype=np.float64)[:, None]
    c = np.arange(shape[1], dtype=np.float64)[None, :]
    out = np.zeros(shape)
    for _ in range(6):
        fr, fc, ph = rng.uniform(0.005, 0.05), rng.uniform(0.005, 0.05), rng.uniform(0, 6.28)
        out += np.cos(fr * r + fc * c + ph)
    return out


class MetricInputs:
    """n4 = the shape's side (float32 pairs, label images, contour field), n8 = 2 n4 (uint8 pairs)."""

    def __init__(self, xp, shape, dtype, params):
        n4 = shape[0]
        n8 = 2 * n4
        rng = np.random.default_rng(1)
        a4 = rng.random((n4, n4), dtype=np.float32)
        b4 = np.clip(a4 + 0.1 * rng.standard_normal((n4, n4), dtype=np.float32), 0, 1)
        a8 = rng.integers(0, 256, (n8, n8), dtype=np.uint8)
        b8 = np.clip(a8.astype(np.int16) + rng.integers(-20, 21, (n8, n8), dtype=np.int16), 0, 255).astype(np.uint8)
        field = smooth_field((n4, n4))
        lab_t = (field * 3).astype(np.int64) + 20
        lab_s = np.where(rng.random((n4, n4)) < 0.9, lab_t, rng.integers(0, 20, (n4, n4)))
        pts_a = rng.random((n4 // 2, n4 // 2)) < 0.001
        pts_b = rng.random((n4 // 2, n4 // 2)) < 0.001
        for k, v in dict(a4=a4, b4=b4, a8=a8, b8=b8, field=field, lab_t=lab_t, lab_s=lab_s, pts_a=pts_a,
                         pts_b=pts_b).items():
            setattr(self, k, xp.asarray(v))


def _first(x):
    return x[0] if isinstance(x, tuple) else x


def close_first(rtol):
    def cmp(o, p):
        return bool(np.allclose(_host(_first(o)), _host(_first(p)), rtol=rtol, atol=0))
    return cmp


def contours_equal(o, p):
    return len(o) == len(p) and all(np.array_equal(_host(x), _host(y)) for x, y in zip(o, p))


METRICS = Suite("metrics", "skimage.metrics and measure.find_contours", [
    Case("ssim float32", lambda m, d: m.metrics.structural_similarity(d.a4, d.b4, data_range=1.0), SK,
         check=close_first(1e-6)),
    Case("ssim float32 gaussian", lambda m, d: m.metrics.structural_similarity(
        d.a4, d.b4, data_range=1.0, gaussian_weights=True, sigma=1.5, use_sample_covariance=False), SK,
        check=close_first(1e-6)),
    Case("ssim float32 grad+full", lambda m, d: m.metrics.structural_similarity(
        d.a4, d.b4, data_range=1.0, gradient=True, full=True), SK, check=close_first(1e-6)),
    Case("ssim uint8 (2x side)", lambda m, d: m.metrics.structural_similarity(d.a8, d.b8), SK,
         check=close_first(1e-6)),
    Case("psnr uint8 (2x side)", lambda m, d: m.metrics.peak_signal_noise_ratio(d.a8, d.b8), SK,
         check=close_first(1e-12)),
    Case("psnr float32", lambda m, d: m.metrics.peak_signal_noise_ratio(d.a4, d.b4, data_range=1.0), SK,
         check=close_first(1e-12)),
    Case("adapted_rand_error", lambda m, d: m.metrics.adapted_rand_error(d.lab_t, d.lab_s), SK,
         check=close_first(1e-9)),
    Case("variation_of_information", lambda m, d: m.metrics.variation_of_information(d.lab_t, d.lab_s), SK,
         check=close_first(1e-9)),
    Case("hausdorff_distance (side/2)", lambda m, d: m.metrics.hausdorff_distance(d.pts_a, d.pts_b), SK,
         check=close_first(0)),
    Case("find_contours", lambda m, d: m.measure.find_contours(d.field, 0.3), SK, check=contours_equal),
], inputs=MetricInputs, shapes={"cpu": {"default": ["1k"], "quick": ["256"], "big": ["4096"]},
                                "gpu": {"default": ["4096"], "quick": ["512"]}})


# ---- active contours, random walker -------------------------------------------------------


def camera_image(n, seed):
    """camera tiled to n x n plus a little noise, float64 in [0, 1]."""
    from skimage import data   # noqa: PLC0415
    cam = data.camera()
    reps = (n + cam.shape[0] - 1) // cam.shape[0]
    img = np.tile(cam, (reps, reps))[:n, :n].astype(np.float64) / 255
    rng = np.random.default_rng(seed)
    return np.clip(img + rng.normal(0, 0.01, img.shape), 0, 1)


class AcInputs:
    """img_m (side n), its inverse Gaussian gradient; img_c, img_r and seeds lab_r (side n / 2)."""

    def __init__(self, xp, shape, dtype, params):
        from fovea.skimage import segmentation as fseg   # noqa: PLC0415
        n = shape[0]
        img_m = camera_image(n, 1)
        gimg = fseg.inverse_gaussian_gradient(img_m, alpha=100, sigma=2)
        img_r = camera_image(n // 2, 3)
        rng = np.random.default_rng(4)
        lab = np.zeros(img_r.shape, np.int32)
        lab[img_r < 0.15] = 1
        lab[img_r > 0.75] = 2
        lab[rng.random(img_r.shape) > 0.05] = 0
        for k, v in dict(img_m=img_m, gimg=gimg, img_c=camera_image(n // 2, 2), img_r=img_r, lab_r=lab).items():
            setattr(self, k, xp.asarray(v))


def reset_cycles():
    """Both libraries alternate SIoIS / ISoSI across calls: start both afresh."""
    from skimage.segmentation import morphsnakes as skms   # noqa: PLC0415
    from fovea.skimage.segmentation import _morphsnakes as fms   # noqa: PLC0415
    skms._curvop = skms._fcycle([lambda u: skms.sup_inf(skms.inf_sup(u)), lambda u: skms.inf_sup(skms.sup_inf(u))])
    fms._curvature_phase[0] = 0


def _fresh(fn):
    def run(m, d):
        reset_cycles()
        return fn(m, d)
    return run


ACTIVE = Suite("active_contours", "active contours and random_walker", [
    Case("morphological_chan_vese x50", _fresh(lambda m, d: m.segmentation.morphological_chan_vese(
        d.img_m, 50, smoothing=1)), SK, check="agree", slow_peer_runs=1),
    Case("morph_geodesic_active_contour x50", _fresh(lambda m, d: m.segmentation.morphological_geodesic_active_contour(
        d.gimg, 50, balloon=-1, threshold=0.5)), SK, check="agree", slow_peer_runs=1),
    Case("chan_vese (side/2) x100", lambda m, d: m.segmentation.chan_vese(d.img_c, max_num_iter=100, tol=0), SK,
         check="agree", slow_peer_runs=1),
    Case("random_walker (side/2) cg_j 2 labels", lambda m, d: m.segmentation.random_walker(d.img_r, d.lab_r), SK,
         check="agree", slow_peer_runs=1),
], inputs=AcInputs, shapes={"cpu": {"default": ["1k"], "quick": ["256"]}, "gpu": {"default": ["1k"]}})


# ---- superpixels ----------------------------------------------------------------------------


class SpInputs:
    """An IHC tile (the WSI use of superpixels) on the host (h) and in xp (d); felzenszwalb
    on a quarter of it, quickshift on an eighth (their CPU cost grows with the window)."""

    def __init__(self, xp, shape, dtype, params):
        n = shape[0]
        rgb = rgb_image(n, 5)
        self.h = dict(rgb=rgb, quarter=rgb[:n // 2, :n // 2].copy(), eighth=rgb[:n // 8, :n // 8].copy())
        self.d = {k: xp.asarray(v) for k, v in self.h.items()}


def sp_case(name, fn, key, **kw):
    """fovea on the device's arrays; scikit-image (and fovea's CPU in the GPU rows) on host copies."""
    run = lambda m, d: getattr(m.segmentation, fn)(d.d[key], **kw)   # noqa: E731
    host = lambda m, d: getattr(m.segmentation, fn)(d.h[key], **kw)   # noqa: E731
    return Case(name, run, {"cpu": ["skimage"], "gpu": ["skimage", "fovea:cpu"]},
                calls={"skimage": host, "fovea:cpu": host}, check="agree" if fn == "slic" else "equal",
                slow_peer_runs=1)


SUPERPIXELS = Suite("superpixels", "segmentation superpixels", [
    sp_case("slic RGB, 1000 segments", "slic", "rgb", n_segments=1000, compactness=10),
    sp_case("slic RGB, SLIC-zero, 400 segments", "slic", "rgb", n_segments=400, slic_zero=True),
    sp_case("felzenszwalb RGB (side/2)", "felzenszwalb", "quarter", scale=100, sigma=0.8, min_size=20),
    sp_case("quickshift RGB (side/8)", "quickshift", "eighth", kernel_size=3, max_dist=6),
], inputs=SpInputs, shapes={"cpu": {"default": ["1k"], "quick": ["512"]}, "gpu": {"default": ["2k"], "quick": ["1k"]}},
    note="cuCIM has no superpixels: the GPU rows time scikit-image and fovea's CPU on host copies; slic's GPU "
         "labels are compared as the fraction equal to scikit-image's (atomic centre sums)")

SUITES = [SEGMENTATION, WATERSHED, REGIONPROPS, METRICS, ACTIVE, SUPERPIXELS]
