/* The decoded-tile cache: type dispatch, the per-process LRU, and the table of
 * pending decodes.
 *
 * One process mutex guards everything here: the current type, the per-process LRU
 * (a chained hash table plus an LRU list), the pending entries that deduplicate
 * concurrent decodes of one key within the process (for every type but "none"),
 * and the attachment to a shared-memory segment (cache-shm.c), which is only used
 * with this mutex held (lock order: process mutex, then the segment's lock).
 *
 * In shared-memory mode the local table holds pending entries only: a hit copies
 * the tile out of the segment, a miss leaves a pending entry that fv__cache_finish
 * resolves by inserting the decoded tile into the segment.
 *
 * fork: the mutex is held across fork(); the child keeps the per-process LRU (a
 * copy-on-write snapshot), drops the pending entries (their decoders live in the
 * parent), and keeps the shared mapping, registering its pid on its next use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "fovea/slide.h"
#include "cache.h"
#include "alloc.h"
#include "core/config.h"

#define FV__CACHE_BUCKETS (1u << 16)
#define FV__CACHE_DEFAULT ((uint64_t)256 << 20)

typedef struct fv__centry {
    fv__tile_key key;
    fv__tile *tile; /* NULL while pending */
    int pending;
    struct fv__centry *hnext;       /* bucket chain */
    struct fv__centry *prev, *next; /* LRU list (ready entries only); head = most recent */
} fv__centry;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a pending entry finished */
    fv__centry *buckets[FV__CACHE_BUCKETS];
    fv__centry *lru_head, *lru_tail;
    uint64_t capacity, bytes, entries, npending;
    uint64_t hits, misses, evictions;
    int configured;
    int atfork_done, atexit_done;
    fv_cache_type type;
    fv__shm *shm; /* FV_CACHE_SHARED_MEMORY */
    char shm_name[256];
} fv__cache = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

fv__tile *
fv__tile_new(size_t nbytes)
{
    fv__tile *t = fv__malloc(sizeof *t);
    if (!t)
        return NULL;
    size_t sz = (nbytes + 63) / 64 * 64;
    t->data = fv__aligned_alloc(64, sz ? sz : 64);
    if (!t->data) {
        fv__free(t);
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
        fv__free(t->data);
        fv__free(t);
    }
}

/* ---- hash table and LRU list ------------------------------------------------------ */

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
    fv__free(e);
    return t;
}

/* Evict least recently used entries until `need` more bytes fit. Tiles to drop
 * are collected in `out` (unref'd by the caller without the lock). */
static void
fv__evict_for(uint64_t need, fv__tile **out, int *nout, int cap)
{
    while (fv__cache.lru_tail && fv__cache.bytes + need > fv__cache.capacity) {
        fv__tile *t = fv__remove_entry(fv__cache.lru_tail);
        fv__cache.evictions++;
        if (*nout < cap)
            out[(*nout)++] = t;
        else
            fv__tile_unref(t); /* rare: more than cap evictions at once */
    }
}

/* Unlink every ready entry (the pending ones stay) and return them as a list
 * through hnext, for fv__free_entries outside the lock. */
static fv__centry *
fv__take_ready_locked(void)
{
    fv__centry *list = NULL;
    while (fv__cache.lru_tail) {
        fv__centry *e = fv__cache.lru_tail;
        fv__centry **pp = fv__find_slot(&e->key);
        if (*pp == e)
            *pp = e->hnext;
        fv__lru_unlink(e);
        e->hnext = list;
        list = e;
    }
    fv__cache.bytes = fv__cache.entries = 0;
    return list;
}

static void
fv__free_entries(fv__centry *list)
{
    while (list) {
        fv__centry *n = list->hnext;
        fv__tile_unref(list->tile);
        fv__free(list);
        list = n;
    }
}

/* ---- process life: fork, exit, first use ------------------------------------------ */

static void
fv__cache_prefork(void)
{
    pthread_mutex_lock(&fv__cache.mu);
}
static void
fv__cache_postfork_parent(void)
{
    pthread_mutex_unlock(&fv__cache.mu);
}

