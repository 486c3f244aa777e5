/* CPU kernel of FV__OP_LAPLACE (fv_laplace): lines along one axis (the line
 * axis: the densest axis of the input with extent > 1), cut into pieces when
 * there are few, on the thread pool.
 *
 * A line goes in blocks of FV__LAP_BLOCK elements: the centre values are loaded
 * once as doubles (with one more element each side when the line axis is one
 * of the terms' axes: the neighbours past the block, past the edges by the
 * term's mode or cval), then per term in order the two neighbour runs along its
 * axis (the lines one step before and after, or a run of cval), the terms
 * t = (-2.0 * x) + (l + r) in one plain loop, converted and accumulated in a
 * block accumulator of the output's kind (laplace-kernels.h), and the block is
 * stored with out's strides. Every loop is elementwise and vectorisable; this
 * file is built with -ffp-contract=off (CMakeLists.txt) and filters-cpu.h
 * turns STDC FP_CONTRACT OFF for clang, so no product is fused into a sum. */
#include <string.h>
#include "filters-cpu.h"
#include "ops/filters/laplace.h"

#define FV__LAP_BLOCK 512
#define FV__LAP_MIN_WORK 16384 /* elements per task, at least */

typedef struct fv__lap_cpu {
    const fv__laplace_job *j;
    int la;         /* the line axis */
    int la_term;    /* the term along la, or -1 */
    int acc;        /* fv__laplace_acc of out's dtype */
    int64_t pieces; /* pieces each line is cut into */
    int64_t piece;  /* elements per piece (a multiple of FV__LAP_BLOCK when pieces > 1) */
} fv__lap_cpu;

/* dst[0..m) = the elements at p, p + s, ... (dtype dt) as doubles; bool reads
 * the raw byte, as scipy does. */
static void
fv__lap_load(double *dst, const char *p, int64_t s, int m, int dt)
{
    switch (dt) {
#define FV__LAP_LOAD(E, T, S)                                    \
    case E:                                                      \
        if (s == (int64_t)sizeof(T)) {                           \
            for (int i = 0; i < m; i++) {                        \
                T v;                                             \
                memcpy(&v, p + (size_t)i * sizeof(T), sizeof v); \
                dst[i] = (double)v;                              \
            }                                                    \
        } else {                                                 \
            for (int i = 0; i < m; i++) {                        \
                T v;                                             \
                memcpy(&v, p + i * s, sizeof v);                 \
                dst[i] = (double)v;                              \
            }                                                    \
        }                                                        \
        break;
        FV_FOREACH_DTYPE(FV__LAP_LOAD)
#undef FV__LAP_LOAD
    default:
        break;
    }
}

/* t = (-2.0 * x) + (l + r), scipy's symmetric correlation with [1, -2, 1] */
static void
fv__lap_term(double *restrict t, const double *x, const double *l, const double *r, int m)
{
    for (int i = 0; i < m; i++)
        t[i] = (-2.0 * x[i]) + (l[i] + r[i]);
}

typedef union fv__lap_accbuf {
    double d[FV__LAP_BLOCK];   /* FV__LAP_F64 */
    float f[FV__LAP_BLOCK];    /* FV__LAP_F32 */
    uint32_t w[FV__LAP_BLOCK]; /* FV__LAP_W32: outputs of up to 32 bits need only the low 32 */
    uint64_t u[FV__LAP_BLOCK]; /* FV__LAP_W64, FV__LAP_U64 */
    uint8_t b[FV__LAP_BLOCK];  /* FV__LAP_BOOL */
} fv__lap_accbuf;

/* a->F = CONV(t) (first) or a->F += CONV(t), element by element. */
#define FV__LAP_ACC(F, CONV)            \
    do {                                \
        if (first)                      \
            for (int i = 0; i < m; i++) \
                a->F[i] = CONV(t[i]);   \
        else                            \
            for (int i = 0; i < m; i++) \
                a->F[i] += CONV(t[i]);  \
    } while (0)

/* The term t converted to out's kind and added to the accumulator (first:
 * assigned), as NumPy's `output += tmp` adds the stored terms. */
