/* The op BINARY_EROSION: one pass of scipy's binary erosion
 * (src/ops/morphology/morphology-ops.c iterates it). Plain C, for host code and nvcc. */
#ifndef FV_OPS_BINARY_EROSION_H
#define FV_OPS_BINARY_EROSION_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_BINARY_EROSION: one pass of scipy's NI_BinaryErosion ------------
 * in (any real dtype, read as != 0) -> out (bool or integer, 0/1), no overlap.
 * in2 of the op args: the mask or NULL. `changed` receives 1 when any output
 * differs from (in != 0), else 0 (src/ops iterates on it). */
typedef struct fv__binary_erosion_params {
    int ndim;
    int64_t sshape[FV_MAX_NDIM];
    int64_t origins[FV_MAX_NDIM];
    const uint8_t *structure; /* host, C order */
    int border_value;
    int invert;
    int *changed;        /* out: host int, or NULL when not needed */
    int *same_as_before; /* out: host int or NULL: 1 when every output equals
                                 * what out held before the pass (src/ops detects
                                 * passes that cycle with it) */
} fv__binary_erosion_params;

/* Kernel: fv_status fn(fv_context *ctx, const fv__op_args *a), a->params
 * pointing at the struct above (fv__params_BINARY_EROSION(a)); registered with
 * FV_KERNEL(BINARY_EROSION, CPU|CUDA, ...) in the kernel's file. */
FV_OP(BINARY_EROSION, "binary_erosion", fv__binary_erosion_params);

#ifdef __cplusplus
}
#endif

#endif
