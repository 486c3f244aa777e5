/* The colour op (include/fovea/color.h) on the CPU: known values of each
 * conversion, strided (channel-first) views, in-place use, and every argument
 * error. The comparison with scikit-image itself lives in
 * tests/python/test_skimage_color.py; the CUDA kernels are compared with these
 * CPU ones by test_cuda_color.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fovea/fovea.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };

static fv_array *
arr(fv_dtype dt, int nd, int64_t a, int64_t b, int64_t c)
{
    int64_t shape[3] = { a, b, c };
    fv_array *x = NULL;
    CHECK_OK(fv_array_new(NULL, dt, nd, shape, CPU, &x));
    return x;
}

static void
set3(fv_array *x, int64_t pixel, double a, double b, double c)
{
    double *d = (double *)fv_array_data(x) + pixel * 3;
    d[0] = a;
    d[1] = b;
    d[2] = c;
}

static int
near(double got, double want, double tol)
{
    return fabs(got - want) <= tol * (1 + fabs(want));
}

static fv_color_params
params(fv_color_conv conv)
{
    fv_color_params p;
    memset(&p, 0, sizeof p);
    p.conv = conv;
    p.white[0] = 0.95047;
    p.white[1] = 1.0;
    p.white[2] = 1.08883;
    return p;
}

static void
test_values(void)
{
    fv_array *in = arr(FV_FLOAT64, 2, 4, 3, 0), *out = arr(FV_FLOAT64, 2, 4, 3, 0);
    set3(in, 0, 1, 0, 0);
    set3(in, 1, 0, 1, 0);
    set3(in, 2, 0, 0, 1);
    set3(in, 3, 0.5, 0.5, 0.5);
    const double *o = (const double *)fv_array_data(out);

    fv_color_params p = params(FV_COLOR_RGB2HSV);
    CHECK_OK(fv_color_convert(NULL, in, out, &p));
    CHECK(near(o[0], 0, 1e-15) && near(o[1], 1, 1e-15) && near(o[2], 1, 1e-15));
    CHECK(near(o[3], 1.0 / 3, 1e-15) && near(o[6], 2.0 / 3, 1e-15));
    CHECK(o[9] == 0 && o[10] == 0 && o[11] == 0.5);

    /* identity matrix with offsets and a clip */
    p = params(FV_COLOR_MATRIX);
    p.rows = 3;
    for (int r = 0; r < 3; r++) {
        p.matrix[r][r] = 2;
        p.post_offset[r] = -0.5;
    }
    p.post = FV_COLOR_POST_CLIP01;
    CHECK_OK(fv_color_convert(NULL, in, out, &p));
    CHECK(o[0] == 1 && o[1] == 0 && o[11] == 0.5);

    /* the white point is L* = 100, a* = b* = 0; and back */
    set3(in, 0, 0.95047, 1.0, 1.08883);
    p = params(FV_COLOR_XYZ2LAB);
    CHECK_OK(fv_color_convert(NULL, in, out, &p));
    CHECK(near(o[0], 100, 1e-12) && fabs(o[1]) < 1e-12 && fabs(o[2]) < 1e-12);
    fv_array *back = arr(FV_FLOAT64, 2, 4, 3, 0);
    p = params(FV_COLOR_LAB2XYZ);
    CHECK_OK(fv_color_convert(NULL, out, back, &p));
    CHECK(near(((double *)fv_array_data(back))[2], 1.08883, 1e-6));

    /* lab2lch: (L, 3, 4) -> (L, 5, atan2(4, 3)) */
    set3(in, 1, 50, 3, 4);
    p = params(FV_COLOR_LAB2LCH);
    CHECK_OK(fv_color_convert(NULL, in, out, &p));
    CHECK(o[3] == 50 && near(o[4], 5, 1e-15) && near(o[5], atan2(4, 3), 1e-15));

    /* rgb2gray drops the channel axis */
    fv_array *gray = arr(FV_FLOAT64, 1, 4, 0, 0);
    p = params(FV_COLOR_MATRIX);
    p.rows = 1;
    p.matrix[0][0] = 0.2125;
    p.matrix[0][1] = 0.7154;
    p.matrix[0][2] = 0.0721;
    CHECK_OK(fv_color_convert(NULL, in, gray, &p));
    CHECK(near(((double *)fv_array_data(gray))[3], 0.5, 1e-15));

    /* deltaE 76 of (0,0,0) and (3,4,0) is 5; CIEDE2000 of equal colours is 0 */
    fv_array *lab2 = arr(FV_FLOAT64, 2, 4, 3, 0);
    memset(fv_array_data(in), 0, 4 * 3 * sizeof(double));
    memset(fv_array_data(lab2), 0, 4 * 3 * sizeof(double));
    set3(lab2, 0, 3, 4, 0);
    p = params(FV_COLOR_DELTAE_CIE76);
    CHECK_OK(fv_color_delta_e(NULL, in, lab2, gray, &p));
    CHECK(((double *)fv_array_data(gray))[0] == 5 && ((double *)fv_array_data(gray))[1] == 0);
    p = params(FV_COLOR_DELTAE_CIEDE2000);
    p.k[0] = p.k[1] = p.k[2] = 1;
    set3(in, 2, 50, 20, -30);
    set3(lab2, 2, 50, 20, -30);
    CHECK_OK(fv_color_delta_e(NULL, in, lab2, gray, &p));
    CHECK(((double *)fv_array_data(gray))[2] == 0);

    fv_array_unref(lab2);
    fv_array_unref(gray);
    fv_array_unref(back);
    fv_array_unref(in);
    fv_array_unref(out);
}

