/* CUDA kernel of TV_CHAMBOLLE: one fused kernel per iteration (reads the dual
 * variable p_i, writes p_{i+1} and out_i), one thread per pixel; out at the
 * forward neighbours is recomputed from p_i (cached reads) instead of a second
 * pass. Each block adds its energy to its image's state with one atomic; the
 * last block of the image applies the stop rule (fv__tv_converged) on the
 * device, and later iterations of a stopped image return at once, so the host
 * queues iterations without waiting, looking at the count of stopped images
 * every FV_CU_TV_POLL iterations only. No FMA contraction (CMakeLists.txt). */
#include "cuda/common.cuh"
#include "ops/restoration/tv.h"

#define FV_CU_TV_POLL 16

typedef struct fv_cu_tv_state {
    double acc;     /* this iteration's energy so far */
    double e[2];    /* E_0, E_prev */
    unsigned count; /* blocks done this iteration */
    int done;
} fv_cu_tv_state;

/* -div p at x (scikit-image's d): lo has bit a when x has a neighbour before it on axis a. */
template <typename T, int ND>
__device__ __forceinline__ T
fv_cu_tv_d(const T *__restrict__ pc, int64_t n, int nd, int64_t x, unsigned lo, const int64_t *stride)
{
    T acc = __ldg(pc + x);
    for (int a = 1; a < (ND ? ND : nd); a++)
        acc += __ldg(pc + a * n + x);
    T d = -acc;
    for (int a = 0; a < (ND ? ND : nd); a++)
        if (lo >> a & 1u)
            d += __ldg(pc + a * n + x - stride[a]);
    return d;
}

template <typename T, int ND>
__global__ void
fv_k_tv(const T *__restrict__ img, T *__restrict__ out, const T *__restrict__ pin, T *__restrict__ pout,
        fv__tv_params p, fv_cu_tv_state *states, int *ndone, int64_t it, T tau, T tw)
{
    __shared__ double red[32];
    const int nd = ND ? ND : p.ndim;
    const int64_t c = blockIdx.y, n = p.n;
    fv_cu_tv_state *s = states + c;
    if (*(volatile int *)&s->done)
        return;
    img += c * n;
    out += c * n;
    pin += c * n * nd;
    pout += c * n * nd;
    double e = 0.0;
    const bool small = n <= (int64_t)UINT32_MAX;
    for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n; x += (int64_t)blockDim.x * gridDim.x) {
        unsigned lo = 0, hi = 0;
        if (small) { /* 32-bit division: much cheaper than 64-bit on the GPU */
            uint32_t q = (uint32_t)x;
            for (int d = (ND ? ND : nd) - 1; d >= 0; d--) {
                const uint32_t sd = (uint32_t)p.shape[d], cd = q % sd;
                q /= sd;
                lo |= (unsigned)(cd > 0) << d;
                hi |= (unsigned)(cd < sd - 1) << d;
            }
        } else {
            int64_t q = x;
            for (int d = (ND ? ND : nd) - 1; d >= 0; d--) {
                const int64_t sd = p.shape[d], cd = q % sd;
                q /= sd;
                lo |= (unsigned)(cd > 0) << d;
                hi |= (unsigned)(cd < sd - 1) << d;
            }
        }
        const T dx = fv_cu_tv_d<T, ND>(pin, n, nd, x, lo, p.stride);
        const T ox = __ldg(img + x) + dx;
        T g[ND ? ND : FV_MAX_NDIM];
        for (int a = 0; a < (ND ? ND : nd); a++) {
            if (hi >> a & 1u) {
                const int64_t y = x + p.stride[a];
                const T oy = __ldg(img + y) + fv_cu_tv_d<T, ND>(pin, n, nd, y, lo | 1u << a, p.stride);
                g[a] = oy - ox;
            } else {
                g[a] = (T)0;
            }
        }
        T sq = g[0] * g[0];
        for (int a = 1; a < (ND ? ND : nd); a++)
            sq += g[a] * g[a];
        const T norm = sqrt(sq);
        const T den = norm * tw + (T)1;
        for (int a = 0; a < (ND ? ND : nd); a++)
            pout[a * n + x] = (__ldg(pin + a * n + x) - tau * g[a]) / den;
        out[x] = ox;
        e += (double)dx * (double)dx + p.weight * (double)norm;
    }
    for (int o = 16; o > 0; o >>= 1)
        e += __shfl_down_sync(0xffffffffu, e, o);
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = e;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0;
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; w++)
            t += red[w];
        atomicAdd(&s->acc, t);
        __threadfence();
        if (atomicAdd(&s->count, 1u) == gridDim.x - 1) {
            __threadfence();
            const double tot = *(volatile double *)&s->acc;
            s->acc = 0.0;
            s->count = 0;
            if (fv__tv_converged(s->e, tot, n, p.eps, it)) {
                s->done = 1;
                atomicAdd(ndone, 1);
            }
        }
    }
}

