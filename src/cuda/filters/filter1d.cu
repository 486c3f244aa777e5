/* CUDA kernels of FV__OP_FILTER1D: one 1-D pass along an axis (correlate1d,
 * uniform_filter1d, minimum_filter1d, maximum_filter1d), scipy.ndimage's results.
 *
 * Geometry: the axis, one "cross" direction (the other axis, after merging the
 * contiguous ones, with the smallest input stride) and the rest as a batch.
 *
 * Paths:
 *  - tile kernel (fv_k_flt_tile): a block loads a tile of lines x (outputs + halo)
 *    into shared memory, coalesced along the axis when the axis is the densest
 *    direction (ROW: one warp or the whole block per line), else along the cross
 *    direction (COL: 32 lines side by side, warps down the axis), converting each
 *    value once (cval past the edges) to the accumulator type. Correlation sums
 *    in scipy's order (symmetric / antisymmetric / general), in double without
 *    fused multiply-adds (so integer outputs match scipy bit for bit) or in
 *    float: for float32 outputs of float32 and 8/16-bit data, where float is
 *    exact (fv_cu_flt_float_exact), and for 8-bit data with other weights into integer
 *    outputs, checked against an error bound with the uncertain outputs summed
 *    again in double (fv_cu_flt_float_checked, fv_d_win_check). min/max: direct for
 *    short windows, else log2(size) doubling passes (van Herk's bound without
 *    the serial prefix scans), ties going to the later element as in scipy's
 *    running minimum. 32-bit index math when the byte extents allow.
 *  - direct kernel (fv_k_flt_direct): one output per thread from global memory,
 *    64-bit, for windows too long for shared memory.
 *  - uniform filter: scipy 1.17 keeps a running sum (sum += new - old) and
 *    divides it per output. For data of up to 32-bit integers (and an integral
 *    cval) every such sum is exact in double, so the tile kernel's direct window
 *    sum / size is bit for bit scipy's. Into integer (or bool) outputs, other
 *    data runs scipy's recurrence itself, one thread per line, so that the
 *    truncation sees scipy's double. Float outputs of other data take the tile
 *    kernel's window sum (within rounding of scipy's, which carries its
 *    accumulated rounding), except on lines of float data with NaN or inf,
 *    where the running sum's NaN tail is scipy's result: those lines are
 *    flagged and redone serially.
 *  - min/max over float data with NaN: scipy's result then depends on its
 *    ascending-minima deque; lines where the tile kernel saw a NaN (flagged)
 *    are redone by fv_k_flt_minmax_exact, which runs that deque per line.
 *  - two passes fused: filter-sep2.cu (FV__OP_SEP2) runs a 2-pass chain in one
 *    kernel with fv_k_flt_tile2's arithmetic; where it may differ (NaN / inf lines)
 *    it queues this file's passes behind it through fv__cuda_filter1d_guarded,
 *    whose kernels return at once unless the fused kernel set the guard flag.
 *    FOVEA_SEP_UNFUSED=1 keeps the pass-by-pass chain. */
#include <stdlib.h>

#include "filters-common.cuh"
#include "core/plan.h"

/* the sliding window's kinds (filters-common.cuh) */
enum {
    FV_CU_FLT_AUTO = FV_CU_WIN_AUTO,   /* correlation weights on the device: the kernels classify them */
    FV_CU_FLT_CORR = FV_CU_WIN_CORR,
    FV_CU_FLT_CORR_SYM = FV_CU_WIN_SYM,
    FV_CU_FLT_CORR_ANTI = FV_CU_WIN_ANTI,
    FV_CU_FLT_USUM = FV_CU_WIN_USUM,
    FV_CU_FLT_MIN = FV_CU_WIN_MIN,
    FV_CU_FLT_MAX = FV_CU_WIN_MAX
};

#define FV_CU_FLT_THREADS 256
#define FV_CU_FLT_MM_DIRECT 24          /* min/max windows up to this many taps: direct */
#define FV_CU_FLT_SMEM_BUDGET (160 * 1024)
#define FV_CU_FLT_WINLINE 128           /* correlation weights up to this many ride in the kernel parameters */

/* Line geometry in the kernel's index type (signed; byte strides). */
template <typename IT> struct fv_cu_flt_g1 {
    IT n, s_in, s_out;       /* axis length and strides */
    IT nc, c_in, c_out;      /* cross extent and strides */
    int nb;                  /* batch axes */
    IT bshape[FV_MAX_NDIM], bs_in[FV_MAX_NDIM], bs_out[FV_MAX_NDIM];
};

template <typename IT> struct fv_cu_flt_targs {
    const char *in;
    char *out;
    const double *w;          /* correlation weights on the device (size > FV_CU_FLT_WINLINE, or the caller's), or NULL */
    int64_t wst;              /* w's stride in elements (the caller's may be reversed or strided) */
    uint8_t *nanflags;        /* min/max of float data: one byte per line, or NULL */
    const int *guard;         /* non-NULL: the kernels do nothing unless *guard != 0 */
    fv_cu_flt_g1<IT> g;
    IT left, size;            /* output i reads [i - left, i - left + size) */
    IT ta;                    /* outputs per tile along the axis */
    int tcl2;                 /* log2(lines per tile) */
    int kind, mode, odt, dbl;
    int vec;                  /* fv_k_flt_tile2: 16-byte loads for interior tiles (the layout allows them) */
    int vst;                  /* fv_k_flt_tile2 ROW: 16-byte stores of whole lines (the layout and dtype allow them) */
    float chk;                /* fv_k_flt_tile2, 8-bit data: the checked float path's bound (fv_d_win_check), or 0;
                               * -vmax: the kernel bounds device weights itself (fv_d_win_chk_dev) */
    double cval;
    int64_t nta, ntc, ntiles; /* tiles along the axis, along the cross direction, in all */
    double wi[FV_CU_FLT_WINLINE];   /* the weights, when they fit here */
};

template <typename IT>
__device__ __forceinline__ void
fv_d_flt_batch_off(const fv_cu_flt_g1<IT> &g, IT b, IT &oi, IT &oo)
{
    oi = 0;
    oo = 0;
    for (int d = g.nb - 1; d >= 0; d--) {
        IT q = b / g.bshape[d];
        IT x = b - q * g.bshape[d];
        b = q;
        oi += x * g.bs_in[d];
        oo += x * g.bs_out[d];
    }
}

/* min/max of an earlier and a later value; ties (and -0 vs 0) go to the later */
template <typename ACC>
__device__ __forceinline__ ACC
fv_d_flt_comb(ACC earlier, ACC later, bool mn)
{
    return (mn ? later <= earlier : later >= earlier) ? later : earlier;
}

/* One output from the window r[0], r[ES], ..., r[(size-1)*ES] (shared memory). */
template <typename ACC, int ES>
__device__ __forceinline__ ACC
fv_d_flt_window(const ACC *r, const ACC *w, int kind, int size)
{
    ACC t;
    switch (kind) {
    case FV_CU_FLT_CORR_SYM: {
        int s1 = size >> 1;
        t = fv_d_flt_mul(r[s1 * ES], w[s1]);
        for (int j = 0; j < s1; j++)
            t = fv_d_flt_add(t, fv_d_flt_mul(fv_d_flt_add(r[j * ES], r[(size - 1 - j) * ES]), w[j]));
        return t;
    }
    case FV_CU_FLT_CORR_ANTI: {
        int s1 = size >> 1;
        t = fv_d_flt_mul(r[s1 * ES], w[s1]);
        for (int j = 0; j < s1; j++)
            t = fv_d_flt_add(t, fv_d_flt_mul(fv_d_flt_sub(r[j * ES], r[(size - 1 - j) * ES]), w[j]));
        return t;
    }
    case FV_CU_FLT_CORR:
        t = fv_d_flt_mul(r[(size - 1) * ES], w[size - 1]);
        for (int j = 0; j < size - 1; j++)
            t = fv_d_flt_add(t, fv_d_flt_mul(r[j * ES], w[j]));
        return t;
    case FV_CU_FLT_USUM:
        t = 0;
        for (int j = 0; j < size; j++)
            t += r[j * ES];
        return t / (ACC)size;
    default: {
        bool mn = kind == FV_CU_FLT_MIN;
        t = r[0];
        for (int j = 1; j < size; j++)
            t = fv_d_flt_comb(t, r[j * ES], mn);
        return t;
    }
    }
}

