/* AVX2 lines for the saturating float32 -> integer casts of astype.
 *
 * fv_cast_f32_<int> is a chain of compares GCC does not vectorise (~0.5 ns an
 * element, 5-7x NumPy's time for a 1024^2 float32 -> uint8). Here, 8 lanes at
 * a time: NaN -> 0 (and with the ordered mask), clamp to the target's limits
 * (exact floats for 8- and 16-bit targets), truncate (cvttps2dq), narrow with
 * the packs, which never saturate then. float32 -> int32: truncate, and lanes
 * >= 2^31, which cvttps2dq gives as INT32_MIN, flipped to INT32_MAX; below
 * -2^31 it already gives INT32_MIN. Bit-identical to fv_cast_f32_<int> for
 * every input. Chosen per call by the planner's table "cpu.lines" (avx2 where
 * the processor has it, like the correlation lines; tests force "sse2", the
 * scalar casts), x86-64 GCC/Clang only (FV__HAVE_AVX2_CLONES); elsewhere
 * fv__astype_simd_line returns NULL. */
#include "elementwise-cpu.h"
#include "cast.h"
#include "cpu/filters/filters-cpu.h" /* FV__HAVE_AVX2_CLONES, fv__cpu_lines_avx2 */

#if FV__HAVE_AVX2_CLONES
#include <immintrin.h>

#define FV__AVX2 __attribute__((target("avx2")))

/* 8 floats at p, NaN -> 0, clamped to [lo, hi], truncated. vmaxps returns
 * its second operand when the first is NaN, so max(x, lo) alone sends NaN to
 * lo: enough when lo is 0 (unsigned targets); signed ones zero NaN first
 * (zero_nan, a constant at each use). */
static inline FV__AVX2 __m256i
fv__clamp_trunc8(const float *p, __m256 lo, __m256 hi, const int zero_nan)
{
    __m256 x = _mm256_loadu_ps(p);
    if (zero_nan)
        x = _mm256_and_ps(x, _mm256_cmp_ps(x, x, _CMP_ORD_Q));
    return _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(x, lo), hi));
}

/* The packs work within 128-bit halves: these put the pieces back in order. */
#define FV__ORDER64(v) _mm256_permute4x64_epi64((v), 0xD8)
#define FV__ORDER32(v) _mm256_permutevar8x32_epi32((v), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))

/* 32 lanes -> 32 bytes (PACK8: _mm256_packus_epi16 or _mm256_packs_epi16). */
#define FV__BODY8(T, LO, HI, PACK8)                                                                                   \
    const __m256 lo = _mm256_set1_ps(LO), hi = _mm256_set1_ps(HI);                                                    \
    for (; i + 32 <= n; i += 32) {                                                                                    \
        __m256i r0 = fv__clamp_trunc8(a + i, lo, hi, LO < 0), r1 = fv__clamp_trunc8(a + i + 8, lo, hi, LO < 0);       \
        __m256i r2 = fv__clamp_trunc8(a + i + 16, lo, hi, LO < 0), r3 = fv__clamp_trunc8(a + i + 24, lo, hi, LO < 0); \
        __m256i v = PACK8(_mm256_packs_epi32(r0, r1), _mm256_packs_epi32(r2, r3));                                    \
        _mm256_storeu_si256((__m256i *)(o + i), FV__ORDER32(v));                                                      \
    }

/* 16 lanes -> 16 halfwords (PACK16: _mm256_packus_epi32 or _mm256_packs_epi32). */
#define FV__BODY16(T, LO, HI, PACK16)                                                                             \
    const __m256 lo = _mm256_set1_ps(LO), hi = _mm256_set1_ps(HI);                                                \
    for (; i + 16 <= n; i += 16) {                                                                                \
        __m256i v = PACK16(fv__clamp_trunc8(a + i, lo, hi, LO < 0), fv__clamp_trunc8(a + i + 8, lo, hi, LO < 0)); \
        _mm256_storeu_si256((__m256i *)(o + i), FV__ORDER64(v));                                                  \
    }

#define FV__BODY32(T)                                                                       \
    const __m256 top = _mm256_set1_ps(2147483648.0f);                                       \
    for (; i + 8 <= n; i += 8) {                                                            \
        __m256 x = _mm256_loadu_ps(a + i);                                                  \
        __m256i r = _mm256_cvttps_epi32(_mm256_and_ps(x, _mm256_cmp_ps(x, x, _CMP_ORD_Q))); \
        r = _mm256_xor_si256(r, _mm256_castps_si256(_mm256_cmp_ps(x, top, _CMP_GE_OQ)));    \
        _mm256_storeu_si256((__m256i *)(o + i), r);                                         \
    }

/* The line: the vector loop and a scalar tail when contiguous, else the scalar cast. */
#define FV__AVX2_LINE(T, S, BODY)                                                                                  \
    static FV__AVX2 void fv__astype_f32_##S##_avx2(char *oc, const char *ac, const char *b, int64_t n, int64_t so, \
                                                   int64_t sa, int64_t sb)                                         \
    {                                                                                                              \
        (void)b;                                                                                                   \
        (void)sb;                                                                                                  \
        int64_t i = 0;                                                                                             \
        if (so == (int64_t)sizeof(T) && sa == (int64_t)sizeof(float)) {                                            \
            T *o = (T *)oc;                                                                                        \
            const float *a = (const float *)ac;                                                                    \
            BODY;                                                                                                  \
            for (; i < n; i++)                                                                                     \
                o[i] = fv_cast_f32_##S(a[i]);                                                                      \
        } else {                                                                                                   \
            for (; i < n; i++)                                                                                     \
                *(T *)(oc + i * so) = fv_cast_f32_##S(*(const float *)(ac + i * sa));                              \
        }                                                                                                          \
    }

FV__AVX2_LINE(uint8_t, u8, FV__BODY8(uint8_t, 0.0f, 255.0f, _mm256_packus_epi16))
FV__AVX2_LINE(int8_t, i8, FV__BODY8(int8_t, -128.0f, 127.0f, _mm256_packs_epi16))
FV__AVX2_LINE(uint16_t, u16, FV__BODY16(uint16_t, 0.0f, 65535.0f, _mm256_packus_epi32))
FV__AVX2_LINE(int16_t, i16, FV__BODY16(int16_t, -32768.0f, 32767.0f, _mm256_packs_epi32))
FV__AVX2_LINE(int32_t, i32, FV__BODY32(int32_t))

fv__line_fn
fv__astype_simd_line(fv_dtype from, fv_dtype to)
{
    if (from != FV_FLOAT32 ||
        (to != FV_UINT8 && to != FV_INT8 && to != FV_UINT16 && to != FV_INT16 && to != FV_INT32) ||
        !fv__cpu_lines_avx2())
        return NULL;
    switch (to) {
    case FV_UINT8:
        return fv__astype_f32_u8_avx2;
    case FV_INT8:
        return fv__astype_f32_i8_avx2;
    case FV_UINT16:
        return fv__astype_f32_u16_avx2;
    case FV_INT16:
        return fv__astype_f32_i16_avx2;
    case FV_INT32:
        return fv__astype_f32_i32_avx2;
    default:
        return NULL;
    }
}

#else

fv__line_fn
fv__astype_simd_line(fv_dtype from, fv_dtype to)
{
    (void)from;
    (void)to;
    return NULL;
}

#endif
