/* The job of the gradient-magnitude op (FV__OP_GRADIENT_NORM, fv_gradient_norm
 * in include/fovea/filters.h). src/ops/filters/gradnorm.c validates the arrays
 * and folds their common geometry; src/cpu/filters/gradnorm-cpu.c and
 * src/cuda/filters/gradnorm.cu walk it.
 *
 * Per element, in the arrays' dtype T, each step rounded as NumPy rounds it:
 *   s = p0 * p0;  for k = 1 .. nparts-1: t = pk * pk, s = s + t;
 *   r = sqrt(s);  if has_div: r = r / (T)div;  out = r.
 * Neither backend may fuse a product and a sum into an FMA: the CPU kernel is
 * built with -ffp-contract=off (and STDC FP_CONTRACT OFF for clang), the CUDA
 * kernel spells every step with a round-to-nearest intrinsic (__fmul_rn,
 * __fadd_rn, __fsqrt_rn, __fdiv_rn and their double versions), which nvcc
 * never contracts. */
#ifndef FV_GRADNORM_KERNELS_H
#define FV_GRADNORM_KERNELS_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FV__GRADNORM_MAX_PARTS FV_MAX_NDIM

/* Operand 0 is out, operand 1 + k is parts[k]. The geometry is the arrays'
 * common shape with extent-1 axes dropped and axes merged where every operand
 * is contiguous across them (ndim >= 1; size 0: ndim 1, shape[0] 0). */
typedef struct fv__gradnorm_job {
    int is_double;
    int nparts;  /* 1 .. FV__GRADNORM_MAX_PARTS */
    int has_div; /* 0 when div == 1 */
    double div;  /* the kernels round it to the dtype */
    int ndim;
    int64_t size; /* elements */
    int64_t shape[FV_MAX_NDIM];
    int64_t strides[FV__GRADNORM_MAX_PARTS + 1][FV_MAX_NDIM]; /* bytes */
    char *ptr[FV__GRADNORM_MAX_PARTS + 1];                    /* first elements */
} fv__gradnorm_job;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(GRADIENT_NORM, ...) in the kernel file. */
FV_OP(GRADIENT_NORM, "gradient_norm", fv__gradnorm_job);

#ifdef __cplusplus
}
#endif

#endif
