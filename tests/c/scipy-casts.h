/* The tests' model of scipy's C casts of a double on x86-64 (measured against
 * scipy; src/core/ndimage.h has the library's): a 32-bit truncation for the types up
 * to 32 bits but uint32, a 64-bit one for uint32 and int64, uint64's split at 2^63.
 * Out-of-range values give the hardware's "integer indefinite" (INT_MIN). Kept
 * apart from the library's copy so that the tests check it. */
#ifndef FV_TEST_SCIPY_CASTS_H
#define FV_TEST_SCIPY_CASTS_H

#include <stdint.h>

static int32_t
m_cvt32(double x)
{
    return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}

static int64_t
m_cvt64(double x)
{
    return (x > -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}

static uint64_t
m_cvtu64(double x)
{
    if (!(x >= 9223372036854775808.0))
        return (uint64_t)m_cvt64(x);
    return (uint64_t)m_cvt64(x - 9223372036854775808.0) ^ 0x8000000000000000ull;
}

#endif
