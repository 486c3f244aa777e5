/* The clamp scan of the CUDA reconstruction's line kernels (src/ops/morphology/
 * rec-scan.h) against the sequential line scan it stands in for, on the host
 * (no GPU needed): host models of the two scan kernels of
 * src/cuda/morphology/reconstruction.cu (rows: tiles of lanes x K pixels,
 * lanes composed in the shuffle scan's order; segs: equal segments walked in
 * order) and of a random cutting composed as a balanced tree must give, bit
 * for bit, the sequential kernel's forward + backward result. Every dtype,
 * both directions, lengths 1..1000, ties, v == m, v past m, and for floats
 * signed zeros, infinities and NaN in either input. Then the composition
 * itself, exhaustively over small value sets: one pixel after another, and
 * associativity, as functions (bits) on every input. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/morphology/rec-scan.h"
#include "check.h"
#define FV_T_SEED 0x5deece66dull
#include "xorshift.h"

static int64_t
below(int64_t n)
{
    return (int64_t)(next_u64() % (uint64_t)n);
}

/* ---- the sequential kernel and the models, per (T, S, DIR) ----------------------------------- */

#define MODELS(T, S, DIR)                                                                             \
    /* the sequential line walk (fv_k_rec_lines_DIR_S's body) on one contiguous line */               \
    static void seq_##DIR##_##S(const T *mask, T *out, int64_t len, const int64_t *ax, int nax)       \
    {                                                                                                 \
        fv__rec_line_##DIR##_##S(mask, out, 0, 1, len, ax, nax);                                      \
    }                                                                                                 \
    /* fv_k_rec_rows: tiles of lanes * k pixels; lane l composes [lk, lk + k), a Hillis-Steele      \
     * scan over the lanes (each step reads the previous step's values, as __shfl_up_sync does),    \
     * lane l starts from lane l - 1's inclusive clamp applied to the carry. */ \
    static void rows_##DIR##_##S(const T *mask, T *out, int64_t len, int passes, int lanes, int k)    \
    {                                                                                                 \
        const int tile = lanes * k;                                                                   \
        T *tv = malloc((size_t)tile * sizeof *tv), *tm = malloc((size_t)tile * sizeof *tm);           \
        T *la = malloc((size_t)lanes * sizeof *la), *lb = malloc((size_t)lanes * sizeof *lb);         \
        T *oa = malloc((size_t)lanes * sizeof *oa), *ob = malloc((size_t)lanes * sizeof *ob);         \
        for (int pass = 0; pass < 2; pass++) {                                                        \
            if (!((passes >> pass) & 1))                                                              \
                continue;                                                                             \
            T carry = fv__rec_start_##DIR##_##S();                                                    \
            for (int64_t t0 = 0; t0 < len; t0 += tile) {                                              \
                const int n = (int)(len - t0 < tile ? len - t0 : tile);                               \
                for (int q = 0; q < n; q++) {                                                         \
                    int64_t t = pass ? len - 1 - t0 - q : t0 + q;                                     \
                    tv[q] = out[t];                                                                   \
                    tm[q] = mask[t];                                                                  \
                }                                                                                     \
                for (int l = 0; l < lanes; l++) {                                                     \
                    const int q0 = l * k, q1 = q0 + k < n ? q0 + k : n;                               \
                    T pa, pb;                                                                         \
                    la[l] = lb[l] = carry;                                                            \
                    if (q0 < n) {                                                                     \
                        fv__rec_pixel_##DIR##_##S(tv[q0], tm[q0], &la[l], &lb[l]);                    \
                        for (int q = q0 + 1; q < q1; q++) {                                           \
                            fv__rec_pixel_##DIR##_##S(tv[q], tm[q], &pa, &pb);                        \
                            fv__rec_after_##DIR##_##S(pa, pb, &la[l], &lb[l]);                        \
                        }                                                                             \
                    }                                                                                 \
                }                                                                                     \
                for (int off = 1; off < lanes; off <<= 1) {                                           \
                    memcpy(oa, la, (size_t)lanes * sizeof *oa);                                       \
                    memcpy(ob, lb, (size_t)lanes * sizeof *ob);                                       \
                    for (int l = off; l < lanes; l++) {                                               \
                        T pa = oa[l - off], pb = ob[l - off];                                         \
                        fv__rec_after_##DIR##_##S(oa[l], ob[l], &pa, &pb);                            \
                        la[l] = pa;                                                                   \
                        lb[l] = pb;                                                                   \
                    }                                                                                 \
                }                                                                                     \
                for (int l = 0; l < lanes; l++) {                                                     \
                    const int q0 = l * k, q1 = q0 + k < n ? q0 + k : n;                               \
                    T x = l ? fv__rec_clamp_##DIR##_##S(la[l - 1], lb[l - 1], carry) : carry, pa, pb; \
                    for (int q = q0; q < q1; q++) {                                                   \
                        fv__rec_pixel_##DIR##_##S(tv[q], tm[q], &pa, &pb);                            \
                        x = fv__rec_clamp_##DIR##_##S(pa, pb, x);                                     \
                        tm[q] = x;                                                                    \
                    }                                                                                 \
                }                                                                                     \
                carry = tm[n - 1];                                                                    \
                for (int q = 0; q < n; q++)                                                           \
                    if (FV__REC_LT_##DIR(tv[q], tm[q]))                                               \
                        out[pass ? len - 1 - t0 - q : t0 + q] = tm[q];                                \
            }                                                                                         \
        }                                                                                             \
        free(tv);                                                                                     \
        free(tm);                                                                                     \
        free(la);                                                                                     \
        free(lb);                                                                                     \
        free(oa);                                                                                     \
        free(ob);                                                                                     \
    }                                                                                                 \
    /* fv_k_rec_segs: nseg equal segments (the last ones may be empty); segment y starts from       \
     * the segments before it in walk order, applied one by one to START. */ \
    static void segs_##DIR##_##S(const T *mask, T *out, int64_t len, int passes, int nsegmax)         \
    {                                                                                                 \
        const int64_t seg = (len + nsegmax - 1) / nsegmax;                                            \
        const int nseg = (int)((len + seg - 1) / seg);                                                \
        T *sa = malloc((size_t)nseg * sizeof *sa), *sb = malloc((size_t)nseg * sizeof *sb);           \
        for (int pass = 0; pass < 2; pass++) {                                                        \
            if (!((passes >> pass) & 1))                                                              \
                continue;                                                                             \
            for (int y = 0; y < nseg; y++) {                                                          \
                const int64_t lo = y * seg, hi = lo + seg < len ? lo + seg : len;                     \
                T pa, pb;                                                                             \
                int64_t t = pass ? hi - 1 : lo;                                                       \
                fv__rec_pixel_##DIR##_##S(out[t], mask[t], &sa[y], &sb[y]);                           \
                for (int64_t k = 1; k < hi - lo; k++) {                                               \
                    t = pass ? hi - 1 - k : lo + k;                                                   \
                    fv__rec_pixel_##DIR##_##S(out[t], mask[t], &pa, &pb);                             \
                    fv__rec_after_##DIR##_##S(pa, pb, &sa[y], &sb[y]);                                \
                }                                                                                     \
            }                                                                                         \
            for (int y = 0; y < nseg; y++) {                                                          \
                const int64_t lo = y * seg, hi = lo + seg < len ? lo + seg : len;                     \
                T x = fv__rec_start_##DIR##_##S(), pa, pb;                                            \
                if (!pass)                                                                            \
                    for (int j = 0; j < y; j++)                                                       \
                        x = fv__rec_clamp_##DIR##_##S(sa[j], sb[j], x);                               \
                else                                                                                  \
                    for (int j = nseg - 1; j > y; j--)                                                \
                        x = fv__rec_clamp_##DIR##_##S(sa[j], sb[j], x);                               \
                for (int64_t k = 0; k < hi - lo; k++) {                                               \
                    const int64_t t = pass ? hi - 1 - k : lo + k;                                     \
                    const T v = out[t];                                                               \
                    fv__rec_pixel_##DIR##_##S(v, mask[t], &pa, &pb);                                  \
                    x = fv__rec_clamp_##DIR##_##S(pa, pb, x);                                         \
                    if (FV__REC_LT_##DIR(v, x))                                                       \
                        out[t] = x;                                                                   \
                }                                                                                     \
            }                                                                                         \
        }                                                                                             \
        free(sa);                                                                                     \
        free(sb);                                                                                     \
    }                                                                                                 \
    /* the chunks [lo, hi) of c[0..nc) composed, later chunks outside, split in the middle */         \
    static void tree_##DIR##_##S(const T *ca, const T *cb, int lo, int hi, T *a, T *b)                \
    {                                                                                                 \
        if (hi - lo == 1) {                                                                           \
            *a = ca[lo];                                                                              \
            *b = cb[lo];                                                                              \
            return;                                                                                   \
        }                                                                                             \
        T ua, ub;                                                                                     \
        const int mid = lo + (hi - lo) / 2;                                                           \
        tree_##DIR##_##S(ca, cb, lo, mid, a, b);                                                      \
        tree_##DIR##_##S(ca, cb, mid, hi, &ua, &ub);                                                  \
        fv__rec_after_##DIR##_##S(ua, ub, a, b);                                                      \
    }                                                                                                 \
    /* random cut points (walk order), each chunk's start from its predecessors composed as a       \
     * balanced tree and applied to START */ \
    static void cuts_##DIR##_##S(const T *mask, T *out, int64_t len, int passes)                      \
    {                                                                                                 \
        int64_t *cut = malloc((size_t)(len + 1) * sizeof *cut);                                       \
        T *ca = malloc((size_t)len * sizeof *ca), *cb = malloc((size_t)len * sizeof *cb);             \
        T *w = malloc((size_t)len * sizeof *w), *wm = malloc((size_t)len * sizeof *wm);               \
        for (int pass = 0; pass < 2; pass++) {                                                        \
            if (!((passes >> pass) & 1))                                                              \
                continue;                                                                             \
            int nc = 0;                                                                               \
            const int64_t every = 1 + below(len < 40 ? len : 40);                                     \
            cut[0] = 0;                                                                               \
            for (int64_t t = 1; t < len; t++)                                                         \
                if (below(every) == 0)                                                                \
                    cut[++nc] = t;                                                                    \
            cut[++nc] = len;                                                                          \
            for (int64_t q = 0; q < len; q++) { /* the line in walk order */                          \
                w[q] = out[pass ? len - 1 - q : q];                                                   \
                wm[q] = mask[pass ? len - 1 - q : q];                                                 \
            }                                                                                         \
            for (int c = 0; c < nc; c++) {                                                            \
                T pa, pb;                                                                             \
                fv__rec_pixel_##DIR##_##S(w[cut[c]], wm[cut[c]], &ca[c], &cb[c]);                     \
                for (int64_t q = cut[c] + 1; q < cut[c + 1]; q++) {                                   \
                    fv__rec_pixel_##DIR##_##S(w[q], wm[q], &pa, &pb);                                 \
                    fv__rec_after_##DIR##_##S(pa, pb, &ca[c], &cb[c]);                                \
                }                                                                                     \
            }                                                                                         \
            for (int c = nc - 1; c >= 0; c--) {                                                       \
                T x = fv__rec_start_##DIR##_##S(), pa, pb;                                            \
                if (c) {                                                                              \
                    tree_##DIR##_##S(ca, cb, 0, c, &pa, &pb);                                         \
                    x = fv__rec_clamp_##DIR##_##S(pa, pb, x);                                         \
                }                                                                                     \
                for (int64_t q = cut[c]; q < cut[c + 1]; q++) {                                       \
                    fv__rec_pixel_##DIR##_##S(w[q], wm[q], &pa, &pb);                                 \
                    x = fv__rec_clamp_##DIR##_##S(pa, pb, x);                                         \
                    if (FV__REC_LT_##DIR(w[q], x))                                                    \
                        out[pass ? len - 1 - q : q] = x;                                              \
                }                                                                                     \
            }                                                                                         \
        }                                                                                             \
        free(cut);                                                                                    \
        free(ca);                                                                                     \
        free(cb);                                                                                     \
        free(w);                                                                                      \
        free(wm);                                                                                     \
    }

/* ---- values: few (ties), the type's extremes, and for floats -0, +-inf and NaN ------------------- */

static double fpal[] = { 0.0, -0.0, 1.0, 2.0, 3.0, -1.0, 0.5, INFINITY, -INFINITY, NAN };
enum {
    FPAL_NONAN = 9,
    FPAL_ALL = 10
};

#define GEN_INT(T, S)                            \
    static T gen_##S(int nan)                    \
    {                                            \
        (void)nan;                               \
        if ((T)FV__REC_HIGH_##S == 1) /* bool */ \
            return (T)below(2);                  \
        switch (below(10)) {                     \
        case 0:                                  \
            return (T)FV__REC_LOW_##S;           \
        case 1:                                  \
            return (T)FV__REC_HIGH_##S;          \
        case 2:                                  \
            return (T)(FV__REC_LOW_##S + 1);     \
        case 3:                                  \
            return (T)(FV__REC_HIGH_##S - 1);    \
        default:                                 \
            return (T)below(6);                  \
        }                                        \
    }
#define GEN_FLOAT(T, S)                                     \
    static T gen_##S(int nan)                               \
    {                                                       \
        return (T)fpal[below(nan ? FPAL_ALL : FPAL_NONAN)]; \
    }
GEN_INT(uint8_t, b)
GEN_INT(uint8_t, u8)
GEN_INT(uint16_t, u16)
GEN_INT(uint32_t, u32)
GEN_INT(uint64_t, u64)
GEN_INT(int8_t, i8)
GEN_INT(int16_t, i16)
GEN_INT(int32_t, i32)
GEN_INT(int64_t, i64)
GEN_FLOAT(float, f32)
GEN_FLOAT(double, f64)

/* ---- the scans on random lines -------------------------------------------------------------------- */

static const int64_t lens[] = { 1, 2, 3, 7, 8, 9, 31, 32, 33, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1000 };
enum {
    NLENS = (int)(sizeof lens / sizeof lens[0])
};
/* the on-axis offsets of the sequential kernel, and the passes they make */
static const int64_t axsets[4][2] = { { 1, -1 }, { -1, 1 }, { 1, 0 }, { -1, 0 } };
static const int axn[4] = { 2, 2, 1, 1 }, axpasses[4] = { 3, 3, 1, 2 };

#define SCANS(T, S, DIR)                                                                                             \
    static int scans_##DIR##_##S(int cases)                                                                          \
    {                                                                                                                \
        int bad = 0;                                                                                                 \
        T *mask = malloc(1000 * sizeof *mask), *v = malloc(1000 * sizeof *v);                                        \
        T *want = malloc(1000 * sizeof *want), *got = malloc(1000 * sizeof *got);                                    \
        for (int c = 0; c < cases; c++) {                                                                            \
            const int64_t len = c < NLENS ? lens[c] : 1 + below(1000);                                               \
            const int mode = c % 3, nan = (c / 3) % 2, ax = (c / 6) % 4;                                             \
            for (int64_t i = 0; i < len; i++) {                                                                      \
                T m = gen_##S(nan), s = gen_##S(nan);                                                                \
                mask[i] = m;                                                                                         \
                if (mode == 0) /* anything, v past m too */                                                          \
                    v[i] = s;                                                                                        \
                else if (mode == 1) /* out after init: min(seed, mask) */                                            \
                    v[i] = FV__REC_LT_##DIR(m, s) ? m : s;                                                           \
                else /* v == m half the time */                                                                      \
                    v[i] = below(2) ? m : (FV__REC_LT_##DIR(m, s) ? m : s);                                          \
            }                                                                                                        \
            memcpy(want, v, (size_t)len * sizeof *v);                                                                \
            seq_##DIR##_##S(mask, want, len, axsets[ax], axn[ax]);                                                   \
            const int lanes = c % 4 == 0 ? 32 : 1 + (int)below(32);                                                  \
            const int k = c % 4 == 0 ? 8 : 1 + (int)below(9);                                                        \
            memcpy(got, v, (size_t)len * sizeof *v);                                                                 \
            rows_##DIR##_##S(mask, got, len, axpasses[ax], lanes, k);                                                \
            if (memcmp(got, want, (size_t)len * sizeof *v)) {                                                        \
                bad++;                                                                                               \
                fprintf(stderr, "rows %s %s: len %lld lanes %d k %d mode %d ax %d differs\n", #DIR, #S,              \
                        (long long)len, lanes, k, mode, ax);                                                         \
            }                                                                                                        \
            const int nseg = 1 + (int)below(c % 2 ? 16 : 40);                                                        \
            memcpy(got, v, (size_t)len * sizeof *v);                                                                 \
            segs_##DIR##_##S(mask, got, len, axpasses[ax], nseg);                                                    \
            if (memcmp(got, want, (size_t)len * sizeof *v)) {                                                        \
                bad++;                                                                                               \
                fprintf(stderr, "segs %s %s: len %lld nseg %d mode %d ax %d differs\n", #DIR, #S, (long long)len,    \
                        nseg, mode, ax);                                                                             \
            }                                                                                                        \
            memcpy(got, v, (size_t)len * sizeof *v);                                                                 \
            cuts_##DIR##_##S(mask, got, len, axpasses[ax]);                                                          \
            if (memcmp(got, want, (size_t)len * sizeof *v)) {                                                        \
                bad++;                                                                                               \
                fprintf(stderr, "cuts %s %s: len %lld mode %d ax %d differs\n", #DIR, #S, (long long)len, mode, ax); \
            }                                                                                                        \
        }                                                                                                            \
        free(mask);                                                                                                  \
        free(v);                                                                                                     \
        free(want);                                                                                                  \
        free(got);                                                                                                   \
        return bad;                                                                                                  \
    }

/* ---- the composition on every combination of a small value set ------------------------------------ */

#define COMPOSE(T, S, DIR)                                                                                             \
    /* pal[0..np): f2 o f1 o f0 of pixels (v, m) from pal, applied to every x in pal; the pairs of   \
     * f1 o f0 and f2 o (f1 o f0) and (f2 o f1) o f0 must give the functions' bits. */                 \
    static int compose_##DIR##_##S(const T *pal, int np)                                                               \
    {                                                                                                                  \
        int bad = 0;                                                                                                   \
        for (int i0 = 0; i0 < np * np; i0++)                                                                           \
            for (int i1 = 0; i1 < np * np; i1++)                                                                       \
                for (int i2 = 0; i2 < np * np; i2++) {                                                                 \
                    T a0, b0, a1, b1, a2, b2;                                                                          \
                    fv__rec_pixel_##DIR##_##S(pal[i0 % np], pal[i0 / np], &a0, &b0);                                   \
                    fv__rec_pixel_##DIR##_##S(pal[i1 % np], pal[i1 / np], &a1, &b1);                                   \
                    fv__rec_pixel_##DIR##_##S(pal[i2 % np], pal[i2 / np], &a2, &b2);                                   \
                    T la = a0, lb = b0, ra = a1, rb = b1; /* l: f2 o (f1 o f0), r: (f2 o f1) o f0 */                   \
                    fv__rec_after_##DIR##_##S(a1, b1, &la, &lb);                                                       \
                    T ma = la, mb = lb; /* f1 o f0 */                                                                  \
                    fv__rec_after_##DIR##_##S(a2, b2, &la, &lb);                                                       \
                    fv__rec_after_##DIR##_##S(a2, b2, &ra, &rb);                                                       \
                    T qa = a0, qb = b0;                                                                                \
                    fv__rec_after_##DIR##_##S(ra, rb, &qa, &qb);                                                       \
                    for (int j = 0; j <= np; j++) {                                                                    \
                        T x = j < np ? pal[j] : fv__rec_start_##DIR##_##S();                                           \
                        T y1 = fv__rec_clamp_##DIR##_##S(a1, b1, fv__rec_clamp_##DIR##_##S(a0, b0, x));                \
                        T y2 = fv__rec_clamp_##DIR##_##S(a2, b2, y1);                                                  \
                        T g1 = fv__rec_clamp_##DIR##_##S(ma, mb, x);                                                   \
                        T gl = fv__rec_clamp_##DIR##_##S(la, lb, x);                                                   \
                        T gr = fv__rec_clamp_##DIR##_##S(qa, qb, x);                                                   \
                        if (memcmp(&g1, &y1, sizeof(T)) || memcmp(&gl, &y2, sizeof(T)) || memcmp(&gr, &y2, sizeof(T))) \
                            bad++;                                                                                     \
                    }                                                                                                  \
                }                                                                                                      \
        return bad;                                                                                                    \
    }

#define ALL(E, T, S) \
    MODELS(T, S, dil) MODELS(T, S, ero) SCANS(T, S, dil) SCANS(T, S, ero) COMPOSE(T, S, dil) COMPOSE(T, S, ero)
FV_FOREACH_DTYPE(ALL)

/* The step of one pixel, written out: the kernel's update and the clamp agree, NaN included. */
static void
test_pixel_step(void)
{
    int bad = 0;
    for (int i = 0; i < FPAL_ALL * FPAL_ALL * FPAL_ALL; i++) {
        double v = fpal[i % FPAL_ALL], m = fpal[i / FPAL_ALL % FPAL_ALL], u = fpal[i / (FPAL_ALL * FPAL_ALL)];
        double a, b, best = v, want = v;
        if (v < m) { /* fv_k_rec_lines_dil */
            if (best < u)
                best = u;
            if (m < best)
                best = m;
            if (v < best)
                want = best;
        }
        fv__rec_pixel_dil_f64(v, m, &a, &b);
        double got = fv__rec_clamp_dil_f64(a, b, u);
        bad += memcmp(&got, &want, sizeof got) != 0;
    }
    CHECK(bad == 0);
}

int
main(void)
{
    test_pixel_step();
#define RUN_SCANS(E, T, S)                                    \
    {                                                         \
        int bd = scans_dil_##S(400), be = scans_ero_##S(400); \
        CHECK(bd == 0);                                       \
        CHECK(be == 0);                                       \
    }
    FV_FOREACH_DTYPE(RUN_SCANS)
#undef RUN_SCANS
    /* exhaustive composition: floats over fpal (signed zeros, infinities, NaN), integers over a
     * few values with ties and the extremes */
#define RUN_COMPOSE(E, T, S)                                                                 \
    {                                                                                        \
        T pal[FPAL_ALL];                                                                     \
        int np = 0;                                                                          \
        if ((T)0.5 != 0) /* float */                                                         \
            for (; np < FPAL_ALL; np++)                                                      \
                pal[np] = (T)fpal[np];                                                       \
        else if ((T)FV__REC_HIGH_##S == 1) { /* bool */                                      \
            pal[np++] = 0;                                                                   \
            pal[np++] = 1;                                                                   \
        } else {                                                                             \
            const T ints[] = { (T)FV__REC_LOW_##S,        (T)(FV__REC_LOW_##S + 1), 0, 1, 2, \
                               (T)(FV__REC_HIGH_##S - 1), (T)FV__REC_HIGH_##S };             \
            for (; np < (int)(sizeof ints / sizeof ints[0]); np++)                           \
                pal[np] = ints[np];                                                          \
        }                                                                                    \
        CHECK(compose_dil_##S(pal, np) == 0);                                                \
        CHECK(compose_ero_##S(pal, np) == 0);                                                \
    }
    FV_FOREACH_DTYPE(RUN_COMPOSE)
#undef RUN_COMPOSE
    return fv_t_summary("rec_scan");
}
