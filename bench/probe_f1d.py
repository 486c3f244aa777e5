"""Probe: 1-D pass times by input / output dtype (is the accumulator the cost?)."""
import cupy as cp
import numpy as np
import fovea.ndimage as ndi

def t(f, n=20):
    f(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    best = 1e9
    for _ in range(5):
        s.record()
        for _ in range(n):
            f()
        e.record(); e.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(s, e) / n)
    return best

rng = np.random.default_rng(7)
w9 = cp.asarray(rng.random(9))
for shape in ((8192, 8192), (2160, 3840)):
    x8 = cp.asarray(rng.integers(0, 256, shape, dtype=np.uint8))
    x32 = x8.astype(cp.float32)
    for name, f in [
        ("corr1d ax0 u8->u8", lambda: ndi.correlate1d(x8, w9, axis=0)),
        ("corr1d ax0 u8->f32", lambda: ndi.correlate1d(x8, w9, axis=0, output=cp.float32)),
        ("corr1d ax0 u8->f64", lambda: ndi.correlate1d(x8, w9, axis=0, output=cp.float64)),
        ("corr1d ax0 f32->f32", lambda: ndi.correlate1d(x32, w9, axis=0)),
        ("corr1d ax0 f32->u8", lambda: ndi.correlate1d(x32, w9, axis=0, output=cp.uint8)),
        ("corr1d ax1 u8->u8", lambda: ndi.correlate1d(x8, w9, axis=1)),
        ("corr1d ax1 u8->f32", lambda: ndi.correlate1d(x8, w9, axis=1, output=cp.float32)),
        ("corr1d ax1 f32->f32", lambda: ndi.correlate1d(x32, w9, axis=1)),
        ("unif1d ax0 u8->u8", lambda: ndi.uniform_filter1d(x8, 9, axis=0)),
        ("unif1d ax0 u8->f32", lambda: ndi.uniform_filter1d(x8, 9, axis=0, output=cp.float32)),
        ("unif ax* u8->u8", lambda: ndi.uniform_filter(x8, 5)),
        ("unif ax* u8->f32", lambda: ndi.uniform_filter(x8, 5, output=cp.float32)),
        ("copy u8", lambda: x8.copy()),
    ]:
        print(f"{shape} {name:22s} {t(f) * 1e3:8.1f} us")
