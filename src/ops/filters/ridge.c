/* fv_hessian_ridge: validate the Hessian planes and the outputs, fill the job
 * (ops/filters/ridge-kernels.h) and dispatch FV__OP_HESSIAN_RIDGE pass by pass
 * to the backend that holds the data (cpu/filters/ridge-cpu.c,
 * cuda/filters/ridge.cu). MEIJERING runs two passes: the responses into work
 * with their max into scal, then the fold of work / max into acc; the max never
 * leaves the device. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "fovea/filters.h"
#include "ops/filters/ridge.h"

/* a has h0's dtype, shape and device and is C-contiguous. */
static fv_status
fv__ridge_check_like(const char *name, const char *what, const fv_array *a, const fv_array *h0)
{
    if (a->dtype != h0->dtype)
        return fv_error_set(FV_EDTYPE, name, "%s is %s but the Hessian planes are %s", what, fv_dtype_name(a->dtype),
                            fv_dtype_name(h0->dtype));
    if (!fv__array_same_shape(a, h0))
        return fv_error_set(FV_EINVAL, name, "%s must have the Hessian planes' shape", what);
    if (!fv__array_same_device(a, h0))
        return fv_error_set(FV_EDEVICE, name, "%s is not on the Hessian planes' device", what);
    if (!fv_array_is_contiguous(a))
        return fv_error_set(FV_EINVAL, name, "%s must be C-contiguous", what);
    return FV_OK;
}

/* An output plane (acc, work; not NULL): like h0, and writable. */
static fv_status
fv__ridge_check_out(const char *name, const char *what, const fv_array *a, const fv_array *h0)
{
    fv_status st = fv__ridge_check_like(name, what, a, h0);
    if (st == FV_OK && a->readonly)
        st = fv_error_set(FV_EINVAL, name, "%s is read-only", what);
    return st;
}

