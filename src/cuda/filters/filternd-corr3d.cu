/* CUDA tiled 3-D correlation (FV__OP_FILTERND, FV__FND_CORRELATE): a faster
 * route to exactly the bits of the generic kernel (fv_k_flt_nd_correlate in
 * filternd.cu) for 3-d data whose selected window elements span at most
 * 5 x 5 x 5 (dense weights or any footprint / zero-weight pattern inside that
 * box; even sizes and origins included), every mode, 32-bit index math, and
 * the common data / accumulator pairs: float32 data summed in float (float32
 * outputs) and every other pair below summed in double (any output dtype):
 * float32 (float), float64, uint8 (float and double), uint16 and int16
 * (double). Everything else runs the generic kernel, as does
 * FOVEA_CORR_UNTILED=1 (any value but "0").
 *
 * One block of 32 x 8 threads per 32 x 8 x 8 (x, y, z) output tile. The tile
 * and its halo (the box of window displacements, origin included) go to shared
 * memory already converted to the accumulator type, the mode applied at load
 * time (fv_d_flt_extend per axis; outside a constant edge: (ACC)cval, as the generic
 * kernel reads it). Each thread then takes the 8 z outputs of its (x, y)
 * column: it walks the 8 + K - 1 input planes of its column front to back, in
 * each plane the K rows of its window top to bottom, holding one row's K
 * values in registers, and adds each row into every output that uses it. The
 * window is a K x K x K box (K = 3 or 5: the smallest that holds the span)
 * whose weights travel in the kernel parameters (constant bank, compile-time
 * indices), 0 where an element is not selected.
 *
 * Same bits as the generic kernel: per output the selected elements are added
 * in C order of the window (planes front to back, rows top to bottom, each left
 * to right), from 0, with fv_d_flt_nd_madd (double: separately rounded product and
 * sum; float: fused), as the generic kernel. An element that is not selected
 * (|w| <= DBL_EPSILON, NaN, or outside the footprint) is skipped, never added
 * as 0 * x. The result goes through fv_d_flt_store_nd. */
#include "filternd-common.cuh"

#define FV_CU_FLT_C3_BX 32  /* threads along x, one column each */
#define FV_CU_FLT_C3_BY 8   /* threads along y */
#define FV_CU_FLT_C3_PZ 8   /* z outputs per thread */
#define FV_CU_FLT_C3_KMAX 5 /* largest box side */

template <typename ACC> struct fv_cu_flt_c3args {
    const char *in;
    char *out;
    int d, h, w;                                     /* planes, rows, columns */
    int dz, dy, dx;                                  /* displacement of box element (0, 0, 0) */
    int sz_in, sy_in, sx_in, sz_out, sy_out, sx_out; /* byte strides (0 along an axis of 1) */
    int mode, odt;
    unsigned rows; /* bit kz * K + ky: that box row selects an element */
    ACC cval;      /* (ACC)cval */
    ACC wt[FV_CU_FLT_C3_KMAX * FV_CU_FLT_C3_KMAX * FV_CU_FLT_C3_KMAX]; /* K^3 box weights (ACC), 0: not selected */
};

/* FULL: all K^3 box elements selected (no per-element test) */
template <typename T, typename ACC, int K, bool FULL>
__global__ void
__launch_bounds__(FV_CU_FLT_C3_BX *FV_CU_FLT_C3_BY) fv_k_flt_corr3d(const fv_cu_flt_c3args<ACC> a)
{
    enum {
        SW = FV_CU_FLT_C3_BX + K - 1,
        SH = FV_CU_FLT_C3_BY + K - 1,
        SD = FV_CU_FLT_C3_PZ + K - 1,
        PZ = FV_CU_FLT_C3_PZ
    };
    __shared__ ACC s[SD * SH * SW];
    const int x0 = (int)blockIdx.x * FV_CU_FLT_C3_BX, y0 = (int)blockIdx.y * FV_CU_FLT_C3_BY, z0 = (int)blockIdx.z * PZ;
    for (int sr = (int)threadIdx.y; sr < SD * SH; sr += FV_CU_FLT_C3_BY) { /* one halo row (sz, sy) */
        const int sz = sr / SH, sy = sr - sz * SH;
        const int iz = fv_d_flt_extend<int>(z0 + a.dz + sz, a.d, a.mode);
        const int iy = iz < 0 ? -1 : fv_d_flt_extend<int>(y0 + a.dy + sy, a.h, a.mode);
        const char *row = a.in + (iy < 0 ? 0 : iz * a.sz_in + iy * a.sy_in);
        for (int sx = (int)threadIdx.x; sx < SW; sx += FV_CU_FLT_C3_BX) {
            const int ix = iy < 0 ? -1 : fv_d_flt_extend<int>(x0 + a.dx + sx, a.w, a.mode);
            s[sr * SW + sx] = ix < 0 ? a.cval : (ACC)__ldg((const T *)(row + ix * a.sx_in));
        }
    }
    __syncthreads();
    const int x = x0 + (int)threadIdx.x, y = y0 + (int)threadIdx.y;
    if (x >= a.w || y >= a.h || z0 >= a.d)
        return;
    const ACC *sp = s + threadIdx.y * SW + threadIdx.x;
    ACC acc[PZ];
#pragma unroll
    for (int q = 0; q < PZ; q++)
        acc[q] = (ACC)0;
#pragma unroll
    for (int r = 0; r < SD; r++) { /* input planes, front to back */
#pragma unroll
        for (int ky = 0; ky < K; ky++) { /* window rows, top to bottom */
            ACC v[K];
#pragma unroll
            for (int kx = 0; kx < K; kx++)
                v[kx] = sp[(r * SH + ky) * SW + kx];
#pragma unroll
            for (int q = 0; q < PZ; q++) { /* the outputs using plane r: box plane r - q */
                const int kz = r - q;
                if (kz < 0 || kz >= K)
                    continue;
                if (!FULL && !((a.rows >> (kz * K + ky)) & 1u))
                    continue;
#pragma unroll
                for (int kx = 0; kx < K; kx++) {
                    const ACC wv = a.wt[(kz * K + ky) * K + kx];
                    if (FULL || wv != (ACC)0)
                        acc[q] = fv_d_flt_nd_madd(acc[q], wv, v[kx]);
                }
            }
        }
    }
    char *o = a.out + y * a.sy_out + x * a.sx_out;
#pragma unroll
    for (int q = 0; q < PZ; q++) {
        const int z = z0 + q;
        if (z < a.d)
            fv_d_flt_store_nd(o + z * a.sz_out, a.odt, acc[q]);
    }
}

