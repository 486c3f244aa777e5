/* Filters (scipy.ndimage semantics): validate, derive the kernel parameters and
 * the separable compositions, dispatch FV__OP_FILTER1D / FV__OP_FILTERND.
 * Backend-neutral: host pointers (weights, footprints) travel in the params.
 * The n-D filters are in filters-nd.c. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/filters/filter1d.h"
#include "ops/filters/sep2.h"
#include "ops/filters/filternd.h"
#include "ops/filters/ndimage-math.h"
#include "ops/filters/filters-ops.h"
#include "core/plan.h"
#include "ops/filters/filters-internal.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* the Gaussian kernel's arithmetic as numpy's */
#endif

/* ---- modes ------------------------------------------------------------------- */

static const char *const fv__mode_names[FV_MODE_COUNT] = { "reflect", "constant", "nearest", "mirror", "wrap" };

fv_status
fv_mode_from_name(const char *name, fv_mode *out)
{
    static const struct {
        const char *name;
        fv_mode mode;
    } table[] = {
        { "reflect", FV_MODE_REFLECT },   { "grid-mirror", FV_MODE_REFLECT },
        { "constant", FV_MODE_CONSTANT }, { "grid-constant", FV_MODE_CONSTANT },
        { "nearest", FV_MODE_NEAREST },   { "mirror", FV_MODE_MIRROR },
        { "wrap", FV_MODE_WRAP },         { "grid-wrap", FV_MODE_WRAP },
    };
    if (!name || !out)
        return fv_error_set(FV_EINVAL, "mode", "NULL argument");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(name, table[i].name)) {
            *out = table[i].mode;
            return FV_OK;
        }
    return fv_error_set(FV_EINVAL, "mode",
                        "boundary mode not supported: '%s' (reflect, grid-mirror, constant, "
                        "grid-constant, nearest, mirror, wrap, grid-wrap)",
                        name);
}

const char *
fv_mode_name(fv_mode mode)
{
    return (unsigned)mode < FV_MODE_COUNT ? fv__mode_names[mode] : "invalid";
}

/* ---- shared checks ----------------------------------------------------------------- */

fv_status
fv__check_arrays(const char *fn, const fv_array *in, const fv_array *out)
{
    if (!in || !out)
        return fv_error_set(FV_EINVAL, fn, "NULL array");
    if (!fv_dtype_is_valid(in->dtype) || !fv_dtype_is_valid(out->dtype))
        return fv_error_set(FV_EDTYPE, fn, "invalid dtype");
    int same = in->ndim == out->ndim;
    for (int d = 0; same && d < in->ndim; d++)
        same = in->shape[d] == out->shape[d];
    if (!same)
        return fv_error_set(FV_EINVAL, fn, "input and output shapes differ");
    if (in->device.type != out->device.type || (in->device.type == FV_DEVICE_CUDA && in->device.id != out->device.id))
        return fv_error_set(FV_EDEVICE, fn, "input and output are on different devices");
    if (out->readonly)
        return fv_error_set(FV_EINVAL, fn, "output array is read-only");
    return FV_OK;
}

fv_status
fv__check_mode(const char *fn, fv_mode mode)
{
    if ((unsigned)mode >= FV_MODE_COUNT)
        return fv_error_set(FV_EINVAL, fn, "invalid mode %d", (int)mode);
    return FV_OK;
}

static fv_status
fv__check_axis(const char *fn, int axis, int ndim)
{
    if (axis < 0 || axis >= ndim)
        return fv_error_set(FV_EINVAL, fn, "axis %d is out of range for a %d-d array", axis, ndim);
    return FV_OK;
}

/* scipy's _invalid_origin: -(n // 2) <= origin <= (n - 1) // 2 */
fv_status
fv__check_origin(const char *fn, int64_t origin, int64_t n, int axis)
{
    if (origin < -(n / 2) || origin > (n - 1) / 2)
        return fv_error_set(FV_EINVAL, fn,
                            "invalid origin %lld on axis %d: it must satisfy "
                            "-(%lld // 2) <= origin <= (%lld - 1) // 2",
                            (long long)origin, axis, (long long)n, (long long)n);
    return FV_OK;
}

