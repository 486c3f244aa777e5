/* The tiled 3-D correlation kernel (src/cuda/filters/filternd-corr3d.cu), bit
 * for bit against:
 *  - a host model of that kernel (tiles of 32 x 8 x 8 outputs, the tile and
 *    halo loaded with the mode applied, 8 planes per thread walked front to
 *    back, the K x K x K weight box), which runs without a GPU too;
 *  - a direct host model of the generic kernel (fv_k_flt_nd_correlate: per output
 *    the selected elements in C order (z, y, x), from 0, t = t + w * x in
 *    double without contraction, or for float32 outputs of float32 and 8/16-bit
 *    data in float with the product fused);
 *  - the generic CUDA kernel (variant "generic" of "cuda.filternd"): every bit, a NaN's sign aside;
 *  - the CPU backend: bit for bit where the GPU sums in double (NaN: any
 *    payload); float sums of float32 outputs within 1e-5 of the magnitude.
 * Kernels are called through fv__dispatch with filled parameters. Weights mix
 * zeros, tiny values (|w| <= DBL_EPSILON, never selected), NaN, +-inf, negative
 * and integer values; float data hold NaN, +-inf, -0.0. Dtype pairs outside the
 * tiled path's six (and spans over 5) run the generic kernel both ways.
 *
 * Without a GPU only the host models and the CPU backend run (and the test
 * passes on them). FOVEA_TEST_CUDA_ONLY=1 keeps a quarter of the random cases
 * and drops the 64^3 ones. FOVEA_CORR3D_BENCH=1 adds timings (3^3 and 5^3,
 * 256^3, tiled vs generic). */
#define CFC_TEST_NAME "test_cuda_corr3d"
#define CFC_UNTILED 1
#define CFC_CORRELATE
#include <cuda_runtime_api.h>

#include "internal.h"
#include "ops/filters/sep2.h"
#include "ops/filters/filternd.h"
#include "ops/morphology/binary-erosion.h"
#include "ops/morphology/distance.h"
#include "ops/filters/ndimage-math.h"
#define FV_T_SEED 0x2545f4914f6cdd1dull
#define HX_SCIPY_MODEL
#include "harness.h" /* check.h, variant-force.h, xorshift.h; the sections the macros above turn on */

/* ---- the models (h: contiguous 3-d host array) ------------------------------------------ */

static int64_t
load_off(const fv_array *h, const fv__filternd_params *p, const int64_t *pos, const int64_t *dd, int *ok)
{
    const int64_t *sh = fv_array_shape(h);
    int64_t off = 0;
    for (int d = 0; d < 3; d++) {
        int64_t q = fv__extend_index(pos[d] + dd[d], sh[d], p->mode);
        if (q < 0) {
            *ok = 0;
            return 0;
        }
        off = off * sh[d] + q;
    }
    *ok = 1;
    return off;
}

/* The generic kernel: bits[i] the output element's bits, mag[i] sum |w * x|. */
static void
ref_direct(const fv_array *h, const fv__filternd_params *p, fv_dtype odt, uint64_t *bits, double *mag)
{
    fv_dtype dt = fv_array_dtype(h);
    const int64_t *sh = fv_array_shape(h);
    const int64_t *f = p->fshape, fsize = f[0] * f[1] * f[2];
    const int accf = acc_float(dt, odt);
    int64_t pos[3], i = 0;
    for (pos[0] = 0; pos[0] < sh[0]; pos[0]++)
        for (pos[1] = 0; pos[1] < sh[1]; pos[1]++)
            for (pos[2] = 0; pos[2] < sh[2]; pos[2]++, i++) {
                double t = 0.0, m = 0.0;
                float tf = 0.0f;
                for (int64_t j = 0; j < fsize; j++) {
                    if (!selected(p, j))
                        continue;
                    int64_t dd[3] = { j / (f[1] * f[2]) - f[0] / 2 - p->origins[0],
                                      (j / f[2]) % f[1] - f[1] / 2 - p->origins[1],
                                      j % f[2] - f[2] / 2 - p->origins[2] };
                    int ok;
                    int64_t off = load_off(h, p, pos, dd, &ok);
                    double v = ok ? m_tod(dt, m_load(h, off)) : p->cval;
                    if (accf)
                        tf = fmaf((float)p->weights[j], (float)v, tf);
                    else
                        t = t + p->weights[j] * v;
                    m += fabs(p->weights[j] * v);
                }
                bits[i] = accf ? f32_bits(tf) : m_store_nd(odt, t);
                mag[i] = m;
            }
}

