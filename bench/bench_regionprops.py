"""Benchmark of fovea.skimage.measure.regionprops_table against scikit-image
(CPU) and cuCIM (GPU, when CuPy and cucim import and a GPU is present).

Label images of 100 / 10 000 / 100 000 labels: a grid of cells, each holding
one random blob (a label per cell, 0.75 fill of the cell's 6 x 6 interior
... scaled so that every case has about the same pixels per label), with a
float32 intensity image. Two property sets:

  batch     label, area, bbox, centroid, intensity_mean, intensity_max,
            moments_hu, eccentricity, orientation, axis_major_length,
            axis_minor_length, inertia_tensor_eigvals (all from fovea's one-pass table)
  +region   the batch set plus perimeter, solidity, euler_number (per region)

Times are the median of --repeat runs after a warm-up (a single run when the
warm-up took over 5 s); ratio = peer time / fovea time (> 1: fovea is faster). GPU
times synchronise the device after each call.

    python bench/bench_regionprops.py [--labels 100,10000,100000] [--repeat 3] [--sets batch,+region]
                                       [--gpu] [--json FILE]
"""
import argparse
import json
import math
import statistics
import sys
import time

import numpy as np

BATCH = ["label", "area", "bbox", "centroid", "intensity_mean", "intensity_max", "moments_hu", "eccentricity",
         "orientation", "axis_major_length", "axis_minor_length", "inertia_tensor_eigvals"]
SETS = {"batch": BATCH, "+region": BATCH + ["perimeter", "solidity", "euler_number"]}


def make_labels(n, cell=10, seed=0):
    rng = np.random.default_rng(seed)
    side = math.ceil(math.sqrt(n))
    lab = np.zeros((side * cell, side * cell), dtype=np.int32)
    ids = np.arange(1, side * side + 1, dtype=np.int32).reshape(side, side)
    ids[ids > n] = 0
    inner = rng.random((side, side, cell - 2, cell - 2)) < 0.75
    blocks = np.where(inner, ids[:, :, None, None], 0)
    view = lab.reshape(side, cell, side, cell).transpose(0, 2, 1, 3)
    view[:, :, 1:-1, 1:-1] = blocks
    inten = rng.random(lab.shape, dtype=np.float32) * 255
    return lab, inten


def timeit(fn, repeat, sync=None):
    t0 = time.perf_counter()
    fn()   # warm-up (the measurement itself when it takes over 5 s)
    if sync:
        sync()
    first = time.perf_counter() - t0
    if first > 5:
        return first
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", default="100,10000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sets", default="batch,+region")
    ap.add_argument("--gpu", action="store_true", help="fovea on CuPy vs cuCIM (needs a GPU)")
    ap.add_argument("--no-cpu", action="store_true")
    ap.add_argument("--json", help="write the rows to this file")
    args = ap.parse_args(argv)

    import skimage
    from skimage import measure as skm

    import fovea
    from fovea.skimage import measure as fm

    rows = []
    print(f"fovea {getattr(fovea, '__version__', '?')}  scikit-image {skimage.__version__}")
    print(f"{'case':34s} {'fovea s':>10s} {'peer s':>10s} {'ratio':>8s}  peer")
    for n in [int(v) for v in args.labels.split(",")]:
        lab, inten = make_labels(n)
        for set_name in args.sets.split(","):
            props = SETS[set_name]
            if not args.no_cpu:
                got = fm.regionprops_table(lab, inten, props)
                t_f = timeit(lambda: fm.regionprops_table(lab, inten, props), args.repeat)
                want = skm.regionprops_table(lab, inten, props)
                assert list(got) == list(want)
                for k in want:   # the timed results are checked
                    g, w = got[k], want[k]
                    if k == "orientation":   # +-pi/2 name one axis (the sign of a rounding-noise mu11)
                        g, w = np.cos(2 * g), np.cos(2 * w)
                    np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-8, equal_nan=True, err_msg=k)
                t_p = timeit(lambda: skm.regionprops_table(lab, inten, props), args.repeat)
                row = dict(case=f"cpu {n} labels {set_name}", labels=n, set=set_name, device="cpu",
                           shape=list(lab.shape), fovea_s=t_f, peer_s=t_p, ratio=t_p / t_f, peer="skimage")
                rows.append(row)
                print(f"{row['case']:34s} {t_f:10.4f} {t_p:10.4f} {row['ratio']:8.1f}  skimage", flush=True)
            if args.gpu:
                import cupy as cp

                dl, di = cp.asarray(lab), cp.asarray(inten)
                sync = cp.cuda.get_current_stream().synchronize
                t_f = timeit(lambda: fm.regionprops_table(dl, di, props), args.repeat, sync)
                try:
                    from cucim.skimage import measure as cm
                except ImportError:
                    cm = None
                t_p = timeit(lambda: cm.regionprops_table(dl, di, props), args.repeat, sync) if cm else float("nan")
                row = dict(case=f"gpu {n} labels {set_name}", labels=n, set=set_name, device="gpu",
                           shape=list(lab.shape), fovea_s=t_f, peer_s=t_p, ratio=t_p / t_f, peer="cucim")
                rows.append(row)
                print(f"{row['case']:34s} {t_f:10.4f} {t_p:10.4f} {row['ratio']:8.1f}  cucim", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
