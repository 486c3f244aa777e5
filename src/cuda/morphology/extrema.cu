/* CUDA kernel of FV__OP_LOCAL_MAXIMA.
 *
 * For a point-symmetric footprint, skimage's sequential result is: a pixel is
 * a maximum when its plateau (equal values connected through the footprint,
 * border pixels excluded) holds a candidate (see extrema-cpu.c: from the scan
 * along the last axis, or every inner pixel) and no pixel of it is "bad" (has
 * a larger neighbour, or an equal neighbour on the border). Here:
 *   init    each pixel's state bits: border, or bad;
 *   scan    one warp per inner line along the last axis sets the candidate
 *           bits of skimage's scan, in parallel: a run of equal values
 *           [s, e) is marked when s >= 1 and line[s - 1] < the value, and
 *           e < len with line[e] < the value (ballots find each position's
 *           run start and end within 32-element chunks, carried across
 *           chunks forward and then backward);
 *   merge   union-find (cuda/measure/union-find.cuh) of every inner pixel
 *           with its equal inner backward neighbours: the plateaus;
 *   gather  each inner pixel compresses its path to the plateau's root and
 *           ORs its candidate / bad bits into the root's word;
 *   final   a pixel is a maximum when it is inner and its root's word (found
 *           again: paths are short by now) holds the candidate bit and not
 *           the bad one.
 * Work: a few passes over the image whatever the plateaus' sizes (the old
 * propagation needed as many passes as the widest plateau). */
#include "cuda/common.cuh"
#include "cuda/measure/union-find.cuh"
#include "ops/morphology/extrema.h"

enum {
    FV_CU_LM_BORDER = 1,
    FV_CU_LM_CAND = 2,
    FV_CU_LM_BAD = 4,
    FV_CU_LM_RISE = 8
};

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

/* a before b in the search order: a < b for maxima, a > b for minima */
template <bool MIN, typename T>
__device__ __forceinline__ bool
fv_cu_lm_lt(T a, T b)
{
    return MIN ? a > b : a < b;
}

/* state: border bit, or the bad bit of an interior pixel */
template <bool MIN, typename T>
__global__ void
fv_k_lm_init(const T *img, uint8_t *state, fv_cu_lm_shape g, const int64_t *nb, int nnb)
{
    FV_GRID_STRIDE(int64_t, i, g.size) {
        int64_t c[FV_MAX_NDIM];
        if (fv_cu_lm_coords(g, i, c)) {
            state[i] = FV_CU_LM_BORDER;
            continue;
        }
        const T h = img[i];
        uint8_t s = 0;
        for (int k = 0; k < nnb && !s; k++) {
            int64_t j = 0;
            int nborder = 0;
            for (int d = 0; d < g.nd; d++) {
                int64_t x = c[d] + nb[(int64_t)k * g.nd + d];
                nborder |= x == 0 || x == g.n[d] - 1;
                j += x * g.s[d];
            }
            T v = img[j];
            if (fv_cu_lm_lt<MIN>(h, v) || (v == h && nborder))
                s = FV_CU_LM_BAD;
        }
        state[i] = s;
    }
}

