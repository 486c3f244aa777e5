/* Exact Euclidean distance and feature transform on the GPU
 * (scipy.ndimage.distance_transform_edt).
 *
 * The CPU backend's algorithm (src/cpu/morphology/edt-cpu.c), one thread per
 * line and axis: axis 0 finds the nearest zero along each axis-0 line by a
 * forward and a backward sweep (threads walk neighbouring columns, so reads
 * coalesce); every later axis builds the lower envelope of the line's sites in
 * a per-line stack (stored interleaved across lines) and assigns each element
 * its least-distance site. The arithmetic is the CPU's (and scipy's) operation
 * for operation, with rounded intrinsics so that nvcc contracts nothing into
 * FMAs: the two backends give the same bits. An image with no zero gets scipy's
 * answer for that case from a last kernel that reads the device flag set by the
 * axis-0 pass, so nothing waits on the host.
 *
 * That per-line path runs one thread per line: 8192 threads for an 8192^2 image
 * (2160 for axis 1 of 3840x2160), far too few for an H100, and on the last axis
 * of a C-order image each thread walks its own row. The default path splits lines:
 *   axis 0   segments of S rows (S from 128 down to 16, so that columns x segments
 *            fill the GPU): each (segment, column) finds its first and last zero,
 *            a per-column scan over segments gives the last zero before and the
 *            first after each segment, and each (segment, column) runs the two
 *            sweeps from those. Integer logic: the same nearest zero, ties included.
 *   axis d   bands of W positions (W from 128 down to 16, likewise), threads
 *            (line, band) with lines fastest so that list and feature accesses
 *            coalesce on every axis but the last: per-band stacks kept as linked
 *            lists over the line's positions (prv / nxt / swr, index i * lines + L),
 *            log2(bands) launches of pairwise merges, the last site before each
 *            band (two small kernels), and per band a query from that site.
 *            edt-band.h holds the list code (shared with the host model in
 *            tests/c/test_cuda_edt.c) and the argument that the sites and the
 *            deltas are the sequential algorithm's. It needs exact arithmetic, so
 *            the banded envelope runs only when every sampling is a positive
 *            integer times one power of two and (3 nd + 1) Lm^3 < 2^52
 *            (fv_cu_edt_exact: sampling None and integer samplings up to ~10^5
 *            per extent); otherwise the envelope axes take the per-line kernel.
 * Distances alone (on the banded path's exact arithmetic) take squared-distance
 * planes instead of features, the last axis first, and on the other axes a local
 * search per element before the envelope (fv_k_edt_local*, below).
 * FOVEA_EDT_LINES=1 (any value but "0") forces the per-line path on every axis. */
#include <math.h>
#include <stdlib.h>
#include "cuda/morphology/morphology-cuda.cuh"
#include "cuda/morphology/edt-band.h"
#include "core/plan.h"

typedef struct fv_cu_edt_geom {
    int nd, d, final, idx64;
    int tr;                          /* banded last axis: planes and outputs transposed */
    int gm;                          /* distances only: squared distances, not features */
    int64_t N, n, inner, lines;
    int64_t ps;                      /* stride of a line's positions in the planes */
    int64_t W, nb;                   /* banded path: band width, bands per line */
    int64_t shape[FV_MAX_NDIM];
    double s[FV_MAX_NDIM];
    int64_t dstr[FV_MAX_NDIM];       /* distances' strides (bytes) */
    int64_t istr[FV_MAX_NDIM + 1];   /* indices' strides */
    char *dist, *idx;                /* outputs or NULL */
    double *tdist;                   /* tr and final: distances at i * lines + L, */
    int32_t *tidx;                   /* indices of axis a at a * N + i * lines + L */
    const double *gin;               /* gm: the squared distances so far (inf: no zero yet) */
    double *gout;                    /* gm and not final: this axis' squared distances */
    const int *guard;                /* non-NULL: the banded kernels return at once unless *guard */
    int dcont;                       /* the distances are C-contiguous doubles */
} fv_cu_edt_geom;

__device__ __forceinline__ void
fv_cu_edt_put(const fv_cu_edt_geom &g, int64_t off, int64_t v)
{
    if (g.idx64)
        *(int64_t *)(g.idx + off) = v;
    else
        *(int32_t *)(g.idx + off) = (int32_t)v;
}

/* Axis 0: nearest zero along each of the M lines (columns of the (n0, M) view). */
__global__ void
fv_k_edt_axis0(const uint8_t *fg, int32_t *f0, int64_t n0, int64_t M, int *anyzero)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= M)
        return;
    int32_t last = -1;
    for (int64_t i = 0; i < n0; i++) {
        if (!fg[i * M + c])
            last = (int32_t)i;
        f0[i * M + c] = last;
    }
    if (last >= 0)
        atomicOr(anyzero, 1);
    int32_t next = -1;
    for (int64_t i = n0 - 1; i >= 0; i--) {
        int32_t nx = fg[i * M + c] ? next : (int32_t)i, pv = f0[i * M + c];
        next = nx;
        if (nx >= 0 && (pv < 0 || (int64_t)nx - i < i - (int64_t)pv))
            f0[i * M + c] = nx;
    }
}

/* 1-d images: outputs from the axis-0 features. */
__global__ void
fv_k_edt_write1d(const int32_t *f, fv_cu_edt_geom g, const int *anyzero)
{
    if (!*anyzero)
        return;
    FV_GRID_STRIDE(int64_t, i, g.N) {
        int32_t fi = f[i];
        if (g.dist) {
            double t = __dmul_rn((double)((int64_t)fi - i), g.s[0]);
            *(double *)(g.dist + i * g.dstr[0]) = __dsqrt_rn(__dmul_rn(t, t));
        }
        if (g.idx)
            fv_cu_edt_put(g, i * g.istr[1], fi);
    }
}

