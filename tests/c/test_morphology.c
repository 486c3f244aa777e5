/* Binary erosion and the distance transforms (include/fovea/morphology.h)
 * against references written from their definitions:
 *   erosion  every structure element, every position, border_value outside;
 *            iterations by ping-pong passes, until stable for iterations < 1;
 *   EDT      the least distance over all zero elements, by brute force;
 *   CDT      taxicab / chessboard: the L1 / Linf distance to the nearest zero;
 *            any structure: scipy's two raster passes restated as shortest paths
 *            in the DAGs of the forward and the backward steps, relaxed to their
 *            fixed point in a different order, with scipy's tie rule for features.
 * Random binary inputs of several densities and every dtype, ndim 1..4, all
 * parameters, strided and aliased arrays, every rejected argument. Then, where
 * a GPU exists, the CUDA backend against the CPU backend (bit-identical). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "check.h"
#include "variant-force.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
static const fv_device GPU = { FV_DEVICE_CUDA, 0 };

/* ---- helpers ----------------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t
next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double
unif(void)
{
    return (double)(next_u64() >> 11) * (1.0 / 9007199254740992.0);
}
static int64_t
rint_(int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

static int64_t
prod(int nd, const int64_t *s)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= s[i];
    return n;
}

static fv_array *
mk(fv_dtype dt, int nd, const int64_t *shape, fv_device dev)
{
    fv_array *a = NULL;
    CHECK_OK(fv_array_new(NULL, dt, nd, shape, dev, &a));
    return a;
}

/* Byte offset of C-order element `flat` of a (any strides). */
static int64_t
offset_of(const fv_array *a, int64_t flat)
{
    int nd = fv_array_ndim(a);
    const int64_t *sh = fv_array_shape(a), *st = fv_array_strides(a);
    int64_t off = 0;
    for (int d = nd - 1; d >= 0; d--) {
        off += (flat % sh[d]) * st[d];
        flat /= sh[d];
    }
    return off;
}

static double
get_f(const fv_array *a, int64_t flat)
{
    const char *p = (const char *)fv_array_data(a) + offset_of(a, flat);
    switch (fv_array_dtype(a)) {
    case FV_BOOL:
    case FV_UINT8:
        return *(const uint8_t *)p;
    case FV_UINT16:
        return *(const uint16_t *)p;
    case FV_UINT32:
        return *(const uint32_t *)p;
    case FV_UINT64:
        return (double)*(const uint64_t *)p;
    case FV_INT8:
        return *(const int8_t *)p;
    case FV_INT16:
        return *(const int16_t *)p;
    case FV_INT32:
        return *(const int32_t *)p;
    case FV_INT64:
        return (double)*(const int64_t *)p;
    case FV_FLOAT32:
        return *(const float *)p;
    case FV_FLOAT64:
        return *(const double *)p;
    default:
        return 0;
    }
}

static int64_t
get_i(const fv_array *a, int64_t flat)
{
    const char *p = (const char *)fv_array_data(a) + offset_of(a, flat);
    return fv_array_dtype(a) == FV_INT64 ? *(const int64_t *)p : *(const int32_t *)p;
}

/* Foreground where unif() < density: nonzero values of all kinds (NaN, tiny,
 * negative, high bits only); background: zeros (-0.0 for floats too). */
static void
set_fg(fv_array *a, double density)
{
    int64_t n = fv_array_size(a);
    for (int64_t i = 0; i < n; i++) {
        int fg = unif() < density;
        char *p = (char *)fv_array_data(a) + offset_of(a, i);
        uint64_t r = next_u64();
        switch (fv_array_dtype(a)) {
        case FV_BOOL:
            *(uint8_t *)p = (uint8_t)fg;
            break;
        case FV_UINT8:
        case FV_INT8:
            *(uint8_t *)p = fg ? (uint8_t)(r % 255 + 1) : 0;
            break;
        case FV_UINT16:
        case FV_INT16:
            *(uint16_t *)p = fg ? (uint16_t)(r % 2 ? 0x8000 : r % 65535 + 1) : 0;
            break;
        case FV_UINT32:
        case FV_INT32:
            *(uint32_t *)p = fg ? (uint32_t)(r % 2 ? 0x80000000u : r % 1000 + 1) : 0;
            break;
        case FV_UINT64:
        case FV_INT64:
            *(uint64_t *)p = fg ? (r % 2 ? 1ull << 63 : r % 1000 + 1) : 0;
            break;
        case FV_FLOAT32: {
            static const float v[] = { 1.0f, -2.5f, 1e-40f, NAN, INFINITY, 0.5f };
            *(float *)p = fg ? v[r % 6] : (r % 2 ? -0.0f : 0.0f);
            break;
        }
        case FV_FLOAT64: {
            static const double v[] = { 1.0, -2.5, 5e-324, NAN, -INFINITY, 3.0 };
            *(double *)p = fg ? v[r % 6] : (r % 2 ? -0.0 : 0.0);
            break;
        }
        default:
            break;
        }
    }
}

/* (a != 0) as C-order bytes. */
static uint8_t *
fg_of(const fv_array *a)
{
    int64_t n = fv_array_size(a);
    uint8_t *v = malloc((size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        double x = get_f(a, i);
        v[i] = x != 0; /* NaN != 0 */
    }
    return v;
}

/* A view of shape `shape` whose axis 0 runs backwards and whose last axis takes
 * every other element of a larger buffer; *base receives the buffer. */
static fv_array *
strided(fv_dtype dt, int nd, const int64_t *shape, fv_device dev, fv_array **base)
{
    int64_t big[FV_MAX_NDIM], st[FV_MAX_NDIM], isz = (int64_t)fv_dtype_size(dt), s = isz, off = 0;
    for (int d = 0; d < nd; d++)
        big[d] = shape[d];
    big[nd - 1] = 2 * shape[nd - 1] + 1;
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = s;
        s *= big[d];
    }
    st[nd - 1] = 2 * isz;
    off = (shape[0] - 1) * st[0] + isz;
    st[0] = -st[0];
    *base = mk(dt, nd, big, dev);
    if (dev.type == FV_DEVICE_CPU)
        memset(fv_array_data(*base), 0x5a, (size_t)fv_array_nbytes(*base));
    fv_array *v = NULL;
    CHECK_OK(fv_array_view(*base, nd, shape, st, off, &v));
    return v;
}

static void
coords(int nd, const int64_t *shape, int64_t flat, int64_t *x)
{
    for (int d = nd - 1; d >= 0; d--) {
        x[d] = flat % shape[d];
        flat /= shape[d];
    }
}

