/* The CUDA backend's host side: driver/device discovery, device memory, copies,
 * streams and version strings (the fv__cuda_* functions of internal.h).
 *
 * Plain C against the CUDA runtime API. The runtime is linked statically and
 * loads the driver (libcuda) lazily, so everything here must work, and fail
 * cleanly, on a machine without a driver or a GPU: fv__cuda_init reports 0 and
 * keeps a reason, the other entry points return FV_EDEVICE. Nothing prints or
 * aborts.
 *
 * Streams: work on device d runs on the context's stream when the context is
 * bound to d (fv_context_set_cuda), otherwise on d's legacy default stream.
 * Every entry point restores the thread's current device before returning.
 *
 * fork: CUDA cannot be used in a child forked after the parent initialised it.
 * Once fovea's backend is initialised, a fork handler marks the child's backend
 * unusable: device requests fail with FV_EDEVICE saying so, host data keeps
 * working on the CPU, and frees of the parent's device memory (Python objects the
 * child inherited) touch no CUDA call, so nothing in the child can hang in the
 * driver. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "internal.h"
#include "alloc.h"
#include "cuda/cuda-kernels.h"

#define FV__CUDA_MAX_DEVICES 64

static pthread_once_t g_init_once = PTHREAD_ONCE_INIT;
static int g_ok;                       /* usable driver and device(s) */
static volatile int g_forked;          /* a child forked after init    */
static int g_count;                    /* devices (when g_ok)         */
static int g_sm[FV__CUDA_MAX_DEVICES]; /* multiprocessors per device  */
static char g_reason[256];

static pthread_once_t g_version_once = PTHREAD_ONCE_INIT;
static char g_runtime_version[16];
static char g_driver_version[16];

static pthread_once_t g_names_once = PTHREAD_ONCE_INIT;
static char g_names[FV__CUDA_MAX_DEVICES][256];

/* ---- errors and devices ------------------------------------------------------ */

fv_status
fv__cuda_error(const char *call, int err)
{
    cudaError_t e = (cudaError_t)err;
    const char *msg = cudaGetErrorString(e), *name = cudaGetErrorName(e);
    fv_status st = e == cudaErrorMemoryAllocation ? FV_ENOMEM : FV_ECUDA;
    (void)cudaGetLastError(); /* clear a non-sticky error so later checks start clean */
    return fv_error_set(st, "cuda", "%s: %s (%s)", call, msg ? msg : "unknown error", name ? name : "?");
}

fv_status
fv__cuda_enter(int device, int *prev)
{
    int cur = 0;
    cudaError_t e = cudaGetDevice(&cur);
    *prev = -1;
    if (e != cudaSuccess)
        return fv__cuda_error("cudaGetDevice", e);
    *prev = cur;
    if (cur != device && (e = cudaSetDevice(device)) != cudaSuccess) {
        *prev = -1;
        return fv__cuda_error("cudaSetDevice", e);
    }
    return FV_OK;
}

void
fv__cuda_leave(int prev)
{
    int cur;
    if (prev >= 0 && cudaGetDevice(&cur) == cudaSuccess && cur != prev)
        (void)cudaSetDevice(prev);
}

void *
fv__cuda_stream_for(const fv_context *ctx, int device)
{
    return ctx && ctx->cuda_device == device ? ctx->cuda_stream : NULL;
}

int
fv__cuda_sm_count(int device)
{
    if (device < 0 || device >= FV__CUDA_MAX_DEVICES || g_sm[device] <= 0)
        return 1;
    return g_sm[device];
}

static void
cuda_atfork_child(void)
{
    g_forked = 1;
    g_ok = 0;
    snprintf(g_reason, sizeof g_reason,
             "CUDA was initialised in the parent before this process was forked, and CUDA cannot "
             "be used in such a child: start workers with the 'spawn' or 'forkserver' method, or "
             "pass host arrays (they run on the CPU)");
}

