"""fovea.filesystem (cuCIM's cucim.clara.filesystem): pread / pwrite into host
buffers everywhere and CuPy buffers on the GPU, odd offsets and counts, end of
file, O_DIRECT, bad arguments, closed files, descriptor leaks."""

import os

import numpy as np
import pytest

import fovea
from fovea import filesystem as fs

SIZE = (9 << 20) + 12345  # several parallel pieces, not a multiple of 4096


def _nfds(under):
    """Descriptors open on files under `under` (the test's tmp_path). Only those:
    cuFile's driver, loaded at run time (compatibility mode without nvidia-fs),
    opens descriptors of its own on first use (log files, /dev entries) and keeps
    them for the process lifetime; a leaked descriptor of a test file still counts."""
    root = os.path.realpath(under)
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:   # the listing's own descriptor, already closed
            continue
        if target == root or target.startswith(root + os.sep):
            n += 1
    return n


@pytest.fixture
def data(rng):
    return rng.integers(0, 256, SIZE, dtype=np.uint8)


@pytest.fixture
def datafile(tmp_path, data):
    path = tmp_path / "data.bin"
    path.write_bytes(data.tobytes())
    return path


@pytest.fixture
def no_fd_leak(tmp_path):
    before = _nfds(tmp_path)
    yield
    assert _nfds(tmp_path) == before


