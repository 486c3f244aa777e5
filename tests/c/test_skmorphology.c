/* The scikit-image morphology kernels (fovea/skmorphology.h): reconstruction
 * against a brute-force fixed point, local maxima on hand-checked cases and
 * against a component-based reference, thinning and the medial-axis pass on
 * known shapes, argument errors; then the CUDA kernels against the CPU ones
 * (skipped without a GPU). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/skmorphology.h"
#include "check.h"
#include "variant-force.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
static const fv_device GPU = { FV_DEVICE_CUDA, 0 };

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t
next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A host array of dtype dt with the given double values (converted). */
static fv_array *
from_doubles(fv_dtype dt, int nd, const int64_t *shape, const double *v)
{
    fv_array *d = NULL, *a = NULL;
    CHECK_OK(fv_array_wrap(FV_FLOAT64, nd, shape, NULL, (void *)v, CPU, NULL, NULL, &d));
    CHECK_OK(fv_array_new(NULL, dt, nd, shape, CPU, &a));
    CHECK_OK(fv_astype(NULL, d, a));
    fv_array_unref(d);
    return a;
}

static double *
to_doubles(const fv_array *a)
{
    int64_t n = fv_array_size(a);
    double *v = calloc((size_t)(n ? n : 1), sizeof *v);
    fv_array *d = NULL;
    CHECK_OK(fv_array_wrap(FV_FLOAT64, fv_array_ndim(a), fv_array_shape(a), NULL, v, CPU, NULL, NULL, &d));
    CHECK_OK(fv_astype(NULL, a, d));
    fv_array_unref(d);
    return v;
}

/* ---- reconstruction ------------------------------------------------------------------ */

/* Brute force: repeat rec(x) = min(mask, max(rec(x), rec(x - s))) until stable. */
static void
rec_reference(int nd, const int64_t *shape, const double *seed, const double *mask, const uint8_t *fp,
              const int64_t *fshape, const int64_t *off, int erosion, double *rec)
{
    int64_t n = 1, fsize = 1;
    for (int d = 0; d < nd; d++) {
        n *= shape[d];
        fsize *= fshape[d];
    }
    for (int64_t i = 0; i < n; i++)
        rec[i] = erosion ? (seed[i] > mask[i] ? seed[i] : mask[i]) : (seed[i] < mask[i] ? seed[i] : mask[i]);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t c[8], rem = i;
            for (int d = nd - 1; d >= 0; d--) {
                c[d] = rem % shape[d];
                rem /= shape[d];
            }
            double v = rec[i];
            for (int64_t j = 0; j < fsize; j++) {
                if (!fp[j])
                    continue;
                int64_t r2 = j, idx = 0, ok = 1, centre = 1;
                int64_t s[8];
                for (int d = nd - 1; d >= 0; d--) {
                    s[d] = r2 % fshape[d] - off[d];
                    r2 /= fshape[d];
                    centre &= s[d] == 0;
                }
                for (int d = 0; d < nd && ok; d++) {
                    int64_t x = c[d] - s[d];
                    ok = x >= 0 && x < shape[d];
                    idx = idx * shape[d] + x;
                }
                if (!ok || centre)
                    continue;
                if (erosion ? rec[idx] < v : rec[idx] > v)
                    v = rec[idx];
            }
            if (erosion ? v < mask[i] : v > mask[i])
                v = mask[i];
            if (v != rec[i]) {
                rec[i] = v;
                changed = 1;
            }
        }
    }
}

