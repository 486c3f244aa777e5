/* The Hough and Radon ops (include/fovea/transform.h): the CPU backend against
 * references written from the definitions (line and circle votes counted
 * naively, scikit-image's Bresenham circle, a radon of a centred point, the
 * probabilistic transform on a line, iradon's back projection at 0 and 90
 * degrees), the errors, and where a GPU
 * is usable the CUDA backend against the CPU: the accumulators and radon
 * exactly, the SART update to rounding (atomics). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h" /* CPU, GPU, new_array (and check.h) */


static int64_t
sk_round(double r)
{
    return (int64_t)(r > 0 ? r + 0.5 : r - 0.5);
}

/* A 37 x 53 uint8 image with ~10% edge pixels (values 1..3). */
static fv_array *
edge_image(void)
{
    int64_t shape[2] = { 37, 53 };
    fv_array *a = new_array(FV_UINT8, 2, shape, CPU);
    uint8_t *p = fv_array_data(a);
    uint64_t s = 12345;
    for (int64_t i = 0; i < 37 * 53; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (s >> 60) < 2 ? (uint8_t)(1 + (s >> 40) % 3) : 0;
    }
    return a;
}

static fv_array *
to_gpu(const fv_array *a)
{
    fv_array *g = new_array(fv_array_dtype(a), fv_array_ndim(a), fv_array_shape(a), GPU);
    CHECK_OK(fv_copy(NULL, a, g));
    return g;
}

static int
same_bytes(const fv_array *gpu, const fv_array *cpu)
{
    fv_array *h = new_array(fv_array_dtype(cpu), fv_array_ndim(cpu), fv_array_shape(cpu), CPU);
    CHECK_OK(fv_copy(NULL, gpu, h));
    int ok =
        !memcmp(fv_array_data(h), fv_array_data(cpu), (size_t)fv_array_size(cpu) * fv_dtype_size(fv_array_dtype(cpu)));
    fv_array_unref(h);
    return ok;
}

static void
test_lines(int gpu)
{
    fv_array *img = edge_image();
    const uint8_t *p = fv_array_data(img);
    enum {
        NT = 31
    };
    double c[NT], s[NT];
    for (int j = 0; j < NT; j++) {
        c[j] = cos(-1.6 + 0.11 * j);
        s[j] = sin(-1.6 + 0.11 * j);
    }
    const int64_t off = (int64_t)ceil(sqrt(37.0 * 37 + 53.0 * 53)), shape[2] = { 2 * off + 1, NT };
    fv_array *out = new_array(FV_UINT64, 2, shape, CPU);
    CHECK_OK(fv_hough_line(NULL, img, c, s, NT, out));
    uint64_t *ref = calloc((size_t)(shape[0] * NT), sizeof *ref);
    for (int64_t y = 0; y < 37; y++)
        for (int64_t x = 0; x < 53; x++)
            if (p[y * 53 + x])
                for (int j = 0; j < NT; j++) {
                    double a = c[j] * (double)x, b = s[j] * (double)y;
                    ref[(sk_round(a + b) + off) * NT + j]++;
                }
    CHECK(!memcmp(ref, fv_array_data(out), (size_t)(shape[0] * NT) * 8));
    /* errors */
    int64_t bad[2] = { 3, NT };
    fv_array *small = new_array(FV_UINT64, 2, bad, CPU);
    CHECK_ERR(fv_hough_line(NULL, img, c, s, NT, small), FV_EINVAL, "output axis 0");
    fv_array *f = new_array(FV_FLOAT64, 2, shape, CPU);
    CHECK_ERR(fv_hough_line(NULL, img, c, s, NT, f), FV_EDTYPE, "uint64");
    if (gpu) {
        fv_array *gi = to_gpu(img), *go = new_array(FV_UINT64, 2, shape, GPU);
        CHECK_OK(fv_hough_line(NULL, gi, c, s, NT, go));
        CHECK(same_bytes(go, out));
        fv_array_unref(gi);
        fv_array_unref(go);
    }
    free(ref);
    fv_array_unref(small);
    fv_array_unref(f);
    fv_array_unref(out);
    fv_array_unref(img);
}