static void
random_shape(int nd, int64_t *shape)
{
    static const int64_t maxe[5] = { 0, 40, 14, 8, 5 };
    for (int d = 0; d < nd; d++)
        shape[d] = rint_(1, maxe[nd]);
}

/* ---- erosion reference --------------------------------------------------------------- */

typedef struct ero_case {
    int nd;
    int64_t shape[FV_MAX_NDIM];
    int64_t sshape[FV_MAX_NDIM];
    int64_t origins[FV_MAX_NDIM];
    uint8_t *structure;
    int iterations, border, invert;
} ero_case;

static int
ref_pass(const ero_case *c, const uint8_t *in, const uint8_t *mask, uint8_t *out)
{
    int64_t n = prod(c->nd, c->shape), ss = prod(c->nd, c->sshape);
    int changed = 0;
    for (int64_t p = 0; p < n; p++) {
        int64_t x[FV_MAX_NDIM], j[FV_MAX_NDIM];
        coords(c->nd, c->shape, p, x);
        uint8_t v = c->invert ? 0 : 1;
        if (mask && !mask[p]) {
            out[p] = in[p];
            continue;
        }
        for (int64_t e = 0; e < ss; e++) {
            if (!c->structure[e])
                continue;
            coords(c->nd, c->sshape, e, j);
            int inside = 1;
            int64_t q = 0;
            for (int d = 0; d < c->nd; d++) {
                int64_t y = x[d] + j[d] - c->sshape[d] / 2 - c->origins[d];
                if (y < 0 || y >= c->shape[d])
                    inside = 0;
                q = q * c->shape[d] + y;
            }
            uint8_t b = inside ? in[q] : (uint8_t)c->border;
            if (c->invert)
                v |= b;
            else
                v &= b;
        }
        out[p] = v;
        changed |= out[p] != in[p];
    }
    return changed;
}

/* The result of c on in (0/1 bytes); caller frees. */
static uint8_t *
ref_erosion(const ero_case *c, const uint8_t *in, const uint8_t *mask)
{
    int64_t n = prod(c->nd, c->shape);
    uint8_t *a = malloc((size_t)n), *b = malloc((size_t)n);
    memcpy(a, in, (size_t)n);
    int k = 0, changed = 1;
    while (c->iterations >= 1 ? k < c->iterations : changed) {
        changed = ref_pass(c, a, mask, b);
        uint8_t *t = a;
        a = b;
        b = t;
        k++;
    }
    free(b);
    return a;
}

static int
center_true(const ero_case *c)
{
    int64_t k = 0;
    for (int d = 0; d < c->nd; d++)
        k = k * c->sshape[d] + c->sshape[d] / 2 + c->origins[d];
    return c->structure[k] != 0;
}

static void
random_ero_case(ero_case *c, int nd)
{
    memset(c, 0, sizeof *c);
    c->nd = nd;
    random_shape(nd, c->shape);
    int kind = (int)rint_(0, 3);
    for (int d = 0; d < nd; d++)
        c->sshape[d] = kind == 0 ? 3 : rint_(1, nd <= 2 ? 4 : 3);
    int64_t ss = prod(nd, c->sshape);
    c->structure = malloc((size_t)ss);
    for (int64_t e = 0; e < ss; e++)
        c->structure[e] = unif() < 0.6 ? (uint8_t)rint_(1, 255) : 0;
    if (kind == 1 && unif() < 0.1) /* an empty structure is allowed too */
        memset(c->structure, 0, (size_t)ss);
    for (int d = 0; d < nd; d++)
        c->origins[d] = rint_(-(c->sshape[d] / 2), (c->sshape[d] - 1) / 2);
    static const int its[] = { 1, 1, 2, 3, 5, 0, -1 };
    c->iterations = its[rint_(0, 6)];
    c->border = (int)rint_(0, 1);
    c->invert = (int)rint_(0, 1);
    if (c->iterations < 1 && !center_true(c)) /* such passes may cycle: tested apart */
        c->iterations = (int)rint_(1, 3);
}

static void
test_erosion(void)
{
    static const fv_dtype out_dts[] = { FV_BOOL, FV_UINT8, FV_INT16, FV_INT32, FV_UINT64, FV_FLOAT32 };
    static const double dens[] = { 0.3, 0.7, 0.9, 0.97 };
    char what[256];
    for (int t = 0; t < 700; t++) {
        ero_case c;
        int nd = 1 + t % 4;
        random_ero_case(&c, nd);
        fv_dtype idt = (fv_dtype)(t % FV_DTYPE_COUNT);
        fv_dtype odt = out_dts[(t / 11) % 6];
        int layout = (int)rint_(0, 3); /* 0 plain, 1 strided in, 2 strided out, 3 out aliases in */
        int use_mask = unif() < 0.35;
        fv_array *ib = NULL, *ob = NULL, *in, *out, *mask = NULL;
        in = layout == 1 ? strided(idt, nd, c.shape, CPU, &ib) : mk(idt, nd, c.shape, CPU);
        set_fg(in, dens[t % 4]);
        uint8_t *fin = fg_of(in), *fmask = NULL;
        if (use_mask) {
            mask = mk((fv_dtype)rint_(0, FV_DTYPE_COUNT - 1), nd, c.shape, CPU);
            set_fg(mask, 0.7);
            fmask = fg_of(mask);
        }
        if (layout == 3) {
            odt = idt;
            out = fv_array_ref(in);
        } else {
            out = layout == 2 ? strided(odt, nd, c.shape, CPU, &ob) : mk(odt, nd, c.shape, CPU);
        }
        uint8_t *want = ref_erosion(&c, fin, fmask);
        CHECK_OK(
            fv_binary_erosion(NULL, in, out, c.structure, c.sshape, c.iterations, mask, c.border, c.origins, c.invert));
        int64_t n = prod(nd, c.shape), bad = -1;
        for (int64_t i = 0; i < n && bad < 0; i++)
            if (get_f(out, i) != (double)want[i])
                bad = i;
        snprintf(what, sizeof what, "erosion %dd %s->%s it=%d bv=%d inv=%d mask=%d layout=%d", nd, fv_dtype_name(idt),
                 fv_dtype_name(odt), c.iterations, c.border, c.invert, use_mask, layout);
        if (bad >= 0)
            fprintf(stderr, "%s: element %lld is %g, want %d\n", what, (long long)bad, get_f(out, bad), want[bad]);
        CHECK(bad < 0);
        free(want);
        free(fin);
        free(fmask);
        free(c.structure);
        fv_array_unref(in);
        fv_array_unref(out);
        fv_array_unref(ib);
        fv_array_unref(ob);
        fv_array_unref(mask);
    }
}

