/* CUDA kernels of FV__OP_RADON (one thread per sinogram element, summing its
 * rotated column in row order: the CPU's result) and FV__OP_SART (one thread
 * per ray for its deviation, then per ray again adding its update terms with
 * atomics: the order of additions varies, so results match the CPU's to
 * rounding). */
#include "cuda/common.cuh"
#include "ops/transform/radon.h"

static const fv_device fv_cu_radon_host = { FV_DEVICE_CPU, 0 };

#define FV_CU_RADON(T, S)                                                                                           \
    __global__ void fv_k_radon_##S(const T *img, int64_t n, const double *mats, int64_t na, T *out)                 \
    {                                                                                                               \
        FV_GRID_STRIDE(int64_t, e, n * na) {                                                                        \
            const int64_t j = e / na, a = e % na;                                                                   \
            T m[6];                                                                                                 \
            for (int q = 0; q < 6; q++)                                                                             \
                m[q] = (T)mats[6 * a + q];                                                                          \
            T acc = 0;                                                                                              \
            for (int64_t i = 0; i < n; i++)                                                                         \
                acc += fv__radon_sample_##S(img, n, m, (T)j, (T)i);                                                 \
            out[e] = acc;                                                                                           \
        }                                                                                                           \
    }                                                                                                               \
    __global__ void fv_k_sart_dev_##S(const T *img, int64_t m, const T *proj, int64_t np, T theta, T shift, T *dev) \
    {                                                                                                               \
        FV_GRID_STRIDE(int64_t, r, np)                                                                              \
            dev[r] = fv__sart_dev_##S(img, m, theta, shift, r, proj[r]);                                            \
    }                                                                                                               \
    __global__ void fv_k_sart_scatter_##S(int64_t m, int64_t np, T theta, T shift, const T *dev, T *upd)            \
    {                                                                                                               \
        FV_GRID_STRIDE(int64_t, r, np) {                                                                            \
            fv__sart_ray_##S g = fv__sart_ray_init_##S(m, theta, (T)r + shift);                                     \
            for (int64_t k = 0; g.ns > 0 && k < g.ns + 1; k++) {                                                    \
                int64_t idx[4];                                                                                     \
                double w[4];                                                                                        \
                const unsigned in = fv__sart_terms_##S(&g, dev[r], k, m, idx, w);                                   \
                for (int q = 0; q < 4; q++)                                                                         \
                    if (in >> q & 1u)                                                                               \
                        atomicAdd(&upd[idx[q]], (T)w[q]);                                                           \
            }                                                                                                       \
        }                                                                                                           \
    }
#define FV_CU_BACKPROJECT(T, S)                                                                                        \
    __global__ void fv_k_backproject_##S(const double *f, int64_t np, int64_t na, const double *cs, int64_t n, T *out) \
    {                                                                                                                  \
        FV_GRID_STRIDE(int64_t, e, n * n)                                                                              \
            out[e] = fv__backproject_pixel_##S(f, np, na, cs, e / n - n / 2, e % n - n / 2);                           \
    }
FV_CU_BACKPROJECT(float, f)
FV_CU_BACKPROJECT(double, d)

FV_CU_RADON(float, f)
FV_CU_RADON(double, d)

/* n bytes of device scratch holding a copy of host src (src NULL: uninitialised). */
static fv_status
fv_cu_radon_scratch(fv_context *ctx, const fv_cu_exec *x, const fv_device dev, const void *src, size_t n, void **ptr,
                    void **opaque)
{
    fv_status st = fv__cuda_alloc(ctx, x->device, n ? n : 1, ptr, opaque);
    if (st || !src)
        return st;
    return fv__cuda_memcpy(ctx, *ptr, dev, src, fv_cu_radon_host, n);
}

/* Waits for the kernels, frees the scratch (may be NULL), leaves the device; st. */
static fv_status
fv_cu_radon_finish(fv_cu_exec *x, void *ptr, void *opaque, fv_status st)
{
    if (ptr) {
        (void)cudaStreamSynchronize(x->stream);
        fv__cuda_free(ptr, opaque);
    }
    fv_cu_end(x);
    return st;
}

