/* Binding of marching-squares contours (fovea/contours.h), used by
 * fovea.skimage.measure.find_contours: measure_find_contours imports the
 * float64 image (and the optional bool / uint8 mask) without copying, runs
 * without the GIL and returns (points, offsets) as fovea.Arrays that own the
 * library's buffers: points (N, 2) float64, offsets (count + 1,) int64. */
#include "array.h" /* Python.h first */
#include <stdlib.h>
#include "errors.h"
#include "fovea/contours.h"

static void
fvpy_free_buffer(void *data, void *opaque)
{
    (void)opaque;
    free(data);
}

static PyObject *
fvpy_measure_find_contours(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "level", "fully_connected_high", "mask", NULL };
    PyObject *img_o, *mask_o = Py_None, *ret = NULL, *pts_o = NULL, *off_o = NULL;
    double level;
    int high = 0;
    fvpy_in img = { 0 }, msk = { 0 };
    fv_contours *res = NULL;
    fv_array *pts = NULL, *off = NULL;
    fv_status st;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "Od|pO:measure_find_contours", kwlist, &img_o, &level, &high, &mask_o))
        return NULL;
    if (fvpy_import(img_o, NULL, &img) < 0)
        goto done;
    if (mask_o != Py_None && fvpy_import(mask_o, NULL, &msk) < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
        st = fv_find_contours(NULL, img.arr, msk.arr, level, high, &res);
    Py_END_ALLOW_THREADS
    if (st) {
        fvpy_raise(st);
        goto done;
    }
    {
        const fv_device cpu = { FV_DEVICE_CPU, 0 };
        int64_t pshape[2] = { res->offsets[res->count], 2 }, oshape[1] = { res->count + 1 };
        st = fv_array_wrap(FV_FLOAT64, 2, pshape, NULL, res->points, cpu, fvpy_free_buffer, NULL, &pts);
        res->points = NULL; /* owned by pts now (also on failure) */
        if (st == FV_OK) {
            st = fv_array_wrap(FV_INT64, 1, oshape, NULL, res->offsets, cpu, fvpy_free_buffer, NULL, &off);
            res->offsets = NULL;
        }
        if (st) {
            fvpy_raise(st);
            goto done;
        }
    }
    pts_o = fvpy_array_new(pts, NULL, 0);
    pts = NULL;
    if (!pts_o)
        goto done;
    off_o = fvpy_array_new(off, NULL, 0);
    off = NULL;
    if (!off_o)
        goto done;
    ret = PyTuple_Pack(2, pts_o, off_o);
done:
    Py_XDECREF(pts_o);
    Py_XDECREF(off_o);
    fv_array_unref(pts);
    fv_array_unref(off);
    fv_contours_free(res);
    fvpy_in_clear(&msk);
    fvpy_in_clear(&img);
    return ret;
}
FVPY_METHOD(measure_find_contours, fvpy_measure_find_contours, FVPY_KWARGS,
            "measure_find_contours(image, level, fully_connected_high=False, mask=None) -> (points, offsets): "
            "marching-squares contours of a 2-d float64 host image (fovea/contours.h)");
