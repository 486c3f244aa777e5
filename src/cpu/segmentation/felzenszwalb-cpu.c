/* CPU kernel of FV__OP_FELZENSZWALB (fv_felzenszwalb): scikit-image 0.26's
 * _felzenszwalb_cython on the smoothed image.
 *
 * Edges of the 8-connected grid in scikit-image's order (right, down,
 * down-right, up-right neighbours, each block in raster order), weights
 * sqrt(sum over channels of the squared difference) as NumPy computes them
 * (parallel over the edges), sorted by weight (ties: edge order, a stable
 * sort; scikit-image's argsort leaves their order to NumPy's quicksort) or in
 * the caller's order (a->in2: fovea.skimage passes NumPy's argsort), then
 * the greedy merge with scikit-image's union-find (roots the smallest index,
 * inner costs rounded to float32 as there) and the small-segment pass. Labels
 * number the segments by their first pixel in raster order, as scikit-image's
 * np.unique of the roots does. */
#include <math.h>
#include <stdlib.h>
#include "internal.h"
#include "alloc.h"
#include "ops/segmentation/superpixels.h"

typedef struct fv__fz_edge {
    double cost;
    int64_t e;
} fv__fz_edge;

typedef struct fv__fz_job {
    const double *img;
    int64_t h, w, c, n_right, n_down, n_diag;
    fv__fz_edge *edges;
} fv__fz_job;

/* the two pixels of edge e (skimage's order of the four blocks) */
static inline void
fv__fz_ends(const fv__fz_job *j, int64_t e, int64_t *a, int64_t *b)
{
    const int64_t w = j->w;
    if (e < j->n_right) {
        const int64_t r = e / (w - 1), c = e % (w - 1);
        *a = r * w + c + 1;
        *b = r * w + c;
        return;
    }
    e -= j->n_right;
    if (e < j->n_down) {
        *a = e + w;
        *b = e;
        return;
    }
    e -= j->n_down;
    const int64_t up = e >= j->n_diag;
    if (up)
        e -= j->n_diag;
    const int64_t r = e / (w - 1), c = e % (w - 1);
    if (up) { /* (r, c + 1) - (r + 1, c); the cost is image[r + 1, c] - image[r, c + 1] */
        *a = (r + 1) * w + c;
        *b = r * w + c + 1;
    } else {
        *a = (r + 1) * w + c + 1;
        *b = r * w + c;
    }
}

static void
fv__fz_costs(void *arg, int64_t b, int64_t e)
{
    fv__fz_job *j = arg;
    for (int64_t k = b; k < e; k++) {
        int64_t p, q;
        fv__fz_ends(j, k, &p, &q);
        const double *x = j->img + p * j->c, *y = j->img + q * j->c;
        double s = 0;
        for (int64_t ch = 0; ch < j->c; ch++) {
            const double d = x[ch] - y[ch];
            s = ch ? s + d * d : d * d;
        }
        j->edges[k].cost = sqrt(s);
        j->edges[k].e = k;
    }
}

/* by cost (NaN last, as NumPy sorts), then edge index */
static int
fv__fz_cmp(const void *pa, const void *pb)
{
    const fv__fz_edge *a = pa, *b = pb;
    const int na = a->cost != a->cost, nb = b->cost != b->cost;
    if (na != nb)
        return na - nb;
    if (!na && a->cost != b->cost)
        return a->cost < b->cost ? -1 : 1;
    return (a->e > b->e) - (a->e < b->e);
}

static inline int64_t
fv__fz_root(const int64_t *forest, int64_t n)
{
    while (forest[n] < n)
        n = forest[n];
    return n;
}

static inline void
fv__fz_set_root(int64_t *forest, int64_t n, int64_t root)
{
    while (forest[n] < n) {
        const int64_t j = forest[n];
        forest[n] = root;
        n = j;
    }
    forest[n] = root;
}

/* skimage's join_trees: both paths to the smaller root; returns it */
static inline int64_t
fv__fz_join(int64_t *forest, int64_t n, int64_t m)
{
    int64_t root = fv__fz_root(forest, n);
    const int64_t rm = fv__fz_root(forest, m);
    if (root > rm)
        root = rm;
    fv__fz_set_root(forest, n, root);
    fv__fz_set_root(forest, m, root);
    return root;
}