/* one warp per line along the last axis: skimage's candidate scan (see above) */
template <bool MIN, typename T>
__global__ void
fv_k_lm_scan(const T *img, uint8_t *state, fv_cu_lm_shape g, int64_t nrows, int scan)
{
    const int lane = threadIdx.x & 31;
    const int64_t len = g.n[g.nd - 1];
    const int64_t w0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t r = w0; r < nrows; r += nw) {
        int64_t rem = r;
        int border = 0;
        for (int d = g.nd - 2; d >= 0; d--) {
            int64_t cd = rem % g.n[d];
            rem /= g.n[d];
            border |= cd == 0 || cd == g.n[d] - 1;
        }
        if (border)
            continue;
        const T *row = img + r * len;
        uint8_t *srow = state + r * len;
        if (!scan) {
            for (int64_t t = 1 + lane; t < len - 1; t += 32)
                srow[t] |= FV_CU_LM_CAND;
            continue;
        }
        /* forward: does the run holding each position rise from its left neighbour? */
        bool carry = false;
        for (int64_t base = 0; base < len; base += 32) {
            const int64_t pos = base + lane;
            const bool valid = pos < len;
            T x = valid ? row[pos] : (T)0;
            T prev = valid && pos > 0 ? row[pos - 1] : x;
            const bool bnd = valid && (pos == 0 || !(x == prev));
            const bool rb = bnd && pos > 0 && fv_cu_lm_lt<MIN>(prev, x);
            const unsigned bm = __ballot_sync(0xffffffffu, bnd), rm = __ballot_sync(0xffffffffu, rb);
            const unsigned m = bm & (0xffffffffu >> (31 - lane)); /* boundaries at or below this lane */
            const bool rise = m ? (rm >> (31 - __clz(m))) & 1u : carry;
            carry = __shfl_sync(0xffffffffu, rise, 31);
            if (valid && rise)
                srow[pos] |= FV_CU_LM_RISE;
        }
        /* backward: does it fall to its right neighbour (which must exist)? */
        carry = false;
        for (int64_t base = (len - 1) / 32 * 32; base >= 0; base -= 32) {
            const int64_t pos = base + lane;
            const bool valid = pos < len;
            T x = valid ? row[pos] : (T)0;
            T next = valid && pos + 1 < len ? row[pos + 1] : x;
            const bool last = valid && (pos == len - 1 || !(x == next));
            const bool fb = last && pos + 1 < len && fv_cu_lm_lt<MIN>(next, x);
            const unsigned lm = __ballot_sync(0xffffffffu, last), fm = __ballot_sync(0xffffffffu, fb);
            const unsigned m = lm & (0xffffffffu << lane); /* run ends at or above this lane */
            const bool fall = m ? (fm >> (__ffs((int)m) - 1)) & 1u : carry;
            carry = __shfl_sync(0xffffffffu, fall, 0);
            if (valid) {
                uint8_t s = srow[pos];
                if ((s & FV_CU_LM_RISE) && fall && pos > 0 && pos < len - 1)
                    s |= FV_CU_LM_CAND;
                srow[pos] = s & (uint8_t)~FV_CU_LM_RISE;
            }
        }
    }
}

template <typename IT>
__global__ void
fv_k_lm_uf_init(IT *P, uint32_t *F, IT n)
{
    FV_GRID_STRIDE(IT, i, n) {
        P[i] = i;
        F[i] = 0;
    }
}

/* inner pixels unite with their equal inner backward neighbours (off: flat offsets < 0) */
template <typename T, typename IT>
__global__ void
fv_k_lm_merge(const T *img, const uint8_t *state, IT *P, IT n, const int64_t *off, int noff)
{
    FV_GRID_STRIDE(IT, i, n) {
        if (state[i] & FV_CU_LM_BORDER)
            continue;
        const T h = img[i];
        for (int k = 0; k < noff; k++) {
            const IT j = i + (IT)off[k];
            if (!(state[j] & FV_CU_LM_BORDER) && img[j] == h)
                fv_cu_uf_unite<true>(P, i, j);
        }
    }
}

template <typename IT>
__global__ void
fv_k_lm_gather(const uint8_t *state, IT *P, uint32_t *F, IT n)
{
    FV_GRID_STRIDE(IT, i, n) {
        const uint8_t s = state[i];
        if (s & FV_CU_LM_BORDER)
            continue;
        const IT r = fv_cu_uf_find<true>(P, i);
        if (P[i] != r)
            P[i] = r; /* only ancestors are written: concurrent finds stay valid */
        const uint32_t bits = s & (FV_CU_LM_CAND | FV_CU_LM_BAD);
        if (bits && (F[r] & bits) != bits)
            atomicOr(&F[r], bits);
    }
}

template <typename IT>
__global__ void
fv_k_lm_final(uint8_t *state, const IT *P, const uint32_t *F, IT n)
{
    FV_GRID_STRIDE(IT, i, n) {
        const uint8_t s = state[i];
        /* a find again, not P[i]: a halving write of gather may have left a
         * grandparent in P[i] after this pixel's own write of the root */
        state[i] =
            !(s & FV_CU_LM_BORDER) && (F[fv_cu_label_find(P, i)] & (FV_CU_LM_CAND | FV_CU_LM_BAD)) == FV_CU_LM_CAND;
    }
}

/* The plateau steps in index type IT: P (IT) and F (uint32) in one device buffer. */
template <typename T, typename IT>
static fv_status
fv_cu_lm_plateaus(fv_context *ctx, const fv_cu_exec *x, const T *img, uint8_t *state, int64_t n, const int64_t *doff,
                  int noff)
{
    void *buf = NULL, *opaque = NULL;
    fv_status st;
    const size_t pb = ((size_t)n * sizeof(IT) + 255) & ~(size_t)255;
    if ((st = fv__cuda_alloc(ctx, x->device, pb + (size_t)n * sizeof(uint32_t), &buf, &opaque)))
        return st;
    IT *P = (IT *)buf;
    uint32_t *F = (uint32_t *)((char *)buf + pb);
    fv_k_lm_uf_init<IT><<<x->grid, x->block, 0, x->stream>>>(P, F, (IT)n);
    fv_k_lm_merge<T, IT><<<x->grid, x->block, 0, x->stream>>>(img, state, P, (IT)n, doff, noff);
    fv_k_lm_gather<IT><<<x->grid, x->block, 0, x->stream>>>(state, P, F, (IT)n);
    fv_k_lm_final<IT><<<x->grid, x->block, 0, x->stream>>>(state, P, F, (IT)n);
    st = fv_cu_launch_status("local_maxima plateaus");
    (void)cudaStreamSynchronize(x->stream); /* buf is freed below */
    fv__cuda_free(buf, opaque);
    return st;
}

