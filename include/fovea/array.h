/* fv_array: the one n-dimensional array type that carries pixels everywhere.
 *
 * An array is a view (dtype, shape, byte strides, data pointer) onto a buffer
 * that lives in host or CUDA device memory. Both are reference counted
 * (atomically): constructors return a reference the caller owns, arguments are
 * borrowed, fv_array_unref(NULL) is a no-op. Strides are in bytes, may be
 * negative or zero, and must be multiples of the element size; the data pointer
 * must be aligned to the element size (unaligned views, e.g. packed record fields,
 * are refused with FV_EINVAL: copy them first). fv_array_wrap does not probe the
 * device: an array wrapped on a CUDA device that is not usable fails at its first
 * operation with FV_EDEVICE. */
#ifndef FOVEA_ARRAY_H
#define FOVEA_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "status.h"
#include "dtype.h"
#include "context.h"

FV_EXTERN_C_BEGIN

#define FV_MAX_NDIM 8

typedef struct fv_array fv_array;

/* Called once when the last reference to a wrapped buffer goes away. */
typedef void (*fv_deleter)(void *data, void *opaque);

/* Allocate a C-contiguous array on dev (host memory: 64-byte aligned; CUDA: the
 * context's stream-ordered pool). Contents are uninitialised. ndim 0..8; every
 * extent >= 0. */
FV_API fv_status fv_array_new(fv_context *ctx, fv_dtype dtype, int ndim, const int64_t *shape, fv_device dev,
                              fv_array **out);

/* Like fv_array_new, filled with zero bytes. */
FV_API fv_status fv_array_zeros(fv_context *ctx, fv_dtype dtype, int ndim, const int64_t *shape, fv_device dev,
                                fv_array **out);

/* Wrap existing memory without copying. strides NULL means C-contiguous.
 * deleter (may be NULL) runs with (data, opaque) when the last reference goes;
 * it also runs when wrapping fails, so ownership always passes to the call. */
FV_API fv_status fv_array_wrap(fv_dtype dtype, int ndim, const int64_t *shape, const int64_t *strides, void *data,
                               fv_device dev, fv_deleter deleter, void *opaque, fv_array **out);

/* A view of base's buffer: new shape/strides starting byte_offset bytes after
 * base's data pointer. Every element must lie inside base's own extent. */
FV_API fv_status fv_array_view(const fv_array *base, int ndim, const int64_t *shape, const int64_t *strides,
                               int64_t byte_offset, fv_array **out);

FV_API fv_array *fv_array_ref(fv_array *a);
FV_API void fv_array_unref(fv_array *a);

FV_API fv_dtype fv_array_dtype(const fv_array *a);
FV_API int fv_array_ndim(const fv_array *a);
FV_API const int64_t *fv_array_shape(const fv_array *a);
FV_API const int64_t *fv_array_strides(const fv_array *a); /* bytes */
FV_API void *fv_array_data(const fv_array *a);
FV_API fv_device fv_array_device(const fv_array *a);
FV_API int64_t fv_array_size(const fv_array *a);      /* elements */
FV_API int64_t fv_array_nbytes(const fv_array *a);    /* size * itemsize */
FV_API int fv_array_is_contiguous(const fv_array *a); /* C order */
FV_API int fv_array_refcount(const fv_array *a);      /* for tests */

/* Read-only arrays (e.g. a read-only NumPy buffer) are rejected as outputs. */
FV_API void fv_array_set_readonly(fv_array *a, int readonly);
FV_API int fv_array_readonly(const fv_array *a);

/* The broadcast shape of two shapes (NumPy rules). out has room for 8. */
FV_API fv_status fv_broadcast_shapes(int ndim_a, const int64_t *shape_a, int ndim_b, const int64_t *shape_b,
                                     int *ndim_out, int64_t *shape_out);

FV_EXTERN_C_END

#endif
