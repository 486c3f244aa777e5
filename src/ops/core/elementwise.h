/* The element-wise core ops (fv_astype, fv_copy, fv_add, fv_multiply;
 * src/ops/core/core-ops.c). None has params.
 *   ASTYPE:   in -> out, same shape, any dtype pair (NumPy's casts).
 *   COPY:     in -> out, same shape and dtype.
 *   ADD, MULTIPLY: out = in op in2, in and in2 broadcast to out's shape
 *             (fv__geom), the arithmetic in out's dtype. */
#ifndef FV_OPS_ELEMENTWISE_H
#define FV_OPS_ELEMENTWISE_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(E, ...) in the kernel file. */
FV_OP(ASTYPE, "astype", void);
FV_OP(COPY, "copy", void);
FV_OP(ADD, "add", void);
FV_OP(MULTIPLY, "multiply", void);

#ifdef __cplusplus
}
#endif

#endif
