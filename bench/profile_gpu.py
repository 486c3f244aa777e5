"""Where the GPU time goes: kernel tables (CUPTI, through torch.profiler) and a
Python-level profile of a few GPU workloads, to find what to optimise.

Workloads (choose with --only REGEX):
  label      fovea measure.label of 8192^2 blobs (connectivity 2) and cuCIM's, if
             cuCIM is installed
  demo       fovea.demo.analyse_batch on one batch of --batch-size patches of the
             demo slide, on the GPU
  gpuio      read_region(locations, device="cuda") of --patches random patches
  edt        distance_transform_edt of 256^3 and 8192^2 masks (the suite's, blobs,
             sparse zeros) under fovea's paths, CuPy's and cuCIM's

For each: the wall time per run after a warm-up, the CUDA kernels and copies
sorted by total GPU time, and (--cprofile) the Python functions by cumulative time.

    python bench/profile_gpu.py [--only label|demo|gpuio|edt] [--batch-size 16] [--cprofile]
"""
import argparse
import cProfile
import io
import os
import pstats
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fovea  # noqa: E402


def kernel_table(fn, cp, label, rows=18):
    """Runs fn under torch.profiler (CUPTI sees every library's kernels) and prints
    the kernels by total device time."""
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        print(f"[{label}] torch.profiler unavailable: no kernel table")
        return
    torch.cuda.init()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        fn()
        cp.cuda.Device().synchronize()
    evs = [e for e in prof.events() if e.device_type.name == "CUDA"]
    tot = {}
    for e in evs:
        k = e.name[:90]
        t, c = tot.get(k, (0.0, 0))
        us = e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
        tot[k] = (t + us, c + 1)
    allt = sum(t for t, _ in tot.values())
    print(f"[{label}] GPU busy {allt / 1e3:.2f} ms in {sum(c for _, c in tot.values())} kernels/copies")
    for k, (t, c) in sorted(tot.items(), key=lambda kv: -kv[1][0])[:rows]:
        print(f"   {t / 1e3:9.3f} ms  {c:6d}x  {k}")


def py_profile(fn, label, rows=25):
    pr = cProfile.Profile()
    pr.enable()
    fn()
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(rows)
    print(f"[{label}] Python profile (cumulative)")
    print("\n".join(line for line in s.getvalue().splitlines() if line.strip())[:6000])


def demo_slide():
    """The demo's sample slide (written on first use)."""
    from fovea import demo
    path = demo.default_slide_path()
    if not os.path.exists(path):
        demo.sample_slide(path)
    return fovea.open(path)


