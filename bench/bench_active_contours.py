"""Active contours and random walker: fovea vs scikit-image on the CPU and vs cuCIM
on the GPU (where a GPU, CuPy and cuCIM are there).

Cases: morphological_chan_vese and morphological_geodesic_active_contour on a
1024^2 image (50 iterations), chan_vese on 512^2 (100 iterations, tol 0 so both
run all of them), random_walker on 512^2 (two labels, mode cg_j). Results are
checked: morphological level sets and chan_vese segmentations equal, random
walker labels equal (cuCIM: fraction of equal pixels).

Timing: warm-up first, then the median of --repeat runs; GPU runs end with a device
synchronize. Ratio columns: peer seconds / fovea seconds (> 1: fovea is faster).

    python bench/bench_active_contours.py [--repeat 3] [--only REGEX] [--no-cpu] [--no-gpu]
                                          [--quick] [--json out.json]
"""
import argparse
import json
import os
import platform
import re
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import find_cupy, timeit  # noqa: E402
import fovea  # noqa: E402
from fovea.skimage import segmentation as fseg  # noqa: E402
from fovea.skimage.segmentation import _morphsnakes as fms  # noqa: E402


def test_image(n, seed):
    """A realistic grey image: camera tiled to n x n plus a little noise, float64 in [0, 1]."""
    from skimage import data
    cam = data.camera()
    reps = (n + cam.shape[0] - 1) // cam.shape[0]
    img = np.tile(cam, (reps, reps))[:n, :n].astype(np.float64) / 255
    rng = np.random.default_rng(seed)
    return np.clip(img + rng.normal(0, 0.01, img.shape), 0, 1)


def seeds(img, seed):
    rng = np.random.default_rng(seed)
    lab = np.zeros(img.shape, np.int32)
    lab[img < 0.15] = 1
    lab[img > 0.75] = 2
    lab[rng.random(img.shape) > 0.05] = 0
    return lab


def reset_cycles():
    """Both libraries alternate SIoIS / ISoSI across calls: start both afresh."""
    from skimage.segmentation import morphsnakes as skms
    skms._curvop = skms._fcycle([lambda u: skms.sup_inf(skms.inf_sup(u)), lambda u: skms.inf_sup(skms.sup_inf(u))])
    fms._curvature_phase[0] = 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=None)
    ap.add_argument("--no-cpu", action="store_true")
    ap.add_argument("--no-gpu", action="store_true")
    ap.add_argument("--quick", action="store_true", help="sides / 4")
    ap.add_argument("--json")
    a = ap.parse_args()
    q = 4 if a.quick else 1
    nm, nc, nr = 1024 // q, 512 // q, 512 // q

    import skimage
    from skimage import segmentation as sseg

    cseg = None
    cp, gpu = find_cupy(fovea, a.no_gpu)
    if cp is not None:
        try:
            from cucim.skimage import segmentation as cseg
        except Exception as e:   # noqa: BLE001 (reported)
            print(f"# cuCIM unavailable: {type(e).__name__}: {e}")
    print(f"# bench_active_contours {time.strftime('%Y-%m-%d')} fovea {fovea.__version__} scikit-image "
          f"{skimage.__version__}; {platform.processor() or platform.machine()}, {os.cpu_count()} cores"
          f"{'; GPU ' + gpu if gpu else '; no GPU'}{'' if cseg else '; no cuCIM'}")

    img_m = test_image(nm, 1)
    gimg = fseg.inverse_gaussian_gradient(img_m, alpha=100, sigma=2)
    img_c = test_image(nc, 2)
    img_r = test_image(nr, 3)
    lab_r = seeds(img_r, 4)
    cases = [
        (f"morphological_chan_vese {nm}^2 x50", "morphological_chan_vese", img_m,
         lambda m, x: m.morphological_chan_vese(x, 50, smoothing=1), "equal"),
        (f"morph_geodesic_active_contour {nm}^2 x50", "morphological_geodesic_active_contour", gimg,
         lambda m, x: m.morphological_geodesic_active_contour(x, 50, balloon=-1, threshold=0.5), "equal"),
        (f"chan_vese {nc}^2 x100", "chan_vese", img_c,
         lambda m, x: m.chan_vese(x, max_num_iter=100, tol=0), "equal"),
        (f"random_walker {nr}^2 cg_j 2 labels", "random_walker", img_r,
         lambda m, x: m.random_walker(x, lab_r if isinstance(x, np.ndarray) else cp.asarray(lab_r)), "equal"),
    ]
    rows = []
    print(f"{'case':42s} {'fv cpu s':>9s} {'skimage s':>9s} {'skimage/fv':>10s} {'fv gpu s':>9s} "
          f"{'cucim s':>9s} {'cucim/fv':>9s}  check")
    for name, fname, x, fn, check in cases:
        if a.only and not re.search(a.only, name):
            continue
        row = {"case": name}
        checks = []
        ref = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not a.no_cpu:
                row["fovea_cpu_s"], _ = timeit(lambda: fn(fseg, x), a.repeat)
                row["skimage_s"], _ = timeit(lambda: fn(sseg, x), 1)
                reset_cycles()
                mine = fn(fseg, x)
                reset_cycles()
                ref = fn(sseg, x)
                checks.append(f"cpu={'ok' if np.array_equal(mine, ref) else 'DIFF'}")
            if cp is not None:
                xd = cp.asarray(x)
                sync = cp.cuda.Device().synchronize
                row["fovea_gpu_s"], _ = timeit(lambda: fn(fseg, xd), a.repeat, sync)
                if ref is not None:
                    reset_cycles()
                    mine_d = cp.asnumpy(fn(fseg, xd))
                    same = np.array_equal(mine_d, ref)
                    checks.append(f"gpu={'ok' if same else 'agree %.4f' % np.mean(mine_d == ref)}")
                if cseg is not None and hasattr(cseg, fname):
                    try:
                        row["cucim_s"], theirs = timeit(lambda: fn(cseg, xd), a.repeat, sync)
                        if ref is not None:
                            checks.append(f"cucim agree {np.mean(cp.asnumpy(theirs) == ref):.4f}")
                    except Exception as e:   # noqa: BLE001
                        checks.append(f"cucim failed: {type(e).__name__}")
                del xd
        r1 = row.get("skimage_s", float("nan")) / row.get("fovea_cpu_s", float("nan"))
        r2 = row.get("cucim_s", float("nan")) / row.get("fovea_gpu_s", float("nan"))
        row["skimage_over_fovea"], row["cucim_over_fovea"] = r1, r2
        row["check"] = " ".join(checks)
        rows.append(row)
        f = lambda k: f"{row[k]:9.4f}" if k in row else f"{'-':>9s}"   # noqa: E731
        print(f"{name:42s} {f('fovea_cpu_s')} {f('skimage_s')} {r1:10.2f} {f('fovea_gpu_s')} {f('cucim_s')} "
              f"{r2:9.2f}  {row['check']}", flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"date": time.strftime("%Y-%m-%d"), "gpu": gpu, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
