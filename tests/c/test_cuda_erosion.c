/* The CUDA binary erosion's tiled path (src/cuda/morphology/erosion-tile.h)
 * bit for bit against the CPU backend and the generic CUDA kernel
 * (variant "generic" of "cuda.binary_erosion").
 *
 * 1. Without a GPU too: a host model that runs the tiled kernel's own steps
 *    (erosion-tile.h, block by block, the shared planes as host memory), with
 *    a check that every shared word an element reads was written, against
 *    the CPU kernel (FV__OP_BINARY_EROSION) and its flags.
 * 2. With a GPU: the CUDA kernel (tiled where it applies), the CUDA kernel
 *    with variant "generic" and the CPU kernel on the same inputs and
 *    initial outputs: outputs, `changed` and `same_as_before` flags; then the
 *    public fv_binary_erosion (iterations 1, 2, 5, until stable; masks) the
 *    same three ways.
 *
 * Cases: random binary images (uint8 values other than 0 / 1, raw bool bytes
 * other than 0 / 1, int8), structures 3x3 cross, 3x3 full, 5x5 random, 7x7
 * disk, 1x5, 5x1, asymmetric ones, with and without their centre, empty;
 * 3-D and 1-D ones; random origins; border 0 / 1; masks (one-byte and wider);
 * invert; shapes 1xN, Nx1, 1x1, 2x2, 17x33, 130x257, 1000x1000, widths not a
 * multiple of 4; padded, offset (unaligned), row-reversed and last-axis
 * strided views; wider outputs (the generic path).
 *
 * FOVEA_ERO_BENCH=1 adds timings on 8192 x 8192 bool (tiled against generic).
 * FOVEA_TEST_CUDA_ONLY=1: no host model, fewer and smaller cases (for
 * compute-sanitizer). Exits 77 (skipped) without a GPU once the model passes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fovea/fovea.h"
#include "internal.h"
#include "ops/filters/sep2.h"
#include "ops/filters/filternd.h"
#include "ops/morphology/binary-erosion.h"
#include "ops/morphology/distance.h"
#include "ops/filters/ndimage-math.h"
#define FV_T_SEED 0x2545f4914f6cdd1dull
#include "harness.h" /* check.h, variant-force.h, xorshift.h, arrays, devices */
#include "cuda/morphology/erosion-tile.h"

static int have_gpu, ncases, nmodel;

/* ---- structures ------------------------------------------------------------------- */

typedef struct strel {
    int nd;
    int64_t shape[3];
    uint8_t v[512];
    const char *name;
} strel;

static int64_t
prod(int nd, const int64_t *s)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= s[d];
    return n;
}

/* kind: 0 cross, 1 full, 2 random (density dens), 3 disk */
static strel
mkstrel(int nd, const int64_t *shape, int kind, double dens, const char *name)
{
    strel s;
    memset(&s, 0, sizeof s);
    s.nd = nd;
    s.name = name;
    for (int d = 0; d < nd; d++)
        s.shape[d] = shape[d];
    int64_t n = prod(nd, shape);
    for (int64_t k = 0; k < n; k++) {
        int64_t j[3] = { 0, 0, 0 }, rem = k;
        for (int d = nd - 1; d >= 0; d--) {
            j[d] = rem % shape[d];
            rem /= shape[d];
        }
        int on = 0, dist = 0, r2 = 0;
        for (int d = 0; d < nd; d++) {
            int64_t c = j[d] - shape[d] / 2;
            dist += c != 0;
            r2 += (int)(c * c);
        }
        switch (kind) {
        case 0:
            on = dist <= 1;
            break;
        case 1:
            on = 1;
            break;
        case 2:
            on = uniform() < dens;
            break;
        default:
            on = r2 <= (int)((shape[0] / 2) * (shape[0] / 2));
            break;
        }
        s.v[k] = (uint8_t)on;
    }
    return s;
}

/* ---- arrays and views --------------------------------------------------------------- */

/* A view of shape[nd] in a fresh 1-D byte base:
 * layout 0 contiguous; 1 rows padded to an odd pitch, base offset 1 (unaligned);
 * 2 rows reversed (negative stride along axis nd-2), pitch a multiple of 4 plus 8;
 * 3 last axis stride 2 (the generic path); 4 pitch a multiple of 4, offset 4. */
