/* Shared by the n-d filter kernels (filternd.cu: correlate, minimum, maximum;
 * filternd-rank.cu: rank). One output point per thread, in C order; interior
 * points (the whole window inside the array) read in + base + offset[j], points
 * near the border extend every coordinate by the mode.
 *
 * Window tables, built once per call on the host and copied to the device in
 * one piece: for each selected element j (C order of the window): its byte
 * offset in the input, its weight / structure value (double), the structure
 * value cast to the input type (min/max), its per-axis displacement. */
#ifndef FV_CUDA_FILTERND_COMMON_CUH
#define FV_CUDA_FILTERND_COMMON_CUH

#include <stdlib.h>
#include "filters-common.cuh"

#define FV_CU_FLT_ND_THREADS 256

template <typename IT> struct fv_cu_flt_ndg {
    int ndim;
    IT size; /* output points */
    IT shape[FV_MAX_NDIM], s_in[FV_MAX_NDIM], s_out[FV_MAX_NDIM];
    IT dmin[FV_MAX_NDIM], dmax[FV_MAX_NDIM]; /* displacement range per axis */
};

typedef struct fv_cu_flt_ndtab {
    const int64_t *off;   /* count */
    const double *w;      /* count: weights, or the structure (negated for minimum) */
    const uint64_t *st;   /* count: structure cast to the input type (bits) */
    const int32_t *delta; /* count * ndim */
} fv_cu_flt_ndtab;

template <typename IT> struct fv_cu_flt_ndargs {
    const char *in;
    char *out;
    fv_cu_flt_ndg<IT> g;
    fv_cu_flt_ndtab t;
    int64_t count, rank;
    int mode, odt, mn, has_st;
    double cval;
    uint8_t *flags; /* rank of float data, large windows: points with NaN */
};

/* Coordinates and offsets of output point i; returns 1 when the window is inside. */
template <typename IT>
__device__ __forceinline__ bool
fv_d_flt_nd_point(const fv_cu_flt_ndg<IT> &g, IT i, IT *c, IT &oi, IT &oo)
{
    bool inside = true;
    oi = 0;
    oo = 0;
#pragma unroll
    for (int d = FV_MAX_NDIM - 1; d >= 0; d--) {
        if (d < g.ndim) {
            IT n = g.shape[d];
            IT q = i / n;
            IT x = i - q * n;
            i = q;
            c[d] = x;
            oi += x * g.s_in[d];
            oo += x * g.s_out[d];
            inside = inside && x + g.dmin[d] >= 0 && x + g.dmax[d] < n;
        }
    }
    return inside;
}

/* Byte offset of window element j at a border point, or -1 past a constant edge. */
template <typename IT>
__device__ __forceinline__ bool
fv_d_flt_nd_border(const fv_cu_flt_ndg<IT> &g, const int32_t *delta, int64_t j, const IT *c, int mode, IT &off)
{
    off = 0;
    const int32_t *dj = delta + j * g.ndim;
#pragma unroll
    for (int d = 0; d < FV_MAX_NDIM; d++) {
        if (d < g.ndim) {
            IT q = fv_d_flt_extend<IT>(c[d] + (IT)__ldg(dj + d), g.shape[d], mode);
            if (q < 0)
                return false;
            off += q * g.s_in[d];
        }
    }
    return true;
}

/* t + w * x of the correlation sums: in double with the product and the sum
 * rounded separately (scipy's bits); in float (float32 outputs of float32 and
 * 8/16-bit data) fused, as nvcc contracted the float t + w * x before this was
 * spelled out (fma.rn.f32 in every float instantiation). The generic and the
 * tiled kernels share it, so that their bits agree. */
__device__ __forceinline__ double
fv_d_flt_nd_madd(double t, double w, double x)
{
    return __dadd_rn(t, __dmul_rn(w, x));
}

__device__ __forceinline__ float
fv_d_flt_nd_madd(float t, float w, float x)
{
    return __fmaf_rn(w, x, t);
}

/* Host: the window tables and geometry. kind: fv__filternd_kind. */
typedef struct fv_cu_flt_ndprep {
    int ndim;
    int64_t count;
    int64_t shape[FV_MAX_NDIM], s_in[FV_MAX_NDIM], s_out[FV_MAX_NDIM];
    int64_t dmin[FV_MAX_NDIM], dmax[FV_MAX_NDIM];
    int64_t *off; /* host copies, count each */
    double *w;
    int32_t *delta;
} fv_cu_flt_ndprep;

