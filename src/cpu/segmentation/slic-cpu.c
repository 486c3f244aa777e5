/* CPU kernels of FV__OP_SLIC and FV__OP_SLIC_CONNECT (fv_slic,
 * fv_slic_enforce_connectivity): scikit-image 0.26's _slic_cython and
 * _enforce_label_connectivity_cython with identical results.
 *
 * Assignment (src/ops/segmentation/slic-math.h): rows of pixels over the
 * thread pool; in a row, the centres whose windows hold it (from the bins of
 * fv__slic_near), in increasing index, each visit their columns, and a pixel
 * takes a centre strictly nearer than its best so far: scikit-image's choice
 * and its work per pixel, in a column loop the compiler vectorises.
 * Centre update: scikit-image sums each centre's pixels in raster order; here a
 * stable counting sort puts every centre's pixels in raster order (pixel ranges
 * counted and scattered in parallel) and the centres are summed in parallel,
 * each in that order: the same sums, bit for bit, in float32 as in float64.
 * The connectivity clean-up is sequential (a breadth-first scan in raster
 * order, as scikit-image's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "alloc.h"
#include "ops/segmentation/superpixels.h"
#include "ops/segmentation/slic-math.h"

typedef struct fv__slic_job {
    const fv__slic_params *p;
    fv__slic_grid g;
    int64_t H, W, C, K, F, n, none, nchunks;
    const void *img;
    const uint8_t *mask;
    int64_t *lab;
    void *seg, *maxc;
    float sw_f32, sp_f32[3];
    double sw_f64, sp_f64[3];
    uint8_t *rowflag;
    int oom; /* a worker could not allocate its row buffers */
    int64_t *cnt, *idx, *bstart;
} fv__slic_job;

/* pixel p's centre index for the update (-1: left out, as scikit-image skips it) */
static inline int64_t
fv__slic_member(const fv__slic_job *j, int64_t p)
{
    if (j->mask && !j->mask[p])
        return -1;
    const int64_t k = j->lab[p] - j->p->start_label;
    return k >= 0 && k < j->K ? k : -1;
}

static void
fv__slic_count(void *arg, int64_t b, int64_t e)
{
    fv__slic_job *j = arg;
    for (int64_t c = b; c < e; c++) {
        int64_t *cnt = j->cnt + c * j->K;
        memset(cnt, 0, sizeof *cnt * (size_t)j->K);
        for (int64_t p = c * j->n / j->nchunks; p < (c + 1) * j->n / j->nchunks; p++) {
            const int64_t k = fv__slic_member(j, p);
            if (k >= 0)
                cnt[k]++;
        }
    }
}

static void
fv__slic_scatter(void *arg, int64_t b, int64_t e)
{
    fv__slic_job *j = arg;
    for (int64_t c = b; c < e; c++) {
        int64_t *pos = j->cnt + c * j->K;
        for (int64_t p = c * j->n / j->nchunks; p < (c + 1) * j->n / j->nchunks; p++) {
            const int64_t k = fv__slic_member(j, p);
            if (k >= 0)
                j->idx[pos[k]++] = p;
        }
    }
}

/* up to this many colour channels the row loop works on a local copy of the centre */
#define FV__SLIC_CPU_MAXC 61