static fv_array *
ero_view(fv_dtype dt, int nd, const int64_t *shape, int layout, fv_device dev, int64_t nbytes_base, fv_array *base,
         int64_t *need)
{
    int64_t isz = (int64_t)fv_dtype_size(dt), st[3], off = 0;
    int64_t last = shape[nd - 1];
    int64_t pitch; /* bytes per row */
    switch (layout) {
    case 1:
        pitch = (last + 3) * isz | 1;
        off = isz;
        break;
    case 2:
        pitch = ((last * isz + 3) / 4) * 4 + 8;
        break;
    case 3:
        pitch = 2 * last * isz + 4;
        break;
    case 4:
        pitch = ((last * isz + 3) / 4) * 4 + 4;
        off = 4;
        break;
    default:
        pitch = last * isz;
        break;
    }
    if (layout == 1 && isz > 1)
        pitch = (last + 3) * isz; /* keep wider types element-aligned */
    st[nd - 1] = layout == 3 ? 2 * isz : isz;
    int64_t s = pitch;
    for (int d = nd - 2; d >= 0; d--) {
        st[d] = s;
        s *= shape[d];
    }
    int64_t total = off + (nd > 1 ? s : pitch) + 8;
    if (layout == 2 && nd > 1) { /* reverse axis nd-2 */
        off += (shape[nd - 2] - 1) * st[nd - 2];
        st[nd - 2] = -st[nd - 2];
    }
    if (need) {
        *need = total;
        return NULL;
    }
    (void)dev;
    (void)nbytes_base;
    fv_array *v = NULL;
    CHECK_OK(fv_array_view(base, nd, shape, st, off, &v));
    return v;
}

/* A host base and (with a GPU) a device base of the same bytes, and views of both. */
typedef struct pair {
    fv_array *hb, *db, *h, *d;
} pair;

static void
pair_free(pair *p)
{
    fv_array_unref(p->h);
    fv_array_unref(p->d);
    fv_array_unref(p->hb);
    fv_array_unref(p->db);
    memset(p, 0, sizeof *p);
}

/* values: 0 binary 0/1 bytes, 1 any nonzero byte for true */
static pair
make_pair(fv_dtype dt, int nd, const int64_t *shape, int layout, double dens, int values)
{
    pair p;
    memset(&p, 0, sizeof p);
    int64_t need = 0;
    size_t isz = fv_dtype_size(dt);
    ero_view(dt, nd, shape, layout, CPU, 0, NULL, &need);
    need = (need + (int64_t)isz - 1) / (int64_t)isz; /* elements of the base */
    p.hb = new_array(dt, 1, &need, CPU);
    uint8_t *b = fv_array_data(p.hb);
    need *= (int64_t)isz;
    for (int64_t i = 0; i < need; i++)
        b[i] = 0;
    /* per element: the first byte decides for one-byte types; wider ones get a
     * nonzero low byte (or, now and then, a nonzero high byte only) */
    for (int64_t i = 0; i + (int64_t)isz <= need; i += (int64_t)isz) {
        int on = uniform() < dens;
        if (!on)
            continue;
        uint8_t v = values ? (uint8_t)irand(1, 255) : 1;
        if (isz > 1)
            b[i + isz - 1] = 0x40;
        else
            b[i] = v;
    }
    p.h = ero_view(dt, nd, shape, layout, CPU, need, p.hb, NULL);
    if (have_gpu) {
        int64_t ne = need / (int64_t)isz;
        p.db = new_array(dt, 1, &ne, GPU);
        CHECK_OK(fv_copy(ctx, p.hb, p.db));
        p.d = ero_view(dt, nd, shape, layout, GPU, need, p.db, NULL);
    }
    return p;
}

/* ---- the host model of the tiled kernel ---------------------------------------------------- */

static int
byte_dt(fv_dtype dt)
{
    return dt == FV_BOOL || dt == FV_UINT8 || dt == FV_INT8;
}

static int
unit_last(const fv_array *a)
{
    int nd = fv_array_ndim(a);
    return fv_array_shape(a)[nd - 1] == 1 || fv_array_strides(a)[nd - 1] == 1;
}

