/* fv_skeletonize, fv_max_tree, fv_max_tree_filter, fv_flood and fv_objects_by_distance
 * (fovea/skmorphology.h) on hand-checked cases (values from scikit-image 0.26)
 * and their argument errors. The Python tests (tests/python/
 * test_morphology_names.py) compare them with scikit-image on random data. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/skmorphology.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };

static fv_array *
wrap(fv_dtype dt, int nd, const int64_t *shape, void *data)
{
    fv_array *a = NULL;
    CHECK_OK(fv_array_wrap(dt, nd, shape, NULL, data, CPU, NULL, NULL, &a));
    return a;
}

/* A line one pixel wide, an isolated pixel and an empty image keep their
 * pixels under both methods; a skeleton lies inside its image and is its own
 * skeleton. */
static void
test_skeletonize(void)
{
    enum {
        R = 11,
        C = 14
    };
    static uint8_t img[R * C], out[R * C], again[R * C];
    const int64_t sh[2] = { R, C };
    fv_array *a = wrap(FV_UINT8, 2, sh, img), *o = wrap(FV_BOOL, 2, sh, out), *o2 = wrap(FV_BOOL, 2, sh, again);
    for (int m = 0; m < 2; m++) {
        memset(img, 0, sizeof img);
        for (int c = 2; c < 12; c++)
            img[5 * C + c] = 1;
        img[1 * C + 1] = 1;
        CHECK_OK(fv_skeletonize(NULL, a, o, (fv_skeleton_method)m));
        CHECK(memcmp(out, img, sizeof img) == 0);
        for (int r = 2; r < 9; r++) /* a thick block */
            for (int c = 3; c < 12; c++)
                img[r * C + c] = 1;
        CHECK_OK(fv_skeletonize(NULL, a, o, (fv_skeleton_method)m));
        int inside = 1, n = 0;
        for (int i = 0; i < R * C; i++) {
            inside &= !out[i] || img[i];
            n += out[i];
        }
        CHECK(inside && n > 1 && n < 20);
        memcpy(img, out, sizeof img);
        CHECK_OK(fv_skeletonize(NULL, a, o2, (fv_skeleton_method)m));
        CHECK(memcmp(again, out, sizeof out) == 0);
    }
    /* 3-d: a solid box thins to a few voxels inside it */
    static float vol[7 * 8 * 9];
    static uint8_t vout[7 * 8 * 9];
    const int64_t vs[3] = { 7, 8, 9 };
    for (int i = 0; i < 7 * 8 * 9; i++) {
        const int p = i / 72, r = i / 9 % 8, c = i % 9;
        vol[i] = (p > 0 && p < 6 && r > 0 && r < 7 && c > 0 && c < 8) ? -1.5f : 0.0f;
    }
    fv_array *v = wrap(FV_FLOAT32, 3, vs, vol), *vo = wrap(FV_UINT8, 3, vs, vout);
    CHECK_OK(fv_skeletonize(NULL, v, vo, FV_SKELETON_LEE));
    int n = 0, inside = 1;
    for (int i = 0; i < 7 * 8 * 9; i++) {
        n += vout[i];
        inside &= !vout[i] || vol[i] != 0.0f;
    }
    CHECK(inside && n >= 1 && n < 10);
    /* errors */
    CHECK(fv_skeletonize(NULL, v, vo, FV_SKELETON_ZHANG) == FV_EINVAL); /* Zhang: 2-d only */
    CHECK(fv_skeletonize(NULL, a, o, (fv_skeleton_method)7) == FV_EINVAL);
    CHECK(fv_skeletonize(NULL, a, v, FV_SKELETON_LEE) == FV_EINVAL); /* shapes differ */
    fv_array *f = wrap(FV_FLOAT32, 2, sh, vol);
    CHECK(fv_skeletonize(NULL, a, f, FV_SKELETON_ZHANG) == FV_EDTYPE); /* out: bool or uint8 */
    const int64_t s4[4] = { 2, 2, 2, 2 };
    fv_array *a4 = wrap(FV_UINT8, 4, s4, img), *o4 = wrap(FV_UINT8, 4, s4, out);
    CHECK(fv_skeletonize(NULL, a4, o4, FV_SKELETON_LEE) == FV_EINVAL);
    CHECK(fv_skeletonize(NULL, NULL, o, FV_SKELETON_LEE) == FV_EINVAL);
    fv_array_unref(a);
    fv_array_unref(o);
    fv_array_unref(o2);
    fv_array_unref(v);
    fv_array_unref(vo);
    fv_array_unref(f);
    fv_array_unref(a4);
    fv_array_unref(o4);
}

