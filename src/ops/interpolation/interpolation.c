/* The public interpolation functions (include/fovea/interpolation.h): validate,
 * run scipy's prefilter (the op SPLINE1D, padded as scipy pads) into a float64
 * temporary, then the op INTERP from it. Kernels: src/cpu/interpolation/,
 * src/cuda/interpolation/; the arithmetic: interp-math.h. */
#include <string.h>
#include "internal.h"
#include "fovea/interpolation.h"
#include "ops/filters/filters-ops.h" /* fv__ndi_source, fv__ndi_assign */
#include "ops/interpolation/interp-math.h"
#include "ops/interpolation/interp.h"
#include "ops/interpolation/spline.h"

#define FV__IM_NPAD 12 /* scipy's padding before prefiltering in nearest and grid-constant modes */

fv_status
fv_interp_mode_from_name(const char *name, fv_interp_mode *out)
{
    static const struct {
        const char *name;
        fv_interp_mode mode;
    } table[] = {
        { "nearest", FV_INTERP_NEAREST },     { "wrap", FV_INTERP_WRAP },
        { "reflect", FV_INTERP_REFLECT },     { "grid-mirror", FV_INTERP_REFLECT },
        { "mirror", FV_INTERP_MIRROR },       { "constant", FV_INTERP_CONSTANT },
        { "grid-wrap", FV_INTERP_GRID_WRAP }, { "grid-constant", FV_INTERP_GRID_CONSTANT },
    };
    if (!name || !out)
        return fv_error_set(FV_EINVAL, "mode", "NULL argument");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(name, table[i].name)) {
            *out = table[i].mode;
            return FV_OK;
        }
    return fv_error_set(FV_EINVAL, "mode",
                        "boundary mode not supported: '%s' (nearest, wrap, reflect, "
                        "grid-mirror, mirror, constant, grid-wrap, grid-constant)",
                        name);
}

/* Checks shared by every function: arrays given, valid real dtypes, one device,
 * writable out, order and mode in range. */
static fv_status
fv__im_check(const char *name, const fv_array *in, const fv_array *out, int order, int mode)
{
    if (!in || !out)
        return fv_error_set(FV_EINVAL, name, "NULL %s", in ? "out" : "in");
    if (!fv_dtype_is_valid(in->dtype) || !fv_dtype_is_valid(out->dtype))
        return fv_error_set(FV_EDTYPE, name, "invalid dtype");
    if (!fv__array_same_device(in, out))
        return fv_error_set(FV_EDEVICE, name,
                            "input and output are on different devices (use fv_copy / "
                            "fovea.to_device to move data)");
    if (out->readonly)
        return fv_error_set(FV_EINVAL, name, "output array is read-only");
    if (order < 0 || order > 5)
        return fv_error_set(FV_EINVAL, name, "spline order not supported: %d (0 to 5)", order);
    if (mode < 0 || mode >= FV_INTERP_MODE_COUNT)
        return fv_error_set(FV_EINVAL, name, "invalid mode %d", mode);
    if (!fv__array_no_self_overlap(out))
        return fv_error_set(FV_EINVAL, name, "out has elements that share memory (e.g. a stride of 0)");
    return FV_OK;
}

static int
fv__im_same_view(const fv_array *a, const fv_array *b)
{
    if (a->data != b->data || a->ndim != b->ndim || a->dtype != b->dtype)
        return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->strides[d] != b->strides[d]))
            return 0;
    return 1;
}

/* One SPLINE1D pass from src into dst along axis. */
static fv_status
fv__im_pass(fv_context *ctx, const fv_array *src, fv_array *dst, int order, int axis, int mode, int64_t npad,
            int pad_constant, double pad_value)
{
    fv__spline1d_params p = { order, axis, mode, npad, pad_constant, pad_value };
    return fv__run_SPLINE1D(ctx, src, NULL, dst, &p);
}

