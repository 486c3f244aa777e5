/* Internal interface of fv_ssim_map (ops/metrics/ssim.c) and its CPU kernel
 * (cpu/metrics/ssim-cpu.c). */
#ifndef FV_OPS_METRICS_SSIM_KERNELS_H
#define FV_OPS_METRICS_SSIM_KERNELS_H

#include <stdint.h>
#include "internal.h"

typedef struct fv__ssim_args {
    int is_double;
    void *ux, *uy, *uxx, *uyy, *uxy, *S;   /* S may be NULL */
    int ndim;
    const int64_t *shape;
    int64_t pad;
    double cov_norm, c1, c2;
    int gradient;
} fv__ssim_args;

/* The map (and gradient terms); *sum and *count: sum of S over the interior
 * and the number of interior elements. */
fv_status fv__cpu_ssim_map(fv_context *ctx, const fv__ssim_args *a, double *sum, int64_t *count);

#endif