/* Axis d >= 1: one thread per line. fin / fout: feature planes (axis a at a * N). */
__global__ void
fv_k_edt_axis(fv_cu_edt_geom g, const int32_t *fin, int32_t *fout, int32_t *gs, double *swr)
{
    const int64_t L = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (L >= g.lines)
        return;
    const int d = g.d, nd = g.nd;
    const int64_t n = g.n, inner = g.inner, lines = g.lines, N = g.N;
    const int64_t o = L / inner, r = L - o * inner, base = o * n * inner + r;
    const double sd = g.s[d];
    int64_t x[FV_MAX_NDIM];
    {
        int64_t rem = r;
        for (int a = nd - 1; a > d; a--) {
            x[a] = rem % g.shape[a];
            rem /= g.shape[a];
        }
        rem = o;
        for (int a = d - 1; a >= 0; a--) {
            x[a] = rem % g.shape[a];
            rem /= g.shape[a];
        }
    }
    /* the lower envelope (scipy's removal test, same operation order) */
    int64_t l = -1;
    for (int64_t i = 0; i < n; i++) {
        const int64_t p = base + i * inner;
        const int32_t f0 = fin[p];
        if (f0 < 0)
            continue;
        double wR = 0.0;
        for (int a = 0; a < d; a++) {
            int32_t fa = a ? fin[a * N + p] : f0;
            double t = __dmul_rn((double)((int64_t)fa - x[a]), g.s[a]);
            wR = __dadd_rn(wR, __dmul_rn(t, t));
        }
        const double fd = (double)i;
        while (l >= 1) {
            double f1 = (double)gs[l * lines + L];
            double A = __dmul_rn(__dsub_rn(f1, (double)gs[(l - 1) * lines + L]), sd);
            double B = __dmul_rn(__dsub_rn(fd, f1), sd);
            double C = __dadd_rn(A, B);
            double uR = swr[(l - 1) * lines + L], vR = swr[l * lines + L];
            double v = __dsub_rn(__dsub_rn(__dsub_rn(__dmul_rn(C, vR), __dmul_rn(B, uR)), __dmul_rn(A, wR)),
                                 __dmul_rn(__dmul_rn(A, B), C));
            if (v <= 0.0)
                break;
            --l;
        }
        ++l;
        gs[l * lines + L] = (int32_t)i;
        swr[l * lines + L] = wR;
    }
    const int64_t maxl = l;
    if (maxl < 0) {   /* no site on this line yet: none after this axis either */
        if (!g.final)
            for (int64_t i = 0; i < n; i++)
                fout[base + i * inner] = -1;
        return;
    }
    int64_t doff = 0, ioff = 0;
    if (g.final)
        for (int a = 0; a < nd - 1; a++) {
            doff += x[a] * g.dstr[a];
            ioff += x[a] * g.istr[a + 1];
        }
    l = 0;
    int64_t site = gs[L];
    double sw = swr[L];
    for (int64_t i = 0; i < n; i++) {
        double t = __dmul_rn((double)(site - i), sd);
        double delta1 = __dadd_rn(sw, __dmul_rn(t, t));
        while (l < maxl) {
            int64_t s2 = gs[(l + 1) * lines + L];
            double w2 = swr[(l + 1) * lines + L];
            double t2 = __dmul_rn((double)(s2 - i), sd);
            double delta2 = __dadd_rn(w2, __dmul_rn(t2, t2));
            if (delta1 <= delta2)
                break;
            delta1 = delta2;
            site = s2;
            sw = w2;
            ++l;
        }
        const int64_t sp = base + site * inner;
        if (g.final) {
            if (g.dist)
                *(double *)(g.dist + doff + i * g.dstr[d]) = __dsqrt_rn(delta1);
            if (g.idx) {
                int64_t off = ioff + i * g.istr[d + 1];
                for (int a = 0; a < d; a++)
                    fv_cu_edt_put(g, off + a * g.istr[0], fin[a * N + sp]);
                fv_cu_edt_put(g, off + d * g.istr[0], site);
            }
        } else {
            const int64_t p = base + i * inner;
            for (int a = 0; a < d; a++)
                fout[a * N + p] = fin[a * N + sp];
            fout[d * N + p] = (int32_t)site;
        }
    }
}

/* ---- the banded path ---------------------------------------------------------------- */

/* Axis 0 in segments of S rows: each (segment, column) its first and last zero. */
__global__ void
fv_k_edt_axis0_seg(const uint8_t *fg, int32_t *first, int32_t *last, int64_t n0, int64_t M, int64_t S,
                   int64_t nseg)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= M * nseg)
        return;
    const int64_t c = t % M, sg = t / M, i0 = sg * S, i1 = min(n0, i0 + S);
    int32_t f = -1, l = -1;
    for (int64_t i = i0; i < i1; i++)
        if (!fg[i * M + c]) {
            if (f < 0)
                f = (int32_t)i;
            l = (int32_t)i;
        }
    first[t] = f;
    last[t] = l;
}

/* Per column: last[sg] becomes the last zero before segment sg, first[sg] the first
 * zero after it (-1: none). */
__global__ void
fv_k_edt_axis0_scan(int32_t *first, int32_t *last, int64_t M, int64_t nseg, int *anyzero)
{
    const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= M)
        return;
    int32_t run = -1;
    for (int64_t sg = 0; sg < nseg; sg++) {
        int32_t v = last[sg * M + c];
        last[sg * M + c] = run;
        if (v >= 0)
            run = v;
    }
    if (run >= 0 && !*(volatile int *)anyzero)
        atomicOr(anyzero, 1);
    run = -1;
    for (int64_t sg = nseg - 1; sg >= 0; sg--) {
        int32_t v = first[sg * M + c];
        first[sg * M + c] = run;
        if (v >= 0)
            run = v;
    }
}

/* Per (segment, column): the axis-0 kernel's two sweeps, started from the zeros
 * before and after the segment (so the same nearest zero, ties to the earlier). */
__global__ void
fv_k_edt_axis0_fill(const uint8_t *fg, int32_t *f0, const int32_t *first, const int32_t *last, int64_t n0,
                    int64_t M, int64_t S, int64_t nseg)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= M * nseg)
        return;
    const int64_t c = t % M, sg = t / M, i0 = sg * S, i1 = min(n0, i0 + S);
    int32_t lz = last[t];
    for (int64_t i = i0; i < i1; i++) {
        if (!fg[i * M + c])
            lz = (int32_t)i;
        f0[i * M + c] = lz;
    }
    int32_t next = first[t];
    for (int64_t i = i1 - 1; i >= i0; i--) {
        int32_t nx = fg[i * M + c] ? next : (int32_t)i, pv = f0[i * M + c];
        next = nx;
        if (nx >= 0 && (pv < 0 || (int64_t)nx - i < i - (int64_t)pv))
            f0[i * M + c] = nx;
    }
}

/* ---- distances only: the last axis first -------------------------------------------
 * Without indices only the least squared distance matters, and on the banded path
 * it is exact (fv_cu_edt_exact), so the axes may go in any order with the same
 * bits: the last (contiguous) axis first, as runs of FV_EDT_SEG elements per
 * thread with neighbouring threads on neighbouring runs, then the envelope on
 * axes 0 .. nd-2, whose lines all have neighbours in memory. The planes hold
 * squared distances (double, inf: no zero yet), not features. The last axis goes
 * by warps over runs of 32 elements: reads of the mask and writes of the plane
 * coalesce (a thread per run of 16 took 0.43 ms on 256^3, H200). */
#define FV_EDT_SEG 32   /* a warp's elements */
#define FV_EDT_CAP 32   /* the local search's default reach (fv_cu_edt_cap) */

