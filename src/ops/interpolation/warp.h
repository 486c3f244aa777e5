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
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__warp2d_params {
    double matrix[9]; /* row major; the kernel rounds it to in's dtype */
    int order;        /* 1 or 3 */
    int mode;         /* fv_warp_mode */
    double cval;      /* rounded to in's dtype by the kernel */
} fv__warp2d_params;

/* Python's a % n (n > 0). */
FV_HD int64_t
fv__wp_mod(int64_t a, int64_t n)
{
    const int64_t m = a % n;
    return m < 0 ? m + n : m;
}

/* The tap index i along an axis of n samples under mode (constant: unchanged;
 * the caller tests it); both kernels. */
FV_HD int64_t
fv__wp_map(int64_t i, int64_t n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case FV_WARP_EDGE:
        return i < 0 ? 0 : n - 1;
    case FV_WARP_WRAP:
        return fv__wp_mod(i, n);
    case FV_WARP_SYMMETRIC: {
        const int64_t m = fv__wp_mod(i, 2 * n);
        return m >= n ? 2 * n - 1 - m : m;
    }
    case FV_WARP_REFLECT: {
        if (n == 1)
            return 0;
        const int64_t m = fv__wp_mod(i, 2 * n - 2);
        return m >= n ? 2 * n - 2 - m : m;
    }
    default:
        return i;
    }
}

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(WARP2D, ...). */
FV_OP(WARP2D, "warp_homography", fv__warp2d_params);

#ifdef __cplusplus
}
#endif

#endif
