/* CUDA kernels of the n-d rank filter (filternd-rank.cu describes the paths): the
 * tiled kernels for a full 3 x 3 / 5 x 5 box in 2-d (fv_k_flt_rank_tile) and a
 * full 3 x 3 x 3 box in 3-d (fv_k_flt_rank_tile3) over 8/16-bit and float32 data,
 * with their launchers. */
#include "filternd-rank.cuh"

/* ---- tiled 2-D path: a full K x K box (K = 3, 5) over 8/16-bit and float32 data ----
 * One block per 32 x 32 output tile: the tile and its halo (the window's
 * displacements, origin included) go to shared memory with the mode applied at
 * load time (fv_d_flt_extend per axis; outside a constant edge: cval cast to the
 * input type), then each thread takes 4 output rows of one column: the
 * (4 + K - 1) x K values it needs sit in registers, and a Batcher network over
 * the K * K elements sorts them (with the rank known at compile time the
 * compiler drops every comparator that does not lead to it). 8-bit data run 4
 * pixels per 32-bit word (__vminu4 ...), 16-bit data 2.
 * Without NaN the rank-th is scipy's value (see the top of this file); equal
 * values are identical bits except +-0, so a float window with NaN, or with
 * -0.0 and a zero selected, runs scipy's quickselect on scipy's buffer (the
 * window in C order, as fv_d_flt_rank_nan) and the result keeps scipy's sign. */
#define FV_CU_FLT_RT_BX 32                                  /* threads along x, one column each */
#define FV_CU_FLT_RT_BY 8                                   /* threads along y */
#define FV_CU_FLT_RT_PY 4                                   /* output rows per thread */
#define FV_CU_FLT_RT_TH (FV_CU_FLT_RT_BY * FV_CU_FLT_RT_PY) /* tile height */

typedef struct fv_cu_flt_rtargs {
    const char *in;
    char *out;
    int h, w;                         /* image rows, columns */
    int dy, dx;                       /* displacement of window element (0, 0) */
    int sy_in, sx_in, sy_out, sx_out; /* byte strides (0 along an axis of 1) */
    int mode, odt, rank;
    double cval;
} fv_cu_flt_rtargs;

/* lanes: L pixels share one network word W */
template <typename T> struct fv_d_flt_rt;
#define FV_CU_FLT_RT_INT(T, U, BITS, MN, MX)                     \
    template <> struct fv_d_flt_rt<T> {                          \
        typedef uint32_t W;                                      \
        enum {                                                   \
            L = 32 / BITS                                        \
        };                                                       \
        static __device__ __forceinline__ W mn(W a, W b)         \
        {                                                        \
            return MN(a, b);                                     \
        }                                                        \
        static __device__ __forceinline__ W mx(W a, W b)         \
        {                                                        \
            return MX(a, b);                                     \
        }                                                        \
        static __device__ __forceinline__ W put(W w, T v, int l) \
        {                                                        \
            return w | ((W)(U)v << (BITS * l));                  \
        }                                                        \
        static __device__ __forceinline__ T get(W w, int l)      \
        {                                                        \
            return (T)(U)(w >> (BITS * l));                      \
        }                                                        \
        static __device__ __forceinline__ bool odd(T)            \
        {                                                        \
            return false;                                        \
        }                                                        \
        static __device__ __forceinline__ bool negz(T)           \
        {                                                        \
            return false;                                        \
        }                                                        \
    };
FV_CU_FLT_RT_INT(uint8_t, uint8_t, 8, __vminu4, __vmaxu4)
FV_CU_FLT_RT_INT(int8_t, uint8_t, 8, __vmins4, __vmaxs4)
FV_CU_FLT_RT_INT(uint16_t, uint16_t, 16, __vminu2, __vmaxu2)
FV_CU_FLT_RT_INT(int16_t, uint16_t, 16, __vmins2, __vmaxs2)
#undef FV_CU_FLT_RT_INT
template <> struct fv_d_flt_rt<float> {
    typedef float W;
    enum {
        L = 1
    };
    static __device__ __forceinline__ W mn(W a, W b)
    {
        return fminf(a, b);
    }
    static __device__ __forceinline__ W mx(W a, W b)
    {
        return fmaxf(a, b);
    }
    static __device__ __forceinline__ W put(W, float v, int)
    {
        return v;
    }
    static __device__ __forceinline__ float get(W w, int)
    {
        return w;
    }
    /* NaN or -0.0: the thread checks its pixels one by one */
    static __device__ __forceinline__ bool odd(float v)
    {
        uint32_t b = __float_as_uint(v);
        return (b & 0x7fffffffu) > 0x7f800000u || b == 0x80000000u;
    }
    static __device__ __forceinline__ bool negz(float v)
    {
        return __float_as_uint(v) == 0x80000000u;
    }
};

