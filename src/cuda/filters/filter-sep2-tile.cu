/* FV__OP_SEP2's tile kernel (fv_k_sep_sep2: both passes of a tile in shared memory,
 * general or compiled for a window size) and its launch for each dtype chain.
 * The design is described at the top of filter-sep2.cu. */
#include "filter-sep2.cuh"

template <typename T1, typename ACC1, typename TM, typename ACC2, int S = 0>
__global__ void
__launch_bounds__(FV_CU_SEP_THREADS, sizeof(ACC1) == 4 && sizeof(ACC2) == 4 ? 4 : 3)
    fv_k_sep_sep2(const __grid_constant__ fv_cu_sep_args p)
{
    extern __shared__ double fv_d_sep_smem[];
    char *sm = (char *)fv_d_sep_smem;
    const bool pd = p.pd; /* pass 1 along the rows' length (the dense axis), pass 2 down the columns */
    const fv_cu_sep_pass &pr = pd ? p.p2 : p.p1, &pc = pd ? p.p1 : p.p2; /* the passes along rows / columns */
    /* S > 0: both windows have S taps (fv_cu_sep_spec): tile pitches, tap loops and
     * shared offsets are compile-time constants */
    const int s1 = S > 0 ? S : p.p1.size, s2 = S > 0 ? S : p.p2.size;
    const int hr = S > 0 ? S : pr.size, hc = S > 0 ? S : pc.size;
    const int k1 = p.p1.kind, k2 = p.p2.kind;
    const int C = FV_CU_SEP_TQ + hc, RI = FV_CU_SEP_TP + hr;
    const fv_cu_sep_layout<T1, ACC1, ACC2> lay(hr, hc, pd);
    const int CP = lay.cp, RP = lay.rp, PM = lay.pm;
    const bool direct = std::is_same<T1, ACC1>::value && !pd;
    const int R1 = fv_d_win_r<ACC1>::value, R2 = fv_d_win_r<ACC2>::value;
    const float invC = 1.0f / (float)C, invRI = 1.0f / (float)RI;
    ACC1 *w1 = (ACC1 *)sm;
    ACC2 *w2 = (ACC2 *)(sm + FV_CU_WIN_MAXTAPS * sizeof(double));
    ACC1 *sIn = (ACC1 *)(sm + lay.in_off);
    ACC2 *sMid = (ACC2 *)(sm + lay.mid_off);
    ACC2 *sOut = (ACC2 *)(sm + lay.out_off);
    char *sRaw = sm + lay.raw_off;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const ACC1 cv1 = (ACC1)p.p1.cval;
    const ACC2 cv2 = (ACC2)p.p2.cval;
    const int tr1 = fv_cu_flt_is_float<T1>::value ? p.p1.track : 0;
    const int tr2 = fv_cu_flt_is_float<TM>::value ? p.p2.track : 0;
    bool odd = false;

    if (tid == 0) { /* constant offsets into the parameters */
#pragma unroll
        for (int i = 0; i < FV_CU_WIN_MAXTAPS; i++) {
            if (i >= s1 && i >= s2) /* early out (constant offsets all the same) */
                break;
            if (i < s1 && k1 <= FV_CU_WIN_ANTI)
                w1[i] = (ACC1)p.p1.w[i];
            if (i < s2 && k2 <= FV_CU_WIN_ANTI)
                w2[i] = (ACC2)p.p2.w[i];
        }
    }

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int ir, ic, bi, bo;
        fv_d_sep_tile_at(p, tile, ir, ic, bi, bo);
        const int r0t = ir * FV_CU_SEP_TP, c0t = ic * FV_CU_SEP_TQ;
        const int er =
            p.nr - r0t < FV_CU_SEP_TP ? p.nr - r0t : FV_CU_SEP_TP; /* outputs of this tile down the columns */
        const int ec = p.nc - c0t < FV_CU_SEP_TQ ? p.nc - c0t : FV_CU_SEP_TQ; /* and along the rows */
        const char *src = p.in + bi;

        __syncthreads(); /* the previous tile's readers of shared memory are done */
        /* 1. input tile + halos (+ a spare row and column) */
        int ofs = 0; /* sIn's row r, column c is sIn[r * CP + ofs + c] */
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
            fast = ic0 * (int)sizeof(T1) >= offb && ic0 * (int)sizeof(T1) - offb + nch * 16 <= p.nc * (int)sizeof(T1);
            a0 = lo - offb;
        }
        if (fast) {
            const int ntask = RI * nch;
            const float inv = 1.0f / (float)nch;
            for (int tb = 0; tb < ntask; tb += FV_CU_SEP_THREADS * FV_CU_SEP_LU) {
                uint4 v[FV_CU_SEP_LU];
                int rr[FV_CU_SEP_LU], kk[FV_CU_SEP_LU];
#pragma unroll
                for (int u = 0; u < FV_CU_SEP_LU; u++) { /* all loads first: FV_CU_SEP_LU chunks in flight per thread */
                    const int t = tb + u * FV_CU_SEP_THREADS + tid;
                    rr[u] = -1;
                    if (t < ntask) {
                        rr[u] = fv_d_win_div(t, inv);
                        kk[u] = t - rr[u] * nch;
                        v[u] = __ldg((const uint4 *)(a0 + rr[u] * p.sr_in + kk[u] * 16));
                    }
                }
#pragma unroll
                for (int u = 0; u < FV_CU_SEP_LU; u++) {
                    if (rr[u] < 0)
                        continue;
                    char *dst = direct ? (char *)(sIn + rr[u] * CP) + kk[u] * 16 : sRaw + rr[u] * RP + kk[u] * 16;
                    *(uint4 *)dst = v[u];
                    if (tr1) { /* tracked values among the chunk's elements: all of them lie in
                                  * the image (fast's test) and the flag is the image's, so
                                  * those outside this tile's window need not be skipped */
                        const T1 *e = (const T1 *)&v[u];
                        bool bad = false;
#pragma unroll
                        for (int i = 0; i < 16 / (int)sizeof(T1); i++)
                            bad |= fv_d_win_odd((ACC1)e[i], tr1 == 2);
                        if (bad)
                            odd = true;
                    }
                }
            }
            if (direct) {
                ofs = offb / (int)sizeof(T1);
            } else { /* convert the raw chunks, element by element */
                __syncthreads();
                int r = tid / C, c = tid - r * C;
                const int dr = FV_CU_SEP_THREADS / C, dc = FV_CU_SEP_THREADS - dr * C;
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
        } else { /* lanes along the rows, each element extended by the modes: outside the
                    * image along pass 1's axis in constant mode the input's cval; along
                    * pass 2's, a constant line of the intermediate, never read */
            for (int c = lane; c < C; c += 32) {
                const int cq = fv_d_flt_extend<int>(c0t + c - pc.left, p.nc, pc.mode);
                if (cq < 0 && !pd)
                    continue;
                const char *col = src + cq * p.sc_in;
                for (int r = warp; r < RI; r += FV_CU_SEP_THREADS / 32) {
                    const int rp = fv_d_flt_extend<int>(r0t + r - pr.left, p.nr, pr.mode);
                    if (rp < 0 && pd)
                        continue;
                    ACC1 x = rp < 0 || cq < 0 ? cv1 : (ACC1)__ldg((const T1 *)(col + rp * p.sr_in));
                    if (tr1 && fv_d_win_odd(x, tr1 == 2))
                        odd = true;
                    sIn[r * CP + c] = x;
                }
            }
        }
        __syncthreads();

        if (!pd) {
            /* the pitches without pd's select (constants when S > 0) */
            const fv_cu_sep_layout<T1, ACC1, ACC2> ld(hr, hc, false);
            const int CP = S > 0 ? ld.cp : lay.cp, PM = S > 0 ? ld.pm : lay.pm;
            /* 2. pass 1 down the columns: task = (segment of R1 rows, column) */
            const int nseg1 = (er + R1 - 1) / R1;
            for (int t = tid; t < nseg1 * C; t += FV_CU_SEP_THREADS) {
                const int seg = fv_d_win_div(t, invC), c = t - seg * C;
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
                fv_d_win_slide<ACC1, R1, S>(sIn + r0 * CP + ofs + c, CP, w1, k1, s1, acc);
                fv_d_sep_put_mid<TM>(acc, m, PM, tr2, er - r0, odd);
            }
            __syncthreads();

            /* 3. pass 2 along the rows: task = (row, segment of R2 columns), lanes on rows */
            const int nseg2 = (ec + R2 - 1) / R2;
            for (int t = tid; t < nseg2 * FV_CU_SEP_TP; t += FV_CU_SEP_THREADS) {
                const int seg = t / FV_CU_SEP_TP, r = t - seg * FV_CU_SEP_TP;
                if (r >= er)
                    continue;
                ACC2 acc[R2];
                fv_d_win_slide<ACC2, R2, S>(sMid + r * PM + seg * R2, 1, w2, k2, s2, acc);
                ACC2 *o = sOut + r * (FV_CU_SEP_TQ + 1) + seg * R2;
#pragma unroll
                for (int k = 0; k < R2; k++)
                    o[k] = acc[k];
            }
        } else {
            const fv_cu_sep_layout<T1, ACC1, ACC2> ld(hr, hc, true);
            const int CP = S > 0 ? ld.cp : lay.cp, PM = S > 0 ? ld.pm : lay.pm;
            /* 2. pass 1 along the rows: task = (row, segment of R1 columns), lanes on rows */
            const int nseg1 = (ec + R1 - 1) / R1;
            for (int t = tid; t < nseg1 * RI; t += FV_CU_SEP_THREADS) {
                const int seg = fv_d_win_div(t, invRI), r = t - seg * RI;
                ACC2 *m = sMid + r * PM + seg * R1;
                const int rq = r0t + r - p.p2.left;
                if (p.p2.mode == FV_MODE_CONSTANT && (rq < 0 || rq >= p.nr)) {
#pragma unroll
                    for (int k = 0; k < R1; k++)
                        m[k] = cv2;
                    continue;
                }
                ACC1 acc[R1];
                fv_d_win_slide<ACC1, R1, S>(sIn + r * CP + ofs + seg * R1, 1, w1, k1, s1, acc);
                fv_d_sep_put_mid<TM>(acc, m, 1, tr2, ec - seg * R1, odd);
            }
            __syncthreads();

            /* 3. pass 2 down the columns: task = (segment of R2 rows, column), lanes on columns */
            const int nseg2 = (er + R2 - 1) / R2;
            for (int t = tid; t < nseg2 * FV_CU_SEP_TQ; t += FV_CU_SEP_THREADS) {
                const int seg = t / FV_CU_SEP_TQ, c = t - seg * FV_CU_SEP_TQ;
                if (c >= ec)
                    continue;
                ACC2 acc[R2];
                fv_d_win_slide<ACC2, R2, S>(sMid + seg * R2 * PM + c, PM, w2, k2, s2, acc);
                ACC2 *o = sOut + seg * R2 * (FV_CU_SEP_TQ + 1) + c;
#pragma unroll
                for (int k = 0; k < R2; k++)
                    o[k * (FV_CU_SEP_TQ + 1)] = acc[k];
            }
        }
        __syncthreads();

        /* 4. the output tile, lanes along the rows */
        char *dst = p.out + bo;
        if (p.vstore && er == FV_CU_SEP_TP &&
            ec == FV_CU_SEP_TQ) { /* whole tile, 16-byte rows: one vector per thread and step */
            const int per = 16 / (int)sizeof(TM), cpr = FV_CU_SEP_TQ / per; /* chunks per row */
            char *org = dst + r0t * p.sr_out + c0t * (int)sizeof(TM);
#pragma unroll 4
            for (int t = tid; t < FV_CU_SEP_TP * cpr; t += FV_CU_SEP_THREADS) {
                const int r = t / cpr, k = t - r * cpr;
                const ACC2 *o = sOut + r * (FV_CU_SEP_TQ + 1) + k * per;
                union {
                    uint4 v;
                    TM e[16 / sizeof(TM)];
                } u;
#pragma unroll
                for (int i = 0; i < 16 / (int)sizeof(TM); i++)
                    u.e[i] = fv_d_sep_out<TM>(o[i], p.obool);
                *(uint4 *)(org + r * p.sr_out + k * 16) = u.v;
            }
        } else {
            for (int r = warp; r < er; r += FV_CU_SEP_THREADS / 32) {
                char *row = dst + (r0t + r) * p.sr_out;
                for (int c = lane; c < ec; c += 32)
                    fv_d_flt_store(row + (c0t + c) * p.sc_out, p.odt, sOut[r * (FV_CU_SEP_TQ + 1) + c]);
            }
        }
    }
    if (odd)
        *p.flag = 1; /* benign: every writer stores 1 */
}


