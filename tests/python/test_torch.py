"""fovea.torch: PatchDataset items equal read_region, DataLoader workers (fork and spawn)
with a shared-memory tile cache, PatchLoader batches equal the dataset's items, pinned
memory and device moves, tissue masks. Needs torch (skipped without it)."""
import multiprocessing as mp

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tifffile = pytest.importorskip("tifffile")

import fovea  # noqa: E402
import fovea.torch as ft  # noqa: E402
import slides  # noqa: E402 (tests/python/slides.py)


@pytest.fixture(scope="module")
def slide_a(tmp_path_factory):
    rng = np.random.default_rng(31)
    base = slides.tissue(rng, 600, 800)
    path = str(tmp_path_factory.mktemp("torch") / "a.tif")
    slides.write_pyramid(path, slides.pyramid(base, 2), tile=128, compression="zlib")
    return path


@pytest.fixture(scope="module")
def slide_b(tmp_path_factory):
    rng = np.random.default_rng(32)
    base = slides.tissue(rng, 1000, 1200)
    base[:, 600:] = 255                  # right half blank glass
    path = str(tmp_path_factory.mktemp("torch") / "b.tif")
    slides.write_pyramid(path, slides.pyramid(base, 3), tile=128, compression="zlib")
    return path


@pytest.fixture
def restore_cache():
    yield
    fovea.cache("per_process", memory_capacity=256)


