/* fv_slic, fv_slic_enforce_connectivity, fv_felzenszwalb, fv_quickshift
 * (include/fovea/segmentation.h).
 *
 * Built twice: test_superpixels runs the CPU backend against a naive model of
 * scikit-image's _slic_cython (centre by centre over each window, centres summed
 * in raster order: the CPU kernel must give the same labels and centres, bit for
 * bit, float32 and float64) plus the other ops' basic contracts and errors;
 * test_cuda_superpixels (FV_TEST_CUDA) runs fv_slic on GPU copies against the
 * CPU: identical labels for one iteration (the same assignment), >= 99 % equal
 * after ten (atomic centre sums), the connectivity scan identical. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fovea/fovea.h"

#define FV_T_SEED 0x9e3779b97f4a7c15ull
#include "harness.h"

/* ---- the model: _slic_cython as written (segment-major, strict "<") ------------ */

#define MODEL(T, S)                                                                                    \
    static void model_##S(const T *img, int64_t D, int64_t H, int64_t W, int64_t C, T *seg, int64_t K, \
                          const int64_t st[3], float step, int iters, const T sp[3], int64_t *lab)     \
    {                                                                                                  \
        const int64_t n = D * H * W, F = 3 + C, dims[3] = { D, H, W };                                 \
        T *dist = malloc(sizeof(T) * (size_t)n);                                                       \
        int64_t *cnt = malloc(sizeof(int64_t) * (size_t)K);                                            \
        const T sw = (T)(1.0 / (step * step));                                                         \
        for (int64_t p = 0; p < n; p++)                                                                \
            lab[p] = 0;                                                                                \
        for (int it = 0; it < iters; it++) {                                                           \
            for (int64_t p = 0; p < n; p++)                                                            \
                dist[p] = sizeof(T) == 4 ? (T)INFINITY : (T)DBL_MAX;                                   \
            for (int64_t k = 0; k < K; k++) {                                                          \
                int64_t lo[3], hi[3];                                                                  \
                for (int d = 0; d < 3; d++) {                                                          \
                    T c = seg[k * F + d], a = c - (T)(2 * st[d]), b = c + (T)(2 * st[d]) + (T)1;       \
                    lo[d] = isnan(a) ? 0 : (a < 0 ? 0 : (int64_t)a);                                   \
                    hi[d] = isnan(b) ? 0 : ((T)dims[d] < b ? dims[d] : (int64_t)b);                    \
                }                                                                                      \
                for (int64_t z = lo[0]; z < hi[0]; z++)                                                \
                    for (int64_t y = lo[1]; y < hi[1]; y++)                                            \
                        for (int64_t x = lo[2]; x < hi[2]; x++) {                                      \
                            T dz = sp[0] * (seg[k * F] - (T)z), dy = sp[1] * (seg[k * F + 1] - (T)y);  \
                            T dx = sp[2] * (seg[k * F + 2] - (T)x);                                    \
                            dz *= dz;                                                                  \
                            dy *= dy;                                                                  \
                            dx *= dx;                                                                  \
                            T dc = (dz + dy + dx) * sw, col = 0;                                       \
                            const int64_t p = (z * H + y) * W + x;                                     \
                            for (int64_t c = 3; c < F; c++) {                                          \
                                T t = img[p * C + c - 3] - seg[k * F + c];                             \
                                col += t * t;                                                          \
                            }                                                                          \
                            dc += col;                                                                 \
                            if (dist[p] > dc) {                                                        \
                                dist[p] = dc;                                                          \
                                lab[p] = k + 1;                                                        \
                            }                                                                          \
                        }                                                                              \
            }                                                                                          \
            for (int64_t i = 0; i < K * F; i++)                                                        \
                seg[i] = 0;                                                                            \
            for (int64_t k = 0; k < K; k++)                                                            \
                cnt[k] = 0;                                                                            \
            for (int64_t p = 0; p < n; p++) {                                                          \
                const int64_t k = lab[p] - 1;                                                          \
                cnt[k]++;                                                                              \
                seg[k * F] += (T)(p / (H * W));                                                        \
                seg[k * F + 1] += (T)(p / W % H);                                                      \
                seg[k * F + 2] += (T)(p % W);                                                          \
                for (int64_t c = 3; c < F; c++)                                                        \
                    seg[k * F + c] += img[p * C + c - 3];                                              \
            }                                                                                          \
            for (int64_t k = 0; k < K; k++)                                                            \
                for (int64_t c = 0; c < F; c++)                                                        \
                    seg[k * F + c] /= cnt[k];                                                          \
        }                                                                                              \
        free(dist);                                                                                    \
        free(cnt);                                                                                     \
    }
