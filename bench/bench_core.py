"""Benchmark of the core ops (astype, broadcast add, multiply) against peers.

CPU: fovea (all cores, FOVEA_NUM_THREADS) vs NumPy. GPU (when CuPy and a GPU exist):
fovea vs CuPy on the same device, with each kernel's fraction of the measured
device-to-device copy bandwidth. Prints one table; ratio = peer time / fovea time.

    python bench/bench_core.py [--size 8192] [--repeat 15]
"""
import argparse
import statistics
import time

import numpy as np

from _timing import machine, median_time  # noqa: E402 (bench/ is sys.path[0])
import fovea


def gpu_time(cp, fn, repeat):
    fn()
    cp.cuda.Device().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(repeat):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return statistics.median(times)


def cases(xp, n, rng):
    img = xp.asarray(rng.integers(0, 256, (n, n), dtype=np.uint8))
    f = xp.asarray(rng.random((n, n), dtype=np.float32))
    g = xp.asarray(rng.random((n, n), dtype=np.float32))
    row = xp.asarray(rng.random((1, n), dtype=np.float32))
    i16 = xp.asarray(rng.integers(-30000, 30000, (n, n), dtype=np.int16))
    # name, fovea call, peer call, bytes moved (read + write)
    return [
        ("astype u8->f32", lambda: fovea.astype(img, np.float32), lambda: img.astype(np.float32), n * n * 5),
        ("astype f32->u8", lambda: fovea.astype(f, np.uint8), lambda: f.astype(np.uint8), n * n * 5),
        ("add f32+f32", lambda: fovea.add(f, g), lambda: xp.add(f, g), n * n * 12),
        ("add f32+row", lambda: fovea.add(f, row), lambda: xp.add(f, row), n * n * 8),
        ("multiply f32*f32", lambda: fovea.multiply(f, g), lambda: xp.multiply(f, g), n * n * 12),
        ("add i16+f32 (promote)", lambda: fovea.add(i16, f), lambda: xp.add(i16, f), n * n * 10),
        ("transpose copy f32", lambda: fovea.astype(f.T, np.float32), lambda: xp.ascontiguousarray(f.T), n * n * 8),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    print(f"# bench_core {time.strftime('%Y-%m-%d')} fovea {fovea.__version__} numpy {np.__version__}")
    print(f"# machine: {machine()}; fovea threads {fovea.config()['threads']}; {n}x{n}")
    print(f"{'case':28s} {'backend':8s} {'fovea ms':>9s} {'peer ms':>9s} {'peer':>6s} {'ratio':>6s} {'%copyBW':>8s}")
    for name, ours, peer, nbytes in cases(np, n, rng):
        t_o = median_time(ours, args.repeat)
        t_p = median_time(peer, args.repeat)
        print(f"{name:28s} {'cpu':8s} {t_o*1e3:9.2f} {t_p*1e3:9.2f} {'numpy':>6s} {t_p/t_o:6.2f} {'':>8s}")
    if fovea.gpu_available():
        try:
            import cupy as cp
        except ImportError:
            print("# GPU present but CuPy missing: GPU rows skipped")
            return
        dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
        a = cp.empty(256 << 20, dtype=cp.uint8)
        b = cp.empty_like(a)
        t = gpu_time(cp, lambda: cp.copyto(b, a), args.repeat)
        bw = 2 * a.nbytes / t
        print(f"# GPU: {dev}; cupy {cp.__version__}; device-to-device copy {bw/1e12:.2f} TB/s (read+write)")
        for name, ours, peer, nbytes in cases(cp, n, rng):
            t_o = gpu_time(cp, ours, args.repeat)
            t_p = gpu_time(cp, peer, args.repeat)
            frac = nbytes / t_o / bw * 100
            print(f"{name:28s} {'cuda':8s} {t_o*1e3:9.3f} {t_p*1e3:9.3f} {'cupy':>6s} {t_p/t_o:6.2f} {frac:7.0f}%")


if __name__ == "__main__":
    main()
