/* Host model of the CUDA watershed's relaxation (src/cuda/segmentation/watershed.cu),
 * built on the kernels' own step (src/ops/segmentation/watershed-relax.h), so it
 * runs without a GPU: the keys K = (C, D) that its Jacobi rounds reach must be
 * exactly those that its tiled schedule reaches, on random 2- and 3-d images
 * (continuous values, integer values with plateaus, NaN, +-inf and -0), random
 * masks, seeds (some outside the mask), footprints of reach 1 in any order
 * (connectivities, the demo's cross confined to one plane, random subsets) and
 * padding like fv_watershed's.
 *
 * The tiled model follows the kernel: tiles of random shapes (and the kernel's
 * own) with a one-pixel halo (along z only when a neighbour steps along z),
 * Jacobi sweeps inside a tile until nothing changes or a cap (random, or the
 * kernel's), written back in place; a round visits, in a random order, the
 * tiles marked in the previous one (a changed neighbour, or itself at the cap),
 * every tile in the first; rounds until one changes nothing. A halo cell is
 * read as the kernel may see it while its owner writes it: the pair at the
 * round's start, the current pair, or (torn) the start's C with the current D.
 * Without torn reads a tiled round is at least a Jacobi round, so the tiled
 * schedule also takes no more rounds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/segmentation/watershed-relax.h"
#include "check.h"

#define FV_T_SEED 0x6a09e667f3bcc909ull
#include "xorshift.h"

static int ncases;

static int
below(int m) /* uniform in 0..m-1 */
{
    return (int)(next_u64() % (uint64_t)m);
}

/* ---- a case: the padded, raveled layout of fv_watershed -------------------------- */

typedef struct wcase {
    int nd;
    int64_t shape[3], strides[3], pad[3], n;
    double *img;
    uint8_t *mask;
    int64_t *lab;
    int nnb;
    int64_t nb[26];
} wcase;

static void
wcase_free(wcase *w)
{
    free(w->img);
    free(w->mask);
    free(w->lab);
}

/* the kernels' init: seeds outside the mask cleared, K = (value, 0) at seeds and
 * unreached elsewhere, act = the pixels to update (in the mask, no seed) */
static void
ws_init(const wcase *w, double *C, int64_t *D, uint8_t *act)
{
    for (int64_t i = 0; i < w->n; i++) {
        int64_t l = w->mask[i] ? w->lab[i] : 0;
        C[i] = l ? w->img[i] : INFINITY;
        D[i] = l ? 0 : FV__WS_UNREACHED;
        act[i] = w->mask[i] && !l;
    }
}

/* fv_k_ws_relax's Jacobi rounds until one changes nothing; the rounds run */
static int64_t
jacobi(const wcase *w, double *C, int64_t *D)
{
    double *C2 = malloc(sizeof *C2 * (size_t)w->n);
    int64_t *D2 = malloc(sizeof *D2 * (size_t)w->n), rounds = 0;
    uint8_t *act = malloc((size_t)w->n);
    ws_init(w, C, D, act);
    for (int changed = 1; changed;) {
        changed = 0;
        rounds++;
        for (int64_t i = 0; i < w->n; i++) {
            double bc = C[i];
            int64_t bd = D[i];
            if (w->mask[i] && !w->lab[i]) { /* lab after init: seeds outside the mask are gone */
                for (int k = 0; k < w->nnb; k++) {
                    int64_t j = i + w->nb[k];
                    if (j >= 0 && j < w->n && w->mask[j])
                        fv__ws_relax_nb(w->img[i], C[j], D[j], &bc, &bd);
                }
                changed |= bc != C[i] || bd != D[i];
            }
            C2[i] = bc;
            D2[i] = bd;
        }
        memcpy(C, C2, sizeof *C * (size_t)w->n);
        memcpy(D, D2, sizeof *D * (size_t)w->n);
    }
    free(act);
    free(D2);
    free(C2);
    return rounds;
}

/* ---- the tiled schedule ---------------------------------------------------------------- */

typedef struct tiling {
    int tz, ty, tx; /* tile shape */
    int cap;        /* sweeps per visit */
    int torn;       /* halo reads may be torn */
} tiling;

