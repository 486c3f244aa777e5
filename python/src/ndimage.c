/* Bindings of the filter and morphology C API (include/fovea/filters.h,
 * morphology.h) for fovea.ndimage.
 *
 * These are thin: the Python layer (python/fovea/ndimage) validates arguments
 * the way scipy.ndimage does, allocates every output on the input's device and
 * passes it in, so each binding only imports its arrays without copying, reads
 * the small host parameters (weights, footprints, structures) through the
 * buffer protocol, runs one library call without the GIL on the caller's
 * stream and returns None. Modes arrive as fv_mode values. */
#include "array.h" /* Python.h first */
#include "errors.h"
#include <limits.h>

/* ---- shared plumbing ------------------------------------------------------------ */

/* A C-contiguous host buffer of doubles ('d') or bytes ('B' or '?'), kept open
 * in c until fvpy_call_close. ndim_want < 0 accepts any ndim. */
static int
fvpy__nd_host(fvpy_call *c, const char *what, PyObject *o, char kind, int ndim_want, const void **data, int64_t *shape)
{
    Py_buffer *v = &c->bufs[c->nbufs];
    const char *f;
    if (c->nbufs >= 2) {
        PyErr_Format(PyExc_SystemError, "%s: too many host buffers", c->name);
        return -1;
    }
    if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    c->nbufs++;
    f = v->format ? v->format : "B";
    if (*f == '<' || *f == '=' || *f == '@' || *f == '|')
        f++;
    if (kind == 'd' ? (strcmp(f, "d") != 0 || v->itemsize != 8)
                    : ((strcmp(f, "B") != 0 && strcmp(f, "?") != 0) || v->itemsize != 1)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a C-contiguous %s host buffer (format '%s')", c->name, what,
                     kind == 'd' ? "float64" : "uint8", f);
        return -1;
    }
    if (ndim_want >= 0 && v->ndim != ndim_want) {
        PyErr_Format(PyExc_ValueError, "%s: %s has %d dimensions, expected %d", c->name, what, v->ndim, ndim_want);
        return -1;
    }
    if (v->len == 0) {
        PyErr_Format(PyExc_ValueError, "%s: %s is empty", c->name, what);
        return -1;
    }
    for (int i = 0; i < v->ndim && shape; i++)
        shape[i] = (int64_t)v->shape[i];
    *data = v->buf;
    return 0;
}

/* A sequence of exactly n ints into out[]. */
static int
fvpy__nd_ints(fvpy_call *c, const char *what, PyObject *o, int n, int64_t *out)
{
    char msg[96];
    snprintf(msg, sizeof msg, "%s: %s must be a sequence of ints", c->name, what);
    PyObject *seq = PySequence_Fast(o, msg);
    int rc = -1;
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %s needs %d values, got %zd", c->name, what, n,
                     PySequence_Fast_GET_SIZE(seq));
        goto done;
    }
    for (int i = 0; i < n; i++) {
        out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (out[i] == -1 && PyErr_Occurred())
            goto done;
    }
    rc = 0;
done:
    Py_DECREF(seq);
    return rc;
}

static int
fvpy__nd_mode(fvpy_call *c, int mode)
{
    if (mode < 0 || mode >= FV_MODE_COUNT) {
        PyErr_Format(PyExc_ValueError, "%s: mode %d out of range", c->name, mode);
        return -1;
    }
    return 0;
}

#define FVPY_ND_RUN(c, st, call)   \
    do {                           \
        Py_BEGIN_ALLOW_THREADS(st) \
            = (call);              \
        Py_END_ALLOW_THREADS       \
    } while (0)

/* ---- filters ------------------------------------------------------------------------ */

/* ndi_correlate1d(input, output, weights, axis, mode, cval, origin, stream=None, reverse=False):
 * weights a float64 host buffer, or a float64 array on the input's device (read there;
 * reverse: read backwards, convolve1d's order, with origin already mirrored) */