static void
test_circles(int gpu)
{
    fv_array *img = edge_image();
    const uint8_t *p = fv_array_data(img);
    const int64_t radii[4] = { 0, 3, 11, -2 }, off = 11;
    for (int full = 0; full < 2; full++)
        for (int norm = 0; norm < 2; norm++) {
            const int64_t o = full ? off : 0, shape[3] = { 4, 37 + 2 * o, 53 + 2 * o };
            fv_array *out = new_array(FV_FLOAT64, 3, shape, CPU);
            int64_t np[4];
            CHECK_OK(fv_hough_circle(NULL, img, radii, 4, o, norm, out, np));
            CHECK(np[0] == 8 && np[3] == 0);
            const double *got = fv_array_data(out);
            int ok = 1;
            for (int i = 0; i < 4; i++) {
                /* scikit-image's circle_perimeter (Bresenham), then the votes one by one */
                int64_t pts[2 * 200], n = 0, r = radii[i], cc = 0, d = 3 - 2 * radii[i];
                while (radii[i] >= 0 && r >= cc) {
                    const int64_t a[8] = { r, -r, r, -r, cc, -cc, cc, -cc }, b[8] = { cc, cc, -cc, -cc, r, r, -r, -r };
                    for (int k = 0; k < 8; k++, n++) {
                        pts[2 * n] = a[k];
                        pts[2 * n + 1] = b[k];
                    }
                    if (d < 0)
                        d += 4 * cc + 6;
                    else {
                        d += 4 * (cc - r) + 10;
                        r--;
                    }
                    cc++;
                }
                ok &= np[i] == n;
                double *acc = calloc((size_t)(shape[1] * shape[2]), sizeof *acc);
                for (int64_t y = 0; y < 37; y++)
                    for (int64_t x = 0; x < 53; x++)
                        for (int64_t k = 0; p[y * 53 + x] && k < n; k++) {
                            int64_t tx = y + o + pts[2 * k], ty = x + o + pts[2 * k + 1];
                            if (tx >= 0 && tx < shape[1] && ty >= 0 && ty < shape[2])
                                acc[tx * shape[2] + ty] += norm ? 1.0 / (double)n : 1.0;
                        }
                ok &= !memcmp(acc, got + i * shape[1] * shape[2], (size_t)(shape[1] * shape[2]) * 8);
                free(acc);
            }
            CHECK(ok);
            if (gpu) {
                fv_array *gi = to_gpu(img), *go = new_array(FV_FLOAT64, 3, shape, GPU);
                CHECK_OK(fv_hough_circle(NULL, gi, radii, 4, o, norm, go, NULL));
                CHECK(same_bytes(go, out));
                fv_array_unref(gi);
                fv_array_unref(go);
            }
            fv_array_unref(out);
        }
    fv_array_unref(img);
}

static void
test_probabilistic(void)
{
    int64_t shape[2] = { 40, 60 }, lshape[2] = { 16, 4 };
    fv_array *img = new_array(FV_BOOL, 2, shape, CPU), *lines = new_array(FV_INT64, 2, lshape, CPU);
    uint8_t *p = fv_array_data(img);
    memset(p, 0, 40 * 60);
    for (int x = 5; x < 55; x++)
        p[20 * 60 + x] = 1; /* a horizontal line, row 20, columns 5..54 */
    fv_array *order = new_array(FV_INT64, 1, (int64_t[]){ 50 }, CPU);
    for (int k = 0; k < 50; k++)
        ((int64_t *)fv_array_data(order))[k] = (k * 7) % 50;
    double c[2] = { cos(M_PI / 2), 1.0 }, s[2] = { 1.0, 0.0 }; /* angles pi/2 and 0 */
    int64_t n = -1;
    CHECK_OK(fv_probabilistic_hough_line(NULL, img, order, 10, 20, 2, c, s, 2, lines, &n));
    const int64_t *l = fv_array_data(lines);
    CHECK(n == 1);
    CHECK(n == 1 && l[1] == 20 && l[3] == 20 && ((l[0] == 54 && l[2] == 5) || (l[0] == 5 && l[2] == 54)));
    ((int64_t *)fv_array_data(order))[3] = 50;
    CHECK_ERR(fv_probabilistic_hough_line(NULL, img, order, 10, 20, 2, c, s, 2, lines, &n), FV_EINVAL, "order[3]");
    fv_array_unref(order);
    fv_array_unref(lines);
    fv_array_unref(img);
}

