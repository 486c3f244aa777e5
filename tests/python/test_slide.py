"""Whole-slide images through the Python faces (fovea.CuImage / fovea.open,
fovea.OpenSlide, fovea.cache) against tifffile's and openslide-python's readings of
slides written by tifffile + imagecodecs (tests/python/slides.py)."""

import collections.abc
import concurrent.futures
import multiprocessing
import os
import pickle

import numpy as np
import pytest

import fovea
from fovea import _fovea
from fovea.skimage import transform

tifffile = pytest.importorskip("tifffile")
pytest.importorskip("imagecodecs")
pytest.importorskip("PIL.Image")

import slides  # noqa: E402 (needs tifffile)

H, W = 777, 1001   # odd level-0 size: levels 1001x777, 501x389, 251x195


@pytest.fixture(scope="module")
def bases():
    rng = np.random.default_rng(20240611)
    return {
        "rgb": slides.tissue(rng, H, W),
        "rgba": slides.tissue(rng, H, W, channels=4),
        "gray8": slides.tissue(rng, H, W, channels=1),
        "gray16": slides.tissue(rng, H, W, channels=1, dtype=np.uint16),
        "even": slides.tissue(rng, 768, 1024),
    }


@pytest.fixture
def restore_cache():
    """Leave the process-wide cache as the test found it."""
    before = fovea.cache_info()
    yield
    fovea.cache("per_process", memory_capacity=before.memory_capacity >> 20, record_stat=True)
    fovea.cache().reset_stats()


def _openslide():
    return pytest.importorskip("openslide")


def _mad(a, b):
    return float(np.abs(a.astype(np.int64) - b.astype(np.int64)).mean())


# ---- pyramids written by tifffile, every codec, compared with tifffile ---------------------------

# (kind, compression, predictor, extra tifffile args, lossy)
CODECS = [
    ("rgb", None, None, {}, False),
    ("rgb", "jpeg", None, {}, True),                                   # YCbCr 4:2:0
    ("rgb", "jpeg", None, {"compressionargs": {"outcolorspace": "rgb"}, "subsampling": (1, 1)}, True),
    ("rgb", "zlib", None, {}, False),                                  # 8 (Adobe deflate)
    ("rgb", "deflate", None, {}, False),                               # 32946
    ("rgb", "zlib", 2, {}, False),
    ("rgb", "lzw", None, {}, False),
    ("rgb", "lzw", 2, {}, False),
    ("rgb", "zstd", None, {}, False),
    ("rgb", "zstd", 2, {}, False),
    ("rgb", "webp", None, {}, True),
    ("rgb", 33005, None, {}, False),                                   # Aperio JPEG 2000 RGB
    ("rgba", "zlib", None, {}, False),
    ("gray8", None, None, {}, False),
    ("gray8", "jpeg", None, {}, True),
    ("gray8", "zlib", 2, {}, False),
    ("gray8", "lzw", None, {}, False),
    ("gray8", "zstd", None, {}, False),
    ("gray16", None, None, {}, False),
    ("gray16", "zlib", None, {}, False),
    ("gray16", "lzw", 2, {}, False),
    ("gray16", "zstd", 2, {}, False),
]
TILES = [256, 240, 512]


def _codec_id(c):
    kind, comp, pred, extra, _ = c
    s = f"{kind}-{comp or 'none'}"
    if pred:
        s += "-pred"
    if extra:
        s += "-rgbjpeg"
    return s


CASES = []
for _i, _c in enumerate(CODECS):
    _tile = TILES[_i % 3]
    _big = _i % 2 == 1
    _layout = "subifds" if _i % 4 < 2 else "chain"
    CASES.append(pytest.param(_c, _tile, _big, _layout,
                              id=f"{_codec_id(_c)}-t{_tile}-{'big' if _big else 'classic'}-{_layout}"))


