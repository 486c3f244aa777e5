"""Shared pieces of the benchmarks (bench_core.py, bench_watershed.py,
bench_segmentation.py, bench_active_contours.py, bench_flood.py, probe_sep.py): timing, the machine, finding the GPU."""
import os
import statistics
import time


def timeit(fn, repeat, sync=None):
    """(median seconds of `repeat` runs after one warm-up, last result); sync
    (e.g. a device synchronize) ends each run."""
    fn()
    if sync:
        sync()
    ts = []
    r = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = fn()
        if sync:
            sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), r


def event_median(cp, fn, repeat, warmup=1):
    """Median milliseconds of `repeat` runs timed by CUDA events on the current
    stream, after `warmup` runs and a device synchronize."""
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(repeat):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    return statistics.median(ts)


def find_cupy(fovea, no_gpu):
    """(cupy module or None, GPU name or "") when fovea sees a GPU and CuPy imports."""
    if no_gpu or not fovea._fovea.gpu_available():
        return None, ""
    try:
        import cupy as cp
    except ImportError:
        return None, ""
    return cp, cp.cuda.runtime.getDeviceProperties(0)["name"].decode()


def median_time(fn, repeat, sync=None):
    """Median seconds of `repeat` runs after one warm-up (timeit without the result)."""
    return timeit(fn, repeat, sync)[0]


def machine():
    """The CPU model and the core count."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores"
