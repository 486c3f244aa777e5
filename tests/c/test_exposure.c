/* fv_minmax, fv_histogram and fv_clahe (include/fovea/exposure.h): results
 * against brute-force host models, argument errors; with the argument "cuda"
 * the CUDA kernels against the CPU ones on the same data (exit 77 = skipped
 * without a usable GPU). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "internal.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t
next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static fv_array *
host_array(fv_dtype dt, int ndim, const int64_t *shape)
{
    fv_array *a = NULL;
    if (fv_array_new(NULL, dt, ndim, shape, CPU, &a))
        abort();
    return a;
}

static void
fill_random(fv_array *a)
{
    int64_t n = fv_array_size(a);
    char *p = fv_array_data(a);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = next_u64();
        switch (fv_array_dtype(a)) {
        case FV_BOOL:
            ((uint8_t *)p)[i] = r & 1;
            break;
        case FV_UINT8:
            ((uint8_t *)p)[i] = (uint8_t)r;
            break;
        case FV_UINT16:
            ((uint16_t *)p)[i] = (uint16_t)(r % 16384);
            break;
        case FV_INT16:
            ((int16_t *)p)[i] = (int16_t)((int64_t)(r % 2001) - 1000);
            break;
        case FV_INT64:
            ((int64_t *)p)[i] = (int64_t)(r % 5000) - 2500;
            break;
        case FV_FLOAT32:
            ((float *)p)[i] = (float)((double)(r >> 11) / 9007199254740992.0);
            break;
        case FV_FLOAT64:
            ((double *)p)[i] = (double)(r >> 11) / 9007199254740992.0 * 3.0 - 1.0;
            break;
        default:
            ((uint8_t *)p)[i] = (uint8_t)r;
            break;
        }
    }
}

static double
value_at(const fv_array *a, int64_t i)
{
    const char *p = fv_array_data(a);
    switch (fv_array_dtype(a)) {
    case FV_BOOL:
    case FV_UINT8:
        return ((const uint8_t *)p)[i];
    case FV_UINT16:
        return ((const uint16_t *)p)[i];
    case FV_INT16:
        return ((const int16_t *)p)[i];
    case FV_INT64:
        return (double)((const int64_t *)p)[i];
    case FV_FLOAT32:
        return ((const float *)p)[i];
    default:
        return ((const double *)p)[i];
    }
}

/* a float spec over [lo, hi] with double bins; edges as numpy.linspace */
static void
float_spec(fv_histogram_spec *sp, double *edges, int64_t nb, double lo, double hi)
{
    memset(sp, 0, sizeof *sp);
    sp->nbins = nb;
    sp->first = lo;
    sp->last = hi;
    sp->denom = hi - lo;
    double step = (hi - lo) / (double)nb;
    for (int64_t b = 0; b <= nb; b++)
        edges[b] = b == nb ? hi : lo + (double)b * step;
    sp->edges = edges;
}

/* bins by the edges themselves (numpy's searchsorted semantics, last bin closed) */
static int64_t
model_bin(double v, const double *edges, int64_t nb)
{
    if (!(v >= edges[0] && v <= edges[nb]))
        return -1;
    for (int64_t b = 0; b < nb; b++)
        if (v < edges[b + 1])
            return b;
    return nb - 1;
}

