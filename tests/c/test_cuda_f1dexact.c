/* Float accumulators for 8/16-bit data into integer outputs where float is exact
 * (src/cuda/filters/filter1d.cu, filter-sep2.cu, filters-common.cuh
 * fv_cu_flt_float_exact): the CUDA result must equal the CPU backend's (scipy's double
 * sums) bit for bit, and the CUDA double-accumulator path's
 * (variant "double" of "cuda.filter1d.acc").
 *
 * Paths: correlate1d with weights float sums exactly (integers, dyadic
 * fractions: the float path) and with weights it does not (random, thirds,
 * tenths, a large sum: 16-bit data take the double path, which the predicate
 * must keep; 8-bit data the checked float path, fv_cu_flt_float_checked, whose
 * uncertain outputs are summed again in double: the second loop drives it with
 * sums on and near integers, windows of 3 to 130 taps);
 * uniform_filter1d; minimum / maximum_filter1d; the fused two-pass kernel
 * through fv_uniform_filter and fv_separable_filter.
 * Data: random over the dtype's range, and flat or stepped data whose sums land
 * on integers exactly (where a float sum that is not exact would truncate
 * differently); uint8, int8, uint16,
 * int16 and bool inputs into their own dtype, uint8, int16, int32 and bool
 * outputs; every mode, integral and fractional cvals, origins, axis 0 and the
 * last axis of 2-D and 3-D arrays.
 *
 * The correlate1d cases run again with the weights on the GPU
 * (fv_correlate1d_array), as do float and 32-bit data: the same bytes.
 *
 * Exits 77 (ctest: skipped) without a usable GPU. FOVEA_TEST_CUDA_ONLY=1
 * (compute-sanitizer runs): fewer cases. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#define FV_T_SEED 0x51f1dec7ull
#include "harness.h" /* check.h, variant-force.h, xorshift.h */

static int ncases;

/* data: 0 random over the dtype's range, 1 flat patches (sums exact integers),
 * 2 a few levels (sums on and near integers) */
static fv_array *
make_data(fv_dtype dt, int nd, const int64_t *sh, int kind)
{
    fv_array *h = rand_host(dt, nd, sh, 0);
    if (kind == 0)
        return h;
    int64_t n = fv_array_size(h);
    void *p = fv_array_data(h);
    double lo = dt == FV_INT8 ? -128 : dt == FV_INT16 ? -32768 : 0;
    double hi = dt == FV_BOOL ? 1 : dt == FV_UINT8 ? 255 : dt == FV_INT8 ? 127 : dt == FV_UINT16 ? 65535 : 32767;
    double v = lo;
    for (int64_t i = 0; i < n; i++) {
        if (kind == 1 ? (next_u64() % 23) == 0 : 1)
            v = kind == 1 ? lo + floor(uniform() * (hi - lo + 1)) : (double)(int64_t)(irand(0, 3) * 3);
        if (v > hi)
            v = hi;
        set_elem(p, dt, i, v);
    }
    return h;
}

static int
same_bytes(const fv_array *a, const fv_array *b)
{
    return fv_array_nbytes(a) == fv_array_nbytes(b) &&
        memcmp(fv_array_data(a), fv_array_data(b), (size_t)fv_array_nbytes(a)) == 0;
}

/* op: 0 correlate1d, 1 uniform_filter1d, 2 minimum_filter1d, 3 maximum_filter1d,
 * 4 uniform_filter (every axis: the fused pair in 2-D), 5 separable pair of
 * correlations (axis 0 then the last) */
