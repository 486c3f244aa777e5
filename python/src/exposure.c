/* Bindings of the exposure kernels (fovea/exposure.h), used by
 * fovea.skimage.exposure and the thresholds of fovea.skimage.filters:
 * exp_minmax, exp_histogram, exp_clahe. Arrays are imported without copying,
 * results are allocated on their device, the work runs without the GIL. */
#include "array.h" /* Python.h first */
#include <string.h>
#include "errors.h"
#include "fovea/exposure.h"

static PyObject *
fvpy_exp_minmax(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "mask", "stream", NULL };
    PyObject *img_o, *mask_o = Py_None, *stream_o = Py_None, *ret = NULL;
    double lo = 0, hi = 0;
    int64_t count = 0;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO:exp_minmax", kwlist, &img_o, &mask_o, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "minmax", stream_o, img_o, NULL, mask_o, "mask", 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_minmax(c.ctx, c.in.arr, c.aux1.arr, &lo, &hi, &count);
        Py_END_ALLOW_THREADS
    }
    PyObject *none = fvpy_call_close(&c, st);
    if (none) {
        Py_DECREF(none);
        ret = Py_BuildValue("ddL", lo, hi, (long long)count);
    }
    return ret;
}
FVPY_METHOD(exp_minmax, fvpy_exp_minmax, FVPY_KWARGS,
            "exp_minmax(image, mask=None, stream=None)\n--\n\n(min, max, count) over the (masked) elements; NaN "
            "when any is NaN.");

static PyObject *
fvpy_exp_histogram(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "mask",        "nbins",       "integer",    "lo",    "first",  "last",
                              "denom", "single_bins", "single_diff", "single_div", "edges", "stream", NULL };
    PyObject *img_o, *mask_o = Py_None, *edges_o = Py_None, *stream_o = Py_None;
    fv_array *out = NULL;
    fv_histogram_spec sp;
    long long nbins = 0, lo = 0;
    int integer = 0, sb = 0, sd = 0, sv = 0;
    double first = 0, last = 1, denom = 1;
    fv_status st = FV_OK;
    fvpy_call c;

    memset(&sp, 0, sizeof sp);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOLp|LdddpppOO:exp_histogram", kwlist, &img_o, &mask_o, &nbins,
                                     &integer, &lo, &first, &last, &denom, &sb, &sd, &sv, &edges_o, &stream_o))
        return NULL;
    if (nbins < 1) {
        PyErr_Format(PyExc_ValueError, "nbins = %lld must be >= 1", nbins);
        return NULL;
    }
    sp.nbins = nbins;
    sp.integer = integer;
    sp.lo = lo;
    sp.first = first;
    sp.last = last;
    sp.denom = denom;
    sp.single_bins = sb;
    sp.single_diff = sd;
    sp.single_div = sv;
    if (!integer) {
        if (!PyBytes_Check(edges_o) || PyBytes_GET_SIZE(edges_o) != (Py_ssize_t)((nbins + 1) * 8)) {
            PyErr_SetString(PyExc_ValueError, "edges must be bytes of nbins + 1 float64 values");
            return NULL;
        }
        sp.edges = (const double *)PyBytes_AS_STRING(edges_o);
    }
    if (fvpy_call_open(&c, "histogram", stream_o, img_o, NULL, mask_o, "mask", 0, NULL, NULL) == 0) {
        const int64_t n = nbins;
        Py_BEGIN_ALLOW_THREADS
            st = fvpy_call_new(&c, FV_INT64, 1, &n, &out);
            if (st == FV_OK)
                st = fv_histogram(c.ctx, c.in.arr, c.aux1.arr, &sp, out);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(
    exp_histogram, fvpy_exp_histogram, FVPY_KWARGS,
    "exp_histogram(image, mask, nbins, integer, lo=0, first=0, last=1, denom=1, single_bins=False, "
    "single_diff=False, single_div=False, edges=None, stream=None)\n--\n\nfv_histogram into a new int64 array.");

static PyObject *
fvpy_exp_clahe(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "kernel_size", "clip_limit", "nbins", "stream", NULL };
    PyObject *img_o, *ks_o, *stream_o = Py_None;
    fv_array *out = NULL;
    double clip = 0;
    long long nbins = 256;
    int64_t ks[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOdL|O:exp_clahe", kwlist, &img_o, &ks_o, &clip, &nbins, &stream_o))
        return NULL;
    if (ks_o == Py_None) {
        PyErr_SetString(PyExc_TypeError, "kernel_size must be a sequence of ints");
        return NULL;
    }
    if (fvpy_call_open(&c, "clahe", stream_o, img_o, NULL, NULL, NULL, 0, NULL, NULL) == 0 &&
        fvpy_numbers("kernel_size", ks_o, fv_array_ndim(c.in.arr), 'L', ks) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fvpy_call_new(&c, FV_UINT16, fv_array_ndim(c.in.arr), NULL, &out);
            if (st == FV_OK)
                st = fv_clahe(c.ctx, c.in.arr, out, ks, clip, (int64_t)nbins);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(exp_clahe, fvpy_exp_clahe, FVPY_KWARGS,
            "exp_clahe(image, kernel_size, clip_limit, nbins, stream=None)\n--\n\nfv_clahe of a uint16 image.");
