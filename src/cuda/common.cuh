/* Helpers shared by the CUDA kernel files (src/cuda/<area>/<op>.cu).
 *
 *   FV_GRID_STRIDE(IT, i, n)    grid-stride loop over [0, n) with index type IT
 *   fv_cu_geom32 / fv_cu_geom64 compact n-d geometry passed to kernels by value
 *   FV_CU_OFFSETS(...)          byte offsets of every operand for a flat index
 *   fv_cu_begin / fv_cu_end     device checks, current device, stream, grid size
 *
 * Index arithmetic: 32-bit when the element count and every operand's byte
 * extent fit in int32 (fv_cu_fits32), 64-bit otherwise. Offsets are accumulated
 * in the unsigned index type (wrapping, so negative strides need no signed
 * overflow) and turned signed once, where they are known to fit. */
#ifndef FV_CUDA_COMMON_CUH
#define FV_CUDA_COMMON_CUH

#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>

#include "internal.h"
#include "cast.h"
#include "cuda/cuda-kernels.h"

#define FV_CU_BLOCK 256       /* threads per block of the elementwise kernels */
#define FV_CU_BLOCKS_PER_SM 8 /* grid cap for grid-stride loops: full occupancy */

/* ---- name pasting (arguments expanded first) ------------------------------- */
#define FV_CU_CAT5_(a, b, c, d, e) a##b##c##d##e
#define FV_CU_CAT5(a, b, c, d, e) FV_CU_CAT5_(a, b, c, d, e)
#define FV_CU_CAT7_(a, b, c, d, e, f, g) a##b##c##d##e##f##g
#define FV_CU_CAT7(a, b, c, d, e, f, g) FV_CU_CAT7_(a, b, c, d, e, f, g)

/* ---- loops ---------------------------------------------------------------- */
#define FV_GRID_STRIDE(IT, i, n) \
    for (IT i = (IT)blockIdx.x * (IT)blockDim.x + (IT)threadIdx.x; i < (IT)(n); i += (IT)blockDim.x * (IT)gridDim.x)

/* ---- geometry --------------------------------------------------------------- */

/* fv__geom in the kernel's index type. Strides are bytes, stored as the unsigned
 * two's complement of the signed value. */
typedef struct fv_cu_geom32 {
    int ndim;
    uint32_t size;
    uint32_t shape[FV_MAX_NDIM];
    uint32_t strides[FV__MAX_OPERANDS][FV_MAX_NDIM];
} fv_cu_geom32;

typedef struct fv_cu_geom64 {
    int ndim;
    uint64_t size;
    uint64_t shape[FV_MAX_NDIM];
    uint64_t strides[FV__MAX_OPERANDS][FV_MAX_NDIM];
} fv_cu_geom64;

/* 1 when g's element count and every operand's byte extent fit 32-bit indexing. */
static inline int
fv_cu_fits32(const fv__geom *g)
{
    if (g->size > INT32_MAX)
        return 0;
    for (int o = 0; o < g->nops; o++) {
        int64_t ext = 0;
        for (int d = 0; d < g->ndim; d++) {
            int64_t s = g->strides[o][d] < 0 ? -g->strides[o][d] : g->strides[o][d];
            if (s > INT32_MAX)
                return 0;
            ext += (g->shape[d] - 1) * s; /* <= 2^31 * 2^31 per axis: no overflow */
            if (ext > INT32_MAX)
                return 0;
        }
    }
    return 1;
}

static inline void
fv_cu_geom_pack32(const fv__geom *g, fv_cu_geom32 *k)
{
    memset(k, 0, sizeof *k);
    k->ndim = g->ndim;
    k->size = (uint32_t)g->size;
    for (int d = 0; d < g->ndim; d++) {
        k->shape[d] = (uint32_t)g->shape[d];
        for (int o = 0; o < g->nops; o++)
            k->strides[o][d] = (uint32_t)g->strides[o][d];
    }
}

static inline void
fv_cu_geom_pack64(const fv__geom *g, fv_cu_geom64 *k)
{
    memset(k, 0, sizeof *k);
    k->ndim = g->ndim;
    k->size = (uint64_t)g->size;
    for (int d = 0; d < g->ndim; d++) {
        k->shape[d] = (uint64_t)g->shape[d];
        for (int o = 0; o < g->nops; o++)
            k->strides[o][d] = (uint64_t)g->strides[o][d];
    }
}

/* 1 when every operand of g walks memory densely in order (one axis of stride
 * == its element size): the kernels can then index typed pointers directly. */
static inline int
fv_cu_is_dense(const fv__geom *g, const size_t *itemsize)
{
    if (g->ndim != 1)
        return 0;
    for (int o = 0; o < g->nops; o++)
        if (g->strides[o][0] != (int64_t)itemsize[o])
            return 0;
    return 1;
}

/* Byte offsets OFF[0..NOPS) (IT, unsigned) of flat C-order index I in geometry G.
 * The outermost axis needs no division, so 1-d (strided or broadcast) geometry
 * costs one multiply per operand. Turn each offset signed before use. */
#define FV_CU_OFFSETS(G, I, IT, NOPS, OFF)                                                              \
    do {                                                                                                \
        IT r_ = (I);                                                                                    \
        _Pragma("unroll") for (int o_ = 0; o_ < (NOPS); o_++)(OFF)[o_] = 0;                             \
        for (int d_ = (G).ndim - 1; d_ > 0; d_--) {                                                     \
            IT n_ = (G).shape[d_];                                                                      \
            IT q_ = r_ / n_;                                                                            \
            IT x_ = r_ - q_ * n_;                                                                       \
            r_ = q_;                                                                                    \
            _Pragma("unroll") for (int o_ = 0; o_ < (NOPS); o_++)(OFF)[o_] += x_ * (G).strides[o_][d_]; \
        }                                                                                               \
        _Pragma("unroll") for (int o_ = 0; o_ < (NOPS); o_++)(OFF)[o_] += r_ * (G).strides[o_][0];      \
    } while (0)