static void
test_reconstruction_random(void)
{
    static const fv_dtype dts[] = { FV_UINT8, FV_INT16, FV_INT32, FV_FLOAT32, FV_FLOAT64 };
    static const int64_t shapes[][3] = { { 37, 1, 1 }, { 13, 17, 1 }, { 6, 7, 8 } };
    for (int t = 0; t < 30; t++) {
        int nd = 1 + t % 3;
        const int64_t *shape = shapes[nd - 1];
        fv_dtype dt = dts[t % 5];
        int erosion = (t / 5) % 2;
        int64_t n = 1;
        for (int d = 0; d < nd; d++)
            n *= shape[d];
        double *seed = malloc((size_t)n * sizeof *seed), *mask = malloc((size_t)n * sizeof *mask);
        double *want = malloc((size_t)n * sizeof *want);
        for (int64_t i = 0; i < n; i++) {
            mask[i] = (double)(next_u64() % 100);
            seed[i] = (next_u64() % 23 == 0) ? mask[i] : (erosion ? 100 : 0);
        }
        /* footprints: full 3^nd, or a random one with a random offset */
        uint8_t fp[125];
        int64_t fshape[3], off[3], fsize = 1;
        int random_fp = t % 3 == 2;
        for (int d = 0; d < nd; d++) {
            fshape[d] = random_fp ? 1 + (int64_t)(next_u64() % 4) : 3;
            off[d] = random_fp ? (int64_t)(next_u64() % (uint64_t)fshape[d]) : 1;
            fsize *= fshape[d];
        }
        for (int64_t j = 0; j < fsize; j++)
            fp[j] = random_fp ? (uint8_t)(next_u64() % 2) : 1;
        rec_reference(nd, shape, seed, mask, fp, fshape, off, erosion, want);

        fv_array *s = from_doubles(dt, nd, shape, seed), *m = from_doubles(dt, nd, shape, mask), *o = NULL;
        CHECK_OK(fv_array_new(NULL, dt, nd, shape, CPU, &o));
        CHECK_OK(fv_reconstruction(NULL, s, m, o, erosion ? FV_RECONSTRUCT_EROSION : FV_RECONSTRUCT_DILATION,
                                   random_fp ? fp : NULL, random_fp ? fshape : NULL, random_fp ? off : NULL));
        double *got = to_doubles(o);
        CHECK(memcmp(got, want, (size_t)n * sizeof *got) == 0);
        /* out aliasing seed */
        CHECK_OK(fv_reconstruction(NULL, s, m, s, erosion ? FV_RECONSTRUCT_EROSION : FV_RECONSTRUCT_DILATION,
                                   random_fp ? fp : NULL, random_fp ? fshape : NULL, random_fp ? off : NULL));
        double *got2 = to_doubles(s);
        CHECK(memcmp(got2, want, (size_t)n * sizeof *got2) == 0);
        free(got);
        free(got2);
        fv_array_unref(s);
        fv_array_unref(m);
        fv_array_unref(o);
        free(seed);
        free(mask);
        free(want);
    }
}

static void
test_reconstruction_strided_and_errors(void)
{
    /* a reversed view of the mask: strides -8 */
    double mask[8] = { 1, 5, 2, 9, 3, 3, 0, 4 }, seed[8] = { 0, 0, 0, 0, 3, 0, 0, 0 };
    int64_t shape[1] = { 8 }, rstr[1] = { -8 };
    fv_array *m = NULL, *mr = NULL, *s = NULL, *o = NULL, *o8 = NULL;
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, shape, NULL, mask, CPU, NULL, NULL, &m));
    CHECK_OK(fv_array_view(m, 1, shape, rstr, 7 * 8, &mr)); /* 4 0 3 3 9 2 5 1 */
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 1, shape, NULL, seed, CPU, NULL, NULL, &s));
    CHECK_OK(fv_array_new(NULL, FV_FLOAT64, 1, shape, CPU, &o));
    CHECK_OK(fv_reconstruction(NULL, s, mr, o, FV_RECONSTRUCT_DILATION, NULL, NULL, NULL));
    const double want[8] = { 0, 0, 3, 3, 3, 2, 2, 1 };
    CHECK(memcmp(fv_array_data(o), want, sizeof want) == 0);

    CHECK_OK(fv_array_new(NULL, FV_UINT8, 1, shape, CPU, &o8));
    CHECK_ERR(fv_reconstruction(NULL, s, m, o8, 0, NULL, NULL, NULL), FV_EDTYPE, "one dtype");
    CHECK_ERR(fv_reconstruction(NULL, NULL, m, o, 0, NULL, NULL, NULL), FV_EINVAL, "NULL");
    CHECK_ERR(fv_reconstruction(NULL, s, m, o, 7, NULL, NULL, NULL), FV_EINVAL, "method");
    uint8_t fp[4] = { 1, 1, 1, 1 };
    int64_t fs[1] = { 4 }, off[1] = { 4 };
    CHECK_ERR(fv_reconstruction(NULL, s, m, o, 0, fp, fs, NULL), FV_EINVAL, "odd");
    CHECK_ERR(fv_reconstruction(NULL, s, m, o, 0, fp, fs, off), FV_EINVAL, "inside the footprint");
    CHECK_ERR(fv_reconstruction(NULL, s, m, o, 0, fp, NULL, NULL), FV_EINVAL, "both");
    int64_t shape2[2] = { 2, 4 };
    fv_array *o2 = NULL;
    CHECK_OK(fv_array_new(NULL, FV_FLOAT64, 2, shape2, CPU, &o2));
    CHECK_ERR(fv_reconstruction(NULL, s, m, o2, 0, NULL, NULL, NULL), FV_EINVAL, "one shape");
    fv_array_unref(o2);
    fv_array_unref(m);
    fv_array_unref(mr);
    fv_array_unref(s);
    fv_array_unref(o);
    fv_array_unref(o8);
}

