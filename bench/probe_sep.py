"""Separable filters on one 8192^2 float32 CuPy array: median kernel time (CUDA
events) and share of the device-to-device copy bandwidth (one read + one write).
Run it with FOVEA_SEP_NOSTRIP=1 / FOVEA_SEP_NOSPEC=1 / FOVEA_SEP_UNFUSED=1 to time
the other kernels of the same build.

    python bench/probe_sep.py [reps]
"""
import sys
import cupy as cp
import fovea.ndimage as ndi
from _timing import event_median  # bench/ is sys.path[0]

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
x = cp.random.random((8192, 8192)).astype(cp.float32)
out = cp.empty_like(x)
w9 = cp.random.random(9)   # CuPy weights, as the suite passes them


def timed(f):   # microseconds
    return event_median(cp, f, reps, warmup=3) * 1e3


copy = timed(lambda: cp.copyto(out, x))
bw = 2 * x.nbytes / (copy * 1e-6) / 1e9
print(f"copy {copy:.1f} us ({bw:.0f} GB/s)")
cases = {
    "gaussian_filter(2)": lambda: ndi.gaussian_filter(x, 2.0, output=out),
    "gaussian_filter(1)": lambda: ndi.gaussian_filter(x, 1.0, output=out),
    "uniform_filter(5)": lambda: ndi.uniform_filter(x, 5, output=out),
    "minimum_filter(5)": lambda: ndi.minimum_filter(x, 5, output=out),
    "maximum_filter(5)": lambda: ndi.maximum_filter(x, 5, output=out),
    "sobel(axis=0)": lambda: ndi.sobel(x, axis=0, output=out),
    "prewitt(axis=-1)": lambda: ndi.prewitt(x, axis=-1, output=out),
    "gaussian_filter1d(2, axis=0)": lambda: ndi.gaussian_filter1d(x, 2.0, axis=0, output=out),
    "uniform_filter1d(9, axis=0)": lambda: ndi.uniform_filter1d(x, 9, axis=0, output=out),
    "correlate1d(9, axis=0)": lambda: ndi.correlate1d(x, w9, axis=0, output=out),
    "minimum_filter1d(9, axis=0)": lambda: ndi.minimum_filter1d(x, 9, axis=0, output=out),
    "sobel(axis=1)": lambda: ndi.sobel(x, axis=1, output=out),
}
for name, f in cases.items():
    t = timed(f)
    print(f"{name:30s} {t:8.1f} us  {copy / t * 100:5.1f}% of copy")
