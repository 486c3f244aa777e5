"""Slides written by libvips (`vips tiffsave --tile --pyramid`, also `--subifd`), read by
fovea and compared with tifffile (pixels of every level) and openslide-python (levels,
downsamples, pixels) — the third-party writer the reader issue asks for besides tifffile."""
import shutil
import subprocess

import numpy as np
import pytest

import fovea

tifffile = pytest.importorskip("tifffile")

import slides  # noqa: E402 (tests/python/slides.py; needs tifffile)
VIPS = shutil.which("vips")
pytestmark = pytest.mark.skipif(VIPS is None, reason="libvips-tools (the vips command) is not installed")


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    rng = np.random.default_rng(9)
    h, w = 1301, 1777
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([150 + 80 * np.sin(xx / 41.0) * np.cos(yy / 37.0), 120 + 70 * np.cos((xx - yy) / 53.0),
                    170 + 60 * np.sin(yy / 29.0)], -1)
    img = np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)
    path = tmp_path_factory.mktemp("vips") / "src.tif"
    tifffile.imwrite(path, img, photometric="rgb")
    return path, img


def vips_save(src, dst, *args):
    subprocess.run([VIPS, "tiffsave", str(src), str(dst), "--tile", "--pyramid", *args], check=True,
                   capture_output=True)


@pytest.mark.parametrize("compression,args", [
    ("jpeg", ["--Q", "90"]), ("deflate", []), ("lzw", []), ("none", []),
    ("jpeg", ["--bigtiff", "--tile-width", "240", "--tile-height", "240"]),
    ("deflate", ["--subifd", "--tile-width", "512", "--tile-height", "512"]),
    ("jpeg", ["--subifd", "--bigtiff"]),
])
def test_vips_pyramids_match_tifffile(source, tmp_path, compression, args):
    src, img = source
    out = tmp_path / "v.tif"
    vips_save(src, out, "--compression", compression, *args)
    levels = slides.tifffile_levels(out)
    im = fovea.open(str(out))
    dims = im.resolutions["level_dimensions"]
    assert len(dims) == len(levels)
    for k, ref in enumerate(levels):
        assert dims[k] == (ref.shape[1], ref.shape[0])
        got = im.read_region((0, 0), None, k)
        diff = np.abs(got.astype(np.int16) - ref[..., :3])
        if compression == "jpeg":
            assert diff.mean() < 1, (k, diff.mean())
        else:
            assert diff.max() == 0, k
    # a region straddling tiles and the image edge at level 1
    ds = im.resolutions["level_downsamples"][1]
    x0, y0 = int(np.ceil(700 * ds)), int(np.ceil(500 * ds))
    r = im.read_region((x0, y0), (300, 200), 1)
    ref = levels[1]
    h, w = ref.shape[:2]
    inside = r[:max(0, min(200, h - 500)), :max(0, min(300, w - 700))]
    want = ref[500:500 + inside.shape[0], 700:700 + inside.shape[1], :3]
    tol = 1 if compression == "jpeg" else 0
    assert np.abs(inside.astype(np.int16) - want).mean() <= tol


@pytest.mark.parametrize("compression", ["jpeg", "deflate"])
def test_vips_pyramids_match_openslide(source, tmp_path, compression):
    openslide = pytest.importorskip("openslide")
    src, _ = source
    out = tmp_path / "o.tif"
    vips_save(src, out, "--compression", compression)
    with openslide.OpenSlide(str(out)) as ref, fovea.OpenSlide(str(out)) as ours:
        assert ours.level_count == ref.level_count
        assert ours.level_dimensions == ref.level_dimensions
        np.testing.assert_allclose(ours.level_downsamples, ref.level_downsamples)
        for k in range(ref.level_count):
            # level origin: fovea maps floor(x / downsample) to whole pixels (no resampling);
            # OpenSlide paints at the fractional offset, so compare where both are exact
            loc = (123, 77) if k == 0 else (0, 0)
            a = np.asarray(ours.read_region(loc, k, (257, 190)))
            b = np.asarray(ref.read_region(loc, k, (257, 190)))
            assert np.abs(a.astype(np.int16) - b).mean() < (1 if compression == "jpeg" else 1e-9)
        for key in ("openslide.vendor", "openslide.level-count", "tiff.Software"):
            assert ours.properties.get(key) == ref.properties.get(key)
