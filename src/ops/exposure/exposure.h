/* Kernel parameters and shared helpers of the exposure ops
 * (include/fovea/exposure.h): MINMAX, HISTOGRAM and CLAHE. exposure.c
 * validates and fills them; src/cpu/exposure and src/cuda/exposure run them.
 * Kernels get C-contiguous in (and mask) arrays. Plain C; the inline helpers
 * compile as device code under nvcc too. */
#ifndef FV_EXPOSURE_KERNELS_H
#define FV_EXPOSURE_KERNELS_H

#include <stdint.h>
#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_MINMAX ------------------------------------------------------------
 * in (any dtype), in2 = mask or NULL (bool / uint8), out: host-visible result
 * through the params (the kernel writes them). out is a scratch uint64[4] on
 * in's device (the CUDA kernel's atomics). */
typedef struct fv__minmax_params {
    double min, max; /* results */
    int64_t count;
} fv__minmax_params;

/* ---- FV__OP_HISTOGRAM ---------------------------------------------------------
 * in, in2 = mask or NULL, out = int64 counts[nbins] (contiguous). */
typedef struct fv__histogram_params {
    fv_histogram_spec spec;
} fv__histogram_params;

/* ---- FV__OP_CLAHE ---------------------------------------------------------------
 * in, out: uint16, one shape. */
typedef struct fv__clahe_params {
    int ndim;
    int64_t shape[FV_MAX_NDIM];
    int64_t k[FV_MAX_NDIM];  /* kernel size */
    int64_t ps[FV_MAX_NDIM]; /* padding before: k / 2 */
    int64_t nh[FV_MAX_NDIM]; /* histogram regions per axis */
    int64_t ntiles;          /* prod(nh) */
    int64_t kelem;           /* prod(k) */
    int64_t nb;              /* bins in each region's histogram */
    int64_t bin_size;
    int64_t clim; /* clip limit in counts */
} fv__clahe_params;

#define FV__CLAHE_GRAY 16384 /* NR_OF_GRAY */

/* numpy 'reflect' padding: padded coordinate p (pad ps before) to the source. */
FV_HD int64_t
fv__reflect_index(int64_t p, int64_t ps, int64_t s)
{
    int64_t x = p - ps;
    if (s == 1)
        return 0;
    int64_t period = 2 * (s - 1);
    if (x < 0)
        x = -x;
    x %= period;
    return x >= s ? period - x : x;
}

/* Bin of a float value on numpy.histogram's uniform path; -1 when not counted. */
FV_HD int64_t
fv__hist_float_bin(double v, const fv_histogram_spec *p, const double *edges)
{
    const int64_t n = p->nbins;
    double a = p->single_bins ? (double)(float)v : v;
    if (!(v >= p->first && v <= p->last))
        return -1;
    int64_t i;
    if (p->single_diff) {
        float d = (float)a - (float)p->first;
        if (p->single_div) {
            float q = d / (float)p->denom;
            float f = q * (float)n;
            i = (int64_t)f;
        } else {
            double q = (double)d / p->denom;
            double f = q * (double)n;
            i = (int64_t)f;
        }
    } else {
        double q = (a - p->first) / p->denom;
        double f = q * (double)n;
        i = (int64_t)f;
    }
    if (i >= n)
        i = n - 1;
    if (i < 0)
        i = 0;
    if (a < edges[i]) {
        if (i > 0)
            i--;
    } else if (i != n - 1 && a >= edges[i + 1]) {
        i++;
    }
    return i;
}

/* Bin of an integer value in the by-value mode; -1 when outside. */
FV_HD int64_t
fv__hist_int_bin(int64_t v, int64_t lo, int64_t n)
{
    if (v < lo)
        return -1;
    uint64_t d = (uint64_t)v - (uint64_t)lo;
    return d < (uint64_t)n ? (int64_t)d : -1;
}

