/* Binary morphology and distance transforms (scipy.ndimage semantics) on the
 * CPU and CUDA backends. Structures are host uint8 arrays in C order (nonzero
 * = part of the structure) of shape sshape[in->ndim], every extent >= 1;
 * origins as in filters.h (NULL: all 0). Inputs of any real dtype are read as
 * (value != 0, NaN included); binary outputs (bool, any integer or float dtype,
 * as scipy allows) receive 0 / 1. A 0-d input counts as one element of shape (1,).
 * Returns FV_OK or a negative fv_status (details in fv_error_message()). */
#ifndef FOVEA_MORPHOLOGY_H
#define FOVEA_MORPHOLOGY_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* scipy.ndimage's _binary_erosion core (binary_erosion; binary_dilation is this
 * with invert = 1 and the structure reflected, as the Python layer does):
 * out = 1 where every structure element lands on a nonzero input (invert: where
 * none lands on a zero input, then negated). Positions outside the image take
 * border_value. iterations >= 1 repeats the pass; iterations < 1 repeats until
 * nothing changes. mask (NULL or same shape, any real dtype): only positions
 * where mask != 0 change in each iteration, the others keep the input value.
 * in, out and mask may alias. structure may be all zero (scipy allows it).
 * origins[d] must lie in [-(sshape[d] / 2), (sshape[d] - 1) / 2] (scipy's
 * _invalid_origin; FV_EINVAL "invalid origin" otherwise). iterations < 1 with
 * passes that cycle instead of settling (possible when the structure lacks its
 * centre element; scipy loops forever) fails with FV_EINVAL. */
FV_API fv_status fv_binary_erosion(fv_context *ctx, const fv_array *in, fv_array *out, const uint8_t *structure,
                                   const int64_t *sshape, int iterations, const fv_array *mask, int border_value,
                                   const int64_t *origins, int invert);

/* scipy.ndimage.distance_transform_edt: exact Euclidean distance of every
 * nonzero input element to the nearest zero element, with per-axis sampling
 * (NULL: 1). distances: NULL or float64 of in's shape. indices: NULL or an int32
 * or int64 array of shape (in->ndim, *in->shape) receiving the coordinates of
 * the nearest zero element (ties may pick any nearest one; in practice the
 * same as scipy's). At least one of the two must be given. An input with no
 * zero element: distances and indices as scipy gives them (indices -1 on axis
 * 0, 0 on the others). Distances are bit-identical to scipy's and between
 * backends. A 0-d input takes indices of shape (1,) or (1, 1). Every extent
 * must be < 2^31 - 1. */
FV_API fv_status fv_distance_transform_edt(fv_context *ctx, const fv_array *in, const double *sampling,
                                           fv_array *distances, fv_array *indices);

/* scipy.ndimage.distance_transform_cdt: chamfer distance with the given
 * structure (generate_binary_structure(ndim, 1) is 'taxicab',
 * (ndim, ndim) is 'chessboard'); every extent of sshape must be 3 (FV_EINVAL
 * "metric sizes must be equal to 3"). scipy's two raster passes exactly, ties
 * included. distances: NULL or int32 of in's shape (-1 where no zero element is
 * reachable, as scipy). indices: NULL or int32 of shape (in->ndim, *in->shape)
 * (unreachable elements: their own coordinates). At least one must be given.
 * The outputs may alias the input. */
FV_API fv_status fv_distance_transform_cdt(fv_context *ctx, const fv_array *in, const uint8_t *structure,
                                           const int64_t *sshape, fv_array *distances, fv_array *indices);

FV_EXTERN_C_END

#endif
