/* Per-pixel colour conversions and colour differences (skimage.color) on the
 * CPU and CUDA backends.
 *
 * Pixels are the elements of an n-d array along its LAST axis (the channel
 * axis); every other axis indexes pixels, with any strides (the Python layer
 * moves a channel axis elsewhere to the end as a view, never a copy). One op,
 * fv_color_convert, runs one conversion named by fv_color_params::conv:
 *
 *   FV_COLOR_MATRIX    out[r] = post(sum_c M[r][c] * pre(in[c] + pre_offset[c]) + post_offset[r])
 *                      3 input channels, `rows` (1..3) output channels; with
 *                      rows == 1 out may drop the channel axis (rgb2gray).
 *                      Covers rgb2xyz (pre SRGB_LINEAR), xyz2rgb (post
 *                      SRGB_GAMMA), the YUV / YIQ / YPbPr / YCbCr / YDbDr pairs,
 *                      rgb2gray, rgb <-> rgb cie, separate_stains (pre
 *                      STAIN_LOG, post NONNEG; M is conv_matrix transposed)
 *                      and combine_stains (pre STAIN_EXP, post EXP_CLIP).
 *   FV_COLOR_RGB2HSV / HSV2RGB     3 -> 3, scikit-image's formulas
 *   FV_COLOR_XYZ2LAB / LAB2XYZ     3 -> 3, reference white `white`
 *                                  (LAB2XYZ clips negative z to 0 first)
 *   FV_COLOR_XYZ2LUV / LUV2XYZ     3 -> 3, reference white `white`
 *   FV_COLOR_LAB2LCH / LCH2LAB     C >= 3 -> C; channels past the third are copied
 *   FV_COLOR_RGBA2RGB              4 -> 3, clip((1 - a) * background + a * c, 0, 1)
 *   FV_COLOR_DELTAE_*              two Lab inputs (>= 3 channels, the first
 *                                  three used) -> one value per pixel, out
 *                                  without the channel axis; k = kL, kC, kH,
 *                                  k1, k2 as scikit-image orders them per function
 *
 * Data types: in, in2 and out are float32 or float64. Conversions compute in
 * out's type (as scikit-image computes in its working type), so in and out
 * normally share it; float32 in with float64 out is allowed for
 * FV_COLOR_MATRIX, where STAIN_LOG then takes the logarithm in float32 as
 * scikit-image's separate_stains does. The colour differences compute in
 * float64 and round to out's type. Integer images are converted by the caller
 * (img_as_float in the Python layer).
 *
 * Shapes: in (..., Cin), out (..., Cout) (or (...) where noted), in2 like in;
 * the pixel axes must agree exactly. in and out may not overlap unless they
 * are the same array with the same layout and Cin == Cout (in-place).
 * Returns FV_OK or a negative fv_status with the details in fv_error_message(). */
#ifndef FOVEA_COLOR_H
#define FOVEA_COLOR_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

typedef enum fv_color_conv {
    FV_COLOR_MATRIX = 0,
    FV_COLOR_RGB2HSV,
    FV_COLOR_HSV2RGB,
    FV_COLOR_XYZ2LAB,
    FV_COLOR_LAB2XYZ,
    FV_COLOR_XYZ2LUV,
    FV_COLOR_LUV2XYZ,
    FV_COLOR_LAB2LCH,
    FV_COLOR_LCH2LAB,
    FV_COLOR_RGBA2RGB,
    FV_COLOR_DELTAE_CIE76,     /* Euclidean distance                          */
    FV_COLOR_DELTAE_CIEDE94,   /* k = {kH, kC, kL, k1, k2}, lab1 the reference */
    FV_COLOR_DELTAE_CIEDE2000, /* k = {kL, kC, kH}                             */
    FV_COLOR_DELTAE_CMC,       /* k = {kL, kC}                                 */
    FV_COLOR_CONV_COUNT
} fv_color_conv;

/* Nonlinearity applied to each input channel of FV_COLOR_MATRIX (after pre_offset). */
typedef enum fv_color_pre {
    FV_COLOR_PRE_NONE = 0,
    FV_COLOR_PRE_SRGB_LINEAR, /* v > 0.04045 ? ((v + 0.055) / 1.055)^2.4 : v / 12.92 */
    FV_COLOR_PRE_STAIN_LOG,   /* log(max(v, 1e-6)) / log(1e-6), the log in in's type */
    FV_COLOR_PRE_STAIN_EXP,   /* -(v * -log(1e-6))                                   */
    FV_COLOR_PRE_COUNT
} fv_color_pre;

/* Applied to each output channel of FV_COLOR_MATRIX (after post_offset). */
typedef enum fv_color_post {
    FV_COLOR_POST_NONE = 0,
    FV_COLOR_POST_SRGB_GAMMA, /* v > 0.0031308 ? 1.055 v^(1/2.4) - 0.055 : 12.92 v, clipped to [0, 1] */
    FV_COLOR_POST_NONNEG,     /* max(v, 0) (NaN stays NaN)                           */
    FV_COLOR_POST_EXP_CLIP,   /* clip(exp(v), 0, 1)                                  */
    FV_COLOR_POST_CLIP01,     /* clip(v, 0, 1)                                       */
    FV_COLOR_POST_COUNT
} fv_color_post;

/* What to compute; zero-initialise and set the fields the conversion uses. */
typedef struct fv_color_params {
    fv_color_conv conv;
    int rows;              /* MATRIX: output channels, 1..3                  */
    double matrix[3][3];   /* MATRIX: out[r] = sum_c matrix[r][c] * v[c]     */
    double pre_offset[3];  /* MATRIX: added to each input channel first      */
    double post_offset[3]; /* MATRIX: added to each product row              */
    fv_color_pre pre;
    fv_color_post post;
    double white[3];      /* LAB / LUV: reference white X, Y, Z (> 0)       */
    double background[3]; /* RGBA2RGB: background colour                    */
    double k[5];          /* DELTAE: weights, see fv_color_conv             */
} fv_color_params;

/* Run the conversion p->conv from in to out (see the top of this file).
 * MATRIX also takes uint8 input on the CPU, into float64 out: each value v is
 * taken as v * (1 / 255) (scikit-image's img_as_float64), bit for bit as if
 * that float64 array were passed, with the pre-function evaluated once per
 * value (256 per channel) instead of once per pixel.
 * FV_EINVAL for a bad conversion, shape or channel count, FV_EDTYPE for a
 * dtype other than float32 / float64 (or a mix other than the allowed one). */
FV_API fv_status fv_color_convert(fv_context *ctx, const fv_array *in, fv_array *out, const fv_color_params *p);

/* Colour difference of two Lab images (p->conv one of FV_COLOR_DELTAE_*):
 * lab1 and lab2 of one dtype and shape (..., C >= 3), out (...). */
FV_API fv_status fv_color_delta_e(fv_context *ctx, const fv_array *lab1, const fv_array *lab2, fv_array *out,
                                  const fv_color_params *p);

/* Name of a conversion ("matrix", "rgb2hsv", ...); "invalid" when out of range. */
FV_API const char *fv_color_conv_name(fv_color_conv conv);

FV_EXTERN_C_END

#endif
