/* Kernel parameters of FV__OP_LABEL (include/fovea/measure.h).
 * src/ops/measure/label.c validates and fills them; src/cpu/measure/label-cpu.c
 * and src/cuda/measure/label.cu run them.
 *
 * The kernels get a C-contiguous input of bool or an integer dtype (compared
 * by bit pattern in its item width: the op layer turns scipy's "nonzero"
 * mode into a bool image first) and a C-contiguous int32 or int64 out that
 * overlaps nothing. Two pixels connect when they are neighbours, neither is
 * background and their values are equal. Labels: 1.. in raster order of each
 * component's first pixel; 0 for background. */
#ifndef FV_LABEL_KERNELS_H
#define FV_LABEL_KERNELS_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__label_params {
    int nnb;                 /* backward neighbours: half of the point-symmetric set */
    const int8_t *nb;        /* host: nnb rows of ndim offsets in {-1, 0, 1}; the first
                              * nonzero entry of each row is -1 (earlier in raster order) */
    int has_background;
    uint64_t background;     /* bit pattern in the input's item width (zero-extended) */
    int64_t num;             /* out: number of labels */
} fv__label_params;

fv_status fv__cpu_label(fv_context *ctx, const fv__op_args *a);
fv_status fv__cuda_label(fv_context *ctx, const fv__op_args *a);

#ifdef __cplusplus
}
#endif

#endif