/* Channel-first data viewed channels-last (strides), float32, and in place. */
static void
test_layouts(void)
{
    fv_array *base = arr(FV_FLOAT32, 3, 3, 5, 7), *view = NULL, *out = arr(FV_FLOAT32, 3, 5, 7, 3);
    float *b = (float *)fv_array_data(base);
    for (int i = 0; i < 3 * 5 * 7; i++)
        b[i] = (float)((i * 37) % 101) / 100.0f;
    int64_t shape[3] = { 5, 7, 3 }, strides[3] = { 7 * 4, 4, 5 * 7 * 4 };
    CHECK_OK(fv_array_view(base, 3, shape, strides, 0, &view));
    fv_color_params p = params(FV_COLOR_RGB2HSV);
    CHECK_OK(fv_color_convert(NULL, view, out, &p));
    const float *o = (const float *)fv_array_data(out);
    int ok = 1;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 7; x++) {
            float r = b[0 * 35 + y * 7 + x], g = b[1 * 35 + y * 7 + x], bl = b[2 * 35 + y * 7 + x];
            float mx = fmaxf(r, fmaxf(g, bl));
            ok &= o[(y * 7 + x) * 3 + 2] == mx;
        }
    CHECK(ok);
    /* in place on the same array: hsv2rgb(rgb2hsv(x)) == x to float32 rounding */
    fv_array *copy = arr(FV_FLOAT32, 3, 5, 7, 3);
    memcpy(fv_array_data(copy), o, 5 * 7 * 3 * sizeof(float));
    p = params(FV_COLOR_HSV2RGB);
    CHECK_OK(fv_color_convert(NULL, out, out, &p));
    ok = 1;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 7; x++)
            ok &= fabsf(o[(y * 7 + x) * 3 + 1] - b[1 * 35 + y * 7 + x]) < 1e-6f;
    CHECK(ok);
    fv_array_unref(copy);
    fv_array_unref(view);
    fv_array_unref(base);
    fv_array_unref(out);
}

