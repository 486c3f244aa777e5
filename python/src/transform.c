/* Bindings of the Hough transforms (include/fovea/transform.h) for
 * fovea.skimage.transform (python/fovea/skimage/transform/_hough.py): the Python
 * layer checks scikit-image's arguments, computes the cosines and sines with
 * NumPy and allocates the outputs on the image's device; these import the
 * arrays without copying and run one library call without the GIL. Host tables
 * (cosines, sines, radii) come as bytes of native float64 / int64 values. */
#include "array.h" /* Python.h first */
#include "errors.h"
#include "fovea/transform.h"

/* bytes of n values of `size` bytes: *n and *ptr; -1 with an exception otherwise. */
static int
fvpy__tf_table(const char *name, const char *what, PyObject *o, size_t size, Py_ssize_t *n, const void **ptr)
{
    if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) % (Py_ssize_t)size) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be bytes of %zu-byte values", name, what, size);
        return -1;
    }
    *n = PyBytes_GET_SIZE(o) / (Py_ssize_t)size;
    *ptr = PyBytes_AS_STRING(o);
    return 0;
}

/* cos and sin tables of one length; 0 or -1. */
static int
fvpy__tf_angles(const char *name, PyObject *cos_o, PyObject *sin_o, Py_ssize_t *n, const double **c, const double **s)
{
    Py_ssize_t n2;
    if (fvpy__tf_table(name, "cos", cos_o, 8, n, (const void **)c) < 0 ||
        fvpy__tf_table(name, "sin", sin_o, 8, &n2, (const void **)s) < 0)
        return -1;
    if (n2 != *n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd cosines but %zd sines", name, *n, n2);
        return -1;
    }
    return 0;
}

/* The bindings of (input, out, cos, sin, stream=None): fv_hough_line (which == 0)
 * or fv_iradon_backproject (which == 1). */
static PyObject *
fvpy__tf_angles_call(PyObject *args, PyObject *kw, const char *fmt, const char *name, int which)
{
    static char *kwlist[] = { "input", "out", "cos", "sin", "stream", NULL };
    PyObject *in_o, *out_o, *cos_o, *sin_o, *stream_o = Py_None;
    const double *c, *s;
    Py_ssize_t n;
    fv_status st = FV_OK;
    fvpy_call call;
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &in_o, &out_o, &cos_o, &sin_o, &stream_o))
        return NULL;
    if (fvpy__tf_angles(name, cos_o, sin_o, &n, &c, &s) < 0)
        return NULL;
    if (fvpy_call_open(&call, name, stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) < 0)
        return fvpy_call_close(&call, FV_OK);
    if (which == 1 && (fv_array_ndim(call.in.arr) != 2 || fv_array_shape(call.in.arr)[0] != n)) {
        PyErr_Format(PyExc_ValueError, "%s: %zd angles for the projections given", name, n);
        return fvpy_call_close(&call, FV_OK);
    }
    Py_BEGIN_ALLOW_THREADS
        st = which == 0 ? fv_hough_line(call.ctx, call.in.arr, c, s, (int64_t)n, call.out.arr)
                        : fv_iradon_backproject(call.ctx, call.in.arr, c, s, call.out.arr);
    Py_END_ALLOW_THREADS
    return fvpy_call_close(&call, st);
}

static PyObject *
fvpy_tf_hough_line(PyObject *self, PyObject *args, PyObject *kw)
{
    return fvpy__tf_angles_call(args, kw, "OOOO|O:tf_hough_line", "hough_line", 0);
}
FVPY_METHOD(tf_hough_line, fvpy_tf_hough_line, FVPY_KWARGS,
            "tf_hough_line(input, out, cos, sin, stream=None)\n--\n\n"
            "fv_hough_line into out (uint64 (2 * ceil(hypot(*shape)) + 1, len(angles))); cos, sin: bytes of "
            "float64.");

static PyObject *
fvpy_tf_hough_circle(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "out", "radii", "offset", "normalize", "stream", NULL };
    PyObject *in_o, *out_o, *radii_o, *stream_o = Py_None, *ret = NULL;
    const int64_t *radii;
    long long offset;
    int normalize;
    Py_ssize_t n;
    fv_status st = FV_OK;
    fvpy_call call;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOLp|O:tf_hough_circle", kwlist, &in_o, &out_o, &radii_o, &offset,
                                     &normalize, &stream_o))
        return NULL;
    if (fvpy__tf_table("hough_circle", "radii", radii_o, 8, &n, (const void **)&radii) < 0)
        return NULL;
    int64_t *np = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *np);
    if (!np)
        return PyErr_NoMemory();
    if (fvpy_call_open(&call, "hough_circle", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st =
                fv_hough_circle(call.ctx, call.in.arr, radii, (int64_t)n, (int64_t)offset, normalize, call.out.arr, np);
        Py_END_ALLOW_THREADS
    }
    PyObject *none = fvpy_call_close(&call, st);
    if (none) {
        Py_DECREF(none);
        ret = PyTuple_New(n);
        for (Py_ssize_t i = 0; ret && i < n; i++) {
            PyObject *v = PyLong_FromLongLong((long long)np[i]);
            if (!v) {
                Py_CLEAR(ret);
                break;
            }
            PyTuple_SET_ITEM(ret, i, v);
        }
    }
    PyMem_Free(np);
    return ret;
}
FVPY_METHOD(tf_hough_circle, fvpy_tf_hough_circle, FVPY_KWARGS,
            "tf_hough_circle(image, out, radii, offset, normalize, stream=None)\n--\n\n"
            "fv_hough_circle into out (float64 (len(radii), rows + 2 offset, cols + 2 offset)); "
            "radii: bytes of int64. Returns each circle's number of points.");

