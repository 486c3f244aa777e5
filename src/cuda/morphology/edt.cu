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
 * axis-0 pass, so nothing waits on the host.
 *
 * That per-line path runs one thread per line: 8192 threads for an 8192^2 image
 * (2160 for axis 1 of 3840x2160), far too few for an H100, and on the last axis
 * of a C-order image each thread walks its own row. The default path splits lines:
 *   axis 0   segments of S rows (S from 128 down to 16, so that columns x segments
 *            fill the GPU): each (segment, column) finds its first and last zero,
 *            a per-column scan over segments gives the last zero before and the
 *            first after each segment, and each (segment, column) runs the two
 *            sweeps from those. Integer logic: the same nearest zero, ties included.
 *   axis d   bands of W positions (W from 128 down to 16, likewise), threads
 *            (line, band) with lines fastest so that list and feature accesses
 *            coalesce on every axis but the last: per-band stacks kept as linked
 *            lists over the line's positions (prv / nxt / swr, index i * lines + L),
 *            log2(bands) launches of pairwise merges, the last site before each
 *            band (two small kernels), and per band a query from that site.
 *            edt-band.h holds the list code (shared with the host model in
 *            tests/c/test_cuda_edt.c) and the argument that the sites and the
 *            deltas are the sequential algorithm's. It needs exact arithmetic, so
 *            the banded envelope runs only when every sampling is a positive
 *            integer times one power of two and (3 nd + 1) Lm^3 < 2^52
 *            (fv_cu_edt_exact: sampling None and integer samplings up to ~10^5
 *            per extent); otherwise the envelope axes take the per-line kernel.
 * Distances alone (on the banded path's exact arithmetic) take squared-distance
 * planes instead of features, the last axis first, and on the other axes a local
 * search per element before the envelope (fv_k_edt_local*, below).
 * FOVEA_EDT_LINES=1 (any value but "0") forces the per-line path on every axis. */
#include "cuda/morphology/edt.cuh"

static int
fv_cu_edt_exact(const fv_cu_edt_geom *g)
{
    int e;
    for (e = 0; e <= 60; e++) {
        int ok = 1;
        for (int a = 0; a < g->nd && ok; a++) {
            double v = ldexp(g->s[a], e);
            ok = g->s[a] > 0.0 && isfinite(v) && v == floor(v) && v < 9007199254740992.0;
        }
        if (ok)
            break;
    }
    if (e > 60)
        return 0;
    double lm = 0.0;
    for (int a = 0; a < g->nd; a++) {
        double v = (double)g->shape[a] * ldexp(g->s[a], e);
        if (v > lm)
            lm = v;
    }
    return (3.0 * g->nd + 1.0) * lm * lm * lm < 4503599627370496.0;
}

/* Band width (and segment length of axis 0): enough threads to fill an H100. */
static int64_t
fv_cu_edt_width(int64_t lines, int64_t n)
{
    for (int64_t w = 128; w > 16; w /= 2)
        if (lines * ((n + w - 1) / w) >= 135168)
            return w;
    return 16;
}

static unsigned
fv_cu_edt_blocks(int64_t threads)
{
    return (unsigned)((threads + FV_CU_MORPH_BLOCK - 1) / FV_CU_MORPH_BLOCK);
}

/* The paths ("cuda.distance_transform_edt"), in the planner's order:
 *   dist_local     distances only: the squared-distance planes, a local search of
 *                  FV_CU_EDT_CAP steps, then the envelope where it left elements
 *                  unsettled. Measured on an H200 (bench/profile_gpu.py --only
 *                  edt; suite / blobs / sparse masks): 256^3 1.60 / 1.51 / 0.90 ms
 *                  on the feature planes, 0.61 / 1.21 / 1.04 here; 8192^2 3.84 /
 *                  3.62 / 2.29 on the feature planes, 1.72 / 3.40 / 1.91 here.
 *   dist_local2    the same with a reach of 2 steps (most elements unsettled:
 *                  for tests of the fallback)
 *   dist_envelope  the same with no local search (the envelope alone)
 *   banded_tr      the feature planes, banded, the last axis transposed
 *   banded         the feature planes, banded, the planes as they are
 *   unbanded       the feature planes, one thread per line after axis 0's
 *                  segments, always (1-d data; extents where banding is not exact)
 *   lines          one thread per line on every axis, always (reached only when
 *                  forced: for comparisons). */
typedef struct fv_cu_edt_plan {
    int exact; /* nd > 1 and fv_cu_edt_exact: the banded passes apply */
    int donly; /* distances without indices */
    int multi; /* more than one line along the last axis */
} fv_cu_edt_plan;

static int
fv_cu_edt_donly_ok(const void *args, int device)
{
    const fv_cu_edt_plan *pa = (const fv_cu_edt_plan *)args;
    return pa->exact && pa->donly;
}
static int
fv_cu_edt_tr_ok(const void *args, int device)
{
    const fv_cu_edt_plan *pa = (const fv_cu_edt_plan *)args;
    return pa->exact && pa->multi;
}
static int
fv_cu_edt_banded_ok(const void *args, int device)
{
    return ((const fv_cu_edt_plan *)args)->exact;
}

enum {
    FV_CU_EDT_LOCAL,
    FV_CU_EDT_LOCAL2,
    FV_CU_EDT_ENVELOPE,
    FV_CU_EDT_BANDED_TR,
    FV_CU_EDT_BANDED,
    FV_CU_EDT_UNBANDED,
    FV_CU_EDT_LINES
};
FV__VARIANTS(fv_cu_edt_variants, "cuda.distance_transform_edt", { "dist_local", fv_cu_edt_donly_ok, NULL },
             { "dist_local2", fv_cu_edt_donly_ok, NULL }, { "dist_envelope", fv_cu_edt_donly_ok, NULL },
             { "banded_tr", fv_cu_edt_tr_ok, NULL }, { "banded", fv_cu_edt_banded_ok, NULL },
             { "unbanded", NULL, NULL }, { "lines", NULL, NULL })

/* The distances are C-contiguous doubles. */
static int
fv_cu_edt_dcont(const fv_cu_edt_geom *g)
{
    int64_t s = (int64_t)sizeof(double);
    for (int a = g->nd - 1; a >= 0; a--) {
        if (g->shape[a] > 1 && g->dstr[a] != s)
            return 0;
        s *= g->shape[a];
    }
    return 1;
}

/* The banded path's work arrays: lists (prv, nxt, swr at i * lines + L) and per
 * (line, band) heads, tails and last sites (maxlb entries each). */
typedef struct fv_cu_edt_band_tmp {
    int32_t *prv, *nxt, *hd;
    double *swr;
    int64_t maxlb;
} fv_cu_edt_band_tmp;

/* One axis (g->d, geometry set) on the banded path: build, merge levels, last sites,
 * prefix, query. */
static fv_status
fv_cu_edt_band(fv_cu_edt_geom *g, const int32_t *fin, int32_t *fout, const fv_cu_edt_band_tmp *bt, cudaStream_t stream)
{
    fv_status st;
    g->W = fv_cu_edt_width(g->lines, g->n);
    g->nb = (g->n + g->W - 1) / g->W;
    int32_t *hd = bt->hd, *tl = hd + bt->maxlb, *ll = tl + bt->maxlb;
    const unsigned bb = fv_cu_edt_blocks(g->lines * g->nb);
    fv_k_edt_band_build<<<bb, FV_CU_MORPH_BLOCK, 0, stream>>>(*g, fin, bt->prv, bt->nxt, bt->swr, hd, tl);
    if ((st = fv_cu_launch_status("edt band kernel launch")) != FV_OK)
        return st;
    for (int64_t span = 1; span < g->nb; span *= 2) {
        const int64_t pairs = (g->nb + 2 * span - 1) / (2 * span);
        fv_k_edt_band_merge<<<fv_cu_edt_blocks(g->lines * pairs), FV_CU_MORPH_BLOCK, 0, stream>>>(
            *g, bt->prv, bt->nxt, bt->swr, hd, tl, span);
        if ((st = fv_cu_launch_status("edt band kernel launch")) != FV_OK)
            return st;
    }
    fv_k_edt_band_last<<<bb, FV_CU_MORPH_BLOCK, 0, stream>>>(*g, bt->prv, ll);
    if ((st = fv_cu_launch_status("edt band kernel launch")) != FV_OK)
        return st;
    fv_k_edt_band_prefix<<<fv_cu_edt_blocks(g->lines), FV_CU_MORPH_BLOCK, 0, stream>>>(*g, ll);
    if ((st = fv_cu_launch_status("edt band kernel launch")) != FV_OK)
        return st;
    fv_k_edt_band_query<<<bb, FV_CU_MORPH_BLOCK, 0, stream>>>(*g, fin, fout, bt->prv, bt->nxt, bt->swr, hd, ll);
    return fv_cu_launch_status("edt band kernel launch");
}

/* Distances only, banded: the last axis first (fv_k_edt_last_*), then axes
 * 0 .. nd-2 on squared-distance planes. */
static fv_status
fv_cu_edt_dist_only(fv_context *ctx, fv_cu_exec *x, fv_cu_edt_geom *g, const uint8_t *fg, int *dflag, int *unres,
                    int cap)
{
    const int nd = g->nd;
    const int64_t nl = g->shape[nd - 1], linesl = g->N / nl, nseg = (nl + FV_CU_EDT_SEG - 1) / FV_CU_EDT_SEG;
    fv_array *gA = NULL, *gB = NULL, *prv = NULL, *nxt = NULL, *swr = NULL, *ht = NULL, *seg = NULL;
    fv_cu_edt_band_tmp bt;
    fv_status st;
    bt.maxlb = 0;
    for (int d = 0; d < nd - 1; d++) {
        int64_t lines = g->N / g->shape[d], w = fv_cu_edt_width(lines, g->shape[d]);
        int64_t lb = lines * ((g->shape[d] + w - 1) / w);
        if (lb > bt.maxlb)
            bt.maxlb = lb;
    }
    if ((st = fv_cu_morph_temp(ctx, x->device, FV_FLOAT64, g->N, &gA)) != FV_OK ||
        (nd > 2 && (st = fv_cu_morph_temp(ctx, x->device, FV_FLOAT64, g->N, &gB)) != FV_OK) ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_INT32, g->N, &prv)) != FV_OK ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_INT32, g->N, &nxt)) != FV_OK ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_FLOAT64, g->N, &swr)) != FV_OK ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_INT32, 3 * bt.maxlb, &ht)) != FV_OK ||
        (st = fv_cu_morph_temp(ctx, x->device, FV_INT32, 2 * linesl * nseg, &seg)) != FV_OK)
        goto done;
    bt.prv = (int32_t *)prv->data;
    bt.nxt = (int32_t *)nxt->data;
    bt.swr = (double *)swr->data;
    bt.hd = (int32_t *)ht->data;
    {
        int32_t *first = (int32_t *)seg->data, *last = first + linesl * nseg;
        double *gin = (double *)gA->data, *gout = gB ? (double *)gB->data : NULL;
        const unsigned bs = fv_cu_edt_blocks(linesl * nseg * 32); /* a warp per run */
        fv_k_edt_last_seg<<<bs, FV_CU_MORPH_BLOCK, 0, x->stream>>>(fg, first, last, linesl, nl, nseg);
        if ((st = fv_cu_launch_status("edt last-axis kernel launch")) != FV_OK)
            goto done;
        fv_k_edt_last_scan<<<fv_cu_edt_blocks(linesl * 32), FV_CU_MORPH_BLOCK, 0, x->stream>>>(first, last, linesl,
                                                                                               nseg, dflag);
        if ((st = fv_cu_launch_status("edt last-axis kernel launch")) != FV_OK)
            goto done;
        fv_k_edt_last_fill<<<bs, FV_CU_MORPH_BLOCK, 0, x->stream>>>(fg, gin, first, last, linesl, nl, nseg,
                                                                    g->s[nd - 1]);
        if ((st = fv_cu_launch_status("edt last-axis kernel launch")) != FV_OK)
            goto done;
        for (int d = 0; d < nd - 1; d++) {
            g->d = d;
            g->final = d == nd - 2;
            g->n = g->shape[d];
            g->inner = 1;
            for (int k = d + 1; k < nd; k++)
                g->inner *= g->shape[k];
            g->lines = g->N / g->n;
            g->ps = g->inner;
            g->tr = 0;
            g->gm = 1;
            g->gin = gin;
            g->gout = gout;
            g->guard = NULL;
            if (cap > 0) { /* the local search; the envelope only where it did not settle */
                if (g->inner >= 32) {
                    const int64_t nrt = (g->inner + 31) / 32, npt = (g->n + FV_CU_EDT_LTP - 1) / FV_CU_EDT_LTP;
                    const int64_t nblk = g->N / (g->n * g->inner) * nrt * npt;
                    fv_k_edt_local_tile<<<(unsigned)nblk, FV_CU_EDT_LBLOCK, 0, x->stream>>>(*g, unres + d, cap, nrt,
                                                                                            npt);
                } else {
                    fv_k_edt_local<<<fv_cu_edt_blocks(g->N), FV_CU_MORPH_BLOCK, 0, x->stream>>>(*g, unres + d, cap);
                }
                if ((st = fv_cu_launch_status("edt local kernel launch")) != FV_OK)
                    goto done;
                g->guard = unres + d;
            }
            st = fv_cu_edt_band(g, NULL, NULL, &bt, x->stream);
            g->guard = NULL;
            if (st != FV_OK)
                goto done;
            double *t = gin;
            gin = gout;
            gout = t;
        }
    }
