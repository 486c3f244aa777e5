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

typedef struct fv__tile {
    FV__ATOMIC_INT refs;
    size_t nbytes;
    uint8_t *data;     /* 64-byte aligned */
} fv__tile;

typedef struct fv__tile_key {
    uint64_t file;     /* identity of the file (device, inode, size, mtime) */
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
/* Publish the result of a decode started by fv__cache_acquire (tile may be NULL).
 * The cache takes its own reference; the caller keeps its one. */
void fv__cache_finish(const fv__tile_key *key, fv__tile *tile);

#endif