/* in itself, or a copy of it when it shares memory with out (+1 reference). */
fv_status
fv__ndi_source(fv_context *ctx, const fv_array *in, const fv_array *out, fv_array **src)
{
    fv_status st;
    if (!fv__arrays_overlap(in, out)) {
        *src = fv_array_ref((fv_array *)in);
        return FV_OK;
    }
    if ((st = fv_array_new(ctx, in->dtype, in->ndim, in->shape, in->device, src)))
        return st;
    if ((st = fv_copy(ctx, in, *src))) {
        fv_array_unref(*src);
        *src = NULL;
    }
    return st;
}

/* out = in, converted as numpy's `output[...] = input` does: fv_astype, except
 * floating data into integer outputs, which takes scipy's store (an identity
 * 1-D filter pass; numpy's cast agrees with it but for uint32 outside its range). */
fv_status
fv__ndi_assign(fv_context *ctx, const fv_array *in, fv_array *out)
{
    fv_status st;
    fv_array *vin = NULL, *vout = NULL, *src = NULL;
    if (fv_array_size(out) == 0)
        return FV_OK;
    if ((st = fv__array_as_1d(in, &vin)) || (st = fv__array_as_1d(out, &vout)) ||
        (st = fv__ndi_source(ctx, vin, vout, &src)))
        goto done;
    if (fv_dtype_is_float(in->dtype) && fv_dtype_is_integer(out->dtype)) {
        fv__filter1d_params p = { .kind = FV__F1D_MINIMUM, .axis = 0, .mode = FV_MODE_NEAREST, .size = 1 };
        st = fv__run_FILTER1D(ctx, src, NULL, vout, &p);
    } else {
        st = fv_astype(ctx, src, vout);
    }
done:
    fv_array_unref(vin);
    fv_array_unref(vout);
    fv_array_unref(src);
    return st;
}

/* ---- 1-D passes ------------------------------------------------------------------ */

/* How two passes run ("separable"): "fused", one kernel for both where the
 * backend has one (CUDA: FV__OP_SEP2, which may still decline); "passes", one
 * filter1d after the other. */
static int
fv__sep_fused_ok(const void *args, int device)
{
    (void)args;
    return device >= 0;
}

FV__VARIANTS(fv__sep_variants, "separable", { "fused", fv__sep_fused_ok, NULL }, { "passes", NULL, NULL })

/* Run passes[0..k) one after the other, in -> out: every pass reads what the
 * previous one wrote in out's dtype, as scipy's `input = output` (through one
 * temporary and out). For bool outputs the intermediate results keep scipy's
 * raw bytes (2, 255, ...) in uint8 temporaries, since the next pass reads them
 * as numbers. k == 0 copies. Two passes on the CUDA backend go to FV__OP_SEP2
 * first (one fused kernel, the same bits), which may decline. */
fv_status
fv__run_passes(fv_context *ctx, const fv_array *in, fv_array *out, const fv__filter1d_params *passes, int k)
{
    fv_status st;
    fv_array *src = NULL, *tmp[2] = { NULL, NULL };
    if (fv_array_size(out) == 0)
        return FV_OK;
    if (k == 0)
        return fv__ndi_assign(ctx, in, out);
    if ((st = fv__ndi_source(ctx, in, out, &src)))
        return st;
    const int raw = out->dtype == FV_BOOL;
    /* two passes: a backend may run them as one fused kernel */
    if (k == 2 && fv__array_backend(src) == FV__BACKEND_CUDA &&
        fv__plan_index(&fv__sep_variants, NULL, src->device.id) == 0) {
        fv__sep2_params sp = { .pass = { passes[0], passes[1] }, .mid = raw ? FV_UINT8 : out->dtype };
        st = fv__run_SEP2(ctx, src, NULL, out, &sp);
        if (st != FV__SEP2_DECLINED)
            goto done;
    }
    const int ntmp = k < 2 ? 0 : raw && k > 2 ? 2 : 1;
    for (int i = 0; i < ntmp; i++)
        if ((st = fv_array_new(ctx, raw ? FV_UINT8 : out->dtype, out->ndim, out->shape, out->device, &tmp[i])))
            goto done;
    const fv_array *cur = src;
    for (int i = 0; i < k; i++) {
        fv_array *dst;
        if (i == k - 1)
            dst = out;
        else if (raw)
            dst = tmp[i % 2];
        else
            dst = ((k - 1 - i) % 2 == 0) ? out : tmp[0];
        if ((st = fv__run_FILTER1D(ctx, cur, NULL, dst, &passes[i])))
            goto done;
        cur = dst;
    }
done:
    fv_array_unref(src);
    fv_array_unref(tmp[0]);
    fv_array_unref(tmp[1]);
    return st;
}

