/* Filters (filters.h) on the CPU against a brute-force reference written here:
 * direct per-output loops over the window with fv__extend_index's boundary
 * rules, scipy's stores (fv__cvt32 ...), scipy's casts of cval / structure to
 * the input type for the n-d min/max/rank filters. Integer-valued data and
 * weights make every summation order give the same double, so those results
 * compare exactly for every dtype pair; fractional data compare within a
 * tolerance. Plus golden values measured from scipy 1.17 (NaN, stores),
 * aliasing, every validation error and oversize requests. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fovea/fovea.h"
#include "ops/filters/sep2.h"
#include "ops/filters/filternd.h"
#include "ops/morphology/binary-erosion.h"
#include "ops/morphology/distance.h"
#include "ops/filters/ndimage-math.h"
#include "check.h"
#include "variant-force.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t
next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* uniform integer in [lo, hi] */
static int64_t
rnd(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

static const fv_mode MODES[5] = { FV_MODE_REFLECT, FV_MODE_CONSTANT, FV_MODE_NEAREST, FV_MODE_MIRROR, FV_MODE_WRAP };

/* ---- element access ------------------------------------------------------------- */

static double
get_d(fv_dtype dt, const char *p)
{
    switch (dt) {
    case FV_BOOL:
    case FV_UINT8:
        return *(const uint8_t *)p;
    case FV_UINT16:
        return *(const uint16_t *)p;
    case FV_UINT32:
        return *(const uint32_t *)p;
    case FV_UINT64:
        return (double)*(const uint64_t *)p;
    case FV_INT8:
        return *(const int8_t *)p;
    case FV_INT16:
        return *(const int16_t *)p;
    case FV_INT32:
        return *(const int32_t *)p;
    case FV_INT64:
        return (double)*(const int64_t *)p;
    case FV_FLOAT32:
        return *(const float *)p;
    default:
        return *(const double *)p;
    }
}

static void
put_raw(fv_dtype dt, char *p, double x) /* exact for the values the tests write */
{
    switch (dt) {
    case FV_BOOL:
        *(uint8_t *)p = x != 0;
        break;
    case FV_UINT8:
        *(uint8_t *)p = (uint8_t)x;
        break;
    case FV_UINT16:
        *(uint16_t *)p = (uint16_t)x;
        break;
    case FV_UINT32:
        *(uint32_t *)p = (uint32_t)x;
        break;
    case FV_UINT64:
        *(uint64_t *)p = (uint64_t)x;
        break;
    case FV_INT8:
        *(int8_t *)p = (int8_t)x;
        break;
    case FV_INT16:
        *(int16_t *)p = (int16_t)x;
        break;
    case FV_INT32:
        *(int32_t *)p = (int32_t)x;
        break;
    case FV_INT64:
        *(int64_t *)p = (int64_t)x;
        break;
    case FV_FLOAT32:
        *(float *)p = (float)x;
        break;
    default:
        *(double *)p = x;
    }
}

/* scipy's store of a double result, as the bits of the output element
 * (bool: 0/1 with scipy's truth value). nd: the n-d filters' unsigned store. */
static uint64_t
store_bits(fv_dtype dt, double x, int nd)
{
    switch (dt) {
    case FV_BOOL:
        return (uint8_t)fv__cvt32(x) != 0;
    case FV_UINT8:
    case FV_INT8:
        return (uint8_t)fv__cvt32(x);
    case FV_UINT16:
    case FV_INT16:
        return (uint16_t)fv__cvt32(x);
    case FV_INT32:
        return (uint32_t)fv__cvt32(x);
    case FV_UINT32:
        return (uint32_t)(uint64_t)fv__cvt64(x);
    case FV_INT64:
        return (uint64_t)fv__cvt64(x);
    case FV_UINT64:
        return nd && !(x > -1.0) ? (uint64_t)0 - fv__cvtu64(-x) : fv__cvtu64(x);
    case FV_FLOAT32: {
        float f = (float)x;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    default: {
        uint64_t u;
        memcpy(&u, &x, 8);
        return u;
    }
    }
}

static uint64_t
elem_bits(fv_dtype dt, const char *p)
{
    uint64_t u = 0;
    memcpy(&u, p, fv_dtype_size(dt)); /* little-endian */
    return u;
}

/* scipy's `(_type)x` of a double parameter, read back as a double (bool keeps
 * the raw byte). */
static double
cast_in(fv_dtype dt, double x)
{
    switch (dt) {
    case FV_BOOL:
    case FV_UINT8:
        return (uint8_t)fv__cvt32(x);
    case FV_INT8:
        return (int8_t)(uint8_t)fv__cvt32(x);
    case FV_UINT16:
        return (uint16_t)fv__cvt32(x);
    case FV_INT16:
        return (int16_t)(uint16_t)fv__cvt32(x);
    case FV_INT32:
        return fv__cvt32(x);
    case FV_UINT32:
        return (uint32_t)(uint64_t)fv__cvt64(x);
    case FV_INT64:
        return (double)fv__cvt64(x);
    case FV_UINT64:
        return (double)fv__cvtu64(x);
    case FV_FLOAT32:
        return (float)x;
    default:
        return x;
    }
}

/* scipy's `_tmp += (_type)s` with _tmp of the input type, as a double. */
static double
add_in(fv_dtype dt, double v, double s)
{
    double cs = cast_in(dt, s);
    switch (dt) {
    case FV_BOOL:
    case FV_UINT8:
        return (uint8_t)((uint32_t)v + (uint32_t)cs);
    case FV_INT8:
        return (int8_t)(uint8_t)((uint32_t)(int32_t)v + (uint32_t)(int32_t)cs);
    case FV_UINT16:
        return (uint16_t)((uint32_t)v + (uint32_t)cs);
    case FV_INT16:
        return (int16_t)(uint16_t)((uint32_t)(int32_t)v + (uint32_t)(int32_t)cs);
    case FV_UINT32:
        return (uint32_t)((uint32_t)v + (uint32_t)cs);
    case FV_INT32:
        return (int32_t)((uint32_t)(int32_t)v + (uint32_t)(int32_t)cs);
    case FV_FLOAT32:
        return (float)((float)v + (float)cs);
    case FV_FLOAT64:
        return v + cs;
    default:
        return v + cs; /* 64-bit integers: the tests keep these in range */
    }
}

/* ---- test arrays: contiguous, strided, reversed ---------------------------------- */

/* A view of shape `shape` into a larger buffer: layout bit 1 takes every other
 * element along the last axis, bit 2 reverses axis 0. */
static fv_array *
make_array(fv_dtype dt, int ndim, const int64_t *shape, int layout)
{
    int64_t bshape[FV_MAX_NDIM], strides[FV_MAX_NDIM];
    for (int d = 0; d < ndim; d++)
        bshape[d] = shape[d];
    if ((layout & 1) && ndim > 0)
        bshape[ndim - 1] *= 2;
    fv_array *base = NULL, *v = NULL;
    if (fv_array_zeros(NULL, dt, ndim, bshape, CPU, &base))
        return NULL;
    const int64_t *bs = fv_array_strides(base);
    int64_t off = 0;
    for (int d = 0; d < ndim; d++)
        strides[d] = bs[d];
    if ((layout & 1) && ndim > 0)
        strides[ndim - 1] *= 2;
    if ((layout & 2) && ndim > 0 && shape[0] > 1) {
        off = (shape[0] - 1) * strides[0];
        strides[0] = -strides[0];
    }
    fv_status st = fv_array_view(base, ndim, shape, strides, off, &v);
    fv_array_unref(base);
    return st ? NULL : v;
}

static char *
elem_ptr(const fv_array *a, const int64_t *idx)
{
    char *p = fv_array_data(a);
    const int64_t *s = fv_array_strides(a);
    for (int d = 0; d < fv_array_ndim(a); d++)
        p += idx[d] * s[d];
    return p;
}

/* next C-order index; 0 when done */
static int
next_index(int ndim, const int64_t *shape, int64_t *idx)
{
    for (int d = ndim - 1; d >= 0; d--) {
        if (++idx[d] < shape[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}

/* random values: kind 0 integers valid in every dtype of the test ([-100, 100],
 * [0, 200] unsigned, 0/1 bool), kind 1 fractional floats */
static void
fill(fv_array *a, int kind)
{
    fv_dtype dt = fv_array_dtype(a);
    int64_t idx[FV_MAX_NDIM] = { 0 };
    if (fv_array_size(a) == 0)
        return;
    do {
        double v;
        if (dt == FV_BOOL)
            v = (double)rnd(0, 1);
        else if (dt == FV_UINT8 || dt == FV_UINT16 || dt == FV_UINT32 || dt == FV_UINT64)
            v = (double)rnd(0, 200);
        else if (kind == 1 && (dt == FV_FLOAT32 || dt == FV_FLOAT64))
            v = (double)rnd(-100000, 100000) / 997.0;
        else
            v = (double)rnd(-100, 100);
        put_raw(dt, elem_ptr(a, idx), v);
    } while (next_index(fv_array_ndim(a), fv_array_shape(a), idx));
}

/* ---- the reference ------------------------------------------------------------------ */

enum {
    R_CORR,
    R_UNIFORM,
    R_MIN,
    R_MAX,
    R_RANK,
    R_MIN_ND,
    R_MAX_ND
};

typedef struct ref_spec {
    int kind;
    int64_t fshape[FV_MAX_NDIM], origins[FV_MAX_NDIM];
    const uint8_t *fp; /* or NULL */
    const double *w;   /* R_CORR weights; R_MIN_ND/R_MAX_ND structure or NULL */
    int64_t rank;
    fv_mode mode;
    double cval;
} ref_spec;

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* res[i] for every output element in C order */
static void
ref_filter(const fv_array *in, const ref_spec *r, double *res)
{
    const int nd = fv_array_ndim(in);
    const int64_t *shape = fv_array_shape(in);
    const fv_dtype dt = fv_array_dtype(in);
    int64_t fsize = 1;
    for (int d = 0; d < nd; d++)
        fsize *= r->fshape[d];
    double *vals = malloc((size_t)fsize * sizeof(double));
    /* n-d min/max/rank take cval cast to the input type (scipy) */
    const int ndsem = r->kind == R_RANK || r->kind == R_MIN_ND || r->kind == R_MAX_ND;
    const double cv = ndsem ? cast_in(dt, r->cval) : r->cval;
    int64_t idx[FV_MAX_NDIM] = { 0 }, k = 0;
    do {
        int64_t j[FV_MAX_NDIM] = { 0 }, cnt = 0;
        double acc = 0.0;
        int first = 1;
        for (int64_t t = 0; t < fsize; t++, next_index(nd, r->fshape, j)) {
            if (r->fp && !r->fp[t])
                continue;
            if (r->kind == R_CORR && r->w[t] == 0.0)
                continue;
            int64_t src[FV_MAX_NDIM];
            int outside = 0;
            for (int d = 0; d < nd; d++) {
                src[d] = fv__extend_index(idx[d] + j[d] - r->fshape[d] / 2 - r->origins[d], shape[d], r->mode);
                outside |= src[d] < 0;
            }
            double v = outside ? cv : get_d(dt, elem_ptr(in, src));
            switch (r->kind) {
            case R_CORR:
                acc += r->w[t] * v;
                break;
            case R_UNIFORM:
                acc += v;
                break;
            case R_MIN:
                acc = first || v < acc ? v : acc;
                break;
            case R_MAX:
                acc = first || v > acc ? v : acc;
                break;
            case R_MIN_ND:
            case R_MAX_ND: {
                double s = r->w ? (r->kind == R_MIN_ND ? -r->w[t] : r->w[t]) : 0.0;
                double tv = !r->w ? v : first ? v + s : add_in(dt, v, s);
                if (first || (r->kind == R_MIN_ND ? tv < acc : tv > acc))
                    acc = tv;
                break;
            }
            default:
                vals[cnt] = v;
            }
            cnt++;
            first = 0;
        }
        if (r->kind == R_UNIFORM)
            acc /= (double)cnt;
        if (r->kind == R_RANK) {
            qsort(vals, (size_t)cnt, sizeof(double), cmp_double);
            acc = cast_in(dt, vals[r->rank]);
        }
        res[k++] = acc;
    } while (nd > 0 && next_index(nd, shape, idx));
    free(vals);
}

/* out against res (C order): exact bits, or within rtol for float outputs */
static int
compare(const fv_array *out, const double *res, int nd_store, double rtol, const char *what)
{
    const fv_dtype dt = fv_array_dtype(out);
    const int nd = fv_array_ndim(out);
    int64_t idx[FV_MAX_NDIM] = { 0 }, k = 0, bad = 0;
    if (fv_array_size(out) == 0)
        return 1;
    do {
        const char *p = elem_ptr(out, idx);
        double want = res[k++];
        int ok;
        if (rtol > 0 && (dt == FV_FLOAT32 || dt == FV_FLOAT64)) {
            double got = get_d(dt, p), w = dt == FV_FLOAT32 ? (double)(float)want : want;
            ok = fabs(got - w) <= rtol * (fabs(w) + 1.0);
        } else if (dt == FV_FLOAT32 || dt == FV_FLOAT64) {
            /* by value: the sign of a zero sum depends on the summation order */
            double got = get_d(dt, p), w = dt == FV_FLOAT32 ? (double)(float)want : want;
            ok = got == w || (got != got && w != w);
        } else {
            ok = elem_bits(dt, p) == store_bits(dt, want, nd_store);
        }
        if (!ok && bad++ < 3)
            fprintf(stderr, "  %s: element %lld: got %.17g want %.17g\n", what, (long long)(k - 1), get_d(dt, p), want);
    } while (nd > 0 && next_index(nd, fv_array_shape(out), idx));
    return bad == 0;
}

/* ---- random cases ------------------------------------------------------------------- */

static const fv_dtype IN_TYPES[] = { FV_BOOL,  FV_UINT8,  FV_INT8,  FV_UINT16,  FV_INT16,  FV_UINT32,
                                     FV_INT32, FV_UINT64, FV_INT64, FV_FLOAT32, FV_FLOAT64 };
#define NTYPES (int)(sizeof IN_TYPES / sizeof IN_TYPES[0])

static void
random_shape(int nd, int64_t *shape)
{
    static const int64_t maxext[5] = { 0, 40, 12, 7, 5 };
    for (int d = 0; d < nd; d++)
        shape[d] = rnd(1, maxext[nd]);
}

static int64_t
random_origin(int64_t n)
{
    return rnd(-(n / 2), (n - 1) / 2);
}

/* 1-D filters along one axis: correlate1d (exact and fractional), convolve1d,
 * uniform1d, min1d, max1d */
static void
test_1d_random(int cases)
{
    int fails = 0;
    for (int c = 0; c < cases; c++) {
        int nd = (int)rnd(1, 4);
        int64_t shape[FV_MAX_NDIM];
        random_shape(nd, shape);
        fv_dtype tin = IN_TYPES[rnd(0, NTYPES - 1)];
        fv_dtype tout = rnd(0, 2) == 0 ? tin : IN_TYPES[rnd(0, NTYPES - 1)];
        int frac = rnd(0, 3) == 0;
        if (frac) {
            tin = rnd(0, 1) ? FV_FLOAT32 : FV_FLOAT64;
            tout = rnd(0, 1) ? FV_FLOAT32 : FV_FLOAT64;
        }
        fv_array *in = make_array(tin, nd, shape, (int)rnd(0, 3));
        fv_array *out = make_array(tout, nd, shape, (int)rnd(0, 3));
        fill(in, frac);
        int axis = (int)rnd(0, nd - 1);
        int64_t size = rnd(1, 9);
        int64_t origin = random_origin(size);
        fv_mode mode = MODES[rnd(0, 4)];
        double cval = rnd(0, 1) ? 0.0 : (double)rnd(-30, 30) / 4.0;
        double w[9];
        for (int k = 0; k < size; k++)
            w[k] = frac ? (double)rnd(-1000, 1000) / 300.0 : (double)rnd(-3, 3);
        if (rnd(0, 2) == 0 && (size & 1)) /* symmetric and antisymmetric weights */
            for (int k = 0; k < size / 2; k++)
                w[size - 1 - k] = (c & 1) ? w[k] : -w[k];
        double rtol = !frac ? 0.0 : tout == FV_FLOAT32 ? 1e-5 : 1e-12;
        double *res = malloc((size_t)(fv_array_size(in) + 1) * sizeof(double));
        ref_spec r = { .mode = mode, .cval = cval };
        for (int d = 0; d < nd; d++)
            r.fshape[d] = 1;
        r.fshape[axis] = size;
        r.origins[axis] = origin;
        int ok = 1;

        r.kind = R_CORR;
        r.w = w;
        ref_filter(in, &r, res);
        CHECK_OK(fv_correlate1d(NULL, in, out, w, size, axis, mode, cval, origin));
        ok &= compare(out, res, 0, rtol, "correlate1d");

        /* convolve1d: reversed weights, origin mirrored (one less for even sizes) */
        int64_t co = -origin - ((size & 1) ? 0 : 1);
        if (co >= -(size / 2) && co <= (size - 1) / 2) {
            double rw[9];
            for (int k = 0; k < size; k++)
                rw[k] = w[size - 1 - k];
            r.w = rw;
            r.origins[axis] = co;
            ref_filter(in, &r, res);
            CHECK_OK(fv_convolve1d(NULL, in, out, w, size, axis, mode, cval, origin));
            ok &= compare(out, res, 0, rtol, "convolve1d");
            r.origins[axis] = origin;
        }
        r.kind = R_UNIFORM;
        ref_filter(in, &r, res);
        CHECK_OK(fv_uniform_filter1d(NULL, in, out, size, axis, mode, cval, origin));
        ok &= compare(out, res, 0, frac ? rtol : 0.0, "uniform_filter1d");
        r.kind = R_MIN;
        ref_filter(in, &r, res);
        CHECK_OK(fv_minimum_filter1d(NULL, in, out, size, axis, mode, cval, origin));
        ok &= compare(out, res, 0, 0.0, "minimum_filter1d");
        r.kind = R_MAX;
        ref_filter(in, &r, res);
        CHECK_OK(fv_maximum_filter1d(NULL, in, out, size, axis, mode, cval, origin));
        ok &= compare(out, res, 0, 0.0, "maximum_filter1d");
        if (!ok && fails++ < 5)
            fprintf(stderr, "1-d case %d: %s -> %s nd %d axis %d size %lld origin %lld mode %s cval %g\n", c,
                    fv_dtype_name(tin), fv_dtype_name(tout), nd, axis, (long long)size, (long long)origin,
                    fv_mode_name(mode), cval);
        CHECK(ok);
        free(res);
        fv_array_unref(in);
        fv_array_unref(out);
    }
}

/* n-d filters: correlate / convolve, min / max with a footprint (and with a
 * structure), rank */
static void
test_nd_random(int cases)
{
    int fails = 0;
    for (int c = 0; c < cases; c++) {
        int nd = (int)rnd(1, 4);
        int64_t shape[FV_MAX_NDIM], fshape[FV_MAX_NDIM], origins[FV_MAX_NDIM];
        random_shape(nd, shape);
        fv_dtype tin = IN_TYPES[rnd(0, NTYPES - 1)];
        fv_dtype tout = rnd(0, 2) == 0 ? tin : IN_TYPES[rnd(0, NTYPES - 1)];
        int frac = rnd(0, 3) == 0;
        if (frac) {
            tin = rnd(0, 1) ? FV_FLOAT32 : FV_FLOAT64;
            tout = rnd(0, 1) ? FV_FLOAT32 : FV_FLOAT64;
        }
        fv_array *in = make_array(tin, nd, shape, (int)rnd(0, 3));
        fv_array *out = make_array(tout, nd, shape, (int)rnd(0, 3));
        fill(in, frac);
        int64_t fsize = 1;
        for (int d = 0; d < nd; d++) {
            fshape[d] = rnd(1, nd <= 2 ? 5 : 3);
            origins[d] = random_origin(fshape[d]);
            fsize *= fshape[d];
        }
        fv_mode mode = MODES[rnd(0, 4)];
        double cval = rnd(0, 1) ? 0.0 : (double)rnd(-30, 30) / 4.0;
        double *w = malloc((size_t)fsize * sizeof(double)), *st = malloc((size_t)fsize * sizeof(double));
        uint8_t *fp = malloc((size_t)fsize);
        int64_t count = 0;
        for (int64_t t = 0; t < fsize; t++) {
            w[t] = rnd(0, 3) == 0 ? 0.0 : frac ? (double)rnd(-1000, 1000) / 300.0 : (double)rnd(-3, 3);
            st[t] = (double)rnd(-4, 4) / (rnd(0, 1) ? 1.0 : 2.0);
            fp[t] = rnd(0, 3) != 0;
            if (t == fsize - 1 && count == 0)
                fp[t] = 1;
            count += fp[t];
        }
        double rtol = !frac ? 0.0 : tout == FV_FLOAT32 ? 1e-5 : 1e-12;
        double *res = malloc((size_t)(fv_array_size(in) + 1) * sizeof(double));
        ref_spec r = { .mode = mode, .cval = cval };
        memcpy(r.fshape, fshape, sizeof fshape);
        memcpy(r.origins, origins, sizeof origins);
        int ok = 1;

        r.kind = R_CORR;
        r.w = w;
        ref_filter(in, &r, res);
        CHECK_OK(fv_correlate(NULL, in, out, w, fshape, mode, cval, origins));
        ok &= compare(out, res, 1, rtol, "correlate");

        /* convolve: all axes reversed, origins mirrored */
        int conv_ok = 1;
        int64_t co[FV_MAX_NDIM];
        for (int d = 0; d < nd; d++) {
            co[d] = -origins[d] - ((fshape[d] & 1) ? 0 : 1);
            conv_ok &= co[d] >= -(fshape[d] / 2) && co[d] <= (fshape[d] - 1) / 2;
        }
        if (conv_ok) {
            double *rw = malloc((size_t)fsize * sizeof(double));
            for (int64_t t = 0; t < fsize; t++)
                rw[t] = w[fsize - 1 - t];
            r.w = rw;
            memcpy(r.origins, co, sizeof co);
            ref_filter(in, &r, res);
            CHECK_OK(fv_convolve(NULL, in, out, w, fshape, mode, cval, origins));
            ok &= compare(out, res, 1, rtol, "convolve");
            memcpy(r.origins, origins, sizeof origins);
            free(rw);
        }
        /* min / max over a footprint that is not a full box: scipy's n-d path */
        if (count < fsize) {
            r.fp = fp;
            r.w = NULL;
            r.kind = R_MIN_ND;
            ref_filter(in, &r, res);
            CHECK_OK(fv_minimum_filter(NULL, in, out, fp, NULL, fshape, mode, cval, origins));
            ok &= compare(out, res, 1, 0.0, "minimum_filter");
            r.kind = R_MAX_ND;
            ref_filter(in, &r, res);
            CHECK_OK(fv_maximum_filter(NULL, in, out, fp, NULL, fshape, mode, cval, origins));
            ok &= compare(out, res, 1, 0.0, "maximum_filter");
        }
        /* with a structure (grey erosion / dilation), footprint or not */
        if (tin != FV_INT64 && tin != FV_UINT64) {
            r.fp = rnd(0, 1) ? fp : NULL;
            r.w = st;
            r.kind = R_MIN_ND;
            ref_filter(in, &r, res);
            CHECK_OK(fv_minimum_filter(NULL, in, out, r.fp, st, fshape, mode, cval, origins));
            ok &= compare(out, res, 1, 0.0, "minimum_filter/structure");
            r.kind = R_MAX_ND;
            ref_filter(in, &r, res);
            CHECK_OK(fv_maximum_filter(NULL, in, out, r.fp, st, fshape, mode, cval, origins));
            ok &= compare(out, res, 1, 0.0, "maximum_filter/structure");
        }
        /* rank: footprint or the whole box */
        r.fp = rnd(0, 1) ? fp : NULL;
        r.w = NULL;
        r.kind = R_RANK;
        r.rank = rnd(0, (r.fp ? count : fsize) - 1);
        ref_filter(in, &r, res);
        CHECK_OK(fv_rank_filter(NULL, in, out, r.fp, fshape, r.rank, mode, cval, origins));
        ok &= compare(out, res, 1, 0.0, "rank_filter");
        if (!ok && fails++ < 5)
            fprintf(stderr, "n-d case %d: %s -> %s nd %d mode %s cval %g fshape[0] %lld\n", c, fv_dtype_name(tin),
                    fv_dtype_name(tout), nd, fv_mode_name(mode), cval, (long long)fshape[0]);
        CHECK(ok);
        free(res);
        free(w);
        free(st);
        free(fp);
        fv_array_unref(in);
        fv_array_unref(out);
    }
}

/* Long lines and big images: the chunked, segmented and batched paths. */
static void
test_long_lines(void)
{
    static const int64_t shapes[][3] = {
        { 1, 1, 9001 }, { 1, 3, 3001 }, { 1, 3001, 3 }, { 2, 700, 9 }, { 1, 300, 300 }
    };
    for (int s = 0; s < 5; s++) {
        const int64_t *sh = shapes[s];
        int nd = sh[0] == 1 && sh[1] == 1 ? 1 : sh[0] == 1 ? 2 : 3;
        const int64_t *shape = sh + 3 - nd;
        for (int di = 0; di < 3; di++) {
            fv_dtype dt = (fv_dtype[]){ FV_FLOAT32, FV_INT16, FV_FLOAT64 }[di];
            fv_array *in = make_array(dt, nd, shape, di == 1 ? 2 : 0);
            fv_array *out = make_array(dt == FV_INT16 ? FV_FLOAT64 : dt, nd, shape, di == 2 ? 1 : 0);
            fill(in, 0);
            double *res = malloc((size_t)fv_array_size(in) * sizeof(double));
            for (int axis = 0; axis < nd; axis++) {
                int64_t size = (int64_t[]){ 1, 5, 40, 333 }[rnd(0, 3)];
                int64_t origin = random_origin(size);
                fv_mode mode = MODES[rnd(0, 4)];
                ref_spec r = { .mode = mode, .cval = 2.5 };
                for (int d = 0; d < nd; d++)
                    r.fshape[d] = 1;
                r.fshape[axis] = size;
                r.origins[axis] = origin;
                double w[333];
                for (int k = 0; k < size; k++)
                    w[k] = (double)rnd(-2, 2);
                r.kind = R_CORR;
                r.w = w;
                ref_filter(in, &r, res);
                CHECK_OK(fv_correlate1d(NULL, in, out, w, size, axis, mode, 2.5, origin));
                CHECK(compare(out, res, 0, 0.0, "long correlate1d"));
                r.kind = R_UNIFORM;
                ref_filter(in, &r, res);
                CHECK_OK(fv_uniform_filter1d(NULL, in, out, size, axis, mode, 2.5, origin));
                CHECK(compare(out, res, 0, 0.0, "long uniform_filter1d"));
                r.kind = R_MAX;
                ref_filter(in, &r, res);
                CHECK_OK(fv_maximum_filter1d(NULL, in, out, size, axis, mode, 2.5, origin));
                CHECK(compare(out, res, 0, 0.0, "long maximum_filter1d"));
            }
            if (nd >= 2) {
                int64_t fshape[3] = { 3, 3, 3 }, origins[3] = { 0, 1, -1 };
                uint8_t fp[27];
                for (int t = 0; t < 27; t++)
                    fp[t] = (uint8_t)(t % 4 != 1);
                ref_spec r = { .kind = R_RANK, .mode = FV_MODE_MIRROR, .fp = fp, .rank = 4 };
                memcpy(r.fshape, fshape, sizeof fshape);
                memcpy(r.origins, origins, sizeof origins);
                ref_filter(in, &r, res);
                CHECK_OK(fv_rank_filter(NULL, in, out, fp, fshape, 4, FV_MODE_MIRROR, 0.0, origins));
                CHECK(compare(out, res, 1, 0.0, "long rank_filter"));
            }
            free(res);
            fv_array_unref(in);
            fv_array_unref(out);
        }
    }
}

/* ---- compositions ---------------------------------------------------------------------- */

static int
same_array(const fv_array *a, const fv_array *b)
{
    int64_t idx[FV_MAX_NDIM] = { 0 };
    fv_dtype dt = fv_array_dtype(a);
    if (fv_array_size(a) == 0)
        return 1;
    do {
        if (elem_bits(dt, elem_ptr(a, idx)) != elem_bits(dt, elem_ptr(b, idx)))
            return 0;
    } while (fv_array_ndim(a) > 0 && next_index(fv_array_ndim(a), fv_array_shape(a), idx));
    return 1;
}

/* gaussian_filter / uniform_filter / box min-max against chains of 1-D calls
 * through out (scipy's `input = output`), with scipy's skip rules */
static void
test_compositions(void)
{
    for (int c = 0; c < 60; c++) {
        int nd = (int)rnd(1, 3);
        int64_t shape[FV_MAX_NDIM];
        random_shape(nd, shape);
        fv_dtype tin = IN_TYPES[rnd(0, NTYPES - 1)];
        fv_dtype tout = IN_TYPES[rnd(1, NTYPES - 1)]; /* bool outputs: test_bool_passes */
        fv_array *in = make_array(tin, nd, shape, (int)rnd(0, 3));
        fv_array *out = make_array(tout, nd, shape, 0), *chain = make_array(tout, nd, shape, 0);
        fill(in, 1);
        double sigma[FV_MAX_NDIM], cval = 1.5;
        int order[FV_MAX_NDIM];
        fv_mode modes[FV_MAX_NDIM];
        int64_t radius[FV_MAX_NDIM], size[FV_MAX_NDIM], origins[FV_MAX_NDIM];
        for (int d = 0; d < nd; d++) {
            sigma[d] = rnd(0, 4) == 0 ? (rnd(0, 1) ? 0.0 : 1e-16) : (double)rnd(2, 30) / 10.0;
            order[d] = (int)rnd(0, 2);
            modes[d] = MODES[rnd(0, 4)];
            radius[d] = rnd(-1, 4);
            size[d] = rnd(0, 5);
            origins[d] = size[d] >= 1 ? random_origin(size[d]) : 0;
        }
        const int use_radius = (int)rnd(0, 1);
        CHECK_OK(fv_gaussian_filter(NULL, in, out, sigma, order, modes, cval, 3.0, use_radius ? radius : NULL));
        const fv_array *src = in;
        int passes = 0;
        for (int d = 0; d < nd; d++) {
            if (!(sigma[d] > 1e-15))
                continue;
            int64_t lw = use_radius && radius[d] >= 0 ? radius[d] : (int64_t)(3.0 * sigma[d] + 0.5);
            double *k = malloc((size_t)(2 * lw + 1) * sizeof(double));
            CHECK_OK(fv_gaussian_kernel1d(sigma[d], order[d], lw, k));
            CHECK_OK(fv_correlate1d(NULL, src, chain, k, 2 * lw + 1, d, modes[d], cval, 0));
            free(k);
            src = chain;
            passes++;
        }
        if (!passes)
            CHECK_OK(fv_astype(NULL, in, chain)); /* no float -> integer pairs reach here unsafely */
        if (passes || !(fv_dtype_is_float(tin) && fv_dtype_is_integer(tout)))
            CHECK(same_array(out, chain));

        CHECK_OK(fv_uniform_filter(NULL, in, out, size, modes, cval, origins));
        src = in;
        passes = 0;
        for (int d = 0; d < nd; d++) {
            if (size[d] <= 1)
                continue;
            CHECK_OK(fv_uniform_filter1d(NULL, src, chain, size[d], d, modes[d], cval, origins[d]));
            src = chain;
            passes++;
        }
        if (passes)
            CHECK(same_array(out, chain));

        /* min / max with the whole box: separable 1-D passes (cval as a double) */
        int64_t fshape[FV_MAX_NDIM];
        for (int d = 0; d < nd; d++)
            fshape[d] = size[d] >= 1 ? size[d] : 1;
        const int mn = (int)rnd(0, 1);
        CHECK_OK(
            (mn ? fv_minimum_filter : fv_maximum_filter)(NULL, in, out, NULL, NULL, fshape, modes[0], cval, origins));
        src = in;
        passes = 0;
        for (int d = 0; d < nd; d++) {
            if (fshape[d] <= 1)
                continue;
            CHECK_OK((mn ? fv_minimum_filter1d : fv_maximum_filter1d)(NULL, src, chain, fshape[d], d, modes[0], cval,
                                                                      origins[d]));
            src = chain;
            passes++;
        }
        if (passes)
            CHECK(same_array(out, chain));
        /* an explicit all-ones footprint takes the same path */
        uint8_t ones[125];
        memset(ones, 1, sizeof ones);
        fv_array *out2 = make_array(tout, nd, shape, 1);
        CHECK_OK(
            (mn ? fv_minimum_filter : fv_maximum_filter)(NULL, in, out2, ones, NULL, fshape, modes[0], cval, origins));
        CHECK(same_array(out, out2));
        fv_array_unref(out2);
        fv_array_unref(in);
        fv_array_unref(out);
        fv_array_unref(chain);
    }
}

/* fv_separable_filter: random chains of mixed passes (any axis, repeated axes,
 * 0 to 5 passes) against the same passes called one by one through out; its
 * argument checks */
static void
test_separable(void)
{
    for (int c = 0; c < 80; c++) {
        int nd = (int)rnd(1, 3);
        int64_t shape[FV_MAX_NDIM];
        random_shape(nd, shape);
        fv_dtype tin = IN_TYPES[rnd(0, NTYPES - 1)];
        fv_dtype tout = IN_TYPES[rnd(0, NTYPES - 1)];
        fv_array *in = make_array(tin, nd, shape, (int)rnd(0, 3));
        fv_array *out = make_array(tout, nd, shape, (int)rnd(0, 1)), *chain = make_array(tout, nd, shape, 0);
        fv_array *mid = make_array(tout == FV_BOOL ? FV_UINT8 : tout, nd, shape, 0);
        fill(in, 1);
        fv_filter_pass p[5];
        double w[5][7];
        int k = (int)rnd(0, 5);
        for (int i = 0; i < k; i++) {
            int64_t size = rnd(1, 7);
            for (int j = 0; j < size; j++)
                w[i][j] = (double)rnd(-20, 20) / 8.0;
            p[i] = (fv_filter_pass){ .kind = (fv_pass_kind)rnd(0, 3),
                                     .axis = (int)rnd(0, nd - 1),
                                     .size = size,
                                     .weights = w[i],
                                     .mode = MODES[rnd(0, 4)],
                                     .cval = (double)rnd(-4, 4) / 2.0,
                                     .origin = random_origin(size) };
        }
        CHECK_OK(fv_separable_filter(NULL, in, out, p, k));
        /* the chain through out's dtype (uint8 raw bytes for bool outputs), one call per pass */
        const fv_array *src = in;
        for (int i = 0; i < k; i++) {
            fv_array *dst = i == k - 1 ? chain : mid;
            const fv_filter_pass *q = &p[i];
            switch (q->kind) {
            case FV_PASS_CORRELATE:
                CHECK_OK(fv_correlate1d(NULL, src, dst, q->weights, q->size, q->axis, q->mode, q->cval, q->origin));
                break;
            case FV_PASS_UNIFORM:
                CHECK_OK(fv_uniform_filter1d(NULL, src, dst, q->size, q->axis, q->mode, q->cval, q->origin));
                break;
            case FV_PASS_MINIMUM:
                CHECK_OK(fv_minimum_filter1d(NULL, src, dst, q->size, q->axis, q->mode, q->cval, q->origin));
                break;
            default:
                CHECK_OK(fv_maximum_filter1d(NULL, src, dst, q->size, q->axis, q->mode, q->cval, q->origin));
                break;
            }
            src = dst; /* a middle pass reads and writes mid: the library handles the overlap */
        }
        if (k == 0)
            CHECK_OK(fv_astype(NULL, in, chain));
        if (k > 0 || !(fv_dtype_is_float(tin) && fv_dtype_is_integer(tout)))
            CHECK(same_array(out, chain));
        fv_array_unref(in);
        fv_array_unref(out);
        fv_array_unref(chain);
        fv_array_unref(mid);
    }
    /* errors */
    int64_t shape[2] = { 5, 6 };
    fv_array *in = make_array(FV_FLOAT32, 2, shape, 0), *out = make_array(FV_FLOAT32, 2, shape, 0);
    double w3[3] = { 1, 2, 1 };
    fv_filter_pass ok = { .kind = FV_PASS_CORRELATE, .axis = 1, .size = 3, .weights = w3, .mode = FV_MODE_REFLECT };
    fv_filter_pass bad = ok;
    CHECK_OK(fv_separable_filter(NULL, in, out, &ok, 1));
    CHECK(fv_separable_filter(NULL, in, out, NULL, 1) == FV_EINVAL);
    CHECK(fv_separable_filter(NULL, in, out, &ok, -1) == FV_EINVAL);
    CHECK(fv_separable_filter(NULL, in, out, &ok, FV_MAX_PASSES + 1) == FV_EINVAL);
    bad.axis = 2;
    CHECK(fv_separable_filter(NULL, in, out, &bad, 1) == FV_EINVAL);
    bad = ok;
    bad.weights = NULL;
    CHECK(fv_separable_filter(NULL, in, out, &bad, 1) == FV_EINVAL);
    bad = ok;
    bad.kind = (fv_pass_kind)9;
    CHECK(fv_separable_filter(NULL, in, out, &bad, 1) == FV_EINVAL);
    bad = ok;
    bad.origin = 2;
    CHECK(fv_separable_filter(NULL, in, out, &bad, 1) == FV_EINVAL);
    bad = ok;
    bad.size = 0;
    CHECK(fv_separable_filter(NULL, in, out, &bad, 1) == FV_EINVAL);
    fv_array_unref(in);
    fv_array_unref(out);
}

/* Bool outputs of several passes: scipy's intermediate results are the raw
 * bytes its casts store (the next pass reads 2 or 255 as numbers). */
static void
test_bool_passes(void)
{
    int64_t shape[2] = { 9, 11 };
    fv_array *in = make_array(FV_FLOAT64, 2, shape, 0), *out = make_array(FV_BOOL, 2, shape, 0);
    fv_array *mid = make_array(FV_UINT8, 2, shape, 0), *want = make_array(FV_BOOL, 2, shape, 0);
    fill(in, 1);
    int64_t size[2] = { 3, 4 }, origins[2] = { 0, -1 };
    CHECK_OK(fv_uniform_filter(NULL, in, out, size, NULL, 0.0, origins));
    CHECK_OK(fv_uniform_filter1d(NULL, in, mid, 3, 0, FV_MODE_REFLECT, 0.0, 0));
    CHECK_OK(fv_uniform_filter1d(NULL, mid, want, 4, 1, FV_MODE_REFLECT, 0.0, -1));
    CHECK(same_array(out, want));
    double sigma[2] = { 1.0, 0.7 };
    CHECK_OK(fv_gaussian_filter(NULL, in, out, sigma, NULL, NULL, 0.0, 4.0, NULL));
    double k0[9], k1[7];
    CHECK_OK(fv_gaussian_kernel1d(1.0, 0, 4, k0));
    CHECK_OK(fv_gaussian_kernel1d(0.7, 0, 3, k1));
    CHECK_OK(fv_correlate1d(NULL, in, mid, k0, 9, 0, FV_MODE_REFLECT, 0.0, 0));
    CHECK_OK(fv_correlate1d(NULL, mid, want, k1, 7, 1, FV_MODE_REFLECT, 0.0, 0));
    CHECK(same_array(out, want));
    const uint8_t *b = fv_array_data(out);
    for (int64_t i = 0; i < 99; i++)
        CHECK(b[i] <= 1);
    fv_array_unref(in);
    fv_array_unref(out);
    fv_array_unref(mid);
    fv_array_unref(want);
}

/* ---- golden values from scipy 1.17 ------------------------------------------------------- */

static void
test_golden(void)
{
    const double nan = NAN;
    double x[14] = { 1, nan, 3, 0, 5, nan, 2, -1, 4, 4, nan, nan, 7, 1 }, o[14];
    int64_t n = 14;
    fv_array *a = NULL, *b = NULL;
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, &n, NULL, x, CPU, NULL, NULL, &a));
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, &n, NULL, o, CPU, NULL, NULL, &b));
    /* scipy's deque with NaN */
    const double min3[14] = { 1, 1, nan, 0, 0, 2, -1, -1, -1, 4, 4, nan, nan, 1 };
    const double max4[14] = { 2, 3, 3, 5, 5, 5, 5, nan, 4, 4, 4, 7, 7, 7 };
    const double min5w[14] = { 1, 0, 0, 0, 0, -1, -1, -1, -1, -1, 4, 1, 1, 1 };
    CHECK_OK(fv_minimum_filter1d(NULL, a, b, 3, 0, FV_MODE_REFLECT, 0.0, 0));
    for (int i = 0; i < 14; i++)
        CHECK(o[i] == min3[i] || (isnan(o[i]) && isnan(min3[i])));
    CHECK_OK(fv_maximum_filter1d(NULL, a, b, 4, 0, FV_MODE_CONSTANT, 2.0, 0));
    for (int i = 0; i < 14; i++)
        CHECK(o[i] == max4[i] || (isnan(o[i]) && isnan(max4[i])));
    CHECK_OK(fv_minimum_filter1d(NULL, a, b, 5, 0, FV_MODE_WRAP, 0.0, 0));
    for (int i = 0; i < 14; i++)
        CHECK(o[i] == min5w[i]);
    fv_array_unref(a);
    fv_array_unref(b);
    /* scipy's quickselect and n-d minimum with NaN */
    double y[15] = { 1, nan, 3, 0, 5, nan, 2, -1, 4, 4, nan, nan, 7, 1, 0 }, r[15];
    int64_t sh[2] = { 3, 5 }, f3[2] = { 3, 3 }, f23[2] = { 2, 3 };
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 2, sh, NULL, y, CPU, NULL, NULL, &a));
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 2, sh, NULL, r, CPU, NULL, NULL, &b));
    const double rank4[15] = { 1, nan, 4, 3, 4, 1, nan, 7, 3, 4, nan, nan, 2, 1, 1 };
    CHECK_OK(fv_rank_filter(NULL, a, b, NULL, f3, 4, FV_MODE_REFLECT, 0.0, NULL));
    for (int i = 0; i < 15; i++)
        CHECK(r[i] == rank4[i] || (isnan(r[i]) && isnan(rank4[i])));
    const uint8_t fp2[9] = { 1, 0, 1, 0, 1, 0, 1, 1, 1 };
    const double rank2[15] = { 2, 2, 4, 4, nan, nan, 1, 7, 3, nan, nan, nan, nan, nan, nan };
    CHECK_OK(fv_rank_filter(NULL, a, b, fp2, f3, 2, FV_MODE_CONSTANT, nan, NULL));
    for (int i = 0; i < 15; i++)
        CHECK(r[i] == rank2[i] || (isnan(r[i]) && isnan(rank2[i])));
    const uint8_t fp3[6] = { 1, 0, 1, 1, 1, 0 };
    const double minnd[15] = { 1, 1, nan, 0, 0, 1, 1, nan, -1, 0, nan, nan, 2, -1, 0 };
    CHECK_OK(fv_minimum_filter(NULL, a, b, fp3, NULL, f23, FV_MODE_NEAREST, 0.0, NULL));
    for (int i = 0; i < 15; i++)
        CHECK(r[i] == minnd[i] || (isnan(r[i]) && isnan(minnd[i])));
    fv_array_unref(a);
    fv_array_unref(b);

    /* stores of out-of-range results (correlate1d with weight 1) */
    double v[18] = { 0.2,       0.7,     -0.4,     -1.5, 2.5,  255.9, 256.5,    -255.5,    1e10 + 3,
                     -1e10 - 3, 3e9 + 5, -3e9 - 5, 1e19, 2e19, -1e19, INFINITY, -INFINITY, nan };
    const uint8_t want_u8[18] = { 0, 0, 0, 255, 2, 255, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    const uint8_t want_b[18] = { 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    const int32_t want_i32[18] = { 0,         0,         0,         -1,        2,         255,
                                   256,       -255,      INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN,
                                   INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN };
    const uint32_t want_u32[18] = { 0,   0,           0,           4294967295u, 2,           255,
                                    256, 4294967041u, 1410065411u, 2884901885u, 3000000005u, 1294967291u,
                                    0,   0,           0,           0,           0,           0 };
    const uint64_t want_u64[18] = { 0,
                                    0,
                                    0,
                                    18446744073709551615ull,
                                    2,
                                    255,
                                    256,
                                    18446744073709551361ull,
                                    10000000003ull,
                                    18446744063709551613ull,
                                    3000000005ull,
                                    18446744070709551611ull,
                                    10000000000000000000ull,
                                    0,
                                    9223372036854775808ull,
                                    0,
                                    9223372036854775808ull,
                                    9223372036854775808ull };
    const uint64_t want_u64_nd14 = 8446744073709551616ull, want_u64_nd16 = 0;
    int64_t n18 = 18, one = 1;
    double w1 = 1.0;
    uint8_t ou8[18];
    int32_t oi32[18];
    uint32_t ou32[18];
    uint64_t ou64[18];
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, &n18, NULL, v, CPU, NULL, NULL, &a));
    CHECK_OK(fv_array_wrap(FV_UINT8, 1, &n18, NULL, ou8, CPU, NULL, NULL, &b));
    CHECK_OK(fv_correlate1d(NULL, a, b, &w1, 1, 0, FV_MODE_REFLECT, 0.0, 0));
    CHECK(!memcmp(ou8, want_u8, 18));
    fv_array_unref(b);
    CHECK_OK(fv_array_wrap(FV_BOOL, 1, &n18, NULL, ou8, CPU, NULL, NULL, &b));
    CHECK_OK(fv_correlate1d(NULL, a, b, &w1, 1, 0, FV_MODE_REFLECT, 0.0, 0));
    CHECK(!memcmp(ou8, want_b, 18));
    CHECK_OK(fv_correlate(NULL, a, b, &w1, &one, FV_MODE_REFLECT, 0.0, NULL));
    CHECK(!memcmp(ou8, want_b, 18));
    fv_array_unref(b);
    CHECK_OK(fv_array_wrap(FV_INT32, 1, &n18, NULL, oi32, CPU, NULL, NULL, &b));
    CHECK_OK(fv_correlate(NULL, a, b, &w1, &one, FV_MODE_REFLECT, 0.0, NULL));
    CHECK(!memcmp(oi32, want_i32, sizeof oi32));
    fv_array_unref(b);
    CHECK_OK(fv_array_wrap(FV_UINT32, 1, &n18, NULL, ou32, CPU, NULL, NULL, &b));
    CHECK_OK(fv_correlate1d(NULL, a, b, &w1, 1, 0, FV_MODE_REFLECT, 0.0, 0));
    CHECK(!memcmp(ou32, want_u32, sizeof ou32));
    fv_array_unref(b);
    CHECK_OK(fv_array_wrap(FV_UINT64, 1, &n18, NULL, ou64, CPU, NULL, NULL, &b));
    CHECK_OK(fv_correlate1d(NULL, a, b, &w1, 1, 0, FV_MODE_REFLECT, 0.0, 0));
    CHECK(!memcmp(ou64, want_u64, sizeof ou64));
    CHECK_OK(fv_correlate(NULL, a, b, &w1, &one, FV_MODE_REFLECT, 0.0, NULL)); /* n-d: x > -1 ? .. : -(T)(-x) */
    CHECK(ou64[14] == want_u64_nd14 && ou64[16] == want_u64_nd16 && ou64[12] == want_u64[12]);
    fv_array_unref(a);
    fv_array_unref(b);

    /* scipy's Gaussian kernel: sigma 1.5, radius 6 (values from numpy) */
    double k[13];
    CHECK_OK(fv_gaussian_kernel1d(1.5, 0, 6, k));
    double sum = 0.0;
    for (int i = 0; i < 13; i++)
        sum += k[i];
    CHECK(fabs(sum - 1.0) < 1e-15 && fabs(k[6] - 0.2659642571610709) < 1e-15 && k[0] == k[12] && k[6] > k[5]);
    CHECK_OK(fv_gaussian_kernel1d(1.5, 1, 6, k)); /* correlation kernel of the derivative */
    CHECK(k[6] == 0.0 && k[5] == -k[7] && k[7] > 0.0);
}

