/* The CUDA filters' casts and stores: scipy's C casts from double to every input
 * type, and the stores that switch on the output dtype once per run of values
 * (included by filters-common.cuh). */
#ifndef FV_CUDA_FILTERS_CAST_CUH
#define FV_CUDA_FILTERS_CAST_CUH

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "cuda/common.cuh"
#include "ops/filters/ndimage-math.h"

/* ---- casts (fv__cvt32 & co.: ops/filters/ndimage-math.h) ------------------------- */

/* fv__cvt32((double)x) for a float x: no float lies strictly between -2^31 - 1
 * and -2^31, and F2I truncates as the C cast does (without the double conversion) */
__device__ __forceinline__ int32_t
fv_d_flt_cvt32f(float x)
{
    return (x >= -2147483648.0f && x < 2147483648.0f) ? __float2int_rz(x) : INT32_MIN;
}

/* The C cast double -> T that scipy applies (bool: the raw low byte, as uint8). */
template <typename T> __host__ __device__ __forceinline__ T fv_d_flt_to_in(double x);
template <>
__host__ __device__ __forceinline__ uint8_t
fv_d_flt_to_in<uint8_t>(double x)
{
    return (uint8_t)fv__cvt32(x);
}
template <>
__host__ __device__ __forceinline__ int8_t
fv_d_flt_to_in<int8_t>(double x)
{
    return (int8_t)fv__cvt32(x);
}
template <>
__host__ __device__ __forceinline__ uint16_t
fv_d_flt_to_in<uint16_t>(double x)
{
    return (uint16_t)fv__cvt32(x);
}
template <>
__host__ __device__ __forceinline__ int16_t
fv_d_flt_to_in<int16_t>(double x)
{
    return (int16_t)fv__cvt32(x);
}
template <>
__host__ __device__ __forceinline__ int32_t
fv_d_flt_to_in<int32_t>(double x)
{
    return fv__cvt32(x);
}
template <>
__host__ __device__ __forceinline__ uint32_t
fv_d_flt_to_in<uint32_t>(double x)
{
    return (uint32_t)fv__cvt64(x);
}
template <>
__host__ __device__ __forceinline__ int64_t
fv_d_flt_to_in<int64_t>(double x)
{
    return fv__cvt64(x);
}
template <>
__host__ __device__ __forceinline__ uint64_t
fv_d_flt_to_in<uint64_t>(double x)
{
    return fv__cvtu64(x);
}
template <>
__host__ __device__ __forceinline__ float
fv_d_flt_to_in<float>(double x)
{
    return (float)x;
}
template <>
__host__ __device__ __forceinline__ double
fv_d_flt_to_in<double>(double x)
{
    return x;
}

/* Store a double result into an element of dtype odt. */
__device__ __forceinline__ void
fv_d_flt_store(char *p, int odt, double v)
{
    switch (odt) {
    case FV_BOOL:
        *(uint8_t *)p = (uint8_t)((uint8_t)fv__cvt32(v) != 0);
        break;
    case FV_UINT8:
        *(uint8_t *)p = (uint8_t)fv__cvt32(v);
        break;
    case FV_INT8:
        *(int8_t *)p = (int8_t)fv__cvt32(v);
        break;
    case FV_UINT16:
        *(uint16_t *)p = (uint16_t)fv__cvt32(v);
        break;
    case FV_INT16:
        *(int16_t *)p = (int16_t)fv__cvt32(v);
        break;
    case FV_INT32:
        *(int32_t *)p = fv__cvt32(v);
        break;
    case FV_UINT32:
        *(uint32_t *)p = (uint32_t)fv__cvt64(v);
        break;
    case FV_INT64:
        *(int64_t *)p = fv__cvt64(v);
        break;
    case FV_UINT64:
        *(uint64_t *)p = fv__cvtu64(v);
        break;
    case FV_FLOAT32:
        *(float *)p = (float)v;
        break;
    default:
        *(double *)p = v;
        break;
    }
}

/* ---- stores with the output dtype switched once per run of values ---------------
 * fv_d_flt_odt_run(odt, f) calls f(tag) with a pointer of the output's element type
 * (fv_d_flt_obool for bool); f then stores a run of values with fv_d_flt_put(tag, ...),
 * the values fv_d_flt_store gives. Other output dtypes: tag void *, fv_d_flt_store per value. */