/* ---- host -------------------------------------------------------------------------- */

/* The box side K, or 0 where the generic kernel runs: not 3-d, 64-bit index math, a span of the selected displacements
 * over 5 on an axis, more tiles than a grid holds. */
int
fv_cu_flt_corr3d_k(const fv_cu_flt_ndjob *j)
{
    const fv_cu_flt_ndprep *p = j->prep;
    if (p->ndim != 3 || j->in->ndim != 3 || !j->fits32)
        return 0;
    int64_t m = 0;
    for (int d = 0; d < 3; d++)
        if (p->dmax[d] - p->dmin[d] + 1 > m)
            m = p->dmax[d] - p->dmin[d] + 1;
    if (m < 1 || m > FV_CU_FLT_C3_KMAX)
        return 0;
    if ((p->shape[0] + FV_CU_FLT_C3_PZ - 1) / FV_CU_FLT_C3_PZ > 65535 ||
        (p->shape[1] + FV_CU_FLT_C3_BY - 1) / FV_CU_FLT_C3_BY > 65535 ||
        (p->shape[2] + FV_CU_FLT_C3_BX - 1) / FV_CU_FLT_C3_BX > INT32_MAX)
        return 0;
    return m <= 3 ? 3 : 5;
}

template <typename T, typename ACC, int K>
static void
fv_cu_flt_corr3d_go(const fv_cu_flt_c3args<ACC> &a, bool full, dim3 grid, cudaStream_t stream)
{
    dim3 block(FV_CU_FLT_C3_BX, FV_CU_FLT_C3_BY);
    if (full)
        fv_k_flt_corr3d<T, ACC, K, true><<<grid, block, 0, stream>>>(a);
    else
        fv_k_flt_corr3d<T, ACC, K, false><<<grid, block, 0, stream>>>(a);
}

template <typename T, typename ACC>
static fv_status
fv_cu_flt_corr3d_launch(const fv_cu_flt_ndjob *j, int k)
{
    const fv_cu_flt_ndprep *p = j->prep;
    fv_cu_flt_c3args<ACC> a;
    memset(&a, 0, sizeof a);
    FV_CU_FLT_TILE3D_FILL(a, j, p);
    a.cval = (ACC)j->cval;
    for (int64_t e = 0; e < p->count; e++) {
        int bz = (int)(p->delta[3 * e] - p->dmin[0]), by = (int)(p->delta[3 * e + 1] - p->dmin[1]);
        int bx = (int)(p->delta[3 * e + 2] - p->dmin[2]);
        a.wt[(bz * k + by) * k + bx] = (ACC)p->w[e]; /* |w| > DBL_EPSILON: nonzero in float too */
        a.rows |= 1u << (bz * k + by);
    }
    bool full = p->count == (int64_t)k * k * k;
    dim3 grid((unsigned)((a.w + FV_CU_FLT_C3_BX - 1) / FV_CU_FLT_C3_BX),
              (unsigned)((a.h + FV_CU_FLT_C3_BY - 1) / FV_CU_FLT_C3_BY),
              (unsigned)((a.d + FV_CU_FLT_C3_PZ - 1) / FV_CU_FLT_C3_PZ));
    if (k == 3)
        fv_cu_flt_corr3d_go<T, ACC, 3>(a, full, grid, j->stream);
    else
        fv_cu_flt_corr3d_go<T, ACC, 5>(a, full, grid, j->stream);
    return fv_cu_launch_status("correlate kernel launch");
}

fv_status
fv_cu_flt_corr3d_run(const fv_cu_flt_ndjob *j, int accf)
{
    int k = fv_cu_flt_corr3d_k(j);
    if (!k)
        return FV_ENOKERNEL;
    switch (j->in->dtype) {
    case FV_FLOAT32:
        return accf ? fv_cu_flt_corr3d_launch<float, float>(j, k) : FV_ENOKERNEL;
    case FV_FLOAT64:
        return fv_cu_flt_corr3d_launch<double, double>(j, k);
    case FV_UINT8:
        return accf ? fv_cu_flt_corr3d_launch<uint8_t, float>(j, k) : fv_cu_flt_corr3d_launch<uint8_t, double>(j, k);
    case FV_UINT16:
        return accf ? FV_ENOKERNEL : fv_cu_flt_corr3d_launch<uint16_t, double>(j, k);
    case FV_INT16:
        return accf ? FV_ENOKERNEL : fv_cu_flt_corr3d_launch<int16_t, double>(j, k);
    default:
        return FV_ENOKERNEL;
    }
}