static void
cuda_init_once(void)
{
    int n = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaDriverGetVersion(&drv);
        (void)cudaRuntimeGetVersion(&rt);
        if (e == cudaErrorInsufficientDriver && drv == 0)
            snprintf(g_reason, sizeof g_reason, "no CUDA driver found (cudaErrorInsufficientDriver)");
        else if (e == cudaErrorInsufficientDriver)
            snprintf(g_reason, sizeof g_reason,
                     "the CUDA driver (%d.%d) is older than the runtime (%d.%d) "
                     "(cudaErrorInsufficientDriver)",
                     drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
        else if (e == cudaErrorNoDevice)
            snprintf(g_reason, sizeof g_reason, "no CUDA device (cudaErrorNoDevice)");
        else
            snprintf(g_reason, sizeof g_reason, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(e),
                     cudaGetErrorName(e));
        (void)cudaGetLastError();
        return;
    }
    if (n <= 0) {
        snprintf(g_reason, sizeof g_reason, "no CUDA device");
        return;
    }
    for (int d = 0; d < n && d < FV__CUDA_MAX_DEVICES; d++) {
        int sm = 0;
        if (cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, d) == cudaSuccess && sm > 0)
            g_sm[d] = sm;
        /* keep freed blocks in the stream-ordered pool instead of returning them to
         * the driver at every synchronisation: reallocation is then nearly free */
        cudaMemPool_t pool;
        if (cudaDeviceGetDefaultMemPool(&pool, d) == cudaSuccess) {
            uint64_t keep = UINT64_MAX;
            (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        }
    }
    (void)cudaGetLastError();
    g_count = n;
    fv__register_kernels(fv__cuda_kernel_decls); /* the FV_KERNEL(..., CUDA, ...) declarations */
    (void)pthread_atfork(NULL, NULL, cuda_atfork_child);
    g_ok = 1;
}

int
fv__cuda_init(void)
{
    pthread_once(&g_init_once, cuda_init_once);
    return g_ok;
}

int
fv__cuda_device_count(void)
{
    return fv__cuda_init() ? g_count : 0;
}

const char *
fv__cuda_reason(void)
{
    fv__cuda_init();
    return g_reason;
}

fv_status
fv__cuda_check_device(int device)
{
    if (!fv__cuda_init())
        return fv_error_set(FV_EDEVICE, "cuda", "device cuda:%d is not available: %s", device, g_reason);
    if (device < 0 || device >= g_count)
        return fv_error_set(FV_EDEVICE, "cuda", "no CUDA device %d (%d device%s present)", device, g_count,
                            g_count == 1 ? "" : "s");
    return FV_OK;
}

/* ---- versions and names ------------------------------------------------------- */

static void
version_once(void)
{
    int v = 0;
    if (cudaRuntimeGetVersion(&v) == cudaSuccess && v > 0)
        snprintf(g_runtime_version, sizeof g_runtime_version, "%d.%d", v / 1000, (v % 1000) / 10);
    v = 0;
    if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
        snprintf(g_driver_version, sizeof g_driver_version, "%d.%d", v / 1000, (v % 1000) / 10);
    (void)cudaGetLastError();
}

const char *
fv__cuda_runtime_version(void)
{
    pthread_once(&g_version_once, version_once);
    return g_runtime_version;
}

const char *
fv__cuda_driver_version(void)
{
    pthread_once(&g_version_once, version_once);
    return g_driver_version;
}

static void
names_once(void)
{
    for (int d = 0; d < g_count && d < FV__CUDA_MAX_DEVICES; d++) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, d) == cudaSuccess)
            snprintf(g_names[d], sizeof g_names[d], "%.*s", (int)(sizeof prop.name - 1), prop.name);
    }
    (void)cudaGetLastError();
}

const char *
fv__cuda_device_name(int device)
{
    if (!fv__cuda_init() || device < 0 || device >= g_count || device >= FV__CUDA_MAX_DEVICES)
        return "";
    pthread_once(&g_names_once, names_once);
    return g_names[device];
}

/* ---- memory -------------------------------------------------------------------- */

int
fv__cuda_malloc_async(void **ptr, size_t nbytes, void *stream)
{
    *ptr = NULL;
    if (fv__fault_hit(FV__FAULT_DEVICE_ALLOC))
        return (int)cudaErrorMemoryAllocation;
    return (int)cudaMallocAsync(ptr, nbytes, (cudaStream_t)stream);
}

int
fv__cuda_forked(void)
{
    return g_forked;
}