fv_status
fv_spline_filter1d(fv_context *ctx, const fv_array *in, fv_array *out, int order, int axis, fv_interp_mode mode)
{
    const char *name = "spline_filter1d";
    fv_status st;
    if ((st = fv__im_check(name, in, out, order, mode)))
        return st;
    if (!fv__array_same_shape(in, out))
        return fv_error_set(FV_EINVAL, name, "input and output shapes differ");
    if (in->ndim > 0 && (axis < 0 || axis >= in->ndim))
        return fv_error_set(FV_EINVAL, name, "axis %d is out of range for a %d-d array", axis, in->ndim);
    if (fv_array_size(out) == 0)
        return FV_OK;
    if (order < 2 || in->ndim == 0)
        return fv__ndi_assign(ctx, in, out);
    if (fv__im_same_view(in, out))
        return fv__im_pass(ctx, out, out, order, axis, mode, 0, 0, 0.0);
    fv_array *src = NULL;
    if ((st = fv__ndi_source(ctx, in, out, &src)))
        return st;
    st = fv__im_pass(ctx, src, out, order, axis, mode, 0, 0, 0.0);
    fv_array_unref(src);
    return st;
}

fv_status
fv_spline_filter(fv_context *ctx, const fv_array *in, fv_array *out, int order, fv_interp_mode mode)
{
    const char *name = "spline_filter";
    fv_status st;
    if ((st = fv__im_check(name, in, out, order, mode)))
        return st;
    if (order < 2)
        return fv_error_set(FV_EINVAL, name, "spline order not supported: %d (2 to 5)", order);
    if (!fv__array_same_shape(in, out))
        return fv_error_set(FV_EINVAL, name, "input and output shapes differ");
    if (fv_array_size(out) == 0)
        return FV_OK;
    if (in->ndim == 0)
        return fv__ndi_assign(ctx, in, out);
    for (int d = 0; d < in->ndim; d++)
        if ((st = fv_spline_filter1d(ctx, d == 0 ? in : out, out, order, d, mode)))
            return st;
    return FV_OK;
}

/* cval as numpy.pad stores it into in's dtype (the padding of grid-constant),
 * read back as a double. */
static double
fv__im_pad_value(int dtype, double cval)
{
    switch (dtype) {
    case FV_FLOAT64:
        return cval;
    case FV_FLOAT32:
        return (double)(float)cval;
    case FV_BOOL:
        return cval != 0 ? 1.0 : 0.0;
    case FV_UINT8:
        return (double)(uint8_t)fv__cvt32(cval);
    case FV_UINT16:
        return (double)(uint16_t)fv__cvt32(cval);
    case FV_UINT32:
        return (double)(uint32_t)fv__cvt64(cval);
    case FV_UINT64:
        return (double)fv__cvtu64(cval);
    case FV_INT8:
        return (double)(int8_t)fv__cvt32(cval);
    case FV_INT16:
        return (double)(int16_t)fv__cvt32(cval);
    case FV_INT32:
        return (double)fv__cvt32(cval);
    default:
        return (double)fv__cvt64(cval);
    }
}

/* The array the interpolation reads: in itself (+1 reference), or its B-spline
 * coefficients in a new float64 array, padded by *npad on every axis first as
 * scipy pads (nearest: the edge; grid-constant: cval in in's dtype). The
 * prefilter runs along the axes from first on (the planes' axes of
 * fv_affine_transform_planes; the axes before are padded too, never read). */
static fv_status
fv__im_source(fv_context *ctx, const fv_array *in, int first, int order, int mode, double cval, int prefilter,
              fv_array **src, int64_t *npad)
{
    fv_status st;
    *npad = 0;
    if (!prefilter || order < 2) {
        *src = fv_array_ref((fv_array *)in);
        return FV_OK;
    }
    if (mode == FV_INTERP_NEAREST || mode == FV_INTERP_GRID_CONSTANT)
        *npad = FV__IM_NPAD;
    int64_t shape[FV_MAX_NDIM];
    for (int d = 0; d < in->ndim; d++)
        shape[d] = in->shape[d] + 2 * *npad;
    if ((st = fv_array_new(ctx, FV_FLOAT64, in->ndim, shape, in->device, src)))
        return st;
    const int pad_constant = mode == FV_INTERP_GRID_CONSTANT;
    const double pad_value = pad_constant ? fv__im_pad_value(in->dtype, cval) : 0.0;
    for (int d = first; d < in->ndim && st == FV_OK; d++)
        st = fv__im_pass(ctx, d == first ? in : *src, *src, order, d, mode, d == first ? *npad : 0, pad_constant,
                         pad_value);
    if (st) {
        fv_array_unref(*src);
        *src = NULL;
    }
    return st;
}

