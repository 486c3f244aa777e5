/* The device-side decoded-tile cache of the GPU slide reader (gpu-cache.h), and
 * its public controls (fv_gpu_cache_*, fovea/slide.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "internal.h"
#include "alloc.h"
#include "fovea/slide.h"
#include "cuda/cuda-kernels.h"
#include "cuda/io/gpu-cache.h"
#include "core/config.h"

#define FV__GPUCACHE_DEFAULT ((uint64_t)1 << 30)
#define FV__GPUCACHE_DEVICES 64

struct fv__gpucache_entry {
    uint64_t file_id, chunk;
    uint32_t ifd;
    int device;
    int layout;
    int refs;
    size_t bytes;
    uint8_t *data;
    struct fv__gpucache_entry *hnext;         /* bucket chain (published entries) */
    struct fv__gpucache_entry *older, *newer; /* LRU list (published entries) */
};

typedef struct fv__gpucache_dev {
    fv__gpucache_entry **buckets;
    size_t nbuckets, entries;
    uint64_t bytes; /* published and reserved */
    fv__gpucache_entry *newest, *oldest;
} fv__gpucache_dev;

static struct {
    pthread_mutex_t mu;
    int configured;
    uint64_t capacity;
    uint64_t hits, misses, evictions;
    fv__gpucache_dev dev[FV__GPUCACHE_DEVICES];
} g = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, { { 0 } } };

static void
fv__gc_configure_locked(void)
{
    if (g.configured)
        return;
    g.configured = 1;
    g.capacity = FV__GPUCACHE_DEFAULT;
    const char *env = fv__env(FV__ENV_GPU_CACHE_BYTES);
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0')
            g.capacity = v;
    }
}

static size_t
fv__gc_hash(uint64_t file_id, uint32_t ifd, uint64_t chunk, size_t nbuckets)
{
    uint64_t h = file_id ^ (0x9e3779b97f4a7c15ull * ((uint64_t)ifd + 1)) ^ (chunk * 0xff51afd7ed558ccdull);
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return (size_t)(h & (nbuckets - 1));
}

static fv__gpucache_entry **
fv__gc_slot(fv__gpucache_dev *d, uint64_t file_id, uint32_t ifd, uint64_t chunk)
{
    fv__gpucache_entry **pp = &d->buckets[fv__gc_hash(file_id, ifd, chunk, d->nbuckets)];
    while (*pp && !((*pp)->file_id == file_id && (*pp)->ifd == ifd && (*pp)->chunk == chunk))
        pp = &(*pp)->hnext;
    return pp;
}

static void
fv__gc_lru_unlink(fv__gpucache_dev *d, fv__gpucache_entry *e)
{
    if (e->older)
        e->older->newer = e->newer;
    else
        d->oldest = e->newer;
    if (e->newer)
        e->newer->older = e->older;
    else
        d->newest = e->older;
    e->older = e->newer = NULL;
}

static void
fv__gc_lru_push(fv__gpucache_dev *d, fv__gpucache_entry *e)
{
    e->older = d->newest;
    e->newer = NULL;
    if (d->newest)
        d->newest->newer = e;
    else
        d->oldest = e;
    d->newest = e;
}

/* Doubles the buckets when the chains grow long (keeps the old table on ENOMEM). */
static void
fv__gc_grow_locked(fv__gpucache_dev *d)
{
    if (d->buckets && d->entries < d->nbuckets)
        return;
    size_t nb = d->nbuckets ? d->nbuckets * 2 : 1024;
    fv__gpucache_entry **b = fv__calloc(nb, sizeof *b);
    if (!b)
        return;
    for (size_t i = 0; i < d->nbuckets; i++)
        for (fv__gpucache_entry *e = d->buckets[i], *next; e; e = next) {
            next = e->hnext;
            size_t h = fv__gc_hash(e->file_id, e->ifd, e->chunk, nb);
            e->hnext = b[h];
            b[h] = e;
        }
    fv__free(d->buckets);
    d->buckets = b;
    d->nbuckets = nb;
}

