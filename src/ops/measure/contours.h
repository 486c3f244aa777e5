/* The op CONTOURS: the marching-squares segments of fv_find_contours
 * (src/ops/measure/contours.c joins them into contours).
 *   in:  the image, float64, 2-d (at least 2 x 2), host memory;
 *   in2: the mask (bool or uint8, the image's shape) or NULL;
 *   out: none: the segments go through the params.
 * CPU only. */
#ifndef FV_OPS_CONTOURS_H
#define FV_OPS_CONTOURS_H

#include <stdint.h>
#include "internal.h"

/* One directed segment: from (r0, c0) to (r1, c1). */
typedef struct fv__cseg {
    double r0, c0, r1, c1;
} fv__cseg;

typedef struct fv__contours_params {
    double level;
    int high;        /* fully_connected == 'high' */
    fv__cseg **segs; /* out: the segments of all cells in raster order (cell by cell,
                           * and within a cell in scikit-image's order), malloc'ed (may be
                           * NULL when *nseg = 0): the caller frees them */
    int64_t *nseg;   /* out */
} fv__contours_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(CONTOURS, ...) in the kernel file. */
FV_OP_PARAMS_OUT(CONTOURS, "find_contours", fv__contours_params);

#endif
