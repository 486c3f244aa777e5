/* The op FILTERND: an n-d window over a footprint (correlate, minimum, maximum,
 * rank; src/ops/filters/filters-nd.c). Plain C, for host code and nvcc. */
#ifndef FV_OPS_FILTERND_H
#define FV_OPS_FILTERND_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_FILTERND: n-D window over a footprint ---------------------------
 * in -> out as above. The window is fshape[ndim] (ndim = in->ndim) in C order;
 * element j of the window reads in[i + j - fshape / 2 - origins] per axis.
 * Selected elements: footprint[j] != 0 (footprint NULL: all), and for CORRELATE
 * additionally |weights[j]| > DBL_EPSILON (scipy's rule; NaN weights are not selected). Elements are visited in C order of the window. */
typedef enum fv__filternd_kind {
    FV__FND_CORRELATE = 0, /* sum of weights[j] * x in double (from 0.0, in C order); src/ops
                              * zeroes the weights scipy skips (|w| <= DBL_EPSILON, NaN) */
    FV__FND_MINIMUM,       /* min of (x - structure[j]) (structure NULL: x) */
    FV__FND_MAXIMUM,       /* max of (x + structure[j]); scipy's NI_MinOrMaxFilter: the first
                              * selected element in double (plus its structure value in double),
                              * the others in the input type with the structure value cast to
                              * it (wrapping integer sums), compared as doubles */
    FV__FND_RANK           /* rank-th smallest of x over the selected elements, then cast to
                              * the input type (scipy's `(_type)NI_Select(...)`) */
} fv__filternd_kind;
/* MINIMUM, MAXIMUM and RANK read cval cast to the input type (scipy's
 * `(_type)cval`, fv__cvt32 & co. below; bool keeps the raw byte); CORRELATE
 * reads it as a double. The n-d filters store unsigned results with scipy's
 * `x > -1 ? (T)x : -(T)(-x)`, which differs from the 1-d store for uint64 only. */

typedef struct fv__filternd_params {
    int kind; /* fv__filternd_kind */
    int mode; /* fv_mode */
    double cval;
    int ndim;
    int64_t fshape[FV_MAX_NDIM];
    int64_t origins[FV_MAX_NDIM];
    const uint8_t *footprint; /* host, or NULL */
    const double *weights;    /* CORRELATE: weights; MINIMUM/MAXIMUM: structure or NULL */
    int64_t count;            /* number of selected elements (>= 1) */
    int64_t rank;             /* RANK: 0 <= rank < count */
} fv__filternd_params;

/* Kernel: fv_status fn(fv_context *ctx, const fv__op_args *a), a->params
 * pointing at the struct above (fv__params_FILTERND(a)); registered with
 * FV_KERNEL(FILTERND, CPU|CUDA, ...) in the kernel's file. */
FV_OP(FILTERND, "filter", fv__filternd_params);

#ifdef __cplusplus
}
#endif

#endif
