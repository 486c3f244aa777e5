/* fv_max_tree, fv_max_tree_filter (skimage.morphology.max_tree and the
 * attribute filters built on it) and fv_flood (skimage.morphology.flood):
 * validate, derive the neighbour offsets, dispatch. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fovea/skmorphology.h"
#include "ops/morphology/maxtree.h"
#include "ops/morphology/skmorphology.h"

/* An int64 host array of n elements with every entry in [0, n): *c is a
 * contiguous reference to it. */
static fv_status
fv__index_array(fv_context *ctx, const char *name, const char *what, const fv_array *a, int64_t n, fv_array **c)
{
    *c = NULL;
    if (!a)
        return fv_error_set(FV_EINVAL, name, "NULL %s", what);
    if (a->dtype != FV_INT64)
        return fv_error_set(FV_EDTYPE, name, "%s must be int64, got %s", what, fv_dtype_name(a->dtype));
    if (fv_array_size(a) != n)
        return fv_error_set(FV_EINVAL, name, "%s must have the image's %lld elements, got %lld", what, (long long)n,
                            (long long)fv_array_size(a));
    if (a->device.type != FV_DEVICE_CPU)
        return fv_error_set(FV_EDEVICE, name, "%s must be in host memory", what);
    fv_status st = fv__skm_contig(ctx, a, c);
    if (st)
        return st;
    const int64_t *v = (const int64_t *)(*c)->data;
    for (int64_t i = 0; i < n; i++)
        if (v[i] < 0 || v[i] >= n) {
            fv_array_unref(*c);
            *c = NULL;
            return fv_error_set(FV_EINVAL, name, "%s[%lld] = %lld is not a pixel index", what, (long long)i,
                                (long long)v[i]);
        }
    return FV_OK;
}

static fv_status
fv__check_image(const char *name, const fv_array *image, const fv_array *out, int same_dtype)
{
    if (!image || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (!fv__array_same_shape(image, out))
        return fv_error_set(FV_EINVAL, name, "out must have the image's shape");
    if (same_dtype && out->dtype != image->dtype)
        return fv_error_set(FV_EDTYPE, name, "out must have the image's dtype");
    return FV_OK;
}

fv_status
fv_max_tree(fv_context *ctx, const fv_array *image, const fv_array *order, fv_array *parent, const uint8_t *footprint,
            const int64_t *fshape)
{
    const char *name = "max_tree";
    fv_array *in = NULL, *ord = NULL;
    fv__max_tree_params p = { 0 };
    int64_t *nb = NULL;
    fv_status st = fv__check_image(name, image, parent, 0);
    if (st)
        return st;
    if (parent->dtype != FV_INT64)
        return fv_error_set(FV_EDTYPE, name, "parent must be int64, got %s", fv_dtype_name(parent->dtype));
    if ((st = fv__skm_footprint_offsets(name, image->ndim, footprint, fshape, NULL, &nb, &p.nnb)))
        return st;
    p.nb = nb;
    const int64_t n = fv_array_size(image);
    if (n == 0)
        goto done;
    if ((st = fv__index_array(ctx, name, "order", order, n, &ord)) || (st = fv__skm_contig(ctx, image, &in)))
        goto done;
    st = fv__skm_run(ctx, FV__OP_MAX_TREE, in, ord, parent, &p);
done:
    fv_array_unref(in);
    fv_array_unref(ord);
    free(nb);
    return st;
}

fv_status
fv_max_tree_filter(fv_context *ctx, const fv_array *image, const fv_array *parent, const fv_array *order, fv_array *out,
                   fv_max_tree_attr attr, double threshold)
{
    const char *name = "max_tree_filter";
    fv_array *in = NULL, *par = NULL, *ord = NULL;
    if (attr != FV_MAX_TREE_AREA && attr != FV_MAX_TREE_DIAMETER && attr != FV_MAX_TREE_LOCAL_MAXIMA)
        return fv_error_set(FV_EINVAL, name, "unknown attribute %d", (int)attr);
    fv_status st = fv__check_image(name, image, out, attr != FV_MAX_TREE_LOCAL_MAXIMA);
    if (st)
        return st;
    if (attr == FV_MAX_TREE_LOCAL_MAXIMA && out->dtype != FV_UINT64)
        return fv_error_set(FV_EDTYPE, name, "out must be uint64 for the local maxima");
    const int64_t n = fv_array_size(image);
    if (n == 0)
        return FV_OK;
    fv__max_tree_filter_params p = { .attr = (int)attr, .threshold = threshold };
    if ((st = fv__index_array(ctx, name, "parent", parent, n, &par)) ||
        (st = fv__index_array(ctx, name, "order", order, n, &ord)) || (st = fv__skm_contig(ctx, image, &in)))
        goto done;
    p.order = (const int64_t *)ord->data;
    st = fv__skm_run(ctx, FV__OP_MAX_TREE_FILTER, in, par, out, &p);
done:
    fv_array_unref(in);
    fv_array_unref(par);
    fv_array_unref(ord);
    return st;
}

fv_status
fv_flood(fv_context *ctx, const fv_array *image, const int64_t *seed, const fv_array *bounds, const uint8_t *footprint,
         const int64_t *fshape, fv_array *out)
{
    const char *name = "flood";
    fv_array *in = NULL, *bnd = NULL;
    fv__flood_params p = { 0 };
    int64_t *nb = NULL;
    fv_status st = fv__check_image(name, image, out, 0);
    if (st)
        return st;
    if (out->dtype != FV_BOOL && out->dtype != FV_UINT8)
        return fv_error_set(FV_EDTYPE, name, "out must be bool or uint8, got %s", fv_dtype_name(out->dtype));
    if (!seed && image->ndim > 0)
        return fv_error_set(FV_EINVAL, name, "NULL seed");
    if (bounds && (bounds->dtype != image->dtype || fv_array_size(bounds) != 2))
        return fv_error_set(FV_EINVAL, name, "bounds must hold two values of the image's dtype");
    const int64_t n = fv_array_size(image);
    if (n == 0)
        return FV_OK;
    for (int d = 0; d < image->ndim; d++) {
        if (seed[d] < 0 || seed[d] >= image->shape[d])
            return fv_error_set(FV_EINVAL, name, "seed %lld is outside axis %d of extent %lld", (long long)seed[d], d,
                                (long long)image->shape[d]);
        p.seed = p.seed * image->shape[d] + seed[d];
    }
    if ((st = fv__skm_footprint_offsets(name, image->ndim, footprint, fshape, NULL, &nb, &p.nnb)))
        return st;
    p.nb = nb;
    if ((st = fv__skm_contig(ctx, image, &in)) || (bounds && (st = fv__skm_contig(ctx, bounds, &bnd))))
        goto done;
    st = fv__skm_run(ctx, FV__OP_FLOOD, in, bnd, out, &p);
done:
    fv_array_unref(in);
    fv_array_unref(bnd);
    free(nb);
    return st;
}
