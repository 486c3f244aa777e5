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

/* segmentation_slic(image, mask, segments, steps, step, max_num_iter, spacing,
 * slic_zero, ignore_color, start_label, stream) -> labels (fv_slic). */
static PyObject *
fvpy_segmentation_slic(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image",   "mask",      "segments",     "steps",       "step",   "max_num_iter",
                              "spacing", "slic_zero", "ignore_color", "start_label", "stream", NULL };
    PyObject *img_o, *mask_o, *seg_o, *steps_o, *sp_o, *stream_o = Py_None;
    double step;
    long long iters, start_label;
    int slic_zero, ignore_color;
    int64_t steps[3];
    double spacing[3];
    fv_array *out = NULL;
    fv_status st = FV_OK;
    fvpy_call c;

    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOdLOppL|O:segmentation_slic", kwlist, &img_o, &mask_o, &seg_o,
                                     &steps_o, &step, &iters, &sp_o, &slic_zero, &ignore_color, &start_label,
                                     &stream_o) ||
        fvpy_numbers("steps", steps_o, 3, 'L', steps) < 0 || fvpy_numbers("spacing", sp_o, 3, 'd', spacing) < 0)
        return NULL;
    if (fvpy_call_open(&c, "slic", stream_o, img_o, NULL, seg_o, "segments", 1, mask_o, "mask") < 0)
        return fvpy_call_close(&c, FV_OK);
    Py_BEGIN_ALLOW_THREADS
        st = fvpy_call_new(&c, FV_INT64, 3, NULL, &out);
        if (st == FV_OK)
            st = fv_slic(c.ctx, c.in.arr, c.aux2.arr, c.aux1.arr, out, steps, (float)step, iters, spacing, slic_zero,
                         ignore_color, start_label);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(segmentation_slic, fvpy_segmentation_slic, FVPY_KWARGS,
            "segmentation_slic(image, mask, segments, steps, step, max_num_iter, spacing, slic_zero, ignore_color, "
            "start_label, stream=None)\n--\n\n"
            "SLIC's k-means on a (Z, Y, X, C) image: int64 labels; segments updated in place (fv_slic).");

/* segmentation_slic_connect(labels, min_size, max_size, start_label, stream) -> labels */
static PyObject *
fvpy_segmentation_slic_connect(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "labels", "min_size", "max_size", "start_label", "stream", NULL };
    PyObject *lab_o, *stream_o = Py_None;
    long long min_size, max_size, start_label;
    fv_array *out = NULL;
    fv_status st = FV_OK;
    fvpy_call c;

    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OLLL|O:segmentation_slic_connect", kwlist, &lab_o, &min_size, &max_size,
                                     &start_label, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "slic", stream_o, lab_o, NULL, NULL, NULL, 0, NULL, NULL) < 0)
        return fvpy_call_close(&c, FV_OK);
    Py_BEGIN_ALLOW_THREADS
        st = fvpy_call_new(&c, FV_INT64, 3, NULL, &out);
        if (st == FV_OK)
            st = fv_slic_enforce_connectivity(c.ctx, c.in.arr, out, min_size, max_size, start_label);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(segmentation_slic_connect, fvpy_segmentation_slic_connect, FVPY_KWARGS,
            "segmentation_slic_connect(labels, min_size, max_size, start_label, stream=None)\n--\n\n"
            "SLIC's connectivity clean-up of (Z, Y, X) int64 labels (fv_slic_enforce_connectivity).");

/* segmentation_felzenszwalb(image, order, scale, min_size) -> labels */
static PyObject *
fvpy_segmentation_felzenszwalb(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "order", "scale", "min_size", NULL };
    PyObject *img_o, *order_o;
    double scale;
    long long min_size;
    fv_array *out = NULL;
    fv_status st = FV_OK;
    fvpy_call c;

    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOdL:segmentation_felzenszwalb", kwlist, &img_o, &order_o, &scale,
                                     &min_size))
        return NULL;
    if (fvpy_call_open(&c, "felzenszwalb", Py_None, img_o, NULL, order_o, "order", 0, NULL, NULL) < 0)
        return fvpy_call_close(&c, FV_OK);
    Py_BEGIN_ALLOW_THREADS
        st = fvpy_call_new(&c, FV_INT64, 2, NULL, &out);
        if (st == FV_OK)
            st = fv_felzenszwalb(c.ctx, c.in.arr, c.aux1.arr, out, scale, min_size);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(segmentation_felzenszwalb, fvpy_segmentation_felzenszwalb, FVPY_KWARGS,
            "segmentation_felzenszwalb(image, order, scale, min_size)\n--\n\n"
            "Felzenszwalb's segmentation of a smoothed (H, W, C) float64 host image; order: None or the "
            "edges' int64 order (fv_felzenszwalb).");

/* segmentation_quickshift(image, densities, kernel_size, max_dist, parent=None, dist=None) -> labels */
static PyObject *
fvpy_segmentation_quickshift(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "densities", "kernel_size", "max_dist", "parent", "dist", NULL };
    PyObject *img_o, *dens_o, *par_o = Py_None, *dist_o = Py_None;
    double kernel_size, max_dist;
    fv_array *out = NULL;
    fv_status st = FV_OK;
    fvpy_call c;

    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOdd|OO:segmentation_quickshift", kwlist, &img_o, &dens_o, &kernel_size,
                                     &max_dist, &par_o, &dist_o))
        return NULL;
    if (fvpy_call_open(&c, "quickshift", Py_None, img_o, dist_o, dens_o, "densities", 2, par_o, "parent") < 0)
        return fvpy_call_close(&c, FV_OK);
    Py_BEGIN_ALLOW_THREADS
        st = fvpy_call_new(&c, FV_INT64, 2, NULL, &out);
        if (st == FV_OK)
            st = fv_quickshift(c.ctx, c.in.arr, c.aux1.arr, out, kernel_size, max_dist, c.aux2.arr, c.out.arr);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(segmentation_quickshift, fvpy_segmentation_quickshift, FVPY_KWARGS,
            "segmentation_quickshift(image, densities, kernel_size, max_dist, parent=None, dist=None)\n--\n\n"
            "Quickshift of an (H, W, C) float host image: int64 labels; parent / dist receive the tree "
            "(fv_quickshift).");
