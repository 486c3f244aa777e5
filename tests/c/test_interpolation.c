/* The interpolation C API (include/fovea/interpolation.h; ops SPLINE1D and INTERP):
 *
 *  - orders 0 and 1 of fv_zoom_shift, fv_affine_transform and fv_map_coordinates
 *    on the CPU against a reference written here from the definitions (nearest
 *    sample, rounded half up; bilinear weights; the boundary rules of each mode
 *    by integer folding), for 1-d and 2-d float64 inputs, every mode;
 *  - orders 2-5 with the prefilter: the spline through prefiltered coefficients
 *    takes the input's own values at integer coordinates (the prefilter's
 *    defining property), for every mode whose prefilter is exact there
 *    (mirror, reflect, grid-wrap, nearest, grid-constant), 1-d to 3-d, on
 *    lines long enough for scipy 1.17's inexact reflect start not to show;
 *  - fv_spline_filter == fv_spline_filter1d along every axis in turn;
 *  - integer outputs: rounded half away from zero and clamped;
 *  - the CUDA backend (when a GPU is usable): every case above bit for bit
 *    against the CPU's result;
 *  - fv_affine_transform_planes == fv_affine_transform on each plane, bit for
 *    bit, every mode and order (and on the GPU against the CPU);
 *  - argument errors: NULL arrays, bad order and mode, wrong coordinate shape,
 *    read-only and overlapping outputs, batch axes.
 * Exits 0 with the CUDA part skipped (and says so) where no GPU is usable. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fovea/fovea.h"

static fv_context *ctx;
static const fv_device CPU = { FV_DEVICE_CPU, 0 };
static const fv_device GPU = { FV_DEVICE_CUDA, 0 };
static int gpu;

static double
urand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static fv_array *
new_f64(int ndim, const int64_t *shape, uint64_t *seed)
{
    fv_array *a = NULL;
    if (fv_array_new(ctx, FV_FLOAT64, ndim, shape, CPU, &a))
        return NULL;
    double *p = fv_array_data(a);
    for (int64_t i = 0; i < fv_array_size(a); i++)
        p[i] = urand(seed) * 10.0 - 5.0;
    return a;
}

/* The sample index for integer position i of an axis of n under mode (-1: cval). */
static int64_t
ref_index(int64_t i, int64_t n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case FV_INTERP_NEAREST:
        return i < 0 ? 0 : n - 1;
    case FV_INTERP_GRID_CONSTANT:
        return -1;
    case FV_INTERP_REFLECT: {
        int64_t p = 2 * n, r = ((i % p) + p) % p;
        return r < n ? r : p - 1 - r;
    }
    case FV_INTERP_GRID_WRAP:
        return ((i % n) + n) % n;
    default: { /* mirror: also the spline's own rule for constant and wrap */
        if (n == 1)
            return 0;
        int64_t p = 2 * n - 2, r = ((i % p) + p) % p;
        return r < n ? r : p - r;
    }
    }
}

/* A coordinate folded by the periodic modes (scipy's rules for where the value
 * is taken; constant: NAN outside [0, n-1]). */
static double
ref_fold(double x, int64_t n, int mode)
{
    if (x >= 0 && x <= n - 1)
        return x;
    switch (mode) {
    case FV_INTERP_CONSTANT:
        return NAN;
    case FV_INTERP_NEAREST:
    case FV_INTERP_GRID_CONSTANT:
        return x;
    case FV_INTERP_MIRROR: {
        double p = 2.0 * n - 2, r = fmod(fabs(x), p);
        return r <= n - 1 ? r : p - r;
    }
    case FV_INTERP_REFLECT: {
        double p = 2.0 * n, r = fmod(x, p);
        if (r < 0)
            r += p;
        return r < n ? r : p - r - 1; /* half-sample symmetric */
    }
    case FV_INTERP_WRAP: {
        double p = (double)(n - 1), r = fmod(x, p);
        return r < 0 ? r + p : r;
    }
    default: { /* grid-wrap */
        double r = fmod(x, (double)n);
        return r < 0 ? r + n : r;
    }
    }
}