/* Unlinks a published, unreferenced entry and frees it: stream-ordered on stream
 * when given (the current device is the entry's), else synchronously. */
static void
fv__gc_evict_locked(fv__gpucache_dev *d, fv__gpucache_entry *e, cudaStream_t stream)
{
    fv__gpucache_entry **pp = fv__gc_slot(d, e->file_id, e->ifd, e->chunk);
    if (*pp == e)
        *pp = e->hnext;
    fv__gc_lru_unlink(d, e);
    d->entries--;
    d->bytes -= e->bytes;
    /* pool memory goes back with cudaFreeAsync: cudaFree of a cudaMallocAsync block
     * left it counted as in use by the pool (an eviction by gpu_release / a capacity
     * change leaked its tile for the process's life; test_gpu_runtime.py found it) */
    if (!stream)
        (void)cudaDeviceSynchronize(); /* no stream to order after: wait for every user */
    (void)cudaFreeAsync(e->data, stream);
    (void)cudaGetLastError();
    fv__free(e);
}

/* Evicts the least recently used unreferenced entries of d until `need` more bytes
 * fit (0: until within the capacity); 0 when they do. */
static int
fv__gc_make_room_locked(fv__gpucache_dev *d, uint64_t need, cudaStream_t stream)
{
    fv__gpucache_entry *e = d->oldest;
    while (d->bytes + need > g.capacity && e) {
        fv__gpucache_entry *next = e->newer;
        if (e->refs == 0) {
            fv__gc_evict_locked(d, e, stream);
            g.evictions++;
        }
        e = next;
    }
    return d->bytes + need <= g.capacity ? 0 : -1;
}

fv__gpucache_entry *
fv__gpucache_get(int device, uint64_t file_id, uint32_t ifd, uint64_t chunk)
{
    if (device < 0 || device >= FV__GPUCACHE_DEVICES)
        return NULL;
    fv__gpucache_entry *e = NULL;
    pthread_mutex_lock(&g.mu);
    fv__gc_configure_locked();
    fv__gpucache_dev *d = &g.dev[device];
    if (d->buckets)
        e = *fv__gc_slot(d, file_id, ifd, chunk);
    if (e) {
        e->refs++;
        fv__gc_lru_unlink(d, e);
        fv__gc_lru_push(d, e);
        g.hits++;
    } else if (g.capacity) {
        g.misses++;
    }
    pthread_mutex_unlock(&g.mu);
    return e;
}

uint8_t *
fv__gpucache_data(const fv__gpucache_entry *e)
{
    return e->data;
}

int
fv__gpucache_layout(const fv__gpucache_entry *e)
{
    return e->layout;
}

void
fv__gpucache_put(fv__gpucache_entry *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&g.mu);
    e->refs--;
    pthread_mutex_unlock(&g.mu);
}

fv__gpucache_entry *
fv__gpucache_reserve(int device, uint64_t file_id, uint32_t ifd, uint64_t chunk, size_t nbytes, void *stream)
{
    if (device < 0 || device >= FV__GPUCACHE_DEVICES || nbytes == 0)
        return NULL;
    fv__gpucache_entry *e = NULL;
    pthread_mutex_lock(&g.mu);
    fv__gc_configure_locked();
    fv__gpucache_dev *d = &g.dev[device];
    if (nbytes > g.capacity || fv__gc_make_room_locked(d, nbytes, (cudaStream_t)stream))
        goto done;
    if (!(e = fv__calloc(1, sizeof *e)))
        goto done;
    if (fv__cuda_malloc_async((void **)&e->data, nbytes, stream) != (int)cudaSuccess) {
        (void)cudaGetLastError();
        fv__free(e);
        e = NULL;
        goto done;
    }
    e->file_id = file_id, e->ifd = ifd, e->chunk = chunk, e->device = device;
    e->bytes = nbytes;
    e->refs = 1;
    d->bytes += nbytes;
done:
    pthread_mutex_unlock(&g.mu);
    return e;
}

