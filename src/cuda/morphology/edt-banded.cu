/* CUDA EDT kernels (edt.cu describes the paths): the banded lower envelope
 * (edt-band.h's lists: build, merge, last sites, prefix, query) and the
 * transposed planes of the banded last axis. */
#include "cuda/morphology/edt.cuh"

/* This thread's index t = (band b, line L) of the banded kernels (a thread per
 * (line, band), lines fastest) and the band's positions [i0, i1); false where
 * the guard is clear or the thread has no band. */
__device__ __forceinline__ bool
fv_d_edt_band_at(const fv_cu_edt_geom &g, int64_t &t, int64_t &L, int64_t &b, int64_t &i0, int64_t &i1)
{
    if (g.guard && !*g.guard)
        return false;
    t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= g.lines * g.nb)
        return false;
    L = t % g.lines;
    b = t / g.lines;
    i0 = b * g.W;
    i1 = min(g.n, i0 + g.W);
    return true;
}


/* Line L's coordinates on every axis but d, and its first element. */
__device__ __forceinline__ int64_t
fv_d_edt_line(const fv_cu_edt_geom &g, int64_t L, int64_t *x)
{
    const int64_t o = L / g.inner, r = L - o * g.inner;
    int64_t rem = r;
    for (int a = g.nd - 1; a > g.d; a--) {
        x[a] = rem % g.shape[a];
        rem /= g.shape[a];
    }
    rem = o;
    for (int a = g.d - 1; a >= 0; a--) {
        x[a] = rem % g.shape[a];
        rem /= g.shape[a];
    }
    return g.tr ? L : o * g.n * g.inner + r;
}

/* Band build: thread (line L, band b), L fastest. Lists at i * lines + L. */
__global__ void
fv_k_edt_band_build(fv_cu_edt_geom g, const int32_t *fin, int32_t *prv, int32_t *nxt, double *swr, int32_t *hd,
                    int32_t *tl)
{
    int64_t t, L, b, i0, i1;
    if (!fv_d_edt_band_at(g, t, L, b, i0, i1))
        return;
    int64_t x[FV_MAX_NDIM];
    const int64_t base = fv_d_edt_line(g, L, x);
    const fv__edt_list l = { prv + L, nxt + L, swr + L, g.lines };
    const double sd = g.s[g.d];
    int32_t top = -1;
    double topR = 0.0;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t p = base + i * g.ps;
        double wR = 0.0;
        if (g.gm) {
            wR = g.gin[p];
            if (!(wR < INFINITY)) {
                prv[i * g.lines + L] = FV_EDT_DEAD;
                continue;
            }
        } else {
            const int32_t f0 = fin[p];
            if (f0 < 0) {
                prv[i * g.lines + L] = FV_EDT_DEAD;
                continue;
            }
            for (int a = 0; a < g.d; a++) {
                int32_t fa = a ? fin[a * g.N + p] : f0;
                double u = __dmul_rn((double)((int64_t)fa - x[a]), g.s[a]);
                wR = __dadd_rn(wR, __dmul_rn(u, u));
            }
        }
        fv__edt_push(&l, (int32_t)i, wR, sd, &top, &topR);
    }
    hd[t] = fv__edt_close(&l, top);
    tl[t] = top;
}

/* One merge level: groups of span bands, pairwise; results at the left group's slot. */
__global__ void
fv_k_edt_band_merge(fv_cu_edt_geom g, int32_t *prv, int32_t *nxt, double *swr, int32_t *hd, int32_t *tl, int64_t span)
{
    if (g.guard && !*g.guard)
        return;
    const int64_t pairs = (g.nb + 2 * span - 1) / (2 * span);
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= g.lines * pairs)
        return;
    const int64_t L = t % g.lines, bl = (t / g.lines) * 2 * span, br = bl + span;
    if (br >= g.nb)
        return;
    const fv__edt_list l = { prv + L, nxt + L, swr + L, g.lines };
    const int64_t kl = bl * g.lines + L, kr = br * g.lines + L;
    int32_t h, e;
    fv__edt_merge(&l, hd[kl], tl[kl], hd[kr], tl[kr], g.s[g.d], &h, &e);
    hd[kl] = h;
    tl[kl] = e;
}

