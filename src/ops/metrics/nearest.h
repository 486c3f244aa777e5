/* The op NEAREST: exact nearest neighbours of fv_nearest_points
 * (src/ops/metrics/nearest.c validates the sort order and coordinate range).
 *   in:  points, int64 (n x nd), sorted by column axis;
 *   in2: queries, int64 (m x nd);
 *   out: d2, int64 (m): squared distance to the nearest point.
 * Every array C-contiguous in host memory. CPU only. */
#ifndef FV_OPS_NEAREST_H
#define FV_OPS_NEAREST_H

#include <stdint.h>
#include "internal.h"

typedef struct fv__nearest_params {
    int64_t axis;    /* the sweep axis: the column points are sorted by */
    fv_array *index; /* int64 (m): the index of the nearest point, or NULL */
} fv__nearest_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(NEAREST, ...) in the kernel file. */
FV_OP(NEAREST, "nearest_points", fv__nearest_params);

#endif
