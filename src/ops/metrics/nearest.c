/* fv_nearest_points: validate (shapes, dtypes, the sort order along the
 * sweep axis, coordinate range), run the op NEAREST
 * (its CPU sweep: cpu/metrics/nearest-cpu.c). */
#include "internal.h"
#include "fovea/metrics.h"
#include "ops/metrics/nearest.h"

static fv_status
fv__nn_check(const char *name, const char *what, const fv_array *a, int ndim)
{
    if (!a)
        return fv_error_set(FV_EINVAL, name, "NULL %s", what);
    if (a->dtype != FV_INT64)
        return fv_error_set(FV_EDTYPE, name, "%s must be int64, got %s", what, fv_dtype_name(a->dtype));
    if (a->ndim != ndim)
        return fv_error_set(FV_EINVAL, name, "%s must be %d-d, got %d-d", what, ndim, a->ndim);
    if (a->device.type != FV_DEVICE_CPU)
        return fv_error_set(FV_EDEVICE, name, "%s must be in host memory", what);
    if (!fv_array_is_contiguous(a))
        return fv_error_set(FV_EINVAL, name, "%s must be C-contiguous", what);
    return FV_OK;
}

fv_status
fv_nearest_points(fv_context *ctx, const fv_array *points, int axis, const fv_array *queries, fv_array *d2,
                  fv_array *index)
{
    const char *name = "nearest_points";
    fv_status st;
    if ((st = fv__nn_check(name, "points", points, 2)) || (st = fv__nn_check(name, "queries", queries, 2)) ||
        (st = fv__nn_check(name, "d2", d2, 1)) || (index && (st = fv__nn_check(name, "index", index, 1))))
        return st;
    const int64_t n = points->shape[0], nd = points->shape[1], m = queries->shape[0];
    if (queries->shape[1] != nd)
        return fv_error_set(FV_EINVAL, name, "queries have %lld coordinates, points %lld", (long long)queries->shape[1],
                            (long long)nd);
    if (n < 1 || nd < 1)
        return fv_error_set(FV_EINVAL, name, "no points");
    if (axis < 0 || axis >= nd)
        return fv_error_set(FV_EINVAL, name, "axis %d outside 0..%lld", axis, (long long)nd - 1);
    if (d2->shape[0] != m || (index && index->shape[0] != m))
        return fv_error_set(FV_EINVAL, name, "d2 and index must have one entry per query");
    if ((index &&
         (fv__arrays_overlap(index, d2) || fv__arrays_overlap(index, points) || fv__arrays_overlap(index, queries))) ||
        fv__arrays_overlap(d2, points) || fv__arrays_overlap(d2, queries))
        return fv_error_set(FV_EINVAL, name, "outputs must not overlap the inputs or each other");
    const int64_t *p = (const int64_t *)points->data, *q = (const int64_t *)queries->data;
    const int64_t lim = (int64_t)1 << 28; /* 8 squared gaps of < 2^29 fit int64 */
    for (int64_t i = 0; i < n; i++) {
        if (i && p[i * nd + axis] < p[(i - 1) * nd + axis])
            return fv_error_set(FV_EINVAL, name, "points are not sorted by column %d (row %lld)", axis, (long long)i);
        for (int64_t d = 0; d < nd; d++)
            if (p[i * nd + d] <= -lim || p[i * nd + d] >= lim)
                return fv_error_set(FV_EINVAL, name, "coordinates must lie in (-2^28, 2^28)");
    }
    for (int64_t i = 0; i < m * nd; i++)
        if (q[i] <= -lim || q[i] >= lim)
            return fv_error_set(FV_EINVAL, name, "coordinates must lie in (-2^28, 2^28)");
    if (nd > 8)
        return fv_error_set(FV_EINVAL, name, "at most 8 coordinates (squared distances must fit int64)");
    const fv__nearest_params np = { axis, index };
    return fv__run_NEAREST(ctx, points, queries, d2, &np);
}