/* Per (line, run of FV_EDT_SEG = 32): the run's first and last zero, at [line * nseg +
 * run] (neighbouring warps write neighbouring words). A warp per run, a lane per
 * element: the zeros as one ballot. */
__global__ void
fv_k_edt_last_seg(const uint8_t *fg, int32_t *first, int32_t *last, int64_t lines, int64_t n, int64_t nseg)
{
    const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = (int)(threadIdx.x & 31);
    if (w >= lines * nseg)
        return;   /* whole warps: blockDim is a multiple of 32 */
    const int64_t L = w / nseg, sg = w - L * nseg, i0 = sg * FV_EDT_SEG, i = i0 + lane;
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
fv_k_edt_last_fill(const uint8_t *fg, double *g2, const int32_t *first, const int32_t *last, int64_t lines,
                   int64_t n, int64_t nseg, double s)
{
    const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = (int)(threadIdx.x & 31);
    if (w >= lines * nseg)
        return;
    const int64_t L = w / nseg, sg = w - L * nseg, i0 = sg * FV_EDT_SEG, i = i0 + lane;
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
fv_cu_edt_search(double &best, int64_t i, int64_t n, int cap, double sd, AT at)
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
fv_cu_edt_unsettled(int *unres)
{
    /* one atomic per group of lanes here together: on a sparse mask every thread
     * of the first wave gets here at once, and 2^18 atomics on one word cost ~0.1 ms */
    const unsigned act = __activemask();
    if ((int)(threadIdx.x & 31) == __ffs((int)act) - 1 && !*(volatile int *)unres)
        atomicOr(unres, 1);
}

/* The element's result: its squared distance so far, or (last axis) the distance. */
__device__ __forceinline__ void
fv_cu_edt_local_put(const fv_cu_edt_geom &g, int64_t e, double best)
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
    if (!fv_cu_edt_search(best, i, g.n, cap, g.s[g.d], [&](int k) { return __ldg(p + k * inner); })) {
        fv_cu_edt_unsettled(unres);
        return;
    }
    fv_cu_edt_local_put(g, e, best);
}

/* Tiles of FV_EDT_LTP positions x 32 neighbouring lines, with FV_EDT_LH positions
 * each side, in shared memory (a warp loads a row of 32 lines: 256 bytes); the
 * search reads farther positions from global memory. Blocks (outer, line tile,
 * position tile), position tiles fastest. */
#define FV_EDT_LTP 64
#define FV_EDT_LH 8
#define FV_EDT_LBLOCK 256
__global__ void __launch_bounds__(FV_EDT_LBLOCK)
fv_k_edt_local_tile(fv_cu_edt_geom g, int *unres, int cap, int64_t nrt, int64_t npt)
{
    __shared__ double sm[(FV_EDT_LTP + 2 * FV_EDT_LH) * 32];
    if (*(volatile int *)unres)
        return;
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5);
    int64_t t = blockIdx.x;
    const int64_t pt = t % npt;
    t /= npt;
    const int64_t rt = t % nrt, o = t / nrt;
    const int64_t n = g.n, inner = g.inner, r = rt * 32 + lane, i0 = pt * FV_EDT_LTP;
    const bool rin = r < inner;
    const int64_t lo = i0 - FV_EDT_LH > 0 ? i0 - FV_EDT_LH : 0;
    const int64_t hi = i0 + FV_EDT_LTP + FV_EDT_LH < n ? i0 + FV_EDT_LTP + FV_EDT_LH : n;
    const int64_t base = o * n * inner + r;   /* position i of the line: base + i * inner */
    const double *col = g.gin + base;
    for (int64_t row = lo + warp; row < hi; row += FV_EDT_LBLOCK / 32)
        sm[(row - i0 + FV_EDT_LH) * 32 + lane] = rin ? __ldg(col + row * inner) : 0.0;
    __syncthreads();
    if (!rin)
        return;
    const double sd = g.s[g.d];
    for (int q = warp; q < FV_EDT_LTP; q += FV_EDT_LBLOCK / 32) {
        const int64_t i = i0 + q;
        if (i >= n)
            break;
        double best = sm[(q + FV_EDT_LH) * 32 + lane];
        const bool ok = fv_cu_edt_search(best, i, n, cap, sd, [&](int k) {
            const int j = q + k;
            return j >= -FV_EDT_LH && j < FV_EDT_LTP + FV_EDT_LH ? sm[(j + FV_EDT_LH) * 32 + lane]
                                                                 : __ldg(col + (i + k) * inner);
        });
        if (!ok) {
            fv_cu_edt_unsettled(unres);
            return;
        }
        fv_cu_edt_local_put(g, base + i * inner, best);
    }
}

/* Line L's coordinates on every axis but d, and its first element. */
__device__ __forceinline__ int64_t
fv_cu_edt_line(const fv_cu_edt_geom &g, int64_t L, int64_t *x)
{
    const int64_t o = L / g.inner, r = L - o * g.inner;
    int64_t rem = r;
    for (int a = g.nd - 1; a > g.d; a--) {
        x[a] = rem % g.shape[a];
        rem /= g.shape[a];
    }
    rem = o;
    for (int a = g.d - 1; a >= 0; a--) {
        x[a] = rem % g.shape[a];
        rem /= g.shape[a];
    }
    return g.tr ? L : o * g.n * g.inner + r;
}

/* Band build: thread (line L, band b), L fastest. Lists at i * lines + L. */
__global__ void
fv_k_edt_band_build(fv_cu_edt_geom g, const int32_t *fin, int32_t *prv, int32_t *nxt, double *swr, int32_t *hd,
                    int32_t *tl)
{
    if (g.guard && !*g.guard)
        return;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= g.lines * g.nb)
        return;
    const int64_t L = t % g.lines, b = t / g.lines, i0 = b * g.W, i1 = min(g.n, i0 + g.W);
    int64_t x[FV_MAX_NDIM];
    const int64_t base = fv_cu_edt_line(g, L, x);
    const fv__edt_list l = {prv + L, nxt + L, swr + L, g.lines};
    const double sd = g.s[g.d];
    int32_t top = -1;
    double topR = 0.0;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t p = base + i * g.ps;
        double wR = 0.0;
        if (g.gm) {
            wR = g.gin[p];
            if (!(wR < INFINITY)) {
                prv[i * g.lines + L] = FV_EDT_DEAD;
                continue;
            }
        } else {
            const int32_t f0 = fin[p];
            if (f0 < 0) {
                prv[i * g.lines + L] = FV_EDT_DEAD;
                continue;
            }
            for (int a = 0; a < g.d; a++) {
                int32_t fa = a ? fin[a * g.N + p] : f0;
                double u = __dmul_rn((double)((int64_t)fa - x[a]), g.s[a]);
                wR = __dadd_rn(wR, __dmul_rn(u, u));
            }
        }
        fv__edt_push(&l, (int32_t)i, wR, sd, &top, &topR);
    }
    hd[t] = fv__edt_close(&l, top);
    tl[t] = top;
}