static fv_status
fv__cpu_felzenszwalb(fv_context *ctx, const fv__op_args *a)
{
    const fv__felzenszwalb_params *p = fv__params_FELZENSZWALB(a);
    fv__fz_job j = {
        .img = (const double *)a->in->data, .h = a->in->shape[0], .w = a->in->shape[1], .c = a->in->shape[2]
    };
    const int64_t h = j.h, w = j.w, n = h * w;
    j.n_right = h * (w > 0 ? w - 1 : 0);
    j.n_down = (h > 0 ? h - 1 : 0) * w;
    j.n_diag = (h > 0 ? h - 1 : 0) * (w > 0 ? w - 1 : 0);
    const int64_t ne = j.n_right + j.n_down + 2 * j.n_diag;
    int64_t *lab = (int64_t *)a->out->data;
    j.edges = fv__malloc(sizeof(fv__fz_edge) * (size_t)(ne + 1));
    int64_t *forest = fv__malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *size = fv__malloc(sizeof(int64_t) * (size_t)(n + 1));
    double *cint = fv__malloc(sizeof(double) * (size_t)(n + 1));
    fv_status st = FV_OK;
    if (!j.edges || !forest || !size || !cint) {
        st = fv_error_set(FV_ENOMEM, "felzenszwalb", "out of memory");
        goto done;
    }
    fv__parallel_for(ctx, ne, 1 << 14, fv__fz_costs, &j);
    if (a->in2) { /* the caller's order (NumPy's argsort of the same weights) */
        const int64_t *order = (const int64_t *)a->in2->data;
        for (int64_t k = 0; k < ne; k++)
            if (order[k] < 0 || order[k] >= ne) {
                st =
                    fv_error_set(FV_EINVAL, "felzenszwalb", "order holds %lld, not an edge index", (long long)order[k]);
                goto done;
            }
        fv__fz_edge *sorted = fv__malloc(sizeof(fv__fz_edge) * (size_t)(ne + 1));
        if (!sorted) {
            st = fv_error_set(FV_ENOMEM, "felzenszwalb", "out of memory");
            goto done;
        }
        for (int64_t k = 0; k < ne; k++)
            sorted[k] = j.edges[order[k]];
        fv__free(j.edges);
        j.edges = sorted;
    } else {
        qsort(j.edges, (size_t)ne, sizeof *j.edges, fv__fz_cmp);
    }
    for (int64_t i = 0; i < n; i++) {
        forest[i] = i;
        size[i] = 1;
        cint[i] = 0;
    }
    /* pass 0: the greedy merge; pass 1: segments below min_size join their neighbour */
    for (int pass = 0; pass < 2; pass++)
        for (int64_t k = 0; k < ne; k++) {
            int64_t u, v;
            fv__fz_ends(&j, j.edges[k].e, &u, &v);
            const int64_t s0 = fv__fz_root(forest, u), s1 = fv__fz_root(forest, v);
            if (s0 == s1)
                continue;
            int join;
            if (pass == 0) {
                const float ic0 = (float)(cint[s0] + p->scale / (double)size[s0]);
                const float ic1 = (float)(cint[s1] + p->scale / (double)size[s1]);
                join = j.edges[k].cost < (double)(ic1 < ic0 ? ic1 : ic0);
            } else {
                join = size[s0] < p->min_size || size[s1] < p->min_size;
            }
            if (join) {
                const int64_t r = fv__fz_join(forest, s0, s1);
                size[r] = size[s0] + size[s1];
                if (pass == 0)
                    cint[r] = j.edges[k].cost;
            }
        }
    int64_t next = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = fv__fz_root(forest, i);
        lab[i] = r == i ? next++ : lab[r];
    }
done:
    fv__free(j.edges);
    fv__free(forest);
    fv__free(size);
    fv__free(cint);
    return st;
}
FV_KERNEL(FELZENSZWALB, CPU, FV_DTYPE_BIT(FV_FLOAT64) | FV_DTYPE_BIT(FV_INT64), 3, fv__cpu_felzenszwalb);
