/* Helpers shared by the CUDA filter kernels (filter1d.cu, filternd*.cu).
 *
 * Value rules (scipy.ndimage 1.17 on x86-64, measured there):
 *  - a result (double, or float for float32 outputs of the float paths) is
 *    stored the way scipy's C casts do: bool, (u)int8, (u)int16 and int32 take
 *    a 32-bit truncation (INT32_MIN outside the int32 range and for NaN) and
 *    keep the low bits; uint32 and int64 a 64-bit truncation (INT64_MIN
 *    outside); uint64 the compiler's unsigned sequence. bool outputs stay 0/1:
 *    (the low byte scipy would store) != 0.
 *  - where scipy converts a double to the input type (cval and structure values
 *    of the n-d min/max and rank filters) the same casts apply (fv_d_flt_to_in).
 * bool data is handled as uint8 (one byte, same arithmetic and casts). */
#ifndef FV_CUDA_FILTERS_COMMON_CUH
#define FV_CUDA_FILTERS_COMMON_CUH

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "cuda/common.cuh"
#include "ops/filters/filter1d.h"
#include "ops/filters/sep2.h"
#include "ops/filters/filternd.h"
#include "ops/filters/ndimage-math.h"

#include "cuda/filters/filters-cast.cuh"

/* ---- arithmetic in the accumulator type ---------------------------------------
 * double: rounded separately, never fused, so that sums match scipy's bit for bit;
 * float (float32 outputs only): the compiler may fuse. */
__device__ __forceinline__ double
fv_d_flt_add(double a, double b)
{
    return __dadd_rn(a, b);
}
__device__ __forceinline__ double
fv_d_flt_sub(double a, double b)
{
    return __dsub_rn(a, b);
}
__device__ __forceinline__ double
fv_d_flt_mul(double a, double b)
{
    return __dmul_rn(a, b);
}
__device__ __forceinline__ float
fv_d_flt_add(float a, float b)
{
    return a + b;
}
__device__ __forceinline__ float
fv_d_flt_sub(float a, float b)
{
    return a - b;
}
__device__ __forceinline__ float
fv_d_flt_mul(float a, float b)
{
    return a * b;
}

/* ---- the sliding window of the 1-D tile kernels (filter1d.cu's fv_k_flt_tile2 and
 * filter-sep2.cu's fused pair) ------------------------------------------------
 * Kinds: general correlation, symmetric / antisymmetric taps, uniform sum,
 * minimum, maximum. Arithmetic spelt out: double rounded step by step (scipy's
 * bits); float (float32 outputs) the first product alone, then one fused
 * multiply-add per tap. */
enum {
    FV_CU_WIN_AUTO = -1,
    FV_CU_WIN_CORR = 0,
    FV_CU_WIN_SYM,
    FV_CU_WIN_ANTI,
    FV_CU_WIN_USUM,
    FV_CU_WIN_MIN,
    FV_CU_WIN_MAX
}; /* AUTO: device weights, classified there */

__device__ __forceinline__ double
fv_d_win_mul(double a, double b)
{
    return __dmul_rn(a, b);
}
__device__ __forceinline__ double
fv_d_win_madd(double acc, double x, double w)
{
    return __dadd_rn(acc, __dmul_rn(x, w));
}
__device__ __forceinline__ double
fv_d_win_add(double a, double b)
{
    return __dadd_rn(a, b);
}
__device__ __forceinline__ double
fv_d_win_sub(double a, double b)
{
    return __dsub_rn(a, b);
}
__device__ __forceinline__ float
fv_d_win_mul(float a, float b)
{
    return __fmul_rn(a, b);
}
__device__ __forceinline__ float
fv_d_win_madd(float acc, float x, float w)
{
    return __fmaf_rn(x, w, acc);
}
__device__ __forceinline__ float
fv_d_win_add(float a, float b)
{
    return __fadd_rn(a, b);
}
__device__ __forceinline__ float
fv_d_win_sub(float a, float b)
{
    return __fsub_rn(a, b);
}

/* min/max of an earlier and a later value; ties (and -0 vs 0) go to the later  */
template <typename ACC>
__device__ __forceinline__ ACC
fv_d_win_comb(ACC earlier, ACC later, bool mn)
{
    return (mn ? later <= earlier : later >= earlier) ? later : earlier;
}

