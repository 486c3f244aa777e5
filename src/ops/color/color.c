/* fv_color_convert and fv_color_delta_e (include/fovea/color.h): validate the
 * arrays and parameters, build the pixel geometry (every axis but the last),
 * dispatch FV__OP_COLOR to the backend that holds the data. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "fovea/color.h"
#include "ops/color/color.h"

static const char *const fv__color_names[FV_COLOR_CONV_COUNT] = {
    "matrix",  "rgb2hsv", "hsv2rgb",  "xyz2lab",      "lab2xyz",        "xyz2luv",          "luv2xyz",
    "lab2lch", "lch2lab", "rgba2rgb", "deltaE_cie76", "deltaE_ciede94", "deltaE_ciede2000", "deltaE_cmc",
};

const char *
fv_color_conv_name(fv_color_conv conv)
{
    if ((unsigned)conv >= FV_COLOR_CONV_COUNT)
        return "invalid";
    return fv__color_names[conv];
}

static int
fv__color_is_float(fv_dtype dt)
{
    return dt == FV_FLOAT32 || dt == FV_FLOAT64;
}

/* A copy of a's header without its last axis (the pixel axes), for fv__geom_init. */
static void
fv__color_pixels(const fv_array *a, int drop_last, struct fv_array *v)
{
    memcpy((void *)v, (const void *)a, sizeof *v);
    if (drop_last)
        v->ndim = a->ndim - 1;
}

/* Common checks and the run. in2 NULL for conversions. cin_min/cin_max: the
 * channel counts accepted; cout: out's channels (0: out has no channel axis). */
static fv_status
fv__color_run(fv_context *ctx, const char *name, const fv_array *in, const fv_array *in2, fv_array *out,
              const fv_color_params *p, int cin_min, int cin_max, int cout, int cout_may_drop)
{
    if (!in || !out || (p->conv >= FV_COLOR_DELTAE_CIE76 && !in2))
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (in->ndim < 1)
        return fv_error_set(FV_EINVAL, name, "the input needs a channel axis (got a 0-d array)");
    const int64_t cin = in->shape[in->ndim - 1];
    if (cin < cin_min || cin > cin_max) {
        if (cin_min == cin_max)
            return fv_error_set(FV_EINVAL, name, "the input must have %d channels along its last axis, got %lld",
                                cin_min, (long long)cin);
        return fv_error_set(FV_EINVAL, name,
                            "the input must have at least %d channels along its last axis, "
                            "got %lld",
                            cin_min, (long long)cin);
    }
    /* uint8 input (values taken as scikit-image's img_as_float64 makes them:
     * v / 255) for the linear conversions into float64, on the CPU: each channel's
     * pre-function is then evaluated once per value, not once per pixel */
    const int u8 = in->dtype == FV_UINT8 && p->conv == FV_COLOR_MATRIX && out->dtype == FV_FLOAT64 && !in2;
    if (u8 && in->device.type != FV_DEVICE_CPU)
        return fv_error_set(FV_EDTYPE, name, "uint8 input is taken on the CPU only; convert it to float first");
    if ((!u8 && !fv__color_is_float(in->dtype)) || !fv__color_is_float(out->dtype) || (in2 && in2->dtype != in->dtype))
        return fv_error_set(FV_EDTYPE, name,
                            "arrays must be float32 or float64 (inputs of one dtype; uint8 "
                            "for a matrix conversion into float64 on the CPU), got %s in, %s out",
                            fv_dtype_name(in->dtype), fv_dtype_name(out->dtype));
    if (in->dtype != out->dtype && !(p->conv == FV_COLOR_MATRIX && (in->dtype == FV_FLOAT32 || u8)) &&
        p->conv < FV_COLOR_DELTAE_CIE76)
        return fv_error_set(FV_EDTYPE, name, "%s input with %s output is not supported", fv_dtype_name(in->dtype),
                            fv_dtype_name(out->dtype));
    if (in2) {
        if (!fv__array_same_shape(in, in2))
            return fv_error_set(FV_EINVAL, name, "lab1 and lab2 must have the same shape");
    }
    /* out: the pixel axes of in, then cout channels (or none) */
    int drop = 0;
    if (cout_may_drop && out->ndim == in->ndim - 1)
        drop = 1;
    else if (cout == 0)
        drop = 1;
    int pix_nd = in->ndim - 1;
    if (out->ndim != pix_nd + (drop ? 0 : 1))
        return fv_error_set(FV_EINVAL, name, "out has %d dimensions, expected %d", out->ndim, pix_nd + (drop ? 0 : 1));
    for (int d = 0; d < pix_nd; d++)
        if (out->shape[d] != in->shape[d])
            return fv_error_set(FV_EINVAL, name, "out's extent %lld on axis %d differs from the input's %lld",
                                (long long)out->shape[d], d, (long long)in->shape[d]);
    if (!drop && out->shape[pix_nd] != (cout ? cout : 1))
        return fv_error_set(FV_EINVAL, name, "out must have %d channels along its last axis, got %lld", cout ? cout : 1,
                            (long long)out->shape[pix_nd]);
    if (fv_array_size(out) == 0 || fv_array_size(in) == 0)
        return FV_OK;
    /* in place only with the same layout, channel for channel */
    if (fv__arrays_overlap(in, out) || fv__arrays_overlap(in2, out)) {
        int same = in2 == NULL && in->data == out->data && in->ndim == out->ndim && cin == out->shape[pix_nd];
        for (int d = 0; same && d < in->ndim; d++)
            same = in->strides[d] == out->strides[d];
        if (!same || in->dtype != out->dtype)
            return fv_error_set(FV_EINVAL, name, "out overlaps an input (only the same array in place is allowed)");
    }

    fv__color_job job;
    memset(&job, 0, sizeof job);
    job.p = *p;
    job.cin = (int)cin;
    job.cout = cout;
    struct fv_array vo, vi, vi2;
    fv__color_pixels(out, !drop, &vo);
    fv__color_pixels(in, 1, &vi);
    const fv_array *ins[2] = { &vi, NULL };
    int nin = 1;
    if (in2) {
        fv__color_pixels(in2, 1, &vi2);
        ins[1] = &vi2;
        nin = 2;
    }
    fv_status st = fv__geom_init(&job.g, name, &vo, nin, ins);
    if (st)
        return st;
    job.cs[0] = drop ? 0 : out->strides[pix_nd];
    job.cs[1] = in->strides[pix_nd];
    job.cs[2] = in2 ? in2->strides[pix_nd] : 0;
    return fv__run_COLOR(ctx, in, in2, out, &job);
}

