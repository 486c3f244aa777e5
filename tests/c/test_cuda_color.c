/* The CUDA colour kernel (FV__OP_COLOR) against the CPU one: every conversion
 * and colour difference on random data, float32 and float64, contiguous and
 * channel-first (strided) inputs, float32 -> float64 for the stain matrices.
 * Both backends run the same per-pixel source (src/ops/color/color-math.h);
 * results agree to the device's libm accuracy: rtol 1e-5 (float32) and 1e-12
 * (float64) with an atol of rtol times the result's largest magnitude.
 * Exits 77 (ctest: skipped) without a usable GPU. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fovea/fovea.h"
#define FV_T_SEED 0x9e3779b97f4a7c15ull
#include "harness.h" /* check.h, variant-force.h, xorshift.h, arrays, devices */

/* Host (H, W, C) data of dt in [lo[c], hi[c]). */
static fv_array *
random_image(fv_dtype dt, int64_t h, int64_t w, int c, const double *lo, const double *hi)
{
    int64_t shape[3] = { h, w, c };
    fv_array *a = new_array(dt, 3, shape, CPU);
    for (int64_t i = 0; i < h * w; i++)
        for (int k = 0; k < c; k++) {
            double v = uniform_in(lo[k % 3], hi[k % 3]);
            if (dt == FV_FLOAT32)
                ((float *)fv_array_data(a))[i * c + k] = (float)v;
            else
                ((double *)fv_array_data(a))[i * c + k] = v;
        }
    return a;
}

static double
at(const fv_array *a, int64_t i)
{
    return fv_array_dtype(a) == FV_FLOAT32 ? ((const float *)fv_array_data(a))[i]
                                           : ((const double *)fv_array_data(a))[i];
}

/* single: the result went through float32 arithmetic (a float32 output, or a
 * float32 intermediate such as STAIN_LOG's logf of float32 input even when
 * the output is float64): compared at float32 level, since the GPU's
 * transcendentals (logf, powf, cbrtf: CUDA documents 1-2 ulp) and FMA
 * contraction differ from glibc's by an ulp or so of the working type. */
static void
compare(const char *what, const fv_array *got, const fv_array *want, int single)
{
    int64_t n = fv_array_size(want);
    double rtol = single || fv_array_dtype(want) == FV_FLOAT32 ? 1e-5 : 1e-12, scale = 0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(at(want, i)) && fabs(at(want, i)) > scale)
            scale = fabs(at(want, i));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = at(got, i), w = at(want, i);
        if (isnan(w) ? !isnan(g) : !(fabs(g - w) <= rtol * fabs(w) + rtol * scale)) {
            if (bad++ < 3)
                fprintf(stderr, "%s: [%lld] gpu %.17g cpu %.17g\n", what, (long long)i, g, w);
        }
    }
    CHECK(bad == 0);
}

/* Run p on host data h (channels last, or channel-first viewed last when
 * strided) on both backends; out has oc channels (0: none) of dtype odt. */