/* ---- aliasing ------------------------------------------------------------------------------- */

static void
test_aliasing(void)
{
    int64_t shape[2] = { 13, 17 }, big[2] = { 14, 17 }, fs[2] = { 3, 4 }, org[2] = { 0, -1 };
    double w[12] = { 1, -2, 0, 3, 1, 1, 2, 0, -1, 2, 1, 1 }, sig[2] = { 1.2, 0.8 };
    int64_t sz[2] = { 3, 2 };
    uint8_t fp[12] = { 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0 };
    for (int op = 0; op < 9; op++) {
        fv_array *a = make_array(FV_FLOAT32, 2, shape, 0), *ref = make_array(FV_FLOAT32, 2, shape, 0);
        fill(a, 1);
        fv_array *copy = make_array(FV_FLOAT32, 2, shape, 0);
        CHECK_OK(fv_copy(NULL, a, copy));
#define FV__RUN(IN, OUT)                                                                        \
    (op == 0       ? fv_correlate1d(NULL, IN, OUT, w, 5, 0, FV_MODE_REFLECT, 0.0, 1)            \
         : op == 1 ? fv_uniform_filter1d(NULL, IN, OUT, 4, 1, FV_MODE_WRAP, 0.0, 0)             \
         : op == 2 ? fv_minimum_filter1d(NULL, IN, OUT, 6, 0, FV_MODE_MIRROR, 0.0, -2)          \
         : op == 3 ? fv_correlate(NULL, IN, OUT, w, fs, FV_MODE_NEAREST, 0.0, org)              \
         : op == 4 ? fv_maximum_filter(NULL, IN, OUT, fp, NULL, fs, FV_MODE_CONSTANT, 1.0, org) \
         : op == 5 ? fv_rank_filter(NULL, IN, OUT, fp, fs, 3, FV_MODE_REFLECT, 0.0, org)        \
         : op == 6 ? fv_gaussian_filter(NULL, IN, OUT, sig, NULL, NULL, 0.0, 4.0, NULL)         \
         : op == 7 ? fv_uniform_filter(NULL, IN, OUT, sz, NULL, 0.0, NULL)                      \
                   : fv_minimum_filter(NULL, IN, OUT, NULL, NULL, fs, FV_MODE_REFLECT, 0.0, NULL))
        CHECK_OK(FV__RUN(copy, ref));
        CHECK_OK(FV__RUN(a, a)); /* in == out */
        CHECK(same_array(a, ref));
        /* partial overlap: out is the input shifted by one row in one buffer */
        fv_array *base = make_array(FV_FLOAT32, 2, big, 0), *vin = NULL, *vout = NULL;
        const int64_t *bst = fv_array_strides(base);
        CHECK_OK(fv_array_view(base, 2, shape, bst, bst[0], &vin));
        CHECK_OK(fv_array_view(base, 2, shape, bst, 0, &vout));
        CHECK_OK(fv_copy(NULL, copy, vin));
        CHECK_OK(FV__RUN(vin, vout));
        CHECK(same_array(vout, ref));
#undef FV__RUN
        fv_array_unref(vin);
        fv_array_unref(vout);
        fv_array_unref(base);
        fv_array_unref(a);
        fv_array_unref(ref);
        fv_array_unref(copy);
    }
}

