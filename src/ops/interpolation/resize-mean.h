/* The op RESIZE_MEAN: area-weighted ("local mean", "pixel mixing") resampling,
 * scikit-image 0.26's resize_local_mean.
 *
 * in: any real dtype, ndim >= 0; out: float32 or float64, in's ndim. Along an
 * axis of in size m and out size n (m != n), output cell i covers
 * [nb(i), nb(i+1)] of the input's extent and input pixel j covers
 * [ob(j), ob(j+1)]:
 *   grid_mode:  ob(j) = j, nb(i) = i * (m / n) (nb(n) = m)
 *   otherwise:  pixel centres at 0 .. m-1, the end pixels half wide:
 *               ob = [0, 0.5, 1.5, ..., m-1.5, m-1], nb = [0, v, v+s, ...,
 *               m-1-v, m-1] with v = (m-1) / (2 (n-1)), s = (m-1-2v) / (n-2)
 * (numpy.linspace's arithmetic: k * step + start, the last break exact). The
 * weight of pixel j in cell i is the length of the overlap divided by the
 * cell's total (an all-zero total gives NaN, as scikit-image's 0 / 0); the
 * output element is the weighted sum over its box, axis by axis (axis 0
 * innermost, as scikit-image's passes run). Axes with m == n are copied (weight 1). f32_breaks: the
 * breaks rounded to float32 first (scikit-image builds them in the image's
 * float type). Zero-weight pixels are not read. Kernels:
 * src/cpu/interpolation/resize-mean-cpu.c, src/cuda/interpolation/resize-mean.cu. */
#ifndef FV_OPS_RESIZE_MEAN_H
#define FV_OPS_RESIZE_MEAN_H

#include <math.h>
#include <stdint.h>
#include "internal.h"
#include "ops/interpolation/interp-math.h" /* fv__im_load, fv__im_store_plain */

