/* CUDA kernel of SPLINE1D (src/ops/interpolation/spline.h): one thread per
 * line of out along the axis (adjacent threads take adjacent lines, so the
 * reads and writes of a warp coalesce when the axis is not the last one). A
 * float64 out is filtered in place in its own line; other dtypes go through a
 * float64 scratch buffer of out's size. The filter is interp-math.h's, as on
 * the CPU. */
#include "cuda/common.cuh"
#include "ops/interpolation/interp-math.h"
#include "ops/interpolation/spline.h"

typedef struct fv_cu_spl_geom {
    int ndim, axis, idtype, odtype;
    int64_t ishape[FV_MAX_NDIM], istrides[FV_MAX_NDIM];
    int64_t oshape[FV_MAX_NDIM], ostrides[FV_MAX_NDIM];
} fv_cu_spl_geom;

__global__ void
fv_k_spline1d(const char *in, char *out, double *scratch, int64_t lines, fv_cu_spl_geom g, fv__spline1d_params p)
{
    FV_GRID_STRIDE(int64_t, line, lines) {
        const int ax = g.axis;
        const int64_t n = g.oshape[ax];
        int64_t idx[FV_MAX_NDIM], r = line;
        for (int d = g.ndim - 1; d >= 0; d--) {
            if (d == ax) {
                idx[d] = 0;
                continue;
            }
            idx[d] = r % g.oshape[d];
            r /= g.oshape[d];
        }
        char *po = out;
        const char *pi = in;
        int pad_line = 0;
        for (int d = 0; d < g.ndim; d++) {
            po += idx[d] * g.ostrides[d];
            if (d == ax)
                continue;
            int64_t q = idx[d] - p.npad;
            if (q < 0 || q >= g.ishape[d]) {
                if (p.pad_constant)
                    pad_line = 1;
                q = q < 0 ? 0 : g.ishape[d] - 1;
            }
            pi += q * g.istrides[d];
        }
        double *buf;
        int64_t bs;
        if (scratch) {
            buf = scratch + line * n;
            bs = 1;
        } else {
            buf = (double *)po;
            bs = g.ostrides[ax] / (int64_t)sizeof(double);
        }
        const int64_t nin = g.ishape[ax], sin = g.istrides[ax];
        for (int64_t q = 0; q < n; q++) {
            int64_t s = q - p.npad;
            double v;
            if (pad_line || ((s < 0 || s >= nin) && p.pad_constant)) {
                v = p.pad_value;
            } else {
                s = s < 0 ? 0 : s >= nin ? nin - 1 : s;
                v = fv__im_load(pi + s * sin, g.idtype);
            }
            buf[q * bs] = v;
        }
        if (n > 1 && p.order >= 2)
            fv__im_prefilter_line(buf, bs, n, p.order, p.mode);
        if (scratch) {
            const int64_t so = g.ostrides[ax];
            for (int64_t q = 0; q < n; q++)
                fv__im_store_plain(po + q * so, g.odtype, buf[q]);
        }
    }
}

static fv_status
fv_cu_spline1d(fv_context *ctx, const fv__op_args *a)
{
    const fv__spline1d_params *p = fv__params_SPLINE1D(a);
    const int64_t total = fv_array_size(a->out);
    const int64_t n = a->out->shape[p->axis];
    if (total == 0 || n == 0)
        return FV_OK;
    const int64_t lines = total / n;
    fv_cu_spl_geom g;
    memset(&g, 0, sizeof g);
    g.ndim = a->out->ndim;
    g.axis = p->axis;
    g.idtype = a->in->dtype;
    g.odtype = a->out->dtype;
    for (int d = 0; d < g.ndim; d++) {
        g.ishape[d] = a->in->shape[d];
        g.istrides[d] = a->in->strides[d];
        g.oshape[d] = a->out->shape[d];
        g.ostrides[d] = a->out->strides[d];
    }
    /* in place in out when it holds aligned doubles along the axis */
    const int direct = a->out->dtype == FV_FLOAT64 && g.ostrides[p->axis] % (int64_t)sizeof(double) == 0 &&
        ((uintptr_t)a->out->data % sizeof(double)) == 0;
    fv_cu_exec x;
    fv_status st = fv_cu_begin(ctx, "spline_filter1d", a, lines, &x);
    if (st != FV_OK)
        return st;
    void *scratch = NULL, *sopaque = NULL;
    if (!direct && (st = fv__cuda_alloc(ctx, x.device, (size_t)total * sizeof(double), &scratch, &sopaque))) {
        fv_cu_end(&x);
        return st;
    }
    fv_k_spline1d<<<x.grid, x.block, 0, x.stream>>>((const char *)a->in->data, (char *)a->out->data, (double *)scratch,
                                                    lines, g, *p);
    st = fv_cu_launch_status("spline_filter1d kernel launch");
    if (scratch)
        fv__cuda_free(scratch, sopaque);
    fv_cu_end(&x);
    return st;
}
FV_KERNEL(SPLINE1D, CUDA, FV_DTYPES_REAL | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv_cu_spline1d);
