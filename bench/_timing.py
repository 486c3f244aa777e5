"""Shared pieces of the segmentation benchmarks (bench_segmentation.py,
bench_active_contours.py): timing and finding the GPU."""
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


def find_cupy(fovea, no_gpu):
    """(cupy module or None, GPU name or "") when fovea sees a GPU and CuPy imports."""
    if no_gpu or not fovea._fovea.gpu_available():
        return None, ""
    try:
        import cupy as cp
    except ImportError:
        return None, ""
    return cp, cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