static PyObject *
fvpy_ndi_correlate1d(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {
        "input", "output", "weights", "axis", "mode", "cval", "origin", "stream", "reverse", NULL
    };
    PyObject *in_o, *out_o, *w_o, *stream_o = Py_None;
    int axis, mode, reverse = 0;
    double cval;
    long long origin;
    const void *w;
    int64_t n;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiidL|Op:ndi_correlate1d", kwlist, &in_o, &out_o, &w_o, &axis, &mode,
                                     &cval, &origin, &stream_o, &reverse))
        return NULL;
    /* an array on the input's device (float64, 1-D, any stride); CuPy arrays have a
     * buffer slot that only raises */
    if (!PyObject_CheckBuffer(w_o) || PyObject_HasAttrString(w_o, "__cuda_array_interface__")) {
        if (fvpy_call_open(&c, "correlate1d", stream_o, in_o, out_o, w_o, "weights", 0, NULL, NULL) == 0 &&
            fvpy__nd_mode(&c, mode) == 0) {
            const fv_array *wa = c.aux1.arr;
            fv_array *rv = NULL;
            if (reverse && fv_array_ndim(wa) == 1 && fv_array_shape(wa)[0] > 0) { /* a backwards view */
                const int64_t m = fv_array_shape(wa)[0], s0 = fv_array_strides(wa)[0], neg = -s0;
                st = fv_array_view(wa, 1, &m, &neg, (m - 1) * s0, &rv);
                wa = rv;
            }
            if (st == FV_OK)
                FVPY_ND_RUN(&c, st,
                            fv_correlate1d_array(c.ctx, c.in.arr, c.out.arr, wa, axis, (fv_mode)mode, cval, origin));
            fv_array_unref(rv);
        }
        return fvpy_call_close(&c, st);
    }
    if (reverse) {
        PyErr_SetString(PyExc_ValueError, "ndi_correlate1d: reverse needs weights on the device");
        return NULL;
    }
    if (fvpy_call_open(&c, "correlate1d", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0 &&
        fvpy__nd_mode(&c, mode) == 0 && fvpy__nd_host(&c, "weights", w_o, 'd', 1, &w, &n) == 0)
        FVPY_ND_RUN(&c, st, fv_correlate1d(c.ctx, c.in.arr, c.out.arr, w, n, axis, (fv_mode)mode, cval, origin));
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_correlate1d, fvpy_ndi_correlate1d, FVPY_KWARGS,
            "ndi_correlate1d(input, output, weights, axis, mode, cval, origin, stream=None, reverse=False)\n--\n\n"
            "fv_correlate1d into output (fv_correlate1d_array for weights on the device).");

/* ndi_filter1d(input, output, kind, size, axis, mode, cval, origin, stream=None):
 * kind 0 uniform, 1 minimum, 2 maximum. */
