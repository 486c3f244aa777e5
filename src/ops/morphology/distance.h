/* The ops EDT and CDT: the exact Euclidean and the chamfer distance transforms
 * (src/ops/morphology/morphology-ops.c). They share their params. Plain C, for
 * host code and nvcc. */
#ifndef FV_OPS_DISTANCE_H
#define FV_OPS_DISTANCE_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_EDT / FV__OP_CDT ---------------------------------------------------
 * in: the image (any real dtype, != 0 is foreground); out: the distances
 * (EDT: float64; CDT: int32) or NULL; indices: int32/int64 (ndim, *shape) or
 * NULL. Since dispatch needs an out, src/ops passes whichever of the two is
 * given as out and repeats it in the params. The kernels get in as a
 * C-contiguous one-byte array (bool, uint8 or int8; nonzero = foreground):
 * src/ops converts other inputs first (fv__foreground). */
typedef struct fv__distance_params {
    int ndim;
    double sampling[FV_MAX_NDIM]; /* EDT */
    int64_t sshape[FV_MAX_NDIM];  /* CDT structure */
    const uint8_t *structure;     /* CDT */
    fv_array *distances;          /* or NULL */
    fv_array *indices;            /* or NULL */
} fv__distance_params;

/* What the kernels check of in (src/ops guarantees it). */
static inline int
fv__distance_fg_ok(const fv_array *in)
{
    return (in->dtype == FV_BOOL || in->dtype == FV_UINT8 || in->dtype == FV_INT8) && fv_array_is_contiguous(in);
}

/* Kernel: fv_status fn(fv_context *ctx, const fv__op_args *a), a->params
 * pointing at the struct above (fv__params_EDT / fv__params_CDT(a)); registered with
 * FV_KERNEL(EDT and CDT, CPU|CUDA, ...) in the kernel's file. */
FV_OP(EDT, "distance_transform_edt", fv__distance_params);
FV_OP(CDT, "distance_transform_cdt", fv__distance_params);

#ifdef __cplusplus
}
#endif

#endif
