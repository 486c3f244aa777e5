/* Binary morphology and distance transforms: validate, derive, dispatch.
 *
 * fv_binary_erosion runs scipy's _binary_erosion: one kernel pass per iteration
 * (FV__OP_BINARY_EROSION), ping-ponging between the output and a bool
 * temporary so that the last pass lands in the output, and for iterations < 1
 * until a pass changes nothing; with a 3 x ... x 3 point-symmetric structure
 * holding its centre (scipy's binary_fill_holes and binary_propagation) the
 * passes until nothing changes are one labelling instead (FV__OP_BINARY_FLOOD,
 * the same bits). fv_distance_transform_edt / _cdt check the
 * outputs and run one kernel each (FV__OP_EDT, FV__OP_CDT). Arrays that overlap
 * in memory are staged through temporaries here, so the kernels never see
 * overlapping operands. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "internal.h"
#include "ops/core/elementwise.h"
#include "ops/morphology/binary-erosion.h"
#include "ops/morphology/distance.h"
#include "ops/filters/ndimage-math.h"
#include "ops/measure/label.h"
#include "ops/morphology/binary-flood.h"
#include "core/plan.h"

/* ---- shared checks ------------------------------------------------------------ */

static fv_status
fv__check_device(const char *name, const char *what, const fv_array *in, const fv_array *a)
{
    if (!fv__array_same_device(in, a))
        return fv_error_set(FV_EDEVICE, name,
                            "%s is on another device than the input (use fv_copy / "
                            "fovea.to_device to move data)",
                            what);
    return FV_OK;
}

/* A C-contiguous temporary of shape like a's on a's device. */
static fv_status
fv__temp(fv_context *ctx, const fv_array *a, fv_dtype dt, fv_array **out)
{
    return fv_array_new(ctx, dt, a->ndim, a->shape, a->device, out);
}

/* A contiguous bool copy (x != 0) of a. */
static fv_status
fv__bool_copy(fv_context *ctx, const char *name, const fv_array *a, fv_array **out)
{
    fv_status st = fv__temp(ctx, a, FV_BOOL, out);
    if (st)
        return st;
    if ((st = fv__run_ASTYPE(ctx, a, NULL, *out, NULL))) {
        fv_array_unref(*out);
        *out = NULL;
    }
    (void)name;
    return st;
}

/* What the distance kernels read (ops/morphology/distance.h): a C-contiguous
 * one-byte array of (in != 0): in itself (a new reference) when it already is
 * one, else a bool copy on in's device. */
static fv_status
fv__foreground(fv_context *ctx, const char *name, const fv_array *in, fv_array **out)
{
    *out = NULL;
    if ((in->dtype == FV_BOOL || in->dtype == FV_UINT8 || in->dtype == FV_INT8) && fv_array_is_contiguous(in)) {
        *out = fv_array_ref((fv_array *)in);
        return FV_OK;
    }
    return fv__bool_copy(ctx, name, in, out);
}

/* ---- binary erosion ------------------------------------------------------------- */

/* Whether the passes until nothing changes can run as one labelling
 * (FV__OP_BINARY_FLOOD): a 3 x ... x 3 point-symmetric structure holding its
 * centre, origin 0. */
typedef struct fv__flood_plan_args {
    const fv__binary_erosion_params *p;
    int iterations, cit;
} fv__flood_plan_args;

static int
fv__flood_ok(const void *args, int device)
{
    const fv__flood_plan_args *fa = args;
    const fv__binary_erosion_params *p = fa->p;
    (void)device;
    if (fa->iterations >= 1 || !fa->cit)
        return 0;
    int64_t ssize = 1;
    for (int d = 0; d < p->ndim; d++) {
        if (p->sshape[d] != 3 || p->origins[d] != 0)
            return 0;
        ssize *= 3;
    }
    for (int64_t c = 0; c < ssize / 2; c++)
        if ((p->structure[c] != 0) != (p->structure[ssize - 1 - c] != 0))
            return 0;
    return 1;
}

/* Erosion / dilation until nothing changes ("binary_erosion"): "flood", one
 * flood fill (a 3^n structure centred and symmetric, iterations < 1, the
 * centre set); "iterate", pass after pass. */
