/* The 1-D row kernels of fv__cuda_strip1d (fv_k_sep_row1: float32; fv_k_sep_row1u8: uint8
 * into uint8): one pass along the contiguous axis, a warp per line segment, the
 * window through warp shuffles; with their launch. */
#include "filter-sep2.cuh"

/* ==== 1-D rows: one float32 pass of S taps, centred, along the contiguous axis
 * (convolve1d / correlate1d / uniform / minimum / maximum_filter1d along the
 * last axis). A warp walks along a segment of one line, 128 values a step: each
 * lane holds one 16-byte chunk (cur) and the chunks one step back and ahead
 * (prev, next; the chunk two steps ahead is already loading), and takes the
 * D chunks on either side of its own by warp shuffles (the lanes at the warp's
 * ends read the neighbouring steps' chunks), so that no value goes through
 * shared memory. Steps whose windows reach past the line's ends replace those
 * values by the mode's (fv_d_flt_extend). Outputs: 4 a lane, summed by fv_d_win_slide
 * (the same operations in the same order as the tile kernels: the same bits),
 * one 16-byte store. Lines of 16-byte aligned rows whose length is a multiple
 * of 4 only. */
#define FV_CU_ROW_THREADS 256

/* a 16-byte chunk (float4 / uint4) from lane src */
template <typename V>
__device__ __forceinline__ V
fv_d_row_shfl(V v, int src)
{
    v.x = __shfl_sync(0xffffffffu, v.x, src);
    v.y = __shfl_sync(0xffffffffu, v.y, src);
    v.z = __shfl_sync(0xffffffffu, v.z, src);
    v.w = __shfl_sync(0xffffffffu, v.w, src);
    return v;
}

__device__ __forceinline__ void
fv_d_row_put(float *x, float4 v)
{
    x[0] = v.x;
    x[1] = v.y;
    x[2] = v.z;
    x[3] = v.w;
}

/* chunk c of a line of nch chunks (zeros outside: those values are replaced) */
template <typename V>
__device__ __forceinline__ V
fv_d_row_ld(const V *src, int c, int nch)
{
    return c >= 0 && c < nch ? __ldg(src + c) : V{};
}

/* tile t of the row kernels: its line's input and output (batch offsets and row)
 * and its segment's chunks [c0, c1) of the line's nch */
__device__ __forceinline__ void
fv_d_row_line(const fv_cu_sep_args &p, int64_t t, int nch, const char *&in, char *&out, int &c0, int &c1)
{
    const int64_t tb = t / p.ntc;
    const int sg = (int)(t - tb * p.ntc);
    int b = (int)(tb / p.nr);
    const int r = (int)(tb - (int64_t)b * p.nr);
    int bi = 0, bo = 0;
    for (int d = p.nb - 1; d >= 0; d--) {
        const int qd = b / p.bshape[d], x = b - qd * p.bshape[d];
        b = qd;
        bi += x * p.bs_in[d];
        bo += x * p.bs_out[d];
    }
    in = p.in + bi + r * p.sr_in;
    out = p.out + bo + r * p.sr_out;
    c0 = sg * p.th * 32;
    c1 = c0 + p.th * 32 < nch ? c0 + p.th * 32 : nch;
}

/* the chunks of cb bytes that the warp's first segment loads first, towards L1
 * while the block's first warp resolves the weights (no load waits on them) */
__device__ __forceinline__ void
fv_d_row_prefetch(const fv_cu_sep_args &p, int lane, int cb)
{
    const int64_t t = (int64_t)blockIdx.x * (FV_CU_ROW_THREADS / 32) + (threadIdx.x >> 5);
    if (t >= p.ntiles)
        return;
    const int nch = p.nc / cb;
    const char *li;
    char *lo;
    int c0, c1;
    fv_d_row_line(p, t, nch, li, lo, c0, c1);
#pragma unroll
    for (int k = -1; k < 3; k++) {
        const int c = c0 + 32 * k + lane;
        if (c >= 0 && c < nch)
            asm volatile("prefetch.global.L1 [%0];" ::"l"(li + (int64_t)c * cb));
    }
}

