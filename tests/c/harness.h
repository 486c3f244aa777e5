/* The C tests' one scaffolding for backend tests (the CUDA tests, the op matrix
 * test_ops_matrix.c): the context and devices, xorshift.h's generator (define
 * FV_T_SEED before including), arrays and their elements by dtype, random host
 * data, host copies of any array, views of any layout on either device, the
 * element comparison with NaN / signed-zero / tolerance rules, and the GPU skip
 * (exit 77, ctest's SKIP_RETURN_CODE). Kernel variants are forced with
 * variant-force.h's tv_force (included). Everything is static (one copy a test);
 * include after nothing else of the tests (it includes check.h).
 *
 * Parts turned on by macros defined before the #include (the tiled CUDA filter
 * kernels' model tests: test_cuda_filters.c, test_cuda_corrtiled.c,
 * test_cuda_corr3d.c, test_cuda_minmaxtiled.c, test_cuda_rank3d.c):
 *  HX_SCIPY_MODEL   scipy's casts and stores of raw element bits (m_tod, m_store,
 *                   m_store_nd, m_load, width_mask), the bit comparison cmp_bits;
 *  HX_CUDA_TIMING   time_op (CFC_UNTILED has it too);
 *  CFC_UNTILED      (with CFC_TEST_NAME, the test's name) the tiled-kernel
 *                   tests' crash handler, data filler, model bits <-> arrays,
 *                   one dispatch of the generic kernel (variant "generic" of
 *                   "cuda.filternd") and the tiled / generic timings; needs
 *                   the CUDA runtime's header;
 *  CFC_CORRELATE    the correlate models: the GPU's float accumulation rule,
 *                   the selected weights, the float-sum comparison. */
#ifndef FV_TEST_HARNESS_H
#define FV_TEST_HARNESS_H

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "check.h"
#include "variant-force.h"
#include "xorshift.h" /* next_u64, uniform; seed: FV_T_SEED */

#define HX_UNUSED __attribute__((unused))

static const fv_device CPU HX_UNUSED = { FV_DEVICE_CPU, 0 };
static const fv_device GPU HX_UNUSED = { FV_DEVICE_CUDA, 0 };
static fv_context *ctx HX_UNUSED;
static int cuda_only HX_UNUSED;     /* FOVEA_TEST_CUDA_ONLY: fewer, smaller cases, no CPU comparison */
static char current[600] HX_UNUSED; /* the running case, for failure and crash messages */

/* ---- random numbers ------------------------------------------------------------- */

