/* FV__OP_SEP2's strip kernels (fv_k_sep_strip, fv_k_sep_strip_pd: float32, both windows
 * of S taps, a block walking down a strip of columns) and the 1-D strip kernel
 * (fv_k_sep_strip1, fv__cuda_strip1d), with their launches. The design is
 * described at the top of filter-sep2.cu. */
#include "filter-sep2.cuh"

/* ==== strips: float32 with both windows of S taps, pass 1 down the columns ==========
 * A block takes a strip of FV_CU_STRIP_TQ<S> output columns and th output rows (th a
 * multiple of G) and walks down it: each thread owns one column of the
 * intermediate (the strip's columns plus pass 2's halo, extended by pass 2's
 * mode) and keeps pass 1's window of S input values in registers, one load per
 * row (the window is a ring whose slots are compile-time: the row loop is
 * unrolled by G, a multiple of S). Pass 1's results for G rows go to a shared
 * buffer (double-buffered, one barrier per G rows); pass 2 then runs along the
 * buffered rows, 4 outputs a task from 16-byte shared loads, stored as one
 * 16-byte vector. The next G rows' loads are issued before pass 2, so they are
 * in flight while it runs. Each output is summed by fv_d_win_slide with the fused
 * kernel's (and filter1d's) operations in the same order: the same bits.
 * Against the tile kernel this drops the halo rows of pass 1 (recomputed per
 * 64-row tile there) and every shared store and load of the input tile. */
template <int S>
__global__ void
__launch_bounds__(FV_CU_STRIP_THREADS, FV_CU_STRIP_BLOCKS) fv_k_sep_strip(const __grid_constant__ fv_cu_sep_args p)
{
    typedef fv_cu_strip_geo<S> g;
    const int G = g::G, TQ = g::TQ, C = g::C, MP = g::MP;
    extern __shared__ double fv_d_sep_smem[];
    float *buf = (float *)fv_d_sep_smem; /* [2][G][MP] */
    float *sw = buf + 2 * G * MP;        /* [2][S] the weights */
    int *rowoff = (int *)(sw + 2 * S);   /* [th + S - 1] byte offsets of the input rows */
    const int tid = threadIdx.x, th = p.th;
    const int k1 = p.p1.kind, k2 = p.p2.kind;
    const int trk = p.p1.track > p.p2.track ? p.p1.track : p.p2.track; /* inputs and intermediates alike */
    const float cv1 = (float)p.p1.cval, cv2 = (float)p.p2.cval;
    fv_d_strip_weights_to_shared<S>(p, sw);
    const float(&w1)[S] = *(const float(*)[S])sw;
    const float(&w2)[S] = *(const float(*)[S])(sw + S);
    bool odd = false;

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int ir, ic, bi, bo;
        fv_d_sep_tile_at(p, tile, ir, ic, bi, bo);
        const int r0t = ir * th, c0t = ic * TQ;
        const int er = p.nr - r0t < th ? p.nr - r0t : th;
        const int ec = p.nc - c0t < TQ ? p.nc - c0t : TQ;

        __syncthreads(); /* the previous strip's readers of the buffer and the row table are done */
        fv_d_strip_row_table(rowoff, th + S - 1, r0t - p.p1.left, p.nr, p.p1.mode, p.sr_in);
        /* this thread's column: >= 0 loaded, -1 a constant column of the
         * intermediate (cv2), -2 none (past the strip's columns) */
        const int cq = tid < C ? fv_d_flt_extend<int>(c0t - p.p2.left + tid, p.nc, p.p2.mode) : -2;
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
            win[i] = fv_d_strip_load(colp, rowoff[i], cv1);
            if (trk && live && fv_d_win_odd(win[i], trk == 2))
                odd = true;
        }
        if (inner) {
#pragma unroll
            for (int i = 0; i < G; i++)
                ld[i] = __ldg((const float *)(rowp + (S - 1 + i) * sr));
        } else {
#pragma unroll
            for (int i = 0; i < G; i++)
                ld[i] = fv_d_strip_load(colp, rowoff[S - 1 + i], cv1);
        }
        const int ng = (er + G - 1) / G; /* groups holding rows of the image */
        for (int gi = 0; gi < ng; gi++) {
            float *bb = buf + (gi & 1) * G * MP;
            const int nv = er - gi * G; /* rows of this group inside the image */
            FV_CU_STRIP_TRK_SWITCH(trk,
                                   FV_CU_STRIP_KIND_SWITCH(
                                       k1, (fv_d_strip_pass1<KD, S, G, TK>(win, ld, w1, bb, MP, tid, live, fill, odd))))
            if (gi + 1 < ng) { /* the next rows' loads, in flight during pass 2 */
                const int q0 = S - 1 + (gi + 1) * G;
                if (inner) {
                    const char *rp = rowp + q0 * sr;
#pragma unroll
                    for (int i = 0; i < G; i++)
                        ld[i] = __ldg((const float *)(rp + i * sr));
                } else {
#pragma unroll
                    for (int i = 0; i < G; i++)
                        ld[i] = fv_d_strip_load(colp, rowoff[q0 + i], cv1);
                }
            }
            __syncthreads();
            char *dst0 = p.out + bo + (r0t + gi * G) * p.sr_out + c0t * (int)sizeof(float);
            const int rows = nv < G ? nv : G;
            FV_CU_STRIP_KIND_SWITCH(k2, (fv_d_strip_pass2<KD, S>(p, bb, w2, rows, ec, dst0, tid)))
        }
    }
    if (odd)
        *p.flag = 1; /* benign: every writer stores 1 */
}