#define TBX 32
#define TBY 8
#define TPZ 8
#define KMAX 5

/* The box side the tiled kernel takes (3 or 5), 0 past a span of 5; dmin the box origin. */
static int
box_k(const fv__filternd_params *p, int64_t *dmin)
{
    const int64_t *f = p->fshape;
    int64_t dmax[3] = { INT64_MIN, INT64_MIN, INT64_MIN }, m = 0;
    for (int d = 0; d < 3; d++)
        dmin[d] = INT64_MAX;
    for (int64_t j = 0; j < f[0] * f[1] * f[2]; j++) {
        if (!selected(p, j))
            continue;
        int64_t dd[3] = { j / (f[1] * f[2]) - f[0] / 2 - p->origins[0], (j / f[2]) % f[1] - f[1] / 2 - p->origins[1],
                          j % f[2] - f[2] / 2 - p->origins[2] };
        for (int e = 0; e < 3; e++) {
            dmin[e] = dd[e] < dmin[e] ? dd[e] : dmin[e];
            dmax[e] = dd[e] > dmax[e] ? dd[e] : dmax[e];
        }
    }
    for (int d = 0; d < 3; d++)
        if (dmax[d] - dmin[d] + 1 > m)
            m = dmax[d] - dmin[d] + 1;
    return m > KMAX ? 0 : m <= 3 ? 3 : 5;
}

