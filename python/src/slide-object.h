/* Declarations shared by the Slide sources of the extension: slide.c (the Slide
 * type), slide-batches.c (BatchIterator) and slide-cache.c (module functions of
 * the tile caches, format detection and the GPU reader). */
#ifndef FVPY_SLIDE_OBJECT_H
#define FVPY_SLIDE_OBJECT_H

#include "array.h" /* Python.h first */


typedef struct fvpy_Slide {
    PyObject_HEAD fv_slide *s; /* NULL once closed */
    PyObject *path;            /* str: the path as given (os.fspath, decoded) */
    PyObject *weakrefs;
} fvpy_Slide;

/* slide.c */
fv_slide *fvpy_slide_get(fvpy_Slide *self);
int fvpy_int64(PyObject *o, const char *what, int64_t *out);
int fvpy_pixel_format(PyObject *o, fv_pixel_format *out);
int fvpy_slide_device(PyObject *o, fv_device *dev);
PyObject *fvpy_to_result(fv_array *out);

/* slide-batches.c: the BatchIterator type and Slide.batches */
extern PyTypeObject fvpy_BatchesType;
PyObject *fvpy_slide_batches(fvpy_Slide *self, PyObject *args, PyObject *kw);

#endif
