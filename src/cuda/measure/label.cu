/* CUDA kernel of FV__OP_LABEL (fv_label): union-find after Playne and Hawick
 * (2018), "A new algorithm for parallel connected-component labelling on
 * GPUs", with the consecutive numbering of Komura's relabelling step.
 *
 *   init     P[i] = i for foreground pixels, -1 for background;
 *   merge    every foreground pixel unites with each equal backward neighbour:
 *            both roots are found (plain reads of P, no writes), then the
 *            larger root is lowered with atomicMin to the smaller one. When
 *            atomicMin returns something other than the expected root, that
 *            root had been re-linked meanwhile: the returned value is another
 *            member of the same tree and the union goes on from it. Links
 *            only ever point to smaller indices, so each final root is its
 *            component's first pixel in raster order;
 *   compress P[i] = root of i (only ancestors are written, so concurrent
 *            finds stay valid) and S[i] = 1 for roots, 0 otherwise;
 *   scan     S = inclusive prefix sum of S (CUB, in place): a root's S is
 *            its label, S[n - 1] the number of labels;
 *   relabel  out[i] = S[P[i]] (0 for background). Each thread reads only its
 *            own P[i], so out may be P itself.
 * Index type: int32 when n leaves room for the grid-stride loop, int64
 * otherwise; P is out itself when out has the index type's width, else a
 * scratch array. */
#include <cub/device/device_scan.cuh>
#include "cuda/common.cuh"
#include "ops/measure/label-kernels.h"
#include "ops/measure/regionprops-kernels.h"

typedef struct fv_cu_label_geom {
    int nd;
    int nnb;
    int64_t shape[FV_MAX_NDIM];
} fv_cu_label_geom;

__device__ __forceinline__ int32_t
fv_cu_label_amin(int32_t *p, int32_t v)
{
    return (int32_t)atomicMin((int *)p, (int)v);
}

__device__ __forceinline__ int64_t
fv_cu_label_amin(int64_t *p, int64_t v)
{
    return (int64_t)atomicMin((long long *)p, (long long)v);
}

template <typename IT>
__device__ __forceinline__ IT
fv_cu_label_find(const IT *P, IT x)
{
    for (;;) {
        IT p = *(const volatile IT *)&P[x];   /* other threads lower roots meanwhile */
        if (p == x)
            return x;
        x = p;
    }
}

template <typename IT>
__device__ void
fv_cu_label_unite(IT *P, IT a, IT b)
{
    for (;;) {
        a = fv_cu_label_find(P, a);
        b = fv_cu_label_find(P, b);
        if (a == b)
            return;
        if (a < b) {
            IT old = fv_cu_label_amin(&P[b], a);
            if (old == b)
                return;
            b = old;
        } else {
            IT old = fv_cu_label_amin(&P[a], b);
            if (old == a)
                return;
            a = old;
        }
    }
}

template <typename VT, typename IT>
__global__ void
fv_k_label_init(const VT *in, IT *P, IT n, int hasbg, VT bg)
{
    FV_GRID_STRIDE(IT, i, n) { P[i] = hasbg && in[i] == bg ? (IT)-1 : i; }
}

/* off: nnb flat offsets; nbo: nnb rows of nd per-axis offsets in {-1, 0, 1} */
template <typename VT, typename IT>
__global__ void
fv_k_label_merge(const VT *in, IT *P, IT n, fv_cu_label_geom g, const int64_t *off, const int8_t *nbo,
                 int hasbg, VT bg)
{
    FV_GRID_STRIDE(IT, i, n) {
        const VT v = in[i];
        if (hasbg && v == bg)
            continue;
        IT co[FV_MAX_NDIM], r = i;
        for (int d = g.nd - 1; d > 0; d--) {
            IT s = (IT)g.shape[d], q = r / s;
            co[d] = r - q * s;
            r = q;
        }
        co[0] = r;
        for (int k = 0; k < g.nnb; k++) {
            const int8_t *o = nbo + (size_t)k * g.nd;
            int ok = 1;
            for (int d = 0; d < g.nd && ok; d++) {
                IT c = co[d] + (IT)o[d];
                ok = c >= 0 && c < (IT)g.shape[d];
            }
            if (!ok)
                continue;
            const IT j = i + (IT)off[k];
            if (in[j] == v)
                fv_cu_label_unite(P, i, j);
        }
    }
}