template <typename T1, typename ACC1, typename TM, typename ACC2, int S>
static fv_status
fv_cu_sep_go(fv_cu_sep_job *j)
{
    fv_status st;
    if ((st = fv_cu_flt_smem_attr(fv_k_sep_sep2<T1, ACC1, TM, ACC2, S>, j->smem)) != FV_OK)
        return st;
    fv_k_sep_sep2<T1, ACC1, TM, ACC2, S><<<j->grid, FV_CU_SEP_THREADS, j->smem, j->stream>>>(j->t);
    return fv_cu_launch_status("separable filter kernel launch");
}


/* Kernels with a compile-time window size, for float32 data, intermediate and
 * output where both windows have the same common size (gaussian_filter with
 * sigma 0.5 to 3, uniform / minimum / maximum_filter of sizes 3 to 9, sobel,
 * prewitt); 0: none (the general kernel runs; also where the planner picks
 * "general"). */
template <typename T1, typename ACC1, typename TM, typename ACC2> struct fv_cu_sep_spec {
    static fv_status run(fv_cu_sep_job *j)
    {
        return FV__SEP2_DECLINED;
    }
};
template <> struct fv_cu_sep_spec<float, float, float, float> {
    static fv_status run(fv_cu_sep_job *j)
    {
        if (j->t.p1.size != j->t.p2.size || j->kernel > FV_CU_SEP_V_SIZED)
            return FV__SEP2_DECLINED;
        fv_status st;
        switch (j->t.p1.size) {
        case 3:
            return (st = fv_cu_sep_strip_go<3>(j)) != FV__SEP2_DECLINED
                ? st
                : fv_cu_sep_go<float, float, float, float, 3>(j);
        case 5:
            return (st = fv_cu_sep_strip_go<5>(j)) != FV__SEP2_DECLINED
                ? st
                : fv_cu_sep_go<float, float, float, float, 5>(j);
        case 9:
            return (st = fv_cu_sep_strip_go<9>(j)) != FV__SEP2_DECLINED
                ? st
                : fv_cu_sep_go<float, float, float, float, 9>(j);
        case 17:
            return (st = fv_cu_sep_strip_go<17>(j)) != FV__SEP2_DECLINED
                ? st
                : fv_cu_sep_go<float, float, float, float, 17>(j);
        default:
            return FV__SEP2_DECLINED;
        }
    }
};

