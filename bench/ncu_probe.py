"""Calls for a profiler run (ncu): a few separable filters on 8192^2 CuPy arrays.

    python bench/ncu_probe.py gauss_f32,unif_u8,corr0_u8,conv1_u8,...
"""
import sys
import cupy as cp
import fovea.ndimage as ndi

cases = sys.argv[1].split(",") if len(sys.argv) > 1 else ["gauss_f32", "unif_u8"]
x32 = cp.random.random((8192, 8192)).astype(cp.float32)
x8 = (cp.random.random((8192, 8192)) * 255).astype(cp.uint8)
w9 = cp.random.random(9)
wi9 = cp.asarray([1.0, -2, 3, 1, 4, -1, 2, 1, 1])
for _ in range(2):
    for c in cases:
        name, dt = c.rsplit("_", 1)
        x = x32 if dt == "f32" else x8
        if name == "gauss":
            ndi.gaussian_filter(x, 2.0)
        elif name == "unif":
            ndi.uniform_filter(x, 5)
        elif name == "sobel":
            ndi.sobel(x, axis=0)
        elif name == "min":
            ndi.minimum_filter(x, 5)
        elif name == "corr0":   # the suite's correlate1d(9): random weights, axis 0
            ndi.correlate1d(x, w9, axis=0)
        elif name == "conv1":   # the suite's convolve1d(9): axis -1
            ndi.convolve1d(x, w9, axis=-1)
        elif name == "corri0":  # integer weights (float sums exact), axis 0
            ndi.correlate1d(x, wi9, axis=0)
cp.cuda.Device().synchronize()
