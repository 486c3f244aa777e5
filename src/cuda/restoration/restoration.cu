/* CUDA kernel of RL (src/ops/restoration/restoration.h): one grid-stride
 * kernel per step and precision, on the context's stream, so a whole
 * Richardson-Lucy run (these steps between cuFFT transforms) stays on the GPU.
 * Indices are 64-bit (grids of 3-d stacks pass 2^31 elements). */
#include "cuda/common.cuh"
#include "ops/restoration/restoration.h"

template <typename T>
__global__ void
fv_k_rl_place(const T *in, T *out, int64_t n, fv__rl_params q)
{
    const T v = (T)q.value;
    FV_GRID_STRIDE(int64_t, g, n) {
        const int64_t k = fv__rl_place_src(&q, g);
        out[g] = k < 0 ? (T)0 : q.fill ? v : in[k];
    }
}

template <typename T>
__global__ void
fv_k_rl_cmul(const T *h, T *c, int64_t n, int conj)
{
    const T sg = conj ? (T)-1 : (T)1;
    FV_GRID_STRIDE(int64_t, i, n) {
        const T hr = h[2 * i], hi = sg * h[2 * i + 1], cr = c[2 * i], ci = c[2 * i + 1];
        c[2 * i] = cr * hr - ci * hi;
        c[2 * i + 1] = cr * hi + ci * hr;
    }
}

template <typename T>
__global__ void
fv_k_rl_divide(const T *img, T *r, int64_t n, fv__rl_params q)
{
    const T eps = (T)q.eps, fe = (T)q.filter_epsilon;
    FV_GRID_STRIDE(int64_t, g, n) {
        const int64_t j = fv__rl_remap(q.ndim, q.m, q.n, g);
        r[g] = j < 0 ? (T)0 : FV__RL_RELATIVE(T, img[j], r[g], eps, q.filter, fe);
    }
}

template <typename T>
__global__ void
fv_k_rl_update(const T *f, T *est, int64_t n, fv__rl_params q)
{
    FV_GRID_STRIDE(int64_t, g, n) {
        if (fv__rl_remap(q.ndim, q.m, q.n, g) >= 0)
            est[g] *= f[g];
    }
}

template <typename T>
__global__ void
fv_k_rl_out(const T *est, T *out, int64_t n, fv__rl_params q)
{
    FV_GRID_STRIDE(int64_t, j, n) {
        const T v = est[fv__rl_remap(q.ndim, q.n, q.m, j)];
        out[j] = FV__RL_CLIP(v, q.clip);
    }
}

template <typename T>
static void
fv_cu_rl_launch(const fv__op_args *a, const fv__rl_params *q, int64_t n, const fv_cu_exec *x)
{
    const T *in = (const T *)a->in->data;
    T *out = (T *)a->out->data;
    switch (q->step) {
    case FV__RL_PLACE:
        fv_k_rl_place<T><<<x->grid, x->block, 0, x->stream>>>(in, out, n, *q);
        break;
    case FV__RL_CMUL:
        fv_k_rl_cmul<T><<<x->grid, x->block, 0, x->stream>>>(in, out, n, q->conj);
        break;
    case FV__RL_DIVIDE:
        fv_k_rl_divide<T><<<x->grid, x->block, 0, x->stream>>>(in, out, n, *q);
        break;
    case FV__RL_UPDATE:
        fv_k_rl_update<T><<<x->grid, x->block, 0, x->stream>>>(in, out, n, *q);
        break;
    default:
        fv_k_rl_out<T><<<x->grid, x->block, 0, x->stream>>>(in, out, n, *q);
        break;
    }
}

static fv_status
fv_cu_rl(fv_context *ctx, const fv__op_args *a)
{
    const fv__rl_params *q = fv__params_RL(a);
    if (q->step < FV__RL_PLACE || q->step > FV__RL_OUT)
        return fv_error_set(FV_EINVAL, "richardson_lucy", "unknown step %d", q->step);
    const int64_t n = q->step == FV__RL_CMUL ? fv_array_size(a->out) / 2 : fv_array_size(a->out);
    fv_cu_exec x;
    fv_status st = fv_cu_begin(ctx, "richardson_lucy", a, n, &x);
    if (st != FV_OK)
        return st;
    if (a->out->dtype == FV_FLOAT64)
        fv_cu_rl_launch<double>(a, q, n, &x);
    else
        fv_cu_rl_launch<float>(a, q, n, &x);
    st = fv_cu_launch_status("richardson_lucy kernel launch");
    fv_cu_end(&x);
    return st;
}
FV_KERNEL(RL, CUDA, FV_DTYPES_FLOAT, FV_MAX_NDIM, fv_cu_rl);
