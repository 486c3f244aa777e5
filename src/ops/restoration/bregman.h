/* The op TV_BREGMAN (fv_denoise_tv_bregman, include/fovea/denoise.h):
 * scikit-image 0.26's split-Bregman total-variation denoising (Gauss-Seidel
 * sweeps in raster order, so one image runs on one thread). in: (rows, cols,
 * dims) C-contiguous; out: (rows + 2, cols + 2, dims) C-contiguous, whose
 * content on entry starts the split variables dx, dy, bx, by (scikit-image's
 * quirk: zeros, or the previous channel's result); float32 or float64,
 * computed in that dtype. */
#ifndef FV_OPS_BREGMAN_H
#define FV_OPS_BREGMAN_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__bregman_params {
    double weight, eps;
    int64_t max_iter;
    int isotropic;
} fv__bregman_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(TV_BREGMAN, ...). */
FV_OP(TV_BREGMAN, "denoise_tv_bregman", fv__bregman_params);

#ifdef __cplusplus
}
#endif

#endif
