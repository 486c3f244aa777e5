/* The one dtype list. X(ENUM, ctype, suffix); bool is stored as one byte (0/1).
 * Shared by the CPU (C) and CUDA (nvcc) backends. Two identical copies exist so
 * that the list can be nested (pairs of dtypes) by the preprocessor. */
#ifndef FV_DTYPE_LIST_H
#define FV_DTYPE_LIST_H

#include <stdint.h>

/* clang-format off */
#define FV_FOREACH_DTYPE(X)                                                                                      \
    X(FV_BOOL, uint8_t, b)                                                                                       \
    X(FV_UINT8, uint8_t, u8) X(FV_UINT16, uint16_t, u16) X(FV_UINT32, uint32_t, u32) X(FV_UINT64, uint64_t, u64) \
        X(FV_INT8, int8_t, i8) X(FV_INT16, int16_t, i16) X(FV_INT32, int32_t, i32) X(FV_INT64, int64_t, i64)     \
            X(FV_FLOAT32, float, f32) X(FV_FLOAT64, double, f64)
/* clang-format on */

/* clang-format off */
#define FV_FOREACH_DTYPE2(X)                                                                                     \
    X(FV_BOOL, uint8_t, b)                                                                                       \
    X(FV_UINT8, uint8_t, u8) X(FV_UINT16, uint16_t, u16) X(FV_UINT32, uint32_t, u32) X(FV_UINT64, uint64_t, u64) \
        X(FV_INT8, int8_t, i8) X(FV_INT16, int16_t, i16) X(FV_INT32, int32_t, i32) X(FV_INT64, int64_t, i64)     \
            X(FV_FLOAT32, float, f32) X(FV_FLOAT64, double, f64)
/* clang-format on */

/* The initialiser of a table indexed by dtype whose entry for each dtype is
 * PREFIX##suffix: static const fn_t tab[FV_DTYPE_COUNT] = FV_DTYPE_TABLE(fv__add_); */
#define FV__DTYPE_TABLE_ENTRY(E, T, S, PREFIX) [E] = PREFIX##S,
#define FV_DTYPE_TABLE(PREFIX)                                  \
    {                                                           \
        FV__DTYPE_TABLE_ENTRY(FV_BOOL, uint8_t, b, PREFIX)      \
        FV__DTYPE_TABLE_ENTRY(FV_UINT8, uint8_t, u8, PREFIX)    \
        FV__DTYPE_TABLE_ENTRY(FV_UINT16, uint16_t, u16, PREFIX) \
        FV__DTYPE_TABLE_ENTRY(FV_UINT32, uint32_t, u32, PREFIX) \
        FV__DTYPE_TABLE_ENTRY(FV_UINT64, uint64_t, u64, PREFIX) \
        FV__DTYPE_TABLE_ENTRY(FV_INT8, int8_t, i8, PREFIX)      \
        FV__DTYPE_TABLE_ENTRY(FV_INT16, int16_t, i16, PREFIX)   \
        FV__DTYPE_TABLE_ENTRY(FV_INT32, int32_t, i32, PREFIX)   \
        FV__DTYPE_TABLE_ENTRY(FV_INT64, int64_t, i64, PREFIX)   \
        FV__DTYPE_TABLE_ENTRY(FV_FLOAT32, float, f32, PREFIX)   \
        FV__DTYPE_TABLE_ENTRY(FV_FLOAT64, double, f64, PREFIX)  \
    }

/* Dtype classes used by the cast rules: B(ool), U(nsigned), I(nt), F(loat). */
#define FV_DTCLASS_FV_BOOL B
#define FV_DTCLASS_FV_UINT8 U
#define FV_DTCLASS_FV_UINT16 U
#define FV_DTCLASS_FV_UINT32 U
#define FV_DTCLASS_FV_UINT64 U
#define FV_DTCLASS_FV_INT8 I
#define FV_DTCLASS_FV_INT16 I
#define FV_DTCLASS_FV_INT32 I
#define FV_DTCLASS_FV_INT64 I
#define FV_DTCLASS_FV_FLOAT32 F
#define FV_DTCLASS_FV_FLOAT64 F

/* Every (source, destination) pair: X(E1, T1, S1, E2, T2, S2). */
/* clang-format off */
#define FV_FOREACH_DTYPE2_WITH(X, E1, T1, S1)                                               \
    X(E1, T1, S1, FV_BOOL, uint8_t, b)                                                      \
    X(E1, T1, S1, FV_UINT8, uint8_t, u8) X(E1, T1, S1, FV_UINT16, uint16_t, u16)            \
        X(E1, T1, S1, FV_UINT32, uint32_t, u32) X(E1, T1, S1, FV_UINT64, uint64_t, u64)     \
            X(E1, T1, S1, FV_INT8, int8_t, i8) X(E1, T1, S1, FV_INT16, int16_t, i16)        \
                X(E1, T1, S1, FV_INT32, int32_t, i32) X(E1, T1, S1, FV_INT64, int64_t, i64) \
                    X(E1, T1, S1, FV_FLOAT32, float, f32) X(E1, T1, S1, FV_FLOAT64, double, f64)
/* clang-format on */

/* clang-format off */
#define FV_FOREACH_DTYPE_PAIR(X)                                                                                    \
    FV_FOREACH_DTYPE2_WITH(X, FV_BOOL, uint8_t, b)                                                                  \
    FV_FOREACH_DTYPE2_WITH(X, FV_UINT8, uint8_t, u8) FV_FOREACH_DTYPE2_WITH(X, FV_UINT16, uint16_t, u16)            \
        FV_FOREACH_DTYPE2_WITH(X, FV_UINT32, uint32_t, u32) FV_FOREACH_DTYPE2_WITH(X, FV_UINT64, uint64_t, u64)     \
            FV_FOREACH_DTYPE2_WITH(X, FV_INT8, int8_t, i8) FV_FOREACH_DTYPE2_WITH(X, FV_INT16, int16_t, i16)        \
                FV_FOREACH_DTYPE2_WITH(X, FV_INT32, int32_t, i32) FV_FOREACH_DTYPE2_WITH(X, FV_INT64, int64_t, i64) \
                    FV_FOREACH_DTYPE2_WITH(X, FV_FLOAT32, float, f32)                                               \
                        FV_FOREACH_DTYPE2_WITH(X, FV_FLOAT64, double, f64)
/* clang-format on */

/* Wide unsigned type for wrap-around integer arithmetic without UB, per suffix. */
#define FV_UWIDE_b uint32_t
#define FV_UWIDE_u8 uint32_t
#define FV_UWIDE_u16 uint32_t
#define FV_UWIDE_u32 uint32_t
#define FV_UWIDE_u64 uint64_t
#define FV_UWIDE_i8 uint32_t
#define FV_UWIDE_i16 uint32_t
#define FV_UWIDE_i32 uint32_t
#define FV_UWIDE_i64 uint64_t

#endif
