/* Slide internals shared by the CPU reader (slide.c, slide-chunk.c,
 * slide-region.c, slide-assoc.c), the batch loader (loader.c) and the GPU reader
 * (src/cuda/io/read-gpu.c). */
#ifndef FV_SLIDE_INTERNAL_H
#define FV_SLIDE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include "internal.h"
#include "core/task-error.h"
#include "fovea/slide.h"
#include "tiff/tiff.h"
#include "cache.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fv_slide {
    FV__ATOMIC_INT refs;
    fv__tiff *tiff;
    fv__layout layout;
    uint64_t file_id;
    int samples;    /* level 0's samples per pixel after decoding */
    fv_dtype dtype; /* uint8 or uint16 */
    char *metadata_json;
    pthread_mutex_t err_mu;
    fv_status sticky; /* first error from the file, or FV_OK */
    char sticky_msg[512];
};

/* The sticky error (FV_OK when none), re-raised with its message. */
fv_status fv__slide_failed(fv_slide *s);
/* Keep st/msg as the sticky error when it comes from the file (FV_EIO, FV_EFORMAT). */
void fv__slide_set_sticky(fv_slide *s, fv_status st, const char *msg);
/* After a region read's tasks: their first error e (FV_OK when none) as this
 * thread's error of read_region, and the slide's sticky one. */
fv_status fv__slide_task_result(fv_slide *s, const fv__task_error *e);
/* The context a region read runs its tasks on: ctx, or with num_workers > 0 a
 * new one of that many threads in *own (the caller frees it). */
fv_status fv__slide_workers(fv_context **ctx, int num_workers, fv_context **own);

typedef struct fv__chunk_geom {
    int64_t x0, y0; /* top-left pixel of the chunk in the directory */
    uint32_t w, h;  /* decoded chunk size */
} fv__chunk_geom;

void fv__chunk_geometry(const fv__tiff_ifd *d, uint64_t chunk, fv__chunk_geom *g);
/* Samples per decoded pixel: YCbCr JPEG/JP2K come out as RGB. */
int fv__decoded_samples(const fv__tiff_ifd *d);
/* How fv__get_chunk uses the tile cache. */
enum {
    FV__CHUNK_CACHE = 0,   /* look up; on a miss decode the whole chunk and insert it */
    FV__CHUNK_NOCACHE = 1, /* bypass the cache (decode only what is wanted) */
    FV__CHUNK_PEEK = 2     /* take it from the cache when there; else decode only what is
                              * wanted, without inserting (a chunk nothing else will read) */
};
/* Read and decode one chunk on the CPU (mode: FV__CHUNK_*); *out = NULL for a
 * missing chunk (background). want/got: see slide.c. */
fv_status fv__get_chunk(fv_slide *s, int ifd, uint64_t chunk, int mode, const uint32_t *want, fv__tile **out,
                        uint32_t got[4]);

/* A set of chunk indices of one directory (open addressing: chunk + 1, 0 = empty). */
typedef struct fv__chunk_set {
    uint64_t *keys;
    uint64_t mask; /* capacity - 1 (a power of two) */
} fv__chunk_set;

/* Where the probe for chunk starts (before masking). */
static inline uint64_t
fv__chunk_set_probe(uint64_t chunk)
{
    return ((chunk + 1) * 0x9e3779b97f4a7c15ull) >> 17;
}

static inline int
fv__chunk_set_has(const fv__chunk_set *cs, uint64_t chunk)
{
    uint64_t i = fv__chunk_set_probe(chunk);
    for (;; i++) {
        uint64_t k = cs->keys[i & cs->mask];
        if (k == chunk + 1)
            return 1;
        if (!k)
            return 0;
    }
}

/* The JPEG chunks of level `level` that the n regions of w x h pixels at level-0
 * locations xy, read in `order` (NULL: as given), touch at most twice, or
 * whose later touches an LRU cache of `capacity` bytes would mostly have
 * forgotten (fewer than two touches with fewer distinct chunks in between than
 * the cache holds). The batch loader reads those with FV__CHUNK_PEEK: a patch
 * decodes only its part of such a tile and does not fill the cache with it. *out
 * is empty (keys NULL) when the regions are too many to count (more than 2^24
 * chunk touches) or nothing qualifies. */