/* One merge level: groups of span bands, pairwise; results at the left group's slot. */
__global__ void
fv_k_edt_band_merge(fv_cu_edt_geom g, int32_t *prv, int32_t *nxt, double *swr, int32_t *hd, int32_t *tl,
                    int64_t span)
{
    if (g.guard && !*g.guard)
        return;
    const int64_t pairs = (g.nb + 2 * span - 1) / (2 * span);
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= g.lines * pairs)
        return;
    const int64_t L = t % g.lines, bl = (t / g.lines) * 2 * span, br = bl + span;
    if (br >= g.nb)
        return;
    const fv__edt_list l = {prv + L, nxt + L, swr + L, g.lines};
    const int64_t kl = bl * g.lines + L, kr = br * g.lines + L;
    int32_t h, e;
    fv__edt_merge(&l, hd[kl], tl[kl], hd[kr], tl[kr], g.s[g.d], &h, &e);
    hd[kl] = h;
    tl[kl] = e;
}

/* Per (line, band): the last site left in the band (-1: none). */
__global__ void
fv_k_edt_band_last(fv_cu_edt_geom g, const int32_t *prv, int32_t *ll)
{
    if (g.guard && !*g.guard)
        return;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= g.lines * g.nb)
        return;
    const int64_t L = t % g.lines, b = t / g.lines, i0 = b * g.W, i1 = min(g.n, i0 + g.W);
    int32_t v = -1;
    for (int64_t i = i1 - 1; i >= i0; i--)
        if (prv[i * g.lines + L] != FV_EDT_DEAD) {
            v = (int32_t)i;
            break;
        }
    ll[t] = v;
}

/* Per line: ll[b] becomes the last site before band b (-1: none). */
__global__ void
fv_k_edt_band_prefix(fv_cu_edt_geom g, int32_t *ll)
{
    if (g.guard && !*g.guard)
        return;
    const int64_t L = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (L >= g.lines)
        return;
    int32_t run = -1;
    for (int64_t b = 0; b < g.nb; b++) {
        int32_t v = ll[b * g.lines + L];
        ll[b * g.lines + L] = run;
        if (v >= 0)
            run = v;
    }
}

/* Per (line, band): each element's site, as the sequential query walk chooses it. */
__global__ void
fv_k_edt_band_query(fv_cu_edt_geom g, const int32_t *fin, int32_t *fout, const int32_t *prv, const int32_t *nxt,
                    const double *swr, const int32_t *hd, const int32_t *ll)
{
    if (g.guard && !*g.guard)
        return;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= g.lines * g.nb)
        return;
    const int d = g.d, nd = g.nd;
    const int64_t L = t % g.lines, b = t / g.lines, i0 = b * g.W, i1 = min(g.n, i0 + g.W), N = g.N;
    int64_t x[FV_MAX_NDIM];
    const int64_t base = fv_cu_edt_line(g, L, x);
    const double sd = g.s[d];
    int32_t e = ll[t];
    if (e < 0)
        e = hd[L];   /* the line's first site */
    if (e < 0) {     /* no site on this line: none after this axis either */
        if (!g.final)
            for (int64_t i = i0; i < i1; i++) {
                if (g.gm)
                    g.gout[base + i * g.ps] = INFINITY;
                else
                    fout[base + i * g.ps] = -1;
            }
        return;
    }
    const fv__edt_list l = {(int32_t *)prv + L, (int32_t *)nxt + L, (double *)swr + L, g.lines};
    int32_t site = fv__edt_entry(&l, e, i0, sd);
    double sw = swr[site * g.lines + L];
    int64_t doff = 0, ioff = 0;
    if (g.final)
        for (int a = 0; a < nd; a++)
            if (a != d) {
                doff += x[a] * g.dstr[a];
                ioff += x[a] * g.istr[a + 1];
            }
    for (int64_t i = i0; i < i1; i++) {
        double delta1 = fv__edt_delta(site, i, sw, sd);
        int32_t s2;
        while ((s2 = nxt[(int64_t)site * g.lines + L]) >= 0) {
            double w2 = swr[(int64_t)s2 * g.lines + L];
            double delta2 = fv__edt_delta(s2, i, w2, sd);
            if (delta1 <= delta2)
                break;
            delta1 = delta2;
            site = s2;
            sw = w2;
        }
        const int64_t sp = base + (int64_t)site * g.ps;
        if (g.gm) {   /* squared distances only */
            if (g.final)
                *(double *)(g.dist + doff + i * g.dstr[d]) = __dsqrt_rn(delta1);
            else
                g.gout[base + i * g.ps] = delta1;
        } else if (g.final && g.tr) {   /* transposed; fv_k_edt_untranspose writes the outputs */
            const int64_t q = i * g.lines + L;
            if (g.dist)
                g.tdist[q] = __dsqrt_rn(delta1);
            if (g.idx) {
                for (int a = 0; a < d; a++)
                    g.tidx[a * N + q] = fin[a * N + sp];
                g.tidx[d * N + q] = site;
            }
        } else if (g.final) {
            if (g.dist)
                *(double *)(g.dist + doff + i * g.dstr[d]) = __dsqrt_rn(delta1);
            if (g.idx) {
                int64_t off = ioff + i * g.istr[d + 1];
                for (int a = 0; a < d; a++)
                    fv_cu_edt_put(g, off + a * g.istr[0], fin[a * N + sp]);
                fv_cu_edt_put(g, off + d * g.istr[0], site);
            }
        } else {
            const int64_t p = base + i * g.ps;
            for (int a = 0; a < d; a++)
                fout[a * N + p] = fin[a * N + sp];
            fout[d * N + p] = site;
        }
    }
}

/* The banded last axis runs on transposed planes: (lines, n) -> (n, lines), so
 * that threads of neighbouring lines read and write neighbouring words.
 * Tiles of 32 x 32 (blocks of 32 x 8 threads), one block per (tile, plane). */
#define FV_EDT_TT 32
__global__ void
fv_k_edt_transpose(const int32_t *in, int32_t *out, int64_t lines, int64_t n, int64_t N, int64_t tn,
                   int64_t tiles)
{
    __shared__ int32_t tile[FV_EDT_TT][FV_EDT_TT + 1];
    const int64_t b = blockIdx.x, plane = b / tiles, t = b - plane * tiles;
    const int64_t L0 = (t / tn) * FV_EDT_TT, i0 = (t % tn) * FV_EDT_TT;
    in += plane * N;
    out += plane * N;
    for (int k = threadIdx.y; k < FV_EDT_TT; k += blockDim.y) {
        int64_t L = L0 + k, i = i0 + threadIdx.x;
        if (L < lines && i < n)
            tile[k][threadIdx.x] = in[L * n + i];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < FV_EDT_TT; k += blockDim.y) {
        int64_t i = i0 + k, L = L0 + threadIdx.x;
        if (L < lines && i < n)
            out[i * lines + L] = tile[threadIdx.x][k];
    }
}

