/* fv_watershed (include/fovea/segmentation.h): small cases with scikit-image
 * 0.26's labels (the CPU matches them exactly; they hold ties, plateaus and
 * watershed lines), a reference written here for the rest: Dijkstra on the
 * lexicographic key (flood level, steps at that level) from the seeds, each
 * pixel taking the label of its neighbour of smallest key. On images without
 * ties this is skimage's watershed, so both backends must equal it there; on
 * plateau images every result must be a valid watershed (all reachable
 * pixels labelled, each reached from its own seeds, through its own label, at
 * the lowest flood level). 1-, 2- and 3-d, every connectivity, the cross
 * of a 3 x 3 x 3 footprint's middle plane, masks, strided views, empty
 * images and the argument errors.
 *
 * Built twice: test_watershed runs the CPU backend; test_cuda_watershed
 * (FV_TEST_CUDA) runs the cases on the CUDA backend and compares them with the
 * reference and with the CPU, and its tiled relaxation with its Jacobi rounds
 * (variant "jacobi" of "cuda.watershed"), which must give identical labels, plateaus included;
 * it exits 77 (ctest: skipped) without a GPU. */
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
#include "variant-force.h"

/* ---- geometry: neighbours within conn hops, as coordinate steps ---------------- */

typedef struct geo {
    int nd;
    int64_t shape[FV_MAX_NDIM], cst[FV_MAX_NDIM], n;
    int nnb;
    int off[27][3];
} geo;

static void
geo_init(geo *g, int nd, const int64_t *shape, int conn)
{
    g->nd = nd;
    g->n = 1;
    for (int d = nd - 1; d >= 0; d--) {
        g->shape[d] = shape[d];
        g->cst[d] = g->n;
        g->n *= shape[d];
    }
    g->nnb = 0;
    int cells = 1;
    for (int d = 0; d < nd; d++)
        cells *= 3;
    for (int c = 0; c < cells; c++) {
        int o[3] = { 0, 0, 0 }, rest = c, hops = 0;
        for (int d = nd - 1; d >= 0; d--) {
            o[d] = rest % 3 - 1;
            rest /= 3;
            hops += o[d] != 0;
        }
        if (hops >= 1 && hops <= conn) {
            memcpy(g->off[g->nnb], o, sizeof o);
            g->nnb++;
        }
    }
}

/* keep the neighbours within one plane (no step along axis 0) */
static void
geo_keep_plane(geo *g)
{
    int kept = 0;
    for (int k = 0; k < g->nnb; k++)
        if (!g->off[k][0])
            memcpy(g->off[kept++], g->off[k], sizeof g->off[k]);
    g->nnb = kept;
}

/* neighbour k of i, or -1 outside the image */
static int64_t
geo_nb(const geo *g, int64_t i, int k)
{
    int64_t j = 0;
    for (int d = 0; d < g->nd; d++) {
        int64_t c = (i / g->cst[d]) % g->shape[d] + g->off[k][d];
        if (c < 0 || c >= g->shape[d])
            return -1;
        j += c * g->cst[d];
    }
    return j;
}

/* ---- reference: Dijkstra on (level, steps) --------------------------------------- */

typedef struct hitem {
    double c;
    int64_t d, i;
} hitem;

static int
hless(const hitem *a, const hitem *b)
{
    return a->c < b->c || (a->c == b->c && (a->d < b->d || (a->d == b->d && a->i < b->i)));
}

static void
hpush(hitem *h, int64_t *n, hitem x)
{
    int64_t c = (*n)++;
    h[c] = x;
    while (c > 0 && hless(&h[c], &h[(c - 1) / 2])) {
        hitem t = h[c];
        h[c] = h[(c - 1) / 2];
        h[(c - 1) / 2] = t;
        c = (c - 1) / 2;
    }
}

static hitem
hpop(hitem *h, int64_t *n)
{
    hitem top = h[0];
    h[0] = h[--(*n)];
    int64_t i = 0;
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && hless(&h[l], &h[m]))
            m = l;
        if (r < *n && hless(&h[r], &h[m]))
            m = r;
        if (m == i)
            break;
        hitem t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
    return top;
}

/* Levels C (inf: unreached) and steps D from the seeds (lab != 0 and allowed),
 * moving only through allowed pixels. */
