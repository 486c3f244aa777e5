/* Binding of the watershed (fovea/segmentation.h), used by
 * fovea.skimage.segmentation.watershed: imports image, markers and mask
 * without copying, allocates labels of the markers' dtype on their device,
 * runs without the GIL and returns a fovea.Array. */
#include "array.h" /* Python.h first */
#include <string.h>
#include "errors.h"
#include "fovea/segmentation.h"

static PyObject *
fvpy_segmentation_watershed(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image",  "markers",     "mask",           "connectivity", "footprint", "footprint_shape",
                              "offset", "compactness", "watershed_line", "stream",       NULL };
    PyObject *img_o, *mk_o, *mask_o = Py_None, *fp_o = Py_None, *fps_o = Py_None, *off_o = Py_None;
    PyObject *stream_o = Py_None;
    int connectivity = 1, wsl = 0;
    double compactness = 0;
    fv_array *out = NULL;
    const uint8_t *fp = NULL;
    int64_t fshape[FV_MAX_NDIM], offset[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OiOOOdpO:segmentation_watershed", kwlist, &img_o, &mk_o, &mask_o,
                                     &connectivity, &fp_o, &fps_o, &off_o, &compactness, &wsl, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "watershed", stream_o, img_o, NULL, mk_o, "markers", 0, mask_o, "mask") < 0)
        return fvpy_call_close(&c, FV_OK);
    const int nd = fv_array_ndim(c.in.arr);
    if (fp_o != Py_None) {
        if (fps_o == Py_None)
            PyErr_SetString(PyExc_TypeError, "footprint_shape is needed with a footprint");
        if (fps_o == Py_None || fvpy_numbers("footprint_shape", fps_o, nd, 'L', fshape) < 0)
            return fvpy_call_close(&c, FV_OK);
        Py_ssize_t need = 1;
        for (int d = 0; d < nd; d++)
            need *= fshape[d] > 0 ? (Py_ssize_t)fshape[d] : 0;
        if (!PyBytes_Check(fp_o) || PyBytes_GET_SIZE(fp_o) != need) {
            PyErr_Format(PyExc_ValueError, "footprint must be %zd bytes", need);
            return fvpy_call_close(&c, FV_OK);
        }
        fp = (const uint8_t *)PyBytes_AS_STRING(fp_o);
    }
    if (fvpy_numbers("offset", off_o, nd, 'L', offset) < 0)
        return fvpy_call_close(&c, FV_OK);
    const fv_array *mk = c.aux1.arr;
    Py_BEGIN_ALLOW_THREADS
        st = fv_array_new(c.ctx, fv_array_dtype(mk), fv_array_ndim(mk), fv_array_shape(mk), fv_array_device(mk), &out);
        if (st == FV_OK)
            st = fv_watershed(c.ctx, c.in.arr, mk, c.aux2.arr, out, connectivity, fp, fp ? fshape : NULL,
                              off_o != Py_None ? offset : NULL, compactness, wsl);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(segmentation_watershed, fvpy_segmentation_watershed, FVPY_KWARGS,
            "segmentation_watershed(image, markers, mask=None, connectivity=1, footprint=None, footprint_shape=None, "
            "offset=None, compactness=0, watershed_line=False, stream=None)\n--\n\n"
            "Watershed of image from markers: labels of the markers' dtype.");
