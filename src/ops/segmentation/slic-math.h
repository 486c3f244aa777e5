/* The arithmetic of scikit-image 0.26's SLIC (_slic.pyx), written once for the
 * CPU kernel and, under nvcc, the CUDA kernel: both run these functions, so a
 * pixel's label from given centres is the same on either backend (no FMA
 * contraction: CMakeLists.txt's fovea_no_contraction).
 *
 * scikit-image visits the centres k = 0..K-1 and, for each, every pixel of its
 * window [c - 2 step, c + 2 step + 1) (truncated, clipped to the image), taking
 * k when its distance is strictly below the pixel's best so far. Here each
 * pixel visits the centres whose windows contain it, found through a grid of
 * bins (bin size = the integer steps; fv__slic_near), and keeps the smallest distance, the lowest k among equal
 * ones: the same choice. Distances are scikit-image's expressions in the
 * image's float type, term by term. */
#ifndef FV_OPS_SLIC_MATH_H
#define FV_OPS_SLIC_MATH_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* The bins of the centres (CSR: centres of bin b are seg_of[start[b] .. start[b+1]))
 * and each centre's window [lo, hi) per axis (win[6 k ..]: z, y, x). Host or device
 * pointers, as the caller runs. */
typedef struct fv__slic_grid {
    int64_t dim[3], step[3], nb[3];
    int64_t nfeat;
    const int64_t *start, *seg_of, *win;
} fv__slic_grid;

/* The bins [*lo, *hi] along axis d whose centres' windows can hold coordinate i:
 * a window holds i only when |c - i| < 2 step + 1 (a margin of one more cell). */
FV_HD void
fv__slic_near(const fv__slic_grid *g, int d, int64_t i, int64_t *lo, int64_t *hi)
{
    const int64_t s = g->step[d], a = i - 2 * s - 2, b = (i + 2 * s + 2) / s;
    *lo = a < 0 ? 0 : a / s;
    *hi = b >= g->nb[d] ? g->nb[d] - 1 : b;
}

/* scikit-image's terms: the spacing-weighted squared offset sp (c - i), and the
 * squared colour distance of pixel px to centre s (features 3.. of nfeat). */
