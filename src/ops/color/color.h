/* Kernel parameters and the per-pixel math of the colour op (FV__OP_COLOR,
 * include/fovea/color.h). src/ops/color/color.c validates and fills the job;
 * src/cpu/color/color-cpu.c and src/cuda/color/color.cu walk the pixels and call
 * fv__color_pixel_<in><out> below for each, so both backends run one source of
 * the formulas. The math is written once (color-math.h) and instantiated for
 * float and double; plain C, compiled as host and device code under nvcc. */
#ifndef FV_COLOR_KERNELS_H
#define FV_COLOR_KERNELS_H

#include <stdint.h>
#include <math.h>
#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* What the kernels get (params of FV__OP_COLOR). Geometry g covers the pixel
 * axes (every axis but the channel axis): operand 0 is out, 1 in, 2 in2. */
typedef struct fv__color_job {
    fv_color_params p;
    fv__geom g;
    int64_t cs[3]; /* channel strides in bytes: out, in, in2 (out: 0 without a channel axis) */
    int cin;       /* channels of in (and in2) */
    int cout;      /* channels of out */
} fv__color_job;

#define FV__COLOR_PI 3.141592653589793

/* numpy's float -> uint8 cast as x86-64 performs it (via int32), for the
 * hsv2rgb sector index; values outside int32 give 0. */
FV_HD int
fv__color_sector(double hi)
{
    if (!(hi > -2147483648.0 && hi < 2147483648.0))
        return 0;
    return (int)((uint8_t)(int32_t)hi % 6);
}

#define FV__CT float
#define FV__CM(fn) fn##f
#define FV__CS f
#include "ops/color/color-math.h"
#undef FV__CT
#undef FV__CM
#undef FV__CS

#define FV__CT double
#define FV__CM(fn) fn
#define FV__CS d
#include "ops/color/color-math.h"
#undef FV__CT
#undef FV__CM
#undef FV__CS

/* ---- colour differences (always in double) ----------------------------------- */

FV_HD void
fv__color_polar(double x, double y, double *r, double *t)
{
    *r = hypot(x, y);
    *t = atan2(y, x);
    if (*t < 0.0)
        *t += 2 * FV__COLOR_PI;
}

/* skimage's get_dH2: 2 * (C1 C2 - (a1 a2 + b1 b2)).
 *
 * The difference cancels: for equal (a, b) it is a rounding residue of
 * C1 C2 against a1 a2 + b1 b2 (either sign, a few ulps of C^2), which the
 * caller's sqrt lifts to ~1e-7 * C. NumPy rounds each product and sum once;
 * nvcc would contract them into FMAs, and CUDA's hypot may differ from glibc's
 * by an ulp, so the residue can differ between backends (the GPU tests allow
 * for it). The residue is kept, not zeroed: skimage returns it too, and the CPU
 * backend matches skimage to the bit. The products and sums are rounded one by
 * one as NumPy does: the colour sources are built without FMA contraction
 * (-fmad=false, -ffp-contract=off; CMakeLists.txt). */
FV_HD double
fv__color_dh2(double a1, double b1, double a2, double b2)
{
    double C1 = hypot(a1, b1), C2 = hypot(a2, b2);
    return 2 * ((C1 * C2) - (a1 * a2 + b1 * b2));
}

