/* fovea.Array, zero-copy import (buffer protocol, __array_interface__,
 * __cuda_array_interface__, DLPack) and export (__array_interface__,
 * __cuda_array_interface__, __dlpack__), and the shared argument parsers. */
#include "array.h"   /* Python.h first */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dlpack/dlpack.h>
#include "errors.h"

/* DLPack 0.8 added kDLBool; NumPy, CuPy and PyTorch export bool with it. */
#define FVPY_kDLBool 6

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#  define FVPY_NATIVE_ORDER '>'
#  define FVPY_SWAPPED_ORDER '<'
#else
#  define FVPY_NATIVE_ORDER '<'
#  define FVPY_SWAPPED_ORDER '>'
#endif

static const char *const fvpy__supported =
    "fovea supports bool, uint8, uint16, uint32, uint64, int8, int16, int32, int64, float32, float64";

/* ---- small helpers ---------------------------------------------------------- */

static PyObject *fvpy__np;
static int fvpy__np_tried;

PyObject *
fvpy_numpy(void)
{
    if (!fvpy__np_tried) {
        fvpy__np_tried = 1;
        fvpy__np = PyImport_ImportModule("numpy");
        if (!fvpy__np)
            PyErr_Clear();
    }
    return fvpy__np;
}

const char *
fvpy_device_str(fv_device dev, char *buf, size_t cap)
{
    if (dev.type == FV_DEVICE_CUDA)
        snprintf(buf, cap, "cuda:%d", dev.id);
    else
        snprintf(buf, cap, "cpu");
    return buf;
}

int
fvpy_same_device(fv_device a, fv_device b)
{
    return a.type == b.type && (a.type == FV_DEVICE_CPU || a.id == b.id);
}

/* The typestr of dt in native byte order ("<f4", "|u1"). */
static const char *
fvpy__typestr(fv_dtype dt, char *buf, size_t cap)
{
    size_t sz = fv_dtype_size(dt);
    char kind = dt == FV_BOOL ? 'b' : fv_dtype_is_float(dt) ? 'f' : fv_dtype_is_signed(dt) ? 'i' : 'u';
    snprintf(buf, cap, "%c%c%d", sz == 1 ? '|' : FVPY_NATIVE_ORDER, kind, (int)sz);
    return buf;
}

/* A readable name for a kind/size pair that fovea does not support. */
static void
fvpy__kind_name(char kind, Py_ssize_t size, char *buf, size_t cap)
{
    int bits = (int)(size * 8);
    switch (kind) {
    case 'b': snprintf(buf, cap, "bool (%d bytes)", (int)size); break;
    case 'i': snprintf(buf, cap, "int%d", bits); break;
    case 'u': snprintf(buf, cap, "uint%d", bits); break;
    case 'f':
        if (size == 2)
            snprintf(buf, cap, "float16");
        else if (size > 8)
            snprintf(buf, cap, "longdouble (float%d)", bits);
        else
            snprintf(buf, cap, "float%d", bits);
        break;
    case 'c': snprintf(buf, cap, "complex%d", bits); break;
    case 'O': snprintf(buf, cap, "object"); break;
    case 'S': snprintf(buf, cap, "bytes (S%d)", (int)size); break;
    case 'U': snprintf(buf, cap, "str (U%d)", (int)(size / 4)); break;
    case 'V': snprintf(buf, cap, "structured/void (V%d)", (int)size); break;
    case 'M': snprintf(buf, cap, "datetime64"); break;
    case 'm': snprintf(buf, cap, "timedelta64"); break;
    default: snprintf(buf, cap, "'%c' of %d bytes", kind, (int)size); break;
    }
}

static int
fvpy__unsupported_dtype(const char *what, const char *name)
{
    PyErr_Format(PyExc_TypeError, "%s: unsupported dtype %s (%s)", what, name, fvpy__supported);
    return -1;
}

/* NumPy kind character and item size -> fv_dtype; TypeError naming the dtype. */
static int
fvpy__dtype_from_kind(const char *what, char kind, Py_ssize_t size, fv_dtype *out)
{
    static const fv_dtype ints[] = {FV_INT8, FV_INT16, FV_INT32, FV_INT64};
    static const fv_dtype uints[] = {FV_UINT8, FV_UINT16, FV_UINT32, FV_UINT64};
    int lg = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
    if (kind == 'b' && size == 1) {
        *out = FV_BOOL;
        return 0;
    }
    if (kind == 'i' && lg >= 0) {
        *out = ints[lg];
        return 0;
    }
    if (kind == 'u' && lg >= 0) {
        *out = uints[lg];
        return 0;
    }
    if (kind == 'f' && (size == 4 || size == 8)) {
        *out = size == 4 ? FV_FLOAT32 : FV_FLOAT64;
        return 0;
    }
    char name[64];
    fvpy__kind_name(kind, size, name, sizeof name);
    return fvpy__unsupported_dtype(what, name);
}

/* "<f4", "|b1", ">i2" ... -> fv_dtype. */
static int
fvpy__dtype_from_typestr(const char *what, const char *ts, fv_dtype *out)
{
    if (strlen(ts) < 2)
        goto bad;
    char order = ts[0], kind = ts[1];
    char *end = NULL;
    long size = strtol(ts + 2, &end, 10);
    if (order != '<' && order != '>' && order != '|' && order != '=')
        goto bad;
    if (end == ts + 2 && !strchr("O", kind))
        goto bad;
    if (kind == 'O')
        size = (long)sizeof(void *);
    if (kind == 'U')
        size *= 4;   /* typestr counts UCS4 characters */
    if (order == FVPY_SWAPPED_ORDER && size > 1 && strchr("biuf", kind)) {
        PyErr_Format(PyExc_TypeError, "%s: byte-swapped data (typestr '%s') is not supported; "
                     "convert it to native byte order first (e.g. x.astype(x.dtype.newbyteorder('=')))",
                     what, ts);
        return -1;
    }
    if (kind == 'V' || (end && *end && *end != '[')) {
        char name[96];
        snprintf(name, sizeof name, "'%s'", ts);
        return fvpy__unsupported_dtype(what, kind == 'V' ? "structured/void" : name);
    }
    return fvpy__dtype_from_kind(what, kind, size, out);
bad:
    PyErr_Format(PyExc_ValueError, "%s: malformed typestr '%s'", what, ts);
    return -1;
}

