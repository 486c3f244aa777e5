/* Shared by the morphology CPU kernels (src/cpu/morphology). Parameters:
 * src/ops/morphology/binary-erosion.h and distance.h. */
#ifndef FV_MORPHOLOGY_CPU_H
#define FV_MORPHOLOGY_CPU_H

#include "internal.h"
#include "ops/morphology/binary-erosion.h"
#include "ops/morphology/distance.h"
#include "ops/filters/ndimage-math.h"

#endif