/* one segment (tile t) of one line */
template <int KIND, int S, int TRK>
__device__ __forceinline__ void
fv_d_row_segment(const fv_cu_sep_args &p, const float (&w)[S], int64_t t, int lane, float cv, bool &odd)
{
    const int D = (S / 2 + 3) / 4; /* chunks either side a window reaches */
    const int n = p.nc, nch = n >> 2;
    const char *li;
    char *lo;
    int c0, c1;
    fv_d_row_line(p, t, nch, li, lo, c0, c1);
    const float4 *src = (const float4 *)li;
    float4 *dst = (float4 *)lo;
    float wr[S];
    fv_d_strip_wregs<KIND, S>(w, wr);
    fv_d_strip_trk<TRK> trk;
    float4 pv = fv_d_row_ld(src, c0 - 32 + lane, nch), cu = fv_d_row_ld(src, c0 + lane, nch);
    float4 nx = fv_d_row_ld(src, c0 + 32 + lane, nch), n2 = fv_d_row_ld(src, c0 + 64 + lane, nch);
    for (int cb = c0; cb < c1; cb += 32) {
        const int c = cb + lane;
        if (c < c1) {
            trk.add(cu.x);
            trk.add(cu.y);
            trk.add(cu.z);
            trk.add(cu.w);
        }
        float xb[4 * (2 * D + 1) + 1];
        fv_d_row_put(xb + 4 * D, cu);
#pragma unroll
        for (int d = 1; d <= D; d++) {
            fv_d_row_put(xb + 4 * (D - d), fv_d_row_shfl(lane >= 32 - d ? pv : cu, (lane - d) & 31));
            fv_d_row_put(xb + 4 * (D + d), fv_d_row_shfl(lane < d ? nx : cu, (lane + d) & 31));
        }
        xb[4 * (2 * D + 1)] = 0.0f;
        if (cb - D < 0 || cb + 32 + D > nch) { /* a window past an end of the line */
#pragma unroll 20
            for (int i = 0; i < 4 * (2 * D + 1); i++) {
                const int q = 4 * (c - D) + i;
                if (q < 0 || q >= n) {
                    const int e = fv_d_flt_extend<int>(q, n, p.p1.mode);
                    xb[i] = e < 0 ? cv : __ldg((const float *)src + e);
                }
            }
        }
        float acc[4];
        fv_d_win_slide_k<float, KIND, 4, S>(xb + 4 * D - S / 2, 1, wr, S, acc);
        if (c < c1)
            dst[c] = make_float4(acc[0], acc[1], acc[2], acc[3]);
        pv = cu;
        cu = nx;
        nx = n2;
        n2 = fv_d_row_ld(src, cb + 96 + lane, nch);
    }
    trk.flush(odd);
}

template <int S>
__global__ void
__launch_bounds__(FV_CU_ROW_THREADS) fv_k_sep_row1(const __grid_constant__ fv_cu_sep_args p)
{
    __shared__ float sw[S];
    __shared__ int skind;
    const int tid = threadIdx.x, lane = tid & 31, tr = p.p1.track;
    fv_d_row_prefetch(p, lane, 16);
    if (tid < 32) {
        const int kind = fv_d_strip1_kind_weights<S>(p, sw);
        if (tid == 0)
            skind = kind;
    }
    __syncthreads();
    const int kind = skind;
    const float(&w)[S] = *(const float(*)[S])sw;
    const float cv = (float)p.p1.cval;
    bool odd = false;
    const int64_t nw = (int64_t)gridDim.x * (FV_CU_ROW_THREADS / 32);
    for (int64_t t = (int64_t)blockIdx.x * (FV_CU_ROW_THREADS / 32) + (tid >> 5); t < p.ntiles; t += nw)
        FV_CU_STRIP_TRK_SWITCH(tr, FV_CU_STRIP_KIND_SWITCH(kind, (fv_d_row_segment<KD, S, TK>(p, w, t, lane, cv, odd))))
    if (odd)
        *p.flag = 1; /* benign: every writer stores 1 */
}

/* 8-bit lines (uint8 into uint8): one chunk of VB bytes (4, 8 or 16: values) a
 * lane, the window's values as floats (exact), the float32 row kernel's sums
 * (fv_d_win_slide), stored as fv_k_flt_tile2 stores them. Where float sums are not exact
 * (correlation weights), tile2's checked path (fv_d_win_check): an output within e of
 * a non-zero integer is summed again in double, in scipy's order, from the line.
 * Narrow chunks give more lanes and fewer registers a lane: what lines of a few
 * thousand bytes need to fill the GPU. */
