/* One pass of scipy's binary erosion (NI_BinaryErosion) on the GPU.
 *
 * Two kernels, the same bits:
 *
 *  - the tiled path (fv_k_ero_tile, src/cuda/morphology/erosion-tile.h): 1-D to
 *    3-D one-byte data (bool / uint8 / int8 input, output and mask; unit stride
 *    along the last axis, any strides along the others), structures of at most
 *    FV_ERO_MAXEL elements whose box fits the shared memory cap. 2-D blocks
 *    of 32 x 8 threads, each thread 4 output bytes (a 32-bit word) in each of 4
 *    rows; the tile's input rows (halo included, the border value written
 *    outside the image) are staged in shared memory as 0/1 bytes (dilation: the
 *    complement) in 4 copies shifted by 0..3 bytes, so that every structure
 *    element costs one aligned 32-bit shared load and one AND per 4 outputs,
 *    with per-element offsets computed on the host and carried in the launch.
 *    Interior tiles load 32-bit words without bounds checks; edge tiles check
 *    each byte. The `changed` / `differs` flags are reduced only when asked.
 *
 *  - the generic path (fv_k_binary_erosion): every other case (wider dtypes,
 *    strided last axes, 4-D and up, large structures), or everything when the
 *    environment sets FOVEA_ERO_GENERIC (to anything but "0"). One thread per
 *    output element (grid-stride): AND over the structure's elements of
 *    (in != 0) at the element's position (OR with invert), positions outside
 *    the image reading border_value, (in != 0) where mask == 0. The structure's
 *    elements (per-axis offsets and the input byte offset) travel with the
 *    launch when small, else in a device buffer.
 *
 * Either way the `changed` flag is a device int set by one atomicOr per block
 * and copied back once per pass only when src/ops asks for it (iterations < 1). */
#include <stdlib.h>
#include "cuda/morphology/morphology-cuda.cuh"
#include "cuda/morphology/erosion-tile.h"
#include "core/plan.h"

typedef struct fv_cu_ero_geom {
    int nd;
    int in_dt, out_dt, mask_dt;
    int border, invert, has_mask, want_flags;
    int nel;
    int64_t n;
    int64_t shape[FV_MAX_NDIM];
    int64_t sin[FV_MAX_NDIM], sout[FV_MAX_NDIM], smask[FV_MAX_NDIM];
} fv_cu_ero_geom;

/* Small structures travel with the launch (kernel parameter space): no transfer,
 * no synchronisation. Larger ones go through a device buffer. */
#define FV_CU_ERO_INLINE 64
typedef struct fv_cu_ero_elems {
    int64_t off[FV_CU_ERO_INLINE];
    int8_t delta[FV_CU_ERO_INLINE * FV_MAX_NDIM];
} fv_cu_ero_elems;

/* IT: the index type, 32 bits when the element count and every byte extent fit
 * (integer division is much cheaper there), else 64. */
