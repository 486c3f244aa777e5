/* fovea._fovea.Slide: a Python object over one fv_slide handle (open, levels,
 * properties, associated images, read_region into a fresh NumPy array). Its
 * batches() iterator is in slide-batches.c, the module functions of the
 * process-wide tile cache and format detection in slide-cache.c. The
 * Python faces (fovea.CuImage, fovea.OpenSlide) are built on this in
 * python/fovea/_slide.py.
 *
 * Every library call runs without the GIL. A call takes its own reference to the
 * handle first, so close() from another thread never pulls the handle out from
 * under a read in progress. */
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

/* ---- helpers --------------------------------------------------------------------------- */

/* The handle (borrowed), or NULL with ValueError when closed. */
static fv_slide *
fvpy__slide_open(fvpy_Slide *self)
{
    if (!self->s)
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed slide");
    return self->s;
}

/* A new reference to the handle, or NULL with ValueError when closed. */
fv_slide *
fvpy_slide_get(fvpy_Slide *self)
{
    return fvpy__slide_open(self) ? fv_slide_ref(self->s) : NULL;
}

/* An OSError whose errno says why the file could not be read (FileNotFoundError,
 * PermissionError, IsADirectoryError ...), with the library's message. */
static void
fvpy__raise_open_error(fv_status st, const char *path, PyObject *path_o)
{
    if (st != FV_EIO) {
        fvpy_raise(st);
        return;
    }
    struct stat sb;
    int err = 0;
    if (stat(path, &sb) != 0)
        err = errno;
    else if (S_ISDIR(sb.st_mode))
        err = EISDIR;
    else if (access(path, R_OK) != 0)
        err = errno;
    if (!err) {
        fvpy_raise(st);
        return;
    }
    PyObject *exc = PyObject_CallFunction(PyExc_OSError, "isO", err, fv_error_message(), path_o);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
}

/* An int64 from a Python integer (or integral number: NumPy ints, bool); values
 * that do not fit in 64 bits are a ValueError naming `what`. */
int
fvpy_int64(PyObject *o, const char *what, int64_t *out)
{
    PyObject *i = PyNumber_Index(o);
    if (!i) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be an integer, not %.100s", what, Py_TYPE(o)->tp_name);
        }
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    if (overflow) {
        PyErr_Format(PyExc_ValueError, "%s = %R is out of range", what, i);
        Py_DECREF(i);
        return -1;
    }
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = (int64_t)v;
    return 0;
}

int
fvpy_pixel_format(PyObject *o, fv_pixel_format *out)
{
    if (!o || o == Py_None) {
        *out = FV_PIXEL_RGB;
        return 0;
    }
    const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    if (!s) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "format must be 'rgb', 'rgba' or 'native', not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
    if (!strcasecmp(s, "rgb"))
        *out = FV_PIXEL_RGB;
    else if (!strcasecmp(s, "rgba"))
        *out = FV_PIXEL_RGBA;
    else if (!strcasecmp(s, "native"))
        *out = FV_PIXEL_NATIVE;
    else {
        PyErr_Format(PyExc_ValueError, "format must be 'rgb', 'rgba' or 'native', not %R", o);
        return -1;
    }
    return 0;
}

/* device=None, "cpu", "cuda" or "cuda:N" for the slide reader: a usable device. */
int
fvpy_slide_device(PyObject *o, fv_device *dev)
{
    *dev = (fv_device){ FV_DEVICE_CPU, 0 };
    if (!o || o == Py_None)
        return 0;
    if (fvpy_parse_device(o, dev) < 0)
        return -1;
    if (dev->type == FV_DEVICE_CUDA && dev->id < 0)
        dev->id = 0;
    return dev->type == FV_DEVICE_CUDA ? fvpy_check_device("read_region", *dev) : 0;
}

static PyObject *fvpy__to_numpy(fv_array *out);

/* out (stolen): host memory as NumPy (fvpy__to_numpy), device memory as a
 * fovea.Array (the Python layer hands it on as CuPy / torch). */
PyObject *
fvpy_to_result(fv_array *out)
{
    if (fv_array_device(out).type == FV_DEVICE_CUDA)
        return fvpy_array_new(out, NULL, 0);
    return fvpy__to_numpy(out);
}

