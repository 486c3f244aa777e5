/* The op WARP2D: scikit-image's _warp_fast (fv_warp_homography,
 * include/fovea/interpolation.h).
 *
 * in: float32 or float64, 2-d (rows, cols) or 3-d (rows, cols, channels); out:
 * in's dtype, (out_rows, out_cols[, channels]); any strides, out never overlaps
 * in (src/ops/interpolation/warp.c checks). Kernel:
 * src/cpu/interpolation/warp-cpu.c, src/cuda/interpolation/warp.cu (the same
 * arithmetic, no FMA contraction). */
#ifndef FV_OPS_WARP_H
#define FV_OPS_WARP_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__warp2d_params {
    double matrix[9]; /* row major; the kernel rounds it to in's dtype */
    int order;        /* 1 or 3 */
    int mode;         /* fv_warp_mode */
    double cval;      /* rounded to in's dtype by the kernel */
} fv__warp2d_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(WARP2D, ...). */
FV_OP(WARP2D, "warp_homography", fv__warp2d_params);

#ifdef __cplusplus
}
#endif

#endif
