/* fv_status -> Python exceptions, one table. */
#include "errors.h"

PyObject *fvpy_FormatError;
PyObject *fvpy_DeviceError;
PyObject *fvpy_CudaError;

int
fvpy_errors_init(PyObject *m)
{
    fvpy_FormatError = PyErr_NewExceptionWithDoc("fovea.FormatError", "Malformed or unsupported file content.",
                                                 PyExc_ValueError, NULL);
    if (!fvpy_FormatError)
        return -1;
    fvpy_DeviceError = PyErr_NewExceptionWithDoc(
        "fovea.DeviceError", "Wrong, mismatched or unavailable device (e.g. no usable GPU).", PyExc_RuntimeError, NULL);
    if (!fvpy_DeviceError)
        return -1;
    fvpy_CudaError = PyErr_NewExceptionWithDoc("fovea.CudaError", "A CUDA runtime or library call failed.",
                                               PyExc_RuntimeError, NULL);
    if (!fvpy_CudaError)
        return -1;
    if (fvpy_add_object(m, "FormatError", fvpy_FormatError) < 0 ||
        fvpy_add_object(m, "DeviceError", fvpy_DeviceError) < 0 || fvpy_add_object(m, "CudaError", fvpy_CudaError) < 0)
        return -1;
    return 0;
}

int
fvpy_add_object(PyObject *m, const char *name, PyObject *o)
{
    Py_INCREF(o);
    if (PyModule_AddObject(m, name, o) < 0) { /* steals only on success */
        Py_DECREF(o);
        return -1;
    }
    return 0;
}

static PyObject *
fvpy__exc_type(fv_status st)
{
    switch (st) {
    case FV_EINVAL:
        return PyExc_ValueError;
    case FV_EDTYPE:
        return PyExc_TypeError;
    case FV_ENOMEM:
        return PyExc_MemoryError;
    case FV_EIO:
        return PyExc_OSError;
    case FV_EFORMAT:
        return fvpy_FormatError;
    case FV_EDEVICE:
        return fvpy_DeviceError;
    case FV_ECUDA:
        return fvpy_CudaError;
    case FV_ENOKERNEL:
        return PyExc_TypeError; /* the message names backend and dtype */
    default:
        return PyExc_RuntimeError; /* FV_EUNSUPPORTED, FV_EINTERNAL, unknown */
    }
}

PyObject *
fvpy_raise(fv_status st)
{
    const char *msg = fv_error_message();
    if (st == FV_OK) {
        PyErr_SetString(PyExc_SystemError, "fovea: fvpy_raise called with FV_OK");
        return NULL;
    }
    if (!msg || !*msg) {
        PyErr_Format(fvpy__exc_type(st), "fovea: %s (no message)", fv_status_name(st));
        return NULL;
    }
    if (st == FV_EINTERNAL)
        PyErr_Format(PyExc_RuntimeError, "%s (internal error in fovea: please report)", msg);
    else
        PyErr_SetString(fvpy__exc_type(st), msg);
    return NULL;
}

PyObject *
fvpy_device_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (msg) {
        PyErr_SetObject(fvpy_DeviceError, msg);
        Py_DECREF(msg);
    }
    return NULL;
}
