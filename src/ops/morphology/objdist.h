/* The op OBJECT_DISTANCE (fv_objects_by_distance, include/fovea/skmorphology.h):
 * the greedy pass of skimage.morphology.remove_objects_by_distance. CPU only;
 * src/ops/morphology/objdist.c validates. Plain C. */
#ifndef FV_OPS_OBJDIST_H
#define FV_OPS_OBJDIST_H

#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_OBJECT_DISTANCE ------------------------------------------------------
 * in: float64 (npts, nd) point coordinates in visiting order; in2: int64 (npts)
 * the object of each point, in [0, nobj); out: uint8 or bool (nobj), 1 on the
 * objects removed. Each point of an object not yet removed removes every other
 * object, not yet removed, with a point within distance r (Minkowski p: the sum
 * of |d|^p <= r^p; p = 2: squares; p = inf: the largest |d|). p > 0 or NaN. */
typedef struct fv__object_distance_params {
    double r, p;
} fv__object_distance_params;

/* Kernels: fv_status fn(fv_context *ctx, const fv__op_args *a); FV_KERNEL(OBJECT_DISTANCE, ...). */
FV_OP(OBJECT_DISTANCE, "object_distance", fv__object_distance_params);

#ifdef __cplusplus
}
#endif

#endif
