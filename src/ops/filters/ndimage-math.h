/* scipy.ndimage's numeric conventions shared by the filter and morphology ops and
 * their kernels: boundary extension and the C casts of results. Plain C; the
 * inline helpers compile as host code and, under nvcc, as device code too. */
#ifndef FV_OPS_NDIMAGE_MATH_H
#define FV_OPS_NDIMAGE_MATH_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* Index of position i (any integer) of an axis of length n >= 1 under mode, or
 * -1 for FV_MODE_CONSTANT outside [0, n). scipy's NI_ExtendLine rules, for any
 * distance past the edge. */
FV_HD int64_t
fv__extend_index(int64_t i, int64_t n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case 0: { /* FV_MODE_REFLECT, period 2n */
        int64_t p = 2 * n;
        i %= p;
        if (i < 0)
            i += p;
        return i < n ? i : p - 1 - i;
    }
    case 2: /* FV_MODE_NEAREST */
        return i < 0 ? 0 : n - 1;
    case 3: { /* FV_MODE_MIRROR, period 2n - 2 */
        if (n == 1)
            return 0;
        int64_t p = 2 * n - 2;
        i %= p;
        if (i < 0)
            i += p;
        return i < n ? i : p - i;
    }
    case 4: /* FV_MODE_WRAP */
        i %= n;
        return i < 0 ? i + n : i;
    default: /* FV_MODE_CONSTANT */
        return -1;
    }
}

/* A double result stored into an integer output the way scipy's C cast does on
 * x86-64: truncate toward zero to a 64-bit integer (values outside the int64
 * range become INT64_MIN, as cvttsd2si does; uint64 takes values up to 2^64),
 * then keep the low bits of the output width. Outputs: cast the returned
 * uint64 bits to the output type. NaN gives INT64_MIN's bits. */
FV_HD uint64_t
fv__trunc_bits(double x)
{
    if (x >= 9223372036854775808.0 && x < 18446744073709551616.0)
        return (uint64_t)(int64_t)(x - 9223372036854775808.0) + 9223372036854775808ull;
    if (!(x > -9223372036854775809.0 && x < 9223372036854775808.0))
        return 9223372036854775808ull; /* INT64_MIN's bits */
    return (uint64_t)(int64_t)x;
}

/* The exact stores scipy's C casts make on x86-64 (gcc), per output width,
 * measured against scipy 1.17 (fv__trunc_bits above agrees with them inside
 * the int32 range, which is all that ordinary data reaches):
 *   bool, (u)int8, (u)int16, int32 <- (T)fv__cvt32(x): a 32-bit truncation,
 *        INT32_MIN outside the int32 range and for NaN, then the low bits
 *        (uint8 of 1e10 is 0, of -3.0 is 253);
 *   uint32, int64 <- (T)fv__cvt64(x): a 64-bit truncation, INT64_MIN outside;
 *   uint64 <- fv__cvtu64(x): below 2^63 as int64, else 2^63 + (x - 2^63)
 *        truncated (0 at and above 2^64 and for +inf).
 * scipy stores the raw byte into bool outputs (0.5 -> 0, 2.5 -> 2, -1.5 ->
 * 255); fovea keeps bool outputs 0/1 with the same truth value:
 * ((uint8_t)fv__cvt32(x) != 0). The same casts give scipy's conversions of
 * cval and of structure values to the input type (rank, min/max n-d). */
FV_HD int32_t
fv__cvt32(double x)
{
    return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}

FV_HD int64_t
fv__cvt64(double x)
{
    return (x > -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}

FV_HD uint64_t
fv__cvtu64(double x)
{
    if (!(x >= 9223372036854775808.0))
        return (uint64_t)fv__cvt64(x);
    return (uint64_t)fv__cvt64(x - 9223372036854775808.0) ^ 0x8000000000000000ull;
}

/* scipy's symmetry test of NI_Correlate1D's weights w[0..n) (odd n only, pairs
 * DBL_EPSILON apart): 1 symmetric, -1 antisymmetric, 0 neither. */
FV_HD int
fv__ni_symmetry(const double *w, int64_t n)
{
    if (!(n & 1))
        return 0;
    const int64_t h = n / 2;
    int sym = 1;
    for (int64_t i = 1; i <= h; i++)
        if (fabs(w[h + i] - w[h - i]) > DBL_EPSILON) {
            sym = 0;
            break;
        }
    if (sym)
        return 1;
    for (int64_t i = 1; i <= h; i++)
        if (fabs(w[h + i] + w[h - i]) > DBL_EPSILON)
            return 0;
    return -1;
}


#ifdef __cplusplus
}
#endif

#endif
