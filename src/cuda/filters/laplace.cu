/* CUDA kernels of FV__OP_LAPLACE (fv_laplace): scipy.ndimage.laplace in one
 * pass, replacing the chain of one correlate1d per axis and `output += tmp`
 * (a full read and write of the image per step).
 *
 * Memory-bound: every output element is computed once by one thread, from one
 * read of its input element and its neighbours, which come from the caches
 * (along the row from L1, the rows / planes before and after from L2, where the
 * blocks working on them a moment earlier or later brought them). Two kernels,
 * templated on the input type T, the output's accumulation kind (ACC,
 * laplace-kernels.h) and the index type IT (32-bit when the element count and
 * the byte extents allow, else 64-bit):
 *  - rows: in and out C-contiguous with rows (the last axis) of at least
 *    FV_CU_LAP_MINROW elements: a 2-d grid, blockIdx.y over rows, blockIdx.x over
 *    tiles of E * FV_CU_BLOCK columns (E = 4 for long rows), thread columns
 *    c0 + e * FV_CU_BLOCK (coalesced); a row's positions on the other terms'
 *    axes are found once per row and term, neighbours sit at +-1 element or
 *    +-(elements per step of the axis);
 *  - strided: any strides (views, negative strides), any row length: one
 *    element per thread (grid-stride), its offsets from the shape, each term's
 *    position from the flat index (FOVEA_LAPLACE_GENERIC=1 in the environment
 *    sends everything here).
 * Arithmetic: the input value converted to double, each term
 * __dadd_rn(__dmul_rn(x, -2.0), __dadd_rn(l, r)) (round-to-nearest intrinsics,
 * which nvcc never contracts into an FMA; the file is built with -fmad=false as
 * well), stored with scipy's casts (filters-common.cuh: fv__cvt32 / fv__cvt64 /
 * fv__cvtu64; bool: low byte != 0) and summed in the output's dtype: float32 with
 * __fadd_rn, float64 with __dadd_rn, integers wrapping, bool ORed. Results equal
 * the CPU backend's and scipy's bit for bit. */
#include <stdlib.h>

#include "filters-common.cuh"
#include "ops/filters/laplace.h"
#include "core/plan.h"

#define FV_CU_LAP_MINROW 128   /* shorter rows go to the strided kernel */
#define FV_CU_LAP_ROWS_Y 65535 /* grid rows (blockIdx.y) at most; more rows loop */

template <typename IT> struct fv_cu_lap_st;
template <> struct fv_cu_lap_st<uint32_t> {
    typedef int32_t type;
};
template <> struct fv_cu_lap_st<uint64_t> {
    typedef int64_t type;
};

/* The kernels' arguments. Per term k (along axes[k]): n its extent, st the
 * input bytes per step, lo / hi the bytes from the element at position 0 (n - 1)
 * to its neighbour past the edge (unused where bit k of lcv / hcv says cval). */
template <typename IT> struct fv_cu_lap {
    typedef typename fv_cu_lap_st<IT>::type ST;
    const char *in;
    char *out;
    IT size;         /* elements */
    IT ncols, nrows; /* rows: the last axis' extent and the number of rows */
    int ndim, naxes, odt, osz;
    IT shape[FV_MAX_NDIM];                   /* strided */
    ST istr[FV_MAX_NDIM], ostr[FV_MAX_NDIM]; /* strided: bytes */
    IT tdiv[FV_MAX_NDIM];                    /* term k's position = (index / tdiv) % n; rows: index is the row, 0 for
                                * the last axis (the position is the column) */
    IT tn[FV_MAX_NDIM];
    ST tst[FV_MAX_NDIM], tlo[FV_MAX_NDIM], thi[FV_MAX_NDIM];
    unsigned lcv, hcv; /* bit k: term k's neighbour past the low / high edge is cval */
    unsigned tmod;     /* bit k: the position needs the modulo (not axis 0) */
    double cval;
};

/* ---- per output kind: the term's conversion, the sum, the store --------------------- */

