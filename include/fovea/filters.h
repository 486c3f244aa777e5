/* N-dimensional filters (scipy.ndimage semantics) on the CPU and CUDA backends.
 *
 * Every function takes `in` and `out` of the same shape on the same device; any
 * real dtype (bool, 8..64-bit integers, float32, float64) in and out, in any
 * combination. in and out may be the same array or overlap: the library then
 * works from a temporary copy. Results follow scipy.ndimage exactly:
 *  - sums are formed in double (float32 data on the GPU may sum in float; the
 *    difference stays within float32 rounding),
 *  - a floating result stored into an integer output is truncated toward zero
 *    and wrapped to the output type's width, as scipy's C cast does on x86-64
 *    (-3.0 into uint8 is 253; results outside the int32 range stored into
 *    8/16/32-bit outputs become INT32_MIN's low bits, see fv__cvt32 in
 *    src/core/ndimage.h); into bool it is the truth of the byte scipy stores,
 *    i.e. (uint8 as above) != 0 (0.5 -> false, 2.5 -> true, 256.0 -> false),
 *  - cval is used as a double, except by the n-d minimum / maximum filters over
 *    a footprint or structure and the rank filter, which (as scipy's C code)
 *    cast it to the input dtype first.
 * Axes are C order (0 = slowest); negative axes are not accepted here (the
 * Python layer normalises them). Returns FV_OK or a negative fv_status with the
 * details in fv_error_message(). */
#ifndef FOVEA_FILTERS_H
#define FOVEA_FILTERS_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* How values past the edge are taken (scipy's `mode` for filters). For filters
 * scipy treats 'grid-mirror' as 'reflect', 'grid-constant' as 'constant' and
 * 'grid-wrap' as 'wrap'; fv_mode_from_name maps those names the same way.
 *   REFLECT   d c b a | a b c d | d c b a
 *   CONSTANT  k k k k | a b c d | k k k k      (k = cval)
 *   NEAREST   a a a a | a b c d | d d d d
 *   MIRROR    d c b   | a b c d | c b a
 *   WRAP      a b c d | a b c d | a b c d */
typedef enum fv_mode {
    FV_MODE_REFLECT = 0,
    FV_MODE_CONSTANT,
    FV_MODE_NEAREST,
    FV_MODE_MIRROR,
    FV_MODE_WRAP,
    FV_MODE_COUNT
} fv_mode;

/* Parse a scipy mode name ("reflect", "grid-mirror", "constant", "grid-constant",
 * "nearest", "mirror", "wrap", "grid-wrap"). FV_EINVAL when unknown. */
FV_API fv_status fv_mode_from_name(const char *name, fv_mode *out);
/* Canonical name of a mode ("reflect" ...); "invalid" when out of range. */
FV_API const char *fv_mode_name(fv_mode mode);

/* ---- 1-D filters along one axis ---------------------------------------------
 * origin shifts the window as in scipy: for a window of n taps centred at
 * n / 2 + origin, with -(n / 2) <= origin <= (n - 1) / 2 (FV_EINVAL otherwise).
 * n >= 1. */

/* scipy.ndimage.correlate1d: out[i] = sum_k w[k] * in[i + k - n/2 - origin]. */
FV_API fv_status fv_correlate1d(fv_context *ctx, const fv_array *in, fv_array *out, const double *weights, int64_t n,
                                int axis, fv_mode mode, double cval, int64_t origin);
/* fv_correlate1d with the weights an array: float64, one dimension. Host weights
 * (contiguous; any data) behave as fv_correlate1d. Weights on the data's CUDA
 * device (any stride, reversed included) are read there and never copied to the
 * host, so the call queues its work without waiting for the device (the kernels
 * classify the weights as scipy does: same results as host weights). FV_EINVAL
 * for another dtype, shape or layout, FV_EDEVICE for weights on another device. */
FV_API fv_status fv_correlate1d_array(fv_context *ctx, const fv_array *in, fv_array *out, const fv_array *weights,
                                      int axis, fv_mode mode, double cval, int64_t origin);
/* scipy.ndimage.convolve1d (weights reversed, origin mirrored as scipy does). */
FV_API fv_status fv_convolve1d(fv_context *ctx, const fv_array *in, fv_array *out, const double *weights, int64_t n,
                               int axis, fv_mode mode, double cval, int64_t origin);
/* scipy.ndimage.uniform_filter1d: running mean, bit-exact with scipy's running sum. */
FV_API fv_status fv_uniform_filter1d(fv_context *ctx, const fv_array *in, fv_array *out, int64_t size, int axis,
                                     fv_mode mode, double cval, int64_t origin);
/* scipy.ndimage.minimum_filter1d / maximum_filter1d (van Herk / Gil-Werman). */
FV_API fv_status fv_minimum_filter1d(fv_context *ctx, const fv_array *in, fv_array *out, int64_t size, int axis,
                                     fv_mode mode, double cval, int64_t origin);
FV_API fv_status fv_maximum_filter1d(fv_context *ctx, const fv_array *in, fv_array *out, int64_t size, int axis,
                                     fv_mode mode, double cval, int64_t origin);

