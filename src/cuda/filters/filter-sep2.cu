/* CUDA kernel of FV__OP_SEP2: two 1-D passes of a separable filter (correlate1d,
 * uniform_filter1d, minimum/maximum_filter1d; gaussian_filter, uniform_filter,
 * minimum/maximum_filter with a full box, sobel, prewitt, ...) in ONE kernel,
 * with the bits of the pass-by-pass chain (filter1d.cu, through a temporary of
 * the intermediate dtype).
 *
 * Axes: the tile's rows run along the sparser of the two pass axes, its
 * columns along the denser (coalesced; 16-byte chunks for interior tiles);
 * every other axis is a batch. Pass 1 runs down the columns (its axis is the
 * sparser one: gaussian_filter, sobel(axis=0), ...) or, `pd`, along the rows
 * (prewitt(axis=-1), sobel(axis=1), ...). A block takes an output tile of
 * FVS_TP x FVS_TQ elements:
 *  1. loads the input tile plus both halos into shared memory, converted to
 *     pass 1's accumulator type. Along pass 1's axis the tile is extended with
 *     pass 1's mode (cval in constant mode); along pass 2's with pass 2's mode,
 *     so that a halo line there is the intermediate's own boundary extension
 *     (a line outside the image in constant mode is the intermediate's cval
 *     and is not loaded);
 *  2. pass 1 (each thread R outputs (fvk_r) of one line slid through
 *     registers, filter1d.cu's fvf_k_tile2 arithmetic and order), each result
 *     rounded to the intermediate dtype exactly as filter1d's store does, then
 *     read back in pass 2's accumulator type: the shared intermediate holds the
 *     values the unfused chain's second pass would read from its temporary;
 *  3. pass 2 likewise, results to shared;
 *  4. the output tile is written once, coalesced along the rows (whole
 *     interior tiles as 16-byte vectors where the output allows).
 * Float data whose unfused pass would redo lines serially (min/max over NaN,
 * uniform sums through NaN or inf) sets a device flag when such a value appears
 * (input, or intermediate); the pass-by-pass chain is then queued behind the
 * fused kernel with that flag as its guard (its kernels return at once when the
 * flag is clear), so those rare inputs get the unfused bits too.
 *
 * The fused path is taken (fv__cuda_sep2 declines otherwise, and src/ops runs
 * the passes one by one; FOVEA_SEP_UNFUSED=1 forces that) when:
 *  - the two passes are along different axes of an array of >= 2 dimensions;
 *  - input dtype bool, uint8, uint16, int16, int32, float32 or float64, and the
 *    intermediate is the input dtype (bool: uint8), float32 or float64, with the
 *    output dtype the intermediate's (or bool from a uint8 intermediate);
 *  - each window has at most FVK_MAXTAPS taps; min/max at most 24 (the direct
 *    min/max of filter1d; longer ones take its doubling passes);
 *  - no pass is a uniform filter that filter1d runs serially (non-exact sums
 *    into integer outputs: float data, or a non-integral / huge cval in
 *    constant mode); in constant mode, no NaN cval for min/max and no NaN/inf
 *    cval for uniform passes over float data;
 *  - both arrays aligned to their element size and within 2^31 bytes (32-bit
 *    index math), and the tiles fit the device's shared memory.
 *
 * Strip kernels (fvs_k_strip, fvs_k_strip_pd; below): float32 data,
 * intermediate and output with both windows of 3, 5, 9 or 17 taps and the
 * columns contiguous in both arrays take a kernel compiled for that window
 * size instead of the tiles: a block walks down a strip of columns, pass 1's
 * window (or pass 2's, pd) slides through registers, and the input is read
 * once (no halo rows recomputed per tile). Other float32 cases of those sizes
 * take the tile kernel compiled for the size (fvs_spec); the rest the general
 * tile kernel. The same file holds the 1-D strip kernel (fvs_k_strip1,
 * fv__cuda_strip1d) that filter1d.cu runs first for float32 passes along any
 * axis but the last. FOVEA_SEP_NOSTRIP=1 / FOVEA_SEP_NOSPEC=1 turn the strip /
 * size-compiled kernels off (timing comparisons; the bits are the same). */
#include <limits.h>
#include <type_traits>

#include "filters-common.cuh"
#include "core/plan.h"

extern "C" fv_status fv__cuda_filter1d_guarded(fv_context *ctx, const fv__op_args *a, const int *guard);

#define FVS_THREADS 256
#define FVS_TP 64          /* outputs per tile along p */
#define FVS_TQ 64          /* outputs per tile along q */
#define FVK_MAXTAPS 64
#define FVS_MM_DIRECT 24   /* = filter1d's FVF_MM_DIRECT */
#define FVT_ROWS 192   /* strip kernel: about this many output rows per strip */
#define FVS_LU 2           /* 16-byte loads in flight per thread (interior tiles) */

struct fvs_pass {
    int kind, mode, size, left;
    int track;             /* float data: 1 flag NaN (min/max), 2 flag NaN/inf (uniform), 0 none */
    double cval;
    double w[FVK_MAXTAPS];
    float wf[FVK_MAXTAPS];   /* w rounded to float: the strip kernel's operands, read in place */
};

struct fvs_args {
    const char *in;
    char *out;
    int *flag;                                 /* set to 1 when a tracked value is seen */
    int nr, nc, sr_in, sc_in, sr_out, sc_out;  /* the tile's rows (sparser axis) and columns: extents, byte strides */
    int pd;                                    /* pass 1 runs along the rows (the columns' axis is pass 1's) */
    int nb;
    int bshape[FV_MAX_NDIM], bs_in[FV_MAX_NDIM], bs_out[FV_MAX_NDIM];
    int ntr, ntc;
    int th;                                    /* strip kernels: output rows per strip */
    const double *dw;                          /* 1-D strips: device weights (kind FVK_AUTO), dwst apart */
    int64_t dwst;
    int64_t ntiles;
    int odt;
    int fast;                                  /* columns contiguous, |row stride| a multiple of 16: 16-byte loads */
    int vstore, obool;                         /* out likewise (16-byte stores of whole tiles); out is bool */
    float chk;                                 /* 8-bit row kernel: the checked float path's bound (fvk_check),
                                                * 0 (float sums exact), or -vmax (device weights) */
    fvs_pass p1, p2;
};

/* One output element as fvf_store writes it, for the output dtype TM (bool: a
 * uint8 intermediate stored as 0 / 1). */
template <typename TM, typename ACC>
__device__ __forceinline__ TM
fvs_out(ACC v, bool obool)
{
    if (fvf_is_float<TM>::value)
        return (TM)v;
    TM x = fvf_to_in<TM>((double)v);
    return obool ? (TM)(x != 0) : x;
}

/* pass 1's result as the temporary of the unfused chain holds it, read back in
 * pass 2's accumulator type */
template <typename TM, typename ACC2, typename ACC1>
__device__ __forceinline__ ACC2
fvs_mid(ACC1 a)
{
    if (fvf_is_float<TM>::value)
        return (ACC2)(TM)a;   /* one rounding, as through double */
    return (ACC2)fvf_to_in<TM>((double)a);
}

/* R results of pass 1 into the intermediate (m[k * st]), each the value the
 * unfused chain's temporary holds; tracked values among the first n (the
 * tile's) set odd, tested apart from the stores (one branch per task). */
template <typename TM, typename ACC2, typename ACC1, int R>
__device__ __forceinline__ void
fvs_put_mid(const ACC1 (&acc)[R], ACC2 *m, int st, int tr, int n, bool &odd)
{
    ACC2 y[R];
#pragma unroll
    for (int k = 0; k < R; k++)
        y[k] = fvs_mid<TM, ACC2>(acc[k]);
    if (tr) {
#pragma unroll
        for (int k = 0; k < R; k++)
            if (k < n && fvk_odd(y[k], tr == 2))
                odd = true;
    }
#pragma unroll
    for (int k = 0; k < R; k++)
        m[k * st] = y[k];
}

/* tile -> its row and column of tiles and the byte offsets of its batch line
 * in the input and the output */
__device__ __forceinline__ void
fvs_tile_at(const fvs_args &p, int64_t tile, int &ir, int &ic, int &bi, int &bo)
{
    const int64_t tb = tile / p.ntc;
    ic = (int)(tile - tb * p.ntc);
    int b = (int)(tb / p.ntr);
    ir = (int)(tb - (int64_t)b * p.ntr);
    bi = bo = 0;
    for (int d = p.nb - 1; d >= 0; d--) {
        int qd = b / p.bshape[d], x = b - qd * p.bshape[d];
        b = qd;
        bi += x * p.bs_in[d];
        bo += x * p.bs_out[d];
    }
}

/* Shared layout (in units of double, then typed). Rows are the tile's sparser
 * axis, columns its denser one (16-byte loads run along the columns); hr / hc
 * are the window sizes of the passes along the rows / columns:
 *   w1[FVK_MAXTAPS] (ACC1), w2[FVK_MAXTAPS] (ACC2),
 *   sIn  ACC1[(TR + hr) * CP]  (C = TC + hc columns: halo plus one spare; CP = C
 *                               (odd when pass 1 runs along the rows' length),
 *                               or, where the input's type is ACC1 and pass 1
 *                               runs down the columns (16-byte rows stored as
 *                               loaded), C plus room for the chunks'
 *                               misalignment, rounded to 16 bytes),
 *   sMid ACC2[TR * PM]          pass 1 down the columns (PM = C | 1), or
 *        ACC2[(TR + hr) * PM]   pass 1 along the rows (PM = TC | 1),
 *   sOut ACC2[TR * (TC + 1)]    (aliases sIn when it fits there),
 *   sRaw (unless stored as loaded) (TR + hr) rows of RP bytes: the 16-byte
 *        chunks as loaded, converted into sIn after (aliases sMid when it fits). */
template <typename T1, typename ACC1, typename ACC2>
struct fvs_layout {
    size_t in_off, mid_off, out_off, raw_off, bytes;   /* byte offsets */
    int cp, rp, pm;
    __host__ __device__ fvs_layout(int hr, int hc, bool pd)
    {
        const size_t C = FVS_TQ + hc;
        const bool direct = std::is_same<T1, ACC1>::value && !pd;   /* float -> float, double -> double */
        const int per16 = 16 / (int)sizeof(T1);
        cp = direct ? (int)((C + 2 * per16 + per16 - 1) / per16 * per16) : (int)(pd ? C | 1 : C);
        rp = direct ? 0 : (int)((C * sizeof(T1) + 30 + 15) / 16 * 16);
        pm = (int)(pd ? FVS_TQ | 1 : C | 1);
        size_t o = 2 * FVK_MAXTAPS * sizeof(double);
        in_off = o;
        size_t in_b = (size_t)(FVS_TP + hr) * cp * sizeof(ACC1);
        o += (in_b + 15) & ~(size_t)15;
        mid_off = o;
        size_t mid_b = ((size_t)(pd ? FVS_TP + hr : FVS_TP) * pm * sizeof(ACC2) + 15) & ~(size_t)15;
        o += mid_b;
        size_t out_b = (size_t)FVS_TP * (FVS_TQ + 1) * sizeof(ACC2);
        if (out_b <= in_b) {
            out_off = in_off;
        } else {
            out_off = o;
            o += (out_b + 15) & ~(size_t)15;
        }
        size_t raw_b = (size_t)(FVS_TP + hr) * rp;
        if (raw_b <= mid_b) {
            raw_off = mid_off;
        } else {
            raw_off = o;
            o += raw_b;
        }
        bytes = o;
    }
};

