/* fv_watershed (skimage.segmentation.watershed): validate, derive skimage's
 * neighbour offsets, build the padded float64 image, bool mask and int64
 * labels (backend-neutral: astype into views), dispatch, crop into out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/core/elementwise.h"
#include "fovea/segmentation.h"
#include "ops/segmentation/watershed.h"

typedef struct fv__ws_nb {
    int64_t rav;
    double dist;
    int64_t pos; /* position in C order (distance sort) or after it (de-duplication) */
    int keep;
} fv__ws_nb;

/* numpy's stable argsort by distance: ties keep C order */
static int
fv__ws_by_dist(const void *pa, const void *pb)
{
    const fv__ws_nb *a = pa, *b = pb;
    if (a->dist != b->dist)
        return a->dist < b->dist ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int
fv__ws_by_rav(const void *pa, const void *pb)
{
    const fv__ws_nb *a = pa, *b = pb;
    if (a->rav != b->rav)
        return a->rav < b->rav ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int
fv__ws_by_pos(const void *pa, const void *pb)
{
    const fv__ws_nb *a = pa, *b = pb;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* A view of the interior of the padded C-contiguous array p (pad[d] cells on
 * each side of axis d) with shape `shape`. */
static fv_status
fv__ws_interior(const fv_array *p, const int64_t *shape, const int64_t *pad, fv_array **v)
{
    int64_t off = 0;
    for (int d = 0; d < p->ndim; d++)
        off += pad[d] * p->strides[d];
    return fv_array_view(p, p->ndim, shape, p->strides, off, v);
}

/* dst (a view) = src converted to dst's dtype. */
static fv_status
fv__ws_astype(fv_context *ctx, const fv_array *src, fv_array *dst)
{
    return fv__run_ASTYPE(ctx, src, NULL, dst, NULL);
}

fv_status
fv_watershed(fv_context *ctx, const fv_array *image, const fv_array *markers, const fv_array *mask, fv_array *out,
             int connectivity, const uint8_t *footprint, const int64_t *footprint_shape, const int64_t *offset,
             double compactness, int watershed_line)
{
    const char *name = "watershed";
    fv_array *img = NULL, *msk = NULL, *lab = NULL, *view = NULL, *one = NULL, *ones = NULL;
    uint8_t *fp_own = NULL;
    fv__ws_nb *nbs = NULL;
    int64_t *rav = NULL;
    fv_status st = FV_OK;

    if (!image || !markers || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    const int nd = image->ndim;
    if (nd < 1)
        return fv_error_set(FV_EINVAL, name, "image must have at least one dimension");
    if (image->dtype != FV_BOOL && !fv_dtype_is_integer(image->dtype) && !fv_dtype_is_float(image->dtype))
        return fv_error_set(FV_EDTYPE, name, "unsupported image dtype %s", fv_dtype_name(image->dtype));
    if (markers->dtype != FV_BOOL && !fv_dtype_is_integer(markers->dtype))
        return fv_error_set(FV_EDTYPE, name, "markers must be bool or an integer dtype, got %s",
                            fv_dtype_name(markers->dtype));
    if (!fv__array_same_shape(image, markers))
        return fv_error_set(FV_EINVAL, name, "markers must have the image's shape");
    if (!fv__array_same_shape(image, out))
        return fv_error_set(FV_EINVAL, name, "out must have the image's shape");
    if (out->dtype != markers->dtype)
        return fv_error_set(FV_EDTYPE, name, "out must have the markers' dtype %s, got %s",
                            fv_dtype_name(markers->dtype), fv_dtype_name(out->dtype));
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "out is read-only");
    if (mask) {
        if (!fv__array_same_shape(image, mask))
            return fv_error_set(FV_EINVAL, name, "mask must have the image's shape");
        if (!fv_dtype_is_valid(mask->dtype))
            return fv_error_set(FV_EDTYPE, name, "unsupported mask dtype");
    }
    if (!fv__array_same_device(image, markers) || !fv__array_same_device(image, out) ||
        (mask && !fv__array_same_device(image, mask)))
        return fv_error_set(FV_EDEVICE, name, "image, markers, mask and out are on different devices");
    if (!(compactness >= 0) && !(compactness <= 0))
        return fv_error_set(FV_EINVAL, name, "compactness is NaN");

    /* footprint and its origin */
    int64_t fshape[FV_MAX_NDIM], pad[FV_MAX_NDIM], pshape[FV_MAX_NDIM];
    int64_t ncells = 1;
    if (footprint) {
        if (!footprint_shape)
            return fv_error_set(FV_EINVAL, name, "footprint without footprint_shape");
        for (int d = 0; d < nd; d++) {
            if (footprint_shape[d] < 1 || footprint_shape[d] > 4096)
                return fv_error_set(FV_EINVAL, name, "footprint extent %lld on axis %d is not in 1..4096",
                                    (long long)footprint_shape[d], d);
            fshape[d] = footprint_shape[d];
            ncells *= fshape[d];
            if (ncells > ((int64_t)1 << 24))
                return fv_error_set(FV_EINVAL, name, "footprint has more than 2^24 cells");
        }
    } else {
        if (connectivity < 1 || connectivity > nd)
            return fv_error_set(FV_EINVAL, name, "connectivity for a %d-d image must be in 1..%d, got %d", nd, nd,
                                connectivity);
        for (int d = 0; d < nd; d++) {
            fshape[d] = 3;
            ncells *= 3;
        }
        if (!(fp_own = malloc((size_t)ncells)))
            return fv_error_set(FV_ENOMEM, name, "out of memory");
        for (int64_t c = 0; c < ncells; c++) {
            int64_t rest = c;
            int hops = 0;
            for (int d = nd - 1; d >= 0; d--) {
                hops += rest % 3 != 1;
                rest /= 3;
            }
            fp_own[c] = hops <= connectivity;
        }
        footprint = fp_own;
    }
    for (int d = 0; d < nd; d++) {
        if (offset) {
            if (offset[d] < 0 || offset[d] > 4096) {
                st = fv_error_set(FV_EINVAL, name, "offset[%d] = %lld is not in 0..4096", d, (long long)offset[d]);
                goto done;
            }
            pad[d] = offset[d];
        } else {
            if (fshape[d] % 2 == 0) {
                st = fv_error_set(FV_EINVAL, name,
                                  "the footprint has no unambiguous centre (extent %lld on axis %d): "
                                  "give an offset",
                                  (long long)fshape[d], d);
                goto done;
            }
            pad[d] = fshape[d] / 2;
        }
        pshape[d] = image->shape[d] + 2 * pad[d];
    }
    int64_t n = fv_array_size(image), pn, pbytes;
    if ((st = fv__shape_size(name, nd, pshape, sizeof(double), &pn, &pbytes)))
        goto done;

    /* neighbours: raveled offsets in the padded image, sorted by distance */
    fv__watershed_params p = { .ndim = nd,
                               .compactness = compactness > 0 ? compactness : 0,
                               .watershed_line = watershed_line != 0 };
    {
        int64_t s = 1;
        for (int d = nd - 1; d >= 0; d--) {
            p.strides[d] = s;
            p.pad[d] = pad[d];
            s *= pshape[d];
        }
    }
    if (!(nbs = malloc(sizeof *nbs * (size_t)ncells)) || !(rav = malloc(sizeof *rav * (size_t)ncells))) {
        st = fv_error_set(FV_ENOMEM, name, "out of memory");
        goto done;
    }
    int64_t cnt = 0;
    for (int64_t c = 0; c < ncells; c++) {
        if (!footprint[c])
            continue;
        int64_t rest = c, r = 0;
        double ss = 0;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t o = rest % fshape[d] - pad[d];
            rest /= fshape[d];
            r += o * p.strides[d];
            ss += (double)o * (double)o;
        }
        nbs[cnt].rav = r;
        nbs[cnt].dist = sqrt(ss);
        nbs[cnt].pos = cnt;
        cnt++;
    }
    qsort(nbs, (size_t)cnt, sizeof *nbs, fv__ws_by_dist);
    int small = 0;
    for (int d = 0; d < nd; d++)
        small |= pshape[d] < fshape[d];
    int64_t kept = cnt;
    if (small) { /* offsets that coincide in the padded image: keep the first in distance order */
        for (int64_t i = 0; i < cnt; i++)
            nbs[i].pos = i;
        qsort(nbs, (size_t)cnt, sizeof *nbs, fv__ws_by_rav);
        for (int64_t i = 0; i < cnt; i++)
            nbs[i].keep = i == 0 || nbs[i].rav != nbs[i - 1].rav;
        qsort(nbs, (size_t)cnt, sizeof *nbs, fv__ws_by_pos);
        kept = 0;
        for (int64_t i = 0; i < cnt; i++)
            if (nbs[i].keep)
                nbs[kept++] = nbs[i];
    }
    for (int64_t i = 1; i < kept; i++) /* skimage drops the nearest as "the centre" */
        rav[i - 1] = nbs[i].rav;
    p.nnb = kept > 1 ? (int)(kept - 1) : 0;
    p.nb = rav;
    if (n == 0)
        goto done;

    /* padded operands */
    if ((st = fv_array_zeros(ctx, FV_FLOAT64, nd, pshape, image->device, &img)) ||
        (st = fv_array_zeros(ctx, FV_BOOL, nd, pshape, image->device, &msk)) ||
        (st = fv_array_zeros(ctx, FV_INT64, nd, pshape, image->device, &lab)))
        goto done;
    if ((st = fv__ws_interior(img, image->shape, pad, &view)) || (st = fv__ws_astype(ctx, image, view)))
        goto done;
    fv_array_unref(view);
    view = NULL;
    if ((st = fv__ws_interior(lab, image->shape, pad, &view)) || (st = fv__ws_astype(ctx, markers, view)))
        goto done;
    fv_array_unref(view);
    view = NULL;
    if ((st = fv__ws_interior(msk, image->shape, pad, &view)))
        goto done;
    if (mask) {
        st = fv__ws_astype(ctx, mask, view);
    } else { /* every interior pixel: astype of a broadcast one */
        int64_t one_shape[1] = { 1 }, zs[FV_MAX_NDIM] = { 0 };
        uint8_t v1 = 1;
        if ((st = fv_array_new(ctx, FV_BOOL, 1, one_shape, image->device, &one)))
            goto done;
        if (image->device.type == FV_DEVICE_CUDA)
            st = fv__cuda_memcpy(ctx, one->data, one->device, &v1, (fv_device){ .type = FV_DEVICE_CPU }, 1);
        else
            *(uint8_t *)one->data = 1;
        if (st || (st = fv_array_view(one, nd, image->shape, zs, 0, &ones)))
            goto done;
        st = fv__ws_astype(ctx, ones, view);
    }
    if (st)
        goto done;
    fv_array_unref(view);
    view = NULL;

    if ((st = fv__run_WATERSHED(ctx, img, msk, lab, &p)))
        goto done;
    if ((st = fv__ws_interior(lab, image->shape, pad, &view)))
        goto done;
    st = fv__ws_astype(ctx, view, out);
done:
    fv_array_unref(view);
    fv_array_unref(ones);
    fv_array_unref(one);
    fv_array_unref(lab);
    fv_array_unref(msk);
    fv_array_unref(img);
    free(rav);
    free(nbs);
    free(fp_own);
    return st;
}
