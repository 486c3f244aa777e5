/* fovea.Array, zero-copy import: the buffer protocol, __array_interface__,
 * __cuda_array_interface__ and DLPack, and fvpy_import which picks one. */
#include "array-internal.h" /* Python.h first */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "errors.h"

/* ---- deleters (may run on any thread, with or without the GIL) ---------------- */

static void
fvpy__buffer_deleter(void *data, void *opaque)
{
    Py_buffer *view = opaque;
    (void)data;
    if (!Py_IsInitialized())
        return; /* interpreter gone: leak rather than crash */
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
        return;                               /* interpreter gone: producers' deleters may need it, so leak */
    PyGILState_STATE g = PyGILState_Ensure(); /* producers' deleters may need it */
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
    if (fvpy_dtype_from_format(what, view->format, view->itemsize, &dt) < 0 || fvpy_check_ndim(what, view->ndim) < 0)
        goto fail;
    if (view->suboffsets) {
        PyErr_Format(PyExc_ValueError, "%s: indirect buffers (suboffsets) are not supported", what);
        goto fail;
    }
    for (int i = 0; i < view->ndim; i++) {
        shape[i] = view->shape ? (int64_t)view->shape[i] : (int64_t)(view->len / view->itemsize);
        strides[i] = view->strides ? (int64_t)view->strides[i] : 0;
    }
    if (fvpy_check_data(what, view->buf, view->ndim, shape) < 0)
        goto fail;
    int readonly = view->readonly;
    st = fv_array_wrap(dt, view->ndim, shape, view->strides ? strides : NULL, view->buf,
                       (fv_device){ FV_DEVICE_CPU, 0 }, fvpy__buffer_deleter, view, &in->arr);
    if (st) { /* the deleter has released the view */
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
        PyErr_Format(PyExc_ValueError, "%s: '%s' has %zd entries for %zd dimensions", what, key, PySequence_Size(t), n);
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
        PyErr_Format(PyExc_TypeError, "%s: the interface must be a dict, not %.100s", what, Py_TYPE(iface)->tp_name);
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
    if (!tss || fvpy_dtype_from_typestr(what, tss, &dt) < 0)
        return -1;
    Py_ssize_t ndim = PySequence_Check(shp) ? PySequence_Size(shp) : -1;
    if (ndim < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: 'shape' must be a tuple of ints", what);
        return -1;
    }
    if (fvpy_check_ndim(what, ndim) < 0 || fvpy__int64_tuple(what, "shape", shp, shape, ndim) < 0)
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
    if (fvpy_check_data(what, data, (int)ndim, shape) < 0)
        return -1;
    fv_device dev = { FV_DEVICE_CPU, 0 };
    if (cuda) {
        dev.type = FV_DEVICE_CUDA;
        dev.id = fvpy__cuda_ordinal(obj);
        if (strm && strm != Py_None) {
            unsigned long long s = PyLong_AsUnsignedLongLong(strm);
            if (PyErr_Occurred())
                return -1;
            if (s == 0) {
                PyErr_Format(PyExc_ValueError,
                             "%s: stream 0 is disallowed by the protocol "
                             "(use 1 for the legacy default stream)",
                             what);
                return -1;
            }
            in->stream = s == 1 ? NULL : (void *)(uintptr_t)s;
            in->has_stream = 1;
        }
    }
    Py_INCREF(obj);
    st = fv_array_wrap(dt, (int)ndim, shape, have_strides ? strides : NULL, data, dev, fvpy__object_deleter, obj,
                       &in->arr);
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
        PyErr_Format(PyExc_TypeError, "%s: vector dtypes (DLPack lanes = %d) are not supported", what, (int)t.lanes);
        return -1;
    }
    if (t.bits % 8) {
        PyErr_Format(PyExc_TypeError, "%s: unsupported DLPack dtype (code %d, %d bits) (%s)", what, (int)t.code,
                     (int)t.bits, fvpy_supported);
        return -1;
    }
    switch (t.code) {
    case kDLInt:
        kind = 'i';
        break;
    case kDLUInt:
        kind = 'u';
        break;
    case kDLFloat:
        kind = 'f';
        break;
    case kDLComplex:
        kind = 'c';
        break;
    case FVPY_kDLBool:
        kind = 'b';
        break;
    case kDLBfloat:
        return fvpy_unsupported_dtype(what, "bfloat16");
    default:
        PyErr_Format(PyExc_TypeError, "%s: unsupported DLPack dtype code %d (%s)", what, (int)t.code, fvpy_supported);
        return -1;
    }
    return fvpy_dtype_from_kind(what, kind, t.bits / 8, out);
}

static int
fvpy__import_capsule(PyObject *cap, fvpy_in *in)
{
    const char *what = "asarray (DLPack)";
    int64_t strides[FV_MAX_NDIM];
    fv_dtype dt;
    fv_device dev = { FV_DEVICE_CPU, 0 };
    fv_status st;

    if (PyCapsule_IsValid(cap, "used_dltensor")) {
        PyErr_Format(PyExc_ValueError,
                     "%s: this DLPack capsule was already consumed "
                     "(a capsule can be imported once)",
                     what);
        return -1;
    }
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        PyErr_Format(PyExc_TypeError,
                     "%s: versioned DLPack capsules (DLPack >= 1.0) are not supported; "
                     "pass the array itself or a legacy 'dltensor' capsule",
                     what);
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
    if (fvpy_check_ndim(what, t->ndim) < 0 || fvpy__dtype_from_dl(what, t->dtype, &dt) < 0)
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
        fvpy_device_error("%s: DLPack device type %d is not supported (fovea handles CPU and CUDA memory)", what,
                          (int)t->device.device_type);
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
    if (fvpy_check_data(what, data, t->ndim, t->shape) < 0)
        return -1;
    if (PyCapsule_SetName(cap, "used_dltensor") < 0)
        return -1;
    st =
        fv_array_wrap(dt, t->ndim, t->shape, t->strides ? strides : NULL, data, dev, fvpy__dlpack_deleter, m, &in->arr);
    if (st) { /* the deleter has run m->deleter */
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
        PyObject *kw =
            Py_BuildValue("{s:K}", "stream", (unsigned long long)(consumer_stream ? (uintptr_t)consumer_stream : 1));
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
        r = fvpy__import_interface_attr(obj, "__array_interface__", 0, in); /* says why the buffer failed */
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
    PyErr_Format(PyExc_TypeError,
                 "asarray: cannot import an object of type '%.100s' as an array: it "
                 "offers none of the buffer protocol, __cuda_array_interface__, __dlpack__ or "
                 "__array_interface__",
                 Py_TYPE(obj)->tp_name);
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