template <typename T1, typename ACC1, typename TM, typename ACC2, int S = 0>
__global__ void __launch_bounds__(FVS_THREADS, sizeof(ACC1) == 4 && sizeof(ACC2) == 4 ? 4 : 3)
fvs_k_sep2(const __grid_constant__ fvs_args p)
{
    extern __shared__ double fvs_smem[];
    char *sm = (char *)fvs_smem;
    const bool pd = p.pd;   /* pass 1 along the rows' length (the dense axis), pass 2 down the columns */
    const fvs_pass &pr = pd ? p.p2 : p.p1, &pc = pd ? p.p1 : p.p2;   /* the passes along rows / columns */
    /* S > 0: both windows have S taps (fvs_spec): tile pitches, tap loops and
     * shared offsets are compile-time constants */
    const int s1 = S > 0 ? S : p.p1.size, s2 = S > 0 ? S : p.p2.size;
    const int hr = S > 0 ? S : pr.size, hc = S > 0 ? S : pc.size;
    const int k1 = p.p1.kind, k2 = p.p2.kind;
    const int C = FVS_TQ + hc, RI = FVS_TP + hr;
    const fvs_layout<T1, ACC1, ACC2> lay(hr, hc, pd);
    const int CP = lay.cp, RP = lay.rp, PM = lay.pm;
    const bool direct = std::is_same<T1, ACC1>::value && !pd;
    const int R1 = fvk_r<ACC1>::value, R2 = fvk_r<ACC2>::value;
    const float invC = 1.0f / (float)C, invRI = 1.0f / (float)RI;
    ACC1 *w1 = (ACC1 *)sm;
    ACC2 *w2 = (ACC2 *)(sm + FVK_MAXTAPS * sizeof(double));
    ACC1 *sIn = (ACC1 *)(sm + lay.in_off);
    ACC2 *sMid = (ACC2 *)(sm + lay.mid_off);
    ACC2 *sOut = (ACC2 *)(sm + lay.out_off);
    char *sRaw = sm + lay.raw_off;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const ACC1 cv1 = (ACC1)p.p1.cval;
    const ACC2 cv2 = (ACC2)p.p2.cval;
    const int tr1 = fvf_is_float<T1>::value ? p.p1.track : 0;
    const int tr2 = fvf_is_float<TM>::value ? p.p2.track : 0;
    bool odd = false;

    if (tid == 0) {   /* constant offsets into the parameters */
#pragma unroll
        for (int i = 0; i < FVK_MAXTAPS; i++) {
            if (i >= s1 && i >= s2)   /* early out (constant offsets all the same) */
                break;
            if (i < s1 && k1 <= FVK_ANTI)
                w1[i] = (ACC1)p.p1.w[i];
            if (i < s2 && k2 <= FVK_ANTI)
                w2[i] = (ACC2)p.p2.w[i];
        }
    }

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int ir, ic, bi, bo;
        fvs_tile_at(p, tile, ir, ic, bi, bo);
        const int r0t = ir * FVS_TP, c0t = ic * FVS_TQ;
        const int er = p.nr - r0t < FVS_TP ? p.nr - r0t : FVS_TP;   /* outputs of this tile down the columns */
        const int ec = p.nc - c0t < FVS_TQ ? p.nc - c0t : FVS_TQ;   /* and along the rows */
        const char *src = p.in + bi;

        __syncthreads();   /* the previous tile's readers of shared memory are done */
        /* 1. input tile + halos (+ a spare row and column) */
        int ofs = 0;   /* sIn's row r, column c is sIn[r * CP + ofs + c] */
        const int ir0 = r0t - pr.left, ic0 = c0t - pc.left;
        bool fast = false;
        int offb = 0, nch = 0;
        const char *a0 = NULL;
        if (p.fast && ir0 >= 0 && ir0 + RI <= p.nr && ic0 >= 0) {
            /* every row's bytes [lo, lo + C * es) lie in 16-byte chunks that hold
             * only that row's elements: load the chunks whole (rows are 16-byte
             * multiples apart, so every row has the same misalignment offb) */
            const char *lo = src + ir0 * p.sr_in + ic0 * (int)sizeof(T1);
            offb = (int)((uintptr_t)lo & 15);
            nch = (offb + C * (int)sizeof(T1) + 15) >> 4;
            fast = ic0 * (int)sizeof(T1) >= offb &&
                   ic0 * (int)sizeof(T1) - offb + nch * 16 <= p.nc * (int)sizeof(T1);
            a0 = lo - offb;
        }
        if (fast) {
            const int ntask = RI * nch;
            const float inv = 1.0f / (float)nch;
            for (int tb = 0; tb < ntask; tb += FVS_THREADS * FVS_LU) {
                uint4 v[FVS_LU];
                int rr[FVS_LU], kk[FVS_LU];
#pragma unroll
                for (int u = 0; u < FVS_LU; u++) {   /* all loads first: FVS_LU chunks in flight per thread */
                    const int t = tb + u * FVS_THREADS + tid;
                    rr[u] = -1;
                    if (t < ntask) {
                        rr[u] = fvk_div(t, inv);
                        kk[u] = t - rr[u] * nch;
                        v[u] = __ldg((const uint4 *)(a0 + rr[u] * p.sr_in + kk[u] * 16));
                    }
                }
#pragma unroll
                for (int u = 0; u < FVS_LU; u++) {
                    if (rr[u] < 0)
                        continue;
                    char *dst = direct ? (char *)(sIn + rr[u] * CP) + kk[u] * 16 : sRaw + rr[u] * RP + kk[u] * 16;
                    *(uint4 *)dst = v[u];
                    if (tr1) {   /* tracked values among the chunk's elements: all of them lie in
                                  * the image (fast's test) and the flag is the image's, so
                                  * those outside this tile's window need not be skipped */
                        const T1 *e = (const T1 *)&v[u];
                        bool bad = false;
#pragma unroll
                        for (int i = 0; i < 16 / (int)sizeof(T1); i++)
                            bad |= fvk_odd((ACC1)e[i], tr1 == 2);
                        if (bad)
                            odd = true;
                    }
                }
            }
            if (direct) {
                ofs = offb / (int)sizeof(T1);
            } else {   /* convert the raw chunks, element by element */
                __syncthreads();
                int r = tid / C, c = tid - r * C;
                const int dr = FVS_THREADS / C, dc = FVS_THREADS - dr * C;
                for (; r < RI;) {
                    sIn[r * CP + c] = (ACC1) * (const T1 *)(sRaw + r * RP + offb + c * (int)sizeof(T1));
                    r += dr;
                    c += dc;
                    if (c >= C) {
                        c -= C;
                        r++;
                    }
                }
            }
        } else {   /* lanes along the rows, each element extended by the modes: outside the
                    * image along pass 1's axis in constant mode the input's cval; along
                    * pass 2's, a constant line of the intermediate, never read */
            for (int c = lane; c < C; c += 32) {
                const int cq = fvf_extend<int>(c0t + c - pc.left, p.nc, pc.mode);
                if (cq < 0 && !pd)
                    continue;
                const char *col = src + cq * p.sc_in;
                for (int r = warp; r < RI; r += FVS_THREADS / 32) {
                    const int rp = fvf_extend<int>(r0t + r - pr.left, p.nr, pr.mode);
                    if (rp < 0 && pd)
                        continue;
                    ACC1 x = rp < 0 || cq < 0 ? cv1 : (ACC1)__ldg((const T1 *)(col + rp * p.sr_in));
                    if (tr1 && fvk_odd(x, tr1 == 2))
                        odd = true;
                    sIn[r * CP + c] = x;
                }
            }
        }
        __syncthreads();

        if (!pd) {
            /* the pitches without pd's select (constants when S > 0) */
            const fvs_layout<T1, ACC1, ACC2> ld(hr, hc, false);
            const int CP = S > 0 ? ld.cp : lay.cp, PM = S > 0 ? ld.pm : lay.pm;
            /* 2. pass 1 down the columns: task = (segment of R1 rows, column) */
            const int nseg1 = (er + R1 - 1) / R1;
            for (int t = tid; t < nseg1 * C; t += FVS_THREADS) {
                const int seg = fvk_div(t, invC), c = t - seg * C;
                const int r0 = seg * R1;
                ACC2 *m = sMid + r0 * PM + c;
                const int cq = c0t + c - p.p2.left;
                if (p.p2.mode == FV_MODE_CONSTANT && (cq < 0 || cq >= p.nc)) {
#pragma unroll
                    for (int k = 0; k < R1; k++)
                        m[k * PM] = cv2;
                    continue;
                }
                ACC1 acc[R1];
                fvk_slide<ACC1, R1, S>(sIn + r0 * CP + ofs + c, CP, w1, k1, s1, acc);
                fvs_put_mid<TM>(acc, m, PM, tr2, er - r0, odd);
            }
            __syncthreads();

            /* 3. pass 2 along the rows: task = (row, segment of R2 columns), lanes on rows */
            const int nseg2 = (ec + R2 - 1) / R2;
            for (int t = tid; t < nseg2 * FVS_TP; t += FVS_THREADS) {
                const int seg = t / FVS_TP, r = t - seg * FVS_TP;
                if (r >= er)
                    continue;
                ACC2 acc[R2];
                fvk_slide<ACC2, R2, S>(sMid + r * PM + seg * R2, 1, w2, k2, s2, acc);
                ACC2 *o = sOut + r * (FVS_TQ + 1) + seg * R2;
#pragma unroll
                for (int k = 0; k < R2; k++)
                    o[k] = acc[k];
            }
        } else {
            const fvs_layout<T1, ACC1, ACC2> ld(hr, hc, true);
            const int CP = S > 0 ? ld.cp : lay.cp, PM = S > 0 ? ld.pm : lay.pm;
            /* 2. pass 1 along the rows: task = (row, segment of R1 columns), lanes on rows */
            const int nseg1 = (ec + R1 - 1) / R1;
            for (int t = tid; t < nseg1 * RI; t += FVS_THREADS) {
                const int seg = fvk_div(t, invRI), r = t - seg * RI;
                ACC2 *m = sMid + r * PM + seg * R1;
                const int rq = r0t + r - p.p2.left;
                if (p.p2.mode == FV_MODE_CONSTANT && (rq < 0 || rq >= p.nr)) {
#pragma unroll
                    for (int k = 0; k < R1; k++)
                        m[k] = cv2;
                    continue;
                }
                ACC1 acc[R1];
                fvk_slide<ACC1, R1, S>(sIn + r * CP + ofs + seg * R1, 1, w1, k1, s1, acc);
                fvs_put_mid<TM>(acc, m, 1, tr2, ec - seg * R1, odd);
            }
            __syncthreads();

            /* 3. pass 2 down the columns: task = (segment of R2 rows, column), lanes on columns */
            const int nseg2 = (er + R2 - 1) / R2;
            for (int t = tid; t < nseg2 * FVS_TQ; t += FVS_THREADS) {
                const int seg = t / FVS_TQ, c = t - seg * FVS_TQ;
                if (c >= ec)
                    continue;
                ACC2 acc[R2];
                fvk_slide<ACC2, R2, S>(sMid + seg * R2 * PM + c, PM, w2, k2, s2, acc);
                ACC2 *o = sOut + seg * R2 * (FVS_TQ + 1) + c;
#pragma unroll
                for (int k = 0; k < R2; k++)
                    o[k * (FVS_TQ + 1)] = acc[k];
            }
        }
        __syncthreads();

        /* 4. the output tile, lanes along the rows */
        char *dst = p.out + bo;
        if (p.vstore && er == FVS_TP && ec == FVS_TQ) {   /* whole tile, 16-byte rows: one vector per thread and step */
            const int per = 16 / (int)sizeof(TM), cpr = FVS_TQ / per;   /* chunks per row */
            char *org = dst + r0t * p.sr_out + c0t * (int)sizeof(TM);
#pragma unroll 4
            for (int t = tid; t < FVS_TP * cpr; t += FVS_THREADS) {
                const int r = t / cpr, k = t - r * cpr;
                const ACC2 *o = sOut + r * (FVS_TQ + 1) + k * per;
                union {
                    uint4 v;
                    TM e[16 / sizeof(TM)];
                } u;
#pragma unroll
                for (int i = 0; i < 16 / (int)sizeof(TM); i++)
                    u.e[i] = fvs_out<TM>(o[i], p.obool);
                *(uint4 *)(org + r * p.sr_out + k * 16) = u.v;
            }
        } else {
            for (int r = warp; r < er; r += FVS_THREADS / 32) {
                char *row = dst + (r0t + r) * p.sr_out;
                for (int c = lane; c < ec; c += 32)
                    fvf_store(row + (c0t + c) * p.sc_out, p.odt, sOut[r * (FVS_TQ + 1) + c]);
            }
        }
    }
    if (odd)
        *p.flag = 1;   /* benign: every writer stores 1 */
}