void
fv__gpucache_publish(fv__gpucache_entry *e, int layout, void *stream)
{
    if (!e)
        return;
    pthread_mutex_lock(&g.mu);
    fv__gpucache_dev *d = &g.dev[e->device];
    e->layout = layout;
    e->refs--;
    fv__gc_grow_locked(d);
    fv__gpucache_entry **pp = d->buckets ? fv__gc_slot(d, e->file_id, e->ifd, e->chunk) : NULL;
    if (!pp || *pp || e->bytes > g.capacity) { /* no table, published by another read, or shrunk */
        d->bytes -= e->bytes;
        (void)cudaFreeAsync(e->data, (cudaStream_t)stream);
        (void)cudaGetLastError();
        fv__free(e);
    } else {
        e->hnext = NULL;
        *pp = e;
        fv__gc_lru_push(d, e);
        d->entries++;
        (void)fv__gc_make_room_locked(d, 0, (cudaStream_t)stream); /* the capacity may have shrunk */
    }
    pthread_mutex_unlock(&g.mu);
}

void
fv__gpucache_abandon(fv__gpucache_entry *e, void *stream)
{
    if (!e)
        return;
    pthread_mutex_lock(&g.mu);
    g.dev[e->device].bytes -= e->bytes;
    (void)cudaFreeAsync(e->data, (cudaStream_t)stream);
    (void)cudaGetLastError();
    pthread_mutex_unlock(&g.mu);
    fv__free(e);
}

/* Evicts unreferenced entries of every device until each is within `limit` bytes
 * (0: all of them), synchronously on each device. */
static void
fv__gc_shrink_locked(uint64_t limit)
{
    uint64_t cap = g.capacity;
    g.capacity = limit;
    for (int dv = 0; dv < FV__GPUCACHE_DEVICES; dv++) {
        fv__gpucache_dev *d = &g.dev[dv];
        if (!d->entries)
            continue;
        int prev = -1;
        if (fv__cuda_enter(dv, &prev) != FV_OK)
            continue;
        (void)fv__gc_make_room_locked(d, 0, NULL);
        fv__cuda_leave(prev);
    }
    g.capacity = cap;
}

void
fv__gpucache_drop_all(void)
{
    pthread_mutex_lock(&g.mu);
    fv__gc_shrink_locked(0);
    for (int dv = 0; dv < FV__GPUCACHE_DEVICES; dv++)
        if (!g.dev[dv].entries) {
            fv__free(g.dev[dv].buckets);
            g.dev[dv].buckets = NULL;
            g.dev[dv].nbuckets = 0;
        }
    pthread_mutex_unlock(&g.mu);
}

/* ---- public controls (fovea/slide.h) ------------------------------------------------ */

fv_status
fv_gpu_cache_set_capacity(uint64_t bytes)
{
    pthread_mutex_lock(&g.mu);
    fv__gc_configure_locked();
    g.capacity = bytes;
    fv__gc_shrink_locked(bytes);
    pthread_mutex_unlock(&g.mu);
    return FV_OK;
}

void
fv_gpu_cache_get_stats(fv_cache_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&g.mu);
    fv__gc_configure_locked();
    out->hits = g.hits, out->misses = g.misses, out->evictions = g.evictions;
    out->capacity = g.capacity;
    for (int dv = 0; dv < FV__GPUCACHE_DEVICES; dv++) {
        out->bytes += g.dev[dv].bytes;
        out->entries += g.dev[dv].entries;
    }
    pthread_mutex_unlock(&g.mu);
}

void
fv_gpu_cache_reset_stats(void)
{
    pthread_mutex_lock(&g.mu);
    g.hits = g.misses = g.evictions = 0;
    pthread_mutex_unlock(&g.mu);
}

void
fv_gpu_cache_clear(void)
{
    fv__gpucache_drop_all();
}
