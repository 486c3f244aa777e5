/* CUDA kernel of FV__OP_LOCAL_MAXIMA.
 *
 * For a point-symmetric footprint, skimage's sequential result is: a pixel is
 * a maximum when its plateau (equal values connected through the footprint,
 * border pixels excluded) holds a candidate (see extrema-cpu.c: from the scan
 * along the last axis, or every inner pixel) and no pixel of
 * it is "bad" (has a larger neighbour, or an equal neighbour on the border).
 * Here each pixel keeps state bits (border, candidate, bad); a propagation
 * kernel ORs the candidate and bad bits across equal neighbours, in place,
 * until a pass changes nothing (one flag read per round of passes). Bits only
 * get set, so concurrent updates are safe and the fixed point is reached. */
#include "cuda/common.cuh"
#include "ops/morphology/skmorphology-kernels.h"

enum { FV_CU_LM_BORDER = 1, FV_CU_LM_CAND = 2, FV_CU_LM_BAD = 4 };
#define FV_CU_LM_ROUND 4   /* propagation passes per flag read */

typedef struct fv_cu_lm_shape {
    int nd;
    int64_t n[FV_MAX_NDIM];
    int64_t s[FV_MAX_NDIM];
    int64_t size;
} fv_cu_lm_shape;

__device__ static inline int
fv_cu_lm_coords(const fv_cu_lm_shape &g, int64_t i, int64_t *c)
{
    int border = 0;
    for (int d = g.nd - 1; d >= 0; d--) {
        c[d] = i % g.n[d];
        i /= g.n[d];
        border |= c[d] == 0 || c[d] == g.n[d] - 1;
    }
    return border;
}

#define FV_CU_LT_max(a, b) ((a) < (b))
#define FV_CU_LT_min(a, b) ((a) > (b))

#define FV_CU_LM_KERNELS(T, S, DIR)                                                                   \
    /* state: border bit, or the bad bit of an interior pixel */                                      \
    __global__ void fv_k_lm_init_##DIR##_##S(const T *img, uint8_t *state, fv_cu_lm_shape g,          \
                                             const int64_t *nb, int nnb)                              \
    {                                                                                                 \
        FV_GRID_STRIDE(int64_t, i, g.size) {                                                          \
            int64_t c[FV_MAX_NDIM];                                                                   \
            if (fv_cu_lm_coords(g, i, c)) {                                                           \
                state[i] = FV_CU_LM_BORDER;                                                           \
                continue;                                                                             \
            }                                                                                         \
            const T h = img[i];                                                                       \
            uint8_t s = 0;                                                                            \
            for (int k = 0; k < nnb && !s; k++) {                                                     \
                int64_t j = 0;                                                                        \
                int nborder = 0;                                                                      \
                for (int d = 0; d < g.nd; d++) {                                                      \
                    int64_t x = c[d] + nb[(int64_t)k * g.nd + d];                                     \
                    nborder |= x == 0 || x == g.n[d] - 1;                                             \
                    j += x * g.s[d];                                                                  \
                }                                                                                     \
                T v = img[j];                                                                         \
                if (FV_CU_LT_##DIR(h, v) || (v == h && nborder))                                      \
                    s = FV_CU_LM_BAD;                                                                 \
            }                                                                                         \
            state[i] = s;                                                                             \
        }                                                                                             \
    }                                                                                                 \
    /* one thread per line along the last axis: skimage's candidate scan */                          \
    __global__ void fv_k_lm_rows_##DIR##_##S(const T *img, uint8_t *state, fv_cu_lm_shape g,          \
                                             int64_t nrows, int scan)                                 \
    {                                                                                                 \
        const int64_t len = g.n[g.nd - 1];                                                            \
        FV_GRID_STRIDE(int64_t, r, nrows) {                                                           \
            int64_t rem = r;                                                                          \
            int border = 0;                                                                           \
            for (int d = g.nd - 2; d >= 0; d--) {                                                     \
                int64_t cd = rem % g.n[d];                                                            \
                rem /= g.n[d];                                                                        \
                border |= cd == 0 || cd == g.n[d] - 1;                                                \
            }                                                                                         \
            if (border)                                                                               \
                continue;                                                                             \
            const T *row = img + r * len;                                                             \
            uint8_t *srow = state + r * len;                                                          \
            if (!scan) {                                                                              \
                for (int64_t t = 1; t < len - 1; t++)                                                 \
                    srow[t] |= FV_CU_LM_CAND;                                                         \
                continue;                                                                             \
            }                                                                                         \
            int64_t i = 1;                                                                            \
            while (i < len - 1) {                                                                     \
                if (FV_CU_LT_##DIR(row[i - 1], row[i])) {                                             \
                    int64_t j = i + 1;                                                                \
                    while (j < len - 1 && row[i] == row[j])                                           \
                        j++;                                                                          \
                    if (FV_CU_LT_##DIR(row[j], row[i]))                                               \
                        for (int64_t t = i; t < j; t++)                                               \
                            srow[t] |= FV_CU_LM_CAND;                                                 \
                    i = j;                                                                            \
                } else {                                                                              \
                    i++;                                                                              \
                }                                                                                     \
            }                                                                                         \
        }                                                                                             \
    }                                                                                                 \
    __global__ void fv_k_lm_prop_##DIR##_##S(const T *img, uint8_t *state, fv_cu_lm_shape g,          \
                                             const int64_t *nb, int nnb, int *changed)                \
    {                                                                                                 \
        FV_GRID_STRIDE(int64_t, i, g.size) {                                                          \
            uint8_t s0 = state[i];                                                                    \
            if ((s0 & FV_CU_LM_BORDER) || (s0 & (FV_CU_LM_CAND | FV_CU_LM_BAD)) ==                    \
                                              (FV_CU_LM_CAND | FV_CU_LM_BAD))                         \
                continue;                                                                             \
            int64_t c[FV_MAX_NDIM];                                                                   \
            fv_cu_lm_coords(g, i, c);                                                                 \
            const T h = img[i];                                                                       \
            uint8_t s = s0;                                                                           \
            for (int k = 0; k < nnb; k++) {                                                           \
                int64_t j = 0;                                                                        \
                for (int d = 0; d < g.nd; d++)                                                        \
                    j += (c[d] + nb[(int64_t)k * g.nd + d]) * g.s[d];                                 \
                if (img[j] == h) {                                                                    \
                    uint8_t t = state[j];                                                             \
                    if (!(t & FV_CU_LM_BORDER))                                                       \
                        s |= t & (FV_CU_LM_CAND | FV_CU_LM_BAD);                                      \
                }                                                                                     \
            }                                                                                         \
            if (s != s0) {                                                                            \
                state[i] = s;                                                                         \
                *changed = 1;                                                                         \
            }                                                                                         \
        }                                                                                             \
    }

