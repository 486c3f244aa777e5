"""PyTorch training input from whole-slide images: ``PatchDataset`` (a map-style dataset
for ``torch.utils.data.DataLoader``) and ``PatchLoader`` (batches straight from fovea's
C batch loader, as torch tensors).

    import fovea.torch as ft
    ds = ft.PatchDataset(["a.svs", "b.svs"], level=0, patch_size=256, tissue_mask="otsu")
    loader = ft.PatchLoader(ds, batch_size=64, num_workers=16, shuffle=True, pin_memory=True,
                            device="cuda")
    for images, meta in loader:        # images: uint8 (N, 3, 256, 256) on the GPU
        ...

``import fovea`` never imports torch; this module needs it.

Caching: the decoded-tile cache is per process by default, so DataLoader workers each
have their own. ``fovea.cache('shared_memory', memory_capacity=MiB)`` in the parent,
before the workers start, gives them one cache in shared memory: fork workers inherit
the mapping, spawn (and forkserver) workers join it through the FOVEA_CACHE_SHM
environment variable that fovea.cache sets; its statistics (fovea.cache_info()) count
every process's lookups. PatchDataset(cache=...) configures the cache for you (see
fovea._patches.PatchSet). PatchLoader reads in the calling process with C threads,
so its reads use that process's cache.
"""

try:
    import torch as _torch
    import torch.utils.data as _tud
except ImportError as exc:  # pragma: no cover - exercised where torch is absent
    raise ImportError(
        "fovea.torch needs PyTorch (pip install torch); the rest of fovea works without it"
    ) from exc

import numpy as np

from . import _fovea, _patches, _slide

__all__ = ["PatchDataset", "PatchLoader"]


class PatchDataset(_patches.PatchSet, _tud.Dataset):
    """Patches of one or many slides as a map-style torch dataset.

    PatchDataset(slides, level=0, patch_size=256, stride=None, locations=None,
                 tissue_mask=None, mask_level=None, min_tissue=0.5, transform=None,
                 channels_first=True, pixel_format='rgb', cache=None)

    slides: a path or a list of paths. Per slide a grid over `level` (stride defaults to
    patch_size; patches wholly inside the level) or, with locations, level-0 (x, y)
    top-left corners (one slide: an (n, 2) array-like; several: a list of them, None
    for a grid). tissue_mask: 'otsu' (grayscale Otsu threshold of a low-resolution
    level: the smallest level with a side >= 512 px, or mask_level), or a callable
    (thumbnail_rgb, downsample) -> bool mask of the thumbnail's shape; patches with a
    tissue fraction below min_tissue are skipped. Items are (tensor, meta): a uint8
    tensor (C, H, W) (a zero-copy permuted view of the read) or (H, W, C) with
    channels_first=False, passed through transform when given, and a dict with
    'slide' (index), 'path', 'x', 'y' (level 0) and 'level'. Slides open lazily in each
    process (the dataset pickles as paths), so it works with fork and spawn workers.
    """

    def __init__(self, slides, level=0, patch_size=256, stride=None, locations=None, tissue_mask=None,
                 mask_level=None, min_tissue=0.5, transform=None, channels_first=True, pixel_format="rgb",
                 cache=None):
        _patches.PatchSet.__init__(self, slides, level=level, patch_size=patch_size, stride=stride,
                                   locations=locations, tissue_mask=tissue_mask, mask_level=mask_level,
                                   min_tissue=min_tissue, pixel_format=pixel_format, cache=cache)
        self.transform = transform
        self.channels_first = bool(channels_first)

    def __getitem__(self, i):
        arr, meta = self.read(i)
        if arr.ndim == 2:
            arr = arr[..., None]
        t = _torch.from_numpy(arr)
        if self.channels_first:
            t = t.permute(2, 0, 1)
        if self.transform is not None:
            t = self.transform(t)
        return t, meta

    def __repr__(self):
        return (f"PatchDataset({len(self.paths)} slide(s), {len(self)} patches of {self.patch_size}x"
                f"{self.patch_size} at level {self.level})")


