/* CPU kernels of FV__OP_MAX_TREE (union-find over the pixels in reverse sort
 * order, then canonization), FV__OP_MAX_TREE_FILTER (area / bounding-box
 * attributes and the direct filter; the local maxima labels) and FV__OP_FLOOD
 * (a FIFO queue from the seed), after scikit-image's _max_tree and
 * _flood_fill_cy. Sequential; neighbours outside the image are skipped by a
 * coordinate test. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "dtype-list.h"
#include "ops/morphology/maxtree.h"

static fv_status
fv__mt_nomem(const char *name)
{
    return fv_error_set(FV_ENOMEM, name, "out of memory");
}

/* ---- neighbours ------------------------------------------------------------------ */

typedef struct fv__nbhood {
    int nd, nnb;
    const int64_t *nb; /* nnb rows of nd coordinate offsets */
    const int64_t *shape;
    int64_t lo[FV_MAX_NDIM], hi[FV_MAX_NDIM]; /* per axis: the largest offset down, up (>= 0) */
    int64_t *buf;                             /* one int64 per pixel: the kernel's work array */
    int64_t *idx;                             /* nnb: the neighbours of one pixel */
    int64_t flat[];                           /* nnb flat offsets */
} fv__nbhood;

static void
fv__nbhood_free(fv__nbhood *h)
{
    if (h)
        free(h->buf);
    free(h);
}

/* The neighbourhood of img's pixels and the work arrays of a walk; NULL and
 * FV_ENOMEM set when memory is short. */
static fv__nbhood *
fv__nbhood_new(const fv_array *img, int nnb, const int64_t *nb, const char *name)
{
    fv__nbhood *h = malloc(sizeof *h + sizeof(int64_t) * (size_t)(2 * nnb + 1));
    if (!h || !(h->buf = malloc(sizeof(int64_t) * (size_t)fv_array_size(img) + 1))) {
        free(h);
        fv__mt_nomem(name);
        return NULL;
    }
    h->nd = img->ndim;
    h->nnb = nnb;
    h->nb = nb;
    h->shape = img->shape;
    h->idx = h->flat + nnb;
    for (int d = 0; d < h->nd; d++)
        h->lo[d] = h->hi[d] = 0;
    for (int k = 0; k < nnb; k++) {
        int64_t f = 0;
        for (int d = 0; d < h->nd; d++) {
            const int64_t o = nb[(int64_t)k * h->nd + d];
            f = f * img->shape[d] + o;
            h->lo[d] = o < -h->lo[d] ? -o : h->lo[d];
            h->hi[d] = o > h->hi[d] ? o : h->hi[d];
        }
        h->flat[k] = f;
    }
    return h;
}

/* The flat indices of pixel i's neighbours inside the image into idx; their count. */
static int
fv__nbhood_of(const fv__nbhood *h, int64_t i, int64_t *idx)
{
    int64_t c[FV_MAX_NDIM], rem = i;
    for (int d = h->nd - 1; d >= 0; d--) {
        c[d] = rem % h->shape[d];
        rem /= h->shape[d];
    }
    int inner = 1, m = 0;
    for (int d = 0; d < h->nd && inner; d++)
        inner = c[d] >= h->lo[d] && c[d] + h->hi[d] < h->shape[d];
    if (inner) { /* every neighbour inside */
        for (int k = 0; k < h->nnb; k++)
            idx[k] = i + h->flat[k];
        return h->nnb;
    }
    for (int k = 0; k < h->nnb; k++) {
        const int64_t *o = h->nb + (int64_t)k * h->nd;
        int in = 1;
        for (int d = 0; d < h->nd && in; d++)
            in = c[d] + o[d] >= 0 && c[d] + o[d] < h->shape[d];
        if (in)
            idx[m++] = i + h->flat[k];
    }
    return m;
}

/* ---- typed passes ------------------------------------------------------------------ */