/* The value the loads track in float data: NaN for min/max (x != x), NaN or
 * inf for uniform sums (x - x != 0); lines holding one are redone serially. */
template <typename ACC>
__device__ __forceinline__ bool
fv_d_win_odd(ACC x, bool us)
{
    return us ? !(x - x == (ACC)0) : x != x;
}

/* t / d for 0 <= t < 2^16 and 1 <= d <= 2^10, from inv = 1.0f / d: (t + 0.5) / d
 * is at least 0.5 / d away from an integer, far beyond float's error here. */
__device__ __forceinline__ int
fv_d_win_div(int t, float inv)
{
    return (int)(((float)t + 0.5f) * inv);
}

/* Outputs per thread and slide: 8 in float, 4 in double (registers). */
template <typename ACC> struct fv_d_win_r {
    static const int value = sizeof(ACC) == 4 ? 8 : 4;
};

/* R outputs from x[0], x[st], ...: output k is the window x[k*st .. (k + size - 1)*st],
 * summed in filter1d's fv_k_flt_tile2 order. Reads up to x[(R + size - 1) * st].
 * One body per kind (the kind is uniform: the switch is taken once per call);
 * the tap loops are unrolled by R, so that the sliding registers are renamed,
 * not moved (after R taps every register holds a fresh value). S > 0: the
 * window size is S at compile time (size is ignored); the tap loops are then
 * unrolled whole, and with a constant st every shared load has a constant
 * offset and is made once (the slide's repeated reads fold together). */
template <typename ACC, int KIND, int R, int S = 0>
__device__ __forceinline__ void
fv_d_win_slide_k(const ACC *x, int st, const ACC *w, int size_rt, ACC (&acc)[R])
{
    const int size = S > 0 ? S : size_rt;
    ACC v[R];
    if (KIND == FV_CU_WIN_SYM || KIND == FV_CU_WIN_ANTI) {
        const int s1 = size >> 1;
        ACC vr[R];
#pragma unroll
        for (int k = 0; k < R; k++) {
            acc[k] = fv_d_win_mul(x[(k + s1) * st], w[s1]);
            v[k] = x[k * st];
            vr[k] = x[(k + size - 1) * st];
        }
#pragma unroll(S > 0 ? 64 : R)
        for (int j = 0; j < s1; j++) {
            const ACC wj = w[j];
#pragma unroll
            for (int k = 0; k < R; k++)
                acc[k] = fv_d_win_madd(
                    acc[k], KIND == FV_CU_WIN_SYM ? fv_d_win_add(v[k], vr[k]) : fv_d_win_sub(v[k], vr[k]), wj);
#pragma unroll
            for (int k = 0; k < R - 1; k++)
                v[k] = v[k + 1];
#pragma unroll
            for (int k = R - 1; k > 0; k--)
                vr[k] = vr[k - 1];
            v[R - 1] = x[(R + j) * st];
            vr[0] = x[(size - 2 - j) * st];
        }
    } else if (KIND == FV_CU_WIN_CORR) {
        const ACC wl = w[size - 1];
#pragma unroll
        for (int k = 0; k < R; k++) {
            acc[k] = fv_d_win_mul(x[(k + size - 1) * st], wl);
            v[k] = x[k * st];
        }
#pragma unroll(S > 0 ? 64 : R)
        for (int j = 0; j < size - 1; j++) {
            const ACC wj = w[j];
#pragma unroll
            for (int k = 0; k < R; k++)
                acc[k] = fv_d_win_madd(acc[k], v[k], wj);
#pragma unroll
            for (int k = 0; k < R - 1; k++)
                v[k] = v[k + 1];
            v[R - 1] = x[(R + j) * st];
        }
    } else { /* uniform sum, min, max: element 0 first, then 1, 2, ... */
#pragma unroll
        for (int k = 0; k < R; k++) {
            acc[k] = x[k * st];
            v[k] = x[(k + 1) * st];
        }
#pragma unroll(S > 0 ? 64 : R)
        for (int j = 1; j < size; j++) {
#pragma unroll
            for (int k = 0; k < R; k++)
                acc[k] = KIND == FV_CU_WIN_USUM ? fv_d_win_add(acc[k], v[k])
                                                : fv_d_win_comb(acc[k], v[k], KIND == FV_CU_WIN_MIN);
#pragma unroll
            for (int k = 0; k < R - 1; k++)
                v[k] = v[k + 1];
            v[R - 1] = x[(R + j) * st];
        }
        if (KIND == FV_CU_WIN_USUM) {
#pragma unroll
            for (int k = 0; k < R; k++)
                acc[k] = acc[k] / (ACC)size;
        }
    }
}

