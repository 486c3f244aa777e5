/* fovea.filesystem's C side: the CuFileDriver type over an fv_file, and the
 * module functions behind python/fovea/filesystem.py (cuCIM's
 * cucim.clara.filesystem).
 *
 * Buffers: anything fovea.asarray imports (buffer protocol, __array_interface__,
 * __cuda_array_interface__, DLPack), C-contiguous. I/O runs without the GIL; a
 * close() while another thread's pread/pwrite is running takes effect when that
 * call returns (the busy count), so the fv_file is never freed under a call. */
#include "array.h" /* Python.h first */
#include <limits.h>
#include <string.h>
#include "errors.h"

typedef struct fvpy_File {
    PyObject_HEAD fv_file *f;
    int busy;    /* calls running without the GIL */
    int closing; /* close() was called */
} fvpy_File;

static PyTypeObject fvpy_FileType;

static PyObject *
fvpy_file_new_object(fv_file *f)
{
    fvpy_File *self = PyObject_New(fvpy_File, &fvpy_FileType);
    if (!self) {
        fv_file_close(f);
        return NULL;
    }
    self->f = f;
    self->busy = 0;
    self->closing = 0;
    return (PyObject *)self;
}

static int
fvpy_file_usable(fvpy_File *self)
{
    if (!self->f || self->closing) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on closed file");
        return 0;
    }
    return 1;
}

/* Close now if close() was asked for and no call is running. 0 or -1. */
static int
fvpy_file_close_if_idle(fvpy_File *self)
{
    fv_file *f = self->f;
    fv_status st;
    if (!self->closing || self->busy || !f)
        return 0;
    self->f = NULL;
    Py_BEGIN_ALLOW_THREADS
        st = fv_file_close(f);
    Py_END_ALLOW_THREADS
    if (st != FV_OK) {
        fvpy_raise(st);
        return -1;
    }
    return 0;
}

/* ---- construction --------------------------------------------------------------- */

static PyObject *
fvpy_file_tp_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "fd", "no_gds", "use_mmap", "file_path", NULL };
    int fd = -1, no_gds = 0, use_mmap = 0;
    PyObject *path_obj = NULL, *path_bytes = NULL, *ret = NULL;
    const char *path = NULL;
    fv_file *f = NULL;
    fv_status st;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|ppO:CuFileDriver", kwlist, &fd, &no_gds, &use_mmap, &path_obj))
        return NULL;
    (void)use_mmap; /* accepted for cuCIM: reads go through pread here */
    if (path_obj && path_obj != Py_None) {
        if (!PyUnicode_FSConverter(path_obj, &path_bytes))
            return NULL;
        path = PyBytes_AS_STRING(path_bytes);
    }
    Py_BEGIN_ALLOW_THREADS
        st = fv_file_from_fd(fd, no_gds, path, &f);
    Py_END_ALLOW_THREADS
    if (st != FV_OK) {
        fvpy_raise(st);
        goto done;
    }
    ret = type->tp_alloc(type, 0);
    if (!ret) {
        (void)fv_file_close(f);
        goto done;
    }
    ((fvpy_File *)ret)->f = f;
done:
    Py_XDECREF(path_bytes);
    return ret;
}

static PyObject *
fvpy_fs_open(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "file_path", "flags", "mode", NULL };
    PyObject *path_bytes = NULL;
    const char *flags = "r";
    unsigned int mode = 0644;
    fv_file *f = NULL;
    fv_status st;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|sI:open", kwlist, PyUnicode_FSConverter, &path_bytes, &flags, &mode))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
        st = fv_file_open(PyBytes_AS_STRING(path_bytes), flags, mode, &f);
    Py_END_ALLOW_THREADS
    Py_DECREF(path_bytes);
    if (st != FV_OK)
        return fvpy_raise(st);
    return fvpy_file_new_object(f);
}
FVPY_METHOD(fs_open, fvpy_fs_open, FVPY_KWARGS,
            "fs_open(file_path, flags='r', mode=0o644)\n--\n\nOpen a file as a CuFileDriver (fv_file_open).");