#define FV_CU_LM_BOTH(E, T, S) FV_CU_LM_KERNELS(T, S, max) FV_CU_LM_KERNELS(T, S, min)
FV_FOREACH_DTYPE(FV_CU_LM_BOTH)

__global__ void
fv_k_lm_out(const uint8_t *state, uint8_t *out, int64_t n)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        out[i] = (state[i] & (FV_CU_LM_BORDER | FV_CU_LM_CAND | FV_CU_LM_BAD)) == FV_CU_LM_CAND;
    }
}

enum { FV_CU_LM_INIT, FV_CU_LM_ROWS, FV_CU_LM_PROP };

static int
fv_cu_lm_launch(fv_dtype dt, int minima, int which, const fv_cu_exec *x, const void *img, uint8_t *state,
                const fv_cu_lm_shape &g, const int64_t *nb, int nnb, int *changed, int scan)
{
    const int64_t nrows = g.size / g.n[g.nd - 1];
    const unsigned grid = fv_cu_grid(which == FV_CU_LM_ROWS ? nrows : g.size, x->device);
    switch (dt) {
#define FV_CU_LM_DIR(T, S, DIR)                                                                       \
    if (which == FV_CU_LM_INIT)                                                                       \
        fv_k_lm_init_##DIR##_##S<<<grid, x->block, 0, x->stream>>>((const T *)img, state, g, nb, nnb); \
    else if (which == FV_CU_LM_ROWS)                                                                  \
        fv_k_lm_rows_##DIR##_##S<<<grid, x->block, 0, x->stream>>>((const T *)img, state, g, nrows, scan); \
    else                                                                                              \
        fv_k_lm_prop_##DIR##_##S<<<grid, x->block, 0, x->stream>>>((const T *)img, state, g, nb, nnb, changed);
#define FV_CU_LM_CASE(E, T, S)      \
    case E:                         \
        if (minima) {               \
            FV_CU_LM_DIR(T, S, min) \
        } else {                    \
            FV_CU_LM_DIR(T, S, max) \
        }                           \
        return 1;
        FV_FOREACH_DTYPE(FV_CU_LM_CASE)
#undef FV_CU_LM_CASE
#undef FV_CU_LM_DIR
    default:
        return 0;
    }
}