template <typename IT>
__global__ void
fv_k_binary_erosion(const char *in, char *out, const char *mask, fv_cu_ero_geom g, fv_cu_ero_elems E, int use_inline,
                    const int32_t *delta, const int64_t *eoff, int *flags)
{
    int changed = 0, differs = 0;
    FV_GRID_STRIDE(IT, i, g.n) {
        int64_t x[FV_MAX_NDIM], io = 0, oo = 0, mo = 0;
        IT rem = i;
        for (int d = g.nd - 1; d >= 0; d--) {
            IT s = (IT)g.shape[d];
            IT q = rem / s;
            x[d] = (int64_t)(rem - q * s);
            rem = q;
            io += x[d] * g.sin[d];
            oo += x[d] * g.sout[d];
            mo += x[d] * g.smask[d];
        }
        const int self = fv_cu_fg(in + io, g.in_dt);
        int v;
        if (g.has_mask && !fv_cu_fg(mask + mo, g.mask_dt)) {
            v = self;
        } else {
            v = g.invert ? 0 : 1;
            for (int e = 0; e < g.nel; e++) {
                int inside = 1;
                for (int d = 0; d < g.nd; d++) {
                    int64_t c =
                        x[d] + (use_inline ? (int64_t)E.delta[e * g.nd + d] : (int64_t)__ldg(&delta[e * g.nd + d]));
                    inside &= c >= 0 && c < g.shape[d];
                }
                int b = inside ? fv_cu_fg(in + io + (use_inline ? E.off[e] : __ldg(&eoff[e])), g.in_dt) : g.border;
                if (g.invert ? b : !b) { /* the OR / AND is decided */
                    v = !v;
                    break;
                }
            }
        }
        if (g.want_flags & 2)
            differs |= fv_cu_fg(out + oo, g.out_dt) != v;
        fv_cu_store01(out + oo, g.out_dt, v);
        changed |= v != self;
    }
    if (g.want_flags) {
        if (__syncthreads_or(changed) && threadIdx.x == 0)
            atomicOr(&flags[0], 1);
        if (__syncthreads_or(differs) && threadIdx.x == 0)
            atomicOr(&flags[1], 1);
    }
}

/* ---- the tiled path ---------------------------------------------------------- */

template <int ALIGNED>
__global__ void
__launch_bounds__(FV_ERO_BX *FV_ERO_BY) fv_k_ero_tile(const __grid_constant__ fv_ero_tile_args a)
{
    extern __shared__ uint32_t fv_ero_sm[];
    const int64_t bx = blockIdx.x, by = blockIdx.y, z = blockIdx.z;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int interior = fv_ero_interior(&a, bx, by, z);
    const int rows = a.npl * a.ry, P = a.P;
    /* plane 0: the rows as t bytes */
#pragma unroll 2
    for (int tr = ty; tr < rows; tr += FV_ERO_BY)
        for (int j = tx; j < P; j += FV_ERO_BX)
            fv_ero_sm[tr * P + j] = fv_ero_load(&a, bx, by, z, tr, j, interior, ALIGNED);
    __syncthreads();
    /* planes 1..3: shifted by 1..3 bytes (their last word is never read) */
    for (int tr = ty; tr < rows; tr += FV_ERO_BY)
        for (int j = tx; j < P - 1; j += FV_ERO_BX) {
            const uint32_t lo = fv_ero_sm[tr * P + j], hi = fv_ero_sm[tr * P + j + 1];
            fv_ero_sm[a.PL + tr * P + j] = fv_ero_shift(lo, hi, 1);
            fv_ero_sm[2 * a.PL + tr * P + j] = fv_ero_shift(lo, hi, 2);
            fv_ero_sm[3 * a.PL + tr * P + j] = fv_ero_shift(lo, hi, 3);
        }
    __syncthreads();
    int changed = 0, differs = 0;
#pragma unroll
    for (int r = ty; r < FV_ERO_TH; r += FV_ERO_BY)
        fv_ero_out(&a, fv_ero_sm, bx, by, z, r, tx, ALIGNED, &changed, &differs);
    if (a.want_flags) {
        if (__syncthreads_or(changed) && tx == 0 && ty == 0)
            atomicOr(&a.flags[0], 1);
        if (__syncthreads_or(differs) && tx == 0 && ty == 0)
            atomicOr(&a.flags[1], 1);
    }
}

static int
fv_cu_ero_byte_dtype(int dt)
{
    return dt == FV_BOOL || dt == FV_UINT8 || dt == FV_INT8;
}

/* (z, y, x) strides of arr (nd 1..3), 0 along axes of extent 1; 0 when the last
 * axis (extent > 1) is not unit-stride. */
static int
fv_cu_ero_strides(const fv_array *arr, int64_t *sz, int64_t *sy)
{
    const int nd = arr->ndim;
    int64_t st[3] = { 0, 0, 1 }, sh[3] = { 1, 1, 1 };
    for (int d = 0; d < nd; d++) {
        st[3 - nd + d] = arr->shape[d] > 1 ? arr->strides[d] : 0;
        sh[3 - nd + d] = arr->shape[d];
    }
    if (sh[2] > 1 && st[2] != 1)
        return 0;
    *sz = st[0];
    *sy = st[1];
    return 1;
}

