"""Multi-GPU scaling of fovea.dask (issue #33): Richardson-Lucy deconvolution of a
synthetic uint16 light-sheet stack and blockwise gaussian / median / label over a
synthetic whole-slide-sized 2-D image, on dask-cuda's LocalCUDACluster with 1, 2, ...
workers (one per GPU), each in the same run, each result checked equal to the 1-GPU one.

    python bench/multigpu.py [--gpus 1,2] [--stack 950,2048,2048] [--stack-chunks 950,512,512]
                             [--psf-sigma 4,2,2] [--iterations 20] [--slide 100000]
                             [--slide-chunks 25000] [--threads 2] [--saturation inf]
                             [--overlap own|dask] [--only rl,gaussian,median,label]
                             [--json bench/results/DATE-multigpu.json]

The data are made on the workers, block by block, on their GPU (seeded by the block's
position, so every run sees the same pixels), and each result block is reduced on its
GPU to an exact integer digest (a position-weighted sum of its bits): only digests
travel, so the figures are of the computation (data made, overlapped, deconvolved or
filtered), not of a disk. Equal digests for every block mean equal results bit for bit.
bench/run.py --report puts the newest such run in bench/RESULTS.md with a scaling plot.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

# NVLink multicast stays off on the lent machines (and in every worker process)
for _k, _v in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
               ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ[_k] = _v

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- data, made on the worker's GPU --------------------------------------------------------------

def _rng(loc, seed):
    import cupy
    return cupy.random.default_rng(np.random.SeedSequence([seed, *[a for a, _ in loc]]).generate_state(1)[0])


def _blurred_points(block_info, seed, every, value, sigma):
    """The block's float32 image of points (about one per `every` pixels, of `value`)
    blurred by sigma, made on the GPU, and the block's generator for more."""
    import cupy

    import fovea.ndimage
    loc = block_info[None]["array-location"]
    sh = tuple(b - a for a, b in loc)
    rng = _rng(loc, seed)
    x = cupy.zeros(sh, cupy.float32)
    x[tuple(rng.integers(0, s, max(1, x.size // every)) for s in sh)] = value
    return fovea.ndimage.gaussian_filter(x, sigma), rng


def stack_block(seed, block_info=None):
    """uint16 blurred points on a background of 100, about one point per 4000 voxels."""
    import cupy
    x, _ = _blurred_points(block_info, seed, 4000, 40000.0, (2.0, 1.5, 1.5))
    return cupy.clip(x + 100.0, 0, 65535).astype(cupy.uint16)


def slide_block(seed, block_info=None):
    """uint8 'nuclei': blurred points, about one per 2500 pixels, plus noise."""
    import cupy
    x, rng = _blurred_points(block_info, seed, 2500, 5000.0, 2.5)
    return cupy.clip(x + rng.random(x.shape, dtype=cupy.float32) * 20.0, 0, 255).astype(cupy.uint8)


def synthetic(block, shape, chunks, dtype, seed=0):
    import cupy
    import dask.array as da
    return da.map_blocks(block, seed, chunks=da.core.normalize_chunks(chunks, shape), dtype=dtype,
                         meta=cupy.empty((0,) * len(shape), dtype))


# ---- digests ---------------------------------------------------------------------------------------

def digest(block):
    """An exact integer digest of a block's bits, computed on its GPU: sum of the bits
    (as integers) times position weights, modulo 2^64. Equal digests of all blocks:
    equal results, barring a collision."""
    import cupy
    v = block.reshape(-1)
    bits = v.view({1: cupy.uint8, 2: cupy.uint16, 4: cupy.uint32, 8: cupy.uint64}[v.dtype.itemsize])
    w = (cupy.arange(v.size, dtype=cupy.uint64) % 65521) + 1
    d = int(cupy.sum(bits.astype(cupy.uint64) * w, dtype=cupy.uint64))
    return np.array([d], dtype=object).reshape((1,) * block.ndim)


def digests(x):
    """Every block's digest, as a NumPy object array of the block grid."""
    return x.map_blocks(digest, dtype=object, chunks=(1,) * x.ndim, meta=np.empty((0,) * x.ndim, object))


# ---- the cluster -----------------------------------------------------------------------------------

def cluster(n, threads, saturation):
    import dask
    from dask_cuda import LocalCUDACluster
    from distributed import Client
    # the scheduler (in this process) reads it when made: "inf" sends every ready
    # root task (the generated chunks) to the workers at once, in contiguous groups
    # (co-assignment), where queuing holds them back and hands them out one by one
    dask.config.set({"distributed.scheduler.worker-saturation": saturation})
    c = LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(str(i) for i in range(n)), n_workers=n,
                         threads_per_worker=threads, dashboard_address=None, silence_logs=40)
    return Client(c), c


def warm(client):
    """Import fovea and make one small CUDA call on every worker, so that start-up
    (CUDA context, library load) is not in the timings."""
    def w():
        import cupy

        import fovea.ndimage
        return float(fovea.ndimage.gaussian_filter(cupy.ones((64, 64), cupy.float32), 1.0).sum())
    client.run(w)


# ---- the workloads ---------------------------------------------------------------------------------

def gaussian_psf(sigma):
    from fovea.dask._cli import gaussian_psf as g
    p = g(sigma)
    return (p / p.sum()).astype(np.float32)


def run_rl(a):
    import fovea.dask as fd
    shape = tuple(int(s) for s in a.stack.split(","))
    x = synthetic(stack_block, shape, tuple(int(c) for c in a.stack_chunks.split(",")), np.uint16)
    psf = gaussian_psf([float(s) for s in a.psf_sigma.split(",")])
    out = fd.richardson_lucy(x, psf, num_iter=a.iterations, clip=False, dtype=np.float32)
    info = {"shape": list(shape), "dtype": "uint16 (deconvolved as float32)", "chunks": a.stack_chunks,
            "psf": list(psf.shape), "iterations": a.iterations, "overlap": "PSF half size, periodic, exchanged as uint16",
            "bytes_in": int(np.prod(shape)) * 2}
    return digests(out), info


def run_slide_op(a, op):
    import fovea.dask as fd
    n = int(a.slide)
    x = synthetic(slide_block, (n, n), (int(a.slide_chunks),) * 2, np.uint8)
    info = {"shape": [n, n], "dtype": "uint8", "chunks": a.slide_chunks, "bytes_in": n * n}
    if op == "gaussian":
        out = fd.ndimage.gaussian_filter(x, 2.0)
        info["params"] = "sigma 2"
    elif op == "median":
        out = fd.ndimage.median_filter(x, size=5)
        info["params"] = "size 5"
    else:
        out, nl = fd.label(x > 60)
        info["params"] = "x > 60, 4-connectivity"
        info["labels"] = int(nl)
    return digests(out), info


def block_time(client, shape, psf, iterations):
    """Seconds one worker's GPU takes to deconvolve one chunk with its overlap (the
    compute alone, no dask): the floor the dask run is compared with."""
    def w():
        import cupy

        from fovea.skimage.restoration import richardson_lucy
        x = cupy.ones(shape, cupy.float32)
        richardson_lucy(x, psf, num_iter=2, clip=False)
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        richardson_lucy(x, psf, num_iter=iterations, clip=False)
        cupy.cuda.Device().synchronize()
        return time.perf_counter() - t0
    return min(client.run(w).values())


def task_profile(recs, t0, t1):
    """Per worker: seconds computing (by task name) and receiving data, from dask's
    task stream; and where the worker's compute thread waited within the compute call
    (t0 to t1, wall clock): before its first task, after its last, between tasks."""
    from dask.utils import key_split
    out, spans = {}, {}
    for r in recs:
        w = out.setdefault(r["worker"], {"compute": {}, "transfer_s": 0.0, "tasks": {}})
        k = key_split(r["key"])
        w["tasks"][k] = w["tasks"].get(k, 0) + 1
        for ss in r.get("startstops", ()):
            dt = ss["stop"] - ss["start"]
            if ss["action"] == "compute":
                w["compute"][k] = w["compute"].get(k, 0.0) + dt
                spans.setdefault(r["worker"], []).append((ss["start"], ss["stop"]))
            elif ss["action"] == "transfer":
                w["transfer_s"] += dt
    for wk, w in out.items():
        w["compute_s"] = sum(w["compute"].values())
        w["compute"] = dict(sorted(w["compute"].items(), key=lambda kv: -kv[1])[:6])
        sp = sorted(spans.get(wk, ()))
        if sp:
            busy, end = 0.0, sp[0][0]
            for a, b in sp:
                busy += max(0.0, b - max(a, end))
                end = max(end, b)
            w["wait_first_s"] = sp[0][0] - t0
            w["wait_last_s"] = t1 - end
            w["wait_between_s"] = (end - sp[0][0]) - busy
    return out


def measure(a, n, workloads):
    import dask
    client, c = cluster(n, a.threads, a.saturation)
    try:
        warm(client)
        res = {}
        for name in workloads:
            from distributed import get_task_stream
            runs = []
            for _ in range(max(1, a.repeat)):
                t0 = time.perf_counter()
                d, info = run_rl(a) if name == "rl" else run_slide_op(a, name)
                with get_task_stream(client) as ts:
                    w0 = time.time()
                    dig = dask.compute(d)[0]
                    w1 = time.time()
                runs.append((time.perf_counter() - t0, w0, w1, ts.data))
            times = [r[0] for r in runs]
            dt, w0, w1, recs = min(runs, key=lambda r: r[0])
            tcompute = w1 - w0
            info["compute_call_s"] = tcompute
            info["profile"] = task_profile(recs, w0, w1)
            print(f"    graph {dt - tcompute:.2f} s, compute call {tcompute:.2f} s (fastest run)", flush=True)
            for wk, pr in info["profile"].items():
                print(f"    {wk}: compute {pr['compute_s']:.2f} s, receiving {pr['transfer_s']:.2f} s, waiting "
                      f"{pr.get('wait_first_s', 0):.2f} s before the first task, {pr.get('wait_between_s', 0):.2f} s "
                      f"between, {pr.get('wait_last_s', 0):.2f} s after the last; "
                      + ", ".join(f"{k} {v:.2f} ({pr['tasks'].get(k, 0)})" for k, v in pr["compute"].items()),
                      flush=True)
            if name == "rl":
                depth = [s // 2 for s in info["psf"]]
                ch = [int(c) for c in a.stack_chunks.split(",")]
                tb = block_time(client, tuple(c + 2 * d for c, d in zip(ch, depth)),
                                gaussian_psf([float(v) for v in a.psf_sigma.split(",")]), a.iterations)
                nb = int(np.prod([-(-s // c) for s, c in zip(info["shape"], ch)]))
                info["block_s"] = tb
                info["blocks"] = nb
                info["compute_floor_s"] = tb * -(-nb // n)
                print(f"    one chunk with overlap: {tb:.3f} s on one GPU; {nb} chunks: floor "
                      f"{info['compute_floor_s']:.2f} s on {n} GPU(s)", flush=True)
            res[name] = {"s": dt, "runs_s": times, "info": info, "digest": [int(v) for v in np.ravel(dig)]}
            print(f"  {n} GPU(s) {name}: {dt:.2f} s (runs {', '.join(f'{t:.2f}' for t in times)}), "
                  f"{info['bytes_in'] / dt / 1e9:.2f} GB/s" + (f", {info['labels']} labels" if "labels" in info else ""),
                  flush=True)
        return res
    finally:
        client.close()
        c.close()


def machine():
    try:
        gpus = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        gpus = []
    return {"host": platform.node(), "cores": os.cpu_count(), "gpus": gpus, "python": platform.python_version()}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gpus", default=None, help="worker counts to run, e.g. 1,2 (default: 1 and all GPUs)")
    p.add_argument("--stack", default="950,2048,2048")
    p.add_argument("--stack-chunks", default="950,512,512")
    p.add_argument("--psf-sigma", default="4,2,2")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--slide", default="100000")
    p.add_argument("--slide-chunks", default="25000",
                   help="a GPU filters a 10000^2 uint8 chunk in a few ms, less than dask's own cost for its "
                        "tasks; 25000^2 (16 chunks) scaled better on 2 GPUs")
    p.add_argument("--only", default="rl,gaussian,median,label")
    p.add_argument("--threads", type=int, default=2,
                   help="threads per worker (2: a worker cuts and sends its neighbours' overlaps while it "
                        "deconvolves; with queued root tasks, worker-saturation 1.1, 2 split the chunks unevenly)")
    p.add_argument("--repeat", type=int, default=2, help="runs of each workload; the fastest counts (the first pays for start-up)")
    p.add_argument("--overlap", choices=("own", "dask"), default="own",
                   help="fovea.dask's own overlap (default) or dask's map_overlap, to compare")
    p.add_argument("--saturation", default="inf",
                   help="dask's distributed.scheduler.worker-saturation (its default, 1.1, queues root tasks "
                        "and placed 9 of 16 deconvolution chunks on one GPU)")
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    a.saturation = float(a.saturation)
    import cupy

    import fovea.ndimage
    from fovea.dask import _core
    _core.OWN_OVERLAP = a.overlap == "own"
    if not fovea.gpu_available():
        print("bench/multigpu.py: no GPU", file=sys.stderr)
        return 2
    ngpu = cupy.cuda.runtime.getDeviceCount()
    counts = [int(v) for v in a.gpus.split(",")] if a.gpus else sorted({1, ngpu})
    if max(counts) > ngpu:
        print(f"bench/multigpu.py: {max(counts)} GPUs asked for, {ngpu} here", file=sys.stderr)
        return 2
    workloads = [w for w in a.only.split(",") if w]
    t_start = time.time()
    runs = {}
    for n in counts:
        print(f"{n} GPU(s):", flush=True)
        runs[n] = measure(a, n, workloads)
    base = runs[counts[0]]
    rows = []
    for w in workloads:
        for n in counts:
            r = runs[n][w]
            rows.append({"workload": w, "gpus": n, "s": r["s"], "runs_s": r["runs_s"], "info": r["info"],
                         "gb_per_s": r["info"]["bytes_in"] / r["s"] / 1e9,
                         "speedup": base[w]["s"] / r["s"] * 1.0,
                         "equal_to_first": r["digest"] == base[w]["digest"],
                         "blocks": len(r["digest"])})
    for r in rows:
        print(f"{r['workload']:9s} {r['gpus']} GPU(s): {r['s']:.2f} s  {r['speedup']:.2f}x  "
              f"equal to {counts[0]} GPU: {r['equal_to_first']}")
    doc = {"schema": "multigpu-1", "generator": "bench/multigpu.py",
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "command": "python bench/multigpu.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "machine": machine(), "fovea": {"version": fovea.__version__,
                                           "commit": os.environ.get("FOVEA_COMMIT", "")},
           "gpu_counts": counts, "threads_per_worker": a.threads, "overlap": a.overlap,
           "worker_saturation": str(a.saturation), "rows": rows, "elapsed_s": time.time() - t_start}
    out = a.json or os.path.join(HERE, "results", datetime.date.today().isoformat() + "-multigpu.json")
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print("->", out)
    return 0 if all(r["equal_to_first"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
