/* fv_richardson_lucy: Richardson-Lucy deconvolution as scikit-image 0.26 does
 * it (scipy.signal.convolve 'same', zeros outside the image), by FFT.
 *
 * Why a grid of image + psf/2 is enough: with the PSF's centre c = (p-1)//2
 * rolled to the origin, a circular convolution over a grid of m >= n + p - 1 - c
 * and m >= n + c (both hold for m >= n + p//2) takes, for every image index,
 * only image indices and zeros: exactly 'same''s linear result. The estimate
 * lives in a grid-sized array that is zero outside the image; DIVIDE zeroes the
 * ratio there, so each iteration is
 *     C = rfftn(E); C *= H; R = irfftn(C); R = image / (R + eps) (0 outside);
 *     C = rfftn(R); C *= G; R = irfftn(C); E *= R (inside)
 * with H the transform of the rolled PSF and G that of the rolled flipped PSF
 * (conj(H) when every PSF axis is odd), both divided by the grid's size (the
 * normalisation of the inverse transforms, so those need no scaling pass). Steps: the op RL (restoration.h); the
 * transforms: the op FFT, so a run on device arrays never leaves the GPU. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "fovea/restoration.h"
#include "ops/core/elementwise.h"
#include "ops/fft/fft.h"
#include "ops/restoration/restoration.h"

static const char *NAME = "richardson_lucy";

/* The smallest 2-3-5-7-smooth number >= n (lengths both FFT engines like). */
static int64_t
fast_len(int64_t n)
{
    for (int64_t k = n < 1 ? 1 : n;; k++) {
        int64_t r = k;
        static const int primes[4] = { 2, 3, 5, 7 };
        for (int i = 0; i < 4; i++)
            while (r % primes[i] == 0)
                r /= primes[i];
        if (r == 1)
            return k;
    }
}

/* A C-contiguous version of a (a new reference: a itself when it already is). */
static fv_status
contiguous(fv_context *ctx, const fv_array *a, fv_array **out)
{
    fv_status st;
    if (fv_array_is_contiguous(a)) {
        *out = fv_array_ref((fv_array *)a);
        return FV_OK;
    }
    if ((st = fv_array_new(ctx, a->dtype, a->ndim, a->shape, a->device, out)) != FV_OK)
        return st;
    if ((st = fv__run_ASTYPE(ctx, a, NULL, *out, NULL)) != FV_OK) {
        fv_array_unref(*out);
        *out = NULL;
    }
    return st;
}

static fv_status
check_args(const fv_array *image, const fv_array *psf, int num_iter, fv_array *out)
{
    if (!image || !psf || !out)
        return fv_error_set(FV_EINVAL, NAME, "NULL array");
    if (image->dtype != FV_FLOAT32 && image->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, NAME, "image must be float32 or float64, got %s", fv_dtype_name(image->dtype));
    if (psf->dtype != image->dtype || out->dtype != image->dtype)
        return fv_error_set(FV_EDTYPE, NAME, "image (%s), psf (%s) and out (%s) must have one dtype",
                            fv_dtype_name(image->dtype), fv_dtype_name(psf->dtype), fv_dtype_name(out->dtype));
    if (image->ndim < 1 || image->ndim > FV_MAX_NDIM - 1)
        return fv_error_set(FV_EUNSUPPORTED, NAME, "image must have 1 to %d dimensions, got %d", FV_MAX_NDIM - 1,
                            image->ndim);
    if (psf->ndim != image->ndim)
        return fv_error_set(FV_EINVAL, NAME, "image and psf should have the same dimensionality (%d and %d)",
                            image->ndim, psf->ndim);
    if (!fv__array_same_shape(image, out))
        return fv_error_set(FV_EINVAL, NAME, "out must have the image's shape");
    if (fv_array_size(psf) == 0)
        return fv_error_set(FV_EINVAL, NAME, "psf is empty");
    if (num_iter < 0)
        return fv_error_set(FV_EINVAL, NAME, "num_iter must be >= 0, got %d", num_iter);
    if (out->readonly)
        return fv_error_set(FV_EINVAL, NAME, "out is read-only");
    if (fv__arrays_overlap(image, out) || fv__arrays_overlap(psf, out))
        return fv_error_set(FV_EINVAL, NAME, "out overlaps image or psf");
    if (psf->device.type != image->device.type || psf->device.id != image->device.id ||
        out->device.type != image->device.type || out->device.id != image->device.id)
        return fv_error_set(FV_EDEVICE, NAME, "image, psf and out must be on one device");
    return FV_OK;
}

/* One unnormalised real transform of the grid times scale: R2C real -> spec, or
 * C2R spec -> real (spec is overwritten on the GPU). */
static fv_status
grid_fft(fv_context *ctx, const fv__rl_params *q, fv_array *real, fv_array *spec, int forward, double scale)
{
    fv__fft_params p;
    memset(&p, 0, sizeof p);
    p.kind = forward ? FV_FFT_R2C : FV_FFT_C2R;
    p.inverse = !forward;
    p.naxes = q->ndim;
    for (int d = 0; d < q->ndim; d++)
        p.axes[d] = d;
    p.n_last = q->m[q->ndim - 1];
    p.scale = scale;
    return forward ? fv__run_FFT(ctx, real, NULL, spec, &p) : fv__run_FFT(ctx, spec, NULL, real, &p);
}

static fv_status
step(fv_context *ctx, const fv__rl_params *base, int kind, const fv_array *in, fv_array *out)
{
    fv__rl_params q = *base;
    q.step = kind;
    return fv__run_RL(ctx, in, NULL, out, &q);
}