extern "C" fv_status
fv__cuda_local_maxima(fv_context *ctx, const fv__op_args *a)
{
    const fv__local_maxima_params *p = (const fv__local_maxima_params *)a->params;
    const fv_array *in = a->in;
    const int nd = in->ndim;
    fv_cu_lm_shape g;
    fv_cu_exec x;
    void *dbuf = NULL, *dopaque = NULL;
    fv_status st;
    cudaError_t e;
    uint8_t *state = (uint8_t *)a->out->data;   /* the state lives in out until the end */
    int small = 0;

    if (!p->symmetric)
        return fv_error_set(FV_EINVAL, "local_maxima", "the CUDA kernel needs a point-symmetric footprint "
                            "(footprint == footprint[::-1, ...]); use host arrays for others");
    ctx = fv__ctx(ctx);
    memset(&g, 0, sizeof g);
    g.nd = nd;
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        g.n[d] = in->shape[d];
        g.s[d] = s;
        s *= in->shape[d];
        small |= in->shape[d] < 3;
    }
    g.size = s;
    if ((st = fv_cu_begin(ctx, "local_maxima", a, g.size, &x)))
        return st;
    if (small) {   /* every pixel on the border */
        if ((e = cudaMemsetAsync(a->out->data, 0, (size_t)g.size, x.stream)))
            st = fv__cuda_error("cudaMemsetAsync", e);
        fv_cu_end(&x);
        return st;
    }
    /* device buffer: changed flag (one int64 word), then the offsets */
    const size_t nbytes = (1 + (size_t)p->nnb * (size_t)nd) * sizeof(int64_t);
    int64_t *dnb;
    if ((st = fv__cuda_alloc(ctx, x.device, nbytes, &dbuf, &dopaque)))
        goto done;
    dnb = (int64_t *)dbuf + 1;
    if (p->nnb && (e = cudaMemcpyAsync(dnb, p->nb, (size_t)p->nnb * (size_t)nd * sizeof(int64_t),
                                       cudaMemcpyHostToDevice, x.stream))) {
        st = fv__cuda_error("cudaMemcpyAsync", e);
        goto done;
    }
    if (!fv_cu_lm_launch(in->dtype, p->minima, FV_CU_LM_INIT, &x, in->data, state, g, dnb, p->nnb, NULL, p->scan_last)) {
        st = fv_error_set(FV_EDTYPE, "local_maxima", "unsupported dtype");
        goto done;
    }
    fv_cu_lm_launch(in->dtype, p->minima, FV_CU_LM_ROWS, &x, in->data, state, g, dnb, p->nnb, NULL, p->scan_last);
    if ((st = fv_cu_launch_status("local_maxima init")))
        goto done;
    for (;;) {
        int changed = 0;
        if ((e = cudaMemsetAsync(dbuf, 0, sizeof(int), x.stream))) {
            st = fv__cuda_error("cudaMemsetAsync", e);
            goto done;
        }
        for (int r = 0; r < FV_CU_LM_ROUND; r++)
            fv_cu_lm_launch(in->dtype, p->minima, FV_CU_LM_PROP, &x, in->data, state, g, dnb, p->nnb,
                            (int *)dbuf, p->scan_last);
        if ((st = fv_cu_launch_status("local_maxima propagate")))
            goto done;
        if ((e = cudaMemcpyAsync(&changed, dbuf, sizeof(int), cudaMemcpyDeviceToHost, x.stream)) ||
            (e = cudaStreamSynchronize(x.stream))) {
            st = fv__cuda_error("cudaMemcpyAsync (changed flag)", e);
            goto done;
        }
        if (!changed)
            break;
    }
    fv_k_lm_out<<<x.grid, x.block, 0, x.stream>>>(state, (uint8_t *)a->out->data, g.size);
    st = fv_cu_launch_status("local_maxima output");
done:
    if (dbuf) {
        (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(dbuf, dopaque);
    }
    fv_cu_end(&x);
    return st;
}
