/* FV__OP_FILTER1D on the CPU: correlate, uniform, minimum and maximum along one
 * axis, with scipy's results (ni_filters.c: lines in double, the same operation
 * order per output, the same boundary extension and stores).
 *
 * Lines are processed in groups of B neighbours along the "batch" axis (the
 * other axis with the smallest input stride) gathered into a double buffer laid
 * out [position][line], so that every computation runs over contiguous memory
 * and vectorises across lines (B > 1) or along the line (B = 1). Long lines are
 * cut into segments (with the window's halo) where the result allows it. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "filters-cpu.h"
#include "filters-simd.h"

#define FV__F1D_BUDGET 32768 /* doubles in the input buffer of one work item */
#define FV__F1D_DIRECT 8     /* min/max windows up to this size run directly */
#define FV__TBLK 32          /* positions per block when transposing lines */

static inline int64_t
fv__min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t
fv__abs64(int64_t a)
{
    return a < 0 ? -a : a;
}

/* ---- gather: lines -> double buffer [q][nb] with boundary extension ---------
 * Fills buf[q * nb + b] for q in [0, n), b in [0, nb) from the position
 * pos0 + q along the axis (length L) of line b (base + b * bs). */
typedef void (*fv__gather_fn)(double *buf, const char *base, int64_t as, int64_t bs, int64_t nb, int64_t pos0,
                              int64_t n, int64_t L, int mode, double cval);
/* scatter: buf[q * nb + b] -> positions pos0 + q of output line b. */
typedef void (*fv__scatter_fn)(const double *buf, char *base, int64_t as, int64_t bs, int64_t nb, int64_t pos0,
                               int64_t n);

/* one position of a line's extension: its nb values from the source index src,
 * or cval (src < 0) */
#define FV__GATHER(E, T, S)                                                                                          \
    static inline void fv__gather_edge_##S(double *restrict d, const char *base, int64_t as, int64_t bs, int64_t nb, \
                                           int64_t src, double cval)                                                 \
    {                                                                                                                \
        for (int64_t b = 0; b < nb; b++)                                                                             \
            d[b] = src < 0 ? cval : (double)*(const T *)(base + src * as + b * bs);                                  \
    }                                                                                                                \
    static void fv__gather_##S(double *buf, const char *base, int64_t as, int64_t bs, int64_t nb, int64_t pos0,      \
                               int64_t n, int64_t L, int mode, double cval)                                          \
    {                                                                                                                \
        int64_t q = 0;                                                                                               \
        /* left extension, then the inside run, then the right extension */                                          \
        for (; q < n && pos0 + q < 0; q++)                                                                           \
            fv__gather_edge_##S(buf + q * nb, base, as, bs, nb, fv__extend_index(pos0 + q, L, mode), cval);          \
        int64_t qe = fv__min64(n, L - pos0);                                                                         \
        if (q < qe) {                                                                                                \
            const char *p0 = base + (pos0 + q) * as;                                                                 \
            int64_t m = qe - q;                                                                                      \
            double *restrict d = buf + q * nb;                                                                       \
            if (nb == 1) {                                                                                           \
                if (as == (int64_t)sizeof(T)) {                                                                      \
                    const T *restrict s = (const T *)p0;                                                             \
                    for (int64_t i = 0; i < m; i++)                                                                  \
                        d[i] = (double)s[i];                                                                         \
                } else                                                                                               \
                    for (int64_t i = 0; i < m; i++)                                                                  \
                        d[i] = (double)*(const T *)(p0 + i * as);                                                    \
            } else if (fv__abs64(bs) <= fv__abs64(as)) {                                                             \
                for (int64_t i = 0; i < m; i++) {                                                                    \
                    const char *row = p0 + i * as;                                                                   \
                    double *restrict dd = d + i * nb;                                                                \
                    if (bs == (int64_t)sizeof(T)) {                                                                  \
                        const T *restrict s = (const T *)row;                                                        \
                        for (int64_t b = 0; b < nb; b++)                                                             \
                            dd[b] = (double)s[b];                                                                    \
                    } else                                                                                           \
                        for (int64_t b = 0; b < nb; b++)                                                             \
                            dd[b] = (double)*(const T *)(row + b * bs);                                              \
                }                                                                                                    \
            } else {                                                                                                 \
                /* lines along the axis: transpose in blocks that stay in L1 */                                      \
                for (int64_t i0 = 0; i0 < m; i0 += FV__TBLK) {                                                       \
                    const int64_t ie = fv__min64(m, i0 + FV__TBLK);                                                  \
                    for (int64_t b = 0; b < nb; b++) {                                                               \
                        const char *col = p0 + b * bs;                                                               \
                        if (as == (int64_t)sizeof(T)) {                                                              \
                            const T *restrict s = (const T *)col;                                                    \
                            for (int64_t i = i0; i < ie; i++)                                                        \
                                d[i * nb + b] = (double)s[i];                                                        \
                        } else                                                                                       \
                            for (int64_t i = i0; i < ie; i++)                                                        \
                                d[i * nb + b] = (double)*(const T *)(col + i * as);                                  \
                    }                                                                                                \
                }                                                                                                    \
            }                                                                                                        \
            q = qe;                                                                                                  \
        }                                                                                                            \
        for (; q < n; q++)                                                                                           \
            fv__gather_edge_##S(buf + q * nb, base, as, bs, nb, fv__extend_index(pos0 + q, L, mode), cval);          \
    }
