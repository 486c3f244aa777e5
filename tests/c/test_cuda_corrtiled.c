/* The tiled 2-D correlation kernel (src/cuda/filters/filternd-corr.cu), bit
 * for bit against:
 *  - a host model of that kernel (tiles of 32 x 32 outputs, the tile and halo
 *    loaded with the mode applied, 8 rows per thread walked top to bottom, the
 *    K x K weight box), which runs without a GPU too;
 *  - a direct host model of the generic kernel (fv_k_flt_nd_correlate: per output
 *    the selected elements in C order, from 0, t = t + w * x in double without
 *    contraction, or for float32 outputs of float32 and 8/16-bit data in float
 *    with the product fused);
 *  - the generic CUDA kernel (variant "generic" of "cuda.filternd"): every bit, NaN payloads
 *    included;
 *  - the CPU backend: bit for bit where the GPU sums in double (NaN: any
 *    payload); the float sums of float32 outputs are the GPU's own rounding
 *    (the CPU sums in double), so there within 1e-5 of the magnitude.
 * Kernels are called through fv__dispatch with filled parameters. Weights mix
 * zeros, tiny values (|w| <= DBL_EPSILON, never selected: 0 * inf would be NaN),
 * NaN, +-inf, negative and integer values; float data hold NaN, +-inf, -0.0.
 *
 * Without a GPU only the host models and the CPU backend run (and the test
 * passes on them). FOVEA_TEST_CUDA_ONLY=1 (compute-sanitizer runs) keeps a
 * quarter of the random cases and drops the 1000 x 1000 ones.
 * FOVEA_CORRTILED_BENCH=1 adds timings (5x5 and 3x3, float32 and uint8,
 * 3840 x 2160 and 8192 x 8192, tiled vs generic). */
#define CFC_TEST_NAME "test_cuda_corrtiled"
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

/* ---- the models (h: contiguous 2-d host array) ------------------------------------------ */

/* The generic kernel: bits[i] the output element's bits, mag[i] sum |w * x|. */
static void
ref_direct(const fv_array *h, const fv__filternd_params *p, fv_dtype odt, uint64_t *bits, double *mag)
{
    fv_dtype dt = fv_array_dtype(h);
    const int64_t H = fv_array_shape(h)[0], W = fv_array_shape(h)[1];
    const int64_t f0 = p->fshape[0], f1 = p->fshape[1];
    const int accf = acc_float(dt, odt);
    for (int64_t y = 0; y < H; y++) {
        for (int64_t x = 0; x < W; x++) {
            double t = 0.0, m = 0.0;
            float tf = 0.0f;
            for (int64_t a = 0; a < f0; a++) {
                for (int64_t b = 0; b < f1; b++) {
                    int64_t j = a * f1 + b;
                    if (!selected(p, j))
                        continue;
                    int64_t iy = fv__extend_index(y + a - f0 / 2 - p->origins[0], H, p->mode);
                    int64_t ix = iy < 0 ? -1 : fv__extend_index(x + b - f1 / 2 - p->origins[1], W, p->mode);
                    double v = ix < 0 ? p->cval : m_tod(dt, m_load(h, iy * W + ix));
                    if (accf)
                        tf = fmaf((float)p->weights[j], (float)v, tf);
                    else
                        t = t + p->weights[j] * v;
                    m += fabs(p->weights[j] * v);
                }
            }
            bits[y * W + x] = accf ? f32_bits(tf) : m_store_nd(odt, t);
            mag[y * W + x] = m;
        }
    }
}

#define TBX 32
#define TBY 4
#define TPY 8
#define TTH (TBY * TPY)