OFFSETS = [0, 1, 4095, 4096, 12347, SIZE // 2 + 3, SIZE - 1]
COUNTS = [0, 1, 7, 4096, 5000, (3 << 20) + 1, SIZE]


@pytest.mark.parametrize("flags", ["r", "rn", "rp", "r+", "rb"])
def test_pread_host_grid(datafile, data, flags, no_fd_leak):
    out = np.empty(SIZE + 16, np.uint8)
    with fs.open(datafile, flags) as f:
        assert not f.closed
        assert f.backend == "posix" or f.backend.startswith("cufile")
        for off in OFFSETS:
            for count in COUNTS:
                for boff in (0, 3):
                    count_ = min(count, out.nbytes - boff)
                    out[:] = 0xA5
                    n = f.pread(out, count_, off, boff)
                    want = max(0, min(count_, SIZE - off))
                    assert n == want, (off, count_, boff)
                    np.testing.assert_array_equal(out[boff : boff + n], data[off : off + n])
                    if boff:
                        assert out[0] == 0xA5
    assert f.closed


def test_short_read_at_eof(datafile, data):
    buf = bytearray(100)
    with fs.open(datafile) as f:
        assert f.pread(buf, 100, SIZE - 10) == 10
        assert bytes(buf[:10]) == data[-10:].tobytes()
        assert f.pread(buf, 100, SIZE) == 0
        assert f.pread(buf, 100, SIZE + 12345) == 0
        assert fs.pread(f, buf, 0, 5) == 0


def test_module_functions_mirror_cucim(datafile, data):
    f = fs.open(str(datafile), "r")
    assert isinstance(f, fs.CuFileDriver)
    buf = np.zeros(1000, np.uint8)
    assert fs.pread(f, buf, 1000, 77) == 1000
    np.testing.assert_array_equal(buf, data[77:1077])
    assert fs.close(f) is True
    assert f.closed
    assert fs.close(f) is True  # again: no-op
    assert "closed" in repr(f)


def test_buffer_kinds(datafile, data):
    with fs.open(datafile, "rn") as f:
        ba = bytearray(300)
        assert f.pread(ba, 300, 5) == 300 and bytes(ba) == data[5:305].tobytes()
        mv = memoryview(bytearray(300))
        assert f.pread(mv, 300, 6) == 300 and mv.tobytes() == data[6:306].tobytes()
        u32 = np.zeros(100, np.uint32)  # count is in bytes, whatever the dtype
        assert f.pread(u32, 400, 8) == 400
        assert u32.tobytes() == data[8:408].tobytes()
        two_d = np.zeros((10, 30), np.uint8)
        assert f.pread(two_d, 300, 9, buf_offset=0) == 300
        assert two_d.tobytes() == data[9:309].tobytes()
        arr = fovea.asarray(np.zeros(64, np.uint8))
        assert f.pread(arr, 64, 1) == 64
        assert np.asarray(arr).tobytes() == data[1:65].tobytes()


@pytest.mark.parametrize("flags", ["w", "wn", "wp"])
def test_pwrite_then_read_back(tmp_path, data, flags, no_fd_leak):
    path = tmp_path / "out.bin"
    pieces = [0, 3, 4096, 4099, 70001, 5 << 20, SIZE]
    with fs.open(path, flags, 0o600) as f:
        for a, b in reversed(list(zip(pieces[:-1], pieces[1:]))):
            assert f.pwrite(data, b - a, a, a) == b - a
        back = np.empty(SIZE, np.uint8)
        assert f.pread(back, SIZE, 0) == SIZE
        np.testing.assert_array_equal(back, data)
        # overwrite in the middle from a bytes object (read-only buffers are fine for pwrite)
        assert f.pwrite(b"hello", 5, 1234) == 5
    assert path.stat().st_size == SIZE
    raw = path.read_bytes()
    assert raw[1234:1239] == b"hello"
    assert raw[:1234] == data[:1234].tobytes() and raw[1239:] == data[1239:].tobytes()
    assert (path.stat().st_mode & 0o777) == 0o600


def test_append_mode_keeps_contents_and_writes_at_offset(datafile, data):
    with fs.open(datafile, "a") as f:
        assert f.pwrite(b"xyz", 3, 10) == 3  # no O_APPEND: at offset 10
        assert f.pwrite(b"end", 3, SIZE) == 3
    raw = datafile.read_bytes()
    assert len(raw) == SIZE + 3 and raw[10:13] == b"xyz" and raw[-3:] == b"end"
    assert raw[:10] == data[:10].tobytes()


def test_w_truncates_and_r_plus_does_not(datafile):
    with fs.open(datafile, "r+") as f:
        f.pwrite(b"ab", 2, 0)
    assert datafile.stat().st_size == SIZE
    with fs.open(datafile, "w"):
        pass
    assert datafile.stat().st_size == 0


def test_o_direct(datafile, data):
    with fs.open(datafile, "r") as f:
        if not f.direct:
            pytest.skip(f"the filesystem of {datafile.parent} refuses O_DIRECT (opened buffered)")
        # aligned buffer, offset and count: the direct path; then unaligned ones
        raw = np.zeros(SIZE + 8192, np.uint8)
        start = (-raw.ctypes.data) % 4096
        n = f.pread(raw, 1 << 20, 8192, start)
        assert n == 1 << 20
        np.testing.assert_array_equal(raw[start : start + n], data[8192 : 8192 + n])
        n = f.pread(raw, SIZE, 0, start + 1)
        assert n == SIZE
        np.testing.assert_array_equal(raw[start + 1 : start + 1 + n], data)
    with fs.open(datafile, "rn") as f:
        assert not f.direct


def test_discard_page_cache(datafile, data, tmp_path):
    assert fs.discard_page_cache(datafile) is True
    assert fs.discard_page_cache(str(datafile)) is True
    with fs.open(datafile, "rn") as f:
        buf = np.empty(SIZE, np.uint8)
        assert f.pread(buf, SIZE, 0) == SIZE
        np.testing.assert_array_equal(buf, data)
    with pytest.raises(OSError, match="No such file"):
        fs.discard_page_cache(tmp_path / "missing")


def test_gds_queries():
    assert isinstance(fs.is_gds_available(), bool)
    status = fs.gds_status()
    assert status.split(":")[0] in ("gds", "compat", "unavailable")
    assert fs.is_gds_available() == status.startswith("gds")


def test_bad_flags_and_paths(datafile, tmp_path, no_fd_leak):
    for flags in ["", "x", "rw", "rz", "+"]:
        with pytest.raises(ValueError):
            fs.open(datafile, flags)
    with pytest.raises(OSError, match="No such file"):
        fs.open(tmp_path / "missing" / "file", "r")
    with pytest.raises(OSError, match="Is a directory"):
        fs.open(tmp_path, "r")
    with pytest.raises(TypeError):
        fs.open(datafile, 3)


def test_bad_counts_and_buffers(datafile, no_fd_leak):
    buf = np.zeros(100, np.uint8)
    with fs.open(datafile) as f:
        with pytest.raises(ValueError, match="exceeds"):
            f.pread(buf, 101, 0)
        with pytest.raises(ValueError, match="exceeds"):
            f.pread(buf, 100, 0, 1)
        with pytest.raises(ValueError, match="exceeds"):
            f.pread(buf, 1, 0, 101)
        with pytest.raises(ValueError, match=">= 0"):
            f.pread(buf, -1, 0)
        with pytest.raises(ValueError, match=">= 0"):
            f.pread(buf, 1, -5)
        with pytest.raises(ValueError, match=">= 0"):
            f.pread(buf, 1, 0, -1)
        with pytest.raises(ValueError, match="too large"):
            f.pread(buf, 1, 1 << 70)
        with pytest.raises(ValueError, match="out of range"):
            f.pread(buf, 2, (1 << 63) - 1)
        with pytest.raises(TypeError):
            f.pread(buf, 1.5, 0)
        with pytest.raises(ValueError, match="read-only"):
            f.pread(b"immutable", 3, 0)
        ro = np.zeros(10, np.uint8)
        ro.flags.writeable = False
        with pytest.raises(ValueError, match="read-only"):
            f.pread(ro, 3, 0)
        with pytest.raises(ValueError, match="contiguous"):
            f.pread(np.zeros(20, np.uint8)[::2], 3, 0)
        with pytest.raises(TypeError):
            f.pread(object(), 3, 0)
        with pytest.raises(ValueError, match="read-only"):
            f.pwrite(buf, 3, 0)  # the file is open read-only


def test_closed_file(datafile):
    f = fs.open(datafile)
    f.close()
    buf = np.zeros(10, np.uint8)
    for call in (lambda: f.pread(buf, 1, 0), lambda: f.pwrite(buf, 1, 0), f.fileno, lambda: f.path,
                 lambda: f.backend):
        with pytest.raises(ValueError, match="closed file"):
            call()
    with pytest.raises(ValueError, match="closed file"):
        with f:
            pass


def test_from_fd_takes_ownership(datafile, data, no_fd_leak):
    fd = os.open(datafile, os.O_RDONLY)
    f = fs.CuFileDriver(fd)
    assert f.fileno() == fd
    assert f.path == str(datafile)
    buf = bytearray(10)
    assert f.pread(buf, 10, 3) == 10 and bytes(buf) == data[3:13].tobytes()
    f.close()
    with pytest.raises(OSError):
        os.fstat(fd)
    with pytest.raises(ValueError):
        fs.CuFileDriver(-1)


def test_no_fd_leak_on_many_opens_and_gc(datafile):
    before = _nfds(datafile.parent)
    for flags in ["r", "rn", "r+", "a"] * 10:
        f = fs.open(datafile, flags)
        del f  # dealloc closes
    for _ in range(5):
        with pytest.raises(OSError):
            fs.open(datafile.parent / "nope", "r")
    assert _nfds(datafile.parent) == before


def test_threads_share_a_file(datafile, data):
    from concurrent.futures import ThreadPoolExecutor

    with fs.open(datafile, "r") as f:

        def work(i):
            off = (i * 1_000_003) % (SIZE - 70000)
            buf = np.empty(70000, np.uint8)
            assert f.pread(buf, 70000, off) == 70000
            return np.array_equal(buf, data[off : off + 70000])

        with ThreadPoolExecutor(4) as ex:
            assert all(ex.map(work, range(32)))


# ---- device buffers (CuPy) -------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("flags", ["r", "rn", "rp"])
def test_pread_cupy(cp, datafile, data, flags):
    dev = cp.zeros(SIZE + 8, dtype=cp.uint8)
    with fs.open(datafile, flags) as f:
        for off in OFFSETS:
            for count in COUNTS:
                for boff in (0, 5):
                    count_ = min(count, dev.nbytes - boff)
                    dev.fill(0xA5)
                    n = f.pread(dev, count_, off, boff)
                    want = max(0, min(count_, SIZE - off))
                    assert n == want
                    np.testing.assert_array_equal(cp.asnumpy(dev[boff : boff + n]), data[off : off + n])


@pytest.mark.gpu
@pytest.mark.parametrize("flags", ["w", "wn", "wp"])
def test_pwrite_cupy(cp, tmp_path, data, flags):
    dev = cp.asarray(data)
    path = tmp_path / "dev.bin"
    with fs.open(path, flags) as f:
        assert f.pwrite(dev, SIZE - 3, 1, 3) == SIZE - 3
        assert f.pwrite(dev, 1, 0) == 1
    raw = np.frombuffer(path.read_bytes(), np.uint8)
    assert raw.size == SIZE - 2
    assert raw[0] == data[0]
    np.testing.assert_array_equal(raw[1:], data[3:])


@pytest.mark.gpu
def test_cupy_non_default_stream(cp, datafile, data):
    # __cuda_array_interface__ names the current stream (s): pread must wait for
    # the work pending on it before writing the buffer
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        dev = cp.zeros(SIZE, dtype=cp.uint8)
        for _ in range(20):
            dev += 1  # pending work on s when pread starts
        with fs.open(datafile, "rn") as f:
            assert f.pread(dev, SIZE, 0) == SIZE
        np.testing.assert_array_equal(cp.asnumpy(dev, stream=s), data)


@pytest.mark.gpu
def test_cupy_errors(cp, datafile):
    dev = cp.zeros(100, dtype=cp.uint8)
    with fs.open(datafile) as f:
        with pytest.raises(ValueError, match="exceeds"):
            f.pread(dev, 101, 0)
        with pytest.raises(ValueError, match="contiguous"):
            f.pread(cp.zeros(20, cp.uint8)[::2], 3, 0)