/* Validates the output against in (and coords), prefilters, runs INTERP. */
static fv_status
fv__im_run(fv_context *ctx, const char *name, const fv_array *in, const fv_array *coords, fv_array *out,
           fv__interp_params *p, int prefilter)
{
    fv_status st;
    if (in->ndim < 1 || out->ndim < 1)
        return fv_error_set(FV_EINVAL, name, "input and output rank must be > 0");
    if (fv__arrays_overlap(in, out) || (coords && fv__arrays_overlap(coords, out)))
        return fv_error_set(FV_EINVAL, name, "out shares memory with the input%s", coords ? " or the coordinates" : "");
    if (fv_array_size(out) == 0)
        return FV_OK;
    fv_array *src = NULL;
    if (fv_array_size(in) == 0) {
        /* nothing to interpolate from: every value is cval (scipy reads past the array) */
        p->mode = FV_INTERP_CONSTANT;
        p->order = 0;
        p->kind = FV__INTERP_ZOOMSHIFT;
        p->has_zoom = p->has_shift = 0;
        p->nprepad = 0;
        int64_t one[FV_MAX_NDIM];
        for (int d = 0; d < out->ndim; d++)
            one[d] = 1;
        /* a 1-element input never read: every coordinate is moved off it */
        if ((st = fv_array_zeros(ctx, FV_FLOAT64, out->ndim, one, out->device, &src)))
            return st;
        p->has_shift = 1;
        for (int d = 0; d < out->ndim; d++)
            p->shift[d] = -2.0;
        st = fv__run_INTERP(ctx, src, NULL, out, p);
        fv_array_unref(src);
        return st;
    }
    int64_t npad;
    if ((st = fv__im_source(ctx, in, 0, p->order, p->mode, p->cval, prefilter, &src, &npad)))
        return st;
    p->nprepad = npad;
    st = fv__run_INTERP(ctx, src, coords, out, p);
    fv_array_unref(src);
    return st;
}

fv_status
fv_map_coordinates(fv_context *ctx, const fv_array *in, const fv_array *coordinates, fv_array *out, int order,
                   fv_interp_mode mode, double cval, int prefilter)
{
    const char *name = "map_coordinates";
    fv_status st;
    if ((st = fv__im_check(name, in, out, order, mode)))
        return st;
    if (!coordinates)
        return fv_error_set(FV_EINVAL, name, "NULL coordinates");
    if (!fv_dtype_is_valid(coordinates->dtype))
        return fv_error_set(FV_EDTYPE, name, "invalid coordinates dtype");
    if (!fv__array_same_device(in, coordinates))
        return fv_error_set(FV_EDEVICE, name, "the coordinates and the input are on different devices");
    if (coordinates->ndim != out->ndim + 1 || coordinates->shape[0] != in->ndim)
        return fv_error_set(FV_EINVAL, name, "invalid shape for coordinate array: (%d, *out's shape) expected",
                            in->ndim);
    for (int d = 0; d < out->ndim; d++)
        if (coordinates->shape[d + 1] != out->shape[d])
            return fv_error_set(FV_EINVAL, name, "the coordinates' shape[1:] must equal out's shape");
    fv__interp_params p;
    memset(&p, 0, sizeof p);
    p.kind = FV__INTERP_COORDS;
    p.order = order;
    p.mode = mode;
    p.cval = cval;
    return fv__im_run(ctx, name, in, coordinates, out, &p, prefilter);
}

/* INTERP's parameters for matrix (k rows by ko columns, row major) and offset
 * (k values; NULL: zeros). */
static void
fv__im_affine_params(fv__interp_params *p, const double *matrix, const double *offset, int k, int ko, int order,
                     int mode, double cval)
{
    memset(p, 0, sizeof *p);
    p->kind = FV__INTERP_AFFINE;
    p->order = order;
    p->mode = mode;
    p->cval = cval;
    for (int i = 0; i < k; i++) {
        p->offset[i] = offset ? offset[i] : 0.0;
        for (int j = 0; j < ko; j++)
            p->matrix[i * ko + j] = matrix[i * ko + j];
    }
}

fv_status
fv_affine_transform(fv_context *ctx, const fv_array *in, const double *matrix, const double *offset, fv_array *out,
                    int order, fv_interp_mode mode, double cval, int prefilter)
{
    const char *name = "affine_transform";
    fv_status st;
    if ((st = fv__im_check(name, in, out, order, mode)))
        return st;
    if (!matrix)
        return fv_error_set(FV_EINVAL, name, "NULL matrix");
    fv__interp_params p;
    fv__im_affine_params(&p, matrix, offset, in->ndim, out->ndim, order, mode, cval);
    return fv__im_run(ctx, name, in, NULL, out, &p, prefilter);
}

