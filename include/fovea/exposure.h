/* Histograms, min / max and CLAHE (the heavy parts of skimage.exposure and of
 * the skimage.filters thresholds) on the CPU and CUDA backends.
 *
 * Inputs may have any strides (non-contiguous ones are copied first); masks are
 * bool or uint8 arrays of the input's shape on its device (nonzero = counted).
 * CPU: per-thread partial results merged at the end. CUDA: shared-memory
 * privatised histograms flushed with 64-bit atomics; min / max through an
 * order-preserving integer key and atomics.
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_EXPOSURE_H
#define FOVEA_EXPOSURE_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* Minimum and maximum of in (any real dtype) over the elements where mask is
 * nonzero (mask NULL: all), as doubles (64-bit integers beyond 2^53 round).
 * Any NaN among them makes both results NaN (NumPy's min / max). count (may be
 * NULL) receives the number of elements considered; with none, min = max = 0. */
FV_API fv_status fv_minmax(fv_context *ctx, const fv_array *in, const fv_array *mask, double *min, double *max,
                           int64_t *count);

/* How fv_histogram bins values. */
typedef struct fv_histogram_spec {
    int64_t nbins; /* >= 1 */
    int integer;   /* 1: one bin per integer value (integer dtypes only):
                           * counts[v - lo] for lo <= v < lo + nbins, others ignored */
    int64_t lo;
    /* integer == 0: numpy.histogram's uniform-bin path over [first, last] (the
     * last bin closed, values outside or NaN ignored), replicated exactly:
     * a = v cast to the bin dtype; i = (int)(((a - first) / denom) * nbins)
     * with a - first in float32 when single_diff, the division and product in
     * float32 when single_div (else double); i == nbins -> nbins - 1; then
     * i -= 1 when a < edges[i], else i += 1 when a >= edges[i + 1] and
     * i != nbins - 1. */
    double first, last, denom;
    int single_bins; /* bin dtype float32: values are rounded to float32 first */
    int single_diff, single_div;
    const double *edges; /* host: nbins + 1 bin edges (numpy.linspace's values) */
} fv_histogram_spec;

/* counts (int64, 1-d of spec->nbins elements, C-contiguous, on in's device)
 * = the histogram of in (any real dtype) over the elements where mask is
 * nonzero (mask NULL: all). */
FV_API fv_status fv_histogram(fv_context *ctx, const fv_array *in, const fv_array *mask, const fv_histogram_spec *spec,
                              fv_array *counts);

/* The core of skimage.exposure.equalize_adapthist (_clahe of scikit-image
 * 0.26): in and out uint16 of one shape and device, in holding values 0..16383
 * (larger ones are taken as 16383). Contextual regions of kernel_size[ndim]
 * (each >= 1) over the image reflect-padded by k // 2 before and
 * (k - s % k) % k + ceil(k / 2) after; per region a histogram of nbins (>= 1)
 * bins of width 1 + 16384 / nbins, clipped at max(1, (int)(clip_limit * region
 * size)) when clip_limit > 0 (else unclipped) with skimage's redistribution,
 * mapped to 0..16383; each pixel interpolates the maps of the 2^ndim regions
 * around it (double weights, float32 sums in skimage's order) and out gets
 * the float32 sum truncated. Bit-exact with scikit-image. */
FV_API fv_status fv_clahe(fv_context *ctx, const fv_array *in, fv_array *out, const int64_t *kernel_size,
                          double clip_limit, int64_t nbins);

FV_EXTERN_C_END

#endif
