/* Shared pieces of the filter CPU kernels: per-dtype stores of double results
 * (scipy's casts, see fv__cvt32 in ndimage.h) and scipy's C casts of double
 * parameters (cval, structure values) to the input type. */
#ifndef FV_FILTERS_CPU_H
#define FV_FILTERS_CPU_H

#include <stdint.h>
#include <string.h>
#include "internal.h"
#include "ops/filters/filter1d.h"
#include "ops/filters/filternd.h"
#include "ops/filters/ndimage-math.h"

/* Results must not depend on the compiler fusing a * b + c (clang contracts
 * by default where FMA is available; GCC does not in ISO C mode). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* fv__fst_<sfx>(x): the value stored into an output element of type sfx for a
 * double result x. Bool outputs keep scipy's truth value as 0/1. */
static inline uint8_t
fv__fst_b(double x)
{
    return (uint8_t)((uint8_t)fv__cvt32(x) != 0);
}
static inline uint8_t
fv__fst_u8(double x)
{
    return (uint8_t)fv__cvt32(x);
}
static inline int8_t
fv__fst_i8(double x)
{
    return (int8_t)(uint8_t)fv__cvt32(x);
}
static inline uint16_t
fv__fst_u16(double x)
{
    return (uint16_t)fv__cvt32(x);
}
static inline int16_t
fv__fst_i16(double x)
{
    return (int16_t)(uint16_t)fv__cvt32(x);
}
static inline int32_t
fv__fst_i32(double x)
{
    return fv__cvt32(x);
}
static inline uint32_t
fv__fst_u32(double x)
{
    return (uint32_t)(uint64_t)fv__cvt64(x);
}
static inline int64_t
fv__fst_i64(double x)
{
    return fv__cvt64(x);
}
static inline uint64_t
fv__fst_u64(double x)
{
    return fv__cvtu64(x);
}
static inline float
fv__fst_f32(double x)
{
    return (float)x;
}
static inline double
fv__fst_f64(double x)
{
    return x;
}

/* fv__fcast_<sfx>(x): scipy's `(_type)x` for a double parameter. Unlike the
 * stores, bool keeps the raw byte (scipy compares that byte as a number). */
static inline uint8_t
fv__fcast_b(double x)
{
    return (uint8_t)fv__cvt32(x);
}
#define fv__fcast_u8 fv__fst_u8
#define fv__fcast_i8 fv__fst_i8
#define fv__fcast_u16 fv__fst_u16
#define fv__fcast_i16 fv__fst_i16
#define fv__fcast_i32 fv__fst_i32
#define fv__fcast_u32 fv__fst_u32
#define fv__fcast_i64 fv__fst_i64
#define fv__fcast_u64 fv__fst_u64
#define fv__fcast_f32 fv__fst_f32
#define fv__fcast_f64 fv__fst_f64

/* AVX2 variants of the double-heavy kernels, chosen at run time (x86-64 with
 * GCC or clang). They use AVX2 but never FMA, so results stay bit-identical.
 * fv__cpu_avx2: the processor has AVX2; fv__cpu_lines_avx2 (lines-variants.c,
 * the planner's table "cpu.lines"): run the AVX2 kernels in this call. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(FV_NO_AVX2)
#define FV__HAVE_AVX2_CLONES 1
#include <stdatomic.h>
#include <stdlib.h>
static inline int
fv__cpu_avx2(void)
{
    static atomic_int have = -1;
    int h = atomic_load_explicit(&have, memory_order_relaxed);
    if (h < 0) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("avx2") ? 1 : 0;
        atomic_store_explicit(&have, h, memory_order_relaxed);
    }
    return h;
}
#else
#define FV__HAVE_AVX2_CLONES 0
#endif
int fv__cpu_lines_avx2(void);

/* GCC / clang vector extensions: loads and stores of unaligned vectors. */
#define FV__LDV(VT, p)               \
    ({                               \
        VT v_;                       \
        memcpy(&v_, (p), sizeof v_); \
        v_;                          \
    })
#define FV__STV(p, v)                \
    do {                             \
        __typeof__(v) v_ = (v);      \
        memcpy((p), &v_, sizeof v_); \
    } while (0)
typedef double fv__v2d __attribute__((vector_size(16)));
#define FV__SPLAT2(s) ((fv__v2d){ (s), (s) })
#if FV__HAVE_AVX2_CLONES
typedef double fv__v4d __attribute__((vector_size(32)));
#define FV__SPLAT4(s) ((fv__v4d){ (s), (s), (s), (s) })
#endif

/* 1 for the floating dtypes (NaN is possible). */
static inline int
fv__dtype_has_nan(fv_dtype dt)
{
    return dt == FV_FLOAT32 || dt == FV_FLOAT64;
}

/* Per-thread scratch memory reused across work items and calls (large
 * buffers from malloc are fresh mappings each time, page faults included).
 * fv__scratch_get returns at least `bytes` (64-byte aligned), or NULL; a
 * nested user on the same thread gets its own allocation. Release with
 * fv__scratch_put(p). */
void *fv__scratch_get(size_t bytes);
void fv__scratch_put(void *p);

/* Carving one scratch block: *off advances by bytes rounded to 64. */
static inline size_t
fv__carve(size_t *off, size_t bytes)
{
    size_t at = *off;
    *off += (bytes + 63) & ~(size_t)63;
    return at;
}

/* Elementwise passes over lines of len elements (lines of them) on the thread
 * pool: cut long lines into *pieces of *piece elements (whole blocks of
 * `block`, at least min_work each) when there are too few lines to keep every
 * thread busy, and the grain (work items per task) for fv__parallel_for. */
static inline void
fv__cpu_line_pieces(fv_context *ctx, int64_t lines, int64_t len, int64_t min_work, int64_t block, int64_t *pieces,
                    int64_t *piece, int64_t *grain)
{
    const int nt = fv_context_threads(ctx);
    *pieces = 1;
    *piece = len;
    if (lines < (int64_t)nt * 4 && len >= 2 * min_work) {
        const int64_t want = ((int64_t)nt * 4 + lines - 1) / lines, most = len / min_work;
        *pieces = want < most ? want : most;
        *piece = (len + *pieces - 1) / *pieces;
        *piece = (*piece + block - 1) / block * block; /* whole blocks */
        *pieces = (len + *piece - 1) / *piece;
    }
    *grain = *piece >= min_work ? 1 : min_work / *piece;
}

/* Shared with the registration file. */
fv_status fv__cpu_filter1d(fv_context *ctx, const fv__op_args *a);
fv_status fv__cpu_filternd(fv_context *ctx, const fv__op_args *a);

#endif