/* ---- local maxima ----------------------------------------------------------------------- */

static void
test_local_maxima_cases(void)
{
    /* 5 x 6: a 2-pixel plateau of 7 (a maximum), a 9 touching the border (not
     * one: border pixels never are), a plateau of 4 next to a 5 (not one). */
    const double img[30] = {
        0, 0, 0, 0, 0, 9, 0, 7, 7, 0, 4, 0, 0, 0, 0, 0, 4, 5, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    };
    const uint8_t want_max[30] = {
        0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    };
    int64_t shape[2] = { 5, 6 };
    fv_array *a = from_doubles(FV_INT32, 2, shape, img), *o = NULL, *o16 = NULL;
    CHECK_OK(fv_array_new(NULL, FV_BOOL, 2, shape, CPU, &o));
    CHECK_OK(fv_local_maxima(NULL, a, o, NULL, 0));
    CHECK(memcmp(fv_array_data(o), want_max, 30) == 0);
    /* minima of the negated image are the same pixels */
    double neg[30];
    for (int i = 0; i < 30; i++)
        neg[i] = -img[i];
    fv_array *b = from_doubles(FV_FLOAT32, 2, shape, neg);
    CHECK_OK(fv_local_maxima(NULL, b, o, NULL, 1));
    CHECK(memcmp(fv_array_data(o), want_max, 30) == 0);
    /* a cross footprint without the horizontal neighbours: every inner pixel is
     * a candidate; the 3 and the 7s see only zeros above and below, and so
     * does the vertical pair of 4s now */
    uint8_t vert[9] = { 0, 1, 0, 0, 1, 0, 0, 1, 0 };
    CHECK_OK(fv_local_maxima(NULL, a, o, vert, 0));
    const uint8_t *r = fv_array_data(o);
    CHECK(r[7] == 1 && r[8] == 1 && r[19] == 1 && r[10] == 1 && r[16] == 1 && r[13] == 0 && r[21] == 0);
    /* errors */
    CHECK_OK(fv_array_new(NULL, FV_INT16, 2, shape, CPU, &o16));
    CHECK_ERR(fv_local_maxima(NULL, a, o16, NULL, 0), FV_EDTYPE, "bool or uint8");
    CHECK_ERR(fv_local_maxima(NULL, NULL, o, NULL, 0), FV_EINVAL, "NULL");
    /* an extent < 3: no maxima at all */
    int64_t thin_shape[2] = { 2, 6 };
    fv_array *t = from_doubles(FV_UINT8, 2, thin_shape, img), *to = NULL;
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 2, thin_shape, CPU, &to));
    memset(fv_array_data(to), 7, 12);
    CHECK_OK(fv_local_maxima(NULL, t, to, NULL, 0));
    int any = 0;
    for (int i = 0; i < 12; i++)
        any |= ((uint8_t *)fv_array_data(to))[i];
    CHECK(any == 0);
    fv_array_unref(t);
    fv_array_unref(to);
    fv_array_unref(a);
    fv_array_unref(b);
    fv_array_unref(o);
    fv_array_unref(o16);
}

