/* fv_slic, fv_slic_enforce_connectivity, fv_felzenszwalb, fv_quickshift
 * (scikit-image 0.26's superpixels): validate, fill the kernel parameters
 * (src/ops/segmentation/superpixels.h), dispatch. */
#include <math.h>
#include <stdint.h>
#include "internal.h"
#include "fovea/segmentation.h"
#include "ops/segmentation/superpixels.h"

/* a is a C-contiguous array of ndim dimensions whose dtype is dt (or dt2) */
static fv_status
fv__sp_check(const char *name, const char *what, const fv_array *a, int ndim, fv_dtype dt, fv_dtype dt2)
{
    if (!a)
        return fv_error_set(FV_EINVAL, name, "%s is NULL", what);
    if (a->ndim != ndim)
        return fv_error_set(FV_EINVAL, name, "%s must be %d-dimensional, got %d dimensions", what, ndim, a->ndim);
    if (a->dtype != dt && a->dtype != dt2)
        return fv_error_set(FV_EDTYPE, name, "%s must be %s%s%s, got %s", what, fv_dtype_name(dt),
                            dt2 != dt ? " or " : "", dt2 != dt ? fv_dtype_name(dt2) : "", fv_dtype_name(a->dtype));
    if (!fv_array_is_contiguous(a))
        return fv_error_set(FV_EINVAL, name, "%s must be C-contiguous", what);
    return FV_OK;
}

/* out: on ref's device, of ref's first nd extents, writable unless it is an input (in) */
static fv_status
fv__sp_like(const char *name, const fv_array *ref, const fv_array *out, int nd, int in)
{
    if (!in && out->readonly)
        return fv_error_set(FV_EINVAL, name, "out is read-only");
    if (!fv__array_same_device(ref, out))
        return fv_error_set(FV_EDEVICE, name, "arrays on different devices");
    for (int d = 0; d < nd; d++)
        if (out->shape[d] != ref->shape[d])
            return fv_error_set(FV_EINVAL, name, "out's extent %lld on axis %d differs from the input's %lld",
                                (long long)out->shape[d], d, (long long)ref->shape[d]);
    return FV_OK;
}

fv_status
fv_slic(fv_context *ctx, const fv_array *image, const fv_array *mask, fv_array *segments, fv_array *labels,
        const int64_t steps[3], float step, int64_t max_num_iter, const double spacing[3], int slic_zero,
        int ignore_color, int64_t start_label)
{
    const char *name = "slic";
    fv_status st;
    if ((st = fv__sp_check(name, "image", image, 4, FV_FLOAT32, FV_FLOAT64)) ||
        (st = fv__sp_check(name, "segments", segments, 2, image->dtype, image->dtype)) ||
        (st = fv__sp_check(name, "labels", labels, 3, FV_INT64, FV_INT64)) ||
        (mask && (st = fv__sp_check(name, "mask", mask, 3, FV_BOOL, FV_BOOL))))
        return st;
    if (segments->shape[1] != 3 + image->shape[3])
        return fv_error_set(FV_EINVAL, name, "segments must have 3 + %lld columns, got %lld",
                            (long long)image->shape[3], (long long)segments->shape[1]);
    if (segments->readonly)
        return fv_error_set(FV_EINVAL, name, "segments is read-only");
    if (segments->shape[0] > INT32_MAX)
        return fv_error_set(FV_EINVAL, name, "more than 2^31 - 1 segments");
    if (!fv__array_same_device(image, segments))
        return fv_error_set(FV_EDEVICE, name, "image and segments are on different devices");
    if ((st = fv__sp_like(name, image, labels, 3, 0)) || (mask && (st = fv__sp_like(name, image, mask, 3, 1))))
        return st;
    if (start_label != 0 && start_label != 1)
        return fv_error_set(FV_EINVAL, name, "start_label should be 0 or 1.");
    if (!steps || !spacing)
        return fv_error_set(FV_EINVAL, name, "NULL steps or spacing");
    if (max_num_iter < 0)
        max_num_iter = 0;
    fv__slic_params p = { .segments = segments,
                          .step_z = steps[0],
                          .step_y = steps[1],
                          .step_x = steps[2],
                          .step = step,
                          .max_num_iter = max_num_iter,
                          .slic_zero = slic_zero != 0,
                          .ignore_color = ignore_color != 0,
                          .start_label = start_label };
    for (int d = 0; d < 3; d++) {
        if (steps[d] < 1)
            return fv_error_set(FV_EINVAL, name, "steps must be >= 1");
        p.spacing[d] = spacing[d];
    }
    return fv__run_SLIC(ctx, image, mask, labels, &p);
}