static void
zy_strides(const fv_array *a, int64_t *sz, int64_t *sy)
{
    int nd = fv_array_ndim(a);
    int64_t st[3] = { 0, 0, 1 };
    for (int d = 0; d < nd; d++)
        st[3 - nd + d] = fv_array_shape(a)[d] > 1 ? fv_array_strides(a)[d] : 0;
    *sz = st[0];
    *sy = st[1];
}

/* Every shared word an element (and the centre) reads lies in the part of its
 * plane the load steps write. */
static int
plan_reads_ok(const fv_ero_tile_args *a)
{
    int rows = a->npl * a->ry;
    for (int e = -1; e < a->nel; e++) {
        int off = e < 0 ? a->self_off : a->off[e];
        int s = off / a->PL, rem = off - s * a->PL, row = rem / a->P, word = rem - row * a->P;
        if (s > 3 || row + FV_ERO_TH - 1 >= rows || word + FV_ERO_BX - 1 > (s ? a->P - 2 : a->P - 1))
            return 0;
        if (e < 0 && s != 0)
            return 0;
    }
    return 1;
}

/* The tiled kernel on host arrays: 1 (run) or 0 (the tiled path does not apply). */
static int
model_tiled(const fv_array *in, fv_array *out, const fv_array *mask, const fv__binary_erosion_params *p, int *changed,
            int *differs)
{
    int nd = fv_array_ndim(in);
    if (nd < 1 || nd > 3 || !byte_dt(fv_array_dtype(in)) || !byte_dt(fv_array_dtype(out)) ||
        (mask && !byte_dt(fv_array_dtype(mask))) || !unit_last(in) || !unit_last(out) || (mask && !unit_last(mask)))
        return 0;
    fv_ero_tile_args *a = calloc(1, sizeof *a);
    int64_t smem = fv_ero_tile_plan(nd, p->structure, p->sshape, p->origins, a);
    if (!smem) {
        free(a);
        return 0;
    }
    CHECK(plan_reads_ok(a));
    const int64_t *sh = fv_array_shape(in);
    a->nz = nd == 3 ? sh[0] : 1;
    a->ny = nd >= 2 ? sh[nd - 2] : 1;
    a->nx = sh[nd - 1];
    zy_strides(in, &a->siz, &a->siy);
    zy_strides(out, &a->soz, &a->soy);
    if (mask)
        zy_strides(mask, &a->smz, &a->smy);
    a->in = fv_array_data(in);
    a->out = fv_array_data(out);
    a->mask = mask ? fv_array_data(mask) : NULL;
    a->inv = p->invert ? 0x01010101u : 0;
    a->bt = (uint32_t)((p->border_value != 0) ^ (p->invert != 0));
    a->want_flags = (p->changed ? 1 : 0) | (p->same_as_before ? 2 : 0);
    uint32_t *sm = malloc((size_t)smem);
    int64_t gx = (a->nx + FV_ERO_TW - 1) / FV_ERO_TW, gy = (a->ny + FV_ERO_TH - 1) / FV_ERO_TH;
    int rows = a->npl * a->ry, P = a->P;
    *changed = 0;
    *differs = 0;
    for (int64_t z = 0; z < a->nz; z++)
        for (int64_t by = 0; by < gy; by++)
            for (int64_t bx = 0; bx < gx; bx++) {
                memset(sm, 0, (size_t)smem); /* an unwritten word would zero the AND */
                int interior = fv_ero_interior(a, bx, by, z);
                for (int tr = 0; tr < rows; tr++)
                    for (int j = 0; j < P; j++)
                        sm[tr * P + j] = fv_ero_load(a, bx, by, z, tr, j, interior, 0);
                for (int tr = 0; tr < rows; tr++)
                    for (int j = 0; j < P - 1; j++)
                        for (int s = 1; s < 4; s++)
                            sm[s * a->PL + tr * P + j] = fv_ero_shift(sm[tr * P + j], sm[tr * P + j + 1], s);
                for (int r = 0; r < FV_ERO_TH; r++)
                    for (int c = 0; c < FV_ERO_BX; c++)
                        fv_ero_out(a, sm, bx, by, z, r, c, 0, changed, differs);
            }
    free(sm);
    free(a);
    return 1;
}

/* ---- one kernel case ------------------------------------------------------------------- */