/* The order 0 / 1 value of a 2-d (rows n0 = 1 for 1-d) array at (y, x). */
static double
ref_value(const double *a, int64_t n0, int64_t n1, double y, double x, int order, int mode, double cval)
{
    if (n0 > 1 || mode == FV_INTERP_CONSTANT) {
        y = ref_fold(y, n0, mode);
    }
    x = ref_fold(x, n1, mode);
    if (isnan(x) || isnan(y))
        return cval;
    if (mode == FV_INTERP_REFLECT && (x < 0 || y < 0)) {
        /* reflect folds (-1, 0) onto itself: the window straddles the edge */
    }
    const int smode = (mode == FV_INTERP_CONSTANT || mode == FV_INTERP_WRAP) ? FV_INTERP_MIRROR : mode;
    if (order == 0) {
        int64_t iy = ref_index((int64_t)floor(y + 0.5), n0, smode);
        int64_t ix = ref_index((int64_t)floor(x + 0.5), n1, smode);
        return (iy < 0 || ix < 0) ? cval : a[iy * n1 + ix];
    }
    const double fy = floor(y), fx = floor(x), wy = y - fy, wx = x - fx;
    double t = 0;
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            int64_t iy = ref_index((int64_t)fy + dy, n0, smode), ix = ref_index((int64_t)fx + dx, n1, smode);
            double v = (iy < 0 || ix < 0) ? cval : a[iy * n1 + ix];
            t += v * (dy ? wy : 1 - wy) * (dx ? wx : 1 - wx);
        }
    return t;
}

/* out = in's spline at the affine map of each output index, on dev; result on the host. */
static fv_array *
run_affine(fv_array *in, const double *m, const double *off, const int64_t *oshape, int order, int mode, double cval,
           int prefilter, fv_device dev)
{
    fv_array *src = in, *out = NULL, *host = NULL;
    if (dev.type == FV_DEVICE_CUDA) {
        if (fv_array_new(ctx, fv_array_dtype(in), fv_array_ndim(in), fv_array_shape(in), dev, &src) ||
            fv_copy(ctx, in, src))
            return NULL;
    }
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, fv_array_ndim(in), oshape, dev, &out));
    CHECK_OK(fv_affine_transform(ctx, src, m, off, out, order, (fv_interp_mode)mode, cval, prefilter));
    if (dev.type == FV_DEVICE_CUDA) {
        CHECK_OK(fv_array_new(ctx, FV_FLOAT64, fv_array_ndim(in), oshape, CPU, &host));
        CHECK_OK(fv_copy(ctx, out, host));
        fv_array_unref(out);
        fv_array_unref(src);
        return host;
    }
    return out;
}

static void
test_low_orders(void)
{
    uint64_t seed = 88172645463325252ull;
    for (int nd = 1; nd <= 2; nd++) {
        const int64_t shape[2] = { nd == 2 ? 5 : 1, 7 };
        const int64_t ishape[2] = { shape[nd == 2 ? 0 : 1], 7 };
        fv_array *in = new_f64(nd, nd == 2 ? shape : ishape + 1, &seed);
        const double *a = fv_array_data(in);
        const int64_t n0 = nd == 2 ? 5 : 1, n1 = 7;
        const int64_t oshape[2] = { nd == 2 ? 6 : 11, 11 };
        for (int mode = 0; mode < FV_INTERP_MODE_COUNT; mode++)
            for (int order = 0; order <= 1; order++) {
                /* a map that reaches well outside the input on both sides */
                double m[4], off[2];
                if (nd == 2) {
                    m[0] = 1.3;
                    m[1] = 0.21;
                    m[2] = -0.17;
                    m[3] = 1.7;
                    off[0] = -2.6;
                    off[1] = -4.3;
                } else {
                    m[0] = 1.9;
                    off[0] = -4.7;
                }
                fv_array *out = run_affine(in, m, off, nd == 2 ? oshape : oshape + 1, order, mode, 0.5, 1, CPU);
                const double *o = fv_array_data(out);
                int bad = 0;
                for (int64_t i = 0; i < (nd == 2 ? oshape[0] : 1); i++)
                    for (int64_t j = 0; j < oshape[1]; j++) {
                        double y = 0, x;
                        if (nd == 2) {
                            y = off[0] + i * m[0] + j * m[1];
                            x = off[1] + i * m[2] + j * m[3];
                        } else {
                            x = off[0] + j * m[0];
                        }
                        const double want = ref_value(a, n0, n1, y, x, order, mode, 0.5);
                        const double got = o[i * oshape[1] + j];
                        if (!(fabs(got - want) <= 1e-12 * (1 + fabs(want)))) {
                            if (!bad++)
                                fprintf(stderr, "nd %d mode %d order %d at (%ld, %ld): %.17g, want %.17g\n", nd, mode,
                                        order, (long)i, (long)j, got, want);
                        }
                    }
                CHECK(bad == 0);
                if (gpu) {
                    fv_array *d = run_affine(in, m, off, nd == 2 ? oshape : oshape + 1, order, mode, 0.5, 1, GPU);
                    CHECK(d && !memcmp(fv_array_data(d), o, (size_t)fv_array_nbytes(out)));
                    fv_array_unref(d);
                }
                fv_array_unref(out);
            }
        fv_array_unref(in);
    }
}

