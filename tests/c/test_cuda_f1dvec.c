/* The 1-D filter tile kernel's (fv_k_flt_tile2, src/cuda/filters/filter1d.cu) fast
 * paths (16-byte chunk loads of interior tiles, 16-byte stores of whole ROW
 * tiles, typed stores, the kind-specialised sliding window) against its
 * element-by-element path (variant "scalar" of "cuda.filter1d.loads") bit for bit, and against the CPU
 * backend: within rounding for float outputs (the GPU sums float32 outputs of
 * float32 / 8- / 16-bit data in float, and uniform filters of float data as
 * window sums), one apart at most for integer outputs.
 *
 * Cases: FV__OP_FILTER1D through fv__dispatch, every kind (correlate with
 * general, symmetric and antisymmetric taps, uniform, minimum, maximum), axis 0
 * and the last axis of 2-D and 3-D arrays, uint8, int8, uint16, int16, int32,
 * float32 and float64 data into float32, float64 and the data's own dtype,
 * every mode, cval, odd and even sizes, origins, shapes with interior tiles
 * (both directions) and edge-only ones; inputs contiguous, padded (rows a
 * 16-byte multiple apart, starting on or off a 16-byte boundary) or with rows
 * an odd number of elements apart (no chunked loads); outputs contiguous or
 * padded and offset; NaN / inf / -0.0 in float data (min / max / uniform
 * redo their flagged lines serially: the chunked loads must flag the same lines).
 *
 * Exits 77 (ctest: skipped) without a usable GPU. FOVEA_TEST_CUDA_ONLY=1
 * (compute-sanitizer runs): fewer, smaller cases and no CPU comparison. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "internal.h"
#include "ops/filters/sep2.h"
#include "ops/filters/filternd.h"
#include "ops/morphology/binary-erosion.h"
#include "ops/morphology/distance.h"
#include "ops/filters/ndimage-math.h"
#include "check.h"
#include "cuda-sep-check.h"
#include "variant-force.h"

static int ncases;

/* ---- arrays ------------------------------------------------------------------- */

/* A GPU array of h's shape and dtype, a view of a larger one whose last axis is
 * padded: layout 0 contiguous; 1 rows a 16-byte multiple apart, starting `off`
 * elements past a 16-byte boundary (off 0: aligned); 2 rows an odd number of
 * elements apart (no 16-byte chunks). h NULL: left uninitialised. */
static fv_array *
gpu_view(fv_dtype dt, int nd, const int64_t *sh, const fv_array *h, int layout, int off)
{
    if (layout == 0) {
        fv_array *d = new_array(dt, nd, sh, GPU);
        if (h)
            CHECK_OK(fv_copy(ctx, h, d));
        return d;
    }
    int64_t isz = (int64_t)fv_dtype_size(dt), per16 = 16 / isz;
    int64_t bs[FV_MAX_NDIM], st[FV_MAX_NDIM];
    memcpy(bs, sh, sizeof(int64_t) * (size_t)nd);
    if (layout == 1)
        bs[nd - 1] = (sh[nd - 1] + off + per16 - 1) / per16 * per16 + per16;
    else
        bs[nd - 1] = (sh[nd - 1] + off + 1) | 1;
    fv_array *base = new_array(dt, nd, bs, GPU), *v = NULL;
    int64_t s = isz;
    for (int k = nd - 1; k >= 0; k--) {
        st[k] = s;
        s *= bs[k];
    }
    CHECK_OK(fv_array_view(base, nd, sh, st, off * isz, &v));
    fv_array_unref(base);
    if (h)
        CHECK_OK(fv_copy(ctx, h, v));
    return v;
}

/* ---- cases -------------------------------------------------------------------- */

enum { K_CORR, K_SYM, K_ANTI, K_UNIFORM, K_MIN, K_MAX, K_COUNT };
static const char *const kind_names[] = {"correlate", "correlate-sym", "correlate-anti", "uniform", "minimum",
                                         "maximum"};

typedef struct tcase {
    int kind;
    fv_dtype idt, odt;
    int nd;
    int64_t shape[3];
    int axis;
    int ilayout, ioff, olayout, ooff;
    int special;
    int mode;
    double cval;
    int64_t size, origin;
    double w[160];
} tcase;

static void
describe(const tcase *c)
{
    int k = snprintf(current, sizeof current, "%s %s->%s shape", kind_names[c->kind], fv_dtype_name(c->idt),
                     fv_dtype_name(c->odt));
    for (int d = 0; d < c->nd; d++)
        k += snprintf(current + k, sizeof current - (size_t)k, "%s%lld", d ? "x" : " ", (long long)c->shape[d]);
    snprintf(current + k, sizeof current - (size_t)k,
             " axis %d size %lld origin %lld mode %d cval %g in layout %d+%d out layout %d+%d special %d", c->axis,
             (long long)c->size, (long long)c->origin, c->mode, c->cval, c->ilayout, c->ioff, c->olayout, c->ooff,
             c->special);
}