fv_status
fv__cuda_pool_trim(int device)
{
    cudaMemPool_t pool;
    cudaError_t e;
    int prev = -1;
    fv_status st;
    if ((st = fv__cuda_check_device(device)) != FV_OK || (st = fv__cuda_enter(device, &prev)) != FV_OK)
        return st;
    if ((e = cudaDeviceSynchronize()) != cudaSuccess)
        st = fv__cuda_error("cudaDeviceSynchronize", e);
    else if ((e = cudaDeviceGetDefaultMemPool(&pool, device)) == cudaSuccess)
        (void)cudaMemPoolTrimTo(pool, 0);
    (void)cudaGetLastError();
    fv__cuda_leave(prev);
    return st;
}

int64_t
fv__cuda_pool_used(int device)
{
    cudaMemPool_t pool;
    uint64_t used = 0;
    int prev = -1;
    if (fv__cuda_check_device(device) != FV_OK || fv__cuda_enter(device, &prev) != FV_OK)
        return -1;
    int ok = cudaDeviceSynchronize() == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess &&
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess;
    (void)cudaGetLastError();
    fv__cuda_leave(prev);
    return ok ? (int64_t)used : -1;
}

/* What fv__cuda_free needs to give a block back.
 *
 * The caller's stream may be destroyed before the array dies (a CuPy or torch
 * stream in a `with` block), so a block never refers to it after allocation: an
 * event marks the block's last use instead (recorded at allocation and after every
 * kernel or copy that touches it, fv__cuda_mark_use), and the free waits for that
 * event on the legacy default stream, which always exists. */
typedef struct fv__cuda_block {
    int device;
    int pooled;           /* cudaMallocAsync (1) or cudaMalloc (0) */
    cudaStream_t stream;  /* the stream it was allocated on (used only there) */
    cudaEvent_t last_use; /* NULL when no event could be made: the free synchronises */
} fv__cuda_block;

static pthread_mutex_t g_use_mu = PTHREAD_MUTEX_INITIALIZER;

fv_status
fv__cuda_alloc(fv_context *ctx, int device, size_t nbytes, void **ptr, void **opaque)
{
    fv__cuda_block *rec = NULL;
    void *p = NULL;
    int prev = -1;
    cudaError_t e;
    fv_status st;

    *ptr = NULL;
    *opaque = NULL;
    if ((st = fv__cuda_check_device(device)) != FV_OK)
        return st;
    if (nbytes == 0) /* zero-size arrays carry no memory: data NULL, no record */
        return FV_OK;
    ctx = fv__ctx(ctx);
    if (!(rec = malloc(sizeof *rec)))
        return fv_error_set(FV_ENOMEM, "cuda", "out of host memory");
    rec->device = device;
    rec->pooled = 1;
    rec->stream = (cudaStream_t)fv__cuda_stream_for(ctx, device);
    if ((st = fv__cuda_enter(device, &prev)) != FV_OK)
        goto done;

    e = (cudaError_t)fv__cuda_malloc_async(&p, nbytes, rec->stream);
    if (e == cudaErrorMemoryAllocation) {
        /* memory freed on other streams returns to the pool at synchronisation */
        (void)cudaGetLastError();
        if (cudaDeviceSynchronize() == cudaSuccess)
            e = (cudaError_t)fv__cuda_malloc_async(&p, nbytes, rec->stream);
    }
    if (e == cudaErrorNotSupported) { /* no stream-ordered allocator on this device */
        (void)cudaGetLastError();
        rec->pooled = 0;
        e = fv__fault_hit(FV__FAULT_DEVICE_ALLOC) ? cudaErrorMemoryAllocation : cudaMalloc(&p, nbytes);
    }
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        st = fv_error_set(FV_ENOMEM, "cuda", "out of device memory allocating %zu bytes on cuda:%d", nbytes, device);
    } else if (e != cudaSuccess) {
        st = fv__cuda_error(rec->pooled ? "cudaMallocAsync" : "cudaMalloc", e);
    }
    rec->last_use = NULL;
    if (st == FV_OK && cudaEventCreateWithFlags(&rec->last_use, cudaEventDisableTiming) == cudaSuccess) {
        if (cudaEventRecord(rec->last_use, rec->stream) != cudaSuccess) {
            (void)cudaEventDestroy(rec->last_use);
            rec->last_use = NULL;
        }
    } else {
        rec->last_use = NULL;
    }
    (void)cudaGetLastError();
done:
    fv__cuda_leave(prev);
    if (st != FV_OK) {
        free(rec);
        return st;
    }
    *ptr = p;
    *opaque = rec;
    return FV_OK;
}