static void
flood_levels(const geo *g, const double *img, const int32_t *lab, const uint8_t *allowed, double *C, int64_t *D)
{
    hitem *h = malloc(sizeof *h * (size_t)(g->n * (g->nnb + 1) + 1));
    int64_t hn = 0;
    for (int64_t i = 0; i < g->n; i++) {
        C[i] = INFINITY;
        D[i] = 0;
        if (lab[i] && allowed[i]) {
            C[i] = img[i];
            hpush(h, &hn, (hitem){ img[i], 0, i });
        }
    }
    while (hn) {
        hitem x = hpop(h, &hn);
        if (x.c != C[x.i] || x.d != D[x.i])
            continue;
        for (int k = 0; k < g->nnb; k++) {
            int64_t j = geo_nb(g, x.i, k);
            if (j < 0 || !allowed[j] || (lab[j] && allowed[j]))
                continue;
            double c = img[j] > x.c ? img[j] : x.c;
            int64_t d = c == x.c ? x.d + 1 : 0;
            if (c < C[j] || (c == C[j] && d < D[j])) {
                C[j] = c;
                D[j] = d;
                hpush(h, &hn, (hitem){ c, d, j });
            }
        }
    }
    free(h);
}

/* out = the reference labels (seeds outside mask dropped). */
static void
reference(const geo *g, const double *img, const int32_t *mk, const uint8_t *mask, int32_t *out)
{
    double *C = malloc(sizeof *C * (size_t)g->n);
    int64_t *D = malloc(sizeof *D * (size_t)g->n), *order = malloc(sizeof *order * (size_t)g->n);
    hitem *h = malloc(sizeof *h * (size_t)g->n);
    int64_t hn = 0;
    flood_levels(g, img, mk, mask, C, D);
    for (int64_t i = 0; i < g->n; i++) {
        out[i] = mk[i] && mask[i] ? mk[i] : 0;
        if (isfinite(C[i]) && !out[i])
            hpush(h, &hn, (hitem){ C[i], D[i], i });
    }
    while (hn) { /* increasing key: each pixel's best neighbour is labelled before it */
        hitem x = hpop(h, &hn);
        double bc = INFINITY;
        int64_t bd = 0, best = -1;
        for (int k = 0; k < g->nnb; k++) {
            int64_t j = geo_nb(g, x.i, k);
            if (j < 0 || !mask[j] || !isfinite(C[j]))
                continue;
            if (best < 0 || C[j] < bc || (C[j] == bc && D[j] < bd)) {
                bc = C[j];
                bd = D[j];
                best = j;
            }
        }
        out[x.i] = out[best];
    }
    free(h);
    free(order);
    free(D);
    free(C);
}

/* 1 when got is a valid watershed of img from mk within mask. */
static int
valid_watershed(const geo *g, const double *img, const int32_t *mk, const uint8_t *mask, const int32_t *got)
{
    int ok = 1;
    double *C = malloc(sizeof *C * (size_t)g->n), *CL = malloc(sizeof *CL * (size_t)g->n);
    int64_t *D = malloc(sizeof *D * (size_t)g->n);
    int32_t *seeds = malloc(sizeof *seeds * (size_t)g->n);
    uint8_t *own = malloc((size_t)g->n);
    flood_levels(g, img, mk, mask, C, D);
    for (int64_t i = 0; i < g->n && ok; i++) {
        if ((got[i] != 0) != (isfinite(C[i]) != 0))
            ok = 0;
        if (mk[i] && mask[i] && got[i] != mk[i])
            ok = 0;
    }
    for (int32_t lab = -8; lab <= 8 && ok; lab++) {
        if (!lab)
            continue;
        int any = 0;
        for (int64_t i = 0; i < g->n; i++) {
            own[i] = got[i] == lab;
            seeds[i] = mk[i] == lab;
            any |= own[i];
        }
        if (!any)
            continue;
        flood_levels(g, img, seeds, own, CL, D);
        for (int64_t i = 0; i < g->n; i++)
            if (own[i] && CL[i] != C[i])
                ok = 0;
    }
    free(own);
    free(seeds);
    free(D);
    free(CL);
    free(C);
    return ok;
}

/* ---- running fv_watershed on a backend -------------------------------------------- */

