/* Module functions of the slide reader: format detection, the host tile cache
 * (cache_*) and the GPU reads' device tile cache (gpu_cache_*), the GPU reader's
 * counters and release. */
#include "array.h" /* Python.h first */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "errors.h"
#include "slide/slide-internal.h"
#include "slide-object.h"

static PyObject *
fvpy_slide_detect_vendor(PyObject *self, PyObject *path_o)
{
    PyObject *bytes = NULL, *ret = NULL;
    fv_slide *s = NULL;
    fv_status st;
    if (!PyUnicode_FSConverter(path_o, &bytes))
        return NULL;
    const char *path = PyBytes_AS_STRING(bytes);
    Py_BEGIN_ALLOW_THREADS
        st = fv_slide_open(path, &s);
    Py_END_ALLOW_THREADS
    if (st == FV_EFORMAT || st == FV_EIO) {
        ret = Py_None; /* not a file we read (openslide.OpenSlide.detect_format says None too) */
        Py_INCREF(ret);
    } else if (st) {
        fvpy_raise(st); /* out of memory and the like */
    } else {
        ret = PyUnicode_FromString(fv_slide_vendor(s));
    }
    Py_BEGIN_ALLOW_THREADS
        fv_slide_unref(s);
    Py_END_ALLOW_THREADS
    Py_XDECREF(bytes);
    return ret;
}
FVPY_METHOD(slide_detect_vendor, fvpy_slide_detect_vendor, METH_O,
            "slide_detect_vendor(path)\n--\n\nThe slide format of path ('aperio', 'generic-tiff', ...), or None when "
            "fovea cannot read it.");

/* The host tile cache (cache_*) and the GPU reads' device tile cache (gpu_cache_*)
 * share these. */
