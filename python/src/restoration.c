/* Bindings of the restoration kernels (fovea/restoration.h), used by
 * fovea.skimage.restoration: rst_tv_chambolle, rst_nl_means,
 * rst_nl_means_fast, rst_tv_bregman, rst_unwrap_gather. Arrays are imported without
 * copying, the work runs without the GIL. */
#include "array.h"   /* Python.h first */
#include "errors.h"
#include "fovea/restoration.h"

/* rst_tv_chambolle(input, output, weight, eps, max_iter, channels, stream=None) */
static PyObject *
fvpy_rst_tv_chambolle(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"input", "output", "weight", "eps", "max_iter", "channels", "stream", NULL};
    PyObject *in_o, *out_o, *stream_o = Py_None;
    double weight, eps;
    long long max_iter;
    int channels;
    fv_status st = FV_OK;
    fvpy_call c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOddLp|O:rst_tv_chambolle", kwlist, &in_o, &out_o, &weight, &eps,
                                     &max_iter, &channels, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "denoise_tv_chambolle", stream_o, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
        st = fv_denoise_tv_chambolle(c.ctx, c.in.arr, c.out.arr, weight, eps, (int64_t)max_iter, channels);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(rst_tv_chambolle, fvpy_rst_tv_chambolle, FVPY_KWARGS,
            "rst_tv_chambolle(input, output, weight, eps, max_iter, channels, stream=None)\n--\n\n"
            "Chambolle total-variation denoising (fv_denoise_tv_chambolle); channels: axis 0 holds\n"
            "independent images.");

/* rst_nl_means(padded, w, output, s, d, var) */
static PyObject *
fvpy_rst_nl_means(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"padded", "w", "output", "s", "d", "var", NULL};
    PyObject *in_o, *w_o, *out_o;
    long long s, d;
    double var;
    fv_status st = FV_OK;
    fvpy_call c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOLLd:rst_nl_means", kwlist, &in_o, &w_o, &out_o, &s, &d, &var))
        return NULL;
    if (fvpy_call_open(&c, "denoise_nl_means", Py_None, in_o, out_o, w_o, "w", 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
        st = fv_denoise_nl_means(c.ctx, c.in.arr, c.aux1.arr, c.out.arr, (int64_t)s, (int64_t)d, var);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(rst_nl_means, fvpy_rst_nl_means, FVPY_KWARGS,
            "rst_nl_means(padded, w, output, s, d, var)\n--\n\n"
            "Pixelwise non-local means (fv_denoise_nl_means) on host arrays.");

/* rst_tv_bregman(input, output, weight, max_iter, eps, isotropic) */
static PyObject *
fvpy_rst_tv_bregman(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"input", "output", "weight", "max_iter", "eps", "isotropic", NULL};
    PyObject *in_o, *out_o;
    double weight, eps;
    long long max_iter;
    int iso;
    fv_status st = FV_OK;
    fvpy_call c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOdLdp:rst_tv_bregman", kwlist, &in_o, &out_o, &weight, &max_iter,
                                     &eps, &iso))
        return NULL;
    if (fvpy_call_open(&c, "denoise_tv_bregman", Py_None, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
        st = fv_denoise_tv_bregman(c.ctx, c.in.arr, c.out.arr, weight, (int64_t)max_iter, eps, iso);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(rst_tv_bregman, fvpy_rst_tv_bregman, FVPY_KWARGS,
            "rst_tv_bregman(input, output, weight, max_iter, eps, isotropic)\n--\n\n"
            "Split-Bregman total-variation denoising (fv_denoise_tv_bregman) on host arrays.");

/* rst_unwrap_gather(edges, increments) */
static PyObject *
fvpy_rst_unwrap_gather(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"edges", "increments", NULL};
    PyObject *in_o, *out_o;
    fv_status st = FV_OK;
    fvpy_call c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:rst_unwrap_gather", kwlist, &in_o, &out_o))
        return NULL;
    if (fvpy_call_open(&c, "unwrap_phase", Py_None, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
        st = fv_unwrap_gather(c.ctx, c.in.arr, c.out.arr);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(rst_unwrap_gather, fvpy_rst_unwrap_gather, FVPY_KWARGS,
            "rst_unwrap_gather(edges, increments)\n--\n\n"
            "The union-find step of the phase unwrapper (fv_unwrap_gather) on host arrays.");

/* rst_nl_means_fast(padded, output, s, d, h, var) */
static PyObject *
fvpy_rst_nl_means_fast(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"padded", "output", "s", "d", "h", "var", NULL};
    PyObject *in_o, *out_o;
    long long s, d;
    double h, var;
    fv_status st = FV_OK;
    fvpy_call c;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOLLdd:rst_nl_means_fast", kwlist, &in_o, &out_o, &s, &d, &h, &var))
        return NULL;
    if (fvpy_call_open(&c, "denoise_nl_means", Py_None, in_o, out_o, NULL, NULL, 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
        st = fv_denoise_nl_means_fast(c.ctx, c.in.arr, c.out.arr, (int64_t)s, (int64_t)d, h, var);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}
FVPY_METHOD(rst_nl_means_fast, fvpy_rst_nl_means_fast, FVPY_KWARGS,
            "rst_nl_means_fast(padded, output, s, d, h, var)\n--\n\n"
            "Non-local means, fast mode (fv_denoise_nl_means_fast), on host float64 arrays.");
