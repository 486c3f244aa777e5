/* Bindings of include/fovea/fft.h for fovea.fft and fovea.ndimage's fourier_*.
 * The Python layer (python/fovea/fft.py, ndimage/_fourier.py) checks arguments
 * the way numpy.fft / scipy.ndimage do, allocates the output on the input's
 * device and passes complex arrays as float views with a trailing pair axis;
 * each binding imports its two arrays without copying and runs one library
 * call without the GIL on the caller's stream. */
#include "array.h" /* Python.h first */
#include "errors.h"

/* Up to FV_MAX_NDIM ints (axes) or doubles (params) from a sequence. */
static int
fvpy__ft_seq(const char *name, const char *what, PyObject *o, int isint, int *iv, double *dv)
{
    PyObject *f = PySequence_Fast(o, "a sequence is needed");
    Py_ssize_t n;
    if (!f)
        return -1;
    n = PySequence_Fast_GET_SIZE(f);
    if (n > FV_MAX_NDIM) {
        Py_DECREF(f);
        PyErr_Format(PyExc_ValueError, "%s: too many %s (%zd)", name, what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(f, i);
        if (isint) {
            long v = PyLong_AsLong(x);
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(f);
                return -1;
            }
            iv[i] = (int)v;
        } else {
            double v = PyFloat_AsDouble(x);
            if (v == -1.0 && PyErr_Occurred()) {
                Py_DECREF(f);
                return -1;
            }
            dv[i] = v;
        }
    }
    Py_DECREF(f);
    return (int)n;
}

/* fft_exec(input, output, kind, axes, inverse, scale, stream=None, threads=0) */
static PyObject *
fvpy_fft_exec(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "kind", "axes", "inverse", "scale", "stream", "threads", NULL };
    PyObject *in_o, *out_o, *axes_o, *stream_o = Py_None;
    int kind, inverse, axes[FV_MAX_NDIM], naxes, threads = 0;
    double scale;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOiOpd|Oi:fft_exec", kwlist, &in_o, &out_o, &kind, &axes_o, &inverse,
                                     &scale, &stream_o, &threads))
        return NULL;
    if ((naxes = fvpy__ft_seq("fft", "axes", axes_o, 1, axes, NULL)) < 0)
        return NULL;
    if (fvpy_call_open(&c, "fft", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0 &&
        (st = fv_context_set_threads(c.ctx, threads)) == FV_OK) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_fft(c.ctx, c.in.arr, c.out.arr, (fv_fft_kind)kind, naxes, axes, inverse, scale);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(fft_exec, fvpy_fft_exec, FVPY_KWARGS,
            "fft_exec(input, output, kind, axes, inverse, scale, stream=None, threads=0)\n--\n\n"
            "fv_fft: kind 0 C2C, 1 R2C, 2 C2R; complex arrays as float views with a trailing pair axis;\n"
            "threads: CPU threads for this call (0: the pool's).");

/* fourier_filter(input, in_complex, output, out_complex, kind, params, n, axis, stream=None) */
static PyObject *
fvpy_fourier_filter(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input",  "in_complex", "output", "out_complex", "kind",
                              "params", "n",          "axis",   "stream",      NULL };
    PyObject *in_o, *out_o, *par_o, *stream_o = Py_None;
    int in_c, out_c, kind, axis, np_;
    long long n;
    double par[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OpOpiOLi|O:fourier_filter", kwlist, &in_o, &in_c, &out_o, &out_c, &kind,
                                     &par_o, &n, &axis, &stream_o))
        return NULL;
    if ((np_ = fvpy__ft_seq("fourier_filter", "parameters", par_o, 0, NULL, par)) < 0)
        return NULL;
    if (fvpy_call_open(&c, "fourier_filter", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0) {
        const int lnd = fv_array_ndim(c.in.arr) - (in_c ? 1 : 0);
        if (np_ != lnd) {
            PyErr_Format(PyExc_ValueError, "fourier_filter: %d parameters for %d dimensions", np_, lnd);
        } else {
            Py_BEGIN_ALLOW_THREADS
                st = fv_fourier_filter(c.ctx, c.in.arr, in_c, c.out.arr, out_c, (fv_fourier_kind)kind, par, (int64_t)n,
                                       axis);
            Py_END_ALLOW_THREADS
        }
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(fourier_filter, fvpy_fourier_filter, FVPY_KWARGS,
            "fourier_filter(input, in_complex, output, out_complex, kind, params, n, axis, stream=None)\n--\n\n"
            "fv_fourier_filter: kind 0 gaussian, 1 uniform, 2 ellipsoid, 3 shift.");
