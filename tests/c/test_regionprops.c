/* fv_region_stats (include/fovea/measure.h) against a two-pass reference
 * written here: random label images of 1..4 dimensions and every integer
 * dtype (negative labels and labels above max_label are ignored), sparse and
 * dense labels, images large enough for many CPU blocks, labels far from the
 * origin, intensity images of several dtypes with one or several channels,
 * strided views, and the argument errors.
 *
 * Built twice: test_regionprops runs the CPU backend; test_cuda_regionprops
 * (FV_TEST_CUDA) runs the same cases on the CUDA backend and compares them
 * with the reference and with the CPU, exiting 77 (ctest: skipped) without a
 * usable GPU. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
#ifdef FV_TEST_CUDA
static const fv_device GPU = { FV_DEVICE_CUDA, 0 };
#endif
static fv_context *ctx;
static int ncases;

#define FV_T_SEED 0x2545f4914f6cdd1dull
#include "xorshift.h"

static int64_t
label_at(const void *data, fv_dtype dt, int64_t i)
{
    switch (dt) {
    case FV_UINT8:
        return ((const uint8_t *)data)[i];
    case FV_INT8:
        return ((const int8_t *)data)[i];
    case FV_UINT16:
        return ((const uint16_t *)data)[i];
    case FV_INT16:
        return ((const int16_t *)data)[i];
    case FV_UINT32:
        return ((const uint32_t *)data)[i];
    case FV_INT32:
        return ((const int32_t *)data)[i];
    case FV_UINT64:
        return (int64_t)((const uint64_t *)data)[i];
    default:
        return ((const int64_t *)data)[i];
    }
}

static void
label_put(void *data, fv_dtype dt, int64_t i, int64_t v)
{
    switch (dt) {
    case FV_UINT8:
        ((uint8_t *)data)[i] = (uint8_t)v;
        break;
    case FV_INT8:
        ((int8_t *)data)[i] = (int8_t)v;
        break;
    case FV_UINT16:
        ((uint16_t *)data)[i] = (uint16_t)v;
        break;
    case FV_INT16:
        ((int16_t *)data)[i] = (int16_t)v;
        break;
    case FV_UINT32:
        ((uint32_t *)data)[i] = (uint32_t)v;
        break;
    case FV_INT32:
        ((int32_t *)data)[i] = (int32_t)v;
        break;
    case FV_UINT64:
        ((uint64_t *)data)[i] = (uint64_t)v;
        break;
    default:
        ((int64_t *)data)[i] = v;
        break;
    }
}

static double
value_at(const void *data, fv_dtype dt, int64_t i)
{
    switch (dt) {
    case FV_UINT8:
        return ((const uint8_t *)data)[i];
    case FV_UINT16:
        return ((const uint16_t *)data)[i];
    case FV_INT32:
        return ((const int32_t *)data)[i];
    case FV_FLOAT32:
        return ((const float *)data)[i];
    default:
        return ((const double *)data)[i];
    }
}

/* Two passes per label: count and box, then moments about the box start as
 * long double sums (independent of the kernels' block / shift scheme). */
