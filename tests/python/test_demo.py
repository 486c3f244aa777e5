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


from xpcase import xp_fixture  # noqa: E402

xp = xp_fixture()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_otsu_batch_equals_threshold_otsu(xp, dtype):
    from skimage.filters import threshold_otsu
    rng = np.random.default_rng(5)
    for trial in range(8):
        x = (rng.random((5, 29, 33)) ** rng.uniform(0.2, 5)).astype(dtype)
        x[1] *= 1e-3
        x[2] += rng.integers(-5, 5)
        x[3] = 0.25 if trial % 2 else x[3]                 # a constant image
        x[4] = np.round(x[4] * 7) / 7                     # few levels, ties at edges
        th = xp.get(demo.otsu_batch(xp.put(x)))
        assert th.dtype == dtype
        assert th.tolist() == [threshold_otsu(x[i]) for i in range(5)]


def test_tables_batch_equals_per_patch(xp):
    from skimage.measure import label, regionprops_table
    rng = np.random.default_rng(6)
    from scipy import ndimage as sndi
    noise = sndi.gaussian_filter(rng.standard_normal((4, 64, 48)), (0, 3, 3))
    labs = np.stack([label(noise[i] > 0.1) for i in range(4)])
    labs[2] = 0                                           # a patch without nuclei
    inten = rng.random(labs.shape)
    counts = labs.reshape(4, -1).max(axis=1)
    got = demo.tables_batch(xp.put(labs), xp.put(inten), counts)
    assert len(got) == 4
    for i in range(4):
        want = regionprops_table(labs[i], intensity_image=inten[i], properties=demo.PROPERTIES)
        assert list(got[i]) == list(want)
        for k in want:
            g = np.asarray(xp.get(got[i][k]))
            assert g.shape == want[k].shape, k
            np.testing.assert_allclose(g, want[k], rtol=1e-9, atol=1e-9, err_msg=k)