/* The tiled kernel step by step; returns 0 where it does not apply (span > 5). */
static int
ref_tiled(const fv_array *h, const fv__filternd_params *p, fv_dtype odt, uint64_t *bits)
{
    fv_dtype dt = fv_array_dtype(h);
    const int64_t *sh = fv_array_shape(h), *f = p->fshape;
    const int accf = acc_float(dt, odt);
    int64_t dmin[3];
    const int K = box_k(p, dmin);
    if (!K)
        return 0;
    double wt[KMAX * KMAX * KMAX];
    float wf[KMAX * KMAX * KMAX];
    memset(wt, 0, sizeof wt);
    memset(wf, 0, sizeof wf);
    unsigned rows = 0;
    for (int64_t j = 0; j < f[0] * f[1] * f[2]; j++) {
        if (!selected(p, j))
            continue;
        int bz = (int)(j / (f[1] * f[2]) - f[0] / 2 - p->origins[0] - dmin[0]);
        int by = (int)((j / f[2]) % f[1] - f[1] / 2 - p->origins[1] - dmin[1]);
        int bx = (int)(j % f[2] - f[2] / 2 - p->origins[2] - dmin[2]);
        wt[(bz * K + by) * K + bx] = p->weights[j];
        wf[(bz * K + by) * K + bx] = (float)p->weights[j];
        rows |= 1u << (bz * K + by);
    }
    const int SW = TBX + K - 1, SH = TBY + K - 1, SD = TPZ + K - 1;
    double *s = malloc((size_t)(SW * SH * SD) * sizeof(double));
    float *sf = malloc((size_t)(SW * SH * SD) * sizeof(float));
    const int64_t D = sh[0], H = sh[1], W = sh[2];
    for (int64_t z0 = 0; z0 < D; z0 += TPZ)
        for (int64_t y0 = 0; y0 < H; y0 += TBY)
            for (int64_t x0 = 0; x0 < W; x0 += TBX) {
                for (int sz = 0; sz < SD; sz++)
                    for (int sy = 0; sy < SH; sy++)
                        for (int sx = 0; sx < SW; sx++) {
                            int64_t pos[3] = { z0, y0, x0 }, dd[3] = { dmin[0] + sz, dmin[1] + sy, dmin[2] + sx };
                            int ok;
                            int64_t off = load_off(h, p, pos, dd, &ok);
                            double v = ok ? m_tod(dt, m_load(h, off)) : p->cval;
                            s[(sz * SH + sy) * SW + sx] = v;
                            sf[(sz * SH + sy) * SW + sx] = (float)v;
                        }
                for (int ty = 0; ty < TBY; ty++)
                    for (int tx = 0; tx < TBX; tx++) {
                        const int64_t x = x0 + tx, y = y0 + ty;
                        if (x >= W || y >= H)
                            continue;
                        double acc[TPZ];
                        float accf_[TPZ];
                        for (int q = 0; q < TPZ; q++) {
                            acc[q] = 0.0;
                            accf_[q] = 0.0f;
                        }
                        for (int r = 0; r < SD; r++)
                            for (int ky = 0; ky < K; ky++)
                                for (int q = 0; q < TPZ; q++) {
                                    int kz = r - q;
                                    if (kz < 0 || kz >= K || !((rows >> (kz * K + ky)) & 1u))
                                        continue;
                                    for (int kx = 0; kx < K; kx++) {
                                        int idx = (r * SH + ty + ky) * SW + tx + kx, wi = (kz * K + ky) * K + kx;
                                        if (accf) {
                                            if (wf[wi] != 0.0f)
                                                accf_[q] = fmaf(wf[wi], sf[idx], accf_[q]);
                                        } else if (wt[wi] != 0.0) {
                                            acc[q] = acc[q] + wt[wi] * s[idx];
                                        }
                                    }
                                }
                        for (int q = 0; q < TPZ; q++)
                            if (z0 + q < D)
                                bits[((z0 + q) * H + y) * W + x] = accf ? f32_bits(accf_[q]) : m_store_nd(odt, acc[q]);
                    }
            }
    free(s);
    free(sf);
    return 1;
}

/* the pairs the tiled 3-D kernel takes (filternd-corr3d.cu fv_cu_flt_corr3d_run) */
static int
fast_pair(fv_dtype i, fv_dtype o)
{
    int af = acc_float(i, o);
    return (i == FV_FLOAT32 && af) || i == FV_FLOAT64 || i == FV_UINT8 || ((i == FV_UINT16 || i == FV_INT16) && !af);
}

/* ---- arrays ---------------------------------------------------------------------- */

/* ---- one case --------------------------------------------------------------------- */

typedef struct ccase {
    fv_dtype idt, odt;
    int64_t shape[3], fshape[3], origins[3];
    int mode;
    double cval;
    int lin, lout, specials, wide;
    int wkind;         /* 0 dense random, 1 with zeros / tiny / NaN / inf, 2 small integers */
    double fp_density; /* < 1: a random footprint */
    int center_only;   /* only the central 3x3x3 of the window selected (a large fshape, small span) */
} ccase;

static const char *mode_names[] = { "reflect", "constant", "nearest", "mirror", "wrap" };

