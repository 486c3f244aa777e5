/* CUDA kernels of the n-d rank filter (FV__OP_FILTERND, FV__FND_RANK): the
 * rank-th smallest of the selected window values, cval cast to the input type
 * first, the selected double converted back to the input type (scipy's
 * NI_RankFilter).
 *
 * Without NaN in the window any selection gives scipy's value (order statistics
 * commute with the monotone conversion to double), so:
 *  - 2-d, a full 3x3 or 5x5 box, and 3-d, a full 3x3x3 box, 8/16-bit and float32
 *    data: shared-memory tiles and Batcher networks (filternd-rank-tile.cu;
 *    variant "rank_tiled" of "cuda.filternd", filternd.cu);
 *  - up to 9 elements (32-bit index math): the values sit in registers (padded
 *    with the type's largest value) and an odd-even transposition network sorts
 *    them;
 *  - 8-bit data, up to 255 elements: two counting passes over 16 bins (the high
 *    and the low 4 bits of the order-preserving key), the counters packed in
 *    two 64-bit registers;
 *  - float32 and 16-bit data, up to 32 elements: registers and Batcher's
 *    odd-even merge sort network for 32;
 *  - up to 64 elements: scipy's own quickselect on a per-thread buffer;
 *  - more: a bitwise radix select over order-preserving integer keys (one pass
 *    per varying key bit, reading the window each time; no storage).
 * With NaN the result is what scipy's quickselect (NI_Select) happens to leave,
 * so that algorithm runs on exactly scipy's buffer: per thread for small windows,
 * and for large ones in a second pass over the points flagged by the first, with
 * a global scratch buffer and bounded concurrency. */
#include "filternd-rank.cuh"

/* ---- order-preserving keys ------------------------------------------------------- */
template <typename T> struct fv_d_flt_key;
#define FV_CU_FLT_KEY_U(T, K)                         \
    template <> struct fv_d_flt_key<T> {              \
        typedef K type;                               \
        static __device__ __forceinline__ K of(T v)   \
        {                                             \
            return (K)v;                              \
        }                                             \
        static __device__ __forceinline__ T back(K k) \
        {                                             \
            return (T)k;                              \
        }                                             \
    };
#define FV_CU_FLT_KEY_S(T, U, K, SIGN)                \
    template <> struct fv_d_flt_key<T> {              \
        typedef K type;                               \
        static __device__ __forceinline__ K of(T v)   \
        {                                             \
            return (K)((U)v ^ (U)SIGN);               \
        }                                             \
        static __device__ __forceinline__ T back(K k) \
        {                                             \
            return (T)(U)((U)k ^ (U)SIGN);            \
        }                                             \
    };
FV_CU_FLT_KEY_U(uint8_t, uint32_t)
FV_CU_FLT_KEY_U(uint16_t, uint32_t)
FV_CU_FLT_KEY_U(uint32_t, uint32_t)
FV_CU_FLT_KEY_U(uint64_t, uint64_t)
FV_CU_FLT_KEY_S(int8_t, uint8_t, uint32_t, 0x80u)
FV_CU_FLT_KEY_S(int16_t, uint16_t, uint32_t, 0x8000u)
FV_CU_FLT_KEY_S(int32_t, uint32_t, uint32_t, 0x80000000u)
FV_CU_FLT_KEY_S(int64_t, uint64_t, uint64_t, 0x8000000000000000ull)
#undef FV_CU_FLT_KEY_U
#undef FV_CU_FLT_KEY_S
template <> struct fv_d_flt_key<float> {
    typedef uint32_t type;
    static __device__ __forceinline__ uint32_t of(float v)
    {
        uint32_t u = __float_as_uint(v);
        return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    }
    static __device__ __forceinline__ float back(uint32_t k)
    {
        return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
    }
};
template <> struct fv_d_flt_key<double> {
    typedef uint64_t type;
    static __device__ __forceinline__ uint64_t of(double v)
    {
        uint64_t u = (uint64_t)__double_as_longlong(v);
        return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
    }
    static __device__ __forceinline__ double back(uint64_t k)
    {
        return __longlong_as_double((long long)((k & 0x8000000000000000ull) ? (k & 0x7fffffffffffffffull) : ~k));
    }
};

