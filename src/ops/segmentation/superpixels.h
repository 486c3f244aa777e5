/* Kernel parameters of the superpixel ops (include/fovea/segmentation.h):
 * SLIC (k-means in colour + space), SLIC_CONNECT (SLIC's connectivity
 * clean-up), FELZENSZWALB (graph merging) and QUICKSHIFT (mode seeking).
 * src/ops/segmentation/superpixels.c validates and fills them; the kernels are
 * src/cpu/segmentation/{slic,felzenszwalb,quickshift}-cpu.c and
 * src/cuda/segmentation/slic.cu.
 *
 * SLIC: in = the image as C-contiguous (Z, Y, X, C) float32 / float64 (colour
 * already scaled by 1 / compactness), in2 = NULL or the (Z, Y, X) mask as
 * C-contiguous bool, out = the (Z, Y, X) labels, C-contiguous int64 (filled by
 * the kernel). segments: (K, 3 + C) centres of in's dtype, C-contiguous, on
 * in's device; read and updated in place (as scikit-image's _slic_cython).
 * SLIC_CONNECT: in = out of SLIC, out = the cleaned (Z, Y, X) int64 labels.
 * FELZENSZWALB: in = the smoothed (H, W, C) float64 image, in2 = NULL or the
 * edges' int64 order (edge indices), out = (H, W) int64.
 * QUICKSHIFT: in = the (H, W, C) float32 / float64 image, in2 = the (H, W)
 * initial densities (the tie-breaking noise) of in's dtype, out = (H, W)
 * int64 labels; parent (int64) and dist (in's dtype), (H, W) C-contiguous host
 * arrays or NULL, receive the raw tree. All C-contiguous (the composition
 * checks). */
#ifndef FV_OPS_SUPERPIXELS_H
#define FV_OPS_SUPERPIXELS_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__slic_params {
    fv_array *segments;             /* (K, 3 + C), in/out */
    int64_t step_z, step_y, step_x; /* regular_grid's integer steps (window half-width / 2) */
    float step;                     /* the seed spacing (spatial weight 1 / step^2) */
    int64_t max_num_iter;
    double spacing[3]; /* voxel spacing, rounded to in's dtype by the kernels */
    int slic_zero;
    int ignore_color;
    int64_t start_label; /* 0 or 1; unlabelled pixels get start_label - 1 */
} fv__slic_params;

typedef struct fv__slic_connect_params {
    int64_t min_size, max_size, start_label;
} fv__slic_connect_params;

typedef struct fv__felzenszwalb_params {
    double scale; /* already divided by 255 */
    int64_t min_size;
} fv__felzenszwalb_params;

typedef struct fv__quickshift_params {
    double kernel_size, max_dist;
    fv_array *parent, *dist; /* optional outputs (host) */
} fv__quickshift_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(SLIC, ...) in the kernel files. */
FV_OP(SLIC, "slic", fv__slic_params);
FV_OP(SLIC_CONNECT, "slic_connect", fv__slic_connect_params);
FV_OP(FELZENSZWALB, "felzenszwalb", fv__felzenszwalb_params);
FV_OP(QUICKSHIFT, "quickshift", fv__quickshift_params);

#ifdef __cplusplus
}
#endif

#endif
