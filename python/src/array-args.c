/* fovea.Array's small helpers (the numpy module, device names), the dtype
 * conversions shared by the import protocols, and the argument parsers every
 * binding uses (dtype, device, stream, context). */
#include "array-internal.h" /* Python.h first */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "errors.h"

const char *const fvpy_supported =
    "fovea supports bool, uint8, uint16, uint32, uint64, int8, int16, int32, int64, float32, float64";

/* ---- small helpers ---------------------------------------------------------- */

static PyObject *fvpy__np;
static int fvpy__np_tried;

PyObject *
fvpy_numpy(void)
{
    if (!fvpy__np_tried) {
        fvpy__np_tried = 1;
        fvpy__np = PyImport_ImportModule("numpy");
        if (!fvpy__np)
            PyErr_Clear();
    }
    return fvpy__np;
}

const char *
fvpy_device_str(fv_device dev, char *buf, size_t cap)
{
    if (dev.type == FV_DEVICE_CUDA)
        snprintf(buf, cap, "cuda:%d", dev.id);
    else
        snprintf(buf, cap, "cpu");
    return buf;
}

int
fvpy_same_device(fv_device a, fv_device b)
{
    return a.type == b.type && (a.type == FV_DEVICE_CPU || a.id == b.id);
}

/* The typestr of dt in native byte order ("<f4", "|u1"). */
const char *
fvpy_typestr(fv_dtype dt, char *buf, size_t cap)
{
    size_t sz = fv_dtype_size(dt);
    char kind = dt == FV_BOOL ? 'b' : fv_dtype_is_float(dt) ? 'f' : fv_dtype_is_signed(dt) ? 'i' : 'u';
    snprintf(buf, cap, "%c%c%d", sz == 1 ? '|' : FVPY_NATIVE_ORDER, kind, (int)sz);
    return buf;
}

/* A readable name for a kind/size pair that fovea does not support. */
static void
fvpy__kind_name(char kind, Py_ssize_t size, char *buf, size_t cap)
{
    int bits = (int)(size * 8);
    switch (kind) {
    case 'b':
        snprintf(buf, cap, "bool (%d bytes)", (int)size);
        break;
    case 'i':
        snprintf(buf, cap, "int%d", bits);
        break;
    case 'u':
        snprintf(buf, cap, "uint%d", bits);
        break;
    case 'f':
        if (size == 2)
            snprintf(buf, cap, "float16");
        else if (size > 8)
            snprintf(buf, cap, "longdouble (float%d)", bits);
        else
            snprintf(buf, cap, "float%d", bits);
        break;
    case 'c':
        snprintf(buf, cap, "complex%d", bits);
        break;
    case 'O':
        snprintf(buf, cap, "object");
        break;
    case 'S':
        snprintf(buf, cap, "bytes (S%d)", (int)size);
        break;
    case 'U':
        snprintf(buf, cap, "str (U%d)", (int)(size / 4));
        break;
    case 'V':
        snprintf(buf, cap, "structured/void (V%d)", (int)size);
        break;
    case 'M':
        snprintf(buf, cap, "datetime64");
        break;
    case 'm':
        snprintf(buf, cap, "timedelta64");
        break;
    default:
        snprintf(buf, cap, "'%c' of %d bytes", kind, (int)size);
        break;
    }
}

int
fvpy_unsupported_dtype(const char *what, const char *name)
{
    PyErr_Format(PyExc_TypeError, "%s: unsupported dtype %s (%s)", what, name, fvpy_supported);
    return -1;
}

