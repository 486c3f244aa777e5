/* CUDA EDT kernels (edt.cu describes the paths): distances alone, the last axis
 * first on squared-distance planes, and the local search before the envelope. */
#include "cuda/morphology/edt.cuh"

/* ---- distances only: the last axis first -------------------------------------------
 * Without indices only the least squared distance matters, and on the banded path
 * it is exact (fv_cu_edt_exact), so the axes may go in any order with the same
 * bits: the last (contiguous) axis first, as runs of FV_CU_EDT_SEG elements per
 * thread with neighbouring threads on neighbouring runs, then the envelope on
 * axes 0 .. nd-2, whose lines all have neighbours in memory. The planes hold
 * squared distances (double, inf: no zero yet), not features. The last axis goes
 * by warps over runs of 32 elements: reads of the mask and writes of the plane
 * coalesce (a thread per run of 16 took 0.43 ms on 256^3, H200). */

/* Per (line, run of FV_CU_EDT_SEG = 32): the run's first and last zero, at [line * nseg +
 * run] (neighbouring warps write neighbouring words). A warp per run, a lane per
 * element: the zeros as one ballot. */
__global__ void
fv_k_edt_last_seg(const uint8_t *fg, int32_t *first, int32_t *last, int64_t lines, int64_t n, int64_t nseg)
{
    const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = (int)(threadIdx.x & 31);
    if (w >= lines * nseg)
        return; /* whole warps: blockDim is a multiple of 32 */
    const int64_t L = w / nseg, sg = w - L * nseg, i0 = sg * FV_CU_EDT_SEG, i = i0 + lane;
    const unsigned m = __ballot_sync(0xffffffffu, i < n && !fg[L * n + i]);
    if (lane == 0) {
        first[w] = m ? (int32_t)(i0 + __ffs((int)m) - 1) : -1;
        last[w] = m ? (int32_t)(i0 + 31 - __clz((int)m)) : -1;
    }
}

/* A warp per line: last[run] becomes the last zero before the run (-1: none), a
 * prefix maximum, and first[run] the first zero after it (-1: none), a suffix
 * minimum, over the line's runs 32 at a time (coalesced, shuffles). */
__global__ void
fv_k_edt_last_scan(int32_t *first, int32_t *last, int64_t lines, int64_t nseg, int *anyzero)
{
    const int64_t L = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = (int)(threadIdx.x & 31);
    if (L >= lines)
        return;
    int32_t *lp = last + L * nseg, *fp = first + L * nseg;
    int32_t carry = -1;
    for (int64_t c = 0; c < nseg; c += 32) {
        const int64_t sg = c + lane;
        int32_t v = sg < nseg ? lp[sg] : -1;
        for (int o = 1; o < 32; o <<= 1) {
            const int32_t u = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o)
                v = max(v, u);
        }
        int32_t ex = __shfl_up_sync(0xffffffffu, v, 1);
        ex = max(lane ? ex : -1, carry);
        if (sg < nseg)
            lp[sg] = ex;
        carry = max(carry, __shfl_sync(0xffffffffu, v, 31));
    }
    if (lane == 0 && carry >= 0 && !*(volatile int *)anyzero)
        atomicOr(anyzero, 1);
    const int32_t none = 0x7fffffff;
    carry = none;
    for (int64_t c = ((nseg - 1) >> 5) << 5; c >= 0; c -= 32) {
        const int64_t sg = c + lane;
        int32_t v = sg < nseg ? fp[sg] : -1;
        v = v < 0 ? none : v;
        for (int o = 1; o < 32; o <<= 1) {
            const int32_t u = __shfl_down_sync(0xffffffffu, v, o);
            if (lane + o < 32)
                v = min(v, u);
        }
        int32_t ex = __shfl_down_sync(0xffffffffu, v, 1);
        ex = min(lane < 31 ? ex : none, carry);
        if (sg < nseg)
            fp[sg] = ex == none ? -1 : ex;
        carry = min(carry, __shfl_sync(0xffffffffu, v, 0));
    }
}

