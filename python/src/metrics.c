/* Binding of the SSIM map (fovea/metrics.h), used by
 * fovea.skimage.metrics.structural_similarity for host data: metrics_ssim_map
 * imports the five moment images (and the optional S output) without copying,
 * runs without the GIL and returns the mean of S over the interior. */
#include "array.h"   /* Python.h first */
#include "errors.h"
#include "fovea/metrics.h"

PyObject *
fvpy_metrics_ssim_map(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ux", "uy", "uxx", "uyy", "uxy", "cov_norm", "c1", "c2", "S", "gradient", "pad", NULL};
    PyObject *o[6] = {NULL, NULL, NULL, NULL, NULL, Py_None}, *ret = NULL;
    fvpy_in in[6] = {{0}};
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