/* The strip kernel with the passes the other way round (`pd`: pass 1 along the
 * rows, pass 2 down the columns: prewitt(axis=-1), sobel(axis=1), ...). Per
 * group of G rows of the intermediate (the strip's rows plus pass 2's halo,
 * extended by pass 2's mode): the input rows (pass 1's halo columns extended
 * by its mode) go from registers to the shared buffer A; the next group's
 * loads are issued; pass 1 runs along A's rows, 4 outputs a task, into buffer
 * B; pass 2 then slides each column's window through registers (thread =
 * output column) and stores one value a row. Two barriers a group. */
template <int S> struct fv_cu_strip_geo_pd {
    typedef fv_cu_strip_geo<S> g;
    static size_t smem(int th)
    {
        return (size_t)g::G * (g::MP + g::TQ) * sizeof(float) + (size_t)2 * S * sizeof(float) +
            (size_t)(th + 2 * g::G) * sizeof(int);
    }
};

template <int KIND, int S, int TRK>
__device__ __forceinline__ void
fv_d_strip_pd_pass1(const fv_cu_sep_args &p, const float *A, float *B, const int *rowq, const float (&w)[S], int tid,
                    float cv2, bool &odd)
{
    fv_d_strip_trk<TRK> trk;
    typedef fv_cu_strip_geo<S> g;
    const int NSEG = g::TQ / 4, NL = g::NL, MP = g::MP, TQ = g::TQ, G = g::G;
    float wr[S];
    fv_d_strip_wregs<KIND, S>(w, wr);
    for (int t = tid; t < G * NSEG; t += FV_CU_STRIP_THREADS) {
        const int i = t / NSEG, seg = t - i * NSEG, c = seg * 4;
        float xs[4 * NL + 4], o[4];
        fv_d_strip_ld4<NL>(A + i * MP + c, xs);
        fv_d_win_slide_k<float, KIND, 4, S>(xs, 1, wr, S, o);
#pragma unroll
        for (int k = 0; k < 4; k++)
            trk.add(o[k]);
        if (rowq[i] == FV_CU_STRIP_CROW) /* a constant row of the intermediate */
            o[0] = o[1] = o[2] = o[3] = cv2;
        *(float4 *)(B + i * TQ + c) = make_float4(o[0], o[1], o[2], o[3]);
    }
    trk.flush(odd);
}