/* The CPU path's row blocks (several threads, a symmetric footprint) against its
 * sequential flood (variant "serial" of "cpu.local_maxima") on images large enough for several blocks,
 * with few levels (plateaus across block edges, deferred) and with many. */
static void
test_local_maxima_blocks(void)
{
    fv_context *c2 = NULL;
    CHECK_OK(fv_context_new(&c2));
    CHECK_OK(fv_context_set_threads(c2, 4));
    const int64_t shapes[][3] = { { 700, 1000, 0 }, { 30, 90, 120 } };
    const uint8_t cross[9] = { 0, 1, 0, 1, 1, 1, 0, 1, 0 };
    for (int si = 0; si < 2; si++) {
        const int nd = shapes[si][2] ? 3 : 2;
        for (int levels = 2; levels <= 200; levels *= 10) {
            fv_array *a = NULL, *o1 = NULL, *o2 = NULL;
            CHECK_OK(fv_array_new(NULL, FV_UINT8, nd, shapes[si], CPU, &a));
            CHECK_OK(fv_array_new(NULL, FV_BOOL, nd, shapes[si], CPU, &o1));
            CHECK_OK(fv_array_new(NULL, FV_BOOL, nd, shapes[si], CPU, &o2));
            const int64_t n = fv_array_size(a);
            uint8_t *px = fv_array_data(a);
            for (int64_t i = 0; i < n; i++)
                px[i] = (uint8_t)(next_u64() % (uint64_t)levels);
            for (int64_t i = n / 3; i < n / 3 + n / 20; i++) /* a band of rows: one plateau over block edges */
                px[i] = (uint8_t)levels;
            for (int minima = 0; minima < 2; minima++)
                for (int f = 0; f < 2; f++) {
                    const uint8_t *fp = f && nd == 2 ? cross : NULL;
                    CHECK_OK(fv_local_maxima(c2, a, o1, fp, minima));
                    tv_force("cpu.local_maxima", "serial");
                    CHECK_OK(fv_local_maxima(c2, a, o2, fp, minima));
                    tv_force("cpu.local_maxima", NULL);
                    CHECK(memcmp(fv_array_data(o1), fv_array_data(o2), (size_t)n) == 0);
                }
            fv_array_unref(a);
            fv_array_unref(o1);
            fv_array_unref(o2);
        }
    }
    fv_context_free(c2);
}

/* ---- thin and medial axis ---------------------------------------------------------------- */

static void
test_thin(void)
{
    /* scikit-image's docstring example */
    uint8_t sq[49] = { 0 };
    for (int r = 1; r < 6; r++)
        for (int c = 2; c < 5; c++)
            sq[r * 7 + c] = 1;
    sq[1] = 1;
    const uint8_t want[49] = {
        0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    };
    int64_t shape[2] = { 7, 7 };
    fv_array *a = NULL, *o = NULL, *o1 = NULL;
    CHECK_OK(fv_array_wrap(FV_BOOL, 2, shape, NULL, sq, CPU, NULL, NULL, &a));
    CHECK_OK(fv_array_new(NULL, FV_BOOL, 2, shape, CPU, &o));
    CHECK_OK(fv_thin(NULL, a, o, 0));
    CHECK(memcmp(fv_array_data(o), want, 49) == 0);
    /* one iteration removes less */
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 2, shape, CPU, &o1));
    CHECK_OK(fv_thin(NULL, a, o1, 1));
    int n0 = 0, n1 = 0, n2 = 0;
    for (int i = 0; i < 49; i++) {
        n0 += sq[i];
        n1 += ((uint8_t *)fv_array_data(o1))[i];
        n2 += want[i];
    }
    CHECK(n1 < n0 && n1 >= n2);
    int64_t s3[3] = { 2, 2, 2 };
    fv_array *c = NULL, *co = NULL;
    CHECK_OK(fv_array_new(NULL, FV_BOOL, 3, s3, CPU, &c));
    CHECK_OK(fv_array_new(NULL, FV_BOOL, 3, s3, CPU, &co));
    CHECK_ERR(fv_thin(NULL, c, co, 0), FV_EINVAL, "2-d");
    fv_array_unref(c);
    fv_array_unref(co);
    fv_array_unref(a);
    fv_array_unref(o);
    fv_array_unref(o1);
}