FV_HD double
fv__color_delta_e(const fv_color_params *p, const double *x, const double *y)
{
    const double L1 = x[0], a1 = x[1], b1 = x[2], L2 = y[0], a2 = y[1], b2 = y[2];
    const double pi = FV__COLOR_PI;
    double dE2;
    switch (p->conv) {
    case FV_COLOR_DELTAE_CIE76: {
        double dL = L2 - L1, da = a2 - a1, db = b2 - b1;
        return sqrt(dL * dL + da * da + db * db);
    }
    case FV_COLOR_DELTAE_CIEDE94: {
        const double kH = p->k[0], kC = p->k[1], kL = p->k[2], k1 = p->k[3], k2 = p->k[4];
        double C1 = hypot(a1, b1), C2 = hypot(a2, b2);
        double dL = L1 - L2, dC = C1 - C2, dH2 = fv__color_dh2(a1, b1, a2, b2);
        double SC = 1 + k1 * C1, SH = 1 + k2 * C1;
        double tL = dL / (kL * 1), tC = dC / (kC * SC), kS = kH * SH;
        dE2 = tL * tL;
        dE2 += tC * tC;
        dE2 += dH2 / (kS * kS);
        break;
    }
    case FV_COLOR_DELTAE_CIEDE2000: {
        const double kL = p->k[0], kC = p->k[1], kH = p->k[2];
        const double p7 = 6103515625.0; /* 25^7 */
        double Cbar = 0.5 * (hypot(a1, b1) + hypot(a2, b2));
        double c7 = pow(Cbar, 7.0);
        double G = 0.5 * (1 - sqrt(c7 / (c7 + p7)));
        double scale = 1 + G, C1, h1, C2, h2;
        fv__color_polar(a1 * scale, b1, &C1, &h1);
        fv__color_polar(a2 * scale, b2, &C2, &h2);
        double Lbar = 0.5 * (L1 + L2);
        double tmp = (Lbar - 50) * (Lbar - 50);
        double SL = 1 + 0.015 * tmp / sqrt(20 + tmp);
        double L_term = (L2 - L1) / (kL * SL);
        Cbar = 0.5 * (C1 + C2);
        double SC = 1 + 0.045 * Cbar;
        double C_term = (C2 - C1) / (kC * SC);
        double h_diff = h2 - h1, h_sum = h1 + h2, CC = C1 * C2;
        double dH = h_diff;
        if (h_diff > pi)
            dH -= 2 * pi;
        if (h_diff < -pi)
            dH += 2 * pi;
        if (CC == 0.0)
            dH = 0.0;
        double dH_term = 2 * sqrt(CC) * sin(dH / 2);
        double Hbar = h_sum;
        int mask = CC != 0.0 && fabs(h_diff) > pi;
        if (mask && h_sum < 2 * pi)
            Hbar += 2 * pi;
        if (mask && h_sum >= 2 * pi)
            Hbar -= 2 * pi;
        if (CC == 0.0)
            Hbar *= 2;
        Hbar *= 0.5;
        const double d2r = pi / 180.0;
        double T = 1 - 0.17 * cos(Hbar - 30 * d2r) + 0.24 * cos(2 * Hbar) + 0.32 * cos(3 * Hbar + 6 * d2r) -
            0.20 * cos(4 * Hbar - 63 * d2r);
        double SH = 1 + 0.015 * Cbar * T;
        double H_term = dH_term / (kH * SH);
        c7 = pow(Cbar, 7.0);
        double Rc = 2 * sqrt(c7 / (c7 + p7));
        double e = (Hbar * (180.0 / pi) - 275) / 25;
        double dtheta = 30 * d2r * exp(-(e * e));
        double R_term = -sin(2 * dtheta) * Rc * C_term * H_term;
        dE2 = L_term * L_term;
        dE2 += C_term * C_term;
        dE2 += H_term * H_term;
        dE2 += R_term;
        break;
    }
    default: { /* CMC */
        const double kL = p->k[0], kC = p->k[1];
        double C1, h1, C2, h2;
        fv__color_polar(a1, b1, &C1, &h1);
        fv__color_polar(a2, b2, &C2, &h2);
        double dC = C1 - C2, dL = L1 - L2, dH2 = fv__color_dh2(a1, b1, a2, b2);
        double hd = h1 * (180.0 / pi);
        double T = (hd >= 164 && hd <= 345) ? 0.56 + 0.2 * fabs(cos(h1 + 168 * (pi / 180.0)))
                                            : 0.36 + 0.4 * fabs(cos(h1 + 35 * (pi / 180.0)));
        double c1_4 = pow(C1, 4.0);
        double F = sqrt(c1_4 / (c1_4 + 1900));
        double SL = L1 < 16 ? 0.511 : 0.040975 * L1 / (1.0 + 0.01765 * L1);
        double SC = 0.638 + 0.0638 * C1 / (1.0 + 0.0131 * C1);
        double SH = SC * (F * T + 1 - F);
        double tL = dL / (kL * SL), tC = dC / (kC * SC);
        dE2 = tL * tL;
        dE2 += tC * tC;
        dE2 += dH2 / (SH * SH);
        break;
    }
    }
    return sqrt(dE2 < 0 ? 0 : dE2); /* np.maximum keeps NaN */
}

/* ---- one pixel: load, compute, store ------------------------------------------
 * fv__color_pixel_<in><out>(job, pin, pin2, pout): byte pointers to the pixel's
 * first channel in each operand; channel strides from the job. */
#define FV__COLOR_PIXEL(TI, SI, TO, SO, CT, CS)                                                                \
    FV_HD void fv__color_pixel_##SI##SO(const fv__color_job *j, const char *pin, const char *pin2, char *pout) \
    {                                                                                                          \
        const int64_t so = j->cs[0], si = j->cs[1], si2 = j->cs[2];                                            \
        if (j->p.conv >= FV_COLOR_DELTAE_CIE76) {                                                              \
            double x[3], y[3];                                                                                 \
            for (int c = 0; c < 3; c++) {                                                                      \
                x[c] = (double)*(const TI *)(pin + c * si);                                                    \
                y[c] = (double)*(const TI *)(pin2 + c * si2);                                                  \
            }                                                                                                  \
            *(TO *)pout = (TO)fv__color_delta_e(&j->p, x, y);                                                  \
            return;                                                                                            \
        }                                                                                                      \
        CT v[4], o[3];                                                                                         \
        const int nin = j->cin < 4 ? j->cin : 4;                                                               \
        for (int c = 0; c < nin; c++)                                                                          \
            v[c] = (CT) * (const TI *)(pin + c * si);                                                          \
        int nout = fv__color_math_##CS(&j->p, v, o, sizeof(TI) == sizeof(float));                              \
        for (int c = 0; c < nout; c++)                                                                         \
            *(TO *)(pout + c * so) = (TO)o[c];                                                                 \
        for (int c = nout; c < j->cout; c++) /* lab2lch: extra channels pass through */                        \
            *(TO *)(pout + c * so) = (TO)(CT) * (const TI *)(pin + c * si);                                    \
    }
FV__COLOR_PIXEL(float, f, float, f, float, f)
FV__COLOR_PIXEL(double, d, double, d, double, d)
FV__COLOR_PIXEL(float, f, double, d, double, d)
FV__COLOR_PIXEL(double, d, float, f, float, f)
#undef FV__COLOR_PIXEL

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(COLOR, ...) in the kernel file. */
FV_OP(COLOR, "color", fv__color_job);

#ifdef __cplusplus
}
#endif

#endif
