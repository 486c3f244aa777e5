/* CPU kernel of FV__OP_HESSIAN_RIDGE (fv_hessian_ridge): one loop over the
 * pixels on the thread pool per pass, the per-pixel math of
 * ops/filters/ridge-kernels.h. The max reductions (NORM, MEIJ) keep one
 * partial per chunk and fold it into an atomic key (the value's bits, which
 * order like non-negative values; NaN wins as in NumPy's max). */
#include <stdatomic.h>
#include "filters-cpu.h"
#include "ops/filters/ridge.h"

#define FV__RIDGE_GRAIN 4096

typedef struct fv__ridge_cpu {
    const fv__ridge_job *j;
    double gden; /* frangi's 2 gamma^2 in the working type */
    double m;    /* MEIJ_FOLD: the max */
    _Atomic int64_t key;
} fv__ridge_cpu;

static void
fv__ridge_cpu_chunk_f(void *arg, int64_t begin, int64_t end)
{
    fv__ridge_cpu *c = (fv__ridge_cpu *)arg;
    const fv__ridge_job *j = c->j;
    const float gden = (float)c->gden, m = (float)c->m;
    const int reduce = j->pass == FV__RIDGE_PASS_NORM || j->pass == FV__RIDGE_PASS_MEIJ;
    int32_t best = 0;
    for (int64_t i = begin; i < end; i++) {
        float v = fv__ridge_pixel_f(j, i, gden, m);
        if (reduce) {
            int32_t k = fv__ridge_key_f(v);
            best = k > best ? k : best;
        }
    }
    if (reduce) {
        int64_t cur = atomic_load(&c->key);
        while (best > cur && !atomic_compare_exchange_weak(&c->key, &cur, (int64_t)best)) {
        }
    }
}

static void
fv__ridge_cpu_chunk_d(void *arg, int64_t begin, int64_t end)
{
    fv__ridge_cpu *c = (fv__ridge_cpu *)arg;
    const fv__ridge_job *j = c->j;
    const int reduce = j->pass == FV__RIDGE_PASS_NORM || j->pass == FV__RIDGE_PASS_MEIJ;
    int64_t best = 0;
    for (int64_t i = begin; i < end; i++) {
        double v = fv__ridge_pixel_d(j, i, c->gden, c->m);
        if (reduce) {
            int64_t k = fv__ridge_key_d(v);
            best = k > best ? k : best;
        }
    }
    if (reduce) {
        int64_t cur = atomic_load(&c->key);
        while (best > cur && !atomic_compare_exchange_weak(&c->key, &cur, best)) {
        }
    }
}

static fv_status
fv__cpu_hessian_ridge(fv_context *ctx, const fv__op_args *a)
{
    const fv__ridge_job *j = (const fv__ridge_job *)a->params;
    fv__ridge_cpu c;
    c.j = j;
    c.gden = j->gamma_den;
    c.m = 0;
    atomic_init(&c.key, 0);
    if (j->is_double) {
        if (j->pass == FV__RIDGE_PASS_FOLD && j->gamma_from_scal)
            c.gden = fv__ridge_gden_d(*(const double *)j->scal);
        if (j->pass == FV__RIDGE_PASS_MEIJ_FOLD)
            c.m = *(const double *)j->scal;
    } else {
        if (j->pass == FV__RIDGE_PASS_FOLD && j->gamma_from_scal)
            c.gden = fv__ridge_gden_f(*(const float *)j->scal);
        else if (j->pass == FV__RIDGE_PASS_FOLD)
            c.gden = (float)j->gamma_den;
        if (j->pass == FV__RIDGE_PASS_MEIJ_FOLD)
            c.m = *(const float *)j->scal;
    }
    fv__parallel_for(ctx, j->n, FV__RIDGE_GRAIN, j->is_double ? fv__ridge_cpu_chunk_d : fv__ridge_cpu_chunk_f, &c);
    if (j->pass == FV__RIDGE_PASS_NORM || j->pass == FV__RIDGE_PASS_MEIJ) {
        int64_t key = atomic_load(&c.key);
        if (j->is_double)
            *(double *)j->scal = fv__ridge_unkey_d(key);
        else
            *(float *)j->scal = fv__ridge_unkey_f((int32_t)key);
    }
    return FV_OK;
}

FV_KERNEL(HESSIAN_RIDGE, CPU, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), FV_MAX_NDIM, fv__cpu_hessian_ridge);