typedef struct kcase {
    int nd;
    int64_t shape[3];
    fv_dtype idt, odt, mdt; /* mdt: the mask's, when has_mask */
    int has_mask;
    int lin, lout, lmask;
    int border, invert, want_changed, want_same;
    int values;
    double dens;
    const strel *s;
    int64_t org[3];
} kcase;

static void
describe(const kcase *c, char *buf, size_t n)
{
    snprintf(buf, n,
             "%s shape %lldx%lldx%lld (nd %d) in %s out %s mask %s layouts %d/%d/%d border %d invert %d "
             "origins %lld,%lld,%lld flags %d%d",
             c->s->name, (long long)c->shape[0], (long long)(c->nd > 1 ? c->shape[1] : 0),
             (long long)(c->nd > 2 ? c->shape[2] : 0), c->nd, fv_dtype_name(c->idt), fv_dtype_name(c->odt),
             c->has_mask ? fv_dtype_name(c->mdt) : "none", c->lin, c->lout, c->lmask, c->border, c->invert,
             (long long)c->org[0], (long long)c->org[1], (long long)c->org[2], c->want_changed, c->want_same);
}

static size_t
nbytes(const fv_array *a)
{
    return (size_t)fv_array_size(a) * fv_dtype_size(fv_array_dtype(a));
}

static int
same_bytes(const fv_array *a, const fv_array *b)
{
    return fv_array_size(a) == fv_array_size(b) &&
        memcmp(fv_array_data(a), fv_array_data(b), (size_t)fv_array_size(a) * fv_dtype_size(fv_array_dtype(a))) == 0;
}

static void
run_kcase(const kcase *c)
{
    char what[400];
    describe(c, what, sizeof what);
    ncases++;
    fv__binary_erosion_params p;
    memset(&p, 0, sizeof p);
    p.ndim = c->nd;
    for (int d = 0; d < c->nd; d++) {
        p.sshape[d] = c->s->shape[d];
        p.origins[d] = c->org[d];
    }
    p.structure = c->s->v;
    p.border_value = c->border;
    p.invert = c->invert;
    pair in = make_pair(c->idt, c->nd, c->shape, c->lin, c->dens, c->values);
    pair mk;
    memset(&mk, 0, sizeof mk);
    if (c->has_mask)
        mk = make_pair(c->mdt, c->nd, c->shape, c->lmask, 0.7, 1);
    /* the output's initial bytes matter for same_as_before: random 0 / 1 */
    pair out0 = make_pair(c->odt, c->nd, c->shape, c->lout, 0.5, 0);

    /* CPU reference into a copy of the initial output */
    pair oc = make_pair(c->odt, c->nd, c->shape, c->lout, 0.0, 0);
    memcpy(fv_array_data(oc.hb), fv_array_data(out0.hb), nbytes(out0.hb));
    int ch_cpu = -1, sa_cpu = -1;
    p.changed = c->want_changed ? &ch_cpu : NULL;
    p.same_as_before = c->want_same ? &sa_cpu : NULL;
    fv__op_args a = { .in = in.h, .in2 = c->has_mask ? mk.h : NULL, .out = oc.h, .params = &p };
    CHECK_OK(fv__dispatch(ctx, FV__OP_BINARY_EROSION, &a));
    fv_array *ref = to_host(oc.h);

    if (!cuda_only) { /* the host model */
        pair om = make_pair(c->odt, c->nd, c->shape, c->lout, 0.0, 0);
        memcpy(fv_array_data(om.hb), fv_array_data(out0.hb), nbytes(out0.hb));
        int chm = 0, dfm = 0;
        if (model_tiled(in.h, om.h, c->has_mask ? mk.h : NULL, &p, &chm, &dfm)) {
            nmodel++;
            fv_array *got = to_host(om.h);
            /* the view's bytes, and the padding around it untouched */
            int ok = got && ref && same_bytes(got, ref) &&
                memcmp(fv_array_data(om.hb), fv_array_data(oc.hb), nbytes(om.hb)) == 0;
            if (c->want_changed)
                ok = ok && chm == ch_cpu;
            if (c->want_same)
                ok = ok && (!dfm) == sa_cpu;
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  model differs: %s (changed %d/%d same %d/%d)\n", what, chm, ch_cpu, !dfm, sa_cpu);
            fv_array_unref(got);
        }
        pair_free(&om);
    }

    if (have_gpu) {
        for (int generic = 0; generic < 2; generic++) {
            if (generic)
                tv_force("cuda.binary_erosion", "generic");
            else
                tv_force("cuda.binary_erosion", NULL);
            pair og = make_pair(c->odt, c->nd, c->shape, c->lout, 0.0, 0);
            CHECK_OK(fv_copy(ctx, out0.hb, og.db));
            int ch = -1, sa = -1;
            p.changed = c->want_changed ? &ch : NULL;
            p.same_as_before = c->want_same ? &sa : NULL;
            fv__op_args g = { .in = in.d, .in2 = c->has_mask ? mk.d : NULL, .out = og.d, .params = &p };
            CHECK_OK(fv__dispatch(ctx, FV__OP_BINARY_EROSION, &g));
            fv_array *got = to_host(og.d);
            /* the whole base: the view's bytes equal and the padding untouched */
            fv_array *gbase = to_host(og.db);
            int ok = got && ref && same_bytes(got, ref) && gbase &&
                memcmp(fv_array_data(gbase), fv_array_data(oc.hb), nbytes(gbase)) == 0;
            if (c->want_changed)
                ok = ok && ch == ch_cpu;
            if (c->want_same)
                ok = ok && sa == sa_cpu;
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  %s differs from the CPU: %s (changed %d/%d same %d/%d)\n",
                        generic ? "generic" : "tiled", what, ch, ch_cpu, sa, sa_cpu);
            fv_array_unref(got);
            fv_array_unref(gbase);
            pair_free(&og);
        }
        tv_force("cuda.binary_erosion", NULL);
    }
    fv_array_unref(ref);
    pair_free(&oc);
    pair_free(&out0);
    pair_free(&mk);
    pair_free(&in);
}