FV__VARIANTS(fv__flood_variants, "binary_erosion", { "flood", fv__flood_ok, NULL }, { "iterate", NULL, NULL })

static int
fv__flood_eligible(const fv__binary_erosion_params *p, int iterations, int cit, int device)
{
    const fv__flood_plan_args fa = { p, iterations, cit };
    return fv__plan_index(&fv__flood_variants, &fa, device) == 0;
}

/* a is a C-contiguous array of one-byte items (bool, uint8, int8): the kernels
 * read it as it is (!= 0). */
static int
fv__contiguous_bytes(const fv_array *a)
{
    return (a->dtype == FV_BOOL || a->dtype == FV_UINT8 || a->dtype == FV_INT8) && fv_array_is_contiguous(a);
}

/* *c = a when fv__contiguous_bytes(a), else a contiguous bool copy (a != 0). */
static fv_status
fv__bytes_of(fv_context *ctx, const char *name, const fv_array *a, fv_array **c)
{
    if (fv__contiguous_bytes(a)) {
        *c = fv_array_ref((fv_array *)a);
        return FV_OK;
    }
    return fv__bool_copy(ctx, name, a, c);
}

/* fv_binary_erosion with iterations < 1 as connected components (see
 * fv__flood_eligible and FV__OP_BINARY_FLOOD): in1, mask1 (or NULL), out1 of
 * one shape (ndim >= 1), any dtypes and layouts, overlaps allowed. */
static fv_status
fv__binary_flood(fv_context *ctx, const char *name, const fv_array *in1, const fv_array *mask1, fv_array *out1,
                 const fv__binary_erosion_params *p)
{
    fv_array *in = NULL, *mk = NULL, *work = NULL;
    int8_t *nb = NULL;
    int nnb = 0;
    fv_status st;
    if ((st = fv__label_backward(name, p->ndim, p->structure, 0, &nb, &nnb)))
        return st;
    fv__binary_flood_params fp = { .nnb = nnb, .nb = nb, .invert = p->invert };
    if (p->border_value == p->invert) { /* the outside is a seed */
        for (int d = 0; d < p->ndim; d++)
            for (int k = 0; k < nnb; k++)
                if (nb[(size_t)k * p->ndim + d] != 0) /* the structure reaches along axis d */
                    fp.border_axes |= 1u << d;
    }
    if ((st = fv__bytes_of(ctx, name, in1, &in)) || (mask1 && (st = fv__bytes_of(ctx, name, mask1, &mk))))
        goto done;
    if (fv__contiguous_bytes(out1) && !fv__arrays_overlap(out1, in) && !(mk && fv__arrays_overlap(out1, mk)))
        work = fv_array_ref(out1);
    else if ((st = fv__temp(ctx, out1, FV_BOOL, &work)))
        goto done;
    if ((st = fv__run_BINARY_FLOOD(ctx, in, mk, work, &fp)))
        goto done;
    if (work != out1) {
        st = fv__run_ASTYPE(ctx, work, NULL, out1, NULL);
    }
done:
    if (in1->device.type == FV_DEVICE_CUDA) {
        fv__cuda_mark_use(ctx, in);
        fv__cuda_mark_use(ctx, mk);
        fv__cuda_mark_use(ctx, work);
    }
    fv_array_unref(work);
    fv_array_unref(mk);
    fv_array_unref(in);
    free(nb);
    return st;
}

