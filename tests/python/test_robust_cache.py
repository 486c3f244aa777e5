"""A DataLoader worker killed while it holds the shared-memory tile cache
(docs/robustness.md, "Faults").

A worker process (fork or spawn) is stopped inside an insert into the segment - its
entry half written, its blocks taken, the segment's lock held - by the library's
test hook FOVEA_TEST_SHM_INSERT_PAUSE, and killed with SIGKILL there. Then: the
parent and a new worker read the right pixels, the statistics stay consistent
(the cached bytes and tiles equal what the segment holds, within the capacity),
and the segment disappears when the last process leaves. A second test kills
workers at random moments of a read-heavy loop with a cache of a few tiles.

The segment is also checked from outside: _segment() reads /dev/shm/<name> and
verifies the invariants of src/slide/cache-shm.c's layout version 1 (every entry
free or ready, byte and tile counts, block chains disjoint and complete, the
dead worker's pid gone from the process table)."""

import multiprocessing
import os
import signal
import struct
import time

import numpy as np
import pytest

import fovea
from fovea import _fovea

tifffile = pytest.importorskip("tifffile")
pytest.importorskip("imagecodecs")

import slides  # noqa: E402 (needs tifffile)

pytestmark = pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm (POSIX shared memory)")

H, W, T = 512, 640, 64            # 80 tiles of 64 x 64 x 3 = 12288 bytes
TILE_BYTES = T * T * 3
PAUSE_ENV = "FOVEA_TEST_SHM_INSERT_PAUSE"


@pytest.fixture(scope="module")
def slide(tmp_path_factory):
    rng = np.random.default_rng(8)
    level0 = slides.tissue(rng, H, W)
    path = str(tmp_path_factory.mktemp("robust") / "tiles.tif")
    slides.write_pyramid(path, [level0], tile=T, compression="zlib")
    return path, level0


@pytest.fixture
def shared_cache():
    """A fresh 1 MiB shared-memory cache (64 blocks of 16 KiB: 64 tiles); the
    per-process default again afterwards."""
    before = fovea.cache_info()
    fovea.cache("shared_memory", memory_capacity=1)
    name = fovea.cache().shm_name
    yield name
    fovea.cache("per_process", memory_capacity=max(1, before.memory_capacity >> 20), record_stat=True)
    fovea.cache().reset_stats()


# ---- the segment, read from outside --------------------------------------------------------------

_MAGIC = 0x3145484341435646
_ENTRY = struct.Struct("<QQIIQQiiiiii")    # fv__shm_entry (64 bytes)
_AFTER_MUTEX = struct.Struct("<IIQiiiiIIQ6Q")   # unlinked ... repairs (96 bytes)
_FREE, _READY = 0, 2