static void
test_erosion_special(void)
{
    /* iterations < 1 with a structure without its centre: passes that cycle are an
     * error (scipy loops forever), passes that settle give the settled answer */
    int64_t n = 20, s3 = 3;
    fv_array *in = mk(FV_BOOL, 1, &n, CPU), *out = mk(FV_BOOL, 1, &n, CPU);
    uint8_t *p = fv_array_data(in);
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(i % 2 == 0);
    static const uint8_t sides[3] = { 1, 0, 1 }, right[3] = { 0, 0, 1 };
    CHECK_ERR(fv_binary_erosion(NULL, in, out, sides, &s3, 0, NULL, 1, NULL, 0), FV_EINVAL, "never settle");
    CHECK_ERR(fv_binary_erosion(NULL, in, out, sides, &s3, -3, NULL, 0, NULL, 1), FV_EINVAL, "never settle");
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(i != 7 && i != 13);
    CHECK_OK(fv_binary_erosion(NULL, in, out, right, &s3, 0, NULL, 1, NULL, 0));
    const uint8_t *o = fv_array_data(out);
    int ok = 1;
    for (int i = 0; i < n; i++) /* a shift to the left, filled with the border, until all is 1 */
        ok &= o[i] == 1;
    CHECK(ok);
    /* 0-d arrays, as one element */
    fv_array *z = mk(FV_FLOAT64, 0, NULL, CPU), *zo = mk(FV_BOOL, 0, NULL, CPU);
    static const uint8_t one = 1;
    *(double *)fv_array_data(z) = 2.0;
    CHECK_OK(fv_binary_erosion(NULL, z, zo, &one, NULL, 1, NULL, 0, NULL, 0));
    CHECK(*(uint8_t *)fv_array_data(zo) == 1);
    /* empty arrays */
    int64_t e0[2] = { 0, 5 }, s33[2] = { 3, 3 };
    fv_array *e = mk(FV_UINT8, 2, e0, CPU), *eo = mk(FV_BOOL, 2, e0, CPU);
    uint8_t st9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    CHECK_OK(fv_binary_erosion(NULL, e, eo, st9, s33, 0, NULL, 0, NULL, 0));
    fv_array_unref(e);
    fv_array_unref(eo);
    fv_array_unref(z);
    fv_array_unref(zo);
    fv_array_unref(in);
    fv_array_unref(out);
}

/* ---- EDT --------------------------------------------------------------------------- */

static void
edt_case(int nd, const int64_t *shape, const double *sampling, double density, fv_dtype idt, fv_dtype xdt, int want_d,
         int want_i, int layout)
{
    char what[160];
    fv_array *ib = NULL, *db = NULL, *in, *dist = NULL, *ind = NULL;
    int64_t n = prod(nd, shape), ishape[FV_MAX_NDIM + 1];
    ishape[0] = nd;
    memcpy(ishape + 1, shape, sizeof(int64_t) * (size_t)nd);
    in = layout == 1 ? strided(idt, nd, shape, CPU, &ib) : mk(idt, nd, shape, CPU);
    set_fg(in, density);
    uint8_t *fg = fg_of(in);
    if (want_d)
        dist = layout == 2 ? strided(FV_FLOAT64, nd, shape, CPU, &db) : mk(FV_FLOAT64, nd, shape, CPU);
    if (want_i)
        ind = mk(xdt, nd + 1, ishape, CPU);
    CHECK_OK(fv_distance_transform_edt(NULL, in, sampling, dist, ind));
    snprintf(what, sizeof what, "edt %dd n=%lld density=%g %s sampling=%d", nd, (long long)n, density,
             fv_dtype_name(idt), sampling != NULL);
    int64_t nz = 0;
    for (int64_t i = 0; i < n; i++)
        nz += !fg[i];
    int ok = 1;
    for (int64_t p = 0; p < n && ok; p++) {
        int64_t x[FV_MAX_NDIM], z[FV_MAX_NDIM];
        coords(nd, shape, p, x);
        double best = INFINITY;
        if (nz == 0) { /* scipy: features -1 on axis 0, 0 elsewhere */
            best = 0;
            for (int d = 0; d < nd; d++) {
                double t = (double)((d == 0 ? -1 : 0) - x[d]) * (sampling ? sampling[d] : 1.0);
                best += t * t;
            }
        } else {
            for (int64_t q = 0; q < n; q++) {
                if (fg[q])
                    continue;
                coords(nd, shape, q, z);
                double s2 = 0;
                for (int d = 0; d < nd; d++) {
                    double t = (double)(z[d] - x[d]) * (sampling ? sampling[d] : 1.0);
                    s2 += t * t;
                }
                if (s2 < best)
                    best = s2;
            }
        }
        if (dist) {
            double got = get_f(dist, p), want = sqrt(best);
            if (!(fabs(got - want) <= 1e-12 * want)) {
                fprintf(stderr, "%s: distance at %lld is %.17g, want %.17g\n", what, (long long)p, got, want);
                ok = 0;
            }
        }
        if (ind) {
            double s2 = 0;
            int64_t q = 0;
            for (int d = 0; d < nd; d++) {
                int64_t f = get_i(ind, d * n + p);
                double t = (double)(f - x[d]) * (sampling ? sampling[d] : 1.0);
                s2 += t * t;
                if (nz == 0) {
                    if (f != (d == 0 ? -1 : 0))
                        ok = 0;
                } else if (f < 0 || f >= shape[d]) {
                    ok = 0;
                    break;
                }
                q = q * shape[d] + f;
            }
            if (ok && nz && fg[q])
                ok = 0; /* not a zero element */
            if (ok && !(fabs(s2 - best) <= 1e-12 * best))
                ok = 0;
            if (!ok)
                fprintf(stderr, "%s: indices at %lld are not a nearest zero\n", what, (long long)p);
        }
    }
    CHECK(ok);
    free(fg);
    fv_array_unref(in);
    fv_array_unref(ib);
    fv_array_unref(dist);
    fv_array_unref(db);
    fv_array_unref(ind);
}

