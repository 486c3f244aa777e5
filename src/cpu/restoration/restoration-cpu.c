/* CPU kernel of RL (src/ops/restoration/restoration.h): the element-wise steps
 * of Richardson-Lucy. PLACE, CMUL: flat ranges over the thread pool. DIVIDE,
 * UPDATE: rows of the grid (its last axis) over the pool, the domain's part of
 * a row computed, the rest zeroed (DIVIDE) or skipped (UPDATE). OUT: rows of
 * the domain. */
#include <string.h>
#include "internal.h"
#include "ops/restoration/restoration.h"

typedef struct fv__rl_job {
    const fv__op_args *a;
    const fv__rl_params *q;
    int64_t row_n, row_m; /* the last axis's length in the domain and the grid */
} fv__rl_job;

/* Rows are every axis but the last: grid row -> domain row (-1 outside), and back. */
static inline int64_t
domain_row(const fv__rl_params *q, int64_t r)
{
    return fv__rl_remap(q->ndim - 1, q->m, q->n, r);
}

static inline int64_t
grid_row(const fv__rl_params *q, int64_t r)
{
    return fv__rl_remap(q->ndim - 1, q->n, q->m, r);
}

#define FV__RL_RANGES(T, S)                                                                  \
    static void fv__rl_place_##S(void *arg, int64_t b, int64_t e)                            \
    {                                                                                        \
        const fv__rl_job *j = arg;                                                           \
        const T *in = (const T *)j->a->in->data;                                             \
        T *out = (T *)j->a->out->data;                                                       \
        const T v = (T)j->q->value;                                                          \
        for (int64_t g = b; g < e; g++) {                                                    \
            const int64_t k = fv__rl_place_src(j->q, g);                                     \
            out[g] = k < 0 ? (T)0 : j->q->fill ? v : in[k];                                  \
        }                                                                                    \
    }                                                                                        \
    static void fv__rl_cmul_##S(void *arg, int64_t b, int64_t e)                             \
    {                                                                                        \
        const fv__rl_job *j = arg;                                                           \
        const T *h = (const T *)j->a->in->data;                                              \
        T *c = (T *)j->a->out->data;                                                         \
        const T sg = j->q->conj ? (T)-1 : (T)1;                                              \
        for (int64_t i = b; i < e; i++) {                                                    \
            const T hr = h[2 * i], hi = sg * h[2 * i + 1], cr = c[2 * i], ci = c[2 * i + 1]; \
            c[2 * i] = cr * hr - ci * hi;                                                    \
            c[2 * i + 1] = cr * hi + ci * hr;                                                \
        }                                                                                    \
    }                                                                                        \
    static void fv__rl_divide_##S(void *arg, int64_t b, int64_t e)                           \
    {                                                                                        \
        const fv__rl_job *j = arg;                                                           \
        const T *img = (const T *)j->a->in->data;                                            \
        T *r = (T *)j->a->out->data;                                                         \
        const T eps = (T)j->q->eps, fe = (T)j->q->filter_epsilon;                            \
        const int filter = j->q->filter;                                                     \
        for (int64_t row = b; row < e; row++) {                                              \
            T *o = r + row * j->row_m;                                                       \
            const int64_t dr = domain_row(j->q, row);                                        \
            int64_t x = 0;                                                                   \
            if (dr >= 0) {                                                                   \
                const T *v = img + dr * j->row_n;                                            \
                for (; x < j->row_n; x++)                                                    \
                    o[x] = FV__RL_RELATIVE(T, v[x], o[x], eps, filter, fe);                  \
            }                                                                                \
            memset(o + x, 0, (size_t)(j->row_m - x) * sizeof(T));                            \
        }                                                                                    \
    }                                                                                        \
    static void fv__rl_update_##S(void *arg, int64_t b, int64_t e)                           \
    {                                                                                        \
        const fv__rl_job *j = arg;                                                           \
        const T *r = (const T *)j->a->in->data;                                              \
        T *est = (T *)j->a->out->data;                                                       \
        for (int64_t row = b; row < e; row++) {                                              \
            if (domain_row(j->q, row) < 0)                                                   \
                continue;                                                                    \
            const T *f = r + row * j->row_m;                                                 \
            T *o = est + row * j->row_m;                                                     \
            for (int64_t x = 0; x < j->row_n; x++)                                           \
                o[x] *= f[x];                                                                \
        }                                                                                    \
    }                                                                                        \
    static void fv__rl_out_##S(void *arg, int64_t b, int64_t e)                              \
    {                                                                                        \
        const fv__rl_job *j = arg;                                                           \
        const T *est = (const T *)j->a->in->data;                                            \
        T *out = (T *)j->a->out->data;                                                       \
        const int clip = j->q->clip;                                                         \
        for (int64_t row = b; row < e; row++) {                                              \
            const T *s = est + grid_row(j->q, row) * j->row_m;                               \
            T *o = out + row * j->row_n;                                                     \
            for (int64_t x = 0; x < j->row_n; x++)                                           \
                o[x] = FV__RL_CLIP(s[x], clip);                                              \
        }                                                                                    \
    }

FV__RL_RANGES(float, f32)
FV__RL_RANGES(double, f64)

static fv_status
fv__cpu_rl(fv_context *ctx, const fv__op_args *a)
{
    const fv__rl_params *q = fv__params_RL(a);
    const int dbl = a->out->dtype == FV_FLOAT64;
    fv__rl_job j = { a, q, q->n[q->ndim - 1], q->m[q->ndim - 1] };
    int64_t grid_rows = 1, dom_rows = 1;
    for (int d = 0; d < q->ndim - 1; d++) {
        grid_rows *= q->m[d];
        dom_rows *= q->n[d];
    }
    const int64_t row_grain = 1 + (1 << 14) / (j.row_m > 0 ? j.row_m : 1);
    switch (q->step) {
    case FV__RL_PLACE:
        fv__parallel_for(ctx, fv_array_size(a->out), 1 << 15, dbl ? fv__rl_place_f64 : fv__rl_place_f32, &j);
        return FV_OK;
    case FV__RL_CMUL:
        fv__parallel_for(ctx, fv_array_size(a->out) / 2, 1 << 15, dbl ? fv__rl_cmul_f64 : fv__rl_cmul_f32, &j);
        return FV_OK;
    case FV__RL_DIVIDE:
        fv__parallel_for(ctx, grid_rows, row_grain, dbl ? fv__rl_divide_f64 : fv__rl_divide_f32, &j);
        return FV_OK;
    case FV__RL_UPDATE:
        fv__parallel_for(ctx, grid_rows, row_grain, dbl ? fv__rl_update_f64 : fv__rl_update_f32, &j);
        return FV_OK;
    case FV__RL_OUT:
        fv__parallel_for(ctx, dom_rows, row_grain, dbl ? fv__rl_out_f64 : fv__rl_out_f32, &j);
        return FV_OK;
    default:
        return fv_error_set(FV_EINVAL, "richardson_lucy", "unknown step %d", q->step);
    }
}
FV_KERNEL(RL, CPU, FV_DTYPES_FLOAT, FV_MAX_NDIM, fv__cpu_rl);