static inline void
fv_cu_flt_ndprep_free(fv_cu_flt_ndprep *p)
{
    free(p->off);
    free(p->w);
    free(p->delta);
    p->off = NULL;
    p->w = NULL;
    p->delta = NULL;
}

static inline fv_status
fv_cu_flt_ndprep_init(fv_cu_flt_ndprep *p, const fv__filternd_params *f, const fv_array *in, const fv_array *out,
                      const char *dom)
{
    int nd = in->ndim > 0 ? in->ndim : 1;
    int64_t fsize = 1, fs[FV_MAX_NDIM], org[FV_MAX_NDIM];
    memset(p, 0, sizeof *p);
    p->ndim = nd;
    for (int d = 0; d < nd; d++) {
        p->shape[d] = in->ndim > 0 ? in->shape[d] : 1;
        p->s_in[d] = in->ndim > 0 ? in->strides[d] : 0;
        p->s_out[d] = in->ndim > 0 ? out->strides[d] : 0;
        fs[d] = in->ndim > 0 ? f->fshape[d] : 1;
        org[d] = in->ndim > 0 ? f->origins[d] : 0;
        if (fs[d] < 1 || fs[d] > INT32_MAX / 4)
            return fv_error_set(FV_EINVAL, dom, "window extent %lld out of range", (long long)fs[d]);
        if (fs[d] / 2 + org[d] < 0 || fs[d] / 2 + org[d] >= fs[d])
            return fv_error_set(FV_EINVAL, dom, "origin %lld out of range for extent %lld", (long long)org[d],
                                (long long)fs[d]);
        if (fsize > INT64_MAX / fs[d] / nd)
            return fv_error_set(FV_EINVAL, dom, "window too large");
        fsize *= fs[d];
        p->dmin[d] = INT64_MAX;
        p->dmax[d] = INT64_MIN;
    }
    int64_t count = 0;
    for (int64_t j = 0; j < fsize; j++) {
        if (f->footprint && !f->footprint[j])
            continue;
        if (f->kind == FV__FND_CORRELATE && !(fabs(f->weights[j]) > DBL_EPSILON))
            continue; /* scipy's correlate skips |w| <= DBL_EPSILON */
        count++;
    }
    if (count < 1)
        return fv_error_set(FV_EINVAL, dom, "the window selects no element");
    if (f->kind == FV__FND_RANK && (f->rank < 0 || f->rank >= count))
        return fv_error_set(FV_EINVAL, dom, "rank %lld out of range for %lld elements", (long long)f->rank,
                            (long long)count);
    p->off = (int64_t *)malloc((size_t)count * sizeof(int64_t));
    p->w = (double *)malloc((size_t)count * sizeof(double));
    p->delta = (int32_t *)malloc((size_t)count * (size_t)nd * sizeof(int32_t));
    if (!p->off || !p->w || !p->delta) {
        fv_cu_flt_ndprep_free(p);
        return fv_error_set(FV_ENOMEM, dom, "out of host memory for %lld window elements", (long long)count);
    }
    int64_t k = 0;
    for (int64_t j = 0; j < fsize; j++) {
        if (f->footprint && !f->footprint[j])
            continue;
        if (f->kind == FV__FND_CORRELATE && !(fabs(f->weights[j]) > DBL_EPSILON))
            continue;
        int64_t r = j, off = 0;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t x = r % fs[d];
            r /= fs[d];
            int64_t dd = x - fs[d] / 2 - org[d];
            p->delta[k * nd + d] = (int32_t)dd;
            if (dd < p->dmin[d])
                p->dmin[d] = dd;
            if (dd > p->dmax[d])
                p->dmax[d] = dd;
            off += dd * p->s_in[d];
        }
        p->off[k] = off;
        if (f->kind == FV__FND_CORRELATE)
            p->w[k] = f->weights[j];
        else if (f->weights)
            p->w[k] = f->kind == FV__FND_MINIMUM ? -f->weights[j] : f->weights[j];
        else
            p->w[k] = 0.0;
        k++;
    }
    p->count = count;
    return FV_OK;
}

