/* The tiled 2-D flat minimum / maximum kernel (src/cuda/filters/filternd-minmax.cu),
 * bit for bit against:
 *  - a host model of that kernel (tiles of 32 x 32 outputs, the tile and halo
 *    loaded with the mode applied as order keys, 8 rows per thread walked top to
 *    bottom, the K x K selection box, integer keys by unsigned min, float keys by
 *    strict comparison from the first selected element), which runs without a
 *    GPU too;
 *  - a direct host model of the generic kernel (fv_k_flt_nd_minmax, scipy's
 *    NI_MinOrMaxFilter: cval cast to the input type; the first selected
 *    element in double (plus its structure value), the later ones in the input
 *    type (plus the structure value cast to it), replacing the result when
 *    strictly smaller / greater in double, in C order of the window);
 *  - the generic CUDA kernel (variant "generic" of "cuda.filternd"): every bit, NaN payloads
 *    included;
 *  - the CPU backend: every bit (NaN: any payload).
 * Footprints: dense boxes, disks (skimage.morphology.disk), random patterns,
 * even sizes, origins; a structure now and then (the tiled path declines: the
 * generic kernel runs, still compared). Float data hold NaN, +-inf, -0.0.
 *
 * Without a GPU only the host models and the CPU backend run (and the test
 * passes on them). FOVEA_TEST_CUDA_ONLY=1 (compute-sanitizer runs) keeps a
 * quarter of the random cases and drops the 1000 x 1000 ones.
 * FOVEA_MINMAXTILED_BENCH=1 adds timings (disks of radius 1, 3, 5 and the
 * 7 x 7 box, uint8 / float32, 8192 x 8192, tiled vs generic). */
#define CFC_TEST_NAME "test_cuda_minmaxtiled"
#define CFC_UNTILED 1
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

/* ---- the models' casts ------------------------------------------------------------ */

/* scipy's (_type)cval: the bits of fv_d_flt_to_in<T>(cval) (bool as uint8) */
static uint64_t
m_to_in(fv_dtype dt, double x)
{
    switch (dt) {
    case FV_BOOL:
    case FV_UINT8:
        return (uint8_t)m_cvt32(x);
    case FV_INT8:
        return (uint8_t)(int8_t)m_cvt32(x);
    case FV_UINT16:
        return (uint16_t)m_cvt32(x);
    case FV_INT16:
        return (uint16_t)(int16_t)m_cvt32(x);
    case FV_INT32:
        return (uint32_t)m_cvt32(x);
    case FV_UINT32:
        return (uint32_t)m_cvt64(x);
    case FV_INT64:
        return (uint64_t)m_cvt64(x);
    case FV_UINT64:
        return m_cvtu64(x);
    case FV_FLOAT32:
        return f32_bits((float)x);
    default: {
        uint64_t u;
        memcpy(&u, &x, 8);
        return u;
    }
    }
}

/* a + b in the input type's arithmetic (integers wrap; float32 rounded to float) */
static uint64_t
m_tadd(fv_dtype dt, uint64_t a, uint64_t b)
{
    if (dt == FV_FLOAT32) {
        float x, y, z;
        uint32_t u = (uint32_t)a, v = (uint32_t)b;
        memcpy(&x, &u, 4);
        memcpy(&y, &v, 4);
        z = x + y;
        return f32_bits(z);
    }
    if (dt == FV_FLOAT64) {
        double x, y, z;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        z = x + y;
        memcpy(&a, &z, 8);
        return a;
    }
    return (a + b) & width_mask(dt);
}

static int
is_signed_int(fv_dtype dt)
{
    return dt == FV_INT8 || dt == FV_INT16 || dt == FV_INT32 || dt == FV_INT64;
}

/* ---- the models (h: contiguous 2-d host array) ------------------------------------------ */

