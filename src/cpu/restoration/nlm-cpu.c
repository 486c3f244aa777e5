/* CPU kernel of NL_MEANS: output pixels in chunks over the thread pool; per
 * pixel the search window (clipped to the image) in C order, per candidate the
 * Gaussian-weighted patch distance with scikit-image's early stop (checked
 * before each patch row), its fast_exp weight and the weighted sums, all in
 * the image dtype as scikit-image's fused Cython does. */
#include <string.h>
#include "internal.h"
#include "alloc.h"
#include "ops/restoration/nlm.h"

typedef struct fv__nlm_job {
    const fv__nlm_params *p;
    const void *pad, *w;
    void *out;
    int64_t pshape[3], pstride[3]; /* padded spatial shape and strides (elements, channels included) */
    int64_t *poff;                 /* patch element offsets from the patch origin */
    int64_t plen, rowlen;          /* patch elements, elements per patch row */
} fv__nlm_job;

#define FV__NLM_KERNEL(T, S, EXPC)                                                              \
    static void fv__nlm_range_##S(void *arg, int64_t b0, int64_t b1)                            \
    {                                                                                           \
        fv__nlm_job *j = arg;                                                                   \
        const fv__nlm_params *p = j->p;                                                         \
        const T *pad = (const T *)j->pad, *w = (const T *)j->w;                                 \
        T *out = (T *)j->out;                                                                   \
        const int nd = p->ndim;                                                                 \
        const int64_t nc = p->nc, o = p->s / 2;                                                 \
        const T var = (T)p->var2, cutoff = (T)5.0;                                              \
        T acc[64];                                                                              \
        for (int64_t q = b0; q < b1; q++) {                                                     \
            int64_t x[3], lo[3], hi[3], r = q;                                                  \
            for (int k = nd - 1; k >= 0; k--) {                                                 \
                x[k] = r % p->shape[k];                                                         \
                r /= p->shape[k];                                                               \
                lo[k] = x[k] - (p->d < x[k] ? p->d : x[k]);                                     \
                hi[k] = x[k] + (p->d + 1 < p->shape[k] - x[k] ? p->d + 1 : p->shape[k] - x[k]); \
            }                                                                                   \
            int64_t c0 = 0;                                                                     \
            for (int k = 0; k < nd; k++)                                                        \
                c0 += x[k] * j->pstride[k];                                                     \
            const T *cen = pad + c0;                                                            \
            for (int64_t c = 0; c < nc; c++)                                                    \
                acc[c] = 0;                                                                     \
            T wsum = 0;                                                                         \
            int64_t y[3];                                                                       \
            for (int k = 0; k < nd; k++)                                                        \
                y[k] = lo[k];                                                                   \
            for (;;) {                                                                          \
                int64_t c1 = 0;                                                                 \
                for (int k = 0; k < nd; k++)                                                    \
                    c1 += y[k] * j->pstride[k];                                                 \
                const T *cand = pad + c1;                                                       \
                T dist = 0, wt;                                                                 \
                int stop = 0;                                                                   \
                for (int64_t e = 0, wi = 0; e < j->plen; e += j->rowlen) {                      \
                    if (dist > cutoff) {                                                        \
                        stop = 1;                                                               \
                        break;                                                                  \
                    }                                                                           \
                    for (int64_t f = e; f < e + j->rowlen; f += nc, wi++) {                     \
                        const int64_t off = j->poff[f / nc];                                    \
                        for (int64_t c = 0; c < nc; c++) {                                      \
                            const T t = cen[off + c] - cand[off + c];                           \
                            dist += w[wi] * (t * t - var);                                      \
                        }                                                                       \
                    }                                                                           \
                }                                                                               \
                if (stop)                                                                       \
                    wt = 0;                                                                     \
                else                                                                            \
                    wt = EXPC(-(0.0 > (double)dist ? 0.0 : (double)dist));                      \
                wsum += wt;                                                                     \
                int64_t mid = 0;                                                                \
                for (int k = 0; k < nd; k++)                                                    \
                    mid += o * j->pstride[k];                                                   \
                for (int64_t c = 0; c < nc; c++)                                                \
                    acc[c] += wt * cand[mid + c];                                               \
                int k = nd - 1;                                                                 \
                while (k >= 0 && ++y[k] == hi[k]) {                                             \
                    y[k] = lo[k];                                                               \
                    k--;                                                                        \
                }                                                                               \
                if (k < 0)                                                                      \
                    break;                                                                      \
            }                                                                                   \
            for (int64_t c = 0; c < nc; c++)                                                    \
                out[q * nc + c] = acc[c] / wsum;                                                \
        }                                                                                       \
    }

static inline float
fv__nlm_fast_expf(double y)
{
    return (float)fv__nlm_fast_exp((double)(float)y);
}

FV__NLM_KERNEL(float, f32, fv__nlm_fast_expf)
FV__NLM_KERNEL(double, f64, fv__nlm_fast_exp)

static fv_status
fv__cpu_nl_means(fv_context *ctx, const fv__op_args *a)
{
    const fv__nlm_params *p = fv__params_NL_MEANS(a);
    fv__nlm_job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.pad = a->in->data;
    j.w = a->in2->data;
    j.out = a->out->data;
    int64_t st = p->nc, n = 1, npatch = 1;
    for (int k = p->ndim - 1; k >= 0; k--) {
        j.pshape[k] = p->shape[k] + 2 * (p->s / 2);
        j.pstride[k] = st;
        st *= j.pshape[k];
        n *= p->shape[k];
        npatch *= p->s;
    }
    j.plen = npatch * p->nc;
    j.rowlen = j.plen / p->s;
    j.poff = fv__malloc((size_t)npatch * sizeof(int64_t));
    if (!j.poff)
        return fv_error_set(FV_ENOMEM, "denoise_nl_means", "out of host memory");
    for (int64_t e = 0; e < npatch; e++) {
        int64_t r = e, off = 0;
        for (int k = p->ndim - 1; k >= 0; k--) {
            off += (r % p->s) * j.pstride[k];
            r /= p->s;
        }
        j.poff[e] = off;
    }
    fv__parallel_for(ctx, n, 16, a->in->dtype == FV_FLOAT32 ? fv__nlm_range_f32 : fv__nlm_range_f64, &j);
    fv__free(j.poff);
    return FV_OK;
}
FV_KERNEL(NL_MEANS, CPU, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), FV_MAX_NDIM, fv__cpu_nl_means);