template <int ACC> struct fv_cu_lacc;
template <> struct fv_cu_lacc<FV__LAP_F64> {
    typedef double V;
    static __device__ __forceinline__ V first(double t)
    {
        return t;
    }
    static __device__ __forceinline__ V add(V a, double t)
    {
        return __dadd_rn(a, t);
    }
    static __device__ __forceinline__ void store(char *p, int, V a)
    {
        *(double *)p = a;
    }
};
template <> struct fv_cu_lacc<FV__LAP_F32> {
    typedef float V;
    static __device__ __forceinline__ V first(double t)
    {
        return __double2float_rn(t);
    }
    static __device__ __forceinline__ V add(V a, double t)
    {
        return __fadd_rn(a, __double2float_rn(t));
    }
    static __device__ __forceinline__ void store(char *p, int, V a)
    {
        *(float *)p = a;
    }
};
template <> struct fv_cu_lacc<FV__LAP_W32> { /* (u)int8, (u)int16, int32: the low 32 bits suffice */
    typedef uint32_t V;
    static __device__ __forceinline__ V first(double t)
    {
        return (uint32_t)fv__cvt32(t);
    }
    static __device__ __forceinline__ V add(V a, double t)
    {
        return a + (uint32_t)fv__cvt32(t);
    }
    static __device__ __forceinline__ void store(char *p, int odt, V a)
    {
        if (odt == FV_UINT8 || odt == FV_INT8)
            *(uint8_t *)p = (uint8_t)a;
        else if (odt == FV_UINT16 || odt == FV_INT16)
            *(uint16_t *)p = (uint16_t)a;
        else
            *(uint32_t *)p = a;
    }
};
template <> struct fv_cu_lacc<FV__LAP_W64> { /* uint32, int64 */
    typedef uint64_t V;
    static __device__ __forceinline__ V first(double t)
    {
        return (uint64_t)fv__cvt64(t);
    }
    static __device__ __forceinline__ V add(V a, double t)
    {
        return a + (uint64_t)fv__cvt64(t);
    }
    static __device__ __forceinline__ void store(char *p, int odt, V a)
    {
        if (odt == FV_UINT32)
            *(uint32_t *)p = (uint32_t)a;
        else
            *(uint64_t *)p = a;
    }
};
template <> struct fv_cu_lacc<FV__LAP_U64> {
    typedef uint64_t V;
    static __device__ __forceinline__ V first(double t)
    {
        return fv__cvtu64(t);
    }
    static __device__ __forceinline__ V add(V a, double t)
    {
        return a + fv__cvtu64(t);
    }
    static __device__ __forceinline__ void store(char *p, int, V a)
    {
        *(uint64_t *)p = a;
    }
};
template <> struct fv_cu_lacc<FV__LAP_BOOL> {
    typedef uint32_t V;
    static __device__ __forceinline__ V first(double t)
    {
        return (uint8_t)fv__cvt32(t) != 0;
    }
    static __device__ __forceinline__ V add(V a, double t)
    {
        return a | (V)((uint8_t)fv__cvt32(t) != 0);
    }
    static __device__ __forceinline__ void store(char *p, int, V a)
    {
        *(uint8_t *)p = (uint8_t)a;
    }
};

/* the input element at p as a double (bool: its raw byte, as scipy reads it) */
template <typename T>
static __device__ __forceinline__ double
fv_cu_lap_ld(const char *p)
{
    return (double)__ldg((const T *)p);
}

/* Term k at the element c (value x, position pos along the term's axis):
 * scipy's (-2.0 * x) + (l + r) rounded step by step. */
template <typename T, typename IT>
static __device__ __forceinline__ double
fv_cu_lap_term(const fv_cu_lap<IT> &p, int k, const char *c, double x, IT pos)
{
    const double l = pos > 0  ? fv_cu_lap_ld<T>(c - p.tst[k])
        : ((p.lcv >> k) & 1u) ? p.cval
                              : fv_cu_lap_ld<T>(c + p.tlo[k]);
    const double r = pos + 1 < p.tn[k] ? fv_cu_lap_ld<T>(c + p.tst[k])
        : ((p.hcv >> k) & 1u)          ? p.cval
                                       : fv_cu_lap_ld<T>(c + p.thi[k]);
    return __dadd_rn(__dmul_rn(x, -2.0), __dadd_rn(l, r));
}

