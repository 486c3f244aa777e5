/* CUDA kernels of the core ops: astype, copy, add, multiply.
 *
 * One kernel per dtype (or dtype pair, for astype) and per addressing mode:
 *   _c    every operand dense and in order: typed pointers, plain index
 *   _g32  n-d byte strides (negative, zero for broadcast), 32-bit index math
 *   _g64  the same with 64-bit index math, for large arrays
 * Geometry comes from fv__geom_init (operand 0 is out), which drops size-1 axes
 * and merges contiguous ones, so a contiguous or 1-d strided operand costs no
 * division. Work runs on the context's stream on the arrays' device. */
#include "cuda/common.cuh"

enum {
    FV_CU_DENSE,
    FV_CU_G32,
    FV_CU_G64
};

/* What a launcher needs: operands, addressing mode and geometry, launch config. */
typedef struct fv_cu_job {
    int mode;
    const char *in, *in2;
    char *out;
    int64_t n;
    fv_cu_geom32 g32;
    fv_cu_geom64 g64;
    fv_cu_exec x;
} fv_cu_job;

#define FV_CU_LAUNCH(J) <<<(J)->x.grid, (J)->x.block, 0, (J)->x.stream>>>

/* Choose the addressing mode for g (itemsize[o] per operand) and fill j. */
static void
fv_cu_job_geom(fv_cu_job *j, const fv__geom *g, const size_t *itemsize)
{
    j->n = g->size;
    if (fv_cu_is_dense(g, itemsize)) {
        j->mode = FV_CU_DENSE;
    } else if (fv_cu_fits32(g)) {
        j->mode = FV_CU_G32;
        fv_cu_geom_pack32(g, &j->g32);
    } else {
        j->mode = FV_CU_G64;
        fv_cu_geom_pack64(g, &j->g64);
    }
}

/* 1 when every operand's data pointer and strides are multiples of its element
 * size (misaligned loads would fault on the device). */
static int
fv_cu_geom_aligned(const fv__geom *g, const char *const *data, const size_t *itemsize)
{
    for (int o = 0; o < g->nops; o++) {
        if ((uintptr_t)data[o] % itemsize[o])
            return 0;
        for (int d = 0; d < g->ndim; d++)
            if (g->strides[o][d] % (int64_t)itemsize[o])
                return 0;
    }
    return 1;
}

static fv_status
fv_cu_misaligned(const char *domain)
{
    return fv_error_set(FV_EINVAL, domain, "CUDA array data or strides not aligned to the element size");
}

/* ==== astype ===================================================================== */