/* prefiltered splines pass through the samples */
static void
test_interpolating(void)
{
    uint64_t seed = 1234567ull;
    const int modes[] = { FV_INTERP_MIRROR, FV_INTERP_REFLECT, FV_INTERP_GRID_WRAP, FV_INTERP_NEAREST,
                          FV_INTERP_GRID_CONSTANT };
    for (int nd = 1; nd <= 3; nd++) {
        /* lines of 20 samples and more: scipy 1.17's reflect prefilter, which fovea
         * reproduces, starts inexactly on short lines (by z^2n: 5e-3 at order 5 on 4
         * samples; docs/transform.md) */
        int64_t shape[3] = { 24, 22, 20 };
        fv_array *in = new_f64(nd, shape, &seed);
        double m[9] = { 0 }, off[3] = { 0 };
        for (int d = 0; d < nd; d++)
            m[d * nd + d] = 1.0;
        for (int k = 0; k < 5; k++)
            for (int order = 2; order <= 5; order++) {
                fv_array *out = run_affine(in, m, off, shape, order, modes[k], 0.0, 1, CPU);
                const double *o = fv_array_data(out), *a = fv_array_data(in);
                double err = 0;
                for (int64_t i = 0; i < fv_array_size(in); i++)
                    err = fmax(err, fabs(o[i] - a[i]));
                if (err > 1e-9)
                    fprintf(stderr, "nd %d mode %d order %d: max error %g\n", nd, modes[k], order, err);
                CHECK(err <= 1e-9);
                if (gpu) {
                    fv_array *d = run_affine(in, m, off, shape, order, modes[k], 0.0, 1, GPU);
                    const double *g = d ? fv_array_data(d) : NULL;
                    double gerr = 0;
                    for (int64_t i = 0; g && i < fv_array_size(in); i++)
                        gerr = fmax(gerr, fabs(g[i] - o[i]));
                    CHECK(d && gerr <= 1e-12); /* pow() of the two math libraries may differ by an ulp */
                    fv_array_unref(d);
                }
                fv_array_unref(out);
            }
        /* fv_spline_filter == fv_spline_filter1d along every axis in turn */
        fv_array *f1 = NULL, *f2 = NULL;
        CHECK_OK(fv_array_new(ctx, FV_FLOAT64, nd, shape, CPU, &f1));
        CHECK_OK(fv_array_new(ctx, FV_FLOAT64, nd, shape, CPU, &f2));
        CHECK_OK(fv_spline_filter(ctx, in, f1, 3, FV_INTERP_MIRROR));
        for (int d = 0; d < nd; d++)
            CHECK_OK(fv_spline_filter1d(ctx, d ? f2 : in, f2, 3, d, FV_INTERP_MIRROR));
        CHECK(!memcmp(fv_array_data(f1), fv_array_data(f2), (size_t)fv_array_nbytes(f1)));
        fv_array_unref(f1);
        fv_array_unref(f2);
        fv_array_unref(in);
    }
}

