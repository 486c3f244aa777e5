/* fv_resize_local_mean (op RESIZE_MEAN):
 *
 *  - 1-d to 3-d float64, uint8 and int16 inputs, both grid modes, down and up,
 *    against a reference written here from the definition: per axis the dense
 *    matrix of cell / pixel overlaps, rows normalised, applied axis by axis;
 *  - an integer factor gives the block mean exactly; a constant stays constant (to rounding);
 *  - float32 output; strided (transposed) input;
 *  - the CUDA backend (when a GPU is usable): every case bit for bit against the CPU;
 *  - argument errors: NULL, output dtype, ndim, read-only and overlapping output.
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

/* Break k of n + 1 evenly spaced from lo to hi (numpy.linspace: k * step + lo, the last exact). */
static double
lin(double lo, double hi, int64_t n, int64_t k)
{
    if (k == n)
        return hi;
    return (double)k * ((hi - lo) / (double)n) + lo;
}

/* The (n x m) overlap weights of one axis, rows normalised. */
static double *
weights(int64_t m, int64_t n, int grid)
{
    double *ob = malloc(sizeof(double) * (size_t)(m + 1)), *nb = malloc(sizeof(double) * (size_t)(n + 1));
    double *w = calloc((size_t)(n * m), sizeof(double));
    for (int64_t j = 0; j <= m; j++)
        ob[j] = grid ? (double)j : (j == 0 ? 0.0 : (j == m ? (double)(m - 1) : (double)j - 0.5));
    for (int64_t i = 0; i <= n; i++) {
        if (grid) {
            nb[i] = lin(0.0, (double)m, n, i);
        } else {
            const double old = (double)(m - 1), v = n > 1 ? 0.5 * old / (double)(n - 1) : 0.0;
            nb[i] = i == 0 ? 0.0 : (i == n ? old : (n - 1 == 1 ? v : lin(v, old - v, n - 2, i - 1)));
        }
    }
    for (int64_t i = 0; i < n; i++) {
        double t = 0.0;
        for (int64_t j = 0; j < m; j++) {
            const double hi = fmin(nb[i + 1], ob[j + 1]), lo = fmax(nb[i], ob[j]);
            w[i * m + j] = hi > lo ? hi - lo : 0.0;
            t += w[i * m + j];
        }
        for (int64_t j = 0; j < m; j++)
            w[i * m + j] /= t;
    }
    free(ob);
    free(nb);
    return w;
}

/* The reference for a C-contiguous float64 copy x of shape m[] (rank <= 3) into y of shape n[]. */
static void
reference(const double *x, int rank, const int64_t *m, const int64_t *n, int grid, double *y)
{
    int64_t cur[3] = { 1, 1, 1 };
    for (int d = 0; d < rank; d++)
        cur[d] = m[d];
    double *a = malloc(sizeof(double) * (size_t)(cur[0] * cur[1] * cur[2]));
    memcpy(a, x, sizeof(double) * (size_t)(cur[0] * cur[1] * cur[2]));
    for (int d = 0; d < rank; d++) {
        if (m[d] == n[d])
            continue;
        double *w = weights(m[d], n[d], grid);
        int64_t nxt[3] = { cur[0], cur[1], cur[2] };
        nxt[d] = n[d];
        double *b = calloc((size_t)(nxt[0] * nxt[1] * nxt[2]), sizeof(double));
        for (int64_t i0 = 0; i0 < nxt[0]; i0++)
            for (int64_t i1 = 0; i1 < nxt[1]; i1++)
                for (int64_t i2 = 0; i2 < nxt[2]; i2++) {
                    const int64_t o[3] = { i0, i1, i2 };
                    double t = 0.0;
                    for (int64_t j = 0; j < m[d]; j++) {
                        int64_t s[3] = { i0, i1, i2 };
                        s[d] = j;
                        t += w[o[d] * m[d] + j] * a[(s[0] * cur[1] + s[1]) * cur[2] + s[2]];
                    }
                    b[(i0 * nxt[1] + i1) * nxt[2] + i2] = t;
                }
        free(w);
        free(a);
        a = b;
        memcpy(cur, nxt, sizeof cur);
    }
    memcpy(y, a, sizeof(double) * (size_t)(cur[0] * cur[1] * cur[2]));
    free(a);
}

