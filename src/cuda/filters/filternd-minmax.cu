/* CUDA tiled 2-D minimum / maximum (FV__OP_FILTERND, FV__FND_MINIMUM and
 * FV__FND_MAXIMUM, flat windows: no structure): a faster route to exactly the
 * bits of the generic kernel (fv_k_flt_nd_minmax in filternd.cu) for 2-d data
 * whose selected window elements span at most 11 x 11 (any footprint inside
 * that box: disks, even sizes and origins included), every input and output
 * dtype, every mode, 32-bit index math. FOVEA_MINMAX_UNTILED=1 (any value but
 * "0") turns it off: the generic kernel runs. A structure (grey morphology
 * with non-flat structuring elements) always takes the generic kernel.
 *
 * Layout as the tiled correlation (filternd-corr.cu): one block of 32 x 4
 * threads per 32 x 32 output tile; the tile and its halo (the box of window
 * displacements, origin included) go to shared memory with the mode applied
 * at load time (fv_d_flt_extend per axis; outside a constant edge: cval cast to the
 * input type, as the generic kernel reads it); each thread takes 8 output rows
 * of one column and walks the 8 + K - 1 input rows of its strip top to bottom,
 * holding one row's K values in registers. The selection of the K x K box
 * (K = 3, 5, 7, 9, 11) travels in the kernel parameters as one mask word per
 * element: 0 where selected, all ones where not.
 *
 * Same bits as the generic kernel, which keeps res = (double)first element and
 * replaces it by (double)x when strictly smaller (minimum) / greater (maximum):
 *  - values go to shared memory as keys in which the wanted extreme is the
 *    smallest: maximum flips the order (integers: ~, floats: the sign bit,
 *    an exact involution that keeps NaN NaN and swaps -0.0 / +0.0 order as
 *    the comparison wants); signed integers are offset by the sign bit so that
 *    all integer keys compare unsigned;
 *  - integers: res = umin(res, key | mask) from all ones. The generic kernel's
 *    double result is (double) of the integer extreme (rounding is monotone;
 *    64-bit values that round alike give the same double), so it is exact;
 *  - floats: res starts as the first selected element's key, then per element
 *    in C order of the window (box rows top to bottom, each left to right,
 *    which is the order the strip walk meets them for each output)
 *    res = x < res ? x : res with x = key | mask (an unselected element is
 *    NaN: never taken). A NaN first element stays; later NaNs are never taken;
 *    among equal values (-0.0, +0.0) the first stays: the generic kernel's
 *    bits. The result is stored from double through fv_d_flt_store_nd. */
#include "filternd-common.cuh"

#define FV_CU_FLT_MT_BX 32                                  /* threads along x, one column each */
#define FV_CU_FLT_MT_BY 4                                   /* threads along y */
#define FV_CU_FLT_MT_PY 8                                   /* output rows per thread */
#define FV_CU_FLT_MT_TH (FV_CU_FLT_MT_BY * FV_CU_FLT_MT_PY) /* tile height */
#define FV_CU_FLT_MT_KMAX 11                                /* largest box side */

/* key type and order maps: key(v) for minimum; max flips it */
template <typename T> struct fv_cu_flt_mm;
#define FV_CU_FLT_MM_UINT(T, KT)                                   \
    template <> struct fv_cu_flt_mm<T> {                           \
        typedef KT K;                                              \
        static const bool flt = false;                             \
        static __device__ __forceinline__ K key(T v, bool mx)      \
        {                                                          \
            return mx ? (K) ~(K)v : (K)v;                          \
        }                                                          \
        static __device__ __forceinline__ double val(K k, bool mx) \
        {                                                          \
            return (double)(T)(mx ? (K)~k : k);                    \
        }                                                          \
        static __device__ __forceinline__ K step(K r, K x, int m)  \
        {                                                          \
            K y = x | (K)(int64_t)m;                               \
            return y < r ? y : r;                                  \
        }                                                          \
        static __device__ __forceinline__ K top()                  \
        {                                                          \
            return (K) ~(K)0;                                      \
        }                                                          \
    };
