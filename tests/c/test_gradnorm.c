/* fv_gradient_norm (FV__OP_GRADIENT_NORM): out = sqrt(sum of parts^2) / div with
 * NumPy's rounding of every step.
 *
 *  - the CPU backend against a straightforward reference computed here one
 *    rounded step at a time (volatile temporaries, and this file is built with
 *    -ffp-contract=off), bit for bit: float32 and float64; values over the
 *    whole range (0, -0.0, subnormals, inf, -inf, NaN, values whose squares
 *    overflow or underflow, ordinary ones); 1 to 4 parts; 1-d to 4-d; div 1 and
 *    sqrt(ndim); each array contiguous, strided (step 2), reversed (negative
 *    stride), offset by one element (rows not 16-byte aligned) or transposed,
 *    mixed per array; out in place over part 0 or separate. Elements of the
 *    arrays' buffers outside the views must be left as they were;
 *  - the CUDA backend (when a GPU is usable) on the same cases, also with
 *    variant "strided" of "cuda.gradient_norm" (the element-wise kernel for dense arrays too), and
 *    large dense arrays (the vector kernel's grid-stride loop, head and tail);
 *  - argument errors: NULL, nparts 0 / 9, int and mixed dtypes, shape and device
 *    mismatch, bad div, overlapping or read-only out.
 * Exits 0 with the CUDA part skipped (and says so) where no GPU is usable. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "xorshift.h"
#include "fovea/fovea.h"
#include "variant-force.h"

static fv_context *ctx;
static int ncases;

/* ---- values ------------------------------------------------------------------ */

static double
rand_value(int is_double)
{
    const double sgn = (next_u64() & 1) ? -1.0 : 1.0;
    const unsigned c = (unsigned)(next_u64() % 20);
    switch (c) {
    case 0:
        return sgn * 0.0;
    case 1:
        return sgn *
            (is_double ? 4.9406564584124654e-324 * (double)(1 + next_u64() % 1000000)
                       : 1.401298464324817e-45 * (double)(1 + next_u64() % 8000000)); /* subnormal */
    case 2:
        return sgn * INFINITY;
    case 3:
        return NAN;
    case 4:
    case 5: /* near overflow: squares overflow to inf (or nearly) */
        return sgn *
            (is_double ? ldexp(1.0 + uniform(), 500 + (int)(next_u64() % 524))
                       : ldexp(1.0 + uniform(), 60 + (int)(next_u64() % 68)));
    case 6: /* tiny: squares underflow to subnormals or 0 */
        return sgn *
            (is_double ? ldexp(1.0 + uniform(), -540 - (int)(next_u64() % 480))
                       : ldexp(1.0 + uniform(), -70 - (int)(next_u64() % 56)));
    default: /* any normal magnitude */
        return sgn *
            (is_double ? ldexp(1.0 + uniform(), (int)(next_u64() % 2000) - 1000)
                       : ldexp(1.0 + uniform(), (int)(next_u64() % 240) - 120));
    }
}

/* ---- reference ----------------------------------------------------------------- */

static float
ref_f(const float *x, int np, double div)
{
    volatile float s = x[0] * x[0];
    for (int k = 1; k < np; k++) {
        volatile float t = x[k] * x[k];
        s = s + t;
    }
    volatile float r = sqrtf(s);
    if (div != 1) {
        volatile float d = (float)div;
        r = r / d;
    }
    return r;
}

static double
ref_d(const double *x, int np, double div)
{
    volatile double s = x[0] * x[0];
    for (int k = 1; k < np; k++) {
        volatile double t = x[k] * x[k];
        s = s + t;
    }
    volatile double r = sqrt(s);
    if (div != 1)
        r = r / div;
    return r;
}

/* ---- layouts ------------------------------------------------------------------- */

enum {
    L_DENSE,
    L_STEP2,
    L_REVERSED,
    L_OFFSET,
    L_TRANSPOSED,
    L_COUNT
};

/* A buffer (C-contiguous base of bshape) and a view of shape `shape` into it. */
typedef struct view {
    fv_array *base, *v;
    int64_t bshape[4], strides[4], offset; /* the view's strides and byte offset in base */
    int bnd;
} view;

