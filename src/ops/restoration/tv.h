/* The op TV_CHAMBOLLE (fv_denoise_tv_chambolle, include/fovea/denoise.h):
 * Chambolle's projection algorithm for the ROF total-variation problem, as
 * scikit-image 0.26's _denoise_tv_chambolle_nd computes it, on nchan
 * independent images at once. in, out: float32 or float64, C-contiguous, shape
 * (nchan, spatial...) flattened by the op to nchan * n elements. Kernels keep
 * their own dual-variable buffers (ndim * n per image; the CUDA kernel two of
 * them) and one convergence state per image. */
#ifndef FV_OPS_TV_H
#define FV_OPS_TV_H

#include <math.h>
#include <stdint.h>
#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__tv_params {
    int ndim;                    /* spatial dimensions, 1..FV_MAX_NDIM - 1 */
    int64_t shape[FV_MAX_NDIM];  /* spatial shape */
    int64_t stride[FV_MAX_NDIM]; /* elements between neighbours along each axis */
    int64_t n;                   /* elements of one image */
    int64_t nchan;               /* independent images */
    double weight, eps;
    int64_t max_iter;
} fv__tv_params;

/* One image's stop rule after an iteration with energy sum e (d^2 + weight *
 * |grad|, over the image): E = e / n; the first iteration sets E_0; later ones
 * stop when |E_prev - E| < eps * E_0. state: {E_0, E_prev}; returns 1 to stop. */
FV_HD int
fv__tv_converged(double *state, double e, int64_t n, double eps, int64_t iter)
{
    const double E = e / (double)n;
    if (iter == 0) {
        state[0] = E;
        state[1] = E;
        return 0;
    }
    if (fabs(state[1] - E) < eps * state[0])
        return 1;
    state[1] = E;
    return 0;
}

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(TV_CHAMBOLLE, ...). */
FV_OP(TV_CHAMBOLLE, "denoise_tv_chambolle", fv__tv_params);

#ifdef __cplusplus
}
#endif

#endif
