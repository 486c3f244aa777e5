/* The tests' xorshift64 random numbers: next_u64() and uniform() in [0, 1) from
 * the state `rng`, seeded with FV_T_SEED (define it before including). */
#ifndef FV_TEST_XORSHIFT_H
#define FV_TEST_XORSHIFT_H

#include <stdint.h>

#ifndef FV_T_SEED
#define FV_T_SEED 0x9e3779b97f4a7c15ull
#endif

static uint64_t rng = FV_T_SEED;

static uint64_t
next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double
uniform(void)
{
    return (double)(next_u64() >> 11) * (1.0 / 9007199254740992.0);
}

#endif