static void
fv__cache_postfork_child(void)
{
    /* the threads waiting on or decoding pending entries stayed in the parent */
    pthread_mutex_init(&fv__cache.mu, NULL);
    pthread_cond_init(&fv__cache.cv, NULL);
    if (fv__cache.npending) {
        for (uint32_t b = 0; b < FV__CACHE_BUCKETS; b++) {
            fv__centry **pp = &fv__cache.buckets[b];
            while (*pp) {
                fv__centry *e = *pp;
                if (e->pending) {
                    *pp = e->hnext;
                    fv__free(e);
                } else
                    pp = &e->hnext;
            }
        }
        fv__cache.npending = 0;
    }
    if (fv__cache.shm)
        fv__shm_forked(fv__cache.shm);
}

/* At exit: leave the shared segment (unlinking it when this is the last process)
 * but keep it mapped: threads that still run may use it until the process ends. */
static void
fv__cache_atexit(void)
{
    pthread_mutex_lock(&fv__cache.mu);
    if (fv__cache.shm)
        fv__shm_detach(fv__cache.shm, 0);
    pthread_mutex_unlock(&fv__cache.mu);
}

static void
fv__cache_hooks_locked(void)
{
    if (!fv__cache.atfork_done) {
        pthread_atfork(fv__cache_prefork, fv__cache_postfork_parent, fv__cache_postfork_child);
        fv__cache.atfork_done = 1;
    }
}

static void fv__cache_set_shm_locked(fv__shm *s);

/* First use: the per-process default, or the segment named by FOVEA_CACHE_SHM
 * (a spawned worker joining its parent's cache; on failure the default stays). */
static void
fv__cache_configure_locked(void)
{
    if (fv__cache.configured)
        return;
    fv__cache_hooks_locked();
    fv__cache.configured = 1;
    fv__cache.type = FV_CACHE_PER_PROCESS;
    fv__cache.capacity = FV__CACHE_DEFAULT;
    const char *env = fv__env(FV__ENV_CACHE_BYTES);
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0')
            fv__cache.capacity = v;
    }
    const char *shm = fv__env(FV__ENV_CACHE_SHM);
    if (shm && *shm) {
        fv__shm *s = NULL;
        if (fv__shm_attach(shm, &s) == FV_OK)
            fv__cache_set_shm_locked(s);
    }
}

static void
fv__cache_set_shm_locked(fv__shm *s)
{
    fv__cache.shm = s;
    fv__cache.type = s ? FV_CACHE_SHARED_MEMORY : fv__cache.type;
    snprintf(fv__cache.shm_name, sizeof fv__cache.shm_name, "%s", s ? fv__shm_name(s) : "");
    if (s && !fv__cache.atexit_done) {
        atexit(fv__cache_atexit);
        fv__cache.atexit_done = 1;
    }
}

/* ---- acquire / finish -------------------------------------------------------------- */

/* A per-process hit on e: counted, made the most recent, a new reference. */
static fv__tile *
fv__cache_hit_locked(fv__centry *e)
{
    fv__cache.hits++;
    fv__lru_unlink(e);
    fv__lru_push_front(e);
    return fv__tile_ref(e->tile);
}

fv__tile *
fv__cache_acquire(const fv__tile_key *key, int *must_decode)
{
    *must_decode = 0;
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    for (;;) {
        if (fv__cache.type == FV_CACHE_NONE || (fv__cache.type == FV_CACHE_PER_PROCESS && fv__cache.capacity == 0)) {
            fv__cache.misses++;
            *must_decode = 1;
            pthread_mutex_unlock(&fv__cache.mu);
            return NULL;
        }
        fv__centry **pp = fv__find_slot(key);
        fv__centry *e = *pp;
        if (e && e->pending) {
            pthread_cond_wait(&fv__cache.cv, &fv__cache.mu);
            continue;
        }
        if (e) { /* per-process hit */
            fv__tile *t = fv__cache_hit_locked(e);
            pthread_mutex_unlock(&fv__cache.mu);
            return t;
        }
        if (fv__cache.type == FV_CACHE_SHARED_MEMORY) {
            fv__tile *t = NULL;
            if (fv__shm_lookup(fv__cache.shm, key, &t) == 1) {
                pthread_mutex_unlock(&fv__cache.mu);
                return t;
            }
        } else
            fv__cache.misses++;
        e = fv__calloc(1, sizeof *e);
        if (e) { /* without memory for the entry, decode without deduplication */
            e->key = *key;
            e->pending = 1;
            e->hnext = NULL;
            *pp = e;
            fv__cache.npending++;
        }
        *must_decode = 1;
        pthread_mutex_unlock(&fv__cache.mu);
        return NULL;
    }
}

