/* Fast Fourier transforms and scipy.ndimage's Fourier-domain filters on the
 * CPU and CUDA backends (docs/fft.md).
 *
 * Complex data: float32 / float64 arrays with one more, trailing axis of length
 * 2 whose stride is one element (real, imaginary interleaved: the memory of
 * NumPy's complex64 / complex128). "Logical" shapes and axes leave that axis
 * out. Other strides are free on the CPU; the CUDA backend copies
 * non-contiguous operands.
 *
 * CPU: fovea's own mixed-radix FFT (radix 2, 3, 4 and odd radices to 31,
 * Bluestein above: every length is O(n log n)), lines spread over the thread
 * pool; 1-D plans cached per (length, precision). CUDA: cuFFT, loaded at run
 * time (libcufft.so.12); plans cached per (shape, axes, type, device).
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_FFT_H
#define FOVEA_FFT_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

typedef enum fv_fft_kind {
    FV_FFT_C2C = 0, /* complex -> complex                                   */
    FV_FFT_R2C = 1, /* real -> half spectrum (forward)                      */
    FV_FFT_C2R = 2  /* half spectrum -> real (inverse)                      */
} fv_fft_kind;

/* out = scale * DFT of in along the logical axes axes[0..naxes) (distinct,
 * 1 <= naxes <= logical ndim; negative values count from the end). Forward
 * transforms use exp(-2 pi i jk/n), inverse ones (inverse = 1; C2R always)
 * exp(+2 pi i jk/n), both unnormalised before scale.
 *   C2C: in and out complex of one logical shape.
 *   R2C: in real; out complex, in's shape with the last transformed axis
 *        (axes[naxes-1]) n/2 + 1 long, n its length in in.
 *   C2R: in complex; out real; n = out's length along axes[naxes-1] and in's
 *        length there must be n/2 + 1 (imaginary parts of the zero and Nyquist
 *        frequencies are ignored, as NumPy does).
 * in and out: one precision (float32 or float64), one device, not overlapping;
 * out writeable. Zero-size arrays are fine (nothing happens); a transformed
 * length of zero is FV_EINVAL. */
FV_API fv_status fv_fft(fv_context *ctx, const fv_array *in, fv_array *out, fv_fft_kind kind, int naxes,
                        const int *axes, int inverse, double scale);

typedef enum fv_fourier_kind {
    FV_FOURIER_GAUSSIAN = 0,  /* params: sigma per axis      */
    FV_FOURIER_UNIFORM = 1,   /* params: size per axis       */
    FV_FOURIER_ELLIPSOID = 2, /* params: size per axis (logical ndim 1 to 3) */
    FV_FOURIER_SHIFT = 3      /* params: shift per axis; out complex */
} fv_fourier_kind;

/* scipy.ndimage.fourier_gaussian / _uniform / _ellipsoid / _shift: out = in
 * times the filter's transform at each frequency. in is the transform of an
 * array along every axis (n < 0) or a real transform along `axis` (n >= 0: n
 * is the length before that transform). params: one double per logical axis.
 * in: any real dtype, or complex (in_complex = 1; float32/float64 pairs); out:
 * float32 / float64, complex when out_complex; SHIFT needs a complex out. in and
 * out of one logical shape on one device; out may be in itself (same layout). */
FV_API fv_status fv_fourier_filter(fv_context *ctx, const fv_array *in, int in_complex, fv_array *out, int out_complex,
                                   fv_fourier_kind kind, const double *params, int64_t n, int axis);

FV_EXTERN_C_END

#endif
