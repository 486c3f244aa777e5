/* Core: dtypes, promotion, arrays, views, refcounts, astype/add/multiply on the CPU. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "fovea/fovea.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t
next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void
test_dtypes(void)
{
    CHECK(fv_dtype_size(FV_BOOL) == 1 && fv_dtype_size(FV_FLOAT64) == 8 && fv_dtype_size(FV_UINT16) == 2);
    CHECK(!strcmp(fv_dtype_name(FV_INT32), "int32"));
    CHECK(!strcmp(fv_dtype_name((fv_dtype)99), "invalid"));
    fv_dtype d;
    CHECK_OK(fv_dtype_from_name("float32", &d));
    CHECK(d == FV_FLOAT32);
    CHECK_OK(fv_dtype_from_name("u2", &d));
    CHECK(d == FV_UINT16);
    CHECK_ERR(fv_dtype_from_name("complex64", &d), FV_EDTYPE, "unsupported dtype 'complex64'");
    /* NumPy's result_type, spot checks (the Python tests check all 121 pairs) */
    CHECK(fv_dtype_promote(FV_UINT8, FV_INT8) == FV_INT16);
    CHECK(fv_dtype_promote(FV_UINT64, FV_INT64) == FV_FLOAT64);
    CHECK(fv_dtype_promote(FV_UINT32, FV_INT64) == FV_INT64);
    CHECK(fv_dtype_promote(FV_INT16, FV_FLOAT32) == FV_FLOAT32);
    CHECK(fv_dtype_promote(FV_INT32, FV_FLOAT32) == FV_FLOAT64);
    CHECK(fv_dtype_promote(FV_BOOL, FV_BOOL) == FV_BOOL);
    CHECK(fv_dtype_promote(FV_BOOL, FV_UINT16) == FV_UINT16);
    for (int a = 0; a < FV_DTYPE_COUNT; a++)
        for (int b = 0; b < FV_DTYPE_COUNT; b++)
            CHECK(fv_dtype_promote((fv_dtype)a, (fv_dtype)b) == fv_dtype_promote((fv_dtype)b, (fv_dtype)a));
}

