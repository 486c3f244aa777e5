/* Kernel parameters of FV__OP_WATERSHED (include/fovea/segmentation.h).
 * src/ops/segmentation/watershed.c validates, pads and fills them;
 * src/cpu/segmentation/watershed-cpu.c and src/cuda/segmentation/watershed.cu
 * run them.
 *
 * The kernels see skimage's padded, raveled layout: a->in is the padded image
 * as C-contiguous float64, a->in2 the padded mask as C-contiguous bool (0 on
 * the padding), a->out the padded labels as C-contiguous int64, holding the
 * seeds' labels on entry (0 elsewhere; seeds outside the mask are the
 * kernel's to clear) and the result on return. Neighbours are raveled
 * offsets; a neighbour index outside [0, n) is skipped. An in-mask pixel
 * lies at least pad[d] cells from either end of axis d, so a neighbour whose
 * step along every axis d is at most pad[d] is its grid neighbour (no wrap):
 * src/ops/segmentation/watershed-relax.h. */
#ifndef FV_WATERSHED_KERNELS_H
#define FV_WATERSHED_KERNELS_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__watershed_params {
    int ndim;
    int64_t strides[FV_MAX_NDIM]; /* of the padded array, in elements */
    int64_t pad[FV_MAX_NDIM];     /* padding on each side of axis d (0 in the mask) */
    int nnb;
    const int64_t *nb;  /* host: nnb raveled offsets, skimage's order */
    double compactness; /* > 0: compact watershed */
    int watershed_line;
} fv__watershed_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(WATERSHED, ...) in the kernel file. */
FV_OP(WATERSHED, "watershed", fv__watershed_params);

#ifdef __cplusplus
}
#endif

#endif