/* Kernels for the pair (FV_CU_SRC_T/FV_CU_SRC_S) -> (T2/S2). */
#define FV_CU_ASTYPE_KERNELS(E2, T2, S2)                                                                          \
    __global__ void FV_CU_CAT5(fv_k_astype_, FV_CU_SRC_S, _, S2, _c)(const FV_CU_SRC_T *in, T2 *out, int64_t n)   \
    {                                                                                                             \
        FV_GRID_STRIDE(int64_t, i, n)                                                                             \
            out[i] = FV__XCAT3(fv_cast_, FV_CU_SRC_S, _##S2)(in[i]);                                              \
    }                                                                                                             \
    __global__ void FV_CU_CAT5(fv_k_astype_, FV_CU_SRC_S, _, S2, _g32)(const char *in, char *out, fv_cu_geom32 g) \
    {                                                                                                             \
        FV_GRID_STRIDE(uint32_t, i, g.size) {                                                                     \
            uint32_t off[2];                                                                                      \
            FV_CU_OFFSETS(g, i, uint32_t, 2, off);                                                                \
            FV_CU_AT32(T2, out, off[0]) =                                                                         \
                FV__XCAT3(fv_cast_, FV_CU_SRC_S, _##S2)(FV_CU_AT32(const FV_CU_SRC_T, in, off[1]));               \
        }                                                                                                         \
    }                                                                                                             \
    __global__ void FV_CU_CAT5(fv_k_astype_, FV_CU_SRC_S, _, S2, _g64)(const char *in, char *out, fv_cu_geom64 g) \
    {                                                                                                             \
        FV_GRID_STRIDE(uint64_t, i, g.size) {                                                                     \
            uint64_t off[2];                                                                                      \
            FV_CU_OFFSETS(g, i, uint64_t, 2, off);                                                                \
            FV_CU_AT64(T2, out, off[0]) =                                                                         \
                FV__XCAT3(fv_cast_, FV_CU_SRC_S, _##S2)(FV_CU_AT64(const FV_CU_SRC_T, in, off[1]));               \
        }                                                                                                         \
    }

#define FV_CU_ASTYPE_CASE(E2, T2, S2)                                                                   \
    case E2:                                                                                            \
        if (j->mode == FV_CU_DENSE)                                                                     \
            FV_CU_CAT5(fv_k_astype_, FV_CU_SRC_S, _, S2, _c)                                            \
        FV_CU_LAUNCH(j)((const FV_CU_SRC_T *)j->in, (T2 *)j->out, j->n);                                \
        else if (j->mode == FV_CU_G32) FV_CU_CAT5(fv_k_astype_, FV_CU_SRC_S, _, S2, _g32)               \
            FV_CU_LAUNCH(j)(j->in, j->out, j->g32);                                                     \
        else FV_CU_CAT5(fv_k_astype_, FV_CU_SRC_S, _, S2, _g64) FV_CU_LAUNCH(j)(j->in, j->out, j->g64); \
        return 1;

/* Launcher for every destination of one source: fv_cu_astype_from_<src>. */
#define FV_CU_ASTYPE_FROM()                                                                        \
    static int FV_CU_CAT5(fv_cu_astype_from_, FV_CU_SRC_S, , , )(fv_dtype dst, const fv_cu_job *j) \
    {                                                                                              \
        switch (dst) {                                                                             \
            FV_FOREACH_DTYPE2(FV_CU_ASTYPE_CASE)                                                   \
        default:                                                                                   \
            return 0;                                                                              \
        }                                                                                          \
    }

/* One block per source dtype (the preprocessor cannot pass the source through
 * the nested dtype list otherwise; same scheme as cast.h). */
#define FV_CU_SRC_T uint8_t
#define FV_CU_SRC_S b
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T uint8_t
#define FV_CU_SRC_S u8
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T uint16_t
#define FV_CU_SRC_S u16
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T uint32_t
#define FV_CU_SRC_S u32
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T uint64_t
#define FV_CU_SRC_S u64
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T int8_t
#define FV_CU_SRC_S i8
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T int16_t
#define FV_CU_SRC_S i16
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T int32_t
#define FV_CU_SRC_S i32
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T int64_t
#define FV_CU_SRC_S i64
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T float
#define FV_CU_SRC_S f32
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S
#define FV_CU_SRC_T double
#define FV_CU_SRC_S f64
FV_FOREACH_DTYPE2(FV_CU_ASTYPE_KERNELS)
FV_CU_ASTYPE_FROM()
#undef FV_CU_SRC_T
#undef FV_CU_SRC_S

#define FV_CU_ASTYPE_SRC_CASE(E, T, S) \
    case E:                            \
        return fv_cu_astype_from_##S(dst, j);

static int
fv_cu_astype_launch(fv_dtype src, fv_dtype dst, const fv_cu_job *j)
{
    switch (src) {
        FV_FOREACH_DTYPE(FV_CU_ASTYPE_SRC_CASE)
    default:
        return 0;
    }
}

static fv_status
fv_cu_astype(fv_context *ctx, const fv__op_args *a)
{
    fv_cu_job j;
    fv__geom g;
    fv_status st;
    size_t isz[2];
    const char *data[2];

    ctx = fv__ctx(ctx);
    if ((st = fv__geom_init(&g, "astype", a->out, 1, &a->in)) != FV_OK)
        return st;
    isz[0] = fv_dtype_size(a->out->dtype);
    isz[1] = fv_dtype_size(a->in->dtype);
    data[0] = a->out->data;
    data[1] = a->in->data;
    if ((st = fv_cu_begin(ctx, "astype", a, g.size, &j.x)) != FV_OK)
        return st;
    if (g.size == 0)
        goto done;
    if (!fv_cu_geom_aligned(&g, data, isz)) {
        st = fv_cu_misaligned("astype");
        goto done;
    }
    j.in = a->in->data;
    j.in2 = NULL;
    j.out = a->out->data;
    fv_cu_job_geom(&j, &g, isz);
    if (!fv_cu_astype_launch(a->in->dtype, a->out->dtype, &j)) {
        st = fv_error_set(FV_EDTYPE, "astype", "no CUDA kernel for %s -> %s", fv_dtype_name(a->in->dtype),
                          fv_dtype_name(a->out->dtype));
        goto done;
    }
    st = fv_cu_launch_status("astype kernel launch");
done:
    fv_cu_end(&j.x);
    return st;
}

/* ==== copy ======================================================================== */

/* Element-sized moves (bool and uint8 share the 1-byte kernel, and so on). */
#define FV_CU_COPY_KERNELS(T, W)                                                   \
    __global__ void fv_k_copy_##W##_g32(const char *in, char *out, fv_cu_geom32 g) \
    {                                                                              \
        FV_GRID_STRIDE(uint32_t, i, g.size) {                                      \
            uint32_t off[2];                                                       \
            FV_CU_OFFSETS(g, i, uint32_t, 2, off);                                 \
            FV_CU_AT32(T, out, off[0]) = FV_CU_AT32(const T, in, off[1]);          \
        }                                                                          \
    }                                                                              \
    __global__ void fv_k_copy_##W##_g64(const char *in, char *out, fv_cu_geom64 g) \
    {                                                                              \
        FV_GRID_STRIDE(uint64_t, i, g.size) {                                      \
            uint64_t off[2];                                                       \
            FV_CU_OFFSETS(g, i, uint64_t, 2, off);                                 \
            FV_CU_AT64(T, out, off[0]) = FV_CU_AT64(const T, in, off[1]);          \
        }                                                                          \
    }
FV_CU_COPY_KERNELS(uint8_t, 1)
FV_CU_COPY_KERNELS(uint16_t, 2)
FV_CU_COPY_KERNELS(uint32_t, 4)
FV_CU_COPY_KERNELS(uint64_t, 8)

/* Byte-wise element copy for data that is not aligned to its element size. */
__global__ void
fv_k_copy_bytes_g64(const char *in, char *out, fv_cu_geom64 g, int w)
{
    FV_GRID_STRIDE(uint64_t, i, g.size) {
        uint64_t off[2];
        FV_CU_OFFSETS(g, i, uint64_t, 2, off);
        for (int b = 0; b < w; b++)
            out[(int64_t)off[0] + b] = in[(int64_t)off[1] + b];
    }
}

/* Copy g.size elements of w bytes from src to dst, both on `device`, laid out by
 * g (operand 0 dst, operand 1 src), on ctx's stream for that device. */
static fv_status
fv_cu_copy_run(fv_context *ctx, int device, const fv__geom *g, char *dst, const char *src, size_t w)
{
    fv_cu_job j;
    fv_status st;
    size_t isz[2] = { w, w };
    const char *data[2] = { dst, src };

    if (g->size == 0)
        return FV_OK;
    if ((st = fv__cuda_enter(device, &j.x.prev)) != FV_OK)
        return st;
    j.x.device = device;
    j.x.stream = (cudaStream_t)fv__cuda_stream_for(ctx, device);
    j.x.block = FV_CU_BLOCK;
    j.x.grid = fv_cu_grid(g->size, device);
    j.in = src;
    j.in2 = NULL;
    j.out = dst;
    (void)cudaGetLastError();

    if (fv_cu_is_dense(g, isz)) {
        cudaError_t e = cudaMemcpyAsync(dst, src, (size_t)g->size * w, cudaMemcpyDeviceToDevice, j.x.stream);
        st = e == cudaSuccess ? FV_OK : fv__cuda_error("cudaMemcpyAsync", e);
        goto done;
    }
    if ((w != 1 && w != 2 && w != 4 && w != 8) || !fv_cu_geom_aligned(g, data, isz)) {
        fv_cu_geom_pack64(g, &j.g64);
        fv_k_copy_bytes_g64 FV_CU_LAUNCH (&j)(src, dst, j.g64, (int)w);
        st = fv_cu_launch_status("copy kernel launch");
        goto done;
    }
    fv_cu_job_geom(&j, g, isz);
#define FV_CU_COPY_CASE(W)                                          \
    case W:                                                         \
        if (j.mode == FV_CU_G64)                                    \
            fv_k_copy_##W##_g64 FV_CU_LAUNCH (&j)(src, dst, j.g64); \
        else                                                        \
            fv_k_copy_##W##_g32 FV_CU_LAUNCH (&j)(src, dst, j.g32); \
        break;
    switch (w) {
        FV_CU_COPY_CASE(1)
        FV_CU_COPY_CASE(2)
        FV_CU_COPY_CASE(4)
        FV_CU_COPY_CASE(8)
    }
#undef FV_CU_COPY_CASE
    st = fv_cu_launch_status("copy kernel launch");
done:
    fv_cu_end(&j.x);
    return st;
}

static fv_status
fv_cu_copy(fv_context *ctx, const fv__op_args *a)
{
    const fv_array *in = a->in;
    fv_array *out = a->out;
    size_t w = fv_dtype_size(out->dtype);
    fv__geom g;
    fv_status st;

    ctx = fv__ctx(ctx);
    if (in->device.type != FV_DEVICE_CUDA || out->device.type != FV_DEVICE_CUDA)
        return fv_error_set(FV_EDEVICE, "copy", "CUDA copy kernel given an array in host memory");
    if (fv_dtype_size(in->dtype) != w)
        return fv_error_set(FV_EDTYPE, "copy", "%s -> %s: dtypes differ", fv_dtype_name(in->dtype),
                            fv_dtype_name(out->dtype));
    if (in->device.id != out->device.id) /* fv_copy stages those through fv__cuda_memcpy */
        return fv_error_set(FV_EDEVICE, "copy", "arrays on cuda:%d and cuda:%d", in->device.id, out->device.id);
    if ((st = fv__cuda_check_device(out->device.id)) != FV_OK)
        return st;
    if ((st = fv__geom_init(&g, "copy", out, 1, &a->in)) != FV_OK)
        return st;
    return fv_cu_copy_run(ctx, out->device.id, &g, out->data, in->data, w);
}

/* ==== add, multiply ================================================================ */

/* NumPy arithmetic in one dtype: integers wrap (done in the unsigned type of
 * max(32, bits) bits, so no signed overflow), bool add is or, multiply is and. */
#define FV_CU_INT_ARITH(T, S, W)                              \
    __device__ __forceinline__ T fv_cu_add_##S(T x, T y)      \
    {                                                         \
        return (T)((W)x + (W)y);                              \
    }                                                         \
    __device__ __forceinline__ T fv_cu_multiply_##S(T x, T y) \
    {                                                         \
        return (T)((W)x * (W)y);                              \
    }
FV_CU_INT_ARITH(uint8_t, u8, uint32_t)
FV_CU_INT_ARITH(uint16_t, u16, uint32_t)
FV_CU_INT_ARITH(uint32_t, u32, uint32_t)
FV_CU_INT_ARITH(uint64_t, u64, uint64_t)
FV_CU_INT_ARITH(int8_t, i8, uint32_t)
FV_CU_INT_ARITH(int16_t, i16, uint32_t)
FV_CU_INT_ARITH(int32_t, i32, uint32_t)
FV_CU_INT_ARITH(int64_t, i64, uint64_t)
__device__ __forceinline__ uint8_t
fv_cu_add_b(uint8_t x, uint8_t y)
{
    return (uint8_t)((x != 0) | (y != 0));
}
__device__ __forceinline__ uint8_t
fv_cu_multiply_b(uint8_t x, uint8_t y)
{
    return (uint8_t)((x != 0) & (y != 0));
}
__device__ __forceinline__ float
fv_cu_add_f32(float x, float y)
{
    return x + y;
}
__device__ __forceinline__ float
fv_cu_multiply_f32(float x, float y)
{
    return x * y;
}
__device__ __forceinline__ double
fv_cu_add_f64(double x, double y)
{
    return x + y;
}
__device__ __forceinline__ double
fv_cu_multiply_f64(double x, double y)
{
    return x * y;
}

#define FV_CU_BINARY_KERNELS(OP, E, T, S)                                                          \
    __global__ void fv_k_##OP##_##S##_c(const T *x, const T *y, T *out, int64_t n)                 \
    {                                                                                              \
        FV_GRID_STRIDE(int64_t, i, n)                                                              \
            out[i] = fv_cu_##OP##_##S(x[i], y[i]);                                                 \
    }                                                                                              \
    __global__ void fv_k_##OP##_##S##_g32(const char *x, const char *y, char *out, fv_cu_geom32 g) \
    {                                                                                              \
        FV_GRID_STRIDE(uint32_t, i, g.size) {                                                      \
            uint32_t off[3];                                                                       \
            FV_CU_OFFSETS(g, i, uint32_t, 3, off);                                                 \
            FV_CU_AT32(T, out, off[0]) =                                                           \
                fv_cu_##OP##_##S(FV_CU_AT32(const T, x, off[1]), FV_CU_AT32(const T, y, off[2]));  \
        }                                                                                          \
    }                                                                                              \
    __global__ void fv_k_##OP##_##S##_g64(const char *x, const char *y, char *out, fv_cu_geom64 g) \
    {                                                                                              \
        FV_GRID_STRIDE(uint64_t, i, g.size) {                                                      \
            uint64_t off[3];                                                                       \
            FV_CU_OFFSETS(g, i, uint64_t, 3, off);                                                 \
            FV_CU_AT64(T, out, off[0]) =                                                           \
                fv_cu_##OP##_##S(FV_CU_AT64(const T, x, off[1]), FV_CU_AT64(const T, y, off[2]));  \
        }                                                                                          \
    }
#define FV_CU_ADD_KERNELS(E, T, S) FV_CU_BINARY_KERNELS(add, E, T, S)
#define FV_CU_MULTIPLY_KERNELS(E, T, S) FV_CU_BINARY_KERNELS(multiply, E, T, S)
FV_FOREACH_DTYPE(FV_CU_ADD_KERNELS)
FV_FOREACH_DTYPE(FV_CU_MULTIPLY_KERNELS)

#define FV_CU_BINARY_CASE(OP, E, T, S)                                                                   \
    case E:                                                                                              \
        if (j->mode == FV_CU_DENSE)                                                                      \
            fv_k_##OP##_##S##_c FV_CU_LAUNCH(j)((const T *)j->in, (const T *)j->in2, (T *)j->out, j->n); \
        else if (j->mode == FV_CU_G32)                                                                   \
            fv_k_##OP##_##S##_g32 FV_CU_LAUNCH(j)(j->in, j->in2, j->out, j->g32);                        \
        else                                                                                             \
            fv_k_##OP##_##S##_g64 FV_CU_LAUNCH(j)(j->in, j->in2, j->out, j->g64);                        \
        return 1;
#define FV_CU_ADD_CASE(E, T, S) FV_CU_BINARY_CASE(add, E, T, S)
#define FV_CU_MULTIPLY_CASE(E, T, S) FV_CU_BINARY_CASE(multiply, E, T, S)

static int
fv_cu_add_launch(fv_dtype dt, const fv_cu_job *j)
{
    switch (dt) {
        FV_FOREACH_DTYPE(FV_CU_ADD_CASE)
    default:
        return 0;
    }
}

static int
fv_cu_multiply_launch(fv_dtype dt, const fv_cu_job *j)
{
    switch (dt) {
        FV_FOREACH_DTYPE(FV_CU_MULTIPLY_CASE)
    default:
        return 0;
    }
}

static fv_status
fv_cu_binary(fv_context *ctx, const fv__op_args *a, const char *name, int (*launch)(fv_dtype, const fv_cu_job *))
{
    const fv_array *ins[2] = { a->in, a->in2 };
    fv_dtype dt = a->out->dtype;
    fv_cu_job j;
    fv__geom g;
    fv_status st;
    size_t isz[3];
    const char *data[3];

    ctx = fv__ctx(ctx);
    if (!a->in2)
        return fv_error_set(FV_EINVAL, name, "second input missing");
    if (a->in->dtype != dt || a->in2->dtype != dt)
        return fv_error_set(FV_EDTYPE, name, "CUDA kernel needs one dtype: %s, %s -> %s", fv_dtype_name(a->in->dtype),
                            fv_dtype_name(a->in2->dtype), fv_dtype_name(dt));
    if ((st = fv__geom_init(&g, name, a->out, 2, ins)) != FV_OK)
        return st;
    isz[0] = isz[1] = isz[2] = fv_dtype_size(dt);
    data[0] = a->out->data;
    data[1] = a->in->data;
    data[2] = a->in2->data;
    if ((st = fv_cu_begin(ctx, name, a, g.size, &j.x)) != FV_OK)
        return st;
    if (g.size == 0)
        goto done;
    if (!fv_cu_geom_aligned(&g, data, isz)) {
        st = fv_cu_misaligned(name);
        goto done;
    }
    j.in = a->in->data;
    j.in2 = a->in2->data;
    j.out = a->out->data;
    fv_cu_job_geom(&j, &g, isz);
    if (!launch(dt, &j)) {
        st = fv_error_set(FV_EDTYPE, name, "no CUDA kernel for %s", fv_dtype_name(dt));
        goto done;
    }
    st = fv_cu_launch_status(name);
done:
    fv_cu_end(&j.x);
    return st;
}

static fv_status
fv_cu_add(fv_context *ctx, const fv__op_args *a)
{
    return fv_cu_binary(ctx, a, "add", fv_cu_add_launch);
}

static fv_status
fv_cu_multiply(fv_context *ctx, const fv__op_args *a)
{
    return fv_cu_binary(ctx, a, "multiply", fv_cu_multiply_launch);
}

/* ==== registration ================================================================== */

FV_KERNEL(ASTYPE, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_astype);
FV_KERNEL(COPY, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_copy);
FV_KERNEL(ADD, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_add);
FV_KERNEL(MULTIPLY, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_multiply);
