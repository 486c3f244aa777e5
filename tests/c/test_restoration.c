/* fv_richardson_lucy against a direct reference (scikit-image's algorithm with
 * 'same' convolutions as loops in double), 1-d to 3-d, odd and even PSFs, float32
 * and float64, filter_epsilon and clip, strided out; its errors; on a usable GPU
 * the CUDA backend (cuFFT and the RL kernels) against the CPU. Then
 * fv_stack_write_ome / fv_stack_read round trips and their errors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h" /* CPU, GPU, new_array (and check.h) */


static double
get(const fv_array *a, int64_t i)
{
    return fv_array_dtype(a) == FV_FLOAT32 ? ((const float *)fv_array_data(a))[i]
                                           : ((const double *)fv_array_data(a))[i];
}

static void
set(fv_array *a, int64_t i, double v)
{
    if (fv_array_dtype(a) == FV_FLOAT32)
        ((float *)fv_array_data(a))[i] = (float)v;
    else
        ((double *)fv_array_data(a))[i] = v;
}

/* out[j] = sum_k psf[k] x[j + c - k] (flip: psf[p-1-k]) over valid indices: 'same'. */
static void
conv_same(int nd, const int64_t *n, const int64_t *p, const double *x, const double *psf, int flip, double *out)
{
    int64_t N = 1, P = 1;
    for (int d = 0; d < nd; d++)
        N *= n[d], P *= p[d];
    for (int64_t j = 0; j < N; j++) {
        double acc = 0.0;
        for (int64_t k = 0; k < P; k++) {
            int64_t jj = j, kk = k, src = 0, stride = 1, ok = 1, koff = 0, kstride = 1;
            for (int d = nd - 1; d >= 0; d--) {
                const int64_t jc = jj % n[d], kc = kk % p[d];
                jj /= n[d], kk /= p[d];
                const int64_t s = jc + (p[d] - 1) / 2 - kc;
                if (s < 0 || s >= n[d])
                    ok = 0;
                src += s * stride;
                stride *= n[d];
                koff += (flip ? p[d] - 1 - kc : kc) * kstride;
                kstride *= p[d];
            }
            if (ok)
                acc += psf[koff] * x[src];
        }
        out[j] = acc;
    }
}

static void
rl_reference(int nd, const int64_t *n, const int64_t *p, const double *img, const double *psf, int iters, double fe,
             double *est)
{
    int64_t N = 1;
    for (int d = 0; d < nd; d++)
        N *= n[d];
    double *conv = malloc(sizeof(double) * (size_t)N), *rel = malloc(sizeof(double) * (size_t)N);
    for (int64_t j = 0; j < N; j++)
        est[j] = 0.5;
    for (int it = 0; it < iters; it++) {
        conv_same(nd, n, p, est, psf, 0, conv);
        for (int64_t j = 0; j < N; j++) {
            const double c = conv[j] + 1e-12;
            rel[j] = fe != 0 && c < fe ? 0.0 : img[j] / c;
        }
        conv_same(nd, n, p, rel, psf, 1, conv);
        for (int64_t j = 0; j < N; j++)
            est[j] *= conv[j];
    }
    free(conv);
    free(rel);
}

