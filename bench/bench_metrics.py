"""Benchmark of fovea.skimage.metrics and fovea.skimage.measure.find_contours
against scikit-image (CPU) and, on a GPU, cuCIM (cucim.skimage).

CPU: fovea on NumPy arrays (all cores) vs scikit-image 0.26, the best of a few
runs after a warm-up. GPU (--gpu, CuPy and a GPU present): fovea on CuPy arrays
vs cuCIM on the same arrays when cucim imports, timed with CUDA events after a
warm-up. Each case also checks that fovea's result equals the peer's (SSIM to
1e-6 relative, contours exactly), so a fast wrong answer cannot pass.

ratio = peer time / fovea time (> 1: fovea is faster).

    python bench/bench_metrics.py [--cpu] [--gpu] [--quick] [--only REGEX] [--repeat 3]

Without --cpu / --gpu both run (tools/gpu-check runs it that way).
"""
import argparse
import re
import sys
import time
import warnings

import numpy as np


def smooth_field(shape, seed=0):
    """A smooth random image (many contours) without scipy: sums of cosines."""
    rng = np.random.default_rng(seed)
    r = np.arange(shape[0], dtype=np.float64)[:, None]
    c = np.arange(shape[1], dtype=np.float64)[None, :]
    out = np.zeros(shape)
    for _ in range(6):
        fr, fc, ph = rng.uniform(0.005, 0.05), rng.uniform(0.005, 0.05), rng.uniform(0, 6.28)
        out += np.cos(fr * r + fc * c + ph)
    return out