template <typename T> struct fv_d_flt_top; /* the largest value (padding) */
template <> struct fv_d_flt_top<uint8_t> {
    static __device__ __forceinline__ uint8_t v()
    {
        return UINT8_MAX;
    }
};
template <> struct fv_d_flt_top<int8_t> {
    static __device__ __forceinline__ int8_t v()
    {
        return INT8_MAX;
    }
};
template <> struct fv_d_flt_top<uint16_t> {
    static __device__ __forceinline__ uint16_t v()
    {
        return UINT16_MAX;
    }
};
template <> struct fv_d_flt_top<int16_t> {
    static __device__ __forceinline__ int16_t v()
    {
        return INT16_MAX;
    }
};
template <> struct fv_d_flt_top<uint32_t> {
    static __device__ __forceinline__ uint32_t v()
    {
        return UINT32_MAX;
    }
};
template <> struct fv_d_flt_top<int32_t> {
    static __device__ __forceinline__ int32_t v()
    {
        return INT32_MAX;
    }
};
template <> struct fv_d_flt_top<uint64_t> {
    static __device__ __forceinline__ uint64_t v()
    {
        return UINT64_MAX;
    }
};
template <> struct fv_d_flt_top<int64_t> {
    static __device__ __forceinline__ int64_t v()
    {
        return INT64_MAX;
    }
};
template <> struct fv_d_flt_top<float> {
    static __device__ __forceinline__ float v()
    {
        return __int_as_float(0x7f800000);
    }
};
template <> struct fv_d_flt_top<double> {
    static __device__ __forceinline__ double v()
    {
        return __longlong_as_double(0x7ff0000000000000ll);
    }
};

/* Window element j of the point (inside: base + offset; else extended). */
template <typename T, typename IT>
__device__ __forceinline__ T
fv_d_flt_rank_val(const fv_cu_flt_ndargs<IT> &p, bool inside, const char *base, const IT *c, int64_t j, T cv)
{
    if (inside)
        return __ldg((const T *)(base + (IT)__ldg(p.t.off + j)));
    IT off;
    return fv_d_flt_nd_border(p.g, p.t.delta, j, c, p.mode, off) ? __ldg((const T *)(p.in + off)) : cv;
}

/* NaN fallback of the small kernels: scipy's buffer and quickselect. */
template <typename T, typename IT, int N>
__device__ __noinline__ double
fv_d_flt_rank_nan(const fv_cu_flt_ndargs<IT> &p, IT i, T cv)
{
    IT c[FV_MAX_NDIM], oi, oo;
    bool inside = fv_d_flt_nd_point(p.g, i, c, oi, oo);
    const char *base = p.in + oi;
    double buf[N];
    for (int64_t j = 0; j < p.count; j++)
        buf[j] = (double)fv_d_flt_rank_val<T, IT>(p, inside, base, c, j, cv);
    return fv_d_flt_select<double>(buf, 0, p.count - 1, p.rank);
}

/* count <= N: registers and a transposition network */
template <typename T, typename IT, int N>
__global__ void
__launch_bounds__(FV_CU_FLT_ND_THREADS) fv_k_flt_rank_small(fv_cu_flt_ndargs<IT> p)
{
    const T cv = fv_d_flt_to_in<T>(p.cval);
    const int count = (int)p.count, rank = (int)p.rank;
    for (IT i = (IT)(blockIdx.x * blockDim.x + threadIdx.x); i < p.g.size; i += (IT)(blockDim.x * gridDim.x)) {
        IT c[FV_MAX_NDIM], oi, oo;
        bool inside = fv_d_flt_nd_point(p.g, i, c, oi, oo);
        const char *base = p.in + oi;
        T v[N];
        bool nan = false;
#pragma unroll
        for (int j = 0; j < N; j++) {
            if (j < count) {
                v[j] = fv_d_flt_rank_val<T, IT>(p, inside, base, c, j, cv);
                if (fv_cu_flt_is_float<T>::value && v[j] != v[j])
                    nan = true;
            } else {
                v[j] = fv_d_flt_top<T>::v();
            }
        }
        double r;
        if (fv_cu_flt_is_float<T>::value && nan) {
            r = fv_d_flt_rank_nan<T, IT, N>(p, i, cv);
        } else {
#pragma unroll
            for (int round = 0; round < N; round++) {
#pragma unroll
                for (int k = round & 1; k + 1 < N; k += 2) {
                    T a = v[k], b = v[k + 1];
                    v[k] = b < a ? b : a;
                    v[k + 1] = b < a ? a : b;
                }
            }
            T s = v[0];
#pragma unroll
            for (int k = 1; k < N; k++)
                if (k == rank)
                    s = v[k];
            r = (double)s;
        }
        fv_d_flt_store_nd(p.out + oo, p.odt, fv_d_flt_back<T>(r));
    }
}


