/* The op SPLINE1D: scipy's B-spline prefilter along one axis (spline_filter1d),
 * optionally reading its input through a border of padding on every axis.
 *
 * in: any real dtype, shape S; out: any real dtype, shape S + 2 * npad on every
 * axis (npad 0: the same shape; in may then be out itself, filtered in place).
 * Each line of out along `axis` is read as doubles (positions outside in:
 * pad_constant ? pad_value : the nearest element of in, as numpy.pad's
 * 'constant' / 'edge'), filtered by fv__im_prefilter_line when it has more than
 * one sample and order >= 2, and stored by the plain C cast
 * (fv__im_store_plain). src/ops/interpolation/interpolation.c composes
 * fv_spline_filter1d, fv_spline_filter and the transforms' prefilter from it;
 * kernels: src/cpu/interpolation/spline-cpu.c, src/cuda/interpolation/spline.cu. */
#ifndef FV_OPS_SPLINE_H
#define FV_OPS_SPLINE_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__spline1d_params {
    int order;        /* 0..5 (0 and 1: a copy through double) */
    int axis;         /* 0 .. ndim - 1 */
    int mode;         /* scipy's mode code (interp-math.h) */
    int64_t npad;     /* >= 0 */
    int pad_constant; /* 1: pad with pad_value; 0: with the edge */
    double pad_value;
} fv__spline1d_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(SPLINE1D, ...). */
FV_OP(SPLINE1D, "spline_filter1d", fv__spline1d_params);

#ifdef __cplusplus
}
#endif

#endif