static void
test_medial_axis(void)
{
    /* a 3 x 5 bar in a 5 x 7 image, its outer rows visited first: the middle
     * row stays */
    uint8_t img[35] = { 0 };
    for (int r = 1; r < 4; r++)
        for (int c = 1; c < 6; c++)
            img[r * 7 + c] = 1;
    int64_t order[15], n = 0;
    for (int r = 1; r < 4; r++)
        for (int c = 1; c < 6; c++)
            if (r != 2)
                order[n++] = r * 7 + c;
    for (int c = 1; c < 6; c++)
        order[n++] = 2 * 7 + c;
    int64_t shape[2] = { 5, 7 }, oshape[1] = { 15 };
    fv_array *a = NULL, *ord = NULL, *o = NULL;
    CHECK_OK(fv_array_wrap(FV_UINT8, 2, shape, NULL, img, CPU, NULL, NULL, &a));
    CHECK_OK(fv_array_wrap(FV_INT64, 1, oshape, NULL, order, CPU, NULL, NULL, &ord));
    CHECK_OK(fv_array_new(NULL, FV_BOOL, 2, shape, CPU, &o));
    CHECK_OK(fv_medial_axis_thin(NULL, a, ord, o));
    const uint8_t *r = fv_array_data(o);
    int ok = 1;
    for (int i = 0; i < 35; i++) /* scikit-image's loop gives exactly the middle row */
        ok &= r[i] == (i / 7 == 2 && i % 7 >= 1 && i % 7 <= 5);
    CHECK(ok);
    /* in place */
    CHECK_OK(fv_medial_axis_thin(NULL, a, ord, a));
    CHECK(memcmp(fv_array_data(a), r, 35) == 0);
    order[3] = 35;
    CHECK_ERR(fv_medial_axis_thin(NULL, a, ord, o), FV_EINVAL, "outside the image");
    CHECK_ERR(fv_medial_axis_thin(NULL, a, NULL, o), FV_EINVAL, "NULL order");
    fv_array_unref(a);
    fv_array_unref(ord);
    fv_array_unref(o);
}

/* ---- CUDA against CPU ----------------------------------------------------------------------- */

static fv_array *
to_gpu(const fv_array *a)
{
    fv_array *g = NULL;
    CHECK_OK(fv_array_new(NULL, fv_array_dtype(a), fv_array_ndim(a), fv_array_shape(a), GPU, &g));
    CHECK_OK(fv_copy(NULL, a, g));
    return g;
}

static int
same_as_host(const fv_array *g, const fv_array *h)
{
    fv_array *back = NULL;
    int ok;
    CHECK_OK(fv_array_new(NULL, fv_array_dtype(g), fv_array_ndim(g), fv_array_shape(g), CPU, &back));
    CHECK_OK(fv_copy(NULL, g, back));
    ok = memcmp(fv_array_data(back), fv_array_data(h), (size_t)fv_array_nbytes(h)) == 0;
    fv_array_unref(back);
    return ok;
}

