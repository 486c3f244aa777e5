/* The CUDA backend against the CPU backend: every op is run on host arrays and
 * on device copies of them, and the results must be the same bytes (floats: the
 * same bits, or both NaN). Exits 77 (ctest: skipped) without a usable GPU.
 *
 * Everything runs twice: on the default context (legacy default stream) and on
 * a context bound to a non-blocking stream of its own. Everything allocated is
 * freed, so `compute-sanitizer --leak-check full` must report nothing. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fovea/fovea.h"
#include "internal.h"
#define FV_T_SEED 0x243f6a8885a308d3ull
#include "harness.h" /* check.h, variant-force.h, xorshift.h, arrays, devices */

/* ---- helpers ---------------------------------------------------------------------- */

static fv_array *
view(fv_array *base, int nd, const int64_t *shape, const int64_t *strides_items, int64_t offset_items)
{
    fv_array *v = NULL;
    int64_t isz = (int64_t)fv_dtype_size(fv_array_dtype(base)), st[FV_MAX_NDIM];
    for (int i = 0; i < nd; i++)
        st[i] = strides_items[i] * isz;
    CHECK_OK(fv_array_view(base, nd, shape, st, offset_items * isz, &v));
    return v;
}

static fv_array *
to_device(const fv_array *h)
{
    fv_array *d = new_array(fv_array_dtype(h), fv_array_ndim(h), fv_array_shape(h), GPU);
    if (d)
        CHECK_OK(fv_copy(ctx, h, d));
    return d;
}

/* Random contents for a contiguous host array. Floats headed for an integer type
 * `target` mostly lie in its range, with out-of-range values, infinities and NaN
 * mixed in to check saturation. */
static void
fill(fv_array *h, fv_dtype target)
{
    fv_dtype dt = fv_array_dtype(h);
    int64_t n = fv_array_size(h);
    char *p = fv_array_data(h);
    double lo = -1000.0, hi = 1000.0;
    static const double lims[][2] = {
        [FV_BOOL] = { -2, 2 },
        [FV_UINT8] = { 0, 256 },
        [FV_UINT16] = { 0, 65536 },
        [FV_UINT32] = { 0, 4294967296.0 },
        [FV_UINT64] = { 0, 18446744073709551616.0 },
        [FV_INT8] = { -128, 128 },
        [FV_INT16] = { -32768, 32768 },
        [FV_INT32] = { -2147483648.0, 2147483648.0 },
        [FV_INT64] = { -9223372036854775808.0, 9223372036854775808.0 },
        [FV_FLOAT32] = { -1e6, 1e6 },
        [FV_FLOAT64] = { -1e6, 1e6 },
    };
    if (is_float(dt)) {
        lo = lims[target][0];
        hi = lims[target][1];
    }
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = next_u64();
        double v = uniform_in(lo, hi);
        if (is_float(dt) && i % 13 == 5) {
            static const double special[] = { NAN, INFINITY, -INFINITY, 1e30, -1e30, -0.0, 0.5, -0.75, -1.5, 2.5 };
            int k = (int)((i / 13) % 14);
            v = k < 10 ? special[k] : k == 10 ? hi : k == 11 ? lo - 1.0 : k == 12 ? hi * 2 : lo * 2 - 1;
        }
        hx_put_raw(p, dt, i, r, v);
    }
}

/* want and got: contiguous host arrays of one dtype and shape. Same bytes, except
 * that any NaN equals any NaN. Reports the first difference. */
static int
same(const fv_array *want, const fv_array *got, const char *what)
{
    if (!want || !got)
        return 0;
    fv_dtype dt = fv_array_dtype(want);
    int64_t n = fv_array_size(want);
    size_t isz = fv_dtype_size(dt);
    const char *a = fv_array_data(want), *b = fv_array_data(got);
    if (fv_array_dtype(got) != dt || fv_array_size(got) != n) {
        fprintf(stderr, "%s: dtype or size differs\n", what);
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        if (!memcmp(a + i * isz, b + i * isz, isz))
            continue;
        if (dt == FV_FLOAT32 && isnan(((const float *)a)[i]) && isnan(((const float *)b)[i]))
            continue;
        if (dt == FV_FLOAT64 && isnan(((const double *)a)[i]) && isnan(((const double *)b)[i]))
            continue;
        uint64_t x = 0, y = 0;
        memcpy(&x, a + i * isz, isz);
        memcpy(&y, b + i * isz, isz);
        fprintf(stderr, "%s (%s): element %lld differs: cpu 0x%llx, cuda 0x%llx\n", what, fv_dtype_name(dt),
                (long long)i, (unsigned long long)x, (unsigned long long)y);
        return 0;
    }
    return 1;
}