static fv_status
fv__check_1d(const char *fn, const fv_array *in, const fv_array *out, int64_t size, int axis, fv_mode mode,
             int64_t origin)
{
    fv_status st;
    if ((st = fv__check_arrays(fn, in, out)) || (st = fv__check_axis(fn, axis, in->ndim)) ||
        (st = fv__check_mode(fn, mode)))
        return st;
    if (size < 1)
        return fv_error_set(FV_EINVAL, fn, "filter size %lld must be >= 1", (long long)size);
    if (size > FV__MAX_TAPS)
        return fv_error_set(FV_EINVAL, fn, "filter size %lld is too large (at most %lld)", (long long)size,
                            (long long)FV__MAX_TAPS);
    return fv__check_origin(fn, origin, size, axis);
}

fv_status
fv_correlate1d(fv_context *ctx, const fv_array *in, fv_array *out, const double *weights, int64_t n, int axis,
               fv_mode mode, double cval, int64_t origin)
{
    fv_status st;
    if (!weights)
        return fv_error_set(FV_EINVAL, "correlate1d", "weights is NULL");
    if ((st = fv__check_1d("correlate1d", in, out, n, axis, mode, origin)))
        return st;
    fv__filter1d_params p = { .kind = FV__F1D_CORRELATE,
                              .axis = axis,
                              .mode = mode,
                              .cval = cval,
                              .origin = origin,
                              .size = n,
                              .weights = weights,
                              .symmetry = fv__ni_symmetry(weights, n) };
    return fv__run_passes(ctx, in, out, &p, 1);
}

fv_status
fv_correlate1d_array(fv_context *ctx, const fv_array *in, fv_array *out, const fv_array *weights, int axis,
                     fv_mode mode, double cval, int64_t origin)
{
    static const char *fn = "correlate1d";
    fv_status st;
    fv_array *w = NULL;
    if (!weights)
        return fv_error_set(FV_EINVAL, fn, "weights is NULL");
    if (weights->dtype != FV_FLOAT64 || weights->ndim != 1)
        return fv_error_set(FV_EINVAL, fn, "weights must be a 1-D float64 array");
    if (weights->device.type == FV_DEVICE_CPU) {
        if (weights->shape[0] > 1 && weights->strides[0] != (int64_t)sizeof(double))
            return fv_error_set(FV_EINVAL, fn, "host weights must be contiguous");
        return fv_correlate1d(ctx, in, out, (const double *)weights->data, weights->shape[0], axis, mode, cval, origin);
    }
    if (weights->strides[0] % (int64_t)sizeof(double))
        return fv_error_set(FV_EINVAL, fn, "weights strides must be a multiple of 8 bytes");
    const int64_t n = weights->shape[0];
    if ((st = fv__check_1d(fn, in, out, n, axis, mode, origin)))
        return st;
    if (weights->device.type != in->device.type || weights->device.id != in->device.id)
        return fv_error_set(FV_EDEVICE, fn, "weights and input are on different devices");
    /* the kernels read the weights while writing out: a copy where they share memory */
    if ((st = fv__ndi_source(ctx, weights, out, &w)))
        return st;
    fv__filter1d_params p = { .kind = FV__F1D_CORRELATE,
                              .axis = axis,
                              .mode = mode,
                              .cval = cval,
                              .origin = origin,
                              .size = n,
                              .dweights = (const double *)w->data,
                              .dweights_stride = w->strides[0] / (int64_t)sizeof(double) };
    st = fv__run_passes(ctx, in, out, &p, 1);
    fv_array_unref(w);
    return st;
}

fv_status
fv_convolve1d(fv_context *ctx, const fv_array *in, fv_array *out, const double *weights, int64_t n, int axis,
              fv_mode mode, double cval, int64_t origin)
{
    if (!weights)
        return fv_error_set(FV_EINVAL, "convolve1d", "weights is NULL");
    if (n < 1)
        return fv_error_set(FV_EINVAL, "convolve1d", "filter size %lld must be >= 1", (long long)n);
    if (origin == INT64_MIN || (uint64_t)n > SIZE_MAX / sizeof(double))
        return fv_error_set(FV_EINVAL, "convolve1d", "invalid origin or size");
    /* scipy: reversed weights, origin = -origin, one less for even lengths */
    int64_t o = -origin - ((n & 1) ? 0 : 1);
    fv_status st = fv__check_1d("convolve1d", in, out, n, axis, mode, o);
    if (st)
        return st;
    double *rw = malloc((size_t)n * sizeof(double));
    if (!rw)
        return fv_error_set(FV_ENOMEM, "convolve1d", "out of host memory");
    for (int64_t i = 0; i < n; i++)
        rw[i] = weights[n - 1 - i];
    fv__filter1d_params p = { .kind = FV__F1D_CORRELATE,
                              .axis = axis,
                              .mode = mode,
                              .cval = cval,
                              .origin = o,
                              .size = n,
                              .weights = rw,
                              .symmetry = fv__ni_symmetry(rw, n) };
    st = fv__run_passes(ctx, in, out, &p, 1);
    free(rw);
    return st;
}