/* The tiled kernel step by step; returns 0 where it does not apply (span > 11). */
static int
ref_tiled(const fv_array *h, const fv__filternd_params *p, fv_dtype odt, uint64_t *bits)
{
    fv_dtype dt = fv_array_dtype(h);
    const int64_t H = fv_array_shape(h)[0], W = fv_array_shape(h)[1];
    const int64_t f0 = p->fshape[0], f1 = p->fshape[1];
    const int accf = acc_float(dt, odt);
    int64_t dmin[2] = { INT64_MAX, INT64_MAX }, dmax[2] = { INT64_MIN, INT64_MIN };
    for (int64_t j = 0; j < f0 * f1; j++) {
        if (!selected(p, j))
            continue;
        int64_t d[2] = { j / f1 - f0 / 2 - p->origins[0], j % f1 - f1 / 2 - p->origins[1] };
        for (int e = 0; e < 2; e++) {
            dmin[e] = d[e] < dmin[e] ? d[e] : dmin[e];
            dmax[e] = d[e] > dmax[e] ? d[e] : dmax[e];
        }
    }
    int64_t m = dmax[0] - dmin[0] + 1;
    if (dmax[1] - dmin[1] + 1 > m)
        m = dmax[1] - dmin[1] + 1;
    if (m > 11)
        return 0;
    const int K = m <= 3 ? 3 : m <= 5 ? 5 : m <= 7 ? 7 : m <= 9 ? 9 : 11;
    double wt[121];
    float wf[121];
    memset(wt, 0, sizeof wt);
    memset(wf, 0, sizeof wf);
    unsigned rows = 0;
    for (int64_t j = 0; j < f0 * f1; j++) {
        if (!selected(p, j))
            continue;
        int by = (int)(j / f1 - f0 / 2 - p->origins[0] - dmin[0]);
        int bx = (int)(j % f1 - f1 / 2 - p->origins[1] - dmin[1]);
        wt[by * K + bx] = p->weights[j];
        wf[by * K + bx] = (float)p->weights[j];
        rows |= 1u << by;
    }
    const int SW = TBX + K - 1, SH = TTH + K - 1;
    double *s = malloc((size_t)(SW * SH) * sizeof(double));
    float *sf = malloc((size_t)(SW * SH) * sizeof(float));
    for (int64_t y0 = 0; y0 < H; y0 += TTH) {
        for (int64_t x0 = 0; x0 < W; x0 += TBX) {
            for (int sy = 0; sy < SH; sy++) {
                int64_t iy = fv__extend_index(y0 + dmin[0] + sy, H, p->mode);
                for (int sx = 0; sx < SW; sx++) {
                    int64_t ix = iy < 0 ? -1 : fv__extend_index(x0 + dmin[1] + sx, W, p->mode);
                    double v = ix < 0 ? p->cval : m_tod(dt, m_load(h, iy * W + ix));
                    s[sy * SW + sx] = v;
                    sf[sy * SW + sx] = (float)v;
                }
            }
            for (int ty = 0; ty < TBY; ty++) {
                for (int tx = 0; tx < TBX; tx++) {
                    const int64_t x = x0 + tx, yb = y0 + ty * TPY;
                    if (x >= W || yb >= H)
                        continue;
                    double acc[TPY];
                    float accf_[TPY];
                    for (int q = 0; q < TPY; q++) {
                        acc[q] = 0.0;
                        accf_[q] = 0.0f;
                    }
                    for (int r = 0; r < TPY + K - 1; r++) {
                        for (int q = 0; q < TPY; q++) {
                            int ky = r - q;
                            if (ky < 0 || ky >= K || !((rows >> ky) & 1u))
                                continue;
                            for (int kx = 0; kx < K; kx++) {
                                int idx = (ty * TPY + r) * SW + tx + kx;
                                if (accf) {
                                    if (wf[ky * K + kx] != 0.0f)
                                        accf_[q] = fmaf(wf[ky * K + kx], sf[idx], accf_[q]);
                                } else if (wt[ky * K + kx] != 0.0) {
                                    acc[q] = acc[q] + wt[ky * K + kx] * s[idx];
                                }
                            }
                        }
                    }
                    for (int q = 0; q < TPY; q++)
                        if (yb + q < H)
                            bits[(yb + q) * W + x] = accf ? f32_bits(accf_[q]) : m_store_nd(odt, acc[q]);
                }
            }
        }
    }
    free(s);
    free(sf);
    return 1;
}

/* ---- one case --------------------------------------------------------------------- */

typedef struct ccase {
    fv_dtype idt, odt;
    int64_t shape[2], fshape[2], origins[2];
    int mode;
    double cval;
    int lin, lout, specials, wide;
    int wkind;         /* 0 dense random, 1 with zeros / tiny / NaN / inf, 2 small integers */
    double fp_density; /* < 1: a random footprint */
    int center_only;   /* only the central 3x3 of the window selected (a large fshape, small span) */
} ccase;

