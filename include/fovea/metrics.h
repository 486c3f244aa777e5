/* Pointwise part of the structural similarity index
 * (skimage.metrics.structural_similarity) on the CPU: from the five local
 * moments (filtered images) to the SSIM map, its mean over the interior and
 * the three images whose filtering gives SSIM's gradient.
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_METRICS_H
#define FOVEA_METRICS_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* ux, uy, uxx, uyy, uxy: local means of x, y, x*x, y*y and x*y (any filter),
 * all C-contiguous host arrays of one shape and dtype, float32 or float64;
 * the arithmetic is done in that dtype, operation by operation as
 * scikit-image 0.26 does it (cov_norm, c1, c2 rounded to the dtype first):
 *   vx = cov_norm (uxx - ux ux), vy = cov_norm (uyy - uy uy),
 *   vxy = cov_norm (uxy - ux uy), A1 = 2 ux uy + c1, A2 = 2 vxy + c2,
 *   B1 = ux ux + uy uy + c1, B2 = vx + vy + c2, D = B1 B2,
 *   S = (A1 A2) / D.
 * S_out: NULL or an array like ux (may be ux or uy) that receives S.
 * gradient != 0: uxx, uyy and uxy are overwritten with A1 / D, -S / B2 and
 * (ux (A2 - A1) - uy (B2 - B1) S) / D, the terms of Avanaki's gradient.
 * mean: receives the float64 mean of S over the elements at least pad from
 * every border (NaN when there are none). Runs on ctx's thread pool. */
FV_API fv_status fv_ssim_map(fv_context *ctx, const fv_array *ux, const fv_array *uy, fv_array *uxx, fv_array *uyy,
                             fv_array *uxy, double cov_norm, double c1, double c2, fv_array *S_out, int gradient,
                             int64_t pad, double *mean);

/* Nearest neighbours between two integer point sets, exactly (the distances
 * of skimage.metrics.hausdorff_distance / hausdorff_pair).
 * points: int64 (n, nd), C-contiguous host array, sorted ascending by
 * column `axis` (np.argwhere's raster order is sorted by column 0).
 * queries: int64 (m, nd), C-contiguous host array, any order.
 * d2: int64 (m,): squared Euclidean distance from each query to the nearest
 * point; index: NULL or int64 (m,): the row of that point (the lowest row
 * among equally near ones). n >= 1, nd <= 8; coordinates must lie in
 * (-2^28, 2^28) (FV_EINVAL otherwise) so that squared distances fit int64.
 * A sweep along `axis`: from the query's position in the sorted points
 * outwards in both directions, stopping each direction once the gap along
 * `axis` alone exceeds the best distance found; queries run in parallel. */
FV_API fv_status fv_nearest_points(fv_context *ctx, const fv_array *points, int axis, const fv_array *queries,
                                   fv_array *d2, fv_array *index);

FV_EXTERN_C_END

#endif
