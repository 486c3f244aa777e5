/* File <-> device memory through pinned host buffers (src/cuda/io/cuda-io.h), the
 * path device buffers take when cuFile is not used.
 *
 * A staging set is two pinned, 4096-aligned host chunks (so O_DIRECT reads can
 * land in them), a stream and an event per chunk. Reads: the caller's read
 * function fills chunk k+1 while chunk k is copied to the device; writes: chunk
 * k+1 is copied from the device while chunk k is written. Sets are kept in a
 * small process-wide pool (allocating pinned memory costs milliseconds); a call
 * takes one for its duration, and callers beyond the pool's size wait. The
 * pinned memory lives until the process exits.
 *
 * The stream is a blocking one (cudaStreamDefault): it waits for work queued
 * before on the legacy default stream, and that stream waits for it, so buffers
 * produced by CuPy / PyTorch default-stream work are ordered without a full
 * device synchronisation. Every call returns only after its copies finished. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "internal.h"
#include "cuda/cuda-kernels.h"
#include "cuda/io/cuda-io.h"

#define FV__STAGE_CHUNK ((size_t)32 << 20)
#define FV__STAGE_ALIGN ((size_t)4096)
#define FV__STAGE_SETS 4

typedef struct stage_set {
    int used;     /* slot holds a set */
    int busy;     /* taken by a call */
    int device;   /* device of stream and events; -1 when none */
    void *raw[2]; /* cudaHostAlloc results */
    char *buf[2]; /* raw aligned up to FV__STAGE_ALIGN */
    cudaStream_t stream;
    cudaEvent_t ev[2];
} stage_set;

static stage_set g_sets[FV__STAGE_SETS];
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;

/* Destroy stream and events (on their device); the pinned buffers stay. */
static void
set_drop_stream(stage_set *s)
{
    int prev = -1;
    if (s->device < 0)
        return;
    if (fv__cuda_enter(s->device, &prev) == FV_OK) {
        for (int i = 0; i < 2; i++)
            if (s->ev[i])
                (void)cudaEventDestroy(s->ev[i]);
        if (s->stream)
            (void)cudaStreamDestroy(s->stream);
        fv__cuda_leave(prev);
    }
    (void)cudaGetLastError();
    s->ev[0] = s->ev[1] = NULL;
    s->stream = NULL;
    s->device = -1;
}

/* Pinned buffers and, on `device` (current), stream and events. */
static fv_status
set_ready(stage_set *s, int device)
{
    cudaError_t e;
    for (int i = 0; i < 2; i++) {
        if (s->raw[i])
            continue;
        void *p = NULL;
        if ((e = cudaHostAlloc(&p, FV__STAGE_CHUNK + FV__STAGE_ALIGN, cudaHostAllocPortable)) != cudaSuccess)
            return fv__cuda_error("cudaHostAlloc", e);
        s->raw[i] = p;
        s->buf[i] = (char *)(((uintptr_t)p + FV__STAGE_ALIGN - 1) & ~(uintptr_t)(FV__STAGE_ALIGN - 1));
    }
    if (s->device == device)
        return FV_OK;
    set_drop_stream(s);
    if ((e = cudaStreamCreateWithFlags(&s->stream, cudaStreamDefault)) != cudaSuccess) {
        s->stream = NULL;
        return fv__cuda_error("cudaStreamCreateWithFlags", e);
    }
    s->device = device; /* from here set_drop_stream cleans up */
    for (int i = 0; i < 2; i++)
        if ((e = cudaEventCreateWithFlags(&s->ev[i], cudaEventDisableTiming)) != cudaSuccess) {
            s->ev[i] = NULL;
            fv_status st = fv__cuda_error("cudaEventCreateWithFlags", e);
            set_drop_stream(s);
            return st;
        }
    return FV_OK;
}

/* A free set, preferring one already on `device`; waits when all are busy. */
static stage_set *
set_take(int device)
{
    stage_set *s = NULL;
    pthread_mutex_lock(&g_mu);
    for (;;) {
        for (int i = 0; i < FV__STAGE_SETS && !s; i++)
            if (g_sets[i].used && !g_sets[i].busy && g_sets[i].device == device)
                s = &g_sets[i];
        for (int i = 0; i < FV__STAGE_SETS && !s; i++)
            if (g_sets[i].used && !g_sets[i].busy)
                s = &g_sets[i];
        for (int i = 0; i < FV__STAGE_SETS && !s; i++)
            if (!g_sets[i].used) {
                s = &g_sets[i];
                memset(s, 0, sizeof *s);
                s->used = 1;
                s->device = -1;
            }
        if (s)
            break;
        pthread_cond_wait(&g_cv, &g_mu);
    }
    s->busy = 1;
    pthread_mutex_unlock(&g_mu);
    return s;
}

static void
set_give(stage_set *s)
{
    pthread_mutex_lock(&g_mu);
    s->busy = 0;
    pthread_cond_signal(&g_cv);
    pthread_mutex_unlock(&g_mu);
}

/* Wait for the set's stream; st stays the first failure. */
static fv_status
set_finish(stage_set *s, fv_status st)
{
    cudaError_t e = cudaStreamSynchronize(s->stream);
    if (e != cudaSuccess) {
        fv_status st2 = fv__cuda_error("cudaStreamSynchronize", e);
        if (st == FV_OK)
            st = st2;
    }
    return st;
}