fv_status
fv_binary_erosion(fv_context *ctx, const fv_array *in, fv_array *out, const uint8_t *structure, const int64_t *sshape,
                  int iterations, const fv_array *mask, int border_value, const int64_t *origins, int invert)
{
    const char *name = "binary_erosion";
    fv_array *in1 = NULL, *out1 = NULL, *mask1 = NULL, *target = NULL, *tmp = NULL, *maskc = NULL;
    fv_status st = FV_OK;
    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (!structure)
        return fv_error_set(FV_EINVAL, name, "structure is NULL");
    if (in->ndim > 0 && !sshape)
        return fv_error_set(FV_EINVAL, name, "structure shape is NULL");
    if (!fv__array_same_shape(in, out))
        return fv_error_set(FV_EINVAL, name, "input and output shapes differ");
    if ((st = fv__check_device(name, "the output", in, out)))
        return st;
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "output array is read-only");
    if (mask) {
        if (!fv__array_same_shape(in, mask))
            return fv_error_set(FV_EINVAL, name, "mask and input shapes differ");
        if ((st = fv__check_device(name, "the mask", in, mask)))
            return st;
    }
    fv__binary_erosion_params p;
    memset(&p, 0, sizeof p);
    p.ndim = in->ndim > 0 ? in->ndim : 1;
    int64_t ssize = 1, center = 0;
    for (int d = 0; d < p.ndim; d++) {
        int64_t s = in->ndim > 0 ? sshape[d] : 1, o = in->ndim > 0 && origins ? origins[d] : 0;
        if (s < 1)
            return fv_error_set(FV_EINVAL, name, "structure extent %lld on axis %d must be >= 1", (long long)s, d);
        if (ssize > ((int64_t)1 << 40) / s)
            return fv_error_set(FV_EINVAL, name, "structure is too large");
        ssize *= s;
        if (o < -(s / 2) || o > (s - 1) / 2)
            return fv_error_set(FV_EINVAL, name,
                                "invalid origin: origin[%d] = %lld is outside [%lld, %lld] "
                                "for a structure extent of %lld",
                                d, (long long)o, (long long)-(s / 2), (long long)((s - 1) / 2), (long long)s);
        p.sshape[d] = s;
        p.origins[d] = o;
        center = center * s + s / 2 + o; /* the element that reads the pixel itself */
    }
    p.structure = structure;
    p.border_value = border_value != 0;
    p.invert = invert != 0;
    const int cit = structure[center] != 0; /* scipy's center_is_true */

    if (fv_array_size(in) == 0)
        return FV_OK;
    if ((st = fv__array_as_1d(in, &in1)) || (st = fv__array_as_1d(out, &out1)))
        goto done;
    if (mask && (st = fv__array_as_1d(mask, &mask1)))
        goto done;
    if (fv__flood_eligible(&p, iterations, cit, in->device.type == FV_DEVICE_CUDA ? in->device.id : -1)) {
        st = fv__binary_flood(ctx, name, in1, mask1, out1, &p);
        goto done;
    }
    /* the mask is read in every pass: stage it when the output would clobber it,
     * and as contiguous bool when there are several passes (a contiguous one-byte
     * mask is read as it is: the kernels test mask != 0 either way) */
    const int mask_bytes = mask1 && fv__contiguous_bytes(mask1);
    if (mask1 && (fv__arrays_overlap(mask1, out1) || (iterations != 1 && !mask_bytes))) {
        if ((st = fv__bool_copy(ctx, name, mask1, &maskc)))
            goto done;
    } else if (mask1) {
        maskc = fv_array_ref(mask1);
    }
    /* the passes write `target`: the output, or a temporary when it overlaps the input */
    if (fv__arrays_overlap(in1, out1)) {
        if ((st = fv__temp(ctx, out1, out1->dtype, &target)))
            goto done;
    } else {
        target = fv_array_ref(out1);
    }
    if (iterations != 1 && (st = fv__temp(ctx, in1, FV_BOOL, &tmp)))
        goto done;

    /* Pass k (1-based) writes target when it is the last one's parity, else tmp.
     * iterations >= 1: the last pass is pass `iterations`. iterations < 1: passes
     * alternate target, tmp, target, ... and the one that changes nothing leaves
     * both buffers equal, so the result is in target either way. */
    {
        int64_t k = 1, limit = 0;
        int changed = 1, same = 0;
        const fv_array *src = in1;
        if (iterations < 1) { /* a structure without its centre can oscillate: scipy loops forever */
            limit = fv_array_size(in1) + 3;
        }
        for (;; k++) {
            fv_array *dst;
            if (iterations >= 1)
                dst = ((iterations - k) % 2 == 0) ? target : tmp;
            else
                dst = (k % 2 == 1) ? target : tmp;
            p.changed = iterations < 1 ? &changed : NULL;
            p.same_as_before = (iterations < 1 && !cit && k >= 3) ? &same : NULL;
            changed = 1;
            same = 0;
            if ((st = fv__run_BINARY_EROSION(ctx, src, maskc, dst, &p)))
                goto done;
            src = dst;
            if (iterations >= 1) {
                if (k >= iterations)
                    break;
            } else {
                if (!changed)
                    break;
                if (same || k >= limit) {
                    st = fv_error_set(FV_EINVAL, name,
                                      "iterations < 1: the passes never settle (they "
                                      "cycle; a structure without its centre element can do that, and "
                                      "scipy would loop forever)");
                    goto done;
                }
            }
        }
    }
    if (target != out1) {
        st = fv__run_COPY(ctx, target, NULL, out1, NULL);
    }
