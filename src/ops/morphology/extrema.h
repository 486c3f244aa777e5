/* The op LOCAL_MAXIMA (fv_local_maxima / fv_local_minima,
 * include/fovea/skmorphology.h): src/ops/morphology/extrema.c fills the params.
 *
 * Every kernel gets C-contiguous arrays, and an out that overlaps no input
 * (the op layer copies or uses temporaries where the caller's arrays are not
 * so). Plain C. */
#ifndef FV_OPS_EXTREMA_H
#define FV_OPS_EXTREMA_H

#include <stdint.h>
#include "internal.h"
#include "cast.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_LOCAL_MAXIMA ------------------------------------------------------
 * in: the image (any real dtype); out: bool or uint8 flags (1 = extremum). */
typedef struct fv__local_maxima_params {
    int minima;    /* compare the other way round */
    int symmetric; /* the neighbour set equals its negation */
    int scan_last; /* both neighbours along the last axis are in the set: candidates
                            * come from the scan along it, else every inner pixel is one */
    int nnb;
    const int64_t *nb; /* host: nnb rows of ndim offsets in {-1, 0, 1} */
} fv__local_maxima_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(LOCAL_MAXIMA, ...) in the kernel file. */
FV_OP(LOCAL_MAXIMA, "local_maxima", fv__local_maxima_params);

#ifdef __cplusplus
}
#endif

#endif
