/* CUDA kernels of FV__OP_FILTER1D, the host side (filter1d.cuh describes the
 * paths): the line geometry, the tile plan, the accumulators' variants, the
 * dtype dispatch and the entry points; the kernels are in filter1d-tile.cu and
 * filter1d-line.cu. */
#include <stdlib.h>

#include "filter1d.cuh"
#include "core/plan.h"

/* ==== host side =================================================================== */

static void
fv_cu_flt_geom_init(fv_cu_flt_geom *g, const fv_array *in, const fv_array *out, int axis)
{
    int64_t sh[FV_MAX_NDIM], si[FV_MAX_NDIM], so[FV_MAX_NDIM];
    int m = 0;
    memset(g, 0, sizeof *g);
    if (in->ndim == 0) {
        g->n = 1;
        g->s_in = g->s_out = 0;
    } else {
        g->n = in->shape[axis];
        g->s_in = in->strides[axis];
        g->s_out = out->strides[axis];
    }
    for (int d = 0; d < in->ndim; d++) {
        if (d == axis || in->shape[d] == 1)
            continue;
        if (m > 0 && si[m - 1] == in->shape[d] * in->strides[d] && so[m - 1] == in->shape[d] * out->strides[d]) {
            sh[m - 1] *= in->shape[d]; /* contiguous with the previous one: merge */
            si[m - 1] = in->strides[d];
            so[m - 1] = out->strides[d];
            continue;
        }
        sh[m] = in->shape[d];
        si[m] = in->strides[d];
        so[m] = out->strides[d];
        m++;
    }
    int cross = -1;
    for (int k = 0; k < m; k++) {
        int64_t s = si[k] < 0 ? -si[k] : si[k];
        if (cross < 0 || s <= (si[cross] < 0 ? -si[cross] : si[cross]))
            cross = k;
    }
    g->nc = 1;
    g->nbatch = 1;
    if (cross >= 0) {
        g->nc = sh[cross];
        g->c_in = si[cross];
        g->c_out = so[cross];
    }
    for (int k = 0; k < m; k++) {
        if (k == cross)
            continue;
        g->bshape[g->nb] = sh[k];
        g->bs_in[g->nb] = si[k];
        g->bs_out[g->nb] = so[k];
        g->nbatch *= sh[k];
        g->nb++;
    }
    int64_t sa = g->s_in < 0 ? -g->s_in : g->s_in, sc = g->c_in < 0 ? -g->c_in : g->c_in;
    g->row = cross < 0 || g->n == 1 ? 1 : (sa <= sc);
}

/* A device copy of the weights (released by the caller's wbuf). */
static fv_status
fv_cu_flt_weights_to_device(fv_cu_flt_job *j)
{
    size_t nb = (size_t)j->size * sizeof(double);
    fv_device dev = { FV_DEVICE_CUDA, j->device }, host = { FV_DEVICE_CPU, 0 };
    fv_status st;
    if ((st = fv_cu_tmp_new(j->ctx, j->device, nb, &j->wbuf)) != FV_OK)
        return st;
    if ((st = fv__cuda_memcpy(j->ctx, j->wbuf->data, dev, j->wh, host, nb)) != FV_OK)
        return st;
    j->wdev = (const double *)j->wbuf->data;
    j->wst = 1;
    return FV_OK;
}