/* The generic kernel. st: structure (or NULL), mn: minimum. */
static void
ref_direct(const fv_array *h, const fv__filternd_params *p, fv_dtype odt, uint64_t *bits)
{
    fv_dtype dt = fv_array_dtype(h);
    const int mn = p->kind == FV__FND_MINIMUM;
    const int64_t H = fv_array_shape(h)[0], W = fv_array_shape(h)[1];
    const int64_t f0 = p->fshape[0], f1 = p->fshape[1];
    const uint64_t cv = m_to_in(dt, p->cval);
    for (int64_t y = 0; y < H; y++) {
        for (int64_t x = 0; x < W; x++) {
            double res = 0.0;
            int first = 1;
            for (int64_t a = 0; a < f0; a++) {
                for (int64_t b = 0; b < f1; b++) {
                    int64_t j = a * f1 + b;
                    if (p->footprint && !p->footprint[j])
                        continue;
                    int64_t iy = fv__extend_index(y + a - f0 / 2 - p->origins[0], H, p->mode);
                    int64_t ix = iy < 0 ? -1 : fv__extend_index(x + b - f1 / 2 - p->origins[1], W, p->mode);
                    uint64_t v = ix < 0 ? cv : m_load(h, iy * W + ix);
                    double sv = p->weights ? (mn ? -p->weights[j] : p->weights[j]) : 0.0;
                    if (first) {
                        res = m_tod(dt, v);
                        if (p->weights)
                            res = res + sv;
                        first = 0;
                        continue;
                    }
                    if (p->weights)
                        v = m_tadd(dt, v, m_to_in(dt, sv));
                    double xv = m_tod(dt, v);
                    if (mn ? xv < res : xv > res)
                        res = xv;
                }
            }
            bits[y * W + x] = m_store_nd(odt, res);
        }
    }
}

#define TBX 32
#define TBY 4
#define TPY 8
#define TTH (TBY * TPY)

/* order keys of the tiled kernel: integers as uint64 (signed offset by the sign
 * bit, ~ for maximum), floats as double / float with the sign bit flipped for
 * maximum (kept as bits) */
static uint64_t
key_of(fv_dtype dt, uint64_t v, int mx)
{
    if (dt == FV_FLOAT32)
        return mx ? v ^ 0x80000000ull : v;
    if (dt == FV_FLOAT64)
        return mx ? v ^ 0x8000000000000000ull : v;
    uint64_t k;
    if (is_signed_int(dt)) { /* sign-extend, then offset */
        int64_t s = (int64_t)m_tod(dt, v);
        if (dt == FV_INT64)
            s = (int64_t)v;
        k = (uint64_t)s ^ 0x8000000000000000ull;
    } else {
        k = v;
    }
    return mx ? ~k : k;
}
static double
val_of(fv_dtype dt, uint64_t k, int mx)
{
    if (dt == FV_FLOAT32 || dt == FV_FLOAT64)
        return m_tod(dt, key_of(dt, k, mx));
    if (mx)
        k = ~k;
    if (is_signed_int(dt))
        return (double)(int64_t)(k ^ 0x8000000000000000ull);
    return (double)k;
}
/* strict key comparison of floats */
static int
fkey_less(fv_dtype dt, uint64_t a, uint64_t b)
{
    return m_tod(dt, a) < m_tod(dt, b);
}

