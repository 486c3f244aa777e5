/* The CUDA filter kernels (FV__OP_FILTER1D, FV__OP_FILTERND) against a
 * brute-force host model of scipy.ndimage 1.17 written here, and against the
 * CPU backend's kernels when they are registered (FV_ENOKERNEL: skipped).
 * Kernels are called through fv__dispatch with filled parameters, so nothing
 * here depends on the ops layer.
 *
 * The model follows scipy's C code on x86-64: sums in double in scipy's order
 * (correlate1d: symmetric / antisymmetric / general), the running sum of
 * uniform_filter1d (sum += new - old, divided per output), the ascending-minima deque of minimum/maximum_filter1d (its
 * NaN results included), the n-d min/max with cval and structure in the input
 * type, the rank filter's quickselect on a double buffer (NaN included) whose
 * result goes back through the input type, and
 * the C casts into the output (bool outputs: the cast byte != 0; the n-d
 * filters' own uint64 store below -2^63).
 * Integer and bool outputs must match bit for bit; float outputs within rounding
 * (selections: equal values).
 *
 * Exits 77 (ctest: skipped) without a usable GPU. FOVEA_FILTERS_BENCH=1 adds a
 * few timings on 8192 x 8192 arrays. */
#include <cuda_runtime_api.h>

#include "internal.h"
#include "ops/filters/sep2.h"
#include "ops/filters/filternd.h"
#include "ops/morphology/binary-erosion.h"
#include "ops/morphology/distance.h"
#include "ops/filters/ndimage-math.h"
#define FV_T_SEED 0x9e3779b97f4a7c15ull
#define HX_SCIPY_MODEL
#define HX_CUDA_TIMING
#include "harness.h" /* check.h, variant-force.h, xorshift.h; the sections the macros above turn on */

static int cpu_kernels = -1; /* unknown, 0 absent, 1 present */
static int ncases;