/* ==== strips: float32 with both windows of S taps, pass 1 down the columns ==========
 * A block takes a strip of FVT_TQ<S> output columns and th output rows (th a
 * multiple of G) and walks down it: each thread owns one column of the
 * intermediate (the strip's columns plus pass 2's halo, extended by pass 2's
 * mode) and keeps pass 1's window of S input values in registers, one load per
 * row (the window is a ring whose slots are compile-time: the row loop is
 * unrolled by G, a multiple of S). Pass 1's results for G rows go to a shared
 * buffer (double-buffered, one barrier per G rows); pass 2 then runs along the
 * buffered rows, 4 outputs a task from 16-byte shared loads, stored as one
 * 16-byte vector. The next G rows' loads are issued before pass 2, so they are
 * in flight while it runs. Each output is summed by fvk_slide with the fused
 * kernel's (and filter1d's) operations in the same order: the same bits.
 * Against the tile kernel this drops the halo rows of pass 1 (recomputed per
 * 64-row tile there) and every shared store and load of the input tile. */
#define FVT_THREADS 256
#define FVT_BLOCKS 3   /* blocks per multiprocessor (registers: <= 80 a thread; 2 ran no faster) */
template <int S> struct fvt_geo {
    static const int G = S * ((16 + S - 1) / S);               /* rows per group */
    static const int TQ = (FVT_THREADS - (S - 1)) & ~7;        /* output columns per strip */
    static const int C = TQ + S - 1;                           /* intermediate columns */
    static const int NL = (S + 6) / 4;                         /* 16-byte loads per pass-2 task */
    static const int MP = (TQ - 4 + 4 * NL + 3) & ~3;          /* buffer pitch (floats, <= FVT_THREADS) */
    static size_t smem(int th)
    {
        return (size_t)2 * G * MP * sizeof(float) + (size_t)2 * S * sizeof(float) + (size_t)(th + S - 1) * sizeof(int);
    }
};

#define FVT_CROW INT_MIN   /* row table: a constant row (pass 1's cval) */

/* one input value of the strip: row table entry off, branch-free (a constant
 * row loads row 0 of the column and takes cv instead) */
__device__ __forceinline__ float
fvt_load(const char *colp, int off, float cv)
{
    const bool c = off == FVT_CROW;
    const float x = __ldg((const float *)(colp + (c ? 0 : off)));
    return c ? cv : x;
}

/* the weights of a correlation kind in registers, once per group (unused
 * otherwise: zeros the compiler drops) */
template <int KIND, int S>
__device__ __forceinline__ void
fvt_wregs(const float (&w)[S], float (&wr)[S])
{
#pragma unroll
    for (int m = 0; m < S; m++)
        wr[m] = KIND <= FVK_ANTI ? w[m] : 0.0f;
}

/* a buffered row's 4 * NL values from 16-byte shared loads (xs holds 4 more:
 * fvk_slide may read, never use, one past the window) */
template <int NL>
__device__ __forceinline__ void
fvt_ld4(const float *row, float (&xs)[4 * NL + 4])
{
    const float4 *src = (const float4 *)row;
#pragma unroll
    for (int l = 0; l < NL; l++) {
        const float4 f = src[l];
        xs[4 * l] = f.x;
        xs[4 * l + 1] = f.y;
        xs[4 * l + 2] = f.z;
        xs[4 * l + 3] = f.w;
    }
}

/* the strip's row table: entry q the byte offset of row r0 + q (extended by
 * the mode; FVT_CROW for a constant row), for q < n */
__device__ __forceinline__ void
fvt_row_table(int *rowoff, int n, int r0, int nr, int mode, int sr)
{
    for (int q = threadIdx.x; q < n; q += blockDim.x) {
        const int r = fvf_extend<int>(r0 + q, nr, mode);
        rowoff[q] = r < 0 ? FVT_CROW : r * sr;
    }
}

/* both passes' weights into shared memory sw[2][S] (read into registers once
 * per group: constants from the parameters are re-read for every use) */
template <int S>
__device__ __forceinline__ void
fvt_weights_to_shared(const fvs_args &p, float *sw)
{
    if (threadIdx.x < S) {
        sw[threadIdx.x] = p.p1.wf[threadIdx.x];
        sw[S + threadIdx.x] = p.p2.wf[threadIdx.x];
    }
}

/* Tracked values of the strip kernels (TRK 1: NaN, for min/max; 2: NaN or inf,
 * for uniform sums; 0: none), folded without branches: for 2 into a float that
 * x * 0 turns NaN, for 1 into a flag; the caller sets the kernel's flag once
 * per group. Values beside the strip's own (halo columns, rows past the image,
 * constant columns' loads) may be folded too: they are values of the image or
 * sums of them, and a false alarm only costs the guarded redo. */
template <int TRK> struct fvt_trk {
    float t;
    bool n;
    __device__ __forceinline__ fvt_trk() : t(0.0f), n(false) {}
    __device__ __forceinline__ void add(float x)
    {
        if (TRK == 2)
            t = fmaf(x, 0.0f, t);
        else if (TRK == 1)
            n = n || x != x;
    }
    __device__ __forceinline__ void flush(bool &odd) const
    {
        if (TRK == 2 ? t != t : TRK == 1 ? n : false)
            odd = true;
    }
};

#define FVT_TRK_SWITCH(T, CALL)                      \
    switch (T) {                                     \
    case 0: { const int TK = 0; CALL; break; }       \
    case 1: { const int TK = 1; CALL; break; }       \
    default: { const int TK = 2; CALL; break; }      \
    }

/* pass 1 for G rows of one column: the ring's slots are compile-time (G is a
 * multiple of S); results to the buffer's rows (fill where the column is not
 * loaded); inputs and results tracked (TRK, fvt_trk) */
template <int KIND, int S, int G, int TRK>
__device__ __forceinline__ void
fvt_pass1(float (&win)[S], const float (&ld)[G], const float (&w)[S], float *bb, int mp, int tid, bool live,
          float fill, bool &odd)
{
    fvt_trk<TRK> trk;
    float wr[S];   /* the weights in registers for the G rows (not re-read per row) */
    fvt_wregs<KIND, S>(w, wr);
#pragma unroll
    for (int i = 0; i < G; i++) {
        win[(S - 1 + i) % S] = ld[i];
        trk.add(ld[i]);   /* tested here, not at the load: the load stays in flight */
        float x[S + 1], v[1];   /* fvk_slide may read (never use) one past the window */
#pragma unroll
        for (int m = 0; m < S; m++)
            x[m] = win[(i + m) % S];
        fvk_slide_k<float, KIND, 1, S>(x, 1, wr, S, v);
        trk.add(v[0]);
        if (tid < mp)
            bb[i * mp + tid] = v[0];
    }
    trk.flush(odd);
    if (!live && tid < mp) {   /* columns not loaded: the intermediate's constant (or padding) */
#pragma unroll
        for (int i = 0; i < G; i++)
            bb[i * mp + tid] = fill;
    }
}

/* pass 2 along G buffered rows: task = (row, 4 columns) from 16-byte shared
 * loads, stored as one 16-byte vector where whole and allowed */
template <int KIND, int S>
__device__ __forceinline__ void
fvt_pass2(const fvs_args &p, const float *bb, const float (&w)[S], int rows, int ec, char *dst0, int tid)
{
    typedef fvt_geo<S> g;
    const int NSEG = g::TQ / 4, NL = g::NL, MP = g::MP;
    float wr[S];
    fvt_wregs<KIND, S>(w, wr);
    for (int t = tid; t < rows * NSEG; t += FVT_THREADS) {
        const int i = t / NSEG, seg = t - i * NSEG, c = seg * 4;
        if (c >= ec)
            continue;
        float xs[4 * NL + 4], o[4];
        fvt_ld4<NL>(bb + i * MP + c, xs);
        fvk_slide_k<float, KIND, 4, S>(xs, 1, wr, S, o);
        char *dst = dst0 + i * p.sr_out + c * (int)sizeof(float);
        if (p.vstore && c + 4 <= ec) {
            *(float4 *)dst = make_float4(o[0], o[1], o[2], o[3]);
        } else {
#pragma unroll
            for (int k = 0; k < 4; k++)
                if (c + k < ec)
                    *(float *)(dst + k * (int)sizeof(float)) = o[k];
        }
    }
}

#define FVT_KIND_SWITCH(K, CALL)                        \
    switch (K) {                                        \
    case FVK_SYM: { const int KD = FVK_SYM; CALL; break; }   \
    case FVK_ANTI: { const int KD = FVK_ANTI; CALL; break; } \
    case FVK_CORR: { const int KD = FVK_CORR; CALL; break; } \
    case FVK_USUM: { const int KD = FVK_USUM; CALL; break; } \
    case FVK_MIN: { const int KD = FVK_MIN; CALL; break; }   \
    default: { const int KD = FVK_MAX; CALL; break; }        \
    }

template <int S>
__global__ void __launch_bounds__(FVT_THREADS, FVT_BLOCKS)
fvs_k_strip(const __grid_constant__ fvs_args p)
{
    typedef fvt_geo<S> g;
    const int G = g::G, TQ = g::TQ, C = g::C, MP = g::MP;
    extern __shared__ double fvs_smem[];
    float *buf = (float *)fvs_smem;                 /* [2][G][MP] */
    float *sw = buf + 2 * G * MP;                   /* [2][S] the weights */
    int *rowoff = (int *)(sw + 2 * S);              /* [th + S - 1] byte offsets of the input rows */
    const int tid = threadIdx.x, th = p.th;
    const int k1 = p.p1.kind, k2 = p.p2.kind;
    const int trk = p.p1.track > p.p2.track ? p.p1.track : p.p2.track;   /* inputs and intermediates alike */
    const float cv1 = (float)p.p1.cval, cv2 = (float)p.p2.cval;
    fvt_weights_to_shared<S>(p, sw);
    const float(&w1)[S] = *(const float(*)[S])sw;
    const float(&w2)[S] = *(const float(*)[S])(sw + S);
    bool odd = false;

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int ir, ic, bi, bo;
        fvs_tile_at(p, tile, ir, ic, bi, bo);
        const int r0t = ir * th, c0t = ic * TQ;
        const int er = p.nr - r0t < th ? p.nr - r0t : th;
        const int ec = p.nc - c0t < TQ ? p.nc - c0t : TQ;

        __syncthreads();   /* the previous strip's readers of the buffer and the row table are done */
        fvt_row_table(rowoff, th + S - 1, r0t - p.p1.left, p.nr, p.p1.mode, p.sr_in);
        /* this thread's column: >= 0 loaded, -1 a constant column of the
         * intermediate (cv2), -2 none (past the strip's columns) */
        const int cq = tid < C ? fvf_extend<int>(c0t - p.p2.left + tid, p.nc, p.p2.mode) : -2;
        const bool live = cq >= 0;
        const float fill = cq == -1 ? cv2 : 0.0f;
        /* columns that are not loaded read column 0 (any valid address) and discard it */
        const char *colp = p.in + bi + (live ? cq : 0) * (int)sizeof(float);
        /* every input row of the strip inside the image: row q at rowp + q * sr_in (no table) */
        const int sr = p.sr_in;
        const bool inner = r0t - p.p1.left >= 0 && r0t - p.p1.left + th + S - 1 <= p.nr;
        const char *rowp = colp + (inner ? (r0t - p.p1.left) * sr : 0);
        __syncthreads();

        float win[S], ld[G];
#pragma unroll
        for (int i = 0; i < S - 1; i++) {
            win[i] = fvt_load(colp, rowoff[i], cv1);
            if (trk && live && fvk_odd(win[i], trk == 2))
                odd = true;
        }
        if (inner) {
#pragma unroll
            for (int i = 0; i < G; i++)
                ld[i] = __ldg((const float *)(rowp + (S - 1 + i) * sr));
        } else {
#pragma unroll
            for (int i = 0; i < G; i++)
                ld[i] = fvt_load(colp, rowoff[S - 1 + i], cv1);
        }
        const int ng = (er + G - 1) / G;   /* groups holding rows of the image */
        for (int gi = 0; gi < ng; gi++) {
            float *bb = buf + (gi & 1) * G * MP;
            const int nv = er - gi * G;   /* rows of this group inside the image */
            FVT_TRK_SWITCH(trk, FVT_KIND_SWITCH(k1, (fvt_pass1<KD, S, G, TK>(win, ld, w1, bb, MP, tid, live, fill, odd))))
            if (gi + 1 < ng) {   /* the next rows' loads, in flight during pass 2 */
                const int q0 = S - 1 + (gi + 1) * G;
                if (inner) {
                    const char *rp = rowp + q0 * sr;
#pragma unroll
                    for (int i = 0; i < G; i++)
                        ld[i] = __ldg((const float *)(rp + i * sr));
                } else {
#pragma unroll
                    for (int i = 0; i < G; i++)
                        ld[i] = fvt_load(colp, rowoff[q0 + i], cv1);
                }
            }
            __syncthreads();
            char *dst0 = p.out + bo + (r0t + gi * G) * p.sr_out + c0t * (int)sizeof(float);
            const int rows = nv < G ? nv : G;
            FVT_KIND_SWITCH(k2, (fvt_pass2<KD, S>(p, bb, w2, rows, ec, dst0, tid)))
        }
    }
    if (odd)
        *p.flag = 1;   /* benign: every writer stores 1 */
}