/* Per (line, run), after fv_k_edt_last_scan: each element's squared
 * distance to the nearest zero of its line, (|i - z| * s)^2, or inf. The nearest
 * zeros at or before and at or after each lane come from the run's ballot, or
 * from the scan (the last zero before the run, the first after it). */
__global__ void
fv_k_edt_last_fill(const uint8_t *fg, double *g2, const int32_t *first, const int32_t *last, int64_t lines, int64_t n,
                   int64_t nseg, double s)
{
    const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = (int)(threadIdx.x & 31);
    if (w >= lines * nseg)
        return;
    const int64_t L = w / nseg, sg = w - L * nseg, i0 = sg * FV_CU_EDT_SEG, i = i0 + lane;
    const unsigned m = __ballot_sync(0xffffffffu, i < n && !fg[L * n + i]);
    if (i >= n)
        return;
    const unsigned le = m & (0xffffffffu >> (31 - lane)), ge = m & (0xffffffffu << lane);
    const int64_t prev = le ? i0 + 31 - __clz((int)le) : (int64_t)last[w];
    const int64_t next = ge ? i0 + __ffs((int)ge) - 1 : (int64_t)first[w];
    int64_t dz = -1;
    if (prev >= 0)
        dz = i - prev;
    if (next >= 0 && (dz < 0 || next - i < dz))
        dz = next - i;
    double v = INFINITY;
    if (dz >= 0) {
        const double u = __dmul_rn((double)dz, s);
        v = __dmul_rn(u, u);
    }
    g2[L * n + i] = v;
}

/* ---- distances only: a local search before the envelope ------------------------------
 * On the squared-distance planes an element's least value along axis d is
 * min_j g(j) + ((i - j) s)^2, and with g >= 0 no j at k or more steps can win once
 * (k s)^2 >= the least value found. One thread per element (neighbouring threads
 * on neighbouring lines, so reads coalesce) searches outwards, both sides at each
 * step, up to cap steps. The arithmetic is the envelope's (fv__edt_delta; exact on
 * this path, fv_cu_edt_exact), so the least value has the envelope's bits. An
 * element the search does not settle within cap steps sets *unres, and the banded
 * envelope, guarded by it, then redoes the whole axis (threads that start after
 * *unres is set stop at once). Masks whose elements lie a few steps from the
 * nearest zero take the search alone: one read of the plane and a few cached
 * neighbours per element, where the envelope builds, merges and walks lists. */
/* The search from position i of a line of n (best: the element's own value):
 * at(j) gives the value at offset j. Returns false when cap steps did not settle
 * it. (Issuing a group of 4 steps' loads before their tests measured slower on an
 * H200: 256^3 0.293 -> 0.373 ms, 8192^2 0.673 -> 0.833 ms for the search.) */
template <typename AT>
__device__ __forceinline__ bool
fv_d_edt_search(double &best, int64_t i, int64_t n, int cap, double sd, AT at)
{
    for (int k = 1;; k++) {
        const double t = __dmul_rn((double)k, sd), q = __dmul_rn(t, t);
        const bool lo = k <= i, hi = k < n - i;
        if (q >= best || (!lo && !hi))
            return true;
        if (k > cap)
            return false;
        if (lo)
            best = fmin(best, __dadd_rn(at(-k), q));
        if (hi)
            best = fmin(best, __dadd_rn(at(k), q));
    }
}

/* An unsettled element: the axis goes to the envelope. */
__device__ __forceinline__ void
fv_d_edt_unsettled(int *unres)
{
    /* one atomic per group of lanes here together: on a sparse mask every thread
     * of the first wave gets here at once, and 2^18 atomics on one word cost ~0.1 ms */
    const unsigned act = __activemask();
    if ((int)(threadIdx.x & 31) == __ffs((int)act) - 1 && !*(volatile int *)unres)
        atomicOr(unres, 1);
}

