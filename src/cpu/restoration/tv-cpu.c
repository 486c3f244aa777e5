/* CPU kernel of TV_CHAMBOLLE: per iteration two passes over the thread pool,
 * in blocks of rows (the last axis) of every image still iterating:
 *   1. out = in + d, d = -sum_ax p_ax + sum_ax p_ax[x - e_ax] (the divergence
 *      term, summed in scikit-image's order), partial sums of d^2;
 *   2. g = forward differences of out, p = (p - tau g) / (1 + tau / weight |g|)
 *      in place, partial sums of |g|.
 * Partial sums go to one slot per block and are added in block order, so the
 * result does not depend on the thread count. No FMA contraction
 * (CMakeLists.txt): float32 images round as NumPy's float32 arithmetic. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "alloc.h"
#include "ops/restoration/tv.h"

#define FV__TV_BLOCK 8192 /* elements per block (whole rows, at least one) */

typedef struct fv__tv_job {
    const fv__tv_params *p;
    const void *in;
    void *out, *pd;      /* pd: ndim * nchan * n dual components */
    double *part;        /* one partial sum per block */
    const uint8_t *done; /* per image */
    int64_t rows_per_block, blocks_per_img, row_len, rows;
} fv__tv_job;

/* Row r of an image: its offset and, per axis but the last, whether it has a
 * neighbour before (lo) and after (hi). */
static int64_t
fv__tv_row(const fv__tv_params *p, int64_t r, unsigned *lo, unsigned *hi)
{
    *lo = *hi = 0;
    int64_t off = r * p->shape[p->ndim - 1], q = r;
    for (int d = p->ndim - 2; d >= 0; d--) {
        int64_t c = q % p->shape[d];
        q /= p->shape[d];
        if (c > 0)
            *lo |= 1u << d;
        if (c < p->shape[d] - 1)
            *hi |= 1u << d;
    }
    return off;
}

/* Block b: its image c and rows [r0, r1); 0 when the image has stopped. */
static int
fv__tv_block(const fv__tv_job *j, int64_t b, int64_t *c, int64_t *r0, int64_t *r1)
{
    *c = b / j->blocks_per_img;
    if (j->done[*c])
        return 0;
    *r0 = (b % j->blocks_per_img) * j->rows_per_block;
    *r1 = *r0 + j->rows_per_block < j->rows ? *r0 + j->rows_per_block : j->rows;
    return 1;
}

/* 2-d rows (nd == 2): the same arithmetic as the generic loops, with the axis
 * loops unrolled and the edge tests hoisted so the compiler vectorises. */
#define FV__TV_ROWS2(T, S, SQRT)                                                                                      \
    static double fv__tv_row1_2d_##S(const T *img, T *o, const T *p0, const T *p1, int64_t off, int64_t L, int64_t W, \
                                     int lo0)                                                                         \
    {                                                                                                                 \
        double e = 0.0;                                                                                               \
        for (int64_t k = 0; k < L; k++) {                                                                             \
            const int64_t x = off + k;                                                                                \
            T dv = -(p0[x] + p1[x]);                                                                                  \
            if (lo0)                                                                                                  \
                dv += p0[x - W];                                                                                      \
            if (k > 0)                                                                                                \
                dv += p1[x - 1];                                                                                      \
            o[x] = img[x] + dv;                                                                                       \
            e += (double)dv * (double)dv;                                                                             \
        }                                                                                                             \
        return e;                                                                                                     \
    }                                                                                                                 \
    static double fv__tv_row2_2d_##S(const T *o, T *p0, T *p1, int64_t off, int64_t L, int64_t W, int hi0, T tau,     \
                                     T tw)                                                                            \
    {                                                                                                                 \
        double e = 0.0;                                                                                               \
        for (int64_t k = 0; k < L; k++) {                                                                             \
            const int64_t x = off + k;                                                                                \
            const T g0 = hi0 ? o[x + W] - o[x] : (T)0;                                                                \
            const T g1 = k < L - 1 ? o[x + 1] - o[x] : (T)0;                                                          \
            const T norm = SQRT(g0 * g0 + g1 * g1);                                                                   \
            e += (double)norm;                                                                                        \
            const T den = norm * tw + (T)1;                                                                           \
            p0[x] = (p0[x] - tau * g0) / den;                                                                         \
            p1[x] = (p1[x] - tau * g1) / den;                                                                         \
        }                                                                                                             \
        return e;                                                                                                     \
    }