template <typename ACC>
static int
fv_cu_flt_plan_tile(const fv_cu_flt_job *j, fv_cu_flt_plan *pl)
{
    const fv_cu_flt_geom *g = &j->g;
    int corr = j->kind <= FV_CU_FLT_CORR_ANTI;
    int mm = j->kind == FV_CU_FLT_MIN || j->kind == FV_CU_FLT_MAX;
    pl->dbl = mm && j->size > FV_CU_FLT_MM_DIRECT;
    size_t budget = j->smem_optin < FV_CU_FLT_SMEM_BUDGET ? j->smem_optin : FV_CU_FLT_SMEM_BUDGET;
    int64_t ta;
    pl->v2 = 0;
    if (!pl->dbl && (!g->row || g->nc >= 32)) { /* 32 lines per tile */
        size_t nw = corr ? (size_t)((j->size + 1) & ~(int64_t)1) : 0;
        if (j->chk != 0.0f) /* the double weights too */
            nw += (size_t)j->size * sizeof(double) / sizeof(ACC);
        for (ta = g->n > 64 ? 128 : 64; ta >= 64; ta -= 64) {
            int64_t L = ta + j->size - 1;
            size_t words = (size_t)(L + 1) * FV_CU_FLT_PITCH; /* a spare row: the last slide reads one past */
            if (L < (int64_t)1 << 24 && (nw + words) * sizeof(ACC) <= budget) {
                pl->v2 = 1;
                pl->ta = ta;
                pl->tcl2 = 5;
                pl->smem = (nw + words) * sizeof(ACC);
                return 1;
            }
        }
    }
    if (g->row) {
        pl->tcl2 = g->nc >= 8 ? 3 : 0;
        ta = pl->tcl2 ? 256 : 1024;
        int64_t rn = (g->n + 31) / 32 * 32;
        if (ta > rn)
            ta = rn;
    } else {
        pl->tcl2 = 5;
        ta = g->n < 128 ? g->n : 128;
    }
    for (;;) {
        int64_t L = ta + j->size - 1;
        size_t words = (size_t)(1 << pl->tcl2) * (size_t)L * (pl->dbl ? 2 : 1);
        size_t nw = corr ? (size_t)((j->size + 1) & ~(int64_t)1) : 0;
        if (L < (int64_t)1 << 30 && (nw + words) * sizeof(ACC) <= budget) {
            pl->smem = (nw + words) * sizeof(ACC);
            break;
        }
        if (ta <= 32)
            return 0;
        ta /= 2;
    }
    pl->ta = ta;
    return 1;
}

static int
fv_cu_flt_fits32(const fv_cu_flt_job *j, int64_t ta)
{
    int64_t n = fv_array_size(j->in);
    if (n > INT32_MAX || fv_cu_flt_extent(j->in) > INT32_MAX || fv_cu_flt_extent(j->out) > INT32_MAX)
        return 0;
    if (2 * j->g.n + 2 * j->size + 2 * ta + 64 > INT32_MAX)
        return 0;
    return 1;
}