static fv_status
fv__simple1d(const char *fn, int kind, fv_context *ctx, const fv_array *in, fv_array *out, int64_t size, int axis,
             fv_mode mode, double cval, int64_t origin)
{
    fv_status st = fv__check_1d(fn, in, out, size, axis, mode, origin);
    if (st)
        return st;
    fv__filter1d_params p = { .kind = kind, .axis = axis, .mode = mode, .cval = cval, .origin = origin, .size = size };
    return fv__run_passes(ctx, in, out, &p, 1);
}

fv_status
fv_uniform_filter1d(fv_context *ctx, const fv_array *in, fv_array *out, int64_t size, int axis, fv_mode mode,
                    double cval, int64_t origin)
{
    return fv__simple1d("uniform_filter1d", FV__F1D_UNIFORM, ctx, in, out, size, axis, mode, cval, origin);
}

fv_status
fv_minimum_filter1d(fv_context *ctx, const fv_array *in, fv_array *out, int64_t size, int axis, fv_mode mode,
                    double cval, int64_t origin)
{
    return fv__simple1d("minimum_filter1d", FV__F1D_MINIMUM, ctx, in, out, size, axis, mode, cval, origin);
}

fv_status
fv_maximum_filter1d(fv_context *ctx, const fv_array *in, fv_array *out, int64_t size, int axis, fv_mode mode,
                    double cval, int64_t origin)
{
    return fv__simple1d("maximum_filter1d", FV__F1D_MAXIMUM, ctx, in, out, size, axis, mode, cval, origin);
}

/* ---- separable compositions ------------------------------------------------------------ */

fv_status
fv_separable_filter(fv_context *ctx, const fv_array *in, fv_array *out, const fv_filter_pass *passes, int npasses)
{
    const char *fn = "separable_filter";
    static const int kinds[] = { FV__F1D_CORRELATE, FV__F1D_UNIFORM, FV__F1D_MINIMUM, FV__F1D_MAXIMUM };
    fv__filter1d_params p[FV_MAX_PASSES];
    fv_status st;
    if ((st = fv__check_arrays(fn, in, out)))
        return st;
    if (npasses < 0 || npasses > FV_MAX_PASSES)
        return fv_error_set(FV_EINVAL, fn, "%d passes (0 to %d allowed)", npasses, FV_MAX_PASSES);
    if (npasses > 0 && !passes)
        return fv_error_set(FV_EINVAL, fn, "passes is NULL");
    for (int i = 0; i < npasses; i++) {
        const fv_filter_pass *q = &passes[i];
        if ((unsigned)q->kind > FV_PASS_MAXIMUM)
            return fv_error_set(FV_EINVAL, fn, "pass %d: unknown kind %d", i, (int)q->kind);
        if (q->kind == FV_PASS_CORRELATE && !q->weights)
            return fv_error_set(FV_EINVAL, fn, "pass %d: weights is NULL", i);
        if ((st = fv__check_1d(fn, in, out, q->size, q->axis, q->mode, q->origin)))
            return st;
        p[i] = (fv__filter1d_params){ .kind = kinds[q->kind],
                                      .axis = q->axis,
                                      .mode = q->mode,
                                      .cval = q->cval,
                                      .origin = q->origin,
                                      .size = q->size,
                                      .weights = q->kind == FV_PASS_CORRELATE ? q->weights : NULL,
                                      .symmetry =
                                          q->kind == FV_PASS_CORRELATE ? fv__ni_symmetry(q->weights, q->size) : 0 };
    }
    return fv__run_passes(ctx, in, out, p, npasses);
}

/* scipy's _gaussian_kernel1d, as a correlation kernel (reversed). The sum is
 * numpy's pairwise summation; the derivative polynomial the same recurrence. */
