/* Kernel parameters of FV__OP_REGION_STATS (fv_region_stats, include/fovea/measure.h).
 * src/ops/measure/regionprops.c validates and fills them;
 * src/cpu/measure/regionprops-cpu.c and src/cuda/measure/regionprops.cu run them.
 *
 * The kernels get C-contiguous arrays: in = labels (an integer dtype, ndim 1..4),
 * in2 = NULL or float64 intensity of labels' shape plus a channel axis (nch
 * channels), out = the float64 table (max_label rows, ncols columns) whose
 * layout include/fovea/measure.h describes. */
#ifndef FV_REGIONPROPS_KERNELS_H
#define FV_REGIONPROPS_KERNELS_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FV__RP_MAX_NDIM 4
#define FV__RP_ORDER 4 /* powers 0..3 per axis */

typedef struct fv__rp_params {
    int nd;
    int64_t shape[FV__RP_MAX_NDIM];
    int64_t nch; /* intensity channels, 0 without intensity */
    int64_t max_label;
    int64_t nmom;  /* 4^nd */
    int64_t ncols; /* 1 + 2 nd + nmom + nch (2 + nmom) */
} fv__rp_params;

/* Column offsets in a row. */
static inline int64_t
fv__rp_col_mom(const fv__rp_params *p)
{
    return 1 + 2 * (int64_t)p->nd;
}
static inline int64_t
fv__rp_col_ch(const fv__rp_params *p, int64_t c)
{
    return 1 + 2 * (int64_t)p->nd + p->nmom + c * (2 + p->nmom);
}

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(REGION_STATS, ...) in the kernel file. */
FV_OP(REGION_STATS, "region_stats", fv__rp_params);

#ifdef __cplusplus
}
#endif

#endif
