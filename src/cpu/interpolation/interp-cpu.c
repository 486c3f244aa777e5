/* CPU kernel of INTERP (src/ops/interpolation/interp.h): output elements in C
 * order, in ranges over the thread pool; each element's coordinates, window and
 * weights computed on the spot by interp-math.h (the CUDA kernel runs the same
 * functions). */
#include "internal.h"
#include "ops/interpolation/interp.h"

typedef double (*fv__im_value_fn)(const char *, int, const int64_t *, const int64_t *, const double *, int, int,
                                  double);

typedef struct fv__im_job {
    const fv__op_args *a;
    const fv__interp_params *p;
    fv__im_value_fn value;
} fv__im_job;

static void
fv__im_range(void *arg, int64_t begin, int64_t end)
{
    const fv__im_job *j = (const fv__im_job *)arg;
    const fv_array *in = j->a->in, *co = j->a->in2;
    fv_array *out = j->a->out;
    const fv__interp_params *p = j->p;
    const int orank = out->ndim, irank = in->ndim;
    int64_t o[FV_MAX_NDIM];
    double c[FV_MAX_NDIM];
    /* the index of element `begin` */
    int64_t r = begin;
    for (int d = orank - 1; d >= 0; d--) {
        o[d] = r % out->shape[d];
        r /= out->shape[d];
    }
    for (int64_t i = begin; i < end; i++) {
        char *po = (char *)out->data;
        const char *pc = NULL;
        for (int d = 0; d < orank; d++)
            po += o[d] * out->strides[d];
        if (co) {
            pc = (const char *)co->data;
            for (int d = 0; d < orank; d++)
                pc += o[d] * co->strides[d + 1];
        }
        fv__interp_coords(p, irank, orank, o, pc, co ? co->strides[0] : 0, co ? co->dtype : 0, c);
        const double t = j->value((const char *)in->data, irank, in->shape, in->strides, c, p->order, p->mode,
                                  p->cval);
        fv__im_store(po, out->dtype, t);
        for (int d = orank - 1; d >= 0; d--) {
            if (++o[d] < out->shape[d])
                break;
            o[d] = 0;
        }
    }
}

static fv_status
fv__cpu_interp(fv_context *ctx, const fv__op_args *a)
{
    fv__im_job j = {a, fv__params_INTERP(a), NULL};
    switch (a->in->dtype) {
#define FV__IM_CASE(E, T, S) case E: j.value = fv__im_value_##S; break;
        FV_FOREACH_DTYPE(FV__IM_CASE)
#undef FV__IM_CASE
    default: return fv_error_set(FV_EDTYPE, "interpolate", "unsupported dtype");
    }
    const int64_t taps = (int64_t)1 << (a->in->ndim > 20 ? 20 : a->in->ndim);
    const int64_t grain = (int64_t)4096 / (taps * (j.p->order + 1) > 64 ? 64 : taps * (j.p->order + 1)) + 16;
    fv__parallel_for(ctx, fv_array_size(a->out), grain, fv__im_range, &j);
    return FV_OK;
}
FV_KERNEL(INTERP, CPU, FV_DTYPES_REAL | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv__cpu_interp);