static fv_status
run_op(int op, const fv_array *in, fv_array *out, const double *w, int64_t n, int axis, fv_mode mode, double cval,
       int64_t origin)
{
    switch (op) {
    case 0:
        return fv_correlate1d(ctx, in, out, w, n, axis, mode, cval, origin);
    case 1:
        return fv_uniform_filter1d(ctx, in, out, n, axis, mode, cval, origin);
    case 2:
        return fv_minimum_filter1d(ctx, in, out, n, axis, mode, cval, origin);
    case 3:
        return fv_maximum_filter1d(ctx, in, out, n, axis, mode, cval, origin);
    case 4: {
        int64_t size[FV_MAX_NDIM], org[FV_MAX_NDIM];
        fv_mode modes[FV_MAX_NDIM];
        for (int a = 0; a < fv_array_ndim(in); a++) {
            size[a] = n;
            org[a] = origin;
            modes[a] = mode;
        }
        return fv_uniform_filter(ctx, in, out, size, modes, cval, org);
    }
    default: {
        fv_filter_pass ps[2];
        memset(ps, 0, sizeof ps);
        for (int k = 0; k < 2; k++) {
            ps[k].kind = FV_PASS_CORRELATE;
            ps[k].axis = k == 0 ? 0 : fv_array_ndim(in) - 1;
            ps[k].size = n;
            ps[k].weights = w;
            ps[k].mode = mode;
            ps[k].cval = cval;
            ps[k].origin = origin;
        }
        return fv_separable_filter(ctx, in, out, ps, 2);
    }
    }
}

/* correlate1d with the weights on the GPU (fv_correlate1d_array: classified and
 * bounded by the kernels) into go; its result on the host */
static fv_array *
dev_weights_run(const fv_array *gi, fv_array *go, const double *w, int64_t n, int axis, fv_mode mode, double cval,
                int64_t origin)
{
    /* the weights contiguous, reversed (stride -8) or every other element (stride 16), in turn */
    static int layout;
    const int lay = layout++ % 3;
    const int64_t nb = lay == 2 ? 2 * n : n;
    fv_array *wh = new_array(FV_FLOAT64, 1, &nb, CPU), *wg = new_array(FV_FLOAT64, 1, &nb, GPU), *wv = NULL;
    double *hp = (double *)fv_array_data(wh);
    for (int64_t i = 0; i < nb; i++)
        hp[i] = lay == 0 ? w[i] : lay == 1 ? w[n - 1 - i] : (i & 1) ? NAN : w[i / 2];
    CHECK_OK(fv_copy(ctx, wh, wg));
    const int64_t st = lay == 0 ? 8 : lay == 1 ? -8 : 16;
    CHECK_OK(fv_array_view(wg, 1, &n, &st, lay == 1 ? (n - 1) * 8 : 0, &wv));
    CHECK_OK(fv_correlate1d_array(ctx, gi, go, wv, axis, mode, cval, origin));
    fv_array_unref(wh);
    fv_array_unref(wg);
    fv_array_unref(wv);
    return to_host(go);
}

/* float (and other) data: device weights give the bytes of the same weights from the host */
static void
one_dev(fv_dtype idt, fv_dtype odt, int nd, const int64_t *sh, const double *w, int64_t n, int axis, fv_mode mode,
        double cval, int64_t origin)
{
    fv_array *h = rand_host(idt, nd, sh, 0);
    fv_array *gi = new_array(idt, nd, sh, GPU), *go = new_array(odt, nd, sh, GPU);
    snprintf(current, sizeof current, "device weights %s->%s nd %d [%lld..] n %lld axis %d mode %d cval %g origin %lld",
             fv_dtype_name(idt), fv_dtype_name(odt), nd, (long long)sh[0], (long long)n, axis, (int)mode, cval,
             (long long)origin);
    CHECK_OK(fv_copy(ctx, h, gi));
    CHECK_OK(fv_correlate1d(ctx, gi, go, w, n, axis, mode, cval, origin));
    fv_array *g1 = to_host(go);
    fv_array *g3 = dev_weights_run(gi, go, w, n, axis, mode, cval, origin);
    if (!same_bytes(g1, g3))
        fprintf(stderr, "mismatch: %s\n", current);
    CHECK(same_bytes(g1, g3));
    ncases++;
    fv_array *all[] = { h, gi, go, g1, g3 };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        fv_array_unref(all[k]);
}