fv__tile *
fv__cache_peek(const fv__tile_key *key)
{
    fv__tile *t = NULL;
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    if (fv__cache.type == FV_CACHE_PER_PROCESS && fv__cache.capacity) {
        fv__centry *e = *fv__find_slot(key);
        if (e && !e->pending)
            t = fv__cache_hit_locked(e);
        else
            fv__cache.misses++;
    } else if (fv__cache.type == FV_CACHE_SHARED_MEMORY) {
        if (fv__shm_lookup(fv__cache.shm, key, &t) != 1)
            t = NULL; /* the segment counts its own hits and misses */
    } else {
        fv__cache.misses++;
    }
    pthread_mutex_unlock(&fv__cache.mu);
    return t;
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
        fv__cache.npending--;
        if (tile && fv__cache.type == FV_CACHE_PER_PROCESS && tile->nbytes <= fv__cache.capacity) {
            fv__evict_for(tile->nbytes, drop, &ndrop, 64);
            e->pending = 0;
            e->tile = fv__tile_ref(tile);
            fv__cache.bytes += tile->nbytes;
            fv__cache.entries++;
            fv__lru_push_front(e);
        } else {
            if (tile && fv__cache.type == FV_CACHE_SHARED_MEMORY)
                fv__shm_insert(fv__cache.shm, key, tile);
            *pp = e->hnext; /* failed, shared, or larger than the whole cache: forget it */
            fv__free(e);
        }
    }
    pthread_cond_broadcast(&fv__cache.cv);
    pthread_mutex_unlock(&fv__cache.mu);
    for (int i = 0; i < ndrop; i++)
        fv__tile_unref(drop[i]);
}

/* ---- public API --------------------------------------------------------------------- */

static fv_status
fv__cache_trim(uint64_t capacity)
{
    for (;;) {
        fv__tile *drop[64];
        int ndrop = 0;
        fv_status st = FV_OK;
        pthread_mutex_lock(&fv__cache.mu);
        fv__cache_configure_locked();
        if (fv__cache.type == FV_CACHE_SHARED_MEMORY) {
            st = fv__shm_set_limit(fv__cache.shm, capacity);
            pthread_mutex_unlock(&fv__cache.mu);
            return st;
        }
        fv__cache.capacity = capacity;
        fv__evict_for(0, drop, &ndrop, 64);
        int more = fv__cache.bytes > fv__cache.capacity;
        pthread_mutex_unlock(&fv__cache.mu);
        for (int i = 0; i < ndrop; i++)
            fv__tile_unref(drop[i]);
        if (!more)
            return FV_OK;
    }
}

fv_status
fv_cache_set_capacity(uint64_t bytes)
{
    return fv__cache_trim(bytes);
}

void
fv_cache_clear(void)
{
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    fv__centry *list = fv__take_ready_locked();
    if (fv__cache.type == FV_CACHE_SHARED_MEMORY)
        fv__shm_clear(fv__cache.shm);
    pthread_mutex_unlock(&fv__cache.mu);
    fv__free_entries(list);
}

void
fv_cache_get_stats(fv_cache_stats *out)
{
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    if (fv__cache.type == FV_CACHE_SHARED_MEMORY) {
        fv__shm_stats(fv__cache.shm, out);
    } else {
        int none = fv__cache.type == FV_CACHE_NONE;
        out->hits = fv__cache.hits;
        out->misses = fv__cache.misses;
        out->evictions = fv__cache.evictions;
        out->bytes = fv__cache.bytes;
        out->capacity = none ? 0 : fv__cache.capacity;
        out->entries = fv__cache.entries;
    }
    pthread_mutex_unlock(&fv__cache.mu);
}

void
fv_cache_reset_stats(void)
{
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    fv__cache.hits = fv__cache.misses = fv__cache.evictions = 0;
    if (fv__cache.type == FV_CACHE_SHARED_MEMORY)
        fv__shm_reset_stats(fv__cache.shm);
    pthread_mutex_unlock(&fv__cache.mu);
}

