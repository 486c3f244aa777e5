/* Files read into and written from host or GPU memory (cuCIM's cucim.clara.filesystem).
 *
 * An fv_file is an open file descriptor plus what moving its bytes to and from
 * device memory needs. Reads and writes are positional (pread / pwrite: the file
 * has no current offset) and synchronous: when a call returns, the bytes are in
 * the destination, host or device. They are safe to call from several threads at
 * once on one fv_file; fv_file_close must not race with them.
 *
 * How bytes reach a device buffer, per file (fv_file_backend):
 *   "cufile"         cuFile (GPUDirect Storage) moves them between storage and the
 *                    GPU without a host copy. Needs libcufile at run time, the
 *                    nvidia-fs driver, a file opened with O_DIRECT on a filesystem
 *                    GDS supports.
 *   "cufile-compat"  cuFile without nvidia-fs ("compatibility mode": cuFile reads
 *                    through its own host bounce buffers). Used only when the
 *                    environment variable FOVEA_CUFILE is "compat" or "on".
 *   "posix"          pread / pwrite on all CPU cores into pinned host buffers,
 *                    double buffered against the host-device copies. The default
 *                    whenever true GDS is not available, and the fallback when a
 *                    cuFile call fails.
 * Host buffers always take the POSIX path (large transfers are split over the
 * library's thread pool). FOVEA_CUFILE=off never loads cuFile.
 *
 * O_DIRECT: a file opened with it (the default, as in cuCIM) bypasses the page
 * cache where the buffer address, file offset and length are multiples of 4096;
 * the unaligned rest of a transfer goes through a second, buffered descriptor of
 * the same file, so any offset, length and buffer work. A filesystem that refuses
 * O_DIRECT (EINVAL at open) gets the file opened without it (fv_file_direct 0).
 *
 * Errors: FV_EINVAL for bad arguments (flags, NULL pointers, offsets that
 * overflow, a write to a read-only file), FV_EIO for system call failures (the
 * message has the call, path, offset and strerror text), FV_EDEVICE for a device
 * buffer without a usable GPU, FV_ECUDA / FV_ENOMEM for failed CUDA calls. */
#ifndef FOVEA_FILESYSTEM_H
#define FOVEA_FILESYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"

FV_EXTERN_C_BEGIN

typedef struct fv_file fv_file;

/* Open path. flags, as cuCIM's open():
 *   "r"  read only (O_RDONLY)            "r+" read and write (O_RDWR)
 *   "w"  O_RDWR | O_CREAT | O_TRUNC      "a"  O_RDWR | O_CREAT (no O_APPEND: writes
 *                                             go where pwrite says)
 * followed by any of
 *   'n'  no O_DIRECT (read through the page cache)
 *   'p'  POSIX only: never cuFile for this file
 *   'm'  accepted for cuCIM compatibility (memory-mapped there); here it means 'n'
 *   'b'  ignored (as in Python's open)
 * O_CLOEXEC always; O_DIRECT unless 'n' or 'm'. mode: permission bits for a
 * created file (e.g. 0644). *out: a new file to close with fv_file_close. */
FV_API fv_status fv_file_open(const char *path, const char *flags, unsigned int mode, fv_file **out);

/* Wrap an open descriptor (cuCIM's CuFileDriver(fd, no_gds, ...)). On success
 * the fv_file owns fd and fv_file_close closes it; on failure fd stays the
 * caller's. Access mode and O_DIRECT are read from the descriptor. no_gds: 1
 * never uses cuFile. path: a label for messages, or NULL to ask /proc. */
FV_API fv_status fv_file_from_fd(int fd, int no_gds, const char *path, fv_file **out);

/* Read up to count bytes at file_offset into buf (already offset by the caller),
 * which lives on buf_device (host or CUDA). *nread: the bytes read; fewer than
 * count only at end of file (0 at or past it), which is not an error. */
FV_API fv_status fv_file_pread(fv_file *f, void *buf, fv_device buf_device, size_t count, uint64_t file_offset,
                               size_t *nread);

/* Write count bytes from buf (on buf_device) at file_offset; the file grows as
 * needed. *nwritten: count on success. */
FV_API fv_status fv_file_pwrite(fv_file *f, const void *buf, fv_device buf_device, size_t count, uint64_t file_offset,
                                size_t *nwritten);

/* Close the file and free f, also when closing fails (then FV_EIO: data written
 * may not have reached the file). NULL is a no-op. */
FV_API fv_status fv_file_close(fv_file *f);

FV_API const char *fv_file_path(const fv_file *f); /* as given to open */
FV_API int fv_file_fd(const fv_file *f);           /* the (O_DIRECT) descriptor */
FV_API int fv_file_direct(const fv_file *f);       /* 1 when O_DIRECT is in effect */
FV_API int fv_file_writable(const fv_file *f);
/* How device buffers are served: "cufile", "cufile-compat" or "posix" (see above;
 * turns to "posix" for good after a cuFile call on this file failed). */
FV_API const char *fv_file_backend(const fv_file *f);

/* Write back the file's dirty pages (fdatasync) and drop its pages from the page
 * cache (posix_fadvise POSIX_FADV_DONTNEED), so that the next read comes from
 * storage. Pages other processes keep mapped or locked may stay. */
FV_API fv_status fv_file_discard_page_cache(const char *path);

/* 1 when cuFile loads and runs in true GPUDirect Storage mode (nvidia-fs loaded);
 * 0 in cuFile's compatibility mode, without libcufile, without a GPU, or in a
 * build without CUDA. Loads and opens the cuFile driver on first use (unless
 * FOVEA_CUFILE=off). Thread-safe. */
FV_API int fv_gds_available(void);

/* The cuFile driver's state as one line (static storage): "gds: ...",
 * "compat: ..." or "unavailable: <why>". */
FV_API const char *fv_gds_status(void);

FV_EXTERN_C_END

#endif
