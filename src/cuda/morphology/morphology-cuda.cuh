/* Shared by the morphology CUDA kernels (src/cuda/morphology/*.cu). */
#ifndef FV_MORPHOLOGY_CUDA_CUH
#define FV_MORPHOLOGY_CUDA_CUH

#include "cuda/common.cuh"
#include "ops/morphology/binary-erosion.h"
#include "ops/morphology/distance.h"
#include "ops/filters/ndimage-math.h"

#define FV_CU_MORPH_BLOCK 128 /* threads per block of the per-line kernels */

/* (*(T *)p != 0) for the dtype dt (uniform across a launch, so no divergence). */
__device__ __forceinline__ int
fv_cu_fg(const char *p, int dt)
{
    switch (dt) {
    case FV_BOOL:
    case FV_UINT8:
    case FV_INT8:
        return *(const uint8_t *)p != 0;
    case FV_UINT16:
    case FV_INT16:
        return *(const uint16_t *)p != 0;
    case FV_UINT32:
    case FV_INT32:
        return *(const uint32_t *)p != 0;
    case FV_UINT64:
    case FV_INT64:
        return *(const uint64_t *)p != 0;
    case FV_FLOAT32:
        return *(const float *)p != 0.0f; /* NaN != 0 */
    default:
        return *(const double *)p != 0.0;
    }
}

/* Store v (0 or 1) as dtype dt. */
__device__ __forceinline__ void
fv_cu_store01(char *p, int dt, int v)
{
    switch (dt) {
    case FV_BOOL:
    case FV_UINT8:
    case FV_INT8:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case FV_UINT16:
    case FV_INT16:
        *(uint16_t *)p = (uint16_t)v;
        break;
    case FV_UINT32:
    case FV_INT32:
        *(uint32_t *)p = (uint32_t)v;
        break;
    case FV_UINT64:
    case FV_INT64:
        *(uint64_t *)p = (uint64_t)v;
        break;
    case FV_FLOAT32:
        *(float *)p = (float)v;
        break;
    default:
        *(double *)p = (double)v;
        break;
    }
}

/* A C-contiguous device temporary of n elements of dt on `device`. */
static inline fv_status
fv_cu_morph_temp(fv_context *ctx, int device, fv_dtype dt, int64_t n, fv_array **out)
{
    fv_device dev = { FV_DEVICE_CUDA, device };
    return fv_array_new(ctx, dt, 1, &n, dev, out);
}

/* The distance transforms' kernel parameters p (ops/morphology/distance.h) fit
 * the op's arrays a, and the indices, if any, are on the input's device. */
static inline fv_status
fv_cu_distance_check(const fv__op_args *a, const fv__distance_params *p, const char *name)
{
    if (!p || p->ndim != a->in->ndim || !fv__distance_fg_ok(a->in))
        return fv_error_set(FV_EINTERNAL, name, "bad kernel parameters");
    if (p->indices && (p->indices->device.type != FV_DEVICE_CUDA || p->indices->device.id != a->in->device.id))
        return fv_error_set(FV_EDEVICE, name, "indices are on another device");
    return FV_OK;
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
