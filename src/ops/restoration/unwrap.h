/* The op UNWRAP_GATHER (fv_unwrap_gather, include/fovea/denoise.h): the
 * sequential step of the reliability-sorted phase unwrapper. in: int64 (m, 3)
 * edges [pixel 1, pixel 2, wrap increment] in processing order, C-contiguous;
 * out: int64 (n,) the number of 2 pi to add to each pixel. */
#ifndef FV_OPS_UNWRAP_H
#define FV_OPS_UNWRAP_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__unwrap_params {
    int64_t n, m; /* pixels, edges */
} fv__unwrap_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(UNWRAP_GATHER, ...). */
FV_OP(UNWRAP_GATHER, "unwrap_gather", fv__unwrap_params);

#ifdef __cplusplus
}
#endif

#endif