/* Batcher's odd-even merge sort of 9 and 25 elements: the networks for 16 and
 * 32 (fv_d_flt_batcher's loops) without the comparators that touch an index >= N
 * (padding with the largest value: those never swap), listed out so that every
 * index is a constant and v stays in registers (the loops, not unrolled by
 * the front end, left v in local memory). Checked on all 0-1 inputs. */
/* clang-format off */
#define FV_CU_FLT_RT_NET9(C)                                                                                        \
    C(0, 1)                                                                                                         \
    C(2, 3) C(4, 5) C(6, 7) C(0, 2) C(1, 3) C(4, 6) C(5, 7) C(1, 2) C(5, 6) C(0, 4) C(1, 5) C(2, 6) C(3, 7) C(2, 4) \
        C(3, 5) C(1, 2) C(3, 4) C(5, 6) C(0, 8) C(4, 8) C(2, 4) C(3, 5) C(6, 8) C(1, 2) C(3, 4) C(5, 6) C(7, 8)
/* clang-format on */

/* clang-format off */
#define FV_CU_FLT_RT_NET25(C)                                                                                          \
    C(0, 1)                                                                                                            \
    C(2, 3) C(4, 5) C(6, 7) C(8, 9) C(10, 11) C(12, 13) C(14, 15) C(16, 17) C(18, 19) C(20, 21) C(22, 23) C(0, 2)      \
        C(1, 3) C(4, 6) C(5, 7) C(8, 10) C(9, 11) C(12, 14) C(13, 15) C(16, 18) C(17, 19) C(20, 22) C(21, 23) C(1, 2)  \
            C(5, 6) C(9, 10) C(13, 14) C(17, 18) C(21, 22) C(0, 4) C(1, 5) C(2, 6) C(3, 7) C(8, 12) C(9, 13) C(10, 14) \
                C(11, 15) C(16, 20) C(17, 21) C(18, 22) C(19, 23) C(2, 4) C(3, 5) C(10, 12) C(11, 13) C(18, 20)        \
                    C(19, 21) C(1, 2) C(3, 4) C(5, 6) C(9, 10) C(11, 12) C(13, 14) C(17, 18) C(19, 20) C(21, 22)       \
                        C(0, 8) C(1, 9) C(2, 10) C(3, 11) C(4, 12) C(5, 13) C(6, 14) C(7, 15) C(16, 24) C(4, 8)        \
                            C(5, 9) C(6, 10) C(7, 11) C(20, 24) C(2, 4) C(3, 5) C(6, 8) C(7, 9) C(10, 12) C(11, 13)    \
                                C(18, 20) C(19, 21) C(22, 24) C(1, 2) C(3, 4) C(5, 6) C(7, 8) C(9, 10) C(11, 12)       \
                                    C(13, 14) C(17, 18) C(19, 20) C(21, 22) C(23, 24) C(0, 16) C(1, 17) C(2, 18)       \
                                        C(3, 19) C(4, 20) C(5, 21) C(6, 22) C(7, 23) C(8, 24) C(8, 16) C(9, 17)        \
                                            C(10, 18) C(11, 19) C(12, 20) C(13, 21) C(14, 22) C(15, 23) C(4, 8)        \
                                                C(5, 9) C(6, 10) C(7, 11) C(12, 16) C(13, 17) C(14, 18) C(15, 19)      \
                                                    C(20, 24) C(2, 4) C(3, 5) C(6, 8) C(7, 9) C(10, 12) C(11, 13)      \
                                                        C(14, 16) C(15, 17) C(18, 20) C(19, 21) C(22, 24) C(1, 2)      \
                                                            C(3, 4) C(5, 6) C(7, 8) C(9, 10) C(11, 12) C(13, 14)       \
                                                                C(15, 16) C(17, 18) C(19, 20) C(21, 22) C(23, 24)
