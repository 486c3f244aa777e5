/* fv_denoise_tv_chambolle, fv_denoise_tv_bregman, fv_denoise_nl_means and
 * fv_unwrap_gather (include/fovea/denoise.h): the TV result against a
 * plain host model of scikit-image's iteration, argument errors; with the
 * argument "cuda" the CUDA TV kernel against the CPU one (exit 77 = skipped
 * without a usable GPU): bit for bit with eps = 0 (every iteration runs on
 * both), within 1e-4 with the stop rule on. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "internal.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };

static fv_array *
host_new(fv_dtype dt, int ndim, const int64_t *shape)
{
    fv_array *a = NULL;
    if (fv_array_new(NULL, dt, ndim, shape, CPU, &a))
        abort();
    return a;
}

static void
fill(fv_array *a, unsigned seed)
{
    int64_t n = fv_array_size(a);
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        double v = (double)(seed >> 8) / 16777216.0;
        if (fv_array_dtype(a) == FV_FLOAT32)
            ((float *)fv_array_data(a))[i] = (float)v;
        else
            ((double *)fv_array_data(a))[i] = v;
    }
}

/* scikit-image's _denoise_tv_chambolle_nd for a 2-d float64 image, written plainly */
static void
tv_model(const double *img, double *out, int64_t R, int64_t C, double weight, double eps, int64_t max_iter)
{
    const int64_t n = R * C;
    double *p0 = calloc((size_t)n, sizeof(double)), *p1 = calloc((size_t)n, sizeof(double));
    double *d = calloc((size_t)n, sizeof(double));
    double e0 = 0, eprev = 0;
    for (int64_t it = 0; it < max_iter; it++) {
        double E = 0;
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) {
                int64_t x = r * C + c;
                double v = -(p0[x] + p1[x]);
                if (r > 0)
                    v += p0[x - C];
                if (c > 0)
                    v += p1[x - 1];
                d[x] = v;
                out[x] = img[x] + v;
                E += v * v;
            }
        const double tau = 0.25;
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) {
                int64_t x = r * C + c;
                double g0 = r < R - 1 ? out[x + C] - out[x] : 0, g1 = c < C - 1 ? out[x + 1] - out[x] : 0;
                double norm = sqrt(g0 * g0 + g1 * g1);
                E += weight * norm;
                double den = norm * (tau / weight) + 1;
                p0[x] = (p0[x] - tau * g0) / den;
                p1[x] = (p1[x] - tau * g1) / den;
            }
        E /= (double)n;
        if (it == 0) {
            e0 = eprev = E;
        } else if (fabs(eprev - E) < eps * e0) {
            break;
        } else {
            eprev = E;
        }
    }
    free(p0);
    free(p1);
    free(d);
}