def inputs(quick):
    n4, n8 = (1024, 2048) if quick else (4096, 8192)
    rng = np.random.default_rng(1)
    a4 = rng.random((n4, n4), dtype=np.float32)
    b4 = np.clip(a4 + 0.1 * rng.standard_normal((n4, n4), dtype=np.float32), 0, 1)
    a8 = rng.integers(0, 256, (n8, n8), dtype=np.uint8)
    b8 = np.clip(a8.astype(np.int16) + rng.integers(-20, 21, (n8, n8), dtype=np.int16), 0, 255).astype(np.uint8)
    field = smooth_field((n4, n4))
    lab_t = (field * 3).astype(np.int64) + 20
    lab_s = np.where(rng.random((n4, n4)) < 0.9, lab_t, rng.integers(0, 20, (n4, n4)))
    pts_a = rng.random((n4 // 2, n4 // 2)) < 0.001
    pts_b = rng.random((n4 // 2, n4 // 2)) < 0.001
    return dict(n4=n4, n8=n8, a4=a4, b4=b4, a8=a8, b8=b8, field=field, lab_t=lab_t, lab_s=lab_s,
                pts_a=pts_a, pts_b=pts_b)


def cases():
    """(name, fn(metrics, measure, d), compare(ours, peer))."""

    def close(rtol):
        def cmp(o, p):
            o = o[0] if isinstance(o, tuple) else o
            p = p[0] if isinstance(p, tuple) else p
            return np.allclose(_host(o), _host(p), rtol=rtol, atol=0)
        return cmp

    def contours_equal(o, p):
        return len(o) == len(p) and all(np.array_equal(_host(x), _host(y)) for x, y in zip(o, p))

    return [
        ("ssim {n4}^2 float32", lambda M, S, d: M.structural_similarity(d["a4"], d["b4"], data_range=1.0), close(1e-6)),
        ("ssim {n4}^2 float32 gaussian", lambda M, S, d: M.structural_similarity(
            d["a4"], d["b4"], data_range=1.0, gaussian_weights=True, sigma=1.5, use_sample_covariance=False),
         close(1e-6)),
        ("ssim {n4}^2 float32 grad+full", lambda M, S, d: M.structural_similarity(
            d["a4"], d["b4"], data_range=1.0, gradient=True, full=True), close(1e-6)),
        ("ssim {n8}^2 uint8", lambda M, S, d: M.structural_similarity(d["a8"], d["b8"]), close(1e-6)),
        ("psnr {n8}^2 uint8", lambda M, S, d: M.peak_signal_noise_ratio(d["a8"], d["b8"]), close(1e-12)),
        ("psnr {n4}^2 float32", lambda M, S, d: M.peak_signal_noise_ratio(d["a4"], d["b4"], data_range=1.0),
         close(1e-12)),
        ("adapted_rand_error {n4}^2", lambda M, S, d: M.adapted_rand_error(d["lab_t"], d["lab_s"]), close(1e-9)),
        ("variation_of_information {n4}^2", lambda M, S, d: M.variation_of_information(d["lab_t"], d["lab_s"]),
         close(1e-9)),
        ("hausdorff_distance {n4}/2 ^2", lambda M, S, d: M.hausdorff_distance(d["pts_a"], d["pts_b"]),
         close(0)),
        ("find_contours {n4}^2", lambda M, S, d: S.find_contours(d["field"], 0.3), contours_equal),
    ]


def _host(x):
    if hasattr(x, "get"):
        return x.get()
    return np.asarray(x)


def best_of(fn, repeat, sync=None):
    fn()   # warm-up
    if sync:
        sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = fn()
        if sync:
            sync()
        times.append(time.perf_counter() - t0)
    return min(times), res


def run_suite(title, ours, peer, d, repeat, only, sync=None):
    print(f"\n== {title}")
    print(f"{'case':40s} {'fovea ms':>10s} {'peer ms':>10s} {'ratio':>7s}  same")
    ratios = []
    for name, fn, cmp in cases():
        name = name.format(**d)
        if only and not re.search(only, name):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_o, r_o = best_of(lambda: fn(*ours, d), repeat, sync)
            if peer is None:
                print(f"{name:40s} {t_o * 1e3:10.1f} {'-':>10s} {'-':>7s}")
                continue
            try:
                t_p, r_p = best_of(lambda: fn(*peer, d), repeat, sync)
            except (AttributeError, NotImplementedError, ImportError) as e:   # the peer lacks it
                print(f"{name:40s} {t_o * 1e3:10.1f} {'-':>10s} {'-':>7s}  (peer: {type(e).__name__}: {e})")
                continue
        ok = cmp(r_o, r_p)
        ratios.append(t_p / t_o)
        print(f"{name:40s} {t_o * 1e3:10.1f} {t_p * 1e3:10.1f} {t_p / t_o:7.2f}  {'yes' if ok else 'NO'}")
    if ratios:
        print(f"median ratio {np.median(ratios):.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", action="store_true")
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--quick", action="store_true", help="1024^2 / 2048^2 instead of 4096^2 / 8192^2")
    ap.add_argument("--only", default=None, help="regex over case names")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not args.cpu and not args.gpu:   # both (the GPU part is skipped without CuPy or a GPU)
        args.cpu = args.gpu = True
    import fovea
    from fovea.skimage import measure as fmeas
    from fovea.skimage import metrics as fmet
    d = inputs(args.quick)
    print(f"fovea {fovea.__version__}, {fovea.config().get('threads', '?')} threads; numpy {np.__version__}")
    if args.cpu:
        import skimage
        from skimage import measure as smeas
        from skimage import metrics as smet
        print(f"CPU: scikit-image {skimage.__version__}")
        run_suite("CPU: fovea (NumPy) vs scikit-image", (fmet, fmeas), (smet, smeas), d, args.repeat, args.only)
    if args.gpu:
        try:
            import cupy as cp
        except ImportError:
            print("--gpu: CuPy is not importable; skipped")
            return 0
        if not fovea.gpu_available():
            print("--gpu: fovea sees no GPU; skipped")
            return 0
        dg = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in d.items()}
        try:
            from cucim.skimage import measure as cmeas
            from cucim.skimage import metrics as cmet
            peer = (cmet, cmeas)
        except ImportError:
            print("cuCIM is not importable: fovea GPU times only")
            peer = None
        run_suite("GPU: fovea (CuPy) vs cuCIM", (fmet, fmeas), peer, dg, args.repeat, args.only,
                  sync=cp.cuda.Device().synchronize)
    return 0


if __name__ == "__main__":
    sys.exit(main())