static void
one(int op, fv_dtype idt, fv_dtype odt, int nd, const int64_t *sh, int dkind, const double *w, int64_t n, int axis,
    fv_mode mode, double cval, int64_t origin)
{
    fv_array *h = make_data(idt, nd, sh, dkind);
    fv_array *ho = new_array(odt, nd, sh, CPU);
    fv_array *gi = new_array(idt, nd, sh, GPU), *go = new_array(odt, nd, sh, GPU);
    snprintf(current, sizeof current, "op %d %s->%s nd %d [%lld..] data %d n %lld axis %d mode %d cval %g origin %lld",
             op, fv_dtype_name(idt), fv_dtype_name(odt), nd, (long long)sh[0], dkind, (long long)n, axis, (int)mode,
             cval, (long long)origin);
    CHECK_OK(fv_copy(ctx, h, gi));
    CHECK_OK(run_op(op, h, ho, w, n, axis, mode, cval, origin));
    CHECK_OK(run_op(op, gi, go, w, n, axis, mode, cval, origin));
    fv_array *g1 = to_host(go);
    tv_force("cuda.filter1d.acc", "double");
    CHECK_OK(run_op(op, gi, go, w, n, axis, mode, cval, origin));
    tv_force("cuda.filter1d.acc", NULL);
    fv_array *g2 = to_host(go);
    fv_array *g3 = op == 0 ? dev_weights_run(gi, go, w, n, axis, mode, cval, origin) : NULL;
    int ok = (cuda_only || same_bytes(g1, ho)) && same_bytes(g1, g2) && (!g3 || same_bytes(g1, g3));
    if (!ok)
        fprintf(stderr, "mismatch: %s (gpu==cpu %d, gpu==gpu-double %d, gpu==device-weights %d)\n", current,
                same_bytes(g1, ho), same_bytes(g1, g2), g3 ? same_bytes(g1, g3) : 1);
    CHECK(ok);
    ncases++;
    fv_array *all[] = { h, ho, gi, go, g1, g2, g3 };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        fv_array_unref(all[k]);
}

