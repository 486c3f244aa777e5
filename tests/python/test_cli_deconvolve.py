"""`fovea deconvolve` (through `python -m fovea`, the same C code as the executable)
on stacks written by tifffile: equals fovea.skimage.restoration.richardson_lucy and
scikit-image's, reads uncompressed / deflate / OME-TIFF / float stacks, writes
OME-TIFF, and bad input gives clear errors."""
import os

import numpy as np
import pytest
import scipy.ndimage as ndi

tifffile = pytest.importorskip("tifffile")
from skimage.restoration import richardson_lucy  # noqa: E402
from test_cli import run as run_cli  # noqa: E402


def run(*args, ok=True):
    return run_cli("deconvolve", *args, ok=ok)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("deconv")
    rng = np.random.default_rng(5)
    truth = np.zeros((12, 40, 44), np.float32)
    truth[rng.integers(0, 12, 30), rng.integers(0, 40, 30), rng.integers(0, 44, 30)] = 400
    blur = (ndi.gaussian_filter(truth, (1.0, 1.5, 1.5)) + 2).astype(np.uint16)
    psf = np.zeros((7, 9, 9), np.float32)
    psf[3, 4, 4] = 1
    psf = ndi.gaussian_filter(psf, (1.0, 1.5, 1.5))
    tifffile.imwrite(d / "stack.tif", blur)
    tifffile.imwrite(d / "stack_zlib.tif", blur, compression="zlib", tile=(16, 16))
    tifffile.imwrite(d / "stack.ome.tif", blur.astype(np.float32),
                     metadata={"axes": "ZYX", "PhysicalSizeZ": 0.5, "PhysicalSizeY": 0.125, "PhysicalSizeX": 0.125})
    tifffile.imwrite(d / "psf.tif", psf)
    tifffile.imwrite(d / "plane.tif", blur[5])
    tifffile.imwrite(d / "rgb.tif", np.zeros((8, 8, 3), np.uint8), photometric="rgb")
    tifffile.imwrite(d / "channels.ome.tif", np.zeros((2, 3, 8, 8), np.uint16), metadata={"axes": "CZYX"})
    tifffile.imwrite(d / "zero_psf.tif", np.zeros((3, 4, 4), np.float32), photometric="minisblack")
    return d, blur, psf / psf.sum()


@pytest.mark.parametrize("name", ["stack.tif", "stack_zlib.tif", "stack.ome.tif"])
def test_deconvolve_psf_file(data, name):
    d, blur, psf = data
    out = d / f"out-{name}"
    p = run(str(d / name), "--psf", str(d / "psf.tif"), "-o", str(out), "--iterations", "12", "--device", "cpu",
            "--no-progress")
    assert p.stdout == ""
    with tifffile.TiffFile(out) as t:
        assert t.is_ome and t.series[0].axes == "ZYX"
        if name.endswith(".ome.tif"):   # the input's physical sizes are kept
            desc = t.pages[0].description
            assert 'PhysicalSizeZ="0.5"' in desc and 'PhysicalSizeX="0.125"' in desc
        got = t.asarray()
    assert got.dtype == np.float32 and got.shape == blur.shape
    want = richardson_lucy(blur.astype(np.float32), psf.astype(np.float32), 12, clip=False)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * want.max())


def test_deconvolve_sigma_2d_and_progress(data):
    d, blur, _ = data
    out = d / "plane-out.ome.tif"
    p = run(str(d / "plane.tif"), "--sigma", "1.5", "-o", str(out), "--iterations", "5", "--progress")
    assert "written (5 iterations on" in p.stdout and "100.0%" in p.stderr
    got = tifffile.imread(out)
    r = 6
    g = np.exp(-(np.arange(-r, r + 1) ** 2) / (2 * 1.5**2))
    psf = np.outer(g, g)
    want = richardson_lucy(blur[5].astype(np.float32), (psf / psf.sum()).astype(np.float32), 5, clip=False)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * want.max())


