/* fv_label (include/fovea/measure.h) against a brute-force flood fill written
 * here: random images of 1..4 dimensions (densities 0.1..0.9, one or several
 * values, every connectivity, random point-symmetric structures, background
 * values, several dtypes, int32 and int64 labels), images large enough for
 * many CPU blocks, worst cases for union-find (combs, spirals, staircases),
 * strided views, 0-d and empty images, and the argument errors. The CUDA
 * merge's table of representative neighbours (fv__label_rep_table) is checked
 * against a brute-force union-find for every set of neighbours of every
 * structure family and random structures, and its rule is run sequentially on
 * dense images of few values beside the backend.
 *
 * Built twice: test_label runs the CPU backend; test_cuda_label
 * (FV_TEST_CUDA) runs the same cases on the CUDA backend and compares them
 * with the reference and with the CPU, exiting 77 (ctest: skipped) without a
 * usable GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "ops/measure/label.h" /* fv__label_rep_table */
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
#ifdef FV_TEST_CUDA
static const fv_device GPU = { FV_DEVICE_CUDA, 0 };
#endif
static fv_context *ctx;
static int ncases;

#define FV_T_SEED 0x9e3779b97f4a7c15ull
#include "xorshift.h"

/* ---- reference: flood fill in raster order ------------------------------------- */

/* Value of element i (C order) of a contiguous buffer of dt, as int64 (the
 * conversion skimage makes); floats: 1 when nonzero (only used with nonzero). */
static int64_t
value_at(const void *data, fv_dtype dt, int64_t i)
{
    switch (dt) {
    case FV_BOOL:
    case FV_UINT8:
        return ((const uint8_t *)data)[i];
    case FV_INT8:
        return ((const int8_t *)data)[i];
    case FV_UINT16:
        return ((const uint16_t *)data)[i];
    case FV_INT16:
        return ((const int16_t *)data)[i];
    case FV_UINT32:
        return ((const uint32_t *)data)[i];
    case FV_INT32:
        return ((const int32_t *)data)[i];
    case FV_UINT64:
        return (int64_t)((const uint64_t *)data)[i];
    case FV_INT64:
        return ((const int64_t *)data)[i];
    case FV_FLOAT32:
        return ((const float *)data)[i] != 0.0f;
    default:
        return ((const double *)data)[i] != 0.0;
    }
}

/* labels[n] of the image (contiguous), numbered in raster order of first
 * pixels; nb: 3^ndim neighbourhood (C order, centre ignored). */
static int64_t
flood_fill(const void *data, fv_dtype dt, int nd, const int64_t *shape, const uint8_t *nb, int nonzero,
           const int64_t *bg, int64_t *labels)
{
    int64_t n = 1, cst[FV_MAX_NDIM], next = 0;
    for (int d = nd - 1; d >= 0; d--) {
        cst[d] = n;
        n *= shape[d];
    }
    int ncells = 1;
    for (int d = 0; d < nd; d++)
        ncells *= 3;
    int64_t *queue = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        labels[i] = -1;
    for (int64_t s = 0; s < n; s++) {
        if (labels[s] >= 0)
            continue;
        int64_t v = value_at(data, dt, s);
        if (nonzero ? v == 0 : (bg && v == *bg)) {
            labels[s] = 0;
            continue;
        }
        int64_t head = 0, tail = 0;
        labels[s] = ++next;
        queue[tail++] = s;
        while (head < tail) {
            int64_t p = queue[head++], co[FV_MAX_NDIM], r = p;
            for (int d = nd - 1; d >= 0; d--) {
                co[d] = r % shape[d];
                r /= shape[d];
            }
            for (int c = 0; c < ncells; c++) {
                if (!nb[c] || c == ncells / 2)
                    continue;
                int rest = c, ok = 1;
                int64_t q = 0;
                for (int d = nd - 1; d >= 0; d--) {
                    int o = rest % 3 - 1;
                    rest /= 3;
                    int64_t x = co[d] + o;
                    if (x < 0 || x >= shape[d])
                        ok = 0;
                    q += x * cst[d];
                }
                if (!ok || labels[q] >= 0)
                    continue;
                int64_t w = value_at(data, dt, q);
                if (nonzero ? w == 0 : w != v)
                    continue;
                labels[q] = next;
                queue[tail++] = q;
            }
        }
    }
    free(queue);
    return next;
}