static void
test_cpu(void)
{
    int64_t sh[2] = { 37, 41 };
    fv_array *in = host_new(FV_FLOAT64, 2, sh), *out = host_new(FV_FLOAT64, 2, sh);
    fill(in, 7);
    double *model = malloc(sizeof(double) * 37 * 41);
    const double eps_list[2] = { 2e-4, 0.0 };
    for (int k = 0; k < 2; k++) {
        CHECK_OK(fv_denoise_tv_chambolle(NULL, in, out, 0.2, eps_list[k], 60, 0));
        tv_model(fv_array_data(in), model, 37, 41, 0.2, eps_list[k], 60);
        double md = 0;
        for (int64_t i = 0; i < 37 * 41; i++)
            md = fmax(md, fabs(model[i] - ((double *)fv_array_data(out))[i]));
        CHECK(md < 1e-12);
    }
    free(model);
    /* channels: each image as if alone */
    int64_t sh3[3] = { 2, 37, 41 };
    fv_array *in3 = host_new(FV_FLOAT64, 3, sh3), *out3 = host_new(FV_FLOAT64, 3, sh3);
    fill(in3, 9);
    memcpy((double *)fv_array_data(in3) + 37 * 41, fv_array_data(in), sizeof(double) * 37 * 41);
    CHECK_OK(fv_denoise_tv_chambolle(NULL, in3, out3, 0.2, 2e-4, 60, 1));
    CHECK_OK(fv_denoise_tv_chambolle(NULL, in, out, 0.2, 2e-4, 60, 0));
    CHECK(memcmp((double *)fv_array_data(out3) + 37 * 41, fv_array_data(out), sizeof(double) * 37 * 41) == 0);
    /* errors */
    fv_array *i32 = host_new(FV_INT32, 2, sh), *f32 = host_new(FV_FLOAT32, 2, sh);
    CHECK_ERR(fv_denoise_tv_chambolle(NULL, i32, i32, 0.1, 2e-4, 10, 0), FV_EDTYPE, "float32 or float64");
    CHECK_ERR(fv_denoise_tv_chambolle(NULL, in, f32, 0.1, 2e-4, 10, 0), FV_EDTYPE, "out must be");
    CHECK_ERR(fv_denoise_tv_chambolle(NULL, in, out, 0.0, 2e-4, 10, 0), FV_EINVAL, "weight");
    int64_t sh1[1] = { 5 };
    fv_array *one = host_new(FV_FLOAT64, 1, sh1);
    CHECK_ERR(fv_denoise_tv_chambolle(NULL, one, one, 0.1, 2e-4, 10, 1), FV_EINVAL, "spatial");
    int64_t shp[3] = { 39, 43, 1 }, sho[3] = { 37, 41, 1 }, shw[2] = { 3, 3 };
    fv_array *pad = host_new(FV_FLOAT64, 3, shp), *o = host_new(FV_FLOAT64, 3, sho), *w = host_new(FV_FLOAT64, 2, shw);
    fill(pad, 3);
    fill(w, 4);
    CHECK_OK(fv_denoise_nl_means(NULL, pad, w, o, 3, 2, 0.0));
    CHECK_ERR(fv_denoise_nl_means(NULL, pad, w, o, 4, 2, 0.0), FV_EINVAL, "odd");
    CHECK_ERR(fv_denoise_nl_means(NULL, o, w, o, 3, 2, 0.0), FV_EINVAL, "padded");
    int64_t shb[3] = { 39, 43, 1 };
    fv_array *bo = host_new(FV_FLOAT64, 3, shb);
    memset(fv_array_data(bo), 0, sizeof(double) * 39 * 43);
    CHECK_OK(fv_denoise_tv_bregman(NULL, o, bo, 5.0, 20, 1e-3, 1));
    CHECK_ERR(fv_denoise_tv_bregman(NULL, o, o, 5.0, 20, 1e-3, 1), FV_EINVAL, "rows + 2");
    /* unwrap gather: a chain 0-1-2 with increments, and an edge out of range skipped */
    int64_t she[2] = { 3, 3 }, shn[1] = { 4 };
    fv_array *e = host_new(FV_INT64, 2, she), *inc = host_new(FV_INT64, 1, shn);
    int64_t ev[9] = { 0, 1, 1, 1, 2, -1, 2, 9, 1 };
    memcpy(fv_array_data(e), ev, sizeof ev);
    CHECK_OK(fv_unwrap_gather(NULL, e, inc));
    const int64_t *iv = fv_array_data(inc);
    CHECK(iv[1] - iv[0] == -1 && iv[2] - iv[1] == 1 && iv[3] == 0);
    fv_array *arrs[] = { in, out, in3, out3, i32, f32, one, pad, o, w, bo, e, inc };
    for (size_t k = 0; k < sizeof arrs / sizeof *arrs; k++)
        fv_array_unref(arrs[k]);
}

static fv_array *
moved(const fv_array *a, fv_device dev)
{
    fv_array *d = NULL;
    if (fv_array_new(NULL, fv_array_dtype(a), fv_array_ndim(a), fv_array_shape(a), dev, &d) || fv_copy(NULL, a, d) ||
        fv_context_synchronize(NULL))
        abort();
    return d;
}

static int
test_cuda(void)
{
    if (!fv__cuda_init()) {
        printf("test_denoise cuda: skipped (%s)\n", fv__cuda_reason());
        return 77;
    }
    const fv_device gpu = { FV_DEVICE_CUDA, 0 };
    int64_t shapes[4][4] = { { 1, 300, 257, 0 }, { 1, 17, 19, 23 }, { 3, 64, 65, 0 }, { 1, 2048, 2048, 0 } };
    int nds[4] = { 2, 3, 2, 2 };
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 2; t++) {
            fv_dtype dt = t ? FV_FLOAT64 : FV_FLOAT32;
            int nd = nds[s] + 1;
            fv_array *in = host_new(dt, nd, shapes[s]), *out = host_new(dt, nd, shapes[s]);
            fill(in, 11 + s);
            fv_array *din = moved(in, gpu), *dout = moved(out, gpu);
            for (int k = 0; k < 2; k++) {
                double eps = k ? 2e-4 : 0.0;
                CHECK_OK(fv_denoise_tv_chambolle(NULL, in, out, 0.1, eps, 40, 1));
                CHECK_OK(fv_denoise_tv_chambolle(NULL, din, dout, 0.1, eps, 40, 1));
                fv_array *back = moved(dout, CPU);
                double md = 0;
                for (int64_t i = 0; i < fv_array_size(out); i++) {
                    double a = t ? ((double *)fv_array_data(out))[i] : ((float *)fv_array_data(out))[i];
                    double b = t ? ((double *)fv_array_data(back))[i] : ((float *)fv_array_data(back))[i];
                    md = fmax(md, fabs(a - b));
                }
                if (!(k ? md < 1e-4 : md == 0.0))
                    fprintf(stderr, "tv cuda: shape %d dtype %d eps %g: max diff %g\n", s, (int)dt, eps, md);
                CHECK(k ? md < 1e-4 : md == 0.0);
                fv_array_unref(back);
            }
            fv_array_unref(in);
            fv_array_unref(out);
            fv_array_unref(din);
            fv_array_unref(dout);
        }
    return 0;
}

int
main(int argc, char **argv)
{
    const int cuda = argc > 1 && !strcmp(argv[1], "cuda");
    if (cuda && test_cuda() == 77)
        return 77;
    if (!cuda)
        test_cpu();
    return fv_t_summary("test_denoise");
}