static void
fv__lap_accumulate(fv__lap_accbuf *a, int kind, int first, const double *t, int m)
{
    switch (kind) {
    case FV__LAP_F64:
        if (first)
            memcpy(a->d, t, (size_t)m * sizeof(double));
        else
            for (int i = 0; i < m; i++)
                a->d[i] = a->d[i] + t[i];
        break;
    case FV__LAP_F32:
        FV__LAP_ACC(f, (float));
        break;
    case FV__LAP_W32:
        FV__LAP_ACC(w, (uint32_t)fv__cvt32);
        break;
    case FV__LAP_W64:
        FV__LAP_ACC(u, (uint64_t)fv__cvt64);
        break;
    case FV__LAP_U64:
        FV__LAP_ACC(u, fv__cvtu64);
        break;
    default: /* FV__LAP_BOOL */
        if (first)
            for (int i = 0; i < m; i++)
                a->b[i] = (uint8_t)((uint8_t)fv__cvt32(t[i]) != 0);
        else
            for (int i = 0; i < m; i++)
                a->b[i] |= (uint8_t)((uint8_t)fv__cvt32(t[i]) != 0);
        break;
    }
}

/* The accumulator's m values into p, p + s, ... (dtype dt). Integers keep the
 * low bits of the wrapped sum. */
static void
fv__lap_store(char *p, int64_t s, const fv__lap_accbuf *a, int dt, int m)
{
#define FV__LAP_ST(T, UT, SRC)                                 \
    if (s == (int64_t)sizeof(T)) {                             \
        for (int i = 0; i < m; i++) {                          \
            const UT v_ = (UT)(SRC)[i];                        \
            memcpy(p + (size_t)i * sizeof(T), &v_, sizeof v_); \
        }                                                      \
    } else {                                                   \
        for (int i = 0; i < m; i++) {                          \
            const UT v_ = (UT)(SRC)[i];                        \
            memcpy(p + i * s, &v_, sizeof v_);                 \
        }                                                      \
    }                                                          \
    break;
    /* integers go through the unsigned type of their width: the bits of a signed value */
    switch (dt) {
    case FV_FLOAT64:
        FV__LAP_ST(double, double, a->d)
    case FV_FLOAT32:
        FV__LAP_ST(float, float, a->f)
    case FV_BOOL:
        FV__LAP_ST(uint8_t, uint8_t, a->b)
    case FV_UINT8:
    case FV_INT8:
        FV__LAP_ST(uint8_t, uint8_t, a->w)
    case FV_UINT16:
    case FV_INT16:
        FV__LAP_ST(uint16_t, uint16_t, a->w)
    case FV_INT32:
        FV__LAP_ST(uint32_t, uint32_t, a->w)
    case FV_UINT32:
        FV__LAP_ST(uint32_t, uint32_t, a->u)
    case FV_UINT64:
    case FV_INT64:
        FV__LAP_ST(uint64_t, uint64_t, a->u)
    default:
        break;
    }
#undef FV__LAP_ST
}

/* One value of the line axis past a block (position pos of the line at
 * `line`, which may lie outside [0, n)): the element itself, the one the
 * term's mode maps it to (edge, -1: cval). */
static double
fv__lap_edge(const fv__laplace_job *j, const char *line, int64_t st, int64_t pos, int64_t n, int64_t edge)
{
    double v;
    if (pos >= 0 && pos < n)
        fv__lap_load(&v, line + pos * st, st, 1, j->idtype);
    else if (edge < 0)
        v = j->cval;
    else
        fv__lap_load(&v, line + edge * st, st, 1, j->idtype);
    return v;
}

#define FV__LAP_CVAL INT64_MIN /* a neighbour offset that means cval */

