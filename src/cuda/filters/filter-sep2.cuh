/* Internals of FV__OP_SEP2's kernels (filter-sep2.cu describes them), shared by
 * filter-sep2.cu (the planner and launch: fv__cuda_sep2, fv__cuda_strip1d),
 * filter-sep2-tile.cu (the tile kernel), filter-sep2-strip.cu (the strip
 * kernels) and filter-sep2-row.cu (the 1-D row kernels): tile geometry, the
 * kernel arguments, device helpers of the tile and strip kernels, the launch job
 * and the launchers each file defines. */
#ifndef FV_CUDA_FILTER_SEP2_CUH
#define FV_CUDA_FILTER_SEP2_CUH

#include <limits.h>
#include <type_traits>

#include "filters-common.cuh"
#include "core/plan.h"

extern "C" fv_status fv__cuda_filter1d_guarded(fv_context *ctx, const fv__op_args *a, const int *guard);

#define FV_CU_SEP_THREADS 256
#define FV_CU_SEP_TP 64 /* outputs per tile along p */
#define FV_CU_SEP_TQ 64 /* outputs per tile along q */
#define FV_CU_WIN_MAXTAPS 64
#define FV_CU_SEP_MM_DIRECT 24 /* = filter1d's FV_CU_FLT_MM_DIRECT */
#define FV_CU_STRIP_ROWS 192   /* strip kernel: about this many output rows per strip */
#define FV_CU_SEP_LU 2         /* 16-byte loads in flight per thread (interior tiles) */

struct fv_cu_sep_pass {
    int kind, mode, size, left;
    int track; /* float data: 1 flag NaN (min/max), 2 flag NaN/inf (uniform), 0 none */
    double cval;
    double w[FV_CU_WIN_MAXTAPS];
    float wf[FV_CU_WIN_MAXTAPS]; /* w rounded to float: the strip kernel's operands, read in place */
};

struct fv_cu_sep_args {
    const char *in;
    char *out;
    int *flag;                                /* set to 1 when a tracked value is seen */
    int nr, nc, sr_in, sc_in, sr_out, sc_out; /* the tile's rows (sparser axis) and columns: extents, byte strides */
    int pd;                                   /* pass 1 runs along the rows (the columns' axis is pass 1's) */
    int nb;
    int bshape[FV_MAX_NDIM], bs_in[FV_MAX_NDIM], bs_out[FV_MAX_NDIM];
    int ntr, ntc;
    int th;           /* strip kernels: output rows per strip */
    const double *dw; /* 1-D strips: device weights (kind FV_CU_WIN_AUTO), dwst apart */
    int64_t dwst;
    int64_t ntiles;
    int odt;
    int fast;          /* columns contiguous, |row stride| a multiple of 16: 16-byte loads */
    int vstore, obool; /* out likewise (16-byte stores of whole tiles); out is bool */
    float chk;         /* 8-bit row kernel: the checked float path's bound (fv_d_win_check),
                                                * 0 (float sums exact), or -vmax (device weights) */
    fv_cu_sep_pass p1, p2;
};

/* One output element as fv_d_flt_store writes it, for the output dtype TM (bool: a
 * uint8 intermediate stored as 0 / 1). */
template <typename TM, typename ACC>
__device__ __forceinline__ TM
fv_d_sep_out(ACC v, bool obool)
{
    if (fv_cu_flt_is_float<TM>::value)
        return (TM)v;
    TM x = fv_d_flt_to_in<TM>((double)v);
    return obool ? (TM)(x != 0) : x;
}

/* pass 1's result as the temporary of the unfused chain holds it, read back in
 * pass 2's accumulator type */
template <typename TM, typename ACC2, typename ACC1>
__device__ __forceinline__ ACC2
fv_d_sep_mid(ACC1 a)
{
    if (fv_cu_flt_is_float<TM>::value)
        return (ACC2)(TM)a; /* one rounding, as through double */
    return (ACC2)fv_d_flt_to_in<TM>((double)a);
}

/* R results of pass 1 into the intermediate (m[k * st]), each the value the
 * unfused chain's temporary holds; tracked values among the first n (the
 * tile's) set odd, tested apart from the stores (one branch per task). */
