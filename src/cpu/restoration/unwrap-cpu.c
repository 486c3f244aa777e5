/* CPU kernel of UNWRAP_GATHER: a union-find over the edges in order; each
 * node keeps its increment relative to its parent, a smaller group joins the
 * larger (as the unwrapper of Herraez et al. merges groups), paths are
 * compressed as they are walked. Sequential: the edge order is the algorithm. */
#include <string.h>
#include "internal.h"
#include "alloc.h"
#include "ops/restoration/unwrap.h"

/* root of x; off[x] becomes x's increment relative to that root */
static int64_t
fv__uw_find(int64_t *parent, int64_t *off, int64_t x)
{
    int64_t r = x, acc = 0;
    while (parent[r] != r)
        r = parent[r];
    /* second walk: the offsets to the root, from the top down */
    int64_t y = x;
    int64_t total = 0;
    while (parent[y] != y) {
        total += off[y];
        y = parent[y];
    }
    y = x;
    acc = total;
    while (parent[y] != y) {
        const int64_t next = parent[y], o = off[y];
        off[y] = acc;
        parent[y] = r;
        acc -= o;
        y = next;
    }
    return r;
}

static fv_status
fv__cpu_unwrap_gather(fv_context *ctx, const fv__op_args *a)
{
    (void)ctx;
    const fv__unwrap_params *p = fv__params_UNWRAP_GATHER(a);
    const int64_t *e = (const int64_t *)a->in->data;
    int64_t *inc = (int64_t *)a->out->data;
    int64_t *parent = fv__malloc((size_t)p->n * sizeof(int64_t));
    int64_t *size = fv__malloc((size_t)p->n * sizeof(int64_t));
    if (!parent || !size) {
        fv__free(parent);
        fv__free(size);
        return fv_error_set(FV_ENOMEM, "unwrap_phase", "out of host memory");
    }
    for (int64_t i = 0; i < p->n; i++) {
        parent[i] = i;
        size[i] = 1;
        inc[i] = 0;
    }
    for (int64_t k = 0; k < p->m; k++) {
        const int64_t p1 = e[3 * k], p2 = e[3 * k + 1], w = e[3 * k + 2];
        if (p1 < 0 || p1 >= p->n || p2 < 0 || p2 >= p->n)
            continue;
        const int64_t r1 = fv__uw_find(parent, inc, p1), r2 = fv__uw_find(parent, inc, p2);
        if (r1 == r2)
            continue;
        const int64_t i1 = p1 == r1 ? 0 : inc[p1], i2 = p2 == r2 ? 0 : inc[p2];
        /* wanted: increment(p2) = increment(p1) - w */
        if (size[r1] >= size[r2]) {
            parent[r2] = r1;
            inc[r2] = i1 - w - i2;
            size[r1] += size[r2];
        } else {
            parent[r1] = r2;
            inc[r1] = i2 + w - i1;
            size[r2] += size[r1];
        }
    }
    for (int64_t i = 0; i < p->n; i++)
        if (fv__uw_find(parent, inc, i) == i)
            inc[i] = 0;
    fv__free(parent);
    fv__free(size);
    return FV_OK;
}
FV_KERNEL(UNWRAP_GATHER, CPU, FV_DTYPE_BIT(FV_INT64), 2, fv__cpu_unwrap_gather);
