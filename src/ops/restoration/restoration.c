/* fv_denoise_tv_chambolle: validate, lay the image out as (nchan, n), run
 * the op TV_CHAMBOLLE. */
#include <string.h>
#include "internal.h"
#include "fovea/restoration.h"
#include "ops/morphology/skmorphology.h"
#include "ops/restoration/tv.h"

fv_status
fv_denoise_tv_chambolle(fv_context *ctx, const fv_array *in, fv_array *out, double weight, double eps,
                        int64_t max_iter, int channels)
{
    const char *name = "denoise_tv_chambolle";
    fv_array *i = NULL, *work = NULL;
    fv_status st;
    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (in->dtype != FV_FLOAT32 && in->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, name, "the image must be float32 or float64, got %s",
                            fv_dtype_name(in->dtype));
    if (out->dtype != in->dtype)
        return fv_error_set(FV_EDTYPE, name, "out must be %s, got %s", fv_dtype_name(in->dtype),
                            fv_dtype_name(out->dtype));
    if (!fv__array_same_shape(in, out))
        return fv_error_set(FV_EINVAL, name, "in and out shapes differ");
    if (!fv__array_same_device(in, out))
        return fv_error_set(FV_EDEVICE, name, "in and out are on different devices");
    const int c0 = channels ? 1 : 0;
    if (in->ndim - c0 < 1)
        return fv_error_set(FV_EINVAL, name, "the image needs at least one spatial dimension");
    if (!(weight > 0.0) || !(eps == eps))
        return fv_error_set(FV_EINVAL, name, "weight must be > 0 and eps a number");
    fv__tv_params p;
    memset(&p, 0, sizeof p);
    p.ndim = in->ndim - c0;
    p.nchan = c0 ? in->shape[0] : 1;
    p.n = 1;
    for (int d = p.ndim - 1; d >= 0; d--) {
        p.shape[d] = in->shape[d + c0];
        p.stride[d] = p.n;
        p.n *= p.shape[d];
    }
    p.weight = weight;
    p.eps = eps;
    p.max_iter = max_iter;
    if (fv_array_size(in) == 0 || max_iter < 1)
        return max_iter < 1 && fv_array_size(in) ? fv_copy(ctx, in, out) : FV_OK;
    if ((st = fv__skm_contig(ctx, in, &i)))
        goto done;
    const fv_array *ins[1] = {i};
    if ((st = fv__skm_work(ctx, out, ins, 1, &work)))
        goto done;
    st = fv__run_TV_CHAMBOLLE(ctx, i, NULL, work, &p);
    st = fv__skm_finish(ctx, st, work, out);
    work = NULL;
done:
    fv_array_unref(work);
    fv_array_unref(i);
    return st;
}