/* A contiguous host copy of a (any device, any layout). */
static fv_array *
contiguous_host(const fv_array *a)
{
    return to_host(a);
}

/* ---- astype ------------------------------------------------------------------------- */

/* in_h: host source; in_d: the same values and layout on the device. Converts
 * both to dst (into out arrays of layout kind `out_strided`) and compares. */
static void
astype_case(const fv_array *in_h, const fv_array *in_d, fv_dtype dst, int out_strided, int direct, const char *what)
{
    int nd = fv_array_ndim(in_h);
    const int64_t *shape = fv_array_shape(in_h);
    fv_array *oh = new_array(dst, nd, shape, CPU), *od = NULL, *obase = NULL, *got = NULL;
    if (out_strided && nd == 2) {
        /* out: rows reversed, every other column of a wider buffer */
        int64_t bs[2] = { shape[0], 2 * shape[1] + 1 };
        int64_t st[2] = { -bs[1], 2 };
        obase = new_array(dst, 2, bs, GPU);
        od = view(obase, 2, shape, st, (shape[0] - 1) * bs[1] + 1);
    } else {
        od = new_array(dst, nd, shape, GPU);
    }
    CHECK_OK(fv_astype(NULL, in_h, oh));
    if (direct) { /* the ASTYPE kernel itself, also for equal dtypes */
        fv__op_args a = { .in = in_d, .out = od };
        CHECK_OK(fv__dispatch(ctx, FV__OP_ASTYPE, &a));
    } else {
        CHECK_OK(fv_astype(ctx, in_d, od));
    }
    got = contiguous_host(od);
    CHECK(same(oh, got, what));
    fv_array_unref(oh);
    fv_array_unref(od);
    fv_array_unref(obase);
    fv_array_unref(got);
}

static void
test_astype(void)
{
    char what[96];
    for (int s = 0; s < FV_DTYPE_COUNT; s++) {
        for (int d = 0; d < FV_DTYPE_COUNT; d++) {
            /* dense 1-d */
            int64_t n = 1000 + 37 * s + d;
            fv_array *h = new_array((fv_dtype)s, 1, &n, CPU);
            fill(h, (fv_dtype)d);
            fv_array *dv = to_device(h);
            snprintf(what, sizeof what, "astype %s -> %s dense", fv_dtype_name((fv_dtype)s),
                     fv_dtype_name((fv_dtype)d));
            astype_case(h, dv, (fv_dtype)d, 0, 1, what);
            fv_array_unref(h);
            fv_array_unref(dv);

            /* 2-d strided: rows reversed, every third column, into a strided output */
            int64_t bs[2] = { 23, 61 }, vs[2] = { 23, 20 }, vst[2] = { -61, 3 };
            fv_array *hb = new_array((fv_dtype)s, 2, bs, CPU);
            fill(hb, (fv_dtype)d);
            fv_array *db = to_device(hb);
            fv_array *hv = view(hb, 2, vs, vst, 22 * 61 + 1), *dvv = view(db, 2, vs, vst, 22 * 61 + 1);
            snprintf(what, sizeof what, "astype %s -> %s strided", fv_dtype_name((fv_dtype)s),
                     fv_dtype_name((fv_dtype)d));
            astype_case(hv, dvv, (fv_dtype)d, 1, 0, what);
            /* broadcast-free 3-d with a zero-stride axis (a repeated row) */
            int64_t zs[3] = { 4, 3, 20 }, zst[3] = { 61, 0, 3 };
            fv_array *hz = view(hb, 3, zs, zst, 0), *dz = view(db, 3, zs, zst, 0);
            snprintf(what, sizeof what, "astype %s -> %s zero-stride", fv_dtype_name((fv_dtype)s),
                     fv_dtype_name((fv_dtype)d));
            astype_case(hz, dz, (fv_dtype)d, 0, 1, what);
            fv_array_unref(hz);
            fv_array_unref(dz);
            fv_array_unref(hv);
            fv_array_unref(dvv);
            fv_array_unref(hb);
            fv_array_unref(db);
        }
    }
}

