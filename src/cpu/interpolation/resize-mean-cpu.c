/* CPU kernel of RESIZE_MEAN (src/ops/interpolation/resize-mean.h): output
 * elements in C order, in ranges over the thread pool, each the weighted sum
 * over its box (fv__rm_value, shared with the CUDA kernel). */
#include "internal.h"
#include "ops/interpolation/resize-mean.h"

typedef struct fv__rm_job {
    const fv__op_args *a;
    const fv__rmean_params *p;
} fv__rm_job;

static void
fv__rm_range(void *arg, int64_t begin, int64_t end)
{
    const fv__rm_job *j = (const fv__rm_job *)arg;
    const fv_array *in = j->a->in;
    fv_array *out = j->a->out;
    const int rank = out->ndim;
    int64_t o[FV_MAX_NDIM];
    int64_t r = begin;
    for (int d = rank - 1; d >= 0; d--) {
        o[d] = r % out->shape[d];
        r /= out->shape[d];
    }
    for (int64_t i = begin; i < end; i++) {
        char *po = (char *)out->data;
        for (int d = 0; d < rank; d++)
            po += o[d] * out->strides[d];
        const double t = fv__rm_value((const char *)in->data, in->dtype, rank, in->shape, in->strides, out->shape,
                                      o, j->p->grid_mode, j->p->f32_breaks);
        fv__im_store_plain(po, out->dtype, t);
        for (int d = rank - 1; d >= 0; d--) {
            if (++o[d] < out->shape[d])
                break;
            o[d] = 0;
        }
    }
}

static fv_status
fv__cpu_resize_mean(fv_context *ctx, const fv__op_args *a)
{
    fv__rm_job j = {a, fv__params_RESIZE_MEAN(a)};
    /* about 4096 input reads per task */
    const double per = (double)fv_array_size(a->in) / (double)fv_array_size(a->out) + 1.0;
    const int64_t grain = per >= 4096.0 ? 1 : (int64_t)(4096.0 / per);
    fv__parallel_for(ctx, fv_array_size(a->out), grain, fv__rm_range, &j);
    return FV_OK;
}
FV_KERNEL(RESIZE_MEAN, CPU, FV_DTYPES_REAL | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv__cpu_resize_mean);
