"""Slide and I/O suites (need a slide file, written once under /tmp): per-patch reads
(the former bench_slide.py), the batch loader (bench_loader.py), reads into GPU memory
(bench_gpu_io.py), file-to-GPU reads (bench_filesystem.py) and the demo pipeline
(bench_demo.py). These are throughput cases: each call returns the items it processed
(patches, bytes) and ratios compare time per item, so a peer capped to fewer patches
(peer_patches) stays comparable. Peers that do not import are reported missing."""
import concurrent.futures as cf
import os
import sys
import time

import numpy as np

from . import Case, Suite

CORES = os.cpu_count() or 1
BATCH = 64
PREFETCH = 2


# ---- the slide (written once per size; tifffile + imagecodecs, else fovea convert) ----------------

def tissue_tiles(n, tile, rng):
    try:
        from skimage import data
        base = data.immunohistochemistry()
    except Exception:  # procedural stand-in
        yy, xx = np.mgrid[0:512, 0:512]
        base = np.stack([200 - 60 * np.sin(xx / 17.0) * np.cos(yy / 23.0),
                         150 + 50 * np.cos((xx + yy) / 31.0),
                         190 - 40 * np.sin(xx / 11.0 + yy / 29.0)], -1)
        base = np.clip(base + rng.normal(0, 12, base.shape), 0, 255).astype(np.uint8)
    out = []
    for _ in range(n):
        y, x = rng.integers(0, base.shape[0] - tile), rng.integers(0, base.shape[1] - tile)
        t = base[y:y + tile, x:x + tile]
        t = np.rot90(t, rng.integers(4))
        if rng.integers(2):
            t = t[:, ::-1]
        tint = rng.uniform(0.85, 1.1, 3)
        out.append(np.clip(t * tint, 0, 255).astype(np.uint8))
    return out


