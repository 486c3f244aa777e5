/* CUDA kernels of FV__OP_FILTER1D (filter1d.cuh): the tile kernels, fv_k_flt_tile
 * (a tile of lines in shared memory, ROW or COL) and the register-blocked
 * fv_k_flt_tile2, with their launcher and the loads' variants. */
#include <stdlib.h>

#include "filter1d.cuh"
#include "core/plan.h"


/* The value at position pos (any: extended by mode, cv past a constant edge) of
 * the line at src, in the accumulator type. */
template <typename T, typename ACC, typename IT>
__device__ __forceinline__ ACC
fv_d_flt_load(const fv_cu_flt_targs<IT> &p, const char *src, IT pos, ACC cv)
{
    if (pos >= 0 && pos < p.g.n)
        return (ACC)__ldg((const T *)(src + pos * p.g.s_in));
    IT e = fv_d_flt_extend<IT>(pos, p.g.n, p.mode);
    return e < 0 ? cv : (ACC)__ldg((const T *)(src + e * p.g.s_in));
}

/* Tile `tile` of the grid (along the axis fastest, then across, then the batch):
 * its indices ia along the axis and ic across, its batch's input and output
 * offsets bi / bo; returns the batch. */
template <typename IT>
__device__ __forceinline__ int64_t
fv_d_flt_tile_at(const fv_cu_flt_targs<IT> &p, int64_t tile, IT &ia, IT &ic, IT &bi, IT &bo)
{
    int64_t tq = tile / p.nta;
    ia = (IT)(tile - tq * p.nta);
    int64_t b = tq / p.ntc;
    ic = (IT)(tq - b * p.ntc);
    fv_d_flt_batch_off(p.g, (IT)b, bi, bo);
    return b;
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
            t = fv_d_win_comb(t, r[j * ES], mn);
        return t;
    }
    }
}

