/* fovea.Array and the zero-copy import/export of array-likes (buffer protocol,
 * __array_interface__, __cuda_array_interface__, DLPack), plus the argument
 * parsers (dtype, device, stream) that the bindings share. */
#ifndef FVPY_ARRAY_H
#define FVPY_ARRAY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "fovea/fovea.h"

/* A Python object over one fv_array reference. */
typedef struct fvpy_Array {
    PyObject_HEAD fv_array *arr;
    void *stream;   /* CUDA stream the data was produced on (NULL: legacy default) */
    int has_stream; /* 0: no pending work is known (e.g. CAI without a stream) */
} fvpy_Array;

extern PyTypeObject fvpy_ArrayType;

#define fvpy_Array_Check(o) PyObject_TypeCheck((o), &fvpy_ArrayType)

/* Readies the type and adds it to m as "Array". 0 or -1. */
int fvpy_array_init(PyObject *m);

/* An imported array-like: one fv_array reference and where its data is ready. */
typedef struct fvpy_in {
    fv_array *arr;
    void *stream;
    int has_stream;
} fvpy_in;

/* Imports obj without copying. consumer_stream is the CUDA stream the caller
 * will use (NULL: legacy default); DLPack producers on CUDA are asked to make
 * their data ready on it. 0 on success, -1 with an exception set. */
int fvpy_import(PyObject *obj, void *consumer_stream, fvpy_in *in);
void fvpy_in_clear(fvpy_in *in);

/* A new fovea.Array owning arr (the reference is stolen, also on failure). */
PyObject *fvpy_array_new(fv_array *arr, void *stream, int has_stream);

/* The numpy module (borrowed) or NULL, without an exception, when absent. */
PyObject *fvpy_numpy(void);

/* dtype from "uint8", numpy dtypes, numpy scalar types, bool/int/float. */
int fvpy_parse_dtype(PyObject *o, fv_dtype *out);
/* "cpu", "cuda", "cuda:N" or a (device_type, id) tuple. "cuda" gives id -1
 * (the caller picks). */
int fvpy_parse_device(PyObject *o, fv_device *out);
/* DeviceError unless dev is usable (CUDA built, driver and GPU found, id valid). */
int fvpy_check_device(const char *what, fv_device dev);
/* None or an int cudaStream_t (0 and 1: the legacy default stream, NULL). */
int fvpy_parse_stream(PyObject *o, void **stream);
/* "cpu" or "cuda:N" into buf. */
const char *fvpy_device_str(fv_device dev, char *buf, size_t cap);
int fvpy_same_device(fv_device a, fv_device b);

/* A per-call context for CUDA work on dev and stream; *ctx stays NULL for the
 * CPU. 0 or -1 with an exception set. */
int fvpy_make_context(fv_device dev, void *stream, fv_context **ctx);
/* Make stream wait for in's producer stream when they differ. 0 or -1. */
int fvpy_sync_input(fv_context *ctx, const fvpy_in *in, void *stream);

/* Declares a function of fovea._fovea, right after its definition and at the
 * start of a line: FVPY_METHOD(name, fn, flags, doc); flags: METH_* or
 * FVPY_KWARGS. cmake/gen-registry.cmake collects the declarations into
 * module.c's method table. */
#define FVPY_METHOD(NAME, FN, FLAGS, DOC)     \
    extern const PyMethodDef fvpy_def_##NAME; \
    const PyMethodDef fvpy_def_##NAME = { #NAME, (PyCFunction)(void (*)(void))(FN), (FLAGS), DOC }
#define FVPY_KWARGS (METH_VARARGS | METH_KEYWORDS)

/* Defines FN, a METH_NOARGS binding that returns WRAP(CALL), CALL (of type T) run
 * without the GIL; its FVPY_METHOD line follows. */
#define FVPY_NOARGS_CALL(FN, T, CALL, WRAP)               \
    static PyObject *FN(PyObject *self, PyObject *unused) \
    {                                                     \
        T v;                                              \
        (void)self;                                       \
        (void)unused;                                     \
        Py_BEGIN_ALLOW_THREADS                            \
            v = (CALL);                                   \
        Py_END_ALLOW_THREADS                              \
        return WRAP(v);                                   \
    }

/* ---- one binding call (call.c) ----------------------------------------------------- */

/* The arrays of one call: the input, the output, and up to two more arrays on
 * the same device (mask, distances, indices, coordinates; any may be absent),
 * the caller's stream, the context, and up to two host buffers the binding keeps
 * open until the close. */
typedef struct fvpy_call {
    const char *name;
    fvpy_in in, out, aux1, aux2;
    fv_context *ctx;
    void *stream;
    Py_buffer bufs[2];
    int nbufs;
} fvpy_call;

/* Imports the input (required) and the optional arrays (the output writable;
 * aux1 writable when bit 0 of writable is set, aux2 when bit 1 is; every one on
 * the input's device), then makes the CUDA context when the data lives on a GPU.
 * 0 or -1 with an exception set; either way fvpy_call_close (or
 * fvpy_call_result) releases what was taken. */
int fvpy_call_open(fvpy_call *c, const char *name, PyObject *stream_o, PyObject *in_o, PyObject *out_o,
                   PyObject *aux1_o, const char *aux1_what, int writable, PyObject *aux2_o, const char *aux2_what);
/* Releases everything; returns None when st is FV_OK (and no exception is
 * pending), else raises for st and returns NULL. */
PyObject *fvpy_call_close(fvpy_call *c, fv_status st);
/* A binding's result array out (its reference taken; NULL: none made) as a
 * fovea.Array on stream when st is FV_OK, else NULL with st raised. */
PyObject *fvpy_result(fv_status st, fv_array *out, void *stream);
/* The same for a call that made its result array out (NULL: not made; the
 * reference is the call's): out as a fovea.Array on the call's stream when st is
 * FV_OK, else NULL with the error raised. */
PyObject *fvpy_call_result(fvpy_call *c, fv_status st, fv_array *out);
/* A new array of dtype and the input's shape (ndim of it, out_shape when given:
 * the first ndim extents) on the input's device, for the call's result. */
fv_status fvpy_call_new(fvpy_call *c, fv_dtype dtype, int ndim, const int64_t *out_shape, fv_array **out);

/* None when st is FV_OK (and no exception is pending), else NULL with st raised. */
PyObject *fvpy_status(fv_status st);
/* The arrays of the sequence o, lo to hi of them, imported on stream into
 * dst[0..*n) ("name: needs lo to hi what, got N" otherwise). 0 or -1 with an
 * exception set; fvpy_clear_list releases what was taken either way. */
int fvpy_import_list(const char *name, const char *what, PyObject *o, int lo, int hi, void *stream, fvpy_in *dst,
                     int *n);
/* Makes *ctx for dst[0]'s device and orders dst[0..n) on stream. 0 or -1. */
int fvpy_sync_list(fvpy_in *dst, int n, void *stream, fv_context **ctx);
void fvpy_clear_list(fvpy_in *dst, int n);

/* n numbers of the sequence o into out: int64_t (kind 'L') or double ('d'); None
 * leaves out alone. name goes into the error. 0 or -1 with an exception set. */
int fvpy_numbers(const char *name, PyObject *o, int n, char kind, void *out);

#endif