#ifdef __cplusplus
extern "C" {
#endif

#define FV__RM_CACHE 32 /* weights kept per axis and output element */

typedef struct fv__rmean_params {
    int grid_mode;
    int f32_breaks;
} fv__rmean_params;

FV_OP(RESIZE_MEAN, "resize_mean", fv__rmean_params);

/* Break k (0..n) of the n output cells over an axis of m input pixels. */
FV_HD double
fv__rm_new_break(int grid, int64_t m, int64_t n, int64_t k, int f32)
{
    double b;
    if (grid) {
        b = k == n ? (double)m : (double)k * ((double)m / (double)n);
    } else {
        const double old = (double)(m - 1);
        const int64_t inner = n - 1;
        if (k == 0) {
            b = 0.0;
        } else if (k == n) {
            b = old;
        } else {
            const double v = 0.5 * old / (double)inner;
            if (inner > 1 && k == inner)
                b = old - v;
            else if (inner > 1)
                b = (double)(k - 1) * (((old - v) - v) / (double)(inner - 1)) + v;
            else
                b = v;
        }
    }
    return f32 ? (double)(float)b : b;
}

/* Break j (0..m) of the m input pixels. */
FV_HD double
fv__rm_old_break(int grid, int64_t m, int64_t j)
{
    if (grid || j == 0)
        return (double)j;
    return j == m ? (double)(m - 1) : (double)j - 0.5;
}

/* The overlap of cell [a, b] with input pixel j. */
FV_HD double
fv__rm_overlap(int grid, int64_t m, double a, double b, int64_t j)
{
    const double ob1 = fv__rm_old_break(grid, m, j + 1), ob0 = fv__rm_old_break(grid, m, j);
    const double hi = b < ob1 ? b : ob1;
    const double lo = a > ob0 ? a : ob0;
    return hi - lo > 0.0 ? hi - lo : 0.0;
}

/* One axis of one output element: the input pixels [lo, hi), the cell [a, b]
 * and its total weight (copy axes: lo = i, hi = i + 1, weight 1). */
typedef struct fv__rm_axis {
    int64_t lo, hi;
    double a, b, total;
    int copy;
} fv__rm_axis;

FV_HD void
fv__rm_axis_init(fv__rm_axis *ax, int grid, int f32, int64_t m, int64_t n, int64_t i)
{
    ax->copy = m == n;
    if (ax->copy) {
        ax->lo = i;
        ax->hi = i + 1;
        ax->total = 1.0;
        return;
    }
    ax->a = fv__rm_new_break(grid, m, n, i, f32);
    ax->b = fv__rm_new_break(grid, m, n, i + 1, f32);
    /* grid: pixel j is [j, j+1]; otherwise about [j-0.5, j+0.5] */
    int64_t lo = (int64_t)floor(grid ? ax->a : ax->a - 0.5);
    int64_t hi = (int64_t)ceil(grid ? ax->b : ax->b + 0.5);
    lo = lo < 0 ? 0 : (lo > m - 1 ? m - 1 : lo);
    hi = hi > m ? m : hi;
    if (hi <= lo)
        hi = lo + 1;
    ax->lo = lo;
    ax->hi = hi;
    double t = 0.0;
    for (int64_t j = lo; j < hi; j++)
        t += fv__rm_overlap(grid, m, ax->a, ax->b, j);
    ax->total = t;
}

FV_HD double
fv__rm_weight(const fv__rm_axis *ax, int grid, int64_t m, int64_t j)
{
    if (ax->copy)
        return 1.0;
    return fv__rm_overlap(grid, m, ax->a, ax->b, j) / ax->total;
}

/* The weighted sum over the box of ax[] (rank axes; in: shape m[], byte
 * strides st[], dtype dt, first element base), summed as scikit-image's passes
 * are, one axis after the other from axis 0: axis 0 varies fastest and acc[d]
 * holds the sum over axes 0..d for the current indices of the axes above d,
 * folded into acc[d + 1] with axis d + 1's weight when axis d wraps. w[d]:
 * axis d's weights from ax[d].lo on, or NULL to compute them on the fly. */
FV_HD double
fv__rm_sum(const char *base, int dt, int rank, const int64_t *m, const int64_t *st, const fv__rm_axis *ax,
           const double *const *w, int grid)
{
    if (rank == 0)
        return fv__im_load(base, dt);
    int64_t j[FV_MAX_NDIM];
    double acc[FV_MAX_NDIM];
    int64_t off = 0;
#define FV__RM_W(d) (w[d] ? w[d][j[d] - ax[d].lo] : fv__rm_weight(&ax[d], grid, m[d], j[d]))
    for (int d = 0; d < rank; d++) {
        j[d] = ax[d].lo;
        acc[d] = 0.0;
        off += j[d] * st[d];
    }
    for (;;) {
        const double w0 = FV__RM_W(0);
        if (w0 != 0.0)
            acc[0] += w0 * fv__im_load(base + off, dt);
        int d = 0;
        for (; d < rank; d++) {
            if (++j[d] < ax[d].hi) {
                off += st[d];
                break;
            }
            off -= (ax[d].hi - 1 - ax[d].lo) * st[d];
            j[d] = ax[d].lo;
            if (d + 1 < rank) {
                const double wu = FV__RM_W(d + 1);
                if (wu != 0.0)
                    acc[d + 1] += wu * acc[d];
                acc[d] = 0.0;
            }
        }
        if (d == rank)
            break;
    }
    return acc[rank - 1];
#undef FV__RM_W
}

/* The output element at index o[] (out's shape n[]), everything computed here
 * (the CUDA kernel): the weights of boxes up to FV__RM_CACHE wide kept in a
 * local array, wider ones on the fly. The CPU kernel reads the same weights
 * from tables made once per call (fv__rm_weight either way: equal results). */
FV_HD double
fv__rm_value(const char *base, int dt, int rank, const int64_t *m, const int64_t *st, const int64_t *n,
             const int64_t *o, int grid, int f32)
{
    fv__rm_axis ax[FV_MAX_NDIM];
    double wc[FV_MAX_NDIM][FV__RM_CACHE];
    const double *w[FV_MAX_NDIM];
    for (int d = 0; d < rank; d++) {
        fv__rm_axis_init(&ax[d], grid, f32, m[d], n[d], o[d]);
        w[d] = NULL;
        if (ax[d].hi - ax[d].lo <= FV__RM_CACHE) {
            for (int64_t k = 0; k < ax[d].hi - ax[d].lo; k++)
                wc[d][k] = fv__rm_weight(&ax[d], grid, m[d], ax[d].lo + k);
            w[d] = wc[d];
        }
    }
    return fv__rm_sum(base, dt, rank, m, st, ax, w, grid);
}

#ifdef __cplusplus
}
#endif

#endif
