"""Richardson-Lucy deconvolution of a stack larger than one call, on every GPU (or
every core) of this machine, with fovea.dask.

    python examples/deconvolve_dask.py [STACK.zarr|STACK.tif] [--psf-sigma 2,1.5,1.5]
                                       [--iterations 20] [--chunks 64,512,512] [--out OUT.zarr]

Starts dask-cuda's LocalCUDACluster (one worker per GPU) when dask-cuda and a GPU are
there, else a LocalCluster of one worker per core; reads the stack (without an input:
a synthetic 190 x 1024 x 1024 float32 stack of blurred points), deconvolves it chunk by
chunk (overlap: the PSF's half size, periodic boundary: the usual workflow), writes
zarr, and prints the throughput. Needs ``pip install 'fovea[dask]'`` (and dask-cuda
for GPUs).
"""

import argparse
import os
import time

import numpy as np

import dask.array as da
from distributed import Client, LocalCluster

import fovea
import fovea.dask as fd
from fovea.dask._cli import gaussian_psf


def synthetic(shape, chunks, seed=0):
    """Blurred random points: each chunk made where it is computed."""
    def block(block_info=None):
        loc = block_info[None]["array-location"]
        rng = np.random.default_rng([seed, *[a for a, _ in loc]])
        sh = tuple(b - a for a, b in loc)
        x = np.zeros(sh, np.float32)
        n = max(1, x.size // 5000)
        x[tuple(rng.integers(0, s, n) for s in sh)] = 1000.0
        return fovea.ndimage.gaussian_filter(x, (2.0, 1.5, 1.5)) + 1.0
    return da.map_blocks(block, chunks=da.core.normalize_chunks(chunks, shape), dtype=np.float32)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("stack", nargs="?")
    p.add_argument("--psf-sigma", default="2,1.5,1.5")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--chunks", default="64,512,512")
    p.add_argument("--shape", default="190,1024,1024", help="the synthetic stack's shape")
    p.add_argument("--out", default="deconvolved.zarr")
    p.add_argument("--cpu", action="store_true", help="use the CPU even where GPUs are")
    a = p.parse_args()
    chunks = tuple(int(c) for c in a.chunks.split(","))
    gpu = not a.cpu and fovea.gpu_available()
    if gpu:
        from dask_cuda import LocalCUDACluster
        cluster = LocalCUDACluster()
    else:
        cluster = LocalCluster(n_workers=os.cpu_count(), threads_per_worker=1, dashboard_address=None)
    client = Client(cluster)
    stack = fd.imread(a.stack, chunks=chunks) if a.stack else \
        synthetic(tuple(int(s) for s in a.shape.split(",")), chunks)
    stack = stack.astype(np.float32)
    if gpu:
        import cupy
        stack = stack.map_blocks(cupy.asarray, meta=cupy.empty((0, 0, 0), np.float32))
    psf = gaussian_psf([float(s) for s in a.psf_sigma.split(",")])
    psf = psf / psf.sum()
    out = fd.richardson_lucy(stack, psf, num_iter=a.iterations, clip=False)
    t0 = time.perf_counter()
    fd.to_zarr(out, a.out, overwrite=True)
    dt = time.perf_counter() - t0
    gb = stack.nbytes / 1e9
    print(f"{stack.shape} float32 ({gb:.2f} GB), PSF {psf.shape}, {a.iterations} iterations on "
          f"{len(client.scheduler_info()['workers'])} {'GPU' if gpu else 'CPU'} workers: {dt:.1f} s, "
          f"{gb / dt:.2f} GB/s -> {a.out}")
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
