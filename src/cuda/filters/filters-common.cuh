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
 *    of the n-d min/max and rank filters) the same casts apply (fvf_to_in).
 * bool data is handled as uint8 (one byte, same arithmetic and casts). */
#ifndef FV_CUDA_FILTERS_COMMON_CUH
#define FV_CUDA_FILTERS_COMMON_CUH

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "cuda/common.cuh"
#include "ndimage.h"

/* ---- casts ------------------------------------------------------------------ */

FV_HD int32_t
fvf_cvt32(double x)
{
    return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}

FV_HD int64_t
fvf_cvt64(double x)
{
    return (x > -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}

FV_HD uint64_t
fvf_cvtu64(double x)
{
    if (!(x >= 9223372036854775808.0))
        return (uint64_t)fvf_cvt64(x);
    return (uint64_t)fvf_cvt64(x - 9223372036854775808.0) ^ 0x8000000000000000ull;
}

/* The C cast double -> T that scipy applies (bool: the raw low byte, as uint8). */
template <typename T> __host__ __device__ __forceinline__ T fvf_to_in(double x);
template <> __host__ __device__ __forceinline__ uint8_t fvf_to_in<uint8_t>(double x) { return (uint8_t)fvf_cvt32(x); }
template <> __host__ __device__ __forceinline__ int8_t fvf_to_in<int8_t>(double x) { return (int8_t)fvf_cvt32(x); }
template <> __host__ __device__ __forceinline__ uint16_t fvf_to_in<uint16_t>(double x) { return (uint16_t)fvf_cvt32(x); }
template <> __host__ __device__ __forceinline__ int16_t fvf_to_in<int16_t>(double x) { return (int16_t)fvf_cvt32(x); }
template <> __host__ __device__ __forceinline__ int32_t fvf_to_in<int32_t>(double x) { return fvf_cvt32(x); }
template <> __host__ __device__ __forceinline__ uint32_t fvf_to_in<uint32_t>(double x) { return (uint32_t)fvf_cvt64(x); }
template <> __host__ __device__ __forceinline__ int64_t fvf_to_in<int64_t>(double x) { return fvf_cvt64(x); }
template <> __host__ __device__ __forceinline__ uint64_t fvf_to_in<uint64_t>(double x) { return fvf_cvtu64(x); }
template <> __host__ __device__ __forceinline__ float fvf_to_in<float>(double x) { return (float)x; }
template <> __host__ __device__ __forceinline__ double fvf_to_in<double>(double x) { return x; }

/* Store a double result into an element of dtype odt. */
__device__ __forceinline__ void
fvf_store(char *p, int odt, double v)
{
    switch (odt) {
    case FV_BOOL: *(uint8_t *)p = (uint8_t)((uint8_t)fvf_cvt32(v) != 0); break;
    case FV_UINT8: *(uint8_t *)p = (uint8_t)fvf_cvt32(v); break;
    case FV_INT8: *(int8_t *)p = (int8_t)fvf_cvt32(v); break;
    case FV_UINT16: *(uint16_t *)p = (uint16_t)fvf_cvt32(v); break;
    case FV_INT16: *(int16_t *)p = (int16_t)fvf_cvt32(v); break;
    case FV_INT32: *(int32_t *)p = fvf_cvt32(v); break;
    case FV_UINT32: *(uint32_t *)p = (uint32_t)fvf_cvt64(v); break;
    case FV_INT64: *(int64_t *)p = fvf_cvt64(v); break;
    case FV_UINT64: *(uint64_t *)p = fvf_cvtu64(v); break;
    case FV_FLOAT32: *(float *)p = (float)v; break;
    default: *(double *)p = v; break;
    }
}

/* The n-d filters' store (scipy's ni_filters.c): the same, except into uint64
 * below -2^63, where scipy's compiled cast negates the conversion of -v. */
__device__ __forceinline__ void
fvf_store_nd(char *p, int odt, double v)
{
    if (odt == FV_UINT64 && v < 0)
        *(uint64_t *)p = (uint64_t)0 - fvf_cvtu64(-v);
    else
        fvf_store(p, odt, v);
}

__device__ __forceinline__ void
fvf_store_nd(char *p, int odt, float v)
{
    fvf_store(p, odt, v);
}

/* The float paths exist only for float32 outputs. */
__device__ __forceinline__ void
fvf_store(char *p, int odt, float v)
{
    if (odt == FV_FLOAT32)
        *(float *)p = v;
    else
        fvf_store(p, odt, (double)v);
}

/* ---- arithmetic in the accumulator type ---------------------------------------
 * double: rounded separately, never fused, so that sums match scipy's bit for bit;
 * float (float32 outputs only): the compiler may fuse. */
__device__ __forceinline__ double fvf_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double fvf_sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ double fvf_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float fvf_add(float a, float b) { return a + b; }
__device__ __forceinline__ float fvf_sub(float a, float b) { return a - b; }
__device__ __forceinline__ float fvf_mul(float a, float b) { return a * b; }

/* ---- boundary extension in the kernel's index type (fv__extend_index) ---------- */
template <typename IT>
__device__ __forceinline__ IT
fvf_extend(IT i, IT n, int mode)
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
fvf_acc_float(fv_dtype in, fv_dtype out)
{
    return out == FV_FLOAT32 && (in == FV_FLOAT32 || in == FV_UINT8 || in == FV_INT8 || in == FV_UINT16 ||
                                 in == FV_INT16 || in == FV_BOOL);
}

/* 1 when data and strides of a are multiples of its element size */
static inline int
fvf_aligned(const fv_array *a)
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
fvf_extent(const fv_array *a)
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

/* Device scratch of n bytes on ctx's stream, as a uint8 array (freed by
 * fvf_tmp_release after the kernels that use it were queued). */
static inline fv_status
fvf_tmp_new(fv_context *ctx, int device, size_t n, fv_array **arr)
{
    int64_t len = (int64_t)(n ? n : 1);
    fv_device dev = {FV_DEVICE_CUDA, device};
    *arr = NULL;
    return fv_array_new(ctx, FV_UINT8, 1, &len, dev, arr);
}

static inline void
fvf_tmp_release(fv_context *ctx, fv_array *arr)
{
    if (!arr)
        return;
    fv__cuda_mark_use(ctx, arr);   /* the free waits for the work queued so far */
    fv_array_unref(arr);
}

/* Set the dynamic shared memory limit of a kernel when it needs more than 48 KiB. */
template <typename K>
static inline fv_status
fvf_smem_attr(K kernel, size_t bytes)
{
    if (bytes <= 48 * 1024)
        return FV_OK;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    return e == cudaSuccess ? FV_OK : fv__cuda_error("cudaFuncSetAttribute", e);
}

/* Dispatch on the input dtype: F is a template functor with
 * `template <typename T> fv_status run(...)`. bool runs as uint8. */
#define FVF_SWITCH_IN(DT, CALL)                                                           \
    switch (DT) {                                                                         \
    case FV_BOOL: case FV_UINT8: { typedef uint8_t T; return CALL; }                      \
    case FV_INT8: { typedef int8_t T; return CALL; }                                      \
    case FV_UINT16: { typedef uint16_t T; return CALL; }                                  \
    case FV_INT16: { typedef int16_t T; return CALL; }                                    \
    case FV_UINT32: { typedef uint32_t T; return CALL; }                                  \
    case FV_INT32: { typedef int32_t T; return CALL; }                                    \
    case FV_UINT64: { typedef uint64_t T; return CALL; }                                  \
    case FV_INT64: { typedef int64_t T; return CALL; }                                    \
    case FV_FLOAT32: { typedef float T; return CALL; }                                    \
    case FV_FLOAT64: { typedef double T; return CALL; }                                   \
    default: break;                                                                       \
    }

template <typename T> struct fvf_is_float { static const bool value = false; };
template <> struct fvf_is_float<float> { static const bool value = true; };
template <> struct fvf_is_float<double> { static const bool value = true; };

#endif
