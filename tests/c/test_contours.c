/* fv_find_contours (include/fovea/contours.h): a hand-worked case, then random
 * smooth images checked for what marching squares guarantees, without a
 * second implementation of the joining: every point lies on a cell edge where
 * the linear interpolation of the image equals the level, consecutive points
 * share a cell, closed contours repeat their first point, and the number of
 * contour steps equals the number of crossing segments counted cell by cell
 * here. Plus: the same result for 1 and 4 threads and for a strided view,
 * masks, NaN cells and the argument errors. The exact agreement with
 * scikit-image (order and orientation) is tested in Python
 * (tests/python/test_skimage_measure_misc.py). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
static fv_context *ctx;

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double
uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static fv_array *
wrap(double *data, int64_t rows, int64_t cols, const int64_t *strides)
{
    int64_t shape[2] = { rows, cols };
    fv_array *a = NULL;
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 2, shape, strides, data, CPU, NULL, NULL, &a));
    return a;
}

/* A smooth random field: sums of a few random cosines. */
static void
smooth_field(double *img, int64_t rows, int64_t cols)
{
    double fr[4], fc[4], ph[4];
    for (int k = 0; k < 4; k++) {
        fr[k] = 0.05 + 0.3 * uniform();
        fc[k] = 0.05 + 0.3 * uniform();
        ph[k] = 6.28 * uniform();
    }
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            double v = 0;
            for (int k = 0; k < 4; k++)
                v += cos(fr[k] * (double)r + fc[k] * (double)c + ph[k]);
            img[r * cols + c] = v;
        }
}

static int
same_contours(const fv_contours *a, const fv_contours *b)
{
    if (a->count != b->count)
        return 0;
    if (memcmp(a->offsets, b->offsets, (size_t)(a->count + 1) * sizeof(int64_t)))
        return 0;
    return memcmp(a->points, b->points, (size_t)a->offsets[a->count] * 2 * sizeof(double)) == 0;
}

static void
test_hand_worked(void)
{
    double img[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 };
    const double want[10] = { 1.5, 1, 1, 0.5, 0.5, 1, 1, 1.5, 1.5, 1 };
    fv_array *a = wrap(img, 3, 3, NULL);
    fv_contours *c = NULL;
    CHECK_OK(fv_find_contours(ctx, a, NULL, 0.5, 0, &c));
    CHECK(c && c->count == 1 && c->offsets[1] == 5 && !memcmp(c->points, want, sizeof want));
    fv_contours_free(c);
    /* nothing crosses a flat image or levels outside the range */
    for (int k = 0; k < 9; k++)
        img[k] = 2;
    CHECK_OK(fv_find_contours(ctx, a, NULL, 2.0, 0, &c));
    CHECK(c && c->count == 0 && c->offsets[0] == 0);
    fv_contours_free(c);
    fv_array_unref(a);
}

