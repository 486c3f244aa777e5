"""The demo pipeline benchmark (issue "Segmentation and measurement", the demo target):
the whole `fovea demo` workflow per patch batch vs the same pipeline in scikit-image /
SciPy on all CPU cores.

Pipeline (fovea/demo.py, identical parameters on both sides): read 512 x 512 patches of
the demo slide (JPEG-tiled pyramid built from skimage.data.immunohistochemistry) ->
rgb2hed -> Gaussian blur of the hematoxylin channel -> Otsu -> binary opening ->
remove_small_objects -> distance transform -> h-maxima markers -> label -> watershed ->
regionprops_table (10 batchable properties).

  fovea      fovea.demo.analyse_batch on batches of --batch-size patches read with
             read_region(locations, batch_size=..., device=D): D = cuda on a GPU
             (CuPy batches decoded by nvJPEG), cpu otherwise (every core)
  skimage    fovea.demo.reference_patch in a multiprocessing pool of os.cpu_count()
             processes, one patch per task (patches read with fovea's CPU reader:
             its cost is the same for both and small)

Both are warmed up; each is timed --repeats times (median). Agreement: the patches whose
nuclei (label images up to renumbering) are identical, and the foreground IoU.

    python bench/bench_demo.py [--patches 128] [--batch-size 16] [--repeats 3]
                               [--device auto|cpu|cuda] [--json out.json]
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fovea  # noqa: E402
from fovea import demo  # noqa: E402


def run_fovea(slide, locs, ps, device, batch_size, workers):
    t0 = time.perf_counter()
    labels, nuclei = [], 0
    batches = slide.read_region(locs, (ps, ps), 0, device=device, num_workers=workers, batch_size=batch_size)
    try:
        for batch in batches:
            for lab, tab in demo.analyse_batch(batch):
                labels.append(lab)
                nuclei += len(tab["label"])
    finally:
        batches.close()
    if device == "cuda":
        import cupy
        cupy.cuda.Device().synchronize()
    return time.perf_counter() - t0, labels, nuclei


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--patches", type=int, default=128)
    ap.add_argument("--patch-size", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    ap.add_argument("--json")
    a = ap.parse_args()
    device = demo._pick_device(a.device)
    path = demo.default_slide_path()
    if not os.path.exists(path):
        t0 = time.perf_counter()
        demo.sample_slide(path)
        print(f"# wrote the demo slide {path} in {time.perf_counter() - t0:.1f} s")
    slide = fovea.open(path)
    W, H = slide.resolutions["level_dimensions"][0]
    ps = a.patch_size
    grid = [(x * ps, y * ps) for y in range(H // ps) for x in range(W // ps)]
    rng = np.random.default_rng(1)
    locs = np.array([grid[i] for i in rng.integers(0, len(grid), a.patches)], np.int64)
    gpu = ""
    if device == "cuda":
        import cupy
        gpu = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"# bench_demo {time.strftime('%Y-%m-%d')} on {platform.node()}: {os.cpu_count()} cores"
          f"{', ' + gpu if gpu else ''}; {a.patches} patches of {ps}x{ps}, batches of {a.batch_size}, "
          f"fovea on {device}")

    run_fovea(slide, locs[:a.batch_size], ps, device, a.batch_size, a.workers)   # warm-up
    ft, labels, nuclei = [], None, 0
    for _ in range(a.repeats):
        t, labels, nuclei = run_fovea(slide, locs, ps, device, a.batch_size, a.workers)
        ft.append(t)
    demo.run_reference(path, locs[:os.cpu_count() or 1], ps)                        # warm-up
    rt, ref = [], None
    for _ in range(a.repeats):
        ref, t = demo.run_reference(path, locs, ps)
        rt.append(t)
    f, r = statistics.median(ft), statistics.median(rt)
    same, iou, _, _ = demo.agreement(labels, [x[0] for x in ref])
    ref_nuclei = sum(len(x[1]["label"]) for x in ref)
    res = {"date": time.strftime("%Y-%m-%d"), "host": platform.node(), "gpu": gpu, "device": device,
           "cores": os.cpu_count(), "patches": a.patches, "patch_size": ps, "batch_size": a.batch_size,
           "fovea_s": f, "skimage_s": r, "speedup": r / f, "fovea_patches_per_s": a.patches / f,
           "skimage_patches_per_s": a.patches / r, "nuclei": nuclei, "skimage_nuclei": ref_nuclei,
           "same_patches": same, "foreground_iou": iou}
    print(f"fovea ({device})              {f:8.3f} s  {a.patches / f:8.1f} patches/s  {nuclei} nuclei")
    print(f"scikit-image ({os.cpu_count()} processes) {r:8.3f} s  {a.patches / r:8.1f} patches/s  "
          f"{ref_nuclei} nuclei")
    print(f"ratio (skimage / fovea): {r / f:.2f}x; identical nuclei in {same} of {a.patches} patches, "
          f"foreground IoU {iou:.4f}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