/* clang-format on */

template <typename Tr, int N> struct fv_d_flt_rt_net;
#define FV_CU_FLT_RT_CMP(I, J)             \
    {                                      \
        typename Tr::W a = v[I], b = v[J]; \
        v[I] = Tr::mn(a, b);               \
        v[J] = Tr::mx(a, b);               \
    }
template <typename Tr> struct fv_d_flt_rt_net<Tr, 9> {
    static __device__ __forceinline__ void sort(typename Tr::W *v)
    {
        FV_CU_FLT_RT_NET9(FV_CU_FLT_RT_CMP)
    }
};
template <typename Tr> struct fv_d_flt_rt_net<Tr, 25> {
    static __device__ __forceinline__ void sort(typename Tr::W *v)
    {
        FV_CU_FLT_RT_NET25(FV_CU_FLT_RT_CMP)
    }
};
#undef FV_CU_FLT_RT_CMP

/* scipy's quickselect on the window at w (shared memory, rows sw apart) in C
 * order: the buffer fv_d_flt_rank_nan fills */
template <typename T, int K>
__device__ __noinline__ double
fv_d_flt_rt_exact(const T *w, int sw, int rank)
{
    double buf[K * K];
    for (int ky = 0; ky < K; ky++)
        for (int kx = 0; kx < K; kx++)
            buf[ky * K + kx] = (double)w[ky * sw + kx];
    return fv_d_flt_select<double>(buf, 0, K * K - 1, rank);
}

/* R >= 0: the rank at compile time (the median); R < 0: a.rank */
template <typename T, int K, int R>
__global__ void
__launch_bounds__(FV_CU_FLT_RT_BX *FV_CU_FLT_RT_BY) fv_k_flt_rank_tile(fv_cu_flt_rtargs a)
{
    typedef fv_d_flt_rt<T> Tr;
    typedef typename Tr::W W;
    enum {
        SW = FV_CU_FLT_RT_BX + K - 1,
        SH = FV_CU_FLT_RT_TH + K - 1,
        N = K * K,
        L = Tr::L,
        NR = FV_CU_FLT_RT_PY + K - 1
    };
    __shared__ T s[SH][SW];
    const int x0 = (int)blockIdx.x * FV_CU_FLT_RT_BX, y0 = (int)blockIdx.y * FV_CU_FLT_RT_TH;
    const T cv = fv_d_flt_to_in<T>(a.cval);
    for (int e = (int)(threadIdx.y * FV_CU_FLT_RT_BX + threadIdx.x); e < SH * SW;
         e += FV_CU_FLT_RT_BX * FV_CU_FLT_RT_BY) {
        const int sy = e / SW, sx = e - sy * SW;
        const int iy = fv_d_flt_extend<int>(y0 + a.dy + sy, a.h, a.mode);
        const int ix = iy < 0 ? -1 : fv_d_flt_extend<int>(x0 + a.dx + sx, a.w, a.mode);
        s[sy][sx] = ix < 0 ? cv : __ldg((const T *)(a.in + iy * a.sy_in + ix * a.sx_in));
    }
    __syncthreads();
    const int x = x0 + (int)threadIdx.x, yb = y0 + (int)threadIdx.y * FV_CU_FLT_RT_PY;
    if (x >= a.w || yb >= a.h)
        return;
    T r[NR][K];
    bool odd = false;
#pragma unroll
    for (int i = 0; i < NR; i++) {
#pragma unroll
        for (int kx = 0; kx < K; kx++) {
            r[i][kx] = s[threadIdx.y * FV_CU_FLT_RT_PY + i][threadIdx.x + kx];
            odd |= Tr::odd(r[i][kx]);
        }
    }
    const int rank = R >= 0 ? R : a.rank;
    unsigned redo = 0; /* float pixels with NaN or -0.0: bit q for row yb + q */
#pragma unroll
    for (int g = 0; g < FV_CU_FLT_RT_PY / L; g++) {
        W v[N];
#pragma unroll
        for (int ky = 0; ky < K; ky++) {
#pragma unroll
            for (int kx = 0; kx < K; kx++) {
                W w = 0;
#pragma unroll
                for (int l = 0; l < L; l++)
                    w = Tr::put(w, r[g * L + l + ky][kx], l);
                v[ky * K + kx] = w;
            }
        }
        fv_d_flt_rt_net<Tr, N>::sort(v);
        W sel = v[0];
        if (R >= 0) {
            sel = v[R >= 0 ? R : 0];
        } else {
#pragma unroll
            for (int k = 1; k < N; k++)
                if (k == rank)
                    sel = v[k];
        }
#pragma unroll
        for (int l = 0; l < L; l++) {
            const int y = yb + g * L + l;
            const T t = Tr::get(sel, l);
            bool exact = false;
            if (fv_cu_flt_is_float<T>::value && odd) {
                bool nan = false, negz = false;
#pragma unroll
                for (int ky = 0; ky < K; ky++) {
#pragma unroll
                    for (int kx = 0; kx < K; kx++) {
                        T u = r[g * L + l + ky][kx];
                        nan |= u != u;
                        negz |= Tr::negz(u);
                    }
                }
                exact = nan || (negz && t == (T)0);
                redo |= (unsigned)exact << (g * L + l);
            }
            if (y < a.h && !exact)
                fv_d_flt_store_nd(a.out + y * a.sy_out + x * a.sx_out, a.odt, fv_d_flt_back<T>((double)t));
        }
    }
    /* NaN, or -0.0 and a zero selected: scipy's quickselect, after the registers died */
    for (int q = 0; redo && q < FV_CU_FLT_RT_PY; q++) {
        const int y = yb + q;
        if (((redo >> q) & 1) && y < a.h)
            fv_d_flt_store_nd(a.out + y * a.sy_out + x * a.sx_out, a.odt,
                              fv_d_flt_back<T>(fv_d_flt_rt_exact<T, K>(
                                  &s[threadIdx.y * FV_CU_FLT_RT_PY + q][threadIdx.x], SW, rank)));
    }
}

