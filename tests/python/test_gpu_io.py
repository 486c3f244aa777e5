"""The GPU read path of the slide reader (read_region / associated_image with
device="cuda"): every kind of test slide read on the GPU against the CPU read of the
same handle arguments, batched loading on the GPU against the CPU iterator, device
memory over many batches, early close, errors, and what the returned arrays are.

JPEG tiles may be decoded by nvJPEG on the GPU and libjpeg-turbo on the CPU, which
round differently: JPEG-decoded pixels agree within a mean absolute difference < 1
and a maximum < 16; everything else (other codecs, background outside the image and
in empty tiles, alpha) must be identical. Cases that need a GPU carry the ``gpu``
marker or take the ``cp`` fixture and are skipped, with the reason, elsewhere; the
DeviceError cases run where no GPU is usable.
"""

import base64
import concurrent.futures
import gc
import os
import re
import threading
import time

import numpy as np
import pytest

import fovea
from fovea import _fovea

tifffile = pytest.importorskip("tifffile")
imagecodecs = pytest.importorskip("imagecodecs")

import slides  # noqa: E402 (needs tifffile)

H, W = 777, 1001   # odd level-0 size: levels 1001x777, 501x389, 251x195
JPEG_MEAN, JPEG_MAX = 1.0, 16   # nvJPEG vs libjpeg-turbo


def _gpu_usable():
    return fovea.gpu_available()


def _read_stats(reset=False):
    """fovea._fovea.gpu_read_stats(reset) or None where this build has none."""
    fn = getattr(_fovea, "gpu_read_stats", None)
    return None if fn is None else fn(reset=reset)


# ---- slide writers not in slides.py ---------------------------------------------------------------


def _philips_xml(downsamples, mpp=0.25):
    reps = "".join(
        '<DataObject ObjectType="PixelDataRepresentation">'
        f'<Attribute Name="DICOM_PIXEL_SPACING" PMSVR="IDoubleArray">&quot;{mpp * ds / 1000:g}&quot; '
        f'&quot;{mpp * ds / 1000:g}&quot;</Attribute>'
        f'<Attribute Name="PIIM_PIXEL_DATA_REPRESENTATION_NUMBER" PMSVR="IUInt16">{i}</Attribute>'
        "</DataObject>"
        for i, ds in enumerate(downsamples))
    barcode = base64.b64encode(b"GPU-IO-1").decode()
    return (
        '<?xml version="1.0" encoding="UTF-8" ?>\n<DataObject ObjectType="DPUfsImport">'
        '<Attribute Name="DICOM_MANUFACTURER" PMSVR="IString">PHILIPS</Attribute>'
        '<Attribute Name="PIM_DP_SCANNED_IMAGES" PMSVR="IDataObjectArray"><Array>'
        '<DataObject ObjectType="DPScannedImage">'
        f'<Attribute Name="DICOM_PIXEL_SPACING" PMSVR="IDoubleArray">&quot;{mpp / 1000:g}&quot; '
        f'&quot;{mpp / 1000:g}&quot;</Attribute>'
        '<Attribute Name="PIM_DP_IMAGE_TYPE" PMSVR="IString">WSI</Attribute>'
        '<Attribute Name="PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE" PMSVR="IDataObjectArray"><Array>'
        f"{reps}</Array></Attribute></DataObject></Array></Attribute>"
        f'<Attribute Name="PIM_DP_UFS_BARCODE" PMSVR="IString">{barcode}</Attribute>'
        "</DataObject>\n")


def _zero_tiles(path, page, tiles_zero_count, tiles_zero_both):
    """Mark tiles of a main-chain page missing in place: byte count 0 (and, for
    tiles_zero_both, offset 0 too), as sparse scanners leave empty tiles."""
    with tifffile.TiffFile(path) as tf:
        p = tf.pages[page]
        patches = []
        for name, which in (("TileByteCounts", tiles_zero_count + tiles_zero_both),
                            ("TileOffsets", tiles_zero_both)):
            tag = p.tags[name]
            size = {3: 2, 4: 4, 16: 8}[int(tag.dtype)]   # SHORT, LONG, LONG8
            for t in which:
                patches.append((tag.valueoffset + t * size, size))
    with open(path, "r+b") as f:
        for off, size in patches:
            f.seek(off)
            f.write(bytes(size))


# ---- the slides ---------------------------------------------------------------------------------------

# kind -> (jpeg: tiles are JPEG, whose pixels may come from nvJPEG; writer)
KINDS = [
    "jpeg-ycbcr-tables", "jpeg-ycbcr-tifffile", "jpeg-rgb-aperio", "jpeg-stripped", "jp2k-aperio",
    "jp2k-generic", "deflate", "zlib-pred", "lzw", "zstd", "webp", "none", "stripped-zlib", "rgba-zlib",
    "gray8-jpeg", "gray16-zlib", "gray16-zstd-pred", "svs-empty-tiles", "philips", "ome-rgb", "ome-gray16",
    "vips-jpeg",
]
JPEG_KINDS = {"jpeg-ycbcr-tables", "jpeg-ycbcr-tifffile", "jpeg-rgb-aperio", "jpeg-stripped", "gray8-jpeg",
              "svs-empty-tiles", "philips", "vips-jpeg"}


class Slide:
    def __init__(self, path, kind, tile, native_ok=True, empty=()):
        self.path, self.kind, self.tile = path, kind, tile
        self.jpeg = kind in JPEG_KINDS
        self.native_ok = native_ok
        self.empty = empty   # level-0 pixel rectangles (x, y, w, h) of missing tiles

    def __repr__(self):
        return f"Slide({self.kind})"


@pytest.fixture(scope="module")
def bases():
    rng = np.random.default_rng(20261123)
    return {
        "rgb": slides.tissue(rng, H, W),
        "rgba": slides.tissue(rng, H, W, channels=4),
        "gray8": slides.tissue(rng, H, W, channels=1),
        "gray16": slides.tissue(rng, H, W, channels=1, dtype=np.uint16),
        "even": slides.tissue(rng, 768, 1024),
    }