/* ---- special shapes ---------------------------------------------------------------------- */

static void
test_special(void)
{
    fv_array *a = NULL, *b = NULL;
    /* 0-d arrays: n-d filters see one element; 1-D filters have no axis */
    double x = 3.0, y = 0.0, w = 2.0;
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 0, NULL, NULL, &x, CPU, NULL, NULL, &a));
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 0, NULL, NULL, &y, CPU, NULL, NULL, &b));
    CHECK_OK(fv_correlate(NULL, a, b, &w, NULL, FV_MODE_REFLECT, 0.0, NULL));
    CHECK(y == 6.0);
    CHECK_OK(fv_rank_filter(NULL, a, b, NULL, NULL, 0, FV_MODE_REFLECT, 0.0, NULL));
    CHECK(y == 3.0);
    y = 0;
    CHECK_OK(fv_gaussian_filter(NULL, a, b, NULL, NULL, NULL, 0.0, 4.0, NULL));
    CHECK(y == 3.0);
    CHECK_ERR(fv_correlate1d(NULL, a, b, &w, 1, 0, FV_MODE_REFLECT, 0.0, 0), FV_EINVAL, "axis 0 is out of range");
    fv_array_unref(a);
    fv_array_unref(b);
    /* empty arrays */
    int64_t z[2] = { 0, 4 }, f2[2] = { 3, 3 };
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 2, z, CPU, &a));
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 2, z, CPU, &b));
    CHECK_OK(fv_uniform_filter1d(NULL, a, b, 3, 1, FV_MODE_REFLECT, 0.0, 0));
    CHECK_OK(fv_rank_filter(NULL, a, b, NULL, f2, 4, FV_MODE_REFLECT, 0.0, NULL));
    fv_array_unref(a);
    fv_array_unref(b);
    /* all weights (|w| <= DBL_EPSILON, NaN) unselected: zeros, as scipy */
    int64_t s3 = 5, f3 = 3;
    double v[5] = { 1, 2, 3, 4, 5 }, o[5] = { 9, 9, 9, 9, 9 }, wz[3] = { 0.0, 1e-17, NAN };
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, &s3, NULL, v, CPU, NULL, NULL, &a));
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, &s3, NULL, o, CPU, NULL, NULL, &b));
    CHECK_OK(fv_correlate(NULL, a, b, wz, &f3, FV_MODE_REFLECT, 0.0, NULL));
    CHECK(o[0] == 0 && o[4] == 0);
    /* filters much longer than the line, every mode */
    for (int m = 0; m < 5; m++) {
        double w9[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
        ref_spec r = { .kind = R_CORR, .mode = MODES[m], .cval = 0.5, .w = w9 };
        r.fshape[0] = 9;
        double res[5];
        ref_filter(a, &r, res);
        CHECK_OK(fv_correlate1d(NULL, a, b, w9, 9, 0, MODES[m], 0.5, 0));
        CHECK(compare(b, res, 0, 0.0, "long filter, short line"));
        CHECK_OK(fv_correlate(NULL, a, b, w9, r.fshape, MODES[m], 0.5, NULL));
        CHECK(compare(b, res, 1, 0.0, "long n-d filter, short line"));
    }
    fv_array_unref(a);
    fv_array_unref(b);
}

