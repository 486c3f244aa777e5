/* Binding of connected-component labelling (fovea/measure.h), used by
 * fovea.skimage.measure.label and fovea.ndimage.label: measure_label imports
 * the image without copying, allocates int32 / int64 labels on its device,
 * runs without the GIL and returns (fovea.Array, number of labels). */
#include "array.h" /* Python.h first */
#include <string.h>
#include "errors.h"
#include "fovea/measure.h"

static PyObject *
fvpy_measure_label(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "connectivity", "structure", "background", "nonzero", "wide", "stream", NULL };
    PyObject *img_o, *st_o = Py_None, *bg_o = Py_None, *stream_o = Py_None, *ret = NULL, *arr = NULL;
    int connectivity = 0, nonzero = 0, wide = 1;
    int64_t bg = 0, num = 0;
    fvpy_in img = { 0 };
    fv_array *out = NULL;
    fv_context *ctx = NULL;
    const uint8_t *structure = NULL;
    void *stream;
    fv_status st;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iOOppO:measure_label", kwlist, &img_o, &connectivity, &st_o, &bg_o,
                                     &nonzero, &wide, &stream_o))
        return NULL;
    if (bg_o != Py_None) {
        long long v = PyLong_AsLongLong(bg_o);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        bg = v;
    }
    if (fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (fvpy_import(img_o, stream, &img) < 0)
        goto done;
    int nd = fv_array_ndim(img.arr);
    if (st_o != Py_None) {
        Py_ssize_t need = 1;
        for (int d = 0; d < nd; d++)
            need *= 3;
        if (!PyBytes_Check(st_o) || PyBytes_GET_SIZE(st_o) != need) {
            PyErr_Format(PyExc_ValueError, "structure must be %zd bytes (3 x ... x 3)", need);
            goto done;
        }
        structure = (const uint8_t *)PyBytes_AS_STRING(st_o);
    }
    fv_device dev = fv_array_device(img.arr);
    if (fvpy_make_context(dev, stream, &ctx) < 0 || fvpy_sync_input(ctx, &img, stream) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
        st = fv_array_new(ctx, wide ? FV_INT64 : FV_INT32, nd, fv_array_shape(img.arr), dev, &out);
        if (st == FV_OK)
            st = fv_label(ctx, img.arr, out, structure, connectivity, bg_o != Py_None ? &bg : NULL, nonzero, &num);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    if (!(arr = fvpy_array_new(fv_array_ref(out), stream, dev.type == FV_DEVICE_CUDA)))
        goto done;
    ret = Py_BuildValue("(NL)", arr, (long long)num);
done:
    fv_array_unref(out);
    fvpy_in_clear(&img);
    fv_context_free(ctx);
    return ret;
}
FVPY_METHOD(measure_label, fvpy_measure_label, FVPY_KWARGS,
            "measure_label(image, connectivity=0, structure=None, background=None, nonzero=False, wide=True, "
            "stream=None)\n--\n\nConnected components of image: (labels as int64 (wide) or int32, number of labels).");