static PyObject *
fvpy_ndi_filter1d(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "kind", "size", "axis", "mode", "cval", "origin", "stream", NULL };
    PyObject *in_o, *out_o, *stream_o = Py_None;
    int kind, axis, mode;
    long long size, origin;
    double cval;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOiLiidL|O:ndi_filter1d", kwlist, &in_o, &out_o, &kind, &size, &axis,
                                     &mode, &cval, &origin, &stream_o))
        return NULL;
    static const char *names[] = { "uniform_filter1d", "minimum_filter1d", "maximum_filter1d" };
    if (kind < 0 || kind > 2) {
        PyErr_Format(PyExc_ValueError, "ndi_filter1d: kind %d out of range", kind);
        return NULL;
    }
    if (fvpy_call_open(&c, names[kind], stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0 &&
        fvpy__nd_mode(&c, mode) == 0) {
        fv_mode m = (fv_mode)mode;
        switch (kind) {
        case 0:
            FVPY_ND_RUN(&c, st, fv_uniform_filter1d(c.ctx, c.in.arr, c.out.arr, size, axis, m, cval, origin));
            break;
        case 1:
            FVPY_ND_RUN(&c, st, fv_minimum_filter1d(c.ctx, c.in.arr, c.out.arr, size, axis, m, cval, origin));
            break;
        default:
            FVPY_ND_RUN(&c, st, fv_maximum_filter1d(c.ctx, c.in.arr, c.out.arr, size, axis, m, cval, origin));
            break;
        }
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_filter1d, fvpy_ndi_filter1d, FVPY_KWARGS,
            "ndi_filter1d(input, output, kind, size, axis, mode, cval, origin, stream=None)\n--\n\n"
            "fv_uniform_filter1d (kind 0), fv_minimum_filter1d (1) or fv_maximum_filter1d (2) into output.");

/* ndi_separable(input, output, passes, stream=None): passes a sequence of
 * (kind, axis, size, weights, mode, cval, origin) with kind an fv_pass_kind and
 * weights a 1-d float64 host buffer of `size` values for FV_PASS_CORRELATE
 * (None otherwise). The weights are copied into one block, so any number of
 * passes holds no buffers open. */
static PyObject *
fvpy_ndi_separable(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "passes", "stream", NULL };
    PyObject *in_o, *out_o, *passes_o, *stream_o = Py_None, *seq = NULL;
    fv_filter_pass passes[FV_MAX_PASSES];
    double *wblock = NULL;
    int64_t woff[FV_MAX_PASSES];
    size_t total = 0;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|O:ndi_separable", kwlist, &in_o, &out_o, &passes_o, &stream_o))
        return NULL;
    if (!(seq = PySequence_Fast(passes_o, "ndi_separable: passes must be a sequence")))
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > FV_MAX_PASSES) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "ndi_separable: %zd passes (at most %d)", n, FV_MAX_PASSES);
        return NULL;
    }
    if (fvpy_call_open(&c, "separable_filter", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PySequence_Fast_GET_ITEM(seq, i), *w_o;
        int kind, axis, mode;
        long long size, origin;
        double cval;
        if (!PyTuple_Check(t) ||
            !PyArg_ParseTuple(t, "iiLOidL:ndi_separable pass", &kind, &axis, &size, &w_o, &mode, &cval, &origin)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "ndi_separable: each pass is a 7-tuple");
            goto done;
        }
        if (fvpy__nd_mode(&c, mode) < 0)
            goto done;
        passes[i] = (fv_filter_pass){ .kind = (fv_pass_kind)kind,
                                      .axis = axis,
                                      .size = size,
                                      .weights = NULL,
                                      .mode = (fv_mode)mode,
                                      .cval = cval,
                                      .origin = origin };
        woff[i] = -1;
        if (w_o != Py_None) {
            Py_buffer v;
            if (PyObject_GetBuffer(w_o, &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
                goto done;
            const char *f = v.format ? v.format : "B";
            if (*f == '<' || *f == '=' || *f == '@')
                f++;
            int ok = strcmp(f, "d") == 0 && v.itemsize == 8 && v.ndim == 1 && v.len / 8 == size && size > 0;
            if (ok) {
                double *grown = realloc(wblock, (total + (size_t)size) * sizeof(double));
                if (!grown) {
                    PyBuffer_Release(&v);
                    PyErr_NoMemory();
                    goto done;
                }
                wblock = grown;
                memcpy(wblock + total, v.buf, (size_t)size * sizeof(double));
                woff[i] = (int64_t)total;
                total += (size_t)size;
            }
            PyBuffer_Release(&v);
            if (!ok) {
                PyErr_Format(PyExc_TypeError,
                             "ndi_separable: pass %zd's weights must be a 1-d float64 host "
                             "buffer of %lld values",
                             i, size);
                goto done;
            }
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) /* the block may have moved while it grew */
        if (woff[i] >= 0)
            passes[i].weights = wblock + woff[i];
    FVPY_ND_RUN(&c, st, fv_separable_filter(c.ctx, c.in.arr, c.out.arr, passes, (int)n));
done:
    Py_DECREF(seq);
    free(wblock);
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_separable, fvpy_ndi_separable, FVPY_KWARGS,
            "ndi_separable(input, output, passes, stream=None)\n--\n\n"
            "fv_separable_filter into output; passes: (kind, axis, size, weights or None, mode, cval, origin).");

/* ndi_laplace(input, output, axes, modes, cval, stream=None): fv_laplace with
 * axes and modes sequences of one length (0 to FV_MAX_NDIM; modes as fv_mode
 * values, axes non-negative). */
static PyObject *
fvpy_ndi_laplace(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "axes", "modes", "cval", "stream", NULL };
    PyObject *in_o, *out_o, *axes_o, *modes_o, *stream_o = Py_None;
    double cval;
    int64_t ax[FV_MAX_NDIM], md[FV_MAX_NDIM];
    int axes[FV_MAX_NDIM];
    fv_mode modes[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOd|O:ndi_laplace", kwlist, &in_o, &out_o, &axes_o, &modes_o, &cval,
                                     &stream_o))
        return NULL;
    const Py_ssize_t n = PySequence_Size(axes_o);
    if (n < 0)
        return NULL;
    if (n > FV_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "ndi_laplace: %zd axes (at most %d)", n, FV_MAX_NDIM);
        return NULL;
    }
    if (fvpy_call_open(&c, "laplace", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0 &&
        fvpy__nd_ints(&c, "axes", axes_o, (int)n, ax) == 0 && fvpy__nd_ints(&c, "modes", modes_o, (int)n, md) == 0) {
        int ok = 1;
        for (int k = 0; k < (int)n && ok; k++) {
            if (ax[k] < 0 || ax[k] > INT_MAX) {
                PyErr_Format(PyExc_ValueError, "laplace: axis %lld is out of range", (long long)ax[k]);
                ok = 0;
            } else if (fvpy__nd_mode(&c, md[k] < INT_MIN || md[k] > INT_MAX ? -1 : (int)md[k]) < 0) {
                ok = 0;
            } else {
                axes[k] = (int)ax[k];
                modes[k] = (fv_mode)md[k];
            }
        }
        if (ok)
            FVPY_ND_RUN(&c, st, fv_laplace(c.ctx, c.in.arr, c.out.arr, axes, (int)n, modes, cval));
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_laplace, fvpy_ndi_laplace, FVPY_KWARGS,
            "ndi_laplace(input, output, axes, modes, cval, stream=None)\n--\n\n"
            "fv_laplace into output: scipy.ndimage.laplace over axes (one fv_mode per axis) in one pass.");

/* ndi_correlate(input, output, weights, mode, cval, origins, stream=None):
 * weights a C-contiguous float64 host array with input's ndim. */
static PyObject *
fvpy_ndi_correlate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "weights", "mode", "cval", "origins", "stream", NULL };
    PyObject *in_o, *out_o, *w_o, *orig_o, *stream_o = Py_None;
    int mode;
    double cval;
    const void *w;
    int64_t fshape[FV_MAX_NDIM], origins[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOidO|O:ndi_correlate", kwlist, &in_o, &out_o, &w_o, &mode, &cval,
                                     &orig_o, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "correlate", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0 &&
        fvpy__nd_mode(&c, mode) == 0) {
        int nd = fv_array_ndim(c.in.arr);
        if (fvpy__nd_host(&c, "weights", w_o, 'd', nd, &w, fshape) == 0 &&
            fvpy__nd_ints(&c, "origins", orig_o, nd, origins) == 0)
            FVPY_ND_RUN(&c, st, fv_correlate(c.ctx, c.in.arr, c.out.arr, w, fshape, (fv_mode)mode, cval, origins));
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_correlate, fvpy_ndi_correlate, FVPY_KWARGS,
            "ndi_correlate(input, output, weights, mode, cval, origins, stream=None)\n--\n\nfv_correlate into output.");