/* C-contiguous in and out, by rows: thread columns c0 + e * FV_CU_BLOCK, e < E. */
template <typename T, int ACC, typename IT, int E>
__global__ void
__launch_bounds__(FV_CU_BLOCK) fv_k_laplace_rows(const fv_cu_lap<IT> p)
{
    typedef fv_cu_lacc<ACC> A;
    typedef typename fv_cu_lap_st<IT>::type ST;
    const IT c0 = (IT)blockIdx.x * (IT)(E * FV_CU_BLOCK) + (IT)threadIdx.x;
    if (c0 >= p.ncols)
        return;
    for (IT row = blockIdx.y; row < p.nrows; row += gridDim.y) {
        const IT base = row * p.ncols + c0; /* flat index of column c0 */
        double x[E];
        typename A::V acc[E];
#pragma unroll
        for (int e = 0; e < E; e++) {
            x[e] = 0.0;
            acc[e] = 0;
            if (c0 + (IT)(e * FV_CU_BLOCK) < p.ncols)
                x[e] = fv_cu_lap_ld<T>(p.in + (ST)((base + (IT)(e * FV_CU_BLOCK)) * (IT)sizeof(T)));
        }
        for (int k = 0; k < p.naxes; k++) {
            const bool along = p.tdiv[k] == 0; /* the term runs along the rows */
            IT rpos = 0;
            if (!along) {
                const IT q = p.tdiv[k] == 1 ? row : row / p.tdiv[k];
                rpos = ((p.tmod >> k) & 1u) ? q % p.tn[k] : q;
            }
#pragma unroll
            for (int e = 0; e < E; e++) {
                const IT col = c0 + (IT)(e * FV_CU_BLOCK);
                if (col < p.ncols) {
                    const char *c = p.in + (ST)((base + (IT)(e * FV_CU_BLOCK)) * (IT)sizeof(T));
                    const double t = fv_cu_lap_term<T, IT>(p, k, c, x[e], along ? col : rpos);
                    acc[e] = k ? A::add(acc[e], t) : A::first(t);
                }
            }
        }
#pragma unroll
        for (int e = 0; e < E; e++)
            if (c0 + (IT)(e * FV_CU_BLOCK) < p.ncols)
                A::store(p.out + (ST)((base + (IT)(e * FV_CU_BLOCK)) * (IT)p.osz), p.odt, acc[e]);
    }
}

/* Any strides: one element per thread, offsets from the shape. */
template <typename T, int ACC, typename IT>
__global__ void
__launch_bounds__(FV_CU_BLOCK) fv_k_laplace_strided(const fv_cu_lap<IT> p)
{
    typedef fv_cu_lacc<ACC> A;
    typedef typename fv_cu_lap_st<IT>::type ST;
    FV_GRID_STRIDE(IT, i, p.size) {
        ST io = 0, oo = 0;
        IT r = i;
        for (int d = p.ndim - 1; d > 0; d--) {
            const IT q = r / p.shape[d];
            const ST xd = (ST)(r - q * p.shape[d]);
            r = q;
            io += xd * p.istr[d];
            oo += xd * p.ostr[d];
        }
        io += (ST)r * p.istr[0];
        oo += (ST)r * p.ostr[0];
        const char *c = p.in + io;
        const double x = fv_cu_lap_ld<T>(c);
        typename A::V acc = 0;
        for (int k = 0; k < p.naxes; k++) {
            const IT q = p.tdiv[k] == 1 ? i : i / p.tdiv[k];
            const IT pos = ((p.tmod >> k) & 1u) ? q % p.tn[k] : q;
            const double t = fv_cu_lap_term<T, IT>(p, k, c, x, pos);
            acc = k ? A::add(acc, t) : A::first(t);
        }
        A::store(p.out + oo, p.odt, acc);
    }
}

