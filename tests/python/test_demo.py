"""fovea demo (python/fovea/demo.py): the workflow end to end on a few patches of
the sample slide, its files, and its agreement with the scikit-image pipeline."""
import csv
import os

import numpy as np
import pytest

from fovea import demo

pytest.importorskip("skimage")


def test_raw_tiff_and_png_writers(tmp_path):
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (67, 45, 3), dtype=np.uint8)
    t = str(tmp_path / "raw.tif")
    demo._write_raw_tiff(t, img, rows_per_strip=16)
    import fovea
    assert np.array_equal(fovea.open(t).read_region((0, 0), (45, 67), 0), img)
    tifffile = pytest.importorskip("tifffile")
    assert np.array_equal(tifffile.imread(t), img)
    p = str(tmp_path / "x.png")
    demo.write_png(p, img)
    Image = pytest.importorskip("PIL.Image")
    assert np.array_equal(np.asarray(Image.open(p)), img)


def test_demo_cpu_matches_scikit_image(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = tmp_path / "out"
    rc = demo.main(["--device", "cpu", "--patches", "6", "--batch-size", "4", "--patch-size", "256",
                    "--overlays", "2", "--out", str(out), "--compare", "--no-progress"])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "same nuclei in 6 of 6 patches" in text
    assert os.path.exists(demo.default_slide_path())
    pngs = sorted(f for f in os.listdir(out) if f.endswith(".png"))
    assert len(pngs) == 2
    with open(out / "nuclei.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0][:5] == ["patch", "x0", "y0", "label", "area"]
    assert "intensity_mean" in rows[0] and "centroid-1" in rows[0]
    n = int(text.split(" nuclei in ")[0].rsplit(" ", 1)[1])
    assert n == len(rows) - 1 > 0
    patches = {int(r[0]) for r in rows[1:]}
    assert patches <= set(range(6))


def test_demo_bad_arguments(tmp_path):
    with pytest.raises(SystemExit):
        demo.main(["--patches", "0", "--out", str(tmp_path)])
    with pytest.raises(SystemExit):
        demo.main(["--device", "tpu"])


def test_demo_gpu_when_present(tmp_path, monkeypatch, capsys):
    import fovea
    if not fovea._fovea.gpu_available():
        pytest.skip("no GPU")
    pytest.importorskip("cupy")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    rc = demo.main(["--device", "cuda", "--patches", "8", "--batch-size", "4", "--patch-size", "256",
                    "--overlays", "1", "--out", str(tmp_path / "out"), "--compare", "--no-progress"])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "on cuda" in text
