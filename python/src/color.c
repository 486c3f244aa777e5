/* Binding of the colour op (fovea/color.h), used by fovea.skimage.color:
 * color_convert(input, conv, out_dtype, out_channels, input2=None, matrix=None,
 * pre=0, post=0, pre_offset=None, post_offset=None, white=None,
 * background=None, k=None, stream=None). The input has its channels on the
 * last axis (any strides, no copy); the result is a new fovea.Array of shape
 * input.shape[:-1] + (out_channels,), or input.shape[:-1] when out_channels
 * is -1, on the input's device, computed without the GIL. */
#include "array.h" /* Python.h first */
#include <string.h>
#include "errors.h"
#include "fovea/color.h"

static PyObject *
fvpy_color_convert(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input",  "conv",       "out_dtype", "out_channels", "input2",
                              "matrix", "pre",        "post",      "pre_offset",   "post_offset",
                              "white",  "background", "k",         "stream",       NULL };
    PyObject *in_o, *dt_o, *in2_o = Py_None, *m_o = Py_None, *pre_off_o = Py_None, *post_off_o = Py_None;
    PyObject *white_o = Py_None, *bg_o = Py_None, *k_o = Py_None, *stream_o = Py_None;
    int conv, out_channels, pre = 0, post = 0;
    fv_array *out = NULL;
    fv_color_params p;
    fv_dtype odt;
    fv_status st;
    fvpy_call c;

    memset(&p, 0, sizeof p);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiOi|OOiiOOOOOO:color_convert", kwlist, &in_o, &conv, &dt_o,
                                     &out_channels, &in2_o, &m_o, &pre, &post, &pre_off_o, &post_off_o, &white_o, &bg_o,
                                     &k_o, &stream_o))
        return NULL;
    if (fvpy_parse_dtype(dt_o, &odt) < 0)
        return NULL;
    p.conv = (fv_color_conv)conv;
    p.pre = (fv_color_pre)pre;
    p.post = (fv_color_post)post;
    p.rows = out_channels < 0 ? 1 : out_channels;
    if (m_o != Py_None) {
        double m[9] = { 0 };
        int n = (int)PySequence_Size(m_o);
        if (n < 0)
            return NULL;
        if (n % 3 || n < 3 || n > 9) {
            PyErr_SetString(PyExc_ValueError, "matrix needs 3, 6 or 9 values (rows of 3)");
            return NULL;
        }
        if (fvpy_numbers("matrix", m_o, n, 'd', m) < 0)
            return NULL;
        memcpy(p.matrix, m, sizeof m);
        p.rows = n / 3;
    }
    if (fvpy_numbers("pre_offset", pre_off_o, 3, 'd', p.pre_offset) < 0 ||
        fvpy_numbers("post_offset", post_off_o, 3, 'd', p.post_offset) < 0 ||
        fvpy_numbers("white", white_o, 3, 'd', p.white) < 0 ||
        fvpy_numbers("background", bg_o, 3, 'd', p.background) < 0)
        return NULL;
    if (k_o != Py_None) {
        int n = (int)PySequence_Size(k_o);
        if (n < 0)
            return NULL;
        if (n > 5) {
            PyErr_SetString(PyExc_ValueError, "k holds at most 5 values");
            return NULL;
        }
        if (fvpy_numbers("k", k_o, n, 'd', p.k) < 0)
            return NULL;
    }
    if (fvpy_call_open(&c, "color", stream_o, in_o, NULL, in2_o, "the second input", 0, NULL, NULL) < 0)
        return fvpy_call_close(&c, FV_OK);
    int nd = fv_array_ndim(c.in.arr);
    if (nd < 1) {
        PyErr_SetString(PyExc_ValueError, "color: the input needs a channel axis");
        return fvpy_call_close(&c, FV_OK);
    }
    int64_t shape[FV_MAX_NDIM];
    memcpy(shape, fv_array_shape(c.in.arr), sizeof(int64_t) * (size_t)nd);
    if (out_channels >= 0)
        shape[nd - 1] = out_channels;
    Py_BEGIN_ALLOW_THREADS
        st = fvpy_call_new(&c, odt, out_channels < 0 ? nd - 1 : nd, shape, &out);
        if (st == FV_OK && c.aux1.arr)
            st = fv_color_delta_e(c.ctx, c.in.arr, c.aux1.arr, out, &p);
        else if (st == FV_OK)
            st = fv_color_convert(c.ctx, c.in.arr, out, &p);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(
    color_convert, fvpy_color_convert, FVPY_KWARGS,
    "color_convert(input, conv, out_dtype, out_channels, input2=None, matrix=None, pre=0, post=0, "
    "pre_offset=None, post_offset=None, white=None, background=None, k=None, stream=None)\n--\n\n"
    "fv_color_convert (or fv_color_delta_e with input2) on channels-last data; out_channels -1: no channel axis.");
