/* Registration of the CUDA filter kernels (filter1d.cu, filter-sep2.cu, filternd.cu, ridge.cu,
 * gradnorm.cu, laplace.cu). */
#include "cuda/cuda-kernels.h"

extern "C" fv_status fv__cuda_filter1d(fv_context *ctx, const fv__op_args *a);
extern "C" fv_status fv__cuda_filternd(fv_context *ctx, const fv__op_args *a);
extern "C" void fv__cuda_register_ridge(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);      /* ridge.cu */
extern "C" void fv__cuda_register_gradnorm(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);   /* gradnorm.cu */
extern "C" void fv__cuda_register_laplace(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);    /* laplace.cu */
extern "C" fv_status fv__cuda_sep2(fv_context *ctx, const fv__op_args *a);

static void
fv_cu_filters_set(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT], fv__op op, fv__kernel_fn fn)
{
    table[op][FV__BACKEND_CUDA].dtypes = FV_DTYPES_ALL;
    table[op][FV__BACKEND_CUDA].max_ndim = FV_MAX_NDIM;
    table[op][FV__BACKEND_CUDA].fn = fn;
}

extern "C" void
fv__cuda_register_filters(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    fv_cu_filters_set(table, FV__OP_FILTER1D, fv__cuda_filter1d);
    fv_cu_filters_set(table, FV__OP_FILTERND, fv__cuda_filternd);
    fv__cuda_register_ridge(table);
    fv__cuda_register_gradnorm(table);
    fv__cuda_register_laplace(table);
    fv_cu_filters_set(table, FV__OP_SEP2, fv__cuda_sep2);
}
