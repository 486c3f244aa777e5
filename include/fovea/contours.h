/* Iso-valued contours of a 2-d image by marching squares
 * (skimage.measure.find_contours), on the CPU.
 *
 * The segments of every 2 x 2 cell are found in parallel over blocks of rows
 * (kept in raster order) and joined into contours sequentially with two hash
 * maps (open start points, open end points), taking the same joining steps in
 * the same order as scikit-image 0.26, so the contours, their order, their
 * starting points and their orientation are the same as scikit-image's.
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_CONTOURS_H
#define FOVEA_CONTOURS_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* The contours found: contour k has the points points[2 * offsets[k] ..
 * 2 * offsets[k + 1]) as (row, column) pairs; a closed contour ends with its
 * first point. */
typedef struct fv_contours {
    int64_t count;
    int64_t *offsets; /* count + 1 entries, offsets[0] = 0 */
    double *points;   /* 2 * offsets[count] values */
} fv_contours;

/* Find the contours of image at level.
 *
 * image: float64, 2-d, at least 2 x 2, host memory, any strides.
 * mask: NULL, or bool / uint8 of image's shape in host memory (any strides):
 *   a cell is used only where its four corners are nonzero in mask.
 * Cells with a NaN corner are skipped. A corner counts as inside when its
 * value is > level; at a saddle cell (two diagonal corners inside)
 * fully_connected_high != 0 joins the inside corners ("high"), otherwise the
 * outside ones ("low"). Crossing points are linearly interpolated along the
 * cell edges. Contours are oriented as scikit-image's
 * positive_orientation="low" (values above level on the right-hand side
 * of the walk); reverse each contour for "high".
 * out: receives a new fv_contours, freed with fv_contours_free. */
FV_API fv_status fv_find_contours(fv_context *ctx, const fv_array *image, const fv_array *mask, double level,
                                  int fully_connected_high, fv_contours **out);

FV_API void fv_contours_free(fv_contours *contours);

FV_EXTERN_C_END

#endif
