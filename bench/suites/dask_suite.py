"""fovea.dask against dask-image on the same dask arrays (issue 31): gaussian,
median and label, blockwise over 1024^2 chunks (CPU: NumPy blocks; GPU: CuPy blocks).
Each call builds the graph and computes it with dask's threaded scheduler; both
libraries get the same array. Checks: gaussian and median results agree; label the
same number of objects (the numbering differs: dask-image's is not the whole-array
labelling's order, fovea's is)."""
import numpy as np

from . import Case, Suite

PEERS = {"cpu": ["dask_image"], "gpu": ["dask_image"]}


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


class DaskInputs:
    """A smooth random image (float32) and a mask of blobs, as dask arrays of 1024^2
    chunks (CuPy blocks on the GPU)."""

    def __init__(self, xp, shape, dtype, params):
        import dask.array as da            # noqa: PLC0415
        import scipy.ndimage as ndi        # noqa: PLC0415
        rng = np.random.default_rng(0)
        img = ndi.gaussian_filter(rng.random(shape, dtype=np.float32), 4.0)
        mask = img > np.quantile(img, 0.6)
        chunks = (1024,) * len(shape)
        self.img = da.from_array(xp.asarray(img), chunks=chunks, asarray=False)
        self.u8 = da.from_array(xp.asarray((img * 255 / img.max()).astype(np.uint8)), chunks=chunks,
                                asarray=False)
        self.mask = da.from_array(xp.asarray(mask), chunks=chunks, asarray=False)


def _label(m, d):
    lab, n = m.dmeas.label(d.mask)
    return lab.compute(), int(_host(n.compute() if hasattr(n, "compute") else n))


def same_count(o, p):
    return o[1] == p[1]


SUITE = Suite("dask", "fovea.dask against dask-image (blockwise and across chunks)", [
    Case("gaussian_filter sigma 4", lambda m, d: m.dfilt.gaussian_filter(d.img, 4.0).compute(), PEERS,
         check="close", rtol=1e-4),
    Case("median_filter 3x3", lambda m, d: m.dfilt.median_filter(d.u8, size=3).compute(), PEERS,
         check="equal"),
    Case("label", _label, PEERS, check=same_count),
], inputs=DaskInputs, dtypes=("float32",),
    shapes={"cpu": {"default": ["4096"], "quick": ["2k"]}, "gpu": {"default": ["8k"], "quick": ["2k"]}},
    note="dask-image 2026.5 runs scipy.ndimage (CPU) or cupyx.scipy.ndimage (GPU) per block; label joins "
         "labels across chunks without renumbering them in raster order")
