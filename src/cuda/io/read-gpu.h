/* The GPU slide reader's kernel interface (internal): read-gpu.c plans a pass
 * (pieces of output regions, the chunks they touch, decoded into slots: device
 * tile cache entries or places in a scratch buffer) and assemble.cu copies slot pixels into the output,
 * converting the pixel format and painting background. Plain C. */
#ifndef FV_CUDA_IO_READ_GPU_H
#define FV_CUDA_IO_READ_GPU_H

#include <stddef.h>
#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A band of output rows of one region. Directory pixel (lx + x, ly + y) goes to
 * out + out_off + (y * w + x) * out pixel bytes, for y < rows, x < w. The chunks
 * the band may touch form the grid [tx0, tx0 + ntx) x [ty0, ty0 + nty); the slot
 * holding chunk (tx0 + i, ty0 + j) is cells[cell_off + j * ntx + i] (-1: missing
 * chunk, background). */
typedef struct fv__gpu_piece {
    int64_t out_off;
    int64_t lx, ly;
    int64_t cell_off;
    int32_t rows, tx0, ty0, ntx, nty, pad_;
} fv__gpu_piece;

/* slot layouts */
#define FV__SLOT_INTERLEAVED 0 /* src_c samples of src_isz bytes per pixel, rows of cw pixels */
#define FV__SLOT_PLANAR 1      /* src_c planes of cw * ch bytes (8-bit) */
#define FV__SLOT_MISSING 2     /* a chunk without data (offset or byte count 0): background */

typedef struct fv__gpu_assemble_args {
    uint8_t *out;                /* device */
    const uint8_t *const *slots; /* device: each slot's decoded chunk (device pointers) */
    const fv__gpu_piece *pieces; /* device */
    const int32_t *cells;        /* device */
    const uint8_t *slot_layout;  /* device: one FV__SLOT_* per slot */
    int npieces;
    int32_t max_rows;       /* largest piece rows */
    int64_t w;              /* output row width in pixels */
    int out_c, out_isz;     /* output samples and bytes per sample */
    int format;             /* fv_pixel_format */
    int src_c, src_isz;     /* decoded samples and bytes per sample */
    int64_t cw, ch;         /* chunk size (tiles; or image width x rows per strip) */
    int64_t clip_w, clip_h; /* pixels at or beyond are background */
} fv__gpu_assemble_args;

/* Queue the assembly on stream (cudaStream_t). FV_ECUDA on a launch failure. */
fv_status fv__gpu_assemble(const fv__gpu_assemble_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