/* The last axis' transposed outputs (distances, indices at (i, L)) to the output
 * arrays at (L, i), with their strides; tiles as above. */
__global__ void
fv_k_edt_untranspose(fv_cu_edt_geom g, int64_t tn, const int *anyzero)
{
    if (!*anyzero)   /* fv_k_edt_nozero writes every output */
        return;
    __shared__ double td[FV_EDT_TT][FV_EDT_TT + 1];
    __shared__ int32_t ti[FV_EDT_TT][FV_EDT_TT + 1];
    const int d = g.d;
    const int64_t L0 = (blockIdx.x / tn) * FV_EDT_TT, i0 = (blockIdx.x % tn) * FV_EDT_TT;
    const int planes = g.idx ? g.nd : 0;
    /* the output offsets of the block's lines (at most 32), once per thread row */
    int64_t doff[FV_EDT_TT / 8], ioff[FV_EDT_TT / 8];
    for (int k = threadIdx.y, j = 0; k < FV_EDT_TT; k += blockDim.y, j++) {
        int64_t rem = L0 + k;
        doff[j] = ioff[j] = 0;
        for (int a = d - 1; a >= 0; a--) {
            int64_t xa = rem % g.shape[a];
            rem /= g.shape[a];
            doff[j] += xa * g.dstr[a];
            ioff[j] += xa * g.istr[a + 1];
        }
    }
    for (int pl = -1; pl < planes; pl++) {
        if (pl < 0 && !g.dist)
            continue;
        for (int k = threadIdx.y; k < FV_EDT_TT; k += blockDim.y) {
            int64_t i = i0 + k, L = L0 + threadIdx.x;
            if (L < g.lines && i < g.n) {
                if (pl < 0)
                    td[k][threadIdx.x] = g.tdist[i * g.lines + L];
                else
                    ti[k][threadIdx.x] = g.tidx[pl * g.N + i * g.lines + L];
            }
        }
        __syncthreads();
        for (int k = threadIdx.y, j = 0; k < FV_EDT_TT; k += blockDim.y, j++) {
            int64_t L = L0 + k, i = i0 + threadIdx.x;
            if (L < g.lines && i < g.n) {
                if (pl < 0)
                    *(double *)(g.dist + doff[j] + i * g.dstr[d]) = td[threadIdx.x][k];
                else
                    fv_cu_edt_put(g, ioff[j] + i * g.istr[d + 1] + pl * g.istr[0], ti[threadIdx.x][k]);
            }
        }
        __syncthreads();
    }
}

/* No zero anywhere: scipy's features are -1 on axis 0 and 0 elsewhere. */
__global__ void
fv_k_edt_nozero(fv_cu_edt_geom g, const int *anyzero)
{
    if (*anyzero)
        return;
    FV_GRID_STRIDE(int64_t, p, g.N) {
        int64_t x[FV_MAX_NDIM], rem = p, doff = 0, ioff = 0;
        for (int a = g.nd - 1; a >= 0; a--) {
            x[a] = rem % g.shape[a];
            rem /= g.shape[a];
            doff += x[a] * g.dstr[a];
            ioff += x[a] * g.istr[a + 1];
        }
        if (g.dist) {
            double w = 0.0;
            for (int a = 0; a < g.nd; a++) {
                double t = __dmul_rn((double)((a == 0 ? -1 : 0) - x[a]), g.s[a]);
                w = __dadd_rn(w, __dmul_rn(t, t));
            }
            *(double *)(g.dist + doff) = __dsqrt_rn(w);
        }
        if (g.idx)
            for (int a = 0; a < g.nd; a++)
                fv_cu_edt_put(g, ioff + a * g.istr[0], a == 0 ? -1 : 0);
    }
}

/* The banded envelope path needs exact arithmetic (edt-band.h): every sampling
 * positive, an integer times one power of two 2^-e, and (3 nd + 1) Lm^3 < 2^52
 * with Lm the largest extent times sampling in units of 2^-e. */
static int
fv_cu_edt_exact(const fv_cu_edt_geom *g)
{
    int e;
    for (e = 0; e <= 60; e++) {
        int ok = 1;
        for (int a = 0; a < g->nd && ok; a++) {
            double v = ldexp(g->s[a], e);
            ok = g->s[a] > 0.0 && isfinite(v) && v == floor(v) && v < 9007199254740992.0;
        }
        if (ok)
            break;
    }
    if (e > 60)
        return 0;
    double lm = 0.0;
    for (int a = 0; a < g->nd; a++) {
        double v = (double)g->shape[a] * ldexp(g->s[a], e);
        if (v > lm)
            lm = v;
    }
    return (3.0 * g->nd + 1.0) * lm * lm * lm < 4503599627370496.0;
}

/* Band width (and segment length of axis 0): enough threads to fill an H100. */
static int64_t
fv_cu_edt_width(int64_t lines, int64_t n)
{
    for (int64_t w = 128; w > 16; w /= 2)
        if (lines * ((n + w - 1) / w) >= 135168)
            return w;
    return 16;
}

static unsigned
fv_cu_edt_blocks(int64_t threads)
{
    return (unsigned)((threads + FV_CU_MORPH_BLOCK - 1) / FV_CU_MORPH_BLOCK);
}

/* The paths ("cuda.distance_transform_edt"), in the planner's order:
 *   dist_local     distances only: the squared-distance planes, a local search of
 *                  FV_EDT_CAP steps, then the envelope where it left elements
 *                  unsettled. Measured on an H200 (bench/profile_gpu.py --only
 *                  edt; suite / blobs / sparse masks): 256^3 1.60 / 1.51 / 0.90 ms
 *                  on the feature planes, 0.61 / 1.21 / 1.04 here; 8192^2 3.84 /
 *                  3.62 / 2.29 on the feature planes, 1.72 / 3.40 / 1.91 here.
 *   dist_local2    the same with a reach of 2 steps (most elements unsettled:
 *                  for tests of the fallback)
 *   dist_envelope  the same with no local search (the envelope alone)
 *   banded_tr      the feature planes, banded, the last axis transposed
 *   banded         the feature planes, banded, the planes as they are
 *   unbanded       the feature planes, one thread per line after axis 0's
 *                  segments, always (1-d data; extents where banding is not exact)
 *   lines          one thread per line on every axis, always (reached only when
 *                  forced: for comparisons). */