/* Element at byte offset OFF (unsigned, 32 or 64 bits) from P. */
#define FV_CU_AT32(T, P, OFF) (*(T *)((P) + (int32_t)(OFF)))
#define FV_CU_AT64(T, P, OFF) (*(T *)((P) + (int64_t)(OFF)))

/* ---- launching ----------------------------------------------------------------- */

typedef struct fv_cu_exec {
    int device;
    int prev; /* device current before fv_cu_begin */
    cudaStream_t stream;
    unsigned grid, block;
} fv_cu_exec;

static inline unsigned
fv_cu_grid(int64_t n, int device)
{
    int64_t blocks = (n + FV_CU_BLOCK - 1) / FV_CU_BLOCK;
    int64_t cap = (int64_t)fv__cuda_sm_count(device) * FV_CU_BLOCKS_PER_SM;
    if (blocks > cap)
        blocks = cap;
    return blocks < 1 ? 1u : (unsigned)blocks;
}

/* Check that every array of a is in CUDA memory of one device (out's), make that
 * device current and pick the stream and grid for n elements. Pair with
 * fv_cu_end on success. */
static inline fv_status
fv_cu_begin(fv_context *ctx, const char *domain, const fv__op_args *a, int64_t n, fv_cu_exec *x)
{
    const fv_array *arr[3] = { a->out, a->in, a->in2 };
    fv_status st;
    x->prev = -1;
    x->device = a->out->device.id;
    for (int k = 0; k < 3; k++) {
        if (!arr[k])
            continue;
        if (arr[k]->device.type != FV_DEVICE_CUDA)
            return fv_error_set(FV_EDEVICE, domain, "array %d is not in CUDA memory", k);
        if (arr[k]->device.id != x->device)
            return fv_error_set(FV_EDEVICE, domain, "arrays on cuda:%d and cuda:%d", arr[k]->device.id, x->device);
    }
    if ((st = fv__cuda_check_device(x->device)) != FV_OK)
        return st;
    if ((st = fv__cuda_enter(x->device, &x->prev)) != FV_OK)
        return st;
    x->stream = (cudaStream_t)fv__cuda_stream_for(ctx, x->device);
    x->block = FV_CU_BLOCK;
    x->grid = fv_cu_grid(n, x->device);
    (void)cudaGetLastError(); /* so that the launch check sees only our launch */
    return FV_OK;
}

static inline void
fv_cu_end(fv_cu_exec *x)
{
    fv__cuda_leave(x->prev);
    x->prev = -1;
}

/* The status of the kernel launch just made (FV_OK or FV_ECUDA). */
static inline fv_status
fv_cu_launch_status(const char *what)
{
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? FV_OK : fv__cuda_error(what, e);
}

/* A variant's support test (core/plan.h) for planner args that point to an int:
 * the variant applies where it is non-zero. */
static inline int
fv_cu_flag_ok(const void *args, int device)
{
    (void)device;
    return *(const int *)args;
}

/* Zeroes n bytes of device memory at d on the stream (flags the kernels set). */
static inline fv_status
fv_cu_zero(void *d, size_t n, cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(d, 0, n, stream);
    return e == cudaSuccess ? FV_OK : fv__cuda_error("cudaMemsetAsync", e);
}

/* Copies n bytes at device address d to h and waits for the stream: the host's
 * look at flags the kernels set (what: the error's wording). */
static inline fv_status
fv_cu_read_back(void *h, const void *d, size_t n, cudaStream_t stream, const char *what)
{
    cudaError_t e = cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    return e == cudaSuccess ? FV_OK : fv__cuda_error(what, e);
}

static inline void
fv_cu_tmp_free(void *p, void *stream)
{
    (void)cudaFreeAsync(p, (cudaStream_t)stream);
    (void)cudaGetLastError();
}

/* Device scratch of n bytes on ctx's stream, as a uint8 array (freed by
 * fv_cu_tmp_release after the kernels that use it were queued). Used within one
 * call, on its stream, with the device current: stream-ordered memory
 * (cudaMallocAsync, cudaFreeAsync on that stream) needs no events, which a
 * library array (fv_array_new) records for its free on any stream; that
 * remains the fallback (no stream-ordered allocator, out of memory). */
static inline fv_status
fv_cu_tmp_new(fv_context *ctx, int device, size_t n, fv_array **arr)
{
    int64_t len = (int64_t)(n ? n : 1);
    fv_device dev = { FV_DEVICE_CUDA, device };
    void *p = NULL;
    void *stream = fv__cuda_stream_for(fv__ctx(ctx), device);
    *arr = NULL;
    if (fv__cuda_malloc_async(&p, (size_t)len, stream) == (int)cudaSuccess)
        return fv_array_wrap(FV_UINT8, 1, &len, NULL, p, dev, fv_cu_tmp_free, stream, arr);
    (void)cudaGetLastError();
    return fv_array_new(ctx, FV_UINT8, 1, &len, dev, arr);
}

static inline void
fv_cu_tmp_release(fv_context *ctx, fv_array *arr)
{
    if (!arr)
        return;
    fv__cuda_mark_use(ctx, arr); /* the free waits for the work queued so far */
    fv_array_unref(arr);
}


#endif
