/* CUDA kernel of FV__OP_LABEL (fv_label): union-find after Playne and Hawick
 * (2018), "A new algorithm for parallel connected-component labelling on
 * GPUs", with the consecutive numbering of Komura's relabelling step.
 *
 *   init     P[i] = i for foreground pixels, -1 for background;
 *   merge    every foreground pixel unites with its equal backward neighbours,
 *            but only with one per connected component of that set (the
 *            table rep of fv__label_rep_table, when there are at most 13
 *            backward neighbours: always in 1..3 dimensions): the others are
 *            joined to it by their own merges. A union finds both roots
 *            (plain reads of P, no writes), then lowers the larger root with
 *            atomicMin to the smaller one. When atomicMin returns something
 *            other than the expected root, that root had been re-linked
 *            meanwhile: the returned value is another member of the same
 *            tree and the union goes on from it. Links only ever point to
 *            smaller indices, so each final root is its component's first
 *            pixel in raster order. 1..3-d images run a kernel that keeps
 *            each thread's coordinates up to date along its grid-stride
 *            loop (no division per pixel) and takes the neighbour offsets
 *            from its parameters; more dimensions run the generic one;
 *   compress P[i] = root of i (only ancestors are written, so concurrent
 *            finds stay valid) and S[i] = 1 for roots, 0 otherwise;
 *   scan     S = inclusive prefix sum of S (CUB, in place): a root's S is
 *            its label, S[n - 1] the number of labels;
 *   relabel  out[i] = S[P[i]] (0 for background). Each thread reads only its
 *            own P[i], so out may be P itself.
 * The same file runs FV__OP_BINARY_FLOOD (binary propagation to convergence
 * as one labelling of seed | mask; see below).
 * Index type: int32 when n leaves room for the grid-stride loop, int64
 * otherwise; P is out itself when out has the index type's width, else a
 * scratch array. */
#include <cub/device/device_scan.cuh>
#include "cuda/common.cuh"
#include "cuda/measure/union-find.cuh"
#include "ops/measure/label.h"
#include "ops/morphology/binary-flood.h"
#include "ops/measure/regionprops.h"
#include "core/plan.h"

typedef struct fv_cu_label_geom {
    int nd;
    int nnb;
    int64_t shape[FV_MAX_NDIM];
} fv_cu_label_geom;

template <typename VT, typename IT>
__global__ void
fv_k_label_init(const VT *in, IT *P, IT n, int hasbg, VT bg)
{
    FV_GRID_STRIDE(IT, i, n) {
        P[i] = hasbg && in[i] == bg ? (IT)-1 : i;
    }
}

/* Generic merge, any number of dimensions. off: nnb flat offsets; nbo: nnb
 * rows of nd per-axis offsets in {-1, 0, 1}; rep: NULL (unite with every equal
 * neighbour) or the table of fv__label_rep_table (nnb <= FV__LABEL_REP_MAX). */
template <typename VT, typename IT, bool HALVE>
__global__ void
fv_k_label_merge(const VT *in, IT *P, IT n, fv_cu_label_geom g, const int64_t *off, const int8_t *nbo,
                 const uint16_t *rep, int hasbg, VT bg)
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
        uint32_t m = 0;
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
            if (in[j] != v)
                continue;
            if (rep)
                m |= 1u << k;
            else
                fv_cu_uf_unite<HALVE>(P, i, j);
        }
        for (uint32_t b = m ? (uint32_t)__ldg(&rep[m]) : 0u; b; b &= b - 1) {
            const int k = __ffs((int)b) - 1;
            fv_cu_uf_unite<HALVE>(P, i, i + (IT)off[k]);
        }
    }
}

/* Backward neighbours of a 1..3-d image, passed by value (kernel parameter
 * space: uniform reads, no transfer). Axes are those of the image. */
