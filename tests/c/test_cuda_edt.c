/* The CUDA EDT's banded path (src/cuda/morphology/edt.cu, edt-band.h).
 *
 * 1. Host model (runs without a GPU): the band build / pairwise merge / entry and
 *    query walk of edt-band.h, run here on the CPU on single lines, against the
 *    sequential per-line algorithm (scipy's, as edt-cpu.c and the per-line kernel
 *    run it): the same site and the same delta bits at every position, for many
 *    band widths, samplings (exact ones: the banded path's condition), site
 *    densities and offsets made to tie (all zero, tiny integers, squares).
 * 2. GPU (exits 77 after the model when there is none): the default path (for
 *    distances alone the last axis first on squared-distance planes, else the
 *    banded last axis on transposed planes), the banded feature path without the
 *    transposition (variant "banded" of "cuda.distance_transform_edt"), the
 *    per-line path ("lines") and the CPU backend bit for bit, distances
 *    and indices (int32 / int64), sampling None, exact anisotropic and inexact
 *    anisotropic (the per-line path serves it), every return combination, strided
 *    outputs, random images of many densities (all ones, all zeros, one zero,
 *    sparse zeros), 1-d to 4-d. FOVEA_TEST_CUDA_ONLY=1 (compute-sanitizer runs)
 *    skips the model and the largest shapes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "cuda/morphology/edt-band.h"
#define FV_T_SEED 0x9e3779b97f4a7c15ull
#include "harness.h" /* check.h, variant-force.h, xorshift.h, arrays, devices */

/* ---- 1. the host model ------------------------------------------------------------- */

/* The sequential algorithm on one line: site[i] < 0 where no site. */
static void
seq_line(int64_t n, const int32_t *has, const double *wr, double sd, int32_t *osite, double *odelta)
{
    int32_t *gs = malloc(sizeof *gs * (size_t)(n + 1));
    double *sw = malloc(sizeof *sw * (size_t)(n + 1));
    int64_t l = -1;
    for (int64_t i = 0; i < n; i++) {
        if (!has[i])
            continue;
        double wR = wr[i], fd = (double)i;
        while (l >= 1) {
            double f1 = (double)gs[l];
            double A = (f1 - (double)gs[l - 1]) * sd;
            double B = (fd - f1) * sd;
            double C = A + B;
            double uR = sw[l - 1], vR = sw[l];
            double v = C * vR - B * uR - A * wR - A * B * C;
            if (v <= 0.0)
                break;
            --l;
        }
        ++l;
        gs[l] = (int32_t)i;
        sw[l] = wR;
    }
    const int64_t maxl = l;
    if (maxl < 0) {
        for (int64_t i = 0; i < n; i++)
            osite[i] = -1, odelta[i] = -1.0;
        free(gs);
        free(sw);
        return;
    }
    l = 0;
    int64_t site = gs[0];
    double s = sw[0];
    for (int64_t i = 0; i < n; i++) {
        double t = (double)(site - i) * sd;
        double delta1 = s + t * t;
        while (l < maxl) {
            int64_t s2 = gs[l + 1];
            double w2 = sw[l + 1];
            double t2 = (double)(s2 - i) * sd;
            double delta2 = w2 + t2 * t2;
            if (delta1 <= delta2)
                break;
            delta1 = delta2;
            site = s2;
            s = w2;
            ++l;
        }
        osite[i] = (int32_t)site;
        odelta[i] = delta1;
    }
    free(gs);
    free(sw);
}