/* ---- the case grid ------------------------------------------------------------------------ */

static strel S2[16], S3[6], S1[4];
static int nS2, nS3, nS1;

static void
make_strels(void)
{
    int64_t s33[2] = { 3, 3 }, s55[2] = { 5, 5 }, s77[2] = { 7, 7 }, s15[2] = { 1, 5 }, s51[2] = { 5, 1 },
            s23[2] = { 2, 3 }, s34[2] = { 3, 4 }, s12[2] = { 1, 2 }, s44[2] = { 4, 4 }, s11[2] = { 1, 1 },
            s99[2] = { 9, 9 }, s3_15[2] = { 3, 15 };
    S2[nS2++] = mkstrel(2, s33, 0, 0, "3x3 cross");
    S2[nS2++] = mkstrel(2, s33, 1, 0, "3x3 full");
    S2[nS2++] = mkstrel(2, s55, 2, 0.6, "5x5 random");
    S2[nS2++] = mkstrel(2, s77, 3, 0, "7x7 disk");
    S2[nS2++] = mkstrel(2, s15, 1, 0, "1x5");
    S2[nS2++] = mkstrel(2, s51, 1, 0, "5x1");
    S2[nS2++] = mkstrel(2, s23, 2, 0.6, "2x3 random");
    S2[nS2++] = mkstrel(2, s34, 2, 0.6, "3x4 random");
    S2[nS2++] = mkstrel(2, s12, 1, 0, "1x2");
    S2[nS2++] = mkstrel(2, s44, 2, 0.5, "4x4 random");
    S2[nS2++] = mkstrel(2, s11, 1, 0, "1x1");
    S2[nS2++] = mkstrel(2, s33, 0, 0, "3x3 cross without centre");
    S2[nS2 - 1].v[4] = 0;
    S2[nS2++] = mkstrel(2, s33, 1, 0, "3x3 ring");
    S2[nS2 - 1].v[4] = 0;
    S2[nS2++] = mkstrel(2, s33, 2, 0.0, "3x3 empty");
    S2[nS2++] = mkstrel(2, s99, 2, 0.3, "9x9 random");
    S2[nS2++] = mkstrel(2, s3_15, 2, 0.5, "3x15 random");
    int64_t c333[3] = { 3, 3, 3 }, c231[3] = { 2, 3, 1 }, c115[3] = { 1, 1, 5 }, c313[3] = { 3, 1, 3 };
    S3[nS3++] = mkstrel(3, c333, 0, 0, "3x3x3 cross");
    S3[nS3++] = mkstrel(3, c333, 1, 0, "3x3x3 full");
    S3[nS3++] = mkstrel(3, c231, 2, 0.7, "2x3x1 random");
    S3[nS3++] = mkstrel(3, c115, 1, 0, "1x1x5");
    S3[nS3++] = mkstrel(3, c313, 2, 0.6, "3x1x3 random");
    S3[nS3++] = mkstrel(3, c333, 2, 0.5, "3x3x3 random");
    int64_t l3 = 3, l5 = 5, l2 = 2, l1 = 1;
    S1[nS1++] = mkstrel(1, &l3, 1, 0, "3");
    S1[nS1++] = mkstrel(1, &l5, 2, 0.6, "5 random");
    S1[nS1++] = mkstrel(1, &l2, 1, 0, "2");
    S1[nS1++] = mkstrel(1, &l1, 1, 0, "1");
}

