/* fv_minmax, fv_histogram, fv_clahe: validate, make inputs contiguous, derive
 * kernel parameters, dispatch (include/fovea/exposure.h). */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "fovea/exposure.h"
#include "ops/exposure/exposure.h"
#include "ops/morphology/skmorphology.h" /* fv__skm_contig */

static fv_status
fv__check_mask(const char *name, const fv_array *in, const fv_array *mask)
{
    if (!mask)
        return FV_OK;
    if (!fv__array_same_shape(in, mask))
        return fv_error_set(FV_EINVAL, name, "mask must have the input's shape");
    if (mask->dtype != FV_BOOL && mask->dtype != FV_UINT8)
        return fv_error_set(FV_EDTYPE, name, "mask must be bool or uint8, got %s", fv_dtype_name(mask->dtype));
    if (!fv__array_same_device(in, mask))
        return fv_error_set(FV_EDEVICE, name, "input and mask are on different devices");
    return FV_OK;
}

static fv_status
fv__flat_view(const fv_array *c, int64_t n, fv_array **v)
{
    int64_t stride = (int64_t)fv_dtype_size(c->dtype);
    return fv_array_view(c, 1, &n, &stride, 0, v);
}

/* Contiguous 1-d views (references) of in and mask; *m stays NULL without mask. */
static fv_status
fv__flat_inputs(fv_context *ctx, const fv_array *in, const fv_array *mask, fv_array **i, fv_array **m)
{
    fv_status st;
    fv_array *c = NULL;
    *i = *m = NULL;
    if ((st = fv__skm_contig(ctx, in, &c)))
        return st;
    int64_t n = fv_array_size(in);
    st = fv__flat_view(c, n, i);
    fv_array_unref(c);
    c = NULL;
    if (st || !mask)
        return st;
    if ((st = fv__skm_contig(ctx, mask, &c)))
        return st;
    st = fv__flat_view(c, n, m);
    fv_array_unref(c);
    return st;
}

fv_status
fv_minmax(fv_context *ctx, const fv_array *in, const fv_array *mask, double *vmin, double *vmax, int64_t *count)
{
    const char *name = "minmax";
    fv_array *i = NULL, *m = NULL, *scratch = NULL;
    fv_status st;
    if (!in || !vmin || !vmax)
        return fv_error_set(FV_EINVAL, name, "NULL argument");
    if ((st = fv__check_mask(name, in, mask)))
        return st;
    *vmin = *vmax = 0;
    if (count)
        *count = 0;
    if (fv_array_size(in) == 0)
        return FV_OK;
    if ((st = fv__flat_inputs(ctx, in, mask, &i, &m)))
        goto done;
    int64_t four = 4;
    if ((st = fv_array_new(ctx, FV_UINT64, 1, &four, in->device, &scratch)))
        goto done;
    fv__minmax_params p = { 0, 0, 0 };
    if ((st = fv__run_MINMAX(ctx, i, m, scratch, &p)))
        goto done;
    *vmin = p.min;
    *vmax = p.max;
    if (count)
        *count = p.count;
done:
    fv_array_unref(scratch);
    fv_array_unref(i);
    fv_array_unref(m);
    return st;
}

fv_status
fv_histogram(fv_context *ctx, const fv_array *in, const fv_array *mask, const fv_histogram_spec *spec, fv_array *counts)
{
    const char *name = "histogram";
    fv_array *i = NULL, *m = NULL;
    fv_status st;
    if (!in || !spec || !counts)
        return fv_error_set(FV_EINVAL, name, "NULL argument");
    if ((st = fv__check_mask(name, in, mask)))
        return st;
    if (spec->nbins < 1)
        return fv_error_set(FV_EINVAL, name, "nbins = %lld must be >= 1", (long long)spec->nbins);
    if (counts->dtype != FV_INT64 || counts->ndim != 1 || counts->shape[0] != spec->nbins ||
        !fv_array_is_contiguous(counts))
        return fv_error_set(FV_EINVAL, name, "counts must be a contiguous 1-d int64 array of nbins = %lld elements",
                            (long long)spec->nbins);
    if (!fv__array_same_device(in, counts))
        return fv_error_set(FV_EDEVICE, name, "input and counts are on different devices");
    if (fv__arrays_overlap(in, counts) || (mask && fv__arrays_overlap(mask, counts)))
        return fv_error_set(FV_EINVAL, name, "counts overlaps an input");
    if (spec->integer) {
        if (in->dtype == FV_FLOAT32 || in->dtype == FV_FLOAT64)
            return fv_error_set(FV_EDTYPE, name, "by-value bins need an integer dtype, got %s",
                                fv_dtype_name(in->dtype));
        if (spec->lo > INT64_MAX - spec->nbins)
            return fv_error_set(FV_EINVAL, name, "lo + nbins overflows int64");
    } else {
        if (!spec->edges)
            return fv_error_set(FV_EINVAL, name, "NULL edges");
        if (!isfinite(spec->first) || !isfinite(spec->last) || !(spec->first < spec->last))
            return fv_error_set(FV_EINVAL, name, "range [%g, %g] must be finite with first < last", spec->first,
                                spec->last);
        if (!(spec->denom > 0) || !isfinite(spec->denom))
            return fv_error_set(FV_EINVAL, name, "denom = %g must be finite and > 0", spec->denom);
        for (int64_t b = 0; b < spec->nbins; b++)
            if (!(spec->edges[b] < spec->edges[b + 1]))
                return fv_error_set(FV_EINVAL, name, "edges must increase (edges[%lld] >= edges[%lld])", (long long)b,
                                    (long long)b + 1);
    }
    if (fv_array_size(in) == 0) {
        if (counts->device.type == FV_DEVICE_CUDA)
            return fv__cuda_memset0(ctx, counts->data, (size_t)spec->nbins * 8);
        memset(counts->data, 0, (size_t)spec->nbins * 8);
        return FV_OK;
    }
    if ((st = fv__flat_inputs(ctx, in, mask, &i, &m)))
        goto done;
    fv__histogram_params p = { *spec };
    st = fv__run_HISTOGRAM(ctx, i, m, counts, &p);
done:
    fv_array_unref(i);
    fv_array_unref(m);
    return st;
}