#define FV__MT_TYPED(E, T, S)                                                                                          \
    static void fv__mt_canon_##S(const void *im, int64_t *parent, const int64_t *order, int64_t n)                     \
    {                                                                                                                  \
        const T *img = (const T *)im;                                                                                  \
        for (int64_t k = 0; k < n; k++) {                                                                              \
            const int64_t p = order[k], q = parent[p];                                                                 \
            if (img[q] == img[parent[q]])                                                                              \
                parent[p] = parent[q];                                                                                 \
        }                                                                                                              \
    }                                                                                                                  \
    static void fv__mt_filter_##S(const void *im, void *o, const int64_t *parent, const int64_t *order, int64_t n,     \
                                  const double *attr, double thr)                                                      \
    {                                                                                                                  \
        const T *img = (const T *)im;                                                                                  \
        T *out = (T *)o;                                                                                               \
        const int64_t root = order[0];                                                                                 \
        memcpy(out, img, sizeof(T) * (size_t)n);                                                                       \
        out[root] = attr[root] < thr ? (T)0 : img[root];                                                               \
        for (int64_t k = 0; k < n; k++) {                                                                              \
            const int64_t p = order[k], q = parent[p];                                                                 \
            if (p == root)                                                                                             \
                continue;                                                                                              \
            out[p] = img[p] == img[q] || attr[p] < thr ? out[q] : img[p];                                              \
        }                                                                                                              \
    }                                                                                                                  \
    static void fv__mt_lmax_##S(const void *im, uint64_t *out, const int64_t *parent, const int64_t *order, int64_t n) \
    {                                                                                                                  \
        const T *img = (const T *)im;                                                                                  \
        const int64_t root = order[0];                                                                                 \
        uint64_t label = 1;                                                                                            \
        for (int64_t i = 0; i < n; i++)                                                                                \
            out[i] = 1;                                                                                                \
        for (int64_t k = n - 1; k >= 0; k--) {                                                                         \
            const int64_t p = order[k], q = parent[p];                                                                 \
            if (p != root && img[p] != img[q]) {                                                                       \
                out[q] = 0;                                                                                            \
                if (out[p] > 0)                                                                                        \
                    out[p] = label++;                                                                                  \
            }                                                                                                          \
        }                                                                                                              \
        for (int64_t k = n - 1; k >= 0; k--) {                                                                         \
            const int64_t p = order[k], q = parent[p];                                                                 \
            if (p != root && img[p] == img[q])                                                                         \
                out[p] = out[q];                                                                                       \
        }                                                                                                              \
    }                                                                                                                  \
    static void fv__flood_##S(const void *im, const void *bnd, uint8_t *out, const fv__nbhood *h, int64_t seed,        \
                              int64_t *queue, int64_t *idx)                                                            \
    {                                                                                                                  \
        const T *img = (const T *)im;                                                                                  \
        const T lo = bnd ? ((const T *)bnd)[0] : img[seed], hi = bnd ? ((const T *)bnd)[1] : img[seed];                \
        int64_t head = 0, tail = 0;                                                                                    \
        out[seed] = 1;                                                                                                 \
        queue[tail++] = seed;                                                                                          \
        while (head < tail) {                                                                                          \
            const int m = fv__nbhood_of(h, queue[head++], idx);                                                        \
            for (int j = 0; j < m; j++) {                                                                              \
                const int64_t v = idx[j];                                                                              \
                if (!out[v] && lo <= img[v] && img[v] <= hi) {                                                         \
                    out[v] = 1;                                                                                        \
                    queue[tail++] = v;                                                                                 \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }
FV_FOREACH_DTYPE(FV__MT_TYPED)
#undef FV__MT_TYPED

typedef void (*fv__mt_canon_fn)(const void *, int64_t *, const int64_t *, int64_t);
typedef void (*fv__mt_filter_fn)(const void *, void *, const int64_t *, const int64_t *, int64_t, const double *,
                                 double);
typedef void (*fv__mt_lmax_fn)(const void *, uint64_t *, const int64_t *, const int64_t *, int64_t);
typedef void (*fv__flood_fn)(const void *, const void *, uint8_t *, const fv__nbhood *, int64_t, int64_t *, int64_t *);
static const fv__mt_canon_fn fv__mt_canon[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__mt_canon_);
static const fv__mt_filter_fn fv__mt_filter[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__mt_filter_);
static const fv__mt_lmax_fn fv__mt_lmax[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__mt_lmax_);
static const fv__flood_fn fv__flood[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__flood_);

/* ---- max_tree ----------------------------------------------------------------------- */

/* The root of i's set, with full path compression. scikit-image's find_root
 * shortcuts only the start node (O(depth) a call: seconds on smooth
 * megapixel images); the root, all that the tree takes from it, is the same. */
static int64_t
fv__mt_find_root(int64_t *zpar, int64_t i)
{
    int64_t r = i;
    while (zpar[r] != r)
        r = zpar[r];
    while (zpar[i] != r) {
        const int64_t next = zpar[i];
        zpar[i] = r;
        i = next;
    }
    return r;
}

fv_status
fv__cpu_max_tree(fv_context *ctx, const fv__op_args *a)
{
    (void)ctx;
    const fv__max_tree_params *p = fv__params_MAX_TREE(a);
    const int64_t n = fv_array_size(a->in), *order = (const int64_t *)a->in2->data;
    int64_t *parent = (int64_t *)a->out->data;
    fv__nbhood *h = fv__nbhood_new(a->in, p->nnb, p->nb, "max_tree");
    if (!h)
        return FV_ENOMEM;
    int64_t *zpar = h->buf, *idx = h->idx;
    for (int64_t i = 0; i < n; i++)
        parent[i] = zpar[i] = -1;
    for (int64_t k = n - 1; k >= 0; k--) {
        const int64_t q = order[k];
        parent[q] = zpar[q] = q;
        const int m = fv__nbhood_of(h, q, idx);
        for (int j = 0; j < m; j++) {
            if (parent[idx[j]] < 0)
                continue;
            const int64_t root = fv__mt_find_root(zpar, idx[j]);
            if (root != q)
                zpar[root] = parent[root] = q;
        }
    }
    fv__mt_canon[a->in->dtype](a->in->data, parent, order, n);
    fv__nbhood_free(h);
    return FV_OK;
}

/* ---- attribute filters ----------------------------------------------------------------- */

/* The bounding-box extent (largest along one axis, + 1) of every component. */
static fv_status
fv__mt_extension(const fv_array *img, const int64_t *parent, const int64_t *order, double *attr)
{
    const int nd = img->ndim;
    const int64_t n = fv_array_size(img), root = order[0];
    int64_t *lo = malloc(sizeof(int64_t) * (size_t)n * (size_t)nd),
            *hi = malloc(sizeof(int64_t) * (size_t)n * (size_t)nd);
    if (!lo || !hi) {
        free(lo);
        free(hi);
        return fv__mt_nomem("diameter");
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i;
        for (int d = nd - 1; d >= 0; d--) {
            lo[i * nd + d] = hi[i * nd + d] = rem % img->shape[d];
            rem /= img->shape[d];
        }
    }
    for (int64_t k = n - 1; k >= 0; k--) {
        const int64_t p = order[k], q = parent[p];
        if (p == root)
            continue;
        for (int d = 0; d < nd; d++) {
            if (hi[p * nd + d] > hi[q * nd + d])
                hi[q * nd + d] = hi[p * nd + d];
            if (lo[p * nd + d] < lo[q * nd + d])
                lo[q * nd + d] = lo[p * nd + d];
        }
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t e = 0;
        for (int d = 0; d < nd; d++)
            if (hi[i * nd + d] - lo[i * nd + d] > e)
                e = hi[i * nd + d] - lo[i * nd + d];
        attr[i] = (double)e + 1.0;
    }
    free(lo);
    free(hi);
    return FV_OK;
}

fv_status
fv__cpu_max_tree_filter(fv_context *ctx, const fv__op_args *a)
{
    (void)ctx;
    const fv__max_tree_filter_params *p = fv__params_MAX_TREE_FILTER(a);
    const int64_t n = fv_array_size(a->in), *parent = (const int64_t *)a->in2->data, *order = p->order;
    const int dt = a->in->dtype;
    if (p->attr == 2) {
        fv__mt_lmax[dt](a->in->data, (uint64_t *)a->out->data, parent, order, n);
        return FV_OK;
    }
    double *attr = malloc(sizeof(double) * (size_t)n);
    if (!attr)
        return fv__mt_nomem("max_tree_filter");
    fv_status st = FV_OK;
    if (p->attr == 0) {
        for (int64_t i = 0; i < n; i++)
            attr[i] = 1.0;
        for (int64_t k = n - 1; k >= 0; k--)
            if (order[k] != order[0])
                attr[parent[order[k]]] += attr[order[k]];
    } else {
        st = fv__mt_extension(a->in, parent, order, attr);
    }
    if (st == FV_OK)
        fv__mt_filter[dt](a->in->data, a->out->data, parent, order, n, attr, p->threshold);
    free(attr);
    return st;
}

/* ---- flood ---------------------------------------------------------------------------- */

fv_status
fv__cpu_flood(fv_context *ctx, const fv__op_args *a)
{
    (void)ctx;
    const fv__flood_params *p = fv__params_FLOOD(a);
    fv__nbhood *h = fv__nbhood_new(a->in, p->nnb, p->nb, "flood");
    if (!h)
        return FV_ENOMEM;
    memset(a->out->data, 0, (size_t)fv_array_size(a->in));
    fv__flood[a->in->dtype](a->in->data, a->in2 ? a->in2->data : NULL, (uint8_t *)a->out->data, h, p->seed, h->buf,
                            h->idx);
    fv__nbhood_free(h);
    return FV_OK;
}

FV_KERNEL(MAX_TREE, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_max_tree);
FV_KERNEL(MAX_TREE_FILTER, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_max_tree_filter);
FV_KERNEL(FLOOD, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_flood);
