/* Whole-slide images: tiled, pyramidal TIFF / BigTIFF, Aperio SVS, Philips TIFF and
 * OME-TIFF, read with fovea's own TIFF parser and the field's codecs.
 *
 * A slide handle is reference counted and safe to use from many threads at once.
 * It keeps its first error: after a failed read caused by the file (I/O error,
 * corrupt data) every later call fails with the same status and message. A failed
 * read never leaves partial pixels: when read_region or read_associated fails with
 * a valid output array, that array is zero-filled (and must not be used as an
 * image). Argument errors are reported before the sticky error. */
#ifndef FOVEA_SLIDE_H
#define FOVEA_SLIDE_H

#include "array.h"

FV_EXTERN_C_BEGIN

typedef struct fv_slide fv_slide;

typedef struct fv_level_info {
    int64_t width, height;           /* pixels */
    double downsample;               /* level-0 size / this level's size (OpenSlide's definition) */
    int64_t tile_width, tile_height; /* 0 for stripped levels */
} fv_level_info;

/* Pixel layout of read_region's output. */
typedef enum fv_pixel_format {
    FV_PIXEL_RGB = 0,   /* uint8 (H, W, 3); background white */
    FV_PIXEL_RGBA = 1,  /* uint8 (H, W, 4); outside the image alpha = 0 (premultiplied: all 0) */
    FV_PIXEL_NATIVE = 2 /* the file's samples and dtype (H, W, S); background 0 */
} fv_pixel_format;

typedef struct fv_read_options {
    fv_pixel_format format;
    int num_workers; /* threads decoding this region's tiles; 0 = library default */
    int nocache;     /* 1: neither read from nor insert into the tile cache */
} fv_read_options;

/* Open a slide (format detected by content). FV_EIO, FV_EFORMAT with a message. */
FV_API fv_status fv_slide_open(const char *path, fv_slide **out);
FV_API fv_slide *fv_slide_ref(fv_slide *s);
FV_API void fv_slide_unref(fv_slide *s);

FV_API const char *fv_slide_path(const fv_slide *s);
FV_API const char *fv_slide_vendor(const fv_slide *s); /* "aperio", "generic-tiff", ... */
FV_API int fv_slide_level_count(const fv_slide *s);
FV_API fv_status fv_slide_level_info(const fv_slide *s, int level, fv_level_info *out);
/* Samples per pixel and dtype of the file's pixels (FV_PIXEL_NATIVE output). */
FV_API fv_status fv_slide_native_layout(const fv_slide *s, int *samples, fv_dtype *dtype);

/* Properties: OpenSlide's names (openslide.*, tiff.*, aperio.*, philips.*, ome.*). */
FV_API int fv_slide_property_count(const fv_slide *s);
FV_API const char *fv_slide_property_name(const fv_slide *s, int i);
FV_API const char *fv_slide_property_value(const fv_slide *s, const char *name); /* NULL if absent */
/* A JSON object describing the slide (levels, properties, associated images),
 * like cuCIM's metadata. Valid as long as the handle. */
FV_API const char *fv_slide_metadata_json(const fv_slide *s);

/* Associated images ("thumbnail", "label", "macro"). */
FV_API int fv_slide_associated_count(const fv_slide *s);
FV_API const char *fv_slide_associated_name(const fv_slide *s, int i);
FV_API fv_status fv_slide_associated_size(const fv_slide *s, const char *name, int64_t *width, int64_t *height);
/* out: uint8 (H, W, 3) for FV_PIXEL_RGB or (H, W, 4) for FV_PIXEL_RGBA, host memory. */
FV_API fv_status fv_slide_read_associated(fv_slide *s, const char *name, fv_pixel_format format, fv_array *out);

/* Read a region: (x, y) in level-0 pixels, size w x h in pixels of `level`. The
 * level origin is floor(x / downsample), floor(y / downsample). Pixels outside the
 * image are background. out: uint8 (h, w, 3|4) or native (h, w, S), C-contiguous,
 * which this call fills entirely (allocate it with fv_slide_region_shape's shape).
 * out in host memory: tiles are decoded on the CPU (num_workers threads). out in
 * CUDA device memory: JPEG tiles are decoded on that GPU with nvJPEG (others on the
 * CPU, then copied) and the region is assembled there; the call returns when out
 * holds the pixels. The GPU path needs the CUDA backend (FV_EDEVICE otherwise). */
FV_API fv_status fv_slide_read_region(fv_slide *s, fv_context *ctx, int64_t x, int64_t y, int level, int64_t w,
                                      int64_t h, const fv_read_options *opts, fv_array *out);