static PyObject *
fvpy__set_capacity(PyObject *arg, fv_status (*set)(uint64_t))
{
    int64_t bytes;
    fv_status st;
    if (fvpy_int64(arg, "capacity", &bytes) < 0)
        return NULL;
    if (bytes < 0) {
        PyErr_Format(PyExc_ValueError, "cache capacity = %lld bytes must be >= 0", (long long)bytes);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
        st = set((uint64_t)bytes);
    Py_END_ALLOW_THREADS
    if (st)
        return fvpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *
fvpy__stats(void (*get)(fv_cache_stats *))
{
    fv_cache_stats cs;
    Py_BEGIN_ALLOW_THREADS
        get(&cs);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("{sKsKsKsKsKsK}", "hits", (unsigned long long)cs.hits, "misses", (unsigned long long)cs.misses,
                         "evictions", (unsigned long long)cs.evictions, "bytes", (unsigned long long)cs.bytes,
                         "capacity", (unsigned long long)cs.capacity, "entries", (unsigned long long)cs.entries);
}

static PyObject *
fvpy__call(void (*fn)(void))
{
    Py_BEGIN_ALLOW_THREADS
        fn();
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *
fvpy_cache_set_capacity(PyObject *self, PyObject *arg)
{
    return fvpy__set_capacity(arg, fv_cache_set_capacity);
}
FVPY_METHOD(cache_set_capacity, fvpy_cache_set_capacity, METH_O,
            "cache_set_capacity(nbytes)\n--\n\nCapacity of the process-wide decoded-tile cache in bytes (0 "
            "disables it; shrinking evicts at once).");

static PyObject *
fvpy_cache_stats(PyObject *self, PyObject *unused)
{
    return fvpy__stats(fv_cache_get_stats);
}
FVPY_METHOD(cache_stats, fvpy_cache_stats, METH_NOARGS,
            "cache_stats()\n--\n\nTile cache counters: dict of hits, misses, evictions, bytes, capacity, "
            "entries.");

static PyObject *
fvpy_cache_reset_stats(PyObject *self, PyObject *unused)
{
    return fvpy__call(fv_cache_reset_stats);
}
FVPY_METHOD(cache_reset_stats, fvpy_cache_reset_stats, METH_NOARGS,
            "cache_reset_stats()\n--\n\nZero the hit, miss and eviction counters.");

static PyObject *
fvpy_cache_clear(PyObject *self, PyObject *unused)
{
    return fvpy__call(fv_cache_clear);
}
FVPY_METHOD(cache_clear, fvpy_cache_clear, METH_NOARGS,
            "cache_clear()\n--\n\nDrop every cached tile (the capacity stays).");

static PyObject *
fvpy_gpu_cache_set_capacity(PyObject *self, PyObject *arg)
{
    return fvpy__set_capacity(arg, fv_gpu_cache_set_capacity);
}
FVPY_METHOD(gpu_cache_set_capacity, fvpy_gpu_cache_set_capacity, METH_O,
            "gpu_cache_set_capacity(nbytes)\n--\n\nCapacity per GPU of the GPU reads' device tile cache in bytes (0 "
            "disables it; default 1 GiB or FOVEA_GPU_CACHE_BYTES).");

static PyObject *
fvpy_gpu_cache_stats(PyObject *self, PyObject *unused)
{
    return fvpy__stats(fv_gpu_cache_get_stats);
}
FVPY_METHOD(gpu_cache_stats, fvpy_gpu_cache_stats, METH_NOARGS,
            "gpu_cache_stats()\n--\n\nDevice tile cache counters (all GPUs): dict of hits, misses, evictions, bytes, "
            "capacity, entries.");

static PyObject *
fvpy_gpu_cache_reset_stats(PyObject *self, PyObject *unused)
{
    return fvpy__call(fv_gpu_cache_reset_stats);
}
FVPY_METHOD(gpu_cache_reset_stats, fvpy_gpu_cache_reset_stats, METH_NOARGS,
            "gpu_cache_reset_stats()\n--\n\nZero the device tile cache's hit, miss and eviction counters.");

static PyObject *
fvpy_gpu_cache_clear(PyObject *self, PyObject *unused)
{
    return fvpy__call(fv_gpu_cache_clear);
}
FVPY_METHOD(gpu_cache_clear, fvpy_gpu_cache_clear, METH_NOARGS,
            "gpu_cache_clear()\n--\n\nDrop every device-cached tile not in use (the capacity stays).");

static const char *const fvpy__cache_types[] = { "nocache", "per_process", "shared_memory" };

static PyObject *
fvpy_cache_configure(PyObject *self, PyObject *args)
{
    const char *type;
    PyObject *cap_o;
    int64_t cap;
    int t = -1;
    fv_status st;
    if (!PyArg_ParseTuple(args, "sO:cache_configure", &type, &cap_o))
        return NULL;
    for (int i = 0; i < 3; i++)
        if (!strcmp(type, fvpy__cache_types[i]))
            t = i;
    if (t < 0) {
        PyErr_Format(PyExc_ValueError, "cache type must be 'per_process', 'nocache' or 'shared_memory', not '%s'",
                     type);
        return NULL;
    }
    if (fvpy_int64(cap_o, "capacity", &cap) < 0)
        return NULL;
    if (cap < 0) {
        PyErr_Format(PyExc_ValueError, "cache capacity = %lld bytes must be >= 0", (long long)cap);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
        st = fv_cache_configure(t == 0       ? FV_CACHE_NONE
                                    : t == 1 ? FV_CACHE_PER_PROCESS
                                             : FV_CACHE_SHARED_MEMORY,
                                (uint64_t)cap);
    Py_END_ALLOW_THREADS
    if (st)
        return fvpy_raise(st);
    Py_RETURN_NONE;
}
FVPY_METHOD(cache_configure, fvpy_cache_configure, METH_VARARGS,
            "cache_configure(type, capacity)\n--\n\nReplace the process's tile cache with a new one: type "
            "'per_process', 'nocache' or 'shared_memory'; capacity in bytes. Statistics start from zero.");

static PyObject *
fvpy_cache_type(PyObject *self, PyObject *unused)
{
    fv_cache_type t;
    Py_BEGIN_ALLOW_THREADS
        t = fv_cache_type_get();
    Py_END_ALLOW_THREADS
    return PyUnicode_FromString(t == FV_CACHE_NONE                ? "nocache"
                                    : t == FV_CACHE_SHARED_MEMORY ? "shared_memory"
                                                                  : "per_process");
}
FVPY_METHOD(cache_type, fvpy_cache_type, METH_NOARGS,
            "cache_type()\n--\n\nThe current cache type: 'per_process', 'nocache' or 'shared_memory'.");

static PyObject *
fvpy_cache_shm_name(PyObject *self, PyObject *unused)
{
    const char *n;
    Py_BEGIN_ALLOW_THREADS
        n = fv_cache_shm_name();
    Py_END_ALLOW_THREADS
    return PyUnicode_FromString(n ? n : "");
}
FVPY_METHOD(cache_shm_name, fvpy_cache_shm_name, METH_NOARGS,
            "cache_shm_name()\n--\n\nThe shared-memory segment's name ('' unless the type is shared_memory).");

static PyObject *
fvpy_cache_attach_shared(PyObject *self, PyObject *name_o)
{
    const char *name = PyUnicode_Check(name_o) ? PyUnicode_AsUTF8(name_o) : NULL;
    fv_status st;
    if (!name) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "cache_attach_shared: name must be str, not %.100s",
                         Py_TYPE(name_o)->tp_name);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
        st = fv_cache_attach_shared(name);
    Py_END_ALLOW_THREADS
    if (st)
        return fvpy_raise(st);
    Py_RETURN_NONE;
}
FVPY_METHOD(cache_attach_shared, fvpy_cache_attach_shared, METH_O,
            "cache_attach_shared(name)\n--\n\nUse the existing shared-memory cache segment `name`.");

static PyObject *
fvpy_gpu_read_stats(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "reset", NULL };
    int reset = 0;
    fv__gpu_read_stats g;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:gpu_read_stats", kwlist, &reset))
        return NULL;
    fv__slide_gpu_stats(&g, reset);
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:d,s:d,s:d}", "regions", (unsigned long long)g.regions, "tiles_gpu",
                         (unsigned long long)g.tiles_gpu, "tiles_cpu", (unsigned long long)g.tiles_cpu, "tiles_cached",
                         (unsigned long long)g.tiles_cached, "bytes_read", (unsigned long long)g.bytes_read, "io_s",
                         g.io_s, "decode_s", g.decode_s, "assemble_s", g.assemble_s);
}
FVPY_METHOD(gpu_read_stats, fvpy_gpu_read_stats, FVPY_KWARGS,
            "gpu_read_stats(reset=False)\n--\n\nCounters of the GPU slide reader: regions, tiles_gpu (decoded by "
            "nvJPEG), tiles_cpu (decoded on the CPU and copied), bytes_read (compressed bytes staged for nvJPEG), "
            "io_s (host seconds reading and CPU-decoding, wall time of those phases), decode_s and assemble_s (GPU "
            "seconds from CUDA events). reset=True zeroes them after reading.");

static PyObject *
fvpy_gpu_release(PyObject *self, PyObject *noargs)
{
    Py_BEGIN_ALLOW_THREADS
        fv_slide_gpu_release();
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}
FVPY_METHOD(gpu_release, fvpy_gpu_release, METH_NOARGS,
            "gpu_release()\n--\n\nFree what GPU slide reads keep between calls (pinned staging, device scratch, "
            "streams, nvJPEG decoders and handles); the next GPU read creates them again. Also runs at exit.");
