/* CUDA kernel of FV__OP_COLOR: one thread per pixel (grid-stride), the pixel's
 * operands located through the job's pixel geometry (32-bit index math when
 * every extent fits, 64-bit otherwise), then the per-pixel math shared with the
 * CPU backend (src/ops/color/color-kernels.h). Runs on the context's stream. */
#include "cuda/common.cuh"
#include "ops/color/color.h"

#define FV_CU_COLOR_KERNEL(SFX, IT, GT, AT)                                                                         \
    __global__ void fv_k_color_##SFX##_##IT(const char *in, const char *in2, char *out, GT g, fv__color_job j)      \
    {                                                                                                               \
        FV_GRID_STRIDE(IT, i, g.size) {                                                                             \
            IT off[3];                                                                                              \
            FV_CU_OFFSETS(g, i, IT, 3, off);                                                                        \
            fv__color_pixel_##SFX(&j, in + (AT)off[1], in2 ? in2 + (AT)off[2] : (const char *)0, out + (AT)off[0]); \
        }                                                                                                           \
    }

#define FV_CU_COLOR_KERNELS(SFX)                             \
    FV_CU_COLOR_KERNEL(SFX, uint32_t, fv_cu_geom32, int32_t) \
    FV_CU_COLOR_KERNEL(SFX, uint64_t, fv_cu_geom64, int64_t)

FV_CU_COLOR_KERNELS(ff)
FV_CU_COLOR_KERNELS(dd)
FV_CU_COLOR_KERNELS(fd)
FV_CU_COLOR_KERNELS(df)

/* 1 when the data pointer and every stride (pixel and channel) of a are
 * multiples of its element size. */
static int
fv_cu_color_aligned(const fv_array *a, const fv__geom *g, int o, int64_t cs)
{
    if (!a)
        return 1;
    const int64_t sz = (int64_t)fv_dtype_size(a->dtype);
    if ((uintptr_t)a->data % (uintptr_t)sz || cs % sz)
        return 0;
    for (int d = 0; d < g->ndim; d++)
        if (g->strides[o][d] % sz)
            return 0;
    return 1;
}

/* 32-bit pixel offsets when every operand's pixel extent fits (channel
 * offsets are added in 64 bits by the pixel function). */
static int
fv_cu_color_fits32(const fv__color_job *j)
{
    return fv_cu_fits32(&j->g);
}

#define FV_CU_COLOR_LAUNCH(SFX)                                                                   \
    do {                                                                                          \
        if (use32) {                                                                              \
            fv_cu_geom32 g32;                                                                     \
            fv_cu_geom_pack32(&j->g, &g32);                                                       \
            fv_k_color_##SFX##_uint32_t<<<x.grid, x.block, 0, x.stream>>>(in, in2, out, g32, *j); \
        } else {                                                                                  \
            fv_cu_geom64 g64;                                                                     \
            fv_cu_geom_pack64(&j->g, &g64);                                                       \
            fv_k_color_##SFX##_uint64_t<<<x.grid, x.block, 0, x.stream>>>(in, in2, out, g64, *j); \
        }                                                                                         \
    } while (0)

static fv_status
fv_cu_color(fv_context *ctx, const fv__op_args *a)
{
    const char *domain = "color";
    const fv__color_job *j = (const fv__color_job *)a->params;
    if (j->g.size == 0)
        return FV_OK;
    if (!fv_cu_color_aligned(a->out, &j->g, 0, j->cs[0]) || !fv_cu_color_aligned(a->in, &j->g, 1, j->cs[1]) ||
        !fv_cu_color_aligned(a->in2, &j->g, 2, j->cs[2]))
        return fv_error_set(FV_EINVAL, domain, "CUDA array data or strides not aligned to the element size");
    fv_cu_exec x;
    fv_status st = fv_cu_begin(ctx, domain, a, j->g.size, &x);
    if (st != FV_OK)
        return st;
    const char *in = a->in->data, *in2 = a->in2 ? a->in2->data : NULL;
    char *out = a->out->data;
    const int use32 = fv_cu_color_fits32(j);
    const int si = a->in->dtype == FV_FLOAT32, so = a->out->dtype == FV_FLOAT32;
    if (si && so)
        FV_CU_COLOR_LAUNCH(ff);
    else if (!si && !so)
        FV_CU_COLOR_LAUNCH(dd);
    else if (si)
        FV_CU_COLOR_LAUNCH(fd);
    else
        FV_CU_COLOR_LAUNCH(df);
    st = fv_cu_launch_status("color kernel launch");
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(COLOR, CUDA, FV_DTYPES_FLOAT, FV_MAX_NDIM, fv_cu_color);
