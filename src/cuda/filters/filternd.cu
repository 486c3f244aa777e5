/* CUDA kernels of FV__OP_FILTERND: correlate, minimum and maximum over an n-d
 * window (the rank filter lives in filternd-rank.cu, the tiled 2-D correlation
 * in filternd-corr.cu), scipy.ndimage's results:
 *  - correlate: tmp = 0, tmp += w[j] * x[j] over the selected elements in C
 *    order (|w| > DBL_EPSILON, as scipy), in double without fused multiply-adds,
 *    or in float (fused: fv_d_flt_nd_madd) for float32 outputs of float32 and 8/16-bit
 *    data; 2-d windows spanning up to 11 x 11 take the tiled kernel
 *    (FOVEA_CORR_UNTILED=1: this one), 3-d windows spanning up to 5 x 5 x 5 of
 *    the common dtypes the tiled 3-D kernel in filternd-corr3d.cu (the same);
 *  - minimum / maximum (scipy's NI_MinOrMaxFilter): cval is first cast to the
 *    input type; the first element's value enters as double (plus its structure
 *    value in double), every later one as the input type (plus the structure
 *    value cast to the input type, with the input type's arithmetic), and
 *    replaces the result when strictly smaller / greater in double; flat 2-d
 *    windows spanning up to 11 x 11 take the tiled kernel in filternd-minmax.cu
 *    (FOVEA_MINMAX_UNTILED=1: this one). */
#include "filternd-common.cuh"
#include "core/plan.h"

/* a + b in T's own arithmetic (integers wrap, bool as one byte) */
template <typename T> __device__ __forceinline__ T fv_d_flt_tadd(T a, T b);
#define FV_CU_FLT_TADD_INT(T, W)                                        \
    template <> __device__ __forceinline__ T fv_d_flt_tadd<T>(T a, T b) \
    {                                                                   \
        return (T)((W)a + (W)b);                                        \
    }
FV_CU_FLT_TADD_INT(uint8_t, uint32_t)
FV_CU_FLT_TADD_INT(int8_t, uint32_t)
FV_CU_FLT_TADD_INT(uint16_t, uint32_t)
FV_CU_FLT_TADD_INT(int16_t, uint32_t)
FV_CU_FLT_TADD_INT(uint32_t, uint32_t)
FV_CU_FLT_TADD_INT(int32_t, uint32_t)
FV_CU_FLT_TADD_INT(uint64_t, uint64_t)
FV_CU_FLT_TADD_INT(int64_t, uint64_t)
#undef FV_CU_FLT_TADD_INT
template <>
__device__ __forceinline__ float
fv_d_flt_tadd<float>(float a, float b)
{
    return __fadd_rn(a, b);
}
template <>
__device__ __forceinline__ double
fv_d_flt_tadd<double>(double a, double b)
{
    return __dadd_rn(a, b);
}

template <typename T> __device__ __forceinline__ T fv_d_flt_from_bits(uint64_t b);
#define FV_CU_FLT_FROM_BITS_INT(T)                                             \
    template <> __device__ __forceinline__ T fv_d_flt_from_bits<T>(uint64_t b) \
    {                                                                          \
        return (T)b;                                                           \
    }
FV_CU_FLT_FROM_BITS_INT(uint8_t)
FV_CU_FLT_FROM_BITS_INT(int8_t)
FV_CU_FLT_FROM_BITS_INT(uint16_t)
FV_CU_FLT_FROM_BITS_INT(int16_t)
FV_CU_FLT_FROM_BITS_INT(uint32_t)
FV_CU_FLT_FROM_BITS_INT(int32_t)
FV_CU_FLT_FROM_BITS_INT(uint64_t)
FV_CU_FLT_FROM_BITS_INT(int64_t)
#undef FV_CU_FLT_FROM_BITS_INT
template <>
__device__ __forceinline__ float
fv_d_flt_from_bits<float>(uint64_t b)
{
    return __uint_as_float((uint32_t)b);
}
template <>
__device__ __forceinline__ double
fv_d_flt_from_bits<double>(uint64_t b)
{
    return __longlong_as_double((long long)b);
}