def wall(fn, cp, repeat=5):
    fn()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=".")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--patches", type=int, default=512)
    ap.add_argument("--cprofile", action="store_true")
    a = ap.parse_args()
    import cupy as cp

    if re.search(a.only, "label"):
        from bench_segmentation import blobs
        from fovea.skimage import measure
        for shape in ((8192, 8192), (400, 400, 400)):
            img = cp.asarray(blobs(shape, 0.01, 1))
            conn = len(shape) if len(shape) == 2 else 3
            f = lambda: measure.label(img, connectivity=conn)  # noqa: E731
            print(f"label {shape}: fovea {wall(f, cp) * 1e3:.2f} ms")
            kernel_table(f, cp, f"label {shape} fovea")
            try:
                from cucim.skimage import measure as cm
                g = lambda: cm.label(img, connectivity=conn)  # noqa: E731
                print(f"label {shape}: cuCIM {wall(g, cp) * 1e3:.2f} ms")
                kernel_table(g, cp, f"label {shape} cuCIM")
            except ImportError as e:
                print("no cuCIM:", e)

    if re.search(a.only, "demo"):
        from fovea import demo
        slide = demo_slide()
        ps, n = 512, a.batch_size
        rng = np.random.default_rng(0)
        locs = np.stack([rng.integers(0, 4096 - ps, n), rng.integers(0, 4096 - ps, n)], 1).astype(np.int64)
        batch = next(iter(slide.read_region(locs, (ps, ps), 0, device="cuda", batch_size=n)))
        batch = cp.asarray(batch)
        f = lambda: demo.analyse_batch(batch)  # noqa: E731
        t = wall(f, cp, 3)
        print(f"demo analyse_batch {n} x {ps}^2: {t * 1e3:.1f} ms ({n / t:.1f} patches/s)")
        kernel_table(f, cp, "demo", rows=30)
        if a.cprofile:
            py_profile(lambda: (f(), cp.cuda.Device().synchronize()), "demo", rows=45)

    if re.search(a.only, "gpuio"):
        slide = demo_slide()
        rng = np.random.default_rng(1)
        locs = np.stack([rng.integers(0, 4096 - 224, a.patches), rng.integers(0, 4096 - 224, a.patches)],
                        1).astype(np.int64)

        def f():
            for b in slide.read_region(locs, (224, 224), 0, device="cuda", batch_size=64):
                pass
        t = wall(f, cp, 3)
        print(f"gpuio {a.patches} random 224^2 patches: {a.patches / t:.0f} patches/s")
        kernel_table(f, cp, "gpuio")
        if a.cprofile:
            py_profile(lambda: (f(), cp.cuda.Device().synchronize()), "gpuio")

    if re.search(a.only, "edt"):
        edt_workload(cp)


def edt_workload(cp):
    """distance_transform_edt (distances) on three kinds of mask: the suite's (zeros a
    few elements away), blobs (uniform_filter 31: tens of elements) and sparse (one
    zero in 10^5: the local search gives up, the envelope runs), under fovea's paths
    (default: squared-distance planes, local search first; FOVEA_EDT_CAP=0: the
    envelope alone; FOVEA_EDT_FEATURES=1: the feature planes) against CuPy and cuCIM."""
    import scipy.ndimage as sndi
    import cupyx.scipy.ndimage as cndi
    from fovea import ndimage as fndi
    try:
        from cucim.skimage._vendored import ndimage as cvndi  # the suite's cuCIM row
    except ImportError as e:
        cvndi = None
        print("no cuCIM:", e)
    variants = [("default", {}), ("cap=0", {"FOVEA_EDT_CAP": "0"}), ("features", {"FOVEA_EDT_FEATURES": "1"})]
    for shape in ((256, 256, 256), (8192, 8192)):
        rng = np.random.default_rng(7)
        host = rng.random(shape, dtype=np.float32)
        sparse = np.ones(shape, bool)
        sparse.flat[rng.integers(0, sparse.size, sparse.size // 100000 + 1)] = False
        masks = [("suite", sndi.uniform_filter(host, 7) > np.float32(0.5)),
                 ("blobs", sndi.uniform_filter(host, 31) > np.float32(0.5)), ("sparse", sparse)]
        for mname, m in masks:
            b = cp.asarray(m)
            ref = None
            for vname, env in variants:
                os.environ.update(env)
                try:
                    f = lambda: fndi.distance_transform_edt(b)  # noqa: E731
                    out = f()
                    ref = out if ref is None else ref
                    same = bool(cp.array_equal(out, ref))
                    print(f"edt {shape} {mname} fovea {vname}: {wall(f, cp) * 1e3:.3f} ms (same bits: {same})")
                    if vname == "default":
                        kernel_table(f, cp, f"edt {shape} {mname} fovea {vname}")
                finally:
                    for k in env:
                        del os.environ[k]
            peers = [("CuPy", lambda: cndi.distance_transform_edt(b))]
            if cvndi is not None:
                peers.append(("cuCIM", lambda: cvndi.distance_transform_edt(b)))
            for name, f in peers:
                print(f"edt {shape} {mname} {name}: {wall(f, cp) * 1e3:.3f} ms")

if __name__ == "__main__":
    main()