/* ---- tiled 3-D path: a full 3 x 3 x 3 box over 8/16-bit and float32 data ------------
 * One block of 32 x 8 threads per 32 x 8 x 8 output tile (x, y, z): the tile and
 * its halo go to shared memory with the mode applied at load time (as the 2-D
 * path), then each thread walks the 8 z planes of its (y, x) column, L planes at
 * a time (L pixels per network word as in the 2-D path; lanes along z). Each
 * 3 x 3 plane of the window is sorted once (FV_CU_FLT_R3_SORT9) and, for L < 3, kept
 * for the next outputs that share it; the three sorted planes are merged
 * (FV_CU_FLT_R3_MERGE, rank-pruned by the compiler when the rank is a template
 * argument: 13, 6 and 25, the median, percentile 25 and rank -2). NaN, and -0.0
 * with a zero selected: scipy's quickselect on scipy's buffer (the window in C
 * order), as in the 2-D path. */
#include "rank3d-net.h"

#define FV_CU_FLT_R3_BX 32
#define FV_CU_FLT_R3_BY 8
#define FV_CU_FLT_R3_TZ 8 /* z planes per tile (a multiple of every L) */

typedef struct fv_cu_flt_r3args {
    const char *in;
    char *out;
    int d, h, w;                                     /* planes, rows, columns */
    int dz, dy, dx;                                  /* displacement of window element (0, 0, 0) */
    int sz_in, sy_in, sx_in, sz_out, sy_out, sx_out; /* byte strides (0 along an axis of 1) */
    int mode, odt, rank;
    double cval;
} fv_cu_flt_r3args;

template <typename T>
__device__ __noinline__ double
fv_d_flt_r3_exact(const T *w, int sp, int sr, int rank)
{
    double buf[27];
    for (int kz = 0; kz < 3; kz++)
        for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++)
                buf[kz * 9 + ky * 3 + kx] = (double)w[kz * sp + ky * sr + kx];
    return fv_d_flt_select<double>(buf, 0, 26, rank);
}