static double
fv__pairwise_sum(const double *a, int64_t n)
{
    if (n < 8) {
        double r = 0.0;
        for (int64_t i = 0; i < n; i++)
            r += a[i];
        return r;
    }
    if (n <= 128) {
        double r[8];
        int64_t i;
        for (int k = 0; k < 8; k++)
            r[k] = a[k];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++)
                r[k] += a[i + k];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return fv__pairwise_sum(a, n2) + fv__pairwise_sum(a + n2, n - n2);
}

/* A row-times-vector product as numpy's float64 dot computes it on x86-64
 * (OpenBLAS gemv: fused multiply-adds in 4 lanes over the first multiple of 4
 * columns, lanes summed pairwise, then the remaining columns fused in order).
 * Matches numpy's derivative kernels of orders up to 4 bit for bit when the
 * exponentials agree. */
static double
fv__dot(const double *a, const double *b, int n)
{
    const int m = n - n % 4;
    double lane[4] = { 0.0, 0.0, 0.0, 0.0 }, acc = 0.0;
    for (int j = 0; j < m; j += 4)
        for (int l = 0; l < 4; l++)
            lane[l] = fma(a[j + l], b[j + l], lane[l]);
    if (m)
        acc = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    for (int j = m; j < n; j++)
        acc = fma(a[j], b[j], acc);
    return acc;
}

#define FV__MAX_RADIUS ((int64_t)1 << 28)

fv_status
fv_gaussian_kernel1d(double sigma, int order, int64_t radius, double *w)
{
    if (!w)
        return fv_error_set(FV_EINVAL, "gaussian_kernel1d", "w is NULL");
    if (order < 0)
        return fv_error_set(FV_EINVAL, "gaussian_kernel1d", "order must be non-negative (got %d)", order);
    if (radius < 0 || radius > FV__MAX_RADIUS)
        return fv_error_set(FV_EINVAL, "gaussian_kernel1d", "radius %lld must be in [0, %lld]", (long long)radius,
                            (long long)FV__MAX_RADIUS);
    const int64_t n = 2 * radius + 1;
    double *phi = malloc((size_t)n * sizeof(double));
    double *q = malloc((size_t)(order + 1) * sizeof(double));
    double *qn = malloc((size_t)(order + 1) * sizeof(double));
    if (!phi || !q || !qn) {
        free(phi);
        free(q);
        free(qn);
        return fv_error_set(FV_ENOMEM, "gaussian_kernel1d", "out of host memory");
    }
    const double sigma2 = sigma * sigma;
    const double c = -0.5 / sigma2;
    for (int64_t i = 0; i < n; i++) {
        int64_t x = i - radius;
        phi[i] = exp(c * (double)(x * x));
    }
    const double sum = fv__pairwise_sum(phi, n);
    for (int64_t i = 0; i < n; i++)
        phi[i] = phi[i] / sum;
    if (order > 0) {
        /* q(x) with f = q * phi: `order` times q <- (D + P) q (D: derivative,
         * P: times p'(x) = -x / sigma2), then q evaluated at every x; both
         * products as numpy's matrix-vector dot computes them (fv__dot) */
        const int m = order + 1;
        double *row = malloc((size_t)m * sizeof(double)), *xp = malloc((size_t)m * sizeof(double));
        if (!row || !xp) {
            free(row);
            free(xp);
            free(phi);
            free(q);
            free(qn);
            return fv_error_set(FV_ENOMEM, "gaussian_kernel1d", "out of host memory");
        }
        const double ps = 1.0 / -sigma2;
        for (int k = 0; k < m; k++)
            q[k] = k == 0 ? 1.0 : 0.0;
        for (int it = 0; it < order; it++) {
            for (int i = 0; i < m; i++) {
                for (int k = 0; k < m; k++)
                    row[k] = k == i + 1 ? (double)(i + 1) : k == i - 1 ? ps : 0.0;
                qn[i] = fv__dot(row, q, m);
            }
            memcpy(q, qn, (size_t)m * sizeof(double));
        }
        for (int64_t i = 0; i < n; i++) {
            double x = (double)(i - radius);
            xp[0] = 1.0;
            for (int k = 1; k < m; k++)
                xp[k] = xp[k - 1] * x;
            phi[i] = fv__dot(xp, q, m) * phi[i];
        }
        free(row);
        free(xp);
    }
    for (int64_t i = 0; i < n; i++) /* correlation order: reversed */
        w[i] = phi[n - 1 - i];
    free(phi);
    free(q);
    free(qn);
    return FV_OK;
}