fv_status
fv_clahe(fv_context *ctx, const fv_array *in, fv_array *out, const int64_t *kernel_size, double clip_limit,
         int64_t nbins)
{
    const char *name = "equalize_adapthist";
    fv_array *i = NULL;
    fv_status st;
    if (!in || !out || !kernel_size)
        return fv_error_set(FV_EINVAL, name, "NULL argument");
    if (in->dtype != FV_UINT16 || out->dtype != FV_UINT16)
        return fv_error_set(FV_EDTYPE, name, "in and out must be uint16, got %s and %s", fv_dtype_name(in->dtype),
                            fv_dtype_name(out->dtype));
    if (!fv__array_same_shape(in, out))
        return fv_error_set(FV_EINVAL, name, "in and out must have one shape");
    if (in->ndim < 1)
        return fv_error_set(FV_EINVAL, name, "the image needs at least one dimension");
    if (nbins < 1)
        return fv_error_set(FV_EINVAL, name, "nbins = %lld must be >= 1", (long long)nbins);
    if (!(clip_limit == clip_limit))
        return fv_error_set(FV_EINVAL, name, "clip_limit is NaN");
    fv__clahe_params p;
    memset(&p, 0, sizeof p);
    p.ndim = in->ndim;
    p.ntiles = 1;
    p.kelem = 1;
    for (int d = 0; d < in->ndim; d++) {
        int64_t k = kernel_size[d], s = in->shape[d];
        if (k < 1 || k > ((int64_t)1 << 30))
            return fv_error_set(FV_EINVAL, name, "kernel_size[%d] = %lld must be in 1..2^30", d, (long long)k);
        p.shape[d] = s;
        p.k[d] = k;
        p.ps[d] = k / 2;
        int64_t pe = (k - s % k) % k + (k + 1) / 2;
        p.nh[d] = (s + p.ps[d] + pe) / k - 1;
        if (p.kelem > INT32_MAX / k)
            return fv_error_set(FV_EINVAL, name, "contextual regions of more than 2^31 pixels");
        p.kelem *= k;
        if (p.nh[d] > 0 && p.ntiles > (INT64_MAX / 2) / p.nh[d])
            return fv_error_set(FV_EINVAL, name, "too many contextual regions");
        p.ntiles *= p.nh[d];
    }
    if (fv_array_size(in) == 0)
        return FV_OK;
    p.bin_size = 1 + FV__CLAHE_GRAY / nbins;
    p.nb = nbins;
    if ((FV__CLAHE_GRAY - 1) / p.bin_size + 1 > p.nb)
        p.nb = (FV__CLAHE_GRAY - 1) / p.bin_size + 1;
    if (p.nb > FV__CLAHE_GRAY)
        return fv_error_set(FV_EINVAL, name, "nbins = %lld must be <= %d", (long long)nbins, FV__CLAHE_GRAY);
    if (p.ntiles > ((int64_t)1 << 40) / p.nb)
        return fv_error_set(FV_EINVAL, name, "region histograms too large");
    if (clip_limit > 0.0) {
        double c = clip_limit * (double)p.kelem;
        if (!(c >= 1.0))
            c = 1.0;
        p.clim = c >= 9.2e18 ? INT64_MAX : (int64_t)c;
    } else {
        p.clim = p.kelem;
    }
    if ((st = fv__skm_contig(ctx, in, &i)))
        goto done;
    st = fv__skm_run(ctx, FV__OP_CLAHE, i, NULL, out, &p);
done:
    fv_array_unref(i);
    return st;
}