template <bool MIN, typename T>
static fv_status
fv_cu_lm_run(fv_context *ctx, const fv_cu_exec *x, const T *img, uint8_t *state, const fv_cu_lm_shape &g,
             const int64_t *dnb, int nnb, const int64_t *doff, int noff, int scan)
{
    const int64_t nrows = g.size / g.n[g.nd - 1];
    fv_k_lm_init<MIN, T><<<x->grid, x->block, 0, x->stream>>>(img, state, g, dnb, nnb);
    fv_k_lm_scan<MIN, T><<<fv_cu_grid(nrows * 32, x->device), x->block, 0, x->stream>>>(img, state, g, nrows, scan);
    fv_status st = fv_cu_launch_status("local_maxima init");
    if (st)
        return st;
    if (g.size < INT32_MAX / 2)
        return fv_cu_lm_plateaus<T, int32_t>(ctx, x, img, state, g.size, doff, noff);
    return fv_cu_lm_plateaus<T, int64_t>(ctx, x, img, state, g.size, doff, noff);
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
    uint8_t *state = (uint8_t *)a->out->data; /* the state lives in out until the end */
    int small = 0, noff = 0;
    int64_t *hbuf = NULL;

    if (!p->symmetric)
        return fv_error_set(FV_EINVAL, "local_maxima",
                            "the CUDA kernel needs a point-symmetric footprint "
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
    if (small) { /* every pixel on the border */
        if ((e = cudaMemsetAsync(a->out->data, 0, (size_t)g.size, x.stream)))
            st = fv__cuda_error("cudaMemsetAsync", e);
        fv_cu_end(&x);
        return st;
    }
    /* device buffer: the per-axis offsets (init), then the flat backward ones (merge) */
    const size_t nper = (size_t)p->nnb * (size_t)nd;
    const size_t nbytes = (nper + (size_t)p->nnb + 1) * sizeof(int64_t);
    int64_t *dnb, *doff;
    hbuf = (int64_t *)malloc(nbytes);
    if (!hbuf) {
        st = fv_error_set(FV_ENOMEM, "local_maxima", "out of host memory");
        goto done;
    }
    if (nper)
        memcpy(hbuf, p->nb, nper * sizeof(int64_t));
    for (int k = 0; k < p->nnb; k++) {
        int64_t o = 0;
        for (int d = 0; d < nd; d++)
            o += p->nb[(size_t)k * nd + d] * g.s[d];
        if (o < 0) /* symmetric footprint: each forward neighbour is some pixel's backward one */
            hbuf[nper + noff++] = o;
    }
    if ((st = fv__cuda_alloc(ctx, x.device, nbytes, &dbuf, &dopaque)))
        goto done;
    dnb = (int64_t *)dbuf;
    doff = dnb + nper;
    if ((e = cudaMemcpyAsync(dbuf, hbuf, (nper + (size_t)noff) * sizeof(int64_t) + sizeof(int64_t),
                             cudaMemcpyHostToDevice, x.stream))) {
        st = fv__cuda_error("cudaMemcpyAsync", e);
        goto done;
    }
    switch (in->dtype) {
#define FV_CU_LM_CASE(E, T, S)                                                                                       \
    case E:                                                                                                          \
        st = p->minima                                                                                               \
            ? fv_cu_lm_run<true, T>(ctx, &x, (const T *)in->data, state, g, dnb, p->nnb, doff, noff, p->scan_last)   \
            : fv_cu_lm_run<false, T>(ctx, &x, (const T *)in->data, state, g, dnb, p->nnb, doff, noff, p->scan_last); \
        break;
        FV_FOREACH_DTYPE(FV_CU_LM_CASE)
#undef FV_CU_LM_CASE
    default:
        st = fv_error_set(FV_EDTYPE, "local_maxima", "unsupported dtype");
        break;
    }
done:
    if (dbuf) {
        (void)cudaStreamSynchronize(x.stream); /* the copy from hbuf is done, dbuf unused */
        fv__cuda_free(dbuf, dopaque);
    }
    free(hbuf);
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(LOCAL_MAXIMA, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_local_maxima);
