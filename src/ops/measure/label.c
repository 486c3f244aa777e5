/* fv_label (skimage.measure.label, scipy.ndimage.label): validate, derive the
 * backward neighbour offsets from the structure or connectivity, make the
 * arrays contiguous, dispatch. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/core/elementwise.h"
#include "fovea/measure.h"
#include "ops/measure/label.h"
#include "ops/morphology/skmorphology.h" /* fv__skm_contig / run */

/* The bit pattern that a value of dt must have to equal bg after the int64
 * conversion; 0 when no value of dt converts to bg. */
static int
fv__label_bg_bits(fv_dtype dt, int64_t bg, uint64_t *bits)
{
    switch (dt) {
    case FV_BOOL:
        *bits = (uint64_t)bg;
        return bg == 0 || bg == 1;
    case FV_UINT8:
        *bits = (uint64_t)bg;
        return bg >= 0 && bg <= UINT8_MAX;
    case FV_UINT16:
        *bits = (uint64_t)bg;
        return bg >= 0 && bg <= UINT16_MAX;
    case FV_UINT32:
        *bits = (uint64_t)bg;
        return bg >= 0 && bg <= UINT32_MAX;
    case FV_INT8:
        *bits = (uint64_t)bg & 0xffu;
        return bg >= INT8_MIN && bg <= INT8_MAX;
    case FV_INT16:
        *bits = (uint64_t)bg & 0xffffu;
        return bg >= INT16_MIN && bg <= INT16_MAX;
    case FV_INT32:
        *bits = (uint64_t)bg & 0xffffffffu;
        return bg >= INT32_MIN && bg <= INT32_MAX;
    default:
        *bits = (uint64_t)bg;
        return 1; /* int64, uint64 (wraps like the C cast) */
    }
}

void
fv__label_rep_table(int nd, int nnb, const int8_t *nb, uint16_t *rep)
{
    uint32_t adj[FV__LABEL_REP_MAX];
    uint16_t low[1 << FV__LABEL_REP_MAX]; /* low[m]: the component of m's lowest member */

    /* adj[j]: the neighbours k whose offset from j, nb[k] - nb[j], is in the
     * structure: equal to a row of nb or to its negation */
    for (int j = 0; j < nnb; j++) {
        adj[j] = 0;
        for (int k = 0; k < nnb; k++) {
            for (int l = 0; l < nnb && k != j; l++) {
                int same = 1, neg = 1;
                for (int d = 0; d < nd; d++) {
                    int diff = nb[(size_t)k * nd + d] - nb[(size_t)j * nd + d];
                    same &= diff == nb[(size_t)l * nd + d];
                    neg &= diff == -nb[(size_t)l * nd + d];
                }
                if (same || neg) {
                    adj[j] |= 1u << k;
                    break;
                }
            }
        }
    }
    /* m = m' + its top member t: t joins the components of m' it touches;
     * the rest of m is m less its first component, a smaller set */
    rep[0] = low[0] = 0;
    for (uint32_t m = 1, top = 1, t = 0; m < (1u << nnb); m++) {
        if (m == top << 1) {
            top <<= 1;
            t++;
        }
        const uint32_t rest = m ^ top;
        uint32_t c = rest ? low[rest] : top;
        if (c & adj[t]) {
            c |= top;
            for (uint32_t r = rest & ~c; r; r &= ~(uint32_t)low[r])
                if (low[r] & adj[t])
                    c |= low[r];
        }
        low[m] = (uint16_t)c;
        rep[m] = (uint16_t)((m & (~m + 1)) | rep[m & ~c]);
    }
}

