/* CUDA kernel of FV__OP_RECONSTRUCTION: parallel in-place propagation.
 *
 *   out = min(seed, mask)                      (erosion: max)
 *   repeat:
 *     line scans: along each axis, each line propagates forward then backward
 *       through the neighbours that lie on that axis (fast transport along
 *       straight runs; an accelerator only). Where those offsets are only +1
 *       and -1, a line is a prefix scan of clamps (ops/morphology/rec-scan.h),
 *       run in parallel: a warp per contiguous line (rows), or 32 adjacent
 *       lines cut into segments per block (segs); other offsets: one thread
 *       per line (lines). All three give the same pixels.
 *     sweep: every pixel takes min(mask, max(itself, its sources)) over all
 *       neighbour offsets, and sets a flag when it changes; 2-D images with
 *       every neighbour in the 3 x 3 box run a tile pass instead, which repeats
 *       that step inside 32 x 32 tiles in shared memory until the tile
 *       settles (see FV_CU_REC_TILE_KERNEL)
 *   until a sweep changes nothing (one flag read per round).
 *
 * Every update is one step of geodesic dilation, so values only grow and never
 * pass the reconstruction; a sweep that changes nothing finds the least fixed
 * point above the seed, which is the reconstruction. Concurrent reads of a
 * pixel being raised see its old or new value, both valid. Also registers the
 * scikit-image morphology CUDA kernels. */
#include "cuda/common.cuh"
#include "ops/morphology/reconstruction.h"
#include "ops/morphology/rec-scan.h"
#include "core/plan.h"

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