/* The element's result: its squared distance so far, or (last axis) the distance. */
__device__ __forceinline__ void
fv_d_edt_local_put(const fv_cu_edt_geom &g, int64_t e, double best)
{
    if (!g.final) {
        g.gout[e] = best;
        return;
    }
    int64_t off = e * (int64_t)sizeof(double);
    if (!g.dcont) {
        int64_t rem = e;
        off = 0;
        for (int a = g.nd - 1; a >= 0; a--) {
            const int64_t q = rem / g.shape[a];
            off += (rem - q * g.shape[a]) * g.dstr[a];
            rem = q;
        }
    }
    *(double *)(g.dist + off) = __dsqrt_rn(best);
}

/* A thread per element (lines with fewer than 32 neighbours: inner < 32). */
__global__ void
fv_k_edt_local(fv_cu_edt_geom g, int *unres, int cap)
{
    if (*(volatile int *)unres)
        return;
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= g.N)
        return;
    const int64_t inner = g.inner, i = (e / inner) % g.n;
    const double *p = g.gin + e;
    double best = p[0];
    if (!fv_d_edt_search(best, i, g.n, cap, g.s[g.d], [&](int k) { return __ldg(p + k * inner); })) {
        fv_d_edt_unsettled(unres);
        return;
    }
    fv_d_edt_local_put(g, e, best);
}

/* Tiles of FV_CU_EDT_LTP positions x 32 neighbouring lines, with FV_CU_EDT_LH positions
 * each side, in shared memory (a warp loads a row of 32 lines: 256 bytes); the
 * search reads farther positions from global memory. Blocks (outer, line tile,
 * position tile), position tiles fastest. */
__global__ void
__launch_bounds__(FV_CU_EDT_LBLOCK) fv_k_edt_local_tile(fv_cu_edt_geom g, int *unres, int cap, int64_t nrt, int64_t npt)
{
    __shared__ double sm[(FV_CU_EDT_LTP + 2 * FV_CU_EDT_LH) * 32];
    if (*(volatile int *)unres)
        return;
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5);
    int64_t t = blockIdx.x;
    const int64_t pt = t % npt;
    t /= npt;
    const int64_t rt = t % nrt, o = t / nrt;
    const int64_t n = g.n, inner = g.inner, r = rt * 32 + lane, i0 = pt * FV_CU_EDT_LTP;
    const bool rin = r < inner;
    const int64_t lo = i0 - FV_CU_EDT_LH > 0 ? i0 - FV_CU_EDT_LH : 0;
    const int64_t hi = i0 + FV_CU_EDT_LTP + FV_CU_EDT_LH < n ? i0 + FV_CU_EDT_LTP + FV_CU_EDT_LH : n;
    const int64_t base = o * n * inner + r; /* position i of the line: base + i * inner */
    const double *col = g.gin + base;
    for (int64_t row = lo + warp; row < hi; row += FV_CU_EDT_LBLOCK / 32)
        sm[(row - i0 + FV_CU_EDT_LH) * 32 + lane] = rin ? __ldg(col + row * inner) : 0.0;
    __syncthreads();
    if (!rin)
        return;
    const double sd = g.s[g.d];
    for (int q = warp; q < FV_CU_EDT_LTP; q += FV_CU_EDT_LBLOCK / 32) {
        const int64_t i = i0 + q;
        if (i >= n)
            break;
        double best = sm[(q + FV_CU_EDT_LH) * 32 + lane];
        const bool ok = fv_d_edt_search(best, i, n, cap, sd, [&](int k) {
            const int j = q + k;
            return j >= -FV_CU_EDT_LH && j < FV_CU_EDT_LTP + FV_CU_EDT_LH ? sm[(j + FV_CU_EDT_LH) * 32 + lane]
                                                                          : __ldg(col + (i + k) * inner);
        });
        if (!ok) {
            fv_d_edt_unsettled(unres);
            return;
        }
        fv_d_edt_local_put(g, base + i * inner, best);
    }
}
