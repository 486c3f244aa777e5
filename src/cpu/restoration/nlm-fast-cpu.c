/* CPU kernel of NL_MEANS_FAST: the search shifts (half of them: the last
 * axis's shift >= 0) split into one group per thread; each group keeps its own
 * squared-difference buffer and its own weight and value sums over the padded
 * image, and the groups' sums are added in group order at the end. Per shift:
 * the squared channel differences with the shifted image (less the expected
 * noise), their n-d cumulative sums, a box sum per patch centre by inclusion-
 * exclusion over the 2^ndim corners, a fast_exp weight (0 beyond distance 5)
 * accumulated on both ends of the pair. In float64, as scikit-image. */
#include <string.h>
#include "internal.h"
#include "alloc.h"
#include "ops/restoration/nlm.h"

typedef struct fv__nlmf_job {
    const fv__nlmf_params *p;
    const double *P; /* padded image */
    int64_t nshift, ngroup, npix;
    int64_t span[4]; /* search offsets per axis: 2d + 1 (last axis: d + 1) */
    int64_t st[4];   /* strides of the padded spatial grid (pixels) */
    double *acc;     /* ngroup x npix x (nc + 1): value sums, then the weight sum */
    double *buf;     /* ngroup x npix: differences / cumulative sums */
} fv__nlmf_job;

/* one shift t: add its weights into acc (npix x (nc + 1)) */
static void
fv__nlmf_shift(const fv__nlmf_job *j, const int64_t *t, double *D, double *acc)
{
    const fv__nlmf_params *p = j->p;
    const int nd = p->ndim;
    const int64_t nc = p->nc, o = p->s / 2, *S = p->shape;
    int64_t lo[4] = { 0 }, hi[4] = { 0 }, R[4] = { 1, 1, 1, 1 }, rs[4] = { 0 }, clo[4] = { 0 }, chi[4] = { 0 };
    int64_t toff = 0;
    for (int k = 0; k < nd; k++) {
        const int last = k == nd - 1;
        lo[k] = last || t[k] >= 0 ? 0 : -t[k];
        hi[k] = last ? S[k] - t[k] : (t[k] >= 0 ? S[k] - t[k] : S[k]);
        clo[k] = last || t[k] >= 0 ? o : o - t[k];
        chi[k] = last || t[k] >= 0 ? S[k] - o - t[k] : S[k] - o;
        if (chi[k] <= clo[k] || hi[k] <= lo[k])
            return;
        R[k] = hi[k] - lo[k];
        toff += t[k] * j->st[k];
    }
    int64_t nr = 1;
    for (int k = nd - 1; k >= 0; k--) {
        rs[k] = nr;
        nr *= R[k];
    }
    const double sub = (double)nc * p->var2;
    const int L = nd - 1; /* the last axis: contiguous rows */
    const int64_t RL = R[L], nrows = nr / RL;
    /* squared differences over the region, 0 on a padded index 0 (skimage's integral starts at 1) */
    for (int64_t row = 0; row < nrows; row++) {
        int64_t r = row, off = lo[L] * j->st[L], zero = 0;
        for (int k = L - 1; k >= 0; k--) {
            const int64_t c = r % R[k] + lo[k];
            r /= R[k];
            off += c * j->st[k];
            zero |= c == 0;
        }
        double *Dr = D + row * RL;
        if (zero) {
            memset(Dr, 0, (size_t)RL * sizeof(double));
            continue;
        }
        const double *a = j->P + off * nc, *b = a + toff * nc;
        for (int64_t x = 0; x < RL; x++) {
            double v = 0.0;
            for (int64_t ch = 0; ch < nc; ch++) {
                const double dd = a[x * nc + ch] - b[x * nc + ch];
                v += dd * dd;
            }
            Dr[x] = v - sub;
        }
        if (lo[L] == 0)
            Dr[0] = 0.0;
    }
    /* cumulative sums: along the rows, then each outer axis row by row */
    for (int64_t row = 0; row < nrows; row++)
        for (int64_t x = 1; x < RL; x++)
            D[row * RL + x] += D[row * RL + x - 1];
    for (int k = 0; k < L; k++) {
        const int64_t rk = rs[k] / RL; /* rows between neighbours along k */
        for (int64_t row = 0; row < nrows; row++)
            if ((row / rk) % R[k]) {
                double *dst = D + row * RL;
                const double *src = dst - rs[k];
                for (int64_t x = 0; x < RL; x++)
                    dst[x] += src[x];
            }
    }
    const double norm = (double)nc * p->h * p->h *
        (nd == 2       ? (double)(p->s * p->s)
             : nd == 3 ? (double)(p->s * p->s * p->s)
                       : (double)(p->s * p->s * p->s * p->s));
    const double alpha = t[L] == 0 ? 0.5 : 1.0;
    int64_t C[4], ncrow = 1;
    for (int k = 0; k < nd; k++)
        C[k] = chi[k] - clo[k];
    for (int k = 0; k < L; k++)
        ncrow *= C[k];
    const double *crow[8];
    int csign[8];
    for (int64_t row = 0; row < ncrow; row++) {
        int64_t r = row, cen[4], pix = 0;
        for (int k = L - 1; k >= 0; k--) {
            cen[k] = r % C[k] + clo[k];
            r /= C[k];
            pix += cen[k] * j->st[k];
        }
        /* the 2^(nd-1) corner rows of the outer axes, with their signs */
        for (unsigned corner = 0; corner < (1u << L); corner++) {
            int64_t idx = 0;
            int neg = 0;
            for (int k = 0; k < L; k++) {
                const int up = !((corner >> k) & 1u);
                idx += (cen[k] + (up ? o : -o) - lo[k]) * rs[k];
                neg ^= !up;
            }
            crow[corner] = D + idx;
            csign[corner] = neg;
        }
        for (int64_t cx = clo[L]; cx < chi[L]; cx++) {
            const int64_t hiL = cx + o - lo[L], loL = cx - o - lo[L];
            double box = 0.0;
            for (unsigned corner = 0; corner < (1u << L); corner++) {
                const double v = crow[corner][hiL] - crow[corner][loL];
                box += csign[corner] ? -v : v;
            }
            const double dist = (box > 0.0 ? box : 0.0) / norm;
            if (dist > 5.0)
                continue;
            const double w = alpha * fv__nlm_fast_exp(-dist);
            const int64_t p1 = pix + cx, p2 = p1 + toff;
            double *a1 = acc + p1 * (nc + 1), *a2 = acc + p2 * (nc + 1);
            const double *v1 = j->P + p1 * nc, *v2 = j->P + p2 * nc;
            a1[nc] += w;
            a2[nc] += w;
            for (int64_t ch = 0; ch < nc; ch++) {
                a1[ch] += w * v2[ch];
                a2[ch] += w * v1[ch];
            }
        }
    }
}