template <typename TM, typename ACC2, typename ACC1, int R>
__device__ __forceinline__ void
fv_d_sep_put_mid(const ACC1 (&acc)[R], ACC2 *m, int st, int tr, int n, bool &odd)
{
    ACC2 y[R];
#pragma unroll
    for (int k = 0; k < R; k++)
        y[k] = fv_d_sep_mid<TM, ACC2>(acc[k]);
    if (tr) {
#pragma unroll
        for (int k = 0; k < R; k++)
            if (k < n && fv_d_win_odd(y[k], tr == 2))
                odd = true;
    }
#pragma unroll
    for (int k = 0; k < R; k++)
        m[k * st] = y[k];
}

/* tile -> its row and column of tiles and the byte offsets of its batch line
 * in the input and the output */
__device__ __forceinline__ void
fv_d_sep_tile_at(const fv_cu_sep_args &p, int64_t tile, int &ir, int &ic, int &bi, int &bo)
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
 *   w1[FV_CU_WIN_MAXTAPS] (ACC1), w2[FV_CU_WIN_MAXTAPS] (ACC2),
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
template <typename T1, typename ACC1, typename ACC2> struct fv_cu_sep_layout {
    size_t in_off, mid_off, out_off, raw_off, bytes; /* byte offsets */
    int cp, rp, pm;
    __host__ __device__ fv_cu_sep_layout(int hr, int hc, bool pd)
    {
        const size_t C = FV_CU_SEP_TQ + hc;
        const bool direct = std::is_same<T1, ACC1>::value && !pd; /* float -> float, double -> double */
        const int per16 = 16 / (int)sizeof(T1);
        cp = direct ? (int)((C + 2 * per16 + per16 - 1) / per16 * per16) : (int)(pd ? C | 1 : C);
        rp = direct ? 0 : (int)((C * sizeof(T1) + 30 + 15) / 16 * 16);
        pm = (int)(pd ? FV_CU_SEP_TQ | 1 : C | 1);
        size_t o = 2 * FV_CU_WIN_MAXTAPS * sizeof(double);
        in_off = o;
        size_t in_b = (size_t)(FV_CU_SEP_TP + hr) * cp * sizeof(ACC1);
        o += (in_b + 15) & ~(size_t)15;
        mid_off = o;
        size_t mid_b = ((size_t)(pd ? FV_CU_SEP_TP + hr : FV_CU_SEP_TP) * pm * sizeof(ACC2) + 15) & ~(size_t)15;
        o += mid_b;
        size_t out_b = (size_t)FV_CU_SEP_TP * (FV_CU_SEP_TQ + 1) * sizeof(ACC2);
        if (out_b <= in_b) {
            out_off = in_off;
        } else {
            out_off = o;
            o += (out_b + 15) & ~(size_t)15;
        }
        size_t raw_b = (size_t)(FV_CU_SEP_TP + hr) * rp;
        if (raw_b <= mid_b) {
            raw_off = mid_off;
        } else {
            raw_off = o;
            o += raw_b;
        }
        bytes = o;
    }
};

#define FV_CU_STRIP_THREADS 256
#define FV_CU_STRIP_BLOCKS 3 /* blocks per multiprocessor (registers: <= 80 a thread; 2 ran no faster) */
template <int S> struct fv_cu_strip_geo {
    static const int G = S * ((16 + S - 1) / S);                /* rows per group */
    static const int TQ = (FV_CU_STRIP_THREADS - (S - 1)) & ~7; /* output columns per strip */
    static const int C = TQ + S - 1;                            /* intermediate columns */
    static const int NL = (S + 6) / 4;                          /* 16-byte loads per pass-2 task */
    static const int MP = (TQ - 4 + 4 * NL + 3) & ~3;           /* buffer pitch (floats, <= FV_CU_STRIP_THREADS) */
    static size_t smem(int th)
    {
        return (size_t)2 * G * MP * sizeof(float) + (size_t)2 * S * sizeof(float) + (size_t)(th + S - 1) * sizeof(int);
    }
};

#define FV_CU_STRIP_CROW INT_MIN /* row table: a constant row (pass 1's cval) */

/* one input value of the strip: row table entry off, branch-free (a constant
 * row loads row 0 of the column and takes cv instead) */
