/* CPU kernel of FV__OP_LABEL (fv_label): block-parallel union-find.
 *
 * The image is cut into blocks of whole lines (lines run along the last
 * axis), one block per task. Parent indices live in out itself (int32 or
 * int64); -1 marks background. Every link goes from a larger root to a
 * smaller one, so each tree's root is its component's first pixel in raster
 * order and numbering the roots in order gives skimage's / scipy's labels.
 *
 *   1. per block, sequentially: each foreground pixel starts as its own root
 *      and is united with its equal backward neighbours inside the block
 *      (path halving; nothing else touches the block's entries);
 *   2. per block, in parallel: the pixels whose backward neighbours lie in
 *      an earlier block are united with them by a lock-free union (roots
 *      change only by compare-and-swap, non-roots only to an ancestor);
 *   3. per block: every pixel points at its root; roots are counted;
 *   4. a prefix sum over the blocks gives each block's first label; roots
 *      store -(label + 1);
 *   5. non-roots take their root's label; 6. roots and background turn into
 *      their label / 0.
 * Steps 3..6 read other blocks' entries only where nobody writes in that
 * step; the atomic loads and stores of steps 2..3 are relaxed / acquire-
 * release builtins that cost nothing extra on x86. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/measure/label.h"
#include "ops/morphology/binary-flood.h"
#include "ops/measure/regionprops.h"

#define FV__LD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define FV__ST(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

typedef struct fv__lab_job {
    const fv__label_params *p;
    const void *in;
    void *P; /* parent links: out itself or a scratch array */
    void *out;
    int nd;
    int64_t shape[FV_MAX_NDIM];
    int64_t W, nlines;
    int rowconn;          /* the previous pixel on the line is a neighbour: runs connect */
    int ng;               /* neighbour groups: backward neighbours on other lines, */
    const int8_t *gnb;    /* grouped by line: ng rows of nd - 1 outer offsets */
    const int64_t *gloff; /* line offset of each group (< 0) */
    const int *gmask;     /* offsets along the line in the group: bit o + 1 for o in -1..1 */
    int64_t maxback;      /* max -gloff */
    int64_t nchunks;
    const int64_t *cstart; /* nchunks + 1 line starts */
    int64_t *count;        /* per block: roots, then labels before it */
    int64_t *scratch;      /* per block: 2 * max(ng, 1) entries (fv__lab_active) */
    int separate;          /* P is a scratch array (else out itself) */
    int members;           /* fv__lab_decode's pass: 1 members, 0 the last */
} fv__lab_job;

/* The neighbour lines usable from the current line (scratch of one task). */
typedef struct fv__lab_active {
    int n;
    int64_t *delta; /* element offset from this line's start to the neighbour line's */
    int64_t *mask;
} fv__lab_active;

static void
fv__lab_active_init(const fv__lab_job *j, int64_t c, fv__lab_active *a)
{
    size_t m = (size_t)(j->ng > 0 ? j->ng : 1);
    a->n = 0;
    a->delta = j->scratch + 2 * m * (size_t)c;
    a->mask = a->delta + m;
}

/* The groups of line L (outer coordinates co) whose line is inside the block
 * (border = 0: line >= L0) or before it (border = 1: line < L0). */
static void
fv__lab_active_set(const fv__lab_job *j, const int64_t *co, int64_t L, int64_t L0, int border, fv__lab_active *a)
{
    const int no = j->nd - 1;
    a->n = 0;
    for (int k = 0; k < j->ng; k++) {
        const int8_t *o = j->gnb + (size_t)k * no;
        int ok = 1;
        for (int d = 0; d < no && ok; d++) {
            int64_t c = co[d] + o[d];
            ok = c >= 0 && c < j->shape[d];
        }
        if (!ok || ((L + j->gloff[k] < L0) != border))
            continue;
        a->delta[a->n] = j->gloff[k] * j->W;
        a->mask[a->n] = j->gmask[k];
        a->n++;
    }
}

