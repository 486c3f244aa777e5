/* Private hooks over the planner's variant tables (src/core/plan.h), for the
 * tests: _variants, _force_variant, _last_variant. Not public API. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core/plan.h"
#include "array.h"
#include "errors.h"

/* _variants(op=None): the variant names of op in table order (a tuple), or
 * without op a dict {op: (names...)} of every table. */
static PyObject *
fvpy_variants(PyObject *self, PyObject *args)
{
    const char *op = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "|z:_variants", &op))
        return NULL;
    if (op) {
        const fv__variant_table *t = fv__plan_table(op);
        if (!t)
            return PyErr_Format(PyExc_ValueError, "_variants: no op %s has variants", op);
        PyObject *names = PyTuple_New(t->count);
        if (!names)
            return NULL;
        for (int i = 0; i < t->count; i++) {
            PyObject *s = PyUnicode_FromString(t->variants[i].name);
            if (!s) {
                Py_DECREF(names);
                return NULL;
            }
            PyTuple_SET_ITEM(names, i, s);
        }
        return names;
    }
    PyObject *all = PyDict_New();
    if (!all)
        return NULL;
    for (int k = 0; k < fv__plan_count(); k++) {
        const fv__variant_table *t = fv__plan_table_at(k);
        PyObject *sub = Py_BuildValue("(s)", t->op), *names = sub ? fvpy_variants(self, sub) : NULL;
        Py_XDECREF(sub);
        if (!names || PyDict_SetItemString(all, t->op, names) < 0) {
            Py_XDECREF(names);
            Py_DECREF(all);
            return NULL;
        }
        Py_DECREF(names);
    }
    return all;
}
FVPY_METHOD(_variants, fvpy_variants, METH_VARARGS,
            "_variants(op=None)\n--\n\nKernel variant names of op, or {op: names}.");

/* _force_variant(op, name): this thread's forced variant of op (name None: the
 * planner's own choice again); _force_variant(None, None) clears every op. */
static PyObject *
fvpy_force_variant(PyObject *self, PyObject *args)
{
    const char *op = NULL, *name = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "zz:_force_variant", &op, &name))
        return NULL;
    fv_status st = fv__plan_force(op, name);
    if (st != FV_OK)
        return fvpy_raise(st);
    Py_RETURN_NONE;
}
FVPY_METHOD(_force_variant, fvpy_force_variant, METH_VARARGS,
            "_force_variant(op, name)\n--\n\nThis thread's forced variant of op (None: none; op None: clear all).");

/* _last_variant(op): the variant this thread's last call of op ran, None before
 * any; _last_variant(None) forgets every record and returns None. */
static PyObject *
fvpy_last_variant(PyObject *self, PyObject *args)
{
    const char *op = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "z:_last_variant", &op))
        return NULL;
    if (!op) {
        fv__plan_forget();
        Py_RETURN_NONE;
    }
    if (!fv__plan_table(op))
        return PyErr_Format(PyExc_ValueError, "_last_variant: no op %s has variants", op);
    const char *name = fv__plan_last(op);
    if (!name)
        Py_RETURN_NONE;
    return PyUnicode_FromString(name);
}
FVPY_METHOD(_last_variant, fvpy_last_variant, METH_VARARGS,
            "_last_variant(op)\n--\n\nThe variant this thread's last call of op ran (op None: forget all).");