static void
connectivity_nb(int nd, int conn, uint8_t *nb)
{
    int ncells = 1;
    for (int d = 0; d < nd; d++)
        ncells *= 3;
    for (int c = 0; c < ncells; c++) {
        int rest = c, hops = 0;
        for (int d = 0; d < nd; d++) {
            hops += rest % 3 != 1;
            rest /= 3;
        }
        nb[c] = hops <= conn;
    }
}

/* ---- one case -------------------------------------------------------------------- */

static int64_t
get_label(const fv_array *out, int64_t i)
{
    return fv_array_dtype(out) == FV_INT64 ? ((const int64_t *)fv_array_data(out))[i]
                                           : ((const int32_t *)fv_array_data(out))[i];
}

/* Label img (host, contiguous) on the backend under test and compare with the
 * flood fill. structure: NULL (connectivity) or 3^nd bytes. */
static void
run_case(const char *what, const fv_array *img, fv_dtype out_dt, const uint8_t *structure, int conn, const int64_t *bg,
         int nonzero)
{
    int nd = fv_array_ndim(img);
    const int64_t *shape = fv_array_shape(img);
    int64_t n = fv_array_size(img), num = -1, want_num;
    uint8_t nb[6561];
    int64_t *want = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    fv_array *out = NULL;
    ncases++;
    int ncells = 1;
    for (int d = 0; d < nd; d++)
        ncells *= 3;
    if (structure)
        memcpy(nb, structure, (size_t)ncells);
    else
        connectivity_nb(nd, conn, nb);
    want_num = flood_fill(fv_array_data(img), fv_array_dtype(img), nd, shape, nb, nonzero, bg, want);
    CHECK_OK(fv_array_new(ctx, out_dt, nd, shape, CPU, &out));
#ifdef FV_TEST_CUDA
    fv_array *dimg = NULL, *dout = NULL;
    int64_t cpu_num = -1;
    fv_array *cpu_out = NULL;
    CHECK_OK(fv_array_new(ctx, out_dt, nd, shape, CPU, &cpu_out));
    CHECK_OK(fv_label(ctx, img, cpu_out, structure, conn, bg, nonzero, &cpu_num));
    CHECK_OK(fv_array_new(ctx, fv_array_dtype(img), nd, shape, GPU, &dimg));
    CHECK_OK(fv_array_new(ctx, out_dt, nd, shape, GPU, &dout));
    CHECK_OK(fv_copy(ctx, img, dimg));
    fv_status st = fv_label(ctx, dimg, dout, structure, conn, bg, nonzero, &num);
    CHECK_OK(st);
    CHECK_OK(fv_copy(ctx, dout, out));
    CHECK_OK(fv_context_synchronize(ctx));
    CHECK(cpu_num == num);
    if (memcmp(fv_array_data(cpu_out), fv_array_data(out), (size_t)fv_array_nbytes(out)) != 0) {
        fv_t_fail++;
        fprintf(stderr, "%s: CUDA labels differ from the CPU's\n", what);
    }
    fv_array_unref(cpu_out);
    fv_array_unref(dimg);
    fv_array_unref(dout);
#else
    fv_status st = fv_label(ctx, img, out, structure, conn, bg, nonzero, &num);
    CHECK_OK(st);
#endif
    if (st == FV_OK) {
        int64_t bad = -1;
        for (int64_t i = 0; i < n && bad < 0; i++)
            if (get_label(out, i) != want[i])
                bad = i;
        if (bad >= 0 || num != want_num) {
            fv_t_fail++;
            fprintf(stderr,
                    "%s: labels differ from the flood fill (first at %lld: %lld, wanted %lld; %lld "
                    "labels, wanted %lld)\n",
                    what, (long long)bad, bad >= 0 ? (long long)get_label(out, bad) : 0LL,
                    bad >= 0 ? (long long)want[bad] : 0LL, (long long)num, (long long)want_num);
        } else {
            fv_t_pass++;
        }
    }
    fv_array_unref(out);
    free(want);
}