MODEL(float, f32)
MODEL(double, f64)

/* a smooth random (D, H, W, C) image: a few random gradients and bumps, plus noise */
static fv_array *
smooth_image(fv_dtype dt, int64_t D, int64_t H, int64_t W, int64_t C)
{
    const int64_t shape[4] = { D, H, W, C };
    fv_array *a = new_array(dt, 4, shape, CPU);
    double ph[8][3];
    for (int i = 0; i < 8; i++)
        for (int d = 0; d < 3; d++)
            ph[i][d] = uniform_in(0.05, 0.3);
    for (int64_t p = 0; p < D * H * W; p++)
        for (int64_t c = 0; c < C; c++) {
            const int64_t z = p / (H * W), y = p / W % H, x = p % W;
            double v = sin(ph[c % 8][0] * x + ph[c % 8][1] * y + ph[c % 8][2] * z) + 0.1 * uniform();
            set_elem(fv_array_data(a), dt, p * C + c, v);
        }
    return a;
}

/* grid seeds at step s (offset s / 2) on each axis, colour 0: (K, 3 + C) */
static fv_array *
grid_seeds(fv_dtype dt, int64_t D, int64_t H, int64_t W, int64_t C, const int64_t s[3], int64_t *K)
{
    const int64_t nz = (D - s[0] / 2 + s[0] - 1) / s[0], ny = (H - s[1] / 2 + s[1] - 1) / s[1];
    const int64_t nx = (W - s[2] / 2 + s[2] - 1) / s[2];
    *K = nz * ny * nx;
    const int64_t shape[2] = { *K, 3 + C };
    fv_array *a = new_array(dt, 2, shape, CPU);
    int64_t k = 0;
    for (int64_t z = s[0] / 2; z < D; z += s[0])
        for (int64_t y = s[1] / 2; y < H; y += s[1])
            for (int64_t x = s[2] / 2; x < W; x += s[2], k++) {
                for (int64_t c = 0; c < 3 + C; c++)
                    set_elem(fv_array_data(a), dt, k * (3 + C) + c, 0);
                set_elem(fv_array_data(a), dt, k * (3 + C), (double)z);
                set_elem(fv_array_data(a), dt, k * (3 + C) + 1, (double)y);
                set_elem(fv_array_data(a), dt, k * (3 + C) + 2, (double)x);
            }
    return a;
}

static int64_t
count_equal(const fv_array *a, const fv_array *b)
{
    int64_t n = fv_array_size(a), eq = 0;
    const int64_t *x = fv_array_data(a), *y = fv_array_data(b);
    for (int64_t i = 0; i < n; i++)
        eq += x[i] == y[i];
    return eq;
}