template <typename ACC, int R, int S = 0>
__device__ __forceinline__ void
fv_d_win_slide(const ACC *x, int st, const ACC *w, int kind, int size, ACC (&acc)[R])
{
    switch (kind) {
    case FV_CU_WIN_SYM:
        fv_d_win_slide_k<ACC, FV_CU_WIN_SYM, R, S>(x, st, w, size, acc);
        break;
    case FV_CU_WIN_ANTI:
        fv_d_win_slide_k<ACC, FV_CU_WIN_ANTI, R, S>(x, st, w, size, acc);
        break;
    case FV_CU_WIN_CORR:
        fv_d_win_slide_k<ACC, FV_CU_WIN_CORR, R, S>(x, st, w, size, acc);
        break;
    case FV_CU_WIN_USUM:
        fv_d_win_slide_k<ACC, FV_CU_WIN_USUM, R, S>(x, st, w, size, acc);
        break;
    case FV_CU_WIN_MIN:
        fv_d_win_slide_k<ACC, FV_CU_WIN_MIN, R, S>(x, st, w, size, acc);
        break;
    default:
        fv_d_win_slide_k<ACC, FV_CU_WIN_MAX, R, S>(x, st, w, size, acc);
        break;
    }
}

/* ---- checked float sums of 8-bit data into integer outputs ---------------------
 * scipy sums in double and truncates. With 8-bit data every value is a float, and
 * a float sum differs from scipy's double one by at most e (fv_cu_flt_float_checked):
 * where [v - e, v + e] truncates to one integer, that is scipy's result; the few
 * outputs within e of an integer are summed again in double, in scipy's order,
 * from the (exact) float values. Results stay integers held in float (|v| < 2^21). */
template <typename F>
__device__ __forceinline__ double
fv_d_win_sum_d(F X, const double *w, int64_t wst, int kind, int size) /* the window's value j is X(j) */
{
    double t;
    if (kind == FV_CU_WIN_CORR) {
        t = __dmul_rn(X(size - 1), w[(size - 1) * wst]);
#pragma unroll 8 /* the loads and products of 8 taps in flight: only the sums wait on each other */
        for (int j = 0; j < size - 1; j++)
            t = __dadd_rn(t, __dmul_rn(X(j), w[j * wst]));
        return t;
    }
    const int s1 = size >> 1;
    t = __dmul_rn(X(s1), w[s1 * wst]);
#pragma unroll 8
    for (int j = 0; j < s1; j++) {
        const double a = X(j), b = X(size - 1 - j);
        t = __dadd_rn(t, __dmul_rn(kind == FV_CU_WIN_SYM ? __dadd_rn(a, b) : __dsub_rn(a, b), w[j * wst]));
    }
    return t;
}

static __device__ __noinline__ double
fv_d_win_window_d(const float *x, int st, const double *w, int kind, int size)
{
    return fv_d_win_sum_d([&](int j) -> double { return (double)x[j * st]; }, w, 1, kind, size);
}

/* fv_d_win_check's test of a float sum v: within e of a non-zero integer (all: of any) */
__device__ __forceinline__ bool
fv_d_win_uncertain(float v, float e, bool all)
{
    const float n = __fsub_rn(__fadd_rn(v, 12582912.0f), 12582912.0f);
    return (n != 0.0f || all) && !(fabsf(__fsub_rn(v, n)) > e);
}

/* Truncation changes only at the non-zero integers, so [v - e, v + e] (e < 1/2)
 * truncates to one value unless v's nearest integer n is not 0 and |v - n| <= e.
 * n = rint(v) by the 1.5 * 2^23 addition (|v| <= 2^21: exact, and never folded:
 * the _rn intrinsics). acc[m][k] is output a0 + 8 R m + k of the line at x
 * (stride st; a0 = the warp's first), for 8 R m + a0 < ta. The uncertain ones
 * are summed again in one divergent branch (a tile's worth per thread). e = +inf
 * (device weights the bound does not hold for, fv_d_win_chk_dev) sums every output
 * again. */