/* 32-bit index math when every offset and count fits. */
static inline int
fv_cu_flt_nd_fits32(const fv_cu_flt_ndprep *p, const fv_array *in, const fv_array *out)
{
    if (fv_array_size(out) > INT32_MAX / 2 || fv_cu_flt_extent(in) > INT32_MAX / 2 ||
        fv_cu_flt_extent(out) > INT32_MAX / 2)
        return 0;
    for (int d = 0; d < p->ndim; d++) {
        int64_t m = p->dmin[d] < 0 ? -p->dmin[d] : p->dmin[d];
        int64_t M = p->dmax[d] < 0 ? -p->dmax[d] : p->dmax[d];
        if (2 * p->shape[d] + m + M > INT32_MAX / 2)
            return 0;
    }
    return 1;
}

template <typename IT>
static inline void
fv_cu_flt_nd_pack(fv_cu_flt_ndg<IT> *g, const fv_cu_flt_ndprep *p, int64_t size)
{
    memset(g, 0, sizeof *g);
    g->ndim = p->ndim;
    g->size = (IT)size;
    for (int d = 0; d < FV_MAX_NDIM; d++) {
        int on = d < p->ndim;
        g->shape[d] = on ? (IT)p->shape[d] : 1;
        g->s_in[d] = on ? (IT)p->s_in[d] : 0;
        g->s_out[d] = on ? (IT)p->s_out[d] : 0;
        g->dmin[d] = on ? (IT)p->dmin[d] : 0;
        g->dmax[d] = on ? (IT)p->dmax[d] : 0;
    }
}

/* What the rank launcher needs (filternd-rank.cu). */
typedef struct fv_cu_flt_ndjob {
    fv_context *ctx;
    int device;
    cudaStream_t stream;
    const fv_array *in;
    fv_array *out;
    const fv_cu_flt_ndprep *prep;
    fv_cu_flt_ndtab tab;
    int fits32;
    int64_t rank;
    int mode;
    double cval;
} fv_cu_flt_ndjob;

/* The 2-D geometry every tiled kernel's arguments carry (fields in, out, h, w,
 * dy, dx, sy_in, sx_in, sy_out, sx_out, mode, odt), from job j and its prep p:
 * byte strides, 0 along an axis of 1. */
#define FV_CU_FLT_TILE2D_FILL(a, j, p)                           \
    do {                                                         \
        (a).in = (const char *)(j)->in->data;                    \
        (a).out = (char *)(j)->out->data;                        \
        (a).h = (int)(p)->shape[0];                              \
        (a).w = (int)(p)->shape[1];                              \
        (a).dy = (int)(p)->dmin[0];                              \
        (a).dx = (int)(p)->dmin[1];                              \
        (a).sy_in = (p)->shape[0] > 1 ? (int)(p)->s_in[0] : 0;   \
        (a).sx_in = (p)->shape[1] > 1 ? (int)(p)->s_in[1] : 0;   \
        (a).sy_out = (p)->shape[0] > 1 ? (int)(p)->s_out[0] : 0; \
        (a).sx_out = (p)->shape[1] > 1 ? (int)(p)->s_out[1] : 0; \
        (a).mode = (j)->mode;                                    \
        (a).odt = (int)(j)->out->dtype;                          \
    } while (0)

/* A 2-D tiled kernel's block (BX x BY threads) loads its tile and halo, SH rows of
 * SW values from row y0 + a.dy and column x0 + a.dx, into s (rows SW apart), the
 * mode applied per axis: cv outside a constant edge, else conv(the value of T). */
template <typename T, int BX, int BY, int SH, int SW, typename S, typename A, typename F>
__device__ __forceinline__ void
fv_d_flt_tile2d_load(S *s, const A &a, int x0, int y0, S cv, F conv)
{
    for (int sy = (int)threadIdx.y; sy < SH; sy += BY) {
        const int iy = fv_d_flt_extend<int>(y0 + a.dy + sy, a.h, a.mode);
        const char *row = a.in + (iy < 0 ? 0 : iy) * a.sy_in;
        for (int sx = (int)threadIdx.x; sx < SW; sx += BX) {
            const int ix = iy < 0 ? -1 : fv_d_flt_extend<int>(x0 + a.dx + sx, a.w, a.mode);
            s[sy * SW + sx] = ix < 0 ? cv : conv(__ldg((const T *)(row + ix * a.sx_in)));
        }
    }
}

/* The box side K (3, 5, 7, 9 or 11) of a 2-D tiled kernel whose tiles are th rows
 * by bx columns, or 0 where the generic kernel runs: not 2-d, 64-bit index math,
 * a span of the selected displacements over kmax on an axis, more tile rows than
 * a grid holds. */
