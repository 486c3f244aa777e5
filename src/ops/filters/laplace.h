/* The job of the fused Laplace op (FV__OP_LAPLACE, fv_laplace in
 * include/fovea/filters.h). src/ops/filters/laplace.c validates the arrays and
 * fills it; src/cpu/filters/laplace-cpu.c and src/cuda/filters/laplace.cu run it.
 *
 * Per output element, with x the input element as a double and, for term k,
 * l / r its neighbours along axes[k] (past the edges: the element at index
 * lo[k] / hi[k], or cval where that is -1):
 *   t_k = (-2.0 * x) + (l + r)               each step rounded in double, no FMA
 *   out = cast(t_0) (+) cast(t_1) (+) ...     in out's dtype, k in order
 * where cast is scipy's store of a double into out's dtype (fv__cvt32 &
 * co. in src/core/ndimage.h; bool: (low byte != 0)) and (+) NumPy's `+=` in
 * that dtype: integers wrap, float32 and float64 add in their type, bool ORs.
 * For integer outputs the sum is formed from the casts' bits in an unsigned
 * type at least as wide as the output (uint32 up to 32 bits, else uint64: the
 * same result modulo the output width) and truncated once. Neither backend may
 * fuse the product and the sum: the CPU kernel is built with -ffp-contract=off,
 * the CUDA kernel spells every step with __dmul_rn / __dadd_rn / __fadd_rn.
 * Input values are read as the dtype holds them (bool: the raw byte, as scipy
 * reads it). in and out never overlap (src/ops copies in when they would). */
#ifndef FV_LAPLACE_KERNELS_H
#define FV_LAPLACE_KERNELS_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__laplace_job {
    int ndim;           /* >= 1 */
    int idtype, odtype; /* fv_dtype of in and out */
    int64_t size;       /* elements, > 0 */
    int64_t shape[FV_MAX_NDIM];
    int64_t istrides[FV_MAX_NDIM]; /* bytes */
    int64_t ostrides[FV_MAX_NDIM]; /* bytes */
    const char *in;                /* first elements */
    char *out;
    int naxes;               /* 1 .. ndim terms */
    int axes[FV_MAX_NDIM];   /* distinct, in term order */
    int64_t lo[FV_MAX_NDIM]; /* term k: fv__extend_index(-1, n, modes[k]) along axes[k], -1: cval */
    int64_t hi[FV_MAX_NDIM]; /* term k: fv__extend_index(n, n, modes[k]), -1: cval */
    double cval;
} fv__laplace_job;

/* How the terms are converted and summed, by output dtype. */
typedef enum fv__laplace_acc {
    FV__LAP_F64 = 0, /* double sums */
    FV__LAP_F32,     /* (float)t, float sums */
    FV__LAP_W32,     /* (u)int8, (u)int16, int32: fv__cvt32's bits, wrapping uint32 sums */
    FV__LAP_W64,     /* uint32, int64: fv__cvt64's bits, wrapping uint64 sums */
    FV__LAP_U64,     /* uint64: fv__cvtu64, wrapping uint64 sums */
    FV__LAP_BOOL     /* ((uint8_t)fv__cvt32(t) != 0), ORed */
} fv__laplace_acc;

static inline int
fv__laplace_acc_of(int odtype)
{
    switch (odtype) {
    case FV_FLOAT64:
        return FV__LAP_F64;
    case FV_FLOAT32:
        return FV__LAP_F32;
    case FV_BOOL:
        return FV__LAP_BOOL;
    case FV_UINT32:
    case FV_INT64:
        return FV__LAP_W64;
    case FV_UINT64:
        return FV__LAP_U64;
    default:
        return FV__LAP_W32;
    }
}

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(LAPLACE, ...) in the kernel file. */
FV_OP(LAPLACE, "laplace", fv__laplace_job);

#ifdef __cplusplus
}
#endif

#endif
