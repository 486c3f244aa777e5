/* Declarations shared by the fovea.Array sources: array-args.c (dtype
 * conversions, argument parsers), array-import.c (import protocols),
 * array-dlpack.c (DLPack export) and array.c (the Array type). */
#ifndef FVPY_ARRAY_INTERNAL_H
#define FVPY_ARRAY_INTERNAL_H

#include "array.h" /* Python.h first */
#include <dlpack/dlpack.h>

/* DLPack 0.8 added kDLBool; NumPy, CuPy and PyTorch export bool with it. */
#define FVPY_kDLBool 6

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FVPY_NATIVE_ORDER '>'
#define FVPY_SWAPPED_ORDER '<'
#else
#define FVPY_NATIVE_ORDER '<'
#define FVPY_SWAPPED_ORDER '>'
#endif

extern const char *const fvpy_supported;

/* array-args.c */
const char *fvpy_typestr(fv_dtype dt, char *buf, size_t cap);
int fvpy_unsupported_dtype(const char *what, const char *name);
int fvpy_dtype_from_kind(const char *what, char kind, Py_ssize_t size, fv_dtype *out);
int fvpy_dtype_from_typestr(const char *what, const char *ts, fv_dtype *out);
int fvpy_dtype_from_format(const char *what, const char *fmt, Py_ssize_t itemsize, fv_dtype *out);
int fvpy_check_ndim(const char *what, Py_ssize_t ndim);
int fvpy_check_data(const char *what, const void *data, int ndim, const int64_t *shape);

/* array-dlpack.c: the Array's __dlpack__ and __dlpack_device__ */
PyObject *fvpy_array_dlpack(fvpy_Array *self, PyObject *args, PyObject *kw);
PyObject *fvpy_array_dlpack_device(fvpy_Array *self, PyObject *unused);

#endif
