/* Shared by the GPU JPEG sources: gpu-jpeg-parse.c (host-side stream parsing)
 * and gpu-jpeg.c (the nvJPEG decoder, which checks every stream with the parser
 * before queueing it). */
#ifndef FV_GPU_JPEG_INTERNAL_H
#define FV_GPU_JPEG_INTERNAL_H

#include "cuda/io/gpu-jpeg.h"

#define FV__GJ_DOMAIN "gpu_jpeg"

/* Walk the markers of data[0..len) up to and including the first SOS header
 * (gpu-jpeg-parse.c). */
fv_status fv__jpeg_walk_headers(const uint8_t *data, size_t len, fv__jpeg_probe_info *out, size_t *entropy);
/* Check the entropy-coded part of data[0..len) from `pos` (gpu-jpeg-parse.c). */
fv_status fv__jpeg_check_entropy(const uint8_t *data, size_t len, size_t pos);

#endif
