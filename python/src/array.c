/* fovea.Array: the type (attributes, __array_interface__,
 * __cuda_array_interface__, repr) and the module functions asarray and empty.
 * Import is in array-import.c, DLPack export in array-dlpack.c, dtype helpers and
 * argument parsers in array-args.c. */
#include "array-internal.h" /* Python.h first */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "errors.h"

/* ---- the Array type ---------------------------------------------------------------------- */

PyObject *
fvpy_array_new(fv_array *arr, void *stream, int has_stream)
{
    fvpy_Array *self = PyObject_New(fvpy_Array, &fvpy_ArrayType);
    if (!self) {
        fv_array_unref(arr);
        return NULL;
    }
    self->arr = arr;
    self->stream = stream;
    self->has_stream = has_stream;
    return (PyObject *)self;
}

static PyObject *
fvpy__array_tp_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "obj", NULL };
    PyObject *obj;
    fvpy_in in;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Array", kwlist, &obj))
        return NULL;
    if (Py_IS_TYPE(obj, &fvpy_ArrayType) && type == &fvpy_ArrayType) {
        Py_INCREF(obj);
        return obj;
    }
    if (fvpy_import(obj, NULL, &in) < 0)
        return NULL;
    fvpy_Array *self = (fvpy_Array *)type->tp_alloc(type, 0);
    if (!self) {
        fvpy_in_clear(&in);
        return NULL;
    }
    self->arr = in.arr;
    self->stream = in.stream;
    self->has_stream = in.has_stream;
    return (PyObject *)self;
}

