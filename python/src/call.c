/* One binding call's arrays, stream and context (fvpy_call, array.h): the
 * bindings open a call, run one library function without the GIL and close it
 * (fvpy_call_close), or return the array it made (fvpy_call_result). */
#include "array.h" /* Python.h first */
#include "errors.h"

static int
fvpy__call_import(fvpy_call *c, const char *what, PyObject *o, fvpy_in *dst, int writable)
{
    char da[32], db[32];
    if (!o || o == Py_None)
        return 0;
    if (fvpy_import(o, c->stream, dst) < 0)
        return -1;
    if (writable && fv_array_readonly(dst->arr)) {
        PyErr_Format(PyExc_ValueError, "%s: %s is read-only", c->name, what);
        return -1;
    }
    if (dst != &c->in && c->in.arr && !fvpy_same_device(fv_array_device(c->in.arr), fv_array_device(dst->arr))) {
        fvpy_device_error("%s: %s is on %s but the input is on %s; move one with fovea.to_device", c->name, what,
                          fvpy_device_str(fv_array_device(dst->arr), da, sizeof da),
                          fvpy_device_str(fv_array_device(c->in.arr), db, sizeof db));
        return -1;
    }
    return 0;
}

int
fvpy_call_open(fvpy_call *c, const char *name, PyObject *stream_o, PyObject *in_o, PyObject *out_o, PyObject *aux1_o,
               const char *aux1_what, int writable, PyObject *aux2_o, const char *aux2_what)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    if (fvpy_parse_stream(stream_o, &c->stream) < 0 || fvpy__call_import(c, "input", in_o, &c->in, 0) < 0 ||
        fvpy__call_import(c, "output", out_o, &c->out, 1) < 0 ||
        fvpy__call_import(c, aux1_what, aux1_o, &c->aux1, writable & 1) < 0 ||
        fvpy__call_import(c, aux2_what, aux2_o, &c->aux2, writable & 2) < 0)
        return -1;
    if (fvpy_make_context(fv_array_device(c->in.arr), c->stream, &c->ctx) < 0 ||
        fvpy_sync_input(c->ctx, &c->in, c->stream) < 0 || fvpy_sync_input(c->ctx, &c->out, c->stream) < 0 ||
        fvpy_sync_input(c->ctx, &c->aux1, c->stream) < 0 || fvpy_sync_input(c->ctx, &c->aux2, c->stream) < 0)
        return -1;
    return 0;
}

PyObject *
fvpy_call_close(fvpy_call *c, fv_status st)
{
    PyObject *ret = NULL;
    if (st)
        fvpy_raise(st);
    else if (!PyErr_Occurred()) {
        Py_INCREF(Py_None);
        ret = Py_None;
    }
    for (int i = 0; i < c->nbufs; i++)
        PyBuffer_Release(&c->bufs[i]);
    fvpy_in_clear(&c->in);
    fvpy_in_clear(&c->out);
    fvpy_in_clear(&c->aux1);
    fvpy_in_clear(&c->aux2);
    fv_context_free(c->ctx);
    return ret;
}

PyObject *
fvpy_result(fv_status st, fv_array *out, void *stream)
{
    PyObject *ret = NULL;
    if (st)
        fvpy_raise(st);
    else if (out && !PyErr_Occurred())
        ret = fvpy_array_new(fv_array_ref(out), stream, fv_array_device(out).type == FV_DEVICE_CUDA);
    fv_array_unref(out);
    return ret;
}

PyObject *
fvpy_call_result(fvpy_call *c, fv_status st, fv_array *out)
{
    PyObject *ret = fvpy_result(st, out, c->stream), *none;
    if (!(none = fvpy_call_close(c, FV_OK))) { /* fails when fvpy_result raised */
        Py_XDECREF(ret);
        return NULL;
    }
    Py_DECREF(none);
    return ret;
}

fv_status
fvpy_call_new(fvpy_call *c, fv_dtype dtype, int ndim, const int64_t *out_shape, fv_array **out)
{
    const fv_array *in = c->in.arr;
    return fv_array_new(c->ctx, dtype, ndim, out_shape ? out_shape : fv_array_shape(in), fv_array_device(in), out);
}

int
fvpy_numbers(const char *name, PyObject *o, int n, char kind, void *out)
{
    if (!o || o == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(o, "expected a sequence of numbers");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s needs %d values, got %zd", name, n, PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        if (kind == 'd')
            ((double *)out)[i] = PyFloat_AsDouble(x);
        else
            ((int64_t *)out)[i] = PyLong_AsLongLong(x);
        if (PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

PyObject *
fvpy_status(fv_status st)
{
    if (st) {
        fvpy_raise(st);
        return NULL;
    }
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

int
fvpy_import_list(const char *name, const char *what, PyObject *o, int lo, int hi, void *stream, fvpy_in *dst, int *n)
{
    *n = 0;
    PyObject *seq = PySequence_Fast(o, "a sequence of arrays is needed");
    if (!seq)
        return -1;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    int rc = 0;
    if (m < lo || m > hi) {
        PyErr_Format(PyExc_ValueError, "%s: needs %d to %d %s, got %zd", name, lo, hi, what, m);
        rc = -1;
    }
    for (int k = 0; rc == 0 && k < (int)m; k++, (*n)++)
        rc = fvpy_import(PySequence_Fast_GET_ITEM(seq, k), stream, &dst[k]);
    Py_DECREF(seq);
    return rc;
}

int
fvpy_sync_list(fvpy_in *dst, int n, void *stream, fv_context **ctx)
{
    if (fvpy_make_context(fv_array_device(dst[0].arr), stream, ctx) < 0)
        return -1;
    for (int k = 0; k < n; k++)
        if (dst[k].arr && fvpy_sync_input(*ctx, &dst[k], stream) < 0)
            return -1;
    return 0;
}

void
fvpy_clear_list(fvpy_in *dst, int n)
{
    for (int k = 0; k < n; k++)
        fvpy_in_clear(&dst[k]);
}
