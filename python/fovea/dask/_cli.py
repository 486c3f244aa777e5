"""``fovea deconvolve --dask``: Richardson-Lucy deconvolution of a TIFF / OME-TIFF
stack chunk by chunk on a dask cluster (a LocalCluster of --workers processes, or
dask-cuda's LocalCUDACluster for --device cuda), written as float32 OME-TIFF. The
same options as the C command (cli/cmd-deconvolve.c), plus --workers, --chunks,
--exact and --scheduler."""

import argparse
import math
import re
import sys
import time

import numpy as np

USAGE = ("fovea deconvolve IN.tif (--psf PSF.tif | --sigma S[,SY,SX]) -o OUT.ome.tif --dask [--workers N]\n"
         "                        [--chunks Z,Y,X] [--exact] [--scheduler ADDRESS] [--iterations 30]\n"
         "                        [--device auto|cpu|cuda] [--filter-epsilon E] [--progress|--no-progress]")


def _parser():
    p = argparse.ArgumentParser(prog="fovea deconvolve", usage=USAGE, description=(
        "Richardson-Lucy deconvolution (scikit-image's richardson_lucy, clip=False) of a TIFF / OME-TIFF "
        "stack, chunk by chunk with fovea.dask.richardson_lucy on a dask cluster. Chunks overlap by the "
        "PSF's half size with a periodic boundary (the usual workflow), or with --exact by 2 x iterations x "
        "the half size, which equals the whole-stack deconvolution to float rounding."))
    p.add_argument("input")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--psf")
    g.add_argument("--sigma")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    p.add_argument("--filter-epsilon", type=float, default=None)
    p.add_argument("--dask", action="store_true", required=True)
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: the cores, or the GPUs)")
    p.add_argument("--chunks", default=None, help="chunk shape, e.g. 32,512,512 (default: dask's choice)")
    p.add_argument("--exact", action="store_true")
    p.add_argument("--scheduler", default=None, help="address of a running dask scheduler to use instead")
    p.add_argument("--progress", dest="progress", action="store_true", default=sys.stderr.isatty())
    p.add_argument("--no-progress", dest="progress", action="store_false")
    return p


def gaussian_psf(sigma):
    """The C command's Gaussian PSF: radius ceil(4 sigma) per axis, normalised to sum 1."""
    r = [int(math.ceil(4.0 * s)) for s in sigma]
    if any(v > 512 for v in r):
        raise ValueError(f"--sigma {max(sigma)} gives a PSF too large")
    grids = np.meshgrid(*[np.arange(-v, v + 1, dtype=np.float64) for v in r], indexing="ij")
    e = sum(x * x / (2.0 * s * s) for x, s in zip(grids, sigma) if s > 0)
    p = np.exp(-e).astype(np.float32) if np.ndim(e) else np.ones([2 * v + 1 for v in r], np.float32)
    return p


def _normalise(psf):
    s = float(np.sum(psf, dtype=np.float64))
    if not (s > 0 and math.isfinite(s)):
        raise ValueError(f"the PSF must have a positive, finite sum (got {s:g})")
    return (psf.astype(np.float64) / s).astype(np.float32)


def _sigmas(text, ndim):
    try:
        v = [float(t) for t in text.split(",")]
    except ValueError:
        v = []
    if len(v) not in (1, ndim) or any(not (x >= 0 and math.isfinite(x)) for x in v):
        raise ValueError(f"--sigma wants one value >= 0 or {ndim} comma-separated ones, got '{text}'")
    return v * ndim if len(v) == 1 else v


def _physical(path):
    """(z, y, x) physical sizes from an OME-TIFF's metadata (None where absent)."""
    import tifffile
    with tifffile.TiffFile(path) as t:
        xml = t.ome_metadata or ""
    got = {}
    for ax in "ZYX":
        m = re.search(rf'PhysicalSize{ax}="([^"]+)"', xml)
        got[ax] = float(m.group(1)) if m else None
    return got


def _client(args, gpu):
    from distributed import Client, LocalCluster
    if args.scheduler:
        return Client(args.scheduler), None
    if gpu:
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError as e:
            raise RuntimeError("--device cuda with --dask needs dask-cuda (pip install dask-cuda)") from e
        cluster = LocalCUDACluster(n_workers=args.workers)
    else:
        import os
        n = args.workers or os.cpu_count() or 1
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
    return Client(cluster), cluster


def main(argv):
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (ValueError, OSError, RuntimeError) as e:
        print(f"fovea deconvolve: {e}", file=sys.stderr)
        return 1


def _run(args):
    import tifffile

    import fovea
    import fovea.dask as fd

    if args.iterations < 1:
        raise ValueError(f"--iterations must be >= 1, got {args.iterations}")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    gpu = args.device == "cuda" or (args.device == "auto" and fovea.gpu_available())
    stack = fd.imread(args.input)
    if stack.ndim not in (2, 3):
        raise ValueError(f"{args.input}: a {stack.ndim}-d image; deconvolve takes 2-d images and 3-d stacks")
    stack = stack.astype(np.float32)
    if args.chunks:
        chunks = tuple(int(c) for c in args.chunks.split(","))
        if len(chunks) != stack.ndim or min(chunks) < 1:
            raise ValueError(f"--chunks wants {stack.ndim} positive integers, got '{args.chunks}'")
        stack = stack.rechunk(chunks)
    psf = tifffile.imread(args.psf) if args.psf else gaussian_psf(_sigmas(args.sigma, stack.ndim))
    psf = _normalise(np.asarray(psf, np.float32))
    if psf.ndim != stack.ndim:
        raise ValueError(f"the PSF has {psf.ndim} dimensions, the image {stack.ndim}")
    if gpu:
        import cupy
        stack = stack.map_blocks(cupy.asarray, dtype=np.float32, meta=cupy.empty((0,) * stack.ndim, np.float32))
    out = fd.richardson_lucy(stack, psf, num_iter=args.iterations, clip=False, filter_epsilon=args.filter_epsilon,
                             depth="exact" if args.exact else None, boundary="none" if args.exact else "periodic")
    if gpu:
        import cupy
        out = out.map_blocks(cupy.asnumpy, dtype=np.float32, meta=np.empty((0,) * stack.ndim, np.float32))
    t0 = time.perf_counter()
    client, cluster = _client(args, gpu)
    try:
        fut = client.compute(out)
        if args.progress:
            from distributed import progress
            progress(fut)
        res = fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    dt = time.perf_counter() - t0
    phys = _physical(args.input)
    axes = "ZYX"[-res.ndim:]
    md = {"axes": axes}
    for ax in axes:
        if phys.get(ax):
            md[f"PhysicalSize{ax}"] = phys[ax]
    tifffile.imwrite(args.output, res, ome=True, metadata=md)
    if args.progress:
        mb = res.nbytes / 1e6
        print(f"\nfovea deconvolve: {res.shape} in {dt:.2f} s ({mb / dt:.1f} MB/s, {args.iterations} iterations, "
              f"{'GPU' if gpu else 'CPU'} workers)", file=sys.stderr)
    return 0