static void
fvpy__array_dealloc(fvpy_Array *self)
{
    fv_array_unref(self->arr); /* may run a deleter that takes the GIL (re-entrant) */
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
fvpy__int64_tuple_new(const int64_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    if (!t)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *
fvpy__get_shape(fvpy_Array *self, void *c)
{
    return fvpy__int64_tuple_new(fv_array_shape(self->arr), fv_array_ndim(self->arr));
}

static PyObject *
fvpy__get_strides(fvpy_Array *self, void *c)
{
    return fvpy__int64_tuple_new(fv_array_strides(self->arr), fv_array_ndim(self->arr));
}

static PyObject *
fvpy__get_dtype(fvpy_Array *self, void *c)
{
    const char *name = fv_dtype_name(fv_array_dtype(self->arr));
    PyObject *np = fvpy_numpy();
    if (np)
        return PyObject_CallMethod(np, "dtype", "s", name);
    return PyUnicode_FromString(name);
}

static PyObject *
fvpy__get_ndim(fvpy_Array *self, void *c)
{
    return PyLong_FromLong(fv_array_ndim(self->arr));
}

static PyObject *
fvpy__get_size(fvpy_Array *self, void *c)
{
    return PyLong_FromLongLong(fv_array_size(self->arr));
}

static PyObject *
fvpy__get_nbytes(fvpy_Array *self, void *c)
{
    return PyLong_FromLongLong(fv_array_nbytes(self->arr));
}

static PyObject *
fvpy__get_device(fvpy_Array *self, void *c)
{
    char buf[32];
    return PyUnicode_FromString(fvpy_device_str(fv_array_device(self->arr), buf, sizeof buf));
}

static PyObject *
fvpy__get_readonly(fvpy_Array *self, void *c)
{
    return PyBool_FromLong(fv_array_readonly(self->arr));
}

static PyObject *
fvpy__get_contiguous(fvpy_Array *self, void *c)
{
    return PyBool_FromLong(fv_array_is_contiguous(self->arr));
}

/* The common part of both array interfaces. */
static PyObject *
fvpy__interface(fvpy_Array *self)
{
    char ts[16];
    fv_array *a = self->arr;
    PyObject *shape = NULL, *strides = NULL, *ret = NULL;
    fvpy_typestr(fv_array_dtype(a), ts, sizeof ts);
    if (!(shape = fvpy__get_shape(self, NULL)))
        goto done;
    if (fv_array_is_contiguous(a)) {
        strides = Py_None;
        Py_INCREF(strides);
    } else if (!(strides = fvpy__get_strides(self, NULL))) {
        goto done;
    }
    ret = Py_BuildValue("{s:i,s:O,s:s,s:[(s,s)],s:(N,O),s:O}", "version", 3, "shape", shape, "typestr", ts, "descr", "",
                        ts, "data", PyLong_FromVoidPtr(fv_array_data(a)), fv_array_readonly(a) ? Py_True : Py_False,
                        "strides", strides);
done:
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return ret;
}

static PyObject *
fvpy__get_array_interface(fvpy_Array *self, void *c)
{
    if (fv_array_device(self->arr).type != FV_DEVICE_CPU) {
        char buf[32];
        PyErr_Format(PyExc_AttributeError,
                     "__array_interface__ is only defined for host arrays; this one "
                     "is on %s (use __cuda_array_interface__ or fovea.to_device(x, 'cpu'))",
                     fvpy_device_str(fv_array_device(self->arr), buf, sizeof buf));
        return NULL;
    }
    return fvpy__interface(self);
}

static PyObject *
fvpy__get_cuda_array_interface(fvpy_Array *self, void *c)
{
    if (fv_array_device(self->arr).type != FV_DEVICE_CUDA) {
        PyErr_SetString(PyExc_AttributeError,
                        "__cuda_array_interface__ is only defined for CUDA arrays; "
                        "this one is in host memory (use __array_interface__)");
        return NULL;
    }
    PyObject *d = fvpy__interface(self);
    if (!d)
        return NULL;
    PyObject *s;
    if (!self->has_stream) {
        s = Py_None;
        Py_INCREF(s);
    } else {
        /* the protocol's 1 is the legacy default stream (NULL); 0 is disallowed */
        s = PyLong_FromUnsignedLongLong(self->stream ? (unsigned long long)(uintptr_t)self->stream : 1ULL);
    }
    if (!s || PyDict_SetItemString(d, "stream", s) < 0) {
        Py_XDECREF(s);
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(s);
    return d;
}

static PyObject *
fvpy__array_repr(fvpy_Array *self)
{
    char dev[32];
    PyObject *shape = fvpy__get_shape(self, NULL);
    if (!shape)
        return NULL;
    PyObject *r = PyUnicode_FromFormat(
        "fovea.Array(shape=%R, dtype=%s, device='%s'%s)", shape, fv_dtype_name(fv_array_dtype(self->arr)),
        fvpy_device_str(fv_array_device(self->arr), dev, sizeof dev), fv_array_readonly(self->arr) ? ", readonly" : "");
    Py_DECREF(shape);
    return r;
}

static PyGetSetDef fvpy__array_getset[] = {
    { "shape", (getter)fvpy__get_shape, NULL, "tuple of extents", NULL },
    { "strides", (getter)fvpy__get_strides, NULL, "tuple of strides in bytes", NULL },
    { "dtype", (getter)fvpy__get_dtype, NULL, "numpy.dtype (or its name when NumPy is absent)", NULL },
    { "ndim", (getter)fvpy__get_ndim, NULL, "number of dimensions", NULL },
    { "size", (getter)fvpy__get_size, NULL, "number of elements", NULL },
    { "nbytes", (getter)fvpy__get_nbytes, NULL, "size * itemsize", NULL },
    { "device", (getter)fvpy__get_device, NULL, "'cpu' or 'cuda:N'", NULL },
    { "readonly", (getter)fvpy__get_readonly, NULL, "True for read-only data", NULL },
    { "is_contiguous", (getter)fvpy__get_contiguous, NULL, "True when C-contiguous", NULL },
    { "__array_interface__", (getter)fvpy__get_array_interface, NULL, "NumPy array interface v3 (host)", NULL },
    { "__cuda_array_interface__", (getter)fvpy__get_cuda_array_interface, NULL, "CUDA array interface v3 (device)",
      NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef fvpy__array_methods[] = {
    { "__dlpack__", (PyCFunction)(void (*)(void))fvpy_array_dlpack, METH_VARARGS | METH_KEYWORDS,
      "__dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None)\n--\n\n"
      "Export as a (legacy) DLPack capsule that holds a reference to the data." },
    { "__dlpack_device__", (PyCFunction)fvpy_array_dlpack_device, METH_NOARGS,
      "(device_type, device_id) as DLPack numbers." },
    { NULL, NULL, 0, NULL },
};

PyTypeObject fvpy_ArrayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fovea.Array",
    .tp_basicsize = sizeof(fvpy_Array),
    .tp_dealloc = (destructor)fvpy__array_dealloc,
    .tp_repr = (reprfunc)fvpy__array_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Array(obj)\n--\n\n"
              "An n-d array in host or CUDA memory, viewed without copying from any object that offers\n"
              "the buffer protocol, __cuda_array_interface__, __dlpack__ or __array_interface__.\n"
              "Exports __array_interface__ (host), __cuda_array_interface__ (CUDA) and __dlpack__.",
    .tp_methods = fvpy__array_methods,
    .tp_getset = fvpy__array_getset,
    .tp_new = fvpy__array_tp_new,
};

int
fvpy_array_init(PyObject *m)
{
    if (PyType_Ready(&fvpy_ArrayType) < 0)
        return -1;
    return fvpy_add_object(m, "Array", (PyObject *)&fvpy_ArrayType);
}

/* ---- module functions: asarray, empty ------------------------------------------------------ */

static PyObject *
fvpy_asarray(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "obj", "stream", NULL };
    PyObject *obj, *stream_o = Py_None;
    void *stream;
    fvpy_in in;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:asarray", kwlist, &obj, &stream_o))
        return NULL;
    if (Py_IS_TYPE(obj, &fvpy_ArrayType)) {
        Py_INCREF(obj);
        return obj;
    }
    if (fvpy_parse_stream(stream_o, &stream) < 0 || fvpy_import(obj, stream, &in) < 0)
        return NULL;
    return fvpy_array_new(in.arr, in.stream, in.has_stream);
}
FVPY_METHOD(asarray, fvpy_asarray, FVPY_KWARGS,
            "asarray(obj, stream=None)\n--\n\nView obj (NumPy, CuPy, PyTorch, any DLPack producer or capsule) as a "
            "fovea.Array without copying.");

static PyObject *
fvpy_empty(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "shape", "dtype", "device", "stream", NULL };
    PyObject *shape_o, *dtype_o = NULL, *dev_o = NULL, *stream_o = Py_None, *seq = NULL, *ret = NULL;
    int64_t shape[FV_MAX_NDIM];
    Py_ssize_t ndim;
    fv_dtype dt = FV_FLOAT64;
    fv_device dev = { FV_DEVICE_CPU, 0 };
    fv_context *ctx = NULL;
    fv_array *out = NULL;
    void *stream;
    fv_status st;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO:empty", kwlist, &shape_o, &dtype_o, &dev_o, &stream_o))
        return NULL;
    if ((dtype_o && dtype_o != Py_None && fvpy_parse_dtype(dtype_o, &dt) < 0) ||
        (dev_o && dev_o != Py_None && fvpy_parse_device(dev_o, &dev) < 0) || fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (dev.type == FV_DEVICE_CUDA && dev.id < 0)
        dev.id = 0;
    if (PyLong_Check(shape_o)) {
        ndim = 1;
        shape[0] = PyLong_AsLongLong(shape_o);
        if (shape[0] == -1 && PyErr_Occurred())
            return NULL;
    } else {
        if (!(seq = PySequence_Fast(shape_o, "empty: shape must be an int or a sequence of ints")))
            return NULL;
        ndim = PySequence_Fast_GET_SIZE(seq);
        if (fvpy_check_ndim("empty", ndim) < 0)
            goto done;
        for (Py_ssize_t i = 0; i < ndim; i++) {
            shape[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
            if (shape[i] == -1 && PyErr_Occurred())
                goto done;
        }
    }
    if (fvpy_check_device("empty", dev) < 0 || fvpy_make_context(dev, stream, &ctx) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
        st = fv_array_new(ctx, dt, (int)ndim, shape, dev, &out);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    ret = fvpy_array_new(out, stream, dev.type == FV_DEVICE_CUDA);
    out = NULL;
done:
    fv_array_unref(out);
    fv_context_free(ctx);
    Py_XDECREF(seq);
    return ret;
}
FVPY_METHOD(empty, fvpy_empty, FVPY_KWARGS,
            "empty(shape, dtype='float64', device='cpu', stream=None)\n--\n\nA new uninitialised C-contiguous "
            "array.");