static void
run_case(const char *what, const fv_color_params *p, const fv_array *h, const fv_array *h2, int oc, fv_dtype odt,
         int strided)
{
    const int64_t *s = fv_array_shape(h);
    int64_t oshape[3] = { s[0], s[1], oc };
    fv_array *hin = NULL, *din = NULL, *dbase = NULL, *hin2 = NULL, *din2 = NULL, *d2base = NULL;
    if (strided) { /* a channel-first buffer seen as (H, W, C) */
        int64_t c = s[2], fshape[3] = { c, s[0], s[1] };
        size_t isz = fv_dtype_size(fv_array_dtype(h));
        fv_array *hb = new_array(fv_array_dtype(h), 3, fshape, CPU);
        for (int64_t y = 0; y < s[0]; y++)
            for (int64_t x = 0; x < s[1]; x++)
                for (int64_t k = 0; k < c; k++)
                    memcpy((char *)fv_array_data(hb) + ((k * s[0] + y) * s[1] + x) * isz,
                           (const char *)fv_array_data(h) + ((y * s[1] + x) * c + k) * isz, isz);
        int64_t st[3] = { (int64_t)(s[1] * isz), (int64_t)isz, (int64_t)(s[0] * s[1] * isz) };
        dbase = new_array(fv_array_dtype(h), 3, fshape, GPU);
        CHECK_OK(fv_copy(ctx, hb, dbase));
        CHECK_OK(fv_array_view(hb, 3, s, st, 0, &hin));
        CHECK_OK(fv_array_view(dbase, 3, s, st, 0, &din));
        fv_array_unref(hb);
    } else {
        hin = fv_array_ref((fv_array *)h);
        din = new_array(fv_array_dtype(h), 3, s, GPU);
        CHECK_OK(fv_copy(ctx, h, din));
    }
    if (h2) {
        hin2 = fv_array_ref((fv_array *)h2);
        din2 = new_array(fv_array_dtype(h2), 3, s, GPU);
        CHECK_OK(fv_copy(ctx, h2, din2));
    }
    (void)d2base;
    int ond = oc ? 3 : 2;
    fv_array *hout = new_array(odt, ond, oshape, CPU), *dout = new_array(odt, ond, oshape, GPU);
    fv_array *got = new_array(odt, ond, oshape, CPU);
    if (h2) {
        CHECK_OK(fv_color_delta_e(ctx, hin, hin2, hout, p));
        CHECK_OK(fv_color_delta_e(ctx, din, din2, dout, p));
    } else {
        CHECK_OK(fv_color_convert(ctx, hin, hout, p));
        CHECK_OK(fv_color_convert(ctx, din, dout, p));
    }
    CHECK_OK(fv_copy(ctx, dout, got));
    char name[160];
    snprintf(name, sizeof name, "%s %s%s", what, fv_dtype_name(fv_array_dtype(h)), strided ? " strided" : "");
    /* float32 input, float64 output: STAIN_LOG still takes its log in float32
     * (as skimage's separate_stains does), so the result carries a float32
     * rounding of logf that differs by an ulp between CUDA and glibc */
    int single =
        fv_array_dtype(h) == FV_FLOAT32 && !h2 && p->conv == FV_COLOR_MATRIX && p->pre == FV_COLOR_PRE_STAIN_LOG;
    compare(name, got, hout, single);
    fv_array *all[] = { hin, din, dbase, hin2, din2, hout, dout, got };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        fv_array_unref(all[k]);
}

