/* CPU kernels of FFT and FOURIER (src/ops/fft/fft.h).
 *
 * FFT: one pass per transformed axis. A pass hands the lines along its axis to
 * the thread pool; each worker gathers lines into contiguous buffers, runs the
 * cached 1-D plan (cpu/fft/fft-engine.h) on them, neighbouring lines together in
 * SIMD lanes, and scatters the results (fft-lines-impl.h). The first
 * pass reads in, later ones work in place on out (C2R: on a complex temporary,
 * the real pass last). Real transforms of even length n run as complex ones of
 * length n/2 with the usual split step; odd lengths as complex ones of length n.
 * FOURIER: lines along the last axis over the pool, the per-axis factors from
 * tables made once per call. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "cpu/fft/fft-engine.h"
#include "ops/fft/fft.h"

#define FV__PI 3.14159265358979323846

enum {
    PASS_C2C,
    PASS_R2C,
    PASS_C2R
};

typedef struct fv__fft_pass {
    const char *src;
    char *dst;
    int ndim;                                     /* logical */
    int64_t shape[FV_MAX_NDIM];                   /* iteration shape (the axis itself unused) */
    int64_t sstr[FV_MAX_NDIM], dstr[FV_MAX_NDIM]; /* logical strides, bytes */
    int axis, mode, inverse, dbl;
    int inner;    /* the innermost other axis, when its lines are blocked; else -1 */
    int64_t lscr; /* the plan's scratch values (lanes) */
    int64_t n;    /* transform length */
    double scale;
    const fv__fft1d *plan; /* length n, or n/2 for even real passes */
    void *htw;             /* even real passes: exp(-2 pi i k/n), k <= n/2 */
    int64_t bufn;          /* complex elements of each worker's buffer */
    atomic_int failed;
} fv__fft_pass;

/* Line l's byte offsets in src and dst. */
static void
line_offsets(const fv__fft_pass *ps, int64_t l, int64_t *so, int64_t *dof)
{
    int64_t s = 0, t = 0;
    for (int d = ps->ndim - 1; d >= 0; d--) {
        if (d == ps->axis)
            continue;
        const int64_t c = l % ps->shape[d];
        l /= ps->shape[d];
        s += c * ps->sstr[d];
        t += c * ps->dstr[d];
    }
    *so = s;
    *dof = t;
}

/* Lines along a strided axis are gathered FV__FFT_BLOCK at a time, neighbours along
 * the innermost other axis: each step of the gather then reads FV__FFT_BLOCK adjacent
 * elements (a cache line) instead of one element per cache line. */
#define FV__FFT_BLOCK 8

/* How many lines from l (at most FV__FFT_BLOCK, not past e) are neighbours along the
 * pass's innermost other axis; 1 when that axis is not worth blocking. */
static int64_t
line_run(const fv__fft_pass *ps, int64_t l, int64_t e)
{
    if (ps->inner < 0)
        return 1;
    const int64_t n = ps->shape[ps->inner], c = l % n;
    int64_t r = n - c;
    if (r > e - l)
        r = e - l;
    return r < FV__FFT_BLOCK ? r : FV__FFT_BLOCK;
}

#define T float
#define S(name) fv__fft_##name##_f32
#include "cpu/fft/fft-lines-impl.h"
#undef T
#undef S
#define T double
#define S(name) fv__fft_##name##_f64
#include "cpu/fft/fft-lines-impl.h"
#undef T
#undef S

