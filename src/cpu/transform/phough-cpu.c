/* CPU kernel of FV__OP_PHOUGH_LINE: scikit-image 0.26's progressive
 * probabilistic Hough transform, step for step (one thread: each step depends
 * on the previous ones): pixels taken from the end of the given order, voted
 * into an int64 accumulator; at a peak over the threshold the line is walked
 * both ways in 16.16 fixed point along the peak's direction, bridging gaps of
 * up to line_gap pixels; a long enough line takes its pixels off the image and
 * their votes (also of pixels not yet drawn, as scikit-image does) out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/transform/hough.h"
#include "cpu/transform/hough-cpu.h"

#define FV__PH_SHIFT 16

typedef struct fv__ph_state {
    const fv__phough_params *p;
    int64_t rows, cols, nacc, offset;
    uint8_t *mask;
    int64_t *acc;
} fv__ph_state;

/* Adds d to the votes of pixel (x, y) at every angle; the angle of the largest
 * count above threshold - 1 after adding (first one wins), or -1. */
static int64_t
fv__ph_vote(fv__ph_state *s, int64_t x, int64_t y, int64_t d)
{
    const fv__phough_params *p = s->p;
    int64_t best = p->threshold - 1, arg = -1;
    for (int64_t j = 0; j < p->ntheta; j++) {
        const int64_t r = fv__hough_bin(p->cos_t[j], p->sin_t[j], x, y, s->offset);
        if (r < 0 || r >= s->nacc)
            continue;
        int64_t *v = &s->acc[r * p->ntheta + j];
        *v += d;
        if (*v > best) {
            best = *v;
            arg = j;
        }
    }
    return arg;
}

/* The walk from the pixel (x, y) along angle j: start (x0, y0), steps (dx0, dy0)
 * and whether x is the unit-step axis. */
typedef struct fv__ph_walk {
    int64_t x0, y0, dx0, dy0;
    int xflag;
} fv__ph_walk;

static fv__ph_walk
fv__ph_walk_init(const fv__phough_params *p, int64_t j, int64_t x, int64_t y)
{
    fv__ph_walk w = { x, y, 0, 0, 0 };
    const double a = -p->sin_t[j], b = p->cos_t[j];
    const double one = (double)(1 << FV__PH_SHIFT);
    w.xflag = fabs(a) > fabs(b);
    if (w.xflag) {
        w.dx0 = a > 0 ? 1 : -1;
        w.dy0 = fv__hough_round(b * one / fabs(a));
        w.y0 = y * ((int64_t)1 << FV__PH_SHIFT) + (1 << (FV__PH_SHIFT - 1));
    } else {
        w.dy0 = b > 0 ? 1 : -1;
        w.dx0 = fv__hough_round(a * one / fabs(b));
        w.x0 = x * ((int64_t)1 << FV__PH_SHIFT) + (1 << (FV__PH_SHIFT - 1));
    }
    return w;
}

/* Pixel of walk position (px, py). */
static void
fv__ph_at(const fv__ph_walk *w, int64_t px, int64_t py, int64_t *x1, int64_t *y1)
{
    *x1 = w->xflag ? px : px >> FV__PH_SHIFT; /* arithmetic shift, as scikit-image's C */
    *y1 = w->xflag ? py >> FV__PH_SHIFT : py;
}

/* Pass 1: the last pixel still on the image in each direction, gaps of at most
 * line_gap bridged. end[0..3] = (x, y) forwards, (x, y) backwards. */
static void
fv__ph_ends(fv__ph_state *s, const fv__ph_walk *w, int64_t end[4])
{
    for (int k = 0; k < 2; k++) {
        int64_t gap = 0, px = w->x0, py = w->y0;
        const int64_t dx = k ? -w->dx0 : w->dx0, dy = k ? -w->dy0 : w->dy0;
        for (;;) {
            int64_t x1, y1;
            fv__ph_at(w, px, py, &x1, &y1);
            if (x1 < 0 || x1 >= s->cols || y1 < 0 || y1 >= s->rows)
                break;
            gap++;
            if (s->mask[y1 * s->cols + x1]) {
                gap = 0;
                end[2 * k] = x1;
                end[2 * k + 1] = y1;
            } else if (gap > s->p->line_gap) {
                break;
            }
            px += dx;
            py += dy;
        }
    }
}