static void
test_edt(void)
{
    static const double dens[] = { 0.3, 0.8, 0.97, 1.0 };
    for (int t = 0; t < 240; t++) {
        int nd = 1 + t % 4;
        int64_t shape[FV_MAX_NDIM];
        random_shape(nd, shape);
        double samp[FV_MAX_NDIM];
        for (int d = 0; d < nd; d++)
            samp[d] = 0.25 + 2.5 * unif();
        int which = (int)rint_(0, 2); /* distances, indices, both */
        edt_case(nd, shape, t % 2 ? samp : NULL, dens[(t / 4) % 4], (fv_dtype)(t % FV_DTYPE_COUNT),
                 t % 3 ? FV_INT32 : FV_INT64, which != 1, which != 0, (int)rint_(0, 2));
    }
    /* long lines: many sites on the envelope */
    int64_t s1 = 3000, s2[2] = { 3, 700 };
    edt_case(1, &s1, NULL, 0.999, FV_BOOL, FV_INT32, 1, 1, 0);
    edt_case(2, s2, NULL, 0.99, FV_UINT8, FV_INT64, 1, 1, 0);
    /* 0-d: one element (scipy's atleast_1d) */
    fv_array *z = mk(FV_INT32, 0, NULL, CPU), *d = mk(FV_FLOAT64, 0, NULL, CPU);
    int64_t one = 1;
    fv_array *ix = mk(FV_INT32, 1, &one, CPU);
    *(int32_t *)fv_array_data(z) = 3;
    CHECK_OK(fv_distance_transform_edt(NULL, z, NULL, d, ix));
    CHECK(*(double *)fv_array_data(d) == 1.0 && *(int32_t *)fv_array_data(ix) == -1);
    fv_array_unref(z);
    fv_array_unref(d);
    fv_array_unref(ix);
}

/* ---- CDT ----------------------------------------------------------------------------- */

/* scipy's passes as shortest paths over the DAGs of forward / backward steps,
 * relaxed in reverse raster order until stable. dt, ft: n each. */
static void
ref_cdt(int nd, const int64_t *shape, const uint8_t *fg, const uint8_t *st, int32_t *dt, int64_t *ft)
{
    int64_t n = prod(nd, shape), ss = 1;
    for (int d = 0; d < nd; d++)
        ss *= 3;
    int32_t *F = malloc(sizeof *F * (size_t)n);
    int64_t *fF = malloc(sizeof *fF * (size_t)n);
    for (int64_t p = 0; p < n; p++)
        F[p] = fg[p] ? -1 : 0;
    for (int dir = 1; dir >= -1; dir -= 2) {
        const int32_t *init = dir > 0 ? NULL : F;
        int32_t *D = dir > 0 ? F : dt;
        if (dir < 0)
            memcpy(dt, F, sizeof *dt * (size_t)n);
        /* neighbours of p along dir: p + dir * (element - centre), elements before the centre */
        int changed = 1;
        while (changed) {
            changed = 0;
            for (int64_t k = n - 1; k >= 0; k--) {
                int64_t p = dir > 0 ? k : n - 1 - k;
                if ((init ? init[p] : D[p]) == 0)
                    continue;
                int64_t x[FV_MAX_NDIM], j[FV_MAX_NDIM];
                coords(nd, shape, p, x);
                for (int64_t e = 0; e < ss / 2; e++) {
                    if (!st[e])
                        continue;
                    coords(nd, (const int64_t[]){ 3, 3, 3, 3, 3, 3, 3, 3 }, e, j);
                    int64_t q = 0, in = 1;
                    for (int d = 0; d < nd; d++) {
                        int64_t y = x[d] + dir * (j[d] - 1);
                        in &= y >= 0 && y < shape[d];
                        q = q * shape[d] + y;
                    }
                    if (in && D[q] >= 0 && (D[p] < 0 || D[q] + 1 < D[p])) {
                        D[p] = D[q] + 1;
                        changed = 1;
                    }
                }
            }
        }
        /* features: the first neighbour in structure order that gives the value */
        int64_t *fe = dir > 0 ? fF : ft;
        for (int64_t k = 0; k < n; k++) {
            int64_t p = dir > 0 ? k : n - 1 - k; /* parents come first in this order */
            fe[p] = dir > 0 ? p : fF[p];
            if (D[p] <= 0 || (init && D[p] == init[p]))
                continue;
            int64_t x[FV_MAX_NDIM], j[FV_MAX_NDIM];
            coords(nd, shape, p, x);
            for (int64_t e = 0; e < ss / 2; e++) {
                if (!st[e])
                    continue;
                coords(nd, (const int64_t[]){ 3, 3, 3, 3, 3, 3, 3, 3 }, e, j);
                int64_t q = 0, in = 1;
                for (int d = 0; d < nd; d++) {
                    int64_t y = x[d] + dir * (j[d] - 1);
                    in &= y >= 0 && y < shape[d];
                    q = q * shape[d] + y;
                }
                if (in && D[q] >= 0 && D[q] + 1 == D[p]) {
                    fe[p] = fe[q];
                    break;
                }
            }
        }
    }
    free(F);
    free(fF);
}

static void
cdt_case(int nd, const int64_t *shape, int metric, double density, fv_dtype idt, int want_d, int want_i, int layout)
{
    char what[160];
    int64_t n = prod(nd, shape), ss = 1, sshape[FV_MAX_NDIM], ishape[FV_MAX_NDIM + 1];
    for (int d = 0; d < nd; d++) {
        ss *= 3;
        sshape[d] = 3;
    }
    ishape[0] = nd;
    memcpy(ishape + 1, shape, sizeof(int64_t) * (size_t)nd);
    uint8_t st[6561];
    for (int64_t e = 0; e < ss; e++) { /* 0 taxicab, 1 chessboard, 2 random */
        int64_t j[FV_MAX_NDIM], r = 0;
        coords(nd, sshape, e, j);
        for (int d = 0; d < nd; d++)
            r += j[d] != 1;
        st[e] = metric == 0 ? r <= 1 : metric == 1 ? 1 : unif() < 0.5;
    }
    fv_array *ib = NULL, *db = NULL, *in, *dist = NULL, *ind = NULL;
    in = layout == 1 ? strided(idt, nd, shape, CPU, &ib) : mk(idt, nd, shape, CPU);
    set_fg(in, density);
    uint8_t *fg = fg_of(in);
    if (want_d)
        dist = layout == 2 ? strided(FV_INT32, nd, shape, CPU, &db) : mk(FV_INT32, nd, shape, CPU);
    if (want_i)
        ind = mk(FV_INT32, nd + 1, ishape, CPU);
    CHECK_OK(fv_distance_transform_cdt(NULL, in, st, sshape, dist, ind));
    int32_t *dt = malloc(sizeof *dt * (size_t)n);
    int64_t *ft = malloc(sizeof *ft * (size_t)n);
    ref_cdt(nd, shape, fg, st, dt, ft);
    snprintf(what, sizeof what, "cdt %dd n=%lld metric=%d density=%g %s", nd, (long long)n, metric, density,
             fv_dtype_name(idt));
    int ok = 1;
    for (int64_t p = 0; p < n && ok; p++) {
        int64_t x[FV_MAX_NDIM], z[FV_MAX_NDIM];
        coords(nd, shape, p, x);
        if (metric < 2) { /* the metric itself, by brute force */
            int64_t best = -1;
            for (int64_t q = 0; q < n; q++) {
                if (fg[q])
                    continue;
                coords(nd, shape, q, z);
                int64_t m = 0;
                for (int d = 0; d < nd; d++) {
                    int64_t a = llabs(z[d] - x[d]);
                    m = metric == 0 ? m + a : (a > m ? a : m);
                }
                if (best < 0 || m < best)
                    best = m;
            }
            if (best != dt[p]) {
                fprintf(stderr, "%s: the DAG reference gives %d at %lld, the metric %lld\n", what, dt[p], (long long)p,
                        (long long)best);
                ok = 0;
            }
        }
        if (dist && get_i(dist, p) != dt[p]) {
            fprintf(stderr, "%s: distance at %lld is %lld, want %d\n", what, (long long)p, (long long)get_i(dist, p),
                    dt[p]);
            ok = 0;
        }
        if (ind) {
            coords(nd, shape, ft[p], z);
            for (int d = 0; d < nd; d++)
                if (get_i(ind, d * n + p) != z[d]) {
                    fprintf(stderr, "%s: index %d at %lld is %lld, want %lld\n", what, d, (long long)p,
                            (long long)get_i(ind, d * n + p), (long long)z[d]);
                    ok = 0;
                }
        }
    }
    CHECK(ok);
    free(dt);
    free(ft);
    free(fg);
    fv_array_unref(in);
    fv_array_unref(ib);
    fv_array_unref(dist);
    fv_array_unref(db);
    fv_array_unref(ind);
}

