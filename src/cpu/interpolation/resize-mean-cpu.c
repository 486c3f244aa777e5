/* CPU kernel of RESIZE_MEAN (src/ops/interpolation/resize-mean.h): the axes'
 * boxes and weights tabulated once (fv__rm_axis_init, fv__rm_weight: the
 * functions the CUDA kernel runs per element), then output elements in C order,
 * in ranges over the thread pool, each summed by fv__rm_sum. */
#include <string.h>
#include "internal.h"
#include "alloc.h"
#include "ops/interpolation/resize-mean.h"

typedef struct fv__rm_job {
    const fv__op_args *a;
    int grid;
    fv__rm_axis *ax[FV_MAX_NDIM]; /* per axis, per output index */
    int64_t *woff[FV_MAX_NDIM];   /* where each output index's weights start in wts */
    double *wts;
} fv__rm_job;

static void
fv__rm_range(void *arg, int64_t begin, int64_t end)
{
    const fv__rm_job *j = (const fv__rm_job *)arg;
    const fv_array *in = j->a->in;
    fv_array *out = j->a->out;
    const int rank = out->ndim;
    int64_t o[FV_MAX_NDIM];
    fv__rm_axis ax[FV_MAX_NDIM];
    const double *w[FV_MAX_NDIM];
    int64_t r = begin;
    for (int d = rank - 1; d >= 0; d--) {
        o[d] = r % out->shape[d];
        r /= out->shape[d];
    }
    for (int64_t i = begin; i < end; i++) {
        char *po = (char *)out->data;
        for (int d = 0; d < rank; d++) {
            po += o[d] * out->strides[d];
            ax[d] = j->ax[d][o[d]];
            w[d] = j->wts + j->woff[d][o[d]];
        }
        fv__im_store_plain(po, out->dtype,
                           fv__rm_sum((const char *)in->data, in->dtype, rank, in->shape, in->strides, ax, w, j->grid));
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
    const fv__rmean_params *p = fv__params_RESIZE_MEAN(a);
    const int rank = a->out->ndim;
    fv__rm_job j;
    memset(&j, 0, sizeof j);
    j.a = a;
    j.grid = p->grid_mode;
    fv_status st = FV_OK;
    int64_t total = 0;
    for (int d = 0; d < rank; d++) {
        const int64_t m = a->in->shape[d], n = a->out->shape[d];
        j.ax[d] = fv__malloc(sizeof(fv__rm_axis) * (size_t)n);
        j.woff[d] = fv__malloc(sizeof(int64_t) * (size_t)n);
        if (!j.ax[d] || !j.woff[d]) {
            st = fv_error_set(FV_ENOMEM, "resize_local_mean", "out of host memory");
            goto done;
        }
        for (int64_t i = 0; i < n; i++) {
            fv__rm_axis_init(&j.ax[d][i], p->grid_mode, p->f32_breaks, m, n, i);
            j.woff[d][i] = total;
            total += j.ax[d][i].hi - j.ax[d][i].lo;
        }
    }
    if (!(j.wts = fv__malloc(sizeof(double) * (size_t)(total > 0 ? total : 1)))) {
        st = fv_error_set(FV_ENOMEM, "resize_local_mean", "out of host memory");
        goto done;
    }
    for (int d = 0; d < rank; d++)
        for (int64_t i = 0; i < a->out->shape[d]; i++) {
            const fv__rm_axis *ax = &j.ax[d][i];
            for (int64_t k = ax->lo; k < ax->hi; k++)
                j.wts[j.woff[d][i] + k - ax->lo] = fv__rm_weight(ax, p->grid_mode, a->in->shape[d], k);
        }
    /* about 4096 input reads per task */
    const double per = (double)fv_array_size(a->in) / (double)fv_array_size(a->out) + 1.0;
    fv__parallel_for(ctx, fv_array_size(a->out), per >= 4096.0 ? 1 : (int64_t)(4096.0 / per), fv__rm_range, &j);
done:
    for (int d = 0; d < rank; d++) {
        fv__free(j.ax[d]);
        fv__free(j.woff[d]);
    }
    fv__free(j.wts);
    return st;
}
FV_KERNEL(RESIZE_MEAN, CPU, FV_DTYPES_REAL | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv__cpu_resize_mean);
