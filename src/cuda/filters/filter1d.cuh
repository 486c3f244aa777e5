/* Shared by the CUDA kernels of FV__OP_FILTER1D (filter1d.cu: the host side,
 * filter1d-tile.cu: the tile kernels, filter1d-line.cu: the kernels along whole
 * lines): one 1-D pass along an axis (correlate1d,
 * uniform_filter1d, minimum_filter1d, maximum_filter1d), scipy.ndimage's results.
 *
 * Geometry: the axis, one "cross" direction (the other axis, after merging the
 * contiguous ones, with the smallest input stride) and the rest as a batch.
 *
 * Paths:
 *  - tile kernel (fv_k_flt_tile): a block loads a tile of lines x (outputs + halo)
 *    into shared memory, coalesced along the axis when the axis is the densest
 *    direction (ROW: one warp or the whole block per line), else along the cross
 *    direction (COL: 32 lines side by side, warps down the axis), converting each
 *    value once (cval past the edges) to the accumulator type. Correlation sums
 *    in scipy's order (symmetric / antisymmetric / general), in double without
 *    fused multiply-adds (so integer outputs match scipy bit for bit) or in
 *    float: for float32 outputs of float32 and 8/16-bit data, where float is
 *    exact (fv_cu_flt_float_exact), and for 8-bit data with other weights into integer
 *    outputs, checked against an error bound with the uncertain outputs summed
 *    again in double (fv_cu_flt_float_checked, fv_d_win_check). min/max: direct for
 *    short windows, else log2(size) doubling passes (van Herk's bound without
 *    the serial prefix scans), ties going to the later element as in scipy's
 *    running minimum. 32-bit index math when the byte extents allow.
 *  - direct kernel (fv_k_flt_direct): one output per thread from global memory,
 *    64-bit, for windows too long for shared memory.
 *  - uniform filter: scipy 1.17 keeps a running sum (sum += new - old) and
 *    divides it per output. For data of up to 32-bit integers (and an integral
 *    cval) every such sum is exact in double, so the tile kernel's direct window
 *    sum / size is bit for bit scipy's. Into integer (or bool) outputs, other
 *    data runs scipy's recurrence itself, one thread per line, so that the
 *    truncation sees scipy's double. Float outputs of other data take the tile
 *    kernel's window sum (within rounding of scipy's, which carries its
 *    accumulated rounding), except on lines of float data with NaN or inf,
 *    where the running sum's NaN tail is scipy's result: those lines are
 *    flagged and redone serially.
 *  - min/max over float data with NaN: scipy's result then depends on its
 *    ascending-minima deque; lines where the tile kernel saw a NaN (flagged)
 *    are redone by fv_k_flt_minmax_exact, which runs that deque per line.
 *  - two passes fused: filter-sep2.cu (FV__OP_SEP2) runs a 2-pass chain in one
 *    kernel with fv_k_flt_tile2's arithmetic; where it may differ (NaN / inf lines)
 *    it queues this file's passes behind it through fv__cuda_filter1d_guarded,
 *    whose kernels return at once unless the fused kernel set the guard flag.
 *    FOVEA_SEP_UNFUSED=1 keeps the pass-by-pass chain. */
#ifndef FV_CUDA_FILTER1D_CUH
#define FV_CUDA_FILTER1D_CUH
#include <stdlib.h>

#include "filters-common.cuh"
#include "core/plan.h"

/* the sliding window's kinds (filters-common.cuh) */
enum {
    FV_CU_FLT_AUTO = FV_CU_WIN_AUTO, /* correlation weights on the device: the kernels classify them */
    FV_CU_FLT_CORR = FV_CU_WIN_CORR,
    FV_CU_FLT_CORR_SYM = FV_CU_WIN_SYM,
    FV_CU_FLT_CORR_ANTI = FV_CU_WIN_ANTI,
    FV_CU_FLT_USUM = FV_CU_WIN_USUM,
    FV_CU_FLT_MIN = FV_CU_WIN_MIN,
    FV_CU_FLT_MAX = FV_CU_WIN_MAX
};

