/* Bindings of the interpolation C API (include/fovea/interpolation.h) for
 * fovea.ndimage's interpolation functions (python/fovea/ndimage/_interpolation.py).
 *
 * Thin, as the filter bindings: the Python layer checks the arguments the way
 * scipy does and allocates the output on the input's device; each binding
 * imports its arrays without copying, reads the small host parameters
 * (matrix, offset, zoom, shift) from Python sequences of floats, runs one
 * library call without the GIL on the caller's stream and returns None. */
#include "array.h" /* Python.h first */
#include "errors.h"

/* A sequence of exactly n floats into out[]; None gives *given = 0. */
static int
fvpy__ip_doubles(const char *name, const char *what, PyObject *o, Py_ssize_t n, double *out, int *given)
{
    *given = 0;
    if (!o || o == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(o, "a sequence of floats is required");
    if (!seq)
        return -1;
    int rc = -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %s needs %zd values, got %zd", name, what, n,
                     PySequence_Fast_GET_SIZE(seq));
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (out[i] == -1.0 && PyErr_Occurred())
            goto done;
    }
    *given = 1;
    rc = 0;
done:
    Py_DECREF(seq);
    return rc;
}

/* ndi_spline_filter1d(input, output, order, axis, mode, stream=None) */
static PyObject *
fvpy_ndi_spline_filter1d(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "order", "axis", "mode", "stream", NULL };
    PyObject *in_o, *out_o, *stream_o = Py_None;
    int order, axis, mode;
    fv_status st = FV_OK;
    fvpy_call c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOiii|O:ndi_spline_filter1d", kwlist, &in_o, &out_o, &order, &axis,
                                     &mode, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "spline_filter1d", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_spline_filter1d(c.ctx, c.in.arr, c.out.arr, order, axis, (fv_interp_mode)mode);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_spline_filter1d, fvpy_ndi_spline_filter1d, FVPY_KWARGS,
            "ndi_spline_filter1d(input, output, order, axis, mode, stream=None)\n--\n\n"
            "fv_spline_filter1d into output (mode: scipy's interpolation mode code).");

/* ndi_interpolate(input, output, order, mode, cval, prefilter, coordinates=None, matrix=None,
 *                 offset=None, zoom=None, shift=None, grid_mode=False, stream=None, batch=0) */