/* Checks the properties listed at the top for img at level. */
static void
check_properties(const double *img, int64_t rows, int64_t cols, double level, int high, const fv_contours *c)
{
    int64_t want_steps = 0, steps = 0, bad_edge = 0, bad_value = 0, bad_step = 0, bad_closed = 0;
    for (int64_t r = 0; r + 1 < rows; r++)
        for (int64_t q = 0; q + 1 < cols; q++) {
            int sq = (img[r * cols + q] > level) | (img[r * cols + q + 1] > level) << 1 |
                (img[(r + 1) * cols + q] > level) << 2 | (img[(r + 1) * cols + q + 1] > level) << 3;
            want_steps += (sq != 0 && sq != 15) + (sq == 6 || sq == 9);
        }
    (void)high;
    for (int64_t k = 0; k < c->count; k++) {
        const double *p = c->points + 2 * c->offsets[k];
        const int64_t n = c->offsets[k + 1] - c->offsets[k];
        steps += n - 1;
        for (int64_t i = 0; i < n; i++) {
            const double pr = p[2 * i], pc = p[2 * i + 1];
            double v;
            if (pr == floor(pr)) {
                int64_t R = (int64_t)pr, C = (int64_t)floor(pc);
                double f = pc - (double)C;
                v = C + 1 < cols ? img[R * cols + C] + f * (img[R * cols + C + 1] - img[R * cols + C])
                                 : img[R * cols + C];
            } else if (pc == floor(pc)) {
                int64_t C = (int64_t)pc, R = (int64_t)floor(pr);
                double f = pr - (double)R;
                v = img[R * cols + C] + f * (img[(R + 1) * cols + C] - img[R * cols + C]);
            } else {
                bad_edge++;
                continue;
            }
            if (fabs(v - level) > 1e-9)
                bad_value++;
            if (i > 0 && (fabs(pr - p[2 * i - 2]) > 1 || fabs(pc - p[2 * i - 1]) > 1))
                bad_step++;
        }
        /* a contour that does not end on the image border is closed */
        const double er = p[2 * (n - 1)], ec = p[2 * (n - 1) + 1];
        const int on_border = er == 0 || ec == 0 || er == (double)(rows - 1) || ec == (double)(cols - 1);
        if (!on_border && !(er == p[0] && ec == p[1]))
            bad_closed++;
    }
    CHECK(bad_edge == 0);
    CHECK(bad_value == 0);
    CHECK(bad_step == 0);
    CHECK(bad_closed == 0);
    CHECK(steps == want_steps);
    if (steps != want_steps)
        fprintf(stderr, "  steps %lld, want %lld\n", (long long)steps, (long long)want_steps);
}

static void
test_random(void)
{
    const int64_t shapes[][2] = { { 2, 2 }, { 2, 9 }, { 9, 2 }, { 17, 23 }, { 64, 80 }, { 700, 401 } };
    fv_context *one = NULL, *four = NULL;
    CHECK_OK(fv_context_new(&one));
    CHECK_OK(fv_context_new(&four));
    CHECK_OK(fv_context_set_threads(one, 1));
    CHECK_OK(fv_context_set_threads(four, 4));
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int64_t rows = shapes[s][0], cols = shapes[s][1];
        double *img = malloc((size_t)(rows * cols) * sizeof(double));
        double *tr = malloc((size_t)(rows * cols) * sizeof(double));
        smooth_field(img, rows, cols);
        for (int64_t r = 0; r < rows; r++)
            for (int64_t q = 0; q < cols; q++)
                tr[q * rows + r] = img[r * cols + q];
        fv_array *a = wrap(img, rows, cols, NULL);
        /* the transpose of img as a strided view, and as a contiguous copy */
        const int64_t tstrides[2] = { 8, 8 * cols };
        fv_array *tv = wrap(img, cols, rows, tstrides), *tc = wrap(tr, cols, rows, NULL);
        for (int high = 0; high < 2; high++)
            for (double level = -1.5; level <= 1.5; level += 0.75) {
                fv_contours *c1 = NULL, *c4 = NULL, *v = NULL, *cc = NULL;
                CHECK_OK(fv_find_contours(one, a, NULL, level, high, &c1));
                CHECK_OK(fv_find_contours(four, a, NULL, level, high, &c4));
                CHECK_OK(fv_find_contours(ctx, tv, NULL, level, high, &v));
                CHECK_OK(fv_find_contours(ctx, tc, NULL, level, high, &cc));
                if (c1 && c4 && v && cc) {
                    check_properties(img, rows, cols, level, high, c1);
                    CHECK(same_contours(c1, c4));
                    CHECK(same_contours(v, cc));
                }
                fv_contours_free(c1);
                fv_contours_free(c4);
                fv_contours_free(v);
                fv_contours_free(cc);
            }
        fv_array_unref(a);
        fv_array_unref(tv);
        fv_array_unref(tc);
        free(img);
        free(tr);
    }
    fv_context_free(one);
    fv_context_free(four);
}