/* [0 2 1 2 0]: scikit-image's max_tree gives parent [0 2 0 2 0] (order
 * [0 4 2 1 3]); area_opening(2) = [0 1 1 1 0]; max_tree_local_maxima =
 * [0 2 0 1 0]. */
static void
test_max_tree(void)
{
    static uint8_t img[5] = { 0, 2, 1, 2, 0 }, filt[5];
    static int64_t order[5] = { 0, 4, 2, 1, 3 }, parent[5], bad[5] = { 0, 4, 2, 1, 5 };
    static uint64_t lmax[5];
    const int64_t sh[1] = { 5 };
    fv_array *a = wrap(FV_UINT8, 1, sh, img), *ord = wrap(FV_INT64, 1, sh, order), *par = wrap(FV_INT64, 1, sh, parent);
    fv_array *out = wrap(FV_UINT8, 1, sh, filt), *lm = wrap(FV_UINT64, 1, sh, lmax), *b = wrap(FV_INT64, 1, sh, bad);
    CHECK_OK(fv_max_tree(NULL, a, ord, par, NULL, NULL));
    const int64_t want_parent[5] = { 0, 2, 0, 2, 0 };
    CHECK(memcmp(parent, want_parent, sizeof parent) == 0);
    CHECK_OK(fv_max_tree_filter(NULL, a, par, ord, out, FV_MAX_TREE_AREA, 2.0));
    const uint8_t want_open[5] = { 0, 1, 1, 1, 0 };
    CHECK(memcmp(filt, want_open, sizeof filt) == 0);
    CHECK_OK(fv_max_tree_filter(NULL, a, par, ord, lm, FV_MAX_TREE_LOCAL_MAXIMA, 0.0));
    const uint64_t want_lmax[5] = { 0, 2, 0, 1, 0 };
    CHECK(memcmp(lmax, want_lmax, sizeof lmax) == 0);
    CHECK_OK(fv_max_tree_filter(NULL, a, par, ord, out, FV_MAX_TREE_DIAMETER, 1.0));
    CHECK(memcmp(filt, img, sizeof filt) == 0); /* every extent >= 1: nothing changes */
    /* errors: an order or parent entry that is no pixel, wrong dtypes and sizes, an even footprint */
    CHECK(fv_max_tree(NULL, a, b, par, NULL, NULL) == FV_EINVAL);
    CHECK(fv_max_tree_filter(NULL, a, b, ord, out, FV_MAX_TREE_AREA, 2.0) == FV_EINVAL);
    CHECK(fv_max_tree_filter(NULL, a, par, b, out, FV_MAX_TREE_AREA, 2.0) == FV_EINVAL);
    CHECK(fv_max_tree_filter(NULL, a, par, ord, lm, FV_MAX_TREE_AREA, 2.0) == FV_EDTYPE);
    CHECK(fv_max_tree_filter(NULL, a, par, ord, out, FV_MAX_TREE_LOCAL_MAXIMA, 0.0) == FV_EDTYPE);
    CHECK(fv_max_tree_filter(NULL, a, par, ord, out, (fv_max_tree_attr)9, 0.0) == FV_EINVAL);
    CHECK(fv_max_tree(NULL, a, ord, out, NULL, NULL) == FV_EDTYPE); /* parent: int64 */
    const int64_t s4[1] = { 4 }, fs[1] = { 2 };
    fv_array *short_ord = wrap(FV_INT64, 1, s4, order);
    CHECK(fv_max_tree(NULL, a, short_ord, par, NULL, NULL) == FV_EINVAL);
    const uint8_t fp2[2] = { 1, 1 };
    CHECK(fv_max_tree(NULL, a, ord, par, fp2, fs) == FV_EINVAL);
    fv_array_unref(a);
    fv_array_unref(ord);
    fv_array_unref(par);
    fv_array_unref(out);
    fv_array_unref(lm);
    fv_array_unref(b);
    fv_array_unref(short_ord);
}

