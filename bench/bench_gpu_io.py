"""GPU read benchmark (issue "GPU I/O"): patches/s INTO GPU MEMORY.

Uses the slide bench/bench_slide.py writes (same make_slide, same default path
pattern): a SIZE x SIZE tiled JPEG pyramid, 256 x 256 tiles, q=90, YCbCr 4:2:0 tiles
(tifffile's JPEG). Two cases on level 0:
  random: N random 224 x 224 patches (seeded, default 10 000),
  grid:   every 256 x 256 patch on the 256-pixel grid (row-major; --grid-max caps it),
batch size 64, for:
  fovea cuda   CuImage.read_region(locations, size, 0, batch_size=64, num_workers=W,
               prefetch_factor=2, device="cuda") -> CuPy batches (N, H, W, 3) (host and
               device tile caches cleared before each run), W in --workers
  (a) cpu+copy fovea's CPU path on all cores (num_workers = os.cpu_count()) and
               cupy.asarray of every batch
  (b) tv       torchvision.io.decode_jpeg(list of 64 tile tensors, device="cuda") on the
               tiles the patches touch: per batch of 64 patches, its distinct tiles, read
               from the file with tifffile's offsets beforehand (host I/O NOT timed; the
               JPEGTables, when the file has them, spliced in front of each tile), decoded
               64 at a time; reported as tiles/s, GP/s and the equivalent patches/s
               (decode only), and patches/s with the crop/stitch of every patch from its
               decoded tiles into a (64, H, W, 3) batch on the GPU (torch slicing) included
  (c) cucim    cucim.CuImage(path).read_region(locations, size, 0, batch_size=64,
               num_workers=W, device="cuda") -> cp.asarray of every batch; skipped, with the
               reason, when cucim does not import or the call fails
fovea's own counters (fovea._fovea.gpu_read_stats, where the build has them) give the
GPU decode throughput (GP/s of tiles nvJPEG decoded over the decode seconds) and the
time in host I/O (summed over threads), GPU decode and GPU assembly.

Timing: everything is warmed up first (a short run of each configuration), the clock
stops after a device synchronize, each measurement is the median of --repeats runs
(fewer when one run is long: see --budget). Ratio "vs fovea" = peer seconds / fovea
seconds for the same patches (fovea's best worker count; > 1: fovea is faster).

    python bench/bench_gpu_io.py [--size 16384] [--random 10000] [--grid-max 0]
                                 [--workers 1,4,8,16] [--repeats 3] [--budget 240]
                                 [--readers fovea,cpu,torchvision,cucim] [--json out.json]

Runs without a GPU too (every GPU measurement is skipped with the reason).
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_slide import make_slide  # noqa: E402

import fovea  # noqa: E402
from fovea import _fovea  # noqa: E402

BATCH = 64
PREFETCH = 2
T_START = time.perf_counter()


# ---- helpers --------------------------------------------------------------------------------------


def gpu_reason():
    """None when fovea sees a usable GPU and CuPy imports; else why not."""
    if not fovea.gpu_available():
        return "no usable GPU: " + (fovea.config().get("cuda", {}).get("reason") or "CUDA is unavailable")
    try:
        import cupy  # noqa: F401,PLC0415
    except Exception as e:  # noqa: BLE001
        return f"cupy does not import: {type(e).__name__}: {e}"
    return None


def read_stats(reset=False):
    fn = getattr(_fovea, "gpu_read_stats", None)
    if fn is None:
        return None
    try:
        return fn(reset=reset)
    except Exception:  # noqa: BLE001
        return None


def sync():
    cp = sys.modules.get("cupy")
    if cp is not None:
        cp.cuda.Device().synchronize()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


class Budget:
    def __init__(self, seconds):
        self.seconds = seconds

    def left(self):
        return self.seconds - (time.perf_counter() - T_START)


def measure(fn, repeats, budget, long_run=8.0):
    """Median seconds of fn() (which returns (patches, extra)) over up to `repeats` runs,
    after one warm-up done by the caller; stops repeating when a run is long or the
    budget is spent. Returns (median seconds, patches, [extra of the median run], runs)."""
    runs = []
    for k in range(repeats):
        sync()
        t0 = time.perf_counter()
        n, extra = fn()
        sync()
        runs.append((time.perf_counter() - t0, n, extra))
        if runs[-1][0] > long_run or budget.left() < 3 * runs[-1][0]:
            break
    runs.sort(key=lambda r: r[0])
    med = runs[(len(runs) - 1) // 2]
    return med[0], med[1], med[2], len(runs)


def tiles_of(locs, size, tile, across, down):
    """Tile indices (row-major) each patch touches: a list of lists."""
    out = []
    for x, y in locs:
        tx0, ty0 = max(0, x // tile), max(0, y // tile)
        tx1, ty1 = min(across - 1, (x + size - 1) // tile), min(down - 1, (y + size - 1) // tile)
        out.append([ty * across + tx for ty in range(ty0, ty1 + 1) for tx in range(tx0, tx1 + 1)])
    return out


def plan_batches(locs, size, tile, across, down):
    """Per batch of BATCH patches: (its locations, its distinct tiles in first-use order)."""
    per_patch = tiles_of(locs, size, tile, across, down)
    out = []
    for b0 in range(0, len(locs), BATCH):
        order, seen = [], set()
        for ts in per_patch[b0:b0 + BATCH]:
            for t in ts:
                if t not in seen:
                    seen.add(t)
                    order.append(t)
        out.append((locs[b0:b0 + BATCH], order))
    return out


def splice(tables, tile):
    """JPEGTables (SOI tables EOI) + an abbreviated tile (SOI ...): one decodable stream."""
    if not tables:
        return tile
    t = tables[:-2] if tables[-2:] == b"\xff\xd9" else tables
    return t + (tile[2:] if tile[:2] == b"\xff\xd8" else tile)


# ---- readers ---------------------------------------------------------------------------------------


def fovea_gpu_run(im, locs, size, workers):
    def run():
        fovea.cache().clear()
        fovea.gpu_cache(clear=True)
        n = 0
        last = None
        for b in im.read_region(locs, (size, size), 0, batch_size=BATCH, num_workers=workers,
                                prefetch_factor=PREFETCH, device="cuda"):
            n += b.shape[0]
            last = b
        del last
        return n, None

    return run


def fovea_cpu_copy_run(im, locs, size, workers, cp):
    def run():
        fovea.cache().clear()
        n = 0
        for b in im.read_region(locs, (size, size), 0, batch_size=BATCH, num_workers=workers,
                                prefetch_factor=PREFETCH):
            if cp is not None:
                b = cp.asarray(b)
            n += b.shape[0]
        return n, None

    return run


class TorchvisionDecode:
    """torchvision.io.decode_jpeg on the GPU over the tiles the patches touch."""

    def __init__(self, path, locs, size, tile):
        import tifffile  # noqa: PLC0415
        import torch  # noqa: PLC0415
        import torchvision  # noqa: PLC0415
        from torchvision.io import decode_jpeg  # noqa: PLC0415

        if not torch.cuda.is_available():
            raise RuntimeError("torch has no CUDA")
        self.torch, self.decode_jpeg = torch, decode_jpeg
        self.version = torchvision.__version__
        with tifffile.TiffFile(path) as tf:
            page = tf.pages[0]
            offs, counts = page.dataoffsets, page.databytecounts
            tables = page.jpegtables or b""
            self.tile_w, self.tile_h = page.tilewidth, page.tilelength
            across = -(-page.imagewidth // page.tilewidth)
            down = -(-page.imagelength // page.tilelength)
        self.size = size
        self.across = across
        self.batches = plan_batches(locs, size, tile, across, down)
        needed = {t for _, order in self.batches for t in order}
        # the compressed tiles, read once (not timed), as CPU uint8 tensors
        self.data = {}
        with open(path, "rb") as f:
            fd = f.fileno()
            for t in sorted(needed):
                raw = splice(tables, os.pread(fd, int(counts[t]), int(offs[t])))
                self.data[t] = torch.frombuffer(bytearray(raw), dtype=torch.uint8)
        self.ntiles = sum(len(o) for _, o in self.batches)
        self.stream_bytes = sum(self.data[t].numel() for _, o in self.batches for t in o)

    def _decode(self, order):
        """The tiles of order decoded on the GPU, 64 per decode_jpeg call: (3, h, w) tensors."""
        out = []
        for k in range(0, len(order), BATCH):
            out += self.decode_jpeg([self.data[t] for t in order[k:k + BATCH]], device="cuda")
        return out

    def _hwc(self, t):
        return t.permute(1, 2, 0)

    def _empty(self, shape):
        return self.torch.empty(shape, dtype=self.torch.uint8, device="cuda")

    def decode_only(self):
        torch = self.torch
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        n = 0
        for locs, order in self.batches:
            dec = self._decode(order)
            n += len(locs)
            del dec
        stop.record()
        stop.synchronize()
        return n, start.elapsed_time(stop) / 1e3

    def stitch(self, locs, order):
        """One (len(locs), P, P, 3) batch cut from the decoded tiles of order."""
        P, tw, th = self.size, self.tile_w, self.tile_h
        dec = {t: self._hwc(d) for t, d in zip(order, self._decode(order))}
        out = self._empty((len(locs), P, P, 3))
        for i, (x, y) in enumerate(locs):
            for ty in range(y // th, (y + P - 1) // th + 1):
                for tx in range(x // tw, (x + P - 1) // tw + 1):
                    t = dec[ty * self.across + tx]          # (th, tw, 3)
                    x0, y0 = max(x, tx * tw), max(y, ty * th)
                    x1, y1 = min(x + P, (tx + 1) * tw), min(y + P, (ty + 1) * th)
                    out[i, y0 - y:y1 - y, x0 - x:x1 - x] = t[y0 - ty * th:y1 - ty * th, x0 - tx * tw:x1 - tx * tw]
        return out

    def decode_stitch(self):
        n = 0
        for locs, order in self.batches:
            n += self.stitch(locs, order).shape[0]
        return n, None


def cucim_open(path):
    from cucim import CuImage  # noqa: PLC0415

    return CuImage(path)


_CUCIM_FORM = []


def cucim_run(im, locs, size, workers):
    """cuCIM's batched read on the GPU; the location form its binding accepts is found
    once (a list of pairs, an (n, 2) array, a flat array, a flat list) and kept."""
    import cupy as cp  # noqa: PLC0415

    arr = np.asarray(locs, dtype=np.int64)
    forms = [lambda: [(int(x), int(y)) for x, y in arr], lambda: np.ascontiguousarray(arr),
             lambda: np.ascontiguousarray(arr.reshape(-1)), lambda: [int(v) for v in arr.reshape(-1)]]

    def start():
        last = None
        for k in (_CUCIM_FORM or range(len(forms))):
            try:
                it = im.read_region(forms[k](), (size, size), 0, batch_size=BATCH, num_workers=workers,
                                    prefetch_factor=PREFETCH, device="cuda")
            except (TypeError, ValueError) as e:
                last = e
                continue
            if not _CUCIM_FORM:
                _CUCIM_FORM.append(k)
            return it
        raise last

    def run():
        n = 0
        for b in start():
            n += cp.asarray(b).shape[0]
        return n, None

    run.start = start
    return run


def cucim_run_batches(im, locs, size, workers):
    return cucim_run(im, locs, size, workers).start()


def first_batch_diff(a, b):
    """Mean and max absolute difference of two (N, H, W, 3) batches (any device)."""
    def host(x):
        if hasattr(x, "get"):
            return x.get()
        if hasattr(x, "cpu"):
            return x.cpu().numpy()
        return np.asarray(x)
    a, b = host(a).astype(np.int16), host(b).astype(np.int16)
    if a.shape != b.shape:
        return None
    d = np.abs(a - b)
    return float(d.mean()), int(d.max())


# ---- main ------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=16384, help="slide size (default 16384: a 5-minute run)")
    ap.add_argument("--tile", type=int, default=256)
    ap.add_argument("--quality", type=int, default=90)
    ap.add_argument("--path", default=None)
    ap.add_argument("--random", type=int, default=10000, help="random 224 x 224 patches")
    ap.add_argument("--grid-max", type=int, default=0, help="cap on the 256 grid's patches (0: all)")
    ap.add_argument("--cases", default="random,grid")
    ap.add_argument("--workers", default="1,4,8,16", help="fovea's and cuCIM's num_workers")
    ap.add_argument("--readers", default="fovea,cpu,torchvision,cucim")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budget", type=float, default=240.0,
                    help="seconds for the whole run; later measurements are skipped once spent")
    ap.add_argument("--json", default=None, help="write the results here")
    args = ap.parse_args()
    budget = Budget(args.budget)
    cores = os.cpu_count() or 1
    workers = [w for w in (int(v) for v in args.workers.split(",")) if w >= 0]
    readers = set(args.readers.split(","))

    path = args.path or f"/tmp/fovea-bench-{args.size}-{args.tile}-q{args.quality}.tif"
    if not os.path.exists(path):
        make_slide(path, args.size, args.tile, args.quality, np.random.default_rng(0))
    with open(path, "rb") as f:   # into the page cache: nobody pays the first read
        while f.read(1 << 24):
            pass
    im = fovea.CuImage(path)
    W0, H0 = im.resolutions["level_dimensions"][0]
    tile = im.resolutions["level_tile_sizes"][0][0]

    reason = gpu_reason()
    cp = None
    if reason is None:
        import cupy as cp  # noqa: PLC0415
    gpu_name = ""
    if cp is not None:
        try:
            gpu_name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode()
        except Exception:  # noqa: BLE001
            pass
    nv = fovea.config().get("nvjpeg")
    nv_s = "n/a (no 'nvjpeg' in fovea.config())" if nv is None else \
        (f"available, backend {nv.get('backend')}" if nv.get("available") else f"unavailable: {nv.get('reason')}")
    versions = [f"fovea {fovea.__version__}"]
    if cp is not None:
        versions.append(f"cupy {cp.__version__}")
    print(f"# bench_gpu_io {time.strftime('%Y-%m-%d %H:%M')}; {platform.node()}; {cores} cores; "
          f"GPU: {gpu_name or reason}; nvJPEG: {nv_s}")
    print(f"# {path} ({W0}x{H0}, tiles {tile}); batch_size {BATCH}, prefetch_factor {PREFETCH}; "
          f"median of up to {args.repeats} runs; budget {args.budget:.0f} s")
    if read_stats() is None:
        print("# fovea._fovea.gpu_read_stats: n/a in this build (no decode/IO/assembly breakdown)")

    cases = []
    if "random" in args.cases:
        P = 224
        rng = np.random.default_rng(1)
        r = np.stack([rng.integers(0, W0 - P, args.random), rng.integers(0, H0 - P, args.random)], 1)
        cases.append(("random", f"{args.random} random {P}x{P} patches", r.astype(np.int64), P))
    if "grid" in args.cases:
        P = 256
        ys, xs = np.meshgrid(np.arange(0, H0 - P + 1, P), np.arange(0, W0 - P + 1, P), indexing="ij")
        g = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.int64)
        if args.grid_max:
            g = g[:args.grid_max]
        cases.append(("grid", f"{len(g)} grid {P}x{P} patches", g, P))

    results = []

    def record(case, reader, w, secs, n, runs, **extra):
        row = dict(case=case, reader=reader, workers=w, patches=n, seconds=secs,
                   patches_per_s=n / secs if secs else None, runs=runs, **extra)
        results.append(row)
        return row

    def skip(case, reader, why):
        print(f"  {reader:28s} skipped: {why}")
        results.append(dict(case=case, reader=reader, skipped=why))

    tv_state = {"error": None, "version": None}
    cucim_state = {"error": None, "version": None}

    for key, title, locs, P in cases:
        print(f"\n## {title} (level 0) into GPU memory")
        print(f"  {'reader':28s} {'workers':>7s} {'patches':>8s} {'seconds':>8s} {'patches/s':>10s} "
              f"{'vs fovea':>9s}  notes")
        rows = []
        # fovea's CPU read of the first batch: every GPU reader's first batch is checked against it
        ref = next(iter(im.read_region(locs[:BATCH], (P, P), 0, batch_size=BATCH)))

        def check(batch):
            d = first_batch_diff(batch, ref)
            return "pixels: shape differs" if d is None else f"first batch vs fovea cpu: mad {d[0]:.2f}, max {d[1]}"

        # -- fovea on the GPU
        if "fovea" in readers:
            if reason:
                skip(key, "fovea cuda", reason)
            else:
                for w in workers:
                    if budget.left() <= 0:
                        skip(key, f"fovea cuda w{w}", "time budget spent")
                        continue
                    run = fovea_gpu_run(im, locs, P, w)
                    fovea_gpu_run(im, locs[:min(len(locs), 4 * BATCH)], P, w)()   # warm-up
                    read_stats(reset=True)
                    secs, n, _, nr = measure(run, args.repeats, budget)
                    st = read_stats(reset=True)
                    extra = {}
                    note = ""
                    if st is not None:
                        per = {k: st.get(k, 0) / nr for k in ("tiles_gpu", "tiles_cpu", "bytes_read", "io_s",
                                                               "decode_s", "assemble_s", "regions")}
                        extra["gpu_read_stats_per_run"] = per
                        gp = per["tiles_gpu"] * tile * tile / 1e9
                        dec = f"{gp / per['decode_s']:.2f} GP/s" if per["decode_s"] > 0 else "n/a"
                        extra["decode_gp_per_s"] = gp / per["decode_s"] if per["decode_s"] > 0 else None
                        note = (f"decode {dec}; tiles gpu/cpu {per['tiles_gpu']:.0f}/{per['tiles_cpu']:.0f}; "
                                f"of {secs:.2f} s: io {per['io_s']:.2f} s (summed over threads), "
                                f"decode {per['decode_s']:.2f} s, assemble {per['assemble_s']:.2f} s")
                    else:
                        note = "gpu_read_stats n/a"
                    if w == workers[0]:
                        note = check(next(iter(im.read_region(locs[:BATCH], (P, P), 0, batch_size=BATCH,
                                                              num_workers=w, device="cuda")))) + "; " + note
                    rows.append((record(key, "fovea cuda", w, secs, n, nr, **extra), note))

        # -- (a) fovea's CPU path on every core + cupy.asarray
        if "cpu" in readers:
            if budget.left() <= 0:
                skip(key, "(a) fovea cpu + cupy.asarray", "time budget spent")
            else:
                label = "(a) fovea cpu + cupy.asarray" if cp is not None else "(a) fovea cpu (host only)"
                fovea_cpu_copy_run(im, locs[:min(len(locs), 4 * BATCH)], P, cores, cp)()
                secs, n, _, nr = measure(fovea_cpu_copy_run(im, locs, P, cores, cp), args.repeats, budget)
                rows.append((record(key, label, cores, secs, n, nr, copied=cp is not None),
                             "" if cp is not None else f"no copy: {reason}"))

        # -- (b) torchvision's nvJPEG batch decode of the same tiles
        if "torchvision" in readers:
            why = reason or tv_state["error"]
            tv = None
            if not why and budget.left() <= 0:
                why = "time budget spent"
            if not why:
                try:
                    tv = TorchvisionDecode(path, [(int(x), int(y)) for x, y in locs], P, tile)
                    tv_state["version"] = tv.version
                    tv.decode_only()   # warm-up (nvJPEG handles, allocations)
                except Exception as e:  # noqa: BLE001
                    why = tv_state["error"] = f"{type(e).__name__}: {e}"
            if why:
                skip(key, "(b) torchvision decode_jpeg", why)
            else:
                ev = []

                def dec_only():
                    n, gpu_s = tv.decode_only()
                    ev.append(gpu_s)
                    return n, gpu_s

                secs, n, gpu_s, nr = measure(dec_only, args.repeats, budget)
                tps = tv.ntiles / secs
                gps = tv.ntiles * tv.tile_w * tv.tile_h / secs / 1e9
                rows.append((record(key, "(b) torchvision decode only", 1, secs, n, nr, tiles=tv.ntiles,
                                    tiles_per_s=tps, gp_per_s=gps, cuda_event_s=gpu_s,
                                    compressed_bytes=tv.stream_bytes),
                             f"{tv.ntiles} tiles: {tps:.0f} tiles/s, {gps:.2f} GP/s (events {gpu_s:.3f} s); "
                             f"host reads not timed"))
                if budget.left() > 0:
                    tv.decode_stitch()
                    secs, n, _, nr = measure(tv.decode_stitch, args.repeats, budget)
                    rows.append((record(key, "(b) torchvision decode+stitch", 1, secs, n, nr, tiles=tv.ntiles),
                                 "decode + crop/stitch into (64, H, W, 3) batches by torch slicing; "
                             + check(tv.stitch(*tv.batches[0]))))
                del tv

        # -- (c) cuCIM on the GPU
        if "cucim" in readers:
            why = reason or cucim_state["error"]
            if not why:
                try:
                    import cucim  # noqa: PLC0415
                    cucim_state["version"] = getattr(cucim, "__version__", "?")
                except Exception as e:  # noqa: BLE001
                    why = cucim_state["error"] = f"cucim does not import: {type(e).__name__}: {e}"
            if why:
                skip(key, "(c) cucim cuda", why)
            else:
                for w in workers:
                    if budget.left() <= 0:
                        skip(key, f"(c) cucim cuda w{w}", "time budget spent")
                        continue
                    try:
                        cim = cucim_open(path)
                        cucim_run(cim, locs[:min(len(locs), 4 * BATCH)], P, w)()   # warm-up
                        secs, n, _, nr = measure(cucim_run(cim, locs, P, w), args.repeats, budget)
                    except Exception as e:  # noqa: BLE001
                        cucim_state["error"] = f"{type(e).__name__}: {e}"
                        skip(key, f"(c) cucim cuda w{w}", cucim_state["error"])
                        break
                    note = ""
                    if w == workers[0]:
                        try:
                            import cupy  # noqa: PLC0415
                            first = next(iter(cucim_run_batches(cim, locs[:BATCH], P, w)))
                            note = check(cupy.asarray(first))
                        except Exception as e:  # noqa: BLE001
                            note = f"pixels not checked: {type(e).__name__}: {e}"
                    rows.append((record(key, "(c) cucim cuda", w, secs, n, nr), note))

        # -- the table
        fv = [r for r, _ in rows if r["reader"] == "fovea cuda"]
        best = min(fv, key=lambda r: r["seconds"] / r["patches"]) if fv else None
        for r, note in rows:
            vs = "-"
            if best is not None and r is not best and r["reader"] != "fovea cuda":
                vs = f"{(r['seconds'] / r['patches']) / (best['seconds'] / best['patches']):.2f}"
                r["vs_fovea"] = float(vs)
            elif r is best:
                vs = "best"
            print(f"  {r['reader']:28s} {r['workers']:7d} {r['patches']:8d} {r['seconds']:8.3f} "
                  f"{r['patches_per_s']:10.0f} {vs:>9s}  {note}", flush=True)

    print(f"\n# vs fovea: the peer's seconds per patch / fovea cuda's (its best worker count); > 1: fovea "
          f"is faster. Total {time.perf_counter() - T_START:.0f} s.")
    if args.json:
        out = dict(date=time.strftime("%Y-%m-%d %H:%M:%S"), host=platform.node(), cores=cores, gpu=gpu_name,
                   gpu_skip_reason=reason, nvjpeg=nv, path=path, size=[W0, H0], tile=tile, batch_size=BATCH,
                   prefetch_factor=PREFETCH, args=vars(args), versions=dict(
                       fovea=fovea.__version__, cupy=getattr(cp, "__version__", None),
                       torchvision=tv_state["version"], cucim=cucim_state["version"]),
                   results=results)
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, default=float)
        print(f"# wrote {args.json}")


if __name__ == "__main__":
    main()
