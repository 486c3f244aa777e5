/* Library internals shared by core, dispatch and the backends (C and CUDA). */
#ifndef FV_INTERNAL_H
#define FV_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include "fovea/fovea.h"

#ifdef __cplusplus
#  include <atomic>
#  define FV__ATOMIC_INT std::atomic<int>
extern "C" {
#else
#  include <stdatomic.h>
#  define FV__ATOMIC_INT atomic_int
#endif

/* ---- arrays -------------------------------------------------------------- */

struct fv_array {
    FV__ATOMIC_INT refs;
    struct fv_array *base;   /* owner of the memory for views; NULL for owners */
    char *data;              /* first element (views: inside base's extent)    */
    fv_dtype dtype;
    int ndim;
    int readonly;
    fv_device device;
    int64_t shape[FV_MAX_NDIM];
    int64_t strides[FV_MAX_NDIM];   /* bytes */
    fv_deleter deleter;      /* owners only */
    void *opaque;
};

/* Byte range [lo, hi) that an array's elements occupy, relative to data. */
void fv__array_extent(const fv_array *a, int64_t *lo, int64_t *hi);
/* 1 when a and b have the same ndim and extents. */
int fv__array_same_shape(const fv_array *a, const fv_array *b);
/* 1 when a and b live on the same device (type, and id for CUDA). */
int fv__array_same_device(const fv_array *a, const fv_array *b);
/* 1 when a and b (either may be NULL) may share memory: same device and their
 * non-empty byte extents intersect. */
int fv__arrays_overlap(const fv_array *a, const fv_array *b);
/* 1 when no two elements of a share a byte: with the axes of extent > 1 sorted
 * by |stride|, each stride steps past everything the smaller ones span (a
 * sufficient test; interleaved layouts it rejects do not come from NumPy views). */
int fv__array_no_self_overlap(const fv_array *a);
/* a itself (+1 reference), or for a 0-d array a 1-d view of its one element
 * (read-only when a is), so that kernels always see ndim >= 1. */
fv_status fv__array_as_1d(const fv_array *a, fv_array **v);
/* Checked size: FV_EINVAL when the element count or byte size overflows. */
fv_status fv__shape_size(const char *domain, int ndim, const int64_t *shape, size_t itemsize,
                         int64_t *nelems, int64_t *nbytes);

/* ---- context ------------------------------------------------------------- */

struct fv_context {
    int nthreads;        /* 0: pool default */
    int cuda_device;
    void *cuda_stream;   /* cudaStream_t */
};

/* ctx, or the process default context when ctx is NULL. */
fv_context *fv__ctx(fv_context *ctx);

/* ---- thread pool --------------------------------------------------------- */

/* Run fn(arg, begin, end) over [0, n) in chunks of at least `grain`, on up to
 * ctx's thread count (the caller works too). Returns when all chunks are done.
 * Safe to call from several threads at once; nested calls run serially. */
typedef void (*fv__range_fn)(void *arg, int64_t begin, int64_t end);
void fv__parallel_for(fv_context *ctx, int64_t n, int64_t grain, fv__range_fn fn, void *arg);

/* ---- iteration geometry -------------------------------------------------- */

#define FV__MAX_OPERANDS 3

/* Operands broadcast to out's shape (stride 0 on broadcast axes), size-1 axes
 * dropped and contiguous axes merged. Operand 0 is out. ndim >= 1 always. */
typedef struct fv__geom {
    int ndim;
    int nops;
    int64_t size;                                   /* elements */
    int64_t shape[FV_MAX_NDIM];
    int64_t strides[FV__MAX_OPERANDS][FV_MAX_NDIM]; /* bytes */
} fv__geom;

fv_status fv__geom_init(fv__geom *g, const char *domain, const fv_array *out, int nin,
                        const fv_array *const *ins);

/* ---- backends and dispatch ----------------------------------------------- */

typedef enum fv__backend_id {
    FV__BACKEND_CPU = 0,
    FV__BACKEND_CUDA = 1,
    FV__BACKEND_COUNT
} fv__backend_id;

#define FV__OP_LIST(X)            \
    X(ASTYPE, "astype")           \
    X(COPY, "copy")               \
    X(ADD, "add")                 \
    X(MULTIPLY, "multiply")       \
    X(FILTER1D, "filter1d")       \
    X(FILTERND, "filter")         \
    X(SEP2, "separable_filter")   \
    X(BINARY_EROSION, "binary_erosion") \
    X(BINARY_FLOOD, "binary_flood") \
    X(EDT, "distance_transform_edt") \
    X(CDT, "distance_transform_cdt") \
    X(RECONSTRUCTION, "reconstruction") \
    X(LOCAL_MAXIMA, "local_maxima") \
    X(THIN, "thin")               \
    X(MEDIAL_AXIS, "medial_axis") \
    X(COLOR, "color")             \
    X(MINMAX, "minmax")           \
    X(HISTOGRAM, "histogram")     \
    X(CLAHE, "equalize_adapthist") \
    X(LABEL, "label")             \
    X(WATERSHED, "watershed") \
    X(REGION_STATS, "region_stats") \
    X(HESSIAN_RIDGE, "hessian_ridge") \
    X(GRADIENT_NORM, "gradient_norm") \
    X(LAPLACE, "laplace")

typedef enum fv__op {
#define FV__OP_ENUM(E, NAME) FV__OP_##E,
    FV__OP_LIST(FV__OP_ENUM)
#undef FV__OP_ENUM
    FV__OP_COUNT
} fv__op;

typedef struct fv__op_args {
    const fv_array *in;      /* first input */
    const fv_array *in2;     /* second input or NULL */
    fv_array *out;
    const void *params;      /* op-specific, or NULL */
} fv__op_args;

typedef fv_status (*fv__kernel_fn)(fv_context *ctx, const fv__op_args *a);

typedef struct fv__kernel {
    uint32_t dtypes;   /* FV_DTYPE_BIT mask the kernel accepts for in (and out) */
    int max_ndim;
    fv__kernel_fn fn;
} fv__kernel;

extern fv__kernel fv__kernels[FV__OP_COUNT][FV__BACKEND_COUNT];

const char *fv__op_name(fv__op op);
const char *fv__backend_name(fv__backend_id be);
fv__backend_id fv__array_backend(const fv_array *a);

/* Validate devices, dtypes and ndim, then run the op's kernel for the backend
 * that holds the data. */
fv_status fv__dispatch(fv_context *ctx, fv__op op, const fv__op_args *a);

/* CPU kernels register themselves here, one function per area (src/cpu/<area>);
 * dispatch calls them all once. */
void fv__cpu_register(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);
void fv__cpu_register_filters(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);
void fv__cpu_register_morphology(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);
void fv__cpu_register_skmorph(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);   /* skimage morphology */
void fv__cpu_register_color(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);     /* skimage color */
void fv__cpu_register_exposure(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);  /* histogram, CLAHE */
void fv__cpu_register_measure(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);   /* labelling */
void fv__cpu_register_segmentation(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);   /* watershed */

/* ---- device memory (the CUDA backend, or stubs without it) ---------------- */

/* Initialise the CUDA backend once: finds a driver and GPU, registers the CUDA
 * kernels. Returns 1 when usable. Thread-safe, cheap after the first call. */
int fv__cuda_init(void);

/* Allocate nbytes of device memory on ctx's device and stream (stream-ordered
 * pool). *opaque receives what fv__cuda_free needs. */
fv_status fv__cuda_alloc(fv_context *ctx, int device, size_t nbytes, void **ptr, void **opaque);
/* Deleter for fv__cuda_alloc memory: fv_deleter-compatible. */
void fv__cuda_free(void *ptr, void *opaque);
/* cudaMallocAsync(ptr, nbytes, stream) through the device-allocation fault point
 * (alloc.h: FV__FAULT_DEVICE_ALLOC): every device allocation of the backend goes
 * through here. Returns the cudaError_t. */
int fv__cuda_malloc_async(void **ptr, size_t nbytes, void *stream);
/* 1 in a child forked after the parent initialised the CUDA backend (which then
 * refuses every device request and must make no CUDA call). */
int fv__cuda_forked(void);
/* Gives the memory device's stream-ordered pool keeps for reuse back to the driver
 * (after a device synchronisation); FV_OK or an error. */
fv_status fv__cuda_pool_trim(int device);
/* Bytes in use from device's stream-ordered pool (cudaMemPoolAttrUsedMemCurrent),
 * -1 when unknown: a leak check for tests. */
int64_t fv__cuda_pool_used(int device);
/* Copy n contiguous bytes between any two of host/device. Device destinations
 * are asynchronous on ctx's stream; a copy to the host waits for its data. */
fv_status fv__cuda_memcpy(fv_context *ctx, void *dst, fv_device dst_dev, const void *src,
                          fv_device src_dev, size_t n);
fv_status fv__cuda_memset0(fv_context *ctx, void *ptr, size_t n);
/* Record that work queued on ctx's stream uses a's memory (when fovea allocated
 * it): its free waits for that work even if the stream is destroyed first. */
void fv__cuda_mark_use(fv_context *ctx, const fv_array *a);
fv_status fv__cuda_synchronize(fv_context *ctx);
fv_status fv__cuda_stream_wait(fv_context *ctx, void *producer, void *consumer);
fv_status fv__cuda_check_device(int device);   /* FV_EDEVICE when not usable */
int fv__cuda_device_count(void);
const char *fv__cuda_reason(void);             /* why unavailable, "" if fine */
/* Versions for fv_config_json: "13.0" style strings, "" when not built. */
const char *fv__cuda_runtime_version(void);
const char *fv__cuda_driver_version(void);
const char *fv__cuda_device_name(int device);
/* GPU JPEG decoding for the slide reader (src/cuda/io): *available = 1 and the
 * nvJPEG backend's name, or 0 and why not. */
const char *fv__slide_gpu_decoder(int *available);

#ifdef __cplusplus
}
#endif

#endif
