/* Image restoration (docs/restoration.md): Richardson-Lucy deconvolution by FFT
 * on the CPU (fovea's FFT engine) and on NVIDIA GPUs (cuFFT), every iteration
 * in C. Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_RESTORATION_H
#define FOVEA_RESTORATION_H

#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* Called after each iteration with the number done and the total (on the GPU:
 * when the iteration's work is queued). */
typedef void (*fv_iter_progress)(void *user, int done, int total);

/* scikit-image 0.26's restoration.richardson_lucy: starting from 0.5
 * everywhere, num_iter times
 *     conv = convolve(estimate, psf, 'same') + 1e-12
 *     estimate *= convolve(image / conv, flip(psf), 'same')
 * (image / conv set to 0 where conv < filter_epsilon when filter is nonzero),
 * then clip to [-1, 1] when clip. Convolutions are linear with zeros outside the
 * image (scipy.signal.convolve's 'same'), computed by real FFTs over a grid of
 * at least image + psf / 2 along each axis (2-3-5-7-smooth lengths; the PSF's
 * transform made once).
 * image, psf, out: float32 or float64, one dtype, one device, equal ndim (1 to
 * 7); out has image's shape and overlaps neither. psf: any shape, not empty.
 * num_iter >= 0. progress may be NULL. */
FV_API fv_status fv_richardson_lucy(fv_context *ctx, const fv_array *image, const fv_array *psf, int num_iter, int clip,
                                    int filter, double filter_epsilon, fv_array *out, fv_iter_progress progress,
                                    void *user);

FV_EXTERN_C_END

#endif