fv_status
fv_gaussian_filter(fv_context *ctx, const fv_array *in, fv_array *out, const double *sigma, const int *order,
                   const fv_mode *modes, double cval, double truncate, const int64_t *radius)
{
    const char *fn = "gaussian_filter";
    fv_status st;
    fv__filter1d_params passes[FV_MAX_NDIM];
    double *kern[FV_MAX_NDIM] = { 0 };
    int k = 0;
    if ((st = fv__check_arrays(fn, in, out)))
        return st;
    if (in->ndim > 0 && !sigma)
        return fv_error_set(FV_EINVAL, fn, "sigma is NULL");
    for (int ax = 0; ax < in->ndim; ax++) {
        if (!(sigma[ax] > 1e-15)) /* scipy skips these axes (NaN included) */
            continue;
        int ord = order ? order[ax] : 0;
        fv_mode mode = modes ? modes[ax] : FV_MODE_REFLECT;
        if ((st = fv__check_mode(fn, mode)))
            goto done;
        if (ord < 0) {
            st = fv_error_set(FV_EINVAL, fn, "order[%d] = %d must be non-negative", ax, ord);
            goto done;
        }
        int64_t lw;
        if (radius && radius[ax] >= 0) {
            lw = radius[ax];
        } else {
            double r = truncate * sigma[ax] + 0.5;
            if (!(r > -1.0) || !(r < (double)FV__MAX_RADIUS + 1.0)) {
                st = fv_error_set(FV_EINVAL, fn,
                                  "radius int(truncate * sigma + 0.5) = %g on axis %d must be a "
                                  "nonnegative integer up to %lld",
                                  r, ax, (long long)FV__MAX_RADIUS);
                goto done;
            }
            lw = (int64_t)r;
        }
        if (lw > FV__MAX_RADIUS) {
            st = fv_error_set(FV_EINVAL, fn, "radius %lld on axis %d is too large", (long long)lw, ax);
            goto done;
        }
        kern[k] = malloc((size_t)(2 * lw + 1) * sizeof(double));
        if (!kern[k]) {
            st = fv_error_set(FV_ENOMEM, fn, "out of host memory");
            goto done;
        }
        if ((st = fv_gaussian_kernel1d(sigma[ax], ord, lw, kern[k]))) {
            k++;
            goto done;
        }
        passes[k] = (fv__filter1d_params){ .kind = FV__F1D_CORRELATE,
                                           .axis = ax,
                                           .mode = mode,
                                           .cval = cval,
                                           .origin = 0,
                                           .size = 2 * lw + 1,
                                           .weights = kern[k],
                                           .symmetry = fv__ni_symmetry(kern[k], 2 * lw + 1) };
        k++;
    }
    st = fv__run_passes(ctx, in, out, passes, k);
done:
    for (int i = 0; i < k; i++)
        free(kern[i]);
    return st;
}

fv_status
fv_uniform_filter(fv_context *ctx, const fv_array *in, fv_array *out, const int64_t *size, const fv_mode *modes,
                  double cval, const int64_t *origins)
{
    const char *fn = "uniform_filter";
    fv_status st;
    fv__filter1d_params passes[FV_MAX_NDIM];
    int k = 0;
    if ((st = fv__check_arrays(fn, in, out)))
        return st;
    if (in->ndim > 0 && !size)
        return fv_error_set(FV_EINVAL, fn, "size is NULL");
    for (int ax = 0; ax < in->ndim; ax++) {
        if (size[ax] <= 1) /* scipy skips these axes */
            continue;
        fv_mode mode = modes ? modes[ax] : FV_MODE_REFLECT;
        int64_t o = origins ? origins[ax] : 0;
        if (size[ax] > FV__MAX_TAPS)
            return fv_error_set(FV_EINVAL, fn, "filter size %lld is too large (at most %lld)", (long long)size[ax],
                                (long long)FV__MAX_TAPS);
        if ((st = fv__check_mode(fn, mode)) || (st = fv__check_origin(fn, o, size[ax], ax)))
            return st;
        passes[k++] = (fv__filter1d_params){
            .kind = FV__F1D_UNIFORM, .axis = ax, .mode = mode, .cval = cval, .origin = o, .size = size[ax]
        };
    }
    return fv__run_passes(ctx, in, out, passes, k);
}
