/* CPU kernel of INTERP (src/ops/interpolation/interp.h): the output in rows
 * along its last axis (zoom / shift / coordinates with a short last axis, as
 * RGB's: along the longest), rows in ranges over the thread pool. Each output value
 * is the very arithmetic of interp-math.h (the CUDA kernel runs the same
 * functions), reorganised for speed as scipy's NI_ZoomShift does:
 *   - per input axis, the window (folded tap offsets, weights, or cval / NaN)
 *     of one output value is a record (fv__im_axis); ZOOMSHIFT's records
 *     depend on one output index each and are tabulated once per call;
 *     AFFINE's axes whose matrix entry along the row is 0 get one record per
 *     row; the others (and COORDS) one per value;
 *   - the weighted sum runs in loops specialised by input dtype, rank (1 to 3)
 *     and order (0, 1, 3), with the boundary already folded into the offsets;
 *     grid-constant windows that reach outside the input, and ranks above 3,
 *     take the generic fv__im_value_<S>. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/interpolation/interp.h"

typedef double (*fv__im_value_fn)(const char *, int, const int64_t *, const int64_t *, const double *, int, int,
                                  double);

typedef struct fv__im_job {
    const fv__op_args *a;
    const fv__interp_params *p;
    fv__im_value_fn value;
    fv__im_rec *tab[FV_MAX_NDIM]; /* ZOOMSHIFT: per axis, one record per output index */
    int ra;                       /* the rows' axis: out's last, or (not AFFINE) the longest if that is short */
    int failed;
} fv__im_job;

#define FV__IM_INLINE static inline __attribute__((always_inline))

/* Values of t[0..n-1] stored at p, p + s, ... as fv__im_store stores them. */
static void
fv__im_store_row(char *p, int64_t s, int dtype, const double *t, int64_t n)
{
    switch (dtype) {
#define FV__IM_ST(E, T, S)                    \
    case E:                                   \
        for (int64_t i = 0; i < n; i++)       \
            fv__im_store(p + i * s, E, t[i]); \
        break;
        FV_FOREACH_DTYPE(FV__IM_ST)
#undef FV__IM_ST
    default:
        break;
    }
}

/* One output row (o: its index on out's leading axes) into tv, then stored.
 * K_: the order (-1: p->order); R: in's rank (1..3); dt: in's dtype (-1: any). */
FV__IM_INLINE void
fv__im_row(const fv__im_job *j, const int64_t *o, double *tv, const int K_, const int R, const int dt_)
{
    const fv_array *in = j->a->in, *co = j->a->in2;
    fv_array *out = j->a->out;
    const fv__interp_params *p = j->p;
    const int K = K_ < 0 ? p->order : K_, dt = dt_ < 0 ? (int)in->dtype : dt_;
    const int orank = out->ndim, last = orank - 1, mode = p->mode, ra = j->ra;
    const int64_t W = out->shape[ra];
    const double pad = (double)p->nprepad;
    char *po = (char *)out->data;
    for (int d = 0; d < orank; d++)
        if (d != ra)
            po += o[d] * out->strides[d];
    fv__im_rec fixed[3], loc[3];
    const fv__im_rec *rp[3] = { NULL, NULL, NULL };
    int vary[3] = { 0, 0, 0 }; /* 0: rp fixed; 1: ZOOMSHIFT's table; 2: computed per value */
    double base[3] = { 0, 0, 0 }, mlast[3] = { 0, 0, 0 };
    const char *pc = NULL;
    int64_t cstep = 0, cs0 = 0;
    if (p->kind == FV__INTERP_ZOOMSHIFT) {
        for (int d = 0; d < R; d++) {
            rp[d] = j->tab[d] + o[d];
            vary[d] = d == ra;
        }
    } else if (p->kind == FV__INTERP_AFFINE) {
        for (int d = 0; d < R; d++) {
            const double *m = p->matrix + d * orank;
            double x = p->offset[d];
            for (int k = 0; k < last; k++)
                x += (double)o[k] * m[k];
            base[d] = x;
            mlast[d] = m[last];
            if (mlast[d] == 0.0) { /* x + w * 0.0 folds the same for every w */
                x += 0.0 * mlast[d];
                fv__im_rec_set(&fixed[d], x + pad, in->shape[d], in->strides[d], K, mode);
                rp[d] = &fixed[d];
            } else {
                vary[d] = 2;
            }
        }
    } else {
        pc = (const char *)co->data;
        for (int d = 0; d < orank; d++)
            if (d != ra)
                pc += o[d] * co->strides[d + 1];
        cstep = co->strides[ra + 1];
        cs0 = co->strides[0];
        for (int d = 0; d < R; d++)
            vary[d] = 3;
    }
    const char *pi = (const char *)in->data;
    for (int64_t w = 0; w < W; w++) {
        for (int d = 0; d < R; d++) {
            if (vary[d] == 1) {
                rp[d] = j->tab[d] + w;
            } else if (vary[d] >= 2) {
                double c;
                if (vary[d] == 2) {
                    c = base[d];
                    c += (double)w * mlast[d];
                } else {
                    c = fv__im_load(pc + d * cs0, co->dtype);
                }
                fv__im_rec_set(&loc[d], c + pad, in->shape[d], in->strides[d], K, mode);
                rp[d] = &loc[d];
            }
        }
        int st = FV__IMR_OK;
        for (int d = 0; d < R; d++)
            if (rp[d]->st != FV__IMR_OK) {
                st = rp[d]->st;
                break;
            }
        double t;
        if (st == FV__IMR_OK) {
            t = fv__im_sum(pi, rp, K, R, dt);
        } else if (st == FV__IMR_CVAL) {
            t = p->cval;
        } else if (st == FV__IMR_NAN) {
            t = (double)NAN;
        } else {
            double c[3];
            for (int d = 0; d < R; d++)
                c[d] = rp[d]->c;
            t = j->value(pi, R, in->shape, in->strides, c, p->order, mode, p->cval);
        }
        tv[w] = t;
        if (pc)
            pc += cstep;
    }
    fv__im_store_row(po, out->strides[ra], out->dtype, tv, W);
}