static void
run_case(const ccase *c)
{
    char what[400];
    const int64_t n = c->shape[0] * c->shape[1] * c->shape[2], fsize = c->fshape[0] * c->fshape[1] * c->fshape[2];
    uint8_t *fp = malloc((size_t)fsize);
    double *w = malloc((size_t)fsize * sizeof(double));
    uint64_t *direct = malloc((size_t)n * sizeof(uint64_t)), *tiled = malloc((size_t)n * sizeof(uint64_t));
    double *mag = malloc((size_t)n * sizeof(double));
    fv_array *hb = NULL, *hin = NULL, *hc = NULL, *db = NULL, *din = NULL;
    if (!fp || !w || !direct || !tiled || !mag)
        goto done;
    int use_fp = c->fp_density < 1.0 || c->center_only;
    for (int64_t j = 0; j < fsize; j++) {
        fp[j] = c->fp_density < 1.0 ? uniform_in(0, 1) < c->fp_density : 1;
        if (c->center_only) {
            int64_t a = j / (c->fshape[1] * c->fshape[2]) - c->fshape[0] / 2;
            int64_t b = (j / c->fshape[2]) % c->fshape[1] - c->fshape[1] / 2, e = j % c->fshape[2] - c->fshape[2] / 2;
            fp[j] = a >= -1 && a <= 1 && b >= -1 && b <= 1 && e >= -1 && e <= 1;
        }
        double v = uniform_in(-1.0, 1.0);
        if (c->wkind == 1) {
            int r = (int)irand(0, 19);
            static const double tiny[] = { 0.0, -0.0, 1e-17, -1e-17, DBL_EPSILON, -DBL_EPSILON, 1e-300, NAN };
            if (r < 6)
                v = tiny[irand(0, 7)];
            else if (r == 6)
                v = irand(0, 1) ? INFINITY : -INFINITY;
            else if (r == 7)
                v = 2.2204460492503136e-16; /* just above DBL_EPSILON: selected */
            else if (r == 8)
                v = 1e300;
        } else if (c->wkind == 2) {
            v = (double)irand(-4, 4);
            if (v == 0)
                v = 1;
        }
        w[j] = v;
    }
    { /* one element selected for sure */
        int64_t sel = c->center_only ? fsize / 2 : irand(0, fsize - 1);
        fp[sel] = 1;
        if (!(fabs(w[sel]) > DBL_EPSILON))
            w[sel] = 0.75;
    }
    fv__filternd_params p;
    memset(&p, 0, sizeof p);
    p.kind = FV__FND_CORRELATE;
    p.mode = c->mode;
    p.cval = c->cval;
    p.ndim = 3;
    for (int d = 0; d < 3; d++) {
        p.fshape[d] = c->fshape[d];
        p.origins[d] = c->origins[d];
    }
    p.footprint = use_fp ? fp : NULL;
    p.weights = w;
    int bigw = 0;
    for (int64_t j = 0; j < fsize; j++) {
        p.count += selected(&p, j);
        bigw |= selected(&p, j) && fabs(w[j]) > FLT_MAX;
    }
    const int accf = acc_float(c->idt, c->odt);
    int64_t dmin[3];
    const int reach = box_k(&p, dmin) && fast_pair(c->idt, c->odt);
    snprintf(what, sizeof what,
             "correlate %s->%s shape=(%lld,%lld,%lld) fshape=(%lld,%lld,%lld) "
             "origins=(%lld,%lld,%lld) count=%lld mode=%s cval=%g layout=%d/%d sp=%d wide=%d wkind=%d fp=%g "
             "center=%d%s%s",
             fv_dtype_name(c->idt), fv_dtype_name(c->odt), (long long)c->shape[0], (long long)c->shape[1],
             (long long)c->shape[2], (long long)c->fshape[0], (long long)c->fshape[1], (long long)c->fshape[2],
             (long long)c->origins[0], (long long)c->origins[1], (long long)c->origins[2], (long long)p.count,
             mode_names[c->mode], c->cval, c->lin, c->lout, c->specials, c->wide, c->wkind, c->fp_density,
             c->center_only, accf ? " (float sums)" : "", reach ? " [tiled]" : " [generic]");
    snprintf(current, sizeof current, "%s", what);

    hin = make_view(c->idt, 3, c->shape, c->lin, CPU, &hb);
    if (!hin)
        goto done;
    fill(hb ? hb : hin, c->specials, c->wide);
    hc = to_host(hin);
    if (!hc)
        goto done;
    ref_direct(hc, &p, c->odt, direct, mag);
    int tiles = ref_tiled(hc, &p, c->odt, tiled);
    ntiled += reach;
    if (tiles) {
        fv_array *mt = bits_array(c->odt, 3, c->shape, tiled);
        if (mt)
            CHECK(cmp_bits(mt, direct, 0, what, "tile model vs direct model")); /* host NaN signs vary */
        fv_array_unref(mt);
    }
    if (cpu_kernels != 0) { /* the CPU backend into a view of the output layout */
        fv_array *ob = NULL, *hout = make_view(c->odt, 3, c->shape, c->lout, CPU, &ob), *hg = NULL;
        fv__op_args a = { .in = hin, .out = hout, .in2 = NULL, .params = &p };
        fv_status st = hout ? fv__dispatch(NULL, FV__OP_FILTERND, &a) : FV_ENOMEM;
        if (st == FV_ENOKERNEL) {
            cpu_kernels = 0;
        } else {
            cpu_kernels = 1;
            CHECK_OK(st);
            if (st == FV_OK && (hg = to_host(hout)))
                CHECK(accf ? cmp_close(hg, direct, mag, bigw, what, "cpu vs model")
                           : cmp_bits(hg, direct, 0, what, "cpu vs model"));
        }
        fv_array_unref(hg);
        fv_array_unref(hout);
        fv_array_unref(ob);
    }
    if (have_gpu) {
        din = make_view(c->idt, 3, c->shape, c->lin, GPU, &db);
        fv_array *ob = NULL, *dout = make_view(c->odt, 3, c->shape, c->lout, GPU, &ob);
        fv_array *ub = NULL, *uout = make_view(c->odt, 3, c->shape, c->lout, GPU, &ub);
        fv_array *got = NULL, *ug = NULL;
        if (din && dout && uout) {
            CHECK_OK(fv_copy(ctx, hb ? hb : hin, db ? db : din));
            fv__op_args a = { .in = din, .out = dout, .in2 = NULL, .params = &p };
            fv__op_args au = { .in = din, .out = uout, .in2 = NULL, .params = &p };
            fv_status st = fv__dispatch(ctx, FV__OP_FILTERND, &a), su = dispatch_untiled(ctx, &au);
            if (st != FV_OK || su != FV_OK) {
                fv_t_fail++;
                fprintf(stderr, "%s: cuda -> %s / untiled %s: %s\n", what, fv_status_name(st), fv_status_name(su),
                        fv_error_message());
            } else if ((got = to_host(dout)) && (ug = to_host(uout))) {
                CHECK(cmp_bits(got, direct, 0, what, "cuda vs direct model"));
                if (tiles)
                    CHECK(cmp_bits(got, tiled, 0, what, "cuda vs tile model"));
                /* the generic kernel, every bit but a NaN's sign */
                uint64_t *ub_ = array_bits(ug);
                if (ub_)
                    CHECK(cmp_bits(got, ub_, 0, what, "tiled vs generic"));
                free(ub_);
            }
        }
        fv_array_unref(got);
        fv_array_unref(ug);
        fv_array_unref(dout);
        fv_array_unref(ob);
        fv_array_unref(uout);
        fv_array_unref(ub);
    }
    ncases++;
done:
    fv_array_unref(hc);
    fv_array_unref(hin);
    fv_array_unref(hb);
    fv_array_unref(din);
    fv_array_unref(db);
    free(fp);
    free(w);
    free(direct);
    free(tiled);
    free(mag);
}