template <typename T, typename ACC>
static fv_status
fv_cu_flt_run1d(fv_cu_flt_job *j)
{
    fv_status st = FV_OK;
    const int64_t nlines = j->g.nc * j->g.nbatch;
    const int us = j->kind == FV_CU_FLT_USUM, mm = j->kind == FV_CU_FLT_MIN || j->kind == FV_CU_FLT_MAX;
    const unsigned lgrid = fv_cu_flt_grid((nlines + FV_CU_FLT_THREADS - 1) / FV_CU_FLT_THREADS, j->device, 16);

    /* uniform: window sums exact in double (data of up to 32-bit integers, a
     * window of at most 2^20, an integral cval of at most 2^32 when it is used) */
    const int exact_sum = !fv_cu_flt_is_float<T>::value && sizeof(T) <= 4 && j->size <= ((int64_t)1 << 20) &&
        (j->mode != FV_MODE_CONSTANT || (j->cval == floor(j->cval) && fabs(j->cval) <= 4294967296.0));
    if (us && !exact_sum && (fv_dtype_is_integer(j->out->dtype) || j->out->dtype == FV_BOOL)) {
        return fv_cu_flt_launch_serial<T>(j, nlines, lgrid, NULL);
    }

    /* float data: lines whose result depends on scipy's serial algorithm (min/max
     * with NaN, running sums through NaN or inf) are flagged and redone exactly */
    const int redo = fv_cu_flt_is_float<T>::value && ((mm && j->size > 1) || us);
    fv_array *flags = NULL, *scratch = NULL;
    uint8_t *fl = NULL;
    fv_cu_flt_plan pl;
    const int tile = fv_cu_flt_plan_tile<ACC>(j, &pl);
    if (j->chk != 0.0f && !(tile && pl.v2)) { /* only fv_k_flt_tile2 checks its float sums */
        j->chk = 0.0f;
        return fv_cu_flt_run1d<T, double>(j);
    }

    if (redo) {
        if ((st = fv_cu_tmp_new(j->ctx, j->device, (size_t)nlines, &flags)) != FV_OK)
            goto done;
        fl = (uint8_t *)flags->data;
        /* without a tile kernel to flag lines, every line is redone */
        cudaError_t e = cudaMemsetAsync(fl, tile ? 0 : 1, (size_t)nlines, j->x.stream);
        if (e != cudaSuccess) {
            st = fv__cuda_error("cudaMemsetAsync", e);
            goto done;
        }
    }
    if (tile) {
        if (fv_cu_flt_fits32(j, pl.ta))
            st = fv_cu_flt_launch_tile<T, ACC, int32_t>(j, &pl, fl);
        else
            st = fv_cu_flt_launch_tile<T, ACC, int64_t>(j, &pl, fl);
    } else if (!redo) {
        if (j->kind <= FV_CU_FLT_CORR_ANTI && !j->wdev)
            st = fv_cu_flt_weights_to_device(j);
        if (st == FV_OK)
            st = fv_cu_flt_launch_direct<T, ACC>(j);
    }
    if (st != FV_OK || !redo)
        goto done;
    if (us) {
        st = fv_cu_flt_launch_serial<T>(j, nlines, lgrid, fl);
    } else {
        /* bounded concurrency: a ring of `size` pairs per thread */
        int64_t per = j->size * (int64_t)sizeof(fv_cu_flt_pair);
        const int64_t threads = fv_cu_flt_ring_threads(per, nlines);
        if ((st = fv_cu_tmp_new(j->ctx, j->device, (size_t)(threads * per), &scratch)) != FV_OK)
            goto done;
        st = fv_cu_flt_launch_minmax_exact<T>(j, nlines, fl, threads, (fv_cu_flt_pair *)scratch->data);
    }
done:
    fv_cu_tmp_release(j->ctx, scratch);
    fv_cu_tmp_release(j->ctx, flags);
    return st;
}

/* float accumulation only where it is allowed and instantiated (fv_cu_flt_small) */
template <typename T, bool SMALL> struct fv_cu_flt_acc_run {
    static fv_status run(fv_cu_flt_job *j, int accf)
    {
        return fv_cu_flt_run1d<T, double>(j);
    }
};
template <typename T> struct fv_cu_flt_acc_run<T, true> {
    static fv_status run(fv_cu_flt_job *j, int accf)
    {
        return accf ? fv_cu_flt_run1d<T, float>(j) : fv_cu_flt_run1d<T, double>(j);
    }
};

template <typename T>
static fv_status
fv_cu_flt_run1d_t(fv_cu_flt_job *j, int accf)
{
    return fv_cu_flt_acc_run<T, fv_cu_flt_small<T>::value>::run(j, accf);
}

/* One pass; with guard non-NULL every kernel it queues returns at once unless
 * the device int *guard is non-zero (the fused separable path's conditional redo). */
/* The accumulators ("cuda.filter1d.acc", filters-common.cuh). float_checked:
 * device weights are bounded by the kernel (all outputs again in double where
 * the bound fails, kept to 16 bits: 8/16-bit and bool outputs only). */
static float
fv_cu_flt_acc_chk(const fv_cu_flt_accplan *pa)
{
    float chk = fv_cu_flt_float_checked(pa->in, pa->out, pa->kind, pa->w, pa->size, pa->mode, pa->cval);
    if (pa->kind == FV_CU_FLT_AUTO && pa->out != FV_INT32)
        chk = -(float)fv_cu_flt_checked_vmax(pa->in, pa->out, pa->kind, pa->size, pa->mode, pa->cval);
    return chk;
}
static int
fv_cu_flt_acc_exact_ok(const void *args, int device)
{
    const fv_cu_flt_accplan *pa = (const fv_cu_flt_accplan *)args;
    return fv_cu_flt_float_exact(pa->in, pa->out, pa->kind, pa->w, pa->size, pa->mode, pa->cval);
}
static int
fv_cu_flt_acc_checked_ok(const void *args, int device)
{
    return fv_cu_flt_acc_chk((const fv_cu_flt_accplan *)args) != 0.0f;
}

