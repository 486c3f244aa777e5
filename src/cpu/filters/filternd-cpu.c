/* FV__OP_FILTERND on the CPU: correlate, minimum / maximum (with an optional
 * structure) and rank over a footprint, with scipy's results (ni_filters.c:
 * NI_Correlate, NI_MinOrMaxFilter, NI_RankFilter).
 *
 * Output is computed by lines along the last axis, in chunks of C outputs. For
 * each selected window element (in C order, as scipy visits them) the source
 * line it reads is one input line shifted along the last axis; the source lines
 * are converted once into padded buffers (boundary extension included; cache
 * per work item), and every window element then updates the whole chunk with
 * one contiguous loop. Per output the operations happen in scipy's order. */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "filters-cpu.h"
#include "rank-network.h"
#include "filters-simd.h"

#define FV__FND_BUDGET (1 << 19) /* bytes of line cache / rank values per work item */

static inline size_t
fv__round8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static inline int64_t
fv__imin(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* ---- per-dtype pieces ------------------------------------------------------------ */

/* Padded source line: dst[q] for q in [0, n) reads position pos0 + q of a line
 * of length W (stride vs), with the boundary extension; cval outside under
 * constant mode. Two flavours: to double (correlate), to the input type. */
typedef void (*fv__dline_fn)(double *dst, const char *base, int64_t vs, int64_t pos0, int64_t n, int64_t W, int mode,
                             double cval);
typedef void (*fv__tline_fn)(void *dst, const char *base, int64_t vs, int64_t pos0, int64_t n, int64_t W, int mode,
                             double cval);
/* Store n doubles into output positions (stride os). */
typedef void (*fv__store_fn)(char *dst, int64_t os, const double *src, int64_t n);

#define FV__LINE_BODY(T, DT, CV)                                 \
    int64_t q = 0;                                               \
    for (; q < n && pos0 + q < 0; q++) {                         \
        int64_t s = fv__extend_index(pos0 + q, W, mode);         \
        d[q] = s < 0 ? (CV) : (DT) * (const T *)(base + s * vs); \
    }                                                            \
    int64_t qe = fv__imin(n, W - pos0);                          \
    if (q < qe) {                                                \
        const char *p0 = base + (pos0 + q) * vs;                 \
        if (vs == (int64_t)sizeof(T)) {                          \
            const T *restrict sp = (const T *)p0;                \
            for (int64_t i = 0; i < qe - q; i++)                 \
                d[q + i] = (DT)sp[i];                            \
        } else                                                   \
            for (int64_t i = 0; i < qe - q; i++)                 \
                d[q + i] = (DT) * (const T *)(p0 + i * vs);      \
        q = qe;                                                  \
    }                                                            \
    for (; q < n; q++) {                                         \
        int64_t s = fv__extend_index(pos0 + q, W, mode);         \
        d[q] = s < 0 ? (CV) : (DT) * (const T *)(base + s * vs); \
    }

#define FV__LINES(E, T, S)                                                                                          \
    static void fv__dline_##S(double *restrict d, const char *base, int64_t vs, int64_t pos0, int64_t n, int64_t W, \
                              int mode, double cval)                                                                \
    {                                                                                                               \
        FV__LINE_BODY(T, double, cval)                                                                              \
    }                                                                                                               \
    static void fv__tline_##S(void *dv, const char *base, int64_t vs, int64_t pos0, int64_t n, int64_t W, int mode, \
                              double cval)                                                                          \
    {                                                                                                               \
        T *restrict d = dv;                                                                                         \
        const T cv = fv__fcast_##S(cval);                                                                           \
        FV__LINE_BODY(T, T, cv)                                                                                     \
    }                                                                                                               \
    static void fv__store_##S(char *dst, int64_t os, const double *restrict src, int64_t n)                         \
    {                                                                                                               \
        if (os == (int64_t)sizeof(T)) {                                                                             \
            T *restrict d = (T *)dst;                                                                               \
            for (int64_t i = 0; i < n; i++)                                                                         \
                d[i] = fv__fst_##S(src[i]);                                                                         \
        } else                                                                                                      \
            for (int64_t i = 0; i < n; i++)                                                                         \
                *(T *)(dst + i * os) = fv__fst_##S(src[i]);                                                         \
    }
FV_FOREACH_DTYPE(FV__LINES)