def _regions(w, h, tile):
    """(lx, ly, w, h) in level pixels: inside, straddling tiles, over the edges, outside."""
    return [
        (0, 0, min(w, 70), min(h, 50)),
        (tile - 17, tile - 9, 40, 30),                 # four tiles
        (w - 20, h - 13, 50, 40),                      # bottom-right edge: part outside
        (-25, -7, 60, 33),                             # top-left: part outside
        (w // 3, -40, 35, h + 80),                     # a column through the whole height
        (w + 5, h + 5, 16, 16),                        # fully outside
        (5, 3, 1, 1),
    ]


def _level0_location(lx, ly, ds, level):
    """A level-0 location whose floor(x / ds) is lx (exact arithmetic, checked)."""
    if level == 0:
        return lx, ly
    x, y = int(np.ceil(lx * ds)), int(np.ceil(ly * ds))
    while slides.level_origin(x, y, ds, level)[0] > lx:
        x -= 1
    while slides.level_origin(x, y, ds, level)[0] < lx:
        x += 1
    while slides.level_origin(x, y, ds, level)[1] > ly:
        y -= 1
    while slides.level_origin(x, y, ds, level)[1] < ly:
        y += 1
    return x, y


@pytest.mark.parametrize("codec,tile,bigtiff,layout", CASES)
def test_pyramid_pixels(tmp_path, bases, codec, tile, bigtiff, layout):
    kind, comp, pred, extra, lossy = codec
    levels = slides.pyramid(bases[kind], 3)
    path = str(tmp_path / "p.tif")
    kw = dict(extra)
    photometric = None
    if "compressionargs" in kw:
        photometric = "rgb"
    try:
        slides.write_pyramid(path, levels, tile=tile, compression=comp, bigtiff=bigtiff, layout=layout,
                             predictor=pred, photometric=photometric, **kw)
    except (ValueError, NotImplementedError) as e:   # a combination this tifffile cannot write
        pytest.skip(f"tifffile cannot write {codec}: {e}")
    refs = slides.tifffile_levels(path, layout)
    if not lossy:
        for a, b in zip(refs, levels):
            np.testing.assert_array_equal(a, b)

    img = fovea.open(path)
    assert img.resolutions["level_count"] == 3
    assert img.resolutions["level_dimensions"] == tuple((r.shape[1], r.shape[0]) for r in refs)
    assert img.shape == [H, W, 3]
    with tifffile.TiffFile(path) as tf:
        assert img.resolutions["level_tile_sizes"][0] == (tf.pages[0].tilewidth, tf.pages[0].tilelength)
    samples, dtype = img._slide.native_layout
    assert dtype == str(levels[0].dtype)
    assert samples == (1 if levels[0].ndim == 2 else levels[0].shape[2])

    for lv, ref in enumerate(refs):
        ds = img.resolutions["level_downsamples"][lv]
        rgb = slides.as_rgb(ref)
        full = img.read_region(level=lv)
        assert full.shape == rgb.shape and full.dtype == np.uint8
        if lossy:
            assert _mad(full, rgb) < 1.0, (lv, _mad(full, rgb))
        else:
            np.testing.assert_array_equal(full, rgb)
        h, w = ref.shape[:2]
        for lx, ly, rw, rh in _regions(w, h, tile):
            x, y = _level0_location(lx, ly, ds, lv)
            got = img.read_region((x, y), (rw, rh), lv)
            exp = slides.region(rgb, lx, ly, rw, rh, 255)
            assert got.shape == (rh, rw, 3)
            if lossy:
                assert _mad(got, exp) < 1.5, (lv, lx, ly)
            else:
                np.testing.assert_array_equal(got, exp, err_msg=f"level {lv} region {(lx, ly, rw, rh)}")
            rgba = img.read_region((x, y), (rw, rh), lv, pixel_format="rgba")
            inside = slides.region(np.ones(ref.shape[:2], bool), lx, ly, rw, rh, False)
            if kind != "rgba":
                assert (rgba[..., 3][inside] == 255).all()
            else:
                np.testing.assert_array_equal(rgba[inside], slides.region(ref, lx, ly, rw, rh, 0)[inside])
            assert (rgba[~inside] == 0).all()
            if not lossy:
                nat = img.read_region((x, y), (rw, rh), lv, pixel_format="native")
                np.testing.assert_array_equal(nat.reshape(slides.region(ref, lx, ly, rw, rh, 0).shape),
                                              slides.region(ref, lx, ly, rw, rh, 0))


# ---- generic TIFF vs openslide-python --------------------------------------------------------------


@pytest.mark.parametrize("kind", ["even", "rgb"], ids=["1024x768", "1001x777"])
@pytest.mark.parametrize("comp", ["jpeg", "zlib", "lzw"])
def test_generic_tiff_vs_openslide(tmp_path, bases, kind, comp):
    openslide = _openslide()
    levels = slides.pyramid(bases[kind], 3)
    path = str(tmp_path / "g.tif")
    slides.write_pyramid(path, levels, tile=256, compression=comp, layout="chain",
                         resolution=(40000, 40000), resolutionunit="centimeter")
    o = openslide.OpenSlide(path)
    f = fovea.OpenSlide(path)
    assert fovea.OpenSlide.detect_format(path) == openslide.OpenSlide.detect_format(path) == "generic-tiff"
    assert f.level_count == o.level_count == 3
    assert f.dimensions == o.dimensions
    assert f.level_dimensions == o.level_dimensions
    assert f.level_downsamples == pytest.approx(o.level_downsamples, rel=1e-12)
    _compare_properties(o, f)
    tol = 1.0 if comp == "jpeg" else 0
    even = kind == "even"
    for lv in range(3):
        dims = o.level_dimensions[lv]
        _compare_region(o, f, (0, 0), lv, dims, tol)
        ds = int(o.level_downsamples[lv])
        assert ds == o.level_downsamples[lv] or not even
        if lv == 0 or even:   # OpenSlide resamples fractional level origins; compare exact ones
            for lx, ly, rw, rh in _regions(dims[0], dims[1], 256):
                _compare_region(o, f, (lx * ds, ly * ds), lv, (rw, rh), tol)


def _compare_properties(o, f):
    po, pf = dict(o.properties), dict(f.properties)
    po.pop(fovea.PROPERTY_NAME_QUICKHASH1, None)   # fovea does not compute OpenSlide's hash
    assert set(pf) == set(po), (set(pf) ^ set(po))
    for k in po:
        assert pf[k] == po[k], k


def _compare_region(o, f, loc, lv, size, tol):
    a = np.asarray(o.read_region(loc, lv, size))
    b = np.asarray(f.read_region(loc, lv, size))
    assert b.shape == a.shape, (loc, lv, size)
    if tol:
        assert _mad(a, b) < tol, (loc, lv, size, _mad(a, b))
        # transparency (outside the image) must agree exactly
        np.testing.assert_array_equal(a[..., 3], b[..., 3])
    else:
        np.testing.assert_array_equal(a, b, err_msg=f"{loc} level {lv} size {size}")


# ---- Aperio SVS vs openslide-python --------------------------------------------------------------


@pytest.fixture(scope="module")
def aperio_content():
    rng = np.random.default_rng(7)
    base = slides.tissue(rng, 768, 1024)
    l1 = slides.downsample2(slides.downsample2(base))
    l2 = slides.downsample2(slides.downsample2(l1))
    return {
        "levels": [base, l1, l2],
        "thumbnail": slides.downsample2(l1),
        "label": slides.tissue(rng, 90, 80),
        "macro": slides.tissue(rng, 70, 200),
    }


@pytest.mark.parametrize("comp,bigtiff", [("jpeg", False), ("jpeg", True), (33005, False)],
                         ids=["jpeg", "jpeg-bigtiff", "jp2k-33005"])
def test_aperio_vs_openslide(tmp_path, aperio_content, comp, bigtiff):
    openslide = _openslide()
    c = aperio_content
    path = str(tmp_path / "slide.svs")
    slides.write_aperio(path, c["levels"], compression=comp, bigtiff=bigtiff, thumbnail=c["thumbnail"],
                        label=c["label"], macro=c["macro"])
    o = openslide.OpenSlide(path)
    f = fovea.OpenSlide(path)
    assert fovea.OpenSlide.detect_format(path) == openslide.OpenSlide.detect_format(path) == "aperio"
    assert f.level_count == o.level_count == 3
    assert f.level_dimensions == o.level_dimensions == ((1024, 768), (256, 192), (64, 48))
    assert f.level_downsamples == o.level_downsamples == (1.0, 4.0, 16.0)
    _compare_properties(o, f)
    assert f.properties["aperio.AppMag"] == "20"
    assert float(f.properties[fovea.PROPERTY_NAME_MPP_X]) == pytest.approx(0.499)
    assert float(f.properties[fovea.PROPERTY_NAME_OBJECTIVE_POWER]) == 20
    assert sorted(f.associated_images) == sorted(o.associated_images) == ["label", "macro", "thumbnail"]
    for name in o.associated_images:
        a, b = o.associated_images[name], f.associated_images[name]
        assert b.mode == a.mode == "RGBA" and b.size == a.size
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    for lv in range(3):
        dims = o.level_dimensions[lv]
        ds = int(o.level_downsamples[lv])
        _compare_region(o, f, (0, 0), lv, dims, 0)
        for lx, ly, rw, rh in _regions(dims[0], dims[1], 256 if lv == 0 else 64):
            _compare_region(o, f, (lx * ds, ly * ds), lv, (rw, rh), 0)
    # the lossless codec gives back what was written
    if comp == 33005:
        full = np.asarray(f.read_region((0, 0), 0, (1024, 768)))
        np.testing.assert_array_equal(full[..., :3], c["levels"][0])

    # best level and thumbnails: OpenSlide's rule and algorithm
    for d in [0.1, 0.5, 1, 1.5, 3.999, 4, 4.0001, 7, 15.99, 16, 17, 100, 1e9]:
        assert f.get_best_level_for_downsample(d) == o.get_best_level_for_downsample(d), d
    # thumbnails: OpenSlide's size and level; the area mean where OpenSlide has Lanczos
    for size in [(100, 100), (300, 200), (64, 64), (1024, 768), (2000, 2000), (50, 500)]:
        a, b = o.get_thumbnail(size), f.get_thumbnail(size)
        assert b.mode == a.mode == "RGB" and b.size == a.size, size
        level = o.get_best_level_for_downsample(max(d / t for d, t in zip(o.dimensions, size)))
        lv = np.asarray(o.read_region((0, 0), level, o.level_dimensions[level]).convert("RGB"))
        if b.size == o.level_dimensions[level]:
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
            continue
        want = np.rint(transform.resize_local_mean(lv, (b.size[1], b.size[0]), preserve_range=True,
                                                   channel_axis=-1))
        np.testing.assert_array_equal(np.asarray(b), want.astype(np.uint8))
        assert np.abs(np.asarray(a, float) - np.asarray(b, float)).mean() < 4, size

    # the cuCIM face over the same file
    img = fovea.CuImage(path)
    r = img.resolutions
    assert r["level_count"] == 3
    assert r["level_dimensions"] == o.level_dimensions
    assert r["level_downsamples"] == o.level_downsamples
    assert r["level_tile_sizes"] == ((256, 256),) * 3
    assert img.shape == [768, 1024, 3] and img.size("XY") == [1024, 768] and img.size() == [768, 1024, 3]
    assert img.spacing() == pytest.approx([0.499, 0.499, 1.0])
    assert img.spacing_units() == ["micrometer", "micrometer", "color"]
    assert img.dtype == np.uint8 and img.typestr == "|u1" and img.dims == "YXC" and img.ndim == 3
    assert img.device == "cpu" and img.is_loaded and img.path == path
    assert img.raw_metadata.startswith("Aperio Image Library v12.0.0")
    md = img.metadata
    assert md["aperio"]["AppMag"] == "20" and md["aperio"]["MPP"] == "0.4990"
    assert md["cucim"]["resolutions"]["level_count"] == 3 and md["fovea"]["vendor"] == "aperio"
    assert img.associated_images == {"label", "macro", "thumbnail"}
    for name in img.associated_images:
        exp = np.asarray(o.associated_images[name])[..., :3]
        np.testing.assert_array_equal(img.associated_image(name), exp)
    for lv in range(3):
        a = np.asarray(o.read_region((160, 64), lv, (120, 90)))   # exact level origins
        exp = np.where(a[..., 3:] == 0, 255, a[..., :3])          # outside: white in RGB
        np.testing.assert_array_equal(img.read_region((160, 64), (120, 90), lv), exp)


# ---- OME-TIFF ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["rgb", "gray16"])
def test_ome_tiff(tmp_path, bases, kind):
    levels = slides.pyramid(bases[kind], 3)
    path = str(tmp_path / "s.ome.tif")
    slides.write_ome(path, levels, mpp=0.2528)
    img = fovea.open(path)
    assert img.vendor == "ome-tiff"
    assert img.resolutions["level_dimensions"] == ((W, H), (501, 389), (251, 195))
    assert img.spacing() == pytest.approx([0.2528, 0.2528, 1.0])
    p = img.properties
    assert float(p["openslide.mpp-x"]) == pytest.approx(0.2528)
    assert float(p["ome.PhysicalSizeX"]) == pytest.approx(0.2528)
    assert p["ome.Type"] == str(levels[0].dtype)
    for lv, ref in enumerate(levels):
        nat = img.read_region(level=lv, pixel_format="native")
        np.testing.assert_array_equal(nat.reshape(ref.shape), ref)
        np.testing.assert_array_equal(img.read_region(level=lv), slides.as_rgb(ref))


# ---- faces, pickling, threads ----------------------------------------------------------------------


@pytest.fixture
def generic_slide(tmp_path, bases):
    path = str(tmp_path / "generic.tif")
    levels = slides.pyramid(bases["rgb"], 3)
    slides.write_pyramid(path, levels, tile=256, compression="zlib", layout="chain")
    return path, levels


def test_faces_agree(generic_slide):
    path, levels = generic_slide
    img, osl = fovea.CuImage(path), fovea.OpenSlide(path)
    assert img.resolutions["level_dimensions"] == osl.level_dimensions
    assert img.resolutions["level_downsamples"] == osl.level_downsamples
    assert img.properties == dict(osl.properties)
    assert isinstance(osl.properties, collections.abc.Mapping)
    for lv in range(3):
        a = img.read_region((300, 200), (130, 70), lv)
        b = np.asarray(osl.read_region((300, 200), lv, (130, 70)))
        np.testing.assert_array_equal(a, b[..., :3])
        assert (b[..., 3] == 255).all()
    # OpenSlide conventions: zero-size regions, transparent outside
    assert osl.read_region((0, 0), 0, (0, 5)).size == (0, 5)
    out = np.asarray(osl.read_region((-10, -10), 0, (20, 20)))
    assert (out[:10, :10] == 0).all() and (out[10:, 10:, 3] == 255).all()
    assert img.read_region((0, 0), (0, 0)).shape == (0, 0, 3)
    with fovea.OpenSlide(path) as s:
        assert repr(s) == f"OpenSlide({path!r})"
    with pytest.raises(ValueError, match="closed"):
        s.read_region((0, 0), 0, (4, 4))
    with fovea.open(path) as im:
        pass
    with pytest.raises(ValueError, match="closed"):
        im.read_region((0, 0), (4, 4))
    assert fovea.open_slide(path).dimensions == (W, H)
    assert osl.color_profile is None


def test_pickle_round_trip(generic_slide):
    path, _ = generic_slide
    for obj in (fovea.CuImage(path), fovea.OpenSlide(path), _fovea.Slide(path)):
        clone = pickle.loads(pickle.dumps(obj))
        assert type(clone) is type(obj) and clone is not obj
        if isinstance(obj, fovea.OpenSlide):
            np.testing.assert_array_equal(np.asarray(clone.read_region((5, 7), 1, (50, 40))),
                                          np.asarray(obj.read_region((5, 7), 1, (50, 40))))
        elif isinstance(obj, fovea.CuImage):
            assert clone.path == obj.path
            np.testing.assert_array_equal(clone.read_region((5, 7), (50, 40), 1),
                                          obj.read_region((5, 7), (50, 40), 1))
        else:
            np.testing.assert_array_equal(clone.read_region(5, 7, 1, 50, 40), obj.read_region(5, 7, 1, 50, 40))


def _worker_read(args):
    img, loc = args
    return img.read_region(loc, (64, 48), 0)


def test_handles_cross_processes(generic_slide):
    """As in a DataLoader with fork workers: the handle is pickled into each task."""
    path, levels = generic_slide
    img = fovea.CuImage(path)
    img.read_region((0, 0), (300, 300))   # the parent's cache and thread pool are in use
    locs = [(37 * i % 900, 53 * i % 700) for i in range(8)]
    with multiprocessing.get_context("fork").Pool(2) as pool:
        out = pool.map(_worker_read, [(img, loc) for loc in locs])
    for loc, got in zip(locs, out):
        np.testing.assert_array_equal(got, slides.region(levels[0], loc[0], loc[1], 64, 48, 255))


@pytest.mark.parametrize("nocache", [False, True])
def test_threads_agree(generic_slide, rng, nocache):
    path, levels = generic_slide
    img = fovea.open(path)
    jobs = []
    for _ in range(160):
        lv = int(rng.integers(0, 3))
        w, h = int(rng.integers(1, 300)), int(rng.integers(1, 300))
        x, y = int(rng.integers(-200, W + 50)), int(rng.integers(-200, H + 50))
        jobs.append(((x, y), (w, h), lv))
    fovea.cache().clear()
    serial = [img.read_region(*j, nocache=nocache) for j in jobs]
    fovea.cache().clear()
    with concurrent.futures.ThreadPoolExecutor(16) as ex:
        par = list(ex.map(lambda j: img.read_region(*j, nocache=nocache, num_workers=2), jobs))
    for j, a, b in zip(jobs, serial, par):
        np.testing.assert_array_equal(a, b, err_msg=str(j))
    # and the serial reads are right
    for (loc, size, lv), a in zip(jobs[:20], serial[:20]):
        ds = img.resolutions["level_downsamples"][lv]
        lx, ly = slides.level_origin(loc[0], loc[1], ds, lv)
        np.testing.assert_array_equal(a, slides.region(levels[lv], lx, ly, size[0], size[1], 255))


def test_device_argument(generic_slide):
    path, levels = generic_slide
    img = fovea.open(path)
    with pytest.raises(ValueError, match="device"):
        img.read_region((0, 0), (8, 8), device="tpu")
    if fovea.gpu_available():
        g = img.read_region((0, 0), (8, 8), device="cuda")
        np.testing.assert_array_equal(np.asarray(fovea.to_device(g, "cpu")), levels[0][:8, :8])
    else:
        with pytest.raises(fovea.DeviceError, match="GPU"):
            img.read_region((0, 0), (8, 8), device="cuda")


# ---- the tile cache --------------------------------------------------------------------------------


def test_cache_stats(generic_slide, restore_cache):
    path, _ = generic_slide
    img = fovea.open(path)
    c = fovea.CuImage.cache("per_process", memory_capacity=64, record_stat=True)
    assert isinstance(c, fovea.ImageCache) and c.type == "per_process"
    assert c.memory_capacity == 64 << 20 and fovea.CuImage.cache_info.capacity == 64 << 20
    c.clear()
    c.reset_stats()
    img.read_region((0, 0), (512, 512))   # 4 tiles of 256x256
    i1 = fovea.cache_info()
    assert (i1.hits, i1.misses, i1.size) == (0, 4, 4)
    assert i1.memory_size == 4 * 256 * 256 * 3
    img.read_region((10, 10), (400, 400))
    i2 = img.cache_info
    assert (i2.hits, i2.misses) == (4, 4)
    assert c.hit_count == 4 and c.miss_count == 4 and c.size == 4

    # per-read nocache neither looks up nor inserts
    img.read_region((600, 500), (100, 100), nocache=True)
    assert fovea.cache_info()[1:5] == i2[1:5]

    # record_stat=False freezes the counters; switching it back on resumes counting
    fovea.cache(record_stat=False)
    img.read_region((0, 0), (256, 256))
    assert fovea.cache_info().hits == 4 and not c.record()
    c.record(True)
    img.read_region((0, 0), (256, 256))
    assert fovea.cache_info().hits == 5

    # the capacity is never exceeded: 1 MiB holds 5 RGB tiles of 256x256
    fovea.cache(memory_capacity=1)
    assert fovea.cache_info().memory_size <= 1 << 20
    c.clear()
    c.reset_stats()
    img.read_region((0, 0), (W, H))   # 16 tiles
    i3 = fovea.cache_info()
    assert i3.memory_size <= 1 << 20 and i3.size == 5 and i3.evictions == 11 and i3.misses == 16

    # nocache: nothing is kept; per_process again restores the capacity
    fovea.cache("nocache")
    assert fovea.cache_info().type == "nocache" and fovea.cache_info().size == 0
    img.read_region((0, 0), (300, 300))
    assert fovea.cache_info().size == 0 and fovea.cache_info().memory_size == 0
    fovea.cache("per_process")
    assert fovea.cache_info().capacity == 1 << 20
    img.read_region((0, 0), (300, 300))
    assert fovea.cache_info().size == 4
    assert "per_process" in repr(c)


def _child_read(args):
    img, loc = args
    img.read_region(loc, (256, 256))
    c = fovea.cache()
    return c.type, c.shm_name


def test_shared_memory_cache(generic_slide, restore_cache):
    """One cache for a process and its DataLoader-style workers: fork children inherit
    the segment, spawned ones join through FOVEA_CACHE_SHM; statistics are the
    segment's (all processes)."""
    path, levels = generic_slide
    img = fovea.open(path)
    c = fovea.cache("shared_memory", memory_capacity=16)
    name = c.shm_name
    assert c.type == "shared_memory" and name and os.environ.get("FOVEA_CACHE_SHM") == name
    assert fovea.cache_info().memory_capacity == 16 << 20
    img.read_region((0, 0), (512, 512))   # tiles 0, 1, 4, 5
    i1 = fovea.cache_info()
    assert (i1.hits, i1.misses, i1.size) == (0, 4, 4)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_child_read, ((img, (0, 0)),)) == ("shared_memory", name)   # a hit
        pool.apply(_child_read, ((img, (768, 512)),))   # tile 11: decoded by the child
    i2 = fovea.cache_info()
    assert (i2.hits, i2.misses, i2.size) == (1, 5, 5)
    np.testing.assert_array_equal(img.read_region((768, 512), (233, 256)), levels[0][512:768, 768:1001])
    assert fovea.cache_info().hits == 2   # the child's tile
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_child_read, ((img, (256, 256)),)) == ("shared_memory", name)
    assert fovea.cache_info().hits == 3
    # capacity: the segment cannot grow past its size at creation, but can shrink
    with pytest.raises(ValueError):
        fovea.cache(memory_capacity=64)
    assert fovea.cache_info().memory_capacity == 16 << 20
    fovea.cache(memory_capacity=1)
    assert fovea.cache_info().memory_size <= 1 << 20
    fovea.cache("per_process")
    assert fovea.cache_info().type == "per_process" and "FOVEA_CACHE_SHM" not in os.environ
    assert fovea.cache_info().capacity == 1 << 20
    if os.path.isdir("/dev/shm"):   # the last process left: the segment is gone (workers were killed)
        assert not os.path.exists("/dev/shm" + name)


