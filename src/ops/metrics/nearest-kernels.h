/* Internal interface of fv_nearest_points (ops/metrics/nearest.c) and its
 * CPU kernel (cpu/metrics/nearest-cpu.c). */
#ifndef FV_OPS_METRICS_NEAREST_KERNELS_H
#define FV_OPS_METRICS_NEAREST_KERNELS_H

#include <stdint.h>
#include "internal.h"

/* points (n x nd) sorted by column axis; d2, index (may be NULL): m each. */
void fv__cpu_nearest_points(fv_context *ctx, const int64_t *points, int64_t n, const int64_t *queries, int64_t m,
                            int64_t nd, int64_t axis, int64_t *d2, int64_t *index);

#endif
