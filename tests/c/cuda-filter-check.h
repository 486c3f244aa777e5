/* Scaffolding shared by the CUDA filter tests (test_cuda_filters.c,
 * test_cuda_corrtiled.c, test_cuda_corr3d.c, test_cuda_minmaxtiled.c): the
 * xorshift generator, scipy's casts, raw element bits of host arrays and fresh
 * arrays on the test's context `ctx`. Everything is static (one copy a test).
 *
 * Parts turned on by macros defined before the #include:
 *  CFC_RNG_SEED     the generator's seed (default 0x2545f4914f6cdd1d);
 *  CFC_UNTILED      the tiled-kernel tests (the generic kernel: variant
 *                   "generic" of "cuda.filternd", tv_force) with CFC_TEST_NAME
 *                   (the test's name): their common state, crash handler, data
 *                   filler, model bits <-> arrays, one dispatch of the generic
 *                   kernel and the tiled / generic timings;
 *  CFC_VIEWS_2D     2-d views in three layouts, copies to the host, bit
 *                   comparison with NaN handling;
 *  CFC_CORRELATE    the correlate models: the GPU's float accumulation rule,
 *                   the selected weights, the float-sum comparison. */
#ifndef FV_TEST_CUDA_FILTER_CHECK_H
#define FV_TEST_CUDA_FILTER_CHECK_H

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fovea/fovea.h"
#include "internal.h"
#include "ops/filters/sep2.h"
#include "ops/filters/filternd.h"
#include "ops/morphology/binary-erosion.h"
#include "ops/morphology/distance.h"
#include "ops/filters/ndimage-math.h"
#include "check.h"
#include "scipy-casts.h"   /* the model: scipy's casts (m_cvt32, m_cvt64, m_cvtu64) */
#include "variant-force.h"

static const fv_device CPU = {FV_DEVICE_CPU, 0};
static const fv_device GPU = {FV_DEVICE_CUDA, 0};
static fv_context *ctx;

/* ---- random numbers ------------------------------------------------------------- */

#ifndef CFC_RNG_SEED
#define CFC_RNG_SEED 0x2545f4914f6cdd1dull
#endif

static uint64_t rng = CFC_RNG_SEED;
static uint64_t
next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double
uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next_u64() >> 11) * (1.0 / 9007199254740992.0));
}
static int64_t
irand(int64_t lo, int64_t hi)   /* [lo, hi] */
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

static int
is_float(fv_dtype dt)
{
    return dt == FV_FLOAT32 || dt == FV_FLOAT64;
}

static uint64_t
width_mask(fv_dtype dt)
{
    size_t s = fv_dtype_size(dt);
    return s >= 8 ? ~0ull : ((1ull << (8 * s)) - 1);
}

/* raw element bits (zero-extended) -> double */
static double
m_tod(fv_dtype dt, uint64_t b)
{
    switch (dt) {
    case FV_BOOL: case FV_UINT8: return (double)(uint8_t)b;
    case FV_INT8: return (double)(int8_t)b;
    case FV_UINT16: return (double)(uint16_t)b;
    case FV_INT16: return (double)(int16_t)b;
    case FV_UINT32: return (double)(uint32_t)b;
    case FV_INT32: return (double)(int32_t)b;
    case FV_UINT64: return (double)b;
    case FV_INT64: return (double)(int64_t)b;
    case FV_FLOAT32: { float f; uint32_t u = (uint32_t)b; memcpy(&f, &u, 4); return f; }
    default: { double d; memcpy(&d, &b, 8); return d; }
    }
}

/* the output element scipy (and fovea: bool 0/1) stores for result v */
static uint64_t
m_store(fv_dtype odt, double v)
{
    switch (odt) {
    case FV_BOOL: return (uint8_t)m_cvt32(v) != 0;
    case FV_UINT32: return (uint64_t)m_cvt64(v) & 0xffffffffull;
    case FV_INT64: return (uint64_t)m_cvt64(v);
    case FV_UINT64: return m_cvtu64(v);
    case FV_FLOAT32: { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); return u; }
    case FV_FLOAT64: { uint64_t u; memcpy(&u, &v, 8); return u; }
    default: return (uint64_t)(uint32_t)m_cvt32(v) & width_mask(odt);
    }
}

/* scipy's n-d filters (ni_filters.c) store into uint64 differently below -2^63:
 * the negation of the conversion of -v (so -1e19 wraps, -inf gives 0) */
static uint64_t
m_store_nd(fv_dtype odt, double v)
{
    if (odt == FV_UINT64 && v < 0)
        return 0 - m_cvtu64(-v);
    return m_store(odt, v);
}

