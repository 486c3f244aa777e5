"""Host cost of one call, layer by layer (µs per call, back-to-back calls, one
synchronisation at the end): a bare CuPy kernel launch, reading a CuPy array's
__cuda_array_interface__, fovea's C binding called directly, and the public
functions; on a small array (the kernels take nothing) and on 3840x2160.

    python bench/probe_host.py [--n 2000] [--shape 64,64]
"""
import argparse
import time

import numpy as np


def per_call(fn, n, sync):
    for _ in range(20):
        fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    sync()
    return (t1 - t0) / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--shape", default="64,64")
    args = ap.parse_args()
    import cupy as cp
    import cupyx.scipy.ndimage as cndi
    import fovea.ndimage as fndi
    from fovea import _fovea
    shape = tuple(int(s) for s in args.shape.split(","))
    x = cp.asarray(np.random.default_rng(0).random(shape, dtype=np.float32))
    out = cp.empty_like(x)
    w = np.random.default_rng(1).random(9)
    wd = cp.asarray(w)
    s = cp.cuda.get_current_stream()
    sync = s.synchronize
    noop = cp.RawKernel(r'extern "C" __global__ void noop(float *p) {}', "noop")
    rows = [
        ("cupy RawKernel launch", lambda: noop((1,), (32,), (x,))),
        ("x.__cuda_array_interface__", lambda: x.__cuda_array_interface__),
        ("cp.empty_like", lambda: cp.empty_like(x)),
        ("cp.cuda.get_current_stream().ptr", lambda: cp.cuda.get_current_stream().ptr),
        ("_fovea.ndi_correlate1d (host w, axis 0)", lambda: _fovea.ndi_correlate1d(x, out, w, 0, 0, 0.0, 0, stream=s.ptr)),
        ("_fovea.ndi_correlate1d (host w, axis -1)", lambda: _fovea.ndi_correlate1d(x, out, w, 1, 0, 0.0, 0, stream=s.ptr)),
        ("_fovea.ndi_correlate1d (CuPy w, axis 0)", lambda: _fovea.ndi_correlate1d(x, out, wd, 0, 0, 0.0, 0, stream=s.ptr)),
        ("_fovea.ndi_filter1d uniform 9 axis 0", lambda: _fovea.ndi_filter1d(x, out, 0, 9, 0, 0, 0.0, 0, stream=s.ptr)),
        ("_fovea.ndi_filter1d minimum 9 axis 0", lambda: _fovea.ndi_filter1d(x, out, 1, 9, 0, 0, 0.0, 0, stream=s.ptr)),
        ("fovea correlate1d(wd, axis 0)", lambda: fndi.correlate1d(x, wd, axis=0)),
        ("fovea convolve1d(wd, axis -1)", lambda: fndi.convolve1d(x, wd, axis=-1)),
        ("fovea uniform_filter1d(9, axis 0)", lambda: fndi.uniform_filter1d(x, 9, axis=0)),
        ("fovea minimum_filter1d(9, axis 0)", lambda: fndi.minimum_filter1d(x, 9, axis=0)),
        ("fovea gaussian_filter(2)", lambda: fndi.gaussian_filter(x, 2.0)),
        ("fovea median_filter(3)", lambda: fndi.median_filter(x, 3)),
        ("cupyx correlate1d(wd, axis 0)", lambda: cndi.correlate1d(x, wd, axis=0)),
        ("cupyx uniform_filter1d(9, axis 0)", lambda: cndi.uniform_filter1d(x, 9, axis=0)),
    ]
    from fovea.ndimage import _filters as F, _support as S
    def with_device():
        with cp.cuda.Device(0):
            pass

    c0 = S.Call("correlate1d", x)
    o0 = c0.get_output(None, x)
    rows += [
        ("  step: Call()", lambda: S.Call("correlate1d", x)),
        ("  step: get_output(None)", lambda: c0.get_output(None, x)),
        ("  step: _device_weights", lambda: F._device_weights(c0, x, wd)),
        ("  step: normalize_axis_index+mode_code+origin", lambda: (S.normalize_axis_index(0, 2), S.mode_code("reflect"),
                                                               S.invalid_origin(0, 9))),
        ("  step: c.run(ndi_correlate1d, CuPy w)", lambda: c0.run(_fovea.ndi_correlate1d, x, o0, wd, 0, 0, 0.0, 0)),
        ("  step: c.result", lambda: c0.result(o0)),
        ("  step: public wrapper only", lambda: fndi.correlate1d.__wrapped__(x, wd, axis=0)),
        ("  step: with cp.cuda.Device(0)", with_device),
        ("  step: cp.empty(shape)", lambda: cp.empty(shape, np.float32)),
        ("  step: x.device.id", lambda: x.device.id),
    ]
    print("## host µs per call, %s float32" % "x".join(map(str, shape)))
    for name, fn in rows:
        print("%-44s %8.1f" % (name, per_call(fn, args.n, sync)))


if __name__ == "__main__":
    main()
