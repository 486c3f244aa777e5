"""Benchmark of fovea.skimage.segmentation.watershed against scikit-image.

The classic nuclei split on a size x size image: touching discs, watershed of
minus their distance transform from markers at its peaks, inside the discs;
also a plateau-rich uint8 gradient image from random seeds, the compact
watershed and watershed lines; and the demo's batch, 16 nuclei patches of
512 x 512 flooded at once as one volume with the cross of a 3 x 3 x 3
footprint's middle plane. CPU: fovea (one thread: the flood is
sequential) vs scikit-image 0.26, whose labels fovea reproduces exactly
(checked here). GPU (when CuPy and a GPU exist): fovea on CuPy data vs the
CPU peers (cuCIM has no watershed); the GPU result is checked to be a valid
watershed by equality with skimage where the input has no ties. Where the
GPU kernel runs, a "jacobi" row times it with FOVEA_WS_UNTILED=1 (Jacobi
rounds over the whole image instead of the tiled relaxation; its equal
column: the same labels as the tiled run, which they must be).
Prints one table; ratio = peer time / fovea time.

    python bench/bench_watershed.py [--size 2048] [--repeat 5]
"""
import argparse
import os
import time

import numpy as np
import scipy.ndimage as ndi
import skimage
from skimage import segmentation as sks
from skimage.feature import peak_local_max

from _timing import machine, median_time  # noqa: E402 (bench/ is sys.path[0])
import fovea
from fovea.skimage import segmentation as fs