/* The CUDA tile pass of 2-D reconstruction (32 x 32 tiles, footprints inside the
 * 3 x 3 box) against the CPU: several tiles with partial ones at the edges,
 * single rows and columns, walls that make paths wind from tile to tile, every
 * dtype kind, both methods, the full box, the cross and random (asymmetric)
 * 3 x 3 footprints with their centre off-centre too (offsets). */
static void
test_cuda_rec_tiles(void)
{
    static const fv_dtype dts[] = { FV_UINT8, FV_INT8, FV_UINT16, FV_INT64, FV_FLOAT32, FV_FLOAT64, FV_BOOL };
    static const int64_t shapes[][2] = { { 100, 131 }, { 1, 300 }, { 300, 1 }, { 65, 33 }, { 32, 64 }, { 97, 40 } };
    for (int t = 0; t < 36; t++) {
        const int64_t *sh = shapes[t % 6];
        const int64_t m = sh[0] * sh[1];
        const fv_dtype dt = dts[t % 7];
        const int erosion = (t / 3) % 2, hi = dt == FV_BOOL ? 1 : 90;
        double *mask = malloc((size_t)m * sizeof *mask), *seed = malloc((size_t)m * sizeof *seed);
        for (int64_t i = 0; i < m; i++) {
            const int64_t y = i / sh[1], x = i % sh[1];
            const int wall = next_u64() % 100 < 30;
            mask[i] = wall ? (erosion ? hi : 0) : (double)((y * 7 + x * 3) % (hi + 1));
            if (dt != FV_BOOL && next_u64() % 4 == 0)
                mask[i] = (double)(next_u64() % (uint64_t)(hi + 1));
            seed[i] = next_u64() % 97 == 0 ? mask[i] : (erosion ? hi : 0);
        }
        uint8_t fp[9];
        int64_t fs[2] = { 3, 3 }, off[2] = { 1, 1 };
        const int kind = t % 4; /* 0 default (full), 1 cross, 2 random, 3 random off-centre */
        for (int j = 0; j < 9; j++)
            fp[j] = kind == 1 ? (uint8_t)(j % 2 == 1 || j == 4) : (uint8_t)(next_u64() % 2);
        if (kind == 3) {
            off[0] = (int64_t)(next_u64() % 3);
            off[1] = (int64_t)(next_u64() % 3);
        }
        fv_array *hs = from_doubles(dt, 2, sh, seed), *hm = from_doubles(dt, 2, sh, mask), *ho = NULL;
        fv_array *gs = to_gpu(hs), *gm = to_gpu(hm), *go = NULL;
        CHECK_OK(fv_array_new(NULL, dt, 2, sh, CPU, &ho));
        CHECK_OK(fv_array_new(NULL, dt, 2, sh, GPU, &go));
        const uint8_t *f = kind ? fp : NULL;
        const int64_t *fsh = kind ? fs : NULL, *fo = kind == 3 ? off : NULL;
        CHECK_OK(fv_reconstruction(NULL, hs, hm, ho, erosion, f, fsh, fo));
        CHECK_OK(fv_reconstruction(NULL, gs, gm, go, erosion, f, fsh, fo));
        if (!same_as_host(go, ho)) {
            fv_t_fail++;
            fprintf(stderr, "reconstruction tiles: %lld x %lld %s erosion %d footprint kind %d differs\n",
                    (long long)sh[0], (long long)sh[1], fv_dtype_name(dt), erosion, kind);
        } else {
            fv_t_pass++;
        }
        fv_array_unref(hs);
        fv_array_unref(hm);
        fv_array_unref(ho);
        fv_array_unref(gs);
        fv_array_unref(gm);
        fv_array_unref(go);
        free(mask);
        free(seed);
    }
}