/* The strip kernel with the passes the other way round (`pd`: pass 1 along the
 * rows, pass 2 down the columns: prewitt(axis=-1), sobel(axis=1), ...). Per
 * group of G rows of the intermediate (the strip's rows plus pass 2's halo,
 * extended by pass 2's mode): the input rows (pass 1's halo columns extended
 * by its mode) go from registers to the shared buffer A; the next group's
 * loads are issued; pass 1 runs along A's rows, 4 outputs a task, into buffer
 * B; pass 2 then slides each column's window through registers (thread =
 * output column) and stores one value a row. Two barriers a group. */
template <int S> struct fvt_geo_pd {
    typedef fvt_geo<S> g;
    static size_t smem(int th)
    {
        return (size_t)g::G * (g::MP + g::TQ) * sizeof(float) + (size_t)2 * S * sizeof(float) +
               (size_t)(th + 2 * g::G) * sizeof(int);
    }
};

template <int KIND, int S, int TRK>
__device__ __forceinline__ void
fvt_pd_pass1(const fvs_args &p, const float *A, float *B, const int *rowq, const float (&w)[S], int tid, float cv2,
             bool &odd)
{
    fvt_trk<TRK> trk;
    typedef fvt_geo<S> g;
    const int NSEG = g::TQ / 4, NL = g::NL, MP = g::MP, TQ = g::TQ, G = g::G;
    float wr[S];
    fvt_wregs<KIND, S>(w, wr);
    for (int t = tid; t < G * NSEG; t += FVT_THREADS) {
        const int i = t / NSEG, seg = t - i * NSEG, c = seg * 4;
        float xs[4 * NL + 4], o[4];
        fvt_ld4<NL>(A + i * MP + c, xs);
        fvk_slide_k<float, KIND, 4, S>(xs, 1, wr, S, o);
#pragma unroll
        for (int k = 0; k < 4; k++)
            trk.add(o[k]);
        if (rowq[i] == FVT_CROW)   /* a constant row of the intermediate */
            o[0] = o[1] = o[2] = o[3] = cv2;
        *(float4 *)(B + i * TQ + c) = make_float4(o[0], o[1], o[2], o[3]);
    }
    trk.flush(odd);
}

/* the pd strip's G input values of one column into A (column tid, pitch MP) */
template <int S, int TRK>
__device__ __forceinline__ void
fvt_pd_stage(float *a, const float (&ld)[fvt_geo<S>::G], bool live, float fill, bool &odd)
{
    fvt_trk<TRK> trk;
#pragma unroll
    for (int i = 0; i < fvt_geo<S>::G; i++) {
        trk.add(ld[i]);
        a[i * fvt_geo<S>::MP] = live ? ld[i] : fill;
    }
    trk.flush(odd);
}

/* pass 2 of the pd strip for G rows of one column: intermediate row q0 + i in
 * ring slot (q0 + i) % S (q0 a multiple of G, so the slot is i % S); output row
 * q - (S - 1) stored where it lies in [0, er) */
template <int KIND, int S>
__device__ __forceinline__ void
fvt_pd_pass2(float (&win)[S], const float *B, const float (&w)[S], char *dst, int sr, int tid, int q0, int er,
             bool col)
{
    typedef fvt_geo<S> g;
    const int G = g::G, TQ = g::TQ;
    float wr[S];
    fvt_wregs<KIND, S>(w, wr);
#pragma unroll
    for (int i = 0; i < G; i++) {
        win[i % S] = B[i * TQ + tid];
        float x[S + 1], v[1];
#pragma unroll
        for (int m = 0; m < S; m++)
            x[m] = win[(i + 1 + m) % S];
        fvk_slide_k<float, KIND, 1, S>(x, 1, wr, S, v);
        const int j = q0 + i - (S - 1);
        if (col && j >= 0 && j < er)
            *(float *)(dst + j * sr) = v[0];
    }
}

template <int S>
__global__ void __launch_bounds__(FVT_THREADS, FVT_BLOCKS)
fvs_k_strip_pd(const __grid_constant__ fvs_args p)
{
    typedef fvt_geo<S> g;
    const int G = g::G, TQ = g::TQ, C = g::C, MP = g::MP;
    extern __shared__ double fvs_smem[];
    float *A = (float *)fvs_smem;       /* [G][MP] input rows */
    float *B = A + G * MP;              /* [G][TQ] pass 1's results */
    float *sw = B + G * TQ;             /* [2][S] the weights */
    int *rowoff = (int *)(sw + 2 * S);  /* [th + 2G] byte offsets of the intermediate's rows in the input */
    const int tid = threadIdx.x, th = p.th;
    const int k1 = p.p1.kind, k2 = p.p2.kind;
    const int trk = p.p1.track > p.p2.track ? p.p1.track : p.p2.track;   /* inputs and intermediates alike */
    const float cv1 = (float)p.p1.cval, cv2 = (float)p.p2.cval;
    fvt_weights_to_shared<S>(p, sw);
    const float(&w1)[S] = *(const float(*)[S])sw;
    const float(&w2)[S] = *(const float(*)[S])(sw + S);
    bool odd = false;

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int ir, ic, bi, bo;
        fvs_tile_at(p, tile, ir, ic, bi, bo);
        const int r0t = ir * th, c0t = ic * TQ;
        const int er = p.nr - r0t < th ? p.nr - r0t : th;
        const int ec = p.nc - c0t < TQ ? p.nc - c0t : TQ;
        const int ng = (er + S - 1 + G - 1) / G;   /* groups of intermediate rows */

        __syncthreads();   /* the previous strip's readers of the buffers and the row table are done */
        fvt_row_table(rowoff, ng * G, r0t - p.p2.left, p.nr, p.p2.mode, p.sr_in);
        /* this thread's input column: >= 0 loaded, -1 pass 1's constant, -2 none */
        const int cq = tid < C ? fvf_extend<int>(c0t - p.p1.left + tid, p.nc, p.p1.mode) : -2;
        const bool live = cq >= 0;
        const float fill = cq == -1 ? cv1 : 0.0f;
        const char *colp = p.in + bi + (live ? cq : 0) * (int)sizeof(float);
        const int sr = p.sr_in;
        const bool inner = r0t - p.p2.left >= 0 && r0t - p.p2.left + ng * G <= p.nr;
        const char *rowp = colp + (inner ? (r0t - p.p2.left) * sr : 0);
        char *dst = p.out + bo + r0t * p.sr_out + (c0t + tid) * (int)sizeof(float);
        const bool col = tid < ec;
        __syncthreads();

        float win[S], ld[G];
        if (inner) {
#pragma unroll
            for (int i = 0; i < G; i++)
                ld[i] = __ldg((const float *)(rowp + i * sr));
        } else {
#pragma unroll
            for (int i = 0; i < G; i++)
                ld[i] = fvt_load(colp, rowoff[i], 0.0f);   /* constant rows: any value (pass 1 gives cv2) */
        }
        for (int gi = 0; gi < ng; gi++) {
            /* the group's input rows to A (tracked values tested here, not at the load) */
            if (tid < MP)
                FVT_TRK_SWITCH(trk, (fvt_pd_stage<S, TK>(A + tid, ld, live, fill, odd)))
            if (gi + 1 < ng) {   /* the next group's loads, in flight during the passes */
                const int q0 = (gi + 1) * G;
                if (inner) {
                    const char *rp = rowp + q0 * sr;
#pragma unroll
                    for (int i = 0; i < G; i++)
                        ld[i] = __ldg((const float *)(rp + i * sr));
                } else {
#pragma unroll
                    for (int i = 0; i < G; i++)
                        ld[i] = fvt_load(colp, rowoff[q0 + i], 0.0f);
                }
            }
            __syncthreads();
            FVT_TRK_SWITCH(trk, FVT_KIND_SWITCH(k1, (fvt_pd_pass1<KD, S, TK>(p, A, B, rowoff + gi * G, w1, tid, cv2, odd))))
            __syncthreads();
            if (tid < TQ)
                FVT_KIND_SWITCH(k2, (fvt_pd_pass2<KD, S>(win, B, w2, dst, p.sr_out, tid, gi * G, er, col)))
        }
    }
    if (odd)
        *p.flag = 1;   /* benign: every writer stores 1 */
}

/* ==== 1-D strips: one float32 pass of S taps along an axis other than the
 * contiguous one (gaussian_filter1d, uniform_filter1d, correlate1d, min/max
 * filters along axis 0, ...). Thread = column, the window slides through
 * registers, and every output goes straight to global memory (one coalesced
 * store a row, no shared memory but the row table and the weights). Each row's
 * value is consumed and the load of the row G further is issued in its place:
 * G loads stay in flight. The kind and weights of device weights are resolved
 * in the block (fvk_kind_dev), as filter1d's kernels do. */
#define FVT1_ROWS 256   /* output rows per strip (about) */

template <int KIND, int S, int G, int TRK>
__device__ __forceinline__ void
fvt1_group(float (&win)[S], float (&ld)[G], const float (&w)[S], const char *colp, const char *rowp, int sr,
           const int *rowoff, bool inner, int q0, int nq, char *dst, int sro, int j0, int er, bool col, float cv,
           bool &odd)
{
    fvt_trk<TRK> trk;
    float wr[S];
    fvt_wregs<KIND, S>(w, wr);
#pragma unroll
    for (int i = 0; i < G; i++) {
        win[(S - 1 + i) % S] = ld[i];
        trk.add(ld[i]);
        const int qn = q0 + G + i;   /* the row this register takes next */
        if (qn < nq)
            ld[i] = inner ? __ldg((const float *)(rowp + qn * sr)) : fvt_load(colp, rowoff[qn], cv);
        float x[S + 1], v[1];
#pragma unroll
        for (int m = 0; m < S; m++)
            x[m] = win[(i + m) % S];
        fvk_slide_k<float, KIND, 1, S>(x, 1, wr, S, v);
        const int j = j0 + i;
        if (col && j < er)
            *(float *)(dst + j * sro) = v[0];
    }
    trk.flush(odd);
}

/* the first warp of a 1-D kernel: the pass's weights as floats into sw[S], and
 * its kind (device weights resolved by fvk_kind_dev: all 32 lanes take part) */
template <int S>
__device__ __forceinline__ int
fvt1_kind_weights(const fvs_args &p, float *sw)
{
    int kind = p.p1.kind;
    if (kind == FVK_AUTO)
        kind = fvk_kind_dev(p.dw, p.dwst, S);
    if (threadIdx.x < S)
        sw[threadIdx.x] = p.dw ? (float)__ldg(p.dw + threadIdx.x * p.dwst) : p.p1.wf[threadIdx.x];
    return kind;
}