def nuclei(n, rng):
    """Touching discs, their distance transform and peak markers."""
    img = np.zeros((n, n), bool)
    yy, xx = np.indices((n, n))
    count = max(4, (n // 40) ** 2 // 2)
    for _ in range(count):
        cy, cx = rng.uniform(0, n, 2)
        r = rng.uniform(n / 160, n / 60)
        y0, y1 = int(max(cy - r, 0)), int(min(cy + r + 1, n))
        x0, x1 = int(max(cx - r, 0)), int(min(cx + r + 1, n))
        sub = (yy[y0:y1, x0:x1] - cy) ** 2 + (xx[y0:y1, x0:x1] - cx) ** 2 < r * r
        img[y0:y1, x0:x1] |= sub
    dist = ndi.distance_transform_edt(img)
    coords = peak_local_max(dist, labels=img.astype(np.int32), footprint=np.ones((3, 3)), exclude_border=False)
    peaks = np.zeros(img.shape, bool)
    peaks[tuple(coords.T)] = True
    markers = ndi.label(peaks)[0]
    return img, dist, markers


def cases(n, rng):
    img, dist, markers = nuclei(n, rng)
    grad = ndi.gaussian_gradient_magnitude(rng.random((n, n)), 3)
    grad = (grad / grad.max() * 40).astype(np.uint8)   # quantised: plateaus and ties
    seeds = np.zeros((n, n), np.int32)
    pos = rng.choice(n * n, size=n, replace=False)
    seeds.flat[pos] = np.arange(1, n + 1)
    fl = ndi.gaussian_filter(rng.random((n, n)), 2)    # continuous: no ties
    patches = [nuclei(512, rng) for _ in range(16)]     # the demo's batch as one volume
    pmask, pdist, pmk = (np.stack([p[k] for p in patches]) for k in range(3))
    cross = np.zeros((3, 3, 3), bool)
    cross[1] = [[0, 1, 0], [1, 1, 1], [0, 1, 0]]
    return [
        ("nuclei -dist, peaks, mask", (-dist, markers), dict(mask=img), True),
        ("nuclei + watershed_line", (-dist, markers), dict(mask=img, watershed_line=True), False),
        ("uint8 gradient, seeds", (grad, seeds), dict(), True),
        ("uint8 gradient, conn=2", (grad, seeds), dict(connectivity=2), True),
        ("float noise, seeds (tie-free)", (fl, seeds), dict(), True),
        ("float noise, compactness=0.01", (fl, seeds), dict(compactness=0.01), False),
        ("16x512^2 nuclei, plane cross", (-pdist, pmk), dict(mask=pmask, connectivity=cross), True),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--gpu-only", action="store_true", help="skip the CPU table (the GPU rows still time the CPU peers)")
    args = ap.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    print(f"# bench_watershed {time.strftime('%Y-%m-%d')} fovea {fovea.__version__} "
          f"scikit-image {skimage.__version__} numpy {np.__version__}")
    print(f"# machine: {machine()}; {n}x{n}")
    print(f"{'case':32s} {'backend':8s} {'fovea ms':>9s} {'peer ms':>9s} {'peer':>8s} {'ratio':>6s} {'equal':>6s}")
    all_cases = cases(n, rng)
    for name, (im, mk), kw, _ in ([] if args.gpu_only else all_cases):
        got = fs.watershed(im, mk, **kw)
        want = sks.watershed(im, mk, **kw)
        eq = bool(np.array_equal(got, want))
        t_o = median_time(lambda: fs.watershed(im, mk, **kw), args.repeat)
        t_p = median_time(lambda: sks.watershed(im, mk, **kw), args.repeat)
        print(f"{name:32s} {'cpu':8s} {t_o*1e3:9.1f} {t_p*1e3:9.1f} {'skimage':>8s} {t_p/t_o:6.2f} {str(eq):>6s}")
    if fovea.gpu_available():
        try:
            import cupy as cp
        except ImportError:
            print("# GPU present but CuPy missing: GPU rows skipped")
            return
        dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
        print(f"# GPU: {dev}; cupy {cp.__version__} (cuCIM has no watershed: the peers are the CPU's)")
        sync = cp.cuda.Device().synchronize
        for name, (im, mk), kw, gpu_kernel in all_cases:
            gi, gm = cp.asarray(im), cp.asarray(mk)
            gkw = {k: (cp.asarray(v) if isinstance(v, np.ndarray) and k != "connectivity" else v)
                   for k, v in kw.items()}
            got = fs.watershed(gi, gm, **gkw).get()
            t_g = median_time(lambda: fs.watershed(gi, gm, **gkw), args.repeat, sync)
            t_c = median_time(lambda: fs.watershed(im, mk, **kw), args.repeat)
            t_p = median_time(lambda: sks.watershed(im, mk, **kw), args.repeat)
            eq = bool(np.array_equal(got, sks.watershed(im, mk, **kw)))
            where = "cuda" if gpu_kernel else "cuda*"
            print(f"{name:32s} {where:8s} {t_g*1e3:9.1f} {t_p*1e3:9.1f} {'skimage':>8s} {t_p/t_g:6.2f} {str(eq):>6s}")
            print(f"{'':32s} {'':8s} {'':9s} {t_c*1e3:9.1f} {'fv-cpu':>8s} {t_c/t_g:6.2f}")
            if gpu_kernel:   # the Jacobi rounds that the tiled relaxation replaces
                prev = os.environ.get("FOVEA_WS_UNTILED")
                os.environ["FOVEA_WS_UNTILED"] = "1"
                try:
                    same = bool(np.array_equal(fs.watershed(gi, gm, **gkw).get(), got))
                    t_j = median_time(lambda: fs.watershed(gi, gm, **gkw), args.repeat, sync)
                finally:
                    if prev is None:
                        del os.environ["FOVEA_WS_UNTILED"]
                    else:
                        os.environ["FOVEA_WS_UNTILED"] = prev
                print(f"{'':32s} {'':8s} {'':9s} {t_j*1e3:9.1f} {'jacobi':>8s} {t_j/t_g:6.2f} {str(same):>6s}")
        print("# cuda* = no GPU kernel for this variant: CuPy data runs the CPU kernel on a host copy")


if __name__ == "__main__":
    main()