def test_cache_arguments(restore_cache):
    with pytest.raises(ValueError, match="nocache"):
        fovea.cache("bogus")
    with pytest.raises(ValueError, match="shared_memory"):
        fovea.cache("shm")
    with pytest.raises(ValueError):
        _fovea.cache_configure("shared_memory", 10)   # needs at least 64 bytes
    with pytest.raises(OSError):
        _fovea.cache_attach_shared("/fovea-cache-no-such-segment")
    with pytest.raises(ValueError, match=">= 0"):
        fovea.cache(memory_capacity=-1)
    with pytest.raises(TypeError):
        fovea.cache(unknown=1)
    fovea.cache(capacity=10, mutex_pool_capacity=11, list_padding=2)   # cuCIM knobs: accepted
    with pytest.raises(ValueError):
        _fovea.cache_set_capacity(-5)


def test_openslide_set_cache(generic_slide, restore_cache):
    path, _ = generic_slide
    s = fovea.OpenSlide(path)
    s.set_cache(fovea.OpenSlideCache(3 << 20))
    assert fovea.cache_info().capacity == 3 << 20
    with pytest.raises(TypeError):
        s.set_cache(object())


# ---- bad input ----------------------------------------------------------------------------------------

OPENERS = [
    pytest.param(fovea.open, id="open"),
    pytest.param(fovea.CuImage, id="CuImage"),
    pytest.param(fovea.OpenSlide, id="OpenSlide"),
    pytest.param(_fovea.Slide, id="Slide"),
]


