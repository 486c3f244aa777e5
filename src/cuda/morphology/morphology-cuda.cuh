/* Shared by the morphology CUDA kernels (src/cuda/morphology/*.cu). */
#ifndef FV_MORPHOLOGY_CUDA_CUH
#define FV_MORPHOLOGY_CUDA_CUH

#include "cuda/common.cuh"
#include "ndimage.h"

fv_status fv_cu_binary_erosion(fv_context *ctx, const fv__op_args *a);
fv_status fv_cu_edt(fv_context *ctx, const fv__op_args *a);
fv_status fv_cu_cdt(fv_context *ctx, const fv__op_args *a);

#define FV_CU_MORPH_BLOCK 128   /* threads per block of the per-line kernels */

/* (*(T *)p != 0) for the dtype dt (uniform across a launch, so no divergence). */
__device__ __forceinline__ int
fv_cu_fg(const char *p, int dt)
{
    switch (dt) {
    case FV_BOOL: case FV_UINT8: case FV_INT8: return *(const uint8_t *)p != 0;
    case FV_UINT16: case FV_INT16: return *(const uint16_t *)p != 0;
    case FV_UINT32: case FV_INT32: return *(const uint32_t *)p != 0;
    case FV_UINT64: case FV_INT64: return *(const uint64_t *)p != 0;
    case FV_FLOAT32: return *(const float *)p != 0.0f;   /* NaN != 0 */
    default: return *(const double *)p != 0.0;
    }
}

/* Store v (0 or 1) as dtype dt. */
__device__ __forceinline__ void
fv_cu_store01(char *p, int dt, int v)
{
    switch (dt) {
    case FV_BOOL: case FV_UINT8: case FV_INT8: *(uint8_t *)p = (uint8_t)v; break;
    case FV_UINT16: case FV_INT16: *(uint16_t *)p = (uint16_t)v; break;
    case FV_UINT32: case FV_INT32: *(uint32_t *)p = (uint32_t)v; break;
    case FV_UINT64: case FV_INT64: *(uint64_t *)p = (uint64_t)v; break;
    case FV_FLOAT32: *(float *)p = (float)v; break;
    default: *(double *)p = (double)v; break;
    }
}

/* A C-contiguous device temporary of n elements of dt on `device`. */
static inline fv_status
fv_cu_morph_temp(fv_context *ctx, int device, fv_dtype dt, int64_t n, fv_array **out)
{
    fv_device dev = {FV_DEVICE_CUDA, device};
    return fv_array_new(ctx, dt, 1, &n, dev, out);
}

/* A C-contiguous one-byte array of (in != 0) on in's device: in itself (a new
 * reference) when it already is one, else a bool copy. */
static inline fv_status
fv_cu_foreground(fv_context *ctx, const fv_array *in, fv_array **out)
{
    fv_status st;
    *out = NULL;
    if ((in->dtype == FV_BOOL || in->dtype == FV_UINT8 || in->dtype == FV_INT8) && fv_array_is_contiguous(in)) {
        *out = fv_array_ref((fv_array *)in);
        return FV_OK;
    }
    if ((st = fv_array_new(ctx, FV_BOOL, in->ndim, in->shape, in->device, out)) != FV_OK)
        return st;
    fv__op_args a;
    memset(&a, 0, sizeof a);
    a.in = in;
    a.out = *out;
    if ((st = fv__dispatch(ctx, FV__OP_ASTYPE, &a)) != FV_OK) {
        fv_array_unref(*out);
        *out = NULL;
    }
    return st;
}

/* Release a device temporary after the work queued on ctx's stream. */
static inline void
fv_cu_morph_release(fv_context *ctx, fv_array *a)
{
    if (a) {
        fv__cuda_mark_use(ctx, a);
        fv_array_unref(a);
    }
}

#endif
