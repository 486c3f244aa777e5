/* The op RL: the element-wise steps of Richardson-Lucy deconvolution
 * (fv_richardson_lucy, src/ops/restoration/richardson-lucy.c). The composition
 * runs the FFTs (the op FFT) between them.
 *
 * Arrays: the image domain has shape n (ndim axes); the FFT grid has shape m
 * (m[d] >= n[d], the image in its corner at the origin, zeros elsewhere) and
 * its real spectrum shape m with m[last] -> m[last]/2 + 1 (complex: a trailing
 * pair axis). Every array handed to a kernel is C-contiguous; in, in2 and out
 * share one dtype (float32 or float64).
 *   PLACE:  out (grid) = the source in (shape p) circularly shifted: out[g] =
 *           in[k] (or in[p-1-k] with flip; or `value` with fill) where
 *           k[d] = (g[d] + shift[d]) mod m[d] is < p[d] on every axis, else 0.
 *   CMUL:   out (spectrum) *= in (spectrum), or conj(in) with conj.
 *   DIVIDE: out (grid): inside the domain out[g] = in[j] / (out[g] + eps), 0
 *           where filter is set and out[g] + eps < filter_epsilon; 0
 *           outside the domain. in: the image (shape n).
 *   UPDATE: out (grid) *= in (grid) inside the domain; outside untouched.
 *   OUT:    out (shape n) = in (grid) inside the domain, clipped to [-1, 1]
 *           with clip (NaN stays NaN, as skimage's masks leave it).
 * The scalars are rounded to the dtype first (NumPy 2's rules for Python
 * scalars with float32 arrays). */
#ifndef FV_OPS_RESTORATION_H
#define FV_OPS_RESTORATION_H

#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

enum {
    FV__RL_PLACE = 0,
    FV__RL_CMUL = 1,
    FV__RL_DIVIDE = 2,
    FV__RL_UPDATE = 3,
    FV__RL_OUT = 4
};

typedef struct fv__rl_params {
    int step; /* FV__RL_* */
    int ndim;
    int64_t n[FV_MAX_NDIM];     /* the image domain */
    int64_t m[FV_MAX_NDIM];     /* the FFT grid */
    int64_t p[FV_MAX_NDIM];     /* PLACE: the source's shape */
    int64_t shift[FV_MAX_NDIM]; /* PLACE */
    int flip, fill, conj, clip;
    int filter;                 /* DIVIDE: filter_epsilon given (skimage: truthy) */
    double value;               /* PLACE with fill */
    double eps, filter_epsilon; /* DIVIDE */
} fv__rl_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(RL, ...). */
FV_OP(RL, "richardson_lucy", fv__rl_params);

/* PLACE: the source's flat index for grid index g, or -1 (a zero). */
FV_HD int64_t
fv__rl_place_src(const fv__rl_params *q, int64_t g)
{
    int64_t k = 0, stride = 1;
    for (int d = q->ndim - 1; d >= 0; d--) {
        const int64_t c = g % q->m[d];
        g /= q->m[d];
        int64_t s = (c + q->shift[d]) % q->m[d];
        if (s >= q->p[d])
            return -1;
        if (q->flip)
            s = q->p[d] - 1 - s;
        k += s * stride;
        stride *= q->p[d];
    }
    return k;
}

/* Flat index i over shape `from` (nd axes, C order) -> the flat index of the same
 * coordinates over shape `to`, or -1 when a coordinate is outside `to`. Grid ->
 * domain (-1 outside the image) and domain -> grid; over ndim - 1 axes, rows. */
FV_HD int64_t
fv__rl_remap(int nd, const int64_t *from, const int64_t *to, int64_t i)
{
    int64_t j = 0, stride = 1;
    for (int d = nd - 1; d >= 0; d--) {
        const int64_t c = i % from[d];
        i /= from[d];
        if (c >= to[d])
            return -1;
        j += c * stride;
        stride *= to[d];
    }
    return j;
}

/* DIVIDE's value for image value v and convolution c (T: float or double). */
#define FV__RL_RELATIVE(T, v, c, eps, filter, fe) \
    ((filter) && (T)((c) + (eps)) < (fe) ? (T)0 : (T)((v) / (T)((c) + (eps))))

/* OUT's value. */
#define FV__RL_CLIP(v, clip) ((clip) && (v) > 1 ? 1 : (clip) && (v) < -1 ? -1 : (v))

#ifdef __cplusplus
}
#endif

#endif
