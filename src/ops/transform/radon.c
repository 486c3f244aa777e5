/* fv_radon, fv_sart_projection_update: validate, dispatch
 * (include/fovea/transform.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fovea/transform.h"
#include "ops/transform/radon.h"

/* a: float32 / float64, C-contiguous, ndim-d; dtype and device of ref. */
static fv_status
fv__radon_arg(const char *name, const char *what, const fv_array *a, int ndim, const fv_array *ref)
{
    if (!a)
        return fv_error_set(FV_EINVAL, name, "NULL %s", what);
    if (a->dtype != FV_FLOAT32 && a->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, name, "%s must be float32 or float64, got %s", what, fv_dtype_name(a->dtype));
    if (ref && a->dtype != ref->dtype)
        return fv_error_set(FV_EDTYPE, name, "%s must be %s like the image", what, fv_dtype_name(ref->dtype));
    if (a->ndim != ndim)
        return fv_error_set(FV_EINVAL, name, "%s must be %d-d", what, ndim);
    if (!fv_array_is_contiguous(a))
        return fv_error_set(FV_EINVAL, name, "%s must be C-contiguous", what);
    if (ref && !fv__array_same_device(a, ref))
        return fv_error_set(FV_EDEVICE, name, "%s is not on the image's device", what);
    if (ref && fv__arrays_overlap(a, ref))
        return fv_error_set(FV_EINVAL, name, "%s overlaps the image", what);
    return FV_OK;
}

fv_status
fv_radon(fv_context *ctx, const fv_array *image, const double *matrices, int64_t nangles, fv_array *out)
{
    const char *name = "radon";
    fv_status st;
    if ((st = fv__radon_arg(name, "image", image, 2, NULL)) || (st = fv__radon_arg(name, "out", out, 2, image)))
        return st;
    const int64_t n = image->shape[0];
    if (image->shape[1] != n)
        return fv_error_set(FV_EINVAL, name, "the image must be square, got %lld x %lld", (long long)n,
                            (long long)image->shape[1]);
    if (n > INT32_MAX)
        return fv_error_set(FV_EINVAL, name, "image sides beyond 2^31 - 1");
    if (nangles < 0 || (nangles > 0 && !matrices))
        return fv_error_set(FV_EINVAL, name, "nangles = %lld with%s matrices", (long long)nangles,
                            matrices ? "" : "out");
    if (out->shape[0] != n || out->shape[1] != nangles)
        return fv_error_set(FV_EINVAL, name, "out must be (%lld, %lld)", (long long)n, (long long)nangles);
    for (int64_t k = 0; k < 6 * nangles; k++)
        if (!isfinite(matrices[k]))
            return fv_error_set(FV_EINVAL, name, "matrix values must be finite");
    if (fv_array_size(out) == 0)
        return FV_OK;
    fv__radon_params p = { nangles, matrices };
    return fv__run_RADON(ctx, image, NULL, out, &p);
}

fv_status
fv_sart_projection_update(fv_context *ctx, const fv_array *image, const fv_array *projection, double theta,
                          double shift, fv_array *update)
{
    const char *name = "sart_projection_update";
    fv_status st;
    if ((st = fv__radon_arg(name, "image", image, 2, NULL)) ||
        (st = fv__radon_arg(name, "projection", projection, 1, image)) ||
        (st = fv__radon_arg(name, "update", update, 2, image)))
        return st;
    if (fv__arrays_overlap(projection, update))
        return fv_error_set(FV_EINVAL, name, "update overlaps the projection");
    const int64_t m = image->shape[0];
    if (image->shape[1] != m || !fv__array_same_shape(image, update))
        return fv_error_set(FV_EINVAL, name, "image and update must be square and of one shape");
    if (m > INT32_MAX || projection->shape[0] > INT32_MAX)
        return fv_error_set(FV_EINVAL, name, "sizes beyond 2^31 - 1");
    if (!isfinite(theta) || !isfinite(shift))
        return fv_error_set(FV_EINVAL, name, "theta and shift must be finite");
    if (fv_array_size(update) == 0)
        return FV_OK;
    fv__sart_params p = { theta, shift };
    return fv__run_SART(ctx, image, projection, update, &p);
}

fv_status
fv_iradon_backproject(fv_context *ctx, const fv_array *filtered, const double *cos_t, const double *sin_t,
                      fv_array *out)
{
    const char *name = "iradon";
    fv_status st;
    if (!filtered || filtered->dtype != FV_FLOAT64 || filtered->ndim != 2 || !fv_array_is_contiguous(filtered))
        return fv_error_set(FV_EINVAL, name, "filtered projections must be a C-contiguous 2-d float64 array");
    if ((st = fv__radon_arg(name, "out", out, 2, NULL)))
        return st;
    if (!fv__array_same_device(filtered, out))
        return fv_error_set(FV_EDEVICE, name, "filtered and out are on different devices");
    if (fv__arrays_overlap(filtered, out))
        return fv_error_set(FV_EINVAL, name, "out overlaps the projections");
    if (out->shape[0] != out->shape[1])
        return fv_error_set(FV_EINVAL, name, "out must be square");
    const int64_t na = filtered->shape[0];
    if (na > 0 && (!cos_t || !sin_t))
        return fv_error_set(FV_EINVAL, name, "NULL cosines or sines");
    for (int64_t a = 0; a < na; a++)
        if (!isfinite(cos_t[a]) || !isfinite(sin_t[a]))
            return fv_error_set(FV_EINVAL, name, "cosines and sines must be finite");
    if (fv_array_size(out) == 0)
        return FV_OK;
    if (filtered->shape[1] == 0 || na == 0) {
        if (out->device.type == FV_DEVICE_CUDA)
            return fv__cuda_memset0(ctx, out->data, (size_t)fv_array_size(out) * fv_dtype_size(out->dtype));
        memset(out->data, 0, (size_t)fv_array_size(out) * fv_dtype_size(out->dtype));
        return FV_OK;
    }
    double *cs = malloc((size_t)(2 * na) * sizeof(double));
    if (!cs)
        return fv_error_set(FV_ENOMEM, name, "out of memory");
    memcpy(cs, cos_t, (size_t)na * sizeof(double));
    memcpy(cs + na, sin_t, (size_t)na * sizeof(double));
    fv__backproject_params p = { na, cs };
    st = fv__run_BACKPROJECT(ctx, filtered, NULL, out, &p);
    free(cs);
    return st;
}