/* Batcher's odd-even merge sort of v[0..N) (N a power of 2), all indices known at
 * compile time so that v stays in registers. */
template <typename T, int N>
__device__ __forceinline__ void
fv_d_flt_batcher(T *v)
{
#pragma unroll
    for (int p = 1; p < N; p <<= 1) {
#pragma unroll
        for (int k = p; k >= 1; k >>= 1) {
#pragma unroll
            for (int j = k % p; j + k < N; j += 2 * k) {
#pragma unroll
                for (int i = 0; i < k; i++) {
                    if (i + j + k < N && (i + j) / (2 * p) == (i + j + k) / (2 * p)) {
                        T a = v[i + j], b = v[i + j + k];
                        v[i + j] = b < a ? b : a;
                        v[i + j + k] = b < a ? a : b;
                    }
                }
            }
        }
    }
}

/* 10..32 elements of float32 / 16-bit data: registers and a sorting network */
template <typename T, typename IT>
__global__ void
__launch_bounds__(FV_CU_FLT_ND_THREADS) fv_k_flt_rank_net32(fv_cu_flt_ndargs<IT> p)
{
    const T cv = fv_d_flt_to_in<T>(p.cval);
    const int count = (int)p.count, rank = (int)p.rank;
    for (IT i = (IT)(blockIdx.x * blockDim.x + threadIdx.x); i < p.g.size; i += (IT)(blockDim.x * gridDim.x)) {
        IT c[FV_MAX_NDIM], oi, oo;
        bool inside = fv_d_flt_nd_point(p.g, i, c, oi, oo);
        const char *base = p.in + oi;
        T v[32];
        bool nan = false;
#pragma unroll
        for (int j = 0; j < 32; j++) {
            if (j < count) {
                v[j] = fv_d_flt_rank_val<T, IT>(p, inside, base, c, j, cv);
                if (fv_cu_flt_is_float<T>::value && v[j] != v[j])
                    nan = true;
            } else {
                v[j] = fv_d_flt_top<T>::v();
            }
        }
        double r;
        if (fv_cu_flt_is_float<T>::value && nan) {
            r = fv_d_flt_rank_nan<T, IT, 32>(p, i, cv);
        } else {
            fv_d_flt_batcher<T, 32>(v);
            T s = v[0];
#pragma unroll
            for (int k = 1; k < 32; k++)
                if (k == rank)
                    s = v[k];
            r = (double)s;
        }
        fv_d_flt_store_nd(p.out + oo, p.odt, fv_d_flt_back<T>(r));
    }
}

/* 8-bit data, up to 255 elements: counting on the high, then the low nibble */
__device__ __forceinline__ void
fv_d_flt_nib_add(uint64_t &a, uint64_t &b, uint32_t d)
{
    if (d < 8)
        a += 1ull << (d * 8);
    else
        b += 1ull << ((d - 8) * 8);
}

__device__ __forceinline__ uint32_t
fv_d_flt_nib_find(uint64_t a, uint64_t b, int &r)
{
    uint32_t digit = 15;
    bool found = false;
#pragma unroll
    for (int d = 0; d < 16; d++) {
        int cnt = (int)(((d < 8 ? a >> (d * 8) : b >> ((d - 8) * 8))) & 255);
        if (!found) {
            if (r < cnt) {
                digit = (uint32_t)d;
                found = true;
            } else {
                r -= cnt;
            }
        }
    }
    return digit;
}