static PyObject *
fvpy_ndi_interpolate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input",  "output", "order", "mode",      "cval",   "prefilter", "coordinates", "matrix",
                              "offset", "zoom",   "shift", "grid_mode", "stream", "batch",     NULL };
    PyObject *in_o, *out_o, *co_o = Py_None, *m_o = Py_None, *off_o = Py_None, *z_o = Py_None, *s_o = Py_None;
    PyObject *stream_o = Py_None;
    int order, mode, prefilter, grid_mode = 0, batch = 0;
    double cval;
    double matrix[FV_MAX_NDIM * FV_MAX_NDIM], offset[FV_MAX_NDIM], zoom[FV_MAX_NDIM], shift[FV_MAX_NDIM];
    int has_m, has_off, has_z, has_s;
    fv_status st = FV_OK;
    fvpy_call c;
    const char *name = "interpolate";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOiidp|OOOOOpOi:ndi_interpolate", kwlist, &in_o, &out_o, &order, &mode,
                                     &cval, &prefilter, &co_o, &m_o, &off_o, &z_o, &s_o, &grid_mode, &stream_o, &batch))
        return NULL;
    if (fvpy_call_open(&c, name, stream_o, in_o, out_o, co_o, "coordinates", 0, NULL, NULL) < 0)
        return fvpy_call_close(&c, FV_OK);
    /* batch: the planes' axes lead (fv_affine_transform_planes); the matrix maps the rest */
    if (batch < 0 || batch >= fv_array_ndim(c.in.arr) || batch >= fv_array_ndim(c.out.arr)) {
        PyErr_Format(PyExc_ValueError, "%s: batch %d out of range", name, batch);
        return fvpy_call_close(&c, FV_OK);
    }
    const int irank = fv_array_ndim(c.in.arr) - batch, orank = fv_array_ndim(c.out.arr) - batch;
    if (fvpy__ip_doubles(name, "matrix", m_o, (Py_ssize_t)irank * orank, matrix, &has_m) < 0 ||
        fvpy__ip_doubles(name, "offset", off_o, irank, offset, &has_off) < 0 ||
        fvpy__ip_doubles(name, "zoom", z_o, irank, zoom, &has_z) < 0 ||
        fvpy__ip_doubles(name, "shift", s_o, irank, shift, &has_s) < 0)
        return fvpy_call_close(&c, FV_OK);
    if (c.aux1.arr) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_map_coordinates(c.ctx, c.in.arr, c.aux1.arr, c.out.arr, order, (fv_interp_mode)mode, cval,
                                    prefilter);
        Py_END_ALLOW_THREADS
    } else if (has_m) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_affine_transform_planes(c.ctx, c.in.arr, batch, matrix, has_off ? offset : NULL, c.out.arr, order,
                                            (fv_interp_mode)mode, cval, prefilter);
        Py_END_ALLOW_THREADS
    } else {
        Py_BEGIN_ALLOW_THREADS
            st = fv_zoom_shift(c.ctx, c.in.arr, has_z ? zoom : NULL, has_s ? shift : NULL, c.out.arr, order,
                               (fv_interp_mode)mode, cval, prefilter, grid_mode);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_interpolate, fvpy_ndi_interpolate, FVPY_KWARGS,
            "ndi_interpolate(input, output, order, mode, cval, prefilter, coordinates=None, matrix=None, "
            "offset=None, zoom=None, shift=None, grid_mode=False, stream=None, batch=0)\n--\n\n"
            "fv_map_coordinates (coordinates), fv_affine_transform_planes (matrix: (in.ndim - batch) * "
            "(out.ndim - batch) values, row major; offset; batch leading axes index planes) or fv_zoom_shift "
            "(zoom, shift, grid_mode) into output.");

/* resize_local_mean(input, output, grid_mode, stream=None) */
static PyObject *
fvpy_resize_local_mean(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "grid_mode", "stream", NULL };
    PyObject *in_o, *out_o, *stream_o = Py_None;
    int grid_mode;
    fv_status st = FV_OK;
    fvpy_call c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOp|O:resize_local_mean", kwlist, &in_o, &out_o, &grid_mode, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "resize_local_mean", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_resize_local_mean(c.ctx, c.in.arr, c.out.arr, grid_mode);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(resize_local_mean, fvpy_resize_local_mean, FVPY_KWARGS,
            "resize_local_mean(input, output, grid_mode, stream=None)\n--\n\n"
            "fv_resize_local_mean into output (float32 or float64, input's ndim).");

/* sk_warp_homography(input, output, matrix, order, mode, cval, stream=None) */
static PyObject *
fvpy_sk_warp_homography(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "matrix", "order", "mode", "cval", "stream", NULL };
    PyObject *in_o, *out_o, *m_o, *stream_o = Py_None;
    int order, mode, has_m;
    double cval, matrix[9];
    fv_status st = FV_OK;
    fvpy_call c;
    const char *name = "warp_homography";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiid|O:sk_warp_homography", kwlist, &in_o, &out_o, &m_o, &order,
                                     &mode, &cval, &stream_o))
        return NULL;
    if (fvpy__ip_doubles(name, "matrix", m_o, 9, matrix, &has_m) < 0)
        return NULL;
    if (!has_m) {
        PyErr_SetString(PyExc_ValueError, "warp_homography: a 3x3 matrix (9 values) is required");
        return NULL;
    }
    if (fvpy_call_open(&c, name, stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) < 0)
        return fvpy_call_close(&c, FV_OK);
    Py_BEGIN_ALLOW_THREADS
        st = fv_warp_homography(c.ctx, c.in.arr, matrix, c.out.arr, order, (fv_warp_mode)mode, cval);
    Py_END_ALLOW_THREADS
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(sk_warp_homography, fvpy_sk_warp_homography, FVPY_KWARGS,
            "sk_warp_homography(input, output, matrix, order, mode, cval, stream=None)\n--\n\n"
            "fv_warp_homography into output (matrix: 9 values, row major; mode: fv_warp_mode).");
