/* fv_region_stats (the batch tables of skimage.measure.regionprops):
 * validate, make labels contiguous and intensity contiguous float64, dispatch. */
#include "internal.h"
#include "ops/core/elementwise.h"
#include "fovea/measure.h"
#include "ops/measure/regionprops.h"
#include "ops/morphology/skmorphology.h" /* fv__skm_contig */

int64_t
fv_region_stats_columns(int ndim, int64_t channels)
{
    if (ndim < 1 || ndim > FV__RP_MAX_NDIM || channels < 0)
        return -1;
    int64_t m = 1;
    for (int d = 0; d < ndim; d++)
        m *= FV__RP_ORDER;
    return 1 + 2 * (int64_t)ndim + m + channels * (2 + m);
}

fv_status
fv_region_stats(fv_context *ctx, const fv_array *labels, const fv_array *intensity, int64_t max_label, fv_array *out)
{
    const char *name = "region_stats";
    fv_array *lab = NULL, *inten = NULL, *tmp = NULL;
    fv_status st = FV_OK;

    if (!labels || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    const int nd = labels->ndim;
    if (!fv_dtype_is_integer(labels->dtype))
        return fv_error_set(FV_EDTYPE, name, "labels must have an integer dtype, got %s", fv_dtype_name(labels->dtype));
    if (nd < 1 || nd > FV__RP_MAX_NDIM)
        return fv_error_set(FV_EINVAL, name, "labels must have 1 to %d dimensions, got %d", FV__RP_MAX_NDIM, nd);
    if (max_label < 0)
        return fv_error_set(FV_EINVAL, name, "max_label = %lld must be >= 0", (long long)max_label);
    int64_t nch = 0;
    if (intensity) {
        int same = intensity->ndim == nd || intensity->ndim == nd + 1;
        for (int d = 0; same && d < nd; d++)
            same = intensity->shape[d] == labels->shape[d];
        if (!same)
            return fv_error_set(FV_EINVAL, name,
                                "intensity must have the labels' shape, optionally plus a "
                                "trailing channel axis");
        if (!fv_dtype_is_integer(intensity->dtype) && !fv_dtype_is_float(intensity->dtype))
            return fv_error_set(FV_EDTYPE, name, "unsupported intensity dtype %s", fv_dtype_name(intensity->dtype));
        if (!fv__array_same_device(labels, intensity))
            return fv_error_set(FV_EDEVICE, name, "labels and intensity are on different devices");
        nch = intensity->ndim == nd ? 1 : intensity->shape[nd];
        if (nch < 1)
            return fv_error_set(FV_EINVAL, name, "intensity has no channels");
    }
    const int64_t ncols = fv_region_stats_columns(nd, nch);
    if (out->dtype != FV_FLOAT64 || out->ndim != 2 || out->shape[0] != max_label || out->shape[1] != ncols ||
        !fv_array_is_contiguous(out))
        return fv_error_set(FV_EINVAL, name, "out must be a C-contiguous float64 array of shape (%lld, %lld)",
                            (long long)max_label, (long long)ncols);
    if (!fv__array_same_device(labels, out))
        return fv_error_set(FV_EDEVICE, name, "labels and out are on different devices");
    if (fv__arrays_overlap(labels, out) || fv__arrays_overlap(intensity, out))
        return fv_error_set(FV_EINVAL, name, "out must not overlap the inputs");

    fv__rp_params p = { .nd = nd, .nch = nch, .max_label = max_label, .ncols = ncols, .nmom = 1 };
    for (int d = 0; d < nd; d++) {
        p.shape[d] = labels->shape[d];
        p.nmom *= FV__RP_ORDER;
    }
    if (max_label == 0)
        return FV_OK;
    if ((st = fv__skm_contig(ctx, labels, &lab)))
        goto done;
    if (intensity) {
        if (intensity->dtype == FV_FLOAT64 && fv_array_is_contiguous(intensity)) {
            inten = fv_array_ref((fv_array *)intensity);
        } else {
            if ((st = fv_array_new(ctx, FV_FLOAT64, intensity->ndim, intensity->shape, intensity->device, &tmp)))
                goto done;
            if ((st = fv__run_ASTYPE(ctx, intensity, NULL, tmp, NULL)))
                goto done;
            inten = tmp;
            tmp = NULL;
        }
    }
    st = fv__run_REGION_STATS(ctx, lab, inten, out, &p);
done:
    fv_array_unref(tmp);
    fv_array_unref(inten);
    fv_array_unref(lab);
    return st;
}
