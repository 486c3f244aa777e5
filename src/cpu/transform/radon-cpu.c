/* CPU kernels of FV__OP_RADON (angles over the thread pool, each summing its
 * rotated rows into one accumulator line in row order, as NumPy's sum(0) over
 * scikit-image's warp) and FV__OP_SART (the rays' sums over the pool, then the
 * updates added ray by ray, step by step, tap by tap: scikit-image's order, so
 * the result is its result). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/transform/radon.h"

typedef struct fv__radon_job {
    const fv_array *in, *out;
    const fv__radon_params *p;
    int failed;
} fv__radon_job;

#define FV__RADON_RANGE(T, S)                                              \
    static void fv__radon_range_##S(void *arg, int64_t b, int64_t e)       \
    {                                                                      \
        fv__radon_job *job = arg;                                          \
        const int64_t n = job->in->shape[0], na = job->p->nangles;         \
        const T *img = (const T *)job->in->data;                           \
        T *out = (T *)job->out->data;                                      \
        T *acc = malloc((size_t)n * sizeof(T));                            \
        if (!acc) {                                                        \
            job->failed = 1;                                               \
            return;                                                        \
        }                                                                  \
        for (int64_t a = b; a < e; a++) {                                  \
            T m[6];                                                        \
            for (int q = 0; q < 6; q++)                                    \
                m[q] = (T)job->p->matrices[6 * a + q];                     \
            for (int64_t j = 0; j < n; j++)                                \
                acc[j] = 0;                                                \
            for (int64_t i = 0; i < n; i++)                                \
                for (int64_t j = 0; j < n; j++)                            \
                    acc[j] += fv__radon_sample_##S(img, n, m, (T)j, (T)i); \
            for (int64_t j = 0; j < n; j++)                                \
                out[j * na + a] = acc[j];                                  \
        }                                                                  \
        free(acc);                                                         \
    }
FV__RADON_RANGE(float, f)
FV__RADON_RANGE(double, d)

static fv_status
fv__cpu_radon(fv_context *ctx, const fv__op_args *a)
{
    fv__radon_job job = { a->in, a->out, (const fv__radon_params *)a->params, 0 };
    fv__parallel_for(ctx, job.p->nangles, 1, a->in->dtype == FV_FLOAT32 ? fv__radon_range_f : fv__radon_range_d, &job);
    return job.failed ? fv_error_set(FV_ENOMEM, "radon", "out of memory") : FV_OK;
}

/* ---- SART ---------------------------------------------------------------------------------- */

typedef struct fv__sart_job {
    const fv_array *in, *proj;
    const fv__sart_params *p;
    void *dev; /* T per ray: the deviation */
} fv__sart_job;

#define FV__SART_CPU(T, S)                                                                                       \
    static void fv__sart_devs_##S(void *arg, int64_t b, int64_t e)                                               \
    {                                                                                                            \
        fv__sart_job *job = arg;                                                                                 \
        const T *proj = (const T *)job->proj->data;                                                              \
        for (int64_t r = b; r < e; r++)                                                                          \
            ((T *)job->dev)[r] = fv__sart_dev_##S((const T *)job->in->data, job->in->shape[0], (T)job->p->theta, \
                                                  (T)job->p->shift, r, proj[r]);                                 \
    }                                                                                                            \
    static void fv__sart_scatter_##S(const fv__sart_job *job, T *upd)                                            \
    {                                                                                                            \
        const int64_t m = job->in->shape[0], np = job->proj->shape[0];                                           \
        for (int64_t r = 0; r < np; r++) {                                                                       \
            fv__sart_ray_##S g = fv__sart_ray_init_##S(m, (T)job->p->theta, (T)r + (T)job->p->shift);            \
            for (int64_t k = 0; g.ns > 0 && k < g.ns + 1; k++) {                                                 \
                int64_t idx[4];                                                                                  \
                double w[4];                                                                                     \
                const unsigned in = fv__sart_terms_##S(&g, ((const T *)job->dev)[r], k, m, idx, w);              \
                for (int q = 0; q < 4; q++)                                                                      \
                    if (in >> q & 1u)                                                                            \
                        upd[idx[q]] += w[q];                                                                     \
            }                                                                                                    \
        }                                                                                                        \
    }
FV__SART_CPU(float, f)
FV__SART_CPU(double, d)

static fv_status
fv__cpu_sart(fv_context *ctx, const fv__op_args *a)
{
    const int f32 = a->in->dtype == FV_FLOAT32;
    const int64_t np = a->in2->shape[0];
    fv__sart_job job = { a->in, a->in2, (const fv__sart_params *)a->params, NULL };
    if (!(job.dev = malloc((size_t)(np ? np : 1) * (f32 ? sizeof(float) : sizeof(double)))))
        return fv_error_set(FV_ENOMEM, "sart_projection_update", "out of memory");
    memset(a->out->data, 0, (size_t)fv_array_size(a->out) * fv_dtype_size(a->out->dtype));
    fv__parallel_for(ctx, np, 16, f32 ? fv__sart_devs_f : fv__sart_devs_d, &job);
    if (f32)
        fv__sart_scatter_f(&job, (float *)a->out->data);
    else
        fv__sart_scatter_d(&job, (double *)a->out->data);
    free(job.dev);
    return FV_OK;
}

/* ---- iradon's back projection ------------------------------------------------------------- */

typedef struct fv__bp_job {
    const fv_array *in, *out;
    const fv__backproject_params *p;
} fv__bp_job;

#define FV__BP_CPU(T, S)                                                                                   \
    static void fv__bp_rows_##S(void *arg, int64_t b, int64_t e)                                           \
    {                                                                                                      \
        const fv__bp_job *job = arg;                                                                       \
        const int64_t n = job->out->shape[0], np = job->in->shape[1], radius = n / 2;                      \
        const double *f = (const double *)job->in->data;                                                   \
        T *out = (T *)job->out->data;                                                                      \
        for (int64_t r = b; r < e; r++)                                                                    \
            for (int64_t c = 0; c < n; c++)                                                                \
                out[r * n + c] =                                                                           \
                    fv__backproject_pixel_##S(f, np, job->p->nangles, job->p->cs, r - radius, c - radius); \
    }
FV__BP_CPU(float, f)
FV__BP_CPU(double, d)

static fv_status
fv__cpu_backproject(fv_context *ctx, const fv__op_args *a)
{
    fv__bp_job job = { a->in, a->out, (const fv__backproject_params *)a->params };
    fv__parallel_for(ctx, a->out->shape[0], 1, a->out->dtype == FV_FLOAT32 ? fv__bp_rows_f : fv__bp_rows_d, &job);
    return FV_OK;
}

FV_KERNEL(BACKPROJECT, CPU, FV_DTYPES_FLOAT, 2, fv__cpu_backproject);
FV_KERNEL(RADON, CPU, FV_DTYPES_FLOAT, 2, fv__cpu_radon);
FV_KERNEL(SART, CPU, FV_DTYPES_FLOAT, 2, fv__cpu_sart);