__device__ __forceinline__ float
fv_d_strip_load(const char *colp, int off, float cv)
{
    const bool c = off == FV_CU_STRIP_CROW;
    const float x = __ldg((const float *)(colp + (c ? 0 : off)));
    return c ? cv : x;
}

/* the weights of a correlation kind in registers, once per group (unused
 * otherwise: zeros the compiler drops) */
template <int KIND, int S>
__device__ __forceinline__ void
fv_d_strip_wregs(const float (&w)[S], float (&wr)[S])
{
#pragma unroll
    for (int m = 0; m < S; m++)
        wr[m] = KIND <= FV_CU_WIN_ANTI ? w[m] : 0.0f;
}

/* a buffered row's 4 * NL values from 16-byte shared loads (xs holds 4 more:
 * fv_d_win_slide may read, never use, one past the window) */
template <int NL>
__device__ __forceinline__ void
fv_d_strip_ld4(const float *row, float (&xs)[4 * NL + 4])
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
 * the mode; FV_CU_STRIP_CROW for a constant row), for q < n */
__device__ __forceinline__ void
fv_d_strip_row_table(int *rowoff, int n, int r0, int nr, int mode, int sr)
{
    for (int q = threadIdx.x; q < n; q += blockDim.x) {
        const int r = fv_d_flt_extend<int>(r0 + q, nr, mode);
        rowoff[q] = r < 0 ? FV_CU_STRIP_CROW : r * sr;
    }
}

/* both passes' weights into shared memory sw[2][S] (read into registers once
 * per group: constants from the parameters are re-read for every use) */