static void
view_make(view *w, fv_dtype dt, int nd, const int64_t *shape, int layout, fv_device dev)
{
    const int64_t isz = dt == FV_FLOAT64 ? 8 : 4;
    memset(w, 0, sizeof *w);
    w->bnd = nd;
    int64_t perm[4] = { 0, 1, 2, 3 };
    if (layout == L_TRANSPOSED && nd >= 2) {
        perm[0] = nd - 1;
        perm[nd - 1] = 0;
    }
    /* base axes follow the permuted view axes */
    for (int i = 0; i < nd; i++)
        w->bshape[i] = shape[perm[i]];
    if (layout == L_STEP2)
        w->bshape[nd - 1] = 2 * w->bshape[nd - 1] + 1;
    if (layout == L_OFFSET)
        w->bshape[nd - 1] += 1;
    int64_t bstr[4], acc = isz;
    for (int i = nd - 1; i >= 0; i--) {
        bstr[i] = acc;
        acc *= w->bshape[i];
    }
    for (int i = 0; i < nd; i++)
        w->strides[perm[i]] = bstr[i];
    if (layout == L_STEP2)
        w->strides[perm[nd - 1]] *= 2;
    if (layout == L_OFFSET)
        w->offset = isz;
    if (layout == L_REVERSED && shape[0] > 0) {
        w->offset = (shape[0] - 1) * w->strides[0];
        w->strides[0] = -w->strides[0];
    }
    CHECK_OK(fv_array_new(ctx, dt, nd, w->bshape, dev, &w->base));
    CHECK_OK(fv_array_view(w->base, nd, shape, w->strides, w->offset, &w->v));
}

static void
view_free(view *w)
{
    fv_array_unref(w->v);
    fv_array_unref(w->base);
}

/* byte offset of element idx (nd axes) of a view */
static int64_t
view_off(const view *w, int nd, const int64_t *idx)
{
    int64_t o = w->offset;
    for (int i = 0; i < nd; i++)
        o += idx[i] * w->strides[i];
    return o;
}

/* ---- one case -------------------------------------------------------------------- */

/* Runs the case on dev (the host or a GPU: data filled on the host, copied over,
 * result copied back) and checks every element and the untouched rest. */