/* out (stolen) as a NumPy array sharing its memory, or a fovea.Array without NumPy. */
static PyObject *
fvpy__to_numpy(fv_array *out)
{
    PyObject *arr = fvpy_array_new(out, NULL, 0);
    if (!arr)
        return NULL;
    PyObject *np = fvpy_numpy();
    if (!np)
        return arr;
    PyObject *ret = PyObject_CallMethod(np, "asarray", "O", arr);
    Py_DECREF(arr);
    return ret;
}

static PyObject *
fvpy__level_tuple(const fv_level_info *li)
{
    return Py_BuildValue("(LLdLL)", (long long)li->width, (long long)li->height, li->downsample,
                         (long long)li->tile_width, (long long)li->tile_height);
}

/* ---- the type -------------------------------------------------------------------------- */

static PyObject *
fvpy__slide_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "path", NULL };
    PyObject *path_o, *bytes = NULL, *str = NULL;
    fvpy_Slide *self = NULL;
    fv_slide *s = NULL;
    fv_status st;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Slide", kwlist, &path_o))
        return NULL;
    if (!PyUnicode_FSConverter(path_o, &bytes))
        return NULL;
    const char *path = PyBytes_AS_STRING(bytes);
    if (!(str = PyUnicode_DecodeFSDefault(path)))
        goto done;
    if (!*path) {
        PyErr_SetString(PyExc_FileNotFoundError, "slide: empty path");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
        st = fv_slide_open(path, &s);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy__raise_open_error(st, path, str);
        goto done;
    }
    if (!(self = (fvpy_Slide *)type->tp_alloc(type, 0)))
        goto done;
    self->s = s;
    self->path = str;
    s = NULL;
    str = NULL;
done:
    if (s) {
        Py_BEGIN_ALLOW_THREADS
            fv_slide_unref(s);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(str);
    Py_XDECREF(bytes);
    return (PyObject *)self;
}

static void
fvpy__slide_dealloc(fvpy_Slide *self)
{
    if (self->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)self);
    fv_slide_unref(self->s); /* closes the file when the last reference goes */
    Py_XDECREF(self->path);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
fvpy__slide_close(fvpy_Slide *self, PyObject *unused)
{
    fv_slide *s = self->s;
    self->s = NULL;
    if (s) {
        Py_BEGIN_ALLOW_THREADS
            fv_slide_unref(s);
        Py_END_ALLOW_THREADS
    }
    Py_RETURN_NONE;
}

static PyObject *
fvpy__slide_repr(fvpy_Slide *self)
{
    if (!self->s)
        return PyUnicode_FromFormat("<fovea._fovea.Slide %R (closed)>", self->path);
    return PyUnicode_FromFormat("<fovea._fovea.Slide %R vendor=%s levels=%d>", self->path, fv_slide_vendor(self->s),
                                fv_slide_level_count(self->s));
}

static PyObject *
fvpy__slide_reduce(fvpy_Slide *self, PyObject *unused)
{
    return Py_BuildValue("(O(O))", (PyObject *)Py_TYPE(self), self->path);
}

static PyObject *
fvpy__slide_get_path(fvpy_Slide *self, void *c)
{
    Py_INCREF(self->path);
    return self->path;
}

static PyObject *
fvpy__slide_get_closed(fvpy_Slide *self, void *c)
{
    return PyBool_FromLong(self->s == NULL);
}

static PyObject *
fvpy__slide_get_vendor(fvpy_Slide *self, void *c)
{
    if (!fvpy__slide_open(self))
        return NULL;
    return PyUnicode_FromString(fv_slide_vendor(self->s));
}

static PyObject *
fvpy__slide_get_level_count(fvpy_Slide *self, void *c)
{
    if (!fvpy__slide_open(self))
        return NULL;
    return PyLong_FromLong(fv_slide_level_count(self->s));
}