/* The banded path on one line, as edt.cu's kernels run it (st = 1). */
static void
band_line(int64_t n, int64_t W, const int32_t *has, const double *wr, double sd, int32_t *osite, double *odelta)
{
    const int64_t nb = (n + W - 1) / W;
    int32_t *prv = malloc(sizeof(int32_t) * (size_t)n), *nxt = malloc(sizeof(int32_t) * (size_t)n);
    double *swr = malloc(sizeof(double) * (size_t)n);
    int32_t *hd = malloc(sizeof(int32_t) * (size_t)nb), *tl = malloc(sizeof(int32_t) * (size_t)nb);
    int32_t *ll = malloc(sizeof(int32_t) * (size_t)nb);
    for (int64_t i = 0; i < n; i++)
        nxt[i] = 0x7eadbeef, swr[i] = NAN; /* never to be read for non-sites */
    const fv__edt_list l = { prv, nxt, swr, 1 };
    for (int64_t b = 0; b < nb; b++) { /* build */
        int32_t top = -1;
        double topR = 0.0;
        for (int64_t i = b * W; i < n && i < (b + 1) * W; i++) {
            if (!has[i]) {
                prv[i] = FV_EDT_DEAD;
                continue;
            }
            fv__edt_push(&l, (int32_t)i, wr[i], sd, &top, &topR);
        }
        hd[b] = fv__edt_close(&l, top);
        tl[b] = top;
    }
    for (int64_t span = 1; span < nb; span *= 2) /* merges, level by level */
        for (int64_t bl = 0; bl + span < nb; bl += 2 * span) {
            int32_t h, e;
            fv__edt_merge(&l, hd[bl], tl[bl], hd[bl + span], tl[bl + span], sd, &h, &e);
            hd[bl] = h;
            tl[bl] = e;
        }
    for (int64_t b = 0; b < nb; b++) { /* last site per band, then before each band */
        ll[b] = -1;
        for (int64_t i = (b + 1) * W < n ? (b + 1) * W - 1 : n - 1; i >= b * W; i--)
            if (prv[i] != FV_EDT_DEAD) {
                ll[b] = (int32_t)i;
                break;
            }
    }
    for (int64_t b = 0, run = -1; b < nb; b++) {
        int32_t v = ll[b];
        ll[b] = (int32_t)run;
        if (v >= 0)
            run = v;
    }
    for (int64_t b = 0; b < nb; b++) { /* queries */
        int64_t i0 = b * W, i1 = (b + 1) * W < n ? (b + 1) * W : n;
        int32_t e = ll[b] >= 0 ? ll[b] : hd[0];
        if (e < 0) {
            for (int64_t i = i0; i < i1; i++)
                osite[i] = -1, odelta[i] = -1.0;
            continue;
        }
        int32_t site = fv__edt_entry(&l, e, i0, sd), s2;
        double sw = swr[site];
        for (int64_t i = i0; i < i1; i++) {
            double delta1 = fv__edt_delta(site, i, sw, sd);
            while ((s2 = nxt[site]) >= 0) {
                double delta2 = fv__edt_delta(s2, i, swr[s2], sd);
                if (delta1 <= delta2)
                    break;
                delta1 = delta2;
                site = s2;
                sw = swr[s2];
            }
            osite[i] = site;
            odelta[i] = delta1;
        }
    }
    free(prv);
    free(nxt);
    free(swr);
    free(hd);
    free(tl);
    free(ll);
}

static int model_cases;

