"""The GPU runtime (issue 26; docs/robustness.md "GPU runtime"): fovea in one process
with the other CUDA libraries, what its shared objects export and how it loads CUDA
libraries, and device faults.

- Import order: fovea imported before and after CuPy, PyTorch, JAX, cuCIM,
  nvImageCodec and numba-cuda (each that is installed), each pair in a fresh
  interpreter, both then used on the GPU. Where no GPU is usable the same scripts
  check the import order with the CPU packages (NumPy, SciPy, scikit-image, Pillow,
  tifffile, PyTorch's CPU build).
- Exports and loading: the extension exports PyInit__fovea only and needs the shared
  libstdc++ (tests/check-exports.sh); `import fovea` maps no CUDA library; nvJPEG and
  cuFile are loaded on first use, RTLD_LOCAL, from known names, out of the global
  symbol scope.
- Device faults: device allocation failures injected at every allocation of one
  call of each op family and of the GPU slide path, and a real out-of-memory with the
  card filled: MemoryError, nothing leaked from the pool, the next call right; one op
  from 16 threads on their own streams; fork after CUDA was initialised; streams
  destroyed with work queued; the interpreter exiting with work in flight.

FOVEA_IMPORT_RUNS (default 1) repeats every import-order case (the GPU machine's
check runs each five times).
"""

import gc
import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import fovea
from fovea import _fovea

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = int(os.environ.get("FOVEA_IMPORT_RUNS", "1"))
GPU = fovea.gpu_available()
# Inside compute-sanitizer (2025.3) Python objects outlive their scope: the tool keeps
# a reference to a Python frame of the stack it records at CUDA calls, and the frame
# keeps its locals (a CuPy-only script shows it: `r = outer(a)` has refcount 2, held
# by outer's frame, against 1 without the tool). So results stay allocated and the
# pool-return checks cannot hold there; they hold in the plain GPU run, and the
# sanitizer run (tools/gpu-check pysanitize) checks memory access and races.
UNDER_SANITIZER = bool(os.environ.get("FOVEA_TEST_SANITIZER"))


def _have(mod):
    try:
        return importlib.util.find_spec(mod) is not None
    except (ImportError, ValueError):
        return False


def _run(code, timeout=300, env=None):
    """Runs code in a fresh interpreter (fovea's package path first); (rc, output)."""
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(fovea.__file__)),
                                       e.get("PYTHONPATH", "")])
    e["PYTHONFAULTHANDLER"] = "1"
    e.update(env or {})
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                       timeout=timeout, env=e)
    return p.returncode, p.stdout + p.stderr


# ---- import order ------------------------------------------------------------------------------