template <typename T, typename ACC, typename IT, bool ROW>
__global__ void __launch_bounds__(FV_CU_FLT_THREADS)
fv_k_flt_tile(const __grid_constant__ fv_cu_flt_targs<IT> p)   /* read in place: no local copy for the batch loops */
{
    if (p.guard && !*p.guard)
        return;
    extern __shared__ double fv_d_flt_smem_d[];
    ACC *w = (ACC *)fv_d_flt_smem_d;
    const int size = (int)p.size;
    const int kind = p.kind != FV_CU_FLT_AUTO ? p.kind : fv_d_win_kind_dev(p.w, p.wst, size);
    const int nw = kind <= FV_CU_FLT_CORR_ANTI ? size : 0;
    const IT TA = p.ta, L = TA + p.size - 1;
    const int TC = 1 << p.tcl2;
    ACC *t0 = w + ((nw + 1) & ~1);
    ACC *t1 = t0 + (size_t)TC * (size_t)L;
    const ACC cv = (ACC)p.cval;
    /* lines to redo exactly: min/max with NaN, uniform with NaN or inf */
    const bool track = fv_cu_flt_is_float<T>::value && p.nanflags != NULL;
    const bool mn = kind == FV_CU_FLT_MIN, us = kind == FV_CU_FLT_USUM;
    const int tid = threadIdx.x;
    /* ROW: lpl threads per line, line c = tid / lpl. COL: lane = cross, r0 = row */
    const int lsh = 8 - p.tcl2, lpl = 1 << lsh;
    const int lane = ROW ? (tid & (lpl - 1)) : (tid & 31);
    const int cl = ROW ? (tid >> lsh) : 0;
    const int r0 = ROW ? 0 : (tid >> 5);

    if (p.w) {
        for (int i = tid; i < nw; i += FV_CU_FLT_THREADS)
            w[i] = (ACC)p.w[(int64_t)i * p.wst];
    } else if (tid == 0) {   /* constant offsets into the parameters */
#pragma unroll
        for (int i = 0; i < FV_CU_FLT_WINLINE; i++) {
            if (i >= nw)   /* early out: a tile's worth of time when blocks take one tile */
                break;
            w[i] = (ACC)p.wi[i];
        }
    }

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int64_t tq = tile / p.nta;
        IT ia = (IT)(tile - tq * p.nta);
        int64_t b = tq / p.ntc;
        IT ic = (IT)(tq - b * p.ntc);
        IT bi, bo;
        fv_d_flt_batch_off(p.g, (IT)b, bi, bo);
        const IT a0 = ia * TA, c0 = ic * (IT)TC;
        const IT cc = c0 + (ROW ? cl : lane);
        const bool okc = cc < p.g.nc;
        const IT ea = p.g.n - a0 < TA ? p.g.n - a0 : TA;   /* outputs in this tile */
        const char *src = p.in + bi + cc * p.g.c_in;

        __syncthreads();   /* the previous tile's readers are done */
        if (okc) {
            ACC *dst = ROW ? t0 + (size_t)cl * (size_t)L : t0 + lane;
            const IT step = ROW ? (IT)lpl : (IT)8;
            const IT es = ROW ? 1 : 32;
            bool nan = false;
            for (IT a = ROW ? (IT)lane : (IT)r0; a < L; a += step) {
                IT pos = a0 + a - p.left;
                ACC x;
                if (pos >= 0 && pos < p.g.n) {
                    x = (ACC)__ldg((const T *)(src + pos * p.g.s_in));
                } else {
                    IT e = fv_d_flt_extend<IT>(pos, p.g.n, p.mode);
                    x = e < 0 ? cv : (ACC)__ldg((const T *)(src + e * p.g.s_in));
                }
                if (track && fv_d_win_odd(x, us))
                    nan = true;
                dst[a * es] = x;
            }
            if (nan)
                p.nanflags[b * (int64_t)p.g.nc + (int64_t)cc] = 1;
        }
        __syncthreads();

        const ACC *src_t = t0;
        int P = 1;
        if (p.dbl) {   /* min/max over [i, i + P) for P = 2, 4, ... <= size */
            ACC *a_buf = t0, *b_buf = t1;
            for (; 2 * P <= size; P *= 2) {
                IT last = L - 2 * P;
                if (okc) {
                    if (ROW) {
                        const ACC *s = a_buf + (size_t)cl * (size_t)L;
                        ACC *d = b_buf + (size_t)cl * (size_t)L;
                        for (IT i = lane; i <= last; i += lpl)
                            d[i] = fv_d_flt_comb(s[i], s[i + P], mn);
                    } else {
                        for (IT i = r0; i <= last; i += 8)
                            b_buf[i * 32 + lane] = fv_d_flt_comb(a_buf[i * 32 + lane], a_buf[(i + P) * 32 + lane], mn);
                    }
                }
                __syncthreads();
                ACC *tmp = a_buf;
                a_buf = b_buf;
                b_buf = tmp;
            }
            src_t = a_buf;
        }

        if (!okc)
            continue;
        char *dst = p.out + bo + cc * p.g.c_out;
        if (ROW) {
            const ACC *r = src_t + (size_t)cl * (size_t)L;
            for (IT a = lane; a < ea; a += lpl) {
                ACC v = p.dbl ? fv_d_flt_comb(r[a], r[a + size - P], mn) : fv_d_flt_window<ACC, 1>(r + a, w, kind, size);
                fv_d_flt_store(dst + (a0 + a) * p.g.s_out, p.odt, v);
            }
        } else {
            const ACC *r = src_t + lane;
            for (IT a = r0; a < ea; a += 8) {
                ACC v = p.dbl ? fv_d_flt_comb(r[a * 32], r[(a + size - P) * 32], mn)
                              : fv_d_flt_window<ACC, 32>(r + a * 32, w, kind, size);
                fv_d_flt_store(dst + (a0 + a) * p.g.s_out, p.odt, v);
            }
        }
    }
}


/* ---- the register-blocked tile kernel --------------------------------------------
 * A tile of 32 lines x (TA outputs + halo) sits in shared memory as [position][line]
 * with a pitch of 33 (loads along the axis and reads across lines are both free
 * of bank conflicts). Each thread takes one line (its lane) and R consecutive
 * outputs (fv_cu_flt_r: 8 in float, 4 in double), sliding a window of R values through
 * registers: per tap one value and one weight come from shared memory for R
 * outputs. Sums keep scipy's order (general: the last tap first, then the others
 * in order; symmetric / antisymmetric: the centre, then the pairs from the
 * outside in; uniform, min, max: element 0 first, then 1, 2, ...). Results go
 * straight to global memory when lanes are adjacent lines (COL), or back
 * through shared memory to be written along the lines (ROW).
 *
 * Interior tiles (no boundary extension, all 32 lines present) of layouts whose
 * tile rows (COL: the 32 lines at one position, c_in = the element size) or
 * lines (ROW: s_in = the element size) are contiguous, with the other stride a
 * multiple of 16 bytes (p.vec), load 16-byte chunks, FV_CU_FLT_LU in flight per
 * thread, and convert them into the shared tile; only chunks made entirely of
 * elements of the same row / line are read; chunks whole inside the tile are
 * stored without a test per element. ROW tiles whose output is contiguous along
 * the lines (float or any dtype up to 32 bits) store whole 16-byte chunks
 * (p.vst, fv_d_flt_vstore_rows). FOVEA_F1D_NOVEC=1: element by element (timing
 * comparisons). */
#define FV_CU_FLT_PITCH 33
#define FV_CU_FLT_LU 2   /* 16-byte loads in flight per thread (interior tiles) */

/* ROW tiles: whole lines out as 16-byte chunks, line cr's output a from
 * t0[a * FV_CU_FLT_PITCH + cr], cast as fv_d_flt_put casts. G = 32 / per threads take
 * consecutive chunks of one line: a warp's shared reads fall in distinct banks
 * (per * (chunk) + line spans 32 values) and its stores fill whole sectors. */
template <typename O, typename ACC, typename IT>
__device__ __forceinline__ void
fv_d_flt_vstore_rows(O *, const ACC *t0, char *org, IT c_out, int ta, int tid)
{
    const int per = 16 / (int)sizeof(O), G = 32 / per, nck = ta / per;
    const int slot = tid / G;   /* G threads per slot, FV_CU_FLT_THREADS / G slots */
    auto chunk = [&](int cr, int k) {
        const ACC *sp = t0 + k * per * FV_CU_FLT_PITCH + cr;
        union {
            uint4 v;
            O e[16 / sizeof(O)];
        } u;
#pragma unroll
        for (int i = 0; i < 16 / (int)sizeof(O); i++)
            u.e[i] = fv_d_flt_caster<O>::c(sp[i * FV_CU_FLT_PITCH]);
        *(uint4 *)(org + (IT)cr * c_out + k * 16) = u.v;
    };
    if (G <= 8) {   /* 8 / G slots per line: a thread keeps its line, chunks 8 apart */
        const int cr = slot & 31;
        for (int k = tid % G + G * (slot >> 5); k < nck; k += 8)
            chunk(cr, k);
    } else {        /* 16 slots: a thread takes two lines */
        for (int cr = slot; cr < 32; cr += FV_CU_FLT_THREADS / G)
            for (int k = tid % G; k < nck; k += G)
                chunk(cr, k);
    }
}
template <typename ACC, typename IT>
__device__ __forceinline__ void
fv_d_flt_vstore_rows(void *, const ACC *, char *, IT, int, int)
{
}

