/* Bindings of the scikit-image morphology kernels (fovea/skmorphology.h), used
 * by fovea.skimage.morphology: skmorph_reconstruction, skmorph_local_maxima,
 * skmorph_thin (thin and skeletonize), skmorph_medial_axis, skmorph_max_tree
 * (the tree and its filters), skmorph_flood, skmorph_objects_by_distance. Each imports its arrays without copying,
 * allocates the result on their device, runs without the GIL and returns a
 * fovea.Array. Footprints come as bytes (C order, one byte per element) with
 * their shape as a tuple. */
#include "array.h" /* Python.h first */
#include <string.h>
#include "errors.h"
#include "fovea/skmorphology.h"

/* A tuple/list of ndim ints into out; None leaves *given = 0. 0 or -1. */
static int
fvpy__int_tuple(const char *name, PyObject *o, int ndim, int64_t *out, int *given)
{
    *given = o != Py_None;
    return fvpy_numbers(name, o, ndim, 'L', out);
}

/* A footprint given as bytes (or None) with shape fshape_o (or None), for an
 * image of ndim dimensions; *fp stays NULL for None. expect3: every extent 3. */
static int
fvpy__footprint(PyObject *fp_o, PyObject *fshape_o, int ndim, int expect3, const uint8_t **fp, int64_t *fshape,
                int *given)
{
    *fp = NULL;
    *given = 0;
    if (fp_o == Py_None)
        return 0;
    if (!PyBytes_Check(fp_o)) {
        PyErr_SetString(PyExc_TypeError, "footprint must be bytes");
        return -1;
    }
    int g = 0;
    if (fvpy__int_tuple("footprint shape", fshape_o, ndim, fshape, &g) < 0)
        return -1;
    if (!g) {
        PyErr_SetString(PyExc_ValueError, "footprint shape missing");
        return -1;
    }
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (fshape[d] < 1 || fshape[d] > (int64_t)1 << 20 || (expect3 && fshape[d] != 3)) {
            PyErr_Format(PyExc_ValueError, "footprint extent %lld along axis %d is not allowed", (long long)fshape[d],
                         d);
            return -1;
        }
        n *= fshape[d];
        if (n > (int64_t)1 << 30) {
            PyErr_SetString(PyExc_ValueError, "footprint too large");
            return -1;
        }
    }
    if (PyBytes_GET_SIZE(fp_o) != n) {
        PyErr_Format(PyExc_ValueError, "footprint holds %zd bytes, its shape needs %lld", PyBytes_GET_SIZE(fp_o),
                     (long long)n);
        return -1;
    }
    *fp = (const uint8_t *)PyBytes_AS_STRING(fp_o);
    *given = 1;
    return 0;
}

static PyObject *
fvpy_skmorph_reconstruction(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "seed", "mask", "method", "footprint", "fshape", "offset", "stream", NULL };
    PyObject *seed_o, *mask_o, *fp_o = Py_None, *fshape_o = Py_None, *offset_o = Py_None, *stream_o = Py_None;
    int method = 0, have_fp = 0, have_off = 0;
    fv_array *out = NULL;
    const uint8_t *fp = NULL;
    int64_t fshape[FV_MAX_NDIM], offset[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|iOOOO:skmorph_reconstruction", kwlist, &seed_o, &mask_o, &method,
                                     &fp_o, &fshape_o, &offset_o, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "reconstruction", stream_o, seed_o, NULL, mask_o, "mask", 0, NULL, NULL) < 0)
        return fvpy_call_close(&c, FV_OK);
    const int nd = fv_array_ndim(c.in.arr);
    if (fvpy__footprint(fp_o, fshape_o, nd, 0, &fp, fshape, &have_fp) < 0 ||
        fvpy__int_tuple("offset", offset_o, nd, offset, &have_off) < 0)
        return fvpy_call_close(&c, FV_OK);
    Py_BEGIN_ALLOW_THREADS
        st = fvpy_call_new(&c, fv_array_dtype(c.in.arr), nd, NULL, &out);
        if (st == FV_OK)
            st = fv_reconstruction(c.ctx, c.in.arr, c.aux1.arr, out, (fv_reconstruction_method)method, fp,
                                   have_fp ? fshape : NULL, have_off ? offset : NULL);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(
    skmorph_reconstruction, fvpy_skmorph_reconstruction, FVPY_KWARGS,
    "skmorph_reconstruction(seed, mask, method=0, footprint=None, fshape=None, offset=None, stream=None)\n--\n\n"
    "Grayscale reconstruction by dilation (0) or erosion (1); footprint as bytes of shape fshape.");