/* NumPy kind character and item size -> fv_dtype; TypeError naming the dtype. */
int
fvpy_dtype_from_kind(const char *what, char kind, Py_ssize_t size, fv_dtype *out)
{
    static const fv_dtype ints[] = { FV_INT8, FV_INT16, FV_INT32, FV_INT64 };
    static const fv_dtype uints[] = { FV_UINT8, FV_UINT16, FV_UINT32, FV_UINT64 };
    int lg = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
    if (kind == 'b' && size == 1) {
        *out = FV_BOOL;
        return 0;
    }
    if (kind == 'i' && lg >= 0) {
        *out = ints[lg];
        return 0;
    }
    if (kind == 'u' && lg >= 0) {
        *out = uints[lg];
        return 0;
    }
    if (kind == 'f' && (size == 4 || size == 8)) {
        *out = size == 4 ? FV_FLOAT32 : FV_FLOAT64;
        return 0;
    }
    char name[64];
    fvpy__kind_name(kind, size, name, sizeof name);
    return fvpy_unsupported_dtype(what, name);
}

/* "<f4", "|b1", ">i2" ... -> fv_dtype. */
int
fvpy_dtype_from_typestr(const char *what, const char *ts, fv_dtype *out)
{
    if (strlen(ts) < 2)
        goto bad;
    char order = ts[0], kind = ts[1];
    char *end = NULL;
    long size = strtol(ts + 2, &end, 10);
    if (order != '<' && order != '>' && order != '|' && order != '=')
        goto bad;
    if (end == ts + 2 && !strchr("O", kind))
        goto bad;
    if (kind == 'O')
        size = (long)sizeof(void *);
    if (kind == 'U')
        size *= 4; /* typestr counts UCS4 characters */
    if (order == FVPY_SWAPPED_ORDER && size > 1 && strchr("biuf", kind)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: byte-swapped data (typestr '%s') is not supported; "
                     "convert it to native byte order first (e.g. x.astype(x.dtype.newbyteorder('=')))",
                     what, ts);
        return -1;
    }
    if (kind == 'V' || (end && *end && *end != '[')) {
        char name[96];
        snprintf(name, sizeof name, "'%s'", ts);
        return fvpy_unsupported_dtype(what, kind == 'V' ? "structured/void" : name);
    }
    return fvpy_dtype_from_kind(what, kind, size, out);
bad:
    PyErr_Format(PyExc_ValueError, "%s: malformed typestr '%s'", what, ts);
    return -1;
}

/* A PEP 3118 format with the buffer's itemsize -> fv_dtype. */
int
fvpy_dtype_from_format(const char *what, const char *fmt, Py_ssize_t itemsize, fv_dtype *out)
{
    const char *f = fmt ? fmt : "B";
    char kind;
    int swapped = 0;
    if (*f == '@' || *f == '=') {
        f++;
    } else if (*f == '<' || *f == '>' || *f == '!') {
        swapped = *f != FVPY_NATIVE_ORDER;
        f++;
    }
    int counted = 0;
    while (*f >= '0' && *f <= '9') { /* a repeat count: "5s" (bytes), "3w" (str), "2i" (subarray) */
        f++;
        counted = 1;
    }
    switch (*f) {
    case '?':
        kind = 'b';
        break;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
    case 'n':
        kind = 'i';
        break;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
    case 'N':
        kind = 'u';
        break;
    case 'e':
    case 'f':
    case 'd':
    case 'g':
        kind = 'f';
        break;
    case 'Z':
        kind = 'c';
        break;
    case 'O':
        kind = 'O';
        break;
    case 'w':
        kind = 'U';
        break;
    case 'c':
    case 's':
    case 'p':
        kind = 'S';
        break;
    case 'P':
        kind = 'u';
        break;
    default:
        kind = 'V';
        break; /* 'T{...}', repeat counts, padding, ... */
    }
    /* one code only: anything after it (other than Z's letter) is a record */
    const char *rest = f + (*f ? 1 : 0) + (kind == 'c' && f[1] ? 1 : 0);
    if (kind != 'V' && (*rest || (counted && kind != 'S' && kind != 'U')))
        kind = 'V';
    if (kind == 'V' || kind == 'S' || kind == 'U' || kind == 'O' || kind == 'c') {
        char name[128];
        if (kind == 'V')
            snprintf(name, sizeof name, "structured/void (buffer format '%.60s')", fmt);
        else
            fvpy__kind_name(kind, itemsize, name, sizeof name);
        return fvpy_unsupported_dtype(what, name);
    }
    if (swapped && itemsize > 1) {
        PyErr_Format(PyExc_TypeError,
                     "%s: byte-swapped data (buffer format '%s') is not supported; "
                     "convert it to native byte order first",
                     what, fmt);
        return -1;
    }
    return fvpy_dtype_from_kind(what, kind, itemsize, out);
}

