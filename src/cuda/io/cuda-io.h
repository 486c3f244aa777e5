/* The device side of fv_file (internal): cuFile loaded at run time, and the
 * pinned-buffer staging that moves file bytes to and from device memory when
 * cuFile is not used.
 *
 * Defined in src/cuda/io/cufile.c and src/cuda/io/staging.c in CUDA builds; the
 * CPU-only build gets stubs in src/core/cuda-stub.c (cuFile unavailable, staging
 * FV_EDEVICE). Plain C declarations only: no CUDA or cuFile header needed. */
#ifndef FV_CUDA_IO_CUDA_IO_H
#define FV_CUDA_IO_CUDA_IO_H

#include <stddef.h>
#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- cuFile ----------------------------------------------------------------- */

#define FV__CUFILE_NONE 0   /* not built, not loadable, driver open failed, no GPU */
#define FV__CUFILE_COMPAT 1 /* driver open, nvidia-fs absent: compatibility mode */
#define FV__CUFILE_GDS 2    /* driver open with nvidia-fs: GPUDirect Storage */

/* Load libcufile and open its driver once (only when a GPU is usable); returns
 * one of the FV__CUFILE_* modes. Thread-safe, cheap after the first call. */
int fv__cufile_mode(void);
/* One line on the driver's state: "gds: ...", "compat: ..." or "unavailable: ...". */
const char *fv__cufile_status(void);

/* cuFileHandleRegister for fd (opened with O_DIRECT). FV_EIO with cuFile's reason
 * when it refuses the file. */
fv_status fv__cufile_register(int fd, void **handle);
void fv__cufile_deregister(void *handle); /* NULL is a no-op */

/* cuFileRead / cuFileWrite between the registered file and device memory buf on
 * `device` (buf already offset), looping over partial transfers. *done: bytes
 * moved, also on failure (the caller continues from there by another path).
 * Reads stop early only at end of file. */
fv_status fv__cufile_read(void *handle, int device, void *buf, size_t count, uint64_t off, size_t *done);
fv_status fv__cufile_write(void *handle, int device, const void *buf, size_t count, uint64_t off, size_t *done);

/* ---- staging through pinned host buffers -------------------------------------- */

/* Moves len bytes between host memory and the file at off; *done: bytes moved
 * (reads: fewer only at end of file). Runs on the calling thread and sets the
 * error message there on failure. */
typedef fv_status (*fv__host_io_fn)(void *arg, void *host, size_t len, uint64_t off, size_t *done);

/* Read count bytes at off into device memory dst on `device`: rd fills pinned
 * host chunks while the previous chunk is copied to the device. Synchronous:
 * on return the bytes are in dst. *nread as rd reports, fewer at end of file. */
fv_status fv__cuda_staged_read(int device, fv__host_io_fn rd, void *arg, void *dst, size_t count, uint64_t off,
                               size_t *nread);
/* Write count bytes from device memory src on `device` to the file at off: the
 * next chunk is copied to the host while wr writes the previous one. */
fv_status fv__cuda_staged_write(int device, fv__host_io_fn wr, void *arg, const void *src, size_t count, uint64_t off,
                                size_t *nwritten);

#ifdef __cplusplus
}
#endif

#endif