def _segment(name):
    """The segment's header counts, after checking its invariants (cache-shm.c, version 1)."""
    with open("/dev/shm" + name, "rb") as f:
        data = f.read()
    magic, version, header_bytes = struct.unpack_from("<QII", data, 0)
    assert magic == _MAGIC
    if version != 1:
        pytest.skip(f"cache segment layout version {version}: this check knows version 1")
    capacity, block_bytes, nblocks, nentries = struct.unpack_from("<QQII", data, 24)
    off_entries, _, off_next = struct.unpack_from("<3Q", data, 56)
    mutex_bytes = header_bytes - 176 - _AFTER_MUTEX.size - 1024 * 16
    assert 24 <= mutex_bytes <= 64, mutex_bytes
    a = 176 + mutex_bytes
    (unlinked, nprocs, limit, free_block, _free_entry, _lru_head, _lru_tail, nfree_blocks, _pad, _clock,
     hits, misses, evictions, nbytes, entries, repairs) = _AFTER_MUTEX.unpack_from(data, a)
    pids = [struct.unpack_from("<i", data, a + _AFTER_MUTEX.size + 16 * i)[0] for i in range(1024)]
    nxt = np.frombuffer(data, np.int32, nblocks, off_next)

    used = set()
    ready = total = 0
    for i in range(nentries):
        _f, _c, _ifd, state, nb, _stamp, first, nblk, *_ = _ENTRY.unpack_from(data, off_entries + 64 * i)
        assert state in (_FREE, _READY), f"entry {i} in state {state}: a half-done operation was not repaired"
        if state != _READY:
            continue
        ready += 1
        total += nb
        assert nblk == -(-nb // block_bytes)
        b = first
        for _ in range(nblk):
            assert 0 <= b < nblocks and b not in used
            used.add(b)
            b = int(nxt[b])
    free = set()
    b = free_block
    while b != -1:
        assert 0 <= b < nblocks and b not in used and b not in free
        free.add(b)
        b = int(nxt[b])
    assert ready == entries and total == nbytes, (ready, entries, total, nbytes)
    assert nbytes <= limit <= capacity
    assert len(free) == nfree_blocks and len(used) + len(free) == nblocks
    assert sum(p != 0 for p in pids) == nprocs
    return dict(unlinked=unlinked, nprocs=nprocs, pids=[p for p in pids if p], hits=hits, misses=misses,
                evictions=evictions, bytes=nbytes, entries=entries, repairs=repairs, limit=limit)


def _tiles_ok(img, level0):
    """Every tile, read twice (the second time from the cache where it stayed)."""
    for _ in range(2):
        np.testing.assert_array_equal(img.read_region((0, 0), (W, H)), level0)


# ---- workers (module level: spawn imports them) -------------------------------------------------


def _insert_and_pause(path, marker, loc):
    os.environ[PAUSE_ENV] = marker
    img = fovea.open(path)
    img.read_region(loc, (T, T))   # a miss: decoded, then inserted - and paused inside the insert
    os._exit(3)                    # not reached


def _read(args):
    path, loc, size = args
    return fovea.open(path).read_region(loc, size)


def _read_forever(path, seed):
    rng = np.random.default_rng(seed)
    img = fovea.open(path)
    while True:
        w, h = (int(v) for v in rng.integers(1, 200, 2))
        x, y = int(rng.integers(0, W - w)), int(rng.integers(0, H - h))
        img.read_region((x, y), (w, h))


def _wait_for(cond, timeout=60.0):
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            return False
        time.sleep(0.01)
    return True


# ---- tests ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_worker_killed_inside_insert(slide, shared_cache, tmp_path, method):
    path, level0 = slide
    name = shared_cache
    img = fovea.open(path)
    np.testing.assert_array_equal(img.read_region((0, 0), (2 * T, 2 * T)), level0[:2 * T, :2 * T])   # 4 tiles
    before = fovea.cache_info()
    assert (before.size, before.memory_size, before.misses) == (4, 4 * TILE_BYTES, 4)

    ctx = multiprocessing.get_context(method)
    marker = str(tmp_path / f"paused-{method}")
    worker = ctx.Process(target=_insert_and_pause, args=(path, marker, (5 * T, 3 * T)))
    worker.start()
    try:
        assert _wait_for(lambda: os.path.exists(marker) or not worker.is_alive()), "the worker never paused"
        assert worker.is_alive(), f"the worker exited ({worker.exitcode}) instead of pausing in the insert"
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.join(30)
    assert worker.exitcode == -signal.SIGKILL

    # the parent's next use of the cache finds the lock's owner dead and repairs
    after = fovea.cache_info()
    seg = _segment(name)
    assert seg["repairs"] >= 1
    assert worker.pid not in seg["pids"] and seg["nprocs"] >= 1
    # the half-inserted tile is gone; everything else is as it was (the worker's miss counted)
    assert (after.size, after.memory_size) == (before.size, before.memory_size)
    assert (after.hits, after.misses) == (before.hits, before.misses + 1)
    assert after.memory_size <= after.memory_capacity

    # the parent and a new worker read the right pixels; the cache keeps working
    _tiles_ok(img, level0)
    with ctx.Pool(1) as pool:
        got = pool.apply(_read, ((path, (5 * T, 3 * T), (3 * T, 2 * T)),))
    np.testing.assert_array_equal(got, level0[3 * T:5 * T, 5 * T:8 * T])
    info = fovea.cache_info()
    seg = _segment(name)
    assert (info.size, info.memory_size) == (seg["entries"], seg["bytes"])
    assert info.memory_size == info.size * TILE_BYTES <= info.memory_capacity
    assert info.hits > 0 and info.evictions > 0   # 80 tiles through 64 places

    # the last process leaves: the segment is removed (the dead worker does not hold it)
    fovea.cache("per_process")
    assert not os.path.exists("/dev/shm" + name)


def test_workers_killed_at_random(slide, shared_cache):
    """Fork workers reading through a cache of 3 tiles are killed at random moments
    (inside or outside the lock, mid-eviction, mid-copy); after each kill the segment
    is consistent and within its capacity; at the end every pixel is right, and the
    dead workers (pruned from the process table lazily) do not keep the segment."""
    path, level0 = slide
    name = shared_cache
    _fovea.cache_set_capacity(3 * TILE_BYTES)
    ctx = multiprocessing.get_context("fork")
    rng = np.random.default_rng(11)
    for round_ in range(12):
        workers = [ctx.Process(target=_read_forever, args=(path, 100 * round_ + i)) for i in range(2)]
        for w in workers:
            w.start()
        time.sleep(0.05 + 0.15 * rng.random())
        for w in workers:
            os.kill(w.pid, signal.SIGKILL)
        for w in workers:
            w.join(30)
            assert w.exitcode == -signal.SIGKILL
        info = fovea.cache_info()   # repairs when a worker died holding the lock
        seg = _segment(name)
        assert info.memory_size <= 3 * TILE_BYTES and seg["bytes"] <= seg["limit"] == 3 * TILE_BYTES
    assert fovea.cache_info().misses > 0
    img = fovea.open(path)
    _tiles_ok(img, level0)
    seg = _segment(name)
    assert seg["entries"] == 3 and seg["bytes"] == 3 * TILE_BYTES
    fovea.cache("per_process")
    assert not os.path.exists("/dev/shm" + name)