done:
    if (in->device.type == FV_DEVICE_CUDA) {
        fv__cuda_mark_use(ctx, tmp);
        fv__cuda_mark_use(ctx, target);
        fv__cuda_mark_use(ctx, maskc);
    }
    fv_array_unref(tmp);
    fv_array_unref(target);
    fv_array_unref(maskc);
    fv_array_unref(mask1);
    fv_array_unref(out1);
    fv_array_unref(in1);
    return st;
}

/* ---- distance transforms --------------------------------------------------------- */

/* Common checks of (in, distances, indices); *in_out receives the input the kernel
 * reads (staged when it overlaps an output) as a new reference. */
static fv_status
fv__distance_setup(fv_context *ctx, const char *name, const fv_array *in, fv_array *distances, fv_dtype dist_dt,
                   fv_array *indices, uint32_t index_dts, fv__distance_params *p, fv_array **in_out)
{
    fv_status st;
    *in_out = NULL;
    if (!in)
        return fv_error_set(FV_EINVAL, name, "NULL input");
    if (!distances && !indices)
        return fv_error_set(FV_EINVAL, name, "at least one of distances and indices must be given");
    const int nd = in->ndim > 0 ? in->ndim : 1;
    int64_t shape[FV_MAX_NDIM];
    for (int d = 0; d < nd; d++)
        shape[d] = in->ndim > 0 ? in->shape[d] : 1;
    if (distances) {
        if (distances->dtype != dist_dt)
            return fv_error_set(FV_EDTYPE, name, "distances must be %s, not %s", fv_dtype_name(dist_dt),
                                fv_dtype_name(distances->dtype));
        if (!fv__array_same_shape(in, distances))
            return fv_error_set(FV_EINVAL, name, "distances has wrong shape (it must equal the input's)");
        if ((st = fv__check_device(name, "distances", in, distances)))
            return st;
        if (distances->readonly)
            return fv_error_set(FV_EINVAL, name, "distances array is read-only");
    }
    if (indices) {
        if (!(index_dts & FV_DTYPE_BIT(indices->dtype)))
            return fv_error_set(FV_EDTYPE, name, "indices must be %s, not %s",
                                index_dts == FV_DTYPE_BIT(FV_INT32) ? "int32" : "int32 or int64",
                                fv_dtype_name(indices->dtype));
        int ok = indices->ndim == nd + 1 && indices->shape[0] == nd;
        for (int d = 0; ok && d < nd; d++)
            ok = indices->shape[d + 1] == shape[d];
        if (in->ndim == 0) /* (1,) or scipy's (1, 1) */
            ok = ok || (indices->ndim == 1 && indices->shape[0] == 1);
        if (!ok)
            return fv_error_set(FV_EINVAL, name,
                                "indices array has wrong shape (it must be (ndim,) + input "
                                "shape)");
        if ((st = fv__check_device(name, "indices", in, indices)))
            return st;
        if (indices->readonly)
            return fv_error_set(FV_EINVAL, name, "indices array is read-only");
        if (distances && fv__arrays_overlap(distances, indices))
            return fv_error_set(FV_EINVAL, name, "distances and indices overlap in memory");
    }
    for (int d = 0; d < nd; d++)
        if (shape[d] > INT32_MAX - 1)
            return fv_error_set(FV_EINVAL, name, "extent %lld on axis %d is too large (at most %d)",
                                (long long)shape[d], d, INT32_MAX - 1);
    p->ndim = nd;
    p->distances = distances;
    p->indices = indices;
    fv_array *in1 = NULL;
    if ((st = fv__array_as_1d(in, &in1)))
        return st;
    if (fv__arrays_overlap(in, distances) || fv__arrays_overlap(in, indices)) {
        fv_array *c = NULL;
        st = fv__bool_copy(ctx, name, in1, &c);
        fv_array_unref(in1);
        if (st)
            return st;
        in1 = c;
    }
    *in_out = in1;
    return FV_OK;
}