/* ---- n-D filters over a footprint --------------------------------------------
 * Footprints, weights and structures are host arrays in C order with shape
 * fshape[in->ndim] (every extent >= 1); origins[in->ndim] as for the 1-D
 * filters, per axis (NULL: all 0). */

/* scipy.ndimage.correlate: weights (float64) over the window; zero weights are skipped. */
FV_API fv_status fv_correlate(fv_context *ctx, const fv_array *in, fv_array *out, const double *weights,
                              const int64_t *fshape, fv_mode mode, double cval, const int64_t *origins);
/* scipy.ndimage.convolve (weights reversed, origins mirrored). */
FV_API fv_status fv_convolve(fv_context *ctx, const fv_array *in, fv_array *out, const double *weights,
                             const int64_t *fshape, fv_mode mode, double cval, const int64_t *origins);
/* scipy.ndimage.minimum_filter / maximum_filter with a footprint (nonzero bytes
 * select the window; NULL: the whole box) and an optional structure (float64,
 * NULL for flat): the minimum of in - structure, the maximum of in + structure,
 * as scipy's grey_erosion / grey_dilation compute them (the first selected
 * element in double, the others in the input type with the structure value
 * cast to it). Without a structure and with a full box (footprint NULL or all
 * nonzero) this is scipy's separable path: one 1-D pass per axis longer than 1
 * through out, cval as a double. */
FV_API fv_status fv_minimum_filter(fv_context *ctx, const fv_array *in, fv_array *out, const uint8_t *footprint,
                                   const double *structure, const int64_t *fshape, fv_mode mode, double cval,
                                   const int64_t *origins);
FV_API fv_status fv_maximum_filter(fv_context *ctx, const fv_array *in, fv_array *out, const uint8_t *footprint,
                                   const double *structure, const int64_t *fshape, fv_mode mode, double cval,
                                   const int64_t *origins);
/* scipy.ndimage.rank_filter: the rank-th smallest (0-based) value under the
 * footprint; 0 <= rank < number of selected elements. median_filter and
 * percentile_filter are ranks (see the Python layer). */
FV_API fv_status fv_rank_filter(fv_context *ctx, const fv_array *in, fv_array *out, const uint8_t *footprint,
                                const int64_t *fshape, int64_t rank, fv_mode mode, double cval, const int64_t *origins);

/* ---- separable compositions (one 1-D pass per axis, scipy's order) ----------
 * Arrays are per axis (in->ndim entries). As in scipy, the passes after the first
 * run on `out`, so integer outputs are rounded between passes exactly as scipy's. */

/* scipy.ndimage.gaussian_filter: axes with sigma <= 1e-15 are skipped (copied);
 * order[ax] >= 0 is the derivative order; radius NULL or radius[ax] < 0 means
 * int(truncate * sigma + 0.5). */
FV_API fv_status fv_gaussian_filter(fv_context *ctx, const fv_array *in, fv_array *out, const double *sigma,
                                    const int *order, const fv_mode *modes, double cval, double truncate,
                                    const int64_t *radius);
/* The 1-D Gaussian kernel scipy uses (_gaussian_kernel1d) for sigma, order and
 * radius, as a correlation kernel of 2 * radius + 1 taps written to w. */
FV_API fv_status fv_gaussian_kernel1d(double sigma, int order, int64_t radius, double *w);
/* scipy.ndimage.uniform_filter: axes with size <= 1 are skipped (copied). */
FV_API fv_status fv_uniform_filter(fv_context *ctx, const fv_array *in, fv_array *out, const int64_t *size,
                                   const fv_mode *modes, double cval, const int64_t *origins);

/* A chain of 1-D passes, each reading what the one before wrote (scipy's
 * `input = output` between the passes of uniform_filter, gaussian_filter,
 * minimum_filter, sobel, ...), with the same bits as the passes called one by
 * one through out, without copying out when a later pass reads it: the
 * library holds the intermediate results (on CUDA, two passes may run as one
 * fused kernel). */
typedef enum fv_pass_kind {
    FV_PASS_CORRELATE = 0, /* fv_correlate1d: weights[size] */
    FV_PASS_UNIFORM,       /* fv_uniform_filter1d */
    FV_PASS_MINIMUM,       /* fv_minimum_filter1d */
    FV_PASS_MAXIMUM        /* fv_maximum_filter1d */
} fv_pass_kind;

typedef struct fv_filter_pass {
    fv_pass_kind kind;
    int axis;
    int64_t size;          /* taps, >= 1 */
    const double *weights; /* FV_PASS_CORRELATE: size host values; else ignored */
    fv_mode mode;
    double cval;
    int64_t origin;
} fv_filter_pass;

#define FV_MAX_PASSES 32
/* out = passes[n-1](... passes[0](in)); 0 <= npasses <= FV_MAX_PASSES (0 copies). */
FV_API fv_status fv_separable_filter(fv_context *ctx, const fv_array *in, fv_array *out, const fv_filter_pass *passes,
                                     int npasses);

