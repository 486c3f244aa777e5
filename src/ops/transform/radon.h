/* The Radon ops of fovea/transform.h (fv_radon, fv_sart_projection_update);
 * src/ops/transform/radon.c validates and fills the params, src/cpu/transform
 * and src/cuda/transform run them. Arrays are C-contiguous, float32 or float64,
 * one dtype; the arithmetic is scikit-image 0.26's Cython in that type.
 *   RADON:  in = square image (n, n), out = sinogram (n, nangles): out[j, a] =
 *           sum over rows i, in order, of skimage's bilinear sample (zero
 *           outside, per tap) of in at matrix a applied to (column j, row i).
 *   SART:   in = image (m, m), in2 = projection (p,), out = the update (m, m)
 *           (sart_projection_update of _radon_transform.pyx).
 *   BACKPROJECT: in = filtered projections, float64 (nangles, p), out = the
 *           reconstruction (n, n), float32 / float64: iradon's linear back
 *           projection (numpy.interp per angle, added in angle order). */
#ifndef FV_OPS_RADON_H
#define FV_OPS_RADON_H

#include <math.h>
#include <stdint.h>
#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv__radon_params {
    int64_t nangles;
    const double *matrices; /* host: 6 per angle: (x, y) = (m0 c + m1 r + m2, m3 c + m4 r + m5) */
} fv__radon_params;

typedef struct fv__sart_params {
    double theta; /* degrees */
    double shift; /* projection shift, pixels */
} fv__sart_params;

typedef struct fv__backproject_params {
    int64_t nangles;
    const double *cs; /* host: numpy's cosines of the angles, then their sines */
} fv__backproject_params;

/* numpy.interp(t, x, col, left=0, right=0) with x = p // 2 distant integers
 * -(p // 2), ..., p - 1 - p // 2 (numpy's arr_interp, step for step). */
FV_HD double
fv__backproject_interp(double t, const double *col, int64_t p)
{
    const int64_t x0 = -(p / 2);
    const double first = (double)x0, last = (double)(x0 + p - 1);
    if (t != t)
        return t;
    if (p == 1)
        return t < first ? 0.0 : (t > last ? 0.0 : col[0]);
    if (t < first || t > last)
        return 0.0;
    const int64_t j = (int64_t)floor(t) - x0; /* x[j] <= t < x[j + 1], exactly */
    if (j >= p - 1)
        return col[p - 1];
    const double xj = (double)(x0 + j);
    if (xj == t)
        return col[j];
    const double slope = (col[j + 1] - col[j]) / ((double)(x0 + j + 1) - xj);
    double r = slope * (t - xj) + col[j];
    if (r != r) {
        r = slope * (t - (double)(x0 + j + 1)) + col[j + 1];
        if (r != r && col[j] == col[j + 1])
            r = col[j];
    }
    return r;
}

/* One reconstruction pixel (xpr = row - n / 2, ypr = column - n / 2): its
 * angles' interpolated values added in order, each sum rounded to T. cs: the
 * cosines then the sines (nangles each, on the kernel's side). */
#define FV__BACKPROJECT_PIXEL(T, S)                                                                           \
    FV_HD T fv__backproject_pixel_##S(const double *f, int64_t np, int64_t na, const double *cs, int64_t xpr, \
                                      int64_t ypr)                                                            \
    {                                                                                                         \
        T acc = 0;                                                                                            \
        for (int64_t a = 0; a < na; a++) {                                                                    \
            const double u = (double)ypr * cs[a], v = (double)xpr * cs[na + a];                               \
            acc = (T)((double)acc + fv__backproject_interp(u - v, f + a * np, np));                           \
        }                                                                                                     \
        return acc;                                                                                           \
    }
FV__BACKPROJECT_PIXEL(float, f)
FV__BACKPROJECT_PIXEL(double, d)

/* skimage's bilinear_interpolation with mode 'C', cval 0, at (row r, col c) of
 * img (rows x cols), and _transform_affine, in T (T: float or double; top and
 * bottom in double as scikit-image's). */
