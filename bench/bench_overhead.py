"""Fixed cost of one call: fovea.ndimage on tiny arrays, where the kernels take
almost nothing and what is left is the Python layer, the C dispatch and the
launches (and any synchronisation on the way).

GPU (CuPy present): per-call wall time of back-to-back calls on a 64x64 float32
CuPy array, ending with one stream synchronisation, vs cupyx.scipy.ndimage; and
cupyx.profiler.benchmark's CPU and GPU times per call. CPU: the same on NumPy
arrays vs scipy.ndimage. With --profile, the top of a cProfile of fovea's calls.

    python bench/bench_overhead.py [--n 300] [--shape 64,64] [--profile] [--cpu]
"""
import argparse
import cProfile
import io
import pstats
import time

import numpy as np

W3 = None   # correlate1d's weights, in the inputs' array library (CuPy takes no lists)

CASES = [
    ("median_filter(3)", lambda m, x, b: m.median_filter(x, 3)),
    ("gaussian_filter", lambda m, x, b: m.gaussian_filter(x, 2.0)),
    ("uniform_filter", lambda m, x, b: m.uniform_filter(x, 5)),
    ("sobel", lambda m, x, b: m.sobel(x)),
    ("correlate1d", lambda m, x, b: m.correlate1d(x, W3)),
    ("maximum_filter", lambda m, x, b: m.maximum_filter(x, 5)),
    ("grey_opening", lambda m, x, b: m.grey_opening(x, size=5)),
    ("binary_erosion", lambda m, x, b: m.binary_erosion(b)),
    ("binary_opening", lambda m, x, b: m.binary_opening(b)),
    ("distance_transform_edt", lambda m, x, b: m.distance_transform_edt(b)),
    ("gaussian_gradient_magnitude", lambda m, x, b: m.gaussian_gradient_magnitude(x, 2.0)),
]


def per_call(fn, n, sync):
    fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    sync()
    return (time.perf_counter() - t0) / n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--shape", default="64,64")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--cpu", action="store_true", help="NumPy inputs even with a GPU")
    args = ap.parse_args()
    shape = tuple(int(s) for s in args.shape.split(","))
    import fovea.ndimage as fndi

    host = np.random.default_rng(1).random(shape, dtype=np.float32)
    cp = None
    if not args.cpu:
        try:
            import cupy as cp
            cp.cuda.runtime.getDeviceCount()
        except Exception:
            cp = None
    if cp is not None:
        import cupyx.profiler
        import cupyx.scipy.ndimage as peer
        x, lib = cp.asarray(host), "CuPy"
        sync = cp.cuda.get_current_stream().synchronize
    else:
        import scipy.ndimage as peer
        x, lib = host, "scipy"
        sync = lambda: None  # noqa: E731
    b = x > 0.5
    global W3
    W3 = (cp if cp is not None else np).asarray([1.0, 2.0, 1.0])
    print("## per-call cost on %s %s arrays (us); fovea vs %s" % ("x".join(map(str, shape)),
                                                                  "CuPy" if cp is not None else "NumPy", lib))
    if cp is not None:
        print("| case | fovea wall | %s wall | fovea cpu | fovea gpu | %s cpu | %s gpu |" % (lib, lib, lib))
        print("|---|---:|---:|---:|---:|---:|---:|")
    else:
        print("| case | fovea | %s |" % lib)
        print("|---|---:|---:|")
    for name, fn in CASES:
        tf = per_call(lambda: fn(fndi, x, b), args.n, sync) * 1e6
        tp = per_call(lambda: fn(peer, x, b), args.n, sync) * 1e6
        if cp is not None:
            bf = cupyx.profiler.benchmark(lambda: fn(fndi, x, b), n_repeat=args.n // 3, n_warmup=3)
            bp = cupyx.profiler.benchmark(lambda: fn(peer, x, b), n_repeat=args.n // 3, n_warmup=3)
            print("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |" % (
                name, tf, tp, bf.cpu_times.mean() * 1e6, bf.gpu_times.mean() * 1e6,
                bp.cpu_times.mean() * 1e6, bp.gpu_times.mean() * 1e6))
        else:
            print("| %s | %.1f | %.1f |" % (name, tf, tp))
    if args.profile:
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(args.n):
            for name, fn in CASES:
                fn(fndi, x, b)
        sync()
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
        print(s.getvalue())


if __name__ == "__main__":
    main()