/* ---- Laplace filter (scipy.ndimage.laplace) --------------------------------------
 * out = sum over k of correlate1d(in, [1, -2, 1], axes[k], modes[k], cval), in
 * one pass (every output element computed once), with scipy's bits for every
 * dtype pair: each term is formed in double as scipy's symmetric correlation
 * forms it, t = (-2.0 * x) + (left + right) (never fused into an FMA), and
 * stored into out's dtype with scipy's cast (see the top of this file); the
 * terms are then added in out's dtype in the order of axes, as scipy's
 * `output += tmp` does: integers wrap, float32 adds in float32, float64 in
 * double, bool ORs. Past the edges the neighbours follow modes[k] (cval for
 * FV_MODE_CONSTANT).
 * axes: naxes distinct axes in [0, in->ndim), in term order; 0 <= naxes <=
 * in->ndim (naxes == 0: out = in converted, as scipy copies; axes and modes may
 * then be NULL). modes: naxes values, one per listed axis.
 * Any strides (views, negative strides), empty arrays. in and out may overlap:
 * the library then works from a copy of in (note that scipy called with output
 * sharing memory with input reads the partly written output for the later
 * axes; fovea.ndimage handles that case itself). out must not have elements
 * that share memory (stride 0). */
FV_API fv_status fv_laplace(fv_context *ctx, const fv_array *in, fv_array *out, const int *axes, int naxes,
                            const fv_mode *modes, double cval);

/* ---- Hessian ridge filters (skimage.filters frangi / hessian / sato / meijering) ----
 * One scale of a ridge filter from the Hessian's element planes: per pixel the
 * eigenvalues (2-d: closed form; 3-d: cyclic Jacobi in double), the filter's
 * response, folded into acc as acc = maximum(acc, response) (NaN propagates). */
typedef enum fv_ridge_filter {
    FV_RIDGE_FRANGI = 0,    /* frangi / hessian: exp terms of alpha, beta, gamma */
    FV_RIDGE_SATO = 1,      /* sigma^2 * geometric mean of the positive parts of all but the smallest */
    FV_RIDGE_MEIJERING = 2, /* circulant combination of largest magnitude, >= 0, / its max over pixels */
    FV_RIDGE_NORM_MAX = 3   /* no response: scal[0] = max over pixels of sqrt(sum of eigenvalues^2) */
} fv_ridge_filter;

typedef struct fv_ridge_params {
    fv_ridge_filter filter;
    double alpha; /* frangi: plate sensitivity; meijering: off-diagonal weight of the circulant */
    double beta;  /* frangi: blob sensitivity */
    double gamma; /* frangi: structure sensitivity; NaN: scal[0] / 2 (0 -> 1), gamma=None */
    double sigma; /* sato: the scale (the response is multiplied by sigma^2) */
} fv_ridge_params;

/* h: nh = 3 (2-d) or 6 (3-d) arrays, the Hessian's upper triangle row by row
 * (H00, H01, H11 / H00, H01, H02, H11, H12, H22); float32 or float64, one dtype,
 * shape, device, C-contiguous. acc: the running maximum (same kind; unused and
 * may be NULL for NORM_MAX). work (MEIJERING only): the scale's response before
 * normalisation, same kind; may be one of h (it is overwritten) but must not
 * otherwise overlap. scal: one element of h's dtype on h's device: written by
 * NORM_MAX and MEIJERING (the max), read by FRANGI when gamma is NaN. */
FV_API fv_status fv_hessian_ridge(fv_context *ctx, const fv_array *const *h, int nh, fv_array *acc, fv_array *work,
                                  fv_array *scal, const fv_ridge_params *p);

/* ---- gradient magnitude (the elementwise tail of skimage.filters sobel / scharr /
 * prewitt / farid and scipy.ndimage generic / gaussian_gradient_magnitude) ----
 * out = sqrt(parts[0]^2 + parts[1]^2 + ... + parts[nparts-1]^2) / div, one pass,
 * every step rounded in the arrays' dtype exactly as the NumPy chain
 * `s = p0 * p0; s += pk * pk (k = 1, 2, ... in order); out = sqrt(s) / dtype(div)`
 * rounds it: each square rounded, each sum rounded, the square root correctly
 * rounded, then the division by div rounded to the dtype (skipped when div == 1,
 * which changes nothing). No step is fused into an FMA on either backend, so the
 * result equals NumPy's bit for bit (inf, NaN, subnormals and squares that
 * overflow included).
 * parts: 1 <= nparts <= FV_MAX_NDIM arrays, float32 or float64, one dtype, shape
 * and device with out; any strides (views, negative strides), any ndim, empty
 * arrays. div: > 0 (inf allowed), 1 for no division; NaN or <= 0 is FV_EINVAL.
 * Aliasing: out may be one of the parts itself (same data pointer and strides,
 * e.g. in place into parts[0]); otherwise it must not overlap any part. The
 * parts may overlap each other (they are only read). */
FV_API fv_status fv_gradient_norm(fv_context *ctx, const fv_array *const *parts, int nparts, double div, fv_array *out);

FV_EXTERN_C_END

#endif