static void
fv__nlmf_groups(void *arg, int64_t g0, int64_t g1)
{
    const fv__nlmf_job *j = arg;
    const int nd = j->p->ndim;
    for (int64_t g = g0; g < g1; g++) {
        double *acc = j->acc + g * j->npix * (j->p->nc + 1), *D = j->buf + g * j->npix;
        for (int64_t s = g; s < j->nshift; s += j->ngroup) {
            int64_t t[4], r = s;
            for (int k = nd - 1; k >= 0; k--) {
                t[k] = r % j->span[k] - (k == nd - 1 ? 0 : j->p->d);
                r /= j->span[k];
            }
            fv__nlmf_shift(j, t, D, acc);
        }
    }
}

static fv_status
fv__cpu_nl_means_fast(fv_context *ctx, const fv__op_args *a)
{
    const fv__nlmf_params *p = fv__params_NL_MEANS_FAST(a);
    fv__nlmf_job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.P = (const double *)a->in->data;
    j.npix = 1;
    j.nshift = 1;
    for (int k = p->ndim - 1; k >= 0; k--) {
        j.st[k] = j.npix;
        j.npix *= p->shape[k];
        j.span[k] = k == p->ndim - 1 ? p->d + 1 : 2 * p->d + 1;
        j.nshift *= j.span[k];
    }
    int64_t ng = fv_context_threads(ctx);
    /* each group holds (nc + 2) doubles per pixel: at most ~1 GiB in all */
    const int64_t per = j.npix * (p->nc + 2) * (int64_t)sizeof(double);
    if (per > 0 && ng > ((int64_t)1 << 30) / per)
        ng = ((int64_t)1 << 30) / per;
    if (ng > j.nshift)
        ng = j.nshift;
    if (ng < 1)
        ng = 1;
    j.ngroup = ng;
    j.acc = fv__malloc((size_t)(ng * j.npix * (p->nc + 1)) * sizeof(double));
    j.buf = fv__malloc((size_t)(ng * j.npix) * sizeof(double));
    if (!j.acc || !j.buf) {
        fv__free(j.acc);
        fv__free(j.buf);
        return fv_error_set(FV_ENOMEM, "denoise_nl_means", "out of host memory");
    }
    memset(j.acc, 0, (size_t)(ng * j.npix * (p->nc + 1)) * sizeof(double));
    fv__parallel_for(ctx, ng, 1, fv__nlmf_groups, &j);
    /* groups in order, then value / weight */
    double *out = (double *)a->out->data;
    const int64_t w = p->nc + 1;
    for (int64_t i = 0; i < j.npix; i++) {
        double sum[65];
        for (int64_t c = 0; c < w; c++)
            sum[c] = j.acc[i * w + c];
        for (int64_t g = 1; g < ng; g++)
            for (int64_t c = 0; c < w; c++)
                sum[c] += j.acc[(g * j.npix + i) * w + c];
        for (int64_t c = 0; c < p->nc; c++)
            out[i * p->nc + c] = sum[p->nc] > 0.0 ? sum[c] / sum[p->nc] : 0.0;
    }
    fv__free(j.acc);
    fv__free(j.buf);
    return FV_OK;
}
FV_KERNEL(NL_MEANS_FAST, CPU, FV_DTYPE_BIT(FV_FLOAT64), FV_MAX_NDIM, fv__cpu_nl_means_fast);