template <typename T, int R>
__global__ void
__launch_bounds__(FV_CU_FLT_R3_BX *FV_CU_FLT_R3_BY) fv_k_flt_rank_tile3(fv_cu_flt_r3args a)
{
    typedef fv_d_flt_rt<T> Tr;
    typedef typename Tr::W W;
    enum {
        SW = FV_CU_FLT_R3_BX + 2,
        SH = FV_CU_FLT_R3_BY + 2,
        SD = FV_CU_FLT_R3_TZ + 2,
        L = Tr::L
    };
    __shared__ T s[SD][SH][SW];
    const int x0 = (int)blockIdx.x * FV_CU_FLT_R3_BX, y0 = (int)blockIdx.y * FV_CU_FLT_R3_BY,
              z0 = (int)blockIdx.z * FV_CU_FLT_R3_TZ;
    const T cv = fv_d_flt_to_in<T>(a.cval);
    for (int e = (int)(threadIdx.y * FV_CU_FLT_R3_BX + threadIdx.x); e < SD * SH * SW;
         e += FV_CU_FLT_R3_BX * FV_CU_FLT_R3_BY) {
        const int sz = e / (SH * SW), rem = e - sz * (SH * SW), sy = rem / SW, sx = rem - sy * SW;
        const int iz = fv_d_flt_extend<int>(z0 + a.dz + sz, a.d, a.mode);
        const int iy = iz < 0 ? -1 : fv_d_flt_extend<int>(y0 + a.dy + sy, a.h, a.mode);
        const int ix = iy < 0 ? -1 : fv_d_flt_extend<int>(x0 + a.dx + sx, a.w, a.mode);
        s[sz][sy][sx] = ix < 0 ? cv : __ldg((const T *)(a.in + iz * a.sz_in + iy * a.sy_in + ix * a.sx_in));
    }
    __syncthreads();
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const int x = x0 + tx, y = y0 + ty;
    if (x >= a.w || y >= a.h || z0 >= a.d)
        return;
    const int rank = R >= 0 ? R : a.rank;
    unsigned redo = 0; /* float outputs with NaN or -0.0: bit q for plane z0 + q */
    W p[3][9];         /* the sorted window planes of the current L outputs */
    bool nanp[3], negp[3];
#pragma unroll
    for (int g = 0; g < FV_CU_FLT_R3_TZ / L; g++) {
#pragma unroll
        for (int k = 0; k < 3; k++) {
            if (g > 0 && k + L < 3) { /* the plane of the previous outputs' window */
#pragma unroll
                for (int i = 0; i < 9; i++)
                    p[k][i] = p[k + L][i];
                nanp[k] = nanp[k + L];
                negp[k] = negp[k + L];
                continue;
            }
            W *v = p[k];
            bool nan = false, neg = false;
#pragma unroll
            for (int ky = 0; ky < 3; ky++) {
#pragma unroll
                for (int kx = 0; kx < 3; kx++) {
                    W w = 0;
#pragma unroll
                    for (int l = 0; l < L; l++) {
                        const T u = s[g * L + l + k][ty + ky][tx + kx];
                        w = Tr::put(w, u, l);
                        if (fv_cu_flt_is_float<T>::value) {
                            nan |= u != u;
                            neg |= Tr::negz(u);
                        }
                    }
                    v[ky * 3 + kx] = w;
                }
            }
            nanp[k] = nan; /* float only (L = 1) */
            negp[k] = neg;
/* clang-format off */
#define FV_CU_FLT_R3_CMP(I, J)  \
    {                           \
        W c0 = v[I], c1 = v[J]; \
        v[I] = Tr::mn(c0, c1);  \
        v[J] = Tr::mx(c0, c1);  \
    }
            /* clang-format on */
            FV_CU_FLT_R3_SORT9(FV_CU_FLT_R3_CMP)
#undef FV_CU_FLT_R3_CMP
        }
        W v[27];
#pragma unroll
        for (int k = 0; k < 3; k++) {
#pragma unroll
            for (int i = 0; i < 9; i++)
                v[k * 9 + i] = p[k][i];
        }
/* clang-format off */
#define FV_CU_FLT_R3_CMP(I, J)  \
    {                           \
        W c0 = v[I], c1 = v[J]; \
        v[I] = Tr::mn(c0, c1);  \
        v[J] = Tr::mx(c0, c1);  \
    }
        /* clang-format on */
        FV_CU_FLT_R3_MERGE(FV_CU_FLT_R3_CMP)
#undef FV_CU_FLT_R3_CMP
        W u[27];
#define FV_CU_FLT_R3_AT(K, I) u[K] = v[I];
        FV_CU_FLT_R3_POS(FV_CU_FLT_R3_AT)
#undef FV_CU_FLT_R3_AT
        W sel = u[0];
        if (R >= 0) {
            sel = u[R >= 0 ? R : 0];
        } else {
#pragma unroll
            for (int k = 1; k < 27; k++)
                if (k == rank)
                    sel = u[k];
        }
#pragma unroll
        for (int l = 0; l < L; l++) {
            const int q = g * L + l, z = z0 + q;
            const T t = Tr::get(sel, l);
            bool exact = false;
            if (fv_cu_flt_is_float<T>::value) {
                exact = nanp[0] || nanp[1] || nanp[2] || ((negp[0] || negp[1] || negp[2]) && t == (T)0);
                redo |= (unsigned)exact << q;
            }
            if (z < a.d && !exact)
                fv_d_flt_store_nd(a.out + z * a.sz_out + y * a.sy_out + x * a.sx_out, a.odt,
                                  fv_d_flt_back<T>((double)t));
        }
    }
    /* NaN, or -0.0 and a zero selected: scipy's quickselect, after the registers died */
    for (int q = 0; redo && q < FV_CU_FLT_R3_TZ; q++) {
        const int z = z0 + q;
        if (((redo >> q) & 1) && z < a.d)
            fv_d_flt_store_nd(a.out + z * a.sz_out + y * a.sy_out + x * a.sx_out, a.odt,
                              fv_d_flt_back<T>(fv_d_flt_r3_exact<T>(&s[q][ty][tx], SH * SW, SW, rank)));
    }
}

