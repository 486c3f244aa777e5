"""Training-loader benchmark: patches/s of batched patch reading, by worker count.

Uses the slide bench/bench_slide.py writes (same make_slide, same default path): a
SIZE x SIZE tiled JPEG pyramid (256 x 256 tiles, q=90). Two cases:
  (a) grid:   every 256 x 256 patch of level 0 on a 256-pixel grid (row-major; cap with
              --max-patches for quick runs),
  (b) random: 10,000 random 224 x 224 patches of level 0 (seeded),
at 1, 2, 4, 8, 16 workers, for:
  fovea      CuImage.read_region(locations, size, 0, num_workers=W, batch_size=64,
             prefetch_factor=2) -> iterator of (N, H, W, 3) NumPy batches (the C batch
             loader; default per-process tile cache, cleared before every run)
  cucim      cucim.CuImage(path).read_region(locations, size, 0, num_workers=W,
             batch_size=64, prefetch_factor=2) (each batch taken with np.asarray;
             cuCIM's default cache); skipped with the reason when cucim does not import
  openslide  openslide-python, a thread pool of W threads, one read_region per patch
             (PIL RGBA, not converted; OpenSlide's default cache)
  tiffslide  tiffslide (as_array=True), a thread pool of W threads, and (W > 1) a
             process pool of W processes (the slide opened once per process; the pool is
             started and warmed before timing; patches come back to the parent pickled,
             as DataLoader workers send them)
Only the reading is timed (handles opened, pools started, one patch read before).

    python bench/bench_loader.py [--size 50000] [--workers 1,2,4,8,16] [--max-patches N]
                                 [--random 10000] [--peer-patches N] [--readers fovea,cucim,...]

Prints one table per case: reader, workers, patches, seconds, patches/s, ratio vs fovea
(fovea's patches/s / the reader's, at the same worker count) and scaling efficiency
(patches/s at W / (W x patches/s at 1 worker), for fovea and every peer).
--peer-patches caps the patches the slower peers (openslide, tiffslide) read per
measurement, so a full-size run fits in minutes; patches/s stays comparable.
"""
import argparse
import concurrent.futures as cf
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_slide import make_slide  # noqa: E402

import fovea  # noqa: E402

BATCH = 64
PREFETCH = 2


# ---- readers: each returns a function (locs, size, workers) -> patches read ----------------------


def fovea_reader(path):
    im = fovea.CuImage(path)

    def run(locs, size, workers):
        fovea.cache().clear()
        n = 0
        for b in im.read_region(locs, size, 0, num_workers=workers, batch_size=BATCH, prefetch_factor=PREFETCH):
            n += b.shape[0]
        return n

    im.read_region((0, 0), (16, 16), 0)
    return run


def cucim_reader(path):
    from cucim import CuImage  # noqa: PLC0415

    im = CuImage(path)
    kw = {"prefetch_factor": PREFETCH}

    def run(locs, size, workers):
        n = 0
        size = tuple(int(v) for v in size)
        arr = np.asarray(locs, dtype=np.int64)
        # the location forms cuCIM's binding may accept, tried in order (the first that works is kept)
        forms = [lambda: [(int(x), int(y)) for x, y in arr], lambda: np.ascontiguousarray(arr),
                 lambda: np.ascontiguousarray(arr.reshape(-1)), lambda: [int(v) for v in arr.reshape(-1)]]
        if "form" in kw:
            forms = [forms[kw["form"]]]
        last = None
        for k, make in enumerate(forms):
            try:
                opts = {key: v for key, v in kw.items() if key != "form"}
                it = im.read_region(make(), size, 0, num_workers=workers, batch_size=BATCH, **opts)
                if "form" not in kw:
                    kw["form"] = k
                break
            except (TypeError, ValueError) as e:
                last = e
        else:
            raise last
        for b in it:
            n += np.asarray(b).shape[0]
        return n

    np.asarray(im.read_region((0, 0), (16, 16), 0))
    return run


def _thread_pool(read_one):
    def run(locs, size, workers):
        locs = [tuple(int(v) for v in l) for l in locs]
        if workers == 1:
            for l in locs:
                read_one(l, size)
        else:
            with cf.ThreadPoolExecutor(workers) as ex:
                for _ in ex.map(lambda l: read_one(l, size), locs, chunksize=16):
                    pass
        return len(locs)

    return run


def openslide_reader(path):
    import openslide  # noqa: PLC0415

    osr = openslide.OpenSlide(path)
    osr.read_region((0, 0), 0, (16, 16))
    return _thread_pool(lambda l, size: osr.read_region(l, 0, size))


def tiffslide_reader(path):
    import tiffslide  # noqa: PLC0415

    tsr = tiffslide.TiffSlide(path)
    tsr.read_region((0, 0), 0, (16, 16), as_array=True)
    return _thread_pool(lambda l, size: tsr.read_region(l, 0, size, as_array=True))


_proc_slide = None


def _proc_init(path):
    global _proc_slide
    import tiffslide  # noqa: PLC0415

    _proc_slide = tiffslide.TiffSlide(path)


def _proc_read(args):
    (x, y), size = args
    return _proc_slide.read_region((x, y), 0, size, as_array=True)


def _proc_ready(_):
    _proc_slide.read_region((0, 0), 0, (16, 16), as_array=True)
    time.sleep(0.05)   # keep this worker busy so that every worker gets one
    return os.getpid()