/* ---- host side ---------------------------------------------------------------------- */

/* 1 when the array of shape j->shape and byte strides st, items of isz bytes, is
 * C-contiguous (axes of extent 1 ignored). */
static int
fv_cu_lap_c_order(const fv__laplace_job *j, const int64_t *st, int64_t isz)
{
    int64_t want = isz;
    for (int d = j->ndim - 1; d >= 0; d--) {
        if (j->shape[d] > 1 && st[d] != want)
            return 0;
        want *= j->shape[d];
    }
    return 1;
}

/* max(|lowest|, |highest| + isz) byte offset of the elements around the first */
static int64_t
fv_cu_lap_extent(const fv__laplace_job *j, const int64_t *st, int64_t isz)
{
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < j->ndim; d++) {
        const int64_t span = (j->shape[d] - 1) * st[d];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    hi += isz;
    return hi > -lo ? hi : -lo;
}

template <typename T, int ACC, typename IT>
static void
fv_cu_lap_launch(const fv__laplace_job *j, bool rows, const fv_cu_exec *x)
{
    typedef typename fv_cu_lap_st<IT>::type ST;
    fv_cu_lap<IT> p;
    memset(&p, 0, sizeof p);
    const int64_t isz = (int64_t)sizeof(T);
    p.in = j->in;
    p.out = j->out;
    p.size = (IT)j->size;
    p.ndim = j->ndim;
    p.naxes = j->naxes;
    p.odt = j->odtype;
    p.osz = (int)fv_dtype_size((fv_dtype)j->odtype);
    p.cval = j->cval;
    const int last = j->ndim - 1;
    p.ncols = (IT)j->shape[last];
    p.nrows = (IT)(j->size / j->shape[last]);
    for (int d = 0; d < j->ndim; d++) {
        p.shape[d] = (IT)j->shape[d];
        p.istr[d] = (ST)j->istrides[d];
        p.ostr[d] = (ST)j->ostrides[d];
    }
    for (int k = 0; k < j->naxes; k++) {
        const int a = j->axes[k];
        const int64_t n = j->shape[a];
        int64_t inner = 1; /* elements per step along a, C order */
        for (int d = a + 1; d < j->ndim; d++)
            inner *= j->shape[d];
        /* rows: contiguous input, bytes per step = inner * isz; else the stride */
        const int64_t st = rows ? inner * isz : j->istrides[a];
        p.tn[k] = (IT)n;
        p.tdiv[k] = (IT)(rows ? (a == last ? 0 : inner / j->shape[last]) : inner);
        p.tst[k] = (ST)st;
        p.tlo[k] = (ST)(j->lo[k] < 0 ? 0 : j->lo[k] * st);
        p.thi[k] = (ST)(j->hi[k] < 0 ? 0 : (j->hi[k] - (n - 1)) * st);
        if (j->lo[k] < 0)
            p.lcv |= 1u << k;
        if (j->hi[k] < 0)
            p.hcv |= 1u << k;
        if (a > 0)
            p.tmod |= 1u << k;
    }
    if (rows) {
        const int e4 = j->shape[last] >= 4 * FV_CU_BLOCK;
        const int64_t per = (int64_t)(e4 ? 4 : 1) * FV_CU_BLOCK;
        const int64_t rows_n = j->size / j->shape[last];
        const dim3 grid((unsigned)((j->shape[last] + per - 1) / per),
                        (unsigned)(rows_n < FV_CU_LAP_ROWS_Y ? rows_n : FV_CU_LAP_ROWS_Y));
        if (e4)
            fv_k_laplace_rows<T, ACC, IT, 4><<<grid, FV_CU_BLOCK, 0, x->stream>>>(p);
        else
            fv_k_laplace_rows<T, ACC, IT, 1><<<grid, FV_CU_BLOCK, 0, x->stream>>>(p);
    } else {
        fv_k_laplace_strided<T, ACC, IT><<<x->grid, x->block, 0, x->stream>>>(p);
    }
}

