/* Op-level helpers of src/ops/filters/filters.c shared with the other filter ops
 * (laplace.c). Host code only. */
#ifndef FV_FILTERS_OPS_H
#define FV_FILTERS_OPS_H

#include "internal.h"

/* *src = in itself, or a copy of it when it shares memory with out (+1 reference
 * either way; release with fv_array_unref). */
fv_status fv__ndi_source(fv_context *ctx, const fv_array *in, const fv_array *out, fv_array **src);

/* out = in, converted as NumPy's `output[...] = input` does (scipy's copy when a
 * filter has no axis to work on): fv_astype, except floating data into integer
 * outputs, which takes scipy's store. in and out may overlap. */
fv_status fv__ndi_assign(fv_context *ctx, const fv_array *in, fv_array *out);

#endif