static const char *mode_names[] = { "reflect", "constant", "nearest", "mirror", "wrap" };

static void
run_case(const ccase *c)
{
    char what[400];
    const int64_t n = c->shape[0] * c->shape[1], fsize = c->fshape[0] * c->fshape[1];
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
            int64_t a = j / c->fshape[1] - c->fshape[0] / 2, b = j % c->fshape[1] - c->fshape[1] / 2;
            fp[j] = a >= -1 && a <= 1 && b >= -1 && b <= 1;
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
        int64_t sel = c->center_only ? (c->fshape[0] / 2) * c->fshape[1] + c->fshape[1] / 2 : irand(0, fsize - 1);
        fp[sel] = 1;
        if (!(fabs(w[sel]) > DBL_EPSILON))
            w[sel] = 0.75;
    }
    fv__filternd_params p;
    memset(&p, 0, sizeof p);
    p.kind = FV__FND_CORRELATE;
    p.mode = c->mode;
    p.cval = c->cval;
    p.ndim = 2;
    for (int d = 0; d < 2; d++) {
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
    snprintf(what, sizeof what,
             "correlate %s->%s shape=(%lld,%lld) fshape=(%lld,%lld) origins=(%lld,%lld) "
             "count=%lld mode=%s cval=%g layout=%d/%d sp=%d wide=%d wkind=%d fp=%g center=%d%s",
             fv_dtype_name(c->idt), fv_dtype_name(c->odt), (long long)c->shape[0], (long long)c->shape[1],
             (long long)c->fshape[0], (long long)c->fshape[1], (long long)c->origins[0], (long long)c->origins[1],
             (long long)p.count, mode_names[c->mode], c->cval, c->lin, c->lout, c->specials, c->wide, c->wkind,
             c->fp_density, c->center_only, accf ? " (float sums)" : "");
    snprintf(current, sizeof current, "%s", what);

    hin = make_view(c->idt, 2, c->shape, c->lin, CPU, &hb);
    if (!hin)
        goto done;
    fill(hb ? hb : hin, c->specials, c->wide);
    hc = to_host(hin);
    if (!hc)
        goto done;
    ref_direct(hc, &p, c->odt, direct, mag);
    int tiles = ref_tiled(hc, &p, c->odt, tiled);
    ntiled += tiles;
    if (tiles) {
        fv_array *mt = bits_array(c->odt, 2, c->shape, tiled);
        if (mt)
            CHECK(cmp_bits(mt, direct, 0, what, "tile model vs direct model")); /* host NaN signs vary */
        fv_array_unref(mt);
    }
    if (cpu_kernels != 0) { /* the CPU backend into a view of the output layout */
        fv_array *ob = NULL, *hout = make_view(c->odt, 2, c->shape, c->lout, CPU, &ob), *hg = NULL;
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
        din = make_view(c->idt, 2, c->shape, c->lin, GPU, &db);
        fv_array *ob = NULL, *dout = make_view(c->odt, 2, c->shape, c->lout, GPU, &ob);
        fv_array *ub = NULL, *uout = make_view(c->odt, 2, c->shape, c->lout, GPU, &ub);
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
                /* the generic kernel, every bit but a NaN's sign (inf - inf in the
                 * other operand order gives the other default NaN) */
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
    { FV_FLOAT32, FV_FLOAT32 }, { FV_FLOAT64, FV_FLOAT64 }, { FV_UINT8, FV_UINT8 },   { FV_UINT8, FV_FLOAT32 },
    { FV_UINT16, FV_UINT16 },   { FV_INT16, FV_INT16 },     { FV_INT32, FV_INT32 },   { FV_INT16, FV_FLOAT32 },
    { FV_FLOAT32, FV_UINT8 },   { FV_FLOAT64, FV_FLOAT32 }, { FV_UINT8, FV_FLOAT64 }, { FV_INT8, FV_FLOAT32 },
    { FV_BOOL, FV_FLOAT32 },    { FV_UINT32, FV_FLOAT64 },  { FV_INT64, FV_INT64 },   { FV_UINT64, FV_UINT64 },
    { FV_FLOAT32, FV_FLOAT64 }, { FV_INT32, FV_FLOAT32 },   { FV_FLOAT32, FV_INT16 }, { FV_UINT16, FV_FLOAT32 },
    { FV_UINT8, FV_INT16 },     { FV_FLOAT64, FV_UINT64 },  { FV_BOOL, FV_BOOL },     { FV_INT16, FV_UINT8 },
};
#define NPAIRS ((int)(sizeof pairs / sizeof pairs[0]))
static const double cvals[] = { 0.0, 3.5, -2.25, 300.7, -0.0, 1e10, 17.0 };
static const int64_t shapes[][2] = { { 1, 1 },   { 1, 45 },    { 45, 1 },  { 2, 2 }, { 3, 3 },
                                     { 17, 33 }, { 130, 257 }, { 33, 65 }, { 5, 70 } };
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static void
random_window(ccase *c, int64_t kmax)
{
    for (int d = 0; d < 2; d++) {
        c->fshape[d] = irand(1, kmax);
        c->origins[d] = irand(-(c->fshape[d] / 2), (c->fshape[d] - 1) / 2);
    }
}

/* every pair x mode x shape, random windows (1..11 per axis, even and odd), origins,
 * weights, footprints, layouts and cvals */
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
                c.shape[0] = shapes[si][0];
                c.shape[1] = shapes[si][1];
                int r = (int)irand(0, 9);
                random_window(&c, r < 4 ? 5 : r < 8 ? 11 : 13); /* 13: the generic kernel past 11 */
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
                    c.fshape[0] = irand(9, 15);
                    c.fshape[1] = irand(9, 15);
                    c.origins[0] = irand(-3, 3);
                    c.origins[1] = irand(-3, 3);
                }
                if (reduced && n % 4)
                    continue;
                run_case(&c);
            }
        }
    }
}

