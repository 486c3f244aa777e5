/* The Hough transform ops of fovea/transform.h (fv_hough_line, fv_hough_circle,
 * fv_probabilistic_hough_line); src/ops/transform/hough.c validates and fills
 * the params, src/cpu/transform and src/cuda/transform run them.
 *   HOUGH_LINE:   in = 2-d image (any dtype, C-contiguous; nonzero = edge),
 *                 out = uint64 (2 * offset + 1, ntheta), C-contiguous.
 *   HOUGH_CIRCLE: in = the image, out = float64 (nradii, rows + 2 * offset,
 *                 cols + 2 * offset), C-contiguous: vote counts (exact integers),
 *                 or with sums, the counts mapped through them (normalize).
 *   PHOUGH_LINE:  in = the image, in2 = int64 permutation of the edge pixels
 *                 (raster order indices), out = int64 (max_lines, 4) lines
 *                 (x0, y0, x1, y1); the count through the params. CPU only.
 * Plain C; the helpers compile as device code under nvcc too. */
#ifndef FV_OPS_HOUGH_H
#define FV_OPS_HOUGH_H

#include <stdint.h>
#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__hough_line_params {
    int64_t ntheta;
    int64_t offset;              /* rho bin of distance 0: ceil(hypot(rows, cols)) */
    const double *cos_t, *sin_t; /* host: ntheta values each */
} fv__hough_line_params;

typedef struct fv__hough_circle_params {
    int64_t nradii;
    int64_t offset;       /* added to the edge pixels' coordinates */
    const int32_t *pts;   /* host: (row, col) offsets of every circle, concatenated */
    const int64_t *start; /* host: nradii + 1 starts (in points) into pts */
    const double *sums;   /* host, NULL for counts: radius i's k votes become
                                     * sums[start[i] + i + k], k = 0..its point count */
} fv__hough_circle_params;

typedef struct fv__phough_params {
    int64_t threshold, line_length, line_gap;
    int64_t ntheta;
    const double *cos_t, *sin_t; /* host */
    int64_t *nlines;             /* out: lines written */
} fv__phough_params;

/* scikit-image's round (_shared/interpolation.pxd): half away from zero, truncated. */
FV_HD int64_t
fv__hough_round(double r)
{
    return (int64_t)(r > 0.0 ? r + 0.5 : r - 0.5);
}

/* The accumulator row of pixel (x = column, y = row) at angle (c, s): skimage's
 * round(c * x + s * y) + offset, rounded step by step (no contraction: CMakeLists). */
FV_HD int64_t
fv__hough_bin(double c, double s, int64_t x, int64_t y, int64_t offset)
{
    double px = c * (double)x;
    double py = s * (double)y;
    return fv__hough_round(px + py) + offset;
}

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(HOUGH_LINE, ...) in the kernel files. */
FV_OP(HOUGH_LINE, "hough_line", fv__hough_line_params);
FV_OP(HOUGH_CIRCLE, "hough_circle", fv__hough_circle_params);
FV_OP(PHOUGH_LINE, "probabilistic_hough_line", fv__phough_params);

#ifdef __cplusplus
}
#endif

#endif