/* Per (line, band): the last site left in the band (-1: none). */
__global__ void
fv_k_edt_band_last(fv_cu_edt_geom g, const int32_t *prv, int32_t *ll)
{
    int64_t t, L, b, i0, i1;
    if (!fv_d_edt_band_at(g, t, L, b, i0, i1))
        return;
    int32_t v = -1;
    for (int64_t i = i1 - 1; i >= i0; i--)
        if (prv[i * g.lines + L] != FV_EDT_DEAD) {
            v = (int32_t)i;
            break;
        }
    ll[t] = v;
}

/* Per line: ll[b] becomes the last site before band b (-1: none). */
__global__ void
fv_k_edt_band_prefix(fv_cu_edt_geom g, int32_t *ll)
{
    if (g.guard && !*g.guard)
        return;
    const int64_t L = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (L >= g.lines)
        return;
    int32_t run = -1;
    for (int64_t b = 0; b < g.nb; b++) {
        int32_t v = ll[b * g.lines + L];
        ll[b * g.lines + L] = run;
        if (v >= 0)
            run = v;
    }
}

/* Per (line, band): each element's site, as the sequential query walk chooses it. */
__global__ void
fv_k_edt_band_query(fv_cu_edt_geom g, const int32_t *fin, int32_t *fout, const int32_t *prv, const int32_t *nxt,
                    const double *swr, const int32_t *hd, const int32_t *ll)
{
    int64_t t, L, b, i0, i1;
    if (!fv_d_edt_band_at(g, t, L, b, i0, i1))
        return;
    const int d = g.d, nd = g.nd;
    const int64_t N = g.N;
    int64_t x[FV_MAX_NDIM];
    const int64_t base = fv_d_edt_line(g, L, x);
    const double sd = g.s[d];
    int32_t e = ll[t];
    if (e < 0)
        e = hd[L]; /* the line's first site */
    if (e < 0) {   /* no site on this line: none after this axis either */
        if (!g.final)
            for (int64_t i = i0; i < i1; i++) {
                if (g.gm)
                    g.gout[base + i * g.ps] = INFINITY;
                else
                    fout[base + i * g.ps] = -1;
            }
        return;
    }
    const fv__edt_list l = { (int32_t *)prv + L, (int32_t *)nxt + L, (double *)swr + L, g.lines };
    int32_t site = fv__edt_entry(&l, e, i0, sd);
    double sw = swr[site * g.lines + L];
    int64_t doff = 0, ioff = 0;
    if (g.final)
        for (int a = 0; a < nd; a++)
            if (a != d) {
                doff += x[a] * g.dstr[a];
                ioff += x[a] * g.istr[a + 1];
            }
    for (int64_t i = i0; i < i1; i++) {
        double delta1 = fv__edt_delta(site, i, sw, sd);
        int32_t s2;
        while ((s2 = nxt[(int64_t)site * g.lines + L]) >= 0) {
            double w2 = swr[(int64_t)s2 * g.lines + L];
            double delta2 = fv__edt_delta(s2, i, w2, sd);
            if (delta1 <= delta2)
                break;
            delta1 = delta2;
            site = s2;
            sw = w2;
        }
        const int64_t sp = base + (int64_t)site * g.ps;
        if (g.gm) { /* squared distances only */
            if (g.final)
                *(double *)(g.dist + doff + i * g.dstr[d]) = __dsqrt_rn(delta1);
            else
                g.gout[base + i * g.ps] = delta1;
        } else if (g.final && g.tr) { /* transposed; fv_k_edt_untranspose writes the outputs */
            const int64_t q = i * g.lines + L;
            if (g.dist)
                g.tdist[q] = __dsqrt_rn(delta1);
            if (g.idx) {
                for (int a = 0; a < d; a++)
                    g.tidx[a * N + q] = fin[a * N + sp];
                g.tidx[d * N + q] = site;
            }
        } else {
            fv_d_edt_emit(g, fin, fout, i, base + i * g.ps, sp, site, delta1, doff, ioff);
        }
    }
}

