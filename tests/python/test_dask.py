"""fovea.dask: slides and stacks as dask arrays, local ops blockwise with exact
borders, the global ops across chunks (docs/dask.md). Every blockwise result is
compared with the whole-array call on random chunkings, chunks smaller than the
overlap included."""

import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

import fovea  # noqa: E402
import fovea.dask as fd  # noqa: E402
import fovea.ndimage as fndi  # noqa: E402

from slides import pyramid, tissue, write_aperio, write_ome  # noqa: E402

SYNC = {"scheduler": "synchronous"}


def chunkings(rng, shape):
    """Two chunkings of shape: small chunks (smaller than most overlaps) and a random
    uneven one."""
    return [tuple(max(2, s // 5) for s in shape), tuple(int(rng.integers(3, max(4, s))) for s in shape)]


# running sums (uniform filters) add in a different order from a block's start:
# equal to float rounding, every other op bit for bit
ROUNDING = ("uniform_filter", "uniform_filter1d", "threshold_local")


def same(got, want, name=""):
    assert got.dtype == want.dtype and got.shape == want.shape
    if name in ROUNDING and want.dtype.kind == "f":
        tol = 1e-5 if want.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * float(np.abs(want).max()))
    else:
        np.testing.assert_array_equal(got, want)


@pytest.fixture
def rng():
    return np.random.default_rng(20261129)


# ---- blockwise ndimage ----------------------------------------------------------------------

CASES = [
    ("gaussian_filter", dict(sigma=1.7)),
    ("gaussian_filter", dict(sigma=(0.8, 2.2), mode="wrap", truncate=3.0)),
    ("gaussian_filter", dict(sigma=1.0, order=1, mode="nearest", radius=3)),
    ("gaussian_filter1d", dict(sigma=2.0, axis=0, mode="mirror")),
    ("gaussian_laplace", dict(sigma=1.2, mode="constant", cval=0.5)),
    ("gaussian_gradient_magnitude", dict(sigma=1.5)),
    ("uniform_filter", dict(size=(4, 5), origin=(1, -1))),
    ("uniform_filter1d", dict(size=6, axis=1, mode="wrap")),
    ("median_filter", dict(size=5, mode="mirror")),
    ("minimum_filter", dict(footprint=np.array([[0, 1, 0], [1, 1, 1], [1, 0, 0]], bool))),
    ("maximum_filter1d", dict(size=4, axis=0, origin=1)),
    ("percentile_filter", dict(percentile=30, size=(3, 4))),
    ("rank_filter", dict(rank=-2, size=4, mode="grid-wrap")),
    ("correlate", dict(weights=np.arange(15.0).reshape(3, 5) / 50, mode="nearest")),
    ("convolve", dict(weights=np.arange(12.0).reshape(4, 3) / 40, origin=(-1, 1))),
    ("correlate1d", dict(weights=[1.0, -2.0, 0.5, 3.0], axis=1)),
    ("convolve1d", dict(weights=[1.0, 2.0, 1.0], axis=0, mode="constant")),
    ("sobel", dict(axis=1)),
    ("prewitt", dict(axis=0, mode="wrap")),
    ("laplace", dict(mode="nearest")),
    ("grey_erosion", dict(size=(3, 5))),
    ("grey_opening", dict(size=4)),
    ("white_tophat", dict(size=3, mode="wrap")),
    ("black_tophat", dict(footprint=np.ones((3, 2), bool))),
    ("morphological_gradient", dict(size=3)),
]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_ndimage_blockwise_equals_whole(rng, name, kw, dtype):
    x = rng.random((37, 45)) * 200
    x = x.astype(dtype)
    want = getattr(fndi, name)(x, **kw)
    for ch in chunkings(rng, x.shape):
        got = getattr(fd.ndimage, name)(da.from_array(x, chunks=ch), **kw)
        assert isinstance(got, da.Array)
        same(got.compute(**SYNC), want, name)


@pytest.mark.parametrize("name", ["binary_erosion", "binary_dilation", "binary_opening", "binary_closing"])
def test_binary_blockwise_equals_whole(rng, name):
    x = rng.random((16, 13, 11)) > 0.4
    st = fndi.generate_binary_structure(3, 2)
    for kw in (dict(), dict(structure=st, iterations=2), dict(iterations=3, border_value=1)):
        want = getattr(fndi, name)(x, **kw)
        for ch in chunkings(rng, x.shape):
            same(getattr(fd.ndimage, name)(da.from_array(x, chunks=ch), **kw).compute(**SYNC), want)


def test_binary_mask_travels_blockwise(rng):
    x = rng.random((40, 40)) > 0.5
    m = rng.random((40, 40)) > 0.3
    want = fndi.binary_erosion(x, iterations=2, mask=m)
    got = fd.ndimage.binary_erosion(da.from_array(x, chunks=9), iterations=2, mask=da.from_array(m, chunks=13))
    same(got.compute(**SYNC), want)


def test_3d_and_numpy_input(rng):
    x = rng.random((20, 21, 22)).astype(np.float64)
    same(fd.ndimage.gaussian_filter(x, 1.3).compute(**SYNC), fndi.gaussian_filter(x, 1.3))
    d = da.from_array(x, chunks=(5, 6, 7))
    same(fd.ndimage.median_filter(d, size=3, mode="wrap").compute(**SYNC), fndi.median_filter(x, size=3, mode="wrap"))


def test_errors():
    d = da.zeros((10, 10), chunks=5)
    with pytest.raises(ValueError, match="not a local operation"):
        fd.ndimage.binary_dilation(d > 0, iterations=0)
    with pytest.raises(TypeError, match="output= an array"):
        fd.ndimage.gaussian_filter(d, 1, output=np.zeros((10, 10)))
    with pytest.raises(TypeError, match="dask array or an array"):
        fd.ndimage.gaussian_filter([[1, 2]], 1)
    with pytest.raises(RuntimeError, match="sequence"):
        fd.ndimage.gaussian_filter(d, (1, 2, 3))


def test_graph_pickles(rng):
    x = rng.random((20, 20)).astype(np.float32)
    g = fd.ndimage.gaussian_filter(da.from_array(x, chunks=7), 1.5)
    g2 = pickle.loads(pickle.dumps(g))
    same(g2.compute(**SYNC), fndi.gaussian_filter(x, 1.5))


# ---- slides ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def svs(tmp_path_factory):
    rng = np.random.default_rng(7)
    base = tissue(rng, 700, 900)
    levels = pyramid(base, 3)
    path = str(tmp_path_factory.mktemp("dask") / "s.svs")
    write_aperio(path, levels, compression="jpeg", tile=128)
    return path


def test_slide_to_dask_equals_read_region(svs):
    s = fovea.open(svs)
    for lv in range(len(s.resolutions["level_dimensions"])):
        w, h = s.resolutions["level_dimensions"][lv]
        want = s.read_region((0, 0), (w, h), lv)
        for ch in (97, (130, 61), 4096):
            arr = s.to_dask(level=lv, chunks=ch)
            assert arr.shape == (h, w, 3) and arr.dtype == np.uint8
            same(arr.compute(**SYNC), want)
    pyr = fovea.OpenSlide(svs).to_dask_pyramid(chunks=256)
    assert [p.shape[:2] for p in pyr] == [(h, w) for w, h in s.resolutions["level_dimensions"]]


def test_slide_to_dask_formats_and_errors(svs):
    s = fovea.open(svs)
    a = s.to_dask(chunks=200, pixel_format="rgba")
    assert a.shape[2] == 4
    same(a[100:300, 250:420].compute(**SYNC), s.read_region((250, 100), (170, 200), 0, pixel_format="rgba"))
    with pytest.raises(ValueError, match="level"):
        s.to_dask(level=9)
    with pytest.raises(ValueError, match="chunks"):
        s.to_dask(chunks=0)
    with pytest.raises(FileNotFoundError):
        fd.slide_to_dask("/nonexistent.svs")


def test_slide_to_dask_on_distributed_workers(svs):
    distributed = pytest.importorskip("distributed")
    s = fovea.open(svs)
    want = s.read_region((0, 0), None, 1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        arr = fd.ndimage.gaussian_filter(s.to_dask(level=1, chunks=100).astype(np.float32), (1.5, 1.5, 0))
        got = client.compute(arr).result()
    same(got, fndi.gaussian_filter(want.astype(np.float32), (1.5, 1.5, 0)))


# ---- stacks, zarr, OME-Zarr -------------------------------------------------------------------


def test_imread_tiff_ome_and_glob(tmp_path, rng):
    import tifffile
    stack = (rng.random((6, 40, 50)) * 60000).astype(np.uint16)
    p = str(tmp_path / "stack.ome.tif")
    tifffile.imwrite(p, stack, ome=True, tile=(16, 16))
    same(fd.imread(p).compute(**SYNC), stack)
    same(fd.imread(p, chunks=(2, 20, 25)).compute(**SYNC), stack)
    for i in range(3):
        tifffile.imwrite(str(tmp_path / f"plane{i}.tif"), stack[i])
    same(fd.imread(str(tmp_path / "plane*.tif")).compute(**SYNC), stack[:3])
    with pytest.raises(FileNotFoundError):
        fd.imread(str(tmp_path / "nothing*.tif"))
    (tmp_path / "junk.bin").write_bytes(b"not an image")
    with pytest.raises(ValueError, match="not a TIFF"):
        fd.imread(str(tmp_path / "junk.bin"))


def test_zarr_and_ome_zarr_round_trip(tmp_path, rng):
    x = (rng.random((3, 300, 260)) * 255).astype(np.uint8)
    d = da.from_array(x, chunks=(1, 64, 64))
    fd.to_zarr(d, str(tmp_path / "a.zarr"))
    same(fd.imread(str(tmp_path / "a.zarr")).compute(**SYNC), x)
    root = fd.to_ome_zarr(d, str(tmp_path / "b.ome.zarr"), axes="zyx", scale=(2.0, 0.5, 0.5))
    ms = root.attrs["multiscales"][0]
    assert ms["version"] == "0.4" and [a["name"] for a in ms["axes"]] == ["z", "y", "x"]
    assert len(ms["datasets"]) == 2
    assert ms["datasets"][1]["coordinateTransformations"][0]["scale"] == [4.0, 1.0, 1.0]
    same(fd.imread(str(tmp_path / "b.ome.zarr")).compute(**SYNC), x)
    import zarr
    lv1 = np.asarray(zarr.open(str(tmp_path / "b.ome.zarr"), mode="r")["1"])
    assert lv1.shape == (2, 150, 130)
    ref = x[:2, :300, :260].astype(np.float64).reshape(1, 2, 150, 2, 130, 2).mean(axis=(1, 3, 5))[0]
    assert np.abs(lv1[0].astype(np.float64) - ref).max() <= 0.5
    with pytest.raises(ValueError, match="axes"):
        fd.to_ome_zarr(d, str(tmp_path / "c.zarr"), axes="yx")


# ---- blockwise skimage -----------------------------------------------------------------------

import fovea.skimage.color as fcolor  # noqa: E402
import fovea.skimage.exposure as fexp  # noqa: E402
import fovea.skimage.filters as ffilt  # noqa: E402
import fovea.skimage.morphology as fmorph  # noqa: E402

SK_CASES = [
    ("filters", "gaussian", dict(sigma=2.0)),
    ("filters", "gaussian", dict(sigma=(1.0, 2.5), mode="wrap", preserve_range=True)),
    ("filters", "difference_of_gaussians", dict(low_sigma=1.0)),
    ("filters", "median", dict(footprint=fmorph.disk(2))),
    ("filters", "sobel", dict()), ("filters", "scharr_h", dict()), ("filters", "farid", dict(axis=0)),
    ("filters", "roberts", dict()), ("filters", "laplace", dict(ksize=3)),
    ("filters", "threshold_local", dict(block_size=11, method="mean")),
    ("morphology", "erosion", dict(footprint=fmorph.disk(2))),
    ("morphology", "closing", dict(footprint=fmorph.disk(3, decomposition="sequence"))),
    ("morphology", "black_tophat", dict()),
    ("exposure", "adjust_gamma", dict(gamma=0.7)),
    ("exposure", "rescale_intensity", dict()),
    ("exposure", "rescale_intensity", dict(in_range=(10, 200), out_range=(0.0, 1.0))),
]
_SK = {"filters": ffilt, "morphology": fmorph, "exposure": fexp}


@pytest.mark.parametrize("mod,name,kw", SK_CASES, ids=[f"{c[1]}-{i}" for i, c in enumerate(SK_CASES)])
def test_skimage_blockwise_equals_whole(rng, mod, name, kw):
    x = (rng.random((33, 41)) * 255).astype(np.uint8)
    want = getattr(_SK[mod], name)(x, **kw)
    for ch in chunkings(rng, x.shape):
        got = getattr(getattr(fd.skimage, mod), name)(da.from_array(x, chunks=ch), **kw)
        same(got.compute(**SYNC), want, name)


def test_skimage_channels_and_color(rng):
    rgb = (rng.random((30, 35, 3)) * 255).astype(np.uint8)
    d = da.from_array(rgb, chunks=(7, 8, 1))
    same(fd.skimage.filters.gaussian(d, 1.5, channel_axis=-1).compute(**SYNC),
         ffilt.gaussian(rgb, 1.5, channel_axis=-1))
    for name in ("rgb2gray", "rgb2hed", "rgb2lab", "rgb2hsv"):
        same(getattr(fd.skimage.color, name)(d).compute(**SYNC), getattr(fcolor, name)(rgb))
    g = da.from_array(rgb[..., 0], chunks=9)
    same(fd.skimage.color.gray2rgb(g).compute(**SYNC), fcolor.gray2rgb(rgb[..., 0]))
    same(fd.skimage.color.separate_stains(d, fcolor.hed_from_rgb).compute(**SYNC),
         fcolor.separate_stains(rgb, fcolor.hed_from_rgb))


# ---- global ops ------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(61, 47), (17, 19, 23)])
@pytest.mark.parametrize("full", [False, True])
def test_label_equals_whole_array(rng, shape, full):
    x = rng.random(shape) > 0.55
    st = fndi.generate_binary_structure(len(shape), len(shape) if full else 1)
    want, n = fndi.label(x, st)
    for ch in chunkings(rng, shape):
        got, m = fd.label(da.from_array(x, chunks=ch), st)
        assert m == n
        same(got.compute(**SYNC), want)


def test_label_edge_cases(rng):
    z = da.zeros((10, 12), chunks=4, dtype=np.uint8)
    lab, n = fd.label(z)
    assert n == 0 and not lab.compute(**SYNC).any()
    spiral = np.zeros((30, 30), bool)
    spiral[1, 1:29] = spiral[1:29, 28] = spiral[28, 2:29] = spiral[4:29, 2] = spiral[4, 2:25] = True
    want, n = fndi.label(spiral)
    got, m = fd.label(da.from_array(spiral, chunks=3))
    assert m == n == 1
    same(got.compute(**SYNC), want)
    with pytest.raises(ValueError, match="equal to 3"):
        fd.label(z, np.ones((5, 5)))
    with pytest.raises(RuntimeError, match="equal rank"):
        fd.label(z, np.ones((3, 3, 3)))


def test_label_many_labels_small_graph(rng):
    # salt noise: thousands of labels, most of them single pixels on chunk faces
    x = rng.random((150, 170)) > 0.7
    want, n = fndi.label(x)
    assert n > 3000
    d = da.from_array(x, chunks=(23, 31))
    got, m = fd.label(d)
    assert m == n
    same(got.compute(**SYNC), want)
    got, m = fd.label(d, fndi.generate_binary_structure(2, 2), output=np.int64)
    same(got.compute(**SYNC), fndi.label(x, fndi.generate_binary_structure(2, 2), output=np.int64)[0])
    # each block's task holds its own slice of the numbering, not the whole table:
    # the tasks together are far smaller than one table per block would make them
    size = sum(len(pickle.dumps(t)) for t in dict(got.__dask_graph__()).values())
    assert size < 4 * 8 * (n + 1) + 100_000, size


def test_regionprops_table_across_chunks(rng):
    import fovea.skimage.measure as fmeas
    lab, _ = fndi.label(rng.random((50, 60)) > 0.5)
    img = rng.random((50, 60))
    props = ("label", "area", "num_pixels", "bbox", "centroid", "intensity_mean", "intensity_min",
             "intensity_max")
    want = fmeas.regionprops_table(lab, img, properties=props)
    got = fd.regionprops_table(da.from_array(lab, chunks=(11, 13)), da.from_array(img, chunks=17), properties=props)
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == want[k].dtype, k
        np.testing.assert_allclose(got[k], want[k], rtol=1e-12, err_msg=k)
    with pytest.raises(ValueError, match="not aggregated"):
        fd.regionprops_table(da.from_array(lab, chunks=20), properties=("label", "eccentricity"))
    with pytest.raises(AttributeError, match="intensity_image"):
        fd.regionprops_table(da.from_array(lab, chunks=20), properties=("intensity_mean",))


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32", "float64"])
def test_thresholds_equal_whole_array(rng, dtype):
    x = rng.normal(100, 30, (45, 52)).clip(0, 255).astype(dtype)
    d = da.from_array(x, chunks=(10, 13))
    for name in ("threshold_otsu", "threshold_yen", "threshold_isodata", "threshold_minimum",
                 "threshold_multiotsu"):
        np.testing.assert_array_equal(getattr(fd, name)(d), getattr(ffilt, name)(x), err_msg=name)
    flat = da.full((8, 8), 7, dtype=dtype, chunks=3)
    assert fd.threshold_otsu(flat) == ffilt.threshold_otsu(np.full((8, 8), 7, dtype))


# ---- napari reader (through npe2, no display) -----------------------------------------------


@pytest.fixture
def npe2_fovea():
    npe2 = pytest.importorskip("npe2")
    import os
    pm = npe2.PluginManager.instance()
    mf = npe2.PluginManifest.from_file(os.path.join(os.path.dirname(fovea.__file__), "napari", "napari.yaml"))
    if "fovea" not in pm._manifests:
        pm.register(mf)
    return npe2


def test_napari_reader_slide(npe2_fovea, svs):
    layers = npe2_fovea.io_utils.read([svs], stack=False, plugin_name="fovea")
    assert len(layers) == 1
    data, kw, kind = layers[0]
    s = fovea.open(svs)
    assert kind == "image" and kw["rgb"] and kw["multiscale"]
    assert [d.shape[:2] for d in data] == [(h, w) for w, h in s.resolutions["level_dimensions"]]
    assert kw["scale"] == pytest.approx((0.499, 0.499))
    same(np.asarray(data[2][10:50, 20:70]), s.read_region((20 * 4, 10 * 4), (50, 40), 2))


def test_napari_reader_ome_zarr_and_stack(npe2_fovea, tmp_path, rng):
    import tifffile
    x = (rng.random((2, 300, 280)) * 255).astype(np.uint8)
    fd.to_ome_zarr(da.from_array(x, chunks=100), str(tmp_path / "s.ome.zarr"), axes="cyx")
    (data, kw, kind), = npe2_fovea.io_utils.read([str(tmp_path / "s.ome.zarr")], stack=False, plugin_name="fovea")
    assert kw["multiscale"] and kw["channel_axis"] == 0 and len(data) == 2
    same(np.asarray(data[0]), x)
    p = str(tmp_path / "stack.tif")
    tifffile.imwrite(p, x)
    (data, kw, kind), = npe2_fovea.io_utils.read([p], stack=False, plugin_name="fovea")
    same(np.asarray(data), x)
    from fovea.napari import get_reader
    assert get_reader(str(tmp_path / "missing.svs")) is None
    (tmp_path / "x.txt").write_text("hello")
    assert get_reader(str(tmp_path / "x.txt")) is None


# ---- deconvolution ---------------------------------------------------------------------------


def test_richardson_lucy_chunked(rng):
    from fovea.skimage.restoration import richardson_lucy
    x = rng.random((30, 34, 28)).astype(np.float32)
    psf = np.ones((5, 3, 5), np.float32) / 75
    want = richardson_lucy(x, psf, num_iter=3, clip=False)
    d = da.from_array(x, chunks=(15, 17, 14))
    got = fd.richardson_lucy(d, psf, num_iter=3, clip=False, depth="exact", boundary="none").compute(**SYNC)
    assert got.dtype == np.float32 and got.shape == x.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # the usual workflow: depth psf // 2, periodic; equal to that map_overlap by hand
    usual = fd.richardson_lucy(d, psf, num_iter=3, clip=False).compute(**SYNC)
    by_hand = d.map_overlap(lambda b: richardson_lucy(b, psf, num_iter=3, clip=False), depth=(2, 1, 2),
                            boundary="periodic", dtype=np.float32).compute(**SYNC)
    np.testing.assert_array_equal(usual, by_hand)
    with pytest.raises(ValueError, match="dimensions"):
        fd.richardson_lucy(d, np.ones((3, 3)))
    with pytest.raises(ValueError, match="boundary"):
        fd.richardson_lucy(d, psf, boundary="wrap")


def test_richardson_lucy_dtype_casts_after_the_overlap(rng):
    from fovea.skimage.restoration import richardson_lucy
    x = (rng.random((20, 24, 22)) * 4000).astype(np.uint16)
    psf = np.ones((3, 3, 5), np.float32) / 45
    d = da.from_array(x, chunks=(10, 12, 11))
    got = fd.richardson_lucy(d, psf, num_iter=2, clip=False, dtype=np.float32)
    assert got.dtype == np.float32
    by_hand = d.astype(np.float32).map_overlap(lambda b: richardson_lucy(b, psf, num_iter=2, clip=False),
                                               depth=(1, 1, 2), boundary="periodic", dtype=np.float32)
    np.testing.assert_array_equal(got.compute(**SYNC), by_hand.compute(**SYNC))
    assert fd.richardson_lucy(d, psf, num_iter=1).dtype == np.float64   # scikit-image's rule for uint16
    with pytest.raises(ValueError, match="float32 or float64"):
        fd.richardson_lucy(d, psf, dtype=np.int32)


def test_example_deconvolve_dask_runs(tmp_path):
    pytest.importorskip("distributed")
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = str(tmp_path / "out.zarr")
    p = subprocess.run([sys.executable, os.path.join(root, "examples", "deconvolve_dask.py"), "--cpu", "--shape",
                        "12,40,40", "--chunks", "6,20,20", "--iterations", "2", "--out", out],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert "CPU workers" in p.stdout
    assert fd.imread(out).shape == (12, 40, 40)


# ---- fovea.dask's own overlap (_halo) -------------------------------------------------------


@pytest.mark.parametrize("shape,chunks,depth", [
    ((37,), (10,), (3,)),
    ((23, 31), (8, 11), (2, 3)),
    ((23, 31), (23, 7), (4, 0)),       # one chunk along a periodic axis; no overlap along the other
    ((9, 12, 14), (3, 6, 5), (1, 2, 3)),
])
@pytest.mark.parametrize("boundary", ["none", "periodic"])
@pytest.mark.parametrize("split", [False, True])
def test_own_overlap_sees_what_dask_map_overlap_sees(rng, shape, chunks, depth, boundary, split):
    """Each chunk gets exactly the pixels dask's map_overlap gives it (trim=True), for
    one input and for two, with a function that depends on every pixel's place."""
    from fovea.dask import _halo
    a = rng.random(shape)
    b = rng.random(shape)
    x, y = da.from_array(a, chunks=chunks), da.from_array(b, chunks=chunks)

    def f(u, v=None):
        w = np.cumsum(u, axis=0) * (1 + np.arange(u.shape[-1]))   # position dependent
        return w if v is None else w - np.cumsum(v[::-1], axis=-1)[::-1]

    for args in ([x], [x, y]):
        want = da.map_overlap(f, *args, depth=dict(enumerate(depth)), boundary=boundary, trim=True,
                              dtype=float).compute(**SYNC)
        got = _halo.map_overlap(f, args, list(depth), [boundary] * len(shape), np.empty((0,) * len(shape)),
                                split=split)
        np.testing.assert_array_equal(got.compute(**SYNC), want)


def test_own_overlap_on_a_cluster_of_two_workers(rng):
    """On a distributed client with several workers the overlap is exchanged axis by
    axis (one key per slab, so only what a neighbour needs travels); on one worker, or
    with no client, as one task of slabs per chunk. Both equal dask's map_overlap."""
    distributed = pytest.importorskip("distributed")
    import fovea.dask as fd
    a = rng.random((80, 90)).astype(np.float32)
    x = da.from_array(a, chunks=(20, 30))     # every chunk at least the overlap (8)
    ndi = pytest.importorskip("scipy.ndimage")
    want = ndi.gaussian_filter(a, 2, mode="wrap")
    local = fd.ndimage.gaussian_filter(x, 2, mode="wrap")
    assert not any("fovea-halo" in str(k) for k in dict(local.dask))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as c, distributed.Client(c):
        y = fd.ndimage.gaussian_filter(x, 2, mode="wrap")
        assert any("fovea-halo" in str(k) for k in dict(y.dask))
        np.testing.assert_allclose(y.compute(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(local.compute(**SYNC), want, rtol=1e-5, atol=1e-6)