static void
run_case(fv_device dev, fv_dtype dt, int nd, const int64_t *shape, int np, double div, int in_place, const int *layouts)
{
    const int is_double = dt == FV_FLOAT64;
    const int64_t isz = is_double ? 8 : 4;
    const fv_device host = { FV_DEVICE_CPU, 0 };
    view hw[5], dw[5]; /* parts 0..np-1, then out (unless in place) */
    const int nviews = in_place ? np : np + 1;
    char *init[5] = { NULL };
    for (int k = 0; k < nviews; k++) {
        view_make(&hw[k], dt, nd, shape, layouts[k], host);
        const int64_t n = fv_array_size(hw[k].base);
        char *d = (char *)fv_array_data(hw[k].base);
        for (int64_t i = 0; i < n; i++) {
            const double v = rand_value(is_double);
            if (is_double)
                memcpy(d + i * 8, &v, 8);
            else {
                const float f = (float)v;
                memcpy(d + i * 4, &f, 4);
            }
        }
        init[k] = (char *)malloc((size_t)fv_array_nbytes(hw[k].base) + 1);
        memcpy(init[k], d, (size_t)fv_array_nbytes(hw[k].base));
    }
    const view *hout = &hw[in_place ? 0 : np];
    const fv_array *parts[4];
    fv_array *out;
    fv_status st;
    if (dev.type == FV_DEVICE_CPU) {
        for (int k = 0; k < np; k++)
            parts[k] = hw[k].v;
        out = hout->v;
        st = fv_gradient_norm(ctx, parts, np, div, out);
    } else {
        for (int k = 0; k < nviews; k++) {
            view_make(&dw[k], dt, nd, shape, layouts[k], dev);
            CHECK_OK(fv_copy(ctx, hw[k].base, dw[k].base));
        }
        for (int k = 0; k < np; k++)
            parts[k] = dw[k].v;
        out = dw[in_place ? 0 : np].v;
        st = fv_gradient_norm(ctx, parts, np, div, out);
        CHECK_OK(fv_copy(ctx, dw[in_place ? 0 : np].base, hout->base));
        for (int k = 0; k < nviews; k++)
            view_free(&dw[k]);
    }
    CHECK_OK(st);
    ncases++;
    /* every element against the reference from the initial data */
    int64_t idx[4] = { 0, 0, 0, 0 }, size = 1;
    for (int i = 0; i < nd; i++)
        size *= shape[i];
    const char *res = (const char *)fv_array_data(hout->base);
    int64_t bad = 0;
    char *touched = (char *)calloc((size_t)fv_array_nbytes(hout->base) + 1, 1);
    for (int64_t e = 0; e < size; e++) {
        int64_t r = e;
        for (int i = nd - 1; i >= 0; i--) {
            idx[i] = r % shape[i];
            r /= shape[i];
        }
        const int64_t oo = view_off(hout, nd, idx);
        touched[oo] = 1;
        if (is_double) {
            double x[4], got, want;
            for (int k = 0; k < np; k++)
                memcpy(&x[k], init[k] + view_off(&hw[k], nd, idx), 8);
            want = ref_d(x, np, div);
            memcpy(&got, res + oo, 8);
            if (memcmp(&got, &want, 8) && !(isnan(got) && isnan(want))) {
                if (bad++ < 3)
                    fprintf(stderr, "  f64 np=%d elem %lld: got %a want %a (x0 %a)\n", np, (long long)e, got, want,
                            x[0]);
            }
        } else {
            float x[4], got, want;
            for (int k = 0; k < np; k++)
                memcpy(&x[k], init[k] + view_off(&hw[k], nd, idx), 4);
            want = ref_f(x, np, div);
            memcpy(&got, res + oo, 4);
            if (memcmp(&got, &want, 4) && !(isnan(got) && isnan(want))) {
                if (bad++ < 3)
                    fprintf(stderr, "  f32 np=%d elem %lld: got %a want %a (x0 %a)\n", np, (long long)e, (double)got,
                            (double)want, (double)x[0]);
            }
        }
    }
    /* the rest of out's buffer unchanged */
    const int outk = in_place ? 0 : np;
    for (int64_t b = 0; b < fv_array_nbytes(hout->base); b += isz)
        if (!touched[b] && memcmp(res + b, init[outk] + b, (size_t)isz))
            bad++;
    /* the parts unchanged (except part 0 in place) */
    for (int k = in_place ? 1 : 0; k < np; k++)
        if (memcmp(fv_array_data(hw[k].base), init[k], (size_t)fv_array_nbytes(hw[k].base)))
            bad++;
    if (bad)
        fprintf(stderr, "case %s %s nd=%d np=%d div=%g in_place=%d layouts=%d%d%d%d%d: %lld bad\n",
                dev.type == FV_DEVICE_CPU ? "cpu" : "cuda", fv_dtype_name(dt), nd, np, div, in_place, layouts[0],
                layouts[1], layouts[2], layouts[3], layouts[4], (long long)bad);
    CHECK(bad == 0);
    free(touched);
    for (int k = 0; k < nviews; k++) {
        free(init[k]);
        view_free(&hw[k]);
    }
}

static void
test_cases(fv_device dev)
{
    static const int64_t shapes[4][4] = { { 1001, 0, 0, 0 }, { 37, 41, 0, 0 }, { 7, 9, 11, 0 }, { 3, 4, 5, 6 } };
    for (int dti = 0; dti < 2; dti++) {
        const fv_dtype dt = dti ? FV_FLOAT64 : FV_FLOAT32;
        for (int nd = 1; nd <= 4; nd++)
            for (int np = 1; np <= 4; np++)
                for (int lay = 0; lay < L_COUNT; lay++)
                    for (int in_place = 0; in_place < 2; in_place++) {
                        int layouts[5];
                        for (int k = 0; k < 5; k++) /* all one layout, or mixed */
                            layouts[k] = (lay + (in_place ? 0 : k * (lay & 1))) % L_COUNT;
                        const double div = (np + lay) % 2 ? sqrt((double)nd) : 1.0;
                        run_case(dev, dt, nd, shapes[nd - 1], np, div, in_place, layouts);
                    }
        /* empty, one element, 0-d-like single extents */
        const int64_t empty[2] = { 0, 5 }, one[3] = { 1, 1, 1 };
        const int dense[5] = { 0, 0, 0, 0, 0 };
        run_case(dev, dt, 2, empty, 2, 1.0, 0, dense);
        run_case(dev, dt, 3, one, 3, sqrt(3.0), 1, dense);
    }
}

