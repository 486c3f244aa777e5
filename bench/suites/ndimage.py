"""fovea.ndimage (filters, morphology, interpolation) and fovea.skimage.{filters,morphology} against scipy.ndimage /
scikit-image (CPU) and cupyx.scipy.ndimage / cuCIM (GPU): the cases of the former
bench/bench_ndimage.py, same calls, same inputs (smoothed random data, so binaries
have structure; three rotating copies of x so the L2 cache is not what is measured)."""
import numpy as np

from . import Case, Suite

NDI = {"cpu": ["scipy"], "gpu": ["cupy", "cucim"]}
SK = {"cpu": ["skimage"], "gpu": ["cucim"]}
SEPARABLE = {"gaussian_filter", "uniform_filter", "minimum_filter(size)", "maximum_filter(size)",
             "gaussian_filter1d", "uniform_filter1d", "correlate1d(9)", "sobel", "prewitt"}


class Inputs:
    """Random (never constant) inputs of one shape and dtype, in xp; three copies of x to rotate."""

    def __init__(self, xp, shape, dtype, params):
        import scipy.ndimage as ndi_ref   # noqa: PLC0415
        rng = np.random.default_rng(7)
        nd = len(shape)
        dtype = np.dtype(dtype)
        if dtype.kind == "f":
            host = rng.random(shape, dtype=np.float32).astype(dtype)
            top = 1.0
        else:
            host = rng.integers(0, 256, shape, dtype=np.uint8).astype(dtype)
            top = 255.0
        self.top = top
        sm = ndi_ref.uniform_filter(host.astype(np.float32), 7)
        b_host = sm > np.float32(0.5 * top)
        xs_host = np.round(ndi_ref.gaussian_filter(host.astype(np.float32), 3) * (8 / top)).astype(dtype) \
            if dtype.kind != "f" else ndi_ref.gaussian_filter(host, 3)
        self.bufs = [xp.asarray(np.roll(host, i * 7, axis=0)) for i in range(3)]
        self.x = self.bufs[0]
        self.xf = xp.asarray(host.astype(np.float32))
        self.xseed = xp.asarray((host.astype(np.float32) - np.float32(0.2 * top)).clip(0))
        self.xs = xp.asarray(xs_host)
        self.b = xp.asarray(b_host)
        self.b2 = self.b if nd == 2 else None
        seed = np.zeros(shape, bool)
        seed[tuple(slice(s // 2 - 2, s // 2 + 2) for s in shape)] = True
        self.seed = xp.asarray(seed)
        self.w5 = xp.asarray(rng.random((5,) * nd))
        self.w9 = xp.asarray(rng.random(9))
        self.cross = xp.asarray(ndi_ref.generate_binary_structure(nd, 1))
        yy, xx = np.mgrid[-3:4, -3:4]
        self.disk = xp.asarray((yy * yy + xx * xx <= 9).astype(np.uint8)) if nd == 2 else None
        sp = np.zeros((5,) * nd)
        sp[(0,) * nd] = 1
        sp[(4,) * nd] = -1
        sp[(2,) * nd] = 0.5
        self.sparse = xp.asarray(sp)
        # interpolation: a mild affine map (rotation-like, slightly zoomed) and the
        # coordinates it gives, for map_coordinates
        mat = np.eye(nd) * 0.95
        mat[0, -1], mat[-1, 0] = 0.2, -0.2
        self.mat = xp.asarray(mat)
        grid = np.indices(shape, dtype=np.float64).reshape(nd, -1)
        self.coords = xp.asarray((mat @ grid).reshape((nd,) + tuple(shape)) + 0.5)

    def rotate(self, i):
        self.x = self.bufs[i % 3]


def _cases():
    C = []

    def add(name, fam, fn, lo=1, hi=3):
        C.append(Case(name, fn, peers=NDI if fam == "ndi" else SK, lo=lo, hi=hi,
                      nbytes=(lambda d: 2 * d.x.nbytes) if name in SEPARABLE else None))

    # scipy.ndimage filters
    add("correlate(5^n)", "ndi", lambda m, d: m.ndi.correlate(d.x, d.w5))
    add("convolve(5^n)", "ndi", lambda m, d: m.ndi.convolve(d.x, d.w5))
    add("correlate1d(9)", "ndi", lambda m, d: m.ndi.correlate1d(d.x, d.w9, axis=0))
    add("convolve1d(9)", "ndi", lambda m, d: m.ndi.convolve1d(d.x, d.w9, axis=-1))
    add("gaussian_filter", "ndi", lambda m, d: m.ndi.gaussian_filter(d.x, 2.0))
    add("gaussian_filter1d", "ndi", lambda m, d: m.ndi.gaussian_filter1d(d.x, 2.0, axis=0))
    add("gaussian_gradient_magnitude", "ndi", lambda m, d: m.ndi.gaussian_gradient_magnitude(d.x, 2.0))
    add("gaussian_laplace", "ndi", lambda m, d: m.ndi.gaussian_laplace(d.x, 2.0))
    add("laplace", "ndi", lambda m, d: m.ndi.laplace(d.x))
    add("sobel", "ndi", lambda m, d: m.ndi.sobel(d.x, axis=0))
    add("prewitt", "ndi", lambda m, d: m.ndi.prewitt(d.x, axis=-1))
    add("uniform_filter", "ndi", lambda m, d: m.ndi.uniform_filter(d.x, 5))
    add("uniform_filter1d", "ndi", lambda m, d: m.ndi.uniform_filter1d(d.x, 9, axis=0))
    add("minimum_filter(size)", "ndi", lambda m, d: m.ndi.minimum_filter(d.x, 5))
    add("maximum_filter(size)", "ndi", lambda m, d: m.ndi.maximum_filter(d.x, 5))
    add("minimum_filter1d", "ndi", lambda m, d: m.ndi.minimum_filter1d(d.x, 9, axis=0))
    add("maximum_filter1d", "ndi", lambda m, d: m.ndi.maximum_filter1d(d.x, 9, axis=-1))
    add("maximum_filter(cross)", "ndi", lambda m, d: m.ndi.maximum_filter(d.x, footprint=d.cross))
    add("median_filter(3)", "ndi", lambda m, d: m.ndi.median_filter(d.x, 3))
    add("median_filter(5)", "ndi", lambda m, d: m.ndi.median_filter(d.x, 5), hi=2)
    add("rank_filter(3,-2)", "ndi", lambda m, d: m.ndi.rank_filter(d.x, -2, 3))
    add("percentile_filter(3,25)", "ndi", lambda m, d: m.ndi.percentile_filter(d.x, 25, 3))
    # scipy.ndimage morphology
    add("binary_erosion", "ndi", lambda m, d: m.ndi.binary_erosion(d.b))
    add("binary_dilation", "ndi", lambda m, d: m.ndi.binary_dilation(d.b))
    add("binary_opening", "ndi", lambda m, d: m.ndi.binary_opening(d.b))
    add("binary_closing", "ndi", lambda m, d: m.ndi.binary_closing(d.b))
    add("binary_erosion(iter=5)", "ndi", lambda m, d: m.ndi.binary_erosion(d.b, iterations=5))
    add("binary_fill_holes", "ndi", lambda m, d: m.ndi.binary_fill_holes(d.b), hi=2)
    add("binary_hit_or_miss", "ndi", lambda m, d: m.ndi.binary_hit_or_miss(d.b))
    add("binary_propagation", "ndi", lambda m, d: m.ndi.binary_propagation(d.seed, mask=d.b), hi=2)
    add("grey_erosion(size)", "ndi", lambda m, d: m.ndi.grey_erosion(d.x, size=5))
    add("grey_dilation(footprint)", "ndi", lambda m, d: m.ndi.grey_dilation(d.x, footprint=d.cross))
    add("grey_opening(size)", "ndi", lambda m, d: m.ndi.grey_opening(d.x, size=5))
    add("grey_closing(size)", "ndi", lambda m, d: m.ndi.grey_closing(d.x, size=5))
    add("morphological_gradient", "ndi", lambda m, d: m.ndi.morphological_gradient(d.x, size=3))
    add("morphological_laplace", "ndi", lambda m, d: m.ndi.morphological_laplace(d.x, size=3))
    add("white_tophat", "ndi", lambda m, d: m.ndi.white_tophat(d.x, size=5))
    add("black_tophat", "ndi", lambda m, d: m.ndi.black_tophat(d.x, size=5))
    add("distance_transform_edt", "ndi", lambda m, d: m.ndi.distance_transform_edt(d.b))
    add("distance_transform_cdt", "ndi", lambda m, d: m.ndi.distance_transform_cdt(d.b), hi=2)
    # scipy.ndimage interpolation, spline orders 0, 1 and 3
    for k in (0, 1, 3):
        add(f"shift(o{k})", "ndi", lambda m, d, k=k: m.ndi.shift(d.x, 2.5, order=k))
        add(f"zoom(o{k})", "ndi", lambda m, d, k=k: m.ndi.zoom(d.x, 1.5, order=k), hi=2)
        add(f"rotate(o{k})", "ndi", lambda m, d, k=k: m.ndi.rotate(d.x, 30, reshape=False, order=k), lo=2, hi=2)
        add(f"affine_transform(o{k})", "ndi", lambda m, d, k=k: m.ndi.affine_transform(d.x, d.mat, order=k))
        add(f"map_coordinates(o{k})", "ndi", lambda m, d, k=k: m.ndi.map_coordinates(d.x, d.coords, order=k))
    # skimage.filters
    add("gaussian", "skf", lambda m, d: m.filters.gaussian(d.x, sigma=2))
    add("sobel(sk)", "skf", lambda m, d: m.filters.sobel(d.x))
    add("prewitt(sk)", "skf", lambda m, d: m.filters.prewitt(d.x))
    add("scharr", "skf", lambda m, d: m.filters.scharr(d.x))
    add("farid", "skf", lambda m, d: m.filters.farid(d.x), hi=2)
    add("roberts", "skf", lambda m, d: m.filters.roberts(d.x), lo=2, hi=2)
    add("laplace(sk)", "skf", lambda m, d: m.filters.laplace(d.x))
    add("median(sk)", "skf", lambda m, d: m.filters.median(d.x, behavior="ndimage"))
    add("unsharp_mask", "skf", lambda m, d: m.filters.unsharp_mask(d.x, radius=2))
    add("difference_of_gaussians", "skf", lambda m, d: m.filters.difference_of_gaussians(d.x, 1, 3))
    add("gabor", "skf", lambda m, d: m.filters.gabor(d.x, 0.2), lo=2, hi=2)
    add("hessian", "skf", lambda m, d: m.filters.hessian(d.x, sigmas=[1, 2]), hi=2)
    add("frangi", "skf", lambda m, d: m.filters.frangi(d.x, sigmas=[1, 2]), hi=2)
    add("sato", "skf", lambda m, d: m.filters.sato(d.x, sigmas=[1, 2]), hi=2)
    add("meijering", "skf", lambda m, d: m.filters.meijering(d.x, sigmas=[1, 2]), hi=2)
    add("correlate_sparse", "skf", lambda m, d: m.filters.correlate_sparse(d.x, d.sparse), hi=2)
    # skimage.morphology
    add("erosion(disk3)", "skm", lambda m, d: m.morph.erosion(d.x, d.disk), hi=2)
    add("dilation(disk3)", "skm", lambda m, d: m.morph.dilation(d.x, d.disk), hi=2)
    add("opening(disk3)", "skm", lambda m, d: m.morph.opening(d.x, d.disk), hi=2)
    add("closing(disk3)", "skm", lambda m, d: m.morph.closing(d.x, d.disk), hi=2)
    add("white_tophat(disk3)", "skm", lambda m, d: m.morph.white_tophat(d.x, d.disk), hi=2)
    add("black_tophat(disk3)", "skm", lambda m, d: m.morph.black_tophat(d.x, d.disk), hi=2)
    add("binary_erosion(sk)", "skm", lambda m, d: m.morph.binary_erosion(d.b, d.disk), hi=2)
    add("binary_dilation(sk)", "skm", lambda m, d: m.morph.binary_dilation(d.b, d.disk), hi=2)
    add("isotropic_erosion", "skm", lambda m, d: m.morph.isotropic_erosion(d.b, 4))
    add("isotropic_dilation", "skm", lambda m, d: m.morph.isotropic_dilation(d.b, 4))
    add("reconstruction", "skm", lambda m, d: m.morph.reconstruction(d.xseed, d.xf), hi=2)
    add("h_maxima", "skm", lambda m, d: m.morph.h_maxima(d.xs, 0.1 * d.top), hi=2)
    add("local_maxima", "skm", lambda m, d: m.morph.local_maxima(d.xs), hi=2)
    add("thin", "skm", lambda m, d: m.morph.thin(d.b2), lo=2, hi=2)
    add("medial_axis", "skm", lambda m, d: m.morph.medial_axis(d.b2), lo=2, hi=2)
    return C


SUITE = Suite(
    "ndimage", "fovea.ndimage, skimage.filters and skimage.morphology", _cases(), inputs=Inputs,
    shapes={"cpu": {"default": ["1k"], "quick": ["256"], "big": ["4k"]},
            "gpu": {"default": ["4k"], "quick": ["512"], "big": ["8k", "256^3"]}},
    dtypes=("float32", "uint8"),
    note="separable filters on the GPU also report the share of the device-to-device copy bandwidth "
         "(one read + one write of the image)")