int
main(void)
{
    if (!fv_cuda_available()) {
        printf("test_cuda_color: skipped: %s\n", fv_cuda_unavailable_reason());
        return 77;
    }
    CHECK_OK(fv_context_new(&ctx));
    static const double rgb_lo[3] = { 0, 0, 0 }, rgb_hi[3] = { 1, 1, 1 };
    static const double lab_lo[3] = { 0, -128, -128 }, lab_hi[3] = { 100, 127, 127 };
    static const double luv_lo[3] = { 0, -100, -100 }, luv_hi[3] = { 100, 100, 100 };
    static const double xyz[3][3] = { { 0.412453, 0.357580, 0.180423 },
                                      { 0.212671, 0.715160, 0.072169 },
                                      { 0.019334, 0.119193, 0.950227 } };
    struct {
        const char *name;
        fv_color_conv conv;
        fv_color_pre pre;
        fv_color_post post;
        const double *lo, *hi;
        int cin;
    } cases[] = {
        { "rgb2xyz", FV_COLOR_MATRIX, FV_COLOR_PRE_SRGB_LINEAR, FV_COLOR_POST_NONE, rgb_lo, rgb_hi, 3 },
        { "xyz2rgb-like", FV_COLOR_MATRIX, FV_COLOR_PRE_NONE, FV_COLOR_POST_SRGB_GAMMA, rgb_lo, rgb_hi, 3 },
        { "stain log", FV_COLOR_MATRIX, FV_COLOR_PRE_STAIN_LOG, FV_COLOR_POST_NONNEG, rgb_lo, rgb_hi, 3 },
        { "stain exp", FV_COLOR_MATRIX, FV_COLOR_PRE_STAIN_EXP, FV_COLOR_POST_EXP_CLIP, rgb_lo, rgb_hi, 3 },
        { "rgb2hsv", FV_COLOR_RGB2HSV, 0, 0, rgb_lo, rgb_hi, 3 },
        { "hsv2rgb", FV_COLOR_HSV2RGB, 0, 0, rgb_lo, rgb_hi, 3 },
        { "xyz2lab", FV_COLOR_XYZ2LAB, 0, 0, rgb_lo, rgb_hi, 3 },
        { "lab2xyz", FV_COLOR_LAB2XYZ, 0, 0, lab_lo, lab_hi, 3 },
        { "xyz2luv", FV_COLOR_XYZ2LUV, 0, 0, rgb_lo, rgb_hi, 3 },
        { "luv2xyz", FV_COLOR_LUV2XYZ, 0, 0, luv_lo, luv_hi, 3 },
        { "lab2lch", FV_COLOR_LAB2LCH, 0, 0, lab_lo, lab_hi, 5 },
        { "lch2lab", FV_COLOR_LCH2LAB, 0, 0, rgb_lo, lab_hi, 3 },
        { "rgba2rgb", FV_COLOR_RGBA2RGB, 0, 0, rgb_lo, rgb_hi, 4 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int f64 = 0; f64 < 2; f64++)
            for (int strided = 0; strided < 2; strided++) {
                fv_color_params p;
                memset(&p, 0, sizeof p);
                p.conv = cases[k].conv;
                p.pre = cases[k].pre;
                p.post = cases[k].post;
                p.rows = 3;
                memcpy(p.matrix, xyz, sizeof xyz);
                p.white[0] = 0.95047, p.white[1] = 1, p.white[2] = 1.08883;
                p.background[0] = 0.2, p.background[1] = 1, p.background[2] = 0.5;
                fv_dtype dt = f64 ? FV_FLOAT64 : FV_FLOAT32;
                fv_array *h = random_image(dt, 37, 53, cases[k].cin, cases[k].lo, cases[k].hi);
                int oc = cases[k].cin == 5 ? 5 : 3;
                run_case(cases[k].name, &p, h, NULL, oc, dt, strided);
                if (cases[k].conv == FV_COLOR_MATRIX && !f64) /* float32 in, float64 out */
                    run_case(cases[k].name, &p, h, NULL, oc, FV_FLOAT64, strided);
                if (cases[k].conv == FV_COLOR_MATRIX) { /* one row, no channel axis */
                    p.rows = 1;
                    run_case(cases[k].name, &p, h, NULL, 0, dt, strided);
                }
                fv_array_unref(h);
            }
    const fv_color_conv deltas[] = { FV_COLOR_DELTAE_CIE76, FV_COLOR_DELTAE_CIEDE94, FV_COLOR_DELTAE_CIEDE2000,
                                     FV_COLOR_DELTAE_CMC };
    for (size_t k = 0; k < sizeof deltas / sizeof deltas[0]; k++)
        for (int f64 = 0; f64 < 2; f64++) {
            fv_color_params p;
            memset(&p, 0, sizeof p);
            p.conv = deltas[k];
            p.k[0] = p.k[1] = p.k[2] = 1;
            p.k[3] = 0.045;
            p.k[4] = 0.015;
            fv_dtype dt = f64 ? FV_FLOAT64 : FV_FLOAT32;
            fv_array *a = random_image(dt, 41, 29, 3, lab_lo, lab_hi), *b = random_image(dt, 41, 29, 3, lab_lo, lab_hi);
            run_case(fv_color_conv_name(deltas[k]), &p, a, b, 0, dt, 0);
            run_case(fv_color_conv_name(deltas[k]), &p, a, b, 0, dt, 1);
            fv_array_unref(a);
            fv_array_unref(b);
        }
    fv_context_free(ctx);
    return fv_t_summary("test_cuda_color");
}
