/* Spline interpolation and geometric transforms (scipy.ndimage semantics) on
 * the CPU and CUDA backends: docs/transform.md.
 *
 * Arrays: any real dtype (bool, 8..64-bit integers, float32, float64) in and
 * out, any strides, on one device; out never shares memory with in (or with
 * the coordinates). Results follow scipy.ndimage 1.17: orders 0 and 1 bit for
 * bit, orders 2-5 to float rounding (the prefilter runs in float64 on both
 * backends). Integer outputs are rounded half away from zero and clamped to
 * the type's range, as scipy stores interpolated values; bool outputs hold
 * the truth of scipy's truncated byte.
 *
 * order: the spline order, 0..5. prefilter (orders >= 2): run the B-spline
 * prefilter over the input first, in float64 (after padding it by 12 samples
 * with the edge (nearest) or cval (grid-constant), as scipy does); without
 * it the input is taken to hold spline coefficients already. cval: the value
 * outside the input for the constant modes. Returns FV_OK or a negative
 * fv_status with the details in fv_error_message(). */
#ifndef FOVEA_INTERPOLATION_H
#define FOVEA_INTERPOLATION_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "context.h"
#include "array.h"

FV_EXTERN_C_BEGIN

/* Boundary modes of the interpolation functions: scipy's codes, and its
 * behaviour (reflect and grid-mirror are one mode). */
typedef enum fv_interp_mode {
    FV_INTERP_NEAREST = 0,       /* a a | a b c d | d d */
    FV_INTERP_WRAP = 1,          /* scipy's 'wrap': period n - 1 (first and last sample coincide) */
    FV_INTERP_REFLECT = 2,       /* b a | a b c d | d c ('reflect', 'grid-mirror') */
    FV_INTERP_MIRROR = 3,        /* c b | a b c d | c b */
    FV_INTERP_CONSTANT = 4,      /* cval outside [0, n - 1]; the spline mirrors inside */
    FV_INTERP_GRID_WRAP = 5,     /* a b c d | a b c d | a b: period n */
    FV_INTERP_GRID_CONSTANT = 6, /* cval for every sample outside the input */
    FV_INTERP_MODE_COUNT
} fv_interp_mode;

/* Parse a scipy mode name ("nearest", "wrap", "reflect", "grid-mirror", "mirror",
 * "constant", "grid-wrap", "grid-constant"). FV_EINVAL when unknown. */
FV_API fv_status fv_interp_mode_from_name(const char *name, fv_interp_mode *out);

/* scipy.ndimage.spline_filter1d: the B-spline coefficients of in along axis
 * into out (same shape; out may be in itself). order 0..5 (0 and 1: a copy,
 * NumPy's cast). The filter runs in double; the result is stored by the C
 * cast (integer outputs truncate, as scipy's). */
FV_API fv_status fv_spline_filter1d(fv_context *ctx, const fv_array *in, fv_array *out, int order, int axis,
                                    fv_interp_mode mode);

/* scipy.ndimage.spline_filter: fv_spline_filter1d along every axis in turn,
 * each pass reading what the one before stored into out. order 2..5. */
FV_API fv_status fv_spline_filter(fv_context *ctx, const fv_array *in, fv_array *out, int order, fv_interp_mode mode);

/* scipy.ndimage.map_coordinates: out[o] = the spline of in at
 * coordinates[:, o]. coordinates: any real dtype, shape (in's ndim, *out's
 * shape), on in's device. */
FV_API fv_status fv_map_coordinates(fv_context *ctx, const fv_array *in, const fv_array *coordinates, fv_array *out,
                                    int order, fv_interp_mode mode, double cval, int prefilter);

/* scipy.ndimage.affine_transform with a full matrix: out[o] = the spline of in
 * at matrix @ o + offset. matrix: in's ndim rows by out's ndim columns, row
 * major (host memory); offset: in's ndim values (NULL: zeros). */
FV_API fv_status fv_affine_transform(fv_context *ctx, const fv_array *in, const double *matrix, const double *offset,
                                     fv_array *out, int order, fv_interp_mode mode, double cval, int prefilter);

/* fv_affine_transform on every plane of in: the first batch axes of in and out
 * (of equal extents) index the planes, and matrix (in's ndim - batch rows by
 * out's ndim - batch columns) and offset map each plane of out from the same
 * plane of in. Equal to looping fv_affine_transform over the planes (scipy's
 * rotate of an n-d array does), with one prefilter of the whole array along the
 * planes' axes. batch 0 is fv_affine_transform. */
FV_API fv_status fv_affine_transform_planes(fv_context *ctx, const fv_array *in, int batch, const double *matrix,
                                            const double *offset, fv_array *out, int order, fv_interp_mode mode,
                                            double cval, int prefilter);

/* scipy's zoom_shift (zoom, shift, and affine_transform with a diagonal): out
 * and in of one ndim; along axis d the input coordinate of output index o is
 * x = o (+ shift[d]), then x * zoom[d], or with grid_mode (x + 0.5) * zoom[d]
 * - 0.5. zoom / shift: in's ndim host values, or NULL for none. */
FV_API fv_status fv_zoom_shift(fv_context *ctx, const fv_array *in, const double *zoom, const double *shift,
                               fv_array *out, int order, fv_interp_mode mode, double cval, int prefilter,
                               int grid_mode);

/* scikit-image's resize_local_mean: area-weighted ("pixel mixing") resampling
 * of in to out's shape (same ndim). Each output element is the mean of the
 * input pixels its cell covers, weighted by the overlap; grid_mode: pixels are
 * cells of the grid (OpenCV's INTER_AREA), else points at the cell centres
 * with half-width end pixels. in: any real dtype (bool included), any strides;
 * out: float32 or float64, not overlapping in. Axes of equal size are copied. */
FV_API fv_status fv_resize_local_mean(fv_context *ctx, const fv_array *in, fv_array *out, int grid_mode);

/* scikit-image's boundary modes for fv_warp_homography (numpy.pad's names). */
typedef enum fv_warp_mode {
    FV_WARP_CONSTANT = 0,
    FV_WARP_EDGE,
    FV_WARP_SYMMETRIC,
    FV_WARP_REFLECT,
    FV_WARP_WRAP,
    FV_WARP_MODE_COUNT
} fv_warp_mode;

/* scikit-image's _warp_fast (skimage.transform.warp with a 3x3 matrix, orders
 * 1 and 3): out[r, c] = in at (row, col) = (y / z, x / z) for (x, y, z) =
 * matrix @ (c, r, 1), interpolated bilinearly (order 1) or by Catmull-Rom
 * cubic convolution (order 3), each tap read through mode (constant: cval
 * outside). in, out: float32 or float64 of one dtype, the arithmetic in that
 * type as fovea.skimage.transform computes it; 2-d, or 3-d with the channels
 * on the last axis (each channel alike). matrix: 9 host values, row major. */
FV_API fv_status fv_warp_homography(fv_context *ctx, const fv_array *in, const double *matrix, fv_array *out, int order,
                                    fv_warp_mode mode, double cval);

FV_EXTERN_C_END

#endif
