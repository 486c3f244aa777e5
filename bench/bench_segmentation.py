"""Segmentation-workflow kernels (issue "Segmentation and measurement"): fovea vs
scikit-image on the CPU and vs cuCIM on the GPU, on the issue's sizes.

Cases: measure.label of blobs (8192^2, connectivity 2; 400^3, connectivity 3),
filters.threshold_otsu (8192^2 float32), color.rgb2hed and color.rgb2lab (8192^2 x 3
uint8), exposure.equalize_adapthist (4096^2 uint8, kernel 1/8 of the side).
Results are checked: labels equal (up to numbering for cuCIM), thresholds and
colours within float tolerance.

Timing: warm-up first, then the median of --repeat runs; GPU runs end with a device
synchronize. Ratio columns: peer seconds / fovea seconds (> 1: fovea is faster);
"skimage/fv" compares the CPU backends on all cores, "cucim/fv" the GPU backends.

    python bench/bench_segmentation.py [--repeat 3] [--only REGEX] [--no-cpu] [--no-gpu]
                                       [--quick] [--json out.json]
"""
import argparse
import json
import os
import platform
import re
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import find_cupy, timeit  # noqa: E402
import fovea  # noqa: E402
from fovea.skimage import color as fcolor, exposure as fexposure, filters as ffilters, measure as fmeasure  # noqa


def blobs(shape, fraction, seed):
    """Smoothed noise above a quantile (fovea's own Gaussian: all cores)."""
    from fovea import ndimage as ndi
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(shape, dtype=np.float32)
    sm = ndi.gaussian_filter(noise, sigma=min(max(shape) * fraction / 4, 8.0))
    return sm > np.quantile(sm[::7].ravel() if sm.ndim == 2 else sm[::4, ::4].ravel(), 0.55)


def rgb_image(n, seed):
    from skimage import data
    ihc = data.immunohistochemistry()
    reps = (n + ihc.shape[0] - 1) // ihc.shape[0]
    img = np.tile(ihc, (reps, reps, 1))[:n, :n]
    rng = np.random.default_rng(seed)
    return np.clip(img.astype(np.int16) + rng.integers(-3, 4, img.shape), 0, 255).astype(np.uint8)


