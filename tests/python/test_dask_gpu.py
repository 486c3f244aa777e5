"""fovea.dask with CuPy chunks: every op runs on the GPU chunk by chunk and must equal
the whole-array CuPy call. With dask-cuda installed the graphs run on a
LocalCUDACluster (one worker per GPU, results travelling between processes), else
on dask's threaded scheduler. Skipped without a GPU or CuPy."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

import fovea.dask as fd  # noqa: E402
import fovea.ndimage as fndi  # noqa: E402
import fovea.skimage.filters as ffilt  # noqa: E402
import fovea.skimage.measure as fmeas  # noqa: E402
import fovea.skimage.morphology as fmorph  # noqa: E402
from fovea.skimage.restoration import richardson_lucy  # noqa: E402
from fovea.skimage.segmentation import watershed  # noqa: E402

# cucim_dtypes: blockwise ops run in dask worker threads, where the per-thread switch to
# scikit-image's types (conftest.py) is off: both sides then follow fovea's CuPy rule
pytestmark = [pytest.mark.gpu, pytest.mark.cucim_dtypes]


@pytest.fixture(scope="module")
def scheduler():
    """A LocalCUDACluster client when dask-cuda is installed, else the threaded
    scheduler (the module's tests all carry the gpu marker, so this only starts on
    a machine with a GPU)."""
    pytest.importorskip("cupy")
    try:
        import dask_cuda
        import distributed
    except ImportError:
        with dask.config.set(scheduler="threads"):
            yield "threads"
        return
    with dask_cuda.LocalCUDACluster(n_workers=1, threads_per_worker=2, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        yield "dask-cuda"


@pytest.fixture
def gpu(cp, scheduler):
    return cp


def on_gpu(cp, a, chunks):
    return da.from_array(cp.asarray(a), chunks=chunks, asarray=False)


def host(v):
    return v.get() if type(v).__module__.split(".")[0] == "cupy" else np.asarray(v)


def same(cp, got, want, rtol=0.0):
    """got (a computed dask result) equals want (the whole-array CuPy call): both
    CuPy arrays, the same dtype and shape, equal (floats: to rtol when given)."""
    assert isinstance(got, cp.ndarray), type(got)
    assert isinstance(want, cp.ndarray), type(want)
    g, w = got.get(), want.get()
    assert g.dtype == w.dtype and g.shape == w.shape
    if rtol and w.dtype.kind == "f":
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * float(np.abs(w).max()))
    else:
        np.testing.assert_array_equal(g, w)


CHUNKS = [(7, 9), (17, 23)]

ND_CASES = [
    ("gaussian_filter", "float32", dict(sigma=1.7)),
    ("gaussian_filter", "float64", dict(sigma=(0.8, 2.2), mode="wrap")),
    ("median_filter", "uint8", dict(size=5, mode="mirror")),
    ("uniform_filter", "float32", dict(size=4)),
    ("sobel", "float32", dict(axis=0)),
    ("grey_erosion", "uint8", dict(size=(3, 5))),
    ("grey_opening", "uint8", dict(size=4)),
    ("white_tophat", "uint16", dict(size=3, mode="wrap")),
]


@pytest.mark.parametrize("name,dtype,kw", ND_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ND_CASES)])
def test_ndimage_blockwise_cupy(gpu, rng, name, dtype, kw):
    cp = gpu
    x = (rng.random((61, 75)) * 200).astype(dtype)
    want = getattr(fndi, name)(cp.asarray(x), **kw)
    for ch in CHUNKS:
        got = getattr(fd.ndimage, name)(on_gpu(cp, x, ch), **kw)
        assert isinstance(got._meta, cp.ndarray)
        same(cp, got.compute(), want, rtol=1e-5 if name == "uniform_filter" else 0.0)


@pytest.mark.parametrize("name", ["binary_dilation", "binary_opening", "binary_closing"])
def test_binary_blockwise_cupy(gpu, rng, name):
    cp = gpu
    x = rng.random((40, 45)) > 0.5
    st = fndi.generate_binary_structure(2, 2)
    want = getattr(fndi, name)(cp.asarray(x), structure=st, iterations=2)
    for ch in CHUNKS:
        same(cp, getattr(fd.ndimage, name)(on_gpu(cp, x, ch), structure=st, iterations=2).compute(), want)


SK_CASES = [
    (ffilt, fd.skimage.filters, "gaussian", dict(sigma=2.0)),
    (ffilt, fd.skimage.filters, "median", dict(footprint=fmorph.disk(2))),
    (ffilt, fd.skimage.filters, "sobel", dict()),
    (fmorph, fd.skimage.morphology, "erosion", dict(footprint=fmorph.disk(2))),
    (fmorph, fd.skimage.morphology, "closing", dict(footprint=fmorph.disk(3, decomposition="sequence"))),
    (fmorph, fd.skimage.morphology, "white_tophat", dict()),
]


@pytest.mark.parametrize("whole,chunked,name,kw", SK_CASES, ids=[c[2] for c in SK_CASES])
def test_skimage_blockwise_cupy(gpu, rng, whole, chunked, name, kw):
    cp = gpu
    x = (rng.random((53, 64)) * 255).astype(np.uint8)
    want = getattr(whole, name)(cp.asarray(x), **kw)
    for ch in CHUNKS:
        same(cp, getattr(chunked, name)(on_gpu(cp, x, ch), **kw).compute(), want)


def test_skimage_cupy_footprint(gpu, rng):
    # a footprint given as a CuPy array: the overlap comes from its shape alone
    cp = gpu
    x = (rng.random((40, 44)) * 255).astype(np.uint8)
    fp = cp.asarray(fmorph.disk(2))
    want = fmorph.dilation(cp.asarray(x), footprint=fp)
    same(cp, fd.skimage.morphology.dilation(on_gpu(cp, x, 11), footprint=fp).compute(), want)


def test_richardson_lucy_cupy(gpu, rng):
    cp = gpu
    x = rng.random((30, 34, 28)).astype(np.float32)
    psf = np.ones((5, 3, 5), np.float32) / 75
    want = richardson_lucy(cp.asarray(x), psf, num_iter=3, clip=False)
    got = fd.richardson_lucy(on_gpu(cp, x, (15, 17, 14)), psf, num_iter=3, clip=False, depth="exact",
                             boundary="none").compute()
    assert isinstance(got, cp.ndarray) and got.dtype == np.float32
    np.testing.assert_allclose(got.get(), want.get(), rtol=1e-4, atol=1e-5)
    # the usual workflow (periodic, depth psf // 2) runs on CuPy chunks too
    usual = fd.richardson_lucy(on_gpu(cp, x, (15, 17, 14)), cp.asarray(psf), num_iter=3, clip=False).compute()
    assert isinstance(usual, cp.ndarray) and usual.shape == x.shape


@pytest.mark.parametrize("shape", [(97, 83), (21, 19, 23)])
@pytest.mark.parametrize("full", [False, True])
def test_label_cupy(gpu, rng, shape, full):
    cp = gpu
    x = rng.random(shape) > 0.55
    st = fndi.generate_binary_structure(len(shape), len(shape) if full else 1)
    want, n = fndi.label(cp.asarray(x), st)
    for ch in ([max(2, s // 5) for s in shape], [s // 2 + 1 for s in shape]):
        got, m = fd.label(on_gpu(cp, x, tuple(ch)), st)
        assert int(m) == int(n)
        same(cp, got.compute(), want)


def test_label_many_labels_cupy(gpu, rng):
    cp = gpu
    x = rng.random((150, 170)) > 0.7
    want, n = fndi.label(cp.asarray(x))
    got, m = fd.label(on_gpu(cp, x, (23, 31)))
    assert int(m) == int(n) > 3000
    same(cp, got.compute(), want)


def test_regionprops_table_cupy(gpu, rng):
    cp = gpu
    lab, _ = fndi.label(cp.asarray(rng.random((50, 60)) > 0.5))
    img = cp.asarray(rng.random((50, 60)))
    props = ("label", "area", "num_pixels", "bbox", "centroid", "intensity_mean", "intensity_min", "intensity_max")
    want = fmeas.regionprops_table(lab, img, properties=props)
    got = fd.regionprops_table(da.from_array(lab, chunks=(11, 13), asarray=False),
                               da.from_array(img, chunks=17, asarray=False), properties=props)
    assert list(got) == list(want)
    for k in want:
        np.testing.assert_allclose(host(got[k]), host(want[k]), rtol=1e-12, err_msg=k)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32"])
def test_thresholds_cupy(gpu, rng, dtype):
    # the histogram of CuPy chunks is summed on the host: equal to the NumPy
    # whole-array threshold; the whole-array CuPy call within one bin
    cp = gpu
    x = rng.normal(100, 30, (45, 52)).clip(0, 255).astype(dtype)
    d = on_gpu(cp, x, (10, 13))
    step = (float(x.max()) - float(x.min())) / 256
    for name in ("threshold_otsu", "threshold_yen", "threshold_isodata", "threshold_minimum",
                 "threshold_multiotsu"):
        got = host(getattr(fd, name)(d))
        np.testing.assert_array_equal(got, host(getattr(ffilt, name)(x)), err_msg=name)
        np.testing.assert_allclose(got, host(getattr(ffilt, name)(cp.asarray(x))), rtol=0, atol=step * 1.01,
                                   err_msg=name)
    counts, centers = fd.histogram(d)
    want_counts, want_centers = fd.histogram(da.from_array(x, chunks=(10, 13)))
    np.testing.assert_array_equal(counts, want_counts)
    np.testing.assert_array_equal(centers, want_centers)


@pytest.mark.parametrize("lines", [False, True])
def test_watershed_cupy(gpu, rng, lines):
    # a smooth float image has no ties: the GPU flood equals the CPU's, and chunked
    # results the certificate calls exact equal the whole-array CuPy call
    cp = gpu
    img = fndi.gaussian_filter(rng.random((90, 100)), 3.0)
    mk = fndi.label(img == fndi.minimum_filter(img, 3))[0].astype(np.int32)
    want = watershed(cp.asarray(img), cp.asarray(mk), watershed_line=lines)
    for ch, host_markers in (((30, 40), False), ((23, 27), True)):
        markers = mk if host_markers else on_gpu(cp, mk, ch)
        lab, info = fd.watershed(on_gpu(cp, img, ch), markers, watershed_line=lines, return_info=True)
        got = lab.compute()
        assert isinstance(got, cp.ndarray) and got.dtype == want.dtype
        if info["exact"]:
            same(cp, got, want)
        assert float((got == want).mean()) >= 0.99