#define FV_CU_LABEL_NBK 13 /* (3^3 - 1) / 2 */
template <typename IT> struct fv_cu_label_nbk {
    int nnb;
    IT shape[3];
    IT step[3];              /* the grid stride as coordinates (step[d] < shape[d] for d > 0) */
    uint32_t lo[3], hi[3];   /* bit k: neighbour k is outside where co[d] == 0 / co[d] == shape[d] - 1 */
    IT off[FV_CU_LABEL_NBK]; /* flat offsets */
};

/* Merge in ND = 1..3 dimensions. Each thread computes its coordinates once and
 * then moves them by the grid stride with carries; the in-bounds neighbours
 * are a mask made from per-axis border masks. */
template <int ND, typename VT, typename IT, bool HALVE>
__global__ void
fv_k_label_merge_nd(const VT *in, IT *P, IT n, fv_cu_label_nbk<IT> g, const uint16_t *rep, int hasbg, VT bg)
{
    const IT stride = (IT)blockDim.x * (IT)gridDim.x;
    IT i = (IT)blockIdx.x * (IT)blockDim.x + (IT)threadIdx.x, co[ND];
    {
        IT r = i;
#pragma unroll
        for (int d = ND - 1; d > 0; d--) {
            IT q = r / g.shape[d];
            co[d] = r - q * g.shape[d];
            r = q;
        }
        co[0] = r;
    }
    for (; i < n; i += stride) {
        const VT v = in[i];
        if (!(hasbg && v == bg)) {
            uint32_t ok = (1u << g.nnb) - 1u, m = 0;
#pragma unroll
            for (int d = 0; d < ND; d++) {
                if (co[d] == 0)
                    ok &= ~g.lo[d];
                if (co[d] == g.shape[d] - 1)
                    ok &= ~g.hi[d];
            }
#pragma unroll
            for (int k = 0; k < (ND == 1 ? 1 : ND == 2 ? 4 : FV_CU_LABEL_NBK); k++)
                if ((ok >> k & 1u) && in[i + g.off[k]] == v)
                    m |= 1u << k;
            for (uint32_t b = m ? (uint32_t)__ldg(&rep[m]) : 0u; b; b &= b - 1) {
                const int k = __ffs((int)b) - 1;
                fv_cu_uf_unite<HALVE>(P, i, i + g.off[k]);
            }
        }
        IT carry = 0;
#pragma unroll
        for (int d = ND - 1; d > 0; d--) {
            co[d] += g.step[d] + carry;
            carry = co[d] >= g.shape[d];
            if (carry)
                co[d] -= g.shape[d];
        }
        co[0] += g.step[0] + carry;
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

/* Device copies of the neighbour tables (fv__cuda_label). rep: NULL when
 * there are more than FV__LABEL_REP_MAX backward neighbours. */
typedef struct fv_cu_label_tab {
    const int64_t *off;
    const int8_t *nbo;
    const uint16_t *rep;
} fv_cu_label_tab;

/* The parameters of fv_k_label_merge_nd: nb (nnb rows of nd offsets) for an
 * image of g's shape, run by a grid of stride threads. */
template <typename IT>
static void
fv_cu_label_nbk_fill(const fv_cu_label_geom *g, const int8_t *nb, int64_t stride, fv_cu_label_nbk<IT> *k)
{
    int64_t cst = 1, r = stride;
    memset(k, 0, sizeof *k);
    k->nnb = g->nnb;
    for (int d = g->nd - 1; d >= 0; d--) {
        k->shape[d] = (IT)g->shape[d];
        k->step[d] = (IT)(d > 0 ? r % g->shape[d] : r);
        r /= g->shape[d];
    }
    for (int j = 0; j < g->nnb; j++) {
        int64_t off = 0;
        cst = 1;
        for (int d = g->nd - 1; d >= 0; d--) {
            const int o = nb[(size_t)j * g->nd + d];
            off += o * cst;
            cst *= g->shape[d];
            if (o < 0)
                k->lo[d] |= 1u << j;
            else if (o > 0)
                k->hi[d] |= 1u << j;
        }
        k->off[j] = (IT)off;
    }
}

/* Queue the merge step on x's stream: unite every pixel of `in` (not bg when
 * hasbg) with its equal backward neighbours nb (g->nnb rows of g->nd). HALVE:
 * finds with path halving (fv_cu_uf_find), for sets with long chains. */
template <typename VT, typename IT, bool HALVE = false>
static fv_status
fv_cu_label_merge(const fv_cu_exec *x, const fv_cu_label_geom *g, const int8_t *nb, const fv_cu_label_tab *t,
                  const VT *in, IT *P, IT n, int hasbg, VT bg)
{
    if (g->nnb == 0)
        return FV_OK;
    if (g->nd <= 3) {
        fv_cu_label_nbk<IT> k;
        fv_cu_label_nbk_fill(g, nb, (int64_t)x->grid * x->block, &k);
        if (g->nd == 1)
            fv_k_label_merge_nd<1, VT, IT, HALVE><<<x->grid, x->block, 0, x->stream>>>(in, P, n, k, t->rep, hasbg, bg);
        else if (g->nd == 2)
            fv_k_label_merge_nd<2, VT, IT, HALVE><<<x->grid, x->block, 0, x->stream>>>(in, P, n, k, t->rep, hasbg, bg);
        else
            fv_k_label_merge_nd<3, VT, IT, HALVE><<<x->grid, x->block, 0, x->stream>>>(in, P, n, k, t->rep, hasbg, bg);
    } else {
        fv_k_label_merge<VT, IT, HALVE>
            <<<x->grid, x->block, 0, x->stream>>>(in, P, n, *g, t->off, t->nbo, t->rep, hasbg, bg);
    }
    return fv_cu_launch_status("label merge");
}

template <typename VT, typename IT>
static fv_status
fv_cu_label_run(fv_context *ctx, const fv__op_args *a, const fv_cu_exec *x, const fv_cu_label_geom *g,
                const fv_cu_label_tab *t, int64_t *num)
{
    const fv__label_params *p = (const fv__label_params *)a->params;
    const IT n = (IT)fv_array_size(a->in);
    const VT *in = (const VT *)a->in->data;
    const int hasbg = p->has_background;
    const VT bg = (VT)p->background;
    fv_cu_label_buf pb = { NULL, NULL }, sb = { NULL, NULL }, tb = { NULL, NULL };
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
    if ((st = fv_cu_launch_status("label init")) ||
        (st = fv_cu_label_merge<VT, IT>(x, g, p->nb, t, in, P, n, hasbg, bg)))
        goto done;
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
        (void)cudaStreamSynchronize(x->stream); /* nothing queued may still use the scratch */
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
                     const fv_cu_label_tab *t, int64_t *num)
{
    switch (fv_dtype_size(a->in->dtype)) {
    case 1:
        return fv_cu_label_run<uint8_t, IT>(ctx, a, x, g, t, num);
    case 2:
        return fv_cu_label_run<uint16_t, IT>(ctx, a, x, g, t, num);
    case 4:
        return fv_cu_label_run<uint32_t, IT>(ctx, a, x, g, t, num);
    case 8:
        return fv_cu_label_run<uint64_t, IT>(ctx, a, x, g, t, num);
    default:
        return fv_error_set(FV_EDTYPE, "label", "unsupported dtype %s", fv_dtype_name(a->in->dtype));
    }
}

/* g (nd, nnb, shape) for image a, on the device: *tab holds the tables of t
 * (nnb int64 flat offsets, nnb * nd int8 per-axis offsets, then when nnb <=
 * FV__LABEL_REP_MAX 2^nnb uint16 rep); nothing when nnb is 0. The caller
 * frees tab->ptr after the stream is done with it. */
static fv_status
fv_cu_label_tables(fv_context *ctx, const fv_cu_exec *x, const fv_array *a, int nnb, const int8_t *nb,
                   fv_cu_label_geom *g, fv_cu_label_buf *tab, fv_cu_label_tab *t)
{
    const int nd = a->ndim;
    int64_t cst[FV_MAX_NDIM], *host = NULL;
    fv_status st = FV_OK;

    memset(g, 0, sizeof *g);
    memset(t, 0, sizeof *t);
    g->nd = nd;
    g->nnb = nnb;
    for (int d = 0; d < nd; d++)
        g->shape[d] = a->shape[d];
    cst[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--)
        cst[d] = cst[d + 1] * a->shape[d + 1];
    if (nnb == 0)
        return FV_OK;
    const int use_rep = nnb <= FV__LABEL_REP_MAX;
    const size_t repat = ((size_t)nnb * (sizeof(int64_t) + (size_t)nd) + 1) & ~(size_t)1;
    const size_t tbytes = repat + (use_rep ? sizeof(uint16_t) << nnb : 0);
    if (!(host = (int64_t *)malloc(tbytes)))
        return fv_error_set(FV_ENOMEM, "label", "out of memory");
    for (int k = 0; k < nnb; k++) {
        host[k] = 0;
        for (int d = 0; d < nd; d++)
            host[k] += nb[(size_t)k * nd + d] * cst[d];
    }
    memcpy(host + nnb, nb, (size_t)nnb * (size_t)nd);
    if (use_rep)
        fv__label_rep_table(nd, nnb, nb, (uint16_t *)((char *)host + repat));
    if ((st = fv_cu_label_alloc(ctx, x->device, tbytes, tab)))
        goto done;
    {
        fv_device dev = { FV_DEVICE_CUDA, x->device }, hdev = { FV_DEVICE_CPU, 0 };
        if ((st = fv__cuda_memcpy(ctx, tab->ptr, dev, host, hdev, tbytes)))
            goto done;
    }
    t->off = (const int64_t *)tab->ptr;
    t->nbo = (const int8_t *)(t->off + nnb);
    t->rep = use_rep ? (const uint16_t *)((const char *)tab->ptr + repat) : NULL;
done:
    free(host);
    return st;
}

/* 32-bit indices when i + the grid stride cannot overflow */
#define FV_CU_LABEL_FITS32(n) ((n) < INT32_MAX - ((int64_t)1 << 26))

/* Runs body(ctx, x, g, t) between fv_cu_begin and fv_cu_end (name: the error
 * domain) with the geometry of a->in and the neighbourhood tables of (nnb, nb)
 * on the device (fv_cu_label_tables), which it frees after the stream is done. */
template <typename F>
static fv_status
fv_cu_label_session(fv_context *ctx, const fv__op_args *a, const char *name, int nnb, const int8_t *nb, F body)
{
    fv_cu_label_geom g;
    fv_cu_label_tab t;
    fv_cu_label_buf tab = { NULL, NULL };
    fv_cu_exec x;
    fv_status st;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, name, a, fv_array_size(a->in), &x)))
        return st;
    if (!(st = fv_cu_label_tables(ctx, &x, a->in, nnb, nb, &g, &tab, &t)))
        st = body(ctx, &x, &g, &t);
    if (tab.ptr) {
        (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(tab.ptr, tab.opaque);
    }
    fv_cu_end(&x);
    return st;
}

