/* fv_thin (skimage.morphology.thin), fv_skeletonize (skimage.morphology.
 * skeletonize) and fv_medial_axis_thin (the ordered pass of
 * skimage.morphology.medial_axis): validate, dispatch. */
#include <string.h>
#include "internal.h"
#include "fovea/skmorphology.h"
#include "ops/morphology/thin.h"
#include "ops/morphology/skmorphology.h"

/* Zhang and Suen's (1984) deletion table as scikit-image's skeletonize has it:
 * indexed by the neighbours NW, N, NE, E, SE, S, SW, W as bits 0 to 7; 1:
 * deleted in the first subiteration, 2: in the second, 3: in both. */
static const uint8_t fv__zhang_lut[256] = {
    0, 0, 0, 1, 0, 0, 1, 3, 0, 0, 3, 1, 1, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 3, 0, 3, 3, 0, 0, 0, 0, 0,
    0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0,
    0, 3, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 3, 0, 2, 0, 0, 0, 3, 1, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 2, 3, 1, 3, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 2, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 0, 1, 0, 0, 0, 0, 2, 2, 0, 0, 2, 0, 0, 0,
};

static fv_status
fv__check_binary_pair(const char *name, const fv_array *image, const fv_array *out)
{
    if (!image || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (image->ndim != 2)
        return fv_error_set(FV_EINVAL, name, "image must be 2-d, got %d dimensions", image->ndim);
    if (!fv__array_same_shape(image, out))
        return fv_error_set(FV_EINVAL, name, "out must have the image's shape");
    if (out->dtype != FV_BOOL && out->dtype != FV_UINT8)
        return fv_error_set(FV_EDTYPE, name, "out must be bool or uint8, got %s", fv_dtype_name(out->dtype));
    return FV_OK;
}

/* Runs THIN (p: its tables) or, p NULL, SKELETON_LEE on a contiguous image. */
static fv_status
fv__thin_run(fv_context *ctx, const fv_array *image, fv_array *out, fv__thin_params *p)
{
    fv_array *in = NULL;
    fv_status st = fv__skm_contig(ctx, image, &in);
    if (st == FV_OK)
        st = fv__skm_run(ctx, p ? FV__OP_THIN : FV__OP_SKELETON_LEE, in, NULL, out, p);
    fv_array_unref(in);
    return st;
}

fv_status
fv_thin(fv_context *ctx, const fv_array *image, fv_array *out, int64_t max_num_iter)
{
    fv_status st = fv__check_binary_pair("thin", image, out);
    if (st || fv_array_size(image) == 0)
        return st;
    fv__thin_params p = { .max_num_iter = max_num_iter };
    for (unsigned c = 0; c < 256; c++) {
        p.lut[0].del[c] = (uint8_t)fv__thin_deletes(c, 0);
        p.lut[1].del[c] = (uint8_t)fv__thin_deletes(c, 1);
    }
    return fv__thin_run(ctx, image, out, &p);
}

fv_status
fv_skeletonize(fv_context *ctx, const fv_array *image, fv_array *out, fv_skeleton_method method)
{
    const char *name = "skeletonize";
    if (!image || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (method != FV_SKELETON_ZHANG && method != FV_SKELETON_LEE)
        return fv_error_set(FV_EINVAL, name, "unknown method %d", (int)method);
    if (method == FV_SKELETON_ZHANG && image->ndim != 2)
        return fv_error_set(FV_EINVAL, name, "method zhang needs a 2-d image, got %d dimensions", image->ndim);
    if (image->ndim != 2 && image->ndim != 3)
        return fv_error_set(FV_EINVAL, name, "image must be 2-d or 3-d, got %d dimensions", image->ndim);
    if (!fv__array_same_shape(image, out))
        return fv_error_set(FV_EINVAL, name, "out must have the image's shape");
    if (out->dtype != FV_BOOL && out->dtype != FV_UINT8)
        return fv_error_set(FV_EDTYPE, name, "out must be bool or uint8, got %s", fv_dtype_name(out->dtype));
    if (fv_array_size(image) == 0)
        return FV_OK;
    if (method == FV_SKELETON_LEE)
        return fv__thin_run(ctx, image, out, NULL);
    /* the table in THIN's neighbour order: bits E, NE, N, NW, W, SW, S, SE */
    static const int zbit[8] = { 3, 2, 1, 0, 7, 6, 5, 4 }; /* THIN bit k -> Zhang bit */
    fv__thin_params p = { .max_num_iter = 0 };
    for (unsigned c = 0; c < 256; c++) {
        unsigned z = 0;
        for (int k = 0; k < 8; k++)
            z |= (c >> k & 1u) << zbit[k];
        p.lut[0].del[c] = (fv__zhang_lut[z] & 1u) != 0;
        p.lut[1].del[c] = (fv__zhang_lut[z] & 2u) != 0;
    }
    return fv__thin_run(ctx, image, out, &p);
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
