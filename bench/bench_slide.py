"""Whole-slide read benchmark (issue 3): random 256x256 patches and whole-level reads.

Writes (once) a tiled JPEG pyramid with tifffile: SIZE x SIZE pixels, 256x256 tiles,
quality 90, tissue-like content (crops of scikit-image's immunohistochemistry image,
flipped/rotated/tinted per tile; a procedural texture when scikit-image is absent).
Then, in one run, compares on the same patch list:
  fovea (CuImage face, cache off and on), openslide-python, tiffslide
at 1 thread and at all cores (a thread pool of that many threads, one patch per
task), fovea's batch loader (one read_region call over the whole patch list, its own
decode threads: the API a training pipeline uses), the libjpeg-turbo decode ceiling (imagecodecs decoding exactly the tiles the
patches touch, same threads, nothing else), and a whole-level read vs tifffile.

    python bench/bench_slide.py [--size 50000] [--patches 4000] [--threads 1,16]
Prints a table; ratio = peer time / fovea time.
"""
import argparse
import concurrent.futures as cf
import os
import time

import numpy as np

import fovea


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


def run_pool(fn, locs, threads):
    t0 = time.perf_counter()
    if threads == 1:
        for loc in locs:
            fn(loc)
    else:
        with cf.ThreadPoolExecutor(threads) as ex:
            list(ex.map(fn, locs, chunksize=16))
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=50000)
    ap.add_argument("--tile", type=int, default=256)
    ap.add_argument("--quality", type=int, default=90)
    ap.add_argument("--patches", type=int, default=4000)
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}")
    ap.add_argument("--path", default=None)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    path = args.path or f"/tmp/fovea-bench-{args.size}-{args.tile}-q{args.quality}.tif"
    if not os.path.exists(path):
        make_slide(path, args.size, args.tile, args.quality, rng)
    P = 256
    locs = [tuple(int(v) for v in rng.integers(0, args.size - P, 2)) for _ in range(args.patches)]
    threads = [int(t) for t in args.threads.split(",")]
    print(f"# bench_slide {time.strftime('%Y-%m-%d')} fovea {fovea.__version__}; {os.cpu_count()} cores; "
          f"{args.patches} random {P}x{P} patches from {path}")

    import tifffile
    import imagecodecs
    readers = {}
    fv = fovea.CuImage(path)

    def fovea_read(nocache):
        def f(loc):
            return fv.read_region(loc, (P, P), 0, num_workers=1, nocache=nocache)
        return f

    readers["fovea (cache off)"] = lambda: fovea_read(True)
    readers["fovea (cache on)"] = lambda: fovea_read(False)
    try:
        import openslide
        osr = openslide.OpenSlide(path)
        try:
            osr.set_cache(openslide.OpenSlideCache(0))
        except Exception:
            pass
        readers["openslide"] = lambda: (lambda loc: osr.read_region(loc, 0, (P, P)))
    except Exception as e:  # noqa: BLE001
        print(f"# openslide unavailable: {e}")
    try:
        import tiffslide
        tsr = tiffslide.TiffSlide(path)
        readers["tiffslide"] = lambda: (lambda loc: tsr.read_region(loc, 0, (P, P), as_array=True))
    except Exception as e:  # noqa: BLE001
        print(f"# tiffslide unavailable: {e}")

    # the decode ceiling: exactly the tiles each patch touches, decoded by libjpeg-turbo
    with tifffile.TiffFile(path) as tf:
        page = tf.pages[0]
        offs, counts, tables = page.dataoffsets, page.databytecounts, page.jpegtables
        across = (page.imagewidth + args.tile - 1) // args.tile
    fh = open(path, "rb")
    fd = fh.fileno()

    def patch_tiles(loc):
        x, y = loc
        return [ty * across + tx for ty in range(y // args.tile, (y + P - 1) // args.tile + 1)
                for tx in range(x // args.tile, (x + P - 1) // args.tile + 1)]

    def ceiling(loc):
        for t in patch_tiles(loc):
            data = os.pread(fd, counts[t], offs[t])
            imagecodecs.jpeg8_decode(data, tables=tables)

    def batch_loader(th):
        """fovea's batch API: one read_region call for every location, th decode
        threads (the loader's own), batches of 64; the per-process cache cleared first"""
        fovea.cache().clear()
        t0 = time.perf_counter()
        n = sum(len(b) for b in fv.read_region(locs, (P, P), 0, num_workers=th, batch_size=64))
        assert n == len(locs)
        return time.perf_counter() - t0

    print(f"{'reader':22s} {'threads':>7s} {'seconds':>8s} {'patches/s':>10s} {'vs fovea':>9s}")
    results = {}
    for th in threads:
        t_ceiling = run_pool(ceiling, locs, th)
        for name, mk in readers.items():
            fn = mk()
            fn(locs[0])
            results[(name, th)] = run_pool(fn, locs, th)
        results[("fovea batch loader", th)] = batch_loader(th)
        base = results[("fovea (cache off)", th)]
        for name in list(readers) + ["fovea batch loader"]:
            t = results[(name, th)]
            print(f"{name:22s} {th:7d} {t:8.2f} {len(locs) / t:10.0f} {t / base:9.2f}")
        print(f"{'decode ceiling':22s} {th:7d} {t_ceiling:8.2f} {len(locs) / t_ceiling:10.0f} "
              f"{t_ceiling / base:9.2f}   (fovea at {100 * t_ceiling / base:.0f}% of the ceiling)")

    # whole-level read vs tifffile (same worker count)
    lvl = min(2, fv.resolutions["level_count"] - 1)
    for th in threads:
        t0 = time.perf_counter()
        a = fv.read_region((0, 0), None, lvl, num_workers=th, nocache=True)
        t_fv = time.perf_counter() - t0
        t0 = time.perf_counter()
        b = tifffile.imread(path, key=lvl, maxworkers=th)
        t_tf = time.perf_counter() - t0
        same = a.shape == b.shape and float(np.abs(a.astype(np.int16) - b).mean()) < 1
        print(f"whole level {lvl} {a.shape[1]}x{a.shape[0]}: threads {th}: fovea {t_fv:.2f} s, tifffile {t_tf:.2f} s, "
              f"ratio {t_tf / t_fv:.2f}, pixels match: {same}")
    fh.close()


if __name__ == "__main__":
    main()