static void
reference(const void *lab, fv_dtype ldt, int nd, const int64_t *shape, const void *inten, fv_dtype idt, int64_t nch,
          int64_t L, double *out, int64_t ncols)
{
    int64_t n = 1, nm = 1;
    for (int d = 0; d < nd; d++) {
        n *= shape[d];
        nm *= 4;
    }
    long double *acc = calloc((size_t)(L * ncols), sizeof *acc);
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t i = 0; i < n; i++) {
            int64_t l = label_at(lab, ldt, i);
            if (ldt == FV_UINT64 && (uint64_t)l > (uint64_t)INT64_MAX)
                continue;
            if (l <= 0 || l > L)
                continue;
            long double *row = acc + (l - 1) * ncols;
            int64_t x[8], rest = i;
            for (int d = nd - 1; d >= 0; d--) {
                x[d] = rest % shape[d];
                rest /= shape[d];
            }
            if (pass == 0) {
                if (row[0] == 0)
                    for (int d = 0; d < nd; d++) {
                        row[1 + d] = x[d];
                        row[1 + nd + d] = x[d] + 1;
                    }
                row[0] += 1;
                for (int d = 0; d < nd; d++) {
                    if (x[d] < row[1 + d])
                        row[1 + d] = x[d];
                    if (x[d] + 1 > row[1 + nd + d])
                        row[1 + nd + d] = x[d] + 1;
                }
                for (int64_t c = 0; c < nch; c++) {
                    long double *ch = row + 1 + 2 * nd + nm + c * (2 + nm);
                    double v = value_at(inten, idt, i * nch + c);
                    if (row[0] == 1 || v < ch[0])
                        ch[0] = v;
                    if (row[0] == 1 || v > ch[1])
                        ch[1] = v;
                }
                continue;
            }
            for (int64_t k = 0; k < nm; k++) {
                long double m = 1;
                int64_t rem = k;
                for (int d = nd - 1; d >= 0; d--, rem /= 4)
                    for (int e = 0; e < rem % 4; e++)
                        m *= (long double)(x[d] - (int64_t)row[1 + d]);
                row[1 + 2 * nd + k] += m;
                for (int64_t c = 0; c < nch; c++)
                    row[1 + 2 * nd + nm + c * (2 + nm) + 2 + k] += m * value_at(inten, idt, i * nch + c);
            }
        }
    }
    for (int64_t k = 0; k < L * ncols; k++)
        out[k] = (double)acc[k];
    free(acc);
}

/* Compare got with want row by row. Column k may differ by 1e-9 relative, or
 * by 1e-12 of a bound on the magnitudes that its sum can meet on the way:
 * count (or count x the largest |value|) x ext^|p|, ext the box's largest
 * extent (the kernels move sums between reference points within the box, as
 * long as the result is exact at that scale the sums keep their digits). */
static int
tables_match(const double *got, const double *want, int64_t L, int64_t ncols, int nd, int64_t nch)
{
    int64_t nm = 1;
    for (int d = 0; d < nd; d++)
        nm *= 4;
    for (int64_t l = 0; l < L; l++) {
        const double *w = want + l * ncols, *g = got + l * ncols;
        if (w[0] == 0) { /* absent label: only the zero count is specified */
            if (g[0] != 0) {
                fprintf(stderr, "  label %lld: count %g, want 0\n", (long long)(l + 1), g[0]);
                return 0;
            }
            continue;
        }
        double ext = 1;
        for (int d = 0; d < nd; d++)
            if (w[1 + nd + d] - w[1 + d] > ext)
                ext = w[1 + nd + d] - w[1 + d];
        for (int64_t k = 0; k < ncols; k++) {
            double bound = 0;
            int64_t m = k - (1 + 2 * nd), c = -1;
            if (m >= nm) {
                c = (m - nm) / (2 + nm);
                m = (m - nm) % (2 + nm) - 2; /* -2, -1: min, max */
            }
            if (m >= 0) {
                int deg = 0;
                for (int64_t r = m; r > 0; r /= 4)
                    deg += (int)(r % 4);
                double vmax = 1;
                if (c >= 0) {
                    const double *ch = w + 1 + 2 * nd + nm + c * (2 + nm);
                    vmax = fabs(ch[0]) > fabs(ch[1]) ? fabs(ch[0]) : fabs(ch[1]);
                }
                bound = w[0] * vmax * pow(ext, deg);
            }
            if (!(fabs(g[k] - w[k]) <= 1e-9 * fabs(w[k]) + 1e-12 * bound)) {
                fprintf(stderr, "  label %lld column %lld: got %.17g want %.17g\n", (long long)(l + 1), (long long)k,
                        g[k], w[k]);
                return 0;
            }
        }
    }
    (void)nch;
    return 1;
}