static void
test_radon(int gpu)
{
    /* a single centred pixel: at angle 0 (the identity) it projects to the centre
     * bin alone; rotated, its bilinear samples add up to scikit-image's sums
     * (skimage.transform.radon of it at 0, 36, ..., 144 degrees, sum(0)) */
    static const double sk_sums[5] = { 1.0, 1.31490405, 1.13527646, 1.13527646, 1.31490405 };
    int64_t shape[2] = { 21, 21 }, sshape[2] = { 21, 5 };
    fv_array *img = new_array(FV_FLOAT64, 2, shape, CPU), *sino = new_array(FV_FLOAT64, 2, sshape, CPU);
    memset(fv_array_data(img), 0, 21 * 21 * 8);
    ((double *)fv_array_data(img))[10 * 21 + 10] = 1.0;
    double m[5 * 6];
    for (int a = 0; a < 5; a++) {
        double t = a * M_PI / 5, co = cos(t), si = sin(t);
        double row[6] = { co, si, -10 * (co + si - 1), -si, co, -10 * (co - si - 1) };
        memcpy(m + 6 * a, row, sizeof row);
    }
    CHECK_OK(fv_radon(NULL, img, m, 5, sino));
    const double *sv = fv_array_data(sino);
    double total = 0;
    for (int j = 0; j < 21; j++)
        total += sv[j * 5];
    CHECK(sv[10 * 5] == 1.0 && fabs(total - 1.0) < 1e-15);
    for (int a = 1; a < 5; a++) {
        double sum = 0;
        for (int j = 0; j < 21; j++)
            sum += sv[j * 5 + a];
        CHECK(fabs(sum - sk_sums[a]) < 1e-8);
    }
    int64_t rect[2] = { 21, 20 };
    fv_array *r = new_array(FV_FLOAT64, 2, rect, CPU);
    CHECK_ERR(fv_radon(NULL, r, m, 5, sino), FV_EINVAL, "square");
    int64_t pshape[1] = { 21 };
    fv_array *proj = new_array(FV_FLOAT64, 1, pshape, CPU), *upd = new_array(FV_FLOAT64, 2, shape, CPU);
    for (int j = 0; j < 21; j++)
        ((double *)fv_array_data(proj))[j] = sv[j * 5 + 2];
    CHECK_OK(fv_sart_projection_update(NULL, img, proj, 72.0, 0.25, upd));
    fv_array *f = new_array(FV_FLOAT32, 2, shape, CPU);
    CHECK_ERR(fv_sart_projection_update(NULL, img, proj, 72.0, 0.25, f), FV_EDTYPE, "like the image");
    if (gpu) {
        fv_array *gi = to_gpu(img), *gs = new_array(FV_FLOAT64, 2, sshape, GPU);
        CHECK_OK(fv_radon(NULL, gi, m, 5, gs));
        CHECK(same_bytes(gs, sino));
        fv_array *gp = to_gpu(proj), *gu = new_array(FV_FLOAT64, 2, shape, GPU);
        fv_array *hu = new_array(FV_FLOAT64, 2, shape, CPU);
        CHECK_OK(fv_sart_projection_update(NULL, gi, gp, 72.0, 0.25, gu));
        CHECK_OK(fv_copy(NULL, gu, hu));
        const double *a = fv_array_data(hu), *b = fv_array_data(upd);
        int ok = 1;
        for (int i = 0; i < 21 * 21; i++)
            ok &= fabs(a[i] - b[i]) <= 1e-12 * (1 + fabs(b[i]));
        CHECK(ok);
        fv_array_unref(gi);
        fv_array_unref(gs);
        fv_array_unref(gp);
        fv_array_unref(gu);
        fv_array_unref(hu);
    }
    fv_array_unref(f);
    fv_array_unref(proj);
    fv_array_unref(upd);
    fv_array_unref(r);
    fv_array_unref(sino);
    fv_array_unref(img);
}

static void
test_backproject(int gpu)
{
    /* angle 0 (cos 1, sin 0): t = column - n / 2, linear in the projection
     * x = -2..2 of values 10 * x; angle 90 degrees (cos 0, sin 1): t = -(row - n / 2) */
    int64_t fshape[2] = { 2, 5 }, oshape[2] = { 6, 6 };
    fv_array *f = new_array(FV_FLOAT64, 2, fshape, CPU), *out = new_array(FV_FLOAT64, 2, oshape, CPU);
    double *fv = fv_array_data(f);
    for (int k = 0; k < 5; k++)
        fv[k] = fv[5 + k] = 10.0 * (k - 2);
    const double c[2] = { 1.0, 0.0 }, s[2] = { 0.0, 1.0 };
    CHECK_OK(fv_iradon_backproject(NULL, f, c, s, out));
    const double *o = fv_array_data(out);
    int ok = 1;
    for (int r = 0; r < 6; r++)
        for (int cc = 0; cc < 6; cc++) {
            double t0 = cc - 3, t1 = -(r - 3);
            double want = (fabs(t0) <= 2 ? 10 * t0 : 0) + (fabs(t1) <= 2 ? 10 * t1 : 0);
            ok &= o[r * 6 + cc] == want;
        }
    CHECK(ok);
    CHECK_ERR(fv_iradon_backproject(NULL, f, c, s, f), FV_EINVAL, "overlaps");
    if (gpu) {
        fv_array *gf = to_gpu(f), *go = new_array(FV_FLOAT64, 2, oshape, GPU);
        CHECK_OK(fv_iradon_backproject(NULL, gf, c, s, go));
        CHECK(same_bytes(go, out));
        fv_array_unref(gf);
        fv_array_unref(go);
    }
    fv_array_unref(f);
    fv_array_unref(out);
}

int
main(void)
{
    const int gpu = fv_cuda_available();
    if (!gpu)
        printf("test_transform: no usable GPU, CPU checks only\n");
    test_lines(gpu);
    test_circles(gpu);
    test_probabilistic();
    test_radon(gpu);
    test_backproject(gpu);
    return fv_t_summary("test_transform");
}
