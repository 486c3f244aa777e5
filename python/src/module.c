/* fovea._fovea: module init, exception types, the function table, and the small
 * functions (configuration, version, the command line). */
#include "array.h" /* Python.h first */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "errors.h"
#include "cli.h"

/* Defined in slide.c and filesystem.c: the types those files add to the module. */
int fvpy_slide_init(PyObject *m);
int fvpy_filesystem_init(PyObject *m);
int fvpy_public_init_module(PyObject *m);

FVPY_NOARGS_CALL(fvpy_gpu_available, int, fv_cuda_available(), PyBool_FromLong)
FVPY_METHOD(gpu_available, fvpy_gpu_available, METH_NOARGS,
            "gpu_available()\n--\n\nTrue when the CUDA backend was built and a driver and GPU were found.");

static PyObject *
fvpy_config(PyObject *self, PyObject *unused)
{
    const char *js;
    PyObject *json, *ret;
    Py_BEGIN_ALLOW_THREADS
        js = fv_config_json();
    Py_END_ALLOW_THREADS
    if (!(json = PyImport_ImportModule("json")))
        return NULL;
    ret = PyObject_CallMethod(json, "loads", "s", js);
    Py_DECREF(json);
    return ret;
}
FVPY_METHOD(config, fvpy_config, METH_NOARGS, "config()\n--\n\nBuild and runtime configuration as a dict.");

static PyObject *
fvpy_version(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(fv_version());
}
FVPY_METHOD(version, fvpy_version, METH_NOARGS, "version()\n--\n\nThe C library's version string.");

FVPY_NOARGS_CALL(fvpy_num_threads, int, fv_num_threads(), PyLong_FromLong)
FVPY_METHOD(num_threads, fvpy_num_threads, METH_NOARGS, "num_threads()\n--\n\nSize of the CPU thread pool.");

static PyObject *
fvpy_refcount(PyObject *self, PyObject *arg)
{
    if (!fvpy_Array_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "_refcount: expected fovea.Array, got %.100s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    return PyLong_FromLong(fv_array_refcount(((fvpy_Array *)arg)->arr));
}
FVPY_METHOD(_refcount, fvpy_refcount, METH_O, "_refcount(arr)\n--\n\nReference count of arr's fv_array (tests).");

static int
fvpy__flush(const char *name)
{
    PyObject *f = PySys_GetObject(name); /* borrowed */
    if (f && f != Py_None) {
        PyObject *r = PyObject_CallMethod(f, "flush", NULL);
        if (!r)
            return -1;
        Py_DECREF(r);
    }
    return 0;
}

static PyObject *
fvpy_cli_main(PyObject *self, PyObject *arg)
{
    PyObject *seq = NULL, *ret = NULL;
    char **argv = NULL;
    Py_ssize_t argc = 0;
    int rc;

    if (PyUnicode_Check(arg) || PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "cli_main: argv must be a list of str, not a single string");
        return NULL;
    }
    if (!(seq = PySequence_Fast(arg, "cli_main: argv must be a list of str")))
        return NULL;
    argc = PySequence_Fast_GET_SIZE(seq);
    if (argc < 1 || argc > 1 << 20) {
        PyErr_SetString(PyExc_ValueError, "cli_main: argv needs at least the program name");
        goto done;
    }
    if (!(argv = calloc((size_t)argc + 1, sizeof *argv))) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < argc; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
        const char *u = PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : NULL;
        if (!u) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "cli_main: argv[%zd] must be str, not %.100s", i, Py_TYPE(s)->tp_name);
            goto done;
        }
        if (!(argv[i] = strdup(u))) { /* the list may change while the GIL is released */
            PyErr_NoMemory();
            goto done;
        }
    }
    if (fvpy__flush("stdout") < 0 || fvpy__flush("stderr") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
        rc = fovea_cli_main((int)argc, argv);
        fflush(stdout);
        fflush(stderr);
    Py_END_ALLOW_THREADS
    ret = PyLong_FromLong(rc);
done:
    if (argv)
        for (Py_ssize_t i = 0; i < argc; i++)
            free(argv[i]);
    free(argv);
    Py_XDECREF(seq);
    return ret;
}
FVPY_METHOD(cli_main, fvpy_cli_main, METH_O,
            "cli_main(argv)\n--\n\nRun the fovea command line (argv[0] is the program name); returns the exit "
            "status.");

/* The method table: every FVPY_METHOD declaration in the files of python/src, collected
 * by cmake/gen-registry.cmake (fvpy_method_defs, FVPY_NMETHODS), copied into
 * fvpy_methods by PyInit__fovea before the module is made. */
#include "fvpy-methods.h"

static PyMethodDef fvpy_methods[FVPY_NMETHODS + 1]; /* the last entry stays zero */

static struct PyModuleDef fvpy_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "fovea._fovea",
    .m_doc = "The C extension of fovea: arrays and core operations on the CPU and CUDA backends.",
    .m_size = -1,
    .m_methods = fvpy_methods,
};

PyMODINIT_FUNC
PyInit__fovea(void)
{
    for (int i = 0; i < FVPY_NMETHODS; i++)
        fvpy_methods[i] = *fvpy_method_defs[i];
    PyObject *m = PyModule_Create(&fvpy_module);
    if (!m)
        return NULL;
    if (fvpy_errors_init(m) < 0 || fvpy_array_init(m) < 0 || fvpy_slide_init(m) < 0 || fvpy_filesystem_init(m) < 0 ||
        fvpy_public_init_module(m) < 0 || PyModule_AddStringConstant(m, "__version__", fv_version()) < 0 ||
        PyModule_AddIntConstant(m, "MAX_NDIM", FV_MAX_NDIM) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
