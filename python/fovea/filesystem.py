"""File I/O into host or GPU memory, mirroring cuCIM's ``cucim.clara.filesystem``.

::

    import cupy as cp
    from fovea import filesystem as fs

    buf = cp.empty(1 << 20, dtype=cp.uint8)
    with fs.open("image.raw", "r") as f:      # a CuFileDriver
        n = f.pread(buf, buf.nbytes, 0)       # bytes read, fewer only at end of file
    fs.discard_page_cache("image.raw")

Buffers: any C-contiguous array with ``__cuda_array_interface__`` (CuPy, PyTorch,
Numba), DLPack, ``__array_interface__`` (NumPy) or the buffer protocol
(``bytearray``, ``memoryview``). Device buffers are read through cuFile
(GPUDirect Storage) when it runs in true GDS mode, otherwise through pinned host
buffers with pread/pwrite on all CPU cores, double buffered against the
host-to-device copies. ``CuFileDriver.backend`` says which; ``gds_status()``
says why. Calls are synchronous: when ``pread`` returns, the bytes are in the
buffer.

Differences from cuCIM: failures raise (``OSError`` for system call errors,
``ValueError`` for bad arguments or a closed file, ``fovea.DeviceError`` without
a usable GPU) instead of returning -1 or False; unknown flag characters are
rejected; ``'m'`` (mmap) is accepted but reads use pread; a ``CuFileDriver`` is a
context manager and has ``closed``, ``path``, ``backend`` and ``direct``.

Environment: ``FOVEA_CUFILE=off`` never loads cuFile; ``FOVEA_CUFILE=compat`` also
uses cuFile in its compatibility mode (default: only in GDS mode);
``FOVEA_CUFILE_LIBRARY`` is the path of ``libcufile.so.0`` when it is not on the
loader's path (set here from the ``nvidia-cufile`` wheel when that is installed).
"""

import os as _os
import sys as _sys

from . import _fovea

__all__ = [
    "CuFileDriver",
    "close",
    "discard_page_cache",
    "gds_status",
    "is_gds_available",
    "open",
    "pread",
    "pwrite",
]

CuFileDriver = _fovea.CuFileDriver


def _find_wheel_cufile():
    """libcufile.so.0 from an installed nvidia-cufile wheel, or None."""
    for entry in _sys.path:
        for sub in ("cu13", "cufile", "cu12"):
            path = _os.path.join(entry or ".", "nvidia", sub, "lib", "libcufile.so.0")
            if _os.path.exists(path):
                return _os.path.abspath(path)
    return None


if "FOVEA_CUFILE_LIBRARY" not in _os.environ:
    _lib = _find_wheel_cufile()
    if _lib:
        # read by the C library when it first loads cuFile (fv_file_open / is_gds_available)
        _os.environ["FOVEA_CUFILE_LIBRARY"] = _lib


def open(file_path, flags="r", mode=0o644):
    """Open a file for pread / pwrite; returns a :class:`CuFileDriver`.

    Args:
        file_path: path (str, bytes or os.PathLike).
        flags: ``"r"`` (O_RDONLY), ``"r+"`` (O_RDWR), ``"w"`` (O_RDWR | O_CREAT |
            O_TRUNC) or ``"a"`` (O_RDWR | O_CREAT; no O_APPEND), then any of
            ``'n'`` (no O_DIRECT: read through the page cache), ``'p'`` (POSIX only,
            never cuFile), ``'m'`` (accepted; same as ``'n'`` here), ``'b'``
            (ignored). O_CLOEXEC always, O_DIRECT unless ``'n'``/``'m'``; a
            filesystem that refuses O_DIRECT gets the file without it (see
            ``CuFileDriver.direct``). Unaligned offsets and sizes work either way.
        mode: permission bits for a created file.

    Raises:
        ValueError: bad flags. OSError: the file cannot be opened.
    """
    return _fovea.fs_open(file_path, flags, mode)


def pread(fd, buf, count, file_offset, buf_offset=0):
    """Read up to ``count`` bytes from ``fd`` (a CuFileDriver) at ``file_offset``
    into ``buf`` starting at byte ``buf_offset``; returns the number of bytes read
    (fewer than ``count`` only at end of file).

    ``count + buf_offset`` must fit in ``buf`` (ValueError otherwise)."""
    return fd.pread(buf, count, file_offset, buf_offset)


def pwrite(fd, buf, count, file_offset, buf_offset=0):
    """Write ``count`` bytes of ``buf`` (from byte ``buf_offset``) to ``fd`` at
    ``file_offset``; returns the number of bytes written (``count``)."""
    return fd.pwrite(buf, count, file_offset, buf_offset)


def close(fd):
    """Close ``fd`` (a CuFileDriver); returns True."""
    return fd.close()


def discard_page_cache(file_path):
    """Write back ``file_path``'s dirty pages and drop its pages from the page
    cache, so that the next read comes from storage. Returns True; raises OSError
    when the file cannot be opened or the calls fail."""
    return _fovea.fs_discard_page_cache(file_path)


def is_gds_available():
    """True when cuFile loads and runs in true GPUDirect Storage mode (nvidia-fs
    loaded). False in cuFile's compatibility mode, without libcufile or a GPU."""
    return _fovea.fs_is_gds_available()


def gds_status():
    """The cuFile driver's state as one line: ``'gds: ...'``, ``'compat: ...'``
    (cuFile loads but runs in compatibility mode) or ``'unavailable: <why>'``."""
    return _fovea.fs_gds_status()