static void
model_case(int64_t n, int64_t W, double dens, int wmode, double sd)
{
    int32_t *has = malloc(sizeof(int32_t) * (size_t)n), *s1 = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *s2 = malloc(sizeof(int32_t) * (size_t)n);
    double *wr = malloc(sizeof(double) * (size_t)n), *d1 = malloc(sizeof(double) * (size_t)n);
    double *d2 = malloc(sizeof(double) * (size_t)n);
    const double s0 = wmode == 4 ? 0.5 : wmode == 5 ? 3.0 : 1.0; /* an earlier axis' sampling */
    int64_t one = irand(0, n - 1);
    for (int64_t i = 0; i < n; i++) {
        has[i] = dens < 0 ? i == one : uniform() < dens;
        int64_t k;
        switch (wmode) {
        case 0:
            wr[i] = 0.0;
            break; /* all zeros on the line */
        case 1:
            wr[i] = (double)irand(0, 2);
            break; /* tiny: many ties */
        case 2:
            k = irand(0, 3);
            wr[i] = (double)(k * k);
            break; /* squares */
        case 3:
            k = irand(0, n);
            wr[i] = (double)(k * k);
            break; /* long envelopes */
        case 4:
        case 5: { /* two earlier axes, as the kernel sums them */
            double a = (double)irand(-4, 4) * s0, b = (double)irand(-20, 20) * 2.0;
            wr[i] = a * a + b * b;
            break;
        }
        default:
            wr[i] = (double)((i % 3) * (i % 3));
            break; /* periodic */
        }
    }
    seq_line(n, has, wr, sd, s1, d1);
    band_line(n, W, has, wr, sd, s2, d2);
    int ok = memcmp(s1, s2, sizeof(int32_t) * (size_t)n) == 0 && memcmp(d1, d2, sizeof(double) * (size_t)n) == 0;
    if (!ok) {
        int64_t i = 0;
        while (i < n && s1[i] == s2[i] && memcmp(&d1[i], &d2[i], sizeof(double)) == 0)
            i++;
        fprintf(stderr, "model: n=%lld W=%lld dens=%g wmode=%d sd=%g: at %lld site %d / %d delta %.17g / %.17g\n",
                (long long)n, (long long)W, dens, wmode, sd, (long long)i, s1[i], s2[i], d1[i], d2[i]);
    }
    CHECK(ok);
    model_cases++;
    free(has);
    free(s1);
    free(s2);
    free(wr);
    free(d1);
    free(d2);
}

static void
test_model(void)
{
    static const int64_t widths[] = { 1, 2, 3, 4, 5, 8, 16, 32, 64, 128 };
    static const double sds[] = { 1.0, 2.0, 0.5, 0.25, 3.0 };
    static const double dens[] = { -1.0, 0.0, 0.02, 0.3, 0.7, 0.95, 1.0 };
    for (int t = 0; t < 6000; t++) {
        int64_t n = t % 10 == 0 ? irand(200, 1200) : irand(1, 160);
        model_case(n, widths[irand(0, 9)], dens[irand(0, 6)], (int)irand(0, 6), sds[irand(0, 4)]);
    }
    for (int wm = 0; wm < 7; wm++) /* long lines, narrow bands: deep merges */
        for (int k = 0; k < 4; k++)
            model_case(5000, k == 0 ? 1 : k == 1 ? 7 : k == 2 ? 16 : 128, wm == 3 ? 0.05 : 0.8, wm, sds[k]);
    printf("test_cuda_edt: %d model lines\n", model_cases);
}

/* ---- 2. the GPU against the per-line path and the CPU ------------------------------- */

static int gpu_cases;

/* One run: returns host copies of distances / indices (or NULL). layout 1: the
 * distances as a strided view (every other element of a bigger array). */
static void
run_edt(const fv_array *hin, fv_device dev, const double *samp, int want_d, int want_i, fv_dtype xdt, int layout,
        fv_array **dist_h, fv_array **ind_h)
{
    const int nd = fv_array_ndim(hin);
    const int64_t *shape = fv_array_shape(hin);
    int64_t ishape[FV_MAX_NDIM + 1], bshape[FV_MAX_NDIM], str[FV_MAX_NDIM];
    ishape[0] = nd;
    memcpy(ishape + 1, shape, sizeof(int64_t) * (size_t)nd);
    fv_array *in = (fv_array *)hin, *dist = NULL, *dbase = NULL, *ind = NULL;
    if (dev.type == FV_DEVICE_CUDA) {
        in = new_array(fv_array_dtype(hin), nd, shape, dev);
        CHECK_OK(fv_copy(ctx, hin, in));
    }
    if (want_d) {
        if (layout == 1 && nd >= 1) {
            memcpy(bshape, shape, sizeof(int64_t) * (size_t)nd);
            bshape[nd - 1] = 2 * shape[nd - 1];
            dbase = new_array(FV_FLOAT64, nd, bshape, dev);
            int64_t s = 8;
            for (int a = nd - 1; a >= 0; a--) {
                str[a] = a == nd - 1 ? 16 : s;
                s *= bshape[a];
            }
            CHECK_OK(fv_array_view(dbase, nd, shape, str, 8, &dist));
        } else
            dist = new_array(FV_FLOAT64, nd, shape, dev);
    }
    if (want_i)
        ind = new_array(xdt, nd + 1, ishape, dev);
    CHECK_OK(fv_distance_transform_edt(ctx, in, samp, dist, ind));
    *dist_h = dist ? (dev.type == FV_DEVICE_CUDA ? to_host(dist) : fv_array_ref(dist)) : NULL;
    *ind_h = ind ? (dev.type == FV_DEVICE_CUDA ? to_host(ind) : fv_array_ref(ind)) : NULL;
    if (in != hin)
        fv_array_unref(in);
    fv_array_unref(dist);
    fv_array_unref(dbase);
    fv_array_unref(ind);
}

