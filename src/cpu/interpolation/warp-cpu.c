/* CPU kernel of WARP2D (src/ops/interpolation/warp.h): scikit-image's
 * _warp_fast as fovea.skimage.transform's array maths computes it, element by
 * element in the image's float type F (no FMA contraction: CMakeLists.txt):
 *   x = m0 * c + m1 * r + m2, y = m3 * c + m4 * r + m5, z = m6 * c + m7 * r + m8,
 *   col = x / z, row = y / z;
 *   order 1: floor / ceil of row and col as the taps, dr = row - floor(row),
 *     top = (1 - dc) * tl + dc * tr, bottom alike, value (1 - dr) * top + dr * bottom;
 *   order 3: rows floor(row) - 1 .. + 2, Catmull-Rom along the columns
 *     (cubic(xc, f0..f3) per row), then along the rows;
 * taps outside the image: cval (constant) or the mode's index (numpy.pad's
 * edge / symmetric / reflect / wrap, scikit-image's per-tap rule). Coordinates
 * convert to int64 as NumPy's astype does on x86-64 (NaN: INT64_MIN). Output
 * rows in ranges over the thread pool, channels with one coordinate each. */
#include <math.h>
#include "internal.h"
#include "fovea/interpolation.h"
#include "ops/filters/ndimage-math.h"   /* fv__cvt64 */
#include "ops/interpolation/warp.h"
#include "cpu/filters/filters-cpu.h"    /* fv__cpu_avx2 */

typedef struct fv__wp_job {
    const fv__op_args *a;
    const fv__warp2d_params *p;
    int avx2;
} fv__wp_job;

/* a + b wrapping as NumPy's int64 does */
static inline int64_t
fv__wp_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Python's a % n (n > 0) */
static inline int64_t
fv__wp_mod(int64_t a, int64_t n)
{
    const int64_t m = a % n;
    return m < 0 ? m + n : m;
}

/* The tap index i along an axis of n samples under mode (constant: unchanged;
 * the caller tests it). */
static inline int64_t
fv__wp_map(int64_t i, int64_t n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case FV_WARP_EDGE: return i < 0 ? 0 : n - 1;
    case FV_WARP_WRAP: return fv__wp_mod(i, n);
    case FV_WARP_SYMMETRIC: {
        const int64_t m = fv__wp_mod(i, 2 * n);
        return m >= n ? 2 * n - 1 - m : m;
    }
    case FV_WARP_REFLECT: {
        if (n == 1)
            return 0;
        const int64_t m = fv__wp_mod(i, 2 * n - 2);
        return m >= n ? 2 * n - 2 - m : m;
    }
    default: return i;
    }
}