template <typename T, typename IT>
__global__ void
__launch_bounds__(FV_CU_FLT_ND_THREADS) fv_k_flt_rank_nib(fv_cu_flt_ndargs<IT> p)
{
    const T cv = fv_d_flt_to_in<T>(p.cval);
    const int64_t count = p.count;
    for (IT i = (IT)(blockIdx.x * blockDim.x + threadIdx.x); i < p.g.size; i += (IT)(blockDim.x * gridDim.x)) {
        IT c[FV_MAX_NDIM], oi, oo;
        bool inside = fv_d_flt_nd_point(p.g, i, c, oi, oo);
        const char *base = p.in + oi;
        uint64_t a = 0, b = 0;
        for (int64_t j = 0; j < count; j++)
            fv_d_flt_nib_add(a, b, fv_d_flt_key<T>::of(fv_d_flt_rank_val<T, IT>(p, inside, base, c, j, cv)) >> 4);
        int r = (int)p.rank;
        uint32_t hi = fv_d_flt_nib_find(a, b, r);
        a = b = 0;
        for (int64_t j = 0; j < count; j++) {
            uint32_t k = fv_d_flt_key<T>::of(fv_d_flt_rank_val<T, IT>(p, inside, base, c, j, cv));
            if ((k >> 4) == hi)
                fv_d_flt_nib_add(a, b, k & 15);
        }
        uint32_t lo = fv_d_flt_nib_find(a, b, r);
        fv_d_flt_store_nd(p.out + oo, p.odt, fv_d_flt_back<T>((double)fv_d_flt_key<T>::back((hi << 4) | lo)));
    }
}

/* count <= 64: scipy's quickselect per thread */
template <typename T>
__global__ void
__launch_bounds__(FV_CU_FLT_ND_THREADS) fv_k_flt_rank_mid(fv_cu_flt_ndargs<int64_t> p)
{
    const T cv = fv_d_flt_to_in<T>(p.cval);
    T buf[64];
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < p.g.size;
         i += (int64_t)blockDim.x * gridDim.x) {
        int64_t c[FV_MAX_NDIM], oi, oo;
        bool inside = fv_d_flt_nd_point(p.g, i, c, oi, oo);
        const char *base = p.in + oi;
        for (int64_t j = 0; j < p.count; j++)
            buf[j] = fv_d_flt_rank_val<T, int64_t>(p, inside, base, c, j, cv);
        fv_d_flt_store_nd(p.out + oo, p.odt, fv_d_flt_back<T>((double)fv_d_flt_select<T>(buf, 0, p.count - 1, p.rank)));
    }
}

/* larger windows: bitwise radix select on the keys */
template <typename T>
__global__ void
__launch_bounds__(FV_CU_FLT_ND_THREADS) fv_k_flt_rank_radix(fv_cu_flt_ndargs<int64_t> p)
{
    typedef typename fv_d_flt_key<T>::type K;
    const T cv = fv_d_flt_to_in<T>(p.cval);
    const int64_t count = p.count;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < p.g.size;
         i += (int64_t)blockDim.x * gridDim.x) {
        int64_t c[FV_MAX_NDIM], oi, oo;
        bool inside = fv_d_flt_nd_point(p.g, i, c, oi, oo);
        const char *base = p.in + oi;
        K kand = ~(K)0, kor = 0;
        bool nan = false;
        for (int64_t j = 0; j < count; j++) {
            T v = fv_d_flt_rank_val<T, int64_t>(p, inside, base, c, j, cv);
            if (fv_cu_flt_is_float<T>::value && v != v)
                nan = true;
            K k = fv_d_flt_key<T>::of(v);
            kand &= k;
            kor |= k;
        }
        if (nan) { /* the exact pass redoes this point */
            p.flags[i] = 1;
            continue;
        }
        K diff = kand ^ kor;
        K prefix = kand;
        if (diff) {
            int top = (int)(8 * sizeof(K)) - 1 - (sizeof(K) == 8 ? __clzll((long long)diff) : __clz((int)diff));
            K below = (top == (int)(8 * sizeof(K)) - 1) ? ~(K)0 : (((K)1 << (top + 1)) - 1);
            prefix = kand & ~below; /* the common high bits */
            int64_t r = p.rank;
            for (int b = top; b >= 0; b--) {
                K bit = (K)1 << b;
                K hi = ~(bit | (bit - 1)); /* bits above b */
                int64_t c0 = 0;
                for (int64_t j = 0; j < count; j++) {
                    K k = fv_d_flt_key<T>::of(fv_d_flt_rank_val<T, int64_t>(p, inside, base, c, j, cv));
                    c0 += ((k & hi) == prefix) & !(k & bit);
                }
                if (r >= c0) {
                    r -= c0;
                    prefix |= bit;
                }
            }
        }
        fv_d_flt_store_nd(p.out + oo, p.odt, fv_d_flt_back<T>((double)fv_d_flt_key<T>::back(prefix)));
    }
}

