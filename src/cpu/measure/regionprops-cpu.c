/* CPU kernel of FV__OP_REGION_STATS (fv_region_stats).
 *
 * The flat pixel range is cut into blocks; each block (one task on the thread
 * pool) fills its own table: count, box, and the raw moments (and weighted
 * moments, min, max per channel) of every label about a reference point, the
 * first pixel of that label the block meets. Distances to the reference stay
 * within the label's box, so the sums keep their digits however far the
 * label lies from the image origin. Then the tables are merged per label (in
 * parallel over labels): each block's moments are moved from its reference
 * to the label's box start with the binomial shift
 *     sum (x - b)^p = sum_k C(p, k) (r - b)^(p - k) sum (x - r)^k
 * and added. Blocks: one per thread of the context (each costs a table to
 * clear and to merge), fewer for small images, and their tables together stay
 * within a memory budget (one block when the label count is huge). */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "internal.h"
#include "ops/measure/regionprops.h"

#define FV__RP_BUDGET ((int64_t)256 << 20)  /* bytes of block tables */
#define FV__RP_MIN_BLOCK ((int64_t)1 << 15) /* pixels per block at least */

typedef struct fv__rp_job {
    const fv__rp_params *p;
    const void *labels;
    fv_dtype ldt;
    const double *inten; /* NULL or n * nch */
    int64_t n, nblocks;
    double *tabs;  /* nblocks * max_label * ncols */
    int64_t *refs; /* nblocks * max_label * nd; valid where count > 0 */
    double *out;
} fv__rp_job;

static inline int64_t
fv__rp_label_at(const void *base, fv_dtype dt, int64_t i)
{
    switch (dt) {
    case FV_INT8:
        return ((const int8_t *)base)[i];
    case FV_UINT8:
        return ((const uint8_t *)base)[i];
    case FV_INT16:
        return ((const int16_t *)base)[i];
    case FV_UINT16:
        return ((const uint16_t *)base)[i];
    case FV_INT32:
        return ((const int32_t *)base)[i];
    case FV_UINT32:
        return ((const uint32_t *)base)[i];
    case FV_INT64:
        return ((const int64_t *)base)[i];
    default: { /* uint64: values beyond int64 are no label */
        uint64_t v = ((const uint64_t *)base)[i];
        return v > (uint64_t)INT64_MAX ? -1 : (int64_t)v;
    }
    }
}

/* mono[0..4^nd): the products of powers 0..3 of rel[d], in C order. */
static inline void
fv__rp_monomials(int nd, const double *rel, double *mono)
{
    int64_t m = 1;
    mono[0] = 1.0;
    for (int d = 0; d < nd; d++) {
        double x = rel[d], pw[4] = { 1.0, x, x * x, x * x * x };
        for (int64_t i = m - 1; i >= 0; i--) { /* expand in place, last first */
            double v = mono[i];
            for (int k = 3; k >= 0; k--)
                mono[i * 4 + k] = v * pw[k];
        }
        m *= 4;
    }
}

/* Row initialisation: zeros, min = +inf, max = -inf per channel. */
static void
fv__rp_row_init(const fv__rp_params *p, double *row)
{
    memset(row, 0, (size_t)p->ncols * sizeof *row);
    for (int64_t c = 0; c < p->nch; c++) {
        row[fv__rp_col_ch(p, c)] = INFINITY;
        row[fv__rp_col_ch(p, c) + 1] = -INFINITY;
    }
}

static void
fv__rp_block(void *arg, int64_t b0, int64_t b1)
{
    fv__rp_job *j = arg;
    const fv__rp_params *p = j->p;
    const int nd = p->nd;
    const int64_t M = p->nmom, L = p->max_label, nc = p->ncols;
    double mono[256]; /* 4^4 */
    for (int64_t b = b0; b < b1; b++) {
        double *tab = j->tabs + b * L * nc;
        int64_t *ref = j->refs + b * L * nd;
        int64_t i0 = j->n * b / j->nblocks, i1 = j->n * (b + 1) / j->nblocks;
        int64_t x[FV__RP_MAX_NDIM], rest = i0;
        for (int d = nd - 1; d >= 0; d--) {
            x[d] = rest % p->shape[d];
            rest /= p->shape[d];
        }
        memset(tab, 0, (size_t)(L * nc) * sizeof *tab);
        for (int64_t i = i0; i < i1; i++) {
            int64_t l = fv__rp_label_at(j->labels, j->ldt, i);
            if (l > 0 && l <= L) {
                double *row = tab + (l - 1) * nc;
                int64_t *r = ref + (l - 1) * nd;
                if (row[0] == 0) {
                    fv__rp_row_init(p, row);
                    for (int d = 0; d < nd; d++) {
                        r[d] = x[d];
                        row[1 + d] = (double)x[d];
                        row[1 + nd + d] = (double)x[d] + 1;
                    }
                }
                row[0] += 1;
                double rel[FV__RP_MAX_NDIM];
                for (int d = 0; d < nd; d++) {
                    double xd = (double)x[d];
                    if (xd < row[1 + d])
                        row[1 + d] = xd;
                    if (xd + 1 > row[1 + nd + d])
                        row[1 + nd + d] = xd + 1;
                    rel[d] = (double)(x[d] - r[d]);
                }
                fv__rp_monomials(nd, rel, mono);
                double *mom = row + fv__rp_col_mom(p);
                for (int64_t k = 0; k < M; k++)
                    mom[k] += mono[k];
                for (int64_t c = 0; c < p->nch; c++) {
                    double v = j->inten[i * p->nch + c];
                    double *ch = row + fv__rp_col_ch(p, c);
                    if (v < ch[0])
                        ch[0] = v;
                    if (v > ch[1])
                        ch[1] = v;
                    for (int64_t k = 0; k < M; k++)
                        ch[2 + k] += v * mono[k];
                }
            }
            for (int d = nd - 1; d >= 0; d--) { /* next coordinate */
                if (++x[d] < p->shape[d])
                    break;
                x[d] = 0;
            }
        }
    }
}