static void
test_cdt(void)
{
    static const double dens[] = { 0.3, 0.8, 0.97, 1.0 };
    for (int t = 0; t < 300; t++) {
        int nd = 1 + t % 4;
        int64_t shape[FV_MAX_NDIM];
        random_shape(nd, shape);
        int which = (int)rint_(0, 2);
        cdt_case(nd, shape, (t / 4) % 3, dens[(t / 12) % 4], (fv_dtype)(t % FV_DTYPE_COUNT), which != 1, which != 0,
                 (int)rint_(0, 2));
    }
}

/* Distances alone with the taxicab / chessboard structures by axes (lines on the
 * thread pool; variant "axes" of "cpu.distance_transform_cdt") against the raster passes ("passes") on
 * larger images than cdt_case's brute force allows, sparse ones included (long
 * distances, lines with no zero), and with no zero at all. */
static void
test_cdt_axes(void)
{
    static const int64_t shapes[][4] = { { 1000, 0, 0, 0 }, { 1, 700, 0, 0 },  { 130, 257, 0, 0 }, { 300, 2, 0, 0 },
                                         { 17, 40, 61, 0 }, { 9, 10, 11, 12 }, { 64, 1, 64, 0 } };
    static const int nds[] = { 1, 2, 2, 2, 3, 4, 3 };
    static const double dens[] = { 0.5, 0.95, 0.999, 1.0 };
    for (int si = 0; si < 7; si++)
        for (int di = 0; di < 4; di++)
            for (int metric = 0; metric < 2; metric++) {
                const int nd = nds[si];
                int64_t ss = 1, sshape[FV_MAX_NDIM];
                for (int d = 0; d < nd; d++) {
                    ss *= 3;
                    sshape[d] = 3;
                }
                uint8_t st[81];
                for (int64_t e = 0; e < ss; e++) {
                    int64_t j[FV_MAX_NDIM], r = 0;
                    coords(nd, sshape, e, j);
                    for (int d = 0; d < nd; d++)
                        r += j[d] != 1;
                    st[e] = metric == 0 ? r <= 1 : 1;
                }
                fv_array *in = mk(FV_UINT8, nd, shapes[si], CPU);
                fv_array *a = mk(FV_INT32, nd, shapes[si], CPU), *b = mk(FV_INT32, nd, shapes[si], CPU);
                set_fg(in, dens[di]);
                tv_force("cpu.distance_transform_cdt", "axes");
                CHECK_OK(fv_distance_transform_cdt(NULL, in, st, sshape, a, NULL));
                tv_force("cpu.distance_transform_cdt", "passes");
                CHECK_OK(fv_distance_transform_cdt(NULL, in, st, sshape, b, NULL));
                tv_force("cpu.distance_transform_cdt", NULL);
                const int ok = memcmp(fv_array_data(a), fv_array_data(b), (size_t)fv_array_nbytes(a)) == 0;
                if (!ok)
                    fprintf(stderr, "cdt by axes: shape %d of %d, density %g, metric %d differs from the passes\n", si,
                            nd, dens[di], metric);
                CHECK(ok);
                fv_array_unref(in);
                fv_array_unref(a);
                fv_array_unref(b);
            }
}

/* ---- rejected arguments ------------------------------------------------------------------ */