/* The start of a staged transfer of count bytes: device current (the previous
 * one in *prev), a ready buffer set of its own in *s. Nothing to do (count 0):
 * FV_OK with *s NULL. On an error *s may hold a set: stage_end gives it back. */
static fv_status
stage_begin(int device, size_t count, int *prev, stage_set **s)
{
    fv_status st;
    *s = NULL;
    if (count == 0)
        return FV_OK;
    if ((st = fv__cuda_check_device(device)) != FV_OK)
        return st;
    if ((st = fv__cuda_enter(device, prev)) != FV_OK)
        return st;
    *s = set_take(device);
    return set_ready(*s, device);
}

/* The end of a staged transfer: the set back, the previous device current. */
static void
stage_end(stage_set *s, int prev)
{
    if (!s)
        return;
    set_give(s);
    fv__cuda_leave(prev);
}

fv_status
fv__cuda_staged_read(int device, fv__host_io_fn rd, void *arg, void *dst, size_t count, uint64_t off, size_t *nread)
{
    int prev = -1, pending[2] = { 0, 0 };
    size_t total = 0;
    cudaError_t e;
    stage_set *s = NULL;

    *nread = 0;
    fv_status st = stage_begin(device, count, &prev, &s);
    if (st != FV_OK || !s)
        goto out;
    for (int k = 0; total < count; k++) {
        int b = k & 1;
        size_t len = count - total < FV__STAGE_CHUNK ? count - total : FV__STAGE_CHUNK, got = 0;
        if (pending[b]) { /* chunk k-2's copy out of this buffer */
            pending[b] = 0;
            if ((e = cudaEventSynchronize(s->ev[b])) != cudaSuccess) {
                st = fv__cuda_error("cudaEventSynchronize", e);
                break;
            }
        }
        if ((st = rd(arg, s->buf[b], len, off + total, &got)) != FV_OK)
            break;
        if (got > len) {
            st = fv_error_set(FV_EINTERNAL, "filesystem", "staged read: %zu bytes of a %zu-byte chunk", got, len);
            break;
        }
        if (got) {
            if ((e = cudaMemcpyAsync((char *)dst + total, s->buf[b], got, cudaMemcpyHostToDevice, s->stream)) !=
                cudaSuccess) {
                st = fv__cuda_error("cudaMemcpyAsync", e);
                break;
            }
            if ((e = cudaEventRecord(s->ev[b], s->stream)) != cudaSuccess) {
                st = fv__cuda_error("cudaEventRecord", e);
                break;
            }
            pending[b] = 1;
        }
        total += got;
        if (got < len) /* end of file */
            break;
    }
    st = set_finish(s, st);
out:
    stage_end(s, prev);
    if (st == FV_OK)
        *nread = total;
    return st;
}

/* Queue the copy of chunk k (device -> pinned buffer k & 1) and its event. */
static fv_status
stage_fetch(stage_set *s, const char *src, size_t count, size_t k)
{
    size_t a = k * FV__STAGE_CHUNK, len = count - a < FV__STAGE_CHUNK ? count - a : FV__STAGE_CHUNK;
    cudaError_t e = cudaMemcpyAsync(s->buf[k & 1], src + a, len, cudaMemcpyDeviceToHost, s->stream);
    if (e != cudaSuccess)
        return fv__cuda_error("cudaMemcpyAsync", e);
    if ((e = cudaEventRecord(s->ev[k & 1], s->stream)) != cudaSuccess)
        return fv__cuda_error("cudaEventRecord", e);
    return FV_OK;
}

fv_status
fv__cuda_staged_write(int device, fv__host_io_fn wr, void *arg, const void *src, size_t count, uint64_t off,
                      size_t *nwritten)
{
    int prev = -1;
    size_t total = 0, nchunks = (count + FV__STAGE_CHUNK - 1) / FV__STAGE_CHUNK;
    cudaError_t e;
    stage_set *s = NULL;

    *nwritten = 0;
    fv_status st = stage_begin(device, count, &prev, &s);
    if (st != FV_OK || !s)
        goto out;
    if ((st = stage_fetch(s, src, count, 0)) != FV_OK)
        goto finish;
    for (size_t k = 0; k < nchunks; k++) {
        size_t a = k * FV__STAGE_CHUNK, len = count - a < FV__STAGE_CHUNK ? count - a : FV__STAGE_CHUNK, put = 0;
        /* buffer (k+1) & 1 held chunk k-1, whose write below has returned */
        if (k + 1 < nchunks && (st = stage_fetch(s, src, count, k + 1)) != FV_OK)
            break;
        if ((e = cudaEventSynchronize(s->ev[k & 1])) != cudaSuccess) {
            st = fv__cuda_error("cudaEventSynchronize", e);
            break;
        }
        st = wr(arg, s->buf[k & 1], len, off + a, &put);
        total += put;
        if (st != FV_OK)
            break;
    }
finish:
    st = set_finish(s, st);
out:
    stage_end(s, prev);
    *nwritten = total;
    return st;
}
