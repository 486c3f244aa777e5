/* Binding of the regionprops batch tables (fv_region_stats, fovea/measure.h),
 * used by fovea.skimage.measure.regionprops / regionprops_table:
 * measure_region_stats imports labels (and intensity) without copying,
 * allocates the float64 table on their device, runs without the GIL and
 * returns it as a fovea.Array. */
#include "array.h" /* Python.h first */
#include "errors.h"
#include "fovea/measure.h"

static PyObject *
fvpy_measure_region_stats(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "labels", "intensity", "max_label", "stream", NULL };
    PyObject *lab_o, *int_o = Py_None, *stream_o = Py_None, *ret = NULL;
    long long max_label = 0;
    fvpy_in lab = { 0 }, inten = { 0 };
    fv_array *out = NULL;
    fv_context *ctx = NULL;
    void *stream;
    fv_status st;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOL|O:measure_region_stats", kwlist, &lab_o, &int_o, &max_label,
                                     &stream_o))
        return NULL;
    if (fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (fvpy_import(lab_o, stream, &lab) < 0)
        goto done;
    if (int_o != Py_None && fvpy_import(int_o, stream, &inten) < 0)
        goto done;
    int nd = fv_array_ndim(lab.arr);
    int64_t nch = 0;
    if (inten.arr)
        nch = fv_array_ndim(inten.arr) == nd + 1 ? fv_array_shape(inten.arr)[nd] : 1;
    int64_t ncols = fv_region_stats_columns(nd, nch);
    if (ncols < 0) {
        PyErr_Format(PyExc_ValueError, "region_stats: labels must have 1 to 4 dimensions, got %d", nd);
        goto done;
    }
    fv_device dev = fv_array_device(lab.arr);
    if (fvpy_make_context(dev, stream, &ctx) < 0 || fvpy_sync_input(ctx, &lab, stream) < 0 ||
        (inten.arr && fvpy_sync_input(ctx, &inten, stream) < 0))
        goto done;
    int64_t shape[2] = { max_label < 0 ? 0 : max_label, ncols };
    Py_BEGIN_ALLOW_THREADS
        st = fv_array_new(ctx, FV_FLOAT64, 2, shape, dev, &out);
        if (st == FV_OK)
            st = fv_region_stats(ctx, lab.arr, inten.arr, max_label, out);
    Py_END_ALLOW_THREADS
    ret = fvpy_result(st, out, stream);
done:
    fvpy_in_clear(&inten);
    fvpy_in_clear(&lab);
    fv_context_free(ctx);
    return ret;
}
FVPY_METHOD(measure_region_stats, fvpy_measure_region_stats, FVPY_KWARGS,
            "measure_region_stats(labels, intensity, max_label, stream=None) -> fovea.Array: the per-label float64 "
            "table of fv_region_stats (regionprops batch statistics).");