template <int VB> struct fv_d_row_vec;
template <> struct fv_d_row_vec<4> {
    typedef unsigned T;
};
template <> struct fv_d_row_vec<8> {
    typedef uint2 T;
};
template <> struct fv_d_row_vec<16> {
    typedef uint4 T;
};

__device__ __forceinline__ unsigned
fv_d_row_shfl(unsigned v, int src)
{
    return __shfl_sync(0xffffffffu, v, src);
}

__device__ __forceinline__ uint2
fv_d_row_shfl(uint2 v, int src)
{
    v.x = __shfl_sync(0xffffffffu, v.x, src);
    v.y = __shfl_sync(0xffffffffu, v.y, src);
    return v;
}

/* a chunk's 32-bit words, and back */
__device__ __forceinline__ void
fv_d_row_words(unsigned v, unsigned *w)
{
    w[0] = v;
}
__device__ __forceinline__ void
fv_d_row_words(uint2 v, unsigned *w)
{
    w[0] = v.x;
    w[1] = v.y;
}
__device__ __forceinline__ void
fv_d_row_words(uint4 v, unsigned *w)
{
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
}
__device__ __forceinline__ void
fv_d_row_chunk(const unsigned *w, unsigned &v)
{
    v = w[0];
}
__device__ __forceinline__ void
fv_d_row_chunk(const unsigned *w, uint2 &v)
{
    v = make_uint2(w[0], w[1]);
}
__device__ __forceinline__ void
fv_d_row_chunk(const unsigned *w, uint4 &v)
{
    v = make_uint4(w[0], w[1], w[2], w[3]);
}

/* byte k (a constant) of the words w, as a float (exact: the byte in the mantissa
 * of 2^23, then 2^23 subtracted) */
__device__ __forceinline__ float
fv_d_row_byte(const unsigned *w, int k)
{
    return __uint_as_float(__byte_perm(w[k >> 2], 0x4B000000u, (unsigned)(k & 3) | 0x7540u)) - 8388608.0f;
}

/* fv_d_win_window_d's double sum (the same operations in the same order) of the
 * window starting at position q0 of a line of n bytes, the mode's values past
 * its ends */
__device__ __forceinline__ double
fv_d_row_window_d(const uint8_t *line, int n, int q0, int mode, float cv, const double *wd, int64_t wst, int kind,
                  int size)
{
    return fv_d_win_sum_d(
        [&](int j) -> double {
            const int q = fv_d_flt_extend<int>(q0 + j, n, mode);
            return q < 0 ? (double)cv : (double)__ldg(line + q);
        },
        wd, wst, kind, size);
}