#define FV_CU_FLT_THREADS 256
#define FV_CU_FLT_MM_DIRECT 24 /* min/max windows up to this many taps: direct */
#define FV_CU_FLT_SMEM_BUDGET (160 * 1024)
#define FV_CU_FLT_WINLINE 128 /* correlation weights up to this many ride in the kernel parameters */

/* Line geometry in the kernel's index type (signed; byte strides). */
template <typename IT> struct fv_cu_flt_g1 {
    IT n, s_in, s_out;  /* axis length and strides */
    IT nc, c_in, c_out; /* cross extent and strides */
    int nb;             /* batch axes */
    IT bshape[FV_MAX_NDIM], bs_in[FV_MAX_NDIM], bs_out[FV_MAX_NDIM];
};

template <typename IT> struct fv_cu_flt_targs {
    const char *in;
    char *out;
    const double *w;   /* correlation weights on the device (size > FV_CU_FLT_WINLINE, or the caller's), or NULL */
    int64_t wst;       /* w's stride in elements (the caller's may be reversed or strided) */
    uint8_t *nanflags; /* min/max of float data: one byte per line, or NULL */
    const int *guard;  /* non-NULL: the kernels do nothing unless *guard != 0 */
    fv_cu_flt_g1<IT> g;
    IT left, size; /* output i reads [i - left, i - left + size) */
    IT ta;         /* outputs per tile along the axis */
    int tcl2;      /* log2(lines per tile) */
    int kind, mode, odt, dbl;
    int vec;   /* fv_k_flt_tile2: 16-byte loads for interior tiles (the layout allows them) */
    int vst;   /* fv_k_flt_tile2 ROW: 16-byte stores of whole lines (the layout and dtype allow them) */
    float chk; /* fv_k_flt_tile2, 8-bit data: the checked float path's bound (fv_d_win_check), or 0;
                               * -vmax: the kernel bounds device weights itself (fv_d_win_chk_dev) */
    double cval;
    int64_t nta, ntc, ntiles;     /* tiles along the axis, along the cross direction, in all */
    double wi[FV_CU_FLT_WINLINE]; /* the weights, when they fit here */
};

template <typename IT>
__device__ __forceinline__ void
fv_d_flt_batch_off(const fv_cu_flt_g1<IT> &g, IT b, IT &oi, IT &oo)
{
    oi = 0;
    oo = 0;
    for (int d = g.nb - 1; d >= 0; d--) {
        IT q = b / g.bshape[d];
        IT x = b - q * g.bshape[d];
        b = q;
        oi += x * g.bs_in[d];
        oo += x * g.bs_out[d];
    }
}

/* the shared tile's pitch of the register-blocked tile kernel (filter1d-tile.cu) */
#define FV_CU_FLT_PITCH 33

/* scipy's minimum/maximum_filter1d for flagged lines (float data with NaN):
 * R. Harter's ascending-minima deque over the extended line, as scipy runs it.
 * ring: `size` (value, death) pairs per thread. */
struct fv_cu_flt_pair {
    double v;
    int64_t death;
};

/* ==== host side =================================================================== */

typedef struct fv_cu_flt_geom {
    int64_t n, s_in, s_out, nc, c_in, c_out;
    int nb;
    int64_t bshape[FV_MAX_NDIM], bs_in[FV_MAX_NDIM], bs_out[FV_MAX_NDIM];
    int64_t nbatch;
    int row;
} fv_cu_flt_geom;


template <typename IT>
static inline void
fv_cu_flt_pack(fv_cu_flt_targs<IT> *t, const fv_cu_flt_geom *g)
{
    t->g.n = (IT)g->n;
    t->g.s_in = (IT)g->s_in;
    t->g.s_out = (IT)g->s_out;
    t->g.nc = (IT)g->nc;
    t->g.c_in = (IT)g->c_in;
    t->g.c_out = (IT)g->c_out;
    t->g.nb = g->nb;
    for (int d = 0; d < FV_MAX_NDIM; d++) {
        t->g.bshape[d] = d < g->nb ? (IT)g->bshape[d] : 1;
        t->g.bs_in[d] = d < g->nb ? (IT)g->bs_in[d] : 0;
        t->g.bs_out[d] = d < g->nb ? (IT)g->bs_out[d] : 0;
    }
}