template <int M, int R>
__device__ __forceinline__ void
fv_d_win_check(float (&acc)[M][R], const float *x, int st, int a0, int ta, const double *wd, int kind, int size,
               float e)
{
    unsigned bad = 0;
    const bool all = e > 1.0f; /* +inf (fv_d_win_chk_dev): weights the bound does not hold for */
#pragma unroll
    for (int m = 0; m < M; m++) {
        if (8 * R * m + a0 >= ta)
            break;
#pragma unroll
        for (int k = 0; k < R; k++)
            if (fv_d_win_uncertain(acc[m][k], e, all))
                bad |= 1u << (m * R + k);
    }
    if (bad) {
#pragma unroll
        for (int m = 0; m < M; m++)
#pragma unroll
            for (int k = 0; k < R; k++)
                if (bad >> (m * R + k) & 1u) {
                    const int32_t r = fv__cvt32(fv_d_win_window_d(x + (8 * R * m + a0 + k) * st, st, wd, kind, size));
                    /* all: results of any size, kept to the low 16 bits that 8/16-bit and bool
                     * outputs store (the host allows no other outputs there) */
                    acc[m][k] = all ? (float)(int16_t)r : (float)r;
                }
    }
}

/* double sums need no check */
template <int M, int R>
__device__ __forceinline__ void
fv_d_win_check(double (&acc)[M][R], const double *x, int st, int a0, int ta, const double *wd, int kind, int size,
               float e)
{
}

/* ---- boundary extension in the kernel's index type (fv__extend_index) ---------- */
template <typename IT>
__device__ __forceinline__ IT
fv_d_flt_extend(IT i, IT n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case FV_MODE_REFLECT: {
        IT p = 2 * n;
        i %= p;
        if (i < 0)
            i += p;
        return i < n ? i : p - 1 - i;
    }
    case FV_MODE_NEAREST:
        return i < 0 ? 0 : n - 1;
    case FV_MODE_MIRROR: {
        if (n == 1)
            return 0;
        IT p = 2 * n - 2;
        i %= p;
        if (i < 0)
            i += p;
        return i < n ? i : p - i;
    }
    case FV_MODE_WRAP:
        i %= n;
        return i < 0 ? i + n : i;
    default:
        return -1;
    }
}

/* ---- host helpers ------------------------------------------------------------- */

/* float accumulation is allowed for float32 outputs of data that float holds exactly */
static inline int
fv_cu_flt_acc_float(fv_dtype in, fv_dtype out)
{
    return out == FV_FLOAT32 &&
        (in == FV_FLOAT32 || in == FV_UINT8 || in == FV_INT8 || in == FV_UINT16 || in == FV_INT16 || in == FV_BOOL);
}

/* The largest |value| of 8/16-bit integer or bool data (bool as its byte), 0 for
 * other dtypes. */
static inline double
fv_cu_flt_data_vmax(fv_dtype in)
{
    switch (in) {
    case FV_BOOL:
    case FV_UINT8:
        return 255.0;
    case FV_INT8:
        return 128.0;
    case FV_UINT16:
        return 65535.0;
    case FV_INT16:
        return 32768.0;
    default:
        return 0.0;
    }
}

/* 1 when the float accumulator gives the double kernel's result exactly, for any
 * output dtype the kind allows (so that integer outputs keep scipy's bits): 8/16-bit
 * integer or bool data (in), and
 *  - minimum / maximum: a cval that float holds (comparisons of exact values);
 *  - correlation: weights that are integers times 2^-k (k <= 24) with
 *    2^k sum |w| * vmax < 2^24 (vmax: the largest |value|, an integral cval
 *    included): every product and partial sum, FMA or not, is then a float;
 *  - uniform sum, into integer or bool outputs: size * vmax < 2^24 and an
 *    integral cval: the sum s is exact, and fl(s / size) truncates as s / size
 *    does (where size does not divide s, s / size lies >= 1 / size from every
 *    integer, and the float quotient is off by at most 2^-24 vmax < 1 / size). */
