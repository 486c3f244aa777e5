/* Binding of the gradient-magnitude op (fv_gradient_norm, include/fovea/filters.h),
 * used by fovea.skimage.filters sobel / scharr / prewitt / farid and
 * fovea.ndimage generic / gaussian_gradient_magnitude:
 * gradient_norm(parts, out, div=1.0, stream=None) -> None.
 * out = sqrt(sum of parts[k]**2) / div, each step rounded in the dtype as NumPy
 * rounds it. parts: a sequence of 1 to 8 float32 / float64 arrays; out is
 * written in place and may be one of the parts. The arrays are imported without
 * copying (NumPy or CuPy, one device) and the op runs without the GIL on the
 * caller's stream. */
#include "array.h"   /* Python.h first */
#include "errors.h"
#include "fovea/filters.h"

static PyObject *
fvpy_gradient_norm(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"parts", "out", "div", "stream", NULL};
    PyObject *parts_o, *out_o, *stream_o = Py_None, *seq = NULL, *ret = NULL;
    fvpy_in p[FV_MAX_NDIM] = {{0}}, out = {0};
    fv_context *ctx = NULL;
    double div = 1.0;
    int np = 0;
    void *stream;
    fv_status st;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|dO:gradient_norm", kwlist, &parts_o, &out_o, &div, &stream_o))
        return NULL;
    if (fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (!(seq = PySequence_Fast(parts_o, "gradient_norm: parts must be a sequence of arrays")))
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > FV_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "gradient_norm: needs 1 to %d parts, got %zd", FV_MAX_NDIM, n);
        goto done;
    }
    np = (int)n;
    for (int k = 0; k < np; k++)
        if (fvpy_import(PySequence_Fast_GET_ITEM(seq, k), stream, &p[k]) < 0)
            goto done;
    if (fvpy_import(out_o, stream, &out) < 0)
        goto done;
    if (fvpy_make_context(fv_array_device(p[0].arr), stream, &ctx) < 0)
        goto done;
    for (int k = 0; k < np; k++)
        if (fvpy_sync_input(ctx, &p[k], stream) < 0)
            goto done;
    if (fvpy_sync_input(ctx, &out, stream) < 0)
        goto done;
    {
        const fv_array *pa[FV_MAX_NDIM] = {NULL};
        for (int k = 0; k < np; k++)
            pa[k] = p[k].arr;
        Py_BEGIN_ALLOW_THREADS
        st = fv_gradient_norm(ctx, pa, np, div, out.arr);
        Py_END_ALLOW_THREADS
    }
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    Py_INCREF(Py_None);
    ret = Py_None;
done:
    for (int k = 0; k < FV_MAX_NDIM; k++)
        fvpy_in_clear(&p[k]);
    fvpy_in_clear(&out);
    fv_context_free(ctx);
    Py_XDECREF(seq);
    return ret;
}
FVPY_METHOD(gradient_norm, fvpy_gradient_norm, FVPY_KWARGS,
            "gradient_norm(parts, out, div=1.0, stream=None)\n--\n\nout = sqrt(sum of parts[k]**2) / div in one pass "
            "(fv_gradient_norm), rounded step by step as NumPy's chain; out may be one of the parts.");
