/* The op BINARY_FLOOD: fv_binary_erosion's iterations to convergence as one
 * labelling-style pass (src/ops/morphology/morphology-ops.c; the kernels live
 * beside the labelling ones, src/cpu/measure/label-cpu.c and
 * src/cuda/measure/label.cu). */
#ifndef FV_OPS_BINARY_FLOOD_H
#define FV_OPS_BINARY_FLOOD_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_BINARY_FLOOD ---------------------------------------------------
 * fv_binary_erosion's passes until nothing changes (src/ops/morphology), as
 * connected components. For a point-symmetric 3 x ... x 3 structure that holds
 * its centre and origin 0, repeating the pass within the mask sets exactly the
 * pixels of the components of grow = seed | (mask != 0) (neighbours: the
 * structure's) that hold a seed or, along an axis of border_axes, a pixel at
 * either end of that axis (the outside being a seed there); every other pixel
 * keeps its value. seed = ((in != 0) == invert): the set pixels of a dilation,
 * the zero ones of an erosion (the dilation of the complement).
 * out = the flooded set (invert) or its complement (invert 0), as 0 / 1.
 * in and in2 (the mask, or NULL) are one-byte dtypes read as != 0; out is
 * bool, uint8 or int8; all C-contiguous, of one shape, out overlapping
 * neither. */
typedef struct fv__binary_flood_params {
    int nnb;              /* backward neighbours (fv__label_backward) */
    const int8_t *nb;     /* host: nnb rows of ndim offsets */
    uint32_t border_axes; /* bit d: the outside seeds the pixels at both ends of axis d */
    int invert;
} fv__binary_flood_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(BINARY_FLOOD, ...) in the kernel file. */
FV_OP(BINARY_FLOOD, "binary_flood", fv__binary_flood_params);

#ifdef __cplusplus
}
#endif

#endif
