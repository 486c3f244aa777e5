/* Kernel parameters and shared helpers of the scikit-image morphology ops
 * (include/fovea/skmorphology.h): RECONSTRUCTION, LOCAL_MAXIMA, THIN and
 * MEDIAL_AXIS. src/ops/morphology/{reconstruction,extrema,thin}.c validate and
 * fill them; the matching -cpu.c and .cu kernels (src/cpu, src/cuda) run them.
 *
 * Every kernel gets C-contiguous arrays, and an out that overlaps no input
 * (the op layer copies or uses temporaries where the caller's arrays are not
 * so). Plain C; the inline helpers compile as device code under nvcc too. */
#ifndef FV_SKMORPHOLOGY_KERNELS_H
#define FV_SKMORPHOLOGY_KERNELS_H

#include <stdint.h>
#include "internal.h"
#include "cast.h"   /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_RECONSTRUCTION --------------------------------------------------
 * in = seed, in2 = mask, out: one dtype and shape. The kernel computes
 * out = reconstruction of min(seed, mask) (dilation; erosion: max) under mask.
 * Values flow from p to p + nb[k] for every neighbour offset k. */
typedef struct fv__reconstruction_params {
    int method;            /* fv_reconstruction_method */
    int nnb;               /* neighbour offsets (the footprint less its centre) */
    const int64_t *nb;     /* host: nnb rows of ndim coordinate offsets */
    int64_t lo[FV_MAX_NDIM], hi[FV_MAX_NDIM];   /* per axis: max(-nb), max(nb), >= 0 */
} fv__reconstruction_params;

/* ---- FV__OP_LOCAL_MAXIMA ------------------------------------------------------
 * in: the image (any real dtype); out: bool or uint8 flags (1 = extremum). */
typedef struct fv__local_maxima_params {
    int minima;            /* compare the other way round */
    int symmetric;         /* the neighbour set equals its negation */
    int scan_last;         /* both neighbours along the last axis are in the set: candidates
                            * come from the scan along it, else every inner pixel is one */
    int nnb;
    const int64_t *nb;     /* host: nnb rows of ndim offsets in {-1, 0, 1} */
} fv__local_maxima_params;

/* ---- FV__OP_THIN --------------------------------------------------------------
 * in: 2-d image (any real dtype, nonzero = foreground); out: bool or uint8. */
typedef struct fv__thin_params {
    int64_t max_num_iter;  /* <= 0: until stable */
} fv__thin_params;

/* ---- FV__OP_MEDIAL_AXIS (CPU only) ---------------------------------------------
 * in: 2-d image; in2: int64 order (1-d, validated: every index in range);
 * out: bool or uint8. No parameters. */

/* ---- shared helpers ------------------------------------------------------------ */

/* Thinning condition of Lam, Lee and Suen (1992) for the 8-neighbourhood code
 * c, bit k set when neighbour x(k+1) is set: x1 = east, then counter-clockwise
 * (x2 north-east, x3 north, ..., x8 south-east). second: the second
 * subiteration. Returns 1 when the pixel is deleted. */
FV_HD int
fv__thin_deletes(unsigned c, int second)
{
#define FV__X(k) ((int)((c >> (((k) - 1) & 7)) & 1u))   /* x1..x8, x9 = x1 */
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

/* Contiguous-array plumbing of the op layer (src/ops/morphology/reconstruction.c). */

/* *c = a (a new reference) when a is C-contiguous, else a contiguous copy on
 * a's device. */
fv_status fv__skm_contig(fv_context *ctx, const fv_array *a, fv_array **c);
/* *work = out (a new reference) when out is C-contiguous and overlaps none of
 * ins[0..nin), else a new contiguous array like out. */
fv_status fv__skm_work(fv_context *ctx, fv_array *out, const fv_array *const *ins, int nin, fv_array **work);
/* Copy work into out when they differ; then drop work. Returns st when st is
 * an error already. */
fv_status fv__skm_finish(fv_context *ctx, fv_status st, fv_array *work, fv_array *out);

/* Kernels (one dtype switch inside each). */
fv_status fv__cpu_reconstruction(fv_context *ctx, const fv__op_args *a);
fv_status fv__cpu_local_maxima(fv_context *ctx, const fv__op_args *a);
fv_status fv__cpu_thin(fv_context *ctx, const fv__op_args *a);
fv_status fv__cpu_medial_axis(fv_context *ctx, const fv__op_args *a);
fv_status fv__cuda_reconstruction(fv_context *ctx, const fv__op_args *a);
fv_status fv__cuda_local_maxima(fv_context *ctx, const fv__op_args *a);
fv_status fv__cuda_thin(fv_context *ctx, const fv__op_args *a);

#ifdef __cplusplus
}
#endif

#endif
