/* Internal interface between fv_find_contours (ops/measure/contours.c) and the
 * CPU marching-squares segment extraction (cpu/measure/contours-cpu.c). */
#ifndef FV_OPS_MEASURE_CONTOURS_KERNELS_H
#define FV_OPS_MEASURE_CONTOURS_KERNELS_H

#include <stdint.h>
#include "internal.h"

/* One directed segment: from (r0, c0) to (r1, c1). */
typedef struct fv__cseg {
    double r0, c0, r1, c1;
} fv__cseg;

/* The segments of all cells in raster order (cell by cell, and within a cell
 * in scikit-image's order). img: float64 with byte strides; mask: NULL or
 * one byte per pixel with byte strides. *segs (malloc'ed, may be NULL when
 * *nseg = 0) is the caller's to free. */
fv_status fv__contour_segments(fv_context *ctx, const char *img, int64_t rows, int64_t cols, int64_t rs,
                               int64_t cs, const char *mask, int64_t mrs, int64_t mcs, double level, int high,
                               fv__cseg **segs, int64_t *nseg);

#endif
