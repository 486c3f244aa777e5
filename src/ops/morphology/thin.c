/* fv_thin (skimage.morphology.thin) and fv_medial_axis_thin (the ordered pass
 * of skimage.morphology.medial_axis): validate, dispatch. */
#include <string.h>
#include "internal.h"
#include "fovea/skmorphology.h"
#include "ops/morphology/thin.h"
#include "ops/morphology/skmorphology.h"

static fv_status
fv__check_binary_pair(const char *name, const fv_array *image, const fv_array *out)
{
    if (!image || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (image->ndim != 2)
        return fv_error_set(FV_EINVAL, name, "image must be 2-d, got %d dimensions", image->ndim);
    if (out->ndim != 2 || out->shape[0] != image->shape[0] || out->shape[1] != image->shape[1])
        return fv_error_set(FV_EINVAL, name, "out must have the image's shape");
    if (out->dtype != FV_BOOL && out->dtype != FV_UINT8)
        return fv_error_set(FV_EDTYPE, name, "out must be bool or uint8, got %s", fv_dtype_name(out->dtype));
    return FV_OK;
}

fv_status
fv_thin(fv_context *ctx, const fv_array *image, fv_array *out, int64_t max_num_iter)
{
    fv_array *in = NULL;
    fv_status st = fv__check_binary_pair("thin", image, out);
    if (st || fv_array_size(image) == 0)
        return st;
    fv__thin_params p = { .max_num_iter = max_num_iter };
    if ((st = fv__skm_contig(ctx, image, &in)))
        goto done;
    st = fv__skm_run(ctx, FV__OP_THIN, in, NULL, out, &p);
done:
    fv_array_unref(in);
    return st;
}

fv_status
fv_medial_axis_thin(fv_context *ctx, const fv_array *image, const fv_array *order, fv_array *out)
{
    const char *name = "medial_axis";
    fv_array *in = NULL, *ord = NULL;
    fv_status st = fv__check_binary_pair(name, image, out);
    if (st)
        return st;
    if (!order)
        return fv_error_set(FV_EINVAL, name, "NULL order");
    if (order->ndim != 1 || order->dtype != FV_INT64)
        return fv_error_set(FV_EINVAL, name, "order must be a 1-d int64 array");
    if (image->device.type != FV_DEVICE_CPU || order->device.type != FV_DEVICE_CPU || out->device.type != FV_DEVICE_CPU)
        return fv_error_set(FV_EDEVICE, name,
                            "the ordered pass runs on the host: image, order and out "
                            "must be in host memory (copy them with fv_copy first)");
    if ((st = fv__skm_contig(ctx, order, &ord)))
        goto done;
    const int64_t n = fv_array_size(image), *idx = (const int64_t *)ord->data;
    for (int64_t k = 0; k < ord->shape[0]; k++)
        if (idx[k] < 0 || idx[k] >= n) {
            st = fv_error_set(FV_EINVAL, name, "order[%lld] = %lld is outside the image's %lld pixels", (long long)k,
                              (long long)idx[k], (long long)n);
            goto done;
        }
    if (n == 0)
        goto done;
    if ((st = fv__skm_contig(ctx, image, &in)))
        goto done;
    st = fv__skm_run(ctx, FV__OP_MEDIAL_AXIS, in, ord, out, NULL);
done:
    fv_array_unref(in);
    fv_array_unref(ord);
    return st;
}