static PyObject *
fvpy__slide_get_levels(fvpy_Slide *self, void *c)
{
    if (!fvpy__slide_open(self))
        return NULL;
    int n = fv_slide_level_count(self->s);
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        fv_level_info li;
        fv_status st = fv_slide_level_info(self->s, i, &li);
        PyObject *e = st ? fvpy_raise(st) : fvpy__level_tuple(&li);
        if (!e) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, e);
    }
    return t;
}

static PyObject *
fvpy__slide_level_info(fvpy_Slide *self, PyObject *arg)
{
    int64_t level;
    fv_level_info li;
    if (!fvpy__slide_open(self))
        return NULL;
    if (fvpy_int64(arg, "level", &level) < 0)
        return NULL;
    if (level < 0 || level >= fv_slide_level_count(self->s)) {
        PyErr_Format(PyExc_ValueError, "level %lld is out of range (the slide has %d levels)", (long long)level,
                     fv_slide_level_count(self->s));
        return NULL;
    }
    fv_status st = fv_slide_level_info(self->s, (int)level, &li);
    return st ? fvpy_raise(st) : fvpy__level_tuple(&li);
}

static PyObject *
fvpy__slide_get_native_layout(fvpy_Slide *self, void *c)
{
    int samples;
    fv_dtype dt;
    if (!fvpy__slide_open(self))
        return NULL;
    fv_status st = fv_slide_native_layout(self->s, &samples, &dt);
    if (st)
        return fvpy_raise(st);
    return Py_BuildValue("(is)", samples, fv_dtype_name(dt));
}

static PyObject *
fvpy__slide_properties(fvpy_Slide *self, PyObject *unused)
{
    if (!fvpy__slide_open(self))
        return NULL;
    PyObject *d = PyDict_New();
    int n = fv_slide_property_count(self->s);
    for (int i = 0; d && i < n; i++) {
        const char *k = fv_slide_property_name(self->s, i);
        const char *v = k ? fv_slide_property_value(self->s, k) : NULL;
        if (!k || !v)
            continue;
        /* the file's text may hold invalid UTF-8: keep it readable, never fail */
        PyObject *ko = PyUnicode_DecodeUTF8(k, (Py_ssize_t)strlen(k), "replace");
        PyObject *vo = ko ? PyUnicode_DecodeUTF8(v, (Py_ssize_t)strlen(v), "replace") : NULL;
        if (!vo || PyDict_SetItem(d, ko, vo) < 0)
            Py_CLEAR(d);
        Py_XDECREF(ko);
        Py_XDECREF(vo);
    }
    return d;
}

static PyObject *
fvpy__slide_get_metadata_json(fvpy_Slide *self, void *c)
{
    if (!fvpy__slide_open(self))
        return NULL;
    const char *js = fv_slide_metadata_json(self->s);
    return PyUnicode_DecodeUTF8(js, (Py_ssize_t)strlen(js), "replace");
}

static PyObject *
fvpy__slide_associated_names(fvpy_Slide *self, PyObject *unused)
{
    if (!fvpy__slide_open(self))
        return NULL;
    int n = fv_slide_associated_count(self->s);
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *e = PyUnicode_DecodeUTF8(fv_slide_associated_name(self->s, i),
                                           (Py_ssize_t)strlen(fv_slide_associated_name(self->s, i)), "replace");
        if (!e) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, e);
    }
    return t;
}

/* The associated image's name, checked: KeyError when the slide has none such. */
static const char *
fvpy__assoc_name(fvpy_Slide *self, PyObject *name_o)
{
    const char *name = PyUnicode_Check(name_o) ? PyUnicode_AsUTF8(name_o) : NULL;
    if (!name) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "associated image name must be str, not %.100s", Py_TYPE(name_o)->tp_name);
        return NULL;
    }
    int n = fv_slide_associated_count(self->s);
    for (int i = 0; i < n; i++)
        if (!strcmp(fv_slide_associated_name(self->s, i), name))
            return name;
    PyObject *names = fvpy__slide_associated_names(self, NULL);
    if (names) {
        PyObject *msg = PyUnicode_FromFormat("no associated image named %R (the slide has %R)", name_o, names);
        if (msg) {
            PyErr_SetObject(PyExc_KeyError, msg);
            Py_DECREF(msg);
        }
        Py_DECREF(names);
    }
    return NULL;
}