static void
test_mask_and_nan(void)
{
    const int64_t rows = 40, cols = 50, shape[2] = { rows, cols };
    double *img = malloc(rows * cols * sizeof(double));
    smooth_field(img, rows, cols);
    fv_array *a = wrap(img, rows, cols, NULL), *m = NULL;
    CHECK_OK(fv_array_zeros(NULL, FV_BOOL, 2, shape, CPU, &m));
    fv_contours *c = NULL, *ref = NULL;
    CHECK_OK(fv_find_contours(ctx, a, m, 0.0, 0, &c)); /* nothing unmasked */
    CHECK(c && c->count == 0);
    fv_contours_free(c);
    memset(fv_array_data(m), 1, rows * cols); /* everything unmasked */
    CHECK_OK(fv_find_contours(ctx, a, m, 0.0, 0, &c));
    CHECK_OK(fv_find_contours(ctx, a, NULL, 0.0, 0, &ref));
    CHECK(c && ref && ref->count > 0 && same_contours(c, ref));
    fv_contours_free(c);
    c = NULL;
    /* a masked pixel and a NaN pixel remove the same four cells */
    ((uint8_t *)fv_array_data(m))[20 * cols + 25] = 0;
    fv_contours *cm = NULL, *cn = NULL;
    CHECK_OK(fv_find_contours(ctx, a, m, 0.0, 0, &cm));
    img[20 * cols + 25] = NAN;
    CHECK_OK(fv_find_contours(ctx, a, NULL, 0.0, 0, &cn));
    CHECK(cm && cn && same_contours(cm, cn));
    for (int64_t i = 0; i < rows * cols; i++)
        img[i] = NAN;
    CHECK_OK(fv_find_contours(ctx, a, NULL, 0.0, 0, &c));
    CHECK(c && c->count == 0);
    fv_contours_free(c);
    fv_contours_free(cm);
    fv_contours_free(cn);
    fv_contours_free(ref);
    fv_array_unref(m);
    fv_array_unref(a);
    free(img);
}

static void
test_errors(void)
{
    double img[12] = { 0 };
    fv_contours *c = (fv_contours *)1;
    fv_array *a = wrap(img, 3, 4, NULL), *thin = wrap(img, 1, 12, NULL), *f32 = NULL, *line = NULL, *m = NULL;
    const int64_t s1[1] = { 12 }, s34[2] = { 3, 4 }, s43[2] = { 4, 3 };
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, s1, NULL, img, CPU, NULL, NULL, &line));
    CHECK_OK(fv_array_wrap(FV_FLOAT32, 2, s34, NULL, img, CPU, NULL, NULL, &f32));
    CHECK_ERR(fv_find_contours(ctx, a, NULL, 0, 0, NULL), FV_EINVAL, "NULL out");
    CHECK_ERR(fv_find_contours(ctx, NULL, NULL, 0, 0, &c), FV_EINVAL, "NULL image");
    CHECK(c == NULL);
    CHECK_ERR(fv_find_contours(ctx, line, NULL, 0, 0, &c), FV_EINVAL, "2-d");
    CHECK_ERR(fv_find_contours(ctx, thin, NULL, 0, 0, &c), FV_EINVAL, "at least 2 x 2");
    CHECK_ERR(fv_find_contours(ctx, f32, NULL, 0, 0, &c), FV_EDTYPE, "float64");
    CHECK_OK(fv_array_zeros(NULL, FV_BOOL, 2, s43, CPU, &m));
    CHECK_ERR(fv_find_contours(ctx, a, m, 0, 0, &c), FV_EINVAL, "shape");
    fv_array_unref(m);
    CHECK_OK(fv_array_zeros(NULL, FV_INT16, 2, s34, CPU, &m));
    CHECK_ERR(fv_find_contours(ctx, a, m, 0, 0, &c), FV_EDTYPE, "bool or uint8");
    CHECK(c == NULL);
    fv_contours_free(NULL);
    fv_array_unref(m);
    fv_array_unref(a);
    fv_array_unref(thin);
    fv_array_unref(f32);
    fv_array_unref(line);
}

int
main(void)
{
    if (fv_context_new(&ctx)) {
        fprintf(stderr, "fv_context_new failed\n");
        return 1;
    }
    test_hand_worked();
    test_random();
    test_mask_and_nan();
    test_errors();
    fv_context_free(ctx);
    return fv_t_summary("test_contours");
}
