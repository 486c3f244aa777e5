/* CUDA kernel of FV__OP_REGION_STATS (fv_region_stats): every label's table row
 * at once, with atomics.
 *
 *   init   rows: zeros, channel min = +inf, max = -inf; box scratch:
 *          start = INT64_MAX, stop = INT64_MIN
 *   box    per labelled pixel: atomicAdd of the count, atomicMin / atomicMax
 *          of the coordinates (64-bit integer atomics)
 *   moment per labelled pixel: the monomials of its coordinates about the
 *          label's box start (read from the scratch, so sums stay local to the
 *          label as on the CPU), double atomicAdd into the row; intensity
 *          min / max by compare-and-swap loops
 *   finish count and box into the row as doubles.
 * Warp aggregation: when all 32 lanes of a warp hold pixels of one label (the
 * common case inside large regions), the warp first reduces its values with
 * shuffles and one lane makes the atomic update, 32 times fewer atomics on
 * the contended row. Otherwise every lane updates on its own.
 * Index type: int64 throughout (the pixel loops are grid-stride). */
#include "cuda/common.cuh"
#include "ops/measure/regionprops.h"

typedef struct fv_cu_rp_geom {
    int nd;
    int64_t shape[FV__RP_MAX_NDIM];
    int64_t nch, L, nmom, ncols, col_mom, col_ch;
} fv_cu_rp_geom;

__device__ __forceinline__ void
fv_cu_rp_amin(double *p, double v)
{
    unsigned long long *q = (unsigned long long *)p, old = *q;
    while (v < __longlong_as_double((long long)old)) {
        unsigned long long prev = atomicCAS(q, old, (unsigned long long)__double_as_longlong(v));
        if (prev == old)
            break;
        old = prev;
    }
}

__device__ __forceinline__ void
fv_cu_rp_amax(double *p, double v)
{
    unsigned long long *q = (unsigned long long *)p, old = *q;
    while (v > __longlong_as_double((long long)old)) {
        unsigned long long prev = atomicCAS(q, old, (unsigned long long)__double_as_longlong(v));
        if (prev == old)
            break;
        old = prev;
    }
}


#define FV_CU_RP_FULL 0xffffffffu

__device__ __forceinline__ double
fv_cu_rp_wsum(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(FV_CU_RP_FULL, v, o);
    return v;
}

__device__ __forceinline__ double
fv_cu_rp_wmin(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmin(v, __shfl_xor_sync(FV_CU_RP_FULL, v, o));
    return v;
}

__device__ __forceinline__ double
fv_cu_rp_wmax(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmax(v, __shfl_xor_sync(FV_CU_RP_FULL, v, o));
    return v;
}

__device__ __forceinline__ long long
fv_cu_rp_wmin_ll(long long v)
{
    for (int o = 16; o > 0; o >>= 1) {
        long long w = __shfl_xor_sync(FV_CU_RP_FULL, v, o);
        v = w < v ? w : v;
    }
    return v;
}

__device__ __forceinline__ long long
fv_cu_rp_wmax_ll(long long v)
{
    for (int o = 16; o > 0; o >>= 1) {
        long long w = __shfl_xor_sync(FV_CU_RP_FULL, v, o);
        v = w > v ? w : v;
    }
    return v;
}

/* 1 when the whole warp is here (same loop iteration) and every lane holds a
 * pixel of label l (valid); uniform across the warp. */
__device__ __forceinline__ int
fv_cu_rp_uniform(int64_t l, int valid)
{
    unsigned active = __activemask();
    long long l0 = __shfl_sync(active, (long long)l, __ffs(active) - 1);
    int same = __all_sync(active, valid && (long long)l == l0);
    return active == FV_CU_RP_FULL && same;
}

template <typename LT>
__device__ __forceinline__ int64_t
fv_cu_rp_label(const LT *lab, int64_t i)
{
    return (int64_t)lab[i];
}

template <>
__device__ __forceinline__ int64_t
fv_cu_rp_label<uint64_t>(const uint64_t *lab, int64_t i)
{
    uint64_t v = lab[i];
    return v > (uint64_t)INT64_MAX ? -1 : (int64_t)v;
}

/* Element i's region (its label - 1), or -1 outside every region; *agg: the
 * whole warp is in that region (fv_cu_rp_uniform: every lane must call this). */