/* distances / indices as seen by the kernel: 0-d inputs as 1-d of one element. */
static fv_status
fv__distance_run(fv_context *ctx, fv__op op, const fv_array *in1, fv__distance_params *p, fv_array *distances,
                 fv_array *indices)
{
    fv_array *d1 = NULL, *i1 = NULL;
    fv_status st = FV_OK;
    if (distances && (st = fv__array_as_1d(distances, &d1)))
        goto done;
    if (indices) {
        if (indices->ndim == 1) { /* (1,) for a 0-d input -> (1, 1) */
            int64_t sh[2] = { 1, 1 }, stv[2] = { indices->strides[0], indices->strides[0] };
            if ((st = fv_array_view(indices, 2, sh, stv, 0, &i1)))
                goto done;
        } else {
            i1 = fv_array_ref(indices);
        }
    }
    p->distances = d1;
    p->indices = i1;
    if (fv_array_size(in1) > 0) {
        fv_array *fg = NULL;
        if ((st = fv__foreground(ctx, fv__op_name(op), in1, &fg)))
            goto done;
        fv__op_args a = { .in = fg, .out = d1 ? d1 : i1, .params = p };
        st = fv__dispatch(ctx, op, &a);
        fv_array_unref(fg);
    }
done:
    fv_array_unref(d1);
    fv_array_unref(i1);
    return st;
}

fv_status
fv_distance_transform_edt(fv_context *ctx, const fv_array *in, const double *sampling, fv_array *distances,
                          fv_array *indices)
{
    const char *name = "distance_transform_edt";
    fv__distance_params p;
    fv_array *in1 = NULL;
    memset(&p, 0, sizeof p);
    fv_status st = fv__distance_setup(ctx, name, in, distances, FV_FLOAT64, indices,
                                      FV_DTYPE_BIT(FV_INT32) | FV_DTYPE_BIT(FV_INT64), &p, &in1);
    if (st)
        return st;
    for (int d = 0; d < p.ndim; d++)
        p.sampling[d] = sampling ? sampling[d] : 1.0;
    st = fv__distance_run(ctx, FV__OP_EDT, in1, &p, distances, indices);
    fv_array_unref(in1);
    return st;
}

fv_status
fv_distance_transform_cdt(fv_context *ctx, const fv_array *in, const uint8_t *structure, const int64_t *sshape,
                          fv_array *distances, fv_array *indices)
{
    const char *name = "distance_transform_cdt";
    fv__distance_params p;
    fv_array *in1 = NULL;
    memset(&p, 0, sizeof p);
    if (in && !structure)
        return fv_error_set(FV_EINVAL, name, "structure (metric) is NULL");
    if (in && in->ndim > 0 && !sshape)
        return fv_error_set(FV_EINVAL, name, "structure shape is NULL");
    for (int d = 0; in && d < in->ndim; d++)
        if (sshape[d] != 3)
            return fv_error_set(FV_EINVAL, name, "metric sizes must be equal to 3 (axis %d has %lld)", d,
                                (long long)sshape[d]);
    fv_status st = fv__distance_setup(ctx, name, in, distances, FV_INT32, indices, FV_DTYPE_BIT(FV_INT32), &p, &in1);
    if (st)
        return st;
    for (int d = 0; d < p.ndim; d++)
        p.sshape[d] = 3;
    if (in->ndim == 0) { /* one element: the centre of a 3-element structure */
        static const uint8_t one[3] = { 0, 0, 0 };
        p.structure = one;
    } else {
        p.structure = structure;
    }
    st = fv__distance_run(ctx, FV__OP_CDT, in1, &p, distances, indices);
    fv_array_unref(in1);
    return st;
}