/* The banded last axis runs on transposed planes: (lines, n) -> (n, lines), so
 * that threads of neighbouring lines read and write neighbouring words.
 * Tiles of 32 x 32 (blocks of 32 x 8 threads), one block per (tile, plane). */
__global__ void
fv_k_edt_transpose(const int32_t *in, int32_t *out, int64_t lines, int64_t n, int64_t N, int64_t tn, int64_t tiles)
{
    __shared__ int32_t tile[FV_CU_EDT_TT][FV_CU_EDT_TT + 1];
    const int64_t b = blockIdx.x, plane = b / tiles, t = b - plane * tiles;
    const int64_t L0 = (t / tn) * FV_CU_EDT_TT, i0 = (t % tn) * FV_CU_EDT_TT;
    in += plane * N;
    out += plane * N;
    for (int k = threadIdx.y; k < FV_CU_EDT_TT; k += blockDim.y) {
        int64_t L = L0 + k, i = i0 + threadIdx.x;
        if (L < lines && i < n)
            tile[k][threadIdx.x] = in[L * n + i];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < FV_CU_EDT_TT; k += blockDim.y) {
        int64_t i = i0 + k, L = L0 + threadIdx.x;
        if (L < lines && i < n)
            out[i * lines + L] = tile[threadIdx.x][k];
    }
}

/* The last axis' transposed outputs (distances, indices at (i, L)) to the output
 * arrays at (L, i), with their strides; tiles as above. */
__global__ void
fv_k_edt_untranspose(fv_cu_edt_geom g, int64_t tn, const int *anyzero)
{
    if (!*anyzero) /* fv_k_edt_nozero writes every output */
        return;
    __shared__ double td[FV_CU_EDT_TT][FV_CU_EDT_TT + 1];
    __shared__ int32_t ti[FV_CU_EDT_TT][FV_CU_EDT_TT + 1];
    const int d = g.d;
    const int64_t L0 = (blockIdx.x / tn) * FV_CU_EDT_TT, i0 = (blockIdx.x % tn) * FV_CU_EDT_TT;
    const int planes = g.idx ? g.nd : 0;
    /* the output offsets of the block's lines (at most 32), once per thread row */
    int64_t doff[FV_CU_EDT_TT / 8], ioff[FV_CU_EDT_TT / 8];
    for (int k = threadIdx.y, j = 0; k < FV_CU_EDT_TT; k += blockDim.y, j++) {
        int64_t rem = L0 + k;
        doff[j] = ioff[j] = 0;
        for (int a = d - 1; a >= 0; a--) {
            int64_t xa = rem % g.shape[a];
            rem /= g.shape[a];
            doff[j] += xa * g.dstr[a];
            ioff[j] += xa * g.istr[a + 1];
        }
    }
    for (int pl = -1; pl < planes; pl++) {
        if (pl < 0 && !g.dist)
            continue;
        for (int k = threadIdx.y; k < FV_CU_EDT_TT; k += blockDim.y) {
            int64_t i = i0 + k, L = L0 + threadIdx.x;
            if (L < g.lines && i < g.n) {
                if (pl < 0)
                    td[k][threadIdx.x] = g.tdist[i * g.lines + L];
                else
                    ti[k][threadIdx.x] = g.tidx[pl * g.N + i * g.lines + L];
            }
        }
        __syncthreads();
        for (int k = threadIdx.y, j = 0; k < FV_CU_EDT_TT; k += blockDim.y, j++) {
            int64_t L = L0 + k, i = i0 + threadIdx.x;
            if (L < g.lines && i < g.n) {
                if (pl < 0)
                    *(double *)(g.dist + doff[j] + i * g.dstr[d]) = td[threadIdx.x][k];
                else
                    fv_d_edt_put(g, ioff[j] + i * g.istr[d + 1] + pl * g.istr[0], ti[threadIdx.x][k]);
            }
        }
        __syncthreads();
    }
}
