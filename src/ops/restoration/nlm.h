/* The op NL_MEANS (fv_denoise_nl_means, include/fovea/denoise.h): scikit-
 * image 0.26's pixelwise non-local means (fast_mode=False). in: the image
 * reflect-padded by s / 2 on every spatial axis, (spatial..., channels),
 * C-contiguous; in2: the patch weights (s^ndim, in's dtype); out: (spatial...,
 * channels), C-contiguous. Computed in the dtype (float32 or float64). */
#ifndef FV_OPS_NLM_H
#define FV_OPS_NLM_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__nlm_params {
    int ndim;         /* spatial dimensions: 2 or 3 */
    int64_t shape[3]; /* spatial shape of out */
    int64_t nc;       /* channels */
    int64_t s, d;     /* patch size (odd), search distance */
    double var2;      /* twice the noise variance */
} fv__nlm_params;

/* scikit-image's fast_exp (Schraudolph): the high word of a double set to
 * (int32)(EXP_A y) + EXP_BC, the low word 0. */
static inline double
fv__nlm_fast_exp(double y)
{
    union {
        double d;
        int32_t i[2];
        uint64_t u;
    } v;
    v.u = (uint64_t)(uint32_t)((int32_t)(1512775.3951951856938 * y) + 1072632447) << 32;
    return v.d;
}

/* The op NL_MEANS_FAST: scikit-image's fast_mode=True (Froment's shift loop).
 * in: the image reflect-padded by pad = s / 2 + d + 1, (spatial..., channels),
 * float64, C-contiguous; out: float64 (spatial..., channels) of the padded
 * shape, whose interior (pad from every spatial edge) receives the result. */
typedef struct fv__nlmf_params {
    int ndim;         /* spatial dimensions: 2 to 4 */
    int64_t shape[4]; /* padded spatial shape */
    int64_t nc, s, d;
    double h, var2;
} fv__nlmf_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(NL_MEANS, ...). */
FV_OP(NL_MEANS, "denoise_nl_means", fv__nlm_params);
FV_OP(NL_MEANS_FAST, "denoise_nl_means_fast", fv__nlmf_params);

#ifdef __cplusplus
}
#endif

#endif
