/* CPU kernel of FV__OP_QUICKSHIFT (fv_quickshift): scikit-image 0.26's
 * _quickshift_cython.
 *
 * Densities: each pixel's start value (the caller's tie-breaking noise) plus
 * exp(-d^2 / (2 kernel_size^2)) over the (2 ceil(3 kernel_size) + 1)^2 window,
 * d^2 the colour distance plus the squared row and column offsets, summed in
 * scikit-image's order and types (float32 data: float32 distances, exp in
 * double, each sum rounded to float32). Parents: the nearest pixel of the
 * window with a strictly higher density (first in raster order among equal
 * distances). Both per pixel, rows over the thread pool. Links longer than
 * max_dist are cut; labels number the trees by their roots' raster order (as
 * NumPy's unique of the roots). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "alloc.h"
#include "ops/segmentation/superpixels.h"

typedef struct fv__qs_job {
    const void *img;
    void *dens, *dist;
    int64_t *parent;
    int64_t h, w, c, kw;
    double ks;
} fv__qs_job;

/* the window [*lo, *hi) of kernel_width cells either side of i on an axis of n */
static inline void
fv__qs_window(int64_t i, int64_t kw, int64_t n, int64_t *lo, int64_t *hi)
{
    *lo = i - kw < 0 ? 0 : i - kw;
    *hi = i + kw + 1 > n ? n : i + kw + 1;
}

