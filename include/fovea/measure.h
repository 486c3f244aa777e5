/* Connected-component labelling (skimage.measure.label, scipy.ndimage.label)
 * on the CPU and CUDA backends.
 *
 * Arrays may have any strides; labels are numbered 1, 2, ... in the C (raster)
 * order of each component's first pixel, which is the numbering of both
 * scikit-image 0.26 and SciPy 1.17, so results equal theirs exactly.
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_MEASURE_H
#define FOVEA_MEASURE_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* Label the connected components of image into out.
 *
 * image: bool or any integer dtype, any ndim (0-d counts as one pixel).
 *   nonzero = 0 (skimage.measure.label): two neighbouring pixels belong to
 *   one component when their values are equal; pixels whose value, converted
 *   to int64 as skimage's C cast does, equals *background are background
 *   (label 0); background NULL: every pixel is labelled.
 *   nonzero = 1 (scipy.ndimage.label): every nonzero pixel is foreground and
 *   all neighbouring foreground pixels connect whatever their values; image
 *   may then also be float32 / float64 (NaN counts as nonzero);
 *   background must be NULL.
 * out: int32 or int64, image's shape and device; it must not overlap image.
 *   int32 needs fewer than 2^31 - 1 elements.
 * structure: NULL, or 3 x ... x 3 (image->ndim axes) bytes in C order,
 *   nonzero = neighbour; it must be point-symmetric (FV_EINVAL otherwise;
 *   the centre is ignored). NULL: the neighbours within connectivity
 *   orthogonal hops, connectivity in 1..ndim (for a 0-d image it is ignored).
 * num_labels (may be NULL): receives the number of components (= the
 *   largest label).
 * CPU: block-parallel union-find (one block of lines per task, path
 * halving, links always towards the smaller index), the block borders merged
 * with a lock-free union (compare-and-swap), then parallel flattening and a
 * per-block count / prefix sum for the consecutive numbering.
 * CUDA: union-find after Playne and Hawick (2018): init, merge with
 * atomicMin, compress, then a root flag + inclusive scan (CUB) for the
 * numbering; 32-bit indices when the image has fewer than 2^31 - 1 pixels. */
FV_API fv_status fv_label(fv_context *ctx, const fv_array *image, fv_array *out, const uint8_t *structure,
                          int connectivity, const int64_t *background, int nonzero, int64_t *num_labels);

/* Per-label statistics behind skimage.measure.regionprops, for every label at
 * once in one pass over labels (and intensity).
 *
 * labels: any integer dtype, 1..4 dimensions, any strides; pixels whose
 *   label is <= 0 or > max_label are ignored (skimage ignores label 0 and
 *   scipy.ndimage.find_objects negative labels).
 * intensity: NULL, or any real dtype with labels' shape (one channel) or
 *   labels' shape plus a trailing channel axis of C >= 1 channels; values
 *   are taken as float64. Same device as labels.
 * max_label: >= 0; rows of out are labels 1..max_label.
 * out: float64, C-contiguous, shape (max_label, fv_region_stats_columns(
 *   ndim, C)) (C = 0 without intensity), on labels' device. Row l - 1:
 *     [0]                     pixel count (0: label l is absent, the rest 0)
 *     [1, 1 + ndim)           bounding box start per axis (inclusive)
 *     [1 + ndim, 1 + 2 ndim)  bounding box stop per axis (exclusive)
 *     [1 + 2 ndim, G)         raw spatial moments up to order 3 per axis
 *                             about the box start: M = 4^ndim values in the
 *                             C order of a (4,) * ndim array, G = 1 + 2 ndim + M
 *     per channel c, at G + c (2 + M): min, max, then the M intensity-weighted
 *                             raw moments about the box start ([0] = sum)
 * CPU: the image is cut into row blocks, each accumulating its own table with
 * moments about the first pixel of each label it sees; the tables are merged
 * per label with the binomial shift to the box start (so sums never lose
 * digits to distance from the image origin). CUDA: a bounding-box pass with
 * integer atomics, then one pass of double atomicAdd into the table.
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
FV_API int64_t fv_region_stats_columns(int ndim, int64_t channels);
FV_API fv_status fv_region_stats(fv_context *ctx, const fv_array *labels, const fv_array *intensity, int64_t max_label,
                                 fv_array *out);

FV_EXTERN_C_END

#endif
