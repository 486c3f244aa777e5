/* The scikit-image morphology operations that have no scipy.ndimage
 * counterpart: grayscale reconstruction, plateau-aware local extrema, thinning
 * and the ordered pass of the medial axis, on the CPU and (except the medial
 * axis) CUDA backends. The Python package fovea.skimage.morphology builds the
 * rest of skimage.morphology on these and on the scipy.ndimage layer.
 *
 * Arrays may have any strides; results equal scikit-image 0.26's exactly.
 * Footprints are host uint8 arrays in C order (nonzero = part of it).
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_SKMORPHOLOGY_H
#define FOVEA_SKMORPHOLOGY_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

typedef enum fv_reconstruction_method {
    FV_RECONSTRUCT_DILATION = 0,
    FV_RECONSTRUCT_EROSION = 1
} fv_reconstruction_method;

/* Morphological reconstruction of seed under mask
 * (skimage.morphology.reconstruction): by dilation, the largest image <= mask
 * reachable from seed by repeated dilation, i.e. every pixel gets the highest
 * value v such that a path from a seed pixel of value >= v leads to it through
 * mask values >= v; by erosion, the dual.
 *
 * seed, mask, out: one shape, one device, one real dtype (seed <= mask for
 * dilation, >= for erosion: elsewhere seed is first clipped to mask). out may
 * alias seed or mask. footprint: fshape[ndim] (NULL: 3 x ... x 3, all ones);
 * offset: footprint element taken as the centre (NULL: fshape / 2, which then
 * must be odd). Values flow from p to p + (j - offset) for every nonzero
 * footprint element j other than the centre, as skimage's.
 * CPU: sequential hybrid raster / anti-raster scans and a FIFO queue (Vincent
 * 1993). CUDA: parallel in-place propagation sweeps until a sweep changes
 * nothing (one flag read per round). */
FV_API fv_status fv_reconstruction(fv_context *ctx, const fv_array *seed, const fv_array *mask, fv_array *out,
                                   fv_reconstruction_method method, const uint8_t *footprint, const int64_t *fshape,
                                   const int64_t *offset);

/* The core of skimage.morphology.local_maxima (minima != 0: local_minima):
 * out (bool or uint8, image's shape) = 1 on every plateau - a set of equal
 * pixels connected through the footprint - that has no larger (minima:
 * smaller) neighbour, does not touch the array's border, and - when the
 * footprint holds both neighbours along the last axis - holds a pixel whose
 * run of equal values along that axis is bounded by smaller (larger) values;
 * 0 elsewhere, the border included. For allow_borders=True
 * the caller pads the image by one with its minimum (maximum) first.
 * footprint: 3 x ... x 3 (NULL: all ones); the centre is ignored. Arrays with
 * an extent < 3 give all zeros. CPU: skimage's scan and flood fill, exact for
 * any footprint (by blocks of rows on the thread pool when it is point-symmetric). CUDA: iterative propagation of the plateau
 * properties; needs a point-symmetric footprint (FV_EINVAL otherwise). */
FV_API fv_status fv_local_maxima(fv_context *ctx, const fv_array *image, fv_array *out, const uint8_t *footprint,
                                 int minima);

/* skimage.morphology.thin: the two-subiteration thinning of Guo and Hall
 * (1989) with the lookup conditions of Lam, Lee and Suen (1992). image: 2-d,
 * any real dtype (nonzero = foreground); out: bool or uint8 of its shape.
 * Stops after max_num_iter full iterations (<= 0: until nothing changes). */
FV_API fv_status fv_thin(fv_context *ctx, const fv_array *image, fv_array *out, int64_t max_num_iter);

/* The ordered pass of skimage.morphology.medial_axis (host arrays only: it is
 * sequential by nature). image: 2-d, any real dtype (nonzero = foreground);
 * order: 1-d int64, flat C-order indices of the pixels to visit, in order
 * (medial_axis: the foreground sorted by distance, cornerness, tie-breaker).
 * Each visited pixel is kept when, in its 3 x 3 neighbourhood of the current
 * result (outside = 0, the pixel itself counted as set), removing it would
 * change the number of 8-connected components or fewer than 3 pixels are
 * set; otherwise it is removed.
 * out: bool or uint8 of image's shape; may alias image. */
FV_API fv_status fv_medial_axis_thin(fv_context *ctx, const fv_array *image, const fv_array *order, fv_array *out);

FV_EXTERN_C_END

#endif