/* points flagged by fv_k_flt_rank_radix: scipy's quickselect in global scratch */
template <typename T>
__global__ void
__launch_bounds__(FV_CU_FLT_ND_THREADS) fv_k_flt_rank_exact(fv_cu_flt_ndargs<int64_t> p, double *scratch)
{
    const T cv = fv_d_flt_to_in<T>(p.cval);
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    double *buf = scratch + tid * p.count;
    for (int64_t i = tid; i < p.g.size; i += (int64_t)blockDim.x * gridDim.x) {
        if (!p.flags[i])
            continue;
        int64_t c[FV_MAX_NDIM], oi, oo;
        bool inside = fv_d_flt_nd_point(p.g, i, c, oi, oo);
        const char *base = p.in + oi;
        for (int64_t j = 0; j < p.count; j++)
            buf[j] = (double)fv_d_flt_rank_val<T, int64_t>(p, inside, base, c, j, cv);
        fv_d_flt_store_nd(p.out + oo, p.odt, fv_d_flt_back<T>(fv_d_flt_select<double>(buf, 0, p.count - 1, p.rank)));
    }
}

/* ---- host -------------------------------------------------------------------------- */

template <typename IT>
static void
fv_cu_flt_rank_args(fv_cu_flt_ndargs<IT> *p, const fv_cu_flt_ndjob *j)
{
    memset(p, 0, sizeof *p);
    p->in = j->in->data;
    p->out = j->out->data;
    fv_cu_flt_nd_pack(&p->g, j->prep, fv_array_size(j->out));
    p->t = j->tab;
    p->count = j->prep->count;
    p->rank = j->rank;
    p->mode = j->mode;
    p->odt = (int)j->out->dtype;
    p->cval = j->cval;
}

template <typename T, typename IT>
static fv_status
fv_cu_flt_rank_nib_launch(const fv_cu_flt_ndjob *j)
{
    fv_cu_flt_ndargs<IT> p;
    fv_cu_flt_rank_args(&p, j);
    fv_k_flt_rank_nib<T, IT>
        <<<fv_cu_flt_nd_grid(fv_array_size(j->out), j->device), FV_CU_FLT_ND_THREADS, 0, j->stream>>>(p);
    return fv_cu_launch_status("rank filter kernel launch");
}

/* the network kernel only for float32 and 16-bit data (compile time) */
template <typename T> struct fv_cu_flt_net_ok {
    static const bool value = false;
};
template <> struct fv_cu_flt_net_ok<float> {
    static const bool value = true;
};
template <> struct fv_cu_flt_net_ok<uint16_t> {
    static const bool value = true;
};
template <> struct fv_cu_flt_net_ok<int16_t> {
    static const bool value = true;
};
template <typename T, bool OK> struct fv_cu_flt_net_run {
    static fv_status run(const fv_cu_flt_ndjob *j)
    {
        return FV_ENOKERNEL;
    }
};
template <typename T> struct fv_cu_flt_net_run<T, true> {
    static fv_status run(const fv_cu_flt_ndjob *j)
    {
        fv_cu_flt_ndargs<int32_t> p;
        fv_cu_flt_rank_args(&p, j);
        fv_k_flt_rank_net32<T, int32_t>
            <<<fv_cu_flt_nd_grid(fv_array_size(j->out), j->device), FV_CU_FLT_ND_THREADS, 0, j->stream>>>(p);
        return fv_cu_launch_status("rank filter kernel launch");
    }
};
template <typename T> struct fv_cu_flt_nib_run {
    static fv_status run(const fv_cu_flt_ndjob *j)
    {
        return FV_ENOKERNEL;
    }
};
template <> struct fv_cu_flt_nib_run<uint8_t> {
    static fv_status run(const fv_cu_flt_ndjob *j)
    {
        return j->fits32 ? fv_cu_flt_rank_nib_launch<uint8_t, int32_t>(j)
                         : fv_cu_flt_rank_nib_launch<uint8_t, int64_t>(j);
    }
};
template <> struct fv_cu_flt_nib_run<int8_t> {
    static fv_status run(const fv_cu_flt_ndjob *j)
    {
        return j->fits32 ? fv_cu_flt_rank_nib_launch<int8_t, int32_t>(j)
                         : fv_cu_flt_rank_nib_launch<int8_t, int64_t>(j);
    }
};