static void
test_cpu(void)
{
    int64_t shape[2] = { 37, 53 }, n = 37 * 53;
    /* minmax with mask and NaN */
    fv_array *f = host_array(FV_FLOAT64, 2, shape), *m = host_array(FV_BOOL, 2, shape);
    fill_random(f);
    fill_random(m);
    double lo, hi, elo = INFINITY, ehi = -INFINITY;
    int64_t cnt, ecnt = 0;
    for (int64_t i = 0; i < n; i++)
        if (((uint8_t *)fv_array_data(m))[i]) {
            double v = value_at(f, i);
            elo = fmin(elo, v);
            ehi = fmax(ehi, v);
            ecnt++;
        }
    CHECK_OK(fv_minmax(NULL, f, m, &lo, &hi, &cnt));
    CHECK(lo == elo && hi == ehi && cnt == ecnt);
    ((double *)fv_array_data(f))[5] = NAN;
    CHECK_OK(fv_minmax(NULL, f, NULL, &lo, &hi, &cnt));
    CHECK(isnan(lo) && isnan(hi) && cnt == n);
    ((double *)fv_array_data(f))[5] = 0.25;

    /* float histogram against the edge model, values placed on the edges too */
    double edges[65];
    fv_histogram_spec sp;
    float_spec(&sp, edges, 64, -1.0, 2.0);
    for (int64_t b = 0; b <= 64; b += 3)
        ((double *)fv_array_data(f))[b] = edges[b];
    int64_t nb64 = 64;
    fv_array *counts = host_array(FV_INT64, 1, &nb64);
    CHECK_OK(fv_histogram(NULL, f, m, &sp, counts));
    int64_t model[65] = { 0 };
    for (int64_t i = 0; i < n; i++) {
        if (!((uint8_t *)fv_array_data(m))[i])
            continue;
        int64_t b = model_bin(value_at(f, i), edges, 64);
        if (b >= 0)
            model[b]++;
    }
    CHECK(memcmp(model, fv_array_data(counts), 64 * sizeof(int64_t)) == 0);

    /* integer histogram by value */
    fv_array *s = host_array(FV_INT16, 2, shape);
    fill_random(s);
    int64_t nbi = 1501;
    fv_array *ci = host_array(FV_INT64, 1, &nbi);
    fv_histogram_spec isp = { .nbins = 1501, .integer = 1, .lo = -500 };
    CHECK_OK(fv_histogram(NULL, s, NULL, &isp, ci));
    int64_t *im = calloc(1501, sizeof *im), tot = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)value_at(s, i);
        if (v >= -500 && v <= 1000)
            im[v + 500]++, tot++;
    }
    CHECK(memcmp(im, fv_array_data(ci), 1501 * sizeof(int64_t)) == 0);
    free(im);

    /* argument errors */
    CHECK_ERR(fv_histogram(NULL, f, NULL, NULL, counts), FV_EINVAL, "NULL");
    fv_histogram_spec bad = sp;
    bad.nbins = 0;
    CHECK_ERR(fv_histogram(NULL, f, NULL, &bad, counts), FV_EINVAL, "nbins");
    bad = sp;
    bad.nbins = 63;
    CHECK_ERR(fv_histogram(NULL, f, NULL, &bad, counts), FV_EINVAL, "counts must be");
    bad = sp;
    bad.last = bad.first;
    CHECK_ERR(fv_histogram(NULL, f, NULL, &bad, counts), FV_EINVAL, "range");
    bad = sp;
    bad.edges = NULL;
    CHECK_ERR(fv_histogram(NULL, f, NULL, &bad, counts), FV_EINVAL, "edges");
    CHECK_ERR(fv_histogram(NULL, f, NULL, &isp, ci), FV_EDTYPE, "integer");
    CHECK_ERR(fv_histogram(NULL, f, f, &sp, counts), FV_EDTYPE, "mask");
    int64_t other[2] = { 3, 3 };
    fv_array *m2 = host_array(FV_BOOL, 2, other);
    CHECK_ERR(fv_minmax(NULL, f, m2, &lo, &hi, NULL), FV_EINVAL, "shape");
    CHECK_ERR(fv_minmax(NULL, f, NULL, NULL, &hi, NULL), FV_EINVAL, "NULL");

    /* CLAHE: a constant image maps to one value; errors */
    fv_array *u = host_array(FV_UINT16, 2, shape), *o = host_array(FV_UINT16, 2, shape);
    for (int64_t i = 0; i < n; i++)
        ((uint16_t *)fv_array_data(u))[i] = 5000;
    int64_t ks[2] = { 8, 8 };
    CHECK_OK(fv_clahe(NULL, u, o, ks, 0.01, 256));
    int same = 1;
    for (int64_t i = 1; i < n; i++)
        same &= ((uint16_t *)fv_array_data(o))[i] == ((uint16_t *)fv_array_data(o))[0];
    CHECK(same);
    CHECK_ERR(fv_clahe(NULL, f, o, ks, 0.01, 256), FV_EDTYPE, "uint16");
    int64_t ks0[2] = { 0, 8 };
    CHECK_ERR(fv_clahe(NULL, u, o, ks0, 0.01, 256), FV_EINVAL, "kernel_size");
    CHECK_ERR(fv_clahe(NULL, u, o, ks, 0.01, 0), FV_EINVAL, "nbins");
    CHECK_ERR(fv_clahe(NULL, u, o, ks, NAN, 256), FV_EINVAL, "NaN");
    fv_array *o2 = host_array(FV_UINT16, 2, other);
    CHECK_ERR(fv_clahe(NULL, u, o2, ks, 0.01, 256), FV_EINVAL, "shape");

    fv_array_unref(f);
    fv_array_unref(m);
    fv_array_unref(counts);
    fv_array_unref(s);
    fv_array_unref(ci);
    fv_array_unref(m2);
    fv_array_unref(u);
    fv_array_unref(o);
    fv_array_unref(o2);
}

/* ---- CUDA against CPU ---------------------------------------------------------------- */

static fv_array *
to_gpu(const fv_array *h)
{
    fv_array *d = NULL;
    fv_device gpu = { FV_DEVICE_CUDA, 0 };
    if (fv_array_new(NULL, fv_array_dtype(h), fv_array_ndim(h), fv_array_shape(h), gpu, &d) || fv_copy(NULL, h, d))
        abort();
    return d;
}