int
fvpy_check_ndim(const char *what, Py_ssize_t ndim)
{
    if (ndim < 0 || ndim > FV_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "%s: %zd dimensions exceed fovea's maximum of %d", what, ndim, FV_MAX_NDIM);
        return -1;
    }
    return 0;
}

int
fvpy_check_data(const char *what, const void *data, int ndim, const int64_t *shape)
{
    int empty = 0;
    for (int i = 0; i < ndim; i++)
        empty |= shape[i] == 0;
    if (!data && !empty) {
        PyErr_Format(PyExc_ValueError,
                     "%s: the data pointer is NULL but the array is not empty "
                     "(a freed or invalid buffer?)",
                     what);
        return -1;
    }
    return 0;
}

/* ---- argument parsers ------------------------------------------------------------------- */

int
fvpy_parse_dtype(PyObject *o, fv_dtype *out)
{
    PyObject *np, *d = NULL, *name = NULL, *order = NULL;
    int r = -1;
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s)
            return -1;
        if (fv_dtype_from_name(s, out) == FV_OK)
            return 0;
        fv_error_clear();
    } else if (o == (PyObject *)&PyBool_Type) {
        *out = FV_BOOL;
        return 0;
    } else if (o == (PyObject *)&PyLong_Type) {
        *out = FV_INT64;
        return 0;
    } else if (o == (PyObject *)&PyFloat_Type) {
        *out = FV_FLOAT64;
        return 0;
    }
    /* NumPy dtypes and scalar types seen before: numpy.dtype(o) and its name
     * and byteorder cost ~2.5 us a call */
    static PyObject *cache; /* {o: fv_dtype}, successes only, at most 64 entries */
    PyObject *hit = cache ? PyDict_GetItemWithError(cache, o) : NULL;
    if (hit) {
        *out = (fv_dtype)PyLong_AsLong(hit);
        return 0;
    }
    if (PyErr_Occurred())
        PyErr_Clear(); /* unhashable: the long way */
    if (!(np = fvpy_numpy())) {
        PyErr_Format(PyExc_TypeError, "unsupported dtype %R (%s)", o, fvpy_supported);
        return -1;
    }
    if (!(d = PyObject_CallMethod(np, "dtype", "O", o)))
        goto done;
    if (!(order = PyObject_GetAttrString(d, "byteorder")) || !(name = PyObject_GetAttrString(d, "name")))
        goto done;
    const char *ord = PyUnicode_AsUTF8(order), *nm = PyUnicode_AsUTF8(name);
    if (!ord || !nm)
        goto done;
    if (ord[0] == FVPY_SWAPPED_ORDER) {
        PyErr_Format(PyExc_TypeError, "byte-swapped dtype %R is not supported", d);
        goto done;
    }
    if (fv_dtype_from_name(nm, out) != FV_OK) {
        fv_error_clear();
        fvpy_unsupported_dtype("dtype", nm);
        goto done;
    }
    r = 0;
    if (!cache)
        cache = PyDict_New();
    if (cache && PyDict_GET_SIZE(cache) < 64) {
        PyObject *v = PyLong_FromLong((long)*out);
        if (!v || PyDict_SetItem(cache, o, v) < 0)
            PyErr_Clear();
        Py_XDECREF(v);
    }
done:
    Py_XDECREF(order);
    Py_XDECREF(name);
    Py_XDECREF(d);
    return r;
}

