/* CUDA kernel of INTERP (src/ops/interpolation/interp.h): one thread per
 * output element (grid-stride), its coordinates, window and weights computed
 * on the fly by the same functions as the CPU kernel (interp-math.h; built
 * with -fmad=false, so both backends round alike). */
#include "cuda/common.cuh"
#include "ops/interpolation/interp.h"

/* The arrays' geometry, by value. */
typedef struct fv_cu_im_geom {
    int irank, orank, idtype, odtype, cdtype;
    int64_t ishape[FV_MAX_NDIM], istrides[FV_MAX_NDIM];
    int64_t oshape[FV_MAX_NDIM], ostrides[FV_MAX_NDIM];
    int64_t cstrides[FV_MAX_NDIM]; /* coordinates (COORDS): orank + 1 strides */
} fv_cu_im_geom;

#define FV_CU_IM(E, T, S)                                                                                     \
    __global__ void fv_k_interp_##S(const char *in, const char *co, char *out, int64_t n, fv_cu_im_geom g,    \
                                    fv__interp_params p)                                                      \
    {                                                                                                         \
        FV_GRID_STRIDE(int64_t, i, n) {                                                                       \
            int64_t o[FV_MAX_NDIM];                                                                           \
            double c[FV_MAX_NDIM];                                                                            \
            int64_t r = i, po = 0, pc = 0;                                                                    \
            for (int d = g.orank - 1; d >= 0; d--) {                                                          \
                o[d] = r % g.oshape[d];                                                                       \
                r /= g.oshape[d];                                                                             \
                po += o[d] * g.ostrides[d];                                                                   \
                pc += o[d] * g.cstrides[d + 1];                                                               \
            }                                                                                                 \
            fv__interp_coords(&p, g.irank, g.orank, o, co ? co + pc : NULL, g.cstrides[0], g.cdtype, c);      \
            const double t = fv__im_value_##S(in, g.irank, g.ishape, g.istrides, c, p.order, p.mode, p.cval); \
            fv__im_store(out + po, g.odtype, t);                                                              \
        }                                                                                                     \
    }
FV_FOREACH_DTYPE(FV_CU_IM)
#undef FV_CU_IM

static fv_status
fv_cu_interp(fv_context *ctx, const fv__op_args *a)
{
    const int64_t n = fv_array_size(a->out);
    const fv__interp_params *p = fv__params_INTERP(a);
    fv_cu_im_geom g;
    memset(&g, 0, sizeof g);
    g.irank = a->in->ndim;
    g.orank = a->out->ndim;
    g.idtype = a->in->dtype;
    g.odtype = a->out->dtype;
    g.cdtype = a->in2 ? a->in2->dtype : 0;
    for (int d = 0; d < g.irank; d++) {
        g.ishape[d] = a->in->shape[d];
        g.istrides[d] = a->in->strides[d];
    }
    for (int d = 0; d < g.orank; d++) {
        g.oshape[d] = a->out->shape[d];
        g.ostrides[d] = a->out->strides[d];
    }
    if (a->in2)
        for (int d = 0; d < a->in2->ndim; d++)
            g.cstrides[d] = a->in2->strides[d];
    if (n == 0)
        return FV_OK;
    fv_cu_exec x;
    fv_status st = fv_cu_begin(ctx, "interpolate", a, n, &x);
    if (st != FV_OK)
        return st;
    const char *in = (const char *)a->in->data;
    const char *co = a->in2 ? (const char *)a->in2->data : NULL;
    char *out = (char *)a->out->data;
    switch (a->in->dtype) {
#define FV_CU_IM_CASE(E, T, S)                                                    \
    case E:                                                                       \
        fv_k_interp_##S<<<x.grid, x.block, 0, x.stream>>>(in, co, out, n, g, *p); \
        break;
        FV_FOREACH_DTYPE(FV_CU_IM_CASE)
#undef FV_CU_IM_CASE
    default:
        break;
    }
    st = fv_cu_launch_status("interpolate kernel launch");
    fv_cu_end(&x);
    return st;
}
FV_KERNEL(INTERP, CUDA, FV_DTYPES_REAL | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv_cu_interp);
