/* The ops FFT and FOURIER (include/fovea/fft.h, docs/fft.md).
 *
 * Complex arrays are float32/float64 arrays with one more, trailing axis of
 * length 2 and stride one element (interleaved real, imaginary: NumPy's
 * complex64/complex128 memory). "Logical" shapes leave that axis out.
 *
 * FFT: in -> out along params.axes (logical axes of in/out, distinct).
 *   C2C: in, out complex, one logical shape.
 *   R2C: in real (logical shape S), out complex of S with S[last] -> n_last/2 + 1.
 *   C2R: in complex of S with S[last] = n_last/2 + 1, out real with S[last] = n_last.
 *   (last: params.axes[naxes - 1].) in and out of one precision, not overlapping.
 *   Kernels multiply the result by params.scale.
 * FOURIER: out = in * filter(frequency), scipy.ndimage's fourier_* (params.kind);
 *   in real or complex (params.in_complex), out real or complex, float32/float64,
 *   one logical shape. SHIFT needs a complex out. */
#ifndef FV_OPS_FFT_H
#define FV_OPS_FFT_H

#include <math.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__fft_params {
    int kind;    /* fv_fft_kind */
    int inverse; /* C2C: 1 for exp(+2 pi i jk/n) */
    int naxes;
    int axes[FV_MAX_NDIM];
    int64_t n_last; /* R2C/C2R: the real length along axes[naxes-1] */
    double scale;
} fv__fft_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(FFT, ...). */
FV_OP(FFT, "fft", fv__fft_params);

typedef struct fv__fourier_params {
    int kind; /* fv_fourier_kind */
    int in_complex, out_complex;
    int ndim;              /* logical */
    int axis;              /* the real-transform axis when n >= 0 */
    int64_t n;             /* < 0: complex transform along every axis */
    double p[FV_MAX_NDIM]; /* sigma, size or shift per axis */
} fv__fourier_params;

/* Kernels: FV_KERNEL(FOURIER, ...). */
FV_OP(FOURIER, "fourier", fv__fourier_params);

/* The factor of the filter for logical coordinate c along axis d (length len):
 * shared by the CPU and CUDA kernels. f: the signed frequency index. */
#ifdef __CUDACC__
#define FV__FOURIER_FN static __host__ __device__ inline
#else
#define FV__FOURIER_FN static inline
#endif

FV__FOURIER_FN int64_t
fv__fourier_freq(const fv__fourier_params *q, int d, int64_t len, int64_t c)
{
    if (d == q->axis && q->n >= 0)
        return c;
    return c < (len + 1) / 2 ? c : c - len;
}

/* The length the frequency is relative to along d. */
FV__FOURIER_FN double
fv__fourier_len(const fv__fourier_params *q, int d, int64_t len)
{
    return (double)((d == q->axis && q->n >= 0) ? q->n : len);
}


/* Kinds of FOURIER (the values of fv_fourier_kind). */
#define FV__FOURIER_GAUSSIAN 0
#define FV__FOURIER_UNIFORM 1
#define FV__FOURIER_ELLIPSOID 2
#define FV__FOURIER_SHIFT 3

/* One axis's term (scipy's ni_fourier.c tables): GAUSSIAN and UNIFORM multiply
 * the terms of all axes, ELLIPSOID and SHIFT add them (fv__fourier_finish). */
FV__FOURIER_FN double
fv__fourier_term(const fv__fourier_params *q, int d, int64_t len, int64_t c)
{
    const double pi = 3.14159265358979323846;
    const int add = q->kind == FV__FOURIER_ELLIPSOID || q->kind == FV__FOURIER_SHIFT;
    if (len <= 1)
        return add ? 0.0 : 1.0;
    const double f = (double)fv__fourier_freq(q, d, len, c);
    const double L = fv__fourier_len(q, d, len);
    switch (q->kind) {
    case FV__FOURIER_GAUSSIAN: {
        const double s = q->p[d] * pi / L;
        const double t = -2.0 * s * s * f * f;
        return fabs(t) > 50.0 ? 0.0 : exp(t);
    }
    case FV__FOURIER_UNIFORM: {
        const double t = pi * q->p[d] / L;
        if (f == 0.0)
            return 1.0;
        return t > 0.0 ? sin(t * f) / (t * f) : 0.0;
    }
    case FV__FOURIER_ELLIPSOID: {
        const double v = f * (pi * q->p[d] / L);
        return q->ndim > 1 ? v * v : v;
    }
    default:
        return -2.0 * pi * q->p[d] / L * f;
    }
}

/* The filter factor (or, for SHIFT, the phase) from the combined terms. */
FV__FOURIER_FN double
fv__fourier_finish(const fv__fourier_params *q, double acc)
{
    if (q->kind != FV__FOURIER_ELLIPSOID)
        return acc;
    if (q->ndim == 1)
        return acc != 0.0 ? sin(acc) / acc : 1.0;
    const double r = sqrt(acc);
    if (!(r > 0.0))
        return 1.0;
    if (q->ndim == 2)
        return 2.0 * j1(r) / r;
    return 3.0 * (sin(r) - r * cos(r)) / (r * r * r);
}

#ifdef __cplusplus
}
#endif

#endif
