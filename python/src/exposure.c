/* Bindings of the exposure kernels (fovea/exposure.h), used by
 * fovea.skimage.exposure and the thresholds of fovea.skimage.filters:
 * exp_minmax, exp_histogram, exp_clahe. Arrays are imported without copying,
 * results are allocated on their device, the work runs without the GIL. */
#include "array.h"   /* Python.h first */
#include <string.h>
#include "errors.h"
#include "fovea/exposure.h"

/* image (and an optional mask on its device) imported; 0 or -1. */
static int
fvpy__exp_inputs(PyObject *img_o, PyObject *mask_o, void *stream, fvpy_in *img, fvpy_in *mask, fv_context **ctx)
{
    if (fvpy_import(img_o, stream, img) < 0)
        return -1;
    fv_device dev = fv_array_device(img->arr);
    if (mask_o != Py_None) {
        if (fvpy_import(mask_o, stream, mask) < 0)
            return -1;
        if (!fvpy_same_device(dev, fv_array_device(mask->arr))) {
            fvpy_device_error("histogram: image and mask are on different devices");
            return -1;
        }
    }
    if (fvpy_make_context(dev, stream, ctx) < 0 || fvpy_sync_input(*ctx, img, stream) < 0 ||
        (mask->arr && fvpy_sync_input(*ctx, mask, stream) < 0))
        return -1;
    return 0;
}

static PyObject *
fvpy_exp_minmax(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"image", "mask", "stream", NULL};
    PyObject *img_o, *mask_o = Py_None, *stream_o = Py_None, *ret = NULL;
    fvpy_in img = {0}, mask = {0};
    fv_context *ctx = NULL;
    double lo = 0, hi = 0;
    int64_t count = 0;
    void *stream;
    fv_status st;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO:exp_minmax", kwlist, &img_o, &mask_o, &stream_o))
        return NULL;
    if (fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (fvpy__exp_inputs(img_o, mask_o, stream, &img, &mask, &ctx) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    st = fv_minmax(ctx, img.arr, mask.arr, &lo, &hi, &count);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    ret = Py_BuildValue("ddL", lo, hi, (long long)count);
done:
    fvpy_in_clear(&img);
    fvpy_in_clear(&mask);
    fv_context_free(ctx);
    return ret;
}
FVPY_METHOD(exp_minmax, fvpy_exp_minmax, FVPY_KWARGS,
            "exp_minmax(image, mask=None, stream=None)\n--\n\n(min, max, count) over the (masked) elements; NaN "
            "when any is NaN.");

static PyObject *
fvpy_exp_histogram(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"image",  "mask",        "nbins",       "integer",    "lo",    "first", "last",
                             "denom",  "single_bins", "single_diff", "single_div", "edges", "stream", NULL};
    PyObject *img_o, *mask_o = Py_None, *edges_o = Py_None, *stream_o = Py_None, *ret = NULL;
    fvpy_in img = {0}, mask = {0};
    fv_context *ctx = NULL;
    fv_array *out = NULL;
    fv_histogram_spec sp;
    long long nbins = 0, lo = 0;
    int integer = 0, sb = 0, sd = 0, sv = 0;
    double first = 0, last = 1, denom = 1;
    void *stream;
    fv_status st;

    memset(&sp, 0, sizeof sp);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOLp|LdddpppOO:exp_histogram", kwlist, &img_o, &mask_o, &nbins,
                                     &integer, &lo, &first, &last, &denom, &sb, &sd, &sv, &edges_o, &stream_o))
        return NULL;
    if (fvpy_parse_stream(stream_o, &stream) < 0)
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
    if (fvpy__exp_inputs(img_o, mask_o, stream, &img, &mask, &ctx) < 0)
        goto done;
    fv_device dev = fv_array_device(img.arr);
    int64_t n = nbins;
    Py_BEGIN_ALLOW_THREADS
    st = fv_array_new(ctx, FV_INT64, 1, &n, dev, &out);
    if (st == FV_OK)
        st = fv_histogram(ctx, img.arr, mask.arr, &sp, out);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    ret = fvpy_array_new(fv_array_ref(out), stream, dev.type == FV_DEVICE_CUDA);
done:
    fv_array_unref(out);
    fvpy_in_clear(&img);
    fvpy_in_clear(&mask);
    fv_context_free(ctx);
    return ret;
}
FVPY_METHOD(exp_histogram, fvpy_exp_histogram, FVPY_KWARGS,
            "exp_histogram(image, mask, nbins, integer, lo=0, first=0, last=1, denom=1, single_bins=False, "
            "single_diff=False, single_div=False, edges=None, stream=None)\n--\n\nfv_histogram into a new int64 array.");

static PyObject *
fvpy_exp_clahe(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"image", "kernel_size", "clip_limit", "nbins", "stream", NULL};
    PyObject *img_o, *ks_o, *stream_o = Py_None, *ret = NULL;
    fvpy_in img = {0}, none = {0};
    fv_context *ctx = NULL;
    fv_array *out = NULL;
    double clip = 0;
    long long nbins = 256;
    int64_t ks[FV_MAX_NDIM];
    void *stream;
    fv_status st;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOdL|O:exp_clahe", kwlist, &img_o, &ks_o, &clip, &nbins, &stream_o))
        return NULL;
    if (fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (fvpy__exp_inputs(img_o, Py_None, stream, &img, &none, &ctx) < 0)
        goto done;
    int nd = fv_array_ndim(img.arr);
    PyObject *seq = PySequence_Fast(ks_o, "kernel_size must be a sequence of ints");
    if (!seq)
        goto done;
    if (PySequence_Fast_GET_SIZE(seq) != nd) {
        PyErr_Format(PyExc_ValueError, "kernel_size needs %d values", nd);
        Py_DECREF(seq);
        goto done;
    }
    for (int d = 0; d < nd; d++) {
        ks[d] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, d));
        if (ks[d] == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            goto done;
        }
    }
    Py_DECREF(seq);
    fv_device dev = fv_array_device(img.arr);
    Py_BEGIN_ALLOW_THREADS
    st = fv_array_new(ctx, FV_UINT16, nd, fv_array_shape(img.arr), dev, &out);
    if (st == FV_OK)
        st = fv_clahe(ctx, img.arr, out, ks, clip, (int64_t)nbins);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    ret = fvpy_array_new(fv_array_ref(out), stream, dev.type == FV_DEVICE_CUDA);
done:
    fv_array_unref(out);
    fvpy_in_clear(&img);
    fv_context_free(ctx);
    return ret;
}
FVPY_METHOD(exp_clahe, fvpy_exp_clahe, FVPY_KWARGS,
            "exp_clahe(image, kernel_size, clip_limit, nbins, stream=None)\n--\n\nfv_clahe of a uint16 image.");