template <typename T, typename IT, int N>
static fv_status
fv_cu_flt_rank_small_launch(const fv_cu_flt_ndjob *j)
{
    fv_cu_flt_ndargs<IT> p;
    fv_cu_flt_rank_args(&p, j);
    fv_k_flt_rank_small<T, IT, N>
        <<<fv_cu_flt_nd_grid(fv_array_size(j->out), j->device), FV_CU_FLT_ND_THREADS, 0, j->stream>>>(p);
    return fv_cu_launch_status("rank filter kernel launch");
}
template <typename T>
static fv_status
fv_cu_flt_rank_t(fv_cu_flt_ndjob *j)
{
    int64_t count = j->prep->count, npts = fv_array_size(j->out);
    unsigned grid = fv_cu_flt_nd_grid(npts, j->device);
    fv_status st = FV_OK;
    if (count <= 9 && j->fits32)
        return fv_cu_flt_rank_small_launch<T, int32_t, 9>(j);
    if (sizeof(T) == 1 && count <= 255)
        return fv_cu_flt_nib_run<T>::run(j);
    if (fv_cu_flt_net_ok<T>::value && count <= 32 && j->fits32)
        return fv_cu_flt_net_run<T, fv_cu_flt_net_ok<T>::value>::run(j);
    fv_cu_flt_ndargs<int64_t> p;
    fv_cu_flt_rank_args(&p, j);
    if (count <= 64) {
        fv_k_flt_rank_mid<T><<<grid, FV_CU_FLT_ND_THREADS, 0, j->stream>>>(p);
        return fv_cu_launch_status("rank filter kernel launch");
    }
    fv_array *flags = NULL, *scratch = NULL;
    int isf = fv_cu_flt_is_float<T>::value;
    if (isf) {
        if ((st = fv_cu_tmp_new(j->ctx, j->device, (size_t)npts, &flags)) != FV_OK)
            goto done;
        p.flags = (uint8_t *)flags->data;
        cudaError_t e = cudaMemsetAsync(p.flags, 0, (size_t)npts, j->stream);
        if (e != cudaSuccess) {
            st = fv__cuda_error("cudaMemsetAsync", e);
            goto done;
        }
    }
    fv_k_flt_rank_radix<T><<<grid, FV_CU_FLT_ND_THREADS, 0, j->stream>>>(p);
    if ((st = fv_cu_launch_status("rank filter kernel launch")) != FV_OK || !isf)
        goto done;
    {
        int64_t per = count * (int64_t)sizeof(double);
        const int64_t threads = fv_cu_flt_ring_threads(per, npts);
        if ((st = fv_cu_tmp_new(j->ctx, j->device, (size_t)(threads * per), &scratch)) != FV_OK)
            goto done;
        int block = threads < FV_CU_FLT_ND_THREADS ? (int)threads : FV_CU_FLT_ND_THREADS;
        fv_k_flt_rank_exact<T><<<(unsigned)(threads / block), block, 0, j->stream>>>(p, (double *)scratch->data);
        st = fv_cu_launch_status("rank filter kernel launch");
    }
done:
    fv_cu_tmp_release(j->ctx, scratch);
    fv_cu_tmp_release(j->ctx, flags);
    return st;
}

fv_status
fv_cu_flt_rank_run(fv_cu_flt_ndjob *j)
{
    FV_CU_FLT_SWITCH_IN(j->in->dtype, fv_cu_flt_rank_t<T>(j))
    return fv_error_set(FV_EDTYPE, "filter", "no CUDA kernel for %s", fv_dtype_name(j->in->dtype));
}