/* A PEP 3118 format with the buffer's itemsize -> fv_dtype. */
static int
fvpy__dtype_from_format(const char *what, const char *fmt, Py_ssize_t itemsize, fv_dtype *out)
{
    const char *f = fmt ? fmt : "B";
    char kind;
    int swapped = 0;
    if (*f == '@' || *f == '=') {
        f++;
    } else if (*f == '<' || *f == '>' || *f == '!') {
        swapped = *f != FVPY_NATIVE_ORDER;
        f++;
    }
    int counted = 0;
    while (*f >= '0' && *f <= '9') {   /* a repeat count: "5s" (bytes), "3w" (str), "2i" (subarray) */
        f++;
        counted = 1;
    }
    switch (*f) {
    case '?': kind = 'b'; break;
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': kind = 'i'; break;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': kind = 'u'; break;
    case 'e': case 'f': case 'd': case 'g': kind = 'f'; break;
    case 'Z': kind = 'c'; break;
    case 'O': kind = 'O'; break;
    case 'w': kind = 'U'; break;
    case 'c': case 's': case 'p': kind = 'S'; break;
    case 'P': kind = 'u'; break;
    default: kind = 'V'; break;   /* 'T{...}', repeat counts, padding, ... */
    }
    /* one code only: anything after it (other than Z's letter) is a record */
    const char *rest = f + (*f ? 1 : 0) + (kind == 'c' && f[1] ? 1 : 0);
    if (kind != 'V' && (*rest || (counted && kind != 'S' && kind != 'U')))
        kind = 'V';
    if (kind == 'V' || kind == 'S' || kind == 'U' || kind == 'O' || kind == 'c') {
        char name[128];
        if (kind == 'V')
            snprintf(name, sizeof name, "structured/void (buffer format '%.60s')", fmt);
        else
            fvpy__kind_name(kind, itemsize, name, sizeof name);
        return fvpy__unsupported_dtype(what, name);
    }
    if (swapped && itemsize > 1) {
        PyErr_Format(PyExc_TypeError, "%s: byte-swapped data (buffer format '%s') is not supported; "
                     "convert it to native byte order first", what, fmt);
        return -1;
    }
    return fvpy__dtype_from_kind(what, kind, itemsize, out);
}

static int
fvpy__check_ndim(const char *what, Py_ssize_t ndim)
{
    if (ndim < 0 || ndim > FV_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "%s: %zd dimensions exceed fovea's maximum of %d", what, ndim,
                     FV_MAX_NDIM);
        return -1;
    }
    return 0;
}

static int
fvpy__check_data(const char *what, const void *data, int ndim, const int64_t *shape)
{
    int empty = 0;
    for (int i = 0; i < ndim; i++)
        empty |= shape[i] == 0;
    if (!data && !empty) {
        PyErr_Format(PyExc_ValueError, "%s: the data pointer is NULL but the array is not empty "
                     "(a freed or invalid buffer?)", what);
        return -1;
    }
    return 0;
}

/* ---- deleters (may run on any thread, with or without the GIL) ---------------- */

static void
fvpy__buffer_deleter(void *data, void *opaque)
{
    Py_buffer *view = opaque;
    (void)data;
    if (!Py_IsInitialized())
        return;   /* interpreter gone: leak rather than crash */
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release(view);
    PyGILState_Release(g);
    PyMem_RawFree(view);
}

static void
fvpy__object_deleter(void *data, void *opaque)
{
    (void)data;
    if (!Py_IsInitialized())
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)opaque);
    PyGILState_Release(g);
}

static void
fvpy__dlpack_deleter(void *data, void *opaque)
{
    DLManagedTensor *m = opaque;
    (void)data;
    if (!m->deleter || !Py_IsInitialized())
        return;   /* interpreter gone: producers' deleters may need it, so leak */
    PyGILState_STATE g = PyGILState_Ensure();   /* producers' deleters may need it */
    m->deleter(m);
    PyGILState_Release(g);
}

/* ---- import: buffer protocol ---------------------------------------------------- */

/* -2: PyObject_GetBuffer itself failed (the caller may try another protocol). */
static int
fvpy__import_buffer(PyObject *obj, fvpy_in *in)
{
    const char *what = "asarray";
    int64_t shape[FV_MAX_NDIM], strides[FV_MAX_NDIM];
    fv_dtype dt;
    fv_status st;
    Py_buffer *view = PyMem_RawCalloc(1, sizeof *view);
    if (!view) {
        PyErr_NoMemory();
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO | PyBUF_FORMAT) < 0) {
        PyMem_RawFree(view);
        return -2;
    }
    if (fvpy__dtype_from_format(what, view->format, view->itemsize, &dt) < 0 ||
        fvpy__check_ndim(what, view->ndim) < 0)
        goto fail;
    if (view->suboffsets) {
        PyErr_Format(PyExc_ValueError, "%s: indirect buffers (suboffsets) are not supported", what);
        goto fail;
    }
    for (int i = 0; i < view->ndim; i++) {
        shape[i] = view->shape ? (int64_t)view->shape[i] : (int64_t)(view->len / view->itemsize);
        strides[i] = view->strides ? (int64_t)view->strides[i] : 0;
    }
    if (fvpy__check_data(what, view->buf, view->ndim, shape) < 0)
        goto fail;
    int readonly = view->readonly;
    st = fv_array_wrap(dt, view->ndim, shape, view->strides ? strides : NULL, view->buf,
                       (fv_device){FV_DEVICE_CPU, 0}, fvpy__buffer_deleter, view, &in->arr);
    if (st) {   /* the deleter has released the view */
        fvpy_raise(st);
        return -1;
    }
    fv_array_set_readonly(in->arr, readonly);
    return 0;