/* Run fv_region_stats on the backend under test (copies to the GPU in the CUDA build). */
static fv_status
run_stats(const fv_array *lab, const fv_array *inten, int64_t L, fv_array *out)
{
#ifdef FV_TEST_CUDA
    fv_array *dl = NULL, *di = NULL, *dout = NULL;
    fv_status st = fv_array_new(ctx, fv_array_dtype(lab), fv_array_ndim(lab), fv_array_shape(lab), GPU, &dl);
    if (!st)
        st = fv_copy(ctx, lab, dl);
    if (!st && inten) {
        st = fv_array_new(ctx, fv_array_dtype(inten), fv_array_ndim(inten), fv_array_shape(inten), GPU, &di);
        if (!st)
            st = fv_copy(ctx, inten, di);
    }
    if (!st)
        st = fv_array_new(ctx, FV_FLOAT64, 2, fv_array_shape(out), GPU, &dout);
    if (!st)
        st = fv_region_stats(ctx, dl, di, L, dout);
    if (!st)
        st = fv_copy(ctx, dout, out);
    fv_array_unref(dl);
    fv_array_unref(di);
    fv_array_unref(dout);
    return st;
#else
    return fv_region_stats(ctx, lab, inten, L, out);
#endif
}

/* blocky: labels are large boxes (whole warps of one label on the GPU: its
 * aggregated path) with a few pixels of other labels sprinkled in. */
static void
one_case_mode(fv_dtype ldt, int nd, const int64_t *shape, int64_t nlabels, double density, int64_t nch, fv_dtype idt,
              int blocky)
{
    fv_array *lab = NULL, *inten = NULL, *out = NULL, *cpu = NULL;
    int64_t n = 1, ishape[8];
    for (int d = 0; d < nd; d++) {
        n *= shape[d];
        ishape[d] = shape[d];
    }
    ishape[nd] = nch;
    int signed_dt = ldt == FV_INT8 || ldt == FV_INT16 || ldt == FV_INT32 || ldt == FV_INT64;
    CHECK_OK(fv_array_new(ctx, ldt, nd, shape, CPU, &lab));
    void *ld = fv_array_data(lab);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = uniform() < density ? 1 + (int64_t)(uniform() * (double)nlabels) : 0;
        if (blocky && uniform() > 0.001) {
            int64_t rest = i, key = 0;
            for (int d = nd - 1; d >= 0; d--) {
                key = key * 7 + (rest % shape[d]) / 45;
                rest /= shape[d];
            }
            v = key % (nlabels + 1); /* 0 is a background box */
        }
        if (signed_dt && uniform() < 0.02)
            v = -1 - (int64_t)(uniform() * 3); /* ignored */
        label_put(ld, ldt, i, v);
    }
    /* max_label one below the largest present label sometimes: the rest is ignored */
    int64_t L = nlabels - (uniform() < 0.3 ? 1 : 0);
    if (nch > 0) {
        CHECK_OK(fv_array_new(ctx, idt, nch == 1 && uniform() < 0.5 ? nd : nd + 1, ishape, CPU, &inten));
        for (int64_t i = 0; i < n * nch; i++) {
            double v = uniform() * 200 - (idt == FV_FLOAT32 || idt == FV_FLOAT64 ? 100 : 0);
            switch (idt) {
            case FV_UINT8:
                ((uint8_t *)fv_array_data(inten))[i] = (uint8_t)v;
                break;
            case FV_UINT16:
                ((uint16_t *)fv_array_data(inten))[i] = (uint16_t)(v * 300);
                break;
            case FV_INT32:
                ((int32_t *)fv_array_data(inten))[i] = (int32_t)(v * 1000);
                break;
            case FV_FLOAT32:
                ((float *)fv_array_data(inten))[i] = (float)v;
                break;
            default:
                ((double *)fv_array_data(inten))[i] = v;
                break;
            }
        }
    }
    int64_t ncols = fv_region_stats_columns(nd, nch);
    int64_t tshape[2] = { L, ncols };
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, tshape, CPU, &out));
    double *want = malloc(sizeof(double) * (size_t)(L * ncols + 1));
    reference(ld, ldt, nd, shape, inten ? fv_array_data(inten) : NULL, idt, nch, L, want, ncols);
    fv_status st = run_stats(lab, inten, L, out);
    CHECK_OK(st);
    if (st == FV_OK) {
        int ok = tables_match(fv_array_data(out), want, L, ncols, nd, nch);
        if (!ok)
            fprintf(stderr, "  case: dtype %s nd %d n %lld labels %lld channels %lld\n", fv_dtype_name(ldt), nd,
                    (long long)n, (long long)L, (long long)nch);
        CHECK(ok);
    }
