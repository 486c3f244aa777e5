/* CPU kernels of FV__OP_HOUGH_LINE and FV__OP_HOUGH_CIRCLE: the edge pixels
 * listed in raster order (rows over the thread pool), then the votes counted
 * over the pool: lines by angle (one accumulator column each), circles by
 * (radius, band of output rows), each task owning the cells it writes, so the
 * counts need no atomics and every run gives the same result. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/transform/hough.h"
#include "cpu/transform/hough-cpu.h"

/* Nonzero pixels of row y of the contiguous 2-d image in: their number, and
 * their columns into xs when xs is not NULL. */
static int64_t
fv__hough_row(const fv_array *in, int64_t y, int32_t *xs)
{
    const int64_t cols = in->shape[1];
    int64_t n = 0;
    switch (in->dtype) {
#define FV__HOUGH_ROW(E, T, S)                       \
    case E: {                                        \
        const T *r = (const T *)in->data + y * cols; \
        for (int64_t c = 0; c < cols; c++)           \
            if (r[c] != 0) {                         \
                if (xs)                              \
                    xs[n] = (int32_t)c;              \
                n++;                                 \
            }                                        \
        break;                                       \
    }
        FV_FOREACH_DTYPE(FV__HOUGH_ROW)
#undef FV__HOUGH_ROW
    default:
        break;
    }
    return n;
}

typedef struct fv__edges_job {
    const fv_array *in;
    fv__hough_edges *e;
    int fill;
} fv__edges_job;

static void
fv__edges_range(void *arg, int64_t b, int64_t end)
{
    fv__edges_job *j = arg;
    for (int64_t y = b; y < end; y++) {
        if (!j->fill) {
            j->e->rowptr[y + 1] = fv__hough_row(j->in, y, NULL);
            continue;
        }
        const int64_t s = j->e->rowptr[y];
        const int64_t n = fv__hough_row(j->in, y, j->e->xs + s);
        for (int64_t k = 0; k < n; k++)
            j->e->ys[s + k] = (int32_t)y;
    }
}

fv_status
fv__hough_edges_list(fv_context *ctx, const fv_array *in, fv__hough_edges *e, const char *name)
{
    const int64_t rows = in->shape[0];
    memset(e, 0, sizeof *e);
    if (!(e->rowptr = calloc((size_t)rows + 1, sizeof(int64_t))))
        return fv_error_set(FV_ENOMEM, name, "out of memory");
    const int64_t grain = in->shape[1] > 0 ? 1 + (1 << 16) / in->shape[1] : 1 << 16;
    fv__edges_job j = { in, e, 0 };
    fv__parallel_for(ctx, rows, grain, fv__edges_range, &j);
    for (int64_t y = 0; y < rows; y++)
        e->rowptr[y + 1] += e->rowptr[y];
    e->n = e->rowptr[rows];
    e->xs = malloc((size_t)(e->n ? e->n : 1) * sizeof(int32_t));
    e->ys = malloc((size_t)(e->n ? e->n : 1) * sizeof(int32_t));
    if (!e->xs || !e->ys) {
        fv__hough_edges_free(e);
        return fv_error_set(FV_ENOMEM, name, "out of memory for %lld edge pixels", (long long)e->n);
    }
    j.fill = 1;
    fv__parallel_for(ctx, rows, grain, fv__edges_range, &j);
    return FV_OK;
}

void
fv__hough_edges_free(fv__hough_edges *e)
{
    free(e->rowptr);
    free(e->xs);
    free(e->ys);
    memset(e, 0, sizeof *e);
}

/* ---- lines ------------------------------------------------------------------------------ */

typedef struct fv__hline_job {
    const fv__hough_line_params *p;
    const fv__hough_edges *e;
    uint64_t *out;
    int64_t nrho;
    int failed;
} fv__hline_job;

static void
fv__hline_range(void *arg, int64_t b, int64_t end)
{
    fv__hline_job *j = arg;
    const fv__hough_line_params *p = j->p;
    uint64_t *col = malloc((size_t)j->nrho * sizeof *col);
    if (!col) {
        j->failed = 1;
        return;
    }
    for (int64_t t = b; t < end; t++) {
        const double c = p->cos_t[t], s = p->sin_t[t];
        memset(col, 0, (size_t)j->nrho * sizeof *col);
        for (int64_t i = 0; i < j->e->n; i++) {
            const int64_t r = fv__hough_bin(c, s, j->e->xs[i], j->e->ys[i], p->offset);
            if (r >= 0 && r < j->nrho)
                col[r]++;
        }
        for (int64_t r = 0; r < j->nrho; r++)
            j->out[r * p->ntheta + t] = col[r];
    }
    free(col);
}