FV__TV_ROWS2(float, f32, sqrtf)
FV__TV_ROWS2(double, f64, sqrt)

#define FV__TV_KERNELS(T, S, SQRT)                                                                  \
    static void fv__tv_pass1_##S(void *arg, int64_t b0, int64_t b1)                                 \
    {                                                                                               \
        fv__tv_job *j = arg;                                                                        \
        const fv__tv_params *p = j->p;                                                              \
        const int nd = p->ndim, last = nd - 1;                                                      \
        const int64_t L = j->row_len, n = p->n;                                                     \
        for (int64_t b = b0; b < b1; b++) {                                                         \
            int64_t c, r0, r1;                                                                      \
            if (!fv__tv_block(j, b, &c, &r0, &r1))                                                  \
                continue;                                                                           \
            const T *img = (const T *)j->in + c * n;                                                \
            T *o = (T *)j->out + c * n;                                                             \
            const T *pc = (const T *)j->pd + c * n * nd;                                            \
            double e = 0.0;                                                                         \
            for (int64_t r = r0; r < r1; r++) {                                                     \
                unsigned lo, hi;                                                                    \
                const int64_t off = fv__tv_row(p, r, &lo, &hi);                                     \
                if (nd == 2) {                                                                      \
                    e += fv__tv_row1_2d_##S(img, o, pc, pc + n, off, L, p->stride[0], lo & 1u);     \
                    continue;                                                                       \
                }                                                                                   \
                for (int64_t k = 0; k < L; k++) {                                                   \
                    const int64_t x = off + k;                                                      \
                    T acc = pc[x];                                                                  \
                    for (int a = 1; a < nd; a++)                                                    \
                        acc += pc[a * n + x];                                                       \
                    T dv = -acc;                                                                    \
                    for (int a = 0; a < last; a++)                                                  \
                        if (lo >> a & 1u)                                                           \
                            dv += pc[a * n + x - p->stride[a]];                                     \
                    if (k > 0)                                                                      \
                        dv += pc[last * n + x - 1];                                                 \
                    o[x] = img[x] + dv;                                                             \
                    e += (double)dv * (double)dv;                                                   \
                }                                                                                   \
            }                                                                                       \
            j->part[b] = e;                                                                         \
        }                                                                                           \
    }                                                                                               \
    static void fv__tv_pass2_##S(void *arg, int64_t b0, int64_t b1)                                 \
    {                                                                                               \
        fv__tv_job *j = arg;                                                                        \
        const fv__tv_params *p = j->p;                                                              \
        const int nd = p->ndim, last = nd - 1;                                                      \
        const int64_t L = j->row_len, n = p->n;                                                     \
        const T tau = (T)(1.0 / (2.0 * nd)), tw = (T)(1.0 / (2.0 * nd) / p->weight);                \
        for (int64_t b = b0; b < b1; b++) {                                                         \
            int64_t c, r0, r1;                                                                      \
            if (!fv__tv_block(j, b, &c, &r0, &r1))                                                  \
                continue;                                                                           \
            const T *o = (const T *)j->out + c * n;                                                 \
            T *pc = (T *)j->pd + c * n * nd;                                                        \
            double e = 0.0;                                                                         \
            for (int64_t r = r0; r < r1; r++) {                                                     \
                unsigned lo, hi;                                                                    \
                const int64_t off = fv__tv_row(p, r, &lo, &hi);                                     \
                if (nd == 2) {                                                                      \
                    e += fv__tv_row2_2d_##S(o, pc, pc + n, off, L, p->stride[0], hi & 1u, tau, tw); \
                    continue;                                                                       \
                }                                                                                   \
                for (int64_t k = 0; k < L; k++) {                                                   \
                    const int64_t x = off + k;                                                      \
                    T g[FV_MAX_NDIM];                                                               \
                    for (int a = 0; a < last; a++)                                                  \
                        g[a] = (hi >> a & 1u) ? o[x + p->stride[a]] - o[x] : (T)0;                  \
                    g[last] = k < L - 1 ? o[x + 1] - o[x] : (T)0;                                   \
                    T sq = g[0] * g[0];                                                             \
                    for (int a = 1; a < nd; a++)                                                    \
                        sq += g[a] * g[a];                                                          \
                    const T norm = SQRT(sq);                                                        \
                    e += (double)norm;                                                              \
                    const T den = norm * tw + (T)1;                                                 \
                    for (int a = 0; a < nd; a++)                                                    \
                        pc[a * n + x] = (pc[a * n + x] - tau * g[a]) / den;                         \
                }                                                                                   \
            }                                                                                       \
            j->part[b] = e;                                                                         \
        }                                                                                           \
    }

