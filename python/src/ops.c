/* Bindings of the core operations: astype, add, multiply, copy, to_device.
 * Each imports its inputs without copying, allocates the output on the inputs'
 * device (or the target device), runs the library call without the GIL and
 * returns a fovea.Array; the Python layer turns it into the caller's array type. */
#include "array.h"
#include "errors.h"

static PyObject *
fvpy_astype(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "x", "dtype", "stream", NULL };
    PyObject *x_o, *dtype_o, *stream_o = Py_None;
    fv_array *out = NULL;
    fv_dtype dt;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:astype", kwlist, &x_o, &dtype_o, &stream_o))
        return NULL;
    if (fvpy_parse_dtype(dtype_o, &dt) < 0)
        return NULL;
    if (fvpy_call_open(&c, "astype", stream_o, x_o, NULL, NULL, NULL, 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fvpy_call_new(&c, dt, fv_array_ndim(c.in.arr), NULL, &out);
            if (st == FV_OK)
                st = fv_astype(c.ctx, c.in.arr, out);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(astype, fvpy_astype, FVPY_KWARGS,
            "astype(x, dtype, stream=None)\n--\n\nx converted to dtype (NumPy casts; float -> int saturates, "
            "NaN -> 0).");

typedef fv_status (*fvpy_binop_fn)(fv_context *, const fv_array *, const fv_array *, fv_array *);

static PyObject *
fvpy__binop(const char *name, fvpy_binop_fn fn, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "a", "b", "dtype", "stream", NULL };
    PyObject *a_o, *b_o, *dtype_o = Py_None, *stream_o = Py_None, *ret = NULL;
    fvpy_in a = { 0 }, b = { 0 };
    fv_array *out = NULL;
    fv_context *ctx = NULL;
    int64_t shape[FV_MAX_NDIM];
    int ndim;
    fv_device dev;
    fv_dtype dt;
    void *stream;
    fv_status st;
    char fmt[16];

    snprintf(fmt, sizeof fmt, "OO|OO:%s", name);
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &a_o, &b_o, &dtype_o, &stream_o))
        return NULL;
    if ((dtype_o != Py_None && fvpy_parse_dtype(dtype_o, &dt) < 0) || fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (fvpy_import(a_o, stream, &a) < 0 || fvpy_import(b_o, stream, &b) < 0)
        goto done;
    dev = fv_array_device(a.arr);
    if (!fvpy_same_device(dev, fv_array_device(b.arr))) {
        char da[32], db[32];
        fvpy_device_error("%s: the inputs are on different devices (%s and %s); move one with "
                          "fovea.to_device",
                          name, fvpy_device_str(dev, da, sizeof da),
                          fvpy_device_str(fv_array_device(b.arr), db, sizeof db));
        goto done;
    }
    if (dtype_o == Py_None)
        dt = fv_dtype_promote(fv_array_dtype(a.arr), fv_array_dtype(b.arr));
    st = fv_broadcast_shapes(fv_array_ndim(a.arr), fv_array_shape(a.arr), fv_array_ndim(b.arr), fv_array_shape(b.arr),
                             &ndim, shape);
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    if (fvpy_make_context(dev, stream, &ctx) < 0 || fvpy_sync_input(ctx, &a, stream) < 0 ||
        fvpy_sync_input(ctx, &b, stream) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
        st = fv_array_new(ctx, dt, ndim, shape, dev, &out);
        if (st == FV_OK)
            st = fn(ctx, a.arr, b.arr, out);
    Py_END_ALLOW_THREADS
    ret = fvpy_result(st, out, stream);
done:
    fvpy_in_clear(&a);
    fvpy_in_clear(&b);
    fv_context_free(ctx);
    return ret;
}

static PyObject *
fvpy_add(PyObject *self, PyObject *args, PyObject *kw)
{
    return fvpy__binop("add", fv_add, args, kw);
}
FVPY_METHOD(add, fvpy_add, FVPY_KWARGS,
            "add(a, b, dtype=None, stream=None)\n--\n\na + b with NumPy broadcasting and promotion.");

static PyObject *
fvpy_multiply(PyObject *self, PyObject *args, PyObject *kw)
{
    return fvpy__binop("multiply", fv_multiply, args, kw);
}
FVPY_METHOD(multiply, fvpy_multiply, FVPY_KWARGS,
            "multiply(a, b, dtype=None, stream=None)\n--\n\na * b with NumPy broadcasting and promotion.");

/* copy(x, device=None, stream=None) always copies; to_device(x, device, stream=None)
 * returns x's data as it is when it already lives on device. */
static PyObject *
fvpy__copy(const char *name, int always, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "x", "device", "stream", NULL };
    PyObject *x_o, *dev_o = Py_None, *stream_o = Py_None, *ret = NULL;
    fvpy_in x = { 0 };
    fv_array *out = NULL;
    fv_context *ctx = NULL;
    fv_device src, dst = { FV_DEVICE_CPU, 0 };
    void *stream;
    fv_status st;
    char fmt[24];

    snprintf(fmt, sizeof fmt, "%s:%s", always ? "O|OO" : "OO|O", name);
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &x_o, &dev_o, &stream_o))
        return NULL;
    if (fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (dev_o != Py_None && fvpy_parse_device(dev_o, &dst) < 0)
        return NULL;
    if (fvpy_import(x_o, stream, &x) < 0)
        goto done;
    src = fv_array_device(x.arr);
    if (dev_o == Py_None)
        dst = src;
    if (dst.type == FV_DEVICE_CUDA && dst.id < 0)
        dst.id = src.type == FV_DEVICE_CUDA ? src.id : 0;
    if (fvpy_check_device(name, dst) < 0)
        goto done;
    if (!always && fvpy_same_device(src, dst)) {
        ret = fvpy_array_new(x.arr, x.stream, x.has_stream);
        x.arr = NULL;
        goto done;
    }
    /* CUDA work runs on the destination's device, or the source's for device -> host */
    if (fvpy_make_context(dst.type == FV_DEVICE_CUDA ? dst : src, stream, &ctx) < 0 ||
        fvpy_sync_input(ctx, &x, stream) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
        st = fv_array_new(ctx, fv_array_dtype(x.arr), fv_array_ndim(x.arr), fv_array_shape(x.arr), dst, &out);
        if (st == FV_OK)
            st = fv_copy(ctx, x.arr, out);
    Py_END_ALLOW_THREADS
    ret = fvpy_result(st, out, stream);
done:
    fvpy_in_clear(&x);
    fv_context_free(ctx);
    return ret;
}

static PyObject *
fvpy_copy(PyObject *self, PyObject *args, PyObject *kw)
{
    return fvpy__copy("copy", 1, args, kw);
}
FVPY_METHOD(copy, fvpy_copy, FVPY_KWARGS,
            "copy(x, device=None, stream=None)\n--\n\nA C-contiguous copy of x on device (default: x's).");

static PyObject *
fvpy_to_device(PyObject *self, PyObject *args, PyObject *kw)
{
    return fvpy__copy("to_device", 0, args, kw);
}
FVPY_METHOD(to_device, fvpy_to_device, FVPY_KWARGS,
            "to_device(x, device, stream=None)\n--\n\nx on device ('cpu', 'cuda', 'cuda:N'); no copy when it "
            "is there already.");