/* element i's raw bits (zero-extended) of a contiguous host array */
static uint64_t
m_load(const fv_array *h, int64_t i)
{
    size_t s = fv_dtype_size(fv_array_dtype(h));
    uint64_t b = 0;
    memcpy(&b, (const char *)fv_array_data(h) + i * (int64_t)s, s);
    return b;
}

/* ---- arrays ---------------------------------------------------------------------- */

static fv_array *
new_array(fv_dtype dt, int nd, const int64_t *shape, fv_device dev)
{
    fv_array *a = NULL;
    CHECK_OK(fv_array_new(ctx, dt, nd, shape, dev, &a));
    return a;
}

#ifdef CFC_UNTILED
/* ---- the tiled-kernel tests ------------------------------------------------------- */

static int have_gpu, cpu_kernels = -1, reduced;
static int ncases, ntiled;
static char current[400];

static void
on_crash(int sig)
{
    fprintf(stderr, CFC_TEST_NAME ": signal %d during: %s\n", sig, current);
    signal(sig, SIG_DFL);
    raise(sig);
}

static uint64_t
f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* specials: NaN / +-inf / -0.0 among float data (1 in 9 with inf, 1 in 40 without) */
static void
fill(fv_array *h, int specials, int wide)
{
    fv_dtype dt = fv_array_dtype(h);
    int64_t n = fv_array_size(h);
    char *p = fv_array_data(h);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = next_u64();
        double v = wide ? uniform(-1e6, 1e6) : uniform(-300.0, 300.0);
        if (specials && is_float(dt) && next_u64() % (specials == 2 ? 9 : 40) == 3) {
            static const double sp[] = {INFINITY, -INFINITY, NAN, -0.0, 0.0, 1e30, -1e30};
            v = sp[next_u64() % 7];
        }
        if (!wide && !is_float(dt))
            r = (uint64_t)(int64_t)(dt == FV_BOOL ? (int64_t)(r & 1) : irand(-40, 300));
        switch (dt) {
        case FV_BOOL: ((uint8_t *)p)[i] = (uint8_t)(r & 1); break;
        case FV_UINT8: case FV_INT8: ((uint8_t *)p)[i] = (uint8_t)r; break;
        case FV_UINT16: case FV_INT16: ((uint16_t *)p)[i] = (uint16_t)r; break;
        case FV_UINT32: case FV_INT32: ((uint32_t *)p)[i] = (uint32_t)r; break;
        case FV_UINT64: case FV_INT64: ((uint64_t *)p)[i] = r; break;
        case FV_FLOAT32: ((float *)p)[i] = (float)v; break;
        case FV_FLOAT64: ((double *)p)[i] = v; break;
        default: break;
        }
    }
}

/* a model's output bits (one uint64_t an element) in a fresh contiguous host array */
static fv_array *
bits_array(fv_dtype dt, int nd, const int64_t *shape, const uint64_t *bits)
{
    fv_array *m = new_array(dt, nd, shape, CPU);
    if (m) {
        size_t s = fv_dtype_size(dt);
        for (int64_t i = 0; i < fv_array_size(m); i++)
            memcpy((char *)fv_array_data(m) + i * (int64_t)s, &bits[i], s);
    }
    return m;
}

/* the elements' bits of a contiguous host array (malloc'ed; NULL: out of memory) */
static uint64_t *
array_bits(const fv_array *h)
{
    int64_t n = fv_array_size(h);
    uint64_t *b = malloc((size_t)n * sizeof(uint64_t));
    if (b)
        for (int64_t i = 0; i < n; i++)
            b[i] = m_load(h, i);
    return b;
}

/* One dispatch of the generic kernel (variant "generic" of "cuda.filternd") */
static fv_status
dispatch_untiled(fv_context *c, fv__op_args *a)
{
    tv_force("cuda.filternd", "generic");
    fv_status st = fv__dispatch(c, FV__OP_FILTERND, a);
    tv_force("cuda.filternd", NULL);
    return st;
}

/* ms a dispatch on stream s, tiled or (untiled) the generic kernel */
static double
time_nd(cudaStream_t s, const fv__op_args *a, int untiled, int reps)
{
    cudaEvent_t e0, e1;
    float ms = 0;
    if (untiled)
        tv_force("cuda.filternd", "generic");
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    CHECK_OK(fv__dispatch(ctx, FV__OP_FILTERND, a));
    cudaEventRecord(e0, s);
    for (int r = 0; r < reps; r++)
        fv__dispatch(ctx, FV__OP_FILTERND, a);
    cudaEventRecord(e1, s);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (untiled)
        tv_force("cuda.filternd", NULL);
    return ms / reps;
}
#endif /* CFC_UNTILED */