/* A random image of dt: foreground with probability density, values 1..nvalues. */
static fv_array *
random_image(fv_dtype dt, int nd, const int64_t *shape, double density, int nvalues)
{
    fv_array *a = NULL;
    if (fv_array_new(ctx, dt, nd, shape, CPU, &a))
        return NULL;
    int64_t n = fv_array_size(a);
    size_t sz = fv_dtype_size(dt);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = uniform() < density ? 1 + (int64_t)(next_u64() % (uint64_t)nvalues) : 0;
        char *p = (char *)fv_array_data(a) + (size_t)i * sz;
        switch (dt) {
        case FV_FLOAT32:
            *(float *)p = (float)v * 0.5f;
            break;
        case FV_FLOAT64:
            *(double *)p = (double)v * 0.25;
            break;
        case FV_INT8:
            *(int8_t *)p = (int8_t)(v - 1);
            break; /* negative values too */
        case FV_INT64:
            *(int64_t *)p = v ? v - 3 : 0;
            break;
        default:
            memcpy(p, &v, sz);
            break; /* little-endian low bytes */
        }
    }
    return a;
}

static void
test_random(void)
{
    static const int64_t shapes[][4] = { { 1 },      { 2 },       { 37 },      { 1, 1 },       { 1, 9 },      { 9, 1 },
                                         { 17, 23 }, { 5, 7, 9 }, { 1, 6, 5 }, { 3, 4, 5, 6 }, { 2, 1, 3, 7 } };
    static const int ndims[] = { 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4 };
    static const double dens[] = { 0.1, 0.3, 0.5, 0.7, 0.9 };
    static const fv_dtype dts[] = { FV_UINT8,  FV_BOOL,  FV_INT8,   FV_UINT16, FV_INT16,
                                    FV_UINT32, FV_INT32, FV_UINT64, FV_INT64 };
    char what[160];
    for (size_t s = 0; s < sizeof ndims / sizeof *ndims; s++) {
        int nd = ndims[s];
        for (size_t k = 0; k < sizeof dens / sizeof *dens; k++) {
            fv_dtype dt = dts[(s + k) % (sizeof dts / sizeof *dts)];
            int nvalues = dt == FV_BOOL ? 1 : 1 + (int)(k % 3);
            fv_array *img = random_image(dt, nd, shapes[s], dens[k], nvalues);
            for (int conn = 1; conn <= nd; conn++) {
                snprintf(what, sizeof what, "random %dd shape #%zu density %.1f %s conn %d", nd, s, dens[k],
                         fv_dtype_name(dt), conn);
                int64_t bg0 = 0, bg1 = 1, bgm = -1;
                run_case(what, img, FV_INT64, NULL, conn, &bg0, 0);
                run_case(what, img, FV_INT32, NULL, conn, NULL, 0);
                run_case(what, img, FV_INT32, NULL, conn, &bg1, 0);
                run_case(what, img, FV_INT64, NULL, conn, &bgm, 0);
                run_case(what, img, FV_INT32, NULL, conn, NULL, 1);
            }
            /* random point-symmetric structures (scipy's nonzero mode) */
            int ncells = 1;
            for (int d = 0; d < nd; d++)
                ncells *= 3;
            for (int t = 0; t < 3; t++) {
                uint8_t st[81];
                for (int c = 0; c < ncells; c++)
                    st[c] = uniform() < 0.4;
                for (int c = 0; c < ncells; c++)
                    st[c] = st[c] | st[ncells - 1 - c];
                snprintf(what, sizeof what, "structure %dd shape #%zu density %.1f", nd, s, dens[k]);
                run_case(what, img, FV_INT32, st, 0, NULL, 1);
            }
            fv_array_unref(img);
        }
    }
    /* floats in nonzero mode */
    int64_t sh[2] = { 13, 14 };
    fv_array *f = random_image(FV_FLOAT32, 2, sh, 0.5, 3), *g = random_image(FV_FLOAT64, 2, sh, 0.5, 3);
    run_case("float32 nonzero", f, FV_INT32, NULL, 2, NULL, 1);
    run_case("float64 nonzero", g, FV_INT64, NULL, 1, NULL, 1);
    fv_array_unref(f);
    fv_array_unref(g);
}