typedef void (*fv__im_row_fn)(const fv__im_job *, const int64_t *, double *);

/* The specialised row functions: fv__im_row_<dtype>_<order>_<rank>. */
#define FV__IM_ROWS_K(S, DT, K, KN)                                                         \
    static void fv__im_row_##S##_##KN##_1(const fv__im_job *j, const int64_t *o, double *t) \
    {                                                                                       \
        fv__im_row(j, o, t, K, 1, DT);                                                      \
    }                                                                                       \
    static void fv__im_row_##S##_##KN##_2(const fv__im_job *j, const int64_t *o, double *t) \
    {                                                                                       \
        fv__im_row(j, o, t, K, 2, DT);                                                      \
    }                                                                                       \
    static void fv__im_row_##S##_##KN##_3(const fv__im_job *j, const int64_t *o, double *t) \
    {                                                                                       \
        fv__im_row(j, o, t, K, 3, DT);                                                      \
    }
#define FV__IM_ROWS(S, DT)     \
    FV__IM_ROWS_K(S, DT, 0, 0) \
    FV__IM_ROWS_K(S, DT, 1, 1) \
    FV__IM_ROWS_K(S, DT, 3, 3) \
    FV__IM_ROWS_K(S, DT, -1, k)
FV__IM_ROWS(f64, FV_FLOAT64)
FV__IM_ROWS(f32, FV_FLOAT32)
FV__IM_ROWS(u8, FV_UINT8)
FV__IM_ROWS(u16, FV_UINT16)
FV__IM_ROWS(any, -1)
#undef FV__IM_ROWS
#undef FV__IM_ROWS_K

