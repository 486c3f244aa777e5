/* Chamfer distance transform on the GPU (scipy.ndimage.distance_transform_cdt),
 * with the same results as the CPU backend's two raster passes.
 *
 * scipy's forward pass computes shortest paths (every step costs 1) over the
 * DAG whose edges run from q = p + o to p for the offsets o of the structure's
 * first half (o precedes the centre in C order, so q precedes p in raster
 * order), from the zeros; the backward pass does the same with -o, starting from
 * the forward distances. A DAG's shortest paths are the unique fixed point of
 * D(p) = min(D(p), D(q) + 1), so relaxing every element in parallel, in place,
 * until a sweep changes nothing gives exactly the passes' distances (a changed
 * flag copied back every few sweeps). Each thread relaxes a short run of one
 * line in raster order, so runs along the last axis settle in one sweep.
 *
 * Features follow scipy's tie rule: an element takes the feature of the first
 * neighbour in structure order that gives its distance (in the backward pass,
 * only a neighbour strictly better than the forward distance counts). That
 * defines a parent per element; pointer jumping finds each element's root, whose
 * feature is its own index (forward pass) or its forward feature (backward). */
#include "cuda/morphology/morphology-cuda.cuh"

#define FV_CU_CDT_RUN 8    /* elements of a line relaxed in order by one thread */
#define FV_CU_CDT_SWEEPS 4 /* sweeps between looks at the changed flag */

typedef struct fv_cu_cdt_geom {
    int nd, nel, dir;
    int64_t N, n, runs_per_line, runs;
    int64_t shape[FV_MAX_NDIM];
} fv_cu_cdt_geom;

/* Neighbour of p (coordinates x) through element e along dir, or -1 outside. */
__device__ __forceinline__ int64_t
fv_cu_cdt_nb(const fv_cu_cdt_geom &g, const int64_t *x, int64_t p, const int8_t *delta, const int64_t *off, int e)
{
    for (int d = 0; d < g.nd; d++) {
        int64_t c = x[d] + g.dir * (int64_t)delta[e * g.nd + d];
        if (c < 0 || c >= g.shape[d])
            return -1;
    }
    return p + g.dir * off[e];
}

__global__ void
fv_k_cdt_init(const uint8_t *fg, int32_t *D, int64_t N)
{
    FV_GRID_STRIDE(int64_t, p, N)
        D[p] = fg[p] ? -1 : 0;
}

/* One sweep of relaxation over runs of FV_CU_CDT_RUN elements. */
__global__ void
fv_k_cdt_relax(fv_cu_cdt_geom g, int32_t *D, const int8_t *delta, const int64_t *off, int *flag)
{
    int changed = 0;
    FV_GRID_STRIDE(int64_t, t, g.runs) {
        const int64_t run = g.dir > 0 ? t : g.runs - 1 - t;
        const int64_t line = run / g.runs_per_line, part = run - line * g.runs_per_line;
        int64_t x[FV_MAX_NDIM], rem = line;
        for (int d = g.nd - 2; d >= 0; d--) {
            x[d] = rem % g.shape[d];
            rem /= g.shape[d];
        }
        const int64_t i0 = part * FV_CU_CDT_RUN;
        const int64_t cnt = g.n - i0 < FV_CU_CDT_RUN ? g.n - i0 : FV_CU_CDT_RUN;
        for (int64_t k = 0; k < cnt; k++) {
            const int64_t i = g.dir > 0 ? i0 + k : i0 + cnt - 1 - k;
            const int64_t p = line * g.n + i;
            x[g.nd - 1] = i;
            const int32_t cur = D[p];
            if (cur == 0)
                continue;
            int32_t best = cur;
            for (int e = 0; e < g.nel; e++) {
                int64_t q = fv_cu_cdt_nb(g, x, p, delta, off, e);
                if (q < 0)
                    continue;
                int32_t tt = D[q];
                if (tt >= 0 && (best < 0 || tt + 1 < best))
                    best = tt + 1;
            }
            if (best != cur) {
                D[p] = best;
                changed = 1;
            }
        }
    }
    if (__syncthreads_or(changed) && threadIdx.x == 0)
        atomicOr(flag, 1);
}

/* Parents. Forward (init NULL): the first neighbour q with D(q) + 1 == D(p) for
 * D(p) > 0, else p. Backward: the same, but p itself where D(p) == init(p). */
__global__ void
fv_k_cdt_parent(fv_cu_cdt_geom g, const int32_t *D, const int32_t *init, const int8_t *delta, const int64_t *off,
                int64_t *ptr)
{
    FV_GRID_STRIDE(int64_t, p, g.N) {
        int64_t par = p;
        const int32_t v = D[p];
        if (v > 0 && !(init && init[p] == v)) {
            int64_t x[FV_MAX_NDIM], rem = p;
            for (int d = g.nd - 1; d >= 0; d--) {
                x[d] = rem % g.shape[d];
                rem /= g.shape[d];
            }
            for (int e = 0; e < g.nel; e++) {
                int64_t q = fv_cu_cdt_nb(g, x, p, delta, off, e);
                if (q >= 0 && D[q] >= 0 && D[q] + 1 == v) {
                    par = q;
                    break;
                }
            }
        }
        ptr[p] = par;
    }
}