typedef struct fv_cu_edt_plan {
    int exact;   /* nd > 1 and fv_cu_edt_exact: the banded passes apply */
    int donly;   /* distances without indices */
    int multi;   /* more than one line along the last axis */
} fv_cu_edt_plan;

static int
fv_cu_edt_donly_ok(const void *args, int device)
{
    const fv_cu_edt_plan *pa = (const fv_cu_edt_plan *)args;
    return pa->exact && pa->donly;
}
static int
fv_cu_edt_tr_ok(const void *args, int device)
{
    const fv_cu_edt_plan *pa = (const fv_cu_edt_plan *)args;
    return pa->exact && pa->multi;
}
static int
fv_cu_edt_banded_ok(const void *args, int device)
{
    return ((const fv_cu_edt_plan *)args)->exact;
}

enum {
    FV_CU_EDT_LOCAL,
    FV_CU_EDT_LOCAL2,
    FV_CU_EDT_ENVELOPE,
    FV_CU_EDT_BANDED_TR,
    FV_CU_EDT_BANDED,
    FV_CU_EDT_UNBANDED,
    FV_CU_EDT_LINES
};
FV__VARIANTS(fv_cu_edt_variants, "cuda.distance_transform_edt", {"dist_local", fv_cu_edt_donly_ok, NULL},
             {"dist_local2", fv_cu_edt_donly_ok, NULL}, {"dist_envelope", fv_cu_edt_donly_ok, NULL},
             {"banded_tr", fv_cu_edt_tr_ok, NULL}, {"banded", fv_cu_edt_banded_ok, NULL}, {"unbanded", NULL, NULL},
             {"lines", NULL, NULL})

/* The distances are C-contiguous doubles. */
static int
fv_cu_edt_dcont(const fv_cu_edt_geom *g)
{
    int64_t s = (int64_t)sizeof(double);
    for (int a = g->nd - 1; a >= 0; a--) {
        if (g->shape[a] > 1 && g->dstr[a] != s)
            return 0;
        s *= g->shape[a];
    }
    return 1;
}

/* The banded path's work arrays: lists (prv, nxt, swr at i * lines + L) and per
 * (line, band) heads, tails and last sites (maxlb entries each). */
typedef struct fv_cu_edt_band_tmp {
    int32_t *prv, *nxt, *hd;
    double *swr;
    int64_t maxlb;
} fv_cu_edt_band_tmp;

/* One axis (g->d, geometry set) on the banded path: build, merge levels, last sites,
 * prefix, query. */
static fv_status
fv_cu_edt_band(fv_cu_edt_geom *g, const int32_t *fin, int32_t *fout, const fv_cu_edt_band_tmp *bt,
               cudaStream_t stream)
{
    fv_status st;
    g->W = fv_cu_edt_width(g->lines, g->n);
    g->nb = (g->n + g->W - 1) / g->W;
    int32_t *hd = bt->hd, *tl = hd + bt->maxlb, *ll = tl + bt->maxlb;
    const unsigned bb = fv_cu_edt_blocks(g->lines * g->nb);
    fv_k_edt_band_build<<<bb, FV_CU_MORPH_BLOCK, 0, stream>>>(*g, fin, bt->prv, bt->nxt, bt->swr, hd, tl);
    if ((st = fv_cu_launch_status("edt band kernel launch")) != FV_OK)
        return st;
    for (int64_t span = 1; span < g->nb; span *= 2) {
        const int64_t pairs = (g->nb + 2 * span - 1) / (2 * span);
        fv_k_edt_band_merge<<<fv_cu_edt_blocks(g->lines * pairs), FV_CU_MORPH_BLOCK, 0, stream>>>(
            *g, bt->prv, bt->nxt, bt->swr, hd, tl, span);
        if ((st = fv_cu_launch_status("edt band kernel launch")) != FV_OK)
            return st;
    }
    fv_k_edt_band_last<<<bb, FV_CU_MORPH_BLOCK, 0, stream>>>(*g, bt->prv, ll);
    if ((st = fv_cu_launch_status("edt band kernel launch")) != FV_OK)
        return st;
    fv_k_edt_band_prefix<<<fv_cu_edt_blocks(g->lines), FV_CU_MORPH_BLOCK, 0, stream>>>(*g, ll);
    if ((st = fv_cu_launch_status("edt band kernel launch")) != FV_OK)
        return st;
    fv_k_edt_band_query<<<bb, FV_CU_MORPH_BLOCK, 0, stream>>>(*g, fin, fout, bt->prv, bt->nxt, bt->swr, hd, ll);
    return fv_cu_launch_status("edt band kernel launch");
}

/* Distances only, banded: the last axis first (fv_k_edt_last_*), then axes
 * 0 .. nd-2 on squared-distance planes. */
