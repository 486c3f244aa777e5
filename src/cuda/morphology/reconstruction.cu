/* CUDA kernel of FV__OP_RECONSTRUCTION: parallel in-place propagation.
 *
 *   out = min(seed, mask)                      (erosion: max)
 *   repeat:
 *     line scans: along each axis, one thread per line propagates forward then
 *       backward through the neighbours that lie on that axis (fast transport
 *       along straight runs; an accelerator only)
 *     sweep: every pixel takes min(mask, max(itself, its sources)) over all
 *       neighbour offsets, and sets a flag when it changes
 *   until a sweep changes nothing (one flag read per round).
 *
 * Every update is one step of geodesic dilation, so values only grow and never
 * pass the reconstruction; a sweep that changes nothing finds the least fixed
 * point above the seed, which is the reconstruction. Concurrent reads of a
 * pixel being raised see its old or new value, both valid. Also registers the
 * scikit-image morphology CUDA kernels. */
#include "cuda/common.cuh"
#include "ops/morphology/skmorphology-kernels.h"

/* Image shape and C-contiguous strides (elements), passed by value. */
typedef struct fv_cu_shape {
    int nd;
    int64_t n[FV_MAX_NDIM];
    int64_t s[FV_MAX_NDIM];
    int64_t size;
} fv_cu_shape;

static void
fv_cu_shape_init(fv_cu_shape *g, const fv_array *a)
{
    memset(g, 0, sizeof *g);
    g->nd = a->ndim;
    int64_t s = 1;
    for (int d = a->ndim - 1; d >= 0; d--) {
        g->n[d] = a->shape[d];
        g->s[d] = s;
        s *= a->shape[d];
    }
    g->size = s;
}

#define FV_CU_LT_dil(a, b) ((a) < (b))
#define FV_CU_LT_ero(a, b) ((a) > (b))