/* The tiled path for a, when it applies: *done = 1 and its status; else
 * *done = 0 and nothing happened. */
/* The kernels ("cuda.binary_erosion"): "tiled", the shared-memory tiles of
 * 1- to 3-d data (which still decline, *done = 0, for dtypes, strides,
 * structures or grids they do not take); "generic", every case. */
/* The pass's flags (any change, any difference from the input) into the
 * caller's p->changed / p->same_as_before. */
static fv_status
fv_cu_ero_flags_back(const fv__binary_erosion_params *p, const int *dflags, cudaStream_t stream)
{
    int hf[2] = { 0, 0 };
    fv_status st = fv_cu_read_back(hf, dflags, sizeof hf, stream, "cudaMemcpyAsync");
    if (st != FV_OK)
        return st;
    if (p->changed)
        *p->changed = hf[0] != 0;
    if (p->same_as_before)
        *p->same_as_before = hf[1] == 0;
    return FV_OK;
}

static int
fv_cu_ero_tiled_ok(const void *args, int device)
{
    const fv_array *in = (const fv_array *)args;
    return in->ndim >= 1 && in->ndim <= 3;
}

FV__VARIANTS(fv_cu_ero_variants, "cuda.binary_erosion", { "tiled", fv_cu_ero_tiled_ok, NULL },
             { "generic", NULL, NULL })

static fv_status
fv_cu_ero_tiled(fv_context *ctx, const fv__op_args *a, const fv__binary_erosion_params *p, int *done)
{
    const char *name = "binary_erosion";
    const fv_array *in = a->in, *out = a->out, *mask = a->in2;
    fv_ero_tile_args t;
    fv_array *buf = NULL;
    fv_cu_exec x;
    fv_status st = FV_OK;
    *done = 0;
    const int nd = in->ndim;
    if (fv__plan_index(&fv_cu_ero_variants, in, in->device.id) != 0)
        return FV_OK;
    if (!fv_cu_ero_byte_dtype(in->dtype) || !fv_cu_ero_byte_dtype(out->dtype) ||
        (mask && !fv_cu_ero_byte_dtype(mask->dtype)))
        return FV_OK;
    memset(&t, 0, offsetof(fv_ero_tile_args, off));
    if (!fv_cu_ero_strides(in, &t.siz, &t.siy) || !fv_cu_ero_strides(out, &t.soz, &t.soy) ||
        (mask && !fv_cu_ero_strides(mask, &t.smz, &t.smy)))
        return FV_OK;
    int64_t smem = fv_ero_tile_plan(nd, p->structure, p->sshape, p->origins, &t);
    if (!smem)
        return FV_OK;
    t.nz = nd == 3 ? in->shape[0] : 1;
    t.ny = nd >= 2 ? in->shape[nd - 2] : 1;
    t.nx = in->shape[nd - 1];
    const int64_t gx = (t.nx + FV_ERO_TW - 1) / FV_ERO_TW, gy = (t.ny + FV_ERO_TH - 1) / FV_ERO_TH;
    if (gx > INT32_MAX || gy > 65535 || t.nz > 65535)
        return FV_OK;
    *done = 1;
    t.in = (const uint8_t *)in->data;
    t.out = (uint8_t *)out->data;
    t.mask = mask ? (const uint8_t *)mask->data : NULL;
    t.inv = p->invert ? 0x01010101u : 0u;
    t.bt = (uint32_t)((p->border_value != 0) ^ (p->invert != 0));
    t.want_flags = (p->changed ? 1 : 0) | (p->same_as_before ? 2 : 0);
    const int aligned = ((uintptr_t)t.in & 3) == 0 && ((uintptr_t)t.out & 3) == 0 && (t.siz & 3) == 0 &&
        (t.siy & 3) == 0 && (t.soz & 3) == 0 && (t.soy & 3) == 0 &&
        (!mask || (((uintptr_t)t.mask & 3) == 0 && (t.smz & 3) == 0 && (t.smy & 3) == 0));
    if ((st = fv_cu_begin(ctx, name, a, fv_array_size(in), &x)) != FV_OK)
        return st;
    {
        cudaError_t e = cudaSuccess;
        if (t.want_flags) {
            if ((st = fv_cu_morph_temp(ctx, x.device, FV_UINT8, 16, &buf)) != FV_OK)
                goto done;
            t.flags = (int *)buf->data;
            if ((st = fv_cu_zero(t.flags, 16, x.stream)) != FV_OK)
                goto done;
        }
        const void *fn = aligned ? (const void *)fv_k_ero_tile<1> : (const void *)fv_k_ero_tile<0>;
        if (smem > 48 * 1024) {
            e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
            if (e != cudaSuccess) {
                st = fv__cuda_error("cudaFuncSetAttribute", e);
                goto done;
            }
        }
        dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)t.nz), block(FV_ERO_BX, FV_ERO_BY);
        if (aligned)
            fv_k_ero_tile<1><<<grid, block, (size_t)smem, x.stream>>>(t);
        else
            fv_k_ero_tile<0><<<grid, block, (size_t)smem, x.stream>>>(t);
        if ((st = fv_cu_launch_status("binary_erosion tiled kernel launch")) != FV_OK)
            goto done;
        if (t.want_flags) /* one small copy back per pass, only when asked */
            st = fv_cu_ero_flags_back(p, t.flags, x.stream);
    }
