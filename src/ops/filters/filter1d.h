/* The op FILTER1D: one 1-D pass of a separable filter (src/ops/filters/filters.c
 * composes the public filters from it). Plain C, for host code and nvcc. */
#ifndef FV_OPS_FILTER1D_H
#define FV_OPS_FILTER1D_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_FILTER1D: one 1-D pass along `axis` ------------------------------
 * in -> out, same shape, never overlapping (src/ops makes a temporary when the
 * caller's arrays overlap). Any real dtype pair. Window of `size` taps; tap k
 * reads in[i + k - size / 2 - origin] along the axis (scipy's origin). */
typedef enum fv__filter1d_kind {
    FV__F1D_CORRELATE = 0, /* sum of weights[k] * x, in double */
    FV__F1D_UNIFORM,       /* scipy's running mean, same operation order */
    FV__F1D_MINIMUM,
    FV__F1D_MAXIMUM
} fv__filter1d_kind;

typedef struct fv__filter1d_params {
    int kind; /* fv__filter1d_kind */
    int axis;
    int mode; /* fv_mode */
    double cval;
    int64_t origin;
    int64_t size;            /* taps, >= 1 */
    const double *weights;   /* CORRELATE: `size` host values; else NULL */
    int symmetry;            /* CORRELATE hint: 1 symmetric, -1 antisymmetric, 0 neither */
    const double *dweights;  /* CORRELATE without host weights: `size` float64 values on the data's
                              * CUDA device (fv_correlate1d_array; CUDA backend only), */
    int64_t dweights_stride; /* dweights_stride elements apart (negative: reversed) */
} fv__filter1d_params;

/* Kernel: fv_status fn(fv_context *ctx, const fv__op_args *a), a->params
 * pointing at the struct above (fv__params_FILTER1D(a)); registered with
 * FV_KERNEL(FILTER1D, CPU|CUDA, ...) in the kernel's file. */
FV_OP(FILTER1D, "filter1d", fv__filter1d_params);

#ifdef __cplusplus
}
#endif

#endif