static void
case_rl(int nd, const int64_t *n, const int64_t *p, fv_dtype dt, int iters, double fe, int clip)
{
    fv_array *img = new_array(dt, nd, n, CPU), *psf = new_array(dt, nd, p, CPU), *out = new_array(dt, nd, n, CPU);
    const int64_t N = fv_array_size(img), P = fv_array_size(psf);
    double *ri = malloc(sizeof(double) * (size_t)N), *rp = malloc(sizeof(double) * (size_t)P);
    double *want = malloc(sizeof(double) * (size_t)N), sum = 0;
    for (int64_t i = 0; i < N; i++)
        set(img, i, 0.05 + 1.2 * uniform()), ri[i] = get(img, i);
    for (int64_t i = 0; i < P; i++)
        rp[i] = 0.1 + uniform(), sum += rp[i];
    for (int64_t i = 0; i < P; i++)
        set(psf, i, rp[i] / sum), rp[i] = get(psf, i);
    rl_reference(nd, n, p, ri, rp, iters, fe, want);
    CHECK_OK(fv_richardson_lucy(NULL, img, psf, iters, clip, fe != 0, fe, out, NULL, NULL));
    const double tol = dt == FV_FLOAT32 ? 1e-4 : 1e-10;
    double worst = 0, top = 1e-300;
    for (int64_t i = 0; i < N; i++) {
        double w = want[i];
        if (clip)
            w = w > 1 ? 1 : w < -1 ? -1 : w;
        worst = fmax(worst, fabs(get(out, i) - w));
        top = fmax(top, fabs(w));
    }
    CHECK(worst <= tol * top);
    if (!(worst <= tol * top))
        fprintf(stderr, "  rl nd=%d dtype=%s: max error %g of %g\n", nd, fv_dtype_name(dt), worst, top);
    if (fv_cuda_available()) {
        fv_array *di = new_array(dt, nd, n, GPU), *dp = new_array(dt, nd, p, GPU), *dout = new_array(dt, nd, n, GPU);
        fv_array *back = new_array(dt, nd, n, CPU);
        CHECK_OK(fv_copy(NULL, img, di));
        CHECK_OK(fv_copy(NULL, psf, dp));
        CHECK_OK(fv_richardson_lucy(NULL, di, dp, iters, clip, fe != 0, fe, dout, NULL, NULL));
        CHECK_OK(fv_copy(NULL, dout, back));
        double gw = 0;
        for (int64_t i = 0; i < N; i++)
            gw = fmax(gw, fabs(get(back, i) - get(out, i)));
        CHECK(gw <= tol * top);
        fv_array_unref(di);
        fv_array_unref(dp);
        fv_array_unref(dout);
        fv_array_unref(back);
    }
    fv_array_unref(img);
    fv_array_unref(psf);
    fv_array_unref(out);
    free(ri);
    free(rp);
    free(want);
}

static int progress_calls;
static void
count_progress(void *user, int done, int total)
{
    (void)user;
    progress_calls += done <= total;
}

static void
errors_and_layouts(void)
{
    const int64_t n[2] = { 12, 10 }, p[2] = { 3, 3 }, p1[1] = { 3 }, n2[2] = { 24, 10 }, z[2] = { 0, 3 };
    fv_array *img = new_array(FV_FLOAT64, 2, n, CPU), *psf = new_array(FV_FLOAT64, 2, p, CPU);
    fv_array *out = new_array(FV_FLOAT64, 2, n, CPU), *f32 = new_array(FV_FLOAT32, 2, p, CPU);
    fv_array *p1d = new_array(FV_FLOAT64, 1, p1, CPU), *empty = new_array(FV_FLOAT64, 2, z, CPU);
    fv_array *i16 = new_array(FV_INT16, 2, n, CPU), *big = new_array(FV_FLOAT64, 2, n2, CPU), *view = NULL;
    for (int64_t i = 0; i < 120; i++)
        set(img, i, 1 + uniform());
    for (int64_t i = 0; i < 9; i++)
        set(psf, i, 1.0 / 9);
    CHECK_ERR(fv_richardson_lucy(NULL, NULL, psf, 1, 1, 0, 0, out, NULL, NULL), FV_EINVAL, "NULL");
    CHECK_ERR(fv_richardson_lucy(NULL, i16, psf, 1, 1, 0, 0, out, NULL, NULL), FV_EDTYPE, "float32 or float64");
    CHECK_ERR(fv_richardson_lucy(NULL, img, f32, 1, 1, 0, 0, out, NULL, NULL), FV_EDTYPE, "one dtype");
    CHECK_ERR(fv_richardson_lucy(NULL, img, p1d, 1, 1, 0, 0, out, NULL, NULL), FV_EINVAL, "dimensionality");
    CHECK_ERR(fv_richardson_lucy(NULL, img, empty, 1, 1, 0, 0, out, NULL, NULL), FV_EINVAL, "empty");
    CHECK_ERR(fv_richardson_lucy(NULL, img, psf, -1, 1, 0, 0, out, NULL, NULL), FV_EINVAL, "num_iter");
    CHECK_ERR(fv_richardson_lucy(NULL, img, psf, 1, 1, 0, 0, img, NULL, NULL), FV_EINVAL, "overlaps");
    CHECK_ERR(fv_richardson_lucy(NULL, img, psf, 1, 1, 0, 0, big, NULL, NULL), FV_EINVAL, "shape");
    fv_array_set_readonly(out, 1);
    CHECK_ERR(fv_richardson_lucy(NULL, img, psf, 1, 1, 0, 0, out, NULL, NULL), FV_EINVAL, "read-only");
    fv_array_set_readonly(out, 0);
    /* a strided out (every other row of big) equals the contiguous result; progress per iteration */
    const int64_t st2[2] = { 2 * fv_array_strides(big)[0], fv_array_strides(big)[1] };
    CHECK_OK(fv_array_view(big, 2, n, st2, 0, &view));
    CHECK_OK(fv_richardson_lucy(NULL, img, psf, 4, 0, 0, 0, out, count_progress, NULL));
    CHECK(progress_calls == 4);
    CHECK_OK(fv_richardson_lucy(NULL, img, psf, 4, 0, 0, 0, view, NULL, NULL));
    int same = 1;
    for (int64_t i = 0; i < 120; i++)
        same &= get(out, i) == get(big, (i / 10) * 20 + i % 10);
    CHECK(same);
    fv_array_unref(view);
    fv_array *arrays[] = { img, psf, out, f32, p1d, empty, i16, big };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        fv_array_unref(arrays[i]);
}