/* scipy's n-d filters store unsigned results with `x > -1 ? (T)x : -(T)(-x)`;
 * for every unsigned type but uint64 that equals the 1-d store. */
static void
fv__store_u64_nd(char *dst, int64_t os, const double *restrict src, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double x = src[i];
        *(uint64_t *)(dst + i * os) = x > -1.0 ? fv__cvtu64(x) : (uint64_t)0 - fv__cvtu64(-x);
    }
}

/* ---- the job ------------------------------------------------------------------------ */

typedef struct fv__fnd_tap {
    int64_t j; /* offset along the last axis inside the padded line */
    double w;  /* CORRELATE: weight; MIN/MAX: structure value (sign applied) */
} fv__fnd_tap;

typedef struct fv__fnd_job fv__fnd_job;
typedef struct fv__fnd_state {
    int first; /* no element applied yet */
    int nan;   /* RANK: a NaN or -0.0 among the values (FV__SELECT_ONLY) */
    int64_t t; /* RANK: values gathered so far */
} fv__fnd_state;
typedef void (*fv__fnd_row_fn)(const fv__fnd_job *j, fv__fnd_state *st, int64_t row, const void *line, int64_t n,
                               double *res, void *scratch);
typedef void (*fv__fnd_fin_fn)(const fv__fnd_job *j, fv__fnd_state *st, int64_t n, double *res, void *scratch);

struct fv__fnd_job {
    const fv__filternd_params *p;
    const fv_array *in;
    fv_array *out;
    int nd;
    int64_t W, nlines, C, nchunks;
    int64_t blast; /* halo before along the last axis */
    int64_t plen;  /* padded line length for a full chunk */
    /* window rows: the lead (all but the last axis) combinations with a selected element */
    int64_t nrows;
    int64_t *rel;       /* [nrows][nd - 1] offsets of the row, relative to the output */
    int64_t *row_first; /* [nrows + 1] index of the row's first tap */
    fv__fnd_tap *taps;  /* [count] in C order */
    int64_t count, rank;
    int ismin, has_structure;
    size_t itemsize; /* of the padded lines: double (correlate) or the input's */
    int64_t nslots;  /* line cache slots (power of two) */
    int slot_bits;
    fv__dline_fn dline;
    fv__tline_fn tline;
    fv__store_fn store;
    fv__fnd_row_fn row; /* MIN/MAX/RANK per input dtype */
    fv__fnd_fin_fn fin;
    const fv__rank_net *net; /* RANK: selection network, or NULL */
    size_t scratch_bytes;    /* per work item, for typed */
    atomic_int failed;
};

/* ---- min / max / rank per input dtype ------------------------------------------------ */

#define FV__TADD_U(S, T, a, b) ((T)((FV_UWIDE_##S)(a) + (FV_UWIDE_##S)(b)))
#define FV__TADD_B(S, T, a, b) FV__TADD_U(S, T, a, b)
#define FV__TADD_I(S, T, a, b) FV__TADD_U(S, T, a, b)
#define FV__TADD_F(S, T, a, b) ((T)((a) + (b)))
#define FV__TADD_X(C, S, T, a, b) FV__TADD_##C(S, T, a, b)
#define FV__TADD_E(C, S, T, a, b) FV__TADD_X(C, S, T, a, b)
#define FV__TADD(E, S, T, a, b) FV__TADD_E(FV__CLASS(E), S, T, a, b)

/* A value after which only scipy's quickselect gives scipy's bits: NaN, and
 * -0.0 (equal to +0.0, so which zero a network selects depends on its order) */
#define FV__SELECT_ONLY_B(x) 0
#define FV__SELECT_ONLY_U(x) 0
#define FV__SELECT_ONLY_I(x) 0
#define FV__SELECT_ONLY_F(x) (((x) != (x)) | (((x) == 0) & (signbit(x) != 0)))
#define FV__SELECT_ONLY_X(C, x) FV__SELECT_ONLY_##C(x)
#define FV__SELECT_ONLY_E(C, x) FV__SELECT_ONLY_X(C, x)
#define FV__SELECT_ONLY(E, x) FV__SELECT_ONLY_E(FV__CLASS(E), x)

/* Per work item, the rows of the window are applied one after the other
 * (row() with the row's padded source line), then finish() writes the doubles
 * to store. Per output, elements are taken in C order. */