static void
test_arrays(void)
{
    fv_array *a = NULL, *v = NULL, *w = NULL;
    int64_t shape[3] = { 4, 5, 6 };
    CHECK_OK(fv_array_new(NULL, FV_INT16, 3, shape, CPU, &a));
    CHECK(fv_array_size(a) == 120 && fv_array_nbytes(a) == 240);
    CHECK(fv_array_strides(a)[0] == 60 && fv_array_strides(a)[2] == 2);
    CHECK(fv_array_is_contiguous(a));
    CHECK(((uintptr_t)fv_array_data(a) & 63) == 0);
    /* a reversed view along axis 1 and every other element along axis 2 */
    int64_t vs[3] = { 4, 5, 3 }, vst[3] = { 60, -12, 4 };
    CHECK_OK(fv_array_view(a, 3, vs, vst, 4 * 12, &v));
    CHECK(!fv_array_is_contiguous(v));
    CHECK(fv_array_refcount(a) == 2);
    CHECK_ERR(fv_array_view(v, 3, vs, vst, 2, &w), FV_EINVAL, "outside its base"); /* past v's extent */
    int64_t bad[3] = { 4, 5, 7 };
    CHECK_ERR(fv_array_view(a, 3, bad, NULL, 2, &w), FV_EINVAL, "outside its base");
    int64_t odd[3] = { 60, -12, 3 };
    CHECK_ERR(fv_array_view(a, 3, vs, odd, 48, &w), FV_EINVAL, "not a multiple");
    fv_array_unref(a); /* the view keeps the memory alive */
    CHECK(fv_array_refcount(v) == 1);
    fv_array_unref(v);
    fv_array_unref(NULL);

    int64_t nine[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    CHECK_ERR(fv_array_new(NULL, FV_UINT8, 9, nine, CPU, &a), FV_EINVAL, "ndim = 9");
    int64_t neg[2] = { 3, -1 };
    CHECK_ERR(fv_array_new(NULL, FV_UINT8, 2, neg, CPU, &a), FV_EINVAL, "negative");
    int64_t huge[2] = { INT64_MAX / 2, 4 };
    CHECK_ERR(fv_array_new(NULL, FV_UINT8, 2, huge, CPU, &a), FV_EINVAL, "too large");
    CHECK_ERR(fv_array_new(NULL, (fv_dtype)42, 2, shape, CPU, &a), FV_EDTYPE, "invalid dtype");
    fv_device bogus = { (fv_device_type)7, 0 };
    CHECK_ERR(fv_array_new(NULL, FV_UINT8, 2, shape, bogus, &a), FV_EDEVICE, "unknown device");
    CHECK(a == NULL);

    /* zero-size and 0-d arrays */
    int64_t z[2] = { 0, 5 };
    CHECK_OK(fv_array_new(NULL, FV_FLOAT64, 2, z, CPU, &a));
    CHECK(fv_array_size(a) == 0);
    fv_array_unref(a);
    CHECK_OK(fv_array_zeros(NULL, FV_FLOAT64, 0, NULL, CPU, &a));
    CHECK(fv_array_size(a) == 1 && *(double *)fv_array_data(a) == 0.0);
    fv_array_unref(a);
}

static int deleted;
static void
count_delete(void *data, void *opaque)
{
    (void)data;
    deleted += *(int *)opaque;
}

static void
test_wrap(void)
{
    int one = 1;
    float buf[12];
    fv_array *a = NULL, *v = NULL;
    int64_t shape[2] = { 3, 4 };
    deleted = 0;
    CHECK_OK(fv_array_wrap(FV_FLOAT32, 2, shape, NULL, buf, CPU, count_delete, &one, &a));
    CHECK(fv_array_data(a) == buf);
    int64_t vs[1] = { 3 }, vst[1] = { 16 };
    CHECK_OK(fv_array_view(a, 1, vs, vst, 4, &v));
    fv_array_unref(a);
    CHECK(deleted == 0);
    fv_array_unref(v);
    CHECK(deleted == 1);
    /* a failed wrap still runs the deleter: ownership always passes */
    int64_t st[2] = { 16, 3 };
    CHECK_ERR(fv_array_wrap(FV_FLOAT32, 2, shape, st, buf, CPU, count_delete, &one, &a), FV_EINVAL, "multiple");
    CHECK(deleted == 2);
    CHECK_ERR(fv_array_wrap(FV_FLOAT32, 2, shape, NULL, NULL, CPU, NULL, NULL, &a), FV_EINVAL, "NULL");
    CHECK_ERR(fv_array_wrap(FV_FLOAT32, 2, shape, NULL, (char *)buf + 1, CPU, NULL, NULL, &a), FV_EINVAL,
              "not aligned");
    int64_t one4 = 4, st4 = 4;
    CHECK_OK(fv_array_wrap(FV_FLOAT32, 2, shape, NULL, buf, CPU, NULL, NULL, &a));
    CHECK_ERR(fv_array_view(a, 1, &one4, &st4, 2, &v), FV_EINVAL, "multiple of the item size");
    fv_array_unref(a);
}

static void
test_broadcast_shapes(void)
{
    int64_t a[3] = { 3, 1, 5 }, b[2] = { 4, 5 }, o[8];
    int n;
    CHECK_OK(fv_broadcast_shapes(3, a, 2, b, &n, o));
    CHECK(n == 3 && o[0] == 3 && o[1] == 4 && o[2] == 5);
    int64_t c[1] = { 2 };
    CHECK_ERR(fv_broadcast_shapes(3, a, 1, c, &n, o), FV_EINVAL, "cannot be broadcast");
    CHECK_OK(fv_broadcast_shapes(0, NULL, 1, c, &n, o));
    CHECK(n == 1 && o[0] == 2);
}

/* astype against hand-derived expectations for each rule */
static void
test_astype_rules(void)
{
    fv_array *in = NULL, *out = NULL;
    int64_t n = 8;
    double vals[8] = { -1.5, 0.0, 0.75, 255.9, 256.0, -129.0, NAN, 1e30 };
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, &n, NULL, vals, CPU, NULL, NULL, &in));
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 1, &n, CPU, &out));
    CHECK_OK(fv_astype(NULL, in, out));
    uint8_t *u = fv_array_data(out);
    uint8_t want_u8[8] = { 0, 0, 0, 255, 255, 0, 0, 255 };
    CHECK(!memcmp(u, want_u8, 8));
    fv_array_unref(out);
    CHECK_OK(fv_array_new(NULL, FV_INT8, 1, &n, CPU, &out));
    CHECK_OK(fv_astype(NULL, in, out));
    int8_t want_i8[8] = { -1, 0, 0, 127, 127, -128, 0, 127 };
    CHECK(!memcmp(fv_array_data(out), want_i8, 8));
    fv_array_unref(out);
    CHECK_OK(fv_array_new(NULL, FV_BOOL, 1, &n, CPU, &out));
    CHECK_OK(fv_astype(NULL, in, out));
    uint8_t want_b[8] = { 1, 0, 1, 1, 1, 1, 1, 1 };
    CHECK(!memcmp(fv_array_data(out), want_b, 8));
    fv_array_unref(out);
    fv_array_unref(in);

    int32_t ints[4] = { -1, 256, 70000, -129 };
    int64_t n4 = 4;
    CHECK_OK(fv_array_wrap(FV_INT32, 1, &n4, NULL, ints, CPU, NULL, NULL, &in));
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 1, &n4, CPU, &out));
    CHECK_OK(fv_astype(NULL, in, out));
    uint8_t want_wrap[4] = { 255, 0, 112, 127 }; /* modulo 256, as NumPy */
    CHECK(!memcmp(fv_array_data(out), want_wrap, 4));
    fv_array_unref(out);
    int64_t n3 = 3;
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 1, &n3, CPU, &out));
    CHECK_ERR(fv_astype(NULL, in, out), FV_EINVAL, "shapes differ");
    fv_array_unref(out);
    fv_array_unref(in);
}