/* ---- the grids -------------------------------------------------------------------- */

static const fv_dtype pairs[][2] = {
    { FV_FLOAT32, FV_FLOAT32 },
    { FV_FLOAT64, FV_FLOAT64 },
    { FV_UINT8, FV_UINT8 },
    { FV_UINT8, FV_FLOAT32 },
    { FV_UINT16, FV_UINT16 },
    { FV_INT16, FV_INT16 },
    { FV_FLOAT64, FV_FLOAT32 },
    { FV_UINT8, FV_INT16 },
    { FV_UINT16, FV_UINT64 },
    { FV_INT16, FV_INT64 },
    { FV_FLOAT64, FV_UINT8 },
    /* the generic kernel both ways */
    { FV_INT32, FV_INT32 },
    { FV_FLOAT32, FV_UINT8 },
    { FV_UINT16, FV_FLOAT32 },
    { FV_BOOL, FV_FLOAT32 },
    { FV_FLOAT32, FV_FLOAT64 },
    { FV_INT8, FV_INT8 },
};
#define NPAIRS ((int)(sizeof pairs / sizeof pairs[0]))
static const double cvals[] = { 0.0, 3.5, -2.25, 300.7, -0.0, 1e10, 17.0 };
static const int64_t shapes[][3] = { { 1, 1, 1 },   { 1, 17, 33 }, { 1, 9, 70 },  { 2, 2, 2 },   { 3, 3, 3 },
                                     { 9, 10, 11 }, { 17, 9, 40 }, { 13, 1, 20 }, { 20, 30, 1 }, { 5, 4, 3 } };
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static void
random_window(ccase *c, int64_t kmax)
{
    for (int d = 0; d < 3; d++) {
        c->fshape[d] = irand(1, kmax);
        c->origins[d] = irand(-(c->fshape[d] / 2), (c->fshape[d] - 1) / 2);
    }
}

