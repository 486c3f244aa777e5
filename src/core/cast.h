/* Element casts with fv_astype's rules, usable from C and from CUDA device code.
 *
 *   fv_cast_<src>_<dst>(x)   e.g. fv_cast_f32_u8(x)
 *
 * -> bool: x != 0. float -> integer: truncate toward zero, saturate at the
 * target's limits, NaN -> 0. Everything else: the C conversion (integers wrap
 * modulo 2^bits, as NumPy). */
#ifndef FV_CAST_H
#define FV_CAST_H

#include <stdint.h>
#include "dtype-list.h"

#if defined(__CUDACC__)
#define FV_HD static __host__ __device__ __forceinline__
#else
#define FV_HD static inline
#endif

/* Limits per integer suffix, as doubles: lowest value and 2^bits (exclusive top). */
#define FV_LO_u8 0.0
#define FV_LO_u16 0.0
#define FV_LO_u32 0.0
#define FV_LO_u64 0.0
#define FV_LO_i8 -128.0
#define FV_LO_i16 -32768.0
#define FV_LO_i32 -2147483648.0
#define FV_LO_i64 -9223372036854775808.0
#define FV_HI_u8 256.0
#define FV_HI_u16 65536.0
#define FV_HI_u32 4294967296.0
#define FV_HI_u64 18446744073709551616.0
#define FV_HI_i8 128.0
#define FV_HI_i16 32768.0
#define FV_HI_i32 2147483648.0
#define FV_HI_i64 9223372036854775808.0
#define FV_MIN_u8 0
#define FV_MIN_u16 0
#define FV_MIN_u32 0
#define FV_MIN_u64 0
#define FV_MIN_i8 INT8_MIN
#define FV_MIN_i16 INT16_MIN
#define FV_MIN_i32 INT32_MIN
#define FV_MIN_i64 INT64_MIN
#define FV_MAX_u8 UINT8_MAX
#define FV_MAX_u16 UINT16_MAX
#define FV_MAX_u32 UINT32_MAX
#define FV_MAX_u64 UINT64_MAX
#define FV_MAX_i8 INT8_MAX
#define FV_MAX_i16 INT16_MAX
#define FV_MAX_i32 INT32_MAX
#define FV_MAX_i64 INT64_MAX

#define FV__CAT(a, b) a##b
#define FV__CAT3(a, b, c) a##b##c
#define FV__XCAT3(a, b, c) FV__CAT3(a, b, c)
#define FV__CLASS(E) FV__CAT(FV_DTCLASS_, E)

/* Body chosen by (source class, destination class). */
#define FV__CASTBODY_xB(T2, S2) return (T2)(x != 0);
#define FV__CASTBODY_BB(T2, S2) FV__CASTBODY_xB(T2, S2)
#define FV__CASTBODY_UB(T2, S2) FV__CASTBODY_xB(T2, S2)
#define FV__CASTBODY_IB(T2, S2) FV__CASTBODY_xB(T2, S2)
#define FV__CASTBODY_FB(T2, S2) FV__CASTBODY_xB(T2, S2)
#define FV__CASTBODY_xC(T2, S2) return (T2)x;
#define FV__CASTBODY_BU(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_BI(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_BF(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_UU(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_UI(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_UF(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_IU(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_II(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_IF(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_FF(T2, S2) FV__CASTBODY_xC(T2, S2)
#define FV__CASTBODY_FSAT(T2, S2)        \
    double d = (double)x;                \
    if (d != d)                          \
        return (T2)0;                    \
    if (d < FV__CAT(FV_LO_, S2))         \
        return (T2)FV__CAT(FV_MIN_, S2); \
    if (d >= FV__CAT(FV_HI_, S2))        \
        return (T2)FV__CAT(FV_MAX_, S2); \
    return (T2)x;
#define FV__CASTBODY_FU(T2, S2) FV__CASTBODY_FSAT(T2, S2)
#define FV__CASTBODY_FI(T2, S2) FV__CASTBODY_FSAT(T2, S2)

#define FV__CASTBODY(C1, C2) FV__CAT3(FV__CASTBODY_, C1, C2)
#define FV__CASTBODY_E(C1, C2) FV__CASTBODY(C1, C2)

/* For a fixed source, one cast to every destination. */
#define FV__DEFINE_CAST_TO(E2, T2, S2)                            \
    FV_HD T2 FV__XCAT3(FV__CAST_PREFIX, _, S2)(FV__CAST_SRC_T x)  \
    {                                                             \
        FV__CASTBODY_E(FV__CAST_SRC_CLASS, FV__CLASS(E2))(T2, S2) \
    }

#define FV__CAST_SRC_T uint8_t
#define FV__CAST_SRC_CLASS B
#define FV__CAST_PREFIX fv_cast_b
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T uint8_t
#define FV__CAST_SRC_CLASS U
#define FV__CAST_PREFIX fv_cast_u8
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T uint16_t
#define FV__CAST_SRC_CLASS U
#define FV__CAST_PREFIX fv_cast_u16
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T uint32_t
#define FV__CAST_SRC_CLASS U
#define FV__CAST_PREFIX fv_cast_u32
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T uint64_t
#define FV__CAST_SRC_CLASS U
#define FV__CAST_PREFIX fv_cast_u64
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T int8_t
#define FV__CAST_SRC_CLASS I
#define FV__CAST_PREFIX fv_cast_i8
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T int16_t
#define FV__CAST_SRC_CLASS I
#define FV__CAST_PREFIX fv_cast_i16
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T int32_t
#define FV__CAST_SRC_CLASS I
#define FV__CAST_PREFIX fv_cast_i32
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T int64_t
#define FV__CAST_SRC_CLASS I
#define FV__CAST_PREFIX fv_cast_i64
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T float
#define FV__CAST_SRC_CLASS F
#define FV__CAST_PREFIX fv_cast_f32
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX
#define FV__CAST_SRC_T double
#define FV__CAST_SRC_CLASS F
#define FV__CAST_PREFIX fv_cast_f64
FV_FOREACH_DTYPE2(FV__DEFINE_CAST_TO)
#undef FV__CAST_SRC_T
#undef FV__CAST_SRC_CLASS
#undef FV__CAST_PREFIX

#endif
