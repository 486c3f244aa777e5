/* fv_status -> Python exceptions for the _fovea extension. */
#ifndef FVPY_ERRORS_H
#define FVPY_ERRORS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "fovea/fovea.h"

/* fovea.FormatError (ValueError), fovea.DeviceError and fovea.CudaError
 * (RuntimeError); created by fvpy_errors_init. */
extern PyObject *fvpy_FormatError;
extern PyObject *fvpy_DeviceError;
extern PyObject *fvpy_CudaError;

/* Creates the exception types and adds them to module m. 0 or -1. */
int fvpy_errors_init(PyObject *m);

/* Raises the exception for st with fv_error_message() as text (call on the
 * thread that got st, before any other library call can fail). Returns NULL. */
PyObject *fvpy_raise(fv_status st);

/* PyModule_AddObjectRef for Python 3.9: adds a new reference. 0 or -1. */
int fvpy_add_object(PyObject *m, const char *name, PyObject *o);

/* Raises fovea.DeviceError with a formatted message. Returns NULL. */
PyObject *fvpy_device_error(const char *fmt, ...);

#endif