/* fv_k_ws_tile's rounds until one changes nothing; the rounds run (0: no grid steps) */
static int64_t
tiled(const wcase *w, const tiling *tl, double *C, int64_t *D)
{
    int steps[26][3], so[26];
    if (!fv__ws_grid_steps(w->nd, w->strides, w->pad, w->nb, w->nnb, steps))
        return 0;
    const int lead = 3 - w->nd;
    const int64_t Z = lead ? 1 : w->shape[0], Y = w->shape[1 - lead], X = w->shape[2 - lead];
    int hz = 0;
    for (int k = 0; k < w->nnb; k++)
        hz |= steps[k][0] != 0;
    const int TZ = tl->tz, TY = tl->ty, TX = tl->tx, SX = TX + 2, SY = TY + 2, SZ = TZ + 2 * hz;
    const int S = SX * SY * SZ;
    for (int k = 0; k < w->nnb; k++)
        so[k] = (steps[k][0] * SY + steps[k][1]) * SX + steps[k][2];
    const int64_t gz = (Z + TZ - 1) / TZ, gy = (Y + TY - 1) / TY, gx = (X + TX - 1) / TX, nt = gz * gy * gx;

    uint8_t *act = malloc((size_t)w->n), *marks = calloc(2 * (size_t)nt, 1);
    double *Cs = malloc(sizeof *Cs * (size_t)w->n), *sC = malloc(sizeof *sC * (size_t)S);
    double *nc = malloc(sizeof *nc * (size_t)S);
    int64_t *Ds = malloc(sizeof *Ds * (size_t)w->n), *sD = malloc(sizeof *sD * (size_t)S);
    int64_t *nd = malloc(sizeof *nd * (size_t)S), *order = malloc(sizeof *order * (size_t)nt), rounds = 0;
    uint8_t *ch = malloc((size_t)S), *moved = malloc((size_t)S);
    ws_init(w, C, D, act);
    memset(marks, 1, (size_t)nt);
    for (int any = 1; any; rounds++) {
        uint8_t *cur = marks + (rounds & 1) * nt, *next = marks + ((rounds + 1) & 1) * nt;
        any = 0;
        memcpy(Cs, C, sizeof *C * (size_t)w->n);
        memcpy(Ds, D, sizeof *D * (size_t)w->n);
        for (int64_t b = 0; b < nt; b++)
            order[b] = b;
        for (int64_t b = nt - 1; b > 0; b--) {
            int64_t j = (int64_t)(next_u64() % (uint64_t)(b + 1)), t = order[b];
            order[b] = order[j];
            order[j] = t;
        }
        for (int64_t o = 0; o < nt; o++) {
            const int64_t b = order[o];
            if (!cur[b])
                continue;
            cur[b] = 0;
            const int64_t bx = b % gx, by = b / gx % gy, bz = b / gx / gy;
            const int64_t x0 = bx * TX - 1, y0 = by * TY - 1, z0 = bz * TZ - hz;
            for (int s = 0; s < S; s++) {
                const int64_t x = x0 + s % SX, y = y0 + s / SX % SY, z = z0 + s / (SX * SY);
                sC[s] = INFINITY;
                sD[s] = FV__WS_UNREACHED;
                moved[s] = 0;
                if (x < 0 || x >= X || y < 0 || y >= Y || z < 0 || z >= Z)
                    continue;
                const int64_t g = (z * Y + y) * X + x;
                switch (below(tl->torn ? 3 : 2)) {
                case 0:
                    sC[s] = Cs[g];
                    sD[s] = Ds[g];
                    break; /* as the round began */
                case 1:
                    sC[s] = C[g];
                    sD[s] = D[g];
                    break; /* as now */
                default:
                    sC[s] = Cs[g];
                    sD[s] = D[g];
                    break; /* torn: old C, new D */
                }
            }
            int sweeps = 0, capped = 0, tile_changed = 0;
            for (;;) {
                int sweep_changed = 0;
                memset(ch, 0, (size_t)S);
                for (int cz = 0; cz < TZ; cz++)
                    for (int cy = 0; cy < TY; cy++)
                        for (int cx = 0; cx < TX; cx++) {
                            const int s = ((cz + hz) * SY + cy + 1) * SX + cx + 1;
                            const int64_t x = x0 + 1 + cx, y = y0 + 1 + cy, z = z0 + hz + cz;
                            if (x >= X || y >= Y || z >= Z || !act[(z * Y + y) * X + x])
                                continue;
                            double bc = sC[s];
                            int64_t bd = sD[s];
                            for (int k = 0; k < w->nnb; k++)
                                fv__ws_relax_nb(w->img[(z * Y + y) * X + x], sC[s + so[k]], sD[s + so[k]], &bc, &bd);
                            if (bc != sC[s] || bd != sD[s]) {
                                ch[s] = 1;
                                nc[s] = bc;
                                nd[s] = bd;
                                sweep_changed = 1;
                            }
                        }
                for (int s = 0; s < S; s++) /* after the barrier: every read is done */
                    if (ch[s]) {
                        sC[s] = nc[s];
                        sD[s] = nd[s];
                        moved[s] = 1;
                    }
                if (!sweep_changed)
                    break;
                tile_changed = 1;
                if (++sweeps == tl->cap) {
                    capped = 1;
                    break;
                }
            }
            if (!tile_changed)
                continue;
            for (int s = 0; s < S; s++)
                if (moved[s]) {
                    const int64_t x = x0 + s % SX, y = y0 + s / SX % SY, z = z0 + s / (SX * SY);
                    C[(z * Y + y) * X + x] = sC[s];
                    D[(z * Y + y) * X + x] = sD[s];
                }
            for (int t = 0; t < 27; t++) {
                const int dz = t / 9 - 1, dy = t / 3 % 3 - 1, dx = t % 3 - 1;
                const int64_t nz = bz + dz, ny = by + dy, nx = bx + dx;
                if ((hz || !dz) && (dz || dy || dx || capped) && nz >= 0 && nz < gz && ny >= 0 && ny < gy && nx >= 0 &&
                    nx < gx)
                    next[(nz * gy + ny) * gx + nx] = 1;
            }
            any = 1;
        }
    }
    free(moved);
    free(ch);
    free(order);
    free(nd);
    free(sD);
    free(Ds);
    free(nc);
    free(sC);
    free(Cs);
    free(marks);
    free(act);
    return rounds;
}

