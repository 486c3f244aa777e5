/* CPU kernel of FV__OP_RECONSTRUCTION: Vincent's hybrid algorithm (L. Vincent,
 * "Morphological grayscale reconstruction in image analysis", IEEE TIP 1993),
 * for any neighbour set (values flow from p to p + nb[k]):
 *
 *   1. raster scan: rec(x) = min(mask(x), max(rec(x), rec(x - s))) over the
 *      offsets s that point forward in memory (x - s already visited);
 *   2. anti-raster scan: the same over the backward offsets; a pixel whose
 *      value could still raise a pixel visited before it in this scan is queued;
 *   3. FIFO propagation from the queued pixels until nothing changes.
 *
 * The images are held padded (by the footprint's reach on each side) with a
 * sentinel that never propagates and is never raised, so no bounds checks are
 * needed. Erosion is the same with the order reversed. Runs on the calling
 * thread. Also registers every scikit-image morphology CPU kernel. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/morphology/reconstruction.h"

/* ---- a growable FIFO of int64 --------------------------------------------------- */

typedef struct fv__fifo {
    int64_t *buf;
    int64_t cap, head, count;
} fv__fifo;

static int
fv__fifo_push(fv__fifo *q, int64_t v)
{
    if (q->count == q->cap) {
        int64_t ncap = q->cap ? q->cap * 2 : 1024;
        int64_t *nb = malloc((size_t)ncap * sizeof *nb);
        if (!nb)
            return -1;
        for (int64_t i = 0; i < q->count; i++) /* unwrap in order */
            nb[i] = q->buf[(q->head + i) % q->cap];
        free(q->buf);
        q->buf = nb;
        q->cap = ncap;
        q->head = 0;
    }
    q->buf[(q->head + q->count) % q->cap] = v;
    q->count++;
    return 0;
}