/* ndi_min_or_max_filter(input, output, footprint, structure, mode, cval, origins,
 * minimum, stream=None): footprint a C-contiguous uint8/bool host array with
 * input's ndim; structure None or float64 of the same shape. */
static PyObject *
fvpy_ndi_min_or_max_filter(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output",  "footprint", "structure", "mode",
                              "cval",  "origins", "minimum",   "stream",    NULL };
    PyObject *in_o, *out_o, *fp_o, *s_o, *orig_o, *stream_o = Py_None;
    int mode, minimum;
    double cval;
    const void *fp, *s = NULL;
    int64_t fshape[FV_MAX_NDIM], sshape[FV_MAX_NDIM], origins[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOidOp|O:ndi_min_or_max_filter", kwlist, &in_o, &out_o, &fp_o, &s_o,
                                     &mode, &cval, &orig_o, &minimum, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, minimum ? "minimum_filter" : "maximum_filter", stream_o, in_o, out_o, NULL, NULL, 0, NULL,
                       NULL) == 0 &&
        fvpy__nd_mode(&c, mode) == 0) {
        int nd = fv_array_ndim(c.in.arr);
        if (fvpy__nd_host(&c, "footprint", fp_o, 'B', nd, &fp, fshape) < 0 ||
            fvpy__nd_ints(&c, "origins", orig_o, nd, origins) < 0)
            goto done;
        if (s_o != Py_None) {
            if (fvpy__nd_host(&c, "structure", s_o, 'd', nd, &s, sshape) < 0)
                goto done;
            if (memcmp(sshape, fshape, (size_t)nd * sizeof *fshape) != 0) {
                PyErr_Format(PyExc_ValueError, "%s: structure and footprint shapes differ", c.name);
                goto done;
            }
        }
        if (minimum)
            FVPY_ND_RUN(&c, st,
                        fv_minimum_filter(c.ctx, c.in.arr, c.out.arr, fp, s, fshape, (fv_mode)mode, cval, origins));
        else
            FVPY_ND_RUN(&c, st,
                        fv_maximum_filter(c.ctx, c.in.arr, c.out.arr, fp, s, fshape, (fv_mode)mode, cval, origins));
    }