static fv_status
fv_cu_edt_dist_only(fv_context *ctx, fv_cu_exec *x, fv_cu_edt_geom *g, const uint8_t *fg, int *dflag, int *unres,
                    int cap)
{
    const int nd = g->nd;
    const int64_t nl = g->shape[nd - 1], linesl = g->N / nl, nseg = (nl + FV_EDT_SEG - 1) / FV_EDT_SEG;
    fv_array *gA = NULL, *gB = NULL, *prv = NULL, *nxt = NULL, *swr = NULL, *ht = NULL, *seg = NULL;
    fv_cu_edt_band_tmp bt;
    fv_status st;
    bt.maxlb = 0;
    for (int d = 0; d < nd - 1; d++) {
        int64_t lines = g->N / g->shape[d], w = fv_cu_edt_width(lines, g->shape[d]);
        int64_t lb = lines * ((g->shape[d] + w - 1) / w);
        if (lb > bt.maxlb)
            bt.maxlb = lb;
    }
    if ((st = fv_cu_morph_temp(ctx, x->device, FV_FLOAT64, g->N, &gA)) != FV_OK ||
        (nd > 2 && (st = fv_cu_morph_temp(ctx, x->device, FV_FLOAT64, g->N, &gB)) != FV_OK) ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_INT32, g->N, &prv)) != FV_OK ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_INT32, g->N, &nxt)) != FV_OK ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_FLOAT64, g->N, &swr)) != FV_OK ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_INT32, 3 * bt.maxlb, &ht)) != FV_OK ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_INT32, 2 * linesl * nseg, &seg)) != FV_OK)
        goto done;
    bt.prv = (int32_t *)prv->data;
    bt.nxt = (int32_t *)nxt->data;
    bt.swr = (double *)swr->data;
    bt.hd = (int32_t *)ht->data;
    {
        int32_t *first = (int32_t *)seg->data, *last = first + linesl * nseg;
        double *gin = (double *)gA->data, *gout = gB ? (double *)gB->data : NULL;
        const unsigned bs = fv_cu_edt_blocks(linesl * nseg * 32);   /* a warp per run */
        fv_k_edt_last_seg<<<bs, FV_CU_MORPH_BLOCK, 0, x->stream>>>(fg, first, last, linesl, nl, nseg);
        if ((st = fv_cu_launch_status("edt last-axis kernel launch")) != FV_OK)
            goto done;
        fv_k_edt_last_scan<<<fv_cu_edt_blocks(linesl * 32), FV_CU_MORPH_BLOCK, 0, x->stream>>>(first, last, linesl,
                                                                                               nseg, dflag);
        if ((st = fv_cu_launch_status("edt last-axis kernel launch")) != FV_OK)
            goto done;
        fv_k_edt_last_fill<<<bs, FV_CU_MORPH_BLOCK, 0, x->stream>>>(fg, gin, first, last, linesl, nl, nseg,
                                                                    g->s[nd - 1]);
        if ((st = fv_cu_launch_status("edt last-axis kernel launch")) != FV_OK)
            goto done;
        for (int d = 0; d < nd - 1; d++) {
            g->d = d;
            g->final = d == nd - 2;
            g->n = g->shape[d];
            g->inner = 1;
            for (int k = d + 1; k < nd; k++)
                g->inner *= g->shape[k];
            g->lines = g->N / g->n;
            g->ps = g->inner;
            g->tr = 0;
            g->gm = 1;
            g->gin = gin;
            g->gout = gout;
            g->guard = NULL;
            if (cap > 0) {   /* the local search; the envelope only where it did not settle */
                if (g->inner >= 32) {
                    const int64_t nrt = (g->inner + 31) / 32, npt = (g->n + FV_EDT_LTP - 1) / FV_EDT_LTP;
                    const int64_t nblk = g->N / (g->n * g->inner) * nrt * npt;
                    fv_k_edt_local_tile<<<(unsigned)nblk, FV_EDT_LBLOCK, 0, x->stream>>>(*g, unres + d, cap, nrt,
                                                                                          npt);
                } else {
                    fv_k_edt_local<<<fv_cu_edt_blocks(g->N), FV_CU_MORPH_BLOCK, 0, x->stream>>>(*g, unres + d, cap);
                }
                if ((st = fv_cu_launch_status("edt local kernel launch")) != FV_OK)
                    goto done;
                g->guard = unres + d;
            }
            st = fv_cu_edt_band(g, NULL, NULL, &bt, x->stream);
            g->guard = NULL;
            if (st != FV_OK)
                goto done;
            double *t = gin;
            gin = gout;
            gout = t;
        }
    }
done:
    fv_cu_morph_release(ctx, gA);
    fv_cu_morph_release(ctx, gB);
    fv_cu_morph_release(ctx, prv);
    fv_cu_morph_release(ctx, nxt);
    fv_cu_morph_release(ctx, swr);
    fv_cu_morph_release(ctx, ht);
    fv_cu_morph_release(ctx, seg);
    return st;
}

