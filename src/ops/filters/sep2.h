/* The op SEP2: two FILTER1D passes fused (the CUDA backend; src/ops/filters/filters.c
 * tries it for two-pass chains). Plain C, for host code and nvcc. */
#ifndef FV_OPS_SEP2_H
#define FV_OPS_SEP2_H

#include "ops/filters/filter1d.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_SEP2: two 1-D passes fused (optional; CUDA only) -----------------
 * out = pass[1](pass[0](in)), where pass[0]'s result is held in dtype `mid`
 * exactly as fv__run_passes would store it in its temporary (out's dtype, uint8
 * for bool outputs). in and out never overlap. A backend returns FV_OK, a
 * negative fv_status, or FV__SEP2_DECLINED (no error set) when the fused kernel
 * does not apply; the caller then runs the passes one by one. */
#define FV__SEP2_DECLINED ((fv_status)1)
typedef struct fv__sep2_params {
    fv__filter1d_params pass[2];
    int mid; /* fv_dtype of the intermediate */
} fv__sep2_params;

/* Kernel: fv_status fn(fv_context *ctx, const fv__op_args *a), a->params
 * pointing at the struct above (fv__params_SEP2(a)); registered with
 * FV_KERNEL(SEP2, CPU|CUDA, ...) in the kernel's file. */
FV_OP(SEP2, "separable_filter", fv__sep2_params);

#ifdef __cplusplus
}
#endif

#endif
