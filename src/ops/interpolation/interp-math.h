/* The arithmetic of scipy.ndimage's spline interpolation (scipy 1.17,
 * ni_interpolation.c / ni_splines.c), written once for the CPU kernels and,
 * under nvcc, for the CUDA kernels: both backends run these very functions, so
 * they agree with each other bit for bit (no FMA contraction on either side:
 * CMakeLists.txt builds the kernel files with -ffp-contract=off / -fmad=false).
 *
 * Modes are scipy's codes (fv_interp_mode, include/fovea/interpolation.h):
 * 0 nearest, 1 wrap, 2 reflect (= grid-mirror), 3 mirror, 4 constant,
 * 5 grid-wrap, 6 grid-constant.
 *
 * One output value, for input coordinates c[d] (already offset by the
 * prefilter's padding):
 *   - every mode but nearest and grid-constant folds c[d] into the axis first
 *     (fv__im_fold); constant folds anything outside [0, n-1] to -1, and a
 *     folded coordinate <= -1 makes the whole value cval;
 *   - the window starts at floor(c) - order/2 (odd orders) or
 *     floor(c + 0.5) - order/2 (even orders; order 0 rounds half up);
 *   - window taps outside the axis are folded again with the spline's own
 *     boundary (mirror for constant and wrap, the mode itself otherwise),
 *     except grid-constant, whose outside taps read cval;
 *   - the value is the flat sum, taps in C order, of tap * w_0 * w_1 * ...
 *     (weights multiplied in axis order), started from 0.0;
 *   - stored as scipy stores it: integers rounded half away from zero and
 *     clamped to the type's range (fv__im_store).
 * Differences from scipy, where scipy's C code is undefined: a non-finite
 * coordinate gives cval (NaN in nearest and grid-constant modes, as scipy's
 * orders >= 1 give); coordinates beyond +-2^60 are clamped there first. */
#ifndef FV_OPS_INTERP_MATH_H
#define FV_OPS_INTERP_MATH_H

#include <math.h>
#include <stdint.h>
#include "internal.h"
#include "cast.h"                     /* FV_HD */
#include "ops/filters/ndimage-math.h" /* fv__cvt32 & co. */

