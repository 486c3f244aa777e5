/* Binding of the Hessian ridge op (fv_hessian_ridge, include/fovea/filters.h),
 * used by fovea.skimage.filters frangi / hessian / sato / meijering:
 * hessian_ridge(elems, acc, filter, alpha=0, beta=0, gamma=nan, sigma=0,
 * work=None, scal=None, stream=None) -> None. elems: a sequence of 3 (2-d) or
 * 6 (3-d) Hessian planes; acc, work, scal are updated in place. The arrays are
 * imported without copying (NumPy or CuPy, one device) and the op runs without
 * the GIL on the caller's stream. */
#include "array.h" /* Python.h first */
#include <math.h>
#include "errors.h"
#include "fovea/filters.h"

static PyObject *
fvpy_hessian_ridge(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "elems", "acc",  "filter", "alpha",  "beta", "gamma",
                              "sigma", "work", "scal",   "stream", NULL };
    PyObject *elems_o, *acc_o, *work_o = Py_None, *scal_o = Py_None, *stream_o = Py_None, *ret = NULL;
    fvpy_in a[9] = { { 0 } }; /* the Hessian planes, then acc, work, scal (absent: no array) */
    fv_context *ctx = NULL;
    fv_ridge_params p = { FV_RIDGE_FRANGI, 0, 0, NAN, 0 };
    int filter, nh = 0;
    void *stream;
    fv_status st;
    (void)self;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|ddddOOO:hessian_ridge", kwlist, &elems_o, &acc_o, &filter, &p.alpha,
                                     &p.beta, &p.gamma, &p.sigma, &work_o, &scal_o, &stream_o))
        return NULL;
    p.filter = (fv_ridge_filter)filter;
    if (fvpy_parse_stream(stream_o, &stream) < 0)
        return NULL;
    if (fvpy_import_list("hessian_ridge", "Hessian planes", elems_o, 3, 6, stream, a, &nh) < 0)
        goto done;
    if (nh != 3 && nh != 6) {
        PyErr_Format(PyExc_ValueError, "hessian_ridge: needs 3 or 6 Hessian planes, got %d", nh);
        goto done;
    }
    fvpy_in *acc = &a[nh], *work = &a[nh + 1], *scal = &a[nh + 2];
    if ((acc_o != Py_None && fvpy_import(acc_o, stream, acc) < 0) ||
        (work_o != Py_None && fvpy_import(work_o, stream, work) < 0) ||
        (scal_o != Py_None && fvpy_import(scal_o, stream, scal) < 0) || fvpy_sync_list(a, nh + 3, stream, &ctx) < 0)
        goto done;
    {
        const fv_array *ha[6] = { NULL };
        for (int k = 0; k < nh; k++)
            ha[k] = a[k].arr;
        Py_BEGIN_ALLOW_THREADS
            st = fv_hessian_ridge(ctx, ha, nh, acc->arr, work->arr, scal->arr, &p);
        Py_END_ALLOW_THREADS
    }
    ret = fvpy_status(st);
done:
    fvpy_clear_list(a, 9);
    fv_context_free(ctx);
    return ret;
}
FVPY_METHOD(
    hessian_ridge, fvpy_hessian_ridge, FVPY_KWARGS,
    "hessian_ridge(elems, acc, filter, alpha=0, beta=0, gamma=nan, sigma=0, work=None, scal=None, stream=None): "
    "one scale of frangi (0) / sato (1) / meijering (2) from the Hessian planes into acc, or the max Hessian "
    "norm into scal (3)");