/* ---- random cases ---------------------------------------------------------------------- */

enum {
    VAL_CONT,
    VAL_INT,
    VAL_SPECIAL
};
enum {
    FP_CONN,
    FP_PLANE_CROSS,
    FP_PLANE_FULL,
    FP_RANDOM
};

/* A random case: interior shape, footprint, values, mask, seeds. */
static void
wcase_random(wcase *w, int nd, const int64_t *inner, int fp, int conn, int vals, int levels, int use_mask, int nseeds)
{
    int steps[26][3], ns = 0, zstep = 0;
    memset(w, 0, sizeof *w);
    w->nd = nd;
    for (int c = 0; c < 27; c++) {
        int o[3] = { c / 9 - 1, c / 3 % 3 - 1, c % 3 - 1 }, hops = !!o[0] + !!o[1] + !!o[2], take;
        if (!hops || (nd == 2 && o[0]))
            continue;
        switch (fp) {
        case FP_CONN:
            take = hops <= conn;
            break;
        case FP_PLANE_CROSS:
            take = !o[0] && hops == 1;
            break;
        case FP_PLANE_FULL:
            take = !o[0];
            break;
        default:
            take = below(3) == 0;
            break;
        }
        if (take) {
            memcpy(steps[ns++], o, sizeof o);
            zstep |= o[0] != 0;
        }
    }
    if (!ns) { /* a random footprint needs one neighbour */
        steps[0][0] = 0;
        steps[0][1] = 0;
        steps[0][2] = 1;
        ns = 1;
    }
    for (int k = ns - 1; k > 0; k--) { /* any order: the relaxation's minimum does not care */
        int j = below(k + 1), t[3];
        memcpy(t, steps[k], sizeof t);
        memcpy(steps[k], steps[j], sizeof t);
        memcpy(steps[j], t, sizeof t);
    }
    /* padding as fv_watershed's: 1 (a 3-wide footprint), sometimes 2 (5-wide), 0
     * along z when no neighbour steps along it (a one-plane footprint) */
    const int lead = 3 - nd;
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        w->pad[d] = below(4) ? 1 : 2;
        if (d + lead == 0 && !zstep && below(2))
            w->pad[d] = 0;
        w->shape[d] = inner[d] + 2 * w->pad[d];
        w->strides[d] = s;
        s *= w->shape[d];
    }
    w->n = s;
    w->nnb = ns;
    for (int k = 0; k < ns; k++) {
        w->nb[k] = 0;
        for (int d = 0; d < nd; d++)
            w->nb[k] += steps[k][d + lead] * w->strides[d];
    }
    w->img = malloc(sizeof *w->img * (size_t)w->n);
    w->mask = calloc((size_t)w->n, 1);
    w->lab = calloc((size_t)w->n, sizeof *w->lab);
    int64_t *interior = malloc(sizeof *interior * (size_t)w->n), ni = 0;
    for (int64_t i = 0; i < w->n; i++) {
        int in = 1;
        for (int d = 0; d < nd; d++) {
            int64_t c = i / w->strides[d] % w->shape[d];
            in &= c >= w->pad[d] && c < w->shape[d] - w->pad[d];
        }
        double v = uniform();
        if (vals != VAL_CONT)
            v = (double)below(levels);
        if (vals == VAL_SPECIAL) {
            int r = below(40);
            v = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : r == 3 ? -0.0 : r == 4 ? 0.0 : v;
        }
        w->img[i] = in ? v : 0; /* the padding: 0, outside the mask */
        if (in) {
            w->mask[i] = use_mask ? below(100) < 85 : 1;
            interior[ni++] = i;
        }
    }
    for (int k = 0; k < nseeds && ni; k++) {
        int64_t l = (int64_t)below(9) - 4;
        w->lab[interior[below((int)ni)]] = l ? l : 7;
    }
    free(interior);
}