static PyObject *
fvpy__slide_associated_size(fvpy_Slide *self, PyObject *name_o)
{
    int64_t w, h;
    if (!fvpy__slide_open(self))
        return NULL;
    const char *name = fvpy__assoc_name(self, name_o);
    if (!name)
        return NULL;
    fv_status st = fv_slide_associated_size(self->s, name, &w, &h);
    if (st)
        return fvpy_raise(st);
    return Py_BuildValue("(LL)", (long long)w, (long long)h);
}

static PyObject *
fvpy__slide_read_associated(fvpy_Slide *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "name", "format", NULL };
    PyObject *name_o, *fmt_o = NULL, *ret = NULL;
    fv_pixel_format fmt;
    fv_slide *s = NULL;
    fv_array *out = NULL;
    int64_t shape[3], w = 0, h = 0;
    fv_dtype dt;
    fv_status st;
    const char *name;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:read_associated", kwlist, &name_o, &fmt_o))
        return NULL;
    if (fvpy_pixel_format(fmt_o, &fmt) < 0)
        return NULL;
    if (fmt == FV_PIXEL_NATIVE) {
        PyErr_SetString(PyExc_ValueError, "read_associated: format must be 'rgb' or 'rgba'");
        return NULL;
    }
    if (!(s = fvpy_slide_get(self)))
        return NULL;
    if (!(name = fvpy__assoc_name(self, name_o)))
        goto done;
    Py_BEGIN_ALLOW_THREADS
        st = fv_slide_associated_size(s, name, &w, &h);
        if (!st)
            st = fv_slide_region_shape(s, w, h, fmt, shape, &dt);
        if (!st)
            st = fv_array_new(NULL, dt, 3, shape, (fv_device){ FV_DEVICE_CPU, 0 }, &out);
        if (!st)
            st = fv_slide_read_associated(s, name, fmt, out);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    ret = fvpy__to_numpy(out);
    out = NULL;
done:
    fv_array_unref(out);
    fv_slide_unref(s);
    return ret;
}

/* The caller's buffer (read_region's out: cuCIM's buf) imported for the region:
 * writable, C-contiguous, of the region's dtype and byte size, on dev. Sets *into
 * (the import) and *ctx (CUDA: a context on the buffer's producer stream, so the
 * read is ordered after the work that made it). 0 or -1 with an exception set. */
static int
fvpy__slide_into(PyObject *out_o, fv_device dev, fvpy_in *into, fv_context **ctx)
{
    char da[32], db[32];
    if (fvpy_import(out_o, NULL, into) < 0)
        return -1;
    fv_array *a = into->arr;
    if (fv_array_readonly(a) || !fv_array_is_contiguous(a)) {
        PyErr_SetString(PyExc_ValueError, "read_region: buf must be writable and C-contiguous");
        return -1;
    }
    if (!fvpy_same_device(fv_array_device(a), dev)) {
        fvpy_device_error("read_region: buf is on %s but device is %s",
                          fvpy_device_str(fv_array_device(a), da, sizeof da), fvpy_device_str(dev, db, sizeof db));
        return -1;
    }
    return dev.type == FV_DEVICE_CUDA ? fvpy_make_context(dev, into->has_stream ? into->stream : NULL, ctx) : 0;
}

/* out: the region's shape, a view of into's bytes (which must be exactly the region's). */
static fv_status
fvpy__slide_into_view(const fv_array *into, fv_dtype dt, const int64_t shape[3], fv_array **out)
{
    const int64_t n = shape[0] * shape[1] * shape[2];
    if (fv_array_dtype(into) != dt || fv_array_nbytes(into) != n * (int64_t)fv_dtype_size(dt))
        return fv_error_set(FV_EINVAL, "read_region",
                            "buf must hold %lld %s values (the region (%lld, %lld, %lld)); "
                            "it holds %lld %s values",
                            (long long)n, fv_dtype_name(dt), (long long)shape[0], (long long)shape[1],
                            (long long)shape[2], (long long)fv_array_size(into), fv_dtype_name(fv_array_dtype(into)));
    return fv_array_view(into, 3, shape, NULL, 0, out);
}

