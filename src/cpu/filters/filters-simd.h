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

/* d[i] = a[i] < b[i] ? a[i] : b[i] */
static inline void
fv__vmin_f64(double *d, const double *a, const double *b, int64_t n)
{
    int64_t i = 0;
#if defined(__SSE2__)
    for (; i + 4 <= n; i += 4) {
        __m128d x0 = _mm_min_pd(_mm_loadu_pd(a + i), _mm_loadu_pd(b + i));
        __m128d x1 = _mm_min_pd(_mm_loadu_pd(a + i + 2), _mm_loadu_pd(b + i + 2));
        _mm_storeu_pd(d + i, x0);
        _mm_storeu_pd(d + i + 2, x1);
    }
#endif
    for (; i < n; i++)
        d[i] = a[i] < b[i] ? a[i] : b[i];
}

/* d[i] = a[i] > b[i] ? a[i] : b[i] */
static inline void
fv__vmax_f64(double *d, const double *a, const double *b, int64_t n)
{
    int64_t i = 0;
#if defined(__SSE2__)
    for (; i + 4 <= n; i += 4) {
        __m128d x0 = _mm_max_pd(_mm_loadu_pd(a + i), _mm_loadu_pd(b + i));
        __m128d x1 = _mm_max_pd(_mm_loadu_pd(a + i + 2), _mm_loadu_pd(b + i + 2));
        _mm_storeu_pd(d + i, x0);
        _mm_storeu_pd(d + i + 2, x1);
    }
#endif
    for (; i < n; i++)
        d[i] = a[i] > b[i] ? a[i] : b[i];
}

static inline void
fv__vmin_f32(float *d, const float *a, const float *b, int64_t n)
{
    int64_t i = 0;
#if defined(__SSE2__)
    for (; i + 8 <= n; i += 8) {
        __m128 x0 = _mm_min_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i));
        __m128 x1 = _mm_min_ps(_mm_loadu_ps(a + i + 4), _mm_loadu_ps(b + i + 4));
        _mm_storeu_ps(d + i, x0);
        _mm_storeu_ps(d + i + 4, x1);
    }
#endif
    for (; i < n; i++)
        d[i] = a[i] < b[i] ? a[i] : b[i];
}

static inline void
fv__vmax_f32(float *d, const float *a, const float *b, int64_t n)
{
    int64_t i = 0;
#if defined(__SSE2__)
    for (; i + 8 <= n; i += 8) {
        __m128 x0 = _mm_max_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i));
        __m128 x1 = _mm_max_ps(_mm_loadu_ps(a + i + 4), _mm_loadu_ps(b + i + 4));
        _mm_storeu_ps(d + i, x0);
        _mm_storeu_ps(d + i + 4, x1);
    }
#endif
    for (; i < n; i++)
        d[i] = a[i] > b[i] ? a[i] : b[i];
}

/* Compare-exchange: a[i] = b[i] < a[i] ? b[i] : a[i], b[i] = a[i] > b[i] ? a[i] : b[i]
 * (old values on the right). */
static inline void
fv__vcx_f64(double *a, double *b, int64_t n)
{
    int64_t i = 0;
#if defined(__SSE2__)
    for (; i + 2 <= n; i += 2) {
        __m128d x = _mm_loadu_pd(a + i), y = _mm_loadu_pd(b + i);
        _mm_storeu_pd(a + i, _mm_min_pd(y, x));
        _mm_storeu_pd(b + i, _mm_max_pd(x, y));
    }
#endif
    for (; i < n; i++) {
        double x = a[i], y = b[i];
        a[i] = y < x ? y : x;
        b[i] = x > y ? x : y;
    }
}

static inline void
fv__vcx_f32(float *a, float *b, int64_t n)
{
    int64_t i = 0;
#if defined(__SSE2__)
    for (; i + 4 <= n; i += 4) {
        __m128 x = _mm_loadu_ps(a + i), y = _mm_loadu_ps(b + i);
        _mm_storeu_ps(a + i, _mm_min_ps(y, x));
        _mm_storeu_ps(b + i, _mm_max_ps(x, y));
    }
#endif
    for (; i < n; i++) {
        float x = a[i], y = b[i];
        a[i] = y < x ? y : x;
        b[i] = x > y ? x : y;
    }
}

/* The same for the integer types (plain loops; the compiler vectorises them). */
#define FV__VINT(T, S)                                                                      \
    static inline void fv__vmin_##S(T *d, const T *a, const T *b, int64_t n)                \
    {                                                                                       \
        for (int64_t i = 0; i < n; i++)                                                     \
            d[i] = a[i] < b[i] ? a[i] : b[i];                                               \
    }                                                                                       \
    static inline void fv__vmax_##S(T *d, const T *a, const T *b, int64_t n)                \
    {                                                                                       \
        for (int64_t i = 0; i < n; i++)                                                     \
            d[i] = a[i] > b[i] ? a[i] : b[i];                                               \
    }                                                                                       \
    static inline void fv__vcx_##S(T *restrict a, T *restrict b, int64_t n)                 \
    {                                                                                       \
        for (int64_t i = 0; i < n; i++) {                                                   \
            T x = a[i], y = b[i];                                                           \
            a[i] = y < x ? y : x;                                                           \
            b[i] = x > y ? x : y;                                                           \
        }                                                                                   \
    }
FV__VINT(uint8_t, b)
FV__VINT(uint8_t, u8)
FV__VINT(uint16_t, u16)
FV__VINT(uint32_t, u32)
FV__VINT(uint64_t, u64)
FV__VINT(int8_t, i8)
FV__VINT(int16_t, i16)
FV__VINT(int32_t, i32)
FV__VINT(int64_t, i64)
#undef FV__VINT

#endif
