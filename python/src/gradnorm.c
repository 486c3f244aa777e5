/* Binding of the gradient-magnitude op (fv_gradient_norm, include/fovea/filters.h),
 * used by fovea.skimage.filters sobel / scharr / prewitt / farid and
 * fovea.ndimage generic / gaussian_gradient_magnitude:
 * gradient_norm(parts, out, div=1.0, stream=None) -> None.
 * out = sqrt(sum of parts[k]**2) / div, each step rounded in the dtype as NumPy
 * rounds it. parts: a sequence of 1 to 8 float32 / float64 arrays; out is
 * written in place and may be one of the parts. The arrays are imported without
 * copying (NumPy or CuPy, one device) and the op runs without the GIL on the
 * caller's stream. */
#include "array.h" /* Python.h first */
#include "errors.h"
#include "fovea/filters.h"

static PyObject *
fvpy_gradient_norm(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "parts", "out", "div", "stream", NULL };
    PyObject *parts_o, *out_o, *stream_o = Py_None, *ret = NULL;
    fvpy_in a[FV_MAX_NDIM + 1] = { { 0 } }; /* the parts, then out */
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
    if (fvpy_import_list("gradient_norm", "parts", parts_o, 1, FV_MAX_NDIM, stream, a, &np) < 0 ||
        fvpy_import(out_o, stream, &a[np]) < 0 || fvpy_sync_list(a, np + 1, stream, &ctx) < 0)
        goto done;
    {
        const fv_array *pa[FV_MAX_NDIM] = { NULL };
        for (int k = 0; k < np; k++)
            pa[k] = a[k].arr;
        Py_BEGIN_ALLOW_THREADS
            st = fv_gradient_norm(ctx, pa, np, div, a[np].arr);
        Py_END_ALLOW_THREADS
    }
    ret = fvpy_status(st);
done:
    fvpy_clear_list(a, FV_MAX_NDIM + 1);
    fv_context_free(ctx);
    return ret;
}
FVPY_METHOD(gradient_norm, fvpy_gradient_norm, FVPY_KWARGS,
            "gradient_norm(parts, out, div=1.0, stream=None)\n--\n\nout = sqrt(sum of parts[k]**2) / div in one pass "
            "(fv_gradient_norm), rounded step by step as NumPy's chain; out may be one of the parts.");
