/* Registration of the morphology CUDA kernels (erosion.cu, edt.cu, cdt.cu). */
#include "cuda/morphology/morphology-cuda.cuh"

extern "C" void
fv__cuda_register_morphology(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    table[FV__OP_BINARY_EROSION][FV__BACKEND_CUDA] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_binary_erosion};
    table[FV__OP_EDT][FV__BACKEND_CUDA] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_edt};
    table[FV__OP_CDT][FV__BACKEND_CUDA] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_cdt};
}
