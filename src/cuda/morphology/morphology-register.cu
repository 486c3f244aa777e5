/* Placeholder until the morphology CUDA kernels land: registers nothing. */
#include "cuda/cuda-kernels.h"

extern "C" void
fv__cuda_register_morphology(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    (void)table;
}