/* Every dtype pair: a strided (reversed, stepped) astype equals the contiguous one. */
static void
test_astype_strided(void)
{
    int64_t shape[2] = { 37, 41 };
    for (int s = 0; s < FV_DTYPE_COUNT; s++) {
        fv_array *src = NULL;
        CHECK_OK(fv_array_new(NULL, (fv_dtype)s, 2, shape, CPU, &src));
        uint8_t *p = fv_array_data(src);
        for (int64_t i = 0; i < fv_array_nbytes(src); i++)
            p[i] = (uint8_t)next_u64();
        if (s == FV_BOOL)
            for (int64_t i = 0; i < fv_array_size(src); i++)
                p[i] &= 1;
        if (s == FV_FLOAT32)
            for (int64_t i = 0; i < fv_array_size(src); i++)
                ((float *)p)[i] = (float)((int64_t)(next_u64() % 2000) - 1000) / 7.0f;
        if (s == FV_FLOAT64)
            for (int64_t i = 0; i < fv_array_size(src); i++)
                ((double *)p)[i] = (double)((int64_t)(next_u64() % 2000) - 1000) / 7.0;
        /* reversed rows, every second column */
        int64_t vs[2] = { 37, 20 }, vst[2] = { -fv_array_strides(src)[0], 2 * fv_array_strides(src)[1] };
        fv_array *view = NULL;
        CHECK_OK(fv_array_view(src, 2, vs, vst, 36 * fv_array_strides(src)[0], &view));
        for (int d = 0; d < FV_DTYPE_COUNT; d++) {
            fv_array *a = NULL, *b = NULL, *c = NULL, *bv = NULL;
            CHECK_OK(fv_array_new(NULL, (fv_dtype)s, 2, vs, CPU, &c));
            CHECK_OK(fv_copy(NULL, view, c)); /* contiguous copy of the view */
            CHECK_OK(fv_array_new(NULL, (fv_dtype)d, 2, vs, CPU, &a));
            CHECK_OK(fv_astype(NULL, c, a));
            int64_t big[2] = { 37, 40 };
            CHECK_OK(fv_array_zeros(NULL, (fv_dtype)d, 2, big, CPU, &b));
            int64_t bst[2] = { fv_array_strides(b)[0], 2 * fv_array_strides(b)[1] };
            CHECK_OK(fv_array_view(b, 2, vs, bst, 0, &bv));
            CHECK_OK(fv_astype(NULL, view, bv)); /* strided in, strided out */
            size_t isz = fv_dtype_size((fv_dtype)d);
            int same = 1;
            for (int64_t y = 0; y < 37; y++)
                for (int64_t x = 0; x < 20; x++)
                    if (memcmp((char *)fv_array_data(a) + (y * 20 + x) * isz,
                               (char *)fv_array_data(b) + (y * 40 + 2 * x) * isz, isz))
                        same = 0;
            if (!same)
                fprintf(stderr, "astype %s -> %s strided differs\n", fv_dtype_name((fv_dtype)s),
                        fv_dtype_name((fv_dtype)d));
            CHECK(same);
            fv_array_unref(a);
            fv_array_unref(b);
            fv_array_unref(bv);
            fv_array_unref(c);
        }
        fv_array_unref(view);
        fv_array_unref(src);
    }
}

