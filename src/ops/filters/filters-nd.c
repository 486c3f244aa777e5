/* n-D filters (scipy.ndimage semantics): correlate, convolve, minimum / maximum
 * and rank filters over a footprint; validated here, dispatched as FV__OP_FILTERND
 * (minimum / maximum over a full box footprint as separable 1-D passes). */
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

/* ---- n-D filters ---------------------------------------------------------------------- */

/* Checks shared by the n-D filters; *fsize receives the element count of the
 * window (checked for overflow). */
static fv_status
fv__check_nd(const char *fn, const fv_array *in, const fv_array *out, const int64_t *fshape, fv_mode mode,
             const int64_t *origins, int64_t *fsize)
{
    fv_status st;
    if ((st = fv__check_arrays(fn, in, out)) || (st = fv__check_mode(fn, mode)))
        return st;
    if (in->ndim > 0 && !fshape)
        return fv_error_set(FV_EINVAL, fn, "footprint shape is NULL");
    int64_t n = 1;
    for (int d = 0; d < in->ndim; d++) {
        if (fshape[d] < 1)
            return fv_error_set(FV_EINVAL, fn, "footprint shape[%d] = %lld must be >= 1", d, (long long)fshape[d]);
        if (n > INT64_MAX / 16 / fshape[d])
            return fv_error_set(FV_EINVAL, fn, "footprint is too large (element count overflows)");
        n *= fshape[d];
    }
    if (n > FV__MAX_FOOTPRINT)
        return fv_error_set(FV_EINVAL, fn, "footprint is too large (%lld elements, at most %lld)", (long long)n,
                            (long long)FV__MAX_FOOTPRINT);
    for (int d = 0; d < in->ndim; d++)
        if ((st = fv__check_origin(fn, origins ? origins[d] : 0, fshape[d], d)))
            return st;
    if ((uint64_t)n > SIZE_MAX / sizeof(double))
        return fv_error_set(FV_EINVAL, fn, "footprint is too large");
    *fsize = n;
    return FV_OK;
}

/* Dispatch one FILTERND op (views 0-d arrays as 1-d, works from a copy when the
 * arrays share memory). p->ndim, fshape and origins are set here. */
static fv_status
fv__run_nd(fv_context *ctx, const fv_array *in, fv_array *out, fv__filternd_params *p, const int64_t *fshape,
           const int64_t *origins)
{
    fv_status st;
    fv_array *vin = NULL, *vout = NULL, *src = NULL;
    if (fv_array_size(out) == 0)
        return FV_OK;
    if ((st = fv__array_as_1d(in, &vin)) || (st = fv__array_as_1d(out, &vout)))
        goto done;
    p->ndim = vin->ndim;
    for (int d = 0; d < FV_MAX_NDIM; d++) {
        p->fshape[d] = d < in->ndim ? fshape[d] : 1;
        p->origins[d] = d < in->ndim && origins ? origins[d] : 0;
    }
    if ((st = fv__ndi_source(ctx, vin, vout, &src)))
        goto done;
    st = fv__run_FILTERND(ctx, src, NULL, vout, p);
done:
    fv_array_unref(vin);
    fv_array_unref(vout);
    fv_array_unref(src);
    return st;
}

/* out = 0 (scipy's result when no weight is selected). */
static fv_status
fv__zero(fv_context *ctx, fv_array *out)
{
    fv_array *z = NULL;
    fv_status st = fv_array_zeros(ctx, out->dtype, out->ndim, out->shape, out->device, &z);
    if (!st)
        st = fv_copy(ctx, z, out);
    fv_array_unref(z);
    return st;
}

static fv_status
fv__correlate_nd(const char *fn, fv_context *ctx, const fv_array *in, fv_array *out, const double *weights,
                 const int64_t *fshape, fv_mode mode, double cval, const int64_t *origins, int flip)
{
    fv_status st;
    int64_t fsize, o[FV_MAX_NDIM];
    if (!in || !out)
        return fv_error_set(FV_EINVAL, fn, "NULL array");
    if (!weights)
        return fv_error_set(FV_EINVAL, fn, "weights is NULL");
    for (int d = 0; d < in->ndim && d < FV_MAX_NDIM; d++) {
        o[d] = origins ? origins[d] : 0;
        if (flip && fshape && fshape[d] >= 1) { /* scipy's convolve: -origin, one less for even lengths */
            if (o[d] == INT64_MIN)
                return fv_error_set(FV_EINVAL, fn, "invalid origin");
            o[d] = -o[d] - ((fshape[d] & 1) ? 0 : 1);
        }
    }
    if ((st = fv__check_nd(fn, in, out, fshape, mode, o, &fsize)))
        return st;
    if (fv_array_size(out) == 0)
        return FV_OK;
    /* scipy selects the weights with |w| > DBL_EPSILON (NaN is not selected) */
    double *w = malloc((size_t)fsize * sizeof(double));
    if (!w)
        return fv_error_set(FV_ENOMEM, fn, "out of host memory");
    int64_t count = 0;
    for (int64_t t = 0; t < fsize; t++) {
        double v = weights[flip ? fsize - 1 - t : t];
        w[t] = fabs(v) > DBL_EPSILON ? v : 0.0;
        count += w[t] != 0.0;
    }
    if (count == 0) {
        st = fv__zero(ctx, out);
    } else {
        fv__filternd_params p = { .kind = FV__FND_CORRELATE, .mode = mode, .cval = cval, .weights = w, .count = count };
        st = fv__run_nd(ctx, in, out, &p, fshape, o);
    }
    free(w);
    return st;
}

