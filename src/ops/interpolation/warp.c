/* fv_warp_homography: validate, run the op WARP2D (src/ops/interpolation/warp.h). */
#include <string.h>
#include "internal.h"
#include "fovea/interpolation.h"
#include "ops/interpolation/warp.h"

fv_status
fv_warp_homography(fv_context *ctx, const fv_array *in, const double *matrix, fv_array *out, int order,
                   fv_warp_mode mode, double cval)
{
    const char *name = "warp_homography";
    if (!in || !out || !matrix)
        return fv_error_set(FV_EINVAL, name, "NULL %s", !in ? "in" : !out ? "out" : "matrix");
    if ((in->dtype != FV_FLOAT32 && in->dtype != FV_FLOAT64) || out->dtype != in->dtype)
        return fv_error_set(FV_EDTYPE, name, "in and out must both be float32 or both float64");
    if (in->ndim < 2 || in->ndim > 3 || out->ndim != in->ndim || (in->ndim == 3 && in->shape[2] != out->shape[2]))
        return fv_error_set(FV_EINVAL, name, "in and out must be 2-d, or 3-d with as many channels (last axis)");
    if (!fv__array_same_device(in, out))
        return fv_error_set(FV_EDEVICE, name, "input and output are on different devices");
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "output array is read-only");
    if (order != 1 && order != 3)
        return fv_error_set(FV_EINVAL, name, "order %d not supported (1 or 3)", order);
    if ((int)mode < 0 || mode >= FV_WARP_MODE_COUNT)
        return fv_error_set(FV_EINVAL, name, "invalid mode %d", (int)mode);
    if (!fv__array_no_self_overlap(out) || fv__arrays_overlap(in, out))
        return fv_error_set(FV_EINVAL, name, "out shares memory with itself or the input");
    if (fv_array_size(out) == 0)
        return FV_OK;
    if (fv_array_size(in) == 0)
        return fv_error_set(FV_EINVAL, name, "cannot warp an empty image");
    fv__warp2d_params p;
    memset(&p, 0, sizeof p);
    memcpy(p.matrix, matrix, sizeof p.matrix);
    p.order = order;
    p.mode = (int)mode;
    p.cval = cval;
    return fv__run_WARP2D(ctx, in, NULL, out, &p);
}