FV__VARIANTS(fv_cu_flt_acc_variants, "cuda.filter1d.acc", { "float_exact", fv_cu_flt_acc_exact_ok, NULL },
             { "float_checked", fv_cu_flt_acc_checked_ok, NULL }, { "double", NULL, NULL })

int
fv_cu_flt_acc_plan(const fv_cu_flt_accplan *pa, int device, float *chk)
{
    const int v = fv__plan_index(&fv_cu_flt_acc_variants, pa, device);
    if (v == 1)
        *chk = fv_cu_flt_acc_chk(pa);
    return v;
}

extern "C" fv_status
fv__cuda_filter1d_guarded(fv_context *ctx, const fv__op_args *a, const int *guard)
{
    static const char *dom = "filter1d";
    const fv__filter1d_params *p = (const fv__filter1d_params *)a->params;
    const fv_array *in = a->in;
    fv_array *out = a->out;
    fv_cu_flt_job j;
    fv_status st;
    int begun = 0;

    memset(&j, 0, sizeof j);
    ctx = fv__ctx(ctx);
    if (!p)
        return fv_error_set(FV_EINVAL, dom, "missing parameters");
    if (p->kind < FV__F1D_CORRELATE || p->kind > FV__F1D_MAXIMUM)
        return fv_error_set(FV_EINVAL, dom, "unknown filter kind %d", p->kind);
    if (p->mode < 0 || p->mode >= FV_MODE_COUNT)
        return fv_error_set(FV_EINVAL, dom, "invalid mode %d", p->mode);
    if (p->size < 1)
        return fv_error_set(FV_EINVAL, dom, "size %lld must be >= 1", (long long)p->size);
    if (p->kind == FV__F1D_CORRELATE && !p->weights && !p->dweights)
        return fv_error_set(FV_EINVAL, dom, "weights missing");
    if (in->ndim != out->ndim)
        return fv_error_set(FV_EINVAL, dom, "input and output shapes differ");
    for (int d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return fv_error_set(FV_EINVAL, dom, "input and output shapes differ");
    if (in->ndim > 0 ? (p->axis < 0 || p->axis >= in->ndim) : p->axis != 0)
        return fv_error_set(FV_EINVAL, dom, "axis %d out of range for %d dimensions", p->axis, in->ndim);
    if (p->size / 2 + p->origin < 0 || p->size / 2 + p->origin >= p->size)
        return fv_error_set(FV_EINVAL, dom, "origin %lld out of range for size %lld", (long long)p->origin,
                            (long long)p->size);
    if (p->size > INT32_MAX / 4)
        return fv_error_set(FV_EINVAL, dom, "size %lld too large", (long long)p->size);
    if (!fv_dtype_is_valid(in->dtype) || !fv_dtype_is_valid(out->dtype))
        return fv_error_set(FV_EDTYPE, dom, "invalid dtype");
    if ((st = fv_cu_begin(ctx, dom, a, 1, &j.x)) != FV_OK)
        return st;
    begun = 1;
    if (fv_array_size(out) == 0)
        goto done;
    if (!fv_cu_flt_aligned(in) || !fv_cu_flt_aligned(out)) {
        st = fv_error_set(FV_EINVAL, dom, "CUDA array data or strides not aligned to the element size");
        goto done;
    }
    j.in = in;
    j.out = out;
    j.ctx = ctx;
    j.device = j.x.device;
    fv_cu_flt_geom_init(&j.g, in, out, p->axis);
    j.size = p->size;
    j.left = p->size / 2 + p->origin;
    j.mode = p->mode;
    j.cval = p->cval;
    j.wdev = NULL;
    j.wh = NULL;
    j.wbuf = NULL;
    j.guard = guard;
    j.smem_optin = fv_cu_flt_smem_optin(j.device);
    switch (p->kind) {
    case FV__F1D_CORRELATE: {
        if (!p->weights) { /* on the device already (the caller checked where): classified there */
            j.kind = FV_CU_FLT_AUTO;
            j.wdev = p->dweights;
            j.wst = p->dweights_stride;
            break;
        }
        int sym = fv__ni_symmetry(p->weights, p->size);
        j.kind = sym > 0 ? FV_CU_FLT_CORR_SYM : sym < 0 ? FV_CU_FLT_CORR_ANTI : FV_CU_FLT_CORR;
        j.wh = p->weights;
        if (p->size > FV_CU_FLT_WINLINE && (st = fv_cu_flt_weights_to_device(&j)) != FV_OK) /* longer: a device copy */
            goto done;
        break;
    }
    case FV__F1D_UNIFORM:
        j.kind = FV_CU_FLT_USUM;
        break;
    case FV__F1D_MINIMUM:
        j.kind = FV_CU_FLT_MIN;
        break;
    default:
        j.kind = FV_CU_FLT_MAX;
        break;
    }
    {
        /* float accumulators: float32 outputs, and elsewhere as the planner
         * picks (fv_cu_flt_acc_plan): where float is exact, or float sums checked
         * against e with the few uncertain outputs in double (8-bit data, other
         * weights) */
        int accf = fv_cu_flt_acc_float(in->dtype, out->dtype);
        if (!accf) {
            const fv_cu_flt_accplan pa = { in->dtype, out->dtype, j.kind, j.wh, j.size, j.mode, j.cval };
            accf = fv_cu_flt_acc_plan(&pa, j.device, &j.chk) != 2;
        }
        st = FV_EDTYPE;
        switch (in->dtype) {
        case FV_BOOL:
        case FV_UINT8:
            st = fv_cu_flt_run1d_t<uint8_t>(&j, accf);
            break;
        case FV_INT8:
            st = fv_cu_flt_run1d_t<int8_t>(&j, accf);
            break;
        case FV_UINT16:
            st = fv_cu_flt_run1d_t<uint16_t>(&j, accf);
            break;
        case FV_INT16:
            st = fv_cu_flt_run1d_t<int16_t>(&j, accf);
            break;
        case FV_UINT32:
            st = fv_cu_flt_run1d_t<uint32_t>(&j, accf);
            break;
        case FV_INT32:
            st = fv_cu_flt_run1d_t<int32_t>(&j, accf);
            break;
        case FV_UINT64:
            st = fv_cu_flt_run1d_t<uint64_t>(&j, accf);
            break;
        case FV_INT64:
            st = fv_cu_flt_run1d_t<int64_t>(&j, accf);
            break;
        case FV_FLOAT32:
            st = fv_cu_flt_run1d_t<float>(&j, accf);
            break;
        case FV_FLOAT64:
            st = fv_cu_flt_run1d_t<double>(&j, accf);
            break;
        default:
            st = fv_error_set(FV_EDTYPE, dom, "no CUDA kernel for %s", fv_dtype_name(in->dtype));
            break;
        }
    }
done:
    fv_cu_tmp_release(ctx, j.wbuf);
    if (begun)
        fv_cu_end(&j.x);
    return st;
}

extern "C" fv_status fv__cuda_strip1d(fv_context *ctx, const fv__op_args *a);

extern "C" fv_status
fv__cuda_filter1d(fv_context *ctx, const fv__op_args *a)
{
    /* float32 along an axis other than the contiguous one, 3 / 5 / 9 / 17 taps:
     * the 1-D strip kernel (filter-sep2.cu), the same bits */
    fv_status st = fv__cuda_strip1d(ctx, a);
    if (st != FV__SEP2_DECLINED)
        return st;
    return fv__cuda_filter1d_guarded(ctx, a, NULL);
}

FV_KERNEL(FILTER1D, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_filter1d);
