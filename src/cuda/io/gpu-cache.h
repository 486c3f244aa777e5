/* The device-side decoded-tile cache of the GPU slide reader (internal; plain C).
 *
 * Decoded chunks stay in device memory, keyed like the host tile cache by (file
 * identity, directory, chunk), one cache per device, least recently used evicted
 * first. A read that finds its chunks there neither reads nor decodes them: the
 * assembly kernel takes their pixels where they are.
 *
 * Entries are shared between concurrent reads (each on its own stream) through
 * reference counts: a reader takes a reference for a pass (fv__gpucache_get), uses
 * the entry on its stream, synchronises that stream, and only then drops the
 * reference; an entry is evicted (freed stream-ordered on the evicting reader's
 * stream) only when nobody holds it. New entries are reserved before the decode
 * writes into them and published once the pass's stream has finished, so no
 * reader ever sees a half-written entry. The capacity (bytes of device memory per
 * device, counted when reserved) is never exceeded. */
#ifndef FV_CUDA_IO_GPU_CACHE_H
#define FV_CUDA_IO_GPU_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__gpucache_entry fv__gpucache_entry;

/* The published entry of the key on device (a new reference), or NULL. */
fv__gpucache_entry *fv__gpucache_get(int device, uint64_t file_id, uint32_t ifd, uint64_t chunk);
/* Device pixels and slot layout (FV__SLOT_*) of an entry. */
uint8_t *fv__gpucache_data(const fv__gpucache_entry *e);
int fv__gpucache_layout(const fv__gpucache_entry *e);
/* Drop a reference taken by get (after the stream that used the entry finished). */
void fv__gpucache_put(fv__gpucache_entry *e);
/* A new, unpublished entry of nbytes for the key (device memory allocated on stream,
 * the current device being `device`), evicting unreferenced entries as needed; NULL
 * when the cache is off, when what it holds is all in use, or out of memory. */
fv__gpucache_entry *fv__gpucache_reserve(int device, uint64_t file_id, uint32_t ifd, uint64_t chunk, size_t nbytes,
                                         void *stream);
/* Make a reserved entry visible with its layout (its stream has finished writing
 * it); when another read published the same key meanwhile, this one is freed. The
 * reservation's reference is dropped. */
void fv__gpucache_publish(fv__gpucache_entry *e, int layout, void *stream);
/* Free a reserved entry that will not be published (its pass failed). */
void fv__gpucache_abandon(fv__gpucache_entry *e, void *stream);
/* Free every unreferenced entry of every device (fv_slide_gpu_release, clear). */
void fv__gpucache_drop_all(void);

#ifdef __cplusplus
}
#endif

#endif
