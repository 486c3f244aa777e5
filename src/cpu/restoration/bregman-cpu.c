/* CPU kernel of TV_BREGMAN: scikit-image's _denoise_tv_bregman loop in the
 * image dtype (its fused Cython), in place on out; the image is padded into
 * out as scikit-image pads it (first row / column reflected, last ones
 * repeated, corners kept). dx, dy, bx, by start as copies of out as given
 * (scikit-image reuses one buffer across channels, so a channel starts from
 * the previous channel's result). No FMA contraction (CMakeLists.txt). */
#include <float.h>
#include <math.h>
#include <string.h>
#include "internal.h"
#include "alloc.h"
#include "ops/restoration/bregman.h"

#define FV__BREGMAN(T, S)                                                                                             \
    static void fv__bregman_##S(const fv__bregman_params *p, const T *img, T *out, T *dx, T *dy, T *bx, T *by,        \
                                int64_t rows, int64_t cols, int64_t dims)                                             \
    {                                                                                                                 \
        const int64_t C = cols + 2, total = rows * cols * dims;                                                       \
        const T weight = (T)p->weight, eps = (T)p->eps;                                                               \
        const T lam = 2 * weight, norm = weight + 4 * lam;                                                            \
        for (int64_t r = 0; r < rows; r++)                                                                            \
            for (int64_t c = 0; c < cols; c++)                                                                        \
                for (int64_t k = 0; k < dims; k++)                                                                    \
                    out[((r + 1) * C + c + 1) * dims + k] = img[(r * cols + c) * dims + k];                           \
        for (int64_t c = 0; c < cols; c++)                                                                            \
            for (int64_t k = 0; k < dims; k++) {                                                                      \
                out[(c + 1) * dims + k] = img[(1 * cols + c) * dims + k];                                             \
                out[((rows + 1) * C + c + 1) * dims + k] = img[((rows - 1) * cols + c) * dims + k];                   \
            }                                                                                                         \
        for (int64_t r = 0; r < rows; r++)                                                                            \
            for (int64_t k = 0; k < dims; k++) {                                                                      \
                out[((r + 1) * C) * dims + k] = img[(r * cols + 1) * dims + k];                                       \
                out[((r + 1) * C + cols + 1) * dims + k] = img[(r * cols + cols - 1) * dims + k];                     \
            }                                                                                                         \
        T rmse = (T)DBL_MAX;                                                                                          \
        const double inv = 1.0 / (double)lam; /* Cython writes the literal 1 as 1.0 */                                \
        for (int64_t i = 0; i < p->max_iter && rmse > eps; i++) {                                                     \
            rmse = 0;                                                                                                 \
            for (int64_t r = 1; r <= rows; r++)                                                                       \
                for (int64_t c = 1; c <= cols; c++)                                                                   \
                    for (int64_t k = 0; k < dims; k++) {                                                              \
                        const int64_t x = (r * C + c) * dims + k, R = C * dims, E = dims;                             \
                        const T uprev = out[x];                                                                       \
                        const T ux = out[x + E] - uprev, uy = out[x + R] - uprev;                                     \
                        const T unew = (lam *                                                                         \
                                            (+out[x + R] + out[x - R] + out[x + E] + out[x - E] + dx[x - E] - dx[x] + \
                                             dy[x - R] - dy[x] - bx[x - E] + bx[x] - by[x - R] + by[x]) +             \
                                        weight * img[((r - 1) * cols + c - 1) * dims + k]) /                          \
                            norm;                                                                                     \
                        out[x] = unew;                                                                                \
                        T tx = unew - uprev, ty, s, dxx, dyy;                                                         \
                        rmse += tx * tx;                                                                              \
                        const T bxx = bx[x], byy = by[x];                                                             \
                        if (p->isotropic) {                                                                           \
                            tx = ux + bxx;                                                                            \
                            ty = uy + byy;                                                                            \
                            s = (T)sqrt((double)(tx * tx + ty * ty));                                                 \
                            dxx = (T)((double)(s * lam * tx) / ((double)(s * lam) + 1.0));                            \
                            dyy = (T)((double)(s * lam * ty) / ((double)(s * lam) + 1.0));                            \
                        } else {                                                                                      \
                            s = ux + bxx;                                                                             \
                            dxx = s > inv ? (T)(s - inv) : s < -inv ? (T)(s + inv) : (T)0;                            \
                            s = uy + byy;                                                                             \
                            dyy = s > inv ? (T)(s - inv) : s < -inv ? (T)(s + inv) : (T)0;                            \
                        }                                                                                             \
                        dx[x] = dxx;                                                                                  \
                        dy[x] = dyy;                                                                                  \
                        bx[x] += ux - dxx;                                                                            \
                        by[x] += uy - dyy;                                                                            \
                    }                                                                                                 \
            rmse = (T)sqrt((double)(rmse / (T)total));                                                                \
        }                                                                                                             \
    }

FV__BREGMAN(float, f32)
FV__BREGMAN(double, f64)

static fv_status
fv__cpu_tv_bregman(fv_context *ctx, const fv__op_args *a)
{
    (void)ctx;
    const fv__bregman_params *p = fv__params_TV_BREGMAN(a);
    const int64_t rows = a->in->shape[0], cols = a->in->shape[1], dims = a->in->shape[2];
    const size_t isz = fv_dtype_size(a->in->dtype), n = (size_t)((rows + 2) * (cols + 2) * dims);
    char *buf = fv__malloc(4 * n * isz);
    if (!buf)
        return fv_error_set(FV_ENOMEM, "denoise_tv_bregman", "out of host memory");
    for (int k = 0; k < 4; k++) /* scikit-image starts them as copies of out */
        memcpy(buf + (size_t)k * n * isz, a->out->data, n * isz);
    if (a->in->dtype == FV_FLOAT32) {
        float *b = (float *)buf;
        fv__bregman_f32(p, (const float *)a->in->data, (float *)a->out->data, b, b + n, b + 2 * n, b + 3 * n, rows,
                        cols, dims);
    } else {
        double *b = (double *)buf;
        fv__bregman_f64(p, (const double *)a->in->data, (double *)a->out->data, b, b + n, b + 2 * n, b + 3 * n, rows,
                        cols, dims);
    }
    fv__free(buf);
    return FV_OK;
}
FV_KERNEL(TV_BREGMAN, CPU, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), 3, fv__cpu_tv_bregman);
