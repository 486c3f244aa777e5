"""Benchmark of fovea.ndimage and fovea.skimage.{filters,morphology} against peers.

GPU (CuPy and a GPU present): fovea on CuPy arrays vs cupyx.scipy.ndimage and cuCIM
(cucim.skimage) on the same device, timed with CUDA events after a warm-up, the
median of several runs over three rotating input buffers (so the L2 cache is not
what is measured); separable filters also report the fraction of the measured
device-to-device copy bandwidth. CPU: fovea on NumPy arrays (all cores, and one
core in a child process with FOVEA_NUM_THREADS=1) vs scipy.ndimage / scikit-image.

ratio = peer time / fovea time (> 1: fovea is faster). One table per suite, then a
summary with the medians the issue's targets are stated in.

    python bench/bench_ndimage.py [--gpu] [--cpu] [--shapes 4k,8k,3d] [--dtypes float32,uint8]
                                  [--only REGEX] [--budget 0.3] [--json FILE]
    python bench/bench_ndimage.py --summarize A.json B.json ...   (one summary over runs made in parts,
                                  e.g. one device call per shape)
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

SHAPES = {"4k": (2160, 3840), "8k": (8192, 8192), "3d": (256, 256, 256), "1k": (1024, 1024)}
SLOW = 1.0   # seconds: a warm-up call slower than this gets one timed run, not the minimum of several
SEPARABLE = {"gaussian_filter", "uniform_filter", "minimum_filter(size)", "maximum_filter(size)",
             "gaussian_filter1d", "uniform_filter1d", "correlate1d", "sobel", "prewitt"}


class Mods:
    """The modules one library offers under the names the cases use."""

    def __init__(self, ndi=None, filters=None, morph=None):
        self.ndi, self.filters, self.morph = ndi, filters, morph


def case_table():
    """(name, family, min_ndim, max_ndim, dtypes or None, call(m, d)) where d holds the inputs."""
    C = []

    def add(name, fam, fn, lo=1, hi=3, dtypes=None):
        C.append((name, fam, lo, hi, dtypes, fn))

    # scipy.ndimage filters
    add("correlate(5^n)", "ndi", lambda m, d: m.ndi.correlate(d.x, d.w5))
    add("convolve(5^n)", "ndi", lambda m, d: m.ndi.convolve(d.x, d.w5))
    add("correlate1d(9)", "ndi", lambda m, d: m.ndi.correlate1d(d.x, d.w9, axis=0))
    add("convolve1d(9)", "ndi", lambda m, d: m.ndi.convolve1d(d.x, d.w9, axis=-1))
    add("gaussian_filter", "ndi", lambda m, d: m.ndi.gaussian_filter(d.x, 2.0))
    add("gaussian_filter1d", "ndi", lambda m, d: m.ndi.gaussian_filter1d(d.x, 2.0, axis=0))
    add("gaussian_gradient_magnitude", "ndi", lambda m, d: m.ndi.gaussian_gradient_magnitude(d.x, 2.0))
    add("gaussian_laplace", "ndi", lambda m, d: m.ndi.gaussian_laplace(d.x, 2.0))
    add("laplace", "ndi", lambda m, d: m.ndi.laplace(d.x))
    add("sobel", "ndi", lambda m, d: m.ndi.sobel(d.x, axis=0))
    add("prewitt", "ndi", lambda m, d: m.ndi.prewitt(d.x, axis=-1))
    add("uniform_filter", "ndi", lambda m, d: m.ndi.uniform_filter(d.x, 5))
    add("uniform_filter1d", "ndi", lambda m, d: m.ndi.uniform_filter1d(d.x, 9, axis=0))
    add("minimum_filter(size)", "ndi", lambda m, d: m.ndi.minimum_filter(d.x, 5))
    add("maximum_filter(size)", "ndi", lambda m, d: m.ndi.maximum_filter(d.x, 5))
    add("minimum_filter1d", "ndi", lambda m, d: m.ndi.minimum_filter1d(d.x, 9, axis=0))
    add("maximum_filter1d", "ndi", lambda m, d: m.ndi.maximum_filter1d(d.x, 9, axis=-1))
    add("maximum_filter(cross)", "ndi", lambda m, d: m.ndi.maximum_filter(d.x, footprint=d.cross))
    add("median_filter(3)", "ndi", lambda m, d: m.ndi.median_filter(d.x, 3))
    add("median_filter(5)", "ndi", lambda m, d: m.ndi.median_filter(d.x, 5), hi=2)
    add("rank_filter(3,-2)", "ndi", lambda m, d: m.ndi.rank_filter(d.x, -2, 3))
    add("percentile_filter(3,25)", "ndi", lambda m, d: m.ndi.percentile_filter(d.x, 25, 3))
    # scipy.ndimage morphology
    add("binary_erosion", "ndi", lambda m, d: m.ndi.binary_erosion(d.b))
    add("binary_dilation", "ndi", lambda m, d: m.ndi.binary_dilation(d.b))
    add("binary_opening", "ndi", lambda m, d: m.ndi.binary_opening(d.b))
    add("binary_closing", "ndi", lambda m, d: m.ndi.binary_closing(d.b))
    add("binary_erosion(iter=5)", "ndi", lambda m, d: m.ndi.binary_erosion(d.b, iterations=5))
    add("binary_fill_holes", "ndi", lambda m, d: m.ndi.binary_fill_holes(d.b), hi=2)
    add("binary_hit_or_miss", "ndi", lambda m, d: m.ndi.binary_hit_or_miss(d.b))
    add("binary_propagation", "ndi", lambda m, d: m.ndi.binary_propagation(d.seed, mask=d.b), hi=2)
    add("grey_erosion(size)", "ndi", lambda m, d: m.ndi.grey_erosion(d.x, size=5))
    add("grey_dilation(footprint)", "ndi", lambda m, d: m.ndi.grey_dilation(d.x, footprint=d.cross))
    add("grey_opening(size)", "ndi", lambda m, d: m.ndi.grey_opening(d.x, size=5))
    add("grey_closing(size)", "ndi", lambda m, d: m.ndi.grey_closing(d.x, size=5))
    add("morphological_gradient", "ndi", lambda m, d: m.ndi.morphological_gradient(d.x, size=3))
    add("morphological_laplace", "ndi", lambda m, d: m.ndi.morphological_laplace(d.x, size=3))
    add("white_tophat", "ndi", lambda m, d: m.ndi.white_tophat(d.x, size=5))
    add("black_tophat", "ndi", lambda m, d: m.ndi.black_tophat(d.x, size=5))
    add("distance_transform_edt", "ndi", lambda m, d: m.ndi.distance_transform_edt(d.b))
    add("distance_transform_cdt", "ndi", lambda m, d: m.ndi.distance_transform_cdt(d.b), hi=2)
    # skimage.filters
    add("gaussian", "skf", lambda m, d: m.filters.gaussian(d.x, sigma=2))
    add("sobel(sk)", "skf", lambda m, d: m.filters.sobel(d.x))
    add("prewitt(sk)", "skf", lambda m, d: m.filters.prewitt(d.x))
    add("scharr", "skf", lambda m, d: m.filters.scharr(d.x))
    add("farid", "skf", lambda m, d: m.filters.farid(d.x), hi=2)
    add("roberts", "skf", lambda m, d: m.filters.roberts(d.x), lo=2, hi=2)
    add("laplace(sk)", "skf", lambda m, d: m.filters.laplace(d.x))
    add("median(sk)", "skf", lambda m, d: m.filters.median(d.x, behavior="ndimage"))
    add("unsharp_mask", "skf", lambda m, d: m.filters.unsharp_mask(d.x, radius=2))
    add("difference_of_gaussians", "skf", lambda m, d: m.filters.difference_of_gaussians(d.x, 1, 3))
    add("gabor", "skf", lambda m, d: m.filters.gabor(d.x, 0.2), lo=2, hi=2)
    add("hessian", "skf", lambda m, d: m.filters.hessian(d.x, sigmas=[1, 2]), hi=2)
    add("frangi", "skf", lambda m, d: m.filters.frangi(d.x, sigmas=[1, 2]), hi=2)
    add("sato", "skf", lambda m, d: m.filters.sato(d.x, sigmas=[1, 2]), hi=2)
    add("meijering", "skf", lambda m, d: m.filters.meijering(d.x, sigmas=[1, 2]), hi=2)
    add("correlate_sparse", "skf", lambda m, d: m.filters.correlate_sparse(d.x, d.sparse), hi=2)
    # skimage.morphology
    add("erosion(disk3)", "skm", lambda m, d: m.morph.erosion(d.x, d.disk), hi=2)
    add("dilation(disk3)", "skm", lambda m, d: m.morph.dilation(d.x, d.disk), hi=2)
    add("opening(disk3)", "skm", lambda m, d: m.morph.opening(d.x, d.disk), hi=2)
    add("closing(disk3)", "skm", lambda m, d: m.morph.closing(d.x, d.disk), hi=2)
    add("white_tophat(disk3)", "skm", lambda m, d: m.morph.white_tophat(d.x, d.disk), hi=2)
    add("black_tophat(disk3)", "skm", lambda m, d: m.morph.black_tophat(d.x, d.disk), hi=2)
    add("binary_erosion(sk)", "skm", lambda m, d: m.morph.binary_erosion(d.b, d.disk), hi=2)
    add("binary_dilation(sk)", "skm", lambda m, d: m.morph.binary_dilation(d.b, d.disk), hi=2)
    add("isotropic_erosion", "skm", lambda m, d: m.morph.isotropic_erosion(d.b, 4))
    add("isotropic_dilation", "skm", lambda m, d: m.morph.isotropic_dilation(d.b, 4))
    add("reconstruction", "skm", lambda m, d: m.morph.reconstruction(d.xseed, d.xf), hi=2)
    add("h_maxima", "skm", lambda m, d: m.morph.h_maxima(d.xs, 0.1 * d.top), hi=2)
    add("local_maxima", "skm", lambda m, d: m.morph.local_maxima(d.xs), hi=2)
    add("thin", "skm", lambda m, d: m.morph.thin(d.b2), lo=2, hi=2)
    add("medial_axis", "skm", lambda m, d: m.morph.medial_axis(d.b2), lo=2, hi=2)
    return C


class Inputs:
    """Random (never constant) inputs of one shape and dtype, in `xp`, three copies of x to rotate."""

    def __init__(self, xp, shape, dtype, rng, ndi_ref):
        nd = len(shape)
        if np.dtype(dtype).kind == "f":
            host = rng.random(shape, dtype=np.float32).astype(dtype)
            top = 1.0
        else:
            host = rng.integers(0, 256, shape, dtype=np.uint8).astype(dtype)
            top = 255.0
        self.top = top
        # smooth-ish image so that binaries have structure (holes, objects), not salt noise
        sm = ndi_ref.uniform_filter(host.astype(np.float32), 7)
        b_host = sm > np.float32(0.5 * top)
        self.xs_host = np.round(ndi_ref.gaussian_filter(host.astype(np.float32), 3) * (8 / top)).astype(dtype) \
            if np.dtype(dtype).kind != "f" else ndi_ref.gaussian_filter(host, 3)
        self.bufs = [xp.asarray(np.roll(host, i * 7, axis=0)) for i in range(3)]
        self.x = self.bufs[0]
        self.xf = xp.asarray(host.astype(np.float32))
        self.xseed = xp.asarray((host.astype(np.float32) - np.float32(0.2 * top)).clip(0))
        self.xs = xp.asarray(self.xs_host)
        self.b = xp.asarray(b_host)
        self.b2 = self.b if nd == 2 else None
        seed = np.zeros(shape, bool)
        seed[tuple(slice(s // 2 - 2, s // 2 + 2) for s in shape)] = True
        self.seed = xp.asarray(seed)
        self.w5 = xp.asarray(rng.random((5,) * nd))
        self.w9 = xp.asarray(rng.random(9))
        self.cross = xp.asarray(ndi_ref.generate_binary_structure(nd, 1))
        yy, xx = np.mgrid[-3:4, -3:4]
        self.disk = xp.asarray((yy * yy + xx * xx <= 9).astype(np.uint8)) if nd == 2 else None
        sp = np.zeros((5,) * nd)
        sp[(0,) * nd] = 1
        sp[(4,) * nd] = -1
        sp[(2,) * nd] = 0.5
        self.sparse = xp.asarray(sp)

    def rotate(self, i):
        self.x = self.bufs[i % 3]


def gpu_timer(cp):
    def run(fn, d, budget, min_runs=3, max_runs=25):
        d.rotate(0)
        t0 = time.perf_counter()
        fn()
        cp.cuda.get_current_stream().synchronize()
        if time.perf_counter() - t0 > SLOW:   # a slow peer: one timed run is enough
            min_runs = 1
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        times, t_end = [], time.perf_counter() + budget
        i = 0
        while i < min_runs or (i < max_runs and time.perf_counter() < t_end):
            d.rotate(i + 1)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
            i += 1
        d.rotate(0)
        return statistics.median(times)
    return run


def cpu_timer(fn, d, budget, min_runs=2, max_runs=15):
    d.rotate(0)
    t0 = time.perf_counter()
    fn()
    if time.perf_counter() - t0 > SLOW:
        min_runs = 1
    times, t_end = [], time.perf_counter() + budget
    i = 0
    while i < min_runs or (i < max_runs and time.perf_counter() < t_end):
        d.rotate(i + 1)
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        i += 1
    d.rotate(0)
    return statistics.median(times)


def copy_bandwidth(cp):
    a = cp.empty(1 << 30, cp.uint8)
    b = cp.empty_like(a)
    a.fill(1)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    cp.copyto(b, a)
    times = []
    for _ in range(10):
        start.record()
        cp.copyto(b, a)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    del a, b
    return 2 * (1 << 30) / statistics.median(times)


def applicable(case, shape, dtype):
    name, fam, lo, hi, dtypes, fn = case
    return lo <= len(shape) <= hi and (dtypes is None or dtype in dtypes)


def fmt_t(t):
    return "   -    " if t is None else ("%8.3f" % (t * 1e3))


def fmt_r(r):
    return "   -  " if r is None else "%6.2f" % r


def run_safely(fn):
    try:
        return fn(), None
    except Exception as e:  # a peer lacking a function or an argument form
        return None, "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:80] if str(e) else "")


def gpu_suite(args, cases, rng):
    import cupy as cp
    import cupyx.scipy.ndimage as cndi
    import scipy.ndimage as sndi

    import fovea.ndimage as fndi
    fsk = __import__("fovea.skimage", fromlist=["filters", "morphology"])
    fovea_m = Mods(fndi, fsk.filters, fsk.morphology)
    cupy_m = Mods(cndi)
    try:
        import cucim.skimage.filters as cf
        import cucim.skimage.morphology as cm
        cucim_m = Mods(None, cf, cm)
        try:
            from cucim.skimage._vendored import ndimage as cvndi  # cuCIM's own ndimage copy
            cucim_m.ndi = cvndi
        except Exception:
            pass
    except Exception as e:
        print("cuCIM not available:", e)
        cucim_m = None
    bw = copy_bandwidth(cp)
    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode()
    print("\n## GPU: %s, device-to-device copy %.0f GB/s; times in ms; ratio = peer / fovea" % (dev, bw / 1e9))
    timer = gpu_timer(cp)
    rows = []
    for sname in args.shapes:
        shape = SHAPES[sname]
        for dtype in args.dtypes:
            if len(shape) == 3 and dtype != "float32":
                continue
            d = Inputs(cp, shape, np.dtype(dtype), rng, sndi)
            print("\n### %s %s %s\n" % (sname, "x".join(map(str, shape)), dtype))
            print("| case | fovea ms | CuPy ms | cuCIM ms | vs CuPy | vs cuCIM | bw frac |")
            print("|---|---:|---:|---:|---:|---:|---:|")
            for case in cases:
                name, fam = case[0], case[1]
                if not applicable(case, shape, dtype) or not re.search(args.only, name):
                    continue
                fn = case[5]
                tf, err = run_safely(lambda: timer(lambda: fn(fovea_m, d), d, args.budget))
                if err:
                    print("| %s | error %s | | | | | |" % (name, err))
                    rows.append(dict(suite="gpu", shape=sname, dtype=dtype, case=name, error=err))
                    continue
                tc = tu = None
                if fam == "ndi":
                    tc, _ = run_safely(lambda: timer(lambda: fn(cupy_m, d), d, args.budget))
                if cucim_m is not None and (fam != "ndi" or cucim_m.ndi is not None):
                    tu, _ = run_safely(lambda: timer(lambda: fn(cucim_m, d), d, args.budget))
                frac = None
                if name in SEPARABLE:
                    nbytes = d.x.nbytes
                    frac = 2 * nbytes / tf / bw   # one read + one write of the image
                rc = tc / tf if tc else None
                ru = tu / tf if tu else None
                print("| %s | %s | %s | %s | %s | %s | %s |" % (name, fmt_t(tf), fmt_t(tc), fmt_t(tu), fmt_r(rc),
                                                             fmt_r(ru), "" if frac is None else "%.2f" % frac))
                rows.append(dict(suite="gpu", shape=sname, dtype=dtype, case=name, fovea=tf, cupy=tc, cucim=tu,
                                 vs_cupy=rc, vs_cucim=ru, bw_frac=frac))
                if args.json:   # rows so far: a run cut short by a time limit keeps them
                    with open(args.json, "w") as f:
                        json.dump(rows, f, indent=1)
                cp.get_default_memory_pool().free_all_blocks()
            del d
    return rows, dev, bw


def cpu_suite(args, cases, rng, threads_label):
    import scipy.ndimage as sndi
    import skimage.filters as skf
    import skimage.morphology as skm

    import fovea
    import fovea.ndimage as fndi
    fsk = __import__("fovea.skimage", fromlist=["filters", "morphology"])
    fovea_m = Mods(fndi, fsk.filters, fsk.morphology)
    ref_m = Mods(sndi, skf, skm)
    rows = []
    print("\n## CPU, fovea with %s thread(s) (pool %d) vs scipy / scikit-image (1 thread); ms; ratio = peer / fovea"
          % (threads_label, fovea.num_threads()))
    for sname in args.cpu_shapes:
        shape = SHAPES[sname]
        for dtype in args.dtypes:
            if len(shape) == 3 and dtype != "float32":
                continue
            d = Inputs(np, shape, np.dtype(dtype), rng, sndi)
            print("\n### %s %s %s\n" % (sname, "x".join(map(str, shape)), dtype))
            print("| case | fovea ms | reference ms | ratio |")
            print("|---|---:|---:|---:|")
            for case in cases:
                name = case[0]
                if not applicable(case, shape, dtype) or not re.search(args.only, name):
                    continue
                fn = case[5]
                tf, err = run_safely(lambda: cpu_timer(lambda: fn(fovea_m, d), d, args.budget))
                if err:
                    print("| %s | error %s | | |" % (name, err))
                    rows.append(dict(suite="cpu", threads=threads_label, shape=sname, dtype=dtype, case=name,
                                     error=err))
                    continue
                tr, _ = run_safely(lambda: cpu_timer(lambda: fn(ref_m, d), d, args.budget))
                r = tr / tf if tr else None
                print("| %s | %s | %s | %s |" % (name, fmt_t(tf), fmt_t(tr), fmt_r(r)))
                rows.append(dict(suite="cpu", threads=threads_label, shape=sname, dtype=dtype, case=name, fovea=tf,
                                 ref=tr, ratio=r))
    return rows


def summarize(rows):
    def med(v):
        v = [x for x in v if x]
        return (statistics.median(v), min(v), len(v)) if v else (None, None, 0)

    print("\n## Summary (medians over the cases that ran; the issue's targets in brackets)")
    g = [r for r in rows if r["suite"] == "gpu" and "error" not in r]
    if g:
        for key, tgt in (("vs_cupy", ">= 1.3x, none < 0.9x"), ("vs_cucim", ">= 1.1x, none < 0.9x")):
            m, lo, n = med([r.get(key) for r in g])
            if n:
                worst = min((r for r in g if r.get(key)), key=lambda r: r[key])
                print("- GPU %s: median %.2fx over %d cases, min %.2fx (%s %s %s) [%s]"
                      % (key, m, n, lo, worst["case"], worst["shape"], worst["dtype"], tgt))
        print("\n| shape / dtype | cases | vs CuPy median (min) | vs cuCIM median (min) | fovea >= CuPy |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for sd in sorted({(r["shape"], r["dtype"]) for r in g}, key=lambda t: (list(SHAPES).index(t[0]), t[1])):
            rs = [r for r in g if (r["shape"], r["dtype"]) == sd]
            mc, lc, nc = med([r.get("vs_cupy") for r in rs])
            mu, lu, nu = med([r.get("vs_cucim") for r in rs])
            ge = sum(1 for r in rs if r.get("vs_cupy") and r["vs_cupy"] >= 1)
            f = lambda m, lo: "-" if m is None else "%.2fx (%.2f)" % (m, lo)
            print("| %s %s | %d | %s | %s | %d / %d |" % (sd[0], sd[1], len(rs), f(mc, lc), f(mu, lu), ge, nc))
        low = sorted((r for r in g if min(r.get("vs_cupy") or 9, r.get("vs_cucim") or 9) < 0.9),
                     key=lambda r: min(r.get("vs_cupy") or 9, r.get("vs_cucim") or 9))
        if low:
            print("\nbelow 0.9x: " + "; ".join("%s %s %s %s/%s" % (r["case"], r["shape"], r["dtype"],
                                                             fmt_r(r.get("vs_cupy")).strip(),
                                                             fmt_r(r.get("vs_cucim")).strip()) for r in low))
        fr = [r for r in g if r.get("bw_frac") is not None and r["shape"] == "8k" and r["dtype"] == "float32"]
        for r in fr:
            print("- separable %s on 8192^2 float32: %.0f%% of copy bandwidth [>= 50%%]" % (r["case"],
                                                                                          100 * r["bw_frac"]))
    for label in sorted({r.get("threads") for r in rows if r["suite"] == "cpu"}, key=str):
        c = [r for r in rows if r["suite"] == "cpu" and r.get("threads") == label and "error" not in r]
        m, lo, n = med([r.get("ratio") for r in c])
        if n:
            worst = min((r for r in c if r.get("ratio")), key=lambda r: r["ratio"])
            tgt = ">= 4x" if label != "1" else ">= 1x (no slower)"
            print("- CPU %s thread(s) vs scipy/skimage: median %.2fx over %d cases, min %.2fx (%s %s %s) [%s]"
                  % (label, m, n, lo, worst["case"], worst["shape"], worst["dtype"], tgt))
    errs = [r for r in rows if "error" in r]
    if errs:
        print("- %d fovea errors: %s" % (len(errs), "; ".join("%s/%s/%s: %s" % (r["case"], r["shape"], r["dtype"],
                                                                                 r["error"]) for r in errs[:10])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", action="store_true", help="GPU suite only")
    ap.add_argument("--cpu", action="store_true", help="CPU suite only")
    ap.add_argument("--shapes", default="4k,8k,3d", help="GPU shapes: 4k (2160x3840), 8k (8192^2), 3d (256^3)")
    ap.add_argument("--cpu-shapes", default="4k", help="CPU shapes (scipy on 8k takes minutes per case)")
    ap.add_argument("--dtypes", default="float32,uint8")
    ap.add_argument("--only", default="", help="regex over case names")
    ap.add_argument("--budget", type=float, default=0.25, help="seconds of timed runs per case and library")
    ap.add_argument("--one-thread", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", default="", help="write all rows to this file")
    ap.add_argument("--summarize", nargs="+", metavar="JSON", help="only print the summary of these runs' rows")
    args = ap.parse_args()
    if args.summarize:
        rows = []
        for fn in args.summarize:
            with open(fn) as f:
                rows += json.load(f)
        summarize(rows)
        return
    args.shapes = [s for s in args.shapes.split(",") if s]
    args.cpu_shapes = [s for s in args.cpu_shapes.split(",") if s]
    args.dtypes = [s for s in args.dtypes.split(",") if s]
    rng = np.random.default_rng(7)
    cases = case_table()
    rows = []
    if args.one_thread:   # child: CPU suite with one fovea thread, rows as JSON on the last line
        rows = cpu_suite(args, cases, rng, "1")
        print("ROWS " + json.dumps(rows))
        return
    do_gpu = not args.cpu
    do_cpu = not args.gpu
    if do_gpu:
        try:
            import cupy
            cupy.cuda.runtime.getDeviceCount()
            r, dev, bw = gpu_suite(args, cases, rng)
            rows += r
        except Exception as e:
            print("GPU suite skipped:", type(e).__name__, e)
    if do_cpu:
        rows += cpu_suite(args, cases, rng, str(os.cpu_count()))
        env = dict(os.environ, FOVEA_NUM_THREADS="1")
        child = [sys.executable, __file__, "--one-thread", "--cpu-shapes", ",".join(args.cpu_shapes),
                 "--dtypes", ",".join(args.dtypes), "--only", args.only, "--budget", str(args.budget)]
        p = subprocess.run(child, env=env, capture_output=True, text=True)
        for line in p.stdout.splitlines():
            if line.startswith("ROWS "):
                rows += json.loads(line[5:])
            else:
                print(line)
        if p.returncode:
            print(p.stderr[-2000:])
    summarize(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
