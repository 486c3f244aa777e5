/* fv_gradient_norm: validate the parts and out, fold their common geometry into
 * the job (ops/filters/gradnorm-kernels.h) and dispatch FV__OP_GRADIENT_NORM to
 * the backend that holds the data (cpu/filters/gradnorm-cpu.c,
 * cuda/filters/gradnorm.cu). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "fovea/filters.h"
#include "ops/filters/gradnorm.h"

/* 1 when a and b are the same elements: same data pointer and, on every axis of
 * extent > 1, the same stride (a and b have one shape). */
static int
fv__gradnorm_same_layout(const fv_array *a, const fv_array *b)
{
    if (a->data != b->data)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] > 1 && a->strides[i] != b->strides[i])
            return 0;
    return 1;
}

/* The common geometry of out and the parts (one shape): extent-1 axes dropped,
 * neighbouring axes merged where every operand is contiguous across them. */
static void
fv__gradnorm_geom(fv__gradnorm_job *j, const fv_array *const *ops, int nops)
{
    const fv_array *o = ops[0];
    int64_t size = 1;
    for (int i = 0; i < o->ndim; i++)
        size *= o->shape[i];
    j->size = size;
    for (int k = 0; k < nops; k++)
        j->ptr[k] = ops[k]->data;
    if (size == 0) {
        j->ndim = 1;
        j->shape[0] = 0;
        for (int k = 0; k < nops; k++)
            j->strides[k][0] = (int64_t)fv_dtype_size(o->dtype);
        return;
    }
    int m = 0;
    for (int i = 0; i < o->ndim; i++) {
        const int64_t n = o->shape[i];
        if (n == 1)
            continue;
        if (m > 0) {
            int merge = 1;
            for (int k = 0; k < nops && merge; k++)
                if (j->strides[k][m - 1] != ops[k]->strides[i] * n)
                    merge = 0;
            if (merge) {
                j->shape[m - 1] *= n;
                for (int k = 0; k < nops; k++)
                    j->strides[k][m - 1] = ops[k]->strides[i];
                continue;
            }
        }
        j->shape[m] = n;
        for (int k = 0; k < nops; k++)
            j->strides[k][m] = ops[k]->strides[i];
        m++;
    }
    if (m == 0) { /* one element */
        j->shape[0] = 1;
        for (int k = 0; k < nops; k++)
            j->strides[k][0] = (int64_t)fv_dtype_size(o->dtype);
        m = 1;
    }
    j->ndim = m;
}

fv_status
fv_gradient_norm(fv_context *ctx, const fv_array *const *parts, int nparts, double div, fv_array *out)
{
    const char *name = "gradient_norm";
    if (!parts || nparts < 1 || nparts > FV__GRADNORM_MAX_PARTS)
        return fv_error_set(FV_EINVAL, name, "needs 1 to %d parts, got %d", FV__GRADNORM_MAX_PARTS, parts ? nparts : 0);
    for (int k = 0; k < nparts; k++)
        if (!parts[k])
            return fv_error_set(FV_EINVAL, name, "NULL part %d", k);
    if (!out)
        return fv_error_set(FV_EINVAL, name, "NULL out");
    const fv_array *p0 = parts[0];
    if (p0->dtype != FV_FLOAT32 && p0->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, name, "the parts must be float32 or float64, got %s", fv_dtype_name(p0->dtype));
    for (int k = 0; k <= nparts; k++) {
        const fv_array *a = k < nparts ? parts[k] : out;
        char what[32];
        if (k < nparts)
            snprintf(what, sizeof what, "part %d", k);
        else
            snprintf(what, sizeof what, "out");
        if (a->dtype != p0->dtype)
            return fv_error_set(FV_EDTYPE, name, "%s is %s but part 0 is %s (one float dtype for all)", what,
                                fv_dtype_name(a->dtype), fv_dtype_name(p0->dtype));
        if (!fv__array_same_shape(a, p0))
            return fv_error_set(FV_EINVAL, name, "%s's shape differs from part 0's (one shape for all)", what);
        if (!fv__array_same_device(a, p0))
            return fv_error_set(FV_EDEVICE, name,
                                "%s is not on part 0's device (use fv_copy / "
                                "fovea.to_device to move data)",
                                what);
    }
    if (isnan(div) || div <= 0)
        return fv_error_set(FV_EINVAL, name, "div = %g must be > 0 (1: no division)", div);
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "out is read-only");
    if (!fv__array_no_self_overlap(out))
        return fv_error_set(FV_EINVAL, name, "out has elements that share memory (e.g. a stride of 0)");
    for (int k = 0; k < nparts; k++)
        if (fv__arrays_overlap(out, parts[k]) && !fv__gradnorm_same_layout(out, parts[k]))
            return fv_error_set(FV_EINVAL, name,
                                "out overlaps part %d: it must be one of the parts itself "
                                "(same data and strides) or not overlap them",
                                k);

    fv__gradnorm_job job;
    memset(&job, 0, sizeof job);
    const fv_array *ops[FV__GRADNORM_MAX_PARTS + 1];
    ops[0] = out;
    for (int k = 0; k < nparts; k++)
        ops[k + 1] = parts[k];
    job.is_double = p0->dtype == FV_FLOAT64;
    job.nparts = nparts;
    job.has_div = div != 1;
    job.div = div;
    fv__gradnorm_geom(&job, ops, nparts + 1);

    fv_status st = fv__run_GRADIENT_NORM(ctx, p0, nparts > 1 ? parts[1] : NULL, out, &job);
    /* dispatch ordered the frees of in, in2 and out after the work; the other parts too */
    if (fv__array_backend(p0) == FV__BACKEND_CUDA)
        for (int k = 2; k < nparts; k++)
            fv__cuda_mark_use(ctx, parts[k]);
    return st;
}
