/* Hough and Radon transforms (scikit-image 0.26's skimage.transform.hough_line,
 * hough_circle, probabilistic_hough_line, and the cores of radon and
 * iradon_sart) on the CPU and CUDA backends.
 *
 * The image is 2-d, of any dtype and strides (non-contiguous ones are copied
 * first); its nonzero pixels are the edges that vote. Votes are counted in
 * integers, so every backend and thread count gives scikit-image's accumulator
 * exactly. CPU: the thread pool over angles (lines) or radii and row bands
 * (circles). CUDA: the edge pixels compacted, then per-angle shared-memory
 * histograms (lines) or atomics on the vote counts (circles).
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_TRANSFORM_H
#define FOVEA_TRANSFORM_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* The straight-line Hough accumulator: out (uint64, C-contiguous, shape
 * (2 * D + 1, ntheta) with D = ceil(hypot(rows, cols)), on the image's device)
 * counts, for every edge pixel (row y, column x) and angle j, one vote at row
 * round(cos_t[j] * x + sin_t[j] * y) + D (round: half away from zero).
 * cos_t and sin_t: host arrays of ntheta (>= 0) values (the caller's cosines and
 * sines of its angles, so that they round as its own maths library does). */
FV_API fv_status fv_hough_line(fv_context *ctx, const fv_array *image, const double *cos_t, const double *sin_t,
                               int64_t ntheta, fv_array *out);

/* The circle Hough accumulator: out (float64, C-contiguous, shape (nradii,
 * rows + 2 * offset, cols + 2 * offset), on the image's device) counts, for
 * every radius i, edge pixel (r, c) and point (dr, dc) of scikit-image's
 * circle_perimeter(0, 0, radii[i]) (Bresenham, duplicates included), one vote
 * at (i, r + dr + offset, c + dc + offset) when that lies inside out. Negative
 * radii draw no circle. offset >= 0 (scikit-image's full_output: max(radii)).
 * normalize != 0: each count k of radius i becomes the sum of k terms 1 / n_i
 * (n_i: the circle's number of points) added one by one, as scikit-image's
 * normalize=True accumulates them.
 * *npoints (host, nradii values; may be NULL) receives each circle's number of
 * points, the normalisation of scikit-image's normalize=True. */
FV_API fv_status fv_hough_circle(fv_context *ctx, const fv_array *image, const int64_t *radii, int64_t nradii,
                                 int64_t offset, int normalize, fv_array *out, int64_t *npoints);

/* scikit-image's progressive probabilistic Hough transform (host arrays only):
 * the edge pixels are visited in the order order[count - 1], order[count - 2],
 * ..., order[0] (order: int64, 1-d, a permutation of the raster-order indices
 * of the image's nonzero pixels, as numpy.random.Generator.shuffle leaves
 * numpy.arange(count)). lines: int64 (max_lines, 4), C-contiguous, receives
 * (x0, y0, x1, y1) per line found, *nlines their number (at most max_lines). */
FV_API fv_status fv_probabilistic_hough_line(fv_context *ctx, const fv_array *image, const fv_array *order,
                                             int64_t threshold, int64_t line_length, int64_t line_gap,
                                             const double *cos_t, const double *sin_t, int64_t ntheta, fv_array *lines,
                                             int64_t *nlines);

/* scikit-image's radon projections: out (n, nangles), of image's dtype (float32
 * or float64) and device, gets for each angle a and column j the sum over rows
 * i = 0, 1, ... (in that order, in the dtype) of scikit-image's bilinear
 * sample (warp order=1, mode='constant', zero outside per tap) of the square
 * image (n, n) at (x, y) = (m0 j + m1 i + m2, m3 j + m4 i + m5), m = matrices
 * + 6 a (host; rounded to the dtype, as scikit-image's warp does). */
FV_API fv_status fv_radon(fv_context *ctx, const fv_array *image, const double *matrices, int64_t nangles,
                          fv_array *out);

/* scikit-image's sart_projection_update: update (m, m; zeroed here) receives
 * the Hamming-weighted back projection of each ray's deviation from
 * projection[i] (ray i at position i + shift of the projection at theta
 * degrees, sampled bilinearly through the reconstruction circle of image).
 * image, projection, update: float32 or float64, one dtype and device. The
 * CPU result equals scikit-image's; the GPU adds the rays' terms with atomics
 * (the order of additions varies). */
FV_API fv_status fv_sart_projection_update(fv_context *ctx, const fv_array *image, const fv_array *projection,
                                           double theta, double shift, fv_array *update);

/* iradon's linear back projection: out (n, n; float32 or float64, on the
 * device of filtered) = the sum over angles a, in order, of
 * numpy.interp(t, x, filtered[a], left=0, right=0) with t = (c - n / 2) cos_t[a]
 * - (r - n / 2) sin_t[a] at row r, column c, x = -(p / 2) ... p - 1 - p / 2
 * (integer halves); filtered: float64 (nangles, p), C-contiguous; cos_t and
 * sin_t host arrays of nangles. Each pixel adds its angles in order, in float64
 * (rounded to out's dtype after each), so the result is scikit-image's. */
FV_API fv_status fv_iradon_backproject(fv_context *ctx, const fv_array *filtered, const double *cos_t,
                                       const double *sin_t, fv_array *out);

FV_EXTERN_C_END

#endif