static void
test_errors(void)
{
    fv_array *in = arr(FV_FLOAT64, 2, 4, 3, 0), *out = arr(FV_FLOAT64, 2, 4, 3, 0);
    fv_array *in4 = arr(FV_FLOAT64, 2, 4, 4, 0), *i32 = arr(FV_INT32, 2, 4, 3, 0), *f32 = arr(FV_FLOAT32, 2, 4, 3, 0);
    fv_array *short_out = arr(FV_FLOAT64, 2, 3, 3, 0), *two = arr(FV_FLOAT64, 2, 4, 2, 0);
    fv_array *flat = arr(FV_FLOAT64, 1, 4, 0, 0), *in5 = arr(FV_FLOAT64, 2, 5, 3, 0);
    memset(fv_array_data(in), 0, 4 * 3 * sizeof(double));
    fv_color_params p = params(FV_COLOR_RGB2HSV);
    CHECK_ERR(fv_color_convert(NULL, in, out, NULL), FV_EINVAL, "NULL params");
    CHECK_ERR(fv_color_convert(NULL, NULL, out, &p), FV_EINVAL, "NULL array");
    CHECK_ERR(fv_color_convert(NULL, in4, out, &p), FV_EINVAL, "must have 3 channels");
    CHECK_ERR(fv_color_convert(NULL, i32, out, &p), FV_EDTYPE, "float32 or float64");
    CHECK_ERR(fv_color_convert(NULL, in, f32, &p), FV_EDTYPE, "not supported");
    CHECK_ERR(fv_color_convert(NULL, in, short_out, &p), FV_EINVAL, "extent");
    CHECK_ERR(fv_color_convert(NULL, in, two, &p), FV_EINVAL, "3 channels");
    CHECK_ERR(fv_color_convert(NULL, in, flat, &p), FV_EINVAL, "dimensions");
    p.conv = (fv_color_conv)99;
    CHECK_ERR(fv_color_convert(NULL, in, out, &p), FV_EINVAL, "unknown conversion");
    p = params(FV_COLOR_MATRIX);
    p.rows = 4;
    CHECK_ERR(fv_color_convert(NULL, in, out, &p), FV_EINVAL, "rows");
    p.rows = 3;
    p.pre = (fv_color_pre)42;
    CHECK_ERR(fv_color_convert(NULL, in, out, &p), FV_EINVAL, "unknown pre");
    p = params(FV_COLOR_XYZ2LAB);
    p.white[1] = 0;
    CHECK_ERR(fv_color_convert(NULL, in, out, &p), FV_EINVAL, "white[1]");
    p = params(FV_COLOR_RGBA2RGB);
    CHECK_ERR(fv_color_convert(NULL, in, out, &p), FV_EINVAL, "must have 4 channels");
    p = params(FV_COLOR_LAB2LCH);
    CHECK_ERR(fv_color_convert(NULL, two, two, &p), FV_EINVAL, "at least 3 channels");
    p = params(FV_COLOR_DELTAE_CIE76);
    CHECK_ERR(fv_color_convert(NULL, in, out, &p), FV_EINVAL, "fv_color_delta_e");
    CHECK_ERR(fv_color_delta_e(NULL, in, NULL, flat, &p), FV_EINVAL, "NULL array");
    CHECK_ERR(fv_color_delta_e(NULL, in, in5, flat, &p), FV_EINVAL, "same shape");
    CHECK_ERR(fv_color_delta_e(NULL, in, f32, flat, &p), FV_EDTYPE, "one dtype");
    CHECK_ERR(fv_color_delta_e(NULL, in, two, flat, &p), FV_EINVAL, "same shape");
    p = params(FV_COLOR_RGB2HSV);
    CHECK_ERR(fv_color_delta_e(NULL, in, in, flat, &p), FV_EINVAL, "not a colour difference");
    /* overlapping but not the same layout */
    fv_array *shifted = NULL;
    int64_t sh[2] = { 3, 3 };
    CHECK_OK(fv_array_view(in, 2, sh, NULL, 3 * sizeof(double), &shifted));
    fv_array *head = NULL;
    CHECK_OK(fv_array_view(in, 2, sh, NULL, 0, &head));
    p = params(FV_COLOR_RGB2HSV);
    CHECK_ERR(fv_color_convert(NULL, head, shifted, &p), FV_EINVAL, "overlaps");
    /* empty arrays are fine */
    fv_array *e_in = arr(FV_FLOAT64, 2, 0, 3, 0), *e_out = arr(FV_FLOAT64, 2, 0, 3, 0);
    CHECK_OK(fv_color_convert(NULL, e_in, e_out, &p));
    CHECK(strcmp(fv_color_conv_name(FV_COLOR_DELTAE_CMC), "deltaE_cmc") == 0);
    CHECK(strcmp(fv_color_conv_name((fv_color_conv)-1), "invalid") == 0);
    fv_array *all[] = { in, out, in4, i32, f32, short_out, two, flat, in5, shifted, head, e_in, e_out };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        fv_array_unref(all[k]);
}