def make_slide(kind, d, bases):
    """Write one test slide of `kind` under the folder d; a Slide."""
    import shutil
    import subprocess

    path = str(d / f"{kind}.tif")
    rgb3 = slides.pyramid(bases["rgb"], 3)
    if kind == "jpeg-ycbcr-tables":
        slides.write_jpegtables_pyramid(path, rgb3, tile=256, bigtiff=True)
        return Slide(path, kind, 256)
    if kind == "jpeg-ycbcr-tifffile":
        slides.write_pyramid(path, rgb3, tile=240, compression="jpeg", layout="subifds")
        return Slide(path, kind, 240)
    if kind == "jpeg-rgb-aperio":
        even = bases["even"]
        l1 = slides.downsample2(slides.downsample2(even))
        path = str(d / f"{kind}.svs")
        slides.write_aperio(path, [even, l1, slides.downsample2(slides.downsample2(l1))],
                            thumbnail=slides.downsample2(l1), label=slides.tissue(np.random.default_rng(1), 90, 80),
                            macro=slides.tissue(np.random.default_rng(2), 70, 200))
        return Slide(path, kind, 256)
    if kind == "jpeg-stripped":
        slides.write_pyramid(path, rgb3[:1], tile=None, compression="jpeg", layout="chain")
        return Slide(path, kind, 64)
    if kind == "jp2k-aperio":
        even = bases["even"]
        l1 = slides.downsample2(slides.downsample2(even))
        path = str(d / f"{kind}.svs")
        slides.write_aperio(path, [even, l1], compression=33005)
        return Slide(path, kind, 256)
    simple = {
        "jp2k-generic": ("rgb", 33005, None, 512, "chain"),
        "deflate": ("rgb", "deflate", None, 256, "subifds"),
        "zlib-pred": ("rgb", "zlib", 2, 240, "chain"),
        "lzw": ("rgb", "lzw", 2, 256, "chain"),
        "zstd": ("rgb", "zstd", None, 512, "subifds"),
        "webp": ("rgb", "webp", None, 256, "chain"),
        "none": ("rgb", None, None, 240, "subifds"),
        "rgba-zlib": ("rgba", "zlib", None, 256, "chain"),
        "gray8-jpeg": ("gray8", "jpeg", None, 256, "chain"),
        "gray16-zlib": ("gray16", "zlib", None, 256, "subifds"),
        "gray16-zstd-pred": ("gray16", "zstd", 2, 240, "chain"),
    }
    if kind in simple:
        base, comp, pred, tile, layout = simple[kind]
        try:
            slides.write_pyramid(path, slides.pyramid(bases[base], 3), tile=tile, compression=comp,
                                 predictor=pred, layout=layout)
        except (ValueError, NotImplementedError, RuntimeError) as e:
            pytest.skip(f"tifffile cannot write {kind}: {e}")
        return Slide(path, kind, tile)
    if kind == "stripped-zlib":
        slides.write_pyramid(path, rgb3[:1], tile=None, compression="zlib", layout="chain")
        return Slide(path, kind, 64)
    if kind == "svs-empty-tiles":
        even = bases["even"]
        l1 = slides.downsample2(slides.downsample2(even))
        path = str(d / f"{kind}.svs")
        slides.write_aperio(path, [even, l1])
        # level 0 is 4 x 3 tiles of 256: tile 5 = (1, 1), tile 10 = (2, 2), tile 3 = (3, 0)
        _zero_tiles(path, 0, [5, 3], [10])
        return Slide(path, kind, 256, empty=((256, 256, 256, 256), (512, 512, 256, 256), (768, 0, 256, 256)))
    if kind == "philips":
        even = bases["even"]
        lv = [even, slides.downsample2(even), slides.downsample2(slides.downsample2(even))]
        slides.write_jpegtables_pyramid(path, lv, tile=256, software="Philips DP v1.0",
                                 description=_philips_xml([1, 2, 4]), pad_to_tiles=True)
        return Slide(path, kind, 256)
    if kind in ("ome-rgb", "ome-gray16"):
        path = str(d / f"{kind}.ome.tif")
        slides.write_ome(path, slides.pyramid(bases["rgb" if kind == "ome-rgb" else "gray16"], 3))
        return Slide(path, kind, 256)
    if kind == "vips-jpeg":
        vips = shutil.which("vips")
        if vips is None:
            pytest.skip("libvips-tools (the vips command) is not installed")
        src = str(d / "vips-src.tif")
        tifffile.imwrite(src, bases["rgb"], photometric="rgb")
        subprocess.run([vips, "tiffsave", src, path, "--tile", "--pyramid", "--compression", "jpeg", "--Q", "90"],
                       check=True, capture_output=True)
        return Slide(path, kind, 128)
    raise AssertionError(kind)


@pytest.fixture(scope="module")
def slide_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("gpu-io")


_made = {}


@pytest.fixture(scope="module")
def make(slide_dir, bases):
    def get(kind):
        if kind not in _made:
            _made[kind] = make_slide(kind, slide_dir, bases)
        return _made[kind]

    yield get
    _made.clear()


# ---- comparisons --------------------------------------------------------------------------------------


def _host(a):
    """A NumPy copy of a CuPy / fovea / NumPy array."""
    if isinstance(a, np.ndarray):
        return a
    mod = type(a).__module__.partition(".")[0]
    if mod == "cupy":
        return a.get()
    return np.asarray(fovea.to_device(a, "cpu"))


def _inside_mask(img, loc, size, level):
    """True where a region's pixel lies inside the level (level-0 location)."""
    lw, lh = img.resolutions["level_dimensions"][level]
    ds = img.resolutions["level_downsamples"][level]
    lx, ly = slides.level_origin(loc[0], loc[1], ds, level)
    return slides.region(np.ones((lh, lw), bool), lx, ly, size[0], size[1], False)


def assert_close(gpu, cpu, jpeg, inside=None, what=""):
    """gpu (any device array) against cpu (NumPy): same shape and dtype; identical
    unless jpeg, then identical outside `inside` (background) and within the JPEG
    tolerance inside."""
    g = _host(gpu)
    assert g.shape == cpu.shape and g.dtype == cpu.dtype, (what, g.shape, cpu.shape, g.dtype, cpu.dtype)
    if not jpeg or cpu.size == 0:
        np.testing.assert_array_equal(g, cpu, err_msg=what)
        return
    d = np.abs(g.astype(np.int32) - cpu.astype(np.int32))
    if inside is None:
        inside = np.ones(cpu.shape[:-1], bool)
    inside = inside.reshape(cpu.shape[:-1])   # (h, w) or (n, h, w)
    np.testing.assert_array_equal(g[~inside], cpu[~inside], err_msg=f"{what}: background differs")
    din = d[inside]
    if din.size:
        assert din.max() < JPEG_MAX, (what, int(din.max()))
        # the mean over tiny regions says little: judge it where there are pixels enough
        if din.size >= 3000:
            assert din.mean() < JPEG_MEAN, (what, float(din.mean()))
    return din


