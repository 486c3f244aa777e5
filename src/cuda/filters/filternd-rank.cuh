/* Device helpers shared by the CUDA rank filter's generic kernels (filternd-rank.cu)
 * and its tiled 2-D / 3-D kernels (filternd-rank-tile.cu). */
#ifndef FV_CUDA_FILTERND_RANK_CUH
#define FV_CUDA_FILTERND_RANK_CUH
#include "filternd-common.cuh"
#include "ops/filters/ni-select.h"


/* scipy's NI_Select (ops/filters/ni-select.h): rank-th of buf[lo..hi], on the
 * input type itself or on doubles. */
template <typename V>
__device__ __noinline__ V
fv_d_flt_select(V *buf, int64_t lo, int64_t hi, int64_t rank)
{
    FV__NI_SELECT(V, buf, lo, hi, rank)
}

/* scipy converts the selected double back to the input type: (double)(T)r */
template <typename T>
__device__ __forceinline__ double
fv_d_flt_back(double r)
{
    return (double)fv_d_flt_to_in<T>(r);
}

#endif
