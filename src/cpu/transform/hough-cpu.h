/* The edge-pixel list the CPU Hough kernels share (hough-cpu.c, phough-cpu.c). */
#ifndef FV_CPU_HOUGH_H
#define FV_CPU_HOUGH_H

#include <stdint.h>
#include "internal.h"

/* The nonzero pixels of a contiguous 2-d image in raster order: pixel k at
 * (row ys[k], column xs[k]); row y's pixels are [rowptr[y], rowptr[y + 1]). */
typedef struct fv__hough_edges {
    int64_t n;
    int64_t *rowptr;
    int32_t *xs, *ys;
} fv__hough_edges;

fv_status fv__hough_edges_list(fv_context *ctx, const fv_array *in, fv__hough_edges *e, const char *name);
void fv__hough_edges_free(fv__hough_edges *e);

#endif