fv_status
fv_correlate(fv_context *ctx, const fv_array *in, fv_array *out, const double *weights, const int64_t *fshape,
             fv_mode mode, double cval, const int64_t *origins)
{
    return fv__correlate_nd("correlate", ctx, in, out, weights, fshape, mode, cval, origins, 0);
}

fv_status
fv_convolve(fv_context *ctx, const fv_array *in, fv_array *out, const double *weights, const int64_t *fshape,
            fv_mode mode, double cval, const int64_t *origins)
{
    return fv__correlate_nd("convolve", ctx, in, out, weights, fshape, mode, cval, origins, 1);
}

static int64_t
fv__footprint_count(const uint8_t *footprint, int64_t fsize)
{
    if (!footprint)
        return fsize;
    int64_t c = 0;
    for (int64_t t = 0; t < fsize; t++)
        c += footprint[t] != 0;
    return c;
}

static fv_status
fv__min_or_max(const char *fn, int minimum, fv_context *ctx, const fv_array *in, fv_array *out,
               const uint8_t *footprint, const double *structure, const int64_t *fshape, fv_mode mode, double cval,
               const int64_t *origins)
{
    fv_status st;
    int64_t fsize;
    if (!in || !out)
        return fv_error_set(FV_EINVAL, fn, "NULL array");
    if ((st = fv__check_arrays(fn, in, out)) || (st = fv__check_mode(fn, mode)))
        return st;
    if (in->ndim > 0 && !fshape)
        return fv_error_set(FV_EINVAL, fn, "footprint shape is NULL");
    /* window size and count first (scipy: an all-zero footprint is an error) */
    fsize = 1;
    for (int d = 0; d < in->ndim; d++) {
        if (fshape[d] < 1)
            return fv_error_set(FV_EINVAL, fn, "footprint shape[%d] = %lld must be >= 1", d, (long long)fshape[d]);
        if (fsize > INT64_MAX / 16 / fshape[d])
            return fv_error_set(FV_EINVAL, fn, "footprint is too large (element count overflows)");
        fsize *= fshape[d];
    }
    int64_t count = fv__footprint_count(footprint, fsize);
    if (count == 0)
        return fv_error_set(FV_EINVAL, fn, "All-zero footprint is not supported");
    if (!structure && count == fsize) {
        /* scipy's separable path: one 1-D pass per axis longer than 1, through out */
        fv__filter1d_params passes[FV_MAX_NDIM];
        int k = 0;
        for (int d = 0; d < in->ndim; d++) {
            if (fshape[d] <= 1)
                continue;
            int64_t o = origins ? origins[d] : 0;
            if (fshape[d] > FV__MAX_TAPS)
                return fv_error_set(FV_EINVAL, fn, "filter size %lld is too large (at most %lld)", (long long)fshape[d],
                                    (long long)FV__MAX_TAPS);
            if ((st = fv__check_origin(fn, o, fshape[d], d)))
                return st;
            passes[k++] = (fv__filter1d_params){ .kind = minimum ? FV__F1D_MINIMUM : FV__F1D_MAXIMUM,
                                                 .axis = d,
                                                 .mode = mode,
                                                 .cval = cval,
                                                 .origin = o,
                                                 .size = fshape[d] };
        }
        return fv__run_passes(ctx, in, out, passes, k);
    }
    if ((st = fv__check_nd(fn, in, out, fshape, mode, origins, &fsize)))
        return st;
    fv__filternd_params p = { .kind = minimum ? FV__FND_MINIMUM : FV__FND_MAXIMUM,
                              .mode = mode,
                              .cval = cval,
                              .footprint = footprint,
                              .weights = structure,
                              .count = count };
    return fv__run_nd(ctx, in, out, &p, fshape, origins);
}

fv_status
fv_minimum_filter(fv_context *ctx, const fv_array *in, fv_array *out, const uint8_t *footprint, const double *structure,
                  const int64_t *fshape, fv_mode mode, double cval, const int64_t *origins)
{
    return fv__min_or_max("minimum_filter", 1, ctx, in, out, footprint, structure, fshape, mode, cval, origins);
}

fv_status
fv_maximum_filter(fv_context *ctx, const fv_array *in, fv_array *out, const uint8_t *footprint, const double *structure,
                  const int64_t *fshape, fv_mode mode, double cval, const int64_t *origins)
{
    return fv__min_or_max("maximum_filter", 0, ctx, in, out, footprint, structure, fshape, mode, cval, origins);
}

fv_status
fv_rank_filter(fv_context *ctx, const fv_array *in, fv_array *out, const uint8_t *footprint, const int64_t *fshape,
               int64_t rank, fv_mode mode, double cval, const int64_t *origins)
{
    const char *fn = "rank_filter";
    fv_status st;
    int64_t fsize;
    if ((st = fv__check_nd(fn, in, out, fshape, mode, origins, &fsize)))
        return st;
    int64_t count = fv__footprint_count(footprint, fsize);
    if (rank < 0 || rank >= count)
        return fv_error_set(FV_EINVAL, fn, "rank %lld is not within the footprint size (%lld selected elements)",
                            (long long)rank, (long long)count);
    fv__filternd_params p = {
        .kind = FV__FND_RANK, .mode = mode, .cval = cval, .footprint = footprint, .count = count, .rank = rank
    };
    return fv__run_nd(ctx, in, out, &p, fshape, origins);
}