/* A view of a's trailing axes from batch on, at the plane whose index on the
 * axes before is b[] plus skip on each. */
static fv_status
fv__im_plane(const fv_array *a, int batch, const int64_t *b, int64_t skip, fv_array **out)
{
    int64_t off = 0;
    for (int d = 0; d < batch; d++)
        off += (b[d] + skip) * a->strides[d];
    return fv_array_view(a, a->ndim - batch, a->shape + batch, a->strides + batch, off, out);
}

fv_status
fv_affine_transform_planes(fv_context *ctx, const fv_array *in, int batch, const double *matrix, const double *offset,
                           fv_array *out, int order, fv_interp_mode mode, double cval, int prefilter)
{
    const char *name = "affine_transform";
    fv_status st;
    if (batch == 0)
        return fv_affine_transform(ctx, in, matrix, offset, out, order, mode, cval, prefilter);
    if ((st = fv__im_check(name, in, out, order, mode)))
        return st;
    if (!matrix)
        return fv_error_set(FV_EINVAL, name, "NULL matrix");
    if (batch < 0 || batch >= in->ndim || batch >= out->ndim)
        return fv_error_set(FV_EINVAL, name, "batch %d out of range for ranks %d and %d", batch, in->ndim, out->ndim);
    for (int d = 0; d < batch; d++)
        if (in->shape[d] != out->shape[d])
            return fv_error_set(FV_EINVAL, name, "axis %d indexes planes: extents %lld and %lld differ", d,
                                (long long)in->shape[d], (long long)out->shape[d]);
    if (fv__arrays_overlap(in, out))
        return fv_error_set(FV_EINVAL, name, "out shares memory with the input");
    if (fv_array_size(out) == 0)
        return FV_OK;
    fv__interp_params p;
    fv__im_affine_params(&p, matrix, offset, in->ndim - batch, out->ndim - batch, order, mode, cval);
    /* empty planes: each as fv_affine_transform fills it (cval) */
    const int empty = fv_array_size(in) == 0;
    fv_array *src = NULL;
    int64_t npad = 0;
    if (!empty && (st = fv__im_source(ctx, in, batch, order, mode, cval, prefilter, &src, &npad)))
        return st;
    p.nprepad = npad;
    int64_t b[FV_MAX_NDIM] = { 0 };
    for (;;) {
        fv_array *sv = NULL, *ov = NULL;
        if (!(st = fv__im_plane(empty ? in : src, batch, b, npad, &sv)) &&
            !(st = fv__im_plane(out, batch, b, 0, &ov))) {
            if (empty)
                st = fv_affine_transform(ctx, sv, matrix, offset, ov, order, mode, cval, prefilter);
            else
                st = fv__run_INTERP(ctx, sv, NULL, ov, &p);
        }
        fv_array_unref(sv);
        fv_array_unref(ov);
        int d = batch - 1;
        while (d >= 0 && ++b[d] == out->shape[d])
            b[d--] = 0;
        if (st || d < 0)
            break;
    }
    fv_array_unref(src);
    return st;
}

fv_status
fv_zoom_shift(fv_context *ctx, const fv_array *in, const double *zoom, const double *shift, fv_array *out, int order,
              fv_interp_mode mode, double cval, int prefilter, int grid_mode)
{
    const char *name = "zoom_shift";
    fv_status st;
    if ((st = fv__im_check(name, in, out, order, mode)))
        return st;
    if (in->ndim != out->ndim)
        return fv_error_set(FV_EINVAL, name, "input and output must have the same ndim (%d, %d)", in->ndim, out->ndim);
    fv__interp_params p;
    memset(&p, 0, sizeof p);
    p.kind = FV__INTERP_ZOOMSHIFT;
    p.order = order;
    p.mode = mode;
    p.cval = cval;
    p.has_zoom = zoom != NULL;
    p.has_shift = shift != NULL;
    p.grid_mode = grid_mode != 0;
    for (int d = 0; d < in->ndim; d++) {
        p.zoom[d] = zoom ? zoom[d] : 1.0;
        p.shift[d] = shift ? shift[d] : 0.0;
    }
    return fv__im_run(ctx, name, in, NULL, out, &p, prefilter);
}