static void
random_origins(const strel *s, int64_t *org)
{
    for (int d = 0; d < 3; d++)
        org[d] = 0;
    if (next_u64() & 1)
        return;
    for (int d = 0; d < s->nd; d++)
        org[d] = irand(-(s->shape[d] / 2), (s->shape[d] - 1) / 2);
}

static const fv_dtype BYTE_DTS[3] = { FV_BOOL, FV_UINT8, FV_INT8 };

static void
random_kcase(kcase *c, const strel *s, int nd, const int64_t *shape)
{
    memset(c, 0, sizeof *c);
    c->nd = nd;
    for (int d = 0; d < nd; d++)
        c->shape[d] = shape[d];
    c->s = s;
    random_origins(s, c->org);
    c->idt = BYTE_DTS[irand(0, 2)];
    c->odt = BYTE_DTS[irand(0, 2)];
    c->has_mask = irand(0, 2) == 0;
    c->mdt = BYTE_DTS[irand(0, 2)];
    c->lin = irand(0, 9) < 6 ? 0 : (int)irand(1, 4);
    c->lout = irand(0, 9) < 6 ? 0 : (int)irand(1, 4);
    c->lmask = irand(0, 9) < 6 ? 0 : (int)irand(1, 4);
    if (irand(0, 19) == 0) /* the generic path's other dtypes */
        c->idt = FV_FLOAT32;
    if (irand(0, 19) == 0)
        c->odt = FV_INT32;
    if (c->has_mask && irand(0, 9) == 0)
        c->mdt = FV_UINT16;
    c->border = (int)irand(0, 1);
    c->invert = (int)irand(0, 1);
    c->want_changed = (int)irand(0, 1);
    c->want_same = irand(0, 2) == 0;
    c->values = (int)irand(0, 1);
    double dens[4] = { 0.5, 0.85, 0.15, 0.97 };
    c->dens = dens[irand(0, 3)];
}

