"""Interpolation on the reference inputs of issue 28: fovea.ndimage's spline
interpolation against scipy.ndimage (CPU) and cupyx.scipy.ndimage / cuCIM (GPU), and
fovea.skimage.transform's resize / rescale / rotate / warp against scikit-image (CPU)
and cuCIM (GPU).

Inputs: 4096^2 float32 and uint8, a 3840x2160 RGB uint8 image (the channel axis is
never interpolated) and a 256^3 float32 volume; spline orders 0, 1 and 3. The 2-D
transforms are a mild rotation-like affine map (0.95 scale, +-0.2 shear), shift 2.5,
zoom 1.5 (2-D) / 1.25 (3-D), rotate 30 degrees; map_coordinates takes the affine
map's coordinates clipped into the image. CPU results are compared with the
peer's ("agree": the fraction of equal elements where not all are; fovea.ndimage is
meant to equal scipy.ndimage bit for bit)."""
import numpy as np

from . import Case, Suite

NDI = {"cpu": ["scipy"], "gpu": ["cupy", "cucim"]}
SK = {"cpu": ["skimage"], "gpu": ["cucim"]}
ORDERS = (0, 1, 3)


class Inputs:
    """The image x of one shape and dtype in xp, and per shape the transform parameters
    (spatial axes only for RGB); the coordinate array of map_coordinates is made on
    first use (it is 2-3 float64 copies of the image's size)."""

    def __init__(self, xp, shape, dtype, params):
        self.xp, self.shape = xp, tuple(shape)
        rng = np.random.default_rng(11)
        if np.dtype(dtype).kind == "f":
            host = rng.random(shape, dtype=np.float32).astype(dtype)
        else:
            host = rng.integers(0, 256, shape, dtype=np.uint8).astype(dtype)
        self.x = xp.asarray(host)
        self.rgb = len(shape) == 3 and shape[-1] == 3
        nsp = 2 if self.rgb else len(shape)          # spatial axes
        nd = len(shape)
        mat = np.eye(nd)
        mat[:nsp, :nsp] *= 0.95
        mat[0, nsp - 1], mat[nsp - 1, 0] = 0.2, -0.2
        self.mat = xp.asarray(mat)
        self.shift = tuple([2.5] * nsp + [0.0] * (nd - nsp))
        z = 1.5 if nsp == 2 else 1.25
        self.zoom = tuple([z] * nsp + [1.0] * (nd - nsp))
        self.scale = z
        self.out2 = tuple(int(round(s * z)) for s in shape[:nsp])   # resize's output (spatial)
        import skimage.transform as skt   # noqa: PLC0415
        self.tform = skt.AffineTransform(rotation=0.2, scale=(0.95, 1.05), translation=(12.0, -7.0))
        self._coords = None
        self._tforms = {}

    @property
    def coords(self):
        if self._coords is None:
            nd = len(self.shape)
            grid = np.indices(self.shape, dtype=np.float64).reshape(nd, -1)
            mat = np.asarray(self.mat.get() if hasattr(self.mat, "get") else self.mat)
            c = (mat @ grid).reshape((nd,) + self.shape) + 0.5
            # strictly inside the image: CuPy 14.2's map_coordinates (order 1, mode
            # "constant"; cupyx_scipy_ndimage_interpolate_map_order1_constant_2d) reads
            # past its input for points outside it and for points on its last row
            # (compute-sanitizer on the H200, 2026-11-29; fovea's: no error), and the
            # sticky error then failed every later GPU case
            for k in range(nd):
                np.clip(c[k], 0, self.shape[k] - 1.001, out=c[k])
            self._coords = self.xp.asarray(c)
        return self._coords

    def tform_for(self, m):
        """self.tform as the library's own AffineTransform (cuCIM's takes a CuPy matrix)."""
        name = m.transform.__name__
        if name not in self._tforms:
            mat = self.tform.params
            if name.startswith("cucim"):
                import cupy   # noqa: PLC0415
                mat = cupy.asarray(mat)
            self._tforms[name] = m.transform.AffineTransform(matrix=mat)
        return self._tforms[name]