static void
test_add_multiply(void)
{
    /* (3,1,5) int16 + (4,5) uint8 -> (3,4,5) int16, checked element by element */
    int64_t sa[3] = { 3, 1, 5 }, sb[2] = { 4, 5 }, so[3] = { 3, 4, 5 };
    fv_array *a = NULL, *b = NULL, *o = NULL, *m = NULL;
    CHECK_OK(fv_array_new(NULL, FV_INT16, 3, sa, CPU, &a));
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 2, sb, CPU, &b));
    int16_t *ap = fv_array_data(a);
    uint8_t *bp = fv_array_data(b);
    for (int i = 0; i < 15; i++)
        ap[i] = (int16_t)(next_u64() % 65536);
    for (int i = 0; i < 20; i++)
        bp[i] = (uint8_t)next_u64();
    CHECK(fv_dtype_promote(FV_INT16, FV_UINT8) == FV_INT16);
    CHECK_OK(fv_array_new(NULL, FV_INT16, 3, so, CPU, &o));
    CHECK_OK(fv_array_new(NULL, FV_INT16, 3, so, CPU, &m));
    CHECK_OK(fv_add(NULL, a, b, o));
    CHECK_OK(fv_multiply(NULL, a, b, m));
    int ok = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 5; k++) {
                int16_t x = ap[i * 5 + k];
                uint8_t y = bp[j * 5 + k];
                int16_t s = (int16_t)(uint16_t)((uint32_t)(uint16_t)x + y);
                int16_t p = (int16_t)(uint16_t)((uint32_t)(uint16_t)x * y);
                if (((int16_t *)fv_array_data(o))[(i * 4 + j) * 5 + k] != s ||
                    ((int16_t *)fv_array_data(m))[(i * 4 + j) * 5 + k] != p)
                    ok = 0;
            }
    CHECK(ok);
    /* wrong output shape, mismatched shapes, read-only output */
    int64_t bad[2] = { 4, 6 };
    fv_array *c = NULL;
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 2, bad, CPU, &c));
    CHECK_ERR(fv_add(NULL, a, c, o), FV_EINVAL, "add: shapes cannot be broadcast");
    CHECK_ERR(fv_add(NULL, a, b, c), FV_EINVAL, "broadcast shape");
    fv_array_set_readonly(o, 1);
    CHECK_ERR(fv_multiply(NULL, a, b, o), FV_EINVAL, "read-only");
    fv_array_unref(c);

    /* large: threads split a long contiguous line; bool add is or, multiply is and */
    int64_t big = 1 << 20;
    fv_array *x = NULL, *y = NULL, *z = NULL;
    CHECK_OK(fv_array_new(NULL, FV_BOOL, 1, &big, CPU, &x));
    CHECK_OK(fv_array_new(NULL, FV_BOOL, 1, &big, CPU, &y));
    CHECK_OK(fv_array_new(NULL, FV_BOOL, 1, &big, CPU, &z));
    uint8_t *xp = fv_array_data(x), *yp = fv_array_data(y), *zp = fv_array_data(z);
    for (int64_t i = 0; i < big; i++) {
        xp[i] = next_u64() & 1;
        yp[i] = next_u64() & 1;
    }
    CHECK_OK(fv_add(NULL, x, y, z));
    ok = 1;
    for (int64_t i = 0; i < big; i++)
        ok &= zp[i] == (xp[i] | yp[i]);
    CHECK(ok);
    CHECK_OK(fv_multiply(NULL, x, y, z));
    ok = 1;
    for (int64_t i = 0; i < big; i++)
        ok &= zp[i] == (xp[i] & yp[i]);
    CHECK(ok);
    /* in place: z = z + x */
    CHECK_OK(fv_add(NULL, z, x, z));
    /* bool bytes other than 0/1 still act as true */
    xp[0] = 2;
    yp[0] = 1;
    CHECK_OK(fv_multiply(NULL, x, y, z));
    CHECK(zp[0] == 1);
    CHECK_OK(fv_add(NULL, x, y, z));
    CHECK(zp[0] == 1);
    fv_array_unref(x);
    fv_array_unref(y);
    fv_array_unref(z);
    fv_array_unref(a);
    fv_array_unref(b);
    fv_array_unref(o);
    fv_array_unref(m);
}