template <typename T, typename ACC, typename IT>
__global__ void
__launch_bounds__(FV_CU_FLT_ND_THREADS) fv_k_flt_nd_correlate(fv_cu_flt_ndargs<IT> p)
{
    const ACC cv = (ACC)p.cval;
    const int64_t count = p.count;
    for (IT i = (IT)(blockIdx.x * blockDim.x + threadIdx.x); i < p.g.size; i += (IT)(blockDim.x * gridDim.x)) {
        IT c[FV_MAX_NDIM], oi, oo;
        bool inside = fv_d_flt_nd_point(p.g, i, c, oi, oo);
        ACC t = 0;
        if (inside) {
            const char *base = p.in + oi;
            for (int64_t j = 0; j < count; j++)
                t = fv_d_flt_nd_madd(t, (ACC)__ldg(p.t.w + j), (ACC)__ldg((const T *)(base + (IT)__ldg(p.t.off + j))));
        } else {
            for (int64_t j = 0; j < count; j++) {
                IT off;
                ACC x =
                    fv_d_flt_nd_border(p.g, p.t.delta, j, c, p.mode, off) ? (ACC)__ldg((const T *)(p.in + off)) : cv;
                t = fv_d_flt_nd_madd(t, (ACC)__ldg(p.t.w + j), x);
            }
        }
        fv_d_flt_store_nd(p.out + oo, p.odt, t);
    }
}

template <typename T, typename IT>
__global__ void
__launch_bounds__(FV_CU_FLT_ND_THREADS) fv_k_flt_nd_minmax(fv_cu_flt_ndargs<IT> p)
{
    const T cv = fv_d_flt_to_in<T>(p.cval);
    const int64_t count = p.count;
    const bool mn = p.mn, hs = p.has_st;
    for (IT i = (IT)(blockIdx.x * blockDim.x + threadIdx.x); i < p.g.size; i += (IT)(blockDim.x * gridDim.x)) {
        IT c[FV_MAX_NDIM], oi, oo;
        bool inside = fv_d_flt_nd_point(p.g, i, c, oi, oo);
        const char *base = p.in + oi;
        T v;
        IT off;
        if (inside)
            v = __ldg((const T *)(base + (IT)__ldg(p.t.off)));
        else
            v = fv_d_flt_nd_border(p.g, p.t.delta, 0, c, p.mode, off) ? __ldg((const T *)(p.in + off)) : cv;
        double res = (double)v;
        if (hs)
            res = __dadd_rn(res, __ldg(p.t.w));
        for (int64_t j = 1; j < count; j++) {
            if (inside)
                v = __ldg((const T *)(base + (IT)__ldg(p.t.off + j)));
            else
                v = fv_d_flt_nd_border(p.g, p.t.delta, j, c, p.mode, off) ? __ldg((const T *)(p.in + off)) : cv;
            if (hs)
                v = fv_d_flt_tadd<T>(v, fv_d_flt_from_bits<T>(__ldg(p.t.st + j)));
            double x = (double)v;
            if (mn ? x < res : x > res)
                res = x;
        }
        fv_d_flt_store_nd(p.out + oo, p.odt, res);
    }
}

/* ---- host -------------------------------------------------------------------------- */

template <typename T>
static uint64_t
fv_cu_flt_bits_of(T v)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

template <typename T, typename ACC, typename IT>
static fv_status
fv_cu_flt_nd_launch_corr(const fv_cu_flt_ndjob *j)
{
    fv_cu_flt_ndargs<IT> p;
    memset(&p, 0, sizeof p);
    p.in = j->in->data;
    p.out = j->out->data;
    fv_cu_flt_nd_pack(&p.g, j->prep, fv_array_size(j->out));
    p.t = j->tab;
    p.count = j->prep->count;
    p.mode = j->mode;
    p.odt = (int)j->out->dtype;
    p.cval = j->cval;
    fv_k_flt_nd_correlate<T, ACC, IT>
        <<<fv_cu_flt_nd_grid(fv_array_size(j->out), j->device), FV_CU_FLT_ND_THREADS, 0, j->stream>>>(p);
    return fv_cu_launch_status("correlate kernel launch");
}

template <typename T, typename IT>
static fv_status
fv_cu_flt_nd_launch_minmax(const fv_cu_flt_ndjob *j, int mn, int has_st)
{
    fv_cu_flt_ndargs<IT> p;
    memset(&p, 0, sizeof p);
    p.in = j->in->data;
    p.out = j->out->data;
    fv_cu_flt_nd_pack(&p.g, j->prep, fv_array_size(j->out));
    p.t = j->tab;
    p.count = j->prep->count;
    p.mode = j->mode;
    p.odt = (int)j->out->dtype;
    p.cval = j->cval;
    p.mn = mn;
    p.has_st = has_st;
    fv_k_flt_nd_minmax<T, IT>
        <<<fv_cu_flt_nd_grid(fv_array_size(j->out), j->device), FV_CU_FLT_ND_THREADS, 0, j->stream>>>(p);
    return fv_cu_launch_status("minimum/maximum filter kernel launch");
}

