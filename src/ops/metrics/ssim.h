/* The op SSIM: the pointwise SSIM map of fv_ssim_map (src/ops/metrics/ssim.c)
 * from the five local-moment images.
 *   in: ux, in2: uy (the params repeat them with the other moments);
 *   out: none: S, the gradient terms and the interior sum go through the params.
 * Every array: one float dtype (is_double), one shape, C-contiguous, host
 * memory. CPU only. */
#ifndef FV_OPS_SSIM_H
#define FV_OPS_SSIM_H

#include <stdint.h>
#include "internal.h"

typedef struct fv__ssim_params {
    int is_double;
    void *ux, *uy, *uxx, *uyy, *uxy, *S; /* S may be NULL; uxx, uyy, uxy are written with gradient */
    int ndim;
    const int64_t *shape;
    int64_t pad;
    double cov_norm, c1, c2;
    int gradient;
    double *sum;    /* out: the sum of S over the interior (pad from every edge) */
    int64_t *count; /* out: the number of interior elements */
} fv__ssim_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(SSIM, ...) in the kernel file. */
FV_OP_PARAMS_OUT(SSIM, "ssim_map", fv__ssim_params);

#endif
