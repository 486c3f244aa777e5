/* Exact nearest neighbours between integer point sets by a sweep along one
 * axis (fv_nearest_points): the points are sorted by that coordinate; each
 * query binary-searches its place and walks outwards both ways, keeping the
 * smallest squared distance (lowest point row among ties), and stops a
 * direction once the gap along the axis alone, squared, exceeds the best.
 * Queries are split over the thread pool. */
#include "ops/metrics/nearest.h"

typedef struct {
    const int64_t *p, *q;
    int64_t n, nd, axis;
    int64_t *d2, *idx;
} fv__nn_job;

static void
fv__nn_range(void *arg, int64_t begin, int64_t end)
{
    const fv__nn_job *j = arg;
    const int64_t n = j->n, nd = j->nd, ax = j->axis;
    for (int64_t k = begin; k < end; k++) {
        const int64_t *q = j->q + k * nd;
        const int64_t key = q[ax];
        /* first point whose sweep coordinate is >= key */
        int64_t lo = 0, hi = n;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (j->p[mid * nd + ax] < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        int64_t best = INT64_MAX, best_i = -1;
        int64_t up = lo, down = lo - 1;
        int up_open = up < n, down_open = down >= 0;
        while (up_open || down_open) {
            int64_t i;
            if (up_open && down_open) {
                int64_t gu = j->p[up * nd + ax] - key, gd = key - j->p[down * nd + ax];
                i = gu <= gd ? up++ : down--;
            } else if (up_open) {
                i = up++;
            } else {
                i = down--;
            }
            const int64_t *pt = j->p + i * nd;
            const int64_t g = pt[ax] - key;
            if (g * g > best) { /* everything further this way is further still */
                if (i >= lo)
                    up_open = 0;
                else
                    down_open = 0;
            } else {
                int64_t s = 0;
                for (int64_t d = 0; d < nd; d++) {
                    const int64_t e = pt[d] - q[d];
                    s += e * e;
                }
                if (s < best || (s == best && i < best_i)) {
                    best = s;
                    best_i = i;
                }
            }
            up_open = up_open && up < n;
            down_open = down_open && down >= 0;
        }
        j->d2[k] = best;
        if (j->idx)
            j->idx[k] = best_i;
    }
}

static fv_status
fv__cpu_nearest_points(fv_context *ctx, const fv__op_args *a)
{
    const fv__nearest_params *p = fv__params_NEAREST(a);
    const fv_array *points = a->in, *queries = a->in2;
    fv__nn_job j = { (const int64_t *)points->data,
                     (const int64_t *)queries->data,
                     points->shape[0],
                     points->shape[1],
                     p->axis,
                     (int64_t *)a->out->data,
                     p->index ? (int64_t *)p->index->data : NULL };
    fv__parallel_for(fv__ctx(ctx), queries->shape[0], 256, fv__nn_range, &j);
    return FV_OK;
}
FV_KERNEL(NEAREST, CPU, FV_DTYPE_BIT(FV_INT64), 2, fv__cpu_nearest_points);
