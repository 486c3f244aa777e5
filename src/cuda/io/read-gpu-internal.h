/* Shared by the GPU slide reader's sources: read-gpu-reader.c (the pool of
 * readers, decoder information) and read-gpu.c (passes, planning, the read). */
#ifndef FV_CUDA_IO_READ_GPU_INTERNAL_H
#define FV_CUDA_IO_READ_GPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "internal.h"
#include "cuda/io/gpu-jpeg.h"

typedef struct fv__gpu_reader {
    int device;
    cudaStream_t stream;
    cudaEvent_t ev_in, ev_dec0, ev_dec1, ev_asm0, ev_asm1;
    fv__gpujpeg *jpeg; /* NULL when nvJPEG is unavailable */
    uint8_t *pinned;   /* compressed streams, then the plan tables */
    size_t pinned_cap;
    uint8_t *scratch; /* device: slots, then the plan tables */
    size_t scratch_cap;
    struct fv__gpu_reader *next;
} fv__gpu_reader;


/* read-gpu-reader.c: a reader for `device` (current device already set), back to
 * the pool, and room for `pinned` staging and `scratch` device bytes. */
fv_status fv__reader_get(int device, fv__gpu_reader **out);
void fv__reader_put(fv__gpu_reader *r);
fv_status fv__reader_reserve(fv__gpu_reader *r, size_t pinned, size_t scratch);

#endif