template <typename T, bool SMALL> struct fv_cu_flt_nd_corr_run {
    static fv_status run(const fv_cu_flt_ndjob *j, int accf)
    {
        return j->fits32 ? fv_cu_flt_nd_launch_corr<T, double, int32_t>(j)
                         : fv_cu_flt_nd_launch_corr<T, double, int64_t>(j);
    }
};
template <typename T> struct fv_cu_flt_nd_corr_run<T, true> {
    static fv_status run(const fv_cu_flt_ndjob *j, int accf)
    {
        if (accf)
            return j->fits32 ? fv_cu_flt_nd_launch_corr<T, float, int32_t>(j)
                             : fv_cu_flt_nd_launch_corr<T, float, int64_t>(j);
        return j->fits32 ? fv_cu_flt_nd_launch_corr<T, double, int32_t>(j)
                         : fv_cu_flt_nd_launch_corr<T, double, int64_t>(j);
    }
};

/* Structure values cast to T (as bits) into st, then run min/max. */
template <typename T>
static fv_status
fv_cu_flt_nd_minmax_t(const fv_cu_flt_ndjob *j, int mn, int has_st, uint64_t *st_host)
{
    if (has_st)
        for (int64_t k = 0; k < j->prep->count; k++)
            st_host[k] = fv_cu_flt_bits_of<T>(fv_d_flt_to_in<T>(j->prep->w[k]));
    return FV_OK;
}

template <typename T>
static fv_status
fv_cu_flt_nd_minmax_launch_t(const fv_cu_flt_ndjob *j, int mn, int has_st)
{
    return j->fits32 ? fv_cu_flt_nd_launch_minmax<T, int32_t>(j, mn, has_st)
                     : fv_cu_flt_nd_launch_minmax<T, int64_t>(j, mn, has_st);
}

static fv_status
fv_cu_flt_nd_st_bits(fv_dtype dt, const fv_cu_flt_ndjob *j, int mn, int has_st, uint64_t *st_host)
{
    FV_CU_FLT_SWITCH_IN(dt, fv_cu_flt_nd_minmax_t<T>(j, mn, has_st, st_host))
    return fv_error_set(FV_EDTYPE, "filter", "no CUDA kernel for %s", fv_dtype_name(dt));
}

static fv_status
fv_cu_flt_nd_minmax_launch(fv_dtype dt, const fv_cu_flt_ndjob *j, int mn, int has_st)
{
    FV_CU_FLT_SWITCH_IN(dt, fv_cu_flt_nd_minmax_launch_t<T>(j, mn, has_st))
    return fv_error_set(FV_EDTYPE, "filter", "no CUDA kernel for %s", fv_dtype_name(dt));
}

static fv_status
fv_cu_flt_nd_corr_launch(fv_dtype dt, const fv_cu_flt_ndjob *j, int accf)
{
    FV_CU_FLT_SWITCH_IN(dt, (fv_cu_flt_nd_corr_run<T, fv_cu_flt_small<T>::value>::run(j, accf)))
    return fv_error_set(FV_EDTYPE, "filter", "no CUDA kernel for %s", fv_dtype_name(dt));
}

/* The kernels of the n-d filters ("cuda.filternd"), in the planner's order:
 * the tiled kernels, each for one kind and shape of window (no device tables;
 * a launch may still decline with FV_ENOKERNEL for a dtype it lacks), then the
 * generic kernels, which run everything after the tables are on the device. */
typedef struct fv_cu_flt_ndplan {
    const fv_cu_flt_ndjob *j;
    int kind, mn, has_st, accf;
} fv_cu_flt_ndplan;