#ifdef FV_TEST_CUDA
    /* and the same as the CPU backend */
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, tshape, CPU, &cpu));
    CHECK_OK(fv_region_stats(ctx, lab, inten, L, cpu));
    CHECK(tables_match(fv_array_data(out), fv_array_data(cpu), L, ncols, nd, nch));
#endif
    ncases++;
    free(want);
    fv_array_unref(cpu);
    fv_array_unref(out);
    fv_array_unref(inten);
    fv_array_unref(lab);
}

static void
one_case(fv_dtype ldt, int nd, const int64_t *shape, int64_t nlabels, double density, int64_t nch, fv_dtype idt)
{
    one_case_mode(ldt, nd, shape, nlabels, density, nch, idt, 0);
}

static void
test_random(void)
{
    const fv_dtype ldts[] = { FV_UINT8, FV_INT8, FV_UINT16, FV_INT16, FV_UINT32, FV_INT32, FV_UINT64, FV_INT64 };
    const fv_dtype idts[] = { FV_UINT8, FV_UINT16, FV_INT32, FV_FLOAT32, FV_FLOAT64 };
    for (int t = 0; t < 120; t++) {
        int nd = 1 + t % 4;
        int64_t shape[4];
        for (int d = 0; d < nd; d++)
            shape[d] = 1 + (int64_t)(uniform() * (nd == 1 ? 300 : nd == 2 ? 60 : nd == 3 ? 18 : 8));
        fv_dtype ldt = ldts[t % 8];
        int64_t nl = 1 + (int64_t)(uniform() * (ldt == FV_INT8 ? 100 : 300));
        int64_t nch = t % 3 == 0 ? 0 : 1 + t % 3;
        one_case(ldt, nd, shape, nl, 0.1 + 0.8 * uniform(), nch, idts[t % 5]);
    }
}

static void
test_large(void)
{
    /* many CPU blocks; labels spanning block borders; far from the origin */
    int64_t s2[2] = { 1200, 700 }, s3[3] = { 60, 70, 80 };
    one_case(FV_INT32, 2, s2, 5, 0.9, 2, FV_FLOAT64);
    one_case(FV_UINT16, 2, s2, 20000, 0.5, 1, FV_UINT8);
    one_case(FV_INT64, 3, s3, 40, 0.7, 1, FV_FLOAT32);
    one_case_mode(FV_INT32, 2, s2, 30, 0.5, 2, FV_FLOAT32, 1);
    one_case_mode(FV_UINT8, 3, s3, 9, 0.5, 0, FV_FLOAT64, 1);
}

