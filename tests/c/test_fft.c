/* fv_fft (CPU engine) against a direct DFT in long double: every length 1..160,
 * large primes and Bluestein sizes, both precisions, R2C / C2R, n-d over axes,
 * strided views, the plan cache's bound, concurrent callers and the errors. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "check.h"
#include "xorshift.h"
#include "cpu/fft/fft-engine.h"

static const long double PI_L = 3.141592653589793238462643383279502884L;

/* naive DFT of n complex values (stride in doubles); the n roots of unity in a table */
static void
dft(const double *x, long double *y, int64_t n, int inverse)
{
    long double *c = malloc((size_t)n * sizeof *c), *s = malloc((size_t)n * sizeof *s);
    for (int64_t j = 0; j < n; j++) {
        const long double a = (inverse ? 2 : -2) * PI_L * (long double)j / (long double)n;
        c[j] = cosl(a);
        s[j] = sinl(a);
    }
    for (int64_t k = 0; k < n; k++) {
        long double sr = 0, si = 0;
        for (int64_t j = 0, jk = 0; j < n; j++, jk = jk + k >= n ? jk + k - n : jk + k) {
            sr += x[2 * j] * c[jk] - x[2 * j + 1] * s[jk];
            si += x[2 * j] * s[jk] + x[2 * j + 1] * c[jk];
        }
        y[2 * k] = sr;
        y[2 * k + 1] = si;
    }
    free(c);
    free(s);
}

static double
urand(void)
{
    return uniform() - 0.5;
}

/* max |got - want| / max(1, max |want|) for a 1-D C2C of length n in dtype dt */
static double
c2c_err(int64_t n, fv_dtype dt, int inverse)
{
    int64_t shape[2] = { n, 2 };
    fv_array *in, *out;
    CHECK_OK(fv_array_new(NULL, dt, 2, shape, (fv_device){ FV_DEVICE_CPU, 0 }, &in));
    CHECK_OK(fv_array_new(NULL, dt, 2, shape, (fv_device){ FV_DEVICE_CPU, 0 }, &out));
    double *x = malloc((size_t)n * 2 * sizeof *x);
    long double *y = malloc((size_t)n * 2 * sizeof *y);
    for (int64_t i = 0; i < 2 * n; i++) {
        x[i] = urand();
        if (dt == FV_FLOAT32) {
            ((float *)fv_array_data(in))[i] = (float)x[i];
            x[i] = (float)x[i];
        } else {
            ((double *)fv_array_data(in))[i] = x[i];
        }
    }
    int axis = 0;
    CHECK_OK(fv_fft(NULL, in, out, FV_FFT_C2C, 1, &axis, inverse, 1.0));
    dft(x, y, n, inverse);
    long double mx = 1, err = 0;
    for (int64_t i = 0; i < 2 * n; i++) {
        const long double g = dt == FV_FLOAT32 ? ((float *)fv_array_data(out))[i] : ((double *)fv_array_data(out))[i];
        if (fabsl(y[i]) > mx)
            mx = fabsl(y[i]);
        if (fabsl(g - y[i]) > err)
            err = fabsl(g - y[i]);
    }
    free(x);
    free(y);
    fv_array_unref(in);
    fv_array_unref(out);
    return (double)(err / mx);
}

static void
test_lengths(void)
{
    static const int64_t extra[] = { 211, 256, 257, 331, 509, 1009 }; /* larger: tests/python/test_fft.py */
    for (int64_t n = 1; n <= 160 + (int64_t)(sizeof extra / sizeof *extra); n++) {
        const int64_t len = n <= 160 ? n : extra[n - 161];
        for (int inv = 0; inv < 2; inv++) {
            const double ed = c2c_err(len, FV_FLOAT64, inv), ef = c2c_err(len, FV_FLOAT32, inv);
            const double tol_d = 1e-14 * (1 + log2((double)len)), tol_f = 2e-6 * (1 + log2((double)len));
            if (!(ed < tol_d) || !(ef < tol_f))
                fprintf(stderr, "length %lld inverse %d: errors %.3g (f64) %.3g (f32)\n", (long long)len, inv, ed, ef);
            CHECK(ed < tol_d);
            CHECK(ef < tol_f);
        }
    }
}