/* uint8 input of a matrix conversion: the same bits as its float64 conversion
 * v * (1 / 255) through the float path, for every pre- and post-function; other
 * conversions and outputs refuse it. */
static void
test_uint8(void)
{
    const int n = 300;
    fv_array *u = arr(FV_UINT8, 2, n, 3, 0), *f = arr(FV_FLOAT64, 2, n, 3, 0);
    fv_array *o1 = arr(FV_FLOAT64, 2, n, 3, 0), *o2 = arr(FV_FLOAT64, 2, n, 3, 0), *o32 = arr(FV_FLOAT32, 2, n, 3, 0);
    uint8_t *pu = fv_array_data(u);
    double *pf = fv_array_data(f);
    for (int i = 0; i < 3 * n; i++) {
        pu[i] = (uint8_t)((i * 37 + i / 7) & 255);
        pf[i] = (double)pu[i] * (1.0 / 255);
    }
    const fv_color_pre pres[] = { FV_COLOR_PRE_NONE, FV_COLOR_PRE_SRGB_LINEAR, FV_COLOR_PRE_STAIN_LOG,
                                  FV_COLOR_PRE_STAIN_EXP };
    const fv_color_post posts[] = { FV_COLOR_POST_NONE, FV_COLOR_POST_SRGB_GAMMA, FV_COLOR_POST_NONNEG,
                                    FV_COLOR_POST_EXP_CLIP, FV_COLOR_POST_CLIP01 };
    for (size_t a = 0; a < sizeof pres / sizeof pres[0]; a++)
        for (size_t b = 0; b < sizeof posts / sizeof posts[0]; b++) {
            fv_color_params p = params(FV_COLOR_MATRIX);
            p.rows = 3;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    p.matrix[r][c] = 0.1 * (r + 1) - 0.07 * c + (r == c);
            p.pre_offset[1] = 0.125;
            p.post_offset[2] = -0.25;
            p.pre = pres[a];
            p.post = posts[b];
            CHECK_OK(fv_color_convert(NULL, u, o1, &p));
            CHECK_OK(fv_color_convert(NULL, f, o2, &p));
            CHECK(memcmp(fv_array_data(o1), fv_array_data(o2), (size_t)n * 3 * sizeof(double)) == 0);
        }
    fv_color_params p = params(FV_COLOR_MATRIX);
    p.rows = 3;
    CHECK_ERR(fv_color_convert(NULL, u, o32, &p), FV_EDTYPE, "float32 or float64");
    p = params(FV_COLOR_RGB2HSV);
    CHECK_ERR(fv_color_convert(NULL, u, o1, &p), FV_EDTYPE, "float32 or float64");
    fv_array_unref(u);
    fv_array_unref(f);
    fv_array_unref(o1);
    fv_array_unref(o2);
    fv_array_unref(o32);
}

int
main(void)
{
    test_values();
    test_layouts();
    test_errors();
    test_uint8();
    return fv_t_summary("test_color");
}