template <int KIND, int S, int VB, bool CHK>
__device__ __forceinline__ void
fv_d_row_segment_u8(const fv_cu_sep_args &p, const float (&w)[S], int64_t t, int lane, float cv, float e)
{
    typedef typename fv_d_row_vec<VB>::T V;
    const int H = S / 2, D = (H + VB - 1) / VB;           /* chunks either side a window reaches */
    const int NW = (2 * D + 1) * VB / 4, NX = VB + 2 * H; /* words held; window values: positions VB c - H ... */
    const int n = p.nc, nch = n / VB;
    const char *li;
    char *lo;
    int c0, c1;
    fv_d_row_line(p, t, nch, li, lo, c0, c1);
    const uint8_t *line = (const uint8_t *)li;
    const V *src = (const V *)line;
    V *dst = (V *)lo;
    const double *wd = p.dw ? p.dw : p.p1.w;
    const int64_t wst = p.dw ? p.dwst : 1;
    const bool all = e > 1.0f; /* +inf (fv_d_win_chk_dev): every output again in double */
    float wr[S];
    fv_d_strip_wregs<KIND, S>(w, wr);
    V pv = fv_d_row_ld(src, c0 - 32 + lane, nch), cu = fv_d_row_ld(src, c0 + lane, nch);
    V nx = fv_d_row_ld(src, c0 + 32 + lane, nch), n2 = fv_d_row_ld(src, c0 + 64 + lane, nch);
    for (int cb = c0; cb < c1; cb += 32) {
        const int c = cb + lane;
        unsigned wv[NW];
        fv_d_row_words(cu, wv + D * VB / 4);
#pragma unroll
        for (int d = 1; d <= D; d++) {
            fv_d_row_words(fv_d_row_shfl(lane >= 32 - d ? pv : cu, (lane - d) & 31), wv + (D - d) * VB / 4);
            fv_d_row_words(fv_d_row_shfl(lane < d ? nx : cu, (lane + d) & 31), wv + (D + d) * VB / 4);
        }
        float xb[NX + 1];
#pragma unroll
        for (int i = 0; i < NX; i++)
            xb[i] = fv_d_row_byte(wv, D * VB - H + i);
        xb[NX] = 0.0f;
        if (cb - D < 0 || cb + 32 + D > nch) { /* a window past an end of the line */
#pragma unroll
            for (int i = 0; i < NX; i++) {
                const int q = VB * c - H + i;
                if (q < 0 || q >= n) {
                    const int x = fv_d_flt_extend<int>(q, n, p.p1.mode);
                    xb[i] = x < 0 ? cv : (float)__ldg(line + x);
                }
            }
        }
        unsigned o[VB / 4], bad = 0;
#pragma unroll
        for (int g = 0; g < VB / 4; g++) {
            float acc[4];
            fv_d_win_slide_k<float, KIND, 4, S>(xb + 4 * g, 1, wr, S, acc);
            o[g] = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                if (CHK && fv_d_win_uncertain(acc[k], e, all))
                    bad |= 1u << (4 * g + k);
                o[g] |= (unsigned)fv_d_flt_caster<uint8_t>::c(acc[k]) << (8 * k);
            }
        }
        if (c < c1) {
            V ov;
            fv_d_row_chunk(o, ov);
            dst[c] = ov;
            /* the uncertain ones again in double, stored over the chunk's bytes (the low
             * byte of the truncated sum: what fv_d_win_check's value stores as uint8) */
            for (; CHK && bad; bad &= bad - 1) {
                const int k = __ffs(bad) - 1;
                const double v = fv_d_row_window_d(line, n, VB * c + k - H, p.p1.mode, cv, wd, wst, KIND, S);
                ((uint8_t *)dst)[VB * c + k] = (uint8_t)fv__cvt32(v);
            }
        }
        pv = cu;
        cu = nx;
        nx = n2;
        n2 = fv_d_row_ld(src, cb + 96 + lane, nch);
    }
}

template <int S, int VB>
__global__ void
__launch_bounds__(FV_CU_ROW_THREADS) fv_k_sep_row1u8(const __grid_constant__ fv_cu_sep_args p)
{
    __shared__ float sw[S], se;
    __shared__ int skind;
    const int tid = threadIdx.x, lane = tid & 31;
    fv_d_row_prefetch(p, lane, VB);
    if (tid < 32) {
        const int kind = fv_d_strip1_kind_weights<S>(p, sw);
        const float e = p.chk >= 0.0f ? p.chk : fv_d_win_chk_dev(p.dw, p.dwst, S, kind, -(double)p.chk);
        if (tid == 0) {
            skind = kind;
            se = e;
        }
    }
    __syncthreads();
    const int kind = skind;
    const float e = se;
    const float(&w)[S] = *(const float(*)[S])sw;
    const float cv = (float)p.p1.cval;
    const int64_t nw = (int64_t)gridDim.x * (FV_CU_ROW_THREADS / 32);
    for (int64_t t = (int64_t)blockIdx.x * (FV_CU_ROW_THREADS / 32) + (tid >> 5); t < p.ntiles; t += nw) {
        if (e != 0.0f) { /* correlation weights, checked */
            switch (kind) {
            case FV_CU_WIN_SYM:
                fv_d_row_segment_u8<FV_CU_WIN_SYM, S, VB, true>(p, w, t, lane, cv, e);
                break;
            case FV_CU_WIN_ANTI:
                fv_d_row_segment_u8<FV_CU_WIN_ANTI, S, VB, true>(p, w, t, lane, cv, e);
                break;
            default:
                fv_d_row_segment_u8<FV_CU_WIN_CORR, S, VB, true>(p, w, t, lane, cv, e);
                break;
            }
        } else {
            FV_CU_STRIP_KIND_SWITCH(kind, (fv_d_row_segment_u8<KD, S, VB, false>(p, w, t, lane, cv, e)))
        }
    }
}