/* The transform of the PSF (flipped or not) rolled to the origin of the grid,
 * divided by the grid's size: the inverse transforms of the iterations then need
 * no scaling pass. */
static fv_status
psf_spectrum(fv_context *ctx, const fv__rl_params *base, const fv_array *psf, int flip, fv_array *real, fv_array *spec)
{
    fv__rl_params q = *base;
    double total = 1.0;
    fv_status st;
    q.step = FV__RL_PLACE;
    q.flip = flip;
    for (int d = 0; d < q.ndim; d++) {
        q.p[d] = psf->shape[d];
        q.shift[d] = (psf->shape[d] - 1) / 2;
        total *= (double)q.m[d];
    }
    if ((st = fv__run_RL(ctx, psf, NULL, real, &q)) != FV_OK)
        return st;
    return grid_fft(ctx, base, real, spec, 1, 1.0 / total);
}

fv_status
fv_richardson_lucy(fv_context *ctx, const fv_array *image, const fv_array *psf, int num_iter, int clip, int filter,
                   double filter_epsilon, fv_array *out, fv_iter_progress progress, void *user)
{
    fv__rl_params q;
    fv_array *img = NULL, *ker = NULL, *est = NULL, *r = NULL, *c = NULL, *h = NULL, *g = NULL;
    int64_t spec_shape[FV_MAX_NDIM];
    int all_odd = 1;
    fv_status st = check_args(image, psf, num_iter, out);
    if (st != FV_OK)
        return st;
    if (fv_array_size(image) == 0)
        return FV_OK;

    memset(&q, 0, sizeof q);
    q.ndim = image->ndim;
    q.clip = !!clip;
    q.filter = !!filter;
    q.filter_epsilon = filter_epsilon;
    q.eps = 1e-12;
    for (int d = 0; d < q.ndim; d++) {
        const int64_t n = image->shape[d], p = psf->shape[d];
        const int64_t need = n + p / 2 > p ? n + p / 2 : p;
        q.n[d] = n;
        q.m[d] = fast_len(need);
        spec_shape[d] = q.m[d];
        all_odd &= (int)(p & 1);
    }
    spec_shape[q.ndim - 1] = q.m[q.ndim - 1] / 2 + 1;
    spec_shape[q.ndim] = 2;

    const fv_device dev = image->device;
#define FV__RL_TRY(call)            \
    do {                            \
        if ((st = (call)) != FV_OK) \
            goto done;              \
    } while (0)
    FV__RL_TRY(contiguous(ctx, image, &img));
    FV__RL_TRY(contiguous(ctx, psf, &ker));
    FV__RL_TRY(fv_array_new(ctx, image->dtype, q.ndim, q.m, dev, &est));
    FV__RL_TRY(fv_array_new(ctx, image->dtype, q.ndim, q.m, dev, &r));
    FV__RL_TRY(fv_array_new(ctx, image->dtype, q.ndim + 1, spec_shape, dev, &c));
    FV__RL_TRY(fv_array_new(ctx, image->dtype, q.ndim + 1, spec_shape, dev, &h));
    if (!all_odd)
        FV__RL_TRY(fv_array_new(ctx, image->dtype, q.ndim + 1, spec_shape, dev, &g));

    /* H (and G), then the estimate: 0.5 inside the image */
    FV__RL_TRY(psf_spectrum(ctx, &q, ker, 0, r, h));
    if (g)
        FV__RL_TRY(psf_spectrum(ctx, &q, ker, 1, r, g));
    {
        fv__rl_params init = q;
        init.step = FV__RL_PLACE;
        init.fill = 1;
        init.value = 0.5;
        memcpy(init.p, q.n, sizeof init.p);
        FV__RL_TRY(fv__run_RL(ctx, img, NULL, est, &init));
    }
    for (int it = 0; it < num_iter; it++) {
        fv__rl_params corr = q;
        FV__RL_TRY(grid_fft(ctx, &q, est, c, 1, 1.0));
        FV__RL_TRY(step(ctx, &q, FV__RL_CMUL, h, c));
        FV__RL_TRY(grid_fft(ctx, &q, r, c, 0, 1.0));
        FV__RL_TRY(step(ctx, &q, FV__RL_DIVIDE, img, r));
        FV__RL_TRY(grid_fft(ctx, &q, r, c, 1, 1.0));
        corr.conj = g == NULL;
        FV__RL_TRY(step(ctx, &corr, FV__RL_CMUL, g ? g : h, c));
        FV__RL_TRY(grid_fft(ctx, &q, r, c, 0, 1.0));
        FV__RL_TRY(step(ctx, &q, FV__RL_UPDATE, r, est));
        if (progress)
            progress(user, it + 1, num_iter);
    }
    if (fv_array_is_contiguous(out)) {
        FV__RL_TRY(step(ctx, &q, FV__RL_OUT, est, out));
    } else {
        fv_array *tmp = NULL;
        FV__RL_TRY(fv_array_new(ctx, image->dtype, q.ndim, q.n, dev, &tmp));
        st = step(ctx, &q, FV__RL_OUT, est, tmp);
        if (st == FV_OK)
            st = fv__run_ASTYPE(ctx, tmp, NULL, out, NULL);
        fv_array_unref(tmp);
    }
#undef FV__RL_TRY
done:
    fv_array_unref(img);
    fv_array_unref(ker);
    fv_array_unref(est);
    fv_array_unref(r);
    fv_array_unref(c);
    fv_array_unref(h);
    fv_array_unref(g);
    return st;
}