static void
test_slic(fv_dtype dt, int64_t D, int64_t H, int64_t W, int64_t C, const int64_t st[3], const double sp[3])
{
    fv_array *img = smooth_image(dt, D, H, W, C), *lab = NULL;
    int64_t K;
    fv_array *seg = grid_seeds(dt, D, H, W, C, st, &K), *seg0 = to_host(seg);
    const int64_t shape[3] = { D, H, W };
    lab = new_array(FV_INT64, 3, shape, CPU);
    const float step = (float)(st[0] > st[1] ? (st[0] > st[2] ? st[0] : st[2]) : (st[1] > st[2] ? st[1] : st[2]));
    snprintf(current, sizeof current, "slic %s %lldx%lldx%lldx%lld", fv_dtype_name(dt), (long long)D, (long long)H,
             (long long)W, (long long)C);
#ifndef FV_TEST_CUDA
    CHECK_OK(fv_slic(ctx, img, NULL, seg, lab, st, step, 10, sp, 0, 0, 1));
    int64_t *want = malloc(sizeof(int64_t) * (size_t)(D * H * W));
    fv_array *ms = to_host(seg0);
    if (dt == FV_FLOAT32) {
        const float spf[3] = { (float)sp[0], (float)sp[1], (float)sp[2] };
        model_f32(fv_array_data(img), D, H, W, C, fv_array_data(ms), K, st, step, 10, spf, want);
    } else {
        model_f64(fv_array_data(img), D, H, W, C, fv_array_data(ms), K, st, step, 10, sp, want);
    }
    CHECK(memcmp(want, fv_array_data(lab), sizeof(int64_t) * (size_t)(D * H * W)) == 0);
    CHECK(memcmp(fv_array_data(ms), fv_array_data(seg), (dt == FV_FLOAT32 ? 4 : 8) * (size_t)(K * (3 + C))) == 0);
    if (memcmp(want, fv_array_data(lab), sizeof(int64_t) * (size_t)(D * H * W)))
        fprintf(stderr, "  in %s\n", current);
    free(want);
    fv_array_unref(ms);
    /* the connectivity clean-up: every label a connected component >= min_size or merged */
    fv_array *con = new_array(FV_INT64, 3, shape, CPU);
    CHECK_OK(fv_slic_enforce_connectivity(ctx, lab, con, 10, 3 * D * H * W / K, 1));
    const int64_t *cl = fv_array_data(con);
    int ok = 1;
    for (int64_t i = 0; i < D * H * W; i++)
        ok &= cl[i] >= 1;
    CHECK(ok);
    fv_array_unref(con);
#else
    /* GPU against CPU: one iteration identical, ten >= 99 % equal, connectivity identical */
    for (int iters = 1; iters <= 10; iters += 9) {
        fv_array *hs = to_host(seg0), *ds = new_array(dt, 2, fv_array_shape(seg0), GPU);
        fv_array *di = new_array(dt, 4, fv_array_shape(img), GPU), *dl = new_array(FV_INT64, 3, shape, GPU);
        CHECK_OK(fv_copy(ctx, seg0, ds));
        CHECK_OK(fv_copy(ctx, img, di));
        CHECK_OK(fv_slic(ctx, img, NULL, hs, lab, st, step, iters, sp, 0, 0, 1));
        CHECK_OK(fv_slic(ctx, di, NULL, ds, dl, st, step, iters, sp, 0, 0, 1));
        fv_array *got = to_host(dl);
        const int64_t eq = count_equal(got, lab);
        if (iters == 1)
            CHECK(eq == D * H * W);
        else
            CHECK(eq >= D * H * W * 99 / 100);
        fv_array *hc = new_array(FV_INT64, 3, shape, CPU), *dc = new_array(FV_INT64, 3, shape, GPU);
        CHECK_OK(fv_slic_enforce_connectivity(ctx, got, hc, 10, 3 * D * H * W / K, 1));
        CHECK_OK(fv_slic_enforce_connectivity(ctx, dl, dc, 10, 3 * D * H * W / K, 1));
        fv_array *gc = to_host(dc);
        CHECK(count_equal(gc, hc) == D * H * W);
        printf("%s, %d iterations: %lld of %lld equal\n", current, iters, (long long)eq, (long long)(D * H * W));
        fv_array_unref(gc);
        fv_array_unref(hc);
        fv_array_unref(dc);
        fv_array_unref(got);
        fv_array_unref(hs);
        fv_array_unref(ds);
        fv_array_unref(di);
        fv_array_unref(dl);
    }
#endif
    fv_array_unref(seg0);
    fv_array_unref(seg);
    fv_array_unref(lab);
    fv_array_unref(img);
}