template <typename LT>
__device__ __forceinline__ int64_t
fv_cu_rp_region(const LT *lab, int64_t i, const fv_cu_rp_geom &g, int *agg)
{
    const int64_t l = fv_cu_rp_label<LT>(lab, i);
    const int valid = l > 0 && l <= g.L;
    *agg = fv_cu_rp_uniform(l, valid);
    return valid ? l - 1 : -1;
}

__global__ void
fv_k_rp_init(double *tab, long long *box, fv_cu_rp_geom g)
{
    FV_GRID_STRIDE(int64_t, l, g.L) {
        double *row = tab + l * g.ncols;
        for (int64_t k = 0; k < g.ncols; k++)
            row[k] = 0.0;
        for (int64_t c = 0; c < g.nch; c++) {
            row[g.col_ch + c * (2 + g.nmom)] = __longlong_as_double(0x7ff0000000000000LL);                 /* +inf */
            row[g.col_ch + c * (2 + g.nmom) + 1] = __longlong_as_double((long long)0xfff0000000000000ULL); /* -inf */
        }
        for (int d = 0; d < g.nd; d++) {
            box[l * 2 * g.nd + d] = INT64_MAX;
            box[l * 2 * g.nd + g.nd + d] = INT64_MIN;
        }
    }
}

template <typename LT>
__global__ void
fv_k_rp_box(const LT *lab, int64_t n, double *tab, long long *box, fv_cu_rp_geom g)
{
    const int lane = (int)(threadIdx.x & 31);
    FV_GRID_STRIDE(int64_t, i, n) {
        int agg;
        const int64_t l = fv_cu_rp_region<LT>(lab, i, g, &agg); /* every lane calls it: no early exit before */
        if (l < 0)
            continue;
        if (!agg || lane == 0)
            atomicAdd(tab + l * g.ncols, agg ? 32.0 : 1.0);
        int64_t rest = i;
        for (int d = g.nd - 1; d >= 0; d--) {
            long long x = (long long)(rest % g.shape[d]);
            rest /= g.shape[d];
            long long lo = x, hi = x;
            if (agg) {
                lo = fv_cu_rp_wmin_ll(x);
                hi = fv_cu_rp_wmax_ll(x);
            }
            if (!agg || lane == 0) {
                atomicMin(box + l * 2 * g.nd + d, lo);
                atomicMax(box + l * 2 * g.nd + g.nd + d, hi);
            }
        }
    }
}

template <typename LT>
__global__ void
fv_k_rp_moments(const LT *lab, const double *inten, int64_t n, double *tab, const long long *box, fv_cu_rp_geom g)
{
    const int lane = (int)(threadIdx.x & 31);
    FV_GRID_STRIDE(int64_t, i, n) {
        int agg;
        const int64_t l = fv_cu_rp_region<LT>(lab, i, g, &agg); /* every lane calls it: no early exit before */
        if (l < 0)
            continue;
        double rel[FV__RP_MAX_NDIM];
        int64_t rest = i;
        for (int d = g.nd - 1; d >= 0; d--) {
            int64_t x = rest % g.shape[d];
            rest /= g.shape[d];
            rel[d] = (double)(x - (int64_t)box[l * 2 * g.nd + d]);
        }
        double *row = tab + l * g.ncols;
        /* monomial k: product over axes of rel[d]^(digit d of k in base 4) */
        for (int64_t k = 0; k < g.nmom; k++) {
            double m = 1.0;
            int64_t rem = k;
            for (int d = g.nd - 1; d >= 0; d--) {
                int e = (int)(rem & 3);
                rem >>= 2;
                double x = rel[d];
                m *= e == 0 ? 1.0 : e == 1 ? x : e == 2 ? x * x : x * x * x;
            }
            double s = agg ? fv_cu_rp_wsum(m) : m;
            if (!agg || lane == 0)
                atomicAdd(row + g.col_mom + k, s);
            for (int64_t c = 0; c < g.nch; c++) {
                double w = m * inten[i * g.nch + c];
                if (agg)
                    w = fv_cu_rp_wsum(w);
                if (!agg || lane == 0)
                    atomicAdd(row + g.col_ch + c * (2 + g.nmom) + 2 + k, w);
            }
        }
        for (int64_t c = 0; c < g.nch; c++) {
            double v = inten[i * g.nch + c], lo = v, hi = v;
            if (agg) {
                lo = fv_cu_rp_wmin(v);
                hi = fv_cu_rp_wmax(v);
            }
            if (!agg || lane == 0) {
                fv_cu_rp_amin(row + g.col_ch + c * (2 + g.nmom), lo);
                fv_cu_rp_amax(row + g.col_ch + c * (2 + g.nmom) + 1, hi);
            }
        }
    }
}