template <int S>
__global__ void __launch_bounds__(FVT_THREADS, FVT_BLOCKS)
fvs_k_strip1(const __grid_constant__ fvs_args p)
{
    const int G = fvt_geo<S>::G;
    extern __shared__ double fvs_smem[];
    float *sw = (float *)fvs_smem;      /* [S] the weights */
    int *skind = (int *)(sw + S);       /* the resolved kind */
    int *rowoff = skind + 1;            /* [th + S - 1 + G] byte offsets of the input rows */
    const int tid = threadIdx.x, th = p.th, tr = p.p1.track;
    const float cv = (float)p.p1.cval;
    if (tid < 32) {
        const int kind = fvt1_kind_weights<S>(p, sw);
        if (tid == 0)
            *skind = kind;
    }
    __syncthreads();
    const int kind = *skind;
    const float(&w)[S] = *(const float(*)[S])sw;
    bool odd = false;

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int ir, ic, bi, bo;
        fvs_tile_at(p, tile, ir, ic, bi, bo);
        const int r0t = ir * th, c0t = ic * FVT_THREADS;
        const int er = p.nr - r0t < th ? p.nr - r0t : th;
        const int ng = (er + G - 1) / G;
        const int nq = ng * G + S - 1;   /* input rows the strip reads */
        const bool col = c0t + tid < p.nc;
        const bool inner = r0t - p.p1.left >= 0 && r0t - p.p1.left + nq <= p.nr;
        __syncthreads();   /* the previous strip's readers of the row table are done */
        if (!inner)
            fvt_row_table(rowoff, nq, r0t - p.p1.left, p.nr, p.p1.mode, p.sr_in);
        __syncthreads();
        const char *colp = p.in + bi + (col ? c0t + tid : 0) * (int)sizeof(float);
        const int sr = p.sr_in;
        const char *rowp = colp + (inner ? (r0t - p.p1.left) * sr : 0);
        char *dst = p.out + bo + r0t * p.sr_out + (c0t + tid) * (int)sizeof(float);

        float win[S], ld[G];
#pragma unroll
        for (int i = 0; i < S - 1; i++) {
            win[i] = inner ? __ldg((const float *)(rowp + i * sr)) : fvt_load(colp, rowoff[i], cv);
            if (tr && col && fvk_odd(win[i], tr == 2))
                odd = true;
        }
#pragma unroll
        for (int i = 0; i < G; i++)
            ld[i] = inner ? __ldg((const float *)(rowp + (S - 1 + i) * sr)) : fvt_load(colp, rowoff[S - 1 + i], cv);
        for (int gi = 0; gi < ng; gi++) {
            const int q0 = S - 1 + gi * G;
            FVT_TRK_SWITCH(tr, FVT_KIND_SWITCH(kind, (fvt1_group<KD, S, G, TK>(win, ld, w, colp, rowp, sr, rowoff, inner,
                                                                                q0, nq, dst, p.sr_out, gi * G, er, col,
                                                                                cv, odd))))
        }
    }
    if (odd)
        *p.flag = 1;   /* benign: every writer stores 1 */
}

/* ==== 1-D rows: one float32 pass of S taps, centred, along the contiguous axis
 * (convolve1d / correlate1d / uniform / minimum / maximum_filter1d along the
 * last axis). A warp walks along a segment of one line, 128 values a step: each
 * lane holds one 16-byte chunk (cur) and the chunks one step back and ahead
 * (prev, next; the chunk two steps ahead is already loading), and takes the
 * D chunks on either side of its own by warp shuffles (the lanes at the warp's
 * ends read the neighbouring steps' chunks), so that no value goes through
 * shared memory. Steps whose windows reach past the line's ends replace those
 * values by the mode's (fvf_extend). Outputs: 4 a lane, summed by fvk_slide
 * (the same operations in the same order as the tile kernels: the same bits),
 * one 16-byte store. Lines of 16-byte aligned rows whose length is a multiple
 * of 4 only. */
#define FVR_THREADS 256

/* a 16-byte chunk (float4 / uint4) from lane src */
template <typename V>
__device__ __forceinline__ V
fvr_shfl(V v, int src)
{
    v.x = __shfl_sync(0xffffffffu, v.x, src);
    v.y = __shfl_sync(0xffffffffu, v.y, src);
    v.z = __shfl_sync(0xffffffffu, v.z, src);
    v.w = __shfl_sync(0xffffffffu, v.w, src);
    return v;
}

__device__ __forceinline__ void
fvr_put(float *x, float4 v)
{
    x[0] = v.x;
    x[1] = v.y;
    x[2] = v.z;
    x[3] = v.w;
}

/* chunk c of a line of nch chunks (zeros outside: those values are replaced) */
template <typename V>
__device__ __forceinline__ V
fvr_ld(const V *src, int c, int nch)
{
    return c >= 0 && c < nch ? __ldg(src + c) : V{};
}

/* tile t of the row kernels: its line's input and output (batch offsets and row)
 * and its segment's chunks [c0, c1) of the line's nch */
__device__ __forceinline__ void
fvr_line(const fvs_args &p, int64_t t, int nch, const char *&in, char *&out, int &c0, int &c1)
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
fvr_prefetch(const fvs_args &p, int lane, int cb)
{
    const int64_t t = (int64_t)blockIdx.x * (FVR_THREADS / 32) + (threadIdx.x >> 5);
    if (t >= p.ntiles)
        return;
    const int nch = p.nc / cb;
    const char *li;
    char *lo;
    int c0, c1;
    fvr_line(p, t, nch, li, lo, c0, c1);
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
fvr_segment(const fvs_args &p, const float (&w)[S], int64_t t, int lane, float cv, bool &odd)
{
    const int D = (S / 2 + 3) / 4;   /* chunks either side a window reaches */
    const int n = p.nc, nch = n >> 2;
    const char *li;
    char *lo;
    int c0, c1;
    fvr_line(p, t, nch, li, lo, c0, c1);
    const float4 *src = (const float4 *)li;
    float4 *dst = (float4 *)lo;
    float wr[S];
    fvt_wregs<KIND, S>(w, wr);
    fvt_trk<TRK> trk;
    float4 pv = fvr_ld(src, c0 - 32 + lane, nch), cu = fvr_ld(src, c0 + lane, nch);
    float4 nx = fvr_ld(src, c0 + 32 + lane, nch), n2 = fvr_ld(src, c0 + 64 + lane, nch);
    for (int cb = c0; cb < c1; cb += 32) {
        const int c = cb + lane;
        if (c < c1) {
            trk.add(cu.x);
            trk.add(cu.y);
            trk.add(cu.z);
            trk.add(cu.w);
        }
        float xb[4 * (2 * D + 1) + 1];
        fvr_put(xb + 4 * D, cu);
#pragma unroll
        for (int d = 1; d <= D; d++) {
            fvr_put(xb + 4 * (D - d), fvr_shfl(lane >= 32 - d ? pv : cu, (lane - d) & 31));
            fvr_put(xb + 4 * (D + d), fvr_shfl(lane < d ? nx : cu, (lane + d) & 31));
        }
        xb[4 * (2 * D + 1)] = 0.0f;
        if (cb - D < 0 || cb + 32 + D > nch) {   /* a window past an end of the line */
#pragma unroll 20
            for (int i = 0; i < 4 * (2 * D + 1); i++) {
                const int q = 4 * (c - D) + i;
                if (q < 0 || q >= n) {
                    const int e = fvf_extend<int>(q, n, p.p1.mode);
                    xb[i] = e < 0 ? cv : __ldg((const float *)src + e);
                }
            }
        }
        float acc[4];
        fvk_slide_k<float, KIND, 4, S>(xb + 4 * D - S / 2, 1, wr, S, acc);
        if (c < c1)
            dst[c] = make_float4(acc[0], acc[1], acc[2], acc[3]);
        pv = cu;
        cu = nx;
        nx = n2;
        n2 = fvr_ld(src, cb + 96 + lane, nch);
    }
    trk.flush(odd);
}

template <int S>
__global__ void __launch_bounds__(FVR_THREADS)
fvs_k_row1(const __grid_constant__ fvs_args p)
{
    __shared__ float sw[S];
    __shared__ int skind;
    const int tid = threadIdx.x, lane = tid & 31, tr = p.p1.track;
    fvr_prefetch(p, lane, 16);
    if (tid < 32) {
        const int kind = fvt1_kind_weights<S>(p, sw);
        if (tid == 0)
            skind = kind;
    }
    __syncthreads();
    const int kind = skind;
    const float(&w)[S] = *(const float(*)[S])sw;
    const float cv = (float)p.p1.cval;
    bool odd = false;
    const int64_t nw = (int64_t)gridDim.x * (FVR_THREADS / 32);
    for (int64_t t = (int64_t)blockIdx.x * (FVR_THREADS / 32) + (tid >> 5); t < p.ntiles; t += nw)
        FVT_TRK_SWITCH(tr, FVT_KIND_SWITCH(kind, (fvr_segment<KD, S, TK>(p, w, t, lane, cv, odd))))
    if (odd)
        *p.flag = 1;   /* benign: every writer stores 1 */
}

/* 8-bit lines (uint8 into uint8): one chunk of VB bytes (4, 8 or 16: values) a
 * lane, the window's values as floats (exact), the float32 row kernel's sums
 * (fvk_slide), stored as fvf_k_tile2 stores them. Where float sums are not exact
 * (correlation weights), tile2's checked path (fvk_check): an output within e of
 * a non-zero integer is summed again in double, in scipy's order, from the line.
 * Narrow chunks give more lanes and fewer registers a lane: what lines of a few
 * thousand bytes need to fill the GPU. */
template <int VB> struct fvr_vec;
template <> struct fvr_vec<4> { typedef unsigned T; };
template <> struct fvr_vec<8> { typedef uint2 T; };
template <> struct fvr_vec<16> { typedef uint4 T; };

__device__ __forceinline__ unsigned
fvr_shfl(unsigned v, int src)
{
    return __shfl_sync(0xffffffffu, v, src);
}

__device__ __forceinline__ uint2
fvr_shfl(uint2 v, int src)
{
    v.x = __shfl_sync(0xffffffffu, v.x, src);
    v.y = __shfl_sync(0xffffffffu, v.y, src);
    return v;
}

/* a chunk's 32-bit words, and back */
__device__ __forceinline__ void fvr_words(unsigned v, unsigned *w) { w[0] = v; }
__device__ __forceinline__ void fvr_words(uint2 v, unsigned *w) { w[0] = v.x; w[1] = v.y; }
__device__ __forceinline__ void fvr_words(uint4 v, unsigned *w) { w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w; }
__device__ __forceinline__ void fvr_chunk(const unsigned *w, unsigned &v) { v = w[0]; }
__device__ __forceinline__ void fvr_chunk(const unsigned *w, uint2 &v) { v = make_uint2(w[0], w[1]); }
__device__ __forceinline__ void fvr_chunk(const unsigned *w, uint4 &v) { v = make_uint4(w[0], w[1], w[2], w[3]); }

/* byte k (a constant) of the words w, as a float (exact: the byte in the mantissa
 * of 2^23, then 2^23 subtracted) */
__device__ __forceinline__ float
fvr_byte(const unsigned *w, int k)
{
    return __uint_as_float(__byte_perm(w[k >> 2], 0x4B000000u, (unsigned)(k & 3) | 0x7540u)) - 8388608.0f;
}

/* fvk_window_d's double sum (the same operations in the same order) of the
 * window starting at position q0 of a line of n bytes, the mode's values past
 * its ends */
__device__ __forceinline__ double
fvr_window_d(const uint8_t *line, int n, int q0, int mode, float cv, const double *wd, int64_t wst, int kind,
             int size)
{
    return fvk_sum_d(
        [&](int j) -> double {
            const int q = fvf_extend<int>(q0 + j, n, mode);
            return q < 0 ? (double)cv : (double)__ldg(line + q);
        },
        wd, wst, kind, size);
}

template <int KIND, int S, int VB, bool CHK>
__device__ __forceinline__ void
fvr_segment_u8(const fvs_args &p, const float (&w)[S], int64_t t, int lane, float cv, float e)
{
    typedef typename fvr_vec<VB>::T V;
    const int H = S / 2, D = (H + VB - 1) / VB;   /* chunks either side a window reaches */
    const int NW = (2 * D + 1) * VB / 4, NX = VB + 2 * H;   /* words held; window values: positions VB c - H ... */
    const int n = p.nc, nch = n / VB;
    const char *li;
    char *lo;
    int c0, c1;
    fvr_line(p, t, nch, li, lo, c0, c1);
    const uint8_t *line = (const uint8_t *)li;
    const V *src = (const V *)line;
    V *dst = (V *)lo;
    const double *wd = p.dw ? p.dw : p.p1.w;
    const int64_t wst = p.dw ? p.dwst : 1;
    const bool all = e > 1.0f;   /* +inf (fvk_chk_dev): every output again in double */
    float wr[S];
    fvt_wregs<KIND, S>(w, wr);
    V pv = fvr_ld(src, c0 - 32 + lane, nch), cu = fvr_ld(src, c0 + lane, nch);
    V nx = fvr_ld(src, c0 + 32 + lane, nch), n2 = fvr_ld(src, c0 + 64 + lane, nch);
    for (int cb = c0; cb < c1; cb += 32) {
        const int c = cb + lane;
        unsigned wv[NW];
        fvr_words(cu, wv + D * VB / 4);
#pragma unroll
        for (int d = 1; d <= D; d++) {
            fvr_words(fvr_shfl(lane >= 32 - d ? pv : cu, (lane - d) & 31), wv + (D - d) * VB / 4);
            fvr_words(fvr_shfl(lane < d ? nx : cu, (lane + d) & 31), wv + (D + d) * VB / 4);
        }
        float xb[NX + 1];
#pragma unroll
        for (int i = 0; i < NX; i++)
            xb[i] = fvr_byte(wv, D * VB - H + i);
        xb[NX] = 0.0f;
        if (cb - D < 0 || cb + 32 + D > nch) {   /* a window past an end of the line */
#pragma unroll
            for (int i = 0; i < NX; i++) {
                const int q = VB * c - H + i;
                if (q < 0 || q >= n) {
                    const int x = fvf_extend<int>(q, n, p.p1.mode);
                    xb[i] = x < 0 ? cv : (float)__ldg(line + x);
                }
            }
        }
        unsigned o[VB / 4], bad = 0;
#pragma unroll
        for (int g = 0; g < VB / 4; g++) {
            float acc[4];
            fvk_slide_k<float, KIND, 4, S>(xb + 4 * g, 1, wr, S, acc);
            o[g] = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                if (CHK && fvk_uncertain(acc[k], e, all))
                    bad |= 1u << (4 * g + k);
                o[g] |= (unsigned)fvf_caster<uint8_t>::c(acc[k]) << (8 * k);
            }
        }
        if (c < c1) {
            V ov;
            fvr_chunk(o, ov);
            dst[c] = ov;
            /* the uncertain ones again in double, stored over the chunk's bytes (the low
             * byte of the truncated sum: what fvk_check's value stores as uint8) */
            for (; CHK && bad; bad &= bad - 1) {
                const int k = __ffs(bad) - 1;
                const double v = fvr_window_d(line, n, VB * c + k - H, p.p1.mode, cv, wd, wst, KIND, S);
                ((uint8_t *)dst)[VB * c + k] = (uint8_t)fvf_cvt32(v);
            }
        }
        pv = cu;
        cu = nx;
        nx = n2;
        n2 = fvr_ld(src, cb + 96 + lane, nch);
    }
}

