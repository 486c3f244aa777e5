/* The process-wide decoded-tile cache (internal).
 *
 * An LRU of decoded chunks keyed by (file identity, directory, chunk), shared by
 * every slide handle, with a byte capacity that the cached bytes never exceed.
 * Concurrent requests for the same missing chunk are deduplicated: the first
 * caller decodes while the others wait for its result. */
#ifndef FV_SLIDE_CACHE_H
#define FV_SLIDE_CACHE_H

#include <stdint.h>
#include "internal.h"
#include "fovea/slide.h"

typedef struct fv__tile {
    FV__ATOMIC_INT refs;
    size_t nbytes;
    uint8_t *data; /* 64-byte aligned */
} fv__tile;

typedef struct fv__tile_key {
    uint64_t file; /* identity of the file (device, inode, size, mtime) */
    uint32_t ifd;
    uint64_t chunk;
} fv__tile_key;

/* A new tile of nbytes (refcount 1), or NULL when out of memory. */
fv__tile *fv__tile_new(size_t nbytes);
fv__tile *fv__tile_ref(fv__tile *t);
void fv__tile_unref(fv__tile *t);

/* Look up key. Returns a referenced tile on a hit. On a miss returns NULL and
 * sets *must_decode = 1: the caller decodes and then calls fv__cache_finish (with
 * the tile, or NULL on failure) exactly once. Waits while another thread decodes
 * the same key. */
fv__tile *fv__cache_acquire(const fv__tile_key *key, int *must_decode);
/* A referenced tile when key is cached (a hit), else NULL (a miss); never waits,
 * never reserves the key. */
fv__tile *fv__cache_peek(const fv__tile_key *key);
/* Publish the result of a decode started by fv__cache_acquire (tile may be NULL).
 * The cache takes its own reference; the caller keeps its one. */
void fv__cache_finish(const fv__tile_key *key, fv__tile *tile);

/* ---- cache types and the shared-memory backend (cache.c, cache-shm.c) ----------
 *
 * cache.c owns the process state (the current type, the per-process LRU, the
 * table of pending decodes) under one process mutex; every call below is made with
 * that mutex held, so one attachment is never used by two threads at once. */

#define FV__CACHE_SHM_MAGIC 0x3145484341435646ull /* "FVCACHE1" little-endian */
#define FV__CACHE_SHM_VERSION 1u

typedef struct fv__shm fv__shm; /* this process's attachment to a segment */

/* Create a new segment of `capacity` data bytes (named /fovea-cache-PID-N) and
 * attach to it; or attach to an existing one by name ("/name" or "name"). */
fv_status fv__shm_create(uint64_t capacity, fv__shm **out);
fv_status fv__shm_attach(const char *name, fv__shm **out);
/* Leave: drop this pid from the segment's table (unlinking the segment when no
 * live process is left); unmap and free the attachment when `unmap`, else keep
 * the mapping usable (at exit, for threads still running). */
void fv__shm_detach(fv__shm *s, int unmap);
const char *fv__shm_name(const fv__shm *s);
/* Whether a and b map the same segment; fv__shm_forget unmaps and frees an
 * attachment without leaving (its process stays registered through another). */
int fv__shm_same(const fv__shm *a, const fv__shm *b);
void fv__shm_forget(fv__shm *s);
/* After fork, in the child: the pid registers again on its next use. */
void fv__shm_forked(fv__shm *s);
/* 1: hit (*out = a private copy, refcount 1); 0: miss (counted). */
int fv__shm_lookup(fv__shm *s, const fv__tile_key *key, fv__tile **out);
void fv__shm_insert(fv__shm *s, const fv__tile_key *key, const fv__tile *tile);
void fv__shm_stats(fv__shm *s, fv_cache_stats *out);
void fv__shm_reset_stats(fv__shm *s);
void fv__shm_clear(fv__shm *s);
fv_status fv__shm_set_limit(fv__shm *s, uint64_t bytes);

/* Test hooks (tests/c/test_cache.c). fv__cache_test_lock_and_break takes the
 * current segment's lock and leaves it held with a half-done operation (stage 1:
 * nothing; 2: an insert; 3: an eviction; 4: an LRU move) for a child that then
 * dies; returns 0, or -1 without a shared cache. fv__cache_check verifies the
 * segment's invariants (0, or -1 with a reason in msg). fv__cache_repairs counts
 * the recoveries from a dead lock owner. */
int fv__cache_test_lock_and_break(int stage);
int fv__cache_check(char *msg, size_t n);
uint64_t fv__cache_repairs(void);
int fv__shm_test_lock_and_break(fv__shm *s, int stage);
int fv__shm_check(fv__shm *s, char *msg, size_t n);
uint64_t fv__shm_repairs(fv__shm *s);

/* 1 when reads may be served from or inserted into a cache (type per-process with a
 * capacity, or shared memory); one lock, for the read path. */
int fv__cache_enabled(void);

#endif