static PyObject *
fvpy_skmorph_local_maxima(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "footprint", "minima", "stream", NULL };
    PyObject *img_o, *fp_o = Py_None, *stream_o = Py_None;
    int minima = 0, have_fp = 0;
    fv_array *out = NULL;
    const uint8_t *fp = NULL;
    int64_t fshape[FV_MAX_NDIM];
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OpO:skmorph_local_maxima", kwlist, &img_o, &fp_o, &minima, &stream_o))
        return NULL;
    if (fvpy_call_open(&c, "local_maxima", stream_o, img_o, NULL, NULL, NULL, 0, NULL, NULL) < 0)
        return fvpy_call_close(&c, FV_OK);
    const int nd = fv_array_ndim(c.in.arr);
    PyObject *fshape_o = NULL;
    if (fp_o != Py_None) { /* always 3 x ... x 3 */
        if (!(fshape_o = PyTuple_New(nd)))
            return fvpy_call_close(&c, FV_OK);
        for (int d = 0; d < nd; d++)
            PyTuple_SET_ITEM(fshape_o, d, PyLong_FromLong(3));
    }
    int rc = fvpy__footprint(fp_o, fshape_o ? fshape_o : Py_None, nd, 1, &fp, fshape, &have_fp);
    Py_XDECREF(fshape_o);
    if (rc < 0)
        return fvpy_call_close(&c, FV_OK);
    Py_BEGIN_ALLOW_THREADS
        st = fvpy_call_new(&c, FV_BOOL, nd, NULL, &out);
        if (st == FV_OK)
            st = fv_local_maxima(c.ctx, c.in.arr, out, fp, minima);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(skmorph_local_maxima, fvpy_skmorph_local_maxima, FVPY_KWARGS,
            "skmorph_local_maxima(image, footprint=None, minima=False, stream=None)\n--\n\n"
            "Plateau-aware local maxima (minima) flags; footprint: bytes of a 3 x ... x 3 array.");