/* Big enough for many CPU blocks whose borders merge in parallel. */
static void
test_large(void)
{
    static const int64_t s2[2] = { 601, 577 }, s3[3] = { 41, 43, 47 }, sthin[2] = { 3, 40000 };
    fv_context *many = NULL;
    fv_context *saved = ctx;
    CHECK_OK(fv_context_new(&many));
    CHECK_OK(fv_context_set_threads(many, 16)); /* 64 blocks even on a small machine */
    for (int pass = 0; pass < 2; pass++) {
        ctx = pass ? many : saved;
        for (int k = 0; k < 3; k++) {
            double dens = 0.3 + 0.25 * k;
            fv_array *a = random_image(FV_UINT8, 2, s2, dens, 1 + k % 2);
            run_case("large 2d conn 1", a, FV_INT32, NULL, 1, (const int64_t[]){ 0 }, 0);
            run_case("large 2d conn 2", a, FV_INT64, NULL, 2, (const int64_t[]){ 0 }, 0);
            fv_array_unref(a);
            a = random_image(FV_UINT16, 3, s3, dens, 1);
            run_case("large 3d conn 1", a, FV_INT32, NULL, 1, (const int64_t[]){ 0 }, 0);
            run_case("large 3d conn 3", a, FV_INT64, NULL, 3, (const int64_t[]){ 0 }, 0);
            fv_array_unref(a);
            a = random_image(FV_BOOL, 2, sthin, dens, 1);
            run_case("large thin 2d", a, FV_INT32, NULL, 2, (const int64_t[]){ 0 }, 0);
            fv_array_unref(a);
        }
    }
    ctx = saved;
    fv_context_free(many);
}

/* ---- the CUDA merge's representative neighbours ----------------------------------- */

/* The backward half of a 3^nd structure (centre ignored), rows of nd offsets in
 * C order of the cells: the table fv_label hands the kernels. Returns nnb. */
static int
backward_nb(int nd, const uint8_t *st, int8_t *nb)
{
    int ncells = 1, nnb = 0;
    for (int d = 0; d < nd; d++)
        ncells *= 3;
    for (int c = 0; c < ncells; c++) {
        int8_t o[FV_MAX_NDIM];
        int rest = c, first = 0;
        for (int d = nd - 1; d >= 0; d--) {
            o[d] = (int8_t)(rest % 3 - 1);
            rest /= 3;
        }
        for (int d = 0; d < nd && !first; d++)
            first = o[d];
        if (first == -1 && st[c]) {
            memcpy(nb + (size_t)nnb * nd, o, (size_t)nd);
            nnb++;
        }
    }
    return nnb;
}

/* Cells (3^nd, C order) whose number of nonzero offsets is in hops (bit h). */
static void
hops_structure(int nd, unsigned hops, uint8_t *st)
{
    int ncells = 1;
    for (int d = 0; d < nd; d++)
        ncells *= 3;
    for (int c = 0; c < ncells; c++) {
        int rest = c, h = 0;
        for (int d = 0; d < nd; d++) {
            h += rest % 3 != 1;
            rest /= 3;
        }
        st[c] = h > 0 && (hops >> h & 1);
    }
}

static int
uf_find(int *par, int x)
{
    while (par[x] != x)
        x = par[x];
    return x;
}

/* fv__label_rep_table against a brute-force union-find per set: neighbours j,
 * k of the set are adjacent when the cell of nb[k] - nb[j] is in st itself;
 * rep must hold exactly the lowest member of each component. */
