/* Binding of the watershed (fovea/segmentation.h), used by
 * fovea.skimage.segmentation.watershed: imports image, markers and mask
 * without copying, allocates labels of the markers' dtype on their device,
 * runs without the GIL and returns a fovea.Array. */
#include "array.h"   /* Python.h first */
#include <string.h>
#include "errors.h"
#include "fovea/segmentation.h"

/* A tuple of ndim ints into v; -1 with an exception on error. */
static int
fvpy_ws_ints(PyObject *o, int ndim, const char *what, int64_t *v)
{
    PyObject *seq = PySequence_Fast(o, what);
    if (!seq)
        return -1;
    int rc = -1;
    if (PySequence_Fast_GET_SIZE(seq) != ndim) {
        PyErr_Format(PyExc_ValueError, "%s must have %d entries", what, ndim);
        goto done;
    }
    for (int d = 0; d < ndim; d++) {
        long long x = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, d));
        if (x == -1 && PyErr_Occurred())
            goto done;
        v[d] = x;
    }
    rc = 0;
done:
    Py_DECREF(seq);
    return rc;
}

static PyObject *
fvpy_segmentation_watershed(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"image", "markers", "mask", "connectivity", "footprint", "footprint_shape", "offset",
                             "compactness", "watershed_line", "stream", NULL};
    PyObject *img_o, *mk_o, *mask_o = Py_None, *fp_o = Py_None, *fps_o = Py_None, *off_o = Py_None;
    PyObject *stream_o = Py_None, *ret = NULL;
    int connectivity = 1, wsl = 0;
    double compactness = 0;
    fvpy_in img = {0}, mk = {0}, mask = {0};
    fv_array *out = NULL;
    fv_context *ctx = NULL;
    const uint8_t *fp = NULL;
    int64_t fshape[FV_MAX_NDIM], offset[FV_MAX_NDIM];
    void *stream;
    fv_status st;

    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OiOOOdpO:segmentation_watershed", kwlist, &img_o, &mk_o,
                                     &mask_o, &connectivity, &fp_o, &fps_o, &off_o, &compactness, &wsl, &stream_o))
        return NULL;
    if (fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (fvpy_import(img_o, stream, &img) < 0 || fvpy_import(mk_o, stream, &mk) < 0 ||
        (mask_o != Py_None && fvpy_import(mask_o, stream, &mask) < 0))
        goto done;
    int nd = fv_array_ndim(img.arr);
    if (fp_o != Py_None) {
        if (fvpy_ws_ints(fps_o, nd, "footprint_shape", fshape) < 0)
            goto done;
        Py_ssize_t need = 1;
        for (int d = 0; d < nd; d++)
            need *= fshape[d] > 0 ? (Py_ssize_t)fshape[d] : 0;
        if (!PyBytes_Check(fp_o) || PyBytes_GET_SIZE(fp_o) != need) {
            PyErr_Format(PyExc_ValueError, "footprint must be %zd bytes", need);
            goto done;
        }
        fp = (const uint8_t *)PyBytes_AS_STRING(fp_o);
    }
    if (off_o != Py_None && fvpy_ws_ints(off_o, nd, "offset", offset) < 0)
        goto done;
    fv_device dev = fv_array_device(img.arr);
    if (fvpy_make_context(dev, stream, &ctx) < 0 || fvpy_sync_input(ctx, &img, stream) < 0 ||
        fvpy_sync_input(ctx, &mk, stream) < 0 || (mask.arr && fvpy_sync_input(ctx, &mask, stream) < 0))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    st = fv_array_new(ctx, fv_array_dtype(mk.arr), fv_array_ndim(mk.arr), fv_array_shape(mk.arr),
                      fv_array_device(mk.arr), &out);
    if (st == FV_OK)
        st = fv_watershed(ctx, img.arr, mk.arr, mask.arr, out, connectivity, fp, fp ? fshape : NULL,
                          off_o != Py_None ? offset : NULL, compactness, wsl);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    ret = fvpy_array_new(fv_array_ref(out), stream, dev.type == FV_DEVICE_CUDA);
done:
    fv_array_unref(out);
    fvpy_in_clear(&mask);
    fvpy_in_clear(&mk);
    fvpy_in_clear(&img);
    fv_context_free(ctx);
    return ret;
}
FVPY_METHOD(segmentation_watershed, fvpy_segmentation_watershed, FVPY_KWARGS,
            "segmentation_watershed(image, markers, mask=None, connectivity=1, footprint=None, footprint_shape=None, "
            "offset=None, compactness=0, watershed_line=False, stream=None)\n--\n\n"
            "Watershed of image from markers: labels of the markers' dtype.");
