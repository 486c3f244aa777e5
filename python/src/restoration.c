/* Bindings of include/fovea/restoration.h for fovea.skimage.restoration. The
 * Python layer (python/fovea/skimage/restoration/_deconvolution.py) converts
 * the image and PSF to one float dtype on one device and allocates the output;
 * the binding runs the whole deconvolution without the GIL on the caller's
 * stream. */
#include "array.h" /* Python.h first */
#include "errors.h"

/* richardson_lucy(image, psf, output, num_iter, clip, filter_epsilon=None, stream=None) */
static PyObject *
fvpy_richardson_lucy(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "psf", "output", "num_iter", "clip", "filter_epsilon", "stream", NULL };
    PyObject *img_o, *psf_o, *out_o, *fe_o = Py_None, *stream_o = Py_None;
    int num_iter, clip, filter = 0;
    double fe = 0.0;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOip|OO:richardson_lucy", kwlist, &img_o, &psf_o, &out_o, &num_iter,
                                     &clip, &fe_o, &stream_o))
        return NULL;
    if (fe_o != Py_None) {
        fe = PyFloat_AsDouble(fe_o);
        if (fe == -1.0 && PyErr_Occurred())
            return NULL;
        filter = 1;
    }
    if (fvpy_call_open(&c, "richardson_lucy", stream_o, img_o, out_o, psf_o, "psf", 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fv_richardson_lucy(c.ctx, c.in.arr, c.aux1.arr, num_iter, clip, filter, fe, c.out.arr, NULL, NULL);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(richardson_lucy, fvpy_richardson_lucy, FVPY_KWARGS,
            "richardson_lucy(image, psf, output, num_iter, clip, filter_epsilon=None, stream=None)\n--\n\n"
            "fv_richardson_lucy: Richardson-Lucy deconvolution by FFT (float32/float64, one dtype).");