extern "C" fv_status
fv__cuda_label(fv_context *ctx, const fv__op_args *a)
{
    fv__label_params *p = (fv__label_params *)a->params;
    const int64_t n = fv_array_size(a->in);
    int64_t num = 0;

    p->num = 0;
    if (n == 0)
        return FV_OK;
    fv_status st = fv_cu_label_session(
        ctx, a, "label", p->nnb, p->nb, [&](fv_context *c, fv_cu_exec *x, fv_cu_label_geom *g, fv_cu_label_tab *t) {
            return FV_CU_LABEL_FITS32(n) ? fv_cu_label_by_value<int32_t>(c, a, x, g, t, &num)
                                         : fv_cu_label_by_value<int64_t>(c, a, x, g, t, &num);
        });
    if (st == FV_OK)
        p->num = num;
    return st;
}

/* ---- FV__OP_BINARY_FLOOD (label-kernels.h) ---------------------------------------
 *   init   grow[i] = seed | mask; P[i] = i in grow, -1 outside;
 *   merge  the labelling's merge of grow (background 0);
 *   compress P[i] = root of i (as the labelling's compress step: long
 *          chains, such as those of one big background component, are walked
 *          once here instead of in each of the steps below);
 *   flag   F[P[i]] = 1 for the seeds (F: grow's bytes, cleared; the merge is
 *          done with them), and for the grow pixels at both ends of every axis
 *          in border_axes (one small kernel per axis);
 *   out    out[i] = (i in grow and F[P[i]]) == invert (0 / 1).
 * The flag writes race only with writes of the same value. */