template <typename T, int ND>
static void
fv_cu_tv_launch(const fv_cu_exec *x, dim3 grid, const fv__op_args *a, T *pa, T *pb, fv_cu_tv_state *st, int *ndone,
                int64_t it)
{
    const fv__tv_params *p = fv__params_TV_CHAMBOLLE(a);
    const double tau = 1.0 / (2.0 * p->ndim);
    fv_k_tv<T, ND><<<grid, x->block, 0, x->stream>>>((const T *)a->in->data, (T *)a->out->data, (it & 1) ? pb : pa,
                                                     (it & 1) ? pa : pb, *p, st, ndone, it, (T)tau,
                                                     (T)(tau / p->weight));
}

template <typename T>
static void
fv_cu_tv_iter(const fv_cu_exec *x, dim3 grid, const fv__op_args *a, void *pa, void *pb, fv_cu_tv_state *st, int *ndone,
              int64_t it)
{
    switch (fv__params_TV_CHAMBOLLE(a)->ndim) {
    case 1:
        fv_cu_tv_launch<T, 1>(x, grid, a, (T *)pa, (T *)pb, st, ndone, it);
        break;
    case 2:
        fv_cu_tv_launch<T, 2>(x, grid, a, (T *)pa, (T *)pb, st, ndone, it);
        break;
    case 3:
        fv_cu_tv_launch<T, 3>(x, grid, a, (T *)pa, (T *)pb, st, ndone, it);
        break;
    default:
        fv_cu_tv_launch<T, 0>(x, grid, a, (T *)pa, (T *)pb, st, ndone, it);
        break;
    }
}

static fv_status
fv_cu_tv_chambolle(fv_context *ctx, const fv__op_args *a)
{
    const fv__tv_params *p = fv__params_TV_CHAMBOLLE(a);
    const size_t isz = fv_dtype_size(a->in->dtype);
    const size_t pbytes = (size_t)(p->n * p->nchan * p->ndim) * isz;
    const size_t sbytes = (size_t)p->nchan * sizeof(fv_cu_tv_state) + sizeof(int);
    void *buf = NULL, *opaque = NULL;
    fv_cu_exec x;
    fv_status st;
    cudaError_t e;
    if (p->nchan > 65535)
        return fv_error_set(FV_EINVAL, "denoise_tv_chambolle", "at most 65535 channels on CUDA");
    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "denoise_tv_chambolle", a, p->n, &x)))
        return st;
    if ((st = fv__cuda_alloc(ctx, x.device, 2 * pbytes + sbytes, &buf, &opaque)))
        goto done;
    if ((e = cudaMemsetAsync(buf, 0, 2 * pbytes + sbytes, x.stream))) {
        st = fv__cuda_error("cudaMemsetAsync", e);
        goto done;
    }
    {
        char *pa = (char *)buf, *pb = pa + pbytes;
        fv_cu_tv_state *states = (fv_cu_tv_state *)(pb + pbytes);
        int *ndone = (int *)(states + p->nchan);
        const dim3 grid(x.grid, (unsigned)p->nchan);
        for (int64_t it = 0; it < p->max_iter; it++) {
            if (a->in->dtype == FV_FLOAT32)
                fv_cu_tv_iter<float>(&x, grid, a, pa, pb, states, ndone, it);
            else
                fv_cu_tv_iter<double>(&x, grid, a, pa, pb, states, ndone, it);
            if ((st = fv_cu_launch_status("denoise_tv_chambolle")))
                goto done;
            if ((it + 1) % FV_CU_TV_POLL == 0) {
                int nd = 0;
                if ((e = cudaMemcpyAsync(&nd, ndone, sizeof nd, cudaMemcpyDeviceToHost, x.stream)) ||
                    (e = cudaStreamSynchronize(x.stream))) {
                    st = fv__cuda_error("denoise_tv_chambolle", e);
                    goto done;
                }
                if (nd >= p->nchan)
                    break;
            }
        }
    }
done:
    if (buf) {
        (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(buf, opaque);
    }
    fv_cu_end(&x);
    return st;
}
FV_KERNEL(TV_CHAMBOLLE, CUDA, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), FV_MAX_NDIM, fv_cu_tv_chambolle);
