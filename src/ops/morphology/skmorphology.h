/* Op-layer helpers shared by the scikit-image morphology ops and others that
 * need C-contiguous operands (src/ops/morphology/reconstruction.c and its
 * neighbours, src/ops/measure, src/ops/exposure). Host code only. */
#ifndef FV_OPS_SKMORPHOLOGY_H
#define FV_OPS_SKMORPHOLOGY_H

#include "internal.h"

/* Contiguous-array plumbing of the op layer (src/ops/morphology/reconstruction.c). */

/* *c = a (a new reference) when a is C-contiguous, else a contiguous copy on
 * a's device. */
fv_status fv__skm_contig(fv_context *ctx, const fv_array *a, fv_array **c);
/* The offsets from off of footprint's true elements (footprint NULL: all of
 * them), the origin left out, in C order: nd coordinates each into nb (room for
 * the footprint's size); fs: the footprint's shape. Returns their count. */
int fv__skm_offsets(const uint8_t *footprint, int nd, const int64_t *fs, const int64_t *off, int64_t *nb);
/* The neighbour offsets of a footprint (fv__skm_offsets) after validating it
 * as fv_reconstruction documents (footprint and fshape both NULL: 3 x ... x 3,
 * all ones; offset NULL: the centre, extents then odd): *nb (malloc'd, free
 * it) holds *nnb rows of nd coordinate offsets. */
fv_status fv__skm_footprint_offsets(const char *name, int nd, const uint8_t *footprint, const int64_t *fshape,
                                    const int64_t *offset, int64_t **nb, int *nnb);
/* Dispatches op on the C-contiguous inputs in and in2 (NULL: none) with params
 * into out: straight into out when out is C-contiguous and overlaps neither
 * input, else into a contiguous work array then copied into out. */
fv_status fv__skm_run(fv_context *ctx, fv__op op, const fv_array *in, const fv_array *in2, fv_array *out, void *params);

#endif
