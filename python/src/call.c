/* One binding call's arrays, stream and context (fvpy_call, array.h): the
 * bindings of the filters, morphology, interpolation and FFT open a call, run one
 * library function without the GIL and close it. */
#include "array.h"   /* Python.h first */
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
    if (dst != &c->in && c->in.arr &&
        !fvpy_same_device(fv_array_device(c->in.arr), fv_array_device(dst->arr))) {
        fvpy_device_error("%s: %s is on %s but the input is on %s; move one with fovea.to_device", c->name,
                          what, fvpy_device_str(fv_array_device(dst->arr), da, sizeof da),
                          fvpy_device_str(fv_array_device(c->in.arr), db, sizeof db));
        return -1;
    }
    return 0;
}

int
fvpy_call_open(fvpy_call *c, const char *name, PyObject *stream_o, PyObject *in_o, PyObject *out_o,
               PyObject *aux1_o, const char *aux1_what, int aux1_writable, PyObject *aux2_o,
               const char *aux2_what)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    if (fvpy_parse_stream(stream_o, &c->stream) < 0 || fvpy__call_import(c, "input", in_o, &c->in, 0) < 0 ||
        fvpy__call_import(c, "output", out_o, &c->out, 1) < 0 ||
        fvpy__call_import(c, aux1_what, aux1_o, &c->aux1, aux1_writable) < 0 ||
        fvpy__call_import(c, aux2_what, aux2_o, &c->aux2, 1) < 0)
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