done:
    fv_cu_morph_release(ctx, buf);
    fv_cu_end(&x);
    return st;
}

/* ---- entry ------------------------------------------------------------------------ */

fv_status
fv_cu_binary_erosion(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "binary_erosion";
    const fv__binary_erosion_params *p = (const fv__binary_erosion_params *)a->params;
    fv_array *buf = NULL;
    int32_t *hdelta = NULL;
    int64_t *hoff = NULL;
    fv_cu_exec x;
    fv_status st = FV_OK;
    fv_cu_ero_geom g;
    int entered = 0;

    ctx = fv__ctx(ctx);
    if (!p || p->ndim != a->in->ndim || a->out->ndim != a->in->ndim)
        return fv_error_set(FV_EINTERNAL, name, "bad kernel parameters");
    memset(&g, 0, sizeof g);
    const int nd = p->ndim;
    g.nd = nd;
    g.n = fv_array_size(a->in);
    g.in_dt = a->in->dtype;
    g.out_dt = a->out->dtype;
    g.mask_dt = a->in2 ? a->in2->dtype : 0;
    g.has_mask = a->in2 != NULL;
    g.border = p->border_value != 0;
    g.invert = p->invert != 0;
    g.want_flags = (p->changed ? 1 : 0) | (p->same_as_before ? 2 : 0);
    for (int d = 0; d < nd; d++) {
        g.shape[d] = a->in->shape[d];
        g.sin[d] = a->in->strides[d];
        g.sout[d] = a->out->strides[d];
        g.smask[d] = a->in2 ? a->in2->strides[d] : 0;
    }
    if (p->changed)
        *p->changed = 0;
    if (p->same_as_before)
        *p->same_as_before = 1;
    int64_t ssize = 1, nel = 0;
    for (int d = 0; d < nd; d++)
        ssize *= p->sshape[d];
    for (int64_t k = 0; k < ssize; k++)
        nel += p->structure[k] != 0;
    if (nel > INT32_MAX / FV_MAX_NDIM)
        return fv_error_set(FV_EINVAL, name, "structure has too many elements");
    g.nel = (int)nel;
    if (g.n == 0)
        return FV_OK;
    {
        int done = 0;
        st = fv_cu_ero_tiled(ctx, a, p, &done);
        if (done || st != FV_OK)
            return st;
    }
    hdelta = (int32_t *)malloc(sizeof *hdelta * (size_t)(nel * nd + 1));
    hoff = (int64_t *)malloc(sizeof *hoff * (size_t)(nel + 1));
    if (!hdelta || !hoff) {
        st = fv_error_set(FV_ENOMEM, name, "out of host memory");
        goto done;
    }
    for (int64_t k = 0, e = 0; k < ssize; k++) {
        if (!p->structure[k])
            continue;
        int64_t rem = k, off = 0;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t j = rem % p->sshape[d];
            rem /= p->sshape[d];
            int64_t dl = j - p->sshape[d] / 2 - p->origins[d];
            hdelta[e * nd + d] = (int32_t)dl;
            off += dl * a->in->strides[d];
        }
        hoff[e++] = off;
    }
    if ((st = fv_cu_begin(ctx, name, a, g.n, &x)) != FV_OK)
        goto done;
    entered = 1;
    {
        /* flags (2 ints); the structure too when it does not fit the launch */
        fv_cu_ero_elems E;
        memset(&E, 0, sizeof E);
        int use_inline = nel <= FV_CU_ERO_INLINE;
        for (int64_t k = 0; use_inline && k < nel * nd; k++)
            use_inline = hdelta[k] >= -127 && hdelta[k] <= 127;
        if (use_inline) {
            for (int64_t k = 0; k < nel; k++)
                E.off[k] = hoff[k];
            for (int64_t k = 0; k < nel * nd; k++)
                E.delta[k] = (int8_t)hdelta[k];
        }
        int64_t nbytes = 16 + (use_inline ? 0 : nel * 8 + nel * nd * 4);
        char *dbuf = NULL;
        if (g.want_flags || !use_inline) {
            if ((st = fv_cu_morph_temp(ctx, x.device, FV_UINT8, nbytes, &buf)) != FV_OK)
                goto done;
            dbuf = buf->data;
        }
        int *dflags = (int *)dbuf;
        int64_t *doff = use_inline ? NULL : (int64_t *)(dbuf + 16);
        int32_t *ddelta = use_inline ? NULL : (int32_t *)(dbuf + 16 + nel * 8);
        cudaError_t e = cudaSuccess;
        if (g.want_flags)
            e = cudaMemsetAsync(dflags, 0, 16, x.stream);
        /* pageable sources: the call returns once the data is staged */
        if (e == cudaSuccess && !use_inline && nel)
            e = cudaMemcpyAsync(doff, hoff, (size_t)nel * 8, cudaMemcpyHostToDevice, x.stream);
        if (e == cudaSuccess && !use_inline && nel)
            e = cudaMemcpyAsync(ddelta, hdelta, (size_t)(nel * nd) * 4, cudaMemcpyHostToDevice, x.stream);
        if (e != cudaSuccess) {
            st = fv__cuda_error("cudaMemcpyAsync", e);
            goto done;
        }
        if (g.n <= INT32_MAX)
            fv_k_binary_erosion<uint32_t><<<x.grid, x.block, 0, x.stream>>>(
                a->in->data, a->out->data, a->in2 ? a->in2->data : NULL, g, E, use_inline, ddelta, doff, dflags);
        else
            fv_k_binary_erosion<uint64_t><<<x.grid, x.block, 0, x.stream>>>(
                a->in->data, a->out->data, a->in2 ? a->in2->data : NULL, g, E, use_inline, ddelta, doff, dflags);
        if ((st = fv_cu_launch_status("binary_erosion kernel launch")) != FV_OK)
            goto done;
        if (g.want_flags) /* one small copy back per pass */
            st = fv_cu_ero_flags_back(p, dflags, x.stream);
    }
done:
    fv_cu_morph_release(ctx, buf);
    if (entered)
        fv_cu_end(&x);
    free(hdelta);
    free(hoff);
    return st;
}

FV_KERNEL(BINARY_EROSION, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_binary_erosion);
