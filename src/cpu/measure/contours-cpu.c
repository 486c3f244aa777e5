/* Marching squares on the CPU: the directed iso-line segments of every 2 x 2
 * cell of a float64 image. Rows of cells are split into blocks that run on
 * the thread pool, each into its own growing buffer; the buffers are then
 * concatenated in block order, so the result is in raster order whatever the
 * thread count.
 *
 * Cell corners: ul = (r, c), ur = (r, c + 1), ll = (r + 1, c),
 * lr = (r + 1, c + 1); bit 1, 2, 4, 8 set when the corner is > level. Each
 * edge crossing lies at the linear-interpolation fraction along the edge
 * (0 when the edge's two values are equal). The segments go with the region
 * above level on their right-hand side (scikit-image's "low" orientation);
 * the two saddle cases (ul+lr, ur+ll inside) give two segments joined as the
 * vertex connectivity asks. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "ops/measure/contours.h"

typedef struct {
    fv__cseg *v;
    int64_t n, cap;
    int failed;
} fv__cbuf;

static int
fv__cbuf_push(fv__cbuf *b, double r0, double c0, double r1, double c1)
{
    if (b->n == b->cap) {
        int64_t cap = b->cap ? 2 * b->cap : 256;
        fv__cseg *v = realloc(b->v, (size_t)cap * sizeof *v);
        if (!v) {
            b->failed = 1;
            return -1;
        }
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = (fv__cseg){ r0, c0, r1, c1 };
    return 0;
}

static inline double
fv__frac(double from, double to, double level)
{
    return to == from ? 0.0 : (level - from) / (to - from);
}

typedef struct {
    const char *img, *mask;
    int64_t rows, cols, rs, cs, mrs, mcs, rows_per_block;
    double level;
    int high;
    fv__cbuf *bufs;
} fv__cjob;

#define FV__PX(base, r, c, rs, cs) (*(const double *)((base) + (r) * (rs) + (c) * (cs)))
#define FV__MK(base, r, c, rs, cs) (*(const unsigned char *)((base) + (r) * (rs) + (c) * (cs)))

static void
fv__contour_block(void *arg, int64_t begin, int64_t end)
{
    const fv__cjob *j = arg;
    for (int64_t blk = begin; blk < end; blk++) {
        fv__cbuf *b = &j->bufs[blk];
        int64_t r_end = (blk + 1) * j->rows_per_block;
        if (r_end > j->rows - 1)
            r_end = j->rows - 1;
        for (int64_t r = blk * j->rows_per_block; r < r_end && !b->failed; r++) {
            const double rr = (double)r, r1 = (double)(r + 1);
            for (int64_t c = 0; c < j->cols - 1; c++) {
                if (j->mask &&
                    !(FV__MK(j->mask, r, c, j->mrs, j->mcs) && FV__MK(j->mask, r, c + 1, j->mrs, j->mcs) &&
                      FV__MK(j->mask, r + 1, c, j->mrs, j->mcs) && FV__MK(j->mask, r + 1, c + 1, j->mrs, j->mcs)))
                    continue;
                const double ul = FV__PX(j->img, r, c, j->rs, j->cs), ur = FV__PX(j->img, r, c + 1, j->rs, j->cs);
                const double ll = FV__PX(j->img, r + 1, c, j->rs, j->cs);
                const double lr = FV__PX(j->img, r + 1, c + 1, j->rs, j->cs);
                if (isnan(ul) || isnan(ur) || isnan(ll) || isnan(lr))
                    continue;
                const double lv = j->level;
                const int sq = (ul > lv) | (ur > lv) << 1 | (ll > lv) << 2 | (lr > lv) << 3;
                if (sq == 0 || sq == 15)
                    continue;
                const double cc = (double)c, c1 = (double)(c + 1);
                /* the four edge crossings, (row, column) */
                const double top_r = rr, top_c = cc + fv__frac(ul, ur, lv);
                const double bot_r = r1, bot_c = cc + fv__frac(ll, lr, lv);
                const double lef_r = rr + fv__frac(ul, ll, lv), lef_c = cc;
                const double rig_r = rr + fv__frac(ur, lr, lv), rig_c = c1;
