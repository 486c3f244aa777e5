/* Marker-controlled watershed (skimage.segmentation.watershed) on the CPU and
 * CUDA backends; the superpixels of skimage.segmentation (slic on both,
 * felzenszwalb and quickshift on the CPU).
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

/* The k-means iterations of scikit-image 0.26's SLIC (_slic_cython): the
 * preprocessing (float conversion, rescaling, Lab, smoothing, seeds) is the
 * caller's, as fovea.skimage.segmentation.slic does it.
 *
 * image: (Z, Y, X, C) float32 or float64, C-contiguous: colour already multiplied
 *   by 1 / compactness. mask: NULL or (Z, Y, X) bool, C-contiguous.
 * segments: (K, 3 + C) of image's dtype, C-contiguous: the seeds (z, y, x,
 *   colour...), updated in place to the final centres (empty clusters: NaN).
 * labels: (Z, Y, X) int64, C-contiguous: centre k gets k + start_label, pixels
 *   no window reaches or outside the mask start_label - 1.
 * steps: regular_grid's integer steps (a centre's window is +-2 steps); step:
 *   the seed spacing (spatial weight 1 / step^2); spacing: voxel spacing;
 *   slic_zero: SLICO's adaptive colour normalisation; ignore_color: spatial
 *   distance only (the mask's first pass); start_label: 0 or 1.
 * CPU: identical to scikit-image (same distances, same tie rule, centre sums in
 * raster order). CUDA: the same assignment per pixel; centre sums by atomic
 * reduction, so sums (hence labels after the first update) may differ by
 * rounding where scikit-image's raster order matters. */
FV_API fv_status fv_slic(fv_context *ctx, const fv_array *image, const fv_array *mask, fv_array *segments,
                         fv_array *labels, const int64_t steps[3], float step, int64_t max_num_iter,
                         const double spacing[3], int slic_zero, int ignore_color, int64_t start_label);

/* scikit-image's _enforce_label_connectivity_cython: labels (Z, Y, X) int64 from
 * fv_slic into out (same shape, int64, not labels): 6-connected components
 * relabelled from start_label in raster order, components below min_size
 * pixels merged into the last adjacent one found, searches capped at max_size
 * pixels. Sequential: CUDA data is scanned in a host copy (device-to-host and back). */
FV_API fv_status fv_slic_enforce_connectivity(fv_context *ctx, const fv_array *labels, fv_array *out, int64_t min_size,
                                              int64_t max_size, int64_t start_label);

/* scikit-image 0.26's Felzenszwalb graph segmentation of the smoothed (H, W, C)
 * float64 C-contiguous image into out ((H, W) int64, labels 0.. by first pixel);
 * scale as scikit-image's (divided by 255 here), min_size the small-segment
 * limit. The edges (8-connected: right, down, down-right, up-right blocks, each
 * in raster order; weight sqrt of the summed squared channel differences) are
 * taken in order: NULL, sorted by weight, equal weights in edge order (a stable
 * sort); else an int64 array of the edge indices in the order to take them
 * (fovea.skimage passes NumPy's argsort of the weights, as scikit-image sorts,
 * so that equal weights fall as there). CPU only. */
FV_API fv_status fv_felzenszwalb(fv_context *ctx, const fv_array *image, const fv_array *order, fv_array *out,
                                 double scale, int64_t min_size);

/* scikit-image 0.26's quickshift (_quickshift_cython) of the (H, W, C) float32 or
 * float64 C-contiguous image (already in the working colour space, smoothed and
 * multiplied by ratio) into out ((H, W) int64). densities: (H, W) of image's
 * dtype, the densities' start values (scikit-image's tie-breaking noise).
 * kernel_size >= 1, max_dist: as scikit-image's. parent (int64) and dist
 * (image's dtype), (H, W) C-contiguous or NULL: the raw parent links (raveled
 * indices) and their lengths, before the max_dist cut. CPU only. */
FV_API fv_status fv_quickshift(fv_context *ctx, const fv_array *image, const fv_array *densities, fv_array *out,
                               double kernel_size, double max_dist, fv_array *parent, fv_array *dist);

FV_EXTERN_C_END

#endif
