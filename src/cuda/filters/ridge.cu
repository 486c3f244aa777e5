/* CUDA kernel of FV__OP_HESSIAN_RIDGE (fv_hessian_ridge): the Hessian ridge
 * filters (skimage.filters frangi / hessian / sato / meijering) of one scale in
 * one pass over the pixels, replacing the chain of CuPy array operations the
 * Python layer ran before (symmetric_eigvals' (2, H, W) stacks, argsort +
 * take_along_axis to sort by magnitude, eigvalsh on (..., 3, 3) stacks, then
 * one kernel with temporaries per exp / maximum). The internal switch
 * "ridge_arrays" (fovea._interop.switched) makes
 * python/fovea/skimage/filters/ridges.py take that old path again.
 *
 * One thread per pixel (grid-stride over the C-contiguous planes): it reads the
 * 3 (2-d) or 6 (3-d) Hessian elements, computes the eigenvalues (2-d closed
 * form in the image type; 3-d cyclic Jacobi in double), the filter's response
 * (ops/filters/ridge-kernels.h, the same source the CPU backend runs) and
 * folds it into the running maximum acc in place. The max reductions (frangi's
 * gamma=None: max Hessian norm of the first scale; meijering's per-scale
 * normalisation) reduce per warp and block, then one atomicMax per block on
 * scal's bits (non-negative values order like their bits as signed integers;
 * NaN is made positive so that it wins, as in NumPy's max). scal is zeroed on
 * the stream first and is read back by the next pass's threads on the device:
 * nothing is copied to the host and the stream is never synchronised.
 *
 * Results agree with the CPU backend to rounding (FMA contraction, CUDA's
 * expf / exp), not bit for bit. */
#include "cuda/common.cuh"
#include "ops/filters/ridge.h"

template <typename T> struct fv_cu_ridge_t;
template <> struct fv_cu_ridge_t<float> {
    typedef int K;
    static __device__ __forceinline__ float pixel(const fv__ridge_job *j, int64_t i, float g, float m)
    {
        return fv__ridge_pixel_f(j, i, g, m);
    }
    static __device__ __forceinline__ K key(float v)
    {
        return fv__ridge_key_f(v);
    }
    static __device__ __forceinline__ float gden(float m)
    {
        return fv__ridge_gden_f(m);
    }
};
template <> struct fv_cu_ridge_t<double> {
    typedef long long K;
    static __device__ __forceinline__ double pixel(const fv__ridge_job *j, int64_t i, double g, double m)
    {
        return fv__ridge_pixel_d(j, i, g, m);
    }
    static __device__ __forceinline__ K key(double v)
    {
        return (K)fv__ridge_key_d(v);
    }
    static __device__ __forceinline__ double gden(double m)
    {
        return fv__ridge_gden_d(m);
    }
};

template <typename T, typename IT, bool REDUCE>
__global__ void
fv_k_ridge(fv__ridge_job j)
{
    typedef fv_cu_ridge_t<T> R;
    typedef typename R::K K;
    T gden = (T)j.gamma_den, m = 0;
    if (j.pass == FV__RIDGE_PASS_FOLD && j.gamma_from_scal)
        gden = R::gden(*(const T *)j.scal);
    if (j.pass == FV__RIDGE_PASS_MEIJ_FOLD)
        m = *(const T *)j.scal;
    K best = 0;
    FV_GRID_STRIDE(IT, i, j.n) {
        T v = R::pixel(&j, (int64_t)i, gden, m);
        if (REDUCE) {
            K k = R::key(v);
            best = k > best ? k : best;
        }
    }
    if (REDUCE) {
        __shared__ K warp_best[FV_CU_BLOCK / 32];
        for (int off = 16; off > 0; off >>= 1) {
            K o = __shfl_down_sync(0xffffffffu, best, off);
            best = o > best ? o : best;
        }
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (lane == 0)
            warp_best[warp] = best;
        __syncthreads();
        if (threadIdx.x == 0) {
            K b = warp_best[0];
            for (int w = 1; w < (int)(blockDim.x >> 5); w++)
                b = warp_best[w] > b ? warp_best[w] : b;
            if (b > 0)
                atomicMax((K *)j.scal, b);
        }
    }
}

template <typename T>
static void
fv_cu_ridge_launch(const fv__ridge_job *j, const fv_cu_exec *x, bool reduce)
{
    if (j->n <= (int64_t)INT32_MAX) {
        if (reduce)
            fv_k_ridge<T, uint32_t, true><<<x->grid, x->block, 0, x->stream>>>(*j);
        else
            fv_k_ridge<T, uint32_t, false><<<x->grid, x->block, 0, x->stream>>>(*j);
    } else {
        if (reduce)
            fv_k_ridge<T, uint64_t, true><<<x->grid, x->block, 0, x->stream>>>(*j);
        else
            fv_k_ridge<T, uint64_t, false><<<x->grid, x->block, 0, x->stream>>>(*j);
    }
}

static fv_status
fv_cu_hessian_ridge(fv_context *ctx, const fv__op_args *a)
{
    const char *domain = "hessian_ridge";
    const fv__ridge_job *j = (const fv__ridge_job *)a->params;
    const size_t sz = j->is_double ? sizeof(double) : sizeof(float);
    const void *ptrs[9] = { j->h[0], j->h[1], j->h[2], j->h[3], j->h[4], j->h[5], j->acc, j->work, j->scal };
    for (int k = 0; k < 9; k++)
        if ((uintptr_t)ptrs[k] % sz)
            return fv_error_set(FV_EINVAL, domain, "CUDA array data not aligned to the element size");
    const bool reduce = j->pass == FV__RIDGE_PASS_NORM || j->pass == FV__RIDGE_PASS_MEIJ;
    fv_cu_exec x;
    fv_status st = fv_cu_begin(ctx, domain, a, j->n, &x);
    if (st != FV_OK)
        return st;
    if (reduce) {
        cudaError_t e = cudaMemsetAsync(j->scal, 0, sz, x.stream);
        if (e != cudaSuccess) {
            fv_cu_end(&x);
            return fv__cuda_error("cudaMemsetAsync", e);
        }
    }
    if (j->n > 0) {
        if (j->is_double)
            fv_cu_ridge_launch<double>(j, &x, reduce);
        else
            fv_cu_ridge_launch<float>(j, &x, reduce);
        st = fv_cu_launch_status("hessian_ridge kernel launch");
    }
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(HESSIAN_RIDGE, CUDA, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), FV_MAX_NDIM, fv_cu_hessian_ridge);