static fv_status
run_pass(fv_context *ctx, fv__fft_pass *ps)
{
    const int half = ps->mode != PASS_C2C && ps->n % 2 == 0;
    const int64_t plen = half ? ps->n / 2 : ps->n;
    const size_t es = ps->dbl ? sizeof(double) : sizeof(float);
    int64_t nlines = 1;
    fv__fft1d *plan = fv__fft1d_get(plen, ps->dbl);
    if (!plan)
        return FV_ENOMEM;
    ps->plan = plan;
    ps->htw = NULL;
    if (half) {
        const int64_t h = ps->n / 2;
        if (!(ps->htw = malloc((size_t)(h + 1) * 2 * es))) {
            fv__fft1d_put(plan);
            return fv_error_set(FV_ENOMEM, "fft", "out of memory");
        }
        for (int64_t k = 0; k <= h; k++) {
            const double a = -2.0 * FV__PI * (double)k / (double)ps->n;
            if (ps->dbl) {
                ((double *)ps->htw)[2 * k] = cos(a);
                ((double *)ps->htw)[2 * k + 1] = sin(a);
            } else {
                ((float *)ps->htw)[2 * k] = (float)cos(a);
                ((float *)ps->htw)[2 * k + 1] = (float)sin(a);
            }
        }
    }
    for (int d = 0; d < ps->ndim; d++)
        if (d != ps->axis)
            nlines *= ps->shape[d];
    /* lines run in the engine's lanes, neighbours along the innermost other axis (of
     * more than one element) together */
    ps->inner = -1;
    for (int d = ps->ndim - 1; d >= 0; d--) {
        if (d != ps->axis && ps->shape[d] > 1) {
            ps->inner = d;
            break;
        }
    }
    ps->bufn = 2 * ps->n + fv__fft1d_scratch(plan) + 2;
    ps->lscr = fv__fft1d_scratch(plan) + 1;
    atomic_init(&ps->failed, 0);
    int64_t grain = 32768 / (ps->n > 0 ? ps->n : 1);
    fv__parallel_for(ctx, nlines, grain < 1 ? 1 : grain, ps->dbl ? fv__fft_lines_f64 : fv__fft_lines_f32, ps);
    free(ps->htw);
    ps->htw = NULL;
    fv__fft1d_put(plan);
    if (atomic_load(&ps->failed))
        return fv_error_set(FV_ENOMEM, "fft", "out of memory for line buffers");
    return FV_OK;
}

/* Logical strides of a (without the pair axis of complex arrays). */
static void
logical(const fv_array *a, int nd, int64_t *str)
{
    for (int d = 0; d < nd; d++)
        str[d] = a->strides[d];
}

static fv_status
fv__cpu_fft(fv_context *ctx, const fv__op_args *a)
{
    const fv__fft_params *p = fv__params_FFT(a);
    const fv_array *in = a->in;
    fv_array *out = a->out;
    const int dbl = in->dtype == FV_FLOAT64;
    const size_t es = dbl ? sizeof(double) : sizeof(float);
    const int nd = p->kind == FV_FFT_C2R ? out->ndim : out->ndim - 1;
    const int last = p->axes[p->naxes - 1];
    fv__fft_pass ps;
    fv_status st = FV_OK;

    memset(&ps, 0, sizeof ps);
    ps.ndim = nd;
    ps.dbl = dbl;
    if (p->kind != FV_FFT_C2R) {
        /* first pass: the last axis, in -> out; then the others in place on out */
        for (int i = p->naxes - 1; i >= 0 && st == FV_OK; i--) {
            const int ax = p->axes[i];
            const int first = i == p->naxes - 1;
            for (int d = 0; d < nd; d++)
                ps.shape[d] = out->shape[d];
            ps.src = first ? in->data : out->data;
            if (first)
                logical(in, nd, ps.sstr);
            else
                logical(out, nd, ps.sstr);
            ps.dst = out->data;
            logical(out, nd, ps.dstr);
            ps.axis = ax;
            ps.mode = first && p->kind == FV_FFT_R2C ? PASS_R2C : PASS_C2C;
            ps.inverse = p->inverse;
            ps.n = ps.mode == PASS_R2C ? p->n_last : out->shape[ax];
            ps.scale = i == 0 ? p->scale : 1.0;
            st = run_pass(ctx, &ps);
        }
        return st;
    }
    /* C2R: complex inverse passes into a temporary (in's logical shape), the real pass last */
    char *tmp = NULL;
    int64_t tstr[FV_MAX_NDIM];
    if (p->naxes > 1) {
        int64_t size = 1;
        for (int d = nd - 1; d >= 0; d--) {
            tstr[d] = size * 2 * (int64_t)es;
            size *= in->shape[d];
        }
        if (!(tmp = malloc((size_t)size * 2 * es)))
            return fv_error_set(FV_ENOMEM, "fft", "out of memory for a %lld-element temporary", (long long)size);
        for (int i = 0; i < p->naxes - 1 && st == FV_OK; i++) {
            for (int d = 0; d < nd; d++)
                ps.shape[d] = in->shape[d];
            ps.src = i == 0 ? in->data : tmp;
            if (i == 0)
                logical(in, nd, ps.sstr);
            else
                memcpy(ps.sstr, tstr, sizeof tstr);
            ps.dst = tmp;
            memcpy(ps.dstr, tstr, sizeof tstr);
            ps.axis = p->axes[i];
            ps.mode = PASS_C2C;
            ps.inverse = 1;
            ps.n = in->shape[ps.axis];
            ps.scale = 1.0;
            st = run_pass(ctx, &ps);
        }
    }
    if (st == FV_OK) {
        for (int d = 0; d < nd; d++)
            ps.shape[d] = out->shape[d];
        ps.src = tmp ? tmp : in->data;
        if (tmp)
            memcpy(ps.sstr, tstr, sizeof tstr);
        else
            logical(in, nd, ps.sstr);
        ps.dst = out->data;
        logical(out, nd, ps.dstr);
        ps.axis = last;
        ps.mode = PASS_C2R;
        ps.inverse = 1;
        ps.n = p->n_last;
        ps.scale = p->scale;
        st = run_pass(ctx, &ps);
    }
    free(tmp);
    return st;
}
FV_KERNEL(FFT, CPU, FV_DTYPES_FLOAT, FV_MAX_NDIM, fv__cpu_fft);