/* One round of pointer jumping. */
__global__ void
fv_k_cdt_jump(int64_t *ptr, int64_t N, int *flag)
{
    int changed = 0;
    FV_GRID_STRIDE(int64_t, p, N) {
        int64_t a = ptr[p], b = ptr[a];
        if (a != b) {
            ptr[p] = b;
            changed = 1;
        }
    }
    if (__syncthreads_or(changed) && threadIdx.x == 0)
        atomicOr(flag, 1);
}

/* Outputs: distances from D; indices from the feature of each root (the forward
 * features featF, indexed by the backward roots rootB; featF NULL: the root). */
__global__ void
fv_k_cdt_out(fv_cu_cdt_geom g, const int32_t *D, const int64_t *rootB, const int64_t *featF, char *dist,
             fv_cu_geom64 dg, char *idx, fv_cu_geom64 ig)
{
    FV_GRID_STRIDE(int64_t, p, g.N) {
        int64_t x[FV_MAX_NDIM], rem = p, doff = 0, ioff = 0;
        for (int d = g.nd - 1; d >= 0; d--) {
            x[d] = rem % g.shape[d];
            rem /= g.shape[d];
            doff += x[d] * (int64_t)dg.strides[0][d];
            ioff += x[d] * (int64_t)ig.strides[0][d + 1];
        }
        if (dist)
            *(int32_t *)(dist + doff) = D[p];
        if (idx) {
            int64_t f = featF[rootB[p]];
            for (int d = g.nd - 1; d >= 0; d--) {
                *(int32_t *)(idx + ioff + d * (int64_t)ig.strides[0][0]) = (int32_t)(f % g.shape[d]);
                f /= g.shape[d];
            }
        }
    }
}

/* Runs rounds() (kernels that set *dflag when they change anything) until a
 * round leaves the flag clear. */
template <typename F>
static fv_status
fv_cu_cdt_until_settled(int *dflag, const fv_cu_exec *x, F rounds)
{
    for (;;) {
        int h = 0;
        fv_status st = fv_cu_zero(dflag, sizeof(int), x->stream);
        if (st != FV_OK)
            return st;
        rounds();
        if ((st = fv_cu_launch_status("cdt kernel launch")) != FV_OK ||
            (st = fv_cu_read_back(&h, dflag, sizeof h, x->stream, "cudaMemcpyAsync")) != FV_OK)
            return st;
        if (!h)
            return FV_OK;
    }
}

/* Relax (dir) until a sweep changes nothing. */
static fv_status
fv_cu_cdt_relax_all(fv_cu_cdt_geom g, int32_t *D, const int8_t *delta, const int64_t *off, int *dflag,
                    const fv_cu_exec *x)
{
    unsigned grid = fv_cu_grid(g.runs, x->device);
    return fv_cu_cdt_until_settled(dflag, x, [&] {
        for (int k = 0; k < FV_CU_CDT_SWEEPS; k++)
            fv_k_cdt_relax<<<grid, FV_CU_BLOCK, 0, x->stream>>>(g, D, delta, off, dflag);
    });
}

/* Pointer jumping until every pointer is a root. */
static fv_status
fv_cu_cdt_jump_all(int64_t *ptr, int64_t N, int *dflag, const fv_cu_exec *x)
{
    return fv_cu_cdt_until_settled(dflag, x, [&] {
        for (int k = 0; k < 4; k++)
            fv_k_cdt_jump<<<x->grid, x->block, 0, x->stream>>>(ptr, N, dflag);
    });
}

static void
fv_cu_cdt_pack(const fv_array *a, fv_cu_geom64 *k)
{
    memset(k, 0, sizeof *k);
    if (!a)
        return;
    for (int d = 0; d < a->ndim; d++)
        k->strides[0][d] = (uint64_t)a->strides[d];
}