/* Outputs per thread and slide: 8 in float, 4 in double (registers). */
template <typename ACC> struct fv_cu_flt_r { static const int value = sizeof(ACC) == 4 ? 8 : 4; };

/* Element i (a constant after unrolling) of a 16-byte chunk, from registers. */
template <typename T>
__device__ __forceinline__ T
fv_d_flt_elem(const uint4 &v, int i)
{
    const int bo = i * (int)sizeof(T);
    const unsigned q = bo < 4 ? v.x : bo < 8 ? v.y : bo < 12 ? v.z : v.w;
    if (sizeof(T) == 8) {
        const unsigned hi = bo < 8 ? v.y : v.w;
        const unsigned long long u = ((unsigned long long)hi << 32) | q;
        T x;
        memcpy(&x, &u, 8);
        return x;
    }
    const unsigned s = q >> ((bo & 3) * 8);
    if (sizeof(T) == 4) {
        T x;
        memcpy(&x, &s, 4);
        return x;
    }
    return (T)s;   /* 8 / 16-bit: the low bits (two's complement for the signed types) */
}

template <typename T, typename ACC, typename IT, bool ROW>
__global__ void __launch_bounds__(FV_CU_FLT_THREADS, (sizeof(ACC) == 4 ? 4 : 3) - (sizeof(IT) == 8))
fv_k_flt_tile2(const __grid_constant__ fv_cu_flt_targs<IT> p)
{
    if (p.guard && !*p.guard)
        return;
    extern __shared__ double fv_d_flt_smem_d[];
    const int size = (int)p.size;
    const int kind = p.kind != FV_CU_FLT_AUTO ? p.kind : fv_d_win_kind_dev(p.w, p.wst, size);
    const int nw = kind <= FV_CU_FLT_CORR_ANTI ? size : 0;
    /* the checked float path: the double weights first, for the outputs summed again */
    const bool chk = sizeof(T) == 1 && sizeof(ACC) == 4 && p.chk != 0.0f;
    const float chk_e = !chk || p.chk > 0.0f ? p.chk : fv_d_win_chk_dev(p.w, p.wst, size, kind, -(double)p.chk);
    double *wd = fv_d_flt_smem_d;
    ACC *w = (ACC *)(fv_d_flt_smem_d + (chk ? nw : 0));
    const IT TA = p.ta, L = TA + p.size - 1;
    ACC *t0 = w + ((nw + 1) & ~1);
    const ACC cv = (ACC)p.cval;
    const bool track = fv_cu_flt_is_float<T>::value && p.nanflags != NULL;
    const bool us = kind == FV_CU_FLT_USUM;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int R = fv_cu_flt_r<ACC>::value, M = 128 / (8 * R);   /* TA <= 128 outputs: M slides per thread */
    const int ES = (int)sizeof(T), PER = 16 / ES;          /* elements per 16-byte chunk */

    if (p.w) {
        for (int i = tid; i < nw; i += FV_CU_FLT_THREADS) {
            w[i] = (ACC)p.w[(int64_t)i * p.wst];
            if (chk)
                wd[i] = p.w[(int64_t)i * p.wst];
        }
    } else if (tid == 0) {
#pragma unroll
        for (int i = 0; i < FV_CU_FLT_WINLINE; i++) {
            if (i >= nw)
                break;
            w[i] = (ACC)p.wi[i];
            if (chk)
                wd[i] = p.wi[i];
        }
    }

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int64_t tq = tile / p.nta;
        IT ia = (IT)(tile - tq * p.nta);
        int64_t b = tq / p.ntc;
        IT ic = (IT)(tq - b * p.ntc);
        IT bi, bo;
        fv_d_flt_batch_off(p.g, (IT)b, bi, bo);
        const IT a0 = ia * TA, c0 = ic * (IT)32;
        const IT ea = p.g.n - a0 < TA ? p.g.n - a0 : TA;
        uint8_t *flags = track ? p.nanflags + b * (int64_t)p.g.nc + (int64_t)c0 : NULL;

        /* an interior tile of a vector layout: the 16-byte chunks covering the
         * tile's rows (COL) / lines (ROW), all with the same misalignment offb */
        bool vec = false;
        int offb = 0, nch = 0;
        const char *vb = NULL;
        if (p.vec && c0 + 32 <= p.g.nc) {
            const IT lo = a0 - p.left;
            if (lo >= 0 && lo + L <= p.g.n) {
                if (ROW) {
                    const char *first = p.in + bi + c0 * p.g.c_in + lo * (IT)ES;
                    offb = (int)((uintptr_t)first & 15);
                    nch = (offb + (int)L * ES + 15) >> 4;
                    vec = lo * (IT)ES >= (IT)offb && lo * (IT)ES - (IT)offb + (IT)nch * 16 <= p.g.n * (IT)ES;
                    vb = first - offb;
                } else {
                    const char *first = p.in + bi + lo * p.g.s_in + c0 * (IT)ES;
                    offb = (int)((uintptr_t)first & 15);
                    nch = (offb + 32 * ES + 15) >> 4;
                    vec = c0 * (IT)ES >= (IT)offb && c0 * (IT)ES - (IT)offb + (IT)nch * 16 <= p.g.nc * (IT)ES;
                    vb = first - offb;
                }
            }
        }

        __syncthreads();
        if (vec && !ROW) {
            /* task t = (row a, chunk k), row-major: a warp's shared stores fall in distinct banks */
            const int ntask = (int)L * nch, ofs = offb / ES;
            const float inv = 1.0f / (float)nch;
            for (int tb = 0; tb < ntask; tb += FV_CU_FLT_THREADS * FV_CU_FLT_LU) {
                uint4 v[FV_CU_FLT_LU];
                int ra[FV_CU_FLT_LU], kk[FV_CU_FLT_LU];
#pragma unroll
                for (int u = 0; u < FV_CU_FLT_LU; u++) {   /* all loads first: FV_CU_FLT_LU chunks in flight */
                    const int t = tb + u * FV_CU_FLT_THREADS + tid;
                    ra[u] = -1;
                    kk[u] = 0;
                    if (t < ntask) {
                        ra[u] = fv_d_win_div(t, inv);
                        kk[u] = t - ra[u] * nch;
                        v[u] = __ldg((const uint4 *)(vb + (IT)ra[u] * p.g.s_in + kk[u] * 16));
                    }
                }
#pragma unroll
                for (int u = 0; u < FV_CU_FLT_LU; u++) {
                    if (ra[u] < 0)
                        continue;
                    ACC *row = t0 + ra[u] * FV_CU_FLT_PITCH;
                    const int cb = kk[u] * PER - ofs;   /* the chunk's first line */
                    if (cb >= 0 && cb + PER <= 32 && !track) {   /* whole inside: no test per element */
#pragma unroll
                        for (int i = 0; i < PER; i++)
                            row[cb + i] = fv_d_flt_cv<ACC>(fv_d_flt_elem<T>(v[u], i));
                        continue;
                    }
#pragma unroll
                    for (int i = 0; i < PER; i++) {
                        const int cr = cb + i;
                        if (cr >= 0 && cr < 32) {
                            const ACC x = fv_d_flt_cv<ACC>(fv_d_flt_elem<T>(v[u], i));
                            if (track && fv_d_win_odd(x, us))
                                flags[cr] = 1;   /* benign: every writer stores 1 */
                            row[cr] = x;
                        }
                    }
                }
            }
        } else if (vec) {
            /* task t: chunk kl = t % KC of a group of KC, line cr = (t / KC) % 32, group t / (32 KC):
             * a warp takes 32 / KC lines x KC chunks, which fall in distinct banks */
            const int KC = (sizeof(ACC) == 4 ? 32 : 16) / PER > 1 ? (sizeof(ACC) == 4 ? 32 : 16) / PER : 1;
            const int LKC = KC == 1 ? 0 : KC == 2 ? 1 : KC == 4 ? 2 : KC == 8 ? 3 : 4;
            const int ntask = ((nch + KC - 1) >> LKC) << (LKC + 5), ofs = offb / ES;
            for (int tb = 0; tb < ntask; tb += FV_CU_FLT_THREADS * FV_CU_FLT_LU) {
                uint4 v[FV_CU_FLT_LU];
                int cl[FV_CU_FLT_LU], kk[FV_CU_FLT_LU];
#pragma unroll
                for (int u = 0; u < FV_CU_FLT_LU; u++) {
                    const int t = tb + u * FV_CU_FLT_THREADS + tid;
                    cl[u] = (t >> LKC) & 31;
                    kk[u] = ((t >> (LKC + 5)) << LKC) + (t & (KC - 1));
                    if (t < ntask && kk[u] < nch)
                        v[u] = __ldg((const uint4 *)(vb + (IT)cl[u] * p.g.c_in + kk[u] * 16));
                    else
                        kk[u] = -1;
                }
#pragma unroll
                for (int u = 0; u < FV_CU_FLT_LU; u++) {
                    if (kk[u] < 0)
                        continue;
                    const int ab = kk[u] * PER - ofs;   /* the chunk's first position */
                    if (ab >= 0 && ab + PER <= (int)L && !track) {   /* whole inside: no test per element */
                        ACC *d = t0 + ab * FV_CU_FLT_PITCH + cl[u];
#pragma unroll
                        for (int i = 0; i < PER; i++)
                            d[i * FV_CU_FLT_PITCH] = fv_d_flt_cv<ACC>(fv_d_flt_elem<T>(v[u], i));
                        continue;
                    }
                    bool nan = false;
#pragma unroll
                    for (int i = 0; i < PER; i++) {
                        const int a = ab + i;
                        if (a >= 0 && a < (int)L) {
                            const ACC x = fv_d_flt_cv<ACC>(fv_d_flt_elem<T>(v[u], i));
                            if (track && fv_d_win_odd(x, us))
                                nan = true;
                            t0[a * FV_CU_FLT_PITCH + cl[u]] = x;
                        }
                    }
                    if (nan)
                        flags[cl[u]] = 1;
                }
            }
        } else {
            /* element by element: ROW walks along each line (warp per line), COL across lines (lane per line) */
            for (int cr = ROW ? warp : lane; cr < 32; cr += ROW ? 8 : 32) {
                const IT cc = c0 + cr;
                if (cc >= p.g.nc)
                    continue;
                const char *src = p.in + bi + cc * p.g.c_in;
                bool nan = false;
#pragma unroll 4
                for (IT a = ROW ? (IT)lane : (IT)warp; a < L; a += ROW ? 32 : 8) {
                    IT pos = a0 + a - p.left;
                    ACC x;
                    if (pos >= 0 && pos < p.g.n) {
                        x = (ACC)__ldg((const T *)(src + pos * p.g.s_in));
                    } else {
                        IT e = fv_d_flt_extend<IT>(pos, p.g.n, p.mode);
                        x = e < 0 ? cv : (ACC)__ldg((const T *)(src + e * p.g.s_in));
                    }
                    if (track && fv_d_win_odd(x, us))
                        nan = true;
                    t0[a * FV_CU_FLT_PITCH + cr] = x;
                }
                if (nan)
                    flags[cr] = 1;
            }
        }
        __syncthreads();

        /* compute: lane = line, R consecutive outputs per slide */
        ACC res[M][R];
        const ACC *col = t0 + lane;
#pragma unroll
        for (int m = 0; m < M; m++) {
            const int as = (m * 8 + warp) * R;
            if ((IT)as >= TA)
                break;
            fv_d_win_slide<ACC, R>(col + as * FV_CU_FLT_PITCH, FV_CU_FLT_PITCH, w, kind, size, res[m]);
        }
        if (chk)   /* the uncertain outputs of the checked float sums, in one branch per tile */
            fv_d_win_check<M, R>(res, col, FV_CU_FLT_PITCH, warp * R, (int)TA, wd, kind, size, chk_e);
        if (!ROW) {   /* lanes are adjacent lines: store directly */
            const IT cc = c0 + lane;
            if (cc < p.g.nc) {
#pragma unroll
                for (int m = 0; m < M; m++) {
                    const int as = (m * 8 + warp) * R;
                    if ((IT)as >= TA)
                        break;
                    char *dst = p.out + bo + cc * p.g.c_out + (a0 + (IT)as) * p.g.s_out;
                    const IT so = p.g.s_out;
                    const ACC(&rm)[R] = res[m];
                    fv_d_flt_odt_run(p.odt, [&](auto tag) {
#pragma unroll
                        for (int k = 0; k < R; k++)
                            if ((IT)(as + k) < ea)
                                fv_d_flt_put(tag, dst + (IT)k * so, p.odt, rm[k]);
                    });
                }
            }
        }
        if (ROW) {   /* back through shared memory, then along the lines */
            __syncthreads();
#pragma unroll
            for (int m = 0; m < M; m++) {
                const int as = (m * 8 + warp) * R;
                if ((IT)as >= TA)
                    break;
#pragma unroll
                for (int k = 0; k < R; k++)
                    t0[(as + k) * FV_CU_FLT_PITCH + lane] = res[m][k];
            }
            __syncthreads();
            char *org = p.out + bo + c0 * p.g.c_out + a0 * p.g.s_out;
            if (p.vst && ea == TA && c0 + 32 <= p.g.nc && ((uintptr_t)org & 15) == 0) {
                fv_d_flt_odt_run(p.odt, [&](auto tag) { fv_d_flt_vstore_rows(tag, t0, org, p.g.c_out, (int)TA, tid); });
            } else {
                for (int cr = warp; cr < 32; cr += 8) {
                    const IT cc = c0 + cr;
                    if (cc >= p.g.nc)
                        continue;
                    char *dst = p.out + bo + cc * p.g.c_out;
                    fv_d_flt_odt_run(p.odt, [&](auto tag) {
                        for (IT a = lane; a < ea; a += 32)
                            fv_d_flt_put(tag, dst + (a0 + a) * p.g.s_out, p.odt, t0[a * FV_CU_FLT_PITCH + cr]);
                    });
                }
            }
        }
    }
}