/* Move the M moments mom (about r) to be about b: per axis, the binomial shift. */
static void
fv__rp_shift(int nd, double *mom, const double *delta /* r - b */)
{
    int64_t stride = 1;
    for (int d = nd - 1; d >= 0; d--, stride *= 4) {
        double t = delta[d];
        if (t == 0)
            continue;
        double t2 = t * t, t3 = t2 * t;
        int64_t total = stride * 4;
        int64_t M = 1;
        for (int e = 0; e < nd; e++)
            M *= 4;
        for (int64_t base = 0; base < M; base += total)
            for (int64_t s = 0; s < stride; s++) {
                double *q = mom + base + s;
                double m0 = q[0], m1 = q[stride], m2 = q[2 * stride], m3 = q[3 * stride];
                q[3 * stride] = m3 + 3 * t * m2 + 3 * t2 * m1 + t3 * m0;
                q[2 * stride] = m2 + 2 * t * m1 + t2 * m0;
                q[stride] = m1 + t * m0;
            }
    }
}

static void
fv__rp_merge(void *arg, int64_t l0, int64_t l1)
{
    fv__rp_job *j = arg;
    const fv__rp_params *p = j->p;
    const int nd = p->nd;
    const int64_t M = p->nmom, L = p->max_label, nc = p->ncols;
    double tmp[256];
    for (int64_t l = l0; l < l1; l++) {
        double *o = j->out + l * nc;
        memset(o, 0, (size_t)nc * sizeof *o);
        int first = 1;
        for (int64_t b = 0; b < j->nblocks; b++) { /* count and box */
            const double *row = j->tabs + (b * L + l) * nc;
            if (row[0] == 0)
                continue;
            if (first) {
                fv__rp_row_init(p, o);
                for (int d = 0; d < 2 * nd; d++)
                    o[1 + d] = row[1 + d];
                first = 0;
            }
            o[0] += row[0];
            for (int d = 0; d < nd; d++) {
                if (row[1 + d] < o[1 + d])
                    o[1 + d] = row[1 + d];
                if (row[1 + nd + d] > o[1 + nd + d])
                    o[1 + nd + d] = row[1 + nd + d];
            }
        }
        if (first)
            continue;
        for (int64_t b = 0; b < j->nblocks; b++) { /* moments, shifted to the box start */
            const double *row = j->tabs + (b * L + l) * nc;
            if (row[0] == 0)
                continue;
            const int64_t *r = j->refs + (b * L + l) * nd;
            double delta[FV__RP_MAX_NDIM];
            for (int d = 0; d < nd; d++)
                delta[d] = (double)r[d] - o[1 + d];
            memcpy(tmp, row + fv__rp_col_mom(p), (size_t)M * sizeof *tmp);
            fv__rp_shift(nd, tmp, delta);
            for (int64_t k = 0; k < M; k++)
                o[fv__rp_col_mom(p) + k] += tmp[k];
            for (int64_t c = 0; c < p->nch; c++) {
                const double *ch = row + fv__rp_col_ch(p, c);
                double *oc = o + fv__rp_col_ch(p, c);
                if (ch[0] < oc[0])
                    oc[0] = ch[0];
                if (ch[1] > oc[1])
                    oc[1] = ch[1];
                memcpy(tmp, ch + 2, (size_t)M * sizeof *tmp);
                fv__rp_shift(nd, tmp, delta);
                for (int64_t k = 0; k < M; k++)
                    oc[2 + k] += tmp[k];
            }
        }
    }
}

fv_status
fv__cpu_region_stats(fv_context *ctx, const fv__op_args *a)
{
    const fv__rp_params *p = a->params;
    fv__rp_job j = { .p = p,
                     .labels = a->in->data,
                     .ldt = a->in->dtype,
                     .inten = a->in2 ? (const double *)a->in2->data : NULL,
                     .n = fv_array_size(a->in),
                     .out = (double *)a->out->data };
    const int64_t L = p->max_label;
    if (L == 0)
        return FV_OK;
    const int64_t per_block = L * (p->ncols * (int64_t)sizeof(double) + p->nd * (int64_t)sizeof(int64_t));
    int64_t nb = j.n / FV__RP_MIN_BLOCK, nt = fv_context_threads(ctx);
    if (nb > nt) /* one block per thread: each block costs a table to clear and merge */
        nb = nt;
    if (nb > FV__RP_BUDGET / per_block)
        nb = FV__RP_BUDGET / per_block;
    j.nblocks = nb < 1 ? 1 : nb;
    j.tabs = malloc((size_t)(j.nblocks * L * p->ncols) * sizeof(double));
    j.refs = malloc((size_t)(j.nblocks * L * p->nd) * sizeof(int64_t));
    if (!j.tabs || !j.refs) {
        free(j.tabs);
        free(j.refs);
        return fv_error_set(FV_ENOMEM, "region_stats", "out of memory for %lld label tables", (long long)j.nblocks);
    }
    fv__parallel_for(ctx, j.nblocks, 1, fv__rp_block, &j);
    fv__parallel_for(ctx, L, 256, fv__rp_merge, &j);
    free(j.tabs);
    free(j.refs);
    return FV_OK;
}

FV_KERNEL(REGION_STATS, CPU, FV_DTYPES_INT | FV_DTYPE_BIT(FV_FLOAT64), FV__RP_MAX_NDIM + 1, fv__cpu_region_stats);
