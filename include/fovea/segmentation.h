/* Marker-controlled watershed (skimage.segmentation.watershed) on the CPU and
 * CUDA backends.
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_SEGMENTATION_H
#define FOVEA_SEGMENTATION_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* Flood image from the labelled markers into out (scikit-image 0.26's
 * watershed with an explicit markers array).
 *
 * image: bool, integer or float dtype, ndim >= 1; its values are compared as
 *   float64 (skimage's conversion).
 * markers: bool or integer dtype, image's shape; nonzero = seed with that
 *   label (negative labels are labels too). Seeds where mask is 0 are dropped.
 * mask: NULL (every pixel) or any non-complex dtype of image's shape;
 *   nonzero = may be labelled.
 * out: markers' dtype and shape, same device as every input. It may be
 *   markers itself (every input is read before out is written).
 * footprint: NULL, then the neighbours within connectivity orthogonal hops
 *   (connectivity in 1..ndim, a 3 x ... x 3 footprint); else ndim extents in
 *   footprint_shape and that many bytes in C order, nonzero = neighbour.
 * offset: NULL (the footprint's centre; every extent must then be odd) or
 *   ndim values >= 0: the footprint's origin. As in skimage the image is
 *   padded by offset[d] on both sides of axis d and neighbours are raveled
 *   offsets in that padded image, sorted by distance (stable), duplicates
 *   dropped when the padded image is smaller than the footprint, and the
 *   nearest one dropped as "the centre".
 * compactness: >= 0; > 0 is the compact watershed (priority = value +
 *   compactness * Euclidean distance to the seed).
 * watershed_line: nonzero = pixels where basins meet get 0.
 *
 * CPU: skimage's priority flood: a binary heap ordered by (value, age) with
 * the same push/pop discipline, so labels equal skimage's exactly, ties and
 * plateaus included.
 * CUDA (compactness 0, watershed_line 0 only; FV_ENOKERNEL otherwise):
 * parallel minimax flooding: Jacobi relaxation of the lexicographic key
 * (flood level, hops on the plateau at that level) from the seeds, then each
 * pixel links to the first neighbour (in the footprint's order) that gives
 * its key and takes its seed's label (pointer jumping). Guarantees: every
 * pixel that a path inside the mask joins to a seed is labelled, and with a
 * label whose seed it reaches through pixels of that label at the lowest
 * possible flood level (the largest value along the path), exactly as the
 * CPU flood; pixels no seed reaches keep 0. Where only one label attains a
 * pixel's level (inputs without ties, e.g. continuous random floats) the
 * labels equal the CPU's; where several do (plateaus, integer ties), the
 * split between them may differ from the CPU's on the plateau. NaN values
 * are unsupported on the GPU. */
FV_API fv_status fv_watershed(fv_context *ctx, const fv_array *image, const fv_array *markers, const fv_array *mask,
                              fv_array *out, int connectivity, const uint8_t *footprint, const int64_t *footprint_shape,
                              const int64_t *offset, double compactness, int watershed_line);

FV_EXTERN_C_END

#endif