static inline int
fv_cu_flt_float_exact(fv_dtype in, fv_dtype out, int kind, const double *w, int64_t size, int mode, double cval)
{
    const double two24 = 16777216.0;
    double vmax = fv_cu_flt_data_vmax(in);
    if (vmax == 0.0)
        return 0;
    const int cmode = mode == FV_MODE_CONSTANT;
    if (kind == FV_CU_WIN_MIN || kind == FV_CU_WIN_MAX)
        return !cmode || (double)(float)cval == cval;
    if (cmode) {
        if (!(cval == floor(cval)) || fabs(cval) > two24)
            return 0;
        if (fabs(cval) > vmax)
            vmax = fabs(cval);
    }
    if (size < 1)
        return 0;
    if (kind == FV_CU_WIN_USUM)
        return (fv_dtype_is_integer(out) || out == FV_BOOL) && (double)size * vmax < two24;
    if (!w)
        return 0;
    for (int k = 0; k <= 24; k++) {
        double sum = 0.0;
        int ok = 1;
        for (int64_t i = 0; i < size && ok; i++) {
            const double v = ldexp(w[i], k);
            ok = isfinite(v) && v == floor(v);
            sum += fabs(v);
        }
        if (ok)
            return sum * vmax < two24;
    }
    return 0;
}

/* The bound e of the checked float path (fv_d_win_check) for correlation weights w,
 * or 0 where the path does not apply. It applies to 8-bit (and bool) data into
 * outputs stored through a 32-bit truncation, with finite weights, in constant
 * mode a cval that float holds (with data values: exactly, for the pair sums of
 * symmetric weights), sum |w| * vmax <= 2^21, and e <= 1/16 (beyond that too many
 * outputs would be summed twice). With n roundings in float (the first product
 * and one fused multiply-add per term; the pair sums of symmetric weights are
 * exact) and the weights rounded to float, |float sum - exact| <=
 * ((n + 1) u + O(u^2)) W vmax with u = 2^-24 and W = the sum of |weights| the
 * sum uses; scipy's double sum is within 2n 2^-53 W vmax of exact. e covers both
 * with a margin. */
/* The part of fv_cu_flt_float_checked that does not look at the weights: the vmax its
 * bound uses, or 0 where the path does not apply. */
static inline double
fv_cu_flt_checked_vmax(fv_dtype in, fv_dtype out, int kind, int64_t size, int mode, double cval)
{
    double vmax = fv_cu_flt_data_vmax(in);
    if (vmax == 0.0 || vmax > 255.0) /* 8-bit data only */
        return 0.0;
    switch (out) {
    case FV_BOOL:
    case FV_UINT8:
    case FV_INT8:
    case FV_UINT16:
    case FV_INT16:
    case FV_INT32:
        break;
    default:
        return 0.0;
    }
    if (size < 1 || size > 4096 ||
        (kind != FV_CU_WIN_CORR && kind != FV_CU_WIN_SYM && kind != FV_CU_WIN_ANTI && kind != FV_CU_WIN_AUTO))
        return 0.0;
    if (mode == FV_MODE_CONSTANT) {
        /* cval takes part in the sums: a float, and (symmetric / antisymmetric
         * weights) its pair sums with data values exact in float, as the bound
         * assumes: cval = m 2^-k with (vmax + |cval|) 2^k <= 2^24 */
        int k = 0;
        while (k <= 24 && ldexp(cval, k) != floor(ldexp(cval, k)))
            k++;
        if (!isfinite(cval) || k > 24 || (double)(float)cval != cval || ldexp(vmax + fabs(cval), k) > 16777216.0)
            return 0.0;
        if (fabs(cval) > vmax)
            vmax = fabs(cval);
    }
    return vmax;
}

/* The bound from W (the sum of |weights| the sum uses), n (its roundings) and
 * vmax; 0 where W * vmax > 2^21 or e > 1/16. Rounded up to float. */
__host__ __device__ static inline float
fv_d_flt_checked_bound(double W, double n, double vmax)
{
    if (!(W * vmax <= 2097152.0))
        return 0.0f;
    const double e = ((n + 2.0) * 0x1p-24 + (2.0 * n + 2.0) * 0x1p-53) * 1.001 * W * vmax;
    if (e > 0.0625)
        return 0.0f;
#ifdef __CUDA_ARCH__
    float ef = __double2float_ru(e);
#else
    float ef = (float)e;
    if ((double)ef < e)
        ef = nextafterf(ef, INFINITY);
#endif
    return ef > 0.0f ? ef : FLT_MIN;
}

