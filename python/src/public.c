/* _fovea.Public(fn, route): the type of fovea's public Python functions
 * (fovea._interop.public). Calling one calls route(fn, args, kwargs) first; when
 * that returns NotImplemented, fn(*args, **kwargs) runs straight from here. A C
 * call adds no Python frame, so a warning fn raises with stacklevel=N names the
 * same line of the caller as it would without the wrapper (scikit-image's tests
 * check that). Otherwise route has run fn itself (on a CUDA torch tensor's
 * stream) and its result is the call's. Instances carry a __dict__ for
 * functools.update_wrapper. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include "errors.h"

typedef struct fvpy_public {
    PyObject_HEAD PyObject *fn, *route, *dict, *weakrefs;
} fvpy_public;

static int
fvpy_public_init(PyObject *self, PyObject *args, PyObject *kw)
{
    fvpy_public *p = (fvpy_public *)self;
    PyObject *fn, *route;
    static char *kwlist[] = { "fn", "route", NULL };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:Public", kwlist, &fn, &route))
        return -1;
    if (!PyCallable_Check(fn) || !PyCallable_Check(route)) {
        PyErr_SetString(PyExc_TypeError, "Public: fn and route must be callable");
        return -1;
    }
    Py_INCREF(fn);
    Py_INCREF(route);
    Py_XSETREF(p->fn, fn);
    Py_XSETREF(p->route, route);
    return 0;
}

static PyObject *
fvpy_public_call(PyObject *self, PyObject *args, PyObject *kw)
{
    fvpy_public *p = (fvpy_public *)self;
    if (!p->fn) {
        PyErr_SetString(PyExc_TypeError, "Public: not initialised");
        return NULL;
    }
    PyObject *r = PyObject_CallFunctionObjArgs(p->route, p->fn, args, kw ? kw : Py_None, NULL);
    if (r != Py_NotImplemented)
        return r;
    Py_DECREF(r);
    return PyObject_Call(p->fn, args, kw);
}

static int
fvpy_public_traverse(PyObject *self, visitproc visit, void *arg)
{
    fvpy_public *p = (fvpy_public *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(p->fn);
    Py_VISIT(p->route);
    Py_VISIT(p->dict);
    return 0;
}

static int
fvpy_public_clear(PyObject *self)
{
    fvpy_public *p = (fvpy_public *)self;
    Py_CLEAR(p->fn);
    Py_CLEAR(p->route);
    Py_CLEAR(p->dict);
    return 0;
}

static void
fvpy_public_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (((fvpy_public *)self)->weakrefs)
        PyObject_ClearWeakRefs(self);
    fvpy_public_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMemberDef fvpy_public_members[] = {
    { "__dictoffset__", T_PYSSIZET, offsetof(fvpy_public, dict), READONLY, NULL },
    { "__weaklistoffset__", T_PYSSIZET, offsetof(fvpy_public, weakrefs), READONLY, NULL },
    { NULL, 0, 0, 0, NULL },
};

static PyGetSetDef fvpy_public_getset[] = {
    { "__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot fvpy_public_slots[] = {
    { Py_tp_init, (void *)fvpy_public_init },
    { Py_tp_call, (void *)fvpy_public_call },
    { Py_tp_traverse, (void *)fvpy_public_traverse },
    { Py_tp_clear, (void *)fvpy_public_clear },
    { Py_tp_dealloc, (void *)fvpy_public_dealloc },
    { Py_tp_members, (void *)fvpy_public_members },
    { Py_tp_getset, (void *)fvpy_public_getset },
    { Py_tp_new, (void *)PyType_GenericNew },
    { Py_tp_doc, (void *)"Public(fn, route)\n--\n\nfn behind route (fovea._interop.public)." },
    { 0, NULL },
};

static PyType_Spec fvpy_public_spec = {
    "fovea._fovea.Public", sizeof(fvpy_public), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    fvpy_public_slots,
};

int
fvpy_public_init_module(PyObject *m)
{
    PyObject *t = PyType_FromSpec(&fvpy_public_spec);
    if (!t)
        return -1;
    int rc = fvpy_add_object(m, "Public", t);
    Py_DECREF(t);
    return rc;
}