static void
fvpy_file_dealloc(fvpy_File *self)
{
    if (self->f)
        (void)fv_file_close(self->f); /* busy is 0: a running call holds a reference */
    self->f = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ---- pread / pwrite ---------------------------------------------------------------- */

/* A non-negative Python int as an unsigned 64-bit value; ValueError / TypeError. */
static int
fvpy_nonneg(PyObject *o, const char *name, unsigned long long *out)
{
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(o)->tp_name);
        return -1;
    }
    int over = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &over);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (over < 0 || (!over && v < 0)) {
        PyErr_Format(PyExc_ValueError, "%s must be >= 0, got %R", name, o);
        return -1;
    }
    if (over > 0) {
        PyErr_Format(PyExc_ValueError, "%s is too large: %R", name, o);
        return -1;
    }
    *out = (unsigned long long)v;
    return 0;
}

static PyObject *
fvpy_file_io(fvpy_File *self, PyObject *args, PyObject *kw, int write)
{
    static char *kwlist[] = { "buf", "count", "file_offset", "buf_offset", NULL };
    const char *what = write ? "pwrite" : "pread";
    PyObject *buf_obj, *count_obj, *foff_obj, *boff_obj = NULL, *ret = NULL;
    unsigned long long count, foff, boff = 0;
    fvpy_in in = { 0 };
    fv_context *ctx = NULL;
    fv_status st = FV_OK;
    size_t done = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kw, write ? "OOO|O:pwrite" : "OOO|O:pread", kwlist, &buf_obj, &count_obj,
                                     &foff_obj, &boff_obj))
        return NULL;
    if (!fvpy_file_usable(self))
        return NULL;
    if (fvpy_nonneg(count_obj, "count", &count) < 0 || fvpy_nonneg(foff_obj, "file_offset", &foff) < 0 ||
        (boff_obj && boff_obj != Py_None && fvpy_nonneg(boff_obj, "buf_offset", &boff) < 0))
        return NULL;
    if (fvpy_import(buf_obj, NULL, &in) < 0)
        return NULL;
    if (!fv_array_is_contiguous(in.arr)) {
        PyErr_Format(PyExc_ValueError, "%s: buf must be C-contiguous", what);
        goto done;
    }
    if (!write && fv_array_readonly(in.arr)) {
        PyErr_Format(PyExc_ValueError, "%s: buf is read-only", what);
        goto done;
    }
    unsigned long long nbytes = (unsigned long long)fv_array_nbytes(in.arr);
    if (boff > nbytes || count > nbytes - boff) {
        PyErr_Format(PyExc_ValueError, "%s: count (%llu) + buf_offset (%llu) exceeds the buffer's %llu bytes", what,
                     count, boff, nbytes);
        goto done;
    }
    fv_device dev = fv_array_device(in.arr);
    char *ptr = (char *)fv_array_data(in.arr) + boff;
    if (dev.type == FV_DEVICE_CUDA && fvpy_check_device(what, dev) < 0)
        goto done;
    /* data produced on a stream other than the legacy default one: wait for it
     * (the I/O itself is ordered after legacy-default-stream work) */
    if (dev.type == FV_DEVICE_CUDA && in.has_stream && in.stream) {
        if (fvpy_make_context(dev, in.stream, &ctx) < 0)
            goto done;
        Py_BEGIN_ALLOW_THREADS
            st = fv_context_synchronize(ctx);
        Py_END_ALLOW_THREADS
        if (st != FV_OK) {
            fvpy_raise(st);
            goto done;
        }
    }
    if (!fvpy_file_usable(self)) /* closed meanwhile (by __dlpack__ code or another thread) */
        goto done;
    fv_file *f = self->f;
    self->busy++;
    Py_BEGIN_ALLOW_THREADS
        st = write ? fv_file_pwrite(f, ptr, dev, (size_t)count, foff, &done)
                   : fv_file_pread(f, ptr, dev, (size_t)count, foff, &done);
    Py_END_ALLOW_THREADS
    self->busy--;
    if (st != FV_OK)
        fvpy_raise(st);
    else
        ret = PyLong_FromSize_t(done);
    if (fvpy_file_close_if_idle(self) < 0)
        Py_CLEAR(ret);
