/* The decoded-tile cache: a chained hash table plus an LRU list under one mutex. */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "fovea/slide.h"
#include "cache.h"

#define FV__CACHE_BUCKETS (1u << 16)
#define FV__CACHE_DEFAULT ((uint64_t)256 << 20)

typedef struct fv__centry {
    fv__tile_key key;
    fv__tile *tile;              /* NULL while pending */
    int pending;
    struct fv__centry *hnext;    /* bucket chain */
    struct fv__centry *prev, *next;   /* LRU list (ready entries only); head = most recent */
} fv__centry;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;           /* a pending entry finished */
    fv__centry *buckets[FV__CACHE_BUCKETS];
    fv__centry *lru_head, *lru_tail;
    uint64_t capacity, bytes, entries;
    uint64_t hits, misses, evictions;
    int configured;
} fv__cache = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

fv__tile *
fv__tile_new(size_t nbytes)
{
    fv__tile *t = malloc(sizeof *t);
    if (!t)
        return NULL;
    size_t sz = (nbytes + 63) / 64 * 64;
    t->data = aligned_alloc(64, sz ? sz : 64);
    if (!t->data) {
        free(t);
        return NULL;
    }
    atomic_init(&t->refs, 1);
    t->nbytes = nbytes;
    return t;
}

fv__tile *
fv__tile_ref(fv__tile *t)
{
    if (t)
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
    return t;
}

void
fv__tile_unref(fv__tile *t)
{
    if (t && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
        free(t->data);
        free(t);
    }
}

/* fork(): hold the lock across it so the child gets a consistent cache */
static void fv__cache_prefork(void) { pthread_mutex_lock(&fv__cache.mu); }
static void fv__cache_postfork(void) { pthread_mutex_unlock(&fv__cache.mu); }

static void
fv__cache_configure_locked(void)
{
    if (fv__cache.configured)
        return;
    pthread_atfork(fv__cache_prefork, fv__cache_postfork, fv__cache_postfork);
    fv__cache.configured = 1;
    fv__cache.capacity = FV__CACHE_DEFAULT;
    const char *env = getenv("FOVEA_CACHE_BYTES");
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0')
            fv__cache.capacity = v;
    }
}

static uint32_t
fv__key_hash(const fv__tile_key *k)
{
    uint64_t h = k->file ^ (k->chunk * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)k->ifd << 40);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h & (FV__CACHE_BUCKETS - 1);
}

static int
fv__key_eq(const fv__tile_key *a, const fv__tile_key *b)
{
    return a->file == b->file && a->ifd == b->ifd && a->chunk == b->chunk;
}

static fv__centry **
fv__find_slot(const fv__tile_key *key)
{
    fv__centry **pp = &fv__cache.buckets[fv__key_hash(key)];
    while (*pp && !fv__key_eq(&(*pp)->key, key))
        pp = &(*pp)->hnext;
    return pp;
}

static void
fv__lru_unlink(fv__centry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        fv__cache.lru_head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        fv__cache.lru_tail = e->prev;
    e->prev = e->next = NULL;
}

static void
fv__lru_push_front(fv__centry *e)
{
    e->prev = NULL;
    e->next = fv__cache.lru_head;
    if (fv__cache.lru_head)
        fv__cache.lru_head->prev = e;
    fv__cache.lru_head = e;
    if (!fv__cache.lru_tail)
        fv__cache.lru_tail = e;
}

/* Remove a ready entry entirely; returns its tile for unref outside the lock. */
static fv__tile *
fv__remove_entry(fv__centry *e)
{
    fv__centry **pp = fv__find_slot(&e->key);
    if (*pp == e)
        *pp = e->hnext;
    fv__tile *t = e->tile;
    if (!e->pending) {
        fv__lru_unlink(e);
        fv__cache.bytes -= t->nbytes;
        fv__cache.entries--;
    }
    free(e);
    return t;
}

/* Evict least recently used entries until `need` more bytes fit. Tiles to drop
 * are chained through `out` (unref'd by the caller without the lock). */