def _regions(w, h, tile):
    """(lx, ly, w, h) in level pixels: inside, across tiles, over the edges, outside."""
    return [
        (0, 0, min(w, 70), min(h, 50)),
        (tile - 17, tile - 9, 40, 30),                 # four tiles (or strips)
        (w - 20, h - 13, 50, 40),                      # bottom-right edge: part outside
        (-25, -7, 60, 33),                             # top-left: part outside
        (w // 3, -40, 35, h + 80),                     # a column through the whole height
        (-300, h // 2, w + 600, 20),                   # a row through the whole width
        (w + 5, h + 5, 16, 16),                        # fully outside
        (-100, -100, 50, 50),                          # fully outside, before the origin
        (5, 3, 1, 1),
        (w // 2 - 100, h // 2 - 90, 211, 190),         # a larger block in the middle
    ]


def _level0_location(lx, ly, ds, level):
    """A level-0 location whose floor(x / ds) is lx."""
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


# ---- every kind of slide: GPU read_region == CPU read_region -----------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("kind", KINDS)
def test_regions_match_cpu(cp, make, kind):
    s = make(kind)
    img = fovea.open(s.path)
    r = img.resolutions
    for lv in range(r["level_count"]):
        ds = r["level_downsamples"][lv]
        w, h = r["level_dimensions"][lv]
        tile = s.tile if lv == 0 else r["level_tile_sizes"][lv][0]
        for lx, ly, rw, rh in _regions(w, h, tile):
            loc = _level0_location(lx, ly, ds, lv)
            inside = _inside_mask(img, loc, (rw, rh), lv)
            what = f"{kind} level {lv} region {(lx, ly, rw, rh)}"
            for nocache in (True, False):
                cpu = img.read_region(loc, (rw, rh), lv, nocache=nocache)
                gpu = img.read_region(loc, (rw, rh), lv, device="cuda", nocache=nocache)
                assert isinstance(gpu, cp.ndarray), type(gpu)
                assert_close(gpu, cpu, s.jpeg, inside, what)
                assert (_host(gpu)[~inside] == 255).all(), what   # outside: white
            # other codecs are decoded on the CPU either way: through the cache from here on
            # (JP2K decodes are slow); JPEG still without it, so that nvJPEG does the work
            nc = s.jpeg
            cpu = img.read_region(loc, (rw, rh), lv, pixel_format="rgba", nocache=nc)
            gpu = img.read_region(loc, (rw, rh), lv, device="cuda", pixel_format="rgba", nocache=nc)
            assert_close(gpu, cpu, s.jpeg, inside, what + " rgba")
            gh = _host(gpu)
            assert (gh[~inside] == 0).all(), what   # outside: transparent
            if s.jpeg:   # alpha never comes from the decoder's rounding
                np.testing.assert_array_equal(gh[..., 3], cpu[..., 3], err_msg=what)
            if s.native_ok:
                cpu = img.read_region(loc, (rw, rh), lv, pixel_format="native", nocache=nc)
                gpu = img.read_region(loc, (rw, rh), lv, device="cuda", pixel_format="native", nocache=nc)
                assert_close(gpu, cpu, s.jpeg, inside, what + " native")


@pytest.mark.gpu
@pytest.mark.parametrize("kind", KINDS)
def test_whole_levels_match_cpu(cp, make, kind):
    s = make(kind)
    img = fovea.open(s.path)
    for lv in range(img.resolutions["level_count"]):
        for fmt in ("rgb", "rgba", "native"):
            if fmt == "native" and not s.native_ok:
                continue
            nc = s.jpeg or fmt == "rgb"   # other codecs: once without the cache, then through it
            cpu = img.read_region(level=lv, pixel_format=fmt, nocache=nc)
            gpu = img.read_region(None, None, lv, device="cuda", pixel_format=fmt, nocache=nc)
            assert isinstance(gpu, cp.ndarray)
            assert_close(gpu, cpu, s.jpeg, None, f"{kind} whole level {lv} {fmt}")
            if fmt == "rgb":   # also through the tile cache and several workers
                gpu = img.read_region((0, 0), None, lv, device="cuda", num_workers=4)
                assert_close(gpu, cpu, s.jpeg, None, f"{kind} whole level {lv} cached")


@pytest.mark.gpu
def test_empty_tiles_are_background(cp, make):
    s = make("svs-empty-tiles")
    img = fovea.open(s.path)
    for x, y, w, h in s.empty:
        for fmt, bg in (("rgb", 255), ("rgba", 0)):
            gpu = _host(img.read_region((x, y), (w, h), 0, device="cuda", pixel_format=fmt, nocache=True))
            assert (gpu == bg).all(), (x, y, fmt)
        # a region across an empty tile and its neighbours: the empty part exact, the rest close
        loc, size = (x - 40, y - 30), (w + 80, h + 60)
        cpu = img.read_region(loc, size, 0, nocache=True)
        gpu = _host(img.read_region(loc, size, 0, device="cuda", nocache=True))
        empty = np.zeros(cpu.shape[:2], bool)
        empty[30:30 + h, 40:40 + w] = True
        np.testing.assert_array_equal(gpu[empty], cpu[empty])
        assert (gpu[empty] == 255).all()
        assert_close(gpu, cpu, True, _inside_mask(img, loc, size, 0) & ~empty, f"around empty {(x, y)}")


@pytest.mark.gpu
def test_associated_images(cp, make):
    s = make("jpeg-rgb-aperio")
    img = fovea.open(s.path)
    assert img.associated_images == {"label", "macro", "thumbnail"}
    for name in sorted(img.associated_images):
        cpu = img.associated_image(name)
        gpu = img.associated_image(name, device="cuda")
        assert isinstance(gpu, cp.ndarray)
        assert_close(gpu, cpu, name != "label", None, name)   # label: LZW, exact
    with pytest.raises(KeyError):
        img.associated_image("nope", device="cuda")


@pytest.mark.gpu
def test_threads_share_the_gpu_path(cp, make):
    """Many threads reading on the GPU at once (each with its own decoder) get what
    one thread gets on the CPU."""
    s = make("jpeg-ycbcr-tables")
    img = fovea.open(s.path)
    rng = np.random.default_rng(3)
    jobs = []
    for _ in range(96):
        lv = int(rng.integers(0, 3))
        jobs.append(((int(rng.integers(-100, W)), int(rng.integers(-100, H))),
                     (int(rng.integers(1, 300)), int(rng.integers(1, 300))), lv))
    cpu = [img.read_region(*j, nocache=True) for j in jobs]
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        gpu = list(ex.map(lambda j: img.read_region(*j, device="cuda", nocache=bool(j[2] % 2)), jobs))
    cp.cuda.Device().synchronize()
    for j, a, b in zip(jobs, gpu, cpu):
        assert_close(a, b, True, _inside_mask(img, j[0], j[1], j[2]), str(j))


@pytest.mark.gpu
def test_result_is_ordered_on_the_current_stream(cp, make):
    """The region is ready for work queued on CuPy's current stream (a non-blocking
    one here): no host synchronisation is needed before using it."""
    s = make("jpeg-ycbcr-tables")
    img = fovea.open(s.path)
    cpu = img.read_region((100, 50), (700, 600), 0, nocache=True)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        outs = []
        for _ in range(4):
            g = img.read_region((100, 50), (700, 600), 0, device="cuda", nocache=True)
            outs.append(g.astype(cp.int16) + 0)   # queued on `stream` right away
    stream.synchronize()
    for o in outs:
        assert_close(o.astype(cp.uint8), cpu, True, None, "stream")


# ---- batches on the GPU == batches on the CPU ------------------------------------------------------------


def _os_threads():
    """Threads of this process as the OS sees them (C workers included), or None."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def _wait_threads(at_most, timeout=5.0):
    """The OS thread count once it is <= at_most (or after timeout)."""
    t0 = time.monotonic()
    while True:
        n = _os_threads()
        if n is None or n <= at_most or time.monotonic() - t0 > timeout:
            return n
        time.sleep(0.05)


def _locations(n, w, h, seed, margin=40):
    rng = np.random.default_rng(seed)
    return np.stack([rng.integers(-margin, w + margin // 2, n), rng.integers(-margin, h + margin // 2, n)], 1)


BATCH_CASES = [
    # batch_size, num_workers, prefetch_factor, shuffle, drop_last, pixel_format
    (1, 0, 2, False, False, "rgb"),
    (4, 1, 1, False, False, "rgb"),
    (7, 4, 2, False, False, "rgb"),
    (8, 4, 3, True, False, "rgb"),
    (5, 2, 2, True, True, "rgb"),
    (16, 8, 2, False, True, "rgb"),
    (6, 3, 2, True, False, "rgba"),
    (3, 2, 2, False, False, "native"),
]


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["jpeg-ycbcr-tables", "jpeg-rgb-aperio", "zstd", "gray16-zlib"])
@pytest.mark.parametrize("bs,nw,pf,shuffle,drop_last,fmt", BATCH_CASES,
                         ids=[f"b{c[0]}-w{c[1]}-p{c[2]}{'-shuffle' if c[3] else ''}{'-drop' if c[4] else ''}-{c[5]}"
                              for c in BATCH_CASES])
def test_batches_match_cpu(cp, make, kind, bs, nw, pf, shuffle, drop_last, fmt):
    """The GPU iterator yields the CPU iterator's batches: same count, order, shapes and
    dtypes; pixels identical (JPEG: within the tolerance inside the image, identical
    outside). Every batch is kept until the end: none may overwrite another."""
    s = make(kind)
    img = fovea.open(s.path)
    w0, h0 = img.resolutions["level_dimensions"][0]
    size = (64, 48)
    for level, n in ((0, 37), (1, 11)):
        locs = _locations(n, w0, h0, 7 + level)
        kw = dict(batch_size=bs, num_workers=nw, prefetch_factor=pf, shuffle=shuffle, seed=1234,
                  drop_last=drop_last, nocache=True)
        cpu = list(img.read_region(locs, size, level, pixel_format=fmt, **kw))
        # the same order in RGBA: alpha 0 marks the pixels outside the image
        alpha = [b[..., 3] for b in img.read_region(locs, size, level, pixel_format="rgba", **kw)]
        gpu = list(img.read_region(locs, size, level, device="cuda", pixel_format=fmt, **kw))
        cp.cuda.Device().synchronize()
        assert len(gpu) == len(cpu) == (n // bs if drop_last else -(-n // bs))
        for k, (g, c) in enumerate(zip(gpu, cpu)):
            assert isinstance(g, cp.ndarray)
            assert g.shape == c.shape and g.dtype == c.dtype, (k, g.shape, c.shape)
            what = f"{kind} level {level} batch {k}"
            if not s.jpeg:
                np.testing.assert_array_equal(g.get(), c, err_msg=what)
                continue
            for i in range(g.shape[0]):
                assert_close(g[i], c[i], True, alpha[k][i] > 0, f"{what} item {i}")
        assert len({g.data.ptr for g in gpu}) == len(gpu), "batches share device memory"


@pytest.mark.gpu
def test_batches_whole_list_and_flattening(cp, make):
    """cuCIM's flat location list and a generator of pairs, on the GPU."""
    s = make("zstd")
    img = fovea.open(s.path)
    a = list(img.read_region([0, 0, 100, 0, 300, 200], (32, 32), 0, batch_size=2, device="cuda"))
    assert [x.shape for x in a] == [(2, 32, 32, 3), (1, 32, 32, 3)]
    np.testing.assert_array_equal(a[0][1].get(), img.read_region((100, 0), (32, 32)))
    np.testing.assert_array_equal(a[1][0].get(), img.read_region((300, 200), (32, 32)))
    b = list(img.read_region(((x, 5) for x in range(0, 300, 100)), (16, 8), 1, device="cuda"))
    assert [x.shape for x in b] == [(1, 8, 16, 3)] * 3
    it = img.read_region(np.array([[0, 0], [1, 1], [2, 2]]), (4, 4), 0, batch_size=2, device="cuda")
    assert len(it) == 2
    it.close()


@pytest.mark.gpu
def test_batches_are_fresh_arrays(cp, make):
    s = make("jpeg-ycbcr-tables")
    img = fovea.open(s.path)
    locs = _locations(64, W, H, 21)
    it = img.read_region(locs, (96, 96), 0, num_workers=4, batch_size=4, prefetch_factor=1, device="cuda")
    first = next(it)
    keep = first.copy()
    rest = list(it)
    assert len(rest) == 15
    cp.testing.assert_array_equal(first, keep)   # not overwritten by later batches
    ptrs = {first.data.ptr} | {r.data.ptr for r in rest}
    assert len(ptrs) == 16


# ---- device memory over many batches ---------------------------------------------------------------------


def _free_device_memory(cp):
    gc.collect()
    cp.cuda.Device().synchronize()
    cp.get_default_memory_pool().free_all_blocks()
    cp.get_default_pinned_memory_pool().free_all_blocks()
    return cp.cuda.runtime.memGetInfo()[0]


@pytest.mark.gpu
def test_no_device_memory_growth(cp, make):
    """10 000 batches of 1-2 small patches (JPEG tiles decoded on the GPU where nvJPEG
    is there): the device's free memory after the run equals that after a warm-up,
    within 8 MiB."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("measures the device's free memory, which other pytest-xdist workers share: run without -n")
    s = make("jpeg-ycbcr-tables")
    img = fovea.open(s.path)
    rng = np.random.default_rng(99)

    def run(nbatches, bs, nw, seed):
        n = nbatches * bs
        locs = np.stack([rng.integers(-20, W, n), rng.integers(-20, H, n)], 1)
        got = 0
        for b in img.read_region(locs, (32, 24), 0, batch_size=bs, num_workers=nw, prefetch_factor=2,
                                 device="cuda", shuffle=bool(seed % 2), seed=seed, nocache=seed % 3 == 0):
            assert b.shape == ((24, 32, 3) if bs == 1 else (bs, 24, 32, 3))   # cuCIM: bs 1 yields regions
            got += 1
        assert got == nbatches
        return got

    plan = [(1, 2), (2, 4), (2, 0), (1, 1)]   # (batch_size, num_workers)
    # warm-up: every configuration below once (pools, decoders, per-thread state)
    for seed, (bs, nw) in enumerate(plan):
        run(250, bs, nw, seed)
    img.read_region((0, 0), (64, 64), 0, device="cuda")
    before = _free_device_memory(cp)
    batches = sum(run(1250, bs, nw, seed) for seed, (bs, nw) in enumerate(plan * 2))
    after = _free_device_memory(cp)
    assert batches == 10000
    grown = before - after
    assert grown < 8 << 20, f"device memory grew by {grown / 2**20:.1f} MiB over 10 000 batches"


# ---- lifetime ------------------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_close_early_stops_workers(cp, make):
    s = make("jpeg-ycbcr-tables")
    img = fovea.open(s.path)
    locs = _locations(400, W, H, 4)
    for b in img.read_region(locs[:64], (128, 128), 0, num_workers=4, batch_size=8, device="cuda"):
        pass   # warm-up: the library's pool, CUDA's and nvJPEG's own threads start here
    gc.collect()
    before, os_before = threading.active_count(), _wait_threads(0, 0.5)
    for k in range(20):
        it = img.read_region(locs, (128, 128), 0, num_workers=4, batch_size=8, prefetch_factor=4, device="cuda")
        next(it)
        it.close()
        with pytest.raises(StopIteration):
            next(it)
        it2 = img.read_region(locs, (128, 128), 0, num_workers=4, batch_size=8, device="cuda", shuffle=True,
                              seed=k)
        next(it2)
        del it2   # dropping it stops the workers too
        with img.read_region(locs[:40], (64, 64), 1, num_workers=2, batch_size=4, device="cuda") as it3:
            next(it3)
    gc.collect()
    assert threading.active_count() == before
    if os_before is not None:   # the loader's C threads are gone too
        assert _wait_threads(os_before) <= os_before
    # the handle still reads
    assert_close(img.read_region((10, 10), (50, 50), 0, device="cuda"), img.read_region((10, 10), (50, 50), 0),
                 True, None, "after closes")


@pytest.mark.gpu
def test_close_handle_with_live_iterator(cp, make):
    """Closing the slide while a GPU iterator is open: the iterator ends or fails
    cleanly (no crash, no hang), and batches already yielded stay valid."""
    s = make("zstd")
    img = fovea.open(s.path)
    locs = _locations(200, W, H, 5)
    it = img.read_region(locs, (64, 64), 0, num_workers=4, batch_size=4, device="cuda")
    first = next(it)
    keep = first.get()
    img.close()
    try:
        for _ in it:
            pass
    except (ValueError, OSError):
        pass
    it.close()
    np.testing.assert_array_equal(first.get(), keep)
    with pytest.raises(ValueError, match="closed"):
        img.read_region((0, 0), (4, 4), device="cuda")


@pytest.mark.gpu
def test_repeated_open_read_close(cp, make):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("measures the device's free memory, which other pytest-xdist workers share: run without -n")
    s = make("jpeg-ycbcr-tables")
    ref = fovea.open(s.path).read_region((200, 100), (300, 200), 0)
    locs = _locations(12, W, H, 8)
    before = None
    for k in range(60):
        with fovea.open(s.path) as img:
            g = img.read_region((200, 100), (300, 200), 0, device="cuda", nocache=k % 2 == 0)
            assert_close(g, ref, True, None, f"open {k}")
            n = sum(b.shape[0] for b in img.read_region(locs, (32, 32), 0, batch_size=5, num_workers=2,
                                                         device="cuda"))
            assert n == 12
        del g
        if k == 10:
            before = _free_device_memory(cp)
    assert before - _free_device_memory(cp) < 8 << 20


# ---- errors -------------------------------------------------------------------------------------------------


@pytest.fixture
def zlib_slide(tmp_path, bases):
    path = str(tmp_path / "z.tif")
    slides.write_pyramid(path, slides.pyramid(bases["rgb"], 2), tile=256, compression="zlib", layout="chain")
    return path


def test_bad_device_names(zlib_slide):
    img = fovea.open(zlib_slide)
    for dev in ("tpu", "cuda:x", "cuda:-1", "cuda_host", "cpu[]"):
        with pytest.raises(ValueError, match="device"):
            img.read_region((0, 0), (8, 8), device=dev)
        with pytest.raises(ValueError, match="device"):
            img.read_region([(0, 0), (8, 8)], (8, 8), 0, device=dev)
        with pytest.raises(ValueError, match="device"):
            img.associated_image("thumbnail", device=dev)
    # cuCIM's grammar gives the CPU an index too (ignored)
    np.testing.assert_array_equal(img.read_region((0, 0), (8, 8), device="cpu:0"), img.read_region((0, 0), (8, 8)))


def test_missing_device_index(zlib_slide):
    """cuda:99 does not exist (here, or on any test machine): a DeviceError that says so,
    from single reads, batches (at the call or the first batch) and associated images."""
    img = fovea.open(zlib_slide)
    with pytest.raises(fovea.DeviceError) as ei:
        img.read_region((0, 0), (8, 8), device="cuda:99")
    msg = str(ei.value)
    if _gpu_usable():
        assert "99" in msg and ("exist" in msg or "invalid" in msg or "not" in msg), msg
    with pytest.raises(fovea.DeviceError):
        next(img.read_region([(0, 0), (8, 8)], (8, 8), 0, device="cuda:99"))
    # the handle is fine afterwards
    np.testing.assert_array_equal(img.read_region((0, 0), (8, 8)), img.read_region((0, 0), (8, 8), nocache=True))


@pytest.mark.skipif(_gpu_usable(), reason="needs a machine where fovea sees no usable GPU")
def test_no_gpu_raises_device_error(zlib_slide, make):
    """Without a usable GPU, device='cuda' is a DeviceError giving the reason, for
    single reads, whole levels, batches and associated images; the CPU path still works."""
    reason = fovea.config()["cuda"]["reason"]
    img = fovea.open(zlib_slide)
    for call in (lambda: img.read_region((0, 0), (8, 8), device="cuda"),
                 lambda: img.read_region(level=1, device="gpu"),
                 lambda: img.read_region((0, 0), (8, 8), device="cuda:0", pixel_format="native"),
                 lambda: next(img.read_region([(0, 0), (8, 8)], (8, 8), 0, num_workers=2, device="cuda"))):
        with pytest.raises(fovea.DeviceError) as ei:
            call()
        assert "GPU" in str(ei.value) or "CUDA" in str(ei.value) or "cuda" in str(ei.value)
        if reason:
            assert reason in str(ei.value), (str(ei.value), reason)
    svs = make("jpeg-rgb-aperio")
    with pytest.raises(fovea.DeviceError):
        fovea.open(svs.path).associated_image("label", device="cuda")
    assert img.read_region((0, 0), (8, 8)).shape == (8, 8, 3)
    # no half-started workers are left behind (the error may come at the call or the first batch)
    for b in img.read_region(_locations(50, W, H, 1), (16, 16), 0, num_workers=4, batch_size=4):
        pass
    gc.collect()
    before = _wait_threads(0, 0.5)
    for _ in range(5):
        it = None
        with pytest.raises(fovea.DeviceError):
            it = img.read_region(_locations(50, W, H, 1), (16, 16), 0, num_workers=4, batch_size=4, device="cuda")
            next(it)
        if it is not None:
            it.close()
        del it
    gc.collect()
    if before is not None:
        assert _wait_threads(before) <= before


def _corrupt(path, tile_index, at="header", page=0):
    ranges = slides.tile_data_ranges(path, page)
    data = bytearray(open(path, "rb").read())
    off, n = ranges[tile_index]
    if at == "header":   # the SOI marker and the first bytes after it
        rng = range(off, off + 24)
        for i in rng:
            data[i] ^= 0xFF
    else:                # inside the entropy-coded data
        for i in range(off + n // 2, off + n // 2 + 64):
            data[i] ^= 0x5A
    with open(path, "wb") as f:
        f.write(bytes(data))


@pytest.mark.gpu
@pytest.mark.parametrize("writer", ["tables", "tifffile"])
def test_corrupt_jpeg_tile_in_batch(cp, tmp_path, bases, writer):
    """One JPEG tile with a broken header among good ones, read in a GPU batch: the
    batch raises the CPU path's error (FormatError / OSError) naming the tile; batches
    before it are fine; the iterator then ends; nothing crashes; other slides still
    read on the GPU."""
    path = str(tmp_path / "c.tif")
    good_path = str(tmp_path / "good.tif")
    lv = [bases["even"]]
    if writer == "tables":
        slides.write_jpegtables_pyramid(path, lv, tile=256)
        slides.write_jpegtables_pyramid(good_path, lv, tile=256)
    else:
        slides.write_pyramid(path, lv, tile=256, compression="jpeg", layout="chain")
        slides.write_pyramid(good_path, lv, tile=256, compression="jpeg", layout="chain")
    _corrupt(path, 5)   # tile (1, 1) of 4 x 3: level-0 pixels [256, 512) x [256, 512)
    cpu_err = None
    try:
        fovea.open(path).read_region((300, 300), (8, 8), nocache=True)
    except (fovea.FormatError, OSError) as e:
        cpu_err = e
    assert cpu_err is not None, "the CPU path reads the corrupt tile"
    img = fovea.open(path)
    # batches of 4: the corrupt tile is in the third batch only
    locs = [(0, 0), (600, 0), (20, 500), (800, 520),
            (0, 260), (700, 100), (520, 10), (10, 10),
            (40, 40), (300, 300), (900, 0), (0, 600),
            (10, 700), (900, 700)]
    it = img.read_region(locs, (64, 64), 0, batch_size=4, num_workers=2, prefetch_factor=1, device="cuda",
                         nocache=True)
    b0, b1 = next(it), next(it)
    assert b0.shape == b1.shape == (4, 64, 64, 3)
    with pytest.raises(type(cpu_err)) as ei:
        next(it)
    msg = str(ei.value)
    assert re.search(r"\b5\b", msg) and ("chunk" in msg or "tile" in msg), msg
    assert "jpeg" in msg.lower() or "JPEG" in msg, msg
    with pytest.raises(StopIteration):
        next(it)
    it.close()
    cp.cuda.Device().synchronize()   # no sticky CUDA error from the failed decode
    # the single-read path fails the same way (the first error sticks to the handle)
    with pytest.raises((fovea.FormatError, OSError)):
        img.read_region((256, 256), (16, 16), 0, device="cuda", nocache=True)
    # a good slide still reads on the GPU, batched and single
    good = fovea.open(good_path)
    cpu = list(good.read_region(locs, (64, 64), 0, batch_size=4))
    gpu = list(good.read_region(locs, (64, 64), 0, batch_size=4, num_workers=2, device="cuda"))
    for g, c in zip(gpu, cpu):
        assert_close(g, c, True, None, "good slide after failure")
    assert_close(good.read_region((256, 256), (256, 256), 0, device="cuda", nocache=True),
                 good.read_region((256, 256), (256, 256), 0, nocache=True), True, None, "good single")
    # a fresh handle on the corrupt file still reads its good tiles
    assert_close(fovea.open(path).read_region((0, 0), (256, 256), 0, device="cuda", nocache=True),
                 good.read_region((0, 0), (256, 256), 0, nocache=True), True, None, "good tile of bad file")


@pytest.mark.gpu
def test_corrupt_entropy_data(cp, tmp_path, bases):
    """Bytes flipped inside a tile's entropy-coded data: an error or pixels, never a
    crash or a sticky CUDA error."""
    path = str(tmp_path / "e.tif")
    slides.write_jpegtables_pyramid(path, [bases["even"]], tile=256)
    _corrupt(path, 2, at="entropy")
    try:
        r = fovea.open(path).read_region((512, 0), (256, 256), nocache=True, device="cuda")
        assert r.shape == (256, 256, 3)
    except (fovea.FormatError, OSError) as e:
        assert "jpeg" in str(e).lower()
    locs = [(512 + 16 * i, 16 * i) for i in range(8)]
    try:
        for b in fovea.open(path).read_region(locs, (32, 32), 0, batch_size=3, num_workers=2, device="cuda",
                                              nocache=True):
            assert b.shape[1:] == (32, 32, 3)
    except (fovea.FormatError, OSError):
        pass
    cp.cuda.Device().synchronize()
    img = fovea.open(path)
    assert_close(img.read_region((0, 300), (200, 200), 0, device="cuda"), img.read_region((0, 300), (200, 200), 0),
                 True, None, "good tiles")


# ---- what the arrays are -----------------------------------------------------------------------------------


@pytest.mark.gpu
def test_array_properties(cp, make):
    s = make("jpeg-ycbcr-tables")
    img = fovea.open(s.path)
    dev = cp.cuda.Device()
    single = img.read_region((10, 20), (123, 45), 0, device="cuda")
    whole = img.read_region(level=2, device="cuda")
    batch = next(img.read_region(_locations(8, W, H, 2), (33, 17), 0, batch_size=8, device="cuda"))
    rgba = img.read_region((10, 20), (5, 7), 1, device="cuda", pixel_format="rgba")
    for a, shape in ((single, (45, 123, 3)), (whole, (195, 251, 3)), (batch, (8, 17, 33, 3)), (rgba, (7, 5, 4))):
        assert isinstance(a, cp.ndarray)
        assert a.shape == shape and a.dtype == cp.uint8
        assert a.device.id == dev.id
        assert a.flags.c_contiguous
        assert a.strides == tuple(int(v) for v in np.empty(shape, np.uint8).strides)
        # writable, and owned by the caller (a write does not leak into the next read)
        a[...] = 7
    again = img.read_region((10, 20), (123, 45), 0, device="cuda")
    assert int((again == 7).all()) == 0
    g16 = fovea.open(make("gray16-zlib").path).read_region((0, 0), (9, 11), 0, device="cuda",
                                                           pixel_format="native")
    assert g16.dtype == cp.uint16 and g16.flags.c_contiguous and g16.shape[:2] == (11, 9)


@pytest.mark.gpu
def test_dlpack_into_torch_zero_copy(cp, make, torch):
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    s = make("jpeg-ycbcr-tables")
    img = fovea.open(s.path)
    for a in (img.read_region((0, 0), (64, 32), 0, device="cuda"),
              next(img.read_region(_locations(4, W, H, 6), (16, 16), 0, batch_size=4, device="cuda"))):
        t = torch.from_dlpack(a)
        assert t.is_cuda and t.device.index == a.device.id
        assert t.data_ptr() == a.data.ptr, "DLPack copied"
        assert tuple(t.shape) == a.shape and t.dtype == torch.uint8 and t.is_contiguous()
        t.view(-1)[0] = 3
        cp.cuda.Device().synchronize()
        torch.cuda.synchronize()
        assert int(a.ravel()[0]) == 3   # the same memory
        assert torch.equal(t.cpu(), torch.from_numpy(a.get()))


# ---- configuration and statistics ------------------------------------------------------------------------


def test_nvjpeg_config():
    cfg = fovea.config()
    if "nvjpeg" not in cfg:
        pytest.skip("this build does not report nvJPEG (fovea.config() has no 'nvjpeg')")
    nv = cfg["nvjpeg"]
    assert set(nv) >= {"available", "backend", "reason"}
    assert isinstance(nv["available"], bool) and isinstance(nv["backend"], str) and isinstance(nv["reason"], str)
    assert nv["backend"] in ("hardware", "gpu-hybrid", "default", "")
    if nv["available"]:
        assert nv["backend"] and _gpu_usable()
    else:
        assert nv["backend"] == "" and nv["reason"], nv
    if not _gpu_usable():
        assert not nv["available"]


def test_gpu_read_stats_shape():
    st = _read_stats()
    if st is None:
        pytest.skip("this build has no fovea._fovea.gpu_read_stats")
    keys = {"regions", "tiles_gpu", "tiles_cpu", "tiles_cached", "bytes_read", "io_s", "decode_s", "assemble_s"}
    assert set(st) >= keys, set(st)
    assert all(st[k] >= 0 for k in keys)
    _read_stats(reset=True)
    z = _read_stats()
    assert all(z[k] == 0 for k in keys), z


@pytest.mark.gpu
def test_gpu_read_stats_count_the_reads(cp, make):
    if _read_stats() is None:
        pytest.skip("this build has no fovea._fovea.gpu_read_stats")
    nv = fovea.config().get("nvjpeg", {})
    jpeg = fovea.open(make("jpeg-ycbcr-tables").path)
    zst = fovea.open(make("zstd").path)
    _read_stats(reset=True)
    jpeg.read_region(None, None, 0, device="cuda", nocache=True)   # the whole level: 4 x 4 tiles of 256
    st = _read_stats(reset=True)
    assert st["regions"] >= 1
    assert st["tiles_gpu"] + st["tiles_cpu"] >= 16, st
    assert st["bytes_read"] > 0 and st["io_s"] >= 0 and st["assemble_s"] >= 0
    if nv.get("available"):
        assert st["tiles_gpu"] > 0, st
        assert st["decode_s"] > 0, st
    after = _read_stats()
    assert after["regions"] == 0 and after["tiles_gpu"] == 0, after
    zst.read_region((0, 0), (512, 512), 0, device="cuda", nocache=True)   # 1 tile of 512, zstd
    st = _read_stats(reset=True)
    assert st["tiles_gpu"] == 0, st   # zstd: never nvJPEG (tiles_cpu counts it if that path counts tiles)
    n = sum(b.shape[0] for b in jpeg.read_region(_locations(20, W, H, 3), (64, 64), 0, batch_size=4,
                                                 num_workers=2, device="cuda", nocache=True))
    st = _read_stats(reset=True)
    assert n == 20 and st["regions"] >= 1 and st["tiles_gpu"] + st["tiles_cpu"] >= 1, st
    if nv.get("available"):
        assert st["tiles_gpu"] >= 1, st


# ---- the device tile cache ---------------------------------------------------------------------------------


def _all(img, locs, size, **kw):
    """The regions at locs (level 0) as one (n, h, w, C) batch."""
    batches = list(img.read_region(locs, size, 0, batch_size=len(locs), **kw))
    assert len(batches) == 1
    return batches[0]


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["jpeg-ycbcr-tables", "zstd"])
def test_gpu_tile_cache(cp, make, kind):
    """Reads of tiles read before come from the device tile cache (no read, no
    decode) with the same pixels; the capacity bounds it (evictions under a small
    one, nothing kept at 0); nocache=True reads bypass it; clear empties it."""
    s = make(kind)
    img = fovea.open(s.path)
    locs = _locations(24, W, H, 11)
    rgba = dict(pixel_format="rgba")
    try:
        fovea.gpu_cache(64, clear=True)
        _fovea.gpu_cache_reset_stats()
        _read_stats(reset=True)
        first = _host(_all(img, locs, (96, 80), device="cuda"))
        st = _read_stats(reset=True)
        assert st["tiles_cached"] == 0 and st["tiles_gpu"] + st["tiles_cpu"] > 0, st
        c = fovea.gpu_cache()
        assert c["entries"] > 0 and 0 < c["bytes"] <= c["capacity"] == 64 << 20, c
        again = _host(_all(img, locs, (96, 80), device="cuda"))
        st = _read_stats(reset=True)
        assert st["tiles_cached"] > 0 and st["tiles_gpu"] + st["tiles_cpu"] == 0, st
        np.testing.assert_array_equal(again, first)
        assert fovea.gpu_cache()["hits"] >= st["tiles_cached"]
        cpu = _all(img, locs, (96, 80))
        inside = np.stack([_inside_mask(img, tuple(l), (96, 80), 0) for l in locs])
        assert_close(again, cpu, s.jpeg, inside, kind + " cached")
        # another pixel format from the same cached tiles
        assert_close(_all(img, locs, (96, 80), device="cuda", **rgba), _all(img, locs, (96, 80), **rgba),
                     s.jpeg, inside, kind + " cached rgba")
        # bypass
        _read_stats(reset=True)
        _all(img, locs, (96, 80), device="cuda", nocache=True)
        st = _read_stats(reset=True)
        assert st["tiles_cached"] == 0, st
        # a capacity of about two tiles: evictions, never above it, same pixels
        cap = 2 * s.tile * s.tile * 3 + 1000
        fovea.gpu_cache(0)
        assert fovea.gpu_cache()["entries"] == 0
        _fovea.gpu_cache_set_capacity(cap)
        whole = img.read_region(None, None, 0, device="cuda")
        assert_close(whole, img.read_region(None, None, 0), s.jpeg, None, kind + " whole level, small cache")
        for y in range(0, H, 150):
            for x in range(0, W, 170):
                got = img.read_region((x, y), (64, 64), 0, device="cuda")
                ins = _inside_mask(img, (x, y), (64, 64), 0)
                assert_close(got, img.read_region((x, y), (64, 64), 0), s.jpeg, ins, f"{kind} {(x, y)} small cache")
                assert fovea.gpu_cache()["bytes"] <= cap
        assert fovea.gpu_cache()["evictions"] > 0
        # threads sharing a small cache
        def job(seed):
            ls = _locations(16, W, H, seed)
            g = _host(_all(img, ls, (64, 64), device="cuda"))
            return ls, g
        with concurrent.futures.ThreadPoolExecutor(4) as ex:
            for ls, g in ex.map(job, range(100, 112)):
                ins = np.stack([_inside_mask(img, tuple(l), (64, 64), 0) for l in ls])
                assert_close(g, _all(img, ls, (64, 64)), s.jpeg, ins, kind + " threads")
        assert fovea.gpu_cache()["bytes"] <= cap
        fovea.gpu_cache(0)
        _read_stats(reset=True)
        _all(img, locs, (96, 80), device="cuda")
        assert fovea.gpu_cache()["entries"] == 0
        assert _read_stats(reset=True)["tiles_cached"] == 0
        fovea.gpu_cache(64)
        _all(img, locs, (96, 80), device="cuda")
        assert fovea.gpu_cache(clear=True)["entries"] == 0
    finally:
        fovea.gpu_cache(1024, clear=True)


def test_gpu_cache_controls():
    c = fovea.gpu_cache()
    assert set(c) == {"hits", "misses", "evictions", "bytes", "capacity", "entries"}
    with pytest.raises(ValueError):
        fovea.gpu_cache(-1)
    with pytest.raises(TypeError):
        fovea.gpu_cache("big")