/* fv_resize_local_mean of in to oshape on dev (odt float32/float64); the result on the host. */
static fv_array *
run(const fv_array *in, const int64_t *oshape, fv_dtype odt, int grid, fv_device dev)
{
    const fv_array *src = in;
    fv_array *dsrc = NULL, *out = NULL, *host = NULL;
    if (dev.type == FV_DEVICE_CUDA) {
        if (fv_array_new(ctx, fv_array_dtype(in), fv_array_ndim(in), fv_array_shape(in), dev, &dsrc) ||
            fv_copy(ctx, in, dsrc))
            return NULL;
        src = dsrc;
    }
    CHECK_OK(fv_array_new(ctx, odt, fv_array_ndim(in), oshape, dev, &out));
    CHECK_OK(fv_resize_local_mean(ctx, src, out, grid));
    if (dev.type == FV_DEVICE_CUDA) {
        CHECK_OK(fv_array_new(ctx, odt, fv_array_ndim(in), oshape, CPU, &host));
        CHECK_OK(fv_copy(ctx, out, host));
        CHECK_OK(fv_context_synchronize(ctx));
        fv_array_unref(out);
        fv_array_unref(dsrc);
        return host;
    }
    return out;
}

static double
load(const fv_array *a, int64_t i)
{
    switch (fv_array_dtype(a)) {
    case FV_UINT8:
        return ((const uint8_t *)fv_array_data(a))[i];
    case FV_INT16:
        return ((const int16_t *)fv_array_data(a))[i];
    case FV_FLOAT32:
        return ((const float *)fv_array_data(a))[i];
    default:
        return ((const double *)fv_array_data(a))[i];
    }
}

static void
test_against_reference(void)
{
    static const struct {
        int rank;
        int64_t m[3], n[3];
    } cases[] = {
        { 1, { 30 }, { 7 } },
        { 1, { 4 }, { 9 } },
        { 1, { 50 }, { 1 } },
        { 2, { 7, 9 }, { 3, 4 } },
        { 2, { 5, 5 }, { 10, 10 } },
        { 2, { 8, 9 }, { 8, 3 } },
        { 3, { 6, 7, 5 }, { 3, 9, 2 } },
        { 3, { 9, 4, 3 }, { 4, 7, 3 } },
    };
    static const fv_dtype dts[] = { FV_FLOAT64, FV_UINT8, FV_INT16 };
    uint64_t seed = 88172645463325252ull;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t t = 0; t < 3; t++)
            for (int grid = 0; grid <= 1; grid++) {
                const int rank = cases[c].rank;
                fv_array *in = NULL;
                CHECK_OK(fv_array_new(ctx, dts[t], rank, cases[c].m, CPU, &in));
                const int64_t size = fv_array_size(in);
                double *x = malloc(sizeof(double) * (size_t)size);
                for (int64_t i = 0; i < size; i++) {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    const double r = (double)(seed >> 11) / 9007199254740992.0;
                    if (dts[t] == FV_FLOAT64)
                        ((double *)fv_array_data(in))[i] = x[i] = r * 10.0 - 5.0;
                    else if (dts[t] == FV_UINT8)
                        ((uint8_t *)fv_array_data(in))[i] = (uint8_t)(x[i] = floor(r * 256.0));
                    else
                        ((int16_t *)fv_array_data(in))[i] = (int16_t)(x[i] = floor(r * 2000.0) - 1000.0);
                }
                int64_t osize = 1;
                for (int d = 0; d < rank; d++)
                    osize *= cases[c].n[d];
                double *want = malloc(sizeof(double) * (size_t)(osize > size ? osize : size) * 4);
                /* one-pixel axes in centre mode are 0 / 0 (NaN): skipped */
                int nan_case = 0;
                for (int d = 0; d < rank; d++)
                    nan_case |= !grid && cases[c].m[d] == 1 && cases[c].n[d] != 1;
                reference(x, rank, cases[c].m, cases[c].n, grid, want);
                fv_array *got = run(in, cases[c].n, FV_FLOAT64, grid, CPU);
                fv_array *got32 = run(in, cases[c].n, FV_FLOAT32, grid, CPU);
                double err = 0.0, err32 = 0.0;
                for (int64_t i = 0; i < osize && !nan_case; i++) {
                    err = fmax(err, fabs(load(got, i) - want[i]));
                    err32 = fmax(err32, fabs(load(got32, i) - want[i]) / (dts[t] == FV_FLOAT64 ? 5.0 : 1000.0));
                }
                CHECK(err <= 1e-12 * (dts[t] == FV_FLOAT64 ? 5.0 : 1000.0));
                CHECK(err32 <= 1e-6);
                if (gpu) {
                    fv_array *g = run(in, cases[c].n, FV_FLOAT64, grid, GPU);
                    fv_array *g32 = run(in, cases[c].n, FV_FLOAT32, grid, GPU);
                    CHECK(g && !memcmp(fv_array_data(g), fv_array_data(got), sizeof(double) * (size_t)osize));
                    CHECK(g32 && !memcmp(fv_array_data(g32), fv_array_data(got32), sizeof(float) * (size_t)osize));
                    fv_array_unref(g);
                    fv_array_unref(g32);
                }
                fv_array_unref(got);
                fv_array_unref(got32);
                fv_array_unref(in);
                free(x);
                free(want);
            }
}