static void
test_errors(void)
{
    int64_t sh[2] = { 6, 7 }, sh2[2] = { 6, 8 }, s33[2] = { 3, 3 }, s13[2] = { 1, 3 }, s03[2] = { 0, 3 };
    int64_t ish[3] = { 2, 6, 7 }, ish_bad[3] = { 2, 7, 6 };
    uint8_t st[9] = { 0, 1, 0, 1, 1, 1, 0, 1, 0 };
    fv_array *in = mk(FV_UINT8, 2, sh, CPU), *out = mk(FV_BOOL, 2, sh, CPU), *o2 = mk(FV_BOOL, 2, sh2, CPU);
    fv_array *ro = mk(FV_BOOL, 2, sh, CPU), *gpu = NULL, *f64 = mk(FV_FLOAT64, 2, sh, CPU);
    fv_array *f32 = mk(FV_FLOAT32, 2, sh, CPU), *i32 = mk(FV_INT32, 2, sh, CPU);
    fv_array *ind = mk(FV_INT32, 3, ish, CPU), *ind64 = mk(FV_INT64, 3, ish, CPU);
    fv_array *ind16 = mk(FV_INT16, 3, ish, CPU), *indbad = mk(FV_INT32, 3, ish_bad, CPU);
    set_fg(in, 0.7);
    fv_array_set_readonly(ro, 1);
    /* an array that claims to live on a GPU: refused before it is touched */
    static uint8_t fake[42];
    CHECK_OK(fv_array_wrap(FV_BOOL, 2, sh, NULL, fake, GPU, NULL, NULL, &gpu));

    /* binary_erosion */
    CHECK_ERR(fv_binary_erosion(NULL, NULL, out, st, s33, 1, NULL, 0, NULL, 0), FV_EINVAL, "NULL");
    CHECK_ERR(fv_binary_erosion(NULL, in, NULL, st, s33, 1, NULL, 0, NULL, 0), FV_EINVAL, "NULL");
    CHECK_ERR(fv_binary_erosion(NULL, in, out, NULL, s33, 1, NULL, 0, NULL, 0), FV_EINVAL, "structure is NULL");
    CHECK_ERR(fv_binary_erosion(NULL, in, out, st, NULL, 1, NULL, 0, NULL, 0), FV_EINVAL, "structure shape");
    CHECK_ERR(fv_binary_erosion(NULL, in, o2, st, s33, 1, NULL, 0, NULL, 0), FV_EINVAL, "shapes differ");
    CHECK_ERR(fv_binary_erosion(NULL, in, ro, st, s33, 1, NULL, 0, NULL, 0), FV_EINVAL, "read-only");
    CHECK_ERR(fv_binary_erosion(NULL, in, gpu, st, s33, 1, NULL, 0, NULL, 0), FV_EDEVICE, "device");
    CHECK_ERR(fv_binary_erosion(NULL, in, out, st, s33, 1, gpu, 0, NULL, 0), FV_EDEVICE, "mask");
    CHECK_ERR(fv_binary_erosion(NULL, in, out, st, s33, 1, o2, 0, NULL, 0), FV_EINVAL, "mask and input");
    CHECK_ERR(fv_binary_erosion(NULL, in, out, st, s03, 1, NULL, 0, NULL, 0), FV_EINVAL, ">= 1");
    int64_t org[2][2] = { { 2, 0 }, { 0, -2 } }, org13[2] = { 1, 0 };
    CHECK_ERR(fv_binary_erosion(NULL, in, out, st, s33, 1, NULL, 0, org[0], 0), FV_EINVAL, "invalid origin");
    CHECK_ERR(fv_binary_erosion(NULL, in, out, st, s33, 1, NULL, 0, org[1], 0), FV_EINVAL, "invalid origin");
    CHECK_ERR(fv_binary_erosion(NULL, in, out, st, s13, 1, NULL, 0, org13, 0), FV_EINVAL, "origin[0] = 1");
    int64_t org14[2] = { 0, -2 }, s14[2] = { 1, 4 }; /* even extents: -(4/2) .. (4-1)/2 */
    uint8_t st4[4] = { 1, 1, 1, 1 };
    CHECK_OK(fv_binary_erosion(NULL, in, out, st4, s14, 1, NULL, 0, org14, 0));
    org14[1] = 2;
    CHECK_ERR(fv_binary_erosion(NULL, in, out, st4, s14, 1, NULL, 0, org14, 0), FV_EINVAL, "invalid origin");

    /* distance_transform_edt */
    CHECK_ERR(fv_distance_transform_edt(NULL, NULL, NULL, f64, NULL), FV_EINVAL, "NULL");
    CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, NULL, NULL), FV_EINVAL, "at least one");
    CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, f32, NULL), FV_EDTYPE, "float64");
    CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, NULL, ind16), FV_EDTYPE, "int32 or int64");
    CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, NULL, indbad), FV_EINVAL, "indices array has wrong shape");
    CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, NULL, f64), FV_EDTYPE, "int32 or int64");
    fv_array *f64b = mk(FV_FLOAT64, 2, sh2, CPU);
    CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, f64b, NULL), FV_EINVAL, "distances has wrong shape");
    fv_array_set_readonly(f64b, 1);
    fv_array_set_readonly(indbad, 1);
    fv_array *rod = mk(FV_FLOAT64, 2, sh, CPU), *roi = mk(FV_INT64, 3, ish, CPU);
    fv_array_set_readonly(rod, 1);
    fv_array_set_readonly(roi, 1);
    CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, rod, NULL), FV_EINVAL, "read-only");
    CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, NULL, roi), FV_EINVAL, "read-only");
    fv_array *gpud = NULL;
    static double faked[42];
    CHECK_OK(fv_array_wrap(FV_FLOAT64, 2, sh, NULL, faked, GPU, NULL, NULL, &gpud));
    CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, gpud, NULL), FV_EDEVICE, "device");
    { /* distances and indices in one buffer */
        int64_t nb = 2 * 6 * 7;
        fv_array *buf = mk(FV_INT64, 1, &nb, CPU), *dv = NULL, *iv = NULL;
        CHECK_OK(fv_array_wrap(FV_FLOAT64, 2, sh, NULL, fv_array_data(buf), CPU, NULL, NULL, &dv));
        CHECK_OK(fv_array_wrap(FV_INT64, 3, ish, NULL, fv_array_data(buf), CPU, NULL, NULL, &iv));
        CHECK_ERR(fv_distance_transform_edt(NULL, in, NULL, dv, iv), FV_EINVAL, "overlap");
        fv_array_unref(dv);
        fv_array_unref(iv);
        fv_array_unref(buf);
    }

    /* distance_transform_cdt */
    CHECK_ERR(fv_distance_transform_cdt(NULL, in, NULL, s33, i32, NULL), FV_EINVAL, "structure");
    CHECK_ERR(fv_distance_transform_cdt(NULL, in, st, NULL, i32, NULL), FV_EINVAL, "structure shape");
    CHECK_ERR(fv_distance_transform_cdt(NULL, in, st, s13, i32, NULL), FV_EINVAL, "equal to 3");
    CHECK_ERR(fv_distance_transform_cdt(NULL, in, st, s33, NULL, NULL), FV_EINVAL, "at least one");
    CHECK_ERR(fv_distance_transform_cdt(NULL, in, st, s33, f64, NULL), FV_EDTYPE, "int32");
    CHECK_ERR(fv_distance_transform_cdt(NULL, in, st, s33, NULL, ind64), FV_EDTYPE, "int32");
    CHECK_ERR(fv_distance_transform_cdt(NULL, in, st, s33, NULL, indbad), FV_EINVAL, "wrong shape");
    CHECK_ERR(fv_distance_transform_cdt(NULL, NULL, st, s33, i32, NULL), FV_EINVAL, "NULL");
    fv_array *gpui = NULL;
    static int32_t fakei[42];
    CHECK_OK(fv_array_wrap(FV_INT32, 2, sh, NULL, fakei, GPU, NULL, NULL, &gpui));
    CHECK_ERR(fv_distance_transform_cdt(NULL, in, st, s33, gpui, NULL), FV_EDEVICE, "device");
    CHECK_OK(fv_distance_transform_cdt(NULL, in, st, s33, i32, ind));

    fv_array_unref(gpud);
    fv_array_unref(gpui);
    fv_array_unref(rod);
    fv_array_unref(roi);
    fv_array_unref(f64b);
    fv_array_unref(in);
    fv_array_unref(out);
    fv_array_unref(o2);
    fv_array_unref(ro);
    fv_array_unref(gpu);
    fv_array_unref(f64);
    fv_array_unref(f32);
    fv_array_unref(i32);
    fv_array_unref(ind);
    fv_array_unref(ind64);
    fv_array_unref(ind16);
    fv_array_unref(indbad);
}

