/* CUDA kernel of RESIZE_MEAN (src/ops/interpolation/resize-mean.h): one thread
 * per output element (grid-stride), its box summed by fv__rm_value, the
 * function the CPU kernel runs. */
#include "cuda/common.cuh"
#include "ops/interpolation/resize-mean.h"

/* The arrays' geometry, by value. */
typedef struct fv_cu_rm_geom {
    int rank, idtype, odtype;
    int64_t ishape[FV_MAX_NDIM], istrides[FV_MAX_NDIM];
    int64_t oshape[FV_MAX_NDIM], ostrides[FV_MAX_NDIM];
} fv_cu_rm_geom;

__global__ void
fv_k_resize_mean(const char *in, char *out, int64_t n, fv_cu_rm_geom g, fv__rmean_params p)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        int64_t o[FV_MAX_NDIM];
        int64_t r = i, po = 0;
        for (int d = g.rank - 1; d >= 0; d--) {
            o[d] = r % g.oshape[d];
            r /= g.oshape[d];
            po += o[d] * g.ostrides[d];
        }
        const double t =
            fv__rm_value(in, g.idtype, g.rank, g.ishape, g.istrides, g.oshape, o, p.grid_mode, p.f32_breaks);
        fv__im_store_plain(out + po, g.odtype, t);
    }
}

static fv_status
fv_cu_resize_mean(fv_context *ctx, const fv__op_args *a)
{
    const int64_t n = fv_array_size(a->out);
    fv_cu_rm_geom g;
    memset(&g, 0, sizeof g);
    g.rank = a->out->ndim;
    g.idtype = a->in->dtype;
    g.odtype = a->out->dtype;
    for (int d = 0; d < g.rank; d++) {
        g.ishape[d] = a->in->shape[d];
        g.istrides[d] = a->in->strides[d];
        g.oshape[d] = a->out->shape[d];
        g.ostrides[d] = a->out->strides[d];
    }
    if (n == 0)
        return FV_OK;
    fv_cu_exec x;
    fv_status st = fv_cu_begin(ctx, "resize_local_mean", a, n, &x);
    if (st != FV_OK)
        return st;
    fv_k_resize_mean<<<x.grid, x.block, 0, x.stream>>>((const char *)a->in->data, (char *)a->out->data, n, g,
                                                       *fv__params_RESIZE_MEAN(a));
    st = fv_cu_launch_status("resize_local_mean kernel launch");
    fv_cu_end(&x);
    return st;
}
FV_KERNEL(RESIZE_MEAN, CUDA, FV_DTYPES_REAL | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv_cu_resize_mean);