static int
same_keys(const wcase *w, const double *C1, const int64_t *D1, const double *C2, const int64_t *D2)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < w->n; i++)
        if (D1[i] != D2[i] || !(C1[i] == C2[i] || (isnan(C1[i]) && isnan(C2[i]))))
            bad++;
    if (bad)
        fprintf(stderr, "  %lld of %lld keys differ\n", (long long)bad, (long long)w->n);
    return !bad;
}

/* Jacobi against `ntilings` tiled schedules (the last with the kernel's tiles). */
static void
check_case(const wcase *w, int ntilings)
{
    double *Cj = malloc(sizeof *Cj * (size_t)w->n), *Ct = malloc(sizeof *Ct * (size_t)w->n);
    int64_t *Dj = malloc(sizeof *Dj * (size_t)w->n), *Dt = malloc(sizeof *Dt * (size_t)w->n);
    int64_t rj = jacobi(w, Cj, Dj);
    for (int t = 0; t < ntilings; t++) {
        tiling tl = { 1 + below(6), 1 + below(9), 1 + below(12), below(3) ? 1 + below(4) : 128, below(2) };
        if (t == ntilings - 1) { /* the kernel's: planes 32 x 32 or boxes 8 x 8 x 16, 128 sweeps */
            int zstep = 0, steps[26][3];
            if (fv__ws_grid_steps(w->nd, w->strides, w->pad, w->nb, w->nnb, steps))
                for (int k = 0; k < w->nnb; k++)
                    zstep |= steps[k][0] != 0;
            tl = zstep ? (tiling){ 8, 8, 16, 128, 1 } : (tiling){ 1, 32, 32, 128, 1 };
        }
        int64_t rt = tiled(w, &tl, Ct, Dt);
        CHECK(rt > 0);
        if (!same_keys(w, Cj, Dj, Ct, Dt)) {
            fprintf(stderr, "  %d-d shape (%lld, %lld, %lld), %d neighbours, tiles %dx%dx%d, cap %d, torn %d\n", w->nd,
                    (long long)w->shape[0], (long long)w->shape[1], (long long)(w->nd > 2 ? w->shape[2] : 1), w->nnb,
                    tl.tz, tl.ty, tl.tx, tl.cap, tl.torn);
            CHECK(0);
        } else {
            CHECK(1);
        }
        if (!tl.torn) /* a tiled round does at least a Jacobi round */
            CHECK(rt <= rj);
    }
    ncases++;
    free(Dt);
    free(Dj);
    free(Ct);
    free(Cj);
}