/* large dense arrays on the GPU: grid-stride loops, head / tail around the vectors */
static void
test_large(fv_device dev)
{
    const int64_t shape[2] = { 1031, 1027 };
    const int dense[5] = { L_DENSE, L_DENSE, L_DENSE, L_DENSE, L_DENSE };
    const int offs[5] = { L_OFFSET, L_OFFSET, L_OFFSET, L_OFFSET, L_OFFSET };
    run_case(dev, FV_FLOAT32, 2, shape, 2, sqrt(2.0), 0, dense);
    run_case(dev, FV_FLOAT64, 2, shape, 3, sqrt(2.0), 1, dense);
    const int64_t flat[1] = { 1031 * 1027 };
    run_case(dev, FV_FLOAT32, 1, flat, 2, 1.0, 1, offs);
    run_case(dev, FV_FLOAT64, 1, flat, 2, sqrt(2.0), 0, offs);
}

/* ---- errors ------------------------------------------------------------------------ */

static void
test_errors(void)
{
    const fv_device host = { FV_DEVICE_CPU, 0 };
    const int64_t shape[2] = { 4, 5 }, other[2] = { 5, 4 };
    fv_array *a = NULL, *b = NULL, *o = NULL, *i32 = NULL, *f64 = NULL, *odd = NULL, *big = NULL, *sub = NULL;
    fv_array *bcast = NULL;
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, shape, host, &a));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, shape, host, &b));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, shape, host, &o));
    CHECK_OK(fv_array_zeros(ctx, FV_INT32, 2, shape, host, &i32));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT64, 2, shape, host, &f64));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, other, host, &odd));
    const int64_t bshape[2] = { 8, 5 };
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, bshape, host, &big));
    const int64_t sstr[2] = { 20, 4 }, zstr[2] = { 0, 4 };
    CHECK_OK(fv_array_view(big, 2, shape, sstr, 20, &sub));  /* rows 1..4 of big */
    CHECK_OK(fv_array_view(big, 2, shape, zstr, 0, &bcast)); /* one row repeated */
    const fv_array *ab[2] = { a, b };
    CHECK_OK(fv_gradient_norm(ctx, ab, 2, 1.0, o));
    CHECK_OK(fv_gradient_norm(ctx, ab, 2, 1.0, a)); /* in place over part 0 */
    CHECK_OK(fv_gradient_norm(ctx, ab, 2, 2.0, b)); /* and over part 1 */
    CHECK_OK(fv_gradient_norm(ctx, ab, 2, INFINITY, o));
    CHECK_ERR(fv_gradient_norm(ctx, NULL, 2, 1.0, o), FV_EINVAL, "1 to 8 parts");
    CHECK_ERR(fv_gradient_norm(ctx, ab, 0, 1.0, o), FV_EINVAL, "1 to 8 parts, got 0");
    CHECK_ERR(fv_gradient_norm(ctx, ab, 9, 1.0, o), FV_EINVAL, "1 to 8 parts, got 9");
    const fv_array *an[2] = { a, NULL };
    CHECK_ERR(fv_gradient_norm(ctx, an, 2, 1.0, o), FV_EINVAL, "NULL part 1");
    CHECK_ERR(fv_gradient_norm(ctx, ab, 2, 1.0, NULL), FV_EINVAL, "NULL out");
    const fv_array *ii[2] = { i32, i32 };
    CHECK_ERR(fv_gradient_norm(ctx, ii, 2, 1.0, i32), FV_EDTYPE, "float32 or float64, got int32");
    const fv_array *ad[2] = { a, f64 };
    CHECK_ERR(fv_gradient_norm(ctx, ad, 2, 1.0, o), FV_EDTYPE, "part 1 is float64");
    CHECK_ERR(fv_gradient_norm(ctx, ab, 2, 1.0, f64), FV_EDTYPE, "out is float64");
    const fv_array *ao[2] = { a, odd };
    CHECK_ERR(fv_gradient_norm(ctx, ao, 2, 1.0, o), FV_EINVAL, "part 1's shape");
    CHECK_ERR(fv_gradient_norm(ctx, ab, 2, 1.0, odd), FV_EINVAL, "out's shape");
    CHECK_ERR(fv_gradient_norm(ctx, ab, 2, 0.0, o), FV_EINVAL, "must be > 0");
    CHECK_ERR(fv_gradient_norm(ctx, ab, 2, -1.0, o), FV_EINVAL, "must be > 0");
    CHECK_ERR(fv_gradient_norm(ctx, ab, 2, NAN, o), FV_EINVAL, "must be > 0");
    /* out overlapping a part without being it */
    const fv_array *sb[2] = { sub, b };
    CHECK_OK(fv_gradient_norm(ctx, sb, 2, 1.0, sub));
    fv_array *top = NULL;
    CHECK_OK(fv_array_view(big, 2, shape, sstr, 0, &top)); /* rows 0..3: overlaps sub */
    CHECK_ERR(fv_gradient_norm(ctx, sb, 2, 1.0, top), FV_EINVAL, "overlaps part 0");
    CHECK_ERR(fv_gradient_norm(ctx, ab, 2, 1.0, bcast), FV_EINVAL, "share memory");
    fv_array_set_readonly(o, 1);
    CHECK_ERR(fv_gradient_norm(ctx, ab, 2, 1.0, o), FV_EINVAL, "read-only");
    fv_array_set_readonly(o, 0);
    if (fv_cuda_available()) {
        fv_array *d = NULL;
        CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, shape, (fv_device){ FV_DEVICE_CUDA, 0 }, &d));
        const fv_array *ad2[2] = { a, d };
        CHECK_ERR(fv_gradient_norm(ctx, ad2, 2, 1.0, o), FV_EDEVICE, "device");
        const fv_array *dd[2] = { d, d };
        CHECK_ERR(fv_gradient_norm(ctx, dd, 2, 1.0, o), FV_EDEVICE, "device");
        CHECK_OK(fv_gradient_norm(ctx, dd, 2, 1.0, d));
        fv_array_unref(d);
    }
    /* the arrays are still intact after the rejected calls */
    CHECK(((float *)fv_array_data(o))[0] == 0.0f);
    fv_array_unref(top);
    fv_array_unref(a);
    fv_array_unref(b);
    fv_array_unref(o);
    fv_array_unref(i32);
    fv_array_unref(f64);
    fv_array_unref(odd);
    fv_array_unref(sub);
    fv_array_unref(bcast);
    fv_array_unref(big);
}

int
main(void)
{
    CHECK_OK(fv_context_new(&ctx));
    test_errors();
    test_cases((fv_device){ FV_DEVICE_CPU, 0 });
    fv_context_set_threads(ctx, 1); /* the same on one thread: no chunking effects */
    test_large((fv_device){ FV_DEVICE_CPU, 0 });
    fv_context_set_threads(ctx, 0);
    test_large((fv_device){ FV_DEVICE_CPU, 0 });
    if (fv_cuda_available()) {
        const fv_device gpu = { FV_DEVICE_CUDA, 0 };
        test_cases(gpu);
        test_large(gpu);
        tv_force("cuda.gradient_norm", "strided");
        test_cases(gpu);
        test_large(gpu);
        tv_force("cuda.gradient_norm", NULL);
    } else {
        printf("test_gradnorm: CUDA part skipped: %s\n", fv_cuda_unavailable_reason());
    }
    printf("test_gradnorm: %d cases\n", ncases);
    fv_context_free(ctx);
    return fv_t_summary("test_gradnorm");
}