static PyObject *
fvpy_skmorph_thin(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "max_num_iter", "stream", "skeleton", NULL };
    PyObject *img_o, *stream_o = Py_None;
    long long max_num_iter = 0;
    int skeleton = -1;
    fv_array *out = NULL;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|LOi:skmorph_thin", kwlist, &img_o, &max_num_iter, &stream_o,
                                     &skeleton))
        return NULL;
    if (fvpy_call_open(&c, skeleton < 0 ? "thin" : "skeletonize", stream_o, img_o, NULL, NULL, NULL, 0, NULL, NULL) ==
        0) {
        Py_BEGIN_ALLOW_THREADS
            st = fvpy_call_new(&c, FV_BOOL, fv_array_ndim(c.in.arr), NULL, &out);
            if (st == FV_OK)
                st = skeleton < 0 ? fv_thin(c.ctx, c.in.arr, out, (int64_t)max_num_iter)
                                  : fv_skeletonize(c.ctx, c.in.arr, out, (fv_skeleton_method)skeleton);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(skmorph_thin, fvpy_skmorph_thin, FVPY_KWARGS,
            "skmorph_thin(image, max_num_iter=0, stream=None, skeleton=-1)\n--\n\n"
            "Two-subiteration thinning of a 2-d image (skeleton < 0), or its skeleton: fv_skeletonize with "
            "method skeleton (0: Zhang, 2-d; 1: Lee, 2-d / 3-d, host).");

static PyObject *
fvpy_skmorph_medial_axis(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "order", NULL };
    PyObject *img_o, *order_o;
    fv_array *out = NULL;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:skmorph_medial_axis", kwlist, &img_o, &order_o))
        return NULL;
    if (fvpy_call_open(&c, "medial_axis", Py_None, img_o, NULL, order_o, "order", 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fvpy_call_new(&c, FV_BOOL, fv_array_ndim(c.in.arr), NULL, &out);
            if (st == FV_OK)
                st = fv_medial_axis_thin(c.ctx, c.in.arr, c.aux1.arr, out);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(skmorph_medial_axis, fvpy_skmorph_medial_axis, FVPY_KWARGS,
            "skmorph_medial_axis(image, order)\n--\n\nThe ordered pass of medial_axis (host arrays).");

static PyObject *
fvpy_skmorph_max_tree(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "order", "footprint", "fshape", "parent", "attr", "threshold", NULL };
    PyObject *img_o, *order_o, *fp_o = Py_None, *fshape_o = Py_None, *parent_o = Py_None;
    int have_fp = 0, attr = -1;
    double threshold = 0.0;
    const uint8_t *fp = NULL;
    int64_t fshape[FV_MAX_NDIM];
    fv_array *out = NULL;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOid:skmorph_max_tree", kwlist, &img_o, &order_o, &fp_o, &fshape_o,
                                     &parent_o, &attr, &threshold))
        return NULL;
    const int build = attr < 0;
    if (fvpy_call_open(&c, build ? "max_tree" : "max_tree_filter", Py_None, img_o, NULL, order_o, "order", 0,
                       build ? NULL : parent_o, "parent") < 0 ||
        fvpy__footprint(fp_o, fshape_o, fv_array_ndim(c.in.arr), 0, &fp, fshape, &have_fp) < 0)
        return fvpy_call_close(&c, FV_OK);
    fv_dtype dt = fv_array_dtype(c.in.arr); /* the filters' */
    if (build)
        dt = FV_INT64; /* parent */
    else if (attr == FV_MAX_TREE_LOCAL_MAXIMA)
        dt = FV_UINT64;
    Py_BEGIN_ALLOW_THREADS
        st = fvpy_call_new(&c, dt, fv_array_ndim(c.in.arr), NULL, &out);
        if (st == FV_OK)
            st = build
                ? fv_max_tree(c.ctx, c.in.arr, c.aux1.arr, out, fp, have_fp ? fshape : NULL)
                : fv_max_tree_filter(c.ctx, c.in.arr, c.aux2.arr, c.aux1.arr, out, (fv_max_tree_attr)attr, threshold);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(skmorph_max_tree, fvpy_skmorph_max_tree, FVPY_KWARGS,
            "skmorph_max_tree(image, order, footprint=None, fshape=None, parent=None, attr=-1, threshold=0)\n--\n\n"
            "attr < 0: the parent array (int64) of the canonized max-tree, neighbours from footprint (bytes of "
            "shape fshape); order: the stable argsort of image. attr 0 / 1: area / diameter direct filter of "
            "the tree (parent, order) at threshold; 2: local maxima labels (uint64). Host arrays.");

static PyObject *
fvpy_skmorph_flood(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "image", "seed", "bounds", "footprint", "fshape", NULL };
    PyObject *img_o, *seed_o, *bounds_o, *fp_o, *fshape_o;
    int have_fp = 0, have_seed = 0;
    const uint8_t *fp = NULL;
    int64_t fshape[FV_MAX_NDIM], seed[FV_MAX_NDIM];
    fv_array *out = NULL;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO:skmorph_flood", kwlist, &img_o, &seed_o, &bounds_o, &fp_o,
                                     &fshape_o))
        return NULL;
    if (fvpy_call_open(&c, "flood", Py_None, img_o, NULL, bounds_o == Py_None ? NULL : bounds_o, "bounds", 0, NULL,
                       NULL) < 0)
        return fvpy_call_close(&c, FV_OK);
    const int nd = fv_array_ndim(c.in.arr);
    if (fvpy__int_tuple("seed", seed_o, nd, seed, &have_seed) < 0 ||
        fvpy__footprint(fp_o, fshape_o, nd, 0, &fp, fshape, &have_fp) < 0)
        return fvpy_call_close(&c, FV_OK);
    Py_BEGIN_ALLOW_THREADS
        st = fvpy_call_new(&c, FV_BOOL, nd, NULL, &out);
        if (st == FV_OK)
            st = fv_flood(c.ctx, c.in.arr, have_seed ? seed : NULL, c.aux1.arr, fp, have_fp ? fshape : NULL, out);
    Py_END_ALLOW_THREADS
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(skmorph_flood, fvpy_skmorph_flood, FVPY_KWARGS,
            "skmorph_flood(image, seed, bounds, footprint, fshape)\n--\n\n"
            "Flood mask from seed (tuple) within bounds (None: the seed's value; else [low, high] of image's dtype).");

static PyObject *
fvpy_skmorph_objects_by_distance(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "points", "objects", "nobj", "min_distance", "p_norm", NULL };
    PyObject *pts_o, *obj_o;
    long long nobj;
    double dist, p_norm;
    fv_array *out = NULL;
    fv_status st = FV_OK;
    fvpy_call c;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOLdd:skmorph_objects_by_distance", kwlist, &pts_o, &obj_o, &nobj,
                                     &dist, &p_norm))
        return NULL;
    if (nobj < 0) {
        PyErr_SetString(PyExc_ValueError, "nobj must be >= 0");
        return NULL;
    }
    const int64_t shape[1] = { (int64_t)nobj };
    if (fvpy_call_open(&c, "objects_by_distance", Py_None, pts_o, NULL, obj_o, "objects", 0, NULL, NULL) == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = fvpy_call_new(&c, FV_BOOL, 1, shape, &out);
            if (st == FV_OK)
                st = fv_objects_by_distance(c.ctx, c.in.arr, c.aux1.arr, dist, p_norm, out);
        Py_END_ALLOW_THREADS
    }
    return fvpy_call_result(&c, st, out);
}
FVPY_METHOD(skmorph_objects_by_distance, fvpy_skmorph_objects_by_distance, FVPY_KWARGS,
            "skmorph_objects_by_distance(points, objects, nobj, min_distance, p_norm)\n--\n\n"
            "The removed objects (bool, nobj) of remove_objects_by_distance's greedy pass (host arrays).");
