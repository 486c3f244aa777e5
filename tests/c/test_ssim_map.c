/* fv_ssim_map (include/fovea/metrics.h) against the formula evaluated here
 * in the same dtype, one operation at a time: float32 and float64, 1-3
 * dimensions, S into a separate array, into ux and not at all, the gradient
 * terms, the interior mean for several pads (NaN when nothing is inside),
 * several thread counts, and the argument errors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };

static uint64_t rng = 0x853c49e6748fea9bull;
static double
uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

#define REFERENCE(T, SFX)                                                                                      \
    static double ref_##SFX(const T *m[5], T *S, T *g1, T *g2, T *g3, int64_t n, int nd, const int64_t *shape, \
                            int64_t pad, double cn_, double c1_, double c2_)                                   \
    {                                                                                                          \
        const T cn = (T)cn_, c1 = (T)c1_, c2 = (T)c2_;                                                         \
        double sum = 0;                                                                                        \
        int64_t cnt = 0;                                                                                       \
        for (int64_t i = 0; i < n; i++) {                                                                      \
            T ux = m[0][i], uy = m[1][i];                                                                      \
            T vx = cn * (m[2][i] - ux * ux), vy = cn * (m[3][i] - uy * uy);                                    \
            T vxy = cn * (m[4][i] - ux * uy);                                                                  \
            T A1 = (T)2 * ux * uy + c1, A2 = (T)2 * vxy + c2;                                                  \
            T B1 = ux * ux + uy * uy + c1, B2 = vx + vy + c2, D = B1 * B2;                                     \
            T s = (A1 * A2) / D;                                                                               \
            S[i] = s;                                                                                          \
            g1[i] = A1 / D;                                                                                    \
            g2[i] = -s / B2;                                                                                   \
            g3[i] = (ux * (A2 - A1) - uy * (B2 - B1) * s) / D;                                                 \
            int64_t rem = i, in = 1;                                                                           \
            for (int d = nd - 1; d >= 0; d--) {                                                                \
                int64_t k = rem % shape[d];                                                                    \
                rem /= shape[d];                                                                               \
                in &= k >= pad && k < shape[d] - pad;                                                          \
            }                                                                                                  \
            if (in) {                                                                                          \
                sum += (double)s;                                                                              \
                cnt++;                                                                                         \
            }                                                                                                  \
        }                                                                                                      \
        return cnt ? sum / (double)cnt : NAN;                                                                  \
    }
REFERENCE(float, f32)
REFERENCE(double, f64)

static void
one_case(fv_context *ctx, fv_dtype dt, int nd, const int64_t *shape, int64_t pad, int s_mode, int gradient)
{
    const size_t es = dt == FV_FLOAT64 ? 8 : 4;
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    fv_array *m[5], *S = NULL;
    void *orig[5];
    for (int k = 0; k < 5; k++) {
        CHECK_OK(fv_array_new(NULL, dt, nd, shape, CPU, &m[k]));
        orig[k] = malloc((size_t)n * es);
        for (int64_t i = 0; i < n; i++) {
            double v = uniform() + (k >= 2 ? 1.0 : 0.0);
            if (dt == FV_FLOAT64)
                ((double *)fv_array_data(m[k]))[i] = v;
            else
                ((float *)fv_array_data(m[k]))[i] = (float)v;
        }
        memcpy(orig[k], fv_array_data(m[k]), (size_t)n * es);
    }
    void *rS = malloc((size_t)n * es), *r1 = malloc((size_t)n * es), *r2 = malloc((size_t)n * es),
         *r3 = malloc((size_t)n * es);
    const double cn = 49.0 / 48.0, c1 = 1e-4, c2 = 9e-4;
    double want = dt == FV_FLOAT64 ? ref_f64((const double **)orig, rS, r1, r2, r3, n, nd, shape, pad, cn, c1, c2)
                                   : ref_f32((const float **)orig, rS, r1, r2, r3, n, nd, shape, pad, cn, c1, c2);
    if (s_mode == 1)
        CHECK_OK(fv_array_new(NULL, dt, nd, shape, CPU, &S));
    double mean = 0;
    CHECK_OK(fv_ssim_map(ctx, m[0], m[1], m[2], m[3], m[4], cn, c1, c2,
                         s_mode == 1       ? S
                             : s_mode == 2 ? m[0]
                                           : NULL,
                         gradient, pad, &mean));
    CHECK(isnan(want) ? isnan(mean) : fabs(mean - want) <= 1e-12 * fabs(want));
    if (s_mode == 1)
        CHECK(!memcmp(fv_array_data(S), rS, (size_t)n * es));
    if (s_mode == 2)
        CHECK(!memcmp(fv_array_data(m[0]), rS, (size_t)n * es));
    if (gradient) {
        CHECK(!memcmp(fv_array_data(m[2]), r1, (size_t)n * es));
        CHECK(!memcmp(fv_array_data(m[3]), r2, (size_t)n * es));
        CHECK(!memcmp(fv_array_data(m[4]), r3, (size_t)n * es));
    } else {
        for (int k = 2; k < 5; k++)
            CHECK(!memcmp(fv_array_data(m[k]), orig[k], (size_t)n * es)); /* untouched */
    }
    for (int k = 0; k < 5; k++) {
        fv_array_unref(m[k]);
        free(orig[k]);
    }
    fv_array_unref(S);
    free(rS);
    free(r1);
    free(r2);
    free(r3);
}