#define FV_CU_REC_KERNELS(T, S, DIR)                                                                             \
    __global__ void fv_k_rec_init_##DIR##_##S(const T *seed, const T *mask, T *out, int64_t n)                   \
    {                                                                                                            \
        FV_GRID_STRIDE(int64_t, i, n) {                                                                          \
            T s = seed[i], m = mask[i];                                                                          \
            out[i] = FV__REC_LT_##DIR(m, s) ? m : s;                                                             \
        }                                                                                                        \
    }                                                                                                            \
    __global__ void fv_k_rec_sweep_##DIR##_##S(const T *mask, T *out, fv_cu_shape g, const int64_t *nb, int nnb, \
                                               int *changed)                                                     \
    {                                                                                                            \
        FV_GRID_STRIDE(int64_t, i, g.size) {                                                                     \
            T v = out[i], m = mask[i];                                                                           \
            if (!FV__REC_LT_##DIR(v, m))                                                                         \
                continue;                                                                                        \
            int64_t c[FV_MAX_NDIM], rem = i;                                                                     \
            for (int d = g.nd - 1; d >= 0; d--) {                                                                \
                c[d] = rem % g.n[d];                                                                             \
                rem /= g.n[d];                                                                                   \
            }                                                                                                    \
            T best = v;                                                                                          \
            for (int k = 0; k < nnb; k++) {                                                                      \
                int64_t j = 0;                                                                                   \
                int ok = 1;                                                                                      \
                for (int d = 0; d < g.nd; d++) {                                                                 \
                    int64_t x = c[d] - nb[(int64_t)k * g.nd + d];                                                \
                    if (x < 0 || x >= g.n[d]) {                                                                  \
                        ok = 0;                                                                                  \
                        break;                                                                                   \
                    }                                                                                            \
                    j += x * g.s[d];                                                                             \
                }                                                                                                \
                if (ok) {                                                                                        \
                    T u = out[j];                                                                                \
                    if (FV__REC_LT_##DIR(best, u))                                                               \
                        best = u;                                                                                \
                }                                                                                                \
            }                                                                                                    \
            if (FV__REC_LT_##DIR(m, best))                                                                       \
                best = m;                                                                                        \
            if (FV__REC_LT_##DIR(v, best)) {                                                                     \
                out[i] = best;                                                                                   \
                *changed = 1;                                                                                    \
            }                                                                                                    \
        }                                                                                                        \
    }                                                                                                            \
    /* One thread per line along `axis`; ax[0..nax) are the neighbour offsets on the axis. */                    \
    __global__ void fv_k_rec_lines_##DIR##_##S(const T *mask, T *out, fv_cu_shape g, int axis, int64_t nlines,   \
                                               const int64_t *ax, int nax)                                       \
    {                                                                                                            \
        const int64_t len = g.n[axis], st = g.s[axis];                                                           \
        FV_GRID_STRIDE(int64_t, line, nlines) {                                                                  \
            int64_t rem = line, base = 0;                                                                        \
            for (int d = g.nd - 1; d >= 0; d--) {                                                                \
                if (d == axis)                                                                                   \
                    continue;                                                                                    \
                base += (rem % g.n[d]) * g.s[d];                                                                 \
                rem /= g.n[d];                                                                                   \
            }                                                                                                    \
            fv__rec_line_##DIR##_##S(mask, out, base, st, len, ax, nax);                                         \
        }                                                                                                        \
    }

/* The scan kernels, for axes whose on-axis offsets are +1 and/or -1. `passes`:
 * bit 0 the forward pass (offset +1: from t - 1), bit 1 the backward one (-1).
 * Both write a pixel only where it rises, as the line kernel does. */
#define FV_CU_REC_K 8                       /* rows: pixels per lane in a tile */
#define FV_CU_REC_TILE (32 * FV_CU_REC_K)   /* rows: pixels per warp in a tile */
#define FV_CU_REC_PAD(i) ((i) + ((i) >> 5)) /* rows: shared index, a pad per 32 */
#define FV_CU_REC_ROW_WARPS 4               /* rows: warps (lines) per block */
#define FV_CU_REC_MIN_ROW 64                /* shorter contiguous lines: segs */
#define FV_CU_REC_MAX_SEG 16                /* segs: segments per line, at most */
#define FV_CU_REC_FULL 0xffffffffu

#define FV_CU_REC_SCAN_KERNELS(T, S, DIR)                                                                     \
    /* Contiguous lines of len pixels, a warp per line. A line goes by in tiles of 32 x K pixels,   \
     * staged in shared memory (coalesced); lane l composes tile pixels [lK, lK + K) into one       \
     * clamp, a shuffle scan composes the lanes, and each lane applies its chunk from the carry     \
     * through its predecessor lanes. The backward pass walks the tiles from the line's end. */         \
    __global__ void __launch_bounds__(32 * FV_CU_REC_ROW_WARPS)                                               \
        fv_k_rec_rows_##DIR##_##S(const T *mask, T *out, int64_t len, int64_t nlines, int passes)             \
    {                                                                                                         \
        __shared__ T sv[FV_CU_REC_ROW_WARPS][FV_CU_REC_PAD(FV_CU_REC_TILE)];                                  \
        __shared__ T sm[FV_CU_REC_ROW_WARPS][FV_CU_REC_PAD(FV_CU_REC_TILE)];                                  \
        const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;                                              \
        T *tv = sv[w], *tm = sm[w];                                                                           \
        for (int64_t line = (int64_t)blockIdx.x * FV_CU_REC_ROW_WARPS + w; line < nlines;                     \
             line += (int64_t)gridDim.x * FV_CU_REC_ROW_WARPS) {                                              \
            T *o = out + line * len;                                                                          \
            const T *mk = mask + line * len;                                                                  \
            for (int pass = 0; pass < 2; pass++) {                                                            \
                if (!((passes >> pass) & 1))                                                                  \
                    continue;                                                                                 \
                T carry = fv__rec_start_##DIR##_##S();                                                        \
                for (int64_t t0 = 0; t0 < len; t0 += FV_CU_REC_TILE) {                                        \
                    const int n = (int)(len - t0 < FV_CU_REC_TILE ? len - t0 : FV_CU_REC_TILE);               \
                    /* q: position in walk order within the tile */                                           \
                    for (int q = lane; q < n; q += 32) {                                                      \
                        int64_t t = pass ? len - 1 - t0 - q : t0 + q;                                         \
                        tv[FV_CU_REC_PAD(q)] = o[t];                                                          \
                        tm[FV_CU_REC_PAD(q)] = mk[t];                                                         \
                    }                                                                                         \
                    __syncwarp();                                                                             \
                    const int q0 = lane * FV_CU_REC_K;                                                        \
                    const int q1 = q0 + FV_CU_REC_K < n ? q0 + FV_CU_REC_K : n;                               \
                    T a = carry, b = carry, pa, pb;                                                           \
                    if (q0 < n) {                                                                             \
                        fv__rec_pixel_##DIR##_##S(tv[FV_CU_REC_PAD(q0)], tm[FV_CU_REC_PAD(q0)], &a, &b);      \
                        for (int q = q0 + 1; q < q1; q++) {                                                   \
                            fv__rec_pixel_##DIR##_##S(tv[FV_CU_REC_PAD(q)], tm[FV_CU_REC_PAD(q)], &pa, &pb);  \
                            fv__rec_after_##DIR##_##S(pa, pb, &a, &b);                                        \
                        }                                                                                     \
                    }                                                                                         \
                    /* inclusive scan over the lanes; lanes past the tile's end hold junk that       \
                     * reaches no lane below them */        \
                    for (int off = 1; off < 32; off <<= 1) {                                                  \
                        pa = (T)__shfl_up_sync(FV_CU_REC_FULL, a, off);                                       \
                        pb = (T)__shfl_up_sync(FV_CU_REC_FULL, b, off);                                       \
                        if (lane >= off) {                                                                    \
                            fv__rec_after_##DIR##_##S(a, b, &pa, &pb);                                        \
                            a = pa;                                                                           \
                            b = pb;                                                                           \
                        }                                                                                     \
                    }                                                                                         \
                    pa = (T)__shfl_up_sync(FV_CU_REC_FULL, a, 1);                                             \
                    pb = (T)__shfl_up_sync(FV_CU_REC_FULL, b, 1);                                             \
                    T x = lane ? fv__rec_clamp_##DIR##_##S(pa, pb, carry) : carry;                            \
                    for (int q = q0; q < q1; q++) { /* the new value replaces the mask */                     \
                        fv__rec_pixel_##DIR##_##S(tv[FV_CU_REC_PAD(q)], tm[FV_CU_REC_PAD(q)], &pa, &pb);      \
                        x = fv__rec_clamp_##DIR##_##S(pa, pb, x);                                             \
                        tm[FV_CU_REC_PAD(q)] = x;                                                             \
                    }                                                                                         \
                    __syncwarp();                                                                             \
                    carry = tm[FV_CU_REC_PAD(n - 1)];                                                         \
                    for (int q = lane; q < n; q += 32) {                                                      \
                        T nv = tm[FV_CU_REC_PAD(q)];                                                          \
                        if (FV__REC_LT_##DIR(tv[FV_CU_REC_PAD(q)], nv))                                       \
                            o[pass ? len - 1 - t0 - q : t0 + q] = nv;                                         \
                    }                                                                                         \
                    __syncwarp();                                                                             \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
    }                                                                                                         \
    /* Lines of len pixels, st apart (any st >= 1): a block of (32, nseg) threads takes 32         \
     * consecutive lines (adjacent in memory for st >= 32: coalesced along threadIdx.x) and cuts    \
     * each into nseg segments along threadIdx.y. A thread composes its segment into one clamp,     \
     * then applies it from the carry through the segments before it (in walk order). */          \
    __global__ void __launch_bounds__(32 * FV_CU_REC_MAX_SEG)                                                 \
        fv_k_rec_segs_##DIR##_##S(const T *mask, T *out, int64_t len, int64_t st, int64_t nlines, int passes) \
    {                                                                                                         \
        __shared__ T sa[FV_CU_REC_MAX_SEG][32], sb[FV_CU_REC_MAX_SEG][32];                                    \
        const int tx = threadIdx.x, ty = threadIdx.y;                                                         \
        const int64_t seg = (len + blockDim.y - 1) / blockDim.y;                                              \
        const int nseg = (int)((len + seg - 1) / seg); /* segments that hold pixels */                        \
        const int64_t lo = ty * seg, hi = lo + seg < len ? lo + seg : len;                                    \
        for (int64_t g0 = (int64_t)blockIdx.x * 32; g0 < nlines; g0 += (int64_t)gridDim.x * 32) {             \
            const int64_t line = g0 + tx;                                                                     \
            const int act = line < nlines && ty < nseg;                                                       \
            const int64_t base = act ? line / st * len * st + line % st : 0;                                  \
            for (int pass = 0; pass < 2; pass++) {                                                            \
                if (!((passes >> pass) & 1))                                                                  \
                    continue;                                                                                 \
                /* the segment's first pixel in walk order, and the step to the next */                       \
                const int64_t step = pass ? -st : st, first = base + (pass ? hi - 1 : lo) * st;               \
                if (act) {                                                                                    \
                    const T *mp = mask + first;                                                               \
                    const T *op = out + first;                                                                \
                    T a, b, pa, pb;                                                                           \
                    fv__rec_pixel_##DIR##_##S(*op, *mp, &a, &b);                                              \
                    for (int64_t k = 1; k < hi - lo; k++) {                                                   \
                        mp += step;                                                                           \
                        op += step;                                                                           \
                        fv__rec_pixel_##DIR##_##S(*op, *mp, &pa, &pb);                                        \
                        fv__rec_after_##DIR##_##S(pa, pb, &a, &b);                                            \
                    }                                                                                         \
                    sa[ty][tx] = a;                                                                           \
                    sb[ty][tx] = b;                                                                           \
                }                                                                                             \
                __syncthreads();                                                                              \
                if (act) {                                                                                    \
                    const T *mp = mask + first;                                                               \
                    T *op = out + first;                                                                      \
                    T x = fv__rec_start_##DIR##_##S(), pa, pb;                                                \
                    if (!pass)                                                                                \
                        for (int k = 0; k < ty; k++)                                                          \
                            x = fv__rec_clamp_##DIR##_##S(sa[k][tx], sb[k][tx], x);                           \
                    else                                                                                      \
                        for (int k = nseg - 1; k > ty; k--)                                                   \
                            x = fv__rec_clamp_##DIR##_##S(sa[k][tx], sb[k][tx], x);                           \
                    for (int64_t k = 0; k < hi - lo; k++, mp += step, op += step) {                           \
                        const T v = *op;                                                                      \
                        fv__rec_pixel_##DIR##_##S(v, *mp, &pa, &pb);                                          \
                        x = fv__rec_clamp_##DIR##_##S(pa, pb, x);                                             \
                        if (FV__REC_LT_##DIR(v, x))                                                           \
                            *op = x;                                                                          \
                    }                                                                                         \
                }                                                                                             \
                __syncthreads();                                                                              \
            }                                                                                                 \
        }                                                                                                     \
    }

/* The tile pass of 2-D images whose neighbours all lie in the 3 x 3 box (it
 * replaces the sweep): each block takes 32 x 32 tiles, stages the tile and a
 * ring of one pixel around it (read once: other blocks may raise those pixels
 * meanwhile, and an older value is still a valid one) in shared memory, and
 * repeats the sweep's step on the tile until it changes nothing there
 * (Jacobi steps between two shared buffers, so no thread reads a pixel while
 * another writes it). Paths that wind inside a tile settle in one pass instead
 * of one round each. src: bit 3 (sy + 1) + (sx + 1) for each source offset
 * (sy, sx) = -nb[k]; pixels outside the image read as START (no source). */
#define FV_CU_REC_T 32 /* tile: pixels per side */
#define FV_CU_REC_TY 8 /* tile: thread rows (32 x 8 threads) */
#define FV_CU_REC_TILE_KERNEL(T, S, DIR)                                                                    \
    __global__ void __launch_bounds__(32 * FV_CU_REC_TY)                                                    \
        fv_k_rec_tile_##DIR##_##S(const T *mask, T *out, int H, int W, unsigned src, int *changed)          \
    {                                                                                                       \
        __shared__ T sv[2][FV_CU_REC_T + 2][FV_CU_REC_T + 3];                                               \
        __shared__ T sm[FV_CU_REC_T][FV_CU_REC_T + 1];                                                      \
        const int tx = threadIdx.x, ty = threadIdx.y;                                                       \
        const int tw = (W + FV_CU_REC_T - 1) / FV_CU_REC_T;                                                 \
        const int64_t ntiles = (int64_t)tw * ((H + FV_CU_REC_T - 1) / FV_CU_REC_T);                         \
        const T start = fv__rec_start_##DIR##_##S();                                                        \
        for (int64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {                                          \
            const int y0 = (int)(t / tw) * FV_CU_REC_T, x0 = (int)(t % tw) * FV_CU_REC_T;                   \
            for (int k = ty * 32 + tx; k < (FV_CU_REC_T + 2) * (FV_CU_REC_T + 2); k += 32 * FV_CU_REC_TY) { \
                const int yy = k / (FV_CU_REC_T + 2), xx = k - yy * (FV_CU_REC_T + 2);                      \
                const int gy = y0 + yy - 1, gx = x0 + xx - 1;                                               \
                const T v = gy >= 0 && gy < H && gx >= 0 && gx < W ? out[(int64_t)gy * W + gx] : start;     \
                sv[0][yy][xx] = v;                                                                          \
                sv[1][yy][xx] = v;                                                                          \
            }                                                                                               \
            for (int r = ty; r < FV_CU_REC_T; r += FV_CU_REC_TY) {                                          \
                const int gy = y0 + r, gx = x0 + tx;                                                        \
                sm[r][tx] = gy < H && gx < W ? mask[(int64_t)gy * W + gx] : start;                          \
            }                                                                                               \
            __syncthreads();                                                                                \
            int cur = 0, any = 0;                                                                           \
            for (;;) {                                                                                      \
                int ch = 0;                                                                                 \
                for (int r = ty; r < FV_CU_REC_T; r += FV_CU_REC_TY) {                                      \
                    if (y0 + r >= H || x0 + tx >= W)                                                        \
                        continue;                                                                           \
                    const T v = sv[cur][r + 1][tx + 1], m = sm[r][tx];                                      \
                    T best = v;                                                                             \
                    if (FV__REC_LT_##DIR(v, m)) {                                                           \
                        _Pragma("unroll") for (int k = 0; k < 9; k++)                                       \
                        {                                                                                   \
                            if (src >> k & 1u) {                                                            \
                                const T u = sv[cur][r + k / 3][tx + k % 3];                                 \
                                if (FV__REC_LT_##DIR(best, u))                                              \
                                    best = u;                                                               \
                            }                                                                               \
                        }                                                                                   \
                        if (FV__REC_LT_##DIR(m, best))                                                      \
                            best = m;                                                                       \
                        if (FV__REC_LT_##DIR(v, best))                                                      \
                            ch = 1;                                                                         \
                        else                                                                                \
                            best = v;                                                                       \
                    }                                                                                       \
                    sv[cur ^ 1][r + 1][tx + 1] = best;                                                      \
                }                                                                                           \
                cur ^= 1;                                                                                   \
                if (!__syncthreads_or(ch))                                                                  \
                    break;                                                                                  \
                any = 1;                                                                                    \
            }                                                                                               \
            if (any) {                                                                                      \
                for (int r = ty; r < FV_CU_REC_T; r += FV_CU_REC_TY) {                                      \
                    const int gy = y0 + r, gx = x0 + tx;                                                    \
                    if (gy < H && gx < W)                                                                   \
                        out[(int64_t)gy * W + gx] = sv[cur][r + 1][tx + 1];                                 \
                }                                                                                           \
                if (tx == 0 && ty == 0)                                                                     \
                    *changed = 1;                                                                           \
            }                                                                                               \
            __syncthreads();                                                                                \
        }                                                                                                   \
    }

/* clang-format off */
#define FV_CU_REC_BOTH(E, T, S)                                                                      \
    FV_CU_REC_KERNELS(T, S, dil)                                                                     \
    FV_CU_REC_KERNELS(T, S, ero) FV_CU_REC_SCAN_KERNELS(T, S, dil) FV_CU_REC_SCAN_KERNELS(T, S, ero) \
        FV_CU_REC_TILE_KERNEL(T, S, dil) FV_CU_REC_TILE_KERNEL(T, S, ero)
/* clang-format on */
FV_FOREACH_DTYPE(FV_CU_REC_BOTH)

/* Launch one of the kernels for (dtype, direction); 0 when the dtype is unknown. */
enum {
    FV_CU_REC_INIT,
    FV_CU_REC_SWEEP,
    FV_CU_REC_LINES,
    FV_CU_REC_ROWS,
    FV_CU_REC_SEGS,
    FV_CU_REC_TILE2D
};

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
    int passes;   /* rows, segs: bit 0 forward, bit 1 backward */
    int nseg;     /* segs: segments per line (blockDim.y) */
    unsigned src; /* tile2d: source offsets in the 3 x 3 box (bit 3 (sy + 1) + sx + 1) */
} fv_cu_rec_call;

#define FV_CU_REC_LAUNCH_DIR(T, S, DIR, grid, x, c)                                                                   \
    switch ((c)->which) {                                                                                             \
    case FV_CU_REC_INIT:                                                                                              \
        fv_k_rec_init_##DIR##_##S<<<grid, (x)->block, 0, (x)->stream>>>((const T *)(c)->seed, (const T *)(c)->mask,   \
                                                                        (T *)(c)->out, (c)->g.size);                  \
        break;                                                                                                        \
    case FV_CU_REC_SWEEP:                                                                                             \
        fv_k_rec_sweep_##DIR##_##S<<<grid, (x)->block, 0, (x)->stream>>>((const T *)(c)->mask, (T *)(c)->out, (c)->g, \
                                                                         (c)->nb, (c)->nnb, (c)->changed);            \
        break;                                                                                                        \
    case FV_CU_REC_ROWS:                                                                                              \
        fv_k_rec_rows_##DIR##_##S<<<grid, 32 * FV_CU_REC_ROW_WARPS, 0, (x)->stream>>>(                                \
            (const T *)(c)->mask, (T *)(c)->out, (c)->g.n[(c)->axis], (c)->nlines, (c)->passes);                      \
        break;                                                                                                        \
    case FV_CU_REC_TILE2D:                                                                                            \
        fv_k_rec_tile_##DIR##_##S<<<grid, dim3(32, FV_CU_REC_TY), 0, (x)->stream>>>(                                  \
            (const T *)(c)->mask, (T *)(c)->out, (int)(c)->g.n[0], (int)(c)->g.n[1], (c)->src, (c)->changed);         \
        break;                                                                                                        \
    case FV_CU_REC_SEGS:                                                                                              \
        fv_k_rec_segs_##DIR##_##S<<<grid, dim3(32, (unsigned)(c)->nseg), 0, (x)->stream>>>(                           \
            (const T *)(c)->mask, (T *)(c)->out, (c)->g.n[(c)->axis], (c)->g.s[(c)->axis], (c)->nlines, (c)->passes); \
        break;                                                                                                        \
    default:                                                                                                          \
        fv_k_rec_lines_##DIR##_##S<<<grid, (x)->block, 0, (x)->stream>>>((const T *)(c)->mask, (T *)(c)->out, (c)->g, \
                                                                         (c)->axis, (c)->nlines, (c)->ax, (c)->nax);  \
        break;                                                                                                        \
    }

/* Blocks for n work items of `per` each, at most one resident wave of `threads`-thread blocks
 * (the kernels stride over the rest). */
static unsigned
fv_cu_rec_grid(int64_t n, int per, int threads, int device)
{
    int64_t blocks = (n + per - 1) / per;
    int64_t cap = (int64_t)fv__cuda_sm_count(device) * (2048 / threads);
    if (blocks > cap)
        blocks = cap;
    return blocks < 1 ? 1u : (unsigned)blocks;
}

/* The passes ("cuda.reconstruction"): "tile2d", the 2-D tile pass, where every
 * neighbour lies in the 3 x 3 box (the caller also checks the data is 2-d with
 * 32-bit extents); "sweep", the line sweeps, always. */
static int
fv_cu_rec_tile_ok(const void *args, int device)
{
    const fv__reconstruction_params *p = (const fv__reconstruction_params *)args;
    for (int k = 0; k < p->nnb; k++) {
        const int64_t sy = -p->nb[2 * k], sx = -p->nb[2 * k + 1];
        if (sy < -1 || sy > 1 || sx < -1 || sx > 1)
            return 0;
    }
    return 1;
}

FV__VARIANTS(fv_cu_rec_variants, "cuda.reconstruction", { "tile2d", fv_cu_rec_tile_ok, NULL }, { "sweep", NULL, NULL })

static int
fv_cu_rec_launch(fv_dtype dt, const fv_cu_exec *x, const fv_cu_rec_call *c)
{
    unsigned grid;
    if (c->which == FV_CU_REC_ROWS)
        grid = fv_cu_rec_grid(c->nlines, FV_CU_REC_ROW_WARPS, 32 * FV_CU_REC_ROW_WARPS, x->device);
    else if (c->which == FV_CU_REC_SEGS)
        grid = fv_cu_rec_grid(c->nlines, 32, 32 * c->nseg, x->device);
    else if (c->which == FV_CU_REC_TILE2D)
        grid = fv_cu_rec_grid(((c->g.n[0] + FV_CU_REC_T - 1) / FV_CU_REC_T) *
                                  ((c->g.n[1] + FV_CU_REC_T - 1) / FV_CU_REC_T),
                              1, 32 * FV_CU_REC_TY, x->device);
    else
        grid = fv_cu_grid(c->which == FV_CU_REC_LINES ? c->nlines : c->g.size, x->device);
    switch (dt) {
#define FV_CU_REC_CASE(E, T, S)                         \
    case E:                                             \
        if (c->ero) {                                   \
            FV_CU_REC_LAUNCH_DIR(T, S, ero, grid, x, c) \
        } else {                                        \
            FV_CU_REC_LAUNCH_DIR(T, S, dil, grid, x, c) \
        }                                               \
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
    int nax[FV_MAX_NDIM] = { 0 }, passes[FV_MAX_NDIM] = { 0 }, sweep_kind = FV_CU_REC_SWEEP;
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
        /* the scan kernels serve axes whose offsets are only +1 and -1 */
        for (int d = 0; d < nd; d++)
            for (int k = 0; k < nax[d]; k++) {
                int64_t o = axes[(size_t)d * p->nnb + k];
                if (o != 1 && o != -1) {
                    passes[d] = 0;
                    break;
                }
                passes[d] |= o == 1 ? 1 : 2;
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
    /* 2-D with every neighbour in the 3 x 3 box (extents < 2^31): the tile pass
     * instead of the sweep ("cuda.reconstruction": tile2d, then sweep) */
    {
        int tile = nd == 2 && c.g.n[0] < INT32_MAX - FV_CU_REC_T && c.g.n[1] < INT32_MAX - FV_CU_REC_T &&
            fv__plan_index(&fv_cu_rec_variants, p, x.device) == 0;
        c.src = 0;
        for (int k = 0; tile && k < p->nnb; k++) {
            const int64_t sy = -p->nb[2 * k], sx = -p->nb[2 * k + 1];
            if (sy < -1 || sy > 1 || sx < -1 || sx > 1)
                tile = 0;
            else
                c.src |= 1u << (3 * (sy + 1) + sx + 1);
        }
        sweep_kind = tile ? FV_CU_REC_TILE2D : FV_CU_REC_SWEEP;
    }
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
            c.passes = passes[d];
            if (passes[d] && c.g.s[d] == 1 && c.g.n[d] >= FV_CU_REC_MIN_ROW) {
                c.which = FV_CU_REC_ROWS;
            } else if (passes[d]) {
                /* segments per line: enough warps to fill the GPU, >= 8 pixels a segment */
                const int64_t groups = (c.nlines + 31) / 32;
                const int64_t fill = (int64_t)fv__cuda_sm_count(x.device) * 64;
                c.which = FV_CU_REC_SEGS;
                c.nseg = 1;
                while (c.nseg < FV_CU_REC_MAX_SEG && groups * c.nseg < fill && c.g.n[d] >= 16 * c.nseg)
                    c.nseg *= 2;
            }
            fv_cu_rec_launch(a->in->dtype, &x, &c);
            if ((st = fv_cu_launch_status("reconstruction lines")))
                goto done;
        }
        int changed = 0;
        if ((st = fv_cu_zero(dbuf, sizeof(int), x.stream)))
            goto done;
        c.which = sweep_kind;
        fv_cu_rec_launch(a->in->dtype, &x, &c);
        if ((st = fv_cu_launch_status("reconstruction sweep")))
            goto done;
        if ((st = fv_cu_read_back(&changed, dbuf, sizeof(int), x.stream, "cudaMemcpyAsync (changed flag)")))
            goto done;
        if (!changed)
            break;
    }
done:
    if (dbuf) { /* the stream was synchronised, or failed: nothing queued still uses it */
        if (st != FV_OK)
            (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(dbuf, dopaque);
    }
    free(hbuf);
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(RECONSTRUCTION, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_reconstruction);