FV_FOREACH_DTYPE(FV__GATHER)

#define FV__SCATTER(E, T, S)                                                                                     \
    static void fv__scatter_##S(const double *buf, char *base, int64_t as, int64_t bs, int64_t nb, int64_t pos0, \
                                int64_t n)                                                                       \
    {                                                                                                            \
        char *p0 = base + pos0 * as;                                                                             \
        if (nb == 1) {                                                                                           \
            if (as == (int64_t)sizeof(T)) {                                                                      \
                T *restrict d = (T *)p0;                                                                         \
                for (int64_t i = 0; i < n; i++)                                                                  \
                    d[i] = fv__fst_##S(buf[i]);                                                                  \
            } else                                                                                               \
                for (int64_t i = 0; i < n; i++)                                                                  \
                    *(T *)(p0 + i * as) = fv__fst_##S(buf[i]);                                                   \
        } else if (fv__abs64(bs) <= fv__abs64(as)) {                                                             \
            for (int64_t i = 0; i < n; i++) {                                                                    \
                char *row = p0 + i * as;                                                                         \
                const double *restrict s = buf + i * nb;                                                         \
                if (bs == (int64_t)sizeof(T)) {                                                                  \
                    T *restrict d = (T *)row;                                                                    \
                    for (int64_t b = 0; b < nb; b++)                                                             \
                        d[b] = fv__fst_##S(s[b]);                                                                \
                } else                                                                                           \
                    for (int64_t b = 0; b < nb; b++)                                                             \
                        *(T *)(row + b * bs) = fv__fst_##S(s[b]);                                                \
            }                                                                                                    \
        } else {                                                                                                 \
            for (int64_t i0 = 0; i0 < n; i0 += FV__TBLK) {                                                       \
                const int64_t ie = fv__min64(n, i0 + FV__TBLK);                                                  \
                for (int64_t b = 0; b < nb; b++) {                                                               \
                    char *col = p0 + b * bs;                                                                     \
                    if (as == (int64_t)sizeof(T)) {                                                              \
                        T *restrict d = (T *)col;                                                                \
                        for (int64_t i = i0; i < ie; i++)                                                        \
                            d[i] = fv__fst_##S(buf[i * nb + b]);                                                 \
                    } else                                                                                       \
                        for (int64_t i = i0; i < ie; i++)                                                        \
                            *(T *)(col + i * as) = fv__fst_##S(buf[i * nb + b]);                                 \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    }
FV_FOREACH_DTYPE(FV__SCATTER)

static const fv__gather_fn fv__gathers[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__gather_);
static const fv__scatter_fn fv__scatters[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__scatter_);

/* ---- the line computations, all on x[q * B + b] -> o[q * B + b] ---------------
 * x holds n + size - 1 positions per line (the window's halo included), o n. */

/* scipy's NI_Correlate1D sums, per output in the same order: the symmetric
 * form (x[-k] + x[k]) * w[-k] from the outermost pair in, the antisymmetric
 * (x[-k] - x[k]) * w[-k], or the last tap first and then the others in order.
 * Blocks of 4 vectors of outputs stay in registers across the taps; the same
 * kernel is built for SSE2 (2 doubles) and, chosen at run time, AVX2 (4). */

#define FV__CORR_KERNEL(NAME, VT, NL, SPLAT, ATTR)                                                                  \
    ATTR static void NAME(const double *x, double *o, int64_t N, int64_t B, const double *w, int64_t size, int sym) \
    {                                                                                                               \
        const int64_t size1 = size / 2;                                                                             \
        int64_t i = 0;                                                                                              \
        for (; i + 4 * NL <= N; i += 4 * NL) {                                                                      \
            const double *xx = x + i;                                                                               \
            VT a0, a1, a2, a3;                                                                                      \
            if (sym != 0) {                                                                                         \
                const double *c = xx + size1 * B;                                                                   \
                const VT wc = SPLAT(w[size1]);                                                                      \
                a0 = FV__LDV(VT, c) * wc;                                                                           \
                a1 = FV__LDV(VT, c + NL) * wc;                                                                      \
                a2 = FV__LDV(VT, c + 2 * NL) * wc;                                                                  \
                a3 = FV__LDV(VT, c + 3 * NL) * wc;                                                                  \
                if (sym > 0)                                                                                        \
                    for (int64_t k = 0; k < size1; k++) {                                                           \
                        const double *l = xx + k * B, *r = xx + (size - 1 - k) * B;                                 \
                        const VT wk = SPLAT(w[k]);                                                                  \
                        a0 += (FV__LDV(VT, l) + FV__LDV(VT, r)) * wk;                                               \
                        a1 += (FV__LDV(VT, l + NL) + FV__LDV(VT, r + NL)) * wk;                                     \
                        a2 += (FV__LDV(VT, l + 2 * NL) + FV__LDV(VT, r + 2 * NL)) * wk;                             \
                        a3 += (FV__LDV(VT, l + 3 * NL) + FV__LDV(VT, r + 3 * NL)) * wk;                             \
                    }                                                                                               \
                else                                                                                                \
                    for (int64_t k = 0; k < size1; k++) {                                                           \
                        const double *l = xx + k * B, *r = xx + (size - 1 - k) * B;                                 \
                        const VT wk = SPLAT(w[k]);                                                                  \
                        a0 += (FV__LDV(VT, l) - FV__LDV(VT, r)) * wk;                                               \
                        a1 += (FV__LDV(VT, l + NL) - FV__LDV(VT, r + NL)) * wk;                                     \
                        a2 += (FV__LDV(VT, l + 2 * NL) - FV__LDV(VT, r + 2 * NL)) * wk;                             \
                        a3 += (FV__LDV(VT, l + 3 * NL) - FV__LDV(VT, r + 3 * NL)) * wk;                             \
                    }                                                                                               \
            } else {                                                                                                \
                const double *t = xx + (size - 1) * B;                                                              \
                const VT wt = SPLAT(w[size - 1]);                                                                   \
                a0 = FV__LDV(VT, t) * wt;                                                                           \
                a1 = FV__LDV(VT, t + NL) * wt;                                                                      \
                a2 = FV__LDV(VT, t + 2 * NL) * wt;                                                                  \
                a3 = FV__LDV(VT, t + 3 * NL) * wt;                                                                  \
                for (int64_t k = 0; k < size - 1; k++) {                                                            \
                    const double *l = xx + k * B;                                                                   \
                    const VT wk = SPLAT(w[k]);                                                                      \
                    a0 += FV__LDV(VT, l) * wk;                                                                      \
                    a1 += FV__LDV(VT, l + NL) * wk;                                                                 \
                    a2 += FV__LDV(VT, l + 2 * NL) * wk;                                                             \
                    a3 += FV__LDV(VT, l + 3 * NL) * wk;                                                             \
                }                                                                                                   \
            }                                                                                                       \
            FV__STV(o + i, a0);                                                                                     \
            FV__STV(o + i + NL, a1);                                                                                \
            FV__STV(o + i + 2 * NL, a2);                                                                            \
            FV__STV(o + i + 3 * NL, a3);                                                                            \
        }                                                                                                           \
        for (; i < N; i++) {                                                                                        \
            const double *xx = x + i;                                                                               \
            double a;                                                                                               \
            if (sym > 0) {                                                                                          \
                a = xx[size1 * B] * w[size1];                                                                       \
                for (int64_t k = 0; k < size1; k++)                                                                 \
                    a += (xx[k * B] + xx[(size - 1 - k) * B]) * w[k];                                               \
            } else if (sym < 0) {                                                                                   \
                a = xx[size1 * B] * w[size1];                                                                       \
                for (int64_t k = 0; k < size1; k++)                                                                 \
                    a += (xx[k * B] - xx[(size - 1 - k) * B]) * w[k];                                               \
            } else {                                                                                                \
                a = xx[(size - 1) * B] * w[size - 1];                                                               \
                for (int64_t k = 0; k < size - 1; k++)                                                              \
                    a += xx[k * B] * w[k];                                                                          \
            }                                                                                                       \
            o[i] = a;                                                                                               \
        }                                                                                                           \
    }

FV__CORR_KERNEL(fv__f1d_correlate_v2, fv__v2d, 2, FV__SPLAT2, )
#if FV__HAVE_AVX2_CLONES
FV__CORR_KERNEL(fv__f1d_correlate_v4, fv__v4d, 4, FV__SPLAT4, __attribute__((target("avx2"))))
#endif

static void
fv__f1d_correlate(const double *x, double *o, int64_t n, int64_t B, const double *w, int64_t size, int sym, int v4)
{
#if FV__HAVE_AVX2_CLONES
    if (v4) {
        fv__f1d_correlate_v4(x, o, n * B, B, w, size, sym);
        return;
    }
#else
    (void)v4;
#endif
    fv__f1d_correlate_v2(x, o, n * B, B, w, size, sym);
}

/* scipy's NI_UniformFilter1D running sum, streamed over chunks of a line with
 * the sums carried in tmp: bit-identical per line. The first chunk's x starts
 * at the window of output 0; later chunks' x one position earlier (the value
 * that leaves the window first). */
static void
fv__f1d_uniform(const double *x, double *o, int64_t n, int64_t B, int64_t size, double *restrict tmp, int first)
{
    const double fs = (double)size;
    int64_t q0 = 0;
    if (first) {
        for (int64_t b = 0; b < B; b++)
            tmp[b] = 0.0;
        for (int64_t k = 0; k < size; k++) {
            const double *restrict l = x + k * B;
            for (int64_t b = 0; b < B; b++)
                tmp[b] += l[b];
        }
        for (int64_t b = 0; b < B; b++)
            o[b] = tmp[b] / fs;
        q0 = 1;
        x -= B; /* so that output q adds x[q + size] and drops x[q] below */
    }
    for (int64_t q = q0; q < n; q++) {
        const double *restrict l2 = x + (q + size) * B, *restrict l1 = x + q * B;
        double *restrict oo = o + q * B;
        for (int64_t b = 0; b < B; b++) {
            tmp[b] += l2[b] - l1[b];
            oo[b] = tmp[b] / fs;
        }
    }
}

/* Minimum / maximum without NaN: the window's extreme value. On ties the later
 * element wins, as in scipy's deque (this only shows for -0.0 against 0.0). */

/* In the comments, the C expression each helper evaluates exactly. */
static void
fv__f1d_minmax_direct(const double *x, double *o, int64_t n, int64_t B, int64_t size, int ismin)
{
    const int64_t N = n * B;
    memcpy(o, x, (size_t)N * sizeof(double));
    for (int64_t k = 1; k < size; k++) {
        const double *l = x + k * B;
        if (ismin)
            fv__vmin_f64(o, o, l, N); /* l <= o ? l : o */
        else
            fv__vmax_f64(o, o, l, N); /* l >= o ? l : o */
    }
}

/* van Herk / Gil-Werman: prefix extremes g and suffix extremes h per block of
 * `size` positions; each window is one block or a suffix plus a prefix. */
static void
fv__f1d_minmax_vhgw(const double *x, double *o, int64_t n, int64_t B, int64_t size, int ismin, double *restrict g,
                    double *restrict h)
{
    const int64_t m = n + size - 1;
    for (int64_t s = 0; s < m; s += size) {
        const int64_t e = fv__min64(s + size, m);
        memcpy(g + s * B, x + s * B, (size_t)B * sizeof(double));
        for (int64_t q = s + 1; q < e; q++) {
            if (ismin)
                fv__vmin_f64(g + q * B, g + (q - 1) * B, x + q * B, B); /* v <= pg ? v : pg */
            else
                fv__vmax_f64(g + q * B, g + (q - 1) * B, x + q * B, B); /* v >= pg ? v : pg */
        }
        memcpy(h + (e - 1) * B, x + (e - 1) * B, (size_t)B * sizeof(double));
        for (int64_t q = e - 2; q >= s; q--) {
            if (ismin)
                fv__vmin_f64(h + q * B, x + q * B, h + (q + 1) * B, B); /* ph <= v ? ph : v */
            else
                fv__vmax_f64(h + q * B, x + q * B, h + (q + 1) * B, B); /* ph >= v ? ph : v */
        }
    }
    for (int64_t i = 0; i < n; i++) {
        const int64_t j = i + size - 1;
        if (i % size == 0)
            memcpy(o + i * B, g + j * B, (size_t)B * sizeof(double));
        else if (ismin)
            fv__vmin_f64(o + i * B, h + i * B, g + j * B, B); /* g <= h ? g : h */
        else
            fv__vmax_f64(o + i * B, h + i * B, g + j * B, B); /* g >= h ? g : h */
    }
}

/* scipy's own deque (Richard Harter's ascending minima) for one lane, streamed:
 * with NaN in a line its results depend on this exact algorithm, so lines
 * holding NaN run it from their start. It consumes values x[k * B] for k in
 * [0, count) as positions *ll, *ll + 1, ... of the extended line and writes
 * the output of position ll - size + 1 to o[(ll - size + 1 - obase) * B]. */
typedef struct fv__pair {
    double value;
    int64_t death;
} fv__pair;

typedef struct fv__deque {
    fv__pair *ring;
    int64_t minpair, last, ll;
} fv__deque;

static void
fv__f1d_deque(fv__deque *dq, const double *x, int64_t count, int64_t B, int64_t size, int ismin, double *o,
              int64_t obase)
{
    fv__pair *ring = dq->ring;
    int64_t minpair = dq->minpair, last = dq->last, ll = dq->ll;
    int64_t k = 0;
    if (ll == 0 && count > 0) {
        ring[0].value = x[0];
        ring[0].death = size;
        minpair = last = 0;
        ll = 1;
        k = 1;
    }
    for (; k < count; k++, ll++) {
        double val = x[k * B];
        if (ring[minpair].death == ll)
            if (++minpair >= size)
                minpair = 0;
        if (ismin ? val <= ring[minpair].value : val >= ring[minpair].value) {
            ring[minpair].value = val;
            ring[minpair].death = ll + size;
            last = minpair;
        } else {
            while (ismin ? ring[last].value >= val : ring[last].value <= val)
                if (--last < 0)
                    last = size - 1;
            if (++last >= size)
                last = 0;
            ring[last].value = val;
            ring[last].death = ll + size;
        }
        if (ll >= size - 1)
            o[(ll - size + 1 - obase) * B] = ring[minpair].value;
    }
    dq->minpair = minpair;
    dq->last = last;
    dq->ll = ll;
}

/* ---- the driver ------------------------------------------------------------------ */

typedef struct fv__f1d_job {
    const fv__filter1d_params *p;
    const char *in;
    char *out;
    int64_t L, size, before;
    int64_t ias, oas;   /* axis strides (bytes) */
    int64_t ibs, obs;   /* batch-axis strides */
    int64_t nbatch;     /* extent of the batch axis (1 without one) */
    int64_t B, ngroups; /* lines per group, groups along the batch axis */
    int nother;         /* the remaining axes, C order */
    int64_t oshape[FV_MAX_NDIM], oistr[FV_MAX_NDIM], oostr[FV_MAX_NDIM];
    int64_t seg, nseg; /* outputs per segment (independent work), segments per line */
    int64_t P;         /* outputs per chunk inside a work item */
    int nan_check;     /* min/max on data that may hold NaN */
    int avx2;          /* the AVX2 correlation kernel (fv__cpu_lines_avx2) */
    fv__gather_fn gather;
    fv__scatter_fn scatter;
    atomic_int failed;
} fv__f1d_job;

static int
fv__has_nan(const double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i += 256) {
        const int64_t e = fv__min64(n, i + 256);
        int64_t m = 0;
        for (int64_t k = i; k < e; k++)
            m |= (int64_t)(x[k] != x[k]);
        if (m)
            return 1;
    }
    return 0;
}

static void
fv__f1d_range(void *arg, int64_t begin, int64_t end)
{
    fv__f1d_job *j = arg;
    const fv__filter1d_params *p = j->p;
    const int64_t size = j->size, B = j->B, P = j->P;
    const int64_t nx = P + size; /* positions per chunk buffer (one spare) */
    const int kind = p->kind;
    const int ismin = kind == FV__F1D_MINIMUM;
    const int minmax = kind == FV__F1D_MINIMUM || kind == FV__F1D_MAXIMUM;
    const int need_gh = minmax && size > FV__F1D_DIRECT;
    size_t off = 0;
    const size_t ox = fv__carve(&off, (size_t)(nx * B) * sizeof(double));
    const size_t oo = fv__carve(&off, (size_t)(P * B) * sizeof(double));
    const size_t og = need_gh ? fv__carve(&off, (size_t)(nx * B) * sizeof(double)) : 0;
    const size_t oh = need_gh ? fv__carve(&off, (size_t)(nx * B) * sizeof(double)) : 0;
    const size_t ot = fv__carve(&off, (size_t)B * sizeof(double));
    char *block = fv__scratch_get(off);
    fv__pair *rings = NULL;
    fv__deque *dqs = NULL;
    if (!block) {
        atomic_store(&j->failed, 1);
        return;
    }
    double *x = (double *)(block + ox), *o = (double *)(block + oo), *tmp = (double *)(block + ot);
    double *g = need_gh ? (double *)(block + og) : NULL, *h = need_gh ? (double *)(block + oh) : NULL;
    for (int64_t w = begin; w < end; w++) {
        int64_t sg = w % j->nseg, r = w / j->nseg;
        int64_t grp = r % j->ngroups, rest = r / j->ngroups;
        int64_t ioff = grp * B * j->ibs, ooff = grp * B * j->obs;
        for (int d = j->nother - 1; d >= 0; d--) {
            int64_t idx = rest % j->oshape[d];
            rest /= j->oshape[d];
            ioff += idx * j->oistr[d];
            ooff += idx * j->oostr[d];
        }
        const int64_t nb = fv__min64(B, j->nbatch - grp * B);
        const int64_t sbeg = sg * j->seg, send = fv__min64(j->L, sbeg + j->seg);
        int deque = 0;
    restart:
        for (int64_t s0 = sbeg; s0 < send; s0 += P) {
            const int64_t n = fv__min64(P, send - s0);
            /* uniform: later chunks start one position earlier (the value leaving) */
            const int64_t extra = kind == FV__F1D_UNIFORM && s0 > sbeg ? 1 : 0;
            j->gather(x, j->in + ioff, j->ias, j->ibs, nb, s0 - j->before - extra, n + size - 1 + extra, j->L, p->mode,
                      p->cval);
            switch (kind) {
            case FV__F1D_CORRELATE:
                fv__f1d_correlate(x, o, n, nb, p->weights, size, p->symmetry, j->avx2);
                break;
            case FV__F1D_UNIFORM:
                fv__f1d_uniform(x, o, n, nb, size, tmp, s0 == sbeg);
                break;
            default:
                if (!deque && j->nan_check && size > 1 && fv__has_nan(x, (n + size - 1) * nb)) {
                    /* scipy's deque for the whole group, from the line start */
                    if (!rings) {
                        rings = malloc((size_t)(B * size) * sizeof(fv__pair));
                        dqs = malloc((size_t)B * sizeof(fv__deque));
                        if (!rings || !dqs) {
                            atomic_store(&j->failed, 1);
                            goto done;
                        }
                    }
                    for (int64_t b = 0; b < nb; b++)
                        dqs[b] = (fv__deque){ .ring = rings + b * size };
                    deque = 1;
                    goto restart;
                }
                if (deque) {
                    /* new positions of this chunk: all of the first, then size - 1 on */
                    const int64_t skip = s0 == sbeg ? 0 : size - 1, cnt = n + size - 1 - skip;
                    for (int64_t b = 0; b < nb; b++)
                        fv__f1d_deque(&dqs[b], x + skip * nb + b, cnt, nb, size, ismin, o + b, s0);
                } else if (size <= FV__F1D_DIRECT) {
                    fv__f1d_minmax_direct(x, o, n, nb, size, ismin);
                } else {
                    fv__f1d_minmax_vhgw(x, o, n, nb, size, ismin, g, h);
                }
            }
            j->scatter(o, j->out + ooff, j->oas, j->obs, nb, s0, n);
        }
    }
done:
    fv__scratch_put(block);
    free(rings);
    free(dqs);
}

fv_status
fv__cpu_filter1d(fv_context *ctx, const fv__op_args *a)
{
    const fv__filter1d_params *p = a->params;
    const fv_array *in = a->in;
    fv_array *out = a->out;
    if (!p || p->axis < 0 || p->axis >= in->ndim || p->size < 1 || p->kind < FV__F1D_CORRELATE ||
        p->kind > FV__F1D_MAXIMUM || (p->kind == FV__F1D_CORRELATE && !p->weights))
        return fv_error_set(FV_EINTERNAL, "filter1d", "bad kernel parameters");
    for (int d = 0; d < in->ndim; d++)
        if (in->shape[d] == 0)
            return FV_OK;
    fv__f1d_job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.in = in->data;
    j.out = out->data;
    const int axis = p->axis;
    j.L = in->shape[axis];
    j.size = p->size;
    j.before = p->size / 2 + p->origin;
    j.ias = in->strides[axis];
    j.oas = out->strides[axis];
    j.gather = fv__gathers[in->dtype];
    j.scatter = fv__scatters[out->dtype];
    j.nan_check = (p->kind == FV__F1D_MINIMUM || p->kind == FV__F1D_MAXIMUM) &&
        (fv__dtype_has_nan(in->dtype) || (p->mode == FV_MODE_CONSTANT && p->cval != p->cval));
    /* the batch axis: the other axis with the smallest input stride */
    int bdim = -1;
    for (int d = 0; d < in->ndim; d++)
        if (d != axis && in->shape[d] > 1 && (bdim < 0 || fv__abs64(in->strides[d]) < fv__abs64(in->strides[bdim])))
            bdim = d;
    j.nbatch = bdim >= 0 ? in->shape[bdim] : 1;
    j.ibs = bdim >= 0 ? in->strides[bdim] : 0;
    j.obs = bdim >= 0 ? out->strides[bdim] : 0;
    for (int d = 0; d < in->ndim; d++)
        if (d != axis && d != bdim && in->shape[d] > 1) {
            j.oshape[j.nother] = in->shape[d];
            j.oistr[j.nother] = in->strides[d];
            j.oostr[j.nother] = out->strides[d];
            j.nother++;
        }
    int64_t nouter = 1;
    for (int d = 0; d < j.nother; d++)
        nouter *= j.oshape[d];
    const int64_t size = j.size;
    /* chunk buffers hold P + size positions: refuse sizes whose buffers cannot exist */
    if (size > ((int64_t)1 << 40))
        return fv_error_set(FV_ENOMEM, "filter1d", "filter size %lld is too large", (long long)size);
    /* lines per group: one for correlate along contiguous lines (it vectorises
     * along the line), a few for the running computations there, many along
     * strided axes so that every read covers contiguous memory */
    const int contiguous_axis = bdim < 0 || fv__abs64(j.ias) <= fv__abs64(j.ibs);
    int64_t B = contiguous_axis ? (p->kind == FV__F1D_CORRELATE ? 1 : 8) : 64;
    B = fv__min64(B, j.nbatch);
    while (B > 1 && size * B > FV__F1D_BUDGET / 2)
        B /= 2;
    int64_t P = FV__F1D_BUDGET / B - size;
    if (P < 256)
        P = 256;
    j.B = B;
    j.ngroups = (j.nbatch + B - 1) / B;
    /* independent segments of a line, for correlate and NaN-free min/max, when
     * there are too few groups to keep the threads busy */
    j.seg = j.L;
    const int splittable = p->kind == FV__F1D_CORRELATE || (!j.nan_check && p->kind != FV__F1D_UNIFORM);
    const int nt = fv_context_threads(ctx);
    const int64_t groups = nouter * j.ngroups;
    if (splittable && groups < 4 * (int64_t)nt) {
        int64_t want = (j.L * groups + 4 * (int64_t)nt - 1) / (4 * (int64_t)nt);
        if (want < 1024)
            want = 1024;
        j.seg = fv__min64(j.L, want);
    }
    j.nseg = (j.L + j.seg - 1) / j.seg;
    j.P = fv__min64(P, j.seg);
    const int64_t items = groups * j.nseg;
    int64_t per = j.seg * B * (p->kind == FV__F1D_CORRELATE ? 1 + size / 4 : 1);
    int64_t grain = per >= 16384 ? 1 : 16384 / per;
    atomic_init(&j.failed, 0);
    j.avx2 = p->kind == FV__F1D_CORRELATE && fv__cpu_lines_avx2();
    fv__parallel_for(ctx, items, grain, fv__f1d_range, &j);
    if (atomic_load(&j.failed))
        return fv_error_set(FV_ENOMEM, "filter1d", "cannot allocate the line buffers");
    return FV_OK;
}

FV_KERNEL(FILTER1D, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_filter1d);
