/* The op RECONSTRUCTION (fv_reconstruction, include/fovea/skmorphology.h):
 * src/ops/morphology/reconstruction.c validates and fills the params.
 *
 * Every kernel gets C-contiguous arrays, and an out that overlaps no input
 * (the op layer copies or uses temporaries where the caller's arrays are not
 * so). Plain C. */
#ifndef FV_OPS_RECONSTRUCTION_H
#define FV_OPS_RECONSTRUCTION_H

#include <stdint.h>
#include "internal.h"
#include "cast.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_RECONSTRUCTION --------------------------------------------------
 * in = seed, in2 = mask, out: one dtype and shape. The kernel computes
 * out = reconstruction of min(seed, mask) (dilation; erosion: max) under mask.
 * Values flow from p to p + nb[k] for every neighbour offset k. */
typedef struct fv__reconstruction_params {
    int method;                               /* fv_reconstruction_method */
    int nnb;                                  /* neighbour offsets (the footprint less its centre) */
    const int64_t *nb;                        /* host: nnb rows of ndim coordinate offsets */
    int64_t lo[FV_MAX_NDIM], hi[FV_MAX_NDIM]; /* per axis: max(-nb), max(nb), >= 0 */
} fv__reconstruction_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(RECONSTRUCTION, ...) in the kernel file. */
FV_OP(RECONSTRUCTION, "reconstruction", fv__reconstruction_params);

#ifdef __cplusplus
}
#endif

#endif