int
main(void)
{
    cuda_only = getenv("FOVEA_TEST_CUDA_ONLY") != NULL;
    if (!fv_cuda_available()) {
        printf("test_cuda_f1dexact: skipped: %s\n", fv_cuda_unavailable_reason());
        return 77;
    }
    CHECK_OK(fv_context_new(&ctx));
    static const fv_dtype ins[] = { FV_UINT8, FV_INT8, FV_UINT16, FV_INT16, FV_BOOL };
    static const fv_dtype outs[] = { FV_UINT8, FV_INT16, FV_INT32, FV_BOOL };
    /* weights: float-exact ones, then ones float does not sum exactly */
    static const double w_int[] = { 1, -2, 1 }, w_dy[] = { 0.0625, 0.25, 0.375, 0.25, 0.0625 }, w_anti[] = { -1, 0, 1 };
    static const double w_third[] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 }, w_tenth[] = { 0.1, 0.2, 0.7 };
    static const double w_big[] = { 100.5, -3.25, 7, 0.125 };
    double w_rand[9], w_rsym[7];
    for (int i = 0; i < 9; i++)
        w_rand[i] = uniform() * 2 - 1;
    for (int i = 0; i < 4; i++)
        w_rsym[i] = w_rsym[6 - i] = uniform();
    const double *ws[] = { w_int, w_dy, w_anti, w_third, w_tenth, w_big, w_rand, w_rsym };
    const int64_t wn[] = { 3, 5, 3, 3, 3, 4, 9, 7 };
    static const fv_mode modes[] = { FV_MODE_REFLECT, FV_MODE_CONSTANT, FV_MODE_NEAREST, FV_MODE_MIRROR, FV_MODE_WRAP };
    static const double cvals[] = { 0.0, 3.0, -7.0, 0.5, 0.1 };
    const int64_t s2a[2] = { 67, 301 }, s2b[2] = { 300, 40 }, s3[3] = { 5, 33, 70 };
    const int reps = cuda_only ? 60 : 400;
    for (int t = 0; t < reps; t++) {
        const fv_dtype idt = ins[t % 5];
        fv_dtype odt = (t / 5) % 3 == 0 ? idt : outs[(t / 15) % 4];
        const int op = (t / 2) % 6 < 3 ? 0 : (t / 2) % 6 == 3 ? 1 + (t / 12) % 3 : 4 + (t / 12) % 2;
        if (op >= 4) /* the fused pair: the data's own dtype */
            odt = idt;
        const int nd = t % 7 == 0 ? 3 : 2;
        const int64_t *sh = nd == 3 ? s3 : (t % 2 ? s2a : s2b);
        const int wi = (t / 3) % 8;
        const int64_t n = op == 0 || op == 5 ? wn[wi] : 1 + (t / 4) % 9;
        const fv_mode mode = modes[(t / 11) % 5];
        const double cval = cvals[(t / 13) % 5];
        const int64_t origin = n > 2 ? (int64_t)((t / 17) % 3) - 1 : 0;
        const int axis = t % 4 < 2 ? 0 : nd - 1;
        one(op, idt, odt, nd, sh, (t / 7) % 3, ws[wi], n, axis, mode, cval, origin);
    }
    /* the checked float path (8-bit data, weights float does not sum exactly):
     * random, symmetric, antisymmetric, 1/n (flat data sums to integers exactly
     * in real arithmetic, not in float) and tenths, windows up to past FV_CU_FLT_WINLINE */
    static const fv_dtype ins8[] = { FV_UINT8, FV_INT8, FV_BOOL };
    static const fv_dtype outs8[] = { FV_INT16, FV_INT32, FV_BOOL, FV_UINT16 };
    static const int64_t ns[] = { 3, 5, 9, 17, 33, 130 };
    static double wk[130];
    const int reps8 = cuda_only ? 40 : 360;
    for (int t = 0; t < reps8; t++) {
        const fv_dtype idt = ins8[t % 3];
        const fv_dtype odt = t % 5 < 2 ? idt : outs8[(t / 5) % 4];
        const int64_t n = ns[(t / 3) % 6];
        const int wkind = (t / 18) % 5;
        for (int64_t i = 0; i < n; i++) {
            switch (wkind) {
            case 0:
                wk[i] = uniform() * 2 - 1;
                break;
            case 1:
                wk[i] = i <= n / 2 ? uniform() : wk[n - 1 - i];
                break;
            case 2:
                wk[i] = i < n / 2 ? uniform() : i == n / 2 ? 0.0 : -wk[n - 1 - i];
                break;
            case 3:
                wk[i] = 1.0 / (double)n;
                break;
            default:
                wk[i] = (double)irand(-9, 9) / 10.0;
                break;
            }
        }
        const int nd = t % 11 == 0 ? 3 : 2;
        const int64_t *sh = nd == 3 ? s3 : (t % 2 ? s2a : s2b);
        const fv_mode mode = modes[(t / 7) % 5];
        const double cval = cvals[(t / 4) % 4]; /* float holds these */
        const int64_t origin = (int64_t)((t / 13) % 3) - 1;
        const int axis = (t / 2) % 2 ? 0 : nd - 1;
        one(0, idt, odt, nd, sh, (t / 9) % 3, wk, n, axis, mode, cval, origin);
    }
    /* weights on the device: float and 32-bit data (the kernels' symmetry test
     * picks scipy's order of sums: random, symmetric, antisymmetric, symmetric
     * within DBL_EPSILON, even lengths), windows past FV_CU_FLT_WINLINE and the direct
     * kernel's; 8-bit data with weights the checked bound refuses (every output
     * summed again in double, kept to 16 bits) */
    static const fv_dtype insd[] = { FV_FLOAT32, FV_FLOAT64, FV_INT32, FV_UINT8, FV_INT8, FV_UINT16 };
    static const fv_dtype outsd[] = { FV_FLOAT32, FV_FLOAT64, FV_INT16, FV_UINT8, FV_BOOL, FV_INT32 };
    static const int64_t nsd[] = { 1, 2, 3, 9, 17, 40, 129, 301, 5000 };
    static double wd[5000];
    const int repsd = cuda_only ? 40 : 240;
    for (int t = 0; t < repsd; t++) {
        const fv_dtype idt = insd[t % 6];
        const fv_dtype odt = t % 3 == 0 ? idt : outsd[(t / 3) % 6];
        const int64_t n = nsd[(t / 6) % 9];
        const int wkind = (t / 5) % 6;
        for (int64_t i = 0; i < n; i++) {
            switch (wkind) {
            case 0:
                wd[i] = uniform() * 2 - 1;
                break;
            case 1:
                wd[i] = i <= n / 2 ? uniform() : wd[n - 1 - i];
                break;
            case 2:
                wd[i] = i < n / 2 ? uniform() : i == n / 2 ? uniform() : -wd[n - 1 - i];
                break;
            case 3:
                wd[i] = i <= n / 2 ? uniform() : wd[n - 1 - i] + (i % 2 ? 1e-17 : -2e-17);
                break;
            case 4:
                wd[i] = (uniform() * 2 - 1) * 3e6;
                break; /* past the checked bound */
            default:
                wd[i] = (double)irand(-9, 9);
                break;
            }
        }
        const int nd = t % 7 == 0 ? 3 : 2;
        const int64_t *sh = nd == 3 ? s3 : (t % 2 ? s2a : s2b);
        const fv_mode mode = modes[(t / 7) % 5];
        const double cval = cvals[(t / 4) % 4];
        const int64_t origin = n > 2 ? (int64_t)((t / 13) % 3) - 1 : 0;
        const int axis = (t / 2) % 2 ? 0 : nd - 1;
        one_dev(idt, odt, nd, sh, wd, n, axis, mode, cval, origin);
    }
    /* bad weights arrays: clear errors */
    {
        int64_t sh1 = 4, sh2[2] = { 2, 2 };
        fv_array *gi = new_array(FV_FLOAT32, 2, s2b, GPU), *go = new_array(FV_FLOAT32, 2, s2b, GPU);
        fv_array *w32 = new_array(FV_FLOAT32, 1, &sh1, GPU), *w2d = new_array(FV_FLOAT64, 2, sh2, GPU);
        fv_array *wc = new_array(FV_FLOAT64, 1, &sh1, CPU), *gc = new_array(FV_FLOAT32, 2, s2b, CPU);
        CHECK(fv_correlate1d_array(ctx, gi, go, w32, 0, FV_MODE_REFLECT, 0.0, 0) == FV_EINVAL);
        CHECK(fv_correlate1d_array(ctx, gi, go, w2d, 0, FV_MODE_REFLECT, 0.0, 0) == FV_EINVAL);
        CHECK(fv_correlate1d_array(ctx, gi, go, NULL, 0, FV_MODE_REFLECT, 0.0, 0) == FV_EINVAL);
        fv_array *wg = new_array(FV_FLOAT64, 1, &sh1, GPU);
        CHECK(fv_correlate1d_array(ctx, gc, gc, wg, 0, FV_MODE_REFLECT, 0.0, 0) == FV_EDEVICE);
        memset(fv_array_data(wc), 0, 32);
        CHECK_OK(fv_correlate1d_array(ctx, gi, go, wc, 0, FV_MODE_REFLECT, 0.0, 0)); /* host weights */
        fv_array *all[] = { gi, go, w32, w2d, wc, gc, wg };
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
            fv_array_unref(all[k]);
    }
    printf("test_cuda_f1dexact: %d cases\n", ncases);
    fv_context_free(ctx);
    return fv_t_summary("test_cuda_f1dexact");
}