template <typename T1, typename ACC1, typename TM, typename ACC2>
static fv_status
fv_cu_sep_launch_acc(fv_cu_sep_job *j)
{
    const fv_cu_sep_layout<T1, ACC1, ACC2> lay(j->t.pd ? j->t.p2.size : j->t.p1.size,
                                               j->t.pd ? j->t.p1.size : j->t.p2.size, j->t.pd != 0);
    fv_status st;
    j->smem = lay.bytes;
    if (j->smem > j->smem_max)
        return FV__SEP2_DECLINED;
    j->t.fast = j->t.fast && j->t.sc_in == (int)sizeof(T1);
    j->t.vstore = j->t.vstore && j->t.sc_out == (int)sizeof(TM);
    if ((st = fv_cu_sep_spec<T1, ACC1, TM, ACC2>::run(j)) != FV__SEP2_DECLINED)
        return st;
    return fv_cu_sep_go<T1, ACC1, TM, ACC2, 0>(j);
}

/* float accumulators for 8/16-bit integer data kept in its own dtype between the
 * passes, where both passes are exact in float (instantiated for those only) */
template <typename T1, typename TM, bool SMALL> struct fv_cu_sep_exact {
    static fv_status run(fv_cu_sep_job *j)
    {
        return FV__SEP2_DECLINED;
    }
};
template <typename T1> struct fv_cu_sep_exact<T1, T1, true> {
    static fv_status run(fv_cu_sep_job *j)
    {
        return fv_cu_sep_launch_acc<T1, float, T1, float>(j);
    }
};