/* ---- copies -------------------------------------------------------------------------- */

static void
test_copies(void)
{
    static const fv_dtype dts[] = { FV_BOOL, FV_UINT8, FV_INT16, FV_UINT32, FV_FLOAT32, FV_INT64, FV_FLOAT64 };
    char what[96];
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        fv_dtype dt = dts[k];
        int64_t bs[3] = { 5, 7, 9 };
        fv_array *hb = new_array(dt, 3, bs, CPU);
        fill(hb, dt);
        /* host view: axis 1 reversed, every other element of axis 2 */
        int64_t vs[3] = { 5, 7, 5 }, vst[3] = { 63, -9, 2 };
        fv_array *hv = view(hb, 3, vs, vst, 6 * 9);
        fv_array *want = new_array(dt, 3, vs, CPU);
        CHECK_OK(fv_copy(NULL, hv, want)); /* the CPU's answer */

        /* host (strided) -> device (contiguous) -> host */
        fv_array *d1 = to_device(hv), *got = contiguous_host(d1);
        snprintf(what, sizeof what, "copy %s h->d->h", fv_dtype_name(dt));
        CHECK(same(want, got, what));
        fv_array_unref(got);

        /* host (strided) -> device (strided, negative) -> host (strided) */
        int64_t dbs[3] = { 6, 8, 11 }, dst_[3] = { -88, 11, -2 };
        fv_array *db = NULL;
        CHECK_OK(fv_array_zeros(ctx, dt, 3, dbs, GPU, &db));
        fv_array *dv = view(db, 3, vs, dst_, 5 * 88 + 10);
        CHECK_OK(fv_copy(ctx, hv, dv));
        fv_array *hb2 = new_array(dt, 3, dbs, CPU);
        memset(fv_array_data(hb2), 0xab, (size_t)fv_array_nbytes(hb2));
        int64_t hst[3] = { -88, 11, -2 };
        fv_array *hv2 = view(hb2, 3, vs, hst, 5 * 88 + 10);
        CHECK_OK(fv_copy(ctx, dv, hv2));
        got = new_array(dt, 3, vs, CPU);
        CHECK_OK(fv_copy(NULL, hv2, got));
        snprintf(what, sizeof what, "copy %s h->d(strided)->h(strided)", fv_dtype_name(dt));
        CHECK(same(want, got, what));
        fv_array_unref(got);

        /* device (strided) -> device (strided, other strides) */
        int64_t d2s[3] = { 5, 14, 5 };
        fv_array *db2 = new_array(dt, 3, d2s, GPU);
        int64_t v2st[3] = { 70, 10, 1 };
        fv_array *dv2 = view(db2, 3, vs, v2st, 0);
        CHECK_OK(fv_copy(ctx, dv, dv2));
        got = contiguous_host(dv2);
        snprintf(what, sizeof what, "copy %s d(strided)->d(strided)", fv_dtype_name(dt));
        CHECK(same(want, got, what));
        fv_array_unref(got);
        /* and the untouched parts of the strided device buffer stayed zero */
        fv_array *all = contiguous_host(db);
        if (all) {
            int64_t nz = 0, total = fv_array_nbytes(all);
            const uint8_t *p = fv_array_data(all);
            for (int64_t i = 0; i < total; i++)
                nz += p[i] != 0;
            CHECK(nz <= fv_array_nbytes(want));
        }
        fv_array_unref(all);

        fv_array_unref(dv2);
        fv_array_unref(db2);
        fv_array_unref(dv);
        fv_array_unref(db);
        fv_array_unref(hv2);
        fv_array_unref(hb2);
        fv_array_unref(d1);
        fv_array_unref(want);
        fv_array_unref(hv);
        fv_array_unref(hb);
    }

    /* a view not aligned to its elements is rejected when it is made */
    {
        int64_t n = 101, half = 50;
        fv_array *hb = new_array(FV_UINT32, 1, &n, CPU);
        fv_array *db = to_device(hb);
        int64_t st = 8;
        fv_array *dv = NULL;
        CHECK_ERR(fv_array_view(db, 1, &half, &st, 1, &dv), FV_EINVAL, "multiple of the item size");
        CHECK(dv == NULL);
        fv_array_unref(db);
        fv_array_unref(hb);
    }
}