/* Value at position pos of the line at src (any pos: extended by mode). */
template <typename T, typename ACC>
__device__ __forceinline__ ACC
fv_d_flt_at(const char *src, int64_t pos, const fv_cu_flt_g1<int64_t> &g, int mode, ACC cv)
{
    if (pos < 0 || pos >= g.n) {
        pos = fv_d_flt_extend<int64_t>(pos, g.n, mode);
        if (pos < 0)
            return cv;
    }
    return (ACC)__ldg((const T *)(src + pos * g.s_in));
}

/* Line `line` (batch-major, cross fastest): input and output starts. */
__device__ __forceinline__ void
fv_d_flt_line_start(const fv_cu_flt_targs<int64_t> &p, int64_t line, const char **src, char **dst)
{
    int64_t b = line / p.g.nc, cc = line - b * p.g.nc, bi, bo;
    fv_d_flt_batch_off(p.g, b, bi, bo);
    *src = p.in + bi + cc * p.g.c_in;
    *dst = p.out + bo + cc * p.g.c_out;
}

template <typename ACC>
__device__ __forceinline__ ACC
fv_d_flt_wt(const fv_cu_flt_targs<int64_t> &p, int64_t j)
{
    return (ACC)__ldg(p.w + j * p.wst);   /* the direct kernel always has a device copy */
}

/* One output per thread from global memory (windows too long for a tile). */
template <typename T, typename ACC>
__global__ void __launch_bounds__(FV_CU_FLT_THREADS)
fv_k_flt_direct(fv_cu_flt_targs<int64_t> p, int64_t total)
{
    if (p.guard && !*p.guard)
        return;
    const ACC cv = (ACC)p.cval;
    const int kind = p.kind != FV_CU_FLT_AUTO ? p.kind : fv_d_win_kind_dev(p.w, p.wst, (int)p.size);
    const int64_t size = p.size, n = p.g.n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)blockDim.x * gridDim.x) {
        int64_t line, pos;
        if (p.tcl2) {   /* positions fastest (the axis is the dense direction) */
            line = i / n;
            pos = i - line * n;
        } else {        /* cross fastest: line = b * nc + cc */
            int64_t cc = i % p.g.nc, rest = i / p.g.nc;
            int64_t b = rest / n;
            pos = rest - b * n;
            line = b * p.g.nc + cc;
        }
        const char *src;
        char *dst;
        fv_d_flt_line_start(p, line, &src, &dst);
        int64_t q = pos - p.left;
        ACC t;
        if (kind == FV_CU_FLT_CORR_SYM || kind == FV_CU_FLT_CORR_ANTI) {
            int64_t s1 = size >> 1;
            t = fv_d_flt_mul(fv_d_flt_at<T, ACC>(src, q + s1, p.g, p.mode, cv), fv_d_flt_wt<ACC>(p, s1));
            for (int64_t j = 0; j < s1; j++) {
                ACC x = fv_d_flt_at<T, ACC>(src, q + j, p.g, p.mode, cv);
                ACC y = fv_d_flt_at<T, ACC>(src, q + size - 1 - j, p.g, p.mode, cv);
                t = fv_d_flt_add(t, fv_d_flt_mul(kind == FV_CU_FLT_CORR_SYM ? fv_d_flt_add(x, y) : fv_d_flt_sub(x, y), fv_d_flt_wt<ACC>(p, j)));
            }
        } else if (kind == FV_CU_FLT_CORR) {
            t = fv_d_flt_mul(fv_d_flt_at<T, ACC>(src, q + size - 1, p.g, p.mode, cv), fv_d_flt_wt<ACC>(p, size - 1));
            for (int64_t j = 0; j < size - 1; j++)
                t = fv_d_flt_add(t, fv_d_flt_mul(fv_d_flt_at<T, ACC>(src, q + j, p.g, p.mode, cv), fv_d_flt_wt<ACC>(p, j)));
        } else if (kind == FV_CU_FLT_USUM) {
            t = 0;
            for (int64_t j = 0; j < size; j++)
                t += fv_d_flt_at<T, ACC>(src, q + j, p.g, p.mode, cv);
            t /= (ACC)size;
        } else {
            bool mn = kind == FV_CU_FLT_MIN;
            t = fv_d_flt_at<T, ACC>(src, q, p.g, p.mode, cv);
            for (int64_t j = 1; j < size; j++)
                t = fv_d_flt_comb(t, fv_d_flt_at<T, ACC>(src, q + j, p.g, p.mode, cv), mn);
        }
        fv_d_flt_store(dst + pos * p.g.s_out, p.odt, t);
    }
}