def same_labels(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or not np.array_equal(a > 0, b > 0):
        return False
    fg = a > 0
    pairs = np.unique(np.stack([a[fg].astype(np.int64), b[fg].astype(np.int64)]), axis=1)
    return pairs.shape[1] == len(np.unique(a[fg])) == len(np.unique(b[fg]))


def close(a, b, rtol=1e-4, atol=1e-4):
    return np.allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=rtol, atol=atol)


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
    n2, n3, nc = 8192 // q, 400 // q, 4096 // q

    import skimage
    from skimage import color as scolor, exposure as sexposure, filters as sfilters, measure as smeasure

    cucim = None
    cp, gpu = find_cupy(fovea, a.no_gpu)
    if cp is not None:
        try:
            from cucim.skimage import color as ccolor, exposure as cexposure, filters as cfilters, measure as cmeasure
            cucim = True
        except Exception as e:   # noqa: BLE001 (reported)
            print(f"# cuCIM unavailable: {type(e).__name__}: {e}")
    print(f"# bench_segmentation {time.strftime('%Y-%m-%d')} fovea {fovea.__version__} scikit-image "
          f"{skimage.__version__}; {platform.processor() or platform.machine()}, {os.cpu_count()} cores"
          f"{'; GPU ' + gpu if gpu else '; no GPU'}{'' if cucim else '; no cuCIM'}")

    data = {}

    def get(key):
        if key not in data:
            if key == "blobs2":
                data[key] = blobs((n2, n2), 0.01, 1)
            elif key == "blobs3":
                data[key] = blobs((n3, n3, n3), 0.03, 2)
            elif key == "rgb":
                data[key] = rgb_image(n2, 3)
            elif key == "gray":
                data[key] = scolor.rgb2gray(get("rgb")).astype(np.float32)
            elif key == "rgbc":
                data[key] = get("rgb")[:nc, :nc].copy()
        return data[key]

    cases = [
        (f"label {n2}^2 blobs conn 2", "blobs2", lambda m, x: m.label(x, connectivity=2), "labels"),
        (f"label {n3}^3 blobs conn 3", "blobs3", lambda m, x: m.label(x, connectivity=3), "labels"),
        (f"threshold_otsu {n2}^2 float32", "gray", lambda m, x: m.threshold_otsu(x), "close"),
        (f"rgb2hed {n2}^2 x 3 uint8", "rgb", lambda m, x: m.rgb2hed(x), "close"),
        (f"rgb2lab {n2}^2 x 3 uint8", "rgb", lambda m, x: m.rgb2lab(x), "close"),
        (f"equalize_adapthist {nc}^2 x 3 uint8", "rgbc", lambda m, x: m.equalize_adapthist(x), "close"),
    ]
    mods_cpu = {"label": (fmeasure, smeasure), "threshold_otsu": (ffilters, sfilters), "rgb2hed": (fcolor, scolor),
                "rgb2lab": (fcolor, scolor), "equalize_adapthist": (fexposure, sexposure)}
    mods_gpu = {"label": (fmeasure, cmeasure if cucim else None), "threshold_otsu": (ffilters, cfilters if cucim else None),
                "rgb2hed": (fcolor, ccolor if cucim else None), "rgb2lab": (fcolor, ccolor if cucim else None),
                "equalize_adapthist": (fexposure, cexposure if cucim else None)}
    rows = []
    print(f"{'case':38s} {'fv cpu s':>9s} {'skimage s':>9s} {'skimage/fv':>10s} {'fv gpu s':>9s} "
          f"{'cucim s':>9s} {'cucim/fv':>9s}  check")
    for name, key, fn, check in cases:
        if a.only and not re.search(a.only, name):
            continue
        kind = name.split()[0]
        row = {"case": name}
        x = get(key)
        checks = []
        ref = None
        if not a.no_cpu:
            fm, sm = mods_cpu[kind]
            row["fovea_cpu_s"], mine = timeit(lambda: fn(fm, x), a.repeat)
            reps = 1 if kind in ("rgb2lab", "equalize_adapthist") else a.repeat
            row["skimage_s"], ref = timeit(lambda: fn(sm, x), reps)
            ok = same_labels(mine, ref) if check == "labels" else close(mine, ref)
            checks.append(f"cpu={'ok' if ok else 'DIFF'}")
        if cp is not None:
            fm, cm = mods_gpu[kind]
            xd = cp.asarray(x)
            sync = cp.cuda.Device().synchronize
            row["fovea_gpu_s"], mine_d = timeit(lambda: fn(fm, xd), a.repeat, sync)
            if ref is not None:
                ok = same_labels(cp.asnumpy(mine_d), ref) if check == "labels" else close(
                    cp.asnumpy(mine_d) if hasattr(mine_d, "get") else mine_d, ref)
                checks.append(f"gpu={'ok' if ok else 'DIFF'}")
            if cm is not None:
                try:
                    row["cucim_s"], theirs = timeit(lambda: fn(cm, xd), a.repeat, sync)
                except Exception as e:   # noqa: BLE001
                    checks.append(f"cucim failed: {type(e).__name__}")
            del xd
        r1 = row.get("skimage_s", float("nan")) / row.get("fovea_cpu_s", float("nan"))
        r2 = row.get("cucim_s", float("nan")) / row.get("fovea_gpu_s", float("nan"))
        row["skimage_over_fovea"], row["cucim_over_fovea"] = r1, r2
        row["check"] = " ".join(checks)
        rows.append(row)
        f = lambda k: f"{row[k]:9.4f}" if k in row else f"{'-':>9s}"   # noqa: E731
        print(f"{name:38s} {f('fovea_cpu_s')} {f('skimage_s')} {r1:10.2f} {f('fovea_gpu_s')} {f('cucim_s')} "
              f"{r2:9.2f}  {row['check']}", flush=True)
    gr = [r["cucim_over_fovea"] for r in rows if np.isfinite(r["cucim_over_fovea"])]
    if gr:
        print(f"# GPU vs cuCIM: median {statistics.median(gr):.2f}x, min {min(gr):.2f}x over {len(gr)} cases")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"date": time.strftime("%Y-%m-%d"), "gpu": gpu, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