/* Pass 2: the pixels up to both ends leave the image and take their votes back. */
static void
fv__ph_erase(fv__ph_state *s, const fv__ph_walk *w, const int64_t end[4])
{
    for (int k = 0; k < 2; k++) {
        int64_t px = w->x0, py = w->y0;
        const int64_t dx = k ? -w->dx0 : w->dx0, dy = k ? -w->dy0 : w->dy0;
        for (;;) {
            int64_t x1, y1;
            fv__ph_at(w, px, py, &x1, &y1);
            if (x1 < 0 || x1 >= s->cols || y1 < 0 || y1 >= s->rows)
                break; /* not reached: pass 1 ended inside */
            if (s->mask[y1 * s->cols + x1]) {
                s->mask[y1 * s->cols + x1] = 0;
                (void)fv__ph_vote(s, x1, y1, -1);
            }
            if (x1 == end[2 * k] && y1 == end[2 * k + 1])
                break;
            px += dx;
            py += dy;
        }
    }
}

static fv_status
fv__cpu_phough(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "probabilistic_hough_line";
    const fv__phough_params *p = (const fv__phough_params *)a->params;
    const int64_t *order = (const int64_t *)a->in2->data;
    int64_t *lines = (int64_t *)a->out->data;
    const int64_t max_lines = a->out->shape[0];
    fv__ph_state s = { p, a->in->shape[0], a->in->shape[1], 0, 0, NULL, NULL };
    fv__hough_edges e;
    fv_status st = fv__hough_edges_list(ctx, a->in, &e, name);
    if (st)
        return st;
    int64_t count = e.n, nl = 0;
    if (a->in2->shape[0] != count) {
        st = fv_error_set(FV_EINVAL, name, "order has %lld entries for %lld edge pixels", (long long)a->in2->shape[0],
                          (long long)count);
        goto done;
    }
    for (int64_t k = 0; k < count; k++)
        if (order[k] < 0 || order[k] >= count) {
            st = fv_error_set(FV_EINVAL, name, "order[%lld] = %lld is not an edge pixel index", (long long)k,
                              (long long)order[k]);
            goto done;
        }
    s.nacc = 2 * (int64_t)ceil(sqrt((double)s.rows * (double)s.rows + (double)s.cols * (double)s.cols));
    s.offset = s.nacc / 2;
    s.mask = calloc((size_t)(s.rows * s.cols), 1);
    s.acc = calloc((size_t)(s.nacc * (p->ntheta ? p->ntheta : 1)), sizeof(int64_t));
    if (!s.mask || !s.acc) {
        st = fv_error_set(FV_ENOMEM, name, "out of memory");
        goto done;
    }
    for (int64_t k = 0; k < count; k++)
        s.mask[(int64_t)e.ys[k] * s.cols + e.xs[k]] = 1;
    while (count > 0) {
        count--;
        const int64_t x = e.xs[order[count]], y = e.ys[order[count]];
        if (!s.mask[y * s.cols + x])
            continue;
        const int64_t j = fv__ph_vote(&s, x, y, 1);
        if (j < 0)
            continue;
        const fv__ph_walk w = fv__ph_walk_init(p, j, x, y);
        int64_t end[4] = { x, y, x, y };
        fv__ph_ends(&s, &w, end);
        if (!(llabs(end[3] - end[1]) >= p->line_length || llabs(end[2] - end[0]) >= p->line_length))
            continue;
        fv__ph_erase(&s, &w, end);
        memcpy(lines + 4 * nl, end, sizeof end);
        if (++nl >= max_lines)
            break;
    }
done:
    *p->nlines = nl;
    free(s.mask);
    free(s.acc);
    fv__hough_edges_free(&e);
    return st;
}

FV_KERNEL(PHOUGH_LINE, CPU, FV_DTYPES_ALL, 2, fv__cpu_phough);