static void
test_kernel_cases(void)
{
    static const int64_t shapes2[][2] = { { 1, 1 },     { 1, 7 },    { 1, 300 }, { 7, 1 },   { 300, 1 },
                                          { 2, 2 },     { 3, 5 },    { 17, 33 }, { 33, 17 }, { 31, 129 },
                                          { 130, 257 }, { 64, 128 }, { 65, 131 } };
    const int ns2 = (int)(sizeof shapes2 / sizeof shapes2[0]);
    kcase c;
    /* every 2-D structure on every shape, random parameters */
    for (int si = 0; si < nS2; si++)
        for (int k = 0; k < ns2; k++) {
            if (cuda_only && shapes2[k][0] * shapes2[k][1] > 5000 && (k + si) % 3)
                continue;
            random_kcase(&c, &S2[si], 2, shapes2[k]);
            run_kcase(&c);
        }
    /* every flag combination on 17x33 and 130x257 with the 3x3 cross and the disk */
    for (int f = 0; f < 32; f++) {
        const int64_t *sh = shapes2[(f & 1) ? 10 : 7];
        random_kcase(&c, &S2[(f & 2) ? 3 : 0], 2, sh);
        c.border = f >> 2 & 1;
        c.invert = f >> 3 & 1;
        c.has_mask = f >> 4 & 1;
        run_kcase(&c);
    }
    /* every layout of in, out, mask */
    for (int l = 0; l < 5 * 5; l++) {
        int64_t sh[2] = { irand(1, 40), irand(1, 150) };
        random_kcase(&c, &S2[irand(0, nS2 - 1)], 2, sh);
        c.lin = l % 5;
        c.lout = l / 5;
        c.lmask = (l + 2) % 5;
        c.has_mask = 1;
        c.idt = FV_UINT8;
        c.odt = FV_BOOL;
        c.mdt = FV_INT8;
        run_kcase(&c);
    }
    /* random 2-D shapes */
    for (int k = 0; k < (cuda_only ? 40 : 150); k++) {
        int64_t sh[2] = { irand(1, 70), irand(1, 300) };
        random_kcase(&c, &S2[irand(0, nS2 - 1)], 2, sh);
        run_kcase(&c);
    }
    /* 3-D */
    static const int64_t shapes3[][3] = { { 1, 1, 1 },     { 3, 1, 9 },   { 5, 17, 33 }, { 2, 2, 2 },
                                          { 1, 130, 257 }, { 9, 40, 70 }, { 4, 33, 1 } };
    for (int si = 0; si < nS3; si++)
        for (int k = 0; k < 7; k++) {
            random_kcase(&c, &S3[si], 3, shapes3[k]);
            run_kcase(&c);
        }
    /* 1-D */
    static const int64_t shapes1[] = { 1, 2, 5, 129, 1000 };
    for (int si = 0; si < nS1; si++)
        for (int k = 0; k < 5; k++) {
            random_kcase(&c, &S1[si], 1, &shapes1[k]);
            run_kcase(&c);
        }
    /* large: 1000 x 1000 */
    int nbig = cuda_only ? 2 : 6;
    for (int k = 0; k < nbig; k++) {
        int64_t sh[2] = { 1000, 1000 };
        random_kcase(&c, &S2[k % 4], 2, sh);
        if (cuda_only)
            c.s = &S2[k % 2];
        run_kcase(&c);
    }
}

/* ---- the public op: iterations, masks, the three routes ---------------------------------- */

static void
run_op(const strel *s, int nd, const int64_t *shape, int iterations, int has_mask, int border, int invert,
       const int64_t *org, fv_dtype idt)
{
    char what[300];
    snprintf(what, sizeof what, "op %s nd %d shape %lld.. iterations %d mask %d border %d invert %d in %s", s->name, nd,
             (long long)shape[0], iterations, has_mask, border, invert, fv_dtype_name(idt));
    ncases++;
    pair in = make_pair(idt, nd, shape, 0, 0.6, 1);
    pair mk;
    memset(&mk, 0, sizeof mk);
    if (has_mask)
        mk = make_pair(FV_BOOL, nd, shape, 0, 0.8, 0);
    pair oc = make_pair(FV_BOOL, nd, shape, 0, 0.0, 0);
    fv_status sc =
        fv_binary_erosion(ctx, in.h, oc.h, s->v, s->shape, iterations, has_mask ? mk.h : NULL, border, org, invert);
    for (int generic = 0; have_gpu && generic < 2; generic++) {
        if (generic)
            tv_force("cuda.binary_erosion", "generic");
        else
            tv_force("cuda.binary_erosion", NULL);
        pair og = make_pair(FV_BOOL, nd, shape, 0, 0.0, 0);
        fv_status sg =
            fv_binary_erosion(ctx, in.d, og.d, s->v, s->shape, iterations, has_mask ? mk.d : NULL, border, org, invert);
        int ok = sg == sc;
        if (ok && sc == FV_OK) {
            fv_array *g = to_host(og.d);
            ok = g && same_bytes(g, oc.h);
            fv_array_unref(g);
        }
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  %s: %s differs from the CPU (status %d / %d)\n", what, generic ? "generic" : "tiled",
                    (int)sg, (int)sc);
        pair_free(&og);
    }
    tv_force("cuda.binary_erosion", NULL);
    pair_free(&oc);
    pair_free(&mk);
    pair_free(&in);
}