fail:
    PyBuffer_Release(view);
    PyMem_RawFree(view);
    return -1;
}

/* ---- import: __array_interface__ / __cuda_array_interface__ ------------------------ */

static int
fvpy__int64_tuple(const char *what, const char *key, PyObject *t, int64_t *out, Py_ssize_t n)
{
    if (!PyTuple_Check(t) && !PyList_Check(t)) {
        PyErr_Format(PyExc_TypeError, "%s: '%s' must be a tuple of ints", what, key);
        return -1;
    }
    if (PySequence_Size(t) != n) {
        PyErr_Format(PyExc_ValueError, "%s: '%s' has %zd entries for %zd dimensions", what, key,
                     PySequence_Size(t), n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_GetItem(t, i);
        if (!v)
            return -1;
        out[i] = (int64_t)PyLong_AsLongLong(v);
        Py_DECREF(v);
        if (out[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* CUDA ordinal of an object exposing __cuda_array_interface__ (which does not say):
 * obj.device.id (CuPy), obj.device.index (PyTorch), __dlpack_device__(), else 0. */
static int
fvpy__cuda_ordinal(PyObject *obj)
{
    int id = 0;
    PyObject *dev = PyObject_GetAttrString(obj, "device");
    if (dev) {
        PyObject *v = PyObject_GetAttrString(dev, "id");
        if (!v) {
            PyErr_Clear();
            v = PyObject_GetAttrString(dev, "index");
        }
        if (v && PyLong_Check(v))
            id = (int)PyLong_AsLong(v);
        Py_XDECREF(v);
        Py_DECREF(dev);
        if (PyErr_Occurred())
            PyErr_Clear();
        return id < 0 ? 0 : id;
    }
    PyErr_Clear();
    PyObject *t = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (t && PyTuple_Check(t) && PyTuple_GET_SIZE(t) == 2)
        id = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 1));
    Py_XDECREF(t);
    if (PyErr_Occurred())
        PyErr_Clear();
    return id < 0 ? 0 : id;
}

static int
fvpy__import_interface(PyObject *obj, PyObject *iface, int cuda, fvpy_in *in)
{
    const char *what = cuda ? "asarray (__cuda_array_interface__)" : "asarray (__array_interface__)";
    int64_t shape[FV_MAX_NDIM], strides[FV_MAX_NDIM];
    int have_strides = 0, readonly = 0;
    void *data = NULL;
    fv_dtype dt;
    fv_status st;

    if (!PyDict_Check(iface)) {
        PyErr_Format(PyExc_TypeError, "%s: the interface must be a dict, not %.100s", what,
                     Py_TYPE(iface)->tp_name);
        return -1;
    }
    PyObject *shp = PyDict_GetItemString(iface, "shape");
    PyObject *ts = PyDict_GetItemString(iface, "typestr");
    PyObject *dat = PyDict_GetItemString(iface, "data");
    PyObject *str = PyDict_GetItemString(iface, "strides");
    PyObject *mask = PyDict_GetItemString(iface, "mask");
    PyObject *strm = PyDict_GetItemString(iface, "stream");
    if (!shp || !ts || !PyUnicode_Check(ts)) {
        PyErr_Format(PyExc_ValueError, "%s: 'shape' and 'typestr' (a str) are required", what);
        return -1;
    }
    const char *tss = PyUnicode_AsUTF8(ts);
    if (!tss || fvpy__dtype_from_typestr(what, tss, &dt) < 0)
        return -1;
    Py_ssize_t ndim = PySequence_Check(shp) ? PySequence_Size(shp) : -1;
    if (ndim < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: 'shape' must be a tuple of ints", what);
        return -1;
    }
    if (fvpy__check_ndim(what, ndim) < 0 || fvpy__int64_tuple(what, "shape", shp, shape, ndim) < 0)
        return -1;
    if (str && str != Py_None) {
        if (fvpy__int64_tuple(what, "strides", str, strides, ndim) < 0)
            return -1;
        have_strides = 1;
    }
    if (mask && mask != Py_None) {
        PyErr_Format(PyExc_ValueError, "%s: masked arrays are not supported", what);
        return -1;
    }
    if (!dat || !PyTuple_Check(dat) || PyTuple_GET_SIZE(dat) != 2) {
        PyErr_Format(PyExc_ValueError, "%s: 'data' must be a (pointer, read_only) tuple", what);
        return -1;
    }
    data = PyLong_AsVoidPtr(PyTuple_GET_ITEM(dat, 0));
    if (!data && PyErr_Occurred())
        return -1;
    readonly = PyObject_IsTrue(PyTuple_GET_ITEM(dat, 1));
    if (readonly < 0)
        return -1;
    PyObject *off = cuda ? NULL : PyDict_GetItemString(iface, "offset");
    if (off && off != Py_None && data) {
        Py_ssize_t o = PyLong_AsSsize_t(off);
        if (o == -1 && PyErr_Occurred())
            return -1;
        data = (char *)data + o;
    }
    if (fvpy__check_data(what, data, (int)ndim, shape) < 0)
        return -1;
    fv_device dev = {FV_DEVICE_CPU, 0};
    if (cuda) {
        dev.type = FV_DEVICE_CUDA;
        dev.id = fvpy__cuda_ordinal(obj);
        if (strm && strm != Py_None) {
            unsigned long long s = PyLong_AsUnsignedLongLong(strm);
            if (PyErr_Occurred())
                return -1;
            if (s == 0) {
                PyErr_Format(PyExc_ValueError, "%s: stream 0 is disallowed by the protocol "
                             "(use 1 for the legacy default stream)", what);
                return -1;
            }
            in->stream = s == 1 ? NULL : (void *)(uintptr_t)s;
            in->has_stream = 1;
        }
    }
    Py_INCREF(obj);
    st = fv_array_wrap(dt, (int)ndim, shape, have_strides ? strides : NULL, data, dev,
                       fvpy__object_deleter, obj, &in->arr);
    if (st) {
        fvpy_raise(st);
        return -1;
    }
    fv_array_set_readonly(in->arr, readonly);
    return 0;
}

static int
fvpy__import_interface_attr(PyObject *obj, const char *name, int cuda, fvpy_in *in)
{
    PyObject *iface = PyObject_GetAttrString(obj, name);
    if (!iface)
        return -1;
    int r = fvpy__import_interface(obj, iface, cuda, in);
    Py_DECREF(iface);
    return r;
}

/* ---- import: DLPack ----------------------------------------------------------------- */

static int
fvpy__dtype_from_dl(const char *what, DLDataType t, fv_dtype *out)
{
    char kind;
    if (t.lanes != 1) {
        PyErr_Format(PyExc_TypeError, "%s: vector dtypes (DLPack lanes = %d) are not supported", what,
                     (int)t.lanes);
        return -1;
    }
    if (t.bits % 8) {
        PyErr_Format(PyExc_TypeError, "%s: unsupported DLPack dtype (code %d, %d bits) (%s)", what,
                     (int)t.code, (int)t.bits, fvpy__supported);
        return -1;
    }
    switch (t.code) {
    case kDLInt: kind = 'i'; break;
    case kDLUInt: kind = 'u'; break;
    case kDLFloat: kind = 'f'; break;
    case kDLComplex: kind = 'c'; break;
    case FVPY_kDLBool: kind = 'b'; break;
    case kDLBfloat: return fvpy__unsupported_dtype(what, "bfloat16");
    default:
        PyErr_Format(PyExc_TypeError, "%s: unsupported DLPack dtype code %d (%s)", what, (int)t.code,
                     fvpy__supported);
        return -1;
    }
    return fvpy__dtype_from_kind(what, kind, t.bits / 8, out);
}

static int
fvpy__import_capsule(PyObject *cap, fvpy_in *in)
{
    const char *what = "asarray (DLPack)";
    int64_t strides[FV_MAX_NDIM];
    fv_dtype dt;
    fv_device dev = {FV_DEVICE_CPU, 0};
    fv_status st;

    if (PyCapsule_IsValid(cap, "used_dltensor")) {
        PyErr_Format(PyExc_ValueError, "%s: this DLPack capsule was already consumed "
                     "(a capsule can be imported once)", what);
        return -1;
    }
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        PyErr_Format(PyExc_TypeError, "%s: versioned DLPack capsules (DLPack >= 1.0) are not supported; "
                     "pass the array itself or a legacy 'dltensor' capsule", what);
        return -1;
    }
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
    if (!m) {
        const char *name = PyCapsule_GetName(cap);
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: not a DLPack capsule (name '%s')", what, name ? name : "NULL");
        return -1;
    }
    const DLTensor *t = &m->dl_tensor;
    /* validate everything before consuming the capsule */
    if (fvpy__check_ndim(what, t->ndim) < 0 || fvpy__dtype_from_dl(what, t->dtype, &dt) < 0)
        return -1;
    if (t->ndim > 0 && !t->shape) {
        PyErr_Format(PyExc_ValueError, "%s: the tensor has no shape", what);
        return -1;
    }
    switch (t->device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
        break;
    case kDLCUDA:
    case kDLCUDAManaged:
        dev.type = FV_DEVICE_CUDA;
        dev.id = t->device.device_id;
        break;
    default:
        fvpy_device_error("%s: DLPack device type %d is not supported (fovea handles CPU and CUDA memory)",
                          what, (int)t->device.device_type);
        return -1;
    }
    int64_t isz = (int64_t)fv_dtype_size(dt);
    if (t->strides)
        for (int i = 0; i < t->ndim; i++) {
            if (t->strides[i] > INT64_MAX / isz || t->strides[i] < INT64_MIN / isz) {
                PyErr_Format(PyExc_ValueError, "%s: strides[%d] overflow", what, i);
                return -1;
            }
            strides[i] = t->strides[i] * isz;
        }
    void *data = t->data ? (char *)t->data + t->byte_offset : NULL;
    if (fvpy__check_data(what, data, t->ndim, t->shape) < 0)
        return -1;
    if (PyCapsule_SetName(cap, "used_dltensor") < 0)
        return -1;
    st = fv_array_wrap(dt, t->ndim, t->shape, t->strides ? strides : NULL, data, dev, fvpy__dlpack_deleter,
                       m, &in->arr);
    if (st) {   /* the deleter has run m->deleter */
        fvpy_raise(st);
        return -1;
    }
    return 0;
}

/* obj.__dlpack__(stream=...) for a CUDA producer (our stream), obj.__dlpack__() else. */
static int
fvpy__import_dlpack(PyObject *obj, void *consumer_stream, fvpy_in *in)
{
    PyObject *devt = NULL, *cap = NULL;
    int cuda = 0, r = -1;
    if (PyObject_HasAttrString(obj, "__dlpack_device__")) {
        devt = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
        if (!devt)
            goto done;
        if (!PyTuple_Check(devt) || PyTuple_GET_SIZE(devt) != 2) {
            PyErr_SetString(PyExc_TypeError, "asarray: __dlpack_device__() must return a (type, id) tuple");
            goto done;
        }
        long type = PyLong_AsLong(PyTuple_GET_ITEM(devt, 0));
        if (type == -1 && PyErr_Occurred())
            goto done;
        cuda = type == kDLCUDA || type == kDLCUDAManaged;
    }
    if (cuda) {
        /* DLPack: 1 is the legacy default stream; 0 is disallowed */
        PyObject *kw = Py_BuildValue("{s:K}", "stream",
                                     (unsigned long long)(consumer_stream ? (uintptr_t)consumer_stream : 1));
        PyObject *args = PyTuple_New(0);
        PyObject *meth = PyObject_GetAttrString(obj, "__dlpack__");
        if (kw && args && meth)
            cap = PyObject_Call(meth, args, kw);
        Py_XDECREF(kw);
        Py_XDECREF(args);
        Py_XDECREF(meth);
    } else {
        cap = PyObject_CallMethod(obj, "__dlpack__", NULL);
    }
    if (!cap)
        goto done;
    if (!PyCapsule_CheckExact(cap)) {
        PyErr_Format(PyExc_TypeError, "asarray: %.100s.__dlpack__() returned %.100s, not a capsule",
                     Py_TYPE(obj)->tp_name, Py_TYPE(cap)->tp_name);
        goto done;
    }
    if (fvpy__import_capsule(cap, in) < 0)
        goto done;
    if (cuda) {
        in->stream = consumer_stream;
        in->has_stream = 1;
    }
    r = 0;
done:
    Py_XDECREF(cap);
    Py_XDECREF(devt);
    return r;
}

/* ---- import: dispatch ------------------------------------------------------------------ */

/* getattr that treats AttributeError as absent: 1 found, 0 absent, -1 error. */
static int
fvpy__lookup(PyObject *obj, const char *name, PyObject **out)
{
    *out = PyObject_GetAttrString(obj, name);
    if (*out)
        return 1;
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        return 0;
    }
    return -1;
}

int
fvpy_import(PyObject *obj, void *consumer_stream, fvpy_in *in)
{
    PyObject *cai = NULL;
    int r;
    memset(in, 0, sizeof *in);
    if (fvpy_Array_Check(obj)) {
        fvpy_Array *a = (fvpy_Array *)obj;
        in->arr = fv_array_ref(a->arr);
        in->stream = a->stream;
        in->has_stream = a->has_stream;
        return 0;
    }
    if (PyCapsule_CheckExact(obj))
        return fvpy__import_capsule(obj, in);
    /* the buffer protocol first; when the object has one that refuses (e.g. NumPy
     * datetime64, or a GPU array whose __buffer__ raises), keep that error and try
     * the other protocols, raising it only if none applies */
    PyObject *etype = NULL, *evalue = NULL, *etb = NULL;
    if (PyObject_CheckBuffer(obj)) {
        r = fvpy__import_buffer(obj, in);
        if (r != -2)
            return r;
        PyErr_Fetch(&etype, &evalue, &etb);
    }
    if ((r = fvpy__lookup(obj, "__cuda_array_interface__", &cai)) < 0)
        goto fail;
    if (r) {
        /* CAI v2 has no stream handshake: prefer DLPack where the object offers it */
        int v3 = PyDict_Check(cai) && PyDict_GetItemString(cai, "stream") != NULL;
        if (v3 || !PyObject_HasAttrString(obj, "__dlpack__")) {
            r = fvpy__import_interface(obj, cai, 1, in);
            Py_DECREF(cai);
            goto done;
        }
        Py_DECREF(cai);
    }
    if (PyObject_HasAttrString(obj, "__array_interface__") && etype) {
        r = fvpy__import_interface_attr(obj, "__array_interface__", 0, in);   /* says why the buffer failed */
        goto done;
    }
    if (PyObject_HasAttrString(obj, "__dlpack__")) {
        r = fvpy__import_dlpack(obj, consumer_stream, in);
        goto done;
    }
    if (PyObject_HasAttrString(obj, "__array_interface__")) {
        r = fvpy__import_interface_attr(obj, "__array_interface__", 0, in);
        goto done;
    }
    if (etype) {
        PyErr_Restore(etype, evalue, etb);
        return -1;
    }
    PyErr_Format(PyExc_TypeError, "asarray: cannot import an object of type '%.100s' as an array: it "
                 "offers none of the buffer protocol, __cuda_array_interface__, __dlpack__ or "
                 "__array_interface__", Py_TYPE(obj)->tp_name);
    return -1;
fail:
    r = -1;
done:
    Py_XDECREF(etype);
    Py_XDECREF(evalue);
    Py_XDECREF(etb);
    return r;
}

void
fvpy_in_clear(fvpy_in *in)
{
    fv_array_unref(in->arr);
    in->arr = NULL;
}

/* ---- argument parsers ------------------------------------------------------------------- */

int
fvpy_parse_dtype(PyObject *o, fv_dtype *out)
{
    PyObject *np, *d = NULL, *name = NULL, *order = NULL;
    int r = -1;
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s)
            return -1;
        if (fv_dtype_from_name(s, out) == FV_OK)
            return 0;
        fv_error_clear();
    } else if (o == (PyObject *)&PyBool_Type) {
        *out = FV_BOOL;
        return 0;
    } else if (o == (PyObject *)&PyLong_Type) {
        *out = FV_INT64;
        return 0;
    } else if (o == (PyObject *)&PyFloat_Type) {
        *out = FV_FLOAT64;
        return 0;
    }
    if (!(np = fvpy_numpy())) {
        PyErr_Format(PyExc_TypeError, "unsupported dtype %R (%s)", o, fvpy__supported);
        return -1;
    }
    if (!(d = PyObject_CallMethod(np, "dtype", "O", o)))
        goto done;
    if (!(order = PyObject_GetAttrString(d, "byteorder")) || !(name = PyObject_GetAttrString(d, "name")))
        goto done;
    const char *ord = PyUnicode_AsUTF8(order), *nm = PyUnicode_AsUTF8(name);
    if (!ord || !nm)
        goto done;
    if (ord[0] == FVPY_SWAPPED_ORDER) {
        PyErr_Format(PyExc_TypeError, "byte-swapped dtype %R is not supported", d);
        goto done;
    }
    if (fv_dtype_from_name(nm, out) != FV_OK) {
        fv_error_clear();
        fvpy__unsupported_dtype("dtype", nm);
        goto done;
    }
    r = 0;