class TiffslideProcesses:
    """A process pool per worker count, started and warmed outside the timing."""

    def __init__(self, path):
        import tiffslide  # noqa: F401,PLC0415 (fail here when absent)

        self.path = path
        self.pools = {}

    def __call__(self, locs, size, workers):
        ex = self.pools.get(workers)
        if ex is None:
            ex = cf.ProcessPoolExecutor(workers, initializer=_proc_init, initargs=(self.path,))
            list(ex.map(_proc_ready, range(workers * 2)))
            self.pools[workers] = ex
        t0 = time.perf_counter()
        n = 0
        for _ in ex.map(_proc_read, [((int(x), int(y)), size) for x, y in locs], chunksize=16):
            n += 1
        self.elapsed = time.perf_counter() - t0
        return n

    def close(self):
        for ex in self.pools.values():
            ex.shutdown()


# ---- main -------------------------------------------------------------------------------------


def main():
    global BATCH
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=50000)
    ap.add_argument("--tile", type=int, default=256)
    ap.add_argument("--quality", type=int, default=90)
    ap.add_argument("--path", default=None)
    ap.add_argument("--workers", default="1,2,4,8,16")
    ap.add_argument("--max-patches", type=int, default=0, help="cap case (a) (0: all)")
    ap.add_argument("--random", type=int, default=10000, help="patches in case (b)")
    ap.add_argument("--peer-patches", type=int, default=0,
                    help="cap on the patches openslide and tiffslide read per measurement (0: no cap)")
    ap.add_argument("--readers", default="fovea,cucim,openslide,tiffslide,tiffslide-proc")
    ap.add_argument("--cases", default="grid,random")
    ap.add_argument("--batch-size", type=int, default=BATCH, help="batch_size of the batched readers")
    args = ap.parse_args()
    BATCH = args.batch_size

    path = args.path or f"/tmp/fovea-bench-{args.size}-{args.tile}-q{args.quality}.tif"
    if not os.path.exists(path):
        make_slide(path, args.size, args.tile, args.quality, np.random.default_rng(0))
    with open(path, "rb") as f:      # into the page cache, so that no reader pays the first read
        while f.read(1 << 24):
            pass
    im = fovea.CuImage(path)
    W0, H0 = im.resolutions["level_dimensions"][0]
    workers = [int(w) for w in args.workers.split(",")]

    cases = {}
    if "grid" in args.cases:
        P = 256
        ys, xs = np.meshgrid(np.arange(0, H0 - P + 1, P), np.arange(0, W0 - P + 1, P), indexing="ij")
        g = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.int64)
        if args.max_patches:
            g = g[:args.max_patches]
        cases[f"(a) grid: all {P}x{P} patches of level 0" + (" (capped)" if args.max_patches else "")] = (g, P)
    if "random" in args.cases:
        P = 224
        rng = np.random.default_rng(1)
        r = np.stack([rng.integers(0, W0 - P, args.random), rng.integers(0, H0 - P, args.random)], 1)
        cases[f"(b) random: {args.random} {P}x{P} patches of level 0"] = (r.astype(np.int64), P)

    wanted = args.readers.split(",")
    makers = {"fovea": fovea_reader, "cucim": cucim_reader, "openslide": openslide_reader,
              "tiffslide": tiffslide_reader, "tiffslide-proc": TiffslideProcesses}
    readers = {}
    versions = [f"fovea {fovea.__version__}"]
    for name in wanted:
        if name not in makers:
            sys.exit(f"unknown reader {name!r} (known: {', '.join(makers)})")
        try:
            readers[name] = makers[name](path)
        except Exception as e:  # noqa: BLE001
            print(f"# {name} unavailable: {type(e).__name__}: {e}")
            continue
        mod = {"tiffslide-proc": "tiffslide"}.get(name, name)
        v = getattr(sys.modules.get(mod), "__version__", None)
        if name != "fovea" and v and mod == name:
            versions.append(f"{mod} {v}")
    print(f"# bench_loader {time.strftime('%Y-%m-%d')}; {os.cpu_count()} cores; {path} "
          f"({W0}x{H0}); batch_size {BATCH}, prefetch_factor {PREFETCH}; {', '.join(versions)}")

    for title, (locs, P) in cases.items():
        print(f"\n## {title}")
        print(f"{'reader':16s} {'workers':>7s} {'patches':>8s} {'seconds':>8s} {'patches/s':>10s} "
              f"{'vs fovea':>9s} {'scaling':>8s}")
        rate = {}
        for w in workers:
            for name, run in readers.items():
                if name == "tiffslide-proc" and w == 1:
                    continue
                sub = locs
                if args.peer_patches and name in ("openslide", "tiffslide", "tiffslide-proc"):
                    sub = locs[:args.peer_patches]
                try:
                    t0 = time.perf_counter()
                    n = run(sub, (P, P), w)
                    t = getattr(run, "elapsed", None) if name == "tiffslide-proc" else None
                    t = t if t is not None else time.perf_counter() - t0
                except Exception as e:  # noqa: BLE001
                    print(f"{name:16s} {w:7d}  failed: {type(e).__name__}: {e}")
                    continue
                if n != len(sub):
                    print(f"# {name} returned {n} patches for {len(sub)} locations")
                rate[(name, w)] = n / t
                base = rate.get(("fovea", w))
                one = rate.get((name, 1)) or (rate.get(("tiffslide", 1)) if name == "tiffslide-proc" else None)
                vs = f"{base / rate[(name, w)]:9.2f}" if base else f"{'-':>9s}"
                sc = f"{rate[(name, w)] / (w * one):8.2f}" if one else f"{'-':>8s}"
                print(f"{name:16s} {w:7d} {n:8d} {t:8.2f} {n / t:10.0f} {vs} {sc}", flush=True)
    for run in readers.values():
        if hasattr(run, "close"):
            run.close()
    print("\n# vs fovea: fovea's patches/s / the reader's (same workers); scaling: patches/s at W / "
          "(W x patches/s at 1) (tiffslide-proc against tiffslide's 1 thread)")


if __name__ == "__main__":
    main()