/* n regions of the same size and level at level-0 locations xy[2i], xy[2i+1] into
 * out (n, h, w, C), host or device memory as for fv_slide_read_region. On the GPU
 * all tiles the regions touch are read once and decoded in one nvJPEG batch. A
 * failure leaves out zero-filled. */
FV_API fv_status fv_slide_read_regions(fv_slide *s, fv_context *ctx, const int64_t *xy, int64_t n, int level, int64_t w,
                                       int64_t h, const fv_read_options *opts, fv_array *out);
/* Frees what GPU reads keep between calls (per device: pinned staging, device
 * scratch, streams, nvJPEG decoders and handles); the next GPU read creates them
 * again. Reads in progress keep theirs. It also runs at process exit. A no-op
 * without CUDA. */
FV_API void fv_slide_gpu_release(void);
/* The shape and dtype read_region needs for (w, h, format). */
FV_API fv_status fv_slide_region_shape(const fv_slide *s, int64_t w, int64_t h, fv_pixel_format format,
                                       int64_t shape[3], fv_dtype *dtype);

/* ---- batched patch loading ---------------------------------------------------------- */

typedef struct fv_batch_loader fv_batch_loader;

typedef struct fv_loader_options {
    int level;
    int64_t width, height; /* patch size in pixels of the level */
    fv_pixel_format format;
    int batch_size;      /* >= 1 */
    int num_workers;     /* background threads; 0: read in the caller's thread on next() */
    int prefetch_factor; /* batches loaded ahead of the consumer (>= 1; 0 = 2) */
    int shuffle;         /* visit the locations in a seeded random order */
    uint64_t seed;
    int drop_last; /* drop a final batch smaller than batch_size */
    int nocache;
    fv_device device; /* where batches live: host (zero or FV_DEVICE_CPU) or a CUDA device,
                                   * where each batch is decoded with one fv_slide_read_regions */
} fv_loader_options;

/* Loader over n (x, y) level-0 locations (xy holds 2n values, copied). Batches come
 * in order (or the seeded shuffled order); workers run ahead by prefetch_factor
 * batches, so memory stays bounded. The loader holds a reference to the slide. */
FV_API fv_status fv_batch_loader_new(fv_slide *s, const int64_t *xy, int64_t n, const fv_loader_options *opts,
                                     fv_batch_loader **out);
/* The next batch, a new array (N, H, W, C) on opts->device the caller owns (N = batch_size but
 * for a short last batch), or *out = NULL after the last one. A failed read is
 * reported once (its status and message); after it the loader is finished. */
FV_API fv_status fv_batch_loader_next(fv_batch_loader *l, fv_array **out);
FV_API int64_t fv_batch_loader_batch_count(const fv_batch_loader *l);
/* The location index (into xy) of item i of batch b, in the order served. */
FV_API int64_t fv_batch_loader_location_index(const fv_batch_loader *l, int64_t b, int64_t i);
/* Stop the workers and free everything (also mid-iteration). NULL is a no-op. */
FV_API void fv_batch_loader_free(fv_batch_loader *l);

/* ---- conversion ------------------------------------------------------------------ */

typedef enum fv_compression {
    FV_COMPRESS_JPEG = 0,    /* YCbCr 4:2:0, one JFIF stream per tile */
    FV_COMPRESS_DEFLATE = 1, /* Adobe deflate (zlib) */
    FV_COMPRESS_ZSTD = 2,
    FV_COMPRESS_NONE = 3
} fv_compression;

typedef struct fv_convert_options {
    int tile_size; /* 16..4096, a multiple of 16; 0 = 256 */
    fv_compression compression;
    int quality;      /* JPEG quality 1..100 (0 = 90); deflate/zstd level (0 = default) */
    int num_workers;  /* tile encoders; 0 = all threads */
    int classic_tiff; /* 1: classic TIFF (fails past 4 GiB); 0: BigTIFF */
    /* called after each band of tiles with the fraction done (0..1); may be NULL */
    void (*progress)(void *user, double fraction);
    void *user;
} fv_convert_options;

/* Write a tiled, pyramidal RGB TIFF (BigTIFF by default) from level 0 of any slide
 * fovea reads (like `cucim convert` / `vips tiffsave --tile --pyramid`): levels
 * halve until the image fits in one tile, each made by 2x2 box averaging of the
 * level above, streamed in bands (memory ~ a few tile rows of level 0). dst is
 * replaced; on failure it is removed. */
