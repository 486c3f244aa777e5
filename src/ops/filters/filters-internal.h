/* Internals shared by the filter entry points: filters.c (modes, checks, 1-D
 * passes, separable compositions, the Gaussian) and filters-nd.c (the n-D
 * filters: correlate, convolve, minimum / maximum, rank). Host code only. */
#ifndef FV_FILTERS_INTERNAL_H
#define FV_FILTERS_INTERNAL_H

#include "internal.h"
#include "ops/filters/filter1d.h"


/* Windows beyond these sizes are refused up front: their line buffers (1-D) or
 * per-element tables (n-d) would take gigabytes that an overcommitting system
 * hands out and then kills the process for. */
#define FV__MAX_TAPS ((int64_t)1 << 30)
#define FV__MAX_FOOTPRINT ((int64_t)1 << 28)

fv_status fv__check_arrays(const char *fn, const fv_array *in, const fv_array *out);
fv_status fv__check_mode(const char *fn, fv_mode mode);
/* scipy's _invalid_origin: -(n // 2) <= origin <= (n - 1) // 2 */
fv_status fv__check_origin(const char *fn, int64_t origin, int64_t n, int axis);
/* Run passes[0..k) one after the other, in -> out (filters.c). */
fv_status fv__run_passes(fv_context *ctx, const fv_array *in, fv_array *out, const fv__filter1d_params *passes, int k);

#endif