#define FV__TYPED(E, T, S)                                                                                            \
    /* scipy's CASE_MIN_OR_MAX_POINT: the first element in double (structure added in     \
     * double), the others in the input type (structure cast to it, wrapping sums) */                           \
    static void fv__fnd_minmax_row_##S(const fv__fnd_job *j, fv__fnd_state *st, int64_t row, const void *lp,          \
                                       int64_t n, double *restrict res, void *scratch)                                \
    {                                                                                                                 \
        const fv__fnd_tap *taps = j->taps;                                                                            \
        const T *line = lp;                                                                                           \
        T *restrict r = scratch;                                                                                      \
        for (int64_t t = j->row_first[row]; t < j->row_first[row + 1]; t++) {                                         \
            const T *restrict v = line + taps[t].j;                                                                   \
            if (!j->has_structure) {                                                                                  \
                if (st->first) {                                                                                      \
                    memcpy(r, v, (size_t)n * sizeof(T));                                                              \
                    st->first = 0;                                                                                    \
                } else if (j->ismin) {                                                                                \
                    fv__vmin_##S(r, v, r, n); /* v < r ? v : r */                                                     \
                } else {                                                                                              \
                    fv__vmax_##S(r, v, r, n); /* v > r ? v : r */                                                     \
                }                                                                                                     \
                continue;                                                                                             \
            }                                                                                                         \
            if (st->first) {                                                                                          \
                const double s0 = taps[t].w;                                                                          \
                for (int64_t i = 0; i < n; i++)                                                                       \
                    res[i] = (double)v[i] + s0;                                                                       \
                st->first = 0;                                                                                        \
                continue;                                                                                             \
            }                                                                                                         \
            const T cs = fv__fcast_##S(taps[t].w);                                                                    \
            if (j->ismin) {                                                                                           \
                for (int64_t i = 0; i < n; i++) {                                                                     \
                    double tv = (double)FV__TADD(E, S, T, v[i], cs);                                                  \
                    res[i] = tv < res[i] ? tv : res[i];                                                               \
                }                                                                                                     \
            } else {                                                                                                  \
                for (int64_t i = 0; i < n; i++) {                                                                     \
                    double tv = (double)FV__TADD(E, S, T, v[i], cs);                                                  \
                    res[i] = tv > res[i] ? tv : res[i];                                                               \
                }                                                                                                     \
            }                                                                                                         \
        }                                                                                                             \
    }                                                                                                                 \
    static void fv__fnd_minmax_fin_##S(const fv__fnd_job *j, fv__fnd_state *st, int64_t n, double *restrict res,      \
                                       void *scratch)                                                                 \
    {                                                                                                                 \
        if (j->has_structure)                                                                                         \
            return;                                                                                                   \
        const T *restrict r = scratch;                                                                                \
        for (int64_t i = 0; i < n; i++)                                                                               \
            res[i] = (double)r[i];                                                                                    \
    }                                                                                                                 \
    /* scipy's CASE_RANK_POINT: the rank-th of the window's values (cval cast to the       \
     * input type). A selection network over the chunk where it applies and no NaN or    \
     * -0.0 is present; else scipy's own quickselect on the values in C order. */                          \
    static void fv__fnd_rank_row_##S(const fv__fnd_job *j, fv__fnd_state *st, int64_t row, const void *lp, int64_t n, \
                                     double *restrict res, void *scratch)                                             \
    {                                                                                                                 \
        const fv__fnd_tap *taps = j->taps;                                                                            \
        const T *line = lp;                                                                                           \
        T *restrict V = scratch; /* [count][n] */                                                                     \
        int nan = 0;                                                                                                  \
        for (int64_t k = j->row_first[row]; k < j->row_first[row + 1]; k++, st->t++) {                                \
            const T *restrict v = line + taps[k].j;                                                                   \
            memcpy(V + st->t * n, v, (size_t)n * sizeof(T));                                                          \
            for (int64_t i = 0; i < n; i++)                                                                           \
                nan |= FV__SELECT_ONLY(E, v[i]);                                                                      \
        }                                                                                                             \
        st->nan |= nan;                                                                                               \
    }                                                                                                                 \
    static void fv__fnd_rank_fin_##S(const fv__fnd_job *j, fv__fnd_state *st, int64_t n, double *restrict res,        \
                                     void *scratch)                                                                   \
    {                                                                                                                 \
        const int64_t count = j->count;                                                                               \
        T *restrict V = scratch;                                                                                      \
        if (j->net && !st->nan) {                                                                                     \
            const fv__rank_cmp *c = j->net->cmp;                                                                      \
            for (int64_t k = 0; k < j->net->ncmp; k++) {                                                              \
                T *restrict a = V + (int64_t)c[k].a * n, *restrict b = V + (int64_t)c[k].b * n;                       \
                if (c[k].op == FV__RANK_CMP_BOTH)                                                                     \
                    fv__vcx_##S(a, b, n);                                                                             \
                else if (c[k].op == FV__RANK_CMP_MIN)                                                                 \
                    fv__vmin_##S(a, b, a, n); /* b < a ? b : a */                                                     \
                else                                                                                                  \
                    fv__vmax_##S(b, a, b, n); /* a > b ? a : b */                                                     \
            }                                                                                                         \
            const T *restrict r = V + j->rank * n;                                                                    \
            for (int64_t i = 0; i < n; i++) /* scipy: (_type) of the double result */                                 \
                res[i] = (double)fv__fcast_##S((double)r[i]);                                                         \
            return;                                                                                                   \
        }                                                                                                             \
        double *buf = (double *)((char *)scratch + fv__round8((size_t)(count * n) * sizeof(T)));                      \
        for (int64_t i = 0; i < n; i++) {                                                                             \
            for (int64_t k = 0; k < count; k++)                                                                       \
                buf[k] = (double)V[k * n + i];                                                                        \
            res[i] = (double)fv__fcast_##S(fv__ni_select(buf, count - 1, j->rank));                                   \
        }                                                                                                             \
    }