static void
test_views_and_errors(void)
{
    fv_array *base = NULL, *v = NULL, *out = NULL, *out2 = NULL, *bad = NULL, *fl = NULL;
    int64_t shape[2] = { 40, 50 }, vshape[2] = { 20, 25 }, vstr[2] = { 2 * 50 * 4, 2 * 4 };
    CHECK_OK(fv_array_new(ctx, FV_INT32, 2, shape, CPU, &base));
    for (int64_t i = 0; i < 2000; i++)
        ((int32_t *)fv_array_data(base))[i] = (int32_t)(next_u64() % 4);
    CHECK_OK(fv_array_view(base, 2, vshape, vstr, 4, &v)); /* every other row and column, from (0, 1) */
    int64_t nc = fv_region_stats_columns(2, 0), tshape[2] = { 3, nc };
    CHECK(nc == 21);
    CHECK(fv_region_stats_columns(5, 0) == -1 && fv_region_stats_columns(2, -1) == -1);
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, tshape, CPU, &out));
    CHECK_OK(fv_region_stats(ctx, v, NULL, 3, out));
    /* the same as a contiguous copy */
    CHECK_OK(fv_array_new(ctx, FV_INT32, 2, vshape, CPU, &fl));
    CHECK_OK(fv_copy(ctx, v, fl));
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, tshape, CPU, &out2));
    CHECK_OK(fv_region_stats(ctx, fl, NULL, 3, out2));
    CHECK(memcmp(fv_array_data(out), fv_array_data(out2), sizeof(double) * (size_t)(3 * nc)) == 0);
    double want[3 * 21];
    reference(fv_array_data(fl), FV_INT32, 2, vshape, NULL, FV_FLOAT64, 0, 3, want, nc);
    CHECK(tables_match(fv_array_data(out), want, 3, nc, 2, 0));
    fv_array_unref(fl);
    fl = NULL;

    /* errors */
    CHECK_ERR(fv_region_stats(ctx, NULL, NULL, 3, out), FV_EINVAL, "NULL");
    CHECK_ERR(fv_region_stats(ctx, v, NULL, -1, out), FV_EINVAL, "max_label");
    CHECK_ERR(fv_region_stats(ctx, v, NULL, 4, out), FV_EINVAL, "shape (4, 21)");
    CHECK_OK(fv_array_new(ctx, FV_FLOAT32, 2, vshape, CPU, &fl));
    CHECK_ERR(fv_region_stats(ctx, fl, NULL, 3, out), FV_EDTYPE, "integer dtype");
    int64_t ishape[2] = { 20, 24 };
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, ishape, CPU, &bad));
    CHECK_ERR(fv_region_stats(ctx, v, bad, 3, out), FV_EINVAL, "intensity must have the labels' shape");
    int64_t s5[5] = { 2, 2, 2, 2, 2 };
    fv_array *five = NULL;
    CHECK_OK(fv_array_new(ctx, FV_INT32, 5, s5, CPU, &five));
    CHECK_ERR(fv_region_stats(ctx, five, NULL, 3, out), FV_EINVAL, "1 to 4 dimensions");
    fv_array_unref(five);
    /* max_label 0: nothing to do, a (0, ncols) table */
    int64_t zshape[2] = { 0, nc };
    fv_array *z = NULL;
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, zshape, CPU, &z));
    CHECK_OK(fv_region_stats(ctx, v, NULL, 0, z));
    fv_array_unref(z);
    fv_array_unref(bad);
    fv_array_unref(fl);
    fv_array_unref(out2);
    fv_array_unref(out);
    fv_array_unref(v);
    fv_array_unref(base);
}

int
main(void)
{
#ifdef FV_TEST_CUDA
    if (!fv_cuda_available()) {
        printf("test_cuda_regionprops: skipped (%s)\n", fv_cuda_unavailable_reason());
        return 77;
    }
#endif
    if (fv_context_new(&ctx)) {
        fprintf(stderr, "fv_context_new failed\n");
        return 1;
    }
    test_random();
    test_large();
    test_views_and_errors();
    fv_context_free(ctx);
    printf("%d cases\n", ncases);
#ifdef FV_TEST_CUDA
    return fv_t_summary("test_cuda_regionprops");
#else
    return fv_t_summary("test_regionprops");
#endif
}