template <int S, int VB>
__global__ void __launch_bounds__(FVR_THREADS)
fvs_k_row1u8(const __grid_constant__ fvs_args p)
{
    __shared__ float sw[S], se;
    __shared__ int skind;
    const int tid = threadIdx.x, lane = tid & 31;
    fvr_prefetch(p, lane, VB);
    if (tid < 32) {
        const int kind = fvt1_kind_weights<S>(p, sw);
        const float e = p.chk >= 0.0f ? p.chk : fvk_chk_dev(p.dw, p.dwst, S, kind, -(double)p.chk);
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
    const int64_t nw = (int64_t)gridDim.x * (FVR_THREADS / 32);
    for (int64_t t = (int64_t)blockIdx.x * (FVR_THREADS / 32) + (tid >> 5); t < p.ntiles; t += nw) {
        if (e != 0.0f) {   /* correlation weights, checked */
            switch (kind) {
            case FVK_SYM: fvr_segment_u8<FVK_SYM, S, VB, true>(p, w, t, lane, cv, e); break;
            case FVK_ANTI: fvr_segment_u8<FVK_ANTI, S, VB, true>(p, w, t, lane, cv, e); break;
            default: fvr_segment_u8<FVK_CORR, S, VB, true>(p, w, t, lane, cv, e); break;
            }
        } else {
            FVT_KIND_SWITCH(kind, (fvr_segment_u8<KD, S, VB, false>(p, w, t, lane, cv, e)))
        }
    }
}

/* ==== host side =================================================================== */

static int
fvs_symmetry(const double *w, int64_t size)   /* = filter1d's fvf_symmetry (scipy's test) */
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

/* Fill one pass; 0 when the fused kernel does not reproduce filter1d for it.
 * dt: the pass's input dtype, odt: its output dtype; devw: device weights are
 * taken (kind FVK_AUTO; the caller passes them to the kernel). */
static int
fvs_pass_fill(fvs_pass *ps, const fv__filter1d_params *f, fv_dtype dt, fv_dtype odt, int devw)
{
    const int isf = dt == FV_FLOAT32 || dt == FV_FLOAT64;
    memset(ps, 0, sizeof *ps);
    if (f->size < 1 || f->size > FVK_MAXTAPS || f->mode < 0 || f->mode >= FV_MODE_COUNT)
        return 0;
    int64_t left = f->size / 2 + f->origin;
    if (left < 0 || left >= f->size)
        return 0;
    ps->size = (int)f->size;
    ps->left = (int)left;
    ps->mode = f->mode;
    ps->cval = f->cval;
    const int cmode = f->mode == FV_MODE_CONSTANT;
    switch (f->kind) {
    case FV__F1D_CORRELATE: {
        if (!f->weights) {   /* device weights (devw: a kernel that resolves them, FVK_AUTO) */
            if (!devw || !f->dweights)
                return 0;
            ps->kind = FVK_AUTO;
            break;
        }
        int sym = fvs_symmetry(f->weights, f->size);
        ps->kind = sym > 0 ? FVK_SYM : sym < 0 ? FVK_ANTI : FVK_CORR;
        for (int i = 0; i < ps->size; i++) {
            ps->w[i] = f->weights[i];
            ps->wf[i] = (float)f->weights[i];
        }
        break;
    }
    case FV__F1D_UNIFORM: {
        ps->kind = FVK_USUM;
        /* filter1d's exact_sum; without it, integer outputs take its serial kernel */
        const int exact = !isf && fv_dtype_size(dt) <= 4 &&
                          (!cmode || (f->cval == floor(f->cval) && fabs(f->cval) <= 4294967296.0));
        if (!exact && (fv_dtype_is_integer(odt) || odt == FV_BOOL))
            return 0;
        if (isf) {
            if (cmode && !isfinite(f->cval))
                return 0;
            ps->track = 2;
        }
        break;
    }
    case FV__F1D_MINIMUM:
    case FV__F1D_MAXIMUM:
        ps->kind = f->kind == FV__F1D_MINIMUM ? FVK_MIN : FVK_MAX;
        if (f->size > FVS_MM_DIRECT)
            return 0;
        if (isf && f->size > 1) {
            if (cmode && f->cval != f->cval)
                return 0;
            ps->track = 1;
        }
        break;
    default:
        return 0;
    }
    return 1;
}

/* every axis but a and b (and those of length 1) a batch axis of t; the number
 * of batch lines */
static int64_t
fvs_batch_axes(fvs_args *t, const fv_array *in, const fv_array *out, int a, int b)
{
    int64_t n = 1;
    for (int d = 0; d < in->ndim; d++) {
        if (d == a || d == b || in->shape[d] == 1)
            continue;
        t->bshape[t->nb] = (int)in->shape[d];
        t->bs_in[t->nb] = (int)in->strides[d];
        t->bs_out[t->nb] = (int)out->strides[d];
        t->nb++;
        n *= in->shape[d];
    }
    return n;
}

/* a device int cleared on the stream: the flag the kernels set on tracked values */
static fv_status
fvs_flag_new(fv_context *ctx, const fv_cu_exec *x, fv_array **buf, int **flag)
{
    fv_status st = fvf_tmp_new(ctx, x->device, sizeof(int), buf);
    if (st != FV_OK)
        return st;
    *flag = (int *)(*buf)->data;
    cudaError_t e = cudaMemsetAsync(*flag, 0, sizeof(int), x->stream);
    return e == cudaSuccess ? FV_OK : fv__cuda_error("cudaMemsetAsync", e);
}

typedef struct fvs_job {
    fvs_args t;
    size_t smem, smem_max;
    int fexact;   /* both passes exact in float (fvf_float_exact), 8/16-bit data kept as is */
    unsigned grid;
    int sms;          /* the device's multiprocessors */
    int64_t nbatch;   /* lines of the batch axes */
    cudaStream_t stream;
    int kernel;       /* the planner's pick (fvs_variants): FVS_V_STRIP, FVS_V_SIZED, FVS_V_GENERAL */
} fvs_job;

/* The fused kernels ("cuda.sep2"), in the planner's order: "strip", the strip
 * kernels (float32 throughout, both windows of 3, 5, 9 or 17 taps, the columns
 * contiguous); "sized", the tile kernel with the window size fixed at compile
 * time (float32 throughout, both windows of 3, 5, 9 or 17 taps); "general", the
 * tile kernel for every case. The first two still decline where their shared
 * memory does not fit (the next one runs). */
enum { FVS_V_STRIP, FVS_V_SIZED, FVS_V_GENERAL };
typedef struct fvs_plan {
    const fvs_job *j;
    fv_dtype in, mid, out;
} fvs_plan;

static int
fvs_sized_ok(const void *args, int device)
{
    const fvs_plan *pa = (const fvs_plan *)args;
    const int S = (int)pa->j->t.p1.size;
    return pa->in == FV_FLOAT32 && pa->mid == FV_FLOAT32 && pa->out == FV_FLOAT32 && S == pa->j->t.p2.size &&
           (S == 3 || S == 5 || S == 9 || S == 17);
}
static int
fvs_strip_ok(const void *args, int device)
{
    const fvs_plan *pa = (const fvs_plan *)args;
    return fvs_sized_ok(args, device) && pa->j->t.sc_in == (int)sizeof(float) && pa->j->t.sc_out == (int)sizeof(float);
}

FV__VARIANTS(fvs_variants, "cuda.sep2", {"strip", fvs_strip_ok, NULL}, {"sized", fvs_sized_ok, NULL},
             {"general", NULL, NULL})

/* The fused kernels' loads and stores ("cuda.sep2.loads"): "vector", 16-byte
 * ones where the rows' alignment allows; "scalar", element by element. */
FV__VARIANTS(fvs_load_variants, "cuda.sep2.loads", {"vector", NULL, NULL}, {"scalar", NULL, NULL})

/* The 1-D passes of filter1d ("cuda.filter1d", fv__cuda_filter1d): "row", the
 * row kernels along the lines (float32 or uint8 data, windows of 3, 5, 9 or 17
 * taps, aligned whole chunks, centred windows); "strip", the strip kernel along
 * another axis (float32, the same windows); "tile", filter1d's tile kernels,
 * always. "row" and "strip" decline where their conditions fail (the tile
 * kernels run). */
typedef struct fvs_1dplan {
    int row;
} fvs_1dplan;
static int
fvs_row_ok(const void *args, int device)
{
    return ((const fvs_1dplan *)args)->row;
}
static int
fvs_strip1_ok(const void *args, int device)
{
    return !((const fvs_1dplan *)args)->row;
}

FV__VARIANTS(fvs_1d_variants, "cuda.filter1d", {"row", fvs_row_ok, NULL}, {"strip", fvs_strip1_ok, NULL},
             {"tile", NULL, NULL})

/* The uint8 row kernel's chunk bytes ("cuda.filter1d.row_u8_chunk"): "vb8"
 * (H200 kernel times, convolve1d(9) 3840x2160: 25.2 us, against 26.8 with 4
 * and 42.3 with 16; 8192^2: 139, 149, 159), "vb4", "vb16"; each where the
 * lines are aligned whole chunks of its bytes. */
typedef struct fvs_chunkplan {
    const fv_array *in, *out;
} fvs_chunkplan;
static int fvs_chunks_fit(const fv_array *in, const fv_array *out, int b);
static int
fvs_vb8_ok(const void *args, int device)
{
    const fvs_chunkplan *pa = (const fvs_chunkplan *)args;
    return fvs_chunks_fit(pa->in, pa->out, 8);
}
static int
fvs_vb4_ok(const void *args, int device)
{
    const fvs_chunkplan *pa = (const fvs_chunkplan *)args;
    return fvs_chunks_fit(pa->in, pa->out, 4);
}
static int
fvs_vb16_ok(const void *args, int device)
{
    const fvs_chunkplan *pa = (const fvs_chunkplan *)args;
    return fvs_chunks_fit(pa->in, pa->out, 16);
}

FV__VARIANTS(fvs_chunk_variants, "cuda.filter1d.row_u8_chunk", {"vb8", fvs_vb8_ok, NULL}, {"vb4", fvs_vb4_ok, NULL},
             {"vb16", fvs_vb16_ok, NULL})

template <typename T1, typename ACC1, typename TM, typename ACC2, int S>
static fv_status
fvs_go(fvs_job *j)
{
    fv_status st;
    if ((st = fvf_smem_attr(fvs_k_sep2<T1, ACC1, TM, ACC2, S>, j->smem)) != FV_OK)
        return st;
    fvs_k_sep2<T1, ACC1, TM, ACC2, S><<<j->grid, FVS_THREADS, j->smem, j->stream>>>(j->t);
    return fv_cu_launch_status("separable filter kernel launch");
}

/* Output rows per strip: about `target`, a multiple of G, no more than the
 * image needs, and fewer (down to 2G) where the grid would not fill the device
 * (3840x2160 takes ~135 strips of 256 rows on 132 multiprocessors) */
static int
fvt_rows(int nr, int G, int target, int64_t ncb, int sms)
{
    int th = G * ((target + G - 1) / G);
    const int need = G * ((nr + G - 1) / G);
    if (need < th)
        th = need;
    while (th > 2 * G && (int64_t)((nr + th - 1) / th) * ncb < (int64_t)sms * FVT_BLOCKS * 4)
        th -= G;
    return th;
}

/* the strip kernels where they apply (float32, the columns contiguous in both
 * arrays); FV__SEP2_DECLINED otherwise (or where the planner skips "strip"). */
template <int S>
static fv_status
fvs_strip_go(fvs_job *j)
{
    typedef fvt_geo<S> g;
    fvs_args t = j->t;
    if (t.sc_in != (int)sizeof(float) || t.sc_out != (int)sizeof(float) || j->kernel > FVS_V_STRIP)
        return FV__SEP2_DECLINED;
    const int th = fvt_rows(t.nr, g::G, FVT_ROWS, (int64_t)((t.nc + g::TQ - 1) / g::TQ) * j->nbatch, j->sms);
    const size_t smem = t.pd ? fvt_geo_pd<S>::smem(th) : g::smem(th);
    if (smem > j->smem_max)
        return FV__SEP2_DECLINED;
    t.th = th;
    t.ntr = (t.nr + th - 1) / th;
    t.ntc = (t.nc + g::TQ - 1) / g::TQ;
    t.ntiles = (int64_t)t.ntr * t.ntc * j->nbatch;
    const int64_t cap = (int64_t)j->sms * 8;
    const unsigned grid = (unsigned)(t.ntiles < cap ? t.ntiles : cap);
    fv_status st;
    if (t.pd) {
        if ((st = fvf_smem_attr(fvs_k_strip_pd<S>, smem)) != FV_OK)
            return st;
        fvs_k_strip_pd<S><<<grid, FVT_THREADS, smem, j->stream>>>(t);
        return fv_cu_launch_status("separable filter kernel launch");
    }
    if ((st = fvf_smem_attr(fvs_k_strip<S>, smem)) != FV_OK)
        return st;
    fvs_k_strip<S><<<grid, FVT_THREADS, smem, j->stream>>>(t);
    return fv_cu_launch_status("separable filter kernel launch");
}

/* Kernels with a compile-time window size, for float32 data, intermediate and
 * output where both windows have the same common size (gaussian_filter with
 * sigma 0.5 to 3, uniform / minimum / maximum_filter of sizes 3 to 9, sobel,
 * prewitt); 0: none (the general kernel runs; also where the planner picks
 * "general"). */
template <typename T1, typename ACC1, typename TM, typename ACC2> struct fvs_spec {
    static fv_status run(fvs_job *j) { return FV__SEP2_DECLINED; }
};
template <> struct fvs_spec<float, float, float, float> {
    static fv_status run(fvs_job *j)
    {
        if (j->t.p1.size != j->t.p2.size || j->kernel > FVS_V_SIZED)
            return FV__SEP2_DECLINED;
        fv_status st;
        switch (j->t.p1.size) {
        case 3: return (st = fvs_strip_go<3>(j)) != FV__SEP2_DECLINED ? st : fvs_go<float, float, float, float, 3>(j);
        case 5: return (st = fvs_strip_go<5>(j)) != FV__SEP2_DECLINED ? st : fvs_go<float, float, float, float, 5>(j);
        case 9: return (st = fvs_strip_go<9>(j)) != FV__SEP2_DECLINED ? st : fvs_go<float, float, float, float, 9>(j);
        case 17:
            return (st = fvs_strip_go<17>(j)) != FV__SEP2_DECLINED ? st : fvs_go<float, float, float, float, 17>(j);
        default: return FV__SEP2_DECLINED;
        }
    }
};

template <typename T1, typename ACC1, typename TM, typename ACC2>
static fv_status
fvs_launch_acc(fvs_job *j)
{
    const fvs_layout<T1, ACC1, ACC2> lay(j->t.pd ? j->t.p2.size : j->t.p1.size, j->t.pd ? j->t.p1.size : j->t.p2.size,
                                         j->t.pd != 0);
    fv_status st;
    j->smem = lay.bytes;
    if (j->smem > j->smem_max)
        return FV__SEP2_DECLINED;
    j->t.fast = j->t.fast && j->t.sc_in == (int)sizeof(T1);
    j->t.vstore = j->t.vstore && j->t.sc_out == (int)sizeof(TM);
    if ((st = fvs_spec<T1, ACC1, TM, ACC2>::run(j)) != FV__SEP2_DECLINED)
        return st;
    return fvs_go<T1, ACC1, TM, ACC2, 0>(j);
}

/* float accumulators for 8/16-bit integer data kept in its own dtype between the
 * passes, where both passes are exact in float (instantiated for those only) */
template <typename T1, typename TM, bool SMALL> struct fvs_exact {
    static fv_status run(fvs_job *j) { return FV__SEP2_DECLINED; }
};
template <typename T1> struct fvs_exact<T1, T1, true> {
    static fv_status run(fvs_job *j) { return fvs_launch_acc<T1, float, T1, float>(j); }
};

template <typename T1, typename TM>
static fv_status
fvs_launch(fvs_job *j)
{
    typedef typename std::conditional<std::is_same<TM, float>::value &&
                                          (std::is_same<T1, float>::value || sizeof(T1) <= 2),
                                      float, double>::type ACC1;
    typedef typename std::conditional<std::is_same<TM, float>::value, float, double>::type ACC2;
    if (j->fexact)
        return fvs_exact<T1, TM, std::is_integral<T1>::value && sizeof(T1) <= 2>::run(j);
    return fvs_launch_acc<T1, ACC1, TM, ACC2>(j);
}

template <typename T1>
static fv_status
fvs_launch_mid(fvs_job *j, fv_dtype mid)
{
    if (mid == FV_FLOAT32)
        return fvs_launch<T1, float>(j);
    if (mid == FV_FLOAT64)
        return fvs_launch<T1, double>(j);
    return fvs_launch<T1, T1>(j);   /* the input's own dtype (checked by the caller) */
}

template <int S>
static fv_status
fvs_strip1_go(const fvs_args *a, int sms, int64_t nbatch, size_t smem_max, cudaStream_t stream)
{
    const int G = fvt_geo<S>::G;
    fvs_args t = *a;
    const int th = fvt_rows(t.nr, G, FVT1_ROWS, (int64_t)((t.nc + FVT_THREADS - 1) / FVT_THREADS) * nbatch, sms);
    const size_t smem = (size_t)(S + 1) * sizeof(float) + (size_t)(th + S - 1 + G) * sizeof(int);
    if (smem > smem_max)
        return FV__SEP2_DECLINED;
    t.th = th;
    t.ntr = (t.nr + th - 1) / th;
    t.ntc = (t.nc + FVT_THREADS - 1) / FVT_THREADS;
    t.ntiles = (int64_t)t.ntr * t.ntc * nbatch;
    const int64_t cap = (int64_t)sms * 8;
    const unsigned grid = (unsigned)(t.ntiles < cap ? t.ntiles : cap);
    fv_status st;
    if ((st = fvf_smem_attr(fvs_k_strip1<S>, smem)) != FV_OK)
        return st;
    fvs_k_strip1<S><<<grid, FVT_THREADS, smem, stream>>>(t);
    return fv_cu_launch_status("filter1d strip kernel launch");
}

/* blocks of kernel k resident on a multiprocessor (the occupancy API; *cache
 * holds it after the first call) */
static int
fvs_resident_blocks(void (*k)(fvs_args), int *cache)
{
    int nb = *cache;
    if (nb > 0)
        return nb;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, FVR_THREADS, 0) != cudaSuccess || nb < 1) {
        (void)cudaGetLastError();
        nb = 1;
    }
    *cache = nb;   /* benign race: every writer stores the same value */
    return nb;
}