/* blocks of kernel k resident on a multiprocessor (the occupancy API; *cache
 * holds it after the first call) */
static int
fv_cu_sep_resident_blocks(void (*k)(fv_cu_sep_args), int *cache)
{
    int nb = *cache;
    if (nb > 0)
        return nb;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, FV_CU_ROW_THREADS, 0) != cudaSuccess || nb < 1) {
        (void)cudaGetLastError();
        nb = 1;
    }
    *cache = nb; /* benign race: every writer stores the same value */
    return nb;
}

/* the row kernels: lines cut into segments of th steps (32 chunks each). The
 * resident warps take the segments in rounds; th is the one of the first 64
 * segment counts with the fewest rounds x (th + 2) (a segment's start costs
 * about two steps: its first loads). A round's last segments no longer wait
 * for a few left over (3840x2160: 2160 lines of 15 or 30 steps). vb: the 8-bit
 * kernel's chunk bytes (0: float32, 16-byte chunks). FOVEA_SEP_TH: th. */
template <int S>
fv_status
fv_cu_sep_row1_go(const fv_cu_sep_args *a, int sms, int64_t nbatch, cudaStream_t stream, int vb)
{
    static int occ[4];
    fv_cu_sep_args t = *a;
    const int64_t lines = (int64_t)t.nr * nbatch, steps = ((vb ? t.nc / vb : t.nc >> 2) + 31) / 32;
    void (*k)(fv_cu_sep_args) = vb == 4 ? fv_k_sep_row1u8<S, 4>
        : vb == 8                       ? fv_k_sep_row1u8<S, 8>
        : vb == 16                      ? fv_k_sep_row1u8<S, 16>
                                        : fv_k_sep_row1<S>;
    const int nb = fv_cu_sep_resident_blocks(k, &occ[vb == 4 ? 0 : vb == 8 ? 1 : vb == 16 ? 2 : 3]);
    const int64_t rb = (int64_t)nb * sms, rw = rb * (FV_CU_ROW_THREADS / 32); /* resident blocks, warps */
    int64_t th = steps, best = -1;
    for (int64_t sg = 1; sg <= 64 && sg <= steps; sg++) {
        const int64_t h = (steps + sg - 1) / sg, n = lines * ((steps + h - 1) / h);
        const int64_t cost = (n + rw - 1) / rw * (h + 2);
        if (best < 0 || cost < best) {
            best = cost;
            th = h;
        }
    }
    t.th = (int)th;
    t.ntc = (int)((steps + th - 1) / th);
    t.ntiles = lines * t.ntc;
    const int64_t blocks = (t.ntiles + FV_CU_ROW_THREADS / 32 - 1) / (FV_CU_ROW_THREADS / 32);
    k<<<(unsigned)(blocks < rb ? blocks : rb), FV_CU_ROW_THREADS, 0, stream>>>(t);
    return fv_cu_launch_status("filter1d row kernel launch");
}

/* the lines' (last axis) data, starts and pitches in whole chunks of b bytes */
int
fv_cu_sep_chunks_fit(const fv_array *in, const fv_array *out, int b)
{
    const int cd = in->ndim - 1;
    if ((in->shape[cd] * in->strides[cd]) % b || ((uintptr_t)in->data | (uintptr_t)out->data) % (uintptr_t)b)
        return 0;
    for (int d = 0; d < cd; d++)
        if (in->shape[d] > 1 && (in->strides[d] % b || out->strides[d] % b))
            return 0;
    return 1;
}


/* the window sizes fv__cuda_strip1d runs (filter-sep2.cu) */
template fv_status fv_cu_sep_row1_go<3>(const fv_cu_sep_args *a, int sms, int64_t nbatch, cudaStream_t stream, int vb);
template fv_status fv_cu_sep_row1_go<5>(const fv_cu_sep_args *a, int sms, int64_t nbatch, cudaStream_t stream, int vb);
template fv_status fv_cu_sep_row1_go<9>(const fv_cu_sep_args *a, int sms, int64_t nbatch, cudaStream_t stream, int vb);
template fv_status fv_cu_sep_row1_go<17>(const fv_cu_sep_args *a, int sms, int64_t nbatch, cudaStream_t stream, int vb);