static PyObject *
fvpy__slide_read_region(fvpy_Slide *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "x",           "y",       "level",  "width", "height", "format",
                              "num_workers", "nocache", "device", "out",   NULL };
    PyObject *x_o, *y_o, *level_o, *w_o, *h_o, *fmt_o = NULL, *dev_o = NULL, *out_o = NULL, *ret = NULL;
    int num_workers = 0, nocache = 0;
    int64_t x, y, level, w, h, shape[3];
    fv_read_options opts = { FV_PIXEL_RGB, 0, 0 };
    fv_slide *s = NULL;
    fv_array *out = NULL;
    fv_context *ctx = NULL;
    fvpy_in into = { 0 };
    fv_dtype dt;
    fv_status st;
    fv_device dev = { FV_DEVICE_CPU, 0 };

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO|OipOO:read_region", kwlist, &x_o, &y_o, &level_o, &w_o, &h_o,
                                     &fmt_o, &num_workers, &nocache, &dev_o, &out_o))
        return NULL;
    if (fvpy_slide_device(dev_o, &dev) < 0)
        return NULL;
    if (fvpy_int64(x_o, "x", &x) < 0 || fvpy_int64(y_o, "y", &y) < 0 || fvpy_int64(level_o, "level", &level) < 0 ||
        fvpy_int64(w_o, "width", &w) < 0 || fvpy_int64(h_o, "height", &h) < 0 ||
        fvpy_pixel_format(fmt_o, &opts.format) < 0)
        return NULL;
    if (num_workers < 0) {
        PyErr_Format(PyExc_ValueError, "num_workers = %d must be >= 0", num_workers);
        return NULL;
    }
    if (level < INT32_MIN || level > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "level %lld is out of range", (long long)level);
        return NULL;
    }
    opts.num_workers = num_workers;
    opts.nocache = nocache;
    if (out_o && out_o != Py_None && fvpy__slide_into(out_o, dev, &into, &ctx) < 0)
        goto done;
    if (!(s = fvpy_slide_get(self)))
        goto done;
    Py_BEGIN_ALLOW_THREADS
        st = fv_slide_region_shape(s, w, h, opts.format, shape, &dt);
        if (!st && (level < 0 || level >= fv_slide_level_count(s)))
            st = fv_error_set(FV_EINVAL, "read_region", "level %lld is out of range (the slide has %d levels)",
                              (long long)level, fv_slide_level_count(s));
        if (!st)
            st = into.arr ? fvpy__slide_into_view(into.arr, dt, shape, &out)
                          : fv_array_new(NULL, dt, 3, shape, dev, &out);
        if (!st)
            st = fv_slide_read_region(s, ctx, x, y, (int)level, w, h, &opts, out);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    if (into.arr) { /* the caller's buffer holds the pixels */
        Py_INCREF(Py_None);
        ret = Py_None;
        goto done;
    }
    ret = fvpy_to_result(out);
    out = NULL;
done:
    fv_array_unref(out);
    fv_slide_unref(s);
    fvpy_in_clear(&into);
    fv_context_free(ctx);
    return ret;
}

