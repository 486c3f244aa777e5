"""File-to-GPU reads: fovea.filesystem.pread vs naive ``os.pread`` + copy.

Writes a random file (default 2 GiB; --size in MiB), then times reading all of it
into one destination buffer:

* fovea, flags "r"  (O_DIRECT; cuFile when GDS works, else pinned staging)
* fovea, flags "rn" (page cache; cuFile never, pinned staging)
* fovea, "r" with FOVEA_CUFILE=compat (cuFile in its compatibility mode, when
  cuFile loads; shows what cuFile alone would give here)
* naive: ``os.preadv`` into a NumPy buffer, then ``cupy.asarray`` (cudaMemcpy from
  pageable memory)
* cuCIM's ``cucim.clara.filesystem`` (flags "r" and "rn"), when cucim imports

each cold (``discard_page_cache`` before every run: the bytes come from storage)
and warm (file in the page cache; O_DIRECT cases still go to storage). The
destination is a CuPy array on a GPU machine; without CuPy or a GPU it is a NumPy
array, and the table says so (then fovea's host path vs plain ``os.preadv``).

Prints one table: GB/s (1e9 bytes/s) and ratio = peer time / fovea time, where
the fovea reference for each row is fovea "rn" for the same cache state.

    python bench/bench_filesystem.py [--size 2048] [--repeat 3] [--dir /path/on/nvme]
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import fovea
from fovea import filesystem as fs


def make_file(path, nbytes, chunk=64 << 20):
    rng = np.random.default_rng(0)
    with open(path, "wb") as fp:
        left = nbytes
        while left:
            n = min(chunk, left)
            fp.write(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
            left -= n
    os.sync()


def check_content(path, dst, windows=32, width=4096):
    """Compare windows of dst (NumPy or CuPy) with the file (every reader writes the whole
    file to the same destination): a fast read must also be a right one."""
    rng = np.random.default_rng(1)
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        for off in [0, max(size - width, 0)] + list(rng.integers(0, max(size - width, 1), windows)):
            want = np.frombuffer(os.pread(fd, width, int(off)), dtype=np.uint8)
            got = dst[int(off):int(off) + len(want)]
            got = got.get() if hasattr(got, "get") else np.asarray(got)
            if not np.array_equal(got, want):
                raise AssertionError(f"content differs from the file at offset {int(off)}")
    finally:
        os.close(fd)


def timed(fn, repeat, cold, path, sync):
    times = []
    for _ in range(repeat):
        if cold:
            fs.discard_page_cache(path)
        else:
            fn()  # warm the page cache (and any lazily made buffers)
            sync()
        t0 = time.perf_counter()
        n = fn()
        sync()
        times.append(time.perf_counter() - t0)
        assert n == os.path.getsize(path), (n, os.path.getsize(path))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=2048, help="file size in MiB (default 2048)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=None, help="directory for the test file (default: $TMPDIR)")
    ap.add_argument("--keep", action="store_true", help="keep the file")
    args = ap.parse_args()
    nbytes = args.size << 20

    cp = None
    if fovea.gpu_available():
        try:
            import cupy as cp
        except ImportError:
            cp = None
    try:
        from cucim.clara import filesystem as cfs
    except Exception:  # not installed, or its native part fails to load
        cfs = None

    where = "device (CuPy)" if cp is not None else "HOST ONLY (no CuPy or no GPU: NumPy destination)"
    print(f"# fovea {fovea.__version__}; destination: {where}; file {nbytes / 1e9:.2f} GB")
    print(f"# cuFile: {fs.gds_status()}")
    print(f"# cuCIM: {'cucim.clara.filesystem' if cfs else 'not importable (skipped)'}")

    fd, path = tempfile.mkstemp(prefix="fovea-bench-", suffix=".bin", dir=args.dir)
    os.close(fd)
    try:
        make_file(path, nbytes)
        if cp is not None:
            dst = cp.empty(nbytes, dtype=cp.uint8)

            def sync():
                cp.cuda.Device().synchronize()
        else:
            dst = np.empty(nbytes, dtype=np.uint8)

            def sync():
                pass

        host = np.empty(nbytes, dtype=np.uint8)  # naive path's pageable buffer

        def fovea_read(flags, env=None):
            def run():
                old = os.environ.get("FOVEA_CUFILE")
                if env is not None:
                    os.environ["FOVEA_CUFILE"] = env
                try:
                    with fs.open(path, flags) as f:
                        return f.pread(dst, nbytes, 0)
                finally:
                    if env is not None:
                        if old is None:
                            os.environ.pop("FOVEA_CUFILE", None)
                        else:
                            os.environ["FOVEA_CUFILE"] = old

            return run

        def naive():
            fd_ = os.open(path, os.O_RDONLY)
            try:
                got = 0
                view = memoryview(host)
                while got < nbytes:
                    n = os.preadv(fd_, [view[got:]], got)
                    if n == 0:
                        break
                    got += n
            finally:
                os.close(fd_)
            if cp is not None:
                dst.set(host)  # cudaMemcpy from pageable memory
            return got

        def cucim_read(flags):
            def run():
                f = cfs.open(path, flags)
                try:
                    return f.pread(dst, nbytes, 0)
                finally:
                    f.close()

            return run

        with fs.open(path, "r") as f:
            backend_r, direct_r = f.backend, f.direct
        cases = [
            (f"fovea 'rn' (page cache, {'pinned staging' if cp is not None else 'host'})", fovea_read("rn")),
            (f"fovea 'r' ({backend_r}{', O_DIRECT' if direct_r else ', O_DIRECT refused'})", fovea_read("r")),
        ]
        if cp is not None and not fs.gds_status().startswith("unavailable"):
            cases.append(("fovea 'r' FOVEA_CUFILE=compat (cuFile)", fovea_read("r", "compat")))
        cases.append(("naive os.preadv + " + ("cupy set (cudaMemcpy)" if cp is not None else "nothing"), naive))
        if cfs is not None:
            cases.append(("cuCIM filesystem 'r'", cucim_read("r")))
            cases.append(("cuCIM filesystem 'rn'", cucim_read("rn")))

        rows = []
        for cold in (True, False):
            ref = None
            for name, fn in cases:
                try:
                    # without a GPU the naive reader stops in its host buffer
                    target = host if cp is None and name.startswith("naive") else dst
                    target.fill(0)
                    t = timed(fn, args.repeat, cold, path, sync)
                    check_content(path, target)
                except Exception as e:  # a peer that fails here: report, go on
                    rows.append((name, "cold" if cold else "warm", None, None, f"{type(e).__name__}: {e}"))
                    continue
                if ref is None:
                    ref = t
                rows.append((name, "cold" if cold else "warm", t, ref, ""))

        print(f"{'case':58s} {'cache':5s} {'time s':>8s} {'GB/s':>7s} {'ratio':>7s}")
        for name, cache, t, ref, err in rows:
            if t is None:
                print(f"{name:58s} {cache:5s} {'-':>8s} {'-':>7s} {'-':>7s}  {err}")
            else:
                print(f"{name:58s} {cache:5s} {t:8.3f} {nbytes / t / 1e9:7.2f} {t / ref:7.2f}")
        print("# ratio = this row's time / fovea 'rn' time, same cache state (> 1: fovea 'rn' faster)")
    finally:
        if not args.keep:
            os.unlink(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
