/* CUDA kernels of FV__OP_MINMAX (order-preserving 64-bit keys, warp reduction,
 * one atomic per warp), FV__OP_HISTOGRAM (per-block shared-memory histograms
 * flushed with 64-bit atomics; global atomics when the bins do not fit) and
 * FV__OP_CLAHE (a block per contextual region builds its histogram in shared
 * memory, a thread per region clips and maps it, a thread per pixel
 * interpolates). The binning, clipping, mapping and interpolation are the
 * inline helpers of exposure-kernels.h, shared with the CPU kernels. */
#include "cuda/common.cuh"
#include "fovea/exposure.h"
#include "ops/exposure/exposure.h"

#define FV_CU_HIST_SHARED_BINS 12288 /* 48 KiB of uint32 counters */

static const fv_device fv_cu_host = { FV_DEVICE_CPU, 0 };

/* ---- minmax ------------------------------------------------------------------------ */

__device__ __forceinline__ unsigned long long
fv_cu_dkey(double v)
{
    unsigned long long b = (unsigned long long)__double_as_longlong(v);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

static double
fv_cu_dkey_decode(unsigned long long k)
{
    unsigned long long b = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

__global__ void
fv_k_minmax_init(unsigned long long *r)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        r[0] = ~0ull;
        r[1] = 0;
        r[2] = 0;
        r[3] = 0;
    }
}

#define FV_CU_MINMAX(E, T, S)                                                                       \
    __global__ void fv_k_minmax_##S(const T *x, const uint8_t *m, int64_t n, unsigned long long *r) \
    {                                                                                               \
        unsigned long long lo = ~0ull, hi = 0, cnt = 0, nan = 0;                                    \
        FV_GRID_STRIDE(int64_t, i, n) {                                                             \
            if (m && !m[i])                                                                         \
                continue;                                                                           \
            double v = (double)x[i];                                                                \
            cnt++;                                                                                  \
            if (v != v) {                                                                           \
                nan = 1;                                                                            \
            } else {                                                                                \
                unsigned long long k = fv_cu_dkey(v);                                               \
                lo = k < lo ? k : lo;                                                               \
                hi = k > hi ? k : hi;                                                               \
            }                                                                                       \
        }                                                                                           \
        for (int o = 16; o > 0; o >>= 1) {                                                          \
            unsigned long long l2 = __shfl_down_sync(0xffffffffu, lo, o);                           \
            unsigned long long h2 = __shfl_down_sync(0xffffffffu, hi, o);                           \
            cnt += __shfl_down_sync(0xffffffffu, cnt, o);                                           \
            nan |= __shfl_down_sync(0xffffffffu, nan, o);                                           \
            lo = l2 < lo ? l2 : lo;                                                                 \
            hi = h2 > hi ? h2 : hi;                                                                 \
        }                                                                                           \
        if ((threadIdx.x & 31u) == 0 && cnt) {                                                      \
            atomicMin(&r[0], lo);                                                                   \
            atomicMax(&r[1], hi);                                                                   \
            if (nan)                                                                                \
                atomicOr(&r[2], 1ull);                                                              \
            atomicAdd(&r[3], cnt);                                                                  \
        }                                                                                           \
    }
FV_FOREACH_DTYPE(FV_CU_MINMAX)

/* Without a mask, on 16-byte aligned data: 16-byte loads, the comparisons in the
 * data's own type (every thread starts from x[0], an element), one key each per
 * warp at the end; NaN flagged. The count is n. */
template <typename T>
__global__ void
fv_k_minmax_vec(const T *x, int64_t n, unsigned long long *r)
{
    constexpr int V = 16 / (int)sizeof(T);
    const int64_t nv = n / V, step = (int64_t)gridDim.x * blockDim.x;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    T lo = x[0], hi = x[0];
    unsigned nan = 0;
    for (int64_t i = tid; i < nv; i += step) {
        const uint4 u = __ldg((const uint4 *)x + i);
        const T *e = (const T *)&u;
#pragma unroll
        for (int k = 0; k < V; k++) {
            nan |= e[k] != e[k];
            lo = e[k] < lo ? e[k] : lo;
            hi = e[k] > hi ? e[k] : hi;
        }
    }
    for (int64_t i = nv * V + tid; i < n; i += step) {
        const T v = x[i];
        nan |= v != v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    unsigned long long kl = fv_cu_dkey((double)lo), kh = fv_cu_dkey((double)hi);
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long l2 = __shfl_down_sync(0xffffffffu, kl, o);
        const unsigned long long h2 = __shfl_down_sync(0xffffffffu, kh, o);
        nan |= __shfl_down_sync(0xffffffffu, nan, o);
        kl = l2 < kl ? l2 : kl;
        kh = h2 > kh ? h2 : kh;
    }
    if ((threadIdx.x & 31u) == 0) {
        atomicMin(&r[0], kl);
        atomicMax(&r[1], kh);
        if (nan)
            atomicOr(&r[2], 1ull);
    }
}