static void
test_cuda(void)
{
    static const fv_dtype dts[] = { FV_UINT8, FV_INT32, FV_FLOAT32, FV_FLOAT64 };
    int64_t shape[3] = { 9, 21, 17 };
    const int64_t n = 9 * 21 * 17;
    double *mask = malloc((size_t)n * sizeof *mask), *seed = malloc((size_t)n * sizeof *seed);
    for (int t = 0; t < 8; t++) {
        int nd = 2 + t % 2, erosion = (t / 2) % 2;
        const int64_t *sh = nd == 2 ? shape + 1 : shape;
        int64_t m = nd == 2 ? 21 * 17 : n;
        fv_dtype dt = dts[t % 4];
        for (int64_t i = 0; i < m; i++) {
            mask[i] = (double)(next_u64() % 6);
            seed[i] = next_u64() % 17 == 0 ? mask[i] : (erosion ? 6 : 0);
        }
        fv_array *hs = from_doubles(dt, nd, sh, seed), *hm = from_doubles(dt, nd, sh, mask), *ho = NULL;
        fv_array *gs = to_gpu(hs), *gm = to_gpu(hm), *go = NULL;
        CHECK_OK(fv_array_new(NULL, dt, nd, sh, CPU, &ho));
        CHECK_OK(fv_array_new(NULL, dt, nd, sh, GPU, &go));
        CHECK_OK(fv_reconstruction(NULL, hs, hm, ho, erosion, NULL, NULL, NULL));
        CHECK_OK(fv_reconstruction(NULL, gs, gm, go, erosion, NULL, NULL, NULL));
        CHECK(same_as_host(go, ho));
        /* local maxima / minima of the mask (few values: plateaus) */
        fv_array *hf = NULL, *gf = NULL;
        CHECK_OK(fv_array_new(NULL, FV_BOOL, nd, sh, CPU, &hf));
        CHECK_OK(fv_array_new(NULL, FV_BOOL, nd, sh, GPU, &gf));
        CHECK_OK(fv_local_maxima(NULL, hm, hf, NULL, erosion));
        CHECK_OK(fv_local_maxima(NULL, gm, gf, NULL, erosion));
        CHECK(same_as_host(gf, hf));
        uint8_t cross[27];
        for (int j = 0; j < 27; j++)
            cross[j] = nd == 2 ? (j < 9 && (j % 2 == 1 || j == 4))
                               : (j == 4 || j == 10 || j == 12 || j == 13 || j == 14 || j == 16 || j == 22);
        CHECK_OK(fv_local_maxima(NULL, hm, hf, cross, 0));
        CHECK_OK(fv_local_maxima(NULL, gm, gf, cross, 0));
        CHECK(same_as_host(gf, hf));
        if (nd == 2) {
            fv_array *bin = NULL, *gbin = NULL, *th = NULL, *gth = NULL;
            for (int64_t i = 0; i < m; i++)
                seed[i] = mask[i] > 1;
            bin = from_doubles(FV_UINT8, 2, sh, seed);
            gbin = to_gpu(bin);
            CHECK_OK(fv_array_new(NULL, FV_BOOL, 2, sh, CPU, &th));
            CHECK_OK(fv_array_new(NULL, FV_BOOL, 2, sh, GPU, &gth));
            CHECK_OK(fv_thin(NULL, bin, th, t % 3));
            CHECK_OK(fv_thin(NULL, gbin, gth, t % 3));
            CHECK(same_as_host(gth, th));
            CHECK_OK(fv_skeletonize(NULL, bin, th, FV_SKELETON_ZHANG)); /* the THIN kernels, Zhang's table */
            CHECK_OK(fv_skeletonize(NULL, gbin, gth, FV_SKELETON_ZHANG));
            CHECK(same_as_host(gth, th));
            CHECK(fv_skeletonize(NULL, gbin, gth, FV_SKELETON_LEE) == FV_ENOKERNEL); /* Lee: host only */
            fv_array_unref(bin);
            fv_array_unref(gbin);
            fv_array_unref(th);
            fv_array_unref(gth);
        }
        fv_array_unref(hs);
        fv_array_unref(hm);
        fv_array_unref(ho);
        fv_array_unref(gs);
        fv_array_unref(gm);
        fv_array_unref(go);
        fv_array_unref(hf);
        fv_array_unref(gf);
    }
    free(mask);
    free(seed);
}

