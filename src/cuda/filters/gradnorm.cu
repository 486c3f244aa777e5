/* CUDA kernel of FV__OP_GRADIENT_NORM (fv_gradient_norm): out = sqrt(sum of the
 * parts' squares) / div in one pass, replacing the CuPy chain (square each
 * part in place, add them up, sqrt, divide) that ran one kernel and one full
 * read / write of the image per step.
 *
 * Purely memory-bound. Two grid-stride kernels:
 *  - dense: every operand one contiguous run (the folded geometry is 1-d with
 *    the element size as stride) and all data pointers equally misaligned
 *    modulo 16 bytes: 16-byte vector loads / stores (float4 / double2) over the
 *    aligned middle, templated on the number of parts so that all of a
 *    thread's loads are in flight at once; the few head and tail elements go
 *    one by one in the same launch;
 *  - strided: any strides (views), element offsets from the folded geometry
 *    (FOVEA_GRADNORM_NOVEC=1 in the environment sends everything here).
 * Every step is a round-to-nearest intrinsic (__fmul_rn, __fadd_rn,
 * __fsqrt_rn, __fdiv_rn; __dmul_rn ...), which nvcc never contracts into an FMA
 * and which do not depend on -use_fast_math / -prec-div / -prec-sqrt; the file
 * is built with -fmad=false as well (CMakeLists.txt) and without -ftz, so
 * subnormals survive as in NumPy. Results equal the CPU backend's and NumPy's
 * bit for bit. */
#include <stdlib.h>
#include "cuda/common.cuh"
#include "ops/filters/gradnorm.h"
#include "core/plan.h"

template <typename T> struct fv_cu_gn;
template <> struct fv_cu_gn<float> {
    typedef float4 V;
    enum {
        W = 4
    };
    static __device__ __forceinline__ float sq(float x)
    {
        return __fmul_rn(x, x);
    }
    static __device__ __forceinline__ float add(float a, float b)
    {
        return __fadd_rn(a, b);
    }
    static __device__ __forceinline__ float root(float a)
    {
        return __fsqrt_rn(a);
    }
    static __device__ __forceinline__ float div(float a, float b)
    {
        return __fdiv_rn(a, b);
    }
    static __device__ __forceinline__ float get(const V &v, int i)
    {
        return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
    }
    static __device__ __forceinline__ void set(V &v, int i, float x)
    {
        if (i == 0)
            v.x = x;
        else if (i == 1)
            v.y = x;
        else if (i == 2)
            v.z = x;
        else
            v.w = x;
    }
};
template <> struct fv_cu_gn<double> {
    typedef double2 V;
    enum {
        W = 2
    };
    static __device__ __forceinline__ double sq(double x)
    {
        return __dmul_rn(x, x);
    }
    static __device__ __forceinline__ double add(double a, double b)
    {
        return __dadd_rn(a, b);
    }
    static __device__ __forceinline__ double root(double a)
    {
        return __dsqrt_rn(a);
    }
    static __device__ __forceinline__ double div(double a, double b)
    {
        return __ddiv_rn(a, b);
    }
    static __device__ __forceinline__ double get(const V &v, int i)
    {
        return i == 0 ? v.x : v.y;
    }
    static __device__ __forceinline__ void set(V &v, int i, double x)
    {
        if (i == 0)
            v.x = x;
        else
            v.y = x;
    }
};

/* sqrt(s) / d as NumPy rounds it */
template <typename T>
static __device__ __forceinline__ T
fv_cu_gn_finish(T s, bool has_div, T d)
{
    typedef fv_cu_gn<T> G;
    T r = G::root(s);
    return has_div ? G::div(r, d) : r;
}

/* The dense kernel's arguments: ptr[0] out, ptr[1 + k] parts[k], all at their
 * first element; the first `head` elements go one by one, then nvec vectors of
 * W elements from ptr + head (16-byte aligned), then `tail` elements. */
struct fv_cu_gn_dense {
    char *ptr[FV__GRADNORM_MAX_PARTS + 1];
    int64_t head, nvec, tail;
    double div;
    int has_div;
};

