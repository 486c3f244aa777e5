/* CUDA EDT kernels (edt.cu describes the paths): the per-line path (axis 0 by
 * sweeps, later axes by a per-line envelope), axis 0 in segments, and the
 * image-without-zero case. */
#include "cuda/morphology/edt.cuh"

/* Axis 0: nearest zero along each of the M lines (columns of the (n0, M) view). */
__global__ void
fv_k_edt_axis0(const uint8_t *fg, int32_t *f0, int64_t n0, int64_t M, int *anyzero)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= M)
        return;
    int32_t last = -1;
    for (int64_t i = 0; i < n0; i++) {
        if (!fg[i * M + c])
            last = (int32_t)i;
        f0[i * M + c] = last;
    }
    if (last >= 0)
        atomicOr(anyzero, 1);
    int32_t next = -1;
    for (int64_t i = n0 - 1; i >= 0; i--) {
        int32_t nx = fg[i * M + c] ? next : (int32_t)i, pv = f0[i * M + c];
        next = nx;
        if (nx >= 0 && (pv < 0 || (int64_t)nx - i < i - (int64_t)pv))
            f0[i * M + c] = nx;
    }
}

/* 1-d images: outputs from the axis-0 features. */
__global__ void
fv_k_edt_write1d(const int32_t *f, fv_cu_edt_geom g, const int *anyzero)
{
    if (!*anyzero)
        return;
    FV_GRID_STRIDE(int64_t, i, g.N) {
        int32_t fi = f[i];
        if (g.dist) {
            double t = __dmul_rn((double)((int64_t)fi - i), g.s[0]);
            *(double *)(g.dist + i * g.dstr[0]) = __dsqrt_rn(__dmul_rn(t, t));
        }
        if (g.idx)
            fv_d_edt_put(g, i * g.istr[1], fi);
    }
}

/* Axis d >= 1: one thread per line. fin / fout: feature planes (axis a at a * N). */
__global__ void
fv_k_edt_axis(fv_cu_edt_geom g, const int32_t *fin, int32_t *fout, int32_t *gs, double *swr)
{
    const int64_t L = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (L >= g.lines)
        return;
    const int d = g.d, nd = g.nd;
    const int64_t n = g.n, inner = g.inner, lines = g.lines, N = g.N;
    const int64_t o = L / inner, r = L - o * inner, base = o * n * inner + r;
    const double sd = g.s[d];
    int64_t x[FV_MAX_NDIM];
    {
        int64_t rem = r;
        for (int a = nd - 1; a > d; a--) {
            x[a] = rem % g.shape[a];
            rem /= g.shape[a];
        }
        rem = o;
        for (int a = d - 1; a >= 0; a--) {
            x[a] = rem % g.shape[a];
            rem /= g.shape[a];
        }
    }
    /* the lower envelope (scipy's removal test, same operation order) */
    int64_t l = -1;
    for (int64_t i = 0; i < n; i++) {
        const int64_t p = base + i * inner;
        const int32_t f0 = fin[p];
        if (f0 < 0)
            continue;
        double wR = 0.0;
        for (int a = 0; a < d; a++) {
            int32_t fa = a ? fin[a * N + p] : f0;
            double t = __dmul_rn((double)((int64_t)fa - x[a]), g.s[a]);
            wR = __dadd_rn(wR, __dmul_rn(t, t));
        }
        const double fd = (double)i;
        while (l >= 1) {
            double f1 = (double)gs[l * lines + L];
            double A = __dmul_rn(__dsub_rn(f1, (double)gs[(l - 1) * lines + L]), sd);
            double B = __dmul_rn(__dsub_rn(fd, f1), sd);
            double C = __dadd_rn(A, B);
            double uR = swr[(l - 1) * lines + L], vR = swr[l * lines + L];
            double v = __dsub_rn(__dsub_rn(__dsub_rn(__dmul_rn(C, vR), __dmul_rn(B, uR)), __dmul_rn(A, wR)),
                                 __dmul_rn(__dmul_rn(A, B), C));
            if (v <= 0.0)
                break;
            --l;
        }
        ++l;
        gs[l * lines + L] = (int32_t)i;
        swr[l * lines + L] = wR;
    }
    const int64_t maxl = l;
    if (maxl < 0) { /* no site on this line yet: none after this axis either */
        if (!g.final)
            for (int64_t i = 0; i < n; i++)
                fout[base + i * inner] = -1;
        return;
    }
    int64_t doff = 0, ioff = 0;
    if (g.final)
        for (int a = 0; a < nd - 1; a++) {
            doff += x[a] * g.dstr[a];
            ioff += x[a] * g.istr[a + 1];
        }
    l = 0;
    int64_t site = gs[L];
    double sw = swr[L];
    for (int64_t i = 0; i < n; i++) {
        double t = __dmul_rn((double)(site - i), sd);
        double delta1 = __dadd_rn(sw, __dmul_rn(t, t));
        while (l < maxl) {
            int64_t s2 = gs[(l + 1) * lines + L];
            double w2 = swr[(l + 1) * lines + L];
            double t2 = __dmul_rn((double)(s2 - i), sd);
            double delta2 = __dadd_rn(w2, __dmul_rn(t2, t2));
            if (delta1 <= delta2)
                break;
            delta1 = delta2;
            site = s2;
            sw = w2;
            ++l;
        }
        const int64_t sp = base + site * inner;
        fv_d_edt_emit(g, fin, fout, i, base + i * inner, sp, site, delta1, doff, ioff);
    }
}

