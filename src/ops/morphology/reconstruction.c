/* fv_reconstruction (skimage.morphology.reconstruction): validate, derive the
 * neighbour offsets, dispatch. Also the contiguous-array helpers that the
 * scikit-image morphology ops share (skmorphology-kernels.h). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fovea/skmorphology.h"
#include "ops/morphology/reconstruction.h"
#include "ops/morphology/skmorphology.h"

/* ---- shared helpers ---------------------------------------------------------- */

fv_status
fv__skm_contig(fv_context *ctx, const fv_array *a, fv_array **c)
{
    fv_status st;
    *c = NULL;
    if (fv_array_is_contiguous(a)) {
        *c = fv_array_ref((fv_array *)a);
        return FV_OK;
    }
    if ((st = fv_array_new(ctx, a->dtype, a->ndim, a->shape, a->device, c)))
        return st;
    if ((st = fv_copy(ctx, a, *c))) {
        fv_array_unref(*c);
        *c = NULL;
    }
    return st;
}

static fv_status
fv__skm_work(fv_context *ctx, fv_array *out, const fv_array *const *ins, int nin, fv_array **work)
{
    int ok = fv_array_is_contiguous(out);
    for (int i = 0; ok && i < nin; i++)
        ok = !fv__arrays_overlap(out, ins[i]);
    *work = NULL;
    if (ok) {
        *work = fv_array_ref(out);
        return FV_OK;
    }
    return fv_array_new(ctx, out->dtype, out->ndim, out->shape, out->device, work);
}

fv_status
fv__skm_run(fv_context *ctx, fv__op op, const fv_array *in, const fv_array *in2, fv_array *out, void *params)
{
    fv_array *work = NULL;
    const fv_array *ins[2] = { in, in2 };
    fv_status st = fv__skm_work(ctx, out, ins, in2 ? 2 : 1, &work);
    if (st)
        return st;
    fv__op_args a = { .in = in, .in2 = in2, .out = work, .params = params };
    st = fv__dispatch(ctx, op, &a);
    if (st == FV_OK && work != out)
        st = fv_copy(ctx, work, out);
    fv_array_unref(work);
    return st;
}

int
fv__skm_offsets(const uint8_t *footprint, int nd, const int64_t *fs, const int64_t *off, int64_t *nb)
{
    int64_t fsize = 1;
    int n = 0;
    for (int d = 0; d < nd; d++)
        fsize *= fs[d];
    for (int64_t j = 0; j < fsize; j++) {
        if (footprint && !footprint[j])
            continue;
        int64_t rem = j, c[FV_MAX_NDIM];
        int centre = 1;
        for (int d = nd - 1; d >= 0; d--) {
            c[d] = rem % fs[d] - off[d];
            rem /= fs[d];
            centre &= c[d] == 0;
        }
        if (centre)
            continue;
        memcpy(nb + (int64_t)n * nd, c, sizeof(int64_t) * (size_t)nd);
        n++;
    }
    return n;
}

fv_status
fv__skm_footprint_offsets(const char *name, int nd, const uint8_t *footprint, const int64_t *fshape,
                          const int64_t *offset, int64_t **nb, int *nnb)
{
    int64_t fs[FV_MAX_NDIM], off[FV_MAX_NDIM], fsize = 1;
    *nb = NULL;
    *nnb = 0;
    if ((footprint == NULL) != (fshape == NULL))
        return fv_error_set(FV_EINVAL, name, "footprint and fshape must both be given or both be NULL");
    for (int d = 0; d < nd; d++) {
        fs[d] = fshape ? fshape[d] : 3;
        if (fs[d] < 1 || fs[d] > (int64_t)1 << 20)
            return fv_error_set(FV_EINVAL, name, "footprint extent %lld along axis %d is out of range",
                                (long long)fs[d], d);
        if (offset) {
            off[d] = offset[d];
            if (off[d] < 0 || off[d] >= fs[d])
                return fv_error_set(FV_EINVAL, name,
                                    "offset must be inside the footprint (axis %d: %lld "
                                    "not in [0, %lld))",
                                    d, (long long)off[d], (long long)fs[d]);
        } else {
            if (fs[d] % 2 == 0)
                return fv_error_set(FV_EINVAL, name, "footprint dimensions must all be odd without an offset");
            off[d] = fs[d] / 2;
        }
        if (fsize > INT32_MAX / fs[d])
            return fv_error_set(FV_EINVAL, name, "footprint too large");
        fsize *= fs[d];
    }
    if (!(*nb = malloc((size_t)fsize * (size_t)(nd ? nd : 1) * sizeof **nb)))
        return fv_error_set(FV_ENOMEM, name, "out of memory");
    *nnb = fv__skm_offsets(footprint, nd, fs, off, *nb);
    return FV_OK;
}

/* ---- reconstruction ------------------------------------------------------------ */

fv_status
fv_reconstruction(fv_context *ctx, const fv_array *seed, const fv_array *mask, fv_array *out,
                  fv_reconstruction_method method, const uint8_t *footprint, const int64_t *fshape,
                  const int64_t *offset)
{
    const char *name = "reconstruction";
    fv_array *s = NULL, *m = NULL;
    int64_t *nb = NULL;
    fv_status st = FV_OK;

    if (!seed || !mask || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (!fv__array_same_shape(seed, mask) || !fv__array_same_shape(seed, out))
        return fv_error_set(FV_EINVAL, name, "seed, mask and out must have one shape");
    if (seed->dtype != mask->dtype || seed->dtype != out->dtype)
        return fv_error_set(FV_EDTYPE, name, "seed, mask and out must have one dtype (got %s, %s, %s)",
                            fv_dtype_name(seed->dtype), fv_dtype_name(mask->dtype), fv_dtype_name(out->dtype));
    if (method != FV_RECONSTRUCT_DILATION && method != FV_RECONSTRUCT_EROSION)
        return fv_error_set(FV_EINVAL, name, "method must be dilation (0) or erosion (1), got %d", (int)method);
    if (seed->ndim < 1)
        return fv_error_set(FV_EINVAL, name, "arrays must have at least one dimension");
    const int nd = seed->ndim;
    fv__reconstruction_params p;
    memset(&p, 0, sizeof p);
    p.method = (int)method;
    if ((st = fv__skm_footprint_offsets(name, nd, footprint, fshape, offset, &nb, &p.nnb)))
        return st;
    for (int64_t k = 0; k < (int64_t)p.nnb * nd; k++) {
        const int d = (int)(k % nd);
        if (-nb[k] > p.lo[d])
            p.lo[d] = -nb[k];
        if (nb[k] > p.hi[d])
            p.hi[d] = nb[k];
    }
    p.nb = nb;
    if (fv_array_size(seed) == 0)
        goto done;
    if ((st = fv__skm_contig(ctx, seed, &s)) || (st = fv__skm_contig(ctx, mask, &m)))
        goto done;
    st = fv__skm_run(ctx, FV__OP_RECONSTRUCTION, s, m, out, &p);
done:
    fv_array_unref(s);
    fv_array_unref(m);
    free(nb);
    return st;
}