class PatchLoader:
    """Batches of patches read by fovea's C batch loader, as torch tensors.

    PatchLoader(dataset_or_slide, batch_size=64, num_workers=None, prefetch_factor=2,
                shuffle=False, seed=0, drop_last=False, pin_memory=False, device=None,
                interleave=4, **dataset_args)

    dataset_or_slide: a PatchDataset (or fovea._patches.PatchSet), or a path / list of
    paths / CuImage, turned into PatchDataset(that, **dataset_args). Each slide's
    locations go to the C loader in one call (num_workers threads, 0: the calling
    thread; None: fovea.num_threads()), which reads prefetch_factor batches ahead.
    Yields (images, meta): images a uint8 tensor of shape (N, C, H, W) (a zero-copy
    permuted view of the (N, H, W, C) batch, i.e. channels_last memory format; (N, H,
    W, C) when the dataset has channels_first=False), pinned with .pin_memory() when
    pin_memory, moved with .to(device, non_blocking=True) when device is given; meta
    as DataLoader's default collation of the items' metas: 'slide', 'x', 'y', 'level'
    int64 tensors and 'path' a list of str. The dataset's transform is not applied.

    Batches never mix slides: each slide's patches are cut into batches on their own
    (so with several slides the last batch of each may be short, or dropped with
    drop_last). Without shuffle the slides are read one after another, in order.
    With shuffle (a new order every epoch: seed + epoch), the slides come in a random
    order, each slide's patches in a random order, and `interleave` slides are read at
    once with their batches interleaved at random (the workers split between them).
    """

    def __init__(self, dataset_or_slide, batch_size=64, num_workers=None, prefetch_factor=2, shuffle=False,
                 seed=0, drop_last=False, pin_memory=False, device=None, interleave=4, **dataset_args):
        ds = dataset_or_slide
        if not isinstance(ds, _patches.PatchSet):
            if isinstance(ds, _slide.CuImage):
                ds = ds.path
            elif isinstance(ds, (list, tuple)):
                ds = [d.path if isinstance(d, _slide.CuImage) else d for d in ds]
            ds = PatchDataset(ds, **dataset_args)
        elif dataset_args:
            raise TypeError(f"dataset arguments {sorted(dataset_args)} given with a dataset")
        self.dataset = ds
        self.batch_size = _slide._int(batch_size, "batch_size")
        if self.batch_size < 1:
            raise ValueError(f"batch_size = {self.batch_size} must be >= 1")
        nw = _fovea.num_threads() if num_workers is None else _slide._int(num_workers, "num_workers")
        if nw < 0:
            raise ValueError(f"num_workers = {nw} must be >= 0")
        self.num_workers = nw
        self.prefetch_factor = _slide._int(prefetch_factor, "prefetch_factor")
        if self.prefetch_factor < 1:
            raise ValueError(f"prefetch_factor = {self.prefetch_factor} must be >= 1")
        self.shuffle = bool(shuffle)
        self.seed = _slide._int(seed, "seed")
        self.drop_last = bool(drop_last)
        self.pin_memory = bool(pin_memory)
        self.device = None if device is None else _torch.device(device)
        self.interleave = max(1, _slide._int(interleave, "interleave"))
        self.channels_first = getattr(ds, "channels_first", True)
        self.epoch = 0

    def __len__(self):
        return self.dataset.num_batches(self.batch_size, self.drop_last)

    def set_epoch(self, epoch):
        """Use seed + epoch for the next shuffled iteration (it also advances by itself)."""
        self.epoch = int(epoch)

    def __iter__(self):
        seed = self.seed + self.epoch
        self.epoch += 1
        return self._batches(seed)

    def _convert(self, batch, s, locs):
        t = _torch.from_numpy(batch)
        if t.ndim == 3:
            t = t.unsqueeze(-1)
        if self.channels_first:
            t = t.permute(0, 3, 1, 2)
        if self.pin_memory:
            t = t.pin_memory()
        if self.device is not None:
            t = t.to(self.device, non_blocking=True)
        n = len(locs)
        ds = self.dataset
        meta = {
            "slide": _torch.full((n,), s, dtype=_torch.int64),
            "path": [ds.paths[s]] * n,
            "x": _torch.from_numpy(np.ascontiguousarray(locs[:, 0])),
            "y": _torch.from_numpy(np.ascontiguousarray(locs[:, 1])),
            "level": _torch.full((n,), ds.level, dtype=_torch.int64),
        }
        return t, meta

    def _open(self, s, locs, workers):
        ds = self.dataset
        ps = ds.patch_size
        # the order is fixed here (locs is already shuffled), so every batch's locations are known
        return ds.handle(s)._batches(np.asarray(locs, np.int64).reshape(-1, 2), (ps, ps), ds.level,
                                     num_workers=workers, batch_size=self.batch_size,
                                     prefetch_factor=self.prefetch_factor, shuffle=False,
                                     drop_last=self.drop_last, pixel_format=ds.pixel_format)

    def _batches(self, seed):
        plan = self.dataset.batch_plan(self.batch_size, self.shuffle, seed, self.drop_last, self.interleave)
        rng = np.random.default_rng([seed, 1])
        B = self.batch_size
        for group in plan:
            workers = self.num_workers if len(group) == 1 else max(1, -(-self.num_workers // len(group)))
            if self.num_workers == 0:
                workers = 0
            its = []
            try:
                for s, locs in group:
                    its.append([s, locs, self._open(s, locs, workers), 0])
                left = [-(-len(locs) // B) for _, locs, _, _ in its]
                while any(left):
                    w = np.array(left, np.float64)
                    k = int(rng.choice(len(its), p=w / w.sum())) if len(its) > 1 else 0
                    s, locs, it, done = its[k]
                    batch = next(it)
                    n = batch.shape[0]
                    its[k][3] = done + n
                    left[k] -= 1
                    if left[k] == 0:
                        it.close()
                    yield self._convert(batch, s, locs[done:done + n])
            finally:
                for _, _, it, _ in its:
                    it.close()

    def __repr__(self):
        return (f"PatchLoader({self.dataset!r}, batch_size={self.batch_size}, num_workers={self.num_workers}, "
                f"shuffle={self.shuffle})")