template <typename T, typename IT>
static fv_status
fv_cu_lap_acc(const fv__laplace_job *j, bool rows, const fv_cu_exec *x)
{
    switch (fv__laplace_acc_of(j->odtype)) {
    case FV__LAP_F64:
        fv_cu_lap_launch<T, FV__LAP_F64, IT>(j, rows, x);
        break;
    case FV__LAP_F32:
        fv_cu_lap_launch<T, FV__LAP_F32, IT>(j, rows, x);
        break;
    case FV__LAP_W32:
        fv_cu_lap_launch<T, FV__LAP_W32, IT>(j, rows, x);
        break;
    case FV__LAP_W64:
        fv_cu_lap_launch<T, FV__LAP_W64, IT>(j, rows, x);
        break;
    case FV__LAP_U64:
        fv_cu_lap_launch<T, FV__LAP_U64, IT>(j, rows, x);
        break;
    default:
        fv_cu_lap_launch<T, FV__LAP_BOOL, IT>(j, rows, x);
        break;
    }
    return FV_OK;
}

/* The kernels ("cuda.laplace"): "rows", along C-ordered rows of at least
 * FV_CU_LAP_MINROW elements; "generic", any strides. */
FV__VARIANTS(fv_cu_lap_variants, "cuda.laplace", { "rows", fv_cu_flag_ok, NULL }, { "generic", NULL, NULL })

template <typename T>
static fv_status
fv_cu_lap_run(const fv__laplace_job *j, const fv_cu_exec *x)
{
    const int64_t isz = (int64_t)sizeof(T), osz = (int64_t)fv_dtype_size((fv_dtype)j->odtype);
    const int rows_ok = j->shape[j->ndim - 1] >= FV_CU_LAP_MINROW && fv_cu_lap_c_order(j, j->istrides, isz) &&
        fv_cu_lap_c_order(j, j->ostrides, osz);
    const bool rows = fv__plan_index(&fv_cu_lap_variants, &rows_ok, x->device) == 0;
    bool fits32;
    if (rows) /* offsets are flat index * item size */
        fits32 = j->size <= (int64_t)INT32_MAX / (isz > osz ? isz : osz);
    else
        fits32 = j->size <= (int64_t)INT32_MAX && fv_cu_lap_extent(j, j->istrides, isz) <= (int64_t)INT32_MAX &&
            fv_cu_lap_extent(j, j->ostrides, osz) <= (int64_t)INT32_MAX;
    return fits32 ? fv_cu_lap_acc<T, uint32_t>(j, rows, x) : fv_cu_lap_acc<T, uint64_t>(j, rows, x);
}

static fv_status
fv_cu_lap_dispatch(const fv__laplace_job *j, const fv_cu_exec *x)
{
    FV_CU_FLT_SWITCH_IN(j->idtype, fv_cu_lap_run<T>(j, x))
    return fv_error_set(FV_EDTYPE, "laplace", "dtype %s is not supported", fv_dtype_name((fv_dtype)j->idtype));
}

static fv_status
fv_cu_laplace(fv_context *ctx, const fv__op_args *a)
{
    const char *domain = "laplace";
    const fv__laplace_job *j = (const fv__laplace_job *)a->params;
    if (!fv_cu_flt_aligned(a->in) || !fv_cu_flt_aligned(a->out)) /* the job's in / out are these arrays' */
        return fv_error_set(FV_EINVAL, domain, "CUDA array data or strides not aligned to the element size");
    if (j->size == 0)
        return FV_OK;
    fv_cu_exec x;
    fv_status st = fv_cu_begin(ctx, domain, a, j->size, &x);
    if (st != FV_OK)
        return st;
    st = fv_cu_lap_dispatch(j, &x);
    if (st == FV_OK)
        st = fv_cu_launch_status("laplace kernel launch");
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(LAPLACE, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_laplace);