def test_dataset_items_equal_read_region(slide_a):
    ds = ft.PatchDataset(slide_a, level=0, patch_size=96, stride=80)
    im = fovea.open(slide_a)
    assert len(ds) == ((800 - 96) // 80 + 1) * ((600 - 96) // 80 + 1)
    for i in range(len(ds)):
        t, meta = ds[i]
        assert t.dtype == torch.uint8 and tuple(t.shape) == (3, 96, 96)
        ref = im.read_region((meta["x"], meta["y"]), (96, 96), 0)
        np.testing.assert_array_equal(t.permute(1, 2, 0).numpy(), ref)
        assert meta["slide"] == 0 and meta["path"] == slide_a and meta["level"] == 0
    hwc = ft.PatchDataset(slide_a, patch_size=32, locations=[(5, 7)], channels_first=False,
                          transform=lambda t: t.float() / 255)
    t, meta = hwc[0]
    assert t.dtype == torch.float32 and tuple(t.shape) == (32, 32, 3)
    np.testing.assert_allclose(t.numpy(), im.read_region((5, 7), (32, 32)) / 255, rtol=1e-6)
    lvl1 = ft.PatchDataset(slide_a, level=1, patch_size=50, locations=[(100, 60)])
    np.testing.assert_array_equal(lvl1[0][0].permute(1, 2, 0).numpy(), im.read_region((100, 60), (50, 50), 1))


def _expected(ds):
    return {(int(m["slide"]), int(m["x"]), int(m["y"])): t.numpy().copy() for t, m in (ds[i] for i in range(len(ds)))}


def _check_batch(images, meta, expected):
    n = images.shape[0]
    assert images.dtype == torch.uint8
    assert len(meta["path"]) == n and meta["x"].shape == (n,) and meta["level"].shape == (n,)
    keys = []
    for k in range(n):
        key = (int(meta["slide"][k]), int(meta["x"][k]), int(meta["y"][k]))
        np.testing.assert_array_equal(images[k].cpu().numpy(), expected[key])
        keys.append(key)
    return keys


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_dataloader_workers_share_the_cache(slide_a, context, restore_cache):
    if context not in mp.get_all_start_methods():
        pytest.skip(f"no {context} start method here")
    # patches smaller than the 128-pixel tiles: several patches per tile
    ds = ft.PatchDataset(slide_a, patch_size=64, stride=64)
    expected = _expected(ds)
    fovea.cache("shared_memory", memory_capacity=64)
    loader = torch.utils.data.DataLoader(ds, batch_size=5, num_workers=2, multiprocessing_context=context)
    seen = []
    for images, meta in loader:
        seen += _check_batch(images, meta, expected)
    assert sorted(seen) == sorted(expected) and len(seen) == len(ds)
    info = fovea.cache_info()
    assert info.type == "shared_memory" and info.misses > 0 and info.hits > 0
    # a second epoch, in new worker processes, finds every tile the first one decoded
    fovea.cache().reset_stats()
    n = sum(images.shape[0] for images, _ in loader)
    info = fovea.cache_info()
    assert n == len(ds) and info.misses == 0 and info.hits >= len(ds)


def test_dataset_cache_argument_makes_a_shared_cache(slide_a, restore_cache):
    ds = ft.PatchDataset(slide_a, patch_size=64, cache={"type": "shared_memory", "memory_capacity": 32})
    assert fovea.cache_info().type == "shared_memory"
    loader = torch.utils.data.DataLoader(ds, batch_size=8, num_workers=2, multiprocessing_context="fork")
    list(loader)
    fovea.cache().reset_stats()
    list(loader)
    assert fovea.cache_info().misses == 0


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("workers", [0, 3])
def test_patch_loader_batches_equal_dataset_items(slide_a, slide_b, shuffle, workers):
    ds = ft.PatchDataset([slide_a, slide_b], patch_size=64, stride=96,
                         locations=[None, np.array([[0, 0], [700, 300], [1150, 990], [64, 64], [3, 9]])])
    expected = _expected(ds)
    loader = ft.PatchLoader(ds, batch_size=7, num_workers=workers, shuffle=shuffle, seed=5, interleave=2)
    batches = list(loader)
    assert len(batches) == len(loader) == -(-len(ds.slide_locations[0]) // 7) + 1
    seen = []
    for images, meta in batches:
        assert tuple(images.shape[1:]) == (3, 64, 64)
        assert len(set(meta["slide"].tolist())) == 1          # batches never mix slides
        seen += _check_batch(images, meta, expected)
    assert sorted(seen) == sorted(expected) and len(seen) == len(ds)
    in_order = [(int(m["slide"]), int(m["x"]), int(m["y"])) for m in (ds[i][1] for i in range(len(ds)))]
    if shuffle:
        assert seen != in_order
        again = [k for im, m in ft.PatchLoader(ds, batch_size=7, num_workers=workers, shuffle=True, seed=5,
                                                interleave=2) for k in _check_batch(im, m, expected)]
        assert again == seen                                   # same seed, same order
        assert [k for im, m in loader for k in _check_batch(im, m, expected)] != seen   # next epoch
    else:
        assert seen == in_order


def test_patch_loader_from_a_path_and_drop_last(slide_a):
    loader = ft.PatchLoader(slide_a, batch_size=4, num_workers=2, drop_last=True, patch_size=110)
    n = len(loader.dataset)
    assert n % 4 != 0
    batches = list(loader)
    assert len(batches) == len(loader) == n // 4
    assert all(b.shape[0] == 4 for b, _ in batches)
    hwc = ft.PatchLoader(ft.PatchDataset(fovea.open(slide_a).path, patch_size=16, locations=[(1, 2)] * 3,
                                         channels_first=False), batch_size=2, num_workers=1)
    shapes = [tuple(b.shape) for b, _ in hwc]
    assert shapes == [(2, 16, 16, 3), (1, 16, 16, 3)]
    with pytest.raises(ValueError):
        ft.PatchLoader(slide_a, batch_size=0)
    with pytest.raises(TypeError):
        ft.PatchLoader(loader.dataset, batch_size=2, patch_size=8)


def test_patch_loader_pinned_and_on_device(slide_a):
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    ds = ft.PatchDataset(slide_a, patch_size=64, stride=128)
    expected = _expected(ds)
    for images, meta in ft.PatchLoader(ds, batch_size=6, num_workers=2, pin_memory=True):
        assert images.is_pinned()
        _check_batch(images, meta, expected)
    for images, meta in ft.PatchLoader(ds, batch_size=6, num_workers=2, pin_memory=True, device="cuda"):
        assert images.is_cuda
        torch.cuda.synchronize()
        _check_batch(images, meta, expected)


def test_tissue_mask_skips_blank_half(slide_b):
    full = ft.PatchDataset(slide_b, patch_size=100)
    ds = ft.PatchDataset(slide_b, patch_size=100, tissue_mask="otsu")
    assert 0 < len(ds) < len(full)
    for i in range(len(ds)):
        t, meta = ds[i]
        assert meta["x"] < 600                  # nothing from the blank right half
    blank = [full[i][0] for i in range(len(full)) if full[i][1]["x"] >= 600]
    assert blank and all(bool((b == 255).all()) for b in blank)
    batches = list(ft.PatchLoader(ds, batch_size=16, num_workers=2))
    assert sum(b.shape[0] for b, _ in batches) == len(ds)
