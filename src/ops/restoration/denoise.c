/* fv_denoise_tv_chambolle: validate, lay the image out as (nchan, n), run
 * the op TV_CHAMBOLLE. fv_denoise_nl_means: validate, run NL_MEANS.
 * fv_denoise_tv_bregman: validate, run TV_BREGMAN. fv_unwrap_gather: validate,
 * run UNWRAP_GATHER. */
#include <string.h>
#include "internal.h"
#include "fovea/denoise.h"
#include "ops/morphology/skmorphology.h"
#include "ops/restoration/tv.h"
#include "ops/restoration/nlm.h"
#include "ops/restoration/bregman.h"
#include "ops/restoration/unwrap.h"

fv_status
fv_denoise_tv_chambolle(fv_context *ctx, const fv_array *in, fv_array *out, double weight, double eps, int64_t max_iter,
                        int channels)
{
    const char *name = "denoise_tv_chambolle";
    fv_array *i = NULL;
    fv_status st;
    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (in->dtype != FV_FLOAT32 && in->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, name, "the image must be float32 or float64, got %s", fv_dtype_name(in->dtype));
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
    /* a contiguous input, a contiguous output not overlapping it (copied back after) */
    st = fv__skm_contig(ctx, in, &i);
    if (st == FV_OK)
        st = fv__skm_run(ctx, FV__OP_TV_CHAMBOLLE, i, NULL, out, &p);
    fv_array_unref(i);
    return st;
}

fv_status
fv_denoise_nl_means(fv_context *ctx, const fv_array *padded, const fv_array *w, fv_array *out, int64_t s, int64_t d,
                    double var)
{
    const char *name = "denoise_nl_means";
    if (!padded || !w || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    const fv_dtype dt = padded->dtype;
    if ((dt != FV_FLOAT32 && dt != FV_FLOAT64) || w->dtype != dt || out->dtype != dt)
        return fv_error_set(FV_EDTYPE, name, "padded, w and out must all be float32 or all float64");
    const int nd = out->ndim - 1;
    if ((nd != 2 && nd != 3) || padded->ndim != out->ndim || w->ndim != nd)
        return fv_error_set(FV_EINVAL, name, "2-d or 3-d images with a channel axis last");
    if (s < 1 || !(s & 1) || d < 0)
        return fv_error_set(FV_EINVAL, name, "the patch size must be odd and positive, the distance >= 0");
    const int64_t nc = out->shape[nd];
    if (nc < 1 || nc > 64 || padded->shape[nd] != nc)
        return fv_error_set(FV_EINVAL, name, "1 to 64 channels, the same in padded and out");
    fv__nlm_params p = { .ndim = nd, .nc = nc, .s = s, .d = d, .var2 = 2.0 * var };
    for (int k = 0; k < nd; k++) {
        if (padded->shape[k] != out->shape[k] + 2 * (s / 2) || w->shape[k] != s)
            return fv_error_set(FV_EINVAL, name, "padded must be out padded by s // 2, w of shape (s,) * ndim");
        p.shape[k] = out->shape[k];
    }
    if (!fv_array_is_contiguous(padded) || !fv_array_is_contiguous(w) || !fv_array_is_contiguous(out))
        return fv_error_set(FV_EINVAL, name, "arrays must be C-contiguous");
    if (fv_array_size(out) == 0)
        return FV_OK;
    return fv__run_NL_MEANS(ctx, padded, w, out, &p);
}

fv_status
fv_denoise_tv_bregman(fv_context *ctx, const fv_array *in, fv_array *out, double weight, int64_t max_iter, double eps,
                      int isotropic)
{
    const char *name = "denoise_tv_bregman";
    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if ((in->dtype != FV_FLOAT32 && in->dtype != FV_FLOAT64) || out->dtype != in->dtype)
        return fv_error_set(FV_EDTYPE, name, "in and out must both be float32 or float64");
    if (in->ndim != 3 || out->ndim != 3 || out->shape[0] != in->shape[0] + 2 || out->shape[1] != in->shape[1] + 2 ||
        out->shape[2] != in->shape[2])
        return fv_error_set(FV_EINVAL, name, "in (rows, cols, dims) and out (rows + 2, cols + 2, dims)");
    if (in->shape[0] < 2 || in->shape[1] < 2)
        return fv_error_set(FV_EINVAL, name, "the image needs at least 2 rows and 2 columns");
    if (!fv_array_is_contiguous(in) || !fv_array_is_contiguous(out))
        return fv_error_set(FV_EINVAL, name, "arrays must be C-contiguous");
    if (fv__arrays_overlap(in, out))
        return fv_error_set(FV_EINVAL, name, "in and out overlap");
    const fv__bregman_params p = { weight, eps, max_iter, isotropic != 0 };
    if (fv_array_size(in) == 0)
        return FV_OK;
    return fv__run_TV_BREGMAN(ctx, in, NULL, out, &p);
}

fv_status
fv_unwrap_gather(fv_context *ctx, const fv_array *edges, fv_array *increments)
{
    const char *name = "unwrap_phase";
    if (!edges || !increments)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (edges->dtype != FV_INT64 || increments->dtype != FV_INT64)
        return fv_error_set(FV_EDTYPE, name, "edges and increments must be int64");
    if (edges->ndim != 2 || edges->shape[1] != 3 || increments->ndim != 1)
        return fv_error_set(FV_EINVAL, name, "edges (m, 3) and increments (n,)");
    if (!fv_array_is_contiguous(edges) || !fv_array_is_contiguous(increments))
        return fv_error_set(FV_EINVAL, name, "arrays must be C-contiguous");
    const fv__unwrap_params p = { increments->shape[0], edges->shape[0] };
    if (p.n == 0)
        return FV_OK;
    return fv__run_UNWRAP_GATHER(ctx, edges, NULL, increments, &p);
}

fv_status
fv_denoise_nl_means_fast(fv_context *ctx, const fv_array *padded, fv_array *out, int64_t s, int64_t d, double h,
                         double var)
{
    const char *name = "denoise_nl_means";
    if (!padded || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (padded->dtype != FV_FLOAT64 || out->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, name, "padded and out must be float64");
    const int nd = padded->ndim - 1;
    if (nd < 2 || nd > 4 || !fv__array_same_shape(padded, out))
        return fv_error_set(FV_EINVAL, name, "2-d to 4-d images with a channel axis last, out of padded's shape");
    if (s < 1 || !(s & 1) || d < 0 || !(h > 0.0))
        return fv_error_set(FV_EINVAL, name, "the patch size must be odd and positive, the distance >= 0, h > 0");
    if (padded->shape[nd] < 1 || padded->shape[nd] > 64)
        return fv_error_set(FV_EINVAL, name, "1 to 64 channels");
    if (!fv_array_is_contiguous(padded) || !fv_array_is_contiguous(out) || fv__arrays_overlap(padded, out))
        return fv_error_set(FV_EINVAL, name, "padded and out must be C-contiguous and apart");
    fv__nlmf_params p = { .ndim = nd, .nc = padded->shape[nd], .s = s, .d = d, .h = h, .var2 = 2.0 * var };
    for (int k = 0; k < nd; k++)
        p.shape[k] = padded->shape[k];
    if (fv_array_size(out) == 0)
        return FV_OK;
    return fv__run_NL_MEANS_FAST(ctx, padded, NULL, out, &p);
}