static void
test_integer_outputs(void)
{
    const int64_t n = 4;
    double vals[4] = { -300.0, 2.5, -2.5, 70000.0 };
    fv_array *in = NULL, *u8 = NULL, *i16 = NULL;
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, &n, NULL, vals, CPU, NULL, NULL, &in));
    CHECK_OK(fv_array_new(ctx, FV_UINT8, 1, &n, CPU, &u8));
    CHECK_OK(fv_array_new(ctx, FV_INT16, 1, &n, CPU, &i16));
    CHECK_OK(fv_zoom_shift(ctx, in, NULL, NULL, u8, 0, FV_INTERP_MIRROR, 0, 0, 0));
    CHECK_OK(fv_zoom_shift(ctx, in, NULL, NULL, i16, 1, FV_INTERP_MIRROR, 0, 0, 0));
    const uint8_t *pu = fv_array_data(u8);
    const int16_t *pi = fv_array_data(i16);
    CHECK(pu[0] == 0 && pu[1] == 3 && pu[2] == 0 && pu[3] == 255);
    CHECK(pi[0] == -300 && pi[1] == 3 && pi[2] == -3 && pi[3] == 32767);
    fv_array_unref(in);
    fv_array_unref(u8);
    fv_array_unref(i16);
}

static void
test_errors(void)
{
    const int64_t shape[2] = { 4, 5 }, cshape[3] = { 3, 2, 2 }, oshape[2] = { 2, 2 };
    fv_array *in = NULL, *out = NULL, *co = NULL, *o2 = NULL;
    uint64_t seed = 99;
    in = new_f64(2, shape, &seed);
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, shape, CPU, &out));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT64, 3, cshape, CPU, &co));
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, oshape, CPU, &o2));
    const double zoom[2] = { 1, 1 };
    CHECK_ERR(fv_zoom_shift(ctx, NULL, zoom, NULL, out, 1, FV_INTERP_MIRROR, 0, 1, 0), FV_EINVAL, "NULL");
    CHECK_ERR(fv_zoom_shift(ctx, in, zoom, NULL, out, 6, FV_INTERP_MIRROR, 0, 1, 0), FV_EINVAL, "order");
    CHECK_ERR(fv_zoom_shift(ctx, in, zoom, NULL, out, -1, FV_INTERP_MIRROR, 0, 1, 0), FV_EINVAL, "order");
    CHECK_ERR(fv_zoom_shift(ctx, in, zoom, NULL, out, 1, (fv_interp_mode)7, 0, 1, 0), FV_EINVAL, "mode");
    CHECK_ERR(fv_map_coordinates(ctx, in, co, o2, 1, FV_INTERP_MIRROR, 0, 1), FV_EINVAL, "coordinate");
    CHECK_ERR(fv_map_coordinates(ctx, in, NULL, o2, 1, FV_INTERP_MIRROR, 0, 1), FV_EINVAL, "coordinates");
    CHECK_ERR(fv_zoom_shift(ctx, in, zoom, NULL, in, 1, FV_INTERP_MIRROR, 0, 1, 0), FV_EINVAL, "shares memory");
    CHECK_ERR(fv_spline_filter(ctx, in, out, 1, FV_INTERP_MIRROR), FV_EINVAL, "order");
    CHECK_ERR(fv_spline_filter1d(ctx, in, out, 3, 2, FV_INTERP_MIRROR), FV_EINVAL, "axis");
    fv_array_set_readonly(out, 1);
    CHECK_ERR(fv_zoom_shift(ctx, in, zoom, NULL, out, 1, FV_INTERP_MIRROR, 0, 1, 0), FV_EINVAL, "read-only");
    fv_interp_mode md;
    CHECK_OK(fv_interp_mode_from_name("grid-mirror", &md));
    CHECK(md == FV_INTERP_REFLECT);
    CHECK_ERR(fv_interp_mode_from_name("bogus", &md), FV_EINVAL, "not supported");
    fv_array_unref(in);
    fv_array_unref(out);
    fv_array_unref(co);
    fv_array_unref(o2);
}

