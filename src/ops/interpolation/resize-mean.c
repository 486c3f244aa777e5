/* fv_resize_local_mean: validate, run the op RESIZE_MEAN
 * (src/ops/interpolation/resize-mean.h). */
#include "internal.h"
#include "fovea/interpolation.h"
#include "ops/interpolation/resize-mean.h"

fv_status
fv_resize_local_mean(fv_context *ctx, const fv_array *in, fv_array *out, int grid_mode)
{
    const char *name = "resize_local_mean";
    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL %s", in ? "out" : "in");
    if (!fv_dtype_is_valid(in->dtype))
        return fv_error_set(FV_EDTYPE, name, "invalid input dtype");
    if (out->dtype != FV_FLOAT32 && out->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, name, "out must be float32 or float64, got %s", fv_dtype_name(out->dtype));
    if (!fv__array_same_device(in, out))
        return fv_error_set(FV_EDEVICE, name,
                            "input and output are on different devices (use fv_copy / "
                            "fovea.to_device to move data)");
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "output array is read-only");
    if (in->ndim != out->ndim)
        return fv_error_set(FV_EINVAL, name, "input and output must have the same ndim (%d, %d)", in->ndim, out->ndim);
    for (int d = 0; d < in->ndim; d++)
        if (out->shape[d] > 0 && in->shape[d] == 0)
            return fv_error_set(FV_EINVAL, name, "axis %d: cannot resize an empty axis to %lld", d,
                                (long long)out->shape[d]);
    if (!fv__array_no_self_overlap(out))
        return fv_error_set(FV_EINVAL, name, "out has elements that share memory (e.g. a stride of 0)");
    if (fv__arrays_overlap(in, out))
        return fv_error_set(FV_EINVAL, name, "input and output share memory");
    if (fv_array_size(out) == 0)
        return FV_OK;
    const fv__rmean_params p = { grid_mode != 0, out->dtype == FV_FLOAT32 };
    return fv__run_RESIZE_MEAN(ctx, in, NULL, out, &p);
}
