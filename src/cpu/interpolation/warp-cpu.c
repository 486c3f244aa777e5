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
#include "ops/filters/ndimage-math.h" /* fv__cvt64 */
#include "ops/interpolation/warp.h"
#include "cpu/filters/filters-cpu.h" /* fv__cpu_avx2 */

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

/* fv__wp_row_<F>[_avx2]: output row r of every column and channel. */
#define FV__WP_ROW(F, FLOOR, CEIL, NAME, ATTR, BLOCK, V)                                                         \
    static F NAME##_tap(const char *base, const fv_array *in, int64_t i, int64_t j, int mode, F cval)            \
    {                                                                                                            \
        const int64_t rows = in->shape[0], cols = in->shape[1];                                                  \
        if (mode == FV_WARP_CONSTANT) {                                                                          \
            if (i < 0 || i >= rows || j < 0 || j >= cols)                                                        \
                return cval;                                                                                     \
        } else {                                                                                                 \
            i = fv__wp_map(i, rows, mode);                                                                       \
            j = fv__wp_map(j, cols, mode);                                                                       \
        }                                                                                                        \
        return *(const F *)(base + i * in->strides[0] + j * in->strides[1]);                                     \
    }                                                                                                            \
    static inline F NAME##_cubic(F x, F f0, F f1, F f2, F f3)                                                    \
    {                                                                                                            \
        return f1 +                                                                                              \
            (F)0.5 * x *                                                                                         \
            (f2 - f0 + x * ((F)2.0 * f0 - (F)5.0 * f1 + (F)4.0 * f2 - f3 + x * ((F)3.0 * (f1 - f2) + f3 - f0))); \
    }                                                                                                            \
    ATTR static void NAME(const fv__wp_job *j, int64_t r)                                                        \
    {                                                                                                            \
        const fv_array *in = j->a->in;                                                                           \
        fv_array *out = j->a->out;                                                                               \
        const fv__warp2d_params *p = j->p;                                                                       \
        const int mode = p->mode;                                                                                \
        const int64_t rows = in->shape[0], cols = in->shape[1], sr = in->strides[0], sc = in->strides[1];        \
        const int64_t nch = in->ndim == 3 ? in->shape[2] : 1, sch = in->ndim == 3 ? in->strides[2] : 0;          \
        const int64_t och = out->ndim == 3 ? out->strides[2] : 0;                                                \
        F m[9];                                                                                                  \
        for (int k = 0; k < 9; k++)                                                                              \
            m[k] = (F)p->matrix[k];                                                                              \
        const F cval = (F)p->cval, tr = (F)r;                                                                    \
        const F yr = m[4] * tr, xr = m[1] * tr, zr = m[7] * tr;                                                  \
        char *po = (char *)out->data + r * out->strides[0];                                                      \
        const int64_t ncol = out->shape[1];                                                                      \
        for (int64_t c = 0, stop = 0; c < ncol; c = stop) {                                                      \
            if (V > 1 && c + V <= ncol && BLOCK(j, m, xr, yr, zr, c, po)) {                                      \
                stop = c + V;                                                                                    \
                po += V * out->strides[1];                                                                       \
                continue;                                                                                        \
            }                                                                                                    \
            stop = V > 1 && c + V <= ncol ? c + V : ncol; /* these columns one by one */                         \
            for (; c < stop; c++, po += out->strides[1]) {                                                       \
                const F tc = (F)c;                                                                               \
                const F x = m[0] * tc + xr + m[2], y = m[3] * tc + yr + m[5], z = m[6] * tc + zr + m[8];         \
                const F col = x / z, row = y / z;                                                                \
                if (p->order == 1) {                                                                             \
                    const F fr = FLOOR(row), fc = FLOOR(col);                                                    \
                    const F dr = row - fr, dc = col - fc;                                                        \
                    const int64_t r0 = fv__cvt64((double)fr), c0 = fv__cvt64((double)fc);                        \
                    const int64_t r1 = fv__cvt64((double)CEIL(row)), c1 = fv__cvt64((double)CEIL(col));          \
                    const F udc = (F)1 - dc, udr = (F)1 - dr;                                                    \
                    const int inside = r0 >= 0 && r1 < rows && c0 >= 0 && c1 < cols;                             \
                    for (int64_t ch = 0; ch < nch; ch++) {                                                       \
                        const char *b = (const char *)in->data + ch * sch;                                       \
                        F tl, tq, bl, bq;                                                                        \
                        if (inside) {                                                                            \
                            tl = *(const F *)(b + r0 * sr + c0 * sc);                                            \
                            tq = *(const F *)(b + r0 * sr + c1 * sc);                                            \
                            bl = *(const F *)(b + r1 * sr + c0 * sc);                                            \
                            bq = *(const F *)(b + r1 * sr + c1 * sc);                                            \
                        } else {                                                                                 \
                            tl = NAME##_tap(b, in, r0, c0, mode, cval);                                          \
                            tq = NAME##_tap(b, in, r0, c1, mode, cval);                                          \
                            bl = NAME##_tap(b, in, r1, c0, mode, cval);                                          \
                            bq = NAME##_tap(b, in, r1, c1, mode, cval);                                          \
                        }                                                                                        \
                        const F top = udc * tl + dc * tq, bottom = udc * bl + dc * bq;                           \
                        *(F *)(po + ch * och) = udr * top + dr * bottom;                                         \
                    }                                                                                            \
                } else {                                                                                         \
                    const F fr = FLOOR(row), fc = FLOOR(col);                                                    \
                    const F xrr = row - fr, xc = col - fc;                                                       \
                    const int64_t r0 = fv__wp_add(fv__cvt64((double)fr), -1);                                    \
                    const int64_t c0 = fv__wp_add(fv__cvt64((double)fc), -1);                                    \
                    const int inside = r0 >= 0 && r0 < rows - 3 && c0 >= 0 && c0 < cols - 3;                     \
                    for (int64_t ch = 0; ch < nch; ch++) {                                                       \
                        const char *b = (const char *)in->data + ch * sch;                                       \
                        F f[4];                                                                                  \
                        for (int k = 0; k < 4; k++) {                                                            \
                            F t[4];                                                                              \
                            if (inside) {                                                                        \
                                const char *q = b + (r0 + k) * sr + c0 * sc;                                     \
                                for (int e = 0; e < 4; e++)                                                      \
                                    t[e] = *(const F *)(q + e * sc);                                             \
                            } else {                                                                             \
                                for (int e = 0; e < 4; e++)                                                      \
                                    t[e] = NAME##_tap(b, in, fv__wp_add(r0, k), fv__wp_add(c0, e), mode, cval);  \
                            }                                                                                    \
                            f[k] = NAME##_cubic(xc, t[0], t[1], t[2], t[3]);                                     \
                        }                                                                                        \
                        *(F *)(po + ch * och) = NAME##_cubic(xrr, f[0], f[1], f[2], f[3]);                       \
                    }                                                                                            \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    }
#define FV__WP_NOBLOCK(...) 0
FV__WP_ROW(float, floorf, ceilf, fv__wp_row_f32, , FV__WP_NOBLOCK, 1)
FV__WP_ROW(double, floor, ceil, fv__wp_row_f64, , FV__WP_NOBLOCK, 1)
#if FV__HAVE_AVX2_CLONES
#include <immintrin.h>
/* V consecutive output columns in vector lanes (each lane the scalar
 * arithmetic above, AVX2 without FMA): 1 when done, 0 (nothing written) when
 * a window of some lane leaves the image (the scalar path then takes the rest
 * of the row). */
#define FV__WP_BLOCK(F, VF, V, FLOORV, CEILV, NAME)                                                                  \
    typedef F VF __attribute__((vector_size(32)));                                                                   \
    __attribute__((target("avx2"))) static inline VF NAME##_cubic(VF x, VF f0, VF f1, VF f2, VF f3)                  \
    {                                                                                                                \
        return f1 +                                                                                                  \
            (F)0.5 * x *                                                                                             \
            (f2 - f0 + x * ((F)2.0 * f0 - (F)5.0 * f1 + (F)4.0 * f2 - f3 + x * ((F)3.0 * (f1 - f2) + f3 - f0)));     \
    }                                                                                                                \
    __attribute__((target("avx2"))) static int NAME(const fv__wp_job *j, const F *m, F xr, F yr, F zr, int64_t c,    \
                                                    char *po)                                                        \
    {                                                                                                                \
        const fv_array *in = j->a->in, *out = j->a->out;                                                             \
        const int64_t rows = in->shape[0], cols = in->shape[1], sr = in->strides[0], sc = in->strides[1];            \
        const int64_t nch = in->ndim == 3 ? in->shape[2] : 1, sch = in->ndim == 3 ? in->strides[2] : 0;              \
        const int64_t och = out->ndim == 3 ? out->strides[2] : 0, so = out->strides[1];                              \
        const int order = j->p->order;                                                                               \
        VF tc;                                                                                                       \
        for (int l = 0; l < V; l++)                                                                                  \
            tc[l] = (F)(c + l);                                                                                      \
        const VF x = m[0] * tc + xr + m[2], y = m[3] * tc + yr + m[5], z = m[6] * tc + zr + m[8];                    \
        const VF col = x / z, row = y / z;                                                                           \
        const VF fr = FLOORV(row), fc = FLOORV(col);                                                                 \
        int64_t r0[V], c0[V], r1[V], c1[V];                                                                          \
        if (order == 1) {                                                                                            \
            const VF cr = CEILV(row), cc = CEILV(col);                                                               \
            for (int l = 0; l < V; l++) {                                                                            \
                r0[l] = fv__cvt64((double)fr[l]);                                                                    \
                c0[l] = fv__cvt64((double)fc[l]);                                                                    \
                r1[l] = fv__cvt64((double)cr[l]);                                                                    \
                c1[l] = fv__cvt64((double)cc[l]);                                                                    \
                if (!(r0[l] >= 0 && r1[l] < rows && c0[l] >= 0 && c1[l] < cols))                                     \
                    return 0;                                                                                        \
            }                                                                                                        \
            const VF dr = row - fr, dc = col - fc, udc = (F)1 - dc, udr = (F)1 - dr;                                 \
            for (int64_t ch = 0; ch < nch; ch++) {                                                                   \
                const char *b = (const char *)in->data + ch * sch;                                                   \
                VF tl = { 0 }, tq = { 0 }, bl = { 0 }, bq = { 0 };                                                   \
                for (int l = 0; l < V; l++) {                                                                        \
                    tl[l] = *(const F *)(b + r0[l] * sr + c0[l] * sc);                                               \
                    tq[l] = *(const F *)(b + r0[l] * sr + c1[l] * sc);                                               \
                    bl[l] = *(const F *)(b + r1[l] * sr + c0[l] * sc);                                               \
                    bq[l] = *(const F *)(b + r1[l] * sr + c1[l] * sc);                                               \
                }                                                                                                    \
                const VF top = udc * tl + dc * tq, bottom = udc * bl + dc * bq;                                      \
                const VF v = udr * top + dr * bottom;                                                                \
                for (int l = 0; l < V; l++)                                                                          \
                    *(F *)(po + l * so + ch * och) = v[l];                                                           \
            }                                                                                                        \
            return 1;                                                                                                \
        }                                                                                                            \
        for (int l = 0; l < V; l++) {                                                                                \
            r0[l] = fv__wp_add(fv__cvt64((double)fr[l]), -1);                                                        \
            c0[l] = fv__wp_add(fv__cvt64((double)fc[l]), -1);                                                        \
            if (!(r0[l] >= 0 && r0[l] < rows - 3 && c0[l] >= 0 && c0[l] < cols - 3))                                 \
                return 0;                                                                                            \
        }                                                                                                            \
        const VF xrr = row - fr, xc = col - fc;                                                                      \
        for (int64_t ch = 0; ch < nch; ch++) {                                                                       \
            const char *b = (const char *)in->data + ch * sch;                                                       \
            VF f[4];                                                                                                 \
            for (int k = 0; k < 4; k++) {                                                                            \
                F t[4][V];                                                                                           \
                for (int l = 0; l < V; l++) {                                                                        \
                    const char *q = b + (r0[l] + k) * sr + c0[l] * sc;                                               \
                    for (int e = 0; e < 4; e++)                                                                      \
                        t[e][l] = *(const F *)(q + e * sc);                                                          \
                }                                                                                                    \
                f[k] = NAME##_cubic(xc, FV__LDV(VF, t[0]), FV__LDV(VF, t[1]), FV__LDV(VF, t[2]), FV__LDV(VF, t[3])); \
            }                                                                                                        \
            const VF v = NAME##_cubic(xrr, f[0], f[1], f[2], f[3]);                                                  \
            for (int l = 0; l < V; l++)                                                                              \
                *(F *)(po + l * so + ch * och) = v[l];                                                               \
        }                                                                                                            \
        return 1;                                                                                                    \
    }
#define FV__WP_FLOOR8(v) ((fv__wp_v8f)_mm256_floor_ps((__m256)(v)))
#define FV__WP_CEIL8(v) ((fv__wp_v8f)_mm256_ceil_ps((__m256)(v)))
#define FV__WP_FLOOR4(v) ((fv__wp_v4d)_mm256_floor_pd((__m256d)(v)))
#define FV__WP_CEIL4(v) ((fv__wp_v4d)_mm256_ceil_pd((__m256d)(v)))
FV__WP_BLOCK(float, fv__wp_v8f, 8, FV__WP_FLOOR8, FV__WP_CEIL8, fv__wp_block_f32)
FV__WP_BLOCK(double, fv__wp_v4d, 4, FV__WP_FLOOR4, FV__WP_CEIL4, fv__wp_block_f64)
FV__WP_ROW(float, floorf, ceilf, fv__wp_row_f32_avx2, __attribute__((target("avx2"))), fv__wp_block_f32, 8)
FV__WP_ROW(double, floor, ceil, fv__wp_row_f64_avx2, __attribute__((target("avx2"))), fv__wp_block_f64, 4)
#undef FV__WP_BLOCK
#endif
#undef FV__WP_NOBLOCK
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
    fv__wp_job j = { a, fv__params_WARP2D(a), 0 };
#if FV__HAVE_AVX2_CLONES
    j.avx2 = fv__cpu_avx2();
#endif
    const int64_t per_row = a->out->shape[1] * (a->out->ndim == 3 ? a->out->shape[2] : 1);
    fv__parallel_for(ctx, a->out->shape[0], 1 + 32768 / (per_row + 1), fv__wp_range, &j);
    return FV_OK;
}
FV_KERNEL(WARP2D, CPU, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), 3, fv__cpu_warp2d);