#define FV__RADON_SAMPLE(T, S)                                                                                       \
    FV_HD T fv__radon_pixel_##S(const T *img, int64_t rows, int64_t cols, long r, long c)                            \
    {                                                                                                                \
        return (r < 0 || r >= rows || c < 0 || c >= cols) ? (T)0 : img[r * cols + c];                                \
    }                                                                                                                \
    FV_HD T fv__radon_sample_##S(const T *img, int64_t n, const T *m, T col, T row)                                  \
    {                                                                                                                \
        const T c = m[0] * col + m[1] * row + m[2];                                                                  \
        const T r = m[3] * col + m[4] * row + m[5];                                                                  \
        const long minr = (long)floor(r), minc = (long)floor(c);                                                     \
        const long maxr = (long)ceil(r), maxc = (long)ceil(c);                                                       \
        const T dr = r - minr, dc = c - minc;                                                                        \
        const double top =                                                                                           \
            (1 - dc) * fv__radon_pixel_##S(img, n, n, minr, minc) + dc * fv__radon_pixel_##S(img, n, n, minr, maxc); \
        const double bottom =                                                                                        \
            (1 - dc) * fv__radon_pixel_##S(img, n, n, maxr, minc) + dc * fv__radon_pixel_##S(img, n, n, maxr, maxc); \
        return (T)((1 - dr) * top + dr * bottom);                                                                    \
    }
FV__RADON_SAMPLE(float, f)
FV__RADON_SAMPLE(double, d)

/* One ray of scikit-image's SART in T: its geometry (the ray at position
 * ray_position of a projection at theta degrees through the m x m image). */
