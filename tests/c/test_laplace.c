/* fv_laplace (FV__OP_LAPLACE): scipy.ndimage.laplace in one pass.
 *
 *  - the CPU backend against a straightforward reference computed here element
 *    by element, term by term as scipy's chain does it (correlate1d with
 *    [1, -2, 1] per axis in double, (-2.0 * x) + (l + r) with volatile steps and
 *    this file built with -ffp-contract=off; each term stored with scipy's cast,
 *    then `output += tmp` in the output dtype: unsigned wrap-around, float32 and
 *    float64 sums, bool OR), bit for bit (NaN = NaN): every input x output dtype
 *    pair; 1-d to 4-d shapes with odd, even, 1 and 2 extents; every mode on
 *    every axis (the edge rules written out here, independent of the library's),
 *    constant with several cvals; all axes, subsets and permutations of them;
 *    contiguous, step-2, reversed (negative strides on the first or the last
 *    axis), transposed and offset (one element in: rows not 16-byte aligned)
 *    views for in and out;
 *    in place (out == in) and out overlapping in (a shifted view of the same
 *    buffer): scipy's copy semantics; bytes of out's buffer outside the view
 *    untouched, in untouched; input values over the dtypes' whole ranges (int64
 *    / uint64 beyond 2^53, raw bool bytes 2 and 255, float NaN, inf, -0.0,
 *    subnormals, huge values whose terms overflow or leave the int32 range);
 *    long lines (blocks, lines cut into pieces) on 1 thread and on all, every
 *    dtype pair on dense arrays with rows of 130 and 1030 elements;
 *    naxes == 0 (a copy);
 *  - the CUDA backend (when a GPU is usable) on the same cases, bit for bit
 *    against the CPU result and the reference, also with variant "generic" of "cuda.laplace"
 *    (the strided kernel for contiguous arrays too);
 *  - argument errors: NULL arrays, axes or modes; naxes out of range; axes out
 *    of range or repeated; invalid modes; shape and device mismatch; read-only
 *    out; out with a stride of 0; nothing written by a rejected call.
 * Exits 0 with the CUDA part skipped (and says so) where no GPU is usable. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "scipy-casts.h"
#include "xorshift.h"
#include "fovea/fovea.h"
#include "variant-force.h"

static fv_context *ctx;
static int ncases;

static const fv_dtype ALL_DTYPES[] = { FV_BOOL,  FV_UINT8,  FV_INT8,  FV_UINT16,  FV_INT16,  FV_UINT32,
                                       FV_INT32, FV_UINT64, FV_INT64, FV_FLOAT32, FV_FLOAT64 };
#define NDT ((int)(sizeof ALL_DTYPES / sizeof ALL_DTYPES[0]))

/* ---- values ------------------------------------------------------------------------ */

/* A random element of dtype dt written at p: full-range integers (with small
 * values and the extremes often), raw bool bytes (mostly 0 / 1), floats of every
 * magnitude with the special values. */
static void
rand_elem(fv_dtype dt, void *p)
{
    const uint64_t r = next_u64(), c = next_u64() % 16;
    const double sgn = (r & 1) ? -1.0 : 1.0;
    switch (dt) {
    case FV_BOOL: {
        uint8_t v = c < 7 ? 0 : c < 14 ? 1 : c == 14 ? 2 : 255;
        memcpy(p, &v, 1);
        return;
    }
    case FV_FLOAT32:
    case FV_FLOAT64: {
        double v;
        switch (c) {
        case 0:
            v = sgn * 0.0;
            break;
        case 1:
            v = sgn * INFINITY;
            break;
        case 2:
            v = NAN;
            break;
        case 3:
            v = sgn * (dt == FV_FLOAT32 ? 1.401298464324817e-45 : 4.9406564584124654e-324) *
                (double)(1 + next_u64() % 1000);
            break; /* subnormal */
        case 4:
            v = sgn * (dt == FV_FLOAT32 ? 3.0e38 : 1.0e308) * (0.5 + uniform());
            break; /* terms overflow */
        case 5:
            v = sgn * ldexp(1.0 + uniform(), 30 + (int)(next_u64() % 40));
            break; /* beyond int32 / int64 */
        case 6:
        case 7:
            v = (double)((int64_t)(next_u64() % 601) - 300) * 0.5;
            break; /* halves: exact sums */
        default:
            v = sgn * ldexp(1.0 + uniform(), (int)(next_u64() % 40) - 20);
            break;
        }
        if (dt == FV_FLOAT32) {
            float f = (float)v;
            memcpy(p, &f, 4);
        } else {
            memcpy(p, &v, 8);
        }
        return;
    }
    default: {
        uint64_t v = r; /* any bits: the full range */
        if (c < 6)
            v = (uint64_t)((int64_t)(next_u64() % 21) - 10); /* small, signed */
        else if (c == 6)
            v = (r & 2) ? 0 : ~(uint64_t)0;
        else if (c == 7)
            v = (uint64_t)1 << (8 * fv_dtype_size(dt) - 1); /* the most negative / 2^(bits-1) */
        switch (fv_dtype_size(dt)) {
        case 1: {
            uint8_t y = (uint8_t)v;
            memcpy(p, &y, 1);
            break;
        }
        case 2: {
            uint16_t y = (uint16_t)v;
            memcpy(p, &y, 2);
            break;
        }
        case 4: {
            uint32_t y = (uint32_t)v;
            memcpy(p, &y, 4);
            break;
        }
        default:
            memcpy(p, &v, 8);
            break;
        }
        return;
    }
    }
}

