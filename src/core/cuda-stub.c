/* The CUDA entry points of a build without the CUDA toolkit: every device request
 * fails with FV_EDEVICE and a message saying why. */
#include "internal.h"

#define FV__NOCUDA "this fovea was built without the CUDA backend (no CUDA toolkit at build time)"

int
fv__cuda_init(void)
{
    return 0;
}
int
fv__cuda_device_count(void)
{
    return 0;
}
const char *
fv__cuda_reason(void)
{
    return FV__NOCUDA;
}
const char *
fv__cuda_runtime_version(void)
{
    return "";
}
const char *
fv__cuda_driver_version(void)
{
    return "";
}
const char *
fv__cuda_device_name(int device)
{
    (void)device;
    return "";
}

fv_status
fv__cuda_check_device(int device)
{
    return fv_error_set(FV_EDEVICE, "cuda", "device cuda:%d is not available: " FV__NOCUDA, device);
}

fv_status
fv__cuda_alloc(fv_context *ctx, int device, size_t nbytes, void **ptr, void **opaque)
{
    *ptr = *opaque = NULL;
    return fv__cuda_check_device(device);
}

void
fv__cuda_free(void *ptr, void *opaque)
{
    (void)ptr;
    (void)opaque;
}

int
fv__cuda_malloc_async(void **ptr, size_t nbytes, void *stream)
{
    (void)nbytes;
    (void)stream;
    *ptr = NULL;
    return 2; /* cudaErrorMemoryAllocation */
}

int64_t
fv__cuda_pool_used(int device)
{
    (void)device;
    return -1;
}
int
fv__cuda_forked(void)
{
    return 0;
}
fv_status
fv__cuda_pool_trim(int device)
{
    return fv__cuda_check_device(device);
}

fv_status
fv__cuda_memcpy(fv_context *ctx, void *dst, fv_device dst_dev, const void *src, fv_device src_dev, size_t n)
{
    return fv__cuda_check_device(0);
}

fv_status
fv__cuda_memset0(fv_context *ctx, void *ptr, size_t n)
{
    return fv__cuda_check_device(0);
}
void
fv__cuda_mark_use(fv_context *ctx, const fv_array *a)
{
    (void)ctx;
    (void)a;
}
fv_status
fv__cuda_synchronize(fv_context *ctx)
{
    return FV_OK;
}
fv_status
fv__cuda_stream_wait(fv_context *ctx, void *producer, void *consumer)
{
    return fv__cuda_check_device(0);
}

/* ---- file I/O to device memory (src/cuda/io/cuda-io.h) --------------------------- */
#include "cuda/io/cuda-io.h"

#define FV__NOCUFILE "unavailable: " FV__NOCUDA

int
fv__cufile_mode(void)
{
    return FV__CUFILE_NONE;
}
const char *
fv__cufile_status(void)
{
    return FV__NOCUFILE;
}

fv_status
fv__cufile_register(int fd, void **handle)
{
    (void)fd;
    *handle = NULL;
    return fv_error_set(FV_EUNSUPPORTED, "cufile", "%s", FV__NOCUFILE);
}

void
fv__cufile_deregister(void *handle)
{
    (void)handle;
}

fv_status
fv__cufile_read(void *handle, int device, void *buf, size_t count, uint64_t off, size_t *done)
{
    *done = 0;
    return fv__cuda_check_device(device);
}

fv_status
fv__cufile_write(void *handle, int device, const void *buf, size_t count, uint64_t off, size_t *done)
{
    *done = 0;
    return fv__cuda_check_device(device);
}

fv_status
fv__cuda_staged_read(int device, fv__host_io_fn rd, void *arg, void *dst, size_t count, uint64_t off, size_t *nread)
{
    *nread = 0;
    return fv__cuda_check_device(device);
}

fv_status
fv__cuda_staged_write(int device, fv__host_io_fn wr, void *arg, const void *src, size_t count, uint64_t off,
                      size_t *nwritten)
{
    *nwritten = 0;
    return fv__cuda_check_device(device);
}