static void
fv__lap_range(void *arg, int64_t begin, int64_t end)
{
    const fv__lap_cpu *c = (const fv__lap_cpu *)arg;
    const fv__laplace_job *j = c->j;
    const int la = c->la, nd = j->ndim, na = j->naxes;
    const int64_t len = j->shape[la], ist = j->istrides[la], ost = j->ostrides[la];
    double cx[FV__LAP_BLOCK + 2], lb[FV__LAP_BLOCK], rb[FV__LAP_BLOCK], t[FV__LAP_BLOCK], cv[FV__LAP_BLOCK];
    fv__lap_accbuf acc;
    for (int i = 0; i < FV__LAP_BLOCK; i++)
        cv[i] = j->cval;
    for (int64_t item = begin; item < end; item++) {
        const int64_t line = item / c->pieces, piece = item - line * c->pieces;
        const int64_t start = piece * c->piece, stop = len - start < c->piece ? len : start + c->piece;
        /* the line's position on the other axes (C order) and its offsets */
        int64_t idx[FV_MAX_NDIM], ioff = 0, ooff = 0, rem = line;
        for (int d = nd - 1; d >= 0; d--) {
            if (d == la) {
                idx[d] = 0;
                continue;
            }
            idx[d] = rem % j->shape[d];
            rem /= j->shape[d];
            ioff += idx[d] * j->istrides[d];
            ooff += idx[d] * j->ostrides[d];
        }
        /* per term across the lines: the neighbour lines' offsets from this one */
        int64_t loff[FV_MAX_NDIM], roff[FV_MAX_NDIM];
        for (int k = 0; k < na; k++) {
            const int a = j->axes[k];
            if (a == la)
                continue;
            const int64_t pos = idx[a], n = j->shape[a];
            const int64_t jl = pos > 0 ? pos - 1 : j->lo[k], jr = pos + 1 < n ? pos + 1 : j->hi[k];
            loff[k] = jl < 0 ? FV__LAP_CVAL : (jl - pos) * j->istrides[a];
            roff[k] = jr < 0 ? FV__LAP_CVAL : (jr - pos) * j->istrides[a];
        }
        const char *iline = j->in + ioff;
        for (int64_t b0 = start; b0 < stop; b0 += FV__LAP_BLOCK) {
            const int m = (int)(stop - b0 < FV__LAP_BLOCK ? stop - b0 : FV__LAP_BLOCK);
            const char *ip = iline + b0 * ist;
            fv__lap_load(cx + 1, ip, ist, m, j->idtype);
            if (c->la_term >= 0) {
                cx[0] = fv__lap_edge(j, iline, ist, b0 - 1, len, j->lo[c->la_term]);
                cx[m + 1] = fv__lap_edge(j, iline, ist, b0 + m, len, j->hi[c->la_term]);
            }
            for (int k = 0; k < na; k++) {
                if (j->axes[k] == la) {
                    fv__lap_term(t, cx + 1, cx, cx + 2, m);
                } else {
                    const double *l = cv, *r = cv;
                    if (loff[k] != FV__LAP_CVAL) {
                        fv__lap_load(lb, ip + loff[k], ist, m, j->idtype);
                        l = lb;
                    }
                    if (roff[k] != FV__LAP_CVAL) {
                        fv__lap_load(rb, ip + roff[k], ist, m, j->idtype);
                        r = rb;
                    }
                    fv__lap_term(t, cx + 1, l, r, m);
                }
                fv__lap_accumulate(&acc, c->acc, k == 0, t, m);
            }
            fv__lap_store(j->out + ooff + b0 * ost, ost, &acc, j->odtype, m);
        }
    }
}

static fv_status
fv__cpu_laplace(fv_context *ctx, const fv__op_args *a)
{
    const fv__laplace_job *j = (const fv__laplace_job *)a->params;
    if (j->size == 0)
        return FV_OK;
    fv__lap_cpu c = { .j = j, .la = j->ndim - 1, .la_term = -1, .acc = fv__laplace_acc_of(j->odtype) };
    /* the line axis: the smallest input stride among the axes longer than 1 (the last one on ties) */
    int64_t best = -1;
    for (int d = j->ndim - 1; d >= 0; d--) {
        const int64_t s = j->istrides[d] < 0 ? -j->istrides[d] : j->istrides[d];
        if (j->shape[d] > 1 && (best < 0 || s < best)) {
            best = s;
            c.la = d;
        }
    }
    for (int k = 0; k < j->naxes; k++)
        if (j->axes[k] == c.la)
            c.la_term = k;
    const int64_t len = j->shape[c.la], lines = j->size / len;
    int64_t grain;
    fv__cpu_line_pieces(ctx, lines, len, FV__LAP_MIN_WORK, FV__LAP_BLOCK, &c.pieces, &c.piece, &grain);
    fv__parallel_for(ctx, lines * c.pieces, grain, fv__lap_range, &c);
    return FV_OK;
}

FV_KERNEL(LAPLACE, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_laplace);