static PyObject *
fvpy__slide_enter(fvpy_Slide *self, PyObject *unused)
{
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *
fvpy__slide_exit(fvpy_Slide *self, PyObject *args)
{
    PyObject *r = fvpy__slide_close(self, NULL);
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_FALSE;
}

#define FVPY_KW(fn) (PyCFunction)(void (*)(void))(fn), METH_VARARGS | METH_KEYWORDS

static PyMethodDef fvpy__slide_methods[] = {
    { "read_region", FVPY_KW(fvpy__slide_read_region),
      "read_region(x, y, level, width, height, format='rgb', num_workers=0, nocache=False, device=None,\n"
      "            out=None)\n--\n\n"
      "A new NumPy array of the region: (x, y) in level-0 pixels, width x height pixels of level;\n"
      "with out (an array-like of exactly the region's dtype and bytes, writable, C-contiguous, on\n"
      "device) the pixels go into it and None is returned.\n"
      "format 'rgb': uint8 (h, w, 3), background white; 'rgba': uint8 (h, w, 4), outside the image\n"
      "all zero; 'native': the file's samples and dtype (h, w, S), background 0." },
    { "batches", FVPY_KW(fvpy_slide_batches),
      "batches(locations, level, width, height, format='rgb', batch_size=1, num_workers=0,\n"
      "        prefetch_factor=2, shuffle=False, seed=0, drop_last=False, nocache=False, device=None,\n"
      "        squeeze=False)\n--\n\n"
      "An iterator of (N, height, width, C) NumPy batches of the patches at locations ((n, 2)\n"
      "level-0 (x, y) pairs), read ahead by num_workers threads (0: in the calling thread);\n"
      "squeeze: batches of one as (height, width, C) views." },
    { "read_associated", FVPY_KW(fvpy__slide_read_associated),
      "read_associated(name, format='rgb')\n--\n\nThe associated image as a uint8 (h, w, 3|4) NumPy array." },
    { "associated_names", (PyCFunction)fvpy__slide_associated_names, METH_NOARGS,
      "associated_names()\n--\n\nNames of the associated images (tuple of str)." },
    { "associated_size", (PyCFunction)fvpy__slide_associated_size, METH_O,
      "associated_size(name)\n--\n\n(width, height) of an associated image." },
    { "level_info", (PyCFunction)fvpy__slide_level_info, METH_O,
      "level_info(level)\n--\n\n(width, height, downsample, tile_width, tile_height) of a level." },
    { "properties", (PyCFunction)fvpy__slide_properties, METH_NOARGS,
      "properties()\n--\n\nA dict of the slide's properties (OpenSlide's names)." },
    { "close", (PyCFunction)fvpy__slide_close, METH_NOARGS,
      "close()\n--\n\nRelease the handle (the file closes when no read is using it)." },
    { "__enter__", (PyCFunction)fvpy__slide_enter, METH_NOARGS, NULL },
    { "__exit__", (PyCFunction)fvpy__slide_exit, METH_VARARGS, NULL },
    { "__reduce__", (PyCFunction)fvpy__slide_reduce, METH_NOARGS, "Pickles as the path (re-opened on load)." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef fvpy__slide_getset[] = {
    { "path", (getter)fvpy__slide_get_path, NULL, "the path the slide was opened with", NULL },
    { "closed", (getter)fvpy__slide_get_closed, NULL, "True after close()", NULL },
    { "vendor", (getter)fvpy__slide_get_vendor, NULL, "the format: 'aperio', 'generic-tiff', ...", NULL },
    { "level_count", (getter)fvpy__slide_get_level_count, NULL, "number of pyramid levels", NULL },
    { "levels", (getter)fvpy__slide_get_levels, NULL,
      "tuple of (width, height, downsample, tile_width, tile_height), one per level", NULL },
    { "native_layout", (getter)fvpy__slide_get_native_layout, NULL,
      "(samples per pixel, dtype name) of the file's pixels", NULL },
    { "metadata_json", (getter)fvpy__slide_get_metadata_json, NULL, "the slide described as JSON text", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject fvpy_SlideType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fovea._fovea.Slide",
    .tp_basicsize = sizeof(fvpy_Slide),
    .tp_dealloc = (destructor)fvpy__slide_dealloc,
    .tp_repr = (reprfunc)fvpy__slide_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Slide(path)\n--\n\n"
              "A whole-slide image handle (tiled pyramidal TIFF/BigTIFF, Aperio SVS, Philips TIFF,\n"
              "OME-TIFF). Safe to use from many threads at once; the first error caused by the file\n"
              "sticks and every later read fails with it.",
    .tp_weaklistoffset = offsetof(fvpy_Slide, weakrefs),
    .tp_methods = fvpy__slide_methods,
    .tp_getset = fvpy__slide_getset,
    .tp_new = fvpy__slide_new,
};

int
fvpy_slide_init(PyObject *m)
{
    if (PyType_Ready(&fvpy_SlideType) < 0 || PyType_Ready(&fvpy_BatchesType) < 0)
        return -1;
    return fvpy_add_object(m, "Slide", (PyObject *)&fvpy_SlideType);
}