/* Direct, Bluestein on the whole length, or the last radix by Bluestein, by the
 * engine's cost model (fft-engine.c): small radices and moderate primes direct,
 * large primes alone whole (a 7-smooth convolution length >= 2n - 1), a large prime
 * with a rest as the last radix; lengths with a large direct radix against the DFT;
 * the SIMD lanes bit for bit the scalar engine on every path. */
static void
test_plans(void)
{
    static const int64_t direct[] = { 7, 49, 31, 61, 113 * 2, 61 * 1024, 343 * 1024 };
    static const int64_t whole[] = { 1009, 65537, 10007 };
    static const int64_t last[][2] = { { 2 * 3 * 4099, 4099 }, { 1031 * 64, 1031 }, { 1016, 127 } };
    for (size_t i = 0; i < sizeof direct / sizeof *direct; i++) {
        fv__fft1d *p = fv__fft1d_get(direct[i], 1);
        if (!p || p->sub || p->rad)
            fprintf(stderr, "length %lld: Bluestein, not direct\n", (long long)direct[i]);
        CHECK(p && !p->sub && !p->rad);
        fv__fft1d_put(p);
    }
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
        fv__fft1d *p = fv__fft1d_get(whole[i], 1);
        CHECK(p && p->sub && !p->rad && p->m >= 2 * whole[i] - 1 && p->m < 4 * whole[i]);
        int64_t r = p && p->m ? p->m : 11;
        for (int64_t f = 2; f <= 7; f++)
            while (r % f == 0)
                r /= f;
        CHECK(r == 1);
        fv__fft1d_put(p);
    }
    for (size_t i = 0; i < sizeof last / sizeof *last; i++) {
        fv__fft1d *p = fv__fft1d_get(last[i][0], 1);
        CHECK(p && !p->sub && p->rad && p->rad->n == last[i][1] && p->rad->sub);
        fv__fft1d_put(p);
    }
    static const int64_t big[] = { 1016, 904 }; /* Bluestein radix 127; direct radix 113 */
    for (size_t i = 0; i < sizeof big / sizeof *big; i++)
        for (int inv = 0; inv < 2; inv++) {
            const double ed = c2c_err(big[i], FV_FLOAT64, inv), ef = c2c_err(big[i], FV_FLOAT32, inv);
            CHECK(ed < 1e-14 * (1 + log2((double)big[i])));
            CHECK(ef < 2e-6 * (1 + log2((double)big[i])));
        }
    static const int64_t lens[] = { 5, 904, 1016, 1009, 2 * 3 * 4099 };
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
        for (int dbl = 0; dbl < 2; dbl++) {
            const int64_t n = lens[i], L = dbl ? FV__FFT_LANE_BYTES / 8 : FV__FFT_LANE_BYTES / 4;
            const size_t es = dbl ? 8 : 4;
            fv__fft1d *p = fv__fft1d_get(n, dbl);
            const int64_t ns = fv__fft1d_scratch(p) + 1;
            char *x = malloc((size_t)n * 2 * es), *y = malloc((size_t)n * 2 * es), *sc = malloc((size_t)ns * 2 * es);
            char *lx = aligned_alloc(32, (size_t)(n * 2 * L * es + 31) / 32 * 32);
            char *ly = aligned_alloc(32, (size_t)(n * 2 * L * es + 31) / 32 * 32);
            char *ls = aligned_alloc(32, (size_t)(ns * 2 * L * es + 31) / 32 * 32);
            for (int64_t j = 0; j < n; j++) /* lane q of value j: (j, q) */
                for (int64_t q = 0; q < L; q++)
                    for (int c = 0; c < 2; c++) {
                        const double v = urand();
                        if (dbl)
                            ((double *)lx)[j * 2 * L + c * L + q] = v;
                        else
                            ((float *)lx)[j * 2 * L + c * L + q] = (float)v;
                    }
            for (int inv = 0; inv < 2; inv++) {
                fv__fft1d_exec_lanes(p, lx, ly, inv, ls);
                int same = 1;
                for (int64_t q = 0; q < L; q++) {
                    for (int64_t j = 0; j < n; j++)
                        for (int c = 0; c < 2; c++)
                            memcpy(x + (2 * j + c) * es, lx + ((size_t)(j * 2 * L + c * L + q)) * es, es);
                    fv__fft1d_exec(p, x, y, inv, sc);
                    for (int64_t j = 0; j < n; j++)
                        for (int c = 0; c < 2; c++)
                            same &= !memcmp(y + (2 * j + c) * es, ly + ((size_t)(j * 2 * L + c * L + q)) * es, es);
                }
                CHECK(same);
            }
            free(x);
            free(y);
            free(sc);
            free(lx);
            free(ly);
            free(ls);
            fv__fft1d_put(p);
        }
}