/* The backward half of a point-symmetric neighbour set (label-kernels.h). */
fv_status
fv__label_backward(const char *name, int nd, const uint8_t *structure, int connectivity, int8_t **nb_out, int *nnb_out)
{
    int ncells = 1, nnb = 0, nd1 = nd > 0 ? nd : 1;
    int8_t *nb;
    *nb_out = NULL;
    *nnb_out = 0;
    for (int d = 0; d < nd; d++)
        ncells *= 3;
    if (!(nb = malloc((size_t)ncells * (size_t)nd1)))
        return fv_error_set(FV_ENOMEM, name, "out of memory");
    for (int c = 0; c < ncells; c++) {
        int8_t o[FV_MAX_NDIM];
        int rest = c, hops = 0, mirror = 0, first = 0;
        for (int d = nd - 1; d >= 0; d--) {
            o[d] = (int8_t)(rest % 3 - 1);
            rest /= 3;
        }
        for (int d = 0; d < nd; d++) {
            hops += o[d] != 0;
            mirror = mirror * 3 + (1 - o[d]);
            if (!first && o[d])
                first = o[d];
        }
        int in_set;
        if (structure) {
            if ((structure[c] != 0) != (structure[mirror] != 0)) {
                free(nb);
                return fv_error_set(FV_EINVAL, name, "structure is not symmetric");
            }
            in_set = structure[c] != 0;
        } else {
            in_set = hops <= connectivity;
        }
        if (first == -1 && in_set) {
            memcpy(nb + (size_t)nnb * nd1, o, (size_t)nd1);
            nnb++;
        }
    }
    *nb_out = nb;
    *nnb_out = nnb;
    return FV_OK;
}

fv_status
fv_label(fv_context *ctx, const fv_array *image, fv_array *out, const uint8_t *structure, int connectivity,
         const int64_t *background, int nonzero, int64_t *num_labels)
{
    const char *name = "label";
    fv_array *img = NULL, *in = NULL, *out1 = NULL;
    int8_t *nb = NULL;
    fv_status st = FV_OK;

    if (num_labels)
        *num_labels = 0;
    if (!image || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (!fv__array_same_shape(image, out))
        return fv_error_set(FV_EINVAL, name, "out must have the image's shape");
    if (out->dtype != FV_INT32 && out->dtype != FV_INT64)
        return fv_error_set(FV_EDTYPE, name, "out must be int32 or int64, got %s", fv_dtype_name(out->dtype));
    if (!fv__array_same_device(image, out))
        return fv_error_set(FV_EDEVICE, name, "image and out are on different devices");
    if (fv__arrays_overlap(image, out))
        return fv_error_set(FV_EINVAL, name, "out must not overlap image");
    if (nonzero) {
        if (background)
            return fv_error_set(FV_EINVAL, name, "background is not used with nonzero = 1");
        if (image->dtype != FV_BOOL && !fv_dtype_is_integer(image->dtype) && !fv_dtype_is_float(image->dtype))
            return fv_error_set(FV_EDTYPE, name, "unsupported image dtype %s", fv_dtype_name(image->dtype));
    } else if (image->dtype != FV_BOOL && !fv_dtype_is_integer(image->dtype)) {
        return fv_error_set(FV_EDTYPE, name,
                            "image must be bool or an integer dtype, got %s "
                            "(convert it to int64 first, as skimage does)",
                            fv_dtype_name(image->dtype));
    }
    const int nd = image->ndim;
    if (!structure && nd > 0 && (connectivity < 1 || connectivity > nd))
        return fv_error_set(FV_EINVAL, name, "connectivity for a %d-d image must be in 1..%d, got %d", nd, nd,
                            connectivity);
    int64_t n = fv_array_size(image);
    if (out->dtype == FV_INT32 && n >= INT32_MAX - 1)
        return fv_error_set(FV_EINVAL, name, "%lld pixels are too many for int32 labels: use int64", (long long)n);

    int nnb = 0;
    if ((st = fv__label_backward(name, nd, structure, connectivity, &nb, &nnb)))
        return st;
    if (n == 0)
        goto done;

    if ((st = fv__array_as_1d(image, &img)) || (st = fv__array_as_1d(out, &out1)))
        goto done;
    if (nonzero && img->dtype != FV_BOOL) {
        if ((st = fv_array_new(ctx, FV_BOOL, img->ndim, img->shape, img->device, &in)))
            goto done;
        if ((st = fv__run_ASTYPE(ctx, img, NULL, in, NULL)))
            goto done;
    } else if ((st = fv__skm_contig(ctx, img, &in))) {
        goto done;
    }
    fv__label_params p = { .nnb = nnb, .nb = nb, .has_background = nonzero ? 1 : background != NULL };
    if (nonzero)
        p.background = 0;
    else if (background)
        p.has_background = fv__label_bg_bits(in->dtype, *background, &p.background);
    st = fv__skm_run(ctx, FV__OP_LABEL, in, NULL, out1, &p);
    if (st == FV_OK && num_labels)
        *num_labels = p.num;
done:
    fv_array_unref(in);
    fv_array_unref(img);
    fv_array_unref(out1);
    free(nb);
    return st;
}