#ifndef FV_TEST_CUDA
static void
test_other_ops(void)
{
    const int64_t sh3[3] = { 12, 15, 3 }, sh2[2] = { 12, 15 };
    fv_array *img = smooth_image(FV_FLOAT64, 1, 12, 15, 3), *out = new_array(FV_INT64, 2, sh2, CPU);
    fv_array *im3 = NULL;
    CHECK_OK(fv_array_view(img, 3, sh3, (const int64_t[3]){ 15 * 3 * 8, 3 * 8, 8 }, 0, &im3));
    CHECK_OK(fv_felzenszwalb(ctx, im3, NULL, out, 50, 5));
    const int64_t *l = fv_array_data(out);
    int64_t next = 0, ok = 1; /* labels 0.. numbered by first pixel */
    for (int64_t i = 0; i < 12 * 15; i++) {
        ok &= l[i] <= next;
        next += l[i] == next;
    }
    CHECK(ok && l[0] == 0);
    fv_array *dens = new_array(FV_FLOAT64, 2, sh2, CPU);
    memset(fv_array_data(dens), 0, 8 * 12 * 15);
    CHECK_OK(fv_quickshift(ctx, im3, dens, out, 2, 10, NULL, NULL));
    next = 0, ok = 1;
    for (int64_t i = 0; i < 12 * 15; i++) {
        ok &= l[i] <= next;
        next += l[i] == next;
    }
    CHECK(ok && l[0] == 0);
    CHECK_ERR(fv_quickshift(ctx, im3, dens, out, 0.5, 10, NULL, NULL), FV_EINVAL, "kernel_size");
    CHECK_ERR(fv_felzenszwalb(ctx, dens, NULL, out, 1, 1), FV_EINVAL, "3-dimensional");
    fv_array *f32 = new_array(FV_FLOAT32, 3, sh3, CPU);
    CHECK_ERR(fv_felzenszwalb(ctx, f32, NULL, out, 1, 1), FV_EDTYPE, "float64");
    int64_t K;
    const int64_t st[3] = { 1, 4, 4 };
    const double sp[3] = { 1, 1, 1 };
    const int64_t shl[3] = { 1, 12, 15 };
    fv_array *seg = grid_seeds(FV_FLOAT64, 1, 12, 15, 3, st, &K), *lab = new_array(FV_INT64, 3, shl, CPU);
    CHECK_ERR(fv_slic(ctx, img, NULL, seg, lab, st, 4, 10, sp, 0, 0, 2), FV_EINVAL, "start_label");
    CHECK_ERR(fv_slic(ctx, img, NULL, seg, out, st, 4, 10, sp, 0, 0, 1), FV_EINVAL, "3-dimensional");
    fv_array_unref(lab);
    fv_array_unref(seg);
    fv_array_unref(f32);
    fv_array_unref(dens);
    fv_array_unref(im3);
    fv_array_unref(out);
    fv_array_unref(img);
}
#endif

int
main(void)
{
#ifdef FV_TEST_CUDA
    if (!fv_cuda_available()) {
        printf("test_cuda_superpixels: skipped (%s)\n", fv_cuda_unavailable_reason());
        return 77;
    }
#endif
    if (fv_context_new(&ctx)) {
        fprintf(stderr, "fv_context_new failed\n");
        return 1;
    }
    const double one[3] = { 1, 1, 1 }, aniso[3] = { 1, 2, 0.5 };
    for (int f = 0; f < 2; f++) {
        const fv_dtype dt = f ? FV_FLOAT32 : FV_FLOAT64;
        test_slic(dt, 1, 40, 52, 3, (const int64_t[3]){ 1, 6, 6 }, one);
        test_slic(dt, 1, 33, 47, 1, (const int64_t[3]){ 1, 5, 7 }, aniso);
        test_slic(dt, 9, 14, 17, 2, (const int64_t[3]){ 3, 4, 4 }, one);
#ifdef FV_TEST_CUDA
        test_slic(dt, 1, 512, 640, 3, (const int64_t[3]){ 1, 16, 16 }, one);
#endif
    }
#ifndef FV_TEST_CUDA
    test_other_ops();
#endif
    fv_context_free(ctx);
#ifdef FV_TEST_CUDA
    return fv_t_summary("test_cuda_superpixels");
#else
    return fv_t_summary("test_superpixels");
#endif
}