static fv_status
run(const tcase *c, const fv_array *in, fv_array *out)
{
    fv__filter1d_params p;
    memset(&p, 0, sizeof p);
    p.kind = c->kind <= K_ANTI ? FV__F1D_CORRELATE
             : c->kind == K_UNIFORM ? FV__F1D_UNIFORM
             : c->kind == K_MIN     ? FV__F1D_MINIMUM
                                    : FV__F1D_MAXIMUM;
    p.axis = c->axis;
    p.mode = c->mode;
    p.cval = c->cval;
    p.origin = c->origin;
    p.size = c->size;
    p.weights = c->kind <= K_ANTI ? c->w : NULL;
    fv__op_args a = {.in = in, .out = out, .params = &p};
    return fv__dispatch(ctx, FV__OP_FILTER1D, &a);
}

/* the scale of a case's sums: max |finite input or cval| times the weights' absolute sum */
static double
sum_scale(const tcase *c, const fv_array *h)
{
    double m = 0, ws = 1;
    const char *p = fv_array_data(h);
    for (int64_t i = 0, n = fv_array_size(h); i < n; i++) {
        double x = fabs(get_elem(p, c->idt, i));
        if (x > m && isfinite(x))
            m = x;
    }
    if (fabs(c->cval) > m && isfinite(c->cval))
        m = fabs(c->cval);
    if (c->kind <= K_ANTI) {
        double s = 0;
        for (int64_t j = 0; j < c->size; j++)
            s += fabs(c->w[j]);
        ws = s > 1 ? s : 1;
    }
    return m * ws;
}

/* bits (tol < 0) or, where the bits differ, within tol of scale for float outputs
 * and one apart for integer ones; NaN matches NaN of any sign / payload only then */
static int
compare(const fv_array *a, const fv_array *b, double tol, double scale, const char *what)
{
    int64_t n = fv_array_size(a);
    fv_dtype dt = fv_array_dtype(a);
    size_t isz = fv_dtype_size(dt);
    const char *pa = fv_array_data(a), *pb = fv_array_data(b);
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++) {
        if (!memcmp(pa + (size_t)i * isz, pb + (size_t)i * isz, isz))
            continue;
        double x = get_elem(pa, dt, i), y = get_elem(pb, dt, i);
        if (tol >= 0) {
            if (x != x && y != y)
                continue;
            if (is_float(dt) ? fabs(x - y) <= tol * (1.0 + fabs(x) + fabs(y) + scale) : fabs(x - y) <= 1.0)
                continue;
        }
        if (first < 0)
            first = i;
        bad++;
    }
    if (bad)
        fprintf(stderr, "test_cuda_f1dvec: %s: %lld of %lld differ (first at %lld: %.17g vs %.17g) in %s\n", what,
                (long long)bad, (long long)n, (long long)first, get_elem(pa, dt, first), get_elem(pb, dt, first),
                current);
    return bad == 0;
}

static void
run_case(tcase *c)
{
    describe(c);
    ncases++;
    fv_array *h = rand_host(c->idt, c->nd, c->shape, c->special ? 211 : 0);
    fv_array *d = gpu_view(c->idt, c->nd, c->shape, h, c->ilayout, c->ioff);
    fv_array *o1 = gpu_view(c->odt, c->nd, c->shape, NULL, c->olayout, c->ooff);
    fv_array *o2 = gpu_view(c->odt, c->nd, c->shape, NULL, c->olayout, c->ooff);
    tv_force("cuda.filter1d.loads", NULL);
    fv_status st1 = run(c, d, o1);
    tv_force("cuda.filter1d.loads", "scalar");
    fv_status st2 = run(c, d, o2);
    tv_force("cuda.filter1d.loads", NULL);
    CHECK_OK(st1);
    CHECK_OK(st2);
    if (st1 != FV_OK || st2 != FV_OK) {
        fprintf(stderr, "test_cuda_f1dvec: %s / %s (%s) in %s\n", fv_status_name(st1), fv_status_name(st2),
                fv_error_message(), current);
    } else {
        fv_array *g1 = to_host(o1), *g2 = to_host(o2);
        CHECK(compare(g1, g2, -1.0, 0.0, "vector vs element-wise"));
        if (!cuda_only) {
            fv_array *co = new_array(c->odt, c->nd, c->shape, CPU);
            fv_status st3 = run(c, h, co);
            if (st3 != FV_ENOKERNEL) {   /* FV_ENOKERNEL: no CPU kernels in this build */
                CHECK_OK(st3);
                /* float32 outputs: float sums (or one rounding of double ones); float64
                 * outputs: window sums of float data against scipy's running sums */
                double tol = c->odt == FV_FLOAT32 ? 1e-5 : 1e-12;
                if (st3 == FV_OK)
                    CHECK(compare(g1, co, tol, sum_scale(c, h), "gpu vs cpu"));
            }
            fv_array_unref(co);
        }
        fv_array_unref(g1);
        fv_array_unref(g2);
    }
    fv_array_unref(h);
    fv_array_unref(d);
    fv_array_unref(o1);
    fv_array_unref(o2);
}