/* the pd strip's G input values of one column into A (column tid, pitch MP) */
template <int S, int TRK>
__device__ __forceinline__ void
fv_d_strip_pd_stage(float *a, const float (&ld)[fv_cu_strip_geo<S>::G], bool live, float fill, bool &odd)
{
    fv_d_strip_trk<TRK> trk;
#pragma unroll
    for (int i = 0; i < fv_cu_strip_geo<S>::G; i++) {
        trk.add(ld[i]);
        a[i * fv_cu_strip_geo<S>::MP] = live ? ld[i] : fill;
    }
    trk.flush(odd);
}

/* pass 2 of the pd strip for G rows of one column: intermediate row q0 + i in
 * ring slot (q0 + i) % S (q0 a multiple of G, so the slot is i % S); output row
 * q - (S - 1) stored where it lies in [0, er) */
template <int KIND, int S>
__device__ __forceinline__ void
fv_d_strip_pd_pass2(float (&win)[S], const float *B, const float (&w)[S], char *dst, int sr, int tid, int q0, int er,
                    bool col)
{
    typedef fv_cu_strip_geo<S> g;
    const int G = g::G, TQ = g::TQ;
    float wr[S];
    fv_d_strip_wregs<KIND, S>(w, wr);
#pragma unroll
    for (int i = 0; i < G; i++) {
        win[i % S] = B[i * TQ + tid];
        float x[S + 1], v[1];
#pragma unroll
        for (int m = 0; m < S; m++)
            x[m] = win[(i + 1 + m) % S];
        fv_d_win_slide_k<float, KIND, 1, S>(x, 1, wr, S, v);
        const int j = q0 + i - (S - 1);
        if (col && j >= 0 && j < er)
            *(float *)(dst + j * sr) = v[0];
    }
}

template <int S>
__global__ void
__launch_bounds__(FV_CU_STRIP_THREADS, FV_CU_STRIP_BLOCKS) fv_k_sep_strip_pd(const __grid_constant__ fv_cu_sep_args p)
{
    typedef fv_cu_strip_geo<S> g;
    const int G = g::G, TQ = g::TQ, C = g::C, MP = g::MP;
    extern __shared__ double fv_d_sep_smem[];
    float *A = (float *)fv_d_sep_smem; /* [G][MP] input rows */
    float *B = A + G * MP;             /* [G][TQ] pass 1's results */
    float *sw = B + G * TQ;            /* [2][S] the weights */
    int *rowoff = (int *)(sw + 2 * S); /* [th + 2G] byte offsets of the intermediate's rows in the input */
    const int tid = threadIdx.x, th = p.th;
    const int k1 = p.p1.kind, k2 = p.p2.kind;
    const int trk = p.p1.track > p.p2.track ? p.p1.track : p.p2.track; /* inputs and intermediates alike */
    const float cv1 = (float)p.p1.cval, cv2 = (float)p.p2.cval;
    fv_d_strip_weights_to_shared<S>(p, sw);
    const float(&w1)[S] = *(const float(*)[S])sw;
    const float(&w2)[S] = *(const float(*)[S])(sw + S);
    bool odd = false;

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int ir, ic, bi, bo;
        fv_d_sep_tile_at(p, tile, ir, ic, bi, bo);
        const int r0t = ir * th, c0t = ic * TQ;
        const int er = p.nr - r0t < th ? p.nr - r0t : th;
        const int ec = p.nc - c0t < TQ ? p.nc - c0t : TQ;
        const int ng = (er + S - 1 + G - 1) / G; /* groups of intermediate rows */

        __syncthreads(); /* the previous strip's readers of the buffers and the row table are done */
        fv_d_strip_row_table(rowoff, ng * G, r0t - p.p2.left, p.nr, p.p2.mode, p.sr_in);
        /* this thread's input column: >= 0 loaded, -1 pass 1's constant, -2 none */
        const int cq = tid < C ? fv_d_flt_extend<int>(c0t - p.p1.left + tid, p.nc, p.p1.mode) : -2;
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
                ld[i] = fv_d_strip_load(colp, rowoff[i], 0.0f); /* constant rows: any value (pass 1 gives cv2) */
        }
        for (int gi = 0; gi < ng; gi++) {
            /* the group's input rows to A (tracked values tested here, not at the load) */
            if (tid < MP)
                FV_CU_STRIP_TRK_SWITCH(trk, (fv_d_strip_pd_stage<S, TK>(A + tid, ld, live, fill, odd)))
            if (gi + 1 < ng) { /* the next group's loads, in flight during the passes */
                const int q0 = (gi + 1) * G;
                if (inner) {
                    const char *rp = rowp + q0 * sr;
#pragma unroll
                    for (int i = 0; i < G; i++)
                        ld[i] = __ldg((const float *)(rp + i * sr));
                } else {
#pragma unroll
                    for (int i = 0; i < G; i++)
                        ld[i] = fv_d_strip_load(colp, rowoff[q0 + i], 0.0f);
                }
            }
            __syncthreads();
            FV_CU_STRIP_TRK_SWITCH(
                trk,
                FV_CU_STRIP_KIND_SWITCH(k1,
                                        (fv_d_strip_pd_pass1<KD, S, TK>(p, A, B, rowoff + gi * G, w1, tid, cv2, odd))))
            __syncthreads();
            if (tid < TQ)
                FV_CU_STRIP_KIND_SWITCH(k2,
                                        (fv_d_strip_pd_pass2<KD, S>(win, B, w2, dst, p.sr_out, tid, gi * G, er, col)))
        }
    }
    if (odd)
        *p.flag = 1; /* benign: every writer stores 1 */
}