@pytest.mark.parametrize("opener", OPENERS)
@pytest.mark.parametrize("content", [b"", b"II*\x00", b"MM\x00+", b"XX*\x00" + bytes(100),
                                     b"\x89PNG\r\n\x1a\n" + bytes(64), b"II*\x00\xff\xff\xff\x7f" + bytes(32),
                                     b"II+\x00\x08\x00\x00\x00" + b"\xff" * 8],
                         ids=["empty", "4-byte", "4-byte-bigtiff-be", "wrong-magic", "png", "ifd-past-end",
                              "bigtiff-bad-offset"])
def test_not_a_slide(tmp_path, opener, content):
    path = tmp_path / "bad.tif"
    path.write_bytes(content)
    with pytest.raises(fovea.FormatError) as ei:
        opener(str(path))
    assert str(path) in str(ei.value) or "TIFF" in str(ei.value)
    assert fovea.OpenSlide.detect_format(str(path)) is None


@pytest.mark.parametrize("opener", OPENERS)
def test_missing_file(tmp_path, opener):
    with pytest.raises(FileNotFoundError) as ei:
        opener(str(tmp_path / "nope.svs"))
    assert "nope.svs" in str(ei.value)
    with pytest.raises(IsADirectoryError):
        opener(str(tmp_path))
    assert fovea.OpenSlide.detect_format(str(tmp_path / "nope.svs")) is None