/* every pair x mode x shape, random windows (1..5 per axis, even and odd; now and
 * then up to 7: the generic kernel), origins, weights, footprints, layouts, cvals */
static void
test_grid(void)
{
    int n = 0;
    for (int pi = 0; pi < NPAIRS; pi++) {
        for (int mode = 0; mode < FV_MODE_COUNT; mode++) {
            for (int si = 0; si < NSHAPES; si++, n++) {
                ccase c;
                memset(&c, 0, sizeof c);
                c.idt = pairs[pi][0];
                c.odt = pairs[pi][1];
                c.mode = mode;
                for (int d = 0; d < 3; d++)
                    c.shape[d] = shapes[si][d];
                int r = (int)irand(0, 9);
                random_window(&c, r < 3 ? 3 : r < 9 ? 5 : 7);
                if (c.shape[0] == 1 && irand(0, 1))
                    c.fshape[0] = 1, c.origins[0] = 0; /* 2-d windows on 1 x N x M */
                c.cval = cvals[irand(0, 6)];
                if (is_float(c.idt) && irand(0, 7) == 0)
                    c.cval = irand(0, 1) ? NAN : INFINITY;
                c.lin = (int)irand(0, 2);
                c.lout = (int)irand(0, 2);
                c.specials = is_float(c.idt) ? (int)irand(0, 2) : 0;
                c.wide = (int)irand(0, 1);
                c.wkind = (int)irand(0, 2);
                c.fp_density = irand(0, 3) == 0 ? uniform_in(0.3, 0.9) : 1.0;
                c.center_only = c.fp_density >= 1.0 && irand(0, 15) == 0;
                if (c.center_only) {
                    for (int d = 0; d < 3; d++) {
                        c.fshape[d] = irand(5, 9);
                        c.origins[d] = irand(-1, 1);
                    }
                }
                if (reduced && n % 4)
                    continue;
                run_case(&c);
            }
        }
    }
}