static inline int64_t
irand(int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

static inline double
uniform_in(double lo, double hi) /* [lo, hi) */
{
    return lo + (hi - lo) * uniform();
}

/* ---- the GPU ---------------------------------------------------------------------- */

/* 1 when the library has a usable CUDA device; prints why not otherwise */
static inline int
hx_have_gpu(const char *test)
{
    if (fv_cuda_available())
        return 1;
    printf("%s: no usable CUDA device (%s)\n", test, fv_cuda_unavailable_reason());
    return 0;
}

/* the exit code of a test whose GPU part could not run: 77 (skipped) when the
 * host part passed, 1 when it failed */
static inline int
hx_skip(const char *test)
{
    fv_t_summary(test);
    return fv_t_fail ? 1 : 77;
}

/* ---- dtypes and elements ---------------------------------------------------------- */

static inline int
is_float(fv_dtype dt)
{
    return dt == FV_FLOAT32 || dt == FV_FLOAT64;
}

static inline int
hx_is_signed(fv_dtype dt)
{
    return dt == FV_INT8 || dt == FV_INT16 || dt == FV_INT32 || dt == FV_INT64;
}

/* element i of a contiguous host buffer of dtype dt, as a double */
static inline double
get_elem(const void *p, fv_dtype dt, int64_t i)
{
    switch (dt) {
    case FV_BOOL:
    case FV_UINT8:
        return ((const uint8_t *)p)[i];
    case FV_INT8:
        return ((const int8_t *)p)[i];
    case FV_UINT16:
        return ((const uint16_t *)p)[i];
    case FV_INT16:
        return ((const int16_t *)p)[i];
    case FV_UINT32:
        return ((const uint32_t *)p)[i];
    case FV_INT32:
        return ((const int32_t *)p)[i];
    case FV_UINT64:
        return (double)((const uint64_t *)p)[i];
    case FV_INT64:
        return (double)((const int64_t *)p)[i];
    case FV_FLOAT32:
        return ((const float *)p)[i];
    default:
        return ((const double *)p)[i];
    }
}

/* v must be in dt's range (the random data are) */
static inline void
set_elem(void *p, fv_dtype dt, int64_t i, double v)
{
    switch (dt) {
    case FV_BOOL:
        ((uint8_t *)p)[i] = v != 0;
        break;
    case FV_UINT8:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case FV_INT8:
        ((int8_t *)p)[i] = (int8_t)v;
        break;
    case FV_UINT16:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case FV_INT16:
        ((int16_t *)p)[i] = (int16_t)v;
        break;
    case FV_UINT32:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    case FV_INT32:
        ((int32_t *)p)[i] = (int32_t)v;
        break;
    case FV_UINT64:
        ((uint64_t *)p)[i] = (uint64_t)v;
        break;
    case FV_INT64:
        ((int64_t *)p)[i] = (int64_t)v;
        break;
    case FV_FLOAT32:
        ((float *)p)[i] = (float)v;
        break;
    default:
        ((double *)p)[i] = v;
        break;
    }
}

/* element i of a contiguous buffer: floats v, the other dtypes the low bytes of r
 * (bool: r & 1) */
static inline void
hx_put_raw(void *p, fv_dtype dt, int64_t i, uint64_t r, double v)
{
    if (is_float(dt) || dt == FV_BOOL)
        set_elem(p, dt, i, dt == FV_BOOL ? (double)(r & 1) : v);
    else
        memcpy((char *)p + i * (int64_t)fv_dtype_size(dt), &r, fv_dtype_size(dt)); /* little-endian */
}

/* element i's raw bits (zero-extended) of a contiguous buffer */
static inline uint64_t
hx_bits(const void *p, fv_dtype dt, int64_t i)
{
    size_t s = fv_dtype_size(dt);
    uint64_t b = 0;
    memcpy(&b, (const char *)p + i * (int64_t)s, s);
    return b;
}

/* ---- arrays ----------------------------------------------------------------------- */

static inline fv_array *
new_array(fv_dtype dt, int nd, const int64_t *shape, fv_device dev)
{
    fv_array *a = NULL;
    CHECK_OK(fv_array_new(ctx, dt, nd, shape, dev, &a));
    return a;
}

/* Random host data over the dtype's range (64-bit integers: +-2^40); special > 0:
 * about one float element in special / 4 each of NaN, inf, -inf and -0.0. */
static inline fv_array *
rand_host(fv_dtype dt, int nd, const int64_t *shape, int special)
{
    fv_array *h = new_array(dt, nd, shape, CPU);
    int64_t n = fv_array_size(h);
    void *p = fv_array_data(h);
    for (int64_t i = 0; i < n; i++) {
        double v;
        switch (dt) {
        case FV_BOOL:
            v = (double)(next_u64() & 1);
            break;
        case FV_UINT8:
            v = (double)irand(0, 255);
            break;
        case FV_INT8:
            v = (double)irand(-128, 127);
            break;
        case FV_UINT16:
            v = (double)irand(0, 65535);
            break;
        case FV_INT16:
            v = (double)irand(-32768, 32767);
            break;
        case FV_UINT32:
            v = (double)irand(0, 4000000000);
            break;
        case FV_INT32:
            v = (double)irand(-2000000000, 2000000000);
            break;
        case FV_UINT64:
            v = (double)irand(0, (int64_t)1 << 40);
            break;
        case FV_INT64:
            v = (double)irand(-((int64_t)1 << 40), (int64_t)1 << 40);
            break;
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

/* a contiguous host copy of any array (any device, any layout) */
static inline fv_array *
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

/* Layouts of a view (make_view, hx_view): contiguous; strided (the first axis
 * reversed, every other element of the last, in a base one larger along the first
 * axis and offset by one element); the axes' order reversed (Fortran order); rows
 * (the last axis) padded to a 16-byte multiple plus 16 bytes, starting on a
 * 16-byte boundary (padded) or one element past it (padded_off); rows an odd
 * number of elements apart, offset by one (odd_pitch). */
enum {
    HX_CONTIG = 0,
    HX_STRIDED = 1,
    HX_FORTRAN = 2,
    HX_PADDED = 3,
    HX_PADDED_OFF = 4,
    HX_ODD_PITCH = 5,
    HX_NLAYOUTS = 6
};
static const char *const hx_layout_name[HX_NLAYOUTS] HX_UNUSED = { "contig", "strided",    "fortran",
                                                                   "padded", "padded_off", "odd_pitch" };

/* A view of `shape` in a fresh base array on dev (*base: NULL for contiguous) in
 * one of the layouts above. */
static inline fv_array *
make_view(fv_dtype dt, int nd, const int64_t *shape, int layout, fv_device dev, fv_array **base)
{
    int64_t bs[FV_MAX_NDIM], st[FV_MAX_NDIM], off = 0, isz = (int64_t)fv_dtype_size(dt);
    fv_array *v = NULL;
    *base = NULL;
    if (layout == HX_CONTIG || nd == 0) {
        *base = NULL;
        return new_array(dt, nd, shape, dev);
    }
    if (layout == 1) {
        for (int d = 0; d < nd; d++)
            bs[d] = shape[d];
        bs[nd - 1] = 2 * shape[nd - 1] + 1;
        if (nd > 1)
            bs[0] = shape[0] + 1;
        int64_t s = 1, cs[FV_MAX_NDIM] = { 0 };
        for (int d = nd - 1; d >= 0; d--) {
            cs[d] = s;
            s *= bs[d];
        }
        for (int d = 0; d < nd; d++)
            st[d] = cs[d];
        st[nd - 1] = 2 * cs[nd - 1];
        if (nd > 1) {
            st[0] = -cs[0];
            off = shape[0] * cs[0] + 1;
        } else {
            st[0] = -2;
            off = 2 * (shape[0] - 1) + 1;
        }
        *base = new_array(dt, nd, bs, dev);
    } else if (layout == HX_FORTRAN) {
        int64_t s = 1, tot = 1;
        for (int d = 0; d < nd; d++) {
            st[d] = s;
            s *= shape[d];
        }
        tot = s;
        *base = new_array(dt, 1, &tot, dev);
    } else { /* padded rows */
        const int64_t w = nd ? shape[nd - 1] : 1, per16 = 16 / isz > 0 ? 16 / isz : 1;
        const int64_t pitch = layout == HX_ODD_PITCH ? w + 1 + (w & 1) : ((w + per16 - 1) / per16 + 1) * per16;
        int64_t s = pitch, tot;
        st[nd - 1] = 1;
        for (int d = nd - 2; d >= 0; d--) {
            st[d] = s;
            s *= shape[d];
        }
        off = layout == HX_PADDED ? 0 : 1;
        tot = (nd > 1 ? s : pitch) + per16;
        *base = new_array(dt, 1, &tot, dev);
    }
    for (int d = 0; d < nd; d++)
        st[d] *= isz;
    if (*base)
        CHECK_OK(fv_array_view(*base, nd, shape, st, off * isz, &v));
    return v;
}

/* a fresh array of shape on dev in the given layout (the view holds its base) */
static inline fv_array *
hx_view(fv_dtype dt, int nd, const int64_t *shape, int layout, fv_device dev)
{
    fv_array *base = NULL, *v = make_view(dt, nd, shape, layout, dev, &base);
    fv_array_unref(base);
    return v;
}

/* a copy of the host array h on dev in the given layout */
static inline fv_array *
hx_upload(const fv_array *h, int layout, fv_device dev)
{
    fv_array *v = hx_view(fv_array_dtype(h), fv_array_ndim(h), fv_array_shape(h), layout, dev);
    fv_array *c = new_array(fv_array_dtype(h), fv_array_ndim(h), fv_array_shape(h), dev);
    CHECK_OK(fv_copy(ctx, h, c));
    CHECK_OK(fv_copy(ctx, c, v));
    fv_array_unref(c);
    return v;
}

/* ---- comparison ------------------------------------------------------------------- */

/* How a result must match its reference: HX_EXACT every bit (NaN: any payload,
 * +-0 equal only with HX_ZEROS); HX_ULP floats within rtol of the reference's
 * magnitude scale (scale[i] or, NULL, |want|), integers within one (wrapped). */
typedef struct hx_tol {
    int exact;   /* 1: bits (NaN payloads aside) */
    int zeros;   /* 1: -0.0 == +0.0 */
    double rtol; /* !exact: floats within rtol * (scale + |want|) */
    int ione;    /* !exact: integers within one (mod the width) */
} hx_tol;

/* got and want: contiguous host arrays of one dtype and shape; returns 1 when
 * they match, else prints the first mismatch under `what` */
static inline int
hx_compare(const fv_array *got, const fv_array *want, const double *scale, hx_tol t, const char *what)
{
    fv_dtype dt = fv_array_dtype(got);
    const void *g = fv_array_data(got), *w = fv_array_data(want);
    int64_t n = fv_array_size(got);
    uint64_t wmask = fv_dtype_size(dt) >= 8 ? ~0ull : (1ull << (8 * fv_dtype_size(dt))) - 1;
    for (int64_t i = 0; i < n; i++) {
        uint64_t gb = hx_bits(g, dt, i), wb = hx_bits(w, dt, i);
        if (gb == wb)
            continue;
        double gv = get_elem(g, dt, i), wv = get_elem(w, dt, i);
        if (is_float(dt)) {
            if (isnan(gv) && isnan(wv))
                continue;
            if (t.zeros && gv == 0 && wv == 0)
                continue;
            if (!t.exact && !isnan(gv) && !isnan(wv)) {
                if (isinf(wv) ? gv == wv : fabs(gv - wv) <= t.rtol * ((scale ? scale[i] : 0) + fabs(wv)) + 1e-300)
                    continue;
                if (isinf(gv) && !isinf(wv) && fabs(wv) > (dt == FV_FLOAT32 ? 3e38 : 1e307))
                    continue; /* overflow near the largest finite value */
            }
        } else if (!t.exact && t.ione) {
            uint64_t d = (gb - wb) & wmask;
            if (d == 1 || d == wmask)
                continue;
        }
        fprintf(stderr, "%s: element %lld: %.17g (0x%llx), want %.17g (0x%llx)\n", what, (long long)i, gv,
                (unsigned long long)gb, wv, (unsigned long long)wb);
        return 0;
    }
    return 1;
}

#ifdef HX_SCIPY_MODEL
/* ---- scipy's casts and stores of raw element bits ---------------------------------- */

#include "scipy-casts.h" /* m_cvt32, m_cvt64, m_cvtu64 */

static inline uint64_t
width_mask(fv_dtype dt)
{
    size_t s = fv_dtype_size(dt);
    return s >= 8 ? ~0ull : ((1ull << (8 * s)) - 1);
}

/* raw element bits (zero-extended) -> double */
static inline double
m_tod(fv_dtype dt, uint64_t b)
{
    return get_elem(&b, dt, 0);
}

/* the output element scipy (and fovea: bool 0/1) stores for result v */
static inline uint64_t
m_store(fv_dtype odt, double v)
{
    switch (odt) {
    case FV_BOOL:
        return (uint8_t)m_cvt32(v) != 0;
    case FV_UINT32:
        return (uint64_t)m_cvt64(v) & 0xffffffffull;
    case FV_INT64:
        return (uint64_t)m_cvt64(v);
    case FV_UINT64:
        return m_cvtu64(v);
    case FV_FLOAT32: {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    case FV_FLOAT64: {
        uint64_t u;
        memcpy(&u, &v, 8);
        return u;
    }
    default:
        return (uint64_t)(uint32_t)m_cvt32(v) & width_mask(odt);
    }
}

/* scipy's n-d filters (ni_filters.c) store into uint64 differently below -2^63:
 * the negation of the conversion of -v (so -1e19 wraps, -inf gives 0) */
static inline uint64_t
m_store_nd(fv_dtype odt, double v)
{
    if (odt == FV_UINT64 && v < 0)
        return 0 - m_cvtu64(-v);
    return m_store(odt, v);
}

/* element i's raw bits (zero-extended) of a contiguous host array */
static inline uint64_t
m_load(const fv_array *h, int64_t i)
{
    return hx_bits(fv_array_data(h), fv_array_dtype(h), i);
}
/* exact: every bit; else floats: any NaN equals any NaN (zero signs count) */
static inline int
cmp_bits(const fv_array *got, const uint64_t *want, int exact, const char *what, const char *who)
{
    fv_dtype dt = fv_array_dtype(got);
    const int nd = fv_array_ndim(got);
    const int64_t *sh = fv_array_shape(got);
    for (int64_t i = 0; i < fv_array_size(got); i++) {
        uint64_t g = m_load(got, i);
        if (g == want[i])
            continue;
        if (!exact && is_float(dt) && isnan(m_tod(dt, g)) && isnan(m_tod(dt, want[i])))
            continue;
        char at[96] = "";
        for (int d = 0, n = 0; d < nd && n < (int)sizeof at; d++) {
            int64_t q = i;
            for (int e = nd - 1; e > d; e--)
                q /= sh[e];
            n += snprintf(at + n, sizeof at - (size_t)n, "%s%lld", d ? " " : "", (long long)(q % sh[d]));
        }
        fprintf(stderr, "%s [%s]: element %lld (at %s): 0x%llx, want 0x%llx\n", what, who, (long long)i, at,
                (unsigned long long)g, (unsigned long long)want[i]);
        return 0;
    }
    return 1;
}
#endif /* HX_SCIPY_MODEL */

#if defined(CFC_UNTILED) || defined(HX_CUDA_TIMING)
/* ---- timings (the tests' benchmark modes) ------------------------------------------- */
#include <cuda_runtime_api.h>

#include "internal.h"

/* ms a dispatch of op on stream s takes (one warm-up, then reps) */
static double
time_op(cudaStream_t s, fv__op op, const fv__op_args *a, int reps)
{
    cudaEvent_t e0, e1;
    float ms = 0;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    CHECK_OK(fv__dispatch(ctx, op, a));
    cudaEventRecord(e0, s);
    for (int r = 0; r < reps; r++)
        fv__dispatch(ctx, op, a);
    cudaEventRecord(e1, s);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return ms / reps;
}
#endif

#ifdef CFC_UNTILED
#include <cuda_runtime_api.h>

#include "internal.h"
#include "ops/filters/filternd.h"

/* ---- the tiled-kernel tests ------------------------------------------------------- */

static int have_gpu, cpu_kernels = -1, reduced;
static int ncases, ntiled;

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
        double v = wide ? uniform_in(-1e6, 1e6) : uniform_in(-300.0, 300.0);
        if (specials && is_float(dt) && next_u64() % (specials == 2 ? 9 : 40) == 3) {
            static const double sp[] = { INFINITY, -INFINITY, NAN, -0.0, 0.0, 1e30, -1e30 };
            v = sp[next_u64() % 7];
        }
        if (!wide && !is_float(dt))
            r = (uint64_t)(int64_t)(dt == FV_BOOL ? (int64_t)(r & 1) : irand(-40, 300));
        hx_put_raw(p, dt, i, r, v);
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
    if (untiled)
        tv_force("cuda.filternd", "generic");
    double ms = time_op(s, FV__OP_FILTERND, a, reps);
    if (untiled)
        tv_force("cuda.filternd", NULL);
    return ms;
}
#endif /* CFC_UNTILED */

#ifdef CFC_CORRELATE
#include "ops/filters/filternd.h"

/* ---- the correlate models ---------------------------------------------------------- */

/* the GPU's float accumulation (filters-common.cuh fv_cu_flt_acc_float) */
static int
acc_float(fv_dtype in, fv_dtype out)
{
    return out == FV_FLOAT32 &&
        (in == FV_FLOAT32 || in == FV_UINT8 || in == FV_INT8 || in == FV_UINT16 || in == FV_INT16 || in == FV_BOOL);
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
cmp_close(const fv_array *got, const uint64_t *want, const double *mag, int bigw, const char *what, const char *who)
{
    fv_dtype dt = fv_array_dtype(got);
    for (int64_t i = 0; i < fv_array_size(got); i++) {
        double g = m_tod(dt, m_load(got, i)), w = m_tod(dt, want[i]);
        int ok = isnan(w) ? isnan(g) : isinf(w) ? g == w : fabs(g - w) <= 1e-5 * (mag[i] + fabs(w)) + 1e-37;
        if (!ok && isinf(g) && !isnan(w) && fabs(w) > 3e38)
            ok = 1; /* float overflow near FLT_MAX */
        if (!ok && bigw && (!isfinite(g) || !isfinite(w)))
            ok = 1;
        if (!ok) {
            fprintf(stderr, "%s [%s]: element %lld: %.9g, want %.9g (mag %g)\n", what, who, (long long)i, g, w, mag[i]);
            return 0;
        }
    }
    return 1;
}
#endif /* CFC_CORRELATE */

#endif /* FV_TEST_HARNESS_H */