/* scipy's running mean, one thread per line, in double, exactly its operations:
 * sum = x[0] + ... + x[size-1]; then sum += x[new] - x[old]; each output sum / size
 * (every line, or the lines flagged in p.nanflags). */
template <typename T>
__global__ void __launch_bounds__(FV_CU_FLT_THREADS)
fv_k_flt_uniform_serial(fv_cu_flt_targs<int64_t> p, int64_t nlines)
{
    if (p.guard && !*p.guard)
        return;
    const int64_t size = p.size, n = p.g.n, left = p.left;
    const double ds = (double)size;
    for (int64_t line = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; line < nlines;
         line += (int64_t)blockDim.x * gridDim.x) {
        if (p.nanflags && !p.nanflags[line])
            continue;
        const char *src;
        char *dst;
        fv_d_flt_line_start(p, line, &src, &dst);
        double tmp = 0.0;
        for (int64_t q = 0; q < size; q++)
            tmp = __dadd_rn(tmp, fv_d_flt_at<T, double>(src, q - left, p.g, p.mode, p.cval));
        fv_d_flt_store(dst, p.odt, __ddiv_rn(tmp, ds));
        int64_t l = 1;
        /* interior stretch: both ends inside the line, no extension checks */
        int64_t lo = left + 1 > 1 ? left + 1 : 1, hi = n - size + left + 1;
        if (hi > n)
            hi = n;
        for (; l < lo && l < n; l++) {
            double d = __dsub_rn(fv_d_flt_at<T, double>(src, l - 1 - left + size, p.g, p.mode, p.cval),
                                 fv_d_flt_at<T, double>(src, l - 1 - left, p.g, p.mode, p.cval));
            tmp = __dadd_rn(tmp, d);
            fv_d_flt_store(dst + l * p.g.s_out, p.odt, __ddiv_rn(tmp, ds));
        }
        const char *pn = src + (l - 1 - left + size) * p.g.s_in, *po = src + (l - 1 - left) * p.g.s_in;
        for (; l < hi; l++) {
            double d = __dsub_rn((double)__ldg((const T *)pn), (double)__ldg((const T *)po));
            tmp = __dadd_rn(tmp, d);
            fv_d_flt_store(dst + l * p.g.s_out, p.odt, __ddiv_rn(tmp, ds));
            pn += p.g.s_in;
            po += p.g.s_in;
        }
        for (; l < n; l++) {
            double d = __dsub_rn(fv_d_flt_at<T, double>(src, l - 1 - left + size, p.g, p.mode, p.cval),
                                 fv_d_flt_at<T, double>(src, l - 1 - left, p.g, p.mode, p.cval));
            tmp = __dadd_rn(tmp, d);
            fv_d_flt_store(dst + l * p.g.s_out, p.odt, __ddiv_rn(tmp, ds));
        }
    }
}

/* scipy's minimum/maximum_filter1d for flagged lines (float data with NaN):
 * R. Harter's ascending-minima deque over the extended line, as scipy runs it.
 * ring: `size` (value, death) pairs per thread. */
struct fv_cu_flt_pair {
    double v;
    int64_t death;
};

template <typename T>
__global__ void __launch_bounds__(FV_CU_FLT_THREADS)
fv_k_flt_minmax_exact(fv_cu_flt_targs<int64_t> p, int64_t nlines, fv_cu_flt_pair *scratch)
{
    if (p.guard && !*p.guard)
        return;
    const int64_t size = p.size, n = p.g.n, left = p.left;
    const bool mn = p.kind == FV_CU_FLT_MIN;
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    fv_cu_flt_pair *ring = scratch + tid * size;
    for (int64_t line = tid; line < nlines; line += (int64_t)blockDim.x * gridDim.x) {
        if (!p.nanflags[line])
            continue;
        const char *src;
        char *dst;
        fv_d_flt_line_start(p, line, &src, &dst);
        int64_t front = 0, last = 0;
        ring[0].v = fv_d_flt_at<T, double>(src, -left, p.g, p.mode, p.cval);
        ring[0].death = size;
        for (int64_t ll = 1; ll < size + n - 1; ll++) {
            double v = fv_d_flt_at<T, double>(src, ll - left, p.g, p.mode, p.cval);
            if (ring[front].death == ll)
                front = front + 1 == size ? 0 : front + 1;
            if (mn ? v <= ring[front].v : v >= ring[front].v) {
                ring[front].v = v;
                ring[front].death = ll + size;
                last = front;
            } else {
                while (mn ? ring[last].v >= v : ring[last].v <= v)
                    last = last == 0 ? size - 1 : last - 1;
                last = last + 1 == size ? 0 : last + 1;
                ring[last].v = v;
                ring[last].death = ll + size;
            }
            if (ll >= size - 1)
                fv_d_flt_store(dst + (ll - (size - 1)) * p.g.s_out, p.odt, ring[front].v);
        }
    }
}

/* ==== host side =================================================================== */

typedef struct fv_cu_flt_geom {
    int64_t n, s_in, s_out, nc, c_in, c_out;
    int nb;
    int64_t bshape[FV_MAX_NDIM], bs_in[FV_MAX_NDIM], bs_out[FV_MAX_NDIM];
    int64_t nbatch;
    int row;
} fv_cu_flt_geom;

static void
fv_cu_flt_geom_init(fv_cu_flt_geom *g, const fv_array *in, const fv_array *out, int axis)
{
    int64_t sh[FV_MAX_NDIM], si[FV_MAX_NDIM], so[FV_MAX_NDIM];
    int m = 0;
    memset(g, 0, sizeof *g);
    if (in->ndim == 0) {
        g->n = 1;
        g->s_in = g->s_out = 0;
    } else {
        g->n = in->shape[axis];
        g->s_in = in->strides[axis];
        g->s_out = out->strides[axis];
    }
    for (int d = 0; d < in->ndim; d++) {
        if (d == axis || in->shape[d] == 1)
            continue;
        if (m > 0 && si[m - 1] == in->shape[d] * in->strides[d] && so[m - 1] == in->shape[d] * out->strides[d]) {
            sh[m - 1] *= in->shape[d];   /* contiguous with the previous one: merge */
            si[m - 1] = in->strides[d];
            so[m - 1] = out->strides[d];
            continue;
        }
        sh[m] = in->shape[d];
        si[m] = in->strides[d];
        so[m] = out->strides[d];
        m++;
    }
    int cross = -1;
    for (int k = 0; k < m; k++) {
        int64_t s = si[k] < 0 ? -si[k] : si[k];
        if (cross < 0 || s <= (si[cross] < 0 ? -si[cross] : si[cross]))
            cross = k;
    }
    g->nc = 1;
    g->nbatch = 1;
    if (cross >= 0) {
        g->nc = sh[cross];
        g->c_in = si[cross];
        g->c_out = so[cross];
    }
    for (int k = 0; k < m; k++) {
        if (k == cross)
            continue;
        g->bshape[g->nb] = sh[k];
        g->bs_in[g->nb] = si[k];
        g->bs_out[g->nb] = so[k];
        g->nbatch *= sh[k];
        g->nb++;
    }
    int64_t sa = g->s_in < 0 ? -g->s_in : g->s_in, sc = g->c_in < 0 ? -g->c_in : g->c_in;
    g->row = cross < 0 || g->n == 1 ? 1 : (sa <= sc);
}

template <typename IT>
static void
fv_cu_flt_pack(fv_cu_flt_targs<IT> *t, const fv_cu_flt_geom *g)
{
    t->g.n = (IT)g->n;
    t->g.s_in = (IT)g->s_in;
    t->g.s_out = (IT)g->s_out;
    t->g.nc = (IT)g->nc;
    t->g.c_in = (IT)g->c_in;
    t->g.c_out = (IT)g->c_out;
    t->g.nb = g->nb;
    for (int d = 0; d < FV_MAX_NDIM; d++) {
        t->g.bshape[d] = d < g->nb ? (IT)g->bshape[d] : 1;
        t->g.bs_in[d] = d < g->nb ? (IT)g->bs_in[d] : 0;
        t->g.bs_out[d] = d < g->nb ? (IT)g->bs_out[d] : 0;
    }
}