/* ---- add / multiply ---------------------------------------------------------------------- */

static void
binary_case(fv_dtype dt, fv_dtype adt, int nd_a, const int64_t *sa, int nd_b, const int64_t *sb, int nd_o,
            const int64_t *so, int strided_a, const char *label)
{
    char what[128];
    fv_array *ha = NULL, *hab = NULL, *hb = new_array(dt, nd_b, sb, CPU);
    fv_array *da = NULL, *dab = NULL, *db;
    if (strided_a) { /* a: every other element of the last axis, first axis reversed */
        int64_t big[FV_MAX_NDIM], st[FV_MAX_NDIM], off = 0, s = 1;
        for (int i = 0; i < nd_a; i++)
            big[i] = sa[i];
        big[nd_a - 1] = 2 * sa[nd_a - 1];
        for (int i = nd_a - 1; i >= 0; i--) {
            st[i] = s;
            s *= big[i];
        }
        st[nd_a - 1] = 2;
        off = (sa[0] - 1) * st[0];
        st[0] = -st[0];
        hab = new_array(adt, nd_a, big, CPU);
        fill(hab, dt);
        dab = to_device(hab);
        ha = view(hab, nd_a, sa, st, off);
        da = view(dab, nd_a, sa, st, off);
    } else {
        ha = new_array(adt, nd_a, sa, CPU);
        fill(ha, dt);
        da = to_device(ha);
    }
    fill(hb, dt);
    db = to_device(hb);
    for (int op = 0; op < 2; op++) {
        fv_array *ho = new_array(dt, nd_o, so, CPU), *dout = new_array(dt, nd_o, so, GPU), *got;
        if (op == 0) {
            CHECK_OK(fv_add(NULL, ha, hb, ho));
            CHECK_OK(fv_add(ctx, da, db, dout));
        } else {
            CHECK_OK(fv_multiply(NULL, ha, hb, ho));
            CHECK_OK(fv_multiply(ctx, da, db, dout));
        }
        got = contiguous_host(dout);
        snprintf(what, sizeof what, "%s %s(%s, %s) %s", op ? "multiply" : "add", fv_dtype_name(dt), fv_dtype_name(adt),
                 fv_dtype_name(dt), label);
        CHECK(same(ho, got, what));
        fv_array_unref(got);
        fv_array_unref(ho);
        fv_array_unref(dout);
    }
    fv_array_unref(ha);
    fv_array_unref(hab);
    fv_array_unref(hb);
    fv_array_unref(da);
    fv_array_unref(dab);
    fv_array_unref(db);
}

static void
test_arith(void)
{
    for (int t = 0; t < FV_DTYPE_COUNT; t++) {
        fv_dtype dt = (fv_dtype)t;
        int64_t s1[1] = { 4099 };
        binary_case(dt, dt, 1, s1, 1, s1, 1, s1, 0, "dense");
        int64_t sa[3] = { 4, 1, 6 }, sb[2] = { 5, 1 }, so[3] = { 4, 5, 6 };
        binary_case(dt, dt, 3, sa, 2, sb, 3, so, 0, "broadcast");
        int64_t sc[1] = { 1 }, sd[2] = { 33, 17 };
        binary_case(dt, dt, 2, sd, 1, sc, 2, sd, 0, "scalar");
        binary_case(dt, dt, 2, sd, 2, sd, 2, sd, 1, "strided");
        int64_t se[4] = { 3, 1, 5, 7 }, sf[4] = { 1, 4, 5, 1 }, sg[4] = { 3, 4, 5, 7 };
        binary_case(dt, dt, 4, se, 4, sf, 4, sg, 1, "strided-broadcast");
        /* mixed input dtypes: converted on the device first */
        fv_dtype other = (fv_dtype)((t + 5) % FV_DTYPE_COUNT);
        binary_case(dt, other, 3, sa, 2, sb, 3, so, 0, "mixed");
    }
}

/* ---- large extents: 64-bit index arithmetic ------------------------------------------------- */

