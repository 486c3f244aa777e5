/* The ops MAX_TREE, MAX_TREE_FILTER and FLOOD (fv_max_tree, fv_max_tree_filter,
 * fv_flood, include/fovea/skmorphology.h): src/ops/morphology/maxtree.c
 * validates and fills the params. CPU only (union-find and queue walks).
 *
 * Every kernel gets C-contiguous arrays and an out that overlaps no input.
 * Neighbours: nnb rows of ndim coordinate offsets (host memory); a neighbour
 * outside the image is skipped. Plain C. */
#ifndef FV_OPS_MAXTREE_H
#define FV_OPS_MAXTREE_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_MAX_TREE -------------------------------------------------------------
 * in: image (real dtype or bool); in2: int64 order, a permutation of the flat
 * indices sorting image ascending (stable); out: int64 parent of image's
 * shape. Salembier's max-tree by union-find over the pixels from the last of
 * order to the first, then canonized (scikit-image's _max_tree). */
typedef struct fv__max_tree_params {
    int nnb;
    const int64_t *nb;
} fv__max_tree_params;

/* ---- FV__OP_MAX_TREE_FILTER --------------------------------------------------------
 * in: image; in2: int64 parent (image's size); out: image's dtype (area,
 * diameter: the direct filter of the attribute against threshold) or uint64
 * (local maxima labels). order: host int64, image's size. The op layer has
 * checked that every parent and order entry lies in [0, size). */
typedef struct fv__max_tree_filter_params {
    int attr; /* fv_max_tree_attr */
    double threshold;
    const int64_t *order;
} fv__max_tree_filter_params;

/* ---- FV__OP_FLOOD -------------------------------------------------------------------
 * in: image (real dtype or bool); in2: NULL (equal to the seed's value) or
 * two elements of image's dtype, low and high (inclusive bounds); out: bool or
 * uint8 of image's shape: 1 on the seed and every pixel reachable from it
 * through neighbours whose value lies in the bounds. */
typedef struct fv__flood_params {
    int64_t seed; /* flat C-order index */
    int nnb;
    const int64_t *nb;
} fv__flood_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(MAX_TREE / MAX_TREE_FILTER / FLOOD, ...). */
FV_OP(MAX_TREE, "max_tree", fv__max_tree_params);
FV_OP(MAX_TREE_FILTER, "max_tree_filter", fv__max_tree_filter_params);
FV_OP(FLOOD, "flood", fv__flood_params);

#ifdef __cplusplus
}
#endif

#endif