static void
check_rep_table(const char *what, int nd, const uint8_t *st)
{
    int8_t nb[40 * 4];
    int nnb = backward_nb(nd, st, nb), adj[FV__LABEL_REP_MAX][FV__LABEL_REP_MAX], bad = 0;
    if (nnb > FV__LABEL_REP_MAX)
        return;
    uint16_t *rep = malloc(sizeof(uint16_t) << nnb);
    fv__label_rep_table(nd, nnb, nb, rep);
    for (int j = 0; j < nnb; j++)
        for (int k = 0; k < nnb; k++) {
            int c = 0, ok = j != k;
            for (int d = 0; d < nd; d++) {
                int diff = nb[k * nd + d] - nb[j * nd + d];
                ok &= diff >= -1 && diff <= 1;
                c = c * 3 + diff + 1;
            }
            adj[j][k] = ok && st[c];
        }
    for (uint32_t m = 0; m < (1u << nnb) && bad < 5; m++) {
        int par[FV__LABEL_REP_MAX];
        uint32_t want = 0;
        for (int k = 0; k < nnb; k++)
            par[k] = k;
        for (int j = 0; j < nnb; j++)
            for (int k = j + 1; k < nnb; k++)
                if ((m >> j & 1) && (m >> k & 1) && adj[j][k]) {
                    int a = uf_find(par, j), b = uf_find(par, k);
                    if (a < b)
                        par[b] = a;
                    else
                        par[a] = b;
                }
        for (int k = 0; k < nnb; k++)
            if ((m >> k & 1) && uf_find(par, k) == k)
                want |= 1u << k;
        if (rep[m] != want) {
            bad++;
            fprintf(stderr, "%s: rep[%#x] = %#x, wanted %#x\n", what, (unsigned)m, (unsigned)rep[m], (unsigned)want);
        }
    }
    CHECK(bad == 0);
    free(rep);
}

/* The CUDA merge rule run sequentially on a uint8 image: each foreground pixel
 * unites only with the representatives of its equal in-bounds backward
 * neighbours. Compared with the flood fill (the partition does not depend on
 * the order of the unions, so this covers the parallel kernel's rule). */