/* What the launchers need beyond the params. */
typedef struct fv_cu_flt_job {
    const fv_array *in;
    fv_array *out;
    fv_cu_flt_geom g;
    int kind;
    int64_t size, left;
    int mode;
    double cval;
    const double *wdev;       /* weights on the device (size > FV_CU_FLT_WINLINE, or the caller's) */
    int64_t wst;              /* wdev's stride in elements */
    const double *wh;         /* weights on the host */
    fv_array *wbuf;           /* owns wdev */
    const int *guard;         /* device flag: the kernels run only where it is set (FV__OP_SEP2's redo) */
    float chk;                /* the checked float path's bound (fv_cu_flt_float_checked), or 0; -vmax: device weights */
    fv_cu_exec x;
    fv_context *ctx;
    int device;
    size_t smem_optin;
} fv_cu_flt_job;

/* A device copy of the weights (released by the caller's wbuf). */
static fv_status
fv_cu_flt_weights_to_device(fv_cu_flt_job *j)
{
    size_t nb = (size_t)j->size * sizeof(double);
    fv_device dev = {FV_DEVICE_CUDA, j->device}, host = {FV_DEVICE_CPU, 0};
    fv_status st;
    if ((st = fv_cu_flt_tmp_new(j->ctx, j->device, nb, &j->wbuf)) != FV_OK)
        return st;
    if ((st = fv__cuda_memcpy(j->ctx, j->wbuf->data, dev, j->wh, host, nb)) != FV_OK)
        return st;
    j->wdev = (const double *)j->wbuf->data;
    j->wst = 1;
    return FV_OK;
}

template <typename IT>
static void
fv_cu_flt_fill(fv_cu_flt_targs<IT> *t, const fv_cu_flt_job *j)
{
    memset(t, 0, sizeof *t);
    fv_cu_flt_pack(t, &j->g);
    t->in = j->in->data;
    t->out = j->out->data;
    t->guard = j->guard;
    t->w = j->wdev;
    t->wst = j->wdev ? j->wst : 1;
    if (!j->wdev && j->wh)
        for (int64_t k = 0; k < j->size && k < FV_CU_FLT_WINLINE; k++)
            t->wi[k] = j->wh[k];
    t->left = (IT)j->left;
    t->size = (IT)j->size;
    t->kind = j->kind;
    t->mode = j->mode;
    t->odt = (int)j->out->dtype;
    t->cval = j->cval;
    t->chk = j->chk;
}

static unsigned
fv_cu_flt_grid(int64_t work, int device, int per_sm)
{
    int64_t cap = (int64_t)fv__cuda_sm_count(device) * per_sm;
    if (work > cap)
        work = cap;
    return work < 1 ? 1u : (unsigned)work;
}

/* Tile plan: returns 0 when no tile fits shared memory. */
typedef struct fv_cu_flt_plan {
    int64_t ta;
    int tcl2;
    size_t smem;
    int dbl;
    int v2;     /* the register-blocked kernel */
} fv_cu_flt_plan;

template <typename ACC>
static int
fv_cu_flt_plan_tile(const fv_cu_flt_job *j, fv_cu_flt_plan *pl)
{
    const fv_cu_flt_geom *g = &j->g;
    int corr = j->kind <= FV_CU_FLT_CORR_ANTI;
    int mm = j->kind == FV_CU_FLT_MIN || j->kind == FV_CU_FLT_MAX;
    pl->dbl = mm && j->size > FV_CU_FLT_MM_DIRECT;
    size_t budget = j->smem_optin < FV_CU_FLT_SMEM_BUDGET ? j->smem_optin : FV_CU_FLT_SMEM_BUDGET;
    int64_t ta;
    pl->v2 = 0;
    if (!pl->dbl && (!g->row || g->nc >= 32)) {   /* 32 lines per tile */
        size_t nw = corr ? (size_t)((j->size + 1) & ~(int64_t)1) : 0;
        if (j->chk != 0.0f)   /* the double weights too */
            nw += (size_t)j->size * sizeof(double) / sizeof(ACC);
        for (ta = g->n > 64 ? 128 : 64; ta >= 64; ta -= 64) {
            int64_t L = ta + j->size - 1;
            size_t words = (size_t)(L + 1) * FV_CU_FLT_PITCH;   /* a spare row: the last slide reads one past */
            if (L < (int64_t)1 << 24 && (nw + words) * sizeof(ACC) <= budget) {
                pl->v2 = 1;
                pl->ta = ta;
                pl->tcl2 = 5;
                pl->smem = (nw + words) * sizeof(ACC);
                return 1;
            }
        }
    }
    if (g->row) {
        pl->tcl2 = g->nc >= 8 ? 3 : 0;
        ta = pl->tcl2 ? 256 : 1024;
        int64_t rn = (g->n + 31) / 32 * 32;
        if (ta > rn)
            ta = rn;
    } else {
        pl->tcl2 = 5;
        ta = g->n < 128 ? g->n : 128;
    }
    for (;;) {
        int64_t L = ta + j->size - 1;
        size_t words = (size_t)(1 << pl->tcl2) * (size_t)L * (pl->dbl ? 2 : 1);
        size_t nw = corr ? (size_t)((j->size + 1) & ~(int64_t)1) : 0;
        if (L < (int64_t)1 << 30 && (nw + words) * sizeof(ACC) <= budget) {
            pl->smem = (nw + words) * sizeof(ACC);
            break;
        }
        if (ta <= 32)
            return 0;
        ta /= 2;
    }
    pl->ta = ta;
    return 1;
}

static int
fv_cu_flt_fits32(const fv_cu_flt_job *j, int64_t ta)
{
    int64_t n = fv_array_size(j->in);
    if (n > INT32_MAX || fv_cu_flt_extent(j->in) > INT32_MAX || fv_cu_flt_extent(j->out) > INT32_MAX)
        return 0;
    if (2 * j->g.n + 2 * j->size + 2 * ta + 64 > INT32_MAX)
        return 0;
    return 1;
}

/* The tile kernels' loads ("cuda.filter1d.loads"): "vector", 16-byte loads
 * and stores where the lines' alignment allows (the two-line kernels); "scalar",
 * element by element, always. */
static int
fv_cu_flt_vector_ok(const void *args, int device)
{
    return ((const fv_cu_flt_plan *)args)->v2 != 0;
}

FV__VARIANTS(fv_cu_flt_load_variants, "cuda.filter1d.loads", {"vector", fv_cu_flt_vector_ok, NULL}, {"scalar", NULL, NULL})

template <typename T, typename ACC, typename IT>
static fv_status
fv_cu_flt_launch_tile(const fv_cu_flt_job *j, const fv_cu_flt_plan *pl, uint8_t *nanflags)
{
    fv_cu_flt_targs<IT> t;
    fv_cu_flt_fill(&t, j);
    t.ta = (IT)pl->ta;
    t.tcl2 = pl->tcl2;
    t.dbl = pl->dbl;
    t.nanflags = nanflags;
    t.nta = (j->g.n + pl->ta - 1) / pl->ta;
    t.ntc = (j->g.nc + (1 << pl->tcl2) - 1) >> pl->tcl2;
    t.ntiles = t.nta * t.ntc * j->g.nbatch;
    if (pl->v2 && fv__plan_index(&fv_cu_flt_load_variants, pl, j->device) == 0) {
        const fv_cu_flt_geom *g = &j->g;
        const int64_t es = (int64_t)sizeof(T), L = pl->ta + j->size - 1;
        if (g->row) {   /* lines contiguous, the same misalignment on every line of a tile */
            t.vec = g->s_in == es && llabs(g->c_in) % 16 == 0;
            const fv_dtype od = j->out->dtype;   /* the dtypes fv_d_flt_odt_run stores through a typed tag */
            t.vst = g->s_out == (int64_t)fv_dtype_size(od) && llabs(g->c_out) % 16 == 0 &&
                    (od == FV_FLOAT32 || od == FV_FLOAT64 || od == FV_UINT8 || od == FV_INT8 || od == FV_UINT16 ||
                     od == FV_INT16 || od == FV_INT32 || od == FV_BOOL);
        } else {        /* tile rows contiguous, likewise; the chunk tasks' float division is exact */
            t.vec = g->c_in == es && llabs(g->s_in) % 16 == 0 && L * ((32 * es + 30) / 16) < 65536;
        }
    }
    unsigned grid = fv_cu_flt_grid(t.ntiles, j->device, 32);
    fv_status st;
    if (pl->v2 && j->g.row) {
        if ((st = fv_cu_flt_smem_attr(fv_k_flt_tile2<T, ACC, IT, true>, pl->smem)) != FV_OK)
            return st;
        fv_k_flt_tile2<T, ACC, IT, true><<<grid, FV_CU_FLT_THREADS, pl->smem, j->x.stream>>>(t);
    } else if (pl->v2) {
        if ((st = fv_cu_flt_smem_attr(fv_k_flt_tile2<T, ACC, IT, false>, pl->smem)) != FV_OK)
            return st;
        fv_k_flt_tile2<T, ACC, IT, false><<<grid, FV_CU_FLT_THREADS, pl->smem, j->x.stream>>>(t);
    } else if (j->g.row) {
        if ((st = fv_cu_flt_smem_attr(fv_k_flt_tile<T, ACC, IT, true>, pl->smem)) != FV_OK)
            return st;
        fv_k_flt_tile<T, ACC, IT, true><<<grid, FV_CU_FLT_THREADS, pl->smem, j->x.stream>>>(t);
    } else {
        if ((st = fv_cu_flt_smem_attr(fv_k_flt_tile<T, ACC, IT, false>, pl->smem)) != FV_OK)
            return st;
        fv_k_flt_tile<T, ACC, IT, false><<<grid, FV_CU_FLT_THREADS, pl->smem, j->x.stream>>>(t);
    }
    return fv_cu_launch_status("filter1d kernel launch");
}