static void
random_weights(double *w, int64_t n, int kind)
{
    for (int64_t i = 0; i < n; i++)
        w[i] = (double)irand(-8, 8) / 4.0 + (next_u64() & 1 ? uniform() * 0.1 : 0.0);
    if (kind != K_CORR)
        for (int64_t i = 0; i < n / 2; i++)
            w[n - 1 - i] = kind == K_SYM ? w[i] : -w[i];
    if (kind == K_ANTI)
        w[n / 2] = 0.25;
    if (kind == K_CORR && n >= 3 && (n & 1) && w[0] == w[n - 1])   /* keep it general */
        w[0] += 0.5;
}

/* fill the filter of c: size (odd for symmetric / antisymmetric taps), origin, weights */
static void
set_filter(tcase *c, int kind, int64_t size)
{
    c->kind = kind;
    if ((kind == K_SYM || kind == K_ANTI) && !(size & 1))
        size++;
    c->size = size;
    c->origin = irand(-(size / 2), (size - 1) / 2);
    if (kind <= K_ANTI)
        random_weights(c->w, size, kind);
}

/* shapes: 2-D with interior tiles along both axes, 3-D, edge-only */
static const int64_t shapes2[][3] = {{200, 320, 0}, {190, 304, 0}, {300, 160, 0}, {64, 1024, 0}, {330, 96, 0}};
static const int64_t shapes3[][3] = {{260, 4, 24}, {3, 40, 300}, {290, 3, 20}};
static const int64_t shapes_edge[][3] = {{17, 33, 0}, {40, 31, 0}, {5, 300, 0}, {96, 20, 0}};
#define N2 ((int)(sizeof shapes2 / sizeof shapes2[0]))
#define N3 ((int)(sizeof shapes3 / sizeof shapes3[0]))
#define NE ((int)(sizeof shapes_edge / sizeof shapes_edge[0]))

static void
random_geometry(tcase *c, int edge)
{
    int r = (int)irand(0, 3);
    if (edge) {
        c->nd = 2;
        memcpy(c->shape, shapes_edge[irand(0, NE - 1)], sizeof c->shape);
    } else if (r == 0) {
        c->nd = 3;
        memcpy(c->shape, shapes3[irand(0, N3 - 1)], sizeof c->shape);
    } else {
        c->nd = 2;
        memcpy(c->shape, shapes2[irand(0, N2 - 1)], sizeof c->shape);
    }
    if (cuda_only && c->nd == 2 && c->shape[0] * c->shape[1] > 40000)
        c->shape[c->shape[0] > c->shape[1] ? 0 : 1] /= 2;   /* still several tiles, with interior ones */
    c->axis = (next_u64() & 1) ? 0 : c->nd - 1;
    int64_t isz = (int64_t)fv_dtype_size(c->idt), osz = (int64_t)fv_dtype_size(c->odt);
    r = (int)irand(0, 5);   /* contiguous, padded aligned, padded off-boundary (x2), odd rows */
    c->ilayout = r == 0 ? 0 : r <= 4 ? 1 : 2;
    c->ioff = r == 1 ? 0 : (int)irand(1, 16 / isz > 1 ? 16 / isz - 1 : 1);
    if (c->ilayout == 0)
        c->ioff = 0;
    r = (int)irand(0, 3);
    c->olayout = r <= 1 ? 0 : 1;
    c->ooff = r == 3 ? (int)irand(1, 16 / osz > 1 ? 16 / osz - 1 : 1) : 0;
}

static const fv_dtype dtypes[] = {FV_UINT8, FV_INT8, FV_UINT16, FV_INT16, FV_INT32, FV_FLOAT32, FV_FLOAT64};
#define NDT ((int)(sizeof dtypes / sizeof dtypes[0]))

