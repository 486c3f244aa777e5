/* CPU kernel of SPLINE1D (src/ops/interpolation/spline.h): the lines of out
 * along the axis, in ranges over the thread pool; each line gathered into a
 * double buffer (through the padding), filtered by fv__im_prefilter_line and
 * stored back. */
#include <stdlib.h>
#include "internal.h"
#include "ops/interpolation/interp-math.h"
#include "ops/interpolation/spline.h"

typedef struct fv__spl_job {
    const fv__op_args *a;
    const fv__spline1d_params *p;
    int64_t n;        /* samples per line (out's extent along the axis) */
    int failed;
} fv__spl_job;

static void
fv__spl_range(void *arg, int64_t begin, int64_t end)
{
    fv__spl_job *j = (fv__spl_job *)arg;
    const fv_array *in = j->a->in;
    fv_array *out = j->a->out;
    const fv__spline1d_params *p = j->p;
    const int nd = out->ndim, ax = p->axis;
    const int64_t n = j->n, npad = p->npad;
    double *buf = (double *)malloc((size_t)n * sizeof(double));
    if (!buf) {
        j->failed = 1;
        return;
    }
    for (int64_t line = begin; line < end; line++) {
        /* the line's index on the other axes (out's coordinates) */
        int64_t idx[FV_MAX_NDIM], r = line;
        for (int d = nd - 1; d >= 0; d--) {
            if (d == ax) {
                idx[d] = 0;
                continue;
            }
            idx[d] = r % out->shape[d];
            r /= out->shape[d];
        }
        char *po = (char *)out->data;
        for (int d = 0; d < nd; d++)
            po += idx[d] * out->strides[d];
        /* gather: out position q reads in at q - npad (clamped, or the pad value) */
        const char *pi = (const char *)in->data;
        int pad_line = 0;
        for (int d = 0; d < nd; d++) {
            if (d == ax)
                continue;
            int64_t q = idx[d] - npad;
            if (q < 0 || q >= in->shape[d]) {
                if (p->pad_constant)
                    pad_line = 1;
                q = q < 0 ? 0 : in->shape[d] - 1;
            }
            pi += q * in->strides[d];
        }
        const int64_t nin = in->shape[ax], sin = in->strides[ax];
        for (int64_t q = 0; q < n; q++) {
            int64_t s = q - npad;
            if (pad_line || ((s < 0 || s >= nin) && p->pad_constant)) {
                buf[q] = p->pad_value;
                continue;
            }
            s = s < 0 ? 0 : s >= nin ? nin - 1 : s;
            buf[q] = fv__im_load(pi + s * sin, in->dtype);
        }
        if (n > 1 && p->order >= 2)
            fv__im_prefilter_line(buf, 1, n, p->order, p->mode);
        const int64_t so = out->strides[ax];
        for (int64_t q = 0; q < n; q++)
            fv__im_store_plain(po + q * so, out->dtype, buf[q]);
    }
    free(buf);
}

static fv_status
fv__cpu_spline1d(fv_context *ctx, const fv__op_args *a)
{
    const fv__spline1d_params *p = fv__params_SPLINE1D(a);
    fv__spl_job j = {a, p, a->out->shape[p->axis], 0};
    const int64_t total = fv_array_size(a->out);
    if (total == 0 || j.n == 0)
        return FV_OK;
    const int64_t lines = total / j.n;
    fv__parallel_for(ctx, lines, 1 + 65536 / (j.n * 8 + 1), fv__spl_range, &j);
    if (j.failed)
        return fv_error_set(FV_ENOMEM, "spline_filter1d", "out of memory for a line buffer");
    return FV_OK;
}
FV_KERNEL(SPLINE1D, CPU, FV_DTYPES_REAL | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv__cpu_spline1d);