/* the row kernels: lines cut into segments of th steps (32 chunks each). The
 * resident warps take the segments in rounds; th is the one of the first 64
 * segment counts with the fewest rounds x (th + 2) (a segment's start costs
 * about two steps: its first loads). A round's last segments no longer wait
 * for a few left over (3840x2160: 2160 lines of 15 or 30 steps). vb: the 8-bit
 * kernel's chunk bytes (0: float32, 16-byte chunks). FOVEA_SEP_TH: th. */
template <int S>
static fv_status
fvs_row1_go(const fvs_args *a, int sms, int64_t nbatch, cudaStream_t stream, int vb)
{
    static int occ[4];
    fvs_args t = *a;
    const int64_t lines = (int64_t)t.nr * nbatch, steps = ((vb ? t.nc / vb : t.nc >> 2) + 31) / 32;
    void (*k)(fvs_args) = vb == 4 ? fvs_k_row1u8<S, 4> : vb == 8 ? fvs_k_row1u8<S, 8> : vb == 16 ? fvs_k_row1u8<S, 16>
                                                                                                   : fvs_k_row1<S>;
    const int nb = fvs_resident_blocks(k, &occ[vb == 4 ? 0 : vb == 8 ? 1 : vb == 16 ? 2 : 3]);
    const int64_t rb = (int64_t)nb * sms, rw = rb * (FVR_THREADS / 32);   /* resident blocks, warps */
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
    const int64_t blocks = (t.ntiles + FVR_THREADS / 32 - 1) / (FVR_THREADS / 32);
    k<<<(unsigned)(blocks < rb ? blocks : rb), FVR_THREADS, 0, stream>>>(t);
    return fv_cu_launch_status("filter1d row kernel launch");
}

/* the lines' (last axis) data, starts and pitches in whole chunks of b bytes */
static int
fvs_chunks_fit(const fv_array *in, const fv_array *out, int b)
{
    const int cd = in->ndim - 1;
    if ((in->shape[cd] * in->strides[cd]) % b || ((uintptr_t)in->data | (uintptr_t)out->data) % (uintptr_t)b)
        return 0;
    for (int d = 0; d < cd; d++)
        if (in->shape[d] > 1 && (in->strides[d] % b || out->strides[d] % b))
            return 0;
    return 1;
}

/* One float32 pass along an axis other than the contiguous one, with a window
 * of 3, 5, 9 or 17 taps, by the 1-D strip kernel; FV__SEP2_DECLINED (nothing
 * queued, no error set) where it does not apply: filter1d.cu then runs it.
 * Float data with NaN (min/max) or NaN / inf (uniform) sets the flag, and
 * filter1d's kernels, queued behind with that flag as their guard, redo the
 * pass (filter1d redoes such lines serially). The planner's "cuda.filter1d"
 * picks it ("row", "strip") or not ("tile"). */
