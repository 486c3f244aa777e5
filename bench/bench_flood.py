"""binary_fill_holes / binary_propagation on the GPU: fovea (one labelling, with and
without path halving in the merge: FOVEA_FLOOD_NOHALVE) against CuPy and cuCIM-free
scipy semantics; CUDA events, median of runs, on bench_ndimage's smoothed random data.
    python bench/bench_flood.py [--size 8192]"""
import argparse
import os

import numpy as np
import cupy as cp
from cupyx.scipy import ndimage as cndi
from scipy import ndimage as sndi

from fovea import ndimage as fndi
from _timing import event_median  # bench/ is sys.path[0]


def timeit(f, n=15):
    return event_median(cp, f, n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=8192)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    host = rng.random((a.size, a.size), dtype=np.float32)
    b = cp.asarray(sndi.uniform_filter(host, 7) > 0.5)
    seed = cp.zeros(b.shape, bool)
    c = a.size // 2
    seed[c - 2:c + 2, c - 2:c + 2] = True
    ref = cndi.binary_fill_holes(b)
    assert bool((fndi.binary_fill_holes(b) == ref).all())
    for name, f, g in (("binary_fill_holes", lambda: fndi.binary_fill_holes(b), lambda: cndi.binary_fill_holes(b)),
                       ("binary_propagation", lambda: fndi.binary_propagation(seed, mask=b), None)):
        os.environ.pop("FOVEA_FLOOD_NOHALVE", None)
        t1 = timeit(f)
        os.environ["FOVEA_FLOOD_NOHALVE"] = "1"
        t0 = timeit(f)
        os.environ.pop("FOVEA_FLOOD_NOHALVE", None)
        tc = timeit(g) if g else float("nan")
        print(f"{name} {a.size}^2: fovea {t1:.3f} ms (no halving {t0:.3f} ms), CuPy {tc:.3f} ms, "
              f"CuPy/fovea {tc / t1:.2f}")


if __name__ == "__main__":
    main()