static void
test_big(void)
{
    /* a view whose byte extent exceeds 2^31 (only a few elements are touched) */
    int64_t n = ((int64_t)1 << 31) + 256;
    fv_array *base = NULL;
    if (fv_array_zeros(ctx, FV_UINT8, 1, &n, GPU, &base) != FV_OK) {
        printf("test_cuda: skipping the >2 GiB case: %s\n", fv_error_message());
        return;
    }
    int64_t vs[2] = { 2, 8 }, vst[2] = { ((int64_t)1 << 31) + 128, -1 };
    fv_array *v = view(base, 2, vs, vst, 100), *hsrc = new_array(FV_UINT8, 2, vs, CPU);
    fill(hsrc, FV_UINT8);
    CHECK_OK(fv_copy(ctx, hsrc, v)); /* copy kernel, 64-bit */
    fv_array *got = contiguous_host(v);
    CHECK(same(hsrc, got, "copy 64-bit"));
    fv_array_unref(got);

    fv_array *hf = new_array(FV_FLOAT32, 2, vs, CPU), *df = new_array(FV_FLOAT32, 2, vs, GPU);
    CHECK_OK(fv_astype(NULL, hsrc, hf));
    CHECK_OK(fv_astype(ctx, v, df)); /* astype kernel, 64-bit */
    got = contiguous_host(df);
    CHECK(same(hf, got, "astype 64-bit"));
    fv_array_unref(got);

    fv_array *hs = new_array(FV_UINT8, 2, vs, CPU), *ds = new_array(FV_UINT8, 2, vs, GPU);
    CHECK_OK(fv_add(NULL, hsrc, hsrc, hs));
    CHECK_OK(fv_add(ctx, v, v, ds)); /* add kernel, 64-bit */
    got = contiguous_host(ds);
    CHECK(same(hs, got, "add 64-bit"));
    fv_array_unref(got);

    fv_array_unref(hs);
    fv_array_unref(ds);
    fv_array_unref(hf);
    fv_array_unref(df);
    fv_array_unref(hsrc);
    fv_array_unref(v);
    fv_array_unref(base);
}

/* ---- empty arrays, errors, devices ----------------------------------------------------------- */

static void
test_empty(void)
{
    int64_t s[2] = { 0, 5 }, one = 1;
    fv_array *a = NULL, *b = NULL, *h = NULL, *o = NULL, *z = NULL, *sc = NULL;
    CHECK_OK(fv_array_new(ctx, FV_FLOAT32, 2, s, GPU, &a));
    CHECK_OK(fv_array_zeros(ctx, FV_INT16, 2, s, GPU, &z));
    CHECK_OK(fv_array_new(ctx, FV_INT16, 2, s, GPU, &b));
    CHECK_OK(fv_array_new(ctx, FV_FLOAT32, 2, s, CPU, &h));
    CHECK_OK(fv_array_new(ctx, FV_FLOAT32, 2, s, GPU, &o));
    CHECK_OK(fv_array_new(ctx, FV_FLOAT32, 1, &one, GPU, &sc));
    if (a && b && h && o && z && sc) {
        CHECK(fv_array_size(a) == 0);
        CHECK_OK(fv_astype(ctx, a, b));
        CHECK_OK(fv_astype(ctx, z, a));
        CHECK_OK(fv_copy(ctx, a, o));
        CHECK_OK(fv_copy(ctx, h, a));
        CHECK_OK(fv_copy(ctx, a, h));
        CHECK_OK(fv_add(ctx, a, sc, o));
        CHECK_OK(fv_multiply(ctx, a, b, o));
        CHECK_OK(fv_context_synchronize(ctx));
    }
    fv_array_unref(a);
    fv_array_unref(b);
    fv_array_unref(h);
    fv_array_unref(o);
    fv_array_unref(z);
    fv_array_unref(sc);
}