done:
    fv_cu_morph_release(ctx, gA);
    fv_cu_morph_release(ctx, gB);
    fv_cu_morph_release(ctx, prv);
    fv_cu_morph_release(ctx, nxt);
    fv_cu_morph_release(ctx, swr);
    fv_cu_morph_release(ctx, ht);
    fv_cu_morph_release(ctx, seg);
    return st;
}

fv_status
fv_cu_edt(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "distance_transform_edt";
    const fv__distance_params *p = (const fv__distance_params *)a->params;
    const fv_array *fga = a->in; /* the foreground (ops/morphology/distance.h) */
    fv_array *fA = NULL, *fB = NULL, *gsa = NULL, *swra = NULL, *flag = NULL;
    fv_array *nxa = NULL, *hta = NULL, *sega = NULL, *touta = NULL;
    fv_cu_exec x;
    fv_status st = FV_OK;
    fv_cu_edt_geom g;
    int entered = 0;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_distance_check(a, p, name)) != FV_OK)
        return st;
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
        g.idx = p->indices->data;
        g.idx64 = p->indices->dtype == FV_INT64;
        for (int d = 0; d <= nd; d++)
            g.istr[d] = p->indices->strides[d];
    }
    if (g.N == 0)
        return FV_OK;
    /* the path (fv_cu_edt_variants) */
    const fv_cu_edt_plan pa = { nd > 1 && fv_cu_edt_exact(&g), g.dist && !g.idx, g.N / g.shape[nd - 1] > 1 };
    const int path = fv__plan_index(&fv_cu_edt_variants, &pa, a->in->device.id);
    const int lines_only = path == FV_CU_EDT_LINES;
    const int banded = path <= FV_CU_EDT_BANDED;
    const int donly = path <= FV_CU_EDT_ENVELOPE;
    const int tr = path == FV_CU_EDT_BANDED_TR || (donly && pa.multi);
    const int cap = path == FV_CU_EDT_LOCAL ? FV_CU_EDT_CAP : path == FV_CU_EDT_LOCAL2 ? 2 : 0;
    const int64_t tout_n = tr ? (g.dist ? 2 * g.N : 0) + (g.idx ? nd * g.N : 0) : 0;
    const int64_t M = g.N / g.shape[0];
    const int64_t S0 = fv_cu_edt_width(M, g.shape[0]), nseg = (g.shape[0] + S0 - 1) / S0;
    int64_t maxlb = 0;
    for (int d = 1; d < nd; d++) {
        int64_t lines = g.N / g.shape[d], w = fv_cu_edt_width(lines, g.shape[d]);
        int64_t lb = lines * ((g.shape[d] + w - 1) / w);
        if (lb > maxlb)
            maxlb = lb;
    }
    if ((st = fv_cu_begin(ctx, name, a, g.N, &x)) != FV_OK)
        return st;
    entered = 1;
    if (donly) {
        /* flags: any zero, then per axis "the local search left elements unsettled" */
        if ((st = fv_cu_morph_temp(ctx, x.device, FV_INT32, 1 + nd, &flag)) != FV_OK)
            goto done;
        int *dflag = (int *)flag->data;
        if ((st = fv_cu_zero(dflag, sizeof(int) * (size_t)(1 + nd), x.stream)) != FV_OK)
            goto done;
        g.dcont = fv_cu_edt_dcont(&g);
        if ((st = fv_cu_edt_dist_only(ctx, &x, &g, (const uint8_t *)fga->data, dflag, dflag + 1, cap)) != FV_OK)
            goto done;
        fv_k_edt_nozero<<<x.grid, x.block, 0, x.stream>>>(g, dflag);
        st = fv_cu_launch_status("edt kernel launch");
        goto done;
    }
    {
        const int64_t planes = nd > 1 ? nd - 1 : 1;
        if ((st = fv_cu_morph_temp(ctx, x.device, FV_INT32, planes * g.N, &fA)) != FV_OK ||
            ((nd > 2 || tr) && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, planes * g.N, &fB)) != FV_OK) ||
            (tout_n && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, tout_n, &touta)) != FV_OK) ||
            (nd > 1 && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, g.N, &gsa)) != FV_OK) ||
            (nd > 1 && (st = fv_cu_morph_temp(ctx, x.device, FV_FLOAT64, g.N, &swra)) != FV_OK) ||
            (banded && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, g.N, &nxa)) != FV_OK) ||
            (banded && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, 3 * maxlb, &hta)) != FV_OK) ||
            (!lines_only && (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, 2 * M * nseg, &sega)) != FV_OK) ||
            (st = fv_cu_morph_temp(ctx, x.device, FV_INT32, 1, &flag)) != FV_OK)
            goto done;
    }
    {
        int *dflag = (int *)flag->data;
        const uint8_t *fg = (const uint8_t *)fga->data;
        int32_t *fin = (int32_t *)fA->data, *fout = fB ? (int32_t *)fB->data : NULL;
        if ((st = fv_cu_zero(dflag, sizeof(int), x.stream)) != FV_OK)
            goto done;
        if (lines_only) {
            fv_k_edt_axis0<<<fv_cu_edt_blocks(M), FV_CU_MORPH_BLOCK, 0, x.stream>>>(fg, fin, g.shape[0], M, dflag);
        } else {
            int32_t *first = (int32_t *)sega->data, *last = first + M * nseg;
            const unsigned bs = fv_cu_edt_blocks(M * nseg);
            fv_k_edt_axis0_seg<<<bs, FV_CU_MORPH_BLOCK, 0, x.stream>>>(fg, first, last, g.shape[0], M, S0, nseg);
            if ((st = fv_cu_launch_status("edt axis-0 kernel launch")) != FV_OK)
                goto done;
            fv_k_edt_axis0_scan<<<fv_cu_edt_blocks(M), FV_CU_MORPH_BLOCK, 0, x.stream>>>(first, last, M, nseg, dflag);
            if ((st = fv_cu_launch_status("edt axis-0 kernel launch")) != FV_OK)
                goto done;
            fv_k_edt_axis0_fill<<<bs, FV_CU_MORPH_BLOCK, 0, x.stream>>>(fg, fin, first, last, g.shape[0], M, S0, nseg);
        }
        if ((st = fv_cu_launch_status("edt axis-0 kernel launch")) != FV_OK)
            goto done;
        if (nd == 1) {
            fv_k_edt_write1d<<<x.grid, x.block, 0, x.stream>>>(fin, g, dflag);
            if ((st = fv_cu_launch_status("edt kernel launch")) != FV_OK)
                goto done;
        }
        fv_cu_edt_band_tmp bt;
        if (banded) {
            bt.prv = (int32_t *)gsa->data;
            bt.nxt = (int32_t *)nxa->data;
            bt.swr = (double *)swra->data;
            bt.hd = (int32_t *)hta->data;
            bt.maxlb = maxlb;
        }
        for (int d = 1; d < nd; d++) {
            g.d = d;
            g.final = d == nd - 1;
            g.n = g.shape[d];
            g.inner = 1;
            for (int k = d + 1; k < nd; k++)
                g.inner *= g.shape[k];
            g.lines = g.N / g.n;
            g.ps = g.inner;
            g.tr = 0;
            if (tr && g.final) { /* the planes (lines, n) -> (n, lines) */
                const int64_t tn = (g.n + FV_CU_EDT_TT - 1) / FV_CU_EDT_TT,
                              tiles = tn * ((g.lines + FV_CU_EDT_TT - 1) / FV_CU_EDT_TT);
                fv_k_edt_transpose<<<(unsigned)(tiles * d), dim3(FV_CU_EDT_TT, 8), 0, x.stream>>>(fin, fout, g.lines,
                                                                                                  g.n, g.N, tn, tiles);
                if ((st = fv_cu_launch_status("edt transpose kernel launch")) != FV_OK)
                    goto done;
                int32_t *t = fin;
                fin = fout;
                fout = t;
                g.tr = 1;
                g.ps = g.lines;
                g.tdist = g.dist ? (double *)touta->data : NULL;
                g.tidx = g.idx ? (int32_t *)touta->data + (g.dist ? 2 * g.N : 0) : NULL;
            }
            if (!banded) {
                fv_k_edt_axis<<<fv_cu_edt_blocks(g.lines), FV_CU_MORPH_BLOCK, 0, x.stream>>>(
                    g, fin, fout, (int32_t *)gsa->data, (double *)swra->data);
                if ((st = fv_cu_launch_status("edt kernel launch")) != FV_OK)
                    goto done;
            } else {
                if ((st = fv_cu_edt_band(&g, fin, fout, &bt, x.stream)) != FV_OK)
                    goto done;
                if (g.tr) {
                    const int64_t tn = (g.n + FV_CU_EDT_TT - 1) / FV_CU_EDT_TT;
                    const int64_t tiles = tn * ((g.lines + FV_CU_EDT_TT - 1) / FV_CU_EDT_TT);
                    fv_k_edt_untranspose<<<(unsigned)tiles, dim3(FV_CU_EDT_TT, 8), 0, x.stream>>>(g, tn, dflag);
                    if ((st = fv_cu_launch_status("edt transpose kernel launch")) != FV_OK)
                        goto done;
                }
            }
            int32_t *t = fin;
            fin = fout;
            fout = t;
        }
        fv_k_edt_nozero<<<x.grid, x.block, 0, x.stream>>>(g, dflag);
        st = fv_cu_launch_status("edt kernel launch");
    }
done:
    fv_cu_morph_release(ctx, fA);
    fv_cu_morph_release(ctx, fB);
    fv_cu_morph_release(ctx, gsa);
    fv_cu_morph_release(ctx, swra);
    fv_cu_morph_release(ctx, nxa);
    fv_cu_morph_release(ctx, hta);
    fv_cu_morph_release(ctx, sega);
    fv_cu_morph_release(ctx, touta);
    fv_cu_morph_release(ctx, flag);
    if (entered)
        fv_cu_end(&x);
    return st;
}

FV_KERNEL(EDT, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv_cu_edt);