/* ---- validation --------------------------------------------------------------------------- */

static void
test_errors(void)
{
    int64_t shape[2] = { 5, 6 }, other[2] = { 5, 7 }, f[2] = { 3, 3 }, bad_f[2] = { 3, 0 }, org[2] = { 0, 0 };
    fv_array *a = make_array(FV_FLOAT32, 2, shape, 0), *b = make_array(FV_FLOAT32, 2, shape, 0);
    fv_array *c = make_array(FV_FLOAT32, 2, other, 0), *ro = make_array(FV_FLOAT32, 2, shape, 0), *g = NULL;
    fv_array_set_readonly(ro, 1);
    float gbuf[30];
    fv_device gpu = { FV_DEVICE_CUDA, 0 };
    CHECK_OK(fv_array_wrap(FV_FLOAT32, 2, shape, NULL, gbuf, gpu, NULL, NULL, &g));
    double w[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    uint8_t zero_fp[9] = { 0 };
    fv_mode m;

    CHECK_OK(fv_mode_from_name("grid-mirror", &m));
    CHECK(m == FV_MODE_REFLECT);
    CHECK_OK(fv_mode_from_name("grid-constant", &m));
    CHECK(m == FV_MODE_CONSTANT);
    CHECK_OK(fv_mode_from_name("grid-wrap", &m));
    CHECK(m == FV_MODE_WRAP);
    CHECK_OK(fv_mode_from_name("mirror", &m));
    CHECK(m == FV_MODE_MIRROR && !strcmp(fv_mode_name(m), "mirror"));
    CHECK(!strcmp(fv_mode_name(FV_MODE_NEAREST), "nearest") && !strcmp(fv_mode_name((fv_mode)7), "invalid"));
    CHECK_ERR(fv_mode_from_name("edge", &m), FV_EINVAL, "boundary mode not supported");
    CHECK_ERR(fv_mode_from_name(NULL, &m), FV_EINVAL, "NULL");

    CHECK_ERR(fv_correlate1d(NULL, NULL, b, w, 3, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "NULL array");
    CHECK_ERR(fv_correlate1d(NULL, a, NULL, w, 3, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "NULL array");
    CHECK_ERR(fv_correlate1d(NULL, a, c, w, 3, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "shapes differ");
    CHECK_ERR(fv_correlate1d(NULL, a, g, w, 3, 0, FV_MODE_REFLECT, 0, 0), FV_EDEVICE, "different devices");
    CHECK_ERR(fv_correlate1d(NULL, a, ro, w, 3, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "read-only");
    CHECK_ERR(fv_correlate1d(NULL, a, b, NULL, 3, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "weights is NULL");
    CHECK_ERR(fv_correlate1d(NULL, a, b, w, 0, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "must be >= 1");
    CHECK_ERR(fv_correlate1d(NULL, a, b, w, 3, 2, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "axis 2 is out of range");
    CHECK_ERR(fv_correlate1d(NULL, a, b, w, 3, -1, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "axis -1 is out of range");
    CHECK_ERR(fv_correlate1d(NULL, a, b, w, 3, 0, (fv_mode)9, 0, 0), FV_EINVAL, "invalid mode");
    CHECK_ERR(fv_correlate1d(NULL, a, b, w, 3, 0, FV_MODE_REFLECT, 0, 2), FV_EINVAL, "invalid origin");
    CHECK_ERR(fv_correlate1d(NULL, a, b, w, 4, 0, FV_MODE_REFLECT, 0, -3), FV_EINVAL, "invalid origin");
    CHECK_OK(fv_correlate1d(NULL, a, b, w, 4, 0, FV_MODE_REFLECT, 0, -2));
    CHECK_OK(fv_correlate1d(NULL, a, b, w, 4, 0, FV_MODE_REFLECT, 0, 1));
    CHECK_ERR(fv_correlate1d(NULL, a, b, w, 4, 0, FV_MODE_REFLECT, 0, 2), FV_EINVAL, "invalid origin");
    /* convolve1d checks the mirrored origin: size 4 takes origins -2..1 */
    CHECK_OK(fv_convolve1d(NULL, a, b, w, 4, 0, FV_MODE_REFLECT, 0, -2));
    CHECK_OK(fv_convolve1d(NULL, a, b, w, 4, 0, FV_MODE_REFLECT, 0, 1));
    CHECK_ERR(fv_convolve1d(NULL, a, b, w, 4, 0, FV_MODE_REFLECT, 0, 2), FV_EINVAL, "invalid origin");
    CHECK_ERR(fv_convolve1d(NULL, a, b, w, 4, 0, FV_MODE_REFLECT, 0, INT64_MIN), FV_EINVAL, "invalid origin");
    CHECK_ERR(fv_convolve1d(NULL, a, b, NULL, 4, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "weights is NULL");
    CHECK_ERR(fv_uniform_filter1d(NULL, a, b, 0, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "must be >= 1");
    CHECK_ERR(fv_uniform_filter1d(NULL, a, b, 3, 0, FV_MODE_REFLECT, 0, -2), FV_EINVAL, "invalid origin");
    CHECK_ERR(fv_minimum_filter1d(NULL, a, b, -4, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "must be >= 1");
    CHECK_ERR(fv_maximum_filter1d(NULL, a, b, 3, 5, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "out of range");
    CHECK_ERR(fv_maximum_filter1d(NULL, a, b, 3, 0, (fv_mode)-1, 0, 0), FV_EINVAL, "invalid mode");
    /* oversize requests fail cleanly */
    CHECK_ERR(fv_uniform_filter1d(NULL, a, b, INT64_MAX / 2, 0, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "too large");
    CHECK_ERR(fv_minimum_filter1d(NULL, a, b, INT64_MAX, 1, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "too large");
    CHECK_ERR(fv_correlate1d(NULL, a, b, w, ((int64_t)1 << 30) + 1, 1, FV_MODE_REFLECT, 0, 0), FV_EINVAL, "too large");
    int64_t big_sz[2] = { 3, ((int64_t)1 << 31) };
    CHECK_ERR(fv_uniform_filter(NULL, a, b, big_sz, NULL, 0, NULL), FV_EINVAL, "too large");
    CHECK_ERR(fv_maximum_filter(NULL, a, b, NULL, NULL, big_sz, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "too large");
    int64_t big_fp[2] = { 1 << 15, 1 << 14 }; /* 2^29 elements */
    CHECK_ERR(fv_rank_filter(NULL, a, b, NULL, big_fp, 0, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "too large");
    CHECK_ERR(fv_correlate(NULL, a, b, w, big_fp, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "too large");

    /* n-d */
    CHECK_ERR(fv_correlate(NULL, a, b, NULL, f, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "weights is NULL");
    CHECK_ERR(fv_correlate(NULL, a, b, w, NULL, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "shape is NULL");
    CHECK_ERR(fv_correlate(NULL, a, b, w, bad_f, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "must be >= 1");
    CHECK_ERR(fv_correlate(NULL, a, c, w, f, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "shapes differ");
    CHECK_ERR(fv_correlate(NULL, NULL, c, w, f, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "NULL array");
    CHECK_ERR(fv_correlate(NULL, a, ro, w, f, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "read-only");
    CHECK_ERR(fv_correlate(NULL, a, b, w, f, (fv_mode)5, 0, NULL), FV_EINVAL, "invalid mode");
    int64_t o_bad[2] = { 0, 2 }, o_neg[2] = { -2, 0 };
    CHECK_ERR(fv_correlate(NULL, a, b, w, f, FV_MODE_REFLECT, 0, o_bad), FV_EINVAL, "invalid origin 2 on axis 1");
    CHECK_ERR(fv_correlate(NULL, a, b, w, f, FV_MODE_REFLECT, 0, o_neg), FV_EINVAL, "invalid origin -2 on axis 0");
    /* convolve checks -origin - 1 for even sizes: sizes 2 and 4 take -1..0 and -2..1 */
    int64_t f24[2] = { 2, 4 }, o_c[2] = { -1, -2 }, o_c2[2] = { 0, 1 }, o_c3[2] = { 1, 0 };
    CHECK_OK(fv_convolve(NULL, a, b, w, f24, FV_MODE_REFLECT, 0, o_c));
    CHECK_OK(fv_convolve(NULL, a, b, w, f24, FV_MODE_REFLECT, 0, o_c2));
    CHECK_ERR(fv_convolve(NULL, a, b, w, f24, FV_MODE_REFLECT, 0, o_c3), FV_EINVAL, "invalid origin");
    int64_t huge[2] = { INT64_MAX / 4, 8 };
    CHECK_ERR(fv_correlate(NULL, a, b, w, huge, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "too large");
    CHECK_ERR(fv_rank_filter(NULL, a, b, NULL, huge, 0, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "too large");
    CHECK_ERR(fv_minimum_filter(NULL, a, b, NULL, NULL, huge, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "too large");
    CHECK_ERR(fv_minimum_filter(NULL, a, b, zero_fp, NULL, f, FV_MODE_REFLECT, 0, NULL), FV_EINVAL,
              "All-zero footprint");
    CHECK_ERR(fv_maximum_filter(NULL, a, b, zero_fp, w, f, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "All-zero");
    CHECK_ERR(fv_maximum_filter(NULL, a, b, NULL, w, bad_f, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "must be >= 1");
    CHECK_ERR(fv_maximum_filter(NULL, a, b, NULL, w, f, FV_MODE_REFLECT, 0, o_bad), FV_EINVAL, "invalid origin");
    CHECK_ERR(fv_minimum_filter(NULL, a, b, NULL, NULL, f, FV_MODE_REFLECT, 0, o_bad), FV_EINVAL, "invalid origin");
    CHECK_ERR(fv_minimum_filter(NULL, a, g, NULL, NULL, f, FV_MODE_REFLECT, 0, NULL), FV_EDEVICE, "devices");
    CHECK_ERR(fv_rank_filter(NULL, a, b, NULL, f, 9, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "rank 9 is not within");
    CHECK_ERR(fv_rank_filter(NULL, a, b, NULL, f, -1, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "not within");
    CHECK_ERR(fv_rank_filter(NULL, a, b, zero_fp, f, 0, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "not within");
    CHECK_ERR(fv_rank_filter(NULL, a, b, NULL, f, 0, FV_MODE_REFLECT, 0, o_bad), FV_EINVAL, "invalid origin");
    CHECK_ERR(fv_rank_filter(NULL, a, b, NULL, NULL, 0, FV_MODE_REFLECT, 0, NULL), FV_EINVAL, "shape is NULL");
    (void)org;

    /* separable compositions */
    double sig[2] = { 1.0, 1.0 }, nsig[2] = { -1.0, NAN };
    int ord_bad[2] = { 0, -1 };
    int64_t rad_big[2] = { (int64_t)1 << 40, 1 }, sz[2] = { 3, 3 }, sz_skip[2] = { 0, -5 };
    CHECK_ERR(fv_gaussian_filter(NULL, a, b, NULL, NULL, NULL, 0, 4.0, NULL), FV_EINVAL, "sigma is NULL");
    CHECK_ERR(fv_gaussian_filter(NULL, a, b, sig, ord_bad, NULL, 0, 4.0, NULL), FV_EINVAL, "must be non-negative");
    CHECK_ERR(fv_gaussian_filter(NULL, a, b, sig, NULL, NULL, 0, NAN, NULL), FV_EINVAL, "nonnegative integer");
    CHECK_ERR(fv_gaussian_filter(NULL, a, b, sig, NULL, NULL, 0, -4.0, NULL), FV_EINVAL, "nonnegative integer");
    CHECK_ERR(fv_gaussian_filter(NULL, a, b, sig, NULL, NULL, 0, 1e300, NULL), FV_EINVAL, "nonnegative integer");
    CHECK_ERR(fv_gaussian_filter(NULL, a, b, sig, NULL, NULL, 0, 4.0, rad_big), FV_EINVAL, "too large");
    fv_mode bad_modes[2] = { FV_MODE_REFLECT, (fv_mode)12 };
    CHECK_ERR(fv_gaussian_filter(NULL, a, b, sig, NULL, bad_modes, 0, 4.0, NULL), FV_EINVAL, "invalid mode");
    CHECK_ERR(fv_gaussian_filter(NULL, a, c, sig, NULL, NULL, 0, 4.0, NULL), FV_EINVAL, "shapes differ");
    CHECK_OK(fv_gaussian_filter(NULL, a, b, nsig, ord_bad, bad_modes, 0, 4.0, NULL)); /* skipped axes: copy */
    CHECK(same_array(a, b));
    CHECK_ERR(fv_uniform_filter(NULL, a, b, NULL, NULL, 0, NULL), FV_EINVAL, "size is NULL");
    CHECK_ERR(fv_uniform_filter(NULL, a, b, sz, bad_modes, 0, NULL), FV_EINVAL, "invalid mode");
    int64_t o_u[2] = { 0, 2 };
    CHECK_ERR(fv_uniform_filter(NULL, a, b, sz, NULL, 0, o_u), FV_EINVAL, "invalid origin");
    CHECK_OK(fv_uniform_filter(NULL, a, b, sz_skip, bad_modes, 0, o_u)); /* scipy skips sizes <= 1 */
    CHECK(same_array(a, b));
    double k[5];
    CHECK_ERR(fv_gaussian_kernel1d(1.0, 0, 2, NULL), FV_EINVAL, "w is NULL");
    CHECK_ERR(fv_gaussian_kernel1d(1.0, -1, 2, k), FV_EINVAL, "order must be non-negative");
    CHECK_ERR(fv_gaussian_kernel1d(1.0, 0, -1, k), FV_EINVAL, "radius");
    CHECK_ERR(fv_gaussian_kernel1d(1.0, 0, INT64_MAX, k), FV_EINVAL, "radius");

    fv_array_unref(a);
    fv_array_unref(b);
    fv_array_unref(c);
    fv_array_unref(ro);
    fv_array_unref(g);
}

int
main(int argc, char **argv)
{
    tv_force_args(argc, argv);
    test_1d_random(500);
    test_nd_random(400);
    test_long_lines();
    test_compositions();
    test_bool_passes();
    test_separable();
    test_golden();
    test_aliasing();
    test_special();
    test_errors();
    return fv_t_summary("filters");
}