template <typename T1, typename TM>
static fv_status
fv_cu_sep_launch(fv_cu_sep_job *j)
{
    typedef
        typename std::conditional<std::is_same<TM, float>::value && (std::is_same<T1, float>::value || sizeof(T1) <= 2),
                                  float, double>::type ACC1;
    typedef typename std::conditional<std::is_same<TM, float>::value, float, double>::type ACC2;
    if (j->fexact)
        return fv_cu_sep_exact < T1, TM, std::is_integral<T1>::value && sizeof(T1) <= 2 > ::run(j);
    return fv_cu_sep_launch_acc<T1, ACC1, TM, ACC2>(j);
}

template <typename T1>
fv_status
fv_cu_sep_launch_mid(fv_cu_sep_job *j, fv_dtype mid)
{
    if (mid == FV_FLOAT32)
        return fv_cu_sep_launch<T1, float>(j);
    if (mid == FV_FLOAT64)
        return fv_cu_sep_launch<T1, double>(j);
    return fv_cu_sep_launch<T1, T1>(j); /* the input's own dtype (checked by the caller) */
}

/* the input dtypes fv__cuda_sep2 runs (filter-sep2.cu) */
template fv_status fv_cu_sep_launch_mid<uint8_t>(fv_cu_sep_job *j, fv_dtype mid);
template fv_status fv_cu_sep_launch_mid<uint16_t>(fv_cu_sep_job *j, fv_dtype mid);
template fv_status fv_cu_sep_launch_mid<int16_t>(fv_cu_sep_job *j, fv_dtype mid);
template fv_status fv_cu_sep_launch_mid<int32_t>(fv_cu_sep_job *j, fv_dtype mid);
template fv_status fv_cu_sep_launch_mid<float>(fv_cu_sep_job *j, fv_dtype mid);
template fv_status fv_cu_sep_launch_mid<double>(fv_cu_sep_job *j, fv_dtype mid);