#define FV__IM_TABLE(S)                                                           \
    {                                                                             \
        { fv__im_row_##S##_0_1, fv__im_row_##S##_0_2, fv__im_row_##S##_0_3 },     \
            { fv__im_row_##S##_1_1, fv__im_row_##S##_1_2, fv__im_row_##S##_1_3 }, \
            { fv__im_row_##S##_3_1, fv__im_row_##S##_3_2, fv__im_row_##S##_3_3 }, \
        {                                                                         \
            fv__im_row_##S##_k_1, fv__im_row_##S##_k_2, fv__im_row_##S##_k_3      \
        }                                                                         \
    }
static const fv__im_row_fn fv__im_rows[5][4][3] = { FV__IM_TABLE(f64), FV__IM_TABLE(f32), FV__IM_TABLE(u8),
                                                    FV__IM_TABLE(u16), FV__IM_TABLE(any) };
#undef FV__IM_TABLE

typedef struct fv__im_rowjob {
    const fv__im_job *j;
    fv__im_row_fn fn;
    int64_t W;
    int failed;
} fv__im_rowjob;

static void
fv__im_rows_range(void *arg, int64_t begin, int64_t end)
{
    fv__im_rowjob *rj = (fv__im_rowjob *)arg;
    double *tv = (double *)malloc((size_t)rj->W * sizeof(double));
    if (!tv) {
        rj->failed = 1;
        return;
    }
    const fv_array *out = rj->j->a->out;
    const int ra = rj->j->ra;
    int64_t o[FV_MAX_NDIM], r = begin;
    for (int d = out->ndim - 1; d >= 0; d--) { /* the row's index on the other axes, C order */
        o[d] = d == ra ? 0 : r % out->shape[d];
        r = d == ra ? r : r / out->shape[d];
    }
    for (int64_t row = begin; row < end; row++) {
        rj->fn(rj->j, o, tv);
        for (int d = out->ndim - 1; d >= 0; d--) { /* the next row's index */
            if (d == ra)
                continue;
            if (++o[d] < out->shape[d])
                break;
            o[d] = 0;
        }
    }
    free(tv);
}

/* Ranks above 3: every output element on its own, in C order. */
static void
fv__im_range(void *arg, int64_t begin, int64_t end)
{
    const fv__im_job *j = (const fv__im_job *)arg;
    const fv_array *in = j->a->in, *co = j->a->in2;
    fv_array *out = j->a->out;
    const fv__interp_params *p = j->p;
    const int orank = out->ndim, irank = in->ndim;
    int64_t o[FV_MAX_NDIM];
    double c[FV_MAX_NDIM];
    int64_t r = begin;
    for (int d = orank - 1; d >= 0; d--) {
        o[d] = r % out->shape[d];
        r /= out->shape[d];
    }
    for (int64_t i = begin; i < end; i++) {
        char *po = (char *)out->data;
        const char *pc = NULL;
        for (int d = 0; d < orank; d++)
            po += o[d] * out->strides[d];
        if (co) {
            pc = (const char *)co->data;
            for (int d = 0; d < orank; d++)
                pc += o[d] * co->strides[d + 1];
        }
        fv__interp_coords(p, irank, orank, o, pc, co ? co->strides[0] : 0, co ? co->dtype : 0, c);
        const double t = j->value((const char *)in->data, irank, in->shape, in->strides, c, p->order, p->mode, p->cval);
        fv__im_store(po, out->dtype, t);
        for (int d = orank - 1; d >= 0; d--) {
            if (++o[d] < out->shape[d])
                break;
            o[d] = 0;
        }
    }
}

/* ZOOMSHIFT's records: axis d's coordinate depends on the output index along d alone. */
static fv_status
fv__im_tables(fv__im_job *j)
{
    const fv_array *in = j->a->in;
    const fv_array *out = j->a->out;
    const fv__interp_params *p = j->p;
    const int rank = in->ndim;
    int64_t most = 0;
    for (int d = 0; d < rank; d++) {
        j->tab[d] = (fv__im_rec *)malloc((size_t)out->shape[d] * sizeof(fv__im_rec));
        if (!j->tab[d])
            return fv_error_set(FV_ENOMEM, "interpolate", "out of memory for the coordinate tables");
        most = out->shape[d] > most ? out->shape[d] : most;
    }
    int64_t o[FV_MAX_NDIM];
    double c[FV_MAX_NDIM];
    for (int64_t k = 0; k < most; k++) {
        for (int d = 0; d < rank; d++)
            o[d] = k;
        fv__interp_coords(p, rank, rank, o, NULL, 0, 0, c);
        for (int d = 0; d < rank; d++)
            if (k < out->shape[d])
                fv__im_rec_set(&j->tab[d][k], c[d], in->shape[d], in->strides[d], p->order, p->mode);
    }
    return FV_OK;
}

static int
fv__im_dtype_slot(int dtype)
{
    switch (dtype) {
    case FV_FLOAT64:
        return 0;
    case FV_FLOAT32:
        return 1;
    case FV_UINT8:
        return 2;
    case FV_UINT16:
        return 3;
    default:
        return 4;
    }
}

static fv_status
fv__cpu_interp(fv_context *ctx, const fv__op_args *a)
{
    fv__im_job j;
    memset(&j, 0, sizeof j);
    j.a = a;
    j.p = fv__params_INTERP(a);
    switch (a->in->dtype) {
#define FV__IM_CASE(E, T, S)        \
    case E:                         \
        j.value = fv__im_value_##S; \
        break;
        FV_FOREACH_DTYPE(FV__IM_CASE)
#undef FV__IM_CASE
    default:
        return fv_error_set(FV_EDTYPE, "interpolate", "unsupported dtype");
    }
    const int irank = a->in->ndim, orank = a->out->ndim, order = j.p->order;
    int64_t taps = 1;
    for (int d = 0; d < irank && taps < 4096; d++)
        taps *= order + 1;
    if (irank > 3) {
        const int64_t grain = (int64_t)4096 / (taps > 64 ? 64 : taps) + 16;
        fv__parallel_for(ctx, fv_array_size(a->out), grain, fv__im_range, &j);
        return FV_OK;
    }
    fv_status st = FV_OK;
    if (j.p->kind == FV__INTERP_ZOOMSHIFT)
        st = fv__im_tables(&j);
    j.ra = orank - 1;
    if (j.p->kind != FV__INTERP_AFFINE && a->out->shape[orank - 1] < 64) /* short rows (RGB): the longest axis */
        for (int d = 0; d < orank; d++)
            if (a->out->shape[d] > a->out->shape[j.ra])
                j.ra = d;
    if (st == FV_OK) {
        const int ks = order == 0 ? 0 : order == 1 ? 1 : order == 3 ? 2 : 3;
        fv__im_rowjob rj = { &j, fv__im_rows[fv__im_dtype_slot(a->in->dtype)][ks][irank - 1], a->out->shape[j.ra], 0 };
        const int64_t rows = fv_array_size(a->out) / rj.W;
        const int64_t per_row = rj.W * (taps + 8);
        fv__parallel_for(ctx, rows, 1 + 65536 / per_row, fv__im_rows_range, &rj);
        if (rj.failed)
            st = fv_error_set(FV_ENOMEM, "interpolate", "out of memory for a row buffer");
    }
    for (int d = 0; d < irank; d++)
        free(j.tab[d]);
    return st;
}
FV_KERNEL(INTERP, CPU, FV_DTYPES_REAL | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv__cpu_interp);