fv_status
fv_cu_cdt(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "distance_transform_cdt";
    const fv__distance_params *p = (const fv__distance_params *)a->params;
    const fv_array *fga = a->in; /* the foreground (ops/morphology/distance.h) */
    fv_array *Da = NULL, *Fa = NULL, *pF = NULL, *pB = NULL, *misc = NULL;
    int8_t *hdelta = NULL;
    int64_t *hoff = NULL;
    fv_cu_exec x;
    fv_status st = FV_OK;
    fv_cu_cdt_geom g;
    int entered = 0;
    cudaError_t e;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_distance_check(a, p, name)) != FV_OK)
        return st;
    memset(&g, 0, sizeof g);
    const int nd = p->ndim;
    g.nd = nd;
    g.N = fv_array_size(a->in);
    for (int d = 0; d < nd; d++)
        g.shape[d] = a->in->shape[d];
    if (g.N == 0)
        return FV_OK;
    g.n = g.shape[nd - 1];
    g.runs_per_line = (g.n + FV_CU_CDT_RUN - 1) / FV_CU_CDT_RUN;
    g.runs = g.N / g.n * g.runs_per_line;
    int64_t ssize = 1;
    for (int d = 0; d < nd; d++)
        ssize *= 3;
    hdelta = (int8_t *)malloc((size_t)(ssize * nd + 1));
    hoff = (int64_t *)malloc(sizeof *hoff * (size_t)(ssize + 1));
    if (!hdelta || !hoff) {
        st = fv_error_set(FV_ENOMEM, name, "out of host memory");
        goto done;
    }
    for (int64_t k = 0; k < ssize / 2; k++) { /* the first half, in C order */
        if (!p->structure[k])
            continue;
        int64_t rem = k, off = 0, stride = 1;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t dl = rem % 3 - 1;
            rem /= 3;
            hdelta[g.nel * nd + d] = (int8_t)dl;
            off += dl * stride;
            stride *= g.shape[d];
        }
        hoff[g.nel++] = off;
    }
    if ((st = fv_cu_begin(ctx, name, a, g.N, &x)) != FV_OK)
        goto done;
    entered = 1;
    /* misc: flag (16 bytes), element offsets, deltas */
    if ((st = fv_cu_morph_temp(ctx, x.device, FV_UINT8, 16 + (int64_t)g.nel * 8 + (int64_t)g.nel * nd, &misc)) ||
        (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, g.N, &Da)))
        goto done;
    if (p->indices &&
        ((st = fv_cu_morph_temp(ctx, x.device, FV_INT32, g.N, &Fa)) ||
         (st = fv_cu_morph_temp(ctx, x.device, FV_INT64, g.N, &pF)) ||
         (st = fv_cu_morph_temp(ctx, x.device, FV_INT64, g.N, &pB))))
        goto done;
    {
        int *dflag = (int *)misc->data;
        int64_t *doff = (int64_t *)(misc->data + 16);
        int8_t *ddelta = (int8_t *)(misc->data + 16 + (int64_t)g.nel * 8);
        int32_t *D = (int32_t *)Da->data;
        if (g.nel) {
            /* pageable sources: the calls return once the data is staged */
            e = cudaMemcpyAsync(doff, hoff, (size_t)g.nel * 8, cudaMemcpyHostToDevice, x.stream);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(ddelta, hdelta, (size_t)g.nel * nd, cudaMemcpyHostToDevice, x.stream);
            if (e != cudaSuccess) {
                st = fv__cuda_error("cudaMemcpyAsync", e);
                goto done;
            }
        }
        fv_k_cdt_init<<<x.grid, x.block, 0, x.stream>>>((const uint8_t *)fga->data, D, g.N);
        if ((st = fv_cu_launch_status("cdt kernel launch")) != FV_OK)
            goto done;
        if (g.nel) {
            g.dir = 1;
            if ((st = fv_cu_cdt_relax_all(g, D, ddelta, doff, dflag, &x)) != FV_OK)
                goto done;
        }
        if (p->indices) {
            if ((e = cudaMemcpyAsync(Fa->data, D, (size_t)g.N * 4, cudaMemcpyDeviceToDevice, x.stream)) !=
                cudaSuccess) {
                st = fv__cuda_error("cudaMemcpyAsync", e);
                goto done;
            }
            fv_k_cdt_parent<<<x.grid, x.block, 0, x.stream>>>(g, D, NULL, ddelta, doff, (int64_t *)pF->data);
            if ((st = fv_cu_launch_status("cdt kernel launch")) != FV_OK ||
                (st = fv_cu_cdt_jump_all((int64_t *)pF->data, g.N, dflag, &x)) != FV_OK)
                goto done;
        }
        if (g.nel) {
            g.dir = -1;
            if ((st = fv_cu_cdt_relax_all(g, D, ddelta, doff, dflag, &x)) != FV_OK)
                goto done;
        }
        if (p->indices) {
            fv_k_cdt_parent<<<x.grid, x.block, 0, x.stream>>>(g, D, (const int32_t *)Fa->data, ddelta, doff,
                                                              (int64_t *)pB->data);
            if ((st = fv_cu_launch_status("cdt kernel launch")) != FV_OK ||
                (st = fv_cu_cdt_jump_all((int64_t *)pB->data, g.N, dflag, &x)) != FV_OK)
                goto done;
        }
        fv_cu_geom64 dg, ig;
        fv_cu_cdt_pack(p->distances, &dg);
        fv_cu_cdt_pack(p->indices, &ig);
        fv_k_cdt_out<<<x.grid, x.block, 0, x.stream>>>(
            g, D, pB ? (const int64_t *)pB->data : NULL, pF ? (const int64_t *)pF->data : NULL,
            p->distances ? p->distances->data : NULL, dg, p->indices ? p->indices->data : NULL, ig);
        st = fv_cu_launch_status("cdt kernel launch");
    }
done:
    fv_cu_morph_release(ctx, Da);
    fv_cu_morph_release(ctx, Fa);
    fv_cu_morph_release(ctx, pF);
    fv_cu_morph_release(ctx, pB);
    fv_cu_morph_release(ctx, misc);
    if (entered)
        fv_cu_end(&x);
    free(hdelta);
    free(hoff);
    return st;
}

FV_KERNEL(CDT, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_cdt);