template <typename T, typename ACC, typename IT, bool ROW>
__global__ void
__launch_bounds__(FV_CU_FLT_THREADS)
    fv_k_flt_tile(const __grid_constant__ fv_cu_flt_targs<IT> p) /* read in place: no local copy for the batch loops */
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
    } else if (tid == 0) { /* constant offsets into the parameters */
#pragma unroll
        for (int i = 0; i < FV_CU_FLT_WINLINE; i++) {
            if (i >= nw) /* early out: a tile's worth of time when blocks take one tile */
                break;
            w[i] = (ACC)p.wi[i];
        }
    }

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        IT ia, ic, bi, bo;
        const int64_t b = fv_d_flt_tile_at(p, tile, ia, ic, bi, bo);
        const IT a0 = ia * TA, c0 = ic * (IT)TC;
        const IT cc = c0 + (ROW ? cl : lane);
        const bool okc = cc < p.g.nc;
        const IT ea = p.g.n - a0 < TA ? p.g.n - a0 : TA; /* outputs in this tile */
        const char *src = p.in + bi + cc * p.g.c_in;

        __syncthreads(); /* the previous tile's readers are done */
        if (okc) {
            ACC *dst = ROW ? t0 + (size_t)cl * (size_t)L : t0 + lane;
            const IT step = ROW ? (IT)lpl : (IT)8;
            const IT es = ROW ? 1 : 32;
            bool nan = false;
            for (IT a = ROW ? (IT)lane : (IT)r0; a < L; a += step) {
                const ACC x = fv_d_flt_load<T, ACC>(p, src, a0 + a - p.left, cv);
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
        if (p.dbl) { /* min/max over [i, i + P) for P = 2, 4, ... <= size */
            ACC *a_buf = t0, *b_buf = t1;
            for (; 2 * P <= size; P *= 2) {
                IT last = L - 2 * P;
                if (okc) {
                    if (ROW) {
                        const ACC *s = a_buf + (size_t)cl * (size_t)L;
                        ACC *d = b_buf + (size_t)cl * (size_t)L;
                        for (IT i = lane; i <= last; i += lpl)
                            d[i] = fv_d_win_comb(s[i], s[i + P], mn);
                    } else {
                        for (IT i = r0; i <= last; i += 8)
                            b_buf[i * 32 + lane] = fv_d_win_comb(a_buf[i * 32 + lane], a_buf[(i + P) * 32 + lane], mn);
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
                ACC v =
                    p.dbl ? fv_d_win_comb(r[a], r[a + size - P], mn) : fv_d_flt_window<ACC, 1>(r + a, w, kind, size);
                fv_d_flt_store(dst + (a0 + a) * p.g.s_out, p.odt, v);
            }
        } else {
            const ACC *r = src_t + lane;
            for (IT a = r0; a < ea; a += 8) {
                ACC v = p.dbl ? fv_d_win_comb(r[a * 32], r[(a + size - P) * 32], mn)
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
 * outputs (fv_d_win_r: 8 in float, 4 in double), sliding a window of R values through
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
#define FV_CU_FLT_LU 2 /* 16-byte loads in flight per thread (interior tiles) */

/* ROW tiles: whole lines out as 16-byte chunks, line cr's output a from
 * t0[a * FV_CU_FLT_PITCH + cr], cast as fv_d_flt_put casts. G = 32 / per threads take
 * consecutive chunks of one line: a warp's shared reads fall in distinct banks
 * (per * (chunk) + line spans 32 values) and its stores fill whole sectors. */
template <typename O, typename ACC, typename IT>
__device__ __forceinline__ void
fv_d_flt_vstore_rows(O *, const ACC *t0, char *org, IT c_out, int ta, int tid)
{
    const int per = 16 / (int)sizeof(O), G = 32 / per, nck = ta / per;
    const int slot = tid / G; /* G threads per slot, FV_CU_FLT_THREADS / G slots */
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
    if (G <= 8) { /* 8 / G slots per line: a thread keeps its line, chunks 8 apart */
        const int cr = slot & 31;
        for (int k = tid % G + G * (slot >> 5); k < nck; k += 8)
            chunk(cr, k);
    } else { /* 16 slots: a thread takes two lines */
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
    return (T)s; /* 8 / 16-bit: the low bits (two's complement for the signed types) */
}

template <typename T, typename ACC, typename IT, bool ROW>
__global__ void
__launch_bounds__(FV_CU_FLT_THREADS, (sizeof(ACC) == 4 ? 4 : 3) - (sizeof(IT) == 8))
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
    const int R = fv_d_win_r<ACC>::value, M = 128 / (8 * R); /* TA <= 128 outputs: M slides per thread */
    const int ES = (int)sizeof(T), PER = 16 / ES;            /* elements per 16-byte chunk */

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
        IT ia, ic, bi, bo;
        const int64_t b = fv_d_flt_tile_at(p, tile, ia, ic, bi, bo);
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
                for (int u = 0; u < FV_CU_FLT_LU; u++) { /* all loads first: FV_CU_FLT_LU chunks in flight */
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
                    const int cb = kk[u] * PER - ofs;          /* the chunk's first line */
                    if (cb >= 0 && cb + PER <= 32 && !track) { /* whole inside: no test per element */
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
                                flags[cr] = 1; /* benign: every writer stores 1 */
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
                    const int ab = kk[u] * PER - ofs;              /* the chunk's first position */
                    if (ab >= 0 && ab + PER <= (int)L && !track) { /* whole inside: no test per element */
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
                    const ACC x = fv_d_flt_load<T, ACC>(p, src, a0 + a - p.left, cv);
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
        if (chk) /* the uncertain outputs of the checked float sums, in one branch per tile */
            fv_d_win_check<M, R>(res, col, FV_CU_FLT_PITCH, warp * R, (int)TA, wd, kind, size, chk_e);
        if (!ROW) { /* lanes are adjacent lines: store directly */
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
        if (ROW) { /* back through shared memory, then along the lines */
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


/* The tile kernels' loads ("cuda.filter1d.loads"): "vector", 16-byte loads
 * and stores where the lines' alignment allows (the two-line kernels); "scalar",
 * element by element, always. */
static int
fv_cu_flt_vector_ok(const void *args, int device)
{
    return ((const fv_cu_flt_plan *)args)->v2 != 0;
}

FV__VARIANTS(fv_cu_flt_load_variants, "cuda.filter1d.loads", { "vector", fv_cu_flt_vector_ok, NULL },
             { "scalar", NULL, NULL })

template <typename T, typename ACC, typename IT>
fv_status
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
        if (g->row) { /* lines contiguous, the same misalignment on every line of a tile */
            t.vec = g->s_in == es && llabs(g->c_in) % 16 == 0;
            const fv_dtype od = j->out->dtype; /* the dtypes fv_d_flt_odt_run stores through a typed tag */
            t.vst = g->s_out == (int64_t)fv_dtype_size(od) && llabs(g->c_out) % 16 == 0 &&
                (od == FV_FLOAT32 || od == FV_FLOAT64 || od == FV_UINT8 || od == FV_INT8 || od == FV_UINT16 ||
                 od == FV_INT16 || od == FV_INT32 || od == FV_BOOL);
        } else { /* tile rows contiguous, likewise; the chunk tasks' float division is exact */
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

#define FV_CU_F1D_INST(T, ACC)                                                                               \
    template fv_status fv_cu_flt_launch_tile<T, ACC, int32_t>(const fv_cu_flt_job *, const fv_cu_flt_plan *, \
                                                              uint8_t *);                                    \
    template fv_status fv_cu_flt_launch_tile<T, ACC, int64_t>(const fv_cu_flt_job *, const fv_cu_flt_plan *, uint8_t *);
FV_CU_F1D_PAIRS(FV_CU_F1D_INST)