/* What the launchers need beyond the params. */
typedef struct fv_cu_flt_job {
    const fv_array *in;
    fv_array *out;
    fv_cu_flt_geom g;
    int kind;
    int64_t size, left;
    int mode;
    double cval;
    const double *wdev; /* weights on the device (size > FV_CU_FLT_WINLINE, or the caller's) */
    int64_t wst;        /* wdev's stride in elements */
    const double *wh;   /* weights on the host */
    fv_array *wbuf;     /* owns wdev */
    const int *guard;   /* device flag: the kernels run only where it is set (FV__OP_SEP2's redo) */
    float chk;          /* the checked float path's bound (fv_cu_flt_float_checked), or 0; -vmax: device weights */
    fv_cu_exec x;
    fv_context *ctx;
    int device;
    size_t smem_optin;
} fv_cu_flt_job;

template <typename IT>
static inline void
fv_cu_flt_fill(fv_cu_flt_targs<IT> *t, const fv_cu_flt_job *j)
{
    memset(t, 0, sizeof *t);
    fv_cu_flt_pack(t, &j->g);
    t->in = j->in->data;
    t->out = j->out->data;
    t->guard = j->guard;
    t->w = j->wdev;
    t->wst = j->wdev ? j->wst : 1;
    if (!j->wdev && j->wh)
        for (int64_t k = 0; k < j->size && k < FV_CU_FLT_WINLINE; k++)
            t->wi[k] = j->wh[k];
    t->left = (IT)j->left;
    t->size = (IT)j->size;
    t->kind = j->kind;
    t->mode = j->mode;
    t->odt = (int)j->out->dtype;
    t->cval = j->cval;
    t->chk = j->chk;
}

static inline unsigned
fv_cu_flt_grid(int64_t work, int device, int per_sm)
{
    int64_t cap = (int64_t)fv__cuda_sm_count(device) * per_sm;
    if (work > cap)
        work = cap;
    return work < 1 ? 1u : (unsigned)work;
}

/* Tile plan: returns 0 when no tile fits shared memory. */
typedef struct fv_cu_flt_plan {
    int64_t ta;
    int tcl2;
    size_t smem;
    int dbl;
    int v2; /* the register-blocked kernel */
} fv_cu_flt_plan;

/* The (data, accumulator) type pairs fv_cu_flt_run1d_t runs, and the data types:
 * the launchers below are instantiated for these (filter1d-tile.cu, filter1d-line.cu). */
#define FV_CU_F1D_TYPES(X) \
    X(uint8_t) X(int8_t) X(uint16_t) X(int16_t) X(uint32_t) X(int32_t) X(uint64_t) X(int64_t) X(float) X(double)
/* clang-format off */
#define FV_CU_F1D_PAIRS(X)                                                                                           \
    X(uint8_t, double)                                                                                               \
    X(int8_t, double) X(uint16_t, double) X(int16_t, double) X(uint32_t, double) X(int32_t, double)                  \
        X(uint64_t, double) X(int64_t, double) X(float, double) X(double, double) X(uint8_t, float) X(int8_t, float) \
            X(uint16_t, float) X(int16_t, float) X(float, float)
/* clang-format on */

/* filter1d-tile.cu: the tile kernels (plan pl, fv_cu_flt_plan_tile; 32- or 64-bit index math) */
template <typename T, typename ACC, typename IT>
fv_status fv_cu_flt_launch_tile(const fv_cu_flt_job *j, const fv_cu_flt_plan *pl, uint8_t *nanflags);
/* filter1d-line.cu: one output per thread from global memory; scipy's running mean
 * (every line, or those flagged in nanflags when it is non-NULL); scipy's min/max
 * deque over the flagged lines (threads * size pairs of scratch) */
template <typename T, typename ACC> fv_status fv_cu_flt_launch_direct(const fv_cu_flt_job *j);
template <typename T>
fv_status fv_cu_flt_launch_serial(const fv_cu_flt_job *j, int64_t nlines, unsigned grid, uint8_t *nanflags);
template <typename T>
fv_status fv_cu_flt_launch_minmax_exact(const fv_cu_flt_job *j, int64_t nlines, uint8_t *nanflags, int64_t threads,
                                        fv_cu_flt_pair *scratch);

#endif