/* conn < 0 (3-d): the cross of a 3 x 3 x 3 footprint's middle plane (the demo's) */
static fv_status
run(fv_device dev, int nd, const int64_t *shape, const double *img, const int32_t *mk, const uint8_t *mask, int conn,
    double compactness, int wsl, int32_t *out)
{
    fv_array *hi = NULL, *hm = NULL, *hk = NULL, *ho = NULL, *di = NULL, *dm = NULL, *dk = NULL, *dout = NULL;
    uint8_t plane[27] = { 0 };
    const int64_t fsh[3] = { 3, 3, 3 };
    const uint8_t *fp = NULL;
    fv_status st;
    if (conn < 0) {
        plane[10] = plane[12] = plane[13] = plane[14] = plane[16] = 1;
        fp = plane;
        conn = 1;
    }
    if ((st = fv_array_wrap(FV_FLOAT64, nd, shape, NULL, (void *)img, CPU, NULL, NULL, &hi)) ||
        (st = fv_array_wrap(FV_INT32, nd, shape, NULL, (void *)mk, CPU, NULL, NULL, &hk)) ||
        (mask && (st = fv_array_wrap(FV_BOOL, nd, shape, NULL, (void *)mask, CPU, NULL, NULL, &hm))) ||
        (st = fv_array_wrap(FV_INT32, nd, shape, NULL, out, CPU, NULL, NULL, &ho)))
        goto done;
    if (dev.type == FV_DEVICE_CPU) {
        st = fv_watershed(ctx, hi, hk, hm, ho, conn, fp, fp ? fsh : NULL, NULL, compactness, wsl);
        goto done;
    }
    if ((st = fv_array_new(ctx, FV_FLOAT64, nd, shape, dev, &di)) || (st = fv_copy(ctx, hi, di)) ||
        (st = fv_array_new(ctx, FV_INT32, nd, shape, dev, &dk)) || (st = fv_copy(ctx, hk, dk)) ||
        (st = fv_array_new(ctx, FV_INT32, nd, shape, dev, &dout)))
        goto done;
    if (mask && ((st = fv_array_new(ctx, FV_BOOL, nd, shape, dev, &dm)) || (st = fv_copy(ctx, hm, dm))))
        goto done;
    if ((st = fv_watershed(ctx, di, dk, dm, dout, conn, fp, fp ? fsh : NULL, NULL, compactness, wsl)))
        goto done;
    st = fv_copy(ctx, dout, ho);
done:
    fv_array_unref(dout);
    fv_array_unref(dk);
    fv_array_unref(dm);
    fv_array_unref(di);
    fv_array_unref(ho);
    fv_array_unref(hk);
    fv_array_unref(hm);
    fv_array_unref(hi);
    return st;
}

#ifdef FV_TEST_CUDA
#define DEV GPU
#else
#define DEV CPU
#endif

/* ---- cases ------------------------------------------------------------------------- */