/* R2C then C2R along axis 1 of a strided 3-D view, against C2C of the same data */
static void
test_real_nd(void)
{
    const fv_device cpu = { FV_DEVICE_CPU, 0 };
    for (int64_t n = 1; n <= 21; n++) {
        int64_t big[3] = { 4, 2 * n, 3 };
        fv_array *base, *view, *half, *back, *cin, *cout;
        CHECK_OK(fv_array_new(NULL, FV_FLOAT64, 3, big, cpu, &base));
        for (int64_t i = 0; i < 4 * 2 * n * 3; i++)
            ((double *)fv_array_data(base))[i] = urand();
        /* view: every other element along axis 1 -> shape (4, n, 3) */
        int64_t vs[3] = { 4, n, 3 }, vstr[3] = { 2 * n * 3 * 8, 2 * 3 * 8, 8 };
        CHECK_OK(fv_array_view(base, 3, vs, vstr, 0, &view));
        int64_t hs[4] = { 4, n / 2 + 1, 3, 2 }, cs[4] = { 4, n, 3, 2 };
        CHECK_OK(fv_array_new(NULL, FV_FLOAT64, 4, hs, cpu, &half));
        CHECK_OK(fv_array_new(NULL, FV_FLOAT64, 3, vs, cpu, &back));
        CHECK_OK(fv_array_new(NULL, FV_FLOAT64, 4, cs, cpu, &cin));
        CHECK_OK(fv_array_new(NULL, FV_FLOAT64, 4, cs, cpu, &cout));
        for (int64_t a = 0; a < 4; a++)
            for (int64_t b = 0; b < n; b++)
                for (int64_t c = 0; c < 3; c++) {
                    double *z = (double *)fv_array_data(cin) + ((a * n + b) * 3 + c) * 2;
                    z[0] = *(double *)((char *)fv_array_data(view) + a * vstr[0] + b * vstr[1] + c * vstr[2]);
                    z[1] = 0;
                }
        int axes[2] = { 0, 1 };
        CHECK_OK(fv_fft(NULL, view, half, FV_FFT_R2C, 2, axes, 0, 1.0));
        CHECK_OK(fv_fft(NULL, cin, cout, FV_FFT_C2C, 2, axes, 0, 1.0));
        for (int64_t a = 0; a < 4; a++)
            for (int64_t b = 0; b <= n / 2; b++)
                for (int64_t c = 0; c < 3; c++)
                    for (int r = 0; r < 2; r++) {
                        const double g = ((double *)fv_array_data(half))[((a * (n / 2 + 1) + b) * 3 + c) * 2 + r];
                        const double w = ((double *)fv_array_data(cout))[((a * n + b) * 3 + c) * 2 + r];
                        CHECK(fabs(g - w) < 1e-12 * (1 + n));
                    }
        CHECK_OK(fv_fft(NULL, half, back, FV_FFT_C2R, 2, axes, 1, 1.0 / (4.0 * (double)n)));
        for (int64_t a = 0; a < 4; a++)
            for (int64_t b = 0; b < n; b++)
                for (int64_t c = 0; c < 3; c++) {
                    const double g = ((double *)fv_array_data(back))[(a * n + b) * 3 + c];
                    const double w = *(double *)((char *)fv_array_data(view) + a * vstr[0] + b * vstr[1] + c * vstr[2]);
                    CHECK(fabs(g - w) < 1e-12 * (1 + n));
                }
        fv_array_unref(base);
        fv_array_unref(view);
        fv_array_unref(half);
        fv_array_unref(back);
        fv_array_unref(cin);
        fv_array_unref(cout);
    }
}

