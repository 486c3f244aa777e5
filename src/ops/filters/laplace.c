/* fv_laplace: validate, fold the arguments into the job
 * (ops/filters/laplace-kernels.h) and dispatch FV__OP_LAPLACE to the backend
 * that holds the data (cpu/filters/laplace-cpu.c, cuda/filters/laplace.cu).
 * Without axes it is scipy's copy (fv__ndi_assign); when out shares memory with
 * in, the kernels read a copy of in (as fv_correlate1d does). */
#include <string.h>
#include "internal.h"
#include "ops/filters/filter1d.h"
#include "ops/filters/ndimage-math.h"
#include "fovea/filters.h"
#include "ops/filters/filters-ops.h"
#include "ops/filters/laplace.h"

fv_status
fv_laplace(fv_context *ctx, const fv_array *in, fv_array *out, const int *axes, int naxes, const fv_mode *modes,
           double cval)
{
    const char *name = "laplace";
    fv_status st;
    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL %s", in ? "out" : "in");
    if (!fv_dtype_is_valid(in->dtype) || !fv_dtype_is_valid(out->dtype))
        return fv_error_set(FV_EDTYPE, name, "invalid dtype");
    if (!fv__array_same_shape(in, out))
        return fv_error_set(FV_EINVAL, name, "input and output shapes differ");
    if (!fv__array_same_device(in, out))
        return fv_error_set(FV_EDEVICE, name,
                            "input and output are on different devices (use fv_copy / "
                            "fovea.to_device to move data)");
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "output array is read-only");
    if (naxes < 0 || naxes > in->ndim)
        return fv_error_set(FV_EINVAL, name, "naxes = %d: 0 to %d axes for a %d-d array", naxes, in->ndim, in->ndim);
    if (naxes > 0 && (!axes || !modes))
        return fv_error_set(FV_EINVAL, name, "%s is NULL", axes ? "modes" : "axes");
    for (int k = 0; k < naxes; k++) {
        if (axes[k] < 0 || axes[k] >= in->ndim)
            return fv_error_set(FV_EINVAL, name, "axis %d is out of range for a %d-d array", axes[k], in->ndim);
        for (int i = 0; i < k; i++)
            if (axes[i] == axes[k])
                return fv_error_set(FV_EINVAL, name, "axes must be unique (axis %d is listed twice)", axes[k]);
        if ((unsigned)modes[k] >= FV_MODE_COUNT)
            return fv_error_set(FV_EINVAL, name, "invalid mode %d for axis %d", (int)modes[k], axes[k]);
    }
    if (!fv__array_no_self_overlap(out))
        return fv_error_set(FV_EINVAL, name, "out has elements that share memory (e.g. a stride of 0)");
    if (fv_array_size(out) == 0)
        return FV_OK;
    if (naxes == 0)
        return fv__ndi_assign(ctx, in, out);

    fv_array *src = NULL;
    if ((st = fv__ndi_source(ctx, in, out, &src)))
        return st;
    fv__laplace_job job;
    memset(&job, 0, sizeof job);
    job.ndim = in->ndim;
    job.idtype = in->dtype;
    job.odtype = out->dtype;
    job.size = fv_array_size(out);
    for (int d = 0; d < in->ndim; d++) {
        job.shape[d] = in->shape[d];
        job.istrides[d] = src->strides[d];
        job.ostrides[d] = out->strides[d];
    }
    job.in = src->data;
    job.out = out->data;
    job.naxes = naxes;
    for (int k = 0; k < naxes; k++) {
        const int64_t n = in->shape[axes[k]];
        job.axes[k] = axes[k];
        job.lo[k] = fv__extend_index(-1, n, (int)modes[k]);
        job.hi[k] = fv__extend_index(n, n, (int)modes[k]);
    }
    job.cval = cval;
    st = fv__run_LAPLACE(ctx, src, NULL, out, &job);
    fv_array_unref(src);
    return st;
}