/* An input that overlaps an output is read before it is overwritten. */
static void
test_aliasing(void)
{
    int64_t sh[2] = { 9, 11 }, n = 99;
    fv_array *a = mk(FV_FLOAT64, 2, sh, CPU), *b = mk(FV_FLOAT64, 2, sh, CPU), *d = mk(FV_FLOAT64, 2, sh, CPU);
    set_fg(a, 0.8);
    for (int64_t i = 0; i < n; i++) /* no NaN here: a copy compares equal */
        if (isnan(((double *)fv_array_data(a))[i]))
            ((double *)fv_array_data(a))[i] = 4.0;
    memcpy(fv_array_data(b), fv_array_data(a), (size_t)n * 8);
    CHECK_OK(fv_distance_transform_edt(NULL, a, NULL, d, NULL));
    CHECK_OK(fv_distance_transform_edt(NULL, b, NULL, b, NULL));
    CHECK(memcmp(fv_array_data(b), fv_array_data(d), (size_t)n * 8) == 0);
    fv_array *ci = mk(FV_INT32, 2, sh, CPU), *cd = mk(FV_INT32, 2, sh, CPU);
    uint8_t st[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    int64_t s33[2] = { 3, 3 };
    for (int64_t i = 0; i < n; i++)
        ((int32_t *)fv_array_data(ci))[i] = ((double *)fv_array_data(a))[i] != 0 ? 7 : 0;
    CHECK_OK(fv_distance_transform_cdt(NULL, ci, st, s33, cd, NULL));
    CHECK_OK(fv_distance_transform_cdt(NULL, ci, st, s33, ci, NULL));
    CHECK(memcmp(fv_array_data(ci), fv_array_data(cd), (size_t)n * 4) == 0);
    /* the mask overlapping the output */
    fv_array *m = mk(FV_UINT8, 2, sh, CPU), *o = mk(FV_UINT8, 2, sh, CPU), *in = mk(FV_UINT8, 2, sh, CPU);
    set_fg(in, 0.8);
    set_fg(m, 0.5);
    CHECK_OK(fv_binary_erosion(NULL, in, o, st, s33, 2, m, 0, NULL, 0));
    CHECK_OK(fv_binary_erosion(NULL, in, m, st, s33, 2, m, 0, NULL, 0));
    CHECK(memcmp(fv_array_data(o), fv_array_data(m), (size_t)n) == 0);
    fv_array_unref(m);
    fv_array_unref(o);
    fv_array_unref(in);
    fv_array_unref(ci);
    fv_array_unref(cd);
    fv_array_unref(a);
    fv_array_unref(b);
    fv_array_unref(d);
}

/* ---- CUDA against the CPU ------------------------------------------------------------------ */

static fv_array *
to_dev(const fv_array *h)
{
    fv_array *d = mk(fv_array_dtype(h), fv_array_ndim(h), fv_array_shape(h), GPU);
    CHECK_OK(fv_copy(NULL, h, d));
    return d;
}

static fv_array *
to_host(const fv_array *d)
{
    fv_array *h = mk(fv_array_dtype(d), fv_array_ndim(d), fv_array_shape(d), CPU);
    CHECK_OK(fv_copy(NULL, d, h));
    return h;
}

static int
same_bytes(const fv_array *a, const fv_array *b, const char *what)
{
    if (fv_array_nbytes(a) != fv_array_nbytes(b) ||
        memcmp(fv_array_data(a), fv_array_data(b), (size_t)fv_array_nbytes(a))) {
        fprintf(stderr, "%s: CUDA and CPU results differ\n", what);
        return 0;
    }
    return 1;
}

static void
cuda_erosion_case(const ero_case *c, fv_dtype idt, fv_dtype odt, int use_mask, int strided_in, const char *label)
{
    char what[200];
    fv_array *hb = NULL, *db = NULL, *hin, *din, *hm = NULL, *dm = NULL;
    hin = mk(idt, c->nd, c->shape, CPU);
    set_fg(hin, 0.85);
    if (strided_in) { /* the device input as a strided view */
        fv_array *v = strided(idt, c->nd, c->shape, GPU, &db);
        CHECK_OK(fv_copy(NULL, hin, v));
        din = v;
        hb = NULL;
    } else {
        din = to_dev(hin);
    }
    if (use_mask) {
        hm = mk(FV_UINT8, c->nd, c->shape, CPU);
        set_fg(hm, 0.6);
        dm = to_dev(hm);
    }
    fv_array *hout = mk(odt, c->nd, c->shape, CPU), *dout = mk(odt, c->nd, c->shape, GPU);
    CHECK_OK(fv_binary_erosion(NULL, hin, hout, c->structure, c->sshape, c->iterations, hm, c->border, c->origins,
                               c->invert));
    CHECK_OK(fv_binary_erosion(NULL, din, dout, c->structure, c->sshape, c->iterations, dm, c->border, c->origins,
                               c->invert));
    fv_array *got = to_host(dout);
    snprintf(what, sizeof what, "cuda erosion %s %dd %s->%s it=%d", label, c->nd, fv_dtype_name(idt),
             fv_dtype_name(odt), c->iterations);
    CHECK(same_bytes(hout, got, what));
    fv_array_unref(got);
    fv_array_unref(hout);
    fv_array_unref(dout);
    fv_array_unref(hin);
    fv_array_unref(din);
    fv_array_unref(hb);
    fv_array_unref(db);
    fv_array_unref(hm);
    fv_array_unref(dm);
}

static void
cuda_distance_case(int edt, int nd, const int64_t *shape, double density, const double *sampling, int metric,
                   fv_dtype xdt, int strided_in, const char *label)
{
    char what[200];
    int64_t ishape[FV_MAX_NDIM + 1], ss = 1, sshape[FV_MAX_NDIM];
    ishape[0] = nd;
    for (int d = 0; d < nd; d++) {
        ishape[d + 1] = shape[d];
        sshape[d] = 3;
        ss *= 3;
    }
    uint8_t st[6561];
    for (int64_t e = 0; e < ss; e++)
        st[e] = metric == 1 ? 1 : metric == 0 ? 0 : unif() < 0.5;
    if (metric == 0) {
        for (int d = 0; d < nd; d++) {
            int64_t k = 0;
            for (int a = 0; a < nd; a++)
                k = k * 3 + 1;
            st[k] = 1;
            int64_t step = 1;
            for (int a = nd - 1; a > d; a--)
                step *= 3;
            st[k - step] = st[k + step] = 1;
        }
    }
    fv_dtype idt = (fv_dtype)rint_(0, FV_DTYPE_COUNT - 1);
    fv_array *hin = mk(idt, nd, shape, CPU), *din, *db = NULL;
    set_fg(hin, density);
    if (strided_in) {
        din = strided(idt, nd, shape, GPU, &db);
        CHECK_OK(fv_copy(NULL, hin, din));
    } else {
        din = to_dev(hin);
    }
    fv_dtype ddt = edt ? FV_FLOAT64 : FV_INT32;
    fv_array *hd = mk(ddt, nd, shape, CPU), *dd = mk(ddt, nd, shape, GPU);
    fv_array *hi = mk(xdt, nd + 1, ishape, CPU), *di = mk(xdt, nd + 1, ishape, GPU);
    for (int k = 0; k < 3; k++) { /* both, distances only, indices only */
        fv_array *D = k == 2 ? NULL : hd, *I = k == 1 ? NULL : hi;
        fv_array *DD = k == 2 ? NULL : dd, *DI = k == 1 ? NULL : di;
        if (edt) {
            CHECK_OK(fv_distance_transform_edt(NULL, hin, sampling, D, I));
            CHECK_OK(fv_distance_transform_edt(NULL, din, sampling, DD, DI));
        } else {
            CHECK_OK(fv_distance_transform_cdt(NULL, hin, st, sshape, D, I));
            CHECK_OK(fv_distance_transform_cdt(NULL, din, st, sshape, DD, DI));
        }
        if (D) {
            fv_array *g = to_host(dd);
            snprintf(what, sizeof what, "cuda %s %s %dd distances (%d)", edt ? "edt" : "cdt", label, nd, k);
            CHECK(same_bytes(hd, g, what));
            fv_array_unref(g);
        }
        if (I) {
            fv_array *g = to_host(di);
            snprintf(what, sizeof what, "cuda %s %s %dd indices (%d)", edt ? "edt" : "cdt", label, nd, k);
            CHECK(same_bytes(hi, g, what));
            fv_array_unref(g);
        }
    }
    fv_array_unref(hin);
    fv_array_unref(din);
    fv_array_unref(db);
    fv_array_unref(hd);
    fv_array_unref(dd);
    fv_array_unref(hi);
    fv_array_unref(di);
}

static void
test_cuda(void)
{
    if (!fv_cuda_available()) {
        printf("test_morphology: CUDA part skipped: %s\n", fv_cuda_unavailable_reason());
        return;
    }
    static const fv_dtype odts[] = { FV_BOOL, FV_UINT8, FV_INT32, FV_FLOAT64 };
    for (int t = 0; t < 120; t++) {
        ero_case c;
        random_ero_case(&c, 1 + t % 4);
        cuda_erosion_case(&c, (fv_dtype)(t % FV_DTYPE_COUNT), odts[t % 4], t % 3 == 0, t % 5 == 0, "random");
        free(c.structure);
    }
    { /* large: many blocks; until stable with a mask (propagation) */
        ero_case c;
        memset(&c, 0, sizeof c);
        c.nd = 2;
        c.shape[0] = 517;
        c.shape[1] = 1031;
        c.sshape[0] = c.sshape[1] = 3;
        uint8_t st[9] = { 0, 1, 0, 1, 1, 1, 0, 1, 0 };
        c.structure = st;
        for (int it = -1; it <= 10; it += 11) {
            c.iterations = it;
            cuda_erosion_case(&c, FV_UINT8, FV_BOOL, 0, 0, "large");
            c.invert = 1;
            cuda_erosion_case(&c, FV_BOOL, FV_BOOL, 1, 1, "large inverted, masked");
            c.invert = 0;
        }
    }
    for (int t = 0; t < 80; t++) {
        int nd = 1 + t % 4;
        int64_t shape[FV_MAX_NDIM];
        random_shape(nd, shape);
        double samp[FV_MAX_NDIM];
        for (int d = 0; d < nd; d++)
            samp[d] = 0.3 + 2 * unif();
        static const double dens[] = { 0.5, 0.9, 0.99, 1.0 };
        cuda_distance_case(1, nd, shape, dens[(t / 4) % 4], t % 2 ? samp : NULL, 0, t % 3 ? FV_INT32 : FV_INT64,
                           t % 5 == 0, "random");
        cuda_distance_case(0, nd, shape, dens[(t / 4) % 4], NULL, t % 3, FV_INT32, t % 5 == 0, "random");
    }
    int64_t big2[2] = { 700, 901 }, big3[3] = { 37, 61, 83 }, big1 = 100000;
    double s2[2] = { 1.5, 0.75 }, s3[3] = { 2.0, 1.0, 0.5 };
    cuda_distance_case(1, 2, big2, 0.995, NULL, 0, FV_INT32, 0, "large");
    cuda_distance_case(1, 2, big2, 0.9, s2, 0, FV_INT64, 1, "large sampled");
    cuda_distance_case(1, 3, big3, 0.98, s3, 0, FV_INT32, 0, "large");
    cuda_distance_case(1, 1, &big1, 0.9999, NULL, 0, FV_INT32, 0, "long");
    for (int m = 0; m < 3; m++) {
        cuda_distance_case(0, 2, big2, 0.995, NULL, m, FV_INT32, 0, "large");
        cuda_distance_case(0, 3, big3, 0.98, NULL, m, FV_INT32, 1, "large");
    }
    CHECK_OK(fv_context_synchronize(NULL));
}

int
main(void)
{
    if (getenv("FOVEA_TEST_CUDA_ONLY")) { /* for compute-sanitizer runs */
        test_cuda();
        return fv_t_summary("test_morphology");
    }
    test_errors();
    test_erosion();
    test_erosion_special();
    test_aliasing();
    test_edt();
    test_cdt();
    test_cdt_axes();
    test_cuda();
    return fv_t_summary("test_morphology");
}