fv_status
fv_cu_edt(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "distance_transform_edt";
    const fv__distance_params *p = (const fv__distance_params *)a->params;
    const fv_array *fga = a->in;   /* the foreground (ops/morphology/distance.h) */
    fv_array *fA = NULL, *fB = NULL, *gsa = NULL, *swra = NULL, *flag = NULL;
    fv_array *nxa = NULL, *hta = NULL, *sega = NULL, *touta = NULL;
    fv_cu_exec x;
    fv_status st = FV_OK;
    fv_cu_edt_geom g;
    int entered = 0;
    cudaError_t e;

    ctx = fv__ctx(ctx);
    if (!p || p->ndim != a->in->ndim || !fv__distance_fg_ok(a->in))
        return fv_error_set(FV_EINTERNAL, name, "bad kernel parameters");
    memset(&g, 0, sizeof g);
    const int nd = p->ndim;
    g.nd = nd;
    g.N = fv_array_size(a->in);
    for (int d = 0; d < nd; d++) {
        g.shape[d] = a->in->shape[d];
        g.s[d] = p->sampling[d];
    }
    if (p->distances) {
        g.dist = p->distances->data;
        for (int d = 0; d < nd; d++)
            g.dstr[d] = p->distances->strides[d];
    }
    if (p->indices) {
        if (p->indices->device.type != FV_DEVICE_CUDA || p->indices->device.id != a->in->device.id)
            return fv_error_set(FV_EDEVICE, name, "indices are on another device");
        g.idx = p->indices->data;
        g.idx64 = p->indices->dtype == FV_INT64;
        for (int d = 0; d <= nd; d++)
            g.istr[d] = p->indices->strides[d];
    }
    if (g.N == 0)
        return FV_OK;
    /* the path (fv_cu_edt_variants) */
    const fv_cu_edt_plan pa = {nd > 1 && fv_cu_edt_exact(&g), g.dist && !g.idx, g.N / g.shape[nd - 1] > 1};
    const int path = fv__plan_index(&fv_cu_edt_variants, &pa, a->in->device.id);
    const int lines_only = path == FV_CU_EDT_LINES;
    const int banded = path <= FV_CU_EDT_BANDED;
    const int donly = path <= FV_CU_EDT_ENVELOPE;
    const int tr = path == FV_CU_EDT_BANDED_TR || (donly && pa.multi);
    const int cap = path == FV_CU_EDT_LOCAL ? FV_EDT_CAP : path == FV_CU_EDT_LOCAL2 ? 2 : 0;
    const int64_t tout_n = tr ? (g.dist ? 2 * g.N : 0) + (g.idx ? nd * g.N : 0) : 0;
    const int64_t M = g.N / g.shape[0];
    const int64_t S0 = fv_cu_edt_width(M, g.shape[0]), nseg = (g.shape[0] + S0 - 1) / S0;
    int64_t maxlb = 0;
    for (int d = 1; d < nd; d++) {
        int64_t lines = g.N / g.shape[d], w = fv_cu_edt_width(lines, g.shape[d]);
        int64_t lb = lines * ((g.shape[d] + w - 1) / w);
        if (lb > maxlb)
            maxlb = lb;
    }
    if ((st = fv_cu_begin(ctx, name, a, g.N, &x)) != FV_OK)
        return st;
    entered = 1;
    if (donly) {
        /* flags: any zero, then per axis "the local search left elements unsettled" */
        if ((st = fv_cu_morph_temp(ctx, x.device, FV_INT32, 1 + nd, &flag)) != FV_OK)
            goto done;
        int *dflag = (int *)flag->data;
        if ((e = cudaMemsetAsync(dflag, 0, sizeof(int) * (size_t)(1 + nd), x.stream)) != cudaSuccess) {
            st = fv__cuda_error("cudaMemsetAsync", e);
            goto done;
        }
        g.dcont = fv_cu_edt_dcont(&g);
        if ((st = fv_cu_edt_dist_only(ctx, &x, &g, (const uint8_t *)fga->data, dflag, dflag + 1,
                                      cap)) != FV_OK)
            goto done;
        fv_k_edt_nozero<<<x.grid, x.block, 0, x.stream>>>(g, dflag);
        st = fv_cu_launch_status("edt kernel launch");
        goto done;
    }
    {
        const int64_t planes = nd > 1 ? nd - 1 : 1;
        if ((st = fv_cu_morph_temp(ctx, x.device, FV_INT32, planes * g.N, &fA)) != FV_OK ||
            ((nd > 2 || tr) && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, planes * g.N, &fB)) != FV_OK) ||
            (tout_n && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, tout_n, &touta)) != FV_OK) ||
            (nd > 1 && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, g.N, &gsa)) != FV_OK) ||
            (nd > 1 && (st = fv_cu_morph_temp(ctx, x.device, FV_FLOAT64, g.N, &swra)) != FV_OK) ||
            (banded && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, g.N, &nxa)) != FV_OK) ||
            (banded && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, 3 * maxlb, &hta)) != FV_OK) ||
            (!lines_only && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, 2 * M * nseg, &sega)) != FV_OK) ||
            (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, 1, &flag)) != FV_OK)
            goto done;
    }
    {
        int *dflag = (int *)flag->data;
        const uint8_t *fg = (const uint8_t *)fga->data;
        int32_t *fin = (int32_t *)fA->data, *fout = fB ? (int32_t *)fB->data : NULL;
        if ((e = cudaMemsetAsync(dflag, 0, sizeof(int), x.stream)) != cudaSuccess) {
            st = fv__cuda_error("cudaMemsetAsync", e);
            goto done;
        }
        if (lines_only) {
            fv_k_edt_axis0<<<fv_cu_edt_blocks(M), FV_CU_MORPH_BLOCK, 0, x.stream>>>(fg, fin, g.shape[0], M, dflag);
        } else {
            int32_t *first = (int32_t *)sega->data, *last = first + M * nseg;
            const unsigned bs = fv_cu_edt_blocks(M * nseg);
            fv_k_edt_axis0_seg<<<bs, FV_CU_MORPH_BLOCK, 0, x.stream>>>(fg, first, last, g.shape[0], M, S0, nseg);
            if ((st = fv_cu_launch_status("edt axis-0 kernel launch")) != FV_OK)
                goto done;
            fv_k_edt_axis0_scan<<<fv_cu_edt_blocks(M), FV_CU_MORPH_BLOCK, 0, x.stream>>>(first, last, M, nseg, dflag);
            if ((st = fv_cu_launch_status("edt axis-0 kernel launch")) != FV_OK)
                goto done;
            fv_k_edt_axis0_fill<<<bs, FV_CU_MORPH_BLOCK, 0, x.stream>>>(fg, fin, first, last, g.shape[0], M, S0,
                                                                       nseg);
        }
        if ((st = fv_cu_launch_status("edt axis-0 kernel launch")) != FV_OK)
            goto done;
        if (nd == 1) {
            fv_k_edt_write1d<<<x.grid, x.block, 0, x.stream>>>(fin, g, dflag);
            if ((st = fv_cu_launch_status("edt kernel launch")) != FV_OK)
                goto done;
        }
        fv_cu_edt_band_tmp bt;
        if (banded) {
            bt.prv = (int32_t *)gsa->data;
            bt.nxt = (int32_t *)nxa->data;
            bt.swr = (double *)swra->data;
            bt.hd = (int32_t *)hta->data;
            bt.maxlb = maxlb;
        }
        for (int d = 1; d < nd; d++) {
            g.d = d;
            g.final = d == nd - 1;
            g.n = g.shape[d];
            g.inner = 1;
            for (int k = d + 1; k < nd; k++)
                g.inner *= g.shape[k];
            g.lines = g.N / g.n;
            g.ps = g.inner;
            g.tr = 0;
            if (tr && g.final) {   /* the planes (lines, n) -> (n, lines) */
                const int64_t tn = (g.n + FV_EDT_TT - 1) / FV_EDT_TT, tiles = tn * ((g.lines + FV_EDT_TT - 1) / FV_EDT_TT);
                fv_k_edt_transpose<<<(unsigned)(tiles * d), dim3(FV_EDT_TT, 8), 0, x.stream>>>(fin, fout, g.lines, g.n,
                                                                                              g.N, tn, tiles);
                if ((st = fv_cu_launch_status("edt transpose kernel launch")) != FV_OK)
                    goto done;
                int32_t *t = fin;
                fin = fout;
                fout = t;
                g.tr = 1;
                g.ps = g.lines;
                g.tdist = g.dist ? (double *)touta->data : NULL;
                g.tidx = g.idx ? (int32_t *)touta->data + (g.dist ? 2 * g.N : 0) : NULL;
            }
            if (!banded) {
                fv_k_edt_axis<<<fv_cu_edt_blocks(g.lines), FV_CU_MORPH_BLOCK, 0, x.stream>>>(
                    g, fin, fout, (int32_t *)gsa->data, (double *)swra->data);
                if ((st = fv_cu_launch_status("edt kernel launch")) != FV_OK)
                    goto done;
            } else {
                if ((st = fv_cu_edt_band(&g, fin, fout, &bt, x.stream)) != FV_OK)
                    goto done;
                if (g.tr) {
                    const int64_t tn = (g.n + FV_EDT_TT - 1) / FV_EDT_TT;
                    const int64_t tiles = tn * ((g.lines + FV_EDT_TT - 1) / FV_EDT_TT);
                    fv_k_edt_untranspose<<<(unsigned)tiles, dim3(FV_EDT_TT, 8), 0, x.stream>>>(g, tn, dflag);
                    if ((st = fv_cu_launch_status("edt transpose kernel launch")) != FV_OK)
                        goto done;
                }
            }
            int32_t *t = fin;
            fin = fout;
            fout = t;
        }
        fv_k_edt_nozero<<<x.grid, x.block, 0, x.stream>>>(g, dflag);
        st = fv_cu_launch_status("edt kernel launch");
    }
done:
    fv_cu_morph_release(ctx, fA);
    fv_cu_morph_release(ctx, fB);
    fv_cu_morph_release(ctx, gsa);
    fv_cu_morph_release(ctx, swra);
    fv_cu_morph_release(ctx, nxa);
    fv_cu_morph_release(ctx, hta);
    fv_cu_morph_release(ctx, sega);
    fv_cu_morph_release(ctx, touta);
    fv_cu_morph_release(ctx, flag);
    if (entered)
        fv_cu_end(&x);
    return st;
}

FV_KERNEL(EDT, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_edt);