extern "C" fv_status
fv__cuda_minmax(fv_context *ctx, const fv__op_args *a)
{
    fv__minmax_params *p = (fv__minmax_params *)a->params;
    const int64_t n = a->in->shape[0];
    const uint8_t *m = a->in2 ? (const uint8_t *)a->in2->data : NULL;
    unsigned long long *r = (unsigned long long *)a->out->data, h[4];
    const int vec = !m && ((uintptr_t)a->in->data & 15u) == 0; /* fv_k_minmax_vec */
    fv_cu_exec x;
    fv_status st;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "minmax", a, n, &x)))
        return st;
    fv_k_minmax_init<<<1, 32, 0, x.stream>>>(r);
    if ((st = fv_cu_launch_status("minmax init")))
        goto done;
    switch (a->in->dtype) {
#define FV_CU_MINMAX_CASE(E, T, S)                                                              \
    case E:                                                                                     \
        if (vec)                                                                                \
            fv_k_minmax_vec<T><<<x.grid, x.block, 0, x.stream>>>((const T *)a->in->data, n, r); \
        else                                                                                    \
            fv_k_minmax_##S<<<x.grid, x.block, 0, x.stream>>>((const T *)a->in->data, m, n, r); \
        break;
        FV_FOREACH_DTYPE(FV_CU_MINMAX_CASE)
#undef FV_CU_MINMAX_CASE
    default:
        st = fv_error_set(FV_EDTYPE, "minmax", "unsupported dtype");
        goto done;
    }
    if ((st = fv_cu_launch_status("minmax")))
        goto done;
    if ((st = fv__cuda_memcpy(ctx, h, fv_cu_host, r, a->out->device, sizeof h)))
        goto done;
    p->count = vec ? n : (int64_t)h[3];
    if (h[2])
        p->min = p->max = NAN;
    else if (!p->count)
        p->min = p->max = 0;
    else {
        p->min = fv_cu_dkey_decode(h[0]);
        p->max = fv_cu_dkey_decode(h[1]);
    }
done:
    fv_cu_end(&x);
    return st;
}

/* ---- histogram ------------------------------------------------------------------------ */

#define FV_CU_HIST(E, T, S)                                                                                           \
    __global__ void fv_k_hist_##S(const T *x, const uint8_t *m, int64_t n, fv_histogram_spec sp, const double *edges, \
                                  unsigned long long *counts, int shared)                                             \
    {                                                                                                                 \
        extern __shared__ unsigned int fv_sh_hist[];                                                                  \
        const int64_t nb = sp.nbins;                                                                                  \
        if (shared) {                                                                                                 \
            for (int64_t b = threadIdx.x; b < nb; b += blockDim.x)                                                    \
                fv_sh_hist[b] = 0;                                                                                    \
            __syncthreads();                                                                                          \
        }                                                                                                             \
        FV_GRID_STRIDE(int64_t, i, n) {                                                                               \
            if (m && !m[i])                                                                                           \
                continue;                                                                                             \
            T v = x[i];                                                                                               \
            int64_t b;                                                                                                \
            if (sp.integer)                                                                                           \
                b = (double)v > 9.2e18 ? -1 : fv__hist_int_bin((int64_t)v, sp.lo, nb);                                \
            else                                                                                                      \
                b = fv__hist_float_bin((double)v, &sp, edges);                                                        \
            if (b < 0)                                                                                                \
                continue;                                                                                             \
            if (shared)                                                                                               \
                atomicAdd(&fv_sh_hist[b], 1u);                                                                        \
            else                                                                                                      \
                atomicAdd(&counts[b], 1ull);                                                                          \
        }                                                                                                             \
        if (shared) {                                                                                                 \
            __syncthreads();                                                                                          \
            for (int64_t b = threadIdx.x; b < nb; b += blockDim.x)                                                    \
                if (fv_sh_hist[b])                                                                                    \
                    atomicAdd(&counts[b], (unsigned long long)fv_sh_hist[b]);                                         \
        }                                                                                                             \
    }
FV_FOREACH_DTYPE(FV_CU_HIST)