#define FV_CU_FLT_MM_SINT(T, UT, KT, SB)                           \
    template <> struct fv_cu_flt_mm<T> {                           \
        typedef KT K;                                              \
        static const bool flt = false;                             \
        static __device__ __forceinline__ K key(T v, bool mx)      \
        {                                                          \
            K k = (K)(UT)v ^ (K)(SB);                              \
            return mx ? (K)~k : k;                                 \
        }                                                          \
        static __device__ __forceinline__ double val(K k, bool mx) \
        {                                                          \
            return (double)(T)(UT)((mx ? (K)~k : k) ^ (K)(SB));    \
        }                                                          \
        static __device__ __forceinline__ K step(K r, K x, int m)  \
        {                                                          \
            K y = x | (K)(int64_t)m;                               \
            return y < r ? y : r;                                  \
        }                                                          \
        static __device__ __forceinline__ K top()                  \
        {                                                          \
            return (K) ~(K)0;                                      \
        }                                                          \
    };
FV_CU_FLT_MM_UINT(uint8_t, uint32_t)
FV_CU_FLT_MM_UINT(uint16_t, uint32_t)
FV_CU_FLT_MM_UINT(uint32_t, uint32_t)
FV_CU_FLT_MM_UINT(uint64_t, uint64_t)
FV_CU_FLT_MM_SINT(int8_t, uint32_t, uint32_t, 0x80000000u)
FV_CU_FLT_MM_SINT(int16_t, uint32_t, uint32_t, 0x80000000u)
FV_CU_FLT_MM_SINT(int32_t, uint32_t, uint32_t, 0x80000000u)
FV_CU_FLT_MM_SINT(int64_t, uint64_t, uint64_t, 0x8000000000000000ull)
#undef FV_CU_FLT_MM_UINT
#undef FV_CU_FLT_MM_SINT
template <> struct fv_cu_flt_mm<float> {
    typedef float K;
    static const bool flt = true;
    static __device__ __forceinline__ K key(float v, bool mx)
    {
        return mx ? __uint_as_float(__float_as_uint(v) ^ 0x80000000u) : v;
    }
    static __device__ __forceinline__ double val(K k, bool mx)
    {
        return (double)key(k, mx);
    }
    static __device__ __forceinline__ K step(K r, K x, int m)
    {
        const K y = __uint_as_float(__float_as_uint(x) | (uint32_t)m);
        return y < r ? y : r;
    }
    static __device__ __forceinline__ K top()
    {
        return 0;
    } /* unused: floats start from the first element */
};
template <> struct fv_cu_flt_mm<double> {
    typedef double K;
    static const bool flt = true;
    static __device__ __forceinline__ K key(double v, bool mx)
    {
        return mx ? __longlong_as_double(__double_as_longlong(v) ^ (long long)0x8000000000000000ull) : v;
    }
    static __device__ __forceinline__ double val(K k, bool mx)
    {
        return key(k, mx);
    }
    static __device__ __forceinline__ K step(K r, K x, int m)
    {
        const K y = __longlong_as_double(__double_as_longlong(x) | (long long)m);
        return y < r ? y : r;
    }
    static __device__ __forceinline__ K top()
    {
        return 0;
    } /* unused: floats start from the first element */
};

struct fv_cu_flt_mtargs {
    const char *in;
    char *out;
    int h, w;                         /* image rows, columns */
    int dy, dx;                       /* displacement of box element (0, 0) */
    int sy_in, sx_in, sy_out, sx_out; /* byte strides (0 along an axis of 1) */
    int mode, odt, mx;                /* mx: maximum */
    int first;                        /* box index of the first selected element */
    unsigned rows;                    /* bit ky: box row ky selects an element */
    double cval;
    int sel[FV_CU_FLT_MT_KMAX * FV_CU_FLT_MT_KMAX]; /* K x K box: 0 selected, -1 not */
};