FV_FOREACH_DTYPE(FV__TYPED)

static const fv__dline_fn fv__dlines[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__dline_);
static const fv__tline_fn fv__tlines[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__tline_);
static const fv__store_fn fv__stores[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__store_);
static const fv__fnd_row_fn fv__minmax_rows[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__fnd_minmax_row_);
static const fv__fnd_fin_fn fv__minmax_fins[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__fnd_minmax_fin_);
static const fv__fnd_row_fn fv__rank_rows[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__fnd_rank_row_);
static const fv__fnd_fin_fn fv__rank_fins[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__fnd_rank_fin_);

/* ---- the driver ----------------------------------------------------------------------- */

/* acc[i] += w * line[i + j] for the row's elements in order; blocks of 4
 * vectors of outputs stay in registers across the row (SSE2 and AVX2 builds). */
#define FV__ROW_KERNEL(NAME, VT, NL, SPLAT, ATTR)                                                                      \
    ATTR static void NAME(const fv__fnd_tap *taps, int64_t t0, int64_t t1, const double *line, int64_t n, double *acc) \
    {                                                                                                                  \
        int64_t i = 0;                                                                                                 \
        for (; i + 4 * NL <= n; i += 4 * NL) {                                                                         \
            VT a0 = FV__LDV(VT, acc + i), a1 = FV__LDV(VT, acc + i + NL);                                              \
            VT a2 = FV__LDV(VT, acc + i + 2 * NL), a3 = FV__LDV(VT, acc + i + 3 * NL);                                 \
            for (int64_t t = t0; t < t1; t++) {                                                                        \
                const double *v = line + taps[t].j + i;                                                                \
                const VT w = SPLAT(taps[t].w);                                                                         \
                a0 += w * FV__LDV(VT, v);                                                                              \
                a1 += w * FV__LDV(VT, v + NL);                                                                         \
                a2 += w * FV__LDV(VT, v + 2 * NL);                                                                     \
                a3 += w * FV__LDV(VT, v + 3 * NL);                                                                     \
            }                                                                                                          \
            FV__STV(acc + i, a0);                                                                                      \
            FV__STV(acc + i + NL, a1);                                                                                 \
            FV__STV(acc + i + 2 * NL, a2);                                                                             \
            FV__STV(acc + i + 3 * NL, a3);                                                                             \
        }                                                                                                              \
        for (; i < n; i++) {                                                                                           \
            double a = acc[i];                                                                                         \
            for (int64_t t = t0; t < t1; t++)                                                                          \
                a += taps[t].w * line[taps[t].j + i];                                                                  \
            acc[i] = a;                                                                                                \
        }                                                                                                              \
    }