__global__ void
fv_k_rp_finish(double *tab, const long long *box, fv_cu_rp_geom g)
{
    FV_GRID_STRIDE(int64_t, l, g.L) {
        double *row = tab + l * g.ncols;
        if (row[0] == 0.0)
            continue;
        for (int d = 0; d < g.nd; d++) {
            row[1 + d] = (double)box[l * 2 * g.nd + d];
            row[1 + g.nd + d] = (double)box[l * 2 * g.nd + g.nd + d] + 1.0;
        }
    }
}

template <typename LT>
static fv_status
fv_cu_rp_run(const fv__op_args *a, const fv_cu_exec *x, const fv_cu_rp_geom *g, long long *box)
{
    const int64_t n = fv_array_size(a->in);
    const LT *lab = (const LT *)a->in->data;
    const double *inten = a->in2 ? (const double *)a->in2->data : NULL;
    double *tab = (double *)a->out->data;
    unsigned lgrid = fv_cu_grid(g->L, x->device);
    fv_status st;
    fv_k_rp_init<<<lgrid, x->block, 0, x->stream>>>(tab, box, *g);
    if ((st = fv_cu_launch_status("region_stats init")))
        return st;
    if (n > 0) {
        fv_k_rp_box<LT><<<x->grid, x->block, 0, x->stream>>>(lab, n, tab, box, *g);
        if ((st = fv_cu_launch_status("region_stats box")))
            return st;
        fv_k_rp_moments<LT><<<x->grid, x->block, 0, x->stream>>>(lab, inten, n, tab, box, *g);
        if ((st = fv_cu_launch_status("region_stats moments")))
            return st;
    }
    fv_k_rp_finish<<<lgrid, x->block, 0, x->stream>>>(tab, box, *g);
    return fv_cu_launch_status("region_stats finish");
}

extern "C" fv_status
fv__cuda_region_stats(fv_context *ctx, const fv__op_args *a)
{
    const fv__rp_params *p = (const fv__rp_params *)a->params;
    fv_cu_rp_geom g;
    fv_cu_exec x;
    void *box = NULL, *opaque = NULL;
    fv_status st;

    if (p->max_label == 0)
        return FV_OK;
    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "region_stats", a, fv_array_size(a->in), &x)))
        return st;
    memset(&g, 0, sizeof g);
    g.nd = p->nd;
    for (int d = 0; d < p->nd; d++)
        g.shape[d] = p->shape[d];
    g.nch = p->nch;
    g.L = p->max_label;
    g.nmom = p->nmom;
    g.ncols = p->ncols;
    g.col_mom = fv__rp_col_mom(p);
    g.col_ch = fv__rp_col_ch(p, 0);
    if ((st = fv__cuda_alloc(ctx, x.device, (size_t)(p->max_label * 2 * p->nd) * sizeof(long long), &box, &opaque)))
        goto done;
    switch (a->in->dtype) {
    case FV_INT8:
        st = fv_cu_rp_run<int8_t>(a, &x, &g, (long long *)box);
        break;
    case FV_UINT8:
        st = fv_cu_rp_run<uint8_t>(a, &x, &g, (long long *)box);
        break;
    case FV_INT16:
        st = fv_cu_rp_run<int16_t>(a, &x, &g, (long long *)box);
        break;
    case FV_UINT16:
        st = fv_cu_rp_run<uint16_t>(a, &x, &g, (long long *)box);
        break;
    case FV_INT32:
        st = fv_cu_rp_run<int32_t>(a, &x, &g, (long long *)box);
        break;
    case FV_UINT32:
        st = fv_cu_rp_run<uint32_t>(a, &x, &g, (long long *)box);
        break;
    case FV_INT64:
        st = fv_cu_rp_run<int64_t>(a, &x, &g, (long long *)box);
        break;
    case FV_UINT64:
        st = fv_cu_rp_run<uint64_t>(a, &x, &g, (long long *)box);
        break;
    default:
        st = fv_error_set(FV_EDTYPE, "region_stats", "unsupported labels dtype %s", fv_dtype_name(a->in->dtype));
    }
done:
    if (box) {
        (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(box, opaque);
    }
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(REGION_STATS, CUDA, FV_DTYPES_INT | FV_DTYPE_BIT(FV_FLOAT64), FV__RP_MAX_NDIM + 1, fv__cuda_region_stats);