template <typename T, typename ACC>
static fv_status
fv_cu_flt_launch_direct(const fv_cu_flt_job *j)
{
    fv_cu_flt_targs<int64_t> t;
    fv_cu_flt_fill(&t, j);
    t.tcl2 = j->g.row;   /* order of the flat index */
    int64_t total = j->g.n * j->g.nc * j->g.nbatch;
    fv_k_flt_direct<T, ACC><<<fv_cu_flt_grid((total + FV_CU_FLT_THREADS - 1) / FV_CU_FLT_THREADS, j->device, 16), FV_CU_FLT_THREADS, 0,
                           j->x.stream>>>(t, total);
    return fv_cu_launch_status("filter1d kernel launch");
}

template <typename T, typename ACC>
static fv_status
fv_cu_flt_run1d(fv_cu_flt_job *j)
{
    fv_status st = FV_OK;
    const int64_t nlines = j->g.nc * j->g.nbatch;
    const int us = j->kind == FV_CU_FLT_USUM, mm = j->kind == FV_CU_FLT_MIN || j->kind == FV_CU_FLT_MAX;
    const unsigned lgrid = fv_cu_flt_grid((nlines + FV_CU_FLT_THREADS - 1) / FV_CU_FLT_THREADS, j->device, 16);

    /* uniform: window sums exact in double (data of up to 32-bit integers, a
     * window of at most 2^20, an integral cval of at most 2^32 when it is used) */
    const int exact_sum = !fv_cu_flt_is_float<T>::value && sizeof(T) <= 4 && j->size <= ((int64_t)1 << 20) &&
                          (j->mode != FV_MODE_CONSTANT || (j->cval == floor(j->cval) && fabs(j->cval) <= 4294967296.0));
    if (us && !exact_sum && (fv_dtype_is_integer(j->out->dtype) || j->out->dtype == FV_BOOL)) {
        fv_cu_flt_targs<int64_t> t;
        fv_cu_flt_fill(&t, j);
        fv_k_flt_uniform_serial<T><<<lgrid, FV_CU_FLT_THREADS, 0, j->x.stream>>>(t, nlines);
        return fv_cu_launch_status("uniform_filter1d kernel launch");
    }

    /* float data: lines whose result depends on scipy's serial algorithm (min/max
     * with NaN, running sums through NaN or inf) are flagged and redone exactly */
    const int redo = fv_cu_flt_is_float<T>::value && ((mm && j->size > 1) || us);
    fv_array *flags = NULL, *scratch = NULL;
    uint8_t *fl = NULL;
    fv_cu_flt_plan pl;
    const int tile = fv_cu_flt_plan_tile<ACC>(j, &pl);
    if (j->chk != 0.0f && !(tile && pl.v2)) {   /* only fv_k_flt_tile2 checks its float sums */
        j->chk = 0.0f;
        return fv_cu_flt_run1d<T, double>(j);
    }

    if (redo) {
        if ((st = fv_cu_flt_tmp_new(j->ctx, j->device, (size_t)nlines, &flags)) != FV_OK)
            goto done;
        fl = (uint8_t *)flags->data;
        /* without a tile kernel to flag lines, every line is redone */
        cudaError_t e = cudaMemsetAsync(fl, tile ? 0 : 1, (size_t)nlines, j->x.stream);
        if (e != cudaSuccess) {
            st = fv__cuda_error("cudaMemsetAsync", e);
            goto done;
        }
    }
    if (tile) {
        if (fv_cu_flt_fits32(j, pl.ta))
            st = fv_cu_flt_launch_tile<T, ACC, int32_t>(j, &pl, fl);
        else
            st = fv_cu_flt_launch_tile<T, ACC, int64_t>(j, &pl, fl);
    } else if (!redo) {
        if (j->kind <= FV_CU_FLT_CORR_ANTI && !j->wdev)
            st = fv_cu_flt_weights_to_device(j);
        if (st == FV_OK)
            st = fv_cu_flt_launch_direct<T, ACC>(j);
    }
    if (st != FV_OK || !redo)
        goto done;
    if (us) {
        fv_cu_flt_targs<int64_t> t;
        fv_cu_flt_fill(&t, j);
        t.nanflags = fl;
        fv_k_flt_uniform_serial<T><<<lgrid, FV_CU_FLT_THREADS, 0, j->x.stream>>>(t, nlines);
        st = fv_cu_launch_status("uniform_filter1d kernel launch");
    } else {
        /* bounded concurrency: a ring of `size` pairs per thread */
        int64_t per = j->size * (int64_t)sizeof(fv_cu_flt_pair);
        int64_t threads = ((int64_t)64 << 20) / per;
        if (threads > 32768)
            threads = 32768;
        if (threads > nlines)
            threads = nlines;
        threads = (threads + 31) / 32 * 32;
        if (threads < 32)
            threads = 32;
        if ((st = fv_cu_flt_tmp_new(j->ctx, j->device, (size_t)(threads * per), &scratch)) != FV_OK)
            goto done;
        fv_cu_flt_targs<int64_t> t;
        fv_cu_flt_fill(&t, j);
        t.nanflags = fl;
        int block = threads < FV_CU_FLT_THREADS ? (int)threads : FV_CU_FLT_THREADS;
        fv_k_flt_minmax_exact<T><<<(unsigned)(threads / block), block, 0, j->x.stream>>>(t, nlines,
                                                                                   (fv_cu_flt_pair *)scratch->data);
        st = fv_cu_launch_status("minimum/maximum_filter1d kernel launch");
    }
done:
    fv_cu_flt_tmp_release(j->ctx, scratch);
    fv_cu_flt_tmp_release(j->ctx, flags);
    return st;
}

/* float accumulation only where it is allowed and instantiated */
template <typename T> struct fv_cu_flt_small { static const bool value = false; };
template <> struct fv_cu_flt_small<uint8_t> { static const bool value = true; };
template <> struct fv_cu_flt_small<int8_t> { static const bool value = true; };
template <> struct fv_cu_flt_small<uint16_t> { static const bool value = true; };
template <> struct fv_cu_flt_small<int16_t> { static const bool value = true; };
template <> struct fv_cu_flt_small<float> { static const bool value = true; };

template <typename T, bool SMALL> struct fv_cu_flt_acc_run {
    static fv_status run(fv_cu_flt_job *j, int accf) { return fv_cu_flt_run1d<T, double>(j); }
};
template <typename T> struct fv_cu_flt_acc_run<T, true> {
    static fv_status run(fv_cu_flt_job *j, int accf)
    {
        return accf ? fv_cu_flt_run1d<T, float>(j) : fv_cu_flt_run1d<T, double>(j);
    }
};

template <typename T>
static fv_status
fv_cu_flt_run1d_t(fv_cu_flt_job *j, int accf)
{
    return fv_cu_flt_acc_run<T, fv_cu_flt_small<T>::value>::run(j, accf);
}

/* scipy's symmetry test of correlate1d (odd sizes only) */
static int
fv_cu_flt_symmetry(const double *w, int64_t size)
{
    if (!(size & 1))
        return 0;
    int64_t s1 = size / 2;
    int sym = 1;
    for (int64_t i = 1; i <= s1; i++)
        if (fabs(w[s1 + i] - w[s1 - i]) > DBL_EPSILON) {
            sym = 0;
            break;
        }
    if (sym)
        return 1;
    for (int64_t i = 1; i <= s1; i++)
        if (fabs(w[s1 + i] + w[s1 - i]) > DBL_EPSILON)
            return 0;
    return -1;
}