static void
test_errors(void)
{
    int64_t n = 16;
    fv_array *h = new_array(FV_FLOAT32, 1, &n, CPU), *d = new_array(FV_FLOAT32, 1, &n, GPU);
    fv_array *d2 = new_array(FV_FLOAT32, 1, &n, GPU), *h2 = new_array(FV_FLOAT32, 1, &n, CPU);
    if (h && d && d2 && h2) {
        fill(h, FV_FLOAT32);
        CHECK_ERR(fv_add(ctx, h, d, d2), FV_EDEVICE, "different devices");
        CHECK_ERR(fv_add(ctx, d, h, h2), FV_EDEVICE, "different devices");
        CHECK_ERR(fv_multiply(ctx, d, d2, h), FV_EDEVICE, "different devices");
        CHECK_ERR(fv_astype(ctx, h, d), FV_EDEVICE, "different devices");
        fv__op_args a = { .in = h, .out = d };
        CHECK_ERR(fv__dispatch(ctx, FV__OP_COPY, &a), FV_EDEVICE, "different devices");
    }
    fv_array *x = NULL;
    int cnt = fv_cuda_device_count();
    fv_device nodev = { FV_DEVICE_CUDA, cnt };
    CHECK_ERR(fv_array_new(ctx, FV_UINT8, 1, &n, nodev, &x), FV_EDEVICE, "no CUDA device");
    CHECK(x == NULL);
    fv_context *c = NULL;
    CHECK_OK(fv_context_new(&c));
    CHECK_ERR(fv_context_set_cuda(c, cnt + 3, NULL), FV_EDEVICE, "no CUDA device");
    CHECK_ERR(fv_context_set_cuda(c, -1, NULL), FV_EDEVICE, "no CUDA device");
    fv_context_free(c);
    /* an allocation the device cannot hold */
    int64_t huge = (int64_t)1 << 50;
    CHECK_ERR(fv_array_new(ctx, FV_UINT8, 1, &huge, GPU, &x), FV_ENOMEM, "out of device memory");
    CHECK(x == NULL);
    fv_array_unref(h);
    fv_array_unref(d);
    fv_array_unref(d2);
    fv_array_unref(h2);
}

static void
test_info(void)
{
    CHECK(fv_cuda_device_count() >= 1);
    CHECK(!strcmp(fv_cuda_unavailable_reason(), ""));
    CHECK(strlen(fv__cuda_runtime_version()) >= 3);
    CHECK(strlen(fv__cuda_driver_version()) >= 3);
    CHECK(strlen(fv__cuda_device_name(0)) > 0);
    CHECK(!strcmp(fv__cuda_device_name(fv_cuda_device_count()), ""));
    CHECK(strstr(fv_config_json(), "\"available\": true") != NULL);
    printf("test_cuda: %d device(s), %s; runtime %s, driver %s\n", fv_cuda_device_count(), fv__cuda_device_name(0),
           fv__cuda_runtime_version(), fv__cuda_driver_version());
}

/* Two streams: work queued on one, ordered before work on the other. */
static void
test_streams(void)
{
    cudaStream_t s1 = NULL, s2 = NULL;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess);
    fv_context *c1 = NULL, *c2 = NULL;
    CHECK_OK(fv_context_new(&c1));
    CHECK_OK(fv_context_new(&c2));
    CHECK_OK(fv_context_set_cuda(c1, 0, s1));
    CHECK_OK(fv_context_set_cuda(c2, 0, s2));
    int64_t n = 1 << 22;
    fv_array *h = NULL, *d = NULL, *e = NULL, *want = NULL, *got = NULL;
    CHECK_OK(fv_array_new(NULL, FV_INT32, 1, &n, CPU, &h));
    CHECK_OK(fv_array_new(NULL, FV_INT32, 1, &n, CPU, &want));
    CHECK_OK(fv_array_new(NULL, FV_INT32, 1, &n, CPU, &got));
    CHECK_OK(fv_array_new(c1, FV_INT32, 1, &n, GPU, &d));
    CHECK_OK(fv_array_new(c1, FV_INT32, 1, &n, GPU, &e));
    if (h && d && e && want && got) {
        fill(h, FV_INT32);
        CHECK_OK(fv_multiply(NULL, h, h, want));
        CHECK_OK(fv_add(NULL, want, h, want));
        CHECK_OK(fv_copy(c1, h, d));
        CHECK_OK(fv_multiply(c1, d, d, e)); /* on s1 */
        CHECK_OK(fv_cuda_stream_wait(c1, s1, s2));
        CHECK_OK(fv_add(c2, e, d, e));             /* on s2, after s1's work */
        CHECK_OK(fv_cuda_stream_wait(c2, s2, s1)); /* frees on s1 wait for s2 */
        CHECK_OK(fv_copy(c2, e, got));
        CHECK(same(want, got, "two streams"));
        CHECK_OK(fv_context_synchronize(c1));
        CHECK_OK(fv_context_synchronize(c2));
    }
    fv_array_unref(h);
    fv_array_unref(d);
    fv_array_unref(e);
    fv_array_unref(want);
    fv_array_unref(got);
    CHECK_OK(fv_cuda_stream_wait(c1, s1, s1));
    CHECK_OK(fv_context_synchronize(c1));
    fv_context_free(c1);
    fv_context_free(c2);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
}

