/* fovea._fovea.BatchIterator (Slide.batches): patches of a slide read in batches by
 * fv_batch_loader, one NumPy or fovea.Array batch per next() (with squeeze, batches of
 * one as the (H, W, C) region: cuCIM's iterator for batch_size 1). */
#include "array.h" /* Python.h first */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "errors.h"
#include "slide/slide-internal.h"
#include "slide-object.h"

typedef struct fvpy_Batches {
    PyObject_HEAD fv_batch_loader *l; /* NULL once finished or closed */
    int64_t count;
    int squeeze; /* yield (1, H, W, C) batches as (H, W, C) views */
} fvpy_Batches;

static void
fvpy__batches_close_loader(fvpy_Batches *self)
{
    fv_batch_loader *l = self->l;
    self->l = NULL;
    if (l) {
        Py_BEGIN_ALLOW_THREADS
            fv_batch_loader_free(l); /* joins the workers: no GIL held */
        Py_END_ALLOW_THREADS
    }
}

static void
fvpy__batches_dealloc(fvpy_Batches *self)
{
    fvpy__batches_close_loader(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
fvpy__batches_iter(PyObject *self)
{
    Py_INCREF(self);
    return self;
}

static PyObject *
fvpy__batches_next(fvpy_Batches *self)
{
    fv_array *out = NULL;
    fv_status st;
    if (!self->l)
        return NULL; /* StopIteration */
    Py_BEGIN_ALLOW_THREADS
        st = fv_batch_loader_next(self->l, &out);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);                   /* reported once ... */
        fvpy__batches_close_loader(self); /* ... then the iterator is finished */
        return NULL;
    }
    if (!out) {
        fvpy__batches_close_loader(self);
        return NULL;
    }
    if (self->squeeze && fv_array_ndim(out) == 4 && fv_array_shape(out)[0] == 1) {
        fv_array *v = NULL;
        st = fv_array_view(out, 3, fv_array_shape(out) + 1, fv_array_strides(out) + 1, 0, &v);
        fv_array_unref(out);
        if (st)
            return fvpy_status(st);
        out = v;
    }
    return fvpy_to_result(out);
}

static PyObject *
fvpy__batches_close(fvpy_Batches *self, PyObject *unused)
{
    fvpy__batches_close_loader(self);
    Py_RETURN_NONE;
}

static PyObject *
fvpy__batches_len(fvpy_Batches *self, PyObject *unused)
{
    return PyLong_FromLongLong(self->count);
}

static PyMethodDef fvpy__batches_methods[] = {
    { "close", (PyCFunction)fvpy__batches_close, METH_NOARGS,
      "close()\n--\n\nStop the workers and free the batches not yet taken." },
    { "__length_hint__", (PyCFunction)fvpy__batches_len, METH_NOARGS, NULL },
    { NULL, NULL, 0, NULL },
};

PyTypeObject fvpy_BatchesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fovea._fovea.BatchIterator",
    .tp_basicsize = sizeof(fvpy_Batches),
    .tp_dealloc = (destructor)fvpy__batches_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An iterator of (N, H, W, C) NumPy batches read ahead by worker threads.",
    .tp_iter = fvpy__batches_iter,
    .tp_iternext = (iternextfunc)fvpy__batches_next,
    .tp_methods = fvpy__batches_methods,
};

PyObject *
fvpy_slide_batches(fvpy_Slide *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "locations",  "level",       "width",           "height",  "format",
                              "batch_size", "num_workers", "prefetch_factor", "shuffle", "seed",
                              "drop_last",  "nocache",     "device",          "squeeze", NULL };
    PyObject *loc_o, *fmt_o = NULL, *np = NULL, *arr = NULL, *ret = NULL, *dev_o = NULL;
    int level, batch_size = 1, num_workers = 0, prefetch = 2, shuffle = 0, drop_last = 0, nocache = 0, squeeze = 0;
    long long w, h;
    unsigned long long seed = 0;
    fv_slide *s = NULL;
    fv_batch_loader *l = NULL;
    fv_status st;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiLL|OiiipKppOp:batches", kwlist, &loc_o, &level, &w, &h, &fmt_o,
                                     &batch_size, &num_workers, &prefetch, &shuffle, &seed, &drop_last, &nocache,
                                     &dev_o, &squeeze))
        return NULL;
    fv_loader_options o = { .level = level,
                            .width = w,
                            .height = h,
                            .batch_size = batch_size,
                            .num_workers = num_workers,
                            .prefetch_factor = prefetch,
                            .shuffle = shuffle,
                            .seed = seed,
                            .drop_last = drop_last,
                            .nocache = nocache };
    if (fvpy_pixel_format(fmt_o, &o.format) < 0 || fvpy_slide_device(dev_o, &o.device) < 0)
        return NULL;
    /* the locations as one contiguous int64 (n, 2) array: handed to C once */
    if (!(np = fvpy_numpy()))
        return NULL;
    arr = PyObject_CallMethod(np, "ascontiguousarray", "Os", loc_o, "int64");
    if (!arr)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(arr, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND) < 0)
        goto done;
    if (view.ndim != 2 || view.shape[1] != 2 || view.itemsize != 8) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "locations must be (n, 2) integer pairs");
        goto done;
    }
    if (!(s = fvpy_slide_get(self))) {
        PyBuffer_Release(&view);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
        st = fv_batch_loader_new(s, (const int64_t *)view.buf, view.shape[0], &o, &l);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    fvpy_Batches *b = PyObject_New(fvpy_Batches, &fvpy_BatchesType);
    if (!b)
        goto done;
    b->count = fv_batch_loader_batch_count(l);
    b->squeeze = squeeze;
    b->l = l;
    l = NULL;
    ret = (PyObject *)b;
done:
    if (l) {
        Py_BEGIN_ALLOW_THREADS
            fv_batch_loader_free(l);
        Py_END_ALLOW_THREADS
    }
    fv_slide_unref(s);
    Py_XDECREF(arr);
    return ret;
}