#define FV__SART_RAY(T, S)                                                                                    \
    typedef struct fv__sart_ray_##S {                                                                         \
        T theta, ds, dx, dy, x0, y0, center;                                                                  \
        int64_t ns;                                                                                           \
    } fv__sart_ray_##S;                                                                                       \
    FV_HD fv__sart_ray_##S fv__sart_ray_init_##S(int64_t m, T theta_deg, T ray_position)                      \
    {                                                                                                         \
        fv__sart_ray_##S g;                                                                                   \
        T theta = theta_deg / 180. * M_PI;                                                                    \
        T radius = m / 2 - 1;                                                                                 \
        T center = m / 2;                                                                                     \
        T t = ray_position - center;                                                                          \
        T s0 = radius * radius >= t * t ? sqrt(radius * radius - t * t) : 0.;                                 \
        g.theta = theta;                                                                                      \
        g.center = center;                                                                                    \
        g.ns = 2 * (int64_t)ceil(2 * s0);                                                                     \
        g.ds = g.dx = g.dy = g.x0 = g.y0 = 0;                                                                 \
        if (g.ns > 0) {                                                                                       \
            g.ds = 2 * s0 / g.ns;                                                                             \
            g.dx = -g.ds * cos(theta);                                                                        \
            g.dy = -g.ds * sin(theta);                                                                        \
            g.x0 = s0 * cos(theta) - t * sin(theta);                                                          \
            g.y0 = s0 * sin(theta) + t * cos(theta);                                                          \
        }                                                                                                     \
        return g;                                                                                             \
    }                                                                                                         \
    /* Sample k's taps: rows i, i + 1, columns j, j + 1 and fractions di, dj. */                              \
    FV_HD void fv__sart_at_##S(const fv__sart_ray_##S *g, int64_t k, int64_t *i, int64_t *j, T *di, T *dj)    \
    {                                                                                                         \
        T x = g->x0 + k * g->dx;                                                                              \
        T y = g->y0 + k * g->dy;                                                                              \
        T index_i = x + g->center;                                                                            \
        T index_j = y + g->center;                                                                            \
        *i = (int64_t)floor(index_i);                                                                         \
        *j = (int64_t)floor(index_j);                                                                         \
        *di = index_i - floor(index_i);                                                                       \
        *dj = index_j - floor(index_j);                                                                       \
    }                                                                                                         \
    /* bilinear_ray_sum: the ray's sum through img and the sum of squared weights. */                         \
    FV_HD void fv__sart_sum_##S(const fv__sart_ray_##S *g, const T *img, int64_t m, T *ray_sum, T *wnorm)     \
    {                                                                                                         \
        T rs = 0., wn = 0., w, di, dj;                                                                        \
        int64_t i, j;                                                                                         \
        for (int64_t k = 0; g->ns > 0 && k < g->ns + 1; k++) {                                                \
            fv__sart_at_##S(g, k, &i, &j, &di, &dj);                                                          \
            if (i > 0 && j > 0) {                                                                             \
                w = (1. - di) * (1. - dj) * g->ds;                                                            \
                rs += w * img[i * m + j];                                                                     \
                wn += w * w;                                                                                  \
            }                                                                                                 \
            if (i > 0 && j < m - 1) {                                                                         \
                w = (1. - di) * dj * g->ds;                                                                   \
                rs += w * img[i * m + j + 1];                                                                 \
                wn += w * w;                                                                                  \
            }                                                                                                 \
            if (i < m - 1 && j > 0) {                                                                         \
                w = di * (1 - dj) * g->ds;                                                                    \
                rs += w * img[(i + 1) * m + j];                                                               \
                wn += w * w;                                                                                  \
            }                                                                                                 \
            if (i < m - 1 && j < m - 1) {                                                                     \
                w = di * dj * g->ds;                                                                          \
                rs += w * img[(i + 1) * m + j + 1];                                                           \
                wn += w * w;                                                                                  \
            }                                                                                                 \
        }                                                                                                     \
        *ray_sum = rs;                                                                                        \
        *wnorm = wn;                                                                                          \
    }                                                                                                         \
    /* The Hamming window of sample k and the update terms of its four taps (added to the T update \
     * as scikit-image's `+=` does: in double, then rounded to T). */          \
    FV_HD void fv__sart_w_##S(const fv__sart_ray_##S *g, T dev, int64_t k, T di, T dj, double out[4])         \
    {                                                                                                         \
        const T beta = (T)0.46164;                                                                            \
        const T ham = ((1 - beta) - beta * cos(2 * M_PI * k / (g->ns - 1)));                                  \
        out[0] = (dev * (1. - di) * (1. - dj) * g->ds * ham);                                                 \
        out[1] = (dev * (1. - di) * dj * g->ds * ham);                                                        \
        out[2] = (dev * di * (1 - dj) * g->ds * ham);                                                         \
        out[3] = (dev * di * dj * g->ds * ham);                                                               \
    }                                                                                                         \
    /* Ray r's deviation: -(its sum - proj) / its squared weights (0 for an empty ray). */                    \
    FV_HD T fv__sart_dev_##S(const T *img, int64_t m, T theta, T shift, int64_t r, T proj)                    \
    {                                                                                                         \
        fv__sart_ray_##S g = fv__sart_ray_init_##S(m, theta, (T)r + shift);                                   \
        T rs, wn;                                                                                             \
        fv__sart_sum_##S(&g, img, m, &rs, &wn);                                                               \
        return wn > 0. ? -(rs - proj) / wn : 0.;                                                              \
    }                                                                                                         \
    /* Sample k's update: its four taps' flat indices and terms; returns the mask of                    \
     * the taps scikit-image adds (bit q: tap q). */     \
    FV_HD unsigned fv__sart_terms_##S(const fv__sart_ray_##S *g, T dev, int64_t k, int64_t m, int64_t idx[4], \
                                      double w[4])                                                            \
    {                                                                                                         \
        int64_t i, j;                                                                                         \
        T di, dj;                                                                                             \
        fv__sart_at_##S(g, k, &i, &j, &di, &dj);                                                              \
        fv__sart_w_##S(g, dev, k, di, dj, w);                                                                 \
        idx[0] = i * m + j;                                                                                   \
        idx[1] = i * m + j + 1;                                                                               \
        idx[2] = (i + 1) * m + j;                                                                             \
        idx[3] = (i + 1) * m + j + 1;                                                                         \
        return (unsigned)(i > 0 && j > 0) | (unsigned)(i > 0 && j < m - 1) << 1 |                             \
            (unsigned)(i < m - 1 && j > 0) << 2 | (unsigned)(i < m - 1 && j < m - 1) << 3;                    \
    }
FV__SART_RAY(float, f)
FV__SART_RAY(double, d)

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(RADON, ...) in the kernel files. */
FV_OP(RADON, "radon", fv__radon_params);
FV_OP(SART, "sart_projection_update", fv__sart_params);
FV_OP(BACKPROJECT, "iradon_backproject", fv__backproject_params);

#ifdef __cplusplus
}
#endif

#endif
