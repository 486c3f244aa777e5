/* Library internals shared by core, dispatch and the backends (C and CUDA). */
#ifndef FV_INTERNAL_H
#define FV_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include "fovea/fovea.h"

#ifdef __cplusplus
#include <atomic>
#define FV__ATOMIC_INT std::atomic<int>
extern "C" {
#else
#include <stdatomic.h>
#define FV__ATOMIC_INT atomic_int
#endif

/* ---- arrays -------------------------------------------------------------- */

struct fv_array {
    FV__ATOMIC_INT refs;
    struct fv_array *base; /* owner of the memory for views; NULL for owners */
    char *data;            /* first element (views: inside base's extent)    */
    fv_dtype dtype;
    int ndim;
    int readonly;
    fv_device device;
    int64_t shape[FV_MAX_NDIM];
    int64_t strides[FV_MAX_NDIM]; /* bytes */
    fv_deleter deleter;           /* owners only */
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
fv_status fv__shape_size(const char *domain, int ndim, const int64_t *shape, size_t itemsize, int64_t *nelems,
                         int64_t *nbytes);

/* ---- context ------------------------------------------------------------- */

struct fv_context {
    int nthreads; /* 0: pool default */
    int cuda_device;
    void *cuda_stream; /* cudaStream_t */
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
    int64_t size; /* elements */
    int64_t shape[FV_MAX_NDIM];
    int64_t strides[FV__MAX_OPERANDS][FV_MAX_NDIM]; /* bytes */
} fv__geom;

fv_status fv__geom_init(fv__geom *g, const char *domain, const fv_array *out, int nin, const fv_array *const *ins);

/* ---- backends and dispatch ----------------------------------------------- */

typedef enum fv__backend_id {
    FV__BACKEND_CPU = 0,
    FV__BACKEND_CUDA = 1,
    FV__BACKEND_COUNT
} fv__backend_id;

/* The ops: FV__OP_LIST(X) gives X(E, "name", has_out) for each, generated at
 * build time (cmake/gen-registry.cmake) from the FV_OP declarations of the op
 * headers, src/ops/<area>/<op>.h. The kernels: FV_KERNEL declarations in the
 * kernel files (src/cpu, src/cuda), collected by the same generator into
 * fv__cpu_kernel_decls / fv__cuda_kernel_decls. docs/writing-an-op.md. */
#include "fv-op-list.h"

typedef enum fv__op {
#define FV__OP_ENUM(E, NAME, HAS_OUT) FV__OP_##E,
    FV__OP_LIST(FV__OP_ENUM)
#undef FV__OP_ENUM
    FV__OP_COUNT
} fv__op;

/* What a kernel gets. Which arrays an op uses and what params points to are
 * written in the op's header; in is always given, out is NULL exactly for the
 * ops declared with FV_OP_PARAMS_OUT (their results go through params). */
typedef struct fv__op_args {
    const fv_array *in;  /* first input */
    const fv_array *in2; /* second input or NULL */
    fv_array *out;
    const void *params; /* the op's params struct (its header), or NULL */
} fv__op_args;

typedef fv_status (*fv__kernel_fn)(fv_context *ctx, const fv__op_args *a);

typedef struct fv__kernel {
    uint32_t dtypes; /* FV_DTYPE_BIT mask the kernel accepts for in, in2 and out */
    int max_ndim;
    fv__kernel_fn fn;
} fv__kernel;

/* One kernel's registration: what FV_KERNEL defines. */
typedef struct fv__kernel_decl {
    fv__op op;
    fv__backend_id backend;
    fv__kernel kernel;
} fv__kernel_decl;

#ifdef __cplusplus
#define FV__KDECL_LINKAGE extern "C"
#else
#define FV__KDECL_LINKAGE extern
#endif
/* Registers fn as op E's kernel on backend BE (CPU or CUDA): one line in the
 * kernel's own file, at the start of a line, after fn:
 *     FV_KERNEL(LABEL, CPU, FV_DTYPES_INT | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv__cpu_label);
 * dtypes: an FV_DTYPE_BIT mask (FV_DTYPES_*), max_ndim: a constant. The
 * generator lists the declarations; dispatch fills its table from them. */
#define FV_KERNEL(E, BE, DTYPES, MAX_NDIM, FN)                       \
    FV__KDECL_LINKAGE const fv__kernel_decl fv__kdecl_##E##_##BE;    \
    const fv__kernel_decl fv__kdecl_##E##_##BE = { FV__OP_##E,       \
                                                   FV__BACKEND_##BE, \
                                                   { (uint32_t)(DTYPES), (MAX_NDIM), (FN) } }

extern const fv__kernel_decl *const fv__cpu_kernel_decls[];  /* generated; NULL-terminated */
extern const fv__kernel_decl *const fv__cuda_kernel_decls[]; /* generated (CUDA builds only) */
/* Put decls[] into fv__kernels (dispatch and the CUDA backend's init call it). */
void fv__register_kernels(const fv__kernel_decl *const *decls);

extern fv__kernel fv__kernels[FV__OP_COUNT][FV__BACKEND_COUNT];

const char *fv__op_name(fv__op op);
const char *fv__backend_name(fv__backend_id be);
fv__backend_id fv__array_backend(const fv_array *a);

/* Validate devices, dtypes and ndim, then run the op's kernel for the backend
 * that holds the data. Called from src/ops only: kernels never dispatch. */
fv_status fv__dispatch(fv_context *ctx, fv__op op, const fv__op_args *a);

/* Declares op E in its header (src/ops/<area>/<op>.h), at the start of a line:
 *     FV_OP(LABEL, "label", fv__label_params);
 * gives the typed entry for src/ops, fv__run_LABEL(ctx, in, in2, out, params),
 * and the typed view of the params for the kernels, fv__params_LABEL(a).
 * FV_OP_PARAMS_OUT: the same for an op whose results go through its params
 * (out is NULL). PARAMS: the params struct, or void. */
#define FV_OP(E, NAME, PARAMS)                                                                                   \
    static inline fv_status fv__run_##E(fv_context *ctx, const fv_array *in, const fv_array *in2, fv_array *out, \
                                        const PARAMS *params)                                                    \
    {                                                                                                            \
        fv__op_args a = { in, in2, out, params };                                                                \
        return fv__dispatch(ctx, FV__OP_##E, &a);                                                                \
    }                                                                                                            \
    static inline const PARAMS *fv__params_##E(const fv__op_args *a)                                             \
    {                                                                                                            \
        return (const PARAMS *)a->params;                                                                        \
    }                                                                                                            \
    typedef int fv__op_declared_##E
#define FV_OP_PARAMS_OUT(E, NAME, PARAMS) FV_OP(E, NAME, PARAMS)

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
fv_status fv__cuda_memcpy(fv_context *ctx, void *dst, fv_device dst_dev, const void *src, fv_device src_dev, size_t n);
fv_status fv__cuda_memset0(fv_context *ctx, void *ptr, size_t n);
/* Record that work queued on ctx's stream uses a's memory (when fovea allocated
 * it): its free waits for that work even if the stream is destroyed first. */
void fv__cuda_mark_use(fv_context *ctx, const fv_array *a);
fv_status fv__cuda_synchronize(fv_context *ctx);
fv_status fv__cuda_stream_wait(fv_context *ctx, void *producer, void *consumer);
fv_status fv__cuda_check_device(int device); /* FV_EDEVICE when not usable */
int fv__cuda_device_count(void);
const char *fv__cuda_reason(void); /* why unavailable, "" if fine */
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
