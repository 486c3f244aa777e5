"""Per-call cost of device weights: fovea correlate1d / convolve1d with CuPy vs NumPy
weights against cuCIM, event-timed as bench_ndimage.py (GPU idle time while the host
works counts) and wall-timed back to back; and the read-back alone (ndarray.get() vs
the pinned-buffer copy of fovea.ndimage._support).

    python bench/probe_weights.py [plain]   (plain: fovea reads weights by ndarray.get())
"""
import statistics, time
import cupy as cp, numpy as np
import fovea.ndimage as ndi
try:
    from cucim.skimage._vendored import ndimage as cvndi
except Exception as e:
    print("no cucim:", e); cvndi = None
import fovea.ndimage._support as S

def ev(fn, n=40):
    fn(); cp.cuda.get_current_stream().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(n):
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) * 1e3)
    return statistics.median(ts)

def wall(fn, n=200):
    fn(); cp.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    for _ in range(n): fn()
    cp.cuda.get_current_stream().synchronize()
    return (time.perf_counter() - t0) / n * 1e6

rng = np.random.default_rng(0)
import sys
if len(sys.argv) > 1 and sys.argv[1] == "plain":
    S._PLAIN_GET = True
print("plain get" if S._PLAIN_GET else "pinned get")
import os

def novec(fn):   # the element-by-element loads and stores of the 1-D tile kernel (FOVEA_F1D_NOVEC=1)
    def g():
        os.environ["FOVEA_F1D_NOVEC"] = "1"
        try:
            return fn()
        finally:
            del os.environ["FOVEA_F1D_NOVEC"]
    return g

for shape, dt in (((2160, 3840), cp.float32), ((2160, 3840), cp.uint8), ((8192, 8192), cp.float32),
                  ((8192, 8192), cp.uint8), ((64, 64), cp.float32)):
    x = cp.asarray(rng.random(shape) * (255 if dt == cp.uint8 else 1)).astype(dt)
    wd = cp.asarray(rng.random(9)); wh = wd.get()
    out = cp.empty_like(x)
    print(shape, np.dtype(dt).name)
    for name, f in [
        ("fovea corr1d ax0 w=cupy", lambda: ndi.correlate1d(x, wd, axis=0)),
        ("fovea corr1d ax0 w=numpy", lambda: ndi.correlate1d(x, wh, axis=0)),
        ("fovea corr1d ax0 w=numpy out=", lambda: ndi.correlate1d(x, wh, axis=0, output=out)),
        ("cucim corr1d ax0 w=cupy", lambda: cvndi.correlate1d(x, wd, axis=0)),
        ("fovea conv1d ax-1 w=cupy", lambda: ndi.convolve1d(x, wd, axis=-1)),
        ("fovea conv1d ax-1 w=numpy", lambda: ndi.convolve1d(x, wh, axis=-1)),
        ("fovea corr1d ax-1 w=cupy", lambda: ndi.correlate1d(x, wd, axis=-1)),
        ("fovea corr1d ax-1 w=cupy NOVEC", novec(lambda: ndi.correlate1d(x, wd, axis=-1))),
        ("fovea corr1d ax0 w=cupy NOVEC", novec(lambda: ndi.correlate1d(x, wd, axis=0))),
        ("cucim conv1d ax-1 w=cupy", lambda: cvndi.convolve1d(x, wd, axis=-1)),
        ("fovea gauss1d", lambda: ndi.gaussian_filter1d(x, 2.0, axis=0)),
        ("cucim gauss1d", lambda: cvndi.gaussian_filter1d(x, 2.0, axis=0)),
        ("w.get()", lambda: wd.get()),
        ("_cupy_get_small(w)", lambda: S._cupy_get_small(wd)),
        ("cp.empty_like", lambda: cp.empty_like(x)),
    ]:
        if name.startswith("cucim") and cvndi is None:
            continue
        print("  %-32s event %8.1f us   wall %8.1f us" % (name, ev(f), wall(f)))