/* ---- host -------------------------------------------------------------------------- */

/* The tiled path's window size (3 or 5), or 0 where the generic kernels run:
 * not 2-d, not a full 3x3 or 5x5 box (the
 * selected elements' displacements span K x K and all K * K are selected),
 * 64-bit index math, more tile rows than a grid holds. */
int
fv_cu_flt_rank_tile_k(const fv_cu_flt_ndjob *j)
{
    const fv_cu_flt_ndprep *p = j->prep;
    if (p->ndim != 2 || j->in->ndim != 2 || !j->fits32)
        return 0;
    int64_t k = p->dmax[0] - p->dmin[0] + 1;
    if ((k != 3 && k != 5) || p->dmax[1] - p->dmin[1] + 1 != k || p->count != k * k)
        return 0;
    if ((p->shape[0] + FV_CU_FLT_RT_TH - 1) / FV_CU_FLT_RT_TH > 65535 ||
        (p->shape[1] + FV_CU_FLT_RT_BX - 1) / FV_CU_FLT_RT_BX > INT32_MAX)
        return 0;
    return (int)k;
}

template <typename T, int K>
static fv_status
fv_cu_flt_rank_tile_launch(const fv_cu_flt_ndjob *j)
{
    const fv_cu_flt_ndprep *p = j->prep;
    fv_cu_flt_rtargs a;
    memset(&a, 0, sizeof a);
    FV_CU_FLT_TILE2D_FILL(a, j, p);
    a.rank = (int)j->rank;
    a.cval = j->cval;
    dim3 grid((unsigned)((a.w + FV_CU_FLT_RT_BX - 1) / FV_CU_FLT_RT_BX),
              (unsigned)((a.h + FV_CU_FLT_RT_TH - 1) / FV_CU_FLT_RT_TH));
    dim3 block(FV_CU_FLT_RT_BX, FV_CU_FLT_RT_BY);
    if (j->rank == K * K / 2)
        fv_k_flt_rank_tile<T, K, K * K / 2><<<grid, block, 0, j->stream>>>(a);
    else
        fv_k_flt_rank_tile<T, K, -1><<<grid, block, 0, j->stream>>>(a);
    return fv_cu_launch_status("rank filter kernel launch");
}