/* ---- FOURIER ------------------------------------------------------------------------ */

typedef struct fv__fourier_job {
    const fv__fourier_params *q;
    const fv_array *in;
    fv_array *out;
    int nd;
    double *tab[FV_MAX_NDIM];
} fv__fourier_job;

static inline double
ld(const char *p, int dbl)
{
    return dbl ? *(const double *)p : (double)*(const float *)p;
}

static inline void
st1(char *p, int dbl, double v)
{
    if (dbl)
        *(double *)p = v;
    else
        *(float *)p = (float)v;
}

static void
fourier_lines(void *arg, int64_t b, int64_t e)
{
    const fv__fourier_job *j = arg;
    const fv__fourier_params *q = j->q;
    const int nd = j->nd, ld_ = nd - 1;
    const int add = q->kind == FV__FOURIER_ELLIPSOID || q->kind == FV__FOURIER_SHIFT;
    const int idbl = j->in->dtype == FV_FLOAT64, odbl = j->out->dtype == FV_FLOAT64;
    const size_t ies = idbl ? 8 : 4, oes = odbl ? 8 : 4;
    const int64_t len = j->in->shape[ld_];
    const int64_t is = j->in->strides[ld_], os = j->out->strides[ld_];
    for (int64_t l = b; l < e; l++) {
        int64_t r = l, io = 0, oo = 0;
        double acc = add ? 0.0 : 1.0;
        for (int d = nd - 2; d >= 0; d--) {
            const int64_t c = r % j->in->shape[d];
            r /= j->in->shape[d];
            io += c * j->in->strides[d];
            oo += c * j->out->strides[d];
            acc = add ? acc + j->tab[d][c] : acc * j->tab[d][c];
        }
        const char *ip = j->in->data + io;
        char *op = j->out->data + oo;
        for (int64_t c = 0; c < len; c++, ip += is, op += os) {
            const double t = j->tab[ld_][c];
            const double f = fv__fourier_finish(q, add ? acc + t : acc * t);
            const double xr = ld(ip, idbl), xi = q->in_complex ? ld(ip + ies, idbl) : 0.0;
            double yr, yi;
            if (q->kind == FV__FOURIER_SHIFT) {
                const double cs = cos(f), sn = sin(f);
                yr = xr * cs - xi * sn;
                yi = xr * sn + xi * cs;
            } else {
                yr = xr * f;
                yi = xi * f;
            }
            st1(op, odbl, yr);
            if (q->out_complex)
                st1(op + oes, odbl, yi);
        }
    }
}

static fv_status
fv__cpu_fourier(fv_context *ctx, const fv__op_args *a)
{
    fv__fourier_job j;
    fv_status st = FV_OK;
    memset(&j, 0, sizeof j);
    j.q = fv__params_FOURIER(a);
    j.in = a->in;
    j.out = a->out;
    j.nd = j.q->ndim;
    for (int d = 0; d < j.nd && st == FV_OK; d++) {
        const int64_t len = a->in->shape[d];
        if (!(j.tab[d] = malloc((size_t)(len > 0 ? len : 1) * sizeof(double))))
            st = fv_error_set(FV_ENOMEM, "fourier_filter", "out of memory");
        else
            for (int64_t c = 0; c < len; c++)
                j.tab[d][c] = fv__fourier_term(j.q, d, len, c);
    }
    if (st == FV_OK) {
        int64_t nlines = 1;
        for (int d = 0; d < j.nd - 1; d++)
            nlines *= a->in->shape[d];
        const int64_t len = a->in->shape[j.nd - 1];
        int64_t grain = 16384 / (len > 0 ? len : 1);
        fv__parallel_for(ctx, nlines, grain < 1 ? 1 : grain, fourier_lines, &j);
    }
    for (int d = 0; d < j.nd; d++)
        free(j.tab[d]);
    return st;
}
FV_KERNEL(FOURIER, CPU, FV_DTYPES_FLOAT, FV_MAX_NDIM, fv__cpu_fourier);