static void
fv__evict_for(uint64_t need, fv__tile **out, int *nout, int cap)
{
    while (fv__cache.lru_tail && fv__cache.bytes + need > fv__cache.capacity) {
        fv__tile *t = fv__remove_entry(fv__cache.lru_tail);
        fv__cache.evictions++;
        if (*nout < cap)
            out[(*nout)++] = t;
        else
            fv__tile_unref(t);   /* rare: more than cap evictions at once */
    }
}

fv__tile *
fv__cache_acquire(const fv__tile_key *key, int *must_decode)
{
    *must_decode = 0;
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    for (;;) {
        if (fv__cache.capacity == 0) {
            fv__cache.misses++;
            *must_decode = 1;
            pthread_mutex_unlock(&fv__cache.mu);
            return NULL;
        }
        fv__centry **pp = fv__find_slot(key);
        fv__centry *e = *pp;
        if (!e) {
            e = calloc(1, sizeof *e);
            if (e) {   /* without memory for the entry, decode without deduplication */
                e->key = *key;
                e->pending = 1;
                e->hnext = NULL;
                *pp = e;
            }
            fv__cache.misses++;
            *must_decode = 1;
            pthread_mutex_unlock(&fv__cache.mu);
            return NULL;
        }
        if (e->pending) {
            pthread_cond_wait(&fv__cache.cv, &fv__cache.mu);
            continue;
        }
        fv__cache.hits++;
        fv__lru_unlink(e);
        fv__lru_push_front(e);
        fv__tile *t = fv__tile_ref(e->tile);
        pthread_mutex_unlock(&fv__cache.mu);
        return t;
    }
}

void
fv__cache_finish(const fv__tile_key *key, fv__tile *tile)
{
    fv__tile *drop[64];
    int ndrop = 0;
    pthread_mutex_lock(&fv__cache.mu);
    fv__centry **pp = fv__find_slot(key);
    fv__centry *e = *pp;
    if (e && e->pending) {
        if (tile && tile->nbytes <= fv__cache.capacity) {
            fv__evict_for(tile->nbytes, drop, &ndrop, 64);
            e->pending = 0;
            e->tile = fv__tile_ref(tile);
            fv__cache.bytes += tile->nbytes;
            fv__cache.entries++;
            fv__lru_push_front(e);
        } else {
            *pp = e->hnext;   /* failed, or larger than the whole cache: forget it */
            free(e);
        }
    }
    pthread_cond_broadcast(&fv__cache.cv);
    pthread_mutex_unlock(&fv__cache.mu);
    for (int i = 0; i < ndrop; i++)
        fv__tile_unref(drop[i]);
}

static void
fv__cache_trim(uint64_t capacity)
{
    for (;;) {
        fv__tile *drop[64];
        int ndrop = 0;
        pthread_mutex_lock(&fv__cache.mu);
        fv__cache_configure_locked();
        fv__cache.capacity = capacity;
        fv__evict_for(0, drop, &ndrop, 64);
        int more = fv__cache.bytes > fv__cache.capacity;
        pthread_mutex_unlock(&fv__cache.mu);
        for (int i = 0; i < ndrop; i++)
            fv__tile_unref(drop[i]);
        if (!more)
            return;
    }
}

fv_status
fv_cache_set_capacity(uint64_t bytes)
{
    fv__cache_trim(bytes);
    return FV_OK;
}

void
fv_cache_clear(void)
{
    uint64_t cap;
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    cap = fv__cache.capacity;
    pthread_mutex_unlock(&fv__cache.mu);
    fv__cache_trim(0);
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache.capacity = cap;
    pthread_mutex_unlock(&fv__cache.mu);
}

void
fv_cache_get_stats(fv_cache_stats *out)
{
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    out->hits = fv__cache.hits;
    out->misses = fv__cache.misses;
    out->evictions = fv__cache.evictions;
    out->bytes = fv__cache.bytes;
    out->capacity = fv__cache.capacity;
    out->entries = fv__cache.entries;
    pthread_mutex_unlock(&fv__cache.mu);
}

void
fv_cache_reset_stats(void)
{
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache.hits = fv__cache.misses = fv__cache.evictions = 0;
    pthread_mutex_unlock(&fv__cache.mu);
}