/* One pass; with guard non-NULL every kernel it queues returns at once unless
 * the device int *guard is non-zero (the fused separable path's conditional redo). */
/* The accumulators ("cuda.filter1d.acc", filters-common.cuh). float_checked:
 * device weights are bounded by the kernel (all outputs again in double where
 * the bound fails, kept to 16 bits: 8/16-bit and bool outputs only). */
static float
fv_cu_flt_acc_chk(const fv_cu_flt_accplan *pa)
{
    float chk = fv_cu_flt_float_checked(pa->in, pa->out, pa->kind, pa->w, pa->size, pa->mode, pa->cval);
    if (pa->kind == FV_CU_FLT_AUTO && pa->out != FV_INT32)
        chk = -(float)fv_cu_flt_checked_vmax(pa->in, pa->out, pa->kind, pa->size, pa->mode, pa->cval);
    return chk;
}
static int
fv_cu_flt_acc_exact_ok(const void *args, int device)
{
    const fv_cu_flt_accplan *pa = (const fv_cu_flt_accplan *)args;
    return fv_cu_flt_float_exact(pa->in, pa->out, pa->kind, pa->w, pa->size, pa->mode, pa->cval);
}
static int
fv_cu_flt_acc_checked_ok(const void *args, int device)
{
    return fv_cu_flt_acc_chk((const fv_cu_flt_accplan *)args) != 0.0f;
}

FV__VARIANTS(fv_cu_flt_acc_variants, "cuda.filter1d.acc", {"float_exact", fv_cu_flt_acc_exact_ok, NULL},
             {"float_checked", fv_cu_flt_acc_checked_ok, NULL}, {"double", NULL, NULL})

int
fv_cu_flt_acc_plan(const fv_cu_flt_accplan *pa, int device, float *chk)
{
    const int v = fv__plan_index(&fv_cu_flt_acc_variants, pa, device);
    if (v == 1)
        *chk = fv_cu_flt_acc_chk(pa);
    return v;
}

extern "C" fv_status
fv__cuda_filter1d_guarded(fv_context *ctx, const fv__op_args *a, const int *guard)
{
    static const char *dom = "filter1d";
    const fv__filter1d_params *p = (const fv__filter1d_params *)a->params;
    const fv_array *in = a->in;
    fv_array *out = a->out;
    fv_cu_flt_job j;
    fv_status st;
    int begun = 0;

    memset(&j, 0, sizeof j);
    ctx = fv__ctx(ctx);
    if (!p)
        return fv_error_set(FV_EINVAL, dom, "missing parameters");
    if (p->kind < FV__F1D_CORRELATE || p->kind > FV__F1D_MAXIMUM)
        return fv_error_set(FV_EINVAL, dom, "unknown filter kind %d", p->kind);
    if (p->mode < 0 || p->mode >= FV_MODE_COUNT)
        return fv_error_set(FV_EINVAL, dom, "invalid mode %d", p->mode);
    if (p->size < 1)
        return fv_error_set(FV_EINVAL, dom, "size %lld must be >= 1", (long long)p->size);
    if (p->kind == FV__F1D_CORRELATE && !p->weights && !p->dweights)
        return fv_error_set(FV_EINVAL, dom, "weights missing");
    if (in->ndim != out->ndim)
        return fv_error_set(FV_EINVAL, dom, "input and output shapes differ");
    for (int d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return fv_error_set(FV_EINVAL, dom, "input and output shapes differ");
    if (in->ndim > 0 ? (p->axis < 0 || p->axis >= in->ndim) : p->axis != 0)
        return fv_error_set(FV_EINVAL, dom, "axis %d out of range for %d dimensions", p->axis, in->ndim);
    if (p->size / 2 + p->origin < 0 || p->size / 2 + p->origin >= p->size)
        return fv_error_set(FV_EINVAL, dom, "origin %lld out of range for size %lld", (long long)p->origin,
                            (long long)p->size);
    if (p->size > INT32_MAX / 4)
        return fv_error_set(FV_EINVAL, dom, "size %lld too large", (long long)p->size);
    if (!fv_dtype_is_valid(in->dtype) || !fv_dtype_is_valid(out->dtype))
        return fv_error_set(FV_EDTYPE, dom, "invalid dtype");
    if ((st = fv_cu_begin(ctx, dom, a, 1, &j.x)) != FV_OK)
        return st;
    begun = 1;
    if (fv_array_size(out) == 0)
        goto done;
    if (!fv_cu_flt_aligned(in) || !fv_cu_flt_aligned(out)) {
        st = fv_error_set(FV_EINVAL, dom, "CUDA array data or strides not aligned to the element size");
        goto done;
    }
    j.in = in;
    j.out = out;
    j.ctx = ctx;
    j.device = j.x.device;
    fv_cu_flt_geom_init(&j.g, in, out, p->axis);
    j.size = p->size;
    j.left = p->size / 2 + p->origin;
    j.mode = p->mode;
    j.cval = p->cval;
    j.wdev = NULL;
    j.wh = NULL;
    j.wbuf = NULL;
    j.guard = guard;
    j.smem_optin = fv_cu_flt_smem_optin(j.device);
    switch (p->kind) {
    case FV__F1D_CORRELATE: {
        if (!p->weights) {   /* on the device already (the caller checked where): classified there */
            j.kind = FV_CU_FLT_AUTO;
            j.wdev = p->dweights;
            j.wst = p->dweights_stride;
            break;
        }
        int sym = fv_cu_flt_symmetry(p->weights, p->size);
        j.kind = sym > 0 ? FV_CU_FLT_CORR_SYM : sym < 0 ? FV_CU_FLT_CORR_ANTI : FV_CU_FLT_CORR;
        j.wh = p->weights;
        if (p->size > FV_CU_FLT_WINLINE && (st = fv_cu_flt_weights_to_device(&j)) != FV_OK)   /* longer: a device copy */
            goto done;
        break;
    }
    case FV__F1D_UNIFORM: j.kind = FV_CU_FLT_USUM; break;
    case FV__F1D_MINIMUM: j.kind = FV_CU_FLT_MIN; break;
    default: j.kind = FV_CU_FLT_MAX; break;
    }
    {
        /* float accumulators: float32 outputs, and elsewhere as the planner
         * picks (fv_cu_flt_acc_plan): where float is exact, or float sums checked
         * against e with the few uncertain outputs in double (8-bit data, other
         * weights) */
        int accf = fv_cu_flt_acc_float(in->dtype, out->dtype);
        if (!accf) {
            const fv_cu_flt_accplan pa = {in->dtype, out->dtype, j.kind, j.wh, j.size, j.mode, j.cval};
            accf = fv_cu_flt_acc_plan(&pa, j.device, &j.chk) != 2;
        }
        st = FV_EDTYPE;
        switch (in->dtype) {
        case FV_BOOL: case FV_UINT8: st = fv_cu_flt_run1d_t<uint8_t>(&j, accf); break;
        case FV_INT8: st = fv_cu_flt_run1d_t<int8_t>(&j, accf); break;
        case FV_UINT16: st = fv_cu_flt_run1d_t<uint16_t>(&j, accf); break;
        case FV_INT16: st = fv_cu_flt_run1d_t<int16_t>(&j, accf); break;
        case FV_UINT32: st = fv_cu_flt_run1d_t<uint32_t>(&j, accf); break;
        case FV_INT32: st = fv_cu_flt_run1d_t<int32_t>(&j, accf); break;
        case FV_UINT64: st = fv_cu_flt_run1d_t<uint64_t>(&j, accf); break;
        case FV_INT64: st = fv_cu_flt_run1d_t<int64_t>(&j, accf); break;
        case FV_FLOAT32: st = fv_cu_flt_run1d_t<float>(&j, accf); break;
        case FV_FLOAT64: st = fv_cu_flt_run1d_t<double>(&j, accf); break;
        default: st = fv_error_set(FV_EDTYPE, dom, "no CUDA kernel for %s", fv_dtype_name(in->dtype)); break;
        }
    }
done:
    fv_cu_flt_tmp_release(ctx, j.wbuf);
    if (begun)
        fv_cu_end(&j.x);
    return st;
}

extern "C" fv_status fv__cuda_strip1d(fv_context *ctx, const fv__op_args *a);

extern "C" fv_status
fv__cuda_filter1d(fv_context *ctx, const fv__op_args *a)
{
    /* float32 along an axis other than the contiguous one, 3 / 5 / 9 / 17 taps:
     * the 1-D strip kernel (filter-sep2.cu), the same bits */
    fv_status st = fv__cuda_strip1d(ctx, a);
    if (st != FV__SEP2_DECLINED)
        return st;
    return fv__cuda_filter1d_guarded(ctx, a, NULL);
}

FV_KERNEL(FILTER1D, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_filter1d);