static void
test_random(void)
{
    for (int t = 0; t < 600; t++) {
        const int nd = 2 + t % 2;
        int64_t inner[3];
        for (int d = 0; d < nd; d++)
            inner[d] = 1 + below(nd == 2 ? 40 : 12);
        const int fp = nd == 2 ? (below(3) ? FP_CONN : FP_RANDOM) : below(4);
        const int vals = t / 2 % 3, levels = 1 + below(4);
        wcase w;
        wcase_random(&w, nd, inner, fp, 1 + below(nd), vals, levels, below(3) > 0, 1 + below(12));
        check_case(&w, 4);
        wcase_free(&w);
    }
}

/* Sizes that span many of the kernel's own tiles, plateau-rich. */
static void
test_large(void)
{
    static const int64_t sh2[2] = { 150, 133 }, sh3[3] = { 5, 70, 61 }, sh3b[3] = { 19, 20, 37 };
    static const struct {
        int nd;
        const int64_t *shape;
        int fp, conn, vals, levels, use_mask, nseeds;
    } cases[] = {
        { 2, sh2, FP_CONN, 1, VAL_INT, 3, 1, 30 },        { 2, sh2, FP_CONN, 2, VAL_CONT, 0, 0, 30 },
        { 3, sh3, FP_PLANE_CROSS, 1, VAL_INT, 2, 1, 40 }, /* the demo's footprint */
        { 3, sh3b, FP_CONN, 1, VAL_SPECIAL, 3, 1, 30 },   { 3, sh3b, FP_CONN, 3, VAL_INT, 2, 0, 30 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        wcase w;
        wcase_random(&w, cases[k].nd, cases[k].shape, cases[k].fp, cases[k].conn, cases[k].vals, cases[k].levels,
                     cases[k].use_mask, cases[k].nseeds);
        check_case(&w, 2);
        wcase_free(&w);
    }
}

/* fv__ws_grid_steps refuses what the tiles cannot hold. */
static void
test_grid_steps(void)
{
    int steps[26][3];
    const int64_t st2[2] = { 7, 1 }, pad1[2] = { 1, 1 }, pad0[2] = { 0, 1 }, st3[3] = { 35, 7, 1 },
                  pad3[3] = { 1, 1, 1 };
    int64_t nb[4] = { 1, -1, 7, -7 };
    CHECK(fv__ws_grid_steps(2, st2, pad1, nb, 4, steps));
    CHECK(steps[2][0] == 0 && steps[2][1] == 1 && steps[2][2] == 0 && steps[1][2] == -1);
    CHECK(!fv__ws_grid_steps(2, st2, pad0, nb, 4, steps)); /* no padding along y */
    CHECK(fv__ws_grid_steps(2, st2, pad0, nb, 2, steps));  /* ... needed only by y steps */
    nb[0] = 2;                                             /* reach 2 */
    CHECK(!fv__ws_grid_steps(2, st2, pad1, nb, 4, steps));
    nb[0] = 35 + 7 + 1;
    CHECK(fv__ws_grid_steps(3, st3, pad3, nb, 1, steps));
    CHECK(steps[0][0] == 1 && steps[0][1] == 1 && steps[0][2] == 1);
    CHECK(!fv__ws_grid_steps(1, st2 + 1, pad1, nb + 1, 1, steps)); /* 1-d: the Jacobi kernel */
    CHECK(!fv__ws_grid_steps(2, st2, pad1, nb, 1, steps));         /* 43 is no step of 2-d */
}

int
main(void)
{
    test_grid_steps();
    test_random();
    test_large();
    printf("%d cases\n", ncases);
    return fv_t_summary("test_watershed_relax");
}
