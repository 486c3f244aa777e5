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
 *    index math), and the tiles fit the device's shared memory. */
#include <type_traits>

#include "filters-common.cuh"

extern "C" fv_status fv__cuda_filter1d_guarded(fv_context *ctx, const fv__op_args *a, const int *guard);

#define FVS_THREADS 256
#define FVS_TP 64          /* outputs per tile along p */
#define FVS_TQ 64          /* outputs per tile along q */
#define FVK_MAXTAPS 64
#define FVS_MM_DIRECT 24   /* = filter1d's FVF_MM_DIRECT */
#define FVS_LU 2           /* 16-byte loads in flight per thread (interior tiles) */

struct fvs_pass {
    int kind, mode, size, left;
    int track;             /* float data: 1 flag NaN (min/max), 2 flag NaN/inf (uniform), 0 none */
    double cval;
    double w[FVK_MAXTAPS];
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
    int64_t ntiles;
    int odt;
    int fast;                                  /* columns contiguous, |row stride| a multiple of 16: 16-byte loads */
    int vstore, obool;                         /* out likewise (16-byte stores of whole tiles); out is bool */
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

template <typename T1, typename ACC1, typename TM, typename ACC2>
__global__ void __launch_bounds__(FVS_THREADS, sizeof(ACC1) == 4 && sizeof(ACC2) == 4 ? 4 : 3)
fvs_k_sep2(const __grid_constant__ fvs_args p)
{
    extern __shared__ double fvs_smem[];
    char *sm = (char *)fvs_smem;
    const bool pd = p.pd;   /* pass 1 along the rows' length (the dense axis), pass 2 down the columns */
    const fvs_pass &pr = pd ? p.p2 : p.p1, &pc = pd ? p.p1 : p.p2;   /* the passes along rows / columns */
    const int s1 = p.p1.size, s2 = p.p2.size, hr = pr.size, hc = pc.size;
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
        const int64_t tb = tile / p.ntc;
        const int ic = (int)(tile - tb * p.ntc);
        int b = (int)(tb / p.ntr);
        const int ir = (int)(tb - (int64_t)b * p.ntr);
        int bi = 0, bo = 0;
        for (int d = p.nb - 1; d >= 0; d--) {
            int qd = b / p.bshape[d], x = b - qd * p.bshape[d];
            b = qd;
            bi += x * p.bs_in[d];
            bo += x * p.bs_out[d];
        }
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
                    if (tr1) {   /* the tracked values among this chunk's elements of the tile */
                        const T1 *e = (const T1 *)&v[u];
#pragma unroll
                        for (int i = 0; i < 16 / (int)sizeof(T1); i++) {
                            const int pos = kk[u] * 16 + i * (int)sizeof(T1) - offb;
                            if (pos >= 0 && pos < C * (int)sizeof(T1) && fvk_odd((ACC1)e[i], tr1 == 2))
                                odd = true;
                        }
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
                fvk_slide<ACC1, R1>(sIn + r0 * CP + ofs + c, CP, w1, k1, s1, acc);
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
                fvk_slide<ACC2, R2>(sMid + r * PM + seg * R2, 1, w2, k2, s2, acc);
                ACC2 *o = sOut + r * (FVS_TQ + 1) + seg * R2;
#pragma unroll
                for (int k = 0; k < R2; k++)
                    o[k] = acc[k];
            }
        } else {
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
                fvk_slide<ACC1, R1>(sIn + r * CP + ofs + seg * R1, 1, w1, k1, s1, acc);
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
                fvk_slide<ACC2, R2>(sMid + seg * R2 * PM + c, PM, w2, k2, s2, acc);
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
 * dt: the pass's input dtype, odt: its output dtype. */
static int
fvs_pass_fill(fvs_pass *ps, const fv__filter1d_params *f, fv_dtype dt, fv_dtype odt)
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
        if (!f->weights)
            return 0;
        int sym = fvs_symmetry(f->weights, f->size);
        ps->kind = sym > 0 ? FVK_SYM : sym < 0 ? FVK_ANTI : FVK_CORR;
        for (int i = 0; i < ps->size; i++)
            ps->w[i] = f->weights[i];
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

typedef struct fvs_job {
    fvs_args t;
    size_t smem, smem_max;
    int fexact;   /* both passes exact in float (fvf_float_exact), 8/16-bit data kept as is */
    unsigned grid;
    cudaStream_t stream;
} fvs_job;

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
    if ((st = fvf_smem_attr(fvs_k_sep2<T1, ACC1, TM, ACC2>, j->smem)) != FV_OK)
        return st;
    fvs_k_sep2<T1, ACC1, TM, ACC2><<<j->grid, FVS_THREADS, j->smem, j->stream>>>(j->t);
    return fv_cu_launch_status("separable filter kernel launch");
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
    if (!fvs_pass_fill(&j.t.p1, &sp->pass[0], in->dtype, mid) || !fvs_pass_fill(&j.t.p2, &sp->pass[1], mid, out->dtype))
        return FV__SEP2_DECLINED;
    /* exact in float: the results are the double kernels' (FOVEA_F1D_NOEXACTF=1: off) */
    j.fexact = mid == idt && getenv("FOVEA_F1D_NOEXACTF") == NULL &&
               fvf_float_exact(in->dtype, mid, j.t.p1.kind, j.t.p1.w, j.t.p1.size, j.t.p1.mode, j.t.p1.cval) &&
               fvf_float_exact(mid, out->dtype, j.t.p2.kind, j.t.p2.w, j.t.p2.size, j.t.p2.mode, j.t.p2.cval);
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
    int64_t nbatch = 1;
    for (int d = 0; d < in->ndim; d++) {
        if (d == ap || d == aq || in->shape[d] == 1)
            continue;
        j.t.bshape[j.t.nb] = (int)in->shape[d];
        j.t.bs_in[j.t.nb] = (int)in->strides[d];
        j.t.bs_out[j.t.nb] = (int)out->strides[d];
        j.t.nb++;
        nbatch *= in->shape[d];
    }
    if (nbatch > INT32_MAX)
        return FV__SEP2_DECLINED;
    j.t.ntr = (int)((j.t.nr + FVS_TP - 1) / FVS_TP);
    j.t.ntc = (int)((j.t.nc + FVS_TQ - 1) / FVS_TQ);
    j.t.ntiles = (int64_t)j.t.ntr * j.t.ntc * nbatch;
    j.t.odt = (int)out->dtype;
    {   /* FOVEA_SEP_NOVEC=1: element by element loads and stores (for timing comparisons) */
        const int vec = getenv("FOVEA_SEP_NOVEC") == NULL;
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
    {
        int v = 0;
        if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, x.device) != cudaSuccess || v <= 0) {
            (void)cudaGetLastError();
            v = 48 * 1024;
        }
        j.smem_max = (size_t)v;
    }
    j.stream = x.stream;
    {
        int64_t cap = (int64_t)fv__cuda_sm_count(x.device) * 16;
        j.grid = (unsigned)(j.t.ntiles < cap ? j.t.ntiles : cap);
    }
    j.t.in = in->data;
    j.t.out = out->data;
    if (redo) {
        if ((st = fvf_tmp_new(ctx, x.device, sizeof(int), &flagbuf)) != FV_OK)
            goto done;
        j.t.flag = (int *)flagbuf->data;
        cudaError_t e = cudaMemsetAsync(j.t.flag, 0, sizeof(int), x.stream);
        if (e != cudaSuccess) {
            st = fv__cuda_error("cudaMemsetAsync", e);
            goto done;
        }
    }
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
