/* The job and per-pixel math of the Hessian ridge op (FV__OP_HESSIAN_RIDGE,
 * fv_hessian_ridge in include/fovea/filters.h). src/ops/filters/ridge.c
 * validates and fills the job; src/cpu/filters/ridge-cpu.c and
 * src/cuda/filters/ridge.cu walk the pixels and call the functions below, so
 * both backends run one source of the formulas (plain C, compiled as host and
 * device code under nvcc). The typed part is written once in ridge-math.h and
 * instantiated for float (suffix f) and double (suffix d).
 *
 * The formulas follow python/fovea/skimage/filters/ridges.py (itself
 * skimage.filters.ridges) step by step in the image's float type: 2-d
 * eigenvalues in closed form exactly as symmetric_eigvals, 3-d ones by cyclic
 * Jacobi rotations in double (accurate to a few double ulps of the matrix norm,
 * repeated and zero eigenvalues included; numpy's eigvalsh agrees to its own
 * rounding), then rounded to the image type. */
#ifndef FV_RIDGE_KERNELS_H
#define FV_RIDGE_KERNELS_H

#include <stdint.h>
#include <math.h>
#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel passes of one fv_hessian_ridge call. */
enum {
    FV__RIDGE_PASS_FOLD = 0,     /* frangi / sato: acc = max(acc, response) */
    FV__RIDGE_PASS_NORM = 1,     /* scal = max of sqrt(sum e^2) */
    FV__RIDGE_PASS_MEIJ = 2,     /* work = meijering response, scal = its max */
    FV__RIDGE_PASS_MEIJ_FOLD = 3 /* acc = max(acc, scal > 0 ? work / scal : work) */
};

/* What the kernels get (params of FV__OP_HESSIAN_RIDGE). Every array is
 * C-contiguous with n elements. */
typedef struct fv__ridge_job {
    int filter; /* fv_ridge_filter */
    int pass;   /* FV__RIDGE_PASS_* */
    int ndim;   /* 2 or 3 */
    int is_double;
    int gamma_from_scal; /* frangi: gamma = scal[0] / 2, 0 -> 1 */
    double alpha_den;    /* frangi: 2 alpha^2 */
    double beta_den;     /* frangi: 2 beta^2 */
    double gamma_den;    /* frangi: 2 gamma^2 (when given) */
    double sigma2;       /* sato: sigma^2 */
    double malpha;       /* meijering: the circulant's off-diagonal value */
    int64_t n;           /* elements of each array (scal: 1) */
    const void *h[6];
    void *acc, *work, *scal;
} fv__ridge_job;

/* Eigenvalues of the symmetric 3x3 matrix [[a00 a01 a02] [a01 a11 a12]
 * [a02 a12 a22]] in decreasing order (NaN in, NaN out): cyclic Jacobi, each
 * rotation zeroing one off-diagonal element (Numerical Recipes' stable form,
 * t = sgn(theta) / (|theta| + sqrt(theta^2 + 1))), until the off-diagonal part
 * is zero or negligible next to the diagonal (quadratic convergence: 3 to 5
 * sweeps in practice; at most 16). */
FV_HD void
fv__ridge_jacobi3(double a00, double a01, double a02, double a11, double a12, double a22, double *e)
{
    double d[3] = { a00, a11, a22 };
    double o[3] = { a01, a02, a12 }; /* (0,1), (0,2), (1,2) */
    for (int sweep = 0; sweep < 16; sweep++) {
        if (o[0] == 0 && o[1] == 0 && o[2] == 0)
            break;
        for (int k = 0; k < 3; k++) {
            /* pair (p, q), third index r; o index of (r, p) and (r, q) */
            const int p = k == 2 ? 1 : 0, q = k == 0 ? 1 : 2;
            const int rp = k == 0 ? 1 : 0, rq = k == 2 ? 1 : 2;
            double apq = o[k];
            if (apq == 0)
                continue;
            double app = d[p], aqq = d[q];
            double g = 100.0 * fabs(apq);
            if (fabs(app) + g == fabs(app) && fabs(aqq) + g == fabs(aqq)) {
                o[k] = 0;
                continue;
            }
            double theta = (aqq - app) / (2.0 * apq), t;
            if (fabs(theta) > 1e150)
                t = 0.5 / theta;
            else
                t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
            double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
            d[p] = app - t * apq;
            d[q] = aqq + t * apq;
            o[k] = 0;
            double arp = o[rp], arq = o[rq];
            o[rp] = c * arp - s * arq;
            o[rq] = s * arp + c * arq;
            if (apq != apq) { /* NaN: no convergence to wait for */
                d[0] = d[1] = d[2] = apq;
                sweep = 16;
                break;
            }
        }
    }
    /* decreasing order */
    double x = d[0], y = d[1], z = d[2], tmp;
    if (x < y) {
        tmp = x;
        x = y;
        y = tmp;
    }
    if (y < z) {
        tmp = y;
        y = z;
        z = tmp;
    }
    if (x < y) {
        tmp = x;
        x = y;
        y = tmp;
    }
    e[0] = x;
    e[1] = y;
    e[2] = z;
}

/* The bits of a non-negative float / double (or NaN, made positive) as an
 * integer that orders like the value: the max reductions run on these. -0.0
 * becomes +0.0. */
FV_HD int32_t
fv__ridge_key_f(float v)
{
    union {
        float f;
        int32_t i;
    } u;
    if (v != v)
        return 0x7fc00000;
    u.f = v > 0 ? v : 0.0f;
    return u.i;
}

FV_HD int64_t
fv__ridge_key_d(double v)
{
    union {
        double f;
        int64_t i;
    } u;
    if (v != v)
        return (int64_t)0x7ff8000000000000LL;
    u.f = v > 0 ? v : 0.0;
    return u.i;
}

FV_HD float
fv__ridge_unkey_f(int32_t i)
{
    union {
        float f;
        int32_t i;
    } u;
    u.i = i;
    return u.f;
}

FV_HD double
fv__ridge_unkey_d(int64_t i)
{
    union {
        double f;
        int64_t i;
    } u;
    u.i = i;
    return u.f;
}

#define FV__RT float
#define FV__RS f
#define FV__RM(fn) fn##f
#define FV__R_EXP_ONE (-4.1063238e-08f)
#include "ops/filters/ridge-math.h"
#undef FV__RT
#undef FV__RS
#undef FV__RM
#undef FV__R_EXP_ONE

#define FV__RT double
#define FV__RS d
#define FV__RM(fn) fn
#define FV__R_EXP_ONE (-0.0)
#include "ops/filters/ridge-math.h"
#undef FV__RT
#undef FV__RS
#undef FV__RM
#undef FV__R_EXP_ONE

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(HESSIAN_RIDGE, ...) in the kernel file. */
FV_OP(HESSIAN_RIDGE, "hessian_ridge", fv__ridge_job);

#ifdef __cplusplus
}
#endif

#endif