static void *
worker(void *arg)
{
    const int64_t base = (int64_t)(intptr_t)arg;
    for (int64_t i = 0; i < 40; i++) {
        const int64_t n = base + 7 * i;
        fv__fft1d *p = fv__fft1d_get(n, (int)(i & 1));
        CHECK(p != NULL);
        fv__fft1d_put(p);
    }
    return NULL;
}

static void
test_cache(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(100 + 3 * i)) == 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    CHECK(fv__fft1d_cached() <= FV__FFT1D_CACHE);
    CHECK(fv__fft1d_cached() > 0);
    CHECK(c2c_err(97, FV_FLOAT64, 0) < 1e-13); /* still right after evictions */
}

static void
test_errors(void)
{
    const fv_device cpu = { FV_DEVICE_CPU, 0 };
    int64_t s[2] = { 4, 2 }, s3[2] = { 4, 3 }, r[1] = { 8 };
    fv_array *a, *b, *c, *d, *e;
    CHECK_OK(fv_array_new(NULL, FV_FLOAT32, 2, s, cpu, &a));
    CHECK_OK(fv_array_new(NULL, FV_FLOAT64, 2, s, cpu, &b));
    CHECK_OK(fv_array_new(NULL, FV_FLOAT32, 2, s3, cpu, &c));
    CHECK_OK(fv_array_new(NULL, FV_FLOAT32, 1, r, cpu, &d));
    CHECK_OK(fv_array_new(NULL, FV_INT32, 2, s, cpu, &e));
    int ax = 0, bad = 3, twice[2] = { 0, 0 };
    CHECK(fv_fft(NULL, a, b, FV_FFT_C2C, 1, &ax, 0, 1.0) == FV_EDTYPE);
    CHECK(fv_fft(NULL, a, a, FV_FFT_C2C, 1, &ax, 0, 1.0) == FV_EINVAL);
    CHECK(fv_fft(NULL, c, c, FV_FFT_C2C, 1, &ax, 0, 1.0) == FV_EINVAL);
    CHECK(fv_fft(NULL, d, a, FV_FFT_R2C, 1, &ax, 0, 1.0) == FV_EINVAL); /* needs 5 outputs */
    CHECK(fv_fft(NULL, e, e, FV_FFT_C2C, 1, &ax, 0, 1.0) == FV_EDTYPE);
    CHECK(fv_fft(NULL, a, NULL, FV_FFT_C2C, 1, &ax, 0, 1.0) == FV_EINVAL);
    CHECK(fv_fft(NULL, d, a, (fv_fft_kind)7, 1, &ax, 0, 1.0) == FV_EINVAL);
    CHECK(fv_fft(NULL, d, a, FV_FFT_R2C, 1, &bad, 0, 1.0) == FV_EINVAL);
    CHECK(fv_fft(NULL, d, a, FV_FFT_R2C, 2, twice, 0, 1.0) == FV_EINVAL);
    CHECK(fv_fft(NULL, d, a, FV_FFT_R2C, 1, &ax, 0, NAN) == FV_EINVAL);
    double par[1] = { 1.0 };
    CHECK(fv_fourier_filter(NULL, d, 0, d, 1, FV_FOURIER_SHIFT, par, -1, 0) == FV_EINVAL);
    CHECK(fv_fourier_filter(NULL, a, 1, d, 0, FV_FOURIER_GAUSSIAN, par, -1, 0) == FV_EDTYPE);
    CHECK(fv_fourier_filter(NULL, d, 0, d, 0, FV_FOURIER_GAUSSIAN, NULL, -1, 0) == FV_EINVAL);
    CHECK(fv_fourier_filter(NULL, d, 0, d, 0, FV_FOURIER_GAUSSIAN, par, -1, 1) == FV_EINVAL);
    CHECK_OK(fv_fourier_filter(NULL, d, 0, d, 0, FV_FOURIER_GAUSSIAN, par, -1, 0)); /* in place */
    fv_array_unref(a);
    fv_array_unref(b);
    fv_array_unref(c);
    fv_array_unref(d);
    fv_array_unref(e);
}

int
main(void)
{
    test_lengths();
    test_plans();
    test_real_nd();
    test_cache();
    test_errors();
    return fv_t_summary("test_fft");
}