/* The positions [*lo, *hi] of a neighbour line next to the run [x0, x1) for
 * the along-line offsets in mask; 0 when mask is {-1, +1} (not contiguous). */
static inline int
fv__lab_span(int64_t mask, int64_t x0, int64_t x1, int64_t W, int64_t *lo, int64_t *hi)
{
    int omin = (mask & 1) ? -1 : (mask & 2) ? 0 : 1;
    int omax = (mask & 4) ? 1 : (mask & 2) ? 0 : -1;
    *lo = x0 + omin < 0 ? 0 : x0 + omin;
    *hi = x1 - 1 + omax > W - 1 ? W - 1 : x1 - 1 + omax;
    return mask != 5;
}

/* 1 when position y of a neighbour line touches the run [x0, x1) through
 * the offsets {-1, +1}. */
static inline int
fv__lab_touch5(int64_t y, int64_t x0, int64_t x1)
{
    return (y + 1 >= x0 && y + 1 < x1) || (y - 1 >= x0 && y - 1 < x1);
}

static void
fv__lab_coords(const fv__lab_job *j, int64_t L, int64_t *co)
{
    for (int d = j->nd - 2; d >= 0; d--) {
        co[d] = L % j->shape[d];
        L /= j->shape[d];
    }
}

static void
fv__lab_next_line(const fv__lab_job *j, int64_t *co)
{
    for (int d = j->nd - 2; d >= 0; d--) {
        if (++co[d] < j->shape[d])
            return;
        co[d] = 0;
    }
}

/* ---- per index type: find, union, flatten, numbering ------------------------- */

/* separate-scratch path: follow each pixel's links to its root's encoded label
 * and write it as int<B>_t; P is only read, so out gets every pixel in one pass */