static fv_array *
to_host(const fv_array *d)
{
    fv_array *h = host_array(fv_array_dtype(d), fv_array_ndim(d), fv_array_shape(d));
    if (fv_copy(NULL, d, h) || fv_context_synchronize(NULL))
        abort();
    return h;
}

static int
test_cuda(void)
{
    if (!fv__cuda_init()) {
        printf("test_exposure cuda: skipped (%s)\n", fv__cuda_reason());
        return 77;
    }
    const fv_dtype dts[] = { FV_UINT8, FV_INT16, FV_INT64, FV_FLOAT32, FV_FLOAT64 };
    int64_t shapes[3][3] = { { 1000, 997, 0 }, { 61, 67, 0 }, { 17, 19, 23 } };
    for (int si = 0; si < 3; si++) {
        int nd = shapes[si][2] ? 3 : 2;
        for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
            fv_array *h = host_array(dts[k], nd, shapes[si]), *hm = host_array(FV_BOOL, nd, shapes[si]);
            fill_random(h);
            fill_random(hm);
            fv_array *d = to_gpu(h), *dm = to_gpu(hm);
            double l1, h1, l2, h2;
            int64_t c1, c2;
            CHECK_OK(fv_minmax(NULL, h, hm, &l1, &h1, &c1));
            CHECK_OK(fv_minmax(NULL, d, dm, &l2, &h2, &c2));
            CHECK(l1 == l2 && h1 == h2 && c1 == c2);
            fv_histogram_spec sp;
            int64_t nbs[2] = { 256, 20000 };
            for (int b = 0; b < 2; b++) {
                int64_t nb = nbs[b];
                double *edges = malloc((size_t)(nb + 1) * sizeof *edges);
                int isint = dts[k] != FV_FLOAT32 && dts[k] != FV_FLOAT64;
                if (isint) {
                    memset(&sp, 0, sizeof sp);
                    sp.nbins = nb;
                    sp.integer = 1;
                    sp.lo = (int64_t)l1;
                } else {
                    float_spec(&sp, edges, nb, l1, h1);
                    sp.single_bins = sp.single_diff = sp.single_div = dts[k] == FV_FLOAT32;
                }
                fv_array *hc = host_array(FV_INT64, 1, &nb), *dc = NULL;
                fv_device gpu = { FV_DEVICE_CUDA, 0 };
                CHECK_OK(fv_array_new(NULL, FV_INT64, 1, &nb, gpu, &dc));
                CHECK_OK(fv_histogram(NULL, h, hm, &sp, hc));
                CHECK_OK(fv_histogram(NULL, d, dm, &sp, dc));
                fv_array *back = to_host(dc);
                CHECK(memcmp(fv_array_data(back), fv_array_data(hc), (size_t)nb * 8) == 0);
                fv_array_unref(back);
                fv_array_unref(hc);
                fv_array_unref(dc);
                free(edges);
            }
            fv_array_unref(h);
            fv_array_unref(hm);
            fv_array_unref(d);
            fv_array_unref(dm);
        }
        /* CLAHE: CPU and CUDA bit for bit */
        fv_array *u = host_array(FV_UINT16, nd, shapes[si]), *o = host_array(FV_UINT16, nd, shapes[si]);
        fill_random(u);
        fv_array *du = to_gpu(u), *dout = NULL;
        fv_device gpu = { FV_DEVICE_CUDA, 0 };
        CHECK_OK(fv_array_new(NULL, FV_UINT16, nd, shapes[si], gpu, &dout));
        int64_t ks[3] = { 7, 16, 5 };
        double clips[3] = { 0.01, 0.0, 0.5 };
        int64_t nbins[3] = { 256, 16384, 100 };
        for (int c = 0; c < 3; c++) {
            CHECK_OK(fv_clahe(NULL, u, o, ks, clips[c], nbins[c]));
            CHECK_OK(fv_clahe(NULL, du, dout, ks, clips[c], nbins[c]));
            fv_array *back = to_host(dout);
            CHECK(memcmp(fv_array_data(back), fv_array_data(o), (size_t)fv_array_nbytes(o)) == 0);
            fv_array_unref(back);
        }
        fv_array_unref(u);
        fv_array_unref(o);
        fv_array_unref(du);
        fv_array_unref(dout);
    }
    return 0;
}

int
main(int argc, char **argv)
{
    int rc = 0;
    if (argc > 1 && !strcmp(argv[1], "cuda")) {
        if ((rc = test_cuda()) == 77)
            return 77;
    } else {
        test_cpu();
    }
    printf("%d passed, %d failed\n", fv_t_pass, fv_t_fail);
    return fv_t_fail ? 1 : rc;
}
