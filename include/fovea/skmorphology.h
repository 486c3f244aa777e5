/* The scikit-image morphology operations that have no scipy.ndimage
 * counterpart: grayscale reconstruction, plateau-aware local extrema, thinning
 * and skeletonization, the ordered pass of the medial axis, max-trees and
 * their attribute filters, flood fill, on the CPU and (reconstruction, local
 * extrema, thinning, Zhang's skeletonization) CUDA backends. The Python package fovea.skimage.morphology builds the
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

typedef enum fv_skeleton_method {
    FV_SKELETON_ZHANG = 0, /* Zhang and Suen (1984), 2-d */
    FV_SKELETON_LEE = 1    /* Lee, Kashyap and Chu (1994), 2-d and 3-d */
} fv_skeleton_method;

/* skimage.morphology.skeletonize: image 2-d (ZHANG, LEE) or 3-d (LEE), any
 * dtype (nonzero = foreground); out: bool or uint8 of its shape. ZHANG: the
 * parallel two-subiteration thinning with scikit-image's table, until nothing
 * changes (CPU and CUDA: the THIN kernels). LEE: scikit-image's
 * _compute_thin_image (border directions W, E, S, N, then up, down in 3-d;
 * candidates by Euler invariance, simplicity and not being an end point, then
 * rechecked one by one), CPU only: FV_ENOKERNEL for device arrays. */
FV_API fv_status fv_skeletonize(fv_context *ctx, const fv_array *image, fv_array *out, fv_skeleton_method method);

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

/* skimage.morphology.max_tree: parent (int64, image's shape) of every pixel in
 * the canonized max-tree of image (any dtype), built by union-find over the
 * pixels from the last of order to the first. order: host int64, the flat
 * C-order indices sorting image ascending (a stable argsort: the caller's,
 * scikit-image's tree_traverser). Neighbours: the footprint's true elements
 * other than its centre (footprint, fshape NULL: 3 x ... x 3 all ones);
 * fshape odd. Host arrays only (FV_ENOKERNEL on a device). */
FV_API fv_status fv_max_tree(fv_context *ctx, const fv_array *image, const fv_array *order, fv_array *parent,
                             const uint8_t *footprint, const int64_t *fshape);

typedef enum fv_max_tree_attr {
    FV_MAX_TREE_AREA = 0,        /* area_opening: components of fewer pixels than threshold */
    FV_MAX_TREE_DIAMETER = 1,    /* diameter_opening: of a smaller bounding-box extent */
    FV_MAX_TREE_LOCAL_MAXIMA = 2 /* max_tree_local_maxima: labels of the leaves */
} fv_max_tree_attr;

/* The filters of skimage.morphology on a max-tree (parent, order: int64 host
 * arrays of image's size, as fv_max_tree gives; every entry must be a pixel
 * index, FV_EINVAL otherwise). AREA, DIAMETER: out (image's dtype and shape)
 * = the direct filter: a component whose attribute (pixel count; largest
 * extent of its bounding box along one axis) is < threshold takes its parent's
 * level (the root: 0). LOCAL_MAXIMA: out (uint64) = 1, 2, ... on the leaf
 * components in reverse tree order, 0 elsewhere; threshold is unused. The
 * closings are the openings of the inverted image (the caller inverts). */
FV_API fv_status fv_max_tree_filter(fv_context *ctx, const fv_array *image, const fv_array *parent,
                                    const fv_array *order, fv_array *out, fv_max_tree_attr attr, double threshold);

/* skimage.morphology.flood: out (bool or uint8, image's shape) = 1 on seed
 * (image->ndim coordinates, each inside the image) and on every pixel reached
 * from it through neighbours (the footprint's true elements less its centre,
 * any odd extents; NULL: 3 x ... x 3 all ones) whose value v has low <= v <=
 * high; bounds: NULL (low = high = the seed's value) or two elements, low and
 * high, of image's dtype. Host arrays only (FV_ENOKERNEL on a device). */
FV_API fv_status fv_flood(fv_context *ctx, const fv_array *image, const int64_t *seed, const fv_array *bounds,
                          const uint8_t *footprint, const int64_t *fshape, fv_array *out);

/* The pass of skimage.morphology.remove_objects_by_distance: points (float64,
 * npts x nd, in visiting order: the objects' border pixels, by priority),
 * objects (int64, npts: each point's object, in [0, removed's length)). Each
 * point of an object still present removes every other present object with a
 * point within min_distance (Minkowski p_norm > 0: sum |d|^p <= r^p; p = inf:
 * the largest |d|); removed (bool or uint8, contiguous, one per object) = 1 on
 * the removed objects. CPU: a grid of cells of side min_distance. Host arrays;
 * NaN distances remove nothing. */
FV_API fv_status fv_objects_by_distance(fv_context *ctx, const fv_array *points, const fv_array *objects,
                                        double min_distance, double p_norm, fv_array *removed);

FV_EXTERN_C_END

#endif