fv_status
fv_slic_enforce_connectivity(fv_context *ctx, const fv_array *labels, fv_array *out, int64_t min_size, int64_t max_size,
                             int64_t start_label)
{
    const char *name = "slic";
    fv_status st;
    if ((st = fv__sp_check(name, "labels", labels, 3, FV_INT64, FV_INT64)) ||
        (st = fv__sp_check(name, "out", out, 3, FV_INT64, FV_INT64)) || (st = fv__sp_like(name, labels, out, 3, 0)))
        return st;
    if (labels->data == out->data && fv_array_size(labels))
        return fv_error_set(FV_EINVAL, name, "out must not be labels");
    const fv__slic_connect_params p = { min_size, max_size, start_label };
    return fv__run_SLIC_CONNECT(ctx, labels, NULL, out, &p);
}

fv_status
fv_felzenszwalb(fv_context *ctx, const fv_array *image, const fv_array *order, fv_array *out, double scale,
                int64_t min_size)
{
    const char *name = "felzenszwalb";
    fv_status st;
    if ((st = fv__sp_check(name, "image", image, 3, FV_FLOAT64, FV_FLOAT64)) ||
        (st = fv__sp_check(name, "out", out, 2, FV_INT64, FV_INT64)) || (st = fv__sp_like(name, image, out, 2, 0)) ||
        (order && (st = fv__sp_check(name, "order", order, 1, FV_INT64, FV_INT64))))
        return st;
    if (order) {
        const int64_t h = image->shape[0], w = image->shape[1];
        const int64_t ne = h * (w > 0 ? w - 1 : 0) + (h > 0 ? h - 1 : 0) * (w + 2 * (w > 0 ? w - 1 : 0));
        if (order->shape[0] != ne)
            return fv_error_set(FV_EINVAL, name, "order must hold the %lld edges, got %lld", (long long)ne,
                                (long long)order->shape[0]);
        if (!fv__array_same_device(image, order))
            return fv_error_set(FV_EDEVICE, name, "image and order are on different devices");
    }
    const fv__felzenszwalb_params p = { scale / 255., min_size };
    return fv__run_FELZENSZWALB(ctx, image, order, out, &p);
}

fv_status
fv_quickshift(fv_context *ctx, const fv_array *image, const fv_array *densities, fv_array *out, double kernel_size,
              double max_dist, fv_array *parent, fv_array *dist)
{
    const char *name = "quickshift";
    fv_status st;
    if ((st = fv__sp_check(name, "image", image, 3, FV_FLOAT32, FV_FLOAT64)) ||
        (st = fv__sp_check(name, "densities", densities, 2, image->dtype, image->dtype)) ||
        (st = fv__sp_check(name, "out", out, 2, FV_INT64, FV_INT64)) || (st = fv__sp_like(name, image, out, 2, 0)) ||
        (st = fv__sp_like(name, image, densities, 2, 1)) ||
        (parent &&
         ((st = fv__sp_check(name, "parent", parent, 2, FV_INT64, FV_INT64)) ||
          (st = fv__sp_like(name, image, parent, 2, 0)))) ||
        (dist &&
         ((st = fv__sp_check(name, "dist", dist, 2, image->dtype, image->dtype)) ||
          (st = fv__sp_like(name, image, dist, 2, 0)))))
        return st;
    if (!(kernel_size >= 1))
        return fv_error_set(FV_EINVAL, name, "`kernel_size` should be >= 1.");
    if (image->device.type != FV_DEVICE_CPU)
        return fv_error_set(FV_ENOKERNEL, name, "quickshift runs on host data only");
    const fv__quickshift_params p = { kernel_size, max_dist, parent, dist };
    return fv__run_QUICKSHIFT(ctx, image, densities, out, &p);
}