#define FV__QS(T, S)                                                                                               \
    static inline T fv__qs_d2_##S(const fv__qs_job *j, const T *img, int64_t r, int64_t c, int64_t r2, int64_t c2) \
    {                                                                                                              \
        const T *x = img + (r * j->w + c) * j->c, *y = img + (r2 * j->w + c2) * j->c;                              \
        T dist = 0, t;                                                                                             \
        for (int64_t ch = 0; ch < j->c; ch++) {                                                                    \
            t = x[ch] - y[ch];                                                                                     \
            dist += t * t;                                                                                         \
        }                                                                                                          \
        t = (T)(r - r2);                                                                                           \
        dist += t * t;                                                                                             \
        t = (T)(c - c2);                                                                                           \
        dist += t * t;                                                                                             \
        return dist;                                                                                               \
    }                                                                                                              \
    static void fv__qs_density_##S(void *arg, int64_t b, int64_t e)                                                \
    {                                                                                                              \
        fv__qs_job *j = arg;                                                                                       \
        const T *img = (const T *)j->img;                                                                          \
        T *dens = (T *)j->dens;                                                                                    \
        const T ks = (T)j->ks;                                                                                     \
        const T inv = (T)(-0.5 / (ks * ks));                                                                       \
        for (int64_t r = b; r < e; r++) {                                                                          \
            int64_t r0, r1, c0, c1;                                                                                \
            fv__qs_window(r, j->kw, j->h, &r0, &r1);                                                               \
            for (int64_t c = 0; c < j->w; c++) {                                                                   \
                fv__qs_window(c, j->kw, j->w, &c0, &c1);                                                           \
                T d = dens[r * j->w + c];                                                                          \
                for (int64_t r2 = r0; r2 < r1; r2++)                                                               \
                    for (int64_t c2 = c0; c2 < c1; c2++)                                                           \
                        d += exp(fv__qs_d2_##S(j, img, r, c, r2, c2) * inv);                                       \
                dens[r * j->w + c] = d;                                                                            \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
    static void fv__qs_parent_##S(void *arg, int64_t b, int64_t e)                                                 \
    {                                                                                                              \
        fv__qs_job *j = arg;                                                                                       \
        const T *img = (const T *)j->img, *dens = (const T *)j->dens;                                              \
        T *dist = (T *)j->dist;                                                                                    \
        for (int64_t r = b; r < e; r++) {                                                                          \
            int64_t r0, r1, c0, c1;                                                                                \
            fv__qs_window(r, j->kw, j->h, &r0, &r1);                                                               \
            for (int64_t c = 0; c < j->w; c++) {                                                                   \
                fv__qs_window(c, j->kw, j->w, &c0, &c1);                                                           \
                const T cur = dens[r * j->w + c];                                                                  \
                T closest = sizeof(T) == 4 ? (T)INFINITY : (T)DBL_MAX;                                             \
                int64_t par = r * j->w + c;                                                                        \
                for (int64_t r2 = r0; r2 < r1; r2++)                                                               \
                    for (int64_t c2 = c0; c2 < c1; c2++) {                                                         \
                        if (!(dens[r2 * j->w + c2] > cur))                                                         \
                            continue;                                                                              \
                        const T dd = fv__qs_d2_##S(j, img, r, c, r2, c2);                                          \
                        if (dd < closest) {                                                                        \
                            closest = dd;                                                                          \
                            par = r2 * j->w + c2;                                                                  \
                        }                                                                                          \
                    }                                                                                              \
                j->parent[r * j->w + c] = par;                                                                     \
                dist[r * j->w + c] = (T)sqrt(closest);                                                             \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
    static int fv__qs_far_##S(const fv__qs_job *j, int64_t i, double max_dist)                                     \
    {                                                                                                              \
        return ((const T *)j->dist)[i] > (T)max_dist;                                                              \
    }
FV__QS(float, f32)
FV__QS(double, f64)

static fv_status
fv__cpu_quickshift(fv_context *ctx, const fv__op_args *a)
{
    const fv__quickshift_params *p = fv__params_QUICKSHIFT(a);
    const int f32 = a->in->dtype == FV_FLOAT32;
    const size_t isz = f32 ? sizeof(float) : sizeof(double);
    fv__qs_job j = {
        .img = a->in->data, .h = a->in->shape[0], .w = a->in->shape[1], .c = a->in->shape[2], .ks = p->kernel_size
    };
    const int64_t n = j.h * j.w;
    /* skimage: <int>ceil(3 * kernel_size), kernel_size in the image's type */
    j.kw = f32 ? (int64_t)(int)ceil(3 * (float)p->kernel_size) : (int64_t)(int)ceil(3 * p->kernel_size);
    int64_t *lab = (int64_t *)a->out->data;
    j.dens = fv__malloc(isz * (size_t)(n + 1));
    j.dist = p->dist ? p->dist->data : fv__malloc(isz * (size_t)(n + 1));
    j.parent = fv__malloc(sizeof(int64_t) * (size_t)(n + 1));
    fv_status st = FV_OK;
    if (!j.dens || !j.dist || !j.parent) {
        st = fv_error_set(FV_ENOMEM, "quickshift", "out of memory");
        goto done;
    }
    memcpy(j.dens, a->in2->data, isz * (size_t)n);
    fv__parallel_for(ctx, j.h, 1, f32 ? fv__qs_density_f32 : fv__qs_density_f64, &j);
    fv__parallel_for(ctx, j.h, 1, f32 ? fv__qs_parent_f32 : fv__qs_parent_f64, &j);
    if (p->parent)
        memcpy(p->parent->data, j.parent, sizeof(int64_t) * (size_t)n);
    /* cut long links; roots: raster-order rank; every pixel takes its root's label */
    int64_t next = 0;
    for (int64_t i = 0; i < n; i++) {
        if (f32 ? fv__qs_far_f32(&j, i, p->max_dist) : fv__qs_far_f64(&j, i, p->max_dist))
            j.parent[i] = i;
        lab[i] = j.parent[i] == i ? next++ : -1;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i;
        while (lab[r] < 0)
            r = j.parent[r];
        const int64_t l = lab[r];
        for (int64_t q = i; lab[q] < 0;) {
            const int64_t nx = j.parent[q];
            lab[q] = l;
            q = nx;
        }
    }
done:
    fv__free(j.dens);
    if (!p->dist)
        fv__free(j.dist);
    fv__free(j.parent);
    return st;
}
FV_KERNEL(QUICKSHIFT, CPU, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64) | FV_DTYPE_BIT(FV_INT64), 3,
          fv__cpu_quickshift);