def _ndi_cases():
    C = []
    for k in ORDERS:
        C += [
            Case(f"shift(o{k})", lambda m, d, k=k: m.ndi.shift(d.x, d.shift, order=k), NDI),
            Case(f"zoom(o{k})", lambda m, d, k=k: m.ndi.zoom(d.x, d.zoom, order=k), NDI, slow_peer_runs=1),
            Case(f"rotate(o{k})", lambda m, d, k=k: m.ndi.rotate(d.x, 30, reshape=False, order=k), NDI,
                 slow_peer_runs=1),
            Case(f"affine_transform(o{k})", lambda m, d, k=k: m.ndi.affine_transform(d.x, d.mat, order=k), NDI,
                 slow_peer_runs=1),
            Case(f"map_coordinates(o{k})", lambda m, d, k=k: m.ndi.map_coordinates(d.x, d.coords, order=k), NDI,
                 slow_peer_runs=1),
        ]
    C.append(Case("spline_filter(o3)", lambda m, d: m.ndi.spline_filter(d.x, 3), NDI))
    for c in C:
        c.check = "agree"
    return C


def _sk_cases():
    C = []
    for k in ORDERS:
        C += [
            Case(f"resize(x1.5,o{k})", lambda m, d, k=k: m.transform.resize(d.x, d.out2, order=k), SK,
                 slow_peer_runs=1),
            Case(f"rescale(0.5,o{k})", lambda m, d, k=k: m.transform.rescale(
                d.x, 0.5, order=k, channel_axis=-1 if d.rgb else None), SK, slow_peer_runs=1),
            Case(f"rotate(30,o{k})", lambda m, d, k=k: m.transform.rotate(d.x, 30, order=k), SK,
                 slow_peer_runs=1),
            Case(f"warp(affine,o{k})", lambda m, d, k=k: m.transform.warp(d.x, d.tform_for(m), order=k), SK,
                 slow_peer_runs=1),
        ]
    for c in C:
        c.check, c.rtol = "close", 1e-4
    return C


SHAPES_2D3D = {"cpu": {"default": ["4096", "rgb4k", "256^3"], "quick": ["512", "128^3"]},
               "gpu": {"default": ["4096", "rgb4k", "256^3"], "quick": ["512", "128^3"]}}
SHAPE_DTYPES = {"rgb4k": ("uint8",), "256^3": ("float32",), "128^3": ("float32",)}

INTERPOLATION = Suite(
    "interpolation", "fovea.ndimage interpolation on the reference inputs (issue 28)", _ndi_cases(),
    inputs=Inputs, shapes=SHAPES_2D3D, dtypes=("float32", "uint8"), shape_dtypes=SHAPE_DTYPES,
    note="shift 2.5, zoom 1.5 (3-D: 1.25), rotate 30 (reshape=False), a rotation-like affine matrix and its "
         "coordinates (clipped into the image) for map_coordinates; RGB: the channel axis is not interpolated "
         "(rotate: per channel, as scipy)")

TRANSFORM = Suite(
    "transform", "fovea.skimage.transform resize / rescale / rotate / warp (issue 28)", _sk_cases(),
    inputs=Inputs, shapes={"cpu": {"default": ["4096", "rgb4k"], "quick": ["512"]},
                           "gpu": {"default": ["4096", "rgb4k"], "quick": ["512"]}},
    dtypes=("float32", "uint8"), shape_dtypes=SHAPE_DTYPES,
    note="resize to 1.5x, rescale by 0.5 (anti-aliasing on, channel_axis for RGB), rotate 30 degrees, warp by "
         "an AffineTransform; rotate and warp at orders 1 and 3 take scikit-image's "
         "bilinear / bicubic _warp_fast path (per channel for RGB))")

SUITES = [INTERPOLATION, TRANSFORM]