static void
test_flood(void)
{
    static int16_t img[2 * 5] = { 1, 1, 0, 1, 3, /**/ 0, 1, 0, 1, 2 };
    static uint8_t out[10];
    static int16_t bounds[2] = { 0, 1 };
    static float fb[2] = { 0, 1 };
    const int64_t sh[2] = { 2, 5 }, bs[1] = { 2 };
    fv_array *a = wrap(FV_INT16, 2, sh, img), *o = wrap(FV_BOOL, 2, sh, out), *b = wrap(FV_INT16, 1, bs, bounds);
    fv_array *bf = wrap(FV_FLOAT32, 1, bs, fb);
    const int64_t seed[2] = { 0, 0 }, far[2] = { 1, 5 };
    CHECK_OK(fv_flood(NULL, a, seed, NULL, NULL, NULL, o)); /* full connectivity, equal to 1 */
    const uint8_t want_eq[10] = { 1, 1, 0, 0, 0, 0, 1, 0, 0, 0 };
    CHECK(memcmp(out, want_eq, sizeof out) == 0);
    CHECK_OK(fv_flood(NULL, a, seed, b, NULL, NULL, o)); /* within [0, 1] */
    const uint8_t want_tol[10] = { 1, 1, 1, 1, 0, 1, 1, 1, 1, 0 };
    CHECK(memcmp(out, want_tol, sizeof out) == 0);
    const uint8_t cross[9] = { 0, 1, 0, 1, 1, 1, 0, 1, 0 };
    const int64_t fs[2] = { 3, 3 }, seed2[2] = { 1, 3 };
    CHECK_OK(fv_flood(NULL, a, seed2, NULL, cross, fs, o)); /* 1s reached from (1, 3) by the cross */
    const uint8_t want_cross[10] = { 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 };
    CHECK(memcmp(out, want_cross, sizeof out) == 0);
    CHECK(fv_flood(NULL, a, far, NULL, NULL, NULL, o) == FV_EINVAL);
    CHECK(fv_flood(NULL, a, NULL, NULL, NULL, NULL, o) == FV_EINVAL);
    CHECK(fv_flood(NULL, a, seed, bf, NULL, NULL, o) == FV_EINVAL); /* bounds of another dtype */
    CHECK(fv_flood(NULL, a, seed, NULL, NULL, NULL, a) == FV_EDTYPE);
    const int64_t even[2] = { 2, 3 };
    CHECK(fv_flood(NULL, a, seed, NULL, cross, even, o) == FV_EINVAL);
    fv_array_unref(a);
    fv_array_unref(o);
    fv_array_unref(b);
    fv_array_unref(bf);
}

/* Points of objects 0, 1, 2 on a line: 0 at x = 0 and 1, 1 at x = 3, 2 at x = 5.
 * Distance 2: object 0 (first) removes 1; 2 stays (1 is gone before its point
 * is visited). Distance 1.5: nothing within reach. */
static void
test_objects_by_distance(void)
{
    static double pts[4] = { 0, 1, 3, 5 };
    static int64_t obj[4] = { 0, 0, 1, 2 }, bad[4] = { 0, 0, 1, 3 };
    static uint8_t removed[3];
    const int64_t ps[2] = { 4, 1 }, os[1] = { 4 }, rs[1] = { 3 };
    fv_array *p = wrap(FV_FLOAT64, 2, ps, pts), *o = wrap(FV_INT64, 1, os, obj), *r = wrap(FV_BOOL, 1, rs, removed);
    fv_array *b = wrap(FV_INT64, 1, os, bad);
    CHECK_OK(fv_objects_by_distance(NULL, p, o, 2.0, 2.0, r));
    CHECK(!removed[0] && removed[1] && !removed[2]);
    CHECK_OK(fv_objects_by_distance(NULL, p, o, 1.5, 1.0, r));
    CHECK(!removed[0] && !removed[1] && !removed[2]);
    CHECK_OK(fv_objects_by_distance(NULL, p, o, 1e300, 3.0, r)); /* everything within reach of object 0 */
    CHECK(!removed[0] && removed[1] && removed[2]);
    CHECK(fv_objects_by_distance(NULL, p, b, 2.0, 2.0, r) == FV_EINVAL); /* object 3 of 3 */
    CHECK(fv_objects_by_distance(NULL, p, o, -1.0, 2.0, r) == FV_EINVAL);
    CHECK(fv_objects_by_distance(NULL, p, o, 1.0, 0.0, r) == FV_EINVAL);
    CHECK(fv_objects_by_distance(NULL, o, o, 1.0, 2.0, r) == FV_EINVAL); /* points: float64 */
    fv_array_unref(p);
    fv_array_unref(o);
    fv_array_unref(r);
    fv_array_unref(b);
}

int
main(void)
{
    test_skeletonize();
    test_max_tree();
    test_flood();
    test_objects_by_distance();
    return fv_t_summary("skmorph_tree");
}