FV_API fv_status fv_slide_convert(const char *src, const char *dst, const fv_convert_options *opts);

/* The process-wide decoded-tile cache shared by every handle. */
typedef struct fv_cache_stats {
    uint64_t hits, misses, evictions;
    uint64_t bytes, capacity, entries;
} fv_cache_stats;

/* Capacity in bytes (never exceeded; 0 disables caching). Default 256 MiB or
 * FOVEA_CACHE_BYTES. Shrinking evicts at once. For a shared-memory cache this sets
 * the segment's limit for all its processes, at most its size at creation
 * (FV_EINVAL above it). Clear and reset_stats act on the current cache (for shared
 * memory: the segment, seen by all its processes). */
FV_API fv_status fv_cache_set_capacity(uint64_t bytes);
FV_API void fv_cache_get_stats(fv_cache_stats *out);
FV_API void fv_cache_reset_stats(void);
FV_API void fv_cache_clear(void);

/* The GPU reads' decoded-tile cache: decoded tiles kept in device memory (one cache
 * per GPU, least recently used evicted first), so reads of tiles read before
 * (overlapping random patches, later epochs) neither read nor decode them again.
 * Reads with nocache bypass it. Capacity in bytes per GPU, never exceeded (0
 * disables it): default 1 GiB or FOVEA_GPU_CACHE_BYTES; shrinking evicts at once
 * what no read in progress uses. Stats are summed over the GPUs; clear drops every
 * tile not in use (fv_slide_gpu_release too). Without CUDA: accepted, all zero. */
FV_API fv_status fv_gpu_cache_set_capacity(uint64_t bytes);
FV_API void fv_gpu_cache_get_stats(fv_cache_stats *out);
FV_API void fv_gpu_cache_reset_stats(void);
FV_API void fv_gpu_cache_clear(void);

/* Cache types (cuCIM's CuImage.cache(type, memory_capacity=...)):
 *   FV_CACHE_NONE         no caching; every read decodes (misses are counted).
 *   FV_CACHE_PER_PROCESS  the default: an LRU in this process's memory (256 MiB, or
 *                         FOVEA_CACHE_BYTES). A fork child starts with a copy.
 *   FV_CACHE_SHARED_MEMORY one LRU in a POSIX shared-memory segment used by every
 *                         process attached to it: the processes of a PyTorch
 *                         DataLoader share decoded tiles. Fork children keep using
 *                         their parent's segment; spawned processes join with
 *                         fv_cache_attach_shared(name) or, on their first cache
 *                         use, through FOVEA_CACHE_SHM=<name> in the environment
 *                         (when that segment is gone, the per-process default is
 *                         used; fv_cache_type_get tells).
 *                         The segment is sized from the capacity at creation (plus
 *                         a small index) and reserved at once (FV_ENOMEM when
 *                         /dev/shm is too small); cached bytes never exceed the
 *                         capacity. It survives a process killed at any point (a
 *                         robust lock; half-done updates are repaired) and is
 *                         removed (shm_unlink) when the last process using it
 *                         detaches: at exit, on fv_cache_configure, or when a
 *                         process notices that all others have died.
 * Statistics of a shared cache are those of the segment (all processes). */
typedef enum fv_cache_type {
    FV_CACHE_NONE = 0,
    FV_CACHE_PER_PROCESS = 1,
    FV_CACHE_SHARED_MEMORY = 2
} fv_cache_type;

/* Replace this process's cache with a new one of `type` (the old one is dropped,
 * or detached from when shared). capacity_bytes: per-process 0 disables caching;
 * shared memory needs >= 64 (FV_EINVAL otherwise); ignored for FV_CACHE_NONE.
 * The statistics start from zero. */
FV_API fv_status fv_cache_configure(fv_cache_type type, uint64_t capacity_bytes);
FV_API fv_cache_type fv_cache_type_get(void);
/* The shared segment's name ("/fovea-cache-PID-N") when the type is shared memory,
 * else "". Valid until the cache is next configured. Pass it to processes that do
 * not inherit the mapping (spawned DataLoader workers): FOVEA_CACHE_SHM or
 * fv_cache_attach_shared. */
FV_API const char *fv_cache_shm_name(void);
/* Replace this process's cache with the existing shared segment `name`. FV_EIO when
 * no such segment exists (or it was removed), FV_EFORMAT when it is not a fovea
 * cache of this version. */
FV_API fv_status fv_cache_attach_shared(const char *name);

FV_EXTERN_C_END

#endif
