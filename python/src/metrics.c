/* Binding of the SSIM map (fovea/metrics.h), used by
 * fovea.skimage.metrics.structural_similarity for host data: metrics_ssim_map
 * imports the five moment images (and the optional S output) without copying,
 * runs without the GIL and returns the mean of S over the interior. */
#include "array.h" /* Python.h first */
#include "errors.h"
#include "fovea/metrics.h"

static PyObject *
fvpy_metrics_ssim_map(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "ux", "uy", "uxx", "uyy", "uxy", "cov_norm", "c1", "c2", "S", "gradient", "pad", NULL };
    PyObject *o[6] = { NULL, NULL, NULL, NULL, NULL, Py_None }, *ret = NULL;
    fvpy_in in[6] = { { 0 } };
    double cov_norm, c1, c2, mean = 0;
    int gradient = 0;
    long long pad = 0;
    fv_status st;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOddd|OpL:metrics_ssim_map", kwlist, &o[0], &o[1], &o[2], &o[3],
                                     &o[4], &cov_norm, &c1, &c2, &o[5], &gradient, &pad))
        return NULL;
    for (int k = 0; k < 6; k++)
        if (o[k] != Py_None && fvpy_import(o[k], NULL, &in[k]) < 0)
            goto done;
    Py_BEGIN_ALLOW_THREADS
        st = fv_ssim_map(NULL, in[0].arr, in[1].arr, in[2].arr, in[3].arr, in[4].arr, cov_norm, c1, c2, in[5].arr,
                         gradient, (int64_t)pad, &mean);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    ret = PyFloat_FromDouble(mean);
done:
    for (int k = 0; k < 6; k++)
        fvpy_in_clear(&in[k]);
    return ret;
}
FVPY_METHOD(metrics_ssim_map, fvpy_metrics_ssim_map, FVPY_KWARGS,
            "metrics_ssim_map(ux, uy, uxx, uyy, uxy, cov_norm, c1, c2, S=None, gradient=False, pad=0) -> mean: "
            "the SSIM map from the local moments, host float32/float64 (fovea/metrics.h)");

/* nearest_points(points, axis, queries, want_index) -> (d2, index or None):
 * int64 host arrays (fovea/metrics.h fv_nearest_points). */
static PyObject *
fvpy_metrics_nearest_points(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "points", "axis", "queries", "want_index", NULL };
    PyObject *p_o, *q_o, *ret = NULL, *d_o = NULL, *i_o = NULL;
    int axis = 0, want_index = 0;
    fvpy_in p = { 0 }, q = { 0 };
    fv_array *d2 = NULL, *idx = NULL;
    fv_status st = FV_OK;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiO|p:metrics_nearest_points", kwlist, &p_o, &axis, &q_o, &want_index))
        return NULL;
    if (fvpy_import(p_o, NULL, &p) < 0 || fvpy_import(q_o, NULL, &q) < 0)
        goto done;
    if (fv_array_ndim(q.arr) != 2) {
        PyErr_SetString(PyExc_ValueError, "queries must be 2-d");
        goto done;
    }
    const fv_device cpu = { FV_DEVICE_CPU, 0 };
    int64_t m = fv_array_shape(q.arr)[0];
    Py_BEGIN_ALLOW_THREADS
        st = fv_array_new(NULL, FV_INT64, 1, &m, cpu, &d2);
        if (st == FV_OK && want_index)
            st = fv_array_new(NULL, FV_INT64, 1, &m, cpu, &idx);
        if (st == FV_OK)
            st = fv_nearest_points(NULL, p.arr, axis, q.arr, d2, idx);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    if (!(d_o = fvpy_array_new(fv_array_ref(d2), NULL, 0)))
        goto done;
    if (idx) {
        if (!(i_o = fvpy_array_new(fv_array_ref(idx), NULL, 0)))
            goto done;
    } else {
        i_o = Py_NewRef(Py_None);
    }
    ret = PyTuple_Pack(2, d_o, i_o);
done:
    Py_XDECREF(d_o);
    Py_XDECREF(i_o);
    fv_array_unref(d2);
    fv_array_unref(idx);
    fvpy_in_clear(&p);
    fvpy_in_clear(&q);
    return ret;
}
FVPY_METHOD(metrics_nearest_points, fvpy_metrics_nearest_points, FVPY_KWARGS,
            "metrics_nearest_points(points, axis, queries, want_index=False) -> (d2, index or None): exact nearest "
            "neighbours of int64 point sets (fovea/metrics.h)");