def test_deconvolve_errors(data, tmp_path):
    d, _, _ = data
    out = str(tmp_path / "x.tif")
    assert run(ok=False).returncode == 2
    assert run(str(d / "stack.tif"), "-o", out, ok=False).returncode == 2   # neither --psf nor --sigma
    p = run(str(d / "stack.tif"), "--sigma", "1", "--psf", str(d / "psf.tif"), "-o", out, ok=False)
    assert p.returncode == 2 and "exactly one" in p.stderr
    p = run(str(tmp_path / "missing.tif"), "--sigma", "1", "-o", out, ok=False)
    assert p.returncode == 1 and "missing.tif" in p.stderr
    p = run(str(d / "stack.tif"), "--sigma", "1,2", "-o", out, ok=False)
    assert p.returncode == 1 and "--sigma" in p.stderr
    p = run(str(d / "rgb.tif"), "--sigma", "1", "-o", out, ok=False)
    assert p.returncode == 1 and "single-channel" in p.stderr
    p = run(str(d / "channels.ome.tif"), "--sigma", "1", "-o", out, ok=False)
    assert p.returncode == 1 and "SizeC 2" in p.stderr
    p = run(str(d / "stack.tif"), "--psf", str(d / "zero_psf.tif"), "-o", out, ok=False)
    assert p.returncode == 1 and "positive" in p.stderr
    p = run(str(d / "plane.tif"), "--psf", str(d / "psf.tif"), "-o", out, ok=False)
    assert p.returncode == 1 and "planes" in p.stderr
    p = run(str(d / "stack.tif"), "--sigma", "1", "-o", out, "--iterations", "-3", ok=False)
    assert p.returncode == 2
    assert not os.path.exists(out)


@pytest.mark.gpu
def test_deconvolve_cuda_equals_cpu(data, tmp_path):
    d, _, _ = data
    a, b = tmp_path / "cpu.tif", tmp_path / "gpu.tif"
    run(str(d / "stack.tif"), "--psf", str(d / "psf.tif"), "-o", str(a), "--iterations", "20", "--device", "cpu")
    p = run(str(d / "stack.tif"), "--psf", str(d / "psf.tif"), "-o", str(b), "--iterations", "20", "--device",
            "cuda", "--progress")
    assert "on cuda:0" in p.stdout
    np.testing.assert_allclose(tifffile.imread(b), tifffile.imread(a), rtol=1e-4, atol=1e-3)


def test_deconvolve_dask_exact_and_usual(data):
    pytest.importorskip("distributed")
    d, blur, psf = data
    want = richardson_lucy(blur.astype(np.float32), psf.astype(np.float32), 6, clip=False)
    out = d / "dask-exact.ome.tif"
    p = run(str(d / "stack.ome.tif"), "--psf", str(d / "psf.tif"), "-o", str(out), "--iterations", "6",
            "--dask", "--workers", "2", "--chunks", "6,20,22", "--exact", "--device", "cpu", "--no-progress")
    assert p.stdout == ""
    with tifffile.TiffFile(out) as t:
        assert t.is_ome and t.series[0].axes == "ZYX"
        assert 'PhysicalSizeZ="0.5"' in t.pages[0].description
        got = t.asarray()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * want.max())
    # the usual overlap (the PSF's half size, periodic): close away from the chunk borders
    out2 = d / "dask-usual.ome.tif"
    run(str(d / "stack.tif"), "--sigma", "1.0,1.5,1.5", "-o", str(out2), "--iterations", "3", "--dask",
        "--workers", "1", "--device", "cpu", "--no-progress")
    assert tifffile.imread(out2).shape == blur.shape
    bad = run(str(d / "stack.tif"), "--sigma", "1,2", "-o", str(d / "x.tif"), "--dask", "--workers", "1",
              "--device", "cpu", ok=False)
    assert bad.returncode != 0 and "--sigma wants" in bad.stderr