/* skimage's clip_histogram on one region's histogram h[nb], in place. */
FV_HD void
fv__clahe_clip(int32_t *h, int64_t nb, int64_t clim)
{
    int64_t n_excess = 0;
    for (int64_t b = 0; b < nb; b++)
        if (h[b] > clim) {
            n_excess += h[b] - clim;
            h[b] = (int32_t)clim;
        }
    const int64_t bin_incr = n_excess / nb, upper = clim - bin_incr;
    for (int64_t b = 0; b < nb; b++)
        if (h[b] < upper) {
            h[b] += (int32_t)bin_incr;
            n_excess -= bin_incr;
        }
    for (int64_t b = 0; b < nb; b++)
        if (h[b] >= upper && h[b] < clim) {
            n_excess += h[b] - clim;
            h[b] = (int32_t)clim;
        }
    while (n_excess > 0) {
        const int64_t prev = n_excess;
        for (int64_t index = 0; index < nb; index++) {
            int64_t under = 0;
            for (int64_t b = 0; b < nb; b++)
                under += h[b] < clim;
            int64_t step = under / n_excess;
            if (step < 1)
                step = 1;
            for (int64_t b = index; b < nb; b += step)
                if (h[b] < clim) {
                    h[b]++;
                    n_excess--;
                }
            if (n_excess <= 0)
                break;
        }
        if (prev == n_excess)
            break;
    }
}

/* skimage's map_histogram(hist, 0, 16383, kelem), in place (h becomes the map). */
FV_HD void
fv__clahe_map(int32_t *h, int64_t nb, int64_t kelem)
{
    const double scale = (double)(FV__CLAHE_GRAY - 1) / (double)kelem;
    int64_t cum = 0;
    for (int64_t b = 0; b < nb; b++) {
        cum += h[b];
        double v = (double)cum * scale;
        if (v > (double)(FV__CLAHE_GRAY - 1))
            v = (double)(FV__CLAHE_GRAY - 1);
        h[b] = (int32_t)v;
    }
}

/* Flat index of region `tile` (C order over nh) -> first padded coordinate per
 * axis, and the source offset (elements) of one of its pixels. */
FV_HD int64_t
fv__clahe_src(const fv__clahe_params *p, int64_t tile, int64_t j)
{
    int64_t off = 0, stride = 1;
    for (int d = p->ndim - 1; d >= 0; d--) {
        int64_t t = tile % p->nh[d], o = j % p->k[d];
        tile /= p->nh[d];
        j /= p->k[d];
        int64_t pc = p->ps[d] + t * p->k[d] + o;
        off += fv__reflect_index(pc, p->ps[d], p->shape[d]) * stride;
        stride *= p->shape[d];
    }
    return off;
}

/* The CLAHE result at flat source index idx (C order over shape), value v
 * (0..16383) there: skimage's interpolation of the 2^ndim surrounding maps
 * (luts: ntiles x nb int32), truncated to uint16. */
FV_HD uint16_t
fv__clahe_pixel(const fv__clahe_params *p, const int32_t *luts, int64_t idx, unsigned v)
{
    int64_t b[FV_MAX_NDIM];
    double c[FV_MAX_NDIM];
    const int nd = p->ndim;
    for (int d = nd - 1; d >= 0; d--) {
        int64_t x = idx % p->shape[d];
        idx /= p->shape[d];
        int64_t pc = x + p->ps[d];
        b[d] = pc / p->k[d];
        c[d] = (double)(pc - b[d] * p->k[d]) / (double)p->k[d];
    }
    if (v > FV__CLAHE_GRAY - 1)
        v = FV__CLAHE_GRAY - 1;
    const int64_t bin = (int64_t)v / p->bin_size;
    float r = 0.0f;
    for (unsigned e = 0; e < (1u << nd); e++) {
        int64_t tile = 0;
        double w = 1.0;
        for (int d = 0; d < nd; d++) {
            unsigned ed = (e >> (nd - 1 - d)) & 1u;
            int64_t t = b[d] + (int64_t)ed - 1;
            if (t < 0)
                t = 0;
            if (t > p->nh[d] - 1)
                t = p->nh[d] - 1;
            tile = tile * p->nh[d] + t;
        }
        /* skimage: np.prod over the axes' factors, last axis first */
        for (int d = nd - 1; d >= 0; d--) {
            unsigned ed = (e >> (nd - 1 - d)) & 1u;
            double f = ed ? c[d] : 1.0 - c[d];
            w = d == nd - 1 ? f : w * f;
        }
        double m = (double)luts[tile * p->nb + bin] * w;
        r += (float)m;
    }
    return (uint16_t)r;
}

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(MINMAX, HISTOGRAM and CLAHE, ...) in the kernel file. */
FV_OP(MINMAX, "minmax", fv__minmax_params);
FV_OP(HISTOGRAM, "histogram", fv__histogram_params);
FV_OP(CLAHE, "equalize_adapthist", fv__clahe_params);

#ifdef __cplusplus
}
#endif

#endif