#define FV__SLIC_TERMS(T, S)                                                                                    \
    FV_HD T fv__slic_sq_##S(T sp, T c, int64_t i)                                                               \
    {                                                                                                           \
        T d = sp * (c - (T)i);                                                                                  \
        d *= d;                                                                                                 \
        return d;                                                                                               \
    }                                                                                                           \
    FV_HD T fv__slic_color_##S(const T *px, const T *s, int64_t nfeat)                                          \
    {                                                                                                           \
        T dc = 0;                                                                                               \
        for (int64_t c = 3; c < nfeat; c++) {                                                                   \
            const T t = px[c - 3] - s[c];                                                                       \
            dc += t * t;                                                                                        \
        }                                                                                                       \
        return dc;                                                                                              \
    }                                                                                                           \
    /* the distance of centre k (at s) to a pixel whose dz + dy is dzy, at column x */                          \
    FV_HD T fv__slic_dist_##S(const T *s, T dzy, T spx, int64_t x, T sw, const T *px, const T *maxc, int64_t k, \
                              int64_t nfeat, int ignore_color, int slic_zero)                                   \
    {                                                                                                           \
        T dist = (dzy + fv__slic_sq_##S(spx, s[2], x)) * sw;                                                    \
        if (!ignore_color) {                                                                                    \
            T dc = fv__slic_color_##S(px, s, nfeat);                                                            \
            if (slic_zero)                                                                                      \
                dc /= maxc[k];                                                                                  \
            dist += dc;                                                                                         \
        }                                                                                                       \
        return dist;                                                                                            \
    }                                                                                                           \
    /* skimage's "distance[z, y, x] > dist": the pixel takes k (ties: the lowest k) */                          \
    FV_HD void fv__slic_take_##S(T dist, int64_t k, T *best, int64_t *bk)                                       \
    {                                                                                                           \
        if (dist < *best || (dist == *best && *bk >= 0 && k < *bk)) {                                           \
            *best = dist;                                                                                       \
            *bk = k;                                                                                            \
        }                                                                                                       \
    }
FV__SLIC_TERMS(float, f32)
FV__SLIC_TERMS(double, f64)

/* scikit-image's starting distance (DBL_MAX stored in T: inf in float32) */
#define FV__SLIC_FAR(T) (sizeof(T) == 4 ? (T)INFINITY : (T)DBL_MAX)

/* The pixel (z, y, x)'s best centre under grid g (-1: none has a finite distance
 * below the start value), from centres seg (K x nfeat) and the pixel's colour px.
 * sw: the spatial weight; sp: the spacing; maxc: SLIC-zero's colour maxima. */
#define FV__SLIC_BEST(T, S)                                                                                          \
    FV_HD int64_t fv__slic_best_##S(const fv__slic_grid *g, const T *seg, const T *px, const T *maxc, int64_t z,     \
                                    int64_t y, int64_t x, T sw, const T *sp, int ignore_color, int slic_zero)        \
    {                                                                                                                \
        const int64_t p3[3] = { z, y, x };                                                                           \
        int64_t lo[3], hi[3];                                                                                        \
        for (int d = 0; d < 3; d++)                                                                                  \
            fv__slic_near(g, d, p3[d], lo + d, hi + d);                                                              \
        T best = FV__SLIC_FAR(T);                                                                                    \
        int64_t bk = -1;                                                                                             \
        for (int64_t iz = lo[0]; iz <= hi[0]; iz++)                                                                  \
            for (int64_t iy = lo[1]; iy <= hi[1]; iy++)                                                              \
                for (int64_t ix = lo[2]; ix <= hi[2]; ix++) {                                                        \
                    const int64_t b = (iz * g->nb[1] + iy) * g->nb[2] + ix;                                          \
                    for (int64_t j = g->start[b]; j < g->start[b + 1]; j++) {                                        \
                        const int64_t k = g->seg_of[j];                                                              \
                        const int64_t *w = g->win + 6 * k;                                                           \
                        if (z < w[0] || z >= w[1] || y < w[2] || y >= w[3] || x < w[4] || x >= w[5])                 \
                            continue;                                                                                \
                        const T *s = seg + k * g->nfeat;                                                             \
                        const T dzy = fv__slic_sq_##S(sp[0], s[0], z) + fv__slic_sq_##S(sp[1], s[1], y);             \
                        fv__slic_take_##S(                                                                           \
                            fv__slic_dist_##S(s, dzy, sp[2], x, sw, px, maxc, k, g->nfeat, ignore_color, slic_zero), \
                            k, &best, &bk);                                                                          \
                    }                                                                                                \
                }                                                                                                    \
        return bk;                                                                                                   \
    }
FV__SLIC_BEST(float, f32)
FV__SLIC_BEST(double, f64)

/* skimage's window of centre c on an axis of n cells, step s:
 * [<Py_ssize_t>max(c - 2 s, 0), <Py_ssize_t>min(c + 2 s + 1, n)); empty for NaN. */
#define FV__SLIC_WIN(T, S)                                                                   \
    static inline void fv__slic_win_##S(T c, int64_t s, int64_t n, int64_t *lo, int64_t *hi) \
    {                                                                                        \
        const T a = c - (T)(2 * s), b = c + (T)(2 * s) + (T)1;                               \
        if (a != a || b != b) {                                                              \
            *lo = *hi = 0;                                                                   \
            return;                                                                          \
        }                                                                                    \
        *lo = (T)0 > a ? 0 : (int64_t)a;                                                     \
        *hi = (T)n < b ? n : (int64_t)b;                                                     \
    }
FV__SLIC_WIN(float, f32)
FV__SLIC_WIN(double, f64)

/* Host: the windows and bins of the K centres seg (in g->nfeat columns) into win
 * (6 K), start (nbins + 1) and seg_of (K, centres in k order within a bin);
 * bin_of: K entries of scratch. Centres with an empty window (NaN) are left out. */
