/* The line scans of the reconstruction kernels as prefix scans of clamps
 * (src/cuda/morphology/reconstruction.cu; host model: tests/c/test_rec_scan.c).
 *
 * Along an axis whose neighbour offsets are +1 (and/or -1), the sequential scan
 * of one line (dilation; erosion swaps the order, LT below) visits t = 0, 1, ...
 * and, where v_t < m_t (v: out before the pass, m: mask), sets
 *     out[t] = min(m_t, max(v_t, out[t-1])),
 * written with the comparisons of the kernel:
 *     f_t(x) = v_t < x ? (m_t < x ? m_t : x) : v_t      when v_t < m_t
 *     f_t(x) = v_t                                     otherwise (NaN v or m too)
 * so out[t] = f_t(out[t-1]), and out[0] = f_0(START) = v_0 with START the
 * lowest value in the order (-inf, or the type's minimum; no predecessor).
 *
 * Every f_t is a clamp h_(a,b)(x) = b < x ? (a < x ? a : x) : b with b <= a:
 * a pixel is (a, b) = (v < m ? m : v, v). Clamps are closed under composition,
 *     h_(a1,b1) o h_(a0,b0) = h_(h_(a1,b1)(a0), h_(a1,b1)(b0)),
 * and this holds bit for bit, ties and signed zeros included: the clamp
 * returns one of its arguments' bits in every case, and a case check shows the
 * composed pair picks the same one (a NaN pair (NaN, NaN) is the constant NaN,
 * and h(NaN) = b, as the kernel ignores a NaN predecessor). Composition is
 * associative, so a line is an inclusive prefix scan of (a, b) pairs, cut into
 * chunks (warp lanes, block segments) in any way: a chunk's pair is its pixels
 * composed in walk order, a chunk starts from its predecessors' pairs applied
 * to the carry, and out[t] = f_t(out[t-1]) within the chunk.
 *
 * Plain C; the helpers compile as device code under nvcc too (FV_HD). */
#ifndef FV_REC_SCAN_H
#define FV_REC_SCAN_H

#include <math.h>
#include <stdint.h>
#include "dtype-list.h"
#include "cast.h" /* FV_HD */

/* "a comes before b" in the direction's order: values move up it. */
#define FV__REC_LT_dil(a, b) ((a) < (b))
#define FV__REC_LT_ero(a, b) ((a) > (b))

/* The lowest and highest value of each dtype suffix. */
#define FV__REC_LOW_b 0
#define FV__REC_LOW_u8 0
#define FV__REC_LOW_u16 0
#define FV__REC_LOW_u32 0
#define FV__REC_LOW_u64 0
#define FV__REC_LOW_i8 INT8_MIN
#define FV__REC_LOW_i16 INT16_MIN
#define FV__REC_LOW_i32 INT32_MIN
#define FV__REC_LOW_i64 INT64_MIN
#define FV__REC_LOW_f32 (-INFINITY)
#define FV__REC_LOW_f64 (-(double)INFINITY)
#define FV__REC_HIGH_b 1
#define FV__REC_HIGH_u8 UINT8_MAX
#define FV__REC_HIGH_u16 UINT16_MAX
#define FV__REC_HIGH_u32 UINT32_MAX
#define FV__REC_HIGH_u64 UINT64_MAX
#define FV__REC_HIGH_i8 INT8_MAX
#define FV__REC_HIGH_i16 INT16_MAX
#define FV__REC_HIGH_i32 INT32_MAX
#define FV__REC_HIGH_i64 INT64_MAX
#define FV__REC_HIGH_f32 INFINITY
#define FV__REC_HIGH_f64 ((double)INFINITY)
/* The carry of a line's first pixel: first in the order (f(START) = v for every pixel). */
#define FV__REC_START_dil(S) FV__REC_LOW_##S
#define FV__REC_START_ero(S) FV__REC_HIGH_##S

/* Per (T, S, DIR):
 *   fv__rec_start_DIR_S()              START
 *   fv__rec_clamp_DIR_S(a, b, x)       h_(a,b)(x)
 *   fv__rec_pixel_DIR_S(v, m, &a, &b)  the clamp f of a pixel (value v, mask m)
 *   fv__rec_after_DIR_S(a, b, &a0, &b0)  (a0, b0) := h_(a,b) o h_(a0,b0)
 *   fv__rec_line_DIR_S(mask, out, base, st, len, ax, nax)  the sequential line walk */
#define FV__REC_SCAN_DEFINE(T, S, DIR)                                                                \
    FV_HD T fv__rec_start_##DIR##_##S(void)                                                           \
    {                                                                                                 \
        return (T)FV__REC_START_##DIR(S);                                                             \
    }                                                                                                 \
    FV_HD T fv__rec_clamp_##DIR##_##S(T a, T b, T x)                                                  \
    {                                                                                                 \
        return FV__REC_LT_##DIR(b, x) ? (FV__REC_LT_##DIR(a, x) ? a : x) : b;                         \
    }                                                                                                 \
    FV_HD void fv__rec_pixel_##DIR##_##S(T v, T m, T *a, T *b)                                        \
    {                                                                                                 \
        *a = FV__REC_LT_##DIR(v, m) ? m : v;                                                          \
        *b = v;                                                                                       \
    }                                                                                                 \
    FV_HD void fv__rec_after_##DIR##_##S(T a, T b, T *a0, T *b0)                                      \
    {                                                                                                 \
        T na = fv__rec_clamp_##DIR##_##S(a, b, *a0), nb = fv__rec_clamp_##DIR##_##S(a, b, *b0);       \
        *a0 = na;                                                                                     \
        *b0 = nb;                                                                                     \
    }                                                                                                 \
    /* The sequential walk of one line (the CUDA line kernel's body, and the scans' reference):     \
     * pixels base + t * st, t < len; forward then backward, each pass taking the on-axis          \
     * offsets ax[0..nax) that point back along it; a pixel rises to min(mask, max of them). */ \
    FV_HD void fv__rec_line_##DIR##_##S(const T *mask, T *out, int64_t base, int64_t st, int64_t len, \
                                        const int64_t *ax, int nax)                                   \
    {                                                                                                 \
        for (int pass = 0; pass < 2; pass++) {                                                        \
            for (int64_t t0 = 0; t0 < len; t0++) {                                                    \
                int64_t t = pass ? len - 1 - t0 : t0, x = base + t * st;                              \
                T v = out[x], m = mask[x], best = v;                                                  \
                if (!FV__REC_LT_##DIR(v, m))                                                          \
                    continue;                                                                         \
                for (int k = 0; k < nax; k++) {                                                       \
                    int64_t a = ax[k], src = t - a;                                                   \
                    if ((pass ? a >= 0 : a <= 0) || src < 0 || src >= len)                            \
                        continue;                                                                     \
                    T u = out[base + src * st];                                                       \
                    if (FV__REC_LT_##DIR(best, u))                                                    \
                        best = u;                                                                     \
                }                                                                                     \
                if (FV__REC_LT_##DIR(m, best))                                                        \
                    best = m;                                                                         \
                if (FV__REC_LT_##DIR(v, best))                                                        \
                    out[x] = best;                                                                    \
            }                                                                                         \
        }                                                                                             \
    }

#define FV__REC_SCAN_BOTH(E, T, S) FV__REC_SCAN_DEFINE(T, S, dil) FV__REC_SCAN_DEFINE(T, S, ero)
FV_FOREACH_DTYPE(FV__REC_SCAN_BOTH)
#undef FV__REC_SCAN_BOTH

#endif
