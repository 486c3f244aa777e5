/* The GPU slide reader's readers (stream, events, nvJPEG decoder, pinned staging,
 * device scratch), kept in a per-process pool and reused, their release, and the
 * decoder information of fovea.config. The read itself is in read-gpu.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "internal.h"
#include "alloc.h"
#include "codec/codec.h"
#include "slide/slide-internal.h"
#include "cuda/cuda-kernels.h"
#include "cuda/io/gpu-cache.h"
#include "cuda/io/gpu-jpeg.h"
#include "cuda/io/read-gpu.h"

#include "cuda/io/read-gpu-internal.h"

/* ---- readers ------------------------------------------------------------------------ */

static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static fv__gpu_reader *g_pool;
static pthread_once_t g_atexit_once = PTHREAD_ONCE_INIT;

static void
fv__reader_free(fv__gpu_reader *r)
{
    if (!r)
        return;
    if (r->stream)
        (void)cudaStreamSynchronize(r->stream);
    fv__gpujpeg_free(r->jpeg);
    if (r->scratch)
        (void)cudaFreeAsync(r->scratch, r->stream);
    if (r->stream)
        (void)cudaStreamSynchronize(r->stream);
    if (r->pinned)
        (void)cudaFreeHost(r->pinned);
    if (r->ev_in)
        (void)cudaEventDestroy(r->ev_in);
    if (r->ev_dec0)
        (void)cudaEventDestroy(r->ev_dec0);
    if (r->ev_dec1)
        (void)cudaEventDestroy(r->ev_dec1);
    if (r->ev_asm0)
        (void)cudaEventDestroy(r->ev_asm0);
    if (r->ev_asm1)
        (void)cudaEventDestroy(r->ev_asm1);
    if (r->stream)
        (void)cudaStreamDestroy(r->stream);
    fv__free(r);
}

/* Frees the device tile cache's idle entries, every idle reader (readers in use
 * stay with their calls) and then, when no decoder is left, the nvJPEG handles. Registered with atexit once the first
 * reader exists, i.e. after the CUDA runtime initialised and registered its own
 * teardown, so it runs before that (atexit handlers run in reverse order). */
void
fv_slide_gpu_release(void)
{
    fv__gpu_reader *list;
    if (fv__cuda_forked())
        return; /* a child forked after CUDA's initialisation: the resources are the parent's */
    fv__gpucache_drop_all();
    pthread_mutex_lock(&g_pool_mu);
    list = g_pool;
    g_pool = NULL;
    pthread_mutex_unlock(&g_pool_mu);
    while (list) {
        fv__gpu_reader *r = list;
        int prev = -1;
        list = r->next;
        if (fv__cuda_enter(r->device, &prev) == FV_OK) {
            fv__reader_free(r);
            (void)cudaGetLastError();
            fv__cuda_leave(prev);
        } else {
            fv__free(r); /* the device is gone: nothing of it can be freed */
        }
    }
    fv__gpujpeg_release_handles();
}

static void
fv__release_atexit(void)
{
    atexit(fv_slide_gpu_release);
}

/* A reader for `device` (current device already set). */
fv_status
fv__reader_get(int device, fv__gpu_reader **out)
{
    fv__gpu_reader *r = NULL, **pp;
    cudaError_t e;
    pthread_mutex_lock(&g_pool_mu);
    for (pp = &g_pool; *pp; pp = &(*pp)->next)
        if ((*pp)->device == device) {
            r = *pp;
            *pp = r->next;
            r->next = NULL;
            break;
        }
    pthread_mutex_unlock(&g_pool_mu);
    if (r) {
        *out = r;
        return FV_OK;
    }
    if (!(r = fv__calloc(1, sizeof *r)))
        return fv_error_set(FV_ENOMEM, "read_region", "out of host memory");
    r->device = device;
    /* non-blocking: decoding runs beside the consumer's work on the legacy default
     * stream; each call orders itself after the caller's stream explicitly */
    if ((e = cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking)) != cudaSuccess ||
        (e = cudaEventCreate(&r->ev_in)) != cudaSuccess || (e = cudaEventCreate(&r->ev_dec0)) != cudaSuccess ||
        (e = cudaEventCreate(&r->ev_dec1)) != cudaSuccess || (e = cudaEventCreate(&r->ev_asm0)) != cudaSuccess ||
        (e = cudaEventCreate(&r->ev_asm1)) != cudaSuccess) {
        fv_status st = fv__cuda_error("read_region: stream or event", e);
        fv__reader_free(r);
        return st;
    }
    if (fv__gpujpeg_new(device, &r->jpeg) != FV_OK)
        r->jpeg = NULL; /* JPEG tiles are then decoded on the CPU */
    pthread_once(&g_atexit_once, fv__release_atexit);
    *out = r;
    return FV_OK;
}

void
fv__reader_put(fv__gpu_reader *r)
{
    pthread_mutex_lock(&g_pool_mu);
    r->next = g_pool;
    g_pool = r;
    pthread_mutex_unlock(&g_pool_mu);
}

fv_status
fv__reader_reserve(fv__gpu_reader *r, size_t pinned, size_t scratch)
{
    cudaError_t e;
    if (pinned > r->pinned_cap) {
        size_t cap = pinned + pinned / 2;
        if (r->pinned)
            (void)cudaFreeHost(r->pinned); /* the stream is idle between passes */
        r->pinned = NULL;
        r->pinned_cap = 0;
        if ((e = cudaHostAlloc((void **)&r->pinned, cap, cudaHostAllocDefault)) != cudaSuccess) {
            r->pinned = NULL;
            return fv__cuda_error("read_region: cudaHostAlloc", e);
        }
        r->pinned_cap = cap;
    }
    if (scratch > r->scratch_cap) {
        size_t cap = scratch + scratch / 4;
        if (r->scratch)
            (void)cudaFreeAsync(r->scratch, r->stream);
        r->scratch = NULL;
        r->scratch_cap = 0;
        if ((e = (cudaError_t)fv__cuda_malloc_async((void **)&r->scratch, cap, r->stream)) != cudaSuccess) {
            r->scratch = NULL;
            return fv__cuda_error("read_region: cudaMallocAsync", e);
        }
        r->scratch_cap = cap;
    }
    return FV_OK;
}

/* ---- decoder information (fovea.config) --------------------------------------------- */

static pthread_once_t g_dec_once = PTHREAD_ONCE_INIT;
static int g_dec_ok;
static char g_dec_info[300];

static void
fv__decoder_probe(void)
{
    char why[256] = "";
    int prev = -1;
    fv__gpujpeg *j = NULL;
    if (!fv__gpujpeg_available(why, sizeof why)) {
        snprintf(g_dec_info, sizeof g_dec_info, "%s", why);
        return;
    }
    if (fv__cuda_enter(0, &prev) != FV_OK) {
        snprintf(g_dec_info, sizeof g_dec_info, "%s", fv_error_message());
        return;
    }
    if (fv__gpujpeg_new(0, &j) == FV_OK) {
        g_dec_ok = 1;
        snprintf(g_dec_info, sizeof g_dec_info, "%s", fv__gpujpeg_backend(j));
        fv__gpujpeg_free(j);
    } else {
        snprintf(g_dec_info, sizeof g_dec_info, "%s", fv_error_message());
    }
    fv__cuda_leave(prev);
}

const char *
fv__slide_gpu_decoder(int *available)
{
    (void)pthread_once(&g_dec_once, fv__decoder_probe);
    *available = g_dec_ok;
    return g_dec_info;
}