static fv_status
fv__cuda_radon(fv_context *ctx, const fv__op_args *a)
{
    const fv__radon_params *p = (const fv__radon_params *)a->params;
    const int64_t n = a->in->shape[0], na = p->nangles;
    void *mats = NULL, *opaque = NULL;
    fv_cu_exec x;
    fv_status st;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "radon", a, n * na, &x)))
        return st;
    if (!(st = fv_cu_radon_scratch(ctx, &x, a->out->device, p->matrices, (size_t)(6 * na) * sizeof(double), &mats,
                                   &opaque))) {
        if (a->in->dtype == FV_FLOAT32)
            fv_k_radon_f<<<x.grid, x.block, 0, x.stream>>>((const float *)a->in->data, n, (const double *)mats, na,
                                                           (float *)a->out->data);
        else
            fv_k_radon_d<<<x.grid, x.block, 0, x.stream>>>((const double *)a->in->data, n, (const double *)mats, na,
                                                           (double *)a->out->data);
        st = fv_cu_launch_status("radon");
    }
    return fv_cu_radon_finish(&x, mats, opaque, st);
}

static fv_status
fv__cuda_sart(fv_context *ctx, const fv__op_args *a)
{
    const fv__sart_params *p = (const fv__sart_params *)a->params;
    const int64_t m = a->in->shape[0], np = a->in2->shape[0];
    const size_t es = fv_dtype_size(a->in->dtype);
    void *dev = NULL, *opaque = NULL;
    fv_cu_exec x;
    fv_status st;
    cudaError_t e;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "sart_projection_update", a, np, &x)))
        return st;
    if ((e = cudaMemsetAsync(a->out->data, 0, (size_t)(m * m) * es, x.stream)))
        st = fv__cuda_error("cudaMemsetAsync", e);
    else if (!(st = fv_cu_radon_scratch(ctx, &x, a->out->device, NULL, (size_t)np * es, &dev, &opaque))) {
        if (a->in->dtype == FV_FLOAT32) {
            const float th = (float)p->theta, sh = (float)p->shift;
            fv_k_sart_dev_f<<<x.grid, x.block, 0, x.stream>>>((const float *)a->in->data, m,
                                                              (const float *)a->in2->data, np, th, sh, (float *)dev);
            fv_k_sart_scatter_f<<<x.grid, x.block, 0, x.stream>>>(m, np, th, sh, (const float *)dev,
                                                                  (float *)a->out->data);
        } else {
            fv_k_sart_dev_d<<<x.grid, x.block, 0, x.stream>>>(
                (const double *)a->in->data, m, (const double *)a->in2->data, np, p->theta, p->shift, (double *)dev);
            fv_k_sart_scatter_d<<<x.grid, x.block, 0, x.stream>>>(m, np, p->theta, p->shift, (const double *)dev,
                                                                  (double *)a->out->data);
        }
        st = fv_cu_launch_status("sart_projection_update");
    }
    return fv_cu_radon_finish(&x, dev, opaque, st);
}

static fv_status
fv__cuda_backproject(fv_context *ctx, const fv__op_args *a)
{
    const fv__backproject_params *p = (const fv__backproject_params *)a->params;
    const int64_t n = a->out->shape[0], np = a->in->shape[1], na = p->nangles;
    void *cs = NULL, *opaque = NULL;
    fv_cu_exec x;
    fv_status st;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "iradon", a, n * n, &x)))
        return st;
    if (!(st = fv_cu_radon_scratch(ctx, &x, a->out->device, p->cs, (size_t)(2 * na) * sizeof(double), &cs, &opaque))) {
        if (a->out->dtype == FV_FLOAT32)
            fv_k_backproject_f<<<x.grid, x.block, 0, x.stream>>>((const double *)a->in->data, np, na,
                                                                 (const double *)cs, n, (float *)a->out->data);
        else
            fv_k_backproject_d<<<x.grid, x.block, 0, x.stream>>>((const double *)a->in->data, np, na,
                                                                 (const double *)cs, n, (double *)a->out->data);
        st = fv_cu_launch_status("iradon");
    }
    return fv_cu_radon_finish(&x, cs, opaque, st);
}

FV_KERNEL(BACKPROJECT, CUDA, FV_DTYPES_FLOAT, 2, fv__cuda_backproject);
FV_KERNEL(RADON, CUDA, FV_DTYPES_FLOAT, 2, fv__cuda_radon);
FV_KERNEL(SART, CUDA, FV_DTYPES_FLOAT, 2, fv__cuda_sart);
