/* CPU kernel of SPLINE1D (src/ops/interpolation/spline.h): the lines of out
 * along the axis, in ranges over the thread pool; each line gathered into a
 * double buffer (through the padding), filtered by fv__im_prefilter_line and
 * stored back. */
#include <stdlib.h>
#include "internal.h"
#include "ops/interpolation/interp-math.h"
#include "ops/interpolation/spline.h"
#include "cpu/filters/filters-cpu.h" /* fv__cpu_avx2 */

typedef struct fv__spl_job {
    const fv__op_args *a;
    const fv__spline1d_params *p;
    int64_t n; /* samples per line (out's extent along the axis) */
    int avx2;
    int failed;
} fv__spl_job;

/* FV__IM_LANES lines filtered in lock step (sample i of line l at buf[i * LANES + l]). */
static void
fv__spl_filter(double *buf, int64_t n, int order, int mode)
{
    fv__im_prefilter_lanes(buf, FV__IM_LANES, FV__IM_LANES, n, order, mode);
}
#if FV__HAVE_AVX2_CLONES
__attribute__((target("avx2"))) static void
fv__spl_filter_avx2(double *buf, int64_t n, int order, int mode)
{
    fv__im_prefilter_lanes(buf, FV__IM_LANES, FV__IM_LANES, n, order, mode);
}
#endif

/* Line `line` of out along the axis: its first element *po, and in's element
 * *pi it reads at padded position npad (*pad_line: the whole line is padding). */
static void
fv__spl_line(const fv__spl_job *j, int64_t line, char **po, const char **pi, int *pad_line)
{
    const fv_array *in = j->a->in, *out = j->a->out;
    const fv__spline1d_params *p = j->p;
    const int nd = out->ndim, ax = p->axis;
    int64_t idx[FV_MAX_NDIM], r = line;
    for (int d = nd - 1; d >= 0; d--) {
        if (d == ax) {
            idx[d] = 0;
            continue;
        }
        idx[d] = r % out->shape[d];
        r /= out->shape[d];
    }
    *po = (char *)out->data;
    for (int d = 0; d < nd; d++)
        *po += idx[d] * out->strides[d];
    /* out position q reads in at q - npad (clamped, or the pad value) */
    *pi = (const char *)in->data;
    *pad_line = 0;
    for (int d = 0; d < nd; d++) {
        if (d == ax)
            continue;
        int64_t q = idx[d] - p->npad;
        if (q < 0 || q >= in->shape[d]) {
            if (p->pad_constant)
                *pad_line = 1;
            q = q < 0 ? 0 : in->shape[d] - 1;
        }
        *pi += q * in->strides[d];
    }
}

static void
fv__spl_range(void *arg, int64_t begin, int64_t end)
{
    fv__spl_job *j = (fv__spl_job *)arg;
    const fv_array *in = j->a->in;
    fv_array *out = j->a->out;
    const fv__spline1d_params *p = j->p;
    const int64_t n = j->n, npad = p->npad, nin = in->shape[p->axis], sin = in->strides[p->axis];
    const int64_t so = out->strides[p->axis];
    const int L = FV__IM_LANES;
    double *buf = (double *)malloc((size_t)n * L * sizeof(double));
    if (!buf) {
        j->failed = 1;
        return;
    }
    for (int64_t first = begin; first < end; first += L) {
        const int nl = end - first < L ? (int)(end - first) : L;
        char *po[FV__IM_LANES];
        for (int l = 0; l < L; l++) {
            if (l >= nl) { /* spare lanes repeat the first line */
                for (int64_t q = 0; q < n; q++)
                    buf[q * L + l] = buf[q * L];
                continue;
            }
            const char *pi;
            int pad_line;
            fv__spl_line(j, first + l, &po[l], &pi, &pad_line);
            if (npad == 0 && !pad_line) { /* no padding: the line itself, one loop per dtype */
                switch (in->dtype) {
#define FV__SPL_GATHER(E, T, S)                                  \
    case E:                                                      \
        for (int64_t q = 0; q < n; q++)                          \
            buf[q * L + l] = (double)*(const T *)(pi + q * sin); \
        break;
                    FV_FOREACH_DTYPE(FV__SPL_GATHER)
#undef FV__SPL_GATHER
                default:
                    break;
                }
                continue;
            }
            for (int64_t q = 0; q < n; q++) {
                int64_t s = q - npad;
                if (pad_line || ((s < 0 || s >= nin) && p->pad_constant)) {
                    buf[q * L + l] = p->pad_value;
                    continue;
                }
                s = s < 0 ? 0 : s >= nin ? nin - 1 : s;
                buf[q * L + l] = fv__im_load(pi + s * sin, in->dtype);
            }
        }
        if (n > 1 && p->order >= 2) {
#if FV__HAVE_AVX2_CLONES
            if (j->avx2)
                fv__spl_filter_avx2(buf, n, p->order, p->mode);
            else
#endif
                fv__spl_filter(buf, n, p->order, p->mode);
        }
        for (int l = 0; l < nl; l++) {
            if (out->dtype == FV_FLOAT64) /* the coefficients' own type */
                for (int64_t q = 0; q < n; q++)
                    *(double *)(po[l] + q * so) = buf[q * L + l];
            else
                for (int64_t q = 0; q < n; q++)
                    fv__im_store_plain(po[l] + q * so, out->dtype, buf[q * L + l]);
        }
    }
    free(buf);
}

static fv_status
fv__cpu_spline1d(fv_context *ctx, const fv__op_args *a)
{
    const fv__spline1d_params *p = fv__params_SPLINE1D(a);
    fv__spl_job j = { a, p, a->out->shape[p->axis], 0, 0 };
#if FV__HAVE_AVX2_CLONES
    j.avx2 = fv__cpu_avx2();
#endif
    const int64_t total = fv_array_size(a->out);
    if (total == 0 || j.n == 0)
        return FV_OK;
    const int64_t lines = total / j.n;
    fv__parallel_for(ctx, lines, FV__IM_LANES * (1 + 8192 / (j.n * FV__IM_LANES + 1)), fv__spl_range, &j);
    if (j.failed)
        return fv_error_set(FV_ENOMEM, "spline_filter1d", "out of memory for a line buffer");
    return FV_OK;
}
FV_KERNEL(SPLINE1D, CPU, FV_DTYPES_REAL | FV_DTYPE_BIT(FV_BOOL), FV_MAX_NDIM, fv__cpu_spline1d);
