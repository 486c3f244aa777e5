/* fovea: GPU-accelerated n-dimensional image processing and whole-slide image I/O.
 * Umbrella header. */
#ifndef FOVEA_H
#define FOVEA_H

#include "export.h"
#include "version.h"
#include "status.h"
#include "dtype.h"
#include "context.h"
#include "array.h"
#include "core.h"
#include "slide.h"
#include "filters.h"
#include "interpolation.h"
#include "morphology.h"
#include "skmorphology.h"
#include "color.h"
#include "exposure.h"
#include "measure.h"
#include "segmentation.h"
#include "contours.h"
#include "metrics.h"
#include "filesystem.h"
#include "fft.h"
#include "transform.h"
#include "restoration.h"
#include "stack.h"
#include "denoise.h"

#endif