#ifdef __cplusplus
extern "C" {
#endif

enum {
    FV__IM_NEAREST = 0,
    FV__IM_WRAP,
    FV__IM_REFLECT,
    FV__IM_MIRROR,
    FV__IM_CONSTANT,
    FV__IM_GRID_WRAP,
    FV__IM_GRID_CONSTANT,
    FV__IM_MODES
};

#define FV__IM_TAPS 6                    /* order 5 + 1 */
#define FV__IM_BIG 1152921504606846976.0 /* 2^60 */

/* x as an integer toward zero; |x| <= 2^61 here (callers clamp first). */
FV_HD int64_t
fv__im_trunc(double x)
{
    return (int64_t)x;
}

/* A coordinate x along an axis of n samples folded into it under mode (scipy's
 * map_coordinate): unchanged inside [0, n-1]; constant gives -1 outside;
 * nearest clamps; the periodic modes fold by their period. n >= 1. */
FV_HD double
fv__im_fold(double x, int64_t n, int mode)
{
    if (x >= 0 && x <= (double)(n - 1))
        return x;
    if (mode == FV__IM_CONSTANT)
        return -1.0;
    if (mode == FV__IM_NEAREST)
        return x < 0 ? 0.0 : (double)(n - 1);
    if (n <= 1)
        return 0.0;
    if (x < 0) {
        switch (mode) {
        case FV__IM_MIRROR: { /* period 2n - 2, edges not repeated */
            const int64_t p = 2 * n - 2;
            x += (double)(p * fv__im_trunc(-x / (double)p));
            return x <= (double)(1 - n) ? x + (double)p : -x;
        }
        case FV__IM_REFLECT: { /* period 2n, edges repeated */
            const int64_t p = 2 * n;
            if (x < (double)-p)
                x += (double)(p * fv__im_trunc(-x / (double)p));
            if (x < (double)-n)
                return x + (double)p;
            /* -x - 1, kept away from exactly -1 + 1 = 0 for tiny x */
            return (x > -1e-15 ? 1e-15 : -x) - 1.0;
        }
        case FV__IM_WRAP: { /* period n - 1: first and last sample coincide */
            const int64_t p = n - 1;
            return x + (double)(p * (fv__im_trunc(-x / (double)p) + 1));
        }
        case FV__IM_GRID_WRAP: { /* period n */
            return x + (double)(n * (fv__im_trunc((-1.0 - x) / (double)n) + 1));
        }
        default:
            return x;
        }
    }
    switch (mode) { /* x > n - 1 */
    case FV__IM_MIRROR: {
        const int64_t p = 2 * n - 2;
        x -= (double)(p * fv__im_trunc(x / (double)p));
        return x >= (double)n ? (double)p - x : x;
    }
    case FV__IM_REFLECT: {
        const int64_t p = 2 * n;
        x -= (double)(p * fv__im_trunc(x / (double)p));
        return x >= (double)n ? (double)p - x - 1.0 : x;
    }
    case FV__IM_WRAP: {
        const int64_t p = n - 1;
        return x - (double)(p * fv__im_trunc(x / (double)p));
    }
    case FV__IM_GRID_WRAP:
        return x - (double)(n * fv__im_trunc(x / (double)n));
    default:
        return x;
    }
}

/* The mode the spline's own extension uses past the edges (window taps and the
 * prefilter): constant and wrap have no exact one and use mirror. */
FV_HD int
fv__im_spline_mode(int mode)
{
    return (mode == FV__IM_CONSTANT || mode == FV__IM_WRAP) ? FV__IM_MIRROR : mode;
}

/* The order + 1 B-spline weights of the window that starts at the tap nearest
 * below (odd orders) or nearest to (even orders) x, each the centred B-spline
 * of that order evaluated at the tap's distance from x; the last weight is one
 * minus the others (so they sum to one as scipy's do). order 1..5. */
FV_HD void fv__im_weights_f(double f, int order, double *w);
FV_HD void
fv__im_weights(double x, int order, double *w)
{
    fv__im_weights_f(x - floor((order & 1) ? x : x + 0.5), order, w); /* odd: [0, 1); even: [-0.5, 0.5) */
}

/* The same from f, x's distance from the tap that floor gives above. */
FV_HD void
fv__im_weights_f(double f, int order, double *w)
{
    const double g = 1.0 - f;
    double a, b;
    switch (order) {
    case 1:
        w[0] = g;
        break;
    case 2:
        w[1] = 0.75 - f * f;
        a = 0.5 - f;
        w[0] = 0.5 * a * a;
        break;
    case 3:
        w[1] = (f * f * (f - 2.0) * 3.0 + 4.0) / 6.0;
        w[2] = (g * g * (g - 2.0) * 3.0 + 4.0) / 6.0;
        w[0] = g * g * g / 6.0;
        break;
    case 4:
        a = f * f;
        w[2] = a * (a * 0.25 - 0.625) + 115.0 / 192.0;
        b = 1.0 + f;
        w[1] = b * (b * (b * (5.0 - b) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
        w[3] = g * (g * (g * (5.0 - g) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
        b = 0.5 - f;
        a = b * b;
        w[0] = a * a / 24.0;
        break;
    default: { /* 5 */
        a = f * f;
        w[2] = a * (a * (0.25 - f / 12.0) - 0.5) + 0.55;
        a = g * g;
        w[3] = a * (a * (0.25 - g / 12.0) - 0.5) + 0.55;
        b = f + 1.0;
        w[1] = b * (b * (b * (b * (b / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
        b = g + 1.0;
        w[4] = b * (b * (b * (b * (b / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
        b = 1.0 - f;
        a = b * b;
        w[0] = b * a * a / 120.0;
        break;
    }
    }
    double last = 1.0;
    for (int i = 0; i < order; i++)
        last -= w[i];
    w[order] = last;
}

/* One axis of one output value: its window's byte offsets from the input's
 * first element (off), grid-constant's outside flags (out) and weights (w).
 * c: the coordinate (padding added), n / stride: the axis. Returns 1, or 0
 * when the whole value is cval, or 2 when it is NaN (a non-finite coordinate
 * in nearest and grid-constant modes, which scipy turns into NaN weights). */
FV_HD int
fv__im_axis(double c, int64_t n, int64_t stride, int order, int mode, int64_t *off, unsigned char *out, double *w)
{
    const int fixed = mode == FV__IM_NEAREST || mode == FV__IM_GRID_CONSTANT;
    if (!(c - c == 0.0)) /* NaN or infinite */
        return fixed ? 2 : 0;
    if (c > FV__IM_BIG)
        c = FV__IM_BIG;
    else if (c < -FV__IM_BIG)
        c = -FV__IM_BIG;
    if (!fixed) {
        c = fv__im_fold(c, n, mode);
        if (!(c > -1.0))
            return 0;
    }
    const int64_t start = fv__im_trunc(floor((order & 1) ? c : c + 0.5)) - order / 2;
    const int edge = start < 0 || start + order >= n;
    const int smode = fv__im_spline_mode(mode);
    for (int k = 0; k <= order; k++) {
        int64_t i = start + k;
        out[k] = 0;
        if (edge && (i < 0 || i >= n)) {
            if (mode == FV__IM_GRID_CONSTANT) {
                out[k] = 1;
                i = 0;
            } else {
                i = fv__im_trunc(fv__im_fold((double)i, n, smode));
            }
        }
        off[k] = i * stride;
    }
    if (order > 0)
        fv__im_weights(c, order, w);
    return 1;
}

/* A value stored as scipy stores interpolation results: floats by the C cast;
 * integers rounded half away from zero (unsigned: negatives to 0) and clamped
 * to the type's range, then cast (fv__cvt32 & co.: NaN gives the x86 result);
 * bool outputs hold 0/1 with the truth value of scipy's byte. */
FV_HD void
fv__im_store(char *p, int dtype, double t)
{
    switch (dtype) {
    case FV_FLOAT64:
        *(double *)p = t;
        return;
    case FV_FLOAT32:
        *(float *)p = (float)t;
        return;
    case FV_BOOL:
        *(uint8_t *)p = (uint8_t)fv__cvt32(t) != 0;
        return;
    default:
        break;
    }
    const int is_unsigned = dtype == FV_UINT8 || dtype == FV_UINT16 || dtype == FV_UINT32 || dtype == FV_UINT64;
    double lo, hi;
    if (is_unsigned)
        t = t > 0 ? t + 0.5 : 0.0;
    else
        t = t > 0 ? t + 0.5 : t - 0.5;
    switch (dtype) {
    case FV_UINT8:
        lo = 0.0;
        hi = 255.0;
        break;
    case FV_UINT16:
        lo = 0.0;
        hi = 65535.0;
        break;
    case FV_UINT32:
        lo = 0.0;
        hi = 4294967295.0;
        break;
    case FV_UINT64:
        lo = 0.0;
        hi = 18446744073709551615.0;
        break;
    case FV_INT8:
        lo = -128.0;
        hi = 127.0;
        break;
    case FV_INT16:
        lo = -32768.0;
        hi = 32767.0;
        break;
    case FV_INT32:
        lo = -2147483648.0;
        hi = 2147483647.0;
        break;
    default:
        lo = -9223372036854775808.0;
        hi = 9223372036854775807.0;
        break;
    }
    if (t > hi)
        t = hi;
    if (t < lo)
        t = lo;
    switch (dtype) {
    case FV_UINT8:
        *(uint8_t *)p = (uint8_t)fv__cvt32(t);
        break;
    case FV_UINT16:
        *(uint16_t *)p = (uint16_t)fv__cvt32(t);
        break;
    case FV_UINT32:
        *(uint32_t *)p = (uint32_t)fv__cvt64(t);
        break;
    case FV_UINT64:
        *(uint64_t *)p = fv__cvtu64(t);
        break;
    case FV_INT8:
        *(int8_t *)p = (int8_t)fv__cvt32(t);
        break;
    case FV_INT16:
        *(int16_t *)p = (int16_t)fv__cvt32(t);
        break;
    case FV_INT32:
        *(int32_t *)p = fv__cvt32(t);
        break;
    default:
        *(int64_t *)p = fv__cvt64(t);
        break;
    }
}

/* Any real element as a double. */
FV_HD double
fv__im_load(const char *p, int dtype)
{
    switch (dtype) {
    case FV_BOOL:
    case FV_UINT8:
        return (double)*(const uint8_t *)p;
    case FV_UINT16:
        return (double)*(const uint16_t *)p;
    case FV_UINT32:
        return (double)*(const uint32_t *)p;
    case FV_UINT64:
        return (double)*(const uint64_t *)p;
    case FV_INT8:
        return (double)*(const int8_t *)p;
    case FV_INT16:
        return (double)*(const int16_t *)p;
    case FV_INT32:
        return (double)*(const int32_t *)p;
    case FV_INT64:
        return (double)*(const int64_t *)p;
    case FV_FLOAT32:
        return (double)*(const float *)p;
    default:
        return *(const double *)p;
    }
}

/* A double stored by the plain C cast (scipy's line buffers: the spline
 * prefilter's output), x86-64's results for out-of-range values; bool 0/1. */
FV_HD void
fv__im_store_plain(char *p, int dtype, double t)
{
    switch (dtype) {
    case FV_FLOAT64:
        *(double *)p = t;
        break;
    case FV_FLOAT32:
        *(float *)p = (float)t;
        break;
    case FV_BOOL:
        *(uint8_t *)p = (uint8_t)fv__cvt32(t) != 0;
        break;
    case FV_UINT8:
        *(uint8_t *)p = (uint8_t)fv__cvt32(t);
        break;
    case FV_UINT16:
        *(uint16_t *)p = (uint16_t)fv__cvt32(t);
        break;
    case FV_UINT32:
        *(uint32_t *)p = (uint32_t)fv__cvt64(t);
        break;
    case FV_UINT64:
        *(uint64_t *)p = fv__cvtu64(t);
        break;
    case FV_INT8:
        *(int8_t *)p = (int8_t)fv__cvt32(t);
        break;
    case FV_INT16:
        *(int16_t *)p = (int16_t)fv__cvt32(t);
        break;
    case FV_INT32:
        *(int32_t *)p = fv__cvt32(t);
        break;
    default:
        *(int64_t *)p = fv__cvt64(t);
        break;
    }
}

/* ---- the B-spline prefilter ------------------------------------------------------- */

/* The poles of the order's recursive prefilter (order / 2 of them; closed forms
 * in the comments). Returns their count. */
FV_HD int
fv__im_poles(int order, double *z)
{
    switch (order) {
    case 2:
        z[0] = -0.171572875253809902396622551580603843;
        return 1; /* sqrt(8) - 3 */
    case 3:
        z[0] = -0.267949192431122706472553658494127633;
        return 1; /* sqrt(3) - 2 */
    case 4:
        z[0] = -0.361341225900220177092212841325675255; /* sqrt(664 - sqrt(438976)) + sqrt(304) - 19 */
        z[1] = -0.013725429297339121360331226939128204; /* sqrt(664 + sqrt(438976)) - sqrt(304) - 19 */
        return 2;
    case 5:
        z[0] = -0.430575347099973791851434783493520110; /* sqrt(67.5 - sqrt(4436.25)) + sqrt(26.25) - 6.5 */
        z[1] = -0.043096288203264653822712376822550182; /* sqrt(67.5 + sqrt(4436.25)) - sqrt(26.25) - 6.5 */
        return 2;
    default:
        return 0;
    }
}

/* The B-spline coefficients of nl <= FV__IM_LANES lines of n >= 2 samples
 * each, in place: sample i of line l at c_[i * cs + l] (cs >= nl, in doubles),
 * for an extension of the signal past its ends by mode (the prefilter of
 * Unser, Aldroubi & Eden 1991: a gain, then per pole a causal and an
 * anticausal first-order recursion whose first values sum the extended signal
 * exactly: mirror (whole-sample symmetric, also used by constant, wrap and
 * grid-constant), reflect (half-sample symmetric, also nearest) and grid-wrap
 * (periodic)). Every line gets the very operations of a line filtered alone:
 * the lanes only let the CPU run several lines in one vector. */
#define FV__IM_LANES 8
FV_HD void
fv__im_prefilter_lanes(double *c_, int64_t cs, int nl, int64_t n, int order, int mode)
{
#define c(i) c_[(i)*cs + l]
#define LANES for (int l = 0; l < nl; l++)
    double poles[2];
    const int np = fv__im_poles(order, poles);
    double gain = 1.0;
    for (int k = 0; k < np; k++)
        gain *= (1.0 - poles[k]) * (1.0 - 1.0 / poles[k]);
    for (int64_t i = 0; i < n; i++)
        LANES c(i) *= gain;
    const int kind = (mode == FV__IM_GRID_WRAP) ? 2 : (mode == FV__IM_NEAREST || mode == FV__IM_REFLECT) ? 1 : 0;
    double s[FV__IM_LANES], c0[FV__IM_LANES], q[FV__IM_LANES];
    for (int k = 0; k < np; k++) {
        const double z = poles[k];
        double zi = z;
        /* causal start: c(0) of the recursion run over the extended signal */
        if (kind == 0) { /* mirror: ... c2 c1 | c0 c1 ... c(n-1) | c(n-2) ... */
            const double zn1 = pow(z, (double)(n - 1));
            LANES s[l] = c(0) + zn1 * c(n - 1);
            for (int64_t i = 1; i < n - 1; i++) {
                LANES s[l] += zi * (c(i) + zn1 * c(n - 1 - i));
                zi *= z;
            }
            LANES c(0) = s[l] / (1 - zn1 * zn1);
        } else if (kind == 1) { /* reflect: ... c1 c0 | c0 c1 ... c(n-1) | c(n-1) ... */
            /* scipy 1.17 sums into c(0) itself, so its last term reads the partial
             * sum where the exact start reads c(0) (fixed in scipy 1.18,
             * scipy#24615); fovea follows 1.17: the difference is of order z^2n,
             * visible on short lines only (docs/transform.md). */
            const double zn = pow(z, (double)n);
            LANES
            {
                c0[l] = c(0);
                s[l] = c(0) + zn * c(n - 1);
            }
            for (int64_t i = 1; i < n - 1; i++) {
                LANES s[l] += zi * (c(i) + zn * c(n - 1 - i));
                zi *= z;
            }
            LANES s[l] += zi * (c(n - 1) + zn * s[l]);
            LANES c(0) = s[l] * (z / (1 - zn * zn)) + c0[l];
        } else { /* periodic */
            LANES s[l] = c(0);
            for (int64_t i = 1; i < n; i++) {
                LANES s[l] += zi * c(n - i);
                zi *= z;
            }
            LANES c(0) = s[l] / (1 - zi);
        }
        /* c(i) += z * c(i - 1), the value just stored carried in q (no reload:
         * the recursion's chain then waits on no memory, on either backend) */
        LANES q[l] = c(0);
        for (int64_t i = 1; i < n; i++)
            LANES
            {
                q[l] = c(i) + z * q[l];
                c(i) = q[l];
            }
        /* anticausal start */
        if (kind == 0) {
            LANES c(n - 1) = (z * c(n - 2) + c(n - 1)) * z / (z * z - 1);
        } else if (kind == 1) {
            LANES c(n - 1) *= z / (z - 1);
        } else {
            zi = z;
            LANES s[l] = c(n - 1);
            for (int64_t i = 0; i < n - 1; i++) {
                LANES s[l] += zi * c(i);
                zi *= z;
            }
            LANES c(n - 1) = s[l] * (z / (zi - 1));
        }
        LANES q[l] = c(n - 1); /* c(i) = z * (c(i + 1) - c(i)), carried likewise */
        for (int64_t i = n - 2; i >= 0; i--)
            LANES
            {
                q[l] = z * (q[l] - c(i));
                c(i) = q[l];
            }
    }
#undef LANES
#undef c
}

/* One line: sample i at c_[i * cs]. */
FV_HD void
fv__im_prefilter_line(double *c_, int64_t cs, int64_t n, int order, int mode)
{
    fv__im_prefilter_lanes(c_, cs, 1, n, order, mode);
}

/* ---- one output value --------------------------------------------------------------- */

/* Always inlined on both backends: the records' loops unroll and fold for a
 * constant order, rank and dtype (the CPU rows, the CUDA kernels per order). */
#if defined(__CUDACC__)
#define FV__IM_HDI FV_HD
#else
#define FV__IM_HDI static inline __attribute__((always_inline))
#endif

/* A record's state: the value is cval, computed from the record, NaN, or left
 * to fv__im_value (grid-constant taps outside the input). */
enum {
    FV__IMR_CVAL = 0,
    FV__IMR_OK = 1,
    FV__IMR_NAN = 2,
    FV__IMR_SLOW = 3
};

/* One output value's window along one input axis. */
typedef struct fv__im_rec {
    int64_t off[FV__IM_TAPS]; /* byte offsets of the taps from the input's first element */
    double w[FV__IM_TAPS];    /* order > 0 */
    double c;                 /* the coordinate, padding added */
    int st;                   /* FV__IMR_* */
} fv__im_rec;

FV__IM_HDI void
fv__im_rec_set(fv__im_rec *r, double c, int64_t n, int64_t stride, const int order, int mode)
{
    unsigned char out[FV__IM_TAPS];
    r->c = c;
    if (c >= 0.0 && c <= (double)(n - 1)) {
        /* inside: no folding in any mode, and floor is the truncation; a
         * window inside too is fv__im_axis's without its branches */
        const double fl = (double)fv__im_trunc((order & 1) ? c : c + 0.5);
        const int64_t start = (int64_t)fl - order / 2;
        if (start >= 0 && start + order < n) {
            for (int k = 0; k <= order; k++)
                r->off[k] = (start + k) * stride;
            if (order > 0)
                fv__im_weights_f(c - fl, order, r->w);
            r->st = FV__IMR_OK;
            return;
        }
    }
    const int k = fv__im_axis(c, n, stride, order, mode, r->off, out, r->w);
    if (k != 1) {
        r->st = k == 0 ? FV__IMR_CVAL : FV__IMR_NAN;
        return;
    }
    r->st = FV__IMR_OK;
    if (mode == FV__IM_GRID_CONSTANT)
        for (int i = 0; i <= order; i++)
            if (out[i])
                r->st = FV__IMR_SLOW;
}

/* The flat weighted sum over the window of records r[0..R-1] (order K, input
 * dtype dt): taps in C order, tap * w_0 * w_1 * ..., from 0.0. */
FV__IM_HDI double
fv__im_sum(const char *base, const fv__im_rec *const *r, const int K, const int R, const int dt)
{
    double t = 0.0;
    if (R == 1) {
        for (int a = 0; a <= K; a++) {
            double v = fv__im_load(base + r[0]->off[a], dt);
            if (K > 0)
                v *= r[0]->w[a];
            t += v;
        }
    } else if (R == 2) {
        for (int a = 0; a <= K; a++) {
            const char *pa = base + r[0]->off[a];
            for (int b = 0; b <= K; b++) {
                double v = fv__im_load(pa + r[1]->off[b], dt);
                if (K > 0) {
                    v *= r[0]->w[a];
                    v *= r[1]->w[b];
                }
                t += v;
            }
        }
    } else {
        for (int a = 0; a <= K; a++)
            for (int b = 0; b <= K; b++) {
                const char *pb = base + r[0]->off[a] + r[1]->off[b];
                for (int e = 0; e <= K; e++) {
                    double v = fv__im_load(pb + r[2]->off[e], dt);
                    if (K > 0) {
                        v *= r[0]->w[a];
                        v *= r[1]->w[b];
                        v *= r[2]->w[e];
                    }
                    t += v;
                }
            }
    }
    return t;
}

/* The value of the input (first element base, rank axes of shape n[] and byte
 * strides st[], elements of type T) at the coordinates c[] (padding added):
 * fv__im_axis per axis, then the flat sum over the window in C order of
 * tap * w_0[k_0] * w_1[k_1] * ... (grid-constant's outside taps read cval).
 * fv__im_value_<S> for each dtype suffix S. */
#define FV__IM_DEFINE_VALUE(E, T, S)                                                                                \
    FV_HD double fv__im_value_##S(const char *base, int rank, const int64_t *n, const int64_t *st, const double *c, \
                                  int order, int mode, double cval)                                                 \
    {                                                                                                               \
        int64_t off[FV_MAX_NDIM][FV__IM_TAPS];                                                                      \
        unsigned char outside[FV_MAX_NDIM][FV__IM_TAPS];                                                            \
        double w[FV_MAX_NDIM][FV__IM_TAPS];                                                                         \
        for (int d = 0; d < rank; d++) {                                                                            \
            const int r = fv__im_axis(c[d], n[d], st[d], order, mode, off[d], outside[d], w[d]);                    \
            if (r == 0)                                                                                             \
                return cval;                                                                                        \
            if (r == 2)                                                                                             \
                return (double)NAN;                                                                                 \
        }                                                                                                           \
        const int gc = mode == FV__IM_GRID_CONSTANT;                                                                \
        int k[FV_MAX_NDIM];                                                                                         \
        for (int d = 0; d < rank; d++)                                                                              \
            k[d] = 0;                                                                                               \
        double t = 0.0;                                                                                             \
        for (;;) {                                                                                                  \
            int64_t o = 0;                                                                                          \
            int is_c = 0;                                                                                           \
            for (int d = 0; d < rank; d++) {                                                                        \
                o += off[d][k[d]];                                                                                  \
                is_c |= outside[d][k[d]];                                                                           \
            }                                                                                                       \
            double v = (gc && is_c) ? cval : (double)*(const T *)(base + o);                                        \
            if (order > 0)                                                                                          \
                for (int d = 0; d < rank; d++)                                                                      \
                    v *= w[d][k[d]];                                                                                \
            t += v;                                                                                                 \
            int d = rank - 1;                                                                                       \
            while (d >= 0 && ++k[d] > order)                                                                        \
                k[d--] = 0;                                                                                         \
            if (d < 0)                                                                                              \
                break;                                                                                              \
        }                                                                                                           \
        return t;                                                                                                   \
    }
FV_FOREACH_DTYPE(FV__IM_DEFINE_VALUE)
#undef FV__IM_DEFINE_VALUE

#ifdef __cplusplus
}
#endif

#endif