void
fv__cuda_mark_use(fv_context *ctx, const fv_array *a)
{
    if (!a || a->device.type != FV_DEVICE_CUDA)
        return;
    const fv_array *owner = a->base ? a->base : a;
    if (owner->deleter != fv__cuda_free || !owner->opaque || g_forked)
        return; /* memory we did not allocate: its owner orders its own frees */
    fv__cuda_block *rec = owner->opaque;
    ctx = fv__ctx(ctx);
    cudaStream_t s = (cudaStream_t)fv__cuda_stream_for(ctx, rec->device);
    pthread_mutex_lock(&g_use_mu);
    if (rec->last_use && cudaEventRecord(rec->last_use, s) != cudaSuccess) {
        (void)cudaGetLastError();
        (void)cudaEventDestroy(rec->last_use);
        rec->last_use = NULL; /* the free will synchronise the device instead */
    }
    pthread_mutex_unlock(&g_use_mu);
}

void
fv__cuda_free(void *ptr, void *opaque)
{
    fv__cuda_block *rec = opaque;
    int prev = -1;

    if (!rec)
        return;
    if (ptr && !g_forked) { /* a forked child leaves the parent's memory alone */
        /* never touches the library's error state: this runs from unref */
        if (cudaGetDevice(&prev) != cudaSuccess)
            prev = -1;
        if (prev != rec->device)
            (void)cudaSetDevice(rec->device);
        int freed = 0;
        if (rec->pooled && rec->last_use && cudaStreamWaitEvent(NULL, rec->last_use, 0) == cudaSuccess &&
            cudaFreeAsync(ptr, NULL) == cudaSuccess)
            freed = 1;
        if (!freed) { /* no usable event: wait for the whole device, then free */
            (void)cudaGetLastError();
            (void)cudaDeviceSynchronize();
            /* a pool block must go back through cudaFreeAsync: cudaFree leaves it
             * counted as in use by the pool */
            if (rec->pooled)
                (void)cudaFreeAsync(ptr, NULL);
            else
                (void)cudaFree(ptr);
        }
        if (rec->last_use)
            (void)cudaEventDestroy(rec->last_use);
        (void)cudaGetLastError();
        if (prev >= 0 && prev != rec->device)
            (void)cudaSetDevice(prev);
    }
    free(rec);
}

/* Make later work on (cdev, consumer) wait for work already queued on
 * (pdev, producer). Returns with no particular device current. */