static inline float
fv_cu_flt_float_checked(fv_dtype in, fv_dtype out, int kind, const double *w, int64_t size, int mode, double cval)
{
    const double vmax = fv_cu_flt_checked_vmax(in, out, kind, size, mode, cval);
    if (vmax == 0.0 || !w || kind == FV_CU_WIN_AUTO)
        return 0.0f;
    double W = 0.0, n;
    for (int64_t i = 0; i < size; i++)
        if (!isfinite(w[i]))
            return 0.0f;
    if (kind == FV_CU_WIN_CORR) {
        for (int64_t i = 0; i < size; i++)
            W += fabs(w[i]);
        n = (double)size;
    } else {
        const int64_t s1 = size / 2;
        W = fabs(w[s1]);
        for (int64_t i = 0; i < s1; i++)
            W += 2.0 * fabs(w[i]);
        n = (double)(s1 + 1);
    }
    return fv_d_flt_checked_bound(W, n, vmax);
}

/* The accumulator of one 1-D pass of data that float does not always hold
 * ("cuda.filter1d.acc", filter1d.cu; the fused kernels of filter-sep2.cu follow
 * the same choice so that their bits stay filter1d's): 0 "float_exact", float
 * sums where they are exact (fv_cu_flt_float_exact); 1 "float_checked", float sums
 * checked against a bound, the uncertain outputs again in double (*chk: the
 * bound, negative for device weights: fv_cu_flt_checked_vmax); 2 "double". */
typedef struct fv_cu_flt_accplan {
    fv_dtype in, out;
    int kind;
    const double *w;
    int64_t size;
    int mode;
    double cval;
} fv_cu_flt_accplan;
int fv_cu_flt_acc_plan(const fv_cu_flt_accplan *pa, int device, float *chk);

/* ---- correlation weights on the device (FV__F1D_CORRELATE's dweights) ----------
 * The host never sees them: the kernels classify them (FV_CU_WIN_AUTO) and bound the
 * checked float path's error themselves, every warp on its own (block-uniform
 * results, no barrier). All 32 lanes of the warp take part. */

/* scipy's symmetry test (fv__ni_symmetry) of w[0], w[st], ... (size values): FV_CU_WIN_SYM,
 * FV_CU_WIN_ANTI or FV_CU_WIN_CORR */
__device__ __forceinline__ int
fv_d_win_kind_dev(const double *w, int64_t st, int size)
{
    if (!(size & 1))
        return FV_CU_WIN_CORR;
    const int s1 = size >> 1, lane = threadIdx.x & 31;
    bool sym = true, anti = true;
    for (int i = 1 + lane; i <= s1; i += 32) {
        const double a = __ldg(w + (s1 + i) * st), b = __ldg(w + (s1 - i) * st);
        sym = sym && !(fabs(a - b) > DBL_EPSILON);
        anti = anti && !(fabs(a + b) > DBL_EPSILON);
    }
    sym = __all_sync(0xffffffffu, sym);
    anti = __all_sync(0xffffffffu, anti);
    return sym ? FV_CU_WIN_SYM : anti ? FV_CU_WIN_ANTI : FV_CU_WIN_CORR;
}

/* fv_cu_flt_float_checked's bound for device weights of a resolved kind, with the
 * host's vmax (fv_cu_flt_checked_vmax); where the path does not apply, +inf: fv_d_win_check
 * then sums every output again in double. */
__device__ __forceinline__ float
fv_d_win_chk_dev(const double *w, int64_t st, int size, int kind, double vmax)
{
    const int lane = threadIdx.x & 31, s1 = size >> 1;
    double W = 0.0;
    bool fin = true;
    for (int i = lane; i < size; i += 32) {
        const double v = __ldg(w + i * st);
        fin = fin && isfinite(v);
        W += kind == FV_CU_WIN_CORR ? fabs(v) : i < s1 ? 2.0 * fabs(v) : i == s1 ? fabs(v) : 0.0;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        W += __shfl_xor_sync(0xffffffffu, W, o);
    fin = __all_sync(0xffffffffu, fin);
    const float e =
        fin ? fv_d_flt_checked_bound(W, kind == FV_CU_WIN_CORR ? (double)size : (double)(s1 + 1), vmax) : 0.0f;
    return e > 0.0f ? e : __int_as_float(0x7f800000);
}

/* 1 when data and strides of a are multiples of its element size */
static inline int
fv_cu_flt_aligned(const fv_array *a)
{
    int64_t isz = (int64_t)fv_dtype_size(a->dtype);
    if ((uintptr_t)a->data % (uintptr_t)isz)
        return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] > 1 && a->strides[d] % isz)
            return 0;
    return 1;
}

