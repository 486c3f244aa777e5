/* Core ops: astype, copy, add, multiply. Validate, derive, dispatch. */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "ops/core/elementwise.h"

static fv_status
fv__check_pair(const char *name, const fv_array *in, const fv_array *out)
{
    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (!fv__array_same_shape(in, out))
        return fv_error_set(FV_EINVAL, name, "input and output shapes differ (%d-d and %d-d, or extents)", in->ndim,
                            out->ndim);
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "output array is read-only");
    return FV_OK;
}

fv_status
fv_astype(fv_context *ctx, const fv_array *in, fv_array *out)
{
    fv_status st = fv__check_pair("astype", in, out);
    if (st)
        return st;
    fv__op_args a = { .in = in, .out = out };
    return fv__dispatch(ctx, in->dtype == out->dtype ? FV__OP_COPY : FV__OP_ASTYPE, &a);
}

/* A C-contiguous temporary like a's shape and dtype on device dev. */
static fv_status
fv__temp_like(fv_context *ctx, const fv_array *a, fv_dtype dt, fv_device dev, fv_array **out)
{
    return fv_array_new(ctx, dt, a->ndim, a->shape, dev, out);
}

fv_status
fv_copy(fv_context *ctx, const fv_array *in, fv_array *out)
{
    fv_status st = fv__check_pair("copy", in, out);
    fv_array *src_c = NULL, *dst_c = NULL;
    if (st)
        return st;
    if (in->dtype != out->dtype)
        return fv_error_set(FV_EDTYPE, "copy", "dtypes differ (%s -> %s): use fv_astype", fv_dtype_name(in->dtype),
                            fv_dtype_name(out->dtype));
    int same =
        in->device.type == out->device.type && (in->device.type == FV_DEVICE_CPU || in->device.id == out->device.id);
    if (same) {
        return fv__run_COPY(ctx, in, NULL, out, NULL);
    }
    if (fv_array_size(in) == 0)
        return FV_OK;
    /* across devices: contiguous staging on each side as needed, one bulk copy */
    if (fv_array_is_contiguous(in)) {
        src_c = fv_array_ref((fv_array *)in);
    } else {
        if ((st = fv__temp_like(ctx, in, in->dtype, in->device, &src_c)))
            goto done;
        if ((st = fv__run_COPY(ctx, in, NULL, src_c, NULL)))
            goto done;
    }
    if (fv_array_is_contiguous(out))
        dst_c = fv_array_ref(out);
    else if ((st = fv__temp_like(ctx, out, out->dtype, out->device, &dst_c)))
        goto done;
    if ((st =
             fv__cuda_memcpy(ctx, dst_c->data, dst_c->device, src_c->data, src_c->device, (size_t)fv_array_nbytes(in))))
        goto done;
    fv__cuda_mark_use(ctx, src_c);
    fv__cuda_mark_use(ctx, dst_c);
    if (dst_c != out) {
        st = fv__run_COPY(ctx, dst_c, NULL, out, NULL);
    }
done:
    fv_array_unref(src_c);
    fv_array_unref(dst_c);
    return st;
}

/* in converted to dt (a new reference; in itself when it already has dt). */
static fv_status
fv__as_dtype(fv_context *ctx, const fv_array *in, fv_dtype dt, fv_array **out)
{
    fv_status st;
    if (in->dtype == dt) {
        *out = fv_array_ref((fv_array *)in);
        return FV_OK;
    }
    if ((st = fv__temp_like(ctx, in, dt, in->device, out)))
        return st;
    if ((st = fv__run_ASTYPE(ctx, in, NULL, *out, NULL))) {
        fv_array_unref(*out);
        *out = NULL;
    }
    return st;
}

static fv_status
fv__binary(fv_context *ctx, fv__op op, const fv_array *a, const fv_array *b, fv_array *out)
{
    const char *name = fv__op_name(op);
    fv_array *ac = NULL, *bc = NULL;
    fv_status st;
    if (!a || !b || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    int nd;
    int64_t bshape[FV_MAX_NDIM];
    if ((st = fv_broadcast_shapes(a->ndim, a->shape, b->ndim, b->shape, &nd, bshape))) {
        char msg[512];
        const char *m = strchr(fv_error_message(), ':');
        snprintf(msg, sizeof msg, "%s", m ? m + 2 : fv_error_message());
        return fv_error_set(st, name, "%s", msg);
    }
    /* the output must have exactly the broadcast shape of the inputs */
    int ok = nd == out->ndim;
    for (int i = 0; ok && i < nd; i++)
        ok = bshape[i] == out->shape[i];
    if (!ok)
        return fv_error_set(FV_EINVAL, name, "output shape does not equal the broadcast shape of the inputs");
    if (a->device.type != out->device.type || b->device.type != out->device.type ||
        (out->device.type == FV_DEVICE_CUDA && (a->device.id != out->device.id || b->device.id != out->device.id)))
        return fv_error_set(FV_EDEVICE, name,
                            "arrays are on different devices (inputs and output must "
                            "share one; use fv_copy / fovea.to_device to move data)");
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "output array is read-only");
    /* the CPU kernels cast mixed inputs block by block (no temporaries); the
     * CUDA kernels take one dtype */
    if (out->device.type == FV_DEVICE_CPU) {
        ac = fv_array_ref((fv_array *)a);
        bc = fv_array_ref((fv_array *)b);
    } else if ((st = fv__as_dtype(ctx, a, out->dtype, &ac)) || (st = fv__as_dtype(ctx, b, out->dtype, &bc))) {
        goto done;
    }
    fv__op_args args = { .in = ac, .in2 = bc, .out = out };
    st = fv__dispatch(ctx, op, &args);
done:
    fv_array_unref(ac);
    fv_array_unref(bc);
    return st;
}

fv_status
fv_add(fv_context *ctx, const fv_array *a, const fv_array *b, fv_array *out)
{
    return fv__binary(ctx, FV__OP_ADD, a, b, out);
}

fv_status
fv_multiply(fv_context *ctx, const fv_array *a, const fv_array *b, fv_array *out)
{
    return fv__binary(ctx, FV__OP_MULTIPLY, a, b, out);
}