template <typename IT>
__global__ void
fv_k_flood_init(const uint8_t *__restrict__ in, const uint8_t *__restrict__ mask, uint8_t *__restrict__ grow,
                IT *__restrict__ P, IT n, int invert)
{
    FV_GRID_STRIDE(IT, i, n) {
        const int g = ((in[i] != 0) == invert) | (mask == NULL || mask[i] != 0);
        grow[i] = (uint8_t)g;
        P[i] = g ? i : (IT)-1;
    }
}

template <typename IT>
__global__ void
fv_k_flood_compress(IT *P, IT n)
{
    FV_GRID_STRIDE(IT, i, n) {
        const IT p = P[i];
        if (p < 0)
            continue;
        const IT r = fv_cu_label_find(P, p);
        if (r != p)
            P[i] = r;
    }
}

template <typename IT>
__global__ void
fv_k_flood_seeds(const uint8_t *__restrict__ in, const IT *__restrict__ P, uint8_t *F, IT n, int invert)
{
    FV_GRID_STRIDE(IT, i, n) {
        if ((in[i] != 0) == invert)
            F[P[i]] = 1;
    }
}

/* The 2 * m pixels at both ends of an axis of extent len (m = n / len; inner:
 * the extent of the axes after it). */
template <typename IT>
__global__ void
fv_k_flood_faces(const IT *P, uint8_t *F, IT m, IT len, IT inner)
{
    FV_GRID_STRIDE(IT, t, 2 * m) {
        const IT side = t >= m, r = side ? t - m : t, o = r / inner, q = r - o * inner;
        const IT i = (o * len + (side ? len - 1 : 0)) * inner + q;
        if (P[i] >= 0)
            F[P[i]] = 1;
    }
}