/* The line scans of the CUDA reconstruction (src/cuda/morphology/reconstruction.cu) on long
 * lines: contiguous ones of several warp tiles (rows kernel), strided ones and short contiguous
 * ones (segs kernel), footprints whose on-axis offsets are {-1, +1}, only +1 (an offset), or
 * wider (the thread-per-line kernel); GPU against CPU. */
static void
test_cuda_line_scans(void)
{
    static const fv_dtype dts[] = { FV_UINT8, FV_INT32, FV_FLOAT32, FV_FLOAT64 };
    static const int64_t shapes[][3] = { { 4, 50, 300 }, { 3, 1000, 1 }, { 1000, 3, 1 }, { 2, 5, 700 } };
    static const int nds[] = { 3, 2, 2, 3 };
    uint8_t ones[27];
    memset(ones, 1, sizeof ones);
    for (int t = 0; t < 16; t++) {
        const int si = t % 4, nd = nds[si], erosion = (t / 4) % 2, fpk = t / 2 % 4;
        const int64_t *sh = shapes[si];
        const fv_dtype dt = dts[(t + t / 4) % 4];
        int64_t n = 1, fsh[3], off[3];
        for (int d = 0; d < nd; d++) {
            n *= sh[d];
            fsh[d] = d < nd - 2 ? 1 : 3; /* fpk 0: in-plane 3 x 3 (the demo's h_maxima) */
            off[d] = 0;
        }
        if (fpk == 2) /* the last two axes' offsets 0 and +1 only: forward passes */
            fsh[nd - 1] = fsh[nd - 2] = 2;
        if (fpk == 3) /* 1 x 5 along the last axis: offsets -2..2, the thread-per-line kernel */
            for (int d = 0; d < nd; d++)
                fsh[d] = d == nd - 1 ? 5 : 1;
        double *mask = malloc((size_t)n * sizeof *mask), *seed = malloc((size_t)n * sizeof *seed);
        for (int64_t i = 0; i < n; i++) {
            mask[i] = (double)(next_u64() % 50);
            seed[i] = next_u64() % 97 == 0 ? mask[i] : (erosion ? 50 : 0);
        }
        fv_array *hs = from_doubles(dt, nd, sh, seed), *hm = from_doubles(dt, nd, sh, mask), *ho = NULL;
        fv_array *gs = to_gpu(hs), *gm = to_gpu(hm), *go = NULL;
        CHECK_OK(fv_array_new(NULL, dt, nd, sh, CPU, &ho));
        CHECK_OK(fv_array_new(NULL, dt, nd, sh, GPU, &go));
        const uint8_t *fp = fpk == 1 ? NULL : ones; /* fpk 1: the full 3^nd box */
        const int64_t *fs = fpk == 1 ? NULL : fsh, *fo = fpk == 2 ? off : NULL;
        CHECK_OK(fv_reconstruction(NULL, hs, hm, ho, erosion, fp, fs, fo));
        CHECK_OK(fv_reconstruction(NULL, gs, gm, go, erosion, fp, fs, fo));
        if (!same_as_host(go, ho))
            fprintf(stderr, "line scans: case %d (%s, shape %d, footprint %d, erosion %d) differs\n", t,
                    fv_dtype_name(dt), si, fpk, erosion);
        CHECK(same_as_host(go, ho));
        fv_array_unref(hs);
        fv_array_unref(hm);
        fv_array_unref(ho);
        fv_array_unref(gs);
        fv_array_unref(gm);
        fv_array_unref(go);
        free(mask);
        free(seed);
    }
}

int
main(void)
{
    test_reconstruction_random();
    test_reconstruction_strided_and_errors();
    test_local_maxima_cases();
    test_local_maxima_blocks();
    test_thin();
    test_medial_axis();
    if (fv_cuda_available()) {
        test_cuda();
        test_cuda_line_scans();
        test_cuda_rec_tiles();
    } else
        printf("skmorphology: CUDA part skipped: %s\n", fv_cuda_unavailable_reason());
    return fv_t_summary("skmorphology");
}