/* every data dtype x output (float32, float64, its own, bool, int16) x kind, random geometry / mode */
static void
test_grid(void)
{
    for (int di = 0; di < NDT; di++)
        for (int oi = 0; oi < 5; oi++) {
            /* float32, float64, its own, and (typed 16-byte ROW stores) bool and int16 */
            fv_dtype odt = oi == 0 ? FV_FLOAT32 : oi == 1 ? FV_FLOAT64 : oi == 2 ? dtypes[di] : oi == 3 ? FV_BOOL : FV_INT16;
            if (oi == 2 && is_float(dtypes[di]))
                continue;   /* already one of the two above */
            if (oi == 4 && dtypes[di] == FV_INT16)
                continue;
            for (int k = 0; k < K_COUNT; k++) {
                if (cuda_only && (di + oi + k) % 3)
                    continue;
                tcase c;
                memset(&c, 0, sizeof c);
                c.idt = dtypes[di];
                c.odt = odt;
                random_geometry(&c, 0);
                c.mode = (int)irand(0, FV_MODE_COUNT - 1);
                c.cval = (next_u64() & 1) ? (double)irand(-3, 300) : uniform() * 50.0 - 10.0;
                set_filter(&c, k, irand(1, 15));
                run_case(&c);
            }
        }
}

/* every mode x kind on float32 -> float32, uint8 -> float32 and float64 -> float64
 * (the three accumulator / output combinations with native stores) */
static void
test_modes(void)
{
    static const fv_dtype io[][2] = {{FV_FLOAT32, FV_FLOAT32}, {FV_UINT8, FV_FLOAT32}, {FV_FLOAT64, FV_FLOAT64},
                                     {FV_UINT16, FV_UINT16}};
    for (int m = 0; m < FV_MODE_COUNT; m++)
        for (int k = 0; k < K_COUNT; k++)
            for (int t = 0; t < 4; t++) {
                if (cuda_only && (m + k + t) % 4)
                    continue;
                tcase c;
                memset(&c, 0, sizeof c);
                c.idt = io[t][0];
                c.odt = io[t][1];
                random_geometry(&c, 0);
                c.mode = m;
                c.cval = uniform() * 20.0 - 5.0;
                set_filter(&c, k, irand(1, 2) == 1 ? irand(1, 6) : irand(7, 24));
                run_case(&c);
            }
}

/* edge-only shapes, long windows (weights past the kernel parameters), NaN / inf data */
static void
test_misc(void)
{
    for (int r = 0; r < (cuda_only ? 6 : 24); r++) {
        tcase c;
        memset(&c, 0, sizeof c);
        c.idt = dtypes[irand(0, NDT - 1)];
        c.odt = (next_u64() & 1) ? FV_FLOAT32 : c.idt;
        random_geometry(&c, 1);
        c.mode = (int)irand(0, FV_MODE_COUNT - 1);
        c.cval = (double)irand(-3, 300);
        set_filter(&c, (int)irand(0, K_COUNT - 1), irand(1, 12));
        run_case(&c);
    }
    for (int r = 0; r < (cuda_only ? 2 : 6); r++) {   /* 130-tap correlations, 40-tap uniform filters */
        tcase c;
        memset(&c, 0, sizeof c);
        c.idt = r & 1 ? FV_FLOAT32 : FV_INT16;
        c.odt = r & 2 ? FV_FLOAT64 : FV_FLOAT32;
        random_geometry(&c, 0);
        c.mode = (int)irand(0, FV_MODE_COUNT - 1);
        c.cval = 1.5;
        int k = r % 3 == 2 ? K_UNIFORM : (int)irand(0, 1);
        set_filter(&c, k, k == K_UNIFORM ? 40 : 130);
        run_case(&c);
    }
    for (int r = 0; r < (cuda_only ? 12 : 36); r++) {   /* NaN / inf / -0.0 in float data */
        tcase c;
        memset(&c, 0, sizeof c);
        c.idt = (r / 3) & 1 ? FV_FLOAT64 : FV_FLOAT32;
        c.odt = (r / 6) & 1 ? FV_FLOAT64 : c.idt;
        c.special = 1;
        random_geometry(&c, (r % 7) == 6);
        c.mode = (int)irand(0, FV_MODE_COUNT - 1);
        c.cval = (next_u64() & 3) ? uniform() * 10.0 : (next_u64() & 1) ? NAN : INFINITY;
        set_filter(&c, K_UNIFORM + r % 3, irand(2, 13));
        run_case(&c);
    }
}

int
main(void)
{
    if (!fv_cuda_available()) {
        printf("test_cuda_f1dvec: skipped: %s\n", fv_cuda_unavailable_reason());
        return 77;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    cuda_only = getenv("FOVEA_TEST_CUDA_ONLY") != NULL;
    CHECK_OK(fv_context_new(&ctx));
    CHECK_OK(fv_context_set_cuda(ctx, 0, NULL));
    test_grid();
    printf("test_cuda_f1dvec: grid done, %d cases, %d failed\n", ncases, fv_t_fail);
    test_modes();
    printf("test_cuda_f1dvec: modes done, %d cases, %d failed\n", ncases, fv_t_fail);
    test_misc();
    printf("test_cuda_f1dvec: misc done, %d cases, %d failed\n", ncases, fv_t_fail);
    CHECK_OK(fv_context_synchronize(ctx));
    fv_context_free(ctx);
    return fv_t_summary("test_cuda_f1dvec");
}