/* Make `type` current with attachment `s` (shared) or capacity (per-process); the
 * old cache's tiles and attachment are released outside the lock. */
static void
fv__cache_switch(fv_cache_type type, uint64_t capacity, fv__shm *s)
{
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_hooks_locked();
    fv__cache.configured = 1; /* an explicit choice: FOVEA_CACHE_SHM no longer applies */
    fv__shm *old = fv__cache.shm;
    fv__centry *list = fv__take_ready_locked();
    fv__cache.type = type;
    if (type == FV_CACHE_PER_PROCESS)
        fv__cache.capacity = capacity;
    fv__cache.shm = NULL;
    fv__cache_set_shm_locked(s);
    fv__cache.hits = fv__cache.misses = fv__cache.evictions = 0;
    pthread_mutex_unlock(&fv__cache.mu);
    fv__free_entries(list);
    if (old && fv__shm_same(old, s))
        fv__shm_forget(old); /* attached again to the same segment: stay registered */
    else if (old)
        fv__shm_detach(old, 1);
}

fv_status
fv_cache_configure(fv_cache_type type, uint64_t capacity_bytes)
{
    fv__shm *s = NULL;
    switch (type) {
    case FV_CACHE_NONE:
    case FV_CACHE_PER_PROCESS:
        break;
    case FV_CACHE_SHARED_MEMORY: {
        if (capacity_bytes < 64)
            return fv_error_set(FV_EINVAL, "cache",
                                "a shared-memory cache needs a capacity of at least 64 bytes "
                                "(got %llu)",
                                (unsigned long long)capacity_bytes);
        fv_status st = fv__shm_create(capacity_bytes, &s);
        if (st)
            return st;
        break;
    }
    default:
        return fv_error_set(FV_EINVAL, "cache",
                            "unknown cache type %d (none = 0, per_process = 1, "
                            "shared_memory = 2)",
                            (int)type);
    }
    fv__cache_switch(type, capacity_bytes, s);
    return FV_OK;
}

fv_status
fv_cache_attach_shared(const char *name)
{
    if (!name || !*name)
        return fv_error_set(FV_EINVAL, "cache", "the shared-memory segment name is empty");
    fv__shm *s = NULL;
    fv_status st = fv__shm_attach(name, &s);
    if (st)
        return st;
    fv__cache_switch(FV_CACHE_SHARED_MEMORY, 0, s);
    return FV_OK;
}

int
fv__cache_enabled(void)
{
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    int on =
        fv__cache.type == FV_CACHE_SHARED_MEMORY || (fv__cache.type == FV_CACHE_PER_PROCESS && fv__cache.capacity > 0);
    pthread_mutex_unlock(&fv__cache.mu);
    return on;
}

fv_cache_type
fv_cache_type_get(void)
{
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    fv_cache_type t = fv__cache.type;
    pthread_mutex_unlock(&fv__cache.mu);
    return t;
}

const char *
fv_cache_shm_name(void)
{
    pthread_mutex_lock(&fv__cache.mu);
    fv__cache_configure_locked();
    pthread_mutex_unlock(&fv__cache.mu);
    return fv__cache.shm_name;
}

/* ---- test hooks ----------------------------------------------------------------------- */

int
fv__cache_test_lock_and_break(int stage)
{
    pthread_mutex_lock(&fv__cache.mu);
    int r = fv__cache.shm ? fv__shm_test_lock_and_break(fv__cache.shm, stage) : -1;
    pthread_mutex_unlock(&fv__cache.mu);
    return r;
}

int
fv__cache_check(char *msg, size_t n)
{
    pthread_mutex_lock(&fv__cache.mu);
    int r = fv__cache.shm ? fv__shm_check(fv__cache.shm, msg, n) : 0;
    pthread_mutex_unlock(&fv__cache.mu);
    return r;
}

uint64_t
fv__cache_repairs(void)
{
    pthread_mutex_lock(&fv__cache.mu);
    uint64_t r = fv__cache.shm ? fv__shm_repairs(fv__cache.shm) : 0;
    pthread_mutex_unlock(&fv__cache.mu);
    return r;
}