template <typename IT>
__global__ void
fv_k_flood_out(const IT *P, const uint8_t *F, uint8_t *__restrict__ out, IT n, int invert)
{
    FV_GRID_STRIDE(IT, i, n) {
        const IT p = P[i];
        const int f = p >= 0 && F[p];
        out[i] = (uint8_t)(f == invert);
    }
}

/* The merge of the flood fill ("cuda.binary_flood"): "halving", with path
 * halving; "plain", without (for comparisons). */
FV__VARIANTS(fv_cu_flood_variants, "cuda.binary_flood", { "halving", NULL, NULL }, { "plain", NULL, NULL })

template <typename IT>
static fv_status
fv_cu_flood_run(fv_context *ctx, const fv__op_args *a, const fv_cu_exec *x, const fv_cu_label_geom *g,
                const fv_cu_label_tab *t)
{
    const fv__binary_flood_params *p = (const fv__binary_flood_params *)a->params;
    const IT n = (IT)fv_array_size(a->in);
    const uint8_t *in = (const uint8_t *)a->in->data, *mask = a->in2 ? (const uint8_t *)a->in2->data : NULL;
    fv_cu_label_buf pb = { NULL, NULL }, gb = { NULL, NULL };
    /* path halving in the merge: one big component (the background of
     * binary_fill_holes) makes long chains ("cuda.binary_flood") */
    const bool halve = fv__plan_index(&fv_cu_flood_variants, NULL, x->device) == 0;
    cudaError_t e;
    fv_status st;

    if ((st = fv_cu_label_alloc(ctx, x->device, sizeof(IT) * (size_t)n, &pb)) ||
        (st = fv_cu_label_alloc(ctx, x->device, (size_t)n, &gb)))
        goto done;
    {
        IT *P = (IT *)pb.ptr;
        uint8_t *grow = (uint8_t *)gb.ptr;
        fv_k_flood_init<IT><<<x->grid, x->block, 0, x->stream>>>(in, mask, grow, P, n, p->invert);
        if ((st = fv_cu_launch_status("binary_flood init")) ||
            (st = halve ? fv_cu_label_merge<uint8_t, IT, true>(x, g, p->nb, t, grow, P, n, 1, 0)
                        : fv_cu_label_merge<uint8_t, IT, false>(x, g, p->nb, t, grow, P, n, 1, 0)))
            goto done;
        fv_k_flood_compress<IT><<<x->grid, x->block, 0, x->stream>>>(P, n);
        if ((st = fv_cu_launch_status("binary_flood compress")))
            goto done;
        if ((e = cudaMemsetAsync(grow, 0, (size_t)n, x->stream))) {
            st = fv__cuda_error("cudaMemsetAsync (binary_flood)", e);
            goto done;
        }
        fv_k_flood_seeds<IT><<<x->grid, x->block, 0, x->stream>>>(in, P, grow, n, p->invert);
        if ((st = fv_cu_launch_status("binary_flood seeds")))
            goto done;
        for (int d = 0; d < g->nd; d++) {
            if (!(p->border_axes >> d & 1u))
                continue;
            int64_t inner = 1;
            for (int k = d + 1; k < g->nd; k++)
                inner *= g->shape[k];
            const int64_t len = g->shape[d], m = (int64_t)n / len;
            const unsigned blocks = (unsigned)((2 * m + x->block - 1) / x->block);
            const unsigned nb = blocks < x->grid ? blocks : x->grid;
            fv_k_flood_faces<IT><<<nb, x->block, 0, x->stream>>>(P, grow, (IT)m, (IT)len, (IT)inner);
            if ((st = fv_cu_launch_status("binary_flood faces")))
                goto done;
        }
        fv_k_flood_out<IT><<<x->grid, x->block, 0, x->stream>>>(P, grow, (uint8_t *)a->out->data, n, p->invert);
        st = fv_cu_launch_status("binary_flood out");
    }
done:
    if (pb.ptr || gb.ptr)
        (void)cudaStreamSynchronize(x->stream); /* the scratch is freed below */
    if (gb.ptr)
        fv__cuda_free(gb.ptr, gb.opaque);
    if (pb.ptr)
        fv__cuda_free(pb.ptr, pb.opaque);
    return st;
}

extern "C" fv_status
fv__cuda_binary_flood(fv_context *ctx, const fv__op_args *a)
{
    const fv__binary_flood_params *p = (const fv__binary_flood_params *)a->params;
    const int64_t n = fv_array_size(a->in);

    if (n == 0)
        return FV_OK;
    return fv_cu_label_session(ctx, a, "binary_flood", p->nnb, p->nb,
                               [&](fv_context *c, fv_cu_exec *x, fv_cu_label_geom *g, fv_cu_label_tab *t) {
                                   return FV_CU_LABEL_FITS32(n) ? fv_cu_flood_run<int32_t>(c, a, x, g, t)
                                                                : fv_cu_flood_run<int64_t>(c, a, x, g, t);
                               });
}

FV_KERNEL(LABEL, CUDA, FV_DTYPES_INT | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv__cuda_label);
FV_KERNEL(BINARY_FLOOD, CUDA, FV_DTYPE_BIT(FV_BOOL) | FV_DTYPE_BIT(FV_UINT8) | FV_DTYPE_BIT(FV_INT8), FV_MAX_NDIM,
          fv__cuda_binary_flood);