static fv_status
stream_order(int pdev, cudaStream_t producer, int cdev, cudaStream_t consumer)
{
    cudaEvent_t ev = NULL;
    cudaError_t e;
    if ((e = cudaSetDevice(pdev)) != cudaSuccess)
        return fv__cuda_error("cudaSetDevice", e);
    if ((e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess)
        return fv__cuda_error("cudaEventCreateWithFlags", e);
    if ((e = cudaEventRecord(ev, producer)) != cudaSuccess) {
        fv_status st = fv__cuda_error("cudaEventRecord", e);
        (void)cudaEventDestroy(ev);
        return st;
    }
    if ((e = cudaSetDevice(cdev)) != cudaSuccess || (e = cudaStreamWaitEvent(consumer, ev, 0)) != cudaSuccess) {
        fv_status st = fv__cuda_error("cudaStreamWaitEvent", e);
        (void)cudaEventDestroy(ev);
        return st;
    }
    (void)cudaEventDestroy(ev); /* released once the record completes */
    return FV_OK;
}

fv_status
fv__cuda_memcpy(fv_context *ctx, void *dst, fv_device dst_dev, const void *src, fv_device src_dev, size_t n)
{
    int dcuda = dst_dev.type == FV_DEVICE_CUDA, scuda = src_dev.type == FV_DEVICE_CUDA;
    int prev = -1;
    cudaError_t e = cudaSuccess;
    const char *call = "cudaMemcpyAsync";
    fv_status st = FV_OK;

    if (n == 0)
        return FV_OK;
    if (!dcuda && !scuda) {
        memmove(dst, src, n);
        return FV_OK;
    }
    if ((dcuda && (st = fv__cuda_check_device(dst_dev.id)) != FV_OK) ||
        (scuda && (st = fv__cuda_check_device(src_dev.id)) != FV_OK))
        return st;
    if (!dst || !src)
        return fv_error_set(FV_EINVAL, "cuda", "memcpy of %zu bytes with a NULL pointer", n);
    ctx = fv__ctx(ctx);

    if (dcuda && scuda && dst_dev.id != src_dev.id) {
        /* peer copy on the destination's stream, ordered after the source's
         * producers and before the source's later users (which may free it) */
        int sid = src_dev.id, did = dst_dev.id;
        cudaStream_t ss = (cudaStream_t)fv__cuda_stream_for(ctx, sid);
        cudaStream_t ds = (cudaStream_t)fv__cuda_stream_for(ctx, did);
        if (cudaGetDevice(&prev) != cudaSuccess) {
            (void)cudaGetLastError();
            prev = -1;
        }
        if ((st = stream_order(sid, ss, did, ds)) != FV_OK)
            goto done;
        /* current device is now did */
        if ((e = cudaMemcpyPeerAsync(dst, did, src, sid, n, ds)) != cudaSuccess) {
            st = fv__cuda_error("cudaMemcpyPeerAsync", e);
            goto done;
        }
        st = stream_order(did, ds, sid, ss);
        goto done;
    }

    {
        int dev = dcuda ? dst_dev.id : src_dev.id;
        enum cudaMemcpyKind kind = dcuda && scuda ? cudaMemcpyDeviceToDevice
            : dcuda                               ? cudaMemcpyHostToDevice
                                                  : cudaMemcpyDeviceToHost;
        cudaStream_t s = (cudaStream_t)fv__cuda_stream_for(ctx, dev);
        if ((st = fv__cuda_enter(dev, &prev)) != FV_OK)
            return st;
        e = cudaMemcpyAsync(dst, src, n, kind, s);
        if (e == cudaSuccess && !dcuda) {
            call = "cudaStreamSynchronize";
            e = cudaStreamSynchronize(s);
        }
        st = e == cudaSuccess ? FV_OK : fv__cuda_error(call, e);
    }
done:
    fv__cuda_leave(prev);
    return st;
}

fv_status
fv__cuda_memset0(fv_context *ctx, void *ptr, size_t n)
{
    struct cudaPointerAttributes attr;
    int prev = -1, dev;
    cudaError_t e;
    fv_status st;

    if (n == 0)
        return FV_OK;
    if (!fv__cuda_init())
        return fv_error_set(FV_EDEVICE, "cuda", "CUDA is not available: %s", g_reason);
    ctx = fv__ctx(ctx);
    memset(&attr, 0, sizeof attr);
    if ((e = cudaPointerGetAttributes(&attr, ptr)) != cudaSuccess)
        return fv__cuda_error("cudaPointerGetAttributes", e);
    if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged) {
        memset(ptr, 0, n); /* host memory (pinned or not) */
        return FV_OK;
    }
    dev = attr.device;
    if ((st = fv__cuda_enter(dev, &prev)) != FV_OK)
        return st;
    e = cudaMemsetAsync(ptr, 0, n, (cudaStream_t)fv__cuda_stream_for(ctx, dev));
    st = e == cudaSuccess ? FV_OK : fv__cuda_error("cudaMemsetAsync", e);
    fv__cuda_leave(prev);
    return st;
}

fv_status
fv__cuda_synchronize(fv_context *ctx)
{
    int prev = -1;
    cudaError_t e;
    fv_status st;

    ctx = fv__ctx(ctx);
    if ((st = fv__cuda_check_device(ctx->cuda_device)) != FV_OK)
        return st;
    if ((st = fv__cuda_enter(ctx->cuda_device, &prev)) != FV_OK)
        return st;
    e = cudaStreamSynchronize((cudaStream_t)ctx->cuda_stream);
    st = e == cudaSuccess ? FV_OK : fv__cuda_error("cudaStreamSynchronize", e);
    fv__cuda_leave(prev);
    return st;
}

fv_status
fv__cuda_stream_wait(fv_context *ctx, void *producer, void *consumer)
{
    int prev = -1, dev;
    fv_status st;

    ctx = fv__ctx(ctx);
    dev = ctx->cuda_device;
    if ((st = fv__cuda_check_device(dev)) != FV_OK)
        return st;
    if (producer == consumer)
        return FV_OK;
    if ((st = fv__cuda_enter(dev, &prev)) != FV_OK)
        return st;
    st = stream_order(dev, (cudaStream_t)producer, dev, (cudaStream_t)consumer);
    fv__cuda_leave(prev);
    return st;
}