/* planes (in (4, 7, 9) or a copy of it on dev) mapped by m with batch 1, on dev;
 * the result on the host. */
static fv_array *
run_planes(fv_array *in, const double *m, const double *off, int order, int mode, fv_device dev)
{
    fv_array *src = in, *out = NULL, *host = NULL;
    if (dev.type == FV_DEVICE_CUDA) {
        CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 3, fv_array_shape(in), dev, &src));
        CHECK_OK(fv_copy(ctx, in, src));
    }
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 3, fv_array_shape(in), dev, &out));
    CHECK_OK(fv_affine_transform_planes(ctx, src, 1, m, off, out, order, (fv_interp_mode)mode, 0.25, 1));
    if (dev.type != FV_DEVICE_CUDA)
        return out;
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 3, fv_array_shape(in), CPU, &host));
    CHECK_OK(fv_copy(ctx, out, host));
    fv_array_unref(out);
    fv_array_unref(src);
    return host;
}

static void
test_planes(void)
{
    const int64_t shape[3] = { 4, 7, 9 };
    const double m[4] = { 0.8, 0.5, -0.5, 0.8 }, off[2] = { 1.5, -2.0 };
    uint64_t seed = 7;
    fv_array *in = new_f64(3, shape, &seed), *bad = NULL;
    const int64_t plane = 7 * 9;
    for (int order = 0; order <= 5; order++)
        for (int mode = 0; mode < FV_INTERP_MODE_COUNT; mode++) {
            fv_array *got = run_planes(in, m, off, order, mode, CPU);
            int same = got != NULL;
            for (int64_t b = 0; b < 4 && same; b++) {
                fv_array *iv = NULL, *ov = NULL;
                CHECK_OK(fv_array_view(in, 2, shape + 1, fv_array_strides(in) + 1, b * plane * 8, &iv));
                fv_array *want = run_affine(iv, m, off, shape + 1, order, mode, 0.25, 1, CPU);
                CHECK_OK(fv_array_view(got, 2, shape + 1, fv_array_strides(got) + 1, b * plane * 8, &ov));
                same = want && memcmp(fv_array_data(ov), fv_array_data(want), (size_t)plane * 8) == 0;
                fv_array_unref(iv);
                fv_array_unref(ov);
                fv_array_unref(want);
            }
            CHECK(same);
            if (gpu && got) {
                fv_array *g = run_planes(in, m, off, order, mode, GPU);
                CHECK(g && memcmp(fv_array_data(g), fv_array_data(got), (size_t)fv_array_size(got) * 8) == 0);
                fv_array_unref(g);
            }
            fv_array_unref(got);
        }
    const int64_t bshape[3] = { 3, 7, 9 };
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 3, bshape, CPU, &bad));
    CHECK_ERR(fv_affine_transform_planes(ctx, in, 1, m, off, bad, 1, FV_INTERP_MIRROR, 0, 1), FV_EINVAL, "extents");
    CHECK_ERR(fv_affine_transform_planes(ctx, in, 3, m, off, in, 1, FV_INTERP_MIRROR, 0, 1), FV_EINVAL, "batch");
    CHECK_ERR(fv_affine_transform_planes(ctx, in, 1, NULL, off, bad, 1, FV_INTERP_MIRROR, 0, 1), FV_EINVAL, "NULL");
    fv_array_unref(bad);
    fv_array_unref(in);
}

int
main(void)
{
    CHECK_OK(fv_context_new(&ctx));
    gpu = fv_cuda_available();
    if (!gpu)
        printf("test_interpolation: no usable GPU, the CUDA comparisons are skipped\n");
    test_low_orders();
    test_interpolating();
    test_integer_outputs();
    test_errors();
    test_planes();
    fv_context_free(ctx);
    printf("%d passed, %d failed\n", fv_t_pass, fv_t_fail);
    return fv_t_fail != 0;
}