static void
on_crash(int sig)
{
    fprintf(stderr, "test_cuda_filters: signal %d during: %s\n", sig, current);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- the model: scipy's casts (the others in harness.h) ------------------ */

/* scipy's C cast of a double to the input type dt (bool: the raw byte) */
static uint64_t
m_to_in(fv_dtype dt, double x)
{
    switch (dt) {
    case FV_UINT32:
        return (uint64_t)m_cvt64(x) & 0xffffffffull;
    case FV_INT64:
        return (uint64_t)m_cvt64(x);
    case FV_UINT64:
        return m_cvtu64(x);
    case FV_FLOAT32: {
        float f = (float)x;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    case FV_FLOAT64: {
        uint64_t u;
        memcpy(&u, &x, 8);
        return u;
    }
    default:
        return (uint64_t)(uint32_t)m_cvt32(x) & width_mask(dt);
    }
}

/* a + b in the input type's arithmetic */
static uint64_t
m_tadd(fv_dtype dt, uint64_t a, uint64_t b)
{
    if (dt == FV_FLOAT32) {
        float x, y, z;
        uint32_t u = (uint32_t)a, v = (uint32_t)b;
        memcpy(&x, &u, 4);
        memcpy(&y, &v, 4);
        z = x + y;
        memcpy(&u, &z, 4);
        return u;
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

/* scipy's NI_Select */
static double
m_select(double *buf, int64_t lo, int64_t hi, int64_t rank)
{
    for (;;) {
        if (lo == hi)
            return buf[lo];
        double x = buf[lo];
        int64_t ii = lo - 1, jj = hi + 1;
        for (;;) {
            do
                jj--;
            while (buf[jj] > x);
            do
                ii++;
            while (buf[ii] < x);
            if (ii < jj) {
                double t = buf[ii];
                buf[ii] = buf[jj];
                buf[jj] = t;
            } else {
                break;
            }
        }
        ii = jj - lo + 1;
        if (rank < ii) {
            hi = jj;
        } else {
            lo = jj + 1;
            rank -= ii;
        }
    }
}

/* ---- the model: filters on a contiguous host array --------------------------------- */

static int
m_symmetry(const double *w, int64_t size)
{
    if (!(size & 1))
        return 0;
    int64_t s1 = size / 2;
    int ok = 1;
    for (int64_t i = 1; i <= s1 && ok; i++)
        ok = !(fabs(w[s1 + i] - w[s1 - i]) > DBL_EPSILON);
    if (ok)
        return 1;
    for (int64_t i = 1; i <= s1; i++)
        if (fabs(w[s1 + i] + w[s1 - i]) > DBL_EPSILON)
            return 0;
    return -1;
}

/* res[i]: scipy's double result for element i; mag[i]: a magnitude for tolerances */
static void
ref_filter1d(const fv_array *h, const fv__filter1d_params *p, double *res, double *mag)
{
    fv_dtype dt = fv_array_dtype(h);
    int nd = fv_array_ndim(h);
    const int64_t *sh = fv_array_shape(h);
    int64_t n = sh[p->axis], sa = 1, total = fv_array_size(h);
    for (int d = p->axis + 1; d < nd; d++)
        sa *= sh[d];
    int64_t size = p->size, left = size / 2 + p->origin, s1 = size / 2;
    double *line = malloc((size_t)(n + size) * sizeof(double));
    struct {
        double v;
        int64_t death;
    } *ring = malloc((size_t)size * sizeof *ring);
    int sym = p->kind == FV__F1D_CORRELATE ? m_symmetry(p->weights, size) : 0;
    for (int64_t b0 = 0; b0 < total; b0++) {
        if ((b0 / sa) % n != 0)
            continue;                                /* not the start of a line */
        for (int64_t q = 0; q < n + size - 1; q++) { /* scipy's extended line buffer */
            int64_t e = fv__extend_index(q - left, n, p->mode);
            line[q] = e < 0 ? p->cval : m_tod(dt, m_load(h, b0 + e * sa));
        }
        if (p->kind == FV__F1D_CORRELATE) {
            const double *w = p->weights;
            for (int64_t i = 0; i < n; i++) {
                const double *x = line + i;
                double t, m = 0;
                if (sym) {
                    t = x[s1] * w[s1];
                    for (int64_t j = 0; j < s1; j++)
                        t += (sym > 0 ? x[j] + x[size - 1 - j] : x[j] - x[size - 1 - j]) * w[j];
                } else {
                    t = x[size - 1] * w[size - 1];
                    for (int64_t j = 0; j < size - 1; j++)
                        t += x[j] * w[j];
                }
                for (int64_t j = 0; j < size; j++)
                    m += fabs(x[j] * w[j]);
                res[b0 + i * sa] = t;
                mag[b0 + i * sa] = m;
            }
        } else if (p->kind == FV__F1D_UNIFORM) {
            double t = 0; /* scipy 1.17: a running sum, divided per output */
            for (int64_t j = 0; j < size; j++)
                t += line[j];
            res[b0] = t / (double)size;
            for (int64_t i = 1; i < n; i++) {
                t += line[i + size - 1] - line[i - 1];
                res[b0 + i * sa] = t / (double)size;
            }
            for (int64_t i = 0; i < n; i++) {
                double m = 0;
                for (int64_t j = 0; j < size; j++)
                    m += fabs(line[i + j]);
                mag[b0 + i * sa] = m / (double)size;
            }
        } else { /* R. Harter's deque, as scipy */
            int mn = p->kind == FV__F1D_MINIMUM;
            if (size == 1) {
                for (int64_t i = 0; i < n; i++)
                    res[b0 + i * sa] = line[i];
            } else {
                int64_t front = 0, last = 0;
                ring[0].v = line[0];
                ring[0].death = size;
                for (int64_t ll = 1; ll < size + n - 1; ll++) {
                    double v = line[ll];
                    if (ring[front].death == ll)
                        front = front + 1 == size ? 0 : front + 1;
                    if (mn ? v <= ring[front].v : v >= ring[front].v) {
                        ring[front].v = v;
                        ring[front].death = ll + size;
                        last = front;
                    } else {
                        while (mn ? ring[last].v >= v : ring[last].v <= v)
                            last = last == 0 ? size - 1 : last - 1;
                        last = last + 1 == size ? 0 : last + 1;
                        ring[last].v = v;
                        ring[last].death = ll + size;
                    }
                    if (ll >= size - 1)
                        res[b0 + (ll - size + 1) * sa] = ring[front].v;
                }
            }
            for (int64_t i = 0; i < n; i++)
                mag[b0 + i * sa] = 0;
        }
    }
    free(line);
    free(ring);
}

static void
ref_filternd(const fv_array *h, const fv__filternd_params *p, double *res, double *mag)
{
    fv_dtype dt = fv_array_dtype(h);
    int nd = fv_array_ndim(h);
    const int64_t *sh = fv_array_shape(h);
    int64_t total = fv_array_size(h), fsize = 1;
    for (int d = 0; d < nd; d++)
        fsize *= p->fshape[d];
    double *buf = malloc((size_t)fsize * sizeof(double));
    uint64_t cv = m_to_in(dt, p->cval);
    for (int64_t i = 0; i < total; i++) {
        int64_t c[FV_MAX_NDIM], r = i;
        for (int d = nd - 1; d >= 0; d--) {
            c[d] = r % sh[d];
            r /= sh[d];
        }
        double t = 0, m = 0, resv = 0;
        int64_t k = 0;
        for (int64_t j = 0; j < fsize; j++) {
            if (p->footprint && !p->footprint[j])
                continue;
            if (p->kind == FV__FND_CORRELATE && !(fabs(p->weights[j]) > DBL_EPSILON))
                continue;
            int64_t rj = j, off = 0, s = 1;
            int outside = 0;
            for (int d = nd - 1; d >= 0; d--) {
                int64_t x = rj % p->fshape[d];
                rj /= p->fshape[d];
                int64_t q = fv__extend_index(c[d] + x - p->fshape[d] / 2 - p->origins[d], sh[d], p->mode);
                if (q < 0)
                    outside = 1;
                off += q * s;
                s *= sh[d];
            }
            if (p->kind == FV__FND_CORRELATE) {
                double x = outside ? p->cval : m_tod(dt, m_load(h, off));
                t += p->weights[j] * x;
                m += fabs(p->weights[j] * x);
            } else if (p->kind == FV__FND_RANK) {
                buf[k] = m_tod(dt, outside ? cv : m_load(h, off));
            } else { /* NI_MinOrMaxFilter */
                int mn = p->kind == FV__FND_MINIMUM;
                uint64_t v = outside ? cv : m_load(h, off);
                double s_j = p->weights ? (mn ? -p->weights[j] : p->weights[j]) : 0.0;
                if (k == 0) {
                    resv = m_tod(dt, v);
                    if (p->weights)
                        resv += s_j;
                } else {
                    if (p->weights)
                        v = m_tadd(dt, v, m_to_in(dt, s_j));
                    double x = m_tod(dt, v);
                    if (mn ? x < resv : x > resv)
                        resv = x;
                }
            }
            k++;
        }
        if (p->kind == FV__FND_CORRELATE)
            resv = t;
        else if (p->kind == FV__FND_RANK)
            resv = m_tod(dt, m_to_in(dt, m_select(buf, 0, k - 1, p->rank))); /* (T) round trip */
        res[i] = resv;
        mag[i] = m;
    }
    free(buf);
}

/* ---- arrays ---------------------------------------------------------------------- */

/* specials: 0 none, 1 NaN / inf / -0 among the floats, 2 also +-1e30 */
static void
fill(fv_array *h, int specials, int wide)
{
    fv_dtype dt = fv_array_dtype(h);
    int64_t n = fv_array_size(h);
    char *p = fv_array_data(h);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = next_u64();
        double v = uniform_in(-1000.0, 1000.0);
        if (wide == 1)
            v = uniform_in(-1e6, 1e6);
        if (specials && is_float(dt) && next_u64() % 17 == 3) {
            static const double sp[] = { NAN, INFINITY, -INFINITY, -0.0, 0.0, 0.5, 1e30, -1e30 };
            v = sp[next_u64() % (specials == 2 ? 8 : 6)];
        }
        if (!wide && !is_float(dt)) /* small integers: ties, and sums that land on integers */
            r = (uint64_t)(int64_t)(dt == FV_BOOL ? (int64_t)(r & 1) : irand(-40, 300));
        hx_put_raw(p, dt, i, r, v);
    }
}

/* host and device inputs of the same values and layout */
static void
make_input(fv_dtype dt, int nd, const int64_t *shape, int layout, int specials, int wide, fv_array **hbase,
           fv_array **hin, fv_array **dbase, fv_array **din)
{
    *hin = make_view(dt, nd, shape, layout, CPU, hbase);
    *din = make_view(dt, nd, shape, layout, GPU, dbase);
    fv_array *hb = *hbase ? *hbase : *hin, *db = *dbase ? *dbase : *din;
    fill(hb, specials, wide);
    CHECK_OK(fv_copy(ctx, hb, db));
}

/* got: contiguous host output; sel: selection filters (min/max/rank) */
static int
compare(const fv_array *got, const double *res, const double *mag, int sel, int nd, double rtol, const char *what,
        const char *who)
{
    fv_dtype odt = fv_array_dtype(got);
    int64_t n = fv_array_size(got);
    for (int64_t i = 0; i < n; i++) {
        uint64_t gb = m_load(got, i), wb = nd ? m_store_nd(odt, res[i]) : m_store(odt, res[i]);
        if (!is_float(odt)) {
            if (gb != wb) {
                fprintf(stderr, "%s [%s]: element %lld: got 0x%llx, want 0x%llx (scipy's double %.17g)\n", what, who,
                        (long long)i, (unsigned long long)gb, (unsigned long long)wb, res[i]);
                return 0;
            }
            continue;
        }
        double g = m_tod(odt, gb), w = m_tod(odt, wb);
        int ok;
        if (isnan(w))
            ok = isnan(g);
        else if (sel || isinf(w))
            ok = g == w;
        else
            ok = fabs(g - w) <= rtol * (mag[i] + fabs(w)) + 1e-300;
        if (!ok) {
            fprintf(stderr, "%s [%s]: element %lld: got %.17g, want %.17g (mag %g)\n", what, who, (long long)i, g, w,
                    mag[i]);
            return 0;
        }
    }
    return 1;
}

/* ---- FILTER1D cases --------------------------------------------------------------- */

typedef struct case1d {
    fv_dtype idt, odt;
    int nd;
    int64_t shape[4];
    int axis, kind;
    int64_t size, origin;
    int mode;
    double cval;
    int lin, lout, specials, wide;
    int wkind; /* correlate weights: 0 random, 1 symmetric, 2 antisymmetric */
} case1d;

static const char *mode_names[] = { "reflect", "constant", "nearest", "mirror", "wrap" };
static const char *kind1d_names[] = { "correlate1d", "uniform1d", "minimum1d", "maximum1d" };

static void
run1d(const case1d *c)
{
    char what[300];
    fv_array *hb = NULL, *hin = NULL, *db = NULL, *din = NULL, *hc = NULL, *ob = NULL, *dout = NULL, *got = NULL;
    int64_t n = 1;
    for (int d = 0; d < c->nd; d++)
        n *= c->shape[d];
    double *w = malloc((size_t)c->size * sizeof(double));
    double *res = malloc((size_t)n * sizeof(double)), *mag = malloc((size_t)n * sizeof(double));
    for (int64_t k = 0; k < c->size; k++)
        w[k] = uniform_in(-1.0, 1.0);
    for (int64_t k = 0; k < c->size / 2 && c->wkind; k++)
        w[c->size - 1 - k] = c->wkind == 1 ? w[k] : -w[k];
    if (c->wkind == 2 && (c->size & 1))
        w[c->size / 2] = uniform_in(-1.0, 1.0);
    snprintf(what, sizeof what,
             "%s %s->%s nd=%d shape=(%lld,%lld,%lld,%lld) axis=%d size=%lld origin=%lld mode=%s "
             "cval=%g layout=%d/%d sp=%d w=%d",
             kind1d_names[c->kind], fv_dtype_name(c->idt), fv_dtype_name(c->odt), c->nd, (long long)c->shape[0],
             (long long)(c->nd > 1 ? c->shape[1] : 0), (long long)(c->nd > 2 ? c->shape[2] : 0),
             (long long)(c->nd > 3 ? c->shape[3] : 0), c->axis, (long long)c->size, (long long)c->origin,
             mode_names[c->mode], c->cval, c->lin, c->lout, c->specials, c->wkind);
    snprintf(current, sizeof current, "%s", what);
    fv__filter1d_params p = { .kind = c->kind,
                              .axis = c->axis,
                              .mode = c->mode,
                              .cval = c->cval,
                              .origin = c->origin,
                              .size = c->size,
                              .weights = c->kind == FV__F1D_CORRELATE ? w : NULL,
                              .symmetry = 0 };
    p.symmetry = c->kind == FV__F1D_CORRELATE ? m_symmetry(w, c->size) : 0;
    make_input(c->idt, c->nd, c->shape, c->lin, c->specials, c->wide, &hb, &hin, &db, &din);
    hc = to_host(hin);
    dout = make_view(c->odt, c->nd, c->shape, c->lout, GPU, &ob);
    if (hc && dout && res && mag && w) {
        ref_filter1d(hc, &p, res, mag);
        fv__op_args a = { .in = din, .out = dout, .in2 = NULL, .params = &p };
        fv_status st = fv__dispatch(ctx, FV__OP_FILTER1D, &a);
        if (st != FV_OK) {
            fv_t_fail++;
            fprintf(stderr, "%s: cuda -> %s: %s\n", what, fv_status_name(st), fv_error_message());
        } else {
            got = to_host(dout);
            double rtol = (c->odt == FV_FLOAT32) ? 1e-5 : 1e-12;
            CHECK(got && compare(got, res, mag, c->kind >= FV__F1D_MINIMUM, 0, rtol, what, "cuda"));
        }
        if (cpu_kernels != 0) { /* the CPU backend, when its kernels exist */
            fv_array *hout = new_array(c->odt, c->nd, c->shape, CPU);
            fv__op_args ac = { .in = hin, .out = hout, .in2 = NULL, .params = &p };
            st = fv__dispatch(NULL, FV__OP_FILTER1D, &ac);
            if (st == FV_ENOKERNEL) {
                cpu_kernels = 0;
            } else {
                cpu_kernels = 1;
                CHECK_OK(st);
                double rtol = (c->odt == FV_FLOAT32) ? 1e-5 : 1e-12;
                if (st == FV_OK)
                    CHECK(compare(hout, res, mag, c->kind >= FV__F1D_MINIMUM, 0, rtol, what, "cpu"));
            }
            fv_array_unref(hout);
        }
    }
    ncases++;
    fv_array_unref(got);
    fv_array_unref(dout);
    fv_array_unref(ob);
    fv_array_unref(hc);
    fv_array_unref(hin);
    fv_array_unref(hb);
    fv_array_unref(din);
    fv_array_unref(db);
    free(w);
    free(res);
    free(mag);
}

static const fv_dtype pairs[][2] = {
    { FV_FLOAT32, FV_FLOAT32 }, { FV_FLOAT64, FV_FLOAT64 }, { FV_UINT8, FV_UINT8 },   { FV_UINT8, FV_FLOAT32 },
    { FV_INT16, FV_INT32 },     { FV_FLOAT32, FV_UINT8 },   { FV_FLOAT64, FV_INT64 }, { FV_UINT16, FV_UINT16 },
    { FV_INT8, FV_FLOAT64 },    { FV_BOOL, FV_BOOL },       { FV_FLOAT32, FV_BOOL },  { FV_UINT32, FV_UINT64 },
    { FV_INT64, FV_FLOAT64 },   { FV_UINT64, FV_UINT64 },   { FV_INT32, FV_INT16 },   { FV_FLOAT64, FV_FLOAT32 },
    { FV_UINT8, FV_INT8 },      { FV_FLOAT32, FV_FLOAT64 }, { FV_INT16, FV_UINT8 },   { FV_FLOAT64, FV_UINT32 },
};
#define NPAIRS ((int)(sizeof pairs / sizeof pairs[0]))

static const double cvals[] = { 0.0, 3.5, -2.25, 300.7, -5.5, 1e10, 17.0 };

static void
random_shape(int nd, int64_t *shape, int64_t maxn)
{
    for (;;) {
        int64_t tot = 1;
        for (int d = 0; d < nd; d++) {
            shape[d] = irand(1, nd == 1 ? 700 : nd == 2 ? 60 : nd == 3 ? 14 : 7);
            tot *= shape[d];
        }
        if (tot <= maxn)
            return;
    }
}

static void
test_filter1d(void)
{
    for (int kind = 0; kind < 4; kind++) {
        for (int pi = 0; pi < NPAIRS; pi++) {
            for (int mode = 0; mode < FV_MODE_COUNT; mode++) {
                case1d c;
                memset(&c, 0, sizeof c);
                c.idt = pairs[pi][0];
                c.odt = pairs[pi][1];
                c.kind = kind;
                c.mode = mode;
                c.nd = (int)irand(1, 4);
                random_shape(c.nd, c.shape, 2500);
                c.axis = (int)irand(0, c.nd - 1);
                int r = (int)irand(0, 9);
                c.size = r < 6 ? irand(1, 9) : r < 9 ? irand(10, 40) : irand(41, 130);
                c.origin = irand(-(c.size / 2), (c.size - 1) / 2);
                c.cval = cvals[irand(0, 6)];
                if (is_float(c.idt) && irand(0, 9) == 0)
                    c.cval = NAN;
                c.lin = (int)irand(0, 2);
                c.lout = (int)irand(0, 2);
                /* uniform into floats drifts from scipy's running sum after huge values */
                c.specials = kind == FV__F1D_UNIFORM ? (int)irand(0, 1) : (int)irand(0, 2);
                c.wide = (int)irand(0, 2);
                c.wkind = (int)irand(0, 2);
                run1d(&c);
            }
        }
    }
}

/* paths: tiles of one line per block, long windows (doubling, direct kernel,
 * exact deque everywhere), long lines for the serial running sum, few lines */
static void
test_filter1d_paths(void)
{
    static const struct {
        fv_dtype i, o;
        int nd;
        int64_t s0, s1, s2;
        int axis, kind;
        int64_t size;
        int lin, specials;
    } t[] = {
        { FV_FLOAT32, FV_FLOAT32, 1, 5000, 0, 0, 0, FV__F1D_CORRELATE, 33, 0, 0 },
        { FV_UINT8, FV_UINT8, 1, 5000, 0, 0, 0, FV__F1D_CORRELATE, 15, 1, 0 },
        { FV_FLOAT64, FV_FLOAT64, 2, 800, 33, 0, 0, FV__F1D_CORRELATE, 700, 0, 2 }, /* COL, direct kernel */
        { FV_INT32, FV_INT32, 2, 800, 33, 0, 0, FV__F1D_CORRELATE, 651, 0, 0 },
        { FV_FLOAT32, FV_FLOAT32, 2, 9, 3000, 0, 1, FV__F1D_MINIMUM, 200, 0, 0 },  /* doubling, ROW */
        { FV_FLOAT32, FV_FLOAT32, 2, 3000, 9, 0, 0, FV__F1D_MAXIMUM, 200, 0, 0 },  /* doubling, COL */
        { FV_FLOAT32, FV_FLOAT32, 2, 3000, 9, 0, 0, FV__F1D_MAXIMUM, 120, 0, 1 },  /* doubling + NaN redo */
        { FV_INT16, FV_INT16, 2, 1000, 37, 0, 0, FV__F1D_MINIMUM, 500, 0, 0 },     /* COL, direct kernel */
        { FV_FLOAT64, FV_FLOAT64, 2, 1000, 37, 0, 0, FV__F1D_MINIMUM, 500, 0, 1 }, /* exact deque on all lines */
        { FV_UINT8, FV_UINT8, 1, 20000, 0, 0, 0, FV__F1D_MAXIMUM, 3001, 0, 0 },    /* ROW, long window */
        { FV_UINT16, FV_UINT8, 2, 3, 7000, 0, 1, FV__F1D_UNIFORM, 77, 0, 0 },      /* few long lines, serial */
        { FV_FLOAT32, FV_FLOAT32, 2, 3, 7000, 0, 1, FV__F1D_UNIFORM, 77, 0, 1 },   /* NaN/inf lines redone */
        { FV_FLOAT64, FV_FLOAT64, 2, 700, 5, 0, 0, FV__F1D_UNIFORM, 700, 0, 0 },   /* direct uniform */
        { FV_FLOAT32, FV_INT32, 2, 400, 300, 0, 0, FV__F1D_UNIFORM, 21, 0, 0 },
        { FV_UINT8, FV_FLOAT32, 3, 4, 300, 200, 2, FV__F1D_CORRELATE, 25, 2, 0 }, /* Fortran order */
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        for (int mode = 0; mode < FV_MODE_COUNT; mode += 2) {
            case1d c;
            memset(&c, 0, sizeof c);
            c.idt = t[k].i;
            c.odt = t[k].o;
            c.nd = t[k].nd;
            c.shape[0] = t[k].s0;
            c.shape[1] = t[k].s1;
            c.shape[2] = t[k].s2;
            c.axis = t[k].axis;
            c.kind = t[k].kind;
            c.size = t[k].size;
            c.origin = irand(-(c.size / 2), (c.size - 1) / 2);
            c.mode = mode;
            c.cval = 2.5;
            c.lin = t[k].lin;
            c.lout = (int)irand(0, 1);
            c.specials = t[k].specials;
            c.wkind = (int)(k % 3);
            run1d(&c);
        }
    }
}

/* ---- FILTERND cases -------------------------------------------------------------- */

static const char *kindnd_names[] = { "correlate", "minimum", "maximum", "rank" };

typedef struct casend {
    fv_dtype idt, odt;
    int nd;
    int64_t shape[4], fshape[4], origins[4];
    int kind, mode;
    double cval;
    int lin, lout, specials, wide;
    int use_fp, use_st;
    double fp_density;
    int rank_sel; /* -1 random, else 0 min, 1 median, 2 max, 10 + r: rank r */
    int tiled;    /* rank: also bit for bit against the model (float: NaN any payload), the
                     * generic kernels (variant "generic") and the CPU backend (both: +-0 equal) */
} casend;

/* a and b (contiguous host arrays of one dtype) hold the same bits; floats: any
 * NaN equals any NaN, and with zsign == 0 also -0.0 equals +0.0 */
static int
same_bits(const fv_array *a, const fv_array *b, int zsign, const char *what, const char *who)
{
    fv_dtype dt = fv_array_dtype(a);
    int64_t n = fv_array_size(a);
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = m_load(a, i), y = m_load(b, i);
        if (x == y)
            continue;
        if (is_float(dt)) {
            double u = m_tod(dt, x), v = m_tod(dt, y);
            if ((isnan(u) && isnan(v)) || (!zsign && u == 0 && v == 0))
                continue;
        }
        fprintf(stderr, "%s [%s]: element %lld: 0x%llx != 0x%llx\n", what, who, (long long)i, (unsigned long long)x,
                (unsigned long long)y);
        return 0;
    }
    return 1;
}

/* the model's results stored into a contiguous host array of dtype odt */
static fv_array *
model_array(fv_dtype odt, int nd, const int64_t *shape, const double *res)
{
    fv_array *m = new_array(odt, nd, shape, CPU);
    if (!m)
        return NULL;
    size_t s = fv_dtype_size(odt);
    for (int64_t i = 0; i < fv_array_size(m); i++) {
        uint64_t b = m_store_nd(odt, res[i]);
        memcpy((char *)fv_array_data(m) + i * (int64_t)s, &b, s);
    }
    return m;
}

/* One dispatch of the generic rank kernels (variant "generic" of "cuda.filternd") */
static fv_status
dispatch_untiled(fv__op_args *a)
{
    tv_force("cuda.filternd", "generic");
    fv_status st = fv__dispatch(ctx, FV__OP_FILTERND, a);
    tv_force("cuda.filternd", NULL);
    return st;
}

static void
runnd(const casend *c)
{
    char what[300];
    fv_array *hb = NULL, *hin = NULL, *db = NULL, *din = NULL, *hc = NULL, *ob = NULL, *dout = NULL, *got = NULL;
    int64_t n = 1, fsize = 1;
    for (int d = 0; d < c->nd; d++) {
        n *= c->shape[d];
        fsize *= c->fshape[d];
    }
    uint8_t *fp = malloc((size_t)fsize);
    double *w = malloc((size_t)fsize * sizeof(double));
    double *res = malloc((size_t)n * sizeof(double)), *mag = malloc((size_t)n * sizeof(double));
    int64_t count = 0;
    for (int64_t j = 0; j < fsize; j++) {
        fp[j] = c->use_fp ? uniform_in(0, 1) < c->fp_density : 1;
        if (c->kind == FV__FND_CORRELATE) {
            int r = (int)irand(0, 9);
            w[j] = r == 0 ? 0.0 : r == 1 ? 1e-17 : uniform_in(-1.0, 1.0);
        } else {
            w[j] = round(uniform_in(-50.0, 150.0) * 10.0) / 10.0;
        }
    }
    int64_t sel = irand(0, fsize - 1); /* one element selected for sure */
    fp[sel] = 1;
    if (c->kind == FV__FND_CORRELATE)
        w[sel] = 0.75;
    for (int64_t j = 0; j < fsize; j++)
        count += fp[j] && (c->kind != FV__FND_CORRELATE || fabs(w[j]) > DBL_EPSILON);
    fv__filternd_params p;
    memset(&p, 0, sizeof p);
    p.kind = c->kind;
    p.mode = c->mode;
    p.cval = c->cval;
    p.ndim = c->nd;
    for (int d = 0; d < c->nd; d++) {
        p.fshape[d] = c->fshape[d];
        p.origins[d] = c->origins[d];
    }
    p.footprint = c->use_fp ? fp : NULL;
    p.weights = c->kind == FV__FND_CORRELATE ? w : (c->use_st ? w : NULL);
    p.count = count;
    p.rank = c->rank_sel >= 10 ? c->rank_sel - 10
        : c->rank_sel < 0      ? irand(0, count - 1)
        : c->rank_sel == 0     ? 0
        : c->rank_sel == 1     ? count / 2
                               : count - 1;
    snprintf(what, sizeof what,
             "%s %s->%s nd=%d shape=(%lld,%lld,%lld,%lld) fshape=(%lld,%lld,%lld,%lld) "
             "count=%lld rank=%lld mode=%s cval=%g layout=%d/%d sp=%d fp=%d st=%d",
             kindnd_names[c->kind], fv_dtype_name(c->idt), fv_dtype_name(c->odt), c->nd, (long long)c->shape[0],
             (long long)(c->nd > 1 ? c->shape[1] : 0), (long long)(c->nd > 2 ? c->shape[2] : 0),
             (long long)(c->nd > 3 ? c->shape[3] : 0), (long long)c->fshape[0],
             (long long)(c->nd > 1 ? c->fshape[1] : 0), (long long)(c->nd > 2 ? c->fshape[2] : 0),
             (long long)(c->nd > 3 ? c->fshape[3] : 0), (long long)count, (long long)p.rank, mode_names[c->mode],
             c->cval, c->lin, c->lout, c->specials, c->use_fp, c->use_st);
    snprintf(current, sizeof current, "%s", what);
    make_input(c->idt, c->nd, c->shape, c->lin, c->specials, c->wide, &hb, &hin, &db, &din);
    hc = to_host(hin);
    dout = make_view(c->odt, c->nd, c->shape, c->lout, GPU, &ob);
    if (hc && dout && res && mag && w && fp) {
        ref_filternd(hc, &p, res, mag);
        fv__op_args a = { .in = din, .out = dout, .in2 = NULL, .params = &p };
        fv_status st = fv__dispatch(ctx, FV__OP_FILTERND, &a);
        double rtol = (c->odt == FV_FLOAT32) ? 1e-5 : 1e-12;
        if (st != FV_OK) {
            fv_t_fail++;
            fprintf(stderr, "%s: cuda -> %s: %s\n", what, fv_status_name(st), fv_error_message());
        } else {
            got = to_host(dout);
            CHECK(got && compare(got, res, mag, c->kind != FV__FND_CORRELATE, 1, rtol, what, "cuda"));
            if (got && c->tiled) {
                fv_array *mod = model_array(c->odt, c->nd, c->shape, res), *ub = NULL, *ug = NULL;
                fv_array *uout = make_view(c->odt, c->nd, c->shape, c->lout, GPU, &ub);
                CHECK(mod && same_bits(got, mod, 1, what, "tiled vs model"));
                fv__op_args au = { .in = din, .out = uout, .in2 = NULL, .params = &p };
                CHECK_OK(dispatch_untiled(&au));
                ug = to_host(uout);
                CHECK(ug && same_bits(got, ug, 0, what, "tiled vs untiled"));
                fv_array_unref(ug);
                fv_array_unref(uout);
                fv_array_unref(ub);
                fv_array_unref(mod);
            }
        }
        if (cpu_kernels != 0) {
            fv_array *hout = new_array(c->odt, c->nd, c->shape, CPU);
            fv__op_args ac = { .in = hin, .out = hout, .in2 = NULL, .params = &p };
            st = fv__dispatch(NULL, FV__OP_FILTERND, &ac);
            if (st == FV_ENOKERNEL) {
                cpu_kernels = 0;
            } else {
                cpu_kernels = 1;
                CHECK_OK(st);
                if (st == FV_OK)
                    CHECK(compare(hout, res, mag, c->kind != FV__FND_CORRELATE, 1, rtol, what, "cpu"));
                if (st == FV_OK && got && c->tiled)
                    CHECK(same_bits(got, hout, 0, what, "tiled vs cpu"));
            }
            fv_array_unref(hout);
        }
    }
    ncases++;
    fv_array_unref(got);
    fv_array_unref(dout);
    fv_array_unref(ob);
    fv_array_unref(hc);
    fv_array_unref(hin);
    fv_array_unref(hb);
    fv_array_unref(din);
    fv_array_unref(db);
    free(fp);
    free(w);
    free(res);
    free(mag);
}

static void
test_filternd(void)
{
    for (int kind = 0; kind < 4; kind++) {
        for (int pi = 0; pi < NPAIRS; pi++) {
            for (int mode = 0; mode < FV_MODE_COUNT; mode++) {
                if ((pi + mode) % 2)
                    continue; /* half the grid keeps the run short */
                casend c;
                memset(&c, 0, sizeof c);
                c.idt = pairs[pi][0];
                c.odt = pairs[pi][1];
                c.kind = kind;
                c.mode = mode;
                c.nd = (int)irand(1, 4);
                random_shape(c.nd, c.shape, 1500);
                int64_t fmax = c.nd == 1 ? 9 : c.nd == 2 ? 5 : 3;
                if (kind == FV__FND_RANK && irand(0, 2) == 0)
                    fmax = c.nd == 1 ? 90 : c.nd == 2 ? 9 : 4; /* > 64 elements: radix select */
                for (int d = 0; d < c.nd; d++) {
                    c.fshape[d] = irand(1, fmax);
                    c.origins[d] = irand(-(c.fshape[d] / 2), (c.fshape[d] - 1) / 2);
                }
                c.cval = cvals[irand(0, 6)];
                if (is_float(c.idt) && irand(0, 9) == 0)
                    c.cval = NAN;
                c.lin = (int)irand(0, 2);
                c.lout = (int)irand(0, 2);
                c.specials = (int)irand(0, 2);
                c.wide = (int)irand(0, 1);
                c.use_fp = irand(0, 2) != 0;
                c.fp_density = uniform_in(0.3, 0.9);
                c.use_st = (kind == FV__FND_MINIMUM || kind == FV__FND_MAXIMUM) && irand(0, 1);
                c.rank_sel = -1;
                runnd(&c);
            }
        }
    }
    /* rank paths in 2-D images: 3x3 (registers), 8-bit up to 255 elements (nibble
     * counts), float32 / 16-bit 5x5 (sorting network), up to 64 (quickselect),
     * more (radix select; NaN: exact second pass) */
    static const fv_dtype rk[][2] = { { FV_UINT8, FV_UINT8 }, { FV_FLOAT32, FV_FLOAT32 }, { FV_FLOAT64, FV_FLOAT64 },
                                      { FV_INT16, FV_INT16 }, { FV_UINT64, FV_FLOAT64 },  { FV_INT64, FV_INT64 },
                                      { FV_INT8, FV_INT8 },   { FV_UINT16, FV_INT32 } };
    static const int64_t fs[] = { 3, 5, 7, 9, 11, 17 };
    for (size_t k = 0; k < sizeof rk / sizeof rk[0]; k++) {
        for (size_t f = 0; f < sizeof fs / sizeof fs[0]; f++) {
            if (fs[f] == 17 && rk[k][0] != FV_UINT8 && rk[k][0] != FV_INT16)
                continue;
            casend c;
            memset(&c, 0, sizeof c);
            c.idt = rk[k][0];
            c.odt = rk[k][1];
            c.kind = FV__FND_RANK;
            c.mode = (int)((k + f) % FV_MODE_COUNT);
            c.nd = 2;
            c.shape[0] = irand(20, 45);
            c.shape[1] = irand(20, 45);
            c.fshape[0] = c.fshape[1] = fs[f];
            c.cval = 7.0;
            c.lin = (int)(f % 3);
            c.specials = (int)(k % 3);
            c.wide = (int)(f & 1);
            c.use_fp = f == 2;
            c.fp_density = 0.8;
            c.rank_sel = (int)(k % 3) == 2 ? -1 : 1;
            runnd(&c);
        }
    }
}

/* the tiled rank kernels (2-d, a full 3x3 or 5x5 box, 8/16-bit and float32
 * data): every mode, origins -1..1, thin, tiny and uneven shapes, strided
 * views, NaN / +-inf / -0.0 among the floats, NaN cval; bit for bit against
 * the model, the generic kernels and the CPU backend */
static void
test_rank_tiled(void)
{
    static const fv_dtype tp[][2] = { { FV_UINT8, FV_UINT8 },   { FV_INT8, FV_INT8 },       { FV_UINT16, FV_UINT16 },
                                      { FV_INT16, FV_INT16 },   { FV_FLOAT32, FV_FLOAT32 }, { FV_UINT8, FV_FLOAT32 },
                                      { FV_FLOAT32, FV_INT16 }, { FV_BOOL, FV_UINT8 } };
    static const int rsel[] = { 1, 0, 1, 2, -1 }; /* median (compile-time rank), min, max, random */
    static const int64_t shp[][2] = { { 1, 40 },  { 40, 1 },    { 2, 2 }, { 3, 3 },
                                      { 17, 33 }, { 130, 257 }, { 1, 1 }, { 33, 65 } };
    int n = 0;
    for (int k = 3; k <= 5; k += 2) {
        for (int mode = 0; mode < FV_MODE_COUNT; mode++) {
            for (size_t t = 0; t < sizeof tp / sizeof tp[0]; t++) {
                for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++, n++) {
                    casend c;
                    memset(&c, 0, sizeof c);
                    c.idt = tp[t][0];
                    c.odt = tp[t][1];
                    c.kind = FV__FND_RANK;
                    c.mode = mode;
                    c.nd = 2;
                    c.shape[0] = shp[si][0];
                    c.shape[1] = shp[si][1];
                    c.fshape[0] = c.fshape[1] = k;
                    c.origins[0] = n % 3 - 1;
                    c.origins[1] = (n / 3) % 3 - 1;
                    c.cval = cvals[n % 7];
                    if (is_float(c.idt) && n % 11 == 0)
                        c.cval = NAN;
                    if (is_float(c.idt) && n % 13 == 0)
                        c.cval = -0.0;
                    c.lin = n % 3;
                    c.lout = (n / 3) % 3;
                    c.specials = is_float(c.idt) ? 1 + n % 2 : 0;
                    c.wide = (n / 2) % 2;
                    c.rank_sel = rsel[n % 5];
                    c.tiled = 1;
                    runnd(&c);
                }
            }
        }
    }
}

/* ---- 64-bit index math: views whose byte extent passes 2^31 --------------------- */

static void
test_big(void)
{
    int64_t n = ((int64_t)1 << 31) + 4096;
    fv_array *base = NULL;
    if (fv_array_new(ctx, FV_UINT8, 1, &n, GPU, &base) != FV_OK) {
        printf("test_cuda_filters: skipping the >2 GiB case: %s\n", fv_error_message());
        return;
    }
    int64_t vs[2] = { 3, 300 }, vst[2] = { ((int64_t)1 << 30) + 7, 1 };
    fv_array *v = NULL, *h = new_array(FV_UINT8, 2, vs, CPU);
    CHECK_OK(fv_array_view(base, 2, vs, vst, 11, &v));
    fill(h, 0, 1);
    CHECK_OK(fv_copy(ctx, h, v));
    double *res = malloc(900 * sizeof(double)), *mag = malloc(900 * sizeof(double));
    double w[5] = { 0.25, -0.5, 1.0, 0.5, 0.3 };
    for (int axis = 0; axis < 2; axis++) {
        for (int kind = 0; kind < 4; kind++) {
            fv__filter1d_params p = { .kind = kind,
                                      .axis = axis,
                                      .mode = FV_MODE_REFLECT,
                                      .cval = 0,
                                      .origin = 0,
                                      .size = kind == 0 ? 5 : 3,
                                      .weights = kind == 0 ? w : NULL };
            fv_array *o = new_array(FV_UINT8, 2, vs, GPU), *got = NULL;
            fv__op_args a = { .in = v, .out = o, .params = &p };
            CHECK_OK(fv__dispatch(ctx, FV__OP_FILTER1D, &a));
            ref_filter1d(h, &p, res, mag);
            got = to_host(o);
            CHECK(got && compare(got, res, mag, kind >= 2, 0, 0, "filter1d 64-bit", "cuda"));
            fv_array_unref(got);
            fv_array_unref(o);
        }
    }
    for (int kind = 0; kind < 4; kind++) {
        double wn[9] = { 1, 2, 1, 0, -1, 0, 0.5, 0.25, 3 };
        fv__filternd_params p;
        memset(&p, 0, sizeof p);
        p.kind = kind;
        p.mode = FV_MODE_MIRROR;
        p.ndim = 2;
        p.fshape[0] = p.fshape[1] = 3;
        p.weights = kind == FV__FND_CORRELATE ? wn : NULL;
        p.count = kind == FV__FND_CORRELATE ? 7 : 9;
        p.rank = 4;
        fv_array *o = new_array(FV_FLOAT32, 2, vs, GPU), *got = NULL;
        fv__op_args a = { .in = v, .out = o, .params = &p };
        CHECK_OK(fv__dispatch(ctx, FV__OP_FILTERND, &a));
        ref_filternd(h, &p, res, mag);
        got = to_host(o);
        CHECK(got && compare(got, res, mag, kind != 0, 1, 1e-5, "filter 64-bit", "cuda"));
        fv_array_unref(got);
        fv_array_unref(o);
    }
    free(res);
    free(mag);
    fv_array_unref(h);
    fv_array_unref(v);
    fv_array_unref(base);
}

/* ---- edge cases and errors ------------------------------------------------------- */

static void
test_edges(void)
{
    int64_t s0[2] = { 0, 7 }, s1[2] = { 4, 5 };
    fv_array *e = new_array(FV_FLOAT32, 2, s0, GPU), *eo = new_array(FV_FLOAT32, 2, s0, GPU);
    double w[3] = { 1, 2, 3 };
    fv__filter1d_params p = { .kind = 0, .axis = 1, .mode = 0, .size = 3, .weights = w };
    fv__op_args a = { .in = e, .out = eo, .params = &p };
    CHECK_OK(fv__dispatch(ctx, FV__OP_FILTER1D, &a)); /* empty: nothing to do */
    fv__filternd_params q;
    memset(&q, 0, sizeof q);
    q.kind = FV__FND_MAXIMUM;
    q.ndim = 2;
    q.fshape[0] = q.fshape[1] = 3;
    q.count = 9;
    a.params = &q;
    CHECK_OK(fv__dispatch(ctx, FV__OP_FILTERND, &a));

    fv_array *x = new_array(FV_FLOAT32, 2, s1, GPU), *y = new_array(FV_FLOAT32, 2, s1, GPU);
    fv_array *z = new_array(FV_FLOAT32, 2, s0, GPU);
    a.in = x;
    a.out = y;
    a.params = &p;
    p.axis = 2;
    CHECK_ERR(fv__dispatch(ctx, FV__OP_FILTER1D, &a), FV_EINVAL, "axis");
    p.axis = 1;
    p.origin = 2;
    CHECK_ERR(fv__dispatch(ctx, FV__OP_FILTER1D, &a), FV_EINVAL, "origin");
    p.origin = 0;
    p.weights = NULL;
    CHECK_ERR(fv__dispatch(ctx, FV__OP_FILTER1D, &a), FV_EINVAL, "weights");
    p.weights = w;
    a.out = z;
    CHECK_ERR(fv__dispatch(ctx, FV__OP_FILTER1D, &a), FV_EINVAL, "shape");
    a.out = y;
    a.params = NULL;
    CHECK_ERR(fv__dispatch(ctx, FV__OP_FILTER1D, &a), FV_EINVAL, "parameters");
    a.params = &q;
    q.rank = 9;
    q.kind = FV__FND_RANK;
    CHECK_ERR(fv__dispatch(ctx, FV__OP_FILTERND, &a), FV_EINVAL, "rank");
    uint8_t none[9] = { 0 };
    q.footprint = none;
    q.rank = 0;
    CHECK_ERR(fv__dispatch(ctx, FV__OP_FILTERND, &a), FV_EINVAL, "no element");
    q.footprint = NULL;
    q.origins[0] = 2;
    CHECK_ERR(fv__dispatch(ctx, FV__OP_FILTERND, &a), FV_EINVAL, "origin");
    CHECK_OK(fv_context_synchronize(ctx));
    fv_array_unref(e);
    fv_array_unref(eo);
    fv_array_unref(x);
    fv_array_unref(y);
    fv_array_unref(z);
}

/* ---- timings (FOVEA_FILTERS_BENCH=1) -------------------------------------------------- */

static void
bench(cudaStream_t s)
{
    int64_t sh[2] = { 8192, 8192 };
    fv_array *in = new_array(FV_FLOAT32, 2, sh, GPU), *out = new_array(FV_FLOAT32, 2, sh, GPU);
    fv_array *in8 = new_array(FV_UINT8, 2, sh, GPU), *out8 = new_array(FV_UINT8, 2, sh, GPU);
    fv_array *h = new_array(FV_FLOAT32, 2, sh, CPU), *h8 = new_array(FV_UINT8, 2, sh, CPU);
    if (!in || !out || !in8 || !out8 || !h || !h8)
        return;
    fill(h, 0, 0);
    fill(h8, 0, 0);
    fv_copy(ctx, h, in);
    fv_copy(ctx, h8, in8);
    cudaEvent_t e0, e1;
    float ms = 0;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    size_t nb = (size_t)8192 * 8192 * 4;
    cudaMemcpyAsync(fv_array_data(out), fv_array_data(in), nb, cudaMemcpyDeviceToDevice, s);
    cudaEventRecord(e0, s);
    for (int r = 0; r < 20; r++)
        cudaMemcpyAsync(fv_array_data(out), fv_array_data(in), nb, cudaMemcpyDeviceToDevice, s);
    cudaEventRecord(e1, s);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    double copy_ms = ms / 20, bw = 2.0 * (double)nb / (copy_ms * 1e-3) / 1e9;
    printf("bench: copy 8192^2 float32: %.3f ms, %.0f GB/s (read + write)\n", copy_ms, bw);
    double g[33], s9[9];
    for (int k = 0; k < 33; k++)
        g[k] = exp(-0.5 * (k - 16) * (k - 16) / 16.0);
    for (int k = 0; k < 9; k++)
        s9[k] = 1.0 / 9;
    struct {
        const char *name;
        int kind;
        int64_t size;
        const double *w;
        int f32;
    } c1[] = { { "correlate1d 33 taps f32", 0, 33, g, 1 }, { "correlate1d 9 taps f32", 0, 9, s9, 1 },
               { "uniform1d 9 f32", 1, 9, NULL, 1 },       { "minimum1d 9 f32", 2, 9, NULL, 1 },
               { "maximum1d 51 f32", 3, 51, NULL, 1 },     { "uniform1d 9 u8", 1, 9, NULL, 0 },
               { "correlate1d 9 taps u8", 0, 9, s9, 0 },   { "minimum1d 9 u8", 2, 9, NULL, 0 } };
    for (size_t k = 0; k < sizeof c1 / sizeof c1[0]; k++) {
        for (int axis = 0; axis < 2; axis++) {
            fv__filter1d_params p = {
                .kind = c1[k].kind, .axis = axis, .mode = FV_MODE_REFLECT, .size = c1[k].size, .weights = c1[k].w
            };
            fv__op_args a = { .in = c1[k].f32 ? in : in8, .out = c1[k].f32 ? out : out8, .params = &p };
            double t = time_op(s, FV__OP_FILTER1D, &a, 10);
            double frac = copy_ms / t * (c1[k].f32 ? 1.0 : 4.0);
            printf("bench: %-26s axis %d: %.3f ms (%.0f%% of copy bandwidth)\n", c1[k].name, axis, t, 100 * frac);
        }
    }
    double w3[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
    struct {
        const char *name;
        int kind;
        int64_t f;
        int f32;
    } cn[] = { { "correlate 3x3 f32", 0, 3, 1 }, { "median 3x3 f32", 3, 3, 1 },     { "median 5x5 f32", 3, 5, 1 },
               { "median 3x3 u8", 3, 3, 0 },     { "median 5x5 u8", 3, 5, 0 },      { "median 7x7 u8", 3, 7, 0 },
               { "median 11x11 u8", 3, 11, 0 },  { "maximum 5x5 disk u8", 2, 5, 0 } };
    uint8_t disk[25];
    for (int k = 0; k < 25; k++)
        disk[k] = (k / 5 - 2) * (k / 5 - 2) + (k % 5 - 2) * (k % 5 - 2) <= 4;
    for (size_t k = 0; k < sizeof cn / sizeof cn[0]; k++) {
        fv__filternd_params p;
        memset(&p, 0, sizeof p);
        p.kind = cn[k].kind;
        p.mode = FV_MODE_REFLECT;
        p.ndim = 2;
        p.fshape[0] = p.fshape[1] = cn[k].f;
        p.weights = cn[k].kind == 0 ? w3 : NULL;
        p.footprint = cn[k].kind == 2 ? disk : NULL;
        p.count = cn[k].kind == 2 ? 13 : cn[k].f * cn[k].f;
        p.rank = p.count / 2;
        fv__op_args a = { .in = cn[k].f32 ? in : in8, .out = cn[k].f32 ? out : out8, .params = &p };
        double t = time_op(s, FV__OP_FILTERND, &a, cn[k].f > 7 ? 2 : 5);
        printf("bench: %-26s       : %.3f ms\n", cn[k].name, t);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    fv_array_unref(in);
    fv_array_unref(out);
    fv_array_unref(in8);
    fv_array_unref(out8);
    fv_array_unref(h);
    fv_array_unref(h8);
}

#ifndef FV_CUDA_FILTERS_NO_MAIN /* test_cuda_rank3d.c includes this file for its helpers */
int
main(void)
{
    if (!fv_cuda_available()) {
        printf("test_cuda_filters: skipped: %s\n", fv_cuda_unavailable_reason());
        return 77;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    signal(SIGFPE, on_crash);
    signal(SIGSEGV, on_crash);
    signal(SIGABRT, on_crash);
    cudaStream_t s = NULL;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    CHECK_OK(fv_context_new(&ctx));
    CHECK_OK(fv_context_set_cuda(ctx, 0, s));

    snprintf(current, sizeof current, "%s", "test_edges");
    test_edges();
    printf("test_cuda_filters: %s done, %d cases, %d failed\n", "test_edges", ncases, fv_t_fail);
    snprintf(current, sizeof current, "%s", "test_filter1d");
    test_filter1d();
    printf("test_cuda_filters: %s done, %d cases, %d failed\n", "test_filter1d", ncases, fv_t_fail);
    snprintf(current, sizeof current, "%s", "test_filter1d_paths");
    test_filter1d_paths();
    printf("test_cuda_filters: %s done, %d cases, %d failed\n", "test_filter1d_paths", ncases, fv_t_fail);
    snprintf(current, sizeof current, "%s", "test_filternd");
    test_filternd();
    printf("test_cuda_filters: %s done, %d cases, %d failed\n", "test_filternd", ncases, fv_t_fail);
    snprintf(current, sizeof current, "%s", "test_rank_tiled");
    test_rank_tiled();
    printf("test_cuda_filters: %s done, %d cases, %d failed\n", "test_rank_tiled", ncases, fv_t_fail);
    snprintf(current, sizeof current, "%s", "test_big");
    test_big();
    printf("test_cuda_filters: %s done, %d cases, %d failed\n", "test_big", ncases, fv_t_fail);
    CHECK_OK(fv_context_synchronize(ctx));

    /* a few cases again on the default context (legacy default stream) */
    fv_context *own = ctx;
    ctx = NULL;
    for (int k = 0; k < 6; k++) {
        case1d c = { .idt = FV_FLOAT32,
                     .odt = FV_UINT8,
                     .nd = 2,
                     .shape = { 37, 41 },
                     .axis = k % 2,
                     .kind = k % 4,
                     .size = 5,
                     .origin = 1,
                     .mode = k % FV_MODE_COUNT,
                     .cval = 1.5,
                     .lin = 1,
                     .lout = 2,
                     .specials = 1 };
        run1d(&c);
    }
    CHECK_OK(fv_context_synchronize(NULL));
    ctx = own;

    const char *b = getenv("FOVEA_FILTERS_BENCH");
    if (b && *b && *b != '0')
        bench(s);
    CHECK_OK(fv_context_synchronize(ctx));
    fv_context_free(ctx);
    cudaStreamDestroy(s);
    printf("test_cuda_filters: %d cases; CPU kernels %s\n", ncases,
           cpu_kernels == 1 ? "compared" : "absent (model only)");
    return fv_t_summary("test_cuda_filters");
}
#endif