/* ==== 1-D strips: one float32 pass of S taps along an axis other than the
 * contiguous one (gaussian_filter1d, uniform_filter1d, correlate1d, min/max
 * filters along axis 0, ...). Thread = column, the window slides through
 * registers, and every output goes straight to global memory (one coalesced
 * store a row, no shared memory but the row table and the weights). Each row's
 * value is consumed and the load of the row G further is issued in its place:
 * G loads stay in flight. The kind and weights of device weights are resolved
 * in the block (fv_d_win_kind_dev), as filter1d's kernels do. */
#define FV_CU_STRIP1_ROWS 256 /* output rows per strip (about) */

template <int KIND, int S, int G, int TRK>
__device__ __forceinline__ void
fv_d_strip1_group(float (&win)[S], float (&ld)[G], const float (&w)[S], const char *colp, const char *rowp, int sr,
                  const int *rowoff, bool inner, int q0, int nq, char *dst, int sro, int j0, int er, bool col, float cv,
                  bool &odd)
{
    fv_d_strip_trk<TRK> trk;
    float wr[S];
    fv_d_strip_wregs<KIND, S>(w, wr);
#pragma unroll
    for (int i = 0; i < G; i++) {
        win[(S - 1 + i) % S] = ld[i];
        trk.add(ld[i]);
        const int qn = q0 + G + i; /* the row this register takes next */
        if (qn < nq)
            ld[i] = inner ? __ldg((const float *)(rowp + qn * sr)) : fv_d_strip_load(colp, rowoff[qn], cv);
        float x[S + 1], v[1];
#pragma unroll
        for (int m = 0; m < S; m++)
            x[m] = win[(i + m) % S];
        fv_d_win_slide_k<float, KIND, 1, S>(x, 1, wr, S, v);
        const int j = j0 + i;
        if (col && j < er)
            *(float *)(dst + j * sro) = v[0];
    }
    trk.flush(odd);
}