FV__ROW_KERNEL(fv__fnd_corr_v2, fv__v2d, 2, FV__SPLAT2, )
#if FV__HAVE_AVX2_CLONES
FV__ROW_KERNEL(fv__fnd_corr_v4, fv__v4d, 4, FV__SPLAT4, __attribute__((target("avx2"))))
#endif

static void
fv__fnd_correlate_row(const fv__fnd_job *j, fv__fnd_state *st, int64_t row, const void *lp, int64_t n,
                      double *restrict acc, void *scratch)
{
    fv__fnd_corr_v2(j->taps, j->row_first[row], j->row_first[row + 1], lp, n, acc);
}

#if FV__HAVE_AVX2_CLONES
static void
fv__fnd_correlate_row_avx2(const fv__fnd_job *j, fv__fnd_state *st, int64_t row, const void *lp, int64_t n,
                           double *restrict acc, void *scratch)
{
    fv__fnd_corr_v4(j->taps, j->row_first[row], j->row_first[row + 1], lp, n, acc);
}
#endif

static void
fv__fnd_range(void *arg, int64_t begin, int64_t end)
{
    fv__fnd_job *j = arg;
    const fv__filternd_params *p = j->p;
    const fv_array *in = j->in;
    fv_array *out = j->out;
    const int nd = j->nd, lead = nd - 1;
    const size_t lbytes = (size_t)j->plen * j->itemsize;
    size_t off = 0;
    const size_t ocache = fv__carve(&off, (size_t)j->nslots * lbytes);
    const size_t okeys = fv__carve(&off, (size_t)j->nslots * sizeof(int64_t));
    const size_t ocline = fv__carve(&off, lbytes); /* the all-cval line */
    const size_t ores = fv__carve(&off, (size_t)j->C * sizeof(double));
    const size_t oscr = fv__carve(&off, j->scratch_bytes);
    char *block = fv__scratch_get(off);
    if (!block) {
        atomic_store(&j->failed, 1);
        return;
    }
    char *cache = block + ocache, *cline = block + ocline;
    int64_t *keys = (int64_t *)(block + okeys);
    double *res = (double *)(block + ores);
    void *scratch = j->scratch_bytes ? block + oscr : NULL;
    for (int64_t s = 0; s < j->nslots; s++)
        keys[s] = -1;
    int64_t cline_chunk = -1;
    for (int64_t w = begin; w < end; w++) {
        const int64_t chunk = w / j->nlines, line = w % j->nlines;
        const int64_t x0 = chunk * j->C, n = fv__imin(j->C, j->W - x0), np = n + j->plen - j->C;
        /* the output line's coordinates */
        int64_t coord[FV_MAX_NDIM], ooff = 0, rem = line;
        for (int d = lead - 1; d >= 0; d--) {
            coord[d] = rem % in->shape[d];
            rem /= in->shape[d];
            ooff += coord[d] * out->strides[d];
        }
        fv__fnd_state state = { .first = 1, .nan = 0, .t = 0 };
        if (p->kind == FV__FND_CORRELATE)
            for (int64_t i = 0; i < n; i++)
                res[i] = 0.0;
        for (int64_t row = 0; row < j->nrows; row++) {
            const int64_t *rel = j->rel + row * (lead > 0 ? lead : 1);
            int64_t key = 0, ioff = 0;
            int outside = 0;
            for (int d = 0; d < lead; d++) {
                int64_t s = fv__extend_index(coord[d] + rel[d], in->shape[d], p->mode);
                if (s < 0) {
                    outside = 1;
                    break;
                }
                key = key * in->shape[d] + s;
                ioff += s * in->strides[d];
            }
            if (outside) {
                if (cline_chunk != chunk) {
                    /* a line of cval: read from an empty span, every position is outside */
                    if (j->itemsize == sizeof(double) && p->kind == FV__FND_CORRELATE)
                        for (int64_t q = 0; q < j->plen; q++)
                            ((double *)cline)[q] = p->cval;
                    else
                        j->tline(cline, in->data, 0, -1 - j->plen, j->plen, 1, FV_MODE_CONSTANT, p->cval);
                    cline_chunk = chunk;
                }
                j->row(j, &state, row, cline, n, res, scratch);
                continue;
            }
            key = key * j->nchunks + chunk;
            uint64_t h = ((uint64_t)key * 0x9E3779B97F4A7C15ull) >> (64 - j->slot_bits);
            if (j->slot_bits == 0)
                h = 0;
            char *slot = cache + h * lbytes;
            if (keys[h] != key) {
                const char *base = in->data + ioff;
                const int64_t vs = in->strides[lead];
                if (p->kind == FV__FND_CORRELATE)
                    j->dline((double *)slot, base, vs, x0 - j->blast, np, j->W, p->mode, p->cval);
                else
                    j->tline(slot, base, vs, x0 - j->blast, np, j->W, p->mode, p->cval);
                keys[h] = key;
            }
            j->row(j, &state, row, slot, n, res, scratch);
        }
        if (j->fin)
            j->fin(j, &state, n, res, scratch);
        j->store(out->data + ooff + x0 * out->strides[lead], out->strides[lead], res, n);
    }
    fv__scratch_put(block);
}