#ifdef CFC_VIEWS_2D
/* ---- 2-d views -------------------------------------------------------------------- */

/* A 2-d view of `shape` on dev: layout 0 contiguous, 1 the first axis reversed
 * and every other element of the last, 2 Fortran order. */
static fv_array *
make_view(fv_dtype dt, const int64_t *shape, int layout, fv_device dev, fv_array **base)
{
    int64_t isz = (int64_t)fv_dtype_size(dt), st[2], off = 0;
    fv_array *v = NULL;
    *base = NULL;
    if (layout == 0)
        return new_array(dt, 2, shape, dev);
    if (layout == 1) {
        int64_t bs[2] = {shape[0] + 1, 2 * shape[1] + 1};
        st[0] = -bs[1];
        st[1] = 2;
        off = shape[0] * bs[1] + 1;
        *base = new_array(dt, 2, bs, dev);
    } else {
        int64_t tot = shape[0] * shape[1];
        st[0] = 1;
        st[1] = shape[0];
        *base = new_array(dt, 1, &tot, dev);
    }
    st[0] *= isz;
    st[1] *= isz;
    if (*base)
        CHECK_OK(fv_array_view(*base, 2, shape, st, off * isz, &v));
    return v;
}

static fv_array *
to_host(const fv_array *a)
{
    fv_array *h = new_array(fv_array_dtype(a), 2, fv_array_shape(a), CPU);
    if (h)
        CHECK_OK(fv_copy(ctx, a, h));
    return h;
}

/* exact: every bit; else floats: any NaN equals any NaN (zero signs count) */
static int
cmp_bits(const fv_array *got, const uint64_t *want, int exact, const char *what, const char *who)
{
    fv_dtype dt = fv_array_dtype(got);
    for (int64_t i = 0; i < fv_array_size(got); i++) {
        uint64_t g = m_load(got, i);
        if (g == want[i])
            continue;
        if (!exact && is_float(dt) && isnan(m_tod(dt, g)) && isnan(m_tod(dt, want[i])))
            continue;
        fprintf(stderr, "%s [%s]: element %lld (y %lld x %lld): 0x%llx, want 0x%llx\n", what, who, (long long)i,
                (long long)(i / fv_array_shape(got)[1]), (long long)(i % fv_array_shape(got)[1]),
                (unsigned long long)g, (unsigned long long)want[i]);
        return 0;
    }
    return 1;
}
#endif /* CFC_VIEWS_2D */

#ifdef CFC_CORRELATE
/* ---- the correlate models ---------------------------------------------------------- */

/* the GPU's float accumulation (filters-common.cuh fv_cu_flt_acc_float) */
static int
acc_float(fv_dtype in, fv_dtype out)
{
    return out == FV_FLOAT32 && (in == FV_FLOAT32 || in == FV_UINT8 || in == FV_INT8 || in == FV_UINT16 ||
                                 in == FV_INT16 || in == FV_BOOL);
}

static int
selected(const fv__filternd_params *p, int64_t j)
{
    return (!p->footprint || p->footprint[j]) && fabs(p->weights[j]) > DBL_EPSILON;
}

/* float32 outputs of float sums: the CPU's double sum within 1e-5 of the magnitude;
 * bigw: a selected weight past FLT_MAX (inf in float: 0 * inf is NaN there, so
 * non-finite results may differ) */
static int
cmp_close(const fv_array *got, const uint64_t *want, const double *mag, int bigw, const char *what,
          const char *who)
{
    fv_dtype dt = fv_array_dtype(got);
    for (int64_t i = 0; i < fv_array_size(got); i++) {
        double g = m_tod(dt, m_load(got, i)), w = m_tod(dt, want[i]);
        int ok = isnan(w) ? isnan(g) : isinf(w) ? g == w : fabs(g - w) <= 1e-5 * (mag[i] + fabs(w)) + 1e-37;
        if (!ok && isinf(g) && !isnan(w) && fabs(w) > 3e38)
            ok = 1;   /* float overflow near FLT_MAX */
        if (!ok && bigw && (!isfinite(g) || !isfinite(w)))
            ok = 1;
        if (!ok) {
            fprintf(stderr, "%s [%s]: element %lld: %.9g, want %.9g (mag %g)\n", what, who, (long long)i, g, w,
                    mag[i]);
            return 0;
        }
    }
    return 1;
}
#endif /* CFC_CORRELATE */

#endif /* FV_TEST_CUDA_FILTER_CHECK_H */
