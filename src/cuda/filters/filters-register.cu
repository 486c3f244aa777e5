/* Placeholder until the filters CUDA kernels land: registers nothing. */
#include "cuda/cuda-kernels.h"

extern "C" void
fv__cuda_register_filters(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    (void)table;
}
