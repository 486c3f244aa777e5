/* Denoising kernels (the heavy parts of skimage.restoration's denoise_*) on the
 * CPU and CUDA backends.
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_DENOISE_H
#define FOVEA_DENOISE_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* Total-variation denoising by Chambolle's algorithm, as scikit-image 0.26's
 * denoise_tv_chambolle computes it for one image: the dual variable p (one
 * component per axis) starts at 0; each iteration takes out = in - div p,
 * the energy E = (sum (div p)^2 + weight * sum |grad out|) / size, and
 * p = (p - tau grad out) / (1 + tau / weight |grad out|), tau = 1 / (2 ndim),
 * forward differences with 0 on the last index. The first iteration's E is
 * E_0; it stops after the iteration where |E_prev - E| < eps E_0, or after
 * max_iter, and out holds that iteration's out.
 * in, out: float32 or float64 of one shape and device, computed in that dtype
 * (the energy in float64). channels != 0: axis 0 indexes independent images
 * (each with its own stop), the others are spatial; else all axes are. */
FV_API fv_status fv_denoise_tv_chambolle(fv_context *ctx, const fv_array *in, fv_array *out, double weight, double eps,
                                         int64_t max_iter, int channels);

/* scikit-image 0.26's pixelwise non-local means (denoise_nl_means with
 * fast_mode=False): out (spatial..., channels; 2-d with up to 64 channels or
 * 3-d with 1) from padded (out reflect-padded by s / 2 on the spatial axes),
 * the Gaussian patch weights w (s^ndim, already divided by channels * sum * h^2
 * as scikit-image does), patch size s (odd), search distance d and noise
 * variance var. All float32 or all float64, C-contiguous, on the host. */
FV_API fv_status fv_denoise_nl_means(fv_context *ctx, const fv_array *padded, const fv_array *w, fv_array *out,
                                     int64_t s, int64_t d, double var);

/* scikit-image 0.26's denoise_nl_means with fast_mode=True (Froment's shift
 * loop, 2-d to 4-d, up to 64 channels), in float64: padded (spatial...,
 * channels) is the image reflect-padded by s / 2 + d + 1 on the spatial axes;
 * out (padded's shape) receives the denoised values (its interior is the
 * result). Patch size s (odd), search distance d, cut-off h, noise variance
 * var. Host arrays, C-contiguous. */
FV_API fv_status fv_denoise_nl_means_fast(fv_context *ctx, const fv_array *padded, fv_array *out, int64_t s, int64_t d,
                                          double h, double var);

/* scikit-image 0.26's split-Bregman total-variation denoising of in (rows,
 * cols, dims; float32 or float64, host, C-contiguous) into out (rows + 2,
 * cols + 2, dims, the same dtype; the border is scikit-image's padding): one
 * Gauss-Seidel sweep per iteration until the root-mean-square change is at
 * most eps or max_iter sweeps. out's content on entry starts the split
 * variables (scikit-image: zeros, or the previous channel's result). */
FV_API fv_status fv_denoise_tv_bregman(fv_context *ctx, const fv_array *in, fv_array *out, double weight,
                                       int64_t max_iter, double eps, int isotropic);

/* The gathering step of the reliability-sorted phase unwrapper: edges (int64
 * (m, 3): pixel, pixel, wrap increment e, in processing order; pixels outside
 * 0..n-1 skipped) join pixel groups, a smaller group joining the larger, so
 * that increments[p2] = increments[p1] - e along every joining edge;
 * increments (int64 (n,)) receives each pixel's number of 2 pi to add. */
FV_API fv_status fv_unwrap_gather(fv_context *ctx, const fv_array *edges, fv_array *increments);

FV_EXTERN_C_END

#endif