#define FV__LAB_DEFINE_EMIT(S, B)                                                       \
    static void fv__lab_emit##B##_##S(void *arg, int64_t cb, int64_t ce)                \
    {                                                                                   \
        fv__lab_job *j = arg;                                                           \
        const fv__lab_##S##_t *P = j->P;                                                \
        int##B##_t *out = j->out;                                                       \
        fv__lab_##S##_t lastp = -1, lastq = -1; /* a run shares its link: chase once */ \
        for (int64_t i = cb * j->W; i < ce * j->W; i++) {                               \
            fv__lab_##S##_t p = P[i], q;                                                \
            if (p == lastp) {                                                           \
                q = lastq;                                                              \
            } else {                                                                    \
                q = p;                                                                  \
                while (q >= 0)                                                          \
                    q = P[q];                                                           \
                lastp = p;                                                              \
                lastq = q;                                                              \
            }                                                                           \
            out[i] = (int##B##_t)(-q - 1);                                              \
        }                                                                               \
    }
typedef int32_t fv__lab_i32_t;
typedef int64_t fv__lab_i64_t;

#define FV__LAB_DEFINE_IT(IT, S)                                                                             \
    /* find with path halving; block-local (no other writer) */                                              \
    static inline IT fv__lab_find_##S(IT *P, IT x)                                                           \
    {                                                                                                        \
        while (P[x] != x) {                                                                                  \
            IT g = P[P[x]];                                                                                  \
            P[x] = g;                                                                                        \
            x = g;                                                                                           \
        }                                                                                                    \
        return x;                                                                                            \
    }                                                                                                        \
    /* find with path halving among concurrent unions */                                                     \
    static inline IT fv__lab_afind_##S(IT *P, IT x)                                                          \
    {                                                                                                        \
        for (;;) {                                                                                           \
            IT p = FV__LD(&P[x]);                                                                            \
            if (p == x)                                                                                      \
                return x;                                                                                    \
            IT g = FV__LD(&P[p]);                                                                            \
            if (g != p)                                                                                      \
                FV__ST(&P[x], g); /* x is no root: g is an ancestor */                                       \
            x = g;                                                                                           \
        }                                                                                                    \
    }                                                                                                        \
    static inline void fv__lab_aunion_##S(IT *P, IT a, IT b)                                                 \
    {                                                                                                        \
        for (;;) {                                                                                           \
            a = fv__lab_afind_##S(P, a);                                                                     \
            b = fv__lab_afind_##S(P, b);                                                                     \
            if (a == b)                                                                                      \
                return;                                                                                      \
            if (a < b) {                                                                                     \
                IT t = a;                                                                                    \
                a = b;                                                                                       \
                b = t;                                                                                       \
            }                                                                                                \
            IT expect = a; /* link the larger root a under b while a is a root */                            \
            if (__atomic_compare_exchange_n(&P[a], &expect, b, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))       \
                return;                                                                                      \
        }                                                                                                    \
    }                                                                                                        \
    /* per block: count the roots; in place (not j->separate) also point every   \
     * pixel at its root */                           \
    static void fv__lab_tally_##S(void *arg, int64_t cb, int64_t ce)                                         \
    {                                                                                                        \
        fv__lab_job *j = arg;                                                                                \
        IT *P = j->P;                                                                                        \
        const int flatten = !j->separate;                                                                    \
        for (int64_t c = cb; c < ce; c++) {                                                                  \
            int64_t cnt = 0, e = j->cstart[c + 1] * j->W;                                                    \
            for (int64_t i = j->cstart[c] * j->W; i < e && !flatten; i++)                                    \
                cnt += P[i] == (IT)i;                                                                        \
            for (int64_t i = j->cstart[c] * j->W; i < e && flatten; i++) {                                   \
                IT p = FV__LD(&P[i]), q;                                                                     \
                if (p < 0)                                                                                   \
                    continue;                                                                                \
                if (p == (IT)i) {                                                                            \
                    cnt++;                                                                                   \
                    continue;                                                                                \
                }                                                                                            \
                while ((q = FV__LD(&P[p])) != p)                                                             \
                    p = q;                                                                                   \
                FV__ST(&P[i], p);                                                                            \
            }                                                                                                \
            j->count[c] = cnt;                                                                               \
        }                                                                                                    \
    }                                                                                                        \
    static void fv__lab_roots_##S(void *arg, int64_t cb, int64_t ce)                                         \
    {                                                                                                        \
        fv__lab_job *j = arg;                                                                                \
        IT *P = j->P;                                                                                        \
        for (int64_t c = cb; c < ce; c++) {                                                                  \
            IT next = (IT)j->count[c];                                                                       \
            int64_t e = j->cstart[c + 1] * j->W;                                                             \
            for (int64_t i = j->cstart[c] * j->W; i < e; i++)                                                \
                if (P[i] == (IT)i)                                                                           \
                    P[i] = -(++next) - 1;                                                                    \
        }                                                                                                    \
    }                                                                                                        \
    FV__LAB_DEFINE_EMIT(S, 32)                                                                               \
    FV__LAB_DEFINE_EMIT(S, 64) /* the in-place path's last two passes: j->members: non-roots take their    \
     * root's encoded label; then encoded labels and -1 decode to label / 0 */ \
    static void fv__lab_decode_##S(void *arg, int64_t cb, int64_t ce)                                        \
    {                                                                                                        \
        fv__lab_job *j = arg;                                                                                \
        IT *P = j->P;                                                                                        \
        const int members = j->members;                                                                      \
        for (int64_t i = cb * j->W; i < ce * j->W; i++) {                                                    \
            IT p = P[i];                                                                                     \
            if (members && p >= 0)                                                                           \
                P[i] = -P[p] - 1;                                                                            \
            else if (!members && p < 0)                                                                      \
                P[i] = -p - 1;                                                                               \
        }                                                                                                    \
    }

FV__LAB_DEFINE_IT(int32_t, i32)
FV__LAB_DEFINE_IT(int64_t, i64)

/* ---- per value type and index type: the two union passes ---------------------- */

/* Both union passes walk each line run by run (a run: equal values, connected
 * along the line when rowconn, else single pixels). Every neighbour line
 * position next to the run with the run's value is united with it; along a
 * neighbour line only the first of each stretch of such positions is, the
 * others being connected to it already (when rowconn). */
#define FV__LAB_DEFINE_SCAN(VT, VS, IT, S)                                                                       \
    /* border = 0: the local pass (links inside the block, sequential find);      \
     * border = 1: the border pass (links to earlier blocks, atomic union) */                              \
    static inline __attribute__((always_inline)) void fv__lab_scan_##VS##_##S(void *arg, int64_t cb, int64_t ce, \
                                                                              const int border)                  \
    {                                                                                                            \
        fv__lab_job *j = arg;                                                                                    \
        const VT *in = j->in;                                                                                    \
        IT *P = j->P;                                                                                            \
        const int hasbg = j->p->has_background, rowconn = j->rowconn;                                            \
        const VT bg = (VT)j->p->background;                                                                      \
        const int64_t W = j->W;                                                                                  \
        fv__lab_active a;                                                                                        \
        for (int64_t c = cb; c < ce; c++) {                                                                      \
            fv__lab_active_init(j, c, &a);                                                                       \
            int64_t L0 = j->cstart[c], L1 = j->cstart[c + 1], co[FV_MAX_NDIM];                                   \
            if (border && L0 == 0)                                                                               \
                continue;                                                                                        \
            if (border && L1 > L0 + j->maxback)                                                                  \
                L1 = L0 + j->maxback;                                                                            \
            fv__lab_coords(j, L0, co);                                                                           \
            for (int64_t L = L0; L < L1; L++, fv__lab_next_line(j, co)) {                                        \
                fv__lab_active_set(j, co, L, L0, border, &a);                                                    \
                if (border && !a.n)                                                                              \
                    continue;                                                                                    \
                const int64_t base = L * W;                                                                      \
                const VT *row = in + base;                                                                       \
                int64_t x0 = 0;                                                                                  \
                while (x0 < W) {                                                                                 \
                    const VT v = row[x0];                                                                        \
                    int64_t x1 = x0 + 1;                                                                         \
                    if (rowconn)                                                                                 \
                        while (x1 < W && row[x1] == v)                                                           \
                            x1++;                                                                                \
                    const int isbg = hasbg && v == bg;                                                           \
                    const IT head = (IT)(base + x0);                                                             \
                    IT r = head; /* root of the run's set so far (local pass) */                                 \
                    if (!border)                                                                                 \
                        for (int64_t x = x0; x < x1; x++)                                                        \
                            P[base + x] = isbg ? -1 : head;                                                      \
                    for (int g = 0; g < a.n && !isbg; g++) {                                                     \
                        const VT *nrow = row + a.delta[g];                                                       \
                        int64_t lo, hi;                                                                          \
                        int span = fv__lab_span(a.mask[g], x0, x1, W, &lo, &hi);                                 \
                        for (int64_t y = lo; y <= hi; y++) {                                                     \
                            if (nrow[y] != v || (!span && !fv__lab_touch5(y, x0, x1)))                           \
                                continue;                                                                        \
                            const IT q = (IT)(base + a.delta[g] + y);                                            \
                            if (span && rowconn) /* the rest of this stretch is joined */                        \
                                while (y < hi && nrow[y + 1] == v)                                               \
                                    y++;                                                                         \
                            if (border) {                                                                        \
                                fv__lab_aunion_##S(P, head, q);                                                  \
                                continue;                                                                        \
                            }                                                                                    \
                            IT rj = fv__lab_find_##S(P, q);                                                      \
                            if (rj < r) {                                                                        \
                                P[r] = rj;                                                                       \
                                r = rj;                                                                          \
                            } else if (rj > r) {                                                                 \
                                P[rj] = r;                                                                       \
                            }                                                                                    \
                        }                                                                                        \
                    }                                                                                            \
                    x0 = x1;                                                                                     \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    }                                                                                                            \
    static void fv__lab_local_##VS##_##S(void *arg, int64_t cb, int64_t ce)                                      \
    {                                                                                                            \
        fv__lab_scan_##VS##_##S(arg, cb, ce, 0);                                                                 \
    }                                                                                                            \
    static void fv__lab_border_##VS##_##S(void *arg, int64_t cb, int64_t ce)                                     \
    {                                                                                                            \
        fv__lab_scan_##VS##_##S(arg, cb, ce, 1);                                                                 \
    }

#define FV__LAB_DEFINE_VT(VT, VS) FV__LAB_DEFINE_SCAN(VT, VS, int32_t, i32) FV__LAB_DEFINE_SCAN(VT, VS, int64_t, i64)
FV__LAB_DEFINE_VT(uint8_t, u8)
FV__LAB_DEFINE_VT(uint16_t, u16)
FV__LAB_DEFINE_VT(uint32_t, u32)
FV__LAB_DEFINE_VT(uint64_t, u64)

typedef struct fv__lab_fns {
    fv__range_fn local, border, tally, roots, decode, emit32, emit64;
} fv__lab_fns;

#define FV__LAB_FNS(VS, S)                                                                                             \
    (fv__lab_fns)                                                                                                      \
    {                                                                                                                  \
        fv__lab_local_##VS##_##S, fv__lab_border_##VS##_##S, fv__lab_tally_##S, fv__lab_roots_##S, fv__lab_decode_##S, \
            fv__lab_emit32_##S, fv__lab_emit64_##S                                                                     \
    }

fv_status
fv__cpu_label(fv_context *ctx, const fv__op_args *a)
{
    const fv__label_params *p = a->params;
    const fv_array *in = a->in;
    const int nd = in->ndim;
    const int64_t n = fv_array_size(in);
    fv__lab_job j = { .p = p, .in = in->data, .P = a->out->data, .nd = nd };
    int64_t *buf = NULL, cst[FV_MAX_NDIM];
    fv_status st = FV_OK;

    if (n == 0) {
        ((fv__label_params *)p)->num = 0;
        return FV_OK;
    }
    memcpy(j.shape, in->shape, sizeof(int64_t) * (size_t)nd);
    j.W = in->shape[nd - 1];
    j.nlines = n / j.W;
    cst[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--)
        cst[d] = cst[d + 1] * in->shape[d + 1];

    int nt = fv_context_threads(ctx);
    int64_t nchunks = n < ((int64_t)1 << 15) || nt <= 1 ? 1 : (int64_t)nt * 4;
    if (nchunks > j.nlines)
        nchunks = j.nlines;
    j.nchunks = nchunks;
    /* one allocation: gloff, gmask-as-int (nnb each), group rows (nnb * nd bytes),
     * cstart (nchunks + 1), count (nchunks), scratch (nchunks * 2 * max(nnb, 1)) */
    size_t nn = (size_t)(p->nnb > 0 ? p->nnb : 1);
    size_t m = nn * 2 + (nn * (size_t)nd + 7) / 8 + (size_t)nchunks * 2 + 1 + (size_t)nchunks * 2 * nn;
    if (!(buf = malloc(m * sizeof(int64_t))))
        return fv_error_set(FV_ENOMEM, "label", "out of memory");
    int64_t *gloff = buf;
    int *gmask = (int *)(gloff + nn);
    int8_t *gnb = (int8_t *)(gloff + 2 * nn);
    int64_t *cstart = gloff + 2 * nn + (nn * (size_t)nd + 7) / 8, *count = cstart + nchunks + 1;
    int ng = 0;
    j.rowconn = 0;
    j.maxback = 0;
    for (int k = 0; k < p->nnb; k++) {
        const int8_t *o = p->nb + (size_t)k * nd;
        int64_t lo = 0;
        int outer = 0;
        for (int d = 0; d < nd - 1; d++) {
            lo += o[d] * (cst[d] / j.W);
            outer |= o[d] != 0;
        }
        if (!outer) { /* (0, ..., 0, -1): the previous pixel on the line */
            j.rowconn = 1;
            continue;
        }
        int g = 0;
        while (g < ng && memcmp(gnb + (size_t)g * (nd - 1), o, (size_t)(nd - 1)))
            g++;
        if (g == ng) {
            memcpy(gnb + (size_t)g * (nd - 1), o, (size_t)(nd - 1));
            gloff[g] = lo;
            gmask[g] = 0;
            ng++;
        }
        gmask[g] |= 1 << (o[nd - 1] + 1);
        if (-lo > j.maxback)
            j.maxback = -lo;
    }
    for (int64_t c = 0; c <= nchunks; c++)
        cstart[c] = j.nlines * c / nchunks;
    j.ng = ng;
    j.gnb = gnb;
    j.gloff = gloff;
    j.gmask = gmask;
    j.cstart = cstart;
    j.count = count;
    j.scratch = count + nchunks;

    /* parent links in 32 bits when n allows (a scratch array, then one pass
     * writes out), else in out itself (int64) */
    const int wide = n >= INT32_MAX - 1, separate = !wide;
    j.separate = separate;
    int64_t *scratchP = NULL;
    if (separate) {
        if (!(scratchP = malloc(sizeof(int32_t) * (size_t)n))) {
            st = fv_error_set(FV_ENOMEM, "label", "out of memory");
            goto done;
        }
        j.P = scratchP;
    }
    j.out = a->out->data;
    fv__lab_fns f;
    switch (fv_dtype_size(in->dtype)) {
    case 1:
        f = wide ? FV__LAB_FNS(u8, i64) : FV__LAB_FNS(u8, i32);
        break;
    case 2:
        f = wide ? FV__LAB_FNS(u16, i64) : FV__LAB_FNS(u16, i32);
        break;
    case 4:
        f = wide ? FV__LAB_FNS(u32, i64) : FV__LAB_FNS(u32, i32);
        break;
    case 8:
        f = wide ? FV__LAB_FNS(u64, i64) : FV__LAB_FNS(u64, i32);
        break;
    default:
        st = fv_error_set(FV_EDTYPE, "label", "unsupported dtype %s", fv_dtype_name(in->dtype));
        goto done;
    }
    fv__parallel_for(ctx, nchunks, 1, f.local, &j);
    if (nchunks > 1)
        fv__parallel_for(ctx, nchunks, 1, f.border, &j);
    fv__parallel_for(ctx, nchunks, 1, f.tally, &j);
    int64_t total = 0;
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t k = count[c];
        count[c] = total; /* labels before this block */
        total += k;
    }
    fv__parallel_for(ctx, nchunks, 1, f.roots, &j);
    if (separate) {
        fv__parallel_for(ctx, j.nlines, 64, a->out->dtype == FV_INT64 ? f.emit64 : f.emit32, &j);
    } else {
        j.members = 1;
        fv__parallel_for(ctx, j.nlines, 64, f.decode, &j);
        j.members = 0;
        fv__parallel_for(ctx, j.nlines, 64, f.decode, &j);
    }
    ((fv__label_params *)p)->num = total;
done:
    free(scratchP);
    free(buf);
    return st;
}

/* ---- FV__OP_BINARY_FLOOD (label-kernels.h) ------------------------------------
 * grow = seed | mask as 0 / 1 bytes, labelled by fv__cpu_label; a flag per
 * label (keep) marks those with a seed or a face pixel of a border axis; out reads
 * its label's flag. The flag writes race only with writes of the same value
 * (relaxed atomic stores). */
typedef struct fv__flood_job {
    const uint8_t *in, *mask;
    uint8_t *grow, *keep, *out;
    const void *lab;
    int wide; /* labels are int64 (else int32) */
    int invert;
} fv__flood_job;

static void
fv__flood_grow(void *arg, int64_t b, int64_t e)
{
    const fv__flood_job *j = arg;
    const uint8_t inv = (uint8_t)j->invert;
    for (int64_t i = b; i < e; i++)
        j->grow[i] = (uint8_t)(((j->in[i] != 0) == inv) | (!j->mask || j->mask[i] != 0));
}

static inline int64_t
fv__flood_lab(const fv__flood_job *j, int64_t i)
{
    return j->wide ? ((const int64_t *)j->lab)[i] : (int64_t)((const int32_t *)j->lab)[i];
}

static void
fv__flood_seeds(void *arg, int64_t b, int64_t e)
{
    const fv__flood_job *j = arg;
    const uint8_t inv = (uint8_t)j->invert;
    for (int64_t i = b; i < e; i++)
        if ((j->in[i] != 0) == inv)
            __atomic_store_n(&j->keep[fv__flood_lab(j, i)], (uint8_t)1, __ATOMIC_RELAXED);
}

static void
fv__flood_out(void *arg, int64_t b, int64_t e)
{
    const fv__flood_job *j = arg;
    const uint8_t flip = (uint8_t)!j->invert;
    if (j->wide) {
        const int64_t *lab = j->lab;
        for (int64_t i = b; i < e; i++)
            j->out[i] = j->keep[lab[i]] ^ flip;
    } else {
        const int32_t *lab = j->lab;
        for (int64_t i = b; i < e; i++)
            j->out[i] = j->keep[lab[i]] ^ flip;
    }
}

fv_status
fv__cpu_binary_flood(fv_context *ctx, const fv__op_args *a)
{
    const fv__binary_flood_params *p = a->params;
    const fv_array *in = a->in;
    const int nd = in->ndim;
    const int64_t n = fv_array_size(in);
    const int wide = n >= INT32_MAX - 1;
    fv_array *grow = NULL, *lab = NULL;
    uint8_t *keep = NULL;
    fv_status st;

    if (n == 0)
        return FV_OK;
    if ((st = fv_array_new(ctx, FV_UINT8, nd, in->shape, in->device, &grow)) ||
        (st = fv_array_new(ctx, wide ? FV_INT64 : FV_INT32, nd, in->shape, in->device, &lab)))
        goto done;
    fv__flood_job j = { .in = (const uint8_t *)in->data,
                        .mask = a->in2 ? (const uint8_t *)a->in2->data : NULL,
                        .grow = (uint8_t *)grow->data,
                        .out = (uint8_t *)a->out->data,
                        .lab = lab->data,
                        .wide = wide,
                        .invert = p->invert };
    fv__parallel_for(ctx, n, (int64_t)1 << 16, fv__flood_grow, &j);
    fv__label_params lp = { .nnb = p->nnb, .nb = p->nb, .has_background = 1, .background = 0 };
    fv__op_args la = { .in = grow, .out = lab, .params = &lp };
    if ((st = fv__cpu_label(ctx, &la)))
        goto done;
    if (!(keep = calloc((size_t)lp.num + 1, 1))) {
        st = fv_error_set(FV_ENOMEM, "binary_flood", "out of memory");
        goto done;
    }
    j.keep = keep;
    fv__parallel_for(ctx, n, (int64_t)1 << 16, fv__flood_seeds, &j);
    for (int d = 0; d < nd; d++) {
        if (!(p->border_axes >> d & 1u))
            continue;
        int64_t inner = 1, len = in->shape[d];
        for (int e = d + 1; e < nd; e++)
            inner *= in->shape[e];
        const int64_t outer = n / (inner * len);
        for (int64_t o = 0; o < outer; o++)
            for (int side = 0; side < 2; side++) {
                const int64_t base = (o * len + (side ? len - 1 : 0)) * inner;
                for (int64_t q = 0; q < inner; q++)
                    j.keep[fv__flood_lab(&j, base + q)] = 1;
            }
    }
    j.keep[0] = 0; /* pixels outside grow */
    fv__parallel_for(ctx, n, (int64_t)1 << 16, fv__flood_out, &j);
done:
    free(keep);
    fv_array_unref(lab);
    fv_array_unref(grow);
    return st;
}

FV_KERNEL(LABEL, CPU, FV_DTYPES_INT | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv__cpu_label);
FV_KERNEL(BINARY_FLOOD, CPU, FV_DTYPE_BIT(FV_BOOL) | FV_DTYPE_BIT(FV_UINT8) | FV_DTYPE_BIT(FV_INT8), FV_MAX_NDIM,
          fv__cpu_binary_flood);
