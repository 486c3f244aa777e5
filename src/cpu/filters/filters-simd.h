/* Elementwise min / max of float and double arrays with the exact semantics of
 * the C expressions they replace (x86 minps/maxps: the second operand wins on
 * ties and NaN), which compilers will not vectorise from `a < b ? a : b` on
 * floats while FP exceptions are honoured. Output may alias either input. */
#ifndef FV_FILTERS_SIMD_H
#define FV_FILTERS_SIMD_H

#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The SSE2 steps before the scalar loops below (nothing without SSE2): for
 * d = min / max(a, b) two vectors of W lanes a step by INS; for the
 * compare-exchange one vector a step. */
#if defined(__SSE2__)
#define FV__VSTEP(V, W, LD, ST, INS)                  \
    for (; i + 2 * (W) <= n; i += 2 * (W)) {          \
        V x0 = INS(LD(a + i), LD(b + i));             \
        V x1 = INS(LD(a + i + (W)), LD(b + i + (W))); \
        ST(d + i, x0);                                \
        ST(d + i + (W), x1);                          \
    }
#define FV__VSTEP_CX(V, W, LD, ST, MIN, MAX) \
    for (; i + (W) <= n; i += (W)) {         \
        V x = LD(a + i);                     \
        V y = LD(b + i);                     \
        ST(a + i, MIN(y, x));                \
        ST(b + i, MAX(x, y));                \
    }
#else
#define FV__VSTEP(...)
#define FV__VSTEP_CX(...)
#endif

/* fv__vmin_S: d[i] = a[i] < b[i] ? a[i] : b[i]; fv__vmax_S: d[i] = a[i] > b[i] ? a[i] : b[i];
 * fv__vcx_S, the compare-exchange: a[i] = b[i] < a[i] ? b[i] : a[i],
 * b[i] = a[i] > b[i] ? a[i] : b[i] (old values on the right). VMIN / VMAX / VCX:
 * the vector steps before the scalar loops (empty for the integer types: the
 * compiler vectorises their plain loops). */
#define FV__VDEFINE(T, S, RESTRICT, VMIN, VMAX, VCX)                         \
    static inline void fv__vmin_##S(T *d, const T *a, const T *b, int64_t n) \
    {                                                                        \
        int64_t i = 0;                                                       \
        VMIN for (; i < n; i++) d[i] = a[i] < b[i] ? a[i] : b[i];            \
    }                                                                        \
    static inline void fv__vmax_##S(T *d, const T *a, const T *b, int64_t n) \
    {                                                                        \
        int64_t i = 0;                                                       \
        VMAX for (; i < n; i++) d[i] = a[i] > b[i] ? a[i] : b[i];            \
    }                                                                        \
    static inline void fv__vcx_##S(T *RESTRICT a, T *RESTRICT b, int64_t n)  \
    {                                                                        \
        int64_t i = 0;                                                       \
        VCX for (; i < n; i++)                                               \
        {                                                                    \
            T x = a[i], y = b[i];                                            \
            a[i] = y < x ? y : x;                                            \
            b[i] = x > y ? x : y;                                            \
        }                                                                    \
    }

FV__VDEFINE(double, f64, , FV__VSTEP(__m128d, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_min_pd),
            FV__VSTEP(__m128d, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_max_pd),
            FV__VSTEP_CX(__m128d, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_min_pd, _mm_max_pd))
FV__VDEFINE(float, f32, , FV__VSTEP(__m128, 4, _mm_loadu_ps, _mm_storeu_ps, _mm_min_ps),
            FV__VSTEP(__m128, 4, _mm_loadu_ps, _mm_storeu_ps, _mm_max_ps),
            FV__VSTEP_CX(__m128, 4, _mm_loadu_ps, _mm_storeu_ps, _mm_min_ps, _mm_max_ps))
FV__VDEFINE(uint8_t, b, restrict, , , )
FV__VDEFINE(uint8_t, u8, restrict, , , )
FV__VDEFINE(uint16_t, u16, restrict, , , )
FV__VDEFINE(uint32_t, u32, restrict, , , )
FV__VDEFINE(uint64_t, u64, restrict, , , )
FV__VDEFINE(int8_t, i8, restrict, , , )
FV__VDEFINE(int16_t, i16, restrict, , , )
FV__VDEFINE(int32_t, i32, restrict, , , )
FV__VDEFINE(int64_t, i64, restrict, , , )
#undef FV__VDEFINE
#undef FV__VSTEP
#undef FV__VSTEP_CX

#endif