done:
    if (ctx)
        fv_context_free(ctx);
    fvpy_in_clear(&in);
    return ret;
}

static PyObject *
fvpy_file_pread(fvpy_File *self, PyObject *args, PyObject *kw)
{
    return fvpy_file_io(self, args, kw, 0);
}

static PyObject *
fvpy_file_pwrite(fvpy_File *self, PyObject *args, PyObject *kw)
{
    return fvpy_file_io(self, args, kw, 1);
}

static PyObject *
fvpy_file_close(fvpy_File *self, PyObject *unused)
{
    if (self->f && !self->closing) {
        self->closing = 1;
        if (fvpy_file_close_if_idle(self) < 0)
            return NULL;
    }
    Py_RETURN_TRUE;
}

static PyObject *
fvpy_file_fileno(fvpy_File *self, PyObject *unused)
{
    if (!fvpy_file_usable(self))
        return NULL;
    return PyLong_FromLong(fv_file_fd(self->f));
}

static PyObject *
fvpy_file_enter(fvpy_File *self, PyObject *unused)
{
    if (!fvpy_file_usable(self))
        return NULL;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *
fvpy_file_exit(fvpy_File *self, PyObject *args)
{
    PyObject *r = fvpy_file_close(self, NULL);
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_NONE; /* exceptions propagate */
}

static PyObject *
fvpy_file_repr(fvpy_File *self)
{
    if (!self->f || self->closing)
        return PyUnicode_FromString("<fovea.filesystem.CuFileDriver (closed)>");
    return PyUnicode_FromFormat("<fovea.filesystem.CuFileDriver path:%s backend:%s%s>", fv_file_path(self->f),
                                fv_file_backend(self->f), fv_file_direct(self->f) ? " O_DIRECT" : "");
}

static PyObject *
fvpy_file_get_closed(fvpy_File *self, void *c)
{
    return PyBool_FromLong(!self->f || self->closing);
}

static PyObject *
fvpy_file_get_path(fvpy_File *self, void *c)
{
    if (!fvpy_file_usable(self))
        return NULL;
    return PyUnicode_DecodeFSDefault(fv_file_path(self->f));
}

static PyObject *
fvpy_file_get_backend(fvpy_File *self, void *c)
{
    if (!fvpy_file_usable(self))
        return NULL;
    return PyUnicode_FromString(fv_file_backend(self->f));
}

static PyObject *
fvpy_file_get_direct(fvpy_File *self, void *c)
{
    if (!fvpy_file_usable(self))
        return NULL;
    return PyBool_FromLong(fv_file_direct(self->f));
}

#define FVPY_KW(fn) (PyCFunction)(void (*)(void))(fn), METH_VARARGS | METH_KEYWORDS

static PyMethodDef fvpy_file_methods[] = {
    { "pread", FVPY_KW(fvpy_file_pread),
      "pread(buf, count, file_offset, buf_offset=0)\n--\n\n"
      "Read up to count bytes at file_offset into buf starting at byte buf_offset; returns the\n"
      "number of bytes read (fewer only at end of file). buf: a writable C-contiguous host or\n"
      "CUDA array (NumPy, CuPy, PyTorch, DLPack, bytearray, memoryview). The call returns when\n"
      "the bytes are in buf." },
    { "pwrite", FVPY_KW(fvpy_file_pwrite),
      "pwrite(buf, count, file_offset, buf_offset=0)\n--\n\n"
      "Write count bytes from buf (from byte buf_offset) at file_offset; returns count." },
    { "close", (PyCFunction)fvpy_file_close, METH_NOARGS,
      "close()\n--\n\nClose the file (again: no-op); returns True." },
    { "fileno", (PyCFunction)fvpy_file_fileno, METH_NOARGS, "fileno()\n--\n\nThe file descriptor." },
    { "__enter__", (PyCFunction)fvpy_file_enter, METH_NOARGS, NULL },
    { "__exit__", (PyCFunction)fvpy_file_exit, METH_VARARGS, NULL },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef fvpy_file_getset[] = {
    { "closed", (getter)fvpy_file_get_closed, NULL, "True after close().", NULL },
    { "path", (getter)fvpy_file_get_path, NULL, "The path the file was opened with.", NULL },
    { "backend", (getter)fvpy_file_get_backend, NULL,
      "How device buffers are served: 'cufile' (GPUDirect Storage), 'cufile-compat' (cuFile's\n"
      "compatibility mode) or 'posix' (pinned host buffers).",
      NULL },
    { "direct", (getter)fvpy_file_get_direct, NULL, "True when the file is open with O_DIRECT.", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject fvpy_FileType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fovea.filesystem.CuFileDriver",
    .tp_basicsize = sizeof(fvpy_File),
    .tp_dealloc = (destructor)fvpy_file_dealloc,
    .tp_repr = (reprfunc)fvpy_file_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CuFileDriver(fd, no_gds=False, use_mmap=False, file_path='')\n--\n\n"
              "An open file for pread / pwrite into host or device buffers (cuCIM's\n"
              "cucim.clara.filesystem.CuFileDriver). Takes ownership of fd: close() closes it.\n"
              "no_gds: never use cuFile. use_mmap: accepted for cuCIM, reads use pread.\n"
              "Usually made by fovea.filesystem.open(); a context manager.",
    .tp_methods = fvpy_file_methods,
    .tp_getset = fvpy_file_getset,
    .tp_new = fvpy_file_tp_new,
};

/* ---- module functions ---------------------------------------------------------------- */

static PyObject *
fvpy_fs_discard_page_cache(PyObject *self, PyObject *arg)
{
    PyObject *path_bytes = NULL;
    fv_status st;
    if (!PyUnicode_FSConverter(arg, &path_bytes))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
        st = fv_file_discard_page_cache(PyBytes_AS_STRING(path_bytes));
    Py_END_ALLOW_THREADS
    Py_DECREF(path_bytes);
    if (st != FV_OK)
        return fvpy_raise(st);
    Py_RETURN_TRUE;
}
FVPY_METHOD(fs_discard_page_cache, fvpy_fs_discard_page_cache, METH_O,
            "fs_discard_page_cache(file_path)\n--\n\nfdatasync, then drop the file's pages from the page cache; True.");

FVPY_NOARGS_CALL(fvpy_fs_is_gds_available, int, fv_gds_available(), PyBool_FromLong)
FVPY_METHOD(fs_is_gds_available, fvpy_fs_is_gds_available, METH_NOARGS,
            "fs_is_gds_available()\n--\n\nTrue when cuFile runs in true GPUDirect Storage mode.");

FVPY_NOARGS_CALL(fvpy_fs_gds_status, const char *, fv_gds_status(), PyUnicode_FromString)
FVPY_METHOD(
    fs_gds_status, fvpy_fs_gds_status, METH_NOARGS,
    "fs_gds_status()\n--\n\nThe cuFile driver's state as one line ('gds: ...', 'compat: ...', 'unavailable: ...').");

int
fvpy_filesystem_init(PyObject *m)
{
    if (PyType_Ready(&fvpy_FileType) < 0)
        return -1;
    return fvpy_add_object(m, "CuFileDriver", (PyObject *)&fvpy_FileType);
}