static void
test_skimage_cases(void)
{
    /* labels from scikit-image 0.26 */
    static const double im[24] = { 0, 1, 1, 2, 1, 0, 1, 1, 2, 2, 1, 1, 0, 0, 1, 1, 1, 0, 2, 1, 1, 0, 0, 1 };
    static const int32_t mk[24] = { 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0 };
    static const int32_t plain[24] = { 1, 1, 1, 2, 2, 2, 1, 4, 4, 3, 2, 2, 4, 4, 4, 3, 3, 2, 4, 4, 3, 3, 3, 3 };
    static const int32_t line[24] = { 1, 1, 1, 0, 2, 2, 0, 0, 0, 3, 0, 2, 4, 4, 0, 3, 3, 0, 4, 0, 3, 3, 3, 3 };
    static const int32_t conn2[24] = { 1, 1, 1, 2, 2, 2, 1, 1, 4, 3, 2, 2, 4, 4, 3, 3, 3, 3, 4, 4, 3, 3, 3, 3 };
    static const int32_t compact[24] = { 1, 1, 1, 2, 2, 2, 1, 4, 4, 3, 2, 2, 4, 4, 3, 3, 3, 2, 4, 4, 3, 3, 3, 3 };
    static const double flat[7] = { 0 };
    static const int32_t mk1[7] = { 1, 0, 0, 0, 0, 0, 2 }, flat1[7] = { 1, 1, 1, 1, 2, 2, 2 },
                         flatl[7] = { 1, 1, 1, 0, 2, 2, 2 };
    const int64_t sh[2] = { 4, 6 }, sh1[1] = { 7 };
    int32_t out[24];
    geo g;
    geo_init(&g, 2, sh, 1);
#ifndef FV_TEST_CUDA
    CHECK_OK(run(CPU, 2, sh, im, mk, NULL, 1, 0, 0, out));
    CHECK(!memcmp(out, plain, sizeof out));
    CHECK_OK(run(CPU, 2, sh, im, mk, NULL, 1, 0, 1, out));
    CHECK(!memcmp(out, line, sizeof out));
    CHECK_OK(run(CPU, 2, sh, im, mk, NULL, 2, 0, 0, out));
    CHECK(!memcmp(out, conn2, sizeof out));
    CHECK_OK(run(CPU, 2, sh, im, mk, NULL, 1, 1.0, 0, out));
    CHECK(!memcmp(out, compact, sizeof out));
    CHECK_OK(run(CPU, 1, sh1, flat, mk1, NULL, 1, 0, 0, out));
    CHECK(!memcmp(out, flat1, sizeof flat1));
    CHECK_OK(run(CPU, 1, sh1, flat, mk1, NULL, 1, 0, 1, out));
    CHECK(!memcmp(out, flatl, sizeof flatl));
#else
    (void)plain;
    (void)line;
    (void)conn2;
    (void)compact;
    (void)flat1;
    (void)flatl;
    CHECK_ERR(run(GPU, 2, sh, im, mk, NULL, 1, 1.0, 0, out), FV_ENOKERNEL, "compactness");
    CHECK_ERR(run(GPU, 2, sh, im, mk, NULL, 1, 0, 1, out), FV_ENOKERNEL, "watershed lines");
    CHECK_OK(run(GPU, 1, sh1, flat, mk1, NULL, 1, 0, 0, out));
    CHECK(out[0] == 1 && out[6] == 2);
#endif
    uint8_t all[24];
    memset(all, 1, sizeof all);
    CHECK_OK(run(DEV, 2, sh, im, mk, NULL, 1, 0, 0, out));
    CHECK(valid_watershed(&g, im, mk, all, out));
    ncases += 8;
}

#ifdef FV_TEST_CUDA
/* the CUDA backend's labels with its Jacobi rounds instead of the tiled relaxation */
static fv_status
run_untiled(int nd, const int64_t *shape, const double *img, const int32_t *mk, const uint8_t *mask, int conn,
            int32_t *out)
{
    tv_force("cuda.watershed", "jacobi");
    fv_status st = run(GPU, nd, shape, img, mk, mask, conn, 0, 0, out);
    tv_force("cuda.watershed", NULL);
    return st;
}
#endif

/* random image: continuous (no ties) or quantised to `levels` (plateaus);
 * conn < 0: the plane cross of run */
static void
random_case(int nd, const int64_t *shape, int levels, int conn, int use_mask, int nseeds)
{
    geo g;
    geo_init(&g, nd, shape, conn < 0 ? 1 : conn);
    if (conn < 0)
        geo_keep_plane(&g);
    const int64_t n = g.n;
    double *img = malloc(sizeof *img * (size_t)n);
    int32_t *mk = calloc((size_t)n, sizeof *mk), *out = malloc(sizeof *out * (size_t)n);
    int32_t *ref = malloc(sizeof *ref * (size_t)n);
    uint8_t *mask = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        img[i] = levels ? (double)(int)(uniform() * levels) : uniform();
        mask[i] = use_mask ? uniform() > 0.2 : 1;
    }
    for (int s = 0; s < nseeds; s++) {
        int32_t l = (int32_t)(next_u64() % 11) - 3;
        mk[next_u64() % (uint64_t)n] = l ? l : 5;
    }
    CHECK_OK(run(DEV, nd, shape, img, mk, use_mask ? mask : NULL, conn, 0, 0, out));
    CHECK(valid_watershed(&g, img, mk, mask, out));
    if (!levels) {
        reference(&g, img, mk, mask, ref);
        CHECK(!memcmp(out, ref, sizeof *out * (size_t)n));
    }
