/* CUDA tiled 2-D correlation (FV__OP_FILTERND, FV__FND_CORRELATE): a faster
 * route to exactly the bits of the generic kernel (fv_k_flt_nd_correlate in
 * filternd.cu) for 2-d data whose selected window elements span at most
 * 11 x 11 (dense weights or any footprint / zero-weight pattern inside that
 * box; even sizes and origins included), every input and output dtype, every
 * mode, 32-bit index math. FOVEA_CORR_UNTILED=1 (any value but "0") turns it
 * off: the generic kernel runs.
 *
 * One block of 32 x 4 threads per 32 x 32 output tile. The tile and its halo
 * (the box of window displacements, origin included) go to shared memory
 * already converted to the accumulator type, the mode applied at load time
 * (fv_d_flt_extend per axis; outside a constant edge: (ACC)cval, as the generic
 * kernel reads it). Each thread then takes 8 output rows of one column: it
 * walks the 8 + K - 1 input rows of its strip top to bottom, holding one row's
 * K values in registers, and adds each row into every output that uses it, so
 * a shared value is read once per 8 / K outputs. The window is a K x K box
 * (K = 3, 5, 7, 9, 11: the smallest that holds the span) whose weights travel
 * in the kernel parameters (constant bank, compile-time indices), 0 where an
 * element is not selected.
 *
 * Same bits as the generic kernel: per output the selected elements are added
 * in C order of the window (the rows top to bottom, each left to right), from
 * 0, as t = t + w * x with w = (ACC)weight, x = (ACC)value: in double with
 * separately rounded products and sums, or for float32 outputs of float32 and
 * 8/16-bit data in float with the product fused (__fmaf_rn): fv_d_flt_nd_madd,
 * shared with the generic kernel. An element that is not selected (|w| <= DBL_EPSILON, NaN, or
 * outside the footprint) is skipped, never added as 0 * x (inf and NaN data,
 * the sign of a zero sum). The result goes through fv_d_flt_store_nd. */
#include "filternd-common.cuh"

#define FV_CU_FLT_CT_BX 32                                  /* threads along x, one column each */
#define FV_CU_FLT_CT_BY 4                                   /* threads along y */
#define FV_CU_FLT_CT_PY 8                                   /* output rows per thread */
#define FV_CU_FLT_CT_TH (FV_CU_FLT_CT_BY * FV_CU_FLT_CT_PY) /* tile height */
#define FV_CU_FLT_CT_KMAX 11                                /* largest box side */

template <typename ACC> struct fv_cu_flt_ctargs {
    const char *in;
    char *out;
    int h, w;                         /* image rows, columns */
    int dy, dx;                       /* displacement of box element (0, 0) */
    int sy_in, sx_in, sy_out, sx_out; /* byte strides (0 along an axis of 1) */
    int mode, odt;
    unsigned rows;                                 /* bit ky: box row ky selects an element */
    ACC cval;                                      /* (ACC)cval */
    ACC wt[FV_CU_FLT_CT_KMAX * FV_CU_FLT_CT_KMAX]; /* K x K box weights (ACC), 0: not selected */
};

/* FULL: all K * K box elements selected (no per-element test) */
template <typename T, typename ACC, int K, bool FULL>
__global__ void
__launch_bounds__(FV_CU_FLT_CT_BX *FV_CU_FLT_CT_BY) fv_k_flt_corr_tile(const fv_cu_flt_ctargs<ACC> a)
{
    enum {
        SW = FV_CU_FLT_CT_BX + K - 1,
        SH = FV_CU_FLT_CT_TH + K - 1,
        PY = FV_CU_FLT_CT_PY
    };
    __shared__ ACC s[SH * SW];
    const int x0 = (int)blockIdx.x * FV_CU_FLT_CT_BX, y0 = (int)blockIdx.y * FV_CU_FLT_CT_TH;
    fv_d_flt_tile2d_load<T, FV_CU_FLT_CT_BX, FV_CU_FLT_CT_BY, SH, SW>(s, a, x0, y0, a.cval, [](T v) { return (ACC)v; });
    __syncthreads();
    const int x = x0 + (int)threadIdx.x, yb = y0 + (int)threadIdx.y * PY;
    if (x >= a.w || yb >= a.h)
        return;
    const ACC *sp = s + threadIdx.y * PY * SW + threadIdx.x;
    ACC acc[PY];
#pragma unroll
    for (int q = 0; q < PY; q++)
        acc[q] = (ACC)0;
#pragma unroll
    for (int r = 0; r < PY + K - 1; r++) { /* input rows of the strip, top to bottom */
        ACC v[K];
#pragma unroll
        for (int kx = 0; kx < K; kx++)
            v[kx] = sp[r * SW + kx];
#pragma unroll
        for (int q = 0; q < PY; q++) { /* the outputs using row r: box row r - q */
            const int ky = r - q;
            if (ky < 0 || ky >= K)
                continue;
            if (!FULL && !((a.rows >> ky) & 1u))
                continue;
#pragma unroll
            for (int kx = 0; kx < K; kx++) {
                const ACC wv = a.wt[ky * K + kx];
                if (FULL || wv != (ACC)0)
                    acc[q] = fv_d_flt_nd_madd(acc[q], wv, v[kx]);
            }
        }
    }
#pragma unroll
    for (int q = 0; q < PY; q++) {
        const int y = yb + q;
        if (y < a.h)
            fv_d_flt_store_nd(a.out + y * a.sy_out + x * a.sx_out, a.odt, acc[q]);
    }
}