/* the fast path's own cases: full 3x3 .. 11x11 boxes and even sizes, every mode,
 * float32 / uint8 / uint16 / float64, tiny weights beside inf data */
static void
test_full_boxes(void)
{
    static const fv_dtype tp[][2] = { { FV_FLOAT32, FV_FLOAT32 }, { FV_UINT8, FV_UINT8 },   { FV_UINT8, FV_FLOAT32 },
                                      { FV_FLOAT64, FV_FLOAT64 }, { FV_UINT16, FV_UINT16 }, { FV_INT16, FV_INT32 } };
    static const int64_t ks[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
    int n = 0;
    for (size_t t = 0; t < sizeof tp / sizeof tp[0]; t++) {
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            for (int mode = 0; mode < FV_MODE_COUNT; mode++, n++) {
                ccase c;
                memset(&c, 0, sizeof c);
                c.idt = tp[t][0];
                c.odt = tp[t][1];
                c.mode = mode;
                c.shape[0] = irand(20, 70);
                c.shape[1] = irand(20, 90);
                c.fshape[0] = c.fshape[1] = ks[k];
                c.origins[0] = irand(-(ks[k] / 2), (ks[k] - 1) / 2);
                c.origins[1] = irand(-(ks[k] / 2), (ks[k] - 1) / 2);
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

/* 1000 x 1000: many tiles, edges of every tile row / column */
static void
test_large(void)
{
    static const struct {
        fv_dtype i, o;
        int64_t k0, k1;
        int lin, lout, wkind;
        double fp;
    } t[] = {
        { FV_FLOAT32, FV_FLOAT32, 5, 5, 0, 0, 0, 1.0 },   { FV_UINT8, FV_UINT8, 5, 5, 0, 0, 2, 1.0 },
        { FV_UINT8, FV_FLOAT32, 3, 3, 1, 0, 0, 1.0 },     { FV_FLOAT64, FV_FLOAT64, 4, 6, 2, 1, 1, 1.0 },
        { FV_UINT16, FV_UINT16, 7, 7, 0, 2, 0, 0.6 },     { FV_INT32, FV_INT32, 3, 5, 0, 0, 2, 1.0 },
        { FV_FLOAT32, FV_FLOAT32, 11, 11, 0, 0, 1, 1.0 },
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        ccase c;
        memset(&c, 0, sizeof c);
        c.idt = t[k].i;
        c.odt = t[k].o;
        c.mode = (int)(k % FV_MODE_COUNT);
        c.shape[0] = 1000;
        c.shape[1] = 1000;
        c.fshape[0] = t[k].k0;
        c.fshape[1] = t[k].k1;
        c.origins[0] = irand(-(c.fshape[0] / 2), (c.fshape[0] - 1) / 2);
        c.origins[1] = irand(-(c.fshape[1] / 2), (c.fshape[1] - 1) / 2);
        c.cval = 1.5;
        c.lin = t[k].lin;
        c.lout = t[k].lout;
        c.specials = is_float(c.idt) ? 1 : 0;
        c.wkind = t[k].wkind;
        c.fp_density = t[k].fp;
        run_case(&c);
    }
}

/* ---- timings (FOVEA_CORRTILED_BENCH=1) ------------------------------------------------- */

static void
bench(cudaStream_t s)
{
    static const int64_t shp[][2] = { { 2160, 3840 }, { 8192, 8192 } };
    static const fv_dtype dts[][2] = {
        { FV_FLOAT32, FV_FLOAT32 }, { FV_UINT8, FV_UINT8 }, { FV_UINT8, FV_FLOAT32 }, { FV_FLOAT64, FV_FLOAT64 }
    };
    static const int64_t ks[] = { 3, 5, 7, 11 };
    double w[121];
    for (int k = 0; k < 121; k++)
        w[k] = 0.01 * (k % 7 + 1);
    for (size_t si = 0; si < 2; si++) {
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
            fv_array *in = new_array(dts[d][0], 2, shp[si], GPU), *out = new_array(dts[d][1], 2, shp[si], GPU);
            fv_array *h = new_array(dts[d][0], 2, shp[si], CPU);
            if (!in || !out || !h)
                return;
            fill(h, 0, 0);
            CHECK_OK(fv_copy(ctx, h, in));
            for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
                fv__filternd_params p;
                memset(&p, 0, sizeof p);
                p.kind = FV__FND_CORRELATE;
                p.mode = FV_MODE_REFLECT;
                p.ndim = 2;
                p.fshape[0] = p.fshape[1] = ks[k];
                p.weights = w;
                p.count = ks[k] * ks[k];
                fv__op_args a = { .in = in, .out = out, .params = &p };
                double tt = time_nd(s, &a, 0, 10), tu = time_nd(s, &a, 1, 10);
                printf("bench: correlate %lldx%lld %s->%s %lldx%lld: tiled %.3f ms, untiled %.3f ms (x%.2f)\n",
                       (long long)ks[k], (long long)ks[k], fv_dtype_name(dts[d][0]), fv_dtype_name(dts[d][1]),
                       (long long)shp[si][0], (long long)shp[si][1], tt, tu, tu / tt);
            }
            fv_array_unref(in);
            fv_array_unref(out);
            fv_array_unref(h);
        }
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
        printf("test_cuda_corrtiled: no GPU (%s): the host models and the CPU backend only\n",
               fv_cuda_unavailable_reason());
    cudaStream_t s = NULL;
    if (have_gpu) {
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
        CHECK_OK(fv_context_new(&ctx));
        CHECK_OK(fv_context_set_cuda(ctx, 0, s));
    }
    test_full_boxes();
    printf("test_cuda_corrtiled: full boxes done, %d cases, %d failed\n", ncases, fv_t_fail);
    test_grid();
    printf("test_cuda_corrtiled: grid done, %d cases, %d failed\n", ncases, fv_t_fail);
    if (!reduced)
        test_large();
    printf("test_cuda_corrtiled: large done, %d cases (%d in the tiled path's reach), %d failed\n", ncases, ntiled,
           fv_t_fail);
    if (have_gpu) {
        /* a few again on the default context (legacy default stream) */
        fv_context *own = ctx;
        ctx = NULL;
        for (int k = 0; k < 4; k++) {
            ccase c = { .idt = FV_FLOAT32,
                        .odt = k % 2 ? FV_UINT8 : FV_FLOAT32,
                        .shape = { 37, 41 },
                        .fshape = { 5, 3 + k },
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
        const char *b = getenv("FOVEA_CORRTILED_BENCH");
        if (b && *b && *b != '0')
            bench(s);
        CHECK_OK(fv_context_synchronize(ctx));
        fv_context_free(ctx);
        cudaStreamDestroy(s);
    }
    printf("test_cuda_corrtiled: %d cases; CPU kernels %s; GPU %s\n", ncases, cpu_kernels == 1 ? "compared" : "absent",
           have_gpu ? "compared" : "absent");
    return fv_t_summary("test_cuda_corrtiled");
}