static inline int
fv_cu_flt_tile2d_k(const fv_cu_flt_ndjob *j, int kmax, int th, int bx)
{
    const fv_cu_flt_ndprep *p = j->prep;
    if (p->ndim != 2 || j->in->ndim != 2 || !j->fits32)
        return 0;
    int64_t m = p->dmax[0] - p->dmin[0] + 1, m1 = p->dmax[1] - p->dmin[1] + 1;
    if (m1 > m)
        m = m1;
    if (m < 1 || m > kmax)
        return 0;
    if ((p->shape[0] + th - 1) / th > 65535 || (p->shape[1] + bx - 1) / bx > INT32_MAX)
        return 0;
    return m <= 3 ? 3 : m <= 5 ? 5 : m <= 7 ? 7 : m <= 9 ? 9 : 11;
}

/* The same for the 3-D tiled kernels' arguments (32-bit, axes z, y, x). */
#define FV_CU_FLT_TILE3D_FILL(a, j, p)                           \
    do {                                                         \
        (a).in = (const char *)(j)->in->data;                    \
        (a).out = (char *)(j)->out->data;                        \
        (a).d = (int)(p)->shape[0];                              \
        (a).h = (int)(p)->shape[1];                              \
        (a).w = (int)(p)->shape[2];                              \
        (a).dz = (int)(p)->dmin[0];                              \
        (a).dy = (int)(p)->dmin[1];                              \
        (a).dx = (int)(p)->dmin[2];                              \
        (a).sz_in = (p)->shape[0] > 1 ? (int)(p)->s_in[0] : 0;   \
        (a).sy_in = (p)->shape[1] > 1 ? (int)(p)->s_in[1] : 0;   \
        (a).sx_in = (p)->shape[2] > 1 ? (int)(p)->s_in[2] : 0;   \
        (a).sz_out = (p)->shape[0] > 1 ? (int)(p)->s_out[0] : 0; \
        (a).sy_out = (p)->shape[1] > 1 ? (int)(p)->s_out[1] : 0; \
        (a).sx_out = (p)->shape[2] > 1 ? (int)(p)->s_out[2] : 0; \
        (a).mode = (j)->mode;                                    \
        (a).odt = (int)(j)->out->dtype;                          \
    } while (0)

/* The generic rank kernels (after the tables are on the device). */
fv_status fv_cu_flt_rank_run(fv_cu_flt_ndjob *j);
/* The tiled rank kernels (no device tables), or FV_ENOKERNEL where they do not apply. */
fv_status fv_cu_flt_rank_tile_run(const fv_cu_flt_ndjob *j);
/* The tiled 2-D correlation (filternd-corr.cu), or FV_ENOKERNEL where it does not apply. */
fv_status fv_cu_flt_corr_tile_run(const fv_cu_flt_ndjob *j, int accf);
/* The tiled 2-D flat minimum / maximum (filternd-minmax.cu), or FV_ENOKERNEL where it does not apply. */
fv_status fv_cu_flt_minmax_tile_run(const fv_cu_flt_ndjob *j, int mn, int has_st);
/* The tiled 3-D correlation (filternd-corr3d.cu), or FV_ENOKERNEL where it does not apply. */
fv_status fv_cu_flt_corr3d_run(const fv_cu_flt_ndjob *j, int accf);
/* Where the tiled kernels apply (the variants' supports, filternd.cu): the box
 * side, or 0 / 1 (fv_cu_flt_rank_tile3_ok). */
int fv_cu_flt_corr_tile_k(const fv_cu_flt_ndjob *j);
int fv_cu_flt_corr3d_k(const fv_cu_flt_ndjob *j);
int fv_cu_flt_minmax_tile_k(const fv_cu_flt_ndjob *j, int has_st);
int fv_cu_flt_rank_tile_k(const fv_cu_flt_ndjob *j);
int fv_cu_flt_rank_tile3_ok(const fv_cu_flt_ndjob *j);

static inline unsigned
fv_cu_flt_nd_grid(int64_t n, int device)
{
    int64_t blocks = (n + FV_CU_FLT_ND_THREADS - 1) / FV_CU_FLT_ND_THREADS;
    int64_t cap = (int64_t)fv__cuda_sm_count(device) * 16;
    if (blocks > cap)
        blocks = cap;
    return blocks < 1 ? 1u : (unsigned)blocks;
}

#endif