/* ---- the banded path ---------------------------------------------------------------- */

/* Axis 0 in segments of S rows: each (segment, column) its first and last zero. */
__global__ void
fv_k_edt_axis0_seg(const uint8_t *fg, int32_t *first, int32_t *last, int64_t n0, int64_t M, int64_t S, int64_t nseg)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= M * nseg)
        return;
    const int64_t c = t % M, sg = t / M, i0 = sg * S, i1 = min(n0, i0 + S);
    int32_t f = -1, l = -1;
    for (int64_t i = i0; i < i1; i++)
        if (!fg[i * M + c]) {
            if (f < 0)
                f = (int32_t)i;
            l = (int32_t)i;
        }
    first[t] = f;
    last[t] = l;
}

/* Per column: last[sg] becomes the last zero before segment sg, first[sg] the first
 * zero after it (-1: none). */
__global__ void
fv_k_edt_axis0_scan(int32_t *first, int32_t *last, int64_t M, int64_t nseg, int *anyzero)
{
    const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= M)
        return;
    int32_t run = -1;
    for (int64_t sg = 0; sg < nseg; sg++) {
        int32_t v = last[sg * M + c];
        last[sg * M + c] = run;
        if (v >= 0)
            run = v;
    }
    if (run >= 0 && !*(volatile int *)anyzero)
        atomicOr(anyzero, 1);
    run = -1;
    for (int64_t sg = nseg - 1; sg >= 0; sg--) {
        int32_t v = first[sg * M + c];
        first[sg * M + c] = run;
        if (v >= 0)
            run = v;
    }
}

/* Per (segment, column): the axis-0 kernel's two sweeps, started from the zeros
 * before and after the segment (so the same nearest zero, ties to the earlier). */
__global__ void
fv_k_edt_axis0_fill(const uint8_t *fg, int32_t *f0, const int32_t *first, const int32_t *last, int64_t n0, int64_t M,
                    int64_t S, int64_t nseg)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= M * nseg)
        return;
    const int64_t c = t % M, sg = t / M, i0 = sg * S, i1 = min(n0, i0 + S);
    int32_t lz = last[t];
    for (int64_t i = i0; i < i1; i++) {
        if (!fg[i * M + c])
            lz = (int32_t)i;
        f0[i * M + c] = lz;
    }
    int32_t next = first[t];
    for (int64_t i = i1 - 1; i >= i0; i--) {
        int32_t nx = fg[i * M + c] ? next : (int32_t)i, pv = f0[i * M + c];
        next = nx;
        if (nx >= 0 && (pv < 0 || (int64_t)nx - i < i - (int64_t)pv))
            f0[i * M + c] = nx;
    }
}

/* No zero anywhere: scipy's features are -1 on axis 0 and 0 elsewhere. */
__global__ void
fv_k_edt_nozero(fv_cu_edt_geom g, const int *anyzero)
{
    if (*anyzero)
        return;
    FV_GRID_STRIDE(int64_t, p, g.N) {
        int64_t x[FV_MAX_NDIM], rem = p, doff = 0, ioff = 0;
        for (int a = g.nd - 1; a >= 0; a--) {
            x[a] = rem % g.shape[a];
            rem /= g.shape[a];
            doff += x[a] * g.dstr[a];
            ioff += x[a] * g.istr[a + 1];
        }
        if (g.dist) {
            double w = 0.0;
            for (int a = 0; a < g.nd; a++) {
                double t = __dmul_rn((double)((a == 0 ? -1 : 0) - x[a]), g.s[a]);
                w = __dadd_rn(w, __dmul_rn(t, t));
            }
            *(double *)(g.dist + doff) = __dsqrt_rn(w);
        }
        if (g.idx)
            for (int a = 0; a < g.nd; a++)
                fv_d_edt_put(g, ioff + a * g.istr[0], a == 0 ? -1 : 0);
    }
}

/* The banded envelope path needs exact arithmetic (edt-band.h): every sampling
 * positive, an integer times one power of two 2^-e, and (3 nd + 1) Lm^3 < 2^52
 * with Lm the largest extent times sampling in units of 2^-e. */
