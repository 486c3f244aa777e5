/* CPU kernels of the morphology area (src/cpu/morphology), registered by
 * fv__cpu_register_morphology. Parameters: src/core/ndimage.h. */
#ifndef FV_MORPHOLOGY_CPU_H
#define FV_MORPHOLOGY_CPU_H

#include "internal.h"
#include "ndimage.h"

fv_status fv__cpu_binary_erosion(fv_context *ctx, const fv__op_args *a);
fv_status fv__cpu_edt(fv_context *ctx, const fv__op_args *a);
fv_status fv__cpu_cdt(fv_context *ctx, const fv__op_args *a);

/* A C-contiguous one-byte view of (in != 0) for the distance transforms: in
 * itself (a new reference) when it is already contiguous bool/uint8/int8,
 * otherwise a bool copy. */
fv_status fv__cpu_foreground(fv_context *ctx, const char *name, const fv_array *in, fv_array **out);

#endif