done:
    Py_XDECREF(order);
    Py_XDECREF(name);
    Py_XDECREF(d);
    return r;
}

int
fvpy_parse_device(PyObject *o, fv_device *out)
{
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s)
            return -1;
        if (!strcmp(s, "cpu")) {
            *out = (fv_device){FV_DEVICE_CPU, 0};
            return 0;
        }
        if (!strcmp(s, "cuda") || !strcmp(s, "gpu")) {
            *out = (fv_device){FV_DEVICE_CUDA, -1};
            return 0;
        }
        if (!strncmp(s, "cuda:", 5) && s[5] >= '0' && s[5] <= '9') {
            char *end;
            long id = strtol(s + 5, &end, 10);
            if (!*end && id <= INT32_MAX) {
                *out = (fv_device){FV_DEVICE_CUDA, (int)id};
                return 0;
            }
        }
    } else if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2) {
        long type = PyLong_AsLong(PyTuple_GET_ITEM(o, 0)), id = PyLong_AsLong(PyTuple_GET_ITEM(o, 1));
        if (PyErr_Occurred())
            return -1;
        if ((type == kDLCPU || type == kDLCUDAHost) && id >= 0) {
            *out = (fv_device){FV_DEVICE_CPU, 0};
            return 0;
        }
        if (type == kDLCUDA && id >= 0 && id <= INT32_MAX) {
            *out = (fv_device){FV_DEVICE_CUDA, (int)id};
            return 0;
        }
    } else if (!PyTuple_Check(o)) {
        PyErr_Format(PyExc_TypeError, "device must be 'cpu', 'cuda' or 'cuda:N', not %.100s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    PyErr_Format(PyExc_ValueError, "unknown device %R (use 'cpu', 'cuda' or 'cuda:N')", o);
    return -1;
}

int
fvpy_check_device(const char *what, fv_device dev)
{
    int avail, count;
    if (dev.type != FV_DEVICE_CUDA)
        return 0;
    Py_BEGIN_ALLOW_THREADS
    avail = fv_cuda_available();
    count = avail ? fv_cuda_device_count() : 0;
    Py_END_ALLOW_THREADS
    if (!avail) {
        fvpy_device_error("%s: device cuda:%d requested but CUDA is unavailable: %s", what,
                          dev.id < 0 ? 0 : dev.id, fv_cuda_unavailable_reason());
        return -1;
    }
    if (dev.id >= count) {
        fvpy_device_error("%s: device cuda:%d does not exist (%d CUDA device%s found)", what, dev.id, count,
                          count == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

int
fvpy_parse_stream(PyObject *o, void **stream)
{
    *stream = NULL;
    if (!o || o == Py_None)
        return 0;
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "stream must be an int (a cudaStream_t) or None, not %.100s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "stream must be a cudaStream_t value >= 0, got %R", o);
        return -1;
    }
    *stream = v <= 1 ? NULL : (void *)(uintptr_t)v;
    return 0;
}

int
fvpy_make_context(fv_device dev, void *stream, fv_context **ctx)
{
    fv_context *c = NULL;
    fv_status st;
    *ctx = NULL;
    if (dev.type != FV_DEVICE_CUDA)
        return 0;
    if ((st = fv_context_new(&c))) {
        fvpy_raise(st);
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    st = fv_context_set_cuda(c, dev.id, stream);
    Py_END_ALLOW_THREADS
    if (st) {
        fv_context_free(c);
        fvpy_raise(st);
        return -1;
    }
    *ctx = c;
    return 0;
}

int
fvpy_sync_input(fv_context *ctx, const fvpy_in *in, void *stream)
{
    fv_status st;
    if (!ctx || !in->arr || !in->has_stream || in->stream == stream ||
        fv_array_device(in->arr).type != FV_DEVICE_CUDA)
        return 0;
    Py_BEGIN_ALLOW_THREADS
    st = fv_cuda_stream_wait(ctx, in->stream, stream);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        return -1;
    }
    return 0;
}

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
    static char *kwlist[] = {"obj", NULL};
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
    fv_array_unref(self->arr);   /* may run a deleter that takes the GIL (re-entrant) */
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
    fvpy__typestr(fv_array_dtype(a), ts, sizeof ts);
    if (!(shape = fvpy__get_shape(self, NULL)))
        goto done;
    if (fv_array_is_contiguous(a)) {
        strides = Py_None;
        Py_INCREF(strides);
    } else if (!(strides = fvpy__get_strides(self, NULL))) {
        goto done;
    }
    ret = Py_BuildValue("{s:i,s:O,s:s,s:[(s,s)],s:(N,O),s:O}", "version", 3, "shape", shape, "typestr", ts,
                        "descr", "", ts, "data", PyLong_FromVoidPtr(fv_array_data(a)),
                        fv_array_readonly(a) ? Py_True : Py_False, "strides", strides);
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
        PyErr_Format(PyExc_AttributeError, "__array_interface__ is only defined for host arrays; this one "
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
        PyErr_SetString(PyExc_AttributeError, "__cuda_array_interface__ is only defined for CUDA arrays; "
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

/* ---- DLPack export ------------------------------------------------------------------------ */

typedef struct fvpy_dl_export {
    DLManagedTensor m;
    fv_array *arr;   /* the reference the capsule holds */
    int64_t shape[FV_MAX_NDIM];
    int64_t strides[FV_MAX_NDIM];
} fvpy_dl_export;

/* Called by the consumer (any thread, GIL or not) or by the capsule destructor. */
static void
fvpy__dl_export_deleter(DLManagedTensor *m)
{
    fvpy_dl_export *e = m->manager_ctx;
    fv_array_unref(e->arr);
    free(e);
}

static void
fvpy__dl_capsule_destructor(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "used_dltensor"))
        return;   /* consumed: the consumer calls the deleter */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
    if (m) {
        if (m->deleter)
            m->deleter(m);
    } else {
        PyErr_WriteUnraisable(cap);
    }
    PyErr_Restore(type, value, tb);
}

static int
fvpy__dl_stream(PyObject *o, int *sync, void **stream)
{
    *sync = 1;
    *stream = NULL;
    if (o == Py_None)
        return 0;   /* the legacy default stream */
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v == -1) {
        *sync = 0;
        return 0;
    }
    if (v == 0 || v < -1) {
        PyErr_Format(PyExc_ValueError, "__dlpack__: stream %lld is not allowed for CUDA (use None or 1 for the "
                     "legacy default stream, 2 for per-thread, -1 for no synchronisation)", v);
        return -1;
    }
    *stream = v == 1 ? NULL : (void *)(uintptr_t)v;
    return 0;
}

static PyObject *
fvpy__array_dlpack(fvpy_Array *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream_o = Py_None, *maxv = Py_None, *dl_device = Py_None, *copy_o = Py_None, *ret = NULL;
    fv_array *arr = NULL, *copied = NULL;
    fv_context *ctx = NULL;
    fv_device dev = fv_array_device(self->arr), target;
    void *consumer = NULL;
    int sync = 1, copy = 0;
    fv_status st;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OOO:__dlpack__", kwlist, &stream_o, &maxv, &dl_device,
                                     &copy_o))
        return NULL;
    (void)maxv;   /* we produce the legacy (unversioned) capsule, which the protocol allows */
    if (copy_o != Py_None && (copy = PyObject_IsTrue(copy_o)) < 0)
        return NULL;
    target = dev;
    if (dl_device != Py_None) {
        if (fvpy_parse_device(dl_device, &target) < 0)
            return NULL;
        if (!fvpy_same_device(target, dev) && !copy) {
            char a[32], b[32];
            PyErr_Format(PyExc_BufferError, "__dlpack__: the array is on %s; exporting it to %s needs "
                         "copy=True", fvpy_device_str(dev, a, sizeof a), fvpy_device_str(target, b, sizeof b));
            return NULL;
        }
    }
    if (dev.type == FV_DEVICE_CUDA || target.type == FV_DEVICE_CUDA) {
        if (fvpy__dl_stream(stream_o, &sync, &consumer) < 0)
            return NULL;
    } else if (stream_o != Py_None) {
        long long v = PyLong_Check(stream_o) ? PyLong_AsLongLong(stream_o) : 0;
        if (v != -1 || PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_SetString(PyExc_BufferError, "__dlpack__: stream must be None for a host array");
            return NULL;
        }
    }
    if (fv_array_readonly(self->arr) && !copy) {
        PyErr_SetString(PyExc_BufferError, "__dlpack__: cannot export a read-only array through legacy "
                        "DLPack, which cannot mark it read-only (pass copy=True)");
        return NULL;
    }
    if (dev.type == FV_DEVICE_CUDA) {
        if (fvpy_make_context(dev, consumer, &ctx) < 0)
            goto done;
        if (sync && self->has_stream && self->stream != consumer) {
            Py_BEGIN_ALLOW_THREADS
            st = fv_cuda_stream_wait(ctx, self->stream, consumer);
            Py_END_ALLOW_THREADS
            if (st) {
                fvpy_raise(st);
                goto done;
            }
        }
    }
    arr = fv_array_ref(self->arr);
    if (copy) {
        fv_context *cctx = NULL;
        if (target.type == FV_DEVICE_CUDA) {
            if (fvpy_check_device("__dlpack__", target) < 0 || fvpy_make_context(target, consumer, &cctx) < 0)
                goto done;
        }
        Py_BEGIN_ALLOW_THREADS
        st = fv_array_new(cctx ? cctx : ctx, fv_array_dtype(arr), fv_array_ndim(arr), fv_array_shape(arr),
                          target, &copied);
        if (st == FV_OK)
            st = fv_copy(cctx ? cctx : ctx, arr, copied);
        Py_END_ALLOW_THREADS
        fv_context_free(cctx);
        if (st) {
            fvpy_raise(st);
            goto done;
        }
        fv_array_unref(arr);
        arr = copied;
        copied = NULL;
    }
    fvpy_dl_export *e = calloc(1, sizeof *e);
    if (!e) {
        PyErr_NoMemory();
        goto done;
    }
    fv_device adev = fv_array_device(arr);
    int64_t isz = (int64_t)fv_dtype_size(fv_array_dtype(arr));
    int ndim = fv_array_ndim(arr);
    for (int i = 0; i < ndim; i++) {
        e->shape[i] = fv_array_shape(arr)[i];
        e->strides[i] = fv_array_strides(arr)[i] / isz;
    }
    fv_dtype dt = fv_array_dtype(arr);
    e->m.dl_tensor.data = fv_array_data(arr);
    e->m.dl_tensor.device.device_type = adev.type == FV_DEVICE_CUDA ? kDLCUDA : kDLCPU;
    e->m.dl_tensor.device.device_id = adev.type == FV_DEVICE_CUDA ? adev.id : 0;
    e->m.dl_tensor.ndim = ndim;
    e->m.dl_tensor.dtype.code = dt == FV_BOOL ? FVPY_kDLBool
                              : fv_dtype_is_float(dt) ? kDLFloat
                              : fv_dtype_is_signed(dt) ? kDLInt : kDLUInt;
    e->m.dl_tensor.dtype.bits = (uint8_t)(isz * 8);
    e->m.dl_tensor.dtype.lanes = 1;
    e->m.dl_tensor.shape = e->shape;
    e->m.dl_tensor.strides = e->strides;
    e->m.dl_tensor.byte_offset = 0;
    e->m.manager_ctx = e;
    e->m.deleter = fvpy__dl_export_deleter;
    e->arr = arr;
    arr = NULL;   /* owned by e now */
    ret = PyCapsule_New(&e->m, "dltensor", fvpy__dl_capsule_destructor);
    if (!ret)
        fvpy__dl_export_deleter(&e->m);
done:
    fv_array_unref(copied);
    fv_array_unref(arr);
    fv_context_free(ctx);
    return ret;
}