#define SEG(A, B) fv__cbuf_push(b, A##_r, A##_c, B##_r, B##_c)
                switch (sq) {
                case 1:
                    SEG(top, lef);
                    break;
                case 2:
                    SEG(rig, top);
                    break;
                case 3:
                    SEG(rig, lef);
                    break;
                case 4:
                    SEG(lef, bot);
                    break;
                case 5:
                    SEG(top, bot);
                    break;
                case 6:
                    if (j->high) {
                        SEG(lef, top);
                        SEG(rig, bot);
                    } else {
                        SEG(rig, top);
                        SEG(lef, bot);
                    }
                    break;
                case 7:
                    SEG(rig, bot);
                    break;
                case 8:
                    SEG(bot, rig);
                    break;
                case 9:
                    if (j->high) {
                        SEG(top, rig);
                        SEG(bot, lef);
                    } else {
                        SEG(top, lef);
                        SEG(bot, rig);
                    }
                    break;
                case 10:
                    SEG(bot, top);
                    break;
                case 11:
                    SEG(bot, lef);
                    break;
                case 12:
                    SEG(lef, rig);
                    break;
                case 13:
                    SEG(top, rig);
                    break;
                case 14:
                    SEG(lef, top);
                    break;
                }
#undef SEG
            }
        }
    }
}

static fv_status
fv__contour_segments(fv_context *ctx, const char *img, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                     const char *mask, int64_t mrs, int64_t mcs, double level, int high, fv__cseg **segs, int64_t *nseg)
{
    *segs = NULL;
    *nseg = 0;
    const int64_t cell_rows = rows - 1;
    /* blocks of about 64k cells, at least one row each */
    int64_t rpb = (int64_t)(65536 / (cols > 1 ? cols - 1 : 1));
    if (rpb < 1)
        rpb = 1;
    const int64_t nblk = (cell_rows + rpb - 1) / rpb;
    fv__cjob j = { img, mask, rows, cols, rs, cs, mrs, mcs, rpb, level, high, calloc((size_t)nblk, sizeof(fv__cbuf)) };
    if (!j.bufs)
        return fv_error_set(FV_ENOMEM, "find_contours", "out of memory");
    fv__parallel_for(ctx, nblk, 1, fv__contour_block, &j);
    fv_status st = FV_OK;
    int64_t total = 0;
    for (int64_t k = 0; k < nblk; k++) {
        if (j.bufs[k].failed)
            st = fv_error_set(FV_ENOMEM, "find_contours", "out of memory");
        total += j.bufs[k].n;
    }
    if (st == FV_OK && total > 0) {
        if (nblk == 1) {
            *segs = j.bufs[0].v;
            j.bufs[0].v = NULL;
        } else if (!(*segs = malloc((size_t)total * sizeof(fv__cseg)))) {
            st = fv_error_set(FV_ENOMEM, "find_contours", "out of memory");
        } else {
            int64_t at = 0;
            for (int64_t k = 0; k < nblk; k++) {
                if (j.bufs[k].n)
                    memcpy(*segs + at, j.bufs[k].v, (size_t)j.bufs[k].n * sizeof(fv__cseg));
                at += j.bufs[k].n;
            }
        }
        if (st == FV_OK)
            *nseg = total;
    }
    for (int64_t k = 0; k < nblk; k++)
        free(j.bufs[k].v);
    free(j.bufs);
    return st;
}

static fv_status
fv__cpu_contours(fv_context *ctx, const fv__op_args *a)
{
    const fv__contours_params *p = fv__params_CONTOURS(a);
    const fv_array *im = a->in, *mask = a->in2;
    return fv__contour_segments(fv__ctx(ctx), (const char *)fv_array_data(im), im->shape[0], im->shape[1],
                                im->strides[0], im->strides[1], mask ? (const char *)fv_array_data(mask) : NULL,
                                mask ? mask->strides[0] : 0, mask ? mask->strides[1] : 0, p->level, p->high, p->segs,
                                p->nseg);
}
FV_KERNEL(CONTOURS, CPU, FV_DTYPE_BIT(FV_FLOAT64) | FV_DTYPE_BIT(FV_BOOL) | FV_DTYPE_BIT(FV_UINT8), 2,
          fv__cpu_contours);