template <int S>
__global__ void
__launch_bounds__(FV_CU_STRIP_THREADS, FV_CU_STRIP_BLOCKS) fv_k_sep_strip1(const __grid_constant__ fv_cu_sep_args p)
{
    const int G = fv_cu_strip_geo<S>::G;
    extern __shared__ double fv_d_sep_smem[];
    float *sw = (float *)fv_d_sep_smem; /* [S] the weights */
    int *skind = (int *)(sw + S);       /* the resolved kind */
    int *rowoff = skind + 1;            /* [th + S - 1 + G] byte offsets of the input rows */
    const int tid = threadIdx.x, th = p.th, tr = p.p1.track;
    const float cv = (float)p.p1.cval;
    if (tid < 32) {
        const int kind = fv_d_strip1_kind_weights<S>(p, sw);
        if (tid == 0)
            *skind = kind;
    }
    __syncthreads();
    const int kind = *skind;
    const float(&w)[S] = *(const float(*)[S])sw;
    bool odd = false;

    for (int64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        int ir, ic, bi, bo;
        fv_d_sep_tile_at(p, tile, ir, ic, bi, bo);
        const int r0t = ir * th, c0t = ic * FV_CU_STRIP_THREADS;
        const int er = p.nr - r0t < th ? p.nr - r0t : th;
        const int ng = (er + G - 1) / G;
        const int nq = ng * G + S - 1; /* input rows the strip reads */
        const bool col = c0t + tid < p.nc;
        const bool inner = r0t - p.p1.left >= 0 && r0t - p.p1.left + nq <= p.nr;
        __syncthreads(); /* the previous strip's readers of the row table are done */
        if (!inner)
            fv_d_strip_row_table(rowoff, nq, r0t - p.p1.left, p.nr, p.p1.mode, p.sr_in);
        __syncthreads();
        const char *colp = p.in + bi + (col ? c0t + tid : 0) * (int)sizeof(float);
        const int sr = p.sr_in;
        const char *rowp = colp + (inner ? (r0t - p.p1.left) * sr : 0);
        char *dst = p.out + bo + r0t * p.sr_out + (c0t + tid) * (int)sizeof(float);

        float win[S], ld[G];
#pragma unroll
        for (int i = 0; i < S - 1; i++) {
            win[i] = inner ? __ldg((const float *)(rowp + i * sr)) : fv_d_strip_load(colp, rowoff[i], cv);
            if (tr && col && fv_d_win_odd(win[i], tr == 2))
                odd = true;
        }
#pragma unroll
        for (int i = 0; i < G; i++)
            ld[i] =
                inner ? __ldg((const float *)(rowp + (S - 1 + i) * sr)) : fv_d_strip_load(colp, rowoff[S - 1 + i], cv);
        for (int gi = 0; gi < ng; gi++) {
            const int q0 = S - 1 + gi * G;
            FV_CU_STRIP_TRK_SWITCH(
                tr,
                FV_CU_STRIP_KIND_SWITCH(kind,
                                        (fv_d_strip1_group<KD, S, G, TK>(win, ld, w, colp, rowp, sr, rowoff, inner, q0,
                                                                         nq, dst, p.sr_out, gi * G, er, col, cv, odd))))
        }
    }
    if (odd)
        *p.flag = 1; /* benign: every writer stores 1 */
}

/* Output rows per strip: about `target`, a multiple of G, no more than the
 * image needs, and fewer (down to 2G) where the grid would not fill the device
 * (3840x2160 takes ~135 strips of 256 rows on 132 multiprocessors) */
static int
fv_cu_strip_rows(int nr, int G, int target, int64_t ncb, int sms)
{
    int th = G * ((target + G - 1) / G);
    const int need = G * ((nr + G - 1) / G);
    if (need < th)
        th = need;
    while (th > 2 * G && (int64_t)((nr + th - 1) / th) * ncb < (int64_t)sms * FV_CU_STRIP_BLOCKS * 4)
        th -= G;
    return th;
}

/* the strip kernels where they apply (float32, the columns contiguous in both
 * arrays); FV__SEP2_DECLINED otherwise (or where the planner skips "strip"). */
