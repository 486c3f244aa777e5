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


/* the planner's pick of fused kernel (fvs_variants, filter-sep2.cu) */
enum { FVS_V_STRIP, FVS_V_SIZED, FVS_V_GENERAL };

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

/* filter-sep2-tile.cu: the fused kernels for input T1 and intermediate dtype mid */
template <typename T1> fv_status fvs_launch_mid(fvs_job *j, fv_dtype mid);
/* filter-sep2-strip.cu: the strip kernels of both passes; the 1-D strip kernel */
template <int S> fv_status fvs_strip_go(fvs_job *j);
template <int S>
fv_status fvs_strip1_go(const fvs_args *a, int sms, int64_t nbatch, size_t smem_max, cudaStream_t stream);
/* filter-sep2-row.cu: the 1-D row kernels; whether the lines are whole chunks of b bytes */
template <int S> fv_status fvs_row1_go(const fvs_args *a, int sms, int64_t nbatch, cudaStream_t stream, int vb);
int fvs_chunks_fit(const fv_array *in, const fv_array *out, int b);

#endif