#define FV_CU_REC_KERNELS(T, S, DIR)                                                                 \
    __global__ void fv_k_rec_init_##DIR##_##S(const T *seed, const T *mask, T *out, int64_t n)      \
    {                                                                                                \
        FV_GRID_STRIDE(int64_t, i, n) {                                                              \
            T s = seed[i], m = mask[i];                                                              \
            out[i] = FV_CU_LT_##DIR(m, s) ? m : s;                                                   \
        }                                                                                            \
    }                                                                                                \
    __global__ void fv_k_rec_sweep_##DIR##_##S(const T *mask, T *out, fv_cu_shape g, const int64_t *nb, \
                                               int nnb, int *changed)                               \
    {                                                                                                \
        FV_GRID_STRIDE(int64_t, i, g.size) {                                                         \
            T v = out[i], m = mask[i];                                                               \
            if (!FV_CU_LT_##DIR(v, m))                                                               \
                continue;                                                                            \
            int64_t c[FV_MAX_NDIM], rem = i;                                                         \
            for (int d = g.nd - 1; d >= 0; d--) {                                                    \
                c[d] = rem % g.n[d];                                                                 \
                rem /= g.n[d];                                                                       \
            }                                                                                        \
            T best = v;                                                                              \
            for (int k = 0; k < nnb; k++) {                                                          \
                int64_t j = 0;                                                                       \
                int ok = 1;                                                                          \
                for (int d = 0; d < g.nd; d++) {                                                     \
                    int64_t x = c[d] - nb[(int64_t)k * g.nd + d];                                    \
                    if (x < 0 || x >= g.n[d]) {                                                      \
                        ok = 0;                                                                      \
                        break;                                                                       \
                    }                                                                                \
                    j += x * g.s[d];                                                                 \
                }                                                                                    \
                if (ok) {                                                                            \
                    T u = out[j];                                                                    \
                    if (FV_CU_LT_##DIR(best, u))                                                     \
                        best = u;                                                                    \
                }                                                                                    \
            }                                                                                        \
            if (FV_CU_LT_##DIR(m, best))                                                             \
                best = m;                                                                            \
            if (FV_CU_LT_##DIR(v, best)) {                                                           \
                out[i] = best;                                                                       \
                *changed = 1;                                                                        \
            }                                                                                        \
        }                                                                                            \
    }                                                                                                \
    /* One thread per line along `axis`; ax[0..nax) are the neighbour offsets on the axis. */        \
    __global__ void fv_k_rec_lines_##DIR##_##S(const T *mask, T *out, fv_cu_shape g, int axis,       \
                                               int64_t nlines, const int64_t *ax, int nax)           \
    {                                                                                                \
        const int64_t len = g.n[axis], st = g.s[axis];                                               \
        FV_GRID_STRIDE(int64_t, line, nlines) {                                                      \
            int64_t rem = line, base = 0;                                                            \
            for (int d = g.nd - 1; d >= 0; d--) {                                                    \
                if (d == axis)                                                                       \
                    continue;                                                                        \
                base += (rem % g.n[d]) * g.s[d];                                                     \
                rem /= g.n[d];                                                                       \
            }                                                                                        \
            for (int pass = 0; pass < 2; pass++) {                                                   \
                for (int64_t t0 = 0; t0 < len; t0++) {                                               \
                    int64_t t = pass ? len - 1 - t0 : t0, x = base + t * st;                         \
                    T v = out[x], m = mask[x], best = v;                                             \
                    if (!FV_CU_LT_##DIR(v, m))                                                       \
                        continue;                                                                    \
                    for (int k = 0; k < nax; k++) {                                                  \
                        int64_t a = ax[k], src = t - a;                                              \
                        if ((pass ? a >= 0 : a <= 0) || src < 0 || src >= len)                       \
                            continue;                                                                \
                        T u = out[base + src * st];                                                  \
                        if (FV_CU_LT_##DIR(best, u))                                                 \
                            best = u;                                                                \
                    }                                                                                \
                    if (FV_CU_LT_##DIR(m, best))                                                     \
                        best = m;                                                                    \
                    if (FV_CU_LT_##DIR(v, best))                                                     \
                        out[x] = best;                                                               \
                }                                                                                    \
            }                                                                                        \
        }                                                                                            \
    }

#define FV_CU_REC_BOTH(E, T, S) FV_CU_REC_KERNELS(T, S, dil) FV_CU_REC_KERNELS(T, S, ero)
FV_FOREACH_DTYPE(FV_CU_REC_BOTH)

/* Launch one of the three kernels for (dtype, direction); 0 when the dtype is unknown. */
enum { FV_CU_REC_INIT, FV_CU_REC_SWEEP, FV_CU_REC_LINES };

typedef struct fv_cu_rec_call {
    int which, ero;
    const void *seed, *mask;
    void *out;
    fv_cu_shape g;
    const int64_t *nb;
    int nnb;
    int *changed;
    int axis;
    int64_t nlines;
    const int64_t *ax;
    int nax;
} fv_cu_rec_call;

#define FV_CU_REC_LAUNCH_DIR(T, S, DIR, grid, x, c)                                                  \
    switch ((c)->which) {                                                                            \
    case FV_CU_REC_INIT:                                                                             \
        fv_k_rec_init_##DIR##_##S<<<grid, (x)->block, 0, (x)->stream>>>(                             \
            (const T *)(c)->seed, (const T *)(c)->mask, (T *)(c)->out, (c)->g.size);                 \
        break;                                                                                       \
    case FV_CU_REC_SWEEP:                                                                            \
        fv_k_rec_sweep_##DIR##_##S<<<grid, (x)->block, 0, (x)->stream>>>(                            \
            (const T *)(c)->mask, (T *)(c)->out, (c)->g, (c)->nb, (c)->nnb, (c)->changed);           \
        break;                                                                                       \
    default:                                                                                         \
        fv_k_rec_lines_##DIR##_##S<<<grid, (x)->block, 0, (x)->stream>>>(                            \
            (const T *)(c)->mask, (T *)(c)->out, (c)->g, (c)->axis, (c)->nlines, (c)->ax, (c)->nax); \
        break;                                                                                       \
    }

static int
fv_cu_rec_launch(fv_dtype dt, const fv_cu_exec *x, const fv_cu_rec_call *c)
{
    unsigned grid = fv_cu_grid(c->which == FV_CU_REC_LINES ? c->nlines : c->g.size, x->device);
    switch (dt) {
#define FV_CU_REC_CASE(E, T, S)                                          \
    case E:                                                              \
        if (c->ero) {                                                    \
            FV_CU_REC_LAUNCH_DIR(T, S, ero, grid, x, c)                  \
        } else {                                                         \
            FV_CU_REC_LAUNCH_DIR(T, S, dil, grid, x, c)                  \
        }                                                                \
        return 1;
        FV_FOREACH_DTYPE(FV_CU_REC_CASE)
#undef FV_CU_REC_CASE
    default:
        return 0;
    }
}

extern "C" fv_status
fv__cuda_reconstruction(fv_context *ctx, const fv__op_args *a)
{
    const fv__reconstruction_params *p = (const fv__reconstruction_params *)a->params;
    const int nd = a->in->ndim;
    fv_cu_exec x;
    fv_cu_rec_call c;
    void *dbuf = NULL, *dopaque = NULL;
    int64_t *hbuf = NULL;
    int nax[FV_MAX_NDIM] = {0};
    fv_status st;
    cudaError_t e;

    ctx = fv__ctx(ctx);
    memset(&c, 0, sizeof c);
    fv_cu_shape_init(&c.g, a->in);
    if ((st = fv_cu_begin(ctx, "reconstruction", a, c.g.size, &x)))
        return st;
    /* device buffer: the changed flag, nb (nnb * nd), then per axis its offsets */
    const size_t nwords = 1 + (size_t)p->nnb * (size_t)nd + (size_t)p->nnb * (size_t)nd;
    if (!(hbuf = (int64_t *)calloc(nwords, sizeof *hbuf))) {
        st = fv_error_set(FV_ENOMEM, "reconstruction", "out of host memory");
        goto done;
    }
    memcpy(hbuf + 1, p->nb, (size_t)p->nnb * (size_t)nd * sizeof *hbuf);
    {
        int64_t *axes = hbuf + 1 + (size_t)p->nnb * nd;
        for (int d = 0; d < nd; d++)
            for (int k = 0; k < p->nnb; k++) {
                int on_axis = 1;
                for (int d2 = 0; d2 < nd; d2++)
                    if (d2 != d && p->nb[(int64_t)k * nd + d2] != 0)
                        on_axis = 0;
                if (on_axis)
                    axes[(size_t)d * p->nnb + nax[d]++] = p->nb[(int64_t)k * nd + d];
            }
    }
    if ((st = fv__cuda_alloc(ctx, x.device, nwords * sizeof *hbuf, &dbuf, &dopaque)))
        goto done;
    if ((e = cudaMemcpyAsync(dbuf, hbuf, nwords * sizeof *hbuf, cudaMemcpyHostToDevice, x.stream))) {
        st = fv__cuda_error("cudaMemcpyAsync", e);
        goto done;
    }
    c.ero = p->method == 1;
    c.seed = a->in->data;
    c.mask = a->in2->data;
    c.out = a->out->data;
    c.changed = (int *)dbuf;
    c.nb = (const int64_t *)dbuf + 1;
    c.nnb = p->nnb;
    c.which = FV_CU_REC_INIT;
    if (!fv_cu_rec_launch(a->in->dtype, &x, &c)) {
        st = fv_error_set(FV_EDTYPE, "reconstruction", "unsupported dtype");
        goto done;
    }
    if ((st = fv_cu_launch_status("reconstruction init")))
        goto done;
    for (;;) {
        for (int d = 0; d < nd; d++) {
            if (!nax[d] || c.g.n[d] < 2)
                continue;
            c.which = FV_CU_REC_LINES;
            c.axis = d;
            c.nlines = c.g.size / c.g.n[d];
            c.ax = (const int64_t *)dbuf + 1 + (size_t)p->nnb * nd + (size_t)d * p->nnb;
            c.nax = nax[d];
            fv_cu_rec_launch(a->in->dtype, &x, &c);
            if ((st = fv_cu_launch_status("reconstruction lines")))
                goto done;
        }
        int changed = 0;
        if ((e = cudaMemsetAsync(dbuf, 0, sizeof(int), x.stream))) {
            st = fv__cuda_error("cudaMemsetAsync", e);
            goto done;
        }
        c.which = FV_CU_REC_SWEEP;
        fv_cu_rec_launch(a->in->dtype, &x, &c);
        if ((st = fv_cu_launch_status("reconstruction sweep")))
            goto done;
        if ((e = cudaMemcpyAsync(&changed, dbuf, sizeof(int), cudaMemcpyDeviceToHost, x.stream)) ||
            (e = cudaStreamSynchronize(x.stream))) {
            st = fv__cuda_error("cudaMemcpyAsync (changed flag)", e);
            goto done;
        }
        if (!changed)
            break;
    }
done:
    if (dbuf) {   /* the stream was synchronised, or failed: nothing queued still uses it */
        if (st != FV_OK)
            (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(dbuf, dopaque);
    }
    free(hbuf);
    fv_cu_end(&x);
    return st;
}

extern "C" void
fv__cuda_register_skmorph(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    table[FV__OP_RECONSTRUCTION][FV__BACKEND_CUDA] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_reconstruction};
    table[FV__OP_LOCAL_MAXIMA][FV__BACKEND_CUDA] = (fv__kernel){FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_local_maxima};
    table[FV__OP_THIN][FV__BACKEND_CUDA] = (fv__kernel){FV_DTYPES_ALL, 2, fv__cuda_thin};
}