def test_pathlike(generic_slide):
    import pathlib

    path, _ = generic_slide
    assert fovea.open(pathlib.Path(path)).path == path
    with pytest.raises(TypeError):
        fovea.open(12.5)


def _assert_fails(fn, match=None):
    with pytest.raises((fovea.FormatError, OSError)) as ei:
        fn()
    if match:
        assert match in str(ei.value), str(ei.value)
    return ei.value


@pytest.mark.parametrize("when", ["before-open", "after-open"])
def test_truncated_slide(tmp_path, bases, when):
    """Cut in half. Before open: fovea checks every tile's range against the file size
    and refuses at open (a FormatError naming the tile). After open (the file changes
    under the handle): reading the missing tiles fails, never with partial pixels, and
    the handle keeps failing (sticky), also for tiles that are still there."""
    path = tmp_path / "t.tif"
    slides.write_pyramid(str(path), [bases["rgb"]], tile=256, compression="zlib", layout="chain")
    size = path.stat().st_size
    if when == "before-open":
        os.truncate(path, size // 2)
        for opener in (fovea.open, fovea.OpenSlide):
            e = _assert_fails(lambda: opener(str(path)), "t.tif")
            assert "past the end" in str(e) or "truncated" in str(e)
        return
    img, osl = fovea.open(str(path)), fovea.OpenSlide(str(path))
    first = img.read_region((0, 0), (8, 8), nocache=True)
    np.testing.assert_array_equal(first, bases["rgb"][:8, :8])
    os.truncate(path, size // 2)
    e = _assert_fails(lambda: img.read_region((0, 0), (W, H), nocache=True), "t.tif")
    assert "truncated" in str(e) or "end of file" in str(e)
    e = _assert_fails(lambda: img.read_region((0, 0), (8, 8), nocache=True))   # tile 0 is intact
    assert "earlier" in str(e)
    _assert_fails(lambda: osl.read_region((0, 0), 0, (W, H)))
    _assert_fails(lambda: osl.read_region((0, 0), 0, (8, 8)))


def test_corrupted_jpeg_tile(tmp_path, bases):
    path = tmp_path / "c.tif"
    slides.write_pyramid(str(path), [bases["rgb"]], tile=256, compression="jpeg", layout="chain")
    ranges = slides.tile_data_ranges(str(path))
    data = bytearray(path.read_bytes())
    off, n = ranges[5]   # tile (1, 1): level-0 pixels [256, 512) x [256, 512)
    for i in range(off, off + 24):   # the SOI marker and the first tables
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    fovea.cache().clear()
    img = fovea.open(str(path))
    good = img.read_region((0, 0), (256, 256), nocache=True)   # tile 0 only
    assert good.shape == (256, 256, 3)
    e = _assert_fails(lambda: img.read_region((200, 200), (100, 100), nocache=True))
    assert "jpeg" in str(e).lower() and "chunk 5" in str(e)
    e = _assert_fails(lambda: img.read_region((0, 0), (256, 256), nocache=True))   # sticky
    assert "jpeg" in str(e).lower()
    # another handle on the same file still reads the good tiles
    np.testing.assert_array_equal(fovea.open(str(path)).read_region((0, 0), (256, 256)), good)
    # bytes flipped inside the entropy-coded data: an error or pixels, never a crash
    off, n = ranges[2]
    for i in range(off + n // 2, off + n // 2 + 64):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    try:
        r = fovea.open(str(path)).read_region((512, 0), (256, 256), nocache=True)
        assert r.shape == (256, 256, 3)
    except fovea.FormatError as e:
        assert "jpeg" in str(e).lower()


@pytest.mark.parametrize("comp", ["lzma", "jpegxl", "lerc"])
def test_unsupported_compression(tmp_path, bases, comp):
    """OpenSlide refuses such files at open ("Unsupported TIFF compression: 34925");
    fovea must say FormatError naming the compression, at open or at the first read."""
    path = str(tmp_path / "u.tif")
    try:
        slides.write_pyramid(path, [bases["rgb"][:256, :256]], tile=128, compression=comp, layout="chain")
    except Exception as e:   # imagecodecs built without the encoder
        pytest.skip(f"tifffile cannot write {comp}: {e}")
    with pytest.raises(fovea.FormatError, match="unsupported TIFF compression"):
        fovea.open(path)


def test_bad_arguments(generic_slide):
    path, levels = generic_slide
    img, osl, raw = fovea.open(path), fovea.OpenSlide(path), _fovea.Slide(path)
    with pytest.raises(ValueError, match="negative"):
        img.read_region((0, 0), (-1, 5))
    with pytest.raises(ValueError, match="negative"):
        osl.read_region((0, 0), 0, (5, -1))
    with pytest.raises(ValueError, match="negative"):
        raw.read_region(0, 0, 0, -3, 3)
    for lv in (3, -1, 1 << 40):
        with pytest.raises(ValueError, match="level"):
            img.read_region((0, 0), (4, 4), lv)
        with pytest.raises(ValueError, match="level"):
            osl.read_region((0, 0), lv, (4, 4))
        with pytest.raises(ValueError, match="level"):
            raw.read_region(0, 0, lv, 4, 4)
    # far outside but sane: background (white RGB, transparent RGBA)
    for loc in [(10**6, 10**6), (-(10**9), 5), (5, -(10**12))]:
        assert (img.read_region(loc, (16, 8)) == 255).all()
        assert (np.asarray(osl.read_region(loc, 2, (16, 8))) == 0).all()
    # absurd: ValueError, not an overflow or a crash
    for loc in [(1e18, 0), (0, 10**18), (-(10**18), 0), (10**30, 0), (float("nan"), 0), (float("inf"), 0)]:
        with pytest.raises(ValueError):
            img.read_region(loc, (4, 4))
        with pytest.raises(ValueError):
            osl.read_region(loc, 0, (4, 4))
    with pytest.raises(ValueError):
        raw.read_region(10**19, 0, 0, 4, 4)
    with pytest.raises(ValueError, match="limit"):
        img.read_region((0, 0), (10**6, 10**6))   # refused before allocating
    with pytest.raises(ValueError):
        img.read_region((0, 0), (10**20, 1))
    with pytest.raises(TypeError):
        img.read_region("ab", (4, 4))
    with pytest.raises(TypeError):
        img.read_region((0, 0), (4, 4), "0")
    with pytest.raises(ValueError, match="num_workers"):
        img.read_region((0, 0), (4, 4), num_workers=-1)
    with pytest.raises(ValueError, match="format"):
        raw.read_region(0, 0, 0, 4, 4, "cmyk")
    with pytest.raises(ValueError, match="dim_order"):
        img.size("XZ")
    # float locations are floored; numpy integers are fine
    np.testing.assert_array_equal(img.read_region((10.7, np.int64(3)), (5, 5)), levels[0][3:8, 10:15])
    with pytest.raises(KeyError, match="label"):
        img.associated_image("label")
    with pytest.raises(KeyError):
        osl.associated_images["macro"]
    assert len(osl.associated_images) == 0 and img.associated_images == set()


# ---- cuCIM's CuImage API (issue 30): read_region's order, buf, shm_name, save, Device ... ----------
# Cases marked "cuCIM: <test>" are ported from rapidsai/cucim python/cucim/tests/unit/clara/.


def test_read_region_positional_order(generic_slide):
    """cuCIM's order: location, size, level, num_workers, batch_size, drop_last,
    prefetch_factor, shuffle, seed, device, buf, shm_name."""
    path, levels = generic_slide
    img = fovea.CuImage(path)
    want = levels[0][20:52, 10:58]
    np.testing.assert_array_equal(img.read_region((10, 20), (48, 32), 0, 8), want)   # 8 is num_workers
    for dev in ("cuda", "cpu", fovea.Device("cpu")):   # fovea's old order put the device 4th
        with pytest.raises(TypeError, match="cuCIM's order"):
            img.read_region((10, 20), (48, 32), 0, dev)
    buf = np.empty_like(want)
    got = img.read_region((10, 20), (48, 32), 0, 2, 1, False, 2, False, 0, "cpu", buf, "")
    assert got is buf
    np.testing.assert_array_equal(buf, want)
    it = img.read_region([(10, 20), (0, 0), (5, 5)], (48, 32), 0, 0, 2, True, 1, True, 7, fovea.Device("cpu"))
    assert len(it) == 1 and next(it).shape == (2, 32, 48, 3)
    # cuCIM's defaults: location () / None is the origin, size None the whole level
    np.testing.assert_array_equal(img.read_region(), levels[0])
    np.testing.assert_array_equal(img.read_region((), None, 2), levels[2])
    np.testing.assert_array_equal(img.read_region([], (4, 4)), levels[0][:4, :4])


def test_level_out_of_range_as_cucim(generic_slide):
    """cuCIM: test_tiff_read_region.py test_tiff_outside_of_resolution_level."""
    img = fovea.CuImage(generic_slide[0])
    for lv in (-1, 3, 7):
        with pytest.raises(ValueError, match=r"'level' should be less than 3"):
            img.read_region(level=lv)
        with pytest.raises(ValueError, match=r"'level' should be less than 3"):
            img.read_region([(0, 0), (1, 1)], (4, 4), lv)


def test_read_region_dimension_keywords(generic_slide):
    """cuCIM checks single-letter dimension indices (S, T, C, Z ...) and ignores them."""
    path, levels = generic_slide
    img = fovea.CuImage(path)
    np.testing.assert_array_equal(img.read_region((0, 0), (8, 8), C=0, T=0, z=1), levels[0][:8, :8])
    with pytest.raises(ValueError, match="single character"):
        img.read_region((0, 0), (8, 8), devcie="cuda")
    with pytest.raises(ValueError, match="alphabet"):
        img.read_region((0, 0), (8, 8), _=0)
    with pytest.raises(TypeError, match="integer"):
        img.read_region((0, 0), (8, 8), C="red")


def test_iterator_is_cucims(generic_slide):
    """cuCIM returns an iterator (len: the batch count) for many locations or batch_size > 1,
    yielding (H, W, C) regions for batch_size 1 and (N, H, W, C) batches otherwise."""
    path, levels = generic_slide
    img = fovea.CuImage(path)
    locs = [(i * 100, i * 60) for i in range(5)]
    ref = [img.read_region(loc, (40, 30)) for loc in locs]
    # cuCIM: TestBatchDecoding.test_batch_read_multiple_locations
    gen = img.read_region(locs, (40, 30), 0, num_workers=2)
    assert len(gen) == 5 and repr(gen) == "<fovea.CuImageIterator index:0>"
    got = [np.asarray(r, copy=True) for r in gen]
    assert [g.shape for g in got] == [(30, 40, 3)] * 5
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g, r)
    assert repr(gen) == "<fovea.CuImageIterator index:5>"
    # cuCIM: TestBatchDecoding.test_batch_read_with_batch_size / test_batch_read_drop_last
    for drop_last, want in ((False, [3, 2]), (True, [3])):
        gen = img.read_region(locs, (40, 30), 0, batch_size=3, num_workers=2, drop_last=drop_last)
        assert len(gen) == len(want)
        batches = list(gen)
        assert [b.shape[0] for b in batches] == want
        np.testing.assert_array_equal(np.concatenate(batches), np.stack(ref[:sum(want)]))
    # one location: a region, also in a list; batch_size > 1: an iterator of one batch
    np.testing.assert_array_equal(img.read_region([locs[1]], (40, 30)), ref[1])
    np.testing.assert_array_equal(img.read_region(np.array(locs[1]), (40, 30)), ref[1])
    one = list(img.read_region(locs[1], (40, 30), 0, batch_size=2))
    assert len(one) == 1 and one[0].shape == (1, 30, 40, 3)
    np.testing.assert_array_equal(one[0][0], ref[1])
    # cuCIM: test_tiff_iterator (gh-592): iterators dropped half-way, one after another
    for n in (2, 2, 3, 2):
        x = img.read_region([(0, 0)] * n, (64, 64), 0, num_workers=1)
        assert next(x).shape == (64, 64, 3)
    # the handle itself holds no region: cuCIM's IndexError
    with pytest.raises(IndexError, match="out of range"):
        iter(img)
    with pytest.raises(ValueError, match="buf"):
        img.read_region(locs, (40, 30), 0, buf=np.empty((5, 30, 40, 3), np.uint8))
    with pytest.raises(ValueError, match="shm_name"):
        img.read_region(locs, (40, 30), 0, batch_size=2, shm_name="fovea-test-never")


def test_handle_bool_is_loaded_device(generic_slide):
    """cuCIM: test_load_image_metadata (is_loaded, str(device)); __bool__ is cuCIM's
    ``image_format && !is_loaded``: False for an opened image."""
    path, _ = generic_slide
    img = fovea.CuImage(path)
    assert img.is_loaded
    assert str(img.device) == "cpu" and img.device == "cpu" and img.device == fovea.Device()
    assert img.device.type == fovea.DeviceType.CPU and img.device.index == -1
    assert not bool(img)
    img.close()
    assert not bool(img) and img.is_loaded


def _rgb(rng, h, w):
    return rng.integers(0, 256, (h, w, 3), dtype=np.uint8)


def test_read_into_buf(generic_slide, rng):
    """buf: read straight into a caller's buffer of the region's bytes (any shape), and get
    it back; cuCIM documents it (not supported there yet)."""
    path, levels = generic_slide
    img = fovea.CuImage(path)
    want = levels[1][7:47, 3:53]   # level 1, 50 x 40 at level-1 (3, 7)
    loc = (6, 14)
    for buf in (np.zeros((40, 50, 3), np.uint8), np.zeros(6000, np.uint8), np.zeros((1, 6000), np.uint8),
                bytearray(6000), memoryview(bytearray(6000))):
        assert img.read_region(loc, (50, 40), 1, buf=buf) is buf
        np.testing.assert_array_equal(np.frombuffer(buf, np.uint8).reshape(40, 50, 3), want)
    # rgba and native formats take their own sizes
    rgba = np.zeros((40, 50, 4), np.uint8)
    img.read_region(loc, (50, 40), 1, buf=rgba, pixel_format="rgba")
    np.testing.assert_array_equal(rgba[..., :3], want)
    # a slice of a bigger array, when C-contiguous
    big = np.zeros((3, 40, 50, 3), np.uint8)
    img.read_region(loc, (50, 40), 1, buf=big[1])
    np.testing.assert_array_equal(big[1], want)
    assert not big[0].any() and not big[2].any()
    # fails: wrong size or dtype, read-only, not contiguous, not an array, on another device
    for bad, exc, match in [
        (np.zeros((40, 50, 3), np.uint16), ValueError, "6000 uint8"),
        (np.zeros((40, 50, 4), np.uint8), ValueError, "6000 uint8"),
        (np.zeros(5999, np.uint8), ValueError, "6000 uint8"),
        (np.zeros((40, 100, 3), np.uint8)[:, ::2], ValueError, "contiguous"),
        (bytes(6000), ValueError, "writable"),
        (np.zeros((40, 50, 3), np.uint8).T, ValueError, "contiguous"),
        (object(), TypeError, "buf"),
        ("not a buffer", TypeError, "buf"),
    ]:
        with pytest.raises(exc, match=match):
            img.read_region(loc, (50, 40), 1, buf=bad)
    ro = np.zeros((40, 50, 3), np.uint8)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        img.read_region(loc, (50, 40), 1, buf=ro)
    with pytest.raises(ValueError, match="not both"):
        img.read_region(loc, (50, 40), 1, buf=np.zeros((40, 50, 3), np.uint8), shm_name="fovea-test-never")
    if not fovea.gpu_available():
        with pytest.raises(fovea.DeviceError):
            img.read_region(loc, (50, 40), 1, device="cuda", buf=np.zeros((40, 50, 3), np.uint8))


@pytest.mark.gpu
def test_read_into_buf_gpu(generic_slide, cp):
    """buf on the GPU (CuPy, and any __cuda_array_interface__ object): decoded there."""
    path, levels = generic_slide
    img = fovea.CuImage(path)
    want = levels[0][20:60, 10:60]
    for dev in ("cuda", "cuda:0", fovea.Device("cuda", 0), fovea.Device(fovea.DeviceType.CUDA, 0)):
        buf = cp.zeros((40, 50, 3), cp.uint8)
        assert img.read_region((10, 20), (50, 40), 0, device=dev, buf=buf) is buf
        np.testing.assert_array_equal(buf.get(), want)
    flat = cp.zeros(6000, cp.uint8)
    img.read_region((10, 20), (50, 40), 0, device="cuda", buf=flat)
    np.testing.assert_array_equal(flat.get().reshape(40, 50, 3), want)

    class CAI:   # only __cuda_array_interface__
        def __init__(self, a):
            self.a = a
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    raw = CAI(cp.zeros((40, 50, 3), cp.uint8))
    img.read_region((10, 20), (50, 40), 0, device="cuda", buf=raw)
    np.testing.assert_array_equal(raw.a.get(), want)
    with pytest.raises(fovea.DeviceError, match="buf is on"):
        img.read_region((10, 20), (50, 40), 0, buf=cp.zeros((40, 50, 3), cp.uint8))   # device 'cpu'
    with pytest.raises(fovea.DeviceError, match="buf is on"):
        img.read_region((10, 20), (50, 40), 0, device="cuda", buf=np.zeros((40, 50, 3), np.uint8))
    with pytest.raises(ValueError, match="6000 uint8"):
        img.read_region((10, 20), (50, 40), 0, device="cuda", buf=cp.zeros((40, 50, 3), cp.float32))
    with pytest.raises(ValueError, match="contiguous"):
        img.read_region((10, 20), (50, 40), 0, device="cuda", buf=cp.zeros((40, 100, 3), cp.uint8)[:, ::2])


def test_read_into_shared_memory(generic_slide):
    """shm_name: the region read into a new POSIX shared-memory segment of that name (cuCIM
    documents it; not supported there yet); another process (or handle) sees it by name."""
    from multiprocessing import shared_memory

    path, levels = generic_slide
    img = fovea.CuImage(path)
    want = levels[0][20:60, 10:60]
    name = f"fovea-test-{os.getpid()}"
    arr = img.read_region((10, 20), (50, 40), 0, shm_name=name)
    try:
        np.testing.assert_array_equal(arr, want)
        seg = shared_memory.SharedMemory(name)
        np.testing.assert_array_equal(np.ndarray((40, 50, 3), np.uint8, buffer=seg.buf), want)
        arr[0, 0] = (1, 2, 3)   # the array is a mapping of the segment
        assert bytes(seg.buf[:3]) == b"\x01\x02\x03"
        seg.close()
        with pytest.raises(FileExistsError):
            img.read_region((10, 20), (50, 40), 0, shm_name=name)
    finally:
        shared_memory.SharedMemory(name).unlink()
    np.testing.assert_array_equal(arr[1:], want[1:])   # valid after the unlink
    # the device's [name] is the same (its case kept); rgba has its size
    arr = img.read_region((10, 20), (50, 40), 0, device=f"cpu[{name}-Dev]", pixel_format="rgba")
    try:
        assert arr.shape == (40, 50, 4)
        seg = shared_memory.SharedMemory(name + "-Dev")
        assert seg.size >= 8000
        seg.close()
    finally:
        shared_memory.SharedMemory(name + "-Dev").unlink()
    with pytest.raises(ValueError, match="differs"):
        img.read_region((0, 0), (4, 4), device="cpu[a]", shm_name="b")
    with pytest.raises(TypeError, match="str"):
        img.read_region((0, 0), (4, 4), shm_name=5)
    with pytest.raises(ValueError, match="shared-memory name"):
        img.read_region((0, 0), (4, 4), shm_name="a/b")
    if fovea.gpu_available():
        with pytest.raises(ValueError, match="cpu"):
            img.read_region((0, 0), (4, 4), device="cuda", shm_name=name + "-g")


def test_save_ppm(generic_slide, tmp_path):
    """cuCIM's region.save(path): a binary PPM ('P6\\nW\\nH\\n255\\n' then RGB), here
    fovea.CuImage.save(region, path); on a handle it writes nothing, as cuCIM's."""
    PIL = pytest.importorskip("PIL.Image")
    path, levels = generic_slide
    img = fovea.CuImage(path)
    region = img.read_region((10, 20), (50, 40))
    out = tmp_path / "r.ppm"
    fovea.CuImage.save(region, str(out))
    data = out.read_bytes()
    assert data == b"P6\n50\n40\n255\n" + region.tobytes()
    np.testing.assert_array_equal(np.asarray(PIL.open(out)), region)
    rgba = img.read_region((10, 20), (50, 40), pixel_format="rgba")
    fovea.CuImage.save(rgba, tmp_path / "a.ppm")   # alpha dropped; PathLike
    assert (tmp_path / "a.ppm").read_bytes() == data
    img.save(str(tmp_path / "handle.ppm"))
    assert not (tmp_path / "handle.ppm").exists()
    for bad in (region[..., 0], region.astype(np.uint16), np.zeros((2, 4, 4, 3), np.uint8)):
        with pytest.raises(ValueError, match="uint8"):
            fovea.CuImage.save(bad, tmp_path / "bad.ppm")
    with pytest.raises(OSError):
        fovea.CuImage.save(region, tmp_path / "no" / "such" / "dir.ppm")


@pytest.mark.gpu
def test_save_ppm_gpu(generic_slide, cp, tmp_path):
    path, _ = generic_slide
    img = fovea.CuImage(path)
    g = img.read_region((10, 20), (50, 40), device="cuda")
    fovea.CuImage.save(g, tmp_path / "g.ppm")
    assert (tmp_path / "g.ppm").read_bytes() == b"P6\n50\n40\n255\n" + img.read_region((10, 20), (50, 40)).tobytes()


def test_device_objects(generic_slide):
    """cuCIM's cucim.clara.io.Device / DeviceType: names, fields, and reads with them."""
    from fovea.clara.io import Device, DeviceType

    assert Device is fovea.Device and DeviceType is fovea.DeviceType
    for name, t, i, shm in [("cpu", DeviceType.CPU, -1, ""), ("cuda", DeviceType.CUDA, -1, ""),
                            ("cuda:0", DeviceType.CUDA, 0, ""), ("cuda:12", DeviceType.CUDA, 12, ""),
                            ("cpu[shm0]", DeviceType.CPU, -1, "shm0"), ("cuda_host", DeviceType.CUDAHost, -1, ""),
                            ("cuda:0[cuda_shm0]", DeviceType.CUDA, 0, "cuda_shm0")]:
        d = Device(name)
        assert (d.type, d.index, d.shm_name) == (t, i, shm)
        assert d == name and pickle.loads(pickle.dumps(d)) == d
    assert str(Device("cpu[shm0]")) == "cpu:-1[shm0]" and repr(Device("cuda:1")) == "cuda:1"
    assert Device() == "cpu" and Device(DeviceType.CUDA, 0) == "cuda:0" and Device("cuda", 1) == Device("cuda:1")
    assert Device("cuda") != "cuda:0" and Device("cpu") != 3 and hash(Device("cuda:0")) == hash(Device("cuda", 0))
    assert Device.parse_type("cuda") == DeviceType.CUDA and int(DeviceType.CUDAShared) == 102
    assert str(DeviceType.CUDA) == "DeviceType.CUDA"
    for bad in ("CUDA", "cuda:01", "cuda:-1", "cuda:x", "cpu[]", "cpu[a b]", ""):
        with pytest.raises(ValueError, match="device name"):
            Device(bad)
    with pytest.raises(ValueError, match="unknown device type"):
        Device("tpu")
    with pytest.raises(TypeError):
        Device(3.5)
    path, levels = generic_slide
    img = fovea.CuImage(path)
    for dev in (Device(), Device("cpu"), DeviceType.CPU, "CPU", "cpu:0", "Cpu"):
        np.testing.assert_array_equal(img.read_region((0, 0), (8, 8), device=dev), levels[0][:8, :8])
    for dev in (Device("cuda_host"), "cuda_managed", DeviceType.CPUShared):
        with pytest.raises(ValueError, match="'cpu' or 'cuda'"):
            img.read_region((0, 0), (8, 8), device=dev)


@pytest.mark.gpu
def test_device_objects_gpu(generic_slide, cp):
    path, levels = generic_slide
    img = fovea.CuImage(path)
    for dev in (fovea.Device("cuda"), fovea.Device("cuda", 0), fovea.Device(fovea.DeviceType.CUDA, 0),
                fovea.DeviceType.CUDA, "cuda:0"):
        g = img.read_region((0, 0), (8, 8), 0, device=dev)
        assert isinstance(g, cp.ndarray) and g.device.id == 0
        np.testing.assert_array_equal(g.get(), levels[0][:8, :8])
    batches = list(img.read_region([(0, 0), (8, 8)], (8, 8), 0, device=fovea.Device("cuda:0")))
    assert [type(b) for b in batches] == [cp.ndarray] * 2 and batches[0].shape == (8, 8, 3)


def test_preferred_memory_capacity(generic_slide, restore_cache):
    """cuCIM: test_image_cache.py test_preferred_memory_capacity / test_reserve_more_cache_memory
    (the CuImage there is 32x24 with 16x16 tiles: a generic slide of ours instead)."""
    from fovea.clara.cache import preferred_memory_capacity as pmc

    assert pmc is fovea.preferred_memory_capacity is fovea.CuImage.preferred_memory_capacity
    assert fovea.CuImage.cache.preferred_memory_capacity is pmc and fovea.ImageCache.preferred_memory_capacity is pmc
    path, _ = generic_slide
    img = fovea.CuImage(path)
    image_size = img.size("XY")
    tile_size = img.resolutions["level_tile_sizes"][0]
    patch_size = (tile_size[0] * 2, tile_size[0] * 2)
    m1 = pmc(img, patch_size=patch_size)
    m2 = pmc(None, image_size, tile_size, patch_size, 3)
    m3 = pmc(None, image_size, patch_size=patch_size)   # tile_size defaults to 256 x 256, as this slide's
    assert m1 == m2 == m3 == 3   # 4 tiles across x 256 x 256 x 3 rows x 3 bytes = 2.25 MiB
    assert pmc(img) == 2 and pmc(img, image_size=(10, 10), patch_size=(1, 1)) == 2   # img's sizes win
    cache = fovea.CuImage.cache("per_process", memory_capacity=m1)
    assert int(cache.type) == 1 and cache.memory_capacity == 2**20 * 3 and cache.free_memory == 2**20 * 3
    big = dict(image_size=(1024 * 1024, 1024 * 1024), tile_size=(256, 256), bytes_per_pixel=3)
    assert pmc(None, patch_size=(256, 256), **big) == 1536   # cuCIM: https://godbolt.org/z/jY7G84xzT
    new = pmc(None, patch_size=(512, 512), **big)
    assert new == 2304
    cache = fovea.CuImage.cache("per_process", memory_capacity=1536)
    cache.reserve(new)
    assert cache.memory_capacity == 2**20 * 2304
    cache.reserve(1536, capacity=500)   # smaller: no change
    assert cache.memory_capacity == 2**20 * 2304
    cache = fovea.CuImage.cache("no_cache")   # cuCIM's tests spell it so
    assert int(cache.type) == 0 and cache.type == "nocache"
    # cuCIM's defaults: tile and patch (256, 256), also for values that are not pairs
    assert pmc(None, (4096, 4096)) == pmc(None, (4096, 4096), (256, 256), (256, 256), 3) == pmc(None, (4096, 4096), (1,))
    assert pmc(None, (1, 1), (1, 1), (1, 1), 1) == 1 and pmc(None, (0, 0)) == 0
    with pytest.raises(ValueError, match="image_size"):
        pmc()
    with pytest.raises(ValueError, match="image_size"):
        pmc(None, (5,))
    with pytest.raises(TypeError, match="CuImage"):
        pmc("slide.svs")
    with pytest.raises(ValueError, match="out of range"):
        pmc(None, (-5, 5))
    with pytest.raises(ValueError, match="out of range"):
        pmc(None, (5, 5), (0, 256))
    with pytest.raises(TypeError, match="integers"):
        pmc(None, (5.5, 5))


def test_cache_types_as_cucim(restore_cache):
    """cuCIM: test_image_cache.py test_get_per_process_cache / test_get_shared_memory_cache:
    int(cache.type) is cuCIM's CacheType; CacheType values configure the cache too."""
    from fovea.clara.cache import CacheType, ImageCache

    c = fovea.CuImage.cache("per_process", memory_capacity=2048)
    assert isinstance(c, ImageCache) and int(c.type) == 1 and c.type == "per_process"
    assert c.memory_size == 0 and c.memory_capacity == 2**20 * 2048 and c.size == 0
    assert c.config["type"] == "per_process" and c.config["memory_capacity"] == 2048
    c = fovea.CuImage.cache(CacheType.NoCache)
    assert c.type == "nocache" and int(c.type) == CacheType.NoCache and c.memory_size == 0
    c = fovea.CuImage.cache(CacheType.PerProcess, memory_capacity=16)
    assert int(c.type) == CacheType.PerProcess == 1 and str(CacheType.SharedMemory) == "CacheType.SharedMemory"


def test_clara_namespace():
    """cuCIM code ports by changing `cucim.clara` to `fovea.clara`."""
    import fovea.clara as clara
    from fovea.clara import CuImage, cache, filesystem, io

    assert CuImage is fovea.CuImage and filesystem is fovea.filesystem
    assert io.Device is fovea.Device and cache.ImageCache is fovea.ImageCache
    assert set(clara.__all__) == {"CuImage", "cache", "filesystem", "io"}