static fv_status
fv__cpu_hough_line(fv_context *ctx, const fv__op_args *a)
{
    const fv__hough_line_params *p = (const fv__hough_line_params *)a->params;
    fv__hough_edges e;
    fv_status st = fv__hough_edges_list(ctx, a->in, &e, "hough_line");
    if (st)
        return st;
    fv__hline_job j = { p, &e, (uint64_t *)a->out->data, a->out->shape[0], 0 };
    fv__parallel_for(ctx, p->ntheta, 1, fv__hline_range, &j);
    fv__hough_edges_free(&e);
    if (j.failed)
        return fv_error_set(FV_ENOMEM, "hough_line", "out of memory");
    return FV_OK;
}

/* ---- circles ---------------------------------------------------------------------------- */

#define FV__HCIRC_BAND 16 /* output rows per task */

typedef struct fv__hcirc_job {
    const fv__hough_circle_params *p;
    const fv__hough_edges *e;
    double *out;
    int64_t orows, ocols, nbands, irows;
    int failed;
} fv__hcirc_job;

/* One radius over output rows [r0, r1): the circle's points are sorted by row
 * offset (hough.c), so each edge pixel visits only the points landing there. */
static void
fv__hcirc_task(fv__hcirc_job *j, int64_t i, int64_t r0, int64_t r1)
{
    const fv__hough_circle_params *p = j->p;
    const int32_t *pts = p->pts + 2 * p->start[i];
    const int64_t np = p->start[i + 1] - p->start[i];
    if (np == 0)
        return;
    const int64_t lo = pts[0], hi = pts[2 * (np - 1)]; /* row offsets: lo..hi */
    int64_t *first = malloc((size_t)(hi - lo + 2) * sizeof *first);
    if (!first) {
        j->failed = 1;
        return;
    }
    for (int64_t k = 0, q = 0; k <= hi - lo + 1; k++) {
        while (q < np && pts[2 * q] < lo + k)
            q++;
        first[k] = q;
    }
    double *plane = j->out + i * j->orows * j->ocols;
    /* edge rows y with y + offset + dr in [r0, r1) for some dr in [lo, hi] */
    int64_t y0 = r0 - p->offset - hi, y1 = r1 - p->offset - lo;
    if (y0 < 0)
        y0 = 0;
    if (y1 > j->irows)
        y1 = j->irows;
    for (int64_t y = y0; y < y1; y++) {
        int64_t d0 = r0 - y - p->offset, d1 = r1 - y - p->offset; /* dr in [d0, d1) */
        if (d0 < lo)
            d0 = lo;
        if (d1 > hi + 1)
            d1 = hi + 1;
        if (d0 >= d1)
            continue;
        const int64_t q0 = first[d0 - lo], q1 = first[d1 - lo];
        for (int64_t k = j->e->rowptr[y]; k < j->e->rowptr[y + 1]; k++) {
            const int64_t x = j->e->xs[k] + p->offset;
            for (int64_t q = q0; q < q1; q++) {
                const int64_t tx = y + p->offset + pts[2 * q], ty = x + pts[2 * q + 1];
                if (ty >= 0 && ty < j->ocols)
                    plane[tx * j->ocols + ty] += 1.0;
            }
        }
    }
    free(first);
    if (p->sums) {
        const double *sums = p->sums + p->start[i] + i;
        for (int64_t k = r0 * j->ocols; k < r1 * j->ocols; k++)
            plane[k] = sums[(int64_t)plane[k]];
    }
}

static void
fv__hcirc_range(void *arg, int64_t b, int64_t end)
{
    fv__hcirc_job *j = arg;
    for (int64_t t = b; t < end; t++) {
        const int64_t i = t / j->nbands, band = t % j->nbands;
        const int64_t r0 = band * FV__HCIRC_BAND;
        const int64_t r1 = r0 + FV__HCIRC_BAND < j->orows ? r0 + FV__HCIRC_BAND : j->orows;
        fv__hcirc_task(j, i, r0, r1);
    }
}

static fv_status
fv__cpu_hough_circle(fv_context *ctx, const fv__op_args *a)
{
    const fv__hough_circle_params *p = (const fv__hough_circle_params *)a->params;
    fv__hough_edges e;
    fv_status st = fv__hough_edges_list(ctx, a->in, &e, "hough_circle");
    if (st)
        return st;
    fv__hcirc_job j = { p, &e, (double *)a->out->data, a->out->shape[1], a->out->shape[2], 0, a->in->shape[0], 0 };
    j.nbands = (j.orows + FV__HCIRC_BAND - 1) / FV__HCIRC_BAND;
    memset(j.out, 0, (size_t)fv_array_size(a->out) * sizeof(double));
    fv__parallel_for(ctx, p->nradii * j.nbands, 1, fv__hcirc_range, &j);
    fv__hough_edges_free(&e);
    if (j.failed)
        return fv_error_set(FV_ENOMEM, "hough_circle", "out of memory");
    return FV_OK;
}

FV_KERNEL(HOUGH_LINE, CPU, FV_DTYPES_ALL, 2, fv__cpu_hough_line);
FV_KERNEL(HOUGH_CIRCLE, CPU, FV_DTYPES_ALL, 3, fv__cpu_hough_circle);