def make_slide(path, size, tile, quality, rng):
    import tifffile
    pool = tissue_tiles(256, tile, rng)
    levels = [size]
    while levels[-1] > 4 * tile:
        levels.append(levels[-1] // 4)

    def tiles(n):
        across = (n + tile - 1) // tile
        for i in range(across * across):
            yield pool[(i * 7919 + (i // across) * 104729) % len(pool)]

    t0 = time.perf_counter()
    try:
        import imagecodecs  # noqa: F401  (tifffile's JPEG encoder)
    except ImportError:
        # no JPEG encoder for tifffile (the GPU machine, when imagecodecs is not carried):
        # the same tiles uncompressed, then fovea's own converter (libjpeg-turbo, YCbCr
        # 4:2:0 tiles of the same size and quality; its levels halve instead of quartering)
        import fovea
        raw = path + ".raw.tif"
        with tifffile.TiffWriter(raw, bigtiff=True) as tw:
            tw.write(tiles(size), shape=(size, size, 3), dtype=np.uint8, tile=(tile, tile), photometric="rgb")
        rc = fovea._fovea.cli_main(["fovea", "convert", raw, path, "--tile-size", str(tile), "--compression",
                                    "jpeg", "--quality", str(quality), "--no-progress"])
        os.unlink(raw)
        if rc != 0:
            raise RuntimeError(f"fovea convert failed ({rc})")
        print(f"# wrote {path} with fovea convert (no imagecodecs): {size}x{size}, "
              f"{os.path.getsize(path) / 1e9:.2f} GB in {time.perf_counter() - t0:.0f} s")
        return
    with tifffile.TiffWriter(path, bigtiff=True) as tw:
        for k, n in enumerate(levels):
            tw.write(tiles(n), shape=(n, n, 3), dtype=np.uint8, tile=(tile, tile), photometric="rgb",
                     compression="jpeg", compressionargs={"level": quality}, subfiletype=1 if k else 0,
                     maxworkers=os.cpu_count())
    print(f"# wrote {path}: {size}x{size}, {len(levels)} levels, {os.path.getsize(path) / 1e9:.2f} GB "
          f"in {time.perf_counter() - t0:.0f} s")



def slide_path(size, tile=256, quality=90):
    path = f"/tmp/fovea-bench-{size}-{tile}-q{quality}.tif"
    if not os.path.exists(path):
        make_slide(path, size, tile, quality, np.random.default_rng(0))
    with open(path, "rb") as f:   # into the page cache: no reader pays the first read
        while f.read(1 << 24):
            pass
    return path


class SlideInputs:
    """The slide of side shape[0], fovea's handle, and the patch lists: `random` (params
    random patches of params["patch"] pixels, seeded) and `grid` (every 256 x 256 grid patch
    of level 0, capped by params["grid_max"])."""

    def __init__(self, xp, shape, dtype, params):
        import fovea   # noqa: PLC0415
        self.quick = params.get("quick", False)
        self.path = slide_path(shape[0])
        self.im = fovea.CuImage(self.path)
        W0, H0 = self.im.resolutions["level_dimensions"][0]
        self.tile = self.im.resolutions["level_tile_sizes"][0][0]
        self.P = params.get("patch", 256)
        P = self.P
        n = params.get("random", 1000)
        if self.quick:
            n = min(n, 200)
        if params.get("case", "random") == "random":
            rng = np.random.default_rng(params.get("seed", 1))
            self.locs = np.stack([rng.integers(0, W0 - P, n), rng.integers(0, H0 - P, n)], 1).astype(np.int64)
        else:
            ys, xs = np.meshgrid(np.arange(0, H0 - P + 1, P), np.arange(0, W0 - P + 1, P), indexing="ij")
            g = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.int64)
            cap = params.get("grid_max", 0) or len(g)
            self.locs = g[:min(cap, 256) if self.quick else cap]
        self.peer_locs = self.locs[:params["peer_patches"]] if params.get("peer_patches") else self.locs
        self.size = (W0, H0)
        self._peers = {}

    def peer(self, key, make):
        if key not in self._peers:
            self._peers[key] = make()
        return self._peers[key]


def run_pool(fn, locs, threads):
    locs = [tuple(int(v) for v in loc) for loc in locs]
    if threads == 1:
        for loc in locs:
            fn(loc)
    else:
        with cf.ThreadPoolExecutor(threads) as ex:
            list(ex.map(fn, locs, chunksize=16))
    return len(locs)


# ---- per-patch reads (bench_slide) -------------------------------------------------------------


def per_patch(nocache):
    def run(m, d):
        P, im, th = d.P, d.im, d.threads
        return run_pool(lambda loc: im.read_region(loc, (P, P), 0, num_workers=1, nocache=nocache), d.locs, th)
    return run


def openslide_patches(m, d):
    import openslide   # noqa: PLC0415

    def make():
        osr = openslide.OpenSlide(d.path)
        try:
            osr.set_cache(openslide.OpenSlideCache(0))
        except Exception:  # noqa: BLE001 (older openslide-python)
            pass
        return osr
    osr = d.peer("openslide-nocache", make)
    return run_pool(lambda loc: osr.read_region(loc, 0, (d.P, d.P)), d.peer_locs, d.threads)


def tiffslide_patches(m, d):
    import tiffslide   # noqa: PLC0415
    tsr = d.peer("tiffslide", lambda: tiffslide.TiffSlide(d.path))
    return run_pool(lambda loc: tsr.read_region(loc, 0, (d.P, d.P), as_array=True), d.peer_locs, d.threads)


def decode_ceiling(m, d):
    """Exactly the tiles each patch touches, pread and decoded by libjpeg-turbo (imagecodecs)."""
    import imagecodecs   # noqa: PLC0415
    import tifffile   # noqa: PLC0415

    def make():
        with tifffile.TiffFile(d.path) as tf:
            page = tf.pages[0]
            return (page.dataoffsets, page.databytecounts, page.jpegtables,
                    (page.imagewidth + d.tile - 1) // d.tile, open(d.path, "rb"))
    offs, counts, tables, across, fh = d.peer("ceiling", make)
    fd, t, P = fh.fileno(), d.tile, d.P

    def one(loc):
        x, y = loc
        for ty in range(y // t, (y + P - 1) // t + 1):
            for tx in range(x // t, (x + P - 1) // t + 1):
                k = ty * across + tx
                imagecodecs.jpeg8_decode(os.pread(fd, counts[k], offs[k]), tables=tables)
    return run_pool(one, d.locs, d.threads)


def batch_loader(m, d):
    """fovea's batch API: one read_region over every location, its own decode threads."""
    import fovea   # noqa: PLC0415
    fovea.cache().clear()
    return sum(len(b) for b in d.im.read_region(d.locs, (d.P, d.P), 0, num_workers=d.threads, batch_size=64))


class ThreadsInputs(SlideInputs):
    def __init__(self, xp, shape, dtype, params):
        super().__init__(xp, shape, dtype, params)
        self.threads = params["threads"] or CORES


def whole_level(m, d):
    lvl = min(2, d.im.resolutions["level_count"] - 1)
    a = d.im.read_region((0, 0), None, lvl, num_workers=d.threads, nocache=True)
    return a.shape[0] * a.shape[1]


def whole_level_tifffile(m, d):
    import tifffile   # noqa: PLC0415
    lvl = min(2, d.im.resolutions["level_count"] - 1)
    b = tifffile.imread(d.path, key=lvl, maxworkers=d.threads)
    return b.shape[0] * b.shape[1]


SLIDE_SHAPES = {"cpu": {"default": ["16k"], "quick": ["2k"], "big": ["50k"]}}


def slide_cases():
    out = []
    for th in (1, 0):   # 0: every core
        label = "all cores" if th == 0 else "1 thread"
        out.append(Case(f"random 256^2 patches, per-patch calls, {label}", per_patch(True),
                        {"cpu": ["fovea:cache-on", "fovea:batch-loader", "openslide", "tiffslide",
                                 "libjpeg-turbo:ceiling"]},
                        calls={"fovea:cache-on": per_patch(False), "fovea:batch-loader": batch_loader,
                               "openslide": openslide_patches, "tiffslide": tiffslide_patches,
                               "libjpeg-turbo:ceiling": decode_ceiling},
                        params={"threads": th, "random": 4000, "patch": 256, "seed": 0}, kind="throughput",
                        devices=("cpu",)))
        out.append(Case(f"whole level 2, {label}", whole_level, {"cpu": ["tifffile"]},
                        calls={"tifffile": whole_level_tifffile}, params={"threads": th, "random": 1},
                        kind="throughput", devices=("cpu",)))
    return out


SLIDE = Suite("slide", "whole-slide reads: random patches and whole levels", slide_cases(),
              inputs=ThreadsInputs, shapes=SLIDE_SHAPES, slide=True,
              note="per-patch calls from a Python thread pool (one patch a task); fovea = cache off; "
                   "libjpeg-turbo:ceiling decodes exactly the tiles each patch touches")


# ---- the batch loader (bench_loader) -----------------------------------------------------------


def fovea_loader(m, d):
    import fovea   # noqa: PLC0415
    fovea.cache().clear()
    n = 0
    for b in d.im.read_region(d.locs, (d.P, d.P), 0, num_workers=d.threads, batch_size=BATCH,
                              prefetch_factor=PREFETCH):
        n += b.shape[0]
    return n


_LOC_FORMS = [lambda a: [(int(x), int(y)) for x, y in a], lambda a: np.ascontiguousarray(a),
              lambda a: np.ascontiguousarray(a.reshape(-1)), lambda a: [int(v) for v in a.reshape(-1)]]
_CUCIM_FORM = []


def cucim_batches(im, locs, size, workers, **kw):
    """cuCIM's batched read; the location form its binding accepts is found once and kept."""
    arr = np.asarray(locs, dtype=np.int64)
    last = None
    for k in (_CUCIM_FORM or range(len(_LOC_FORMS))):
        try:
            it = im.read_region(_LOC_FORMS[k](arr), size, 0, num_workers=workers, batch_size=BATCH,
                                prefetch_factor=PREFETCH, **kw)
        except (TypeError, ValueError) as e:
            last = e
            continue
        if not _CUCIM_FORM:
            _CUCIM_FORM.append(k)
        return it
    raise last


def cucim_loader(m, d):
    from cucim import CuImage   # noqa: PLC0415
    im = d.peer("cucim", lambda: CuImage(d.path))
    return sum(np.asarray(b).shape[0] for b in cucim_batches(im, d.locs, (d.P, d.P), d.threads))


_proc_slide = None


def _proc_init(path):
    global _proc_slide
    import tiffslide   # noqa: PLC0415
    _proc_slide = tiffslide.TiffSlide(path)


def _proc_read(args):
    (x, y), size = args
    return _proc_slide.read_region((x, y), 0, size, as_array=True)


def _proc_ready(_):
    _proc_slide.read_region((0, 0), 0, (16, 16), as_array=True)
    time.sleep(0.05)   # keep this worker busy so that every worker gets one
    return os.getpid()


def tiffslide_processes(m, d):
    """A process pool of `threads` processes (started and warmed on the first call, which
    the runner's warm-up makes); patches come back pickled, as DataLoader workers send them."""
    import tiffslide   # noqa: F401,PLC0415 (missing: reported)

    def make():
        ex = cf.ProcessPoolExecutor(d.threads, initializer=_proc_init, initargs=(d.path,))
        list(ex.map(_proc_ready, range(d.threads * 2)))
        return ex
    ex = d.peer("tiffslide-proc", make)
    return sum(1 for _ in ex.map(_proc_read, [((int(x), int(y)), (d.P, d.P)) for x, y in d.peer_locs],
                                 chunksize=16))


def loader_cases():
    out = []
    for kind, patch, extra in (("grid", 256, {"grid_max": 0}), ("random", 224, {"random": 10000})):
        for w in sorted({1, 2, 4, 8, 16, CORES}):
            peers = ["cucim", "openslide", "tiffslide"] + (["tiffslide-proc"] if w > 1 else [])
            out.append(Case(f"{kind} {patch}^2 patches, {w} workers", fovea_loader, {"cpu": peers},
                            calls={"cucim": cucim_loader, "openslide": openslide_patches,
                                   "tiffslide": tiffslide_patches, "tiffslide-proc": tiffslide_processes},
                            params={"threads": w, "case": kind, "patch": patch, "peer_patches": 3000, **extra},
                            kind="throughput", devices=("cpu",), big=w not in (1, CORES)))
    return out


LOADER = Suite("loader", "batch loader (training patches)", loader_cases(), inputs=ThreadsInputs,
               shapes={"cpu": {"default": ["24k"], "quick": ["2k"], "big": ["50k"]}}, slide=True,
               note="fovea / cuCIM: read_region(locations, batch_size=64, prefetch_factor=2, num_workers=W); "
                    "openslide / tiffslide: a pool of W threads (tiffslide-proc: W processes), one patch a task, "
                    "at most 3000 patches")


# ---- reads into GPU memory (bench_gpu_io) -------------------------------------------------------


def gpu_read_stats(reset=False):
    from fovea import _fovea   # noqa: PLC0415
    fn = getattr(_fovea, "gpu_read_stats", None)
    try:
        return fn(reset=reset) if fn else None
    except Exception:  # noqa: BLE001
        return None


def fovea_gpu(m, d):
    import fovea   # noqa: PLC0415
    fovea.cache().clear()
    fovea.gpu_cache(clear=True)
    gpu_read_stats(reset=True)
    n = 0
    for b in d.im.read_region(d.locs, (d.P, d.P), 0, batch_size=BATCH, num_workers=d.threads,
                              prefetch_factor=PREFETCH, device="cuda"):
        n += b.shape[0]
    import cupy   # noqa: PLC0415
    cupy.cuda.Device().synchronize()
    st = gpu_read_stats(reset=True)
    extra = {}
    if st is not None:
        extra = {k: st.get(k, 0) for k in ("tiles_gpu", "tiles_cpu", "bytes_read", "io_s", "decode_s",
                                           "assemble_s", "regions")}
        if extra["decode_s"] > 0:
            extra["decode_gp_per_s"] = extra["tiles_gpu"] * d.tile * d.tile / 1e9 / extra["decode_s"]
    return n, extra


def fovea_cpu_copy(m, d):
    import cupy as cp   # noqa: PLC0415
    import fovea   # noqa: PLC0415
    fovea.cache().clear()
    n = 0
    for b in d.im.read_region(d.locs, (d.P, d.P), 0, batch_size=BATCH, num_workers=CORES,
                              prefetch_factor=PREFETCH):
        n += cp.asarray(b).shape[0]
    return n


def cucim_gpu(m, d):
    import cupy as cp   # noqa: PLC0415
    from cucim import CuImage   # noqa: PLC0415
    im = d.peer("cucim", lambda: CuImage(d.path))
    return sum(cp.asarray(b).shape[0] for b in cucim_batches(im, d.locs, (d.P, d.P), d.threads, device="cuda"))


class TorchvisionDecode:
    """torchvision.io.decode_jpeg on the GPU over the tiles the patches touch (read from the
    file beforehand, not timed; JPEGTables spliced in front of each tile), 64 per call."""

    def __init__(self, path, locs, size, tile):
        import tifffile   # noqa: PLC0415
        import torch   # noqa: PLC0415
        from torchvision.io import decode_jpeg   # noqa: PLC0415
        if not torch.cuda.is_available():
            raise RuntimeError("torch has no CUDA")
        self.torch, self.decode_jpeg, self.size = torch, decode_jpeg, size
        with tifffile.TiffFile(path) as tf:
            page = tf.pages[0]
            offs, counts, tables = page.dataoffsets, page.databytecounts, page.jpegtables or b""
            self.tw, self.th = page.tilewidth, page.tilelength
            self.across = -(-page.imagewidth // page.tilewidth)
            down = -(-page.imagelength // page.tilelength)
        self.batches = []
        for b0 in range(0, len(locs), BATCH):
            order, seen = [], set()
            for x, y in locs[b0:b0 + BATCH]:
                for ty in range(max(0, y // tile), min(down - 1, (y + size - 1) // tile) + 1):
                    for tx in range(max(0, x // tile), min(self.across - 1, (x + size - 1) // tile) + 1):
                        t = ty * self.across + tx
                        if t not in seen:
                            seen.add(t)
                            order.append(t)
            self.batches.append(([(int(x), int(y)) for x, y in locs[b0:b0 + BATCH]], order))
        t = tables[:-2] if tables[-2:] == b"\xff\xd9" else tables
        self.data = {}
        with open(path, "rb") as f:
            for k in sorted({k for _, o in self.batches for k in o}):
                raw = os.pread(f.fileno(), int(counts[k]), int(offs[k]))
                raw = (t + raw[2:]) if t and raw[:2] == b"\xff\xd8" else raw
                self.data[k] = torch.frombuffer(bytearray(raw), dtype=torch.uint8)
        self.ntiles = sum(len(o) for _, o in self.batches)

    def _decode(self, order):
        out = []
        for k in range(0, len(order), BATCH):
            out += self.decode_jpeg([self.data[t] for t in order[k:k + BATCH]], device="cuda")
        return out

    def decode_only(self):
        n = 0
        for locs, order in self.batches:
            self._decode(order)
            n += len(locs)
        self.torch.cuda.synchronize()
        return n, {"tiles": self.ntiles}

    def decode_stitch(self):
        P, tw, th, n = self.size, self.tw, self.th, 0
        for locs, order in self.batches:
            dec = {t: x.permute(1, 2, 0) for t, x in zip(order, self._decode(order))}
            out = self.torch.empty((len(locs), P, P, 3), dtype=self.torch.uint8, device="cuda")
            for i, (x, y) in enumerate(locs):
                for ty in range(y // th, (y + P - 1) // th + 1):
                    for tx in range(x // tw, (x + P - 1) // tw + 1):
                        t = dec[ty * self.across + tx]
                        x0, y0 = max(x, tx * tw), max(y, ty * th)
                        x1, y1 = min(x + P, (tx + 1) * tw), min(y + P, (ty + 1) * th)
                        out[i, y0 - y:y1 - y, x0 - x:x1 - x] = t[y0 - ty * th:y1 - ty * th, x0 - tx * tw:x1 - tx * tw]
            n += out.shape[0]
        self.torch.cuda.synchronize()
        return n


def _tv(d):
    return d.peer("torchvision", lambda: TorchvisionDecode(d.path, d.locs, d.P, d.tile))


def gpu_io_cases():
    out = []
    for kind, patch, extra in (("random", 224, {"random": 4000}), ("grid", 256, {"grid_max": 1024})):
        for w in (1, 4, 8, 16):
            first = w == 4
            peers = ["fovea:cpu+copy", "torchvision:decode", "torchvision:decode+stitch", "cucim"] if first \
                else ["cucim"]
            out.append(Case(f"{kind} {patch}^2 patches into GPU memory, {w} workers", fovea_gpu, {"gpu": peers},
                            calls={"fovea:cpu+copy": fovea_cpu_copy, "cucim": cucim_gpu,
                                   "torchvision:decode": lambda m, d: _tv(d).decode_only(),
                                   "torchvision:decode+stitch": lambda m, d: _tv(d).decode_stitch()},
                            params={"threads": w, "case": kind, "patch": patch, **extra}, kind="throughput",
                            devices=("gpu",), big=w in (8, 16)))
    return out


GPU_IO = Suite("gpu_io", "patch reads into GPU memory", gpu_io_cases(), inputs=ThreadsInputs,
               shapes={"gpu": {"default": ["8k"], "quick": ["2k"], "big": ["16k"]}}, slide=True,
               note="fovea / cuCIM: read_region(..., device=\"cuda\"), batches of 64; fovea:cpu+copy: the CPU "
                    "path on every core and cupy.asarray of each batch; torchvision: nvJPEG decode_jpeg of the "
                    "tiles the patches touch (host reads not timed), alone and with the crop/stitch into batches")


# ---- file to GPU (bench_filesystem) --------------------------------------------------------------


class FileInputs:
    def __init__(self, xp, shape, dtype, params):
        import tempfile   # noqa: PLC0415
        mib = 64 if params.get("quick") else params.get("mib", 2048)
        self.nbytes = mib << 20
        fd, self.path = tempfile.mkstemp(prefix="fovea-bench-", suffix=".bin")
        os.close(fd)
        rng = np.random.default_rng(0)
        with open(self.path, "wb") as fp:
            left = self.nbytes
            while left:
                n = min(64 << 20, left)
                fp.write(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
                left -= n
        os.sync()
        self.dst = xp.empty(self.nbytes, dtype=np.uint8)
        self.host = np.empty(self.nbytes, dtype=np.uint8)
        self.cold = params["cold"]

    def __del__(self):
        try:
            os.unlink(self.path)
        except OSError:
            pass


def drop_cache(d):
    from fovea import filesystem as fs   # noqa: PLC0415
    if d.cold:
        fs.discard_page_cache(d.path)


def fovea_file(flags, cufile=None):
    def run(m, d):
        from fovea import filesystem as fs   # noqa: PLC0415
        old = os.environ.get("FOVEA_CUFILE")
        if cufile:
            os.environ["FOVEA_CUFILE"] = cufile
        try:
            with fs.open(d.path, flags) as f:
                return f.pread(d.dst, d.nbytes, 0)
        finally:
            if cufile:
                os.environ.pop("FOVEA_CUFILE", None) if old is None else os.environ.__setitem__("FOVEA_CUFILE", old)
    return run


def naive_file(m, d):
    fd = os.open(d.path, os.O_RDONLY)
    try:
        got, view = 0, memoryview(d.host)
        while got < d.nbytes:
            n = os.preadv(fd, [view[got:]], got)
            if n == 0:
                break
            got += n
    finally:
        os.close(fd)
    if hasattr(d.dst, "set"):
        d.dst.set(d.host)   # cudaMemcpy from pageable memory
    return got


def cucim_file(flags):
    def run(m, d):
        from cucim.clara import filesystem as cfs   # noqa: PLC0415
        f = cfs.open(d.path, flags)
        try:
            return f.pread(d.dst, d.nbytes, 0)
        finally:
            f.close()
    return run


def fs_cases():
    out = []
    for cold in (True, False):
        label = "cold (page cache dropped)" if cold else "warm (page cache)"
        out.append(Case(f"read file, {label}", fovea_file("rn"),
                        {dev: ["fovea:r", "fovea:r-cufile-compat", "naive-preadv", "cucim:r", "cucim:rn"]
                         for dev in ("cpu", "gpu")},
                        calls={"fovea:r": fovea_file("r"), "fovea:r-cufile-compat": fovea_file("r", "compat"),
                               "naive-preadv": naive_file, "cucim:r": cucim_file("r"), "cucim:rn": cucim_file("rn")},
                        params={"cold": cold}, kind="throughput", prepare=drop_cache))
    return out


FILESYSTEM = Suite("filesystem", "file reads (fovea.filesystem.pread, 2 GiB)", fs_cases(), inputs=FileInputs,
                   slide=True, note="fovea = flags 'rn' (page cache, pinned staging on the GPU); items are bytes")


# ---- the demo pipeline (bench_demo) -------------------------------------------------------------


class DemoInputs:
    def __init__(self, xp, shape, dtype, params):
        import fovea   # noqa: PLC0415
        from fovea import demo   # noqa: PLC0415
        self.device = "cuda" if xp is not np else "cpu"
        self.path = demo.default_slide_path()
        if not os.path.exists(self.path):
            demo.sample_slide(self.path)
        self.slide = fovea.open(self.path)
        W, H = self.slide.resolutions["level_dimensions"][0]
        ps = self.ps = 512
        grid = [(x * ps, y * ps) for y in range(H // ps) for x in range(W // ps)]
        n = 16 if params.get("quick") else params["patches"]
        rng = np.random.default_rng(1)
        self.locs = np.array([grid[i] for i in rng.integers(0, len(grid), n)], np.int64)
        self.batch = params["batch"]


def demo_fovea(m, d):
    from fovea import demo   # noqa: PLC0415
    labels = []
    batches = d.slide.read_region(d.locs, (d.ps, d.ps), 0, device=d.device, num_workers=4, batch_size=d.batch)
    try:
        for batch in batches:
            labels += [lab for lab, _ in demo.analyse_batch(batch)]
    finally:
        batches.close()
    if d.device == "cuda":
        import cupy   # noqa: PLC0415
        cupy.cuda.Device().synchronize()
    d.last = labels
    return len(d.locs)


def demo_skimage(m, d):
    """fovea.demo.reference_patch in a pool of os.cpu_count() processes, one patch a task."""
    from fovea import demo   # noqa: PLC0415
    ref, _ = demo.run_reference(d.path, d.locs, d.ps)
    same, iou, _, _ = demo.agreement(getattr(d, "last", []), [x[0] for x in ref]) if getattr(d, "last", None) \
        else (None, None, None, None)
    return len(d.locs), {"same_patches": same, "foreground_iou": iou}


DEMO = Suite("demo", "the demo pipeline (fovea demo)", [
    Case("demo pipeline, 512^2 patches, batches of 16", demo_fovea,
         {"cpu": ["skimage:processes"], "gpu": ["skimage:processes"]}, calls={"skimage:processes": demo_skimage},
         params={"patches": 128, "batch": 16}, kind="throughput"),
], inputs=DemoInputs, slide=True, note="rgb2hed, Gaussian, Otsu, opening, remove_small_objects, EDT, h-maxima, "
                                       "label, watershed, regionprops_table per patch; scikit-image in a pool of "
                                       "one process per core")

SUITES = [SLIDE, LOADER, GPU_IO, FILESYSTEM, DEMO]
