/* Core array operations, on whichever backend holds the data. */
#ifndef FOVEA_CORE_H
#define FOVEA_CORE_H

#include "array.h"

FV_EXTERN_C_BEGIN

/* out = in converted to out's dtype (numpy's ndarray.astype: C casts, integers
 * wrap modulo 2^bits, float -> int truncates toward zero). Defined where NumPy's
 * is not: float -> int saturates at the target's limits and NaN becomes 0;
 * anything -> bool is (x != 0). in and out: same shape and device. */
FV_API fv_status fv_astype(fv_context *ctx, const fv_array *in, fv_array *out);

/* out = in, same dtype and shape, on any pair of devices (host <-> CUDA,
 * CUDA <-> CUDA, host <-> host), any strides. Asynchronous on the context's stream
 * for device destinations; a device -> host copy waits for its data. */
FV_API fv_status fv_copy(fv_context *ctx, const fv_array *in, fv_array *out);

/* out = a + b and out = a * b with NumPy broadcasting of a and b to out's shape.
 * Inputs are converted to out's dtype first (as fv_astype) and the operation is
 * done in that dtype: integers wrap, bool add is logical or, bool multiply is
 * logical and. a, b, out on one device; out may alias an input of equal layout. */
FV_API fv_status fv_add(fv_context *ctx, const fv_array *a, const fv_array *b, fv_array *out);
FV_API fv_status fv_multiply(fv_context *ctx, const fv_array *a, const fv_array *b, fv_array *out);

FV_EXTERN_C_END

#endif