static PyObject *
fvpy_tf_probabilistic_hough_line(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "order", "lines", "threshold", "line_length", "line_gap", "cos", "sin", NULL };
    PyObject *in_o, *order_o, *lines_o, *cos_o, *sin_o;
    long long threshold, line_length, line_gap;
    const double *c, *s;
    Py_ssize_t n;
    int64_t nlines = 0;
    fv_status st = FV_OK;
    fvpy_call call;
    const char *name = "probabilistic_hough_line";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOLLLOO:tf_probabilistic_hough_line", kwlist, &in_o, &order_o,
                                     &lines_o, &threshold, &line_length, &line_gap, &cos_o, &sin_o))
        return NULL;
    if (fvpy__tf_angles(name, cos_o, sin_o, &n, &c, &s) < 0)
        return NULL;
    if (fvpy_call_open(&call, name, Py_None, in_o, lines_o, order_o, "order", 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_probabilistic_hough_line(call.ctx, call.in.arr, call.aux1.arr, (int64_t)threshold,
                                             (int64_t)line_length, (int64_t)line_gap, c, s, (int64_t)n, call.out.arr,
                                             &nlines);
        Py_END_ALLOW_THREADS
    }
    PyObject *none = fvpy_call_close(&call, st);
    if (!none)
        return NULL;
    Py_DECREF(none);
    return PyLong_FromLongLong((long long)nlines);
}
FVPY_METHOD(tf_probabilistic_hough_line, fvpy_tf_probabilistic_hough_line, FVPY_KWARGS,
            "tf_probabilistic_hough_line(image, order, lines, threshold, line_length, line_gap, cos, sin)\n--\n\n"
            "fv_probabilistic_hough_line on host arrays: lines (int64 (max_lines, 4)) filled, their number "
            "returned.");

static PyObject *
fvpy_tf_radon(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "out", "matrices", "stream", NULL };
    PyObject *in_o, *out_o, *m_o, *stream_o = Py_None;
    const double *m;
    Py_ssize_t n;
    fv_status st = FV_OK;
    fvpy_call call;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|O:tf_radon", kwlist, &in_o, &out_o, &m_o, &stream_o))
        return NULL;
    if (fvpy__tf_table("radon", "matrices", m_o, 6 * sizeof(double), &n, (const void **)&m) < 0)
        return NULL;
    if (fvpy_call_open(&call, "radon", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_radon(call.ctx, call.in.arr, m, (int64_t)n, call.out.arr);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&call, st);
}
FVPY_METHOD(tf_radon, fvpy_tf_radon, FVPY_KWARGS,
            "tf_radon(image, out, matrices, stream=None)\n--\n\n"
            "fv_radon into out ((n, nangles)); matrices: bytes of 6 float64 per angle.");

static PyObject *
fvpy_tf_sart(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "projection", "update", "theta", "shift", "stream", NULL };
    PyObject *in_o, *proj_o, *upd_o, *stream_o = Py_None;
    double theta, shift;
    fv_status st = FV_OK;
    fvpy_call call;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOdd|O:tf_sart", kwlist, &in_o, &proj_o, &upd_o, &theta, &shift,
                                     &stream_o))
        return NULL;
    if (fvpy_call_open(&call, "sart_projection_update", stream_o, in_o, upd_o, proj_o, "projection", 0, NULL, NULL) ==
        0) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_sart_projection_update(call.ctx, call.in.arr, call.aux1.arr, theta, shift, call.out.arr);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&call, st);
}
FVPY_METHOD(tf_sart, fvpy_tf_sart, FVPY_KWARGS,
            "tf_sart(image, projection, update, theta, shift, stream=None)\n--\n\n"
            "fv_sart_projection_update into update.");

static PyObject *
fvpy_tf_backproject(PyObject *self, PyObject *args, PyObject *kw)
{
    return fvpy__tf_angles_call(args, kw, "OOOO|O:tf_backproject", "iradon", 1);
}
FVPY_METHOD(tf_backproject, fvpy_tf_backproject, FVPY_KWARGS,
            "tf_backproject(input, out, cos, sin, stream=None)\n--\n\n"
            "fv_iradon_backproject: filtered float64 (nangles, p), out (n, n); cos, sin: bytes of float64.");