static int
same(const fv_array *a, const fv_array *b)
{
    if (!a || !b)
        return a == b;
    return fv_array_nbytes(a) == fv_array_nbytes(b) &&
        memcmp(fv_array_data(a), fv_array_data(b), (size_t)fv_array_nbytes(a)) == 0;
}

/* kind: 0 random of density dens (of ones), 1 all ones, 2 all zeros, 3 one zero,
 * 4 a few zeros (sparse: long envelopes, many ties). */
static void
gpu_case(int nd, const int64_t *shape, int kind, double dens, int sampmode, int want_d, int want_i, fv_dtype xdt,
         int layout)
{
    fv_dtype idt = (gpu_cases & 1) ? FV_BOOL : FV_UINT8;
    fv_array *hin = new_array(idt, nd, shape, CPU);
    const int64_t n = fv_array_size(hin);
    uint8_t *px = fv_array_data(hin);
    for (int64_t i = 0; i < n; i++)
        px[i] = kind == 0 ? uniform() < dens : kind == 2 ? 0 : 1;
    if (kind == 3 && n)
        px[irand(0, n - 1)] = 0;
    if (kind == 4)
        for (int k = 0; k < 1 + (int)(n / 5000); k++)
            px[irand(0, n - 1)] = 0;
    double samp[FV_MAX_NDIM];
    for (int a = 0; a < nd; a++) /* 1: exact anisotropic (banded); 2: inexact (per-line) */
        samp[a] = sampmode == 1 ? (a % 3 == 0 ? 2.0 : a % 3 == 1 ? 0.5 : 1.0) : 0.7 + 0.37 * a;
    const double *sp = sampmode ? samp : NULL;
    fv_array *dn, *in_, *dl, *il, *dc, *ic, *dt, *it;
    /* the local search's reach: 2 (most elements left to the envelope), none, or the
     * default (where distances alone apply; the planner falls to the feature planes
     * elsewhere) */
    if (gpu_cases % 3)
        tv_force("cuda.distance_transform_edt", gpu_cases % 3 == 1 ? "dist_local2" : "dist_envelope");
    run_edt(hin, GPU, sp, want_d, want_i, xdt, layout, &dn, &in_);
    tv_force("cuda.distance_transform_edt", NULL);
    /* the banded path on feature planes (not the distances-only path), the last
     * axis without the transposition */
    tv_force("cuda.distance_transform_edt", "banded");
    run_edt(hin, GPU, sp, want_d, want_i, xdt, layout, &dt, &it);
    tv_force("cuda.distance_transform_edt", "lines");
    run_edt(hin, GPU, sp, want_d, want_i, xdt, 0, &dl, &il);
    tv_force("cuda.distance_transform_edt", NULL);
    run_edt(hin, CPU, sp, want_d, want_i, xdt, 0, &dc, &ic);
    int ok = same(dn, dl) && same(in_, il) && same(dn, dc) && same(in_, ic) && same(dn, dt) && same(in_, it);
    if (!ok) {
        fprintf(stderr, "edt %dd [", nd);
        for (int a = 0; a < nd; a++)
            fprintf(stderr, "%s%lld", a ? "x" : "", (long long)shape[a]);
        fprintf(stderr,
                "] kind=%d dens=%g samp=%d d=%d i=%d %s layout=%d: new/lines %d %d new/cpu %d %d new/notr %d %d\n",
                kind, dens, sampmode, want_d, want_i, fv_dtype_name(xdt), layout, same(dn, dl), same(in_, il),
                same(dn, dc), same(in_, ic), same(dn, dt), same(in_, it));
    }
    CHECK(ok);
    gpu_cases++;
    fv_array *all[] = { hin, dn, in_, dl, il, dc, ic, dt, it };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        fv_array_unref(all[k]);
}