static void
test_errors(void)
{
    const int64_t s55[2] = { 5, 5 }, s54[2] = { 5, 4 };
    fv_array *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL, *i32 = NULL, *f32 = NULL, *odd = NULL;
    CHECK_OK(fv_array_zeros(NULL, FV_FLOAT64, 2, s55, CPU, &a));
    CHECK_OK(fv_array_zeros(NULL, FV_FLOAT64, 2, s55, CPU, &b));
    CHECK_OK(fv_array_zeros(NULL, FV_FLOAT64, 2, s55, CPU, &c));
    CHECK_OK(fv_array_zeros(NULL, FV_FLOAT64, 2, s55, CPU, &d));
    CHECK_OK(fv_array_zeros(NULL, FV_FLOAT64, 2, s55, CPU, &e));
    CHECK_OK(fv_array_zeros(NULL, FV_INT32, 2, s55, CPU, &i32));
    CHECK_OK(fv_array_zeros(NULL, FV_FLOAT32, 2, s55, CPU, &f32));
    CHECK_OK(fv_array_zeros(NULL, FV_FLOAT64, 2, s54, CPU, &odd));
    double mean = 0;
    CHECK_ERR(fv_ssim_map(NULL, a, b, c, d, e, 1, 0, 0, NULL, 0, 0, NULL), FV_EINVAL, "NULL mean");
    CHECK_ERR(fv_ssim_map(NULL, a, NULL, c, d, e, 1, 0, 0, NULL, 0, 0, &mean), FV_EINVAL, "NULL uy");
    CHECK(isnan(mean));
    CHECK_ERR(fv_ssim_map(NULL, a, b, c, d, e, 1, 0, 0, NULL, 0, -1, &mean), FV_EINVAL, "pad");
    CHECK_ERR(fv_ssim_map(NULL, i32, b, c, d, e, 1, 0, 0, NULL, 0, 0, &mean), FV_EDTYPE, "float32 or float64");
    CHECK_ERR(fv_ssim_map(NULL, a, f32, c, d, e, 1, 0, 0, NULL, 0, 0, &mean), FV_EDTYPE, "but ux is");
    CHECK_ERR(fv_ssim_map(NULL, a, b, c, d, odd, 1, 0, 0, NULL, 0, 0, &mean), FV_EINVAL, "shape");
    CHECK_ERR(fv_ssim_map(NULL, a, b, c, c, e, 1, 0, 0, NULL, 1, 0, &mean), FV_EINVAL, "must not overlap");
    CHECK_ERR(fv_ssim_map(NULL, a, b, c, d, e, 1, 0, 0, c, 0, 0, &mean), FV_EINVAL, "separate array");
    fv_array *arrs[8] = { a, b, c, d, e, i32, f32, odd };
    for (int k = 0; k < 8; k++)
        fv_array_unref(arrs[k]);
}

int
main(void)
{
    fv_context *ctxs[2] = { NULL, NULL };
    CHECK_OK(fv_context_new(&ctxs[0]));
    CHECK_OK(fv_context_new(&ctxs[1]));
    CHECK_OK(fv_context_set_threads(ctxs[0], 1));
    CHECK_OK(fv_context_set_threads(ctxs[1], 3));
    const int64_t shapes[][3] = { { 37, 0, 0 }, { 23, 41, 0 }, { 9, 10, 11 }, { 300, 257, 0 } };
    const int nds[] = { 1, 2, 3, 2 };
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < 4; s++)
            for (int dt = 0; dt < 2; dt++)
                for (int64_t pad = 0; pad <= 6; pad += 3)
                    for (int mode = 0; mode < 3; mode++)
                        one_case(ctxs[c], dt ? FV_FLOAT64 : FV_FLOAT32, nds[s], shapes[s], pad, mode, mode != 0);
    /* a pad wider than the image: no interior, mean NaN */
    const int64_t small[2] = { 4, 4 };
    one_case(ctxs[1], FV_FLOAT64, 2, small, 2, 1, 1);
    test_errors();
    fv_context_free(ctxs[0]);
    fv_context_free(ctxs[1]);
    return fv_t_summary("test_ssim_map");
}