static void
check_rep_rule(const char *what, const fv_array *img, const uint8_t *st, const int64_t *bg)
{
    const int nd = fv_array_ndim(img);
    const int64_t *shape = fv_array_shape(img), n = fv_array_size(img);
    const uint8_t *v = fv_array_data(img);
    int8_t nb[40 * 4];
    int nnb = backward_nb(nd, st, nb);
    if (nnb > FV__LABEL_REP_MAX) /* the kernels unite with every equal neighbour */
        return;
    int64_t off[FV__LABEL_REP_MAX], cst[4], next = 0, bad = -1;
    int64_t *want = malloc(sizeof(int64_t) * (size_t)n), *par = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *got = malloc(sizeof(int64_t) * (size_t)n);
    uint16_t *rep = malloc(sizeof(uint16_t) << nnb);
    ncases++;
    fv__label_rep_table(nd, nnb, nb, rep);
    cst[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--)
        cst[d] = cst[d + 1] * shape[d + 1];
    for (int k = 0; k < nnb; k++) {
        off[k] = 0;
        for (int d = 0; d < nd; d++)
            off[k] += nb[k * nd + d] * cst[d];
    }
    for (int64_t i = 0; i < n; i++) {
        par[i] = i;
        if (bg && v[i] == *bg)
            continue;
        uint32_t m = 0;
        for (int k = 0; k < nnb; k++) {
            int ok = 1;
            for (int d = 0; d < nd; d++) {
                int64_t c = i / cst[d] % shape[d] + nb[k * nd + d];
                ok &= c >= 0 && c < shape[d];
            }
            if (ok && v[i + off[k]] == v[i])
                m |= 1u << k;
        }
        for (int k = 0; k < nnb; k++) {
            if (!(rep[m] >> k & 1))
                continue;
            int64_t a = i, b = i + off[k];
            while (par[a] != a)
                a = par[a];
            while (par[b] != b)
                b = par[b];
            if (a < b)
                par[b] = a;
            else
                par[a] = b;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i;
        while (par[r] != r)
            r = par[r];
        got[i] = bg && v[i] == *bg ? 0 : r == i ? ++next : got[r];
    }
    int64_t want_num = flood_fill(v, FV_UINT8, nd, shape, st, 0, bg, want);
    for (int64_t i = 0; i < n && bad < 0; i++)
        if (got[i] != want[i])
            bad = i;
    if (bad >= 0 || next != want_num) {
        fv_t_fail++;
        fprintf(stderr, "%s: the representative rule differs from the flood fill (first at %lld)\n", what,
                (long long)bad);
    } else {
        fv_t_pass++;
    }
    free(rep);
    free(got);
    free(par);
    free(want);
}

/* The representative table (exhaustively, every structure family), its rule on
 * images, and the backend on the same images: few values, dense, so that
 * equal neighbours of different values touch everywhere. */
static void
test_rep(void)
{
    static const int64_t shapes[4][4] = { { 211 }, { 61, 67 }, { 13, 17, 19 }, { 5, 6, 7, 8 } };
    static const double dens[] = { 0.6, 0.85, 1.0 };
    uint8_t st[81];
    char what[160];
    for (int nd = 1; nd <= 4; nd++) {
        /* every family of cells by number of nonzero offsets: the balls
         * (connectivity) and the non-ball ones (diagonals only, faces and
         * corners, ...) */
        for (unsigned hops = 2; hops < (2u << nd); hops += 2) {
            hops_structure(nd, hops, st);
            snprintf(what, sizeof what, "rep table %dd hops %#x", nd, hops);
            check_rep_table(what, nd, st);
        }
        /* random point-symmetric structures (sparser in 4-d, where the
         * table is used for at most 13 backward neighbours) */
        int ncells = nd == 1 ? 3 : nd == 2 ? 9 : nd == 3 ? 27 : 81;
        double pcell = nd == 4 ? 0.12 : 0.45;
        for (int t = 0; t < 40; t++) {
            for (int c = 0; c < ncells; c++)
                st[c] = uniform() < pcell;
            for (int c = 0; c < ncells; c++)
                st[c] = st[c] | st[ncells - 1 - c];
            snprintf(what, sizeof what, "rep table %dd random #%d", nd, t);
            check_rep_table(what, nd, st);
        }
        for (size_t k = 0; k < sizeof dens / sizeof *dens; k++) {
            for (int nvalues = 1; nvalues <= 3; nvalues++) {
                fv_array *img = random_image(FV_UINT8, nd, shapes[nd - 1], dens[k], nvalues);
                const int64_t bg0 = 0, *bgs[2] = { &bg0, NULL };
                for (int b = 0; b < 2; b++) {
                    const int64_t *bg = bgs[b];
                    for (unsigned hops = 2; hops < (2u << nd); hops += 2) {
                        hops_structure(nd, hops, st);
                        snprintf(what, sizeof what, "rep rule %dd density %.2f values %d hops %#x%s", nd, dens[k],
                                 nvalues, hops, bg ? "" : " no background");
                        check_rep_rule(what, img, st, bg);
                        run_case(what, img, FV_INT32, st, 0, bg, 0);
                        /* the connectivity balls given as connectivity too */
                        for (int conn = 1; conn <= nd; conn++)
                            if (hops == (2u << conn) - 2)
                                run_case(what, img, FV_INT64, NULL, conn, bg, 0);
                    }
                    for (int t = 0; t < 4; t++) {
                        for (int c = 0; c < ncells; c++)
                            st[c] = uniform() < pcell;
                        for (int c = 0; c < ncells; c++)
                            st[c] = st[c] | st[ncells - 1 - c];
                        snprintf(what, sizeof what, "rep rule %dd density %.2f values %d random #%d%s", nd, dens[k],
                                 nvalues, t, bg ? "" : " no background");
                        check_rep_rule(what, img, st, bg);
                        run_case(what, img, FV_INT32, st, 0, bg, 0);
                    }
                }
                fv_array_unref(img);
            }
        }
    }
}

/* Worst cases for union-find: combs joined at the far end (late merges of
 * many trees), a spiral (one long path), staircases (diagonal only). */
static void
test_shapes(void)
{
    const int64_t R = 64, C = 70;
    int64_t sh[2] = { R, C };
    fv_array *a = NULL;
    CHECK_OK(fv_array_zeros(ctx, FV_UINT8, 2, sh, CPU, &a));
    uint8_t *p = fv_array_data(a);
    for (int variant = 0; variant < 4; variant++) {
        memset(p, 0, (size_t)(R * C));
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) {
                int64_t rr = variant & 1 ? R - 1 - r : r, cc = variant & 2 ? C - 1 - c : c;
                p[r * C + c] = (cc % 2 == 0) || rr == R - 1;
            }
        for (int conn = 1; conn <= 2; conn++)
            run_case("comb", a, FV_INT32, NULL, conn, (const int64_t[]){ 0 }, 0);
    }
    /* spiral */
    memset(p, 0, (size_t)(R * C));
    {
        int64_t r0 = 0, r1 = R - 1, c0 = 0, c1 = C - 1, r = 0, c = 0;
        int dir = 0;
        (void)r;
        (void)c;
        while (r0 <= r1 && c0 <= c1) {
            if (dir == 0) {
                for (int64_t x = c0; x <= c1; x++)
                    p[r0 * C + x] = 1;
                r0 += 2;
            } else if (dir == 1) {
                for (int64_t y = r0 - 2; y <= r1; y++)
                    p[y * C + c1] = 1;
                c1 -= 2;
            } else if (dir == 2) {
                for (int64_t x = c0; x <= c1 + 2; x++)
                    p[r1 * C + x] = 1;
                r1 -= 2;
            } else {
                for (int64_t y = r0; y <= r1 + 2; y++)
                    p[y * C + c0] = 1;
                c0 += 2;
            }
            dir = (dir + 1) % 4;
        }
    }
    for (int conn = 1; conn <= 2; conn++)
        run_case("spiral", a, FV_INT64, NULL, conn, (const int64_t[]){ 0 }, 0);
    /* staircases */
    memset(p, 0, (size_t)(R * C));
    for (int64_t r = 0; r < R; r++) {
        p[r * C + (C - 1 - r)] = 1;
        p[r * C + r] = 2;
    }
    for (int conn = 1; conn <= 2; conn++)
        run_case("staircase", a, FV_INT32, NULL, conn, (const int64_t[]){ 0 }, 0);
    /* all foreground, all background, checkerboard */
    memset(p, 1, (size_t)(R * C));
    run_case("all foreground", a, FV_INT32, NULL, 2, (const int64_t[]){ 0 }, 0);
    run_case("all background", a, FV_INT32, NULL, 2, (const int64_t[]){ 1 }, 0);
    for (int64_t i = 0; i < R * C; i++)
        p[i] = (uint8_t)(((i / C) + (i % C)) % 2);
    run_case("checkerboard conn 1", a, FV_INT32, NULL, 1, (const int64_t[]){ 0 }, 0);
    run_case("checkerboard conn 2", a, FV_INT32, NULL, 2, (const int64_t[]){ 0 }, 0);
    run_case("checkerboard no background", a, FV_INT64, NULL, 1, NULL, 0);
    fv_array_unref(a);
}

