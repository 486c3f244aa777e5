/* The op INTERP: scipy's spline interpolation at computed coordinates (the
 * engine of map_coordinates, affine_transform, zoom, shift, rotate).
 *
 * in: the (prefiltered) input, any real dtype, ndim >= 1; in2: COORDS only, the
 * coordinate array, any real dtype, shape (in's ndim, *out's shape); out: any
 * real dtype. For each output element at integer index o, the input coordinate
 * along axis d is
 *   AFFINE:    offset[d] + o[0] * m[d][0] + o[1] * m[d][1] + ...   (in order)
 *   ZOOMSHIFT: x = o[d]; x += shift[d] (has_shift); then x = (x + 0.5) * zoom[d]
 *              - 0.5 (grid_mode) or x *= zoom[d] (has_zoom); out's ndim = in's
 *   COORDS:    in2[d, o...] as a double
 * plus nprepad, and the value is fv__im_axis / the flat weighted sum of
 * src/ops/interpolation/interp-math.h, stored by fv__im_store. in is never
 * written, out never overlaps in or in2 (src/ops checks). Kernels:
 * src/cpu/interpolation/interp-cpu.c, src/cuda/interpolation/interp.cu. */
#ifndef FV_OPS_INTERP_H
#define FV_OPS_INTERP_H

#include <stdint.h>
#include "internal.h"
#include "ops/interpolation/interp-math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fv__interp_kind {
    FV__INTERP_AFFINE = 0,
    FV__INTERP_ZOOMSHIFT,
    FV__INTERP_COORDS
} fv__interp_kind;

typedef struct fv__interp_params {
    int kind;  /* fv__interp_kind */
    int order; /* 0..5 */
    int mode;  /* scipy's mode code (interp-math.h) */
    double cval;
    int64_t nprepad;                          /* added to every coordinate */
    int has_zoom, has_shift, grid_mode;       /* ZOOMSHIFT */
    double matrix[FV_MAX_NDIM * FV_MAX_NDIM]; /* AFFINE: in's ndim rows x out's ndim columns */
    double offset[FV_MAX_NDIM];               /* AFFINE */
    double zoom[FV_MAX_NDIM];                 /* ZOOMSHIFT */
    double shift[FV_MAX_NDIM];                /* ZOOMSHIFT */
} fv__interp_params;

/* The input coordinates c[] (without the padding) of the output element at
 * index o[] (out's ndim orank; in's ndim irank). COORDS: pc points at
 * in2[0, o...], cstride is in2's stride along its first axis, cdtype its dtype. */
FV_HD void
fv__interp_coords(const fv__interp_params *p, int irank, int orank, const int64_t *o, const char *pc, int64_t cstride,
                  int cdtype, double *c)
{
    switch (p->kind) {
    case FV__INTERP_AFFINE:
        for (int d = 0; d < irank; d++) {
            double x = p->offset[d];
            const double *m = p->matrix + d * orank;
            for (int j = 0; j < orank; j++)
                x += (double)o[j] * m[j];
            c[d] = x;
        }
        break;
    case FV__INTERP_ZOOMSHIFT:
        for (int d = 0; d < irank; d++) {
            double x = (double)o[d];
            if (p->has_shift)
                x += p->shift[d];
            if (p->has_zoom) {
                if (p->grid_mode) {
                    x += 0.5;
                    x *= p->zoom[d];
                    x -= 0.5;
                } else {
                    x *= p->zoom[d];
                }
            }
            c[d] = x;
        }
        break;
    default:
        for (int d = 0; d < irank; d++)
            c[d] = fv__im_load(pc + d * cstride, cdtype);
        break;
    }
    for (int d = 0; d < irank; d++)
        c[d] += (double)p->nprepad;
}

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(INTERP, ...). */
FV_OP(INTERP, "interpolate", fv__interp_params);

#ifdef __cplusplus
}
#endif

#endif