/* fv__wp_row_<F>[_avx2]: output row r of every column and channel. */
#define FV__WP_ROW(F, FLOOR, CEIL, NAME, ATTR)                                                                  \
    static F NAME##_tap(const char *base, const fv_array *in, int64_t i, int64_t j, int mode, F cval)          \
    {                                                                                                          \
        const int64_t rows = in->shape[0], cols = in->shape[1];                                                \
        if (mode == FV_WARP_CONSTANT) {                                                                        \
            if (i < 0 || i >= rows || j < 0 || j >= cols)                                                      \
                return cval;                                                                                   \
        } else {                                                                                               \
            i = fv__wp_map(i, rows, mode);                                                                     \
            j = fv__wp_map(j, cols, mode);                                                                     \
        }                                                                                                      \
        return *(const F *)(base + i * in->strides[0] + j * in->strides[1]);                                   \
    }                                                                                                          \
    static inline F NAME##_cubic(F x, F f0, F f1, F f2, F f3)                                                  \
    {                                                                                                          \
        return f1 + (F)0.5 * x * (f2 - f0 + x * ((F)2.0 * f0 - (F)5.0 * f1 + (F)4.0 * f2 - f3 +              \
                                                 x * ((F)3.0 * (f1 - f2) + f3 - f0)));                        \
    }                                                                                                          \
    ATTR static void NAME(const fv__wp_job *j, int64_t r)                                                      \
    {                                                                                                          \
        const fv_array *in = j->a->in;                                                                         \
        fv_array *out = j->a->out;                                                                             \
        const fv__warp2d_params *p = j->p;                                                                     \
        const int mode = p->mode;                                                                              \
        const int64_t rows = in->shape[0], cols = in->shape[1], sr = in->strides[0], sc = in->strides[1];     \
        const int64_t nch = in->ndim == 3 ? in->shape[2] : 1, sch = in->ndim == 3 ? in->strides[2] : 0;      \
        const int64_t och = out->ndim == 3 ? out->strides[2] : 0;                                             \
        F m[9];                                                                                                \
        for (int k = 0; k < 9; k++)                                                                            \
            m[k] = (F)p->matrix[k];                                                                            \
        const F cval = (F)p->cval, tr = (F)r;                                                                  \
        const F yr = m[4] * tr, xr = m[1] * tr, zr = m[7] * tr;                                                \
        char *po = (char *)out->data + r * out->strides[0];                                                    \
        for (int64_t c = 0; c < out->shape[1]; c++, po += out->strides[1]) {                                   \
            const F tc = (F)c;                                                                                 \
            const F x = m[0] * tc + xr + m[2], y = m[3] * tc + yr + m[5], z = m[6] * tc + zr + m[8];          \
            const F col = x / z, row = y / z;                                                                  \
            if (p->order == 1) {                                                                               \
                const F fr = FLOOR(row), fc = FLOOR(col);                                                      \
                const F dr = row - fr, dc = col - fc;                                                          \
                const int64_t r0 = fv__cvt64((double)fr), c0 = fv__cvt64((double)fc);                          \
                const int64_t r1 = fv__cvt64((double)CEIL(row)), c1 = fv__cvt64((double)CEIL(col));            \
                const F udc = (F)1 - dc, udr = (F)1 - dr;                                                      \
                const int inside = r0 >= 0 && r1 < rows && c0 >= 0 && c1 < cols;                             \
                for (int64_t ch = 0; ch < nch; ch++) {                                                         \
                    const char *b = (const char *)in->data + ch * sch;                                         \
                    F tl, tq, bl, bq;                                                                          \
                    if (inside) {                                                                              \
                        tl = *(const F *)(b + r0 * sr + c0 * sc);                                              \
                        tq = *(const F *)(b + r0 * sr + c1 * sc);                                              \
                        bl = *(const F *)(b + r1 * sr + c0 * sc);                                              \
                        bq = *(const F *)(b + r1 * sr + c1 * sc);                                              \
                    } else {                                                                                   \
                        tl = NAME##_tap(b, in, r0, c0, mode, cval);                                            \
                        tq = NAME##_tap(b, in, r0, c1, mode, cval);                                            \
                        bl = NAME##_tap(b, in, r1, c0, mode, cval);                                            \
                        bq = NAME##_tap(b, in, r1, c1, mode, cval);                                            \
                    }                                                                                          \
                    const F top = udc * tl + dc * tq, bottom = udc * bl + dc * bq;                             \
                    *(F *)(po + ch * och) = udr * top + dr * bottom;                                           \
                }                                                                                              \
            } else {                                                                                           \
                const F fr = FLOOR(row), fc = FLOOR(col);                                                      \
                const F xrr = row - fr, xc = col - fc;                                                         \
                const int64_t r0 = fv__wp_add(fv__cvt64((double)fr), -1);                                      \
                const int64_t c0 = fv__wp_add(fv__cvt64((double)fc), -1);                                      \
                const int inside = r0 >= 0 && r0 < rows - 3 && c0 >= 0 && c0 < cols - 3;                     \
                for (int64_t ch = 0; ch < nch; ch++) {                                                         \
                    const char *b = (const char *)in->data + ch * sch;                                         \
                    F f[4];                                                                                    \
                    for (int k = 0; k < 4; k++) {                                                              \
                        F t[4];                                                                                \
                        if (inside) {                                                                          \
                            const char *q = b + (r0 + k) * sr + c0 * sc;                                       \
                            for (int e = 0; e < 4; e++)                                                        \
                                t[e] = *(const F *)(q + e * sc);                                               \
                        } else {                                                                               \
                            for (int e = 0; e < 4; e++)                                                        \
                                t[e] = NAME##_tap(b, in, fv__wp_add(r0, k), fv__wp_add(c0, e), mode, cval);    \
                        }                                                                                      \
                        f[k] = NAME##_cubic(xc, t[0], t[1], t[2], t[3]);                                       \
                    }                                                                                          \
                    *(F *)(po + ch * och) = NAME##_cubic(xrr, f[0], f[1], f[2], f[3]);                         \
                }                                                                                              \
            }                                                                                                  \
        }                                                                                                      \
    }
FV__WP_ROW(float, floorf, ceilf, fv__wp_row_f32, )
FV__WP_ROW(double, floor, ceil, fv__wp_row_f64, )
#if FV__HAVE_AVX2_CLONES
FV__WP_ROW(float, floorf, ceilf, fv__wp_row_f32_avx2, __attribute__((target("avx2"))))
FV__WP_ROW(double, floor, ceil, fv__wp_row_f64_avx2, __attribute__((target("avx2"))))
#endif
#undef FV__WP_ROW

static void
fv__wp_range(void *arg, int64_t begin, int64_t end)
{
    const fv__wp_job *j = (const fv__wp_job *)arg;
    const int f32 = j->a->in->dtype == FV_FLOAT32;
    void (*fn)(const fv__wp_job *, int64_t) = f32 ? fv__wp_row_f32 : fv__wp_row_f64;
#if FV__HAVE_AVX2_CLONES
    if (j->avx2)
        fn = f32 ? fv__wp_row_f32_avx2 : fv__wp_row_f64_avx2;
#endif
    for (int64_t r = begin; r < end; r++)
        fn(j, r);
}

static fv_status
fv__cpu_warp2d(fv_context *ctx, const fv__op_args *a)
{
    fv__wp_job j = {a, fv__params_WARP2D(a), 0};
#if FV__HAVE_AVX2_CLONES
    j.avx2 = fv__cpu_avx2();
#endif
    const int64_t per_row = a->out->shape[1] * (a->out->ndim == 3 ? a->out->shape[2] : 1);
    fv__parallel_for(ctx, a->out->shape[0], 1 + 32768 / (per_row + 1), fv__wp_range, &j);
    return FV_OK;
}
FV_KERNEL(WARP2D, CPU, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), 3, fv__cpu_warp2d);