#define FV__SLIC_CPU(T, S)                                                                                           \
    /* One centre k (at s, its dz + dy dzy) over columns [x0, x1) of a row: strictly       \
       nearer pixels take it (the caller goes through the centres in increasing k, so that    \
       equal distances keep the lowest k, as scikit-image's centre-by-centre loop). CC: the   \
       channels (0: any, given in nc); the columns are counted in T (exact below 2^24). */                         \
    static inline void fv__slic_span_##S(const T *s, T dzy, T spx, int64_t x0, int64_t x1, T sw, const T *prow,      \
                                         const uint8_t *mrow, T mk, int ic, int sz, int32_t k, T *best, int32_t *bk, \
                                         int64_t nc, const int cc)                                                   \
    {                                                                                                                \
        const int64_t C = cc ? cc : nc;                                                                              \
        T xf = (T)x0;                                                                                                \
        for (int64_t x = x0; x < x1; x++, xf += 1) {                                                                 \
            T dx = spx * (s[2] - xf);                                                                                \
            dx *= dx;                                                                                                \
            T dist = (dzy + dx) * sw;                                                                                \
            if (!ic) {                                                                                               \
                T dc = 0;                                                                                            \
                for (int64_t c = 0; c < C; c++) {                                                                    \
                    const T t = prow[x * C + c] - s[3 + c];                                                          \
                    dc += t * t;                                                                                     \
                }                                                                                                    \
                if (sz)                                                                                              \
                    dc /= mk;                                                                                        \
                dist += dc;                                                                                          \
            }                                                                                                        \
            const int take = dist < best[x] && (!mrow || mrow[x]);                                                   \
            best[x] = take ? dist : best[x];                                                                         \
            bk[x] = take ? k : bk[x];                                                                                \
        }                                                                                                            \
    }                                                                                                                \
    /* rows b..e: the centres whose windows hold the row (fv__slic_near's bins, in         \
       increasing k), each over its columns */                         \
    static void fv__slic_assign_##S(void *arg, int64_t b, int64_t e)                                                 \
    {                                                                                                                \
        fv__slic_job *j = arg;                                                                                       \
        const fv__slic_grid *g = &j->g;                                                                              \
        const T *img = (const T *)j->img, *seg = (const T *)j->seg, *maxc = (const T *)j->maxc;                      \
        const T sp[3] = { (T)j->sp_##S[0], (T)j->sp_##S[1], (T)j->sp_##S[2] }, sw = (T)j->sw_##S;                    \
        const int ic = j->p->ignore_color, sz = j->p->slic_zero;                                                     \
        T *best = fv__malloc(sizeof(T) * (size_t)j->W + 1);                                                          \
        int32_t *bk = fv__malloc(sizeof(int32_t) * (size_t)j->W + 1);                                                \
        int32_t *cand = fv__malloc(sizeof(int32_t) * (size_t)j->K + 1);                                              \
        if (!best || !bk || !cand) {                                                                                 \
            j->oom = 1;                                                                                              \
            fv__free(best);                                                                                          \
            fv__free(bk);                                                                                            \
            fv__free(cand);                                                                                          \
            return;                                                                                                  \
        }                                                                                                            \
        for (int64_t r = b; r < e; r++) {                                                                            \
            const int64_t z = r / j->H, y = r % j->H, row = r * j->W, C = j->C, F = j->F;                            \
            const uint8_t *mrow = j->mask ? j->mask + row : NULL;                                                    \
            const T *prow = img + row * C;                                                                           \
            int64_t zlo, zhi, ylo, yhi, nc = 0;                                                                      \
            fv__slic_near(g, 0, z, &zlo, &zhi);                                                                      \
            fv__slic_near(g, 1, y, &ylo, &yhi);                                                                      \
            for (int64_t iz = zlo; iz <= zhi; iz++)                                                                  \
                for (int64_t iy = ylo; iy <= yhi; iy++)                                                              \
                    for (int64_t q = g->start[(iz * g->nb[1] + iy) * g->nb[2]];                                      \
                         q < g->start[(iz * g->nb[1] + iy + 1) * g->nb[2]]; q++) {                                   \
                        const int64_t k = g->seg_of[q], *w = g->win + 6 * k;                                         \
                        if (z < w[0] || z >= w[1] || y < w[2] || y >= w[3])                                          \
                            continue;                                                                                \
                        int64_t i = nc++; /* insertion in k order (nearly sorted already) */                         \
                        for (; i > 0 && cand[i - 1] > k; i--)                                                        \
                            cand[i] = cand[i - 1];                                                                   \
                        cand[i] = (int32_t)k;                                                                        \
                    }                                                                                                \
            for (int64_t x = 0; x < j->W; x++) {                                                                     \
                best[x] = FV__SLIC_FAR(T);                                                                           \
                bk[x] = -1;                                                                                          \
            }                                                                                                        \
            for (int64_t i = 0; i < nc; i++) {                                                                       \
                const int32_t k = cand[i];                                                                           \
                const int64_t *w = g->win + 6 * (int64_t)k;                                                          \
                T sl[3 + FV__SLIC_CPU_MAXC];                                                                         \
                const T *s = seg + k * F;                                                                            \
                if (F <= 3 + FV__SLIC_CPU_MAXC) { /* a local copy the stores cannot alias */                         \
                    for (int64_t c = 0; c < F; c++)                                                                  \
                        sl[c] = s[c];                                                                                \
                    s = sl;                                                                                          \
                }                                                                                                    \
                const T dzy = fv__slic_sq_##S(sp[0], s[0], z) + fv__slic_sq_##S(sp[1], s[1], y);                     \
                const T mk = sz ? maxc[k] : (T)1;                                                                    \
                if (C == 3)                                                                                          \
                    fv__slic_span_##S(s, dzy, sp[2], w[4], w[5], sw, prow, mrow, mk, ic, sz, k, best, bk, C, 3);     \
                else if (C == 1)                                                                                     \
                    fv__slic_span_##S(s, dzy, sp[2], w[4], w[5], sw, prow, mrow, mk, ic, sz, k, best, bk, C, 1);     \
                else                                                                                                 \
                    fv__slic_span_##S(s, dzy, sp[2], w[4], w[5], sw, prow, mrow, mk, ic, sz, k, best, bk, C, 0);     \
            }                                                                                                        \
            uint8_t any = 0;                                                                                         \
            for (int64_t x = 0; x < j->W; x++)                                                                       \
                if (bk[x] >= 0) {                                                                                    \
                    j->lab[row + x] = bk[x] + j->p->start_label;                                                     \
                    any = 1;                                                                                         \
                }                                                                                                    \
            j->rowflag[r] = any;                                                                                     \
        }                                                                                                            \
        fv__free(best);                                                                                              \
        fv__free(bk);                                                                                                \
        fv__free(cand);                                                                                              \
    }                                                                                                                \
    /* centres b..e: sums in raster order, then the means (0 / 0 = NaN for empty ones) */                            \
    static void fv__slic_sum_##S(void *arg, int64_t b, int64_t e)                                                    \
    {                                                                                                                \
        fv__slic_job *j = arg;                                                                                       \
        const T *img = (const T *)j->img;                                                                            \
        for (int64_t k = b; k < e; k++) {                                                                            \
            T *s = (T *)j->seg + k * j->F;                                                                           \
            for (int64_t c = 0; c < j->F; c++)                                                                       \
                s[c] = 0;                                                                                            \
            for (int64_t i = j->bstart[k]; i < j->bstart[k + 1]; i++) {                                              \
                const int64_t p = j->idx[i], x = p % j->W, y = p / j->W % j->H, z = p / j->W / j->H;                 \
                s[0] += (T)z;                                                                                        \
                s[1] += (T)y;                                                                                        \
                s[2] += (T)x;                                                                                        \
                for (int64_t c = 3; c < j->F; c++)                                                                   \
                    s[c] += img[p * j->C + c - 3];                                                                   \
            }                                                                                                        \
            const int64_t cnt = j->bstart[k + 1] - j->bstart[k];                                                     \
            for (int64_t c = 0; c < j->F; c++)                                                                       \
                s[c] /= cnt;                                                                                         \
        }                                                                                                            \
    }                                                                                                                \
    /* SLIC-zero: each centre's largest colour distance so far */                                                    \
    static void fv__slic_maxc_##S(void *arg, int64_t b, int64_t e)                                                   \
    {                                                                                                                \
        fv__slic_job *j = arg;                                                                                       \
        const T *img = (const T *)j->img;                                                                            \
        for (int64_t k = b; k < e; k++) {                                                                            \
            const T *s = (const T *)j->seg + k * j->F;                                                               \
            T m = ((T *)j->maxc)[k];                                                                                 \
            for (int64_t i = j->bstart[k]; i < j->bstart[k + 1]; i++) {                                              \
                const T *px = img + j->idx[i] * j->C;                                                                \
                T dc = 0;                                                                                            \
                for (int64_t c = 3; c < j->F; c++) {                                                                 \
                    const T t = px[c - 3] - s[c];                                                                    \
                    dc += t * t;                                                                                     \
                }                                                                                                    \
                if (m < dc)                                                                                          \
                    m = dc;                                                                                          \
            }                                                                                                        \
            ((T *)j->maxc)[k] = m;                                                                                   \
        }                                                                                                            \
    }                                                                                                                \
    static void fv__slic_bins_##S(fv__slic_job *j, int64_t *win, int64_t *start, int64_t *seg_of, int64_t *bin_of)   \
    {                                                                                                                \
        fv__slic_bin_##S(&j->g, (const T *)j->seg, j->K, win, start, seg_of, bin_of);                                \
    }                                                                                                                \
    static void fv__slic_maxc1_##S(fv__slic_job *j)                                                                  \
    {                                                                                                                \
        for (int64_t k = 0; k < j->K; k++)                                                                           \
            ((T *)j->maxc)[k] = 1;                                                                                   \
    }
FV__SLIC_CPU(float, f32)
FV__SLIC_CPU(double, f64)

static fv_status
fv__cpu_slic(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "slic";
    const fv__slic_params *p = fv__params_SLIC(a);
    const int f32 = a->in->dtype == FV_FLOAT32;
    fv__slic_job j = { .p = p };
    j.g.dim[0] = a->in->shape[0];
    j.g.dim[1] = j.H = a->in->shape[1];
    j.g.dim[2] = j.W = a->in->shape[2];
    j.C = a->in->shape[3];
    j.K = p->segments->shape[0];
    j.F = j.g.nfeat = p->segments->shape[1];
    j.n = j.g.dim[0] * j.H * j.W;
    j.none = p->start_label - 1;
    j.img = a->in->data;
    j.mask = a->in2 ? (const uint8_t *)a->in2->data : NULL;
    j.lab = (int64_t *)a->out->data;
    j.seg = p->segments->data;
    const int64_t steps[3] = { p->step_z, p->step_y, p->step_x };
    int64_t nbins = 1;
    for (int d = 0; d < 3; d++) {
        j.g.step[d] = steps[d] < 1 ? 1 : steps[d];
        j.g.nb[d] = (j.g.dim[d] + j.g.step[d] - 1) / j.g.step[d];
        if (j.g.nb[d] < 1)
            j.g.nb[d] = 1;
        nbins *= j.g.nb[d];
        j.sp_f32[d] = (float)p->spacing[d];
        j.sp_f64[d] = p->spacing[d];
    }
    /* skimage: spatial_weight = 1.0 / (step * step), step a float32 */
    j.sw_f32 = (float)(1.0 / (p->step * p->step));
    j.sw_f64 = 1.0 / (p->step * p->step);
    const int64_t rows = j.g.dim[0] * j.H;
    j.nchunks = j.n / 65536 + 1;
    if (j.nchunks > 64)
        j.nchunks = 64;
    while (j.nchunks > 1 && j.nchunks * j.K > ((int64_t)1 << 24))
        j.nchunks /= 2;
    int64_t *win = fv__malloc(sizeof(int64_t) * (size_t)(6 * j.K + 1));
    int64_t *start = fv__malloc(sizeof(int64_t) * (size_t)(nbins + 1));
    int64_t *seg_of = fv__malloc(sizeof(int64_t) * (size_t)(2 * j.K + 1));
    j.rowflag = fv__malloc((size_t)rows + 1);
    j.cnt = fv__malloc(sizeof(int64_t) * (size_t)(j.nchunks * j.K + 1));
    j.idx = fv__malloc(sizeof(int64_t) * (size_t)(j.n + 1));
    j.bstart = fv__malloc(sizeof(int64_t) * (size_t)(j.K + 1));
    j.maxc = fv__malloc((f32 ? sizeof(float) : sizeof(double)) * (size_t)(j.K + 1));
    fv_status st = FV_OK;
    if (!win || !start || !seg_of || !j.rowflag || !j.cnt || !j.idx || !j.bstart || !j.maxc) {
        st = fv_error_set(FV_ENOMEM, name, "out of memory");
        goto done;
    }
    j.g.win = win;
    j.g.start = start;
    j.g.seg_of = seg_of;
    for (int64_t q = 0; q < j.n; q++)
        j.lab[q] = j.none;
    if (f32)
        fv__slic_maxc1_f32(&j);
    else
        fv__slic_maxc1_f64(&j);
    for (int64_t it = 0; it < p->max_num_iter; it++) {
        if (f32)
            fv__slic_bins_f32(&j, win, start, seg_of, seg_of + j.K);
        else
            fv__slic_bins_f64(&j, win, start, seg_of, seg_of + j.K);
        fv__parallel_for(ctx, rows, 1 + 4096 / (j.W + 1), f32 ? fv__slic_assign_f32 : fv__slic_assign_f64, &j);
        if (j.oom) {
            st = fv_error_set(FV_ENOMEM, name, "out of memory");
            goto done;
        }
        int changed = 0;
        for (int64_t r = 0; r < rows && !changed; r++)
            changed = j.rowflag[r];
        if (!changed)
            break;
        /* stable counting sort of the members by centre */
        fv__parallel_for(ctx, j.nchunks, 1, fv__slic_count, &j);
        int64_t run = 0;
        for (int64_t k = 0; k < j.K; k++) {
            j.bstart[k] = run;
            for (int64_t c = 0; c < j.nchunks; c++) {
                const int64_t v = j.cnt[c * j.K + k];
                j.cnt[c * j.K + k] = run;
                run += v;
            }
        }
        j.bstart[j.K] = run;
        fv__parallel_for(ctx, j.nchunks, 1, fv__slic_scatter, &j);
        fv__parallel_for(ctx, j.K, 4, f32 ? fv__slic_sum_f32 : fv__slic_sum_f64, &j);
        if (p->slic_zero)
            fv__parallel_for(ctx, j.K, 4, f32 ? fv__slic_maxc_f32 : fv__slic_maxc_f64, &j);
    }
done:
    fv__free(win);
    fv__free(start);
    fv__free(seg_of);
    fv__free(j.rowflag);
    fv__free(j.cnt);
    fv__free(j.idx);
    fv__free(j.bstart);
    fv__free(j.maxc);
    return st;
}
FV_KERNEL(SLIC, CPU,
          FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64) | FV_DTYPE_BIT(FV_BOOL) | FV_DTYPE_BIT(FV_INT64), 4,
          fv__cpu_slic);

static fv_status
fv__cpu_slic_connect(fv_context *ctx, const fv__op_args *a)
{
    (void)ctx;
    const fv__slic_connect_params *p = fv__params_SLIC_CONNECT(a);
    const int64_t cap = p->max_size > 1 ? p->max_size : 1;
    int64_t *list = fv__malloc(sizeof(int64_t) * (size_t)cap);
    if (!list)
        return fv_error_set(FV_ENOMEM, "slic", "out of memory");
    fv__slic_connect((const int64_t *)a->in->data, (int64_t *)a->out->data, a->in->shape[0], a->in->shape[1],
                     a->in->shape[2], p->min_size, p->max_size, p->start_label, list);
    fv__free(list);
    return FV_OK;
}
FV_KERNEL(SLIC_CONNECT, CPU, FV_DTYPE_BIT(FV_INT64), 3, fv__cpu_slic_connect);