extern "C" fv_status
fv__cuda_histogram(fv_context *ctx, const fv__op_args *a)
{
    const fv__histogram_params *p = (const fv__histogram_params *)a->params;
    const int64_t n = a->in->shape[0], nb = p->spec.nbins;
    const uint8_t *m = a->in2 ? (const uint8_t *)a->in2->data : NULL;
    unsigned long long *counts = (unsigned long long *)a->out->data;
    void *dedges = NULL, *dopaque = NULL;
    fv_cu_exec x;
    fv_status st;
    cudaError_t e;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "histogram", a, n, &x)))
        return st;
    if ((e = cudaMemsetAsync(counts, 0, (size_t)nb * sizeof *counts, x.stream))) {
        st = fv__cuda_error("cudaMemsetAsync", e);
        goto done;
    }
    if (!p->spec.integer) {
        const size_t eb = (size_t)(nb + 1) * sizeof(double);
        if ((st = fv__cuda_alloc(ctx, x.device, eb, &dedges, &dopaque)) ||
            (st = fv__cuda_memcpy(ctx, dedges, a->out->device, p->spec.edges, fv_cu_host, eb)))
            goto done;
    }
    {
        /* shared counters while they fit and no block can count 2^32 elements */
        const int shared = nb <= FV_CU_HIST_SHARED_BINS && n / (int64_t)x.grid < (int64_t)UINT32_MAX - 1;
        const size_t shbytes = shared ? (size_t)nb * sizeof(unsigned int) : 0;
        switch (a->in->dtype) {
#define FV_CU_HIST_CASE(E, T, S)                                                                       \
    case E:                                                                                            \
        fv_k_hist_##S<<<x.grid, x.block, shbytes, x.stream>>>((const T *)a->in->data, m, n, p->spec,   \
                                                              (const double *)dedges, counts, shared); \
        break;
            FV_FOREACH_DTYPE(FV_CU_HIST_CASE)
#undef FV_CU_HIST_CASE
        default:
            st = fv_error_set(FV_EDTYPE, "histogram", "unsupported dtype");
            goto done;
        }
    }
    st = fv_cu_launch_status("histogram");
done:
    if (dedges) {
        (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(dedges, dopaque);
    }
    fv_cu_end(&x);
    return st;
}

/* ---- CLAHE -------------------------------------------------------------------------------- */

__global__ void
fv_k_clahe_hist(const uint16_t *in, fv__clahe_params p, int32_t *luts)
{
    extern __shared__ unsigned int fv_sh_clahe[];
    for (int64_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
        for (int64_t b = threadIdx.x; b < p.nb; b += blockDim.x)
            fv_sh_clahe[b] = 0;
        __syncthreads();
        for (int64_t j = threadIdx.x; j < p.kelem; j += blockDim.x) {
            unsigned v = in[fv__clahe_src(&p, t, j)];
            if (v > FV__CLAHE_GRAY - 1)
                v = FV__CLAHE_GRAY - 1;
            atomicAdd(&fv_sh_clahe[(int64_t)v / p.bin_size], 1u);
        }
        __syncthreads();
        for (int64_t b = threadIdx.x; b < p.nb; b += blockDim.x)
            luts[t * p.nb + b] = (int32_t)fv_sh_clahe[b];
        __syncthreads();
    }
}

__global__ void
fv_k_clahe_map(fv__clahe_params p, int32_t *luts)
{
    FV_GRID_STRIDE(int64_t, t, p.ntiles) {
        fv__clahe_clip(luts + t * p.nb, p.nb, p.clim);
        fv__clahe_map(luts + t * p.nb, p.nb, p.kelem);
    }
}

__global__ void
fv_k_clahe_pixels(const uint16_t *in, uint16_t *out, int64_t n, fv__clahe_params p, const int32_t *luts)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        out[i] = fv__clahe_pixel(&p, luts, i, in[i]);
    }
}

extern "C" fv_status
fv__cuda_clahe(fv_context *ctx, const fv__op_args *a)
{
    const fv__clahe_params *p = (const fv__clahe_params *)a->params;
    const int64_t n = fv_array_size(a->in);
    void *dl = NULL, *dopaque = NULL;
    fv_cu_exec x;
    fv_status st;
    cudaError_t e;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "equalize_adapthist", a, n, &x)))
        return st;
    if ((st = fv__cuda_alloc(ctx, x.device, (size_t)(p->ntiles * p->nb) * sizeof(int32_t), &dl, &dopaque)))
        goto done;
    {
        const size_t shbytes = (size_t)p->nb * sizeof(unsigned int);
        if (shbytes > 48 * 1024 &&
            (e = cudaFuncSetAttribute(fv_k_clahe_hist, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shbytes))) {
            st = fv__cuda_error("cudaFuncSetAttribute", e);
            goto done;
        }
        const int64_t tb = p->ntiles < 65535 ? p->ntiles : 65535;
        fv_k_clahe_hist<<<(unsigned)tb, FV_CU_BLOCK, shbytes, x.stream>>>((const uint16_t *)a->in->data, *p,
                                                                          (int32_t *)dl);
        if ((st = fv_cu_launch_status("equalize_adapthist (histograms)")))
            goto done;
        fv_k_clahe_map<<<fv_cu_grid(p->ntiles, x.device), 64, 0, x.stream>>>(*p, (int32_t *)dl);
        if ((st = fv_cu_launch_status("equalize_adapthist (clip and map)")))
            goto done;
        fv_k_clahe_pixels<<<x.grid, x.block, 0, x.stream>>>((const uint16_t *)a->in->data, (uint16_t *)a->out->data, n,
                                                            *p, (const int32_t *)dl);
        st = fv_cu_launch_status("equalize_adapthist (interpolation)");
    }
done:
    if (dl) {
        (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(dl, dopaque);
    }
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(MINMAX, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_minmax);
FV_KERNEL(HISTOGRAM, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_histogram);
FV_KERNEL(CLAHE, CUDA, FV_DTYPE_BIT(FV_UINT16), FV_MAX_NDIM, fv__cuda_clahe);