static int
fv_cu_flt_corr2d_ok(const void *args, int device)
{
    const fv_cu_flt_ndplan *pa = (const fv_cu_flt_ndplan *)args;
    return pa->kind == FV__FND_CORRELATE && fv_cu_flt_corr_tile_k(pa->j) != 0;
}
static fv_status
fv_cu_flt_corr2d_go(fv_context *ctx, void *args)
{
    const fv_cu_flt_ndplan *pa = (const fv_cu_flt_ndplan *)args;
    return fv_cu_flt_corr_tile_run(pa->j, pa->accf);
}
static int
fv_cu_flt_corr3d_ok(const void *args, int device)
{
    const fv_cu_flt_ndplan *pa = (const fv_cu_flt_ndplan *)args;
    return pa->kind == FV__FND_CORRELATE && fv_cu_flt_corr3d_k(pa->j) != 0;
}
static fv_status
fv_cu_flt_corr3d_go(fv_context *ctx, void *args)
{
    const fv_cu_flt_ndplan *pa = (const fv_cu_flt_ndplan *)args;
    return fv_cu_flt_corr3d_run(pa->j, pa->accf);
}
static int
fv_cu_flt_minmax2d_ok(const void *args, int device)
{
    const fv_cu_flt_ndplan *pa = (const fv_cu_flt_ndplan *)args;
    return (pa->kind == FV__FND_MINIMUM || pa->kind == FV__FND_MAXIMUM) &&
        fv_cu_flt_minmax_tile_k(pa->j, pa->has_st) != 0;
}
static fv_status
fv_cu_flt_minmax2d_go(fv_context *ctx, void *args)
{
    const fv_cu_flt_ndplan *pa = (const fv_cu_flt_ndplan *)args;
    return fv_cu_flt_minmax_tile_run(pa->j, pa->mn, pa->has_st);
}
static int
fv_cu_flt_rank_tiled_ok(const void *args, int device)
{
    const fv_cu_flt_ndplan *pa = (const fv_cu_flt_ndplan *)args;
    const fv_dtype dt = pa->j->in->dtype; /* the tiled rank kernels' dtypes (fv_cu_flt_tile_ok) */
    if (dt != FV_BOOL && dt != FV_UINT8 && dt != FV_INT8 && dt != FV_UINT16 && dt != FV_INT16 && dt != FV_FLOAT32)
        return 0;
    return pa->kind == FV__FND_RANK && (fv_cu_flt_rank_tile_k(pa->j) != 0 || fv_cu_flt_rank_tile3_ok(pa->j));
}
static fv_status
fv_cu_flt_rank_tiled_go(fv_context *ctx, void *args)
{
    const fv_cu_flt_ndplan *pa = (const fv_cu_flt_ndplan *)args;
    return fv_cu_flt_rank_tile_run(pa->j);
}

FV__VARIANTS(fv_cu_flt_nd_variants, "cuda.filternd", { "corr_tiled2d", fv_cu_flt_corr2d_ok, fv_cu_flt_corr2d_go },
             { "minmax_tiled2d", fv_cu_flt_minmax2d_ok, fv_cu_flt_minmax2d_go },
             { "corr_tiled3d", fv_cu_flt_corr3d_ok, fv_cu_flt_corr3d_go },
             { "rank_tiled", fv_cu_flt_rank_tiled_ok, fv_cu_flt_rank_tiled_go }, { "generic", NULL, NULL })