#ifdef FV_TEST_CUDA
    if (!levels) { /* and the CPU on the same case */
        CHECK_OK(run(CPU, nd, shape, img, mk, use_mask ? mask : NULL, conn, 0, 0, ref));
        CHECK(!memcmp(out, ref, sizeof *out * (size_t)n));
    }
    /* the Jacobi rounds reach the tiled relaxation's keys: the same labels, on plateaus too */
    CHECK_OK(run_untiled(nd, shape, img, mk, use_mask ? mask : NULL, conn, ref));
    CHECK(!memcmp(out, ref, sizeof *out * (size_t)n));
#endif
    ncases++;
    free(mask);
    free(ref);
    free(out);
    free(mk);
    free(img);
}

static void
test_random(void)
{
    for (int t = 0; t < 120; t++) {
        int nd = 1 + t % 3;
        int64_t shape[3];
        for (int d = 0; d < nd; d++)
            shape[d] = 2 + (int64_t)(next_u64() % (nd == 3 ? 9 : nd == 2 ? 30 : 60));
        int conn = 1 + (int)(next_u64() % (uint64_t)nd);
        random_case(nd, shape, t % 2 ? 0 : 2 + t % 5, conn, t % 3 == 0, 1 + (int)(next_u64() % 9));
    }
    /* FOVEA_TEST_CUDA_ONLY (compute-sanitizer runs; racecheck tracks every shared
     * access of the tiled sweeps): one large case of each kind, smaller volumes */
    const int reduced = getenv("FOVEA_TEST_CUDA_ONLY") != NULL;
    const int64_t big[2] = { 300, 257 }; /* many CPU heap growths / GPU blocks and tiles */
    random_case(2, big, 0, 2, 1, 40);
    if (!reduced)
        random_case(2, big, 3, 1, 0, 40);
    /* many of the GPU's 3-d tiles (8 x 8 x 16 boxes; planes of 32 x 32 for the plane cross) */
    const int64_t vol[3] = { 20, 41, 70 }, planes[3] = { 6, 100, 90 };
    const int64_t svol[3] = { 9, 19, 34 }, splanes[3] = { 3, 70, 40 };
    for (int conn = 1; conn <= 3; conn++) {
        random_case(3, reduced ? svol : vol, 0, conn, conn != 2, 30);
        random_case(3, reduced ? svol : vol, 2 + conn, conn, conn == 2, 30);
    }
    random_case(3, reduced ? splanes : planes, 0, -1, 1, 40);
    random_case(3, reduced ? splanes : planes, 3, -1, 1, 40);
    if (!reduced)
        random_case(3, planes, 2, -1, 0, 40);
    for (int t = 0; t < 12; t++) { /* small ones with the plane cross */
        int64_t shape[3] = { 1 + (int64_t)(next_u64() % 5), 2 + (int64_t)(next_u64() % 40),
                             2 + (int64_t)(next_u64() % 40) };
        random_case(3, shape, t % 2 ? 0 : 2 + t % 3, -1, t % 3 == 0, 1 + (int)(next_u64() % 9));
    }
}