fv_status fv__chunk_set_single_use(fv_slide *s, int level, const int64_t *xy, const int64_t *order, int64_t n,
                                   int64_t w, int64_t h, uint64_t capacity, fv__chunk_set *out);
void fv__chunk_set_free(fv__chunk_set *cs);
/* fv_slide_read_region, the chunks of `once` (NULL: none) read with FV__CHUNK_PEEK. */
fv_status fv__slide_read_region_once(fv_slide *s, fv_context *ctx, int64_t x, int64_t y, int level, int64_t w,
                                     int64_t h, const fv_read_options *opts, const fv__chunk_set *once, fv_array *out);

/* ---- shared by the CPU reader's files (slide-chunk.c, slide-region.c, slide-assoc.c) ---- */

/* slide-chunk.c: decode the rectangle want = {x, y, w, h} of a present chunk into dst. */
fv_status fv__chunk_into(fv_slide *s, int ifd, uint64_t chunk, const uint32_t want[4], uint8_t *dst, size_t stride);

/* One region read, assembled by slide-region.c's workers. */
typedef struct fv__region_job {
    fv_slide *s;
    int ifd;
    int64_t lx, ly, w, h; /* region in directory pixels */
    fv_pixel_format format;
    int nocache;
    int partial;               /* decode only the part of each chunk the region needs */
    int into;                  /* out's pixels are the decoded ones: uncached chunks decode into it */
    const fv__chunk_set *once; /* chunks read through the cache without insertion (NULL: none) */
    uint8_t *out;              /* (h, w, C) contiguous */
    int out_c, out_isz;
    uint64_t tx0, ty0, ntx; /* chunk grid covered */
    uint64_t *chunks;       /* chunk list (tiles or strips) */
    int64_t clip_w, clip_h; /* image extent: pixels beyond are background */
    fv__task_error err;     /* the first chunk that failed */
} fv__region_job;


/* slide-region.c: copy chunk pixels to a region's output, converting; read the
 * region (lx, ly, w, h) of directory ifd (associated images use both). */
void fv__blit(const fv__region_job *j, const fv__tile *t, int tile_w, int src_c, int src_isz, int64_t sx0, int64_t sy0,
              int64_t dx0, int64_t dy0, int64_t n, int64_t m);
fv_status fv__read_ifd_region(fv_slide *s, fv_context *ctx, int ifd, int64_t clip_w, int64_t clip_h, int64_t lx,
                              int64_t ly, int64_t w, int64_t h, fv_pixel_format format, int num_workers, int nocache,
                              const fv__chunk_set *once, fv_array *out);

/* The GPU reader (src/cuda/io/read-gpu.c; without the CUDA backend a stub that
 * fails with FV_EDEVICE). Reads n regions of w x h pixels of directory ifd, whose
 * image is clip_w x clip_h, at directory coordinates lxy[2i], lxy[2i+1], into
 * out: a C-contiguous device array (n, h, w, C) (or (h, w, C) when n == 1) of the
 * format's dtype, validated by the caller. JPEG tiles are decoded with nvJPEG,
 * others on the CPU and copied; regions are assembled on the device. Returns when
 * out holds the pixels (or, on failure, zeros). */
fv_status fv__slide_read_gpu(fv_slide *s, fv_context *ctx, int ifd, int64_t clip_w, int64_t clip_h, const int64_t *lxy,
                             int64_t n, int64_t w, int64_t h, fv_pixel_format format, int num_workers, int nocache,
                             fv_array *out);

/* Counters of the GPU reader since the last reset (fv__slide_gpu_stats). */
typedef struct fv__gpu_read_stats {
    uint64_t regions, tiles_gpu, tiles_cpu, tiles_cached, bytes_read;
    double io_s, decode_s, assemble_s;
} fv__gpu_read_stats;
void fv__slide_gpu_stats(fv__gpu_read_stats *out, int reset);

#ifdef __cplusplus
}
#endif

#endif
