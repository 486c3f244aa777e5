/* Bindings of the restoration kernels (fovea/denoise.h), used by
 * fovea.skimage.restoration: rst_tv_chambolle, rst_nl_means,
 * rst_nl_means_fast, rst_tv_bregman, rst_unwrap_gather. Arrays are imported
 * without copying, the work runs without the GIL. */
#include "array.h" /* Python.h first */
#include "errors.h"
#include "fovea/denoise.h"

/* The parsed scalars of one call. */
typedef struct fvpy__rst_args {
    int flag;
    double d[2];
    long long i[2];
} fvpy__rst_args;

typedef fv_status (*fvpy__rst_fn)(const fvpy_call *c, const fvpy__rst_args *v);

/* Opens the call (input, output, optional w; on the stream), runs fn without
 * the GIL, closes: None or the exception. */
static PyObject *
fvpy__rst_run(const char *name, PyObject *stream_o, PyObject *in_o, PyObject *out_o, PyObject *w_o, fvpy__rst_fn fn,
              const fvpy__rst_args *v)
{
    fv_status st = FV_OK;
    fvpy_call c;
    if (fvpy_call_open(&c, name, stream_o, in_o, out_o, w_o, "w", 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fn(&c, v);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_close(&c, st);
}

static fv_status
fvpy__tv_chambolle(const fvpy_call *c, const fvpy__rst_args *v)
{
    return fv_denoise_tv_chambolle(c->ctx, c->in.arr, c->out.arr, v->d[0], v->d[1], (int64_t)v->i[0], v->flag);
}

/* rst_tv_chambolle(input, output, weight, eps, max_iter, channels, stream=None) */
static PyObject *
fvpy_rst_tv_chambolle(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "weight", "eps", "max_iter", "channels", "stream", NULL };
    PyObject *in_o, *out_o, *stream_o = Py_None;
    fvpy__rst_args v = { 0 };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOddLp|O:rst_tv_chambolle", kwlist, &in_o, &out_o, &v.d[0], &v.d[1],
                                     &v.i[0], &v.flag, &stream_o))
        return NULL;
    return fvpy__rst_run("denoise_tv_chambolle", stream_o, in_o, out_o, NULL, fvpy__tv_chambolle, &v);
}
FVPY_METHOD(rst_tv_chambolle, fvpy_rst_tv_chambolle, FVPY_KWARGS,
            "rst_tv_chambolle(input, output, weight, eps, max_iter, channels, stream=None)\n--\n\n"
            "Chambolle total-variation denoising (fv_denoise_tv_chambolle); channels: axis 0 holds\n"
            "independent images.");

static fv_status
fvpy__nl_means(const fvpy_call *c, const fvpy__rst_args *v)
{
    return fv_denoise_nl_means(c->ctx, c->in.arr, c->aux1.arr, c->out.arr, (int64_t)v->i[0], (int64_t)v->i[1], v->d[0]);
}

/* rst_nl_means(padded, w, output, s, d, var) */
static PyObject *
fvpy_rst_nl_means(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "padded", "w", "output", "s", "d", "var", NULL };
    PyObject *in_o, *w_o, *out_o;
    fvpy__rst_args v = { 0 };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOLLd:rst_nl_means", kwlist, &in_o, &w_o, &out_o, &v.i[0], &v.i[1],
                                     &v.d[0]))
        return NULL;
    return fvpy__rst_run("denoise_nl_means", Py_None, in_o, out_o, w_o, fvpy__nl_means, &v);
}
FVPY_METHOD(rst_nl_means, fvpy_rst_nl_means, FVPY_KWARGS,
            "rst_nl_means(padded, w, output, s, d, var)\n--\n\n"
            "Pixelwise non-local means (fv_denoise_nl_means) on host arrays.");

static fv_status
fvpy__nl_means_fast(const fvpy_call *c, const fvpy__rst_args *v)
{
    return fv_denoise_nl_means_fast(c->ctx, c->in.arr, c->out.arr, (int64_t)v->i[0], (int64_t)v->i[1], v->d[0],
                                    v->d[1]);
}

/* rst_nl_means_fast(padded, output, s, d, h, var) */
static PyObject *
fvpy_rst_nl_means_fast(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "padded", "output", "s", "d", "h", "var", NULL };
    PyObject *in_o, *out_o;
    fvpy__rst_args v = { 0 };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOLLdd:rst_nl_means_fast", kwlist, &in_o, &out_o, &v.i[0], &v.i[1],
                                     &v.d[0], &v.d[1]))
        return NULL;
    return fvpy__rst_run("denoise_nl_means", Py_None, in_o, out_o, NULL, fvpy__nl_means_fast, &v);
}
FVPY_METHOD(rst_nl_means_fast, fvpy_rst_nl_means_fast, FVPY_KWARGS,
            "rst_nl_means_fast(padded, output, s, d, h, var)\n--\n\n"
            "Non-local means, fast mode (fv_denoise_nl_means_fast), on host float64 arrays.");

static fv_status
fvpy__tv_bregman(const fvpy_call *c, const fvpy__rst_args *v)
{
    return fv_denoise_tv_bregman(c->ctx, c->in.arr, c->out.arr, v->d[0], (int64_t)v->i[0], v->d[1], v->flag);
}

/* rst_tv_bregman(input, output, weight, max_iter, eps, isotropic) */
static PyObject *
fvpy_rst_tv_bregman(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "input", "output", "weight", "max_iter", "eps", "isotropic", NULL };
    PyObject *in_o, *out_o;
    fvpy__rst_args v = { 0 };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOdLdp:rst_tv_bregman", kwlist, &in_o, &out_o, &v.d[0], &v.i[0],
                                     &v.d[1], &v.flag))
        return NULL;
    return fvpy__rst_run("denoise_tv_bregman", Py_None, in_o, out_o, NULL, fvpy__tv_bregman, &v);
}
FVPY_METHOD(rst_tv_bregman, fvpy_rst_tv_bregman, FVPY_KWARGS,
            "rst_tv_bregman(input, output, weight, max_iter, eps, isotropic)\n--\n\n"
            "Split-Bregman total-variation denoising (fv_denoise_tv_bregman) on host arrays.");

static fv_status
fvpy__unwrap_gather(const fvpy_call *c, const fvpy__rst_args *v)
{
    (void)v;
    return fv_unwrap_gather(c->ctx, c->in.arr, c->out.arr);
}

/* rst_unwrap_gather(edges, increments) */
static PyObject *
fvpy_rst_unwrap_gather(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "edges", "increments", NULL };
    PyObject *in_o, *out_o;
    fvpy__rst_args v = { 0 };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:rst_unwrap_gather", kwlist, &in_o, &out_o))
        return NULL;
    return fvpy__rst_run("unwrap_phase", Py_None, in_o, out_o, NULL, fvpy__unwrap_gather, &v);
}
FVPY_METHOD(rst_unwrap_gather, fvpy_rst_unwrap_gather, FVPY_KWARGS,
            "rst_unwrap_gather(edges, increments)\n--\n\n"
            "The union-find step of the phase unwrapper (fv_unwrap_gather) on host arrays.");
