/* GPU JPEG decoding with nvJPEG's batched API (internal; src/cuda/io/gpu-jpeg.c).
 *
 * libnvjpeg is loaded at run time (dlopen), so libfovea carries no link-time
 * dependency on it: without the library (or without a GPU) fv__gpujpeg_available
 * returns 0 and says why, and fv__gpujpeg_new fails with FV_EDEVICE. Callers then
 * decode on the CPU and copy (the slide reader does this transparently).
 *
 * A decoder (fv__gpujpeg) belongs to one device and is used by one thread at a
 * time; make one per worker thread. The nvJPEG handle behind it is shared by all
 * decoders of a device and lives until the process exits.
 *
 * Plain C declarations only (no nvJPEG or CUDA header needed to include this). */
#ifndef FV_CUDA_IO_GPU_JPEG_H
#define FV_CUDA_IO_GPU_JPEG_H

#include <stddef.h>
#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when nvJPEG can be loaded and a usable GPU exists; otherwise 0 and a reason
 * in why (may be NULL). Thread-safe, cheap after the first call. */
int fv__gpujpeg_available(char *why, size_t n);

/* What fv__jpeg_probe finds in a JPEG stream's headers (host-side parse of the
 * markers up to the first SOS; never reads entropy-coded data). */
typedef struct fv__jpeg_probe_info {
    int width, height;      /* from SOF */
    int components;         /* 1, 3 or 4 */
    int precision;          /* 8 or 12 */
    int sof;                /* SOF marker number: 0 baseline, 1 extended, 2 progressive, ... */
    int hsamp[4], vsamp[4]; /* sampling factors per component */
    int adobe_transform;    /* -1 no Adobe APP14, else its transform byte */
    int jfif;               /* 1 when a JFIF APP0 is present */
    int gpu_ok;             /* 1 when the GPU decoder handles it: SOF0/SOF1, 8-bit,
                                 * 1 or 3 components, a sampling nvJPEG supports */
} fv__jpeg_probe_info;

/* Parse the headers of data[0..len). FV_EFORMAT with a message for a stream that
 * is not a JPEG or is truncated before SOS. */
fv_status fv__jpeg_probe(const uint8_t *data, size_t len, fv__jpeg_probe_info *out);

/* Splice TIFF JPEGTables (an abbreviated SOI..EOI stream of DQT/DHT) into a tile's
 * abbreviated stream: tables without their EOI, then the tile without its SOI.
 * Writes at most cap bytes to dst and returns the length, or 0 when dst is too
 * small or either stream is malformed. tables may be NULL (len 0): a plain copy. */
size_t fv__jpeg_splice_tables(const uint8_t *tables, size_t tables_len, const uint8_t *tile, size_t tile_len,
                              uint8_t *dst, size_t cap);

typedef struct fv__gpujpeg fv__gpujpeg;

/* A decoder on `device` (FV_EDEVICE when unavailable: the message says why). */
fv_status fv__gpujpeg_new(int device, fv__gpujpeg **out);
void fv__gpujpeg_free(fv__gpujpeg *d); /* NULL is a no-op; waits for its work */
/* Destroys the per-device nvJPEG handles (they are created on first use and
 * shared by every decoder) when no decoder is alive; a later fv__gpujpeg_new
 * creates them again. A no-op while decoders exist. */
void fv__gpujpeg_release_handles(void);
/* "hardware", "gpu-hybrid" or "default": the nvJPEG backend in use. */
const char *fv__gpujpeg_backend(const fv__gpujpeg *d);

typedef enum fv__gpujpeg_mode {
    /* interleaved RGB, 3 bytes per pixel: nvJPEG converts YCbCr to RGB and upsamples
     * chroma (for 3-component streams coded as YCbCr; 1-component streams come
     * out as gray replicated into R, G and B: checked on an H100, nvJPEG 13.0).
     * nvJPEG ignores an Adobe transform 0 here and converts RGB-coded streams as
     * if YCbCr: those must use PLANAR. */
    FV__GPUJPEG_RGBI = 0,
    /* the components as coded, one plane each at full resolution, no colour
     * conversion: for 3-component streams coded as RGB (Aperio's RGB JPEG, an Adobe
     * marker with transform 0, TIFF photometric RGB); all components must have
     * sampling 1x1 relative to each other */
    FV__GPUJPEG_PLANAR = 1
} fv__gpujpeg_mode;

typedef struct fv__gpujpeg_item {
    const uint8_t *data; /* a complete JPEG stream in host memory (pinned is fastest) */
    size_t len;
    /* device destinations. RGBI: dst[0], row pitch pitch[0] >= 3 * width.
     * PLANAR: dst[c] for each component c, pitch[c] >= width. */
    uint8_t *dst[4];
    size_t pitch[4];
} fv__gpujpeg_item;

/* Decode n streams (each must have passed fv__jpeg_probe with gpu_ok) in one
 * nvJPEG batch, on `stream` (a cudaStream_t; NULL = the legacy default stream).
 * Returns once the work is queued; the host buffers must stay valid and unchanged
 * until the stream has passed this point (fv__gpujpeg_sync, or an event). On
 * failure (a corrupt stream, nvJPEG or CUDA errors) returns FV_EFORMAT / FV_ECUDA /
 * FV_ENOMEM with a message naming the item index when nvJPEG tells which; the
 * destinations then hold unspecified bytes, and the decoder stays usable. */
fv_status fv__gpujpeg_decode(fv__gpujpeg *d, const fv__gpujpeg_item *items, int n, fv__gpujpeg_mode mode, void *stream);

/* What this decoder has done so far: counts[0] streams decoded by the primary
 * backend, counts[1] by the fallback (GPU_HYBRID) lane, counts[2] hardware batches
 * that failed and were redone on the fallback lane. For tests and diagnostics. */
void fv__gpujpeg_counts(const fv__gpujpeg *d, int64_t counts[3]);

/* Wait for this decoder's queued work on `stream`. */
fv_status fv__gpujpeg_sync(fv__gpujpeg *d, void *stream);

#ifdef __cplusplus
}
#endif

#endif
