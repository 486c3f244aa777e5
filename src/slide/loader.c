/* fv_batch_loader: batched, multi-threaded, prefetching patch loading.
 *
 * Patches are claimed in serving order from one counter; a worker may claim a
 * patch of batch b only while b < consumed + prefetch (the window), so at most
 * `prefetch` batch arrays exist besides those the consumer holds. Each window slot
 * owns one batch array until the consumer takes it; per-slot errors are reported
 * when (and only when) that batch is served.
 *
 * Host batches of full size are wrapped around buffers from a small pool: when
 * the consumer drops a batch its buffer returns to the pool and the next batch
 * reuses it. A fresh 64 x 256 x 256 x 3 buffer costs a page fault and the kernel's
 * zeroing per page on first write (6% of a tile-aligned epoch, measured); a batch
 * the consumer keeps is never reused. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "alloc.h"
#include "slide/slide-internal.h"

typedef struct fv__slot {
    int64_t batch;      /* batch held, -1 when none */
    int64_t size, done; /* patches in the batch, patches finished */
    fv_array *arr;
    fv_status st;
    char msg[512];
} fv__slot;

/* Idle buffers of one batch size; shared by the loader and every batch array
 * wrapped around one of its buffers (the arrays may outlive the loader). */
typedef struct fv__batch_pool {
    FV__ATOMIC_INT refs;
    pthread_mutex_t mu;
    size_t bytes; /* one buffer */
    int n, cap;   /* idle buffers kept, at most cap (0 once the loader is freed) */
    void *idle[];
} fv__batch_pool;

static void
fv__pool_unref(fv__batch_pool *p)
{
    if (!p || atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (int i = 0; i < p->n; i++)
        fv__free(p->idle[i]);
    pthread_mutex_destroy(&p->mu);
    fv__free(p);
}

/* The deleter of a pooled batch array: its buffer goes back to the pool. */
static void
fv__pool_return(void *data, void *opaque)
{
    fv__batch_pool *p = opaque;
    pthread_mutex_lock(&p->mu);
    if (p->n < p->cap) {
        p->idle[p->n++] = data;
        data = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    fv__free(data);
    fv__pool_unref(p);
}

/* Stop keeping buffers (the loader is gone): free the idle ones. */
static void
fv__pool_close(fv__batch_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->n; i++)
        fv__free(p->idle[i]);
    p->n = p->cap = 0;
    pthread_mutex_unlock(&p->mu);
    fv__pool_unref(p);
}

struct fv_batch_loader {
    fv_slide *s;
    fv_loader_options o;
    fv_read_options ro;
    int64_t n, nb, total;
    int64_t *xy, *order;
    fv__chunk_set once; /* tiles at most two patches need: decoded in part, not cached */
    int64_t shape[4];
    fv_dtype dt;
    int64_t item_bytes;
    fv__batch_pool *pool; /* buffers of full host batches (NULL: none) */
    fv_context *ctx;      /* one CPU thread per patch read */
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    int64_t next_patch, consumed;
    int P;
    fv__slot *slots;
    int stop, finished;
    int nthreads;
    pthread_t *threads;
};

static uint64_t
fv__splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Read patch k (serving order) into item i of arr. */
static fv_status
fv__read_patch(fv_batch_loader *l, int64_t k, fv_array *arr, int64_t i)
{
    fv_array *view = NULL;
    int64_t loc = l->order[k];
    fv_status st = fv_array_view(arr, 3, l->shape + 1, NULL, i * l->item_bytes, &view);
    if (!st)
        st = fv__slide_read_region_once(l->s, l->ctx, l->xy[2 * loc], l->xy[2 * loc + 1], l->o.level, l->o.width,
                                        l->o.height, &l->ro, l->once.keys ? &l->once : NULL, view);
    fv_array_unref(view);
    return st;
}

static int
fv__on_gpu(const fv_batch_loader *l)
{
    return l->o.device.type == FV_DEVICE_CUDA;
}

static fv_status
fv__new_batch(fv_batch_loader *l, int64_t size, fv_array **out)
{
    int64_t shape[4] = { size, l->shape[1], l->shape[2], l->shape[3] };
    fv_device dev = fv__on_gpu(l) ? l->o.device : (fv_device){ FV_DEVICE_CPU, 0 };
    fv__batch_pool *p = l->pool;
    if (!p || size != l->o.batch_size)
        return fv_array_new(NULL, l->dt, 4, shape, dev, out);
    void *buf = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->n)
        buf = p->idle[--p->n];
    pthread_mutex_unlock(&p->mu);
    if (!buf && !(buf = fv__aligned_alloc(64, p->bytes)))
        return fv_error_set(FV_ENOMEM, "loader", "cannot allocate a batch of %zu bytes", p->bytes);
    atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    return fv_array_wrap(l->dt, 4, shape, NULL, buf, dev, fv__pool_return, p, out); /* owns buf either way */
}