static void
test_op(void)
{
    static const int iters[] = { 1, 2, 5, 0, -1 };
    int64_t org0[3] = { 0, 0, 0 };
    for (int si = 0; si < nS2; si++)
        for (int k = 0; k < 5; k++) {
            int64_t sh[2] = { irand(1, 60), irand(1, 200) }, org[3];
            if (k == 4 && !cuda_only) {
                sh[0] = 130;
                sh[1] = 257;
            }
            random_origins(&S2[si], org);
            run_op(&S2[si], 2, sh, iters[k], (int)irand(0, 1), (int)irand(0, 1), (int)irand(0, 1), org,
                   k == 2 ? FV_FLOAT32 : FV_UINT8);
        }
    for (int si = 0; si < nS3; si++) {
        int64_t sh[3] = { irand(1, 6), irand(1, 30), irand(1, 50) };
        run_op(&S3[si], 3, sh, iters[si % 5], si & 1, si >> 1 & 1, si >> 2 & 1, org0, FV_BOOL);
    }
    if (!cuda_only) { /* scipy's binary_fill_holes / propagation shapes: many passes */
        int64_t sh[2] = { 200, 300 };
        run_op(&S2[0], 2, sh, -1, 1, 1, 1, org0, FV_BOOL);
        run_op(&S2[1], 2, sh, 5, 0, 0, 0, org0, FV_BOOL);
    }
}

/* ---- FOVEA_ERO_BENCH=1: timings on 8192 x 8192 bool ------------------------------------- */

static double
now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void
bench(void)
{
    int64_t sh[2] = { 8192, 8192 };
    pair in = make_pair(FV_BOOL, 2, sh, 0, 0.7, 0);
    pair out = make_pair(FV_BOOL, 2, sh, 0, 0.0, 0);
    static const struct {
        int si, iterations, invert;
        const char *name;
    } B[] = { { 0, 1, 0, "erosion 3x3 cross" },
              { 1, 1, 0, "erosion 3x3 full" },
              { 3, 1, 0, "erosion 7x7 disk" },
              { 3, 1, 1, "dilation 7x7 disk" },
              { 0, 5, 0, "erosion 3x3 cross, iterations=5" },
              { 2, 1, 1, "dilation 5x5 random" } };
    printf("case | tiled ms | generic ms | generic/tiled\n");
    for (size_t b = 0; b < sizeof B / sizeof B[0]; b++) {
        double t[2];
        for (int generic = 0; generic < 2; generic++) {
            if (generic)
                tv_force("cuda.binary_erosion", "generic");
            else
                tv_force("cuda.binary_erosion", NULL);
            const strel *st = &S2[B[b].si];
            int reps = 20;
            CHECK_OK(
                fv_binary_erosion(ctx, in.d, out.d, st->v, st->shape, B[b].iterations, NULL, 0, NULL, B[b].invert));
            CHECK_OK(fv_context_synchronize(ctx));
            double t0 = now_s();
            for (int r = 0; r < reps; r++)
                CHECK_OK(
                    fv_binary_erosion(ctx, in.d, out.d, st->v, st->shape, B[b].iterations, NULL, 0, NULL, B[b].invert));
            CHECK_OK(fv_context_synchronize(ctx));
            t[generic] = (now_s() - t0) / reps * 1e3;
        }
        printf("%s | %.3f | %.3f | %.2f\n", B[b].name, t[0], t[1], t[1] / t[0]);
    }
    tv_force("cuda.binary_erosion", NULL);
    pair_free(&out);
    pair_free(&in);
}

int
main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *co = getenv("FOVEA_TEST_CUDA_ONLY");
    cuda_only = co && *co && strcmp(co, "0");
    have_gpu = fv_cuda_available();
    if (cuda_only && !have_gpu) {
        printf("test_cuda_erosion: skipped: %s\n", fv_cuda_unavailable_reason());
        return 77;
    }
    CHECK_OK(fv_context_new(&ctx));
    tv_force("cuda.binary_erosion", NULL);
    make_strels();
    test_kernel_cases();
    printf("test_cuda_erosion: kernel cases done: %d cases (%d through the host model), %d failed\n", ncases, nmodel,
           fv_t_fail);
    test_op();
    printf("test_cuda_erosion: op cases done: %d cases, %d failed\n", ncases, fv_t_fail);
    const char *be = getenv("FOVEA_ERO_BENCH");
    if (have_gpu && be && *be && strcmp(be, "0"))
        bench();
    if (have_gpu)
        CHECK_OK(fv_context_synchronize(ctx));
    fv_context_free(ctx);
    int rc = fv_t_summary("test_cuda_erosion");
    if (!rc && !have_gpu) {
        printf("test_cuda_erosion: GPU part skipped: %s\n", fv_cuda_unavailable_reason());
        return 77;
    }
    return rc;
}
