/* CPU kernel of FV__OP_OBJECT_DISTANCE: the points hashed into a grid of cells
 * of side r (a pair within distance r, any p > 0, differs by at most one cell
 * along every axis), then scikit-image's greedy pass point by point: a point
 * of an object still present removes the other present objects with a point
 * in the 3^nd cells around its own within r. Sequential by nature. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/morphology/objdist.h"

typedef struct fv__grid {
    int nd;
    const int64_t *cell; /* npts x nd cell coordinates */
    int64_t *slot;       /* mask + 1 slots: a point of the cell, -1 empty */
    int64_t *next;       /* npts: the next point of the same cell, -1 last */
    uint64_t mask;
} fv__grid;

static uint64_t
fv__grid_hash(const int64_t *c, int nd)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int d = 0; d < nd; d++)
        h = (h ^ (uint64_t)c[d]) * 0xbf58476d1ce4e5b9ull + (h >> 31);
    return h ^ (h >> 29);
}

/* The slot of cell c: the one holding a point of c, or the empty one where it would go. */
static uint64_t
fv__grid_find(const fv__grid *g, const int64_t *c)
{
    uint64_t s = fv__grid_hash(c, g->nd) & g->mask;
    while (g->slot[s] >= 0 && memcmp(g->cell + g->slot[s] * g->nd, c, sizeof(int64_t) * (size_t)g->nd) != 0)
        s = (s + 1) & g->mask;
    return s;
}

static int
fv__within(const double *x, const double *y, int nd, double r, double p)
{
    double s = 0.0;
    if (p == 2.0) {
        for (int d = 0; d < nd; d++)
            s += (x[d] - y[d]) * (x[d] - y[d]);
        return s <= r * r;
    }
    if (isinf(p)) {
        for (int d = 0; d < nd; d++)
            s = fabs(x[d] - y[d]) > s ? fabs(x[d] - y[d]) : s;
        return s <= r;
    }
    if (p == 1.0) {
        for (int d = 0; d < nd; d++)
            s += fabs(x[d] - y[d]);
        return s <= r;
    }
    for (int d = 0; d < nd; d++)
        s += pow(fabs(x[d] - y[d]), p);
    return s <= pow(r, p);
}

fv_status
fv__cpu_object_distance(fv_context *ctx, const fv__op_args *a)
{
    (void)ctx;
    const fv__object_distance_params *p = fv__params_OBJECT_DISTANCE(a);
    const int64_t npts = a->in->shape[0];
    const int nd = (int)a->in->shape[1];
    const double *x = (const double *)a->in->data, r = p->r;
    const int64_t *obj = (const int64_t *)a->in2->data;
    uint8_t *removed = (uint8_t *)a->out->data;
    memset(removed, 0, (size_t)a->out->shape[0]);
    if (isnan(r) || isnan(p->p))
        return FV_OK; /* no distance compares true */
    uint64_t size = 16;
    while (size < 2 * (uint64_t)npts)
        size <<= 1;
    int64_t *cell = malloc(sizeof(int64_t) * (size_t)npts * (size_t)(nd ? nd : 1));
    int64_t *next = malloc(sizeof(int64_t) * (size_t)npts), *slot = malloc(sizeof(int64_t) * (size_t)size);
    if (!cell || !next || !slot) {
        free(cell);
        free(next);
        free(slot);
        return fv_error_set(FV_ENOMEM, "objects_by_distance", "out of memory");
    }
    /* cells of side r (r = 0: side 1, only equal points count; r = inf: one cell) */
    const double side = r > 0 ? r : 1.0;
    for (int64_t i = 0; i < npts * nd; i++) {
        double c = isinf(side) ? 0.0 : floor(x[i] / side);
        c = c < -4e18 ? -4e18 : c > 4e18 ? 4e18 : c;
        cell[i] = (int64_t)c;
    }
    fv__grid g = { .nd = nd, .cell = cell, .slot = slot, .next = next, .mask = size - 1 };
    for (uint64_t s = 0; s < size; s++)
        slot[s] = -1;
    for (int64_t i = npts - 1; i >= 0; i--) { /* each cell's list in point order */
        const uint64_t s = fv__grid_find(&g, cell + i * nd);
        next[i] = slot[s];
        slot[s] = i;
    }
    int64_t around[FV_MAX_NDIM];
    int64_t ncells = 1;
    for (int d = 0; d < nd; d++)
        ncells *= 3;
    for (int64_t i = 0; i < npts; i++) {
        if (removed[obj[i]])
            continue;
        for (int64_t k = 0; k < ncells; k++) {
            int64_t rem = k;
            for (int d = 0; d < nd; d++) {
                around[d] = cell[i * nd + d] + rem % 3 - 1;
                rem /= 3;
            }
            for (int64_t j = slot[fv__grid_find(&g, around)]; j >= 0; j = next[j])
                if (obj[j] != obj[i] && !removed[obj[j]] && fv__within(x + i * nd, x + j * nd, nd, r, p->p))
                    removed[obj[j]] = 1;
        }
    }
    free(cell);
    free(next);
    free(slot);
    return FV_OK;
}

FV_KERNEL(OBJECT_DISTANCE, CPU, FV_DTYPES_ALL, 2, fv__cpu_object_distance);