static void
test_exact_cases(void)
{
    /* a factor of 2: the 2x2 block means; a constant stays exactly constant */
    const int64_t ishape[2] = { 6, 8 }, oshape[2] = { 3, 4 }, ushape[2] = { 15, 21 };
    fv_array *in = NULL;
    CHECK_OK(fv_array_new(ctx, FV_UINT8, 2, ishape, CPU, &in));
    uint8_t *p = fv_array_data(in);
    for (int i = 0; i < 48; i++)
        p[i] = (uint8_t)(i * 37 % 251);
    fv_array *out = run(in, oshape, FV_FLOAT64, 1, CPU);
    int ok = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            const double m = (p[2 * i * 8 + 2 * j] + p[2 * i * 8 + 2 * j + 1] + p[(2 * i + 1) * 8 + 2 * j] +
                              p[(2 * i + 1) * 8 + 2 * j + 1]) /
                4.0;
            ok &= load(out, i * 4 + j) == m;
        }
    CHECK(ok);
    fv_array_unref(out);
    memset(p, 7, 48);
    for (int grid = 0; grid <= 1; grid++) {
        out = run(in, ushape, FV_FLOAT64, grid, CPU);
        ok = 1;
        for (int64_t i = 0; i < 15 * 21; i++)
            ok &= fabs(load(out, i) - 7.0) <= 1e-14;
        CHECK(ok);
        fv_array_unref(out);
    }
    /* a transposed (strided) view gives the transposed result */
    fv_array *t = NULL;
    const int64_t tshape[2] = { 8, 6 }, tstr[2] = { 1, 8 }, toshape[2] = { 4, 3 };
    for (int i = 0; i < 48; i++)
        p[i] = (uint8_t)(i * 37 % 251);
    CHECK_OK(fv_array_view(in, 2, tshape, tstr, 0, &t));
    fv_array *a = run(in, oshape, FV_FLOAT64, 1, CPU), *b = run(t, toshape, FV_FLOAT64, 1, CPU);
    ok = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            ok &= load(a, i * 4 + j) == load(b, j * 3 + i);
    CHECK(ok);
    fv_array_unref(a);
    fv_array_unref(b);
    fv_array_unref(t);
    fv_array_unref(in);
}

static void
test_errors(void)
{
    const int64_t s2[2] = { 4, 5 }, s1[1] = { 3 };
    fv_array *in = NULL, *out = NULL, *o1 = NULL, *oi = NULL;
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, s2, CPU, &in));
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, s2, CPU, &out));
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 1, s1, CPU, &o1));
    CHECK_OK(fv_array_new(ctx, FV_INT32, 2, s2, CPU, &oi));
    memset(fv_array_data(in), 0, sizeof(double) * 20);
    CHECK_ERR(fv_resize_local_mean(ctx, NULL, out, 1), FV_EINVAL, "NULL");
    CHECK_ERR(fv_resize_local_mean(ctx, in, oi, 1), FV_EDTYPE, "float32 or float64");
    CHECK_ERR(fv_resize_local_mean(ctx, in, o1, 1), FV_EINVAL, "ndim");
    CHECK_ERR(fv_resize_local_mean(ctx, in, in, 1), FV_EINVAL, "share memory");
    fv_array_set_readonly(out, 1);
    CHECK_ERR(fv_resize_local_mean(ctx, in, out, 1), FV_EINVAL, "read-only");
    fv_array_unref(in);
    fv_array_unref(out);
    fv_array_unref(o1);
    fv_array_unref(oi);
}

int
main(void)
{
    CHECK_OK(fv_context_new(&ctx));
    gpu = fv_cuda_available();
    if (!gpu)
        printf("test_resize_mean: no usable GPU, the CUDA comparisons are skipped\n");
    test_against_reference();
    test_exact_cases();
    test_errors();
    fv_context_free(ctx);
    printf("%d passed, %d failed\n", fv_t_pass, fv_t_fail);
    return fv_t_fail != 0;
}
