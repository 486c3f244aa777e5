/* Exact Euclidean distance and feature transform on the CPU
 * (scipy.ndimage.distance_transform_edt).
 *
 * Separable, one axis after another, as in Maurer, Qi and Raghavan (PAMI 2003),
 * the algorithm scipy runs, with scipy's arithmetic so that the same inputs
 * give the same bits:
 *   axis 0   the nearest zero along each axis-0 line (ties: the earlier one),
 *            found by a forward and a backward sweep over rows of the image, so
 *            that memory is read row by row;
 *   axis d   for every line along d, the lower envelope of the parabolas of the
 *            line's sites (elements that have a nearest zero so far; a site's
 *            offset is its squared distance over the axes before d), then for
 *            each element the site of least distance (ties: the earlier).
 * The nearest zero's coordinates along the axes done so far live in an int32
 * scratch array per axis; the last axis writes the outputs, the distance as
 * sqrt(sum over axes of ((feature - position) * sampling)^2), summed in axis
 * order as scipy's Python code does. Lines are spread over the thread pool. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "morphology-cpu.h"

typedef struct fv__edt_job {
    int nd;
    int64_t shape[FV_MAX_NDIM];
    int64_t size;
    double s[FV_MAX_NDIM];
    const uint8_t *fg;          /* C-contiguous, nonzero = foreground */
    int32_t *feat[FV_MAX_NDIM]; /* feature coordinate per axis, C order; feat[0] < 0: none */
    fv_array *dist, *idx;       /* outputs (or NULL) */
    int axis;                   /* the pass's axis */
    int64_t inner;              /* product of the extents after axis */
    int64_t cols;               /* axis 0: elements per row (size / shape[0]) */
    atomic_int any_zero, oom;
} fv__edt_job;

/* ---- outputs ------------------------------------------------------------------------ */

static inline void
fv__edt_put_index(fv_array *idx, int64_t off, int32_t v)
{
    if (idx->dtype == FV_INT32)
        *(int32_t *)(idx->data + off) = v;
    else
        *(int64_t *)(idx->data + off) = v;
}

/* Byte offsets of element (x[0..nd-2], 0) of the outputs; last-axis strides apart. */
static void
fv__edt_line_offsets(const fv__edt_job *j, const int64_t *x, int64_t *doff, int64_t *ioff)
{
    *doff = 0;
    *ioff = 0;
    for (int d = 0; d < j->nd - 1; d++) {
        if (j->dist)
            *doff += x[d] * j->dist->strides[d];
        if (j->idx)
            *ioff += x[d] * j->idx->strides[d + 1];
    }
}

/* ---- axis 0: nearest zero by sweeps over rows ----------------------------------------- */

static void
fv__edt_axis0_range(void *arg, int64_t c0, int64_t c1)
{
    fv__edt_job *j = arg;
    const int64_t n = j->shape[0], m = j->cols, w = c1 - c0;
    int32_t *f = j->feat[0];
    int32_t *next = malloc(sizeof *next * (size_t)w);
    int any = 0;
    if (!next) {
        atomic_store(&j->oom, 1);
        return;
    }
    for (int64_t c = 0; c < w; c++)
        next[c] = -1; /* here: the last zero seen */
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *restrict g = j->fg + i * m + c0;
        int32_t *restrict fr = f + i * m + c0;
        for (int64_t c = 0; c < w; c++) {
            if (!g[c])
                next[c] = (int32_t)i;
            fr[c] = next[c];
        }
    }
    for (int64_t c = 0; c < w; c++) {
        any |= next[c] >= 0;
        next[c] = -1; /* now: the next zero */
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        const uint8_t *restrict g = j->fg + i * m + c0;
        int32_t *restrict fr = f + i * m + c0;
        for (int64_t c = 0; c < w; c++) {
            int32_t nx = g[c] ? next[c] : (int32_t)i, pv = fr[c];
            next[c] = nx;
            /* the later zero only when strictly nearer */
            if (nx >= 0 && (pv < 0 || (int64_t)nx - i < i - (int64_t)pv))
                fr[c] = nx;
        }
    }
    if (any)
        atomic_store(&j->any_zero, 1);
    free(next);
}

/* 1-d images: the one line is the whole answer. */
static void
fv__edt_1d(fv__edt_job *j)
{
    const int64_t n = j->shape[0];
    int32_t *f = j->feat[0];
    int32_t last = -1;
    for (int64_t i = 0; i < n; i++) {
        if (!j->fg[i])
            last = (int32_t)i;
        f[i] = last;
    }
    if (last >= 0)
        atomic_store(&j->any_zero, 1);
    int32_t next = -1;
    for (int64_t i = n - 1; i >= 0; i--) {
        if (!j->fg[i])
            next = (int32_t)i;
        if (next >= 0 && (f[i] < 0 || (int64_t)next - i < i - (int64_t)f[i]))
            f[i] = next;
    }
}

/* ---- axes 1 .. nd-1: lower envelopes along lines ------------------------------------- */