template <typename T, int NP>
static __device__ __forceinline__ void
fv_cu_gn_one(const fv_cu_gn_dense &a, int64_t e, T d)
{
    typedef fv_cu_gn<T> G;
    T s = G::sq(((const T *)a.ptr[1])[e]);
#pragma unroll
    for (int k = 2; k <= NP; k++)
        s = G::add(s, G::sq(((const T *)a.ptr[k])[e]));
    ((T *)a.ptr[0])[e] = fv_cu_gn_finish<T>(s, a.has_div != 0, d);
}

template <typename T, int NP, typename IT>
__global__ void
__launch_bounds__(FV_CU_BLOCK) fv_k_gradnorm_dense(const fv_cu_gn_dense a)
{
    typedef fv_cu_gn<T> G;
    typedef typename G::V V;
    const T d = (T)a.div;
    const bool has_div = a.has_div != 0;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < a.head)
        fv_cu_gn_one<T, NP>(a, tid, d);
    if (tid < a.tail)
        fv_cu_gn_one<T, NP>(a, a.head + a.nvec * G::W + tid, d);
    const V *src[NP];
#pragma unroll
    for (int k = 0; k < NP; k++)
        src[k] = (const V *)((const T *)a.ptr[1 + k] + a.head);
    V *dst = (V *)((T *)a.ptr[0] + a.head);
    FV_GRID_STRIDE(IT, i, a.nvec) {
        V v[NP];
#pragma unroll
        for (int k = 0; k < NP; k++)
            v[k] = src[k][i];
        V r;
#pragma unroll
        for (int w = 0; w < G::W; w++) {
            T s = G::sq(G::get(v[0], w));
#pragma unroll
            for (int k = 1; k < NP; k++)
                s = G::add(s, G::sq(G::get(v[k], w)));
            G::set(r, w, fv_cu_gn_finish<T>(s, has_div, d));
        }
        dst[i] = r;
    }
}

/* Any strides: element i's byte offsets from the folded geometry (j.ndim axes). */
template <typename T, typename IT>
__global__ void
__launch_bounds__(FV_CU_BLOCK) fv_k_gradnorm_strided(const fv__gradnorm_job j)
{
    typedef fv_cu_gn<T> G;
    const T d = (T)j.div;
    const bool has_div = j.has_div != 0;
    const int nops = j.nparts + 1;
    FV_GRID_STRIDE(IT, i, j.size) {
        int64_t off[FV__GRADNORM_MAX_PARTS + 1];
        for (int k = 0; k < nops; k++)
            off[k] = 0;
        IT r = i;
        for (int ax = j.ndim - 1; ax > 0; ax--) {
            const IT n = (IT)j.shape[ax];
            const IT q = r / n;
            const int64_t x = (int64_t)(r - q * n);
            r = q;
            for (int k = 0; k < nops; k++)
                off[k] += x * j.strides[k][ax];
        }
        for (int k = 0; k < nops; k++)
            off[k] += (int64_t)r * j.strides[k][0];
        T s = G::sq(*(const T *)(j.ptr[1] + off[1]));
        for (int k = 2; k < nops; k++)
            s = G::add(s, G::sq(*(const T *)(j.ptr[k] + off[k])));
        *(T *)(j.ptr[0] + off[0]) = fv_cu_gn_finish<T>(s, has_div, d);
    }
}

template <typename T, int NP>
static void
fv_cu_gn_launch_dense(const fv_cu_gn_dense &a, const fv_cu_exec *x, unsigned grid)
{
    if (a.nvec <= (int64_t)INT32_MAX)
        fv_k_gradnorm_dense<T, NP, uint32_t><<<grid, x->block, 0, x->stream>>>(a);
    else
        fv_k_gradnorm_dense<T, NP, uint64_t><<<grid, x->block, 0, x->stream>>>(a);
}