template <typename IT>
__global__ void
fv_k_label_compress(IT *P, IT *S, IT n)
{
    FV_GRID_STRIDE(IT, i, n) {
        IT p = P[i];
        if (p < 0) {
            S[i] = 0;
            continue;
        }
        IT r = fv_cu_label_find(P, p);
        if (r != p)
            P[i] = r;
        S[i] = r == i;
    }
}

template <typename IT, typename OT>
__global__ void
fv_k_label_relabel(const IT *P, const IT *S, OT *out, IT n)
{
    FV_GRID_STRIDE(IT, i, n) {
        IT p = P[i];
        out[i] = p < 0 ? (OT)0 : (OT)S[p];
    }
}

/* Device scratch, freed after the stream has finished with it. */
typedef struct fv_cu_label_buf {
    void *ptr, *opaque;
} fv_cu_label_buf;

static fv_status
fv_cu_label_alloc(fv_context *ctx, int device, size_t n, fv_cu_label_buf *b)
{
    return fv__cuda_alloc(ctx, device, n ? n : 1, &b->ptr, &b->opaque);
}

template <typename VT, typename IT>
static fv_status
fv_cu_label_run(fv_context *ctx, const fv__op_args *a, const fv_cu_exec *x, const fv_cu_label_geom *g,
                const int64_t *off_d, const int8_t *nbo_d, int64_t *num)
{
    const fv__label_params *p = (const fv__label_params *)a->params;
    const IT n = (IT)fv_array_size(a->in);
    const VT *in = (const VT *)a->in->data;
    const int hasbg = p->has_background;
    const VT bg = (VT)p->background;
    fv_cu_label_buf pb = {NULL, NULL}, sb = {NULL, NULL}, tb = {NULL, NULL};
    const int inplace = fv_dtype_size(a->out->dtype) == sizeof(IT);
    size_t tbytes = 0;
    IT *P, *S, last = 0;
    cudaError_t e;
    fv_status st;

    if (!inplace && (st = fv_cu_label_alloc(ctx, x->device, sizeof(IT) * (size_t)n, &pb)))
        return st;
    P = inplace ? (IT *)a->out->data : (IT *)pb.ptr;
    if ((st = fv_cu_label_alloc(ctx, x->device, sizeof(IT) * (size_t)n, &sb)))
        goto done;
    S = (IT *)sb.ptr;
    if ((e = cub::DeviceScan::InclusiveSum(NULL, tbytes, S, (int64_t)n, x->stream))) {
        st = fv__cuda_error("cub::DeviceScan::InclusiveSum (size)", e);
        goto done;
    }
    if ((st = fv_cu_label_alloc(ctx, x->device, tbytes, &tb)))
        goto done;

    fv_k_label_init<VT, IT><<<x->grid, x->block, 0, x->stream>>>(in, P, n, hasbg, bg);
    if ((st = fv_cu_launch_status("label init")))
        goto done;
    if (g->nnb > 0) {
        fv_k_label_merge<VT, IT><<<x->grid, x->block, 0, x->stream>>>(in, P, n, *g, off_d, nbo_d, hasbg, bg);
        if ((st = fv_cu_launch_status("label merge")))
            goto done;
    }
    fv_k_label_compress<IT><<<x->grid, x->block, 0, x->stream>>>(P, S, n);
    if ((st = fv_cu_launch_status("label compress")))
        goto done;
    if ((e = cub::DeviceScan::InclusiveSum(tb.ptr, tbytes, S, (int64_t)n, x->stream))) {
        st = fv__cuda_error("cub::DeviceScan::InclusiveSum", e);
        goto done;
    }
    if (a->out->dtype == FV_INT64)
        fv_k_label_relabel<IT, int64_t><<<x->grid, x->block, 0, x->stream>>>(P, S, (int64_t *)a->out->data, n);
    else
        fv_k_label_relabel<IT, int32_t><<<x->grid, x->block, 0, x->stream>>>(P, S, (int32_t *)a->out->data, n);
    if ((st = fv_cu_launch_status("label relabel")))
        goto done;
    if ((e = cudaMemcpyAsync(&last, S + (n - 1), sizeof(IT), cudaMemcpyDeviceToHost, x->stream)) ||
        (e = cudaStreamSynchronize(x->stream))) {
        st = fv__cuda_error("cudaMemcpyAsync (label count)", e);
        goto done;
    }
    *num = (int64_t)last;
done:
    if (st)
        (void)cudaStreamSynchronize(x->stream);   /* nothing queued may still use the scratch */
    if (tb.ptr)
        fv__cuda_free(tb.ptr, tb.opaque);
    if (sb.ptr)
        fv__cuda_free(sb.ptr, sb.opaque);
    if (pb.ptr)
        fv__cuda_free(pb.ptr, pb.opaque);
    return st;
}