# What each peer does once imported: (module to import, code using it on the GPU, code
# using it on the CPU or None). `x` is a float32 NumPy image, `fovea_gpu(y)` runs a
# fovea filter on a CuPy array and checks it against the CPU result.
PEERS = {
    "cupy": ("cupy", """
        import cupy
        from cupyx.scipy import ndimage as cndi
        d = cupy.asarray(x)
        ours = fovea.ndimage.gaussian_filter(d, 2.0)
        assert isinstance(ours, cupy.ndarray)
        assert float(abs(ours - cndi.gaussian_filter(d, 2.0)).max()) < 1e-4
        fovea_gpu(d)
        """, None),
    "torch": ("torch", """
        import torch
        t = torch.from_numpy(x).cuda()
        ours = fovea.ndimage.gaussian_filter(t, 2.0)
        assert isinstance(ours, torch.Tensor) and ours.is_cuda
        np.testing.assert_allclose(ours.cpu().numpy(), fovea.ndimage.gaussian_filter(x, 2.0), atol=1e-5)
        assert float((t @ t.T).sum().item()) != 0
        """, """
        import torch
        t = torch.from_numpy(x)
        np.testing.assert_allclose(fovea.ndimage.gaussian_filter(t, 2.0).numpy(),
                                   fovea.ndimage.gaussian_filter(x, 2.0))
        """),
    "jax": ("jax", """
        import jax, jax.numpy as jnp
        assert any(d.platform == "gpu" for d in jax.devices())
        j = jnp.asarray(x)
        assert abs(float(jnp.sum(j)) - float(x.sum(dtype=np.float64))) < 1e-2 * x.size
        fovea_gpu(None)
        """, None),
    "cucim": ("cucim.skimage.filters", """
        import cupy
        from cucim.skimage import filters as cf
        d = cupy.asarray(x)
        ref = cf.gaussian(d, sigma=2.0, preserve_range=True)
        ours = fovea.skimage.filters.gaussian(d, sigma=2.0, preserve_range=True)
        assert float(abs(ours - ref).max()) < 1e-4
        fovea_gpu(d)
        """, None),
    "nvimgcodec": ("nvidia.nvimgcodec", """
        import io
        from PIL import Image
        from nvidia import nvimgcodec
        rgb = (np.stack([x, x, x], -1) * 255).astype(np.uint8)
        buf = io.BytesIO(); Image.fromarray(rgb).save(buf, format="PNG")
        img = nvimgcodec.Decoder().decode(buf.getvalue())
        assert np.array_equal(np.asarray(img.cpu()), rgb)
        fovea_gpu(None)
        """, None),
    "numba": ("numba.cuda", """
        from numba import cuda
        dx = cuda.to_device(x)
        assert np.array_equal(dx.copy_to_host(), x)
        fovea_gpu(None)
        """, None),
    # CPU-only packages: where no GPU is usable these are the whole check
    "scipy": ("scipy.ndimage", None, """
        from scipy import ndimage as sndi
        np.testing.assert_allclose(fovea.ndimage.gaussian_filter(x, 2.0), sndi.gaussian_filter(x, 2.0),
                                   rtol=1e-5, atol=1e-6)
        """),
    "skimage": ("skimage.filters", None, """
        import skimage.filters, skimage.measure
        lab = skimage.measure.label(x > 0.5)
        assert np.array_equal(fovea.skimage.measure.label(x > 0.5), lab)
        """),
    "PIL": ("PIL.Image", None, """
        import io
        from PIL import Image
        buf = io.BytesIO(); Image.fromarray((x * 255).astype(np.uint8)).save(buf, format="PNG")
        assert Image.open(buf).size == x.shape[::-1]
        """),
    "tifffile": ("tifffile", None, """
        import io, tifffile
        buf = io.BytesIO(); tifffile.imwrite(buf, x); buf.seek(0)
        assert np.array_equal(tifffile.imread(buf), x)
        """),
}

_PRELUDE = """
import faulthandler, sys
faulthandler.enable()
import numpy as np
x = np.random.default_rng(0).random((96, 80), dtype=np.float32)
def fovea_gpu(d):
    import cupy
    d = cupy.asarray(x) if d is None else d
    ours = fovea.ndimage.median_filter(d, size=3)
    np.testing.assert_array_equal(cupy.asnumpy(ours), fovea.ndimage.median_filter(x, size=3))
"""


def _order_script(peer, fovea_first):
    mod, gpu_use, cpu_use = PEERS[peer]
    imp_f = "import fovea, fovea.ndimage, fovea.skimage.filters, fovea.skimage.measure\n"
    imp_p = f"import {mod}\n"
    use = gpu_use if (GPU and gpu_use) else cpu_use
    return (_PRELUDE + (imp_f + imp_p if fovea_first else imp_p + imp_f) +
            textwrap.dedent(use or "") + "\nprint('IMPORT-ORDER-OK')\n")


def _peer_cases():
    cases = []
    for peer, (mod, gpu_use, cpu_use) in PEERS.items():
        top = mod.split(".")[0]
        if not _have(top):
            continue
        if (GPU and gpu_use) or cpu_use:
            for first in (True, False):
                for r in range(RUNS):
                    cases.append(pytest.param(peer, first, r, id=f"{'fovea-' + peer if first else peer + '-fovea'}-{r}"))
    return cases


