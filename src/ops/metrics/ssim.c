/* fv_ssim_map: validate the five moment images and the output, run the op SSIM
 * (its CPU kernel: cpu/metrics/ssim-cpu.c). GPU data is handled by the Python layer
 * with CuPy elementwise operations, so device arrays are refused here. */
#include <math.h>
#include "internal.h"
#include "fovea/metrics.h"
#include "ops/metrics/ssim.h"

fv_status
fv_ssim_map(fv_context *ctx, const fv_array *ux, const fv_array *uy, fv_array *uxx, fv_array *uyy, fv_array *uxy,
            double cov_norm, double c1, double c2, fv_array *S_out, int gradient, int64_t pad, double *mean)
{
    const char *name = "ssim_map";
    const fv_array *all[6] = { ux, uy, uxx, uyy, uxy, S_out };
    const char *names[6] = { "ux", "uy", "uxx", "uyy", "uxy", "S" };
    if (!mean)
        return fv_error_set(FV_EINVAL, name, "NULL mean");
    *mean = NAN;
    if (pad < 0)
        return fv_error_set(FV_EINVAL, name, "pad must be >= 0, got %lld", (long long)pad);
    for (int k = 0; k < 6; k++) {
        const fv_array *a = all[k];
        if (!a) {
            if (k == 5)
                continue;
            return fv_error_set(FV_EINVAL, name, "NULL %s", names[k]);
        }
        if (a->dtype != FV_FLOAT32 && a->dtype != FV_FLOAT64)
            return fv_error_set(FV_EDTYPE, name, "%s must be float32 or float64, got %s", names[k],
                                fv_dtype_name(a->dtype));
        if (a->dtype != ux->dtype)
            return fv_error_set(FV_EDTYPE, name, "%s is %s but ux is %s", names[k], fv_dtype_name(a->dtype),
                                fv_dtype_name(ux->dtype));
        if (!fv__array_same_shape(a, ux))
            return fv_error_set(FV_EINVAL, name, "%s must have ux's shape", names[k]);
        if (a->device.type != FV_DEVICE_CPU)
            return fv_error_set(FV_EDEVICE, name, "%s must be in host memory", names[k]);
        if (!fv_array_is_contiguous(a))
            return fv_error_set(FV_EINVAL, name, "%s must be C-contiguous", names[k]);
        if ((k >= 2 && k <= 4 && gradient) || k == 5)
            if (a->readonly)
                return fv_error_set(FV_EINVAL, name, "%s is read-only", names[k]);
    }
    /* the written arrays must not share memory with each other or with the
     * read-only inputs, except S over ux / uy (each element is read first) */
    if (gradient && (fv__arrays_overlap(uxx, uyy) || fv__arrays_overlap(uxx, uxy) || fv__arrays_overlap(uyy, uxy)))
        return fv_error_set(FV_EINVAL, name, "uxx, uyy and uxy must not overlap");
    if (S_out && S_out->data != ux->data && S_out->data != uy->data)
        for (int k = 0; k < 5; k++)
            if (fv__arrays_overlap(S_out, all[k]))
                return fv_error_set(FV_EINVAL, name, "S must be ux, uy or a separate array");
    double sum = 0;
    int64_t count = 0;
    const fv__ssim_params p = { ux->dtype == FV_FLOAT64,
                                ux->data,
                                uy->data,
                                uxx->data,
                                uyy->data,
                                uxy->data,
                                S_out ? S_out->data : NULL,
                                ux->ndim,
                                ux->shape,
                                pad,
                                cov_norm,
                                c1,
                                c2,
                                gradient != 0,
                                &sum,
                                &count };
    fv_status st = fv__run_SSIM(ctx, ux, uy, NULL, &p);
    if (st == FV_OK)
        *mean = count ? sum / (double)count : NAN;
    return st;
}
