/* CPU kernel of FV__OP_COLOR: the pixels of the job's geometry split over the
 * thread pool; each chunk walks its pixels line by line along the innermost
 * pixel axis and runs the shared per-pixel math (src/ops/color/color-kernels.h). */
#include <string.h>

#include "internal.h"
#include "ops/color/color.h"

typedef void (*fv__color_pixel_fn)(const fv__color_job *j, const char *pin, const char *pin2, char *pout);

typedef struct fv__color_cpu {
    const fv__color_job *j;
    const char *in, *in2;
    char *out;
    fv__color_pixel_fn px;
    const double (*lut)[256]; /* uint8 MATRIX input: each channel's prepared values */
    int fast;                 /* ... with 3 rows, post NONE or NONNEG, channels adjacent */
} fv__color_cpu;

/* One pixel of uint8 MATRIX input: the prepared channel values from the tables,
 * then the rows into float64 out (the float path's arithmetic, value for value). */
/* y < 0 ? +0.0 : y (NaN and -0.0 kept, as the generic path), without a branch:
 * colour-deconvolution values straddle 0 at random */
static inline double
fv__nonneg(double y)
{
    uint64_t b;
    memcpy(&b, &y, sizeof b);
    b &= (uint64_t)0 - (uint64_t) !(y < 0); /* all ones when y >= 0 or NaN, else 0 */
    memcpy(&y, &b, sizeof y);
    return y;
}

/* A line of n pixels of uint8 MATRIX input with packed pixels (3 bytes in,
 * 3 doubles out) for 3 rows and post NONE or NONNEG: fv__color_rows_d's
 * arithmetic (products summed left to right, then the post offset), with the
 * matrix in registers. */
static void
fv__color_line_u8(const fv__color_cpu *w, const uint8_t *in, double *out, int64_t n)
{
    const fv_color_params *p = &w->j->p;
    const double *l0 = w->lut[0], *l1 = w->lut[1], *l2 = w->lut[2];
    const double m00 = p->matrix[0][0], m01 = p->matrix[0][1], m02 = p->matrix[0][2];
    const double m10 = p->matrix[1][0], m11 = p->matrix[1][1], m12 = p->matrix[1][2];
    const double m20 = p->matrix[2][0], m21 = p->matrix[2][1], m22 = p->matrix[2][2];
    const double a0 = p->post_offset[0], a1 = p->post_offset[1], a2 = p->post_offset[2];
    const int nonneg = p->post == FV_COLOR_POST_NONNEG;
    for (int64_t k = 0; k < n; k++) {
        const double v0 = l0[in[3 * k]], v1 = l1[in[3 * k + 1]], v2 = l2[in[3 * k + 2]];
        double y0 = m00 * v0 + m01 * v1 + m02 * v2;
        double y1 = m10 * v0 + m11 * v1 + m12 * v2;
        double y2 = m20 * v0 + m21 * v1 + m22 * v2;
        y0 += a0;
        y1 += a1;
        y2 += a2;
        if (nonneg) {
            y0 = fv__nonneg(y0);
            y1 = fv__nonneg(y1);
            y2 = fv__nonneg(y2);
        }
        out[3 * k] = y0;
        out[3 * k + 1] = y1;
        out[3 * k + 2] = y2;
    }
}

static void
fv__color_pixel_u8(const fv__color_cpu *w, const char *pin, char *pout)
{
    const fv__color_job *j = w->j;
    const int64_t so = j->cs[0], si = j->cs[1];
    double v[3], o[3];
    for (int c = 0; c < 3; c++)
        v[c] = w->lut[c][*(const uint8_t *)(pin + c * si)];
    const int nout = fv__color_rows_d(&j->p, v, o);
    for (int c = 0; c < nout; c++)
        *(double *)(pout + c * so) = o[c];
}

static void
fv__color_range(void *arg, int64_t begin, int64_t end)
{
    const fv__color_cpu *w = (const fv__color_cpu *)arg;
    const fv__geom *g = &w->j->g;
    const int nd = g->ndim, last = nd - 1;
    int64_t idx[FV_MAX_NDIM];
    int64_t r = begin;
    for (int d = nd - 1; d >= 0; d--) { /* multi-index of `begin` */
        idx[d] = r % g->shape[d];
        r /= g->shape[d];
    }
    int64_t i = begin;
    while (i < end) {
        int64_t off[3] = { 0, 0, 0 };
        for (int d = 0; d < nd; d++)
            for (int o = 0; o < g->nops; o++)
                off[o] += idx[d] * g->strides[o][d];
        int64_t n = g->shape[last] - idx[last];
        if (n > end - i)
            n = end - i;
        const int64_t s0 = g->strides[0][last], s1 = g->strides[1][last], s2 = g->nops > 2 ? g->strides[2][last] : 0;
        char *po = w->out + off[0];
        const char *pi = w->in + off[1];
        const char *pi2 = w->in2 ? w->in2 + off[2] : NULL;
        if (w->lut && w->fast && s1 == 3 && s0 == 3 * (int64_t)sizeof(double))
            fv__color_line_u8(w, (const uint8_t *)pi, (double *)po, n);
        else if (w->lut)
            for (int64_t k = 0; k < n; k++)
                fv__color_pixel_u8(w, pi + k * s1, po + k * s0);
        else
            for (int64_t k = 0; k < n; k++)
                w->px(w->j, pi + k * s1, pi2 ? pi2 + k * s2 : NULL, po + k * s0);
        i += n;
        idx[last] += n;
        for (int d = last; d > 0 && idx[d] >= g->shape[d]; d--) { /* carry */
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}

static fv_status
fv__cpu_color(fv_context *ctx, const fv__op_args *a)
{
    const fv__color_job *j = (const fv__color_job *)a->params;
    fv__color_cpu w = { j, a->in->data, a->in2 ? a->in2->data : NULL, a->out->data, NULL, NULL, 0 };
    double lut[3][256];
    if (a->in->dtype == FV_UINT8) {
        /* validated by the op: MATRIX to float64. Each 8-bit value is first what
         * scikit-image's img_as_float64 makes of it (v * (1 / 255)); its offset and
         * pre-function (sRGB linearisation, stain log) then go through the same
         * code as float64 input, once per value instead of once per pixel */
        for (int c = 0; c < 3; c++)
            for (int v = 0; v < 256; v++)
                lut[c][v] = fv__color_pre_d(&j->p, c, (double)v * (1.0 / 255), 0);
        w.lut = (const double(*)[256])lut;
        w.fast = j->p.rows == 3 && j->cs[1] == 1 && j->cs[0] == (int64_t)sizeof(double) &&
            (j->p.post == FV_COLOR_POST_NONE || j->p.post == FV_COLOR_POST_NONNEG);
    } else {
        const int si = a->in->dtype == FV_FLOAT32, so = a->out->dtype == FV_FLOAT32;
        w.px = si ? (so ? fv__color_pixel_ff : fv__color_pixel_fd) : (so ? fv__color_pixel_df : fv__color_pixel_dd);
    }
    if (j->g.size > 0)
        fv__parallel_for(ctx, j->g.size, 8192, fv__color_range, &w);
    return FV_OK;
}

FV_KERNEL(COLOR, CPU, FV_DTYPES_FLOAT | FV_DTYPE_BIT(FV_UINT8), FV_MAX_NDIM, fv__cpu_color);