template <int S>
fv_status
fv_cu_sep_strip_go(fv_cu_sep_job *j)
{
    typedef fv_cu_strip_geo<S> g;
    fv_cu_sep_args t = j->t;
    if (t.sc_in != (int)sizeof(float) || t.sc_out != (int)sizeof(float) || j->kernel > FV_CU_SEP_V_STRIP)
        return FV__SEP2_DECLINED;
    const int th =
        fv_cu_strip_rows(t.nr, g::G, FV_CU_STRIP_ROWS, (int64_t)((t.nc + g::TQ - 1) / g::TQ) * j->nbatch, j->sms);
    const size_t smem = t.pd ? fv_cu_strip_geo_pd<S>::smem(th) : g::smem(th);
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
        if ((st = fv_cu_flt_smem_attr(fv_k_sep_strip_pd<S>, smem)) != FV_OK)
            return st;
        fv_k_sep_strip_pd<S><<<grid, FV_CU_STRIP_THREADS, smem, j->stream>>>(t);
        return fv_cu_launch_status("separable filter kernel launch");
    }
    if ((st = fv_cu_flt_smem_attr(fv_k_sep_strip<S>, smem)) != FV_OK)
        return st;
    fv_k_sep_strip<S><<<grid, FV_CU_STRIP_THREADS, smem, j->stream>>>(t);
    return fv_cu_launch_status("separable filter kernel launch");
}


template <int S>
fv_status
fv_cu_sep_strip1_go(const fv_cu_sep_args *a, int sms, int64_t nbatch, size_t smem_max, cudaStream_t stream)
{
    const int G = fv_cu_strip_geo<S>::G;
    fv_cu_sep_args t = *a;
    const int th = fv_cu_strip_rows(t.nr, G, FV_CU_STRIP1_ROWS,
                                    (int64_t)((t.nc + FV_CU_STRIP_THREADS - 1) / FV_CU_STRIP_THREADS) * nbatch, sms);
    const size_t smem = (size_t)(S + 1) * sizeof(float) + (size_t)(th + S - 1 + G) * sizeof(int);
    if (smem > smem_max)
        return FV__SEP2_DECLINED;
    t.th = th;
    t.ntr = (t.nr + th - 1) / th;
    t.ntc = (t.nc + FV_CU_STRIP_THREADS - 1) / FV_CU_STRIP_THREADS;
    t.ntiles = (int64_t)t.ntr * t.ntc * nbatch;
    const int64_t cap = (int64_t)sms * 8;
    const unsigned grid = (unsigned)(t.ntiles < cap ? t.ntiles : cap);
    fv_status st;
    if ((st = fv_cu_flt_smem_attr(fv_k_sep_strip1<S>, smem)) != FV_OK)
        return st;
    fv_k_sep_strip1<S><<<grid, FV_CU_STRIP_THREADS, smem, stream>>>(t);
    return fv_cu_launch_status("filter1d strip kernel launch");
}


/* the window sizes fv_cu_sep_spec (filter-sep2-tile.cu) and fv__cuda_strip1d (filter-sep2.cu) run */
template fv_status fv_cu_sep_strip_go<3>(fv_cu_sep_job *j);
template fv_status fv_cu_sep_strip_go<5>(fv_cu_sep_job *j);
template fv_status fv_cu_sep_strip_go<9>(fv_cu_sep_job *j);
template fv_status fv_cu_sep_strip_go<17>(fv_cu_sep_job *j);
template fv_status fv_cu_sep_strip1_go<3>(const fv_cu_sep_args *a, int sms, int64_t nbatch, size_t smem_max,
                                          cudaStream_t stream);
template fv_status fv_cu_sep_strip1_go<5>(const fv_cu_sep_args *a, int sms, int64_t nbatch, size_t smem_max,
                                          cudaStream_t stream);
template fv_status fv_cu_sep_strip1_go<9>(const fv_cu_sep_args *a, int sms, int64_t nbatch, size_t smem_max,
                                          cudaStream_t stream);
template fv_status fv_cu_sep_strip1_go<17>(const fv_cu_sep_args *a, int sms, int64_t nbatch, size_t smem_max,
                                           cudaStream_t stream);