extern "C" fv_status
fv__cuda_strip1d(fv_context *ctx, const fv__op_args *a)
{
    static const char *dom = "filter1d";
    const fv__filter1d_params *f = (const fv__filter1d_params *)a->params;
    const fv_array *in = a->in;
    fv_array *out = a->out;
    fvs_args t;
    fv_cu_exec x;
    fv_status st;
    fv_array *flagbuf = NULL;

    ctx = fv__ctx(ctx);
    if (!f || in->ndim < 1 || in->ndim != out->ndim)
        return FV__SEP2_DECLINED;
    const int nd = in->ndim, ax = f->axis, cd = nd - 1;   /* the pass axis; the columns: the last axis */
    const int row = ax == cd;                             /* along the lines: fvs_k_row1 */
    {
        const fvs_1dplan pa = {row};
        if (fv__plan_index(&fvs_1d_variants, &pa, in->device.id) == 2)
            return FV__SEP2_DECLINED;
    }
    /* uint8 into uint8 along the lines: fvs_k_row1u8 (along the other axes the tile
     * kernel was the faster: a strip kernel with 1, 2 or 4 columns a thread took 80,
     * 54 and 45 us against its 34 for correlate1d(9) axis 0 on 3840x2160, H200) */
    const int u8 = row && in->dtype == FV_UINT8 && out->dtype == FV_UINT8;
    const fv_dtype dt = u8 ? FV_UINT8 : FV_FLOAT32;
    /* the 8-bit row kernel's chunk bytes (fvs_chunk_variants), chosen below */
    int vb = u8 ? 8 : 0;
    const int64_t esz = u8 ? 1 : (int64_t)sizeof(float);
    if ((!u8 && (in->dtype != FV_FLOAT32 || out->dtype != FV_FLOAT32)) || ax < 0 || ax > cd || (nd < 2 && !row) ||
        fv_array_size(out) == 0)
        return FV__SEP2_DECLINED;
    for (int d = 0; d < nd; d++)
        if (in->shape[d] != out->shape[d])
            return FV__SEP2_DECLINED;
    if (in->strides[cd] != esz || out->strides[cd] != esz)
        return FV__SEP2_DECLINED;
    if (!fvf_aligned(in) || !fvf_aligned(out) || fvf_extent(in) > INT32_MAX / 2 || fvf_extent(out) > INT32_MAX / 2)
        return FV__SEP2_DECLINED;
    if (in->shape[ax] > (1 << 29) || in->shape[cd] > (1 << 29))
        return FV__SEP2_DECLINED;
    const int S = (int)f->size;
    if (S != 3 && S != 5 && S != 9 && S != 17)
        return FV__SEP2_DECLINED;
    memset(&t, 0, sizeof t);
    if (!fvs_pass_fill(&t.p1, f, dt, dt, 1))
        return FV__SEP2_DECLINED;
    if (t.p1.kind == FVK_AUTO) {   /* device weights, resolved in the kernel */
        t.dw = f->dweights;
        t.dwst = f->dweights_stride;
    }
    /* whole chunks: aligned lines of a multiple of the chunk's bytes (uint8: 4-byte
     * chunks where the chosen ones do not fit), centred windows along the lines */
    if (row && vb) {
        const fvs_chunkplan pa = {in, out};
        const int v = fv__plan_index(&fvs_chunk_variants, &pa, in->device.id);
        vb = v == 0 ? 8 : v == 2 ? 16 : 4;
    }
    if (row && (!fvs_chunks_fit(in, out, vb ? vb : 16) || t.p1.left != S / 2))
        return FV__SEP2_DECLINED;
    const int ra = row ? nd - 2 : ax;   /* the axis of t.nr: the rows' (-1: one line) */
    t.nr = ra >= 0 ? (int)in->shape[ra] : 1;
    t.nc = (int)in->shape[cd];
    t.sr_in = ra >= 0 ? (int)in->strides[ra] : 0;
    t.sr_out = ra >= 0 ? (int)out->strides[ra] : 0;
    t.sc_in = t.sc_out = (int)sizeof(float);
    const int64_t nbatch = fvs_batch_axes(&t, in, out, ra, cd);
    if (nbatch > INT32_MAX)
        return FV__SEP2_DECLINED;
    if (u8) {   /* filter1d's float accumulation for 8-bit data: exact float sums, or checked ones */
        const fvf_accplan pa = {dt, dt, t.p1.kind, f->weights, S, f->mode, f->cval};
        float chk = 0.0f;
        const int v = fvf_acc_plan(&pa, in->device.id, &chk);
        if (v == 2)
            return FV__SEP2_DECLINED;
        if (v == 1)
            t.chk = chk;
    }
    const int redo = t.p1.track != 0;

    if ((st = fv_cu_begin(ctx, dom, a, 1, &x)) != FV_OK)
        return st;
    const size_t smax = fvf_smem_optin(x.device);
    t.in = in->data;
    t.out = out->data;
    if (redo && (st = fvs_flag_new(ctx, &x, &flagbuf, &t.flag)) != FV_OK)
        goto done;
    {
        const int sms = fv__cuda_sm_count(x.device);
        if (row) {
            switch (S) {
            case 3: st = fvs_row1_go<3>(&t, sms, nbatch, x.stream, vb); break;
            case 5: st = fvs_row1_go<5>(&t, sms, nbatch, x.stream, vb); break;
            case 9: st = fvs_row1_go<9>(&t, sms, nbatch, x.stream, vb); break;
            default: st = fvs_row1_go<17>(&t, sms, nbatch, x.stream, vb); break;
            }
        } else {
            switch (S) {
            case 3: st = fvs_strip1_go<3>(&t, sms, nbatch, smax, x.stream); break;
            case 5: st = fvs_strip1_go<5>(&t, sms, nbatch, smax, x.stream); break;
            case 9: st = fvs_strip1_go<9>(&t, sms, nbatch, smax, x.stream); break;
            default: st = fvs_strip1_go<17>(&t, sms, nbatch, smax, x.stream); break;
            }
        }
    }
    if (st == FV__SEP2_DECLINED || st != FV_OK || !redo)
        goto done;
    st = fv__cuda_filter1d_guarded(ctx, a, t.flag);   /* NaN / inf seen: filter1d's pass, queued behind */
done:
    fvf_tmp_release(ctx, flagbuf);
    fv_cu_end(&x);
    return st;
}

extern "C" fv_status
fv__cuda_sep2(fv_context *ctx, const fv__op_args *a)
{
    static const char *dom = "separable_filter";
    const fv__sep2_params *sp = (const fv__sep2_params *)a->params;
    const fv_array *in = a->in;
    fv_array *out = a->out;
    const fv_dtype mid = (fv_dtype)(sp ? sp->mid : -1);
    fvs_job j;
    fv_cu_exec x;
    fv_status st = FV_OK;
    fv_array *flagbuf = NULL, *tmp = NULL;
    int redo;

    ctx = fv__ctx(ctx);
    if (!sp || in->ndim < 2 || in->ndim != out->ndim || fv_array_size(out) == 0)
        return FV__SEP2_DECLINED;
    const int ap = sp->pass[0].axis, aq = sp->pass[1].axis;
    if (ap == aq || ap < 0 || aq < 0 || ap >= in->ndim || aq >= in->ndim)
        return FV__SEP2_DECLINED;
    for (int d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return FV__SEP2_DECLINED;
    /* dtypes */
    fv_dtype idt = in->dtype == FV_BOOL ? FV_UINT8 : in->dtype;
    if (idt != FV_UINT8 && idt != FV_UINT16 && idt != FV_INT16 && idt != FV_INT32 && idt != FV_FLOAT32 &&
        idt != FV_FLOAT64)
        return FV__SEP2_DECLINED;
    if (mid != idt && mid != FV_FLOAT32 && mid != FV_FLOAT64)
        return FV__SEP2_DECLINED;
    if (!(out->dtype == mid || (out->dtype == FV_BOOL && mid == FV_UINT8)))
        return FV__SEP2_DECLINED;
    /* the accumulators filter1d would pick agree with the kernel's */
    const int acc1f = fvf_acc_float(in->dtype, mid), acc2f = fvf_acc_float(mid, out->dtype);
    if (acc2f != (mid == FV_FLOAT32) || acc1f != (mid == FV_FLOAT32 && idt != FV_INT32 && idt != FV_FLOAT64))
        return FV__SEP2_DECLINED;
    memset(&j, 0, sizeof j);
    if (!fvs_pass_fill(&j.t.p1, &sp->pass[0], in->dtype, mid, 0) ||
        !fvs_pass_fill(&j.t.p2, &sp->pass[1], mid, out->dtype, 0))
        return FV__SEP2_DECLINED;
    /* exact in float: the results are the double kernels' (where filter1d's
     * accumulator plan, fvf_acc_plan, picks float_exact for both passes) */
    {
        const fvf_accplan a1 = {in->dtype, mid, j.t.p1.kind, j.t.p1.w, j.t.p1.size, j.t.p1.mode, j.t.p1.cval};
        const fvf_accplan a2 = {mid, out->dtype, j.t.p2.kind, j.t.p2.w, j.t.p2.size, j.t.p2.mode, j.t.p2.cval};
        float chk;
        j.fexact = mid == idt && fvf_acc_plan(&a1, in->device.id, &chk) == 0 &&
                   fvf_acc_plan(&a2, in->device.id, &chk) == 0;
    }
    /* geometry: 32-bit byte offsets, q the denser axis */
    if (!fvf_aligned(in) || !fvf_aligned(out))
        return FV__SEP2_DECLINED;   /* filter1d reports the error */
    if (fvf_extent(in) > INT32_MAX / 2 || fvf_extent(out) > INT32_MAX / 2)
        return FV__SEP2_DECLINED;
    const int64_t np = in->shape[ap], nq = in->shape[aq];
    if (np > (1 << 29) || nq > (1 << 29))
        return FV__SEP2_DECLINED;
    /* the tile's rows run along the sparser of the two axes, its columns along the denser */
    int64_t spi = in->strides[ap], sqi = in->strides[aq];
    const int pd = np > 1 && nq > 1 && (sqi < 0 ? -sqi : sqi) > (spi < 0 ? -spi : spi);
    const int ar = pd ? aq : ap, ac = pd ? ap : aq;
    j.t.pd = pd;
    j.t.nr = (int)in->shape[ar];
    j.t.nc = (int)in->shape[ac];
    j.t.sr_in = (int)in->strides[ar];
    j.t.sc_in = (int)in->strides[ac];
    j.t.sr_out = (int)out->strides[ar];
    j.t.sc_out = (int)out->strides[ac];
    const int64_t nbatch = fvs_batch_axes(&j.t, in, out, ap, aq);
    if (nbatch > INT32_MAX)
        return FV__SEP2_DECLINED;
    j.t.ntr = (int)((j.t.nr + FVS_TP - 1) / FVS_TP);
    j.t.ntc = (int)((j.t.nc + FVS_TQ - 1) / FVS_TQ);
    j.t.ntiles = (int64_t)j.t.ntr * j.t.ntc * nbatch;
    j.t.odt = (int)out->dtype;
    {   /* the loads and stores (fvs_load_variants) */
        const int vec = fv__plan_index(&fvs_load_variants, NULL, in->device.id) == 0;
        const int64_t spo = j.t.sr_out, sri = j.t.sr_in;
        j.t.fast = vec && (sri < 0 ? -sri : sri) % 16 == 0;
        j.t.vstore = vec && (spo < 0 ? -spo : spo) % 16 == 0 && ((uintptr_t)out->data & 15) == 0;
        for (int b = 0; b < j.t.nb; b++)   /* every tile's rows start on 16-byte boundaries */
            if (j.t.bs_out[b] % 16)
                j.t.vstore = 0;
        j.t.obool = out->dtype == FV_BOOL;
    }
    redo = j.t.p1.track || j.t.p2.track;

    if ((st = fv_cu_begin(ctx, dom, a, 1, &x)) != FV_OK)
        return st;
    j.smem_max = fvf_smem_optin(x.device);
    j.stream = x.stream;
    j.sms = fv__cuda_sm_count(x.device);
    j.nbatch = nbatch;
    {
        const fvs_plan pa = {&j, idt, mid, out->dtype};
        j.kernel = fv__plan_index(&fvs_variants, &pa, x.device);
    }
    {
        int64_t cap = (int64_t)j.sms * 16;
        j.grid = (unsigned)(j.t.ntiles < cap ? j.t.ntiles : cap);
    }
    j.t.in = in->data;
    j.t.out = out->data;
    if (redo && (st = fvs_flag_new(ctx, &x, &flagbuf, &j.t.flag)) != FV_OK)
        goto done;
    switch (idt) {
    case FV_UINT8: st = fvs_launch_mid<uint8_t>(&j, mid); break;
    case FV_UINT16: st = fvs_launch_mid<uint16_t>(&j, mid); break;
    case FV_INT16: st = fvs_launch_mid<int16_t>(&j, mid); break;
    case FV_INT32: st = fvs_launch_mid<int32_t>(&j, mid); break;
    case FV_FLOAT32: st = fvs_launch_mid<float>(&j, mid); break;
    default: st = fvs_launch_mid<double>(&j, mid); break;
    }
    if (st != FV_OK || !redo)
        goto done;
    /* NaN / inf seen: the pass-by-pass chain, queued behind, runs only then */
    if ((st = fv_array_new(ctx, mid, in->ndim, in->shape, in->device, &tmp)) != FV_OK)
        goto done;
    {
        fv__op_args a1 = {in, NULL, tmp, &sp->pass[0]};
        fv__op_args a2 = {tmp, NULL, out, &sp->pass[1]};
        if ((st = fv__cuda_filter1d_guarded(ctx, &a1, j.t.flag)) != FV_OK)
            goto done;
        st = fv__cuda_filter1d_guarded(ctx, &a2, j.t.flag);
    }
done:
    fvf_tmp_release(ctx, tmp);
    fvf_tmp_release(ctx, flagbuf);
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(SEP2, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_sep2);