done:
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_min_or_max_filter, fvpy_ndi_min_or_max_filter, FVPY_KWARGS,
            "ndi_min_or_max_filter(input, output, footprint, structure, mode, cval, origins, minimum, stream=None)"
            "\n--\n\nfv_minimum_filter / fv_maximum_filter into output.");

/* ndi_rank_filter(input, output, footprint, rank, mode, cval, origins, stream=None) */
static PyObject *
fvpy_ndi_rank_filter(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "footprint", "rank", "mode", "cval", "origins", "stream", NULL };
    PyObject *in_o, *out_o, *fp_o, *orig_o, *stream_o = Py_None;
    int mode;
    long long rank;
    double cval;
    const void *fp;
    int64_t fshape[FV_MAX_NDIM], origins[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOLidO|O:ndi_rank_filter", kwlist, &in_o, &out_o, &fp_o, &rank, &mode,
                                     &cval, &orig_o, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "rank_filter", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0 &&
        fvpy__nd_mode(&c, mode) == 0) {
        int nd = fv_array_ndim(c.in.arr);
        if (fvpy__nd_host(&c, "footprint", fp_o, 'B', nd, &fp, fshape) == 0 &&
            fvpy__nd_ints(&c, "origins", orig_o, nd, origins) == 0)
            FVPY_ND_RUN(&c, st,
                        fv_rank_filter(c.ctx, c.in.arr, c.out.arr, fp, fshape, rank, (fv_mode)mode, cval, origins));
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_rank_filter, fvpy_ndi_rank_filter, FVPY_KWARGS,
            "ndi_rank_filter(input, output, footprint, rank, mode, cval, origins, stream=None)\n--\n\n"
            "fv_rank_filter into output.");

/* ---- morphology ----------------------------------------------------------------------- */

/* ndi_binary_erosion(input, output, structure, iterations, mask, border_value,
 * origins, invert, stream=None) */
static PyObject *
fvpy_ndi_binary_erosion(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input",        "output",  "structure", "iterations", "mask",
                              "border_value", "origins", "invert",    "stream",     NULL };
    PyObject *in_o, *out_o, *s_o, *mask_o, *orig_o, *stream_o = Py_None;
    int iterations, border_value, invert;
    const void *s;
    int64_t sshape[FV_MAX_NDIM], origins[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiOpOp|O:ndi_binary_erosion", kwlist, &in_o, &out_o, &s_o,
                                     &iterations, &mask_o, &border_value, &orig_o, &invert, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, invert ? "binary_dilation" : "binary_erosion", stream_o, in_o, out_o, mask_o, "mask", 0,
                       NULL, NULL) == 0) {
        int nd = fv_array_ndim(c.in.arr);
        if (fvpy__nd_host(&c, "structure", s_o, 'B', nd, &s, sshape) == 0 &&
            fvpy__nd_ints(&c, "origins", orig_o, nd, origins) == 0)
            FVPY_ND_RUN(&c, st,
                        fv_binary_erosion(c.ctx, c.in.arr, c.out.arr, s, sshape, iterations, c.aux1.arr, border_value,
                                          origins, invert));
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_binary_erosion, fvpy_ndi_binary_erosion, FVPY_KWARGS,
            "ndi_binary_erosion(input, output, structure, iterations, mask, border_value, origins, invert, "
            "stream=None)\n--\n\nfv_binary_erosion into output.");