fv_status
fv__cpu_filternd(fv_context *ctx, const fv__op_args *a)
{
    const fv__filternd_params *p = a->params;
    const fv_array *in = a->in;
    fv_array *out = a->out;
    fv_status st = FV_OK;
    fv__fnd_job j;
    memset(&j, 0, sizeof j);
    if (!p || p->ndim != in->ndim || in->ndim < 1 || p->kind < FV__FND_CORRELATE || p->kind > FV__FND_RANK ||
        (p->kind == FV__FND_CORRELATE && !p->weights))
        return fv_error_set(FV_EINTERNAL, "filter", "bad kernel parameters");
    for (int d = 0; d < in->ndim; d++)
        if (in->shape[d] == 0)
            return FV_OK;
    const int nd = in->ndim, lead = nd - 1;
    j.p = p;
    j.in = in;
    j.out = out;
    j.nd = nd;
    j.W = in->shape[lead];
    j.nlines = 1;
    for (int d = 0; d < lead; d++)
        j.nlines *= in->shape[d];
    const int64_t flast = p->fshape[lead];
    j.blast = flast / 2 + p->origins[lead];
    int64_t nlead = 1, fsize;
    for (int d = 0; d < lead; d++)
        nlead *= p->fshape[d];
    fsize = nlead * flast;
    /* the selected elements, row by row */
    j.row_first = malloc((size_t)(nlead + 1) * sizeof(int64_t));
    j.rel = malloc((size_t)nlead * (size_t)(lead > 0 ? lead : 1) * sizeof(int64_t));
    int64_t count = 0;
    for (int64_t t = 0; t < fsize; t++)
        if ((!p->footprint || p->footprint[t]) && (p->kind != FV__FND_CORRELATE || fabs(p->weights[t]) > DBL_EPSILON))
            count++;
    j.taps = malloc((size_t)(count ? count : 1) * sizeof(fv__fnd_tap));
    if (!j.row_first || !j.rel || !j.taps) {
        st = fv_error_set(FV_ENOMEM, "filter", "out of host memory");
        goto done;
    }
    if (count == 0 || (p->kind == FV__FND_RANK && (p->rank < 0 || p->rank >= count))) {
        st = fv_error_set(FV_EINTERNAL, "filter", "no selected footprint element or rank out of range");
        goto done;
    }
    j.count = count;
    j.rank = p->rank;
    j.ismin = p->kind == FV__FND_MINIMUM || p->kind == FV__FND_RANK;
    j.has_structure = (p->kind == FV__FND_MINIMUM || p->kind == FV__FND_MAXIMUM) && p->weights != NULL;
    {
        int64_t k = 0;
        for (int64_t r = 0; r < nlead; r++) {
            int64_t first = k;
            for (int64_t c = 0; c < flast; c++) {
                int64_t t = r * flast + c;
                if (!((!p->footprint || p->footprint[t]) &&
                      (p->kind != FV__FND_CORRELATE || fabs(p->weights[t]) > DBL_EPSILON)))
                    continue;
                j.taps[k].j = c;
                j.taps[k].w = 0.0;
                if (p->kind == FV__FND_CORRELATE)
                    j.taps[k].w = p->weights[t];
                else if (j.has_structure)
                    j.taps[k].w = p->kind == FV__FND_MINIMUM ? -p->weights[t] : p->weights[t];
                k++;
            }
            if (k == first)
                continue;
            j.row_first[j.nrows] = first;
            /* the row's offsets per lead axis */
            int64_t rem = r;
            int64_t *rel = j.rel + j.nrows * (lead > 0 ? lead : 1);
            for (int d = lead - 1; d >= 0; d--) {
                int64_t c = rem % p->fshape[d];
                rem /= p->fshape[d];
                rel[d] = c - p->fshape[d] / 2 - p->origins[d];
            }
            j.nrows++;
        }
        j.row_first[j.nrows] = k;
    }
    j.itemsize = p->kind == FV__FND_CORRELATE ? sizeof(double) : fv_dtype_size(in->dtype);
    j.dline = fv__dlines[in->dtype];
    j.tline = fv__tlines[in->dtype];
    j.store = out->dtype == FV_UINT64 ? fv__store_u64_nd : fv__stores[out->dtype];
    j.row = fv__fnd_correlate_row;
#if FV__HAVE_AVX2_CLONES
    if (p->kind == FV__FND_CORRELATE && fv__cpu_lines_avx2())
        j.row = fv__fnd_correlate_row_avx2;
#endif
    if (p->kind == FV__FND_MINIMUM || p->kind == FV__FND_MAXIMUM) {
        j.row = fv__minmax_rows[in->dtype];
        j.fin = fv__minmax_fins[in->dtype];
    } else if (p->kind == FV__FND_RANK) {
        j.row = fv__rank_rows[in->dtype];
        j.fin = fv__rank_fins[in->dtype];
    }
    /* the line cache: a power of two >= 2 * rows, within the budget */
    j.slot_bits = 0;
    while (((int64_t)1 << j.slot_bits) < 2 * j.nrows && j.slot_bits < 12)
        j.slot_bits++;
    j.nslots = (int64_t)1 << j.slot_bits;
    /* chunk length: the cache and the rank values within the budget */
    {
        int64_t per = j.nslots * (int64_t)j.itemsize;
        if (p->kind == FV__FND_RANK)
            per += count * (int64_t)fv_dtype_size(in->dtype);
        int64_t C = FV__FND_BUDGET / (per ? per : 1);
        if (p->kind == FV__FND_RANK && C > 256)
            C = 256;
        if (C > 2048)
            C = 2048;
        if (C < 16)
            C = 16;
        int nt = fv_context_threads(ctx);
        /* enough work items for the threads when there are few lines */
        if (j.nlines < 4 * (int64_t)nt) {
            int64_t want = (j.W * j.nlines + 4 * (int64_t)nt - 1) / (4 * (int64_t)nt);
            if (want < C)
                C = want < 64 ? 64 : want;
        }
        j.C = fv__imin(C, j.W);
    }
    if (flast - 1 > INT64_MAX / 4 - j.C) {
        st = fv_error_set(FV_ENOMEM, "filter", "footprint too large");
        goto done;
    }
    j.plen = j.C + flast - 1;
    if ((uint64_t)j.plen * j.itemsize > (uint64_t)SIZE_MAX / 8 / (uint64_t)j.nslots) {
        st = fv_error_set(FV_ENOMEM, "filter", "footprint too large");
        goto done;
    }
    j.nchunks = (j.W + j.C - 1) / j.C;
    if (p->kind == FV__FND_MINIMUM || p->kind == FV__FND_MAXIMUM)
        j.scratch_bytes = (size_t)j.C * fv_dtype_size(in->dtype);
    else if (p->kind == FV__FND_RANK)
        j.scratch_bytes = fv__round8((size_t)(count * j.C) * fv_dtype_size(in->dtype)) + (size_t)count * sizeof(double);
    if (p->kind == FV__FND_RANK) {
        fv__rank_net *net = NULL;
        if (fv__rank_net_want(count, in->dtype) && (st = fv__rank_net_new(count, p->rank, &net)))
            goto done;
        j.net = net;
    }
    {
        const int64_t items = j.nlines * j.nchunks;
        int64_t work = j.C * (count < 1 ? 1 : count);
        int64_t grain = work >= 65536 ? 1 : 65536 / work;
        atomic_init(&j.failed, 0);
        fv__parallel_for(ctx, items, grain, fv__fnd_range, &j);
        if (atomic_load(&j.failed))
            st = fv_error_set(FV_ENOMEM, "filter", "cannot allocate the line buffers");
    }
done:
    fv__rank_net_free((fv__rank_net *)j.net);
    free(j.row_first);
    free(j.rel);
    free(j.taps);
    return st;
}

FV_KERNEL(FILTERND, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_filternd);