struct fv_d_flt_obool {
    uint8_t b;
};
template <typename O> struct fv_d_flt_caster;
template <> struct fv_d_flt_caster<float> {
    template <typename A> __device__ static float c(A v)
    {
        return (float)v;
    }
};
template <> struct fv_d_flt_caster<double> {
    template <typename A> __device__ static double c(A v)
    {
        return (double)v;
    }
};
template <typename O> struct fv_d_flt_caster_i32 {
    __device__ static O c(float v)
    {
        return (O)fv_d_flt_cvt32f(v);
    }
    __device__ static O c(double v)
    {
        return (O)fv__cvt32(v);
    }
};
template <> struct fv_d_flt_caster<uint8_t> : fv_d_flt_caster_i32<uint8_t> {
};
template <> struct fv_d_flt_caster<int8_t> : fv_d_flt_caster_i32<int8_t> {
};
template <> struct fv_d_flt_caster<uint16_t> : fv_d_flt_caster_i32<uint16_t> {
};
template <> struct fv_d_flt_caster<int16_t> : fv_d_flt_caster_i32<int16_t> {
};
template <> struct fv_d_flt_caster<int32_t> : fv_d_flt_caster_i32<int32_t> {
};
template <> struct fv_d_flt_caster<fv_d_flt_obool> {
    __device__ static fv_d_flt_obool c(float v)
    {
        return fv_d_flt_obool{ (uint8_t)((uint8_t)fv_d_flt_cvt32f(v) != 0) };
    }
    __device__ static fv_d_flt_obool c(double v)
    {
        return fv_d_flt_obool{ (uint8_t)((uint8_t)fv__cvt32(v) != 0) };
    }
};

template <typename O, typename A>
__device__ __forceinline__ void
fv_d_flt_put(O *, char *p, int odt, A v)
{
    *(O *)p = fv_d_flt_caster<O>::c(v);
}
template <typename A>
__device__ __forceinline__ void
fv_d_flt_put(void *, char *p, int odt, A v)
{
    fv_d_flt_store(p, odt, (double)v);
}

template <typename F>
__device__ __forceinline__ void
fv_d_flt_odt_run(int odt, F f)
{
    switch (odt) {
    case FV_FLOAT32:
        f((float *)0);
        break;
    case FV_FLOAT64:
        f((double *)0);
        break;
    case FV_UINT8:
        f((uint8_t *)0);
        break;
    case FV_INT8:
        f((int8_t *)0);
        break;
    case FV_UINT16:
        f((uint16_t *)0);
        break;
    case FV_INT16:
        f((int16_t *)0);
        break;
    case FV_INT32:
        f((int32_t *)0);
        break;
    case FV_BOOL:
        f((fv_d_flt_obool *)0);
        break;
    default:
        f((void *)0);
        break;
    }
}

/* A float result (float32 outputs; integer outputs of the float-exact and checked
 * paths): the same values as storing (double)v, without the double conversion. */
__device__ __forceinline__ void
fv_d_flt_store(char *p, int odt, float v)
{
    fv_d_flt_odt_run(odt, [&](auto tag) { fv_d_flt_put(tag, p, odt, v); });
}

/* The n-d filters' store (scipy's ni_filters.c): the same, except into uint64
 * below -2^63, where scipy's compiled cast negates the conversion of -v. */
__device__ __forceinline__ void
fv_d_flt_store_nd(char *p, int odt, double v)
{
    if (odt == FV_UINT64 && v < 0)
        *(uint64_t *)p = (uint64_t)0 - fv__cvtu64(-v);
    else
        fv_d_flt_store(p, odt, v);
}

__device__ __forceinline__ void
fv_d_flt_store_nd(char *p, int odt, float v)
{
    fv_d_flt_store(p, odt, v);
}

/* A data value in the accumulator type; 8-bit data into float by one float
 * subtraction from 2^23 + the byte (an ALU operation, not the conversion unit's I2F). */
template <typename ACC, typename T>
__device__ __forceinline__ ACC
fv_d_flt_cv(T x)
{
    return (ACC)x;
}
template <>
__device__ __forceinline__ float
fv_d_flt_cv<float, uint8_t>(uint8_t x)
{
    return __fsub_rn(__uint_as_float(0x4B000000u | (unsigned)x), 8388608.0f);
}
template <>
__device__ __forceinline__ float
fv_d_flt_cv<float, int8_t>(int8_t x)
{
    return __fsub_rn(__uint_as_float(0x4B000000u | (unsigned)((int)x + 128)), 8388736.0f);
}

#endif