/* ---- host -------------------------------------------------------------------------- */

/* The box side K, or 0 where the generic kernel runs (fv_cu_flt_tile2d_k). */
int
fv_cu_flt_corr_tile_k(const fv_cu_flt_ndjob *j)
{
    return fv_cu_flt_tile2d_k(j, FV_CU_FLT_CT_KMAX, FV_CU_FLT_CT_TH, FV_CU_FLT_CT_BX);
}

template <typename T, typename ACC, int K>
static void
fv_cu_flt_corr_tile_go(const fv_cu_flt_ctargs<ACC> &a, bool full, dim3 grid, cudaStream_t stream)
{
    dim3 block(FV_CU_FLT_CT_BX, FV_CU_FLT_CT_BY);
    if (full)
        fv_k_flt_corr_tile<T, ACC, K, true><<<grid, block, 0, stream>>>(a);
    else
        fv_k_flt_corr_tile<T, ACC, K, false><<<grid, block, 0, stream>>>(a);
}

template <typename T, typename ACC>
static fv_status
fv_cu_flt_corr_tile_launch(const fv_cu_flt_ndjob *j, int k)
{
    const fv_cu_flt_ndprep *p = j->prep;
    fv_cu_flt_ctargs<ACC> a;
    memset(&a, 0, sizeof a);
    FV_CU_FLT_TILE2D_FILL(a, j, p);
    a.cval = (ACC)j->cval;
    for (int64_t e = 0; e < p->count; e++) {
        int by = (int)(p->delta[2 * e] - p->dmin[0]), bx = (int)(p->delta[2 * e + 1] - p->dmin[1]);
        a.wt[by * k + bx] = (ACC)p->w[e]; /* |w| > DBL_EPSILON: nonzero in float too */
        a.rows |= 1u << by;
    }
    bool full = p->count == (int64_t)k * k;
    dim3 grid((unsigned)((a.w + FV_CU_FLT_CT_BX - 1) / FV_CU_FLT_CT_BX),
              (unsigned)((a.h + FV_CU_FLT_CT_TH - 1) / FV_CU_FLT_CT_TH));
    switch (k) {
    case 3:
        fv_cu_flt_corr_tile_go<T, ACC, 3>(a, full, grid, j->stream);
        break;
    case 5:
        fv_cu_flt_corr_tile_go<T, ACC, 5>(a, full, grid, j->stream);
        break;
    case 7:
        fv_cu_flt_corr_tile_go<T, ACC, 7>(a, full, grid, j->stream);
        break;
    case 9:
        fv_cu_flt_corr_tile_go<T, ACC, 9>(a, full, grid, j->stream);
        break;
    default:
        fv_cu_flt_corr_tile_go<T, ACC, 11>(a, full, grid, j->stream);
        break;
    }
    return fv_cu_launch_status("correlate kernel launch");
}

template <typename T, bool SMALL> struct fv_cu_flt_ct_run {
    static fv_status run(const fv_cu_flt_ndjob *j, int k, int accf)
    {
        return fv_cu_flt_corr_tile_launch<T, double>(j, k);
    }
};
template <typename T> struct fv_cu_flt_ct_run<T, true> {
    static fv_status run(const fv_cu_flt_ndjob *j, int k, int accf)
    {
        return accf ? fv_cu_flt_corr_tile_launch<T, float>(j, k) : fv_cu_flt_corr_tile_launch<T, double>(j, k);
    }
};

fv_status
fv_cu_flt_corr_tile_run(const fv_cu_flt_ndjob *j, int accf)
{
    int k = fv_cu_flt_corr_tile_k(j);
    if (!k)
        return FV_ENOKERNEL;
    FV_CU_FLT_SWITCH_IN(j->in->dtype, (fv_cu_flt_ct_run<T, fv_cu_flt_small<T>::value>::run(j, k, accf)))
    return FV_ENOKERNEL;
}