extern "C" fv_status
fv__cuda_filternd(fv_context *ctx, const fv__op_args *a)
{
    static const char *dom = "filter";
    const fv__filternd_params *f = (const fv__filternd_params *)a->params;
    const fv_array *in = a->in;
    fv_array *out = a->out;
    fv_array *tabbuf = NULL;
    char *host = NULL;
    fv_cu_flt_ndprep prep;
    fv_cu_flt_ndjob j;
    fv_cu_exec x;
    fv_status st;

    memset(&prep, 0, sizeof prep);
    ctx = fv__ctx(ctx);
    if (!f)
        return fv_error_set(FV_EINVAL, dom, "missing parameters");
    if (f->kind < FV__FND_CORRELATE || f->kind > FV__FND_RANK)
        return fv_error_set(FV_EINVAL, dom, "unknown filter kind %d", f->kind);
    if (f->mode < 0 || f->mode >= FV_MODE_COUNT)
        return fv_error_set(FV_EINVAL, dom, "invalid mode %d", f->mode);
    if (f->kind == FV__FND_CORRELATE && !f->weights)
        return fv_error_set(FV_EINVAL, dom, "weights missing");
    if (in->ndim != out->ndim || (f->ndim != in->ndim && !(in->ndim == 0 && f->ndim <= 1)))
        return fv_error_set(FV_EINVAL, dom, "input, output and window dimensions differ");
    for (int d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return fv_error_set(FV_EINVAL, dom, "input and output shapes differ");
    if (!fv_dtype_is_valid(in->dtype) || !fv_dtype_is_valid(out->dtype))
        return fv_error_set(FV_EDTYPE, dom, "invalid dtype");
    if ((st = fv_cu_flt_ndprep_init(&prep, f, in, out, dom)) != FV_OK)
        return st;
    if ((st = fv_cu_begin(ctx, dom, a, 1, &x)) != FV_OK) {
        fv_cu_flt_ndprep_free(&prep);
        return st;
    }
    if (fv_array_size(out) == 0)
        goto done;
    if (!fv_cu_flt_aligned(in) || !fv_cu_flt_aligned(out)) {
        st = fv_error_set(FV_EINVAL, dom, "CUDA array data or strides not aligned to the element size");
        goto done;
    }
    {
        /* one device block: off | w | st | delta */
        int64_t n = prep.count;
        size_t b_off = 0, b_w = (size_t)n * 8, b_st = 2 * (size_t)n * 8, b_d = 3 * (size_t)n * 8;
        size_t total = b_d + (size_t)n * (size_t)prep.ndim * sizeof(int32_t);
        fv_device dev = { FV_DEVICE_CUDA, x.device }, hdev = { FV_DEVICE_CPU, 0 };
        if (!(host = (char *)malloc(total))) {
            st = fv_error_set(FV_ENOMEM, dom, "out of host memory");
            goto done;
        }
        memcpy(host + b_off, prep.off, (size_t)n * 8);
        memcpy(host + b_w, prep.w, (size_t)n * 8);
        memset(host + b_st, 0, (size_t)n * 8);
        memcpy(host + b_d, prep.delta, (size_t)n * (size_t)prep.ndim * sizeof(int32_t));
        j.ctx = ctx;
        j.device = x.device;
        j.stream = x.stream;
        j.in = in;
        j.out = out;
        j.prep = &prep;
        j.fits32 = fv_cu_flt_nd_fits32(&prep, in, out);
        j.rank = f->rank;
        j.mode = f->mode;
        j.cval = f->cval;
        int mn = f->kind == FV__FND_MINIMUM, has_st = f->kind != FV__FND_CORRELATE && f->weights != NULL;
        { /* the tiled kernels (no device tables) where they apply ("cuda.filternd") */
            fv_cu_flt_ndplan pa = { &j, f->kind, mn, has_st, fv_cu_flt_acc_float(in->dtype, out->dtype) };
            const fv__variant *v = fv__plan_pick(&fv_cu_flt_nd_variants, &pa, x.device);
            if (v && v->launch && (st = v->launch(ctx, &pa)) != FV_ENOKERNEL)
                goto done;
        }
        st = FV_OK;
        if ((f->kind == FV__FND_MINIMUM || f->kind == FV__FND_MAXIMUM) &&
            (st = fv_cu_flt_nd_st_bits(in->dtype, &j, mn, has_st, (uint64_t *)(host + b_st))) != FV_OK)
            goto done;
        if ((st = fv_cu_tmp_new(ctx, x.device, total, &tabbuf)) != FV_OK)
            goto done;
        if ((st = fv__cuda_memcpy(ctx, tabbuf->data, dev, host, hdev, total)) != FV_OK)
            goto done;
        char *dbase = (char *)tabbuf->data;
        j.tab.off = (const int64_t *)(dbase + b_off);
        j.tab.w = (const double *)(dbase + b_w);
        j.tab.st = (const uint64_t *)(dbase + b_st);
        j.tab.delta = (const int32_t *)(dbase + b_d);
        switch (f->kind) {
        case FV__FND_CORRELATE:
            st = fv_cu_flt_nd_corr_launch(in->dtype, &j, fv_cu_flt_acc_float(in->dtype, out->dtype));
            break;
        case FV__FND_MINIMUM:
        case FV__FND_MAXIMUM:
            st = fv_cu_flt_nd_minmax_launch(in->dtype, &j, mn, has_st);
            break;
        default:
            st = fv_cu_flt_rank_run(&j);
            break;
        }
    }
done:
    fv_cu_tmp_release(ctx, tabbuf);
    free(host);
    fv_cu_flt_ndprep_free(&prep);
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(FILTERND, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_filternd);
