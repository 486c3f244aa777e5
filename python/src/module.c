/* fovea._fovea: module init, exception types, the function table, and the small
 * functions (configuration, version, the command line). */
#include "array.h"   /* Python.h first */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "errors.h"
#include "cli.h"

/* Defined in slide.c: the Slide type and the tile cache / format detection functions. */
int fvpy_slide_init(PyObject *m);
PyObject *fvpy_slide_detect_vendor(PyObject *self, PyObject *path);
PyObject *fvpy_cache_set_capacity(PyObject *self, PyObject *bytes);
PyObject *fvpy_cache_stats(PyObject *self, PyObject *unused);
PyObject *fvpy_cache_reset_stats(PyObject *self, PyObject *unused);
PyObject *fvpy_cache_clear(PyObject *self, PyObject *unused);
PyObject *fvpy_gpu_cache_set_capacity(PyObject *self, PyObject *bytes);
PyObject *fvpy_gpu_cache_stats(PyObject *self, PyObject *unused);
PyObject *fvpy_gpu_cache_reset_stats(PyObject *self, PyObject *unused);
PyObject *fvpy_gpu_cache_clear(PyObject *self, PyObject *unused);
PyObject *fvpy_cache_configure(PyObject *self, PyObject *args);
PyObject *fvpy_gpu_read_stats(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_gpu_release(PyObject *self, PyObject *noargs);
PyObject *fvpy_cache_type(PyObject *self, PyObject *unused);
PyObject *fvpy_cache_shm_name(PyObject *self, PyObject *unused);
PyObject *fvpy_cache_attach_shared(PyObject *self, PyObject *name);

/* Defined in runtime.c: fault points and run-time diagnostics for the tests. */
PyObject *fvpy_fault_arm(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_fault_stats(PyObject *self, PyObject *arg);
PyObject *fvpy_cuda_pool(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_loaded_libraries(PyObject *self, PyObject *unused);
/* Defined in color.c: the colour conversions of fovea.skimage.color. */
PyObject *fvpy_color_convert(PyObject *self, PyObject *args, PyObject *kw);
/* Defined in filesystem.c: the CuFileDriver type and fovea.filesystem's functions. */
int fvpy_filesystem_init(PyObject *m);
PyObject *fvpy_fs_open(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_fs_discard_page_cache(PyObject *self, PyObject *path);
PyObject *fvpy_fs_is_gds_available(PyObject *self, PyObject *unused);
PyObject *fvpy_fs_gds_status(PyObject *self, PyObject *unused);

/* Defined in skmorphology.c: the scikit-image morphology kernels. */
PyObject *fvpy_skmorph_reconstruction(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_skmorph_local_maxima(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_skmorph_thin(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_skmorph_medial_axis(PyObject *self, PyObject *args, PyObject *kw);
/* Defined in exposure.c: histograms, min / max, CLAHE. */
PyObject *fvpy_exp_minmax(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_exp_histogram(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_exp_clahe(PyObject *self, PyObject *args, PyObject *kw);
/* Defined in variants.c: the planner's private test hooks. */
PyObject *fvpy_variants(PyObject *self, PyObject *args);
PyObject *fvpy_force_variant(PyObject *self, PyObject *args);
PyObject *fvpy_last_variant(PyObject *self, PyObject *args);
/* Defined in measure.c: connected-component labelling. */
PyObject *fvpy_measure_label(PyObject *self, PyObject *args, PyObject *kw);
/* Defined in segmentation.c: the watershed. */
PyObject *fvpy_segmentation_watershed(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_measure_region_stats(PyObject *self, PyObject *args, PyObject *kw);
/* Defined in contours.c: marching-squares contours. */
PyObject *fvpy_measure_find_contours(PyObject *self, PyObject *args, PyObject *kw);
/* Defined in metrics.c: the pointwise SSIM map. */
PyObject *fvpy_metrics_ssim_map(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_metrics_nearest_points(PyObject *self, PyObject *args, PyObject *kw);
/* Defined in ndimage.c: the filter and morphology bindings behind fovea.ndimage. */
PyObject *fvpy_ndi_correlate1d(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_filter1d(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_separable(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_laplace(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_correlate(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_min_or_max_filter(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_rank_filter(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_binary_erosion(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_distance_transform_edt(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_distance_transform_cdt(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fvpy_ndi_assign(PyObject *self, PyObject *args, PyObject *kw);
/* Defined in ridge.c: one scale of the Hessian ridge filters. */
PyObject *fvpy_hessian_ridge(PyObject *self, PyObject *args, PyObject *kw);
/* Defined in gradnorm.c: the elementwise tail of the gradient magnitudes. */
PyObject *fvpy_gradient_norm(PyObject *self, PyObject *args, PyObject *kw);

static PyObject *
fvpy_gpu_available(PyObject *self, PyObject *unused)
{
    int avail;
    Py_BEGIN_ALLOW_THREADS
    avail = fv_cuda_available();
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(avail);
}

static PyObject *
fvpy_config(PyObject *self, PyObject *unused)
{
    const char *js;
    PyObject *json, *ret;
    Py_BEGIN_ALLOW_THREADS
    js = fv_config_json();
    Py_END_ALLOW_THREADS
    if (!(json = PyImport_ImportModule("json")))
        return NULL;
    ret = PyObject_CallMethod(json, "loads", "s", js);
    Py_DECREF(json);
    return ret;
}

static PyObject *
fvpy_version(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(fv_version());
}

static PyObject *
fvpy_num_threads(PyObject *self, PyObject *unused)
{
    int n;
    Py_BEGIN_ALLOW_THREADS
    n = fv_num_threads();
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(n);
}

static PyObject *
fvpy_refcount(PyObject *self, PyObject *arg)
{
    if (!fvpy_Array_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "_refcount: expected fovea.Array, got %.100s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    return PyLong_FromLong(fv_array_refcount(((fvpy_Array *)arg)->arr));
}

static int
fvpy__flush(const char *name)
{
    PyObject *f = PySys_GetObject(name);   /* borrowed */
    if (f && f != Py_None) {
        PyObject *r = PyObject_CallMethod(f, "flush", NULL);
        if (!r)
            return -1;
        Py_DECREF(r);
    }
    return 0;
}

static PyObject *
fvpy_cli_main(PyObject *self, PyObject *arg)
{
    PyObject *seq = NULL, *ret = NULL;
    char **argv = NULL;
    Py_ssize_t argc = 0;
    int rc;

    if (PyUnicode_Check(arg) || PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "cli_main: argv must be a list of str, not a single string");
        return NULL;
    }
    if (!(seq = PySequence_Fast(arg, "cli_main: argv must be a list of str")))
        return NULL;
    argc = PySequence_Fast_GET_SIZE(seq);
    if (argc < 1 || argc > 1 << 20) {
        PyErr_SetString(PyExc_ValueError, "cli_main: argv needs at least the program name");
        goto done;
    }
    if (!(argv = calloc((size_t)argc + 1, sizeof *argv))) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < argc; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
        const char *u = PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : NULL;
        if (!u) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "cli_main: argv[%zd] must be str, not %.100s", i,
                             Py_TYPE(s)->tp_name);
            goto done;
        }
        if (!(argv[i] = strdup(u))) {   /* the list may change while the GIL is released */
            PyErr_NoMemory();
            goto done;
        }
    }
    if (fvpy__flush("stdout") < 0 || fvpy__flush("stderr") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    rc = fovea_cli_main((int)argc, argv);
    fflush(stdout);
    fflush(stderr);
    Py_END_ALLOW_THREADS
    ret = PyLong_FromLong(rc);
done:
    if (argv)
        for (Py_ssize_t i = 0; i < argc; i++)
            free(argv[i]);
    free(argv);
    Py_XDECREF(seq);
    return ret;
}

#define FVPY_KW(fn) (PyCFunction)(void (*)(void))(fn), METH_VARARGS | METH_KEYWORDS

static PyMethodDef fvpy_methods[] = {
    {"asarray", FVPY_KW(fvpy_asarray),
     "asarray(obj, stream=None)\n--\n\nView obj (NumPy, CuPy, PyTorch, any DLPack producer or capsule) as a "
     "fovea.Array without copying."},
    {"empty", FVPY_KW(fvpy_empty),
     "empty(shape, dtype='float64', device='cpu', stream=None)\n--\n\nA new uninitialised C-contiguous "
     "array."},
    {"astype", FVPY_KW(fvpy_astype),
     "astype(x, dtype, stream=None)\n--\n\nx converted to dtype (NumPy casts; float -> int saturates, "
     "NaN -> 0)."},
    {"add", FVPY_KW(fvpy_add),
     "add(a, b, dtype=None, stream=None)\n--\n\na + b with NumPy broadcasting and promotion."},
    {"multiply", FVPY_KW(fvpy_multiply),
     "multiply(a, b, dtype=None, stream=None)\n--\n\na * b with NumPy broadcasting and promotion."},
    {"copy", FVPY_KW(fvpy_copy),
     "copy(x, device=None, stream=None)\n--\n\nA C-contiguous copy of x on device (default: x's)."},
    {"to_device", FVPY_KW(fvpy_to_device),
     "to_device(x, device, stream=None)\n--\n\nx on device ('cpu', 'cuda', 'cuda:N'); no copy when it "
     "is there already."},
    {"gpu_available", fvpy_gpu_available, METH_NOARGS,
     "gpu_available()\n--\n\nTrue when the CUDA backend was built and a driver and GPU were found."},
    {"config", fvpy_config, METH_NOARGS, "config()\n--\n\nBuild and runtime configuration as a dict."},
    {"version", fvpy_version, METH_NOARGS, "version()\n--\n\nThe C library's version string."},
    {"num_threads", fvpy_num_threads, METH_NOARGS, "num_threads()\n--\n\nSize of the CPU thread pool."},
    {"cli_main", fvpy_cli_main, METH_O,
     "cli_main(argv)\n--\n\nRun the fovea command line (argv[0] is the program name); returns the exit "
     "status."},
    {"slide_detect_vendor", fvpy_slide_detect_vendor, METH_O,
     "slide_detect_vendor(path)\n--\n\nThe slide format of path ('aperio', 'generic-tiff', ...), or None when "
     "fovea cannot read it."},
    {"cache_set_capacity", fvpy_cache_set_capacity, METH_O,
     "cache_set_capacity(nbytes)\n--\n\nCapacity of the process-wide decoded-tile cache in bytes (0 "
     "disables it; shrinking evicts at once)."},
    {"cache_stats", fvpy_cache_stats, METH_NOARGS,
     "cache_stats()\n--\n\nTile cache counters: dict of hits, misses, evictions, bytes, capacity, "
     "entries."},
    {"cache_reset_stats", fvpy_cache_reset_stats, METH_NOARGS,
     "cache_reset_stats()\n--\n\nZero the hit, miss and eviction counters."},
    {"cache_clear", fvpy_cache_clear, METH_NOARGS,
     "cache_clear()\n--\n\nDrop every cached tile (the capacity stays)."},
    {"gpu_cache_set_capacity", fvpy_gpu_cache_set_capacity, METH_O,
     "gpu_cache_set_capacity(nbytes)\n--\n\nCapacity per GPU of the GPU reads' device tile cache in bytes (0 "
     "disables it; default 1 GiB or FOVEA_GPU_CACHE_BYTES)."},
    {"gpu_cache_stats", fvpy_gpu_cache_stats, METH_NOARGS,
     "gpu_cache_stats()\n--\n\nDevice tile cache counters (all GPUs): dict of hits, misses, evictions, bytes, "
     "capacity, entries."},
    {"gpu_cache_reset_stats", fvpy_gpu_cache_reset_stats, METH_NOARGS,
     "gpu_cache_reset_stats()\n--\n\nZero the device tile cache's hit, miss and eviction counters."},
    {"gpu_cache_clear", fvpy_gpu_cache_clear, METH_NOARGS,
     "gpu_cache_clear()\n--\n\nDrop every device-cached tile not in use (the capacity stays)."},
    {"gpu_read_stats", (PyCFunction)(void (*)(void))fvpy_gpu_read_stats, METH_VARARGS | METH_KEYWORDS,
     "gpu_read_stats(reset=False)\n--\n\nCounters of the GPU slide reader: regions, tiles_gpu (decoded by "
     "nvJPEG), tiles_cpu (decoded on the CPU and copied), bytes_read (compressed bytes staged for nvJPEG), "
     "io_s (host seconds reading and CPU-decoding, wall time of those phases), decode_s and assemble_s (GPU "
     "seconds from CUDA events). reset=True zeroes them after reading."},
    {"gpu_release", fvpy_gpu_release, METH_NOARGS,
     "gpu_release()\n--\n\nFree what GPU slide reads keep between calls (pinned staging, device scratch, "
     "streams, nvJPEG decoders and handles); the next GPU read creates them again. Also runs at exit."},
    {"cache_configure", fvpy_cache_configure, METH_VARARGS,
     "cache_configure(type, capacity)\n--\n\nReplace the process's tile cache with a new one: type "
     "'per_process', 'nocache' or 'shared_memory'; capacity in bytes. Statistics start from zero."},
    /* the planner's private test hooks (variants.c) */
    {"_variants", fvpy_variants, METH_VARARGS, "_variants(op=None)\n--\n\nKernel variant names of op, or {op: names}."},
    {"_force_variant", fvpy_force_variant, METH_VARARGS,
     "_force_variant(op, name)\n--\n\nThis thread's forced variant of op (None: none; op None: clear all)."},
    {"_last_variant", fvpy_last_variant, METH_VARARGS,
     "_last_variant(op)\n--\n\nThe variant this thread's last call of op ran (op None: forget all)."},
    {"cache_type", fvpy_cache_type, METH_NOARGS,
     "cache_type()\n--\n\nThe current cache type: 'per_process', 'nocache' or 'shared_memory'."},
    {"cache_shm_name", fvpy_cache_shm_name, METH_NOARGS,
     "cache_shm_name()\n--\n\nThe shared-memory segment's name ('' unless the type is shared_memory)."},
    {"cache_attach_shared", fvpy_cache_attach_shared, METH_O,
     "cache_attach_shared(name)\n--\n\nUse the existing shared-memory cache segment `name`."},
    /* colour conversions (color.c), used by fovea.skimage.color */
    {"color_convert", FVPY_KW(fvpy_color_convert),
     "color_convert(input, conv, out_dtype, out_channels, input2=None, matrix=None, pre=0, post=0, "
     "pre_offset=None, post_offset=None, white=None, background=None, k=None, stream=None)\n--\n\n"
     "fv_color_convert (or fv_color_delta_e with input2) on channels-last data; out_channels -1: no channel axis."},
    /* fovea.filesystem (filesystem.c): see python/fovea/filesystem.py */
    {"fs_open", FVPY_KW(fvpy_fs_open),
     "fs_open(file_path, flags='r', mode=0o644)\n--\n\nOpen a file as a CuFileDriver (fv_file_open)."},
    {"fs_discard_page_cache", fvpy_fs_discard_page_cache, METH_O,
     "fs_discard_page_cache(file_path)\n--\n\nfdatasync, then drop the file's pages from the page cache; True."},
    {"fs_is_gds_available", fvpy_fs_is_gds_available, METH_NOARGS,
     "fs_is_gds_available()\n--\n\nTrue when cuFile runs in true GPUDirect Storage mode."},
    {"fs_gds_status", fvpy_fs_gds_status, METH_NOARGS,
     "fs_gds_status()\n--\n\nThe cuFile driver's state as one line ('gds: ...', 'compat: ...', 'unavailable: ...')."},
    /* scikit-image morphology kernels (skmorphology.c), used by fovea.skimage.morphology */
    {"skmorph_reconstruction", FVPY_KW(fvpy_skmorph_reconstruction),
     "skmorph_reconstruction(seed, mask, method=0, footprint=None, fshape=None, offset=None, stream=None)\n--\n\n"
     "Grayscale reconstruction by dilation (0) or erosion (1); footprint as bytes of shape fshape."},
    {"skmorph_local_maxima", FVPY_KW(fvpy_skmorph_local_maxima),
     "skmorph_local_maxima(image, footprint=None, minima=False, stream=None)\n--\n\n"
     "Plateau-aware local maxima (minima) flags; footprint: bytes of a 3 x ... x 3 array."},
    {"skmorph_thin", FVPY_KW(fvpy_skmorph_thin),
     "skmorph_thin(image, max_num_iter=0, stream=None)\n--\n\nTwo-subiteration thinning of a 2-d image."},
    {"skmorph_medial_axis", FVPY_KW(fvpy_skmorph_medial_axis),
     "skmorph_medial_axis(image, order)\n--\n\nThe ordered pass of medial_axis (host arrays)."},
    /* exposure kernels (exposure.c), used by fovea.skimage.exposure and the thresholds */
    {"exp_minmax", FVPY_KW(fvpy_exp_minmax),
     "exp_minmax(image, mask=None, stream=None)\n--\n\n(min, max, count) over the (masked) elements; NaN "
     "when any is NaN."},
    {"exp_histogram", FVPY_KW(fvpy_exp_histogram),
     "exp_histogram(image, mask, nbins, integer, lo=0, first=0, last=1, denom=1, single_bins=False, "
     "single_diff=False, single_div=False, edges=None, stream=None)\n--\n\nfv_histogram into a new int64 array."},
    {"exp_clahe", FVPY_KW(fvpy_exp_clahe),
     "exp_clahe(image, kernel_size, clip_limit, nbins, stream=None)\n--\n\nfv_clahe of a uint16 image."},
    /* labelling (measure.c), used by fovea.skimage.measure.label and fovea.ndimage.label */
    {"measure_region_stats", FVPY_KW(fvpy_measure_region_stats),
     "measure_region_stats(labels, intensity, max_label, stream=None) -> fovea.Array: the per-label float64 "
     "table of fv_region_stats (regionprops batch statistics)."},
    {"measure_label", FVPY_KW(fvpy_measure_label),
     "measure_label(image, connectivity=0, structure=None, background=None, nonzero=False, wide=True, "
     "stream=None)\n--\n\nConnected components of image: (labels as int64 (wide) or int32, number of labels)."},
    {"segmentation_watershed", FVPY_KW(fvpy_segmentation_watershed),
     "segmentation_watershed(image, markers, mask=None, connectivity=1, footprint=None, footprint_shape=None, "
     "offset=None, compactness=0, watershed_line=False, stream=None)\n--\n\n"
     "Watershed of image from markers: labels of the markers' dtype."},
    {"measure_find_contours", FVPY_KW(fvpy_measure_find_contours),
     "measure_find_contours(image, level, fully_connected_high=False, mask=None) -> (points, offsets): "
     "marching-squares contours of a 2-d float64 host image (fovea/contours.h)"},
    {"hessian_ridge", FVPY_KW(fvpy_hessian_ridge),
     "hessian_ridge(elems, acc, filter, alpha=0, beta=0, gamma=nan, sigma=0, work=None, scal=None, stream=None): "
     "one scale of frangi (0) / sato (1) / meijering (2) from the Hessian planes into acc, or the max Hessian "
     "norm into scal (3)"},
    {"gradient_norm", FVPY_KW(fvpy_gradient_norm),
     "gradient_norm(parts, out, div=1.0, stream=None)\n--\n\nout = sqrt(sum of parts[k]**2) / div in one pass "
     "(fv_gradient_norm), rounded step by step as NumPy's chain; out may be one of the parts."},
    {"metrics_ssim_map", FVPY_KW(fvpy_metrics_ssim_map),
     "metrics_ssim_map(ux, uy, uxx, uyy, uxy, cov_norm, c1, c2, S=None, gradient=False, pad=0) -> mean: "
     "the SSIM map from the local moments, host float32/float64 (fovea/metrics.h)"},
    {"metrics_nearest_points", FVPY_KW(fvpy_metrics_nearest_points),
     "metrics_nearest_points(points, axis, queries, want_index=False) -> (d2, index or None): exact nearest "
     "neighbours of int64 point sets (fovea/metrics.h)"},
    /* fovea.ndimage (ndimage.c): arrays in place, modes as fv_mode values; see python/fovea/ndimage */
    {"ndi_correlate1d", FVPY_KW(fvpy_ndi_correlate1d),
     "ndi_correlate1d(input, output, weights, axis, mode, cval, origin, stream=None, reverse=False)\n--\n\n"
     "fv_correlate1d into output (fv_correlate1d_array for weights on the device)."},
    {"ndi_filter1d", FVPY_KW(fvpy_ndi_filter1d),
     "ndi_filter1d(input, output, kind, size, axis, mode, cval, origin, stream=None)\n--\n\n"
     "fv_uniform_filter1d (kind 0), fv_minimum_filter1d (1) or fv_maximum_filter1d (2) into output."},
    {"ndi_separable", FVPY_KW(fvpy_ndi_separable),
     "ndi_separable(input, output, passes, stream=None)\n--\n\n"
     "fv_separable_filter into output; passes: (kind, axis, size, weights or None, mode, cval, origin)."},
    {"ndi_laplace", FVPY_KW(fvpy_ndi_laplace),
     "ndi_laplace(input, output, axes, modes, cval, stream=None)\n--\n\n"
     "fv_laplace into output: scipy.ndimage.laplace over axes (one fv_mode per axis) in one pass."},
    {"ndi_correlate", FVPY_KW(fvpy_ndi_correlate),
     "ndi_correlate(input, output, weights, mode, cval, origins, stream=None)\n--\n\nfv_correlate into output."},
    {"ndi_min_or_max_filter", FVPY_KW(fvpy_ndi_min_or_max_filter),
     "ndi_min_or_max_filter(input, output, footprint, structure, mode, cval, origins, minimum, stream=None)"
     "\n--\n\nfv_minimum_filter / fv_maximum_filter into output."},
    {"ndi_rank_filter", FVPY_KW(fvpy_ndi_rank_filter),
     "ndi_rank_filter(input, output, footprint, rank, mode, cval, origins, stream=None)\n--\n\n"
     "fv_rank_filter into output."},
    {"ndi_binary_erosion", FVPY_KW(fvpy_ndi_binary_erosion),
     "ndi_binary_erosion(input, output, structure, iterations, mask, border_value, origins, invert, "
     "stream=None)\n--\n\nfv_binary_erosion into output."},
    {"ndi_distance_transform_edt", FVPY_KW(fvpy_ndi_distance_transform_edt),
     "ndi_distance_transform_edt(input, sampling, distances, indices, stream=None)\n--\n\n"
     "fv_distance_transform_edt into distances and/or indices."},
    {"ndi_distance_transform_cdt", FVPY_KW(fvpy_ndi_distance_transform_cdt),
     "ndi_distance_transform_cdt(input, structure, distances, indices, stream=None)\n--\n\n"
     "fv_distance_transform_cdt into distances and/or indices."},
    {"ndi_assign", FVPY_KW(fvpy_ndi_assign),
     "ndi_assign(src, dst, stream=None)\n--\n\ndst[...] = src (fv_astype) on their device."},
    {"_refcount", fvpy_refcount, METH_O, "_refcount(arr)\n--\n\nReference count of arr's fv_array (tests)."},
    {"_fault_arm", FVPY_KW(fvpy_fault_arm),
     "_fault_arm(which, n, all=False)\n--\n\nArm a fault point ('host_alloc', 'device_alloc'): n < 0 off, 0 count "
     "only, k > 0 the k-th attempt from now fails (all: and every later one). Tests only."},
    {"_fault_stats", fvpy_fault_stats, METH_O,
     "_fault_stats(which)\n--\n\n(attempts, failures) at a fault point since it was armed."},
    {"_cuda_pool", FVPY_KW(fvpy_cuda_pool),
     "_cuda_pool(device, trim=False)\n--\n\nBytes in use from fovea's stream-ordered pool on device after a "
     "synchronisation (-1: unknown), a leak check for tests; trim: first give the memory the pool keeps for "
     "reuse back to the driver."},
    {"_loaded_libraries", fvpy_loaded_libraries, METH_NOARGS,
     "_loaded_libraries()\n--\n\nThe shared libraries fovea loaded at run time (nvJPEG, cuFile): name, the "
     "candidate that loaded, its file and the dlopen flags."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fvpy_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "fovea._fovea",
    .m_doc = "The C extension of fovea: arrays and core operations on the CPU and CUDA backends.",
    .m_size = -1,
    .m_methods = fvpy_methods,
};

PyMODINIT_FUNC
PyInit__fovea(void)
{
    PyObject *m = PyModule_Create(&fvpy_module);
    if (!m)
        return NULL;
    if (fvpy_errors_init(m) < 0 || fvpy_array_init(m) < 0 || fvpy_slide_init(m) < 0 || fvpy_filesystem_init(m) < 0 ||
        PyModule_AddStringConstant(m, "__version__", fv_version()) < 0 ||
        PyModule_AddIntConstant(m, "MAX_NDIM", FV_MAX_NDIM) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
