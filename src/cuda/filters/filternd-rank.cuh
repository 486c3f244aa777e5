/* Device helpers shared by the CUDA rank filter's generic kernels (filternd-rank.cu)
 * and its tiled 2-D / 3-D kernels (filternd-rank-tile.cu). */
#ifndef FV_CUDA_FILTERND_RANK_CUH
#define FV_CUDA_FILTERND_RANK_CUH
#include "filternd-common.cuh"


/* scipy's NI_Select (Hoare partition, iterative): rank-th of buf[lo..hi]. On
 * the input type itself it compares as scipy's doubles do (floats convert
 * exactly; integers keep their order, so the selected value is the same). */
template <typename V>
__device__ __noinline__ V
fv_d_flt_select(V *buf, int64_t lo, int64_t hi, int64_t rank)
{
    for (;;) {
        if (lo == hi)
            return buf[lo];
        V x = buf[lo];
        int64_t ii = lo - 1, jj = hi + 1;
        for (;;) {
            do
                jj--;
            while (buf[jj] > x);
            do
                ii++;
            while (buf[ii] < x);
            if (ii < jj) {
                V t = buf[ii];
                buf[ii] = buf[jj];
                buf[jj] = t;
            } else {
                break;
            }
        }
        ii = jj - lo + 1;
        if (rank < ii) {
            hi = jj;
        } else {
            lo = jj + 1;
            rank -= ii;
        }
    }
}

/* scipy converts the selected double back to the input type: (double)(T)r */
template <typename T>
__device__ __forceinline__ double
fv_d_flt_back(double r)
{
    return (double)fv_d_flt_to_in<T>(r);
}

#endif