static void
test_gpu(int small)
{
    static const double dens[] = { 0.3, 0.7, 0.95, 0.995 };
    static const int64_t s1[][1] = { { 1 }, { 2 }, { 17 }, { 1000 }, { 100000 } };
    static const int64_t s2[][2] = { { 1, 1 },     { 1, 300 }, { 300, 1 },    { 17, 33 },
                                     { 130, 257 }, { 2, 700 }, { 1000, 1000 } };
    static const int64_t s3[][3] = { { 1, 1, 5 }, { 3, 17, 33 }, { 17, 1, 9 }, { 20, 21, 22 }, { 64, 64, 64 } };
    static const int64_t s4[][4] = { { 2, 3, 4, 5 }, { 5, 1, 7, 9 }, { 9, 10, 11, 12 } };
    for (int t = 0; t < 240; t++) {
        int nd = 1 + t % 4, kind = (t / 4) % 8;
        kind = kind > 4 ? 0 : kind;
        const int64_t *shape;
        int64_t big;
        switch (nd) {
        case 1:
            shape = s1[(t / 4) % 5];
            big = shape[0] >= 100000;
            break;
        case 2:
            shape = s2[(t / 4) % 7];
            big = shape[0] == 1000;
            break;
        case 3:
            shape = s3[(t / 4) % 5];
            big = shape[0] == 64;
            break;
        default:
            shape = s4[(t / 4) % 3];
            big = 0;
            break;
        }
        if (big && (small || t % 3))
            continue; /* the large shapes a few times only */
        if (small && t % 2)
            continue;      /* compute-sanitizer: half the cases */
        int which = t % 3; /* distances, indices, both */
        gpu_case(nd, shape, kind, dens[(t / 7) % 4], (t / 2) % 3, which != 1, which != 0,
                 t % 5 < 2 ? FV_INT64 : FV_INT32, t % 7 == 0);
    }
    /* the benchmark's shapes, smaller: long lines on every axis */
    int64_t wide[2] = { 216, 3840 }, tall[2] = { 3840, 216 };
    for (int k = 0; k < (small ? 1 : 5); k++) {
        gpu_case(2, wide, k, 0.5, 0, 1, 1, FV_INT32, 0);
        gpu_case(2, tall, k, 0.999, 0, 1, 1, FV_INT64, 0);
        /* distances alone (the last-axis-first path), runs longer than FV_CU_EDT_SEG */
        int64_t cube[3] = { 9, 40, 333 };
        gpu_case(2, wide, k, 0.5, k % 2, 1, 0, FV_INT32, k == 1);
        gpu_case(3, cube, k, k == 4 ? 0.9999 : 0.97, k % 2, 1, 0, FV_INT32, k == 2);
    }
    printf("test_cuda_edt: %d GPU cases\n", gpu_cases);
}

int
main(void)
{
    const int cuda_only = getenv("FOVEA_TEST_CUDA_ONLY") != NULL;
    if (!cuda_only)
        test_model();
    if (!fv_cuda_available()) {
        printf("test_cuda_edt: GPU part skipped: %s\n", fv_cuda_unavailable_reason());
        fv_t_summary("test_cuda_edt");
        return fv_t_fail ? 1 : 77;
    }
    CHECK_OK(fv_context_new(&ctx));
    test_gpu(cuda_only);
    fv_context_free(ctx);
    return fv_t_summary("test_cuda_edt");
}