#define FV__SLIC_BIN(T, S)                                                                                             \
    static inline void fv__slic_bin_##S(const fv__slic_grid *g, const T *seg, int64_t K, int64_t *win, int64_t *start, \
                                        int64_t *seg_of, int64_t *bin_of)                                              \
    {                                                                                                                  \
        const int64_t nbins = g->nb[0] * g->nb[1] * g->nb[2];                                                          \
        for (int64_t b = 0; b <= nbins; b++)                                                                           \
            start[b] = 0;                                                                                              \
        for (int64_t k = 0; k < K; k++) {                                                                              \
            int64_t b = 0, ok = 1;                                                                                     \
            for (int d = 0; d < 3; d++) {                                                                              \
                const T c = seg[k * g->nfeat + d];                                                                     \
                int64_t *w = win + 6 * k + 2 * d;                                                                      \
                fv__slic_win_##S(c, g->step[d], g->dim[d], w, w + 1);                                                  \
                ok &= w[0] < w[1];                                                                                     \
                const double q = floor((double)c / (double)g->step[d]);                                                \
                b = b * g->nb[d] + (q < 0 ? 0 : q >= (double)g->nb[d] ? g->nb[d] - 1 : (int64_t)q);                    \
            }                                                                                                          \
            bin_of[k] = ok ? b : -1;                                                                                   \
            if (ok)                                                                                                    \
                start[b + 1]++;                                                                                        \
        }                                                                                                              \
        for (int64_t b = 0; b < nbins; b++)                                                                            \
            start[b + 1] += start[b];                                                                                  \
        for (int64_t k = 0; k < K; k++)                                                                                \
            if (bin_of[k] >= 0)                                                                                        \
                seg_of[start[bin_of[k]]++] = k;                                                                        \
        for (int64_t b = nbins; b > 0; b--)                                                                            \
            start[b] = start[b - 1];                                                                                   \
        start[0] = 0;                                                                                                  \
    }
FV__SLIC_BIN(float, f32)
FV__SLIC_BIN(double, f64)

/* scikit-image's _enforce_label_connectivity_cython on (D, H, W) labels seg into
 * out: breadth-first components (6-connected, neighbours in the order x+1, x-1,
 * y+1, y-1, z+1, z-1), searches stopped at max_size pixels, components below
 * min_size given the last adjacent label seen. list: max(max_size, 1) entries. */
FV_HD void
fv__slic_connect(const int64_t *seg, int64_t *out, int64_t D, int64_t H, int64_t W, int64_t min_size, int64_t max_size,
                 int64_t start_label, int64_t *list)
{
    const int64_t none = start_label - 1, n = D * H * W;
    for (int64_t p = 0; p < n; p++)
        out[p] = none;
    int64_t cur = start_label;
    for (int64_t p = 0; p < n; p++) {
        if (seg[p] == none || out[p] > none)
            continue;
        int64_t adjacent = cur, label = seg[p], size = 1, visited = 0;
        out[p] = cur;
        list[0] = p;
        while (visited < size && size < max_size) {
            const int64_t q = list[visited], z = q / (H * W), y = q / W % H, x = q % W;
            for (int i = 0; i < 6; i++) {
                const int64_t xx = x + (i == 0) - (i == 1), yy = y + (i == 2) - (i == 3);
                const int64_t zz = z + (i == 4) - (i == 5);
                if (xx < 0 || xx >= W || yy < 0 || yy >= H || zz < 0 || zz >= D)
                    continue;
                const int64_t r = (zz * H + yy) * W + xx;
                if (seg[r] == label && out[r] == none) {
                    out[r] = cur;
                    list[size++] = r;
                    if (size >= max_size)
                        break;
                } else if (out[r] > none && out[r] != cur) {
                    adjacent = out[r];
                }
            }
            visited++;
        }
        if (size < min_size) {
            for (int64_t i = 0; i < size; i++)
                out[list[i]] = adjacent;
        } else {
            cur++;
        }
    }
}

#ifdef __cplusplus
}
#endif

#endif