template <typename T>
static void
fv_cu_gn_dense_np(const fv_cu_gn_dense &a, int np, const fv_cu_exec *x, unsigned grid)
{
    switch (np) {
    case 1:
        fv_cu_gn_launch_dense<T, 1>(a, x, grid);
        break;
    case 2:
        fv_cu_gn_launch_dense<T, 2>(a, x, grid);
        break;
    case 3:
        fv_cu_gn_launch_dense<T, 3>(a, x, grid);
        break;
    case 4:
        fv_cu_gn_launch_dense<T, 4>(a, x, grid);
        break;
    case 5:
        fv_cu_gn_launch_dense<T, 5>(a, x, grid);
        break;
    case 6:
        fv_cu_gn_launch_dense<T, 6>(a, x, grid);
        break;
    case 7:
        fv_cu_gn_launch_dense<T, 7>(a, x, grid);
        break;
    default:
        fv_cu_gn_launch_dense<T, 8>(a, x, grid);
        break;
    }
}
static_assert(FV__GRADNORM_MAX_PARTS == 8, "fv_cu_gn_dense_np: one case per part count");

/* The kernels ("cuda.gradient_norm"): "vector", 16-byte loads and stores over
 * 1-d dense operands that share their misalignment; "strided", element by
 * element, always. */
FV__VARIANTS(fv_cu_gn_variants, "cuda.gradient_norm", { "vector", fv_cu_flag_ok, NULL }, { "strided", NULL, NULL })

template <typename T>
static void
fv_cu_gn_run(const fv__gradnorm_job *j, const fv_cu_exec *x)
{
    const int nops = j->nparts + 1;
    const int64_t isz = (int64_t)sizeof(T);
    bool dense = j->ndim == 1;
    for (int k = 0; k < nops && dense; k++)
        dense = j->strides[k][0] == isz;
    const uintptr_t mis = (uintptr_t)j->ptr[0] % 16;
    for (int k = 1; k < nops && dense; k++)
        dense = (uintptr_t)j->ptr[k] % 16 == mis;
    const int vector_ok = dense;
    if (fv__plan_index(&fv_cu_gn_variants, &vector_ok, x->device) == 0) {
        fv_cu_gn_dense a;
        memset(&a, 0, sizeof a);
        for (int k = 0; k < nops; k++)
            a.ptr[k] = j->ptr[k];
        int64_t head = (int64_t)((16 - mis) % 16) / isz;
        if (head > j->size)
            head = j->size;
        a.head = head;
        a.nvec = (j->size - head) / fv_cu_gn<T>::W;
        a.tail = j->size - head - a.nvec * fv_cu_gn<T>::W;
        a.div = j->div;
        a.has_div = j->has_div;
        const int64_t work = a.nvec > a.head + a.tail ? a.nvec : a.head + a.tail;
        fv_cu_gn_dense_np<T>(a, j->nparts, x, fv_cu_grid(work, x->device));
        return;
    }
    if (j->size <= (int64_t)INT32_MAX)
        fv_k_gradnorm_strided<T, uint32_t><<<x->grid, x->block, 0, x->stream>>>(*j);
    else
        fv_k_gradnorm_strided<T, uint64_t><<<x->grid, x->block, 0, x->stream>>>(*j);
}

static fv_status
fv_cu_gradient_norm(fv_context *ctx, const fv__op_args *a)
{
    const char *domain = "gradient_norm";
    const fv__gradnorm_job *j = (const fv__gradnorm_job *)a->params;
    const int64_t isz = j->is_double ? 8 : 4;
    for (int k = 0; k <= j->nparts; k++) {
        if ((uintptr_t)j->ptr[k] % (uintptr_t)isz)
            return fv_error_set(FV_EINVAL, domain, "CUDA array data not aligned to the element size");
        for (int ax = 0; ax < j->ndim; ax++)
            if (j->strides[k][ax] % isz)
                return fv_error_set(FV_EINVAL, domain, "CUDA array strides not a multiple of the element size");
    }
    if (j->size == 0)
        return FV_OK;
    fv_cu_exec x;
    fv_status st = fv_cu_begin(ctx, domain, a, j->size, &x);
    if (st != FV_OK)
        return st;
    if (j->is_double)
        fv_cu_gn_run<double>(j, &x);
    else
        fv_cu_gn_run<float>(j, &x);
    st = fv_cu_launch_status("gradient_norm kernel launch");
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(GRADIENT_NORM, CUDA, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), FV_MAX_NDIM, fv_cu_gradient_norm);
