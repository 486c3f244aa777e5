/* fovea.Array's DLPack export: __dlpack__ (capsule, stream handshake) and
 * __dlpack_device__. */
#include "array-internal.h" /* Python.h first */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "errors.h"

/* ---- DLPack export ------------------------------------------------------------------------ */

typedef struct fvpy_dl_export {
    DLManagedTensor m;
    fv_array *arr; /* the reference the capsule holds */
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
        return; /* consumed: the consumer calls the deleter */
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
        return 0; /* the legacy default stream */
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v == -1) {
        *sync = 0;
        return 0;
    }
    if (v == 0 || v < -1) {
        PyErr_Format(PyExc_ValueError,
                     "__dlpack__: stream %lld is not allowed for CUDA (use None or 1 for the "
                     "legacy default stream, 2 for per-thread, -1 for no synchronisation)",
                     v);
        return -1;
    }
    *stream = v == 1 ? NULL : (void *)(uintptr_t)v;
    return 0;
}

PyObject *
fvpy_array_dlpack(fvpy_Array *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "stream", "max_version", "dl_device", "copy", NULL };
    PyObject *stream_o = Py_None, *maxv = Py_None, *dl_device = Py_None, *copy_o = Py_None, *ret = NULL;
    fv_array *arr = NULL, *copied = NULL;
    fv_context *ctx = NULL;
    fv_device dev = fv_array_device(self->arr), target;
    void *consumer = NULL;
    int sync = 1, copy = 0;
    fv_status st;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OOO:__dlpack__", kwlist, &stream_o, &maxv, &dl_device, &copy_o))
        return NULL;
    (void)maxv; /* we produce the legacy (unversioned) capsule, which the protocol allows */
    if (copy_o != Py_None && (copy = PyObject_IsTrue(copy_o)) < 0)
        return NULL;
    target = dev;
    if (dl_device != Py_None) {
        if (fvpy_parse_device(dl_device, &target) < 0)
            return NULL;
        if (!fvpy_same_device(target, dev) && !copy) {
            char a[32], b[32];
            PyErr_Format(PyExc_BufferError,
                         "__dlpack__: the array is on %s; exporting it to %s needs "
                         "copy=True",
                         fvpy_device_str(dev, a, sizeof a), fvpy_device_str(target, b, sizeof b));
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
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__: cannot export a read-only array through legacy "
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
            st = fv_array_new(cctx ? cctx : ctx, fv_array_dtype(arr), fv_array_ndim(arr), fv_array_shape(arr), target,
                              &copied);
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
        : fv_dtype_is_float(dt)               ? kDLFloat
        : fv_dtype_is_signed(dt)              ? kDLInt
                                              : kDLUInt;
    e->m.dl_tensor.dtype.bits = (uint8_t)(isz * 8);
    e->m.dl_tensor.dtype.lanes = 1;
    e->m.dl_tensor.shape = e->shape;
    e->m.dl_tensor.strides = e->strides;
    e->m.dl_tensor.byte_offset = 0;
    e->m.manager_ctx = e;
    e->m.deleter = fvpy__dl_export_deleter;
    e->arr = arr;
    arr = NULL; /* owned by e now */
    ret = PyCapsule_New(&e->m, "dltensor", fvpy__dl_capsule_destructor);
    if (!ret)
        fvpy__dl_export_deleter(&e->m);
done:
    fv_array_unref(copied);
    fv_array_unref(arr);
    fv_context_free(ctx);
    return ret;
}

PyObject *
fvpy_array_dlpack_device(fvpy_Array *self, PyObject *unused)
{
    fv_device dev = fv_array_device(self->arr);
    if (dev.type == FV_DEVICE_CUDA)
        return Py_BuildValue("(ii)", (int)kDLCUDA, dev.id);
    return Py_BuildValue("(ii)", (int)kDLCPU, 0);
}