template <int S>
__device__ __forceinline__ void
fv_d_strip_weights_to_shared(const fv_cu_sep_args &p, float *sw)
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
template <int TRK> struct fv_d_strip_trk {
    float t;
    bool n;
    __device__ __forceinline__ fv_d_strip_trk() : t(0.0f), n(false)
    {
    }
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

#define FV_CU_STRIP_TRK_SWITCH(T, CALL) \
    switch (T) {                        \
    case 0: {                           \
        const int TK = 0;               \
        CALL;                           \
        break;                          \
    }                                   \
    case 1: {                           \
        const int TK = 1;               \
        CALL;                           \
        break;                          \
    }                                   \
    default: {                          \
        const int TK = 2;               \
        CALL;                           \
        break;                          \
    }                                   \
    }

/* pass 1 for G rows of one column: the ring's slots are compile-time (G is a
 * multiple of S); results to the buffer's rows (fill where the column is not
 * loaded); inputs and results tracked (TRK, fv_d_strip_trk) */
template <int KIND, int S, int G, int TRK>
__device__ __forceinline__ void
fv_d_strip_pass1(float (&win)[S], const float (&ld)[G], const float (&w)[S], float *bb, int mp, int tid, bool live,
                 float fill, bool &odd)
{
    fv_d_strip_trk<TRK> trk;
    float wr[S]; /* the weights in registers for the G rows (not re-read per row) */
    fv_d_strip_wregs<KIND, S>(w, wr);
#pragma unroll
    for (int i = 0; i < G; i++) {
        win[(S - 1 + i) % S] = ld[i];
        trk.add(ld[i]);       /* tested here, not at the load: the load stays in flight */
        float x[S + 1], v[1]; /* fv_d_win_slide may read (never use) one past the window */
#pragma unroll
        for (int m = 0; m < S; m++)
            x[m] = win[(i + m) % S];
        fv_d_win_slide_k<float, KIND, 1, S>(x, 1, wr, S, v);
        trk.add(v[0]);
        if (tid < mp)
            bb[i * mp + tid] = v[0];
    }
    trk.flush(odd);
    if (!live && tid < mp) { /* columns not loaded: the intermediate's constant (or padding) */
#pragma unroll
        for (int i = 0; i < G; i++)
            bb[i * mp + tid] = fill;
    }
}

/* pass 2 along G buffered rows: task = (row, 4 columns) from 16-byte shared
 * loads, stored as one 16-byte vector where whole and allowed */
template <int KIND, int S>
__device__ __forceinline__ void
fv_d_strip_pass2(const fv_cu_sep_args &p, const float *bb, const float (&w)[S], int rows, int ec, char *dst0, int tid)
{
    typedef fv_cu_strip_geo<S> g;
    const int NSEG = g::TQ / 4, NL = g::NL, MP = g::MP;
    float wr[S];
    fv_d_strip_wregs<KIND, S>(w, wr);
    for (int t = tid; t < rows * NSEG; t += FV_CU_STRIP_THREADS) {
        const int i = t / NSEG, seg = t - i * NSEG, c = seg * 4;
        if (c >= ec)
            continue;
        float xs[4 * NL + 4], o[4];
        fv_d_strip_ld4<NL>(bb + i * MP + c, xs);
        fv_d_win_slide_k<float, KIND, 4, S>(xs, 1, wr, S, o);
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

#define FV_CU_STRIP_KIND_SWITCH(K, CALL) \
    switch (K) {                         \
    case FV_CU_WIN_SYM: {                \
        const int KD = FV_CU_WIN_SYM;    \
        CALL;                            \
        break;                           \
    }                                    \
    case FV_CU_WIN_ANTI: {               \
        const int KD = FV_CU_WIN_ANTI;   \
        CALL;                            \
        break;                           \
    }                                    \
    case FV_CU_WIN_CORR: {               \
        const int KD = FV_CU_WIN_CORR;   \
        CALL;                            \
        break;                           \
    }                                    \
    case FV_CU_WIN_USUM: {               \
        const int KD = FV_CU_WIN_USUM;   \
        CALL;                            \
        break;                           \
    }                                    \
    case FV_CU_WIN_MIN: {                \
        const int KD = FV_CU_WIN_MIN;    \
        CALL;                            \
        break;                           \
    }                                    \
    default: {                           \
        const int KD = FV_CU_WIN_MAX;    \
        CALL;                            \
        break;                           \
    }                                    \
    }


/* the first warp of a 1-D kernel: the pass's weights as floats into sw[S], and
 * its kind (device weights resolved by fv_d_win_kind_dev: all 32 lanes take part) */
template <int S>
__device__ __forceinline__ int
fv_d_strip1_kind_weights(const fv_cu_sep_args &p, float *sw)
{
    int kind = p.p1.kind;
    if (kind == FV_CU_WIN_AUTO)
        kind = fv_d_win_kind_dev(p.dw, p.dwst, S);
    if (threadIdx.x < S)
        sw[threadIdx.x] = p.dw ? (float)__ldg(p.dw + threadIdx.x * p.dwst) : p.p1.wf[threadIdx.x];
    return kind;
}


/* the planner's pick of fused kernel (fv_cu_sep_variants, filter-sep2.cu) */
enum {
    FV_CU_SEP_V_STRIP,
    FV_CU_SEP_V_SIZED,
    FV_CU_SEP_V_GENERAL
};

typedef struct fv_cu_sep_job {
    fv_cu_sep_args t;
    size_t smem, smem_max;
    int fexact; /* both passes exact in float (fv_cu_flt_float_exact), 8/16-bit data kept as is */
    unsigned grid;
    int sms;        /* the device's multiprocessors */
    int64_t nbatch; /* lines of the batch axes */
    cudaStream_t stream;
    int kernel; /* the planner's pick (fv_cu_sep_variants): FV_CU_SEP_V_STRIP, FV_CU_SEP_V_SIZED, FV_CU_SEP_V_GENERAL */
} fv_cu_sep_job;

/* filter-sep2-tile.cu: the fused kernels for input T1 and intermediate dtype mid */
template <typename T1> fv_status fv_cu_sep_launch_mid(fv_cu_sep_job *j, fv_dtype mid);
/* filter-sep2-strip.cu: the strip kernels of both passes; the 1-D strip kernel */
template <int S> fv_status fv_cu_sep_strip_go(fv_cu_sep_job *j);
template <int S>
fv_status fv_cu_sep_strip1_go(const fv_cu_sep_args *a, int sms, int64_t nbatch, size_t smem_max, cudaStream_t stream);
/* filter-sep2-row.cu: the 1-D row kernels; whether the lines are whole chunks of b bytes */
template <int S>
fv_status fv_cu_sep_row1_go(const fv_cu_sep_args *a, int sms, int64_t nbatch, cudaStream_t stream, int vb);
int fv_cu_sep_chunks_fit(const fv_array *in, const fv_array *out, int b);

#endif
