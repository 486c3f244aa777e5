/* fv_fft and fv_fourier_filter: validate, run the ops FFT and FOURIER
 * (src/ops/fft/fft.h). */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "ops/core/elementwise.h"
#include "ops/fft/fft.h"

/* The logical ndim of a (complex: without the trailing pair axis), or -1 with the
 * error set when a complex array's trailing axis is not an interleaved pair. */
static int
logical_ndim(const char *name, const char *what, const fv_array *a, int is_complex)
{
    if (!is_complex)
        return a->ndim;
    if (a->ndim < 1 || a->shape[a->ndim - 1] != 2 || a->strides[a->ndim - 1] != (int64_t)fv_dtype_size(a->dtype)) {
        fv_error_set(FV_EINVAL, name,
                     "%s is complex: it needs a trailing axis of length 2 with a stride of one element "
                     "(interleaved real, imaginary)",
                     what);
        return -1;
    }
    return a->ndim - 1;
}

static fv_status
check_float(const char *name, const char *what, const fv_array *a)
{
    if (a->dtype != FV_FLOAT32 && a->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, name, "%s must be float32 or float64 (complex64/complex128 pairs), got %s", what,
                            fv_dtype_name(a->dtype));
    return FV_OK;
}

fv_status
fv_fft(fv_context *ctx, const fv_array *in, fv_array *out, fv_fft_kind kind, int naxes, const int *axes, int inverse,
       double scale)
{
    const char *name = "fft";
    fv__fft_params p;
    fv_status st;
    int lin, lout, last;

    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (kind != FV_FFT_C2C && kind != FV_FFT_R2C && kind != FV_FFT_C2R)
        return fv_error_set(FV_EINVAL, name, "unknown transform kind %d", (int)kind);
    if ((st = check_float(name, "in", in)) != FV_OK || (st = check_float(name, "out", out)) != FV_OK)
        return st;
    if (in->dtype != out->dtype)
        return fv_error_set(FV_EDTYPE, name, "in (%s) and out (%s) must have one precision", fv_dtype_name(in->dtype),
                            fv_dtype_name(out->dtype));
    if ((lin = logical_ndim(name, "in", in, kind != FV_FFT_R2C)) < 0 ||
        (lout = logical_ndim(name, "out", out, kind != FV_FFT_C2R)) < 0)
        return FV_EINVAL;
    if (lin < 1 || lin != lout)
        return fv_error_set(FV_EINVAL, name, "in and out need one logical ndim >= 1 (have %d and %d)", lin, lout);
    if (!axes || naxes < 1 || naxes > lin)
        return fv_error_set(FV_EINVAL, name, "need 1 to %d axes, got %d", lin, naxes);
    if (!isfinite(scale))
        return fv_error_set(FV_EINVAL, name, "scale must be finite");
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "out is read-only");
    if (fv__arrays_overlap(in, out))
        return fv_error_set(FV_EINVAL, name, "in and out overlap");

    memset(&p, 0, sizeof p);
    p.kind = (int)kind;
    p.inverse = kind == FV_FFT_C2R ? 1 : kind == FV_FFT_R2C ? 0 : !!inverse;
    p.naxes = naxes;
    p.scale = scale;
    for (int i = 0; i < naxes; i++) {
        int ax = axes[i] < 0 ? axes[i] + lin : axes[i];
        if (ax < 0 || ax >= lin)
            return fv_error_set(FV_EINVAL, name, "axis %d is out of range for %d dimensions", axes[i], lin);
        for (int j = 0; j < i; j++)
            if (p.axes[j] == ax)
                return fv_error_set(FV_EINVAL, name, "axis %d is repeated", ax);
        p.axes[i] = ax;
    }
    last = p.axes[naxes - 1];
    for (int d = 0; d < lin; d++) {
        const int64_t a = in->shape[d], b = out->shape[d];
        if (d == last && kind == FV_FFT_R2C) {
            if (b != a / 2 + 1)
                return fv_error_set(FV_EINVAL, name, "R2C: out's length along axis %d must be %lld, got %lld", d,
                                    (long long)(a / 2 + 1), (long long)b);
        } else if (d == last && kind == FV_FFT_C2R) {
            if (a != b / 2 + 1)
                return fv_error_set(FV_EINVAL, name, "C2R: in's length along axis %d must be %lld, got %lld", d,
                                    (long long)(b / 2 + 1), (long long)a);
        } else if (a != b) {
            return fv_error_set(FV_EINVAL, name, "in and out differ along axis %d (%lld and %lld)", d, (long long)a,
                                (long long)b);
        }
    }
    p.n_last = kind == FV_FFT_R2C ? in->shape[last] : out->shape[last];
    for (int i = 0; i < naxes; i++) {
        const int64_t len = p.axes[i] == last ? p.n_last : out->shape[p.axes[i]];
        if (len < 1)
            return fv_error_set(FV_EINVAL, name, "invalid number of data points (%lld) along axis %d", (long long)len,
                                p.axes[i]);
    }
    if (fv_array_size(in) == 0 || fv_array_size(out) == 0)
        return FV_OK;
    if (in->device.type != FV_DEVICE_CUDA)
        return fv__run_FFT(ctx, in, NULL, out, &p);
    /* cuFFT wants packed arrays and overwrites a C2R input: contiguous copies where needed */
    fv_array *tin = NULL, *tout = NULL;
    if (kind == FV_FFT_C2R || !fv_array_is_contiguous(in)) {
        if ((st = fv_array_new(ctx, in->dtype, in->ndim, in->shape, in->device, &tin)) != FV_OK)
            return st;
        if ((st = fv__run_ASTYPE(ctx, in, NULL, tin, NULL)) != FV_OK)
            goto done;
    }
    if (!fv_array_is_contiguous(out) &&
        (st = fv_array_new(ctx, out->dtype, out->ndim, out->shape, out->device, &tout)) != FV_OK)
        goto done;
    st = fv__run_FFT(ctx, tin ? tin : in, NULL, tout ? tout : out, &p);
    if (st == FV_OK && tout)
        st = fv__run_ASTYPE(ctx, tout, NULL, out, NULL);