template <typename IT>
static fv_status
fv_cu_label_by_value(fv_context *ctx, const fv__op_args *a, const fv_cu_exec *x, const fv_cu_label_geom *g,
                     const int64_t *off_d, const int8_t *nbo_d, int64_t *num)
{
    switch (fv_dtype_size(a->in->dtype)) {
    case 1: return fv_cu_label_run<uint8_t, IT>(ctx, a, x, g, off_d, nbo_d, num);
    case 2: return fv_cu_label_run<uint16_t, IT>(ctx, a, x, g, off_d, nbo_d, num);
    case 4: return fv_cu_label_run<uint32_t, IT>(ctx, a, x, g, off_d, nbo_d, num);
    case 8: return fv_cu_label_run<uint64_t, IT>(ctx, a, x, g, off_d, nbo_d, num);
    default: return fv_error_set(FV_EDTYPE, "label", "unsupported dtype %s", fv_dtype_name(a->in->dtype));
    }
}

extern "C" fv_status
fv__cuda_label(fv_context *ctx, const fv__op_args *a)
{
    fv__label_params *p = (fv__label_params *)a->params;
    const int64_t n = fv_array_size(a->in);
    const int nd = a->in->ndim;
    fv_cu_label_geom g;
    fv_cu_label_buf tab = {NULL, NULL};
    int64_t cst[FV_MAX_NDIM], *host = NULL, num = 0;
    fv_cu_exec x;
    fv_status st;

    p->num = 0;
    if (n == 0)
        return FV_OK;
    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "label", a, n, &x)))
        return st;
    memset(&g, 0, sizeof g);
    g.nd = nd;
    g.nnb = p->nnb;
    for (int d = 0; d < nd; d++)
        g.shape[d] = a->in->shape[d];
    cst[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--)
        cst[d] = cst[d + 1] * a->in->shape[d + 1];

    /* neighbour table on the device: nnb int64 flat offsets, then nnb * nd int8 */
    const size_t tbytes = (size_t)p->nnb * (sizeof(int64_t) + (size_t)nd);
    if (p->nnb > 0) {
        if (!(host = (int64_t *)malloc(tbytes))) {
            st = fv_error_set(FV_ENOMEM, "label", "out of memory");
            goto done;
        }
        for (int k = 0; k < p->nnb; k++) {
            host[k] = 0;
            for (int d = 0; d < nd; d++)
                host[k] += p->nb[(size_t)k * nd + d] * cst[d];
        }
        memcpy(host + p->nnb, p->nb, (size_t)p->nnb * (size_t)nd);
        if ((st = fv_cu_label_alloc(ctx, x.device, tbytes, &tab)))
            goto done;
        fv_device dev = {FV_DEVICE_CUDA, x.device}, hdev = {FV_DEVICE_CPU, 0};
        if ((st = fv__cuda_memcpy(ctx, tab.ptr, dev, host, hdev, tbytes)))
            goto done;
    }
    {
        const int64_t *off_d = (const int64_t *)tab.ptr;
        const int8_t *nbo_d = tab.ptr ? (const int8_t *)(off_d + p->nnb) : NULL;
        /* 32-bit indices when i + the grid stride cannot overflow */
        if (n < INT32_MAX - ((int64_t)1 << 26))
            st = fv_cu_label_by_value<int32_t>(ctx, a, &x, &g, off_d, nbo_d, &num);
        else
            st = fv_cu_label_by_value<int64_t>(ctx, a, &x, &g, off_d, nbo_d, &num);
    }
    if (st == FV_OK)
        p->num = num;
done:
    if (tab.ptr) {
        (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(tab.ptr, tab.opaque);
    }
    free(host);
    fv_cu_end(&x);
    return st;
}

extern "C" void
fv__cuda_register_measure(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    uint32_t dt = FV_DTYPES_INT | FV_DTYPE_BIT(FV_BOOL);
    table[FV__OP_LABEL][FV__BACKEND_CUDA] = (fv__kernel){dt, FV_MAX_NDIM, fv__cuda_label};
    fv__cuda_register_regionprops(table);
}
