"""Where one call's time goes, for cases of the issue-6 suite (bench_ndimage.py's case
table) on one shape and dtype: on the GPU, fovea vs CuPy / cuCIM.

For each case matching --only:
  event   the suite's measure: CUDA events around one call (median of --n), so a call
          whose host side outlasts its kernels is timed by its host side;
  host    back-to-back calls without a synchronisation, wall time per call;
  kernels the device time of the kernels and copies one call launches (CUPTI through
          torch.profiler), and the CUDA runtime calls it makes (count, host µs) with
          --api.
With --cprofile, fovea's Python functions by own time over --n calls.

With --env NAME=a,b (repeatable), fovea's rows again under each combination of those
environment settings (kernel choices and tuning knobs read per call).

    python bench/probe_calls.py [--shape 4k] [--dtype float32] [--only REGEX] [--n 50] [--api] [--cprofile]
                                [--peers] [--env FOVEA_SEP_ROWVB=4,8,16 ...]
"""
import argparse
import cProfile
import io
import itertools
import os
import pstats
import re
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_ndimage as B  # noqa: E402


def event_times(cp, fn, d, n):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    fn()
    cp.cuda.Device().synchronize()
    ts = []
    for i in range(n):
        d.rotate(i + 1)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        ts.append(cp.cuda.get_elapsed_time(start, stop) * 1e3)
    d.rotate(0)
    return statistics.median(ts)


def host_time(cp, fn, n):
    fn()
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    cp.cuda.Device().synchronize()
    return (t1 - t0) / n * 1e6


def kernels(cp, fn, n, api):
    """(device µs per call, [(name, count per call, µs per call)] of kernels, same of API calls)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.init()
    fn()
    cp.cuda.Device().synchronize()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for _ in range(n):
            fn()
        cp.cuda.Device().synchronize()
    dev, cpu = {}, {}
    for e in prof.events():
        if e.device_type.name == "CUDA":
            us = e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
            t, c = dev.get(e.name[:70], (0.0, 0))
            dev[e.name[:70]] = (t + us, c + 1)
        elif api and e.name.startswith("cu"):
            t, c = cpu.get(e.name, (0.0, 0))
            cpu[e.name] = (t + e.cpu_time_total, c + 1)
    tot = sum(t for t, _ in dev.values()) / n
    rows = lambda m: sorted(((k, c / n, t / n) for k, (t, c) in m.items()), key=lambda r: -r[2])  # noqa: E731
    return tot, rows(dev), rows(cpu)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", default="4k")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--only", default=".")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--api", action="store_true")
    ap.add_argument("--cprofile", action="store_true")
    ap.add_argument("--peers", action="store_true", help="also CuPy / cuCIM")
    ap.add_argument("--env", action="append", default=[], help="NAME=v1,v2,...: fovea under each value")
    args = ap.parse_args()
    sweeps = [(e.split("=", 1)[0], e.split("=", 1)[1].split(",")) for e in args.env]
    combos = [tuple(zip([n for n, _ in sweeps], vals)) for vals in itertools.product(*[v for _, v in sweeps])]
    import cupy as cp
    import cupyx.scipy.ndimage as cndi
    import scipy.ndimage as sndi
    import fovea.ndimage as fndi
    fsk = __import__("fovea.skimage", fromlist=["filters", "morphology"])
    libs = [("fovea", B.Mods(fndi, fsk.filters, fsk.morphology), c) for c in combos]
    if args.peers:
        libs.append(("CuPy", B.Mods(cndi), ()))
        try:
            import cucim.skimage.filters as cf
            import cucim.skimage.morphology as cm
            from cucim.skimage._vendored import ndimage as cvndi
            libs.append(("cuCIM", B.Mods(cvndi, cf, cm), ()))
        except Exception as e:
            print("no cuCIM:", e)
    shape = B.SHAPES.get(args.shape) or tuple(int(s) for s in args.shape.split(","))
    d = B.Inputs(cp, shape, np.dtype(args.dtype), np.random.default_rng(0), sndi)
    print("## %s %s (µs per call)" % ("x".join(map(str, shape)), args.dtype))
    for case in B.case_table():
        name, fam = case[0], case[1]
        if not B.applicable(case, shape, args.dtype) or not re.search(args.only, name):
            continue
        for lib, m, env in libs:
            for k, _ in sweeps:
                os.environ.pop(k, None)
            for k, v in env:
                os.environ[k] = v
            if env:
                print("    " + " ".join("%s=%s" % kv for kv in env))
            if fam == "ndi" and m.ndi is None or fam != "ndi" and m.filters is None:
                continue
            fn = lambda: case[5](m, d)  # noqa: E731
            try:
                ev = event_times(cp, fn, d, args.n)
            except Exception as e:
                print("%-24s %-6s error %s" % (name, lib, str(e)[:60]))
                continue
            ho = host_time(cp, fn, args.n)
            tot, dev, api = kernels(cp, fn, min(args.n, 20), args.api)
            print("%-24s %-6s event %8.1f  host %8.1f  kernels %8.1f" % (name, lib, ev, ho, tot))
            for k, c, t in dev[:6]:
                print("      dev %8.1f  %5.2fx  %s" % (t, c, k))
            for k, c, t in api[:8]:
                print("      api %8.1f  %5.2fx  %s" % (t, c, k))
            if args.cprofile and lib == "fovea":
                pr = cProfile.Profile()
                pr.enable()
                for _ in range(args.n):
                    fn()
                pr.disable()
                cp.cuda.Device().synchronize()
                s = io.StringIO()
                pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(12)
                lines = [ln for ln in s.getvalue().splitlines() if re.match(r"\s+\d", ln)]
                print("\n".join("      py " + ln for ln in lines[:12]))


if __name__ == "__main__":
    main()