static void
stacks(void)
{
    char path[] = "/tmp/fovea-stack-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    const int64_t s3[3] = { 3, 17, 9 }, s2[2] = { 5, 7 };
    const double phys[3] = { 0.5, 0.1, 0.1 };
    fv_array *a = new_array(FV_FLOAT32, 3, s3, CPU), *b = new_array(FV_UINT16, 2, s2, CPU), *r = NULL;
    for (int64_t i = 0; i < fv_array_size(a); i++)
        set(a, i, uniform() * 100 - 20);
    for (int64_t i = 0; i < 35; i++)
        ((uint16_t *)fv_array_data(b))[i] = (uint16_t)(i * 1000 + 7);
    double got[3] = { -1, -1, -1 };
    CHECK_OK(fv_stack_write_ome(path, a, phys));
    CHECK_OK(fv_stack_read(path, &r, got));
    CHECK(got[0] == 0.5 && got[1] == 0.1 && got[2] == 0.1);
    CHECK(r && fv_array_dtype(r) == FV_FLOAT32 && fv_array_ndim(r) == 3 && fv_array_shape(r)[0] == 3 &&
          fv_array_shape(r)[1] == 17 && fv_array_shape(r)[2] == 9);
    CHECK(r && memcmp(fv_array_data(r), fv_array_data(a), (size_t)fv_array_nbytes(a)) == 0);
    fv_array_unref(r);
    r = NULL;
    CHECK_OK(fv_stack_write_ome(path, b, NULL));
    CHECK_OK(fv_stack_read(path, &r, got));
    CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0);
    CHECK(r && fv_array_dtype(r) == FV_UINT16 && fv_array_shape(r)[0] == 1 &&
          memcmp(fv_array_data(r), fv_array_data(b), 70) == 0);
    fv_array_unref(r);
    fv_array *i64 = new_array(FV_INT64, 2, s2, CPU);
    CHECK_ERR(fv_stack_write_ome(path, i64, NULL), FV_EDTYPE, "cannot be written");
    CHECK_ERR(fv_stack_read("/nonexistent/x.tif", &r, NULL), FV_EIO, "x.tif");
    FILE *f = fopen(path, "wb");
    fputs("not a tiff at all", f);
    fclose(f);
    CHECK_ERR(fv_stack_read(path, &r, NULL), FV_EFORMAT, "");
    unlink(path);
    fv_array_unref(i64);
    fv_array_unref(a);
    fv_array_unref(b);
}

int
main(void)
{
    const int64_t n1[1] = { 40 }, p1[1] = { 7 };
    const int64_t n2[2] = { 23, 18 }, p2[2] = { 5, 4 }, p2b[2] = { 9, 1 }, n2b[2] = { 6, 7 }, p2c[2] = { 11, 3 };
    const int64_t n3[3] = { 9, 8, 10 }, p3[3] = { 3, 4, 5 };
    for (int k = 0; k < 2; k++) {
        const fv_dtype dt = k ? FV_FLOAT32 : FV_FLOAT64;
        case_rl(1, n1, p1, dt, 10, 0, 0);
        case_rl(2, n2, p2, dt, 10, 0, 0);
        case_rl(2, n2, p2b, dt, 6, 0, 1);
        case_rl(2, n2b, p2c, dt, 6, 0, 0); /* PSF larger than the image */
        case_rl(2, n2, p2, dt, 6, 0.9, 0); /* filter_epsilon */
        case_rl(3, n3, p3, dt, 5, 0, 1);
    }
    errors_and_layouts();
    stacks();
    printf("gpu part: %s\n", fv_cuda_available() ? "ran" : "skipped (no usable GPU)");
    return fv_t_summary("restoration");
}