fv_status
fv_hessian_ridge(fv_context *ctx, const fv_array *const *h, int nh, fv_array *acc, fv_array *work, fv_array *scal,
                 const fv_ridge_params *p)
{
    const char *name = "hessian_ridge";
    fv_status st;
    if (!p)
        return fv_error_set(FV_EINVAL, name, "NULL params");
    if ((unsigned)p->filter > (unsigned)FV_RIDGE_NORM_MAX)
        return fv_error_set(FV_EINVAL, name, "unknown filter %d", (int)p->filter);
    if (!h || (nh != 3 && nh != 6))
        return fv_error_set(FV_EINVAL, name, "needs 3 (2-d) or 6 (3-d) Hessian planes, got %d", h ? nh : 0);
    const int ndim = nh == 3 ? 2 : 3;
    for (int k = 0; k < nh; k++)
        if (!h[k])
            return fv_error_set(FV_EINVAL, name, "NULL Hessian plane %d", k);
    const fv_array *h0 = h[0];
    if (h0->dtype != FV_FLOAT32 && h0->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, name, "the Hessian planes must be float32 or float64, got %s",
                            fv_dtype_name(h0->dtype));
    if (h0->ndim != ndim)
        return fv_error_set(FV_EINVAL, name, "%d planes need %d-d arrays, got %d-d", nh, ndim, h0->ndim);
    for (int k = 0; k < nh; k++)
        if ((st = fv__ridge_check_like(name, "a Hessian plane", h[k], h0)) != FV_OK)
            return st;
    const int filter = (int)p->filter;
    const int needs_acc = filter != FV_RIDGE_NORM_MAX;
    const int needs_work = filter == FV_RIDGE_MEIJERING;
    const int gamma_from_scal = filter == FV_RIDGE_FRANGI && isnan(p->gamma);
    const int needs_scal = filter == FV_RIDGE_NORM_MAX || filter == FV_RIDGE_MEIJERING || gamma_from_scal;
    if (needs_acc) {
        if (!acc)
            return fv_error_set(FV_EINVAL, name, "NULL acc");
        if ((st = fv__ridge_check_out(name, "acc", acc, h0)) != FV_OK)
            return st;
        for (int k = 0; k < nh; k++)
            if (fv__arrays_overlap(acc, h[k]))
                return fv_error_set(FV_EINVAL, name, "acc must not overlap the Hessian planes");
    }
    if (needs_work) {
        if (!work)
            return fv_error_set(FV_EINVAL, name, "NULL work (meijering)");
        if ((st = fv__ridge_check_out(name, "work", work, h0)) != FV_OK)
            return st;
        if (fv__arrays_overlap(work, acc))
            return fv_error_set(FV_EINVAL, name, "work must not overlap acc");
        for (int k = 0; k < nh; k++)
            if (work->data != h[k]->data && fv__arrays_overlap(work, h[k]))
                return fv_error_set(FV_EINVAL, name, "work must be one of the Hessian planes or not overlap them");
    }
    if (needs_scal) {
        if (!scal)
            return fv_error_set(FV_EINVAL, name, "NULL scal");
        if (scal->dtype != h0->dtype)
            return fv_error_set(FV_EDTYPE, name, "scal is %s but the Hessian planes are %s", fv_dtype_name(scal->dtype),
                                fv_dtype_name(h0->dtype));
        if (!fv__array_same_device(scal, h0))
            return fv_error_set(FV_EDEVICE, name, "scal is not on the Hessian planes' device");
        if (fv_array_size(scal) != 1)
            return fv_error_set(FV_EINVAL, name, "scal must hold one element, got %lld",
                                (long long)fv_array_size(scal));
        if (!gamma_from_scal && scal->readonly)
            return fv_error_set(FV_EINVAL, name, "scal is read-only");
        for (int k = 0; k < nh; k++)
            if (fv__arrays_overlap(scal, h[k]) && !gamma_from_scal)
                return fv_error_set(FV_EINVAL, name, "scal must not overlap the Hessian planes");
        if ((needs_acc && fv__arrays_overlap(scal, acc)) || (needs_work && fv__arrays_overlap(scal, work)))
            return fv_error_set(FV_EINVAL, name, "scal must not overlap acc or work");
    }

    fv__ridge_job job;
    memset(&job, 0, sizeof job);
    job.filter = filter;
    job.ndim = ndim;
    job.is_double = h0->dtype == FV_FLOAT64;
    job.gamma_from_scal = gamma_from_scal;
    job.alpha_den = 2 * p->alpha * p->alpha;
    job.beta_den = 2 * p->beta * p->beta;
    job.gamma_den = gamma_from_scal ? 0 : 2 * p->gamma * p->gamma;
    job.sigma2 = p->sigma * p->sigma;
    job.malpha = p->alpha;
    job.n = fv_array_size(h0);
    for (int k = 0; k < nh; k++)
        job.h[k] = h[k]->data;
    job.acc = needs_acc ? acc->data : NULL;
    job.work = needs_work ? work->data : NULL;
    job.scal = needs_scal ? scal->data : NULL;

    fv__op_args a = { .in = h0, .in2 = NULL, .out = NULL, .params = &job };
    switch (filter) {
    case FV_RIDGE_NORM_MAX:
        job.pass = FV__RIDGE_PASS_NORM;
        a.out = scal;
        st = fv__dispatch(ctx, FV__OP_HESSIAN_RIDGE, &a);
        break;
    case FV_RIDGE_MEIJERING:
        job.pass = FV__RIDGE_PASS_MEIJ;
        a.out = work;
        a.in2 = scal;
        if ((st = fv__dispatch(ctx, FV__OP_HESSIAN_RIDGE, &a)) != FV_OK)
            break;
        job.pass = FV__RIDGE_PASS_MEIJ_FOLD;
        a.in = work;
        a.out = acc;
        st = fv__dispatch(ctx, FV__OP_HESSIAN_RIDGE, &a);
        break;
    default:
        job.pass = FV__RIDGE_PASS_FOLD;
        a.out = acc;
        a.in2 = gamma_from_scal ? scal : NULL;
        st = fv__dispatch(ctx, FV__OP_HESSIAN_RIDGE, &a);
        break;
    }
    /* dispatch ordered the frees of in, in2 and out after the work; the other
     * planes too */
    if (fv__array_backend(h0) == FV__BACKEND_CUDA)
        for (int k = 1; k < nh; k++)
            fv__cuda_mark_use(ctx, h[k]);
    return st;
}