static void
test_devices_without_gpu(void)
{
    if (fv_cuda_available())
        return; /* covered by test_cuda on the GPU machine */
    fv_array *a = NULL;
    int64_t n = 4;
    fv_device gpu = { FV_DEVICE_CUDA, 0 };
    CHECK_ERR(fv_array_new(NULL, FV_UINT8, 1, &n, gpu, &a), FV_EDEVICE, "not available");
    CHECK(strlen(fv_cuda_unavailable_reason()) > 0);
    /* a wrapped "device" array cannot be processed without CUDA */
    uint8_t buf[4] = { 1, 2, 3, 4 };
    fv_array *h = NULL, *d = NULL;
    CHECK_OK(fv_array_wrap(FV_UINT8, 1, &n, NULL, buf, gpu, NULL, NULL, &d));
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 1, &n, (fv_device){ FV_DEVICE_CPU, 0 }, &h));
    CHECK_ERR(fv_add(NULL, h, d, h), FV_EDEVICE, "different devices");
    CHECK_ERR(fv_astype(NULL, d, d), FV_EDEVICE, "CUDA is not available");
    CHECK_ERR(fv_copy(NULL, d, h), FV_EDEVICE, "");
    fv_array_unref(h);
    fv_array_unref(d);
}

static void
test_config(void)
{
    const char *cfg = fv_config_json();
    CHECK(cfg[0] == '{' && strstr(cfg, "\"backends\"") && strstr(cfg, FV_VERSION_STRING));
    CHECK(!strcmp(fv_version(), FV_VERSION_STRING));
    CHECK(fv_num_threads() >= 1);
    fv_context *ctx = NULL;
    CHECK_OK(fv_context_new(&ctx));
    CHECK_OK(fv_context_set_threads(ctx, 1));
    CHECK(fv_context_threads(ctx) == 1);
    CHECK_ERR(fv_context_set_threads(ctx, -2), FV_EINVAL, "nthreads");
    fv_context_free(ctx);
}

int
main(void)
{
    test_dtypes();
    test_arrays();
    test_wrap();
    test_broadcast_shapes();
    test_astype_rules();
    test_astype_strided();
    test_add_multiply();
    test_devices_without_gpu();
    test_config();
    return fv_t_summary("test_core");
}
