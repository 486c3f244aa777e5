/* Exact Euclidean distance and feature transform on the GPU
 * (scipy.ndimage.distance_transform_edt).
 *
 * The CPU backend's algorithm (src/cpu/morphology/edt-cpu.c), one thread per
 * line and axis: axis 0 finds the nearest zero along each axis-0 line by a
 * forward and a backward sweep (threads walk neighbouring columns, so reads
 * coalesce); every later axis builds the lower envelope of the line's sites in
 * a per-line stack (stored interleaved across lines) and assigns each element
 * its least-distance site. The arithmetic is the CPU's (and scipy's) operation
 * for operation, with rounded intrinsics so that nvcc contracts nothing into
 * FMAs: the two backends give the same bits. An image with no zero gets scipy's
 * answer for that case from a last kernel that reads the device flag set by the
 * axis-0 pass, so nothing waits on the host. */
#include "cuda/morphology/morphology-cuda.cuh"

typedef struct fv_cu_edt_geom {
    int nd, d, final, idx64;
    int64_t N, n, inner, lines;
    int64_t shape[FV_MAX_NDIM];
    double s[FV_MAX_NDIM];
    int64_t dstr[FV_MAX_NDIM];       /* distances' strides (bytes) */
    int64_t istr[FV_MAX_NDIM + 1];   /* indices' strides */
    char *dist, *idx;                /* outputs or NULL */
} fv_cu_edt_geom;

__device__ __forceinline__ void
fv_cu_edt_put(const fv_cu_edt_geom &g, int64_t off, int64_t v)
{
    if (g.idx64)
        *(int64_t *)(g.idx + off) = v;
    else
        *(int32_t *)(g.idx + off) = (int32_t)v;
}

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
            fv_cu_edt_put(g, i * g.istr[1], fi);
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
    if (maxl < 0) {   /* no site on this line yet: none after this axis either */
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
        if (g.final) {
            if (g.dist)
                *(double *)(g.dist + doff + i * g.dstr[d]) = __dsqrt_rn(delta1);
            if (g.idx) {
                int64_t off = ioff + i * g.istr[d + 1];
                for (int a = 0; a < d; a++)
                    fv_cu_edt_put(g, off + a * g.istr[0], fin[a * N + sp]);
                fv_cu_edt_put(g, off + d * g.istr[0], site);
            }
        } else {
            const int64_t p = base + i * inner;
            for (int a = 0; a < d; a++)
                fout[a * N + p] = fin[a * N + sp];
            fout[d * N + p] = (int32_t)site;
        }
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
                fv_cu_edt_put(g, ioff + a * g.istr[0], a == 0 ? -1 : 0);
    }
}

fv_status
fv_cu_edt(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "distance_transform_edt";
    const fv__distance_params *p = (const fv__distance_params *)a->params;
    fv_array *fga = NULL, *fA = NULL, *fB = NULL, *gsa = NULL, *swra = NULL, *flag = NULL;
    fv_cu_exec x;
    fv_status st = FV_OK;
    fv_cu_edt_geom g;
    int entered = 0;
    cudaError_t e;

    ctx = fv__ctx(ctx);
    if (!p || p->ndim != a->in->ndim)
        return fv_error_set(FV_EINTERNAL, name, "bad kernel parameters");
    memset(&g, 0, sizeof g);
    const int nd = p->ndim;
    g.nd = nd;
    g.N = fv_array_size(a->in);
    for (int d = 0; d < nd; d++) {
        g.shape[d] = a->in->shape[d];
        g.s[d] = p->sampling[d];
    }
    if (p->distances) {
        g.dist = p->distances->data;
        for (int d = 0; d < nd; d++)
            g.dstr[d] = p->distances->strides[d];
    }
    if (p->indices) {
        if (p->indices->device.type != FV_DEVICE_CUDA || p->indices->device.id != a->in->device.id)
            return fv_error_set(FV_EDEVICE, name, "indices are on another device");
        g.idx = p->indices->data;
        g.idx64 = p->indices->dtype == FV_INT64;
        for (int d = 0; d <= nd; d++)
            g.istr[d] = p->indices->strides[d];
    }
    if (g.N == 0)
        return FV_OK;
    if ((st = fv_cu_begin(ctx, name, a, g.N, &x)) != FV_OK)
        return st;
    entered = 1;
    if ((st = fv_cu_foreground(ctx, a->in, &fga)) != FV_OK)
        goto done;
    {
        const int64_t planes = nd > 1 ? nd - 1 : 1;
        if ((st = fv_cu_morph_temp(ctx, x.device, FV_INT32, planes * g.N, &fA)) != FV_OK ||
            (nd > 2 && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, planes * g.N, &fB)) != FV_OK) ||
            (nd > 1 && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, g.N, &gsa)) != FV_OK) ||
            (nd > 1 && (st = fv_cu_morph_temp(ctx, x.device, FV_FLOAT64, g.N, &swra)) != FV_OK) ||
            (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, 1, &flag)) != FV_OK)
            goto done;
    }
    {
        int *dflag = (int *)flag->data;
        const uint8_t *fg = (const uint8_t *)fga->data;
        int32_t *fin = (int32_t *)fA->data, *fout = fB ? (int32_t *)fB->data : NULL;
        if ((e = cudaMemsetAsync(dflag, 0, sizeof(int), x.stream)) != cudaSuccess) {
            st = fv__cuda_error("cudaMemsetAsync", e);
            goto done;
        }
        const int64_t M = g.N / g.shape[0];
        unsigned blocks = (unsigned)((M + FV_CU_MORPH_BLOCK - 1) / FV_CU_MORPH_BLOCK);
        fv_k_edt_axis0<<<blocks, FV_CU_MORPH_BLOCK, 0, x.stream>>>(fg, fin, g.shape[0], M, dflag);
        if ((st = fv_cu_launch_status("edt axis-0 kernel launch")) != FV_OK)
            goto done;
        if (nd == 1) {
            fv_k_edt_write1d<<<x.grid, x.block, 0, x.stream>>>(fin, g, dflag);
            if ((st = fv_cu_launch_status("edt kernel launch")) != FV_OK)
                goto done;
        }
        for (int d = 1; d < nd; d++) {
            g.d = d;
            g.final = d == nd - 1;
            g.n = g.shape[d];
            g.inner = 1;
            for (int k = d + 1; k < nd; k++)
                g.inner *= g.shape[k];
            g.lines = g.N / g.n;
            blocks = (unsigned)((g.lines + FV_CU_MORPH_BLOCK - 1) / FV_CU_MORPH_BLOCK);
            fv_k_edt_axis<<<blocks, FV_CU_MORPH_BLOCK, 0, x.stream>>>(g, fin, fout, (int32_t *)gsa->data,
                                                                      (double *)swra->data);
            if ((st = fv_cu_launch_status("edt kernel launch")) != FV_OK)
                goto done;
            int32_t *t = fin;
            fin = fout;
            fout = t;
        }
        fv_k_edt_nozero<<<x.grid, x.block, 0, x.stream>>>(g, dflag);
        st = fv_cu_launch_status("edt kernel launch");
    }
done:
    fv_cu_morph_release(ctx, fga);
    fv_cu_morph_release(ctx, fA);
    fv_cu_morph_release(ctx, fB);
    fv_cu_morph_release(ctx, gsa);
    fv_cu_morph_release(ctx, swra);
    fv_cu_morph_release(ctx, flag);
    if (entered)
        fv_cu_end(&x);
    return st;
}