/* the fast path's own cases: full 2^3 .. 5^3 boxes, every mode, the six pairs */
static void
test_full_boxes(void)
{
    static const fv_dtype tp[][2] = { { FV_FLOAT32, FV_FLOAT32 }, { FV_FLOAT64, FV_FLOAT64 }, { FV_UINT8, FV_UINT8 },
                                      { FV_UINT8, FV_FLOAT32 },   { FV_UINT16, FV_UINT16 },   { FV_INT16, FV_INT16 } };
    static const int64_t ks[] = { 2, 3, 4, 5 };
    int n = 0;
    for (size_t t = 0; t < sizeof tp / sizeof tp[0]; t++) {
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            for (int mode = 0; mode < FV_MODE_COUNT; mode++, n++) {
                ccase c;
                memset(&c, 0, sizeof c);
                c.idt = tp[t][0];
                c.odt = tp[t][1];
                c.mode = mode;
                c.shape[0] = irand(5, 20);
                c.shape[1] = irand(5, 20);
                c.shape[2] = irand(20, 70);
                for (int d = 0; d < 3; d++) {
                    c.fshape[d] = ks[k];
                    c.origins[d] = irand(-(ks[k] / 2), (ks[k] - 1) / 2);
                }
                c.cval = cvals[n % 7];
                c.lin = n % 3;
                c.lout = (n / 3) % 3;
                c.specials = is_float(c.idt) ? 1 + n % 2 : 0;
                c.wkind = n % 3 == 1 ? 2 : 0;
                c.fp_density = 1.0;
                if (reduced && n % 3)
                    continue;
                run_case(&c);
            }
        }
    }
}

/* 64^3 and a few odd large shapes: many tiles, edges of every tile */
static void
test_large(void)
{
    static const struct {
        fv_dtype i, o;
        int64_t s0, s1, s2, k;
        int lin, lout, wkind;
        double fp;
    } t[] = {
        { FV_FLOAT32, FV_FLOAT32, 64, 64, 64, 5, 0, 0, 0, 1.0 },
        { FV_UINT8, FV_UINT8, 64, 64, 64, 5, 0, 0, 2, 1.0 },
        { FV_UINT8, FV_FLOAT32, 64, 64, 64, 3, 1, 0, 0, 1.0 },
        { FV_FLOAT64, FV_FLOAT64, 64, 64, 64, 4, 2, 1, 1, 1.0 },
        { FV_UINT16, FV_UINT16, 37, 45, 71, 5, 0, 2, 0, 0.6 },
        { FV_INT16, FV_INT16, 64, 64, 64, 3, 1, 1, 2, 1.0 },
        { FV_FLOAT32, FV_FLOAT32, 1, 300, 257, 5, 0, 0, 1, 1.0 },
        { FV_FLOAT32, FV_FLOAT32, 70, 33, 65, 5, 2, 2, 1, 0.7 },
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        ccase c;
        memset(&c, 0, sizeof c);
        c.idt = t[k].i;
        c.odt = t[k].o;
        c.mode = (int)(k % FV_MODE_COUNT);
        c.shape[0] = t[k].s0;
        c.shape[1] = t[k].s1;
        c.shape[2] = t[k].s2;
        for (int d = 0; d < 3; d++) {
            c.fshape[d] = d == 0 && c.shape[0] == 1 ? 1 : t[k].k;
            c.origins[d] = irand(-(c.fshape[d] / 2), (c.fshape[d] - 1) / 2);
        }
        c.cval = 1.5;
        c.lin = t[k].lin;
        c.lout = t[k].lout;
        c.specials = is_float(c.idt) ? 1 : 0;
        c.wkind = t[k].wkind;
        c.fp_density = t[k].fp;
        run_case(&c);
    }
}

/* ---- timings (FOVEA_CORR3D_BENCH=1) ---------------------------------------------------- */