/* The element of dtype dt at p as a double (bool: its raw byte, as scipy reads it). */
static double
load_d(fv_dtype dt, const char *p)
{
    switch (dt) {
    case FV_BOOL:
    case FV_UINT8: {
        uint8_t v;
        memcpy(&v, p, 1);
        return (double)v;
    }
    case FV_INT8: {
        int8_t v;
        memcpy(&v, p, 1);
        return (double)v;
    }
    case FV_UINT16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return (double)v;
    }
    case FV_INT16: {
        int16_t v;
        memcpy(&v, p, 2);
        return (double)v;
    }
    case FV_UINT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return (double)v;
    }
    case FV_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        return (double)v;
    }
    case FV_UINT64: {
        uint64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    case FV_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    case FV_FLOAT32: {
        float v;
        memcpy(&v, p, 4);
        return (double)v;
    }
    default: {
        double v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

/* ---- the reference ----------------------------------------------------------------------- */

/* The neighbour index of position pos (-1 or n) of an axis of length n under
 * mode, written out per mode (scipy's NI_ExtendLine one step past the edge);
 * -1 for constant. */
static int64_t
ref_edge(int64_t pos, int64_t n, fv_mode mode)
{
    const int left = pos < 0;
    switch (mode) {
    case FV_MODE_REFLECT:
        return left ? 0 : n - 1; /* d c b a | a b c d | d c b a */
    case FV_MODE_NEAREST:
        return left ? 0 : n - 1; /* a a a a | a b c d | d d d d */
    case FV_MODE_MIRROR:
        return n == 1 ? 0 : left ? 1 : n - 2; /* d c b   | a b c d | c b a */
    case FV_MODE_WRAP:
        return left ? n - 1 : 0; /* a b c d | a b c d | a b c d */
    default:
        return -1;
    }
}

/* The result element (out's dtype odt) for input element idx, written to dst. */
static void
ref_elem(const char *in0, const int64_t *istr, fv_dtype idt, int nd, const int64_t *shape, const int64_t *idx,
         const int *axes, int naxes, const fv_mode *modes, double cval, fv_dtype odt, void *dst)
{
    int64_t off = 0;
    for (int d = 0; d < nd; d++)
        off += idx[d] * istr[d];
    const double x = load_d(idt, in0 + off);
    volatile double accd = 0;
    volatile float accf = 0;
    uint64_t accu = 0; /* in the output width's unsigned type, below */
    int accb = 0;
    for (int k = 0; k < naxes; k++) {
        const int a = axes[k];
        const int64_t n = shape[a], pos = idx[a];
        double nb[2];
        for (int s = 0; s < 2; s++) {
            int64_t q = pos + (s ? 1 : -1);
            if (q < 0 || q >= n)
                q = ref_edge(q, n, modes[k]);
            nb[s] = q < 0 ? cval : load_d(idt, in0 + off + (q - pos) * istr[a]);
        }
        volatile double p = x * -2.0; /* scipy: iline[0] * fw[0] */
        volatile double s = nb[0] + nb[1];
        volatile double t = p + s;
        const double tv = t;
        switch (odt) {
        case FV_FLOAT64:
            accd = k ? accd + tv : tv;
            break;
        case FV_FLOAT32: {
            const float tf = (float)tv;
            accf = k ? accf + tf : tf;
            break;
        }
        case FV_BOOL: {
            const int b = (uint8_t)m_cvt32(tv) != 0;
            accb = k ? (accb || b) : b;
            break;
        }
        case FV_UINT8:
            accu = (uint8_t)(accu + (uint8_t)m_cvt32(tv));
            break;
        case FV_INT8:
            accu = (uint8_t)(accu + (uint8_t)m_cvt32(tv));
            break;
        case FV_UINT16:
            accu = (uint16_t)(accu + (uint16_t)m_cvt32(tv));
            break;
        case FV_INT16:
            accu = (uint16_t)(accu + (uint16_t)m_cvt32(tv));
            break;
        case FV_INT32:
            accu = (uint32_t)(accu + (uint32_t)m_cvt32(tv));
            break;
        case FV_UINT32:
            accu = (uint32_t)(accu + (uint32_t)m_cvt64(tv));
            break;
        case FV_INT64:
            accu = accu + (uint64_t)m_cvt64(tv);
            break;
        default:
            accu = accu + m_cvtu64(tv);
            break; /* uint64 */
        }
    }
    switch (odt) {
    case FV_FLOAT64: {
        double v = accd;
        memcpy(dst, &v, 8);
        break;
    }
    case FV_FLOAT32: {
        float v = accf;
        memcpy(dst, &v, 4);
        break;
    }
    case FV_BOOL: {
        uint8_t v = (uint8_t)accb;
        memcpy(dst, &v, 1);
        break;
    }
    case FV_UINT8:
    case FV_INT8: {
        uint8_t v = (uint8_t)accu;
        memcpy(dst, &v, 1);
        break;
    }
    case FV_UINT16:
    case FV_INT16: {
        uint16_t v = (uint16_t)accu;
        memcpy(dst, &v, 2);
        break;
    }
    case FV_UINT32:
    case FV_INT32: {
        uint32_t v = (uint32_t)accu;
        memcpy(dst, &v, 4);
        break;
    }
    default:
        memcpy(dst, &accu, 8);
        break;
    }
}

/* 1 when the n-byte elements a and b are the same (floats: or both NaN) */
static int
same_elem(fv_dtype dt, const void *a, const void *b)
{
    if (!memcmp(a, b, fv_dtype_size(dt)))
        return 1;
    if (dt == FV_FLOAT32) {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return isnan(x) && isnan(y);
    }
    if (dt == FV_FLOAT64) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return isnan(x) && isnan(y);
    }
    return 0;
}

/* ---- layouts ------------------------------------------------------------------------------- */

enum {
    L_DENSE,
    L_STEP2,
    L_REV0,
    L_REVLAST,
    L_TRANS,
    L_OFFSET,
    L_COUNT
};
static const char *const LAYOUT_NAMES[L_COUNT] = { "dense", "step2", "rev0", "revlast", "trans", "offset" };

/* A view of shape `shape` into a 1-d base buffer of the same dtype. */
typedef struct view {
    fv_array *base, *v;
    int64_t strides[4], offset, nbase;
} view;

static void
layout_geom(view *w, fv_dtype dt, int nd, const int64_t *shape, int layout)
{
    const int64_t isz = (int64_t)fv_dtype_size(dt);
    int perm[4] = { 0, 1, 2, 3 }; /* memory order, outermost first */
    int64_t step[4] = { 1, 1, 1, 1 };
    if (layout == L_TRANS && nd >= 2) {
        for (int i = 0; i < nd; i++)
            perm[i] = nd - 1 - i;
    }
    if (layout == L_STEP2)
        step[nd - 1] = 2;
    int64_t acc = isz, empty = 0;
    for (int i = nd - 1; i >= 0; i--) {
        const int a = perm[i];
        w->strides[a] = acc * step[a];
        acc *= shape[a] * step[a];
        if (shape[a] == 0)
            empty = 1;
    }
    w->offset = 0;
    const int rev = layout == L_REV0 ? 0 : layout == L_REVLAST ? nd - 1 : -1;
    if (rev >= 0 && !empty && shape[rev] > 1) {
        w->offset = (shape[rev] - 1) * w->strides[rev];
        w->strides[rev] = -w->strides[rev];
    }
    if (layout == L_OFFSET)
        w->offset += isz;     /* the view starts one element in: not 16-byte aligned */
    w->nbase = acc / isz + 2; /* room for the offset and a shifted copy */
}

static void
view_make(view *w, fv_dtype dt, int nd, const int64_t *shape, int layout, fv_device dev)
{
    memset(w, 0, sizeof *w);
    layout_geom(w, dt, nd, shape, layout);
    CHECK_OK(fv_array_new(ctx, dt, 1, &w->nbase, dev, &w->base));
    CHECK_OK(fv_array_view(w->base, nd, shape, w->strides, w->offset, &w->v));
}

static void
view_free(view *w)
{
    fv_array_unref(w->v);
    fv_array_unref(w->base);
}

/* a view over the same buffer as w, shifted by `bytes` */
static fv_array *
view_shifted(const view *w, int nd, const int64_t *shape, int64_t bytes)
{
    fv_array *v = NULL;
    CHECK_OK(fv_array_view(w->base, nd, shape, w->strides, w->offset + bytes, &v));
    return v;
}

static void
fill_random(fv_array *base)
{
    const fv_dtype dt = fv_array_dtype(base);
    const int64_t n = fv_array_size(base), isz = (int64_t)fv_dtype_size(dt);
    char *d = (char *)fv_array_data(base);
    for (int64_t i = 0; i < n; i++)
        rand_elem(dt, d + i * isz);
}

/* ---- one case ------------------------------------------------------------------------------ */

enum {
    A_NONE,
    A_SAME,
    A_SHIFTED
}; /* out separate, out == in, out a shifted view of in's buffer */

typedef struct lcase {
    fv_dtype idt, odt;
    int nd;
    int64_t shape[4];
    int ilay, olay;
    int naxes;
    int axes[4];
    fv_mode modes[4];
    double cval;
    int alias;
} lcase;

static void
case_str(const lcase *c, const char *dev, char *buf, size_t n)
{
    char sh[64] = "", ax[64] = "";
    for (int i = 0; i < c->nd; i++)
        snprintf(sh + strlen(sh), sizeof sh - strlen(sh), "%s%lld", i ? "," : "", (long long)c->shape[i]);
    for (int k = 0; k < c->naxes; k++)
        snprintf(ax + strlen(ax), sizeof ax - strlen(ax), "%s%d:%s", k ? "," : "", c->axes[k],
                 fv_mode_name(c->modes[k]));
    snprintf(buf, n, "%s %s->%s (%s) axes [%s] cval %g in %s out %s alias %d", dev, fv_dtype_name(c->idt),
             fv_dtype_name(c->odt), sh, ax, c->cval, LAYOUT_NAMES[c->ilay], LAYOUT_NAMES[c->olay], c->alias);
}

/* Byte offset of flat element e (C order) of a view with strides st from off0. */
static int64_t
elem_off(const lcase *c, const int64_t *st, int64_t off0, int64_t e, int64_t *idx)
{
    int64_t o = off0;
    for (int i = c->nd - 1; i >= 0; i--) {
        idx[i] = e % c->shape[i];
        e /= c->shape[i];
        o += idx[i] * st[i];
    }
    return o;
}

/* got (out's whole buffer, outb bytes) against want: the view's elements equal
 * (NaN = NaN), every other byte identical. Returns the number of mismatches. */
static int64_t
compare_out(const lcase *c, const int64_t *ost, int64_t off0, const char *got, const char *want, size_t outb,
            const char *what)
{
    const size_t oisz = fv_dtype_size(c->odt);
    int64_t size = 1, idx[4], bad = 0;
    for (int i = 0; i < c->nd; i++)
        size *= c->shape[i];
    char *g = (char *)malloc(outb);
    memcpy(g, got, outb);
    for (int64_t e = 0; e < size; e++) {
        const int64_t oo = elem_off(c, ost, off0, e, idx);
        if (same_elem(c->odt, g + oo, want + oo))
            memcpy(g + oo, want + oo, oisz); /* equal up to NaN payloads */
        else if (bad++ < 3)
            fprintf(stderr, "  elem %lld: %s %.17g, want %.17g\n", (long long)e, what, load_d(c->odt, g + oo),
                    load_d(c->odt, want + oo));
    }
    if (memcmp(g, want, outb)) {
        fprintf(stderr, "  %s: bytes outside the output view differ\n", what);
        bad++;
    }
    free(g);
    return bad;
}

/* Runs the case on the host and checks it against the reference; then, with a
 * GPU, on the device (the same initial buffers copied over), bit for bit
 * against the host's result. */
static void
run_case(const lcase *c, int gpu)
{
    const fv_device host = { FV_DEVICE_CPU, 0 };
    const int nd = c->nd;
    const int64_t iisz = (int64_t)fv_dtype_size(c->idt), oisz = (int64_t)fv_dtype_size(c->odt);
    view vi, vo;
    char desc[256];
    case_str(c, "cpu", desc, sizeof desc);
    view_make(&vi, c->idt, nd, c->shape, c->ilay, host);
    fill_random(vi.base);
    fv_array *out = NULL;
    if (c->alias == A_NONE) {
        view_make(&vo, c->odt, nd, c->shape, c->olay, host);
        fill_random(vo.base);
        out = fv_array_ref(vo.v);
    } else {
        out = c->alias == A_SAME ? fv_array_ref(vi.v) : view_shifted(&vi, nd, c->shape, iisz);
    }
    const view *ob = c->alias == A_NONE ? &vo : &vi; /* the buffer out lives in */
    const int64_t out_off = c->alias == A_SHIFTED ? ob->offset + iisz : ob->offset;
    const size_t inb = (size_t)fv_array_nbytes(vi.base), outb = (size_t)fv_array_nbytes(ob->base);
    char *in0 = (char *)malloc(inb), *out0 = (char *)malloc(outb), *want = (char *)malloc(outb);
    memcpy(in0, fv_array_data(vi.base), inb);
    memcpy(out0, fv_array_data(ob->base), outb);
    (void)oisz;

    /* the expected out buffer: its initial bytes with every view element replaced */
    memcpy(want, out0, outb);
    int64_t size = 1, idx[4];
    for (int i = 0; i < nd; i++)
        size *= c->shape[i];
    for (int64_t e = 0; e < size; e++) {
        const int64_t oo = elem_off(c, ob->strides, out_off, e, idx);
        if (c->naxes > 0) {
            ref_elem(in0 + vi.offset, vi.strides, c->idt, nd, c->shape, idx, c->axes, c->naxes, c->modes, c->cval,
                     c->odt, want + oo);
        } else { /* the copy: the cases use exact conversions into float64 */
            int64_t io = vi.offset;
            for (int i = 0; i < nd; i++)
                io += idx[i] * vi.strides[i];
            const double v = load_d(c->idt, in0 + io);
            memcpy(want + oo, &v, 8);
        }
    }

    CHECK_OK(fv_laplace(ctx, vi.v, out, c->axes, c->naxes, c->modes, c->cval));
    ncases++;
    int64_t bad = compare_out(c, ob->strides, out_off, (const char *)fv_array_data(ob->base), want, outb, "cpu");
    if (c->alias == A_NONE && memcmp(in0, fv_array_data(vi.base), inb)) {
        fprintf(stderr, "  the input changed\n");
        bad++;
    }
    if (bad)
        fprintf(stderr, "case %s: %lld bad\n", desc, (long long)bad);
    CHECK(bad == 0);

    if (gpu) {
        const fv_device dev = { FV_DEVICE_CUDA, 0 };
        view di, dout;
        fv_array *hin0 = NULL, *hout0 = NULL, *dout_v = NULL, *back = NULL;
        case_str(c, "cuda", desc, sizeof desc);
        view_make(&di, c->idt, nd, c->shape, c->ilay, dev);
        CHECK_OK(fv_array_wrap(c->idt, 1, &vi.nbase, NULL, in0, host, NULL, NULL, &hin0));
        CHECK_OK(fv_copy(ctx, hin0, di.base));
        if (c->alias == A_NONE) {
            view_make(&dout, c->odt, nd, c->shape, c->olay, dev);
            CHECK_OK(fv_array_wrap(c->odt, 1, &vo.nbase, NULL, out0, host, NULL, NULL, &hout0));
            CHECK_OK(fv_copy(ctx, hout0, dout.base));
            dout_v = fv_array_ref(dout.v);
        } else {
            dout_v = c->alias == A_SAME ? fv_array_ref(di.v) : view_shifted(&di, nd, c->shape, iisz);
        }
        const view *dob = c->alias == A_NONE ? &dout : &di;
        CHECK_OK(fv_laplace(ctx, di.v, dout_v, c->axes, c->naxes, c->modes, c->cval));
        ncases++;
        CHECK_OK(fv_array_new(ctx, fv_array_dtype(dob->base), 1, &dob->nbase, host, &back));
        CHECK_OK(fv_copy(ctx, dob->base, back));
        const int64_t dbad = compare_out(c, ob->strides, out_off, (const char *)fv_array_data(back),
                                         (const char *)fv_array_data(ob->base), outb, "cuda");
        if (dbad)
            fprintf(stderr, "case %s: %lld differ from the CPU\n", desc, (long long)dbad);
        CHECK(dbad == 0);
        fv_array_unref(back);
        fv_array_unref(dout_v);
        fv_array_unref(hin0);
        fv_array_unref(hout0);
        if (c->alias == A_NONE)
            view_free(&dout);
        view_free(&di);
    }
    free(want);
    free(in0);
    free(out0);
    fv_array_unref(out);
    if (c->alias == A_NONE)
        view_free(&vo);
    view_free(&vi);
}

/* ---- case generation ------------------------------------------------------------------------ */

static const double CVALS[] = { 0.0, -2.5, 3.0, 1e10, -0.0, 250.75, -7.0 };

static void
random_axes(lcase *c, int which)
{
    /* which: 0 all in order, 1 all reversed, 2 a random subset in random order */
    int perm[4] = { 0, 1, 2, 3 };
    if (which == 2)
        for (int i = c->nd - 1; i > 0; i--) {
            const int k = (int)(next_u64() % (uint64_t)(i + 1)), t = perm[i];
            perm[i] = perm[k];
            perm[k] = t;
        }
    c->naxes = which == 2 ? 1 + (int)(next_u64() % (uint64_t)c->nd) : c->nd;
    for (int k = 0; k < c->naxes; k++) {
        c->axes[k] = which == 1 ? c->nd - 1 - k : perm[k];
        c->modes[k] = (fv_mode)(next_u64() % FV_MODE_COUNT);
    }
    c->cval = CVALS[next_u64() % (sizeof CVALS / sizeof CVALS[0])];
}

static const int64_t SHAPES[][5] = {
    /* nd, extents */
    { 1, 7 },    { 1, 1 },    { 1, 2 },       { 1, 10 },      { 2, 5, 6 },    { 2, 1, 4 },       { 2, 2, 1 },
    { 2, 7, 2 }, { 2, 1, 1 }, { 3, 3, 4, 5 }, { 3, 2, 1, 3 }, { 3, 4, 3, 2 }, { 4, 3, 2, 4, 2 }, { 4, 2, 3, 1, 5 },
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

static void
set_shape(lcase *c, int s)
{
    c->nd = (int)SHAPES[s][0];
    for (int i = 0; i < c->nd; i++)
        c->shape[i] = SHAPES[s][1 + i];
}

static void
test_cases(int gpu)
{
    lcase c;
    /* every dtype pair, 2-d all axes and 3-d a random subset */
    for (int a = 0; a < NDT; a++)
        for (int b = 0; b < NDT; b++) {
            memset(&c, 0, sizeof c);
            c.idt = ALL_DTYPES[a];
            c.odt = ALL_DTYPES[b];
            set_shape(&c, 4);
            random_axes(&c, 0);
            run_case(&c, gpu);
            set_shape(&c, 9);
            random_axes(&c, 2);
            c.ilay = (a + b) % L_COUNT;
            c.olay = (a + 2 * b) % L_COUNT;
            run_case(&c, gpu);
        }
    /* every dtype pair on dense arrays with rows of 130 and 1030 elements: the CUDA
     * by-rows kernel (1 and 4 columns per thread) for every instantiation; on the CPU
     * lines of several blocks */
    static const int64_t rows_shapes[2][4] = { { 2, 5, 130 }, { 3, 2, 3, 1030 } };
    for (int a = 0; a < NDT; a++)
        for (int b = 0; b < NDT; b++)
            for (int r = 0; r < 2; r++) {
                memset(&c, 0, sizeof c);
                c.idt = ALL_DTYPES[a];
                c.odt = ALL_DTYPES[b];
                c.nd = (int)rows_shapes[r][0];
                for (int i = 0; i < c.nd; i++)
                    c.shape[i] = rows_shapes[r][1 + i];
                random_axes(&c, (a + b + r) % 3);
                run_case(&c, gpu);
            }
    /* a grid: input dtype x outputs {same, float32, float64, uint8, int8, bool} x shapes x
     * layouts x axes choices */
    static const int outs[] = { -1, FV_FLOAT32, FV_FLOAT64, FV_UINT8, FV_INT8, FV_BOOL };
    int n = 0;
    for (int a = 0; a < NDT; a++)
        for (int o = 0; o < 6; o++)
            for (int rep = 0; rep < 3; rep++, n++) {
                memset(&c, 0, sizeof c);
                c.idt = ALL_DTYPES[a];
                c.odt = outs[o] < 0 ? c.idt : (fv_dtype)outs[o];
                set_shape(&c, n % NSHAPES);
                random_axes(&c, n % 3);
                c.ilay = n % L_COUNT;
                c.olay = (n / L_COUNT + rep) % L_COUNT;
                run_case(&c, gpu);
            }
    /* every mode alone on every axis, small extents (1, 2, 3) */
    for (int m = 0; m < FV_MODE_COUNT; m++)
        for (int s = 0; s < NSHAPES; s++) {
            memset(&c, 0, sizeof c);
            c.idt = s % 2 ? FV_FLOAT64 : FV_INT16;
            c.odt = s % 3 ? FV_FLOAT64 : FV_INT32;
            set_shape(&c, s);
            random_axes(&c, 0);
            for (int k = 0; k < c.naxes; k++)
                c.modes[k] = (fv_mode)m;
            c.cval = -2.5;
            run_case(&c, gpu);
        }
    /* in place and overlapping: out == in, out = in's buffer one element on */
    for (int a = 0; a < NDT; a++)
        for (int al = A_SAME; al <= A_SHIFTED; al++) {
            memset(&c, 0, sizeof c);
            c.idt = c.odt = ALL_DTYPES[a];
            set_shape(&c, (a + al) % NSHAPES);
            random_axes(&c, (a + al) % 3);
            c.ilay = c.olay = (a + al) % L_COUNT;
            c.alias = al;
            run_case(&c, gpu);
        }
    /* naxes == 0: a copy (converted) */
    memset(&c, 0, sizeof c);
    c.idt = FV_INT16;
    c.odt = FV_FLOAT64;
    set_shape(&c, 9);
    c.naxes = 0;
    run_case(&c, gpu);
}

/* long lines: blocks of the CPU kernel, lines cut into pieces; big grids on the GPU */
static void
test_large(int gpu)
{
    static const int64_t shapes[][4] = { { 1, 100003 }, { 2, 2, 70001 }, { 2, 300, 701 }, { 3, 5, 33, 1029 } };
    for (int s = 0; s < 4; s++)
        for (int v = 0; v < 3; v++) {
            lcase c;
            memset(&c, 0, sizeof c);
            c.nd = (int)shapes[s][0];
            for (int i = 0; i < c.nd; i++)
                c.shape[i] = shapes[s][1 + i];
            c.idt = v == 0 ? FV_FLOAT32 : v == 1 ? FV_UINT8 : FV_FLOAT64;
            c.odt = v == 1 ? FV_UINT8 : v == 2 ? FV_FLOAT64 : FV_FLOAT32;
            random_axes(&c, v == 2 ? 1 : 0);
            c.ilay = v == 2 ? L_REVLAST : L_DENSE;
            c.olay = v == 2 ? L_STEP2 : L_DENSE;
            run_case(&c, gpu);
        }
}

/* ---- errors ---------------------------------------------------------------------------------- */

static void
test_errors(void)
{
    const fv_device host = { FV_DEVICE_CPU, 0 };
    const int64_t shape[2] = { 4, 5 }, other[2] = { 5, 4 }, one[1] = { 5 };
    fv_array *a = NULL, *o = NULL, *odd = NULL, *big = NULL, *bcast = NULL, *v1 = NULL, *z0 = NULL;
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, shape, host, &a));
    CHECK_OK(fv_array_zeros(ctx, FV_INT16, 2, shape, host, &o));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, other, host, &odd));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 1, one, host, &v1));
    const int64_t bshape[2] = { 8, 5 }, zstr[2] = { 0, 4 };
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, bshape, host, &big));
    CHECK_OK(fv_array_view(big, 2, shape, zstr, 0, &bcast)); /* one row repeated */
    for (int i = 0; i < 20; i++)
        ((float *)fv_array_data(a))[i] = (float)(i * i % 7);
    const int ax01[2] = { 0, 1 }, ax00[2] = { 0, 0 }, ax02[2] = { 0, 2 }, axm[1] = { -1 };
    const fv_mode md[2] = { FV_MODE_REFLECT, FV_MODE_WRAP }, mbad[2] = { FV_MODE_REFLECT, FV_MODE_COUNT },
                  mneg[1] = { (fv_mode)-1 };
    CHECK_OK(fv_laplace(ctx, a, o, ax01, 2, md, 0.0));
    CHECK_OK(fv_laplace(ctx, a, o, NULL, 0, NULL, 0.0)); /* a copy */
    /* 0-d: only the copy */
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT64, 0, NULL, host, &z0));
    CHECK_OK(fv_laplace(ctx, z0, z0, NULL, 0, NULL, 0.0));
    CHECK_ERR(fv_laplace(ctx, z0, z0, ax01, 1, md, 0.0), FV_EINVAL, "0 to 0 axes");
    /* nothing below may write o */
    int16_t *od = (int16_t *)fv_array_data(o);
    for (int i = 0; i < 20; i++)
        od[i] = (int16_t)(1000 + i);
    CHECK_ERR(fv_laplace(ctx, NULL, o, ax01, 2, md, 0.0), FV_EINVAL, "NULL in");
    CHECK_ERR(fv_laplace(ctx, a, NULL, ax01, 2, md, 0.0), FV_EINVAL, "NULL out");
    CHECK_ERR(fv_laplace(ctx, a, o, ax01, -1, md, 0.0), FV_EINVAL, "naxes = -1");
    CHECK_ERR(fv_laplace(ctx, a, o, ax01, 3, md, 0.0), FV_EINVAL, "naxes = 3");
    CHECK_ERR(fv_laplace(ctx, a, o, NULL, 2, md, 0.0), FV_EINVAL, "axes is NULL");
    CHECK_ERR(fv_laplace(ctx, a, o, ax01, 2, NULL, 0.0), FV_EINVAL, "modes is NULL");
    CHECK_ERR(fv_laplace(ctx, a, o, ax00, 2, md, 0.0), FV_EINVAL, "axes must be unique");
    CHECK_ERR(fv_laplace(ctx, a, o, ax02, 2, md, 0.0), FV_EINVAL, "axis 2 is out of range");
    CHECK_ERR(fv_laplace(ctx, a, o, axm, 1, md, 0.0), FV_EINVAL, "axis -1 is out of range");
    CHECK_ERR(fv_laplace(ctx, a, o, ax01, 2, mbad, 0.0), FV_EINVAL, "invalid mode 5");
    CHECK_ERR(fv_laplace(ctx, a, o, ax01, 1, mneg, 0.0), FV_EINVAL, "invalid mode -1");
    CHECK_ERR(fv_laplace(ctx, a, odd, ax01, 2, md, 0.0), FV_EINVAL, "shapes differ");
    CHECK_ERR(fv_laplace(ctx, v1, o, ax01, 1, md, 0.0), FV_EINVAL, "shapes differ");
    CHECK_ERR(fv_laplace(ctx, a, bcast, ax01, 2, md, 0.0), FV_EINVAL, "share memory");
    fv_array_set_readonly(o, 1);
    CHECK_ERR(fv_laplace(ctx, a, o, ax01, 2, md, 0.0), FV_EINVAL, "read-only");
    fv_array_set_readonly(o, 0);
    if (fv_cuda_available()) {
        fv_array *d = NULL;
        CHECK_OK(fv_array_zeros(ctx, FV_INT16, 2, shape, (fv_device){ FV_DEVICE_CUDA, 0 }, &d));
        CHECK_ERR(fv_laplace(ctx, a, d, ax01, 2, md, 0.0), FV_EDEVICE, "different devices");
        CHECK_ERR(fv_laplace(ctx, d, o, ax01, 2, md, 0.0), FV_EDEVICE, "different devices");
        CHECK_OK(fv_laplace(ctx, d, d, ax01, 2, md, 0.0)); /* in place on the device */
        fv_array_unref(d);
    }
    int intact = 1;
    for (int i = 0; i < 20; i++)
        intact &= od[i] == 1000 + i;
    CHECK(intact);
    fv_array_unref(a);
    fv_array_unref(o);
    fv_array_unref(odd);
    fv_array_unref(v1);
    fv_array_unref(bcast);
    fv_array_unref(big);
    fv_array_unref(z0);
}

int
main(void)
{
    CHECK_OK(fv_context_new(&ctx));
    const int gpu = fv_cuda_available();
    test_errors();
    test_cases(0);
    fv_context_set_threads(ctx, 1); /* one thread: no pieces */
    test_large(0);
    fv_context_set_threads(ctx, 0);
    test_large(0);
    if (gpu) {
        test_cases(1);
        test_large(1);
        tv_force("cuda.laplace", "generic"); /* the strided kernel for everything */
        test_cases(1);
        test_large(1);
        tv_force("cuda.laplace", NULL);
    } else {
        printf("test_laplace: CUDA part skipped: %s\n", fv_cuda_unavailable_reason());
    }
    printf("test_laplace: %d cases\n", ncases);
    fv_context_free(ctx);
    return fv_t_summary("test_laplace");
}
