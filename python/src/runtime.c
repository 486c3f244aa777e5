/* Diagnostics and test hooks of the runtime (issue 26; docs/robustness.md "GPU
 * runtime"): fault points, the device pool's bytes in use, the libraries fovea
 * loaded at run time. Private names (leading underscore): for fovea's tests. */
#include "array.h" /* Python.h first */
#include <dlfcn.h>

#include "alloc.h"
#include "dl.h"
#include "internal.h"
#include "errors.h"

/* _fault_arm(which, n, all=False): which 'host_alloc' or 'device_alloc'; n < 0 off,
 * 0 count only, k > 0 the k-th attempt from now fails (all: it and every later one) */
static int
fvpy__fault_id(const char *name)
{
    if (!strcmp(name, "host_alloc"))
        return FV__FAULT_HOST_ALLOC;
    if (!strcmp(name, "device_alloc"))
        return FV__FAULT_DEVICE_ALLOC;
    PyErr_Format(PyExc_ValueError, "unknown fault point '%s' (host_alloc, device_alloc)", name);
    return -1;
}

static PyObject *
fvpy_fault_arm(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "which", "n", "all", NULL };
    const char *name;
    long long n;
    int all = 0, which;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sL|p:_fault_arm", kwlist, &name, &n, &all))
        return NULL;
    if ((which = fvpy__fault_id(name)) < 0)
        return NULL;
    fv__fault_arm(which, (int64_t)n, all);
    Py_RETURN_NONE;
}
FVPY_METHOD(
    _fault_arm, fvpy_fault_arm, FVPY_KWARGS,
    "_fault_arm(which, n, all=False)\n--\n\nArm a fault point ('host_alloc', 'device_alloc'): n < 0 off, 0 count "
    "only, k > 0 the k-th attempt from now fails (all: and every later one). Tests only.");

/* _fault_stats(which) -> (attempts, failures) since arming */
static PyObject *
fvpy_fault_stats(PyObject *self, PyObject *arg)
{
    const char *name = PyUnicode_AsUTF8(arg);
    int which;
    if (!name || (which = fvpy__fault_id(name)) < 0)
        return NULL;
    return Py_BuildValue("(LL)", (long long)fv__fault_count(which), (long long)fv__fault_failures(which));
}
FVPY_METHOD(_fault_stats, fvpy_fault_stats, METH_O,
            "_fault_stats(which)\n--\n\n(attempts, failures) at a fault point since it was armed.");

/* _cuda_pool(device, trim=False) -> bytes in use from fovea's stream-ordered pool
 * after a device synchronisation (-1: unknown); trim first gives the memory the pool
 * keeps for reuse back to the driver */
static PyObject *
fvpy_cuda_pool(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "device", "trim", NULL };
    int device, trim = 0;
    fv_status st = FV_OK;
    int64_t used = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|p:_cuda_pool", kwlist, &device, &trim))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
        if (trim)
            st = fv__cuda_pool_trim(device);
        if (st == FV_OK)
            used = fv__cuda_pool_used(device);
    Py_END_ALLOW_THREADS
    if (st != FV_OK)
        return fvpy_raise(st);
    return PyLong_FromLongLong((long long)used);
}
FVPY_METHOD(_cuda_pool, fvpy_cuda_pool, FVPY_KWARGS,
            "_cuda_pool(device, trim=False)\n--\n\nBytes in use from fovea's stream-ordered pool on device after a "
            "synchronisation (-1: unknown), a leak check for tests; trim: first give the memory the pool keeps for "
            "reuse back to the driver.");

/* _loaded_libraries() -> [{'what', 'requested', 'path', 'flags': ['RTLD_NOW', 'RTLD_LOCAL']}] */
static PyObject *
fvpy_loaded_libraries(PyObject *self, PyObject *unused)
{
    fv__dl_record rec[16];
    size_t n = fv__dl_loaded(rec, 16);
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < n && i < 16; i++) {
        int f = rec[i].flags;
        PyObject *d =
            Py_BuildValue("{s:s,s:s,s:s,s:[sss]}", "what", rec[i].what, "requested", rec[i].requested, "path",
                          rec[i].path, "flags", (f & RTLD_NOW) ? "RTLD_NOW" : "RTLD_LAZY",
                          (f & RTLD_GLOBAL) ? "RTLD_GLOBAL" : "RTLD_LOCAL", (f & RTLD_NODELETE) ? "RTLD_NODELETE" : "");
        if (!d || PyList_Append(list, d) < 0) {
            Py_XDECREF(d);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(d);
    }
    return list;
}
FVPY_METHOD(_loaded_libraries, fvpy_loaded_libraries, METH_NOARGS,
            "_loaded_libraries()\n--\n\nThe shared libraries fovea loaded at run time (nvJPEG, cuFile): name, the "
            "candidate that loaded, its file and the dlopen flags.");
