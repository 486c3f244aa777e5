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
    int nnb;          /* backward neighbours: half of the point-symmetric set */
    const int8_t *nb; /* host: nnb rows of ndim offsets in {-1, 0, 1}; the first
                              * nonzero entry of each row is -1 (earlier in raster order) */
    int has_background;
    uint64_t background; /* bit pattern in the input's item width (zero-extended) */
    int64_t num;         /* out: number of labels */
} fv__label_params;

/* Representative neighbours of the merge step (src/cuda/measure/label.cu),
 * for nnb <= FV__LABEL_REP_MAX backward neighbours nb (rows of nd offsets, as
 * in fv__label_params). A pixel whose equal backward neighbours form the set m
 * (bit k: neighbour k) needs to unite with only one member of each connected
 * component of m, two members j, k being adjacent when nb[k] - nb[j] is in the
 * structure (nb or -nb, the structure being point-symmetric): the later of j
 * and k has the other among its own equal backward neighbours and unites with
 * it (or with a member of the same component, by induction in raster order).
 * Fills rep[m] for every m < 2^nnb with the lowest-numbered member of each
 * component of m: in fv_label's order of nb (C order of the 3^nd cells), the
 * neighbour earliest in raster order, whose tree the threads that ran before
 * have most likely settled. */
#define FV__LABEL_REP_MAX 13
void fv__label_rep_table(int nd, int nnb, const int8_t *nb, uint16_t *rep);

/* The backward half of a point-symmetric neighbour set of an nd-d image: the
 * nonzero cells of structure (3^nd bytes, C order; FV_EINVAL "structure is
 * not symmetric" otherwise), or with structure NULL the cells within
 * `connectivity` unit steps, whose first nonzero offset is -1. *nb: a
 * malloc'd array of *nnb rows of max(nd, 1) offsets (the caller frees it). */
fv_status fv__label_backward(const char *name, int nd, const uint8_t *structure, int connectivity, int8_t **nb,
                             int *nnb);

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(LABEL, ...) in the kernel file. */
FV_OP(LABEL, "label", fv__label_params);

#ifdef __cplusplus
}
#endif

#endif