/* The tiled kernel step by step; returns 0 where it does not apply. */
static int
ref_tiled(const fv_array *h, const fv__filternd_params *p, fv_dtype odt, uint64_t *bits)
{
    fv_dtype dt = fv_array_dtype(h);
    const int mx = p->kind == FV__FND_MAXIMUM, flt = is_float(dt);
    const int64_t H = fv_array_shape(h)[0], W = fv_array_shape(h)[1];
    const int64_t f0 = p->fshape[0], f1 = p->fshape[1];
    if (p->weights)
        return 0;
    int64_t dmin[2] = { INT64_MAX, INT64_MAX }, dmax[2] = { INT64_MIN, INT64_MIN };
    for (int64_t j = 0; j < f0 * f1; j++) {
        if (p->footprint && !p->footprint[j])
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
    uint64_t sel[121];
    unsigned rows = 0;
    int first = -1;
    for (int e = 0; e < 121; e++)
        sel[e] = ~0ull;
    for (int64_t j = 0; j < f0 * f1; j++) {
        if (p->footprint && !p->footprint[j])
            continue;
        int by = (int)(j / f1 - f0 / 2 - p->origins[0] - dmin[0]);
        int bx = (int)(j % f1 - f1 / 2 - p->origins[1] - dmin[1]);
        sel[by * K + bx] = 0;
        rows |= 1u << by;
        if (first < 0)
            first = by * K + bx;
    }
    const uint64_t fmask = dt == FV_FLOAT32 ? 0xffffffffull : ~0ull;
    const int SW = TBX + K - 1, SH = TTH + K - 1;
    const uint64_t cv = key_of(dt, m_to_in(dt, p->cval), mx);
    uint64_t *s = malloc((size_t)(SW * SH) * sizeof(uint64_t));
    for (int64_t y0 = 0; y0 < H; y0 += TTH) {
        for (int64_t x0 = 0; x0 < W; x0 += TBX) {
            for (int sy = 0; sy < SH; sy++) {
                int64_t iy = fv__extend_index(y0 + dmin[0] + sy, H, p->mode);
                for (int sx = 0; sx < SW; sx++) {
                    int64_t ix = iy < 0 ? -1 : fv__extend_index(x0 + dmin[1] + sx, W, p->mode);
                    s[sy * SW + sx] = ix < 0 ? cv : key_of(dt, m_load(h, iy * W + ix), mx);
                }
            }
            for (int ty = 0; ty < TBY; ty++) {
                for (int tx = 0; tx < TBX; tx++) {
                    const int64_t x = x0 + tx, yb = y0 + ty * TPY;
                    if (x >= W || yb >= H)
                        continue;
                    const uint64_t *sp = s + ty * TPY * SW + tx;
                    uint64_t res[TPY];
                    for (int q = 0; q < TPY; q++)
                        res[q] = flt ? sp[(q + first / K) * SW + first % K] : ~0ull;
                    for (int r = 0; r < TPY + K - 1; r++) {
                        for (int q = 0; q < TPY; q++) {
                            int ky = r - q;
                            if (ky < 0 || ky >= K || !((rows >> ky) & 1u))
                                continue;
                            for (int kx = 0; kx < K; kx++) {
                                uint64_t v = sp[r * SW + kx];
                                if (flt) {
                                    uint64_t xk = v | (sel[ky * K + kx] & fmask); /* unselected: NaN */
                                    if (fkey_less(dt, xk, res[q]))
                                        res[q] = xk;
                                } else {
                                    uint64_t xk = v | sel[ky * K + kx];
                                    if (xk < res[q])
                                        res[q] = xk;
                                }
                            }
                        }
                    }
                    for (int q = 0; q < TPY; q++)
                        if (yb + q < H)
                            bits[(yb + q) * W + x] = m_store_nd(odt, val_of(dt, res[q], mx));
                }
            }
        }
    }
    free(s);
    return 1;
}

/* ---- one case --------------------------------------------------------------------- */

typedef struct ccase {
    fv_dtype idt, odt;
    int kind; /* FV__FND_MINIMUM / FV__FND_MAXIMUM */
    int64_t shape[2], fshape[2], origins[2];
    int mode;
    double cval;
    int lin, lout, specials, wide;
    int fp; /* 0 full box, 1 disk (fshape odd, square), 2 random (density) */
    double fp_density;
    int structure; /* 1: random structure values (the generic kernel) */
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
    fv_array *hb = NULL, *hin = NULL, *hc = NULL, *db = NULL, *din = NULL;
    if (!fp || !w || !direct || !tiled)
        goto done;
    for (int64_t j = 0; j < fsize; j++) {
        int64_t a = j / c->fshape[1] - c->fshape[0] / 2, b = j % c->fshape[1] - c->fshape[1] / 2;
        int64_t r = c->fshape[0] / 2;
        fp[j] = c->fp == 0 ? 1 : c->fp == 1 ? a * a + b * b <= r * r : uniform_in(0, 1) < c->fp_density;
        w[j] = is_float(c->idt) ? uniform_in(-3.0, 3.0) : (double)irand(-3, 3);
    }
    fp[irand(0, fsize - 1)] = 1; /* one element selected for sure */
    fv__filternd_params p;
    memset(&p, 0, sizeof p);
    p.kind = c->kind;
    p.mode = c->mode;
    p.cval = c->cval;
    p.ndim = 2;
    for (int d = 0; d < 2; d++) {
        p.fshape[d] = c->fshape[d];
        p.origins[d] = c->origins[d];
    }
    p.footprint = c->fp ? fp : NULL;
    p.weights = c->structure ? w : NULL;
    for (int64_t j = 0; j < fsize; j++)
        p.count += !p.footprint || fp[j];
    snprintf(what, sizeof what,
             "%s %s->%s shape=(%lld,%lld) fshape=(%lld,%lld) origins=(%lld,%lld) "
             "count=%lld mode=%s cval=%g layout=%d/%d sp=%d wide=%d fp=%d/%g st=%d",
             c->kind == FV__FND_MINIMUM ? "minimum" : "maximum", fv_dtype_name(c->idt), fv_dtype_name(c->odt),
             (long long)c->shape[0], (long long)c->shape[1], (long long)c->fshape[0], (long long)c->fshape[1],
             (long long)c->origins[0], (long long)c->origins[1], (long long)p.count, mode_names[c->mode], c->cval,
             c->lin, c->lout, c->specials, c->wide, c->fp, c->fp_density, c->structure);
    snprintf(current, sizeof current, "%s", what);

    hin = make_view(c->idt, 2, c->shape, c->lin, CPU, &hb);
    if (!hin)
        goto done;
    fill(hb ? hb : hin, c->specials, c->wide);
    hc = to_host(hin);
    if (!hc)
        goto done;
    ref_direct(hc, &p, c->odt, direct);
    int tiles = ref_tiled(hc, &p, c->odt, tiled);
    ntiled += tiles;
    if (tiles) {
        fv_array *mt = bits_array(c->odt, 2, c->shape, tiled);
        if (mt)
            CHECK(cmp_bits(mt, direct, 1, what, "tile model vs direct model"));
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
                CHECK(cmp_bits(hg, direct, 0, what, "cpu vs model"));
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
                    CHECK(cmp_bits(got, tiled, 1, what, "cuda vs tile model"));
                uint64_t *ub_ = array_bits(ug);
                if (ub_) /* the generic kernel: every bit, NaN payloads included */
                    CHECK(cmp_bits(got, ub_, 1, what, "tiled vs generic"));
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
}

/* ---- the grids -------------------------------------------------------------------- */

static const fv_dtype pairs[][2] = {
    { FV_FLOAT32, FV_FLOAT32 }, { FV_FLOAT64, FV_FLOAT64 }, { FV_UINT8, FV_UINT8 },   { FV_UINT8, FV_FLOAT32 },
    { FV_UINT16, FV_UINT16 },   { FV_INT16, FV_INT16 },     { FV_INT32, FV_INT32 },   { FV_INT8, FV_INT8 },
    { FV_FLOAT32, FV_UINT8 },   { FV_FLOAT64, FV_FLOAT32 }, { FV_UINT32, FV_UINT32 }, { FV_INT8, FV_FLOAT32 },
    { FV_BOOL, FV_BOOL },       { FV_UINT32, FV_FLOAT64 },  { FV_INT64, FV_INT64 },   { FV_UINT64, FV_UINT64 },
    { FV_FLOAT32, FV_FLOAT64 }, { FV_INT32, FV_FLOAT32 },   { FV_FLOAT32, FV_INT16 }, { FV_INT64, FV_FLOAT64 },
    { FV_UINT8, FV_INT16 },     { FV_FLOAT64, FV_UINT64 },  { FV_BOOL, FV_UINT8 },    { FV_UINT64, FV_FLOAT64 },
};
#define NPAIRS ((int)(sizeof pairs / sizeof pairs[0]))
static const double cvals[] = { 0.0, 3.5, -2.25, 300.7, -0.0, 1e10, 17.0, -1e30 };
static const int64_t shapes[][2] = { { 1, 1 },   { 1, 45 },    { 45, 1 },  { 2, 2 }, { 3, 3 },
                                     { 17, 33 }, { 130, 257 }, { 33, 65 }, { 5, 70 } };
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

/* every pair x mode x shape x {minimum, maximum}: random windows (1..13 per axis),
 * origins, footprints (box, disk, random), layouts, cvals; 1 in 8 with a structure */
static void
test_grid(void)
{
    int n = 0;
    for (int pi = 0; pi < NPAIRS; pi++) {
        for (int mode = 0; mode < FV_MODE_COUNT; mode++) {
            for (int si = 0; si < NSHAPES; si++) {
                for (int mx = 0; mx < 2; mx++, n++) {
                    ccase c;
                    memset(&c, 0, sizeof c);
                    c.idt = pairs[pi][0];
                    c.odt = pairs[pi][1];
                    c.kind = mx ? FV__FND_MAXIMUM : FV__FND_MINIMUM;
                    c.mode = mode;
                    c.shape[0] = shapes[si][0];
                    c.shape[1] = shapes[si][1];
                    c.fp = (int)irand(0, 2);
                    int r = (int)irand(0, 9);
                    int64_t kmax = r < 4 ? 5 : r < 8 ? 11 : 13; /* 13: the generic kernel past 11 */
                    if (c.fp == 1) {
                        c.fshape[0] = c.fshape[1] = 2 * irand(1, kmax / 2) + 1;
                    } else {
                        c.fshape[0] = irand(1, kmax);
                        c.fshape[1] = irand(1, kmax);
                    }
                    for (int d = 0; d < 2; d++)
                        c.origins[d] = irand(-(c.fshape[d] / 2), (c.fshape[d] - 1) / 2);
                    c.fp_density = uniform_in(0.2, 0.9);
                    c.cval = cvals[irand(0, 7)];
                    if (is_float(c.idt) && irand(0, 7) == 0)
                        c.cval = irand(0, 1) ? NAN : -INFINITY;
                    c.lin = (int)irand(0, 2);
                    c.lout = (int)irand(0, 2);
                    c.specials = is_float(c.idt) ? (int)irand(0, 2) : 0;
                    c.wide = (int)irand(0, 1);
                    c.structure = irand(0, 7) == 0;
                    if (reduced && n % 4)
                        continue;
                    run_case(&c);
                }
            }
        }
    }
}

/* the fast path's own cases: full boxes and disks 3..11, every mode, both kinds,
 * float32 / float64 / uint8 / int16 / int64 / uint64 */
static void
test_boxes(void)
{
    static const fv_dtype tp[][2] = { { FV_FLOAT32, FV_FLOAT32 }, { FV_UINT8, FV_UINT8 }, { FV_FLOAT64, FV_FLOAT64 },
                                      { FV_INT16, FV_INT32 },     { FV_INT64, FV_INT64 }, { FV_UINT64, FV_UINT64 } };
    static const int64_t ks[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
    int n = 0;
    for (size_t t = 0; t < sizeof tp / sizeof tp[0]; t++) {
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            for (int mode = 0; mode < FV_MODE_COUNT; mode++, n++) {
                ccase c;
                memset(&c, 0, sizeof c);
                c.idt = tp[t][0];
                c.odt = tp[t][1];
                c.kind = n % 2 ? FV__FND_MAXIMUM : FV__FND_MINIMUM;
                c.mode = mode;
                c.shape[0] = irand(20, 70);
                c.shape[1] = irand(20, 90);
                c.fshape[0] = c.fshape[1] = ks[k];
                c.fp = ks[k] % 2 && (n / 2) % 2 ? 1 : 0;
                c.origins[0] = irand(-(ks[k] / 2), (ks[k] - 1) / 2);
                c.origins[1] = irand(-(ks[k] / 2), (ks[k] - 1) / 2);
                c.cval = cvals[n % 8];
                c.lin = n % 3;
                c.lout = (n / 3) % 3;
                c.specials = is_float(c.idt) ? 1 + n % 2 : 0;
                c.wide = n % 2;
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
        int lin, lout, fp, mx;
    } t[] = {
        { FV_UINT8, FV_UINT8, 7, 7, 0, 0, 1, 0 },       { FV_UINT8, FV_UINT8, 7, 7, 1, 2, 1, 1 },
        { FV_FLOAT32, FV_FLOAT32, 5, 5, 0, 0, 1, 1 },   { FV_FLOAT64, FV_FLOAT64, 4, 6, 2, 1, 2, 0 },
        { FV_UINT16, FV_UINT16, 11, 11, 0, 2, 1, 0 },   { FV_INT32, FV_INT32, 3, 5, 0, 0, 0, 1 },
        { FV_FLOAT32, FV_FLOAT32, 11, 11, 0, 0, 2, 0 }, { FV_INT64, FV_INT64, 9, 9, 0, 0, 1, 1 },
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        ccase c;
        memset(&c, 0, sizeof c);
        c.idt = t[k].i;
        c.odt = t[k].o;
        c.kind = t[k].mx ? FV__FND_MAXIMUM : FV__FND_MINIMUM;
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
        c.wide = 1;
        c.fp = t[k].fp;
        c.fp_density = 0.6;
        run_case(&c);
    }
}

/* ---- timings (FOVEA_MINMAXTILED_BENCH=1) ------------------------------------------------- */

static void
bench(cudaStream_t s)
{
    static const int64_t shp[2] = { 8192, 8192 };
    static const fv_dtype dts[] = { FV_UINT8, FV_FLOAT32, FV_UINT16 };
    static const struct {
        int64_t k;
        int disk;
    } ws[] = { { 3, 1 }, { 7, 1 }, { 11, 1 }, { 7, 0 } };
    uint8_t fp[121];
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        fv_array *in = new_array(dts[d], 2, shp, GPU), *out = new_array(dts[d], 2, shp, GPU);
        fv_array *h = new_array(dts[d], 2, shp, CPU);
        if (!in || !out || !h)
            return;
        fill(h, 0, 0);
        CHECK_OK(fv_copy(ctx, h, in));
        for (size_t k = 0; k < sizeof ws / sizeof ws[0]; k++) {
            int64_t K = ws[k].k, r = K / 2, cnt = 0;
            for (int64_t j = 0; j < K * K; j++) {
                int64_t a = j / K - r, b = j % K - r;
                fp[j] = !ws[k].disk || a * a + b * b <= r * r;
                cnt += fp[j];
            }
            fv__filternd_params p;
            memset(&p, 0, sizeof p);
            p.kind = FV__FND_MINIMUM;
            p.mode = FV_MODE_REFLECT;
            p.ndim = 2;
            p.fshape[0] = p.fshape[1] = K;
            p.footprint = fp;
            p.count = cnt;
            fv__op_args a = { .in = in, .out = out, .params = &p };
            double tt = time_nd(s, &a, 0, 10), tu = time_nd(s, &a, 1, 10);
            printf("bench: minimum %s %lldx%lld %s 8192x8192: tiled %.3f ms, untiled %.3f ms (x%.2f)\n",
                   ws[k].disk ? "disk" : "box", (long long)K, (long long)K, fv_dtype_name(dts[d]), tt, tu, tu / tt);
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
        printf("test_cuda_minmaxtiled: no GPU (%s): the host models and the CPU backend only\n",
               fv_cuda_unavailable_reason());
    cudaStream_t s = NULL;
    if (have_gpu) {
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
        CHECK_OK(fv_context_new(&ctx));
        CHECK_OK(fv_context_set_cuda(ctx, 0, s));
    }
    test_boxes();
    printf("test_cuda_minmaxtiled: boxes done, %d cases, %d failed\n", ncases, fv_t_fail);
    test_grid();
    printf("test_cuda_minmaxtiled: grid done, %d cases, %d failed\n", ncases, fv_t_fail);
    if (!reduced)
        test_large();
    printf("test_cuda_minmaxtiled: large done, %d cases (%d in the tiled path's reach), %d failed\n", ncases, ntiled,
           fv_t_fail);
    if (have_gpu) {
        /* a few again on the default context (legacy default stream) */
        fv_context *own = ctx;
        ctx = NULL;
        for (int k = 0; k < 4; k++) {
            ccase c = { .idt = FV_FLOAT32,
                        .odt = k % 2 ? FV_UINT8 : FV_FLOAT32,
                        .kind = FV__FND_MINIMUM + k % 2,
                        .shape = { 37, 41 },
                        .fshape = { 5, 3 + 2 * (k / 2) },
                        .mode = k,
                        .cval = 1.5,
                        .lin = 1,
                        .lout = 2,
                        .specials = 1,
                        .fp = 1 };
            run_case(&c);
        }
        CHECK_OK(fv_context_synchronize(NULL));
        ctx = own;
        const char *b = getenv("FOVEA_MINMAXTILED_BENCH");
        if (b && *b && *b != '0')
            bench(s);
        CHECK_OK(fv_context_synchronize(ctx));
        fv_context_free(ctx);
        cudaStreamDestroy(s);
    }
    printf("test_cuda_minmaxtiled: %d cases; CPU kernels %s; GPU %s\n", ncases,
           cpu_kernels == 1 ? "compared" : "absent", have_gpu ? "compared" : "absent");
    return fv_t_summary("test_cuda_minmaxtiled");
}
