/* CPU kernels of FV__OP_MINMAX, FV__OP_HISTOGRAM and FV__OP_CLAHE: chunks of
 * the flat input over the thread pool, each with its own partial result,
 * merged under a lock. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fovea/exposure.h"
#include "ops/exposure/exposure.h"

/* ---- minmax --------------------------------------------------------------------- */

typedef struct fv__mm_job {
    const fv_array *in, *mask;
    pthread_mutex_t lock;
    double min, max;
    int64_t count;
    int nan;
} fv__mm_job;

/* Integers without a mask: min / max in the element type, a reduction GCC
 * vectorises (uint8: 16-32 a step instead of one through a double; 0.8 ->
 * ~0.05 ns an element). Returns 0 for the other cases (the body by dtype
 * class: B, U, I have it; F returns 0). */
#define FV__MM_INT_BODY(T)                      \
    const T *x = (const T *)j->in->data;        \
    T tlo = x[begin], thi = x[begin];           \
    for (int64_t i = begin + 1; i < end; i++) { \
        tlo = x[i] < tlo ? x[i] : tlo;          \
        thi = x[i] > thi ? x[i] : thi;          \
    }                                           \
    *lo = (double)tlo;                          \
    *hi = (double)thi;                          \
    return 1;
#define FV__MM_INT_B(T) FV__MM_INT_BODY(T)
#define FV__MM_INT_U(T) FV__MM_INT_BODY(T)
#define FV__MM_INT_I(T) FV__MM_INT_BODY(T)
#define FV__MM_INT_F(T) return 0;
#define FV__MM_INT_C(C, T) FV__MM_INT_##C(T)
#define FV__MM_INT_X(C, T) FV__MM_INT_C(C, T)
#define FV__MM_INT(E, T, S)             \
    case E: {                           \
        FV__MM_INT_X(FV_DTCLASS_##E, T) \
    }

static int
fv__mm_int_range(const fv__mm_job *j, int64_t begin, int64_t end, double *lo, double *hi)
{
    switch (j->in->dtype) {
        FV_FOREACH_DTYPE(FV__MM_INT)
    default:
        return 0;
    }
}
#undef FV__MM_INT

static void
fv__mm_range(void *arg, int64_t begin, int64_t end)
{
    fv__mm_job *j = arg;
    const uint8_t *m = j->mask ? (const uint8_t *)j->mask->data : NULL;
    double lo = INFINITY, hi = -INFINITY;
    int64_t cnt = 0;
    int nan = 0;
    if (!m && begin < end && fv__mm_int_range(j, begin, end, &lo, &hi)) {
        cnt = end - begin;
        goto merge;
    }
    switch (j->in->dtype) {
#define FV__MM_CASE(E, T, S)                    \
    case E: {                                   \
        const T *x = (const T *)j->in->data;    \
        for (int64_t i = begin; i < end; i++) { \
            if (m && !m[i])                     \
                continue;                       \
            double v = (double)x[i];            \
            cnt++;                              \
            if (v != v)                         \
                nan = 1;                        \
            else {                              \
                lo = v < lo ? v : lo;           \
                hi = v > hi ? v : hi;           \
            }                                   \
        }                                       \
        break;                                  \
    }
        FV_FOREACH_DTYPE(FV__MM_CASE)
#undef FV__MM_CASE
    default:
        break;
    }
merge:
    pthread_mutex_lock(&j->lock);
    j->count += cnt;
    j->nan |= nan;
    j->min = lo < j->min ? lo : j->min;
    j->max = hi > j->max ? hi : j->max;
    pthread_mutex_unlock(&j->lock);
}

fv_status
fv__cpu_minmax(fv_context *ctx, const fv__op_args *a)
{
    fv__minmax_params *p = (fv__minmax_params *)a->params;
    fv__mm_job j = { .in = a->in, .mask = a->in2, .min = INFINITY, .max = -INFINITY };
    pthread_mutex_init(&j.lock, NULL);
    fv__parallel_for(ctx, a->in->shape[0], 1 << 16, fv__mm_range, &j);
    pthread_mutex_destroy(&j.lock);
    p->count = j.count;
    if (j.nan)
        p->min = p->max = NAN;
    else if (j.count == 0)
        p->min = p->max = 0;
    else {
        p->min = j.min;
        p->max = j.max;
    }
    return FV_OK;
}

/* ---- histogram --------------------------------------------------------------------- */

typedef struct fv__hist_job {
    const fv_array *in, *mask;
    const fv_histogram_spec *spec;
    int64_t *counts;
    int direct; /* one chunk: count straight into counts */
    pthread_mutex_t lock;
    int failed;
} fv__hist_job;

/* 8-bit integers by value without a mask: counts per byte value in four
 * interleaved tables (no chain of increments to one counter), then into the
 * bins (uint8 512^2: ~4x faster than binning each element). 0: not this case. */
static int
fv__hist_byte_range(const fv__hist_job *j, int64_t begin, int64_t end, int64_t *h)
{
    const fv_histogram_spec *sp = j->spec;
    const fv_dtype dt = j->in->dtype;
    if (j->mask || !sp->integer || (dt != FV_UINT8 && dt != FV_INT8 && dt != FV_BOOL))
        return 0;
    const uint8_t *x = (const uint8_t *)j->in->data;
    uint32_t c[4][256];
    for (int64_t blk = begin; blk < end; blk += (int64_t)1 << 30) { /* no uint32 overflow */
        int64_t stop = end - blk > ((int64_t)1 << 30) ? blk + ((int64_t)1 << 30) : end, i = blk;
        memset(c, 0, sizeof c);
        for (; i + 4 <= stop; i += 4) {
            c[0][x[i]]++;
            c[1][x[i + 1]]++;
            c[2][x[i + 2]]++;
            c[3][x[i + 3]]++;
        }
        for (; i < stop; i++)
            c[0][x[i]]++;
        for (int v = 0; v < 256; v++) {
            int64_t b = fv__hist_int_bin(dt == FV_INT8 ? (int64_t)(int8_t)v : (int64_t)v, sp->lo, sp->nbins);
            if (b >= 0)
                h[b] += (int64_t)c[0][v] + c[1][v] + c[2][v] + c[3][v];
        }
    }
    return 1;
}

static void
fv__hist_range(void *arg, int64_t begin, int64_t end)
{
    fv__hist_job *j = arg;
    const fv_histogram_spec *sp = j->spec;
    const int64_t n = sp->nbins;
    const uint8_t *m = j->mask ? (const uint8_t *)j->mask->data : NULL;
    int64_t *h = j->direct ? j->counts : calloc((size_t)n, sizeof *h);
    if (!h) {
        pthread_mutex_lock(&j->lock);
        j->failed = 1;
        pthread_mutex_unlock(&j->lock);
        return;
    }
    if (fv__hist_byte_range(j, begin, end, h))
        goto merge;
    switch (j->in->dtype) {
#define FV__HIST_CASE(E, T, S)                                               \
    case E: {                                                                \
        const T *x = (const T *)j->in->data;                                 \
        if (sp->integer) {                                                   \
            for (int64_t i = begin; i < end; i++) {                          \
                if (m && !m[i])                                              \
                    continue;                                                \
                T v = x[i];                                                  \
                if ((double)v > 9.2e18)                                      \
                    continue;                                                \
                int64_t b = fv__hist_int_bin((int64_t)v, sp->lo, n);         \
                if (b >= 0)                                                  \
                    h[b]++;                                                  \
            }                                                                \
        } else {                                                             \
            for (int64_t i = begin; i < end; i++) {                          \
                if (m && !m[i])                                              \
                    continue;                                                \
                int64_t b = fv__hist_float_bin((double)x[i], sp, sp->edges); \
                if (b >= 0)                                                  \
                    h[b]++;                                                  \
            }                                                                \
        }                                                                    \
        break;                                                               \
    }
        FV_FOREACH_DTYPE(FV__HIST_CASE)
#undef FV__HIST_CASE
    default:
        break;
    }
merge:
    if (!j->direct) {
        pthread_mutex_lock(&j->lock);
        for (int64_t b = 0; b < n; b++)
            j->counts[b] += h[b];
        pthread_mutex_unlock(&j->lock);
        free(h);
    }
}

fv_status
fv__cpu_histogram(fv_context *ctx, const fv__op_args *a)
{
    const fv__histogram_params *p = a->params;
    const int64_t n = a->in->shape[0], nb = p->spec.nbins;
    fv__hist_job j = { .in = a->in, .mask = a->in2, .spec = &p->spec, .counts = (int64_t *)a->out->data };
    memset(j.counts, 0, (size_t)nb * sizeof(int64_t));
    pthread_mutex_init(&j.lock, NULL);
    int64_t grain = nb * 8 > ((int64_t)1 << 16) ? nb * 8 : ((int64_t)1 << 16);
    if (grain >= n) {
        j.direct = 1;
        fv__hist_range(&j, 0, n);
    } else {
        fv__parallel_for(ctx, n, grain, fv__hist_range, &j);
    }
    pthread_mutex_destroy(&j.lock);
    if (j.failed)
        return fv_error_set(FV_ENOMEM, "histogram", "out of memory for partial histograms");
    return FV_OK;
}

/* ---- CLAHE ---------------------------------------------------------------------------- */

typedef struct fv__clahe_job {
    const fv__clahe_params *p;
    const uint16_t *in;
    uint16_t *out;
    int32_t *luts;
} fv__clahe_job;

static void
fv__clahe_tiles(void *arg, int64_t begin, int64_t end)
{
    fv__clahe_job *j = arg;
    const fv__clahe_params *p = j->p;
    for (int64_t t = begin; t < end; t++) {
        int32_t *h = j->luts + t * p->nb;
        memset(h, 0, (size_t)p->nb * sizeof *h);
        for (int64_t e = 0; e < p->kelem; e++) {
            unsigned v = j->in[fv__clahe_src(p, t, e)];
            if (v > FV__CLAHE_GRAY - 1)
                v = FV__CLAHE_GRAY - 1;
            h[v / p->bin_size]++;
        }
        fv__clahe_clip(h, p->nb, p->clim);
        fv__clahe_map(h, p->nb, p->kelem);
    }
}

static void
fv__clahe_pixels(void *arg, int64_t begin, int64_t end)
{
    fv__clahe_job *j = arg;
    for (int64_t i = begin; i < end; i++)
        j->out[i] = fv__clahe_pixel(j->p, j->luts, i, j->in[i]);
}

fv_status
fv__cpu_clahe(fv_context *ctx, const fv__op_args *a)
{
    const fv__clahe_params *p = a->params;
    fv__clahe_job j = { p, (const uint16_t *)a->in->data, (uint16_t *)a->out->data, NULL };
    if (!(j.luts = malloc((size_t)(p->ntiles * p->nb) * sizeof(int32_t))))
        return fv_error_set(FV_ENOMEM, "equalize_adapthist", "out of memory");
    fv__parallel_for(ctx, p->ntiles, 1, fv__clahe_tiles, &j);
    fv__parallel_for(ctx, fv_array_size(a->in), 1 << 14, fv__clahe_pixels, &j);
    free(j.luts);
    return FV_OK;
}

FV_KERNEL(MINMAX, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_minmax);
FV_KERNEL(HISTOGRAM, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_histogram);
FV_KERNEL(CLAHE, CPU, FV_DTYPE_BIT(FV_UINT16), FV_MAX_NDIM, fv__cpu_clahe);
