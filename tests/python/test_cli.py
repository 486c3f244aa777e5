"""The fovea command line (through `python -m fovea`, the same C code as the executable)
on slides written by tifffile: info, read, convert, patches, and bad input."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

tifffile = pytest.importorskip("tifffile")


def run(*args, ok=True):
    p = subprocess.run([sys.executable, "-m", "fovea", *args], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    if ok:
        assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def slide(tmp_path_factory):
    rng = np.random.default_rng(3)
    h, w = 1037, 1531
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([128 + 90 * np.sin(xx / 23.0), 128 + 80 * np.cos(yy / 31.0), 128 + 70 * np.sin((xx + yy) / 19.0)], -1)
    img = np.clip(img + rng.normal(0, 8, img.shape), 0, 255).astype(np.uint8)
    path = str(tmp_path_factory.mktemp("cli") / "s.tif")
    with tifffile.TiffWriter(path) as tw:
        tw.write(img, tile=(256, 256), compression="zlib", photometric="rgb")
        tw.write(img[::2, ::2], tile=(256, 256), compression="zlib", photometric="rgb", subfiletype=1)
    return path, img


def test_version_and_help():
    assert run("--version").stdout.startswith("fovea ")
    out = run("--help").stdout
    for cmd in ("info", "read", "convert", "patches", "demo"):
        assert cmd in out
    assert run("frobnicate", ok=False).returncode == 2


def test_info_file(slide):
    path, img = slide
    meta = json.loads(run("info", path, "--json").stdout)
    assert meta["vendor"] == "generic-tiff"
    assert [(l["width"], l["height"]) for l in meta["levels"]] == [(1531, 1037), (766, 519)]
    assert meta["properties"]["openslide.level-count"] == "2"
    assert "levels      : 2" in run("info", path).stdout


def test_read_npy_png_tiff(slide, tmp_path):
    path, img = slide
    out = tmp_path / "r.npy"
    run("read", path, "--location", "250", "300", "--size", "400", "200", "-o", str(out))
    np.testing.assert_array_equal(np.load(out), img[300:500, 250:650])
    run("read", path, "--location", "1400", "1000", "--size", "200", "100", "-o", str(tmp_path / "edge.npy"))
    edge = np.load(tmp_path / "edge.npy")
    np.testing.assert_array_equal(edge[:37, :131], img[1000:, 1400:])
    assert (edge[37:] == 255).all() and (edge[:, 131:] == 255).all()
    run("read", path, "--size", "64", "48", "-o", str(tmp_path / "r.tiff"))
    np.testing.assert_array_equal(tifffile.imread(tmp_path / "r.tiff"), img[:48, :64])
    run("read", path, "--size", "64", "48", "--format", "rgba", "-o", str(tmp_path / "r.png"))
    png = (tmp_path / "r.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    try:
        from PIL import Image
        a = np.asarray(Image.open(tmp_path / "r.png"))
        np.testing.assert_array_equal(a[..., :3], img[:48, :64])
        assert (a[..., 3] == 255).all()
    except ImportError:
        pass


def test_convert_roundtrip(slide, tmp_path):
    path, img = slide
    out = tmp_path / "c.tif"
    run("convert", path, str(out), "--compression", "deflate", "--tile-size", "128", "--no-progress")
    with tifffile.TiffFile(out) as tf:
        assert tf.pages[0].is_tiled and tf.pages[0].tilewidth == 128
        np.testing.assert_array_equal(tf.pages[0].asarray(), img)
        sizes = [p.shape[:2] for p in tf.pages]
    assert sizes[:3] == [(1037, 1531), (519, 766), (260, 383)] and sizes[-1][0] <= 128 and sizes[-1][1] <= 128
    # each level is the area mean of the one above (2x2 blocks, halves rounded up; a partial
    # block at an odd edge averages the pixels it has): resize_local_mean, where blocks are whole
    from fovea.skimage.transform import resize_local_mean
    with tifffile.TiffFile(out) as tf:
        l1 = tf.pages[1].asarray()
    want = np.floor(resize_local_mean(img[:1036, :1530], (518, 765), preserve_range=True, channel_axis=-1) + 0.5)
    np.testing.assert_array_equal(l1[:518, :765], want.astype(np.uint8))
    run("convert", path, str(tmp_path / "j.tif"), "--quality", "85", "--no-progress")
    with tifffile.TiffFile(tmp_path / "j.tif") as tf:
        j = tf.pages[0].asarray()
        assert tf.pages[0].compression == 7 and tf.pages[0].photometric == 6
    assert np.abs(j.astype(int) - img).mean() < 8   # q85, 4:2:0, on noisy content
    run("read", str(tmp_path / "j.tif"), "-o", str(tmp_path / "j.npy"))
    assert np.abs(np.load(tmp_path / "j.npy").astype(int) - j).mean() < 1


def test_patches(slide, tmp_path):
    path, img = slide
    run("patches", path, "--size", "256", "--stride", "300", "--out", str(tmp_path / "p.npy"), "--workers", "2",
        "--no-progress")
    p = np.load(tmp_path / "p.npy")
    nx, ny = (1531 - 256) // 300 + 1, (1037 - 256) // 300 + 1
    assert p.shape == (nx * ny, 256, 256, 3)
    for k in (0, nx + 1, nx * ny - 1):
        y, x = divmod(k, nx)
        np.testing.assert_array_equal(p[k], img[y * 300:y * 300 + 256, x * 300:x * 300 + 256])
    run("patches", path, "--level", "1", "--size", "200", "--out", str(tmp_path / "d"), "--no-progress")
    assert len(os.listdir(tmp_path / "d")) == (766 // 200) * (519 // 200)


def test_bad_input(tmp_path):
    bad = tmp_path / "bad.tif"
    bad.write_bytes(b"II*\x00\xff\xff\xff\x7f")
    p = run("info", str(bad), ok=False)
    assert p.returncode == 1 and "tiff" in p.stderr
    p = run("read", str(tmp_path / "missing.tif"), "-o", str(tmp_path / "x.npy"), ok=False)
    assert p.returncode == 1 and "missing.tif" in p.stderr
    assert run("read", "x.tif", ok=False).returncode == 2
    assert run("convert", "only-one-arg", ok=False).returncode == 2
    assert run("patches", "x.tif", "--size", "0", "--out", "y.npy", ok=False).returncode == 2