/* Read the size patches of batch b (serving order) into arr: on the GPU as one
 * batched read (every tile they touch read once, one nvJPEG batch). */
static fv_status
fv__read_batch_gpu(fv_batch_loader *l, int64_t b, int64_t size, fv_array *arr)
{
    int64_t *xy = fv__malloc((size_t)size * 2 * sizeof *xy);
    if (!xy)
        return fv_error_set(FV_ENOMEM, "loader", "out of host memory");
    for (int64_t i = 0; i < size; i++) {
        int64_t loc = l->order[b * l->o.batch_size + i];
        xy[2 * i] = l->xy[2 * loc];
        xy[2 * i + 1] = l->xy[2 * loc + 1];
    }
    fv_status st = fv_slide_read_regions(l->s, l->ctx, xy, size, l->o.level, l->o.width, l->o.height, &l->ro, arr);
    fv__free(xy);
    return st;
}

static int64_t
fv__batch_size(const fv_batch_loader *l, int64_t b)
{
    int64_t left = l->total - b * l->o.batch_size;
    return left < l->o.batch_size ? left : l->o.batch_size;
}

static void *
fv__loader_worker(void *p)
{
    fv_batch_loader *l = p;
    pthread_mutex_lock(&l->mu);
    while (!l->stop && l->next_patch < l->total) {
        int64_t k = l->next_patch, b = k / l->o.batch_size, i = k - b * l->o.batch_size;
        if (b >= l->consumed + l->P) {
            pthread_cond_wait(&l->cv_work, &l->mu);
            continue;
        }
        fv__slot *sl = &l->slots[b % l->P];
        if (sl->batch != b) {
            sl->batch = b;
            sl->size = fv__batch_size(l, b);
            sl->done = 0;
            sl->st = FV_OK;
            sl->arr = NULL;
            if ((sl->st = fv__new_batch(l, sl->size, &sl->arr)))
                snprintf(sl->msg, sizeof sl->msg, "%s", fv_error_message());
        }
        /* on the GPU a worker takes a whole batch (k is then its first patch) */
        int64_t claim = fv__on_gpu(l) ? sl->size : 1;
        l->next_patch += claim;
        fv_array *arr = fv_array_ref(sl->arr);
        int failed = sl->st != FV_OK;
        pthread_mutex_unlock(&l->mu);
        fv_status st = FV_OK;
        if (!failed)
            st = fv__on_gpu(l) ? fv__read_batch_gpu(l, b, claim, arr) : fv__read_patch(l, k, arr, i);
        char msg[512];
        if (st)
            snprintf(msg, sizeof msg, "%s", fv_error_message());
        fv_array_unref(arr);
        pthread_mutex_lock(&l->mu);
        if (st && !sl->st) {
            sl->st = st;
            memcpy(sl->msg, msg, sizeof msg);
        }
        if ((sl->done += claim) == sl->size)
            pthread_cond_broadcast(&l->cv_done);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

fv_status
fv_batch_loader_new(fv_slide *s, const int64_t *xy, int64_t n, const fv_loader_options *opts, fv_batch_loader **out)
{
    fv_status st;
    if (!out)
        return fv_error_set(FV_EINVAL, "loader", "out is NULL");
    *out = NULL;
    if (!s || !opts || (n > 0 && !xy))
        return fv_error_set(FV_EINVAL, "loader", "NULL argument");
    if (n < 0)
        return fv_error_set(FV_EINVAL, "loader", "%lld locations", (long long)n);
    if (opts->batch_size < 1)
        return fv_error_set(FV_EINVAL, "loader", "batch_size = %d must be >= 1", opts->batch_size);
    if (opts->num_workers < 0 || opts->num_workers > 1024)
        return fv_error_set(FV_EINVAL, "loader", "num_workers = %d must be in 0..1024", opts->num_workers);
    if (opts->prefetch_factor < 0 || opts->prefetch_factor > 1024)
        return fv_error_set(FV_EINVAL, "loader", "prefetch_factor = %d must be in 1..1024", opts->prefetch_factor);
    fv_level_info li;
    if ((st = fv_slide_level_info(s, opts->level, &li)))
        return st;
    if (opts->device.type == FV_DEVICE_CUDA) {
        if ((st = fv__cuda_check_device(opts->device.id)))
            return st;
    } else if (opts->device.type != 0 && opts->device.type != FV_DEVICE_CPU) {
        return fv_error_set(FV_EINVAL, "loader", "device type %d is neither CPU nor CUDA", (int)opts->device.type);
    }
    fv_batch_loader *l = fv__calloc(1, sizeof *l);
    if (!l)
        return fv_error_set(FV_ENOMEM, "loader", "out of host memory");
    l->o = *opts;
    l->P = opts->prefetch_factor ? opts->prefetch_factor : 2;
    l->n = n;
    l->nb = opts->drop_last ? n / opts->batch_size : (n + opts->batch_size - 1) / opts->batch_size;
    l->total = opts->drop_last ? l->nb * opts->batch_size : n;
    l->ro = (fv_read_options){ opts->format, 1, opts->nocache };
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv_work, NULL);
    pthread_cond_init(&l->cv_done, NULL);
    if ((st = fv_slide_region_shape(s, opts->width, opts->height, opts->format, l->shape + 1, &l->dt)))
        goto fail;
    l->item_bytes = l->shape[1] * l->shape[2] * l->shape[3] * (int64_t)fv_dtype_size(l->dt);
    if (!fv__on_gpu(l) && l->nb > 1 && l->item_bytes > 0 && l->item_bytes <= ((int64_t)1 << 40) / opts->batch_size) {
        /* the slots' batches and one the consumer holds; a batch of 0 bytes (an
         * empty patch size) or a single batch gains nothing from a pool (and
         * fv_array_new refuses a size beyond reason with its own message) */
        int cap = l->P + 1;
        if (!(l->pool = fv__calloc(1, sizeof *l->pool + (size_t)cap * sizeof(void *)))) {
            st = fv_error_set(FV_ENOMEM, "loader", "out of host memory");
            goto fail;
        }
        atomic_init(&l->pool->refs, 1);
        pthread_mutex_init(&l->pool->mu, NULL);
        l->pool->cap = cap;
        l->pool->bytes = (size_t)((l->item_bytes * opts->batch_size + 63) / 64 * 64);
    }
    l->xy = fv__malloc((size_t)(n ? n : 1) * 2 * sizeof *l->xy);
    l->order = fv__malloc((size_t)(n ? n : 1) * sizeof *l->order);
    l->slots = fv__calloc((size_t)l->P, sizeof *l->slots);
    if (!l->xy || !l->order || !l->slots) {
        st = fv_error_set(FV_ENOMEM, "loader", "out of host memory for %lld locations", (long long)n);
        goto fail;
    }
    memcpy(l->xy, xy, (size_t)n * 2 * sizeof *l->xy);
    for (int64_t i = 0; i < n; i++)
        l->order[i] = i;
    if (opts->shuffle) {
        uint64_t state = opts->seed;
        for (int64_t i = n - 1; i > 0; i--) {
            int64_t j = (int64_t)(fv__splitmix(&state) % (uint64_t)(i + 1));
            int64_t t = l->order[i];
            l->order[i] = l->order[j];
            l->order[j] = t;
        }
    }
    for (int i = 0; i < l->P; i++)
        l->slots[i].batch = -1;
    /* a tile only one or two patches of the list touch, or touched again only after
     * the cache would have evicted it, is decoded in part (what each patch needs) and
     * not cached: caching it would decode all of it for (almost) nothing */
    if (!fv__on_gpu(l) && !opts->nocache) {
        fv_cache_stats cs;
        fv_cache_get_stats(&cs);
        if ((st = fv__chunk_set_single_use(s, opts->level, xy, l->order, n, opts->width, opts->height, cs.capacity,
                                           &l->once)))
            goto fail;
    }
    if ((st = fv_context_new(&l->ctx)))
        goto fail;
    fv_context_set_threads(l->ctx, 1);
    l->s = fv_slide_ref(s);
    if (opts->num_workers > 0 && l->total > 0) {
        l->threads = fv__calloc((size_t)opts->num_workers, sizeof *l->threads);
        if (!l->threads) {
            st = fv_error_set(FV_ENOMEM, "loader", "out of host memory");
            goto fail;
        }
        for (int i = 0; i < opts->num_workers; i++) {
            if (pthread_create(&l->threads[i], NULL, fv__loader_worker, l) != 0) {
                if (i == 0) {
                    st = fv_error_set(FV_ENOMEM, "loader", "cannot start a worker thread");
                    goto fail;
                }
                break; /* run with the workers that started */
            }
            l->nthreads++;
        }
    }
    *out = l;
    return FV_OK;
fail:
    fv_batch_loader_free(l);
    return st;
}

fv_status
fv_batch_loader_next(fv_batch_loader *l, fv_array **out)
{
    fv_status st = FV_OK;
    if (!out)
        return fv_error_set(FV_EINVAL, "loader", "out is NULL");
    *out = NULL;
    if (!l)
        return fv_error_set(FV_EINVAL, "loader", "loader is NULL");
    if (l->finished || l->consumed >= l->nb) {
        l->finished = 1;
        return FV_OK;
    }
    int64_t b = l->consumed;
    if (l->nthreads == 0) { /* serve in the calling thread */
        fv_array *arr = NULL;
        int64_t size = fv__batch_size(l, b);
        if (!(st = fv__new_batch(l, size, &arr))) {
            if (fv__on_gpu(l))
                st = fv__read_batch_gpu(l, b, size, arr);
            else
                for (int64_t i = 0; i < size && !st; i++)
                    st = fv__read_patch(l, b * l->o.batch_size + i, arr, i);
        }
        if (st) {
            fv_array_unref(arr);
            l->finished = 1;
            return st;
        }
        l->consumed++;
        *out = arr;
        return FV_OK;
    }
    pthread_mutex_lock(&l->mu);
    fv__slot *sl = &l->slots[b % l->P];
    while (sl->batch != b || sl->done < sl->size)
        pthread_cond_wait(&l->cv_done, &l->mu);
    fv_array *arr = sl->arr;
    sl->arr = NULL;
    if (sl->st) {
        st = fv_error_set(sl->st, "loader", "batch %lld: %s", (long long)b, sl->msg);
        l->finished = 1;
        l->stop = 1;
        fv_array_unref(arr);
        arr = NULL;
    } else {
        l->consumed++;
    }
    pthread_cond_broadcast(&l->cv_work);
    pthread_mutex_unlock(&l->mu);
    *out = arr;
    return st;
}

int64_t
fv_batch_loader_batch_count(const fv_batch_loader *l)
{
    return l ? l->nb : 0;
}

int64_t
fv_batch_loader_location_index(const fv_batch_loader *l, int64_t b, int64_t i)
{
    int64_t k = b * l->o.batch_size + i;
    if (!l || b < 0 || i < 0 || i >= l->o.batch_size || k >= l->total)
        return -1;
    return l->order[k];
}

void
fv_batch_loader_free(fv_batch_loader *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->mu);
    l->stop = 1;
    pthread_cond_broadcast(&l->cv_work);
    pthread_cond_broadcast(&l->cv_done);
    pthread_mutex_unlock(&l->mu);
    for (int i = 0; i < l->nthreads; i++)
        pthread_join(l->threads[i], NULL);
    if (l->slots)
        for (int i = 0; i < l->P; i++)
            fv_array_unref(l->slots[i].arr);
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv_work);
    pthread_cond_destroy(&l->cv_done);
    fv_context_free(l->ctx);
    fv_slide_unref(l->s);
    fv__free(l->threads);
    fv__free(l->slots);
    fv__free(l->xy);
    fv__free(l->order);
    fv__chunk_set_free(&l->once);
    fv__pool_close(l->pool);
    fv__free(l);
}
