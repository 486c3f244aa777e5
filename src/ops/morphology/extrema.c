/* fv_local_maxima (the core of skimage.morphology.local_maxima / local_minima):
 * validate, derive the neighbour offsets, dispatch. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fovea/skmorphology.h"
#include "ops/morphology/extrema.h"
#include "ops/morphology/skmorphology.h"

fv_status
fv_local_maxima(fv_context *ctx, const fv_array *image, fv_array *out, const uint8_t *footprint, int minima)
{
    const char *name = "local_maxima";
    fv_array *in = NULL;
    fv_status st = FV_OK;
    /* at most 3^8 - 1 neighbours of 8 coordinates */
    static const int64_t maxnb = 6560;
    int64_t *nb = NULL;

    if (!image || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (image->ndim < 1)
        return fv_error_set(FV_EINVAL, name, "image must have at least one dimension");
    if (out->ndim != image->ndim || memcmp(out->shape, image->shape, sizeof(int64_t) * (size_t)image->ndim))
        return fv_error_set(FV_EINVAL, name, "out must have the image's shape");
    if (out->dtype != FV_BOOL && out->dtype != FV_UINT8)
        return fv_error_set(FV_EDTYPE, name, "out must be bool or uint8, got %s", fv_dtype_name(out->dtype));
    const int nd = image->ndim;
    int64_t fsize = 1;
    for (int d = 0; d < nd; d++)
        fsize *= 3;
    if (!(nb = malloc((size_t)maxnb * (size_t)nd * sizeof *nb)))
        return fv_error_set(FV_ENOMEM, name, "out of memory");
    fv__local_maxima_params p;
    memset(&p, 0, sizeof p);
    p.minima = minima != 0;
    /* offsets in C order of the footprint, the centre left out */
    int64_t fs[FV_MAX_NDIM], off[FV_MAX_NDIM];
    for (int d = 0; d < nd; d++)
        fs[d] = 3, off[d] = 1;
    p.nnb = fv__skm_offsets(footprint, nd, fs, off, nb);
    /* point-symmetric: footprint[j] == footprint[fsize - 1 - j] */
    p.symmetric = 1;
    for (int64_t j = 0; footprint && j < fsize; j++)
        if ((footprint[j] != 0) != (footprint[fsize - 1 - j] != 0) && j != fsize / 2)
            p.symmetric = 0;
    /* scikit-image's shortcut: candidates from a scan along the last axis when
     * both neighbours along it belong to the footprint */
    int has_prev = 0, has_next = 0;
    for (int k = 0; k < p.nnb; k++) {
        int on_last = 1;
        for (int d = 0; d < nd - 1; d++)
            on_last &= nb[(int64_t)k * nd + d] == 0;
        if (on_last) {
            has_prev |= nb[(int64_t)k * nd + nd - 1] == -1;
            has_next |= nb[(int64_t)k * nd + nd - 1] == 1;
        }
    }
    p.scan_last = has_prev && has_next;
    p.nb = nb;
    if (fv_array_size(image) == 0)
        goto done;
    if ((st = fv__skm_contig(ctx, image, &in)))
        goto done;
    st = fv__skm_run(ctx, FV__OP_LOCAL_MAXIMA, in, NULL, out, &p);
done:
    fv_array_unref(in);
    free(nb);
    return st;
}