int
fvpy_parse_device(PyObject *o, fv_device *out)
{
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s)
            return -1;
        if (!strcmp(s, "cpu")) {
            *out = (fv_device){ FV_DEVICE_CPU, 0 };
            return 0;
        }
        if (!strcmp(s, "cuda") || !strcmp(s, "gpu")) {
            *out = (fv_device){ FV_DEVICE_CUDA, -1 };
            return 0;
        }
        if (!strncmp(s, "cuda:", 5) && s[5] >= '0' && s[5] <= '9') {
            char *end;
            long id = strtol(s + 5, &end, 10);
            if (!*end && id <= INT32_MAX) {
                *out = (fv_device){ FV_DEVICE_CUDA, (int)id };
                return 0;
            }
        }
    } else if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2) {
        long type = PyLong_AsLong(PyTuple_GET_ITEM(o, 0)), id = PyLong_AsLong(PyTuple_GET_ITEM(o, 1));
        if (PyErr_Occurred())
            return -1;
        if ((type == kDLCPU || type == kDLCUDAHost) && id >= 0) {
            *out = (fv_device){ FV_DEVICE_CPU, 0 };
            return 0;
        }
        if (type == kDLCUDA && id >= 0 && id <= INT32_MAX) {
            *out = (fv_device){ FV_DEVICE_CUDA, (int)id };
            return 0;
        }
    } else if (!PyTuple_Check(o)) {
        PyErr_Format(PyExc_TypeError, "device must be 'cpu', 'cuda' or 'cuda:N', not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
    PyErr_Format(PyExc_ValueError, "unknown device %R (use 'cpu', 'cuda' or 'cuda:N')", o);
    return -1;
}

int
fvpy_check_device(const char *what, fv_device dev)
{
    int avail, count;
    if (dev.type != FV_DEVICE_CUDA)
        return 0;
    Py_BEGIN_ALLOW_THREADS
        avail = fv_cuda_available();
        count = avail ? fv_cuda_device_count() : 0;
    Py_END_ALLOW_THREADS
    if (!avail) {
        fvpy_device_error("%s: device cuda:%d requested but CUDA is unavailable: %s", what, dev.id < 0 ? 0 : dev.id,
                          fv_cuda_unavailable_reason());
        return -1;
    }
    if (dev.id >= count) {
        fvpy_device_error("%s: device cuda:%d does not exist (%d CUDA device%s found)", what, dev.id, count,
                          count == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

int
fvpy_parse_stream(PyObject *o, void **stream)
{
    *stream = NULL;
    if (!o || o == Py_None)
        return 0;
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "stream must be an int (a cudaStream_t) or None, not %.100s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "stream must be a cudaStream_t value >= 0, got %R", o);
        return -1;
    }
    *stream = v <= 1 ? NULL : (void *)(uintptr_t)v;
    return 0;
}

int
fvpy_make_context(fv_device dev, void *stream, fv_context **ctx)
{
    fv_context *c = NULL;
    fv_status st;
    *ctx = NULL;
    if (dev.type != FV_DEVICE_CUDA)
        return 0;
    if ((st = fv_context_new(&c))) {
        fvpy_raise(st);
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
        st = fv_context_set_cuda(c, dev.id, stream);
    Py_END_ALLOW_THREADS
    if (st) {
        fv_context_free(c);
        fvpy_raise(st);
        return -1;
    }
    *ctx = c;
    return 0;
}

int
fvpy_sync_input(fv_context *ctx, const fvpy_in *in, void *stream)
{
    fv_status st;
    if (!ctx || !in->arr || !in->has_stream || in->stream == stream || fv_array_device(in->arr).type != FV_DEVICE_CUDA)
        return 0;
    Py_BEGIN_ALLOW_THREADS
        st = fv_cuda_stream_wait(ctx, in->stream, stream);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        return -1;
    }
    return 0;
}
