/* Binding of the colour op (fovea/color.h), used by fovea.skimage.color:
 * color_convert(input, conv, out_dtype, out_channels, input2=None, matrix=None,
 * pre=0, post=0, pre_offset=None, post_offset=None, white=None,
 * background=None, k=None, stream=None). The input has its channels on the
 * last axis (any strides, no copy); the result is a new fovea.Array of shape
 * input.shape[:-1] + (out_channels,), or input.shape[:-1] when out_channels
 * is -1, on the input's device, computed without the GIL. */
#include "array.h"   /* Python.h first */
#include <string.h>
#include "errors.h"
#include "fovea/color.h"

/* n doubles from a sequence into out (None leaves out alone). 0 or -1. */
static int
fvpy__doubles(const char *name, PyObject *o, int n, double *out)
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
        double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = v;
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *
fvpy_color_convert(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"input", "conv", "out_dtype", "out_channels", "input2", "matrix", "pre", "post",
                             "pre_offset", "post_offset", "white", "background", "k", "stream", NULL};
    PyObject *in_o, *dt_o, *in2_o = Py_None, *m_o = Py_None, *pre_off_o = Py_None, *post_off_o = Py_None;
    PyObject *white_o = Py_None, *bg_o = Py_None, *k_o = Py_None, *stream_o = Py_None, *ret = NULL;
    int conv, out_channels, pre = 0, post = 0;
    fvpy_in in = {0}, in2 = {0};
    fv_array *out = NULL;
    fv_context *ctx = NULL;
    fv_color_params p;
    fv_dtype odt;
    void *stream;
    fv_status st;

    memset(&p, 0, sizeof p);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiOi|OOiiOOOOOO:color_convert", kwlist, &in_o, &conv, &dt_o,
                                     &out_channels, &in2_o, &m_o, &pre, &post, &pre_off_o, &post_off_o, &white_o,
                                     &bg_o, &k_o, &stream_o))
        return NULL;
    if (fvpy_parse_dtype(dt_o, &odt) < 0 || fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    p.conv = (fv_color_conv)conv;
    p.pre = (fv_color_pre)pre;
    p.post = (fv_color_post)post;
    p.rows = out_channels < 0 ? 1 : out_channels;
    if (m_o != Py_None) {
        double m[9] = {0};
        int n = (int)PySequence_Size(m_o);
        if (n < 0)
            return NULL;
        if (n % 3 || n < 3 || n > 9) {
            PyErr_SetString(PyExc_ValueError, "matrix needs 3, 6 or 9 values (rows of 3)");
            return NULL;
        }
        if (fvpy__doubles("matrix", m_o, n, m) < 0)
            return NULL;
        memcpy(p.matrix, m, sizeof m);
        p.rows = n / 3;
    }
    if (fvpy__doubles("pre_offset", pre_off_o, 3, p.pre_offset) < 0 ||
        fvpy__doubles("post_offset", post_off_o, 3, p.post_offset) < 0 ||
        fvpy__doubles("white", white_o, 3, p.white) < 0 || fvpy__doubles("background", bg_o, 3, p.background) < 0)
        return NULL;
    if (k_o != Py_None) {
        int n = (int)PySequence_Size(k_o);
        if (n < 0)
            return NULL;
        if (n > 5) {
            PyErr_SetString(PyExc_ValueError, "k holds at most 5 values");
            return NULL;
        }
        if (fvpy__doubles("k", k_o, n, p.k) < 0)
            return NULL;
    }
    if (fvpy_import(in_o, stream, &in) < 0)
        goto done;
    if (in2_o != Py_None && fvpy_import(in2_o, stream, &in2) < 0)
        goto done;
    fv_device dev = fv_array_device(in.arr);
    if (in2.arr && !fvpy_same_device(dev, fv_array_device(in2.arr))) {
        fvpy_device_error("color: the two inputs are on different devices");
        goto done;
    }
    int nd = fv_array_ndim(in.arr);
    if (nd < 1) {
        PyErr_SetString(PyExc_ValueError, "color: the input needs a channel axis");
        goto done;
    }
    int64_t shape[FV_MAX_NDIM];
    memcpy(shape, fv_array_shape(in.arr), sizeof(int64_t) * (size_t)nd);
    int ond = nd;
    if (out_channels < 0)
        ond = nd - 1;
    else
        shape[nd - 1] = out_channels;
    if (fvpy_make_context(dev, stream, &ctx) < 0 || fvpy_sync_input(ctx, &in, stream) < 0 ||
        (in2.arr && fvpy_sync_input(ctx, &in2, stream) < 0))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    st = fv_array_new(ctx, odt, ond, shape, dev, &out);
    if (st == FV_OK) {
        if (in2.arr)
            st = fv_color_delta_e(ctx, in.arr, in2.arr, out, &p);
        else
            st = fv_color_convert(ctx, in.arr, out, &p);
    }
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    ret = fvpy_array_new(fv_array_ref(out), stream, dev.type == FV_DEVICE_CUDA);
done:
    fv_array_unref(out);
    fvpy_in_clear(&in);
    fvpy_in_clear(&in2);
    fv_context_free(ctx);
    return ret;
}
FVPY_METHOD(color_convert, fvpy_color_convert, FVPY_KWARGS,
            "color_convert(input, conv, out_dtype, out_channels, input2=None, matrix=None, pre=0, post=0, "
            "pre_offset=None, post_offset=None, white=None, background=None, k=None, stream=None)\n--\n\n"
            "fv_color_convert (or fv_color_delta_e with input2) on channels-last data; out_channels -1: no channel axis.");