done:
    fv_array_unref(tin);
    fv_array_unref(tout);
    return st;
}

fv_status
fv_fourier_filter(fv_context *ctx, const fv_array *in, int in_complex, fv_array *out, int out_complex,
                  fv_fourier_kind kind, const double *params, int64_t n, int axis)
{
    const char *name = "fourier_filter";
    fv__fourier_params p;
    fv_array *tmp = NULL;
    fv_status st;
    int lin, lout;

    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (!params)
        return fv_error_set(FV_EINVAL, name, "NULL params");
    if ((int)kind < FV_FOURIER_GAUSSIAN || (int)kind > FV_FOURIER_SHIFT)
        return fv_error_set(FV_EINVAL, name, "unknown filter kind %d", (int)kind);
    if ((st = check_float(name, "out", out)) != FV_OK)
        return st;
    if (in_complex && (st = check_float(name, "in", in)) != FV_OK)
        return st;
    if (!fv_dtype_is_valid(in->dtype))
        return fv_error_set(FV_EDTYPE, name, "invalid input dtype");
    if (in_complex && !out_complex)
        return fv_error_set(FV_EDTYPE, name, "a complex input needs a complex output");
    if (kind == FV_FOURIER_SHIFT && !out_complex)
        return fv_error_set(FV_EDTYPE, name, "fourier_shift needs a complex output");
    if ((lin = logical_ndim(name, "in", in, in_complex)) < 0 ||
        (lout = logical_ndim(name, "out", out, out_complex)) < 0)
        return FV_EINVAL;
    if (lin < 1 || lin != lout)
        return fv_error_set(FV_EINVAL, name, "in and out need one logical ndim >= 1 (have %d and %d)", lin, lout);
    for (int d = 0; d < lin; d++)
        if (in->shape[d] != out->shape[d])
            return fv_error_set(FV_EINVAL, name, "in and out shapes differ along axis %d", d);
    if (kind == FV_FOURIER_ELLIPSOID && lin > 3)
        return fv_error_set(FV_EUNSUPPORTED, name, "fourier_ellipsoid: only 1-d, 2-d and 3-d inputs are supported");
    if (axis < 0)
        axis += lin;
    if (axis < 0 || axis >= lin)
        return fv_error_set(FV_EINVAL, name, "axis out of range for %d dimensions", lin);
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "out is read-only");
    if (fv__arrays_overlap(in, out) &&
        !(in->data == out->data && in->dtype == out->dtype && in_complex == out_complex &&
          memcmp(in->strides, out->strides, (size_t)in->ndim * sizeof in->strides[0]) == 0))
        return fv_error_set(FV_EINVAL, name, "in and out overlap (only out = in itself is allowed)");
    memset(&p, 0, sizeof p);
    p.kind = (int)kind;
    p.in_complex = !!in_complex;
    p.out_complex = !!out_complex;
    p.ndim = lin;
    p.axis = axis;
    p.n = n < 0 ? -1 : n;
    for (int d = 0; d < lin; d++) {
        if (!isfinite(params[d]))
            return fv_error_set(FV_EINVAL, name, "parameter %d is not finite", d);
        p.p[d] = params[d];
    }
    if (fv_array_size(out) == 0)
        return FV_OK;
    if (!in_complex && in->dtype != FV_FLOAT32 && in->dtype != FV_FLOAT64) {
        /* the kernels read float32/float64: other real dtypes are converted once */
        if ((st = fv_array_new(ctx, FV_FLOAT64, in->ndim, in->shape, in->device, &tmp)) != FV_OK)
            return st;
        if ((st = fv__run_ASTYPE(ctx, in, NULL, tmp, NULL)) != FV_OK) {
            fv_array_unref(tmp);
            return st;
        }
        in = tmp;
    }
    st = fv__run_FOURIER(ctx, in, NULL, out, &p);
    fv_array_unref(tmp);
    return st;
}