@pytest.mark.parametrize("peer,fovea_first,run", _peer_cases())
def test_import_order(peer, fovea_first, run):
    rc, out = _run(_order_script(peer, fovea_first))
    assert rc == 0 and "IMPORT-ORDER-OK" in out, f"rc={rc}\n{out[-4000:]}"


def test_import_order_cases_exist():
    # the CPU packages the tests need are always there: the check above can never be empty
    assert _peer_cases(), "no import-order case: neither GPU peers nor CPU packages found"


# ---- what the shared objects export, how CUDA libraries are loaded --------------------------------


@pytest.mark.skipif(not (shutil.which("nm") and shutil.which("readelf")), reason="binutils (nm, readelf) missing")
def test_extension_exports_only_its_init():
    script = os.path.join(ROOT, "tests", "check-exports.sh")
    if not os.path.exists(script):
        pytest.skip("tests/check-exports.sh not found (installed package without the sources)")
    # libfovea.so is checked by ctest's check_exports; here the module that was imported
    p = subprocess.run(["bash", script, _fovea.__file__], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_import_maps_no_cuda_library():
    # import fovea (and a CPU op) loads no CUDA library and initialises nothing on the GPU
    rc, out = _run("""
        import numpy as np, fovea, fovea.ndimage
        fovea.ndimage.gaussian_filter(np.ones((8, 8), np.float32), 1.0)
        maps = open("/proc/self/maps").read()
        import re
        libs = sorted(set(re.findall(r"/(lib(?:cuda|cudart|nvjpeg|cufile|nvrtc|cublas)[^/\\s]*)", maps)))
        print("CUDA-LIBS", libs, fovea._fovea._loaded_libraries())
    """)
    assert rc == 0, out
    assert "CUDA-LIBS [] []" in out, out


@pytest.mark.gpu
def test_cuda_libraries_loaded_locally(tmp_path):
    # nvJPEG (fovea.config names the GPU decoder) and cuFile (fovea.filesystem) are
    # loaded on first use, RTLD_NOW | RTLD_LOCAL, by their sonames or from the CUDA
    # toolkit, and their symbols stay out of the process's global scope
    rc, out = _run(f"""
        import ctypes, json, os, fovea, fovea.filesystem
        fovea.config()
        fovea.filesystem.gds_status()
        recs = fovea._fovea._loaded_libraries()
        glob = ctypes.CDLL(None)
        visible = [s for s in ("nvjpegCreateSimple", "cuFileDriverOpen", "cudaMalloc", "cudaMallocAsync",
                               "__cudaRegisterFatBinary", "fv_gaussian_filter")
                   if hasattr(glob, s)]
        print("LOADED", json.dumps(recs))
        print("GLOBAL", json.dumps(visible))
    """)
    assert rc == 0, out
    import json
    recs = json.loads(out.split("LOADED ", 1)[1].splitlines()[0])
    visible = json.loads(out.split("GLOBAL ", 1)[1].splitlines()[0])
    assert visible == [], f"symbols reachable from the global scope: {visible}"
    whats = [r["what"] for r in recs]
    assert whats.count("nvjpeg") <= 1 and whats.count("cufile") <= 1, recs
    allowed = {"nvjpeg": ("libnvjpeg.so.13", "libnvjpeg.so"), "cufile": ("libcufile.so.0", "libcufile.so")}
    for r in recs:
        assert r["flags"][:2] == ["RTLD_NOW", "RTLD_LOCAL"], r
        assert os.path.basename(r["requested"]) in allowed[r["what"]], r
        assert os.path.isabs(r["path"]) or r["path"] == "", r
        assert os.path.basename(r["path"]).startswith(allowed[r["what"]][1]), r
    assert "nvjpeg" in whats, f"nvJPEG was not loaded: {fovea.config()['nvjpeg']}"


# ---- device faults ------------------------------------------------------------------------------


def _families(cp, rng):
    """(name, fn) of one call per op family on CuPy data (the fovea result as NumPy)."""
    import fovea.ndimage as ndi
    from fovea.skimage import color, exposure, filters, measure, metrics, morphology, segmentation

    img = cp.asarray(rng.random((192, 160), dtype=np.float32))
    u8 = cp.asarray((rng.random((192, 160)) * 255).astype(np.uint8))
    mask = img > 0.5
    rgb = cp.asarray(rng.random((64, 48, 3), dtype=np.float32))
    markers = cp.zeros(img.shape, np.int32)
    markers[10, 10], markers[150, 120], markers[90, 40] = 1, 2, 3
    g = cp.asnumpy
    return [
        ("core.astype", lambda: g(fovea.astype(u8, np.float32))),
        ("ndimage.gaussian_filter", lambda: g(ndi.gaussian_filter(img, 3.0))),
        ("ndimage.median_filter", lambda: g(ndi.median_filter(img, size=5))),
        ("ndimage.correlate", lambda: g(ndi.correlate(img, cp.ones((3, 5), np.float32)))),
        ("ndimage.binary_erosion", lambda: g(ndi.binary_erosion(mask, iterations=2))),
        ("ndimage.distance_transform_edt", lambda: g(ndi.distance_transform_edt(mask))),
        ("ndimage.label", lambda: g(ndi.label(mask)[0])),
        ("morphology.reconstruction", lambda: g(morphology.reconstruction(img * 0.5, img))),
        ("morphology.local_maxima", lambda: g(morphology.local_maxima(u8))),
        ("morphology.thin", lambda: g(morphology.thin(mask))),
        ("morphology.remove_small_objects", lambda: g(morphology.remove_small_objects(mask, 20))),
        ("measure.label", lambda: g(measure.label(mask))),
        ("measure.regionprops_table", lambda: {k: g(cp.asarray(v)) for k, v in measure.regionprops_table(
            measure.label(mask), img, properties=("label", "area", "centroid", "intensity_mean")).items()}),
        ("segmentation.watershed", lambda: g(segmentation.watershed(img, markers))),
        ("exposure.histogram", lambda: g(exposure.histogram(u8)[0])),
        ("exposure.equalize_adapthist", lambda: g(exposure.equalize_adapthist(img))),
        ("filters.threshold_otsu", lambda: float(filters.threshold_otsu(u8))),
        ("filters.sobel", lambda: g(filters.sobel(img))),
        ("filters.frangi", lambda: g(filters.frangi(img[:64, :64]))),
        ("color.rgb2hsv", lambda: g(color.rgb2hsv(rgb))),
        ("metrics.structural_similarity", lambda: float(metrics.structural_similarity(
            img, img * 0.9, data_range=1.0))),
    ]


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def _pool_used(release=False):
    gc.collect()
    if release:
        _fovea.gpu_release()
    return _fovea._cuda_pool(0)


def _inject_every(fn, ref, name, release=False):
    """Fails each device allocation of one call of fn in turn, then all of them:
    MemoryError (or the same result, where a failure only costs speed), nothing left
    in the pool, the next call equal to ref. Returns the call's allocation count."""
    base = _pool_used(release)
    _fovea._fault_arm("device_alloc", 0)
    try:
        assert _same(fn(), ref), name
        n = _fovea._fault_stats("device_alloc")[0]
    finally:
        _fovea._fault_arm("device_alloc", -1)
    outcomes = []
    for k, every in [(k, False) for k in range(1, n + 1)] + ([(1, True)] if n else []):
        _fovea._fault_arm("device_alloc", k, every)
        try:
            got = fn()
            outcomes.append("ok")
            assert _same(got, ref), f"{name}: allocation {k} failed and the result differs"
        except MemoryError as e:
            outcomes.append("MemoryError")
            assert "out of device memory" in str(e) or "cudaErrorMemoryAllocation" in str(e) or \
                "out of memory" in str(e).lower(), f"{name}: unclear message {e!r}"
        finally:
            failed = _fovea._fault_stats("device_alloc")[1]
            _fovea._fault_arm("device_alloc", -1)
        assert failed >= 1, f"{name}: allocation {k} of {n} never happened"
        if not UNDER_SANITIZER:
            assert _pool_used(release) == base, f"{name}: allocation {k} failing leaked device memory"
        assert _same(fn(), ref), f"{name}: the call after a failed one differs"
    if n:
        assert "MemoryError" in outcomes, f"{name}: no failure reached the caller: {outcomes}"
    return n


@pytest.mark.gpu
def test_device_alloc_failure_every_family(cp, rng):
    counts = {}
    for name, fn in _families(cp, rng):
        ref = fn()
        counts[name] = _inject_every(fn, ref, name)
    # the families that allocate device memory of their own
    for name in ("ndimage.label", "measure.label", "segmentation.watershed", "morphology.local_maxima",
                 "morphology.reconstruction", "exposure.equalize_adapthist", "measure.regionprops_table"):
        assert counts[name] > 0, f"{name} made no device allocation to fail: {counts}"
    print("device allocations per call:", counts)


def _jpeg_slide(tmp_path, rng):
    tifffile = pytest.importorskip("tifffile")
    y, x = np.mgrid[0:600, 0:700]
    base = np.stack([(x * 255 // 700), (y * 255 // 600), ((x + y) % 256)], -1).astype(np.uint8)
    base = np.clip(base.astype(np.int16) + rng.integers(-8, 8, base.shape), 0, 255).astype(np.uint8)
    raw = str(tmp_path / "raw.tif")
    tifffile.imwrite(raw, base, tile=(256, 256), photometric="rgb")
    out = str(tmp_path / "jpeg.tif")
    assert _fovea.cli_main(["fovea", "convert", raw, out, "--compression", "jpeg", "--quality", "90"]) == 0
    return out


@pytest.mark.gpu
def test_device_alloc_failure_gpu_slide_path(cp, rng, tmp_path):
    path = _jpeg_slide(tmp_path, rng)
    slide = fovea.open(path)

    def fn():
        # every call decodes (and allocates) again; the GPU read path's buffers (kept
        # between reads, grown as needed) go too, so that the pool check sees leaks only
        _fovea.gpu_release()
        return cp.asnumpy(slide.read_region((37, 21), (500, 400), 0, device="cuda"))

    ref = fn()
    cpu = np.asarray(slide.read_region((37, 21), (500, 400), 0))
    assert np.abs(ref.astype(int) - cpu).mean() < 1.0
    n = _inject_every(fn, ref, "read_region(device='cuda')", release=True)
    assert n > 0
    slide.close()


@pytest.mark.gpu
def test_device_out_of_memory_with_the_card_full(cp, rng):
    from fovea.skimage import measure
    import fovea.ndimage as ndi

    mask = cp.asarray(rng.random((4096, 4096)) > 0.5)
    img = cp.asarray(rng.random((4096, 4096), dtype=np.float32))
    ref_l = cp.asnumpy(measure.label(mask))
    ref_g = cp.asnumpy(ndi.gaussian_filter(img, 4.0))
    cp.cuda.Device().synchronize()
    pool = cp.get_default_memory_pool()
    base = _pool_used()
    _fovea._cuda_pool(0, trim=True)   # what fovea's pool keeps for reuse would let it dodge the shortage
    pool.free_all_blocks()      # and so would CuPy's cached blocks
    hog = []
    raised = {}
    try:
        # fill the card (plain device allocations, in 1 GiB pieces) to within 32 MiB
        step = 1 << 30
        while True:
            free, _ = cp.cuda.runtime.memGetInfo()
            if free <= (48 << 20):
                break
            try:
                hog.append(cp.empty(min(step, free - (32 << 20)), np.uint8))
            except cp.cuda.memory.OutOfMemoryError:
                if step <= (16 << 20):
                    break
                step //= 4
        for name, fn in (("label", lambda: measure.label(mask)), ("gaussian", lambda: ndi.gaussian_filter(img, 4.0))):
            try:
                r = fn()
                cp.cuda.Device().synchronize()
                del r
                raised[name] = None
            except MemoryError as e:
                raised[name] = f"{type(e).__name__}: {e}"
    finally:
        free_left = cp.cuda.runtime.memGetInfo()[0]
        hog.clear()
        pool.free_all_blocks()
    assert all(raised.values()), f"no MemoryError with {free_left >> 20} MiB free: {raised}"
    print("card full:", raised)
    assert _pool_used() == base
    np.testing.assert_array_equal(cp.asnumpy(measure.label(mask)), ref_l)
    np.testing.assert_array_equal(cp.asnumpy(ndi.gaussian_filter(img, 4.0)), ref_g)


@pytest.mark.gpu
def test_sixteen_threads_own_streams(cp, rng):
    import fovea.ndimage as ndi
    from fovea.skimage import measure

    ndev = cp.cuda.runtime.getDeviceCount()
    inputs = [rng.random((256 + 8 * i, 300), dtype=np.float32) for i in range(16)]

    def work(x):
        return (cp.asnumpy(ndi.gaussian_filter(x, 2.5)), cp.asnumpy(ndi.median_filter(x, size=5)),
                cp.asnumpy(measure.label(x > 0.6)), cp.asnumpy(ndi.distance_transform_edt(x > 0.3)))

    serial = []
    for i, h in enumerate(inputs):
        with cp.cuda.Device(i % ndev):
            serial.append(work(cp.asarray(h)))
    results = [None] * 16
    errors = []
    barrier = threading.Barrier(16)

    def thread(i):
        try:
            with cp.cuda.Device(i % ndev):
                s = cp.cuda.Stream(non_blocking=True)
                with s:
                    x = cp.asarray(inputs[i])
                    barrier.wait()
                    outs = []
                    for _ in range(3):
                        outs.append(work(x))
                    s.synchronize()
                results[i] = outs
        except BaseException as e:  # reported below
            errors.append((i, repr(e)))

    ts = [threading.Thread(target=thread, args=(i,)) for i in range(16)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in ts), "a thread hung"
    assert not errors, errors
    for i in range(16):
        for rep in results[i]:
            for got, want in zip(rep, serial[i]):
                np.testing.assert_array_equal(got, want)


_FORK_CHILD = """
import multiprocessing as mp, os, numpy as np, fovea, fovea.ndimage as ndi
{setup}
def child(conn):
    out = {{"gpu_available": fovea.gpu_available()}}
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    out["cpu_ok"] = bool(np.allclose(ndi.gaussian_filter(x, 1.0), ref_cpu))
    try:
        ndi.gaussian_filter(d, 1.0)
        out["gpu"] = "ran"
    except Exception as e:   # CuPy may refuse first (its own allocation): clear either way
        out["gpu"] = type(e).__name__ + ": " + str(e)
    try:
        fovea.empty((8, 8), "float32", device="cuda")   # fovea's own device path
        out["fovea"] = "ran"
    except Exception as e:
        out["fovea"] = type(e).__name__ + ": " + str(e)
    conn.send(out)
x = np.arange(64, dtype=np.float32).reshape(8, 8)
ref_cpu = ndi.gaussian_filter(x, 1.0)
ctx = mp.get_context("fork")
a, b = ctx.Pipe()
p = ctx.Process(target=child, args=(b,))
p.start()
p.join(60)
if p.is_alive():
    p.kill(); print("CHILD HUNG"); raise SystemExit(3)
print("CHILD", p.exitcode, a.recv() if a.poll(1) else None)
# the parent still works
import cupy
np.testing.assert_allclose(cupy.asnumpy(ndi.gaussian_filter(d, 1.0)), ndi.gaussian_filter(cupy.asnumpy(d), 1.0),
                           atol=1e-6)
print("PARENT-OK")
"""


@pytest.mark.gpu
@pytest.mark.parametrize("who", ["fovea", "cupy"])
def test_fork_after_cuda_init(cp, who):
    # fovea: fovea's backend was initialised in the parent (a GPU op ran); cupy: only
    # CuPy touched the GPU. Either way the child's GPU call fails clearly, its CPU call
    # works, nothing hangs, and the parent goes on working.
    setup = ("import cupy\nd = cupy.asarray(np.ones((8, 8), np.float32))\n" +
             ("ndi.gaussian_filter(d, 1.0)\n" if who == "fovea" else "float(d.sum())\n"))
    rc, out = _run(_FORK_CHILD.format(setup=setup), timeout=180)
    assert rc == 0 and "PARENT-OK" in out, out
    child = out.split("CHILD ", 1)[1].splitlines()[0]
    assert child.startswith("0 {"), out
    assert "'cpu_ok': True" in child, child
    assert "'gpu_available': False" in child, child
    fov = child.split("'fovea': ", 1)[1]
    assert "DeviceError" in fov and ("fork" in fov or "initialization error" in fov), child
    gpu = child.split("'gpu': ", 1)[1]
    assert "Error" in gpu and ("fork" in gpu or "nitialization" in gpu), child


@pytest.mark.gpu
def test_stream_destroyed_with_work_queued(cp, rng):
    import fovea.ndimage as ndi
    from fovea.skimage import measure

    x = cp.asarray(rng.random((2048, 2048), dtype=np.float32))
    ref_g = cp.asnumpy(ndi.gaussian_filter(x, 6.0))
    ref_l = cp.asnumpy(measure.label(x > 0.7))
    for _ in range(3):
        s = cp.cuda.Stream(non_blocking=True)
        with s:
            g = ndi.gaussian_filter(x, 6.0)
            lab = measure.label(x > 0.7)
        del s   # cudaStreamDestroy with the work still queued
        gc.collect()
        cp.cuda.Device().synchronize()
        np.testing.assert_array_equal(cp.asnumpy(g), ref_g)
        np.testing.assert_array_equal(cp.asnumpy(lab), ref_l)
        del g, lab


@pytest.mark.gpu
def test_torch_stream_destroyed_with_work_queued(torch_cuda, rng):
    torch = torch_cuda
    import fovea.ndimage as ndi

    h = rng.random((2048, 2048), dtype=np.float32)
    ref = ndi.gaussian_filter(h, 6.0)
    t = torch.from_numpy(h).cuda()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        s.wait_stream(torch.cuda.default_stream())
        g = ndi.gaussian_filter(t, 6.0)
    del s
    gc.collect()
    torch.cuda.synchronize()
    np.testing.assert_allclose(g.cpu().numpy(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.gpu
@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_exit_with_work_in_flight(lib):
    if not _have(lib):
        pytest.skip(f"{lib} not installed")
    make = ("import cupy\nx = cupy.random.default_rng(1).random((4096, 4096), dtype=cupy.float32)\n"
            "s = cupy.cuda.Stream(non_blocking=True); s.use()\n" if lib == "cupy" else
            "import torch\nx = torch.rand(4096, 4096, device='cuda')\n")
    rc, out = _run(make + """
import fovea.ndimage as ndi
from fovea.skimage import measure
keep = []
for i in range(12):
    keep.append(ndi.gaussian_filter(x, 8.0))
    keep.append(measure.label(x > 0.9))
print("QUEUED", flush=True)
""")
    assert rc == 0 and "QUEUED" in out, out
    assert "Fatal Python error" not in out and "Segmentation" not in out, out
