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
/* *work = out (a new reference) when out is C-contiguous and overlaps none of
 * ins[0..nin), else a new contiguous array like out. */
fv_status fv__skm_work(fv_context *ctx, fv_array *out, const fv_array *const *ins, int nin, fv_array **work);
/* Copy work into out when they differ; then drop work. Returns st when st is
 * an error already. */
fv_status fv__skm_finish(fv_context *ctx, fv_status st, fv_array *work, fv_array *out);

#endif
