/* Shared scaffolding of the CUDA separable-filter tests (test_cuda_sepfused.c,
 * test_cuda_f1dvec.c): the context, xorshift.h's generator (define FV_T_SEED
 * before including), arrays and their elements by dtype, random host data and
 * host copies. Include after check.h. */
#ifndef FOVEA_TESTS_CUDA_SEP_CHECK_H
#define FOVEA_TESTS_CUDA_SEP_CHECK_H

#include <math.h>
#include <stdint.h>

#include "fovea/fovea.h"

#include "xorshift.h"   /* next_u64, uniform; seed: FV_T_SEED */

static const fv_device CPU = {FV_DEVICE_CPU, 0};
static const fv_device GPU = {FV_DEVICE_CUDA, 0};
static fv_context *ctx;
static int cuda_only;      /* FOVEA_TEST_CUDA_ONLY: fewer, smaller cases, no CPU comparison */
static char current[400];  /* the running case, for failure messages */

static int64_t
irand(int64_t lo, int64_t hi)   /* [lo, hi] */
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

static fv_array *
new_array(fv_dtype dt, int nd, const int64_t *shape, fv_device dev)
{
    fv_array *a = NULL;
    CHECK_OK(fv_array_new(ctx, dt, nd, shape, dev, &a));
    return a;
}

static int
is_float(fv_dtype dt)
{
    return dt == FV_FLOAT32 || dt == FV_FLOAT64;
}

/* element i of a contiguous host buffer of dtype dt (bool .. int32, float32, float64) */
static double
get_elem(const void *p, fv_dtype dt, int64_t i)
{
    switch (dt) {
    case FV_BOOL: case FV_UINT8: return ((const uint8_t *)p)[i];
    case FV_INT8: return ((const int8_t *)p)[i];
    case FV_UINT16: return ((const uint16_t *)p)[i];
    case FV_INT16: return ((const int16_t *)p)[i];
    case FV_INT32: return ((const int32_t *)p)[i];
    case FV_FLOAT32: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

static void
set_elem(void *p, fv_dtype dt, int64_t i, double v)
{
    switch (dt) {
    case FV_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case FV_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case FV_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case FV_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case FV_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case FV_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case FV_FLOAT32: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
    }
}

/* Random host data over the dtype's range; special > 0: about one float element
 * in special / 4 each of NaN, inf, -inf and -0.0. */
static fv_array *
rand_host(fv_dtype dt, int nd, const int64_t *shape, int special)
{
    fv_array *h = new_array(dt, nd, shape, CPU);
    int64_t n = fv_array_size(h);
    void *p = fv_array_data(h);
    for (int64_t i = 0; i < n; i++) {
        double v;
        switch (dt) {
        case FV_BOOL: v = (double)(next_u64() & 1); break;
        case FV_UINT8: v = (double)irand(0, 255); break;
        case FV_INT8: v = (double)irand(-128, 127); break;
        case FV_UINT16: v = (double)irand(0, 65535); break;
        case FV_INT16: v = (double)irand(-32768, 32767); break;
        case FV_INT32: v = (double)irand(-2000000000, 2000000000); break;
        default:
            v = (next_u64() & 7) == 0 ? (double)irand(-50, 50) : uniform() * 200.0 - 100.0;
            if (special > 0) {
                uint64_t r = next_u64() % (uint64_t)special;
                v = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : r == 3 ? -0.0 : v;
            }
            break;
        }
        set_elem(p, dt, i, v);
    }
    return h;
}

/* a contiguous host copy of any array */
static fv_array *
to_host(const fv_array *a)
{
    fv_array *c = new_array(fv_array_dtype(a), fv_array_ndim(a), fv_array_shape(a), fv_array_device(a));
    fv_array *h = new_array(fv_array_dtype(a), fv_array_ndim(a), fv_array_shape(a), CPU);
    CHECK_OK(fv_copy(ctx, a, c));
    CHECK_OK(fv_copy(ctx, c, h));
    CHECK_OK(fv_context_synchronize(ctx));
    fv_array_unref(c);
    return h;
}

#endif
