/* Registration of the morphology CPU kernels, and helpers they share. */
#include "morphology-cpu.h"

fv_status
fv__cpu_foreground(fv_context *ctx, const char *name, const fv_array *in, fv_array **out)
{
    fv_status st;
    *out = NULL;
    if ((in->dtype == FV_BOOL || in->dtype == FV_UINT8 || in->dtype == FV_INT8) && fv_array_is_contiguous(in)) {
        *out = fv_array_ref((fv_array *)in);
        return FV_OK;
    }
    if ((st = fv_array_new(ctx, FV_BOOL, in->ndim, in->shape, in->device, out)))
        return st;
    fv__op_args a = {.in = in, .out = *out};
    if ((st = fv__dispatch(ctx, FV__OP_ASTYPE, &a))) {
        fv_array_unref(*out);
        *out = NULL;
    }
    (void)name;
    return st;
}

void
fv__cpu_register_morphology(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    table[FV__OP_BINARY_EROSION][FV__BACKEND_CPU] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_binary_erosion};
    table[FV__OP_EDT][FV__BACKEND_CPU] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_edt};
    table[FV__OP_CDT][FV__BACKEND_CPU] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_cdt};
}