static PyObject *
fvpy__array_dlpack_device(fvpy_Array *self, PyObject *unused)
{
    fv_device dev = fv_array_device(self->arr);
    if (dev.type == FV_DEVICE_CUDA)
        return Py_BuildValue("(ii)", (int)kDLCUDA, dev.id);
    return Py_BuildValue("(ii)", (int)kDLCPU, 0);
}

static PyObject *
fvpy__array_repr(fvpy_Array *self)
{
    char dev[32];
    PyObject *shape = fvpy__get_shape(self, NULL);
    if (!shape)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("fovea.Array(shape=%R, dtype=%s, device='%s'%s)", shape,
                                       fv_dtype_name(fv_array_dtype(self->arr)),
                                       fvpy_device_str(fv_array_device(self->arr), dev, sizeof dev),
                                       fv_array_readonly(self->arr) ? ", readonly" : "");
    Py_DECREF(shape);
    return r;
}

static PyGetSetDef fvpy__array_getset[] = {
    {"shape", (getter)fvpy__get_shape, NULL, "tuple of extents", NULL},
    {"strides", (getter)fvpy__get_strides, NULL, "tuple of strides in bytes", NULL},
    {"dtype", (getter)fvpy__get_dtype, NULL, "numpy.dtype (or its name when NumPy is absent)", NULL},
    {"ndim", (getter)fvpy__get_ndim, NULL, "number of dimensions", NULL},
    {"size", (getter)fvpy__get_size, NULL, "number of elements", NULL},
    {"nbytes", (getter)fvpy__get_nbytes, NULL, "size * itemsize", NULL},
    {"device", (getter)fvpy__get_device, NULL, "'cpu' or 'cuda:N'", NULL},
    {"readonly", (getter)fvpy__get_readonly, NULL, "True for read-only data", NULL},
    {"is_contiguous", (getter)fvpy__get_contiguous, NULL, "True when C-contiguous", NULL},
    {"__array_interface__", (getter)fvpy__get_array_interface, NULL, "NumPy array interface v3 (host)", NULL},
    {"__cuda_array_interface__", (getter)fvpy__get_cuda_array_interface, NULL,
     "CUDA array interface v3 (device)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef fvpy__array_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))fvpy__array_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "Export as a (legacy) DLPack capsule that holds a reference to the data."},
    {"__dlpack_device__", (PyCFunction)fvpy__array_dlpack_device, METH_NOARGS,
     "(device_type, device_id) as DLPack numbers."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject fvpy_ArrayType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fovea.Array",
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
    static char *kwlist[] = {"obj", "stream", NULL};
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
    static char *kwlist[] = {"shape", "dtype", "device", "stream", NULL};
    PyObject *shape_o, *dtype_o = NULL, *dev_o = NULL, *stream_o = Py_None, *seq = NULL, *ret = NULL;
    int64_t shape[FV_MAX_NDIM];
    Py_ssize_t ndim;
    fv_dtype dt = FV_FLOAT64;
    fv_device dev = {FV_DEVICE_CPU, 0};
    fv_context *ctx = NULL;
    fv_array *out = NULL;
    void *stream;
    fv_status st;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO:empty", kwlist, &shape_o, &dtype_o, &dev_o, &stream_o))
        return NULL;
    if ((dtype_o && dtype_o != Py_None && fvpy_parse_dtype(dtype_o, &dt) < 0) ||
        (dev_o && dev_o != Py_None && fvpy_parse_device(dev_o, &dev) < 0) ||
        fvpy_parse_stream(stream_o, &stream) < 0)
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
        if (fvpy__check_ndim("empty", ndim) < 0)
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