/* Byte extent max(|lowest|, |highest|) of a's elements around data. */
static inline int64_t
fv_cu_flt_extent(const fv_array *a)
{
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] <= 1)
            continue;
        int64_t span = (a->shape[d] - 1) * a->strides[d];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    hi += (int64_t)fv_dtype_size(a->dtype);
    return hi > -lo ? hi : -lo;
}

/* Threads of a redo pass with per bytes of scratch each over n items (scipy's
 * serial algorithms on flagged lines or points): bounded concurrency, 64 MiB of
 * scratch in all, at most 32768 threads, whole warps, no more than n needs. */
static inline int64_t
fv_cu_flt_ring_threads(int64_t per, int64_t n)
{
    int64_t threads = ((int64_t)64 << 20) / per;
    if (threads > 32768)
        threads = 32768;
    if (threads > n)
        threads = n;
    threads = (threads + 31) / 32 * 32;
    if (threads < 32)
        threads = 32;
    return threads;
}

/* the shared memory a block may opt in to on the device (48 KiB where the
 * attribute cannot be read) */
static inline size_t
fv_cu_flt_smem_optin(int device)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess || v <= 0) {
        (void)cudaGetLastError();
        v = 48 * 1024;
    }
    return (size_t)v;
}

/* Set the dynamic shared memory limit of a kernel when it needs more than 48 KiB. */
template <typename K>
static inline fv_status
fv_cu_flt_smem_attr(K kernel, size_t bytes)
{
    if (bytes <= 48 * 1024)
        return FV_OK;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    return e == cudaSuccess ? FV_OK : fv__cuda_error("cudaFuncSetAttribute", e);
}

/* Dispatch on the input dtype: F is a template functor with
 * `template <typename T> fv_status run(...)`. bool runs as uint8. */
#define FV_CU_FLT_SWITCH_IN(DT, CALL) \
    switch (DT) {                     \
    case FV_BOOL:                     \
    case FV_UINT8: {                  \
        typedef uint8_t T;            \
        return CALL;                  \
    }                                 \
    case FV_INT8: {                   \
        typedef int8_t T;             \
        return CALL;                  \
    }                                 \
    case FV_UINT16: {                 \
        typedef uint16_t T;           \
        return CALL;                  \
    }                                 \
    case FV_INT16: {                  \
        typedef int16_t T;            \
        return CALL;                  \
    }                                 \
    case FV_UINT32: {                 \
        typedef uint32_t T;           \
        return CALL;                  \
    }                                 \
    case FV_INT32: {                  \
        typedef int32_t T;            \
        return CALL;                  \
    }                                 \
    case FV_UINT64: {                 \
        typedef uint64_t T;           \
        return CALL;                  \
    }                                 \
    case FV_INT64: {                  \
        typedef int64_t T;            \
        return CALL;                  \
    }                                 \
    case FV_FLOAT32: {                \
        typedef float T;              \
        return CALL;                  \
    }                                 \
    case FV_FLOAT64: {                \
        typedef double T;             \
        return CALL;                  \
    }                                 \
    default:                          \
        break;                        \
    }

/* 8/16-bit integer and float32 data: where float accumulation exists (filter1d,
 * the n-d correlation's kernels) and the tiled rank kernels' dtypes (compile time) */
template <typename T> struct fv_cu_flt_small {
    static const bool value = false;
};
template <> struct fv_cu_flt_small<uint8_t> {
    static const bool value = true;
};
template <> struct fv_cu_flt_small<int8_t> {
    static const bool value = true;
};
template <> struct fv_cu_flt_small<uint16_t> {
    static const bool value = true;
};
template <> struct fv_cu_flt_small<int16_t> {
    static const bool value = true;
};
template <> struct fv_cu_flt_small<float> {
    static const bool value = true;
};

template <typename T> struct fv_cu_flt_is_float {
    static const bool value = false;
};
template <> struct fv_cu_flt_is_float<float> {
    static const bool value = true;
};
template <> struct fv_cu_flt_is_float<double> {
    static const bool value = true;
};

#endif