static void
bench(cudaStream_t s)
{
    static const int64_t shp[3] = { 256, 256, 256 };
    static const fv_dtype dts[][2] = { { FV_FLOAT32, FV_FLOAT32 },
                                       { FV_UINT8, FV_UINT8 },
                                       { FV_UINT8, FV_FLOAT32 },
                                       { FV_FLOAT64, FV_FLOAT64 },
                                       { FV_UINT16, FV_UINT16 } };
    static const int64_t ks[] = { 3, 5 };
    double w[125];
    for (int k = 0; k < 125; k++)
        w[k] = 0.01 * (k % 7 + 1);
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        fv_array *in = new_array(dts[d][0], 3, shp, GPU), *out = new_array(dts[d][1], 3, shp, GPU);
        fv_array *h = new_array(dts[d][0], 3, shp, CPU);
        if (!in || !out || !h)
            return;
        fill(h, 0, 0);
        CHECK_OK(fv_copy(ctx, h, in));
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            fv__filternd_params p;
            memset(&p, 0, sizeof p);
            p.kind = FV__FND_CORRELATE;
            p.mode = FV_MODE_REFLECT;
            p.ndim = 3;
            p.fshape[0] = p.fshape[1] = p.fshape[2] = ks[k];
            p.weights = w;
            p.count = ks[k] * ks[k] * ks[k];
            fv__op_args a = { .in = in, .out = out, .params = &p };
            double tt = time_nd(s, &a, 0, 10), tu = time_nd(s, &a, 1, 5);
            printf("bench: correlate %lld^3 %s->%s 256^3: tiled %.3f ms, untiled %.3f ms (x%.2f)\n", (long long)ks[k],
                   fv_dtype_name(dts[d][0]), fv_dtype_name(dts[d][1]), tt, tu, tu / tt);
        }
        fv_array_unref(in);
        fv_array_unref(out);
        fv_array_unref(h);
    }
}

int
main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    signal(SIGFPE, on_crash);
    signal(SIGSEGV, on_crash);
    signal(SIGABRT, on_crash);
    reduced = getenv("FOVEA_TEST_CUDA_ONLY") != NULL;
    have_gpu = fv_cuda_available();
    if (!have_gpu)
        printf("test_cuda_corr3d: no GPU (%s): the host models and the CPU backend only\n",
               fv_cuda_unavailable_reason());
    cudaStream_t s = NULL;
    if (have_gpu) {
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
        CHECK_OK(fv_context_new(&ctx));
        CHECK_OK(fv_context_set_cuda(ctx, 0, s));
    }
    test_full_boxes();
    printf("test_cuda_corr3d: full boxes done, %d cases, %d failed\n", ncases, fv_t_fail);
    test_grid();
    printf("test_cuda_corr3d: grid done, %d cases, %d failed\n", ncases, fv_t_fail);
    if (!reduced)
        test_large();
    printf("test_cuda_corr3d: large done, %d cases (%d in the tiled path's reach), %d failed\n", ncases, ntiled,
           fv_t_fail);
    if (have_gpu) {
        /* a few again on the default context (legacy default stream) */
        fv_context *own = ctx;
        ctx = NULL;
        for (int k = 0; k < 4; k++) {
            ccase c = { .idt = FV_FLOAT32,
                        .odt = k % 2 ? FV_FLOAT64 : FV_FLOAT32,
                        .shape = { 11, 37, 41 },
                        .fshape = { 3, 5, 2 + k },
                        .mode = k,
                        .cval = 1.5,
                        .lin = 1,
                        .lout = 2,
                        .specials = 1,
                        .wkind = k % 3,
                        .fp_density = 1.0 };
            run_case(&c);
        }
        CHECK_OK(fv_context_synchronize(NULL));
        ctx = own;
        const char *b = getenv("FOVEA_CORR3D_BENCH");
        if (b && *b && *b != '0')
            bench(s);
        CHECK_OK(fv_context_synchronize(ctx));
        fv_context_free(ctx);
        cudaStreamDestroy(s);
    }
    printf("test_cuda_corr3d: %d cases; CPU kernels %s; GPU %s\n", ncases, cpu_kernels == 1 ? "compared" : "absent",
           have_gpu ? "compared" : "absent");
    return fv_t_summary("test_cuda_corr3d");
}