typedef struct fv__edt_scratch {
    double *wr;  /* per element: squared distance over the earlier axes */
    double *swr; /* per envelope entry */
    int32_t *g;  /* envelope: element positions */
    int32_t *fa; /* nd x n: the line's feature coordinates (axes < d) */
} fv__edt_scratch;

static void
fv__edt_line(fv__edt_job *j, fv__edt_scratch *sc, int64_t o, int64_t r)
{
    const int d = j->axis, nd = j->nd;
    const int64_t n = j->shape[d], inner = j->inner;
    const int64_t base = o * n * inner + r;
    const double sd = j->s[d];
    int64_t x[FV_MAX_NDIM]; /* the line's coordinates (x[d] unused) */
    {
        int64_t rem = r;
        for (int a = nd - 1; a > d; a--) {
            x[a] = rem % j->shape[a];
            rem /= j->shape[a];
        }
        rem = o;
        for (int a = d - 1; a >= 0; a--) {
            x[a] = rem % j->shape[a];
            rem /= j->shape[a];
        }
    }
    /* the line's sites and their offsets */
    int32_t *fa = sc->fa;
    for (int64_t i = 0; i < n; i++) {
        int64_t p = base + i * inner;
        int32_t f0 = j->feat[0][p];
        fa[i] = f0;
        if (f0 < 0)
            continue;
        double w = 0.0;
        for (int a = 0; a < d; a++) {
            int32_t fv = a ? j->feat[a][p] : f0;
            if (a)
                fa[a * n + i] = fv;
            double t = (double)((int64_t)fv - x[a]) * j->s[a];
            w += t * t;
        }
        sc->wr[i] = w;
    }
    /* the lower envelope (scipy's removal test, same operation order) */
    int64_t l = -1;
    for (int64_t i = 0; i < n; i++) {
        if (fa[i] < 0)
            continue;
        const double fd = (double)i, wR = sc->wr[i];
        while (l >= 1) {
            double f1 = (double)sc->g[l];
            double a = (f1 - (double)sc->g[l - 1]) * sd;
            double b = (fd - f1) * sd;
            double c = a + b;
            double uR = sc->swr[l - 1], vR = sc->swr[l];
            if (c * vR - b * uR - a * wR - a * b * c <= 0.0)
                break;
            --l;
        }
        ++l;
        sc->g[l] = (int32_t)i;
        sc->swr[l] = wR;
    }
    const int64_t maxl = l;
    if (maxl < 0)
        return; /* no site on this line yet */
    const int final = d == nd - 1;
    int64_t doff = 0, ioff = 0, dst = 0, ist = 0, istep = 0;
    if (final) {
        fv__edt_line_offsets(j, x, &doff, &ioff);
        dst = j->dist ? j->dist->strides[d] : 0;
        ist = j->idx ? j->idx->strides[d + 1] : 0;
        istep = j->idx ? j->idx->strides[0] : 0;
    }
    l = 0;
    for (int64_t i = 0; i < n; i++) {
        double t = (double)((int64_t)sc->g[l] - i) * sd;
        double delta1 = sc->swr[l] + t * t;
        while (l < maxl) {
            double t2 = (double)((int64_t)sc->g[l + 1] - i) * sd;
            double delta2 = sc->swr[l + 1] + t2 * t2;
            if (delta1 <= delta2)
                break;
            delta1 = delta2;
            ++l;
        }
        const int64_t site = sc->g[l];
        if (final) {
            if (j->dist)
                *(double *)(j->dist->data + doff + i * dst) = sqrt(delta1);
            if (j->idx) {
                int64_t off = ioff + i * ist;
                for (int a = 0; a < d; a++)
                    fv__edt_put_index(j->idx, off + a * istep, a ? fa[a * n + site] : fa[site]);
                fv__edt_put_index(j->idx, off + d * istep, (int32_t)site);
            }
        } else {
            int64_t p = base + i * inner;
            j->feat[0][p] = fa[site];
            for (int a = 1; a < d; a++)
                j->feat[a][p] = fa[a * n + site];
            j->feat[d][p] = (int32_t)site;
        }
    }
}

static void
fv__edt_axis_range(void *arg, int64_t begin, int64_t end)
{
    fv__edt_job *j = arg;
    const int64_t n = j->shape[j->axis];
    fv__edt_scratch sc;
    void *mem = malloc((size_t)n * (2 * sizeof(double) + sizeof(int32_t) * (size_t)(1 + j->axis)));
    if (!mem) {
        atomic_store(&j->oom, 1);
        return;
    }
    sc.wr = mem;
    sc.swr = sc.wr + n;
    sc.g = (int32_t *)(sc.swr + n);
    sc.fa = sc.g + n;
    for (int64_t line = begin; line < end; line++)
        fv__edt_line(j, &sc, line / j->inner, line % j->inner);
    free(mem);
}

/* ---- no zero anywhere: scipy's answer ------------------------------------------------ *
 * Its feature transform leaves -1 on axis 0 and 0 on the other axes; the
 * distances follow from those as usual. */