static int64_t
fv__fifo_pop(fv__fifo *q)
{
    int64_t v = q->buf[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return v;
}

/* ---- the padded geometry ----------------------------------------------------------- */

typedef struct fv__rec_geom {
    int nd;
    int64_t n[FV_MAX_NDIM];   /* image shape */
    int64_t pad[FV_MAX_NDIM]; /* per side */
    int64_t ps[FV_MAX_NDIM];  /* padded strides, elements */
    int64_t total;            /* padded elements */
    int64_t rows, len;        /* image rows (all axes but the last) and row length */
} fv__rec_geom;

/* Padded linear index of the first element of image row r. */
static int64_t
fv__rec_row(const fv__rec_geom *g, int64_t r)
{
    int64_t idx = g->pad[g->nd - 1] * g->ps[g->nd - 1];
    for (int d = g->nd - 2; d >= 0; d--) {
        int64_t c = r % g->n[d];
        r /= g->n[d];
        idx += (c + g->pad[d]) * g->ps[d];
    }
    return idx;
}

static fv_status
fv__rec_geom_init(fv__rec_geom *g, const fv_array *in, const fv__reconstruction_params *p)
{
    int64_t pshape[FV_MAX_NDIM], nbytes;
    g->nd = in->ndim;
    for (int d = 0; d < g->nd; d++) {
        g->n[d] = in->shape[d];
        g->pad[d] = p->lo[d] > p->hi[d] ? p->lo[d] : p->hi[d];
        pshape[d] = g->n[d] + 2 * g->pad[d];
    }
    fv_status st = fv__shape_size("reconstruction", g->nd, pshape, 8, &g->total, &nbytes);
    if (st)
        return st;
    int64_t s = 1;
    for (int d = g->nd - 1; d >= 0; d--) {
        g->ps[d] = s;
        s *= pshape[d];
    }
    g->len = g->n[g->nd - 1];
    g->rows = g->len ? fv_array_size(in) / g->len : 0;
    return FV_OK;
}

/* ---- the kernel, per dtype and direction ------------------------------------------------ */

/* LT(a, b): a comes before b in the propagation order (dilation: a < b). */
#define FV__LT_dil(a, b) ((a) < (b))
#define FV__LT_ero(a, b) ((a) > (b))

#define FV__REC_KERNEL(T, S, DIR, SENTINEL)                                                                            \
    static fv_status fv__rec_##DIR##_##S(const fv__op_args *a, const fv__reconstruction_params *p)                     \
    {                                                                                                                  \
        fv__rec_geom g;                                                                                                \
        fv__fifo q = { 0 };                                                                                            \
        T *rec = NULL, *msk = NULL;                                                                                    \
        int64_t *off = NULL, *fwd = NULL, *bwd = NULL;                                                                 \
        int nfwd = 0, nbwd = 0;                                                                                        \
        fv_status st = fv__rec_geom_init(&g, a->in, p);                                                                \
        if (st)                                                                                                        \
            return st;                                                                                                 \
        rec = malloc((size_t)g.total * sizeof(T));                                                                     \
        msk = malloc((size_t)g.total * sizeof(T));                                                                     \
        off = malloc(((size_t)p->nnb + 1) * sizeof *off);                                                              \
        fwd = malloc(((size_t)p->nnb + 1) * sizeof *fwd);                                                              \
        bwd = malloc(((size_t)p->nnb + 1) * sizeof *bwd);                                                              \
        if (!rec || !msk || !off || !fwd || !bwd) {                                                                    \
            st =                                                                                                       \
                fv_error_set(FV_ENOMEM, "reconstruction", "out of memory (%lld padded elements)", (long long)g.total); \
            goto done;                                                                                                 \
        }                                                                                                              \
        for (int k = 0; k < p->nnb; k++) {                                                                             \
            int64_t o = 0;                                                                                             \
            for (int d = 0; d < g.nd; d++)                                                                             \
                o += p->nb[(int64_t)k * g.nd + d] * g.ps[d];                                                           \
            off[k] = o;                                                                                                \
            if (o > 0)                                                                                                 \
                fwd[nfwd++] = o;                                                                                       \
            else                                                                                                       \
                bwd[nbwd++] = o;                                                                                       \
        }                                                                                                              \
        for (int64_t i = 0; i < g.total; i++)                                                                          \
            rec[i] = msk[i] = (SENTINEL);                                                                              \
        {                                                                                                              \
            const T *sp = (const T *)a->in->data, *mp = (const T *)a->in2->data;                                       \
            for (int64_t r = 0; r < g.rows; r++) {                                                                     \
                int64_t b = fv__rec_row(&g, r), ib = r * g.len;                                                        \
                for (int64_t i = 0; i < g.len; i++) {                                                                  \
                    T s = sp[ib + i], m = mp[ib + i];                                                                  \
                    msk[b + i] = m;                                                                                    \
                    rec[b + i] = FV__LT_##DIR(m, s) ? m : s;                                                           \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        /* 1. raster scan */                                                                                           \
        for (int64_t r = 0; r < g.rows; r++) {                                                                         \
            int64_t b = fv__rec_row(&g, r);                                                                            \
            for (int64_t x = b; x < b + g.len; x++) {                                                                  \
                T v = rec[x], m = msk[x];                                                                              \
                for (int k = 0; k < nfwd; k++) {                                                                       \
                    T u = rec[x - fwd[k]];                                                                             \
                    if (FV__LT_##DIR(v, u))                                                                            \
                        v = u;                                                                                         \
                }                                                                                                      \
                rec[x] = FV__LT_##DIR(m, v) ? m : v;                                                                   \
            }                                                                                                          \
        }                                                                                                              \
        /* 2. anti-raster scan, queueing pixels that can still raise a visited one */                                  \
        for (int64_t r = g.rows - 1; r >= 0; r--) {                                                                    \
            int64_t b = fv__rec_row(&g, r);                                                                            \
            for (int64_t x = b + g.len - 1; x >= b; x--) {                                                             \
                T v = rec[x], m = msk[x];                                                                              \
                for (int k = 0; k < nbwd; k++) {                                                                       \
                    T u = rec[x - bwd[k]];                                                                             \
                    if (FV__LT_##DIR(v, u))                                                                            \
                        v = u;                                                                                         \
                }                                                                                                      \
                if (FV__LT_##DIR(m, v))                                                                                \
                    v = m;                                                                                             \
                rec[x] = v;                                                                                            \
                for (int k = 0; k < nfwd; k++) {                                                                       \
                    int64_t y = x + fwd[k];                                                                            \
                    if (FV__LT_##DIR(rec[y], v) && FV__LT_##DIR(rec[y], msk[y])) {                                     \
                        if (fv__fifo_push(&q, x)) {                                                                    \
                            st = fv_error_set(FV_ENOMEM, "reconstruction", "out of memory");                           \
                            goto done;                                                                                 \
                        }                                                                                              \
                        break;                                                                                         \
                    }                                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        /* 3. FIFO propagation */                                                                                      \
        while (q.count) {                                                                                              \
            int64_t x = fv__fifo_pop(&q);                                                                              \
            T v = rec[x];                                                                                              \
            for (int k = 0; k < p->nnb; k++) {                                                                         \
                int64_t y = x + off[k];                                                                                \
                T ry = rec[y], my = msk[y];                                                                            \
                if (FV__LT_##DIR(ry, v) && FV__LT_##DIR(ry, my)) {                                                     \
                    rec[y] = FV__LT_##DIR(my, v) ? my : v;                                                             \
                    if (fv__fifo_push(&q, y)) {                                                                        \
                        st = fv_error_set(FV_ENOMEM, "reconstruction", "out of memory");                               \
                        goto done;                                                                                     \
                    }                                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        {                                                                                                              \
            T *op = (T *)a->out->data;                                                                                 \
            for (int64_t r = 0; r < g.rows; r++) {                                                                     \
                int64_t b = fv__rec_row(&g, r);                                                                        \
                memcpy(op + r * g.len, rec + b, (size_t)g.len * sizeof(T));                                            \
            }                                                                                                          \
        }                                                                                                              \
    done:                                                                                                              \
        free(q.buf);                                                                                                   \
        free(rec);                                                                                                     \
        free(msk);                                                                                                     \
        free(off);                                                                                                     \
        free(fwd);                                                                                                     \
        free(bwd);                                                                                                     \
        return st;                                                                                                     \
    }

/* Lowest and highest value of each dtype: the padding of dilation and erosion. */
#define FV__LOWEST_b 0
#define FV__HIGHEST_b 0xff
#define FV__LOWEST_u8 0
#define FV__HIGHEST_u8 UINT8_MAX
#define FV__LOWEST_u16 0
#define FV__HIGHEST_u16 UINT16_MAX
#define FV__LOWEST_u32 0
#define FV__HIGHEST_u32 UINT32_MAX
#define FV__LOWEST_u64 0
#define FV__HIGHEST_u64 UINT64_MAX
#define FV__LOWEST_i8 INT8_MIN
#define FV__HIGHEST_i8 INT8_MAX
#define FV__LOWEST_i16 INT16_MIN
#define FV__HIGHEST_i16 INT16_MAX
#define FV__LOWEST_i32 INT32_MIN
#define FV__HIGHEST_i32 INT32_MAX
#define FV__LOWEST_i64 INT64_MIN
#define FV__HIGHEST_i64 INT64_MAX
#define FV__LOWEST_f32 (-INFINITY)
#define FV__HIGHEST_f32 INFINITY
#define FV__LOWEST_f64 (-INFINITY)
#define FV__HIGHEST_f64 INFINITY

#define FV__REC_BOTH(E, T, S)                    \
    FV__REC_KERNEL(T, S, dil, (T)FV__LOWEST_##S) \
    FV__REC_KERNEL(T, S, ero, (T)FV__HIGHEST_##S)
FV_FOREACH_DTYPE(FV__REC_BOTH)

fv_status
fv__cpu_reconstruction(fv_context *ctx, const fv__op_args *a)
{
    const fv__reconstruction_params *p = a->params;
    int ero = p->method == 1;
    switch (a->in->dtype) {
#define FV__REC_CASE(E, T, S) \
    case E:                   \
        return ero ? fv__rec_ero_##S(a, p) : fv__rec_dil_##S(a, p);
        FV_FOREACH_DTYPE(FV__REC_CASE)
#undef FV__REC_CASE
    default:
        return fv_error_set(FV_EDTYPE, "reconstruction", "unsupported dtype");
    }
}

FV_KERNEL(RECONSTRUCTION, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_reconstruction);