/* Peer copies, when there are two devices. */
static void
test_peer(void)
{
    if (fv_cuda_device_count() < 2)
        return;
    fv_device g1 = { FV_DEVICE_CUDA, 1 };
    int64_t s[2] = { 37, 41 }, vs[2] = { 37, 20 }, vst[2] = { -41, 2 };
    fv_array *h = new_array(FV_INT16, 2, s, CPU), *d0 = NULL, *d1 = NULL, *v0 = NULL, *o1 = NULL, *got = NULL,
             *want = NULL, *hv = NULL;
    fill(h, FV_INT16);
    d0 = to_device(h);
    CHECK_OK(fv_array_new(ctx, FV_INT16, 2, s, g1, &d1));
    CHECK_OK(fv_copy(ctx, d0, d1)); /* dense peer copy */
    got = contiguous_host(d1);
    CHECK(same(h, got, "peer dense"));
    fv_array_unref(got);
    v0 = view(d0, 2, vs, vst, 36 * 41 + 1);
    hv = view(h, 2, vs, vst, 36 * 41 + 1);
    want = new_array(FV_INT16, 2, vs, CPU);
    CHECK_OK(fv_copy(NULL, hv, want));
    int64_t ost[2] = { -41, -2 };
    o1 = view(d1, 2, vs, ost, 36 * 41 + 40);
    CHECK_OK(fv_copy(ctx, v0, o1)); /* strided peer copy */
    got = contiguous_host(o1);
    CHECK(same(want, got, "peer strided"));
    fv_array_unref(got);
    fv_array_unref(want);
    fv_array_unref(hv);
    fv_array_unref(o1);
    fv_array_unref(v0);
    fv_array_unref(d1);
    fv_array_unref(d0);
    fv_array_unref(h);
}

static void
run_all(const char *label)
{
    int before = fv_t_fail;
    test_astype();
    test_copies();
    test_arith();
    test_big();
    test_empty();
    test_errors();
    test_peer();
    CHECK_OK(fv_context_synchronize(ctx));
    printf("test_cuda: %s: %d failures\n", label, fv_t_fail - before);
}

int
main(void)
{
    if (!fv_cuda_available()) {
        printf("test_cuda: skipped: %s\n", fv_cuda_unavailable_reason());
        return 77;
    }
    test_info();

    ctx = NULL;
    run_all("default context");

    cudaStream_t s = NULL;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    CHECK_OK(fv_context_new(&ctx));
    CHECK_OK(fv_context_set_cuda(ctx, 0, s));
    run_all("own stream");
    fv_context_free(ctx);
    ctx = NULL;
    cudaStreamDestroy(s);

    test_streams();

    /* arrays that outlive the stream they were made and used on (a CuPy/torch stream
     * in a `with` block): freeing them later must not touch the dead stream */
    for (int round = 0; round < 3; round++) {
        cudaStream_t s3 = NULL;
        fv_context *c3 = NULL;
        fv_array *a = NULL, *b = NULL, *z = NULL;
        int64_t sh[2] = { 512, 513 };
        CHECK(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking) == cudaSuccess);
        CHECK_OK(fv_context_new(&c3));
        CHECK_OK(fv_context_set_cuda(c3, 0, s3));
        CHECK_OK(fv_array_zeros(c3, FV_FLOAT32, 2, sh, GPU, &a));
        CHECK_OK(fv_array_new(c3, FV_FLOAT32, 2, sh, GPU, &b));
        CHECK_OK(fv_array_new(c3, FV_FLOAT32, 2, sh, GPU, &z)); /* never used by a kernel */
        CHECK_OK(fv_add(c3, a, a, b));
        if (round == 0)
            CHECK(cudaStreamSynchronize(s3) == cudaSuccess);
        fv_context_free(c3);
        CHECK(cudaStreamDestroy(s3) == cudaSuccess); /* work may still be queued */
        fv_array_unref(z);
        fv_array_unref(b);
        fv_array_unref(a);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
    }
    return fv_t_summary("test_cuda");
}
