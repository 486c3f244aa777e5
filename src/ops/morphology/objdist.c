/* fv_objects_by_distance (the pass of skimage.morphology.
 * remove_objects_by_distance): validate, dispatch. */
#include <math.h>
#include "internal.h"
#include "fovea/skmorphology.h"
#include "ops/morphology/objdist.h"
#include "ops/morphology/skmorphology.h"

fv_status
fv_objects_by_distance(fv_context *ctx, const fv_array *points, const fv_array *objects, double min_distance,
                       double p_norm, fv_array *removed)
{
    const char *name = "objects_by_distance";
    fv_array *pts = NULL, *obj = NULL;
    if (!points || !objects || !removed)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (points->dtype != FV_FLOAT64 || points->ndim != 2)
        return fv_error_set(FV_EINVAL, name, "points must be a 2-d float64 array (points x dimensions)");
    if (objects->dtype != FV_INT64 || objects->ndim != 1 || objects->shape[0] != points->shape[0])
        return fv_error_set(FV_EINVAL, name, "objects must be 1-d int64, one per point");
    if ((removed->dtype != FV_UINT8 && removed->dtype != FV_BOOL) || removed->ndim != 1 ||
        !fv_array_is_contiguous(removed))
        return fv_error_set(FV_EINVAL, name, "removed must be a contiguous 1-d bool or uint8 array");
    if (points->device.type != FV_DEVICE_CPU || objects->device.type != FV_DEVICE_CPU ||
        removed->device.type != FV_DEVICE_CPU)
        return fv_error_set(FV_EDEVICE, name, "points, objects and removed must be in host memory");
    if (min_distance < 0)
        return fv_error_set(FV_EINVAL, name, "min_distance must be >= 0, was %g", min_distance);
    if (p_norm <= 0)
        return fv_error_set(FV_EINVAL, name, "p_norm must be > 0, was %g", p_norm);
    fv_status st;
    if ((st = fv__skm_contig(ctx, objects, &obj)))
        return st;
    const int64_t *o = (const int64_t *)obj->data, npts = objects->shape[0];
    for (int64_t i = 0; i < npts; i++)
        if (o[i] < 0 || o[i] >= removed->shape[0]) {
            st = fv_error_set(FV_EINVAL, name, "objects[%lld] = %lld is not an object index (< %lld)", (long long)i,
                              (long long)o[i], (long long)removed->shape[0]);
            goto done;
        }
    if (npts == 0 || removed->shape[0] == 0)
        goto done;
    if ((st = fv__skm_contig(ctx, points, &pts)))
        goto done;
    const fv__object_distance_params p = { .r = min_distance, .p = p_norm };
    fv__op_args a = { .in = pts, .in2 = obj, .out = removed, .params = &p };
    st = fv__dispatch(ctx, FV__OP_OBJECT_DISTANCE, &a);
done:
    fv_array_unref(pts);
    fv_array_unref(obj);
    return st;
}