/* The tiled 3-D path applies (1) or not (0): 3-d, a full 3 x 3 x 3 box, 32-bit index math, a grid that holds the tiles. */
int
fv_cu_flt_rank_tile3_ok(const fv_cu_flt_ndjob *j)
{
    const fv_cu_flt_ndprep *p = j->prep;
    if (p->ndim != 3 || j->in->ndim != 3 || !j->fits32)
        return 0;
    for (int d = 0; d < 3; d++)
        if (p->dmax[d] - p->dmin[d] + 1 != 3)
            return 0;
    if (p->count != 27)
        return 0;
    if ((p->shape[0] + FV_CU_FLT_R3_TZ - 1) / FV_CU_FLT_R3_TZ > 65535 ||
        (p->shape[1] + FV_CU_FLT_R3_BY - 1) / FV_CU_FLT_R3_BY > 65535 ||
        (p->shape[2] + FV_CU_FLT_R3_BX - 1) / FV_CU_FLT_R3_BX > INT32_MAX)
        return 0;
    return 1;
}

template <typename T>
static fv_status
fv_cu_flt_rank_tile3_launch(const fv_cu_flt_ndjob *j)
{
    const fv_cu_flt_ndprep *p = j->prep;
    fv_cu_flt_r3args a;
    memset(&a, 0, sizeof a);
    FV_CU_FLT_TILE3D_FILL(a, j, p);
    a.rank = (int)j->rank;
    a.cval = j->cval;
    dim3 grid((unsigned)((a.w + FV_CU_FLT_R3_BX - 1) / FV_CU_FLT_R3_BX),
              (unsigned)((a.h + FV_CU_FLT_R3_BY - 1) / FV_CU_FLT_R3_BY),
              (unsigned)((a.d + FV_CU_FLT_R3_TZ - 1) / FV_CU_FLT_R3_TZ));
    dim3 block(FV_CU_FLT_R3_BX, FV_CU_FLT_R3_BY);
    switch (j->rank) {
    case 13:
        fv_k_flt_rank_tile3<T, 13><<<grid, block, 0, j->stream>>>(a);
        break;
    case 6:
        fv_k_flt_rank_tile3<T, 6><<<grid, block, 0, j->stream>>>(a);
        break;
    case 25:
        fv_k_flt_rank_tile3<T, 25><<<grid, block, 0, j->stream>>>(a);
        break;
    default:
        fv_k_flt_rank_tile3<T, -1><<<grid, block, 0, j->stream>>>(a);
        break;
    }
    return fv_cu_launch_status("rank filter kernel launch");
}

template <typename T, bool OK> struct fv_cu_flt_tile_run {
    static fv_status run(const fv_cu_flt_ndjob *j, int k)
    {
        return FV_ENOKERNEL;
    }
};
template <typename T> struct fv_cu_flt_tile_run<T, true> {
    static fv_status run(const fv_cu_flt_ndjob *j, int k)
    {
        return k == 3 ? fv_cu_flt_rank_tile_launch<T, 3>(j)
            : k == 5  ? fv_cu_flt_rank_tile_launch<T, 5>(j)
                      : fv_cu_flt_rank_tile3_launch<T>(j);
    }
};

/* The tiled kernels (2-D 3 x 3 / 5 x 5 and 3-D 3 x 3 x 3 boxes), or FV_ENOKERNEL. */
template <typename T>
static fv_status
fv_cu_flt_rank_tile_t(const fv_cu_flt_ndjob *j)
{
    int tk = fv_cu_flt_small<T>::value ? fv_cu_flt_rank_tile_k(j) : 0;
    if (!tk && fv_cu_flt_small<T>::value && fv_cu_flt_rank_tile3_ok(j))
        tk = 27; /* the 3 x 3 x 3 box */
    return tk ? fv_cu_flt_tile_run<T, fv_cu_flt_small<T>::value>::run(j, tk) : FV_ENOKERNEL;
}

fv_status
fv_cu_flt_rank_tile_run(const fv_cu_flt_ndjob *j)
{
    FV_CU_FLT_SWITCH_IN(j->in->dtype, fv_cu_flt_rank_tile_t<T>(j))
    return FV_ENOKERNEL;
}

/* The generic kernels, which read the displacement tables (j->tab). */