template <typename T, int K>
__global__ void
__launch_bounds__(FV_CU_FLT_MT_BX *FV_CU_FLT_MT_BY) fv_k_flt_minmax_tile(const fv_cu_flt_mtargs a)
{
    typedef fv_cu_flt_mm<T> M;
    typedef typename M::K KT;
    enum {
        SW = FV_CU_FLT_MT_BX + K - 1,
        SH = FV_CU_FLT_MT_TH + K - 1,
        PY = FV_CU_FLT_MT_PY
    };
    __shared__ KT s[SH * SW];
    const bool mx = a.mx != 0;
    const KT cv = M::key(fv_d_flt_to_in<T>(a.cval), mx);
    const int x0 = (int)blockIdx.x * FV_CU_FLT_MT_BX, y0 = (int)blockIdx.y * FV_CU_FLT_MT_TH;
    fv_d_flt_tile2d_load<T, FV_CU_FLT_MT_BX, FV_CU_FLT_MT_BY, SH, SW>(s, a, x0, y0, cv,
                                                                      [mx](T v) { return M::key(v, mx); });
    __syncthreads();
    const int x = x0 + (int)threadIdx.x, yb = y0 + (int)threadIdx.y * PY;
    if (x >= a.w || yb >= a.h)
        return;
    const KT *sp = s + threadIdx.y * PY * SW + threadIdx.x;
    KT res[PY];
    if (M::flt) { /* the first selected element (compared with itself later: never taken) */
        const int f = a.first, fy = f / K, fx = f - fy * K;
#pragma unroll
        for (int q = 0; q < PY; q++)
            res[q] = sp[(q + fy) * SW + fx];
    } else {
#pragma unroll
        for (int q = 0; q < PY; q++)
            res[q] = M::top();
    }
#pragma unroll
    for (int r = 0; r < PY + K - 1; r++) { /* input rows of the strip, top to bottom */
        KT v[K];
#pragma unroll
        for (int kx = 0; kx < K; kx++)
            v[kx] = sp[r * SW + kx];
#pragma unroll
        for (int q = 0; q < PY; q++) { /* the outputs using row r: box row r - q */
            const int ky = r - q;
            if (ky < 0 || ky >= K)
                continue;
            if (!((a.rows >> ky) & 1u))
                continue;
#pragma unroll
            for (int kx = 0; kx < K; kx++)
                res[q] = M::step(res[q], v[kx], a.sel[ky * K + kx]);
        }
    }
#pragma unroll
    for (int q = 0; q < PY; q++) {
        const int y = yb + q;
        if (y < a.h)
            fv_d_flt_store_nd(a.out + y * a.sy_out + x * a.sx_out, a.odt, M::val(res[q], mx));
    }
}

/* ---- host -------------------------------------------------------------------------- */

/* The box side K, or 0 where the generic kernel runs: a structure, or as
 * fv_cu_flt_tile2d_k. */
int
fv_cu_flt_minmax_tile_k(const fv_cu_flt_ndjob *j, int has_st)
{
    return has_st ? 0 : fv_cu_flt_tile2d_k(j, FV_CU_FLT_MT_KMAX, FV_CU_FLT_MT_TH, FV_CU_FLT_MT_BX);
}

template <typename T>
static fv_status
fv_cu_flt_minmax_tile_launch(const fv_cu_flt_ndjob *j, int k, int mn)
{
    const fv_cu_flt_ndprep *p = j->prep;
    fv_cu_flt_mtargs a;
    memset(&a, 0, sizeof a);
    FV_CU_FLT_TILE2D_FILL(a, j, p);
    a.mx = !mn;
    a.cval = j->cval;
    for (int e = 0; e < k * k; e++)
        a.sel[e] = -1;
    for (int64_t e = 0; e < p->count; e++) {
        int by = (int)(p->delta[2 * e] - p->dmin[0]), bx = (int)(p->delta[2 * e + 1] - p->dmin[1]);
        a.sel[by * k + bx] = 0;
        a.rows |= 1u << by;
        if (e == 0)
            a.first = by * k + bx; /* the tables are in C order of the window */
    }
    dim3 grid((unsigned)((a.w + FV_CU_FLT_MT_BX - 1) / FV_CU_FLT_MT_BX),
              (unsigned)((a.h + FV_CU_FLT_MT_TH - 1) / FV_CU_FLT_MT_TH));
    dim3 block(FV_CU_FLT_MT_BX, FV_CU_FLT_MT_BY);
    switch (k) {
    case 3:
        fv_k_flt_minmax_tile<T, 3><<<grid, block, 0, j->stream>>>(a);
        break;
    case 5:
        fv_k_flt_minmax_tile<T, 5><<<grid, block, 0, j->stream>>>(a);
        break;
    case 7:
        fv_k_flt_minmax_tile<T, 7><<<grid, block, 0, j->stream>>>(a);
        break;
    case 9:
        fv_k_flt_minmax_tile<T, 9><<<grid, block, 0, j->stream>>>(a);
        break;
    default:
        fv_k_flt_minmax_tile<T, 11><<<grid, block, 0, j->stream>>>(a);
        break;
    }
    return fv_cu_launch_status("minimum/maximum filter kernel launch");
}

fv_status
fv_cu_flt_minmax_tile_run(const fv_cu_flt_ndjob *j, int mn, int has_st)
{
    int k = fv_cu_flt_minmax_tile_k(j, has_st);
    if (!k)
        return FV_ENOKERNEL;
    FV_CU_FLT_SWITCH_IN(j->in->dtype, fv_cu_flt_minmax_tile_launch<T>(j, k, mn))
    return FV_ENOKERNEL;
}