/* ndi_distance_transform_edt(input, sampling, distances, indices, stream=None):
 * sampling None or a float64 host buffer of input's ndim values. */
static PyObject *
fvpy_ndi_distance_transform_edt(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "sampling", "distances", "indices", "stream", NULL };
    PyObject *in_o, *samp_o, *dist_o, *ind_o, *stream_o = Py_None;
    const void *samp = NULL;
    int64_t n;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|O:ndi_distance_transform_edt", kwlist, &in_o, &samp_o, &dist_o,
                                     &ind_o, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "distance_transform_edt", stream_o, in_o, NULL, dist_o, "distances", 3, ind_o, "indices") ==
        0) {
        if (samp_o != Py_None) {
            if (fvpy__nd_host(&c, "sampling", samp_o, 'd', 1, &samp, &n) < 0)
                goto done;
            if (n != fv_array_ndim(c.in.arr)) {
                PyErr_Format(PyExc_ValueError, "%s: sampling needs %d values", c.name, fv_array_ndim(c.in.arr));
                goto done;
            }
        }
        FVPY_ND_RUN(&c, st, fv_distance_transform_edt(c.ctx, c.in.arr, samp, c.aux1.arr, c.aux2.arr));
    }
done:
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_distance_transform_edt, fvpy_ndi_distance_transform_edt, FVPY_KWARGS,
            "ndi_distance_transform_edt(input, sampling, distances, indices, stream=None)\n--\n\n"
            "fv_distance_transform_edt into distances and/or indices.");

/* ndi_distance_transform_cdt(input, structure, distances, indices, stream=None) */
static PyObject *
fvpy_ndi_distance_transform_cdt(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "structure", "distances", "indices", "stream", NULL };
    PyObject *in_o, *s_o, *dist_o, *ind_o, *stream_o = Py_None;
    const void *s;
    int64_t sshape[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|O:ndi_distance_transform_cdt", kwlist, &in_o, &s_o, &dist_o,
                                     &ind_o, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "distance_transform_cdt", stream_o, in_o, NULL, dist_o, "distances", 3, ind_o, "indices") ==
            0 &&
        fvpy__nd_host(&c, "structure", s_o, 'B', fv_array_ndim(c.in.arr), &s, sshape) == 0)
        FVPY_ND_RUN(&c, st, fv_distance_transform_cdt(c.ctx, c.in.arr, s, sshape, c.aux1.arr, c.aux2.arr));
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_distance_transform_cdt, fvpy_ndi_distance_transform_cdt, FVPY_KWARGS,
            "ndi_distance_transform_cdt(input, structure, distances, indices, stream=None)\n--\n\n"
            "fv_distance_transform_cdt into distances and/or indices.");

/* ---- helpers ---------------------------------------------------------------------------- */

/* ndi_assign(src, dst, stream=None): dst[...] = src on their device (fv_astype), for
 * GPU arrays when CuPy is absent. */
static PyObject *
fvpy_ndi_assign(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "src", "dst", "stream", NULL };
    PyObject *src_o, *dst_o, *stream_o = Py_None;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:ndi_assign", kwlist, &src_o, &dst_o, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "assign", stream_o, src_o, dst_o, NULL, NULL, 0, NULL, NULL) == 0)
        FVPY_ND_RUN(&c, st, fv_astype(c.ctx, c.in.arr, c.out.arr));
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(ndi_assign, fvpy_ndi_assign, FVPY_KWARGS,
            "ndi_assign(src, dst, stream=None)\n--\n\ndst[...] = src (fv_astype) on their device.");
