/* The ops THIN, MEDIAL_AXIS and SKELETON_LEE (fv_thin, fv_skeletonize,
 * fv_medial_axis_thin, include/fovea/skmorphology.h): src/ops/morphology/thin.c
 * fills the params.
 *
 * Every kernel gets C-contiguous arrays, and an out that overlaps no input
 * (the op layer copies or uses temporaries where the caller's arrays are not
 * so). Plain C; the inline helper compiles as device code under nvcc too. */
#ifndef FV_OPS_THIN_H
#define FV_OPS_THIN_H

#include <stdint.h>
#include "internal.h"
#include "cast.h" /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_THIN --------------------------------------------------------------
 * in: 2-d image (any real dtype, nonzero = foreground); out: bool or uint8.
 * Parallel two-subiteration thinning: in subiteration s every set pixel whose
 * 8-neighbourhood code c (bits as fv__thin_deletes) has lut[s][c] set is
 * removed. The op layer fills the tables: thin's (fv__thin_deletes) or
 * Zhang and Suen's (skeletonize). */
typedef struct fv__thin_lut {
    uint8_t del[256]; /* 1 = delete */
} fv__thin_lut;

typedef struct fv__thin_params {
    int64_t max_num_iter; /* <= 0: until stable */
    fv__thin_lut lut[2];  /* per subiteration */
} fv__thin_params;

/* ---- FV__OP_SKELETON_LEE (CPU only) ---------------------------------------------
 * in: 2-d or 3-d image (any dtype, nonzero = foreground); out: bool or uint8 of
 * its shape. Lee, Kashyap and Chu's (1994) thinning as scikit-image's
 * skeletonize(method="lee"): six (2-d: four) border directions per round,
 * candidates then a sequential recheck. No parameters. */

/* ---- FV__OP_MEDIAL_AXIS (CPU only) ---------------------------------------------
 * in: 2-d image; in2: int64 order (1-d, validated: every index in range);
 * out: bool or uint8. No parameters. */

/* Thinning condition of Lam, Lee and Suen (1992) for the 8-neighbourhood code
 * c, bit k set when neighbour x(k+1) is set: x1 = east, then counter-clockwise
 * (x2 north-east, x3 north, ..., x8 south-east). second: the second
 * subiteration. Returns 1 when the pixel is deleted. */
FV_HD int
fv__thin_deletes(unsigned c, int second)
{
#define FV__X(k) ((int)((c >> (((k)-1) & 7)) & 1u)) /* x1..x8, x9 = x1 */
    int xh = 0, n1 = 0, n2 = 0;
    for (int i = 1; i <= 4; i++) {
        xh += !FV__X(2 * i - 1) && (FV__X(2 * i) || FV__X(2 * i + 1));
        n1 += FV__X(2 * i - 1) || FV__X(2 * i);
        n2 += FV__X(2 * i) || FV__X(2 * i + 1);
    }
    int m = n1 < n2 ? n1 : n2;
    int g3 = second ? !((FV__X(6) || FV__X(7) || !FV__X(4)) && FV__X(5))
                    : !((FV__X(2) || FV__X(3) || !FV__X(8)) && FV__X(1));
#undef FV__X
    return xh == 1 && m >= 2 && m <= 3 && g3;
}

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(THIN / MEDIAL_AXIS / SKELETON_LEE, ...) in the kernel file. */
FV_OP(THIN, "thin", fv__thin_params);
FV_OP(MEDIAL_AXIS, "medial_axis", void);
FV_OP(SKELETON_LEE, "skeleton_lee", void);

#ifdef __cplusplus
}
#endif

#endif