FV__TV_KERNELS(float, f32, sqrtf)
FV__TV_KERNELS(double, f64, sqrt)

static fv_status
fv__cpu_tv_chambolle(fv_context *ctx, const fv__op_args *a)
{
    const fv__tv_params *p = fv__params_TV_CHAMBOLLE(a);
    const size_t isz = fv_dtype_size(a->in->dtype);
    const int nd = p->ndim;
    fv__tv_job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.in = a->in->data;
    j.out = a->out->data;
    j.row_len = p->shape[nd - 1];
    j.rows = p->n / j.row_len;
    j.rows_per_block = FV__TV_BLOCK / j.row_len;
    if (j.rows_per_block < 1)
        j.rows_per_block = 1;
    j.blocks_per_img = (j.rows + j.rows_per_block - 1) / j.rows_per_block;
    const int64_t nblocks = j.blocks_per_img * p->nchan;
    void *pd = fv__aligned_alloc(64, (size_t)(p->n * p->nchan * nd) * isz);
    double *part = fv__malloc((size_t)nblocks * sizeof(double));
    double *state = fv__malloc((size_t)p->nchan * 3 * sizeof(double));
    uint8_t *done = fv__malloc((size_t)p->nchan);
    if (!pd || !part || !state || !done) {
        fv__free(pd);
        fv__free(part);
        fv__free(state);
        fv__free(done);
        return fv_error_set(FV_ENOMEM, "denoise_tv_chambolle", "out of host memory");
    }
    memset(pd, 0, (size_t)(p->n * p->nchan * nd) * isz);
    memset(done, 0, (size_t)p->nchan);
    j.pd = pd;
    j.part = part;
    j.done = done;
    const int f32 = a->in->dtype == FV_FLOAT32;
    const int64_t grain = 2;
    double *sum1 = state + 2 * p->nchan;
    int64_t left = p->nchan;
    for (int64_t it = 0; it < p->max_iter && left > 0; it++) {
        fv__parallel_for(ctx, nblocks, grain, f32 ? fv__tv_pass1_f32 : fv__tv_pass1_f64, &j);
        for (int64_t c = 0; c < p->nchan; c++) {
            double s = 0.0;
            for (int64_t b = 0; b < j.blocks_per_img; b++)
                s += part[c * j.blocks_per_img + b];
            sum1[c] = s;
        }
        fv__parallel_for(ctx, nblocks, grain, f32 ? fv__tv_pass2_f32 : fv__tv_pass2_f64, &j);
        for (int64_t c = 0; c < p->nchan; c++) {
            if (done[c])
                continue;
            double s = 0.0;
            for (int64_t b = 0; b < j.blocks_per_img; b++)
                s += part[c * j.blocks_per_img + b];
            if (fv__tv_converged(state + 2 * c, sum1[c] + p->weight * s, p->n, p->eps, it)) {
                done[c] = 1;
                left--;
            }
        }
    }
    fv__free(pd);
    fv__free(part);
    fv__free(state);
    fv__free(done);
    return FV_OK;
}
FV_KERNEL(TV_CHAMBOLLE, CPU, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), FV_MAX_NDIM, fv__cpu_tv_chambolle);