static void
test_views_and_errors(void)
{
    const int64_t sh[2] = { 6, 8 }, bad[2] = { 6, 7 }, fsh[2] = { 2, 3 }, neg[2] = { -1, 1 };
    fv_array *img = NULL, *mk = NULL, *out = NULL, *o8 = NULL, *fl = NULL, *mk7 = NULL, *v = NULL, *vo = NULL;
    uint8_t fp[6] = { 1, 1, 1, 1, 1, 1 };
    CHECK_OK(fv_array_zeros(ctx, FV_UINT8, 2, sh, CPU, &img));
    CHECK_OK(fv_array_zeros(ctx, FV_INT64, 2, sh, CPU, &mk));
    CHECK_OK(fv_array_zeros(ctx, FV_INT64, 2, sh, CPU, &out));
    CHECK_OK(fv_array_zeros(ctx, FV_UINT8, 2, sh, CPU, &o8));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, sh, CPU, &fl));
    CHECK_OK(fv_array_zeros(ctx, FV_INT64, 2, bad, CPU, &mk7));
    ((int64_t *)fv_array_data(mk))[9] = 3;
    ((int64_t *)fv_array_data(mk))[40] = -2;
    CHECK_ERR(fv_watershed(ctx, NULL, mk, NULL, out, 1, NULL, NULL, NULL, 0, 0), FV_EINVAL, "NULL");
    CHECK_ERR(fv_watershed(ctx, img, mk7, NULL, out, 1, NULL, NULL, NULL, 0, 0), FV_EINVAL, "markers");
    CHECK_ERR(fv_watershed(ctx, img, mk, mk7, out, 1, NULL, NULL, NULL, 0, 0), FV_EINVAL, "mask");
    CHECK_ERR(fv_watershed(ctx, img, fl, NULL, out, 1, NULL, NULL, NULL, 0, 0), FV_EDTYPE, "markers");
    CHECK_ERR(fv_watershed(ctx, img, mk, NULL, o8, 1, NULL, NULL, NULL, 0, 0), FV_EDTYPE, "out");
    CHECK_ERR(fv_watershed(ctx, img, mk, NULL, out, 3, NULL, NULL, NULL, 0, 0), FV_EINVAL, "connectivity");
    CHECK_ERR(fv_watershed(ctx, img, mk, NULL, out, 0, NULL, NULL, NULL, 0, 0), FV_EINVAL, "connectivity");
    CHECK_ERR(fv_watershed(ctx, img, mk, NULL, out, 1, fp, fsh, NULL, 0, 0), FV_EINVAL, "centre");
    CHECK_ERR(fv_watershed(ctx, img, mk, NULL, out, 1, fp, fsh, neg, 0, 0), FV_EINVAL, "offset");
    CHECK_ERR(fv_watershed(ctx, img, mk, NULL, out, 1, NULL, NULL, NULL, NAN, 0), FV_EINVAL, "NaN");
    /* even footprint with an origin; in place (out = markers); a strided view as out */
    const int64_t org[2] = { 1, 1 };
    CHECK_OK(fv_watershed(ctx, img, mk, NULL, out, 1, fp, fsh, org, 0, 0));
    CHECK_OK(fv_watershed(ctx, img, mk, NULL, mk, 2, NULL, NULL, NULL, 0, 0));
    const int64_t *m = fv_array_data(mk);
    int ok = 1;
    for (int i = 0; i < 48; i++)
        ok &= m[i] == 3 || m[i] == -2;
    CHECK(ok && m[9] == 3 && m[40] == -2);
    const int64_t vsh[2] = { 3, 4 }, vst[2] = { 2 * 8 * 8, 2 * 8 };
    CHECK_OK(fv_array_view(out, 2, vsh, vst, 0, &vo));
    CHECK_OK(fv_array_view(img, 2, vsh, (const int64_t[2]){ 16, 2 }, 0, &v));
    fv_array *vm = NULL;
    CHECK_OK(fv_array_view(mk, 2, vsh, vst, 0, &vm));
    CHECK_OK(fv_watershed(ctx, v, vm, NULL, vo, 1, NULL, NULL, NULL, 0.5, 1));
    fv_array_unref(vm);
    /* empty */
    const int64_t esh[2] = { 0, 5 };
    fv_array *e1 = NULL, *e2 = NULL;
    CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, esh, CPU, &e1));
    CHECK_OK(fv_array_new(ctx, FV_INT32, 2, esh, CPU, &e2));
    CHECK_OK(fv_watershed(ctx, e1, e2, NULL, e2, 1, NULL, NULL, NULL, 0, 0));
    fv_array_unref(e1);
    fv_array_unref(e2);
    fv_array_unref(v);
    fv_array_unref(vo);
    fv_array_unref(mk7);
    fv_array_unref(fl);
    fv_array_unref(o8);
    fv_array_unref(out);
    fv_array_unref(mk);
    fv_array_unref(img);
    ncases += 14;
}

int
main(void)
{
#ifdef FV_TEST_CUDA
    if (!fv_cuda_available()) {
        printf("test_cuda_watershed: skipped (%s)\n", fv_cuda_unavailable_reason());
        return 77;
    }
#endif
    if (fv_context_new(&ctx)) {
        fprintf(stderr, "fv_context_new failed\n");
        return 1;
    }
    test_skimage_cases();
    test_random();
    test_views_and_errors();
    fv_context_free(ctx);
    printf("%d cases\n", ncases);
#ifdef FV_TEST_CUDA
    return fv_t_summary("test_cuda_watershed");
#else
    return fv_t_summary("test_watershed");
#endif
}