static void
fv__edt_nozero_range(void *arg, int64_t begin, int64_t end)
{
    fv__edt_job *j = arg;
    const int nd = j->nd, last = nd - 1;
    const int64_t n = j->shape[last];
    for (int64_t line = begin; line < end; line++) {
        int64_t x[FV_MAX_NDIM], rem = line;
        for (int a = last - 1; a >= 0; a--) {
            x[a] = rem % j->shape[a];
            rem /= j->shape[a];
        }
        int64_t doff, ioff;
        fv__edt_line_offsets(j, x, &doff, &ioff);
        for (int64_t i = 0; i < n; i++) {
            x[last] = i;
            if (j->dist) {
                double w = 0.0;
                for (int a = 0; a < nd; a++) {
                    double t = (double)((a == 0 ? -1 : 0) - x[a]) * j->s[a];
                    w += t * t;
                }
                *(double *)(j->dist->data + doff + i * j->dist->strides[last]) = sqrt(w);
            }
            if (j->idx)
                for (int a = 0; a < nd; a++)
                    fv__edt_put_index(j->idx, ioff + i * j->idx->strides[last + 1] + a * j->idx->strides[0],
                                      a == 0 ? -1 : 0);
        }
    }
}

/* 1-d output of the feature found by fv__edt_1d. */
static void
fv__edt_1d_write(fv__edt_job *j)
{
    const int64_t n = j->shape[0];
    for (int64_t i = 0; i < n; i++) {
        int32_t f = j->feat[0][i];
        if (j->dist) {
            double t = (double)((int64_t)f - i) * j->s[0];
            *(double *)(j->dist->data + i * j->dist->strides[0]) = sqrt(t * t);
        }
        if (j->idx)
            fv__edt_put_index(j->idx, i * j->idx->strides[1], f);
    }
}

fv_status
fv__cpu_edt(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "distance_transform_edt";
    const fv__distance_params *p = a->params;
    const fv_array *fga = a->in; /* the foreground (ops/morphology/distance.h) */
    int32_t *feat = NULL;
    fv_status st = FV_OK;
    fv__edt_job j;

    if (!p || p->ndim != a->in->ndim || !fv__distance_fg_ok(a->in))
        return fv_error_set(FV_EINTERNAL, name, "bad kernel parameters");
    memset(&j, 0, sizeof j);
    j.nd = p->ndim;
    j.size = fv_array_size(a->in);
    for (int d = 0; d < j.nd; d++) {
        j.shape[d] = a->in->shape[d];
        j.s[d] = p->sampling[d];
    }
    j.dist = p->distances;
    j.idx = p->indices;
    atomic_init(&j.any_zero, 0);
    atomic_init(&j.oom, 0);
    if (j.size == 0)
        return FV_OK;
    j.fg = (const uint8_t *)fga->data;
    /* scratch: feature coordinates along axes 0 .. nd-2 (the last pass writes the outputs) */
    int nfeat = j.nd > 1 ? j.nd - 1 : 1;
    if ((uint64_t)j.size > SIZE_MAX / sizeof(int32_t) / (uint64_t)nfeat ||
        !(feat = malloc(sizeof *feat * (size_t)j.size * (size_t)nfeat))) {
        st = fv_error_set(FV_ENOMEM, name, "out of memory for the feature scratch (%lld elements)", (long long)j.size);
        goto done;
    }
    for (int d = 0; d < nfeat; d++)
        j.feat[d] = feat + (size_t)d * (size_t)j.size;

    if (j.nd == 1) {
        fv__edt_1d(&j);
    } else {
        j.cols = j.size / j.shape[0];
        /* blocks of columns, each swept over all rows */
        int nt = fv_context_threads(ctx);
        int64_t grain = j.cols / (4 * (int64_t)nt);
        if (grain < 32)
            grain = 32;
        fv__parallel_for(ctx, j.cols, grain, fv__edt_axis0_range, &j);
    }
    if (atomic_load(&j.oom))
        goto oom;
    if (!atomic_load(&j.any_zero)) {
        int64_t lines = j.size / j.shape[j.nd - 1];
        fv__parallel_for(ctx, lines, 1 + 32768 / j.shape[j.nd - 1], fv__edt_nozero_range, &j);
        goto done;
    }
    if (j.nd == 1) {
        fv__edt_1d_write(&j);
        goto done;
    }
    for (int d = 1; d < j.nd; d++) {
        j.axis = d;
        j.inner = 1;
        for (int e = d + 1; e < j.nd; e++)
            j.inner *= j.shape[e];
        int64_t lines = j.size / j.shape[d];
        fv__parallel_for(ctx, lines, 1 + 16384 / j.shape[d], fv__edt_axis_range, &j);
        if (atomic_load(&j.oom))
            goto oom;
    }
    goto done;
oom:
    st = fv_error_set(FV_ENOMEM, name, "out of memory");
done:
    free(feat);
    return st;
}

FV_KERNEL(EDT, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_edt);
