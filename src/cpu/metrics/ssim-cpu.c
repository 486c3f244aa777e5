/* The SSIM map on the CPU: one pass over the five moment images, lines of
 * the last axis split over the thread pool; each line also adds its
 * interior part of S to a per-line float64 sum, summed in line order at the
 * end (so the mean does not depend on the thread count). The arithmetic is
 * in the moments' dtype, one operation at a time in scikit-image's order (the
 * library builds with ISO C floating point: no contraction into FMAs). */
#include <stdlib.h>
#include "ops/metrics/ssim.h"

typedef struct {
    const fv__ssim_params *a;
    int64_t len, nlines;
    double *line_sum; /* per line: interior sum of S */
} fv__ssim_job;

/* Is line `line` (index over all axes but the last) inside the interior on
 * every leading axis? */
static int
fv__ssim_line_inside(const fv__ssim_params *a, int64_t line)
{
    for (int d = a->ndim - 2; d >= 0; d--) {
        const int64_t n = a->shape[d], i = line % n;
        line /= n;
        if (i < a->pad || i >= n - a->pad)
            return 0;
    }
    return 1;
}

#define FV__SSIM_LINES(T, NAME)                                                             \
    static void NAME(void *arg, int64_t begin, int64_t end)                                 \
    {                                                                                       \
        const fv__ssim_job *j = arg;                                                        \
        const fv__ssim_params *a = j->a;                                                    \
        const T cn = (T)a->cov_norm, c1 = (T)a->c1, c2 = (T)a->c2, two = (T)2;              \
        const int64_t len = j->len, lo = a->pad, hi = len - a->pad;                         \
        for (int64_t line = begin; line < end; line++) {                                    \
            const int64_t off = line * len;                                                 \
            const T *ux = (const T *)a->ux + off, *uy = (const T *)a->uy + off;             \
            T *uxx = (T *)a->uxx + off, *uyy = (T *)a->uyy + off, *uxy = (T *)a->uxy + off; \
            T *S = a->S ? (T *)a->S + off : NULL;                                           \
            const int inside = fv__ssim_line_inside(a, line);                               \
            double sum = 0;                                                                 \
            for (int64_t i = 0; i < len; i++) {                                             \
                const T mx = ux[i], my = uy[i];                                             \
                const T vx = cn * (uxx[i] - mx * mx);                                       \
                const T vy = cn * (uyy[i] - my * my);                                       \
                const T vxy = cn * (uxy[i] - mx * my);                                      \
                const T A1 = two * mx * my + c1;                                            \
                const T A2 = two * vxy + c2;                                                \
                const T B1 = mx * mx + my * my + c1;                                        \
                const T B2 = vx + vy + c2;                                                  \
                const T D = B1 * B2;                                                        \
                const T s = (A1 * A2) / D;                                                  \
                if (S)                                                                      \
                    S[i] = s;                                                               \
                if (inside && i >= lo && i < hi)                                            \
                    sum += (double)s;                                                       \
                if (a->gradient) {                                                          \
                    uxx[i] = A1 / D;                                                        \
                    uyy[i] = -s / B2;                                                       \
                    uxy[i] = (mx * (A2 - A1) - my * (B2 - B1) * s) / D;                     \
                }                                                                           \
            }                                                                               \
            j->line_sum[line] = sum;                                                        \
        }                                                                                   \
    }

FV__SSIM_LINES(float, fv__ssim_lines_f32)
FV__SSIM_LINES(double, fv__ssim_lines_f64)

static fv_status
fv__cpu_ssim_map(fv_context *ctx, const fv__op_args *args)
{
    const fv__ssim_params *a = fv__params_SSIM(args);
    const int64_t len = a->ndim ? a->shape[a->ndim - 1] : 1;
    int64_t n = 1, cnt = 1;
    for (int d = 0; d < a->ndim; d++) {
        n *= a->shape[d];
        cnt *= a->shape[d] > 2 * a->pad ? a->shape[d] - 2 * a->pad : 0;
    }
    const int64_t nlines = len ? n / len : 0;
    fv__ssim_job j = { a, len, nlines, calloc((size_t)(nlines ? nlines : 1), sizeof(double)) };
    if (!j.line_sum)
        return fv_error_set(FV_ENOMEM, "ssim_map", "out of memory");
    int64_t grain = len >= 4096 ? 1 : 4096 / (len ? len : 1);
    fv__parallel_for(ctx, nlines, grain, a->is_double ? fv__ssim_lines_f64 : fv__ssim_lines_f32, &j);
    double s = 0;
    for (int64_t l = 0; l < nlines; l++)
        s += j.line_sum[l];
    free(j.line_sum);
    *a->sum = s;
    *a->count = cnt;
    return FV_OK;
}

FV_KERNEL(SSIM, CPU, FV_DTYPES_FLOAT, FV_MAX_NDIM, fv__cpu_ssim_map);