fv_status
fv_color_convert(fv_context *ctx, const fv_array *in, fv_array *out, const fv_color_params *p)
{
    const char *name = "color";
    if (!p)
        return fv_error_set(FV_EINVAL, name, "NULL params");
    if ((unsigned)p->conv >= FV_COLOR_CONV_COUNT)
        return fv_error_set(FV_EINVAL, name, "unknown conversion %d", (int)p->conv);
    name = fv_color_conv_name(p->conv);
    switch (p->conv) {
    case FV_COLOR_MATRIX:
        if (p->rows < 1 || p->rows > 3)
            return fv_error_set(FV_EINVAL, name, "rows = %d must be 1, 2 or 3", p->rows);
        if ((unsigned)p->pre >= FV_COLOR_PRE_COUNT || (unsigned)p->post >= FV_COLOR_POST_COUNT)
            return fv_error_set(FV_EINVAL, name, "unknown pre (%d) or post (%d) step", (int)p->pre, (int)p->post);
        return fv__color_run(ctx, name, in, NULL, out, p, 3, 3, p->rows, p->rows == 1);
    case FV_COLOR_XYZ2LAB:
    case FV_COLOR_LAB2XYZ:
    case FV_COLOR_XYZ2LUV:
    case FV_COLOR_LUV2XYZ:
        for (int c = 0; c < 3; c++)
            if (!(p->white[c] > 0) || p->white[c] == INFINITY)
                return fv_error_set(FV_EINVAL, name, "white[%d] = %g must be positive and finite", c, p->white[c]);
        return fv__color_run(ctx, name, in, NULL, out, p, 3, 3, 3, 0);
    case FV_COLOR_LAB2LCH:
    case FV_COLOR_LCH2LAB: {
        int64_t c = in && in->ndim >= 1 ? in->shape[in->ndim - 1] : 3;
        if (c > 1024)
            return fv_error_set(FV_EINVAL, name, "%lld channels: at most 1024", (long long)c);
        return fv__color_run(ctx, name, in, NULL, out, p, 3, 1024, c < 3 ? 3 : (int)c, 0);
    }
    case FV_COLOR_RGBA2RGB:
        return fv__color_run(ctx, name, in, NULL, out, p, 4, 4, 3, 0);
    case FV_COLOR_RGB2HSV:
    case FV_COLOR_HSV2RGB:
        return fv__color_run(ctx, name, in, NULL, out, p, 3, 3, 3, 0);
    default:
        return fv_error_set(FV_EINVAL, name, "a colour difference: use fv_color_delta_e");
    }
}

fv_status
fv_color_delta_e(fv_context *ctx, const fv_array *lab1, const fv_array *lab2, fv_array *out, const fv_color_params *p)
{
    const char *name = "delta_e";
    if (!p)
        return fv_error_set(FV_EINVAL, name, "NULL params");
    if (p->conv < FV_COLOR_DELTAE_CIE76 || p->conv >= FV_COLOR_CONV_COUNT)
        return fv_error_set(FV_EINVAL, name, "conversion %d is not a colour difference", (int)p->conv);
    name = fv_color_conv_name(p->conv);
    return fv__color_run(ctx, name, lab1, lab2, out, p, 3, INT32_MAX, 0, 1);
}