static void
test_views_and_edges(void)
{
    /* a strided, reversed view: labelled like its contiguous copy */
    int64_t sh[2] = { 30, 41 };
    fv_array *a = random_image(FV_INT16, 2, sh, 0.6, 2), *v = NULL, *c = NULL;
    int64_t vsh[2] = { 15, 41 }, vst[2] = { -2 * 41 * 2, 2 };
    CHECK_OK(fv_array_view(a, 2, vsh, vst, (int64_t)29 * 41 * 2, &v));
    CHECK_OK(fv_array_new(ctx, FV_INT16, 2, vsh, CPU, &c));
    CHECK_OK(fv_copy(ctx, v, c));
    fv_array *o1 = NULL, *o2 = NULL;
    int64_t n1 = 0, n2 = 0, bg = 0;
    CHECK_OK(fv_array_new(ctx, FV_INT64, 2, vsh, CPU, &o1));
    CHECK_OK(fv_array_new(ctx, FV_INT64, 2, vsh, CPU, &o2));
    CHECK_OK(fv_label(ctx, v, o1, NULL, 2, &bg, 0, &n1));
    CHECK_OK(fv_label(ctx, c, o2, NULL, 2, &bg, 0, &n2));
    CHECK(n1 == n2 && memcmp(fv_array_data(o1), fv_array_data(o2), (size_t)fv_array_nbytes(o1)) == 0);
    run_case("contiguous copy of a view", c, FV_INT64, NULL, 2, &bg, 0);

    /* 0-d and empty images */
    fv_array *z = NULL, *zo = NULL, *e = NULL, *eo = NULL;
    int64_t num = -1;
    CHECK_OK(fv_array_new(ctx, FV_UINT8, 0, NULL, CPU, &z));
    CHECK_OK(fv_array_new(ctx, FV_INT32, 0, NULL, CPU, &zo));
    *(uint8_t *)fv_array_data(z) = 3;
    CHECK_OK(fv_label(ctx, z, zo, NULL, 1, &bg, 0, &num));
    CHECK(num == 1 && *(int32_t *)fv_array_data(zo) == 1);
    *(uint8_t *)fv_array_data(z) = 0;
    CHECK_OK(fv_label(ctx, z, zo, NULL, 1, &bg, 0, &num));
    CHECK(num == 0 && *(int32_t *)fv_array_data(zo) == 0);
    int64_t esh[2] = { 0, 5 };
    CHECK_OK(fv_array_new(ctx, FV_UINT8, 2, esh, CPU, &e));
    CHECK_OK(fv_array_new(ctx, FV_INT64, 2, esh, CPU, &eo));
    num = -1;
    CHECK_OK(fv_label(ctx, e, eo, NULL, 2, &bg, 0, &num));
    CHECK(num == 0);

    /* errors */
    fv_array *f = NULL, *bad = NULL;
    CHECK_OK(fv_array_new(ctx, FV_FLOAT32, 2, vsh, CPU, &f));
    CHECK_OK(fv_array_new(ctx, FV_UINT8, 2, vsh, CPU, &bad));
    CHECK_ERR(fv_label(ctx, c, bad, NULL, 2, &bg, 0, &num), FV_EDTYPE, "int32 or int64");
    CHECK_ERR(fv_label(ctx, c, eo, NULL, 2, &bg, 0, &num), FV_EINVAL, "shape");
    CHECK_ERR(fv_label(ctx, c, o1, NULL, 0, &bg, 0, &num), FV_EINVAL, "connectivity");
    CHECK_ERR(fv_label(ctx, c, o1, NULL, 3, &bg, 0, &num), FV_EINVAL, "connectivity");
    CHECK_ERR(fv_label(ctx, f, o1, NULL, 2, &bg, 0, &num), FV_EDTYPE, "integer");
    CHECK_ERR(fv_label(ctx, c, o1, NULL, 2, &bg, 1, &num), FV_EINVAL, "background");
    uint8_t asym[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 0 };
    CHECK_ERR(fv_label(ctx, c, o1, asym, 0, NULL, 1, &num), FV_EINVAL, "symmetric");
    CHECK_ERR(fv_label(ctx, NULL, o1, NULL, 2, NULL, 0, &num), FV_EINVAL, "NULL");
    fv_array *alias = NULL; /* out overlapping the image */
    int64_t ash[1] = { 4 };
    CHECK_OK(fv_array_new(ctx, FV_INT32, 1, ash, CPU, &alias));
    CHECK_ERR(fv_label(ctx, alias, alias, NULL, 1, NULL, 0, &num), FV_EINVAL, "overlap");

    fv_array_unref(alias);
    fv_array_unref(f);
    fv_array_unref(bad);
    fv_array_unref(z);
    fv_array_unref(zo);
    fv_array_unref(e);
    fv_array_unref(eo);
    fv_array_unref(o1);
    fv_array_unref(o2);
    fv_array_unref(v);
    fv_array_unref(c);
    fv_array_unref(a);
}

int
main(void)
{
#ifdef FV_TEST_CUDA
    if (!fv_cuda_available()) {
        printf("test_cuda_label: skipped (%s)\n", fv_cuda_unavailable_reason());
        return 77;
    }
#endif
    if (fv_context_new(&ctx)) {
        fprintf(stderr, "fv_context_new failed\n");
        return 1;
    }
    test_random();
    test_rep();
    test_large();
    test_shapes();
    test_views_and_edges(); /* the argument checks on host arrays; its one case runs on the GPU too */
    fv_context_free(ctx);
    printf("%d cases\n", ncases);
#ifdef FV_TEST_CUDA
    return fv_t_summary("test_cuda_label");
#else
    return fv_t_summary("test_label");
#endif
}
