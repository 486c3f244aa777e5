"""Timing for bench/run.py (the methodology every fovea benchmark has used):

- a warm-up call first (allocations, plans, caches, JIT of the peers), then a device
  synchronize on the GPU;
- GPU calls timed by CUDA events recorded on the current stream around each call, so a
  call whose host side outlasts its kernels is timed by its host side; CPU calls by
  time.perf_counter;
- the median of several runs: at least min_runs, more while the budget (seconds per
  case and library) lasts, at most max_runs; a warm-up slower than SLOW seconds gets
  one timed run (slow references);
- inputs rotate between three copies where the case has them (d.rotate), so the L2
  cache is not what is measured;
- per-call cost (kind "percall"): n back-to-back calls ended by one synchronisation;
- throughput (kind "throughput"): wall time with a device synchronize at the end, the
  median of `repeat` runs after a warm-up run.
"""
import os
import statistics
import time

SLOW = 1.0


def _rotate(d, i):
    rot = getattr(d, "rotate", None)
    if rot is not None:
        rot(i)


def measure(fn, d, cp=None, budget=0.25, min_runs=2, max_runs=15, prepare=None):
    """(median seconds, runs, last result) of fn() on the CPU (cp None) or the GPU (CUDA events)."""
    _rotate(d, 0)
    if prepare:
        prepare(d)
    t0 = time.perf_counter()
    res = fn()
    if cp is not None:
        cp.cuda.get_current_stream().synchronize()
    if time.perf_counter() - t0 > SLOW:
        min_runs = 1
    if cp is not None:
        start, stop = cp.cuda.Event(), cp.cuda.Event()
    times, t_end, i = [], time.perf_counter() + budget, 0
    while i < min_runs or (i < max_runs and time.perf_counter() < t_end):
        _rotate(d, i + 1)
        if prepare:
            prepare(d)
        if cp is not None:
            start.record()
            res = fn()
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        else:
            t0 = time.perf_counter()
            res = fn()
            times.append(time.perf_counter() - t0)
        i += 1
    _rotate(d, 0)
    return statistics.median(times), len(times), res


def per_call(fn, n, repeat=3, sync=None):
    """(median seconds per call over `repeat` batches of n back-to-back calls, runs)."""
    fn()
    if sync:
        sync()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if sync:
            sync()
        ts.append((time.perf_counter() - t0) / n)
    return statistics.median(ts), repeat * n


def throughput(fn, repeat, sync=None, prepare=None, d=None):
    """(median seconds, items, extra of the median run, runs): fn() returns items or (items, extra)."""
    def once():
        if prepare:
            prepare(d)
        if sync:
            sync()
        t0 = time.perf_counter()
        r = fn()
        if sync:
            sync()
        t = time.perf_counter() - t0
        n, extra = r if isinstance(r, tuple) else (r, None)
        return t, n, extra
    once()   # warm-up
    runs = sorted((once() for _ in range(repeat)), key=lambda r: r[0])
    t, n, extra = runs[(len(runs) - 1) // 2]
    return t, n, extra, len(runs)


def copy_bandwidth(cp):
    """Device-to-device copy bandwidth, bytes read + written per second (1 GiB buffers)."""
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
